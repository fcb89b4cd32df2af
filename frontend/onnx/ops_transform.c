/* ONNX converters, part two: data movement: Reshape, Flatten, Transpose,
 * Concat, Squeeze/Unsqueeze, Shape/Size, Gather*, Slice, Split, Expand,
 * Tile, ConstantOfShape, Range, Constant, Dropout, Pad, DepthToSpace /
 * SpaceToDepth, OneHot, Trilu, CumSum, TopK; their table is
 * rt_onnx_transform_ops (looked up by ops.c).
 *
 * Operands that ONNX passes as inputs but Relay holds as attributes
 * (Reshape's shape, Slice's starts/ends/axes/steps since opset 10,
 * Squeeze/Unsqueeze/Split axes since 13, Pad's pads since 11, Tile's
 * repeats, Expand's shape) are read when they are constants; otherwise
 * the converter emits the dyn op (ir/op/dyn.h), which reads them at run
 * time (the debug and vm executors run it; DynamicToStatic makes it static
 * when a later fold makes them constants). Where the values decide the
 * output's rank (Squeeze/Unsqueeze), the rank comes from the model's
 * declared type of the output. Gather wraps negative
 * indices (take mode=wrap) and GatherND's index tuples move to the front
 * (TVM's gather_nd). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/onnx/onnx_impl.h"
#include "runtime/strbuf.h"

#define MAXR RT_TENSOR_MAX_RANK

/* The declared rank of output 0, which a dyn op whose values decide it
 * needs: an error naming `what` when the model declares none. */
static rt_status_t output_rank(rt_onnx_ctx_t *cx, const char *what, const char **out_text) {
  int32_t r = 0;
  if (!rt_onnx_output_rank(cx, 0, &r)) {
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED,
                              "%s known only at run time decide the output's rank, and the model "
                              "does not declare the output's shape: this is not supported", what);
  }
  *out_text = rt_onnx_int_text(cx, r);
  return RT_OK;
}

/* A 1-d int64 constant of n copies of v (a default operand of a dyn op). */
static rt_status_t fill_i64(rt_onnx_ctx_t *cx, int64_t n, int64_t v, rt_ir_expr_t **out) {
  int64_t vals[MAXR];
  for (int64_t i = 0; i < n; ++i) vals[i] = v;
  return rt_onnx_const_i64(cx, 1, n, vals, out);
}

/* The static length of a 1-d operand, or an error naming it. */
static rt_status_t static_len(rt_onnx_ctx_t *cx, const rt_ir_expr_t *e, int32_t i, const char *what,
                              int64_t *out_n) {
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, e, i, &t));
  if (t->tensor.rank != 1 || t->tensor.shape[0] == RT_DIM_ANY || t->tensor.shape[0] > MAXR) {
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED, "%s known only at run time must be a 1-d "
                              "tensor of a static length (at most %d): this is not supported", what, MAXR);
  }
  *out_n = t->tensor.shape[0];
  return RT_OK;
}

/* ---- data movement ------------------------------------------------------- */

static rt_status_t reshape_to(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, int32_t n,
                              const int64_t *shape, bool allowzero, rt_ir_expr_t **out) {
  return rt_onnx_call(cx, "reshape", 1, &x, out, "newshape", rt_onnx_ints_text(cx, n, shape),
                      "allowzero", allowzero ? "True" : "False", NULL);
}

static rt_status_t cv_reshape(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                              rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  bool allowzero = cx->opset >= 14 && rt_onnx_attr_int(cx, "allowzero", 0) != 0;
  if (rt_onnx_is_runtime(in[1])) {
    /* A shape known only at run time (a graph input, or computed from `?`
     * dims): dyn.reshape, which the debug and vm executors run (the graph
     * executor refuses it; binding the inputs at load, --const-input or
     * --shape, makes it a static reshape instead). */
    const rt_ir_type_t *st = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[1], 1, &st));
    if (st->tensor.rank == 1 && st->tensor.shape[0] != RT_DIM_ANY) {
      return rt_onnx_call(cx, "dyn.reshape", 2, in, &out[0], "allowzero",
                          allowzero ? "True" : "False", NULL);
    }
  }
  int64_t shape[MAXR];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[1], "the shape", MAXR, shape, &n));
  for (int32_t i = 0; i < n; ++i) {
    if (shape[i] < -1) return rt_onnx_bad(cx, "shape values must be >= -1");
  }
  return reshape_to(cx, in[0], n, shape, allowzero, &out[0]);
}

static rt_status_t cv_flatten(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                              rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  int32_t r = t->tensor.rank;
  int64_t axis = rt_onnx_attr_int(cx, "axis", 1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r) return rt_onnx_bad(cx, "axis is out of range");
  int64_t lead = 1, trail = 1;
  bool lead_known = true, trail_known = true;
  for (int32_t d = 0; d < r; ++d) {
    int64_t s = t->tensor.shape[d];
    if (d < axis) { if (s < 0) lead_known = false; else lead *= s; }
    else { if (s < 0) trail_known = false; else trail *= s; }
  }
  if (!lead_known && !trail_known) return rt_onnx_unsupported(cx, "Flatten with `?` dims on both sides of axis");
  int64_t shape[2] = {lead_known ? lead : -1, lead_known ? -1 : trail};
  if (lead_known && trail_known) shape[1] = trail;
  return reshape_to(cx, in[0], 2, shape, false, &out[0]);
}

static rt_status_t cv_transpose(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  int32_t n = 0;
  const int64_t *perm = NULL;
  if (!rt_onnx_attr_ints(cx, "perm", &n, &perm)) {
    return rt_onnx_call(cx, "transpose", 1, in, &out[0], NULL);
  }
  return rt_onnx_call(cx, "transpose", 1, in, &out[0], "axes", rt_onnx_ints_text(cx, n, perm), NULL);
}

static rt_status_t cv_concat(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                             rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  int64_t axis = rt_onnx_attr_int(cx, "axis", 0);
  RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axis, rt_onnx_rank(in[0])));
  rt_ir_expr_t *fields[64];
  int32_t n = 0;
  for (int32_t i = 0; i < nin; ++i) {
    if (!in[i]) continue;
    /* Empty inputs are allowed by ONNX; they add nothing. */
    const rt_ir_type_t *t = rt_onnx_type(in[i]);
    if (t && t->tensor.rank > axis && t->tensor.shape[axis] == 0 && nin > 1) continue;
    fields[n++] = in[i];
  }
  if (n == 0) fields[n++] = in[0];
  if (n == 1) {
    out[0] = fields[0];
    return RT_OK;
  }
  rt_ir_expr_t *tup = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tuple(cx, n, fields, &tup));
  return rt_onnx_call(cx, "concatenate", 1, &tup, &out[0], "axis", rt_onnx_int_text(cx, axis), NULL);
}

/* Axes of Squeeze/Unsqueeze: attribute before opset 13, input from it. */
static rt_status_t squeeze_axes(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                int64_t *axes, int32_t *n, bool *given) {
  *n = 0;
  *given = false;
  if (cx->opset >= 13) {
    if (nin > 1 && in[1]) {
      RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[1], "axes", MAXR, axes, n));
      *given = true;
    }
    return RT_OK;
  }
  const int64_t *v = NULL;
  if (rt_onnx_attr_ints(cx, "axes", n, &v)) {
    if (*n > MAXR) return rt_onnx_bad(cx, "too many axes");
    memcpy(axes, v, (size_t)*n * sizeof(int64_t));
    *given = true;
  }
  return RT_OK;
}

/* Squeeze/Unsqueeze with axes known only at run time. */
static rt_status_t dyn_squeeze(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, rt_ir_expr_t **out,
                               const char *op) {
  const char *rank = NULL;
  RT_RETURN_IF_ERROR(output_rank(cx, "axes", &rank));
  return rt_onnx_call(cx, op, 2, in, &out[0], "rank", rank, NULL);
}

static rt_status_t cv_squeeze(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                              rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  if (cx->opset >= 13 && nin > 1 && rt_onnx_is_runtime(in[1])) return dyn_squeeze(cx, in, out, "dyn.squeeze");
  int64_t axes[MAXR];
  int32_t n = 0;
  bool given = false;
  RT_RETURN_IF_ERROR(squeeze_axes(cx, in, nin, axes, &n, &given));
  int32_t r = rt_onnx_rank(in[0]);
  for (int32_t i = 0; i < n; ++i) RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axes[i], r));
  return rt_onnx_call(cx, "squeeze", 1, in, &out[0], "axis",
                      given ? rt_onnx_ints_text(cx, n, axes) : "None", NULL);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static rt_status_t cv_unsqueeze(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  if (cx->opset >= 13 && nin > 1 && rt_onnx_is_runtime(in[1])) {
    return dyn_squeeze(cx, in, out, "dyn.expand_dims");
  }
  int64_t axes[MAXR];
  int32_t n = 0;
  bool given = false;
  RT_RETURN_IF_ERROR(squeeze_axes(cx, in, nin, axes, &n, &given));
  if (!given || n == 0) return rt_onnx_bad(cx, "Unsqueeze needs axes");
  int32_t r = rt_onnx_rank(in[0]) + n;
  if (r > MAXR) return rt_onnx_bad(cx, "rank too large");
  for (int32_t i = 0; i < n; ++i) RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axes[i], r));
  qsort(axes, (size_t)n, sizeof(int64_t), cmp_i64);
  rt_ir_expr_t *x = in[0];
  for (int32_t i = 0; i < n; ++i) {
    if (i && axes[i] == axes[i - 1]) return rt_onnx_bad(cx, "repeated axis");
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "expand_dims", 1, &x, &x, "axis",
                                    rt_onnx_int_text(cx, axes[i]), NULL));
  }
  out[0] = x;
  return RT_OK;
}

static rt_status_t cv_shape(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                            rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  int32_t r = t->tensor.rank;
  int64_t start = 0, end = r;
  if (cx->opset >= 15) {
    start = rt_onnx_attr_int(cx, "start", 0);
    end = rt_onnx_attr_int(cx, "end", r);
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = start < 0 ? 0 : start > r ? r : start;
    end = end < 0 ? 0 : end > r ? r : end;
    if (end < start) end = start;
  }
  bool known = true;
  for (int64_t d = start; d < end; ++d) known = known && t->tensor.shape[d] >= 0;
  if (known) return rt_onnx_const_i64(cx, 1, end - start, t->tensor.shape + start, &out[0]);
  rt_ir_expr_t *s = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "shape_of", 1, in, &s, "dtype", "\"int64\"", NULL));
  if (start == 0 && end == r) {
    out[0] = s;
    return RT_OK;
  }
  return rt_onnx_call(cx, "strided_slice", 1, &s, &out[0], "begin", rt_onnx_ints_text(cx, 1, &start),
                      "end", rt_onnx_ints_text(cx, 1, &end), NULL);
}

static rt_status_t cv_size(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                           rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  if (rt_onnx_static_shape(t)) {
    int64_t n = 1;
    for (int32_t d = 0; d < t->tensor.rank; ++d) n *= t->tensor.shape[d];
    return rt_onnx_const_i64(cx, 0, 1, &n, &out[0]);
  }
  return rt_onnx_call(cx, "ndarray_size", 1, in, &out[0], "dtype", "\"int64\"", NULL);
}

static rt_status_t cv_gather(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                             rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  int64_t axis = rt_onnx_attr_int(cx, "axis", 0);
  RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axis, rt_onnx_rank(in[0])));
  return rt_onnx_call(cx, "take", 2, in, &out[0], "axis", rt_onnx_int_text(cx, axis), "mode",
                      "\"wrap\"", NULL);
}

/* indices < 0 ? indices + dim : indices, where dim is static. */
static rt_status_t wrap_indices(rt_onnx_ctx_t *cx, rt_ir_expr_t *idx, int64_t dim,
                                rt_ir_expr_t **out) {
  rt_ir_expr_t *zero = NULL, *n = NULL, *c = NULL, *plus = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, idx, 0.0, &zero));
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, idx, (double)dim, &n));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "less", idx, zero, &c));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", idx, n, &plus));
  rt_ir_expr_t *args[3] = {c, plus, idx};
  return rt_onnx_call(cx, "where", 3, args, out, NULL);
}

static rt_status_t cv_gather_elements(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                      rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  int64_t axis = rt_onnx_attr_int(cx, "axis", 0);
  RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axis, t->tensor.rank));
  rt_ir_expr_t *args[2] = {in[0], in[1]};
  if (t->tensor.shape[axis] >= 0) {
    RT_RETURN_IF_ERROR(wrap_indices(cx, in[1], t->tensor.shape[axis], &args[1]));
  }
  return rt_onnx_call(cx, "gather", 2, args, &out[0], "axis", rt_onnx_int_text(cx, axis), NULL);
}

static rt_status_t cv_gather_nd(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  int32_t r = rt_onnx_rank(in[1]);
  if (r < 1) return rt_onnx_bad(cx, "indices must have rank >= 1");
  int64_t axes[MAXR];
  axes[0] = r - 1;
  for (int32_t d = 0; d + 1 < r; ++d) axes[d + 1] = d;
  rt_ir_expr_t *args[2] = {in[0], NULL};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "transpose", 1, &in[1], &args[1], "axes",
                                  rt_onnx_ints_text(cx, r, axes), NULL));
  int64_t bd = rt_onnx_attr_int(cx, "batch_dims", 0);
  return rt_onnx_call(cx, "gather_nd", 2, args, &out[0], "batch_dims", rt_onnx_int_text(cx, bd),
                      NULL);
}

static rt_status_t cv_slice(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                            rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  int32_t r = rt_onnx_rank(in[0]);
  int64_t starts[MAXR], ends[MAXR], axes[MAXR], steps[MAXR];
  int32_t ns = 0, ne = 0, na = -1, nst = -1;
  if (cx->opset < 10) {
    const int64_t *v = NULL;
    int32_t n = 0;
    if (!rt_onnx_attr_ints(cx, "starts", &n, &v) || n > MAXR) return rt_onnx_bad(cx, "starts is required");
    memcpy(starts, v, (size_t)n * sizeof(int64_t));
    ns = n;
    if (!rt_onnx_attr_ints(cx, "ends", &n, &v) || n > MAXR) return rt_onnx_bad(cx, "ends is required");
    memcpy(ends, v, (size_t)n * sizeof(int64_t));
    ne = n;
    if (rt_onnx_attr_ints(cx, "axes", &n, &v)) {
      if (n > MAXR) return rt_onnx_bad(cx, "too many axes");
      memcpy(axes, v, (size_t)n * sizeof(int64_t));
      na = n;
    }
  } else {
    RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 3));
    bool runtime = false;
    for (int32_t i = 1; i < nin && i < 5; ++i) runtime = runtime || rt_onnx_is_runtime(in[i]);
    if (runtime) {
      /* dyn.strided_slice(data, starts, ends, steps, axes), the absent
       * ones as ONNX's defaults (every axis from 0, steps of 1). */
      int64_t n = 0;
      RT_RETURN_IF_ERROR(static_len(cx, in[1], 1, "starts", &n));
      rt_ir_expr_t *args[5] = {in[0], in[1], in[2], nin > 4 ? in[4] : NULL, nin > 3 ? in[3] : NULL};
      if (!args[3]) RT_RETURN_IF_ERROR(fill_i64(cx, n, 1, &args[3]));
      if (!args[4]) {
        int64_t ax[MAXR];
        for (int64_t i = 0; i < n; ++i) ax[i] = i;
        RT_RETURN_IF_ERROR(rt_onnx_const_i64(cx, 1, n, ax, &args[4]));
      }
      return rt_onnx_call(cx, "dyn.strided_slice", 5, args, &out[0], NULL);
    }
    RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[1], "starts", MAXR, starts, &ns));
    RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[2], "ends", MAXR, ends, &ne));
    if (nin > 3 && in[3]) RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[3], "axes", MAXR, axes, &na));
    if (nin > 4 && in[4]) RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[4], "steps", MAXR, steps, &nst));
  }
  if (ne != ns || (na >= 0 && na != ns) || (nst >= 0 && nst != ns)) {
    return rt_onnx_bad(cx, "starts, ends, axes and steps differ in length");
  }
  if (na < 0) {
    for (int32_t i = 0; i < ns; ++i) axes[i] = i;
  }
  if (nst < 0) {
    for (int32_t i = 0; i < ns; ++i) steps[i] = 1;
  }
  for (int32_t i = 0; i < ns; ++i) {
    RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axes[i], r));
    if (steps[i] == 0) return rt_onnx_bad(cx, "steps must not be 0");
  }
  return rt_onnx_call(cx, "strided_slice", 1, in, &out[0], "begin", rt_onnx_ints_text(cx, ns, starts),
                      "end", rt_onnx_ints_text(cx, ns, ends), "strides",
                      rt_onnx_ints_text(cx, ns, steps), "axes", rt_onnx_ints_text(cx, ns, axes), NULL);
}

static rt_status_t cv_split(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                            rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  int64_t axis = rt_onnx_attr_int(cx, "axis", 0);
  RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axis, t->tensor.rank));
  if (nout < 1 || nout > 64) return rt_onnx_bad(cx, "bad number of outputs");
  int64_t sizes[64];
  int32_t n = 0;
  bool given = false;
  if (cx->opset >= 13 && nin > 1 && rt_onnx_is_runtime(in[1])) {
    rt_ir_expr_t *s = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "dyn.split", 2, in, &s, "axis", rt_onnx_int_text(cx, axis), NULL));
    const rt_ir_type_t *st = s->checked_type ? rt_ir_type_resolve(s->checked_type) : NULL;
    if (!st || st->kind != RT_IR_TYPE_TUPLE || st->tuple.count != nout) {
      return rt_onnx_bad(cx, "the number of splits does not match the outputs");
    }
    for (int32_t i = 0; i < nout; ++i) RT_RETURN_IF_ERROR(rt_onnx_get_item(cx, s, i, &out[i]));
    return RT_OK;
  }
  if (cx->opset >= 13) {
    if (nin > 1 && in[1]) {
      RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[1], "split", 64, sizes, &n));
      given = true;
    }
  } else {
    const int64_t *v = NULL;
    if (rt_onnx_attr_ints(cx, "split", &n, &v)) {
      if (n > 64) return rt_onnx_bad(cx, "too many splits");
      memcpy(sizes, v, (size_t)n * sizeof(int64_t));
      given = true;
    }
  }
  int64_t dim = t->tensor.shape[axis];
  if (!given) {
    if (dim < 0) {
      if (cx->opset >= 18) return rt_onnx_unsupported(cx, "Split of a `?` axis");
      rt_ir_expr_t *s = NULL;
      RT_RETURN_IF_ERROR(rt_onnx_call(cx, "split", 1, in, &s, "indices_or_sections",
                                      rt_onnx_int_text(cx, nout), "axis", rt_onnx_int_text(cx, axis), NULL));
      for (int32_t i = 0; i < nout; ++i) RT_RETURN_IF_ERROR(rt_onnx_get_item(cx, s, i, &out[i]));
      return RT_OK;
    }
    int64_t chunk = (dim + nout - 1) / nout;
    for (int32_t i = 0; i < nout; ++i) {
      int64_t lo = i * chunk, hi = lo + chunk > dim ? dim : lo + chunk;
      sizes[i] = hi > lo ? hi - lo : 0;
    }
    n = nout;
  }
  if (n != nout) return rt_onnx_bad(cx, "the number of splits does not match the outputs");
  /* One strided_slice per piece rather than a tuple-valued split: every
   * executor runs it, and each piece fuses with its consumers. */
  int64_t acc = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (sizes[i] < 0) return rt_onnx_bad(cx, "split sizes must be >= 0");
    int64_t lo = acc, hi = acc + sizes[i];
    acc = hi;
    if (n == 1) {
      out[0] = in[0];
      break;
    }
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "strided_slice", 1, in, &out[i], "begin",
                                    rt_onnx_ints_text(cx, 1, &lo), "end", rt_onnx_ints_text(cx, 1, &hi),
                                    "strides", "[1]", "axes", rt_onnx_ints_text(cx, 1, &axis), NULL));
  }
  if (dim >= 0 && acc != dim) return rt_onnx_bad(cx, "the split sizes do not add up to the axis");
  return RT_OK;
}

static rt_status_t cv_expand(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                             rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  if (rt_onnx_is_runtime(in[1])) return rt_onnx_call(cx, "dyn.broadcast_to", 2, in, &out[0], NULL);
  int64_t shape[MAXR];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[1], "the shape", MAXR, shape, &n));
  /* Bidirectional broadcasting: the result is broadcast(x.shape, shape). */
  int32_t r = n > t->tensor.rank ? n : t->tensor.rank;
  int64_t res[MAXR];
  for (int32_t d = 0; d < r; ++d) {
    int32_t a = d - (r - t->tensor.rank), b = d - (r - n);
    int64_t x = a >= 0 ? t->tensor.shape[a] : 1, y = b >= 0 ? shape[b] : 1;
    if (x < 0 && y == 1) return rt_onnx_unsupported(cx, "Expand of a `?` dim");
    if (x != 1 && y != 1 && x != y) return rt_onnx_bad(cx, "the shape does not broadcast with the input");
    res[d] = x == 1 ? y : x;
  }
  return rt_onnx_call(cx, "broadcast_to", 1, in, &out[0], "shape", rt_onnx_ints_text(cx, r, res), NULL);
}

static rt_status_t cv_tile(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                           rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  if (rt_onnx_is_runtime(in[1])) return rt_onnx_call(cx, "dyn.tile", 2, in, &out[0], NULL);
  int64_t reps[MAXR];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[1], "repeats", MAXR, reps, &n));
  return rt_onnx_call(cx, "tile", 1, in, &out[0], "reps", rt_onnx_ints_text(cx, n, reps), NULL);
}

/* A tensor of `shape` filled with value (a constant tensor, or a scalar). */
static rt_status_t cv_constant_of_shape(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                        rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  int64_t shape[MAXR];
  int32_t n = 0;
  rt_ir_expr_t *v = NULL;
  const Onnx__AttributeProto *a = rt_onnx_attr(cx, "value");
  if (a && a->t) {
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_tensor_from_proto(cx, a->t, &t));
    if (rt_tensor_numel(t) != 1) {
      rt_tensor_release(t);
      return rt_onnx_bad(cx, "value must have one element");
    }
    int64_t zero = 0;
    rt_tensor_t *s = NULL;
    rt_status_t st = rt_tensor_create(cx->m->allocator, rt_tensor_dtype(t), 0, &zero, &s);
    if (!st) {
      memcpy(rt_tensor_data(s), rt_tensor_data(t), rt_dtype_size(rt_tensor_dtype(t)));
      st = rt_onnx_constant(cx, s, &v);
    }
    rt_tensor_release(s);
    rt_tensor_release(t);
    RT_RETURN_IF_ERROR(st);
  } else {
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, 0.0, &v));
  }
  char dn[RT_DTYPE_NAME_MAX];
  if (rt_onnx_is_runtime(in[0])) {
    rt_ir_expr_t *args[2] = {v, in[0]};
    return rt_onnx_call(cx, "dyn.full", 2, args, &out[0], "dtype",
                        rt_onnx_str_text(cx, rt_dtype_name(rt_onnx_elem_dtype(v), dn)), NULL);
  }
  RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[0], "the shape", MAXR, shape, &n));
  for (int32_t i = 0; i < n; ++i) {
    if (shape[i] < 0) return rt_onnx_bad(cx, "shape values must be >= 0");
  }
  /* A small result is made here, so it can feed shapes (LayerNormalization's
   * expanded form builds its reduced shape with ConstantOfShape). */
  int64_t numel = 1;
  for (int32_t i = 0; i < n && numel <= RT_ONNX_HOST_FOLD_MAX; ++i) numel *= shape[i];
  if (numel <= RT_ONNX_HOST_FOLD_MAX) {
    const rt_tensor_t *value = v->constant.value;
    size_t esize = rt_dtype_size(rt_tensor_dtype(value));
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, rt_tensor_dtype(value), n, shape, &t));
    for (int64_t i = 0; i < numel; ++i) {
      memcpy((char *)rt_tensor_data(t) + (size_t)i * esize, rt_tensor_data(value), esize);
    }
    rt_status_t st = rt_onnx_constant(cx, t, &out[0]);
    rt_tensor_release(t);
    return st;
  }
  return rt_onnx_call(cx, "full", 1, &v, &out[0], "shape", rt_onnx_ints_text(cx, n, shape), "dtype",
                      rt_onnx_str_text(cx, rt_dtype_name(rt_onnx_elem_dtype(v), dn)), NULL);
}

static rt_status_t cv_range(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                            rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 3));
  rt_dtype_t dt = rt_onnx_elem_dtype(in[0]);
  if (rt_onnx_is_const(in[0]) && rt_onnx_is_const(in[1]) && rt_onnx_is_const(in[2])) {
    double s = 0, l = 0, d = 0;
    RT_RETURN_IF_ERROR(rt_onnx_const_float(cx, in[0], "start", &s));
    RT_RETURN_IF_ERROR(rt_onnx_const_float(cx, in[1], "limit", &l));
    RT_RETURN_IF_ERROR(rt_onnx_const_float(cx, in[2], "delta", &d));
    if (d == 0) return rt_onnx_bad(cx, "delta must not be 0");
    double cnt = ceil((l - s) / d);
    int64_t n = cnt > 0 ? (int64_t)cnt : 0;
    if (n > (INT64_C(1) << 31)) return rt_onnx_bad(cx, "the range is too long");
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, dt, 1, &n, &t));
    void *p = rt_tensor_data(t);
    for (int64_t i = 0; i < n; ++i) {
      double v = s + (double)i * d;
      switch (dt.code == kDLFloat ? dt.bits : 100 + dt.bits) {
        case 32: ((float *)p)[i] = (float)v; break;
        case 64: ((double *)p)[i] = v; break;
        case 116: ((int16_t *)p)[i] = (int16_t)v; break;
        case 132: ((int32_t *)p)[i] = (int32_t)v; break;
        case 164: ((int64_t *)p)[i] = (int64_t)v; break;
        default: break;
      }
    }
    rt_status_t st = rt_onnx_constant(cx, t, &out[0]);
    rt_tensor_release(t);
    return st;
  }
  char dn[RT_DTYPE_NAME_MAX];
  return rt_onnx_call(cx, "arange", 3, in, &out[0], "dtype",
                      rt_onnx_str_text(cx, rt_dtype_name(dt, dn)), NULL);
}

static rt_status_t cv_constant(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, int32_t nout) {
  const Onnx__AttributeProto *a = NULL;
  if ((a = rt_onnx_attr(cx, "value")) && a->t) {
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_tensor_from_proto(cx, a->t, &t));
    rt_status_t st = rt_onnx_constant(cx, t, &out[0]);
    rt_tensor_release(t);
    return st;
  }
  if ((a = rt_onnx_attr(cx, "value_float")) && a->has_f) {
    return rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, a->f, &out[0]);
  }
  if ((a = rt_onnx_attr(cx, "value_int")) && a->has_i) {
    return rt_onnx_const_i64(cx, 0, 1, &a->i, &out[0]);
  }
  if ((a = rt_onnx_attr(cx, "value_ints"))) {
    return rt_onnx_const_i64(cx, 1, (int64_t)a->n_ints, a->ints, &out[0]);
  }
  if ((a = rt_onnx_attr(cx, "value_floats"))) {
    int64_t n = (int64_t)a->n_floats;
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, RT_DTYPE_FLOAT32, 1, &n, &t));
    if (n) memcpy(rt_tensor_data(t), a->floats, (size_t)n * sizeof(float));
    rt_status_t st = rt_onnx_constant(cx, t, &out[0]);
    rt_tensor_release(t);
    return st;
  }
  return rt_onnx_unsupported(cx, "a Constant without value, value_float(s) or value_int(s)");
}

static rt_status_t cv_dropout(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                              rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  if (nin > 2 && in[2] && (rt_onnx_is_runtime(in[2]) || (nin > 1 && rt_onnx_is_runtime(in[1])))) {
    return rt_onnx_dropout_runtime(cx, in, nin, out, nout); /* ops_loss.c */
  }
  if (nin > 2 && in[2]) {
    double training = 0;
    RT_RETURN_IF_ERROR(rt_onnx_const_float(cx, in[2], "training_mode", &training));
    if (training != 0) {
      /* Training mode drops at random, except with ratio 0: the identity. */
      double ratio = 0.5;
      if (nin > 1 && in[1]) RT_RETURN_IF_ERROR(rt_onnx_const_float(cx, in[1], "ratio", &ratio));
      if (ratio != 0) return rt_onnx_unsupported(cx, "Dropout in training mode with a ratio other than 0");
    }
  }
  out[0] = in[0];
  if (nout > 1) {
    rt_ir_expr_t *one = NULL;
    const rt_ir_type_t *t = rt_onnx_type(in[0]);
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_BOOL, 1.0, &one));
    if (!t || !rt_onnx_static_shape(t)) return rt_onnx_unsupported(cx, "a Dropout mask of a `?` shape");
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "full", 1, &one, &out[1], "shape",
                                    rt_onnx_ints_text(cx, t->tensor.rank, t->tensor.shape),
                                    "dtype", "\"bool\"", NULL));
  }
  return RT_OK;
}

static rt_status_t cv_pad(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                          rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  int32_t r = rt_onnx_rank(in[0]);
  int64_t pads[2 * MAXR];
  int32_t n = 0;
  rt_ir_expr_t *value = NULL;
  if (cx->opset < 11) {
    const int64_t *v = NULL;
    if (!rt_onnx_attr_ints(cx, "pads", &n, &v) || n > 2 * MAXR) return rt_onnx_bad(cx, "pads is required");
    memcpy(pads, v, (size_t)n * sizeof(int64_t));
    RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, in[0], rt_onnx_attr_float(cx, "value", 0.0), &value));
  } else {
    RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
    if (!rt_onnx_is_runtime(in[1])) RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[1], "pads", 2 * MAXR, pads, &n));
    if (nin > 2 && in[2]) {
      value = in[2];
      if (rt_onnx_rank(value) != 0) {
        RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &value, &value, "newshape", "[]", NULL));
      }
    } else {
      RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, in[0], 0.0, &value));
    }
  }
  const char *mode = rt_onnx_attr_string(cx, "mode", "constant");
  if (strcmp(mode, "constant") && strcmp(mode, "edge") && strcmp(mode, "reflect")) {
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED, "pad mode '%s' is not supported", mode);
  }
  if (cx->opset >= 11 && rt_onnx_is_runtime(in[1])) {
    /* ONNX's pads (all befores, then all afters) are dyn.nn.pad's. */
    if (cx->opset >= 18 && nin > 3 && in[3]) {
      return rt_onnx_unsupported(cx, "Pad with axes and pads known only at run time");
    }
    rt_ir_expr_t *args[3] = {in[0], in[1], value};
    return rt_onnx_call(cx, "dyn.nn.pad", 3, args, &out[0], "pad_mode", rt_onnx_str_text(cx, mode), NULL);
  }
  int64_t axes[MAXR];
  int32_t na = r;
  for (int32_t i = 0; i < r; ++i) axes[i] = i;
  if (cx->opset >= 18 && nin > 3 && in[3]) {
    RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[3], "axes", MAXR, axes, &na));
    for (int32_t i = 0; i < na; ++i) RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axes[i], r));
  }
  if (n != 2 * na) return rt_onnx_bad(cx, "pads must have two values per axis");
  int64_t before[MAXR] = {0}, after[MAXR] = {0};
  for (int32_t i = 0; i < na; ++i) {
    before[axes[i]] = pads[i];
    after[axes[i]] = pads[i + na];
    if (pads[i] < 0 || pads[i + na] < 0) return rt_onnx_unsupported(cx, "negative pads");
  }
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_strbuf_putc(&b, '[');
  for (int32_t d = 0; d < r; ++d) {
    rt_strbuf_printf(&b, "%s[%lld, %lld]", d ? ", " : "", (long long)before[d], (long long)after[d]);
  }
  rt_strbuf_putc(&b, ']');
  char *pw = NULL;
  rt_status_t st = rt_arena_strndup(&cx->m->arena, b.data ? b.data : "[]", b.data ? b.len : 2, &pw);
  rt_strbuf_deinitialize(&b);
  RT_RETURN_IF_ERROR(st);
  rt_ir_expr_t *args[2] = {in[0], value};
  return rt_onnx_call(cx, "nn.pad", 2, args, &out[0], "pad_width", pw, "pad_mode",
                      rt_onnx_str_text(cx, mode), NULL);
}

static rt_status_t subpixel(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                            rt_ir_expr_t **out, const char *op) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  int64_t bs = rt_onnx_attr_int(cx, "blocksize", 0);
  if (bs <= 0) return rt_onnx_bad(cx, "blocksize must be positive");
  const char *mode = rt_onnx_attr_string(cx, "mode", "DCR");
  return rt_onnx_call(cx, op, 1, in, &out[0], "block_size", rt_onnx_int_text(cx, bs), "mode",
                      rt_onnx_str_text(cx, mode), NULL);
}

static rt_status_t cv_depth_to_space(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                     rt_ir_expr_t **out, int32_t nout) {
  return subpixel(cx, in, nin, out, "nn.depth_to_space");
}
static rt_status_t cv_space_to_depth(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                     rt_ir_expr_t **out, int32_t nout) {
  return subpixel(cx, in, nin, out, "nn.space_to_depth");
}

static rt_status_t cv_one_hot(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                              rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 3));
  const bool runtime = rt_onnx_is_runtime(in[1]);
  int64_t depth = 0;
  if (!runtime) {
    double depth_f = 0;
    RT_RETURN_IF_ERROR(rt_onnx_const_float(cx, in[1], "depth", &depth_f));
    depth = (int64_t)depth_f;
    if (depth <= 0) return rt_onnx_bad(cx, "depth must be positive");
  }
  int64_t axis = rt_onnx_attr_int(cx, "axis", -1);
  rt_ir_expr_t *idx = in[0];
  if (!rt_dtype_is_int(rt_onnx_elem_dtype(idx))) {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "cast", 1, &idx, &idx, "dtype", "\"int64\"", NULL));
  }
  if (runtime) {
    /* Negative indices count from depth, known at run time: idx < 0 ?
     * idx + depth : idx, with depth as idx's dtype. */
    char dn[RT_DTYPE_NAME_MAX];
    rt_ir_expr_t *d = in[1], *zero = NULL, *c = NULL, *plus = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &d, &d, "newshape", "[]", NULL));
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "cast", 1, &d, &d, "dtype",
                                    rt_onnx_str_text(cx, rt_dtype_name(rt_onnx_elem_dtype(idx), dn)), NULL));
    RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, idx, 0.0, &zero));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "less", idx, zero, &c));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", idx, d, &plus));
    rt_ir_expr_t *w[3] = {c, plus, idx};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "where", 3, w, &idx, NULL));
  } else {
    RT_RETURN_IF_ERROR(wrap_indices(cx, idx, depth, &idx));
  }
  rt_ir_expr_t *off = NULL, *on = NULL;
  int64_t zero = 0, one = 1;
  rt_ir_expr_t *z = NULL, *o = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_const_i64(cx, 1, 1, &zero, &z));
  RT_RETURN_IF_ERROR(rt_onnx_const_i64(cx, 1, 1, &one, &o));
  rt_ir_expr_t *a0[2] = {in[2], z}, *a1[2] = {in[2], o};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "take", 2, a0, &off, "axis", "0", NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "take", 2, a1, &on, "axis", "0", NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &off, &off, "newshape", "[]", NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &on, &on, "newshape", "[]", NULL));
  char dn[RT_DTYPE_NAME_MAX];
  if (runtime) {
    rt_ir_expr_t *args[4] = {idx, on, off, in[1]};
    return rt_onnx_call(cx, "dyn.one_hot", 4, args, &out[0], "axis", rt_onnx_int_text(cx, axis),
                        "dtype", rt_onnx_str_text(cx, rt_dtype_name(rt_onnx_elem_dtype(in[2]), dn)),
                        NULL);
  }
  rt_ir_expr_t *args[3] = {idx, on, off};
  return rt_onnx_call(cx, "one_hot", 3, args, &out[0], "depth", rt_onnx_int_text(cx, depth), "axis",
                      rt_onnx_int_text(cx, axis), "dtype",
                      rt_onnx_str_text(cx, rt_dtype_name(rt_onnx_elem_dtype(in[2]), dn)), NULL);
}

/* Trilu: where(mask, x, 0) with a constant mask over the last two axes. */
static rt_status_t cv_trilu(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                            rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  int32_t r = t->tensor.rank;
  if (r < 2) return rt_onnx_bad(cx, "the input must have rank >= 2");
  int64_t rows = t->tensor.shape[r - 2], cols = t->tensor.shape[r - 1];
  if (rows < 0 || cols < 0) return rt_onnx_unsupported(cx, "Trilu over `?` dims");
  int64_t k = 0;
  int32_t nk = 0;
  bool upper = rt_onnx_attr_int(cx, "upper", 1) != 0;
  if (nin > 1 && rt_onnx_is_runtime(in[1])) {
    /* k known at run time: the mask is (j - i >= k) (upper) or (j - i <=
     * k), the differences a constant. */
    int64_t shape[2] = {rows, cols};
    rt_tensor_t *diff = NULL;
    RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, RT_DTYPE_INT64, 2, shape, &diff));
    int64_t *p = rt_tensor_data(diff);
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) p[i * cols + j] = j - i;
    }
    rt_ir_expr_t *dc = NULL, *kk = in[1], *mask = NULL, *zero = NULL;
    rt_status_t st = rt_onnx_constant(cx, diff, &dc);
    rt_tensor_release(diff);
    RT_RETURN_IF_ERROR(st);
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &kk, &kk, "newshape", "[]", NULL));
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "cast", 1, &kk, &kk, "dtype", "\"int64\"", NULL));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, upper ? "greater_equal" : "less_equal", dc, kk, &mask));
    RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, in[0], 0.0, &zero));
    rt_ir_expr_t *args[3] = {mask, in[0], zero};
    return rt_onnx_call(cx, "where", 3, args, &out[0], NULL);
  }
  if (nin > 1 && in[1]) RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[1], "k", 1, &k, &nk));
  int64_t shape[2] = {rows, cols};
  rt_tensor_t *mask = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, RT_DTYPE_BOOL, 2, shape, &mask));
  uint8_t *p = rt_tensor_data(mask);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) p[i * cols + j] = upper ? (j - i >= k) : (j - i <= k);
  }
  rt_ir_expr_t *m = NULL, *zero = NULL;
  rt_status_t st = rt_onnx_constant(cx, mask, &m);
  rt_tensor_release(mask);
  RT_RETURN_IF_ERROR(st);
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, in[0], 0.0, &zero));
  rt_ir_expr_t *args[3] = {m, in[0], zero};
  return rt_onnx_call(cx, "where", 3, args, &out[0], NULL);
}

/* CumSum: axis is an input (a constant 0-d int); reverse runs the scan
 * from the end (reverse, scan, reverse back). */
static rt_status_t cv_cumsum(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                             rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  int64_t axis = 0;
  int32_t n = 0;
  if (rt_onnx_is_runtime(in[1])) {
    return rt_onnx_call(cx, "dyn.cumsum", 2, in, &out[0], "exclusive",
                        rt_onnx_attr_int(cx, "exclusive", 0) ? "True" : "False", "reverse",
                        rt_onnx_attr_int(cx, "reverse", 0) ? "True" : "False", NULL);
  }
  RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[1], "axis", 1, &axis, &n));
  if (n != 1) return rt_onnx_bad(cx, "axis must hold one value");
  RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axis, rt_onnx_rank(in[0])));
  const bool exclusive = rt_onnx_attr_int(cx, "exclusive", 0) != 0;
  const bool reverse = rt_onnx_attr_int(cx, "reverse", 0) != 0;
  const char *ax = rt_onnx_int_text(cx, axis);
  rt_ir_expr_t *x = in[0];
  if (reverse) RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reverse", 1, &x, &x, "axis", ax, NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "cumsum", 1, &x, &x, "axis", ax, "exclusive",
                                  exclusive ? "True" : "False", NULL));
  if (reverse) RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reverse", 1, &x, &x, "axis", ax, NULL));
  out[0] = x;
  return RT_OK;
}

/* TopK: k is an attribute before opset 10, input 1 (a constant) from it;
 * largest=0 is ascending order. The result is always sorted, which
 * sorted=0 allows. Indices are int64. */
static rt_status_t cv_topk(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                           rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  int64_t k = 0;
  if (cx->opset < 10) {
    if (!rt_onnx_attr(cx, "k")) return rt_onnx_bad(cx, "attribute k is required");
    k = rt_onnx_attr_int(cx, "k", 0);
  } else {
    RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
    if (rt_onnx_is_runtime(in[1])) {
      int64_t axis = rt_onnx_attr_int(cx, "axis", -1);
      RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axis, rt_onnx_rank(in[0])));
      rt_ir_expr_t *t = NULL;
      RT_RETURN_IF_ERROR(rt_onnx_call(cx, "dyn.topk", 2, in, &t, "axis", rt_onnx_int_text(cx, axis),
                                      "is_ascend", rt_onnx_attr_int(cx, "largest", 1) ? "False" : "True",
                                      "dtype", "\"int64\"", NULL));
      RT_RETURN_IF_ERROR(rt_onnx_get_item(cx, t, 0, &out[0]));
      if (nout > 1) RT_RETURN_IF_ERROR(rt_onnx_get_item(cx, t, 1, &out[1]));
      return RT_OK;
    }
    int32_t n = 0;
    RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[1], "K", 1, &k, &n));
    if (n != 1) return rt_onnx_bad(cx, "K must hold one value");
  }
  if (k < 0) return rt_onnx_bad(cx, "K must not be negative");
  if (k == 0) return rt_onnx_unsupported(cx, "TopK with K = 0 (an empty result)");
  int64_t axis = rt_onnx_attr_int(cx, "axis", -1);
  RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axis, rt_onnx_rank(in[0])));
  const bool largest = rt_onnx_attr_int(cx, "largest", 1) != 0;
  rt_ir_expr_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "topk", 1, in, &t, "k", rt_onnx_int_text(cx, k), "axis",
                                  rt_onnx_int_text(cx, axis), "is_ascend",
                                  largest ? "False" : "True", "dtype", "\"int64\"", NULL));
  RT_RETURN_IF_ERROR(rt_onnx_get_item(cx, t, 0, &out[0]));
  if (nout > 1) RT_RETURN_IF_ERROR(rt_onnx_get_item(cx, t, 1, &out[1]));
  return RT_OK;
}

/* ---- the table ----------------------------------------------------------- */

const rt_onnx_op_entry_t rt_onnx_transform_ops[] = {
    {"Concat", cv_concat}, {"Constant", cv_constant}, {"ConstantOfShape", cv_constant_of_shape},
    {"CumSum", cv_cumsum}, {"DepthToSpace", cv_depth_to_space}, {"Dropout", cv_dropout},
    {"Expand", cv_expand}, {"Flatten", cv_flatten}, {"Gather", cv_gather},
    {"GatherElements", cv_gather_elements}, {"GatherND", cv_gather_nd}, {"OneHot", cv_one_hot},
    {"Pad", cv_pad}, {"Range", cv_range}, {"Reshape", cv_reshape}, {"Shape", cv_shape},
    {"Size", cv_size}, {"Slice", cv_slice}, {"SpaceToDepth", cv_space_to_depth},
    {"Split", cv_split}, {"Squeeze", cv_squeeze}, {"Tile", cv_tile}, {"TopK", cv_topk},
    {"Transpose", cv_transpose}, {"Trilu", cv_trilu}, {"Unsqueeze", cv_unsqueeze},
};
const int32_t rt_onnx_transform_ops_count = (int32_t)RT_COUNTOF(rt_onnx_transform_ops);
