/* The list and option ops on interpreter values (ir/ops.def family adt;
 * relations in ir/op/list.c).
 *
 * A list value holds its elements as a tuple does (rt_interp_value_t
 * `tuple`), an option none or one value. Values are immutable, so
 * insert and erase build a new list sharing the elements (one more
 * reference each), never copying a tensor. list.concat and list.split copy
 * rows of compact tensors: for an axis `a` of a row-major tensor, the
 * elements before `a` are `outer` rows, each holding dim[a] slices of
 * `inner` elements after it, so a piece of `len` slices at offset `o` is
 * `outer` runs of len * inner elements. Positions follow ONNX: negative
 * ones count from the end, out of range is INVALID_ARGUMENT naming the op.
 *
 * The ops' entries in the reference-kernel table (rt_interp_k_LIST_* ...)
 * are never called: the evaluator sends these ops here first, with their
 * argument values, since a list is not a flat set of tensors. */
#include <string.h>

#include "interp/interp_impl.h"
#include "interp/kernels/kernels_impl.h"
#include "ir/op/op_attrs.h"
#include "ir/op/plan.h"
#include "runtime/mem.h"
#include "runtime/assert.h"

#define MAXR RT_TENSOR_MAX_RANK
#define MAX_ELEMS (1 << 24) /* elements of one list */

bool rt_interp_is_adt_op(const rt_ir_op_t *op) {
  switch (op->id) {
    case RT_OP_LIST_EMPTY:
    case RT_OP_LIST_CONSTRUCT:
    case RT_OP_LIST_AT:
    case RT_OP_LIST_LENGTH:
    case RT_OP_LIST_INSERT:
    case RT_OP_LIST_ERASE:
    case RT_OP_LIST_CONCAT:
    case RT_OP_LIST_SPLIT:
    case RT_OP_OPTION_SOME:
    case RT_OP_OPTION_NONE:
    case RT_OP_OPTION_IS_SOME:
    case RT_OP_OPTION_GET:
      return true;
    default:
      return false;
  }
}

static rt_status_t want(const rt_ir_op_t *op, const rt_interp_value_t *v,
                        rt_interp_value_kind_t kind, int32_t i) {
  if (v->kind == kind) return RT_OK;
  static const char *const names[] = {"a tensor", "a tuple", "a closure", "a list", "an option"};
  return RT_STATUS(INVALID_ARGUMENT, "argument %d of %s must be %s", (int)i + 1, op->name,
                   names[kind]);
}

/* A position operand: a 0-d or 1-element int tensor, normalised against
 * `n` (negative counts from the end) into 0..n-1, or 0..n with `append`. */
static rt_status_t position(const rt_ir_op_t *op, const rt_interp_value_t *v, int64_t n,
                            bool append, int64_t *out) {
  RT_RETURN_IF_ERROR(want(op, v, RT_INTERP_TENSOR, 1));
  const rt_tensor_t *t = v->tensor;
  rt_dtype_t d = rt_tensor_dtype(t);
  if (d.code != kDLInt || rt_tensor_numel(t) != 1) {
    return RT_STATUS(INVALID_ARGUMENT, "the position of %s must be one int", op->name);
  }
  int64_t p = (int64_t)rt_tensor_get_f64(t, 0);
  if (d.bits == 64) {
    /* Above 2^53 a double loses bits: read the int64 itself. */
    if (rt_tensor_is_compact(t)) memcpy(&p, rt_tensor_data(t), sizeof p);
  }
  int64_t hi = append ? n : n - 1;
  if (p < -n || p > hi) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: position %lld is out of range for a list of %lld "
                     "(accepted: %lld to %lld)", op->name, (long long)p, (long long)n,
                     (long long)-n, (long long)hi);
  }
  *out = p < 0 ? p + n : p;
  return RT_OK;
}

static rt_status_t compact(rt_interp_t *it, rt_tensor_t *t, rt_tensor_t **out) {
  if (rt_tensor_is_compact(t)) {
    rt_tensor_retain(t);
    *out = t;
    return RT_OK;
  }
  return rt_tensor_clone(it->allocator, t, out);
}

static void rows(const int64_t *shape, int32_t rank, int32_t axis, int64_t *outer,
                 int64_t *inner) {
  *outer = 1;
  *inner = 1;
  for (int32_t i = 0; i < axis; ++i) *outer *= shape[i];
  for (int32_t i = axis + 1; i < rank; ++i) *inner *= shape[i];
}

/* list.concat: the elements joined along `axis`, or stacked on a new one. */
static rt_status_t concat(rt_interp_t *it, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                          const rt_interp_value_t *list, rt_interp_value_t **out) {
  rt_attrs_list_concat_t at = rt_ir_attrs_list_concat(attrs);
  int32_t n = list->tuple.count;
  if (n == 0) return RT_STATUS(INVALID_ARGUMENT, "%s of an empty list", op->name);
  for (int32_t i = 0; i < n; ++i) RT_RETURN_IF_ERROR(want(op, list->tuple.fields[i],
                                                          RT_INTERP_TENSOR, 0));
  const rt_tensor_t *first = list->tuple.fields[0]->tensor;
  rt_dtype_t dt = rt_tensor_dtype(first);
  int32_t r = rt_tensor_rank(first), rank = at.new_axis ? r + 1 : r;
  int32_t axis = 0;
  if (rank < 1 || rank > MAXR) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: the elements must have rank >= 1", op->name);
  }
  RT_RETURN_IF_ERROR(rt_ir_op_axis(at.axis, rank, &axis));
  /* The elements' shapes as `rank`-d shapes (a 1 inserted at the new axis). */
  int64_t shape[MAXR];
  for (int32_t d = 0, k = 0; d < rank; ++d) {
    shape[d] = at.new_axis && d == axis ? 1 : rt_tensor_shape(first)[k++];
  }
  int64_t total = 0;
  for (int32_t i = 0; i < n; ++i) {
    const rt_tensor_t *t = list->tuple.fields[i]->tensor;
    if (!rt_dtype_equal(rt_tensor_dtype(t), dt) || rt_tensor_rank(t) != r) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: element %d differs from element 0 in dtype or rank",
                       op->name, (int)i);
    }
    for (int32_t d = 0, k = 0; d < rank; ++d) {
      int64_t dim = at.new_axis && d == axis ? 1 : rt_tensor_shape(t)[k++];
      if (d == axis) {
        total += dim;
      } else if (dim != shape[d]) {
        return RT_STATUS(INVALID_ARGUMENT, "%s: element %d's dim %d is %lld, element 0's %lld",
                         op->name, (int)i, (int)(at.new_axis && d > axis ? d - 1 : d),
                         (long long)dim, (long long)shape[d]);
      }
    }
  }
  shape[axis] = total;
  rt_tensor_t *o = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(it->allocator, dt, rank, shape, &o));
  int64_t outer, inner;
  rows(shape, rank, axis, &outer, &inner);
  size_t es = rt_dtype_size(dt);
  rt_status_t st = RT_OK;
  int64_t offset = 0;
  for (int32_t i = 0; i < n && !st; ++i) {
    rt_tensor_t *c = NULL;
    st = compact(it, list->tuple.fields[i]->tensor, &c);
    if (st) break;
    int64_t len = at.new_axis ? 1 : rt_tensor_shape(c)[axis];
    const char *src = rt_tensor_data(c);
    char *dst = rt_tensor_data(o);
    size_t run = (size_t)(len * inner) * es;
    for (int64_t row = 0; row < outer && run > 0; ++row) {
      memcpy(dst + (size_t)((row * total + offset) * inner) * es, src + (size_t)row * run, run);
    }
    offset += len;
    rt_tensor_release(c);
  }
  if (!st) st = rt_interp_value_tensor(it->allocator, o, out);
  rt_tensor_release(o);
  return st;
}

/* The pieces' lengths along the axis of extent `dim`, from split's value. */
static rt_status_t split_lengths(const rt_ir_op_t *op, const rt_tensor_t *s, int64_t dim,
                                 int64_t **out_lens, int64_t *out_n) {
  int64_t n = 0, size = 1;
  bool each = false;
  if (rt_tensor_rank(s) == 0) {
    size = (int64_t)rt_tensor_get_f64(s, 0);
    if (size < 1) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: a 0-d split must be positive, got %lld", op->name,
                       (long long)size);
    }
    n = dim == 0 ? 0 : (dim + size - 1) / size;
  } else if (rt_tensor_numel(s) == 0) {
    n = dim;
  } else {
    each = true;
    n = rt_tensor_numel(s);
  }
  if (n > MAX_ELEMS) return RT_STATUS(RESOURCE_EXHAUSTED, "%s: too many pieces", op->name);
  int64_t *lens = rt_mem_calloc(n > 0 ? (size_t)n : 1, sizeof(int64_t));
  if (!lens) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in %s", op->name);
  int64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    lens[i] = each ? (int64_t)rt_tensor_get_f64(s, i) : size;
    if (!each && i == n - 1) lens[i] = dim - sum;
    if (lens[i] < 0) {
      rt_mem_free(lens);
      return RT_STATUS(INVALID_ARGUMENT, "%s: split %lld is negative", op->name,
                       (long long)lens[i]);
    }
    sum += lens[i];
  }
  if (sum != dim) {
    rt_mem_free(lens);
    return RT_STATUS(INVALID_ARGUMENT, "%s: the split sizes add up to %lld, the axis has %lld",
                     op->name, (long long)sum, (long long)dim);
  }
  *out_lens = lens;
  *out_n = n;
  return RT_OK;
}

static rt_status_t split(rt_interp_t *it, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                         rt_interp_value_t *const *args, rt_interp_value_t **out) {
  RT_RETURN_IF_ERROR(want(op, args[0], RT_INTERP_TENSOR, 0));
  RT_RETURN_IF_ERROR(want(op, args[1], RT_INTERP_TENSOR, 1));
  rt_attrs_list_split_t at = rt_ir_attrs_list_split(attrs);
  const rt_tensor_t *s = args[1]->tensor;
  if (rt_tensor_dtype(s).code != kDLInt || rt_tensor_rank(s) > 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: split must be a 0-d or 1-d int tensor", op->name);
  }
  rt_tensor_t *x = NULL;
  RT_RETURN_IF_ERROR(compact(it, args[0]->tensor, &x));
  int32_t rank = rt_tensor_rank(x), axis = 0;
  rt_status_t st = rank < 1 ? RT_STATUS(INVALID_ARGUMENT, "%s: the input must have rank >= 1",
                                        op->name)
                            : rt_ir_op_axis(at.axis, rank, &axis);
  int64_t *lens = NULL, n = 0;
  const int64_t *shape = rt_tensor_shape(x);
  if (!st) st = split_lengths(op, s, shape[axis], &lens, &n);
  bool drop = !st && rt_tensor_numel(s) == 0 && rt_tensor_rank(s) == 1 && !at.keepdims;
  rt_interp_value_t **items = NULL;
  int64_t made = 0;
  if (!st && n > 0) {
    items = rt_mem_calloc((size_t)n, sizeof *items);
    if (!items) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in %s", op->name);
  }
  int64_t outer = 0, inner = 0;
  if (!st) rows(shape, rank, axis, &outer, &inner);
  size_t es = rt_dtype_size(rt_tensor_dtype(x));
  int64_t offset = 0;
  for (; !st && made < n; ++made) {
    int64_t pshape[MAXR];
    memcpy(pshape, shape, sizeof(int64_t) * (size_t)rank);
    pshape[axis] = lens[made];
    rt_tensor_t *p = NULL;
    if (drop) memmove(pshape + axis, pshape + axis + 1, sizeof(int64_t) * (size_t)(rank - axis - 1));
    st = rt_tensor_create(it->allocator, rt_tensor_dtype(x), drop ? rank - 1 : rank, pshape, &p);
    if (st) break;
    size_t run = (size_t)(lens[made] * inner) * es;
    const char *src = rt_tensor_data(x);
    char *dst = rt_tensor_data(p);
    for (int64_t row = 0; row < outer && run > 0; ++row) {
      memcpy(dst + (size_t)row * run, src + (size_t)((row * shape[axis] + offset) * inner) * es,
             run);
    }
    offset += lens[made];
    st = rt_interp_value_tensor(it->allocator, p, &items[made]);
    rt_tensor_release(p);
    if (st) break;
  }
  if (!st) st = rt_interp_value_adt(it->allocator, RT_INTERP_LIST, (int32_t)n, items, out);
  for (int64_t i = 0; i < made; ++i) rt_interp_value_release(items[i]);
  rt_mem_free(items);
  rt_mem_free(lens);
  rt_tensor_release(x);
  return st;
}

/* A list of `n` items where [0, at) come from src, then `ins` (if any),
 * then src's from `from` on. */
static rt_status_t rebuild(rt_interp_t *it, const rt_interp_value_t *src, int64_t at,
                           rt_interp_value_t *ins, int64_t from, rt_interp_value_t **out) {
  int64_t n = at + (ins ? 1 : 0) + (src->tuple.count - from);
  if (n > MAX_ELEMS) return RT_STATUS(RESOURCE_EXHAUSTED, "a list of %lld elements is too long",
                                      (long long)n);
  rt_interp_value_t **items = rt_mem_calloc(n > 0 ? (size_t)n : 1, sizeof *items);
  if (!items) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory building a list");
  int64_t k = 0;
  for (int64_t i = 0; i < at; ++i) items[k++] = src->tuple.fields[i];
  if (ins) items[k++] = ins;
  for (int64_t i = from; i < src->tuple.count; ++i) items[k++] = src->tuple.fields[i];
  rt_status_t st = rt_interp_value_adt(it->allocator, RT_INTERP_LIST, (int32_t)n, items, out);
  rt_mem_free(items);
  return st;
}

rt_status_t rt_interp_adt_apply(rt_interp_t *it, const rt_ir_op_t *op,
                                const rt_ir_attrs_t *attrs, int32_t nargs,
                                rt_interp_value_t *const *args, rt_interp_value_t **out) {
  RT_ASSERT(nargs == op->num_inputs);
  (void)nargs;
  switch (op->id) {
    case RT_OP_LIST_EMPTY:
      return rt_interp_value_adt(it->allocator, RT_INTERP_LIST, 0, NULL, out);
    case RT_OP_OPTION_NONE:
      return rt_interp_value_adt(it->allocator, RT_INTERP_OPTION, 0, NULL, out);
    case RT_OP_OPTION_SOME:
      return rt_interp_value_adt(it->allocator, RT_INTERP_OPTION, 1, args, out);
    case RT_OP_LIST_CONSTRUCT:
      RT_RETURN_IF_ERROR(want(op, args[0], RT_INTERP_TUPLE, 0));
      return rt_interp_value_adt(it->allocator, RT_INTERP_LIST, args[0]->tuple.count,
                                 args[0]->tuple.fields, out);
    case RT_OP_LIST_LENGTH: {
      RT_RETURN_IF_ERROR(want(op, args[0], RT_INTERP_LIST, 0));
      rt_tensor_t *t = NULL;
      RT_RETURN_IF_ERROR(rt_tensor_create(it->allocator, (rt_dtype_t){kDLInt, 64, 1}, 0, NULL, &t));
      *(int64_t *)rt_tensor_data(t) = args[0]->tuple.count;
      rt_status_t st = rt_interp_value_tensor(it->allocator, t, out);
      rt_tensor_release(t);
      return st;
    }
    case RT_OP_LIST_AT: {
      RT_RETURN_IF_ERROR(want(op, args[0], RT_INTERP_LIST, 0));
      int64_t p = 0;
      RT_RETURN_IF_ERROR(position(op, args[1], args[0]->tuple.count, false, &p));
      *out = args[0]->tuple.fields[p];
      rt_interp_value_retain(*out);
      return RT_OK;
    }
    case RT_OP_LIST_INSERT: {
      RT_RETURN_IF_ERROR(want(op, args[0], RT_INTERP_LIST, 0));
      int64_t p = 0;
      RT_RETURN_IF_ERROR(position(op, args[2], args[0]->tuple.count, true, &p));
      return rebuild(it, args[0], p, args[1], p, out);
    }
    case RT_OP_LIST_ERASE: {
      RT_RETURN_IF_ERROR(want(op, args[0], RT_INTERP_LIST, 0));
      int64_t p = 0;
      RT_RETURN_IF_ERROR(position(op, args[1], args[0]->tuple.count, false, &p));
      return rebuild(it, args[0], p, NULL, p + 1, out);
    }
    case RT_OP_LIST_CONCAT:
      RT_RETURN_IF_ERROR(want(op, args[0], RT_INTERP_LIST, 0));
      return concat(it, op, attrs, args[0], out);
    case RT_OP_LIST_SPLIT:
      return split(it, op, attrs, args, out);
    case RT_OP_OPTION_IS_SOME: {
      RT_RETURN_IF_ERROR(want(op, args[0], RT_INTERP_OPTION, 0));
      rt_tensor_t *t = NULL;
      RT_RETURN_IF_ERROR(rt_tensor_create(it->allocator, (rt_dtype_t){kDLBool, 8, 1}, 0, NULL, &t));
      *(uint8_t *)rt_tensor_data(t) = args[0]->tuple.count > 0;
      rt_status_t st = rt_interp_value_tensor(it->allocator, t, out);
      rt_tensor_release(t);
      return st;
    }
    case RT_OP_OPTION_GET:
      RT_RETURN_IF_ERROR(want(op, args[0], RT_INTERP_OPTION, 0));
      if (args[0]->tuple.count == 0) {
        return RT_STATUS(INVALID_ARGUMENT, "%s of an empty option", op->name);
      }
      *out = args[0]->tuple.fields[0];
      rt_interp_value_retain(*out);
      return RT_OK;
    default:
      return RT_STATUS(INTERNAL, "%s is not a list or option op", op->name);
  }
}

/* The reference-kernel table's entries (interp/kernels/table.c): never
 * called, the evaluator runs these ops on values above. */
#define ADT_KERNEL(ID)                                                              \
  rt_status_t rt_interp_k_##ID(const rt_interp_call_t *call) {                      \
    return RT_STATUS(INTERNAL, "%s runs on values (interp/list.c), not as a kernel", \
                     call->op->name);                                               \
  }
ADT_KERNEL(LIST_EMPTY)
ADT_KERNEL(LIST_CONSTRUCT)
ADT_KERNEL(LIST_AT)
ADT_KERNEL(LIST_LENGTH)
ADT_KERNEL(LIST_INSERT)
ADT_KERNEL(LIST_ERASE)
ADT_KERNEL(LIST_CONCAT)
ADT_KERNEL(LIST_SPLIT)
ADT_KERNEL(OPTION_SOME)
ADT_KERNEL(OPTION_NONE)
ADT_KERNEL(OPTION_IS_SOME)
ADT_KERNEL(OPTION_GET)
