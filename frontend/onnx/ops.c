/* ONNX converters, part one: elementwise and broadcast ops and
 * reductions, the helpers every converter file shares (onnx_impl.h), and
 * the lookup of a converter by op type over the tables of ops.c,
 * ops_transform.c (data movement) and ops_nn.c.
 *
 * Each converter reads the node's attributes through cx with the defaults
 * of the model's opset, and turns "attributes that became inputs" (Slice
 * 10, Squeeze/Unsqueeze/ReduceSum/Split 13, the other reductions 18, Clip
 * 11, Pad 11) into Relay attributes when those inputs are constants;
 * otherwise it says the dynamic form is not supported. ONNX semantics are
 * converted into Relay's: Gather wraps negative indices (take mode=wrap),
 * GatherND's index tuples move to the front (TVM's gather_nd), integer Mod
 * floors unless fmod=1, ArgMax's int32 becomes int64. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/onnx/onnx_impl.h"
#include "runtime/strbuf.h"

#define MAXR RT_TENSOR_MAX_RANK


int32_t rt_onnx_rank(const rt_ir_expr_t *e) {
  const rt_ir_type_t *t = rt_onnx_type(e);
  return t ? t->tensor.rank : 0;
}

rt_dtype_t rt_onnx_elem_dtype(const rt_ir_expr_t *e) {
  const rt_ir_type_t *t = rt_onnx_type(e);
  return t ? t->tensor.dtype : RT_DTYPE_FLOAT32;
}

rt_status_t rt_onnx_axis(rt_onnx_ctx_t *cx, int64_t *axis, int32_t rank) {
  int64_t a = *axis < 0 ? *axis + rank : *axis;
  /* A 0-d tensor has no axis at all (callers index shape[axis]). */
  if (a < 0 || a >= rank) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT,
                              "axis %lld is out of range for rank %d", (long long)*axis, (int)rank);
  }
  *axis = a;
  return RT_OK;
}

rt_status_t rt_onnx_scalar_like(rt_onnx_ctx_t *cx, const rt_ir_expr_t *like, double v,
                                rt_ir_expr_t **out) {
  return rt_onnx_scalar(cx, rt_onnx_elem_dtype(like), v, out);
}

/* ---- elementwise ---------------------------------------------------------- */

#define UNARY(fn, relay)                                                          \
  static rt_status_t fn(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,        \
                        rt_ir_expr_t **out, int32_t nout) {                       \
    RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));                                     \
    return rt_onnx_call1(cx, relay, in[0], &out[0]);                              \
  }
UNARY(cv_abs, "abs")
UNARY(cv_acos, "acos")
UNARY(cv_acosh, "acosh")
UNARY(cv_asin, "asin")
UNARY(cv_asinh, "asinh")
UNARY(cv_atan, "atan")
UNARY(cv_atanh, "atanh")
UNARY(cv_ceil, "ceil")
UNARY(cv_cos, "cos")
UNARY(cv_cosh, "cosh")
UNARY(cv_erf, "erf")
UNARY(cv_exp, "exp")
UNARY(cv_floor, "floor")
UNARY(cv_log, "log")
UNARY(cv_neg, "negative")
UNARY(cv_not, "logical_not")
UNARY(cv_relu, "nn.relu")
UNARY(cv_round, "round")
UNARY(cv_sigmoid, "sigmoid")
UNARY(cv_sign, "sign")
UNARY(cv_sin, "sin")
UNARY(cv_sinh, "sinh")
UNARY(cv_sqrt, "sqrt")
UNARY(cv_tan, "tan")
UNARY(cv_tanh, "tanh")
UNARY(cv_isnan, "isnan")
UNARY(cv_bitwise_not, "bitwise_not")

#define BINARY(fn, relay)                                                         \
  static rt_status_t fn(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,        \
                        rt_ir_expr_t **out, int32_t nout) {                       \
    RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));                                     \
    return rt_onnx_call2(cx, relay, in[0], in[1], &out[0]);                       \
  }
BINARY(cv_add, "add")
BINARY(cv_sub, "subtract")
BINARY(cv_mul, "multiply")
BINARY(cv_div, "divide")
BINARY(cv_equal, "equal")
BINARY(cv_greater, "greater")
BINARY(cv_greater_equal, "greater_equal")
BINARY(cv_less, "less")
BINARY(cv_less_equal, "less_equal")
BINARY(cv_and, "logical_and")
BINARY(cv_or, "logical_or")
BINARY(cv_xor, "logical_xor")
BINARY(cv_bitwise_and, "bitwise_and")
BINARY(cv_bitwise_or, "bitwise_or")
BINARY(cv_bitwise_xor, "bitwise_xor")

static rt_status_t cv_identity(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  out[0] = in[0];
  return RT_OK;
}

static rt_status_t cv_reciprocal(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                 rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  rt_ir_expr_t *one = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, in[0], 1.0, &one));
  return rt_onnx_call2(cx, "divide", one, in[0], &out[0]);
}

static rt_status_t cv_pow(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                          rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  rt_ir_expr_t *e = in[1];
  if (!rt_dtype_equal(rt_onnx_elem_dtype(in[0]), rt_onnx_elem_dtype(in[1]))) {
    char dn[RT_DTYPE_NAME_MAX];
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "cast", 1, &e, &e, "dtype",
                                    rt_onnx_str_text(cx, rt_dtype_name(rt_onnx_elem_dtype(in[0]), dn)), NULL));
  }
  return rt_onnx_call2(cx, "power", in[0], e, &out[0]);
}

static rt_status_t cv_mod(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                          rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  bool fmod_ = rt_onnx_attr_int(cx, "fmod", 0) != 0;
  return rt_onnx_call2(cx, fmod_ ? "mod" : "floor_mod", in[0], in[1], &out[0]);
}

static rt_status_t cv_bitshift(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  const char *dir = rt_onnx_attr_string(cx, "direction", "");
  if (strcmp(dir, "LEFT") && strcmp(dir, "RIGHT")) return rt_onnx_bad(cx, "direction must be LEFT or RIGHT");
  return rt_onnx_call2(cx, dir[0] == 'L' ? "left_shift" : "right_shift", in[0], in[1], &out[0]);
}

static rt_status_t variadic(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                            const char *op, rt_ir_expr_t **out) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  rt_ir_expr_t *acc = in[0];
  for (int32_t i = 1; i < nin; ++i) {
    if (!in[i]) continue;
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, op, acc, in[i], &acc));
  }
  *out = acc;
  return RT_OK;
}

static rt_status_t cv_max(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                          rt_ir_expr_t **out, int32_t nout) {
  return variadic(cx, in, nin, "maximum", &out[0]);
}
static rt_status_t cv_min(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                          rt_ir_expr_t **out, int32_t nout) {
  return variadic(cx, in, nin, "minimum", &out[0]);
}
static rt_status_t cv_sum(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                          rt_ir_expr_t **out, int32_t nout) {
  return variadic(cx, in, nin, "add", &out[0]);
}
static rt_status_t cv_mean(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                           rt_ir_expr_t **out, int32_t nout) {
  rt_ir_expr_t *s = NULL, *n = NULL;
  RT_RETURN_IF_ERROR(variadic(cx, in, nin, "add", &s));
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, s, (double)nin, &n));
  return rt_onnx_call2(cx, "divide", s, n, &out[0]);
}

static rt_status_t cv_where(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                            rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 3));
  return rt_onnx_call(cx, "where", 3, in, &out[0], NULL);
}

static rt_status_t cv_isinf(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                            rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  bool neg = rt_onnx_attr_int(cx, "detect_negative", 1) != 0;
  bool pos = rt_onnx_attr_int(cx, "detect_positive", 1) != 0;
  rt_ir_expr_t *inf = NULL, *zero = NULL, *side = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "isinf", in[0], &inf));
  if (neg && pos) {
    out[0] = inf;
    return RT_OK;
  }
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, in[0], 0.0, &zero));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, pos ? "greater" : "less", in[0], zero, &side));
  if (!neg && !pos) RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "not_equal", in[0], in[0], &side));
  return rt_onnx_call2(cx, "logical_and", inf, side, &out[0]);
}

static rt_status_t cv_cast(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                           rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  rt_dtype_t dt;
  int64_t to = rt_onnx_attr_int(cx, "to", 0);
  if (!rt_onnx_dtype((int32_t)to, &dt)) {
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED, "cast to ONNX type %lld is not supported",
                              (long long)to);
  }
  char dn[RT_DTYPE_NAME_MAX];
  return rt_onnx_call(cx, "cast", 1, in, &out[0], "dtype",
                      rt_onnx_str_text(cx, rt_dtype_name(dt, dn)), NULL);
}

static rt_status_t cv_cast_like(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  char dn[RT_DTYPE_NAME_MAX];
  return rt_onnx_call(cx, "cast", 1, in, &out[0], "dtype",
                      rt_onnx_str_text(cx, rt_dtype_name(rt_onnx_elem_dtype(in[1]), dn)), NULL);
}

/* x > 0 ? x : neg (neg built by the caller from x). */
static rt_status_t select_pos(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, rt_ir_expr_t *neg,
                              rt_ir_expr_t **out) {
  rt_ir_expr_t *zero = NULL, *c = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, x, 0.0, &zero));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "greater", x, zero, &c));
  rt_ir_expr_t *args[3] = {c, x, neg};
  return rt_onnx_call(cx, "where", 3, args, out, NULL);
}

/* alpha * (exp(x / div) - 1) */
static rt_status_t expm1_scaled(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, double alpha, double div,
                                rt_ir_expr_t **out) {
  rt_ir_expr_t *e = x, *one = NULL, *a = NULL;
  if (div != 1.0) {
    rt_ir_expr_t *d = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, x, div, &d));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "divide", x, d, &e));
  }
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "exp", e, &e));
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, x, 1.0, &one));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "subtract", e, one, &e));
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, x, alpha, &a));
  return rt_onnx_call2(cx, "multiply", a, e, out);
}

static rt_status_t cv_elu(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                          rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  rt_ir_expr_t *neg = NULL;
  RT_RETURN_IF_ERROR(expm1_scaled(cx, in[0], rt_onnx_attr_float(cx, "alpha", 1.0), 1.0, &neg));
  return select_pos(cx, in[0], neg, &out[0]);
}

static rt_status_t cv_selu(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                           rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  double alpha = rt_onnx_attr_float(cx, "alpha", 1.67326319217681884765625);
  double gamma = rt_onnx_attr_float(cx, "gamma", 1.05070102214813232421875);
  rt_ir_expr_t *neg = NULL, *s = NULL, *g = NULL;
  RT_RETURN_IF_ERROR(expm1_scaled(cx, in[0], alpha, 1.0, &neg));
  RT_RETURN_IF_ERROR(select_pos(cx, in[0], neg, &s));
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, in[0], gamma, &g));
  return rt_onnx_call2(cx, "multiply", g, s, &out[0]);
}

static rt_status_t cv_celu(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                           rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  double alpha = rt_onnx_attr_float(cx, "alpha", 1.0);
  rt_ir_expr_t *neg = NULL;
  RT_RETURN_IF_ERROR(expm1_scaled(cx, in[0], alpha, alpha, &neg));
  return select_pos(cx, in[0], neg, &out[0]);
}

static rt_status_t cv_leaky_relu(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                 rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  return rt_onnx_call(cx, "nn.leaky_relu", 1, in, &out[0], "alpha",
                      rt_onnx_float_text(cx, rt_onnx_attr_float(cx, "alpha", 0.01)), NULL);
}

static rt_status_t cv_thresholded_relu(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                       rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  return rt_onnx_call(cx, "nn.thresholded_relu", 1, in, &out[0], "alpha",
                      rt_onnx_float_text(cx, rt_onnx_attr_float(cx, "alpha", 1.0)), NULL);
}

static rt_status_t cv_shrink(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                             rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  return rt_onnx_call(cx, "nn.shrink", 1, in, &out[0],
                      "bias", rt_onnx_float_text(cx, rt_onnx_attr_float(cx, "bias", 0.0)),
                      "lambd", rt_onnx_float_text(cx, rt_onnx_attr_float(cx, "lambd", 0.5)), NULL);
}

static rt_status_t cv_prelu(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                            rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  rt_ir_expr_t *neg = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", in[0], in[1], &neg));
  return select_pos(cx, in[0], neg, &out[0]);
}

/* clip(alpha * x + beta, 0, 1) */
static rt_status_t hard_sigmoid(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, double alpha, double beta,
                                rt_ir_expr_t **out) {
  rt_ir_expr_t *a = NULL, *b = NULL, *e = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, x, alpha, &a));
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, x, beta, &b));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", x, a, &e));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", e, b, &e));
  return rt_onnx_call(cx, "clip", 1, &e, out, "a_min", "0f", "a_max", "1f", NULL);
}

static rt_status_t cv_hard_sigmoid(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                   rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  return hard_sigmoid(cx, in[0], rt_onnx_attr_float(cx, "alpha", 0.2),
                      rt_onnx_attr_float(cx, "beta", 0.5), &out[0]);
}

static rt_status_t cv_hard_swish(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                 rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  rt_ir_expr_t *h = NULL;
  RT_RETURN_IF_ERROR(hard_sigmoid(cx, in[0], 1.0 / 6.0, 0.5, &h));
  return rt_onnx_call2(cx, "multiply", in[0], h, &out[0]);
}

static rt_status_t cv_softplus(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  rt_ir_expr_t *e = NULL, *one = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "exp", in[0], &e));
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, in[0], 1.0, &one));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", e, one, &e));
  return rt_onnx_call1(cx, "log", e, &out[0]);
}

static rt_status_t cv_softsign(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  rt_ir_expr_t *a = NULL, *one = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "abs", in[0], &a));
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, in[0], 1.0, &one));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", a, one, &a));
  return rt_onnx_call2(cx, "divide", in[0], a, &out[0]);
}

static rt_status_t cv_clip(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                           rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  rt_ir_expr_t *x = in[0];
  rt_ir_expr_t *lo = NULL, *hi = NULL;
  if (cx->opset < 11) {
    double mn = rt_onnx_attr_float(cx, "min", -INFINITY);
    double mx = rt_onnx_attr_float(cx, "max", INFINITY);
    if (!isinf(mn)) RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, x, mn, &lo));
    if (!isinf(mx)) RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, x, mx, &hi));
  } else {
    lo = nin > 1 ? in[1] : NULL;
    hi = nin > 2 ? in[2] : NULL;
  }
  if (lo) RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "maximum", x, lo, &x));
  if (hi) RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "minimum", x, hi, &x));
  out[0] = x;
  return RT_OK;
}

/* ---- reductions ---------------------------------------------------------- */

/* The reduction axes: attribute before `input_opset`, input 1 from it. Sets
 * *none when no axes are given. */
static rt_status_t reduce_axes(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               int64_t input_opset, int64_t *axes, int32_t *n, bool *none) {
  int32_t r = rt_onnx_rank(in[0]);
  *none = true;
  *n = 0;
  if (cx->opset >= input_opset) {
    if (nin > 1 && in[1]) {
      RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[1], "axes", MAXR, axes, n));
      *none = *n == 0;
    }
  } else {
    const int64_t *v = NULL;
    if (rt_onnx_attr_ints(cx, "axes", n, &v)) {
      if (*n > MAXR) return rt_onnx_bad(cx, "too many axes");
      memcpy(axes, v, (size_t)*n * sizeof(int64_t));
      *none = *n == 0;
    }
  }
  for (int32_t i = 0; i < *n; ++i) RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axes[i], r));
  return RT_OK;
}

/* op(pre(x)) over the axes, then post. */
static rt_status_t reduce(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                          int64_t input_opset, const char *pre, const char *op,
                          const char *post) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  int64_t axes[MAXR];
  int32_t n = 0;
  bool none = true;
  bool keep = rt_onnx_attr_int(cx, "keepdims", 1) != 0;
  rt_ir_expr_t *x = in[0];
  /* Axes known at run time but declared of shape (0): empty whatever the
   * values, as if absent (h1). */
  const rt_ir_type_t *at = nin > 1 && rt_onnx_is_runtime(in[1]) ? rt_onnx_type(in[1]) : NULL;
  if (at && at->tensor.rank == 1 && at->tensor.shape[0] == 0) nin = 1;
  /* Axes known at run time: the dyn reduction (empty axes reduce every
   * axis); without keepdims the model's declared rank is the output's.
   * With noop_with_empty_axes (empty axes reduce nothing) the axes must be
   * constants (reduce_axes says so). */
  if (cx->opset >= input_opset && nin > 1 && rt_onnx_is_runtime(in[1]) &&
      !rt_onnx_attr_int(cx, "noop_with_empty_axes", 0)) {
    int32_t rank = 0;
    if (!keep && !rt_onnx_output_rank(cx, 0, &rank)) {
      return rt_onnx_unsupported(cx, "axes known only at run time without keepdims, in a model "
                                     "that does not declare the output's shape");
    }
    if (pre && !strcmp(pre, "square")) {
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", x, x, &x));
    } else if (pre) {
      RT_RETURN_IF_ERROR(rt_onnx_call1(cx, pre, x, &x));
    }
    char name[16];
    snprintf(name, sizeof name, "dyn.%s", op);
    rt_ir_expr_t *args[2] = {x, in[1]};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, name, 2, args, &x, "keepdims", keep ? "True" : "False",
                                    "rank", keep ? "None" : rt_onnx_int_text(cx, rank), NULL));
    if (post) RT_RETURN_IF_ERROR(rt_onnx_call1(cx, post, x, &x));
    out[0] = x;
    return RT_OK;
  }
  RT_RETURN_IF_ERROR(reduce_axes(cx, in, nin, input_opset, axes, &n, &none));
  if (none && rt_onnx_attr_int(cx, "noop_with_empty_axes", 0)) {
    out[0] = x;
    return RT_OK;
  }
  if (pre && !strcmp(pre, "square")) {
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", x, x, &x));
  } else if (pre) {
    RT_RETURN_IF_ERROR(rt_onnx_call1(cx, pre, x, &x));
  }
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, op, 1, &x, &x, "axis",
                                  none ? "None" : rt_onnx_ints_text(cx, n, axes), "keepdims",
                                  keep ? "True" : "False", NULL));
  if (post) RT_RETURN_IF_ERROR(rt_onnx_call1(cx, post, x, &x));
  out[0] = x;
  return RT_OK;
}

#define REDUCE(fn, opset, pre, op, post)                                          \
  static rt_status_t fn(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,        \
                        rt_ir_expr_t **out, int32_t nout) {                       \
    return reduce(cx, in, nin, out, opset, pre, op, post);                        \
  }
REDUCE(cv_reduce_sum, 13, NULL, "sum", NULL)
REDUCE(cv_reduce_mean, 18, NULL, "mean", NULL)
REDUCE(cv_reduce_max, 18, NULL, "max", NULL)
REDUCE(cv_reduce_min, 18, NULL, "min", NULL)
REDUCE(cv_reduce_prod, 18, NULL, "prod", NULL)
REDUCE(cv_reduce_l1, 18, "abs", "sum", NULL)
REDUCE(cv_reduce_l2, 18, "square", "sum", "sqrt")
REDUCE(cv_reduce_sum_square, 18, "square", "sum", NULL)
REDUCE(cv_reduce_log_sum, 18, NULL, "sum", "log")
REDUCE(cv_reduce_log_sum_exp, 18, "exp", "sum", "log")

static rt_status_t argreduce(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                             rt_ir_expr_t **out, const char *op) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  int64_t axis = rt_onnx_attr_int(cx, "axis", 0);
  RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axis, rt_onnx_rank(in[0])));
  bool keep = rt_onnx_attr_int(cx, "keepdims", 1) != 0;
  bool last = rt_onnx_attr_int(cx, "select_last_index", 0) != 0;
  rt_ir_expr_t *x = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, op, 1, in, &x, "axis", rt_onnx_ints_text(cx, 1, &axis),
                                  "keepdims", keep ? "True" : "False", "select_last_index",
                                  last ? "True" : "False", NULL));
  return rt_onnx_call(cx, "cast", 1, &x, &out[0], "dtype", "\"int64\"", NULL);
}

static rt_status_t cv_argmax(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                             rt_ir_expr_t **out, int32_t nout) {
  return argreduce(cx, in, nin, out, "argmax");
}
static rt_status_t cv_argmin(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                             rt_ir_expr_t **out, int32_t nout) {
  return argreduce(cx, in, nin, out, "argmin");
}

/* ---- the table ----------------------------------------------------------- */

static const rt_onnx_op_entry_t ops[] = {
    {"Abs", cv_abs}, {"Acos", cv_acos}, {"Acosh", cv_acosh}, {"Add", cv_add}, {"And", cv_and},
    {"ArgMax", cv_argmax}, {"ArgMin", cv_argmin}, {"Asin", cv_asin}, {"Asinh", cv_asinh},
    {"Atan", cv_atan}, {"Atanh", cv_atanh}, {"BitShift", cv_bitshift},
    {"BitwiseAnd", cv_bitwise_and}, {"BitwiseNot", cv_bitwise_not}, {"BitwiseOr", cv_bitwise_or},
    {"BitwiseXor", cv_bitwise_xor}, {"Cast", cv_cast}, {"CastLike", cv_cast_like},
    {"Ceil", cv_ceil}, {"Celu", cv_celu}, {"Clip", cv_clip}, {"Cos", cv_cos}, {"Cosh", cv_cosh},
    {"Div", cv_div}, {"Elu", cv_elu}, {"Equal", cv_equal}, {"Erf", cv_erf}, {"Exp", cv_exp},
    {"Floor", cv_floor}, {"GRU", rt_onnx_cv_gru}, {"Greater", cv_greater},
    {"GreaterOrEqual", cv_greater_equal}, {"HardSigmoid", cv_hard_sigmoid},
    {"HardSwish", cv_hard_swish}, {"Identity", cv_identity}, {"If", rt_onnx_cv_if},
    {"IsInf", cv_isinf}, {"IsNaN", cv_isnan}, {"LSTM", rt_onnx_cv_lstm},
    {"LeakyRelu", cv_leaky_relu}, {"Less", cv_less}, {"LessOrEqual", cv_less_equal},
    {"Log", cv_log}, {"Loop", rt_onnx_cv_loop}, {"Max", cv_max}, {"Mean", cv_mean},
    {"Min", cv_min}, {"Mod", cv_mod}, {"Mul", cv_mul}, {"Neg", cv_neg}, {"Not", cv_not},
    {"Or", cv_or}, {"PRelu", cv_prelu}, {"Pow", cv_pow}, {"RNN", rt_onnx_cv_rnn},
    {"Reciprocal", cv_reciprocal}, {"ReduceL1", cv_reduce_l1}, {"ReduceL2", cv_reduce_l2},
    {"ReduceLogSum", cv_reduce_log_sum}, {"ReduceLogSumExp", cv_reduce_log_sum_exp},
    {"ReduceMax", cv_reduce_max}, {"ReduceMean", cv_reduce_mean}, {"ReduceMin", cv_reduce_min},
    {"ReduceProd", cv_reduce_prod}, {"ReduceSum", cv_reduce_sum},
    {"ReduceSumSquare", cv_reduce_sum_square}, {"Relu", cv_relu}, {"Round", cv_round},
    {"Scan", rt_onnx_cv_scan},
    {"Selu", cv_selu}, {"Shrink", cv_shrink}, {"Sigmoid", cv_sigmoid}, {"Sign", cv_sign},
    {"Sin", cv_sin}, {"Sinh", cv_sinh}, {"Softplus", cv_softplus}, {"Softsign", cv_softsign},
    {"Sqrt", cv_sqrt}, {"Sub", cv_sub}, {"Sum", cv_sum}, {"Tan", cv_tan}, {"Tanh", cv_tanh},
    {"ThresholdedRelu", cv_thresholded_relu}, {"Where", cv_where}, {"Xor", cv_xor},
};

/* The converter tables: this file's, then one per converter file
 * (onnx_impl.h). */
typedef struct converter_table_t {
  const rt_onnx_op_entry_t *ops;
  const int32_t *count;
} converter_table_t;

rt_onnx_convert_fn rt_onnx_find_converter(const char *op_type) {
  for (size_t i = 0; i < RT_COUNTOF(ops); ++i) {
    if (strcmp(ops[i].op_type, op_type) == 0) return ops[i].convert;
  }
  static const converter_table_t tables[] = {
      {rt_onnx_transform_ops, &rt_onnx_transform_ops_count},
      {rt_onnx_nn_ops, &rt_onnx_nn_ops_count},
      {rt_onnx_loss_ops, &rt_onnx_loss_ops_count},
      {rt_onnx_quant_ops, &rt_onnx_quant_ops_count},
      {rt_onnx_extra_ops, &rt_onnx_extra_ops_count},
      {rt_onnx_string_ops, &rt_onnx_string_ops_count},
      {rt_onnx_random_ops, &rt_onnx_random_ops_count},
      {rt_onnx_signal_ops, &rt_onnx_signal_ops_count},
      {rt_onnx_datadep_ops, &rt_onnx_datadep_ops_count},
      {rt_onnx_detect_ops, &rt_onnx_detect_ops_count}, /* h1: detection */
  };
  for (size_t t = 0; t < RT_COUNTOF(tables); ++t) {
    for (int32_t i = 0; i < *tables[t].count; ++i) {
      if (strcmp(tables[t].ops[i].op_type, op_type) == 0) return tables[t].ops[i].convert;
    }
  }
  for (int32_t i = 0; i < rt_onnx_seq_ops_count; ++i) { /* sequences and optionals */
    if (strcmp(rt_onnx_seq_ops[i].op_type, op_type) == 0) return rt_onnx_seq_ops[i].convert;
  }
  return NULL;
}
