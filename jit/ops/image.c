/* Lowering of the image ops (ir/op/image.c): image.resize2d and
 * nn.upsampling, as element expressions over NCHW or NHWC (any
 * permutation of NCHW) data.
 *
 * The semantics are interp/kernels/image.c's (topi's resize): per output
 * coordinate x the source coordinate in_x follows the coordinate mode
 * (half_pixel, pytorch_half_pixel, align_corners, asymmetric,
 * tf_half_pixel_for_nn, tf_crop_and_resize: the roi's span, with
 * extrapolation_value outside the image) with scale = in / out (where image.resize2d gives
 * scales s: 1 / s, and out = in * s unfloored); nearest_neighbor rounds it
 * by rounding_method ("" = round under align_corners, round_prefer_ceil
 * under tf_half_pixel_for_nn, floor otherwise), linear blends the two
 * neighbours floor(in_x) + {0, 1}, cubic the four floor(in_x) + {-1..2}
 * with Keys' weights (cubic_alpha; cubic_exclude drops out-of-image taps
 * and renormalizes). Source indices are clamped to the image. Coordinates
 * and weights are computed in double, like the reference, so float32
 * results differ only by the final rounding; nearest copies the element
 * with cast semantics. nn.upsampling is resize2d with align_corners or
 * asymmetric coordinates, the default rounding and alpha -0.5. Method,
 * coordinate mode, rounding and layout come from the op's plan
 * (rt_ir_plan_resize2d, ir/op/plan_nn.h), which maps upsampling onto
 * resize2d. */
#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"

typedef rt_plan_resize2d_t resize_t;

static const rt_dtype_t kF64 = {kDLFloat, 64, 1};

static LLVMValueRef f64c(rt_jit_lower_t *L, double v) { return LLVMConstReal(L->f64, v); }

static LLVMValueRef to_f64(rt_jit_lower_t *L, LLVMValueRef i64) {
  return LLVMBuildSIToFP(L->b, i64, L->f64, "");
}

/* The source coordinate of output coordinate x (i64) along an axis of
 * extents in -> out (i64). */
static LLVMValueRef in_coord(rt_jit_lower_t *L, const resize_t *r, int32_t axis, LLVMValueRef x,
                             LLVMValueRef in, LLVMValueRef out) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef xf = to_f64(L, x), inf = to_f64(L, in), outf = to_f64(L, out);
  /* Given scales s: ONNX's ratio 1 / s and unfloored output length in * s. */
  const double s = r->given_scale[axis];
  if (s > 0) outf = LLVMBuildFMul(B, inf, f64c(L, s), "");
  LLVMValueRef scale = s > 0 ? f64c(L, 1.0 / s) : LLVMBuildFDiv(B, inf, outf, "");
  LLVMValueRef half = LLVMBuildFSub(B, LLVMBuildFMul(B, LLVMBuildFAdd(B, xf, f64c(L, 0.5), ""), scale, ""),
                                    f64c(L, 0.5), "");
  LLVMValueRef big = s > 0 ? LLVMBuildFCmp(B, LLVMRealOGT, outf, f64c(L, 1), "")
                           : LLVMBuildICmp(B, LLVMIntSGT, out, rt_jit_i64(L, 1), "");
  switch (r->coord) {
    case RT_PLAN_COORD_HALF_PIXEL: return half;
    case RT_PLAN_COORD_PYTORCH_HALF_PIXEL: return LLVMBuildSelect(B, big, half, f64c(L, 0), "");
    case RT_PLAN_COORD_ALIGN_CORNERS: {
      LLVMValueRef den = LLVMBuildFSub(B, outf, f64c(L, 1), "");
      LLVMValueRef v = LLVMBuildFMul(B, LLVMBuildFDiv(B, LLVMBuildFSub(B, inf, f64c(L, 1), ""), den, ""), xf, "");
      return LLVMBuildSelect(B, big, v, f64c(L, 0), "");
    }
    case RT_PLAN_COORD_ASYMMETRIC: return LLVMBuildFMul(B, xf, scale, "");
    case RT_PLAN_COORD_TF_CROP_AND_RESIZE: {
      const double start = r->roi[axis], end = r->roi[2 + axis];
      LLVMValueRef len = LLVMBuildFSub(B, inf, f64c(L, 1), "");
      LLVMValueRef den = LLVMBuildFSub(B, outf, f64c(L, 1), "");
      LLVMValueRef v = LLVMBuildFAdd(
          B, LLVMBuildFMul(B, f64c(L, start), len, ""),
          LLVMBuildFDiv(B, LLVMBuildFMul(B, LLVMBuildFMul(B, xf, f64c(L, end - start), ""), len, ""), den, ""), "");
      LLVMValueRef mid = LLVMBuildFMul(B, f64c(L, 0.5 * (start + end)), len, "");
      LLVMValueRef many = s > 0 ? big : LLVMBuildICmp(B, LLVMIntSGT, out, rt_jit_i64(L, 1), "");
      return LLVMBuildSelect(B, many, v, mid, "");
    }
    default: return LLVMBuildFMul(B, LLVMBuildFAdd(B, xf, f64c(L, 0.5), ""), scale, "");
  }
}

static LLVMValueRef floor_i64(rt_jit_lower_t *L, LLVMValueRef v) {
  return rt_jit_convert(L, rt_jit_intrinsic(L, "llvm.floor", v, NULL, NULL), kF64, (rt_dtype_t){kDLInt, 64, 1});
}

static LLVMValueRef clamp_i(rt_jit_lower_t *L, LLVMValueRef v, LLVMValueRef n) {
  LLVMValueRef hi = rt_jit_max(L, LLVMBuildSub(L->b, n, rt_jit_i64(L, 1), ""), rt_jit_i64(L, 0));
  return rt_jit_min(L, rt_jit_max(L, v, rt_jit_i64(L, 0)), hi);
}

static LLVMValueRef nearest(rt_jit_lower_t *L, const resize_t *r, LLVMValueRef v) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef f;
  switch (r->rounding) {
    case RT_PLAN_ROUND_PREFER_FLOOR:
      f = rt_jit_intrinsic(L, "llvm.ceil", LLVMBuildFSub(B, v, f64c(L, 0.5), ""), NULL, NULL);
      break;
    case RT_PLAN_ROUND_PREFER_CEIL:
      f = rt_jit_intrinsic(L, "llvm.floor", LLVMBuildFAdd(B, v, f64c(L, 0.5), ""), NULL, NULL);
      break;
    case RT_PLAN_ROUND_FLOOR:
      f = rt_jit_intrinsic(L, "llvm.floor", LLVMBuildFAdd(B, v, f64c(L, 1e-5), ""), NULL, NULL);
      break;
    case RT_PLAN_ROUND_CEIL:
      f = rt_jit_intrinsic(L, "llvm.ceil", LLVMBuildFSub(B, v, f64c(L, 1e-5), ""), NULL, NULL);
      break;
    default:
      f = rt_jit_intrinsic(L, "llvm.roundeven", v, NULL, NULL);
      break;
  }
  return rt_jit_convert(L, f, kF64, (rt_dtype_t){kDLInt, 64, 1});
}

/* Taps (clamped indices) and weights along one axis; returns the count.
 * *outside: tf_crop_and_resize's source coordinate is outside the image
 * (an i1; false for the other modes). */
static int32_t taps(rt_jit_lower_t *L, const resize_t *r, int32_t axis, LLVMValueRef o, LLVMValueRef in,
                    LLVMValueRef out, LLVMValueRef *idx, LLVMValueRef *w, LLVMValueRef *outside) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef v = in_coord(L, r, axis, o, in, out);
  *outside = LLVMConstInt(LLVMInt1TypeInContext(LLVMGetTypeContext(LLVMTypeOf(v))), 0, 0);
  if (r->coord == RT_PLAN_COORD_TF_CROP_AND_RESIZE) {
    LLVMValueRef last = LLVMBuildFSub(B, to_f64(L, in), f64c(L, 1), "");
    /* !(v >= 0 && v <= in - 1): NaN is outside too */
    LLVMValueRef inside = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOGE, v, f64c(L, 0), ""),
                                       LLVMBuildFCmp(B, LLVMRealOLE, v, last, ""), "");
    *outside = LLVMBuildNot(B, inside, "");
  }
  if (r->method == RT_PLAN_RESIZE_NEAREST) {
    idx[0] = clamp_i(L, nearest(L, r, v), in);
    w[0] = f64c(L, 1);
    return 1;
  }
  LLVMValueRef fl = rt_jit_intrinsic(L, "llvm.floor", v, NULL, NULL);
  LLVMValueRef base = floor_i64(L, v);
  LLVMValueRef t = LLVMBuildFSub(B, v, fl, "");
  if (r->method == RT_PLAN_RESIZE_LINEAR) {
    idx[0] = clamp_i(L, base, in);
    idx[1] = clamp_i(L, LLVMBuildAdd(B, base, rt_jit_i64(L, 1), ""), in);
    w[0] = LLVMBuildFSub(B, f64c(L, 1), t, "");
    w[1] = t;
    return 2;
  }
  const double a = r->cubic_alpha;
  LLVMValueRef t2 = LLVMBuildFMul(B, t, t, ""), t3 = LLVMBuildFMul(B, t2, t, "");
  /* Keys: w0 = a(t3 - 2t2 + t), w1 = (a+2)t3 - (3+a)t2 + 1,
   * w2 = -(a+2)t3 + (3+2a)t2 - a t, w3 = -a t3 + a t2. */
  w[0] = LLVMBuildFMul(B, f64c(L, a),
                       LLVMBuildFAdd(B, LLVMBuildFSub(B, t3, LLVMBuildFMul(B, f64c(L, 2), t2, ""), ""), t, ""), "");
  w[1] = LLVMBuildFAdd(B, LLVMBuildFSub(B, LLVMBuildFMul(B, f64c(L, a + 2), t3, ""),
                                        LLVMBuildFMul(B, f64c(L, 3 + a), t2, ""), ""), f64c(L, 1), "");
  w[2] = LLVMBuildFSub(B, LLVMBuildFAdd(B, LLVMBuildFMul(B, f64c(L, -(a + 2)), t3, ""),
                                        LLVMBuildFMul(B, f64c(L, 3 + 2 * a), t2, ""), ""),
                       LLVMBuildFMul(B, f64c(L, a), t, ""), "");
  w[3] = LLVMBuildFAdd(B, LLVMBuildFMul(B, f64c(L, -a), t3, ""), LLVMBuildFMul(B, f64c(L, a), t2, ""), "");
  LLVMValueRef sum = f64c(L, 0);
  for (int32_t k = 0; k < 4; ++k) {
    LLVMValueRef j = LLVMBuildAdd(B, base, rt_jit_i64(L, k - 1), "");
    if (r->cubic_exclude) {
      LLVMValueRef out_of = LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntSLT, j, rt_jit_i64(L, 0), ""),
                                        LLVMBuildICmp(B, LLVMIntSGE, j, in, ""), "");
      w[k] = LLVMBuildSelect(B, out_of, f64c(L, 0), w[k], "");
    }
    sum = LLVMBuildFAdd(B, sum, w[k], "");
    idx[k] = clamp_i(L, j, in);
  }
  if (r->cubic_exclude) {
    for (int32_t k = 0; k < 4; ++k) w[k] = LLVMBuildFDiv(B, w[k], sum, "");
  }
  return 4;
}

static rt_status_t resize(rt_jit_lower_t *L, const rt_ir_expr_t *call, const resize_t *r,
                          const LLVMValueRef *idx, LLVMValueRef *out_value) {
  rt_jit_node_t *x = rt_jit_node(L, call->call.args[0]), *self = rt_jit_node(L, call);
  const int32_t *pos = r->pos;
  LLVMValueRef yi[4], xi[4], yw[4], xw[4], yout, xout;
  const int32_t ny = taps(L, r, 0, idx[pos[2]], x->dims[pos[2]], self->dims[pos[2]], yi, yw, &yout);
  const int32_t nx = taps(L, r, 1, idx[pos[3]], x->dims[pos[3]], self->dims[pos[3]], xi, xw, &xout);
  const bool crop = r->coord == RT_PLAN_COORD_TF_CROP_AND_RESIZE;
  LLVMValueRef outside = crop ? LLVMBuildOr(L->b, yout, xout, "") : NULL;
  LLVMValueRef extra = crop ? rt_jit_convert(L, f64c(L, r->extrapolation_value), kF64, self->dtype) : NULL;
  LLVMValueRef in[4];
  in[pos[0]] = idx[pos[0]];
  in[pos[1]] = idx[pos[1]];
  if (r->method == RT_PLAN_RESIZE_NEAREST) {
    in[pos[2]] = yi[0];
    in[pos[3]] = xi[0];
    LLVMValueRef v;
    RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], in, &v));
    *out_value = rt_jit_convert(L, v, x->dtype, self->dtype);
    if (crop) *out_value = LLVMBuildSelect(L->b, outside, extra, *out_value, "");
    return RT_OK;
  }
  LLVMValueRef acc = f64c(L, 0);
  for (int32_t a = 0; a < ny; ++a) {
    LLVMValueRef row = f64c(L, 0);
    for (int32_t b = 0; b < nx; ++b) {
      in[pos[2]] = yi[a];
      in[pos[3]] = xi[b];
      LLVMValueRef v;
      RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], in, &v));
      v = rt_jit_convert(L, v, x->dtype, kF64);
      row = LLVMBuildFAdd(L->b, row, LLVMBuildFMul(L->b, xw[b], v, ""), "");
    }
    acc = LLVMBuildFAdd(L->b, acc, LLVMBuildFMul(L->b, yw[a], row, ""), "");
  }
  *out_value = rt_jit_convert(L, acc, kF64, self->dtype);
  if (crop) *out_value = LLVMBuildSelect(L->b, outside, extra, *out_value, "");
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_resize2d) {
  rt_plan_input_t in;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 1, &in));
  resize_t r;
  RT_RETURN_IF_ERROR(rt_ir_plan_resize2d(call->call.callee->op.op, call->call.attrs, 1, &in, &r));
  return resize(L, call, &r, idx, out_value);
}
