/* The LLVM-building helpers every lowering shares (declared in
 * jit/lower.h): dtypes and their compute and storage types, constants,
 * conversions with cast semantics (saturating float -> int, NaN -> 0),
 * float16/bfloat16 storage, math calls (intrinsics and libm), index
 * arithmetic, and loops and ifs that keep the element memo valid (a loop or
 * if body drops the memo entries it made when it closes). The lowering
 * driver that uses them is jit/lower.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/lower.h"
#include "runtime/half.h"
#include "runtime/tensor_impl.h"

/* ---- dtypes and constants ----------------------------------------------- */

bool rt_jit_is_float(rt_dtype_t d) { return d.code == kDLFloat || d.code == kDLBfloat; }
bool rt_jit_is_signed(rt_dtype_t d) { return d.code == kDLInt; }
bool rt_jit_is_bool(rt_dtype_t d) { return d.code == kDLBool; }

LLVMTypeRef rt_jit_type(rt_jit_lower_t *L, rt_dtype_t d) {
  if (rt_jit_is_float(d)) return d.bits == 64 ? L->f64 : L->f32;
  return LLVMIntTypeInContext(L->c, d.bits);
}

/* How elements are held in memory. */
LLVMTypeRef rt_jit_storage_type(rt_jit_lower_t *L, rt_dtype_t d) {
  if (d.code == kDLFloat && d.bits == 16) return L->f16;
  if (d.code == kDLBfloat) return L->i16;
  return rt_jit_type(L, d);
}

LLVMValueRef rt_jit_i64(rt_jit_lower_t *L, int64_t v) {
  return LLVMConstInt(L->i64, (unsigned long long)v, 1);
}
LLVMValueRef rt_jit_i32(rt_jit_lower_t *L, int32_t v) {
  return LLVMConstInt(L->i32, (unsigned long long)(int64_t)v, 1);
}

LLVMValueRef rt_jit_const_f(rt_jit_lower_t *L, rt_dtype_t d, double v) {
  if (rt_jit_is_float(d)) return LLVMConstReal(rt_jit_type(L, d), v);
  return rt_jit_const_i(L, d, (int64_t)v);
}

LLVMValueRef rt_jit_const_i(rt_jit_lower_t *L, rt_dtype_t d, int64_t v) {
  if (rt_jit_is_float(d)) return LLVMConstReal(rt_jit_type(L, d), (double)v);
  if (rt_jit_is_bool(d)) v = v != 0;
  return LLVMConstInt(rt_jit_type(L, d), (unsigned long long)v, 1);
}

LLVMValueRef rt_jit_const_lowest(rt_jit_lower_t *L, rt_dtype_t d) {
  if (rt_jit_is_float(d)) return LLVMConstReal(rt_jit_type(L, d), -__builtin_inf());
  if (!rt_jit_is_signed(d)) return rt_jit_const_i(L, d, 0);
  return LLVMConstInt(rt_jit_type(L, d), UINT64_C(1) << (d.bits - 1), 0);
}

LLVMValueRef rt_jit_const_highest(rt_jit_lower_t *L, rt_dtype_t d) {
  if (rt_jit_is_float(d)) return LLVMConstReal(rt_jit_type(L, d), __builtin_inf());
  if (rt_jit_is_bool(d)) return rt_jit_const_i(L, d, 1);
  uint64_t all = d.bits == 64 ? UINT64_MAX : (UINT64_C(1) << d.bits) - 1;
  if (rt_jit_is_signed(d)) all >>= 1;
  return LLVMConstInt(rt_jit_type(L, d), all, 0);
}

bool rt_jit_scalar_constant(const rt_ir_expr_t *e, double *out) {
  if (e->kind != RT_IR_CONSTANT || e->constant.value->numel != 1) return false;
  *out = rt_tensor_get_f64(e->constant.value, 0);
  return true;
}

/* The value of element 0 of raw memory p holding dtype d, as a constant. */
LLVMValueRef rt_jit_const_from_bytes(rt_jit_lower_t *L, rt_dtype_t d, const void *p) {
  if (d.code == kDLFloat && d.bits == 16) {
    uint16_t h;
    memcpy(&h, p, 2);
    return LLVMConstReal(L->f32, rt_f16_to_f32(h));
  }
  if (d.code == kDLBfloat) {
    uint16_t h;
    memcpy(&h, p, 2);
    return LLVMConstReal(L->f32, rt_bf16_to_f32(h));
  }
  if (d.code == kDLFloat && d.bits == 32) {
    float f;
    memcpy(&f, p, 4);
    return LLVMConstReal(L->f32, f);
  }
  if (d.code == kDLFloat) {
    double f;
    memcpy(&f, p, 8);
    return LLVMConstReal(L->f64, f);
  }
  uint64_t u = 0;
  memcpy(&u, p, d.bits / 8); /* little-endian: the low bytes */
  if (rt_jit_is_bool(d)) u = u != 0;
  return LLVMConstInt(rt_jit_type(L, d), u, 0);
}

/* ---- conversions -------------------------------------------------------- */

static LLVMValueRef sat_intrinsic(rt_jit_lower_t *L, LLVMValueRef v, bool is_signed,
                                  LLVMTypeRef to) {
  const char *name = is_signed ? "llvm.fptosi.sat" : "llvm.fptoui.sat";
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMTypeRef tys[2] = {to, LLVMTypeOf(v)};
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(L->m, id, tys, 2);
  LLVMTypeRef fty = LLVMIntrinsicGetType(L->c, id, tys, 2);
  return LLVMBuildCall2(L->b, fty, fn, &v, 1, "");
}

LLVMValueRef rt_jit_truthy(rt_jit_lower_t *L, LLVMValueRef v, rt_dtype_t d) {
  if (rt_jit_is_float(d)) {
    return LLVMBuildFCmp(L->b, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  }
  return LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

LLVMValueRef rt_jit_from_bool(rt_jit_lower_t *L, LLVMValueRef b, rt_dtype_t d) {
  if (rt_jit_is_float(d)) return LLVMBuildUIToFP(L->b, b, rt_jit_type(L, d), "");
  return LLVMBuildZExt(L->b, b, rt_jit_type(L, d), "");
}

LLVMValueRef rt_jit_convert(rt_jit_lower_t *L, LLVMValueRef v, rt_dtype_t from,
                            rt_dtype_t to) {
  LLVMTypeRef tt = rt_jit_type(L, to);
  LLVMValueRef r;
  if (rt_jit_is_bool(to)) {
    r = rt_jit_from_bool(L, rt_jit_truthy(L, v, from), to);
  } else if (rt_jit_is_float(from) && rt_jit_is_float(to)) {
    unsigned fw = from.bits == 64 ? 64 : 32, tw = to.bits == 64 ? 64 : 32;
    r = fw == tw ? v : fw < tw ? LLVMBuildFPExt(L->b, v, tt, "")
                               : LLVMBuildFPTrunc(L->b, v, tt, "");
  } else if (rt_jit_is_float(from)) {
    r = sat_intrinsic(L, v, rt_jit_is_signed(to), tt);
  } else if (rt_jit_is_float(to)) {
    r = rt_jit_is_signed(from) ? LLVMBuildSIToFP(L->b, v, tt, "")
                               : LLVMBuildUIToFP(L->b, v, tt, "");
  } else {
    unsigned fw = from.bits, tw = to.bits;
    if (fw == tw) {
      r = v;
    } else if (fw > tw) {
      r = LLVMBuildTrunc(L->b, v, tt, "");
    } else {
      r = rt_jit_is_signed(from) ? LLVMBuildSExt(L->b, v, tt, "")
                                 : LLVMBuildZExt(L->b, v, tt, "");
    }
  }
  return rt_jit_normalize(L, r, to);
}

/* bfloat16 <-> float by bits: round to nearest even, NaN kept quiet. */
static LLVMValueRef bf16_bits(rt_jit_lower_t *L, LLVMValueRef f) {
  LLVMBuilderRef b = L->b;
  LLVMValueRef u = LLVMBuildBitCast(b, f, L->i32, "");
  LLVMValueRef lsb = LLVMBuildAnd(b, LLVMBuildLShr(b, u, LLVMConstInt(L->i32, 16, 0), ""),
                                  LLVMConstInt(L->i32, 1, 0), "");
  LLVMValueRef rounded = LLVMBuildAdd(b, u, LLVMBuildAdd(b, lsb, LLVMConstInt(L->i32, 0x7fff, 0), ""), "");
  LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, f, f, "");
  LLVMValueRef quiet = LLVMBuildOr(b, u, LLVMConstInt(L->i32, 0x00400000, 0), "");
  LLVMValueRef sel = LLVMBuildSelect(b, nan, quiet, rounded, "");
  return LLVMBuildTrunc(b, LLVMBuildLShr(b, sel, LLVMConstInt(L->i32, 16, 0), ""), L->i16, "");
}

static LLVMValueRef bf16_float(rt_jit_lower_t *L, LLVMValueRef bits) {
  LLVMValueRef w = LLVMBuildShl(L->b, LLVMBuildZExt(L->b, bits, L->i32, ""),
                                LLVMConstInt(L->i32, 16, 0), "");
  return LLVMBuildBitCast(L->b, w, L->f32, "");
}

LLVMValueRef rt_jit_normalize(rt_jit_lower_t *L, LLVMValueRef v, rt_dtype_t d) {
  if (rt_jit_is_bool(d)) {
    return LLVMBuildZExt(L->b, LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstNull(L->i8), ""),
                         L->i8, "");
  }
  if (d.code == kDLFloat && d.bits == 16) {
    return LLVMBuildFPExt(L->b, LLVMBuildFPTrunc(L->b, v, L->f16, ""), L->f32, "");
  }
  if (d.code == kDLBfloat) return bf16_float(L, bf16_bits(L, v));
  return v;
}

LLVMValueRef rt_jit_to_storage(rt_jit_lower_t *L, LLVMValueRef v, rt_dtype_t d) {
  if (d.code == kDLFloat && d.bits == 16) return LLVMBuildFPTrunc(L->b, v, L->f16, "");
  if (d.code == kDLBfloat) return bf16_bits(L, v);
  return v;
}

LLVMValueRef rt_jit_from_storage(rt_jit_lower_t *L, LLVMValueRef v, rt_dtype_t d) {
  if (d.code == kDLFloat && d.bits == 16) return LLVMBuildFPExt(L->b, v, L->f32, "");
  if (d.code == kDLBfloat) return bf16_float(L, v);
  if (rt_jit_is_bool(d)) return rt_jit_normalize(L, v, d);
  return v;
}

/* ---- constant globals --------------------------------------------------- */

LLVMValueRef rt_jit_private_constant(rt_jit_lower_t *L, LLVMValueRef init, const char *tag) {
  char name[96];
  snprintf(name, sizeof name, "%s.%s%d", L->symbol, tag, (int)L->num_strings++);
  LLVMValueRef g = LLVMAddGlobal(L->m, LLVMTypeOf(init), name);
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  LLVMSetAlignment(g, 64);
  return g;
}

/* ---- math calls --------------------------------------------------------- */

LLVMValueRef rt_jit_intrinsic(rt_jit_lower_t *L, const char *name, LLVMValueRef a,
                              LLVMValueRef b, LLVMValueRef c) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMTypeRef ty = LLVMTypeOf(a);
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(L->m, id, &ty, 1);
  LLVMTypeRef fty = LLVMIntrinsicGetType(L->c, id, &ty, 1);
  LLVMValueRef args[3] = {a, b, c};
  unsigned n = c ? 3 : b ? 2 : 1;
  return LLVMBuildCall2(L->b, fty, fn, args, n, "");
}

LLVMValueRef rt_jit_libm(rt_jit_lower_t *L, const char *name, LLVMValueRef a,
                         LLVMValueRef b) {
  LLVMTypeRef ty = LLVMTypeOf(a);
  char full[32];
  snprintf(full, sizeof full, "%s%s", name, ty == L->f32 ? "f" : "");
  LLVMTypeRef params[2] = {ty, ty};
  LLVMTypeRef fty = LLVMFunctionType(ty, params, b ? 2 : 1, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(L->m, full);
  if (!fn) {
    fn = LLVMAddFunction(L->m, full, fty);
    /* libm math is pure for our purposes (errno is never read). */
    unsigned k = LLVMGetEnumAttributeKindForName("nounwind", 8);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(L->c, k, 0));
  }
  LLVMValueRef args[2] = {a, b};
  return LLVMBuildCall2(L->b, fty, fn, args, b ? 2 : 1, "");
}

/* The constant v of type f: a float, or every lane of a float vector. */
static LLVMValueRef real_like(LLVMTypeRef f, double v) {
  if (LLVMGetTypeKind(f) != LLVMVectorTypeKind) return LLVMConstReal(f, v);
  LLVMValueRef lanes[64];
  const unsigned n = LLVMGetVectorSize(f);
  for (unsigned i = 0; i < n && i < 64; ++i) lanes[i] = LLVMConstReal(LLVMGetElementType(f), v);
  return LLVMConstVector(lanes, n < 64 ? n : 64);
}

/* x is float32 or a vector of float32 (the templates' vector epilogue, softmax's vectors). */
static bool is_f32(rt_jit_lower_t *L, LLVMValueRef x) {
  LLVMTypeRef t = LLVMTypeOf(x);
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
    return LLVMGetElementType(t) == L->f32 && LLVMGetVectorSize(t) <= 64;
  }
  return t == L->f32;
}

/* The constant v of type t: an i32, or every lane of a vector of i32. */
static LLVMValueRef int_like(LLVMTypeRef t, int64_t v) {
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) return LLVMConstInt(t, (unsigned long long)v, 1);
  LLVMValueRef lanes[64];
  const unsigned n = LLVMGetVectorSize(t);
  for (unsigned i = 0; i < n && i < 64; ++i) lanes[i] = LLVMConstInt(LLVMGetElementType(t), (unsigned long long)v, 1);
  return LLVMConstVector(lanes, n < 64 ? n : 64);
}

/* expf as straight-line arithmetic, so the loop vectorizer vectorizes the
 * loops that call it (llvm.exp becomes one scalar libm call per element:
 * no vector math library is linked into kernels). Cephes' method:
 *   n = roundeven(x * log2(e)), r = x - n*ln2 (ln2 in two parts, so r is
 *   exact to float precision), exp(r) on [-ln2/2, ln2/2] by a degree-6
 *   polynomial (Cephes expf's coefficients, ~1 ulp), times 2^n built from
 *   exponent bits in two halves, 2^(n>>1) * 2^(n - (n>>1)), so that every
 *   factor is a normal float for n in [-150, 128]: results in the
 *   subnormal range are rounded once more (within 1 ulp of the subnormal
 *   grid), overflow gives +inf and deep underflow +0 as expf does.
 * x is clamped to [-104, 89] first (beyond those exp is 0 and inf anyway)
 * so the int conversion is defined; NaN is passed through. x may be a
 * vector of float32 too (lane by lane the same arithmetic). */
static LLVMValueRef exp_f32(rt_jit_lower_t *L, LLVMValueRef x) {
  LLVMBuilderRef b = L->b;
  /* float32 or a vector of float32 (softmax's explicit vectors): the
   * integer part in i32 lanes of the same count. */
  LLVMTypeRef f = LLVMTypeOf(x), i = LLVMInt32TypeInContext(L->c);
  if (LLVMGetTypeKind(f) == LLVMVectorTypeKind) i = LLVMVectorType(i, LLVMGetVectorSize(f));
#define F(v) real_like(f, (v))
  LLVMValueRef xc = rt_jit_intrinsic(L, "llvm.minnum", rt_jit_intrinsic(L, "llvm.maxnum", x, F(-104.0), NULL),
                                     F(89.0), NULL);
  LLVMValueRef n = rt_jit_intrinsic(L, "llvm.roundeven", LLVMBuildFMul(b, xc, F(1.44269504088896341), ""),
                                    NULL, NULL);
  /* Multiply-adds as llvm.fmuladd: one FMA each where the target has it
   * (and a single rounding, so no less accurate). */
#define MULADD(a, m, c) rt_jit_intrinsic(L, "llvm.fmuladd", (a), (m), (c))
  LLVMValueRef r = MULADD(n, F(-0.693359375), xc);
  r = MULADD(n, F(2.12194440e-4), r);
  static const double c[6] = {1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3,
                              4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1};
  LLVMValueRef p = F(c[0]);
  for (int32_t k = 1; k < 6; ++k) p = MULADD(p, r, F(c[k]));
  LLVMValueRef r2 = LLVMBuildFMul(b, r, r, "");
  p = LLVMBuildFAdd(b, MULADD(p, r2, r), F(1.0), "");
#undef MULADD
  LLVMValueRef ni = LLVMBuildFPToSI(b, n, i, "");
  LLVMValueRef n1 = LLVMBuildAShr(b, ni, int_like(i, 1), "");
  LLVMValueRef n2 = LLVMBuildSub(b, ni, n1, "");
  LLVMValueRef bias = int_like(i, 127), sh = int_like(i, 23);
  LLVMValueRef s1 = LLVMBuildBitCast(b, LLVMBuildShl(b, LLVMBuildAdd(b, n1, bias, ""), sh, ""), f, "");
  LLVMValueRef s2 = LLVMBuildBitCast(b, LLVMBuildShl(b, LLVMBuildAdd(b, n2, bias, ""), sh, ""), f, "");
  LLVMValueRef y = LLVMBuildFMul(b, LLVMBuildFMul(b, p, s1, ""), s2, "");
#undef F
  return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, x, x, ""), x, y, "");
}

LLVMValueRef rt_jit_exp(rt_jit_lower_t *L, LLVMValueRef x) {
  if (is_f32(L, x)) return exp_f32(L, x);
  return rt_jit_intrinsic(L, "llvm.exp", x, NULL, NULL);
}

/* An odd function of float32 as x * P(x^2) / Q(x^2) for x clamped to
 * [-clamp, clamp] (beyond it the function is +-1 to float precision): a
 * few FMAs and one division, vectorizable where libm's tanhf/erff are one
 * scalar call per element. The clamp is a compare and select, so NaN
 * passes through (llvm.minnum would turn it into the bound). p[0..np),
 * q[0..nq) lowest degree first. */
static LLVMValueRef odd_rational_f32(rt_jit_lower_t *L, LLVMValueRef x, double clamp,
                                     const double *p, int32_t np, const double *q, int32_t nq) {
  LLVMBuilderRef b = L->b;
  LLVMTypeRef f = LLVMTypeOf(x);
  LLVMValueRef hi = real_like(f, clamp), lo = real_like(f, -clamp);
  LLVMValueRef xc = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, x, hi, ""), hi, x, "");
  xc = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, xc, lo, ""), lo, xc, "");
  LLVMValueRef t = LLVMBuildFMul(b, xc, xc, "");
  LLVMValueRef pp = real_like(f, p[np - 1]), qq = real_like(f, q[nq - 1]);
  for (int32_t k = np - 2; k >= 0; --k) {
    pp = rt_jit_intrinsic(L, "llvm.fmuladd", pp, t, real_like(f, p[k]));
  }
  for (int32_t k = nq - 2; k >= 0; --k) {
    qq = rt_jit_intrinsic(L, "llvm.fmuladd", qq, t, real_like(f, q[k]));
  }
  return LLVMBuildFDiv(b, LLVMBuildFMul(b, xc, pp, ""), qq, "");
}

/* The coefficients: weighted least-squares fits of the relative error on
 * (0, clamp], iterated towards minimax (scripts/fit-odd-rational
 * reproduces them and their error). Measured over 2M float32 points of
 * [-clamp-1, clamp+1] against the double functions: tanh (clamp 9) max
 * relative error 3.6e-7, erf (clamp 4) 3.6e-7 -- a few ulps. */
static const double kTanhP[5] = {0.9999999798102265, 0.13381146374972389, 0.003495728696587562,
                                 2.061127622355729e-05, 1.3357463080065912e-08};
static const double kTanhQ[5] = {1.0, 0.4671446211522807, 0.025877524322464245,
                                 0.00032858596527899535, 7.777756065585617e-07};
static const double kErfP[6] = {1.1283791396513585, 0.19352660977798966, 0.05309905180010301,
                                0.0038824948408751293, 0.00028453695373034313,
                                1.9867885727165024e-06};
static const double kErfQ[6] = {1.0, 0.5048410526792603, 0.11534214530083595,
                                0.015205543705195262, 0.001185347746947927,
                                3.7418736999340896e-05};

LLVMValueRef rt_jit_tanh(rt_jit_lower_t *L, LLVMValueRef x) {
  if (is_f32(L, x)) return odd_rational_f32(L, x, 9.0, kTanhP, 5, kTanhQ, 5);
  return rt_jit_libm(L, "tanh", x, NULL);
}

/* 0.5 + 0.5 tanh(x/2) = 0.5 + x P'(x^2) / Q'(x^2) for |x| <= 18 (the
 * tanh's clamp of 9 on x/2), with P'_k = P_k / 4^(k+1) and Q'_k = Q_k /
 * 4^k: every scaling a power of two, so each Horner step, the quotient
 * and the sum round as they did with x/2 and the final 0.5 * t + 0.5
 * (the same floats), in one multiply fewer: 14 vector operations a
 * sigmoid, where EfficientNet-B0's SiLUs are an eighth of its time. */
LLVMValueRef rt_jit_sigmoid_f32(rt_jit_lower_t *L, LLVMValueRef x) {
  double p[5], q[5], s = 1;
  for (int32_t k = 0; k < 5; ++k, s *= 4) {
    p[k] = kTanhP[k] / (4 * s);
    q[k] = kTanhQ[k] / s;
  }
  return LLVMBuildFAdd(L->b, odd_rational_f32(L, x, 18.0, p, 5, q, 5), real_like(LLVMTypeOf(x), 0.5), "");
}

LLVMValueRef rt_jit_erf(rt_jit_lower_t *L, LLVMValueRef x) {
  if (LLVMTypeOf(x) == L->f32) return odd_rational_f32(L, x, 4.0, kErfP, 6, kErfQ, 6);
  return rt_jit_libm(L, "erf", x, NULL);
}

LLVMValueRef rt_jit_fast(LLVMValueRef inst) {
  if (LLVMIsAInstruction(inst) && LLVMCanValueUseFastMathFlags(inst)) {
    LLVMSetFastMathFlags(inst, LLVMFastMathAllowReassoc | LLVMFastMathAllowContract);
  }
  return inst;
}

/* ---- index helpers ------------------------------------------------------ */

LLVMValueRef rt_jit_min(rt_jit_lower_t *L, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, a, b, ""), a, b, "");
}
LLVMValueRef rt_jit_max(rt_jit_lower_t *L, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSGT, a, b, ""), a, b, "");
}

LLVMValueRef rt_jit_linear(rt_jit_lower_t *L, int32_t rank, const LLVMValueRef *idx,
                           const LLVMValueRef *dims) {
  if (rank == 0) return rt_jit_i64(L, 0);
  LLVMValueRef r = idx[0];
  for (int32_t k = 1; k < rank; ++k) {
    r = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, r, dims[k], ""), idx[k], "");
  }
  return r;
}

void rt_jit_unravel(rt_jit_lower_t *L, LLVMValueRef flat, int32_t rank,
                    const LLVMValueRef *dims, LLVMValueRef *out_idx) {
  for (int32_t k = rank - 1; k > 0; --k) {
    /* Indices are non-negative: unsigned division is exact and cheaper. */
    out_idx[k] = LLVMBuildURem(L->b, flat, dims[k], "");
    flat = LLVMBuildUDiv(L->b, flat, dims[k], "");
  }
  if (rank > 0) out_idx[0] = flat;
}

LLVMValueRef rt_jit_numel(rt_jit_lower_t *L, int32_t rank, const LLVMValueRef *dims) {
  LLVMValueRef r = rt_jit_i64(L, 1);
  for (int32_t k = 0; k < rank; ++k) r = LLVMBuildMul(L->b, r, dims[k], "");
  return r;
}

/* ---- loops and ifs ------------------------------------------------------ */

void rt_jit_loop_begin(rt_jit_lower_t *L, LLVMValueRef lo, LLVMValueRef hi,
                       int32_t ncarry, const LLVMValueRef *init,
                       rt_jit_loop_t *out_loop) {
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
  out_loop->head = LLVMAppendBasicBlockInContext(L->c, L->fn, "loop");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(L->c, L->fn, "body");
  out_loop->exit = LLVMAppendBasicBlockInContext(L->c, L->fn, "done");
  LLVMBuildBr(L->b, out_loop->head);
  LLVMPositionBuilderAtEnd(L->b, out_loop->head);
  out_loop->iv = LLVMBuildPhi(L->b, L->i64, "i");
  LLVMAddIncoming(out_loop->iv, &lo, &pre, 1);
  out_loop->ncarry = ncarry;
  for (int32_t k = 0; k < ncarry; ++k) {
    out_loop->carry[k] = LLVMBuildPhi(L->b, LLVMTypeOf(init[k]), "acc");
    LLVMValueRef v = init[k];
    LLVMAddIncoming(out_loop->carry[k], &v, &pre, 1);
  }
  LLVMValueRef cond = LLVMBuildICmp(L->b, LLVMIntSLT, out_loop->iv, hi, "");
  LLVMBuildCondBr(L->b, cond, body, out_loop->exit);
  LLVMPositionBuilderAtEnd(L->b, body);
  out_loop->memo_mark = L->num_memo;
}

void rt_jit_loop_end(rt_jit_lower_t *L, rt_jit_loop_t *loop, const LLVMValueRef *next) {
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
  LLVMValueRef inc = LLVMBuildAdd(L->b, loop->iv, rt_jit_i64(L, 1), "");
  LLVMBuildBr(L->b, loop->head);
  LLVMAddIncoming(loop->iv, &inc, &latch, 1);
  for (int32_t k = 0; k < loop->ncarry; ++k) {
    LLVMValueRef v = next[k];
    LLVMAddIncoming(loop->carry[k], &v, &latch, 1);
  }
  LLVMPositionBuilderAtEnd(L->b, loop->exit);
  L->num_memo = loop->memo_mark;
}

void rt_jit_if_begin(rt_jit_lower_t *L, LLVMValueRef cond, rt_jit_if_t *out_if) {
  LLVMBasicBlockRef then_bb = LLVMAppendBasicBlockInContext(L->c, L->fn, "then");
  out_if->else_bb = LLVMAppendBasicBlockInContext(L->c, L->fn, "else");
  out_if->join = LLVMAppendBasicBlockInContext(L->c, L->fn, "join");
  LLVMBuildCondBr(L->b, cond, then_bb, out_if->else_bb);
  LLVMPositionBuilderAtEnd(L->b, then_bb);
  out_if->memo_mark = L->num_memo;
}

void rt_jit_if_else(rt_jit_lower_t *L, rt_jit_if_t *s, LLVMValueRef then_value) {
  s->then_value = then_value;
  s->then_end = LLVMGetInsertBlock(L->b);
  LLVMBuildBr(L->b, s->join);
  LLVMPositionBuilderAtEnd(L->b, s->else_bb);
  L->num_memo = s->memo_mark;
}

LLVMValueRef rt_jit_if_end(rt_jit_lower_t *L, rt_jit_if_t *s, LLVMValueRef else_value) {
  s->else_end = LLVMGetInsertBlock(L->b);
  LLVMBuildBr(L->b, s->join);
  LLVMPositionBuilderAtEnd(L->b, s->join);
  L->num_memo = s->memo_mark;
  if (!s->then_value) return NULL;
  LLVMValueRef phi = LLVMBuildPhi(L->b, LLVMTypeOf(s->then_value), "");
  LLVMValueRef vals[2] = {s->then_value, else_value};
  LLVMBasicBlockRef bbs[2] = {s->then_end, s->else_end};
  LLVMAddIncoming(phi, vals, bbs, 2);
  return phi;
}
