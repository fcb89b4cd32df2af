/* ONNX converters of the detection area (h1, issue 19; table
 * rt_onnx_detect_ops): NonMaxSuppression (opsets 10, 11: the same
 * semantics; 11 only reworded the spec) on vision.onnx_nms, and Unique
 * (opset 11) on unique, both in ir/ops.def's data-dependent rows
 * (ir/op/detect.c). Their output dims are `?`, so they run where a kernel
 * may size its output at run time (the debug executor). */
#include <math.h>

#include "frontend/onnx/onnx_impl.h"

/* NonMaxSuppression(boxes, scores [, max_output_boxes_per_class
 * [, iou_threshold [, score_threshold]]]; center_point_box): absent
 * inputs take ONNX's meaning: no boxes kept (max 0), IoU threshold 0, no
 * score filter (-inf: every score but NaN is above it). */
static rt_status_t cv_nms(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                          int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  const int64_t cpb = rt_onnx_attr_int(cx, "center_point_box", 0);
  if (cpb != 0 && cpb != 1) return rt_onnx_bad(cx, "NonMaxSuppression's center_point_box must be 0 or 1");
  rt_ir_expr_t *args[5] = {in[0], in[1], nin > 2 ? in[2] : NULL, nin > 3 ? in[3] : NULL,
                           nin > 4 ? in[4] : NULL};
  if (!args[2]) RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_INT64, 0, &args[2]));
  if (!args[3]) RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, 0, &args[3]));
  if (!args[4]) RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, -INFINITY, &args[4]));
  return rt_onnx_call(cx, "vision.onnx_nms", 5, args, &out[0], "center_point_box",
                      rt_onnx_int_text(cx, cpb), NULL);
}

/* Unique(X; axis, sorted) -> Y, indices, inverse_indices, counts. */
static rt_status_t cv_unique(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                             int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const bool sorted = rt_onnx_attr_int(cx, "sorted", 1) != 0;
  rt_ir_expr_t *t = NULL;
  if (rt_onnx_attr(cx, "axis") != NULL) {
    int64_t axis = rt_onnx_attr_int(cx, "axis", 0);
    RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axis, rt_onnx_rank(in[0])));
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "unique", 1, in, &t, "sorted", sorted ? "True" : "False", "axis",
                                    rt_onnx_int_text(cx, axis), NULL));
  } else {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "unique", 1, in, &t, "sorted", sorted ? "True" : "False", NULL));
  }
  for (int32_t i = 0; i < nout && i < 4; ++i) RT_RETURN_IF_ERROR(rt_onnx_get_item(cx, t, i, &out[i]));
  return RT_OK;
}

const rt_onnx_op_entry_t rt_onnx_detect_ops[] = {
    {"NonMaxSuppression", cv_nms},
    {"Unique", cv_unique},
};
const int32_t rt_onnx_detect_ops_count = (int32_t)RT_COUNTOF(rt_onnx_detect_ops);
