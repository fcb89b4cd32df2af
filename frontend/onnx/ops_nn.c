/* ONNX converters, part two: the network ops — Conv, ConvTranspose, the
 * pools, Gemm and MatMul, Softmax/LogSoftmax, the normalizations, LRN,
 * Einsum's matmul forms (the general Einsum is ops_einsum.c).
 *
 * Padding: ONNX `pads` lists all begins then all ends, which for 2-d is
 * Relay's (top, left, bottom, right) order as is; auto_pad SAME_UPPER /
 * SAME_LOWER is computed from the input's static spatial dims (the extra
 * pixel goes at the end for UPPER, at the start for LOWER). MatMul follows
 * numpy: a 2-d right operand is nn.matmul (any rank on the left), batched
 * operands broadcast their batch dims and become nn.batch_matmul on 3-d
 * reshapes. Softmax before opset 13 flattens at `axis` (a 2-d softmax),
 * from 13 it is along one axis. LayerNormalization over the last axis is
 * nn.layer_norm, over several axes (or when Mean/InvStdDev are asked for)
 * it is written out with mean and rsqrt. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "frontend/onnx/onnx_impl.h"

#define MAXR RT_TENSOR_MAX_RANK


static int32_t rank_of_expr(const rt_ir_expr_t *e) {
  const rt_ir_type_t *t = rt_onnx_type(e);
  return t ? t->tensor.rank : 0;
}

static bool wants(rt_onnx_ctx_t *cx, int32_t k) {
  const Onnx__NodeProto *n = cx->node;
  return (size_t)k < n->n_output && n->output[k] && n->output[k][0];
}

/* Spatial window attributes shared by Conv, ConvTranspose and the pools. */
typedef struct window {
  int32_t nd;                 /* spatial dims */
  int64_t kernel[MAXR], strides[MAXR], dilations[MAXR], pads[2 * MAXR];
} window;

static rt_status_t ints_attr(rt_onnx_ctx_t *cx, const char *name, int32_t nd, int64_t dflt,
                             int64_t *out) {
  int32_t n = 0;
  const int64_t *v = NULL;
  for (int32_t i = 0; i < nd; ++i) out[i] = dflt;
  if (!rt_onnx_attr_ints(cx, name, &n, &v)) return RT_OK;
  if (n != nd) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT, "%s must have %d values, got %d",
                              name, (int)nd, (int)n);
  }
  memcpy(out, v, (size_t)n * sizeof(int64_t));
  return RT_OK;
}

/* Reads kernel_shape (or takes `kernel` from the weight), strides,
 * dilations and pads, resolving auto_pad against the input's shape. */
static rt_status_t read_window(rt_onnx_ctx_t *cx, const rt_ir_type_t *x, const int64_t *kernel,
                               bool dilations_attr, window *w) {
  int32_t nd = x->tensor.rank - 2;
  if (nd < 1) return rt_onnx_bad(cx, "the input must have rank >= 3");
  w->nd = nd;
  if (kernel) {
    memcpy(w->kernel, kernel, (size_t)nd * sizeof(int64_t));
    int32_t n = 0;
    const int64_t *v = NULL;
    if (rt_onnx_attr_ints(cx, "kernel_shape", &n, &v) && n == nd) memcpy(w->kernel, v, (size_t)nd * 8);
  } else {
    int32_t n = 0;
    const int64_t *v = NULL;
    if (!rt_onnx_attr_ints(cx, "kernel_shape", &n, &v) || n != nd) {
      return rt_onnx_bad(cx, "kernel_shape is required, one value per spatial dim");
    }
    memcpy(w->kernel, v, (size_t)nd * sizeof(int64_t));
  }
  RT_RETURN_IF_ERROR(ints_attr(cx, "strides", nd, 1, w->strides));
  if (dilations_attr) {
    RT_RETURN_IF_ERROR(ints_attr(cx, "dilations", nd, 1, w->dilations));
  } else {
    for (int32_t i = 0; i < nd; ++i) w->dilations[i] = 1;
  }
  RT_RETURN_IF_ERROR(ints_attr(cx, "pads", 2 * nd, 0, w->pads));
  for (int32_t i = 0; i < nd; ++i) {
    if (w->kernel[i] <= 0 || w->strides[i] <= 0 || w->dilations[i] <= 0) {
      return rt_onnx_bad(cx, "kernel_shape, strides and dilations must be positive");
    }
  }
  for (int32_t i = 0; i < 2 * nd; ++i) {
    if (w->pads[i] < 0) return rt_onnx_unsupported(cx, "negative pads");
  }
  const char *ap = rt_onnx_attr_string(cx, "auto_pad", "NOTSET");
  if (!strcmp(ap, "VALID")) {
    for (int32_t i = 0; i < 2 * nd; ++i) w->pads[i] = 0;
  } else if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
    for (int32_t i = 0; i < nd; ++i) {
      int64_t in = x->tensor.shape[2 + i];
      if (in < 0) return rt_onnx_unsupported(cx, "auto_pad over a `?` spatial dim");
      int64_t out = (in + w->strides[i] - 1) / w->strides[i];
      int64_t total = (out - 1) * w->strides[i] + (w->kernel[i] - 1) * w->dilations[i] + 1 - in;
      if (total < 0) total = 0;
      int64_t small = total / 2, big = total - small;
      bool upper = ap[5] == 'U';
      w->pads[i] = upper ? small : big;
      w->pads[i + nd] = upper ? big : small;
    }
  } else if (strcmp(ap, "NOTSET")) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT, "unknown auto_pad '%s'", ap);
  }
  return RT_OK;
}

/* ---- Conv ------------------------------------------------------------------ */

static rt_status_t add_bias(rt_onnx_ctx_t *cx, rt_ir_expr_t *y, rt_ir_expr_t *b,
                            rt_ir_expr_t **out) {
  if (!b) {
    *out = y;
    return RT_OK;
  }
  rt_ir_expr_t *args[2] = {y, b};
  return rt_onnx_call(cx, "nn.bias_add", 2, args, out, "axis", "1", NULL);
}

static rt_status_t cv_conv(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                           rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  const rt_ir_type_t *x = NULL, *wt = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &x));
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[1], 1, &wt));
  if (wt->tensor.rank != x->tensor.rank) return rt_onnx_bad(cx, "W and X differ in rank");
  window w;
  RT_RETURN_IF_ERROR(read_window(cx, x, wt->tensor.shape + 2, true, &w));
  if (w.nd > 2) return rt_onnx_unsupported(cx, "Conv with more than 2 spatial dims");
  int64_t group = rt_onnx_attr_int(cx, "group", 1);
  if (group <= 0) return rt_onnx_bad(cx, "group must be positive");
  rt_ir_expr_t *y = NULL;
  const char *ch = wt->tensor.shape[0] >= 0 ? rt_onnx_int_text(cx, wt->tensor.shape[0]) : "None";
  RT_RETURN_IF_ERROR(rt_onnx_call(
      cx, w.nd == 2 ? "nn.conv2d" : "nn.conv1d", 2, in, &y, "strides",
      rt_onnx_ints_text(cx, w.nd, w.strides), "padding", rt_onnx_ints_text(cx, 2 * w.nd, w.pads),
      "dilation", rt_onnx_ints_text(cx, w.nd, w.dilations), "groups", rt_onnx_int_text(cx, group),
      "channels", ch, "kernel_size", rt_onnx_ints_text(cx, w.nd, w.kernel), NULL));
  return add_bias(cx, y, nin > 2 ? in[2] : NULL, &out[0]);
}

/* A 3-d ConvTranspose (h1, issue 19) as one 2-d transposed convolution
 * per kernel depth kd: the depth slices of X (N * D rows) through weight
 * slice kd over H and W, each result spread along the output depth at
 * od = id * stride + kd * dilation (zeros between: a pad and a reshape),
 * shifted by kd * dilation, summed, then the depth pads cut and the
 * output padding added at the end. Exact up to the order of the sums.
 * Needs a static shape (the reshapes). k, s, d: D, H, W; pads: the three
 * begins, then the three ends; opad: per dim. */
static rt_status_t conv_transpose3d(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, rt_ir_expr_t *wt_e, const rt_ir_type_t *xt,
                                    const int64_t *k, const int64_t *s, const int64_t *d, const int64_t *pads,
                                    const int64_t *opad, int64_t group, const char *ch, rt_ir_expr_t **out) {
  if (!rt_onnx_static_shape(xt)) return rt_onnx_unsupported(cx, "a 3-d ConvTranspose of an input without a static shape");
  const int64_t N = xt->tensor.shape[0], C = xt->tensor.shape[1], D = xt->tensor.shape[2];
  const int64_t H = xt->tensor.shape[3], W = xt->tensor.shape[4];
  static const int64_t to_ndchw[5] = {0, 2, 1, 3, 4};
  const int64_t rows[4] = {N * D, C, H, W};
  rt_ir_expr_t *xr = NULL, *sum = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "transpose", 1, &x, &xr, "axes", rt_onnx_ints_text(cx, 5, to_ndchw), NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &xr, &xr, "newshape", rt_onnx_ints_text(cx, 4, rows), NULL));
  const int64_t full = (D - 1) * s[0] + (k[0] - 1) * d[0] + 1; /* output depth before pads */
  const int64_t hw_pads[4] = {pads[1], pads[2], pads[4], pads[5]};
  for (int64_t kd = 0; kd < k[0]; ++kd) {
    rt_ir_expr_t *wk = NULL, *z = NULL, *idx = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_INT64, (double)kd, &idx));
    rt_ir_expr_t *targs[2] = {wt_e, idx};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "take", 2, targs, &wk, "axis", "2", NULL));
    rt_ir_expr_t *cargs[2] = {xr, wk};
    RT_RETURN_IF_ERROR(rt_onnx_call(
        cx, "nn.conv2d_transpose", 2, cargs, &z, "channels", ch, "kernel_size", rt_onnx_ints_text(cx, 2, k + 1),
        "strides", rt_onnx_ints_text(cx, 2, s + 1), "output_padding", rt_onnx_ints_text(cx, 2, opad + 1), "padding",
        rt_onnx_ints_text(cx, 4, hw_pads), "dilation", rt_onnx_ints_text(cx, 2, d + 1), "groups",
        rt_onnx_int_text(cx, group), NULL));
    const rt_ir_type_t *zt = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, z, 0, &zt));
    const int64_t O = zt->tensor.shape[1], OH = zt->tensor.shape[2], OW = zt->tensor.shape[3];
    /* [N, D, O, OH, OW] -> [N, O, D, 1, OH, OW], s - 1 zeros after each depth, [N, O, D * s, OH, OW] */
    const int64_t nd6[6] = {N, D, O, 1, OH, OW};
    static const int64_t to_nod[6] = {0, 2, 1, 3, 4, 5};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &z, &z, "newshape", rt_onnx_ints_text(cx, 6, nd6), NULL));
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "transpose", 1, &z, &z, "axes", rt_onnx_ints_text(cx, 6, to_nod), NULL));
    rt_ir_expr_t *pv = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, xt->tensor.dtype, 0, &pv));
    char pw[200];
    snprintf(pw, sizeof pw, "[[0, 0], [0, 0], [0, 0], [0, %lld], [0, 0], [0, 0]]", (long long)(s[0] - 1));
    rt_ir_expr_t *pargs[2] = {z, pv};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "nn.pad", 2, pargs, &z, "pad_width", pw, NULL));
    const int64_t spread[5] = {N, O, D * s[0], OH, OW};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &z, &z, "newshape", rt_onnx_ints_text(cx, 5, spread), NULL));
    /* keep (D - 1) * s + 1 depths, then shift to kd * d within `full` */
    const int64_t keep = (D - 1) * s[0] + 1, before = kd * d[0], after = full - keep - kd * d[0];
    snprintf(pw, sizeof pw, "[[0, 0], [0, 0], [%lld, %lld], [0, 0], [0, 0]]", (long long)before,
             (long long)(after + (D * s[0] - keep)));
    pargs[0] = z;
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "nn.pad", 2, pargs, &z, "pad_width", pw, NULL));
    const int64_t b5[5] = {0, 0, 0, 0, 0}, e5[5] = {N, O, full, OH, OW};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "strided_slice", 1, &z, &z, "begin", rt_onnx_ints_text(cx, 5, b5), "end",
                                    rt_onnx_ints_text(cx, 5, e5), NULL));
    if (sum) {
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", sum, z, &sum));
    } else {
      sum = z;
    }
  }
  const rt_ir_type_t *st = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, sum, 0, &st));
  /* the depth pads cut (begin, end), output padding (zeros) at the end */
  const int64_t lo = pads[0], hi = full - pads[3];
  if (hi <= lo) return rt_onnx_bad(cx, "ConvTranspose's pads leave no output depth");
  const int64_t b5[5] = {0, 0, lo, 0, 0};
  const int64_t e5[5] = {st->tensor.shape[0], st->tensor.shape[1], hi, st->tensor.shape[3], st->tensor.shape[4]};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "strided_slice", 1, &sum, &sum, "begin", rt_onnx_ints_text(cx, 5, b5), "end",
                                  rt_onnx_ints_text(cx, 5, e5), NULL));
  if (opad[0] > 0) {
    rt_ir_expr_t *pv = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, xt->tensor.dtype, 0, &pv));
    char pw[160];
    snprintf(pw, sizeof pw, "[[0, 0], [0, 0], [0, %lld], [0, 0], [0, 0]]", (long long)opad[0]);
    rt_ir_expr_t *pargs[2] = {sum, pv};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "nn.pad", 2, pargs, &sum, "pad_width", pw, NULL));
  }
  *out = sum;
  return RT_OK;
}

static rt_status_t cv_conv_transpose(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                     rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  const rt_ir_type_t *x = NULL, *wt = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &x));
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[1], 1, &wt));
  /* 1-d runs as 2-d over a size-1 H (exact: the extra dim has kernel 1,
   * stride 1, no padding). */
  const bool one_d = x->tensor.rank == 3 && wt->tensor.rank == 3;
  const bool three_d = x->tensor.rank == 5 && wt->tensor.rank == 5;
  if (!one_d && !three_d && (x->tensor.rank != 4 || wt->tensor.rank != 4)) {
    return rt_onnx_unsupported(cx, "ConvTranspose other than 1-d, 2-d and 3-d");
  }
  /* auto_pad is handled below with output_shape (its meaning differs). */
  const int32_t nd = one_d ? 1 : three_d ? 3 : 2;
  int64_t kernel[3] = {wt->tensor.shape[2], one_d ? 1 : wt->tensor.shape[3], three_d ? wt->tensor.shape[4] : 1};
  int64_t strides[3], dil[3], pads[6], opad[3];
  RT_RETURN_IF_ERROR(ints_attr(cx, "strides", nd, 1, strides));
  RT_RETURN_IF_ERROR(ints_attr(cx, "dilations", nd, 1, dil));
  RT_RETURN_IF_ERROR(ints_attr(cx, "pads", 2 * nd, 0, pads));
  RT_RETURN_IF_ERROR(ints_attr(cx, "output_padding", nd, 0, opad));
  int32_t n = 0;
  const int64_t *v = NULL;
  if (rt_onnx_attr_ints(cx, "kernel_shape", &n, &v) && n == nd) memcpy(kernel, v, (size_t)nd * sizeof *kernel);
  const char *ap = rt_onnx_attr_string(cx, "auto_pad", "NOTSET");
  int64_t oshape[3] = {-1, -1, -1};
  bool have_oshape = rt_onnx_attr_ints(cx, "output_shape", &n, &v);
  if (have_oshape) {
    if (n != nd && n != nd + 2) return rt_onnx_bad(cx, "output_shape must list the spatial dims");
    memcpy(oshape, v + (n - nd), (size_t)nd * sizeof *oshape);
  } else if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
    for (int32_t i = 0; i < nd; ++i) oshape[i] = x->tensor.shape[2 + i] * strides[i];
    have_oshape = true;
  } else if (!strcmp(ap, "VALID")) {
    memset(pads, 0, sizeof pads);
  }
  if (have_oshape) {
    for (int32_t i = 0; i < nd; ++i) {
      int64_t inp = x->tensor.shape[2 + i];
      if (inp < 0) return rt_onnx_unsupported(cx, "output_shape with a `?` spatial dim");
      int64_t total = strides[i] * (inp - 1) + opad[i] + ((kernel[i] - 1) * dil[i] + 1) - oshape[i];
      if (total < 0) {
        opad[i] -= total;
        total = 0;
      }
      if (!strcmp(ap, "SAME_UPPER")) {
        pads[i] = total / 2;
        pads[i + nd] = total - total / 2;
      } else {
        pads[i] = total - total / 2;
        pads[i + nd] = total / 2;
      }
    }
  }
  int64_t group = rt_onnx_attr_int(cx, "group", 1);
  if (group <= 0) return rt_onnx_bad(cx, "group must be positive");
  for (int32_t i = 0; i < nd; ++i) {
    if (opad[i] >= strides[i] && opad[i] >= dil[i]) {
      return rt_onnx_unsupported(cx, "output_padding not smaller than stride or dilation");
    }
  }
  const char *ch = wt->tensor.shape[1] >= 0 ? rt_onnx_int_text(cx, wt->tensor.shape[1] * group) : "None";
  if (three_d) {
    rt_ir_expr_t *y3 = NULL;
    RT_RETURN_IF_ERROR(conv_transpose3d(cx, in[0], in[1], x, kernel, strides, dil, pads, opad, group, ch, &y3));
    return add_bias(cx, y3, nin > 2 ? in[2] : NULL, &out[0]);
  }
  rt_ir_expr_t *args[2] = {in[0], in[1]};
  if (one_d) {
    kernel[1] = kernel[0], kernel[0] = 1;
    strides[1] = strides[0], strides[0] = 1;
    dil[1] = dil[0], dil[0] = 1;
    opad[1] = opad[0], opad[0] = 0;
    const int64_t pe = pads[1];
    pads[1] = pads[0], pads[3] = pe, pads[0] = pads[2] = 0;
    for (int32_t k = 0; k < 2; ++k) {
      RT_RETURN_IF_ERROR(rt_onnx_call(cx, "expand_dims", 1, &in[k], &args[k], "axis", "2", NULL));
    }
  }
  rt_ir_expr_t *y = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(
      cx, "nn.conv2d_transpose", 2, args, &y, "channels", ch, "kernel_size",
      rt_onnx_ints_text(cx, 2, kernel), "strides", rt_onnx_ints_text(cx, 2, strides),
      "output_padding", rt_onnx_ints_text(cx, 2, opad), "padding", rt_onnx_ints_text(cx, 4, pads),
      "dilation", rt_onnx_ints_text(cx, 2, dil), "groups", rt_onnx_int_text(cx, group), NULL));
  if (one_d) RT_RETURN_IF_ERROR(rt_onnx_call(cx, "squeeze", 1, &y, &y, "axis", "[2]", NULL));
  return add_bias(cx, y, nin > 2 ? in[2] : NULL, &out[0]);
}

/* ---- pooling ------------------------------------------------------------- */

/* A 3-d pool (h1, issue 19) as two 2-d pools of the same kind: over H and
 * W with N, C*D as the rows, then over D with H'*W' as the width (a (kd,
 * 1) window). Exact for max; for average the window's count is the
 * product of its per-dim counts whether pads count or not, so the mean of
 * the per-(H, W) means is the mean, up to rounding. Needs a static shape
 * (the reshapes). */
static rt_status_t pool3d(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, const rt_ir_type_t *t, const int64_t *kernel,
                          const int64_t *strides, const int64_t *dil, const int64_t *pads, bool is_max,
                          bool ceil_mode, bool cip, rt_ir_expr_t **out) {
  if (t->tensor.rank != 5 || !rt_onnx_static_shape(t)) {
    return rt_onnx_unsupported(cx, "pooling over 3 spatial dims of an input without a static 5-d shape");
  }
  const int64_t *s = t->tensor.shape;
  const char *op = is_max ? "nn.max_pool2d" : "nn.avg_pool2d";
  const char *ceil = ceil_mode ? "True" : "False";
  const int64_t rows[4] = {s[0], s[1] * s[2], s[3], s[4]};
  rt_ir_expr_t *y = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &x, &y, "newshape", rt_onnx_ints_text(cx, 4, rows), NULL));
  const int64_t hw_pads[4] = {pads[1], pads[2], pads[4], pads[5]};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, op, 1, &y, &y, "pool_size", rt_onnx_ints_text(cx, 2, kernel + 1), "strides",
                                  rt_onnx_ints_text(cx, 2, strides + 1), "dilation", rt_onnx_ints_text(cx, 2, dil + 1),
                                  "padding", rt_onnx_ints_text(cx, 4, hw_pads), "ceil_mode", ceil,
                                  is_max ? NULL : "count_include_pad", cip ? "True" : "False", NULL));
  const rt_ir_type_t *yt = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, y, 0, &yt));
  const int64_t oh = yt->tensor.shape[2], ow = yt->tensor.shape[3];
  const int64_t planes[4] = {s[0], s[1], s[2], oh * ow};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &y, &y, "newshape", rt_onnx_ints_text(cx, 4, planes), NULL));
  const int64_t dk[2] = {kernel[0], 1}, ds[2] = {strides[0], 1}, dd[2] = {dil[0], 1};
  const int64_t d_pads[4] = {pads[0], 0, pads[3], 0};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, op, 1, &y, &y, "pool_size", rt_onnx_ints_text(cx, 2, dk), "strides",
                                  rt_onnx_ints_text(cx, 2, ds), "dilation", rt_onnx_ints_text(cx, 2, dd), "padding",
                                  rt_onnx_ints_text(cx, 4, d_pads), "ceil_mode", ceil,
                                  is_max ? NULL : "count_include_pad", cip ? "True" : "False", NULL));
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, y, 0, &yt));
  const int64_t back[5] = {s[0], s[1], yt->tensor.shape[2], oh, ow};
  return rt_onnx_call(cx, "reshape", 1, &y, out, "newshape", rt_onnx_ints_text(cx, 5, back), NULL);
}

/* MaxPool's Indices (h1, issue 19; opsets 8-18), for 2-d pools of a float
 * input with a static shape: the flat index ((n * C + c) * H + h) * W + w
 * (storage_order 1: ((n * C + c) * W + w) * H + h) of the first element
 * of each window, in row-major window order, equal to the pool's output
 * y, as ONNX Runtime picks it. Made of existing ops, exact: the input
 * padded with -inf, one strided slice per window offset (kh, kw) (the
 * element that offset reads for every output position), compared with
 * y, and a chain of `where` from the last offset to the first over
 * constant index tensors. */
static rt_status_t pool_indices(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, const rt_ir_type_t *t, const window *w,
                                rt_ir_expr_t *y, rt_ir_expr_t **out) {
  if (w->nd != 2 || !rt_onnx_static_shape(t) || !rt_dtype_is_float(t->tensor.dtype)) {
    return rt_onnx_unsupported(cx, "the Indices output of MaxPool other than of a 2-d pool of a float input "
                               "with a static shape");
  }
  const int64_t order = rt_onnx_attr_int(cx, "storage_order", 0);
  if (order != 0 && order != 1) return rt_onnx_bad(cx, "storage_order must be 0 or 1");
  const rt_ir_type_t *yt = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, y, 0, &yt));
  const int64_t N = t->tensor.shape[0], C = t->tensor.shape[1], H = t->tensor.shape[2], W = t->tensor.shape[3];
  const int64_t OH = yt->tensor.shape[2], OW = yt->tensor.shape[3];
  const int64_t kh = w->kernel[0], kw = w->kernel[1], sh = w->strides[0], sw = w->strides[1];
  const int64_t dh = w->dilations[0], dw = w->dilations[1], pt = w->pads[0], pl = w->pads[1];
  /* bottom and right padding that every window (ceil_mode's too) stays within */
  int64_t pb = (OH - 1) * sh + (kh - 1) * dh + 1 - pt - H, pr = (OW - 1) * sw + (kw - 1) * dw + 1 - pl - W;
  pb = pb > w->pads[2] ? pb : w->pads[2];
  pr = pr > w->pads[3] ? pr : w->pads[3];
  if (pb < 0) pb = 0;
  if (pr < 0) pr = 0;
  if (N * C * OH * OW > ((int64_t)1 << 26) || kh * kw > 4096) {
    return rt_onnx_unsupported(cx, "the Indices output of MaxPool for more than 2^26 outputs or 4096 window elements");
  }
  char pw[160];
  snprintf(pw, sizeof pw, "[[0, 0], [0, 0], [%lld, %lld], [%lld, %lld]]", (long long)pt, (long long)pb,
           (long long)pl, (long long)pr);
  rt_ir_expr_t *pargs[2] = {x, NULL}, *xp = NULL, *base = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, t->tensor.dtype, -INFINITY, &pargs[1]));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "nn.pad", 2, pargs, &xp, "pad_width", pw, NULL));
  /* (n * C + c) * H * W, as [N, C, 1, 1] */
  rt_tensor_t *bt = NULL, *kt = NULL;
  const int64_t bshape[4] = {N, C, 1, 1}, kshape[2] = {OH, OW};
  RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, RT_DTYPE_INT64, 4, bshape, &bt));
  for (int64_t i = 0; i < N * C; ++i) ((int64_t *)rt_tensor_data(bt))[i] = i * H * W;
  rt_status_t st = rt_onnx_constant(cx, bt, &base);
  rt_tensor_release(bt);
  RT_RETURN_IF_ERROR(st);
  rt_ir_expr_t *res = NULL;
  for (int64_t k = kh * kw - 1; k >= 0; --k) {
    const int64_t i = k / kw, j = k % kw;
    /* the flat (h, w) index that offset (i, j) reads at each output position */
    RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, RT_DTYPE_INT64, 2, kshape, &kt));
    int64_t *kv = rt_tensor_data(kt);
    for (int64_t oh = 0; oh < OH; ++oh) {
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t h = oh * sh + i * dh - pt, wc = ow * sw + j * dw - pl;
        h = h < 0 ? 0 : h >= H ? H - 1 : h; /* a padded position never equals y: any index does */
        wc = wc < 0 ? 0 : wc >= W ? W - 1 : wc;
        kv[oh * OW + ow] = order == 0 ? h * W + wc : wc * H + h;
      }
    }
    rt_ir_expr_t *idx = NULL, *sl = NULL, *eq = NULL;
    st = rt_onnx_constant(cx, kt, &idx);
    rt_tensor_release(kt);
    RT_RETURN_IF_ERROR(st);
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", base, idx, &idx));
    if (!res) {
      res = idx;
      continue;
    }
    const int64_t b[4] = {0, 0, i * dh, j * dw}, e[4] = {N, C, i * dh + (OH - 1) * sh + 1, j * dw + (OW - 1) * sw + 1};
    const int64_t s[4] = {1, 1, sh, sw};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "strided_slice", 1, &xp, &sl, "begin", rt_onnx_ints_text(cx, 4, b), "end",
                                    rt_onnx_ints_text(cx, 4, e), "strides", rt_onnx_ints_text(cx, 4, s), NULL));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "equal", sl, y, &eq));
    rt_ir_expr_t *wargs[3] = {eq, idx, res};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "where", 3, wargs, &res, NULL));
  }
  *out = res;
  return RT_OK;
}

static rt_status_t pool(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                        bool is_max) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *x = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &x));
  window w;
  bool dil_attr = is_max ? cx->opset >= 10 : cx->opset >= 19;
  RT_RETURN_IF_ERROR(read_window(cx, x, NULL, dil_attr, &w));
  if (w.nd > 3) return rt_onnx_unsupported(cx, "pooling with more than 3 spatial dims");
  bool ceil_mode = cx->opset >= 10 && rt_onnx_attr_int(cx, "ceil_mode", 0) != 0;
  if (w.nd == 3) {
    if (wants(cx, 1)) return rt_onnx_unsupported(cx, "the Indices output of MaxPool over 3 spatial dims");
    return pool3d(cx, in[0], x, w.kernel, w.strides, w.dilations, w.pads, is_max, ceil_mode,
                  rt_onnx_attr_int(cx, "count_include_pad", 0) != 0, &out[0]);
  }
  const char *op = w.nd == 2 ? (is_max ? "nn.max_pool2d" : "nn.avg_pool2d")
                             : (is_max ? "nn.max_pool1d" : "nn.avg_pool1d");
  const char *pool_size = rt_onnx_ints_text(cx, w.nd, w.kernel);
  const char *strides = rt_onnx_ints_text(cx, w.nd, w.strides);
  const char *dil = rt_onnx_ints_text(cx, w.nd, w.dilations);
  const char *pads = rt_onnx_ints_text(cx, 2 * w.nd, w.pads);
  if (is_max) {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, op, 1, in, &out[0], "pool_size", pool_size, "strides", strides,
                                    "dilation", dil, "padding", pads, "ceil_mode", ceil_mode ? "True" : "False",
                                    NULL));
    return wants(cx, 1) ? pool_indices(cx, in[0], x, &w, out[0], &out[1]) : RT_OK;
  }
  bool cip = rt_onnx_attr_int(cx, "count_include_pad", 0) != 0;
  return rt_onnx_call(cx, op, 1, in, &out[0], "pool_size", pool_size, "strides", strides,
                      "dilation", dil, "padding", pads, "ceil_mode", ceil_mode ? "True" : "False",
                      "count_include_pad", cip ? "True" : "False", NULL);
}

static rt_status_t cv_max_pool(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, int32_t nout) {
  return pool(cx, in, nin, out, true);
}
static rt_status_t cv_avg_pool(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, int32_t nout) {
  return pool(cx, in, nin, out, false);
}

static rt_status_t global_pool(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, bool is_max) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *x = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &x));
  int32_t r = x->tensor.rank;
  if (r < 3) return rt_onnx_bad(cx, "the input must have rank >= 3");
  if (r == 4) {
    return rt_onnx_call1(cx, is_max ? "nn.global_max_pool2d" : "nn.global_avg_pool2d", in[0], &out[0]);
  }
  int64_t axes[MAXR];
  for (int32_t d = 2; d < r; ++d) axes[d - 2] = d;
  return rt_onnx_call(cx, is_max ? "max" : "mean", 1, in, &out[0], "axis",
                      rt_onnx_ints_text(cx, r - 2, axes), "keepdims", "True", NULL);
}

static rt_status_t cv_global_avg_pool(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                      rt_ir_expr_t **out, int32_t nout) {
  return global_pool(cx, in, nin, out, false);
}
static rt_status_t cv_global_max_pool(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                      rt_ir_expr_t **out, int32_t nout) {
  return global_pool(cx, in, nin, out, true);
}

/* ---- Gemm, MatMul ---------------------------------------------------------- */

static rt_status_t scale(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, double s, rt_ir_expr_t **out) {
  if (s == 1.0) {
    *out = x;
    return RT_OK;
  }
  rt_ir_expr_t *c = NULL;
  const rt_ir_type_t *t = rt_onnx_type(x);
  RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, t ? t->tensor.dtype : RT_DTYPE_FLOAT32, s, &c));
  return rt_onnx_call2(cx, "multiply", x, c, out);
}

static rt_status_t cv_gemm(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                           rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  double alpha = rt_onnx_attr_float(cx, "alpha", 1.0);
  double beta = rt_onnx_attr_float(cx, "beta", 1.0);
  bool ta = rt_onnx_attr_int(cx, "transA", 0) != 0;
  bool tb = rt_onnx_attr_int(cx, "transB", 0) != 0;
  rt_ir_expr_t *a = in[0], *b = in[1], *y = NULL;
  if (ta) RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "transpose", a, &a));
  if (!tb) RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "transpose", b, &b));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "nn.dense", a, b, &y));
  RT_RETURN_IF_ERROR(scale(cx, y, alpha, &y));
  if (nin > 2 && in[2] && beta != 0.0) {
    rt_ir_expr_t *c = NULL;
    RT_RETURN_IF_ERROR(scale(cx, in[2], beta, &c));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", y, c, &y));
  }
  out[0] = y;
  return RT_OK;
}

/* x broadcast against the batch dims of `other` (rank ro): x + zeros of
 * other's shape with its matrix dims reduced to 1, numpy broadcasting
 * doing what broadcast_to cannot with `?` dims (adding +0 changes no
 * value but the sign of a -0). A keepdims sum, not a slice, makes the
 * zeros: the reductions lower with `?` dims, strided_slice not yet. */
static rt_status_t broadcast_batch(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, rt_ir_expr_t *other,
                                   int32_t ro, rt_ir_expr_t **out) {
  rt_ir_expr_t *z = NULL;
  int64_t axes[2] = {ro - 2, ro - 1};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "sum", 1, &other, &z, "axis", rt_onnx_ints_text(cx, 2, axes),
                                  "keepdims", "True", NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "zeros_like", z, &z));
  return rt_onnx_call2(cx, "add", x, z, out);
}

/* Does x (rank rx) already have the broadcast batch dims of x against y
 * (rank ry), whatever sizes the `?` dims take? */
static bool has_batch(const rt_ir_type_t *x, int32_t rx, const rt_ir_type_t *y, int32_t ry) {
  if (ry > rx) return false;
  for (int32_t d = 0; d < ry - 2; ++d) {
    int64_t yd = y->tensor.shape[d], xd = x->tensor.shape[d + (rx - ry)];
    if (yd != 1 && (yd < 0 || xd != yd)) return false;
  }
  return true;
}

/* A batched MatMul (ranks >= 2, one >= 3) with `?` dims: nn.batch_matmul
 * broadcasts a batch of 1 itself, so rank-3 operands go to it directly;
 * otherwise both operands are broadcast to the common batch dims (where
 * their types cannot show those are already there), the batch dims folded
 * into one (reshape's -3 merges two dims, `?` or not), and the result's
 * batch dims taken back from the broadcast a (reshape_like). */
static rt_status_t batched_matmul_any(rt_onnx_ctx_t *cx, rt_ir_expr_t *a, rt_ir_expr_t *b, int32_t ra,
                                      int32_t rb, rt_ir_expr_t **out) {
  if (ra <= 3 && rb == 3) {
    if (ra == 2) RT_RETURN_IF_ERROR(rt_onnx_call(cx, "expand_dims", 1, &a, &a, "axis", "0", NULL));
    rt_ir_expr_t *args[2] = {a, b};
    return rt_onnx_call(cx, "nn.batch_matmul", 2, args, out, "transpose_b", "False", NULL);
  }
  const rt_ir_type_t *ta = rt_onnx_type(a), *tb = rt_onnx_type(b);
  const int32_t nb = (ra > rb ? ra : rb) - 2;
  rt_ir_expr_t *af = a, *bf = b;
  if (!has_batch(ta, ra, tb, rb)) RT_RETURN_IF_ERROR(broadcast_batch(cx, a, b, rb, &af));
  if (!has_batch(tb, rb, ta, ra)) RT_RETURN_IF_ERROR(broadcast_batch(cx, b, a, ra, &bf));
  rt_ir_expr_t *a3 = af, *b3 = bf, *y = NULL;
  for (int32_t i = 1; i < nb; ++i) {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &a3, &a3, "newshape", "[-3, -2]", NULL));
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &b3, &b3, "newshape", "[-3, -2]", NULL));
  }
  rt_ir_expr_t *args[2] = {a3, b3};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "nn.batch_matmul", 2, args, &y, "transpose_b", "False", NULL));
  if (nb == 1) {
    *out = y;
    return RT_OK;
  }
  rt_ir_expr_t *ya[2] = {y, af};
  return rt_onnx_call(cx, "reshape_like", 2, ya, out, "lhs_begin", "0", "lhs_end", "1", "rhs_begin", "0",
                      "rhs_end", rt_onnx_int_text(cx, nb), NULL);
}

static rt_status_t matmul(rt_onnx_ctx_t *cx, rt_ir_expr_t *a, rt_ir_expr_t *b, rt_ir_expr_t **out) {
  const rt_ir_type_t *ta = NULL, *tb = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, a, 0, &ta));
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, b, 1, &tb));
  int32_t ra = ta->tensor.rank, rb = tb->tensor.rank;
  if (ra == 0 || rb == 0) return rt_onnx_bad(cx, "MatMul operands must have rank >= 1");
  if (rb == 1) {
    rt_ir_expr_t *b2 = NULL, *y = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "expand_dims", 1, &b, &b2, "axis", "1", NULL));
    RT_RETURN_IF_ERROR(matmul(cx, a, b2, &y));
    int32_t ry = rank_of_expr(y);
    return rt_onnx_call(cx, "squeeze", 1, &y, out, "axis", rt_onnx_ints_text(cx, 1, (int64_t[]){ry - 1}), NULL);
  }
  if (rb == 2) {
    rt_ir_expr_t *args[2] = {a, b};
    return rt_onnx_call(cx, "nn.matmul", 2, args, out, NULL);
  }
  if (ra == 1) {
    rt_ir_expr_t *a2 = NULL, *y = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "expand_dims", 1, &a, &a2, "axis", "0", NULL));
    RT_RETURN_IF_ERROR(matmul(cx, a2, b, &y));
    int32_t ry = rank_of_expr(y);
    return rt_onnx_call(cx, "squeeze", 1, &y, out, "axis", rt_onnx_ints_text(cx, 1, (int64_t[]){ry - 2}), NULL);
  }
  /* Batched: broadcast the batch dims, fold them into one. */
  int32_t nb = (ra > rb ? ra : rb) - 2;
  int64_t batch[MAXR];
  int64_t bsize = 1;
  bool all_static = true;
  for (int32_t d = 0; d < nb; ++d) {
    int32_t da = d - (nb - (ra - 2)), db = d - (nb - (rb - 2));
    int64_t x = da >= 0 ? ta->tensor.shape[da] : 1, y = db >= 0 ? tb->tensor.shape[db] : 1;
    if (x < 0 || y < 0) {
      all_static = false;
      continue;
    }
    if (x != y && x != 1 && y != 1) return rt_onnx_bad(cx, "the batch dims do not broadcast");
    batch[d] = x == 1 ? y : x;
    bsize *= batch[d];
  }
  int64_t m = ta->tensor.shape[ra - 2], k = ta->tensor.shape[ra - 1];
  int64_t kb = tb->tensor.shape[rb - 2], n = tb->tensor.shape[rb - 1];
  if (m < 0 || k < 0 || kb < 0 || n < 0) all_static = false;
  if (!all_static) return batched_matmul_any(cx, a, b, ra, rb, out);
  int64_t shp[MAXR];
  memcpy(shp, batch, (size_t)nb * sizeof(int64_t));
  rt_ir_expr_t *a3 = a, *b3 = b, *y = NULL;
  shp[nb] = m;
  shp[nb + 1] = k;
  if (ra - 2 != nb || bsize != 1) {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "broadcast_to", 1, &a3, &a3, "shape", rt_onnx_ints_text(cx, nb + 2, shp), NULL));
  }
  int64_t s3[3] = {bsize, m, k};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &a3, &a3, "newshape", rt_onnx_ints_text(cx, 3, s3), NULL));
  shp[nb] = kb;
  shp[nb + 1] = n;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "broadcast_to", 1, &b3, &b3, "shape", rt_onnx_ints_text(cx, nb + 2, shp), NULL));
  s3[1] = kb;
  s3[2] = n;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &b3, &b3, "newshape", rt_onnx_ints_text(cx, 3, s3), NULL));
  rt_ir_expr_t *args[2] = {a3, b3};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "nn.batch_matmul", 2, args, &y, "transpose_b", "False", NULL));
  shp[nb] = m;
  shp[nb + 1] = n;
  return rt_onnx_call(cx, "reshape", 1, &y, out, "newshape", rt_onnx_ints_text(cx, nb + 2, shp), NULL);
}

static rt_status_t cv_matmul(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                             rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  return matmul(cx, in[0], in[1], &out[0]);
}

/* Einsum's two-operand matmul forms ("ij,jk->ik", "bij,bjk->bik") and
 * their transposed-operand variants; every other equation is the general
 * decomposition (ops_einsum.c). */
static rt_status_t cv_einsum(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                             rt_ir_expr_t **out, int32_t nout) {
  const char *eq = rt_onnx_attr_string(cx, "equation", "");
  char a[16], b[16], c[16];
  int32_t na = 0, nb = 0, nc = 0, part = 0;
  for (const char *p = eq; *p; ++p) {
    if (*p == ' ') continue;
    if (*p == ',') { part = 1; continue; }
    if (*p == '-' && p[1] == '>') { part = 2; ++p; continue; }
    if (*p == '.') return rt_onnx_einsum_general(cx, in, nin, out);
    char *dst = part == 0 ? a : part == 1 ? b : c;
    int32_t *cnt = part == 0 ? &na : part == 1 ? &nb : &nc;
    if (*cnt >= 15) return rt_onnx_einsum_general(cx, in, nin, out);
    dst[(*cnt)++] = *p;
  }
  if (nin != 2 || part != 2 || na < 2 || na != nb || na != nc) {
    return rt_onnx_einsum_general(cx, in, nin, out);
  }
  /* Batch letters must agree in order and position; the last two of each
   * operand are one of the four matmul layouts. */
  for (int32_t i = 0; i + 2 < na; ++i) {
    if (a[i] != b[i] || a[i] != c[i]) return rt_onnx_einsum_general(cx, in, nin, out);
  }
  char m = c[na - 2], n = c[na - 1];
  char a0 = a[na - 2], a1 = a[na - 1], b0 = b[na - 2], b1 = b[na - 1];
  bool ta, tb;
  char k;
  if (a0 == m) { ta = false; k = a1; } else if (a1 == m) { ta = true; k = a0; } else return rt_onnx_einsum_general(cx, in, nin, out);
  if (b1 == n && b0 == k) tb = false; else if (b0 == n && b1 == k) tb = true; else return rt_onnx_einsum_general(cx, in, nin, out);
  /* A letter repeated within a term (a diagonal) or a summed letter in
   * the output is not a matmul. */
  for (int32_t i = 0; i < na; ++i) {
    if (c[i] == k) return rt_onnx_einsum_general(cx, in, nin, out);
    for (int32_t j = 0; j < i; ++j) {
      if (a[i] == a[j] || b[i] == b[j] || c[i] == c[j]) return rt_onnx_einsum_general(cx, in, nin, out);
    }
  }
  rt_ir_expr_t *x = in[0], *y = in[1];
  int64_t perm[MAXR];
  for (int32_t i = 0; i < na; ++i) perm[i] = i;
  perm[na - 2] = na - 1;
  perm[na - 1] = na - 2;
  if (ta) RT_RETURN_IF_ERROR(rt_onnx_call(cx, "transpose", 1, &x, &x, "axes", rt_onnx_ints_text(cx, na, perm), NULL));
  if (tb) RT_RETURN_IF_ERROR(rt_onnx_call(cx, "transpose", 1, &y, &y, "axes", rt_onnx_ints_text(cx, na, perm), NULL));
  return matmul(cx, x, y, &out[0]);
}

/* ---- softmax --------------------------------------------------------------- */

/* Softmax, LogSoftmax and Hardmax (`onnx_name`, for messages): before
 * opset 13 they act on the input flattened to 2-d at `axis`. */
static rt_status_t softmax(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                           const char *op, const char *onnx_name) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  int32_t r = t->tensor.rank;
  int64_t axis = rt_onnx_attr_int(cx, "axis", cx->opset >= 13 ? -1 : 1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= (r ? r : 1)) return rt_onnx_bad(cx, "axis is out of range");
  if (cx->opset >= 13 || axis == r - 1) {
    return rt_onnx_call(cx, op, 1, in, &out[0], "axis", rt_onnx_int_text(cx, axis), NULL);
  }
  if (!rt_onnx_static_shape(t)) {
    char what[64];
    snprintf(what, sizeof what, "%s (opset < 13) over `?` dims", onnx_name);
    return rt_onnx_unsupported(cx, what);
  }
  int64_t s2[2] = {1, 1};
  for (int32_t d = 0; d < r; ++d) s2[d < axis ? 0 : 1] *= t->tensor.shape[d];
  rt_ir_expr_t *x = in[0];
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &x, &x, "newshape", rt_onnx_ints_text(cx, 2, s2), NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, op, 1, &x, &x, "axis", "1", NULL));
  return rt_onnx_call(cx, "reshape", 1, &x, &out[0], "newshape",
                      rt_onnx_ints_text(cx, r, t->tensor.shape), NULL);
}

static rt_status_t cv_softmax(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                              rt_ir_expr_t **out, int32_t nout) {
  return softmax(cx, in, nin, out, "nn.softmax", "Softmax");
}
static rt_status_t cv_log_softmax(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                  rt_ir_expr_t **out, int32_t nout) {
  return softmax(cx, in, nin, out, "nn.log_softmax", "LogSoftmax");
}
static rt_status_t cv_hardmax(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                              rt_ir_expr_t **out, int32_t nout) {
  return softmax(cx, in, nin, out, "nn.hardmax", "Hardmax");
}

/* ---- normalization --------------------------------------------------------- */

static rt_status_t cv_batch_norm(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                 rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 5));
  if (wants(cx, 1) || wants(cx, 2) || wants(cx, 3) || wants(cx, 4) ||
      rt_onnx_attr_int(cx, "training_mode", 0)) {
    return rt_onnx_batch_norm_training(cx, in, nin, out, nout); /* ops_loss.c */
  }
  double eps = rt_onnx_attr_float(cx, "epsilon", 1e-5);
  rt_ir_expr_t *bn = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "nn.batch_norm", 5, in, &bn, "axis", "1", "epsilon",
                                  rt_onnx_float_text(cx, eps), NULL));
  return rt_onnx_get_item(cx, bn, 0, &out[0]);
}

static rt_status_t cv_instance_norm(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                    rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 3));
  double eps = rt_onnx_attr_float(cx, "epsilon", 1e-5);
  return rt_onnx_call(cx, "nn.instance_norm", 3, in, &out[0], "axis", "1", "epsilon",
                      rt_onnx_float_text(cx, eps), NULL);
}

static rt_status_t cv_layer_norm(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                 rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  const rt_ir_type_t *t = NULL, *st = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[1], 1, &st));
  int32_t r = t->tensor.rank;
  int64_t axis = rt_onnx_attr_int(cx, "axis", -1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return rt_onnx_bad(cx, "axis is out of range");
  double eps = rt_onnx_attr_float(cx, "epsilon", 1e-5);
  rt_ir_expr_t *bias = nin > 2 ? in[2] : NULL;
  bool simple = axis == r - 1 && !wants(cx, 1) && !wants(cx, 2) && st->tensor.rank == 1 &&
                (!bias || rank_of_expr(bias) == 1);
  if (simple && !bias) {
    int64_t c = st->tensor.shape[0];
    if (c < 0) {
      simple = false;
    } else {
      rt_tensor_t *z = NULL;
      RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, st->tensor.dtype, 1, &c, &z));
      rt_status_t s = rt_onnx_constant(cx, z, &bias);
      rt_tensor_release(z);
      RT_RETURN_IF_ERROR(s);
    }
  }
  if (simple) {
    rt_ir_expr_t *args[3] = {in[0], in[1], bias};
    return rt_onnx_call(cx, "nn.layer_norm", 3, args, &out[0], "axis", "-1", "epsilon",
                        rt_onnx_float_text(cx, eps), NULL);
  }
  int64_t axes[MAXR];
  for (int32_t d = (int32_t)axis; d < r; ++d) axes[d - axis] = d;
  const char *ax = rt_onnx_ints_text(cx, r - (int32_t)axis, axes);
  rt_ir_expr_t *x = in[0], *mean = NULL, *d = NULL, *var = NULL, *e = NULL, *inv = NULL, *y = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "mean", 1, &x, &mean, "axis", ax, "keepdims", "True", NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "subtract", x, mean, &d));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", d, d, &var));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "mean", 1, &var, &var, "axis", ax, "keepdims", "True", NULL));
  RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, t->tensor.dtype, eps, &e));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", var, e, &inv));
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "rsqrt", inv, &inv));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", d, inv, &y));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", y, in[1], &y));
  if (bias) RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", y, bias, &y));
  out[0] = y;
  if (nout > 1) out[1] = mean;
  if (nout > 2) out[2] = inv;
  return RT_OK;
}

static rt_status_t cv_lrn(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                          rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  int64_t size = rt_onnx_attr_int(cx, "size", 0);
  if (size <= 0) return rt_onnx_bad(cx, "size must be positive");
  return rt_onnx_call(cx, "nn.lrn", 1, in, &out[0], "size", rt_onnx_int_text(cx, size), "axis", "1",
                      "bias", rt_onnx_float_text(cx, rt_onnx_attr_float(cx, "bias", 1.0)), "alpha",
                      rt_onnx_float_text(cx, rt_onnx_attr_float(cx, "alpha", 1e-4)), "beta",
                      rt_onnx_float_text(cx, rt_onnx_attr_float(cx, "beta", 0.75)), NULL);
}

/* Resize (opsets 10, 11-18) -> image.resize2d on NCHW: only H and W may
 * change. Opset 10 has (X, scales) with asymmetric coordinates and floor
 * rounding, as has Upsample (opset 9; cv_upsample); 11+ has (X, roi,
 * scales, sizes). Constant scales or sizes
 * give image.resize2d (output dims floor(in * scale) or the sizes, of a
 * static input; scales also go to its `scales`, which the coordinate
 * transform uses as ONNX does); ones known only at run time give
 * dyn.image.resize2d, which reads them, and the input's dims, when it
 * runs (DynamicToStatic makes the same image.resize2d of them). */
static rt_status_t cv_resize(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                             rt_ir_expr_t **out, int32_t nout) {
  (void)nout;
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, cx->opset < 11 ? 2 : 1)); /* roi may be "" */
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  bool v10 = cx->opset < 11 || strcmp(cx->node->op_type, "Upsample") == 0;
  rt_ir_expr_t *scales = v10 ? in[1] : (nin > 2 ? in[2] : NULL);
  rt_ir_expr_t *sizes = v10 ? NULL : (nin > 3 ? in[3] : NULL);
  rt_ir_expr_t *runtime = NULL; /* sizes or scales known only at run time */
  if (rt_onnx_is_runtime(sizes)) {
    runtime = sizes;
  } else if (!(sizes && rt_onnx_is_const(sizes) && rt_tensor_numel(sizes->constant.value) != 0) &&
             rt_onnx_is_runtime(scales)) {
    runtime = scales;
  }
  /* Run-time sizes or scales are read with the input's run-time dims. */
  if (t->tensor.rank != 4 || (!runtime && !rt_onnx_static_shape(t))) {
    return rt_onnx_unsupported(cx, "Resize other than of a 4-d (NCHW) input with a static shape");
  }
  if (rt_onnx_attr_int(cx, "antialias", 0) != 0) return rt_onnx_unsupported(cx, "Resize with antialias");
  if (rt_onnx_attr(cx, "axes")) return rt_onnx_unsupported(cx, "Resize with axes");
  const char *policy = rt_onnx_attr_string(cx, "keep_aspect_ratio_policy", "stretch");
  if (strcmp(policy, "stretch") != 0) {
    return rt_onnx_unsupported(cx, "Resize with keep_aspect_ratio_policy other than stretch");
  }
  const int64_t *ish = t->tensor.shape;
  int64_t osz[4];
  char scales_text[96] = ""; /* constant scales: H's and W's, for the coordinate transform */
  if (runtime) {
    /* dyn.image.resize2d reads them (ints: sizes, floats: scales, one
     * per dim) when it runs: osz stays unread. */
  } else if (sizes && !(rt_onnx_is_const(sizes) && rt_tensor_numel(sizes->constant.value) == 0)) {
    int32_t n = 0;
    RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, sizes, "sizes", 4, osz, &n));
    if (n != 4) return rt_onnx_bad(cx, "sizes must have one value per dim");
  } else {
    if (!scales || !rt_onnx_is_const(scales)) {
      double unused = 0;
      RT_RETURN_IF_ERROR(rt_onnx_const_float(cx, scales, "scales", &unused));
      return rt_onnx_bad(cx, "Resize needs scales or sizes");
    }
    const rt_tensor_t *sc = scales->constant.value;
    if (rt_tensor_numel(sc) != 4) return rt_onnx_bad(cx, "scales must have one value per dim");
    for (int32_t d = 0; d < 4; ++d) {
      double f = rt_tensor_get_f64(sc, d);
      if (!(f > 0)) return rt_onnx_bad(cx, "scales must be > 0");
      if (!((double)ish[d] * f < 9e15)) return rt_onnx_bad(cx, "scales give a size out of range");
      osz[d] = (int64_t)floor((double)ish[d] * f);
    }
    /* ONNX maps coordinates with the scale, not out / in (they differ
     * when in * scale is not whole): image.resize2d's `scales`. */
    const double sh = rt_tensor_get_f64(sc, 2), sw = rt_tensor_get_f64(sc, 3);
    snprintf(scales_text, sizeof scales_text, "[%.17gf, %.17gf]", sh, sw);
  }
  if (!runtime && (osz[0] != ish[0] || osz[1] != ish[1])) {
    return rt_onnx_unsupported(cx, "Resize of the N or C dims");
  }
  const char *mode = rt_onnx_attr_string(cx, "mode", "nearest");
  const char *method = strcmp(mode, "nearest") == 0  ? "nearest_neighbor"
                       : strcmp(mode, "linear") == 0 ? "linear"
                       : strcmp(mode, "cubic") == 0  ? "cubic"
                                                     : NULL;
  if (!method) {
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED, "Resize mode '%s' is not supported",
                              mode);
  }
  const char *coord = v10 ? "asymmetric"
                          : rt_onnx_attr_string(cx, "coordinate_transformation_mode",
                                                "half_pixel");
  char roi_text[160] = "None";
  if (strcmp(coord, "tf_crop_and_resize") == 0) {
    /* h1: image.resize2d's roi (start_h, start_w, end_h, end_w) from ONNX's
     * (starts, then ends, of every dim), both constant: the dyn op has no
     * roi operand (not yet). */
    rt_ir_expr_t *roi = nin > 1 ? in[1] : NULL;
    rt_ir_expr_t *vars[2] = {roi, runtime};
    static const char *const what[2] = {"roi (tf_crop_and_resize)", "sizes or scales (tf_crop_and_resize)"};
    for (int32_t i = 0; i < 2; ++i) {
      if (vars[i] && vars[i]->kind == RT_IR_VAR) {
        return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED,
                                  "%s must be a constant; a value known only at run time is not supported: it "
                                  "is graph input '%s' (bind it as a constant when loading: --const-input "
                                  "%s=FILE.npy)", what[i], vars[i]->var.name, vars[i]->var.name);
      }
      if (vars[i] && !rt_onnx_is_const(vars[i])) {
        return rt_onnx_unsupported(cx, "Resize with tf_crop_and_resize and a roi, sizes or scales known only "
                                   "at run time");
      }
    }
    if (!roi || rt_tensor_numel(roi->constant.value) != 8) {
      return rt_onnx_bad(cx, "tf_crop_and_resize needs a roi of 2 values per dim");
    }
    const rt_tensor_t *rv = roi->constant.value;
    snprintf(roi_text, sizeof roi_text, "[%.17gf, %.17gf, %.17gf, %.17gf]", rt_tensor_get_f64(rv, 2),
             rt_tensor_get_f64(rv, 3), rt_tensor_get_f64(rv, 6), rt_tensor_get_f64(rv, 7));
  }
  const char *rounding = "";
  if (strcmp(mode, "nearest") == 0) {
    rounding = v10 ? "floor" : rt_onnx_attr_string(cx, "nearest_mode", "round_prefer_floor");
  }
  if (runtime) {
    rt_ir_expr_t *args[2] = {in[0], runtime};
    return rt_onnx_call(
        cx, "dyn.image.resize2d", 2, args, &out[0], "method", rt_onnx_str_text(cx, method),
        "coordinate_transformation_mode", rt_onnx_str_text(cx, coord), "rounding_method",
        rt_onnx_str_text(cx, rounding), "cubic_alpha",
        rt_onnx_float_text(cx, rt_onnx_attr_float(cx, "cubic_coeff_a", -0.75)), "cubic_exclude",
        rt_onnx_int_text(cx, rt_onnx_attr_int(cx, "exclude_outside", 0)), "extrapolation_value",
        rt_onnx_float_text(cx, rt_onnx_attr_float(cx, "extrapolation_value", 0.0)), NULL);
  }
  return rt_onnx_call(
      cx, "image.resize2d", 1, in, &out[0], "roi", roi_text, "scales", scales_text[0] ? scales_text : "None", "size",
      rt_onnx_ints_text(cx, 2, osz + 2), "method",
      rt_onnx_str_text(cx, method), "coordinate_transformation_mode", rt_onnx_str_text(cx, coord),
      "rounding_method", rt_onnx_str_text(cx, rounding), "cubic_alpha",
      rt_onnx_float_text(cx, rt_onnx_attr_float(cx, "cubic_coeff_a", -0.75)), "cubic_exclude",
      rt_onnx_int_text(cx, rt_onnx_attr_int(cx, "exclude_outside", 0)), "extrapolation_value",
      rt_onnx_float_text(cx, rt_onnx_attr_float(cx, "extrapolation_value", 0.0)), NULL);
}

/* Upsample (opset 9, deprecated since 10): Resize-10's (X, scales), modes
 * nearest and linear. Opsets 7-8 hold scales as an attribute: not yet. */
static rt_status_t cv_upsample(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, int32_t nout) {
  if (cx->opset < 9) return rt_onnx_unsupported(cx, "Upsample before opset 9 (scales as an attribute)");
  return cv_resize(cx, in, nin, out, nout);
}

const rt_onnx_op_entry_t rt_onnx_nn_ops[] = {
    {"AveragePool", cv_avg_pool},
    {"BatchNormalization", cv_batch_norm},
    {"Conv", cv_conv},
    {"ConvTranspose", cv_conv_transpose},
    {"Einsum", cv_einsum},
    {"Gemm", cv_gemm},
    {"GlobalAveragePool", cv_global_avg_pool},
    {"GlobalMaxPool", cv_global_max_pool},
    {"InstanceNormalization", cv_instance_norm},
    {"LRN", cv_lrn},
    {"LayerNormalization", cv_layer_norm},
    {"Hardmax", cv_hardmax},
    {"LogSoftmax", cv_log_softmax},
    {"MatMul", cv_matmul},
    {"MaxPool", cv_max_pool},
    {"Resize", cv_resize},
    {"Softmax", cv_softmax},
    {"Upsample", cv_upsample},
};
const int32_t rt_onnx_nn_ops_count = (int32_t)RT_COUNTOF(rt_onnx_nn_ops);
