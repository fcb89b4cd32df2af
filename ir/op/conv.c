/* Type relations of the convolutions: nn.conv1d, nn.conv2d,
 * nn.conv2d_transpose and the blocked nn.contrib_conv2d_NCHWc /
 * nn.contrib_depthwise_conv2d_NCHWc (data NCHW{x}c, kernel OIHW{i}i{o}o,
 * out NCHW{z}c: ir/op/plan_nn.h), in one routine over S spatial dims. Layouts may be
 * any ordering of the primal letters (data NCW/NCHW/NHWC..., kernel
 * OIW/OIHW/HWIO..., out_layout "" = data_layout); nn.conv2d's kernel may
 * also be OIHW{o}o, output channels in panels of o (the layout
 * passes/dense_pack.c packs 1x1 weights in). Checks, as TVM's
 * Conv2DRel: data channels = weight I * groups (transpose: = weight I),
 * channels and kernel_size when given match the weight, output channels
 * divide by groups. Output spatial size:
 *   conv:      (in + pad_before + pad_after - ((k - 1) * dilation + 1)) / stride + 1
 *   transpose: (in - 1) * stride + (k - 1) * dilation + 1
 *              - pad_before - pad_after + output_padding
 * Any `?` operand makes that output dim `?`. rt_ir_plan_conv
 * (ir/op/plan_nn.h) does all of it: the relation, the reference kernel and
 * the lowerings read its plan. */
#include <string.h>

#include "ir/op/op_impl.h"
#include "ir/op/plan.h"
#include "runtime/assert.h"

#define MAXS RT_PLAN_MAX_SPATIAL

static bool any2(int64_t a, int64_t b) { return a == RT_DIM_ANY || b == RT_DIM_ANY; }

/* Reads a blocked layout: `prefix` followed by one or two "<digits><letter>"
 * splits (letters `s1`, then `s2` when given), e.g. "NCHW8c" or
 * "OIHW8i16o". false unless the text is exactly that, every factor in
 * 1..4096. */
static bool parse_blocked(const char *text, const char *prefix, char s1, char s2, int64_t *f1,
                          int64_t *f2) {
  const size_t n = strlen(prefix);
  if (strncmp(text, prefix, n) != 0) return false;
  const char *q = text + n;
  const char letters[2] = {s1, s2};
  int64_t *f[2] = {f1, f2};
  for (int32_t i = 0; i < (s2 ? 2 : 1); ++i) {
    int64_t v = 0;
    if (*q < '0' || *q > '9') return false;
    while (*q >= '0' && *q <= '9' && v <= 4096) v = v * 10 + (*q++ - '0');
    if (v < 1 || v > 4096 || *q++ != letters[i]) return false;
    *f[i] = v;
  }
  return *q == '\0';
}

/* nn.contrib_conv2d_NCHWc / nn.contrib_depthwise_conv2d_NCHWc: checks the
 * blocked layouts and operand shapes and gives the logical data (N, C, H,
 * W) and kernel (O, I, KH, KW) shapes the shared code checks. */
static rt_status_t blocked_shapes(const char *op, const char *data_layout,
                                  const char *kernel_layout, const char *out_layout,
                                  const rt_plan_input_t *in, rt_plan_conv_t *p, int64_t *d,
                                  int64_t *k) {
  int64_t unused = 0;
  if (!parse_blocked(data_layout, "NCHW", 'c', 0, &p->data_block, &unused)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: data_layout \"%s\" is not NCHW<x>c", op, data_layout);
  }
  if (!parse_blocked(kernel_layout, "OIHW", 'i', 'o', &p->kernel_in_block, &p->kernel_out_block)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: kernel_layout \"%s\" is not OIHW<i>i<o>o", op,
                     kernel_layout);
  }
  const char *ol = *out_layout ? out_layout : data_layout;
  if (!parse_blocked(ol, "NCHW", 'c', 0, &p->out_block, &unused)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: out_layout \"%s\" is not NCHW<x>c", op, ol);
  }
  if (in[0].rank != 5 || in[1].rank != 6) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: data must be 5-d (%s) and weight 6-d (%s), got ranks %d and %d",
                     op, data_layout, kernel_layout, (int)in[0].rank, (int)in[1].rank);
  }
  const int64_t *x = in[0].shape, *w = in[1].shape;
  if (x[4] != RT_DIM_ANY && x[4] != p->data_block) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: data's last dim is %lld, data_layout %s needs %lld", op,
                     (long long)x[4], data_layout, (long long)p->data_block);
  }
  if ((w[4] != RT_DIM_ANY && w[4] != p->kernel_in_block) ||
      (w[5] != RT_DIM_ANY && w[5] != p->kernel_out_block)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: weight's last dims are (%lld, %lld), kernel_layout %s needs (%lld, %lld)",
                     op, (long long)w[4], (long long)w[5], kernel_layout,
                     (long long)p->kernel_in_block, (long long)p->kernel_out_block);
  }
  d[0] = x[0];
  RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(x[1], p->data_block, &d[1]));
  d[2] = x[2];
  d[3] = x[3];
  RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(w[0], p->kernel_out_block, &k[0]));
  RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(w[1], p->kernel_in_block, &k[1]));
  k[2] = w[2];
  k[3] = w[3];
  for (int32_t i = 0; i < 4; ++i) p->data_pos[i] = p->kernel_pos[i] = p->out_pos[i] = i;
  p->out_is_data_layout = true;
  return RT_OK;
}

rt_status_t rt_ir_plan_conv(const rt_ir_op_t *opdef, const rt_ir_attrs_t *attrs,
                            int32_t nin, const rt_plan_input_t *in,
                            rt_plan_conv_t *p) {
  RT_ASSERT(nin >= 2);
  (void)nin;
  const char *op = opdef->name;
  const bool transpose = opdef->id == RT_OP_NN_CONV2D_TRANSPOSE;
  const bool blocked = opdef->id == RT_OP_NN_CONV2D_NCHWC || opdef->id == RT_OP_NN_DEPTHWISE_CONV2D_NCHWC;
  const int32_t S = opdef->id == RT_OP_NN_CONV1D ? 1 : 2;
  const char *dl = S == 2 ? "NCHW" : "NCW";
  const char *kl = S == 2 ? "OIHW" : "OIW";
  const char *spatial_names = S == 2 ? "HW" : "W";
  /* The three schemas share every field the plan reads. */
  rt_attr_list_t strides_l, padding_l, dilation_l, kernel_size_l, outpad_l = {NULL, 0};
  const char *data_layout, *kernel_layout, *out_layout;
  int64_t groups, channels;
  bool kernel_size_none, channels_none;
#define READ(a)                                                              \
  do {                                                                       \
    strides_l = (a).strides, padding_l = (a).padding, dilation_l = (a).dilation; \
    kernel_size_l = (a).kernel_size, kernel_size_none = (a).kernel_size_is_none; \
    data_layout = (a).data_layout, kernel_layout = (a).kernel_layout;        \
    out_layout = (a).out_layout, groups = (a).groups;                        \
    channels = (a).channels, channels_none = (a).channels_is_none;           \
  } while (0)
  if (transpose) {
    rt_attrs_conv2d_transpose_t a = rt_ir_attrs_conv2d_transpose(attrs);
    READ(a);
    outpad_l = a.output_padding;
  } else if (S == 2) {
    rt_attrs_conv2d_t a = rt_ir_attrs_conv2d(attrs);
    READ(a);
  } else {
    rt_attrs_conv1d_t a = rt_ir_attrs_conv1d(attrs);
    READ(a);
  }
#undef READ
  memset(p, 0, sizeof *p);
  p->nsp = S;
  p->transpose = transpose;
  p->out_rank = 2 + S;
  int64_t logical_d[4], logical_k[4];
  const int64_t *d = in[0].shape, *k = in[1].shape;
  if (blocked) {
    RT_RETURN_IF_ERROR(blocked_shapes(op, data_layout, kernel_layout, out_layout, in, p,
                                      logical_d, logical_k));
    d = logical_d;
    k = logical_k;
  } else {
    const char *ol = *out_layout ? out_layout : data_layout;
    RT_RETURN_IF_ERROR(rt_ir_op_layout_perm(op, "data_layout", data_layout, dl, p->data_pos));
    /* nn.conv2d's kernel OIHW{o}o: output channels in panels of o. */
    int64_t unused = 0;
    const bool panels = opdef->id == RT_OP_NN_CONV2D &&
                        parse_blocked(kernel_layout, "OIHW", 'o', 0, &p->kernel_out_block, &unused);
    if (panels) {
      for (int32_t i = 0; i < 4; ++i) p->kernel_pos[i] = i;
    } else {
      RT_RETURN_IF_ERROR(rt_ir_op_layout_perm(op, "kernel_layout", kernel_layout, kl, p->kernel_pos));
    }
    RT_RETURN_IF_ERROR(rt_ir_op_layout_perm(op, "out_layout", ol, dl, p->out_pos));
    p->out_is_data_layout = strcmp(ol, data_layout) == 0;
    if (in[0].rank != 2 + S || in[1].rank != 2 + S + (panels ? 1 : 0)) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: data must be %d-d and weight %d-d (%s), got ranks %d and %d",
                       op, (int)(2 + S), (int)(2 + S + (panels ? 1 : 0)), kernel_layout,
                       (int)in[0].rank, (int)in[1].rank);
    }
    if (panels) {
      const int64_t *w = in[1].shape;
      if (w[4] != RT_DIM_ANY && w[4] != p->kernel_out_block) {
        return RT_STATUS(INVALID_ARGUMENT, "%s: weight's last dim is %lld, kernel_layout %s needs %lld",
                         op, (long long)w[4], kernel_layout, (long long)p->kernel_out_block);
      }
      RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(w[0], p->kernel_out_block, &logical_k[0]));
      for (int32_t i = 1; i < 4; ++i) logical_k[i] = w[i];
      k = logical_k;
    }
  }
  const int32_t *dpos = p->data_pos, *kpos = p->kernel_pos, *opos = p->out_pos;
  const int64_t n = d[dpos[0]], c = d[dpos[1]];
  const int64_t wo = k[kpos[0]], wi = k[kpos[1]];
  p->batch = n;
  p->in_channels = c;
  p->kernel_o = wo;
  p->kernel_i = wi;
  if (groups < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: groups must be >= 1, got %lld", op,
                     (long long)groups);
  }
  p->groups = groups;
  int64_t *strides = p->strides, *dilation = p->dilation, *pb = p->pad_before;
  int64_t *pa = p->pad_after, *outpad = p->output_padding, *ksize = p->kernel_size;
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(op, "strides", strides_l, S, strides));
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(op, "dilation", dilation_l, S, dilation));
  RT_RETURN_IF_ERROR(rt_ir_op_padding(op, "padding", padding_l, S, pb, pa));
  if (transpose) RT_RETURN_IF_ERROR(rt_ir_op_ints_n(op, "output_padding", outpad_l, S, outpad));
  for (int32_t i = 0; i < S; ++i) {
    if (strides[i] < 1 || dilation[i] < 1 || outpad[i] < 0) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: strides and dilation must be >= 1 (and output_padding >= 0)", op);
    }
    ksize[i] = k[kpos[2 + i]];
  }
  if (!kernel_size_none) {
    int64_t given[MAXS];
    RT_RETURN_IF_ERROR(rt_ir_op_ints_n(op, "kernel_size", kernel_size_l, S, given));
    for (int32_t i = 0; i < S; ++i) {
      if (ksize[i] != RT_DIM_ANY && ksize[i] != given[i]) {
        return RT_STATUS(INVALID_ARGUMENT,
                         "%s: kernel_size %lld along %c but the weight has %lld", op,
                         (long long)given[i], spatial_names[i], (long long)ksize[i]);
      }
      ksize[i] = given[i];
    }
  }

  int64_t out_c;
  if (!transpose) {
    int64_t expect;
    RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(wi, groups, &expect));
    if (!any2(c, expect) && c != expect) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: data has %lld input channels but weight expects %lld (groups=%lld)",
                       op, (long long)c, (long long)expect, (long long)groups);
    }
    if (wo != RT_DIM_ANY && wo % groups != 0) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: %lld output channels do not divide into groups=%lld", op,
                       (long long)wo, (long long)groups);
    }
    out_c = wo;
  } else {
    if (!any2(c, wi) && c != wi) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: data has %lld input channels but weight expects %lld (groups=%lld)",
                       op, (long long)c, (long long)wi, (long long)groups);
    }
    /* The kernels split the input channels into groups: the interpreter
     * refused an uneven split and the JIT divided anyway. */
    if (c != RT_DIM_ANY && c % groups != 0) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: %lld input channels do not divide into groups=%lld", op,
                       (long long)c, (long long)groups);
    }
    RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(wo, groups, &out_c));
  }
  if (!channels_none) {
    if (out_c != RT_DIM_ANY && channels != out_c) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: channels=%lld but the weight gives %lld",
                       op, (long long)channels, (long long)out_c);
    }
    out_c = channels;
  }
  p->out_channels = out_c;

  int64_t *out = p->out_shape;
  out[opos[0]] = n;
  out[opos[1]] = out_c;
  for (int32_t i = 0; i < S; ++i) {
    const int64_t size = d[dpos[2 + i]];
    int64_t o;
    p->in_size[i] = size;
    if (any2(size, ksize[i])) {
      o = RT_DIM_ANY;
    } else {
      /* Values come from text: every step is overflow-checked. */
      int64_t dk, v;
      bool ovf = __builtin_mul_overflow(ksize[i] - 1, dilation[i], &dk) ||
                 __builtin_add_overflow(dk, 1, &dk);
      if (transpose) {
        ovf = ovf || __builtin_mul_overflow(size - 1, strides[i], &v) ||
              __builtin_add_overflow(v, dk, &v) || __builtin_sub_overflow(v, pb[i], &v) ||
              __builtin_sub_overflow(v, pa[i], &v) || __builtin_add_overflow(v, outpad[i], &v);
      } else {
        ovf = ovf || __builtin_add_overflow(size, pb[i], &v) ||
              __builtin_add_overflow(v, pa[i], &v) || __builtin_sub_overflow(v, dk, &v);
        v = ovf || v < 0 ? 0 : v / strides[i] + 1;
      }
      if (ovf || v < 1) {
        return RT_STATUS(INVALID_ARGUMENT,
                         "%s: output size along %c is not positive (input %lld, kernel %lld)",
                         op, spatial_names[i], (long long)size, (long long)ksize[i]);
      }
      o = v;
    }
    p->out_size[i] = o;
    out[opos[2 + i]] = o;
  }
  if (blocked) {
    /* (N, O, OH, OW) -> (N, O/z, OH, OW, z) */
    const int64_t z = p->out_block;
    if (out_c != RT_DIM_ANY && out_c % z != 0) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: %lld output channels do not split into blocks of %lld (out_layout)",
                       op, (long long)out_c, (long long)z);
    }
    if (opdef->id == RT_OP_NN_DEPTHWISE_CONV2D_NCHWC && c != RT_DIM_ANY && wi != RT_DIM_ANY &&
        (groups != c || wi != 1)) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: a depthwise convolution needs groups = the %lld input channels and 1 input channel per group, got groups=%lld and %lld",
                       op, (long long)c, (long long)groups, (long long)wi);
    }
    out[1] = out_c == RT_DIM_ANY ? RT_DIM_ANY : out_c / z;
    out[4] = z;
    p->out_rank = 5;
  }
  return RT_OK;
}

/* The 1x1 convolutions the CPU templates compute as the GEMM with its
 * operands swapped (output pixels its rows, output channels its columns:
 * conv2d.im2colT) where a small image leaves the direct template's
 * vectors of pixels half empty, and at every stride > 1. Fractions of the
 * FMA peak, 1 / 2 threads, 8 lanes, `build-rel/bench/bench_kernels 5 pw`
 * (best of two runs, each variant forced; 2-core AVX2 host shared with
 * other builds):
 *   1x1 conv          direct/im2col    swapped
 *   2048->512 @7        0.51 / 0.52   0.74 / 0.69
 *   320->1280 @7        0.60 / 0.57   0.75 / 0.71
 *   1024->256 @14       0.60 / 0.59   0.82 / 0.72
 *   256->1024 @14       0.81 / 0.77   0.85 / 0.80
 *   96->576 @14         0.79 / 0.73   0.76 / 0.72
 *   512->128 @28        0.64 / 0.65   0.77 / 0.64
 *   128->512 @28        0.84 / 0.82   0.79 / 0.76
 *   24->144 @56         0.59 / 0.56   0.50 / 0.42
 *   144->24 @56         0.76 / 0.76   0.17 / 0.16
 *   /2 1024->2048 @14   0.34 / 0.24   0.73 / 0.66
 *   /2 512->1024 @28    0.46 / 0.42   0.80 / 0.78
 *   /2 256->512 @56     0.70 / 0.64   0.80 / 0.64
 * so on 8 lanes: at least 64 output channels (a column panel is 16 or
 * more), and the image at most 14x14, or at most 28x28 with 256 or more
 * input channels, or a stride > 1.
 * On 16 lanes (a Zen 5 host, one core, the same command, each variant
 * forced, unpacked weights) the direct template's vectors of 16 pixels
 * fill well from 14x14 up (196 = 12.25 vectors), where the swapped GEMM's
 * tiles store their output one channel column at a time:
 *   1x1 conv          direct   swapped
 *   96->576 @14        0.80    0.68
 *   576->96 @14        0.80    0.77
 *   1024->256 @14      0.78    0.82
 *   256->1024 @14      0.81    0.80
 *   512->128 @28       0.87    0.81
 *   320->1280 @7       0.70    0.69
 *   2048->512 @7       0.63    0.71
 *   512->2048 @7       0.71    0.66
 * and in mobilenet_v2 (weights packed for the swapped GEMM against raw
 * for direct) its 14x14 layers took 1311 us swapped against 1125 direct
 * (`--profile`, 1 thread). With 1024 input channels the direct template's
 * weight rows (1-2 MB) outgrow L2 and it blocks K: resnet50's 1024->256
 * and 1024->512 @14 layers took 3231 and 1245 us swapped (packed) against
 * 4224 and 1714 direct, in one alternated pair of runs. So on 16 lanes:
 * strided, or at most 64 output pixels (7x7, 8x8), or at most 28x28 with
 * 1024 or more input channels.
 * One output pixel (the squeeze-and-excitation convolutions on a pooled
 * (N, C, 1, 1)) is a matrix-vector product: swapped with a 1-row tile
 * (templates.c) where the output channels are a multiple of 16, so that
 * DensePack packs the weight in panels read in place; the direct
 * template computed a tile of 32 pixel columns for 1. EfficientNet-B0's
 * 1152 -> 48 squeezes (16 lanes, 1 thread, --profile on an AVX-512 Xeon,
 * summed minima of 3 alternated rounds): 83 -> 31 us a run. With fewer
 * channels than that or a weight left unpacked the swapped GEMM packs B
 * at run time and was slower than direct (its 672 -> 28 squeezes 26 ->
 * 50 us). */
bool rt_ir_conv1x1_gemm_swapped(int64_t in_per_group, int64_t out_per_group, int64_t out_pixels,
                                bool strided, int32_t lanes) {
  if (in_per_group == 1 && out_per_group == 1) return false; /* depthwise */
  if (out_pixels == 1 && out_per_group % 16 == 0) return true;
  if (out_per_group < 64) return false;
  if (strided) return true;
  if (lanes >= 16) return out_pixels <= 64 || (out_pixels <= 784 && in_per_group >= 1024);
  return out_pixels <= 196 || (out_pixels <= 784 && in_per_group >= 256);
}

/* A k x k kernel with at most 64 output pixels (7x7, 8x8), where the
 * direct template's vectors of pixels run partly empty and a GEMM tile
 * of output-channel vectors fills every row: on 16 lanes 49 of 64 lanes
 * (ResNet's 3x3 layers at 7x7 ran at 0.65-0.69 of the peak in resnet18)
 * and the swapped 7-row tile fills all 49 rows; on 8 lanes the direct
 * 6x16 tile covers 64 pixels for 49 and the swapped 6x16 tile 54.
 * ResNet-18's 256 -> 512 3x3 stride-2 layer (14x14 -> 7x7) on an AVX2
 * host (Zen 3, 1 thread, `--profile` over 4 rounds in ABBA order):
 * direct 1843-2221 us (minima; means 2343-2914), swapped 1563-1889
 * (means 1770-2288); resnet18 faster in 12 of 16 alternated pairs of
 * runs (median of the pairs' ratios 0.91). On 8 lanes a strided one
 * of up to 196 output pixels (14x14) runs swapped too: ResNet-50's 256
 * -> 256 3x3 stride-2 layer (28x28 -> 14x14), same host, 4 rounds:
 * direct 3439-3618 us (minima; means 4496-5024), swapped 2975-3168
 * (4304-4609); its 128 -> 128 one onto 28x28 ran no faster swapped
 * (3215-3608 against 3347-3598). On 16 lanes too (an AVX-512 Xeon, 1
 * thread, --profile minima, 4 alternated rounds, weights packed in
 * panels of 32): ResNet-50's 256 -> 256 stride-2 layer 1637 -> 1450 us,
 * ResNet-18's 128 -> 256 (28x28 -> 14x14) 852 -> 669; the 128 -> 128
 * one onto 28x28 (784 pixels) ran 1.7x slower swapped, so it stays
 * direct. Stride-1 layers of that size are Winograd's
 * (passes/conv2d_winograd.c). */
bool rt_ir_conv_gemm_swapped(int64_t in_channels, int64_t out_channels, int64_t kh, int64_t kw,
                             int64_t out_pixels, bool strided, int32_t lanes) {
  if (kh == 1 && kw == 1) return rt_ir_conv1x1_gemm_swapped(in_channels, out_channels, out_pixels, strided, lanes);
  if (out_channels < 64 || in_channels < 16) return false;
  return out_pixels <= 64 || (strided && out_pixels <= 196);
}

static rt_status_t conv_rel(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *w;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &w));
  rt_plan_input_t in[2];
  rt_ir_plan_input_of_type(x, &in[0]);
  rt_ir_plan_input_of_type(w, &in[1]);
  rt_plan_conv_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_conv(ctx->op, ctx->attrs, 2, in, &p));
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "out_dtype", x->tensor.dtype, &dt));
  return rt_ir_op_make_tensor(ctx, dt, p.out_rank, p.out_shape, out_type);
}

rt_status_t rt_ir_rel_conv1d(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return conv_rel(ctx, out_type);
}

rt_status_t rt_ir_rel_conv2d(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return conv_rel(ctx, out_type);
}

rt_status_t rt_ir_rel_conv2d_nchwc(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return conv_rel(ctx, out_type);
}

rt_status_t rt_ir_rel_conv2d_transpose(const rt_ir_rel_ctx_t *ctx,
                                       rt_ir_type_t **out_type) {
  return conv_rel(ctx, out_type);
}
