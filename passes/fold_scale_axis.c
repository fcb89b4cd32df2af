/* FoldScaleAxis (opt_level 3): folds a multiply (or divide) by a constant
 * that is uniform except along the channel axis into the weight of the
 * conv2d or dense next to it, as TVM's BackwardFoldScaleAxis and
 * ForwardFoldScaleAxis do in their common cases.
 *
 * Backward (the scale after the anchor), A = conv2d | dense:
 *   multiply(A(x, W), s)                 -> A(x, W * s_O)
 *   multiply(add(A(x, W), b), s)         -> add(A(x, W * s_O), b * s)
 *   multiply(nn.bias_add(A(x, W), b), s) -> nn.bias_add(A(x, W * s_O), b * s_vec)
 *   multiply(nn.relu(<any of the above>), s), every s > 0
 *                                        -> nn.relu(<folded>)
 * (either operand order of multiply and add; divide(., s) likewise with
 * divides, which is TVM's "divide as multiply by 1/s" without the extra
 * rounding). Forward (the scale before the anchor):
 *   conv2d(multiply(x, s), W) -> conv2d(x, W * s_I)   (groups = 1)
 *   dense(multiply(x, s), W)  -> dense(x, W * s_K)
 * conv2d pads with zeros and 0 * s = 0, so padding commutes with the scale.
 * s_O / s_I / s_K is `reshape(s, newshape=...)` with -1 on the kernel's
 * O / I axis (OIHW: [-1, 1, 1, 1] / [1, -1, 1, 1]; HWIO: [1, 1, 1, -1] /
 * [1, 1, -1, 1]; dense: [-1, 1] / [1, -1]); s_vec is reshape(s, [-1]).
 * The new weights are expressions; FoldConstant (after this pass in the
 * pipeline) evaluates them.
 *
 * The forward conv2d fold also takes an s computed at run time (a
 * squeeze-and-excitation gate: multiply(x, sigmoid(conv2d(pool(x))))
 * before the projection) when its type is per-channel as below and the
 * weight has at most 1/RUNTIME_SCALE_GAIN of x's elements: W * s_I is
 * then a small kernel of its own each run, and the convolution reads x in
 * place instead of a scaled copy of it.
 *
 * When it folds: s is a Constant of a float dtype equal to the anchor's
 * output dtype (and no out_dtype), its rank at most the output's, and every
 * dim 1 except the one aligned (numpy broadcasting) with the channel axis,
 * which is 1 or C (so a scalar and (C, 1, 1) / (C,) shapes qualify). The
 * weight is constant: a Constant, or an op-call tree over Constants (what
 * an earlier fold made, so chains of scales fold into one weight); a bias
 * too. Every node of the folded chain (anchor, add, relu, the forward
 * multiply) has this one use in the input, since the rewrite replaces it.
 * Layouts: any upper-case permutation (NCHW/OIHW, NHWC/HWIO, ...), the
 * channel axis from out_layout (or data_layout), O and I from
 * kernel_layout. Anything else is left as it is.
 *
 * Algorithm: one rt_ir_mutate per global, bottom up; a pattern is matched
 * on the rebuilt node, with use counts and types read from the matching
 * nodes of the input (positions correspond one to one). Bottom up, a
 * forward fold of a conv happens before a backward fold of the scale after
 * it, and consecutive scales fold one after the other. The input module is
 * untouched; it is returned retained when nothing folded. */
#include <stdio.h>
#include <string.h>

#include "ir/op/op_attrs.h"
#include "passes/pass.h"
#include "runtime/assert.h"

#define MAX_CONST_DEPTH 16

typedef struct {
  rt_module_t *m;
  uint32_t nid;
  int32_t *uses;  /* by input node id: parent edges */
  int32_t folded;
} fsa_t;

static int32_t uses(const fsa_t *f, const rt_ir_expr_t *orig) {
  return orig->id < f->nid ? f->uses[orig->id] : 0;
}

static const rt_ir_type_t *tensor_type(const rt_ir_expr_t *e) {
  const rt_ir_type_t *t = e ? rt_ir_type_resolve(e->checked_type) : NULL;
  return t && t->kind == RT_IR_TYPE_TENSOR ? t : NULL;
}

/* A Constant or an op-call tree over Constants, with its dtype. */
static bool const_expr(const rt_ir_expr_t *e, int32_t depth, rt_dtype_t *out_dtype) {
  if (e->kind == RT_IR_CONSTANT) {
    *out_dtype = rt_tensor_dtype(e->constant.value);
    return true;
  }
  if (depth >= MAX_CONST_DEPTH || e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP ||
      e->call.nargs < 1) {
    return false;
  }
  rt_dtype_t first = {0};
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    rt_dtype_t d;
    if (!const_expr(e->call.args[i], depth + 1, &d)) return false;
    if (i == 0) first = d;
  }
  const rt_ir_type_t *t = tensor_type(e);
  *out_dtype = t ? t->tensor.dtype : first;
  return true;
}

/* Position of letter `c` in an all-upper-case layout of `rank` letters,
 * -1 when the layout is not one. */
static int32_t layout_axis(const char *layout, int32_t rank, char c) {
  if ((int32_t)strlen(layout) != rank) return -1;
  int32_t pos = -1;
  for (int32_t i = 0; i < rank; ++i) {
    if (layout[i] < 'A' || layout[i] > 'Z') return -1;
    if (layout[i] == c) pos = i;
  }
  return pos;
}

/* What folding into one anchor needs to know. */
typedef struct {
  int32_t out_axis;   /* channel axis of the anchor's output */
  int32_t in_axis;    /* channel axis of its data input */
  int32_t w_rank;
  int32_t w_out_axis; /* O axis of the weight */
  int32_t w_in_axis;  /* I axis (-1: cannot fold forward) */
} anchor_t;

static bool anchor_info(const rt_ir_expr_t *a, anchor_t *out) {
  if (rt_pass_is_op(a, RT_OP_NN_CONV2D)) {
    const rt_attrs_conv2d_t at = rt_ir_attrs_conv2d(a->call.attrs);
    if (!at.out_dtype_is_none) return false;
    const char *dl = at.data_layout;
    const char *ol = at.out_layout;
    const char *kl = at.kernel_layout;
    out->in_axis = layout_axis(dl, 4, 'C');
    out->out_axis = layout_axis(ol[0] ? ol : dl, 4, 'C');
    out->w_rank = 4;
    out->w_out_axis = layout_axis(kl, 4, 'O');
    out->w_in_axis = at.groups == 1 ? layout_axis(kl, 4, 'I') : -1;
    return out->in_axis >= 0 && out->out_axis >= 0 && out->w_out_axis >= 0;
  }
  if (rt_pass_is_op(a, RT_OP_NN_DENSE)) {
    if (!rt_ir_attrs_dense(a->call.attrs).out_dtype_is_none) return false;
    out->in_axis = out->out_axis = -2; /* the last axis, resolved by rank */
    out->w_rank = 2;
    out->w_out_axis = 0;
    out->w_in_axis = 1;
    return true;
  }
  return false;
}

/* Is a value of float dtype `dt` and shape (r dims) uniform except along
 * `axis` of a value of type `vt` (-2: its last axis): its dtype vt's, its
 * rank at most vt's, every dim 1 but the one aligned (numpy broadcasting)
 * with the axis, which is 1 or that axis's static extent? */
static bool per_channel_dims(rt_dtype_t dt, int32_t r, const int64_t *shape, const rt_ir_type_t *vt, int32_t axis) {
  if (!vt || !rt_dtype_is_float(dt) || !rt_dtype_equal(dt, vt->tensor.dtype)) return false;
  const int32_t R = vt->tensor.rank;
  if (axis == -2) axis = R - 1;
  if (r > R || axis < 0 || axis >= R) return false;
  const int64_t C = vt->tensor.shape[axis];
  if (C == RT_DIM_ANY) return false;
  for (int32_t j = 0; j < r; ++j) {
    const int64_t d = shape[j];
    if (R - r + j == axis ? (d != 1 && d != C) : d != 1) return false;
  }
  return true;
}

/* Is `s` a float constant of vt's dtype, uniform except along `axis` of a
 * value of type `vt`? With `positive`, every element must be > 0. */
static bool per_channel(const rt_ir_expr_t *s, const rt_ir_type_t *vt, int32_t axis,
                        bool positive) {
  if (s->kind != RT_IR_CONSTANT) return false;
  const rt_tensor_t *t = s->constant.value;
  if (!per_channel_dims(rt_tensor_dtype(t), rt_tensor_rank(t), rt_tensor_shape(t), vt, axis)) return false;
  if (positive) {
    const int64_t n = rt_tensor_numel(t);
    for (int64_t i = 0; i < n; ++i) {
      if (!(rt_tensor_get_f64(t, i) > 0)) return false;
    }
  }
  return true;
}

static rt_status_t reshape_along(fsa_t *f, rt_ir_expr_t *s, int32_t rank, int32_t axis,
                                 rt_ir_expr_t **out) {
  char shape[64] = "[";
  for (int32_t i = 0; i < rank; ++i) {
    strcat(shape, i == axis ? "-1" : "1");
    if (i + 1 < rank) strcat(shape, ", ");
  }
  strcat(shape, "]");
  const char *keys[] = {"newshape"};
  const char *values[] = {shape};
  return rt_pass_make_call(f->m, s->span, RT_OP_RESHAPE, 1, &s, 1, keys, values, out);
}

static rt_status_t binary(fsa_t *f, rt_op_id_t op, rt_ir_expr_t *a, rt_ir_expr_t *b,
                          rt_ir_expr_t **out) {
  rt_ir_expr_t *args[2] = {a, b};
  return rt_pass_make_call(f->m, a->span, op, 2, args, 0, NULL, NULL, out);
}

/* Same call with new args. */
static rt_status_t recall(fsa_t *f, const rt_ir_expr_t *c, rt_ir_expr_t *a0, rt_ir_expr_t *a1,
                          rt_ir_expr_t **out) {
  rt_ir_expr_t *args[2] = {a0, a1};
  return rt_ir_call(f->m, c->span, c->call.callee, c->call.nargs, args, c->call.attrs, out);
}

/* Backward: `rebuilt` is multiply/divide by a constant; `orig` its input
 * counterpart. */
static rt_status_t fold_backward(fsa_t *f, rt_ir_expr_t *orig, rt_ir_expr_t *rebuilt,
                                 rt_ir_expr_t **out) {
  const bool div = rt_pass_is_op(rebuilt, RT_OP_DIVIDE);
  if (!div && !rt_pass_is_op(rebuilt, RT_OP_MULTIPLY)) return RT_OK;
  const rt_op_id_t op = div ? RT_OP_DIVIDE : RT_OP_MULTIPLY;
  for (int32_t side = 1; side >= (div ? 1 : 0); --side) {
    rt_ir_expr_t *s = rebuilt->call.args[side];
    if (s->kind != RT_IR_CONSTANT) continue;
    rt_ir_expr_t *r = rebuilt->call.args[1 - side], *o = orig->call.args[1 - side];
    rt_ir_expr_t *relu = NULL, *add = NULL, *bias = NULL;
    int32_t anchor_pos = 0;
    if (rt_pass_is_op(r, RT_OP_NN_RELU)) {
      if (uses(f, o) != 1) continue;
      relu = r;
      r = r->call.args[0];
      o = o->call.args[0];
    }
    if (rt_pass_is_op(r, RT_OP_ADD) || rt_pass_is_op(r, RT_OP_NN_BIAS_ADD)) {
      if (uses(f, o) != 1) continue;
      add = r;
      anchor_pos = rt_pass_is_op(r, RT_OP_ADD) && !rt_pass_is_op(r->call.args[0], RT_OP_NN_CONV2D) &&
                           !rt_pass_is_op(r->call.args[0], RT_OP_NN_DENSE)
                       ? 1
                       : 0;
      bias = r->call.args[1 - anchor_pos];
      r = r->call.args[anchor_pos];
      o = o->call.args[anchor_pos];
    }
    anchor_t ai;
    rt_dtype_t wdt, bdt;
    if (!anchor_info(r, &ai) || uses(f, o) != 1) continue;
    const rt_ir_type_t *vt = tensor_type(o);
    if (!per_channel(s, vt, ai.out_axis, relu != NULL)) continue;
    if (!const_expr(r->call.args[1], 0, &wdt) || !rt_dtype_equal(wdt, vt->tensor.dtype)) continue;
    if (bias && (!const_expr(bias, 0, &bdt) || !rt_dtype_equal(bdt, vt->tensor.dtype))) continue;
    if (add && rt_pass_is_op(add, RT_OP_NN_BIAS_ADD)) {
      int64_t axis = rt_ir_attrs_bias_add(add->call.attrs).axis;
      const int32_t R = vt->tensor.rank;
      const int32_t ca = ai.out_axis == -2 ? R - 1 : ai.out_axis;
      if (axis < 0) axis += R;
      if (axis != ca) continue;
    }
    rt_ir_expr_t *sk = NULL, *w = NULL, *n = NULL;
    RT_RETURN_IF_ERROR(reshape_along(f, s, ai.w_rank, ai.w_out_axis, &sk));
    RT_RETURN_IF_ERROR(binary(f, op, r->call.args[1], sk, &w));
    RT_RETURN_IF_ERROR(recall(f, r, r->call.args[0], w, &n));
    if (add && rt_pass_is_op(add, RT_OP_NN_BIAS_ADD)) {
      rt_ir_expr_t *sv = NULL, *b = NULL;
      RT_RETURN_IF_ERROR(reshape_along(f, s, 1, 0, &sv));
      RT_RETURN_IF_ERROR(binary(f, op, bias, sv, &b));
      RT_RETURN_IF_ERROR(recall(f, add, n, b, &n));
    } else if (add) {
      rt_ir_expr_t *b = NULL;
      RT_RETURN_IF_ERROR(binary(f, op, bias, s, &b));
      RT_RETURN_IF_ERROR(anchor_pos == 0 ? recall(f, add, n, b, &n) : recall(f, add, b, n, &n));
    }
    if (relu) {
      RT_RETURN_IF_ERROR(rt_ir_call(f->m, relu->span, relu->call.callee, 1, &n, relu->call.attrs,
                                    &n));
    }
    f->folded++;
    *out = n;
    return RT_OK;
  }
  return RT_OK;
}

/* per_channel for `st`, the type of a value computed at run time. */
static bool per_channel_type(const rt_ir_type_t *st, const rt_ir_type_t *vt, int32_t axis) {
  return st && per_channel_dims(st->tensor.dtype, st->tensor.rank, st->tensor.shape, vt, axis);
}

/* Elements of a tensor type with a static shape, or -1. */
static int64_t static_numel(const rt_ir_type_t *t) {
  if (!t) return -1;
  int64_t n = 1;
  for (int32_t j = 0; j < t->tensor.rank; ++j) {
    if (t->tensor.shape[j] == RT_DIM_ANY) return -1;
    n *= t->tensor.shape[j];
  }
  return n;
}

/* The scale of a conv2d's data computed at run time (EfficientNet's
 * squeeze-and-excitation gate, multiply(x, sigmoid(...)) before the
 * projection) folds into the weight where scaling the weight is at least
 * RUNTIME_SCALE_GAIN times less work than scaling the data: the product
 * is then a small kernel of its own, and the convolution reads x where it
 * lies instead of a scaled copy that a kernel wrote to memory first. */
#define RUNTIME_SCALE_GAIN 4

/* Forward: `rebuilt` is conv2d/dense whose data is scaled by a constant,
 * or (conv2d) by a per-channel value computed at run time, where cheaper
 * (RUNTIME_SCALE_GAIN). */
static rt_status_t fold_forward(fsa_t *f, rt_ir_expr_t *orig, rt_ir_expr_t *rebuilt,
                                rt_ir_expr_t **out) {
  anchor_t ai;
  if (!anchor_info(rebuilt, &ai) || ai.w_in_axis < 0) return RT_OK;
  rt_ir_expr_t *mul = rebuilt->call.args[0], *omul = orig->call.args[0];
  const bool div = rt_pass_is_op(mul, RT_OP_DIVIDE);
  if ((!div && !rt_pass_is_op(mul, RT_OP_MULTIPLY)) || uses(f, omul) != 1) return RT_OK;
  rt_dtype_t wdt;
  const bool wconst = const_expr(rebuilt->call.args[1], 0, &wdt);
  const rt_ir_type_t *wt = tensor_type(orig->call.args[1]);
  for (int32_t side = 1; side >= (div ? 1 : 0); --side) {
    rt_ir_expr_t *s = mul->call.args[side], *x = mul->call.args[1 - side];
    const rt_ir_type_t *xt = tensor_type(omul->call.args[1 - side]);
    if (!xt) continue;
    if (s->kind == RT_IR_CONSTANT) {
      if (!wconst || !per_channel(s, xt, ai.in_axis, false)) continue;
      if (!rt_dtype_equal(wdt, xt->tensor.dtype)) continue;
    } else {
      const int64_t wn = static_numel(wt), xn = static_numel(xt);
      if (!rt_pass_is_op(rebuilt, RT_OP_NN_CONV2D) || !wt || !rt_dtype_equal(wt->tensor.dtype, xt->tensor.dtype)) {
        continue;
      }
      if (wn < 0 || xn < 0 || wn * RUNTIME_SCALE_GAIN > xn) continue;
      if (!per_channel_type(tensor_type(omul->call.args[side]), xt, ai.in_axis)) continue;
    }
    /* The scale must not broadcast x to a larger shape. */
    const rt_ir_type_t *mt = tensor_type(omul);
    if (!mt || !rt_ir_type_equal(mt, xt)) continue;
    rt_ir_expr_t *sk = NULL, *w = NULL;
    RT_RETURN_IF_ERROR(reshape_along(f, s, ai.w_rank, ai.w_in_axis, &sk));
    RT_RETURN_IF_ERROR(binary(f, div ? RT_OP_DIVIDE : RT_OP_MULTIPLY, rebuilt->call.args[1], sk, &w));
    RT_RETURN_IF_ERROR(recall(f, rebuilt, x, w, out));
    f->folded++;
    return RT_OK;
  }
  return RT_OK;
}

static rt_status_t rewrite(void *user, rt_ir_expr_t *orig, rt_ir_expr_t *rebuilt,
                           rt_ir_expr_t **out) {
  fsa_t *f = user;
  *out = rebuilt;
  if (rebuilt->kind != RT_IR_CALL || rebuilt->call.nargs != 2) return RT_OK;
  RT_RETURN_IF_ERROR(fold_forward(f, orig, rebuilt, out));
  if (*out != rebuilt) return RT_OK;
  return fold_backward(f, orig, rebuilt, out);
}

rt_status_t rt_pass_fold_scale_axis(const rt_pass_env_t *env, rt_module_t *in,
                                    rt_module_t **out) {
  fsa_t f = {0};
  f.nid = in->next_id;
  rt_arena_t scratch;
  rt_arena_initialize(env->allocator, &scratch);
  rt_status_t st = rt_pass_count_uses(env->allocator, in, &scratch, &f.uses);
  rt_module_t *m = NULL;
  if (!st) st = rt_ir_module_derive(in, &m);
  f.m = m;
  for (int32_t i = 0; i < in->num_globals && !st; ++i) {
    rt_ir_expr_t *fn = NULL;
    st = rt_ir_mutate(m, in->globals[i].fn, rewrite, &f, &fn);
    if (!st && fn != in->globals[i].fn) st = rt_ir_module_add(m, in->globals[i].name, fn);
    if (st) st = rt_status_annotate(st, "FoldScaleAxis: in @%s", in->globals[i].name);
  }
  rt_arena_deinitialize(&scratch);
  if (st || f.folded == 0) {
    rt_module_release(m);
    if (st) return st;
    rt_module_retain(in);
    *out = in;
    return RT_OK;
  }
  *out = m;
  return RT_OK;
}
