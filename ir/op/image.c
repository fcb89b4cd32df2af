/* Type relations of the image ops: image.resize2d (H and W become `size`;
 * method, coordinate mode, rounding and the optional `scales` the
 * coordinate transform uses are validated) and nn.upsampling
 * (H and W scaled by scale_h / scale_w, rounded as TVM's UpSamplingRel).
 * rt_ir_plan_resize2d (ir/op/plan_nn.h) does both: it also turns method,
 * coordinate mode and rounding into enums (upsampling's into resize2d's),
 * which the reference kernels and the lowering read. */
#include <math.h>
#include <string.h>

#include "ir/op/op_impl.h"
#include "ir/op/plan.h"
#include "runtime/assert.h"

/* The index of s in options, or -1. */
static int32_t index_of(const char *s, const char *const *options, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (strcmp(s, options[i]) == 0) return (int32_t)i;
  }
  return -1;
}

static rt_status_t layout_4d(const char *op, const char *layout, const rt_plan_input_t *x,
                             rt_plan_resize2d_t *p) {
  RT_RETURN_IF_ERROR(rt_ir_op_layout_perm(op, "layout", layout, "NCHW", p->pos));
  if (x->rank != 4) {
    return RT_STATUS(INVALID_ARGUMENT, "%s needs a 4-d input, got rank %d", op,
                     (int)x->rank);
  }
  for (int32_t i = 0; i < 4; ++i) p->out_shape[i] = x->shape[i];
  for (int32_t i = 0; i < 2; ++i) p->in_size[i] = x->shape[p->pos[2 + i]];
  return RT_OK;
}

static rt_plan_resize_rounding_t default_rounding(rt_plan_resize_coord_t coord) {
  return coord == RT_PLAN_COORD_ALIGN_CORNERS      ? RT_PLAN_ROUND_HALF_EVEN
         : coord == RT_PLAN_COORD_TF_HALF_PIXEL_FOR_NN ? RT_PLAN_ROUND_PREFER_CEIL
                                                   : RT_PLAN_ROUND_FLOOR;
}

static rt_status_t plan_resize(const char *op, const rt_ir_attrs_t *attrs,
                               const rt_plan_input_t *x, rt_plan_resize2d_t *p) {
  /* Orders follow the enums of plan_nn.h. */
  static const char *const methods[] = {"nearest_neighbor", "linear", "cubic"};
  static const char *const modes[] = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                      "asymmetric", "tf_half_pixel_for_nn",
                                      "tf_crop_and_resize"};
  static const char *const roundings[] = {"round", "floor", "ceil", "round_prefer_floor",
                                          "round_prefer_ceil", ""};
  rt_attrs_resize2d_t a = rt_ir_attrs_resize2d(attrs);
  RT_RETURN_IF_ERROR(layout_4d(op, a.layout, x, p));
  const int32_t method = index_of(a.method, methods, RT_COUNTOF(methods));
  const int32_t mode = index_of(a.coordinate_transformation_mode, modes, RT_COUNTOF(modes));
  const int32_t rounding = index_of(a.rounding_method, roundings, RT_COUNTOF(roundings));
  if (method < 0) {
    return RT_STATUS(INVALID_ARGUMENT, "image.resize2d: unknown method \"%s\"", a.method);
  }
  if (mode < 0) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "image.resize2d: unknown coordinate_transformation_mode \"%s\"",
                     a.coordinate_transformation_mode);
  }
  if (rounding < 0) {
    return RT_STATUS(INVALID_ARGUMENT, "image.resize2d: unknown rounding_method \"%s\"",
                     a.rounding_method);
  }
  p->method = (rt_plan_resize_method_t)method;
  p->coord = (rt_plan_resize_coord_t)mode;
  p->rounding = rounding == (int32_t)RT_COUNTOF(roundings) - 1
                    ? default_rounding(p->coord)
                    : (rt_plan_resize_rounding_t)rounding;
  p->cubic_alpha = a.cubic_alpha;
  p->cubic_exclude = a.cubic_exclude != 0;
  p->extrapolation_value = a.extrapolation_value;
  if (p->coord == RT_PLAN_COORD_TF_CROP_AND_RESIZE) {
    if (a.roi_is_none || a.roi.count != 4) {
      return RT_STATUS(INVALID_ARGUMENT, "%s", "image.resize2d: tf_crop_and_resize needs roi = [start_h, "
                       "start_w, end_h, end_w]");
    }
    for (int32_t i = 0; i < 4; ++i) {
      p->roi[i] = rt_attr_list_float(a.roi, i);
      if (!isfinite(p->roi[i])) return RT_STATUS(INVALID_ARGUMENT, "%s", "image.resize2d: roi must be finite");
    }
  }
  if (a.size_is_none) {
    return RT_STATUS(INVALID_ARGUMENT, "image.resize2d requires attribute 'size'");
  }
  int64_t size[2];
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(op, "size", a.size, 2, size));
  if (size[0] < 1 || size[1] < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "image.resize2d: size must be positive");
  }
  for (int32_t i = 0; i < 2; ++i) p->out_shape[p->pos[2 + i]] = p->out_size[i] = size[i];
  if (!a.scales_is_none) {
    if (a.scales.count != 2) {
      return RT_STATUS(INVALID_ARGUMENT, "image.resize2d: scales must have 2 values (H, W), got %d",
                       (int)a.scales.count);
    }
    for (int32_t i = 0; i < 2; ++i) {
      const double s = rt_attr_list_float(a.scales, i);
      if (!(s > 0) || !isfinite(s)) {
        return RT_STATUS(INVALID_ARGUMENT, "image.resize2d: scale %g must be positive", s);
      }
      p->given_scale[i] = s;
    }
  }
  return RT_OK;
}

static rt_status_t plan_upsampling(const char *op, const rt_ir_attrs_t *attrs,
                                   const rt_plan_input_t *x, rt_plan_resize2d_t *p) {
  static const char *const methods[] = {"nearest_neighbor", "bilinear", "bicubic"};
  rt_attrs_upsampling_t a = rt_ir_attrs_upsampling(attrs);
  RT_RETURN_IF_ERROR(layout_4d(op, a.layout, x, p));
  const int32_t method = index_of(a.method, methods, RT_COUNTOF(methods));
  if (method < 0) {
    return RT_STATUS(INVALID_ARGUMENT, "nn.upsampling: unknown method \"%s\"", a.method);
  }
  p->method = (rt_plan_resize_method_t)method;
  p->coord = a.align_corners ? RT_PLAN_COORD_ALIGN_CORNERS : RT_PLAN_COORD_ASYMMETRIC;
  p->rounding = default_rounding(p->coord);
  p->cubic_alpha = -0.5;
  p->scale[0] = a.scale_h;
  p->scale[1] = a.scale_w;
  for (int32_t i = 0; i < 2; ++i) {
    const double scale = p->scale[i];
    int64_t *d = &p->out_shape[p->pos[2 + i]];
    if (!(scale > 0) || !isfinite(scale)) {
      return RT_STATUS(INVALID_ARGUMENT, "nn.upsampling: scale %g must be positive", scale);
    }
    if (*d != RT_DIM_ANY) {
      double v = round((double)*d * scale);
      if (v < 1 || v > 9e15) {
        return RT_STATUS(INVALID_ARGUMENT, "nn.upsampling: output size %g is out of range", v);
      }
      *d = (int64_t)v;
    }
    p->out_size[i] = *d;
  }
  return RT_OK;
}

rt_status_t rt_ir_plan_resize2d(const rt_ir_op_t *opdef, const rt_ir_attrs_t *attrs,
                                int32_t nin, const rt_plan_input_t *in,
                                rt_plan_resize2d_t *p) {
  RT_ASSERT(nin >= 1);
  (void)nin;
  memset(p, 0, sizeof *p);
  if (opdef->id == RT_OP_NN_UPSAMPLING) return plan_upsampling(opdef->name, attrs, &in[0], p);
  return plan_resize(opdef->name, attrs, &in[0], p);
}

static rt_status_t image_rel(const rt_ir_rel_ctx_t *ctx, rt_dtype_t *dt,
                             rt_plan_resize2d_t *p) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  rt_plan_input_t in;
  rt_ir_plan_input_of_type(x, &in);
  RT_RETURN_IF_ERROR(rt_ir_plan_resize2d(ctx->op, ctx->attrs, 1, &in, p));
  *dt = x->tensor.dtype;
  return RT_OK;
}

rt_status_t rt_ir_rel_resize2d(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  rt_plan_resize2d_t p;
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(image_rel(ctx, &dt, &p));
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "out_dtype", dt, &dt));
  return rt_ir_op_make_tensor(ctx, dt, 4, p.out_shape, out_type);
}

rt_status_t rt_ir_rel_upsampling(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  rt_plan_resize2d_t p;
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(image_rel(ctx, &dt, &p));
  return rt_ir_op_make_tensor(ctx, dt, 4, p.out_shape, out_type);
}
