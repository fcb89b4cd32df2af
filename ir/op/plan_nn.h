/* Plans of the nn family (see ir/op/plan.h); computed in ir/op/: the
 * dot-product anchors and the normalizations (nn.c), the convolutions
 * (conv.c), the pools (pool.c) and the image ops (image.c).
 *
 * Each takes the op (its id picks the variant, its name prefixes the
 * relation's messages), the call's attrs and its inputs. Spatial
 * attributes are expanded to one value per spatial dim (S = 1 or 2) and
 * layouts given as positions: pos[k] is where the k-th letter of the
 * canonical order (N, C, then the spatial letters; kernels O, I, ...)
 * sits in the tensor. Sizes read from a `?` dim are RT_DIM_ANY. */
#ifndef RT_IR_OP_PLAN_NN_H_
#define RT_IR_OP_PLAN_NN_H_

#include "ir/op/plan.h"

#define RT_PLAN_MAX_SPATIAL 2

/* ---- dense / matmul / batch_matmul (nn.c) ------------------------------ */

/* nn.dense (a (..., K) x weight (N, K)), nn.contrib_dense_pack (dense's
 * product with the weight prepacked (ceil(N/P), K, P), zero past N; N is
 * units, or every packed column), nn.matmul (a (..., M, K), or
 * (..., K, M) with transpose_a, x b (K, N) or (N, K) with transpose_b) and
 * nn.batch_matmul (3-d, a batch of 1 broadcasts). */
typedef struct rt_plan_matmul_t {
  bool transpose_a, transpose_b; /* dense: false, true */
  int32_t rank;                  /* of the output (= a's rank) */
  int64_t m, n, k;               /* out (..., M, N); K reduced */
  int64_t batch;                 /* batch_matmul: the output batch */
  int64_t batch_a, batch_b;      /* batch_matmul: a's and b's batch dims */
  int64_t pack;                  /* nn.contrib_dense_pack: the panel width P; else 0 */
  int64_t out_shape[RT_TENSOR_MAX_RANK];
} rt_plan_matmul_t;
RT_MUST_USE_RESULT rt_status_t rt_ir_plan_matmul(const rt_ir_op_t *op,
                                                 const rt_ir_attrs_t *attrs,
                                                 int32_t n,
                                                 const rt_plan_input_t *in,
                                                 rt_plan_matmul_t *out_plan);

/* ---- softmax and the normalizations (nn.c) ----------------------------- */

/* nn.softmax, nn.log_softmax, nn.batch_norm, nn.layer_norm,
 * nn.group_norm, nn.instance_norm, nn.lrn: the axis made non-negative,
 * the relation's checks done (channel vectors, num_groups, lrn size). */
typedef struct rt_plan_norm_t {
  int32_t axis;
  int64_t channels;   /* data's extent along axis */
  double epsilon;     /* norms */
  bool center, scale; /* norms: add beta, multiply by gamma */
  int64_t num_groups; /* group_norm; 1 otherwise */
  int64_t size;       /* lrn */
  double bias, alpha, beta; /* lrn */
} rt_plan_norm_t;
RT_MUST_USE_RESULT rt_status_t rt_ir_plan_norm(const rt_ir_op_t *op,
                                               const rt_ir_attrs_t *attrs,
                                               int32_t n,
                                               const rt_plan_input_t *in,
                                               rt_plan_norm_t *out_plan);

/* nn.l2_normalize: the axes made non-negative as a mask (axis None: all). */
typedef struct rt_plan_l2_normalize_t {
  bool reduced[RT_TENSOR_MAX_RANK];
  double eps;
} rt_plan_l2_normalize_t;
RT_MUST_USE_RESULT rt_status_t rt_ir_plan_l2_normalize(
    const rt_ir_op_t *op, const rt_ir_attrs_t *attrs, int32_t n,
    const rt_plan_input_t *in, rt_plan_l2_normalize_t *out_plan);

/* ---- convolutions (conv.c) --------------------------------------------- */

/* nn.conv1d, nn.conv2d, nn.conv2d_transpose, and the blocked
 * nn.contrib_conv2d_NCHWc / nn.contrib_depthwise_conv2d_NCHWc (TVM's
 * convention: data NCHW{x}c (N, C/x, H, W, x), kernel OIHW{i}i{o}o
 * (O/o, (C/G)/i, KH, KW, i, o), output NCHW{z}c; out_layout "" = the data
 * layout). For those the positions are the identity and every size below
 * is the logical (unblocked) one: channel c of the data lives at
 * [n, c / x, h, w, c % x], weight (o, i) at [o / ob, i / ib, kh, kw,
 * i % ib, o % ob].
 * nn.conv2d also takes kernel_layout "OIHW{o}o": the weight in panels of
 * o output channels, (O/o, I, KH, KW, o), weight (o, i) at [o / ob, i,
 * kh, kw, o % ob] (kernel_out_block = ob, kernel_in_block and the data and
 * out blocks 0, kernel_pos the identity, sizes logical). The swapped-GEMM
 * template reads its panels in place (passes/dense_pack.c makes it). */
typedef struct rt_plan_conv_t {
  int32_t nsp;    /* spatial dims S */
  bool transpose;
  int64_t groups;
  int64_t strides[RT_PLAN_MAX_SPATIAL], dilation[RT_PLAN_MAX_SPATIAL];
  int64_t pad_before[RT_PLAN_MAX_SPATIAL], pad_after[RT_PLAN_MAX_SPATIAL];
  int64_t output_padding[RT_PLAN_MAX_SPATIAL]; /* transpose; else 0 */
  int32_t data_pos[2 + RT_PLAN_MAX_SPATIAL];   /* N, C, spatial */
  int32_t kernel_pos[2 + RT_PLAN_MAX_SPATIAL]; /* O, I, spatial */
  int32_t out_pos[2 + RT_PLAN_MAX_SPATIAL];    /* N, C, spatial */
  bool out_is_data_layout; /* out_layout "" or the data layout */
  /* Sizes: data N x C, weight O x I (its first two letters' extents),
   * output channels, kernel (kernel_size when given), input and output
   * spatial extents; the output shape in out_layout. */
  int64_t batch, in_channels, kernel_o, kernel_i, out_channels;
  int64_t kernel_size[RT_PLAN_MAX_SPATIAL];
  int64_t in_size[RT_PLAN_MAX_SPATIAL], out_size[RT_PLAN_MAX_SPATIAL];
  int64_t out_shape[3 + RT_PLAN_MAX_SPATIAL]; /* out_rank dims */
  int32_t out_rank;                            /* 2 + nsp; blocked: 5 */
  /* Blocked ops: the block factors x, ib, ob, z (all 0 otherwise);
   * nn.conv2d with an OIHW{o}o kernel: ob only. */
  int64_t data_block, kernel_in_block, kernel_out_block, out_block;
} rt_plan_conv_t;
RT_MUST_USE_RESULT rt_status_t rt_ir_plan_conv(const rt_ir_op_t *op,
                                               const rt_ir_attrs_t *attrs,
                                               int32_t n,
                                               const rt_plan_input_t *in,
                                               rt_plan_conv_t *out_plan);
/* Whether a 1x1 convolution (per group in_per_group -> out_per_group
 * channels over out_pixels output pixels, strided or not) runs as the GEMM
 * with its operands swapped, pixels as rows and output channels as
 * columns (jit/templates/conv2d.c's conv2d.im2colT), rather than direct,
 * for templates of `lanes` float lanes (8 or 16): the CPU templates' rule,
 * shared by their planner (jit/templates/templates.c) and the pass that
 * packs those weights for that GEMM (passes/dense_pack.c, with
 * rt_pass_template_lanes); measured in ir/op/conv.c. */
bool rt_ir_conv1x1_gemm_swapped(int64_t in_per_group, int64_t out_per_group, int64_t out_pixels,
                                bool strided, int32_t lanes);
/* The same for a convolution of groups 1 with a KH x KW kernel (1x1:
 * rt_ir_conv1x1_gemm_swapped): A is then its input's taps, read from a
 * zero-padded copy through tables of pixels and taps. */
bool rt_ir_conv_gemm_swapped(int64_t in_channels, int64_t out_channels, int64_t kh, int64_t kw,
                             int64_t out_pixels, bool strided, int32_t lanes);

/* ---- pools (pool.c) ---------------------------------------------------- */

typedef enum rt_plan_pool_kind_e {
  RT_PLAN_POOL_WINDOW,   /* max/avg pool 1-d, 2-d */
  RT_PLAN_POOL_GLOBAL,   /* global max/avg pool 2-d */
  RT_PLAN_POOL_ADAPTIVE, /* adaptive max/avg pool 1-d, 2-d */
} rt_plan_pool_kind_t;

/* Every pool. Window pools: output i covers input taps
 * i * strides - pad_before + k * dilation, k < pool_size. Global and
 * adaptive pools: output i covers [floor(i * in / out),
 * ceil((i + 1) * in / out)). */
typedef struct rt_plan_pool_t {
  rt_plan_pool_kind_t kind;
  bool is_max;
  int32_t nsp;
  int32_t pos[2 + RT_PLAN_MAX_SPATIAL]; /* N, C, spatial in the layout */
  /* Layout NCHW{x}c (2-d pools only): block = x, the input and output are
   * 5-d (N, C/x, H, W, x), pos the identity and lane axis 4 is carried
   * through unchanged (pools never mix channels); else 0. */
  int64_t block;
  int32_t rank; /* of input and output: 2 + nsp, or 5 when blocked */
  bool out_is_layout;                   /* out_layout "" or the layout */
  /* Window pools (zero for the others). */
  int64_t pool_size[RT_PLAN_MAX_SPATIAL], strides[RT_PLAN_MAX_SPATIAL];
  int64_t dilation[RT_PLAN_MAX_SPATIAL];
  int64_t pad_before[RT_PLAN_MAX_SPATIAL], pad_after[RT_PLAN_MAX_SPATIAL];
  bool ceil_mode, count_include_pad;
  int64_t in_size[RT_PLAN_MAX_SPATIAL], out_size[RT_PLAN_MAX_SPATIAL];
  int64_t out_shape[3 + RT_PLAN_MAX_SPATIAL];
} rt_plan_pool_t;
RT_MUST_USE_RESULT rt_status_t rt_ir_plan_pool(const rt_ir_op_t *op,
                                               const rt_ir_attrs_t *attrs,
                                               int32_t n,
                                               const rt_plan_input_t *in,
                                               rt_plan_pool_t *out_plan);

/* ---- image (image.c) --------------------------------------------------- */

typedef enum rt_plan_resize_method_e {
  RT_PLAN_RESIZE_NEAREST, /* nearest_neighbor */
  RT_PLAN_RESIZE_LINEAR,  /* linear, bilinear */
  RT_PLAN_RESIZE_CUBIC,   /* cubic, bicubic */
} rt_plan_resize_method_t;

/* Source coordinate of output x along an axis of in -> out, s = in / out
 * (or 1 / scale, and out = in * scale, where image.resize2d gives
 * `scales`: given_scale). */
typedef enum rt_plan_resize_coord_e {
  RT_PLAN_COORD_HALF_PIXEL,         /* (x + 0.5) * s - 0.5 */
  RT_PLAN_COORD_PYTORCH_HALF_PIXEL, /* the same; 0 when out == 1 */
  RT_PLAN_COORD_ALIGN_CORNERS,      /* (in - 1) / (out - 1) * x; 0 when out == 1 */
  RT_PLAN_COORD_ASYMMETRIC,         /* x * s */
  RT_PLAN_COORD_TF_HALF_PIXEL_FOR_NN, /* (x + 0.5) * s */
  RT_PLAN_COORD_TF_CROP_AND_RESIZE, /* start * (in - 1) + x * (end - start) * (in - 1) / (out - 1)
                                     * (out == 1: the roi's middle); outside the image:
                                     * extrapolation_value */
} rt_plan_resize_coord_t;

/* nearest_neighbor's rounding of the source coordinate v ("" resolved:
 * ROUND under align_corners, ROUND_PREFER_CEIL under
 * tf_half_pixel_for_nn, FLOOR otherwise). */
typedef enum rt_plan_resize_rounding_e {
  RT_PLAN_ROUND_HALF_EVEN,   /* "round" */
  RT_PLAN_ROUND_FLOOR,       /* floor(v + 1e-5) */
  RT_PLAN_ROUND_CEIL,        /* ceil(v - 1e-5) */
  RT_PLAN_ROUND_PREFER_FLOOR, /* ceil(v - 0.5) */
  RT_PLAN_ROUND_PREFER_CEIL, /* floor(v + 0.5) */
} rt_plan_resize_rounding_t;

/* image.resize2d and nn.upsampling (resize2d with align_corners or
 * asymmetric coordinates, the default rounding, cubic_alpha -0.5). */
typedef struct rt_plan_resize2d_t {
  rt_plan_resize_method_t method;
  rt_plan_resize_coord_t coord;
  rt_plan_resize_rounding_t rounding;
  double cubic_alpha;
  bool cubic_exclude;
  double scale[2];    /* upsampling's scale_h, scale_w; 0 for resize2d */
  /* image.resize2d's `scales` of H and W (out / in) where given, else 0.
   * Given, the coordinate transforms use s for the ratio and in * s (not
   * floored) for the output length, as ONNX's Resize. */
  double given_scale[2];
  /* tf_crop_and_resize: the roi (start_h, start_w, end_h, end_w, fractions
   * of in - 1) and the value outside the image. */
  double roi[4];
  double extrapolation_value;
  int32_t pos[4];     /* N, C, H, W in the layout */
  int64_t in_size[2], out_size[2]; /* H, W */
  int64_t out_shape[4];
} rt_plan_resize2d_t;
RT_MUST_USE_RESULT rt_status_t rt_ir_plan_resize2d(const rt_ir_op_t *op,
                                                   const rt_ir_attrs_t *attrs,
                                                   int32_t n,
                                                   const rt_plan_input_t *in,
                                                   rt_plan_resize2d_t *out_plan);

#endif /* RT_IR_OP_PLAN_NN_H_ */
