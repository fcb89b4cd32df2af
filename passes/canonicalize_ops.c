/* CanonicalizeOps: rewrites ops that have a simpler equivalent in terms of
 * more general ops, so later passes (fusion, scale-axis folding) see fewer
 * kinds (TVM's src/relay/transforms/canonicalize_ops.cc).
 *
 * One bottom-up rt_ir_mutate walk per global. The only rule, as TVM's:
 *   nn.bias_add(x, b, axis) -> add(x, expand_dims(b, axis=1,
 *                                  num_newaxis=rank(x) - 1 - axis))
 * with a negative axis counted from the end, and plain add(x, b) when axis
 * is the last one (b then already broadcasts). The rank comes from x's
 * checked type in the (typed) input; a call whose x is not a tensor, or
 * whose axis is out of range, is left alone. */
#include <stdio.h>

#include "ir/op/op_attrs.h"
#include "ir/op/plan.h"
#include "passes/pass.h"

typedef rt_pass_rewrite_t co_ctx;

static rt_status_t rewrite(void *user, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  co_ctx *cx = user;
  *out = e;
  if (!rt_pass_is_op(e, RT_OP_NN_BIAS_ADD)) return RT_OK;
  const rt_ir_type_t *t =
      orig->call.args[0]->checked_type ? rt_ir_type_resolve(orig->call.args[0]->checked_type) : NULL;
  if (!t || t->kind != RT_IR_TYPE_TENSOR) return RT_OK;
  const int32_t rank = t->tensor.rank;
  int32_t axis;
  rt_status_t bad = rt_ir_op_axis(rt_ir_attrs_bias_add(e->call.attrs).axis, rank, &axis);
  if (bad) {
    rt_status_free(bad); /* out of range: left alone */
    return RT_OK;
  }
  rt_ir_expr_t *b = e->call.args[1];
  const int64_t k = rank - 1 - axis;
  if (k > 0) {
    char num[24];
    snprintf(num, sizeof num, "%lld", (long long)k);
    const char *keys[2] = {"axis", "num_newaxis"};
    const char *vals[2] = {"1", num};
    RT_RETURN_IF_ERROR(rt_pass_make_call(cx->m, e->span, RT_OP_EXPAND_DIMS, 1, &b, 2, keys, vals, &b));
  }
  rt_ir_expr_t *args[2] = {e->call.args[0], b};
  RT_RETURN_IF_ERROR(rt_pass_make_call(cx->m, e->span, RT_OP_ADD, 2, args, 0, NULL, NULL, out));
  (*out)->binding = e->binding;
  cx->changed = true;
  return RT_OK;
}

rt_status_t rt_pass_canonicalize_ops(const rt_pass_env_t *env, rt_module_t *in,
                                     rt_module_t **out) {
  (void)env;
  co_ctx cx;
  return rt_pass_rewrite_globals(in, rewrite, &cx, out);
}
