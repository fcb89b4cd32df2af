/* Reference kernel of image.grid_sample (ir/op/grid_sample.c): PyTorch's
 * grid_sampler_2d, which ONNX GridSample follows, in double, one output
 * element at a time.
 *
 * A grid value c in [-1, 1] maps to the input coordinate
 *   align_corners: (c + 1) / 2 * (size - 1)
 *   otherwise:     ((c + 1) * size - 1) / 2.
 * nearest and bilinear then apply the padding mode to that coordinate
 * (border: clamp to [0, size - 1]; reflection: reflect at the corner
 * centers (align_corners) or the outer edges, then clamp); nearest rounds
 * half to even (rt_interp_round_even), bilinear blends the four neighbours. bicubic blends the
 * 4x4 neighbours of the unpadded coordinate with Keys' cubic (A = -0.75),
 * applying the padding mode to each tap's index. Under every mode a tap
 * outside the input reads 0. */
#include <math.h>

#include "interp/kernels/kernels_impl.h"
#include "ir/op/plan.h"

static double unnormalize(double c, int64_t size, bool align) {
  return align ? (c + 1) / 2 * (double)(size - 1) : ((c + 1) * (double)size - 1) / 2;
}

/* Reflects v into [lo2 / 2, hi2 / 2] (the bounds doubled, as PyTorch). */
static double reflect(double v, double lo2, double hi2) {
  if (lo2 == hi2) return 0;
  const double lo = lo2 / 2, span = (hi2 - lo2) / 2;
  v = fabs(v - lo);
  const double extra = fmod(v, span);
  const double flips = floor(v / span);
  return fmod(flips, 2) == 0 ? extra + lo : span - extra + lo;
}

static double clip(double v, int64_t size) { return fmin(fmax(v, 0), (double)(size - 1)); }

static double pad_coord(double v, int64_t size, const rt_plan_grid_sample_t *p) {
  if (p->padding == RT_GRID_BORDER) return clip(v, size);
  if (p->padding == RT_GRID_REFLECTION) {
    v = p->align_corners ? reflect(v, 0, 2 * (double)(size - 1)) : reflect(v, -1, 2 * (double)size - 1);
    return clip(v, size);
  }
  return v;
}

/* data[n, c, y, x], or 0 outside (NaN coordinates are outside). */
static double tap(const rt_tensor_t *x, int64_t base, double y, double xc) {
  const int64_t H = x->shape[2], W = x->shape[3];
  if (!(y >= 0 && y < (double)H && xc >= 0 && xc < (double)W)) return 0;
  return rt_interp_load_f(x, base + (int64_t)y * W + (int64_t)xc);
}

static double cubic1(double t, double A) { return ((A + 2) * t - (A + 3)) * t * t + 1; }
static double cubic2(double t, double A) { return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A; }

static double sample(const rt_tensor_t *x, int64_t base, double gx, double gy,
                     const rt_plan_grid_sample_t *p) {
  const int64_t H = x->shape[2], W = x->shape[3];
  double ix = unnormalize(gx, W, p->align_corners), iy = unnormalize(gy, H, p->align_corners);
  if (p->method == RT_GRID_BICUBIC) {
    const double fx = floor(ix), fy = floor(iy), tx = ix - fx, ty = iy - fy, A = -0.75;
    const double wx[4] = {cubic2(tx + 1, A), cubic1(tx, A), cubic1(1 - tx, A), cubic2(2 - tx, A)};
    const double wy[4] = {cubic2(ty + 1, A), cubic1(ty, A), cubic1(1 - ty, A), cubic2(2 - ty, A)};
    double acc = 0;
    for (int32_t i = 0; i < 4; ++i) {
      double row = 0;
      for (int32_t j = 0; j < 4; ++j) {
        const double cx = pad_coord(fx - 1 + j, W, p), cy = pad_coord(fy - 1 + i, H, p);
        row += wx[j] * tap(x, base, cy, cx);
      }
      acc += wy[i] * row;
    }
    return acc;
  }
  ix = pad_coord(ix, W, p);
  iy = pad_coord(iy, H, p);
  if (p->method == RT_GRID_NEAREST) {
    return tap(x, base, rt_interp_round_even(iy), rt_interp_round_even(ix));
  }
  const double x0 = floor(ix), y0 = floor(iy), tx = ix - x0, ty = iy - y0;
  return tap(x, base, y0, x0) * (1 - tx) * (1 - ty) + tap(x, base, y0, x0 + 1) * tx * (1 - ty) +
         tap(x, base, y0 + 1, x0) * (1 - tx) * ty + tap(x, base, y0 + 1, x0 + 1) * tx * ty;
}

rt_status_t rt_interp_k_IMAGE_GRID_SAMPLE(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0], *g = call->args[1];
  rt_tensor_t *out = call->outs[0];
  rt_plan_input_t in[2];
  for (int32_t i = 0; i < 2; ++i) rt_ir_plan_input_of_tensor(call->args[i], &in[i]);
  rt_plan_grid_sample_t p;
  RT_RETURN_IF_ERROR(rt_interp_plan_status(call, rt_ir_plan_grid_sample(call->attrs, 2, in, &p)));
  if (x->shape[0] != g->shape[0]) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "data and grid differ in N (%lld vs %lld)",
                           (long long)x->shape[0], (long long)g->shape[0]);
  }
  const int64_t N = x->shape[0], C = x->shape[1], OH = g->shape[2], OW = g->shape[3];
  const int64_t plane = x->shape[2] * x->shape[3], opix = OH * OW;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < C; ++c) {
      const int64_t base = (n * C + c) * plane;
      for (int64_t o = 0; o < opix; ++o) {
        const double gx = rt_interp_load_f(g, (n * 2 + 0) * opix + o);
        const double gy = rt_interp_load_f(g, (n * 2 + 1) * opix + o);
        rt_interp_store_f(out, (n * C + c) * opix + o, sample(x, base, gx, gy, &p));
      }
    }
  }
  return RT_OK;
}
