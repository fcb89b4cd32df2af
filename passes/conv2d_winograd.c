/* Conv2dWinograd: rewrites the stride-1 3x3 convolutions whose weight is a
 * constant into Winograd form, as TVM's AlterOpLayout does for its x86 and
 * cuda winograd strategies:
 *   nn.conv2d(x, W, padding=P)  ->
 *   nn.contrib_conv2d_winograd_without_weight_transform(x,
 *       nn.contrib_conv2d_winograd_weight_transform(W, tile_size=m, pack=P),
 *       tile_size=m, padding=P, channels=O, kernel_size=[3, 3])
 * The FoldConstant after it computes the transformed weight, packed in
 * panels of P output channels (alpha, alpha, O/P, I, P; P = 16, or 32
 * for the 16-lane templates: winograd_panel), at build time,
 * so it is stored transformed and packed in the params (and in an
 * exported .so), and the kernels only transform the data and read each
 * weight panel as one contiguous run.
 *
 * Eligible: NCHW data and output, OIHW weight, all float32 with static
 * shapes, strides 1, dilation 1, groups 1, a 3x3 kernel, a weight with no
 * free variable (a constant, or ops over constants that FoldConstant
 * folds: the batch-norm scale FoldScaleAxis multiplied in). Which eligible
 * layers win is winograd_tile's measured rule below. One bottom-up
 * rt_ir_mutate walk per global; the module comes back unchanged (the same
 * reference) when nothing matched. */
#include <stdio.h>
#include <string.h>

#include "ir/op/op_attrs.h"
#include "ir/op/plan.h"
#include "passes/pass.h"

/* The panel width P of the packed transformed weight (alpha, alpha, O/P,
 * I, P) the pass stores for O output channels (a multiple of 16): the
 * template's tile as wide as the panels reads them in place
 * (jit/templates/winograd.c): two vectors, 6x16 on 8 lanes and 12x32 on
 * 16 (O a multiple of 32; else 12x16). On 16 lanes 32-wide panels against
 * 16 (and DensePack's likewise), 1 thread, medians of 20 runs alternated
 * twice on a Zen 5 host: resnet50 47.7 / 53.8 -> 43.8 / 49.4 ms,
 * densenet121 34.6 / 40.7 -> 32.2 / 32.4, efficientnet_b0 10.7 / 9.8 ->
 * 8.2 / 8.9, mobilenet_v2 5.7 / 6.6 -> 5.9 / 6.9 (its 1x1 layers of 144
 * and 240 channels then kept 16). */
static int32_t winograd_panel(int64_t o, int32_t lanes) {
  return lanes >= 16 && o % 32 == 0 ? 32 : 16;
}



/* The tile size m for a layer of C input and O output channels and an OH
 * x OW output, or 0 to keep the direct template, by the templates' lanes
 * (rt_pass_template_lanes): measured, not derived.
 *
 * 8 lanes (AVX2 tiles): `build-rel/bench/bench_kernels 5 o` (ResNet-18's
 * 3x3 layers, direct and both tile sizes in one process, one thread,
 * GFLOP/s counted in direct FLOPs; medians of 3 runs on the 2-core AVX2
 * host shared with other builds, the 1-core FMA peak reading 97-103
 * GFLOP/s):
 *   layer         direct  F(4x4)  F(2x2)
 *   64 @ 56x56     65.0   174.2   112.4
 *   128 @ 28x28    47.0   176.6   122.5
 *   256 @ 14x14    46.8   139.3   141.2
 *   512 @ 7x7      33.4    48.8    80.5
 * (the quietest run: direct 81.5 / 81.4 / 79.0 / 52.3, F(4x4) 193.2 /
 * 191.2 / 139.3, F(2x2) at 7x7 73.7). F(4x4) does 4x fewer multiply-adds
 * than direct but streams 36 C O transformed weights per image (38 MB at
 * 512 channels: at 7x7, with 4 tiles to share them, it is memory-bound);
 * F(2x2) does 2.25x fewer on 16 C O. So F(4x4) down to 14x14 (a tie with
 * F(2x2) there), F(2x2) below that down to 6x6, direct under it.
 *
 * 16 lanes (AVX-512 tiles, a Zen 5 host, 1-core FMA peak 224 GFLOP/s):
 * the direct template is twice as fast and the transformed weights no
 * faster to stream, so Winograd wins only where its weights are shared by
 * many tiles or are small. Whole models, 1 thread, medians of 20 runs,
 * the 8-lane rule against this one: resnet18 18.5-19.1 -> 15.2-15.7 ms,
 * resnet50 47.8 -> 45.4-45.8, densenet121 34.2-35.3 -> 32.5-33.0,
 * squeezenet1_1 3.98-4.27 -> 3.89-4.20; F(2x2) from 14x14 down and
 * direct at 7x7 made squeezenet's 13x13 layers slower (4.40-4.68 ms), and
 * F(4x4) kept at 14x14 resnet18 (17.0-17.2 ms). In the bench, 512 @ 7x7:
 * direct 165, F(4x4) 78, F(2x2) 180 GFLOP/s with the weights in cache,
 * while in resnet50 its F(2x2) kernels ran at 104-110, streaming their
 * 16.8 MB of transformed weight from memory; that rule kept F(2x2) below
 * 13x13 for small weights only (C O <= 16384). Since the template
 * prefetches each next weight panel and its 2-thread split counts the
 * streaming (jit/templates/winograd.c), F(2x2) wins at 7x7 at any C O:
 * 1 thread, medians of 4 rounds in ABBA order, resnet18 12.40-12.54 ->
 * 11.32-11.46 ms, resnet50 36.50-37.08 -> 35.31-36.20; 2 threads
 * resnet18 7.31-7.44 -> 6.76-6.87, resnet50 21.30-21.61 -> 20.55-21.28
 * (3 rounds). So: F(4x4) with at least 49 tiles of 4x4 (28x28 and up),
 * F(2x2) with at least 49 of 2x2 (13x13 and up) or an image down to
 * 6x6, else direct. */
static int32_t winograd_tile(int64_t c, int64_t o, int64_t oh, int64_t ow, int32_t lanes) {
  /* The template's GEMM columns are output channels in whole vectors of
   * the 16-lane target too; its input transform reads channels in
   * vectors of 8 (other counts are padded, but no model layer needs it). */
  if (o % 16 != 0 || c % 8 != 0) return 0;
  const int64_t side = oh < ow ? oh : ow;
  if (lanes < 16) {
    if (side >= 14) return 4;
    if (side >= 6) return 2;
    return 0;
  }
  const int64_t tiles4 = ((oh + 3) / 4) * ((ow + 3) / 4), tiles2 = ((oh + 1) / 2) * ((ow + 1) / 2);
  if (tiles4 >= 49) return 4;
  if (tiles2 >= 49) return 2;
  return side >= 6 ? 2 : 0;
}

/* The tile size for a planned NCHW convolution, or 0 where the pass
 * leaves it (not a stride-1 3x3 of groups 1, or winograd_tile's rule). */
static int32_t winograd_tile_of(const rt_plan_conv_t *p, int32_t lanes) {
  if (p->groups != 1 || p->strides[0] != 1 || p->strides[1] != 1 || p->dilation[0] != 1 ||
      p->dilation[1] != 1 || p->kernel_size[0] != 3 || p->kernel_size[1] != 3) {
    return 0;
  }
  return winograd_tile(p->in_channels, p->out_channels, p->out_size[0], p->out_size[1], lanes);
}

bool rt_pass_winograd_takes(const rt_plan_conv_t *p, int32_t lanes) { return winograd_tile_of(p, lanes) != 0; }

static bool static_f32(const rt_ir_expr_t *e, int32_t rank, const int64_t **shape) {
  const rt_ir_type_t *t = e->checked_type ? rt_ir_type_resolve(e->checked_type) : NULL;
  if (!t || t->kind != RT_IR_TYPE_TENSOR || t->tensor.rank != rank) return false;
  if (!rt_dtype_equal(t->tensor.dtype, RT_DTYPE_FLOAT32)) return false;
  for (int32_t k = 0; k < rank; ++k) {
    if (t->tensor.shape[k] == RT_DIM_ANY) return false;
  }
  *shape = t->tensor.shape;
  return true;
}

typedef struct wg_ctx {
  rt_pass_rewrite_t base; /* first: rt_pass_rewrite_globals's state */
  int32_t lanes;          /* rt_pass_template_lanes */
} wg_ctx;

static rt_status_t rewrite(void *user, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  wg_ctx *cx = user;
  *out = e;
  if (!rt_pass_is_op(e, RT_OP_NN_CONV2D) || e->call.nargs != 2) return RT_OK;
  const int64_t *xs, *ws, *ys;
  if (!static_f32(orig->call.args[0], 4, &xs) || !static_f32(orig->call.args[1], 4, &ws) ||
      !static_f32(orig, 4, &ys) || !rt_pass_is_constant_expr(e->call.args[1])) {
    return RT_OK;
  }
  rt_plan_input_t in[2] = {{RT_DTYPE_FLOAT32, 4, xs, NULL}, {RT_DTYPE_FLOAT32, 4, ws, NULL}};
  rt_plan_conv_t p;
  if (!rt_pass_plan_conv_nchw(e, in, &p)) return RT_OK;
  if (ws[2] != 3 || ws[3] != 3) return RT_OK;
  const int32_t m = winograd_tile_of(&p, cx->lanes);
  if (!m) return RT_OK;
  char tile[16], pad[96], chans[24];
  snprintf(tile, sizeof tile, "%d", (int)m);
  snprintf(pad, sizeof pad, "[%lld, %lld, %lld, %lld]", (long long)p.pad_before[0],
           (long long)p.pad_before[1], (long long)p.pad_after[0], (long long)p.pad_after[1]);
  snprintf(chans, sizeof chans, "%lld", (long long)p.out_channels);
  /* The transform reads W (O, I, 3, 3) as it is and writes the packed
   * (alpha, alpha, O/P, I, P) directly: FoldConstant allocates and
   * writes only the transformed size (an earlier form transposed W first,
   * one more copy of every 3x3 weight). */
  char pk[16];
  snprintf(pk, sizeof pk, "%d", (int)winograd_panel(p.out_channels, cx->lanes));
  rt_ir_expr_t *w = e->call.args[1];
  const char *tk[2] = {"tile_size", "pack"}, *tv[2] = {tile, pk};
  RT_RETURN_IF_ERROR(rt_pass_make_call(cx->base.m, e->span, RT_OP_NN_WINOGRAD_WEIGHT_TRANSFORM, 1, &w, 2,
                                       tk, tv, &w));
  rt_ir_expr_t *args[2] = {e->call.args[0], w};
  const char *keys[4] = {"tile_size", "padding", "channels", "kernel_size"};
  const char *vals[4] = {tile, pad, chans, "[3, 3]"};
  RT_RETURN_IF_ERROR(rt_pass_make_call(cx->base.m, e->span, RT_OP_NN_WINOGRAD_CONV2D, 2, args, 4, keys,
                                       vals, out));
  (*out)->binding = e->binding;
  cx->base.changed = true;
  return RT_OK;
}

rt_status_t rt_pass_conv2d_winograd(const rt_pass_env_t *env, rt_module_t *in, rt_module_t **out) {
  wg_ctx cx = {.lanes = rt_pass_template_lanes(env ? env->ctx : NULL)};
  return rt_pass_rewrite_globals(in, rewrite, &cx.base, out);
}
