/* AlterOpLayout: rewrites chains of float32 NCHW convolutions with constant
 * weights into the blocked layouts of TVM's x86 AlterOpLayout: activations
 * in NCHW{x}c (N, C/x, H, W, x), weights in OIHW{x}i{x}o, with layout
 * transforms only where a value leaves the blocked chain:
 *   nn.conv2d(x, W)  ->  nn.contrib_conv2d_NCHWc(X, layout_transform(W,
 *       "OIHW", "OIHW{x}i{x}o"), data_layout="NCHW{x}c",
 *       kernel_layout="OIHW{x}i{x}o", out_layout="NCHW{x}c")
 * with X the blocked data: the producer's blocked value when it has one,
 * else layout_transform(x, "NCHW", "NCHW{x}c"). A depthwise convolution
 * (groups = C = O) becomes nn.contrib_depthwise_conv2d_NCHWc with kernel
 * OIHW1i{x}o. The FoldConstant after this pass transforms the weights at
 * build time.
 *
 * How the layout travels: every rewritten op returns
 * layout_transform(B, "NCHW{x}c", "NCHW") of its blocked result B, so
 * every consumer still sees an NCHW value and the module stays well typed
 * whatever reads it (dense, reshape, softmax, the function's result...).
 * A blocked-aware consumer "peels" that transform and reads B itself; a
 * transform nobody reads any more is gone (the graph is a dataflow DAG),
 * so inverse pairs cancel and transforms remain only at the edges.
 * Blocked-aware, when the operand they would read blocked was peeled:
 *   - the unary elementwise ops (ops.def RT_UNARY rows), clip and cast;
 *   - broadcast binary ops (RT_BINARY rows) whose blocked operand has the
 *     output's shape and whose other operand is blocked too, has one
 *     element, or is per-channel: (C, h, w) / (n, C, h, w) with h, w, n
 *     each 1 or the full extent, brought to NCHW{x}c by reshape and
 *     layout_transform (constants fold);
 *   - nn.bias_add on axis 1 (as an add of the reshaped, blocked bias);
 *   - max/avg/global/adaptive 2-d pools with layout NCHW (they take
 *     layout "NCHW{x}c");
 *   - concatenate on the channel axis of 4-d tensors when every piece's
 *     channels divide by x (pieces that were not blocked are transformed).
 * A convolution whose input or output channels do not divide by x (a
 * 3-channel stem), grouped convolutions other than depthwise, other
 * layouts, dtypes, dynamic shapes and non-constant weights stay as they
 * are; so do the stride-1 3x3 convolutions Conv2dWinograd takes when it
 * runs after this pass (rt_pass_context_runs, rt_pass_winograd_takes:
 * its template reads NCHW, and Winograd's 2.25-4x fewer multiply-adds
 * beat the blocked direct template).
 *
 * x: the pass-context option alter_op_layout.block (0, the default: the
 * templates' lanes under jit.target, rt_pass_template_lanes: 16 or 8).
 * The pass is off by default (an opt_level no context reaches,
 * passes.def): it runs when required (`--require AlterOpLayout`). With x
 * the templates' lanes the blocked convolutions run on
 * conv2d_NCHWc.direct and conv2d_NCHWc.depthwise (jit/templates/
 * blocked.c); the pools and the transforms at the edges on the generic
 * lowering; whole models are not yet faster than the default pipeline
 * (docs/pipeline.md). One bottom-up rt_ir_mutate walk per global; the
 * module comes back unchanged (the same reference) when nothing
 * matched. */
#include <stdio.h>
#include <string.h>

#include "ir/op/op_attrs.h"
#include "ir/op/plan.h"
#include "passes/pass.h"
#include "runtime/mem.h"

#define MAX_MEMO 1024

typedef struct al_ctx {
  rt_pass_rewrite_t base; /* first: rt_pass_rewrite_globals's state */
  int64_t x;              /* the block */
  int32_t lanes;          /* rt_pass_template_lanes */
  bool winograd;          /* Conv2dWinograd runs after this pass */
  char blocked[32];       /* "NCHW{x}c" */
  /* The transforms to NCHW{x}c made so far, by the value they transform:
   * a value read blocked by several consumers is transformed once. */
  rt_module_t *memo_m;
  int32_t nmemo;
  struct {
    const rt_ir_expr_t *v;
    rt_ir_expr_t *blocked;
  } memo[MAX_MEMO];
} al_ctx;

static const bool kUnary[RT_OP_COUNT] = {
#define RT_OP(ID, name, ninputs, pattern, fields, rel, family, doc)
#define RT_UNARY(ID, name, fields, domain, doc) [RT_OP_##ID] = true,
#define RT_BINARY(ID, name, rel, domain, doc)
#include "ir/ops.def"
#undef RT_OP
#undef RT_UNARY
#undef RT_BINARY
    [RT_OP_CLIP] = true,
    [RT_OP_CAST] = true,
};

static const bool kBinary[RT_OP_COUNT] = {
#define RT_OP(ID, name, ninputs, pattern, fields, rel, family, doc)
#define RT_UNARY(ID, name, fields, domain, doc)
#define RT_BINARY(ID, name, rel, domain, doc) [RT_OP_##ID] = true,
#include "ir/ops.def"
#undef RT_OP
#undef RT_UNARY
#undef RT_BINARY
};

/* The static tensor type of an original (typed) node, or NULL. */
static const rt_ir_type_t *static_type(const rt_ir_expr_t *e) {
  const rt_ir_type_t *t = e->checked_type ? rt_ir_type_resolve(e->checked_type) : NULL;
  if (!t || t->kind != RT_IR_TYPE_TENSOR) return NULL;
  for (int32_t k = 0; k < t->tensor.rank; ++k) {
    if (t->tensor.shape[k] == RT_DIM_ANY) return NULL;
  }
  return t;
}

static bool same_shape(const rt_ir_type_t *a, const rt_ir_type_t *b) {
  if (a->tensor.rank != b->tensor.rank) return false;
  for (int32_t k = 0; k < a->tensor.rank; ++k) {
    if (a->tensor.shape[k] != b->tensor.shape[k]) return false;
  }
  return true;
}

static bool is_op_id(const rt_ir_expr_t *e, int32_t *id) {
  if (e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP) return false;
  *id = e->call.callee->op.op->id;
  return true;
}

/* B when e is layout_transform(B, "NCHW{x}c", "NCHW"), else NULL. */
static rt_ir_expr_t *peel(const al_ctx *cx, rt_ir_expr_t *e) {
  if (!rt_pass_is_op(e, RT_OP_LAYOUT_TRANSFORM) || e->call.nargs != 1) return NULL;
  const char *src = rt_attrs_string(e->call.attrs, "src_layout");
  const char *dst = rt_attrs_string(e->call.attrs, "dst_layout");
  if (!src || !dst || strcmp(src, cx->blocked) != 0 || strcmp(dst, "NCHW") != 0) return NULL;
  return e->call.args[0];
}

static rt_status_t transform(al_ctx *cx, rt_ir_span_t span, rt_ir_expr_t *v, const char *src,
                             const char *dst, rt_ir_expr_t **out) {
  char s[64], d[64];
  snprintf(s, sizeof s, "\"%s\"", src);
  snprintf(d, sizeof d, "\"%s\"", dst);
  const char *keys[2] = {"src_layout", "dst_layout"}, *vals[2] = {s, d};
  return rt_pass_make_call(cx->base.m, span, RT_OP_LAYOUT_TRANSFORM, 1, &v, 2, keys, vals, out);
}

/* The NCHW{x}c form of the NCHW value v (new node `orig_v`'s rebuild):
 * the peeled producer when there is one, else a layout_transform. */
static rt_status_t to_blocked(al_ctx *cx, rt_ir_span_t span, rt_ir_expr_t *v, rt_ir_expr_t **out) {
  rt_ir_expr_t *b = peel(cx, v);
  if (b) {
    *out = b;
    return RT_OK;
  }
  if (cx->memo_m != cx->base.m) { /* a new global's module */
    cx->memo_m = cx->base.m;
    cx->nmemo = 0;
  }
  for (int32_t i = 0; i < cx->nmemo; ++i) {
    if (cx->memo[i].v == v) {
      *out = cx->memo[i].blocked;
      return RT_OK;
    }
  }
  RT_RETURN_IF_ERROR(transform(cx, span, v, "NCHW", cx->blocked, out));
  if (cx->nmemo < MAX_MEMO) {
    cx->memo[cx->nmemo].v = v;
    cx->memo[cx->nmemo++].blocked = *out;
  }
  return RT_OK;
}

/* e's replacement: the blocked result b, transformed back to NCHW. */
static rt_status_t finish(al_ctx *cx, rt_ir_expr_t *e, rt_ir_expr_t *b, rt_ir_expr_t **out) {
  b->binding = e->binding;
  RT_RETURN_IF_ERROR(transform(cx, e->span, b, cx->blocked, "NCHW", out));
  cx->base.changed = true;
  return RT_OK;
}

/* The same op on new args, attrs unchanged. */
static rt_status_t same_call(al_ctx *cx, const rt_ir_expr_t *e, int32_t nargs, rt_ir_expr_t *const *args,
                             rt_ir_expr_t **out) {
  return rt_ir_call(cx->base.m, e->span, e->call.callee, nargs, args, (rt_ir_attrs_t *)e->call.attrs,
                    out);
}

/* ---- convolutions -------------------------------------------------------- */

static rt_status_t conv(al_ctx *cx, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  const rt_ir_type_t *xt = static_type(orig->call.args[0]), *wt = static_type(orig->call.args[1]);
  const rt_ir_type_t *yt = static_type(orig);
  if (!xt || !wt || !yt || xt->tensor.rank != 4 || wt->tensor.rank != 4 || yt->tensor.rank != 4) {
    return RT_OK;
  }
  if (!rt_dtype_equal(xt->tensor.dtype, RT_DTYPE_FLOAT32) ||
      !rt_dtype_equal(wt->tensor.dtype, RT_DTYPE_FLOAT32) ||
      !rt_dtype_equal(yt->tensor.dtype, RT_DTYPE_FLOAT32) || !rt_pass_is_constant_expr(e->call.args[1])) {
    return RT_OK;
  }
  rt_plan_input_t in[2];
  rt_ir_plan_input_of_type(xt, &in[0]);
  rt_ir_plan_input_of_type(wt, &in[1]);
  rt_plan_conv_t p;
  if (!rt_pass_plan_conv_nchw(e, in, &p)) return RT_OK;
  const int64_t x = cx->x, c = p.in_channels, o = p.out_channels;
  const bool depthwise = p.groups == c && p.groups == o && p.kernel_i == 1 && c > 1;
  if ((p.groups != 1 && !depthwise) || c % x != 0 || o % x != 0) return RT_OK;
  /* A convolution Conv2dWinograd will take stays NCHW for it (its
   * template reads NCHW): Winograd does 2.25-4x fewer multiply-adds than
   * the blocked direct template. */
  if (cx->winograd && !depthwise && rt_pass_winograd_takes(&p, cx->lanes)) return RT_OK;
  char kl[40], kq[44], dq[40];
  if (depthwise) {
    snprintf(kl, sizeof kl, "OIHW1i%lldo", (long long)x);
  } else {
    snprintf(kl, sizeof kl, "OIHW%lldi%lldo", (long long)x, (long long)x);
  }
  snprintf(kq, sizeof kq, "\"%s\"", kl);
  snprintf(dq, sizeof dq, "\"%s\"", cx->blocked);
  rt_ir_expr_t *args[2];
  RT_RETURN_IF_ERROR(to_blocked(cx, e->span, e->call.args[0], &args[0]));
  RT_RETURN_IF_ERROR(transform(cx, e->span, e->call.args[1], "OIHW", kl, &args[1]));
  const char *keys[3] = {"data_layout", "kernel_layout", "out_layout"};
  const char *vals[3] = {dq, kq, dq};
  rt_ir_expr_t *b = NULL;
  RT_RETURN_IF_ERROR(rt_pass_remake_call(cx->base.m, e, depthwise ? RT_OP_NN_DEPTHWISE_CONV2D_NCHWC : RT_OP_NN_CONV2D_NCHWC,
                               2, args, 3, keys, vals, &b));
  return finish(cx, e, b, out);
}

/* ---- elementwise and broadcast -------------------------------------------- */

/* The blocked form of a binary op's other operand `v` (original `ov`)
 * against a blocked (N, C, H, W) operand of type `full`; *out NULL when
 * it has none. */
static rt_status_t other_operand(al_ctx *cx, rt_ir_span_t span, rt_ir_expr_t *ov, rt_ir_expr_t *v,
                                 const rt_ir_type_t *full, rt_ir_expr_t **out) {
  *out = NULL;
  rt_ir_expr_t *b = peel(cx, v);
  const rt_ir_type_t *t = static_type(ov);
  if (!t) return RT_OK;
  if (b && same_shape(t, full)) {
    *out = b;
    return RT_OK;
  }
  int64_t numel = 1;
  for (int32_t k = 0; k < t->tensor.rank; ++k) numel *= t->tensor.shape[k];
  if (numel == 1) {
    *out = v; /* one element broadcasts against the 5-d tensor as it is */
    return RT_OK;
  }
  const int64_t *f = full->tensor.shape, *s = t->tensor.shape;
  const int32_t r = t->tensor.rank;
  if (r != 3 && r != 4) return RT_OK;
  /* (n, C, h, w) or (C, h, w): n, h, w each 1 or full. */
  const int64_t n = r == 4 ? s[0] : 1, ch = s[r - 3], h = s[r - 2], w = s[r - 1];
  if ((n != 1 && n != f[0]) || ch != f[1] || (h != 1 && h != f[2]) || (w != 1 && w != f[3])) {
    return RT_OK;
  }
  if (r == 3) {
    char shape[96];
    snprintf(shape, sizeof shape, "[1, %lld, %lld, %lld]", (long long)ch, (long long)h, (long long)w);
    const char *rk[1] = {"newshape"}, *rv[1] = {shape};
    RT_RETURN_IF_ERROR(rt_pass_make_call(cx->base.m, span, RT_OP_RESHAPE, 1, &v, 1, rk, rv, &v));
  }
  return to_blocked(cx, span, v, out);
}

static rt_status_t binary(al_ctx *cx, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  const rt_ir_type_t *yt = static_type(orig);
  if (!yt || yt->tensor.rank != 4) return RT_OK;
  for (int32_t i = 0; i < 2; ++i) {
    rt_ir_expr_t *b = peel(cx, e->call.args[i]);
    const rt_ir_type_t *bt = static_type(orig->call.args[i]);
    if (!b || !bt || !same_shape(bt, yt)) continue;
    rt_ir_expr_t *other = NULL;
    RT_RETURN_IF_ERROR(other_operand(cx, e->span, orig->call.args[1 - i], e->call.args[1 - i], yt, &other));
    if (!other) continue;
    rt_ir_expr_t *args[2];
    args[i] = b;
    args[1 - i] = other;
    rt_ir_expr_t *r = NULL;
    RT_RETURN_IF_ERROR(same_call(cx, e, 2, args, &r));
    return finish(cx, e, r, out);
  }
  return RT_OK;
}

static rt_status_t bias_add(al_ctx *cx, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  rt_ir_expr_t *b = peel(cx, e->call.args[0]);
  const rt_ir_type_t *yt = static_type(orig), *bt = static_type(orig->call.args[1]);
  const int64_t axis = rt_attrs_int(e->call.attrs, "axis");
  if (!b || !yt || !bt || yt->tensor.rank != 4 || bt->tensor.rank != 1 || (axis != 1 && axis != -3)) {
    return RT_OK;
  }
  char shape[48];
  snprintf(shape, sizeof shape, "[1, %lld, 1, 1]", (long long)bt->tensor.shape[0]);
  const char *rk[1] = {"newshape"}, *rv[1] = {shape};
  rt_ir_expr_t *bias = e->call.args[1];
  RT_RETURN_IF_ERROR(rt_pass_make_call(cx->base.m, e->span, RT_OP_RESHAPE, 1, &bias, 1, rk, rv, &bias));
  RT_RETURN_IF_ERROR(to_blocked(cx, e->span, bias, &bias));
  rt_ir_expr_t *args[2] = {b, bias}, *r = NULL;
  RT_RETURN_IF_ERROR(rt_pass_make_call(cx->base.m, e->span, RT_OP_ADD, 2, args, 0, NULL, NULL, &r));
  return finish(cx, e, r, out);
}

/* ---- pools and concatenate ------------------------------------------------- */

static rt_status_t pool(al_ctx *cx, rt_ir_expr_t *e, rt_op_id_t id, rt_ir_expr_t **out) {
  rt_ir_expr_t *b = peel(cx, e->call.args[0]);
  const char *layout = rt_attrs_string(e->call.attrs, "layout");
  const char *out_layout = rt_attrs_string(e->call.attrs, "out_layout");
  if (!b || !layout || strcmp(layout, "NCHW") != 0 || (out_layout && *out_layout && strcmp(out_layout, "NCHW") != 0)) {
    return RT_OK;
  }
  char q[40];
  snprintf(q, sizeof q, "\"%s\"", cx->blocked);
  const char *keys[2] = {"layout", "out_layout"}, *vals[2] = {q, "\"\""};
  rt_ir_expr_t *r = NULL;
  RT_RETURN_IF_ERROR(rt_pass_remake_call(cx->base.m, e, id, 1, &b, 2, keys, vals, &r));
  return finish(cx, e, r, out);
}

static rt_status_t concat(al_ctx *cx, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  rt_ir_expr_t *tup = e->call.args[0], *otup = orig->call.args[0];
  const rt_ir_type_t *yt = static_type(orig);
  const int64_t axis = rt_attrs_int(e->call.attrs, "axis");
  if (!yt || yt->tensor.rank != 4 || (axis != 1 && axis != -3) || tup->kind != RT_IR_TUPLE ||
      otup->kind != RT_IR_TUPLE || tup->tuple.count != otup->tuple.count || tup->tuple.count > 256) {
    return RT_OK;
  }
  const int32_t n = tup->tuple.count;
  rt_ir_expr_t *fields[256];
  int32_t peeled = 0;
  for (int32_t i = 0; i < n; ++i) {
    const rt_ir_type_t *t = static_type(otup->tuple.fields[i]);
    if (!t || t->tensor.rank != 4 || t->tensor.shape[1] % cx->x != 0) return RT_OK;
    peeled += peel(cx, tup->tuple.fields[i]) != NULL;
  }
  if (!peeled) return RT_OK;
  for (int32_t i = 0; i < n; ++i) {
    RT_RETURN_IF_ERROR(to_blocked(cx, e->span, tup->tuple.fields[i], &fields[i]));
  }
  rt_ir_expr_t *nt = NULL, *r = NULL;
  RT_RETURN_IF_ERROR(rt_ir_tuple(cx->base.m, tup->span, n, fields, &nt));
  const char *keys[1] = {"axis"}, *vals[1] = {"1"};
  RT_RETURN_IF_ERROR(rt_pass_remake_call(cx->base.m, e, RT_OP_CONCATENATE, 1, &nt, 1, keys, vals, &r));
  return finish(cx, e, r, out);
}

static rt_status_t rewrite(void *user, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  al_ctx *cx = user;
  *out = e;
  int32_t id;
  if (!is_op_id(e, &id) || !is_op_id(orig, &id)) return RT_OK;
  const int32_t nargs = e->call.nargs;
  if (nargs != orig->call.nargs) return RT_OK;
  switch (id) {
    case RT_OP_NN_CONV2D:
      return nargs == 2 ? conv(cx, orig, e, out) : RT_OK;
    case RT_OP_NN_BIAS_ADD:
      return nargs == 2 ? bias_add(cx, orig, e, out) : RT_OK;
    case RT_OP_NN_MAX_POOL2D:
    case RT_OP_NN_AVG_POOL2D:
    case RT_OP_NN_GLOBAL_AVG_POOL2D:
    case RT_OP_NN_GLOBAL_MAX_POOL2D:
    case RT_OP_NN_ADAPTIVE_AVG_POOL2D:
    case RT_OP_NN_ADAPTIVE_MAX_POOL2D:
      return nargs == 1 ? pool(cx, e, (rt_op_id_t)id, out) : RT_OK;
    case RT_OP_CONCATENATE:
      return nargs == 1 ? concat(cx, orig, e, out) : RT_OK;
    default:
      break;
  }
  if (kUnary[id] && nargs == 1) {
    rt_ir_expr_t *b = peel(cx, e->call.args[0]);
    if (!b) return RT_OK;
    rt_ir_expr_t *r = NULL;
    RT_RETURN_IF_ERROR(same_call(cx, e, 1, &b, &r));
    return finish(cx, e, r, out);
  }
  if (kBinary[id] && nargs == 2) return binary(cx, orig, e, out);
  return RT_OK;
}

rt_status_t rt_pass_alter_op_layout(const rt_pass_env_t *env, rt_module_t *in, rt_module_t **out) {
  al_ctx *cx = rt_mem_calloc(1, sizeof *cx);
  if (!cx) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "AlterOpLayout: out of memory");
  const rt_pass_context_t *ctx = env ? env->ctx : NULL;
  cx->lanes = rt_pass_template_lanes(ctx);
  cx->x = ctx && ctx->alter_op_layout_block > 0 ? ctx->alter_op_layout_block : cx->lanes;
  cx->winograd = rt_pass_context_runs(ctx, "Conv2dWinograd");
  snprintf(cx->blocked, sizeof cx->blocked, "NCHW%lldc", (long long)cx->x);
  rt_status_t st = rt_pass_rewrite_globals(in, rewrite, &cx->base, out);
  rt_mem_free(cx);
  return st;
}
