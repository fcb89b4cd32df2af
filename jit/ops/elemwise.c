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

#include "ir/op/op_attrs.h"
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

/* ---- emitters of the plain elementwise ops ----------------------------------
 *
 * One function per op and domain (ir/ops.def's RT_UNARY / RT_BINARY rows
 * and their `domain` column), the LLVM side of interp/kernels/elemwise.c's
 * scalar forms: uf_<ID> emits a float element in the value's own float
 * type, ui_<ID> an integer or bool element (d: its dtype); bf_<ID> /
 * bi_<ID> the same for binary ops. The tables below are generated from
 * ops.def, so a row without its emitters does not compile. */

#define UNARY_F(ID) \
  static LLVMValueRef uf_##ID(rt_jit_lower_t *L, LLVMValueRef x, const rt_attrs_any_t *at)
#define UNARY_I(ID) static LLVMValueRef ui_##ID(rt_jit_lower_t *L, LLVMValueRef x, rt_dtype_t d)

static LLVMValueRef fconst(LLVMValueRef like, double v) { return LLVMConstReal(LLVMTypeOf(like), v); }
static LLVMValueRef call1(rt_jit_lower_t *L, const char *intrinsic, LLVMValueRef x) {
  return rt_jit_intrinsic(L, intrinsic, x, NULL, NULL);
}

UNARY_F(NEGATIVE) { return LLVMBuildFNeg(L->b, x, ""); }
UNARY_F(ABS) { return call1(L, "llvm.fabs", x); }
UNARY_F(SIGN) {
  LLVMBuilderRef b = L->b;
  LLVMValueRef zero = fconst(x, 0);
  LLVMValueRef pos = LLVMBuildFCmp(b, LLVMRealOGT, x, zero, "");
  LLVMValueRef neg = LLVMBuildFCmp(b, LLVMRealOLT, x, zero, "");
  LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
  LLVMValueRef r = LLVMBuildSelect(b, pos, fconst(x, 1), LLVMBuildSelect(b, neg, fconst(x, -1), zero, ""), "");
  return LLVMBuildSelect(b, nan, x, r, "");
}
UNARY_F(FLOOR) { return call1(L, "llvm.floor", x); }
UNARY_F(CEIL) { return call1(L, "llvm.ceil", x); }
UNARY_F(ROUND) { return call1(L, "llvm.roundeven", x); }
UNARY_F(TRUNC) { return call1(L, "llvm.trunc", x); }
UNARY_F(EXP) { return rt_jit_exp(L, x); }
UNARY_F(LOG) { return call1(L, "llvm.log", x); }
UNARY_F(LOG2) { return call1(L, "llvm.log2", x); }
UNARY_F(LOG10) { return call1(L, "llvm.log10", x); }
UNARY_F(SQRT) { return call1(L, "llvm.sqrt", x); }
UNARY_F(RSQRT) { return LLVMBuildFDiv(L->b, fconst(x, 1), call1(L, "llvm.sqrt", x), ""); }
/* float32: 0.5 + 0.5 tanh(x / 2) with the rational tanh (about half the
 * work of exp and a division). Its absolute error is under 2e-7, so where
 * the value itself is that small (x below about -15) few of its digits
 * are right (ONNX Runtime's logistic is alike). Other types 1/(1+e^-x). */
UNARY_F(SIGMOID) {
  if (LLVMTypeOf(x) == L->f32) return rt_jit_sigmoid_f32(L, x);
  LLVMValueRef e = rt_jit_exp(L, LLVMBuildFNeg(L->b, x, ""));
  return LLVMBuildFDiv(L->b, fconst(x, 1), LLVMBuildFAdd(L->b, fconst(x, 1), e, ""), "");
}
UNARY_F(TANH) { return rt_jit_tanh(L, x); }
UNARY_F(ERF) { return rt_jit_erf(L, x); }
UNARY_F(SIN) { return call1(L, "llvm.sin", x); }
UNARY_F(COS) { return call1(L, "llvm.cos", x); }
UNARY_F(TAN) { return rt_jit_libm(L, "tan", x, NULL); }
UNARY_F(ASIN) { return rt_jit_libm(L, "asin", x, NULL); }
UNARY_F(ACOS) { return rt_jit_libm(L, "acos", x, NULL); }
UNARY_F(ATAN) { return rt_jit_libm(L, "atan", x, NULL); }
UNARY_F(SINH) { return rt_jit_libm(L, "sinh", x, NULL); }
UNARY_F(COSH) { return rt_jit_libm(L, "cosh", x, NULL); }
UNARY_F(ASINH) { return rt_jit_libm(L, "asinh", x, NULL); }
UNARY_F(ACOSH) { return rt_jit_libm(L, "acosh", x, NULL); }
UNARY_F(ATANH) { return rt_jit_libm(L, "atanh", x, NULL); }
UNARY_F(LOGICAL_NOT) {
  return LLVMBuildUIToFP(L->b, LLVMBuildFCmp(L->b, LLVMRealOEQ, x, fconst(x, 0), ""), LLVMTypeOf(x), "");
}
UNARY_F(COPY) { return x; }
UNARY_F(NN_RELU) {
  return LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, LLVMRealOLT, x, fconst(x, 0), ""), fconst(x, 0), x, "");
}
UNARY_F(NN_LEAKY_RELU) {
  LLVMValueRef pos = LLVMBuildFCmp(L->b, LLVMRealOGT, x, fconst(x, 0), "");
  return LLVMBuildSelect(L->b, pos, x, LLVMBuildFMul(L->b, fconst(x, at->leaky_relu.alpha), x, ""), "");
}

UNARY_F(NN_THRESHOLDED_RELU) {
  LLVMValueRef above = LLVMBuildFCmp(L->b, LLVMRealOGT, x, fconst(x, at->thresholded_relu.alpha), "");
  return LLVMBuildSelect(L->b, above, x, fconst(x, 0), "");
}
UNARY_F(NN_SHRINK) {
  const double lambd = at->shrink.lambd, bias = at->shrink.bias;
  LLVMValueRef below = LLVMBuildFCmp(L->b, LLVMRealOLT, x, fconst(x, -lambd), "");
  LLVMValueRef above = LLVMBuildFCmp(L->b, LLVMRealOGT, x, fconst(x, lambd), "");
  LLVMValueRef up = LLVMBuildFAdd(L->b, x, fconst(x, bias), "");
  LLVMValueRef down = LLVMBuildFSub(L->b, x, fconst(x, bias), "");
  return LLVMBuildSelect(L->b, below, up, LLVMBuildSelect(L->b, above, down, fconst(x, 0), ""), "");
}

UNARY_I(NEGATIVE) { return LLVMBuildSub(L->b, LLVMConstNull(LLVMTypeOf(x)), x, ""); }
UNARY_I(ABS) {
  if (!rt_jit_is_signed(d)) return x;
  LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(x));
  return LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, x, zero, ""),
                         LLVMBuildSub(L->b, zero, x, ""), x, "");
}
UNARY_I(SIGN) {
  LLVMBuilderRef b = L->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef zero = LLVMConstNull(t);
  if (!rt_jit_is_signed(d)) return LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntNE, x, zero, ""), t, "");
  return LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntSGT, x, zero, ""), LLVMConstInt(t, 1, 0),
      LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, zero, ""), LLVMConstAllOnes(t), zero, ""), "");
}
UNARY_I(FLOOR) { return x; }
UNARY_I(CEIL) { return x; }
UNARY_I(ROUND) { return x; }
UNARY_I(TRUNC) { return x; }
UNARY_I(COPY) { return x; }
UNARY_I(NN_RELU) {
  if (!rt_jit_is_signed(d)) return x;
  LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(x));
  return LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, x, zero, ""), zero, x, "");
}
UNARY_I(LOGICAL_NOT) {
  LLVMTypeRef t = LLVMTypeOf(x);
  return LLVMBuildZExt(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, x, LLVMConstNull(t), ""), t, "");
}
/* numpy: ~ of a bool is `not`. */
UNARY_I(BITWISE_NOT) {
  if (rt_jit_is_bool(d)) return ui_LOGICAL_NOT(L, x, d);
  return LLVMBuildNot(L->b, x, "");
}

typedef struct unary_forms_t {
  LLVMValueRef (*f)(rt_jit_lower_t *L, LLVMValueRef x, const rt_attrs_any_t *at);
  LLVMValueRef (*i)(rt_jit_lower_t *L, LLVMValueRef x, rt_dtype_t d);
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
 * in double converted back with saturation; floats without a float form
 * are an error. */
RT_JIT_ELEM_FN(rt_jit_elem_unary) {
  const rt_ir_expr_t *a = call->call.args[0];
  const rt_dtype_t d = dtype_of(L, a);
  const unary_forms_t *forms = &k_unary[op_id(call)];
  if (rt_jit_is_float(d) && !forms->f) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: needs an integer or bool input, got a float",
                     call->call.callee->op.op->name);
  }
  rt_attrs_any_t at;
  rt_ir_attrs_decode(call->call.callee->op.op, call->call.attrs, &at);
  LLVMValueRef x;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, a, idx, &x));
  if (rt_jit_is_float(d)) {
    *out_value = forms->f(L, x, &at);
  } else if (forms->i) {
    *out_value = forms->i(L, x, d);
  } else {
    LLVMValueRef xf = rt_jit_convert(L, x, d, kF64);
    *out_value = rt_jit_convert(L, forms->f(L, xf, &at), kF64, d);
  }
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
  const rt_attrs_clip_t clip = rt_ir_attrs_clip(call->call.attrs);
  const double lo = clip.a_min, hi = clip.a_max;
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

#define BINARY_F(ID) \
  static LLVMValueRef bf_##ID(rt_jit_lower_t *L, LLVMValueRef a, LLVMValueRef b, rt_dtype_t d)
/* call: for messages (division by zero). Comparisons may return i1. */
#define BINARY_I(ID)                                                                    \
  static LLVMValueRef bi_##ID(rt_jit_lower_t *L, const rt_ir_expr_t *call, LLVMValueRef a, \
                              LLVMValueRef b, rt_dtype_t d)

static LLVMValueRef fcmp(rt_jit_lower_t *L, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildFCmp(L->b, p, a, b, "");
}
/* logical and/or/xor of the operands' truth values, as the dtype. */
static LLVMValueRef logical(rt_jit_lower_t *L, LLVMOpcode op, LLVMValueRef a, LLVMValueRef b,
                            rt_dtype_t d) {
  LLVMValueRef r = LLVMBuildBinOp(L->b, op, rt_jit_truthy(L, a, d), rt_jit_truthy(L, b, d), "");
  return rt_jit_from_bool(L, r, d);
}
/* maximum / minimum propagating NaN. */
static LLVMValueRef fminmax(rt_jit_lower_t *L, LLVMRealPredicate keep_a, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef nan = fcmp(L, LLVMRealUNO, a, b);
  LLVMValueRef pick_a = fcmp(L, keep_a, a, b);
  return LLVMBuildSelect(L->b, nan, fconst(a, NAN), LLVMBuildSelect(L->b, pick_a, a, b, ""), "");
}

BINARY_F(ADD) { return LLVMBuildFAdd(L->b, a, b, ""); }
BINARY_F(SUBTRACT) { return LLVMBuildFSub(L->b, a, b, ""); }
BINARY_F(MULTIPLY) { return LLVMBuildFMul(L->b, a, b, ""); }
BINARY_F(DIVIDE) { return LLVMBuildFDiv(L->b, a, b, ""); }
BINARY_F(POWER) { return rt_jit_libm(L, "pow", a, b); }
BINARY_F(MAXIMUM) { return fminmax(L, LLVMRealOGT, a, b); }
BINARY_F(MINIMUM) { return fminmax(L, LLVMRealOLT, a, b); }
BINARY_F(MOD) { return LLVMBuildFRem(L->b, a, b, ""); }
BINARY_F(TRUNC_MOD) { return LLVMBuildFRem(L->b, a, b, ""); }
BINARY_F(FLOOR_DIVIDE) { return call1(L, "llvm.floor", LLVMBuildFDiv(L->b, a, b, "")); }
BINARY_F(FLOOR_MOD) {
  LLVMValueRef q = call1(L, "llvm.floor", LLVMBuildFDiv(L->b, a, b, ""));
  return LLVMBuildFSub(L->b, a, LLVMBuildFMul(L->b, q, b, ""), "");
}
BINARY_F(TRUNC_DIVIDE) { return call1(L, "llvm.trunc", LLVMBuildFDiv(L->b, a, b, "")); }
BINARY_F(LOGICAL_AND) { return logical(L, LLVMAnd, a, b, d); }
BINARY_F(LOGICAL_OR) { return logical(L, LLVMOr, a, b, d); }
BINARY_F(LOGICAL_XOR) { return logical(L, LLVMXor, a, b, d); }
BINARY_F(EQUAL) { return fcmp(L, LLVMRealOEQ, a, b); }
BINARY_F(NOT_EQUAL) { return fcmp(L, LLVMRealUNE, a, b); }
BINARY_F(LESS) { return fcmp(L, LLVMRealOLT, a, b); }
BINARY_F(LESS_EQUAL) { return fcmp(L, LLVMRealOLE, a, b); }
BINARY_F(GREATER) { return fcmp(L, LLVMRealOGT, a, b); }
BINARY_F(GREATER_EQUAL) { return fcmp(L, LLVMRealOGE, a, b); }

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


/* Integer division in its three flavours (interp/kernels/elemwise.c's
 * idiv): a zero divisor flags the kernel's error; INT_MIN / -1 wraps. */
static LLVMValueRef idiv(rt_jit_lower_t *L, const rt_ir_expr_t *call, LLVMValueRef a,
                         LLVMValueRef b, rt_dtype_t d, bool is_mod, bool floor_) {
  LLVMBuilderRef B = L->b;
  LLVMTypeRef t = LLVMTypeOf(a);
  LLVMValueRef zero = LLVMConstNull(t), one = LLVMConstInt(t, 1, 0);
  LLVMValueRef b0 = LLVMBuildICmp(B, LLVMIntEQ, b, zero, "");
  char msg[96];
  snprintf(msg, sizeof msg, "%s: integer division by zero", call->call.callee->op.op->name);
  rt_jit_flag_error(L, b0, msg);
  if (!rt_jit_is_signed(d)) {
    LLVMValueRef bs = LLVMBuildSelect(B, b0, one, b, "");
    return is_mod ? LLVMBuildURem(B, a, bs, "") : LLVMBuildUDiv(B, a, bs, "");
  }
  LLVMValueRef bm1 = LLVMBuildICmp(B, LLVMIntEQ, b, LLVMConstAllOnes(t), "");
  LLVMValueRef bs = LLVMBuildSelect(B, LLVMBuildOr(B, b0, bm1, ""), one, b, "");
  LLVMValueRef q = LLVMBuildSDiv(B, a, bs, ""), r = LLVMBuildSRem(B, a, bs, "");
  q = LLVMBuildSelect(B, bm1, LLVMBuildSub(B, zero, a, ""), q, "");
  r = LLVMBuildSelect(B, bm1, zero, r, "");
  if (!floor_) return is_mod ? r : q;
  LLVMValueRef adj = LLVMBuildAnd(
      B, LLVMBuildICmp(B, LLVMIntNE, r, zero, ""),
      LLVMBuildICmp(B, LLVMIntNE, LLVMBuildICmp(B, LLVMIntSLT, r, zero, ""),
                    LLVMBuildICmp(B, LLVMIntSLT, b, zero, ""), ""), "");
  return is_mod ? LLVMBuildSelect(B, adj, LLVMBuildAdd(B, r, b, ""), r, "")
                : LLVMBuildSelect(B, adj, LLVMBuildSub(B, q, one, ""), q, "");
}

/* Shifts by a negative amount or >= the width give 0 (left, unsigned
 * right) or the sign fill (signed right). */
static LLVMValueRef ishift(rt_jit_lower_t *L, LLVMValueRef a, LLVMValueRef b, rt_dtype_t d, bool left) {
  LLVMBuilderRef B = L->b;
  LLVMTypeRef t = LLVMTypeOf(a);
  const unsigned bits = LLVMGetIntTypeWidth(t);
  LLVMValueRef zero = LLVMConstNull(t);
  LLVMValueRef bad = LLVMBuildICmp(B, LLVMIntUGE, b, LLVMConstInt(t, bits, 0), ""); /* negatives too */
  LLVMValueRef amt = LLVMBuildSelect(B, bad, zero, b, "");
  if (left) return LLVMBuildSelect(B, bad, zero, LLVMBuildShl(B, a, amt, ""), "");
  if (!rt_jit_is_signed(d)) return LLVMBuildSelect(B, bad, zero, LLVMBuildLShr(B, a, amt, ""), "");
  LLVMValueRef fill = LLVMBuildAShr(B, a, LLVMConstInt(t, bits - 1, 0), "");
  return LLVMBuildSelect(B, bad, fill, LLVMBuildAShr(B, a, amt, ""), "");
}

static LLVMValueRef icmp(rt_jit_lower_t *L, rt_dtype_t d, LLVMIntPredicate s, LLVMIntPredicate u,
                         LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildICmp(L->b, rt_jit_is_signed(d) ? s : u, a, b, "");
}

BINARY_I(ADD) { return LLVMBuildAdd(L->b, a, b, ""); }
BINARY_I(SUBTRACT) { return LLVMBuildSub(L->b, a, b, ""); }
BINARY_I(MULTIPLY) { return LLVMBuildMul(L->b, a, b, ""); }
BINARY_I(POWER) { return ipow(L, a, b, !rt_jit_is_signed(d)); }
BINARY_I(MAXIMUM) { return LLVMBuildSelect(L->b, icmp(L, d, LLVMIntSLT, LLVMIntULT, a, b), b, a, ""); }
BINARY_I(MINIMUM) { return LLVMBuildSelect(L->b, icmp(L, d, LLVMIntSLT, LLVMIntULT, b, a), b, a, ""); }
BINARY_I(DIVIDE) { return idiv(L, call, a, b, d, false, false); }
BINARY_I(TRUNC_DIVIDE) { return idiv(L, call, a, b, d, false, false); }
BINARY_I(FLOOR_DIVIDE) { return idiv(L, call, a, b, d, false, true); }
BINARY_I(MOD) { return idiv(L, call, a, b, d, true, false); }
BINARY_I(TRUNC_MOD) { return idiv(L, call, a, b, d, true, false); }
BINARY_I(FLOOR_MOD) { return idiv(L, call, a, b, d, true, true); }
BINARY_I(LOGICAL_AND) { return logical(L, LLVMAnd, a, b, d); }
BINARY_I(LOGICAL_OR) { return logical(L, LLVMOr, a, b, d); }
BINARY_I(LOGICAL_XOR) { return logical(L, LLVMXor, a, b, d); }
BINARY_I(BITWISE_AND) { return LLVMBuildAnd(L->b, a, b, ""); }
BINARY_I(BITWISE_OR) { return LLVMBuildOr(L->b, a, b, ""); }
BINARY_I(BITWISE_XOR) { return LLVMBuildXor(L->b, a, b, ""); }
BINARY_I(LEFT_SHIFT) { return ishift(L, a, b, d, true); }
BINARY_I(RIGHT_SHIFT) { return ishift(L, a, b, d, false); }
BINARY_I(EQUAL) { return LLVMBuildICmp(L->b, LLVMIntEQ, a, b, ""); }
BINARY_I(NOT_EQUAL) { return LLVMBuildICmp(L->b, LLVMIntNE, a, b, ""); }
BINARY_I(LESS) { return icmp(L, d, LLVMIntSLT, LLVMIntULT, a, b); }
BINARY_I(LESS_EQUAL) { return icmp(L, d, LLVMIntSLE, LLVMIntULE, a, b); }
BINARY_I(GREATER) { return icmp(L, d, LLVMIntSGT, LLVMIntUGT, a, b); }
BINARY_I(GREATER_EQUAL) { return icmp(L, d, LLVMIntSGE, LLVMIntUGE, a, b); }

typedef struct binary_forms_t {
  LLVMValueRef (*f)(rt_jit_lower_t *L, LLVMValueRef a, LLVMValueRef b, rt_dtype_t d);
  LLVMValueRef (*i)(rt_jit_lower_t *L, const rt_ir_expr_t *call, LLVMValueRef a, LLVMValueRef b,
                    rt_dtype_t d);
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

RT_JIT_ELEM_FN(rt_jit_elem_binary) {
  const binary_forms_t *forms = &k_binary[op_id(call)];
  const rt_ir_expr_t *ea = call->call.args[0], *eb = call->call.args[1];
  const rt_dtype_t d = dtype_of(L, ea);
  if (!rt_dtype_equal(d, dtype_of(L, eb))) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "operands of different dtypes");
  }
  if (rt_jit_is_float(d) && !forms->f) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: needs integer or bool inputs, got floats",
                     call->call.callee->op.op->name);
  }
  const int32_t rank = rt_jit_node(L, call)->rank;
  LLVMValueRef a, b;
  RT_RETURN_IF_ERROR(rt_jit_bcast_elem(L, ea, rank, idx, &a));
  RT_RETURN_IF_ERROR(rt_jit_bcast_elem(L, eb, rank, idx, &b));
  LLVMValueRef r = rt_jit_is_float(d) ? forms->f(L, a, b, d) : forms->i(L, call, a, b, d);
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
  const int64_t attr_axis = op_id(call) == RT_OP_NN_PRELU ? rt_ir_attrs_prelu(call->call.attrs).axis
                                                           : rt_ir_attrs_bias_add(call->call.attrs).axis;
  RT_RETURN_IF_ERROR(rt_jit_axis(call, attr_axis, x->rank, &axis));
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
