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
 * U (alpha, alpha, O, I), TVM's layout; with pack = P > 0 (our attribute)
 * -> (alpha, alpha, O/P, I, P), U[a, b, o, i] at [a, b, o / P, i, o % P]:
 * the packed U' the Winograd convolution reads in panels (how
 * passes/conv2d_winograd.c makes it from OIHW in one step). */
typedef struct rt_plan_winograd_weight_t {
  rt_winograd_matrices_t mat;
  int64_t pack;          /* P, or 0 */
  int32_t rank;          /* of the output: 4, or 5 packed */
  int64_t o, i;
  int64_t out_shape[5];
} rt_plan_winograd_weight_t;
RT_MUST_USE_RESULT rt_status_t rt_ir_plan_winograd_weight(const rt_ir_op_t *op,
                                                          const rt_ir_attrs_t *attrs,
                                                          int32_t n,
                                                          const rt_plan_input_t *in,
                                                          rt_plan_winograd_weight_t *out_plan);

/* nn.contrib_conv2d_winograd_without_weight_transform: data (N, C, H, W)
 * NCHW, the transformed weight U' (alpha, alpha, C, O) (TVM's pre-computed
 * kernel layout: the weight transform's output with its last two axes
 * swapped, so output channels are contiguous) or U' packed in panels of P
 * output channels, (alpha, alpha, O / P, C, P) (U'[a, b, c, o] at [a, b,
 * o / P, c, o % P]: what the Conv2dWinograd pass stores, so a GEMM reads
 * each panel as one contiguous run), stride 1, dilation 1, groups 1;
 * output (N, O, OH, OW) with OH = H + pt + pb - r + 1. The output is
 * covered by th x tw tiles of m x m. Sizes may be `?`. */
typedef struct rt_plan_winograd_t {
  rt_winograd_matrices_t mat;
  int64_t pack; /* P of a packed weight (rank 5; `?` in types only), else 0 */
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

/* The element offset of U'[e / alpha, e % alpha, c, o] (e = a * alpha + b)
 * in the weight's row-major data, packed or not. */
static inline int64_t rt_ir_winograd_u_offset(const rt_plan_winograd_t *p, int64_t e, int64_t c, int64_t o) {
  if (!p->pack) return (e * p->c + c) * p->o + o;
  return ((e * (p->o / p->pack) + o / p->pack) * p->c + c) * p->pack + o % p->pack;
}

#endif /* RT_IR_OP_PLAN_WINOGRAD_H_ */
