/* Type relations of the nn anchors that are not convolutions or pools:
 * nn.dense / nn.matmul (TVM's MatmulRel: data [.., K] or [.., K, M]
 * transposed, a 2-d weight, optional `units`), nn.batch_matmul (3-d, batch
 * 1 broadcasts), softmax/log_softmax, and the composites batch_norm (a
 * 3-tuple), layer/group/instance norm, l2_normalize, dropout (a 2-tuple)
 * and lrn. The shapes and normalised attributes are plans (ir/op/plan_nn.h)
 * that the reference kernels and the lowerings read too: rt_ir_plan_matmul
 * (transposes, M/N/K, batch dims), rt_ir_plan_norm (softmax, the norms and
 * lrn: the axis made non-negative, epsilon, center/scale, num_groups, lrn's
 * constants) and rt_ir_plan_l2_normalize (the axes as a mask). */
#include <string.h>

#include "ir/op/op_impl.h"
#include "ir/op/plan.h"
#include "runtime/assert.h"

static rt_status_t out_dtype(const rt_ir_rel_ctx_t *ctx, rt_dtype_t fallback,
                             rt_dtype_t *out) {
  return rt_ir_op_dtype_attr(ctx, "out_dtype", fallback, out);
}

/* min_rank: nn.dense takes data of rank 1 (one row); nn.matmul needs
 * (..., M, K), as its reference kernel and lowering read M from data. */
static rt_status_t plan_matmul(const char *op, const rt_plan_input_t *a,
                               const rt_plan_input_t *w, int32_t min_rank, bool ta, bool tb,
                               bool units_none, int64_t units, rt_plan_matmul_t *p) {
  const int32_t r = a->rank;
  if (r < min_rank) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: data needs rank >= %d, got %d", op,
                     (int)min_rank, (int)r);
  }
  if (w->rank != 2) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: weight must be 2-d, got rank %d", op,
                     (int)w->rank);
  }
  int64_t *shape = p->out_shape;
  for (int32_t i = 0; i < r; ++i) shape[i] = a->shape[i];
  int64_t k = a->shape[r - 1];
  if (ta) {
    k = a->shape[r - 2];
    shape[r - 2] = a->shape[r - 1];
  }
  const int64_t wk = w->shape[tb ? 1 : 0];
  const int64_t wn = w->shape[tb ? 0 : 1];
  if (k != RT_DIM_ANY && wk != RT_DIM_ANY && k != wk) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: data has K=%lld but weight expects %lld",
                     op, (long long)k, (long long)wk);
  }
  int64_t n = wn;
  if (!units_none) {
    if (wn != RT_DIM_ANY && units != wn) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: units=%lld but weight has %lld outputs",
                       op, (long long)units, (long long)wn);
    }
    n = units;
  }
  shape[r - 1] = n;
  p->rank = r;
  p->m = r >= 2 ? shape[r - 2] : 1;
  p->n = n;
  p->k = k;
  /* The dims before M multiply into the batch. */
  p->batch = 1;
  for (int32_t i = 0; i < r - 2; ++i) {
    if (p->batch == RT_DIM_ANY || shape[i] == RT_DIM_ANY ||
        __builtin_mul_overflow(p->batch, shape[i], &p->batch)) {
      p->batch = RT_DIM_ANY;
    }
  }
  p->batch_a = p->batch;
  p->batch_b = 1;
  return RT_OK;
}

static rt_status_t plan_batch_matmul(const char *op, const rt_plan_input_t *x,
                                     const rt_plan_input_t *y, rt_plan_matmul_t *p) {
  if (x->rank != 3 || y->rank != 3) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: inputs must be 3-d, got ranks %d and %d",
                     op, (int)x->rank, (int)y->rank);
  }
  const bool ta = p->transpose_a, tb = p->transpose_b;
  const int64_t *xs = x->shape, *ys = y->shape;
  const int64_t m = ta ? xs[2] : xs[1], k = ta ? xs[1] : xs[2];
  const int64_t yk = tb ? ys[2] : ys[1], n = tb ? ys[1] : ys[2];
  int64_t b;
  if (xs[0] == ys[0] || ys[0] == 1) {
    b = xs[0];
  } else if (xs[0] == 1) {
    b = ys[0];
  } else if (xs[0] == RT_DIM_ANY || ys[0] == RT_DIM_ANY) {
    b = xs[0] == RT_DIM_ANY ? ys[0] : xs[0];
  } else {
    return RT_STATUS(INVALID_ARGUMENT, "%s: batch sizes %lld and %lld differ", op,
                     (long long)xs[0], (long long)ys[0]);
  }
  if (k != RT_DIM_ANY && yk != RT_DIM_ANY && k != yk) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: a has K=%lld but b expects %lld", op,
                     (long long)k, (long long)yk);
  }
  p->rank = 3;
  p->batch = b;
  p->batch_a = xs[0];
  p->batch_b = ys[0];
  p->m = m;
  p->n = n;
  p->k = k;
  p->out_shape[0] = b;
  p->out_shape[1] = m;
  p->out_shape[2] = n;
  return RT_OK;
}

/* nn.contrib_dense_pack: the weight (NP, K, P) is dense's (NP * P, K) in
 * panels of P columns; units (at most NP * P, more than (NP - 1) * P: the
 * zero columns fill only the last panel; checked when NP and P are known)
 * cuts N. */
static rt_status_t plan_dense_pack(const char *op, const rt_plan_input_t *a,
                                   const rt_plan_input_t *w, bool units_none, int64_t units,
                                   rt_plan_matmul_t *p) {
  if (w->rank != 3) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: the packed weight must be 3-d (N/P, K, P), got rank %d",
                     op, (int)w->rank);
  }
  const int64_t np = w->shape[0], pw = w->shape[2];
  if ((pw != RT_DIM_ANY && pw < 1) || (np != RT_DIM_ANY && np < 1)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: the packed weight has no panels", op);
  }
  int64_t cols = RT_DIM_ANY;
  if (np != RT_DIM_ANY && pw != RT_DIM_ANY && __builtin_mul_overflow(np, pw, &cols)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: the packed weight is too large", op);
  }
  if (!units_none && units < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: units must be >= 1, got %lld", op, (long long)units);
  }
  if (!units_none && cols != RT_DIM_ANY && (units > cols || units <= cols - pw)) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: units=%lld does not fit %lld panels of %lld columns", op,
                     (long long)units, (long long)np, (long long)pw);
  }
  const int64_t shape2[2] = {units_none ? cols : units, w->shape[1]};
  const rt_plan_input_t w2 = {w->dtype, 2, shape2, NULL};
  RT_RETURN_IF_ERROR(plan_matmul(op, a, &w2, 1, false, true, true, 0, p));
  p->pack = pw;
  return RT_OK;
}

rt_status_t rt_ir_plan_matmul(const rt_ir_op_t *opdef, const rt_ir_attrs_t *attrs,
                              int32_t nin, const rt_plan_input_t *in,
                              rt_plan_matmul_t *p) {
  RT_ASSERT(nin >= 2);
  (void)nin;
  memset(p, 0, sizeof *p);
  switch (opdef->id) {
    case RT_OP_NN_DENSE: {
      rt_attrs_dense_t a = rt_ir_attrs_dense(attrs);
      p->transpose_b = true;
      return plan_matmul(opdef->name, &in[0], &in[1], 1, false, true, a.units_is_none, a.units, p);
    }
    case RT_OP_NN_DENSE_PACK: {
      rt_attrs_dense_pack_t a = rt_ir_attrs_dense_pack(attrs);
      p->transpose_b = true;
      return plan_dense_pack(opdef->name, &in[0], &in[1], a.units_is_none, a.units, p);
    }
    case RT_OP_NN_MATMUL: {
      rt_attrs_matmul_t a = rt_ir_attrs_matmul(attrs);
      p->transpose_a = a.transpose_a;
      p->transpose_b = a.transpose_b;
      return plan_matmul(opdef->name, &in[0], &in[1], 2, a.transpose_a, a.transpose_b,
                         a.units_is_none, a.units, p);
    }
    case RT_OP_NN_BATCH_MATMUL: {
      rt_attrs_batch_matmul_t a = rt_ir_attrs_batch_matmul(attrs);
      p->transpose_a = a.transpose_a;
      p->transpose_b = a.transpose_b;
      return plan_batch_matmul(opdef->name, &in[0], &in[1], p);
    }
    default:
      return RT_STATUS(INTERNAL, "%s is not a matmul", opdef->name);
  }
}

static rt_status_t matmul_rel(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *a, *w;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &a));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &w));
  rt_plan_input_t in[2];
  rt_ir_plan_input_of_type(a, &in[0]);
  rt_ir_plan_input_of_type(w, &in[1]);
  rt_plan_matmul_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_matmul(ctx->op, ctx->attrs, 2, in, &p));
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(out_dtype(ctx, a->tensor.dtype, &dt));
  return rt_ir_op_make_tensor(ctx, dt, p.rank, p.out_shape, out_type);
}

rt_status_t rt_ir_rel_dense(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return matmul_rel(ctx, out_type);
}

rt_status_t rt_ir_rel_dense_pack(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return matmul_rel(ctx, out_type);
}

rt_status_t rt_ir_rel_matmul(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return matmul_rel(ctx, out_type);
}

rt_status_t rt_ir_rel_batch_matmul(const rt_ir_rel_ctx_t *ctx,
                                   rt_ir_type_t **out_type) {
  return matmul_rel(ctx, out_type);
}

/* The channel vectors in[first..n) (up to last) are 1-d of data's dim
 * along the axis (names for messages). */
static rt_status_t channel_vectors(const char *op, int32_t n, const rt_plan_input_t *in,
                                   int32_t first, int32_t last, const char *const *names,
                                   const rt_plan_norm_t *p) {
  const int64_t c = p->channels;
  for (int32_t i = first; i <= last && i < n; ++i) {
    const rt_plan_input_t *v = &in[i];
    if (v->rank != 1) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: %s must be 1-d, got rank %d",
                       op, names[i - first], (int)v->rank);
    }
    int64_t len = v->shape[0];
    if (c != RT_DIM_ANY && len != RT_DIM_ANY && len != c) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: %s has %lld elements but data has %lld along axis %d",
                       op, names[i - first], (long long)len, (long long)c, (int)p->axis);
    }
  }
  return RT_OK;
}

/* With no data input (the relation found none), the attribute checks only. */
static rt_status_t norm_axis(int64_t axis, int32_t n, const rt_plan_input_t *in,
                             rt_plan_norm_t *p) {
  if (n < 1) return RT_OK;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(axis, in[0].rank, &p->axis));
  p->channels = in[0].shape[p->axis];
  return RT_OK;
}

#define NORM_FIELDS(a)    \
  p->epsilon = (a).epsilon; \
  p->center = (a).center;   \
  p->scale = (a).scale

rt_status_t rt_ir_plan_norm(const rt_ir_op_t *opdef, const rt_ir_attrs_t *attrs,
                            int32_t nin, const rt_plan_input_t *in, rt_plan_norm_t *p) {
  static const char *const bn_names[] = {"gamma", "beta", "moving_mean", "moving_var"};
  static const char *const gb_names[] = {"gamma", "beta"};
  const char *op = opdef->name;
  memset(p, 0, sizeof *p);
  p->num_groups = 1;
  switch (opdef->id) {
    case RT_OP_NN_SOFTMAX:
    case RT_OP_NN_LOG_SOFTMAX:
    case RT_OP_NN_HARDMAX:
      return norm_axis(rt_ir_attrs_softmax(attrs).axis, nin, in, p);
    case RT_OP_NN_LRN: {
      rt_attrs_lrn_t a = rt_ir_attrs_lrn(attrs);
      if (a.size < 1) return RT_STATUS(INVALID_ARGUMENT, "nn.lrn: size must be >= 1");
      p->size = a.size;
      p->bias = a.bias;
      p->alpha = a.alpha;
      p->beta = a.beta;
      return norm_axis(a.axis, nin, in, p);
    }
    case RT_OP_NN_BATCH_NORM: {
      rt_attrs_batch_norm_t a = rt_ir_attrs_batch_norm(attrs);
      NORM_FIELDS(a);
      RT_RETURN_IF_ERROR(norm_axis(a.axis, nin, in, p));
      return channel_vectors(op, nin, in, 1, 4, bn_names, p);
    }
    case RT_OP_NN_LAYER_NORM: {
      rt_attrs_layer_norm_t a = rt_ir_attrs_layer_norm(attrs);
      NORM_FIELDS(a);
      RT_RETURN_IF_ERROR(norm_axis(a.axis, nin, in, p));
      return channel_vectors(op, nin, in, 1, 2, gb_names, p);
    }
    case RT_OP_NN_INSTANCE_NORM: {
      rt_attrs_instance_norm_t a = rt_ir_attrs_instance_norm(attrs);
      NORM_FIELDS(a);
      RT_RETURN_IF_ERROR(norm_axis(a.axis, nin, in, p));
      return channel_vectors(op, nin, in, 1, 2, gb_names, p);
    }
    case RT_OP_NN_GROUP_NORM: {
      rt_attrs_group_norm_t a = rt_ir_attrs_group_norm(attrs);
      NORM_FIELDS(a);
      RT_RETURN_IF_ERROR(norm_axis(a.axis, nin, in, p));
      RT_RETURN_IF_ERROR(channel_vectors(op, nin, in, 1, 2, gb_names, p));
      if (nin < 3) return RT_OK; /* the relation reports the missing input first */
      const int64_t g = a.num_groups, c = p->channels;
      if (g < 1) {
        return RT_STATUS(INVALID_ARGUMENT, "nn.group_norm: num_groups must be >= 1, got %lld",
                         (long long)g);
      }
      if (c != RT_DIM_ANY && c % g != 0) {
        return RT_STATUS(INVALID_ARGUMENT,
                         "nn.group_norm: num_groups %lld does not divide %lld channels",
                         (long long)g, (long long)c);
      }
      p->num_groups = g;
      return RT_OK;
    }
    default:
      return RT_STATUS(INTERNAL, "%s has no norm plan", op);
  }
}
#undef NORM_FIELDS

/* The plan over the leading tensor arguments, then the first argument that
 * is not a tensor (in the order the checks were always made). */
static rt_status_t norm_rel(const rt_ir_rel_ctx_t *ctx, rt_plan_norm_t *p) {
  rt_plan_input_t in[5];
  memset(in, 0, sizeof in); /* read only below n, but -O3 cannot tell */
  RT_ASSERT(ctx->nargs <= 5);
  int32_t n = 0;
  rt_status_t bad = RT_OK;
  for (; n < ctx->nargs; ++n) {
    const rt_ir_type_t *t;
    bad = rt_ir_op_tensor_arg(ctx, n, &t);
    if (bad) break;
    rt_ir_plan_input_of_type(t, &in[n]);
  }
  rt_status_t st = rt_ir_plan_norm(ctx->op, ctx->attrs, n, in, p);
  if (st) {
    rt_status_free(bad);
    return st;
  }
  return bad;
}

rt_status_t rt_ir_rel_softmax(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  rt_plan_norm_t p;
  RT_RETURN_IF_ERROR(norm_rel(ctx, &p));
  *out_type = ctx->args[0];
  return RT_OK;
}

rt_status_t rt_ir_rel_lrn(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return rt_ir_rel_softmax(ctx, out_type);
}

rt_status_t rt_ir_rel_batch_norm(const rt_ir_rel_ctx_t *ctx,
                                 rt_ir_type_t **out_type) {
  rt_plan_norm_t p;
  RT_RETURN_IF_ERROR(norm_rel(ctx, &p));
  const rt_ir_type_t *x = ctx->args[0];
  rt_ir_type_t *fields[3];
  fields[0] = ctx->args[0];
  RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, x->tensor.dtype, 1, &p.channels, &fields[1]));
  fields[2] = fields[1];
  return rt_ir_tuple_type(ctx->module, 3, fields, out_type);
}

rt_status_t rt_ir_rel_layer_norm(const rt_ir_rel_ctx_t *ctx,
                                 rt_ir_type_t **out_type) {
  return rt_ir_rel_softmax(ctx, out_type);
}

rt_status_t rt_ir_rel_instance_norm(const rt_ir_rel_ctx_t *ctx,
                                    rt_ir_type_t **out_type) {
  return rt_ir_rel_softmax(ctx, out_type);
}

rt_status_t rt_ir_rel_group_norm(const rt_ir_rel_ctx_t *ctx,
                                 rt_ir_type_t **out_type) {
  return rt_ir_rel_softmax(ctx, out_type);
}

rt_status_t rt_ir_plan_l2_normalize(const rt_ir_op_t *opdef, const rt_ir_attrs_t *attrs,
                                    int32_t nin, const rt_plan_input_t *in,
                                    rt_plan_l2_normalize_t *p) {
  RT_ASSERT(nin >= 1);
  (void)nin;
  (void)opdef;
  rt_attrs_l2_normalize_t a = rt_ir_attrs_l2_normalize(attrs);
  memset(p, 0, sizeof *p);
  p->eps = a.eps;
  const int32_t rank = in[0].rank;
  for (int32_t d = 0; a.axis_is_none && d < rank; ++d) p->reduced[d] = true;
  for (int32_t i = 0; i < a.axis.count; ++i) {
    int32_t axis;
    RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_attr_list_int(a.axis, i), rank, &axis));
    p->reduced[axis] = true;
  }
  return RT_OK;
}

rt_status_t rt_ir_rel_l2_normalize(const rt_ir_rel_ctx_t *ctx,
                                   rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  rt_plan_input_t in;
  rt_ir_plan_input_of_type(x, &in);
  rt_plan_l2_normalize_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_l2_normalize(ctx->op, ctx->attrs, 1, &in, &p));
  *out_type = ctx->args[0];
  return RT_OK;
}

rt_status_t rt_ir_rel_dropout(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  double rate = rt_ir_attrs_dropout(ctx->attrs).rate;
  if (!(rate >= 0 && rate <= 1)) {
    return RT_STATUS(INVALID_ARGUMENT, "nn.dropout: rate %g is not in [0, 1]", rate);
  }
  rt_ir_type_t *fields[2] = {ctx->args[0], ctx->args[0]};
  return rt_ir_tuple_type(ctx->module, 2, fields, out_type);
}
