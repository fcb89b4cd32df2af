/* ONNX converters of the detection area (h1, issue 19; table
 * rt_onnx_detect_ops): NonMaxSuppression (opsets 10, 11: the same
 * semantics; 11 only reworded the spec) on vision.onnx_nms, and Unique
 * (opset 11) on unique, both in ir/ops.def's data-dependent rows
 * (ir/op/detect.c): their output dims are `?`, so they run where a kernel
 * may size its output at run time (the debug executor). RoiAlign (opsets
 * 10, 16) on vision.roi_align, which the JIT does not lower yet. */
#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* RoiAlign(X, rois [R, 4] = (x1, y1, x2, y2), batch_indices [R]; mode,
 * output_height, output_width, sampling_ratio, spatial_scale,
 * coordinate_transformation_mode (opset 16; before it, opset 10 behaved
 * as output_half_pixel)) -> vision.roi_align on rois with the batch index
 * in front, as TVM's importer builds them; half_pixel is `aligned`. */
static rt_status_t cv_roi_align(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                                int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 3));
  const char *mode = rt_onnx_attr_string(cx, "mode", "avg");
  if (strcmp(mode, "avg") != 0 && strcmp(mode, "max") != 0) {
    return rt_onnx_bad(cx, "RoiAlign's mode must be avg or max");
  }
  const char *coord = rt_onnx_attr_string(cx, "coordinate_transformation_mode",
                                          cx->opset >= 16 ? "half_pixel" : "output_half_pixel");
  const bool aligned = strcmp(coord, "half_pixel") == 0;
  if (!aligned && strcmp(coord, "output_half_pixel") != 0) {
    return rt_onnx_bad(cx, "RoiAlign's coordinate_transformation_mode must be half_pixel or output_half_pixel");
  }
  const int64_t oh = rt_onnx_attr_int(cx, "output_height", 1), ow = rt_onnx_attr_int(cx, "output_width", 1);
  if (oh < 1 || ow < 1) return rt_onnx_bad(cx, "RoiAlign's output_height and output_width must be positive");
  const rt_ir_type_t *rt = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[1], 1, &rt));
  char dt[RT_DTYPE_NAME_MAX + 2];
  char dtn[RT_DTYPE_NAME_MAX];
  snprintf(dt, sizeof dt, "\"%s\"", rt_dtype_name(rt->tensor.dtype, dtn));
  rt_ir_expr_t *bi = NULL, *rois = NULL, *fields[2];
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "cast", 1, &in[2], &bi, "dtype", dt, NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "expand_dims", 1, &bi, &fields[0], "axis", "1", NULL));
  fields[1] = in[1];
  RT_RETURN_IF_ERROR(rt_onnx_tuple(cx, 2, fields, &rois));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "concatenate", 1, &rois, &rois, "axis", "1", NULL));
  const int64_t pooled[2] = {oh, ow};
  rt_ir_expr_t *args[2] = {in[0], rois};
  return rt_onnx_call(cx, "vision.roi_align", 2, args, &out[0], "pooled_size", rt_onnx_ints_text(cx, 2, pooled),
                      "spatial_scale", rt_onnx_float_text(cx, rt_onnx_attr_float(cx, "spatial_scale", 1.0)),
                      "sample_ratio", rt_onnx_int_text(cx, rt_onnx_attr_int(cx, "sampling_ratio", 0)), "aligned",
                      aligned ? "True" : "False", "mode", rt_onnx_str_text(cx, mode), NULL);
}

const rt_onnx_op_entry_t rt_onnx_detect_ops[] = {
    {"NonMaxSuppression", cv_nms},
    {"RoiAlign", cv_roi_align},
    {"Unique", cv_unique},
};
const int32_t rt_onnx_detect_ops_count = (int32_t)RT_COUNTOF(rt_onnx_detect_ops);
