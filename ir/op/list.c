/* The list and option ops (ir/ops.def, family adt): type relations of the
 * ops on the built-in ADTs List[T] and Option[T] (ir/ir.h).
 *
 * A list's element type is one type for every element: where elements
 * differ (a list built of tensors of different shapes, an insert of
 * another shape) it is their join (rt_ir_type_join: differing dims become
 * `?`); a dtype or rank that differs is an error, as in ONNX, whose
 * sequences hold tensors of one element type. An empty list or option made
 * from nothing (list.empty, option.none) states its element's dtype and
 * rank as attributes, its dims `?`; a list whose element type is open
 * (`_`: an ONNX sequence input declared without shapes) stays open, and
 * list.insert's result holds tensors of the inserted value's dtype and rank,
 * `?` dims. Positions are 0-d or 1-element int32
 * or int64 tensors (their values are checked when the op runs: interp/list.c).
 * Results of list.concat and list.split have `?` along the axis: the
 * number of elements is known only at run time. */
#include <stdio.h>
#include <string.h>

#include "ir/op/op_impl.h"

#define MAXR RT_TENSOR_MAX_RANK

static rt_ir_type_t *arg(const rt_ir_rel_ctx_t *ctx, int32_t i) {
  return rt_ir_type_resolve(ctx->args[i]);
}

static rt_status_t adt_arg(const rt_ir_rel_ctx_t *ctx, int32_t i, rt_ir_type_kind_t kind,
                           rt_ir_type_t **out_elem) {
  rt_ir_type_t *t = arg(ctx, i);
  if (!t || t->kind != kind) {
    char buf[RT_IR_OP_MSG_MAX];
    rt_strbuf_t b;
    rt_strbuf_initialize(&b);
    rt_ir_type_print(t, &b);
    snprintf(buf, sizeof buf, "%s", b.data ? b.data : "");
    rt_strbuf_deinitialize(&b);
    return RT_STATUS(INVALID_ARGUMENT, "argument %d of %s must be %s, got %s", (int)i + 1,
                     ctx->op->name, kind == RT_IR_TYPE_LIST ? "a List" : "an Option", buf);
  }
  *out_elem = rt_ir_type_resolve(t->adt.elem);
  return RT_OK;
}

/* A list's element type as a tensor type (the ops that compute on the
 * elements need tensors). */
static rt_status_t tensor_elem(const rt_ir_rel_ctx_t *ctx, const rt_ir_type_t *elem) {
  if (!elem || elem->kind != RT_IR_TYPE_TENSOR) {
    return RT_STATUS(INVALID_ARGUMENT, "%s needs a List of tensors", ctx->op->name);
  }
  return RT_OK;
}

static rt_status_t position_arg(const rt_ir_rel_ctx_t *ctx, int32_t i) {
  const rt_ir_type_t *p;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, i, &p));
  rt_dtype_t d = p->tensor.dtype;
  bool one = p->tensor.rank == 0 || (p->tensor.rank == 1 && (p->tensor.shape[0] == 1 ||
                                                             p->tensor.shape[0] == RT_DIM_ANY));
  if (d.code != kDLInt || (d.bits != 32 && d.bits != 64) || !one) {
    return RT_STATUS(INVALID_ARGUMENT, "the position of %s must be a 0-d int32 or int64 tensor",
                     ctx->op->name);
  }
  return RT_OK;
}

/* Tensor[(?, ... rank), dtype]. */
static rt_status_t any_dims(const rt_ir_rel_ctx_t *ctx, rt_dtype_t dtype, int64_t rank,
                            rt_ir_type_t **out) {
  if (rank < 0 || rank > MAXR) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: rank %lld is out of range (0 to %d)", ctx->op->name,
                     (long long)rank, MAXR);
  }
  int64_t dims[MAXR];
  for (int32_t i = 0; i < (int32_t)rank; ++i) dims[i] = RT_DIM_ANY;
  return rt_ir_op_make_tensor(ctx, dtype, (int32_t)rank, dims, out);
}

rt_status_t rt_ir_rel_list_empty(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  rt_attrs_list_empty_t at = rt_ir_attrs_list_empty(ctx->attrs);
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", (rt_dtype_t){kDLFloat, 32, 1}, &dt));
  rt_ir_type_t *elem = NULL;
  RT_RETURN_IF_ERROR(any_dims(ctx, dt, at.rank, &elem));
  return rt_ir_adt_type(ctx->module, RT_IR_TYPE_LIST, elem, out_type);
}

rt_status_t rt_ir_rel_list_construct(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  rt_ir_type_t *t = arg(ctx, 0);
  if (!t || t->kind != RT_IR_TYPE_TUPLE || t->tuple.count < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s",
                     "list.construct takes a tuple of at least one value (list.empty makes an "
                     "empty list)");
  }
  rt_ir_type_t *elem = rt_ir_type_resolve(t->tuple.fields[0]);
  for (int32_t i = 1; i < t->tuple.count; ++i) {
    rt_ir_type_t *j = NULL;
    RT_RETURN_IF_ERROR(rt_ir_type_join(ctx->module, elem, t->tuple.fields[i], &j));
    if (!j) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "list.construct: field %d's type differs from the others' in kind, "
                       "dtype or rank",
                       (int)i);
    }
    elem = j;
  }
  return rt_ir_adt_type(ctx->module, RT_IR_TYPE_LIST, elem, out_type);
}

rt_status_t rt_ir_rel_list_at(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  rt_ir_type_t *elem = NULL;
  RT_RETURN_IF_ERROR(adt_arg(ctx, 0, RT_IR_TYPE_LIST, &elem));
  RT_RETURN_IF_ERROR(position_arg(ctx, 1));
  *out_type = elem;
  return RT_OK;
}

rt_status_t rt_ir_rel_list_length(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  rt_ir_type_t *elem = NULL;
  RT_RETURN_IF_ERROR(adt_arg(ctx, 0, RT_IR_TYPE_LIST, &elem));
  return rt_ir_op_make_tensor(ctx, (rt_dtype_t){kDLInt, 64, 1}, 0, NULL, out_type);
}

rt_status_t rt_ir_rel_list_insert(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  rt_ir_type_t *elem = NULL;
  RT_RETURN_IF_ERROR(adt_arg(ctx, 0, RT_IR_TYPE_LIST, &elem));
  RT_RETURN_IF_ERROR(position_arg(ctx, 2));
  const rt_ir_type_t *v = arg(ctx, 1);
  if ((!elem || elem->kind == RT_IR_TYPE_INCOMPLETE) && v && v->kind == RT_IR_TYPE_TENSOR) {
    /* A list whose element type is open (an ONNX sequence input declared
     * without shapes) is not narrowed to this value's shape: the result
     * holds tensors of its dtype and rank. */
    rt_ir_type_t *any = NULL;
    RT_RETURN_IF_ERROR(any_dims(ctx, v->tensor.dtype, v->tensor.rank, &any));
    return rt_ir_adt_type(ctx->module, RT_IR_TYPE_LIST, any, out_type);
  }
  rt_ir_type_t *j = NULL;
  RT_RETURN_IF_ERROR(rt_ir_type_join(ctx->module, elem, arg(ctx, 1), &j));
  if (!j) {
    return RT_STATUS(INVALID_ARGUMENT, "%s",
                     "list.insert: the value's type differs from the list's elements in kind, "
                     "dtype or rank");
  }
  if (j == elem) {
    *out_type = arg(ctx, 0);
    return RT_OK;
  }
  return rt_ir_adt_type(ctx->module, RT_IR_TYPE_LIST, j, out_type);
}

rt_status_t rt_ir_rel_list_erase(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  rt_ir_type_t *elem = NULL;
  RT_RETURN_IF_ERROR(adt_arg(ctx, 0, RT_IR_TYPE_LIST, &elem));
  RT_RETURN_IF_ERROR(position_arg(ctx, 1));
  *out_type = arg(ctx, 0);
  return RT_OK;
}

rt_status_t rt_ir_rel_list_concat(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  rt_ir_type_t *elem = NULL;
  RT_RETURN_IF_ERROR(adt_arg(ctx, 0, RT_IR_TYPE_LIST, &elem));
  RT_RETURN_IF_ERROR(tensor_elem(ctx, elem));
  rt_attrs_list_concat_t at = rt_ir_attrs_list_concat(ctx->attrs);
  int32_t r = elem->tensor.rank, rank = at.new_axis ? r + 1 : r;
  if (rank < 1 || rank > MAXR) {
    return RT_STATUS(INVALID_ARGUMENT, "%s",
                     "list.concat: the elements must have rank >= 1 (or new_axis)");
  }
  int32_t axis = 0;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(at.axis, rank, &axis));
  int64_t dims[MAXR];
  for (int32_t i = 0, k = 0; i < rank; ++i) {
    if (at.new_axis && i == axis) {
      dims[i] = RT_DIM_ANY;
      continue;
    }
    dims[i] = elem->tensor.shape[k++];
  }
  dims[axis] = RT_DIM_ANY;
  return rt_ir_op_make_tensor(ctx, elem->tensor.dtype, rank, dims, out_type);
}

rt_status_t rt_ir_rel_list_split(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *s;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &s));
  if (s->tensor.dtype.code != kDLInt || s->tensor.rank > 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s",
                     "list.split: split must be a 0-d or 1-d int tensor");
  }
  rt_attrs_list_split_t at = rt_ir_attrs_list_split(ctx->attrs);
  int32_t axis = 0;
  if (x->tensor.rank < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s", "list.split: the input must have rank >= 1");
  }
  RT_RETURN_IF_ERROR(rt_ir_op_axis(at.axis, x->tensor.rank, &axis));
  int64_t dims[MAXR];
  memcpy(dims, x->tensor.shape, sizeof(int64_t) * (size_t)x->tensor.rank);
  int32_t rank = x->tensor.rank;
  /* Pieces of 1 without keepdims drop the axis; which form the split
   * operand takes is known from its type only when it is 0-d or has a
   * static length: (0,) means no split. */
  bool none = s->tensor.rank == 1 && s->tensor.shape[0] == 0;
  if (none && !at.keepdims) {
    memmove(dims + axis, dims + axis + 1, sizeof(int64_t) * (size_t)(rank - axis - 1));
    --rank;
  } else {
    dims[axis] = RT_DIM_ANY;
  }
  rt_ir_type_t *elem = NULL;
  RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, x->tensor.dtype, rank, dims, &elem));
  return rt_ir_adt_type(ctx->module, RT_IR_TYPE_LIST, elem, out_type);
}

rt_status_t rt_ir_rel_option_some(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return rt_ir_adt_type(ctx->module, RT_IR_TYPE_OPTION, arg(ctx, 0), out_type);
}

rt_status_t rt_ir_rel_option_none(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  rt_attrs_option_none_t at = rt_ir_attrs_option_none(ctx->attrs);
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", (rt_dtype_t){kDLFloat, 32, 1}, &dt));
  rt_ir_type_t *elem = NULL;
  RT_RETURN_IF_ERROR(any_dims(ctx, dt, at.rank, &elem));
  if (at.list) RT_RETURN_IF_ERROR(rt_ir_adt_type(ctx->module, RT_IR_TYPE_LIST, elem, &elem));
  return rt_ir_adt_type(ctx->module, RT_IR_TYPE_OPTION, elem, out_type);
}

rt_status_t rt_ir_rel_option_is_some(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  rt_ir_type_t *elem = NULL;
  RT_RETURN_IF_ERROR(adt_arg(ctx, 0, RT_IR_TYPE_OPTION, &elem));
  return rt_ir_op_make_tensor(ctx, (rt_dtype_t){kDLBool, 8, 1}, 0, NULL, out_type);
}

rt_status_t rt_ir_rel_option_get(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  rt_ir_type_t *elem = NULL;
  RT_RETURN_IF_ERROR(adt_arg(ctx, 0, RT_IR_TYPE_OPTION, &elem));
  *out_type = elem;
  return RT_OK;
}
