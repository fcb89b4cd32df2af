/* FoldConstant: evaluates constant subexpressions at build time (TVM's
 * src/relay/transforms/fold_constant.cc).
 *
 * One bottom-up rt_ir_mutate walk per global, so a chain of constant ops
 * folds in a single pass (each call sees its arguments already folded):
 *  - an op call whose arguments are all constants, or tuples of constants
 *    (concatenate, stack), is run by the reference interpreter
 *    (rt_interp_apply_op, in a scratch interpreter over an empty throwaway
 *    module) and replaced by a Constant; a tuple result becomes a Tuple of
 *    constants. Ops without tensor arguments (zeros, ones, full of a
 *    constant, arange of constants) fold too, as in TVM;
 *  - a projection of a Tuple node becomes the field (so a folded split's
 *    `.1` is a constant);
 *  - an `if` on a constant condition (one element) becomes the branch it
 *    takes (as TVM's), so a graph executor specialized on a condition
 *    input (backend/graph_specialize.c) has no control flow left;
 *  - a let whose value folded to a constant is dropped and its var is
 *    replaced by the constant in the body (TVM inlines let-bound
 *    constants), so chains through lets fold as well. The var is replaced
 *    where it is used (in each parent's children, binder positions left
 *    alone), which works bottom-up because a let's value is visited before
 *    its body.
 *  - a reshape of a constant (reshape, squeeze, expand_dims,
 *    nn.batch_flatten) becomes a view sharing the constant's data
 *    (fold_view), not a copy;
 *  - shape_of and ndarray_size of a value whose type has a static shape
 *    fold to that shape / size without evaluating the value (as TVM's),
 *    so a shape computation on an input whose shape was bound (--shape,
 *    the graph executor's specializations) folds and DynamicToStatic can
 *    make the dyn ops it feeds static.
 * Not folded: calls whose result would pass 64 MiB, whose type is not a
 * static tensor or tuple of static tensors (but for arange, whose length
 * its constant operands give, and argwhere of a static-shaped value,
 * whose size is bounded by the value's), or whose evaluation fails (the
 * error is then the runtime's to report: e.g. an integer division by a zero
 * constant is left in place); calls of functions, globals and closures; and
 * anything inside a `Primitive` function's body (TVM skips those). The
 * output's new constants are added with rt_ir_constant (tensors shared, not
 * copied). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "interp/interp.h"
#include "passes/fold_cache.h"
#include "passes/pass.h"
#include "runtime/disk_cache.h"
#include "runtime/mem.h"
#include "runtime/strbuf.h"
#include "runtime/tensor_impl.h"

#define uthash_nonfatal_oom(elt) (cx->oom = true)
#include "runtime/uthash_rt.h"

#define FOLD_MAX_BYTES (UINT64_C(64) << 20)
#define MAX_FIELDS 64

/* A tensor that is a fold cache hit, and its content hash (its key). */
typedef struct {
  const rt_tensor_t *tensor;
  rt_fold_key_t key;
  UT_hash_handle hh;
} known_hash;

typedef struct {
  rt_module_t *m;
  rt_allocator_t allocator;
  char *cache_dir;            /* the fold cache's folder (fold_cache.h); NULL = off */
  char build_id[41];
  known_hash *known;
  bool oom;
  rt_interp_t *interp;
  uint32_t cap;               /* ids below this index the arrays */
  uint8_t *skip;              /* node ids inside Primitive bodies */
  rt_ir_expr_t **let_of;      /* let var id -> its let (original) */
  rt_ir_expr_t **const_of;    /* original id -> the constant it folded to */
  rt_ir_expr_t **var_const;   /* let var id -> the constant bound to it */
  bool changed;
} fc_ctx;

/* ---- analysis: lets and primitive bodies --------------------------------- */

static rt_status_t mark_skip(void *user, rt_ir_expr_t *e) {
  fc_ctx *cx = user;
  if (e->id < cx->cap) cx->skip[e->id] = 1;
  return RT_OK;
}

static rt_status_t analyze(void *user, rt_ir_expr_t *e) {
  fc_ctx *cx = user;
  if (e->id >= cx->cap) return RT_STATUS(INTERNAL, "node id %u past the module's ids", e->id);
  if (e->kind == RT_IR_LET && e->let.var->id < cx->cap) cx->let_of[e->let.var->id] = e;
  if (rt_ir_is_primitive(e)) return rt_ir_post_order(cx->allocator, e->fn.body, mark_skip, cx);
  return RT_OK;
}

/* ---- size and type checks ------------------------------------------------ */

static bool static_bytes(const rt_ir_type_t *t, uint64_t *bytes, int32_t depth) {
  t = t ? rt_ir_type_resolve((rt_ir_type_t *)t) : NULL;
  if (!t || depth > 1) return false;
  if (t->kind == RT_IR_TYPE_TUPLE) {
    if (t->tuple.count > MAX_FIELDS) return false;
    for (int32_t i = 0; i < t->tuple.count; ++i) {
      if (!static_bytes(t->tuple.fields[i], bytes, depth + 1)) return false;
    }
    return true;
  }
  if (t->kind != RT_IR_TYPE_TENSOR) return false;
  uint64_t n = rt_dtype_size(t->tensor.dtype);
  for (int32_t i = 0; i < t->tensor.rank; ++i) {
    int64_t d = t->tensor.shape[i];
    if (d < 0) return false;
    if (d > 0 && n > FOLD_MAX_BYTES / (uint64_t)d) return false;
    n *= (uint64_t)d;
  }
  *bytes += n;
  return *bytes <= FOLD_MAX_BYTES;
}

static bool is_const_arg(const rt_ir_expr_t *e) {
  if (e->kind == RT_IR_CONSTANT) return true;
  if (e->kind != RT_IR_TUPLE || e->tuple.count > MAX_FIELDS) return false;
  for (int32_t i = 0; i < e->tuple.count; ++i) {
    if (e->tuple.fields[i]->kind != RT_IR_CONSTANT) return false;
  }
  return true;
}

/* ---- evaluation ---------------------------------------------------------- */

static rt_status_t arg_value(fc_ctx *cx, const rt_ir_expr_t *e, rt_interp_value_t **out) {
  if (e->kind == RT_IR_CONSTANT) return rt_interp_value_tensor(cx->allocator, e->constant.value, out);
  rt_interp_value_t *fields[MAX_FIELDS];
  int32_t n = 0;
  rt_status_t st = RT_OK;
  for (; n < e->tuple.count && !st; ++n) {
    st = rt_interp_value_tensor(cx->allocator, e->tuple.fields[n]->constant.value, &fields[n]);
    if (st) break;
  }
  if (!st) st = rt_interp_value_tuple(cx->allocator, n, fields, out);
  for (int32_t i = 0; i < n; ++i) rt_interp_value_release(fields[i]);
  return st;
}

static rt_status_t to_expr(fc_ctx *cx, rt_ir_span_t sp, const rt_interp_value_t *v,
                           rt_ir_expr_t **out) {
  if (v->kind == RT_INTERP_TENSOR) return rt_ir_constant(cx->m, sp, v->tensor, out);
  if (v->kind != RT_INTERP_TUPLE || v->tuple.count > MAX_FIELDS) {
    return RT_STATUS(UNIMPLEMENTED, "a folded value that is not tensors");
  }
  rt_ir_expr_t *fields[MAX_FIELDS];
  for (int32_t i = 0; i < v->tuple.count; ++i) {
    if (v->tuple.fields[i]->kind != RT_INTERP_TENSOR) {
      return RT_STATUS(UNIMPLEMENTED, "a folded tuple with a non-tensor field");
    }
    RT_RETURN_IF_ERROR(rt_ir_constant(cx->m, sp, v->tuple.fields[i]->tensor, &fields[i]));
  }
  return rt_ir_tuple(cx->m, sp, v->tuple.count, fields, out);
}

/* arange of constant scalars: its type's length is `?` (relations see no
 * values), so it folds when the length its values give fits. */
static bool arange_fits(const rt_ir_expr_t *e) {
  if (e->call.callee->kind != RT_IR_OP || e->call.callee->op.op->id != RT_OP_ARANGE ||
      e->call.nargs != 3) {
    return false;
  }
  double v[3];
  for (int32_t k = 0; k < 3; ++k) {
    const rt_ir_expr_t *a = e->call.args[k];
    if (a->kind != RT_IR_CONSTANT || rt_tensor_numel(a->constant.value) != 1) return false;
    v[k] = rt_tensor_get_f64(a->constant.value, 0);
  }
  if (v[2] == 0) return false;
  const double len = ceil((v[1] - v[0]) / v[2]);
  return !(len > (double)(FOLD_MAX_BYTES / 8)) && len == len;
}

/* ---- the disk cache of large folds (passes/fold_cache.h) ------------------ */

static rt_fold_key_t content_hash(fc_ctx *cx, const rt_tensor_t *t) {
  known_hash *k = NULL;
  HASH_FIND_PTR(cx->known, &t, k);
  if (k) return k->key;
  return rt_fold_hash_bytes(rt_tensor_data(t), rt_tensor_nbytes(t));
}

/* The key of call e (every argument a compact constant tensor); false when
 * it has another kind of argument. */
static bool fold_key(fc_ctx *cx, const rt_ir_expr_t *e, rt_fold_key_t *out) {
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    const rt_ir_expr_t *a = e->call.args[i];
    if (a->kind != RT_IR_CONSTANT || !rt_tensor_is_compact(a->constant.value)) return false;
  }
  XXH3_state_t *h = XXH3_createState();
  if (!h) return false;
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_strbuf_printf(&b, "relayrt fold 1 %s %s", cx->build_id, e->call.callee->op.op->name);
  for (int32_t i = 0; e->call.attrs && i < e->call.attrs->count; ++i) {
    rt_strbuf_printf(&b, " %s=", e->call.attrs->keys[i]);
    rt_attr_value_print(&e->call.attrs->values[i], &b);
  }
  if (b.failed || !b.data) {
    rt_strbuf_deinitialize(&b);
    XXH3_freeState(h);
    return false;
  }
  XXH3_128bits_reset(h);
  XXH3_128bits_update(h, b.data, b.len);
  rt_strbuf_deinitialize(&b);
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    const rt_tensor_t *t = e->call.args[i]->constant.value;
    const rt_dtype_t dt = rt_tensor_dtype(t);
    const int64_t head[4] = {dt.code, dt.bits, dt.lanes, rt_tensor_rank(t)};
    const rt_fold_key_t c = content_hash(cx, t);
    XXH3_128bits_update(h, head, sizeof head);
    XXH3_128bits_update(h, rt_tensor_shape(t), (size_t)rt_tensor_rank(t) * sizeof(int64_t));
    XXH3_128bits_update(h, &c, sizeof c);
  }
  const XXH128_hash_t r = XXH3_128bits_digest(h);
  XXH3_freeState(h);
  *out = (rt_fold_key_t){r.low64, r.high64};
  return true;
}

/* t's content hash is `key` from now on (the module keeps t alive for the
 * pass, so its address names it). */
static rt_status_t remember(fc_ctx *cx, const rt_tensor_t *t, rt_fold_key_t key) {
  known_hash *k = NULL;
  HASH_FIND_PTR(cx->known, &t, k);
  if (k) {
    k->key = key;
    return RT_OK;
  }
  k = rt_mem_calloc(1, sizeof *k);
  if (!k) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory in FoldConstant");
  k->tensor = t;
  k->key = key;
  HASH_ADD_PTR(cx->known, tensor, k);
  if (cx->oom) {
    rt_mem_free(k);
    return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory in FoldConstant");
  }
  return RT_OK;
}

/* Folds op call e (all arguments constant) into *out, or leaves *out = e
 * when it should not or cannot be folded. Only allocation failures (while
 * evaluating or building the result) are errors. */
/* argwhere (ir/ops.def, data-dependent block) of a static-shaped value:
 * its `?` count is at most the value's size, so its result is bounded
 * (count * rank int32s) and it folds on a constant like any call; so do
 * unique and vision.onnx_nms (h1's detection rows). */
static bool datadep_bounded(const rt_ir_expr_t *orig) {
  const rt_ir_expr_t *callee = orig->call.callee;
  if (callee->kind != RT_IR_OP) return false;
  const int32_t id = callee->op.op->id;
  if (id == RT_OP_UNIQUE || id == RT_OP_VISION_ONNX_NMS) {
    /* h1: unique's outputs (values and three int64 lists) and
     * vision.onnx_nms's rows (3 int64 per score at most) are within 32
     * bytes per input element. */
    uint64_t elems = 0;
    for (int32_t i = 0; i < orig->call.nargs; ++i) {
      uint64_t bytes = 0;
      if (!static_bytes(orig->call.args[i]->checked_type, &bytes, 0)) return false;
      elems += bytes; /* at least one byte per element */
    }
    return elems * 32 <= FOLD_MAX_BYTES;
  }
  if (id != RT_OP_ARGWHERE || orig->call.nargs != 1) return false;
  uint64_t in_bytes = 0;
  const rt_ir_type_t *t = orig->call.args[0]->checked_type;
  if (!static_bytes(t, &in_bytes, 0)) return false;
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (t->kind != RT_IR_TYPE_TENSOR) return false;
  uint64_t n = 1;
  for (int32_t i = 0; i < t->tensor.rank; ++i) n *= (uint64_t)t->tensor.shape[i];
  return n * 4 * (uint64_t)(t->tensor.rank > 0 ? t->tensor.rank : 1) <= FOLD_MAX_BYTES;
}

static rt_status_t fold_call(fc_ctx *cx, const rt_ir_expr_t *orig, rt_ir_expr_t *e,
                             rt_ir_expr_t **out) {
  uint64_t bytes = 0;
  if (!static_bytes(orig->checked_type, &bytes, 0) && !arange_fits(e) && !datadep_bounded(orig)) {
    return RT_OK;
  }
  const int32_t nargs = e->call.nargs;
  if (nargs > MAX_FIELDS) return RT_OK;
  /* A large single-tensor result goes through the disk cache. */
  const rt_ir_type_t *ty = rt_ir_type_resolve((rt_ir_type_t *)orig->checked_type);
  rt_fold_key_t key = {0, 0};
  const bool cached = cx->cache_dir && bytes >= RT_FOLD_CACHE_MIN_BYTES && ty &&
                      ty->kind == RT_IR_TYPE_TENSOR && fold_key(cx, e, &key);
  if (cached) {
    rt_tensor_t *hit = NULL;
    RT_RETURN_IF_ERROR(rt_fold_cache_load(cx->cache_dir, key, ty->tensor.dtype, ty->tensor.rank,
                                          ty->tensor.shape, &hit));
    if (hit) {
      rt_ir_expr_t *r = NULL;
      rt_status_t st = rt_ir_constant(cx->m, e->span, hit, &r);
      if (!st) st = remember(cx, hit, key);
      rt_tensor_release(hit);
      if (st) return st;
      r->binding = e->binding;
      *out = r;
      return RT_OK;
    }
  }
  rt_interp_value_t *args[MAX_FIELDS];
  int32_t n = 0;
  rt_status_t st = RT_OK;
  for (; n < nargs; ++n) {
    st = arg_value(cx, e->call.args[n], &args[n]);
    if (st) break;
  }
  rt_interp_value_t *result = NULL;
  if (!st) {
    const uint64_t failures = rt_mem_failure_count();
    rt_status_t ev = rt_interp_apply_op(cx->interp, e->call.callee->op.op, e->call.attrs, nargs,
                                        args, &result);
    if (ev && rt_mem_failure_count() != failures) {
      st = ev; /* out of memory is the build's failure, not the op's */
    } else if (ev) {
      /* Not foldable (no kernel, a kernel error, too large): leave it. */
      rt_status_free(ev);
      result = NULL;
    }
  }
  for (int32_t i = 0; i < n; ++i) rt_interp_value_release(args[i]);
  if (st || !result) return st;
  if (cached && result->kind == RT_INTERP_TENSOR) {
    /* A cache that cannot be written is no error: the next build folds
     * again. Inside rt_create_executor the write runs on a writer thread
     * while the build goes on (fold_cache.h). */
    rt_status_free(rt_fold_cache_store_deferred(cx->cache_dir, key, result->tensor));
    /* Its content hash is the key, as it will be when it is a hit: a
     * fold over it (the transpose after the Winograd transform) gets the
     * same key in this build as in the next. */
    st = remember(cx, result->tensor, key);
  }
  rt_ir_expr_t *r = NULL;
  if (!st) st = to_expr(cx, e->span, result, &r);
  rt_interp_value_release(result);
  if (st && rt_status_code(st) == RT_STATUS_UNIMPLEMENTED) {
    rt_status_free(st);
    return RT_OK;
  }
  if (!st) {
    r->binding = e->binding;
    *out = r;
  }
  return st;
}

/* Replaces call e by a Constant of tensor t (whose reference it takes):
 * *out, with e's binding. */
static rt_status_t constant_for(fc_ctx *cx, const rt_ir_expr_t *e, rt_tensor_t *t, rt_ir_expr_t **out) {
  rt_ir_expr_t *c = NULL;
  rt_status_t st = rt_ir_constant(cx->m, e->span, t, &c);
  rt_tensor_release(t);
  if (!st) {
    c->binding = e->binding;
    *out = c;
  }
  return st;
}

/* A reshape of a constant (reshape, squeeze, expand_dims,
 * nn.batch_flatten: the same elements in the same order) becomes a view of
 * the constant's tensor, sharing its data, with no copy, no allocation
 * and no fold-cache entry: the packing chains of DensePack (reshape,
 * transpose, reshape of resnet18's 9.4 MB 3x3 weights) copied 2 of their 3
 * folds. *out unchanged when it is not one. */
static rt_status_t fold_view(fc_ctx *cx, const rt_ir_expr_t *orig, rt_ir_expr_t *e,
                             rt_ir_expr_t **out) {
  const int32_t id = e->call.callee->op.op->id;
  if ((id != RT_OP_RESHAPE && id != RT_OP_SQUEEZE && id != RT_OP_EXPAND_DIMS &&
       id != RT_OP_NN_BATCH_FLATTEN) ||
      e->call.nargs != 1 || e->call.args[0]->kind != RT_IR_CONSTANT) {
    return RT_OK;
  }
  rt_tensor_t *base = e->call.args[0]->constant.value;
  const rt_ir_type_t *r = orig->checked_type ? rt_ir_type_resolve((rt_ir_type_t *)orig->checked_type) : NULL;
  if (!r || r->kind != RT_IR_TYPE_TENSOR || !rt_dtype_equal(r->tensor.dtype, rt_tensor_dtype(base)) ||
      !rt_tensor_is_compact(base) || rt_dtype_is_string(r->tensor.dtype)) {
    return RT_OK;
  }
  int64_t numel = 1;
  for (int32_t d = 0; d < r->tensor.rank; ++d) {
    if (r->tensor.shape[d] < 0) return RT_OK;
    numel *= r->tensor.shape[d];
  }
  if (numel != rt_tensor_numel(base)) return RT_OK;
  rt_tensor_t *view = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_reshaped_view(base, r->tensor.rank, r->tensor.shape, &view));
  return constant_for(cx, e, view, out);
}

/* shape_of / ndarray_size of a static-shaped value: the shape (or size)
 * as a constant of the call's dtype, into *out; *out unchanged otherwise. */
static rt_status_t fold_shape(fc_ctx *cx, const rt_ir_expr_t *orig, rt_ir_expr_t *e,
                              rt_ir_expr_t **out) {
  const int32_t id = e->call.callee->op.op->id;
  if ((id != RT_OP_SHAPE_OF && id != RT_OP_NDARRAY_SIZE) || e->call.nargs != 1) return RT_OK;
  const rt_ir_type_t *a = orig->call.args[0]->checked_type;
  const rt_ir_type_t *r = orig->checked_type;
  a = a ? rt_ir_type_resolve((rt_ir_type_t *)a) : NULL;
  r = r ? rt_ir_type_resolve((rt_ir_type_t *)r) : NULL;
  if (!a || !r || a->kind != RT_IR_TYPE_TENSOR || r->kind != RT_IR_TYPE_TENSOR) return RT_OK;
  int64_t size = 1;
  for (int32_t d = 0; d < a->tensor.rank; ++d) {
    if (a->tensor.shape[d] < 0) return RT_OK;
    size *= a->tensor.shape[d];
  }
  const rt_dtype_t dt = r->tensor.dtype;
  const bool i64 = rt_dtype_equal(dt, RT_DTYPE_INT64), i32 = rt_dtype_equal(dt, RT_DTYPE_INT32);
  if (!i64 && !i32) return RT_OK;
  const int64_t n = id == RT_OP_SHAPE_OF ? a->tensor.rank : 1;
  const int64_t *vals = id == RT_OP_SHAPE_OF ? a->tensor.shape : &size;
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(cx->allocator, dt, r->tensor.rank, r->tensor.shape, &t));
  for (int64_t i = 0; i < n; ++i) {
    if (i64) ((int64_t *)rt_tensor_data(t))[i] = vals[i];
    if (i32) ((int32_t *)rt_tensor_data(t))[i] = (int32_t)vals[i];
  }
  return constant_for(cx, e, t, out);
}

/* ---- the rewrite --------------------------------------------------------- */

static rt_ir_expr_t *sub(const fc_ctx *cx, rt_ir_expr_t *e) {
  if (e->kind == RT_IR_VAR && e->id < cx->cap && cx->var_const[e->id]) return cx->var_const[e->id];
  return e;
}

/* e with every use of a let var bound to a constant replaced by the
 * constant (binder positions left alone). */
static rt_status_t substitute(fc_ctx *cx, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  *out = e;
  switch (e->kind) {
    case RT_IR_CALL: {
      bool any = false;
      for (int32_t i = 0; i < e->call.nargs && !any; ++i) any = sub(cx, e->call.args[i]) != e->call.args[i];
      if (!any) return RT_OK;
      rt_ir_expr_t **a = NULL;
      RT_RETURN_IF_ERROR(rt_arena_alloc_array(&cx->m->arena, (size_t)e->call.nargs,
                                              sizeof(rt_ir_expr_t *), (void **)&a));
      for (int32_t i = 0; i < e->call.nargs; ++i) a[i] = sub(cx, e->call.args[i]);
      RT_RETURN_IF_ERROR(rt_ir_call(cx->m, e->span, e->call.callee, e->call.nargs, a,
                                    e->call.attrs, out));
      break;
    }
    case RT_IR_TUPLE: {
      bool any = false;
      for (int32_t i = 0; i < e->tuple.count && !any; ++i) any = sub(cx, e->tuple.fields[i]) != e->tuple.fields[i];
      if (!any) return RT_OK;
      rt_ir_expr_t **a = NULL;
      RT_RETURN_IF_ERROR(rt_arena_alloc_array(&cx->m->arena, (size_t)e->tuple.count,
                                              sizeof(rt_ir_expr_t *), (void **)&a));
      for (int32_t i = 0; i < e->tuple.count; ++i) a[i] = sub(cx, e->tuple.fields[i]);
      RT_RETURN_IF_ERROR(rt_ir_tuple(cx->m, e->span, e->tuple.count, a, out));
      break;
    }
    case RT_IR_TUPLE_GET_ITEM:
      if (sub(cx, e->get_item.tuple) == e->get_item.tuple) return RT_OK;
      RT_RETURN_IF_ERROR(rt_ir_get_item(cx->m, e->span, sub(cx, e->get_item.tuple),
                                        e->get_item.index, out));
      break;
    case RT_IR_IF: {
      rt_ir_expr_t *c = sub(cx, e->if_.cond), *t = sub(cx, e->if_.then_branch),
                   *f = sub(cx, e->if_.else_branch);
      if (c == e->if_.cond && t == e->if_.then_branch && f == e->if_.else_branch) return RT_OK;
      RT_RETURN_IF_ERROR(rt_ir_if(cx->m, e->span, c, t, f, out));
      break;
    }
    case RT_IR_LET: {
      rt_ir_expr_t *v = sub(cx, e->let.value), *b = sub(cx, e->let.body);
      if (v == e->let.value && b == e->let.body) return RT_OK;
      RT_RETURN_IF_ERROR(rt_ir_let(cx->m, e->span, e->let.var, v, b, out));
      break;
    }
    case RT_IR_FUNCTION: {
      rt_ir_expr_t *b = sub(cx, e->fn.body);
      if (b == e->fn.body) return RT_OK;
      RT_RETURN_IF_ERROR(rt_ir_function(cx->m, e->span, e->fn.nparams, e->fn.params, b,
                                        e->fn.ret_type, e->fn.attrs, out));
      break;
    }
    default:
      return RT_OK;
  }
  (*out)->binding = e->binding;
  return RT_OK;
}

static rt_status_t rewrite(void *user, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  fc_ctx *cx = user;
  *out = e;
  if (orig->id >= cx->cap || cx->skip[orig->id]) return RT_OK;
  if (orig->kind == RT_IR_VAR) {
    /* Met as a let's binder, right after the let's value. */
    rt_ir_expr_t *l = cx->let_of[orig->id];
    if (l && l->let.var == orig) {
      rt_ir_expr_t *v = l->let.value;
      rt_ir_expr_t *c = v->kind == RT_IR_CONSTANT ? v : (v->id < cx->cap ? cx->const_of[v->id] : NULL);
      if (c) cx->var_const[orig->id] = c;
    }
    return RT_OK;
  }
  if (orig->kind == RT_IR_LET && orig->let.var->id < cx->cap && cx->var_const[orig->let.var->id]) {
    *out = sub(cx, e->let.body);
    cx->changed = true;
    return RT_OK;
  }
  rt_ir_expr_t *s = NULL;
  RT_RETURN_IF_ERROR(substitute(cx, e, &s));
  if (s != e) cx->changed = true;
  *out = s;
  if (s->kind == RT_IR_TUPLE_GET_ITEM && s->get_item.tuple->kind == RT_IR_TUPLE &&
      s->get_item.index >= 0 && s->get_item.index < s->get_item.tuple->tuple.count) {
    *out = s->get_item.tuple->tuple.fields[s->get_item.index];
  } else if (s->kind == RT_IR_IF && s->if_.cond->kind == RT_IR_CONSTANT &&
             rt_tensor_numel(s->if_.cond->constant.value) == 1) {
    *out = rt_tensor_get_f64(s->if_.cond->constant.value, 0) != 0 ? s->if_.then_branch
                                                                  : s->if_.else_branch;
  } else if (s->kind == RT_IR_CALL && s->call.callee->kind == RT_IR_OP) {
    bool all = true;
    for (int32_t i = 0; i < s->call.nargs && all; ++i) all = is_const_arg(s->call.args[i]);
    if (all) {
      RT_RETURN_IF_ERROR(fold_view(cx, orig, s, out));
      if (*out == s) RT_RETURN_IF_ERROR(fold_call(cx, orig, s, out));
    } else {
      RT_RETURN_IF_ERROR(fold_shape(cx, orig, s, out));
    }
  }
  if (*out != s) cx->changed = true;
  if ((*out)->kind == RT_IR_CONSTANT && *out != orig) cx->const_of[orig->id] = *out;
  return RT_OK;
}

rt_status_t rt_pass_fold_constant(const rt_pass_env_t *env, rt_module_t *in, rt_module_t **out) {
  rt_allocator_t alloc = env ? env->allocator : in->allocator;
  fc_ctx cx;
  memset(&cx, 0, sizeof cx);
  cx.allocator = alloc;
  cx.cap = in->next_id;
  rt_module_t *m = NULL, *scratch = NULL;
  rt_status_t st = rt_ir_module_derive(in, &m);
  cx.m = m;
  if (!st) st = rt_ir_module_create(alloc, &scratch);
  if (!st) st = rt_ir_infer_types(scratch); /* empty: just marks it typed */
  if (!st) {
    rt_interp_options_t opts;
    memset(&opts, 0, sizeof opts);
    opts.max_tensor_bytes = FOLD_MAX_BYTES;
    st = rt_interp_create(alloc, scratch, &opts, &cx.interp);
  }
  if (!st && (!env || !env->ctx || env->ctx->jit_disk_cache)) {
    st = rt_cache_dir(&cx.cache_dir);
    rt_cache_build_id(cx.build_id);
  }
  if (!st) {
    cx.skip = rt_mem_calloc((size_t)cx.cap + 1, 1);
    cx.let_of = rt_mem_calloc((size_t)cx.cap + 1, sizeof(rt_ir_expr_t *));
    cx.const_of = rt_mem_calloc((size_t)cx.cap + 1, sizeof(rt_ir_expr_t *));
    cx.var_const = rt_mem_calloc((size_t)cx.cap + 1, sizeof(rt_ir_expr_t *));
    if (!cx.skip || !cx.let_of || !cx.const_of || !cx.var_const) {
      st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in FoldConstant");
    }
  }
  for (int32_t i = 0; i < in->num_globals && !st; ++i) {
    rt_ir_expr_t *fn = in->globals[i].fn, *nf = NULL;
    st = rt_ir_post_order(alloc, fn, analyze, &cx);
    if (!st) st = rt_ir_mutate(m, fn, rewrite, &cx, &nf);
    if (!st && nf != fn) st = rt_ir_module_add(m, in->globals[i].name, nf);
  }
  rt_interp_release(cx.interp);
  rt_module_release(scratch);
  rt_mem_free(cx.skip);
  rt_mem_free(cx.let_of);
  rt_mem_free(cx.const_of);
  rt_mem_free(cx.var_const);
  rt_mem_free(cx.cache_dir);
  known_hash *k, *ktmp;
  HASH_ITER(hh, cx.known, k, ktmp) {
    HASH_DEL(cx.known, k);
    rt_mem_free(k);
  }
  if (st || !cx.changed) {
    rt_module_release(m);
    if (st) return st;
    rt_module_retain(in);
    m = in;
  }
  *out = m;
  return RT_OK;
}
