/* The dyn family (ir/op/dyn.h): type relations of the dyn ops, which
 * operands they read for values, and their static form given the values.
 *
 * Relations see types, not values: a dim the values decide is `?`, the
 * rest is known (dyn.topk keeps every dim but the axis, dyn.one_hot every
 * index dim, dyn.image.resize2d N and C). The output rank comes from a
 * value operand's static length (dyn.tile's reps, dyn.full's shape) or,
 * where the values decide it (dyn.expand_dims, dyn.squeeze, reductions
 * without keepdims), from the `rank` attribute, which the static form
 * checks against what the values give.
 *
 * The static form (rt_ir_dyn_static) only turns values into the static
 * op's attributes: the static op's relation, plan and kernel do the rest,
 * so every normalisation (negative axes, clamped bounds) stays written
 * once, in the static op's plan. */
#include "ir/op/dyn.h"

#include <math.h>
#include <string.h>

#define uthash_nonfatal_oom(elt) (w->oom = true)
#include "runtime/uthash_rt.h"

#include "ir/op/op_impl.h"

#define MAXR RT_TENSOR_MAX_RANK
#define MAX_VALUES 64 /* values one operand may hold (split sizes) */

/* ---- which operands are values ------------------------------------------ */

/* Bit i: operand i is read for its values. */
static uint32_t value_mask(int32_t op_id) {
  switch (op_id) {
    case RT_OP_DYN_RESHAPE: return 1u << 1;
    case RT_OP_DYN_STRIDED_SLICE: return 0x1eu; /* begin, end, strides, axes */
    case RT_OP_DYN_NN_PAD: return 1u << 1;
    case RT_OP_DYN_TILE: return 1u << 1;
    case RT_OP_DYN_BROADCAST_TO: return 1u << 1;
    case RT_OP_DYN_FULL: return 1u << 1;
    case RT_OP_DYN_TOPK: return 1u << 1;
    case RT_OP_DYN_ONE_HOT: return 1u << 3;
    case RT_OP_DYN_IMAGE_RESIZE2D: return 1u << 1;
    case RT_OP_DYN_EXPAND_DIMS:
    case RT_OP_DYN_SQUEEZE:
    case RT_OP_DYN_SUM:
    case RT_OP_DYN_MAX:
    case RT_OP_DYN_MIN:
    case RT_OP_DYN_MEAN:
    case RT_OP_DYN_PROD: return 1u << 1;
    case RT_OP_DYN_SPLIT: return 1u << 1;
    case RT_OP_DYN_CUMSUM: return 1u << 1;
    case RT_OP_DYN_NN_DROPOUT: return 0x6u; /* ratio, training_mode */
    default: return 0;
  }
}

bool rt_ir_op_reads_value(int32_t op_id, int32_t operand) {
  if (operand < 0 || operand >= 32) return false;
  return ((value_mask(op_id) >> operand) & 1u) != 0;
}

/* ---- which parameters are read for their values --------------------------- */

/* Per node: the set of fn's parameters its value depends on (a bitset). */
typedef struct {
  const rt_ir_expr_t *key;
  UT_hash_handle hh;
  uint64_t bits[];
} value_deps;

/* A let-bound var and its value. */
typedef struct {
  const rt_ir_expr_t *key;
  const rt_ir_expr_t *value;
  UT_hash_handle hh;
} let_value;

typedef struct {
  rt_ir_expr_t *fn;
  int32_t words;
  value_deps *map;
  let_value *lets;
  bool oom;
  bool *mask;
} value_walk;

static rt_status_t let_visit(void *user, rt_ir_expr_t *e) {
  value_walk *w = user;
  if (e->kind != RT_IR_LET) return RT_OK;
  let_value *l = rt_mem_calloc(1, sizeof *l);
  if (!l) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory finding the value inputs");
  l->key = e->let.var;
  l->value = e->let.value;
  HASH_ADD_PTR(w->lets, key, l);
  if (w->oom) {
    rt_mem_free(l);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory finding the value inputs");
  }
  return RT_OK;
}

static value_deps *deps_of(value_walk *w, const rt_ir_expr_t *e) {
  value_deps *d = NULL;
  HASH_FIND_PTR(w->map, &e, d);
  return d;
}

static void deps_union(value_walk *w, uint64_t *into, const rt_ir_expr_t *e) {
  const value_deps *d = e ? deps_of(w, e) : NULL;
  for (int32_t i = 0; d && i < w->words; ++i) into[i] |= d->bits[i];
}

static rt_status_t value_visit(void *user, rt_ir_expr_t *e) {
  value_walk *w = user;
  value_deps *d = rt_mem_calloc(1, sizeof *d + (size_t)w->words * sizeof(uint64_t));
  if (!d) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory finding the value inputs");
  d->key = e;
  rt_ir_expr_t *kids[8];
  switch (e->kind) {
    case RT_IR_VAR: {
      for (int32_t k = 0; k < w->fn->fn.nparams; ++k) {
        if (w->fn->fn.params[k] == e) d->bits[k / 64] |= 1ull << (k % 64);
      }
      /* A let's var stands for its value, which the post order meets
       * first. */
      let_value *l = NULL;
      HASH_FIND_PTR(w->lets, &e, l);
      if (l) deps_union(w, d->bits, l->value);
      break;
    }
    case RT_IR_LET:
      deps_union(w, d->bits, e->let.body);
      break;
    case RT_IR_CALL: {
      const rt_ir_expr_t *callee = e->call.callee;
      const int32_t id = callee->kind == RT_IR_OP ? callee->op.op->id : -1;
      if (id == RT_OP_SHAPE_OF || id == RT_OP_NDARRAY_SIZE) break;
      for (int32_t a = 0; a < e->call.nargs; ++a) {
        const bool read = id >= 0 && (rt_ir_op_reads_value(id, a) || id == RT_OP_ARANGE);
        value_deps *ad = deps_of(w, e->call.args[a]);
        for (int32_t i = 0; ad && i < w->words; ++i) {
          d->bits[i] |= ad->bits[i];
          for (int32_t b = 0; read && b < 64; ++b) {
            if ((ad->bits[i] >> b) & 1u) w->mask[i * 64 + b] = true;
          }
        }
      }
      break;
    }
    case RT_IR_IF: {
      /* The branch taken is the condition's value: a parameter of at most
       * one element it depends on is read for its value (a larger one
       * would make every new input a new specialization). */
      value_deps *cd = deps_of(w, e->if_.cond);
      for (int32_t k = 0; cd && k < w->fn->fn.nparams; ++k) {
        if (!((cd->bits[k / 64] >> (k % 64)) & 1u)) continue;
        const rt_ir_type_t *t = rt_ir_type_resolve(w->fn->fn.params[k]->checked_type);
        bool small = t && t->kind == RT_IR_TYPE_TENSOR;
        for (int32_t i = 0; small && i < t->tensor.rank; ++i) small = t->tensor.shape[i] == 1;
        if (small) w->mask[k] = true;
      }
      deps_union(w, d->bits, e->if_.cond);
      deps_union(w, d->bits, e->if_.then_branch);
      deps_union(w, d->bits, e->if_.else_branch);
      break;
    }
    default: {
      /* Tuples, projections, functions: what their children depend on. */
      int32_t n = rt_ir_children(e, kids, 8);
      rt_ir_expr_t **all = kids;
      if (n > 8) {
        all = rt_mem_alloc((size_t)n * sizeof *all);
        if (!all) {
          rt_mem_free(d);
          return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory finding the value inputs");
        }
        n = rt_ir_children(e, all, n);
      }
      for (int32_t a = 0; a < n; ++a) deps_union(w, d->bits, all[a]);
      if (all != kids) rt_mem_free(all);
      break;
    }
  }
  HASH_ADD_PTR(w->map, key, d);
  if (w->oom) {
    rt_mem_free(d);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory finding the value inputs");
  }
  return RT_OK;
}

rt_status_t rt_ir_value_params(rt_allocator_t allocator, rt_ir_expr_t *fn, bool *out_mask) {
  const int32_t n = fn->fn.nparams;
  for (int32_t k = 0; k < n; ++k) out_mask[k] = false;
  if (n == 0) return RT_OK;
  value_walk w = {fn, (n + 63) / 64, NULL, NULL, false, out_mask};
  bool *mask = rt_mem_calloc((size_t)w.words * 64, sizeof *mask);
  if (!mask) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory finding the value inputs");
  w.mask = mask;
  rt_status_t st = rt_ir_post_order(allocator, fn->fn.body, let_visit, &w);
  if (!st) st = rt_ir_post_order(allocator, fn->fn.body, value_visit, &w);
  let_value *l, *ltmp;
  HASH_ITER(hh, w.lets, l, ltmp) {
    HASH_DEL(w.lets, l);
    rt_mem_free(l);
  }
  value_deps *d, *tmp;
  HASH_ITER(hh, w.map, d, tmp) {
    HASH_DEL(w.map, d);
    rt_mem_free(d);
  }
  for (int32_t k = 0; !st && k < n; ++k) out_mask[k] = mask[k];
  rt_mem_free(mask);
  return st;
}

/* ---- relations ----------------------------------------------------------- */

static bool is_int(rt_dtype_t d) {
  return (d.code == kDLInt || d.code == kDLUInt) && d.lanes == 1;
}

/* Operand i must be a 1-d int tensor; its length (maybe `?`) in *out_n. */
static rt_status_t int_vector(const rt_ir_rel_ctx_t *ctx, int32_t i, const char *what,
                              int64_t *out_n) {
  const rt_ir_type_t *t;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, i, &t));
  if (t->tensor.rank != 1 || !is_int(t->tensor.dtype)) {
    char name[RT_DTYPE_NAME_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "%s: %s must be a 1-d int tensor, got a rank-%d %s tensor",
                     ctx->op->name, what, (int)t->tensor.rank,
                     rt_dtype_name(t->tensor.dtype, name));
  }
  *out_n = t->tensor.shape[0];
  return RT_OK;
}

/* A 1-d int operand whose static length is the output's rank. */
static rt_status_t rank_vector(const rt_ir_rel_ctx_t *ctx, int32_t i, const char *what,
                               int32_t *out_n) {
  int64_t n = 0;
  RT_RETURN_IF_ERROR(int_vector(ctx, i, what, &n));
  if (n == RT_DIM_ANY) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: %s must have a static length (it gives the "
                     "output's rank), got `?`", ctx->op->name, what);
  }
  if (n > MAXR) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: %s has %lld values, past the rank limit %d",
                     ctx->op->name, what, (long long)n, MAXR);
  }
  *out_n = (int32_t)n;
  return RT_OK;
}

/* Operand i must hold one value (0-d or 1 element) of an int dtype, or of
 * any real dtype when `any_real`. */
static rt_status_t one_value(const rt_ir_rel_ctx_t *ctx, int32_t i, const char *what,
                             bool any_real) {
  const rt_ir_type_t *t;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, i, &t));
  bool one = t->tensor.rank == 0 || (t->tensor.rank == 1 && (t->tensor.shape[0] == 1 ||
                                                             t->tensor.shape[0] == RT_DIM_ANY));
  bool ok_dtype = is_int(t->tensor.dtype) || (any_real && t->tensor.dtype.code == kDLFloat);
  if (!one || !ok_dtype) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: %s must be one %s value (0-d, or 1-d of length 1)",
                     ctx->op->name, what, any_real ? "numeric" : "int");
  }
  return RT_OK;
}

static rt_status_t all_any(const rt_ir_rel_ctx_t *ctx, rt_dtype_t dtype, int32_t rank,
                           rt_ir_type_t **out_type) {
  int64_t dims[MAXR];
  for (int32_t d = 0; d < rank; ++d) dims[d] = RT_DIM_ANY;
  return rt_ir_op_make_tensor(ctx, dtype, rank, dims, out_type);
}

rt_status_t rt_ir_rel_dyn_strided_slice(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  static const char *const names[4] = {"begin", "end", "strides", "axes"};
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int64_t len = RT_DIM_ANY;
  for (int32_t i = 1; i <= 4; ++i) {
    int64_t n = 0;
    RT_RETURN_IF_ERROR(int_vector(ctx, i, names[i - 1], &n));
    if (n != RT_DIM_ANY && len != RT_DIM_ANY && n != len) {
      return RT_STATUS(INVALID_ARGUMENT, "dyn.strided_slice: begin, end, strides and axes "
                       "differ in length (%lld and %lld)", (long long)len, (long long)n);
    }
    if (n != RT_DIM_ANY) len = n;
  }
  return all_any(ctx, x->tensor.dtype, x->tensor.rank, out_type);
}

rt_status_t rt_ir_rel_dyn_pad(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *v;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int64_t n = 0;
  RT_RETURN_IF_ERROR(int_vector(ctx, 1, "pad_width", &n));
  if (n != RT_DIM_ANY && n != 2 * (int64_t)x->tensor.rank) {
    return RT_STATUS(INVALID_ARGUMENT, "dyn.nn.pad: pad_width must hold 2 values per dim "
                     "(%d), got %lld", 2 * (int)x->tensor.rank, (long long)n);
  }
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 2, &v));
  if (v->tensor.rank != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "dyn.nn.pad: pad_value must be a scalar, got rank %d",
                     (int)v->tensor.rank);
  }
  return all_any(ctx, x->tensor.dtype, x->tensor.rank, out_type);
}

rt_status_t rt_ir_rel_dyn_tile(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int32_t n = 0;
  RT_RETURN_IF_ERROR(rank_vector(ctx, 1, "reps", &n));
  return all_any(ctx, x->tensor.dtype, n > x->tensor.rank ? n : x->tensor.rank, out_type);
}

rt_status_t rt_ir_rel_dyn_broadcast_to(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int32_t n = 0;
  RT_RETURN_IF_ERROR(rank_vector(ctx, 1, "shape", &n));
  return all_any(ctx, x->tensor.dtype, n > x->tensor.rank ? n : x->tensor.rank, out_type);
}

rt_status_t rt_ir_rel_dyn_full(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *fill;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &fill));
  if (fill->tensor.rank != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "dyn.full: the fill value must be a scalar, got rank %d",
                     (int)fill->tensor.rank);
  }
  int32_t n = 0;
  RT_RETURN_IF_ERROR(rank_vector(ctx, 1, "shape", &n));
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", fill->tensor.dtype, &dt));
  return all_any(ctx, dt, n, out_type);
}

rt_status_t rt_ir_rel_dyn_topk(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(one_value(ctx, 1, "k", false));
  const rt_attrs_dyn_topk_t a = rt_ir_attrs_dyn_topk(ctx->attrs);
  if (x->tensor.rank < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s", "dyn.topk: the input must have rank >= 1, got a 0-d tensor");
  }
  int32_t axis = 0;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(a.axis, x->tensor.rank, &axis));
  if (!is_int(a.dtype)) {
    char name[RT_DTYPE_NAME_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "dyn.topk: dtype of the indices must be an integer type, "
                     "got %s", rt_dtype_name(a.dtype, name));
  }
  int64_t dims[MAXR];
  memcpy(dims, x->tensor.shape, sizeof(int64_t) * (size_t)x->tensor.rank);
  dims[axis] = RT_DIM_ANY;
  rt_ir_type_t *values = NULL, *indices = NULL;
  RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, x->tensor.dtype, x->tensor.rank, dims, &values));
  RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, a.dtype, x->tensor.rank, dims, &indices));
  if (strcmp(a.ret_type, "values") == 0) {
    *out_type = values;
    return RT_OK;
  }
  if (strcmp(a.ret_type, "indices") == 0) {
    *out_type = indices;
    return RT_OK;
  }
  if (strcmp(a.ret_type, "both") != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "dyn.topk: unknown ret_type \"%s\" (both, values, indices)",
                     a.ret_type);
  }
  rt_ir_type_t *fields[2] = {values, indices};
  return rt_ir_tuple_type(ctx->module, 2, fields, out_type);
}

rt_status_t rt_ir_rel_dyn_one_hot(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *idx, *on, *off;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &idx));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &on));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 2, &off));
  RT_RETURN_IF_ERROR(one_value(ctx, 3, "depth", true));
  if (!is_int(idx->tensor.dtype)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s", "dyn.one_hot: indices must be an int tensor");
  }
  if (on->tensor.rank != 0 || off->tensor.rank != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "%s", "dyn.one_hot: on_value and off_value must be scalars");
  }
  const int32_t r = idx->tensor.rank + 1;
  RT_RETURN_IF_ERROR(rt_ir_op_check_rank(r));
  int32_t axis = 0;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_ir_attrs_dyn_one_hot(ctx->attrs).axis, r, &axis));
  int64_t dims[MAXR];
  for (int32_t d = 0, k = 0; d < r; ++d) dims[d] = d == axis ? RT_DIM_ANY : idx->tensor.shape[k++];
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", on->tensor.dtype, &dt));
  return rt_ir_op_make_tensor(ctx, dt, r, dims, out_type);
}

rt_status_t rt_ir_rel_dyn_resize2d(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *s;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &s));
  const rt_attrs_dyn_resize2d_t a = rt_ir_attrs_dyn_resize2d(ctx->attrs);
  if (x->tensor.rank != 4) {
    return RT_STATUS(INVALID_ARGUMENT, "dyn.image.resize2d: the input must be 4-d, got rank %d",
                     (int)x->tensor.rank);
  }
  int32_t pos[4];
  RT_RETURN_IF_ERROR(rt_ir_op_layout_perm("dyn.image.resize2d", "layout", a.layout, "NCHW", pos));
  const int64_t n = s->tensor.rank == 1 ? s->tensor.shape[0] : -2;
  const bool real = is_int(s->tensor.dtype) || s->tensor.dtype.code == kDLFloat;
  if (!real || (n != 2 && n != 4 && n != RT_DIM_ANY)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s", "dyn.image.resize2d: size must be a 1-d tensor of 2 "
                     "(H, W) or 4 values (every dim): ints for sizes, floats for scales");
  }
  int64_t dims[4];
  memcpy(dims, x->tensor.shape, sizeof dims);
  dims[pos[2]] = RT_DIM_ANY;
  dims[pos[3]] = RT_DIM_ANY;
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "out_dtype", x->tensor.dtype, &dt));
  return rt_ir_op_make_tensor(ctx, dt, 4, dims, out_type);
}

/* dyn.expand_dims / dyn.squeeze: the rank attribute, against the input's. */
rt_status_t rt_ir_rel_dyn_rank(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int64_t n = 0;
  RT_RETURN_IF_ERROR(int_vector(ctx, 1, "axes", &n));
  const int64_t rank = rt_ir_attrs_dyn_rank(ctx->attrs).rank;
  const bool expand = ctx->op->id == RT_OP_DYN_EXPAND_DIMS;
  if (rank < 0 || rank > MAXR || (expand ? rank < x->tensor.rank : rank > x->tensor.rank)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: rank %lld cannot be the result of %s axes of a rank-%d "
                     "input", ctx->op->name, (long long)rank, expand ? "inserting" : "dropping",
                     (int)x->tensor.rank);
  }
  if (n != RT_DIM_ANY && (expand ? x->tensor.rank + n != rank : x->tensor.rank - n > rank)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: %lld axes of a rank-%d input cannot give rank %lld",
                     ctx->op->name, (long long)n, (int)x->tensor.rank, (long long)rank);
  }
  return all_any(ctx, x->tensor.dtype, (int32_t)rank, out_type);
}

rt_status_t rt_ir_rel_dyn_reduce(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int64_t n = 0;
  RT_RETURN_IF_ERROR(int_vector(ctx, 1, "axes", &n));
  const rt_attrs_dyn_reduce_t a = rt_ir_attrs_dyn_reduce(ctx->attrs);
  int64_t rank = x->tensor.rank;
  if (!a.keepdims) {
    if (a.rank_is_none) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: without keepdims the axes' values decide the "
                       "output's rank: give it as attribute rank", ctx->op->name);
    }
    rank = a.rank;
    if (rank < 0 || rank > x->tensor.rank) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: rank %lld cannot be the result of reducing a rank-%d "
                       "input", ctx->op->name, (long long)rank, (int)x->tensor.rank);
    }
  }
  return all_any(ctx, x->tensor.dtype, (int32_t)rank, out_type);
}

rt_status_t rt_ir_rel_dyn_split(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int64_t n = 0;
  RT_RETURN_IF_ERROR(int_vector(ctx, 1, "sizes", &n));
  if (n == RT_DIM_ANY || n < 1 || n > MAX_VALUES) {
    return RT_STATUS(INVALID_ARGUMENT, "dyn.split: sizes must have a static length from 1 to %d "
                     "(the number of pieces)", MAX_VALUES);
  }
  int32_t axis = 0;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_ir_attrs_dyn_split(ctx->attrs).axis, x->tensor.rank, &axis));
  int64_t dims[MAXR];
  memcpy(dims, x->tensor.shape, sizeof(int64_t) * (size_t)x->tensor.rank);
  dims[axis] = RT_DIM_ANY;
  rt_ir_type_t *fields[MAX_VALUES];
  for (int64_t i = 0; i < n; ++i) {
    RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, x->tensor.dtype, x->tensor.rank, dims, &fields[i]));
  }
  return rt_ir_tuple_type(ctx->module, (int32_t)n, fields, out_type);
}

rt_status_t rt_ir_rel_dyn_cumsum(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(one_value(ctx, 1, "axis", false));
  if (x->tensor.rank < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s", "dyn.cumsum: the input must have rank >= 1");
  }
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", x->tensor.dtype, &dt));
  if (dt.code == kDLBool) {
    return RT_STATUS(INVALID_ARGUMENT, "%s", "dyn.cumsum: a running sum of bool needs an integer "
                     "dtype (dtype=\"int32\")");
  }
  return rt_ir_op_retype(ctx, x, dt, out_type);
}

/* dyn.nn.dropout(x, ratio, training_mode): x's type; ratio one float
 * value, training_mode one bool (or int) value. */
rt_status_t rt_ir_rel_dyn_dropout(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *r, *t;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &r));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 2, &t));
  const char *bad = NULL;
  if (x->tensor.dtype.code != kDLFloat && x->tensor.dtype.code != kDLBfloat) {
    bad = "the input must be a float tensor";
  } else if (r->tensor.rank > 1 || (r->tensor.rank == 1 && r->tensor.shape[0] != 1) ||
             r->tensor.dtype.code != kDLFloat) {
    bad = "ratio must be one float value (0-d, or 1-d of length 1)";
  } else if (t->tensor.rank > 1 || (t->tensor.rank == 1 && t->tensor.shape[0] != 1) ||
             (t->tensor.dtype.code != kDLBool && !is_int(t->tensor.dtype))) {
    bad = "training_mode must be one bool value (0-d, or 1-d of length 1)";
  }
  if (bad) return RT_STATUS(INVALID_ARGUMENT, "dyn.nn.dropout: %s", bad);
  *out_type = ctx->args[0];
  return RT_OK;
}

/* ---- values -------------------------------------------------------------- */

static int64_t int_at(const rt_tensor_t *t, int64_t i) {
  const void *p = rt_tensor_data(t);
  const rt_dtype_t d = rt_tensor_dtype(t);
  const bool s = d.code == kDLInt;
  switch (d.bits) {
    case 8: return s ? ((const int8_t *)p)[i] : ((const uint8_t *)p)[i];
    case 16: return s ? ((const int16_t *)p)[i] : ((const uint16_t *)p)[i];
    case 32: return s ? (int64_t)((const int32_t *)p)[i] : (int64_t)((const uint32_t *)p)[i];
    default: {
      if (s) return ((const int64_t *)p)[i];
      uint64_t u = ((const uint64_t *)p)[i];
      return u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
    }
  }
}

/* The values of operand `what` (a 0-d or 1-d int tensor of at most cap). */
static rt_status_t read_ints(const rt_ir_op_t *op, const char *what, const rt_tensor_t *t,
                             int32_t cap, int64_t *out_v, int32_t *out_n) {
  if (!t) return RT_STATUS(INTERNAL, "%s: %s has no value", op->name, what);
  const rt_dtype_t d = rt_tensor_dtype(t);
  if (rt_tensor_rank(t) > 1 || !is_int(d) || !rt_tensor_is_compact(t)) {
    char name[RT_DTYPE_NAME_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "%s: %s must be a 0-d or 1-d int tensor, got a rank-%d %s "
                     "tensor", op->name, what, (int)rt_tensor_rank(t), rt_dtype_name(d, name));
  }
  const int64_t n = rt_tensor_numel(t);
  if (n > cap) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: %s has %lld values (at most %d)", op->name, what,
                     (long long)n, (int)cap);
  }
  for (int64_t i = 0; i < n; ++i) out_v[i] = int_at(t, i);
  *out_n = (int32_t)n;
  return RT_OK;
}

/* One int value (0-d or 1 element). */
static rt_status_t read_int(const rt_ir_op_t *op, const char *what, const rt_tensor_t *t,
                            int64_t *out) {
  int64_t v[1];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(read_ints(op, what, t, 1, v, &n));
  if (n != 1) return RT_STATUS(INVALID_ARGUMENT, "%s: %s must hold one value, got none", op->name, what);
  *out = v[0];
  return RT_OK;
}

/* ---- building the static attributes -------------------------------------- */

#define KV_MAX 12
#define KV_ITEMS (3 * MAX_VALUES)

typedef struct kv_t {
  int32_t n, nitems;
  const char *keys[KV_MAX];
  rt_attr_value_t vals[KV_MAX];
  rt_attr_value_t items[KV_ITEMS];
} kv_t;

static void kv_int(kv_t *kv, const char *key, int64_t v) {
  kv->keys[kv->n] = key;
  kv->vals[kv->n++] = (rt_attr_value_t){.kind = RT_ATTR_INT, .i = v};
}

static void kv_bool(kv_t *kv, const char *key, bool v) {
  kv->keys[kv->n] = key;
  kv->vals[kv->n++] = (rt_attr_value_t){.kind = RT_ATTR_BOOL, .b = v};
}

/* An array of ints, its items in kv's pool (an item of a caller's array
 * when `into` is given). */
static rt_attr_value_t ints_value(kv_t *kv, int32_t n, const int64_t *v) {
  rt_attr_value_t a = {.kind = RT_ATTR_ARRAY};
  a.array.items = &kv->items[kv->nitems];
  a.array.count = n;
  for (int32_t i = 0; i < n; ++i) kv->items[kv->nitems++] = (rt_attr_value_t){.kind = RT_ATTR_INT, .i = v[i]};
  return a;
}

static void kv_ints(kv_t *kv, const char *key, int32_t n, const int64_t *v) {
  kv->keys[kv->n] = key;
  kv->vals[kv->n++] = ints_value(kv, n, v);
}

/* Copies the dyn call's attribute `name` (same name in the static schema). */
static void kv_copy(kv_t *kv, const rt_ir_attrs_t *attrs, const char *name) {
  const rt_attr_value_t *v = rt_attrs_get(attrs, name);
  if (!v || v->kind == RT_ATTR_NONE) return;
  kv->keys[kv->n] = name;
  kv->vals[kv->n++] = *v;
}

/* Appends step op(attrs from kv) to out. */
static rt_status_t add_step(rt_module_t *m, rt_op_id_t id, const kv_t *kv, rt_ir_dyn_static_t *out) {
  if (out->nsteps >= RT_IR_DYN_MAX_STEPS) return RT_STATUS(INTERNAL, "%s", "too many static steps");
  const rt_ir_op_t *op = rt_ir_op_builtin(id);
  RT_RETURN_IF_ERROR(rt_ir_op_attrs(m, (rt_ir_span_t){0}, op, kv->n, kv->keys, kv->vals,
                                    &out->attrs[out->nsteps]));
  out->op[out->nsteps++] = op;
  return RT_OK;
}

static rt_status_t axis_error(const rt_ir_op_t *op, rt_status_t st) {
  if (!st) return RT_OK;
  rt_status_t r = RT_STATUS(INVALID_ARGUMENT, "%s: %s", op->name, rt_status_message(st));
  rt_status_free(st);
  return r;
}

/* Axes normalised for `rank`, sorted and checked distinct. */
static rt_status_t norm_axes(const rt_ir_op_t *op, int64_t *axes, int32_t n, int32_t rank) {
  for (int32_t i = 0; i < n; ++i) {
    int32_t a = 0;
    RT_RETURN_IF_ERROR(axis_error(op, rt_ir_op_axis(axes[i], rank, &a)));
    axes[i] = a;
  }
  for (int32_t i = 1; i < n; ++i) { /* insertion sort: at most 8 */
    int64_t v = axes[i];
    int32_t j = i - 1;
    for (; j >= 0 && axes[j] > v; --j) axes[j + 1] = axes[j];
    axes[j + 1] = v;
  }
  for (int32_t i = 1; i < n; ++i) {
    if (axes[i] == axes[i - 1]) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: axis %lld appears twice", op->name, (long long)axes[i]);
    }
  }
  return RT_OK;
}

static rt_status_t check_rank(const rt_ir_op_t *op, const rt_ir_attrs_t *attrs, int64_t got) {
  const int64_t want = rt_attrs_int(attrs, "rank");
  if (got != want) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: the axes give a rank-%lld result, but the rank "
                     "attribute (the model's declared output rank) is %lld", op->name,
                     (long long)got, (long long)want);
  }
  return RT_OK;
}

static void set_args(rt_ir_dyn_static_t *out, int32_t n, const int32_t *args) {
  out->nargs = n;
  for (int32_t i = 0; i < n; ++i) out->args[i] = args[i];
}

static rt_status_t static_slice(rt_module_t *m, const rt_ir_op_t *op, const rt_plan_input_t *in,
                                rt_ir_dyn_static_t *out) {
  static const char *const names[4] = {"begin", "end", "strides", "axes"};
  int64_t v[4][MAXR];
  int32_t n[4] = {0};
  for (int32_t i = 0; i < 4; ++i) {
    RT_RETURN_IF_ERROR(read_ints(op, names[i], in[i + 1].value, MAXR, v[i], &n[i]));
  }
  if (n[1] != n[0] || n[2] != n[0] || n[3] != n[0]) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: begin, end, strides and axes differ in length", op->name);
  }
  int64_t axes[MAXR];
  memcpy(axes, v[3], sizeof axes);
  RT_RETURN_IF_ERROR(norm_axes(op, axes, n[3], in[0].rank));
  for (int32_t i = 0; i < n[2]; ++i) {
    if (v[2][i] == 0) return RT_STATUS(INVALID_ARGUMENT, "%s: strides must not be 0", op->name);
  }
  kv_t kv = {0};
  kv_ints(&kv, "begin", n[0], v[0]);
  kv_ints(&kv, "end", n[1], v[1]);
  kv_ints(&kv, "strides", n[2], v[2]);
  kv_ints(&kv, "axes", n[3], v[3]);
  set_args(out, 1, (int32_t[]){0});
  return add_step(m, RT_OP_STRIDED_SLICE, &kv, out);
}

static rt_status_t static_pad(rt_module_t *m, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                              const rt_plan_input_t *in, rt_ir_dyn_static_t *out) {
  int64_t v[2 * MAXR];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(read_ints(op, "pad_width", in[1].value, 2 * MAXR, v, &n));
  const int32_t r = in[0].rank;
  if (n != 2 * r) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: pad_width must hold 2 values per dim (%d), got %d",
                     op->name, 2 * (int)r, (int)n);
  }
  kv_t kv = {0};
  rt_attr_value_t pw = {.kind = RT_ATTR_ARRAY};
  rt_attr_value_t *outer = &kv.items[kv.nitems];
  kv.nitems += r;
  for (int32_t d = 0; d < r; ++d) {
    if (v[d] < 0 || v[d + r] < 0) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: pad_width has a negative value for dim %d", op->name,
                       (int)d);
    }
    outer[d] = ints_value(&kv, 2, (int64_t[]){v[d], v[d + r]});
  }
  pw.array.items = outer;
  pw.array.count = r;
  kv.keys[kv.n] = "pad_width";
  kv.vals[kv.n++] = pw;
  kv_copy(&kv, attrs, "pad_mode");
  set_args(out, 2, (int32_t[]){0, 2});
  return add_step(m, RT_OP_NN_PAD, &kv, out);
}

static rt_status_t static_tile(rt_module_t *m, const rt_ir_op_t *op, const rt_plan_input_t *in,
                               rt_ir_dyn_static_t *out) {
  int64_t v[MAXR];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(read_ints(op, "reps", in[1].value, MAXR, v, &n));
  for (int32_t i = 0; i < n; ++i) {
    if (v[i] < 0) return RT_STATUS(INVALID_ARGUMENT, "%s: reps[%d] = %lld is negative", op->name, (int)i, (long long)v[i]);
  }
  kv_t kv = {0};
  kv_ints(&kv, "reps", n, v);
  set_args(out, 1, (int32_t[]){0});
  return add_step(m, RT_OP_TILE, &kv, out);
}

/* The target is broadcast(data's shape, shape): a `?` data dim against a
 * 1 in shape stays unknown without the data. */
static rt_status_t static_broadcast_to(rt_module_t *m, const rt_ir_op_t *op,
                                       const rt_plan_input_t *in, rt_ir_dyn_static_t *out) {
  int64_t v[MAXR], res[MAXR];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(read_ints(op, "shape", in[1].value, MAXR, v, &n));
  const int32_t xr = in[0].rank, r = n > xr ? n : xr;
  for (int32_t d = 0; d < r; ++d) {
    int32_t a = d - (r - xr), b = d - (r - n);
    int64_t x = a >= 0 ? in[0].shape[a] : 1, y = b >= 0 ? v[b] : 1;
    if (y < 0) return RT_STATUS(INVALID_ARGUMENT, "%s: shape has a negative dim %lld", op->name, (long long)y);
    if (x == RT_DIM_ANY && y == 1) return RT_OK; /* nsteps 0 */
    if (x != RT_DIM_ANY && x != 1 && y != 1 && x != y) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: dim %lld does not broadcast with %lld", op->name,
                       (long long)x, (long long)y);
    }
    res[d] = x == 1 ? y : y == 1 ? x : y;
  }
  kv_t kv = {0};
  kv_ints(&kv, "shape", r, res);
  set_args(out, 1, (int32_t[]){0});
  return add_step(m, RT_OP_BROADCAST_TO, &kv, out);
}

static rt_status_t static_full(rt_module_t *m, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                               const rt_plan_input_t *in, rt_ir_dyn_static_t *out) {
  int64_t v[MAXR];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(read_ints(op, "shape", in[1].value, MAXR, v, &n));
  for (int32_t i = 0; i < n; ++i) {
    if (v[i] < 0) return RT_STATUS(INVALID_ARGUMENT, "%s: shape has a negative dim %lld", op->name, (long long)v[i]);
  }
  kv_t kv = {0};
  kv_ints(&kv, "shape", n, v);
  kv_copy(&kv, attrs, "dtype");
  set_args(out, 1, (int32_t[]){0});
  return add_step(m, RT_OP_FULL, &kv, out);
}

static rt_status_t static_topk(rt_module_t *m, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                               const rt_plan_input_t *in, rt_ir_dyn_static_t *out) {
  int64_t k = 0;
  RT_RETURN_IF_ERROR(read_int(op, "k", in[1].value, &k));
  if (k < 1) {
    /* topk's k < 1 means the whole axis; here it is a count. */
    return RT_STATUS(INVALID_ARGUMENT, "%s: k must be >= 1, got %lld", op->name, (long long)k);
  }
  kv_t kv = {0};
  kv_int(&kv, "k", k);
  kv_copy(&kv, attrs, "axis");
  kv_copy(&kv, attrs, "ret_type");
  kv_copy(&kv, attrs, "is_ascend");
  kv_copy(&kv, attrs, "dtype");
  set_args(out, 1, (int32_t[]){0});
  return add_step(m, RT_OP_TOPK, &kv, out);
}

static rt_status_t static_one_hot(rt_module_t *m, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                                  const rt_plan_input_t *in, rt_ir_dyn_static_t *out) {
  const rt_tensor_t *t = in[3].value;
  if (!t) return RT_STATUS(INTERNAL, "%s: depth has no value", op->name);
  const rt_dtype_t d = rt_tensor_dtype(t);
  if (rt_tensor_numel(t) != 1 || rt_tensor_rank(t) > 1 || !(is_int(d) || d.code == kDLFloat)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: depth must be one numeric value", op->name);
  }
  const double f = rt_tensor_get_f64(t, 0);
  if (!(f >= 1 && f <= (double)INT32_MAX)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: depth must be >= 1, got %g", op->name, f);
  }
  kv_t kv = {0};
  kv_int(&kv, "depth", (int64_t)f);
  kv_copy(&kv, attrs, "axis");
  kv_copy(&kv, attrs, "dtype");
  set_args(out, 3, (int32_t[]){0, 1, 2});
  return add_step(m, RT_OP_ONE_HOT, &kv, out);
}

/* Sizes (ints) or scales (floats) of 2 (H, W) or 4 (every dim) values;
 * N and C must keep theirs. A scale s gives the size floor(in * s), as
 * ONNX's Resize, and image.resize2d's `scales` (H, W), which its
 * coordinate transform then uses. */
static rt_status_t static_resize(rt_module_t *m, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                                 const rt_plan_input_t *in, rt_ir_dyn_static_t *out) {
  const rt_tensor_t *t = in[1].value;
  if (!t) return RT_STATUS(INTERNAL, "%s: size has no value", op->name);
  const rt_attrs_dyn_resize2d_t a = rt_ir_attrs_dyn_resize2d(attrs);
  if (in[0].rank != 4) return RT_STATUS(INVALID_ARGUMENT, "%s: the input must be 4-d", op->name);
  int32_t pos[4];
  RT_RETURN_IF_ERROR(axis_error(op, rt_ir_op_layout_perm(op->name, "layout", a.layout, "NCHW", pos)));
  const rt_dtype_t d = rt_tensor_dtype(t);
  const int64_t n = rt_tensor_numel(t);
  if (rt_tensor_rank(t) != 1 || (n != 2 && n != 4) || !(is_int(d) || d.code == kDLFloat)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: size must be a 1-d tensor of 2 (H, W) or 4 values "
                     "(every dim), ints for sizes or floats for scales", op->name);
  }
  int64_t size[4];
  double scale[4] = {1, 1, 1, 1};
  for (int32_t k = 0; k < 4; ++k) {
    const int32_t dim = pos[k];
    const int64_t i = n == 4 ? dim : k - 2; /* the value of this dim, if any */
    const int64_t was = in[0].shape[dim];
    if (i < 0) {
      size[k] = was;
      continue;
    }
    if (is_int(d)) {
      size[k] = int_at(t, i);
    } else {
      const double s = rt_tensor_get_f64(t, i);
      if (!(s > 0)) return RT_STATUS(INVALID_ARGUMENT, "%s: scales must be > 0, got %g", op->name, s);
      if (was == RT_DIM_ANY) return RT_OK; /* nsteps 0: the size needs the dim */
      const double want = (double)was * s;
      if (!(want < 9e15)) {
        return RT_STATUS(INVALID_ARGUMENT, "%s: a scale of %g gives a size of %g, out of range", op->name,
                         s, want);
      }
      size[k] = (int64_t)floor(want);
      scale[k] = s;
    }
    if (size[k] < 1) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: output size %lld is not positive", op->name,
                       (long long)size[k]);
    }
    if (k < 2 && was != RT_DIM_ANY && size[k] != was) {
      return RT_STATUS(UNIMPLEMENTED, "%s: resizing the %c dim (%lld to %lld) is not supported",
                       op->name, "NC"[k], (long long)was, (long long)size[k]);
    }
  }
  kv_t kv = {0};
  kv_ints(&kv, "size", 2, size + 2);
  if (!is_int(d)) { /* the scales the coordinate transform uses */
    rt_attr_value_t *it = &kv.items[kv.nitems];
    for (int32_t k = 2; k < 4; ++k) kv.items[kv.nitems++] = (rt_attr_value_t){.kind = RT_ATTR_FLOAT, .f = scale[k]};
    kv.keys[kv.n] = "scales";
    kv.vals[kv.n++] = (rt_attr_value_t){.kind = RT_ATTR_ARRAY, .array = {.items = it, .count = 2}};
  }
  static const char *const copied[] = {"layout", "method", "coordinate_transformation_mode",
                                       "rounding_method", "cubic_alpha", "cubic_exclude",
                                       "extrapolation_value", "out_dtype"};
  for (size_t i = 0; i < RT_COUNTOF(copied); ++i) kv_copy(&kv, attrs, copied[i]);
  set_args(out, 1, (int32_t[]){0});
  return add_step(m, RT_OP_IMAGE_RESIZE2D, &kv, out);
}

/* One expand_dims per new axis, in ascending output position. */
static rt_status_t static_expand_dims(rt_module_t *m, const rt_ir_op_t *op,
                                      const rt_ir_attrs_t *attrs, const rt_plan_input_t *in,
                                      rt_ir_dyn_static_t *out) {
  int64_t axes[MAXR];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(read_ints(op, "axes", in[1].value, MAXR, axes, &n));
  const int64_t r = (int64_t)in[0].rank + n;
  if (r > MAXR) return RT_STATUS(INVALID_ARGUMENT, "%s: rank %lld is past the limit %d", op->name, (long long)r, MAXR);
  RT_RETURN_IF_ERROR(check_rank(op, attrs, r));
  RT_RETURN_IF_ERROR(norm_axes(op, axes, n, (int32_t)r));
  set_args(out, 1, (int32_t[]){0});
  out->out_rank = (int32_t)r;
  if (n == 0) { /* nothing to insert: a reshape to the same shape */
    const int64_t zeros[MAXR] = {0}; /* 0 copies the input's dim */
    kv_t kv = {0};
    kv_ints(&kv, "newshape", in[0].rank, zeros);
    return add_step(m, RT_OP_RESHAPE, &kv, out);
  }
  for (int32_t i = 0; i < n; ++i) {
    kv_t kv = {0};
    kv_int(&kv, "axis", axes[i]);
    RT_RETURN_IF_ERROR(add_step(m, RT_OP_EXPAND_DIMS, &kv, out));
  }
  return RT_OK;
}

/* Empty axes: every size-1 axis (squeeze's axis None). */
static rt_status_t static_squeeze(rt_module_t *m, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                                  const rt_plan_input_t *in, rt_ir_dyn_static_t *out) {
  int64_t axes[MAXR];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(read_ints(op, "axes", in[1].value, MAXR, axes, &n));
  RT_RETURN_IF_ERROR(norm_axes(op, axes, n, in[0].rank));
  kv_t kv = {0};
  int64_t got = in[0].rank - n;
  if (n == 0) {
    got = 0;
    for (int32_t d = 0; d < in[0].rank; ++d) {
      if (in[0].shape[d] == RT_DIM_ANY) return RT_OK; /* nsteps 0: which dims are 1? */
      got += in[0].shape[d] != 1;
    }
  } else {
    kv_ints(&kv, "axis", n, axes);
  }
  RT_RETURN_IF_ERROR(check_rank(op, attrs, got));
  set_args(out, 1, (int32_t[]){0});
  out->out_rank = (int32_t)got;
  return add_step(m, RT_OP_SQUEEZE, &kv, out);
}

static rt_status_t static_reduce(rt_module_t *m, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                                 const rt_plan_input_t *in, rt_ir_dyn_static_t *out) {
  static const rt_op_id_t kStatic[] = {RT_OP_SUM, RT_OP_MAX, RT_OP_MIN, RT_OP_MEAN, RT_OP_PROD};
  int64_t axes[MAXR];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(read_ints(op, "axes", in[1].value, MAXR, axes, &n));
  RT_RETURN_IF_ERROR(norm_axes(op, axes, n, in[0].rank));
  const rt_attrs_dyn_reduce_t a = rt_ir_attrs_dyn_reduce(attrs);
  kv_t kv = {0};
  if (n > 0) kv_ints(&kv, "axis", n, axes);
  kv_bool(&kv, "keepdims", a.keepdims);
  kv_bool(&kv, "exclude", a.exclude);
  int64_t got = in[0].rank;
  if (!a.keepdims) {
    got = n == 0 ? 0 : a.exclude ? n : in[0].rank - n;
    RT_RETURN_IF_ERROR(check_rank(op, attrs, got));
  }
  set_args(out, 1, (int32_t[]){0});
  out->out_rank = (int32_t)got;
  return add_step(m, kStatic[op->id - RT_OP_DYN_SUM], &kv, out);
}

/* sizes s0 .. s(n-1) are split's cut points s0, s0+s1, ... The last
 * piece is split's rest of the axis: checked to be s(n-1) when the dim is
 * known (always in the reference kernel); with a `?` axis the static form
 * cannot check it, as TVM's dyn.split -> split does not. */
static rt_status_t static_split(rt_module_t *m, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                                 const rt_plan_input_t *in, rt_ir_dyn_static_t *out) {
  int64_t v[MAX_VALUES], cuts[MAX_VALUES];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(read_ints(op, "sizes", in[1].value, MAX_VALUES, v, &n));
  if (n < 1) return RT_STATUS(INVALID_ARGUMENT, "%s: sizes must not be empty", op->name);
  int32_t axis = 0;
  RT_RETURN_IF_ERROR(axis_error(op, rt_ir_op_axis(rt_attrs_int(attrs, "axis"), in[0].rank, &axis)));
  int64_t acc = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (v[i] < 0) return RT_STATUS(INVALID_ARGUMENT, "%s: sizes[%d] = %lld is negative", op->name, (int)i, (long long)v[i]);
    if (v[i] > INT64_MAX - acc) return RT_STATUS(INVALID_ARGUMENT, "%s: sizes overflow", op->name);
    acc += v[i];
    if (i + 1 < n) cuts[i] = acc;
  }
  const int64_t dim = in[0].shape[axis];
  if (dim != RT_DIM_ANY && acc != dim) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: sizes add up to %lld, but axis %d has %lld", op->name,
                     (long long)acc, (int)axis, (long long)dim);
  }
  kv_t kv = {0};
  kv_ints(&kv, "indices_or_sections", n - 1, cuts);
  if (n == 1) kv.vals[0] = (rt_attr_value_t){.kind = RT_ATTR_INT, .i = 1};
  kv_int(&kv, "axis", axis);
  set_args(out, 1, (int32_t[]){0});
  return add_step(m, RT_OP_SPLIT, &kv, out);
}

static rt_status_t static_cumsum(rt_module_t *m, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                                 const rt_plan_input_t *in, rt_ir_dyn_static_t *out) {
  int64_t axis = 0;
  RT_RETURN_IF_ERROR(read_int(op, "axis", in[1].value, &axis));
  int32_t ax = 0;
  RT_RETURN_IF_ERROR(axis_error(op, rt_ir_op_axis(axis, in[0].rank, &ax)));
  const rt_attrs_dyn_scan_t a = rt_ir_attrs_dyn_scan(attrs);
  set_args(out, 1, (int32_t[]){0});
  kv_t rev = {0};
  kv_int(&rev, "axis", ax);
  if (a.reverse) RT_RETURN_IF_ERROR(add_step(m, RT_OP_REVERSE, &rev, out));
  kv_t kv = {0};
  kv_int(&kv, "axis", ax);
  kv_copy(&kv, attrs, "dtype");
  kv_bool(&kv, "exclusive", a.exclusive);
  RT_RETURN_IF_ERROR(add_step(m, RT_OP_CUMSUM, &kv, out));
  if (a.reverse) RT_RETURN_IF_ERROR(add_step(m, RT_OP_REVERSE, &rev, out));
  return RT_OK;
}

/* The identity (copy) when training_mode is false or ratio is 0: random
 * dropout is not supported, and says so naming the values. */
static rt_status_t static_dropout(rt_module_t *m, const rt_ir_op_t *op, const rt_plan_input_t *in,
                                  rt_ir_dyn_static_t *out) {
  if (rt_tensor_numel(in[1].value) != 1 || rt_tensor_numel(in[2].value) != 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: ratio and training_mode must hold one value each",
                     op->name);
  }
  double ratio = rt_tensor_get_f64(in[1].value, 0);
  bool training = rt_tensor_get_f64(in[2].value, 0) != 0;
  if (!(ratio >= 0 && ratio < 1)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: ratio %g is not in [0, 1)", op->name, ratio);
  }
  if (training && ratio != 0) {
    return RT_STATUS(UNIMPLEMENTED, "%s: training_mode with ratio %g (random dropout) is not "
                     "supported", op->name, ratio);
  }
  kv_t kv = {0};
  set_args(out, 1, (int32_t[]){0});
  return add_step(m, RT_OP_COPY, &kv, out);
}

static rt_status_t static_reshape(rt_module_t *m, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                                  const rt_plan_input_t *in, rt_ir_dyn_static_t *out) {
  int64_t v[MAXR];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(read_ints(op, "newshape", in[1].value, MAXR, v, &n));
  for (int32_t i = 0; i < n; ++i) {
    if (v[i] < -1) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: newshape[%d] = %lld is not a size, 0 or -1", op->name,
                       (int)i, (long long)v[i]);
    }
  }
  kv_t kv = {0};
  kv_ints(&kv, "newshape", n, v);
  kv_copy(&kv, attrs, "allowzero");
  set_args(out, 1, (int32_t[]){0});
  return add_step(m, RT_OP_RESHAPE, &kv, out);
}

rt_status_t rt_ir_dyn_static(rt_module_t *m, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                             int32_t n, const rt_plan_input_t *in, rt_ir_dyn_static_t *out) {
  memset(out, 0, sizeof *out);
  out->out_rank = -1;
  const uint32_t mask = value_mask(op->id);
  if (!mask || op->custom) return RT_STATUS(INVALID_ARGUMENT, "%s is not a dyn op", op->name);
  if (n != op->num_inputs) {
    return RT_STATUS(INVALID_ARGUMENT, "%s takes %d arguments, got %d", op->name,
                     (int)op->num_inputs, (int)n);
  }
  switch (op->id) {
    case RT_OP_DYN_RESHAPE: return static_reshape(m, op, attrs, in, out);
    case RT_OP_DYN_STRIDED_SLICE: return static_slice(m, op, in, out);
    case RT_OP_DYN_NN_PAD: return static_pad(m, op, attrs, in, out);
    case RT_OP_DYN_TILE: return static_tile(m, op, in, out);
    case RT_OP_DYN_BROADCAST_TO: return static_broadcast_to(m, op, in, out);
    case RT_OP_DYN_FULL: return static_full(m, op, attrs, in, out);
    case RT_OP_DYN_TOPK: return static_topk(m, op, attrs, in, out);
    case RT_OP_DYN_ONE_HOT: return static_one_hot(m, op, attrs, in, out);
    case RT_OP_DYN_IMAGE_RESIZE2D: return static_resize(m, op, attrs, in, out);
    case RT_OP_DYN_EXPAND_DIMS: return static_expand_dims(m, op, attrs, in, out);
    case RT_OP_DYN_SQUEEZE: return static_squeeze(m, op, attrs, in, out);
    case RT_OP_DYN_SUM:
    case RT_OP_DYN_MAX:
    case RT_OP_DYN_MIN:
    case RT_OP_DYN_MEAN:
    case RT_OP_DYN_PROD: return static_reduce(m, op, attrs, in, out);
    case RT_OP_DYN_SPLIT: return static_split(m, op, attrs, in, out);
    case RT_OP_DYN_CUMSUM: return static_cumsum(m, op, attrs, in, out);
    case RT_OP_DYN_NN_DROPOUT: return static_dropout(m, op, in, out);
    default: return RT_STATUS(INVALID_ARGUMENT, "%s is not a dyn op", op->name);
  }
}

/* ---- DynamicToStatic's rewrite ------------------------------------------- */

/* The tensor type an operand had: its own (a rebuilt node has none yet)
 * or the original's, whose shape the rewrite can only have made more
 * static. NULL when neither is a tensor type. */
static const rt_ir_type_t *type_of(const rt_ir_expr_t *rebuilt, const rt_ir_expr_t *original) {
  const rt_ir_type_t *t = rebuilt->checked_type ? rebuilt->checked_type : original->checked_type;
  if (t) t = rt_ir_type_resolve((rt_ir_type_t *)t);
  return t && t->kind == RT_IR_TYPE_TENSOR ? t : NULL;
}

/* The value of a value operand when the rewrite can know it: a constant
 * (borrowed), or shape_of of a tensor of a static shape (computed here,
 * *out_owned set: TVM's FoldConstant folds that case, relayrt's leaves it
 * to this pass). NULL otherwise. */
static rt_status_t known_value(rt_module_t *m, const rt_ir_expr_t *rebuilt, const rt_ir_expr_t *original,
                               const rt_tensor_t **out, rt_tensor_t **out_owned) {
  *out = NULL;
  *out_owned = NULL;
  if (rebuilt->kind == RT_IR_CONSTANT) {
    *out = rebuilt->constant.value;
    return RT_OK;
  }
  if (rebuilt->kind != RT_IR_CALL || rebuilt->call.callee->kind != RT_IR_OP ||
      rebuilt->call.callee->op.op->id != RT_OP_SHAPE_OF || rebuilt->call.nargs != 1) {
    return RT_OK;
  }
  const rt_ir_expr_t *orig_arg = original->kind == RT_IR_CALL && original->call.nargs == 1
                                     ? original->call.args[0] : rebuilt->call.args[0];
  const rt_ir_type_t *t = type_of(rebuilt->call.args[0], orig_arg);
  if (!t) return RT_OK;
  for (int32_t d = 0; d < t->tensor.rank; ++d) {
    if (t->tensor.shape[d] == RT_DIM_ANY) return RT_OK;
  }
  const rt_attrs_shape_of_t a = rt_ir_attrs_shape_of(rebuilt->call.attrs);
  const rt_dtype_t dt = a.dtype.bits == 0 ? RT_DTYPE_INT32 : a.dtype;
  if (!is_int(dt)) return RT_OK; /* shape_of's relation says what is wrong */
  int64_t n = t->tensor.rank;
  rt_tensor_t *v = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(m->allocator, RT_DTYPE_INT64, 1, &n, &v));
  for (int64_t d = 0; d < n; ++d) ((int64_t *)rt_tensor_data(v))[d] = t->tensor.shape[d];
  *out = *out_owned = v;
  return RT_OK;
}

static rt_status_t to_static(void *user, rt_ir_expr_t *original, rt_ir_expr_t *rebuilt,
                             rt_ir_expr_t **out) {
  rt_module_t *m = user;
  *out = rebuilt;
  if (rebuilt->kind != RT_IR_CALL || rebuilt->call.callee->kind != RT_IR_OP) return RT_OK;
  const rt_ir_op_t *op = rebuilt->call.callee->op.op;
  if (op->custom || !value_mask(op->id) || rebuilt->call.nargs != op->num_inputs) return RT_OK;
  rt_plan_input_t in[8];
  rt_tensor_t *owned[8] = {0};
  const int32_t n = rebuilt->call.nargs;
  if (n > 8 || original->kind != RT_IR_CALL || original->call.nargs != n) return RT_OK;
  rt_status_t st = RT_OK;
  bool known = true;
  for (int32_t i = 0; i < n && known && !st; ++i) {
    const rt_ir_expr_t *a = rebuilt->call.args[i], *o = original->call.args[i];
    if (rt_ir_op_reads_value(op->id, i)) {
      const rt_tensor_t *v = NULL;
      st = known_value(m, a, o, &v, &owned[i]);
      known = v != NULL;
      if (known) rt_ir_plan_input_of_tensor(v, &in[i]);
      continue;
    }
    const rt_ir_type_t *t = type_of(a, o);
    known = t != NULL;
    if (known) rt_ir_plan_input_of_type(t, &in[i]);
  }
  rt_ir_dyn_static_t s = {0};
  if (!st && known) st = rt_ir_dyn_static(m, op, rebuilt->call.attrs, n, in, &s);
  for (int32_t i = 0; i < n; ++i) rt_tensor_release(owned[i]);
  if (st || !known || s.nsteps == 0) return st;
  rt_ir_expr_t *args[4];
  for (int32_t i = 0; i < s.nargs; ++i) args[i] = rebuilt->call.args[s.args[i]];
  rt_ir_expr_t *e = NULL;
  for (int32_t k = 0; k < s.nsteps; ++k) {
    rt_ir_expr_t *callee = NULL;
    RT_RETURN_IF_ERROR(rt_ir_op_ref(m, rebuilt->span, s.op[k], &callee));
    if (k == 0) {
      RT_RETURN_IF_ERROR(rt_ir_call(m, rebuilt->span, callee, s.nargs, args, s.attrs[k], &e));
    } else {
      RT_RETURN_IF_ERROR(rt_ir_call(m, rebuilt->span, callee, 1, &e, s.attrs[k], &e));
    }
  }
  e->binding = rebuilt->binding;
  *out = e;
  return RT_OK;
}

rt_status_t rt_ir_dyn_to_static(rt_module_t *m, rt_ir_expr_t *root, rt_ir_expr_t **out_root) {
  return rt_ir_mutate(m, root, to_static, m, out_root);
}
