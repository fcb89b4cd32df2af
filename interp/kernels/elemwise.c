/* Reference kernels of the elementwise and broadcast ops (ir/op/elemwise.c):
 * unary math, casts and fills, numpy-broadcast binary ops, comparisons,
 * where, prelu and bias_add.
 *
 * Each element is computed in one of two domains, picked by the input's
 * dtype class: floats in double (float16/bfloat16 widened, the result
 * rounded back on store), integers and bool in int64 with wrapping done in
 * uint64 (kernels_impl.h). Inputs are read whole into double or int64
 * buffers and walked by output rows, each input advancing by its
 * broadcast strides (0 along a broadcast dim); the output is stored once.
 * Semantics chosen where C or TVM leave a gap:
 *   - Integer divide, mod, floor_* and trunc_* by zero: INVALID_ARGUMENT
 *     "<op>: integer division by zero". INT_MIN / -1 wraps to INT_MIN
 *     (remainder 0). divide, mod and trunc_* truncate toward zero; floor_divide
 *     and floor_mod floor (the remainder takes the divisor's sign).
 *   - Float floor_mod is TVM's a - floor(a / b) * b; mod/trunc_mod are fmod.
 *   - maximum/minimum propagate NaN (numpy's maximum), clip keeps NaN.
 *   - Integer power: square-and-multiply, wrapping; a negative exponent
 *     gives the real result truncated toward zero (1, -1 or 0; 0^-n = 0).
 *   - Shifts by a negative amount or >= the dtype's bits: left_shift gives 0,
 *     right_shift gives the sign fill (0 or -1); right_shift of signed
 *     values is arithmetic (numpy).
 *   - Integer inputs to float math (exp, sqrt, ...): computed in double
 *     and stored with saturation (NaN -> 0). Rounding ops are identities.
 *   - abs/negative of INT_MIN wrap to INT_MIN; sign(NaN) = NaN.
 *   - Bitwise ops on floats: INVALID_ARGUMENT.
 *   - round is half to even (TVM lowers to nearbyint). */
#include <math.h>
#include <string.h>

#include "interp/kernels/kernels_impl.h"
#include "ir/op/op_attrs.h"

/* ---- scalar forms of the plain elementwise ops ----------------------------
 *
 * One function per op and domain (ir/ops.def's RT_UNARY / RT_BINARY rows
 * and their `domain` column): uf_<ID> computes a float element in double,
 * ui_<ID> an integer or bool element in int64 (wrapping done in uint64);
 * bf_<ID> / bi_<ID> the same for binary ops. The tables below are
 * generated from ops.def, so a row without its forms does not compile. */

#define UNARY_F(ID) static double uf_##ID(double x, const rt_attrs_any_t *at)
/* uns: the dtype is unsigned; is_bool: it is bool. */
#define UNARY_I(ID) static int64_t ui_##ID(int64_t x, bool uns, bool is_bool)

UNARY_F(NEGATIVE) { return -x; }
UNARY_F(ABS) { return fabs(x); }
UNARY_F(SIGN) { return isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }
UNARY_F(FLOOR) { return floor(x); }
UNARY_F(CEIL) { return ceil(x); }
UNARY_F(ROUND) { return rt_interp_round_even(x); }
UNARY_F(TRUNC) { return trunc(x); }
UNARY_F(EXP) { return exp(x); }
UNARY_F(LOG) { return log(x); }
UNARY_F(LOG2) { return log2(x); }
UNARY_F(LOG10) { return log10(x); }
UNARY_F(SQRT) { return sqrt(x); }
UNARY_F(RSQRT) { return 1.0 / sqrt(x); }
UNARY_F(SIGMOID) { return 1.0 / (1.0 + exp(-x)); }
UNARY_F(TANH) { return tanh(x); }
UNARY_F(ERF) { return erf(x); }
UNARY_F(SIN) { return sin(x); }
UNARY_F(COS) { return cos(x); }
UNARY_F(TAN) { return tan(x); }
UNARY_F(ASIN) { return asin(x); }
UNARY_F(ACOS) { return acos(x); }
UNARY_F(ATAN) { return atan(x); }
UNARY_F(SINH) { return sinh(x); }
UNARY_F(COSH) { return cosh(x); }
UNARY_F(ASINH) { return asinh(x); }
UNARY_F(ACOSH) { return acosh(x); }
UNARY_F(ATANH) { return atanh(x); }
UNARY_F(LOGICAL_NOT) { return x == 0 ? 1.0 : 0.0; }
UNARY_F(COPY) { return x; }
UNARY_F(NN_RELU) { return x > 0 ? x : x < 0 ? 0.0 : x; } /* NaN stays */
UNARY_F(NN_LEAKY_RELU) { return x > 0 ? x : at->leaky_relu.alpha * x; }
UNARY_F(NN_THRESHOLDED_RELU) { return x > at->thresholded_relu.alpha ? x : 0.0; }
UNARY_F(NN_SHRINK) {
  const double lambd = at->shrink.lambd, bias = at->shrink.bias;
  return x < -lambd ? x + bias : x > lambd ? x - bias : 0.0;
}

UNARY_I(NEGATIVE) { return rt_interp_u2s(0 - (uint64_t)x); }
UNARY_I(ABS) { return (!uns && x < 0) ? rt_interp_u2s(0 - (uint64_t)x) : x; }
UNARY_I(SIGN) { return uns ? (x != 0) : x > 0 ? 1 : x < 0 ? -1 : 0; }
UNARY_I(FLOOR) { return x; }
UNARY_I(CEIL) { return x; }
UNARY_I(ROUND) { return x; }
UNARY_I(TRUNC) { return x; }
UNARY_I(COPY) { return x; }
UNARY_I(NN_RELU) { return (!uns && x < 0) ? 0 : x; }
UNARY_I(LOGICAL_NOT) { return x == 0; }
/* numpy: ~ of a bool is `not`. */
UNARY_I(BITWISE_NOT) { return is_bool ? x == 0 : rt_interp_u2s(~(uint64_t)x); }

typedef struct unary_forms_t {
  double (*f)(double x, const rt_attrs_any_t *at);
  int64_t (*i)(int64_t x, bool uns, bool is_bool);
} unary_forms_t;

#define FORMS_any(ID) {uf_##ID, ui_##ID}
#define FORMS_float(ID) {uf_##ID, NULL}
#define FORMS_int(ID) {NULL, ui_##ID}
static const unary_forms_t k_unary[RT_OP_COUNT] = {
#define RT_OP(ID, name, ninputs, pattern, fields, rel, family, doc)
#define RT_UNARY(ID, name, fields, domain, doc) [RT_OP_##ID] = FORMS_##domain(ID),
#define RT_BINARY(ID, name, rel, domain, doc)
#include "ir/ops.def"
#undef RT_BINARY
#undef RT_UNARY
#undef RT_OP
};

/* Integers use the op's integer form when it has one, else its float form
 * in double with a saturating store; floats without a float form are an
 * error. */
rt_status_t rt_interp_k_unary(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const unary_forms_t *forms = &k_unary[call->op->id];
  const rt_interp_class_t cls = rt_interp_class(x->dtype);
  if (cls == RT_INTERP_FLOAT && !forms->f) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s",
                           "needs an integer or bool input, got a float");
  }
  rt_attrs_any_t at;
  rt_ir_attrs_decode(call->op, call->attrs, &at);
  const bool uns = cls == RT_INTERP_UINT, is_bool = cls == RT_INTERP_BOOL;
  const int64_t n = out->numel;
  if (cls != RT_INTERP_FLOAT && forms->i) {
    int64_t *v = NULL;
    RT_RETURN_IF_ERROR(rt_interp_load_all_i(call, x, &v));
    for (int64_t i = 0; i < n; ++i) v[i] = forms->i(v[i], uns, is_bool);
    rt_interp_store_span_i(out, 0, n, v);
    rt_interp_scratch_free(call, v);
  } else {
    double *v = NULL;
    RT_RETURN_IF_ERROR(rt_interp_load_all_f(call, x, &v));
    for (int64_t i = 0; i < n; ++i) v[i] = forms->f(v[i], &at);
    rt_interp_store_span_f(out, 0, n, v);
    rt_interp_scratch_free(call, v);
  }
  return RT_OK;
}

/* isnan/isinf/isfinite: bool out; integers are always finite. */
static rt_status_t classify(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const bool is_float = rt_interp_class(x->dtype) == RT_INTERP_FLOAT;
  for (int64_t i = 0; i < out->numel; ++i) {
    double v = is_float ? rt_interp_load_f(x, i) : 0.0;
    bool r;
    switch (call->op->id) {
      case RT_OP_ISNAN: r = isnan(v); break;
      case RT_OP_ISINF: r = isinf(v); break;
      default: r = isfinite(v); break;
    }
    rt_interp_store_i(out, i, r);
  }
  return RT_OK;
}

rt_status_t rt_interp_k_ISNAN(const rt_interp_call_t *call) { return classify(call); }
rt_status_t rt_interp_k_ISINF(const rt_interp_call_t *call) { return classify(call); }
rt_status_t rt_interp_k_ISFINITE(const rt_interp_call_t *call) { return classify(call); }

/* clip keeps NaN and keeps integer values exactly when in range. */
rt_status_t rt_interp_k_CLIP(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const rt_attrs_clip_t a = rt_ir_attrs_clip(call->attrs);
  const double lo = a.a_min, hi = a.a_max;
  if (rt_interp_class(x->dtype) == RT_INTERP_FLOAT) {
    /* In range, a float element goes through double unchanged. */
    double *v = NULL;
    RT_RETURN_IF_ERROR(rt_interp_load_all_f(call, x, &v));
    for (int64_t i = 0; i < out->numel; ++i) v[i] = v[i] < lo ? lo : v[i] > hi ? hi : v[i];
    rt_interp_store_span_f(out, 0, out->numel, v);
    rt_interp_scratch_free(call, v);
    return RT_OK;
  }
  for (int64_t i = 0; i < out->numel; ++i) {
    double v = rt_interp_load_f(x, i);
    if (v < lo) {
      rt_interp_store_f(out, i, lo);
    } else if (v > hi) {
      rt_interp_store_f(out, i, hi);
    } else {
      rt_interp_convert(x, i, out, i);
    }
  }
  return RT_OK;
}

/* cast and cast_like convert to the output's dtype (the relation put it
 * there: the dtype attribute, or the second input's dtype). */
static rt_status_t cast(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  if (rt_dtype_is_string(x->dtype) || rt_dtype_is_string(out->dtype)) {
    return rt_interp_cast_string(call); /* interp/kernels/string.c */
  }
  const rt_interp_class_t cls = rt_interp_class(x->dtype);
  /* rt_interp_convert's two routes, a whole tensor at a time. */
  if (cls == RT_INTERP_FLOAT ||
      (cls == RT_INTERP_UINT && x->dtype.bits == 64 && rt_interp_class(out->dtype) == RT_INTERP_FLOAT)) {
    double *v = NULL;
    RT_RETURN_IF_ERROR(rt_interp_load_all_f(call, x, &v));
    rt_interp_store_span_f(out, 0, out->numel, v);
    rt_interp_scratch_free(call, v);
  } else {
    int64_t *v = NULL;
    RT_RETURN_IF_ERROR(rt_interp_load_all_i(call, x, &v));
    rt_interp_store_span_i(out, 0, out->numel, v);
    rt_interp_scratch_free(call, v);
  }
  return RT_OK;
}

rt_status_t rt_interp_k_CAST(const rt_interp_call_t *call) { return cast(call); }
rt_status_t rt_interp_k_CAST_LIKE(const rt_interp_call_t *call) { return cast(call); }

static rt_status_t fill_int(const rt_interp_call_t *call, int64_t v) {
  rt_tensor_t *out = call->outs[0];
  if (out->numel == 0) return RT_OK;
  rt_interp_store_i(out, 0, v);
  rt_interp_fill_from_first(out);
  return RT_OK;
}

rt_status_t rt_interp_k_ZEROS_LIKE(const rt_interp_call_t *call) { return fill_int(call, 0); }
rt_status_t rt_interp_k_ONES_LIKE(const rt_interp_call_t *call) { return fill_int(call, 1); }

rt_status_t rt_interp_k_FULL_LIKE(const rt_interp_call_t *call) {
  const rt_tensor_t *fill = call->args[1];
  rt_tensor_t *out = call->outs[0];
  if (fill->numel != 1) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT,
                           "fill_value must have one element, got %lld",
                           (long long)fill->numel);
  }
  if (out->numel == 0) return RT_OK;
  rt_interp_convert(fill, 0, out, 0);
  rt_interp_fill_from_first(out);
  return RT_OK;
}

/* ---- binary ---------------------------------------------------------------- */

#define BINARY_F(ID) static double bf_##ID(double a, double b)
/* uns: unsigned or bool; bits: the dtype's width; *div0 set on an integer
 * division by zero. */
#define BINARY_I(ID) \
  static int64_t bi_##ID(int64_t a, int64_t b, bool uns, int bits, bool *div0)

/* a < b for the class (bit patterns of uint64 compare unsigned). */
static bool lt(int64_t a, int64_t b, bool uns) {
  return uns ? (uint64_t)a < (uint64_t)b : a < b;
}

static int64_t ipow(int64_t a, int64_t b, bool uns) {
  if (!uns && b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b % 2 == 0) ? 1 : -1;
    return 0;
  }
  uint64_t base = (uint64_t)a, e = (uint64_t)b, r = 1;
  while (e) {
    if (e & 1) r *= base;
    base *= base;
    e >>= 1;
  }
  return rt_interp_u2s(r);
}

/* Integer division in its three flavours: quotient truncated (or floored
 * when `floor`), or the remainder with the dividend's (divisor's when
 * `floor`) sign. INT_MIN / -1 wraps; division by zero sets *div0. */
static int64_t idiv(int64_t a, int64_t b, bool uns, bool is_mod, bool floor_,
                    bool *div0) {
  if (b == 0) {
    *div0 = true;
    return 0;
  }
  const uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  if (uns) return rt_interp_u2s(is_mod ? ua % ub : ua / ub);
  if (b == -1) return is_mod ? 0 : rt_interp_u2s(0 - ua);
  int64_t q = a / b, r = a % b;
  if (floor_ && r != 0 && ((r < 0) != (b < 0))) {
    q -= 1;
    r += b;
  }
  return is_mod ? r : q;
}

BINARY_F(ADD) { return a + b; }
BINARY_F(SUBTRACT) { return a - b; }
BINARY_F(MULTIPLY) { return a * b; }
BINARY_F(DIVIDE) { return a / b; }
BINARY_F(POWER) { return pow(a, b); }
BINARY_F(MAXIMUM) { return isnan(a) || isnan(b) ? NAN : a > b ? a : b; }
BINARY_F(MINIMUM) { return isnan(a) || isnan(b) ? NAN : a < b ? a : b; }
BINARY_F(MOD) { return fmod(a, b); }
BINARY_F(TRUNC_MOD) { return fmod(a, b); }
BINARY_F(FLOOR_DIVIDE) { return floor(a / b); }
BINARY_F(FLOOR_MOD) { return a - floor(a / b) * b; }
BINARY_F(TRUNC_DIVIDE) { return trunc(a / b); }
BINARY_F(LOGICAL_AND) { return (a != 0) && (b != 0); }
BINARY_F(LOGICAL_OR) { return (a != 0) || (b != 0); }
BINARY_F(LOGICAL_XOR) { return (a != 0) != (b != 0); }
BINARY_F(EQUAL) { return a == b; }
BINARY_F(NOT_EQUAL) { return a != b; }
BINARY_F(LESS) { return a < b; }
BINARY_F(LESS_EQUAL) { return a <= b; }
BINARY_F(GREATER) { return a > b; }
BINARY_F(GREATER_EQUAL) { return a >= b; }

BINARY_I(ADD) { return rt_interp_u2s((uint64_t)a + (uint64_t)b); }
BINARY_I(SUBTRACT) { return rt_interp_u2s((uint64_t)a - (uint64_t)b); }
BINARY_I(MULTIPLY) { return rt_interp_u2s((uint64_t)a * (uint64_t)b); }
BINARY_I(POWER) { return ipow(a, b, uns); }
BINARY_I(MAXIMUM) { return lt(a, b, uns) ? b : a; }
BINARY_I(MINIMUM) { return lt(b, a, uns) ? b : a; }
BINARY_I(DIVIDE) { return idiv(a, b, uns, false, false, div0); }
BINARY_I(TRUNC_DIVIDE) { return idiv(a, b, uns, false, false, div0); }
BINARY_I(FLOOR_DIVIDE) { return idiv(a, b, uns, false, true, div0); }
BINARY_I(MOD) { return idiv(a, b, uns, true, false, div0); }
BINARY_I(TRUNC_MOD) { return idiv(a, b, uns, true, false, div0); }
BINARY_I(FLOOR_MOD) { return idiv(a, b, uns, true, true, div0); }
BINARY_I(LOGICAL_AND) { return (a != 0) && (b != 0); }
BINARY_I(LOGICAL_OR) { return (a != 0) || (b != 0); }
BINARY_I(LOGICAL_XOR) { return (a != 0) != (b != 0); }
BINARY_I(BITWISE_AND) { return rt_interp_u2s((uint64_t)a & (uint64_t)b); }
BINARY_I(BITWISE_OR) { return rt_interp_u2s((uint64_t)a | (uint64_t)b); }
BINARY_I(BITWISE_XOR) { return rt_interp_u2s((uint64_t)a ^ (uint64_t)b); }
BINARY_I(LEFT_SHIFT) {
  if ((!uns && b < 0) || (uint64_t)b >= (uint64_t)bits) return 0;
  return rt_interp_u2s((uint64_t)a << (uint64_t)b);
}
BINARY_I(RIGHT_SHIFT) {
  if (uns) return (uint64_t)b >= (uint64_t)bits ? 0 : rt_interp_u2s((uint64_t)a >> (uint64_t)b);
  if (b < 0 || b >= bits) return a < 0 ? -1 : 0;
  return a < 0 ? ~(~a >> b) : a >> b;
}
BINARY_I(EQUAL) { return a == b; }
BINARY_I(NOT_EQUAL) { return a != b; }
BINARY_I(LESS) { return lt(a, b, uns); }
BINARY_I(LESS_EQUAL) { return !lt(b, a, uns); }
BINARY_I(GREATER) { return lt(b, a, uns); }
BINARY_I(GREATER_EQUAL) { return !lt(a, b, uns); }

typedef struct binary_forms_t {
  double (*f)(double a, double b);
  int64_t (*i)(int64_t a, int64_t b, bool uns, int bits, bool *div0);
} binary_forms_t;

#define BFORMS_any(ID) {bf_##ID, bi_##ID}
#define BFORMS_int(ID) {NULL, bi_##ID}
static const binary_forms_t k_binary[RT_OP_COUNT] = {
#define RT_OP(ID, name, ninputs, pattern, fields, rel, family, doc)
#define RT_UNARY(ID, name, fields, domain, doc)
#define RT_BINARY(ID, name, rel, domain, doc) [RT_OP_##ID] = BFORMS_##domain(ID),
#include "ir/ops.def"
#undef RT_BINARY
#undef RT_UNARY
#undef RT_OP
};

/* Both inputs are read whole (double for floats, int64 otherwise) and
 * walked row by row of the output, each advancing by its broadcast
 * strides; the results are stored once. */
rt_status_t rt_interp_k_binary(const rt_interp_call_t *call) {
  const rt_tensor_t *a = call->args[0];
  const rt_tensor_t *b = call->args[1];
  rt_tensor_t *out = call->outs[0];
  const binary_forms_t *forms = &k_binary[call->op->id];
  const rt_interp_class_t cls = rt_interp_class(a->dtype);
  if (cls == RT_INTERP_FLOAT && !forms->f) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s",
                           "needs integer or bool inputs, got floats");
  }
  const bool uns = cls == RT_INTERP_UINT || cls == RT_INTERP_BOOL;
  const int32_t r = out->rank;
  int64_t sa[RT_TENSOR_MAX_RANK], sb[RT_TENSOR_MAX_RANK], len;
  rt_interp_bcast_strides(r, out->shape, a->rank, a->shape, sa);
  rt_interp_bcast_strides(r, out->shape, b->rank, b->shape, sb);
  const int64_t rows = rt_interp_rows(r, out->shape, out->numel, &len);
  const int64_t la = r > 0 ? sa[r - 1] : 0, lb = r > 0 ? sb[r - 1] : 0;
  rt_status_t st = RT_OK;
  if (cls == RT_INTERP_FLOAT) {
    double *va = NULL, *vb = NULL, *vo = NULL;
    st = rt_interp_load_all_f(call, a, &va);
    if (!st) st = rt_interp_load_all_f(call, b, &vb);
    if (!st) st = rt_interp_scratch(call, out->numel, sizeof(double), false, (void **)&vo);
    for (int64_t row = 0; row < rows && !st; ++row) {
      const double *pa = va + rt_interp_row_start(row, r, out->shape, sa);
      const double *pb = vb + rt_interp_row_start(row, r, out->shape, sb);
      double *po = vo + row * len;
      for (int64_t j = 0; j < len; ++j) po[j] = forms->f(pa[j * la], pb[j * lb]);
    }
    if (!st) rt_interp_store_span_f(out, 0, out->numel, vo);
    rt_interp_scratch_free(call, va);
    rt_interp_scratch_free(call, vb);
    rt_interp_scratch_free(call, vo);
    return st;
  }
  int64_t *va = NULL, *vb = NULL, *vo = NULL;
  st = rt_interp_load_all_i(call, a, &va);
  if (!st) st = rt_interp_load_all_i(call, b, &vb);
  if (!st) st = rt_interp_scratch(call, out->numel, sizeof(int64_t), false, (void **)&vo);
  bool div0 = false;
  for (int64_t row = 0; row < rows && !st && !div0; ++row) {
    const int64_t *pa = va + rt_interp_row_start(row, r, out->shape, sa);
    const int64_t *pb = vb + rt_interp_row_start(row, r, out->shape, sb);
    int64_t *po = vo + row * len;
    for (int64_t j = 0; j < len; ++j) po[j] = forms->i(pa[j * la], pb[j * lb], uns, a->dtype.bits, &div0);
  }
  if (!st && div0) {
    st = RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "integer division by zero");
  }
  if (!st) rt_interp_store_span_i(out, 0, out->numel, vo);
  rt_interp_scratch_free(call, va);
  rt_interp_scratch_free(call, vb);
  rt_interp_scratch_free(call, vo);
  return st;
}

/* where(cond, x, y): all three broadcast to the output; elements copied. */
rt_status_t rt_interp_k_WHERE(const rt_interp_call_t *call) {
  const rt_tensor_t *c = call->args[0];
  const rt_tensor_t *x = call->args[1];
  const rt_tensor_t *y = call->args[2];
  rt_tensor_t *out = call->outs[0];
  const int32_t r = out->rank;
  int64_t sc[RT_TENSOR_MAX_RANK], sx[RT_TENSOR_MAX_RANK], sy[RT_TENSOR_MAX_RANK], len;
  rt_interp_bcast_strides(r, out->shape, c->rank, c->shape, sc);
  rt_interp_bcast_strides(r, out->shape, x->rank, x->shape, sx);
  rt_interp_bcast_strides(r, out->shape, y->rank, y->shape, sy);
  const int64_t rows = rt_interp_rows(r, out->shape, out->numel, &len);
  const int64_t lc = r > 0 ? sc[r - 1] : 0, lx = r > 0 ? sx[r - 1] : 0, ly = r > 0 ? sy[r - 1] : 0;
  /* Any element's truth is its double's (a non-zero integer stays
   * non-zero; NaN is true). */
  double *vc = NULL;
  RT_RETURN_IF_ERROR(rt_interp_load_all_f(call, c, &vc));
  const size_t esz = rt_dtype_size(out->dtype);
  const char *px = rt_tensor_data(x), *py = rt_tensor_data(y);
  char *po = rt_tensor_data(out);
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t ic = rt_interp_row_start(row, r, out->shape, sc);
    const int64_t ix = rt_interp_row_start(row, r, out->shape, sx);
    const int64_t iy = rt_interp_row_start(row, r, out->shape, sy);
    for (int64_t j = 0; j < len; ++j) {
      const char *src = vc[ic + j * lc] != 0 ? px + (size_t)(ix + j * lx) * esz
                                             : py + (size_t)(iy + j * ly) * esz;
      memcpy(po + (size_t)(row * len + j) * esz, src, esz);
    }
  }
  rt_interp_scratch_free(call, vc);
  return RT_OK;
}

/* The channel (index along `axis`) of each element, checking that the
 * per-channel vector has the axis' length. */
static rt_status_t channel_op(const rt_interp_call_t *call, bool prelu) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *v = call->args[1];
  rt_tensor_t *out = call->outs[0];
  const int64_t attr_axis = prelu ? rt_ir_attrs_prelu(call->attrs).axis
                                  : rt_ir_attrs_bias_add(call->attrs).axis;
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_interp_axis(call, attr_axis, x->rank, &axis));
  if (v->numel != x->shape[axis]) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT,
                           "second input has %lld elements, axis %d has %lld",
                           (long long)v->numel, axis, (long long)x->shape[axis]);
  }
  /* Element (o, ch, i) of the (outer, channels, inner) split sits at
   * (o * channels + ch) * inner + i. */
  int64_t outer = 1, inner = 1;
  const int64_t nch = x->shape[axis];
  for (int32_t d = 0; d < axis; ++d) outer *= x->shape[d];
  for (int32_t d = axis + 1; d < x->rank; ++d) inner *= x->shape[d];
  const bool is_float = rt_interp_class(x->dtype) == RT_INTERP_FLOAT;
  rt_status_t st = RT_OK;
  if (prelu || is_float) {
    double *vx = NULL, *vv = NULL;
    st = rt_interp_load_all_f(call, x, &vx);
    if (!st) st = rt_interp_load_all_f(call, v, &vv);
    for (int64_t o = 0; o < outer && !st; ++o)
      for (int64_t ch = 0; ch < nch; ++ch) {
        double *p = vx + (o * nch + ch) * inner;
        const double vc = vv[ch];
        if (prelu) {
          for (int64_t i = 0; i < inner; ++i) p[i] = p[i] > 0 ? p[i] : vc * p[i];
        } else {
          for (int64_t i = 0; i < inner; ++i) p[i] = p[i] + vc;
        }
      }
    if (!st) rt_interp_store_span_f(out, 0, out->numel, vx);
    rt_interp_scratch_free(call, vx);
    rt_interp_scratch_free(call, vv);
    return st;
  }
  int64_t *vx = NULL, *vv = NULL;
  st = rt_interp_load_all_i(call, x, &vx);
  if (!st) st = rt_interp_load_all_i(call, v, &vv);
  for (int64_t o = 0; o < outer && !st; ++o)
    for (int64_t ch = 0; ch < nch; ++ch) {
      int64_t *p = vx + (o * nch + ch) * inner;
      for (int64_t i = 0; i < inner; ++i) p[i] = rt_interp_u2s((uint64_t)p[i] + (uint64_t)vv[ch]);
    }
  if (!st) rt_interp_store_span_i(out, 0, out->numel, vx);
  rt_interp_scratch_free(call, vx);
  rt_interp_scratch_free(call, vv);
  return st;
}

rt_status_t rt_interp_k_NN_PRELU(const rt_interp_call_t *call) { return channel_op(call, true); }
rt_status_t rt_interp_k_NN_BIAS_ADD(const rt_interp_call_t *call) { return channel_op(call, false); }
