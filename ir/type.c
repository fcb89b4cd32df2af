/* IR types: constructors, union-find resolution of incomplete types,
 * structural equality and printing in Relay's text form
 * ("Tensor[(1, 3), float32]", "float32" for 0-d, "(T,)" for 1-tuples,
 * "fn (T) -> R", "List[T]" and "Option[T]", "?" for Any dims, "_" for an
 * unresolved type). */
#include <string.h>

#include "ir/ir.h"
#include "runtime/assert.h"

static rt_status_t new_type(rt_module_t *m, rt_ir_type_kind_t kind,
                            rt_ir_type_t **out) {
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc(&m->arena, sizeof(rt_ir_type_t), &p));
  rt_ir_type_t *t = p;
  t->kind = kind;
  *out = t;
  return RT_OK;
}

rt_status_t rt_ir_tensor_type(rt_module_t *m, rt_dtype_t dtype, int32_t rank,
                              const int64_t *shape, rt_ir_type_t **out) {
  if (rank < 0 || rank > RT_TENSOR_MAX_RANK) {
    return RT_STATUS(INVALID_ARGUMENT, "tensor rank %d is out of range (max %d)",
                     (int)rank, RT_TENSOR_MAX_RANK);
  }
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] < 0 && shape[i] != RT_DIM_ANY) {
      return RT_STATUS(INVALID_ARGUMENT, "negative dimension %lld",
                       (long long)shape[i]);
    }
  }
  rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(new_type(m, RT_IR_TYPE_TENSOR, &t));
  int64_t *dims = NULL;
  if (rank > 0) {
    void *p = NULL;
    RT_RETURN_IF_ERROR(rt_arena_alloc_array(&m->arena, (size_t)rank,
                                            sizeof(int64_t), &p));
    dims = p;
    memcpy(dims, shape, (size_t)rank * sizeof(int64_t));
  }
  t->tensor.dtype = dtype;
  t->tensor.rank = rank;
  t->tensor.shape = dims;
  *out = t;
  return RT_OK;
}

static rt_status_t copy_types(rt_module_t *m, int32_t count,
                              rt_ir_type_t *const *src, rt_ir_type_t ***out) {
  *out = NULL;
  if (count == 0) return RT_OK;
  void *p = NULL;
  RT_RETURN_IF_ERROR(
      rt_arena_alloc_array(&m->arena, (size_t)count, sizeof(rt_ir_type_t *), &p));
  memcpy(p, src, (size_t)count * sizeof(rt_ir_type_t *));
  *out = p;
  return RT_OK;
}

rt_status_t rt_ir_tuple_type(rt_module_t *m, int32_t count,
                             rt_ir_type_t *const *fields, rt_ir_type_t **out) {
  rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(new_type(m, RT_IR_TYPE_TUPLE, &t));
  RT_RETURN_IF_ERROR(copy_types(m, count, fields, &t->tuple.fields));
  t->tuple.count = count;
  *out = t;
  return RT_OK;
}

rt_status_t rt_ir_func_type(rt_module_t *m, int32_t count,
                            rt_ir_type_t *const *params, rt_ir_type_t *ret,
                            rt_ir_type_t **out) {
  rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(new_type(m, RT_IR_TYPE_FUNC, &t));
  RT_RETURN_IF_ERROR(copy_types(m, count, params, &t->func.params));
  t->func.count = count;
  t->func.ret = ret;
  *out = t;
  return RT_OK;
}

rt_status_t rt_ir_incomplete_type(rt_module_t *m, rt_ir_type_t **out) {
  return new_type(m, RT_IR_TYPE_INCOMPLETE, out);
}

rt_status_t rt_ir_adt_type(rt_module_t *m, rt_ir_type_kind_t kind, rt_ir_type_t *elem,
                           rt_ir_type_t **out) {
  RT_ASSERT(kind == RT_IR_TYPE_LIST || kind == RT_IR_TYPE_OPTION);
  rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(new_type(m, kind, &t));
  t->adt.elem = elem;
  *out = t;
  return RT_OK;
}

rt_ir_type_t *rt_ir_type_resolve(rt_ir_type_t *type) {
  while (type && type->kind == RT_IR_TYPE_INCOMPLETE &&
         type->incomplete.resolved) {
    type = type->incomplete.resolved;
  }
  return type;
}

bool rt_ir_type_equal(const rt_ir_type_t *a, const rt_ir_type_t *b) {
  a = rt_ir_type_resolve((rt_ir_type_t *)a);
  b = rt_ir_type_resolve((rt_ir_type_t *)b);
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case RT_IR_TYPE_TENSOR:
      if (!rt_dtype_equal(a->tensor.dtype, b->tensor.dtype)) return false;
      if (a->tensor.rank != b->tensor.rank) return false;
      for (int32_t i = 0; i < a->tensor.rank; ++i) {
        if (a->tensor.shape[i] != b->tensor.shape[i]) return false;
      }
      return true;
    case RT_IR_TYPE_TUPLE:
      if (a->tuple.count != b->tuple.count) return false;
      for (int32_t i = 0; i < a->tuple.count; ++i) {
        if (!rt_ir_type_equal(a->tuple.fields[i], b->tuple.fields[i])) return false;
      }
      return true;
    case RT_IR_TYPE_FUNC:
      if (a->func.count != b->func.count) return false;
      for (int32_t i = 0; i < a->func.count; ++i) {
        if (!rt_ir_type_equal(a->func.params[i], b->func.params[i])) return false;
      }
      return rt_ir_type_equal(a->func.ret, b->func.ret);
    case RT_IR_TYPE_LIST:
    case RT_IR_TYPE_OPTION:
      return rt_ir_type_equal(a->adt.elem, b->adt.elem);
    case RT_IR_TYPE_INCOMPLETE:
      return false; /* two distinct unresolved variables */
  }
  return false;
}

void rt_ir_shape_print(int32_t rank, const int64_t *shape, rt_strbuf_t *out) {
  rt_strbuf_putc(out, '(');
  for (int32_t i = 0; i < rank; ++i) {
    if (i) rt_strbuf_puts(out, ", ");
    if (shape[i] == RT_DIM_ANY) {
      rt_strbuf_putc(out, '?');
    } else {
      rt_strbuf_printf(out, "%lld", (long long)shape[i]);
    }
  }
  rt_strbuf_putc(out, ')');
}

void rt_ir_type_print(const rt_ir_type_t *type, rt_strbuf_t *out) {
  type = rt_ir_type_resolve((rt_ir_type_t *)type);
  char name[RT_DTYPE_NAME_MAX];
  if (!type) {
    rt_strbuf_putc(out, '_');
    return;
  }
  switch (type->kind) {
    case RT_IR_TYPE_TENSOR:
      if (type->tensor.rank == 0) {
        rt_strbuf_puts(out, rt_dtype_name(type->tensor.dtype, name));
        return;
      }
      rt_strbuf_puts(out, "Tensor[");
      rt_ir_shape_print(type->tensor.rank, type->tensor.shape, out);
      rt_strbuf_printf(out, ", %s]", rt_dtype_name(type->tensor.dtype, name));
      return;
    case RT_IR_TYPE_TUPLE:
      rt_strbuf_putc(out, '(');
      for (int32_t i = 0; i < type->tuple.count; ++i) {
        if (i) rt_strbuf_puts(out, ", ");
        rt_ir_type_print(type->tuple.fields[i], out);
      }
      if (type->tuple.count == 1) rt_strbuf_putc(out, ',');
      rt_strbuf_putc(out, ')');
      return;
    case RT_IR_TYPE_FUNC:
      rt_strbuf_puts(out, "fn (");
      for (int32_t i = 0; i < type->func.count; ++i) {
        if (i) rt_strbuf_puts(out, ", ");
        rt_ir_type_print(type->func.params[i], out);
      }
      rt_strbuf_puts(out, ") -> ");
      rt_ir_type_print(type->func.ret, out);
      return;
    case RT_IR_TYPE_LIST:
    case RT_IR_TYPE_OPTION:
      rt_strbuf_puts(out, type->kind == RT_IR_TYPE_LIST ? "List[" : "Option[");
      rt_ir_type_print(type->adt.elem, out);
      rt_strbuf_putc(out, ']');
      return;
    case RT_IR_TYPE_INCOMPLETE:
      rt_strbuf_putc(out, '_');
      return;
  }
}
