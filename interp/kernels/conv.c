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
 * Padding has 1 value (all sides), 2 (top/bottom, left/right) or 4 (top,
 * left, bottom, right) for 2-d; 1 or 2 (left, right) for 1-d. Float
 * outputs accumulate in double; integer outputs (out_dtype int32 for int8
 * inputs) in uint64, wrapping. */
#include <string.h>

#include "interp/kernels/kernels_impl.h"

typedef struct conv_t {
  int64_t stride[2], dil[2], pad[2]; /* H, W; pad = top, left */
  int64_t groups;
  bool transpose;
} conv_t;

/* Reads `name` with 1 or nsp values into out[2] (H, W); 1-d fills W. */
static rt_status_t spatial(const rt_interp_call_t *call, const char *name, int32_t nsp,
                           int64_t dflt, int64_t out[2]) {
  int64_t v[4];
  int32_t n = rt_interp_ints(call, name, v, 4);
  out[0] = out[1] = dflt;
  if (n == 0) return RT_OK;
  if (n != 1 && n != nsp) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s needs 1 or %d values, got %d", name, nsp, n);
  }
  if (nsp == 1) {
    out[1] = v[0];
  } else {
    out[0] = v[0];
    out[1] = n == 1 ? v[0] : v[1];
  }
  return RT_OK;
}

/* Top and left padding (the bottom/right ones only shape the output). */
static rt_status_t padding(const rt_interp_call_t *call, int32_t nsp, int64_t pad[2]) {
  int64_t v[4];
  int32_t n = rt_interp_ints(call, "padding", v, 4);
  pad[0] = pad[1] = 0;
  if (n == 0) return RT_OK;
  if (nsp == 1) {
    if (n > 2) return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "padding needs 1 or 2 values, got %d", n);
    pad[1] = v[0];
    return RT_OK;
  }
  if (n != 1 && n != 2 && n != 4) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "padding needs 1, 2 or 4 values, got %d", n);
  }
  pad[0] = v[0];
  pad[1] = n == 1 ? v[0] : v[1];
  return RT_OK;
}

static void accumulate(bool is_float, double *accf, uint64_t *acci, const rt_tensor_t *x,
                       int64_t xi, const rt_tensor_t *w, int64_t wi) {
  if (is_float) {
    *accf += rt_interp_load_f(x, xi) * rt_interp_load_f(w, wi);
  } else {
    *acci += (uint64_t)rt_interp_load_i(x, xi) * (uint64_t)rt_interp_load_i(w, wi);
  }
}

static rt_status_t conv(const rt_interp_call_t *call, int32_t nsp, bool transpose) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *w = call->args[1];
  rt_tensor_t *out = call->outs[0];
  const char *dl = rt_attrs_string(call->attrs, "data_layout");
  const char *kl = rt_attrs_string(call->attrs, "kernel_layout");
  const char *ol = rt_attrs_string(call->attrs, "out_layout");
  if (*ol && strcmp(ol, dl) != 0) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "out_layout \"%s\" differs from data_layout", ol);
  }
  int64_t xs[4], xe[4], ws[4], we[4], os[4], oe[4];
  RT_RETURN_IF_ERROR(rt_interp_layout(call, "data_layout", dl, "NCHW", x, xs, xe));
  RT_RETURN_IF_ERROR(rt_interp_layout(call, "kernel_layout", kl, "OIHW", w, ws, we));
  RT_RETURN_IF_ERROR(rt_interp_layout(call, "data_layout", dl, "NCHW", out, os, oe));
  conv_t p;
  RT_RETURN_IF_ERROR(spatial(call, "strides", nsp, 1, p.stride));
  RT_RETURN_IF_ERROR(spatial(call, "dilation", nsp, 1, p.dil));
  RT_RETURN_IF_ERROR(padding(call, nsp, p.pad));
  p.groups = rt_attrs_int(call->attrs, "groups");
  const int64_t g = p.groups, c = xe[1], o = oe[1];
  if (g < 1 || c % g != 0 || o % g != 0 || oe[0] != xe[0]) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "groups %lld do not divide %lld input and %lld output channels",
                           (long long)g, (long long)c, (long long)o);
  }
  const int64_t cg = c / g, og = o / g;
  /* Kernel extents: conv O = O, I = C/G; transpose I = C, O = O/G. */
  if ((!transpose && (we[0] != o || we[1] != cg)) || (transpose && (we[1] != c || we[0] != og))) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "weight channels do not match the data and groups");
  }
  for (int32_t k = 0; k < 2; ++k) {
    if (p.stride[k] < 1 || p.dil[k] < 1) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "strides and dilation must be >= 1");
    }
  }
  const bool is_float = rt_interp_class(out->dtype) == RT_INTERP_FLOAT;
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
                accumulate(is_float, &accf, &acci, x,
                           n * xs[0] + ic * xs[1] + sy * xs[2] + sx * xs[3], w, wi);
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

rt_status_t rt_interp_k_NN_CONV1D(const rt_interp_call_t *call) { return conv(call, 1, false); }
rt_status_t rt_interp_k_NN_CONV2D(const rt_interp_call_t *call) { return conv(call, 2, false); }
rt_status_t rt_interp_k_NN_CONV2D_TRANSPOSE(const rt_interp_call_t *call) { return conv(call, 2, true); }
