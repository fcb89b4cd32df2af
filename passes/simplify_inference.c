/* SimplifyInference: expands the inference-time composites into the
 * elementwise, broadcast and reduce ops the kernels and fusion know
 * (TVM's src/relay/transforms/simplify_inference.cc).
 *
 * One bottom-up rt_ir_mutate walk per global. Each call of
 *   nn.batch_norm   -> scale = 1 / sqrt(var + eps) [* gamma],
 *                      shift = -mean * scale [+ beta], both expanded with
 *                      expand_dims to broadcast over `axis`;
 *                      (data * scale + shift, mean, var)
 *   nn.layer_norm   -> (x - mean(x, axis)) / sqrt(variance(x, axis) + eps)
 *                      [* gamma] [+ beta]
 *   nn.instance_norm-> the same over every axis but 0 and `axis`
 *   nn.group_norm   -> the same over (channel group, spatial) after a reshape
 *                      to (.., G, C / G, ..), then a reshape back
 *   nn.l2_normalize -> x / sqrt(maximum(sum(x * x, axis, keepdims), eps))
 *   nn.dropout      -> (x, ones_like(x))
 * is replaced. Ops that return a tuple are replaced by a Tuple node; a
 * projection of a tuple made here is replaced by the field, so `%bn.0`
 * becomes the expanded expression and `.1`/`.2` become mean and var, while
 * a use of the whole tuple still sees a tuple. Epsilon constants are 0-d
 * constants of the data dtype. Types come from the input (typed) nodes: a
 * rewrite never changes a node's type. Calls whose data type is not a
 * tensor of known rank (or, for group_norm, of fully static shape) are left
 * as they are; the reference kernels still run them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (oom = true)
#include "runtime/uthash_rt.h"

#include "ir/op/op_attrs.h"
#include "ir/op/plan.h"
#include "passes/pass.h"

typedef struct {
  uint32_t id;
  UT_hash_handle hh;
} made_t;

typedef struct {
  rt_pass_rewrite_t base; /* first: rt_pass_rewrite_globals's state */
  made_t *made; /* ids of the Tuple nodes built here */
} si_ctx;

static const rt_ir_type_t *tensor_type(const rt_ir_expr_t *e) {
  const rt_ir_type_t *t = e->checked_type ? rt_ir_type_resolve(e->checked_type) : NULL;
  return t && t->kind == RT_IR_TYPE_TENSOR ? t : NULL;
}

static rt_status_t call1(si_ctx *cx, rt_ir_span_t sp, rt_op_id_t id, rt_ir_expr_t *a,
                         rt_ir_expr_t **out) {
  return rt_pass_make_call(cx->base.m, sp, id, 1, &a, 0, NULL, NULL, out);
}

static rt_status_t call2(si_ctx *cx, rt_ir_span_t sp, rt_op_id_t id, rt_ir_expr_t *a,
                         rt_ir_expr_t *b, rt_ir_expr_t **out) {
  rt_ir_expr_t *args[2] = {a, b};
  return rt_pass_make_call(cx->base.m, sp, id, 2, args, 0, NULL, NULL, out);
}

/* TVM's ExpandBiasToMatchAxis for one axis: expand_dims(b, 1, ndim-1-axis)
 * so a 1-d per-channel vector broadcasts along `axis`. */
static rt_status_t expand_to_axis(si_ctx *cx, rt_ir_span_t sp, rt_ir_expr_t *b, int32_t ndim,
                                  int32_t axis, rt_ir_expr_t **out) {
  int32_t k = ndim - 1 - axis;
  if (k <= 0) {
    *out = b;
    return RT_OK;
  }
  char num[16];
  snprintf(num, sizeof num, "%d", (int)k);
  const char *keys[2] = {"axis", "num_newaxis"};
  const char *vals[2] = {"1", num};
  return rt_pass_make_call(cx->base.m, sp, RT_OP_EXPAND_DIMS, 1, &b, 2, keys, vals, out);
}

/* "[1, 2, 3]" */
static void ints_text(const int64_t *v, int32_t n, char *buf, size_t cap) {
  size_t used = 0;
  used += (size_t)snprintf(buf + used, cap - used, "[");
  for (int32_t i = 0; i < n && used < cap; ++i) {
    used += (size_t)snprintf(buf + used, cap - used, "%s%lld", i ? ", " : "", (long long)v[i]);
  }
  if (used < cap) snprintf(buf + used, cap - used, "]");
}

static rt_status_t reduce_call(si_ctx *cx, rt_ir_span_t sp, rt_op_id_t id, int32_t nargs,
                               rt_ir_expr_t *const *args, const char *axis_text,
                               rt_ir_expr_t **out) {
  const char *keys[2] = {"axis", "keepdims"};
  const char *vals[2] = {axis_text, "True"};
  return rt_pass_make_call(cx->base.m, sp, id, nargs, args, 2, keys, vals, out);
}

static rt_status_t make_tuple(si_ctx *cx, rt_ir_span_t sp, int32_t n, rt_ir_expr_t *const *f,
                              rt_ir_expr_t **out) {
  RT_RETURN_IF_ERROR(rt_ir_tuple(cx->base.m, sp, n, f, out));
  made_t *x = rt_mem_calloc(1, sizeof *x);
  if (!x) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in SimplifyInference");
  bool oom = false;
  x->id = (*out)->id;
  HASH_ADD(hh, cx->made, id, sizeof(uint32_t), x);
  if (oom) {
    rt_mem_free(x);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in SimplifyInference");
  }
  return RT_OK;
}

/* axis made non-negative as the relations do (rt_ir_op_axis); false when
 * it is out of range (the call is then left alone). */
static bool norm_axis(int64_t axis, int32_t rank, int32_t *out) {
  rt_status_t st = rt_ir_op_axis(axis, rank, out);
  rt_status_free(st);
  return st == RT_OK;
}

static rt_status_t batch_norm(si_ctx *cx, const rt_ir_expr_t *orig, rt_ir_expr_t *e,
                              rt_ir_expr_t **out) {
  const rt_ir_type_t *t = tensor_type(orig->call.args[0]);
  const rt_attrs_batch_norm_t a = rt_ir_attrs_batch_norm(e->call.attrs);
  int32_t axis;
  if (!t || !norm_axis(a.axis, t->tensor.rank, &axis)) return RT_OK;
  rt_ir_span_t sp = e->span;
  rt_ir_expr_t *data = e->call.args[0], *gamma = e->call.args[1], *beta = e->call.args[2],
               *mean = e->call.args[3], *var = e->call.args[4];
  rt_ir_expr_t *eps, *one, *v, *scale, *shift;
  RT_RETURN_IF_ERROR(rt_ir_scalar(cx->base.m, sp, t->tensor.dtype,
                                  (float)a.epsilon, &eps));
  RT_RETURN_IF_ERROR(rt_ir_scalar(cx->base.m, sp, t->tensor.dtype, 1.0, &one));
  RT_RETURN_IF_ERROR(call2(cx, sp, RT_OP_ADD, var, eps, &v));
  RT_RETURN_IF_ERROR(call1(cx, sp, RT_OP_SQRT, v, &v));
  RT_RETURN_IF_ERROR(call2(cx, sp, RT_OP_DIVIDE, one, v, &scale));
  if (a.scale) {
    RT_RETURN_IF_ERROR(call2(cx, sp, RT_OP_MULTIPLY, scale, gamma, &scale));
  }
  RT_RETURN_IF_ERROR(call1(cx, sp, RT_OP_NEGATIVE, mean, &shift));
  RT_RETURN_IF_ERROR(call2(cx, sp, RT_OP_MULTIPLY, shift, scale, &shift));
  if (a.center) {
    RT_RETURN_IF_ERROR(call2(cx, sp, RT_OP_ADD, shift, beta, &shift));
  }
  RT_RETURN_IF_ERROR(expand_to_axis(cx, sp, scale, t->tensor.rank, axis, &scale));
  RT_RETURN_IF_ERROR(expand_to_axis(cx, sp, shift, t->tensor.rank, axis, &shift));
  rt_ir_expr_t *r;
  RT_RETURN_IF_ERROR(call2(cx, sp, RT_OP_MULTIPLY, data, scale, &r));
  RT_RETURN_IF_ERROR(call2(cx, sp, RT_OP_ADD, r, shift, &r));
  rt_ir_expr_t *fields[3] = {r, mean, var};
  return make_tuple(cx, sp, 3, fields, out);
}

/* (x - mean) / sqrt(var + eps) over the axes in axis_text, then the affine
 * part along `axis`. Shared by layer, instance and group norm. */
static rt_status_t normalize(si_ctx *cx, rt_ir_span_t sp, rt_ir_expr_t *x, rt_dtype_t dtype,
                             const char *axis_text, double epsilon, rt_ir_expr_t **out) {
  rt_ir_expr_t *mean, *var, *eps, *d;
  RT_RETURN_IF_ERROR(reduce_call(cx, sp, RT_OP_MEAN, 1, &x, axis_text, &mean));
  rt_ir_expr_t *vargs[2] = {x, mean};
  RT_RETURN_IF_ERROR(reduce_call(cx, sp, RT_OP_VARIANCE, 2, vargs, axis_text, &var));
  RT_RETURN_IF_ERROR(rt_ir_scalar(cx->base.m, sp, dtype, (float)epsilon, &eps));
  RT_RETURN_IF_ERROR(call2(cx, sp, RT_OP_ADD, var, eps, &d));
  RT_RETURN_IF_ERROR(call1(cx, sp, RT_OP_SQRT, d, &d));
  rt_ir_expr_t *num;
  RT_RETURN_IF_ERROR(call2(cx, sp, RT_OP_SUBTRACT, x, mean, &num));
  return call2(cx, sp, RT_OP_DIVIDE, num, d, out);
}

/* r [* gamma] [+ beta] as the norm's scale and center say. */
static rt_status_t affine(si_ctx *cx, rt_ir_span_t sp, const rt_ir_expr_t *e, bool scale,
                          bool center, int32_t ndim, int32_t axis, rt_ir_expr_t *r,
                          rt_ir_expr_t **out) {
  rt_ir_expr_t *b;
  if (scale) {
    RT_RETURN_IF_ERROR(expand_to_axis(cx, sp, e->call.args[1], ndim, axis, &b));
    RT_RETURN_IF_ERROR(call2(cx, sp, RT_OP_MULTIPLY, r, b, &r));
  }
  if (center) {
    RT_RETURN_IF_ERROR(expand_to_axis(cx, sp, e->call.args[2], ndim, axis, &b));
    RT_RETURN_IF_ERROR(call2(cx, sp, RT_OP_ADD, r, b, &r));
  }
  *out = r;
  return RT_OK;
}

static rt_status_t layer_or_instance_norm(si_ctx *cx, const rt_ir_expr_t *orig, rt_ir_expr_t *e,
                                          bool instance, rt_ir_expr_t **out) {
  const rt_ir_type_t *t = tensor_type(orig->call.args[0]);
  int64_t a_axis;
  double epsilon;
  bool scale, center;
  if (instance) {
    const rt_attrs_instance_norm_t a = rt_ir_attrs_instance_norm(e->call.attrs);
    a_axis = a.axis;
    epsilon = a.epsilon;
    scale = a.scale;
    center = a.center;
  } else {
    const rt_attrs_layer_norm_t a = rt_ir_attrs_layer_norm(e->call.attrs);
    a_axis = a.axis;
    epsilon = a.epsilon;
    scale = a.scale;
    center = a.center;
  }
  int32_t axis;
  if (!t || !norm_axis(a_axis, t->tensor.rank, &axis)) return RT_OK;
  int64_t axes[RT_TENSOR_MAX_RANK];
  int32_t n = 0;
  if (instance) {
    for (int32_t i = 1; i < t->tensor.rank; ++i) {
      if (i != axis) axes[n++] = i;
    }
    if (n == 0) return RT_OK; /* nothing to reduce: leave it to the kernel */
  } else {
    axes[n++] = axis;
  }
  char text[8 * RT_TENSOR_MAX_RANK + 4];
  ints_text(axes, n, text, sizeof text);
  rt_ir_expr_t *r;
  RT_RETURN_IF_ERROR(normalize(cx, e->span, e->call.args[0], t->tensor.dtype, text, epsilon, &r));
  return affine(cx, e->span, e, scale, center, t->tensor.rank, axis, r, out);
}

static rt_status_t group_norm(si_ctx *cx, const rt_ir_expr_t *orig, rt_ir_expr_t *e,
                              rt_ir_expr_t **out) {
  const rt_ir_type_t *t = tensor_type(orig->call.args[0]);
  const rt_attrs_group_norm_t a = rt_ir_attrs_group_norm(e->call.attrs);
  int32_t axis;
  if (!t || !norm_axis(a.axis, t->tensor.rank, &axis)) return RT_OK;
  const int32_t rank = t->tensor.rank;
  if (rank + 1 > RT_TENSOR_MAX_RANK) return RT_OK;
  for (int32_t i = 0; i < rank; ++i) {
    if (t->tensor.shape[i] < 0) return RT_OK; /* needs a static shape */
  }
  const int64_t groups = a.num_groups;
  const int64_t c = t->tensor.shape[axis];
  if (groups < 1 || c % groups != 0) return RT_OK;
  int64_t shape[RT_TENSOR_MAX_RANK], axes[RT_TENSOR_MAX_RANK];
  int32_t n = 0, na = 0;
  for (int32_t i = 0; i < axis; ++i) shape[n++] = t->tensor.shape[i];
  shape[n++] = groups;
  shape[n++] = c / groups;
  for (int32_t i = axis + 1; i < rank; ++i) shape[n++] = t->tensor.shape[i];
  for (int32_t i = axis + 1; i < n; ++i) axes[na++] = i;
  char shape_text[24 * RT_TENSOR_MAX_RANK + 4], old_text[24 * RT_TENSOR_MAX_RANK + 4],
      axes_text[8 * RT_TENSOR_MAX_RANK + 4];
  ints_text(shape, n, shape_text, sizeof shape_text);
  ints_text(t->tensor.shape, rank, old_text, sizeof old_text);
  ints_text(axes, na, axes_text, sizeof axes_text);
  rt_ir_span_t sp = e->span;
  const char *key = "newshape";
  const char *v1 = shape_text, *v2 = old_text;
  rt_ir_expr_t *x, *r;
  RT_RETURN_IF_ERROR(rt_pass_make_call(cx->base.m, sp, RT_OP_RESHAPE, 1, &e->call.args[0], 1, &key,
                                       &v1, &x));
  RT_RETURN_IF_ERROR(normalize(cx, sp, x, t->tensor.dtype, axes_text, a.epsilon, &r));
  RT_RETURN_IF_ERROR(rt_pass_make_call(cx->base.m, sp, RT_OP_RESHAPE, 1, &r, 1, &key, &v2, &r));
  return affine(cx, sp, e, a.scale, a.center, rank, axis, r, out);
}

static rt_status_t l2_normalize(si_ctx *cx, const rt_ir_expr_t *orig, rt_ir_expr_t *e,
                                rt_ir_expr_t **out) {
  const rt_ir_type_t *t = tensor_type(orig->call.args[0]);
  if (!t) return RT_OK;
  const rt_attrs_l2_normalize_t a = rt_ir_attrs_l2_normalize(e->call.attrs);
  char text[24 * RT_TENSOR_MAX_RANK + 4];
  const int32_t n = a.axis.count;
  if (a.axis_is_none) {
    snprintf(text, sizeof text, "None");
  } else {
    int64_t axes[RT_TENSOR_MAX_RANK];
    if (n > RT_TENSOR_MAX_RANK) return RT_OK;
    for (int32_t i = 0; i < n; ++i) axes[i] = rt_attr_list_int(a.axis, i);
    ints_text(axes, n, text, sizeof text);
  }
  rt_ir_span_t sp = e->span;
  rt_ir_expr_t *x = e->call.args[0], *sq, *sum, *eps, *d;
  RT_RETURN_IF_ERROR(call2(cx, sp, RT_OP_MULTIPLY, x, x, &sq));
  RT_RETURN_IF_ERROR(reduce_call(cx, sp, RT_OP_SUM, 1, &sq, text, &sum));
  RT_RETURN_IF_ERROR(rt_ir_scalar(cx->base.m, sp, t->tensor.dtype,
                                  (float)a.eps, &eps));
  RT_RETURN_IF_ERROR(call2(cx, sp, RT_OP_MAXIMUM, sum, eps, &d));
  RT_RETURN_IF_ERROR(call1(cx, sp, RT_OP_SQRT, d, &d));
  return call2(cx, sp, RT_OP_DIVIDE, x, d, out);
}

static rt_status_t dropout(si_ctx *cx, const rt_ir_expr_t *orig, rt_ir_expr_t *e,
                           rt_ir_expr_t **out) {
  if (!tensor_type(orig->call.args[0])) return RT_OK;
  rt_ir_expr_t *mask;
  RT_RETURN_IF_ERROR(call1(cx, e->span, RT_OP_ONES_LIKE, e->call.args[0], &mask));
  rt_ir_expr_t *fields[2] = {e->call.args[0], mask};
  return make_tuple(cx, e->span, 2, fields, out);
}

static rt_status_t rewrite(void *user, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  si_ctx *cx = user;
  *out = e;
  if (e->kind == RT_IR_TUPLE_GET_ITEM && e->get_item.tuple->kind == RT_IR_TUPLE) {
    made_t *x = NULL;
    HASH_FIND(hh, cx->made, &e->get_item.tuple->id, sizeof(uint32_t), x);
    if (x && e->get_item.index >= 0 && e->get_item.index < e->get_item.tuple->tuple.count) {
      *out = e->get_item.tuple->tuple.fields[e->get_item.index];
    }
    return RT_OK;
  }
  if (e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP) return RT_OK;
  rt_status_t st = RT_OK;
  switch (e->call.callee->op.op->id) {
    case RT_OP_NN_BATCH_NORM: st = batch_norm(cx, orig, e, out); break;
    case RT_OP_NN_LAYER_NORM: st = layer_or_instance_norm(cx, orig, e, false, out); break;
    case RT_OP_NN_INSTANCE_NORM: st = layer_or_instance_norm(cx, orig, e, true, out); break;
    case RT_OP_NN_GROUP_NORM: st = group_norm(cx, orig, e, out); break;
    case RT_OP_NN_L2_NORMALIZE: st = l2_normalize(cx, orig, e, out); break;
    case RT_OP_NN_DROPOUT: st = dropout(cx, orig, e, out); break;
    default: break;
  }
  if (!st && *out != e) {
    (*out)->binding = e->binding;
    cx->base.changed = true;
  }
  return st;
}

rt_status_t rt_pass_simplify_inference(const rt_pass_env_t *env, rt_module_t *in,
                                       rt_module_t **out) {
  (void)env;
  si_ctx cx = {{NULL, false}, NULL};
  const rt_status_t st = rt_pass_rewrite_globals(in, rewrite, &cx.base, out);
  made_t *x, *tmp;
  HASH_ITER(hh, cx.made, x, tmp) {
    HASH_DEL(cx.made, x);
    rt_mem_free(x);
  }
  return st;
}
