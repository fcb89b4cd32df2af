/* Type relation and plan of image.grid_sample (TVM's name and attributes:
 * method nearest / bilinear / bicubic, layout NCHW only, padding_mode
 * zeros / border / reflection, align_corners), the op ONNX GridSample
 * (opset 16) imports to. The sampling itself (PyTorch's grid_sampler_2d,
 * which ONNX's definition follows) is written once per executor:
 * interp/kernels/grid_sample.c and jit/ops/grid_sample.c. */
#include <string.h>

#include "ir/op/op_impl.h"
#include "ir/op/plan.h"

static int32_t index_of(const char *s, const char *const *names, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    if (strcmp(s, names[i]) == 0) return i;
  }
  return -1;
}

rt_status_t rt_ir_plan_grid_sample(const rt_ir_attrs_t *attrs, int32_t n,
                                   const rt_plan_input_t *in, rt_plan_grid_sample_t *p) {
  static const char op[] = "image.grid_sample";
  static const char *const methods[] = {"nearest", "bilinear", "bicubic"};
  static const char *const paddings[] = {"zeros", "border", "reflection"};
  if (n < 2) return RT_STATUS(INVALID_ARGUMENT, "%s needs data and grid", op);
  const rt_attrs_grid_sample_t a = rt_ir_attrs_grid_sample(attrs);
  const int32_t m = index_of(a.method, methods, 3), pad = index_of(a.padding_mode, paddings, 3);
  if (m < 0) return RT_STATUS(INVALID_ARGUMENT, "%s: unknown method \"%s\" (nearest, bilinear, bicubic)", op, a.method);
  if (pad < 0) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: unknown padding_mode \"%s\" (zeros, border, reflection)", op,
                     a.padding_mode);
  }
  if (strcmp(a.layout, "NCHW") != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: layout \"%s\" is not supported (NCHW only)", op, a.layout);
  }
  p->method = (rt_grid_method_t)m;
  p->padding = (rt_grid_padding_t)pad;
  p->align_corners = a.align_corners;
  const rt_plan_input_t *x = &in[0], *g = &in[1];
  if (!rt_dtype_is_float(x->dtype) || !rt_dtype_is_float(g->dtype)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: data and grid must be floats", op);
  }
  if (x->rank != 4 || g->rank != 4) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: data (rank %d) and grid (rank %d) must be 4-d", op, (int)x->rank,
                     (int)g->rank);
  }
  if (g->shape[1] != RT_DIM_ANY && g->shape[1] != 2) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: grid must be (N, 2, OH, OW), got %lld in dim 1", op,
                     (long long)g->shape[1]);
  }
  if (x->shape[0] != RT_DIM_ANY && g->shape[0] != RT_DIM_ANY && x->shape[0] != g->shape[0]) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: data and grid differ in N (%lld vs %lld)", op,
                     (long long)x->shape[0], (long long)g->shape[0]);
  }
  p->out_shape[0] = x->shape[0] != RT_DIM_ANY ? x->shape[0] : g->shape[0];
  p->out_shape[1] = x->shape[1];
  p->out_shape[2] = g->shape[2];
  p->out_shape[3] = g->shape[3];
  return RT_OK;
}

rt_status_t rt_ir_rel_grid_sample(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *t[2];
  rt_plan_input_t in[2];
  for (int32_t i = 0; i < 2; ++i) {
    RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, i, &t[i]));
    rt_ir_plan_input_of_type(t[i], &in[i]);
  }
  rt_plan_grid_sample_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_grid_sample(ctx->attrs, 2, in, &p));
  return rt_ir_op_make_tensor(ctx, t[0]->tensor.dtype, 4, p.out_shape, out_type);
}
