/* ONNX recurrent ops: RNN, LSTM and GRU, unrolled over a static sequence
 * length into plain Relay dataflow (so every executor runs them).
 *
 * Per direction d (forward, reverse, or both for bidirectional), the input
 * projection of every step is one nn.dense: X reshaped to (S*B, I) times
 * W[d]^T plus Wb, reshaped to (S, B, G*H) (G gates). Then each step t (in
 * order, or from the end for reverse) takes its slice and adds the
 * recurrent projection H_{t-1} R[d]^T + Rb, split into the gates (ONNX
 * orders them i o f c for LSTM, z r h for GRU):
 *   RNN   H = f(x + H R^T + Rb)
 *   LSTM  i = f(xi + H Ri^T + Pi C), f_ = f(xf + H Rf^T + Pf C),
 *         C' = f_ C + i g(xc + H Rc^T), o = f(xo + H Ro^T + Po C'),
 *         H' = o h(C')
 *   GRU   z = f(xz + H Rz^T), r = f(xr + H Rr^T),
 *         n = g(xh + (r H) Rh^T + Rbh)      (linear_before_reset = 0)
 *         n = g(xh + r (H Rh^T + Rbh))      (linear_before_reset = 1)
 *         H' = (1 - z) n + z H
 * with the default activations f = Sigmoid, g = h = Tanh (RNN: Tanh), or
 * the ones given among Sigmoid, Tanh and Relu. Y stacks every step's H
 * (S, D, B, H), Y_h (and LSTM's Y_c) the last state (D, B, H); layout 1
 * (batch first) transposes at the edges. sequence_lens must be a constant
 * equal to S for every batch entry (shorter sequences need masking: not
 * supported); clip, input_forget and activation alpha/beta are refused. */
#include <string.h>
#include <strings.h>

#include "frontend/onnx/onnx_impl.h"

enum { K_RNN, K_LSTM, K_GRU };

typedef struct rnn_t {
  rt_onnx_ctx_t *cx;
  int kind, G;
  int64_t S, B, I, H;
  int D;
  bool lbr;
  const char *act[2][3]; /* Relay op per direction: f, g, h */
} rnn_t;

static rt_status_t take0(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, int64_t i, rt_ir_expr_t **out) {
  rt_ir_expr_t *idx = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_const_i64(cx, 0, 1, &i, &idx));
  rt_ir_expr_t *args[2] = {x, idx};
  return rt_onnx_call(cx, "take", 2, args, out, "axis", "0", NULL);
}

/* x[lo:hi] along `axis` of a 1-d or 2-d tensor. */
static rt_status_t slice(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, int64_t axis, int64_t lo, int64_t hi,
                         rt_ir_expr_t **out) {
  return rt_onnx_call(cx, "strided_slice", 1, &x, out, "begin", rt_onnx_ints_text(cx, 1, &lo),
                      "end", rt_onnx_ints_text(cx, 1, &hi), "axes", rt_onnx_ints_text(cx, 1, &axis),
                      NULL);
}

static rt_status_t reshape(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, int32_t n, const int64_t *shape,
                           rt_ir_expr_t **out) {
  return rt_onnx_call(cx, "reshape", 1, &x, out, "newshape", rt_onnx_ints_text(cx, n, shape), NULL);
}

static rt_status_t transpose(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, int32_t n, const int64_t *perm,
                             rt_ir_expr_t **out) {
  return rt_onnx_call(cx, "transpose", 1, &x, out, "axes", rt_onnx_ints_text(cx, n, perm), NULL);
}

static rt_status_t stack_exprs(rt_onnx_ctx_t *cx, int32_t n, rt_ir_expr_t **v, int64_t axis,
                               rt_ir_expr_t **out) {
  rt_ir_expr_t *tup = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tuple(cx, n, v, &tup));
  return rt_onnx_call(cx, "stack", 1, &tup, out, "axis", rt_onnx_int_text(cx, axis), NULL);
}

static rt_status_t dense(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, rt_ir_expr_t *w, rt_ir_expr_t *b,
                         rt_ir_expr_t **out) {
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "nn.dense", x, w, out));
  if (b) RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", *out, b, out));
  return RT_OK;
}

static rt_status_t act(rt_onnx_ctx_t *cx, const char *op, rt_ir_expr_t *x, rt_ir_expr_t **out) {
  return rt_onnx_call1(cx, op, x, out);
}

/* Reads `activations` (n per direction) into r->act, defaults otherwise. */
static rt_status_t read_activations(rnn_t *r, int n) {
  rt_onnx_ctx_t *cx = r->cx;
  static const char *const dflt_rnn[] = {"tanh"};
  static const char *const dflt_gate[] = {"sigmoid", "tanh", "tanh"};
  for (int d = 0; d < 2; ++d) {
    for (int k = 0; k < n; ++k) r->act[d][k] = r->kind == K_RNN ? dflt_rnn[k] : dflt_gate[k];
  }
  if (rt_onnx_attr(cx, "activation_alpha") || rt_onnx_attr(cx, "activation_beta")) {
    return rt_onnx_unsupported(cx, "activation_alpha / activation_beta");
  }
  const Onnx__AttributeProto *a = rt_onnx_attr(cx, "activations");
  if (!a || a->n_strings == 0) return RT_OK;
  if (a->n_strings != (size_t)(n * r->D)) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT,
                              "activations must list %d names (%d per direction), got %zu",
                              n * r->D, n, a->n_strings);
  }
  for (size_t i = 0; i < a->n_strings; ++i) {
    char name[32];
    size_t len = a->strings[i].len < sizeof name - 1 ? a->strings[i].len : sizeof name - 1;
    memcpy(name, a->strings[i].data, len);
    name[len] = '\0';
    const char *op = NULL;
    if (strcasecmp(name, "Sigmoid") == 0) op = "sigmoid";
    else if (strcasecmp(name, "Tanh") == 0) op = "tanh";
    else if (strcasecmp(name, "Relu") == 0) op = "nn.relu";
    if (!op) {
      return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED,
                                "activation '%s' is not supported (Sigmoid, Tanh and Relu are)",
                                name);
    }
    r->act[i / (size_t)n][i % (size_t)n] = op;
  }
  return RT_OK;
}

static rt_status_t get_gates(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, int G, rt_ir_expr_t **gates) {
  if (G == 1) {
    gates[0] = x;
    return RT_OK;
  }
  rt_ir_expr_t *sp = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "split", 1, &x, &sp, "indices_or_sections",
                                  rt_onnx_int_text(cx, G), "axis", "1", NULL));
  for (int g = 0; g < G; ++g) RT_RETURN_IF_ERROR(rt_onnx_get_item(cx, sp, g, &gates[g]));
  return RT_OK;
}

/* One direction: Y (S, B, H) in *out_y, the last H and C. */
static rt_status_t direction(rnn_t *r, int d, bool reverse, rt_ir_expr_t *X, rt_ir_expr_t *W,
                             rt_ir_expr_t *R, rt_ir_expr_t *Bias, rt_ir_expr_t *H0,
                             rt_ir_expr_t *C0, rt_ir_expr_t *P, rt_ir_expr_t **out_y,
                             rt_ir_expr_t **out_h, rt_ir_expr_t **out_c) {
  rt_onnx_ctx_t *cx = r->cx;
  const int64_t GH = r->G * r->H, H = r->H;
  rt_ir_expr_t *Wd = NULL, *Rd = NULL, *Wb = NULL, *Rb = NULL;
  RT_RETURN_IF_ERROR(take0(cx, W, d, &Wd));
  RT_RETURN_IF_ERROR(take0(cx, R, d, &Rd));
  if (Bias) {
    rt_ir_expr_t *Bd = NULL;
    RT_RETURN_IF_ERROR(take0(cx, Bias, d, &Bd));
    RT_RETURN_IF_ERROR(slice(cx, Bd, 0, 0, GH, &Wb));
    RT_RETURN_IF_ERROR(slice(cx, Bd, 0, GH, 2 * GH, &Rb));
  }
  /* The input projections of every step at once. */
  int64_t s2[2] = {r->S * r->B, r->I}, s3[3] = {r->S, r->B, GH};
  rt_ir_expr_t *XW = NULL;
  RT_RETURN_IF_ERROR(reshape(cx, X, 2, s2, &XW));
  RT_RETURN_IF_ERROR(dense(cx, XW, Wd, Wb, &XW));
  RT_RETURN_IF_ERROR(reshape(cx, XW, 3, s3, &XW));
  /* GRU needs R split in (z r) and h, and Rb alike. */
  rt_ir_expr_t *Rzr = NULL, *Rh = NULL, *Rbzr = NULL, *Rbh = NULL;
  if (r->kind == K_GRU) {
    RT_RETURN_IF_ERROR(slice(cx, Rd, 0, 0, 2 * H, &Rzr));
    RT_RETURN_IF_ERROR(slice(cx, Rd, 0, 2 * H, 3 * H, &Rh));
    if (Rb) {
      RT_RETURN_IF_ERROR(slice(cx, Rb, 0, 0, 2 * H, &Rbzr));
      RT_RETURN_IF_ERROR(slice(cx, Rb, 0, 2 * H, 3 * H, &Rbh));
    }
  }
  rt_ir_expr_t *Pi = NULL, *Po = NULL, *Pf = NULL;
  if (P) {
    rt_ir_expr_t *Pd = NULL;
    RT_RETURN_IF_ERROR(take0(cx, P, d, &Pd));
    RT_RETURN_IF_ERROR(slice(cx, Pd, 0, 0, H, &Pi));
    RT_RETURN_IF_ERROR(slice(cx, Pd, 0, H, 2 * H, &Po));
    RT_RETURN_IF_ERROR(slice(cx, Pd, 0, 2 * H, 3 * H, &Pf));
  }
  rt_ir_expr_t *h = NULL, *c = NULL;
  if (H0) RT_RETURN_IF_ERROR(take0(cx, H0, d, &h));
  if (C0) RT_RETURN_IF_ERROR(take0(cx, C0, d, &c));
  rt_ir_expr_t *zero = NULL, *one = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, 0.0, &zero));
  RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, 1.0, &one));
  if (!rt_dtype_equal(rt_onnx_type(X)->tensor.dtype, RT_DTYPE_FLOAT32)) {
    return rt_onnx_unsupported(cx, "a recurrent op over other than float32");
  }
  int64_t bh[2] = {r->B, H};
  if (!h) {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "full", 1, &zero, &h, "shape", rt_onnx_ints_text(cx, 2, bh),
                                    "dtype", "\"float32\"", NULL));
  }
  if (!c && r->kind == K_LSTM) {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "full", 1, &zero, &c, "shape", rt_onnx_ints_text(cx, 2, bh),
                                    "dtype", "\"float32\"", NULL));
  }
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&cx->m->arena, (size_t)r->S, sizeof(rt_ir_expr_t *), &p));
  rt_ir_expr_t **ys = p;
  const char *f = r->act[d][0], *g = r->act[d][1], *hact = r->act[d][2];
  for (int64_t s = 0; s < r->S; ++s) {
    const int64_t t = reverse ? r->S - 1 - s : s;
    rt_ir_expr_t *xt = NULL, *e = NULL;
    RT_RETURN_IF_ERROR(take0(cx, XW, t, &xt));
    if (r->kind == K_RNN) {
      RT_RETURN_IF_ERROR(dense(cx, h, Rd, Rb, &e));
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", xt, e, &e));
      RT_RETURN_IF_ERROR(act(cx, f, e, &h));
    } else if (r->kind == K_LSTM) {
      rt_ir_expr_t *gt[4], *gi = NULL, *go = NULL, *gf = NULL, *gc = NULL, *m = NULL;
      RT_RETURN_IF_ERROR(dense(cx, h, Rd, Rb, &e));
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", xt, e, &e));
      RT_RETURN_IF_ERROR(get_gates(cx, e, 4, gt));
      gi = gt[0], go = gt[1], gf = gt[2], gc = gt[3];
      if (Pi) {
        RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", Pi, c, &m));
        RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", gi, m, &gi));
        RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", Pf, c, &m));
        RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", gf, m, &gf));
      }
      RT_RETURN_IF_ERROR(act(cx, f, gi, &gi));
      RT_RETURN_IF_ERROR(act(cx, f, gf, &gf));
      RT_RETURN_IF_ERROR(act(cx, g, gc, &gc));
      rt_ir_expr_t *a = NULL, *b = NULL;
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", gf, c, &a));
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", gi, gc, &b));
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", a, b, &c));
      if (Po) {
        RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", Po, c, &m));
        RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", go, m, &go));
      }
      RT_RETURN_IF_ERROR(act(cx, f, go, &go));
      RT_RETURN_IF_ERROR(act(cx, hact, c, &a));
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", go, a, &h));
    } else {
      rt_ir_expr_t *xg[3], *hg[2], *z = NULL, *rr = NULL, *n = NULL;
      RT_RETURN_IF_ERROR(get_gates(cx, xt, 3, xg));
      RT_RETURN_IF_ERROR(dense(cx, h, Rzr, Rbzr, &e));
      RT_RETURN_IF_ERROR(get_gates(cx, e, 2, hg));
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", xg[0], hg[0], &z));
      RT_RETURN_IF_ERROR(act(cx, f, z, &z));
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", xg[1], hg[1], &rr));
      RT_RETURN_IF_ERROR(act(cx, f, rr, &rr));
      if (r->lbr) {
        RT_RETURN_IF_ERROR(dense(cx, h, Rh, Rbh, &n));
        RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", rr, n, &n));
      } else {
        RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", rr, h, &n));
        RT_RETURN_IF_ERROR(dense(cx, n, Rh, Rbh, &n));
      }
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", xg[2], n, &n));
      RT_RETURN_IF_ERROR(act(cx, g, n, &n));
      rt_ir_expr_t *a = NULL, *b = NULL;
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "subtract", one, z, &a));
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", a, n, &a));
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", z, h, &b));
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", a, b, &h));
    }
    ys[t] = h;
  }
  if (r->S == 1) {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "expand_dims", 1, &ys[0], out_y, "axis", "0", NULL));
  } else {
    RT_RETURN_IF_ERROR(stack_exprs(cx, (int32_t)r->S, ys, 0, out_y));
  }
  *out_h = h;
  *out_c = c;
  return RT_OK;
}

static bool wanted(rt_onnx_ctx_t *cx, int32_t k) {
  const Onnx__NodeProto *n = cx->node;
  return (size_t)k < n->n_output && n->output[k] && n->output[k][0];
}

static rt_status_t recurrent(rt_onnx_ctx_t *cx, int kind, rt_ir_expr_t **in, int32_t nin,
                             rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 3));
  rnn_t r = {.cx = cx, .kind = kind, .G = kind == K_RNN ? 1 : kind == K_LSTM ? 4 : 3};
  const char *dir = rt_onnx_attr_string(cx, "direction", "forward");
  bool fwd = strcmp(dir, "forward") == 0, rev = strcmp(dir, "reverse") == 0;
  bool bi = strcmp(dir, "bidirectional") == 0;
  if (!fwd && !rev && !bi) return rt_onnx_bad(cx, "direction must be forward, reverse or bidirectional");
  r.D = bi ? 2 : 1;
  if (rt_onnx_attr(cx, "clip")) return rt_onnx_unsupported(cx, "the clip attribute of a recurrent op");
  if (kind == K_LSTM && rt_onnx_attr_int(cx, "input_forget", 0) != 0) {
    return rt_onnx_unsupported(cx, "LSTM with input_forget");
  }
  r.lbr = kind == K_GRU && rt_onnx_attr_int(cx, "linear_before_reset", 0) != 0;
  RT_RETURN_IF_ERROR(read_activations(&r, kind == K_RNN ? 1 : kind == K_LSTM ? 3 : 2));
  const int64_t layout = cx->opset >= 14 ? rt_onnx_attr_int(cx, "layout", 0) : 0;
  if (layout != 0 && layout != 1) return rt_onnx_bad(cx, "layout must be 0 or 1");
  rt_ir_expr_t *X = in[0], *W = in[1], *R = in[2];
  rt_ir_expr_t *Bias = nin > 3 ? in[3] : NULL, *seq = nin > 4 ? in[4] : NULL;
  rt_ir_expr_t *H0 = nin > 5 ? in[5] : NULL;
  rt_ir_expr_t *C0 = kind == K_LSTM && nin > 6 ? in[6] : NULL;
  rt_ir_expr_t *P = kind == K_LSTM && nin > 7 ? in[7] : NULL;
  const int64_t p3[3] = {1, 0, 2};
  if (layout == 1) {
    RT_RETURN_IF_ERROR(transpose(cx, X, 3, p3, &X));
    if (H0) RT_RETURN_IF_ERROR(transpose(cx, H0, 3, p3, &H0));
    if (C0) RT_RETURN_IF_ERROR(transpose(cx, C0, 3, p3, &C0));
  }
  const rt_ir_type_t *xt = NULL, *wt = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, X, 0, &xt));
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, W, 1, &wt));
  if (xt->tensor.rank != 3 || wt->tensor.rank != 3) return rt_onnx_bad(cx, "X and W must have rank 3");
  if (!rt_onnx_static_shape(xt) || !rt_onnx_static_shape(wt)) {
    return rt_onnx_unsupported(cx, "a recurrent op over `?` dims (the sequence is unrolled: "
                                   "bind them with --shape)");
  }
  r.S = xt->tensor.shape[0];
  r.B = xt->tensor.shape[1];
  r.I = xt->tensor.shape[2];
  r.H = rt_onnx_attr_int(cx, "hidden_size", wt->tensor.shape[1] / r.G);
  if (r.S < 1) return rt_onnx_unsupported(cx, "an empty sequence");
  if (r.S > 4096) return rt_onnx_unsupported(cx, "a sequence longer than 4096 steps (unrolled)");
  if (wt->tensor.shape[0] != r.D || wt->tensor.shape[1] != r.G * r.H || wt->tensor.shape[2] != r.I) {
    return rt_onnx_bad(cx, "W's shape does not fit num_directions, hidden_size and X");
  }
  if (seq) {
    int64_t lens[4096];
    int32_t n = 0;
    RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, seq, "sequence_lens", 4096, lens, &n));
    for (int32_t i = 0; i < n; ++i) {
      if (lens[i] != r.S) {
        return rt_onnx_unsupported(cx, "sequence_lens shorter than the sequence (masked steps)");
      }
    }
  }
  rt_ir_expr_t *ys[2], *hs[2], *cs[2];
  for (int d = 0; d < r.D; ++d) {
    RT_RETURN_IF_ERROR(direction(&r, d, rev || d == 1, X, W, R, Bias, H0, C0, P, &ys[d], &hs[d], &cs[d]));
  }
  /* Y (S, D, B, H); Y_h, Y_c (D, B, H). */
  rt_ir_expr_t *Y = NULL, *Yh = NULL, *Yc = NULL;
  if (wanted(cx, 0)) RT_RETURN_IF_ERROR(stack_exprs(cx, r.D, ys, 1, &Y));
  if (nout > 1 && wanted(cx, 1)) RT_RETURN_IF_ERROR(stack_exprs(cx, r.D, hs, 0, &Yh));
  if (kind == K_LSTM && nout > 2 && wanted(cx, 2)) RT_RETURN_IF_ERROR(stack_exprs(cx, r.D, cs, 0, &Yc));
  if (layout == 1) {
    const int64_t p4[4] = {2, 0, 1, 3};
    if (Y) RT_RETURN_IF_ERROR(transpose(cx, Y, 4, p4, &Y));
    if (Yh) RT_RETURN_IF_ERROR(transpose(cx, Yh, 3, p3, &Yh));
    if (Yc) RT_RETURN_IF_ERROR(transpose(cx, Yc, 3, p3, &Yc));
  }
  out[0] = Y;
  if (nout > 1) out[1] = Yh;
  if (nout > 2 && kind == K_LSTM) out[2] = Yc;
  return RT_OK;
}

rt_status_t rt_onnx_cv_rnn(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                           int32_t nout) {
  return recurrent(cx, K_RNN, in, nin, out, nout);
}
rt_status_t rt_onnx_cv_lstm(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                            int32_t nout) {
  return recurrent(cx, K_LSTM, in, nin, out, nout);
}
rt_status_t rt_onnx_cv_gru(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                           int32_t nout) {
  return recurrent(cx, K_GRU, in, nin, out, nout);
}
