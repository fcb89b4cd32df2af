/* Reference kernels of the pools (ir/op/pool.c): max/avg pooling in 1-d
 * and 2-d, global pools, adaptive pools.
 *
 * Window pools follow topi's pool_impl_nd: output (y, x) covers input taps
 * y * sh - pt + kh * dh (and likewise x) for kh < pool_size. Layouts are
 * any ordering of NCHW (NCW for 1-d), or NCHW{x}c, whose lanes are one
 * more loop. Window, padding and layout come
 * from the op's plan (rt_ir_plan_pool, ir/op/plan_nn.h) on the concrete
 * shapes. ceil_mode only changes the output size, which the plan
 * computed.
 *   max: the maximum over in-image taps; padding never wins (TVM pads with
 *        the lowest value), a window with no in-image tap gives the dtype's
 *        lowest value (-inf for floats). NaN propagates (numpy).
 *   avg: the sum over in-image taps divided by their count, or, with
 *        count_include_pad, by the count of taps inside the padded image
 *        [-pt, H + pb) (taps added by ceil_mode beyond the padding are never
 *        counted); a zero count gives 0. Sums are double; integer outputs
 *        truncate.
 * Global pools reduce all of H x W. Adaptive pools (topi adaptive_pool)
 * cover input [floor(i * H / OH), ceil((i + 1) * H / OH)) for output i.
 * The input is read whole into a double (int64 for integer max pools)
 * buffer, one dtype dispatch per tensor. */
#include <math.h>

#include "interp/kernels/kernels_impl.h"
#include "ir/op/plan.h"

/* The window in H, W (1-d: W only; H a window of 1 at stride 1), from
 * the plan. */
typedef struct window_t {
  int64_t size[2], stride[2], dil[2], pad_lo[2], pad_hi[2]; /* H, W */
} window_t;

static void read_window(const rt_plan_pool_t *plan, window_t *p) {
  const int32_t nsp = plan->nsp;
  *p = (window_t){{1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
  for (int32_t i = 0; i < nsp; ++i) {
    const int32_t k = 2 - nsp + i;
    p->size[k] = plan->pool_size[i];
    p->stride[k] = plan->strides[i];
    p->dil[k] = plan->dilation[i];
    p->pad_lo[k] = plan->pad_before[i];
    p->pad_hi[k] = plan->pad_after[i];
  }
}

/* The plan, and the N, C, H, W strides/extents of input and output. */
static rt_status_t views(const rt_interp_call_t *call, rt_plan_pool_t *plan, int64_t xs[4],
                         int64_t xe[4], int64_t os[4], int64_t oe[4]) {
  rt_plan_input_t in;
  rt_ir_plan_input_of_tensor(call->args[0], &in);
  RT_RETURN_IF_ERROR(rt_ir_plan_pool(call->op, call->attrs, 1, &in, plan));
  rt_interp_nchw_view(call->args[0], plan->pos, plan->nsp, xs, xe);
  rt_interp_nchw_view(call->outs[0], plan->pos, plan->nsp, os, oe);
  /* NCHW{x}c: the views above cover N, C/x, H, W; the lanes (stride 1 in
   * both) are the `lane` loops below. */
  if (xe[0] != oe[0] || xe[1] != oe[1]) {
    return RT_INTERP_ERROR(call, INTERNAL, "%s", "N or C differ between input and output");
  }
  return RT_OK;
}

/* Reduces the taps of one output element (`taps` lists n_in input flat
 * indices into xf, the input read whole as doubles): their maximum, or
 * their sum divided by `count`. */
static double reduce_taps(const double *xf, bool is_max, const int64_t *taps, int64_t n_in,
                          int64_t count) {
  if (is_max) {
    if (n_in == 0) return -INFINITY;
    double best = xf[taps[0]];
    for (int64_t t = 1; t < n_in && !isnan(best); ++t) {
      const double v = xf[taps[t]];
      if (isnan(v) || v > best) best = v;
    }
    return best;
  }
  double sum = 0;
  for (int64_t t = 0; t < n_in; ++t) sum += xf[taps[t]];
  return count > 0 ? sum / (double)count : 0.0;
}

/* The integer max (xi: the input read whole as int64), stored at oi; no
 * tap stores -inf as rt_interp_store_f does (the dtype's lowest). The only
 * element-wise store here: integer max pools are rare. */
static void max_taps_int(rt_tensor_t *out, int64_t oi, const int64_t *xi, bool uns,
                         const int64_t *taps, int64_t n_in) {
  if (n_in == 0) {
    rt_interp_store_f(out, oi, -INFINITY);
    return;
  }
  int64_t best = xi[taps[0]];
  for (int64_t t = 1; t < n_in; ++t) {
    const int64_t v = xi[taps[t]];
    if (uns ? (uint64_t)v > (uint64_t)best : v > best) best = v;
  }
  rt_interp_store_i(out, oi, best);
}

/* The buffers of a pool: integer max pools read int64 (xi) and store
 * element by element, every other pool reads doubles (xf) into a double
 * output buffer (of) stored once at the end. */
typedef struct bufs_t {
  bool int_max, uns;
  double *xf, *of;
  int64_t *xi;
} bufs_t;

static rt_status_t bufs_open(const rt_interp_call_t *call, bool is_max, bufs_t *b) {
  const rt_tensor_t *x = call->args[0];
  const rt_interp_class_t cls = rt_interp_class(x->dtype);
  *b = (bufs_t){is_max && cls != RT_INTERP_FLOAT, cls != RT_INTERP_SINT, NULL, NULL, NULL};
  if (b->int_max) return rt_interp_load_all_i(call, x, &b->xi);
  RT_RETURN_IF_ERROR(rt_interp_load_all_f(call, x, &b->xf));
  return rt_interp_scratch(call, call->outs[0]->numel, sizeof(double), false, (void **)&b->of);
}

static void bufs_put(const bufs_t *b, rt_tensor_t *out, int64_t oi, bool is_max,
                     const int64_t *taps, int64_t n_in, int64_t count) {
  if (b->int_max) {
    max_taps_int(out, oi, b->xi, b->uns, taps, n_in);
  } else {
    b->of[oi] = reduce_taps(b->xf, is_max, taps, n_in, count);
  }
}

static void bufs_close(const rt_interp_call_t *call, bufs_t *b, bool store) {
  if (store && !b->int_max) rt_interp_store_span_f(call->outs[0], 0, call->outs[0]->numel, b->of);
  rt_interp_scratch_free(call, b->xf);
  rt_interp_scratch_free(call, b->of);
  rt_interp_scratch_free(call, b->xi);
}

static rt_status_t pool(const rt_interp_call_t *call) {
  rt_tensor_t *out = call->outs[0];
  rt_plan_pool_t plan;
  int64_t xs[4], xe[4], os[4], oe[4];
  RT_RETURN_IF_ERROR(views(call, &plan, xs, xe, os, oe));
  window_t p;
  read_window(&plan, &p);
  const bool is_max = plan.is_max;
  const bool include_pad = !is_max && plan.count_include_pad;
  const int64_t ntaps = p.size[0] * p.size[1];
  int64_t *taps = NULL;
  bufs_t bufs;
  rt_status_t st = bufs_open(call, is_max, &bufs);
  if (!st) st = rt_interp_scratch(call, ntaps, sizeof(int64_t), false, (void **)&taps);
  const int64_t lanes = plan.block ? plan.block : 1;
  for (int64_t n = 0; n < oe[0] && !st; ++n)
    for (int64_t c = 0; c < oe[1]; ++c)
      for (int64_t y = 0; y < oe[2]; ++y)
        for (int64_t xx = 0; xx < oe[3]; ++xx)
          for (int64_t lane = 0; lane < lanes; ++lane) {
          int64_t n_in = 0, n_padded = 0;
          for (int64_t kh = 0; kh < p.size[0]; ++kh)
            for (int64_t kw = 0; kw < p.size[1]; ++kw) {
              int64_t sy = y * p.stride[0] - p.pad_lo[0] + kh * p.dil[0];
              int64_t sx = xx * p.stride[1] - p.pad_lo[1] + kw * p.dil[1];
              if (sy < xe[2] + p.pad_hi[0] && sx < xe[3] + p.pad_hi[1]) n_padded++;
              if (sy < 0 || sy >= xe[2] || sx < 0 || sx >= xe[3]) continue;
              taps[n_in++] = n * xs[0] + c * xs[1] + sy * xs[2] + sx * xs[3] + lane;
            }
          bufs_put(&bufs, out, n * os[0] + c * os[1] + y * os[2] + xx * os[3] + lane, is_max, taps,
                   n_in, include_pad ? n_padded : n_in);
        }
  bufs_close(call, &bufs, !st);
  rt_interp_scratch_free(call, taps);
  return st;
}

rt_status_t rt_interp_k_NN_MAX_POOL2D(const rt_interp_call_t *call) { return pool(call); }
rt_status_t rt_interp_k_NN_AVG_POOL2D(const rt_interp_call_t *call) { return pool(call); }
rt_status_t rt_interp_k_NN_MAX_POOL1D(const rt_interp_call_t *call) { return pool(call); }
rt_status_t rt_interp_k_NN_AVG_POOL1D(const rt_interp_call_t *call) { return pool(call); }

/* Global and adaptive pools: output (y, x) covers input rows
 * [floor(y * H / OH), ceil((y + 1) * H / OH)), and likewise columns (for a
 * global pool OH = OW = 1: everything). */
static rt_status_t adaptive(const rt_interp_call_t *call) {
  rt_tensor_t *out = call->outs[0];
  rt_plan_pool_t plan;
  int64_t xs[4], xe[4], os[4], oe[4];
  RT_RETURN_IF_ERROR(views(call, &plan, xs, xe, os, oe));
  const bool is_max = plan.is_max;
  int64_t *taps = NULL;
  bufs_t bufs;
  rt_status_t st = bufs_open(call, is_max, &bufs);
  if (!st) st = rt_interp_scratch(call, xe[2] * xe[3], sizeof(int64_t), false, (void **)&taps);
  const int64_t lanes = plan.block ? plan.block : 1;
  for (int64_t n = 0; n < oe[0] && !st; ++n)
    for (int64_t c = 0; c < oe[1]; ++c)
      for (int64_t y = 0; y < oe[2]; ++y)
        for (int64_t xx = 0; xx < oe[3]; ++xx)
          for (int64_t lane = 0; lane < lanes; ++lane) {
          const int64_t y0 = y * xe[2] / oe[2], y1 = ((y + 1) * xe[2] + oe[2] - 1) / oe[2];
          const int64_t x0 = xx * xe[3] / oe[3], x1 = ((xx + 1) * xe[3] + oe[3] - 1) / oe[3];
          int64_t n_in = 0;
          for (int64_t sy = y0; sy < y1; ++sy)
            for (int64_t sx = x0; sx < x1; ++sx) taps[n_in++] = n * xs[0] + c * xs[1] + sy * xs[2] + sx * xs[3] + lane;
          bufs_put(&bufs, out, n * os[0] + c * os[1] + y * os[2] + xx * os[3] + lane, is_max, taps,
                   n_in, n_in);
        }
  bufs_close(call, &bufs, !st);
  rt_interp_scratch_free(call, taps);
  return st;
}

rt_status_t rt_interp_k_NN_GLOBAL_AVG_POOL2D(const rt_interp_call_t *call) { return adaptive(call); }
rt_status_t rt_interp_k_NN_GLOBAL_MAX_POOL2D(const rt_interp_call_t *call) { return adaptive(call); }
rt_status_t rt_interp_k_NN_ADAPTIVE_AVG_POOL2D(const rt_interp_call_t *call) { return adaptive(call); }
rt_status_t rt_interp_k_NN_ADAPTIVE_MAX_POOL2D(const rt_interp_call_t *call) { return adaptive(call); }
rt_status_t rt_interp_k_NN_ADAPTIVE_AVG_POOL1D(const rt_interp_call_t *call) { return adaptive(call); }
rt_status_t rt_interp_k_NN_ADAPTIVE_MAX_POOL1D(const rt_interp_call_t *call) { return adaptive(call); }
