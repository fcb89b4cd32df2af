/* Plans of the transform family (see ir/op/plan.h); computed in ir/op/. */
#ifndef RT_IR_OP_PLAN_TRANSFORM_H_
#define RT_IR_OP_PLAN_TRANSFORM_H_

#include "ir/op/plan.h"

/* strided_slice(data): topi's canonicalization. Per input dim d, output
 * element i reads source index begin[d] + i * stride[d] for i < extent[d];
 * dims the attributes leave out are whole (begin 0, stride 1, extent the
 * dim). Missing begin/end entries cover the whole axis (as TVM pads them);
 * slice_mode "size" reads end as a size from the (raw) begin, a negative
 * size meaning to the end, and takes stride 1. A `?` dim has begin and
 * extent `?` (RT_DIM_ANY). */
typedef struct rt_plan_strided_slice_t {
  int32_t rank;
  int64_t begin[RT_TENSOR_MAX_RANK];  /* canonical: in [0, dim] */
  int64_t stride[RT_TENSOR_MAX_RANK]; /* never 0 */
  int64_t extent[RT_TENSOR_MAX_RANK]; /* the output shape */
} rt_plan_strided_slice_t;

RT_MUST_USE_RESULT rt_status_t rt_ir_plan_strided_slice(
    const rt_ir_attrs_t *attrs, int32_t n, const rt_plan_input_t *in,
    rt_plan_strided_slice_t *out_plan);

/* transpose(data): output axis k is input axis perm[k] (axes None or empty
 * reverses the axes). */
typedef struct rt_plan_transpose_t {
  int32_t rank;
  int32_t perm[RT_TENSOR_MAX_RANK];
  int64_t out_shape[RT_TENSOR_MAX_RANK];
} rt_plan_transpose_t;

RT_MUST_USE_RESULT rt_status_t rt_ir_plan_transpose(
    const rt_ir_attrs_t *attrs, int32_t n, const rt_plan_input_t *in,
    rt_plan_transpose_t *out_plan);

/* split(data): pieces along axis, either `sections` equal ones or cut at
 * the (increasing) indices. rt_ir_plan_split_piece gives piece k's begin
 * and extent along the axis for a dim (`?` in, `?` out). */
typedef struct rt_plan_split_t {
  int32_t axis; /* non-negative */
  int32_t pieces;
  int64_t sections;       /* > 0: indices_or_sections is a count */
  rt_attr_list_t indices; /* the cut points when sections is 0 */
} rt_plan_split_t;

RT_MUST_USE_RESULT rt_status_t rt_ir_plan_split(const rt_ir_attrs_t *attrs,
                                                int32_t n,
                                                const rt_plan_input_t *in,
                                                rt_plan_split_t *out_plan);
void rt_ir_plan_split_piece(const rt_plan_split_t *plan, int64_t dim,
                            int32_t k, int64_t *out_begin,
                            int64_t *out_extent);

/* take(data, indices): axis None (flat) indexes the flattened data (then
 * axis is 0, batch_dims 0, and the output has the indices' shape);
 * otherwise output = data[:axis] + indices[batch_dims:] + data[axis+1:],
 * the first batch_dims axes shared by data and indices. */
typedef enum rt_take_mode_e {
  RT_TAKE_CLIP, /* clamp into [0, n-1] */
  RT_TAKE_WRAP, /* modulo n */
  RT_TAKE_FAST  /* [-n, n) only; negative ones count from the end */
} rt_take_mode_t;

typedef struct rt_plan_take_t {
  bool flat;
  int32_t axis;       /* non-negative */
  int32_t batch_dims; /* non-negative, <= axis */
  rt_take_mode_t mode;
  int32_t out_rank;
  int64_t out_shape[RT_TENSOR_MAX_RANK];
} rt_plan_take_t;

RT_MUST_USE_RESULT rt_status_t rt_ir_plan_take(const rt_ir_attrs_t *attrs,
                                               int32_t n,
                                               const rt_plan_input_t *in,
                                               rt_plan_take_t *out_plan);

/* gather(data, indices): the axis, non-negative; indices have data's rank
 * and the output their shape. */
typedef struct rt_plan_gather_t {
  int32_t axis;
} rt_plan_gather_t;

RT_MUST_USE_RESULT rt_status_t rt_ir_plan_gather(const rt_ir_attrs_t *attrs,
                                                 int32_t n,
                                                 const rt_plan_input_t *in,
                                                 rt_plan_gather_t *out_plan);

/* nn.pad(data, pad_value): pad_width expanded to before/after per dim. */
typedef enum rt_pad_mode_e {
  RT_PAD_CONSTANT, /* pad_value */
  RT_PAD_EDGE,     /* the nearest edge element */
  RT_PAD_REFLECT   /* numpy's reflect (the edge is not repeated) */
} rt_pad_mode_t;

typedef struct rt_plan_pad_t {
  int32_t rank;
  rt_pad_mode_t mode;
  int64_t before[RT_TENSOR_MAX_RANK], after[RT_TENSOR_MAX_RANK];
  int64_t out_shape[RT_TENSOR_MAX_RANK];
} rt_plan_pad_t;

RT_MUST_USE_RESULT rt_status_t rt_ir_plan_pad(const rt_ir_attrs_t *attrs,
                                              int32_t n,
                                              const rt_plan_input_t *in,
                                              rt_plan_pad_t *out_plan);

/* layout_transform(data): layouts of primal axes (upper case) and split
 * inner parts (factor + lower case, "NCHW4c"). Per source axis k, the
 * logical coordinate of its letter is dst_index[dst_primal[k]] *
 * dst_inner[k] + dst_index[dst_split[k]] (the second term when
 * dst_split[k] >= 0), and the source index is coord % src_factor[k] for a
 * split axis, coord / src_inner[k] for a primal one. Coordinates at or past
 * extent = data.shape[src_primal[k]] * src_inner[k] lie outside the source
 * (a split that does not divide): they read as zero. The type relation
 * rejects such a split (split_pads, the first one in pad_axis, pad_size
 * and pad_factor); the kernels implement it as TVM does, and then the
 * destination's outer dim is rounded up. */
typedef struct rt_plan_layout_transform_t {
  int32_t src_rank, dst_rank;
  int64_t src_factor[RT_TENSOR_MAX_RANK]; /* 0 for a primal axis */
  int32_t src_primal[RT_TENSOR_MAX_RANK]; /* its letter's primal axis */
  int64_t src_inner[RT_TENSOR_MAX_RANK];  /* its letter's split factor in */
                                          /* the source, 1 if none */
  int32_t dst_primal[RT_TENSOR_MAX_RANK];
  int32_t dst_split[RT_TENSOR_MAX_RANK];  /* -1 if the letter is not split */
  int64_t dst_inner[RT_TENSOR_MAX_RANK];  /* that split's factor, 1 if none */
  int64_t out_shape[RT_TENSOR_MAX_RANK];
  bool split_pads;
  char pad_axis;
  int64_t pad_size, pad_factor;
} rt_plan_layout_transform_t;

RT_MUST_USE_RESULT rt_status_t rt_ir_plan_layout_transform(
    const rt_ir_attrs_t *attrs, int32_t n, const rt_plan_input_t *in,
    rt_plan_layout_transform_t *out_plan);

/* nn.depth_to_space / nn.space_to_depth (schema subpixel), 4-d data. */
typedef enum rt_subpixel_mode_e {
  RT_SUBPIXEL_DCR, /* depth_to_space channel (by * b + bx) * C_out + c */
  RT_SUBPIXEL_CRD  /* depth_to_space channel c * b * b + by * b + bx */
} rt_subpixel_mode_t;

typedef struct rt_plan_subpixel_t {
  bool to_space; /* depth_to_space */
  int64_t block_size;
  rt_subpixel_mode_t mode;
  int32_t pos[4]; /* the dims of N, C, H, W in the layout */
  int64_t out_shape[4];
} rt_plan_subpixel_t;

/* op is nn.depth_to_space or nn.space_to_depth. */
RT_MUST_USE_RESULT rt_status_t rt_ir_plan_subpixel(const rt_ir_op_t *op,
                                                   const rt_ir_attrs_t *attrs,
                                                   int32_t n,
                                                   const rt_plan_input_t *in,
                                                   rt_plan_subpixel_t *out_plan);

#endif /* RT_IR_OP_PLAN_TRANSFORM_H_ */
