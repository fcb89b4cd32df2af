/* ONNX converters, loss functions and other ops written as decompositions
 * into existing Relay ops (no op of their own): NegativeLogLikelihoodLoss
 * and SoftmaxCrossEntropyLoss (opsets 12, 13), MeanVarianceNormalization,
 * EyeLike, the cosine-sum windows (HannWindow, HammingWindow,
 * BlackmanWindow), BatchNormalization's training mode (called from
 * ops_nn.c's converter) and Dropout with a run-time ratio or training_mode
 * (called from ops_transform.c's).
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
 * itself. The others are described at their converters. */
#include <math.h>
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
  rt_dtype_t tdt = tt->tensor.dtype;
  if (!rt_dtype_equal(tdt, RT_DTYPE_INT32) && !rt_dtype_equal(tdt, RT_DTYPE_INT64)) {
    return rt_onnx_bad(cx, "target must be int32 or int64");
  }
  if (tt->tensor.rank != r - 1) return rt_onnx_bad(cx, "target must have the input's rank minus 1");
  for (int32_t d = 0; d < r - 1; ++d) {
    int64_t a = tt->tensor.shape[d], b = xt->tensor.shape[d ? d + 1 : 0];
    if (a != RT_DIM_ANY && b != RT_DIM_ANY && a != b) {
      return rt_onnx_bad(cx, "target's shape must be the input's without axis 1 (N, d1 ...)");
    }
  }
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
      RT_RETURN_IF_ERROR(
          rt_onnx_call(cx, "cast", 1, &mask, &w, "dtype", dtype_text(cx, fdt), NULL));
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

/* ---- other decompositions -------------------------------------------------- */

/* MeanVarianceNormalization (opsets 9, 13): (x - mean) / (sqrt(variance)
 * + 1e-9) over `axes` (default [0, 2, 3]), ONNX's function body with the
 * variance taken around the mean (nn's `variance`) instead of as E[x^2] -
 * E[x]^2. */
static rt_status_t cv_mvn(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                          rt_ir_expr_t **out, int32_t nout) {
  (void)nout;
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  if (!rt_dtype_is_float(t->tensor.dtype)) return rt_onnx_bad(cx, "input must be a float tensor");
  int32_t r = t->tensor.rank;
  static const int64_t dflt[3] = {0, 2, 3};
  const int64_t *av = dflt;
  int32_t n = 3;
  rt_onnx_attr_ints(cx, "axes", &n, &av);
  if (n < 1 || n > RT_TENSOR_MAX_RANK) return rt_onnx_bad(cx, "axes must name 1 to 8 axes");
  int64_t axes[RT_TENSOR_MAX_RANK];
  for (int32_t i = 0; i < n; ++i) {
    axes[i] = av[i];
    RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axes[i], r));
  }
  const char *at = rt_onnx_ints_text(cx, n, axes);
  rt_ir_expr_t *x = in[0], *mean = NULL, *var = NULL, *eps = NULL, *num = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "mean", 1, &x, &mean, "axis", at, "keepdims", "True", NULL));
  rt_ir_expr_t *va[2] = {x, mean};
  RT_RETURN_IF_ERROR(
      rt_onnx_call(cx, "variance", 2, va, &var, "axis", at, "keepdims", "True", NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "sqrt", var, &var));
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, x, 1e-9, &eps));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", var, eps, &var));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "subtract", x, mean, &num));
  return rt_onnx_call2(cx, "divide", num, var, &out[0]);
}

/* EyeLike (opset 9): ones on the k-th diagonal of a 2-d shape like the
 * input's, in `dtype` (default: the input's); a constant, since only the
 * input's static shape is read. */
static rt_status_t cv_eye_like(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, int32_t nout) {
  (void)nout;
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  if (t->tensor.rank != 2) return rt_onnx_bad(cx, "input must be 2-d");
  if (!rt_onnx_static_shape(t)) return rt_onnx_unsupported(cx, "EyeLike of an input with `?` dims");
  rt_dtype_t dt = t->tensor.dtype;
  if (rt_onnx_attr(cx, "dtype")) {
    int64_t code = rt_onnx_attr_int(cx, "dtype", 0);
    if (code < INT32_MIN || code > INT32_MAX || !rt_onnx_dtype((int32_t)code, &dt)) {
      return rt_onnx_unsupported(cx, "EyeLike to this dtype");
    }
  }
  int64_t k = rt_onnx_attr_int(cx, "k", 0);
  int64_t rows = t->tensor.shape[0], cols = t->tensor.shape[1];
  rt_tensor_t *e = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, RT_DTYPE_UINT8, 2, t->tensor.shape, &e));
  uint8_t *p = rt_tensor_data(e);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) p[i * cols + j] = (uint8_t)(j - i == k);
  }
  rt_ir_expr_t *c = NULL;
  rt_status_t st = rt_onnx_constant(cx, e, &c);
  rt_tensor_release(e);
  RT_RETURN_IF_ERROR(st);
  return rt_onnx_call(cx, "cast", 1, &c, &out[0], "dtype", dtype_text(cx, dt), NULL);
}

/* The cosine-sum windows of opset 17 (HannWindow, HammingWindow,
 * BlackmanWindow): a0 - a1 cos(w n) + a2 cos(2 w n) for n in [0, size),
 * w = 2 pi / size when periodic (the default), 2 pi / (size - 1) when not;
 * computed in float32 as ONNX's function bodies do, then cast to
 * output_datatype (default float). A size known at import gives a
 * constant; one known at run time gives arange with a run-time limit (an
 * output of `?` length, which the graph executor refuses). */
static rt_status_t window(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                          float a0, float a1, float a2) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  if (t->tensor.rank != 0 || (!rt_dtype_equal(t->tensor.dtype, RT_DTYPE_INT32) &&
                              !rt_dtype_equal(t->tensor.dtype, RT_DTYPE_INT64))) {
    return rt_onnx_bad(cx, "size must be a 0-d int32 or int64 tensor");
  }
  rt_dtype_t dt = RT_DTYPE_FLOAT32;
  int64_t code = rt_onnx_attr_int(cx, "output_datatype", 1);
  if (code < INT32_MIN || code > INT32_MAX || !rt_onnx_dtype((int32_t)code, &dt)) {
    return rt_onnx_unsupported(cx, "this output_datatype");
  }
  bool periodic = rt_onnx_attr_int(cx, "periodic", 1) != 0;
  const float tau = 6.2831853f;
  rt_ir_expr_t *w = NULL;
  if (rt_onnx_is_const(in[0])) {
    int64_t size = 0;
    int32_t n1 = 0;
    RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[0], "size", 1, &size, &n1));
    if (size < 0 || size > (INT64_C(1) << 31)) return rt_onnx_bad(cx, "size is out of range");
    rt_tensor_t *v = NULL;
    RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, RT_DTYPE_FLOAT32, 1, &size, &v));
    float *p = rt_tensor_data(v);
    float inc = tau / ((float)size - (periodic ? 0.0f : 1.0f));
    for (int64_t i = 0; i < size; ++i) {
      float th = (float)i * inc;
      p[i] = a0 - a1 * cosf(th) + a2 * cosf(th * 2.0f);
    }
    rt_status_t st = rt_onnx_constant(cx, v, &w);
    rt_tensor_release(v);
    RT_RETURN_IF_ERROR(st);
  } else {
    rt_ir_expr_t *size = NULL, *zero = NULL, *one = NULL, *den = NULL, *inc = NULL, *th = NULL;
    rt_ir_expr_t *c = NULL, *ca0 = NULL, *ca1 = NULL, *ca2 = NULL, *ctau = NULL, *two = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "cast", 1, in, &size, "dtype", "\"float32\"", NULL));
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, 0.0, &zero));
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, 1.0, &one));
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, 2.0, &two));
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, (double)tau, &ctau));
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, (double)a0, &ca0));
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, (double)a1, &ca1));
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, (double)a2, &ca2));
    den = size;
    if (!periodic) RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "subtract", size, one, &den));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "divide", ctau, den, &inc));
    rt_ir_expr_t *ra[3] = {zero, size, one};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "arange", 3, ra, &th, "dtype", "\"float32\"", NULL));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", th, inc, &th));
    RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "cos", th, &c));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", ca1, c, &c));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "subtract", ca0, c, &w));
    if (a2 != 0.0f) {
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", th, two, &th));
      RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "cos", th, &c));
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", ca2, c, &c));
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", w, c, &w));
    }
  }
  if (rt_dtype_equal(dt, RT_DTYPE_FLOAT32)) {
    out[0] = w;
    return RT_OK;
  }
  return rt_onnx_call(cx, "cast", 1, &w, &out[0], "dtype", dtype_text(cx, dt), NULL);
}

static rt_status_t cv_hann_window(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                  rt_ir_expr_t **out, int32_t nout) {
  (void)nout;
  return window(cx, in, nin, out, 0.5f, 0.5f, 0.0f);
}
static rt_status_t cv_hamming_window(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                     rt_ir_expr_t **out, int32_t nout) {
  (void)nout;
  return window(cx, in, nin, out, 0.54347826087f, 0.45652173913f, 0.0f);
}
static rt_status_t cv_blackman_window(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                      rt_ir_expr_t **out, int32_t nout) {
  (void)nout;
  return window(cx, in, nin, out, 0.42f, 0.5f, 0.08f);
}

/* BatchNormalization with training_mode = 1 (opsets 14, 15), for ops_nn.c's
 * converter: the batch's mean and (biased) variance over every axis but 1
 * normalise x through nn.batch_norm, and the running statistics come out
 * as input_mean * momentum + batch_mean * (1 - momentum) (the same for the
 * variance), momentum 0.9 by default. */
rt_status_t rt_onnx_batch_norm_training(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                        rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 5));
  if (cx->opset < 14) {
    return rt_onnx_unsupported(cx, "BatchNormalization's training outputs before opset 14 "
                                   "(saved_mean, saved_var)");
  }
  if (!rt_onnx_attr_int(cx, "training_mode", 0)) {
    return rt_onnx_bad(cx, "running_mean and running_var are outputs of training_mode = 1 only");
  }
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  int32_t r = t->tensor.rank;
  if (r < 2) return rt_onnx_bad(cx, "input must have rank >= 2 (N, C, ...)");
  if (!rt_dtype_is_float(t->tensor.dtype)) return rt_onnx_bad(cx, "input must be a float tensor");
  for (int32_t i = 1; i < 5; ++i) {
    if (!rt_dtype_equal(rt_onnx_elem_dtype(in[i]), t->tensor.dtype)) {
      return rt_onnx_unsupported(cx, "BatchNormalization in training mode with scale, B, "
                                     "input_mean or input_var of a dtype other than X's");
    }
  }
  int64_t axes[RT_TENSOR_MAX_RANK];
  int32_t n = 0;
  for (int32_t d = 0; d < r; ++d) {
    if (d != 1) axes[n++] = d;
  }
  const char *at = rt_onnx_ints_text(cx, n, axes);
  double eps = rt_onnx_attr_float(cx, "epsilon", 1e-5);
  double momentum = rt_onnx_attr_float(cx, "momentum", 0.9);
  rt_ir_expr_t *x = in[0], *mk = NULL, *mean = NULL, *var = NULL, *bn = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "mean", 1, &x, &mk, "axis", at, "keepdims", "True", NULL));
  rt_ir_expr_t *va[2] = {x, mk};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "variance", 2, va, &var, "axis", at, NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "squeeze", 1, &mk, &mean, "axis", at, NULL));
  rt_ir_expr_t *ba[5] = {x, in[1], in[2], mean, var};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "nn.batch_norm", 5, ba, &bn, "axis", "1", "epsilon",
                                  rt_onnx_float_text(cx, eps), NULL));
  RT_RETURN_IF_ERROR(rt_onnx_get_item(cx, bn, 0, &out[0]));
  rt_ir_expr_t *cm = NULL, *c1m = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, x, momentum, &cm));
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, x, 1.0 - momentum, &c1m));
  rt_ir_expr_t *batch[2] = {mean, var};
  for (int32_t k = 1; k < 3 && k < nout; ++k) {
    rt_ir_expr_t *a = NULL, *b = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", in[2 + k], cm, &a));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", batch[k - 1], c1m, &b));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", a, b, &out[k]));
  }
  return RT_OK;
}

/* Dropout whose ratio or training_mode is a run-time value (opsets 12, 13;
 * a constant training_mode with a run-time ratio too): dyn.nn.dropout,
 * the identity once the values say not training or ratio 0, and refused
 * at run time otherwise (random dropout). The mask is all true, and is
 * made from the output (ones_like) so that asking for the mask alone
 * still runs the check. */
rt_status_t rt_onnx_dropout_runtime(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                    rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 3));
  rt_ir_expr_t *ratio = nin > 1 ? in[1] : NULL;
  if (!ratio) RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, 0.5, &ratio));
  rt_ir_expr_t *args[3] = {in[0], ratio, in[2]}, *y = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "dyn.nn.dropout", 3, args, &y, NULL));
  out[0] = y;
  if (nout > 1 && wants(cx, 1)) {
    rt_ir_expr_t *ones = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "ones_like", y, &ones));
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "cast", 1, &ones, &out[1], "dtype", "\"bool\"", NULL));
  }
  return RT_OK;
}

const rt_onnx_op_entry_t rt_onnx_loss_ops[] = {
    {"BlackmanWindow", cv_blackman_window},
    {"EyeLike", cv_eye_like},
    {"HammingWindow", cv_hamming_window},
    {"HannWindow", cv_hann_window},
    {"MeanVarianceNormalization", cv_mvn},
    {"NegativeLogLikelihoodLoss", cv_nll_loss},
    {"SoftmaxCrossEntropyLoss", cv_softmax_cross_entropy},
};
const int32_t rt_onnx_loss_ops_count = (int32_t)RT_COUNTOF(rt_onnx_loss_ops);
