/* Reference kernels of the dense/matmul anchors, softmax and the
 * normalization composites (ir/op/nn.c): nn.dense, nn.contrib_dense_pack,
 * nn.matmul, nn.batch_matmul, nn.softmax, nn.log_softmax, nn.batch_norm,
 * nn.layer_norm, nn.group_norm, nn.instance_norm, nn.l2_normalize,
 * nn.dropout, nn.lrn.
 *
 * Dot products accumulate in double when the output is a float, and in
 * uint64 (wrapping, then stored modulo 2^bits) when it is an integer
 * (int8 x int8 -> int32 with out_dtype); each output sums in k order,
 * the loop order chosen so that the inner loop streams memory. Softmax subtracts the slice
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
#include <string.h>

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

/* The operands of a product out[p, i, j] = sum over kk < k of
 * A(p, i, kk) * B(p, kk, j), A(p, i, kk) at a[p * a_batch + i * a_row + kk
 * * a_col] (likewise B with its batch, kk and j strides; a batch stride 0
 * broadcasts). */
typedef struct product_t {
  int64_t batch, m, n, k;
  int64_t a_batch, a_row, a_col, b_batch, b_row, b_col;
  bool b_shared; /* every batch reads B's batch 0 */
} product_t;

/* Float outputs accumulate in double, integer ones in uint64 (wrapping).
 * Both operands are read whole, one dtype dispatch per tensor. The loop
 * order follows B's layout so that the inner loop streams memory: when
 * B's rows (fixed kk) are contiguous, (p, i, kk, j) sweeps a B row into an
 * output row; otherwise (dense's weight, transpose_b) B's columns are,
 * and (p, i, j, kk) is a dot product. Either way each output sums its
 * products in kk order, so the two agree to the bit. */
static rt_status_t product(const rt_interp_call_t *call, const rt_tensor_t *a,
                           const rt_tensor_t *b, rt_tensor_t *out, const product_t *q) {
  const bool is_float = rt_interp_class(out->dtype) == RT_INTERP_FLOAT;
  const bool sweep = q->b_col == 1;
  double *af = NULL, *bf = NULL, *of = NULL;
  int64_t *ai = NULL, *bi = NULL;
  uint64_t *oi = NULL;
  rt_status_t st = RT_OK;
  if (is_float) {
    st = rt_interp_load_all_f(call, a, &af);
    if (!st) st = rt_interp_load_all_f(call, b, &bf);
    if (!st) st = rt_interp_scratch(call, out->numel, sizeof(double), true, (void **)&of);
  } else {
    st = rt_interp_load_all_i(call, a, &ai);
    if (!st) st = rt_interp_load_all_i(call, b, &bi);
    if (!st) st = rt_interp_scratch(call, out->numel, sizeof(uint64_t), true, (void **)&oi);
  }
  for (int64_t p = 0; p < q->batch && !st; ++p) {
    const int64_t a0 = p * q->a_batch, b0 = (q->b_shared ? 0 : p) * q->b_batch;
    for (int64_t i = 0; i < q->m; ++i) {
      const int64_t orow = (p * q->m + i) * q->n, arow = a0 + i * q->a_row;
      if (sweep) {
        for (int64_t kk = 0; kk < q->k; ++kk) {
          const int64_t ax = arow + kk * q->a_col, brow = b0 + kk * q->b_row;
          if (is_float) {
            const double av = af[ax];
            for (int64_t j = 0; j < q->n; ++j) of[orow + j] += av * bf[brow + j];
          } else {
            const uint64_t av = (uint64_t)ai[ax];
            for (int64_t j = 0; j < q->n; ++j) oi[orow + j] += av * (uint64_t)bi[brow + j];
          }
        }
        continue;
      }
      for (int64_t j = 0; j < q->n; ++j) {
        const int64_t bcol = b0 + j * q->b_col;
        if (is_float) {
          double acc = 0;
          for (int64_t kk = 0; kk < q->k; ++kk) acc += af[arow + kk * q->a_col] * bf[bcol + kk * q->b_row];
          of[orow + j] = acc;
        } else {
          uint64_t acc = 0;
          for (int64_t kk = 0; kk < q->k; ++kk) {
            acc += (uint64_t)ai[arow + kk * q->a_col] * (uint64_t)bi[bcol + kk * q->b_row];
          }
          oi[orow + j] = acc;
        }
      }
    }
  }
  if (!st && is_float) {
    rt_interp_store_span_f(out, 0, out->numel, of);
  } else if (!st) {
    int64_t *res = (int64_t *)oi; /* the wrapped sums as int64, stored modulo 2^bits */
    for (int64_t i = 0; i < out->numel; ++i) res[i] = rt_interp_u2s(oi[i]);
    rt_interp_store_span_i(out, 0, out->numel, res);
  }
  rt_interp_scratch_free(call, af);
  rt_interp_scratch_free(call, bf);
  rt_interp_scratch_free(call, of);
  rt_interp_scratch_free(call, ai);
  rt_interp_scratch_free(call, bi);
  rt_interp_scratch_free(call, oi);
  return st;
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
  /* out[r, j] = sum_kk x[r, kk] * w[j, kk]. */
  const product_t q = {1, rows, n, k, 0, k, 1, 0, 1, k, true};
  return product(call, x, w, out, &q);
}

/* nn.contrib_dense_pack: dense's product with W[j, kk] read from the
 * panels, w[j / P, kk, j % P]; the same dot products in kk order as
 * nn.dense, so the two agree to the bit. */
rt_status_t rt_interp_k_NN_DENSE_PACK(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *w = call->args[1];
  rt_tensor_t *out = call->outs[0];
  rt_plan_matmul_t plan;
  RT_RETURN_IF_ERROR(matmul_plan(call, &plan));
  if (rt_interp_class(out->dtype) != RT_INTERP_FLOAT) {
    return RT_INTERP_ERROR(call, UNIMPLEMENTED, "%s", "needs a float output");
  }
  const int64_t k = plan.k, n = plan.n, pw = plan.pack;
  if (x->rank < 1 || w->rank != 3 || x->shape[x->rank - 1] != k || w->shape[1] != k ||
      w->shape[2] != pw || w->shape[0] * pw < n) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "weight must be (ceil(units / P), K, P) for data (..., K)");
  }
  int64_t rows = 1;
  for (int32_t d = 0; d < x->rank - 1; ++d) rows *= x->shape[d];
  if (out->numel != rows * n) return RT_INTERP_ERROR(call, INTERNAL, "%s", "output size disagrees");
  double *xf = NULL, *wf = NULL, *of = NULL;
  rt_status_t st = rt_interp_load_all_f(call, x, &xf);
  if (!st) st = rt_interp_load_all_f(call, w, &wf);
  if (!st) st = rt_interp_scratch(call, out->numel, sizeof(double), true, (void **)&of);
  for (int64_t r = 0; r < rows && !st; ++r) {
    for (int64_t j = 0; j < n; ++j) {
      const double *col = wf + (j / pw) * k * pw + j % pw;
      double acc = 0;
      for (int64_t kk = 0; kk < k; ++kk) acc += xf[r * k + kk] * col[kk * pw];
      of[r * n + j] = acc;
    }
  }
  if (!st) rt_interp_store_span_f(out, 0, out->numel, of);
  rt_interp_scratch_free(call, xf);
  rt_interp_scratch_free(call, wf);
  rt_interp_scratch_free(call, of);
  return st;
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
  /* A(p, i, kk) = a[p, i, kk] or a[p, kk, i]; B(kk, j) = b[kk, j] or b[j, kk]. */
  const product_t q = {batch, m, n, k, m * k, ta ? 1 : k, ta ? m : 1,
                       0, tb ? 1 : n, tb ? k : 1, true};
  return product(call, a, b, out, &q);
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
  /* A batch of extent 1 broadcasts (batch stride 0; B: b_shared). */
  const product_t q = {nb, m, n, k, a->shape[0] == 1 ? 0 : m * k, ta ? 1 : k, ta ? m : 1,
                       k * n, tb ? 1 : n, tb ? k : 1, b->shape[0] == 1};
  return product(call, a, b, out, &q);
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
  double *xf = NULL, *of = NULL;
  rt_status_t st = rt_interp_load_all_f(call, x, &xf);
  if (!st) st = rt_interp_scratch(call, out->numel, sizeof(double), false, (void **)&of);
  for (int64_t o = 0; o < outer && !st; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double mx = -INFINITY;
      for (int64_t j = 0; j < len; ++j) {
        double v = xf[(o * len + j) * inner + i];
        if (isnan(v) || v > mx) mx = v;
        if (isnan(mx)) break;
      }
      double sum = 0;
      for (int64_t j = 0; j < len; ++j) sum += exp(xf[(o * len + j) * inner + i] - mx);
      for (int64_t j = 0; j < len; ++j) {
        int64_t e = (o * len + j) * inner + i;
        double d = xf[e] - mx;
        of[e] = log_form ? d - log(sum) : exp(d) / sum;
      }
    }
  if (!st) rt_interp_store_span_f(out, 0, out->numel, of);
  rt_interp_scratch_free(call, xf);
  rt_interp_scratch_free(call, of);
  return st;
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
  int64_t outer, len, inner;
  split_axis(x, axis, &outer, &len, &inner);
  /* x (element (o, ch, i) at (o * c + ch) * inner + i) and the four
   * per-channel vectors, read whole. */
  double *xf = NULL, *vec[4] = {NULL, NULL, NULL, NULL};
  rt_status_t st = rt_interp_load_all_f(call, x, &xf);
  for (int32_t k = 0; k < 4 && !st; ++k) st = rt_interp_load_all_f(call, call->args[1 + k], &vec[k]);
  const double *g = vec[0], *bt = vec[1], *mu = vec[2], *vr = vec[3];
  for (int64_t o = 0; o < outer && !st; ++o)
    for (int64_t ch = 0; ch < c; ++ch) {
      double *row = xf + (o * c + ch) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        double v = (row[i] - mu[ch]) / sqrt(vr[ch] + eps);
        if (scale) v *= g[ch];
        if (center) v += bt[ch];
        row[i] = v;
      }
    }
  if (!st) rt_interp_store_span_f(out, 0, out->numel, xf);
  for (int64_t ch = 0; ch < c && !st; ++ch) {
    rt_interp_copy_elem(mean, ch, call->outs[1], ch);
    rt_interp_copy_elem(var, ch, call->outs[2], ch);
  }
  rt_interp_scratch_free(call, xf);
  for (int32_t k = 0; k < 4; ++k) rt_interp_scratch_free(call, vec[k]);
  return st;
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
  double *xf = NULL, *gf = NULL, *bf = NULL;
  rt_status_t st = rt_interp_load_all_f(call, x, &xf);
  if (!st) st = rt_interp_load_all_f(call, gamma, &gf);
  if (!st) st = rt_interp_load_all_f(call, beta, &bf);
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int pass = 0; pass < 3 && !st; ++pass) {
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
      double v = xf[i];
      if (pass == 0) {
        mean[g] += v;
        count[g] += 1;
      } else if (pass == 1) {
        dev[g] += (v - mean[g]) * (v - mean[g]);
      } else {
        double r = (v - mean[g]) / sqrt(dev[g] / count[g] + eps);
        if (scale) r *= gf[idx[axis]];
        if (center) r += bf[idx[axis]];
        xf[i] = r; /* read in this pass only, at i itself */
      }
    }
    if (pass == 0) {
      for (int64_t g = 0; g < ngroups; ++g) mean[g] /= count[g];
    }
  }
  if (!st) rt_interp_store_span_f(out, 0, out->numel, xf);
  rt_allocator_free(call->allocator, stats);
  rt_interp_scratch_free(call, xf);
  rt_interp_scratch_free(call, gf);
  rt_interp_scratch_free(call, bf);
  return st;
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
  double *xf = NULL, *of = NULL;
  rt_status_t st = rt_interp_load_all_f(call, x, &xf);
  if (!st) st = rt_interp_scratch(call, x->numel, sizeof(double), false, (void **)&of);
  for (int64_t i = 0; i < x->numel && !st; ++i) {
    rt_interp_unravel(i, x->rank, x->shape, idx);
    double sum = 0;
    for (int64_t r = 0; r < rcount; ++r) {
      rt_interp_unravel(r, x->rank, rshape, jdx);
      int64_t src = 0;
      for (int32_t d = 0; d < x->rank; ++d) src = src * x->shape[d] + (reduced[d] ? jdx[d] : idx[d]);
      double v = xf[src];
      sum += v * v;
    }
    of[i] = xf[i] / sqrt(sum > eps ? sum : eps);
  }
  if (!st) rt_interp_store_span_f(out, 0, x->numel, of);
  rt_interp_scratch_free(call, xf);
  rt_interp_scratch_free(call, of);
  return st;
}

rt_status_t rt_interp_k_NN_DROPOUT(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  if (call->nouts != 2 || call->outs[0]->numel != x->numel || call->outs[1]->numel != x->numel) {
    return RT_INTERP_ERROR(call, INTERNAL, "%s", "needs two outputs shaped like the input");
  }
  if (!rt_dtype_equal(call->outs[0]->dtype, x->dtype)) {
    return RT_INTERP_ERROR(call, INTERNAL, "%s", "output dtype differs from the input's");
  }
  if (x->numel > 0) {
    memcpy(rt_tensor_data(call->outs[0]), rt_tensor_data(x), (size_t)x->numel * rt_dtype_size(x->dtype));
  }
  int64_t ones[256];
  for (int32_t k = 0; k < 256; ++k) ones[k] = 1;
  for (int64_t i = 0; i < x->numel; i += 256) {
    rt_interp_store_span_i(call->outs[1], i, x->numel - i < 256 ? x->numel - i : 256, ones);
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
  double *xf = NULL, *of = NULL;
  rt_status_t st = rt_interp_load_all_f(call, x, &xf);
  if (!st) st = rt_interp_scratch(call, out->numel, sizeof(double), false, (void **)&of);
  for (int64_t o = 0; o < outer && !st; ++o)
    for (int64_t j = 0; j < len; ++j)
      for (int64_t i = 0; i < inner; ++i) {
        double sum = 0;
        for (int64_t t = j - size / 2; t < j - size / 2 + size; ++t) {
          if (t < 0 || t >= len) continue;
          double v = xf[(o * len + t) * inner + i];
          sum += v * v;
        }
        int64_t e = (o * len + j) * inner + i;
        of[e] = xf[e] / pow(bias + alpha * sum / (double)size, beta);
      }
  if (!st) rt_interp_store_span_f(out, 0, out->numel, of);
  rt_interp_scratch_free(call, xf);
  rt_interp_scratch_free(call, of);
  return st;
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
  double *xf = NULL;
  rt_status_t st = rt_interp_load_all_f(call, x, &xf);
  for (int64_t o = 0; o < outer && !st; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      double vbest = len > 0 ? xf[o * len * inner + i] : 0;
      for (int64_t j = 1; j < len && !isnan(vbest); ++j) {
        double v = xf[(o * len + j) * inner + i];
        if (isnan(v) || v > vbest) {
          best = j;
          vbest = v;
        }
      }
      /* x is read, this slice at a time, before it is overwritten. */
      for (int64_t j = 0; j < len; ++j) xf[(o * len + j) * inner + i] = j == best ? 1.0 : 0.0;
    }
  if (!st) rt_interp_store_span_f(out, 0, out->numel, xf);
  rt_interp_scratch_free(call, xf);
  return st;
}
