/* Reference kernels of the dense/matmul anchors, softmax and the
 * normalization composites (ir/op/nn.c): nn.dense, nn.matmul,
 * nn.batch_matmul, nn.softmax, nn.log_softmax, nn.batch_norm,
 * nn.layer_norm, nn.group_norm, nn.instance_norm, nn.l2_normalize,
 * nn.dropout, nn.lrn.
 *
 * Dot products accumulate in double when the output is a float, and in
 * uint64 (wrapping, then stored modulo 2^bits) when it is an integer
 * (int8 x int8 -> int32 with out_dtype). Softmax subtracts the slice
 * maximum first (NaN anywhere in a slice makes it all NaN). The
 * normalizations compute each group's mean and then the biased variance
 * as the mean of squared deviations, both in double:
 *   out = (x - mean) / sqrt(var + epsilon) * gamma[c] + beta[c]
 * with gamma/beta dropped when scale/center is false. Groups: layer_norm
 * the elements sharing all indices except the one along `axis`;
 * instance_norm the elements sharing (index 0, index
 * along axis); group_norm those sharing the indices before `axis` and the
 * channel group (num_groups equal groups of channels, all later axes
 * included), as TVM's SimplifyInference expansions. batch_norm uses the
 * given moving mean/variance (inference) and returns them as outputs 1
 * and 2, as TVM. dropout is the identity at inference: output 0 copies the
 * input and the mask (output 1) is all ones. lrn is topi's: x / (bias +
 * alpha / size * sum of x^2 over channels [c - size/2, c - size/2 + size -
 * 1]) ^ beta. Transposes, axes and the norms' constants come from the
 * ops' plans (rt_ir_plan_matmul, rt_ir_plan_norm, rt_ir_plan_l2_normalize;
 * ir/op/plan_nn.h) on the concrete shapes. */
#include <math.h>

#include "interp/kernels/kernels_impl.h"
#include "ir/op/plan.h"

/* A call's plan from its argument tensors. */
static rt_status_t matmul_plan(const rt_interp_call_t *call, rt_plan_matmul_t *p) {
  rt_plan_input_t in[2];
  for (int32_t i = 0; i < 2; ++i) rt_ir_plan_input_of_tensor(call->args[i], &in[i]);
  return rt_ir_plan_matmul(call->op, call->attrs, 2, in, p);
}

static rt_status_t norm_plan(const rt_interp_call_t *call, rt_plan_norm_t *p) {
  rt_plan_input_t in[5];
  const int32_t n = call->nargs < 5 ? call->nargs : 5;
  for (int32_t i = 0; i < n; ++i) rt_ir_plan_input_of_tensor(call->args[i], &in[i]);
  return rt_ir_plan_norm(call->op, call->attrs, n, in, p);
}

/* out[oi] = sum_k a[a0 + k * as] * b[b0 + k * bs]. */
static void dot(rt_tensor_t *out, int64_t oi, const rt_tensor_t *a, int64_t a0,
                int64_t as, const rt_tensor_t *b, int64_t b0, int64_t bs,
                int64_t k) {
  const rt_dtype_t f32 = RT_DTYPE_FLOAT32;
  if (rt_interp_class(out->dtype) == RT_INTERP_FLOAT && rt_dtype_equal(a->dtype, f32) &&
      rt_dtype_equal(b->dtype, f32)) {
    /* float32 operands read as floats: the same sum in double, without a
     * dtype dispatch per multiply-add. */
    const float *af = rt_tensor_data(a), *bf = rt_tensor_data(b);
    double acc = 0;
    for (int64_t j = 0; j < k; ++j) acc += (double)af[a0 + j * as] * (double)bf[b0 + j * bs];
    rt_interp_store_f(out, oi, acc);
  } else if (rt_interp_class(out->dtype) == RT_INTERP_FLOAT) {
    double acc = 0;
    for (int64_t j = 0; j < k; ++j) {
      acc += rt_interp_load_f(a, a0 + j * as) * rt_interp_load_f(b, b0 + j * bs);
    }
    rt_interp_store_f(out, oi, acc);
  } else {
    uint64_t acc = 0;
    for (int64_t j = 0; j < k; ++j) {
      acc += (uint64_t)rt_interp_load_i(a, a0 + j * as) * (uint64_t)rt_interp_load_i(b, b0 + j * bs);
    }
    rt_interp_store_i(out, oi, rt_interp_u2s(acc));
  }
}

rt_status_t rt_interp_k_NN_DENSE(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *w = call->args[1];
  rt_tensor_t *out = call->outs[0];
  if (x->rank < 1 || w->rank != 2 || w->shape[1] != x->shape[x->rank - 1]) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "weight must be (units, K) for data (..., K)");
  }
  const int64_t k = w->shape[1], n = w->shape[0];
  int64_t rows = 1;
  for (int32_t d = 0; d < x->rank - 1; ++d) rows *= x->shape[d];
  if (out->numel != rows * n) return RT_INTERP_ERROR(call, INTERNAL, "%s", "output size disagrees");
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) dot(out, r * n + j, x, r * k, 1, w, j * k, 1, k);
  return RT_OK;
}

rt_status_t rt_interp_k_NN_MATMUL(const rt_interp_call_t *call) {
  const rt_tensor_t *a = call->args[0];
  const rt_tensor_t *b = call->args[1];
  rt_tensor_t *out = call->outs[0];
  if (a->rank < 2 || b->rank != 2) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "needs a of rank >= 2 and b of rank 2");
  }
  rt_plan_matmul_t plan;
  RT_RETURN_IF_ERROR(matmul_plan(call, &plan));
  const bool ta = plan.transpose_a, tb = plan.transpose_b;
  const int64_t m = ta ? a->shape[a->rank - 1] : a->shape[a->rank - 2];
  const int64_t k = ta ? a->shape[a->rank - 2] : a->shape[a->rank - 1];
  const int64_t kb = tb ? b->shape[1] : b->shape[0];
  const int64_t n = tb ? b->shape[0] : b->shape[1];
  if (k != kb) return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "reduction dimensions differ");
  int64_t batch = 1;
  for (int32_t d = 0; d < a->rank - 2; ++d) batch *= a->shape[d];
  if (out->numel != batch * m * n) return RT_INTERP_ERROR(call, INTERNAL, "%s", "output size disagrees");
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t a0 = p * m * k + (ta ? i : i * k), as = ta ? m : 1;
        int64_t b0 = tb ? j * k : j, bs = tb ? 1 : n;
        dot(out, (p * m + i) * n + j, a, a0, as, b, b0, bs, k);
      }
  return RT_OK;
}

rt_status_t rt_interp_k_NN_BATCH_MATMUL(const rt_interp_call_t *call) {
  const rt_tensor_t *a = call->args[0];
  const rt_tensor_t *b = call->args[1];
  rt_tensor_t *out = call->outs[0];
  if (a->rank != 3 || b->rank != 3 || out->rank != 3) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "needs rank-3 inputs");
  }
  rt_plan_matmul_t plan;
  RT_RETURN_IF_ERROR(matmul_plan(call, &plan));
  const bool ta = plan.transpose_a, tb = plan.transpose_b;
  const int64_t m = ta ? a->shape[2] : a->shape[1], k = ta ? a->shape[1] : a->shape[2];
  const int64_t n = tb ? b->shape[1] : b->shape[2], kb = tb ? b->shape[2] : b->shape[1];
  if (k != kb) return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "reduction dimensions differ");
  const int64_t nb = out->shape[0];
  if (out->shape[1] != m || out->shape[2] != n ||
      (a->shape[0] != nb && a->shape[0] != 1) || (b->shape[0] != nb && b->shape[0] != 1)) {
    return RT_INTERP_ERROR(call, INTERNAL, "%s", "output shape disagrees");
  }
  for (int64_t p = 0; p < nb; ++p) {
    const int64_t pa = a->shape[0] == 1 ? 0 : p, pb = b->shape[0] == 1 ? 0 : p;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t a0 = pa * m * k + (ta ? i : i * k), as = ta ? m : 1;
        int64_t b0 = pb * k * n + (tb ? j * k : j), bs = tb ? 1 : n;
        dot(out, (p * m + i) * n + j, a, a0, as, b, b0, bs, k);
      }
  }
  return RT_OK;
}

/* ---- softmax ------------------------------------------------------------------ */

/* Splits x around `axis`: outer * len * inner, element (o, j, i) at
 * (o * len + j) * inner + i. */
static void split_axis(const rt_tensor_t *x, int32_t axis, int64_t *outer,
                       int64_t *len, int64_t *inner) {
  *outer = *inner = 1;
  for (int32_t d = 0; d < axis; ++d) *outer *= x->shape[d];
  for (int32_t d = axis + 1; d < x->rank; ++d) *inner *= x->shape[d];
  *len = x->shape[axis];
}

static rt_status_t softmax(const rt_interp_call_t *call, bool log_form) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  rt_plan_norm_t plan;
  RT_RETURN_IF_ERROR(norm_plan(call, &plan));
  int64_t outer, len, inner;
  split_axis(x, plan.axis, &outer, &len, &inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double mx = -INFINITY;
      for (int64_t j = 0; j < len; ++j) {
        double v = rt_interp_load_f(x, (o * len + j) * inner + i);
        if (isnan(v) || v > mx) mx = v;
        if (isnan(mx)) break;
      }
      double sum = 0;
      for (int64_t j = 0; j < len; ++j) sum += exp(rt_interp_load_f(x, (o * len + j) * inner + i) - mx);
      for (int64_t j = 0; j < len; ++j) {
        int64_t e = (o * len + j) * inner + i;
        double d = rt_interp_load_f(x, e) - mx;
        rt_interp_store_f(out, e, log_form ? d - log(sum) : exp(d) / sum);
      }
    }
  return RT_OK;
}

rt_status_t rt_interp_k_NN_SOFTMAX(const rt_interp_call_t *call) { return softmax(call, false); }
rt_status_t rt_interp_k_NN_LOG_SOFTMAX(const rt_interp_call_t *call) { return softmax(call, true); }

/* ---- normalizations -------------------------------------------------------------- */

static rt_status_t check_vec(const rt_interp_call_t *call, int32_t arg, int64_t n) {
  if (call->args[arg]->numel != n) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT,
                           "input %d has %lld elements, expected %lld", arg,
                           (long long)call->args[arg]->numel, (long long)n);
  }
  return RT_OK;
}

rt_status_t rt_interp_k_NN_BATCH_NORM(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *gamma = call->args[1], *beta = call->args[2];
  const rt_tensor_t *mean = call->args[3], *var = call->args[4];
  rt_tensor_t *out = call->outs[0];
  rt_plan_norm_t plan;
  RT_RETURN_IF_ERROR(norm_plan(call, &plan));
  const int32_t axis = plan.axis;
  const int64_t c = x->shape[axis];
  for (int32_t k = 1; k < 5; ++k) RT_RETURN_IF_ERROR(check_vec(call, k, c));
  if (call->nouts != 3 || call->outs[1]->numel != c || call->outs[2]->numel != c) {
    return RT_INTERP_ERROR(call, INTERNAL, "%s", "needs three outputs (out, mean, var)");
  }
  const double eps = plan.epsilon;
  const bool center = plan.center, scale = plan.scale;
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, x->rank, x->shape, idx);
    int64_t ch = idx[axis];
    double v = (rt_interp_load_f(x, i) - rt_interp_load_f(mean, ch)) /
               sqrt(rt_interp_load_f(var, ch) + eps);
    if (scale) v *= rt_interp_load_f(gamma, ch);
    if (center) v += rt_interp_load_f(beta, ch);
    rt_interp_store_f(out, i, v);
  }
  for (int64_t ch = 0; ch < c; ++ch) {
    rt_interp_copy_elem(mean, ch, call->outs[1], ch);
    rt_interp_copy_elem(var, ch, call->outs[2], ch);
  }
  return RT_OK;
}

typedef enum norm_kind_e { N_LAYER, N_INSTANCE, N_GROUP } norm_kind_t;

/* Mean/variance per group (gid[i] in [0, ngroups)), then the affine
 * output with gamma/beta indexed by the index along `axis`. */
static rt_status_t normalize(const rt_interp_call_t *call, norm_kind_t kind) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *gamma = call->args[1], *beta = call->args[2];
  rt_tensor_t *out = call->outs[0];
  rt_plan_norm_t plan;
  RT_RETURN_IF_ERROR(norm_plan(call, &plan));
  const int32_t axis = plan.axis;
  const int64_t c = x->shape[axis];
  RT_RETURN_IF_ERROR(check_vec(call, 1, c));
  RT_RETURN_IF_ERROR(check_vec(call, 2, c));
  int64_t groups_per = 1; /* group_norm: channels per group */
  int64_t ngroups_c = 1;
  if (kind == N_GROUP) {
    ngroups_c = plan.num_groups;
    if (ngroups_c < 1 || c % ngroups_c != 0) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT,
                             "num_groups %lld does not divide %lld channels",
                             (long long)ngroups_c, (long long)c);
    }
    groups_per = c / ngroups_c;
  }
  int64_t ngroups = 1;
  if (kind == N_LAYER) {
    ngroups = c ? x->numel / c : 0;
  } else if (kind == N_INSTANCE) {
    ngroups = (x->rank > 0 ? x->shape[0] : 1) * (axis == 0 ? 1 : c);
  } else {
    for (int32_t d = 0; d < axis; ++d) ngroups *= x->shape[d];
    ngroups *= ngroups_c;
  }
  const double eps = plan.epsilon;
  const bool center = plan.center, scale = plan.scale;
  double *stats = NULL; /* sum, then mean; sum of squared deviations; count */
  size_t bytes = (size_t)(ngroups > 0 ? ngroups : 1) * 3 * sizeof(double);
  RT_RETURN_IF_ERROR(rt_allocator_malloc(call->allocator, bytes, 16, true, (void **)&stats));
  double *mean = stats, *dev = stats + ngroups, *count = stats + 2 * ngroups;
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int pass = 0; pass < 3; ++pass) {
    for (int64_t i = 0; i < x->numel; ++i) {
      rt_interp_unravel(i, x->rank, x->shape, idx);
      int64_t g = 0;
      if (kind == N_LAYER) {
        for (int32_t d = 0; d < x->rank; ++d) {
          if (d != axis) g = g * x->shape[d] + idx[d];
        }
      } else if (kind == N_INSTANCE) {
        g = axis == 0 ? idx[0] : idx[0] * c + idx[axis];
      } else {
        for (int32_t d = 0; d < axis; ++d) g = g * x->shape[d] + idx[d];
        g = g * ngroups_c + idx[axis] / groups_per;
      }
      double v = rt_interp_load_f(x, i);
      if (pass == 0) {
        mean[g] += v;
        count[g] += 1;
      } else if (pass == 1) {
        dev[g] += (v - mean[g]) * (v - mean[g]);
      } else {
        double r = (v - mean[g]) / sqrt(dev[g] / count[g] + eps);
        if (scale) r *= rt_interp_load_f(gamma, idx[axis]);
        if (center) r += rt_interp_load_f(beta, idx[axis]);
        rt_interp_store_f(out, i, r);
      }
    }
    if (pass == 0) {
      for (int64_t g = 0; g < ngroups; ++g) mean[g] /= count[g];
    }
  }
  rt_allocator_free(call->allocator, stats);
  return RT_OK;
}

rt_status_t rt_interp_k_NN_LAYER_NORM(const rt_interp_call_t *call) { return normalize(call, N_LAYER); }
rt_status_t rt_interp_k_NN_GROUP_NORM(const rt_interp_call_t *call) { return normalize(call, N_GROUP); }
rt_status_t rt_interp_k_NN_INSTANCE_NORM(const rt_interp_call_t *call) { return normalize(call, N_INSTANCE); }

/* x / sqrt(max(sum of x^2 over axis, eps)); axis None = all axes. */
rt_status_t rt_interp_k_NN_L2_NORMALIZE(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  rt_plan_input_t in;
  rt_ir_plan_input_of_tensor(x, &in);
  rt_plan_l2_normalize_t plan;
  RT_RETURN_IF_ERROR(rt_ir_plan_l2_normalize(call->op, call->attrs, 1, &in, &plan));
  const bool *reduced = plan.reduced;
  const double eps = plan.eps;
  int64_t idx[RT_TENSOR_MAX_RANK], jdx[RT_TENSOR_MAX_RANK];
  int64_t rshape[RT_TENSOR_MAX_RANK];
  int64_t rcount = 1;
  for (int32_t d = 0; d < x->rank; ++d) {
    rshape[d] = reduced[d] ? x->shape[d] : 1;
    rcount *= rshape[d];
  }
  for (int64_t i = 0; i < x->numel; ++i) {
    rt_interp_unravel(i, x->rank, x->shape, idx);
    double sum = 0;
    for (int64_t r = 0; r < rcount; ++r) {
      rt_interp_unravel(r, x->rank, rshape, jdx);
      int64_t src = 0;
      for (int32_t d = 0; d < x->rank; ++d) src = src * x->shape[d] + (reduced[d] ? jdx[d] : idx[d]);
      double v = rt_interp_load_f(x, src);
      sum += v * v;
    }
    rt_interp_store_f(out, i, rt_interp_load_f(x, i) / sqrt(sum > eps ? sum : eps));
  }
  return RT_OK;
}

rt_status_t rt_interp_k_NN_DROPOUT(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  if (call->nouts != 2 || call->outs[0]->numel != x->numel || call->outs[1]->numel != x->numel) {
    return RT_INTERP_ERROR(call, INTERNAL, "%s", "needs two outputs shaped like the input");
  }
  for (int64_t i = 0; i < x->numel; ++i) {
    rt_interp_copy_elem(x, i, call->outs[0], i);
    rt_interp_store_i(call->outs[1], i, 1);
  }
  return RT_OK;
}

rt_status_t rt_interp_k_NN_LRN(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  rt_plan_norm_t plan;
  RT_RETURN_IF_ERROR(norm_plan(call, &plan));
  const int64_t size = plan.size;
  const double bias = plan.bias, alpha = plan.alpha, beta = plan.beta;
  int64_t outer, len, inner;
  split_axis(x, plan.axis, &outer, &len, &inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < len; ++j)
      for (int64_t i = 0; i < inner; ++i) {
        double sum = 0;
        for (int64_t t = j - size / 2; t < j - size / 2 + size; ++t) {
          if (t < 0 || t >= len) continue;
          double v = rt_interp_load_f(x, (o * len + t) * inner + i);
          sum += v * v;
        }
        int64_t e = (o * len + j) * inner + i;
        rt_interp_store_f(out, e, rt_interp_load_f(x, e) / pow(bias + alpha * sum / (double)size, beta));
      }
  return RT_OK;
}

/* ---- hardmax ------------------------------------------------------------------ */

/* 1 at the first maximum along axis, 0 elsewhere. A NaN counts as the
 * maximum (numpy's argmax, which ONNX's reference uses): the first NaN
 * wins. */
rt_status_t rt_interp_k_NN_HARDMAX(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  rt_plan_norm_t p;
  RT_RETURN_IF_ERROR(norm_plan(call, &p));
  int64_t outer, len, inner;
  split_axis(x, p.axis, &outer, &len, &inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      double vbest = len > 0 ? rt_interp_load_f(x, o * len * inner + i) : 0;
      for (int64_t j = 1; j < len && !isnan(vbest); ++j) {
        double v = rt_interp_load_f(x, (o * len + j) * inner + i);
        if (isnan(v) || v > vbest) {
          best = j;
          vbest = v;
        }
      }
      for (int64_t j = 0; j < len; ++j) {
        rt_interp_store_f(out, (o * len + j) * inner + i, j == best ? 1.0 : 0.0);
      }
    }
  return RT_OK;
}
