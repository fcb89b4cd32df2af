/* Reference kernels of the scatter family (ir/op/scatter.c):
 * scatter_elements and scatter_nd. Plain loops: copy data to the output,
 * then walk updates in row-major order and meet each update with the
 * output element its index names (ir/op/plan_scatter.h), so updates
 * landing on one element apply in that order (the last wins for
 * `update`). Each step is stored in the output's dtype before the next,
 * as the element-by-element definition reads: floats combine in double
 * and round on the store (exact for add and mul of float32 and float64
 * pairs: one rounding); integers combine in uint64 (wrapping) and min/max
 * compare signed or unsigned by the dtype. Index values may be negative
 * (from the end); outside [-n, n) is OUT_OF_RANGE naming the value. */
#include "interp/kernels/kernels_impl.h"
#include "ir/op/plan.h"

/* out[o] = reduce(out[o], upd[u]). */
static void meet(rt_tensor_t *out, int64_t o, const rt_tensor_t *upd, int64_t u,
                 rt_scatter_reduce_t r) {
  if (r == RT_SCATTER_UPDATE) {
    rt_interp_copy_elem(upd, u, out, o);
    return;
  }
  const rt_interp_class_t c = rt_interp_class(out->dtype);
  if (c == RT_INTERP_FLOAT) {
    const double a = rt_interp_load_f(out, o), b = rt_interp_load_f(upd, u);
    double v = a;
    switch (r) {
      case RT_SCATTER_ADD: v = a + b; break;
      case RT_SCATTER_MUL: v = a * b; break;
      case RT_SCATTER_MIN: v = b < a ? b : a; break;
      case RT_SCATTER_MAX: v = b > a ? b : a; break;
      case RT_SCATTER_UPDATE: break;
    }
    rt_interp_store_f(out, o, v);
    return;
  }
  const int64_t a = rt_interp_load_i(out, o), b = rt_interp_load_i(upd, u);
  const bool is_unsigned = c == RT_INTERP_UINT;
  int64_t v = a;
  switch (r) {
    case RT_SCATTER_ADD: v = rt_interp_u2s((uint64_t)a + (uint64_t)b); break;
    case RT_SCATTER_MUL: v = rt_interp_u2s((uint64_t)a * (uint64_t)b); break;
    case RT_SCATTER_MIN:
      v = (is_unsigned ? (uint64_t)b < (uint64_t)a : b < a) ? b : a;
      break;
    case RT_SCATTER_MAX:
      v = (is_unsigned ? (uint64_t)b > (uint64_t)a : b > a) ? b : a;
      break;
    case RT_SCATTER_UPDATE: break;
  }
  rt_interp_store_i(out, o, v);
}

static rt_status_t wrap(const rt_interp_call_t *call, int64_t v, int64_t n, int64_t *out) {
  if (v < -n || v >= n) {
    return RT_INTERP_ERROR(call, OUT_OF_RANGE,
                           "index %lld is out of range for an axis of size %lld",
                           (long long)v, (long long)n);
  }
  *out = v < 0 ? v + n : v;
  return RT_OK;
}

static void copy_data(const rt_tensor_t *x, rt_tensor_t *out) {
  for (int64_t i = 0; i < out->numel; ++i) rt_interp_copy_elem(x, i, out, i);
}

rt_status_t rt_interp_k_SCATTER_ELEMENTS(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0], *ind = call->args[1], *upd = call->args[2];
  rt_tensor_t *out = call->outs[0];
  rt_plan_input_t in[3];
  for (int32_t i = 0; i < 3; ++i) rt_ir_plan_input_of_tensor(call->args[i], &in[i]);
  rt_plan_scatter_elements_t p;
  RT_RETURN_IF_ERROR(rt_interp_plan_status(call, rt_ir_plan_scatter_elements(call->attrs, 3, in, &p)));
  copy_data(x, out);
  int64_t u[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < upd->numel; ++i) {
    rt_interp_unravel(i, upd->rank, upd->shape, u);
    RT_RETURN_IF_ERROR(wrap(call, rt_interp_load_i(ind, i), x->shape[p.axis], &u[p.axis]));
    int64_t o = 0;
    for (int32_t d = 0; d < x->rank; ++d) o = o * x->shape[d] + u[d];
    meet(out, o, upd, i, p.reduce);
  }
  return RT_OK;
}

rt_status_t rt_interp_k_SCATTER_ND(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0], *ind = call->args[1], *upd = call->args[2];
  rt_tensor_t *out = call->outs[0];
  rt_plan_input_t in[3];
  for (int32_t i = 0; i < 3; ++i) rt_ir_plan_input_of_tensor(call->args[i], &in[i]);
  rt_plan_scatter_nd_t p;
  RT_RETURN_IF_ERROR(rt_interp_plan_status(call, rt_ir_plan_scatter_nd(call->attrs, 3, in, &p)));
  copy_data(x, out);
  /* J index tuples, each with a slice of `inner` elements (data[M:]). */
  int64_t jcount = 1, inner = 1;
  for (int32_t d = 1; d < ind->rank; ++d) jcount *= ind->shape[d];
  for (int32_t d = p.m; d < x->rank; ++d) inner *= x->shape[d];
  for (int64_t j = 0; j < jcount; ++j) {
    int64_t base = 0;
    for (int32_t k = 0; k < p.m; ++k) {
      int64_t v = 0;
      RT_RETURN_IF_ERROR(wrap(call, rt_interp_load_i(ind, k * jcount + j), x->shape[k], &v));
      base = base * x->shape[k] + v;
    }
    for (int64_t e = 0; e < inner; ++e) meet(out, base * inner + e, upd, j * inner + e, p.reduce);
  }
  return RT_OK;
}
