/* Type relations of the detection ops (ir/ops.def, h1's block in the
 * data-dependent rows): vision.onnx_nms (ONNX NonMaxSuppression) and
 * unique (ONNX Unique): how many boxes survive, or how many values are
 * distinct, depends on the values, so those dims are `?` (like argwhere,
 * ir/op/datadep.c); ranks and dtypes are static. And vision.roi_align
 * (TVM's op, ONNX RoiAlign), whose output is [rois, C, pooled size]. */
#include <string.h>

#include "ir/op/op_impl.h"

/* Operand i holds one value (0-d, or 1-d of length 1) of an int dtype
 * (`want_int`) or of a float dtype. */
static rt_status_t one_value(const rt_ir_rel_ctx_t *ctx, int32_t i, const char *what, bool want_int) {
  const rt_ir_type_t *t;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, i, &t));
  const bool one = t->tensor.rank == 0 ||
                   (t->tensor.rank == 1 && (t->tensor.shape[0] == 1 || t->tensor.shape[0] == RT_DIM_ANY));
  const rt_dtype_t dt = t->tensor.dtype;
  const bool ok = want_int ? (rt_dtype_is_int(dt) || rt_dtype_is_uint(dt)) : rt_dtype_is_float(dt);
  if (!one || !ok) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: %s must be one %s value (0-d, or 1-d of length 1)",
                     ctx->op->name, what, want_int ? "int" : "float");
  }
  return RT_OK;
}

/* Two dims that must agree (either may be `?`). */
static bool dims_agree(int64_t a, int64_t b) { return a == RT_DIM_ANY || b == RT_DIM_ANY || a == b; }

/* vision.onnx_nms(boxes [B, N, 4], scores [B, C, N], max_output_boxes_per_class,
 * iou_threshold, score_threshold) -> [?, 3] int64. */
rt_status_t rt_ir_rel_onnx_nms(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *boxes, *scores;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &boxes));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &scores));
  const rt_attrs_onnx_nms_t a = rt_ir_attrs_onnx_nms(ctx->attrs);
  if (a.center_point_box != 0 && a.center_point_box != 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: center_point_box must be 0 or 1, got %lld", ctx->op->name,
                     (long long)a.center_point_box);
  }
  if (!rt_dtype_is_float(boxes->tensor.dtype) || !rt_dtype_equal(boxes->tensor.dtype, scores->tensor.dtype)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: boxes and scores must be floats of one dtype", ctx->op->name);
  }
  const int64_t *b = boxes->tensor.shape, *s = scores->tensor.shape;
  if (boxes->tensor.rank != 3 || !dims_agree(b[2], 4)) {
    char buf[RT_IR_OP_MSG_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "%s: boxes must be [batches, boxes, 4], got %s", ctx->op->name,
                     rt_ir_op_shape_text(boxes->tensor.rank, b, buf, sizeof buf));
  }
  if (scores->tensor.rank != 3 || !dims_agree(s[0], b[0]) || !dims_agree(s[2], b[1])) {
    char bb[RT_IR_OP_MSG_MAX], sb[RT_IR_OP_MSG_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "%s: scores must be [batches, classes, boxes] for boxes %s, got %s",
                     ctx->op->name, rt_ir_op_shape_text(3, b, bb, sizeof bb),
                     rt_ir_op_shape_text(scores->tensor.rank, s, sb, sizeof sb));
  }
  RT_RETURN_IF_ERROR(one_value(ctx, 2, "max_output_boxes_per_class", true));
  RT_RETURN_IF_ERROR(one_value(ctx, 3, "iou_threshold", false));
  RT_RETURN_IF_ERROR(one_value(ctx, 4, "score_threshold", false));
  const int64_t dims[2] = {RT_DIM_ANY, 3};
  return rt_ir_op_make_tensor(ctx, RT_DTYPE_INT64, 2, dims, out_type);
}

/* unique(x) -> (values, indices, inverse_indices, counts): values are x
 * flattened ([?]) or x with `?` along axis; indices and counts [?] int64;
 * inverse_indices one per element (or per slice along axis), int64. */
rt_status_t rt_ir_rel_unique(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  const rt_attrs_unique_t a = rt_ir_attrs_unique(ctx->attrs);
  const int32_t r = x->tensor.rank;
  int64_t vshape[RT_TENSOR_MAX_RANK], any = RT_DIM_ANY, n = 1;
  int32_t vrank = 1;
  if (a.axis_is_none) {
    vshape[0] = RT_DIM_ANY;
    for (int32_t d = 0; d < r; ++d) RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(n, x->tensor.shape[d], &n));
  } else {
    int32_t axis = 0;
    RT_RETURN_IF_ERROR(rt_ir_op_axis(a.axis, r, &axis));
    vrank = r;
    for (int32_t d = 0; d < r; ++d) vshape[d] = d == axis ? RT_DIM_ANY : x->tensor.shape[d];
    n = x->tensor.shape[axis];
  }
  rt_ir_type_t *fields[4] = {NULL, NULL, NULL, NULL};
  RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, x->tensor.dtype, vrank, vshape, &fields[0]));
  RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, RT_DTYPE_INT64, 1, &any, &fields[1]));
  RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, RT_DTYPE_INT64, 1, &n, &fields[2]));
  RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, RT_DTYPE_INT64, 1, &any, &fields[3]));
  return rt_ir_tuple_type(ctx->module, 4, fields, out_type);
}

/* vision.roi_align(data [N, C, H, W], rois [R, 5]) -> [R, C, ph, pw]. */
rt_status_t rt_ir_rel_roi_align(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *rois;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &rois));
  const rt_attrs_roi_align_t a = rt_ir_attrs_roi_align(ctx->attrs);
  if (strcmp(a.layout, "NCHW") != 0) {
    return RT_STATUS(UNIMPLEMENTED, "%s: layout \"%s\" is not supported (NCHW is)", ctx->op->name, a.layout);
  }
  if (strcmp(a.mode, "avg") != 0 && strcmp(a.mode, "max") != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: mode must be \"avg\" or \"max\", got \"%s\"", ctx->op->name, a.mode);
  }
  int64_t pooled[2];
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(ctx->op->name, "pooled_size", a.pooled_size, 2, pooled));
  if (pooled[0] < 1 || pooled[1] < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: pooled_size must be positive", ctx->op->name);
  }
  if (!rt_dtype_is_float(x->tensor.dtype) || !rt_dtype_equal(x->tensor.dtype, rois->tensor.dtype)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: data and rois must be floats of one dtype", ctx->op->name);
  }
  if (x->tensor.rank != 4) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: data must be 4-d (NCHW), got rank %d", ctx->op->name,
                     (int)x->tensor.rank);
  }
  if (rois->tensor.rank != 2 || !dims_agree(rois->tensor.shape[1], 5)) {
    char buf[RT_IR_OP_MSG_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "%s: rois must be [rois, 5] (batch, x1, y1, x2, y2), got %s",
                     ctx->op->name, rt_ir_op_shape_text(rois->tensor.rank, rois->tensor.shape, buf, sizeof buf));
  }
  const int64_t dims[4] = {rois->tensor.shape[0], x->tensor.shape[1], pooled[0], pooled[1]};
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, 4, dims, out_type);
}
