/* Reference kernels of the reductions (ir/op/reduce.c): sum, max, min,
 * mean, prod, all, any, argmax, argmin, variance.
 *
 * Algorithm: the input's axes are split into kept and reduced ones as the
 * op's plan says (rt_ir_plan_reduce, ir/op/plan_reduce.h: axis None = all
 * axes; exclude = reduce the axes not listed; negative axes count from the
 * end). For each output element (row-major over the kept
 * axes, which is also the output's order with or without keepdims) the
 * kernel walks the reduced sub-tensor row-major. Float sums, means,
 * products and variances accumulate in double; integer sums and products
 * wrap in uint64 (modulo 2^bits once stored); the integer mean is the
 * wrapped sum divided by the count, truncated (TVM divides in the dtype).
 * max/min propagate NaN (numpy); over an empty axis they give the lowest /
 * highest value of the dtype (-inf / +inf for floats, TVM's identity
 * elements), sum 0, prod 1, all true, any false, mean NaN (0/0; 0 for
 * integers). argmax/argmin return the row-major position within the reduced
 * axes (int32), the first extremum unless select_last_index, NaN counting
 * as the extremum (numpy); 0 for an empty axis. The input is read whole
 * (double, or int64 for integer sums, products and extrema), one dtype
 * dispatch per tensor, and the offsets of the kept and reduced indices are
 * computed once per call. */
#include <math.h>

#include "interp/kernels/kernels_impl.h"
#include "ir/op/plan.h"

/* The plan's split of the input's axes: the kept axes walk the output,
 * the reduced ones each output element's sub-tensor. */
typedef struct walk_t {
  int32_t nkept, nred;
  int32_t kept_dim[RT_TENSOR_MAX_RANK], red_dim[RT_TENSOR_MAX_RANK];
  int64_t nout, count; /* output elements; elements reduced into each */
} walk_t;

static rt_status_t make_walk(const rt_interp_call_t *call, const rt_tensor_t *x,
                             rt_plan_reduce_t *plan, walk_t *p) {
  rt_plan_input_t in;
  rt_ir_plan_input_of_tensor(x, &in);
  RT_RETURN_IF_ERROR(rt_interp_plan_status(
      call, rt_ir_plan_reduce(call->op, call->attrs, 1, &in, plan)));
  p->nkept = p->nred = 0;
  p->nout = p->count = 1;
  for (int32_t d = 0; d < x->rank; ++d) {
    if (plan->reduced[d]) {
      p->red_dim[p->nred++] = d;
      p->count *= x->shape[d];
    } else {
      p->kept_dim[p->nkept++] = d;
      p->nout *= x->shape[d];
    }
  }
  for (int32_t k = 0; k < call->nouts; ++k) {
    if (call->outs[k]->numel != p->nout) {
      return RT_INTERP_ERROR(call, INTERNAL,
                             "output has %lld elements, the reduction %lld",
                             (long long)call->outs[k]->numel, (long long)p->nout);
    }
  }
  return RT_OK;
}

/* Offsets of the kept (reduced = false: nout of them, in output order) or
 * reduced (count of them, row-major over the reduced axes) multi-indices
 * for per-axis element strides `stride` of a tensor shaped like x: input
 * element (o, r) is at kept[o] + red[r]. One unravel per entry, computed
 * once per call. */
static rt_status_t offsets(const rt_interp_call_t *call, const walk_t *p, const rt_tensor_t *x,
                           bool reduced, const int64_t *stride, int64_t **out) {
  const int32_t n = reduced ? p->nred : p->nkept;
  const int32_t *dims = reduced ? p->red_dim : p->kept_dim;
  const int64_t total = reduced ? p->count : p->nout;
  int64_t shape[RT_TENSOR_MAX_RANK], idx[RT_TENSOR_MAX_RANK];
  for (int32_t k = 0; k < n; ++k) shape[k] = x->shape[dims[k]];
  int64_t *off = NULL;
  RT_RETURN_IF_ERROR(rt_interp_scratch(call, total, sizeof(int64_t), false, (void **)&off));
  for (int64_t i = 0; i < total; ++i) {
    rt_interp_unravel(i, n, shape, idx);
    int64_t flat = 0;
    for (int32_t k = 0; k < n; ++k) flat += idx[k] * stride[dims[k]];
    off[i] = flat;
  }
  *out = off;
  return RT_OK;
}

/* The kept and reduced offsets of x itself (row-major strides). */
static rt_status_t x_offsets(const rt_interp_call_t *call, const walk_t *p, const rt_tensor_t *x,
                             int64_t **kept, int64_t **red) {
  int64_t strides[RT_TENSOR_MAX_RANK];
  rt_interp_strides(x->rank, x->shape, strides);
  RT_RETURN_IF_ERROR(offsets(call, p, x, false, strides, kept));
  return offsets(call, p, x, true, strides, red);
}

/* Element-wise over the read buffers: floats in double, the others in
 * int64 (all/any read doubles whatever the dtype: an integer's double is
 * non-zero exactly when it is). Results go to a buffer stored once. */
static rt_status_t reduce(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const int32_t id = call->op->id;
  rt_plan_reduce_t plan;
  walk_t p;
  RT_RETURN_IF_ERROR(make_walk(call, x, &plan, &p));
  const rt_interp_class_t cls = rt_interp_class(x->dtype);
  const bool uns = cls == RT_INTERP_UINT || cls == RT_INTERP_BOOL;
  const bool logical = id == RT_OP_ALL || id == RT_OP_ANY;
  const bool extremum = id == RT_OP_MAX || id == RT_OP_MIN, is_max = id == RT_OP_MAX;
  const bool in_double = cls == RT_INTERP_FLOAT || logical || (extremum && p.count == 0);
  int64_t *kept = NULL, *red = NULL;
  double *xf = NULL, *of = NULL;
  int64_t *xi = NULL, *oi = NULL;
  rt_status_t st = x_offsets(call, &p, x, &kept, &red);
  if (!st && in_double) {
    st = rt_interp_load_all_f(call, x, &xf);
    if (!st) st = rt_interp_scratch(call, p.nout, sizeof(double), false, (void **)&of);
  } else if (!st) {
    st = rt_interp_load_all_i(call, x, &xi);
    if (!st) st = rt_interp_scratch(call, p.nout, sizeof(int64_t), false, (void **)&oi);
  }
  for (int64_t o = 0; o < p.nout && !st; ++o) {
    const int64_t base = kept[o];
    if (logical) {
      bool acc = id == RT_OP_ALL;
      for (int64_t r = 0; r < p.count; ++r) {
        const bool v = xf[base + red[r]] != 0;
        acc = id == RT_OP_ALL ? (acc && v) : (acc || v);
      }
      of[o] = acc;
    } else if (extremum && p.count == 0) {
      of[o] = is_max ? -INFINITY : INFINITY; /* stored saturating: the dtype's lowest/highest */
    } else if (extremum && cls == RT_INTERP_FLOAT) {
      double best = xf[base + red[0]];
      for (int64_t r = 1; r < p.count; ++r) {
        const double v = xf[base + red[r]];
        if (isnan(best)) break;
        if (isnan(v) || (is_max ? v > best : v < best)) best = v;
      }
      of[o] = best;
    } else if (extremum) {
      int64_t best = xi[base + red[0]];
      for (int64_t r = 1; r < p.count; ++r) {
        const int64_t v = xi[base + red[r]];
        const bool better = uns ? (is_max ? (uint64_t)v > (uint64_t)best
                                          : (uint64_t)v < (uint64_t)best)
                                : (is_max ? v > best : v < best);
        if (better) best = v;
      }
      oi[o] = best;
    } else if (cls == RT_INTERP_FLOAT) { /* sum, mean, prod */
      double acc = id == RT_OP_PROD ? 1.0 : 0.0;
      for (int64_t r = 0; r < p.count; ++r) {
        const double v = xf[base + red[r]];
        acc = id == RT_OP_PROD ? acc * v : acc + v;
      }
      if (id == RT_OP_MEAN) acc /= (double)p.count;
      of[o] = acc;
    } else {
      uint64_t acc = id == RT_OP_PROD ? 1 : 0;
      for (int64_t r = 0; r < p.count; ++r) {
        const uint64_t v = (uint64_t)xi[base + red[r]];
        acc = id == RT_OP_PROD ? acc * v : acc + v;
      }
      oi[o] = rt_interp_u2s(acc);
    }
  }
  if (!st && in_double) {
    rt_interp_store_span_f(out, 0, p.nout, of);
  } else if (!st) {
    rt_interp_store_span_i(out, 0, p.nout, oi);
    if (id == RT_OP_MEAN) {
      /* Divide the sums as the dtype holds them (wrapped), truncating. */
      rt_interp_load_span_i(out, 0, p.nout, oi);
      for (int64_t o = 0; o < p.nout; ++o) {
        if (p.count == 0) {
          oi[o] = 0;
        } else if (uns) {
          oi[o] = rt_interp_u2s((uint64_t)oi[o] / (uint64_t)p.count);
        } else {
          oi[o] /= p.count;
        }
      }
      rt_interp_store_span_i(out, 0, p.nout, oi);
    }
  }
  rt_interp_scratch_free(call, kept);
  rt_interp_scratch_free(call, red);
  rt_interp_scratch_free(call, xf);
  rt_interp_scratch_free(call, of);
  rt_interp_scratch_free(call, xi);
  rt_interp_scratch_free(call, oi);
  return st;
}

rt_status_t rt_interp_k_SUM(const rt_interp_call_t *call) { return reduce(call); }
rt_status_t rt_interp_k_MAX(const rt_interp_call_t *call) { return reduce(call); }
rt_status_t rt_interp_k_MIN(const rt_interp_call_t *call) { return reduce(call); }
rt_status_t rt_interp_k_MEAN(const rt_interp_call_t *call) { return reduce(call); }
rt_status_t rt_interp_k_PROD(const rt_interp_call_t *call) { return reduce(call); }
rt_status_t rt_interp_k_ALL(const rt_interp_call_t *call) { return reduce(call); }
rt_status_t rt_interp_k_ANY(const rt_interp_call_t *call) { return reduce(call); }

static rt_status_t argreduce(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const bool is_max = call->op->id == RT_OP_ARGMAX;
  rt_plan_reduce_t plan;
  walk_t p;
  RT_RETURN_IF_ERROR(make_walk(call, x, &plan, &p));
  const bool last = plan.select_last_index;
  const rt_interp_class_t cls = rt_interp_class(x->dtype);
  const bool uns = cls == RT_INTERP_UINT || cls == RT_INTERP_BOOL;
  int64_t *kept = NULL, *red = NULL, *xi = NULL, *res = NULL;
  double *xf = NULL;
  rt_status_t st = x_offsets(call, &p, x, &kept, &red);
  if (!st) st = rt_interp_scratch(call, p.nout, sizeof(int64_t), false, (void **)&res);
  if (!st) {
    st = cls == RT_INTERP_FLOAT ? rt_interp_load_all_f(call, x, &xf)
                                : rt_interp_load_all_i(call, x, &xi);
  }
  for (int64_t o = 0; o < p.nout && !st; ++o) {
    const int64_t base = kept[o];
    int64_t best_r = 0;
    if (cls == RT_INTERP_FLOAT) {
      double best = p.count ? xf[base + red[0]] : 0;
      for (int64_t r = 1; r < p.count; ++r) {
        const double v = xf[base + red[r]];
        bool take;
        if (isnan(best)) {
          take = last && isnan(v);
        } else if (isnan(v)) {
          take = true;
        } else {
          take = is_max ? (v > best || (last && v == best))
                        : (v < best || (last && v == best));
        }
        if (take) {
          best = v;
          best_r = r;
        }
      }
    } else {
      int64_t best = p.count ? xi[base + red[0]] : 0;
      for (int64_t r = 1; r < p.count; ++r) {
        const int64_t v = xi[base + red[r]];
        bool gt = uns ? (uint64_t)v > (uint64_t)best : v > best;
        bool lt = uns ? (uint64_t)v < (uint64_t)best : v < best;
        bool take = (is_max ? gt : lt) || (last && v == best);
        if (take) {
          best = v;
          best_r = r;
        }
      }
    }
    res[o] = best_r;
  }
  if (!st) rt_interp_store_span_i(out, 0, p.nout, res);
  rt_interp_scratch_free(call, kept);
  rt_interp_scratch_free(call, red);
  rt_interp_scratch_free(call, xi);
  rt_interp_scratch_free(call, xf);
  rt_interp_scratch_free(call, res);
  return st;
}

rt_status_t rt_interp_k_ARGMAX(const rt_interp_call_t *call) { return argreduce(call); }
rt_status_t rt_interp_k_ARGMIN(const rt_interp_call_t *call) { return argreduce(call); }

/* variance(data, mean): sum((x - mean)^2) / (count - unbiased), mean read
 * by broadcasting it against data (it has keepdims' shape): its offsets
 * come from its broadcast strides over x's axes. */
rt_status_t rt_interp_k_VARIANCE(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *m = call->args[1];
  rt_tensor_t *out = call->outs[0];
  rt_plan_reduce_t plan;
  walk_t p;
  RT_RETURN_IF_ERROR(make_walk(call, x, &plan, &p));
  if (m->rank > x->rank) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "the mean has more dims than the data");
  }
  const double denom = (double)p.count - (plan.unbiased ? 1 : 0);
  int64_t mstride[RT_TENSOR_MAX_RANK];
  rt_interp_bcast_strides(x->rank, x->shape, m->rank, m->shape, mstride);
  int64_t *kept = NULL, *red = NULL, *mkept = NULL, *mred = NULL;
  double *xf = NULL, *mf = NULL, *of = NULL;
  rt_status_t st = x_offsets(call, &p, x, &kept, &red);
  if (!st) st = offsets(call, &p, x, false, mstride, &mkept);
  if (!st) st = offsets(call, &p, x, true, mstride, &mred);
  if (!st) st = rt_interp_load_all_f(call, x, &xf);
  if (!st) st = rt_interp_load_all_f(call, m, &mf);
  if (!st) st = rt_interp_scratch(call, p.nout, sizeof(double), false, (void **)&of);
  for (int64_t o = 0; o < p.nout && !st; ++o) {
    double acc = 0;
    for (int64_t r = 0; r < p.count; ++r) {
      const double d = xf[kept[o] + red[r]] - mf[mkept[o] + mred[r]];
      acc += d * d;
    }
    of[o] = acc / denom;
  }
  if (!st) rt_interp_store_span_f(out, 0, p.nout, of);
  rt_interp_scratch_free(call, kept);
  rt_interp_scratch_free(call, red);
  rt_interp_scratch_free(call, mkept);
  rt_interp_scratch_free(call, mred);
  rt_interp_scratch_free(call, xf);
  rt_interp_scratch_free(call, mf);
  rt_interp_scratch_free(call, of);
  return st;
}
