/* Type relations of the image ops: image.resize2d (H and W become `size`;
 * method, coordinate mode and rounding are validated) and nn.upsampling
 * (H and W scaled by scale_h / scale_w, rounded as TVM's UpSamplingRel). */
#include <math.h>
#include <string.h>

#include "ir/op/op_impl.h"

static bool one_of(const char *s, const char *const *options, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (strcmp(s, options[i]) == 0) return true;
  }
  return false;
}

rt_status_t rt_ir_rel_resize2d(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  static const char *const methods[] = {"nearest_neighbor", "linear", "cubic"};
  static const char *const modes[] = {"half_pixel", "align_corners", "asymmetric",
                                      "pytorch_half_pixel", "tf_half_pixel_for_nn",
                                      "tf_crop_and_resize"};
  static const char *const roundings[] = {"", "round", "floor", "ceil",
                                          "round_prefer_floor", "round_prefer_ceil"};
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int32_t pos[4];
  RT_RETURN_IF_ERROR(rt_ir_op_layout_perm(ctx->op->name, "layout",
                                          rt_attrs_string(ctx->attrs, "layout"),
                                          "NCHW", pos));
  if (x->tensor.rank != 4) {
    return RT_STATUS(INVALID_ARGUMENT, "image.resize2d needs a 4-d input, got rank %d",
                     (int)x->tensor.rank);
  }
  const char *method = rt_attrs_string(ctx->attrs, "method");
  const char *mode = rt_attrs_string(ctx->attrs, "coordinate_transformation_mode");
  const char *rounding = rt_attrs_string(ctx->attrs, "rounding_method");
  if (!one_of(method, methods, RT_COUNTOF(methods))) {
    return RT_STATUS(INVALID_ARGUMENT, "image.resize2d: unknown method \"%s\"", method);
  }
  if (!one_of(mode, modes, RT_COUNTOF(modes))) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "image.resize2d: unknown coordinate_transformation_mode \"%s\"", mode);
  }
  if (!one_of(rounding, roundings, RT_COUNTOF(roundings))) {
    return RT_STATUS(INVALID_ARGUMENT, "image.resize2d: unknown rounding_method \"%s\"",
                     rounding);
  }
  if (rt_attrs_is_none(ctx->attrs, "size")) {
    return RT_STATUS(INVALID_ARGUMENT, "image.resize2d requires attribute 'size'");
  }
  int64_t size[2];
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(ctx, "size", 2, size));
  if (size[0] < 1 || size[1] < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "image.resize2d: size must be positive");
  }
  int64_t out[4];
  for (int32_t i = 0; i < 4; ++i) out[i] = x->tensor.shape[i];
  out[pos[2]] = size[0];
  out[pos[3]] = size[1];
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "out_dtype", x->tensor.dtype, &dt));
  return rt_ir_op_make_tensor(ctx, dt, 4, out, out_type);
}

rt_status_t rt_ir_rel_upsampling(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int32_t pos[4];
  RT_RETURN_IF_ERROR(rt_ir_op_layout_perm(ctx->op->name, "layout",
                                          rt_attrs_string(ctx->attrs, "layout"),
                                          "NCHW", pos));
  if (x->tensor.rank != 4) {
    return RT_STATUS(INVALID_ARGUMENT, "nn.upsampling needs a 4-d input, got rank %d",
                     (int)x->tensor.rank);
  }
  static const char *const methods[] = {"nearest_neighbor", "bilinear", "bicubic"};
  const char *method = rt_attrs_string(ctx->attrs, "method");
  if (!one_of(method, methods, RT_COUNTOF(methods))) {
    return RT_STATUS(INVALID_ARGUMENT, "nn.upsampling: unknown method \"%s\"", method);
  }
  const double scale[2] = {rt_attrs_float(ctx->attrs, "scale_h"),
                           rt_attrs_float(ctx->attrs, "scale_w")};
  int64_t out[4];
  for (int32_t i = 0; i < 4; ++i) out[i] = x->tensor.shape[i];
  for (int32_t i = 0; i < 2; ++i) {
    int64_t *d = &out[pos[2 + i]];
    if (!(scale[i] > 0) || !isfinite(scale[i])) {
      return RT_STATUS(INVALID_ARGUMENT, "nn.upsampling: scale %g must be positive",
                       scale[i]);
    }
    if (*d == RT_DIM_ANY) continue;
    double v = round((double)*d * scale[i]);
    if (v < 1 || v > 9e15) {
      return RT_STATUS(INVALID_ARGUMENT, "nn.upsampling: output size %g is out of range", v);
    }
    *d = (int64_t)v;
  }
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, 4, out, out_type);
}
