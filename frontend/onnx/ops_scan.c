/* ONNX Scan (opsets 8, 9, 11, 16), unrolled at import.
 *
 * Scan runs its body once per slice of the scan inputs along their scan
 * axis, carrying N state values from one iteration to the next, and
 * stacks the body's K scan outputs along their output axis. Its length is
 * the scan inputs' dim on that axis, which is static in every model
 * relayrt takes (an input's `?` dim is refused here), so the loop is
 * unrolled the way ops_control.c unrolls a Loop with a known trip count:
 * the body is converted once per iteration with the iteration's slices
 * (`take` at a constant index, which drops the axis), and the result is
 * plain dataflow every executor runs.
 *
 * Opset 9 and later: inputs are the N initial states then the M scan
 * inputs; scan_input_axes / scan_input_directions (1 = last slice first)
 * and scan_output_axes / scan_output_directions (1 = the first iteration's
 * value last) say where and in which order. Opset 8: every input has a
 * leading batch axis, the first input is the optional sequence_lens and
 * the scan axis is 1; the body sees one batch element, so each batch
 * element is unrolled on its own and the results are stacked on axis 0.
 * sequence_lens must be absent or equal to the full length (a shorter
 * length per batch element would leave part of the outputs undefined by
 * the body; that is refused, naming it). */
#include <string.h>

#include "frontend/onnx/onnx_impl.h"

#define MAXV 64
#define MAX_SCAN_UNROLL 4096

/* One scan: the body, the counts, and per scan input / output its axis
 * and direction (already normalised). */
typedef struct {
  const Onnx__GraphProto *body;
  int32_t nstate, nin, nout;
  int64_t in_axis[MAXV], in_rev[MAXV], out_axis[MAXV], out_rev[MAXV];
} scan_t;

/* v's slice `index` along `axis`, the axis dropped. */
static rt_status_t slice_at(rt_onnx_ctx_t *cx, rt_ir_expr_t *v, int64_t axis, int64_t index,
                            rt_ir_expr_t **out) {
  rt_ir_expr_t *args[2] = {v, NULL};
  RT_RETURN_IF_ERROR(rt_onnx_const_i64(cx, 0, 1, &index, &args[1]));
  return rt_onnx_call(cx, "take", 2, args, out, "axis", rt_onnx_int_text(cx, axis), NULL);
}

/* vals[0 .. n-1] stacked on a new axis `axis`. */
static rt_status_t stack_on(rt_onnx_ctx_t *cx, int32_t n, rt_ir_expr_t **vals, int64_t axis,
                            rt_ir_expr_t **out) {
  const char *ax = rt_onnx_int_text(cx, axis);
  for (int32_t i = 0; i < n; ++i) {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "expand_dims", 1, &vals[i], &vals[i], "axis", ax, NULL));
  }
  if (n == 1) {
    *out = vals[0];
    return RT_OK;
  }
  rt_ir_expr_t *tup = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tuple(cx, n, vals, &tup));
  return rt_onnx_call(cx, "concatenate", 1, &tup, out, "axis", ax, NULL);
}

/* The unrolled scan over states[0 .. nstate) and scans[0 .. nin), whose
 * scan axes have `len` entries: the final states, then the stacked scan
 * outputs, into out[]. */
static rt_status_t unroll(rt_onnx_ctx_t *cx, const scan_t *s, int64_t len, rt_ir_expr_t **states,
                          rt_ir_expr_t **scans, rt_ir_expr_t **out) {
  if (len == 0 && s->nout > 0) return rt_onnx_unsupported(cx, "scan outputs of a Scan of length 0");
  rt_ir_expr_t *vals[MAXV], *bin[2 * MAXV], *bout[2 * MAXV];
  for (int32_t i = 0; i < s->nstate; ++i) vals[i] = states[i];
  rt_ir_expr_t **cols = NULL;
  if (s->nout > 0) {
    void *p = NULL;
    RT_RETURN_IF_ERROR(rt_arena_alloc_array(&cx->m->arena, (size_t)s->nout * (size_t)len,
                                            sizeof(rt_ir_expr_t *), &p));
    cols = p;
  }
  for (int64_t it = 0; it < len; ++it) {
    for (int32_t i = 0; i < s->nstate; ++i) bin[i] = vals[i];
    for (int32_t j = 0; j < s->nin; ++j) {
      const int64_t at = s->in_rev[j] ? len - 1 - it : it;
      RT_RETURN_IF_ERROR(slice_at(cx, scans[j], s->in_axis[j], at, &bin[s->nstate + j]));
    }
    RT_RETURN_IF_ERROR(
        rt_onnx_subgraph(cx, s->body, s->nstate + s->nin, bin, s->nstate + s->nout, bout));
    for (int32_t i = 0; i < s->nstate; ++i) {
      const rt_ir_type_t *a = rt_onnx_type(vals[i]), *b = rt_onnx_type(bout[i]);
      if (!a || !b || !rt_ir_type_equal(a, b)) {
        return rt_onnx_bad(cx, "a Scan state changes its type in the body");
      }
      vals[i] = bout[i];
    }
    for (int32_t k = 0; k < s->nout; ++k) {
      const int64_t at = s->out_rev[k] ? len - 1 - it : it;
      cols[(size_t)k * (size_t)len + (size_t)at] = bout[s->nstate + k];
    }
  }
  for (int32_t i = 0; i < s->nstate; ++i) out[i] = vals[i];
  for (int32_t k = 0; k < s->nout; ++k) {
    rt_ir_expr_t **col = &cols[(size_t)k * (size_t)len];
    for (int64_t i = 1; i < len; ++i) {
      if (!rt_ir_type_equal(rt_onnx_type(col[0]), rt_onnx_type(col[i]))) {
        return rt_onnx_unsupported(cx, "a Scan output whose shape changes between iterations");
      }
    }
    const int64_t axis = s->out_axis[k];
    if (axis < 0 || axis > rt_onnx_rank(col[0])) {
      return rt_onnx_bad(cx, "scan_output_axes is out of range for the body's output");
    }
    RT_RETURN_IF_ERROR(stack_on(cx, (int32_t)len, col, axis, &out[s->nstate + k]));
  }
  return RT_OK;
}

/* An INTS attribute of n entries (0 when absent), each in [lo, hi). */
static rt_status_t ints_attr(rt_onnx_ctx_t *cx, const char *name, int32_t n, int64_t *out) {
  int32_t count = 0;
  const int64_t *v = NULL;
  for (int32_t i = 0; i < n; ++i) out[i] = 0;
  if (!rt_onnx_attr_ints(cx, name, &count, &v)) return RT_OK;
  if (count != n) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT, "%s has %d entries, expected %d",
                              name, (int)count, (int)n);
  }
  for (int32_t i = 0; i < n; ++i) out[i] = v[i];
  return RT_OK;
}

/* The static length of v's axis (normalised in *axis). */
static rt_status_t axis_len(rt_onnx_ctx_t *cx, rt_ir_expr_t *v, int32_t j, int64_t *axis,
                            int64_t *out_len) {
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, v, j, &t));
  RT_RETURN_IF_ERROR(rt_onnx_axis(cx, axis, t->tensor.rank));
  const int64_t d = t->tensor.shape[*axis];
  if (d == RT_DIM_ANY) {
    return rt_onnx_unsupported(cx, "a Scan whose scan inputs have a `?` dim on the scan axis "
                                   "(its length must be known at load time)");
  }
  if (d > MAX_SCAN_UNROLL) {
    return rt_onnx_unsupported(cx, "a Scan of more than 4096 iterations");
  }
  *out_len = d;
  return RT_OK;
}

rt_status_t rt_onnx_cv_scan(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                            int32_t nout) {
  const Onnx__AttributeProto *ba = rt_onnx_attr(cx, "body");
  const int64_t m = rt_onnx_attr_int(cx, "num_scan_inputs", -1);
  if (!ba || !ba->g) return rt_onnx_bad(cx, "Scan needs its body graph");
  const bool v8 = cx->opset < 9;
  const int32_t first = v8 ? 1 : 0; /* opset 8: sequence_lens comes first */
  if (m < 1 || m > nin - first || nin - first > 2 * MAXV || nout > 2 * MAXV) {
    return rt_onnx_bad(cx, "num_scan_inputs must be between 1 and the number of inputs");
  }
  scan_t s = {ba->g, (int32_t)(nin - first - m), (int32_t)m, (int32_t)(nout - (nin - first - m)),
              {0}, {0}, {0}, {0}};
  if (s.nout < 0 || s.nstate > MAXV || s.nin > MAXV || s.nout > MAXV) {
    return rt_onnx_bad(cx, "Scan has fewer outputs than state values");
  }
  if ((int32_t)ba->g->n_input != s.nstate + s.nin || (int32_t)ba->g->n_output != nout) {
    return rt_onnx_bad(cx, "the Scan body's inputs and outputs do not match the node's");
  }
  for (int32_t i = first; i < nin; ++i) {
    if (!in[i]) return rt_onnx_bad(cx, "a Scan state or scan input is missing");
  }
  rt_ir_expr_t **states = &in[first], **scans = &in[first + s.nstate];
  if (!v8) {
    RT_RETURN_IF_ERROR(ints_attr(cx, "scan_input_axes", s.nin, s.in_axis));
    RT_RETURN_IF_ERROR(ints_attr(cx, "scan_input_directions", s.nin, s.in_rev));
    RT_RETURN_IF_ERROR(ints_attr(cx, "scan_output_axes", s.nout, s.out_axis));
    RT_RETURN_IF_ERROR(ints_attr(cx, "scan_output_directions", s.nout, s.out_rev));
    int64_t len = -1;
    for (int32_t j = 0; j < s.nin; ++j) {
      int64_t l = 0;
      RT_RETURN_IF_ERROR(axis_len(cx, scans[j], first + s.nstate + j, &s.in_axis[j], &l));
      if (len >= 0 && l != len) {
        return rt_onnx_bad(cx, "the Scan's scan inputs differ in length along their scan axes");
      }
      len = l;
    }
    /* Output axes count in the stacked output's rank (body rank + 1). */
    for (int32_t k = 0; k < s.nout; ++k) {
      if (s.out_axis[k] < 0) {
        const Onnx__ValueInfoProto *vo = ba->g->output[s.nstate + k];
        const Onnx__TensorShapeProto *sh =
            vo->type && vo->type->tensor_type ? vo->type->tensor_type->shape : NULL;
        if (!sh) return rt_onnx_unsupported(cx, "a negative scan_output_axes without the body's output rank");
        s.out_axis[k] += (int64_t)sh->n_dim + 1;
      }
    }
    return unroll(cx, &s, len, states, scans, out);
  }
  /* Opset 8: batch axis 0, scan axis 1 (0 once a batch element is taken). */
  const int32_t ndir = s.nin;
  RT_RETURN_IF_ERROR(ints_attr(cx, "directions", ndir, s.in_rev));
  int64_t batch = -1, len = -1;
  for (int32_t j = 0; j < s.nin; ++j) {
    int64_t ax = 1, l = 0, b0 = 0;
    RT_RETURN_IF_ERROR(axis_len(cx, scans[j], first + s.nstate + j, &ax, &l));
    ax = 0;
    RT_RETURN_IF_ERROR(axis_len(cx, scans[j], first + s.nstate + j, &ax, &b0));
    if ((len >= 0 && l != len) || (batch >= 0 && b0 != batch)) {
      return rt_onnx_bad(cx, "the Scan's scan inputs differ in batch size or length");
    }
    len = l;
    batch = b0;
  }
  if (batch < 1) return rt_onnx_unsupported(cx, "a Scan of batch size 0");
  if (in[0]) {
    if (!rt_onnx_is_const(in[0])) {
      return rt_onnx_unsupported(cx, "a Scan sequence_lens known only at run time");
    }
    const rt_tensor_t *lens = in[0]->constant.value;
    for (int64_t b = 0; b < rt_tensor_numel(lens); ++b) {
      if (rt_tensor_get_f64(lens, b) != (double)len) {
        return rt_onnx_unsupported(cx, "a Scan sequence_lens shorter than the scan inputs");
      }
    }
  }
  for (int32_t j = 0; j < s.nin; ++j) s.in_axis[j] = 0;
  rt_ir_expr_t *per[2 * MAXV], *bst[MAXV], *bsc[MAXV];
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&cx->m->arena, (size_t)nout * (size_t)batch,
                                          sizeof(rt_ir_expr_t *), &p));
  rt_ir_expr_t **cols = p;
  for (int64_t b = 0; b < batch; ++b) {
    for (int32_t i = 0; i < s.nstate; ++i) RT_RETURN_IF_ERROR(slice_at(cx, states[i], 0, b, &bst[i]));
    for (int32_t j = 0; j < s.nin; ++j) RT_RETURN_IF_ERROR(slice_at(cx, scans[j], 0, b, &bsc[j]));
    RT_RETURN_IF_ERROR(unroll(cx, &s, len, bst, bsc, per));
    for (int32_t k = 0; k < nout; ++k) cols[(size_t)k * (size_t)batch + (size_t)b] = per[k];
  }
  for (int32_t k = 0; k < nout; ++k) {
    RT_RETURN_IF_ERROR(stack_on(cx, (int32_t)batch, &cols[(size_t)k * (size_t)batch], 0, &out[k]));
  }
  return RT_OK;
}
