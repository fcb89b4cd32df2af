/* Type relations of the nn anchors that are not convolutions or pools:
 * nn.dense / nn.matmul (TVM's MatmulRel: data [.., K] or [.., K, M]
 * transposed, a 2-d weight, optional `units`), nn.batch_matmul (3-d, batch
 * 1 broadcasts), softmax/log_softmax, and the composites batch_norm (a
 * 3-tuple), layer/group/instance norm, l2_normalize, dropout (a 2-tuple)
 * and lrn. */
#include "ir/op/op_impl.h"

static rt_status_t out_dtype(const rt_ir_rel_ctx_t *ctx, rt_dtype_t fallback,
                             rt_dtype_t *out) {
  return rt_ir_op_dtype_attr(ctx, "out_dtype", fallback, out);
}

static rt_status_t matmul_common(const rt_ir_rel_ctx_t *ctx, bool ta, bool tb,
                                 rt_ir_type_t **out_type) {
  const char *op = ctx->op->name;
  const rt_ir_type_t *a, *w;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &a));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &w));
  const int32_t r = a->tensor.rank;
  if (r < (ta ? 2 : 1)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: data needs rank >= %d, got %d", op,
                     ta ? 2 : 1, (int)r);
  }
  if (w->tensor.rank != 2) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: weight must be 2-d, got rank %d", op,
                     (int)w->tensor.rank);
  }
  int64_t shape[RT_TENSOR_MAX_RANK];
  for (int32_t i = 0; i < r; ++i) shape[i] = a->tensor.shape[i];
  int64_t k = a->tensor.shape[r - 1];
  if (ta) {
    k = a->tensor.shape[r - 2];
    shape[r - 2] = a->tensor.shape[r - 1];
  }
  const int64_t wk = w->tensor.shape[tb ? 1 : 0];
  const int64_t wn = w->tensor.shape[tb ? 0 : 1];
  if (k != RT_DIM_ANY && wk != RT_DIM_ANY && k != wk) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: data has K=%lld but weight expects %lld",
                     op, (long long)k, (long long)wk);
  }
  int64_t n = wn;
  if (!rt_attrs_is_none(ctx->attrs, "units")) {
    int64_t units = rt_attrs_int(ctx->attrs, "units");
    if (wn != RT_DIM_ANY && units != wn) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: units=%lld but weight has %lld outputs",
                       op, (long long)units, (long long)wn);
    }
    n = units;
  }
  shape[r - 1] = n;
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(out_dtype(ctx, a->tensor.dtype, &dt));
  return rt_ir_op_make_tensor(ctx, dt, r, shape, out_type);
}

rt_status_t rt_ir_rel_dense(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return matmul_common(ctx, false, true, out_type);
}

rt_status_t rt_ir_rel_matmul(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return matmul_common(ctx, rt_attrs_bool(ctx->attrs, "transpose_a"),
                       rt_attrs_bool(ctx->attrs, "transpose_b"), out_type);
}

rt_status_t rt_ir_rel_batch_matmul(const rt_ir_rel_ctx_t *ctx,
                                   rt_ir_type_t **out_type) {
  const char *op = ctx->op->name;
  const rt_ir_type_t *x, *y;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &y));
  if (x->tensor.rank != 3 || y->tensor.rank != 3) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: inputs must be 3-d, got ranks %d and %d",
                     op, (int)x->tensor.rank, (int)y->tensor.rank);
  }
  const bool ta = rt_attrs_bool(ctx->attrs, "transpose_a");
  const bool tb = rt_attrs_bool(ctx->attrs, "transpose_b");
  const int64_t *xs = x->tensor.shape, *ys = y->tensor.shape;
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
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(out_dtype(ctx, x->tensor.dtype, &dt));
  int64_t shape[3] = {b, m, n};
  return rt_ir_op_make_tensor(ctx, dt, 3, shape, out_type);
}

/* Identity with an `axis` attribute that must be in range. */
static rt_status_t identity_axis(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_attrs_int(ctx->attrs, "axis"), x->tensor.rank, &axis));
  *out_type = ctx->args[0];
  return RT_OK;
}

rt_status_t rt_ir_rel_softmax(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return identity_axis(ctx, out_type);
}

rt_status_t rt_ir_rel_lrn(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  if (rt_attrs_int(ctx->attrs, "size") < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "nn.lrn: size must be >= 1");
  }
  return identity_axis(ctx, out_type);
}

/* Checks args[first..last] are 1-d vectors of data's dim along `axis`
 * (names for messages), and returns the normalized axis. */
static rt_status_t channel_vectors(const rt_ir_rel_ctx_t *ctx, int32_t first,
                                   int32_t last, const char *const *names,
                                   const rt_ir_type_t **out_data, int32_t *out_axis) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_attrs_int(ctx->attrs, "axis"), x->tensor.rank, &axis));
  const int64_t c = x->tensor.shape[axis];
  for (int32_t i = first; i <= last; ++i) {
    const rt_ir_type_t *v;
    RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, i, &v));
    if (v->tensor.rank != 1) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: %s must be 1-d, got rank %d",
                       ctx->op->name, names[i - first], (int)v->tensor.rank);
    }
    int64_t n = v->tensor.shape[0];
    if (c != RT_DIM_ANY && n != RT_DIM_ANY && n != c) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: %s has %lld elements but data has %lld along axis %d",
                       ctx->op->name, names[i - first], (long long)n, (long long)c,
                       (int)axis);
    }
  }
  *out_data = x;
  *out_axis = axis;
  return RT_OK;
}

rt_status_t rt_ir_rel_batch_norm(const rt_ir_rel_ctx_t *ctx,
                                 rt_ir_type_t **out_type) {
  static const char *const names[] = {"gamma", "beta", "moving_mean", "moving_var"};
  const rt_ir_type_t *x = NULL;
  int32_t axis = 0;
  RT_RETURN_IF_ERROR(channel_vectors(ctx, 1, 4, names, &x, &axis));
  rt_ir_type_t *fields[3];
  fields[0] = ctx->args[0];
  const int64_t c = x->tensor.shape[axis];
  RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, x->tensor.dtype, 1, &c, &fields[1]));
  fields[2] = fields[1];
  return rt_ir_tuple_type(ctx->module, 3, fields, out_type);
}

static const char *const k_gamma_beta[] = {"gamma", "beta"};

rt_status_t rt_ir_rel_layer_norm(const rt_ir_rel_ctx_t *ctx,
                                 rt_ir_type_t **out_type) {
  const rt_ir_type_t *x = NULL;
  int32_t axis = 0;
  RT_RETURN_IF_ERROR(channel_vectors(ctx, 1, 2, k_gamma_beta, &x, &axis));
  *out_type = ctx->args[0];
  return RT_OK;
}

rt_status_t rt_ir_rel_instance_norm(const rt_ir_rel_ctx_t *ctx,
                                    rt_ir_type_t **out_type) {
  return rt_ir_rel_layer_norm(ctx, out_type);
}

rt_status_t rt_ir_rel_group_norm(const rt_ir_rel_ctx_t *ctx,
                                 rt_ir_type_t **out_type) {
  const rt_ir_type_t *x = NULL;
  int32_t axis = 0;
  RT_RETURN_IF_ERROR(channel_vectors(ctx, 1, 2, k_gamma_beta, &x, &axis));
  const int64_t g = rt_attrs_int(ctx->attrs, "num_groups");
  const int64_t c = x->tensor.shape[axis];
  if (g < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "nn.group_norm: num_groups must be >= 1, got %lld",
                     (long long)g);
  }
  if (c != RT_DIM_ANY && c % g != 0) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "nn.group_norm: num_groups %lld does not divide %lld channels",
                     (long long)g, (long long)c);
  }
  *out_type = ctx->args[0];
  return RT_OK;
}

rt_status_t rt_ir_rel_l2_normalize(const rt_ir_rel_ctx_t *ctx,
                                   rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int32_t n = rt_attrs_ints_count(ctx->attrs, "axis");
  for (int32_t i = 0; i < n; ++i) {
    int32_t axis;
    RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_attrs_ints_at(ctx->attrs, "axis", i),
                                     x->tensor.rank, &axis));
  }
  *out_type = ctx->args[0];
  return RT_OK;
}

rt_status_t rt_ir_rel_dropout(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  double rate = rt_attrs_float(ctx->attrs, "rate");
  if (!(rate >= 0 && rate <= 1)) {
    return RT_STATUS(INVALID_ARGUMENT, "nn.dropout: rate %g is not in [0, 1]", rate);
  }
  rt_ir_type_t *fields[2] = {ctx->args[0], ctx->args[0]};
  return rt_ir_tuple_type(ctx->module, 2, fields, out_type);
}
