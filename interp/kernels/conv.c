/* Reference kernels of the convolutions (ir/op/conv.c): nn.conv1d,
 * nn.conv2d, nn.conv2d_transpose.
 *
 * One direct-summation core serves all three. Layouts are read letter by
 * letter (data NCHW/NHWC/NCW/NWC, kernel any permutation of OIHW / OIW,
 * e.g. HWIO), so a 1-d convolution is the 2-d one with H absent (extent 1,
 * stride 0). The output uses the data layout (out_layout must be "" or
 * equal to it). With G = groups, C input and O output channels:
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
 * int32 for int8 inputs) in uint64, wrapping. */
#include "interp/kernels/kernels_impl.h"
#include "ir/op/plan.h"

static const char *out_layout(const rt_interp_call_t *call) {
  switch (call->op->id) {
    case RT_OP_NN_CONV1D: return rt_ir_attrs_conv1d(call->attrs).out_layout;
    case RT_OP_NN_CONV2D: return rt_ir_attrs_conv2d(call->attrs).out_layout;
    default: return rt_ir_attrs_conv2d_transpose(call->attrs).out_layout;
  }
}

static void accumulate(bool is_float, double *accf, uint64_t *acci, const rt_tensor_t *x,
                       int64_t xi, const rt_tensor_t *w, int64_t wi) {
  if (is_float) {
    *accf += rt_interp_load_f(x, xi) * rt_interp_load_f(w, wi);
  } else {
    *acci += (uint64_t)rt_interp_load_i(x, xi) * (uint64_t)rt_interp_load_i(w, wi);
  }
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
  const bool is_float = rt_interp_class(out->dtype) == RT_INTERP_FLOAT;
  /* float32 operands (almost every model) are read as floats directly: the
   * same sum, without a dtype dispatch per multiply-add. */
  const rt_dtype_t f32 = RT_DTYPE_FLOAT32;
  const float *xf = is_float && rt_dtype_equal(x->dtype, f32) && rt_dtype_equal(w->dtype, f32)
                        ? rt_tensor_data(x) : NULL;
  const float *wf = xf ? rt_tensor_data(w) : NULL;
  const int64_t kh_n = we[2], kw_n = we[3], ih = xe[2], iw = xe[3];
  for (int64_t n = 0; n < oe[0]; ++n)
    for (int64_t oc = 0; oc < o; ++oc)
      for (int64_t y = 0; y < oe[2]; ++y)
        for (int64_t xx = 0; xx < oe[3]; ++xx) {
          double accf = 0;
          uint64_t acci = 0;
          const int64_t grp = oc / og;
          for (int64_t cl = 0; cl < cg; ++cl) {
            const int64_t ic = grp * cg + cl;
            for (int64_t kh = 0; kh < kh_n; ++kh)
              for (int64_t kw = 0; kw < kw_n; ++kw) {
                int64_t sy, sx, wi;
                if (!transpose) {
                  sy = y * p.stride[0] - p.pad[0] + kh * p.dil[0];
                  sx = xx * p.stride[1] - p.pad[1] + kw * p.dil[1];
                  wi = oc * ws[0] + cl * ws[1] + kh * ws[2] + kw * ws[3];
                } else {
                  int64_t ty = y + p.pad[0] - kh * p.dil[0];
                  int64_t tx = xx + p.pad[1] - kw * p.dil[1];
                  if (ty < 0 || tx < 0 || ty % p.stride[0] || tx % p.stride[1]) continue;
                  sy = ty / p.stride[0];
                  sx = tx / p.stride[1];
                  wi = ic * ws[1] + (oc % og) * ws[0] + kh * ws[2] + kw * ws[3];
                }
                if (sy < 0 || sy >= ih || sx < 0 || sx >= iw) continue;
                const int64_t xi = n * xs[0] + ic * xs[1] + sy * xs[2] + sx * xs[3];
                if (xf) {
                  accf += (double)xf[xi] * (double)wf[wi];
                } else {
                  accumulate(is_float, &accf, &acci, x, xi, w, wi);
                }
              }
          }
          int64_t oi = n * os[0] + oc * os[1] + y * os[2] + xx * os[3];
          if (is_float) {
            rt_interp_store_f(out, oi, accf);
          } else {
            rt_interp_store_i(out, oi, rt_interp_u2s(acci));
          }
        }
  return RT_OK;
}

rt_status_t rt_interp_k_NN_CONV1D(const rt_interp_call_t *call) { return conv(call); }
rt_status_t rt_interp_k_NN_CONV2D(const rt_interp_call_t *call) { return conv(call); }
rt_status_t rt_interp_k_NN_CONV2D_TRANSPOSE(const rt_interp_call_t *call) { return conv(call); }
