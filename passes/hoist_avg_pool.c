/* HoistAvgPool (opt_level 3, after CanonicalizeOps, before the layout
 * passes): an average pool of a 1x1 convolution's output pools the
 * convolution's input instead, so the convolution runs on the smaller,
 * pooled image:
 *
 *   nn.avg_pool2d(nn.conv2d(%x, %w))         -> nn.conv2d(nn.avg_pool2d(%x), %w)
 *   nn.avg_pool2d(add(nn.conv2d(%x, %w), %b)) -> add(nn.conv2d(nn.avg_pool2d(%x), %w), %b)
 *
 * A 1x1 convolution at stride 1 is one linear map applied to every pixel
 * and an average pool without padding a mean of pixels, so the two
 * commute, and a %b constant over the pixels (its H and W extents 1, as a
 * bias's) passes through a mean unchanged. The results are equal up to
 * rounding (the sums are reassociated). DenseNet's transition layers
 * (batch norm, ReLU, a 1x1 convolution halving the channels, a 2x2 / 2
 * average pool) then do a quarter of their multiply-adds: DenseNet-121's
 * three transitions, 205 MFLOP each, were 9-10% of its run.
 *
 * It rewrites when all of:
 *   - the pool is nn.avg_pool2d over NCHW float32 data with static shapes,
 *     no padding, unit dilation, ceil_mode false, and fewer output pixels
 *     than input pixels;
 *   - its data is the 1x1 nn.conv2d (stride 1, no padding, NCHW data and
 *     output, OIHW kernel, no out_dtype; any groups), or an add of that
 *     conv and an operand whose H and W extents are 1 that leaves the
 *     conv's type unchanged (either argument order);
 *   - the conv has at least a quarter as many output channels as input
 *     channels (else pooling its input first moves more memory than the
 *     smaller convolution saves: a 4x4 pool of a 256 -> 8 conv);
 *   - the conv (and the add) have no other reader.
 * Anything else is left as it is. */
#include "ir/op/op_attrs.h"
#include "ir/op/plan.h"
#include "passes/pass.h"

typedef struct {
  rt_pass_rewrite_t rw; /* first: rt_pass_rewrite_globals' state */
  const int32_t *uses;  /* by input node id */
  uint32_t nid;
} hap_t;

static int32_t uses(const hap_t *h, const rt_ir_expr_t *orig) {
  return orig->id < h->nid ? h->uses[orig->id] : 0;
}

/* e's static float32 tensor type, or NULL. */
static const rt_ir_type_t *f32_static(const rt_ir_expr_t *e) {
  const rt_ir_type_t *t = e->checked_type ? rt_ir_type_resolve(e->checked_type) : NULL;
  if (!t || t->kind != RT_IR_TYPE_TENSOR || !rt_dtype_equal(t->tensor.dtype, RT_DTYPE_FLOAT32)) return NULL;
  for (int32_t i = 0; i < t->tensor.rank; ++i) {
    if (t->tensor.shape[i] < 0) return NULL;
  }
  return t;
}

static bool plan_input(const rt_ir_expr_t *e, rt_plan_input_t *in) {
  const rt_ir_type_t *t = f32_static(e);
  if (!t) return false;
  *in = (rt_plan_input_t){.dtype = t->tensor.dtype, .rank = t->tensor.rank, .shape = t->tensor.shape, .value = NULL};
  return true;
}

/* The pool's conditions (orig: the input's pool call). */
static bool pool_ok(const rt_ir_expr_t *pool) {
  rt_plan_input_t in;
  if (!plan_input(pool->call.args[0], &in) || in.rank != 4) return false;
  rt_plan_pool_t p;
  rt_status_t bad = rt_ir_plan_pool(pool->call.callee->op.op, pool->call.attrs, 1, &in, &p);
  if (bad) {
    rt_status_free(bad);
    return false;
  }
  if (p.kind != RT_PLAN_POOL_WINDOW || p.is_max || p.nsp != 2 || p.block || p.ceil_mode) return false;
  for (int32_t k = 0; k < 4; ++k) {
    if (p.pos[k] != k) return false;
  }
  for (int32_t k = 0; k < 2; ++k) {
    if (p.pad_before[k] || p.pad_after[k] || p.dilation[k] != 1) return false;
  }
  return p.out_size[0] * p.out_size[1] < p.in_size[0] * p.in_size[1];
}

/* The conv's conditions (orig: the input's conv call). */
static bool conv_ok(const rt_ir_expr_t *conv) {
  if (!rt_pass_is_op(conv, RT_OP_NN_CONV2D) || !rt_ir_attrs_conv2d(conv->call.attrs).out_dtype_is_none) {
    return false;
  }
  rt_plan_input_t in[2];
  if (!plan_input(conv->call.args[0], &in[0]) || !plan_input(conv->call.args[1], &in[1])) return false;
  if (in[0].rank != 4 || in[1].rank != 4) return false;
  rt_plan_conv_t p;
  if (!rt_pass_plan_conv_nchw(conv, in, &p) || p.nsp != 2 || p.transpose) return false;
  for (int32_t k = 0; k < 2; ++k) {
    if (p.kernel_size[k] != 1 || p.strides[k] != 1 || p.pad_before[k] || p.pad_after[k]) return false;
  }
  /* Pooled first, the pool reads the conv's input instead of its output:
   * no more memory traffic in all while the conv has at least a quarter as
   * many output channels as input channels. */
  return 4 * p.out_channels >= p.in_channels;
}

/* An operand of add(conv, b) that is constant over the pixels: its
 * extents aligned (numpy broadcasting) with the conv output's H and W
 * are 1, and the add's type is the conv's. */
static bool per_pixel_constant(const rt_ir_expr_t *add, const rt_ir_expr_t *conv, const rt_ir_expr_t *b) {
  const rt_ir_type_t *tb = b->checked_type ? rt_ir_type_resolve(b->checked_type) : NULL;
  const rt_ir_type_t *ta = f32_static(add), *tc = f32_static(conv);
  if (!tb || tb->kind != RT_IR_TYPE_TENSOR || !ta || !tc || tb->tensor.rank > 4) return false;
  if (!rt_ir_type_equal(ta, tc)) return false;
  for (int32_t j = 0; j < tb->tensor.rank; ++j) {
    const int32_t k = j + 4 - tb->tensor.rank;
    if (k >= 2 && tb->tensor.shape[j] != 1) return false;
  }
  return true;
}

static rt_status_t rewrite(void *user, rt_ir_expr_t *orig, rt_ir_expr_t *rebuilt, rt_ir_expr_t **out) {
  hap_t *h = user;
  *out = rebuilt;
  if (!rt_pass_is_op(orig, RT_OP_NN_AVG_POOL2D) || !pool_ok(orig)) return RT_OK;
  const rt_ir_expr_t *data = orig->call.args[0];
  rt_ir_expr_t *rdata = rebuilt->call.args[0];
  int32_t ci = -1; /* the conv's position in the add, or -1: no add */
  const rt_ir_expr_t *conv = data;
  if (rt_pass_is_op(data, RT_OP_ADD)) {
    if (uses(h, data) != 1) return RT_OK;
    for (int32_t i = 0; i < 2 && ci < 0; ++i) {
      if (conv_ok(data->call.args[i]) && per_pixel_constant(data, data->call.args[i], data->call.args[1 - i])) ci = i;
    }
    if (ci < 0) return RT_OK;
    conv = data->call.args[ci];
  } else if (!conv_ok(conv)) {
    return RT_OK;
  }
  if (uses(h, conv) != 1) return RT_OK;
  /* The rebuilt counterparts (the walk is bottom-up: same shape). */
  rt_ir_expr_t *rconv = ci < 0 ? rdata : rdata->call.args[ci];
  rt_ir_expr_t *pooled = NULL, *conv2 = NULL;
  RT_RETURN_IF_ERROR(rt_pass_remake_call(h->rw.m, orig, RT_OP_NN_AVG_POOL2D, 1, &rconv->call.args[0], 0, NULL,
                                         NULL, &pooled));
  rt_ir_expr_t *cargs[2] = {pooled, rconv->call.args[1]};
  RT_RETURN_IF_ERROR(rt_pass_remake_call(h->rw.m, conv, RT_OP_NN_CONV2D, 2, cargs, 0, NULL, NULL, &conv2));
  if (ci < 0) {
    *out = conv2;
  } else {
    rt_ir_expr_t *aargs[2];
    aargs[ci] = conv2;
    aargs[1 - ci] = rdata->call.args[1 - ci];
    RT_RETURN_IF_ERROR(rt_pass_remake_call(h->rw.m, data, RT_OP_ADD, 2, aargs, 0, NULL, NULL, out));
  }
  (*out)->binding = rebuilt->binding;
  h->rw.changed = true;
  return RT_OK;
}

rt_status_t rt_pass_hoist_avg_pool(const rt_pass_env_t *env, rt_module_t *in, rt_module_t **out) {
  rt_arena_t scratch;
  rt_arena_initialize(env->allocator, &scratch);
  hap_t h = {.nid = in->next_id};
  int32_t *counts = NULL;
  rt_status_t st = rt_pass_count_uses(env->allocator, in, &scratch, &counts);
  h.uses = counts;
  if (!st) st = rt_pass_rewrite_globals(in, rewrite, &h.rw, out);
  rt_arena_deinitialize(&scratch);
  return st ? rt_status_annotate(st, "%s", "HoistAvgPool") : RT_OK;
}
