/* SimplifyExpr: algebraic identities that remove work without changing any
 * value (a subset of TVM's src/relay/transforms/simplify_expr.cc).
 *
 * One bottom-up rt_ir_mutate walk per global; each op call is matched, as
 * rebuilt (its arguments already simplified), against:
 *   x * 1, 1 * x, x + 0, 0 + x, x - 0, x / 1  -> x
 *       the constant is recognized by value (a scalar or an all-equal
 *       tensor of the result dtype), and only when x's type equals the
 *       result type, so a constant that broadcasts x wider blocks it;
 *   cast(x, dtype) with x already of dtype    -> x
 *   a chain of reshape-like ops (reshape, squeeze, expand_dims,
 *       nn.batch_flatten) on x                -> x when the result has x's
 *       static shape, else one reshape to the static result shape (or, for
 *       dynamic shapes, reshape(x, newshape) when the outer reshape's
 *       newshape uses only positive sizes and -1);
 *   transpose(transpose(x, a), b)             -> transpose(x, a o b), and a
 *       transpose whose permutation is the identity -> x;
 *   broadcast_to(x, shape) with x already of that static shape -> x;
 *   nn.pad(x, v) with every pad width 0 (any mode)       -> x;
 *   nn.batch_matmul(a, transpose(x, p))       -> nn.batch_matmul(a,
 *       transpose(x, q), transpose_b flipped) with q = [p0, p2, p1], when
 *       p moves x's last axis and q does not (q the identity: x itself):
 *       the operand's copy then reads and writes rows (PyTorch's attention
 *       exports k.transpose(-2, -1) as such a gather, 42 us of a 2-layer
 *       encoder's 5 ms each), and the GEMM packs either form.
 * Reshape-like ops keep the row-major element order, which is why a chain
 * whose shapes start and end equal is the identity.
 *
 * Types: input nodes carry checked types; nodes built here are recorded in
 * a map from node id to the type of the node they replace (a rewrite keeps
 * the type), so a rule looking through an already-rewritten argument still
 * knows its type. */
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
  rt_ir_type_t *type;
  UT_hash_handle hh;
} ty_entry;

typedef struct {
  rt_pass_rewrite_t base; /* first: rt_pass_rewrite_globals's state */
  ty_entry *types;
} se_ctx;

static const rt_ir_type_t *type_of(const se_ctx *cx, const rt_ir_expr_t *e) {
  rt_ir_type_t *t = e->checked_type;
  if (!t) {
    ty_entry *x = NULL;
    HASH_FIND(hh, cx->types, &e->id, sizeof(uint32_t), x);
    if (x) t = x->type;
  }
  return t ? rt_ir_type_resolve(t) : NULL;
}

static const rt_ir_type_t *tensor_of(const se_ctx *cx, const rt_ir_expr_t *e) {
  const rt_ir_type_t *t = type_of(cx, e);
  return t && t->kind == RT_IR_TYPE_TENSOR ? t : NULL;
}

static bool is_static(const rt_ir_type_t *t) {
  for (int32_t i = 0; i < t->tensor.rank; ++i) {
    if (t->tensor.shape[i] < 0) return false;
  }
  return true;
}

static bool same_static_shape(const rt_ir_type_t *a, const rt_ir_type_t *b) {
  if (!a || !b || !is_static(a) || !is_static(b)) return false;
  if (!rt_dtype_equal(a->tensor.dtype, b->tensor.dtype) || a->tensor.rank != b->tensor.rank) {
    return false;
  }
  for (int32_t i = 0; i < a->tensor.rank; ++i) {
    if (a->tensor.shape[i] != b->tensor.shape[i]) return false;
  }
  return true;
}

/* A constant of `dtype` whose every element equals v. */
static bool const_is(const rt_ir_expr_t *e, rt_dtype_t dtype, double v) {
  if (e->kind != RT_IR_CONSTANT) return false;
  const rt_tensor_t *t = e->constant.value;
  if (!rt_dtype_equal(rt_tensor_dtype(t), dtype)) return false;
  int64_t n = rt_tensor_numel(t);
  if (n < 1) return false;
  for (int64_t i = 0; i < n; ++i) {
    if (rt_tensor_get_f64(t, i) != v) return false;
  }
  return true;
}

static bool is_op_id(const rt_ir_expr_t *e, int32_t id) {
  return e->kind == RT_IR_CALL && e->call.callee->kind == RT_IR_OP &&
         e->call.callee->op.op->id == id;
}

static bool reshape_like(const rt_ir_expr_t *e) {
  return is_op_id(e, RT_OP_RESHAPE) || is_op_id(e, RT_OP_SQUEEZE) ||
         is_op_id(e, RT_OP_EXPAND_DIMS) || is_op_id(e, RT_OP_NN_BATCH_FLATTEN);
}

static void ints_text(const int64_t *v, int32_t n, char *buf, size_t cap) {
  size_t used = (size_t)snprintf(buf, cap, "[");
  for (int32_t i = 0; i < n && used < cap; ++i) {
    used += (size_t)snprintf(buf + used, cap - used, "%s%lld", i ? ", " : "", (long long)v[i]);
  }
  if (used < cap) snprintf(buf + used, cap - used, "]");
}

static rt_status_t binary_identity(se_ctx *cx, const rt_ir_expr_t *orig, rt_ir_expr_t *e,
                                   rt_ir_expr_t **out) {
  const int32_t id = e->call.callee->op.op->id;
  const rt_ir_type_t *rt = tensor_of(cx, orig);
  if (!rt) return RT_OK;
  const rt_dtype_t dt = rt->tensor.dtype;
  rt_ir_expr_t *a = e->call.args[0], *b = e->call.args[1];
  const rt_ir_type_t *ta = type_of(cx, orig->call.args[0]), *tb = type_of(cx, orig->call.args[1]);
  const bool a_keeps = ta && rt_ir_type_equal(ta, rt), b_keeps = tb && rt_ir_type_equal(tb, rt);
  const double unit = (id == RT_OP_ADD || id == RT_OP_SUBTRACT) ? 0.0 : 1.0;
  const bool commutes = id == RT_OP_ADD || id == RT_OP_MULTIPLY;
  if (a_keeps && const_is(b, dt, unit)) {
    *out = a;
  } else if (commutes && b_keeps && const_is(a, dt, unit)) {
    *out = b;
  }
  return RT_OK;
}

static rt_status_t reshape_chain(se_ctx *cx, const rt_ir_expr_t *orig, rt_ir_expr_t *e,
                                 rt_ir_expr_t **out) {
  const rt_ir_type_t *rt = tensor_of(cx, orig);
  rt_ir_expr_t *src = e->call.args[0];
  const bool chain = reshape_like(src);
  if (chain) src = src->call.args[0];
  const rt_ir_type_t *st = tensor_of(cx, src);
  if (!rt || !st) return RT_OK;
  if (same_static_shape(st, rt)) {
    *out = src;
    return RT_OK;
  }
  if (!chain) return RT_OK;
  char text[24 * RT_TENSOR_MAX_RANK + 4];
  if (is_static(rt)) {
    for (int32_t i = 0; i < rt->tensor.rank; ++i) {
      if (rt->tensor.shape[i] == 0) return RT_OK; /* 0 means "copy" in newshape */
    }
    ints_text(rt->tensor.shape, rt->tensor.rank, text, sizeof text);
  } else if (is_op_id(e, RT_OP_RESHAPE) && !rt_ir_attrs_reshape(e->call.attrs).allowzero) {
    const rt_attr_list_t newshape = rt_ir_attrs_reshape(e->call.attrs).newshape;
    int32_t n = newshape.count;
    if (n > RT_TENSOR_MAX_RANK) return RT_OK;
    int64_t v[RT_TENSOR_MAX_RANK];
    for (int32_t i = 0; i < n; ++i) {
      v[i] = rt_attr_list_int(newshape, i);
      if (v[i] == 0 || v[i] < -1) return RT_OK; /* codes that read the input's shape */
    }
    ints_text(v, n, text, sizeof text);
  } else {
    return RT_OK;
  }
  const char *key = "newshape", *val = text;
  return rt_pass_make_call(cx->base.m, e->span, RT_OP_RESHAPE, 1, &src, 1, &key, &val, out);
}

/* The permutation of a transpose call over rank `rank`; false if malformed. */
static bool perm_of(const rt_ir_expr_t *e, int32_t rank, int64_t *perm) {
  const rt_attrs_transpose_t at = rt_ir_attrs_transpose(e->call.attrs);
  if (at.axes_is_none || at.axes.count == 0) {
    for (int32_t i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
    return true;
  }
  if (at.axes.count != rank) return false;
  bool seen[RT_TENSOR_MAX_RANK] = {false};
  for (int32_t i = 0; i < rank; ++i) {
    int64_t a = rt_attr_list_int(at.axes, i);
    if (a < 0) a += rank;
    if (a < 0 || a >= rank || seen[a]) return false;
    seen[a] = true;
    perm[i] = a;
  }
  return true;
}

static rt_status_t transpose_chain(se_ctx *cx, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  rt_ir_expr_t *src = e->call.args[0];
  const bool chain = is_op_id(src, RT_OP_TRANSPOSE);
  rt_ir_expr_t *x = chain ? src->call.args[0] : src;
  const rt_ir_type_t *xt = tensor_of(cx, x);
  if (!xt || xt->tensor.rank > RT_TENSOR_MAX_RANK) return RT_OK;
  const int32_t rank = xt->tensor.rank;
  int64_t outer[RT_TENSOR_MAX_RANK], inner[RT_TENSOR_MAX_RANK], comp[RT_TENSOR_MAX_RANK];
  if (!perm_of(e, rank, outer)) return RT_OK;
  if (chain && !perm_of(src, rank, inner)) return RT_OK;
  bool identity = true;
  for (int32_t i = 0; i < rank; ++i) {
    comp[i] = chain ? inner[outer[i]] : outer[i];
    if (comp[i] != i) identity = false;
  }
  if (identity) {
    *out = x;
    return RT_OK;
  }
  if (!chain) return RT_OK;
  char text[24 * RT_TENSOR_MAX_RANK + 4];
  ints_text(comp, rank, text, sizeof text);
  const char *key = "axes", *val = text;
  return rt_pass_make_call(cx->base.m, e->span, RT_OP_TRANSPOSE, 1, &x, 1, &key, &val, out);
}

/* nn.batch_matmul(a, transpose(x, p)) -> nn.batch_matmul(a, transpose(x,
 * q), transpose_b flipped), q = [p0, p2, p1], where q keeps x's last axis
 * last and p did not. */
static rt_status_t batch_matmul_transpose(se_ctx *cx, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  rt_ir_expr_t *b = e->call.args[1];
  if (e->call.nargs != 2 || !is_op_id(b, RT_OP_TRANSPOSE)) return RT_OK;
  rt_ir_expr_t *x = b->call.args[0];
  const rt_ir_type_t *xt = tensor_of(cx, x);
  int64_t p[RT_TENSOR_MAX_RANK];
  if (!xt || xt->tensor.rank != 3 || !perm_of(b, 3, p)) return RT_OK;
  if (p[2] == 2 || p[1] != 2) return RT_OK;
  const int64_t q[3] = {p[0], p[2], p[1]};
  rt_ir_expr_t *nb = x;
  if (q[0] != 0 || q[1] != 1) {
    char text[80];
    ints_text(q, 3, text, sizeof text);
    const char *key = "axes", *val = text;
    RT_RETURN_IF_ERROR(rt_pass_make_call(cx->base.m, b->span, RT_OP_TRANSPOSE, 1, &x, 1, &key, &val, &nb));
  }
  const rt_attrs_batch_matmul_t at = rt_ir_attrs_batch_matmul(e->call.attrs);
  char dt[64], dtq[72];
  const char *keys[3] = {"transpose_a", "transpose_b", "out_dtype"};
  const char *vals[3] = {at.transpose_a ? "True" : "False", at.transpose_b ? "False" : "True", dtq};
  int32_t nattrs = 2;
  if (!at.out_dtype_is_none) {
    snprintf(dtq, sizeof dtq, "\"%s\"", rt_dtype_name(at.out_dtype, dt));
    nattrs = 3;
  }
  rt_ir_expr_t *args[2] = {e->call.args[0], nb};
  return rt_pass_make_call(cx->base.m, e->span, RT_OP_NN_BATCH_MATMUL, 2, args, nattrs, keys, vals, out);
}

static rt_status_t record_type(se_ctx *cx, rt_ir_expr_t *e, rt_ir_type_t *t) {
  if (e->checked_type || !t) return RT_OK;
  ty_entry *x = NULL;
  HASH_FIND(hh, cx->types, &e->id, sizeof(uint32_t), x);
  if (x) return RT_OK;
  x = rt_mem_calloc(1, sizeof *x);
  if (!x) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in SimplifyExpr");
  bool oom = false;
  x->id = e->id;
  x->type = t;
  HASH_ADD(hh, cx->types, id, sizeof(uint32_t), x);
  if (oom) {
    rt_mem_free(x);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in SimplifyExpr");
  }
  return RT_OK;
}

/* nn.pad with every width 0 (ONNX exporters emit one before pools
 * whose pads are all 0; DenseNet-121's three transitions each copied
 * their 1.6-3.2 MB activation once more), any mode: the identity. */
static bool pad_is_identity(const se_ctx *cx, const rt_ir_expr_t *orig) {
  const rt_ir_type_t *t = tensor_of(cx, orig->call.args[0]), *r = tensor_of(cx, orig);
  if (!t || !r || !rt_ir_type_equal(t, r)) return false;
  rt_plan_input_t in = {.dtype = t->tensor.dtype, .rank = t->tensor.rank, .shape = t->tensor.shape, .value = NULL};
  rt_plan_pad_t p;
  rt_status_t bad = rt_ir_plan_pad(orig->call.attrs, 1, &in, &p);
  if (bad) {
    rt_status_free(bad);
    return false;
  }
  for (int32_t i = 0; i < p.rank; ++i) {
    if (p.before[i] != 0 || p.after[i] != 0) return false;
  }
  return true;
}

static rt_status_t rewrite(void *user, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  se_ctx *cx = user;
  *out = e;
  rt_status_t st = RT_OK;
  if (e->kind == RT_IR_CALL && e->call.callee->kind == RT_IR_OP) {
    switch (e->call.callee->op.op->id) {
      case RT_OP_ADD:
      case RT_OP_SUBTRACT:
      case RT_OP_MULTIPLY:
      case RT_OP_DIVIDE:
        st = binary_identity(cx, orig, e, out);
        break;
      case RT_OP_CAST: {
        const rt_ir_type_t *a = type_of(cx, orig->call.args[0]), *r = type_of(cx, orig);
        if (a && r && rt_ir_type_equal(a, r)) *out = e->call.args[0];
        break;
      }
      case RT_OP_RESHAPE:
      case RT_OP_SQUEEZE:
      case RT_OP_EXPAND_DIMS:
      case RT_OP_NN_BATCH_FLATTEN:
        st = reshape_chain(cx, orig, e, out);
        break;
      case RT_OP_TRANSPOSE:
        st = transpose_chain(cx, e, out);
        break;
      case RT_OP_BROADCAST_TO: {
        const rt_ir_type_t *a = type_of(cx, orig->call.args[0]), *r = type_of(cx, orig);
        if (a && r && is_static(a) && rt_ir_type_equal(a, r)) *out = e->call.args[0];
        break;
      }
      case RT_OP_NN_BATCH_MATMUL:
        st = batch_matmul_transpose(cx, e, out);
        break;
      case RT_OP_NN_PAD:
        if (pad_is_identity(cx, orig)) *out = e->call.args[0];
        break;
      default:
        break;
    }
  }
  if (st) return st;
  if (*out != e) {
    cx->base.changed = true;
    if (!(*out)->checked_type && !(*out)->binding) (*out)->binding = e->binding;
  }
  /* Remember the type of every node made in this walk (copies made by
   * rt_ir_mutate included) for the rules above that look through it. */
  if (*out != orig) return record_type(cx, *out, orig->checked_type);
  return RT_OK;
}

rt_status_t rt_pass_simplify_expr(const rt_pass_env_t *env, rt_module_t *in, rt_module_t **out) {
  (void)env;
  se_ctx cx = {{NULL, false}, NULL};
  const rt_status_t st = rt_pass_rewrite_globals(in, rewrite, &cx.base, out);
  ty_entry *x, *tmp;
  HASH_ITER(hh, cx.types, x, tmp) {
    HASH_DEL(cx.types, x);
    rt_mem_free(x);
  }
  return st;
}
