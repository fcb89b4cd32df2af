/* Type relations of the elementwise and broadcast ops: unary identity
 * (negative ... nn.relu, leaky_relu, clip, zeros_like), bool-valued unary
 * tests (isnan ...), cast / cast_like / full_like, numpy-broadcast binary
 * ops and comparisons (bool out), where (three-way broadcast), nn.prelu
 * and nn.bias_add (a 1-d operand along `axis`). */
#include "ir/op/op_impl.h"

rt_status_t rt_ir_rel_identity(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  *out_type = ctx->args[0];
  return RT_OK;
}

rt_status_t rt_ir_rel_unary_bool(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  return rt_ir_op_retype(ctx, x, RT_DTYPE_BOOL, out_type);
}

rt_status_t rt_ir_rel_cast(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  if (*rt_attrs_string(ctx->attrs, "dtype") == '\0') {
    return RT_STATUS(INVALID_ARGUMENT, "cast needs a dtype");
  }
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", x->tensor.dtype, &dt));
  return rt_ir_op_retype(ctx, x, dt, out_type);
}

rt_status_t rt_ir_rel_cast_like(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *like;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &like));
  return rt_ir_op_retype(ctx, x, like->tensor.dtype, out_type);
}

rt_status_t rt_ir_rel_full_like(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *fill;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &fill));
  if (fill->tensor.rank != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "the fill value must be a scalar, got rank %d",
                     (int)fill->tensor.rank);
  }
  *out_type = ctx->args[0];
  return RT_OK;
}

static rt_status_t broadcast2(const rt_ir_rel_ctx_t *ctx, bool bool_out,
                              rt_ir_type_t **out_type) {
  const rt_ir_type_t *a, *b;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &a));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &b));
  RT_RETURN_IF_ERROR(rt_ir_op_same_dtype(a->tensor.dtype, b->tensor.dtype));
  int64_t shape[RT_TENSOR_MAX_RANK];
  int32_t rank;
  RT_RETURN_IF_ERROR(rt_ir_op_broadcast(a->tensor.rank, a->tensor.shape,
                                        b->tensor.rank, b->tensor.shape, &rank,
                                        shape));
  return rt_ir_op_make_tensor(ctx, bool_out ? RT_DTYPE_BOOL : a->tensor.dtype,
                              rank, shape, out_type);
}

rt_status_t rt_ir_rel_broadcast(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return broadcast2(ctx, false, out_type);
}

rt_status_t rt_ir_rel_broadcast_bool(const rt_ir_rel_ctx_t *ctx,
                                     rt_ir_type_t **out_type) {
  return broadcast2(ctx, true, out_type);
}

/* where(cond, x, y): x and y share a dtype; the shape broadcasts all three
 * (TVM checks no dtype for cond). */
rt_status_t rt_ir_rel_where(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *c, *x, *y;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &c));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 2, &y));
  RT_RETURN_IF_ERROR(rt_ir_op_same_dtype(x->tensor.dtype, y->tensor.dtype));
  int64_t s1[RT_TENSOR_MAX_RANK], s2[RT_TENSOR_MAX_RANK];
  int32_t r1, r2;
  RT_RETURN_IF_ERROR(rt_ir_op_broadcast(x->tensor.rank, x->tensor.shape,
                                        y->tensor.rank, y->tensor.shape, &r1, s1));
  RT_RETURN_IF_ERROR(rt_ir_op_broadcast(c->tensor.rank, c->tensor.shape, r1, s1,
                                        &r2, s2));
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, r2, s2, out_type);
}

/* A 1-d operand (bias, alpha) matching data's dim along `axis`. */
static rt_status_t channel_operand(const rt_ir_rel_ctx_t *ctx, const char *what,
                                   rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *v;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &v));
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_attrs_int(ctx->attrs, "axis"), x->tensor.rank,
                                   &axis));
  RT_RETURN_IF_ERROR(rt_ir_op_same_dtype(x->tensor.dtype, v->tensor.dtype));
  int64_t c = x->tensor.shape[axis];
  if (v->tensor.rank != 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s must be 1-d, got rank %d", what,
                     (int)v->tensor.rank);
  }
  int64_t n = v->tensor.shape[0];
  if (c != RT_DIM_ANY && n != RT_DIM_ANY && c != n) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s has %lld elements but data has %lld along axis %d", what,
                     (long long)n, (long long)c, (int)axis);
  }
  *out_type = ctx->args[0];
  return RT_OK;
}

rt_status_t rt_ir_rel_prelu(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return channel_operand(ctx, "alpha", out_type);
}

rt_status_t rt_ir_rel_bias_add(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return channel_operand(ctx, "bias", out_type);
}
