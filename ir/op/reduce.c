/* Type relations and the plan of the reductions: sum/max/min/mean/prod/
 * all/any, argmax/argmin (int32 out) and variance. rt_ir_plan_reduce
 * (ir/op/plan_reduce.h) normalises TVM's ReduceRel attributes once: axis
 * None reduces every axis, a given list (possibly empty) reduces those axes
 * (negative ones count from the end), exclude reduces the others instead;
 * keepdims keeps reduced axes as size 1. The relations build the result
 * type from the plan's output shape; the reference kernels
 * (interp/kernels/reduce.c) and the lowerings (jit/ops/reduce.c) read the
 * same plan. */
#include <string.h>

#include "ir/op/op_impl.h"
#include "ir/op/plan.h"

rt_status_t rt_ir_plan_reduce(const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                              int32_t n, const rt_plan_input_t *in,
                              rt_plan_reduce_t *out_plan) {
  if (n < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s needs its data input", op->name);
  }
  rt_attr_list_t axis;
  bool axis_none, exclude;
  rt_plan_reduce_t *p = out_plan;
  memset(p, 0, sizeof *p);
  if (op->id == RT_OP_ARGMAX || op->id == RT_OP_ARGMIN) {
    rt_attrs_argreduce_t a = rt_ir_attrs_argreduce(attrs);
    axis = a.axis;
    axis_none = a.axis_is_none;
    exclude = a.exclude;
    p->keepdims = a.keepdims;
    p->select_last_index = a.select_last_index;
  } else if (op->id == RT_OP_VARIANCE) {
    rt_attrs_variance_t a = rt_ir_attrs_variance(attrs);
    axis = a.axis;
    axis_none = a.axis_is_none;
    exclude = a.exclude;
    p->keepdims = a.keepdims;
    p->unbiased = a.unbiased;
  } else {
    rt_attrs_reduce_t a = rt_ir_attrs_reduce(attrs);
    axis = a.axis;
    axis_none = a.axis_is_none;
    exclude = a.exclude;
    p->keepdims = a.keepdims;
  }
  const int32_t rank = in[0].rank;
  RT_RETURN_IF_ERROR(rt_ir_op_check_rank(rank));
  p->rank = rank;
  if (axis_none) {
    for (int32_t i = 0; i < rank; ++i) p->reduced[i] = true;
    /* TVM ignores exclude without axes */
  } else {
    for (int32_t k = 0; k < axis.count; ++k) {
      int32_t a;
      RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_attr_list_int(axis, k), rank, &a));
      p->reduced[a] = true;
    }
    if (exclude) {
      for (int32_t i = 0; i < rank; ++i) p->reduced[i] = !p->reduced[i];
    }
  }
  for (int32_t i = 0; i < rank; ++i) {
    if (p->reduced[i]) {
      p->axes[p->naxes++] = i;
      if (p->keepdims) p->out_shape[p->out_rank++] = 1;
    } else {
      p->out_shape[p->out_rank++] = in[0].shape[i];
    }
  }
  return RT_OK;
}

/* The plan of the call on argument 0 (a tensor), and its output type. */
static rt_status_t reduce_to(const rt_ir_rel_ctx_t *ctx, const rt_ir_type_t *x,
                             rt_dtype_t dtype, rt_ir_type_t **out_type) {
  rt_plan_input_t in;
  rt_ir_plan_input_of_type(x, &in);
  rt_plan_reduce_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_reduce(ctx->op, ctx->attrs, 1, &in, &p));
  return rt_ir_op_make_tensor(ctx, dtype, p.out_rank, p.out_shape, out_type);
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
