/* Reference kernels of the convolutions (ir/op/conv.c): nn.conv1d,
 * nn.conv2d, nn.conv2d_transpose, and (conv_nchwc, at the end) the blocked
 * nn.contrib_conv2d_NCHWc / nn.contrib_depthwise_conv2d_NCHWc.
 *
 * One direct-summation core serves all three. Layouts are read letter by
 * letter (data NCHW/NHWC/NCW/NWC, kernel any permutation of OIHW / OIW,
 * e.g. HWIO, or nn.conv2d's OIHW{o}o panels, first copied into OIHW), so
 * a 1-d convolution is the 2-d one with H absent (extent 1, stride 0).
 * The output uses the data layout (out_layout must be "" or equal to it). With G = groups, C input and O output channels:
 *   conv:      out[n, o, y, x] = sum over c < C/G, kh, kw of
 *              in[n, g * C/G + c, y * sh - pt + kh * dh, x * sw - pl + kw * dw]
 *              * w[o, c, kh, kw], g = o / (O/G), out-of-image taps are 0;
 *              depthwise is G = C.
 *   transpose: the adjoint, out[n, o, y, x] = sum over c in group g, kh, kw
 *              with y + pt - kh * dh = iy * sh (0 <= iy < H) of
 *              in[n, c, iy, ix] * w[c, o % (O/G), kh, kw] (kernel IOHW: I = C,
 *              O = O/G); output_padding only enlarges the output, which the
 *              relation already did.
 * Strides, dilation, padding, groups and the layouts come from the op's
 * plan (rt_ir_plan_conv, ir/op/plan_nn.h), computed on the concrete
 * shapes. Float outputs accumulate in double; integer outputs (out_dtype
 * int32 for int8 inputs) in uint64, wrapping. The loops sweep one weight
 * over a whole plane at a time (rows contiguous in NCHW), keeping each
 * output's order of summation. */
#include "interp/kernels/kernels_impl.h"
#include "ir/op/plan.h"

static const char *out_layout(const rt_interp_call_t *call) {
  switch (call->op->id) {
    case RT_OP_NN_CONV1D: return rt_ir_attrs_conv1d(call->attrs).out_layout;
    case RT_OP_NN_CONV2D: return rt_ir_attrs_conv2d(call->attrs).out_layout;
    default: return rt_ir_attrs_conv2d_transpose(call->attrs).out_layout;
  }
}

/* The positions a in [0, n_a) whose partner b = a * stride + off lies in
 * [0, n_b): [*lo, *hi) (empty when none). A conv walks output positions a
 * and reads input b; a transpose walks input positions a and writes
 * output b. */
static void span(int64_t n_a, int64_t n_b, int64_t stride, int64_t off, int64_t *lo,
                 int64_t *hi) {
  int64_t a = 0, z = n_a;
  while (a < n_a && a * stride + off < 0) ++a;
  while (z > a && (z - 1) * stride + off >= n_b) --z;
  *lo = a;
  *hi = z;
}

/* A weight loaded whole (8-byte elements: double or int64) in nn.conv2d's
 * OIHW{ob}o layout, (O/ob, I, KH, KW, ob), replaced by the same weight in
 * OIHW: element (o, r), r = (i * KH + kh) * KW + kw < R, moves from
 * ((o / ob) * R + r) * ob + o % ob to o * R + r. */
static rt_status_t unpanel(const rt_interp_call_t *call, int64_t ob, int64_t o_n, int64_t r_n,
                          void **buf) {
  uint64_t *dst = NULL;
  RT_RETURN_IF_ERROR(rt_interp_scratch(call, o_n * r_n, sizeof(uint64_t), false, (void **)&dst));
  const uint64_t *src = *buf;
  for (int64_t o = 0; o < o_n; ++o)
    for (int64_t r = 0; r < r_n; ++r) dst[o * r_n + r] = src[((o / ob) * r_n + r) * ob + o % ob];
  rt_interp_scratch_free(call, *buf);
  *buf = dst;
  return RT_OK;
}

static rt_status_t conv(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *w = call->args[1];
  rt_tensor_t *out = call->outs[0];
  rt_plan_input_t in[2];
  rt_ir_plan_input_of_tensor(x, &in[0]);
  rt_ir_plan_input_of_tensor(w, &in[1]);
  rt_plan_conv_t plan;
  RT_RETURN_IF_ERROR(rt_ir_plan_conv(call->op, call->attrs, 2, in, &plan));
  if (!plan.out_is_data_layout) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "out_layout \"%s\" differs from data_layout",
                           out_layout(call));
  }
  const int32_t nsp = plan.nsp;
  const bool transpose = plan.transpose;
  int64_t xs[4], xe[4], ws[4], we[4], os[4], oe[4];
  rt_interp_nchw_view(x, plan.data_pos, nsp, xs, xe);
  rt_interp_nchw_view(w, plan.kernel_pos, nsp, ws, we);
  if (plan.kernel_out_block) {
    /* OIHW{ob}o: extents and strides of the OIHW copy unpanel makes. */
    we[0] = plan.kernel_o;
    ws[3] = 1, ws[2] = we[3], ws[1] = we[2] * we[3], ws[0] = we[1] * ws[1];
  }
  rt_interp_nchw_view(out, plan.out_pos, nsp, os, oe);
  /* H, W (1-d: W only; H has stride 1, no padding, extent 1). */
  struct {
    int64_t stride[2], dil[2], pad[2];
  } p = {{1, 1}, {1, 1}, {0, 0}};
  for (int32_t i = 0; i < nsp; ++i) {
    p.stride[2 - nsp + i] = plan.strides[i];
    p.dil[2 - nsp + i] = plan.dilation[i];
    p.pad[2 - nsp + i] = plan.pad_before[i]; /* the afters only shape the output */
  }
  const int64_t g = plan.groups, c = xe[1], o = oe[1];
  if (c % g != 0 || o % g != 0 || oe[0] != xe[0]) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "groups %lld do not divide %lld input and %lld output channels",
                           (long long)g, (long long)c, (long long)o);
  }
  const int64_t cg = c / g, og = o / g;
  /* Kernel extents: conv O = O, I = C/G; transpose I = C, O = O/G. */
  if ((!transpose && (we[0] != o || we[1] != cg)) || (transpose && (we[1] != c || we[0] != og))) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "weight channels do not match the data and groups");
  }
  /* Operands are read whole into double (float output) or int64 (integer
   * output) buffers, one dtype dispatch per tensor; the sums go into a
   * zeroed accumulator laid out like the output. */
  const bool is_float = rt_interp_class(out->dtype) == RT_INTERP_FLOAT;
  double *xf = NULL, *wf = NULL, *accf = NULL;
  int64_t *xi = NULL, *wi = NULL;
  uint64_t *acci = NULL;
  rt_status_t st = RT_OK;
  if (is_float) {
    st = rt_interp_load_all_f(call, x, &xf);
    if (!st) st = rt_interp_load_all_f(call, w, &wf);
    if (!st) st = rt_interp_scratch(call, out->numel, sizeof(double), true, (void **)&accf);
  } else {
    st = rt_interp_load_all_i(call, x, &xi);
    if (!st) st = rt_interp_load_all_i(call, w, &wi);
    if (!st) st = rt_interp_scratch(call, out->numel, sizeof(uint64_t), true, (void **)&acci);
  }
  if (!st && plan.kernel_out_block) {
    /* nn.conv2d's OIHW{ob}o weight, read into the OIHW order the loops
     * below index (ws, we above). */
    st = unpanel(call, plan.kernel_out_block, we[0], ws[0], is_float ? (void **)&wf : (void **)&wi);
  }
  /* Loop order: for each output channel, each tap (input channel cl of
   * its group, kh, kw) is one weight, swept over a whole image plane. Each
   * output element still sums its taps in (cl, kh, kw) order, as the
   * textbook loop does, so float results are the same to the bit. A conv
   * walks output rows y and reads input row y * sh - pt + kh * dh; a
   * transpose walks input rows iy and adds into output row
   * iy * sh - pt + kh * dh (its adjoint); likewise columns. */
  const int64_t ih = xe[2], iw = xe[3];
  const int64_t walk_h = transpose ? ih : oe[2], walk_w = transpose ? iw : oe[3];
  const int64_t hit_h = transpose ? oe[2] : ih, hit_w = transpose ? oe[3] : iw;
  const bool unit = !transpose && p.stride[1] == 1 && xs[3] == 1 && os[3] == 1;
  for (int64_t n = 0; n < oe[0] && !st; ++n)
    for (int64_t oc = 0; oc < o; ++oc) {
      const int64_t grp = oc / og;
      for (int64_t cl = 0; cl < cg; ++cl) {
        const int64_t ic = grp * cg + cl;
        for (int64_t kh = 0; kh < we[2]; ++kh)
          for (int64_t kw = 0; kw < we[3]; ++kw) {
            const int64_t widx = transpose
                ? ic * ws[1] + (oc % og) * ws[0] + kh * ws[2] + kw * ws[3]
                : oc * ws[0] + cl * ws[1] + kh * ws[2] + kw * ws[3];
            const int64_t offh = kh * p.dil[0] - p.pad[0], offw = kw * p.dil[1] - p.pad[1];
            int64_t a0, a1, b0, b1;
            span(walk_h, hit_h, p.stride[0], offh, &a0, &a1);
            span(walk_w, hit_w, p.stride[1], offw, &b0, &b1);
            if (a0 >= a1 || b0 >= b1) continue; /* the tap lies in the padding */
            if (is_float && unit && p.stride[0] == 1 && offw == 0 && b0 == 0 && b1 == oe[3] &&
                xs[2] == oe[3] && os[2] == oe[3]) {
              /* Whole rows, input and output rows the same length and
               * adjacent: rows a0..a1 are one contiguous run in both. */
              double *acc = accf + n * os[0] + oc * os[1] + a0 * os[2];
              const double *src = xf + n * xs[0] + ic * xs[1] + (a0 + offh) * xs[2];
              const double wv = wf[widx];
              for (int64_t k = 0; k < (a1 - a0) * oe[3]; ++k) acc[k] += src[k] * wv;
              continue;
            }
            for (int64_t a = a0; a < a1; ++a) {
              const int64_t hb = a * p.stride[0] + offh;
              const int64_t y = transpose ? hb : a, sy = transpose ? a : hb;
              const int64_t xrow = n * xs[0] + ic * xs[1] + sy * xs[2];
              const int64_t orow = n * os[0] + oc * os[1] + y * os[2];
              if (is_float && unit) {
                /* The same sum over contiguous rows (NCHW, column stride 1). */
                double *acc = accf + orow + b0;
                const double *src = xf + xrow + b0 + offw;
                const double wv = wf[widx];
                for (int64_t k = 0; k < b1 - b0; ++k) acc[k] += src[k] * wv;
              } else if (is_float) {
                const double wv = wf[widx];
                for (int64_t b = b0; b < b1; ++b) {
                  const int64_t wb = b * p.stride[1] + offw;
                  const int64_t xx = transpose ? wb : b, sx = transpose ? b : wb;
                  accf[orow + xx * os[3]] += xf[xrow + sx * xs[3]] * wv;
                }
              } else {
                const uint64_t wv = (uint64_t)wi[widx];
                for (int64_t b = b0; b < b1; ++b) {
                  const int64_t wb = b * p.stride[1] + offw;
                  const int64_t xx = transpose ? wb : b, sx = transpose ? b : wb;
                  acci[orow + xx * os[3]] += (uint64_t)xi[xrow + sx * xs[3]] * wv;
                }
              }
            }
          }
      }
    }
  if (!st && is_float) {
    rt_interp_store_span_f(out, 0, out->numel, accf);
  } else if (!st) {
    /* The wrapped sums as int64 (two's complement), stored modulo 2^bits. */
    int64_t *res = (int64_t *)acci;
    for (int64_t i = 0; i < out->numel; ++i) res[i] = rt_interp_u2s(acci[i]);
    rt_interp_store_span_i(out, 0, out->numel, res);
  }
  rt_interp_scratch_free(call, xf);
  rt_interp_scratch_free(call, wf);
  rt_interp_scratch_free(call, accf);
  rt_interp_scratch_free(call, xi);
  rt_interp_scratch_free(call, wi);
  rt_interp_scratch_free(call, acci);
  return st;
}

rt_status_t rt_interp_k_NN_CONV1D(const rt_interp_call_t *call) { return conv(call); }
rt_status_t rt_interp_k_NN_CONV2D(const rt_interp_call_t *call) { return conv(call); }
rt_status_t rt_interp_k_NN_CONV2D_TRANSPOSE(const rt_interp_call_t *call) { return conv(call); }

/* nn.contrib_conv2d_NCHWc and nn.contrib_depthwise_conv2d_NCHWc: the
 * textbook loop on the logical indices, each operand read through its
 * blocked layout (ir/op/plan_nn.h): with x, ib, ob, z the blocks of the
 * data, the weight's input and output channels and the output,
 *   out[n, o / z, y, xx, o % z] = sum over cl < C/G, kh, kw of
 *     data[n, c / x, y * sh - pt + kh * dh, xx * sw - pl + kw * dw, c % x]
 *     * w[o / ob, cl / ib, kh, kw, cl % ib, o % ob],  c = g * C/G + cl,
 *   g = o / (O/G), out-of-image taps 0, summed in (cl, kh, kw) order in
 * double as nn.conv2d's kernel above does (so a blocked convolution equals
 * nn.conv2d's result on the unblocked tensors to the bit). Float only. */
static rt_status_t conv_nchwc(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *w = call->args[1];
  rt_tensor_t *out = call->outs[0];
  rt_plan_input_t in[2];
  rt_ir_plan_input_of_tensor(x, &in[0]);
  rt_ir_plan_input_of_tensor(w, &in[1]);
  rt_plan_conv_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_conv(call->op, call->attrs, 2, in, &p));
  if (rt_interp_class(out->dtype) != RT_INTERP_FLOAT) {
    return RT_INTERP_ERROR(call, UNIMPLEMENTED, "%s", "blocked convolutions compute float outputs only");
  }
  const int64_t *wsh = rt_tensor_shape(w);
  const int64_t xb = p.data_block, ib = p.kernel_in_block, ob = p.kernel_out_block, z = p.out_block;
  const int64_t nb = p.batch, c = p.in_channels, o = p.out_channels, g = p.groups;
  const int64_t cg = c / g, og = o / g;
  const int64_t ih = p.in_size[0], iw = p.in_size[1], oh = p.out_size[0], ow = p.out_size[1];
  const int64_t kh_n = p.kernel_size[0], kw_n = p.kernel_size[1];
  double *xf = NULL, *wf = NULL, *res = NULL;
  rt_status_t st = rt_interp_load_all_f(call, x, &xf);
  if (!st) st = rt_interp_load_all_f(call, w, &wf);
  if (!st) st = rt_interp_scratch(call, out->numel, sizeof(double), true, (void **)&res);
  /* Strides of the blocked operands (row-major). */
  const int64_t xs3 = xb, xs2 = iw * xs3, xs1 = ih * xs2, xs0 = (c / xb) * xs1;
  const int64_t ws4 = ob, ws3 = ib * ws4, ws2 = wsh[3] * ws3, ws1 = wsh[2] * ws2, ws0 = wsh[1] * ws1;
  const int64_t os3 = z, os2 = ow * os3, os1 = oh * os2, os0 = (o / z) * os1;
  for (int64_t n = 0; n < nb && !st; ++n)
    for (int64_t oc = 0; oc < o; ++oc) {
      const int64_t grp = oc / og;
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) {
          double acc = 0;
          for (int64_t cl = 0; cl < cg; ++cl) {
            const int64_t ic = grp * cg + cl;
            for (int64_t kh = 0; kh < kh_n; ++kh) {
              const int64_t sy = y * p.strides[0] - p.pad_before[0] + kh * p.dilation[0];
              if (sy < 0 || sy >= ih) continue;
              for (int64_t kw = 0; kw < kw_n; ++kw) {
                const int64_t sx = xx * p.strides[1] - p.pad_before[1] + kw * p.dilation[1];
                if (sx < 0 || sx >= iw) continue;
                const double xv = xf[n * xs0 + (ic / xb) * xs1 + sy * xs2 + sx * xs3 + ic % xb];
                const double wv = wf[(oc / ob) * ws0 + (cl / ib) * ws1 + kh * ws2 + kw * ws3 +
                                     (cl % ib) * ws4 + oc % ob];
                acc += xv * wv;
              }
            }
          }
          res[n * os0 + (oc / z) * os1 + y * os2 + xx * os3 + oc % z] = acc;
        }
    }
  if (!st) rt_interp_store_span_f(out, 0, out->numel, res);
  rt_interp_scratch_free(call, xf);
  rt_interp_scratch_free(call, wf);
  rt_interp_scratch_free(call, res);
  return st;
}

rt_status_t rt_interp_k_NN_CONV2D_NCHWC(const rt_interp_call_t *call) { return conv_nchwc(call); }
rt_status_t rt_interp_k_NN_DEPTHWISE_CONV2D_NCHWC(const rt_interp_call_t *call) {
  return conv_nchwc(call);
}
