/* DensePack: rewrites the dense products whose weight is a constant 2-d
 * matrix into nn.contrib_dense_pack with the weight prepacked in the panel
 * layout the GEMM template reads (jit/templates/dense.c), as TVM's
 * AlterOpLayout does for its x86 dense_pack strategy and ORT its
 * pre-packing, and the convolutions that run as the swapped GEMM
 * (conv2d.im2colT: 1x1 ones, and k x k ones of small images;
 * rt_ir_conv_gemm_swapped) into nn.conv2d with the same panels as an
 * OIHW16o kernel (rewrite_conv below). Dense products:
 *   nn.dense(x, W)                      W (N, K)
 *   nn.matmul(x, W, transpose_b=True)   W (N, K)
 *   nn.matmul(x, W)                     W (K, N): transpose(W) first
 *   nn.batch_matmul(x, W)               W (1, N, K) (transpose_b) or
 *                                       (1, K, N): reshaped to 2-d first
 *   ->  nn.contrib_dense_pack(x, P(W'), units=N)
 * where W' is the (N, K) weight and P(W') = transpose(reshape(nn.pad(W',
 * [[0, NP * 16 - N], [0, 0]]), [NP, 16, K]), [0, 2, 1]): (NP, K, 16),
 * NP = ceil(N / 16), W'[n, k] at [n / 16, k, n % 16], zero past N (no pad
 * when 16 divides N). The FoldConstant after it computes P(W') at build
 * time, so the weight is stored packed in the params (and in an exported
 * .so, and in the fold cache) and the template packs nothing at run time.
 *
 * The panel width (16 above) is two vectors of the templates' lanes
 * (rt_pass_template_lanes): 16 for the 8-lane templates (their best tile
 * for these shapes, 6x16), 32 for the 16-lane ones (12x32; a 1x1
 * convolution whose O is no multiple of 32 takes 16, one vector, 12x16);
 * the template's planner matches its tile to the weight's panel width
 * (templates.c). Fewer than 128 columns take 16 (panel_for). On a Zen 5
 * host 32 against 16 made resnet50, densenet121 and efficientnet_b0 5-10%
 * faster (the figures on passes/conv2d_winograd.c's winograd_panel,
 * measured with both).
 *
 * Eligible: float32 data, weight and output with static shapes, no
 * transpose of the data, a weight with no free variable (a constant, or
 * ops over constants that FoldConstant folds), data of rank >= 1 (dense)
 * or >= 2 (matmul) or 3 (batch_matmul, whose 1-batch weight broadcasts:
 * the product is dense's over the data's flattened rows), at least 3 such
 * rows (fewer stay with the dot products: below). A weight shared
 * by several products is packed once (one chain, one folded constant).
 * One bottom-up
 * rt_ir_mutate walk per global; the module comes back unchanged (the same
 * reference) when nothing matched. */
#include <stdio.h>
#include <string.h>

#include "ir/op/op_attrs.h"
#include "ir/op/plan.h"
#include "passes/pass.h"
#include "runtime/mem.h"


static bool static_f32(const rt_ir_expr_t *e, int32_t *rank, const int64_t **shape) {
  const rt_ir_type_t *t = e->checked_type ? rt_ir_type_resolve(e->checked_type) : NULL;
  if (!t || t->kind != RT_IR_TYPE_TENSOR) return false;
  if (!rt_dtype_equal(t->tensor.dtype, RT_DTYPE_FLOAT32)) return false;
  for (int32_t k = 0; k < t->tensor.rank; ++k) {
    if (t->tensor.shape[k] == RT_DIM_ANY || t->tensor.shape[k] < 1) return false;
  }
  *rank = t->tensor.rank;
  *shape = t->tensor.shape;
  return true;
}

/* The packed weights made so far, by the weight expression they pack: a
 * weight shared by several products (the layers of a TransformerEncoder
 * exported from copies of one layer share their initializers) gets one
 * packing chain, so FoldConstant stores it once. */
#define MAX_SHARED 64
typedef struct dp_ctx {
  rt_pass_rewrite_t base; /* first: rt_pass_rewrite_globals's state */
  rt_module_t *m;         /* the module the entries were made in */
  int32_t lanes;          /* the templates' lanes (rt_pass_template_lanes) */
  int32_t panel;          /* the packed weights' panel width (see above) */
  int32_t n;
  struct {
    const rt_ir_expr_t *w;
    int32_t kind; /* KIND_*: what the chain packs it for */
    rt_ir_expr_t *packed;
  } seen[MAX_SHARED];
} dp_ctx;

/* nn.contrib_dense_pack(x, packed, units=n) in place of e. */
static rt_status_t make_product(rt_pass_rewrite_t *cx, rt_ir_expr_t *e, rt_ir_expr_t *packed, int64_t n,
                                rt_ir_expr_t **out) {
  rt_ir_expr_t *args[2] = {e->call.args[0], packed};
  char units[32];
  snprintf(units, sizeof units, "%lld", (long long)n);
  const char *keys[1] = {"units"}, *vals[1] = {units};
  RT_RETURN_IF_ERROR(rt_pass_make_call(cx->m, e->span, RT_OP_NN_DENSE_PACK, 2, args, 1, keys, vals, out));
  (*out)->binding = e->binding;
  cx->changed = true;
  return RT_OK;
}

/* The packing chain already made for weight w (of kind `kind`), or NULL;
 * the entries are forgotten when the walk moves to another module. */
static rt_ir_expr_t *seen_packed(dp_ctx *dp, const rt_ir_expr_t *w, int32_t kind) {
  if (dp->m != dp->base.m) {
    dp->m = dp->base.m;
    dp->n = 0;
  }
  for (int32_t i = 0; i < dp->n; ++i) {
    if (dp->seen[i].w == w && dp->seen[i].kind == kind) return dp->seen[i].packed;
  }
  return NULL;
}

static void remember(dp_ctx *dp, const rt_ir_expr_t *w, int32_t kind, rt_ir_expr_t *packed) {
  if (dp->n == MAX_SHARED) return;
  dp->seen[dp->n].w = w;
  dp->seen[dp->n].kind = kind;
  dp->seen[dp->n++].packed = packed;
}

/* The panel width for a weight of n output columns: dp->panel (two
 * vectors) from 128 columns on, where n divides by it or (`pad`, dense)
 * may be padded to it; else 16. On 16 lanes 32-wide panels of fewer
 * columns were slower: squeezenet1_1's 512->64 1x1 at 13x13 ran at 0.25
 * of the peak with them against 0.5 with 16 (`--profile`, Zen 5). */
static int32_t panel_for(const dp_ctx *dp, int64_t n, bool pad) {
  if (n < 128 || (!pad && n % dp->panel != 0)) return 16;
  return dp->panel;
}

/* ---- convolutions -----------------------------------------------------------
 * nn.conv2d(x, W) with W (O, C, KH, KW) constant, groups 1, O a multiple
 * of 16, NCHW/OIHW/NCHW float32 with static shapes, of the shapes the
 * templates run as the swapped GEMM (rt_ir_conv_gemm_swapped, ir/op/
 * plan_nn.h: output channels are its columns, so W^T is its B), becomes
 *   nn.conv2d(x, Q(W), kernel_layout="OIHW16o", channels=O, ...)
 * with Q(W) = reshape(transpose(reshape(W, [O/16, 16, K]), [0, 2, 1]),
 * [O/16, C, KH, KW, 16]), K = C*KH*KW: W[o, c, kh, kw] at [o / 16, c, kh,
 * kw, o % 16], the panels conv2d.im2colT reads in place (dense_pack's
 * (N/16, K, 16)); OIHW32o likewise with 32 on the 16-lane templates (see
 * above).
 * Other attributes (strides, padding, dilation, out_dtype) are kept. */
enum { KIND_DENSE_TB = 0, KIND_DENSE_KN = 1, KIND_CONV = 2 };

static rt_status_t rewrite_conv(dp_ctx *dp, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  rt_pass_rewrite_t *cx = &dp->base;
  int32_t xr, wr, yr;
  const int64_t *xs, *ws, *ys;
  if (e->call.nargs != 2 || !static_f32(orig->call.args[0], &xr, &xs) ||
      !static_f32(orig->call.args[1], &wr, &ws) || !static_f32(orig, &yr, &ys) || xr != 4 || wr != 4 ||
      yr != 4 || !rt_pass_is_constant_expr(e->call.args[1])) {
    return RT_OK;
  }
  rt_plan_input_t in[2] = {{RT_DTYPE_FLOAT32, xr, xs, NULL}, {RT_DTYPE_FLOAT32, wr, ws, NULL}};
  rt_plan_conv_t p;
  if (!rt_pass_plan_conv_nchw(e, in, &p)) return RT_OK;
  const int64_t o = p.out_channels, c = p.kernel_i;
  const bool strided = p.strides[0] > 1 || p.strides[1] > 1;
  const int32_t panel = panel_for(dp, o, false);
  const int64_t kh = ws[2], kw = ws[3], k = c * kh * kw;
  if (p.groups != 1 || o % panel != 0 ||
      !rt_ir_conv_gemm_swapped(c, o, kh, kw, p.out_size[0] * p.out_size[1], strided, dp->lanes)) {
    return RT_OK;
  }
  rt_ir_expr_t *w = e->call.args[1];
  rt_ir_expr_t *packed = seen_packed(dp, w, KIND_CONV);
  if (!packed) {
    char buf[96];
    packed = w;
    snprintf(buf, sizeof buf, "[%lld, %d, %lld]", (long long)(o / panel), panel, (long long)k);
    const char *rk[1] = {"newshape"}, *rv[1] = {buf};
    RT_RETURN_IF_ERROR(rt_pass_make_call(cx->m, e->span, RT_OP_RESHAPE, 1, &packed, 1, rk, rv, &packed));
    const char *tk[1] = {"axes"}, *tv[1] = {"[0, 2, 1]"};
    RT_RETURN_IF_ERROR(rt_pass_make_call(cx->m, e->span, RT_OP_TRANSPOSE, 1, &packed, 1, tk, tv, &packed));
    snprintf(buf, sizeof buf, "[%lld, %lld, %lld, %lld, %d]", (long long)(o / panel), (long long)c, (long long)kh,
             (long long)kw, panel);
    RT_RETURN_IF_ERROR(rt_pass_make_call(cx->m, e->span, RT_OP_RESHAPE, 1, &packed, 1, rk, rv, &packed));
    remember(dp, w, KIND_CONV, packed);
  }
  char channels[32], layout[32];
  snprintf(channels, sizeof channels, "%lld", (long long)o);
  snprintf(layout, sizeof layout, "\"OIHW%do\"", panel);
  const char *keys[2] = {"kernel_layout", "channels"}, *vals[2] = {layout, channels};
  rt_ir_expr_t *args[2] = {e->call.args[0], packed};
  RT_RETURN_IF_ERROR(rt_pass_remake_call(cx->m, e, RT_OP_NN_CONV2D, 2, args, 2, keys, vals, out));
  (*out)->binding = e->binding;
  cx->changed = true;
  return RT_OK;
}

/* ---- dense products ------------------------------------------------------- */

static rt_status_t rewrite(void *user, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  dp_ctx *dp = user;
  rt_pass_rewrite_t *cx = &dp->base;
  *out = e;
  if (rt_pass_is_op(e, RT_OP_NN_CONV2D)) return rewrite_conv(dp, orig, e, out);
  const bool dense = rt_pass_is_op(e, RT_OP_NN_DENSE), matmul = rt_pass_is_op(e, RT_OP_NN_MATMUL);
  const bool bmm = rt_pass_is_op(e, RT_OP_NN_BATCH_MATMUL);
  if ((!dense && !matmul && !bmm) || e->call.nargs != 2) return RT_OK;
  int32_t xr, wr, yr;
  const int64_t *xs, *ws, *ys;
  if (!static_f32(orig->call.args[0], &xr, &xs) || !static_f32(orig->call.args[1], &wr, &ws) ||
      !static_f32(orig, &yr, &ys) || !rt_pass_is_constant_expr(e->call.args[1])) {
    return RT_OK;
  }
  rt_plan_input_t in[2] = {{RT_DTYPE_FLOAT32, xr, xs, NULL}, {RT_DTYPE_FLOAT32, wr, ws, NULL}};
  rt_plan_matmul_t p;
  rt_status_t bad = rt_ir_plan_matmul(e->call.callee->op.op, e->call.attrs, 2, in, &p);
  if (bad) {
    rt_status_free(bad);
    return RT_OK;
  }
  if (p.transpose_a || xr < 1 || (bmm && (xr != 3 || wr != 3 || ws[0] != 1)) || (!bmm && wr != 2)) {
    return RT_OK;
  }
  const int64_t n = p.n, k = p.k;
  if (n < 1 || k < 1) return RT_OK;
  /* One or two rows (a batch-1 MLP): the generic lowering's dot products
   * read the unpacked weight once, in place, and split its columns
   * between tasks; the packed template's one-row tile waits on FMA
   * latency and splits no columns. Measured on the MLP 784-512-512-10 at
   * batch 1 (`--profile` minima, one thread, loaded machine): its 784->512
   * layer 32.0 us packed against 26.5 us as dot products (512->512: 21.1
   * against 22.6, a wash). */
  int64_t rows = 1;
  for (int32_t d = 0; d + 1 < xr; ++d) rows *= xs[d];
  if (rows <= 2) return RT_OK;
  rt_ir_expr_t *w = e->call.args[1];
  const int32_t kind = p.transpose_b ? KIND_DENSE_TB : KIND_DENSE_KN;
  rt_ir_expr_t *packed = seen_packed(dp, w, kind);
  if (packed) return make_product(cx, e, packed, p.n, out);
  const rt_ir_expr_t *key = w;
  char buf[160];
  if (bmm) {
    /* (1, N, K) or (1, K, N) -> 2-d */
    snprintf(buf, sizeof buf, "[%lld, %lld]", (long long)ws[1], (long long)ws[2]);
    const char *rk[1] = {"newshape"}, *rv[1] = {buf};
    RT_RETURN_IF_ERROR(rt_pass_make_call(cx->m, e->span, RT_OP_RESHAPE, 1, &w, 1, rk, rv, &w));
  }
  if (!p.transpose_b) {
    /* (K, N) -> (N, K) */
    const char *tk[1] = {"axes"}, *tv[1] = {"[1, 0]"};
    RT_RETURN_IF_ERROR(rt_pass_make_call(cx->m, e->span, RT_OP_TRANSPOSE, 1, &w, 1, tk, tv, &w));
  }
  const int32_t panel = panel_for(dp, n, true);
  const int64_t np = (n + panel - 1) / panel;
  if (np * panel != n) {
    rt_ir_expr_t *zero = NULL;
    RT_RETURN_IF_ERROR(rt_ir_scalar(cx->m, e->span, RT_DTYPE_FLOAT32, 0.0, &zero));
    rt_ir_expr_t *pargs[2] = {w, zero};
    snprintf(buf, sizeof buf, "[[0, %lld], [0, 0]]", (long long)(np * panel - n));
    const char *pk[1] = {"pad_width"}, *pv[1] = {buf};
    RT_RETURN_IF_ERROR(rt_pass_make_call(cx->m, e->span, RT_OP_NN_PAD, 2, pargs, 1, pk, pv, &w));
  }
  snprintf(buf, sizeof buf, "[%lld, %d, %lld]", (long long)np, panel, (long long)k);
  const char *rk[1] = {"newshape"}, *rv[1] = {buf};
  RT_RETURN_IF_ERROR(rt_pass_make_call(cx->m, e->span, RT_OP_RESHAPE, 1, &w, 1, rk, rv, &w));
  const char *tk[1] = {"axes"}, *tv[1] = {"[0, 2, 1]"};
  RT_RETURN_IF_ERROR(rt_pass_make_call(cx->m, e->span, RT_OP_TRANSPOSE, 1, &w, 1, tk, tv, &w));
  remember(dp, key, kind, w);
  return make_product(cx, e, w, n, out);
}

rt_status_t rt_pass_dense_pack(const rt_pass_env_t *env, rt_module_t *in, rt_module_t **out) {
  dp_ctx *cx = rt_mem_calloc(1, sizeof *cx);
  if (!cx) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "DensePack: out of memory");
  cx->lanes = rt_pass_template_lanes(env ? env->ctx : NULL);
  cx->panel = 2 * cx->lanes;
  rt_status_t st = rt_pass_rewrite_globals(in, rewrite, &cx->base, out);
  rt_mem_free(cx);
  return st;
}
