/* Expression constructors. Every node is allocated in its module's arena,
 * gets the next module-wide id, and is never modified afterwards (except
 * the checked_type memo of type inference). Arrays passed in are copied. */
#include <string.h>

#include "ir/ir.h"
#include "runtime/assert.h"
#include "runtime/half.h"

static rt_status_t new_expr(rt_module_t *m, rt_ir_expr_kind_t kind,
                            rt_ir_span_t span, rt_ir_expr_t **out) {
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc(&m->arena, sizeof(rt_ir_expr_t), &p));
  rt_ir_expr_t *e = p;
  e->kind = kind;
  e->id = m->next_id++;
  e->span = span;
  *out = e;
  return RT_OK;
}

static rt_status_t copy_exprs(rt_module_t *m, int32_t count,
                              rt_ir_expr_t *const *src, rt_ir_expr_t ***out) {
  *out = NULL;
  if (count == 0) return RT_OK;
  if (count < 0) return RT_STATUS(INVALID_ARGUMENT, "negative count %d", (int)count);
  void *p = NULL;
  RT_RETURN_IF_ERROR(
      rt_arena_alloc_array(&m->arena, (size_t)count, sizeof(rt_ir_expr_t *), &p));
  memcpy(p, src, (size_t)count * sizeof(rt_ir_expr_t *));
  *out = p;
  return RT_OK;
}

static rt_status_t copy_string(rt_module_t *m, const char *s, const char **out) {
  char *copy = NULL;
  RT_RETURN_IF_ERROR(rt_arena_strndup(&m->arena, s, strlen(s), &copy));
  *out = copy;
  return RT_OK;
}

rt_status_t rt_ir_var(rt_module_t *m, rt_ir_span_t span, const char *name,
                      rt_ir_type_t *annotation, rt_ir_expr_t **out) {
  rt_ir_expr_t *e = NULL;
  RT_RETURN_IF_ERROR(new_expr(m, RT_IR_VAR, span, &e));
  RT_RETURN_IF_ERROR(copy_string(m, name ? name : "", &e->var.name));
  e->var.annotation = annotation;
  *out = e;
  return RT_OK;
}

rt_status_t rt_ir_global_var(rt_module_t *m, rt_ir_span_t span, const char *name,
                             rt_ir_expr_t **out) {
  rt_ir_expr_t *e = NULL;
  RT_RETURN_IF_ERROR(new_expr(m, RT_IR_GLOBAL_VAR, span, &e));
  RT_RETURN_IF_ERROR(copy_string(m, name, &e->global.name));
  *out = e;
  return RT_OK;
}

/* Records one reference to `value` in the module's release list. */
static rt_status_t hold_constant(rt_module_t *m, rt_tensor_t *value) {
  if (m->num_constants == m->cap_constants) {
    int32_t cap = m->cap_constants ? m->cap_constants * 2 : 16;
    void *p = NULL;
    RT_RETURN_IF_ERROR(rt_allocator_malloc(
        m->allocator, (size_t)cap * sizeof(rt_tensor_t *), 8, false, &p));
    if (m->constants) {
      memcpy(p, m->constants, (size_t)m->num_constants * sizeof(rt_tensor_t *));
    }
    rt_allocator_free(m->allocator, m->constants);
    m->constants = p;
    m->cap_constants = cap;
  }
  rt_tensor_retain(value);
  m->constants[m->num_constants++] = value;
  return RT_OK;
}

rt_status_t rt_ir_constant(rt_module_t *m, rt_ir_span_t span, rt_tensor_t *value,
                           rt_ir_expr_t **out) {
  rt_ir_expr_t *e = NULL;
  RT_RETURN_IF_ERROR(new_expr(m, RT_IR_CONSTANT, span, &e));
  RT_RETURN_IF_ERROR(hold_constant(m, value));
  e->constant.value = value;
  *out = e;
  return RT_OK;
}

/* Stores `value` converted to `dtype` at `dst`. */
static void store_scalar(rt_dtype_t dtype, double value, void *dst) {
  switch (dtype.code) {
    case kDLBool: *(uint8_t *)dst = value != 0.0; return;
    case kDLInt:
      switch (dtype.bits) {
        case 8: *(int8_t *)dst = (int8_t)value; return;
        case 16: *(int16_t *)dst = (int16_t)value; return;
        case 32: *(int32_t *)dst = (int32_t)value; return;
        default: *(int64_t *)dst = (int64_t)value; return;
      }
    case kDLUInt:
      switch (dtype.bits) {
        case 8: *(uint8_t *)dst = (uint8_t)value; return;
        case 16: *(uint16_t *)dst = (uint16_t)value; return;
        case 32: *(uint32_t *)dst = (uint32_t)value; return;
        default: *(uint64_t *)dst = (uint64_t)value; return;
      }
    case kDLFloat:
      if (dtype.bits == 64) {
        *(double *)dst = value;
      } else if (dtype.bits == 32) {
        *(float *)dst = (float)value;
      } else {
        uint16_t h = rt_f32_to_f16((float)value);
        memcpy(dst, &h, 2);
      }
      return;
    case kDLBfloat: {
      uint16_t b = rt_f32_to_bf16((float)value);
      memcpy(dst, &b, 2);
      return;
    }
    default: return;
  }
}

rt_status_t rt_ir_scalar(rt_module_t *m, rt_ir_span_t span, rt_dtype_t dtype,
                         double value, rt_ir_expr_t **out) {
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(m->allocator, dtype, 0, NULL, &t));
  store_scalar(dtype, value, rt_tensor_data(t));
  rt_status_t st = rt_ir_constant(m, span, t, out);
  rt_tensor_release(t);
  return st;
}

rt_status_t rt_ir_op_ref(rt_module_t *m, rt_ir_span_t span, const rt_ir_op_t *op,
                         rt_ir_expr_t **out) {
  rt_ir_expr_t *e = NULL;
  RT_RETURN_IF_ERROR(new_expr(m, RT_IR_OP, span, &e));
  e->op.op = op;
  *out = e;
  return RT_OK;
}

rt_status_t rt_ir_call(rt_module_t *m, rt_ir_span_t span, rt_ir_expr_t *callee,
                       int32_t nargs, rt_ir_expr_t *const *args,
                       rt_ir_attrs_t *attrs, rt_ir_expr_t **out) {
  RT_ASSERT(callee != NULL);
  if (callee->kind == RT_IR_OP) {
    const rt_ir_op_t *op = callee->op.op;
    if (nargs != op->num_inputs) {
      return RT_STATUS(INVALID_ARGUMENT, "%s takes %d argument%s, got %d",
                       op->name, (int)op->num_inputs,
                       op->num_inputs == 1 ? "" : "s", (int)nargs);
    }
    if (!attrs) {
      RT_RETURN_IF_ERROR(rt_ir_op_attrs(m, span, op, 0, NULL, NULL, &attrs));
    }
    RT_ASSERT(attrs->count == op->num_fields);
  }
  rt_ir_expr_t *e = NULL;
  RT_RETURN_IF_ERROR(new_expr(m, RT_IR_CALL, span, &e));
  RT_RETURN_IF_ERROR(copy_exprs(m, nargs, args, &e->call.args));
  e->call.callee = callee;
  e->call.nargs = nargs;
  e->call.attrs = attrs;
  *out = e;
  return RT_OK;
}

rt_status_t rt_ir_tuple(rt_module_t *m, rt_ir_span_t span, int32_t count,
                        rt_ir_expr_t *const *fields, rt_ir_expr_t **out) {
  rt_ir_expr_t *e = NULL;
  RT_RETURN_IF_ERROR(new_expr(m, RT_IR_TUPLE, span, &e));
  RT_RETURN_IF_ERROR(copy_exprs(m, count, fields, &e->tuple.fields));
  e->tuple.count = count;
  *out = e;
  return RT_OK;
}

rt_status_t rt_ir_get_item(rt_module_t *m, rt_ir_span_t span, rt_ir_expr_t *tuple,
                           int32_t index, rt_ir_expr_t **out) {
  if (index < 0) {
    return RT_STATUS(INVALID_ARGUMENT, "tuple index %d is negative", (int)index);
  }
  rt_ir_expr_t *e = NULL;
  RT_RETURN_IF_ERROR(new_expr(m, RT_IR_TUPLE_GET_ITEM, span, &e));
  e->get_item.tuple = tuple;
  e->get_item.index = index;
  *out = e;
  return RT_OK;
}

rt_status_t rt_ir_let(rt_module_t *m, rt_ir_span_t span, rt_ir_expr_t *var,
                      rt_ir_expr_t *value, rt_ir_expr_t *body, rt_ir_expr_t **out) {
  RT_ASSERT(var && var->kind == RT_IR_VAR);
  rt_ir_expr_t *e = NULL;
  RT_RETURN_IF_ERROR(new_expr(m, RT_IR_LET, span, &e));
  e->let.var = var;
  e->let.value = value;
  e->let.body = body;
  *out = e;
  return RT_OK;
}

rt_status_t rt_ir_if(rt_module_t *m, rt_ir_span_t span, rt_ir_expr_t *cond,
                     rt_ir_expr_t *then_b, rt_ir_expr_t *else_b,
                     rt_ir_expr_t **out) {
  rt_ir_expr_t *e = NULL;
  RT_RETURN_IF_ERROR(new_expr(m, RT_IR_IF, span, &e));
  e->if_.cond = cond;
  e->if_.then_branch = then_b;
  e->if_.else_branch = else_b;
  *out = e;
  return RT_OK;
}

rt_status_t rt_ir_function(rt_module_t *m, rt_ir_span_t span, int32_t nparams,
                           rt_ir_expr_t *const *params, rt_ir_expr_t *body,
                           rt_ir_type_t *ret_type, rt_ir_attrs_t *attrs,
                           rt_ir_expr_t **out) {
  for (int32_t i = 0; i < nparams; ++i) RT_ASSERT(params[i]->kind == RT_IR_VAR);
  rt_ir_expr_t *e = NULL;
  RT_RETURN_IF_ERROR(new_expr(m, RT_IR_FUNCTION, span, &e));
  RT_RETURN_IF_ERROR(copy_exprs(m, nparams, params, &e->fn.params));
  e->fn.nparams = nparams;
  e->fn.body = body;
  e->fn.ret_type = ret_type;
  e->fn.attrs = attrs;
  *out = e;
  return RT_OK;
}
