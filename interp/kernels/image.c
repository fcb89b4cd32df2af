/* Reference kernels of the image ops (ir/op/image.c): image.resize2d and
 * nn.upsampling (which is resize2d with coordinate mode align_corners or
 * asymmetric and the default rounding, as topi.nn.upsampling).
 *
 * Following topi/image/resize.py, per output coordinate x (and likewise y):
 *   scale = in / out; where image.resize2d gives scales s (ONNX's), scale
 *   = 1 / s and out = in * s, unfloored, in the formulas below
 *   half_pixel:          in_x = (x + 0.5) * scale - 0.5
 *   pytorch_half_pixel:  the same, but 0 when out == 1
 *   align_corners:       in_x = (in - 1) / (out - 1) * x  (0 when out == 1)
 *   asymmetric:          in_x = x * scale
 *   tf_half_pixel_for_nn: in_x = (x + 0.5) * scale
 * nearest_neighbor picks round(in_x) by rounding_method: "round" (half to
 * even, TVM's round), "round_prefer_floor" ceil(in_x - 0.5),
 * "round_prefer_ceil" floor(in_x + 0.5), "floor" floor(in_x + 1e-5),
 * "ceil" ceil(in_x - 1e-5); "" means round under align_corners,
 * round_prefer_ceil under tf_half_pixel_for_nn and floor otherwise. linear
 * interpolates the four neighbours floor(in_x) + {0, 1}; cubic the sixteen
 * floor(in_x) + {-1, 0, 1, 2} with Keys' weights (cubic_alpha), optionally
 * dropping out-of-image taps and renormalizing (cubic_exclude). Source
 * indices are clamped to the image. Values are computed in double and
 * stored in the output's dtype. The taps of each output row and column
 * are computed once; nearest copies the picked element with cast
 * semantics. tf_crop_and_resize maps x to start * (in - 1) + x * (end -
 * start) * (in - 1) / (out - 1) (the roi's middle when out == 1) and gives
 * extrapolation_value where that falls outside [0, in - 1]. Method,
 * coordinate mode, rounding (with "" resolved)
 * and layout come from the op's plan (rt_ir_plan_resize2d,
 * ir/op/plan_nn.h). */
#include <math.h>

#include "interp/kernels/kernels_impl.h"
#include "ir/op/plan.h"

typedef rt_plan_resize2d_t resize_t;

static double in_coord(const resize_t *r, int32_t axis, int64_t x, int64_t in, int64_t out) {
  /* Given scales: ONNX's ratio and unfloored output length. */
  const double s = r->given_scale[axis];
  const double outf = s > 0 ? (double)in * s : (double)out, scale = s > 0 ? 1.0 / s : (double)in / (double)out;
  switch (r->coord) {
    case RT_PLAN_COORD_HALF_PIXEL: return ((double)x + 0.5) * scale - 0.5;
    case RT_PLAN_COORD_PYTORCH_HALF_PIXEL: return outf > 1 ? ((double)x + 0.5) * scale - 0.5 : 0.0;
    case RT_PLAN_COORD_ALIGN_CORNERS: return outf > 1 ? (double)(in - 1) / (outf - 1) * (double)x : 0.0;
    case RT_PLAN_COORD_ASYMMETRIC: return (double)x * scale;
    case RT_PLAN_COORD_TF_CROP_AND_RESIZE: {
      const double start = r->roi[axis], end = r->roi[2 + axis], len = (double)(in - 1);
      return outf > 1 ? start * len + (double)x * (end - start) * len / (outf - 1) : 0.5 * (start + end) * len;
    }
    default: return ((double)x + 0.5) * scale;
  }
}

static int64_t clamp(int64_t v, int64_t n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

static int64_t nearest(const resize_t *r, double v) {
  double f;
  switch (r->rounding) {
    case RT_PLAN_ROUND_PREFER_FLOOR: f = ceil(v - 0.5); break;
    case RT_PLAN_ROUND_PREFER_CEIL: f = floor(v + 0.5); break;
    case RT_PLAN_ROUND_FLOOR: f = floor(v + 1e-5); break;
    case RT_PLAN_ROUND_CEIL: f = ceil(v - 1e-5); break;
    default: f = rt_interp_round_even(v); break;
  }
  return (int64_t)f;
}

static void cubic_weights(double t, double a, double w[4]) {
  const double t2 = t * t, t3 = t2 * t;
  w[0] = a * (t3 - 2 * t2 + t);
  w[1] = (a + 2) * t3 - (3 + a) * t2 + 1;
  w[2] = -(a + 2) * t3 + (3 + 2 * a) * t2 - a * t;
  w[3] = -a * t3 + a * t2;
}

/* Taps (indices, clamped) and weights along one axis; 0 taps when
 * tf_crop_and_resize maps o outside the image (extrapolation_value). */
static int32_t taps(const resize_t *r, int32_t axis, int64_t o, int64_t in, int64_t out,
                    int64_t idx[4], double w[4]) {
  const double v = in_coord(r, axis, o, in, out);
  if (r->coord == RT_PLAN_COORD_TF_CROP_AND_RESIZE && !(v >= 0 && v <= (double)(in - 1))) return 0;
  if (r->method == RT_PLAN_RESIZE_NEAREST) {
    idx[0] = clamp(nearest(r, v), in);
    w[0] = 1;
    return 1;
  }
  const double f = floor(v);
  const int64_t base = (int64_t)f;
  const double t = v - f;
  if (r->method == RT_PLAN_RESIZE_LINEAR) {
    idx[0] = clamp(base, in);
    idx[1] = clamp(base + 1, in);
    w[0] = 1 - t;
    w[1] = t;
    return 2;
  }
  cubic_weights(t, r->cubic_alpha, w);
  double sum = 0;
  for (int32_t k = 0; k < 4; ++k) {
    int64_t j = base - 1 + k;
    if (r->cubic_exclude && (j < 0 || j >= in)) w[k] = 0;
    sum += w[k];
    idx[k] = clamp(j, in);
  }
  if (r->cubic_exclude) {
    for (int32_t k = 0; k < 4; ++k) w[k] /= sum;
  }
  return 4;
}

static rt_status_t resize(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  rt_plan_input_t in;
  rt_ir_plan_input_of_tensor(x, &in);
  resize_t plan;
  RT_RETURN_IF_ERROR(rt_ir_plan_resize2d(call->op, call->attrs, 1, &in, &plan));
  const resize_t *r = &plan;
  int64_t xs[4], xe[4], os[4], oe[4]; /* N, C, H, W */
  rt_interp_nchw_view(x, r->pos, 2, xs, xe);
  rt_interp_nchw_view(out, r->pos, 2, os, oe);
  if (oe[0] != xe[0] || oe[1] != xe[1]) {
    return RT_INTERP_ERROR(call, INTERNAL, "%s", "N or C differ between input and output");
  }
  if ((xe[2] == 0 || xe[3] == 0) && out->numel > 0) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "cannot resize an empty image");
  }
  /* Each output row's and column's taps, computed once; then the output
   * is walked n, c, h, w (the input read whole as doubles). */
  int64_t *ti = NULL;
  double *tw = NULL, *xf = NULL, *of = NULL;
  int32_t *tn = NULL;
  const int64_t ntap = oe[2] + oe[3]; /* rows first, then columns */
  rt_status_t st = rt_interp_scratch(call, 4 * ntap, sizeof(int64_t), false, (void **)&ti);
  if (!st) st = rt_interp_scratch(call, 4 * ntap, sizeof(double), false, (void **)&tw);
  if (!st) st = rt_interp_scratch(call, ntap, sizeof(int32_t), false, (void **)&tn);
  const bool nearest = r->method == RT_PLAN_RESIZE_NEAREST;
  if (!st && !nearest) st = rt_interp_load_all_f(call, x, &xf);
  if (!st && !nearest) st = rt_interp_scratch(call, out->numel, sizeof(double), false, (void **)&of);
  for (int64_t h = 0; h < oe[2] && !st; ++h) tn[h] = taps(r, 0, h, xe[2], oe[2], ti + 4 * h, tw + 4 * h);
  for (int64_t w = 0; w < oe[3] && !st; ++w) {
    const int64_t t = oe[2] + w;
    tn[t] = taps(r, 1, w, xe[3], oe[3], ti + 4 * t, tw + 4 * t);
  }
  for (int64_t n = 0; n < oe[0] && !st; ++n)
    for (int64_t c = 0; c < oe[1]; ++c)
      for (int64_t h = 0; h < oe[2]; ++h)
        for (int64_t w = 0; w < oe[3]; ++w) {
          const int64_t *yi = ti + 4 * h, *xi = ti + 4 * (oe[2] + w);
          const double *yw = tw + 4 * h, *xw = tw + 4 * (oe[2] + w);
          const int64_t base = n * xs[0] + c * xs[1];
          const int64_t o = n * os[0] + c * os[1] + h * os[2] + w * os[3];
          if (tn[h] == 0 || tn[oe[2] + w] == 0) { /* tf_crop_and_resize outside the image */
            if (nearest) {
              rt_interp_store_f(out, o, r->extrapolation_value);
            } else {
              of[o] = r->extrapolation_value;
            }
            continue;
          }
          if (nearest) {
            /* The picked element itself, converted as a cast does. */
            rt_interp_convert(x, base + yi[0] * xs[2] + xi[0] * xs[3], out, o);
            continue;
          }
          double acc = 0;
          for (int32_t a = 0; a < tn[h]; ++a) {
            double row = 0;
            for (int32_t b = 0; b < tn[oe[2] + w]; ++b) {
              row += xw[b] * xf[base + yi[a] * xs[2] + xi[b] * xs[3]];
            }
            acc += yw[a] * row;
          }
          of[o] = acc;
        }
  if (!st && !nearest) rt_interp_store_span_f(out, 0, out->numel, of);
  rt_interp_scratch_free(call, ti);
  rt_interp_scratch_free(call, tw);
  rt_interp_scratch_free(call, tn);
  rt_interp_scratch_free(call, xf);
  rt_interp_scratch_free(call, of);
  return st;
}

rt_status_t rt_interp_k_IMAGE_RESIZE2D(const rt_interp_call_t *call) { return resize(call); }
rt_status_t rt_interp_k_NN_UPSAMPLING(const rt_interp_call_t *call) { return resize(call); }
