/* Type relations and plans of the algorithm ops: cumsum (TVM's ScanopRel)
 * and topk (TopKRel). The plans (ir/op/plan_misc.h) are what the relations
 * build the result types from and what the reference kernels
 * (interp/kernels/algorithm.c) and the lowerings (jit/ops/algorithm.c)
 * read.
 *
 * cumsum: axis None scans the flattened input, so the result is 1-d with
 * the input's element count; otherwise it has the input's shape. The
 * result (and accumulation) dtype is `dtype`, or the input's when unset;
 * a bool result is refused (a running sum of bools needs an int dtype).
 *
 * topk: the result has the input's shape with the axis extent replaced by
 * k (the whole extent when k < 1). k larger than a static extent is an
 * error; with a `?` extent the kernel checks at run time (the plan on the
 * concrete shape). ret_type "both" gives (values, indices), "values" and
 * "indices" one tensor; values keep the input's dtype, indices have
 * `dtype` (an integer type). */
#include <string.h>

#include "ir/op/op_impl.h"
#include "ir/op/plan.h"

/* Dtype attribute `name` of `op`: "" -> `fallback`; a bad name is an error
 * (rt_ir_op_dtype_attr's message). */
static rt_status_t dtype_attr(const rt_ir_attrs_t *attrs, const char *op, const char *name,
                              rt_dtype_t fallback, rt_dtype_t *out) {
  const char *s = rt_attrs_string(attrs, name);
  if (*s == '\0') {
    *out = fallback;
    return RT_OK;
  }
  RT_RETURN_IF_ERROR_ANNOTATE(rt_dtype_parse(s, strlen(s), out), "attribute '%s' of %s", name, op);
  return RT_OK;
}

/* a * b for line sizes: `?` in -> `?` out, and `?` on overflow (a line
 * split of a type that no tensor can have). */
static int64_t line_mul(int64_t a, int64_t b) {
  int64_t r;
  if (a == 0 || b == 0) return 0;
  if (a == RT_DIM_ANY || b == RT_DIM_ANY || __builtin_mul_overflow(a, b, &r)) return RT_DIM_ANY;
  return r;
}

static rt_plan_lines_t lines_of(const rt_plan_input_t *x, int32_t axis) {
  rt_plan_lines_t l = {1, 1, 1};
  for (int32_t d = 0; d < axis; ++d) l.outer = line_mul(l.outer, x->shape[d]);
  for (int32_t d = axis + 1; d < x->rank; ++d) l.inner = line_mul(l.inner, x->shape[d]);
  l.extent = x->shape[axis];
  return l;
}

static rt_status_t one_input(const char *op, int32_t n, const rt_plan_input_t *in) {
  if (n < 1 || !in) return RT_STATUS(INVALID_ARGUMENT, "%s takes 1 arguments, got %d", op, (int)n);
  return RT_OK;
}

rt_status_t rt_ir_plan_scan(const rt_ir_attrs_t *attrs, int32_t n, const rt_plan_input_t *in,
                            rt_plan_scan_t *out_plan) {
  RT_RETURN_IF_ERROR(one_input("cumsum", n, in));
  const rt_attrs_scan_t a = rt_ir_attrs_scan(attrs);
  rt_plan_scan_t p;
  memset(&p, 0, sizeof p);
  RT_RETURN_IF_ERROR(dtype_attr(attrs, "cumsum", "dtype", in[0].dtype, &p.dtype));
  if (rt_dtype_is_bool(p.dtype)) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: a running sum of bool needs an integer dtype (dtype=\"int32\")", "cumsum");
  }
  p.exclusive = !a.exclusive_is_none && a.exclusive;
  p.flat = a.axis_is_none;
  if (p.flat) {
    int64_t count = 1;
    for (int32_t d = 0; d < in[0].rank; ++d) {
      RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(count, in[0].shape[d], &count));
    }
    p.axis = -1;
    p.lines = (rt_plan_lines_t){1, count, 1};
    p.rank = 1;
    p.shape[0] = count;
  } else {
    RT_RETURN_IF_ERROR(rt_ir_op_axis(a.axis, in[0].rank, &p.axis));
    p.lines = lines_of(&in[0], p.axis);
    p.rank = in[0].rank;
    memcpy(p.shape, in[0].shape, (size_t)p.rank * sizeof p.shape[0]);
  }
  *out_plan = p;
  return RT_OK;
}

rt_status_t rt_ir_plan_topk(const rt_ir_attrs_t *attrs, int32_t n, const rt_plan_input_t *in,
                            rt_plan_topk_t *out_plan) {
  RT_RETURN_IF_ERROR(one_input("topk", n, in));
  const rt_plan_input_t *x = &in[0];
  if (x->rank < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "topk: the input must have rank >= 1, got a 0-d tensor");
  }
  const rt_attrs_topk_t a = rt_ir_attrs_topk(attrs);
  rt_plan_topk_t p;
  memset(&p, 0, sizeof p);
  RT_RETURN_IF_ERROR(rt_ir_op_axis(a.axis, x->rank, &p.axis));
  if (strcmp(a.ret_type, "both") == 0) {
    p.ret = RT_TOPK_RET_BOTH;
  } else if (strcmp(a.ret_type, "values") == 0) {
    p.ret = RT_TOPK_RET_VALUES;
  } else if (strcmp(a.ret_type, "indices") == 0) {
    p.ret = RT_TOPK_RET_INDICES;
  } else {
    return RT_STATUS(INVALID_ARGUMENT,
                     "topk: unknown ret_type \"%s\" (both, values, indices)", a.ret_type);
  }
  RT_RETURN_IF_ERROR(dtype_attr(attrs, "topk", "dtype", RT_DTYPE_INT32, &p.index_dtype));
  if (!rt_dtype_is_int(p.index_dtype) && !rt_dtype_is_uint(p.index_dtype)) {
    char name[RT_DTYPE_NAME_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "topk: dtype of the indices must be an integer type, got %s",
                     rt_dtype_name(p.index_dtype, name));
  }
  p.ascend = a.is_ascend;
  p.lines = lines_of(x, p.axis);
  p.rank = x->rank;
  memcpy(p.shape, x->shape, (size_t)p.rank * sizeof p.shape[0]);
  const int64_t extent = p.lines.extent;
  p.k = a.k < 1 ? extent : a.k;
  if (a.k >= 1 && extent != RT_DIM_ANY && a.k > extent) {
    return RT_STATUS(INVALID_ARGUMENT, "topk: k = %lld is larger than axis %d's extent %lld",
                     (long long)a.k, (int)p.axis, (long long)extent);
  }
  p.shape[p.axis] = p.k;
  *out_plan = p;
  return RT_OK;
}

rt_status_t rt_ir_rel_scan(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  rt_plan_input_t in;
  rt_ir_plan_input_of_type(x, &in);
  rt_plan_scan_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_scan(ctx->attrs, 1, &in, &p));
  return rt_ir_op_make_tensor(ctx, p.dtype, p.rank, p.shape, out_type);
}

rt_status_t rt_ir_rel_topk(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  rt_plan_input_t in;
  rt_ir_plan_input_of_type(x, &in);
  rt_plan_topk_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_topk(ctx->attrs, 1, &in, &p));
  rt_ir_type_t *values = NULL, *indices = NULL;
  RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, x->tensor.dtype, p.rank, p.shape, &values));
  RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, p.index_dtype, p.rank, p.shape, &indices));
  switch (p.ret) {
    case RT_TOPK_RET_VALUES: *out_type = values; return RT_OK;
    case RT_TOPK_RET_INDICES: *out_type = indices; return RT_OK;
    case RT_TOPK_RET_BOTH: break;
  }
  rt_ir_type_t *fields[2] = {values, indices};
  return rt_ir_tuple_type(ctx->module, 2, fields, out_type);
}
