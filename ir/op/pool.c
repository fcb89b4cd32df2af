/* Type relations of the pools: max/avg pool 1-d and 2-d, global pools and
 * adaptive pools. Layouts are any ordering of NCW / NCHW; the output is in
 * the input layout (out_layout only matters to layout rewriting). TVM's
 * Pool2DRel output size, with pad = before + after and
 * k' = (pool_size - 1) * dilation + 1:
 *   floor mode: (in + pad - k') / stride + 1
 *   ceil mode:  (in + pad - k' + stride - 1) / stride + 1
 * (TVM applies no "last window must start inside the input" correction).
 * Adaptive pools: output_size [] keeps the input size, one value applies
 * to every spatial dim. */
#include "ir/op/op_impl.h"

#define MAXS 2

static rt_status_t layout_of(const rt_ir_rel_ctx_t *ctx, const rt_ir_type_t *x,
                             int32_t S, int32_t *pos) {
  const char *letters = S == 2 ? "NCHW" : "NCW";
  RT_RETURN_IF_ERROR(rt_ir_op_layout_perm(ctx->op->name, "layout",
                                          rt_attrs_string(ctx->attrs, "layout"),
                                          letters, pos));
  if (x->tensor.rank != 2 + S) {
    return RT_STATUS(INVALID_ARGUMENT, "%s needs a %d-d input, got rank %d",
                     ctx->op->name, (int)(2 + S), (int)x->tensor.rank);
  }
  return RT_OK;
}

static rt_status_t pool_common(const rt_ir_rel_ctx_t *ctx, int32_t S,
                               rt_ir_type_t **out_type) {
  const char *op = ctx->op->name;
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int32_t pos[2 + MAXS];
  RT_RETURN_IF_ERROR(layout_of(ctx, x, S, pos));
  int64_t size[MAXS], strides[MAXS], dilation[MAXS], pb[MAXS], pa[MAXS];
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(ctx, "pool_size", S, size));
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(ctx, "strides", S, strides));
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(ctx, "dilation", S, dilation));
  RT_RETURN_IF_ERROR(rt_ir_op_padding(ctx, "padding", S, pb, pa));
  const bool ceil_mode = rt_attrs_bool(ctx->attrs, "ceil_mode");
  int64_t out[2 + MAXS];
  for (int32_t i = 0; i < 2 + S; ++i) out[i] = x->tensor.shape[i];
  for (int32_t i = 0; i < S; ++i) {
    if (size[i] < 1 || strides[i] < 1 || dilation[i] < 1) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: pool_size, strides and dilation must be >= 1", op);
    }
    const int32_t p = pos[2 + i];
    const int64_t in = x->tensor.shape[p];
    if (in == RT_DIM_ANY) continue;
    int64_t dk, span;
    bool ovf = __builtin_mul_overflow(size[i] - 1, dilation[i], &dk) ||
               __builtin_add_overflow(dk, 1, &dk) ||
               __builtin_add_overflow(in, pb[i], &span) ||
               __builtin_add_overflow(span, pa[i], &span) ||
               __builtin_sub_overflow(span, dk, &span);
    if (ovf || span < 0) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: the window (%lld, dilation %lld) is larger than the padded input %lld",
                       op, (long long)size[i], (long long)dilation[i], (long long)in);
    }
    if (ceil_mode && __builtin_add_overflow(span, strides[i] - 1, &span)) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: output too large", op);
    }
    out[p] = span / strides[i] + 1;
  }
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, 2 + S, out, out_type);
}

rt_status_t rt_ir_rel_pool2d(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return pool_common(ctx, 2, out_type);
}

rt_status_t rt_ir_rel_pool1d(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return pool_common(ctx, 1, out_type);
}

rt_status_t rt_ir_rel_global_pool2d(const rt_ir_rel_ctx_t *ctx,
                                    rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int32_t pos[4];
  RT_RETURN_IF_ERROR(layout_of(ctx, x, 2, pos));
  int64_t out[4];
  for (int32_t i = 0; i < 4; ++i) out[i] = x->tensor.shape[i];
  out[pos[2]] = out[pos[3]] = 1;
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, 4, out, out_type);
}

static rt_status_t adaptive_common(const rt_ir_rel_ctx_t *ctx, int32_t S,
                                   rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int32_t pos[2 + MAXS];
  RT_RETURN_IF_ERROR(layout_of(ctx, x, S, pos));
  int64_t out[2 + MAXS];
  for (int32_t i = 0; i < 2 + S; ++i) out[i] = x->tensor.shape[i];
  if (rt_attrs_ints_count(ctx->attrs, "output_size") > 0) {
    int64_t size[MAXS];
    RT_RETURN_IF_ERROR(rt_ir_op_ints_n(ctx, "output_size", S, size));
    for (int32_t i = 0; i < S; ++i) {
      if (size[i] < 1) {
        return RT_STATUS(INVALID_ARGUMENT, "%s: output_size must be >= 1",
                         ctx->op->name);
      }
      out[pos[2 + i]] = size[i];
    }
  }
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, 2 + S, out, out_type);
}

rt_status_t rt_ir_rel_adaptive_pool2d(const rt_ir_rel_ctx_t *ctx,
                                      rt_ir_type_t **out_type) {
  return adaptive_common(ctx, 2, out_type);
}

rt_status_t rt_ir_rel_adaptive_pool1d(const rt_ir_rel_ctx_t *ctx,
                                      rt_ir_type_t **out_type) {
  return adaptive_common(ctx, 1, out_type);
}
