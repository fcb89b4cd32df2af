/* Reference kernels of the elementwise and broadcast ops (ir/op/elemwise.c):
 * unary math, casts and fills, numpy-broadcast binary ops, comparisons,
 * where, prelu and bias_add.
 *
 * Each element is computed in one of two domains, picked by the input's
 * dtype class: floats in double (float16/bfloat16 widened, the result
 * rounded back on store), integers and bool in int64 with wrapping done in
 * uint64 (kernels_impl.h). Semantics chosen where C or TVM leave a gap:
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

#include "interp/kernels/kernels_impl.h"

/* ---- unary ---------------------------------------------------------------- */

static double unary_f(int32_t id, double x) {
  switch (id) {
    case RT_OP_NEGATIVE: return -x;
    case RT_OP_ABS: return fabs(x);
    case RT_OP_SIGN: return isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
    case RT_OP_FLOOR: return floor(x);
    case RT_OP_CEIL: return ceil(x);
    case RT_OP_ROUND: return rt_interp_round_even(x);
    case RT_OP_TRUNC: return trunc(x);
    case RT_OP_EXP: return exp(x);
    case RT_OP_LOG: return log(x);
    case RT_OP_LOG2: return log2(x);
    case RT_OP_LOG10: return log10(x);
    case RT_OP_SQRT: return sqrt(x);
    case RT_OP_RSQRT: return 1.0 / sqrt(x);
    case RT_OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case RT_OP_TANH: return tanh(x);
    case RT_OP_ERF: return erf(x);
    case RT_OP_SIN: return sin(x);
    case RT_OP_COS: return cos(x);
    case RT_OP_TAN: return tan(x);
    case RT_OP_ASIN: return asin(x);
    case RT_OP_ACOS: return acos(x);
    case RT_OP_ATAN: return atan(x);
    case RT_OP_SINH: return sinh(x);
    case RT_OP_COSH: return cosh(x);
    case RT_OP_ASINH: return asinh(x);
    case RT_OP_ACOSH: return acosh(x);
    case RT_OP_ATANH: return atanh(x);
    case RT_OP_LOGICAL_NOT: return x == 0 ? 1.0 : 0.0;
    case RT_OP_COPY: return x;
    case RT_OP_NN_RELU: return x > 0 ? x : x < 0 ? 0.0 : x; /* NaN stays */
    default: return x;
  }
}

/* Integer form of the ops that have one; false when the op is computed in
 * double for integer inputs too. */
static bool unary_i(int32_t id, int64_t x, bool uns, int64_t *out) {
  uint64_t u = (uint64_t)x;
  switch (id) {
    case RT_OP_NEGATIVE: *out = rt_interp_u2s(0 - u); return true;
    case RT_OP_ABS: *out = (!uns && x < 0) ? rt_interp_u2s(0 - u) : x; return true;
    case RT_OP_SIGN: *out = uns ? (x != 0) : x > 0 ? 1 : x < 0 ? -1 : 0; return true;
    case RT_OP_FLOOR:
    case RT_OP_CEIL:
    case RT_OP_ROUND:
    case RT_OP_TRUNC:
    case RT_OP_COPY: *out = x; return true;
    case RT_OP_NN_RELU: *out = (!uns && x < 0) ? 0 : x; return true;
    case RT_OP_LOGICAL_NOT: *out = x == 0; return true;
    case RT_OP_BITWISE_NOT: *out = rt_interp_u2s(~u); return true;
    default: return false;
  }
}

static rt_status_t unary(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const int32_t id = call->op->id;
  const rt_interp_class_t cls = rt_interp_class(x->dtype);
  if (cls == RT_INTERP_FLOAT && id == RT_OP_BITWISE_NOT) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s",
                           "needs an integer or bool input, got a float");
  }
  for (int64_t i = 0; i < out->numel; ++i) {
    int64_t r;
    if (cls == RT_INTERP_BOOL && id == RT_OP_BITWISE_NOT) {
      rt_interp_store_i(out, i, rt_interp_load_i(x, i) == 0); /* numpy: ~bool is not */
    } else if (cls != RT_INTERP_FLOAT &&
        unary_i(id, rt_interp_load_i(x, i), cls == RT_INTERP_UINT, &r)) {
      rt_interp_store_i(out, i, r);
    } else {
      rt_interp_store_f(out, i, unary_f(id, rt_interp_load_f(x, i)));
    }
  }
  return RT_OK;
}

#define UNARY_KERNEL(ID) \
  rt_status_t rt_interp_k_##ID(const rt_interp_call_t *call) { return unary(call); }
UNARY_KERNEL(NEGATIVE)
UNARY_KERNEL(ABS)
UNARY_KERNEL(SIGN)
UNARY_KERNEL(FLOOR)
UNARY_KERNEL(CEIL)
UNARY_KERNEL(ROUND)
UNARY_KERNEL(TRUNC)
UNARY_KERNEL(EXP)
UNARY_KERNEL(LOG)
UNARY_KERNEL(LOG2)
UNARY_KERNEL(LOG10)
UNARY_KERNEL(SQRT)
UNARY_KERNEL(RSQRT)
UNARY_KERNEL(SIGMOID)
UNARY_KERNEL(TANH)
UNARY_KERNEL(ERF)
UNARY_KERNEL(SIN)
UNARY_KERNEL(COS)
UNARY_KERNEL(TAN)
UNARY_KERNEL(ASIN)
UNARY_KERNEL(ACOS)
UNARY_KERNEL(ATAN)
UNARY_KERNEL(SINH)
UNARY_KERNEL(COSH)
UNARY_KERNEL(ASINH)
UNARY_KERNEL(ACOSH)
UNARY_KERNEL(ATANH)
UNARY_KERNEL(LOGICAL_NOT)
UNARY_KERNEL(BITWISE_NOT)
UNARY_KERNEL(COPY)
UNARY_KERNEL(NN_RELU)
#undef UNARY_KERNEL

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

rt_status_t rt_interp_k_NN_LEAKY_RELU(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const double alpha = rt_attrs_float(call->attrs, "alpha");
  for (int64_t i = 0; i < out->numel; ++i) {
    double v = rt_interp_load_f(x, i);
    rt_interp_store_f(out, i, v > 0 ? v : alpha * v);
  }
  return RT_OK;
}

/* clip keeps NaN and keeps integer values exactly when in range. */
rt_status_t rt_interp_k_CLIP(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const double lo = rt_attrs_float(call->attrs, "a_min");
  const double hi = rt_attrs_float(call->attrs, "a_max");
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
  rt_tensor_t *out = call->outs[0];
  for (int64_t i = 0; i < out->numel; ++i) rt_interp_convert(call->args[0], i, out, i);
  return RT_OK;
}

rt_status_t rt_interp_k_CAST(const rt_interp_call_t *call) { return cast(call); }
rt_status_t rt_interp_k_CAST_LIKE(const rt_interp_call_t *call) { return cast(call); }

static rt_status_t fill_int(const rt_interp_call_t *call, int64_t v) {
  rt_tensor_t *out = call->outs[0];
  for (int64_t i = 0; i < out->numel; ++i) rt_interp_store_i(out, i, v);
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
  for (int64_t i = 0; i < out->numel; ++i) rt_interp_convert(fill, 0, out, i);
  return RT_OK;
}

/* ---- binary ---------------------------------------------------------------- */

static double binary_f(int32_t id, double a, double b) {
  switch (id) {
    case RT_OP_ADD: return a + b;
    case RT_OP_SUBTRACT: return a - b;
    case RT_OP_MULTIPLY: return a * b;
    case RT_OP_DIVIDE: return a / b;
    case RT_OP_POWER: return pow(a, b);
    case RT_OP_MAXIMUM: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
    case RT_OP_MINIMUM: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
    case RT_OP_MOD:
    case RT_OP_TRUNC_MOD: return fmod(a, b);
    case RT_OP_FLOOR_DIVIDE: return floor(a / b);
    case RT_OP_FLOOR_MOD: return a - floor(a / b) * b;
    case RT_OP_TRUNC_DIVIDE: return trunc(a / b);
    case RT_OP_LOGICAL_AND: return (a != 0) && (b != 0);
    case RT_OP_LOGICAL_OR: return (a != 0) || (b != 0);
    case RT_OP_LOGICAL_XOR: return (a != 0) != (b != 0);
    case RT_OP_EQUAL: return a == b;
    case RT_OP_NOT_EQUAL: return a != b;
    case RT_OP_LESS: return a < b;
    case RT_OP_LESS_EQUAL: return a <= b;
    case RT_OP_GREATER: return a > b;
    default: return a >= b; /* GREATER_EQUAL */
  }
}

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

/* Integer binary op; *div0 set when a division by zero was attempted. */
static int64_t binary_i(int32_t id, int64_t a, int64_t b, bool uns, int bits,
                        bool *div0) {
  const uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  switch (id) {
    case RT_OP_ADD: return rt_interp_u2s(ua + ub);
    case RT_OP_SUBTRACT: return rt_interp_u2s(ua - ub);
    case RT_OP_MULTIPLY: return rt_interp_u2s(ua * ub);
    case RT_OP_POWER: return ipow(a, b, uns);
    case RT_OP_MAXIMUM: return lt(a, b, uns) ? b : a;
    case RT_OP_MINIMUM: return lt(b, a, uns) ? b : a;
    case RT_OP_DIVIDE:
    case RT_OP_TRUNC_DIVIDE:
    case RT_OP_FLOOR_DIVIDE:
    case RT_OP_MOD:
    case RT_OP_TRUNC_MOD:
    case RT_OP_FLOOR_MOD: {
      if (b == 0) {
        *div0 = true;
        return 0;
      }
      bool is_mod = id == RT_OP_MOD || id == RT_OP_TRUNC_MOD || id == RT_OP_FLOOR_MOD;
      if (uns) return rt_interp_u2s(is_mod ? ua % ub : ua / ub);
      if (b == -1) return is_mod ? 0 : rt_interp_u2s(0 - ua); /* INT_MIN / -1 wraps */
      int64_t q = a / b, r = a % b;
      if (id == RT_OP_FLOOR_DIVIDE && r != 0 && ((r < 0) != (b < 0))) q -= 1;
      if (id == RT_OP_FLOOR_MOD && r != 0 && ((r < 0) != (b < 0))) r += b;
      return is_mod ? r : q;
    }
    case RT_OP_LOGICAL_AND: return (a != 0) && (b != 0);
    case RT_OP_LOGICAL_OR: return (a != 0) || (b != 0);
    case RT_OP_LOGICAL_XOR: return (a != 0) != (b != 0);
    case RT_OP_BITWISE_AND: return rt_interp_u2s(ua & ub);
    case RT_OP_BITWISE_OR: return rt_interp_u2s(ua | ub);
    case RT_OP_BITWISE_XOR: return rt_interp_u2s(ua ^ ub);
    case RT_OP_LEFT_SHIFT:
      if ((!uns && b < 0) || ub >= (uint64_t)bits) return 0;
      return rt_interp_u2s(ua << ub);
    case RT_OP_RIGHT_SHIFT:
      if (uns) return ub >= (uint64_t)bits ? 0 : rt_interp_u2s(ua >> ub);
      if (b < 0 || b >= bits) return a < 0 ? -1 : 0;
      return a < 0 ? ~(~a >> b) : a >> b;
    case RT_OP_EQUAL: return a == b;
    case RT_OP_NOT_EQUAL: return a != b;
    case RT_OP_LESS: return lt(a, b, uns);
    case RT_OP_LESS_EQUAL: return !lt(b, a, uns);
    case RT_OP_GREATER: return lt(b, a, uns);
    default: return !lt(a, b, uns); /* GREATER_EQUAL */
  }
}

static bool is_bitwise(int32_t id) {
  return id == RT_OP_BITWISE_AND || id == RT_OP_BITWISE_OR ||
         id == RT_OP_BITWISE_XOR || id == RT_OP_LEFT_SHIFT ||
         id == RT_OP_RIGHT_SHIFT;
}

static rt_status_t binary(const rt_interp_call_t *call) {
  const rt_tensor_t *a = call->args[0];
  const rt_tensor_t *b = call->args[1];
  rt_tensor_t *out = call->outs[0];
  const int32_t id = call->op->id;
  const rt_interp_class_t cls = rt_interp_class(a->dtype);
  if (cls == RT_INTERP_FLOAT && is_bitwise(id)) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s",
                           "needs integer or bool inputs, got floats");
  }
  const bool uns = cls == RT_INTERP_UINT || cls == RT_INTERP_BOOL;
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, idx);
    int64_t ia = rt_interp_bcast_index(out->rank, idx, a->rank, a->shape);
    int64_t ib = rt_interp_bcast_index(out->rank, idx, b->rank, b->shape);
    if (cls == RT_INTERP_FLOAT) {
      rt_interp_store_f(out, i, binary_f(id, rt_interp_load_f(a, ia),
                                         rt_interp_load_f(b, ib)));
      continue;
    }
    bool div0 = false;
    int64_t r = binary_i(id, rt_interp_load_i(a, ia), rt_interp_load_i(b, ib),
                         uns, a->dtype.bits, &div0);
    if (div0) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s",
                             "integer division by zero");
    }
    rt_interp_store_i(out, i, r);
  }
  return RT_OK;
}

#define BINARY_KERNEL(ID) \
  rt_status_t rt_interp_k_##ID(const rt_interp_call_t *call) { return binary(call); }
BINARY_KERNEL(ADD)
BINARY_KERNEL(SUBTRACT)
BINARY_KERNEL(MULTIPLY)
BINARY_KERNEL(DIVIDE)
BINARY_KERNEL(POWER)
BINARY_KERNEL(MAXIMUM)
BINARY_KERNEL(MINIMUM)
BINARY_KERNEL(MOD)
BINARY_KERNEL(FLOOR_DIVIDE)
BINARY_KERNEL(FLOOR_MOD)
BINARY_KERNEL(TRUNC_DIVIDE)
BINARY_KERNEL(TRUNC_MOD)
BINARY_KERNEL(LOGICAL_AND)
BINARY_KERNEL(LOGICAL_OR)
BINARY_KERNEL(LOGICAL_XOR)
BINARY_KERNEL(BITWISE_AND)
BINARY_KERNEL(BITWISE_OR)
BINARY_KERNEL(BITWISE_XOR)
BINARY_KERNEL(LEFT_SHIFT)
BINARY_KERNEL(RIGHT_SHIFT)
BINARY_KERNEL(EQUAL)
BINARY_KERNEL(NOT_EQUAL)
BINARY_KERNEL(LESS)
BINARY_KERNEL(LESS_EQUAL)
BINARY_KERNEL(GREATER)
BINARY_KERNEL(GREATER_EQUAL)
#undef BINARY_KERNEL

/* where(cond, x, y): all three broadcast to the output; elements copied. */
rt_status_t rt_interp_k_WHERE(const rt_interp_call_t *call) {
  const rt_tensor_t *c = call->args[0];
  const rt_tensor_t *x = call->args[1];
  const rt_tensor_t *y = call->args[2];
  rt_tensor_t *out = call->outs[0];
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, idx);
    int64_t ic = rt_interp_bcast_index(out->rank, idx, c->rank, c->shape);
    if (rt_interp_truthy(c, ic)) {
      rt_interp_copy_elem(x, rt_interp_bcast_index(out->rank, idx, x->rank, x->shape), out, i);
    } else {
      rt_interp_copy_elem(y, rt_interp_bcast_index(out->rank, idx, y->rank, y->shape), out, i);
    }
  }
  return RT_OK;
}

/* The channel (index along `axis`) of each element, checking that the
 * per-channel vector has the axis' length. */
static rt_status_t channel_op(const rt_interp_call_t *call, bool prelu) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *v = call->args[1];
  rt_tensor_t *out = call->outs[0];
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_attrs_int(call->attrs, "axis"),
                                    x->rank, &axis));
  if (v->numel != x->shape[axis]) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT,
                           "second input has %lld elements, axis %d has %lld",
                           (long long)v->numel, axis, (long long)x->shape[axis]);
  }
  int64_t idx[RT_TENSOR_MAX_RANK];
  const bool is_float = rt_interp_class(x->dtype) == RT_INTERP_FLOAT;
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, x->rank, x->shape, idx);
    int64_t c = idx[axis];
    if (prelu) {
      double a = rt_interp_load_f(x, i);
      rt_interp_store_f(out, i, a > 0 ? a : rt_interp_load_f(v, c) * a);
    } else if (is_float) {
      rt_interp_store_f(out, i, rt_interp_load_f(x, i) + rt_interp_load_f(v, c));
    } else {
      rt_interp_store_i(out, i, rt_interp_u2s((uint64_t)rt_interp_load_i(x, i) +
                                              (uint64_t)rt_interp_load_i(v, c)));
    }
  }
  return RT_OK;
}

rt_status_t rt_interp_k_NN_PRELU(const rt_interp_call_t *call) { return channel_op(call, true); }
rt_status_t rt_interp_k_NN_BIAS_ADD(const rt_interp_call_t *call) { return channel_op(call, false); }
