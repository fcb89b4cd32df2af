/* ONNX converters: the ops whose output shape the input's values decide —
 * NonZero and Compress (table rt_onnx_datadep_ops), on argwhere
 * (ir/ops.def, data-dependent block; TVM's op): NonZero is argwhere
 * transposed and cast to int64, Compress takes the indices argwhere finds
 * in the condition. argwhere runs where the output can be sized at run
 * time (the debug executor); the graph executor and the vm refuse it,
 * naming it. Unique and NonMaxSuppression are ops_detect.c's. */
#include <string.h>

#include "frontend/onnx/onnx_impl.h"

#define MAXR RT_TENSOR_MAX_RANK

static rt_status_t cv_nonzero(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                              rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  if (t->tensor.rank == 0) return rt_onnx_unsupported(cx, "NonZero of a 0-d tensor");
  rt_ir_expr_t *x = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "argwhere", in[0], &x));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "transpose", 1, &x, &x, "axes", "[1, 0]", NULL));
  return rt_onnx_call(cx, "cast", 1, &x, &out[0], "dtype", "\"int64\"", NULL);
}

/* Compress(input, condition; axis): the slices of input along axis (all
 * of input flattened without one) where the 1-d condition is true; a
 * condition shorter than the axis leaves the rest out. */
static rt_status_t cv_compress(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  const rt_ir_type_t *t = NULL, *ct = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[1], 1, &ct));
  if (ct->tensor.rank != 1) return rt_onnx_bad(cx, "Compress's condition must be 1-d");
  rt_ir_expr_t *x = in[0];
  int64_t axis = 0, len = -1;
  if (rt_onnx_attr(cx, "axis") != NULL) {
    axis = rt_onnx_attr_int(cx, "axis", 0);
    if (axis < 0) axis += t->tensor.rank;
    if (axis < 0 || axis >= t->tensor.rank) return rt_onnx_bad(cx, "Compress's axis is out of range");
    len = t->tensor.shape[axis];
  } else {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &x, &x, "newshape", "[-1]", NULL));
    if (rt_onnx_static_shape(t)) {
      len = 1;
      for (int32_t d = 0; d < t->tensor.rank; ++d) len *= t->tensor.shape[d];
    }
  }
  if (len >= 0 && ct->tensor.shape[0] > len) {
    return rt_onnx_bad(cx, "Compress's condition is longer than the axis");
  }
  rt_ir_expr_t *idx = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "argwhere", in[1], &idx));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &idx, &idx, "newshape", "[-1]", NULL));
  rt_ir_expr_t *args[2] = {x, idx};
  return rt_onnx_call(cx, "take", 2, args, &out[0], "axis", rt_onnx_int_text(cx, axis), NULL);
}

const rt_onnx_op_entry_t rt_onnx_datadep_ops[] = {
    {"Compress", cv_compress},
    {"NonZero", cv_nonzero},
};
const int32_t rt_onnx_datadep_ops_count = (int32_t)RT_COUNTOF(rt_onnx_datadep_ops);
