/* Helpers shared by the type relations of ir/op/: argument checks, result
 * construction, axis normalization, numpy broadcasting, dimension
 * arithmetic that propagates `?` (RT_DIM_ANY), spatial attribute reading
 * (strides/padding expansion) and layout permutations. Every failure is an
 * INVALID_ARGUMENT status with a plain message. */
#include <stdio.h>
#include <string.h>

#include "ir/op/op_impl.h"
#include "ir/op/plan.h"
#include "runtime/assert.h"

static const char *type_kind_text(const rt_ir_type_t *t) {
  switch (t->kind) {
    case RT_IR_TYPE_TENSOR: return "a tensor";
    case RT_IR_TYPE_TUPLE: return "a tuple";
    case RT_IR_TYPE_FUNC: return "a function";
    case RT_IR_TYPE_INCOMPLETE: return "an unknown type";
    case RT_IR_TYPE_LIST: return "a list";
    case RT_IR_TYPE_OPTION: return "an option";
  }
  return "?";
}

rt_status_t rt_ir_op_tensor_arg(const rt_ir_rel_ctx_t *ctx, int32_t i,
                                const rt_ir_type_t **out) {
  *out = NULL;
  if (i >= ctx->nargs || !ctx->args[i]) {
    return RT_STATUS(INVALID_ARGUMENT, "%s takes %d arguments, got %d",
                     ctx->op->name, (int)ctx->op->num_inputs, (int)ctx->nargs);
  }
  const rt_ir_type_t *t = ctx->args[i];
  if (t->kind != RT_IR_TYPE_TENSOR) {
    return RT_STATUS(INVALID_ARGUMENT, "argument %d of %s must be a tensor, got %s",
                     (int)i + 1, ctx->op->name, type_kind_text(t));
  }
  if (t->tensor.rank < 0 || t->tensor.rank > RT_TENSOR_MAX_RANK) {
    return RT_STATUS(INVALID_ARGUMENT, "argument %d of %s has rank %d (at most %d)",
                     (int)i + 1, ctx->op->name, (int)t->tensor.rank,
                     RT_TENSOR_MAX_RANK);
  }
  *out = t;
  return RT_OK;
}

rt_status_t rt_ir_op_check_rank(int64_t rank) {
  if (rank < 0 || rank > RT_TENSOR_MAX_RANK) {
    return RT_STATUS(INVALID_ARGUMENT, "result rank %lld exceeds the limit %d",
                     (long long)rank, RT_TENSOR_MAX_RANK);
  }
  return RT_OK;
}

rt_status_t rt_ir_op_make_tensor(const rt_ir_rel_ctx_t *ctx, rt_dtype_t dtype,
                                 int32_t rank, const int64_t *shape,
                                 rt_ir_type_t **out) {
  RT_RETURN_IF_ERROR(rt_ir_op_check_rank(rank));
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] < 0 && shape[i] != RT_DIM_ANY) {
      char buf[RT_IR_OP_MSG_MAX];
      return RT_STATUS(INVALID_ARGUMENT, "result shape %s has a negative dimension",
                       rt_ir_op_shape_text(rank, shape, buf, sizeof buf));
    }
  }
  return rt_ir_tensor_type(ctx->module, dtype, rank, shape, out);
}

rt_status_t rt_ir_op_retype(const rt_ir_rel_ctx_t *ctx, const rt_ir_type_t *t,
                            rt_dtype_t dtype, rt_ir_type_t **out) {
  return rt_ir_op_make_tensor(ctx, dtype, t->tensor.rank, t->tensor.shape, out);
}

const char *rt_ir_op_shape_text(int32_t rank, const int64_t *shape, char *buf,
                                size_t cap) {
  rt_strbuf_t sb;
  rt_strbuf_initialize(&sb);
  rt_ir_shape_print(rank, shape, &sb);
  snprintf(buf, cap, "%s", sb.data ? sb.data : "(...)");
  rt_strbuf_deinitialize(&sb);
  return buf;
}

rt_status_t rt_ir_op_axis(int64_t axis, int32_t rank, int32_t *out_axis) {
  if (axis < -(int64_t)rank || axis >= rank) {
    return RT_STATUS(INVALID_ARGUMENT, "axis %lld is out of range for rank %d",
                     (long long)axis, (int)rank);
  }
  *out_axis = (int32_t)(axis < 0 ? axis + rank : axis);
  return RT_OK;
}

rt_status_t rt_ir_op_broadcast(int32_t ra, const int64_t *a, int32_t rb,
                               const int64_t *b, int32_t *out_rank,
                               int64_t *out_shape) {
  const int32_t r = ra > rb ? ra : rb;
  RT_RETURN_IF_ERROR(rt_ir_op_check_rank(r));
  for (int32_t i = 0; i < r; ++i) {
    /* Align from the right; a missing dim acts as 1. */
    int64_t da = i < r - ra ? 1 : a[i - (r - ra)];
    int64_t db = i < r - rb ? 1 : b[i - (r - rb)];
    int64_t d;
    if (da == db) {
      d = da;
    } else if (da == 1) {
      d = db;
    } else if (db == 1) {
      d = da;
    } else if (da == RT_DIM_ANY) {
      d = db; /* ? with 5: 5 (or it fails at run time) */
    } else if (db == RT_DIM_ANY) {
      d = da;
    } else {
      char sa[RT_IR_OP_MSG_MAX], sb[RT_IR_OP_MSG_MAX];
      return RT_STATUS(INVALID_ARGUMENT, "shapes %s and %s do not broadcast",
                       rt_ir_op_shape_text(ra, a, sa, sizeof sa),
                       rt_ir_op_shape_text(rb, b, sb, sizeof sb));
    }
    out_shape[i] = d;
  }
  *out_rank = r;
  return RT_OK;
}

rt_status_t rt_ir_op_same_dtype(rt_dtype_t a, rt_dtype_t b) {
  if (rt_dtype_equal(a, b)) return RT_OK;
  char na[RT_DTYPE_NAME_MAX], nb[RT_DTYPE_NAME_MAX];
  return RT_STATUS(INVALID_ARGUMENT, "dtypes %s and %s differ",
                   rt_dtype_name(a, na), rt_dtype_name(b, nb));
}

rt_status_t rt_ir_op_dtype_attr(const rt_ir_rel_ctx_t *ctx, const char *name,
                                rt_dtype_t fallback, rt_dtype_t *out) {
  const char *s = rt_attrs_string(ctx->attrs, name);
  if (*s == '\0') {
    *out = fallback;
    return RT_OK;
  }
  RT_RETURN_IF_ERROR_ANNOTATE(rt_dtype_parse(s, strlen(s), out),
                              "attribute '%s' of %s", name, ctx->op->name);
  return RT_OK;
}

rt_status_t rt_ir_op_dim_mul(int64_t a, int64_t b, int64_t *out) {
  if (a == 0 || b == 0) {
    *out = 0;
    return RT_OK;
  }
  if (a == RT_DIM_ANY || b == RT_DIM_ANY) {
    *out = RT_DIM_ANY;
    return RT_OK;
  }
  if (__builtin_mul_overflow(a, b, out)) {
    return RT_STATUS(INVALID_ARGUMENT, "dimension %lld * %lld overflows",
                     (long long)a, (long long)b);
  }
  return RT_OK;
}

rt_status_t rt_ir_op_ints_n(const char *op, const char *name, rt_attr_list_t list,
                            int32_t n, int64_t *out) {
  const int32_t c = list.count;
  if (c != 1 && c != n) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: attribute '%s' needs %d values, got %d",
                     op, name, (int)n, (int)c);
  }
  for (int32_t i = 0; i < n; ++i) out[i] = rt_attr_list_int(list, c == 1 ? 0 : i);
  return RT_OK;
}

rt_status_t rt_ir_op_padding(const char *op, const char *name, rt_attr_list_t list,
                             int32_t n, int64_t *before, int64_t *after) {
  const int32_t c = list.count;
  if (c != 1 && c != n && c != 2 * n) {
    if (n == 1) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: attribute '%s' needs 1 or 2 values, got %d",
                       op, name, (int)c);
    }
    return RT_STATUS(INVALID_ARGUMENT, "%s: attribute '%s' needs 1, %d or %d values, got %d",
                     op, name, (int)n, (int)(2 * n), (int)c);
  }
  for (int32_t i = 0; i < n; ++i) {
    if (c == 1) {
      before[i] = after[i] = rt_attr_list_int(list, 0);
    } else if (c == n) {
      before[i] = after[i] = rt_attr_list_int(list, i);
    } else {
      before[i] = rt_attr_list_int(list, i);
      after[i] = rt_attr_list_int(list, n + i);
    }
    if (before[i] < 0 || after[i] < 0) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: attribute '%s' must not be negative", op, name);
    }
  }
  return RT_OK;
}

rt_status_t rt_ir_op_layout_perm(const char *op_name, const char *attr,
                                 const char *layout, const char *letters,
                                 int32_t *out_pos) {
  size_t n = strlen(letters);
  bool ok = strlen(layout) == n;
  for (size_t i = 0; ok && i < n; ++i) {
    const char *at = strchr(layout, letters[i]);
    ok = at != NULL;
    if (ok) out_pos[i] = (int32_t)(at - layout);
  }
  /* Each letter found once and the lengths agree: a permutation. */
  for (size_t i = 0; ok && i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (layout[i] == layout[j]) ok = false;
    }
  }
  if (!ok) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: unsupported %s \"%s\" (expected an ordering of %s)",
                     op_name, attr, layout, letters);
  }
  return RT_OK;
}

/* ---- plan inputs (ir/op/plan.h) ---------------------------------------- */

void rt_ir_plan_input_of_type(const rt_ir_type_t *type, rt_plan_input_t *out) {
  RT_ASSERT(type && type->kind == RT_IR_TYPE_TENSOR && out);
  out->dtype = type->tensor.dtype;
  out->rank = type->tensor.rank;
  out->shape = type->tensor.shape;
  out->value = NULL;
}

void rt_ir_plan_input_of_tensor(const rt_tensor_t *tensor, rt_plan_input_t *out) {
  RT_ASSERT(tensor && out);
  out->dtype = rt_tensor_dtype(tensor);
  out->rank = rt_tensor_rank(tensor);
  out->shape = rt_tensor_shape(tensor);
  out->value = tensor;
}
