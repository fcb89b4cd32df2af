/* Lowering of the elementwise and broadcast ops (ir/op/elemwise.c): unary
 * math, classification, casts and fills, numpy-broadcast binary ops,
 * comparisons, where, prelu and bias_add, as element expressions.
 *
 * Semantics are interp/kernels/elemwise.c's (its header lists every choice:
 * integer division by zero is an error, INT_MIN / -1 wraps, floor_* floor,
 * shifts out of range give 0 / the sign fill, maximum/minimum propagate
 * NaN, round is half to even, float math on integers is done in double and
 * stored saturated). One deliberate difference: float32 math is computed in
 * float (the reference computes in double and rounds), which the
 * differential tests cover with float32 tolerances. Broadcasting maps the
 * output index to each operand by right alignment; a dim that is 1 reads
 * index 0, and a `?` dim decides at run time with a select. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jit/ops/ops_impl.h"

static rt_dtype_t dtype_of(rt_jit_lower_t *L, const rt_ir_expr_t *e) {
  return rt_jit_node(L, e)->dtype;
}

static int32_t op_id(const rt_ir_expr_t *call) { return call->call.callee->op.op->id; }

static const rt_dtype_t kF64 = {kDLFloat, 64, 1};

/* ---- shapes ------------------------------------------------------------- */

RT_JIT_SHAPE_FN(rt_jit_shape_same) {
  rt_jit_node_t *a = rt_jit_node(L, call->call.args[0]);
  rt_jit_node_t *self = rt_jit_node(L, call);
  if (!a || a->rank != self->rank) return rt_jit_static_dims(L, call, out_dims);
  memcpy(out_dims, a->dims, sizeof a->dims);
  return RT_OK;
}

RT_JIT_SHAPE_FN(rt_jit_shape_broadcast) {
  rt_dtype_t dt;
  int32_t rank;
  const int64_t *shape;
  RT_RETURN_IF_ERROR(rt_jit_tensor_type(call, &dt, &rank, &shape));
  for (int32_t k = 0; k < rank; ++k) {
    LLVMValueRef d = NULL;
    if (shape[k] != RT_DIM_ANY) {
      d = rt_jit_i64(L, shape[k]);
    } else {
      for (int32_t a = 0; a < call->call.nargs; ++a) {
        rt_jit_node_t *n = rt_jit_node(L, call->call.args[a]);
        int32_t j = k - (rank - n->rank);
        if (j < 0) continue;
        LLVMValueRef x = n->dims[j];
        if (!d) {
          d = x;
        } else {
          LLVMValueRef is1 = LLVMBuildICmp(L->b, LLVMIntEQ, d, rt_jit_i64(L, 1), "");
          d = LLVMBuildSelect(L->b, is1, x, d, "");
        }
      }
    }
    out_dims[k] = d;
    for (int32_t a = 0; a < call->call.nargs; ++a) {
      rt_jit_node_t *n = rt_jit_node(L, call->call.args[a]);
      int32_t j = k - (rank - n->rank);
      if (j < 0) continue;
      LLVMValueRef x = n->dims[j];
      if (LLVMIsConstant(x) && LLVMIsConstant(d)) continue;
      LLVMValueRef ok = LLVMBuildOr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, x, d, ""),
                                    LLVMBuildICmp(L->b, LLVMIntEQ, x, rt_jit_i64(L, 1), ""), "");
      char msg[120];
      snprintf(msg, sizeof msg, "%s: argument %d does not broadcast (dim %d)",
               call->call.callee->op.op->name, a, j);
      rt_jit_check(L, ok, msg);
    }
  }
  return RT_OK;
}

rt_status_t rt_jit_bcast_elem(rt_jit_lower_t *L, const rt_ir_expr_t *arg, int32_t out_rank,
                              const LLVMValueRef *idx, LLVMValueRef *out_value) {
  rt_jit_node_t *n = rt_jit_node(L, arg);
  LLVMValueRef aidx[RT_TENSOR_MAX_RANK];
  for (int32_t j = 0; j < n->rank; ++j) {
    LLVMValueRef d = n->dims[j];
    LLVMValueRef i = idx[j + out_rank - n->rank];
    if (LLVMIsConstant(d)) {
      aidx[j] = LLVMConstIntGetZExtValue(d) == 1 ? rt_jit_i64(L, 0) : i;
    } else {
      LLVMValueRef is1 = LLVMBuildICmp(L->b, LLVMIntEQ, d, rt_jit_i64(L, 1), "");
      aidx[j] = LLVMBuildSelect(L->b, is1, rt_jit_i64(L, 0), i, "");
    }
  }
  return rt_jit_elem(L, arg, aidx, out_value);
}

/* ---- unary -------------------------------------------------------------- */

static LLVMValueRef unary_float(rt_jit_lower_t *L, int32_t id, LLVMValueRef x) {
  LLVMBuilderRef b = L->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef zero = LLVMConstReal(t, 0), one = LLVMConstReal(t, 1);
  switch (id) {
    case RT_OP_NEGATIVE: return LLVMBuildFNeg(b, x, "");
    case RT_OP_ABS: return rt_jit_intrinsic(L, "llvm.fabs", x, NULL, NULL);
    case RT_OP_SIGN: {
      LLVMValueRef pos = LLVMBuildFCmp(b, LLVMRealOGT, x, zero, "");
      LLVMValueRef neg = LLVMBuildFCmp(b, LLVMRealOLT, x, zero, "");
      LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
      LLVMValueRef r = LLVMBuildSelect(b, pos, one, LLVMBuildSelect(b, neg, LLVMConstReal(t, -1), zero, ""), "");
      return LLVMBuildSelect(b, nan, x, r, "");
    }
    case RT_OP_FLOOR: return rt_jit_intrinsic(L, "llvm.floor", x, NULL, NULL);
    case RT_OP_CEIL: return rt_jit_intrinsic(L, "llvm.ceil", x, NULL, NULL);
    case RT_OP_ROUND: return rt_jit_intrinsic(L, "llvm.roundeven", x, NULL, NULL);
    case RT_OP_TRUNC: return rt_jit_intrinsic(L, "llvm.trunc", x, NULL, NULL);
    case RT_OP_EXP: return rt_jit_intrinsic(L, "llvm.exp", x, NULL, NULL);
    case RT_OP_LOG: return rt_jit_intrinsic(L, "llvm.log", x, NULL, NULL);
    case RT_OP_LOG2: return rt_jit_intrinsic(L, "llvm.log2", x, NULL, NULL);
    case RT_OP_LOG10: return rt_jit_intrinsic(L, "llvm.log10", x, NULL, NULL);
    case RT_OP_SQRT: return rt_jit_intrinsic(L, "llvm.sqrt", x, NULL, NULL);
    case RT_OP_RSQRT:
      return LLVMBuildFDiv(b, one, rt_jit_intrinsic(L, "llvm.sqrt", x, NULL, NULL), "");
    case RT_OP_SIGMOID: {
      LLVMValueRef e = rt_jit_intrinsic(L, "llvm.exp", LLVMBuildFNeg(b, x, ""), NULL, NULL);
      return LLVMBuildFDiv(b, one, LLVMBuildFAdd(b, one, e, ""), "");
    }
    case RT_OP_TANH: return rt_jit_libm(L, "tanh", x, NULL);
    case RT_OP_ERF: return rt_jit_libm(L, "erf", x, NULL);
    case RT_OP_SIN: return rt_jit_intrinsic(L, "llvm.sin", x, NULL, NULL);
    case RT_OP_COS: return rt_jit_intrinsic(L, "llvm.cos", x, NULL, NULL);
    case RT_OP_TAN: return rt_jit_libm(L, "tan", x, NULL);
    case RT_OP_ASIN: return rt_jit_libm(L, "asin", x, NULL);
    case RT_OP_ACOS: return rt_jit_libm(L, "acos", x, NULL);
    case RT_OP_ATAN: return rt_jit_libm(L, "atan", x, NULL);
    case RT_OP_SINH: return rt_jit_libm(L, "sinh", x, NULL);
    case RT_OP_COSH: return rt_jit_libm(L, "cosh", x, NULL);
    case RT_OP_ASINH: return rt_jit_libm(L, "asinh", x, NULL);
    case RT_OP_ACOSH: return rt_jit_libm(L, "acosh", x, NULL);
    case RT_OP_ATANH: return rt_jit_libm(L, "atanh", x, NULL);
    case RT_OP_LOGICAL_NOT:
      return LLVMBuildUIToFP(b, LLVMBuildFCmp(b, LLVMRealOEQ, x, zero, ""), t, "");
    case RT_OP_NN_RELU:
      return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, x, zero, ""), zero, x, "");
    default: return x; /* COPY */
  }
}

/* Integer forms; NULL when the op computes in double for integers. */
static LLVMValueRef unary_int(rt_jit_lower_t *L, int32_t id, LLVMValueRef x, rt_dtype_t d) {
  LLVMBuilderRef b = L->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef zero = LLVMConstNull(t);
  const bool sgn = rt_jit_is_signed(d);
  switch (id) {
    case RT_OP_NEGATIVE: return LLVMBuildSub(b, zero, x, "");
    case RT_OP_ABS:
      if (!sgn) return x;
      return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, zero, ""),
                             LLVMBuildSub(b, zero, x, ""), x, "");
    case RT_OP_SIGN:
      if (!sgn) return LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntNE, x, zero, ""), t, "");
      return LLVMBuildSelect(
          b, LLVMBuildICmp(b, LLVMIntSGT, x, zero, ""), LLVMConstInt(t, 1, 0),
          LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, zero, ""), LLVMConstAllOnes(t), zero, ""),
          "");
    case RT_OP_FLOOR:
    case RT_OP_CEIL:
    case RT_OP_ROUND:
    case RT_OP_TRUNC:
    case RT_OP_COPY: return x;
    case RT_OP_NN_RELU:
      if (!sgn) return x;
      return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, zero, ""), zero, x, "");
    case RT_OP_LOGICAL_NOT:
      return LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, x, zero, ""), t, "");
    case RT_OP_BITWISE_NOT:
      if (rt_jit_is_bool(d)) return LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, x, zero, ""), t, "");
      return LLVMBuildNot(b, x, "");
    default: return NULL;
  }
}

RT_JIT_ELEM_FN(rt_jit_elem_unary) {
  const rt_ir_expr_t *a = call->call.args[0];
  const rt_dtype_t d = dtype_of(L, a);
  const int32_t id = op_id(call);
  if (rt_jit_is_float(d) && id == RT_OP_BITWISE_NOT) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: needs an integer or bool input, got a float",
                     call->call.callee->op.op->name);
  }
  LLVMValueRef x;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, a, idx, &x));
  if (rt_jit_is_float(d)) {
    *out_value = unary_float(L, id, x);
    return RT_OK;
  }
  LLVMValueRef r = unary_int(L, id, x, d);
  if (!r) {
    LLVMValueRef xf = rt_jit_convert(L, x, d, kF64);
    r = rt_jit_convert(L, unary_float(L, id, xf), kF64, d);
  }
  *out_value = r;
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_classify) {
  const rt_ir_expr_t *a = call->call.args[0];
  const rt_dtype_t d = dtype_of(L, a);
  const int32_t id = op_id(call);
  LLVMValueRef r;
  if (!rt_jit_is_float(d)) {
    r = LLVMConstInt(L->i1, id == RT_OP_ISFINITE, 0);
  } else {
    LLVMValueRef x;
    RT_RETURN_IF_ERROR(rt_jit_elem(L, a, idx, &x));
    LLVMValueRef inf = LLVMConstReal(LLVMTypeOf(x), INFINITY);
    LLVMValueRef ax = rt_jit_intrinsic(L, "llvm.fabs", x, NULL, NULL);
    switch (id) {
      case RT_OP_ISNAN: r = LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, ""); break;
      case RT_OP_ISINF: r = LLVMBuildFCmp(L->b, LLVMRealOEQ, ax, inf, ""); break;
      default: r = LLVMBuildFCmp(L->b, LLVMRealOLT, ax, inf, ""); break;
    }
  }
  *out_value = LLVMBuildZExt(L->b, r, L->i8, "");
  return RT_OK;
}

/* Computes f(x) in the float domain: floats in their own type, integers in
 * double with a saturating store (the reference's load_f/store_f). */
typedef LLVMValueRef (*float_fn)(rt_jit_lower_t *L, LLVMValueRef x, const rt_ir_expr_t *call,
                                 LLVMValueRef extra);

static rt_status_t in_float_domain(rt_jit_lower_t *L, const rt_ir_expr_t *call,
                                   const LLVMValueRef *idx, float_fn f, LLVMValueRef extra,
                                   rt_dtype_t extra_dtype, LLVMValueRef *out) {
  const rt_ir_expr_t *a = call->call.args[0];
  const rt_dtype_t d = dtype_of(L, a);
  LLVMValueRef x;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, a, idx, &x));
  rt_dtype_t fd = rt_jit_is_float(d) ? d : kF64;
  if (!rt_jit_is_float(d)) x = rt_jit_convert(L, x, d, kF64);
  if (extra) extra = rt_jit_convert(L, extra, extra_dtype, fd);
  LLVMValueRef r = f(L, x, call, extra);
  *out = rt_jit_is_float(d) ? r : rt_jit_convert(L, r, kF64, d);
  return RT_OK;
}

static LLVMValueRef leaky(rt_jit_lower_t *L, LLVMValueRef x, const rt_ir_expr_t *call,
                          LLVMValueRef extra) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef alpha = LLVMConstReal(t, rt_attrs_float(call->call.attrs, "alpha"));
  LLVMValueRef pos = LLVMBuildFCmp(L->b, LLVMRealOGT, x, LLVMConstReal(t, 0), "");
  return LLVMBuildSelect(L->b, pos, x, LLVMBuildFMul(L->b, alpha, x, ""), "");
}

RT_JIT_ELEM_FN(rt_jit_elem_leaky_relu) {
  return in_float_domain(L, call, idx, leaky, NULL, kF64, out_value);
}

/* Saturating double -> int as the reference's store_f. */
static int64_t sat_const(double v, rt_dtype_t d) {
  if (isnan(v)) return 0;
  if (rt_jit_is_bool(d)) return v != 0;
  if (!rt_jit_is_signed(d)) {
    if (v <= 0) return 0;
    double hi = d.bits == 64 ? 18446744073709551615.0 : (double)((UINT64_C(1) << d.bits) - 1);
    if (v >= hi) return (int64_t)(d.bits == 64 ? UINT64_MAX : (UINT64_C(1) << d.bits) - 1);
    return (int64_t)(uint64_t)v;
  }
  double lim = d.bits == 64 ? 9223372036854775808.0 : (double)(INT64_C(1) << (d.bits - 1));
  if (v >= lim) return d.bits == 64 ? INT64_MAX : (INT64_C(1) << (d.bits - 1)) - 1;
  if (v <= -lim) return d.bits == 64 ? INT64_MIN : -(INT64_C(1) << (d.bits - 1));
  return (int64_t)v;
}

RT_JIT_ELEM_FN(rt_jit_elem_clip) {
  const rt_ir_expr_t *a = call->call.args[0];
  const rt_dtype_t d = dtype_of(L, a);
  const double lo = rt_attrs_float(call->call.attrs, "a_min");
  const double hi = rt_attrs_float(call->call.attrs, "a_max");
  LLVMValueRef x;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, a, idx, &x));
  /* Compare in double, as the reference: v < lo ? lo : v > hi ? hi : v. */
  LLVMValueRef xd = rt_jit_convert(L, x, d, kF64);
  LLVMValueRef below = LLVMBuildFCmp(L->b, LLVMRealOLT, xd, LLVMConstReal(L->f64, lo), "");
  LLVMValueRef above = LLVMBuildFCmp(L->b, LLVMRealOGT, xd, LLVMConstReal(L->f64, hi), "");
  LLVMValueRef clo, chi;
  if (rt_jit_is_float(d)) {
    clo = LLVMConstReal(rt_jit_type(L, d), lo);
    chi = LLVMConstReal(rt_jit_type(L, d), hi);
  } else {
    clo = rt_jit_const_i(L, d, sat_const(lo, d));
    chi = rt_jit_const_i(L, d, sat_const(hi, d));
  }
  *out_value = LLVMBuildSelect(L->b, below, clo, LLVMBuildSelect(L->b, above, chi, x, ""), "");
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_cast) {
  const rt_ir_expr_t *a = call->call.args[0];
  LLVMValueRef x;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, a, idx, &x));
  *out_value = rt_jit_convert(L, x, dtype_of(L, a), dtype_of(L, call));
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_fill_like) {
  const rt_dtype_t d = dtype_of(L, call);
  switch (op_id(call)) {
    case RT_OP_ZEROS_LIKE: *out_value = rt_jit_const_i(L, d, 0); return RT_OK;
    case RT_OP_ONES_LIKE: *out_value = rt_jit_const_i(L, d, 1); return RT_OK;
    default: break;
  }
  const rt_ir_expr_t *fill = call->call.args[1];
  rt_jit_node_t *fn = rt_jit_node(L, fill);
  LLVMValueRef zeros[RT_TENSOR_MAX_RANK];
  for (int32_t k = 0; k < fn->rank; ++k) {
    if (!LLVMIsConstant(fn->dims[k]) || LLVMConstIntGetZExtValue(fn->dims[k]) != 1) {
      return RT_JIT_UNIMPLEMENTED(call, "%s", "fill_value must have one element");
    }
    zeros[k] = rt_jit_i64(L, 0);
  }
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, fill, zeros, &v));
  *out_value = rt_jit_convert(L, v, fn->dtype, d);
  return RT_OK;
}

/* ---- binary ------------------------------------------------------------- */

static bool is_bitwise(int32_t id) {
  return id == RT_OP_BITWISE_AND || id == RT_OP_BITWISE_OR || id == RT_OP_BITWISE_XOR ||
         id == RT_OP_LEFT_SHIFT || id == RT_OP_RIGHT_SHIFT;
}

static LLVMValueRef binary_float(rt_jit_lower_t *L, int32_t id, LLVMValueRef a, LLVMValueRef b,
                                 rt_dtype_t d) {
  LLVMBuilderRef B = L->b;
  LLVMTypeRef t = LLVMTypeOf(a);
  switch (id) {
    case RT_OP_ADD: return LLVMBuildFAdd(B, a, b, "");
    case RT_OP_SUBTRACT: return LLVMBuildFSub(B, a, b, "");
    case RT_OP_MULTIPLY: return LLVMBuildFMul(B, a, b, "");
    case RT_OP_DIVIDE: return LLVMBuildFDiv(B, a, b, "");
    case RT_OP_POWER: return rt_jit_libm(L, "pow", a, b);
    case RT_OP_MAXIMUM:
    case RT_OP_MINIMUM: {
      LLVMValueRef nan = LLVMBuildFCmp(B, LLVMRealUNO, a, b, "");
      LLVMValueRef gt = LLVMBuildFCmp(B, id == RT_OP_MAXIMUM ? LLVMRealOGT : LLVMRealOLT, a, b, "");
      return LLVMBuildSelect(B, nan, LLVMConstReal(t, NAN), LLVMBuildSelect(B, gt, a, b, ""), "");
    }
    case RT_OP_MOD:
    case RT_OP_TRUNC_MOD: return LLVMBuildFRem(B, a, b, "");
    case RT_OP_FLOOR_DIVIDE:
      return rt_jit_intrinsic(L, "llvm.floor", LLVMBuildFDiv(B, a, b, ""), NULL, NULL);
    case RT_OP_FLOOR_MOD: {
      LLVMValueRef q = rt_jit_intrinsic(L, "llvm.floor", LLVMBuildFDiv(B, a, b, ""), NULL, NULL);
      return LLVMBuildFSub(B, a, LLVMBuildFMul(B, q, b, ""), "");
    }
    case RT_OP_TRUNC_DIVIDE:
      return rt_jit_intrinsic(L, "llvm.trunc", LLVMBuildFDiv(B, a, b, ""), NULL, NULL);
    case RT_OP_LOGICAL_AND:
      return rt_jit_from_bool(L, LLVMBuildAnd(B, rt_jit_truthy(L, a, d), rt_jit_truthy(L, b, d), ""), d);
    case RT_OP_LOGICAL_OR:
      return rt_jit_from_bool(L, LLVMBuildOr(B, rt_jit_truthy(L, a, d), rt_jit_truthy(L, b, d), ""), d);
    case RT_OP_LOGICAL_XOR:
      return rt_jit_from_bool(L, LLVMBuildXor(B, rt_jit_truthy(L, a, d), rt_jit_truthy(L, b, d), ""), d);
    case RT_OP_EQUAL: return LLVMBuildFCmp(B, LLVMRealOEQ, a, b, "");
    case RT_OP_NOT_EQUAL: return LLVMBuildFCmp(B, LLVMRealUNE, a, b, "");
    case RT_OP_LESS: return LLVMBuildFCmp(B, LLVMRealOLT, a, b, "");
    case RT_OP_LESS_EQUAL: return LLVMBuildFCmp(B, LLVMRealOLE, a, b, "");
    case RT_OP_GREATER: return LLVMBuildFCmp(B, LLVMRealOGT, a, b, "");
    default: return LLVMBuildFCmp(B, LLVMRealOGE, a, b, ""); /* GREATER_EQUAL */
  }
}

/* Integer power by squaring in a private helper per width (wrapping); a
 * negative signed exponent gives 1, +-1 or 0 as the reference. */
static LLVMValueRef ipow(rt_jit_lower_t *L, LLVMValueRef a, LLVMValueRef b, bool uns) {
  LLVMTypeRef t = LLVMTypeOf(a);
  char name[48];
  snprintf(name, sizeof name, "rt.ipow.%s%u", uns ? "u" : "s", LLVMGetIntTypeWidth(t));
  LLVMTypeRef params[2] = {t, t};
  LLVMTypeRef fty = LLVMFunctionType(t, params, 2, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(L->m, name);
  if (!fn) {
    fn = LLVMAddFunction(L->m, name, fty);
    LLVMSetLinkage(fn, LLVMPrivateLinkage);
    LLVMBuilderRef B = LLVMCreateBuilderInContext(L->c);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(L->c, fn, "entry");
    LLVMBasicBlockRef neg = LLVMAppendBasicBlockInContext(L->c, fn, "neg");
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(L->c, fn, "loop");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->c, fn, "done");
    LLVMValueRef x = LLVMGetParam(fn, 0), e = LLVMGetParam(fn, 1);
    LLVMValueRef zero = LLVMConstNull(t), one = LLVMConstInt(t, 1, 0);
    LLVMPositionBuilderAtEnd(B, entry);
    LLVMValueRef isneg = uns ? LLVMConstInt(L->i1, 0, 0) : LLVMBuildICmp(B, LLVMIntSLT, e, zero, "");
    LLVMBuildCondBr(B, isneg, neg, loop);
    LLVMPositionBuilderAtEnd(B, neg);
    LLVMValueRef odd = LLVMBuildICmp(B, LLVMIntNE, LLVMBuildAnd(B, e, one, ""), zero, "");
    LLVMValueRef m1 = LLVMBuildSelect(B, odd, LLVMConstAllOnes(t), one, "");
    LLVMValueRef r = LLVMBuildSelect(
        B, LLVMBuildICmp(B, LLVMIntEQ, x, one, ""), one,
        LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, x, LLVMConstAllOnes(t), ""), m1, zero, ""), "");
    LLVMBuildRet(B, r);
    LLVMPositionBuilderAtEnd(B, loop);
    LLVMValueRef pe = LLVMBuildPhi(B, t, "e"), pb = LLVMBuildPhi(B, t, "b"), pr = LLVMBuildPhi(B, t, "r");
    LLVMValueRef odd2 = LLVMBuildICmp(B, LLVMIntNE, LLVMBuildAnd(B, pe, one, ""), zero, "");
    LLVMValueRef nr = LLVMBuildSelect(B, odd2, LLVMBuildMul(B, pr, pb, ""), pr, "");
    LLVMValueRef nb = LLVMBuildMul(B, pb, pb, "");
    LLVMValueRef ne = LLVMBuildLShr(B, pe, one, "");
    LLVMValueRef go = LLVMBuildICmp(B, LLVMIntNE, pe, zero, "");
    LLVMBuildCondBr(B, go, loop, done);
    /* The phis see the pre-step values: the loop runs while pe != 0 and
     * the result is taken before the step when pe == 0. */
    LLVMValueRef ie[2] = {e, ne}, ib[2] = {x, nb}, ir[2] = {one, nr};
    LLVMBasicBlockRef from[2] = {entry, loop};
    LLVMAddIncoming(pe, ie, from, 2);
    LLVMAddIncoming(pb, ib, from, 2);
    LLVMAddIncoming(pr, ir, from, 2);
    LLVMPositionBuilderAtEnd(B, done);
    LLVMBuildRet(B, pr);
    LLVMDisposeBuilder(B);
  }
  LLVMValueRef args[2] = {a, b};
  return LLVMBuildCall2(L->b, fty, fn, args, 2, "");
}

static LLVMValueRef binary_int(rt_jit_lower_t *L, const rt_ir_expr_t *call, int32_t id,
                               LLVMValueRef a, LLVMValueRef b, rt_dtype_t d) {
  LLVMBuilderRef B = L->b;
  LLVMTypeRef t = LLVMTypeOf(a);
  const bool uns = !rt_jit_is_signed(d);
  LLVMValueRef zero = LLVMConstNull(t), one = LLVMConstInt(t, 1, 0);
  const unsigned bits = LLVMGetIntTypeWidth(t);
  switch (id) {
    case RT_OP_ADD: return LLVMBuildAdd(B, a, b, "");
    case RT_OP_SUBTRACT: return LLVMBuildSub(B, a, b, "");
    case RT_OP_MULTIPLY: return LLVMBuildMul(B, a, b, "");
    case RT_OP_POWER: return ipow(L, a, b, uns);
    case RT_OP_MAXIMUM:
      return LLVMBuildSelect(B, LLVMBuildICmp(B, uns ? LLVMIntULT : LLVMIntSLT, a, b, ""), b, a, "");
    case RT_OP_MINIMUM:
      return LLVMBuildSelect(B, LLVMBuildICmp(B, uns ? LLVMIntULT : LLVMIntSLT, b, a, ""), b, a, "");
    case RT_OP_DIVIDE:
    case RT_OP_TRUNC_DIVIDE:
    case RT_OP_FLOOR_DIVIDE:
    case RT_OP_MOD:
    case RT_OP_TRUNC_MOD:
    case RT_OP_FLOOR_MOD: {
      const bool is_mod = id == RT_OP_MOD || id == RT_OP_TRUNC_MOD || id == RT_OP_FLOOR_MOD;
      LLVMValueRef b0 = LLVMBuildICmp(B, LLVMIntEQ, b, zero, "");
      char msg[96];
      snprintf(msg, sizeof msg, "%s: integer division by zero", call->call.callee->op.op->name);
      rt_jit_flag_error(L, b0, msg);
      if (uns) {
        LLVMValueRef bs = LLVMBuildSelect(B, b0, one, b, "");
        return is_mod ? LLVMBuildURem(B, a, bs, "") : LLVMBuildUDiv(B, a, bs, "");
      }
      LLVMValueRef bm1 = LLVMBuildICmp(B, LLVMIntEQ, b, LLVMConstAllOnes(t), "");
      LLVMValueRef bs = LLVMBuildSelect(B, LLVMBuildOr(B, b0, bm1, ""), one, b, "");
      LLVMValueRef q = LLVMBuildSDiv(B, a, bs, ""), r = LLVMBuildSRem(B, a, bs, "");
      q = LLVMBuildSelect(B, bm1, LLVMBuildSub(B, zero, a, ""), q, "");
      r = LLVMBuildSelect(B, bm1, zero, r, "");
      LLVMValueRef adj = LLVMBuildAnd(
          B, LLVMBuildICmp(B, LLVMIntNE, r, zero, ""),
          LLVMBuildICmp(B, LLVMIntNE, LLVMBuildICmp(B, LLVMIntSLT, r, zero, ""),
                        LLVMBuildICmp(B, LLVMIntSLT, b, zero, ""), ""), "");
      if (id == RT_OP_FLOOR_DIVIDE) return LLVMBuildSelect(B, adj, LLVMBuildSub(B, q, one, ""), q, "");
      if (id == RT_OP_FLOOR_MOD) return LLVMBuildSelect(B, adj, LLVMBuildAdd(B, r, b, ""), r, "");
      return is_mod ? r : q;
    }
    case RT_OP_LOGICAL_AND:
      return rt_jit_from_bool(L, LLVMBuildAnd(B, rt_jit_truthy(L, a, d), rt_jit_truthy(L, b, d), ""), d);
    case RT_OP_LOGICAL_OR:
      return rt_jit_from_bool(L, LLVMBuildOr(B, rt_jit_truthy(L, a, d), rt_jit_truthy(L, b, d), ""), d);
    case RT_OP_LOGICAL_XOR:
      return rt_jit_from_bool(L, LLVMBuildXor(B, rt_jit_truthy(L, a, d), rt_jit_truthy(L, b, d), ""), d);
    case RT_OP_BITWISE_AND: return LLVMBuildAnd(B, a, b, "");
    case RT_OP_BITWISE_OR: return LLVMBuildOr(B, a, b, "");
    case RT_OP_BITWISE_XOR: return LLVMBuildXor(B, a, b, "");
    case RT_OP_LEFT_SHIFT:
    case RT_OP_RIGHT_SHIFT: {
      LLVMValueRef nb = LLVMConstInt(t, bits, 0);
      LLVMValueRef bad = LLVMBuildICmp(B, LLVMIntUGE, b, nb, ""); /* negatives too */
      LLVMValueRef amt = LLVMBuildSelect(B, bad, zero, b, "");
      if (id == RT_OP_LEFT_SHIFT) return LLVMBuildSelect(B, bad, zero, LLVMBuildShl(B, a, amt, ""), "");
      if (uns) return LLVMBuildSelect(B, bad, zero, LLVMBuildLShr(B, a, amt, ""), "");
      LLVMValueRef fill = LLVMBuildAShr(B, a, LLVMConstInt(t, bits - 1, 0), "");
      return LLVMBuildSelect(B, bad, fill, LLVMBuildAShr(B, a, amt, ""), "");
    }
    case RT_OP_EQUAL: return LLVMBuildICmp(B, LLVMIntEQ, a, b, "");
    case RT_OP_NOT_EQUAL: return LLVMBuildICmp(B, LLVMIntNE, a, b, "");
    case RT_OP_LESS: return LLVMBuildICmp(B, uns ? LLVMIntULT : LLVMIntSLT, a, b, "");
    case RT_OP_LESS_EQUAL: return LLVMBuildICmp(B, uns ? LLVMIntULE : LLVMIntSLE, a, b, "");
    case RT_OP_GREATER: return LLVMBuildICmp(B, uns ? LLVMIntUGT : LLVMIntSGT, a, b, "");
    default: return LLVMBuildICmp(B, uns ? LLVMIntUGE : LLVMIntSGE, a, b, "");
  }
}

RT_JIT_ELEM_FN(rt_jit_elem_binary) {
  const int32_t id = op_id(call);
  const rt_ir_expr_t *ea = call->call.args[0], *eb = call->call.args[1];
  const rt_dtype_t d = dtype_of(L, ea);
  if (!rt_dtype_equal(d, dtype_of(L, eb))) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "operands of different dtypes");
  }
  if (rt_jit_is_float(d) && is_bitwise(id)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: needs integer or bool inputs, got floats",
                     call->call.callee->op.op->name);
  }
  const int32_t rank = rt_jit_node(L, call)->rank;
  LLVMValueRef a, b;
  RT_RETURN_IF_ERROR(rt_jit_bcast_elem(L, ea, rank, idx, &a));
  RT_RETURN_IF_ERROR(rt_jit_bcast_elem(L, eb, rank, idx, &b));
  LLVMValueRef r = rt_jit_is_float(d) ? binary_float(L, id, a, b, d) : binary_int(L, call, id, a, b, d);
  if (LLVMTypeOf(r) == L->i1) r = LLVMBuildZExt(L->b, r, rt_jit_type(L, dtype_of(L, call)), "");
  *out_value = r;
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_where) {
  const int32_t rank = rt_jit_node(L, call)->rank;
  const rt_ir_expr_t *c = call->call.args[0];
  LLVMValueRef cv, x, y;
  RT_RETURN_IF_ERROR(rt_jit_bcast_elem(L, c, rank, idx, &cv));
  RT_RETURN_IF_ERROR(rt_jit_bcast_elem(L, call->call.args[1], rank, idx, &x));
  RT_RETURN_IF_ERROR(rt_jit_bcast_elem(L, call->call.args[2], rank, idx, &y));
  if (LLVMTypeOf(x) != LLVMTypeOf(y)) return RT_JIT_UNIMPLEMENTED(call, "%s", "x and y differ in dtype");
  *out_value = LLVMBuildSelect(L->b, rt_jit_truthy(L, cv, dtype_of(L, c)), x, y, "");
  return RT_OK;
}

/* The element of the per-channel vector v for output index idx (channel =
 * idx[axis]); checks v's length against the axis in the shape phase is
 * left to the type relation (static) or the elem below (clamped). */
static rt_status_t channel_elem(rt_jit_lower_t *L, const rt_ir_expr_t *call,
                                const LLVMValueRef *idx, LLVMValueRef *out) {
  rt_jit_node_t *x = rt_jit_node(L, call->call.args[0]);
  rt_jit_node_t *v = rt_jit_node(L, call->call.args[1]);
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_jit_axis(call, rt_attrs_int(call->call.attrs, "axis"), x->rank, &axis));
  if (v->rank != 1) return RT_JIT_UNIMPLEMENTED(call, "%s", "the second input must be 1-d");
  if (!LLVMIsConstant(v->dims[0]) || !LLVMIsConstant(x->dims[axis]) ||
      LLVMConstIntGetZExtValue(v->dims[0]) != LLVMConstIntGetZExtValue(x->dims[axis])) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "the channel count must be static and match");
  }
  LLVMValueRef c = idx[axis];
  return rt_jit_elem(L, call->call.args[1], &c, out);
}

static LLVMValueRef prelu_f(rt_jit_lower_t *L, LLVMValueRef x, const rt_ir_expr_t *call,
                            LLVMValueRef alpha) {
  LLVMValueRef pos = LLVMBuildFCmp(L->b, LLVMRealOGT, x, LLVMConstReal(LLVMTypeOf(x), 0), "");
  return LLVMBuildSelect(L->b, pos, x, LLVMBuildFMul(L->b, alpha, x, ""), "");
}

RT_JIT_ELEM_FN(rt_jit_elem_prelu) {
  LLVMValueRef alpha;
  RT_RETURN_IF_ERROR(channel_elem(L, call, idx, &alpha));
  return in_float_domain(L, call, idx, prelu_f, alpha, dtype_of(L, call->call.args[1]), out_value);
}

RT_JIT_ELEM_FN(rt_jit_elem_bias_add) {
  LLVMValueRef bias, x;
  RT_RETURN_IF_ERROR(channel_elem(L, call, idx, &bias));
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], idx, &x));
  const rt_dtype_t d = dtype_of(L, call->call.args[0]);
  if (!rt_dtype_equal(d, dtype_of(L, call->call.args[1]))) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "bias of another dtype");
  }
  *out_value = rt_jit_is_float(d) ? LLVMBuildFAdd(L->b, x, bias, "") : LLVMBuildAdd(L->b, x, bias, "");
  return RT_OK;
}
