/* Type relations and plans of the scatter family: scatter_elements and
 * scatter_nd (TVM's names and attributes), the ops ONNX ScatterElements,
 * Scatter and ScatterND import to.
 *
 * Both return data with some elements replaced: each element of updates
 * lands on one element of data, named by indices, and meets it by the
 * reduction (update replaces; add, mul, min, max combine). Updates landing
 * on one element apply in row-major order of updates, so with `update`
 * the last one wins. Index values may be negative (counting from the end,
 * as ONNX allows); values outside [-n, n) are an error when the kernel
 * runs. The plans check ranks and the static dims; the output type is
 * data's. */
#include <string.h>

#include "ir/op/op_impl.h"
#include "ir/op/plan.h"

static rt_status_t reduce_of(const char *op, const char *s, rt_scatter_reduce_t *out) {
  static const struct {
    const char *name;
    rt_scatter_reduce_t r;
  } k_names[] = {{"update", RT_SCATTER_UPDATE}, {"add", RT_SCATTER_ADD},
                 {"mul", RT_SCATTER_MUL},       {"min", RT_SCATTER_MIN},
                 {"max", RT_SCATTER_MAX}};
  for (size_t i = 0; i < sizeof k_names / sizeof k_names[0]; ++i) {
    if (strcmp(s, k_names[i].name) == 0) {
      *out = k_names[i].r;
      return RT_OK;
    }
  }
  return RT_STATUS(INVALID_ARGUMENT, "%s: unknown reduction \"%s\" (update, add, mul, min, max)",
                   op, s);
}

static bool known(int64_t d) { return d != RT_DIM_ANY; }

static rt_status_t int_dtype(const char *op, rt_dtype_t d) {
  if (rt_dtype_is_int(d) || rt_dtype_is_uint(d)) return RT_OK;
  char name[RT_DTYPE_NAME_MAX];
  return RT_STATUS(INVALID_ARGUMENT, "%s: indices must be integers, got %s", op,
                   rt_dtype_name(d, name));
}

static rt_status_t same_dtype(const char *op, rt_dtype_t a, rt_dtype_t b) {
  if (rt_dtype_equal(a, b)) return RT_OK;
  char na[RT_DTYPE_NAME_MAX], nb[RT_DTYPE_NAME_MAX];
  return RT_STATUS(INVALID_ARGUMENT, "%s: updates are %s but data %s", op,
                   rt_dtype_name(b, nb), rt_dtype_name(a, na));
}

rt_status_t rt_ir_plan_scatter_elements(const rt_ir_attrs_t *attrs, int32_t n,
                                        const rt_plan_input_t *in,
                                        rt_plan_scatter_elements_t *out_plan) {
  static const char op[] = "scatter_elements";
  if (n < 3) return RT_STATUS(INVALID_ARGUMENT, "%s needs data, indices and updates", op);
  const rt_attrs_scatter_elements_t a = rt_ir_attrs_scatter_elements(attrs);
  const rt_plan_input_t *x = &in[0], *ind = &in[1], *upd = &in[2];
  RT_RETURN_IF_ERROR(reduce_of(op, a.reduction, &out_plan->reduce));
  RT_RETURN_IF_ERROR(int_dtype(op, ind->dtype));
  RT_RETURN_IF_ERROR(same_dtype(op, x->dtype, upd->dtype));
  if (x->rank < 1) return RT_STATUS(INVALID_ARGUMENT, "%s: data needs rank >= 1", op);
  RT_RETURN_IF_ERROR(rt_ir_op_axis(a.axis, x->rank, &out_plan->axis));
  if (ind->rank != x->rank || upd->rank != x->rank) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: indices (rank %d) and updates (rank %d) need data's rank %d",
                     op, (int)ind->rank, (int)upd->rank, (int)x->rank);
  }
  for (int32_t d = 0; d < x->rank; ++d) {
    const int64_t i = ind->shape[d], u = upd->shape[d], s = x->shape[d];
    if (known(i) && known(u) && i != u) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: indices and updates differ in dim %d (%lld vs %lld)",
                       op, (int)d, (long long)i, (long long)u);
    }
    if (d != out_plan->axis && known(i) && known(s) && i > s) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: indices dim %d is %lld, past data's %lld", op,
                       (int)d, (long long)i, (long long)s);
    }
  }
  return RT_OK;
}

rt_status_t rt_ir_plan_scatter_nd(const rt_ir_attrs_t *attrs, int32_t n,
                                  const rt_plan_input_t *in, rt_plan_scatter_nd_t *out_plan) {
  static const char op[] = "scatter_nd";
  if (n < 3) return RT_STATUS(INVALID_ARGUMENT, "%s needs data, indices and updates", op);
  const rt_attrs_scatter_nd_t a = rt_ir_attrs_scatter_nd(attrs);
  const rt_plan_input_t *x = &in[0], *ind = &in[1], *upd = &in[2];
  RT_RETURN_IF_ERROR(reduce_of(op, a.mode, &out_plan->reduce));
  RT_RETURN_IF_ERROR(int_dtype(op, ind->dtype));
  RT_RETURN_IF_ERROR(same_dtype(op, x->dtype, upd->dtype));
  if (ind->rank < 1) return RT_STATUS(INVALID_ARGUMENT, "%s: indices need rank >= 1", op);
  const int64_t m = ind->shape[0];
  if (!known(m)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: the index tuple length (indices dim 0) must be static", op);
  }
  if (m < 1 || m > x->rank) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: index tuples of length %lld for data of rank %d", op,
                     (long long)m, (int)x->rank);
  }
  const int32_t yrank = ind->rank - 1;
  if (upd->rank != yrank + x->rank - (int32_t)m) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: updates have rank %d, need %d (indices' %d + data's %d - %lld)",
                     op, (int)upd->rank, (int)(yrank + x->rank - (int32_t)m), (int)yrank,
                     (int)x->rank, (long long)m);
  }
  for (int32_t d = 0; d < upd->rank; ++d) {
    const int64_t want = d < yrank ? ind->shape[d + 1] : x->shape[m + d - yrank];
    if (known(want) && known(upd->shape[d]) && want != upd->shape[d]) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: updates dim %d is %lld, need %lld", op, (int)d,
                       (long long)upd->shape[d], (long long)want);
    }
  }
  out_plan->m = (int32_t)m;
  out_plan->yrank = yrank;
  return RT_OK;
}

static rt_status_t rel3(const rt_ir_rel_ctx_t *ctx, const rt_ir_type_t **t, rt_plan_input_t *in) {
  for (int32_t i = 0; i < 3; ++i) {
    RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, i, &t[i]));
    rt_ir_plan_input_of_type(t[i], &in[i]);
  }
  return RT_OK;
}

rt_status_t rt_ir_rel_scatter_elements(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *t[3];
  rt_plan_input_t in[3];
  RT_RETURN_IF_ERROR(rel3(ctx, t, in));
  rt_plan_scatter_elements_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_scatter_elements(ctx->attrs, 3, in, &p));
  return rt_ir_op_retype(ctx, t[0], t[0]->tensor.dtype, out_type);
}

rt_status_t rt_ir_rel_scatter_nd(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *t[3];
  rt_plan_input_t in[3];
  RT_RETURN_IF_ERROR(rel3(ctx, t, in));
  rt_plan_scatter_nd_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_scatter_nd(ctx->attrs, 3, in, &p));
  return rt_ir_op_retype(ctx, t[0], t[0]->tensor.dtype, out_type);
}
