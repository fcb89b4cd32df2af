/* Type relations of the reductions: sum/max/min/mean/prod/all/any,
 * argmax/argmin (int32 out) and variance. TVM's ReduceRel: axis None
 * reduces every axis, a given list (possibly empty) reduces those axes
 * (negative ones count from the end), exclude reduces the others instead;
 * keepdims keeps reduced axes as size 1. */
#include "ir/op/op_impl.h"

/* Fills reduced[rank] from the call's axis/exclude attributes. */
static rt_status_t reduced_axes(const rt_ir_rel_ctx_t *ctx, int32_t rank,
                                bool *reduced) {
  const bool exclude = rt_attrs_bool(ctx->attrs, "exclude");
  if (rt_attrs_is_none(ctx->attrs, "axis")) {
    for (int32_t i = 0; i < rank; ++i) reduced[i] = true;
    return RT_OK; /* TVM ignores exclude without axes */
  }
  for (int32_t i = 0; i < rank; ++i) reduced[i] = false;
  int32_t n = rt_attrs_ints_count(ctx->attrs, "axis");
  for (int32_t k = 0; k < n; ++k) {
    int32_t axis;
    RT_RETURN_IF_ERROR(
        rt_ir_op_axis(rt_attrs_ints_at(ctx->attrs, "axis", k), rank, &axis));
    reduced[axis] = true;
  }
  if (exclude) {
    for (int32_t i = 0; i < rank; ++i) reduced[i] = !reduced[i];
  }
  return RT_OK;
}

static rt_status_t reduce_to(const rt_ir_rel_ctx_t *ctx, const rt_ir_type_t *x,
                             rt_dtype_t dtype, rt_ir_type_t **out_type) {
  bool reduced[RT_TENSOR_MAX_RANK];
  const int32_t rank = x->tensor.rank;
  RT_RETURN_IF_ERROR(reduced_axes(ctx, rank, reduced));
  const bool keepdims = rt_attrs_bool(ctx->attrs, "keepdims");
  int64_t shape[RT_TENSOR_MAX_RANK];
  int32_t r = 0;
  for (int32_t i = 0; i < rank; ++i) {
    if (!reduced[i]) {
      shape[r++] = x->tensor.shape[i];
    } else if (keepdims) {
      shape[r++] = 1;
    }
  }
  return rt_ir_op_make_tensor(ctx, dtype, r, shape, out_type);
}

rt_status_t rt_ir_rel_reduce(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  return reduce_to(ctx, x, x->tensor.dtype, out_type);
}

rt_status_t rt_ir_rel_argreduce(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  return reduce_to(ctx, x, RT_DTYPE_INT32, out_type);
}

/* variance(data, mean): mean is data's mean over the same axes with
 * keepdims, so it must broadcast against data. */
rt_status_t rt_ir_rel_variance(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *mean;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &mean));
  RT_RETURN_IF_ERROR(rt_ir_op_same_dtype(x->tensor.dtype, mean->tensor.dtype));
  int64_t shape[RT_TENSOR_MAX_RANK];
  int32_t rank;
  RT_RETURN_IF_ERROR(rt_ir_op_broadcast(x->tensor.rank, x->tensor.shape,
                                        mean->tensor.rank, mean->tensor.shape,
                                        &rank, shape));
  return reduce_to(ctx, x, x->tensor.dtype, out_type);
}
