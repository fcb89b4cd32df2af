/* ONNX converters, part three (issue 19, engineer h3): the static-shape
 * ops the importer lacked: ScatterElements (opset 11..18, `reduction`
 * since 16, max/min since 18), its deprecated alias Scatter (opset 9..10),
 * ScatterND (opset 11..18, `reduction` since 16), ReverseSequence
 * (opset 10), Det (opset 11, matrices up to 3x3), MaxUnpool (opset
 * 9..11) and GridSample (opset 16, 4-d); their table is rt_onnx_extra_ops (looked up by ops.c).
 *
 * ScatterElements and Scatter are scatter_elements; ScatterND is
 * scatter_nd after moving the index tuples from the last axis of indices
 * to the first (TVM's layout, as GatherND's converter does). ONNX's
 * reduction "none" is Relay's "update". Negative indices are the ops' own
 * business (they count from the end, as ONNX says).
 *
 * ReverseSequence is a decomposition, exact and fused into one loop: the
 * time index t of batch row b reads t' = t < lens[b] ? lens[b] - 1 - t : t,
 * so the output is gather(x, broadcast_to(where(ar < L, L - 1 - ar, ar)),
 * axis=time_axis) with ar = arange(T) along the time axis and L the
 * lengths along the batch axis; it needs x's shape static.
 *
 * Det of (..., n, n) is the cofactor expansion over single-element
 * slices for n <= 3 (a*d - b*c; the rule of Sarrus grouped by the first
 * row); larger matrices are refused ("not yet": they need an LU op).
 *
 * MaxUnpool writes X at the flat positions MaxPool's Indices name (over
 * the whole output tensor, N and C included) into zeros: a 1-d
 * scatter_elements of the flattened X and indices into a flat zeros of
 * the output's element count, reshaped to the default shape ((in - 1) *
 * stride - pads + kernel per spatial dim); an output_shape (h1) pads the
 * end of each dim up to it, the values keeping their coordinates, as
 * ONNX's reference does (nn.pad, or dyn.nn.pad when output_shape is known
 * only at run time). The lowering loops over every index per output element:
 * quadratic, fine for the small unpooling layers it meets, a real cost on
 * large ones.
 *
 * GridSample is image.grid_sample with the grid's (x, y) pairs moved from
 * the last axis to the second (TVM's layout). */
#include <stdio.h>
#include <string.h>

#include "frontend/onnx/onnx_impl.h"
#include "runtime/arena.h"

/* ONNX's reduction attribute as a Relay text value. */
static rt_status_t reduction_text(rt_onnx_ctx_t *cx, const char **out) {
  const char *r = rt_onnx_attr_string(cx, "reduction", "none");
  static const char *const k_ok[] = {"add", "mul", "max", "min"};
  if (strcmp(r, "none") == 0) {
    *out = rt_onnx_str_text(cx, "update");
    return RT_OK;
  }
  for (size_t i = 0; i < sizeof k_ok / sizeof k_ok[0]; ++i) {
    if (strcmp(r, k_ok[i]) == 0) {
      *out = rt_onnx_str_text(cx, r);
      return RT_OK;
    }
  }
  return rt_onnx_bad(cx, "reduction must be none, add, mul, max or min");
}

static rt_status_t cv_scatter_elements(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                       rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 3));
  int64_t axis = rt_onnx_attr_int(cx, "axis", 0);
  RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &axis, rt_onnx_rank(in[0])));
  const char *reduction;
  RT_RETURN_IF_ERROR(reduction_text(cx, &reduction));
  return rt_onnx_call(cx, "scatter_elements", 3, in, &out[0], "axis", rt_onnx_int_text(cx, axis),
                      "reduction", reduction, NULL);
}

static rt_status_t cv_scatter_nd(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                 rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 3));
  const char *reduction;
  RT_RETURN_IF_ERROR(reduction_text(cx, &reduction));
  const int32_t r = rt_onnx_rank(in[1]);
  if (r < 1) return rt_onnx_bad(cx, "indices need rank >= 1");
  rt_ir_expr_t *args[3] = {in[0], in[1], in[2]};
  if (r > 1) {
    int64_t perm[RT_TENSOR_MAX_RANK];
    perm[0] = r - 1;
    for (int32_t d = 1; d < r; ++d) perm[d] = d - 1;
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "transpose", 1, &in[1], &args[1], "axes",
                                    rt_onnx_ints_text(cx, r, perm), NULL));
  }
  return rt_onnx_call(cx, "scatter_nd", 3, args, &out[0], "mode", reduction, NULL);
}

/* A 1-d int64 value `v` (n elements) reshaped to rank r with its dim at
 * `axis`, every other dim 1. */
static rt_status_t along_axis(rt_onnx_ctx_t *cx, rt_ir_expr_t *v, int32_t r, int32_t axis,
                              rt_ir_expr_t **out) {
  int64_t shape[RT_TENSOR_MAX_RANK];
  for (int32_t d = 0; d < r; ++d) shape[d] = d == axis ? -1 : 1;
  return rt_onnx_call(cx, "reshape", 1, &v, out, "newshape", rt_onnx_ints_text(cx, r, shape), NULL);
}

static rt_status_t cv_reverse_sequence(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                       rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  const int32_t r = t->tensor.rank;
  if (r < 2) return rt_onnx_bad(cx, "input needs rank >= 2");
  if (!rt_onnx_static_shape(t)) return rt_onnx_unsupported(cx, "ReverseSequence with `?` dims");
  int64_t time_axis = rt_onnx_attr_int(cx, "time_axis", 0);
  int64_t batch_axis = rt_onnx_attr_int(cx, "batch_axis", 1);
  RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &time_axis, r));
  RT_RETURN_IF_ERROR(rt_onnx_axis(cx, &batch_axis, r));
  if (time_axis == batch_axis) return rt_onnx_bad(cx, "time_axis and batch_axis must differ");
  const int64_t n = t->tensor.shape[time_axis];
  if (n > 1 << 24) return rt_onnx_unsupported(cx, "ReverseSequence over more than 2^24 steps");
  void *mem = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&cx->m->arena, (size_t)n, sizeof(int64_t), &mem));
  int64_t *steps = mem;
  for (int64_t i = 0; i < n; ++i) steps[i] = i;
  rt_ir_expr_t *ar = NULL, *lens = NULL, *one = NULL, *last = NULL, *rev = NULL, *c = NULL;
  rt_ir_expr_t *idx = NULL, *full = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_const_i64(cx, 1, n, steps, &ar));
  RT_RETURN_IF_ERROR(along_axis(cx, ar, r, (int32_t)time_axis, &ar));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "cast", 1, &in[1], &lens, "dtype", "\"int64\"", NULL));
  RT_RETURN_IF_ERROR(along_axis(cx, lens, r, (int32_t)batch_axis, &lens));
  RT_RETURN_IF_ERROR(rt_onnx_scalar_like(cx, lens, 1.0, &one));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "subtract", lens, one, &last));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "subtract", last, ar, &rev));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "less", ar, lens, &c));
  rt_ir_expr_t *args[3] = {c, rev, ar};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "where", 3, args, &idx, NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "broadcast_to", 1, &idx, &full, "shape",
                                  rt_onnx_ints_text(cx, r, t->tensor.shape), NULL));
  rt_ir_expr_t *g[2] = {in[0], full};
  return rt_onnx_call(cx, "gather", 2, g, &out[0], "axis", rt_onnx_int_text(cx, time_axis), NULL);
}

/* Element (i, j) of the trailing matrix of x (rank r), keeping dims. */
static rt_status_t mat_elem(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, int32_t r, int64_t i, int64_t j,
                            rt_ir_expr_t **out) {
  const int64_t b[2] = {i, j}, e[2] = {i + 1, j + 1}, ax[2] = {r - 2, r - 1};
  return rt_onnx_call(cx, "strided_slice", 1, &x, out, "begin", rt_onnx_ints_text(cx, 2, b), "end",
                      rt_onnx_ints_text(cx, 2, e), "axes", rt_onnx_ints_text(cx, 2, ax), NULL);
}

/* a * d - b * c */
static rt_status_t det2(rt_onnx_ctx_t *cx, rt_ir_expr_t *a, rt_ir_expr_t *b, rt_ir_expr_t *c,
                        rt_ir_expr_t *d, rt_ir_expr_t **out) {
  rt_ir_expr_t *ad = NULL, *bc = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", a, d, &ad));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", b, c, &bc));
  return rt_onnx_call2(cx, "subtract", ad, bc, out);
}

static rt_status_t cv_det(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                          int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  const int32_t r = t->tensor.rank;
  if (r < 2) return rt_onnx_bad(cx, "input needs rank >= 2");
  const int64_t n = t->tensor.shape[r - 1];
  if (n < 0 || t->tensor.shape[r - 2] < 0) return rt_onnx_unsupported(cx, "Det of `?` matrix dims");
  if (t->tensor.shape[r - 2] != n) return rt_onnx_bad(cx, "input must hold square matrices");
  if (n < 1 || n > 3) return rt_onnx_unsupported(cx, "Det of matrices other than 1x1, 2x2, 3x3 (not yet)");
  rt_ir_expr_t *m[3][3] = {{NULL}};
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) RT_RETURN_IF_ERROR(mat_elem(cx, in[0], r, i, j, &m[i][j]));
  }
  rt_ir_expr_t *d = m[0][0];
  if (n == 2) RT_RETURN_IF_ERROR(det2(cx, m[0][0], m[0][1], m[1][0], m[1][1], &d));
  if (n == 3) {
    rt_ir_expr_t *c0 = NULL, *c1 = NULL, *c2 = NULL, *t0 = NULL, *t1 = NULL, *t2 = NULL, *s = NULL;
    RT_RETURN_IF_ERROR(det2(cx, m[1][1], m[1][2], m[2][1], m[2][2], &c0));
    RT_RETURN_IF_ERROR(det2(cx, m[1][0], m[1][2], m[2][0], m[2][2], &c1));
    RT_RETURN_IF_ERROR(det2(cx, m[1][0], m[1][1], m[2][0], m[2][1], &c2));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", m[0][0], c0, &t0));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", m[0][1], c1, &t1));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", m[0][2], c2, &t2));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "subtract", t0, t1, &s));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", s, t2, &d));
  }
  const int64_t ax[2] = {r - 2, r - 1};
  return rt_onnx_call(cx, "squeeze", 1, &d, &out[0], "axis", rt_onnx_ints_text(cx, 2, ax), NULL);
}

/* MaxUnpool(X, I [, output_shape]; kernel_shape, strides, pads): X's
 * values scattered into zeros of the default shape ((in - 1) * stride +
 * kernel - pads per spatial dim) at I, flat indices into that shape. An
 * output_shape (h1, issue 19) keeps every value at its coordinates and
 * pads the end of each dim up to it, as ONNX's reference (a constant one:
 * nn.pad; one known at run time: dyn.nn.pad, whose widths are
 * output_shape - default shape). */
static rt_status_t cv_max_unpool(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                 rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  const int32_t r = t->tensor.rank, S = r - 2;
  if (S < 1) return rt_onnx_bad(cx, "input needs rank >= 3 (N, C, spatial dims)");
  if (!rt_onnx_static_shape(t)) return rt_onnx_unsupported(cx, "MaxUnpool with `?` dims");
  int32_t nk = 0, ns = 0, np = 0;
  const int64_t *k = NULL, *st = NULL, *pads = NULL;
  if (!rt_onnx_attr_ints(cx, "kernel_shape", &nk, &k) || nk != S) {
    return rt_onnx_bad(cx, "kernel_shape needs one value per spatial dim");
  }
  if (rt_onnx_attr_ints(cx, "strides", &ns, &st) && ns != S) {
    return rt_onnx_bad(cx, "strides needs one value per spatial dim");
  }
  if (rt_onnx_attr_ints(cx, "pads", &np, &pads) && np != 2 * S) {
    return rt_onnx_bad(cx, "pads needs two values per spatial dim");
  }
  int64_t shape[RT_TENSOR_MAX_RANK];
  shape[0] = t->tensor.shape[0];
  shape[1] = t->tensor.shape[1];
  for (int32_t i = 0; i < S; ++i) {
    const int64_t s = ns ? st[i] : 1, pb = np ? pads[i] : 0, pe = np ? pads[S + i] : 0;
    int64_t d;
    if (s < 1 || k[i] < 1 || pb < 0 || pe < 0 ||
        __builtin_mul_overflow(t->tensor.shape[2 + i] - 1, s, &d) || __builtin_add_overflow(d, k[i], &d)) {
      return rt_onnx_bad(cx, "kernel_shape and strides must be >= 1, pads >= 0, the output size in range");
    }
    shape[2 + i] = d - pb - pe;
  }
  int64_t total = 1;
  for (int32_t i = 0; i < r; ++i) {
    if (shape[i] < 1 || __builtin_mul_overflow(total, shape[i], &total)) {
      return rt_onnx_bad(cx, "the output shape must have dims >= 1");
    }
  }
  char dt[RT_DTYPE_NAME_MAX];
  const int64_t flat = -1;
  rt_ir_expr_t *zeros = NULL, *x = NULL, *idx = NULL, *sc = NULL, *y = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "zeros", 0, NULL, &zeros, "shape", rt_onnx_ints_text(cx, 1, &total),
                                  "dtype", rt_onnx_str_text(cx, rt_dtype_name(t->tensor.dtype, dt)), NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &in[0], &x, "newshape", rt_onnx_ints_text(cx, 1, &flat), NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &in[1], &idx, "newshape", rt_onnx_ints_text(cx, 1, &flat), NULL));
  rt_ir_expr_t *args[3] = {zeros, idx, x};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "scatter_elements", 3, args, &sc, "axis", "0", NULL));
  rt_ir_expr_t **dst = nin > 2 && in[2] ? &y : &out[0];
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &sc, dst, "newshape", rt_onnx_ints_text(cx, r, shape), NULL));
  if (dst == &out[0]) return RT_OK;
  if (rt_onnx_is_const(in[2])) {
    int64_t want[RT_TENSOR_MAX_RANK];
    int32_t n = 0;
    RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[2], "output_shape", RT_TENSOR_MAX_RANK, want, &n));
    if (n != r) return rt_onnx_bad(cx, "output_shape needs one value per dim");
    int64_t widths[2 * RT_TENSOR_MAX_RANK];
    for (int32_t i = 0; i < r; ++i) {
      if (want[i] < shape[i] || (i < 2 && want[i] != shape[i])) {
        return rt_onnx_bad(cx, "output_shape must keep N and C and not be smaller than the unpooled shape");
      }
      widths[2 * i] = 0;
      widths[2 * i + 1] = want[i] - shape[i];
    }
    char text[RT_TENSOR_MAX_RANK * 48];
    size_t len = 0;
    len += (size_t)snprintf(text + len, sizeof text - len, "[");
    for (int32_t i = 0; i < r; ++i) {
      len += (size_t)snprintf(text + len, sizeof text - len, "%s[0, %lld]", i ? ", " : "",
                              (long long)widths[2 * i + 1]);
    }
    snprintf(text + len, sizeof text - len, "]");
    rt_ir_expr_t *pargs[2] = {y, NULL};
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, t->tensor.dtype, 0, &pargs[1]));
    return rt_onnx_call(cx, "nn.pad", 2, pargs, &out[0], "pad_width", text, NULL);
  }
  const rt_ir_type_t *ot = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[2], 2, &ot));
  if (ot->tensor.rank != 1 || ot->tensor.shape[0] != r) return rt_onnx_bad(cx, "output_shape needs one value per dim");
  /* widths: r zeros (befores), then output_shape - shape (afters) */
  int64_t zeros_r[RT_TENSOR_MAX_RANK] = {0};
  rt_ir_expr_t *before = NULL, *base = NULL, *after = NULL, *os = NULL, *w = NULL, *pv = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "cast", 1, &in[2], &os, "dtype", "\"int64\"", NULL));
  RT_RETURN_IF_ERROR(rt_onnx_const_i64(cx, 1, r, zeros_r, &before));
  RT_RETURN_IF_ERROR(rt_onnx_const_i64(cx, 1, r, shape, &base));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "subtract", os, base, &after));
  rt_ir_expr_t *parts[2] = {before, after}, *tup = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tuple(cx, 2, parts, &tup));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "concatenate", 1, &tup, &w, "axis", "0", NULL));
  RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, t->tensor.dtype, 0, &pv));
  rt_ir_expr_t *pargs[3] = {y, w, pv};
  return rt_onnx_call(cx, "dyn.nn.pad", 3, pargs, &out[0], NULL);
}

static rt_status_t cv_grid_sample(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                  rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  if (rt_onnx_rank(in[0]) != 4 || rt_onnx_rank(in[1]) != 4) {
    return rt_onnx_unsupported(cx, "GridSample other than 2-d (4-d X and Grid)");
  }
  const char *mode = rt_onnx_attr_string(cx, "mode", "bilinear");
  const char *padding = rt_onnx_attr_string(cx, "padding_mode", "zeros");
  const int64_t align = rt_onnx_attr_int(cx, "align_corners", 0);
  static const int64_t perm[4] = {0, 3, 1, 2};
  rt_ir_expr_t *args[2] = {in[0], NULL};
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "transpose", 1, &in[1], &args[1], "axes", rt_onnx_ints_text(cx, 4, perm), NULL));
  return rt_onnx_call(cx, "image.grid_sample", 2, args, &out[0], "method", rt_onnx_str_text(cx, mode),
                      "padding_mode", rt_onnx_str_text(cx, padding), "align_corners", align ? "True" : "False",
                      NULL);
}

const rt_onnx_op_entry_t rt_onnx_extra_ops[] = {
    {"Det", cv_det},
    {"GridSample", cv_grid_sample},
    {"MaxUnpool", cv_max_unpool},
    {"ReverseSequence", cv_reverse_sequence},
    {"Scatter", cv_scatter_elements},
    {"ScatterElements", cv_scatter_elements},
    {"ScatterND", cv_scatter_nd},
};
const int32_t rt_onnx_extra_ops_count = (int32_t)RT_COUNTOF(rt_onnx_extra_ops);
