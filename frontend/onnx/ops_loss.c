/* ONNX converters, loss functions: NegativeLogLikelihoodLoss and
 * SoftmaxCrossEntropyLoss (opsets 12 and 13), each a decomposition into
 * existing Relay ops (no op of their own).
 *
 * NegativeLogLikelihoodLoss(input (N, C, d1 ...), target (N, d1 ...)
 * int32/int64, weight (C) optional): the class picked by the target is
 * read with gather along axis 1 of the input (target expanded to (N, 1,
 * d1 ...), squeezed back), negated and scaled by take(weight, target).
 * With ignore_index (any value: negative, >= C or a real class) the
 * ignored positions read class 0 (so the gathers stay in range) and their
 * loss and weight are set to 0 with `where`. Reduction "none" keeps
 * (N, d1 ...), "sum" sums to a 0-d value, "mean" divides that sum by the
 * sum of the effective weights (weight[target], 0 where ignored; 1 per
 * position without a weight), or is a plain mean when there is neither a
 * weight nor an ignore_index. SoftmaxCrossEntropyLoss is log_softmax over
 * axis 1 followed by the same, its optional second output the log_softmax
 * itself. */
#include <string.h>

#include "frontend/onnx/onnx_impl.h"

static bool wants(rt_onnx_ctx_t *cx, int32_t k) {
  const Onnx__NodeProto *n = cx->node;
  return (size_t)k < n->n_output && n->output[k] && n->output[k][0];
}

static const char *dtype_text(rt_onnx_ctx_t *cx, rt_dtype_t dt) {
  char dn[RT_DTYPE_NAME_MAX];
  return rt_onnx_str_text(cx, rt_dtype_name(dt, dn));
}

/* The negative log-likelihood of log-probabilities `x` (N, C, d1 ...) at
 * `target` (N, d1 ...), weighted by `weight` (C, or NULL), reduced as the
 * node's attributes say. */
static rt_status_t nll(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, rt_ir_expr_t *target,
                       rt_ir_expr_t *weight, rt_ir_expr_t **out) {
  const rt_ir_type_t *xt = NULL, *tt = NULL, *wt = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, x, 0, &xt));
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, target, 1, &tt));
  if (weight) RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, weight, 2, &wt));
  int32_t r = xt->tensor.rank;
  rt_dtype_t fdt = xt->tensor.dtype;
  if (r < 2) return rt_onnx_bad(cx, "input must have rank >= 2 (N, C, d1 ...)");
  if (!rt_dtype_is_float(fdt)) return rt_onnx_bad(cx, "input must be a float tensor");
  if (!rt_dtype_equal(tt->tensor.dtype, RT_DTYPE_INT32) && !rt_dtype_equal(tt->tensor.dtype, RT_DTYPE_INT64)) {
    return rt_onnx_bad(cx, "target must be int32 or int64");
  }
  if (tt->tensor.rank != r - 1) return rt_onnx_bad(cx, "target must have the input's rank minus 1");
  if (wt && (wt->tensor.rank != 1 || !rt_dtype_equal(wt->tensor.dtype, fdt))) {
    return rt_onnx_bad(cx, "weight must be 1-d (C) with the input's dtype");
  }
  const char *reduction = rt_onnx_attr_string(cx, "reduction", "mean");
  bool r_none = strcmp(reduction, "none") == 0, r_sum = strcmp(reduction, "sum") == 0;
  bool r_mean = strcmp(reduction, "mean") == 0;
  if (!r_none && !r_sum && !r_mean) return rt_onnx_bad(cx, "reduction must be none, sum or mean");
  bool has_ii = rt_onnx_attr(cx, "ignore_index") != NULL;
  int64_t ii = rt_onnx_attr_int(cx, "ignore_index", 0);

  /* mask: the positions not ignored; t: the target with those at 0. */
  rt_ir_expr_t *t = target, *mask = NULL, *zero_i = NULL, *zero_f = NULL, *iie = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, fdt, 0.0, &zero_f));
  if (has_ii) {
    if (tt->tensor.dtype.bits == 32 && (ii < INT32_MIN || ii > INT32_MAX)) {
      /* Not representable in the target: no position is ignored. */
      has_ii = false;
    } else {
      RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, tt->tensor.dtype, 0.0, &zero_i));
      RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, tt->tensor.dtype, (double)ii, &iie));
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "not_equal", target, iie, &mask));
      rt_ir_expr_t *a[3] = {mask, target, zero_i};
      RT_RETURN_IF_ERROR(rt_onnx_call(cx, "where", 3, a, &t, NULL));
    }
  }
  rt_ir_expr_t *idx = NULL, *g = NULL, *loss = NULL, *w = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "expand_dims", 1, &t, &idx, "axis", "1", NULL));
  rt_ir_expr_t *ga[2] = {x, idx};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "gather", 2, ga, &g, "axis", "1", NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "squeeze", 1, &g, &g, "axis", "[1]", NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "negative", g, &loss));
  if (weight) {
    rt_ir_expr_t *ta[2] = {weight, t};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "take", 2, ta, &w, "axis", "0", NULL));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", loss, w, &loss));
  }
  if (has_ii) {
    rt_ir_expr_t *la[3] = {mask, loss, zero_f};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "where", 3, la, &loss, NULL));
    if (w) {
      rt_ir_expr_t *wa[3] = {mask, w, zero_f};
      RT_RETURN_IF_ERROR(rt_onnx_call(cx, "where", 3, wa, &w, NULL));
    } else {
      RT_RETURN_IF_ERROR(rt_onnx_call(cx, "cast", 1, &mask, &w, "dtype", dtype_text(cx, fdt), NULL));
    }
  }
  if (r_none) {
    *out = loss;
    return RT_OK;
  }
  if (r_sum || !w) {
    return rt_onnx_call1(cx, r_sum ? "sum" : "mean", loss, out);
  }
  rt_ir_expr_t *num = NULL, *den = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "sum", loss, &num));
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "sum", w, &den));
  return rt_onnx_call2(cx, "divide", num, den, out);
}

static rt_status_t cv_nll_loss(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, int32_t nout) {
  (void)nout;
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  return nll(cx, in[0], in[1], nin > 2 ? in[2] : NULL, &out[0]);
}

static rt_status_t cv_softmax_cross_entropy(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                            rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  const rt_ir_type_t *xt = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &xt));
  if (xt->tensor.rank < 2) return rt_onnx_bad(cx, "scores must have rank >= 2 (N, C, d1 ...)");
  rt_ir_expr_t *lp = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "nn.log_softmax", 1, in, &lp, "axis", "1", NULL));
  RT_RETURN_IF_ERROR(nll(cx, lp, in[1], nin > 2 ? in[2] : NULL, &out[0]));
  if (nout > 1 && wants(cx, 1)) out[1] = lp;
  return RT_OK;
}

const rt_onnx_op_entry_t rt_onnx_loss_ops[] = {
    {"NegativeLogLikelihoodLoss", cv_nll_loss},
    {"SoftmaxCrossEntropyLoss", cv_softmax_cross_entropy},
};
const int32_t rt_onnx_loss_ops_count = (int32_t)RT_COUNTOF(rt_onnx_loss_ops);
