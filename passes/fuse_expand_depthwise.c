/* FuseExpandDepthwise (opt_level 3, after FuseOps): merges the fused group
 * of a 1x1 convolution (an inverted residual block's "expand": MobileNet,
 * EfficientNet) into the fused group of the depthwise convolution that is
 * its only consumer, so that one kernel computes both and the expanded
 * activation (the largest tensor of such a block: 96 x 112 x 112 floats in
 * MobileNet-v2) is never written to memory and read back.
 *
 *   %1 = fn (%p0, %p1, %p2, Primitive=1) { clip(add(nn.conv2d(%p0, %p1), %p2)) }
 *   %2 = %1(%x, %w1, %b1)
 *   %3 = fn (%q0, %q1, %q2, Primitive=1) { clip(add(nn.conv2d(%q0, %q1, groups=C), %q2)) }
 *   %3(%2, %w2, %b2)
 * becomes
 *   %4 = fn (%p0, %p1, %p2, %q1, %q2, Primitive=1) {
 *          clip(add(nn.conv2d(clip(add(nn.conv2d(%p0, %p1), %p2)), %q1, groups=C), %q2)) }
 *   %4(%x, %w1, %b1, %w2, %b2)
 *
 * The depthwise template (jit/templates/conv2d.c, conv2d.depthwise) fills
 * each channel's phase images from the expand's vector GEMM instead of a
 * copy of its input (every other template and the generic loop nests
 * evaluate the merged body as written). When it merges, all of:
 *   - the consumer group's output comes from a depthwise nn.conv2d
 *     (groups = input = output channels, NCHW / OIHW, float32, static
 *     shapes, stride at most 2, no dilation, at most 64 taps) through
 *     elementwise or broadcast ops of its shape, and that conv's data is
 *     the group's parameter, used once;
 *   - that argument is a call of the producer group, used once, whose
 *     output comes from a 1x1 nn.conv2d (stride 1, no padding, groups 1,
 *     NCHW / OIHW, float32, no out_dtype) on one of its parameters through
 *     the tail ops the templates' vector epilogue applies to a whole
 *     vector of pixels: add, subtract, multiply, divide, maximum, minimum,
 *     negative, nn.relu, clip, sigmoid, nn.bias_add, every other operand a
 *     parameter or constant that is one element or varies only along the
 *     channels;
 *   - the expanded image has at least kMinPixels pixels: smaller ones stay
 *     in L2 between the two kernels anyway (measured: docs/executors.md).
 * The merged function takes the producer's parameters, then the
 * consumer's without the one it replaced, in that order; its call the
 * matching arguments. */
#include <string.h>

#include "ir/op/plan.h"
#include "passes/pass.h"

/* Expanded images of fewer pixels stay separate kernels (56 x 56). */
enum { kMinPixels = 56 * 56, kMaxDepth = 16, kMaxTaps = 64 };

typedef struct {
  rt_pass_rewrite_t rw; /* first: rt_pass_rewrite_globals' state */
  const int32_t *uses;  /* by input node id */
  uint32_t nid;
  rt_arena_t *scratch;  /* the pass's temporaries */
} fed_t;

static int32_t uses(const fed_t *f, const rt_ir_expr_t *orig) {
  return orig->id < f->nid ? f->uses[orig->id] : 0;
}

static const rt_ir_op_t *op_of(const rt_ir_expr_t *e) {
  if (e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP) return NULL;
  return e->call.callee->op.op;
}

/* A static float32 tensor type of rank 4: its shape. */
static const int64_t *f32_shape4(const rt_ir_expr_t *e) {
  const rt_ir_type_t *t = e->checked_type ? rt_ir_type_resolve(e->checked_type) : NULL;
  if (!t || t->kind != RT_IR_TYPE_TENSOR || t->tensor.rank != 4) return NULL;
  if (!rt_dtype_equal(t->tensor.dtype, RT_DTYPE_FLOAT32)) return NULL;
  for (int32_t k = 0; k < 4; ++k) {
    if (t->tensor.shape[k] == RT_DIM_ANY) return NULL;
  }
  return t->tensor.shape;
}

/* conv2d call e planned as plain NCHW / OIHW float32, no out_dtype. */
static bool conv_plan(const rt_ir_expr_t *e, rt_plan_conv_t *p) {
  rt_plan_input_t in[2];
  for (int32_t i = 0; i < 2; ++i) {
    const int64_t *s = f32_shape4(e->call.args[i]);
    if (!s) return false;
    in[i] = (rt_plan_input_t){.dtype = RT_DTYPE_FLOAT32, .rank = 4, .shape = s, .value = NULL};
  }
  if (!rt_ir_attrs_conv2d(e->call.attrs).out_dtype_is_none) return false;
  return rt_pass_plan_conv_nchw(e, in, p) && p->nsp == 2;
}

static bool is_param_of(const rt_ir_expr_t *fn, const rt_ir_expr_t *v) {
  for (int32_t i = 0; i < fn->fn.nparams; ++i) {
    if (fn->fn.params[i] == v) return true;
  }
  return false;
}

static bool contains(const rt_ir_expr_t *e, const rt_ir_expr_t *anchor, int32_t depth) {
  if (e == anchor) return true;
  if (depth > kMaxDepth || !op_of(e)) return false;
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    if (contains(e->call.args[i], anchor, depth + 1)) return true;
  }
  return false;
}

/* An operand the vector epilogue splats over a vector of pixels: a
 * parameter or constant of float32 with one element or varying only
 * along the channels (dim 1 of `shape`, numpy broadcasting). */
static bool per_channel_leaf(const rt_ir_expr_t *fn, const rt_ir_expr_t *e, const int64_t *shape) {
  if (e->kind != RT_IR_CONSTANT && !(e->kind == RT_IR_VAR && is_param_of(fn, e))) return false;
  const rt_ir_type_t *t = e->checked_type ? rt_ir_type_resolve(e->checked_type) : NULL;
  if (!t || t->kind != RT_IR_TYPE_TENSOR || t->tensor.rank > 4) return false;
  if (!rt_dtype_equal(t->tensor.dtype, RT_DTYPE_FLOAT32)) return false;
  const int32_t r = t->tensor.rank;
  for (int32_t j = 0; j < r; ++j) {
    const int32_t k = j + 4 - r;
    const int64_t d = t->tensor.shape[j];
    if (d != 1 && !(k == 1 && d == shape[1])) return false;
  }
  return true;
}

/* e (which holds the anchor) is a tree of the vector epilogue's tail ops
 * over the anchor and per-channel leaves, every node of `shape`. */
static bool uniform_tail(const rt_ir_expr_t *fn, const rt_ir_expr_t *e, const rt_ir_expr_t *anchor,
                         const int64_t *shape, int32_t depth) {
  if (e == anchor) return true;
  const rt_ir_op_t *op = op_of(e);
  const int64_t *s = op ? f32_shape4(e) : NULL;
  if (!s || depth > kMaxDepth || memcmp(s, shape, 4 * sizeof *s) != 0) return false;
  switch (op->id) {
    case RT_OP_ADD:
    case RT_OP_SUBTRACT:
    case RT_OP_MULTIPLY:
    case RT_OP_DIVIDE:
    case RT_OP_MAXIMUM:
    case RT_OP_MINIMUM:
    case RT_OP_NEGATIVE:
    case RT_OP_NN_RELU:
    case RT_OP_CLIP:
    case RT_OP_SIGMOID:
      break;
    case RT_OP_NN_BIAS_ADD: {
      int64_t axis = rt_ir_attrs_bias_add(e->call.attrs).axis;
      if (axis != 1 && axis != -3) return false;
      break;
    }
    default:
      return false;
  }
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    const rt_ir_expr_t *a = e->call.args[i];
    const bool ok = contains(a, anchor, depth + 1) ? uniform_tail(fn, a, anchor, shape, depth + 1)
                                                   : per_channel_leaf(fn, a, shape);
    if (!ok) return false;
  }
  return true;
}

/* The consumer: fn's output from a depthwise conv whose data is fn's
 * parameter, used once; its index among fn's params, or -1. */
static int32_t depthwise_param(const fed_t *f, const rt_ir_expr_t *fn) {
  const int64_t *out = f32_shape4(fn->fn.body);
  const rt_ir_expr_t *a = out ? rt_ir_anchor_of(fn->fn.body, RT_OP_NN_CONV2D) : NULL;
  rt_plan_conv_t p;
  if (!a || !conv_plan(a, &p)) return -1;
  if (p.groups != p.in_channels || p.kernel_o != p.in_channels || p.kernel_i != 1) return -1;
  if (p.kernel_size[0] * p.kernel_size[1] > kMaxTaps) return -1;
  for (int32_t k = 0; k < 2; ++k) {
    if (p.strides[k] > 2 || p.dilation[k] != 1) return -1;
  }
  const rt_ir_expr_t *x = a->call.args[0];
  if (x->kind != RT_IR_VAR || uses(f, x) != 1) return -1;
  for (int32_t i = 0; i < fn->fn.nparams; ++i) {
    if (fn->fn.params[i] == x) return i;
  }
  return -1;
}

/* The producer: fn's output from a 1x1 conv (stride 1, unpadded, groups
 * 1) on one of its params through vector-epilogue tail ops. */
static bool expand_group(const rt_ir_expr_t *fn) {
  const int64_t *out = f32_shape4(fn->fn.body);
  const rt_ir_expr_t *a = out ? rt_ir_anchor_of(fn->fn.body, RT_OP_NN_CONV2D) : NULL;
  rt_plan_conv_t p;
  if (!a || !conv_plan(a, &p) || p.groups != 1) return false;
  if (p.kernel_size[0] != 1 || p.kernel_size[1] != 1) return false;
  for (int32_t k = 0; k < 2; ++k) {
    if (p.strides[k] != 1 || p.pad_before[k] != 0 || p.pad_after[k] != 0) return false;
  }
  if (out[2] * out[3] < kMinPixels) return false;
  const rt_ir_expr_t *x = a->call.args[0];
  if (x->kind != RT_IR_VAR || !is_param_of(fn, x)) return false;
  return uniform_tail(fn, fn->fn.body, a, out, 0);
}

static rt_status_t rewrite(void *user, rt_ir_expr_t *orig, rt_ir_expr_t *rebuilt, rt_ir_expr_t **out) {
  fed_t *f = user;
  *out = rebuilt;
  if (rebuilt->kind != RT_IR_CALL || !rt_ir_is_primitive(rebuilt->call.callee)) return RT_OK;
  rt_ir_expr_t *dw = rebuilt->call.callee;
  const int32_t k = depthwise_param(f, orig->call.callee);
  if (k < 0 || k >= rebuilt->call.nargs || uses(f, orig->call.args[k]) != 1) return RT_OK;
  rt_ir_expr_t *ex_call = rebuilt->call.args[k];
  if (ex_call->kind != RT_IR_CALL || !rt_ir_is_primitive(ex_call->call.callee)) return RT_OK;
  rt_ir_expr_t *ex = ex_call->call.callee;
  if (!expand_group(ex)) return RT_OK;
  /* The consumer's body with its parameter k replaced by the producer's
   * body; params and args: the producer's, then the consumer's but k. */
  const int32_t np = ex->fn.nparams + dw->fn.nparams - 1;
  rt_ir_expr_t **params = NULL, **args = NULL, *body = NULL, *fn = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(f->scratch, np, sizeof *params, (void **)&params));
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(f->scratch, np, sizeof *args, (void **)&args));
  int32_t n = 0;
  for (int32_t i = 0; i < ex->fn.nparams; ++i, ++n) {
    params[n] = ex->fn.params[i];
    args[n] = ex_call->call.args[i];
  }
  for (int32_t i = 0; i < dw->fn.nparams; ++i) {
    if (i == k) continue;
    params[n] = dw->fn.params[i];
    args[n] = rebuilt->call.args[i];
    ++n;
  }
  rt_ir_expr_t *from = dw->fn.params[k], *to = ex->fn.body;
  RT_RETURN_IF_ERROR(rt_ir_substitute(f->rw.m, dw->fn.body, 1, &from, &to, &body));
  RT_RETURN_IF_ERROR(rt_ir_function(f->rw.m, dw->span, np, params, body, dw->fn.ret_type, dw->fn.attrs, &fn));
  RT_RETURN_IF_ERROR(rt_ir_call(f->rw.m, rebuilt->span, fn, np, args, rebuilt->call.attrs, out));
  f->rw.changed = true;
  return RT_OK;
}

rt_status_t rt_pass_fuse_expand_depthwise(const rt_pass_env_t *env, rt_module_t *in, rt_module_t **out) {
  rt_arena_t scratch;
  rt_arena_initialize(env->allocator, &scratch);
  fed_t f = {.nid = in->next_id, .scratch = &scratch};
  int32_t *counts = NULL;
  rt_status_t st = rt_pass_count_uses(env->allocator, in, &scratch, &counts);
  f.uses = counts;
  if (!st) st = rt_pass_rewrite_globals(in, rewrite, &f.rw, out);
  rt_arena_deinitialize(&scratch);
  return st ? rt_status_annotate(st, "%s", "FuseExpandDepthwise") : RT_OK;
}
