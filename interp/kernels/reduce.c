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
 * as the extremum (numpy); 0 for an empty axis. */
#include <math.h>

#include "interp/kernels/kernels_impl.h"
#include "ir/op/plan.h"

/* The plan's split of the input's axes as strides: the kept axes walk the
 * output, the reduced ones each output element's sub-tensor. */
typedef struct walk_t {
  int32_t nkept, nred;
  int64_t kept_shape[RT_TENSOR_MAX_RANK], kept_stride[RT_TENSOR_MAX_RANK];
  int64_t red_shape[RT_TENSOR_MAX_RANK], red_stride[RT_TENSOR_MAX_RANK];
  int64_t nout, count; /* output elements; elements reduced into each */
} walk_t;

static rt_status_t make_walk(const rt_interp_call_t *call, const rt_tensor_t *x,
                             rt_plan_reduce_t *plan, walk_t *p) {
  rt_plan_input_t in;
  rt_ir_plan_input_of_tensor(x, &in);
  RT_RETURN_IF_ERROR(rt_interp_plan_status(
      call, rt_ir_plan_reduce(call->op, call->attrs, 1, &in, plan)));
  const int32_t rank = x->rank;
  int64_t strides[RT_TENSOR_MAX_RANK];
  rt_interp_strides(rank, x->shape, strides);
  p->nkept = p->nred = 0;
  p->nout = p->count = 1;
  for (int32_t d = 0; d < rank; ++d) {
    if (plan->reduced[d]) {
      p->red_shape[p->nred] = x->shape[d];
      p->red_stride[p->nred++] = strides[d];
      p->count *= x->shape[d];
    } else {
      p->kept_shape[p->nkept] = x->shape[d];
      p->kept_stride[p->nkept++] = strides[d];
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

/* Flat input index of reduced element r of output element o. */
static int64_t at(const walk_t *p, int64_t o, int64_t r) {
  int64_t idx[RT_TENSOR_MAX_RANK];
  int64_t flat = 0;
  rt_interp_unravel(o, p->nkept, p->kept_shape, idx);
  for (int32_t k = 0; k < p->nkept; ++k) flat += idx[k] * p->kept_stride[k];
  rt_interp_unravel(r, p->nred, p->red_shape, idx);
  for (int32_t k = 0; k < p->nred; ++k) flat += idx[k] * p->red_stride[k];
  return flat;
}

static rt_status_t reduce(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const int32_t id = call->op->id;
  rt_plan_reduce_t plan;
  walk_t p;
  RT_RETURN_IF_ERROR(make_walk(call, x, &plan, &p));
  const rt_interp_class_t cls = rt_interp_class(x->dtype);
  const bool uns = cls == RT_INTERP_UINT || cls == RT_INTERP_BOOL;
  for (int64_t o = 0; o < p.nout; ++o) {
    if (id == RT_OP_ALL || id == RT_OP_ANY) {
      bool acc = id == RT_OP_ALL;
      for (int64_t r = 0; r < p.count; ++r) {
        bool v = rt_interp_truthy(x, at(&p, o, r));
        acc = id == RT_OP_ALL ? (acc && v) : (acc || v);
      }
      rt_interp_store_i(out, o, acc);
    } else if (id == RT_OP_MAX || id == RT_OP_MIN) {
      const bool is_max = id == RT_OP_MAX;
      if (p.count == 0) {
        rt_interp_store_f(out, o, is_max ? -INFINITY : INFINITY);
      } else if (cls == RT_INTERP_FLOAT) {
        double best = rt_interp_load_f(x, at(&p, o, 0));
        for (int64_t r = 1; r < p.count; ++r) {
          double v = rt_interp_load_f(x, at(&p, o, r));
          if (isnan(best)) break;
          if (isnan(v) || (is_max ? v > best : v < best)) best = v;
        }
        rt_interp_store_f(out, o, best);
      } else {
        int64_t best = rt_interp_load_i(x, at(&p, o, 0));
        for (int64_t r = 1; r < p.count; ++r) {
          int64_t v = rt_interp_load_i(x, at(&p, o, r));
          bool better = uns ? (is_max ? (uint64_t)v > (uint64_t)best
                                      : (uint64_t)v < (uint64_t)best)
                            : (is_max ? v > best : v < best);
          if (better) best = v;
        }
        rt_interp_store_i(out, o, best);
      }
    } else if (cls == RT_INTERP_FLOAT) { /* sum, mean, prod */
      double acc = id == RT_OP_PROD ? 1.0 : 0.0;
      for (int64_t r = 0; r < p.count; ++r) {
        double v = rt_interp_load_f(x, at(&p, o, r));
        acc = id == RT_OP_PROD ? acc * v : acc + v;
      }
      if (id == RT_OP_MEAN) acc /= (double)p.count;
      rt_interp_store_f(out, o, acc);
    } else {
      uint64_t acc = id == RT_OP_PROD ? 1 : 0;
      for (int64_t r = 0; r < p.count; ++r) {
        uint64_t v = (uint64_t)rt_interp_load_i(x, at(&p, o, r));
        acc = id == RT_OP_PROD ? acc * v : acc + v;
      }
      int64_t res = rt_interp_u2s(acc);
      if (id == RT_OP_MEAN) {
        /* Divide the sum as the dtype holds it (wrapped), truncating. */
        rt_interp_store_i(out, o, res);
        res = rt_interp_load_i(out, o);
        if (p.count == 0) {
          res = 0;
        } else if (uns) {
          res = rt_interp_u2s((uint64_t)res / (uint64_t)p.count);
        } else {
          res /= p.count;
        }
      }
      rt_interp_store_i(out, o, res);
    }
  }
  return RT_OK;
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
  for (int64_t o = 0; o < p.nout; ++o) {
    int64_t best_r = 0;
    if (cls == RT_INTERP_FLOAT) {
      double best = p.count ? rt_interp_load_f(x, at(&p, o, 0)) : 0;
      for (int64_t r = 1; r < p.count; ++r) {
        double v = rt_interp_load_f(x, at(&p, o, r));
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
      int64_t best = p.count ? rt_interp_load_i(x, at(&p, o, 0)) : 0;
      for (int64_t r = 1; r < p.count; ++r) {
        int64_t v = rt_interp_load_i(x, at(&p, o, r));
        bool gt = uns ? (uint64_t)v > (uint64_t)best : v > best;
        bool lt = uns ? (uint64_t)v < (uint64_t)best : v < best;
        bool take = (is_max ? gt : lt) || (last && v == best);
        if (take) {
          best = v;
          best_r = r;
        }
      }
    }
    rt_interp_store_i(out, o, best_r);
  }
  return RT_OK;
}

rt_status_t rt_interp_k_ARGMAX(const rt_interp_call_t *call) { return argreduce(call); }
rt_status_t rt_interp_k_ARGMIN(const rt_interp_call_t *call) { return argreduce(call); }

/* variance(data, mean): sum((x - mean)^2) / (count - unbiased), mean read
 * by broadcasting it against data (it has keepdims' shape). */
rt_status_t rt_interp_k_VARIANCE(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *m = call->args[1];
  rt_tensor_t *out = call->outs[0];
  rt_plan_reduce_t plan;
  walk_t p;
  RT_RETURN_IF_ERROR(make_walk(call, x, &plan, &p));
  const double denom = (double)p.count - (plan.unbiased ? 1 : 0);
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t o = 0; o < p.nout; ++o) {
    double acc = 0;
    for (int64_t r = 0; r < p.count; ++r) {
      int64_t i = at(&p, o, r);
      rt_interp_unravel(i, x->rank, x->shape, idx);
      double d = rt_interp_load_f(x, i) -
                 rt_interp_load_f(m, rt_interp_bcast_index(x->rank, idx, m->rank, m->shape));
      acc += d * d;
    }
    rt_interp_store_f(out, o, acc / denom);
  }
  return RT_OK;
}
