/* Plans of the Winograd convolution ops (see ir/op/plan.h), computed in
 * ir/op/winograd.c, and the transform matrices every executor reads:
 * nn.contrib_conv2d_winograd_weight_transform and
 * nn.contrib_conv2d_winograd_without_weight_transform. */
#ifndef RT_IR_OP_PLAN_WINOGRAD_H_
#define RT_IR_OP_PLAN_WINOGRAD_H_

#include "ir/op/plan.h"

/* Largest alpha = tile + kernel - 1 of a supported transform (F(4x4, 3x3)). */
#define RT_WINOGRAD_MAX_ALPHA 6

/* The matrices of F(m x m, r x r): out tile Y = A^T [(G g G^T) . (B^T d B)] A
 * for an alpha x alpha input tile d (alpha = m + r - 1) and an r x r
 * kernel g, "." the elementwise product. Row-major: at is m x alpha, bt
 * alpha x alpha, g alpha x r. */
typedef struct rt_winograd_matrices_t {
  int32_t m, r, alpha;
  const double *at, *bt, *g;
} rt_winograd_matrices_t;

/* The matrices for tile m (2 or 4) and kernel r (3); false otherwise.
 * F(2, 3) uses the points 0, 1, -1 (and infinity), F(4, 3) 0, 1, -1, 2, -2
 * (Lavin and Gray, 2016): exact in binary for B and A, G has sixths. */
bool rt_ir_winograd_matrices(int64_t m, int64_t r, rt_winograd_matrices_t *out);

/* nn.contrib_conv2d_winograd_weight_transform: weight (O, I, r, r) ->
 * (alpha, alpha, O, I), TVM's layout. */
typedef struct rt_plan_winograd_weight_t {
  rt_winograd_matrices_t mat;
  int64_t o, i;
  int64_t out_shape[4];
} rt_plan_winograd_weight_t;
RT_MUST_USE_RESULT rt_status_t rt_ir_plan_winograd_weight(const rt_ir_op_t *op,
                                                          const rt_ir_attrs_t *attrs,
                                                          int32_t n,
                                                          const rt_plan_input_t *in,
                                                          rt_plan_winograd_weight_t *out_plan);

/* nn.contrib_conv2d_winograd_without_weight_transform: data (N, C, H, W)
 * NCHW, the transformed weight (alpha, alpha, C, O) (TVM's pre-computed
 * kernel layout: the weight transform's output with its last two axes
 * swapped, so output channels are contiguous), stride 1, dilation 1,
 * groups 1; output (N, O, OH, OW) with OH = H + pt + pb - r + 1. The
 * output is covered by th x tw tiles of m x m. Sizes may be `?`. */
typedef struct rt_plan_winograd_t {
  rt_winograd_matrices_t mat;
  int64_t n, c, h, w, o;
  int64_t pt, pl, pb, pr;
  int64_t oh, ow, th, tw;
  int64_t out_shape[4];
} rt_plan_winograd_t;
RT_MUST_USE_RESULT rt_status_t rt_ir_plan_winograd(const rt_ir_op_t *op,
                                                   const rt_ir_attrs_t *attrs,
                                                   int32_t n,
                                                   const rt_plan_input_t *in,
                                                   rt_plan_winograd_t *out_plan);

#endif /* RT_IR_OP_PLAN_WINOGRAD_H_ */
