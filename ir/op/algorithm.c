/* Type relations of the algorithm ops: cumsum (TVM's ScanopRel) and topk
 * (TopKRel).
 *
 * cumsum: axis None scans the flattened input, so the result is 1-d with
 * the input's element count; otherwise it has the input's shape. The
 * result (and accumulation) dtype is `dtype`, or the input's when unset;
 * a bool result is refused (a running sum of bools needs an int dtype).
 *
 * topk: the result has the input's shape with the axis extent replaced by
 * k (the whole extent when k < 1). k larger than a static extent is an
 * error; with a `?` extent the kernel checks at run time. ret_type "both"
 * gives (values, indices), "values" and "indices" one tensor; values keep
 * the input's dtype, indices have `dtype` (an integer type). */
#include <string.h>

#include "ir/op/op_impl.h"

rt_status_t rt_ir_rel_scan(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", x->tensor.dtype, &dt));
  if (rt_dtype_is_bool(dt)) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: a running sum of bool needs an integer dtype (dtype=\"int32\")",
                     ctx->op->name);
  }
  if (rt_attrs_is_none(ctx->attrs, "axis")) {
    int64_t n = 1;
    for (int32_t d = 0; d < x->tensor.rank; ++d) {
      RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(n, x->tensor.shape[d], &n));
    }
    return rt_ir_op_make_tensor(ctx, dt, 1, &n, out_type);
  }
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_attrs_int(ctx->attrs, "axis"), x->tensor.rank, &axis));
  return rt_ir_op_retype(ctx, x, dt, out_type);
}

rt_status_t rt_ir_rel_topk(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  if (x->tensor.rank < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "topk: the input must have rank >= 1, got a 0-d tensor");
  }
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_attrs_int(ctx->attrs, "axis"), x->tensor.rank, &axis));
  const char *ret = rt_attrs_string(ctx->attrs, "ret_type");
  const bool both = strcmp(ret, "both") == 0;
  if (!both && strcmp(ret, "values") != 0 && strcmp(ret, "indices") != 0) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "topk: unknown ret_type \"%s\" (both, values, indices)", ret);
  }
  rt_dtype_t idt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", RT_DTYPE_INT32, &idt));
  if (!rt_dtype_is_int(idt) && !rt_dtype_is_uint(idt)) {
    char name[RT_DTYPE_NAME_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "topk: dtype of the indices must be an integer type, got %s",
                     rt_dtype_name(idt, name));
  }
  const int64_t k = rt_attrs_int(ctx->attrs, "k");
  int64_t shape[RT_TENSOR_MAX_RANK];
  memcpy(shape, x->tensor.shape, (size_t)x->tensor.rank * sizeof shape[0]);
  if (k >= 1) {
    if (shape[axis] != RT_DIM_ANY && k > shape[axis]) {
      return RT_STATUS(INVALID_ARGUMENT, "topk: k = %lld is larger than axis %d's extent %lld",
                       (long long)k, (int)axis, (long long)shape[axis]);
    }
    shape[axis] = k;
  }
  rt_ir_type_t *values = NULL, *indices = NULL;
  RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, x->tensor.dtype, x->tensor.rank, shape, &values));
  RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, idt, x->tensor.rank, shape, &indices));
  if (!both) {
    *out_type = ret[0] == 'v' ? values : indices;
    return RT_OK;
  }
  rt_ir_type_t *fields[2] = {values, indices};
  return rt_ir_tuple_type(ctx->module, 2, fields, out_type);
}
