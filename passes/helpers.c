/* Helpers shared by the passes (see passes/pass.h): rewriting every
 * global, counting bindings for traces and uses of nodes, recognizing and
 * building op calls, telling a weight FoldConstant will fold. */
#include <string.h>

#include "passes/pass.h"

rt_status_t rt_pass_rewrite_globals(rt_module_t *in, rt_ir_rewrite_fn rewrite,
                                    rt_pass_rewrite_t *state, rt_module_t **out) {
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_derive(in, &m));
  state->m = m;
  state->changed = false;
  rt_status_t st = RT_OK;
  for (int32_t i = 0; i < in->num_globals && !st; ++i) {
    rt_ir_expr_t *fn = NULL;
    st = rt_ir_mutate(m, in->globals[i].fn, rewrite, state, &fn);
    if (!st && fn != in->globals[i].fn) st = rt_ir_module_add(m, in->globals[i].name, fn);
  }
  state->m = NULL;
  if (st || !state->changed) {
    rt_module_release(m);
    if (st) return st;
    rt_module_retain(in);
    m = in;
  }
  *out = m;
  return RT_OK;
}

static rt_status_t count_visit(void *user, rt_ir_expr_t *e) {
  int64_t *n = user;
  switch (e->kind) {
    case RT_IR_CALL:
    case RT_IR_TUPLE:
    case RT_IR_TUPLE_GET_ITEM:
    case RT_IR_IF:
    case RT_IR_LET:
    case RT_IR_FUNCTION:
      (*n)++;
      break;
    default:
      break;
  }
  return RT_OK;
}

typedef struct {
  int32_t *uses;
} use_count_t;

static rt_status_t use_visit(void *user, rt_ir_expr_t *e) {
  int32_t *uses = ((use_count_t *)user)->uses;
  if (e->kind == RT_IR_CALL) {
    uses[e->call.callee->id]++;
    for (int32_t i = 0; i < e->call.nargs; ++i) uses[e->call.args[i]->id]++;
  } else if (e->kind == RT_IR_TUPLE) {
    for (int32_t i = 0; i < e->tuple.count; ++i) uses[e->tuple.fields[i]->id]++;
  } else if (e->kind != RT_IR_FUNCTION) {
    rt_ir_expr_t *kids[3];
    const int32_t n = rt_ir_children(e, kids, 3);
    for (int32_t i = 0; i < n && i < 3; ++i) uses[kids[i]->id]++;
  } else {
    uses[e->fn.body->id]++;
  }
  return RT_OK;
}

rt_status_t rt_pass_count_uses(rt_allocator_t allocator, const rt_module_t *in, rt_arena_t *arena,
                               int32_t **out_uses) {
  use_count_t u = {NULL};
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(arena, in->next_id, sizeof(int32_t), (void **)&u.uses));
  for (int32_t i = 0; i < in->num_globals; ++i) {
    RT_RETURN_IF_ERROR(rt_ir_post_order(allocator, in->globals[i].fn, use_visit, &u));
  }
  *out_uses = u.uses;
  return RT_OK;
}

int64_t rt_pass_count_bindings(const rt_module_t *m) {
  int64_t n = 0;
  for (int32_t i = 0; i < m->num_globals; ++i) {
    rt_status_t st = rt_ir_post_order(m->allocator, m->globals[i].fn, count_visit, &n);
    if (st) {
      rt_status_free(st);
      return -1;
    }
    n--; /* the global's own function node */
  }
  return n;
}

bool rt_pass_is_op(const rt_ir_expr_t *e, rt_op_id_t id) {
  return e && e->kind == RT_IR_CALL && e->call.callee->kind == RT_IR_OP &&
         e->call.callee->op.op->id == (int32_t)id;
}

static bool constant_within(const rt_ir_expr_t *e, int32_t depth) {
  if (e->kind == RT_IR_CONSTANT) return true;
  if (depth > 8 || e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP) return false;
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    if (!constant_within(e->call.args[i], depth + 1)) return false;
  }
  return true;
}

bool rt_pass_is_constant_expr(const rt_ir_expr_t *e) { return constant_within(e, 0); }

rt_status_t rt_pass_make_call(rt_module_t *m, rt_ir_span_t span, rt_op_id_t id, int32_t nargs,
                              rt_ir_expr_t *const *args, int32_t nattrs, const char *const *keys,
                              const char *const *values, rt_ir_expr_t **out) {
  const rt_ir_op_t *op = rt_ir_op_builtin(id);
  rt_attr_value_t vals[16];
  if (nattrs > 16) return RT_STATUS(INTERNAL, "too many attrs");
  for (int32_t i = 0; i < nattrs; ++i) {
    RT_RETURN_IF_ERROR(rt_attr_value_parse(&m->arena, values[i], &vals[i]));
  }
  rt_ir_attrs_t *attrs = NULL;
  RT_RETURN_IF_ERROR(rt_ir_op_attrs(m, span, op, nattrs, keys, vals, &attrs));
  rt_ir_expr_t *ref = NULL;
  RT_RETURN_IF_ERROR(rt_ir_op_ref(m, span, op, &ref));
  return rt_ir_call(m, span, ref, nargs, args, attrs, out);
}

bool rt_pass_plan_conv_nchw(const rt_ir_expr_t *e, const rt_plan_input_t *in, rt_plan_conv_t *p) {
  rt_status_t bad = rt_ir_plan_conv(e->call.callee->op.op, e->call.attrs, 2, in, p);
  if (bad) {
    rt_status_free(bad);
    return false;
  }
  for (int32_t k = 0; k < 4; ++k) {
    if (p->data_pos[k] != k || p->kernel_pos[k] != k || p->out_pos[k] != k) return false;
  }
  return p->kernel_out_block == 0; /* not OIHW{o}o panels */
}

rt_status_t rt_pass_remake_call(rt_module_t *m, const rt_ir_expr_t *e, rt_op_id_t id, int32_t nargs,
                                rt_ir_expr_t *const *args, int32_t n, const char *const *keys,
                                const char *const *vals, rt_ir_expr_t **out) {
  const rt_ir_attrs_t *a = e->call.attrs;
  const int32_t count = a ? a->count : 0;
  if (count + n > 24) return RT_STATUS(INTERNAL, "%s", "too many attrs");
  const char *k[24];
  rt_attr_value_t v[24];
  int32_t used = 0;
  for (int32_t i = 0; i < count; ++i) {
    bool replaced = false;
    for (int32_t j = 0; j < n; ++j) replaced = replaced || strcmp(a->keys[i], keys[j]) == 0;
    if (replaced) continue;
    k[used] = a->keys[i];
    v[used++] = a->values[i];
  }
  for (int32_t j = 0; j < n; ++j) {
    k[used] = keys[j];
    RT_RETURN_IF_ERROR(rt_attr_value_parse(&m->arena, vals[j], &v[used++]));
  }
  const rt_ir_op_t *op = rt_ir_op_builtin(id);
  rt_ir_attrs_t *attrs = NULL;
  RT_RETURN_IF_ERROR(rt_ir_op_attrs(m, e->span, op, used, k, v, &attrs));
  rt_ir_expr_t *ref = NULL;
  RT_RETURN_IF_ERROR(rt_ir_op_ref(m, e->span, op, &ref));
  return rt_ir_call(m, e->span, ref, nargs, args, attrs, out);
}
