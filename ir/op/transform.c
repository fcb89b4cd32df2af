/* Type relations of the data-movement ops: reshape (TVM's 0/-1/-2/-3/-4
 * codes), reshape_like, squeeze, expand_dims, transpose, batch_flatten,
 * concatenate/stack (tuple input), split (tuple output), strided_slice
 * (topi's canonicalization and clamping), take, gather, gather_nd,
 * broadcast_to, tile, repeat, reverse, nn.pad, layout_transform (primal
 * and split axes such as NCHW4c), one_hot, depth_to_space/space_to_depth,
 * and the creation and shape ops (zeros, ones, full, arange, shape_of,
 * ndarray_size). Shapes are computed in fixed arrays of
 * RT_TENSOR_MAX_RANK dims; a result past that rank is an error.
 *
 * The plans of ir/op/plan_transform.h are defined here beside their
 * relations (transpose, split, strided_slice, take, gather, nn.pad,
 * layout_transform, depth_to_space/space_to_depth): each relation builds
 * its result type from its plan, and the reference kernels and lowerings
 * read the same plan. */
#include <string.h>

#include "ir/op/op_impl.h"
#include "ir/op/plan.h"
#include "runtime/assert.h"

#define MAXR RT_TENSOR_MAX_RANK

static bool all_static(int32_t rank, const int64_t *shape) {
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] == RT_DIM_ANY) return false;
  }
  return true;
}

/* Product of dims; RT_DIM_ANY if any is `?`. */
static rt_status_t numel(int32_t rank, const int64_t *shape, int64_t *out) {
  int64_t n = 1;
  bool any = false;
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] == RT_DIM_ANY) {
      any = true;
      continue;
    }
    RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(n, shape[i], &n));
  }
  *out = any ? RT_DIM_ANY : n;
  return RT_OK;
}

static rt_status_t int_indices(const rt_ir_type_t *t, const char *what) {
  if (rt_dtype_is_int(t->tensor.dtype) || rt_dtype_is_uint(t->tensor.dtype)) {
    return RT_OK;
  }
  char name[RT_DTYPE_NAME_MAX];
  return RT_STATUS(INVALID_ARGUMENT, "%s must be integers, got %s", what,
                   rt_dtype_name(t->tensor.dtype, name));
}

static rt_status_t incompatible(const char *op, int32_t ra, const int64_t *a,
                                int32_t rb, const int64_t *b) {
  char sa[RT_IR_OP_MSG_MAX], sb[RT_IR_OP_MSG_MAX];
  return RT_STATUS(INVALID_ARGUMENT, "%s: cannot reshape %s to %s", op,
                   rt_ir_op_shape_text(ra, a, sa, sizeof sa),
                   rt_ir_op_shape_text(rb, b, sb, sizeof sb));
}

/* ---- reshape ------------------------------------------------------------ */

static rt_status_t push_dim(int64_t *out, int32_t *n, int64_t d) {
  if (*n >= MAXR) return rt_ir_op_check_rank(MAXR + 1);
  out[(*n)++] = d;
  return RT_OK;
}

rt_status_t rt_ir_rel_reshape(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  const int32_t rank = x->tensor.rank;
  const int64_t *in = x->tensor.shape;
  const rt_attrs_reshape_t attrs = rt_ir_attrs_reshape(ctx->attrs);
  const bool allowzero = attrs.allowzero;
  const int32_t n = attrs.newshape.count;
  int64_t out[MAXR];
  /* As TVM's InferNewShape, dims copied or merged by 0/-2/-3/-4 are
   * "used" and left out of the -1 inference, so a `?` among them does not
   * make the inferred dim `?`. */
  bool used_in[MAXR] = {false}, used_out[MAXR] = {false};
  int32_t r = 0, src = 0, infer = -1;
  for (int32_t i = 0; i < n; ++i) {
    int64_t v = rt_attr_list_int(attrs.newshape, i);
    if (v > 0 || (v == 0 && allowzero)) {
      RT_RETURN_IF_ERROR(push_dim(out, &r, v));
      src++;
    } else if (v == 0) {
      if (src >= rank) {
        return RT_STATUS(INVALID_ARGUMENT,
                         "reshape: newshape code 0 at position %d has no input dim to copy",
                         (int)i);
      }
      used_in[src] = true;
      used_out[r] = true;
      RT_RETURN_IF_ERROR(push_dim(out, &r, in[src++]));
    } else if (v == -1) {
      if (infer >= 0) {
        return RT_STATUS(INVALID_ARGUMENT, "reshape: newshape has more than one -1");
      }
      infer = r;
      RT_RETURN_IF_ERROR(push_dim(out, &r, 1));
      src++;
    } else if (v == -2) {
      while (src < rank) {
        used_in[src] = true;
        if (r < MAXR) used_out[r] = true;
        RT_RETURN_IF_ERROR(push_dim(out, &r, in[src++]));
      }
    } else if (v == -3) {
      if (src + 1 >= rank) {
        return RT_STATUS(INVALID_ARGUMENT,
                         "reshape: newshape code -3 at position %d needs two input dims",
                         (int)i);
      }
      int64_t d;
      RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(in[src], in[src + 1], &d));
      if (in[src] == RT_DIM_ANY || in[src + 1] == RT_DIM_ANY) d = RT_DIM_ANY;
      used_in[src] = used_in[src + 1] = true;
      if (r < MAXR) used_out[r] = true;
      RT_RETURN_IF_ERROR(push_dim(out, &r, d));
      src += 2;
    } else if (v == -4) {
      if (i + 2 >= n || src >= rank) {
        return RT_STATUS(INVALID_ARGUMENT,
                         "reshape: newshape code -4 at position %d needs an input dim and two values",
                         (int)i);
      }
      used_in[src] = true;
      int64_t d0 = in[src++];
      int64_t d1 = rt_attr_list_int(attrs.newshape, ++i);
      int64_t d2 = rt_attr_list_int(attrs.newshape, ++i);
      if ((d1 == -1 && d2 == -1) || d1 < -1 || d2 < -1 || d1 == 0 || d2 == 0) {
        return RT_STATUS(INVALID_ARGUMENT,
                         "reshape: bad split (%lld, %lld) after code -4",
                         (long long)d1, (long long)d2);
      }
      if (d0 != RT_DIM_ANY) {
        int64_t known = d1 == -1 ? d2 : d1;
        if (d0 % known != 0) {
          return RT_STATUS(INVALID_ARGUMENT,
                           "reshape: cannot split dim %lld into (%lld, %lld)",
                           (long long)d0, (long long)d1, (long long)d2);
        }
        if (d1 == -1) d1 = d0 / d2;
        if (d2 == -1) d2 = d0 / d1;
        if (d1 * d2 != d0) {
          return RT_STATUS(INVALID_ARGUMENT,
                           "reshape: cannot split dim %lld into (%lld, %lld)",
                           (long long)d0, (long long)d1, (long long)d2);
        }
      } else {
        if (d1 == -1) d1 = RT_DIM_ANY;
        if (d2 == -1) d2 = RT_DIM_ANY;
      }
      if (r + 1 < MAXR) used_out[r] = used_out[r + 1] = true;
      RT_RETURN_IF_ERROR(push_dim(out, &r, d1));
      RT_RETURN_IF_ERROR(push_dim(out, &r, d2));
    } else {
      return RT_STATUS(INVALID_ARGUMENT, "reshape: invalid newshape value %lld",
                       (long long)v);
    }
  }
  int64_t total;
  RT_RETURN_IF_ERROR(numel(rank, in, &total));
  if (infer >= 0) {
    int64_t known = 1, rest = 1;
    bool any = false;
    for (int32_t i = 0; i < rank && !any; ++i) {
      if (used_in[i]) continue;
      if (in[i] == RT_DIM_ANY) {
        any = true;
      } else {
        RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(rest, in[i], &rest));
      }
    }
    for (int32_t i = 0; i < r; ++i) {
      if (i == infer || used_out[i]) continue;
      if (out[i] == RT_DIM_ANY) {
        any = true;
      } else {
        RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(known, out[i], &known));
      }
    }
    if (any) {
      out[infer] = RT_DIM_ANY;
    } else if (known == 0 || rest % known != 0) {
      out[infer] = -1;
      return incompatible("reshape", rank, in, r, out);
    } else {
      out[infer] = rest / known;
    }
  } else if (total != RT_DIM_ANY && all_static(r, out)) {
    int64_t got;
    RT_RETURN_IF_ERROR(numel(r, out, &got));
    if (got != total) return incompatible("reshape", rank, in, r, out);
  }
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, r, out, out_type);
}

/* reshape_like: data[:lhs_begin] + like[rhs_begin:rhs_end] + data[lhs_end:] */
static rt_status_t range_attr(const char *bname, int64_t bv, const char *ename,
                              bool e_none, int64_t ev, int32_t rank, int32_t *b,
                              int32_t *e) {
  if (e_none) ev = rank;
  if (bv < 0) bv += rank;
  if (ev < 0) ev += rank;
  if (bv < 0 || bv > rank || ev < bv || ev > rank) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "reshape_like: range [%s, %s) is invalid for rank %d", bname,
                     ename, (int)rank);
  }
  *b = (int32_t)bv;
  *e = (int32_t)ev;
  return RT_OK;
}

rt_status_t rt_ir_rel_reshape_like(const rt_ir_rel_ctx_t *ctx,
                                   rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *like;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &like));
  const rt_attrs_reshape_like_t at = rt_ir_attrs_reshape_like(ctx->attrs);
  int32_t lb = 0, le = 0, rb = 0, re = 0;
  RT_RETURN_IF_ERROR(range_attr("lhs_begin", at.lhs_begin, "lhs_end", at.lhs_end_is_none,
                                at.lhs_end, x->tensor.rank, &lb, &le));
  RT_RETURN_IF_ERROR(range_attr("rhs_begin", at.rhs_begin, "rhs_end", at.rhs_end_is_none,
                                at.rhs_end, like->tensor.rank, &rb, &re));
  int64_t out[MAXR];
  int32_t r = 0;
  for (int32_t i = 0; i < lb; ++i) RT_RETURN_IF_ERROR(push_dim(out, &r, x->tensor.shape[i]));
  for (int32_t i = rb; i < re; ++i) RT_RETURN_IF_ERROR(push_dim(out, &r, like->tensor.shape[i]));
  for (int32_t i = le; i < x->tensor.rank; ++i) RT_RETURN_IF_ERROR(push_dim(out, &r, x->tensor.shape[i]));
  int64_t a, b;
  RT_RETURN_IF_ERROR(numel(x->tensor.rank, x->tensor.shape, &a));
  RT_RETURN_IF_ERROR(numel(r, out, &b));
  if (a != RT_DIM_ANY && b != RT_DIM_ANY && a != b) {
    return incompatible("reshape_like", x->tensor.rank, x->tensor.shape, r, out);
  }
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, r, out, out_type);
}

rt_status_t rt_ir_rel_squeeze(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  const int32_t rank = x->tensor.rank;
  bool drop[MAXR] = {false};
  const rt_attrs_squeeze_t attrs = rt_ir_attrs_squeeze(ctx->attrs);
  if (attrs.axis_is_none) {
    for (int32_t i = 0; i < rank; ++i) {
      if (x->tensor.shape[i] == RT_DIM_ANY) {
        return RT_STATUS(INVALID_ARGUMENT, "squeeze without axis of a `?` dim (dim %d): whether "
                         "it is 1 is known only at run time, and with it the result's rank; "
                         "give axis", (int)i);
      }
      drop[i] = x->tensor.shape[i] == 1;
    }
  } else {
    for (int32_t k = 0; k < attrs.axis.count; ++k) {
      int32_t a;
      RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_attr_list_int(attrs.axis, k), rank, &a));
      int64_t d = x->tensor.shape[a];
      if (d != 1 && d != RT_DIM_ANY) {
        return RT_STATUS(INVALID_ARGUMENT,
                         "squeeze: axis %d has size %lld, not 1", (int)a, (long long)d);
      }
      drop[a] = true;
    }
  }
  int64_t out[MAXR];
  int32_t r = 0;
  for (int32_t i = 0; i < rank; ++i) {
    if (!drop[i]) out[r++] = x->tensor.shape[i];
  }
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, r, out, out_type);
}

/* Inserts `count` dims of size `d` at `axis` (in [-(rank+1), rank]). */
static rt_status_t insert_dims(const rt_ir_type_t *x, int64_t axis, int64_t count,
                               int64_t d, int64_t *out, int32_t *out_rank) {
  const int32_t rank = x->tensor.rank;
  if (axis < -(int64_t)rank - 1 || axis > rank) {
    return RT_STATUS(INVALID_ARGUMENT, "axis %lld is out of range for rank %d",
                     (long long)axis, (int)rank + 1);
  }
  if (count < 0) {
    return RT_STATUS(INVALID_ARGUMENT, "cannot insert %lld axes", (long long)count);
  }
  RT_RETURN_IF_ERROR(rt_ir_op_check_rank(rank + count));
  const int32_t a = (int32_t)(axis < 0 ? axis + rank + 1 : axis);
  int32_t r = 0;
  for (int32_t i = 0; i < a; ++i) out[r++] = x->tensor.shape[i];
  for (int64_t i = 0; i < count; ++i) out[r++] = d;
  for (int32_t i = a; i < rank; ++i) out[r++] = x->tensor.shape[i];
  *out_rank = r;
  return RT_OK;
}

rt_status_t rt_ir_rel_expand_dims(const rt_ir_rel_ctx_t *ctx,
                                  rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int64_t out[MAXR];
  int32_t r = 0;
  const rt_attrs_expand_dims_t a = rt_ir_attrs_expand_dims(ctx->attrs);
  RT_RETURN_IF_ERROR(insert_dims(x, a.axis, a.num_newaxis, 1, out, &r));
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, r, out, out_type);
}

rt_status_t rt_ir_plan_transpose(const rt_ir_attrs_t *attrs, int32_t n,
                                 const rt_plan_input_t *in,
                                 rt_plan_transpose_t *out_plan) {
  if (n < 1) return RT_STATUS(INVALID_ARGUMENT, "transpose needs its data input");
  const rt_attrs_transpose_t a = rt_ir_attrs_transpose(attrs);
  const int32_t rank = in[0].rank;
  RT_RETURN_IF_ERROR(rt_ir_op_check_rank(rank));
  rt_plan_transpose_t *p = out_plan;
  p->rank = rank;
  if (a.axes_is_none || a.axes.count == 0) {
    for (int32_t i = 0; i < rank; ++i) p->perm[i] = rank - 1 - i;
  } else {
    if (a.axes.count != rank) {
      return RT_STATUS(INVALID_ARGUMENT, "transpose: axes has %d entries for rank %d",
                       (int)a.axes.count, (int)rank);
    }
    bool used[MAXR] = {false};
    for (int32_t i = 0; i < rank; ++i) {
      int32_t ax;
      RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_attr_list_int(a.axes, i), rank, &ax));
      if (used[ax]) {
        return RT_STATUS(INVALID_ARGUMENT, "transpose: axis %d repeated in axes", (int)ax);
      }
      used[ax] = true;
      p->perm[i] = ax;
    }
  }
  for (int32_t i = 0; i < rank; ++i) p->out_shape[i] = in[0].shape[p->perm[i]];
  return RT_OK;
}

rt_status_t rt_ir_rel_transpose(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  rt_plan_input_t in;
  rt_ir_plan_input_of_type(x, &in);
  rt_plan_transpose_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_transpose(ctx->attrs, 1, &in, &p));
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, p.rank, p.out_shape, out_type);
}

rt_status_t rt_ir_rel_batch_flatten(const rt_ir_rel_ctx_t *ctx,
                                    rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  if (x->tensor.rank < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "nn.batch_flatten needs rank >= 1");
  }
  int64_t out[2] = {x->tensor.shape[0], 1};
  RT_RETURN_IF_ERROR(numel(x->tensor.rank - 1, x->tensor.shape + 1, &out[1]));
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, 2, out, out_type);
}

/* ---- tuples in and out -------------------------------------------------- */

/* The single tuple argument of concatenate/stack, fields checked to be
 * tensors of one dtype and rank. */
static rt_status_t tensor_tuple(const rt_ir_rel_ctx_t *ctx,
                                const rt_ir_type_t **out_tuple) {
  if (ctx->nargs < 1 || ctx->args[0]->kind != RT_IR_TYPE_TUPLE) {
    return RT_STATUS(INVALID_ARGUMENT, "%s takes a tuple of tensors", ctx->op->name);
  }
  const rt_ir_type_t *t = ctx->args[0];
  if (t->tuple.count < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s of an empty tuple", ctx->op->name);
  }
  for (int32_t i = 0; i < t->tuple.count; ++i) {
    const rt_ir_type_t *f = rt_ir_type_resolve(t->tuple.fields[i]);
    if (f->kind != RT_IR_TYPE_TENSOR) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: field %d of the tuple is not a tensor",
                       ctx->op->name, (int)i);
    }
    const rt_ir_type_t *f0 = rt_ir_type_resolve(t->tuple.fields[0]);
    RT_RETURN_IF_ERROR_ANNOTATE(rt_ir_op_same_dtype(f0->tensor.dtype, f->tensor.dtype),
                                "%s: field %d", ctx->op->name, (int)i);
    if (f->tensor.rank != f0->tensor.rank || f->tensor.rank > MAXR) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: field %d has rank %d, field 0 rank %d",
                       ctx->op->name, (int)i, (int)f->tensor.rank, (int)f0->tensor.rank);
    }
  }
  *out_tuple = t;
  return RT_OK;
}

/* Merges dim j of every field (except along `skip`): static dims must
 * agree; `?` takes the static value of another field. */
static rt_status_t merge_dims(const rt_ir_rel_ctx_t *ctx, const rt_ir_type_t *t,
                              int32_t skip, int64_t *out) {
  const rt_ir_type_t *f0 = rt_ir_type_resolve(t->tuple.fields[0]);
  for (int32_t j = 0; j < f0->tensor.rank; ++j) {
    if (j == skip) continue;
    int64_t d = RT_DIM_ANY;
    for (int32_t i = 0; i < t->tuple.count; ++i) {
      const rt_ir_type_t *f = rt_ir_type_resolve(t->tuple.fields[i]);
      int64_t e = f->tensor.shape[j];
      if (e == RT_DIM_ANY) continue;
      if (d != RT_DIM_ANY && d != e) {
        char sa[RT_IR_OP_MSG_MAX], sb[RT_IR_OP_MSG_MAX];
        return RT_STATUS(INVALID_ARGUMENT,
                         "%s: field %d has shape %s, incompatible with field 0's %s",
                         ctx->op->name, (int)i,
                         rt_ir_op_shape_text(f->tensor.rank, f->tensor.shape, sa, sizeof sa),
                         rt_ir_op_shape_text(f0->tensor.rank, f0->tensor.shape, sb, sizeof sb));
      }
      d = e;
    }
    out[j] = d;
  }
  return RT_OK;
}

rt_status_t rt_ir_rel_concatenate(const rt_ir_rel_ctx_t *ctx,
                                  rt_ir_type_t **out_type) {
  const rt_ir_type_t *t;
  RT_RETURN_IF_ERROR(tensor_tuple(ctx, &t));
  const rt_ir_type_t *f0 = rt_ir_type_resolve(t->tuple.fields[0]);
  const int32_t rank = f0->tensor.rank;
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_ir_attrs_concatenate(ctx->attrs).axis, rank, &axis));
  int64_t out[MAXR];
  RT_RETURN_IF_ERROR(merge_dims(ctx, t, axis, out));
  int64_t sum = 0;
  for (int32_t i = 0; i < t->tuple.count; ++i) {
    int64_t e = rt_ir_type_resolve(t->tuple.fields[i])->tensor.shape[axis];
    if (e == RT_DIM_ANY || sum == RT_DIM_ANY) {
      sum = RT_DIM_ANY;
    } else if (__builtin_add_overflow(sum, e, &sum)) {
      return RT_STATUS(INVALID_ARGUMENT, "concatenate: dimension overflows");
    }
  }
  out[axis] = sum;
  return rt_ir_op_make_tensor(ctx, f0->tensor.dtype, rank, out, out_type);
}

rt_status_t rt_ir_rel_stack(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *t;
  RT_RETURN_IF_ERROR(tensor_tuple(ctx, &t));
  const rt_ir_type_t *f0 = rt_ir_type_resolve(t->tuple.fields[0]);
  int64_t merged[MAXR];
  RT_RETURN_IF_ERROR(merge_dims(ctx, t, -1, merged));
  rt_ir_type_t shape_only = *f0;
  shape_only.tensor.shape = merged;
  int64_t out[MAXR];
  int32_t r = 0;
  RT_RETURN_IF_ERROR(insert_dims(&shape_only, rt_ir_attrs_stack(ctx->attrs).axis, 1,
                                 t->tuple.count, out, &r));
  return rt_ir_op_make_tensor(ctx, f0->tensor.dtype, r, out, out_type);
}

rt_status_t rt_ir_plan_split(const rt_ir_attrs_t *attrs, int32_t n,
                             const rt_plan_input_t *in, rt_plan_split_t *out_plan) {
  if (n < 1) return RT_STATUS(INVALID_ARGUMENT, "split needs its data input");
  const rt_attrs_split_t a = rt_ir_attrs_split(attrs);
  rt_plan_split_t *p = out_plan;
  const int32_t rank = in[0].rank;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(a.axis, rank, &p->axis));
  const int32_t axis = p->axis;
  const int64_t d = in[0].shape[axis];
  /* A lone int is a count of sections; the typed list cannot tell it from
   * a list of one index. */
  const rt_attr_value_t *ios = rt_attrs_get(attrs, "indices_or_sections");
  p->indices = a.indices_or_sections;
  if (ios->kind == RT_ATTR_INT) {
    if (ios->i <= 0 || ios->i > (1 << 20)) {
      return RT_STATUS(INVALID_ARGUMENT, "split: %lld sections", (long long)ios->i);
    }
    if (d != RT_DIM_ANY && d % ios->i != 0) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "split: dim %lld along axis %d does not divide into %lld sections",
                       (long long)d, (int)axis, (long long)ios->i);
    }
    p->sections = ios->i;
    p->pieces = (int32_t)ios->i;
    p->indices.count = 0;
    return RT_OK;
  }
  p->sections = 0;
  p->pieces = a.indices_or_sections.count + 1;
  int64_t begin = 0;
  for (int32_t k = 0; k + 1 < p->pieces; ++k) {
    int64_t idx = rt_attr_list_int(a.indices_or_sections, k);
    if (idx < begin || (d != RT_DIM_ANY && idx > d)) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "split: indices must be increasing and within dim %lld, got %lld after %lld",
                       (long long)d, (long long)idx, (long long)begin);
    }
    begin = idx;
  }
  return RT_OK;
}

void rt_ir_plan_split_piece(const rt_plan_split_t *plan, int64_t dim, int32_t k,
                            int64_t *out_begin, int64_t *out_extent) {
  if (plan->sections > 0) {
    const int64_t size = dim == RT_DIM_ANY ? RT_DIM_ANY : dim / plan->sections;
    *out_begin = size == RT_DIM_ANY ? RT_DIM_ANY : size * k;
    *out_extent = size;
    return;
  }
  const int64_t begin = k == 0 ? 0 : rt_attr_list_int(plan->indices, k - 1);
  *out_begin = begin;
  if (k + 1 < plan->pieces) {
    *out_extent = rt_attr_list_int(plan->indices, k) - begin;
  } else {
    *out_extent = dim == RT_DIM_ANY ? RT_DIM_ANY : dim - begin;
  }
}

rt_status_t rt_ir_rel_split(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  rt_plan_input_t in;
  rt_ir_plan_input_of_type(x, &in);
  rt_plan_split_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_split(ctx->attrs, 1, &in, &p));
  const int32_t rank = x->tensor.rank;
  rt_ir_type_t **fields = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&ctx->module->arena, (size_t)p.pieces,
                                          sizeof *fields, (void **)&fields));
  int64_t shape[MAXR];
  memcpy(shape, x->tensor.shape, (size_t)rank * sizeof shape[0]);
  for (int32_t k = 0; k < p.pieces; ++k) {
    int64_t begin;
    rt_ir_plan_split_piece(&p, x->tensor.shape[p.axis], k, &begin, &shape[p.axis]);
    RT_RETURN_IF_ERROR(rt_ir_op_make_tensor(ctx, x->tensor.dtype, rank, shape, &fields[k]));
  }
  return rt_ir_tuple_type(ctx->module, p.pieces, fields, out_type);
}

/* ---- slicing and indexing ----------------------------------------------- */

/* topi's CanonicalizeIndex: negative from the end, then clamped to
 * [0, extent] (stride > 0) or [-1, extent - 1] (stride < 0). */
static int64_t canonical_index(int64_t index, int64_t extent, int64_t stride) {
  int64_t lo = stride < 0 ? -1 : 0;
  int64_t hi = stride < 0 ? extent - 1 : extent;
  if (index < 0) index += extent;
  return index < lo ? lo : index > hi ? hi : index;
}

rt_status_t rt_ir_plan_strided_slice(const rt_ir_attrs_t *attrs, int32_t n,
                                     const rt_plan_input_t *in,
                                     rt_plan_strided_slice_t *out_plan) {
  if (n < 1) return RT_STATUS(INVALID_ARGUMENT, "strided_slice needs its data input");
  const rt_attrs_strided_slice_t a = rt_ir_attrs_strided_slice(attrs);
  const int32_t rank = in[0].rank;
  RT_RETURN_IF_ERROR(rt_ir_op_check_rank(rank));
  const char *mode = a.slice_mode;
  const bool size_mode = strcmp(mode, "size") == 0;
  if (!size_mode && strcmp(mode, "end") != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "strided_slice: unknown slice_mode \"%s\"", mode);
  }
  const int32_t nb = a.begin.count;
  const int32_t ne = a.end.count;
  const int32_t ns = a.strides.count;
  const bool has_axes = !a.axes_is_none;
  const int32_t na = has_axes ? a.axes.count : rank;
  if (has_axes ? (nb != na || ne != na || ns > na)
               : (nb > rank || ne > rank || ns > rank)) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "strided_slice: begin (%d), end (%d), strides (%d) and axes "
                     "(%d) do not fit rank %d",
                     (int)nb, (int)ne, (int)ns, has_axes ? (int)na : -1, (int)rank);
  }
  rt_plan_strided_slice_t *p = out_plan;
  p->rank = rank;
  for (int32_t d = 0; d < rank; ++d) {
    p->begin[d] = in[0].shape[d] == RT_DIM_ANY ? RT_DIM_ANY : 0;
    p->stride[d] = 1;
    p->extent[d] = in[0].shape[d];
  }
  for (int32_t k = 0; k < na; ++k) {
    int32_t axis = k;
    if (has_axes) {
      RT_RETURN_IF_ERROR(rt_ir_op_axis(rt_attr_list_int(a.axes, k), rank, &axis));
    }
    int64_t stride = k < ns ? rt_attr_list_int(a.strides, k) : 1;
    if (size_mode) stride = 1;
    if (stride == 0) {
      return RT_STATUS(INVALID_ARGUMENT, "strided_slice: stride 0 on axis %d", (int)axis);
    }
    /* Missing begin/end entries cover the whole axis (TVM pads them). */
    int64_t begin = k < nb ? rt_attr_list_int(a.begin, k)
                           : (stride > 0 ? 0 : INT64_MAX);
    int64_t end;
    if (k >= ne) {
      end = stride < 0 ? 0 : INT64_MAX;
    } else {
      end = rt_attr_list_int(a.end, k);
      if (size_mode) {
        end = end < 0 ? INT64_MAX
              : __builtin_add_overflow(begin, end, &end) ? INT64_MAX : end;
      }
    }
    const int64_t dim = in[0].shape[axis];
    p->stride[axis] = stride;
    if (dim == RT_DIM_ANY) {
      p->begin[axis] = p->extent[axis] = RT_DIM_ANY;
      continue;
    }
    int64_t b = canonical_index(begin, dim, stride);
    int64_t e = canonical_index(end, dim, stride);
    if (stride < 0 ? e > b : b > e) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "strided_slice: begin %lld and end %lld are reversed for "
                       "stride %lld on axis %d (dim %lld)",
                       (long long)begin, (long long)end, (long long)stride,
                       (int)axis, (long long)dim);
    }
    /* In unsigned: the step of stride INT64_MIN is 2^63. */
    uint64_t interval = (uint64_t)(stride < 0 ? b - e : e - b);
    uint64_t step = stride < 0 ? 0 - (uint64_t)stride : (uint64_t)stride;
    p->begin[axis] = b;
    p->extent[axis] = (int64_t)(interval / step + (interval % step != 0));
  }
  return RT_OK;
}

rt_status_t rt_ir_rel_strided_slice(const rt_ir_rel_ctx_t *ctx,
                                    rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  rt_plan_input_t in;
  rt_ir_plan_input_of_type(x, &in);
  rt_plan_strided_slice_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_strided_slice(ctx->attrs, 1, &in, &p));
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, p.rank, p.extent, out_type);
}

rt_status_t rt_ir_plan_take(const rt_ir_attrs_t *attrs, int32_t n,
                            const rt_plan_input_t *in, rt_plan_take_t *out_plan) {
  if (n < 2) return RT_STATUS(INVALID_ARGUMENT, "take needs data and indices");
  const rt_attrs_take_t a = rt_ir_attrs_take(attrs);
  const rt_plan_input_t *x = &in[0], *idx = &in[1];
  rt_plan_take_t *p = out_plan;
  const char *mode = a.mode;
  if (strcmp(mode, "clip") == 0) {
    p->mode = RT_TAKE_CLIP;
  } else if (strcmp(mode, "wrap") == 0) {
    p->mode = RT_TAKE_WRAP;
  } else if (strcmp(mode, "fast") == 0) {
    p->mode = RT_TAKE_FAST;
  } else {
    return RT_STATUS(INVALID_ARGUMENT, "take: unknown mode \"%s\" (clip, wrap, fast)", mode);
  }
  p->flat = a.axis_is_none;
  p->axis = p->batch_dims = 0;
  p->out_rank = 0;
  if (p->flat) {
    RT_RETURN_IF_ERROR(rt_ir_op_check_rank(idx->rank));
    p->out_rank = idx->rank;
    for (int32_t i = 0; i < idx->rank; ++i) p->out_shape[i] = idx->shape[i];
    return RT_OK;
  }
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(a.axis, x->rank, &axis));
  int64_t bd = a.batch_dims;
  if (bd < 0) bd += idx->rank;
  if (bd < 0 || bd > idx->rank || bd > axis) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "take: batch_dims %lld must be within the indices rank %d and <= axis %d",
                     (long long)a.batch_dims, (int)idx->rank, (int)axis);
  }
  p->axis = axis;
  p->batch_dims = (int32_t)bd;
  int64_t *out = p->out_shape;
  int32_t r = 0;
  for (int32_t i = 0; i < axis; ++i) RT_RETURN_IF_ERROR(push_dim(out, &r, x->shape[i]));
  for (int32_t i = (int32_t)bd; i < idx->rank; ++i) RT_RETURN_IF_ERROR(push_dim(out, &r, idx->shape[i]));
  for (int32_t i = axis + 1; i < x->rank; ++i) RT_RETURN_IF_ERROR(push_dim(out, &r, x->shape[i]));
  p->out_rank = r;
  return RT_OK;
}

rt_status_t rt_ir_rel_take(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *idx;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &idx));
  RT_RETURN_IF_ERROR(int_indices(idx, "take: indices"));
  rt_plan_input_t in[2];
  rt_ir_plan_input_of_type(x, &in[0]);
  rt_ir_plan_input_of_type(idx, &in[1]);
  rt_plan_take_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_take(ctx->attrs, 2, in, &p));
  if (p.flat) return rt_ir_op_retype(ctx, idx, x->tensor.dtype, out_type);
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, p.out_rank, p.out_shape, out_type);
}

rt_status_t rt_ir_plan_gather(const rt_ir_attrs_t *attrs, int32_t n,
                              const rt_plan_input_t *in, rt_plan_gather_t *out_plan) {
  if (n < 2) return RT_STATUS(INVALID_ARGUMENT, "gather needs data and indices");
  const rt_attrs_gather_t a = rt_ir_attrs_gather(attrs);
  if (a.axis_is_none) {
    return RT_STATUS(INVALID_ARGUMENT, "gather requires attribute 'axis'");
  }
  RT_RETURN_IF_ERROR(rt_ir_op_axis(a.axis, in[0].rank, &out_plan->axis));
  if (in[1].rank != in[0].rank) {
    return RT_STATUS(INVALID_ARGUMENT, "gather: indices have rank %d but data rank %d",
                     (int)in[1].rank, (int)in[0].rank);
  }
  return RT_OK;
}

rt_status_t rt_ir_rel_gather(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *idx;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &idx));
  RT_RETURN_IF_ERROR(int_indices(idx, "gather: indices"));
  rt_plan_input_t in[2];
  rt_ir_plan_input_of_type(x, &in[0]);
  rt_ir_plan_input_of_type(idx, &in[1]);
  rt_plan_gather_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_gather(ctx->attrs, 2, in, &p));
  return rt_ir_op_retype(ctx, idx, x->tensor.dtype, out_type);
}

/* gather_nd: indices (M, Y...) index the first M axes (after batch_dims)
 * of data: out = Y... + data[batch_dims + M:]. */
rt_status_t rt_ir_rel_gather_nd(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *idx;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &idx));
  RT_RETURN_IF_ERROR(int_indices(idx, "gather_nd: indices"));
  if (idx->tensor.rank < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "gather_nd: indices need rank >= 1");
  }
  const rt_attrs_gather_nd_t a = rt_ir_attrs_gather_nd(ctx->attrs);
  int64_t m = idx->tensor.shape[0];
  if (m == RT_DIM_ANY) {
    if (a.index_rank_is_none) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "gather_nd: the first dim of indices is dynamic; set index_rank");
    }
    m = a.index_rank;
  }
  const int64_t bd = a.batch_dims;
  if (bd < 0 || m < 0 || m + bd > x->tensor.rank) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "gather_nd: %lld index dims after %lld batch dims exceed data rank %d",
                     (long long)m, (long long)bd, (int)x->tensor.rank);
  }
  int64_t out[MAXR];
  int32_t r = 0;
  for (int32_t i = 1; i < idx->tensor.rank; ++i) RT_RETURN_IF_ERROR(push_dim(out, &r, idx->tensor.shape[i]));
  for (int32_t i = (int32_t)(m + bd); i < x->tensor.rank; ++i) RT_RETURN_IF_ERROR(push_dim(out, &r, x->tensor.shape[i]));
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, r, out, out_type);
}

/* ---- broadcasting and repetition ---------------------------------------- */

/* The `shape` attribute as dims (each >= 0). */
static rt_status_t shape_attr(const rt_ir_rel_ctx_t *ctx, int64_t *out, int32_t *out_rank) {
  const rt_attr_list_t shape = rt_ir_attrs_init(ctx->attrs).shape;
  int32_t n = shape.count;
  RT_RETURN_IF_ERROR(rt_ir_op_check_rank(n));
  for (int32_t i = 0; i < n; ++i) {
    out[i] = rt_attr_list_int(shape, i);
    if (out[i] < 0) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: shape has a negative dim %lld",
                       ctx->op->name, (long long)out[i]);
    }
  }
  *out_rank = n;
  return RT_OK;
}

rt_status_t rt_ir_rel_broadcast_to(const rt_ir_rel_ctx_t *ctx,
                                   rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int64_t target[MAXR], got[MAXR];
  int32_t r = 0, gr = 0;
  RT_RETURN_IF_ERROR(shape_attr(ctx, target, &r));
  rt_status_t st = rt_ir_op_broadcast(x->tensor.rank, x->tensor.shape, r, target,
                                      &gr, got);
  bool ok = st == RT_OK && gr == r;
  for (int32_t i = 0; ok && i < r; ++i) ok = got[i] == target[i];
  rt_status_free(st);
  if (!ok) {
    char sa[RT_IR_OP_MSG_MAX], sb[RT_IR_OP_MSG_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "cannot broadcast %s to %s",
                     rt_ir_op_shape_text(x->tensor.rank, x->tensor.shape, sa, sizeof sa),
                     rt_ir_op_shape_text(r, target, sb, sizeof sb));
  }
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, r, target, out_type);
}

rt_status_t rt_ir_rel_tile(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  const int32_t nd = x->tensor.rank;
  const rt_attr_list_t reps = rt_ir_attrs_tile(ctx->attrs).reps;
  const int32_t nr = reps.count;
  RT_RETURN_IF_ERROR(rt_ir_op_check_rank(nr));
  const int32_t r = nd > nr ? nd : nr;
  int64_t out[MAXR];
  for (int32_t i = 0; i < r; ++i) {
    /* Both are padded with leading 1s to the same rank. */
    int64_t d = i < r - nd ? 1 : x->tensor.shape[i - (r - nd)];
    int64_t rep = i < r - nr ? 1 : rt_attr_list_int(reps, i - (r - nr));
    if (rep < 0) {
      return RT_STATUS(INVALID_ARGUMENT, "tile: negative reps %lld", (long long)rep);
    }
    RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(d, rep, &out[i]));
  }
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, r, out, out_type);
}

rt_status_t rt_ir_rel_repeat(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  const rt_attrs_repeat_t a = rt_ir_attrs_repeat(ctx->attrs);
  if (a.axis_is_none) {
    return RT_STATUS(INVALID_ARGUMENT, "repeat requires attribute 'axis'");
  }
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(a.axis, x->tensor.rank, &axis));
  int64_t repeats = a.repeats;
  if (repeats < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "repeat: repeats must be >= 1, got %lld",
                     (long long)repeats);
  }
  int64_t out[MAXR];
  memcpy(out, x->tensor.shape, (size_t)x->tensor.rank * sizeof out[0]);
  RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(out[axis], repeats, &out[axis]));
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, x->tensor.rank, out, out_type);
}

rt_status_t rt_ir_rel_reverse(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  const rt_attrs_reverse_t a = rt_ir_attrs_reverse(ctx->attrs);
  if (a.axis_is_none) {
    return RT_STATUS(INVALID_ARGUMENT, "reverse requires attribute 'axis'");
  }
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_ir_op_axis(a.axis, x->tensor.rank, &axis));
  *out_type = ctx->args[0];
  return RT_OK;
}

rt_status_t rt_ir_plan_pad(const rt_ir_attrs_t *attrs, int32_t n,
                           const rt_plan_input_t *in, rt_plan_pad_t *out_plan) {
  if (n < 1) return RT_STATUS(INVALID_ARGUMENT, "nn.pad needs its data input");
  const rt_attrs_pad_t a = rt_ir_attrs_pad(attrs);
  rt_plan_pad_t *p = out_plan;
  const char *mode = a.pad_mode;
  if (strcmp(mode, "constant") == 0) {
    p->mode = RT_PAD_CONSTANT;
  } else if (strcmp(mode, "edge") == 0) {
    p->mode = RT_PAD_EDGE;
  } else if (strcmp(mode, "reflect") == 0) {
    p->mode = RT_PAD_REFLECT;
  } else {
    return RT_STATUS(INVALID_ARGUMENT,
                     "nn.pad: unknown pad_mode \"%s\" (constant, edge, reflect)", mode);
  }
  const rt_attr_list_t pw = a.pad_width;
  const int32_t rank = in[0].rank;
  RT_RETURN_IF_ERROR(rt_ir_op_check_rank(rank));
  if (pw.count != rank) {
    return RT_STATUS(INVALID_ARGUMENT, "nn.pad: pad_width has %d entries for rank %d",
                     (int)pw.count, (int)rank);
  }
  p->rank = rank;
  for (int32_t i = 0; i < rank; ++i) {
    const rt_attr_list_t pair = rt_attr_list_list(pw, i);
    if (pair.count != 2) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "nn.pad: pad_width entry %d must be [before, after]", (int)i);
    }
    const int64_t before = rt_attr_list_int(pair, 0), after = rt_attr_list_int(pair, 1);
    const int64_t d = in[0].shape[i];
    int64_t sum;
    p->before[i] = before;
    p->after[i] = after;
    if (d == RT_DIM_ANY) {
      p->out_shape[i] = RT_DIM_ANY;
    } else if (__builtin_add_overflow(before, after, &sum) ||
               __builtin_add_overflow(d, sum, &p->out_shape[i]) || p->out_shape[i] < 0) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "nn.pad: padding [%lld, %lld] leaves no valid size for dim %lld",
                       (long long)before, (long long)after, (long long)d);
    }
  }
  return RT_OK;
}

rt_status_t rt_ir_rel_pad(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *value;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &value));
  rt_plan_input_t in[2];
  rt_ir_plan_input_of_type(x, &in[0]);
  rt_ir_plan_input_of_type(value, &in[1]);
  rt_plan_pad_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_pad(ctx->attrs, 2, in, &p));
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, p.rank, p.out_shape, out_type);
}

/* ---- layouts -------------------------------------------------------------- */

/* A parsed layout: axis i is primal letter `name[i]` (upper case, factor
 * 0) or a split of it (lower case in text, factor > 0). */
typedef struct layout_t {
  int32_t rank;
  char name[MAXR];
  int64_t factor[MAXR];
} layout_t;

static rt_status_t parse_layout(const char *text, layout_t *out) {
  out->rank = 0;
  const char *p = text;
  while (*p) {
    int64_t factor = 0;
    while (*p >= '0' && *p <= '9') {
      if (factor > (INT64_C(1) << 40)) break;
      factor = factor * 10 + (*p++ - '0');
    }
    char c = *p;
    bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
    if ((factor > 0) != lower || !(upper || lower) || out->rank >= MAXR) {
      return RT_STATUS(INVALID_ARGUMENT, "layout_transform: bad layout \"%s\"", text);
    }
    char name = upper ? c : (char)(c - 'a' + 'A');
    for (int32_t i = 0; i < out->rank; ++i) {
      if (out->name[i] == name && (out->factor[i] > 0) == (factor > 0)) {
        return RT_STATUS(INVALID_ARGUMENT, "layout_transform: axis %c twice in \"%s\"",
                         c, text);
      }
    }
    out->name[out->rank] = name;
    out->factor[out->rank] = factor;
    out->rank++;
    p++;
  }
  /* A split axis needs its primal axis. */
  for (int32_t i = 0; i < out->rank; ++i) {
    bool found = false;
    for (int32_t j = 0; j < out->rank && !found; ++j) {
      found = out->factor[j] == 0 && out->name[j] == out->name[i];
    }
    if (!found) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "layout_transform: \"%s\" splits %c without having it", text,
                       out->name[i]);
    }
  }
  return RT_OK;
}

static int32_t find_axis(const layout_t *l, char name, bool split) {
  for (int32_t i = 0; i < l->rank; ++i) {
    if (l->name[i] == name && (l->factor[i] > 0) == split) return i;
  }
  return -1;
}

/* The relation's error for a split that does not divide. */
static rt_status_t split_pads_error(const rt_plan_layout_transform_t *p) {
  return RT_STATUS(INVALID_ARGUMENT,
                   "layout_transform: axis %c of size %lld does not split by %lld",
                   p->pad_axis, (long long)p->pad_size, (long long)p->pad_factor);
}

rt_status_t rt_ir_plan_layout_transform(const rt_ir_attrs_t *attrs, int32_t n,
                                        const rt_plan_input_t *in,
                                        rt_plan_layout_transform_t *out_plan) {
  if (n < 1) return RT_STATUS(INVALID_ARGUMENT, "layout_transform needs its data input");
  const rt_attrs_layout_transform_t a = rt_ir_attrs_layout_transform(attrs);
  const char *src_text = a.src_layout;
  const char *dst_text = a.dst_layout;
  const int32_t rank = in[0].rank;
  const int64_t *shape = in[0].shape;
  layout_t src, dst;
  RT_RETURN_IF_ERROR(parse_layout(src_text, &src));
  RT_RETURN_IF_ERROR(parse_layout(dst_text, &dst));
  if (src.rank != rank) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "layout_transform: src_layout \"%s\" has %d axes but data rank %d",
                     src_text, (int)src.rank, (int)rank);
  }
  /* Same primal axes on both sides. */
  for (int32_t pass = 0; pass < 2; ++pass) {
    const layout_t *l = pass ? &dst : &src, *o = pass ? &src : &dst;
    for (int32_t i = 0; i < l->rank; ++i) {
      if (l->factor[i] == 0 && find_axis(o, l->name[i], false) < 0) {
        return RT_STATUS(INVALID_ARGUMENT,
                         "layout_transform: \"%s\" and \"%s\" have different axes",
                         src_text, dst_text);
      }
    }
  }
  rt_plan_layout_transform_t *p = out_plan;
  p->src_rank = src.rank;
  p->dst_rank = dst.rank;
  p->split_pads = false;
  int64_t *out = p->out_shape;
  for (int32_t i = 0; i < dst.rank; ++i) {
    const char name = dst.name[i];
    if (dst.factor[i] > 0) {
      out[i] = dst.factor[i];
      continue;
    }
    /* Full extent of the primal axis in the source. */
    int32_t sp = find_axis(&src, name, false), ss = find_axis(&src, name, true);
    int64_t full = shape[sp];
    if (ss >= 0) {
      int64_t sub = shape[ss];
      if (sub != RT_DIM_ANY && sub != src.factor[ss]) {
        if (p->split_pads) return split_pads_error(p); /* the first error */
        return RT_STATUS(INVALID_ARGUMENT,
                         "layout_transform: axis %lld%c has size %lld",
                         (long long)src.factor[ss], name - 'A' + 'a', (long long)sub);
      }
      rt_status_t st = rt_ir_op_dim_mul(full, src.factor[ss], &full);
      if (st && p->split_pads) {
        rt_status_free(st);
        return split_pads_error(p);
      }
      RT_RETURN_IF_ERROR(st);
    }
    int32_t ds = find_axis(&dst, name, true);
    if (ds >= 0 && full != RT_DIM_ANY) {
      const int64_t f = dst.factor[ds];
      if (full % f != 0 && !p->split_pads) {
        p->split_pads = true;
        p->pad_axis = name;
        p->pad_size = full;
        p->pad_factor = f;
      }
      full = full / f + (full % f != 0);
    }
    out[i] = full;
  }
  for (int32_t k = 0; k < src.rank; ++k) {
    const char name = src.name[k];
    const int32_t ss = find_axis(&src, name, true), ds = find_axis(&dst, name, true);
    p->src_factor[k] = src.factor[k];
    p->src_primal[k] = find_axis(&src, name, false);
    p->src_inner[k] = ss >= 0 ? src.factor[ss] : 1;
    p->dst_primal[k] = find_axis(&dst, name, false);
    p->dst_split[k] = ds;
    p->dst_inner[k] = ds >= 0 ? dst.factor[ds] : 1;
  }
  return RT_OK;
}

rt_status_t rt_ir_rel_layout_transform(const rt_ir_rel_ctx_t *ctx,
                                       rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  rt_plan_input_t in;
  rt_ir_plan_input_of_type(x, &in);
  rt_plan_layout_transform_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_layout_transform(ctx->attrs, 1, &in, &p));
  if (p.split_pads) return split_pads_error(&p);
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, p.dst_rank, p.out_shape, out_type);
}

rt_status_t rt_ir_rel_one_hot(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *idx, *on, *off;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &idx));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &on));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 2, &off));
  RT_RETURN_IF_ERROR(int_indices(idx, "one_hot: indices"));
  if (on->tensor.rank != 0 || off->tensor.rank != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "one_hot: on_value and off_value must be scalars");
  }
  const rt_attrs_one_hot_t a = rt_ir_attrs_one_hot(ctx->attrs);
  int64_t depth = a.depth;
  if (depth < 0) {
    return RT_STATUS(INVALID_ARGUMENT, "one_hot: negative depth %lld", (long long)depth);
  }
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", on->tensor.dtype, &dt));
  int64_t out[MAXR];
  int32_t r = 0;
  RT_RETURN_IF_ERROR(insert_dims(idx, a.axis, 1, depth, out, &r));
  return rt_ir_op_make_tensor(ctx, dt, r, out, out_type);
}

rt_status_t rt_ir_plan_subpixel(const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                                int32_t n, const rt_plan_input_t *in,
                                rt_plan_subpixel_t *out_plan) {
  if (n < 1) return RT_STATUS(INVALID_ARGUMENT, "%s needs its data input", op->name);
  const rt_attrs_subpixel_t a = rt_ir_attrs_subpixel(attrs);
  rt_plan_subpixel_t *p = out_plan;
  const bool to_space = op->id == RT_OP_NN_DEPTH_TO_SPACE;
  p->to_space = to_space;
  int32_t *pos = p->pos; /* N, C, H, W */
  RT_RETURN_IF_ERROR(rt_ir_op_layout_perm(op->name, "layout", a.layout, "NCHW", pos));
  if (in[0].rank != 4) {
    return RT_STATUS(INVALID_ARGUMENT, "%s needs a 4-d input, got rank %d",
                     op->name, (int)in[0].rank);
  }
  const char *mode = a.mode;
  /* The kernels (interp/, jit/) implement DCR and CRD (ONNX's names). */
  if (strcmp(mode, "DCR") == 0) {
    p->mode = RT_SUBPIXEL_DCR;
  } else if (strcmp(mode, "CRD") == 0) {
    p->mode = RT_SUBPIXEL_CRD;
  } else {
    return RT_STATUS(INVALID_ARGUMENT, "%s: unknown mode \"%s\" (DCR, CRD)",
                     op->name, mode);
  }
  const int64_t b = a.block_size;
  if (b < 1 || b > (INT64_C(1) << 20)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: block_size %lld", op->name, (long long)b);
  }
  p->block_size = b;
  int64_t *out = p->out_shape;
  memcpy(out, in[0].shape, 4 * sizeof out[0]);
  int64_t *c = &out[pos[1]], *h = &out[pos[2]], *w = &out[pos[3]];
  /* The dims that get divided must divide. */
  int64_t *div[2] = {c, NULL};
  int64_t divisor = b * b;
  if (!to_space) {
    div[0] = h;
    div[1] = w;
    divisor = b;
  }
  for (int i = 0; i < 2 && div[i]; ++i) {
    if (*div[i] != RT_DIM_ANY && *div[i] % divisor != 0) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: dim %lld is not divisible by %lld",
                       op->name, (long long)*div[i], (long long)divisor);
    }
  }
  if (to_space) {
    if (*c != RT_DIM_ANY) *c /= b * b;
    RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(*h, b, h));
    RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(*w, b, w));
  } else {
    RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(*c, b * b, c));
    if (*h != RT_DIM_ANY) *h /= b;
    if (*w != RT_DIM_ANY) *w /= b;
  }
  return RT_OK;
}

static rt_status_t subpixel(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  rt_plan_input_t in;
  rt_ir_plan_input_of_type(x, &in);
  rt_plan_subpixel_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_subpixel(ctx->op, ctx->attrs, 1, &in, &p));
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, 4, p.out_shape, out_type);
}

rt_status_t rt_ir_rel_depth_to_space(const rt_ir_rel_ctx_t *ctx,
                                     rt_ir_type_t **out_type) {
  return subpixel(ctx, out_type);
}

rt_status_t rt_ir_rel_space_to_depth(const rt_ir_rel_ctx_t *ctx,
                                     rt_ir_type_t **out_type) {
  return subpixel(ctx, out_type);
}

/* ---- creation and shapes -------------------------------------------------- */

rt_status_t rt_ir_rel_init(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  int64_t shape[MAXR];
  int32_t r = 0;
  RT_RETURN_IF_ERROR(shape_attr(ctx, shape, &r));
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", RT_DTYPE_FLOAT32, &dt));
  return rt_ir_op_make_tensor(ctx, dt, r, shape, out_type);
}

rt_status_t rt_ir_rel_full(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *fill;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &fill));
  if (fill->tensor.rank != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "full: the fill value must be a scalar, got rank %d",
                     (int)fill->tensor.rank);
  }
  int64_t shape[MAXR];
  int32_t r = 0;
  RT_RETURN_IF_ERROR(shape_attr(ctx, shape, &r));
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", fill->tensor.dtype, &dt));
  return rt_ir_op_make_tensor(ctx, dt, r, shape, out_type);
}

/* The length depends on the values of start/stop/step, which a relation
 * does not see: always `?` (FoldConstant/DynamicToStatic make it static). */
rt_status_t rt_ir_rel_arange(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  static const char *const names[3] = {"start", "stop", "step"};
  const rt_ir_type_t *t[3];
  for (int32_t i = 0; i < 3; ++i) {
    RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, i, &t[i]));
    if (t[i]->tensor.rank != 0) {
      return RT_STATUS(INVALID_ARGUMENT, "arange: %s must be a scalar, got rank %d",
                       names[i], (int)t[i]->tensor.rank);
    }
  }
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", t[0]->tensor.dtype, &dt));
  int64_t n = RT_DIM_ANY;
  return rt_ir_op_make_tensor(ctx, dt, 1, &n, out_type);
}

rt_status_t rt_ir_rel_shape_of(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", RT_DTYPE_INT32, &dt));
  int64_t n = x->tensor.rank;
  return rt_ir_op_make_tensor(ctx, dt, 1, &n, out_type);
}

rt_status_t rt_ir_rel_ndarray_size(const rt_ir_rel_ctx_t *ctx,
                                   rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "dtype", RT_DTYPE_INT32, &dt));
  return rt_ir_op_make_tensor(ctx, dt, 0, NULL, out_type);
}

/* dyn.reshape(data, newshape): the output's rank is newshape's (static)
 * length; every dim is `?`, because the values arrive at run time (the vm
 * runs it as a view, runtime/vm_ops.def ReshapeDyn; the interpreter's
 * kernel sizes its output from the values). newshape is a 1-d int tensor. */
rt_status_t rt_ir_rel_dyn_reshape(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *s;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &s));
  rt_dtype_t sd = s->tensor.dtype;
  if (s->tensor.rank != 1 || (sd.code != kDLInt && sd.code != kDLUInt) || sd.lanes != 1) {
    char name[RT_DTYPE_NAME_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "dyn.reshape: newshape must be a 1-d int tensor, got a "
                     "rank-%d %s tensor", (int)s->tensor.rank, rt_dtype_name(sd, name));
  }
  int64_t n = s->tensor.shape[0];
  if (n == RT_DIM_ANY) {
    return RT_STATUS(INVALID_ARGUMENT, "dyn.reshape: newshape must have a static length (it is "
                     "the output's rank), got `?`");
  }
  if (n > MAXR) {
    return RT_STATUS(INVALID_ARGUMENT, "dyn.reshape: newshape has %lld values, past the rank "
                     "limit %d", (long long)n, MAXR);
  }
  int64_t dims[MAXR];
  for (int64_t d = 0; d < n; ++d) dims[d] = RT_DIM_ANY;
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, (int32_t)n, dims, out_type);
}
