/* ONNX converters: the signal ops DFT and STFT (opset 17; table
 * rt_onnx_signal_ops), as decompositions into existing Relay ops.
 *
 * A DFT along one axis of length L (c = 1 real or 2 complex channels last)
 * is one matrix product: the axis moves next to the channels, the two are
 * flattened to L*c, and nn.matmul with a constant [L*c, 2m] matrix of
 * cosines and sines (m bins; rows past dft_length are zero, so a shorter
 * signal is zero-padded and a longer one truncated) gives the m (re, im)
 * pairs, which move back in place of the axis. The inverse uses the
 * conjugate matrix scaled by 1/n. STFT takes its frames with `take` and a
 * constant index, multiplies by the window and applies the same product.
 * O(n^2) work per transform: lengths whose matrix would pass 2^24
 * elements are refused, as are values these need at import (dft_length,
 * frame_step, frame_length) given as graph inputs. MelWeightMatrix is
 * refused (not yet). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "frontend/onnx/onnx_impl.h"

#define MAXR RT_TENSOR_MAX_RANK
#define MAX_MATRIX ((int64_t)1 << 24)

static bool is_float(rt_dtype_t d) {
  return rt_dtype_equal(d, RT_DTYPE_FLOAT32) || rt_dtype_equal(d, RT_DTYPE_FLOAT64);
}

/* The [len*c, 2m] DFT matrix of length n (rows k >= n zero) in dtype. */
static rt_status_t dft_matrix(rt_onnx_ctx_t *cx, rt_dtype_t dtype, int64_t len, int64_t c,
                              int64_t n, int64_t m, bool inverse, rt_ir_expr_t **out) {
  if (len * c * 2 * m > MAX_MATRIX) return rt_onnx_unsupported(cx, "a DFT this long (a dense matrix product)");
  int64_t shape[2] = {len * c, 2 * m};
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, dtype, 2, shape, &t));
  bool f64 = rt_dtype_equal(dtype, RT_DTYPE_FLOAT64);
  void *data = rt_tensor_data(t);
  double scale = inverse ? 1.0 / (double)n : 1.0, sigma = inverse ? -1.0 : 1.0;
  for (int64_t k = 0; k < len && k < n; ++k) {
    for (int64_t j = 0; j < m; ++j) {
      /* (jk mod n) keeps the angle small and exact. */
      double th = 6.283185307179586 * (double)((j * k) % n) / (double)n;
      double cs = cos(th) * scale, sn = sigma * sin(th) * scale;
      /* re += xr cos + xi sn, im += xi cos - xr sn */
      double v[2][2] = {{cs, -sn}, {sn, cs}};
      for (int64_t ch = 0; ch < c; ++ch) {
        for (int64_t part = 0; part < 2; ++part) {
          int64_t at = (k * c + ch) * 2 * m + j * 2 + part;
          if (f64) {
            ((double *)data)[at] = v[ch][part];
          } else {
            ((float *)data)[at] = (float)v[ch][part];
          }
        }
      }
    }
  }
  rt_status_t st = rt_onnx_constant(cx, t, out);
  rt_tensor_release(t);
  return st;
}

/* x: [B..., len, c] (rank r, static) -> [B..., m, 2]. */
static rt_status_t dft_last(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, int32_t r, const int64_t *shape,
                            rt_dtype_t dtype, int64_t n, int64_t m, bool inverse,
                            rt_ir_expr_t **out) {
  int64_t len = shape[r - 2], c = shape[r - 1];
  int64_t s[MAXR];
  memcpy(s, shape, (size_t)r * sizeof s[0]);
  s[r - 2] = len * c;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &x, &x, "newshape", rt_onnx_ints_text(cx, r - 1, s), NULL));
  rt_ir_expr_t *w = NULL;
  RT_RETURN_IF_ERROR(dft_matrix(cx, dtype, len, c, n, m, inverse, &w));
  rt_ir_expr_t *args[2] = {x, w};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "nn.matmul", 2, args, &x, NULL));
  s[r - 2] = m;
  s[r - 1] = 2;
  return rt_onnx_call(cx, "reshape", 1, &x, out, "newshape", rt_onnx_ints_text(cx, r, s), NULL);
}

static rt_status_t cv_dft(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                          int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  if (!rt_onnx_static_shape(t)) return rt_onnx_unsupported(cx, "DFT over `?` dims");
  if (!is_float(t->tensor.dtype)) return rt_onnx_unsupported(cx, "DFT on this element type (float and double are)");
  int32_t r = t->tensor.rank;
  const int64_t *shape = t->tensor.shape;
  if (r < 3 || shape[r - 1] < 1 || shape[r - 1] > 2) {
    return rt_onnx_bad(cx, "DFT's input must be [batch, ..., 1 or 2] of rank >= 3");
  }
  int64_t axis = rt_onnx_attr_int(cx, "axis", 1);
  if (axis < 0) axis += r;
  if (axis < 1 || axis > r - 2) return rt_onnx_bad(cx, "DFT's axis is out of range");
  bool inverse = rt_onnx_attr_int(cx, "inverse", 0) != 0;
  bool onesided = rt_onnx_attr_int(cx, "onesided", 0) != 0;
  if (inverse && onesided) return rt_onnx_unsupported(cx, "an inverse one-sided DFT");
  int64_t n = shape[axis];
  if (nin > 1 && in[1] != NULL) {
    int64_t v[1];
    int32_t nv = 0;
    RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[1], "dft_length", 1, v, &nv));
    if (nv != 1 || v[0] < 1) return rt_onnx_bad(cx, "dft_length must be one positive value");
    n = v[0];
  }
  int64_t m = onesided ? n / 2 + 1 : n;
  /* Move the axis next to the channels. */
  int64_t perm[MAXR], inv[MAXR], s[MAXR];
  int32_t np = 0;
  for (int32_t d = 0; d < r - 1; ++d) {
    if (d != axis) perm[np++] = d;
  }
  perm[np++] = axis;
  perm[np++] = r - 1;
  bool identity = true;
  for (int32_t d = 0; d < r; ++d) {
    inv[perm[d]] = d;
    s[d] = shape[perm[d]];
    identity = identity && perm[d] == d;
  }
  rt_ir_expr_t *x = in[0];
  if (!identity) RT_RETURN_IF_ERROR(rt_onnx_call(cx, "transpose", 1, &x, &x, "axes", rt_onnx_ints_text(cx, r, perm), NULL));
  RT_RETURN_IF_ERROR(dft_last(cx, x, r, s, t->tensor.dtype, n, m, inverse, &x));
  if (identity) {
    out[0] = x;
    return RT_OK;
  }
  return rt_onnx_call(cx, "transpose", 1, &x, &out[0], "axes", rt_onnx_ints_text(cx, r, inv), NULL);
}

/* STFT(signal [batch, L, c], frame_step, window?, frame_length?). */
static rt_status_t cv_stft(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                           int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  if (!rt_onnx_static_shape(t)) return rt_onnx_unsupported(cx, "STFT over `?` dims");
  if (!is_float(t->tensor.dtype)) return rt_onnx_unsupported(cx, "STFT on this element type (float and double are)");
  if (t->tensor.rank != 3 || t->tensor.shape[2] < 1 || t->tensor.shape[2] > 2) {
    return rt_onnx_bad(cx, "STFT's signal must be [batch, length, 1 or 2]");
  }
  int64_t batch = t->tensor.shape[0], len = t->tensor.shape[1], c = t->tensor.shape[2];
  int64_t v[1];
  int32_t nv = 0;
  RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[1], "frame_step", 1, v, &nv));
  if (nv != 1 || v[0] < 1) return rt_onnx_bad(cx, "frame_step must be one positive value");
  int64_t step = v[0], fl = -1;
  rt_ir_expr_t *window = nin > 2 ? in[2] : NULL;
  if (nin > 3 && in[3] != NULL) {
    RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[3], "frame_length", 1, v, &nv));
    if (nv != 1 || v[0] < 1) return rt_onnx_bad(cx, "frame_length must be one positive value");
    fl = v[0];
  }
  if (window != NULL) {
    const rt_ir_type_t *wt = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, window, 2, &wt));
    if (wt->tensor.rank != 1 || wt->tensor.shape[0] < 1) return rt_onnx_bad(cx, "STFT's window must be 1-d");
    if (fl >= 0 && wt->tensor.shape[0] != fl) return rt_onnx_bad(cx, "STFT's window and frame_length disagree");
    fl = wt->tensor.shape[0];
  }
  if (fl < 0) return rt_onnx_bad(cx, "STFT needs a window or a frame_length");
  if (fl > len) return rt_onnx_bad(cx, "STFT's frame is longer than the signal");
  bool onesided = rt_onnx_attr_int(cx, "onesided", 1) != 0;
  if (onesided && c == 2) return rt_onnx_bad(cx, "a one-sided STFT needs a real signal");
  int64_t frames = 1 + (len - fl) / step, m = onesided ? fl / 2 + 1 : fl;
  if (frames * fl > MAX_MATRIX) return rt_onnx_unsupported(cx, "an STFT with this many frames");
  /* idx[f, k] = f * step + k; take along the length axis. */
  int64_t ishape[2] = {frames, fl};
  rt_tensor_t *it = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, RT_DTYPE_INT64, 2, ishape, &it));
  int64_t *id = rt_tensor_data(it);
  for (int64_t f = 0; f < frames; ++f) {
    for (int64_t k = 0; k < fl; ++k) id[f * fl + k] = f * step + k;
  }
  rt_ir_expr_t *idx = NULL;
  rt_status_t st = rt_onnx_constant(cx, it, &idx);
  rt_tensor_release(it);
  RT_RETURN_IF_ERROR(st);
  rt_ir_expr_t *args[2] = {in[0], idx}, *x = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "take", 2, args, &x, "axis", "1", NULL));
  if (window != NULL) {
    int64_t ws[2] = {fl, 1};
    rt_ir_expr_t *w = window;
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &w, &w, "newshape", rt_onnx_ints_text(cx, 2, ws), NULL));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", x, w, &x));
  }
  int64_t s[4] = {batch, frames, fl, c};
  return dft_last(cx, x, 4, s, t->tensor.dtype, fl, m, false, &out[0]);
}

/* Not yet converted: refused naming the op and why. */
static rt_status_t cv_mel_weight_matrix(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                        rt_ir_expr_t **out, int32_t nout) {
  return rt_onnx_unsupported(cx, "MelWeightMatrix (its output shape comes from its input values; "
                                 "not yet converted)");
}

const rt_onnx_op_entry_t rt_onnx_signal_ops[] = {
    {"DFT", cv_dft},
    {"MelWeightMatrix", cv_mel_weight_matrix},
    {"STFT", cv_stft},
};
const int32_t rt_onnx_signal_ops_count = (int32_t)RT_COUNTOF(rt_onnx_signal_ops);
