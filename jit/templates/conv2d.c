/* The conv2d templates (NCHW data, OIHW weight, float32, static shapes).
 *
 * conv2d.direct (any stride, kernel size, dilation, padding, groups; 1x1
 * kernels only at stride 1): the input of one (image, group) is copied
 * once per task into workspace phase images: the padded input split by
 * row and column residue modulo the stride, image (c, py, px) holding
 * padded element (r*sh + py, col*sw + px) at [r][col] (hq x wq each; at
 * stride 1 this is just the padded image Xp[c][Hp][Wp]), plus a zero
 * tail. The copy goes through the input's element expression, so a fused
 * prologue is applied there and the inner loop has no bounds checks; the
 * sw phase rows of one input row are filled by one loop over the columns
 * all of them have inside the image (at stride 2 two contiguous loads
 * and a de-interleave once vectorized), the edge columns and zeros apart.
 * A 1x1 kernel at stride 1 without padding on an input in memory reads
 * the input in place (its phase image is the input), copying only the
 * columns of the last, partial q tile; on 16 lanes, with planes off the
 * 64-byte alignment and 128+ output channels, the task's columns are
 * copied to aligned rows instead (`realign`).
 * Output positions are numbered q = oh*wq + ow; the tap (c, kh, kw) of
 * output q then reads one phase image at q + off[k] (offset_table), so
 * vw*nv consecutive q are one contiguous load per tap whatever the
 * stride. That makes the convolution a GEMM C[o][q] = sum_k W[o][k] *
 * X[q + off[k]] with A = the weight rows (OIHW rows are contiguous in k),
 * B rows read in place at a constant offset table (no packing), and the
 * register micro-kernel of templates.c. Where B outgrows L2 the tiles are
 * cache-blocked (direct_blocking): q tiles outer when the weight rows fit
 * L2, else K in blocks that add to the stored tile (blocks of whole input
 * channels, each block's phase images copied right before its tiles
 * read them). The columns ow in
 * [OW, wq) of each row are computed and dropped (OW/wq of the work is useful: 56/58 .. 7/9
 * on ResNet's 3x3 layers, 112/115 on its 7x7 stride-2 stem).
 *
 * conv2d.depthwise (one input and one output channel per group; split
 * over units of 1-4 channels of one image): the same phase images (for an
 * input in memory at column stride 1 or 2 copied by whole, aligned
 * vectors, the stride-2 ones split into even and odd elements by
 * shuffles, the last vector of a row a masked load), then chunks of nr
 * output rows by nv vectors (dw_plan's cost model picks them: 4-12 rows
 * of 1-2 vectors on MobileNet's and EfficientNet's layers), each a sum
 * over the kh*kw taps of vector loads at constant offsets of the phase
 * images, so at stride 2 too each load is contiguous and only the vectors
 * covering [0, OW) are computed. A chunk goes by kernel column: that
 * column's kh weights in registers, each input vector loaded once and
 * used by every output row whose tap row reads it, so its nr*nv
 * accumulators per channel (up to 16 - kh - 1) stay in registers. Where
 * the tail ops are constant over the pixels (bias, ReLU6, SiLU) a chunk
 * stores its rows straight to the output through them, a row's partial
 * last vector in power-of-two pieces (dw_store_direct); otherwise (a
 * residual) the rows go compact to a channel block, which the vector
 * epilogue writes out vw pixels at a time (the last few, or a tail it
 * does not take, by element). A 1x1 expand fused before it
 * (FuseExpandDepthwise) computes the phase images of a unit's channels
 * in place of the copy, in bands of rows where its input outgrows half
 * of L2 (dw_expand_band). Kernels of more than 64 taps take
 * conv2d.direct with mr = 1.
 * On 16-lane targets, output rows of at most 8 pixels (7x7 images) go on
 * 8 lanes (templates.c: conv2d.depthwise.1x32): a row is one vector either
 * way.
 *
 * conv2d.im2col (1x1 kernels with a stride > 1 and few output channels):
 * the GEMM core of dense.c with B(k, p) = X(c, oh*sh - pt, ow*sw - pl)
 * gathered into the packed panels, walking p inside k.
 *
 * conv2d.im2colT (1x1 kernels with 64+ output channels on a small image,
 * or a stride; the rule is ir/op/conv.c's rt_ir_conv1x1_gemm_swapped): the
 * same GEMM with the operands swapped, C^T(p, o) = X^T W^T, so output
 * channels fill the vectors; an input in memory without padding is
 * packed from where it lies by whole tiles (a strided one through a table
 * of input pixels), and a full tile is stored by output channel, its rows
 * transposed in registers (dense.c). conv2d.im2colT_pack: the same for a
 * weight packed at build time in panels of vw*nv output channels
 * (nn.conv2d's kernel_layout OIHW16o, passes/dense_pack.c), B read in
 * place; with a k x k kernel (DensePack packs those of small images:
 * rt_ir_conv_gemm_swapped) A is packed from a zero-padded copy of the
 * input that each task makes, through a table of padded pixel offsets
 * (the stride) and one of tap offsets (input channel, kh, kw: the
 * dilation).
 *
 * The epilogue (bias, scale, relu, residual add...) runs on the task's part
 * of the C block, per output element, as everywhere (templates.h), except
 * where the vector epilogue (epilogue.c) takes the tail ops: conv2d.direct
 * with q = the output pixel (1x1 kernels at stride 1) then applies them to
 * each tile's accumulators and stores the output directly (no C block),
 * as do its other kernels (3x3, 7x7, strided) with OW >= vw where the
 * tail ops are constant over the pixels (direct_tile_rows: a vector that
 * runs past an output row is stored in two masked parts); the rest go to
 * the C block's output rows, vw columns at a time; conv2d.im2colT to each full tile's columns, pixels
 * in the lanes (after the transpose), or else to each full-width tile's
 * rows, channels in the lanes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"
#include "jit/templates/templates.h"
#include "runtime/assert.h"
#include "runtime/mem.h"

/* ---- the plan ---------------------------------------------------------------- */

static bool is_identity(const int32_t *pos) {
  return pos[0] == 0 && pos[1] == 1 && pos[2] == 2 && pos[3] == 3;
}

/* nn.conv2d's plan (rt_ir_plan_conv) on the anchor's types, in the
 * templates' terms; false unless NCHW data and output and an OIHW kernel
 * with static shapes. */
bool rt_jit_tpl_conv2d_attrs(const rt_ir_expr_t *call, rt_jit_conv2d_t *c) {
  memset(c, 0, sizeof *c);
  const rt_ir_op_t *op = call->call.callee->op.op;
  if (op->id != RT_OP_NN_CONV2D) return false;
  rt_plan_input_t in[2];
  rt_dtype_t dt;
  int32_t yr;
  const int64_t *y;
  for (int32_t i = 0; i < 3; ++i) {
    rt_status_t st = i < 2 ? rt_jit_tensor_type(call->call.args[i], &in[i].dtype, &in[i].rank, &in[i].shape)
                           : rt_jit_tensor_type(call, &dt, &yr, &y);
    if (st) {
      rt_status_free(st);
      return false;
    }
    if (i < 2) in[i].value = NULL;
  }
  rt_plan_conv_t p;
  rt_status_t st = rt_ir_plan_conv(op, call->call.attrs, 2, in, &p);
  if (st) {
    rt_status_free(st);
    return false;
  }
  if (!is_identity(p.data_pos) || !is_identity(p.kernel_pos) || !is_identity(p.out_pos) || yr != 4) {
    return false;
  }
  if (p.data_block || p.kernel_in_block || p.out_block) return false;
  const int64_t *x = in[0].shape, *w = in[1].shape;
  c->n = x[0], c->c = x[1], c->h = x[2], c->w = x[3];
  c->wpack = p.kernel_out_block;
  c->o = p.kernel_o, c->cg = w[1], c->kh = w[2], c->kw = w[3];
  c->oh = y[2], c->ow = y[3];
  c->g = p.groups;
  if (c->c % c->g || c->o % c->g || c->c / c->g != c->cg || y[1] != c->o) return false;
  c->og = c->o / c->g;
  c->sh = p.strides[0], c->sw = p.strides[1], c->dh = p.dilation[0], c->dw = p.dilation[1];
  c->pt = p.pad_before[0], c->pl = p.pad_before[1], c->pb = p.pad_after[0], c->pr = p.pad_after[1];
  /* The phase copy keeps one row pointer per column phase in registers;
   * wider strides take the generic loop nest. */
  if (c->sw > RT_JIT_TPL_MAX_MR) return false;
  /* The output shape the type relation gave must be the one we compute. */
  const int64_t eh = (c->h + c->pt + c->pb - c->dh * (c->kh - 1) - 1) / c->sh + 1;
  const int64_t ew = (c->w + c->pl + c->pr - c->dw * (c->kw - 1) - 1) / c->sw + 1;
  return eh == c->oh && ew == c->ow && c->oh > 0 && c->ow > 0;
}

/* ---- shared pieces ------------------------------------------------------------ */

typedef struct conv_ctx_t {
  rt_jit_conv2d_t c;
  const rt_ir_expr_t *x, *w;
  /* conv2d.im2colT of a k x k kernel: the task's zero-padded copy of the
   * input, (N*C, hp, wp), or NULL. */
  LLVMValueRef xpad;
  int64_t hp, wp;
} conv_ctx_t;

/* Element (n, ci, ih, iw) of the input, 0 outside the image. */
static rt_status_t x_at(rt_jit_lower_t *L, const conv_ctx_t *cc, LLVMValueRef n, LLVMValueRef ci,
                        LLVMValueRef ih, LLVMValueRef iw, LLVMValueRef *out) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef zero = rt_jit_i64(L, 0);
  LLVMValueRef okh = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, ih, zero, ""),
                                  LLVMBuildICmp(B, LLVMIntSLT, ih, rt_jit_i64(L, cc->c.h), ""), "");
  LLVMValueRef okw = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, iw, zero, ""),
                                  LLVMBuildICmp(B, LLVMIntSLT, iw, rt_jit_i64(L, cc->c.w), ""), "");
  LLVMValueRef ok = LLVMBuildAnd(B, okh, okw, "");
  LLVMValueRef idx[4] = {cc->c.n == 1 ? zero : n, ci, LLVMBuildSelect(B, okh, ih, zero, ""),
                         LLVMBuildSelect(B, okw, iw, zero, "")};
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, cc->x, idx, &v));
  *out = LLVMBuildSelect(B, ok, v, LLVMConstReal(L->f32, 0), "");
  return RT_OK;
}

/* Weight element (o, k) with k = (ci*KH + y)*KW + x: at [o, ci, y, x], or
 * packed in panels [o / P, ci, y, x, o % P]. */
static rt_status_t w_at(rt_jit_lower_t *L, const conv_ctx_t *cc, LLVMValueRef o, LLVMValueRef k,
                        LLVMValueRef *out) {
  LLVMBuilderRef B = L->b;
  const int64_t khw = cc->c.kh * cc->c.kw;
  LLVMValueRef ci = LLVMBuildUDiv(B, k, rt_jit_i64(L, khw), "");
  LLVMValueRef rem = LLVMBuildURem(B, k, rt_jit_i64(L, khw), "");
  LLVMValueRef idx[5] = {o, ci, LLVMBuildUDiv(B, rem, rt_jit_i64(L, cc->c.kw), ""),
                         LLVMBuildURem(B, rem, rt_jit_i64(L, cc->c.kw), ""), NULL};
  if (cc->c.wpack) {
    idx[0] = LLVMBuildUDiv(B, o, rt_jit_i64(L, cc->c.wpack), "");
    idx[4] = LLVMBuildURem(B, o, rt_jit_i64(L, cc->c.wpack), "");
  }
  return rt_jit_elem(L, cc->w, idx, out);
}

/* ---- im2col through the GEMM core ------------------------------------------------ */

/* The weight rows (og x K, contiguous along K) of batch b's group: A of
 * conv2d.im2col, B (stored (N, K)) of conv2d.im2colT. */
static LLVMValueRef w_group_base(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b) {
  const conv_ctx_t *cc = g->user;
  LLVMValueRef gi = LLVMBuildURem(L->b, b, rt_jit_i64(L, cc->c.g), "");
  return rt_jit_tpl_gep(L, rt_jit_node(L, cc->w)->data,
                        LLVMBuildMul(L->b, gi, rt_jit_i64(L, cc->c.og * g->k), ""));
}

/* conv2d.im2colT's A in memory: a 1x1 convolution without padding reads
 * input channel k of group b's image at pixel i (stride 1: the (C/G, H*W)
 * = (K, M) block of x at image n, first channel gi * C/G) or at pixel
 * x_rows[i] (a stride). */
static LLVMValueRef x_group_base(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b) {
  const conv_ctx_t *cc = g->user;
  const int64_t hw = cc->c.h * cc->c.w;
  LLVMValueRef n = LLVMBuildUDiv(L->b, b, rt_jit_i64(L, cc->c.g), "");
  LLVMValueRef gi = LLVMBuildURem(L->b, b, rt_jit_i64(L, cc->c.g), "");
  LLVMValueRef ch = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, n, rt_jit_i64(L, cc->c.c), ""),
                                 LLVMBuildMul(L->b, gi, rt_jit_i64(L, cc->c.cg), ""), "");
  return rt_jit_tpl_gep(L, rt_jit_node(L, cc->x)->data, LLVMBuildMul(L->b, ch, rt_jit_i64(L, hw), ""));
}

/* A constant i32 table of n entries, f(i) each. */
static LLVMValueRef i32_table(rt_jit_lower_t *L, int64_t n, int64_t (*f)(const conv_ctx_t *, int64_t),
                              const conv_ctx_t *cc, const char *tag) {
  LLVMValueRef *vals = rt_mem_alloc((size_t)n * sizeof *vals);
  if (!vals) return NULL;
  for (int64_t i = 0; i < n; ++i) vals[i] = LLVMConstInt(L->i32, (unsigned long long)f(cc, i), 0);
  LLVMValueRef init = LLVMConstArray(L->i32, vals, (unsigned)n);
  rt_mem_free(vals);
  return rt_jit_private_constant(L, init, tag);
}

/* The input pixel (oh*SH)*W + ow*SW of each output pixel oh*OW + ow. */
static int64_t x_row(const conv_ctx_t *cc, int64_t i) {
  return (i / cc->c.ow) * cc->c.sh * cc->c.w + (i % cc->c.ow) * cc->c.sw;
}

static LLVMValueRef x_rows(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g) {
  return i32_table(L, g->m, x_row, g->user, "pixels");
}

/* conv2d.im2colT of a k x k kernel: A(i, k) of group b is the padded
 * plane of input channel c = k / (KH*KW) at the tap (kh, kw) of output
 * pixel i: xpad's plane of (n, gi*C/G) + rows[i] + koff[k], rows[i] =
 * oh*SH*wp + ow*SW, koff[k] = c*hp*wp + kh*DH*wp + kw*DW. */
static LLVMValueRef xpad_group_base(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b) {
  const conv_ctx_t *cc = g->user;
  LLVMValueRef n = LLVMBuildUDiv(L->b, b, rt_jit_i64(L, cc->c.g), "");
  LLVMValueRef gi = LLVMBuildURem(L->b, b, rt_jit_i64(L, cc->c.g), "");
  LLVMValueRef ch = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, n, rt_jit_i64(L, cc->c.c), ""),
                                 LLVMBuildMul(L->b, gi, rt_jit_i64(L, cc->c.cg), ""), "");
  return rt_jit_tpl_gep(L, cc->xpad, LLVMBuildMul(L->b, ch, rt_jit_i64(L, cc->hp * cc->wp), ""));
}

static int64_t xpad_row(const conv_ctx_t *cc, int64_t i) {
  return (i / cc->c.ow) * cc->c.sh * cc->wp + (i % cc->c.ow) * cc->c.sw;
}

static int64_t xpad_step(const conv_ctx_t *cc, int64_t k) {
  const rt_jit_conv2d_t *c = &cc->c;
  const int64_t khw = c->kh * c->kw, t = k % khw;
  return (k / khw) * cc->hp * cc->wp + (t / c->kw) * c->dh * cc->wp + (t % c->kw) * c->dw;
}

static LLVMValueRef xpad_rows(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g) {
  return i32_table(L, g->m, xpad_row, g->user, "pixels");
}

static LLVMValueRef xpad_koff(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g) {
  return i32_table(L, g->k, xpad_step, g->user, "taps");
}

/* The zero-padded copy of an input in memory: zeros, then each input row
 * one copy into its padded row. */
static void copy_padded(rt_jit_lower_t *L, const conv_ctx_t *cc) {
  LLVMBuilderRef B = L->b;
  const rt_jit_conv2d_t *c = &cc->c;
  const int64_t planes = c->n * c->c, hpwp = cc->hp * cc->wp;
  LLVMBuildMemSet(B, cc->xpad, LLVMConstInt(L->i8, 0, 0), rt_jit_i64(L, planes * hpwp * 4), 4);
  rt_jit_loop_t lp, lr;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, planes), 0, NULL, &lp);
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, c->h), 0, NULL, &lr);
  LLVMValueRef dst = LLVMBuildAdd(B, LLVMBuildMul(B, lp.iv, rt_jit_i64(L, hpwp), ""),
                                  LLVMBuildAdd(B, LLVMBuildMul(B, lr.iv, rt_jit_i64(L, cc->wp), ""),
                                               rt_jit_i64(L, c->pt * cc->wp + c->pl), ""), "");
  LLVMValueRef src = LLVMBuildAdd(B, LLVMBuildMul(B, lp.iv, rt_jit_i64(L, c->h * c->w), ""),
                                  LLVMBuildMul(B, lr.iv, rt_jit_i64(L, c->w), ""), "");
  LLVMBuildMemCpy(B, rt_jit_tpl_gep(L, cc->xpad, dst), 4, rt_jit_tpl_gep(L, rt_jit_node(L, cc->x)->data, src), 4,
                  rt_jit_i64(L, c->w * 4));
  rt_jit_loop_end(L, &lr, NULL);
  rt_jit_loop_end(L, &lp, NULL);
}

/* A weight packed in panels of vw*nv output channels (conv2d.im2colT),
 * read in place by the GEMM core: (O/P, C, 1, 1, P) is its (N/P, K, P). */
static LLVMValueRef w_panels(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b) {
  (void)b;
  const conv_ctx_t *cc = g->user;
  return rt_jit_node(L, cc->w)->data;
}

static rt_status_t ic_a_elem(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                             LLVMValueRef i, LLVMValueRef k, LLVMValueRef *out) {
  const conv_ctx_t *cc = g->user;
  LLVMValueRef gi = LLVMBuildURem(L->b, b, rt_jit_i64(L, cc->c.g), "");
  LLVMValueRef o = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, gi, rt_jit_i64(L, cc->c.og), ""), i, "");
  return w_at(L, cc, o, k, out);
}

static rt_status_t ic_b_elem(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                             LLVMValueRef k, LLVMValueRef p, LLVMValueRef *out) {
  const conv_ctx_t *cc = g->user;
  const rt_jit_conv2d_t *c = &cc->c;
  LLVMBuilderRef B = L->b;
  LLVMValueRef n = LLVMBuildUDiv(B, b, rt_jit_i64(L, c->g), "");
  LLVMValueRef gi = LLVMBuildURem(B, b, rt_jit_i64(L, c->g), "");
  const int64_t khw = c->kh * c->kw;
  LLVMValueRef ci = LLVMBuildUDiv(B, k, rt_jit_i64(L, khw), "");
  LLVMValueRef rem = LLVMBuildURem(B, k, rt_jit_i64(L, khw), "");
  LLVMValueRef ky = LLVMBuildUDiv(B, rem, rt_jit_i64(L, c->kw), "");
  LLVMValueRef kx = LLVMBuildURem(B, rem, rt_jit_i64(L, c->kw), "");
  LLVMValueRef oy = LLVMBuildUDiv(B, p, rt_jit_i64(L, c->ow), "");
  LLVMValueRef ox = LLVMBuildURem(B, p, rt_jit_i64(L, c->ow), "");
  LLVMValueRef ih = LLVMBuildAdd(B, LLVMBuildSub(B, LLVMBuildMul(B, oy, rt_jit_i64(L, c->sh), ""), rt_jit_i64(L, c->pt), ""),
                                 LLVMBuildMul(B, ky, rt_jit_i64(L, c->dh), ""), "");
  LLVMValueRef iw = LLVMBuildAdd(B, LLVMBuildSub(B, LLVMBuildMul(B, ox, rt_jit_i64(L, c->sw), ""), rt_jit_i64(L, c->pl), ""),
                                 LLVMBuildMul(B, kx, rt_jit_i64(L, c->dw), ""), "");
  LLVMValueRef cin = LLVMBuildAdd(B, LLVMBuildMul(B, gi, rt_jit_i64(L, c->cg), ""), ci, "");
  return x_at(L, cc, n, cin, ih, iw, out);
}

static void ic_out_idx(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                       LLVMValueRef i, LLVMValueRef j, LLVMValueRef *idx) {
  const conv_ctx_t *cc = g->user;
  LLVMBuilderRef B = L->b;
  idx[0] = LLVMBuildUDiv(B, b, rt_jit_i64(L, cc->c.g), "");
  LLVMValueRef gi = LLVMBuildURem(B, b, rt_jit_i64(L, cc->c.g), "");
  idx[1] = LLVMBuildAdd(B, LLVMBuildMul(B, gi, rt_jit_i64(L, cc->c.og), ""), i, "");
  idx[2] = LLVMBuildUDiv(B, j, rt_jit_i64(L, cc->c.ow), "");
  idx[3] = LLVMBuildURem(B, j, rt_jit_i64(L, cc->c.ow), "");
}

/* ---- 1x1 convolutions with the operands swapped ------------------------------------
 * C^T(p, o) = sum_c X(c, p) W(o, c): output pixels p = oh*OW + ow are the
 * GEMM's rows (A, gathered through x_at, walking p inside c) and output
 * channels its columns (B = the weight rows, stored (O, C) = B(k, n) at
 * n*K + k, packed by whole transposed vectors). Output channels fill the
 * vectors where a small image's OH*OW would not (49 at 7x7). */

static rt_status_t ict_a_elem(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                              LLVMValueRef i, LLVMValueRef k, LLVMValueRef *out) {
  return ic_b_elem(L, g, b, k, i, out);
}

static rt_status_t ict_b_elem(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                              LLVMValueRef k, LLVMValueRef n, LLVMValueRef *out) {
  return ic_a_elem(L, g, b, n, k, out);
}

static void ict_out_idx(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                        LLVMValueRef i, LLVMValueRef j, LLVMValueRef *idx) {
  ic_out_idx(L, g, b, j, i, idx);
}

/* ---- direct ------------------------------------------------------------------- */

/* The constant tap offset table off[k] (i32) as a private global: tap
 * (ci, y, x) of output q = oh*wq + ow reads the phase image (see
 * conv_direct) of input channel ci, phase ((y*dh) % sh, (x*dw) % sw), at
 * row oh + (y*dh) / sh, column ow + (x*dw) / sw. */
static LLVMValueRef offset_table(rt_jit_lower_t *L, const rt_jit_conv2d_t *c, int64_t hq, int64_t wq,
                                 int64_t *out_max) {
  const int64_t K = c->cg * c->kh * c->kw;
  LLVMValueRef *vals = rt_mem_alloc((size_t)K * sizeof *vals);
  if (!vals) return NULL;
  int64_t mx = 0;
  for (int64_t ci = 0; ci < c->cg; ++ci) {
    for (int64_t y = 0; y < c->kh; ++y) {
      for (int64_t x = 0; x < c->kw; ++x) {
        const int64_t ey = y * c->dh, ex = x * c->dw;
        const int64_t phase = (ci * c->sh + ey % c->sh) * c->sw + ex % c->sw;
        int64_t off = phase * hq * wq + (ey / c->sh) * wq + ex / c->sw;
        if (off > mx) mx = off;
        vals[(ci * c->kh + y) * c->kw + x] = LLVMConstInt(L->i32, (unsigned long long)off, 0);
      }
    }
  }
  LLVMValueRef init = LLVMConstArray(L->i32, vals, (unsigned)K);
  rt_mem_free(vals);
  *out_max = mx;
  return rt_jit_private_constant(L, init, "taps");
}

/* Columns col of phase px inside the image (col*sw + px - pl in [0, W)):
 * [*lo, *hi), both clipped to [0, wq]. */
static void phase_cols(const rt_jit_conv2d_t *c, int64_t px, int64_t wq, int64_t *lo, int64_t *hi) {
  const int64_t a = c->pl - px > 0 ? c->pl - px : 0, b = c->pl + c->w - px > 0 ? c->pl + c->w - px : 0;
  *lo = (a + c->sw - 1) / c->sw;
  *hi = (b + c->sw - 1) / c->sw;
  if (*lo > wq) *lo = wq;
  if (*hi > wq) *hi = wq;
  if (*hi < *lo) *hi = *lo;
}

/* row[col] = 0 for col in [lo, hi) (a memset once optimized). */
static void zero_run(rt_jit_lower_t *L, LLVMValueRef row, int64_t lo, int64_t hi) {
  if (hi <= lo) return;
  rt_jit_loop_t lx;
  rt_jit_loop_begin(L, rt_jit_i64(L, lo), rt_jit_i64(L, hi), 0, NULL, &lx);
  rt_jit_tpl_storef(L, LLVMConstReal(L->f32, 0), row, lx.iv);
  rt_jit_loop_end(L, &lx, NULL);
}

/* rows[px][col] = x(n, cin, ih, col*sw + px - pl) for col in [lo, hi) and
 * the phases px in [px0, px1), all in one loop (at stride 2 a pair of
 * contiguous loads, which the loop vectorizer turns into vector loads and
 * shuffles). With vw > 0, an input in memory and stride 1 or both phases
 * of stride 2, the columns go vw at a time as explicit vectors (stride 2:
 * two loads split into even and odd lanes), so no loop vectorizer is
 * needed (the light pipeline: jit/session.c), the last few by element.
 * Every column of [lo, hi) reads inside the input row (copy_phases). */
static rt_status_t copy_run(rt_jit_lower_t *L, const conv_ctx_t *cc, const LLVMValueRef *rows, int64_t px0,
                            int64_t px1, LLVMValueRef n, LLVMValueRef cin, LLVMValueRef ih, int64_t lo,
                            int64_t hi, int32_t vw) {
  if (hi <= lo) return RT_OK;
  LLVMBuilderRef B = L->b;
  const rt_jit_conv2d_t *c = &cc->c;
  const int64_t nvec = vw > 0 ? (hi - lo) / vw : 0;
  if (nvec > 0 && rt_jit_tpl_raw(L, cc->x) && px0 == 0 && (c->sw == 1 || (c->sw == 2 && px1 == 2))) {
    LLVMValueRef img = LLVMBuildAdd(B, LLVMBuildMul(B, c->n == 1 ? rt_jit_i64(L, 0) : n, rt_jit_i64(L, c->c), ""), cin, "");
    LLVMValueRef row = LLVMBuildMul(B, LLVMBuildAdd(B, LLVMBuildMul(B, img, rt_jit_i64(L, c->h), ""), ih, ""),
                                    rt_jit_i64(L, c->w), "");
    LLVMValueRef xrow = rt_jit_tpl_gep(L, rt_jit_node(L, cc->x)->data, row);
    rt_jit_loop_t lv;
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, nvec), 0, NULL, &lv);
    LLVMValueRef col = LLVMBuildAdd(B, rt_jit_i64(L, lo), LLVMBuildMul(B, lv.iv, rt_jit_i64(L, vw), ""), "");
    LLVMValueRef iw = LLVMBuildSub(B, LLVMBuildMul(B, col, rt_jit_i64(L, c->sw), ""), rt_jit_i64(L, c->pl), "");
    LLVMValueRef a = rt_jit_tpl_loadv(L, xrow, iw, vw);
    if (c->sw == 1) {
      rt_jit_tpl_storev(L, a, rows[0], col);
    } else {
      LLVMValueRef b = rt_jit_tpl_loadv(L, xrow, LLVMBuildAdd(B, iw, rt_jit_i64(L, vw), ""), vw);
      rt_jit_tpl_storev(L, rt_jit_tpl_deinterleave(L, a, b, vw, false), rows[0], col);
      rt_jit_tpl_storev(L, rt_jit_tpl_deinterleave(L, a, b, vw, true), rows[1], col);
    }
    rt_jit_loop_end(L, &lv, NULL);
    lo += nvec * vw;
    if (hi <= lo) return RT_OK;
  }
  rt_jit_loop_t lx;
  rt_jit_loop_begin(L, rt_jit_i64(L, lo), rt_jit_i64(L, hi), 0, NULL, &lx);
  LLVMValueRef base = LLVMBuildMul(B, lx.iv, rt_jit_i64(L, c->sw), "");
  for (int64_t px = px0; px < px1; ++px) {
    LLVMValueRef iw = LLVMBuildAdd(B, base, rt_jit_i64(L, px - c->pl), "");
    LLVMValueRef idx[4] = {c->n == 1 ? rt_jit_i64(L, 0) : n, cin, ih, iw}, v;
    RT_RETURN_IF_ERROR(rt_jit_elem(L, cc->x, idx, &v));
    rt_jit_tpl_storef(L, v, rows[px], lx.iv);
  }
  rt_jit_loop_end(L, &lx, NULL);
  return RT_OK;
}

/* The phase images of (image n, group gi) in wsx, then zeros up to xsize:
 * image (ci, py, px) holds padded element (r*sh + py, col*sw + px) at
 * ((ci*sh + py)*sw + px)*hq*wq + r*wq + col (with stride 1, the padded
 * image itself). Rows outside the image (and past the padded image) are
 * zeros. The sw phase rows of one (ci, py, r) are written together: the
 * columns every phase has inside the image in one loop reading the input
 * row contiguously, the few edge columns of each phase, then zeros. The
 * copy goes through the input's element expression (a fused prologue
 * runs here) and needs no bounds checks; with vw > 0 the columns every
 * phase has go as vectors where copy_run can (an input in memory). */
static rt_status_t copy_phase_channels(rt_jit_lower_t *L, const conv_ctx_t *cc, LLVMValueRef wsx, LLVMValueRef n,
                                       LLVMValueRef gi, int64_t hq, int64_t wq, int32_t vw, LLVMValueRef c_lo,
                                       LLVMValueRef c_hi) {
  const rt_jit_conv2d_t *c = &cc->c;
  LLVMBuilderRef B = L->b;
  const int64_t sw = c->sw, hqwq = hq * wq;
  RT_ASSERT(sw <= RT_JIT_TPL_MAX_MR); /* rt_jit_tpl_conv2d_attrs */
  int64_t lo[RT_JIT_TPL_MAX_MR], hi[RT_JIT_TPL_MAX_MR], jlo = 0, jhi = wq;
  for (int64_t px = 0; px < sw; ++px) {
    phase_cols(c, px, wq, &lo[px], &hi[px]);
    if (lo[px] > jlo) jlo = lo[px];
    if (hi[px] < jhi) jhi = hi[px];
  }
  if (jhi < jlo) jhi = jlo;
  rt_jit_loop_t lc, ly;
  rt_jit_loop_begin(L, LLVMBuildMul(B, c_lo, rt_jit_i64(L, c->sh), ""), LLVMBuildMul(B, c_hi, rt_jit_i64(L, c->sh), ""), 0,
                    NULL, &lc);
  LLVMValueRef ci = LLVMBuildUDiv(B, lc.iv, rt_jit_i64(L, c->sh), "");
  LLVMValueRef py = LLVMBuildURem(B, lc.iv, rt_jit_i64(L, c->sh), "");
  LLVMValueRef cin = LLVMBuildAdd(B, LLVMBuildMul(B, gi, rt_jit_i64(L, c->cg), ""), ci, "");
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, hq), 0, NULL, &ly);
  LLVMValueRef ih = LLVMBuildSub(B, LLVMBuildAdd(B, LLVMBuildMul(B, ly.iv, rt_jit_i64(L, c->sh), ""), py, ""),
                                 rt_jit_i64(L, c->pt), "");
  LLVMValueRef row_ok = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, ih, rt_jit_i64(L, 0), ""),
                                     LLVMBuildICmp(B, LLVMIntSLT, ih, rt_jit_i64(L, c->h), ""), "");
  LLVMValueRef rows[RT_JIT_TPL_MAX_MR];
  for (int64_t px = 0; px < sw; ++px) {
    LLVMValueRef ph = LLVMBuildAdd(B, LLVMBuildMul(B, lc.iv, rt_jit_i64(L, sw), ""), rt_jit_i64(L, px), "");
    rows[px] = rt_jit_tpl_gep(
        L, wsx, LLVMBuildAdd(B, LLVMBuildMul(B, ph, rt_jit_i64(L, hqwq), ""), LLVMBuildMul(B, ly.iv, rt_jit_i64(L, wq), ""), ""));
  }
  rt_jit_if_t in;
  rt_jit_if_begin(L, row_ok, &in);
  for (int64_t px = 0; px < sw; ++px) {
    zero_run(L, rows[px], 0, lo[px]);
    RT_RETURN_IF_ERROR(copy_run(L, cc, rows, px, px + 1, n, cin, ih, lo[px], jhi > jlo ? jlo : hi[px], 0));
  }
  RT_RETURN_IF_ERROR(copy_run(L, cc, rows, 0, sw, n, cin, ih, jlo, jhi, vw));
  for (int64_t px = 0; px < sw; ++px) {
    if (jhi > jlo) {
      RT_RETURN_IF_ERROR(copy_run(L, cc, rows, px, px + 1, n, cin, ih, jhi, hi[px], 0));
    }
    zero_run(L, rows[px], hi[px], wq);
  }
  rt_jit_if_else(L, &in, NULL);
  for (int64_t px = 0; px < sw; ++px) zero_run(L, rows[px], 0, wq);
  (void)rt_jit_if_end(L, &in, NULL);
  rt_jit_loop_end(L, &ly, NULL);
  rt_jit_loop_end(L, &lc, NULL);
  return RT_OK;
}

static rt_status_t copy_phases_v(rt_jit_lower_t *L, const conv_ctx_t *cc, LLVMValueRef wsx, LLVMValueRef n,
                                 LLVMValueRef gi, int64_t hq, int64_t wq, int64_t xsize, int32_t vw) {
  const rt_jit_conv2d_t *c = &cc->c;
  RT_RETURN_IF_ERROR(copy_phase_channels(L, cc, wsx, n, gi, hq, wq, vw, rt_jit_i64(L, 0), rt_jit_i64(L, c->cg)));
  zero_run(L, wsx, c->cg * c->sh * c->sw * hq * wq, xsize);
  return RT_OK;
}

/* copy_phases_v by element (the depthwise template's copy). */
static rt_status_t copy_phases(rt_jit_lower_t *L, const conv_ctx_t *cc, LLVMValueRef wsx, LLVMValueRef n,
                               LLVMValueRef gi, int64_t hq, int64_t wq, int64_t xsize) {
  return copy_phases_v(L, cc, wsx, n, gi, hq, wq, xsize, 0);
}

/* Cache blocking of the direct template. Its B (the phase images, or the
 * input read in place) is xbytes per (image, group); A (the weight rows)
 * M*K*4 bytes. Where B fits L2 (256 KiB) the row tiles run outer and each
 * q tile's micro-kernel runs over all of K (B stays in L2 across row
 * tiles, a row tile's A in L1/L2). Beyond that the row-outer order
 * streamed all of B from L3 once per row tile (0.47-0.58 of the FMA peak
 * on ResNet-50's 1x1 convolutions at 56x56 and its stride-2 3x3 ones), so:
 * with A within 128 KiB the q tiles run outer (one q tile's K x vw*nv B
 * panel stays in L1 while every row tile reads it; A stays in L2); else,
 * with B within 512 KiB, the row tiles run outer over all of K as below
 * 256 KiB (B in L2 beside a row tile's weight rows and their prefetch);
 * else K runs in blocks of kc taps whose share of B is about 128 KiB (at least
 * 64 taps), row tiles outer inside a block, the blocks after the first
 * adding to the tile the earlier ones stored. Measured with
 * `RELAYRT_JIT_TARGET=avx2 taskset -c 0 build-rel/bench/bench_kernels 3
 * conv` / `pw` (docs/executors.md, "Measured": the 56x56 1x1 layers 0.4
 * -> 0.6-0.75 of the FMA peak, median of runs on a loaded host, the
 * stride-2 3x3 ones 0.46-0.54 -> 0.68-0.80; ResNet's 3x3 at 7x7, whose
 * input fits L2, runs as before). */
typedef struct direct_blocking_t {
  int64_t kc;   /* K block (== K: one block) */
  bool q_outer; /* q tiles outer, row tiles inner */
  bool pf_q;    /* q tiles outer: the row tiles prefetch the next q tile's B (conv_direct) */
} direct_blocking_t;

static direct_blocking_t direct_blocking(int64_t M, int64_t K, int64_t xbytes, int64_t l2, int32_t vw) {
  enum { kL2 = 256 << 10, kL2Whole = 512 << 10, kBBlock = 128 << 10, kABytes = 128 << 10, kMinKc = 64 };
  enum { kSmallK = 160, kSmallKMinM = 64 };
  /* The machine's L2 (rt_jit_target_t.l2_bytes) raises the first bound
   * where it is larger than the 512 KiB it was measured with: B within
   * half of it keeps the row tiles outer (the q-outer order writes all M
   * output rows in nw-float pieces per q tile: 64 streams for a ResNet
   * stem, which then ran at 2.1-3.3 ms in resnet18 against 1.3-1.5 ms
   * rows outer on an AVX-512 Xeon with a 2 MiB L2, 1 thread). The second
   * stays: one K block over a B of up to the whole 2 MiB made ResNet-50's
   * 128@56 stride-2 3x3 and its 512-channel 1x1 layers at 28x28 1.3-1.6x
   * slower there than K blocks of 128 KiB. On 8 lanes (a q tile of 16
   * pixels) the first bound stays too: with it resnet18 and resnet50 ran
   * within noise at 1 thread and resnet18 2.4% slower at 2 (alternated,
   * 4 rounds). With it on 16 lanes, same host: resnet18 0.94-0.97 of its
   * time at 1 thread (4 of 4 rounds twice), efficientnet_b0 0.95, 2
   * threads and the other models within noise. */
  const int64_t l2_rows = vw == 16 && l2 / 2 > kL2 ? l2 / 2 : kL2;
  direct_blocking_t z = {K, false, false};
  if (xbytes <= l2_rows) return z;
  /* On 16 lanes, few input channels (K <= 160: little work per q tile)
   * and 64+ output channels keep the row tiles outer over a B of up to
   * 4/5 of L2: DenseNet-121's 1x1 bottlenecks at 56x56 in the model (an
   * AVX-512 Xeon, 2 MiB L2, 1 thread, --profile minima, 3 alternated
   * rounds, four times): 96 -> 128 743-810 -> 455-529 us, 128 -> 128
   * 943-1015 -> 770-797; densenet121's kernels 0.939-0.986 of their time,
   * 2 threads within noise. Measured alone (a one-conv model) the q-outer
   * order was the faster (128 -> 128: 634-752 against 814-971 us): the
   * model's state decides, as for the 56x56 layers that run slower in
   * models than alone (docs/executors.md). With fewer output channels
   * (MobileNet-v2's 32 -> 16 at 112x112: 103 -> 175 us) B is read once
   * per row tile for little work; on 8 lanes the same layers ran slower
   * (128 -> 128 1056 -> 1333 us). */
  if (vw == 16 && M >= kSmallKMinM && K <= kSmallK && xbytes <= l2 / 5 * 4) return z;
  if (M * K * 4 <= kABytes) {
    z.q_outer = true;
    return z;
  }
  /* A larger weight over a B that still fits L2 with room for the row
   * tile's weight rows and their prefetch: one K block, so the epilogue
   * runs on the registers and no C block round-trips. SqueezeNet's 1x1
   * 512 -> 1000 classifier at 13x13 (B 346 KiB, three blocks before):
   * 1175-1221 -> 993-1010 us (--profile, 1 thread, alternated). */
  if (xbytes <= kL2Whole) return z;
  int64_t kc = (int64_t)((double)K * kBBlock / (double)xbytes);
  if (kc < kMinKc) kc = kMinKc;
  if (kc >= K) return z;
  const int64_t nkb = (K + kc - 1) / kc;
  z.kc = (K + nkb - 1) / nkb;
  return z;
}

/* Taps per output (K) up to which the k x k tiles prefetch their output
 * lines (direct_prefetch_out). */
#define DIRECT_PREFETCH_OUT_K 64

/* The epilogue on the registers (issue 18, h3): where a 1x1 kernel's q
 * positions are the output's pixels (wq == OW, so q = oh*OW + ow) and the
 * tail ops are ones the vector epilogue takes (epilogue.c), the last K
 * block applies them to each tile's accumulators and stores the output
 * directly, instead of storing C for a per-element pass over all of it
 * afterwards (which re-read an M x OH*OW block, 4.8 MB for MobileNet-v2's
 * 16->96 at 112x112, from L3 or memory). A tile that reaches past the
 * last pixel goes through the element epilogue from its C tile (at `c`
 * where K has several blocks, else in the scratch tile `tailc`). */
typedef struct direct_epi_t {
  const rt_ir_expr_t *anchor, *out;
  LLVMValueRef data, n, obase; /* image; output channel of the group's row 0 */
  int64_t qn, ow;
  LLVMValueRef tailc;          /* NULL: the C tile at c (row stride qpad) */
  int64_t wq, oh, o;           /* wq > ow: the k x k path (direct_tile_rows) */
  int64_t pf;                  /* > 0: direct_prefetch_out's distance (positions) */
  bool pf_rows;                /* q tiles outer, a large output: direct_prefetch_operands
                                * and the next q tile's output lines (direct_tile_epi) */
  int64_t m;                   /* output channels of a group */
} direct_epi_t;

/* <vw x i32> of the i64 x (0 <= x <= vw) in every lane. */
static LLVMValueRef isplat(rt_jit_lower_t *L, LLVMTypeRef ivec, LLVMValueRef x) {
  LLVMValueRef one = LLVMBuildInsertElement(L->b, LLVMGetUndef(ivec), LLVMBuildTrunc(L->b, x, L->i32, ""),
                                            rt_jit_i32(L, 0), "");
  return LLVMBuildShuffleVector(L->b, one, LLVMGetUndef(ivec), LLVMConstNull(ivec), "");
}

/* Output lines of a tile's rows, from position q0 + dist on, prefetched
 * for writing. A convolution of few taps per output (the 3 -> 32/64
 * stems: K = 27) spends a few hundred cycles per tile, too few to hide
 * the write-allocation of output lines in no cache (the stem's output is
 * the model's largest activation, its block last touched a run ago):
 * fetched two tiles ahead (e->pf) they arrive in time. The rows' output
 * offset there (oy*OW + ox) is below q0 + dist, so one line more is
 * taken. SqueezeNet-1.1's stem in the model, 1 thread: 353-362 -> 318-333
 * us, MobileNet-v2's 245-261 -> 205-215 (--profile means, alternated);
 * the 7x7 stem (K = 147) and the 1x1 kernels within noise or slower at
 * that distance. The 1x1 kernels with q tiles outer and a large output
 * take the next q tile's lines instead (direct_tile_epi). */
static void direct_prefetch_out(rt_jit_lower_t *L, const direct_epi_t *e, int32_t rows, int64_t nw, LLVMValueRef i0,
                                LLVMValueRef q0, int64_t dist) {
  if (dist <= 0) return;
  LLVMBuilderRef B = L->b;
  for (int32_t r = 0; r < rows; ++r) {
    LLVMValueRef o = LLVMBuildAdd(B, e->obase, LLVMBuildAdd(B, i0, rt_jit_i64(L, r), ""), "");
    LLVMValueRef plane = LLVMBuildMul(B, LLVMBuildAdd(B, LLVMBuildMul(B, e->n, rt_jit_i64(L, e->o), ""), o, ""),
                                      rt_jit_i64(L, e->oh * e->ow), "");
    LLVMValueRef base = LLVMBuildAdd(B, plane, LLVMBuildAdd(B, q0, rt_jit_i64(L, dist), ""), "");
    for (int64_t l = 0; l <= nw * 4; l += 64) {
      rt_jit_tpl_prefetch(L, rt_jit_tpl_gep(L, e->data, LLVMBuildAdd(B, base, rt_jit_i64(L, l / 4), "")), true);
    }
  }
}

/* The k x k tiles' epilogue on the registers (wq > OW: q = oh*wq + ow
 * counts wq - OW columns past each output row that are computed and
 * dropped). With OW >= vw a vector of positions [q, q + vw) holds the end
 * of output row oy = q / wq (lanes below OW - q % wq) and the start of
 * row oy + 1 (lanes from wq - q % wq), the dropped columns between; a
 * vector inside one row is stored whole, any other as those two parts
 * with masked stores (rows past OH and the positions past qn masked
 * off). The tail ops are ones rt_jit_tpl_vepi_uniform takes (constant
 * over the pixels: bias, ReLU, clip, SiLU...), so the lanes need not be
 * contiguous for them. This replaces the pass over an M x OH*wq C block
 * after the tiles (1.6 MB for the 3 -> 32 stride-2 stems at 224x224, from
 * L2 or L3). */
static rt_status_t direct_tile_rows(rt_jit_lower_t *L, const direct_epi_t *e, int32_t rows, int32_t nv, int32_t vw,
                                    LLVMValueRef i0, LLVMValueRef q0, const LLVMValueRef *acc) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef iota[16];
  for (int32_t l = 0; l < vw; ++l) iota[l] = rt_jit_i32(L, l);
  LLVMValueRef lanes = LLVMConstVector(iota, (unsigned)vw);
  LLVMTypeRef ivec = LLVMVectorType(L->i32, (unsigned)vw);
  LLVMValueRef val[RT_JIT_MAX_CARRY];
  LLVMValueRef plane[RT_JIT_TPL_MAX_MR];
  direct_prefetch_out(L, e, rows, (int64_t)vw * nv, i0, q0, e->pf);
  for (int32_t r = 0; r < rows; ++r) {
    LLVMValueRef o = LLVMBuildAdd(B, e->obase, LLVMBuildAdd(B, i0, rt_jit_i64(L, r), ""), "");
    LLVMValueRef idx[4] = {e->n, o, rt_jit_i64(L, 0), rt_jit_i64(L, 0)};
    for (int32_t v = 0; v < nv; ++v) {
      RT_RETURN_IF_ERROR(rt_jit_tpl_vepi_uniform(L, e->anchor, e->out, 2, 4, idx, acc[r * nv + v], &val[r * nv + v]));
    }
    plane[r] = LLVMBuildMul(B, LLVMBuildAdd(B, LLVMBuildMul(B, e->n, rt_jit_i64(L, e->o), ""), o, ""),
                            rt_jit_i64(L, e->oh * e->ow), "");
  }
  for (int32_t v = 0; v < nv; ++v) {
    LLVMValueRef q = LLVMBuildAdd(B, q0, rt_jit_i64(L, (int64_t)v * vw), "");
    LLVMValueRef oy = LLVMBuildUDiv(B, q, rt_jit_i64(L, e->wq), "");
    LLVMValueRef rq = LLVMBuildSub(B, q, LLVMBuildMul(B, oy, rt_jit_i64(L, e->wq), ""), "");
    LLVMValueRef off0 = LLVMBuildAdd(B, LLVMBuildMul(B, oy, rt_jit_i64(L, e->ow), ""), rq, "");
    LLVMValueRef in_img = LLVMBuildICmp(B, LLVMIntSLT, oy, rt_jit_i64(L, e->oh), "");
    LLVMValueRef whole = LLVMBuildAnd(B, in_img, LLVMBuildICmp(B, LLVMIntSLE, LLVMBuildAdd(B, rq, rt_jit_i64(L, vw), ""),
                                                                 rt_jit_i64(L, e->ow), ""), "");
    rt_jit_if_t w;
    rt_jit_if_begin(L, whole, &w);
    for (int32_t r = 0; r < rows; ++r) {
      rt_jit_tpl_storev(L, val[r * nv + v], e->data, LLVMBuildAdd(B, plane[r], off0, ""));
    }
    rt_jit_if_else(L, &w, NULL);
    /* Lanes [0, OW - rq) end row oy; lanes [wq - rq, vw) start row oy + 1. */
    LLVMValueRef n0 = LLVMBuildSelect(B, in_img, LLVMBuildSub(B, rt_jit_i64(L, e->ow), rq, ""), rt_jit_i64(L, 0), "");
    LLVMValueRef next_in = LLVMBuildICmp(B, LLVMIntSLT, LLVMBuildAdd(B, oy, rt_jit_i64(L, 1), ""), rt_jit_i64(L, e->oh), "");
    LLVMValueRef s1 = LLVMBuildSelect(B, next_in, LLVMBuildSub(B, rt_jit_i64(L, e->wq), rq, ""), rt_jit_i64(L, vw), "");
    LLVMValueRef n0v = isplat(L, ivec, rt_jit_min(L, rt_jit_max(L, n0, rt_jit_i64(L, 0)), rt_jit_i64(L, vw)));
    LLVMValueRef s1v = isplat(L, ivec, rt_jit_min(L, s1, rt_jit_i64(L, vw)));
    LLVMValueRef m0 = LLVMBuildICmp(B, LLVMIntSLT, lanes, n0v, "");
    LLVMValueRef m1 = LLVMBuildICmp(B, LLVMIntSGE, lanes, s1v, "");
    LLVMValueRef off1 = LLVMBuildSub(B, LLVMBuildAdd(B, off0, rt_jit_i64(L, e->ow), ""), rt_jit_i64(L, e->wq), "");
    for (int32_t r = 0; r < rows; ++r) {
      rt_jit_tpl_masked_store(L, val[r * nv + v], e->data, LLVMBuildAdd(B, plane[r], off0, ""), m0, vw);
      rt_jit_tpl_masked_store(L, val[r * nv + v], e->data, LLVMBuildAdd(B, plane[r], off1, ""), m1, vw);
    }
    (void)rt_jit_if_end(L, &w, NULL);
  }
  return RT_OK;
}

/* Prefetched for reading: the lines that the epilogue will read from
 * operands contiguous over the pixels (a residual) for the next tile's
 * rows at q tiles outer (the next row tile at the same pixels; after the
 * last row tile, the first rows of the next q tile), nw positions from
 * q. Those rows lie a plane apart, a pattern the hardware prefetcher
 * does not follow, so each of their lines was a miss in the epilogue
 * where the operand is no longer in L2. Only for outputs (per group)
 * above DIRECT_PREFETCH_OPERANDS_BYTES: ResNet-50's 64 -> 256
 * projections with the residual add at 56x56 (3.2 MB), 1 thread,
 * --profile, 3 calls summed, alternated, 5 rounds: 1775-2150 -> 1610-1764
 * us (the same kernel without the add: ~1670). On MobileNet-v2's
 * projections (residuals of 75-300 KB, still in L2) it gained nothing
 * and cost up to 10% in one round; with row tiles outer (the next tile
 * is the next q tile of the same rows: streams the prefetcher follows)
 * nothing either. */
#define DIRECT_PREFETCH_OPERANDS_BYTES (1 << 20)
static void direct_prefetch_operands(rt_jit_lower_t *L, const direct_epi_t *e, int32_t rows, int64_t nw,
                                     LLVMValueRef i0, LLVMValueRef q) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef ni = LLVMBuildAdd(B, i0, rt_jit_i64(L, rows), "");
  LLVMValueRef wrap = LLVMBuildICmp(B, LLVMIntSGT, LLVMBuildAdd(B, ni, rt_jit_i64(L, rows), ""), rt_jit_i64(L, e->m), "");
  ni = LLVMBuildSelect(B, wrap, rt_jit_i64(L, 0), ni, "");
  q = LLVMBuildSelect(B, wrap, LLVMBuildAdd(B, q, rt_jit_i64(L, nw), ""), q, "");
  LLVMValueRef oy = LLVMBuildUDiv(B, q, rt_jit_i64(L, e->ow), ""), ox = LLVMBuildURem(B, q, rt_jit_i64(L, e->ow), "");
  for (int32_t r = 0; r < rows; ++r) {
    LLVMValueRef o = LLVMBuildAdd(B, e->obase, LLVMBuildAdd(B, ni, rt_jit_i64(L, r), ""), "");
    LLVMValueRef idx[4] = {e->n, o, oy, ox};
    rt_jit_tpl_vepi_prefetch(L, e->anchor, e->out, 2, 4, idx, nw);
  }
}

/* Tile (rows x nv vectors from row i0, position q0) through the
 * epilogue: acc holds its accumulators, c its place in the C block. */
static rt_status_t direct_tile_epi(rt_jit_lower_t *L, const direct_epi_t *e, int32_t rows, int32_t nv, int32_t vw,
                                   LLVMValueRef i0, LLVMValueRef q0, const LLVMValueRef *acc, LLVMValueRef c,
                                   int64_t qpad) {
  if (e->wq != e->ow) return direct_tile_rows(L, e, rows, nv, vw, i0, q0, acc);
  LLVMBuilderRef B = L->b;
  const int64_t nw = (int64_t)vw * nv;
  LLVMValueRef full = LLVMBuildICmp(B, LLVMIntSLE, LLVMBuildAdd(B, q0, rt_jit_i64(L, nw), ""), rt_jit_i64(L, e->qn), "");
  rt_jit_if_t fb;
  rt_jit_if_begin(L, full, &fb);
  if (e->pf_rows) {
    /* The output lines this tile's rows take in the next q tile, for
     * writing: written one q tile later (after every row tile has passed
     * over this one), they would each be a write-allocation from L3 or
     * memory on the critical path, the output's rows (a plane apart) being
     * as many short streams as the tile has rows, which the hardware
     * prefetcher does not follow. DenseNet-121's 96/128/160 -> 128 1x1
     * layers at 56x56 (1.6 MB outputs), 1 thread, --profile minima summed
     * over 3 alternated rounds: 716 -> 620, 870 -> 793 and 790 -> 769 us;
     * two q tiles ahead gained nothing more. */
    direct_prefetch_operands(L, e, rows, nw, i0, q0);
    direct_prefetch_out(L, e, rows, nw, i0, q0, nw);
  }
  for (int32_t v = 0; v < nv; ++v) {
    LLVMValueRef q = LLVMBuildAdd(B, q0, rt_jit_i64(L, (int64_t)v * vw), "");
    LLVMValueRef oy = LLVMBuildUDiv(B, q, rt_jit_i64(L, e->ow), ""), ox = LLVMBuildURem(B, q, rt_jit_i64(L, e->ow), "");
    for (int32_t r = 0; r < rows; ++r) {
      LLVMValueRef o = LLVMBuildAdd(B, e->obase, LLVMBuildAdd(B, i0, rt_jit_i64(L, r), ""), "");
      LLVMValueRef idx[4] = {e->n, o, oy, ox};
      RT_RETURN_IF_ERROR(rt_jit_tpl_vepi(L, e->anchor, e->out, e->data, 2, 4, idx, acc[r * nv + v]));
    }
  }
  rt_jit_if_else(L, &fb, NULL);
  LLVMValueRef ct = e->tailc ? e->tailc : c;
  const int64_t ldc = e->tailc ? nw : qpad;
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t v = 0; v < nv; ++v) {
      rt_jit_tpl_storev(L, acc[r * nv + v], ct, rt_jit_i64(L, r * ldc + (int64_t)v * vw));
    }
  }
  rt_jit_loop_t lr, lx;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, rows), 0, NULL, &lr);
  LLVMValueRef o = LLVMBuildAdd(B, e->obase, LLVMBuildAdd(B, i0, lr.iv, ""), "");
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), LLVMBuildSub(B, rt_jit_i64(L, e->qn), q0, ""), 0, NULL, &lx);
  LLVMValueRef q = LLVMBuildAdd(B, q0, lx.iv, "");
  LLVMValueRef idx[4] = {e->n, o, LLVMBuildUDiv(B, q, rt_jit_i64(L, e->ow), ""), LLVMBuildURem(B, q, rt_jit_i64(L, e->ow), "")};
  LLVMValueRef val = rt_jit_tpl_loadf(L, ct, LLVMBuildAdd(B, LLVMBuildMul(B, lr.iv, rt_jit_i64(L, ldc), ""), lx.iv, ""));
  RT_RETURN_IF_ERROR(rt_jit_tpl_epilogue(L, e->anchor, e->out, e->data, idx, val));
  rt_jit_loop_end(L, &lx, NULL);
  rt_jit_loop_end(L, &lr, NULL);
  (void)rt_jit_if_end(L, &fb, NULL);
  return RT_OK;
}

/* Where the phase images are copied one K block at a time (direct_block
 * copies its block's channels before its tiles read them). */
typedef struct direct_copy_t {
  const conv_ctx_t *cc;
  LLVMValueRef wsx, n, gi;
  int64_t hq, wq, taps; /* taps: kh*kw, K per input channel */
  int32_t vw;
} direct_copy_t;

/* One K block [k0, k0 + kk) of the task's tiles: per q tile (its kk x nw
 * B panel stays in L1) the full row tiles [t_lo, t_hi), then, where tail
 * is not NULL, the partial row tile mfull (mtail rows). Blocks after the
 * first add to the C tiles the earlier ones stored. With `epi` (the last
 * K block) the tiles go through the epilogue instead of being stored. q
 * tile j starts at column j*qstep; the tiles are nv vectors wide (nv*vw
 * <= qstep: the last tile of a row narrower than the others). */
static rt_status_t direct_block(rt_jit_lower_t *L, int32_t mr, int32_t mtail, int32_t nv, int32_t vw, int64_t qstep,
                                int64_t K,
                                LLVMValueRef k0, int64_t kk, LLVMValueRef t_lo, LLVMValueRef t_hi, LLVMValueRef tail,
                                int64_t mfull, LLVMValueRef q_lo, LLVMValueRef q_hi, LLVMValueRef abase,
                                LLVMValueRef xp, LLVMValueRef tab, int64_t bstride, LLVMValueRef wsc, int64_t qpad,
                                const direct_blocking_t *z, const direct_epi_t *epi, const direct_copy_t *cp) {
  LLVMBuilderRef B = L->b;
  const bool q_outer = z->q_outer;
  if (cp) {
    LLVMValueRef c0 = LLVMBuildUDiv(B, k0, rt_jit_i64(L, cp->taps), "");
    LLVMValueRef c1 = LLVMBuildUDiv(B, LLVMBuildAdd(B, k0, rt_jit_i64(L, kk), ""), rt_jit_i64(L, cp->taps), "");
    RT_RETURN_IF_ERROR(copy_phase_channels(L, cp->cc, cp->wsx, cp->n, cp->gi, cp->hq, cp->wq, cp->vw, c0, c1));
  }
  LLVMValueRef add = LLVMBuildICmp(B, LLVMIntSGT, k0, rt_jit_i64(L, 0), "");
  LLVMValueRef ktab = tab ? LLVMBuildGEP2(B, L->i32, tab, &k0, 1, "") : NULL;
  LLVMValueRef xk = tab ? xp : rt_jit_tpl_gep(L, xp, LLVMBuildMul(B, k0, rt_jit_i64(L, bstride), ""));
  rt_jit_loop_t lq, lt;
  LLVMValueRef q0 = NULL;
  if (q_outer) {
    rt_jit_loop_begin(L, q_lo, q_hi, 0, NULL, &lq);
    q0 = LLVMBuildMul(B, lq.iv, rt_jit_i64(L, qstep), "");
  }
  for (int32_t part = 0; part < 2; ++part) {
    const int32_t rows = part == 0 ? mr : mtail;
    rt_jit_if_t tl;
    LLVMValueRef i0;
    if (part == 0) {
      rt_jit_loop_begin(L, t_lo, t_hi, 0, NULL, &lt);
      i0 = LLVMBuildMul(B, lt.iv, rt_jit_i64(L, mr), "");
    } else {
      if (!tail || mtail == 0) break;
      rt_jit_if_begin(L, tail, &tl);
      i0 = rt_jit_i64(L, mfull * mr);
    }
    LLVMValueRef arow[RT_JIT_TPL_MAX_MR];
    for (int32_t r = 0; r < rows; ++r) {
      LLVMValueRef row = LLVMBuildAdd(B, i0, rt_jit_i64(L, r), "");
      arow[r] = rt_jit_tpl_gep(L, abase, LLVMBuildAdd(B, LLVMBuildMul(B, row, rt_jit_i64(L, K), ""), k0, ""));
    }
    if (!q_outer && kk < K) {
      /* K blocks: this tile's weight rows of the next block (kk taps each,
       * a short run per row that the hardware prefetcher misses; the
       * weight comes from memory on every run of a model) are fetched
       * while its q tiles run on this block (resnet50's 128@56 stride-2
       * 3x3 layer: 13 blocks of 89 taps). Past K they are the next rows',
       * harmless. */
      for (int32_t r = 0; r < rows; ++r) {
        for (int64_t l = 0; l < (kk * 4 + 63) / 64 + 1; ++l) {
          rt_jit_tpl_prefetch_stream(L, rt_jit_tpl_gep(L, arow[r], rt_jit_i64(L, kk + 16 * l)));
        }
      }
    }
    /* One K block, row tiles outer: the next row tile's weight rows (mr
     * x K floats, contiguous) are fetched while this tile's q tiles run,
     * an equal share of their lines in each q tile. They come from memory
     * on every run of a model, as mr short streams the hardware
     * prefetcher picks up only after their first misses. */
    LLVMValueRef per = NULL, nextw = NULL;
    const int64_t nl = ((int64_t)mr * K * 4 + 63) / 64;
    if (!q_outer && kk == K && part == 0) {
      LLVMValueRef nq = rt_jit_max(L, LLVMBuildSub(B, q_hi, q_lo, ""), rt_jit_i64(L, 1));
      per = LLVMBuildUDiv(B, LLVMBuildAdd(B, rt_jit_i64(L, nl - 1), nq, ""), nq, "");
      nextw = rt_jit_tpl_gep(L, abase, LLVMBuildMul(B, LLVMBuildAdd(B, i0, rt_jit_i64(L, mr), ""), rt_jit_i64(L, K), ""));
    }
    if (!q_outer) {
      rt_jit_loop_begin(L, q_lo, q_hi, 0, NULL, &lq);
      q0 = LLVMBuildMul(B, lq.iv, rt_jit_i64(L, qstep), "");
    }
    if (per) {
      LLVMValueRef l_lo = LLVMBuildMul(B, LLVMBuildSub(B, lq.iv, q_lo, ""), per, "");
      LLVMValueRef l_hi = rt_jit_min(L, LLVMBuildAdd(B, l_lo, per, ""), rt_jit_i64(L, nl));
      rt_jit_loop_t lpf;
      rt_jit_loop_begin(L, l_lo, l_hi, 0, NULL, &lpf);
      rt_jit_tpl_prefetch_stream(L, rt_jit_tpl_gep(L, nextw, LLVMBuildMul(B, lpf.iv, rt_jit_i64(L, 16), "")));
      rt_jit_loop_end(L, &lpf, NULL);
    }
    if (z->pf_q && tab && part == 0) {
      /* Row tile j of n prefetches rows [j*per, (j+1)*per) of the next q
       * tile's B panel (its first lines and its last), through the tap
       * table as the micro-kernel reads them. */
      LLVMValueRef nt = rt_jit_max(L, LLVMBuildSub(B, t_hi, t_lo, ""), rt_jit_i64(L, 1));
      LLVMValueRef kper = LLVMBuildUDiv(B, LLVMBuildAdd(B, rt_jit_i64(L, kk - 1), nt, ""), nt, "");
      LLVMValueRef k_lo = LLVMBuildMul(B, LLVMBuildSub(B, lt.iv, t_lo, ""), kper, "");
      LLVMValueRef k_hi = rt_jit_min(L, LLVMBuildAdd(B, k_lo, kper, ""), rt_jit_i64(L, kk));
      LLVMValueRef nb = rt_jit_tpl_gep(L, xk, LLVMBuildAdd(B, q0, rt_jit_i64(L, qstep), ""));
      rt_jit_loop_t lpf;
      rt_jit_loop_begin(L, k_lo, k_hi, 0, NULL, &lpf);
      LLVMValueRef at = LLVMBuildGEP2(B, L->i32, ktab, &lpf.iv, 1, "");
      LLVMValueRef o = LLVMBuildLoad2(B, L->i32, at, "");
      LLVMSetAlignment(o, 4);
      LLVMValueRef row = rt_jit_tpl_gep(L, nb, LLVMBuildSExt(B, o, L->i64, ""));
      for (int64_t f = 0; f < qstep; f += 16) rt_jit_tpl_prefetch(L, rt_jit_tpl_gep(L, row, rt_jit_i64(L, f)), false);
      if (qstep % 16 != 0) rt_jit_tpl_prefetch(L, rt_jit_tpl_gep(L, row, rt_jit_i64(L, qstep - 1)), false);
      rt_jit_loop_end(L, &lpf, NULL);
    }
    LLVMValueRef c = rt_jit_tpl_gep(L, wsc, LLVMBuildAdd(B, LLVMBuildMul(B, i0, rt_jit_i64(L, qpad), ""), q0, ""));
    if (epi) {
      LLVMValueRef acc[RT_JIT_MAX_CARRY];
      rt_jit_tpl_micro_regs(L, rows, nv, vw, kk, arow, rt_jit_tpl_gep(L, xk, q0), ktab, bstride, c, qpad, add, acc);
      RT_RETURN_IF_ERROR(direct_tile_epi(L, epi, rows, nv, vw, i0, q0, acc, c, qpad));
    } else {
      rt_jit_tpl_micro_acc(L, rows, nv, vw, kk, arow, rt_jit_tpl_gep(L, xk, q0), ktab, bstride, c, qpad, add);
    }
    if (!q_outer) rt_jit_loop_end(L, &lq, NULL);
    if (part == 0) {
      rt_jit_loop_end(L, &lt, NULL);
    } else {
      rt_jit_if_else(L, &tl, NULL);
      (void)rt_jit_if_end(L, &tl, NULL);
    }
  }
  if (q_outer) rt_jit_loop_end(L, &lq, NULL);
  return RT_OK;
}

/* The task's tiles over all of K, in blocks of kc (the last one shorter);
 * with epi, the last block through the epilogue. */
static rt_status_t direct_tiles(rt_jit_lower_t *L, int32_t mr, int32_t mtail, int32_t nv, int32_t vw, int64_t qstep,
                                int64_t K,
                                int64_t kc, LLVMValueRef t_lo, LLVMValueRef t_hi, LLVMValueRef tail, int64_t mfull,
                                LLVMValueRef q_lo, LLVMValueRef q_hi, LLVMValueRef abase, LLVMValueRef xp,
                                LLVMValueRef tab, int64_t bstride, LLVMValueRef wsc, int64_t qpad,
                                const direct_blocking_t *z, const direct_epi_t *epi, const direct_copy_t *cp) {
  const int64_t nfull = K / kc, krem = K % kc;
  /* Full blocks stored by the loop: all of them, or all but the last one
   * when that one takes the epilogue. */
  const int64_t nloop = epi && !krem ? nfull - 1 : nfull;
  if (nloop == 1) {
    RT_RETURN_IF_ERROR(direct_block(L, mr, mtail, nv, vw, qstep, K, rt_jit_i64(L, 0), kc, t_lo, t_hi, tail, mfull, q_lo,
                                    q_hi, abase, xp, tab, bstride, wsc, qpad, z, NULL, cp));
  } else if (nloop > 1) {
    rt_jit_loop_t lk;
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, nloop), 0, NULL, &lk);
    RT_RETURN_IF_ERROR(direct_block(L, mr, mtail, nv, vw, qstep, K, LLVMBuildMul(L->b, lk.iv, rt_jit_i64(L, kc), ""), kc,
                                    t_lo, t_hi, tail, mfull, q_lo, q_hi, abase, xp, tab, bstride, wsc, qpad, z,
                                    NULL, cp));
    rt_jit_loop_end(L, &lk, NULL);
  }
  if (nloop < nfull) {
    RT_RETURN_IF_ERROR(direct_block(L, mr, mtail, nv, vw, qstep, K, rt_jit_i64(L, nloop * kc), kc, t_lo, t_hi, tail, mfull,
                                    q_lo, q_hi, abase, xp, tab, bstride, wsc, qpad, z, epi, cp));
  }
  if (krem) {
    RT_RETURN_IF_ERROR(direct_block(L, mr, mtail, nv, vw, qstep, K, rt_jit_i64(L, nfull * kc), krem, t_lo, t_hi, tail,
                                    mfull, q_lo, q_hi, abase, xp, tab, bstride, wsc, qpad, z, epi, cp));
  }
  return RT_OK;
}

/* Output channels from which conv_direct copies a misaligned input in
 * place to aligned rows (16 lanes; `realign`). */
#define REALIGN_MIN_M 64

/* conv_direct's realigned B: columns [q_lo*nw, min(q_hi*nw, qn)) of the
 * K rows of x (hqwq floats apart) to the rows of dst (qpad floats apart,
 * dst 64-byte aligned), as vectors where whole, and zeros in [qn, qpad)
 * (the last q tile's columns past the image). */
static void copy_realigned(rt_jit_lower_t *L, LLVMValueRef x, LLVMValueRef dst, int64_t K, int64_t hqwq, int64_t qn,
                           int64_t qpad, int64_t nw, int32_t vw, LLVMValueRef q_lo, LLVMValueRef q_hi) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef qs = LLVMBuildMul(B, q_lo, rt_jit_i64(L, nw), "");
  LLVMValueRef qe = rt_jit_min(L, LLVMBuildMul(B, q_hi, rt_jit_i64(L, nw), ""), rt_jit_i64(L, qn));
  LLVMValueRef nvec = LLVMBuildSDiv(B, rt_jit_max(L, LLVMBuildSub(B, qe, qs, ""), rt_jit_i64(L, 0)), rt_jit_i64(L, vw), "");
  LLVMValueRef qv = LLVMBuildAdd(B, qs, LLVMBuildMul(B, nvec, rt_jit_i64(L, vw), ""), "");
  rt_jit_loop_t lk, lv, lx;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, K), 0, NULL, &lk);
  LLVMValueRef src = rt_jit_tpl_gep(L, x, LLVMBuildMul(B, lk.iv, rt_jit_i64(L, hqwq), ""));
  LLVMValueRef row = rt_jit_tpl_gep(L, dst, LLVMBuildMul(B, lk.iv, rt_jit_i64(L, qpad), ""));
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), nvec, 0, NULL, &lv);
  LLVMValueRef j = LLVMBuildAdd(B, qs, LLVMBuildMul(B, lv.iv, rt_jit_i64(L, vw), ""), "");
  rt_jit_tpl_storev(L, rt_jit_tpl_loadv(L, src, j, vw), row, j);
  rt_jit_loop_end(L, &lv, NULL);
  rt_jit_loop_begin(L, qv, qe, 0, NULL, &lx);
  rt_jit_tpl_storef(L, rt_jit_tpl_loadf(L, src, lx.iv), row, lx.iv);
  rt_jit_loop_end(L, &lx, NULL);
  zero_run(L, row, qn, qpad);
  rt_jit_loop_end(L, &lk, NULL);
}

static rt_status_t direct_epilogue(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_ir_expr_t *out,
                                   LLVMValueRef data, const rt_jit_conv2d_t *c, int64_t M, int32_t mr, int64_t wq,
                                   int64_t qn, int64_t nw, int64_t qpad, LLVMValueRef t_lo, LLVMValueRef t_hi,
                                   LLVMValueRef q_lo, LLVMValueRef q_hi, LLVMValueRef n, LLVMValueRef gi,
                                   LLVMValueRef wsc, bool vepi);

static rt_status_t conv_direct(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const conv_ctx_t *cc,
                               const rt_ir_expr_t *out, LLVMValueRef data, LLVMValueRef task,
                               LLVMValueRef ntasks) {
  const rt_jit_conv2d_t *c = &cc->c;
  LLVMBuilderRef B = L->b;
  const int64_t hp = c->h + c->pt + c->pb, wp = c->w + c->pl + c->pr;
  /* Phase images of the padded input: sh*sw per channel, hq x wq each. */
  const int64_t hq = (hp + c->sh - 1) / c->sh, wq = (wp + c->sw - 1) / c->sw;
  const int64_t nph = c->cg * c->sh * c->sw, hqwq = hq * wq;
  const int64_t K = c->cg * c->kh * c->kw, M = c->og;
  const int32_t mr = p->mr, nv = p->nv, vw = p->vw;
  const int64_t nw = (int64_t)vw * nv, qn = (c->oh - 1) * wq + c->ow, qt = (qn + nw - 1) / nw, qpad = qt * nw;
  const int64_t mt = (M + mr - 1) / mr, mfull = M / mr;
  const int32_t mtail = (int32_t)(M % mr);
  const int64_t nbg = c->n * c->g;
  int64_t offmax;
  LLVMValueRef tab = offset_table(L, c, hq, wq, &offmax);
  if (!tab) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (tap table)");
  int64_t xsize = offmax + qpad + vw;
  if (xsize < nph * hqwq) xsize = nph * hqwq;
  /* A 1x1 kernel at stride 1 without padding on an input in memory: its
   * phase image is the input itself, so B is read in place (tap k of
   * position q at k*H*W + q) for the q tiles inside the image; only the
   * last, partial tile (whose reads would run past the input's end) is
   * copied, zero-filled, to a K x nw block read with row stride nw. */
  const bool inplace = c->kh == 1 && c->kw == 1 && c->sh == 1 && c->sw == 1 && c->pt == 0 && c->pl == 0 &&
                       c->pb == 0 && c->pr == 0 && rt_jit_tpl_raw(L, cc->x);
  /* Read in place, planes of H*W floats not a multiple of 16 (13x13,
   * 14x14, 27x27, 55x55) put most rows of B off the 64-byte alignment, so
   * that on 16 lanes nearly every vector load of the micro-kernel spans
   * two cache lines. With 128 or more output channels (a B element is
   * loaded once per row tile, 11+ times) such an input is copied
   * instead: the task's q range of every channel to a K x qpad block of
   * workspace (rows aligned, zeros past the last pixel), read with row
   * stride qpad. An AVX-512 Xeon, 1 thread, --profile minima summed over
   * 3-4 alternated rounds: SqueezeNet-1.1's 512 -> 1000 classifier at
   * 13x13 1023 -> 918 us, ResNet-50's six 256 -> 1024 at 14x14 4229 ->
   * 3862, MobileNet-v2's 96 -> 576 and 64 -> 384 at 14x14 4% faster,
   * DenseNet-121's 14x14 layers (-> 128) 2%; squeezenet1_1 0.978 of its
   * kernels' time, resnet50 0.989, mobilenet_v2 0.990, efficientnet_b0
   * within noise. With fewer output channels the copy cost more than it
   * saved (SqueezeNet's 128 -> 16 at 55x55 99 -> 203 us, 128 -> 32 at
   * 27x27 39 -> 51); on 8 lanes (a misaligned vector of 32 bytes splits
   * half the time) the classifier gained 2% and its 32 -> 128 at 27x27
   * lost 11%, so the 8-lane templates read in place. From 64 output
   * channels (128 before) for two threads: split by output channels,
   * each task reads all of B, half of it written by the other core's
   * producer, and the copy reads those lines as K long sequential runs
   * where the micro-kernel read them as short strided ones. Three of
   * MobileNet-v2's 14x14 blocks (96 -> 576, depthwise, 576 -> 96 + the
   * residual), 2 threads, medians of 1000 runs, 3 alternated rounds:
   * 0.716 -> 0.630 ms (the projections 130 -> 107 us in mobilenet_v2);
   * 1 thread within noise (1.005 / 1.012). Whole models, 2 / 1 threads:
   * mobilenet_v2 3.437 / 5.190 -> 3.367 / 5.204 ms, squeezenet1_1 2.585 /
   * 4.393 -> 2.552 / 4.341, efficientnet_b0 5.065 / 8.565 -> 4.957 /
   * 8.276. Copying for any M lost (squeezenet1_1 1 thread 4.27 -> 4.49);
   * on 8 lanes M >= 64 was neutral (mobilenet_v2 4.472 / 4.473 ms). */
  const bool realign = inplace && vw == 16 && hqwq % 16 != 0 && M >= REALIGN_MIN_M;
  const int64_t qfull = inplace && !realign ? qn / nw : 0;
  if (inplace) xsize = realign ? K * qpad : K * nw;
  /* Split: (image, group) pairs; else q tiles for a 1x1 kernel with
   * enough q tiles to share evenly (8); else output-channel tiles, else q
   * tiles. Split by output channels, a 1x1 kernel reads all of its input
   * on every core, so the next run's producer writes each of those lines
   * while another core holds it, the costly case of bench/cross_core
   * (docs/executors.md, "What two threads pay for shared lines"); split by
   * pixels, each core reads the pixels that the kernel before (a
   * projection or reduction split the same way, a Winograd or fused
   * depthwise kernel split by rows) wrote on it, writes the pixels that
   * the next one reads there, and only the weight is read on both. Two
   * threads, that VM's costly placement (7 GB/s), alternated: first for
   * the kernels that read at least 4x the channels they write
   * (projections, squeezes, reductions): mobilenet_v2 3.82-3.88 ->
   * 3.67-3.74 ms, squeezenet1_1 2.89-2.91 -> 2.72-2.86, efficientnet_b0
   * 5.26-5.52 -> 5.11-5.30; then for the expands too: mobilenet_v2
   * 3.19-3.22 -> 3.07-3.14, resnet50 21.6-22.1 -> 21.4-21.5,
   * efficientnet_b0 4.50-4.73 -> 4.40-4.64, densenet121 19.2-21.9 ->
   * 17.8-21.1, squeezenet1_1 within noise (2.48-2.66 -> 2.40-2.67, one
   * round 3.02). At 14x14 (7 q tiles of 32) the channel split stays: a
   * chain of MobileNet's 14x14 blocks split by pixels ran 0.43 ms against
   * 0.34. */
  LLVMValueRef b_lo = rt_jit_i64(L, 0), b_hi = rt_jit_i64(L, nbg);
  LLVMValueRef t_lo = rt_jit_i64(L, 0), t_hi = rt_jit_i64(L, mt);
  LLVMValueRef q_lo = rt_jit_i64(L, 0), q_hi = rt_jit_i64(L, qt);
  const bool by_pixels = c->kh == 1 && c->kw == 1 && qt >= 8;
  if (nbg >= 4) {
    rt_jit_tpl_split(L, nbg, task, ntasks, &b_lo, &b_hi);
  } else if (by_pixels) {
    rt_jit_tpl_split(L, qt, task, ntasks, &q_lo, &q_hi);
  } else if (mt >= 4) {
    rt_jit_tpl_split(L, mt, task, ntasks, &t_lo, &t_hi);
  } else {
    rt_jit_tpl_split(L, qt, task, ntasks, &q_lo, &q_hi);
  }
  const bool wraw = rt_jit_tpl_raw(L, cc->w);
  direct_blocking_t z = direct_blocking(M, K, (inplace ? K * hqwq : xsize) * 4, L->target->l2_bytes, vw);
  /* Split by pixels, a task reads only its q tiles' share of B: where
   * two tasks' halves get fewer K blocks than the whole (a B over L2
   * whose half fits: one K block, the epilogue on the registers, instead
   * of K blocks adding to a C block), a task whose range is at most half
   * the q tiles takes that blocking (`zs`, a run-time branch: the kernel
   * does not know its thread count); one thread keeps the whole's.
   * ResNet-50's 512 -> 128 and 512 -> 256 at 28x28 (B 1.6 MB, 8 K blocks
   * of 64), DenseNet-121's 352-480 -> 128 at 28x28. An AVX-512 Xeon with
   * 2 MiB L2, 2 threads: ResNet-50's four kernels 2034-2064 -> 1746-1884
   * us (--profile means summed, 3 alternated rounds), resnet50 27.59 ->
   * 26.83 ms (3 rounds against the previous commit); densenet121 within
   * noise. Halves that change only the loop order (q tiles outer for a
   * small weight, rows outer for half a B) are left as they are:
   * MobileNet-v2's few-channel projections, not measured to gain. */
  direct_blocking_t zs = z;
  LLVMValueRef use_zs = NULL;
  if (inplace && by_pixels && nbg < 4) {
    const int64_t share = (qt + 1) / 2;
    zs = direct_blocking(M, K, K * share * nw * 4, L->target->l2_bytes, vw);
    if (zs.kc != z.kc) {
      use_zs = LLVMBuildICmp(B, LLVMIntSLE, LLVMBuildSub(B, q_hi, q_lo, ""), rt_jit_i64(L, share), "");
    }
  }
  /* The epilogue on the registers where q is the output's pixel index,
   * or, for tail ops constant over the pixels, where a vector of q spans
   * at most two output rows (direct_tile_rows). */
  const bool vepi = wq == c->ow ? rt_jit_tpl_vepi_ok(L, p->anchor, out, 2, 4)
                                : c->ow >= vw && rt_jit_tpl_vepi_uniform_ok(L, p->anchor, out, 2, 4);
  /* Else the C block's rows go through it vw output columns at a time. */
  const bool vepi_rows = !vepi && rt_jit_tpl_vepi_ok(L, p->anchor, out, 3, 4);
  /* C: the whole M x qpad block where it is read after the tiles (or K
   * blocks add to it), else one tile for a partial one's epilogue. */
  const bool cblock = !vepi || z.kc < K || zs.kc < K;
  LLVMValueRef wsx = rt_jit_tpl_ws_alloc(L, xsize * 4);
  LLVMValueRef wsc = rt_jit_tpl_ws_alloc(L, (cblock ? M * qpad : (int64_t)mr * nw) * 4);
  LLVMValueRef wsw = wraw ? LLVMConstNull(L->ptr) : rt_jit_tpl_ws_alloc(L, c->o * K * 4);
  LLVMValueRef ok = LLVMBuildAnd(B, LLVMBuildIsNotNull(B, wsx, ""), LLVMBuildIsNotNull(B, wsc, ""), "");
  if (!wraw) ok = LLVMBuildAnd(B, ok, LLVMBuildIsNotNull(B, wsw, ""), "");
  rt_jit_if_t have;
  rt_jit_if_begin(L, ok, &have);
  LLVMValueRef wbase = wraw ? rt_jit_node(L, cc->w)->data : wsw;
  if (!wraw) {
    rt_jit_loop_t lo, lk;
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, c->o), 0, NULL, &lo);
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, K), 0, NULL, &lk);
    LLVMValueRef v;
    RT_RETURN_IF_ERROR(w_at(L, cc, lo.iv, lk.iv, &v));
    rt_jit_tpl_storef(L, v, wsw, LLVMBuildAdd(B, LLVMBuildMul(B, lo.iv, rt_jit_i64(L, K), ""), lk.iv, ""));
    rt_jit_loop_end(L, &lk, NULL);
    rt_jit_loop_end(L, &lo, NULL);
  }
  rt_jit_loop_t lb;
  rt_jit_loop_begin(L, b_lo, b_hi, 0, NULL, &lb);
  LLVMValueRef n = LLVMBuildUDiv(B, lb.iv, rt_jit_i64(L, c->g), "");
  LLVMValueRef gi = LLVMBuildURem(B, lb.iv, rt_jit_i64(L, c->g), "");
  LLVMValueRef abase = rt_jit_tpl_gep(L, wbase, LLVMBuildMul(B, gi, rt_jit_i64(L, M * K), ""));
  /* The q ranges: [qa_lo, qa_hi) from xa with the tap table, then (in
   * place) [qb_lo, qb_hi), the partial tile, from the block at wsx. */
  LLVMValueRef xa = wsx, qa_lo = q_lo, qa_hi = q_hi, qb_lo = NULL, qb_hi = NULL, xb = NULL;
  /* B's steps: through the tap table, or (realigned) rows xstride apart. */
  LLVMValueRef xtab = tab;
  int64_t xstride = 0;
  int64_t kc = z.kc;
  const int64_t taps = c->kh * c->kw;
  /* With K blocks, each block's channels are copied to their phase
   * images right before its tiles read them (direct_copy_t), so the
   * block's share of B is in L2 (the copy of all of them up front left
   * the first blocks' images in L3 by the time they ran); the blocks
   * are then whole input channels. ResNet-50's 128@56 stride-2 3x3 in
   * the model, 1 thread (--profile, alternated, 3 rounds): 1483-1514 ->
   * 1374-1382 us; its 256@28 one 1454-1480 -> 1436-1477. */
  const bool bcopy = !inplace && kc < K;
  const direct_copy_t dcopy = {.cc = cc, .wsx = wsx, .n = n, .gi = gi, .hq = hq, .wq = wq, .taps = taps, .vw = vw};
  if (bcopy) {
    int64_t cpb = (kc + taps / 2) / taps;
    if (cpb < 1) cpb = 1;
    const int64_t nkb = (c->cg + cpb - 1) / cpb;
    kc = (c->cg + nkb - 1) / nkb * taps;
    zero_run(L, wsx, nph * hqwq, xsize);
  } else if (!inplace) {
    RT_RETURN_IF_ERROR(copy_phases_v(L, cc, wsx, n, gi, hq, wq, xsize, vw));
  } else {
    LLVMValueRef xoff = LLVMBuildMul(B, LLVMBuildAdd(B, LLVMBuildMul(B, c->n == 1 ? rt_jit_i64(L, 0) : n, rt_jit_i64(L, c->c), ""),
                                                     LLVMBuildMul(B, gi, rt_jit_i64(L, c->cg), ""), ""),
                                     rt_jit_i64(L, hqwq), "");
    xa = rt_jit_tpl_gep(L, rt_jit_node(L, cc->x)->data, xoff);
    if (realign) {
      copy_realigned(L, xa, wsx, K, hqwq, qn, qpad, nw, vw, q_lo, q_hi);
      xa = wsx;
      xtab = NULL;
      xstride = qpad;
    }
  }
  if (inplace && !realign) {
    qa_hi = rt_jit_min(L, q_hi, rt_jit_i64(L, qfull));
    if (qfull < qt) {
      qb_lo = rt_jit_max(L, q_lo, rt_jit_i64(L, qfull));
      qb_hi = q_hi;
      xb = rt_jit_tpl_gep(L, wsx, rt_jit_i64(L, -qfull * nw));
      rt_jit_if_t need;
      rt_jit_if_begin(L, LLVMBuildICmp(B, LLVMIntSLT, qb_lo, qb_hi, ""), &need);
      rt_jit_loop_t lk, lj;
      rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, K), 0, NULL, &lk);
      LLVMValueRef src = rt_jit_tpl_gep(L, xa, LLVMBuildAdd(B, LLVMBuildMul(B, lk.iv, rt_jit_i64(L, hqwq), ""),
                                                        rt_jit_i64(L, qfull * nw), ""));
      LLVMValueRef dst = rt_jit_tpl_gep(L, wsx, LLVMBuildMul(B, lk.iv, rt_jit_i64(L, nw), ""));
      rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, qn - qfull * nw), 0, NULL, &lj);
      rt_jit_tpl_storef(L, rt_jit_tpl_loadf(L, src, lj.iv), dst, lj.iv);
      rt_jit_loop_end(L, &lj, NULL);
      zero_run(L, dst, qn - qfull * nw, nw);
      rt_jit_loop_end(L, &lk, NULL);
      rt_jit_if_else(L, &need, NULL);
      (void)rt_jit_if_end(L, &need, NULL);
    }
  }
  /* With q tiles outer, a q tile's B panel (K rows of nw floats, H*W
   * apart where B is the input read in place) comes from L3 or memory as
   * K short streams the hardware prefetcher does not follow, and the
   * first row tile waits for them: each row tile prefetches its share of
   * the next q tile's rows. On 8 lanes (an AVX2 Zen 3 host, 1 thread,
   * `bench_kernels 9 pw_`, best of 9, 4 alternated runs each): the best
   * run of 7 of the 8 direct layers rose (ResNet-50's 64->256 @56 0.68 ->
   * 0.91 of the FMA peak, 256->64 0.79 -> 0.86, 256->128 0.73 -> 0.80,
   * 64->64 0.81 -> 0.89, MobileNet's 16->96 @112 0.56 -> 0.65; 144->24
   * 0.88 -> 0.83); in the models (--profile, ABBA, summed per-kernel
   * minima of the direct 1x1 kernels) resnet50 29.0 -> 28.0 ms over 4
   * rounds, mobilenet_v2 3.09 -> 3.06 ms over 6 (their means 4.52 ->
   * 4.22). On 16 lanes (an AVX-512 Xeon, 2 MiB L2, 1 thread, alternated):
   * DenseNet-121's 1x1 layers at 56x56 of 192-256 input channels
   * 1286-1783 -> 1036-1447 us (--profile means, 3 rounds), densenet121
   * 0.949 of its time (6 of 6 rounds), resnet50, mobilenet_v2 and 2
   * threads within noise. */
  /* The tiles under z, or under zs where this task's share takes it. */
  rt_jit_if_t which;
  for (int32_t variant = use_zs ? 0 : 1; variant < 2; ++variant) {
    if (use_zs && variant == 0) rt_jit_if_begin(L, use_zs, &which);
    if (use_zs && variant == 1) rt_jit_if_else(L, &which, NULL);
    direct_blocking_t zz = variant == 0 ? zs : z;
    const int64_t kz = variant == 0 ? zs.kc : kc;
    const bool q_outer = zz.q_outer;
    zz.pf_q = q_outer;
    const direct_copy_t *cp = bcopy ? &dcopy : NULL;
    LLVMValueRef t_full = rt_jit_min(L, t_hi, rt_jit_i64(L, mfull));
    LLVMValueRef tail = mtail ? LLVMBuildICmp(B, LLVMIntSGT, t_hi, rt_jit_i64(L, mfull), "") : NULL;
    const direct_epi_t epi = {.anchor = p->anchor, .out = out, .data = data, .n = n,
                              .obase = LLVMBuildMul(B, gi, rt_jit_i64(L, M), ""), .qn = qn, .ow = c->ow,
                              .tailc = cblock ? NULL : wsc, .wq = wq, .oh = c->oh, .o = c->o,
                              .pf = K <= DIRECT_PREFETCH_OUT_K ? 2 * nw : 0,
                              .pf_rows = q_outer && M * c->oh * c->ow * 4 > DIRECT_PREFETCH_OPERANDS_BYTES,
                              .m = M};
    /* The last q tile, where its valid columns fit fewer vectors, is that
     * many wide (13x13: 169 = 5*32 + 9 columns computed as 5*32 + 16 where
     * 6*32 were; 28x28: 24*32 + 16). */
    const int32_t nv_last = (int32_t)((qn - (qt - 1) * nw + vw - 1) / vw);
    const bool narrow = nv_last < nv;
    const direct_epi_t *ep = vepi ? &epi : NULL;
    if (!narrow || xb) {
      RT_RETURN_IF_ERROR(direct_tiles(L, mr, mtail, nv, vw, nw, K, kz, t_lo, t_full, tail, mfull, qa_lo, qa_hi, abase,
                                      xa, xtab, xstride, wsc, qpad, &zz, ep, cp));
    } else {
      LLVMValueRef last = rt_jit_i64(L, qt - 1);
      RT_RETURN_IF_ERROR(direct_tiles(L, mr, mtail, nv, vw, nw, K, kz, t_lo, t_full, tail, mfull, qa_lo,
                                      rt_jit_min(L, qa_hi, last), abase, xa, xtab, xstride, wsc, qpad, &zz, ep, cp));
      RT_RETURN_IF_ERROR(direct_tiles(L, mr, mtail, nv_last, vw, nw, K, kz, t_lo, t_full, tail, mfull,
                                      rt_jit_max(L, qa_lo, last), qa_hi, abase, xa, xtab, xstride, wsc, qpad, &zz, ep,
                                      NULL));
    }
    if (xb) {
      /* In place, the partial tile is the last one, alone in this range. */
      RT_RETURN_IF_ERROR(direct_tiles(L, mr, mtail, narrow ? nv_last : nv, vw, nw, K, kz, t_lo, t_full, tail, mfull,
                                      qb_lo, qb_hi, abase, xb, NULL, nw, wsc, qpad, &zz, ep, NULL));
    }
  }
  if (use_zs) (void)rt_jit_if_end(L, &which, NULL);
  if (!vepi) {
    RT_RETURN_IF_ERROR(direct_epilogue(L, p, out, data, c, M, mr, wq, qn, nw, qpad, t_lo, t_hi, q_lo, q_hi, n, gi,
                                       wsc, vepi_rows));
  }
  rt_jit_loop_end(L, &lb, NULL);
  rt_jit_if_else(L, &have, NULL);
  rt_jit_flag_error(L, LLVMConstInt(L->i1, 1, 0), "out of workspace memory (conv2d template)");
  (void)rt_jit_if_end(L, &have, NULL);
  rt_jit_tpl_ws_free(L, wsw);
  rt_jit_tpl_ws_free(L, wsc);
  rt_jit_tpl_ws_free(L, wsx);
  return RT_OK;
}

/* The epilogue after the tiles: rows of the task's channel tiles,
 * positions of its q range, from the C block; with vepi (the tail ops are
 * ones epilogue.c takes with output columns in the lanes) each output row
 * vw columns at a time as vectors, its last (fewer than vw) columns by
 * element, so the kernel needs no loop vectorizer (session.c's pipelines). */
static rt_status_t direct_epilogue(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_ir_expr_t *out,
                                   LLVMValueRef data, const rt_jit_conv2d_t *c, int64_t M, int32_t mr, int64_t wq,
                                   int64_t qn, int64_t nw, int64_t qpad, LLVMValueRef t_lo, LLVMValueRef t_hi,
                                   LLVMValueRef q_lo, LLVMValueRef q_hi, LLVMValueRef n, LLVMValueRef gi,
                                   LLVMValueRef wsc, bool vepi) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef row_lo = LLVMBuildMul(B, t_lo, rt_jit_i64(L, mr), "");
  LLVMValueRef row_hi = rt_jit_min(L, LLVMBuildMul(B, t_hi, rt_jit_i64(L, mr), ""), rt_jit_i64(L, M));
  LLVMValueRef qa = LLVMBuildMul(B, q_lo, rt_jit_i64(L, nw), "");
  LLVMValueRef qb = rt_jit_min(L, LLVMBuildMul(B, q_hi, rt_jit_i64(L, nw), ""), rt_jit_i64(L, qn));
  rt_jit_loop_t eo, ey, ex;
  rt_jit_loop_begin(L, row_lo, row_hi, 0, NULL, &eo);
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, c->oh), 0, NULL, &ey);
  LLVMValueRef rowq = LLVMBuildMul(B, ey.iv, rt_jit_i64(L, wq), "");
  LLVMValueRef x_lo = rt_jit_min(L, rt_jit_max(L, LLVMBuildSub(B, qa, rowq, ""), rt_jit_i64(L, 0)), rt_jit_i64(L, c->ow));
  LLVMValueRef x_hi = rt_jit_min(L, rt_jit_max(L, LLVMBuildSub(B, qb, rowq, ""), rt_jit_i64(L, 0)), rt_jit_i64(L, c->ow));
  LLVMValueRef crow = LLVMBuildAdd(B, LLVMBuildMul(B, eo.iv, rt_jit_i64(L, qpad), ""), rowq, "");
  LLVMValueRef o = LLVMBuildAdd(B, LLVMBuildMul(B, gi, rt_jit_i64(L, M), ""), eo.iv, "");
  LLVMValueRef x_v = x_lo; /* where the element loop starts */
  if (vepi) {
    /* vw columns at a time through the vector epilogue, the rest (fewer
     * than vw) by element. */
    const int32_t vw = p->vw;
    LLVMValueRef nvec = LLVMBuildSDiv(B, LLVMBuildSub(B, x_hi, x_lo, ""), rt_jit_i64(L, vw), "");
    rt_jit_loop_t lv;
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), nvec, 0, NULL, &lv);
    LLVMValueRef x = LLVMBuildAdd(B, x_lo, LLVMBuildMul(B, lv.iv, rt_jit_i64(L, vw), ""), "");
    LLVMValueRef vidx[4] = {n, o, ey.iv, x};
    LLVMValueRef v = rt_jit_tpl_loadv(L, wsc, LLVMBuildAdd(B, crow, x, ""), vw);
    RT_RETURN_IF_ERROR(rt_jit_tpl_vepi(L, p->anchor, out, data, 3, 4, vidx, v));
    rt_jit_loop_end(L, &lv, NULL);
    x_v = LLVMBuildAdd(B, x_lo, LLVMBuildMul(B, nvec, rt_jit_i64(L, vw), ""), "");
  }
  rt_jit_loop_begin(L, x_v, x_hi, 0, NULL, &ex);
  LLVMValueRef val = rt_jit_tpl_loadf(L, wsc, LLVMBuildAdd(B, crow, ex.iv, ""));
  LLVMValueRef idx[4] = {n, o, ey.iv, ex.iv};
  RT_RETURN_IF_ERROR(rt_jit_tpl_epilogue(L, p->anchor, out, data, idx, val));
  rt_jit_loop_end(L, &ex, NULL);
  rt_jit_loop_end(L, &ey, NULL);
  rt_jit_loop_end(L, &eo, NULL);
  return RT_OK;
}

/* Output pixels from which conv2d.im2colT splits over tasks by pixel
 * tiles instead of output-channel panels (rt_jit_gemm_core_t.split_rows;
 * the figures at dense.c's split rule). */
#define IM2COLT_SPLIT_ROWS_PX 196

/* ---- depthwise ------------------------------------------------------------------ */

/* Taps of a depthwise kernel the template unrolls at most (7x7, with
 * room). */
#define DW_MAX_TAPS 64

/* Vector registers (AVX2: 16) a depthwise chunk may fill: its
 * accumulators, the kh weights of one kernel column and the input vector
 * being used (dw_plan). */
#define DW_REGS 16
/* Estimated fixed cycles of one task unit beside its chunks (dw_plan). */
#define DW_UNIT_COST 40
/* FMAs a depthwise kernel's chunk instances may unroll in all (dw_plan):
 * more made its LLVM optimization slower without a faster kernel
 * (bench_kernels dw5s1_672_14 with 4 channels by 5 rows by 2 vectors:
 * 1800 FMAs). */
#define DW_MAX_UNROLL 360
/* Channels one depthwise task unit computes together at most. */
#define DW_MAX_CH 4
/* Output rows from which a fused expand + depthwise kernel of one image
 * splits its rows over tasks instead of its channels (dw_span). Its input
 * and its output come from and go to projections, which conv_direct
 * splits by pixels on large images: split by rows, each core reads the
 * rows it wrote (and the halo) and writes what it will read next
 * (mobilenet_v2, 2 threads: 3.21-3.38 -> 3.04-3.23 ms). A plain depthwise
 * kernel keeps the channel split, which measured faster both where its
 * expand splits channels (14x14 and below; by rows 3.77-3.96 -> 3.88-4.08
 * ms) and where it splits pixels (28x28; by rows 2.99-3.09 -> 3.09-3.19):
 * by rows each task sets up every channel for half the rows. */
#define DW_ROW_SPLIT_MIN 14
/* Accumulators of one channel of a chunk at most. */
#define DW_MAX_ACC 16

/* Where a depthwise chunk stores straight to the output (dw_store_direct,
 * where rt_jit_tpl_vepi_uniform_ok takes the tail ops): the anchor and
 * fused output, the output's data, image n, and per
 * channel slot its channel gi[] and whether it is stored (valid[]: NULL
 * when every slot is a channel of its own). */
typedef struct dw_direct_t {
  const rt_ir_expr_t *anchor, *out;
  LLVMValueRef data, n;
  LLVMValueRef gi[DW_MAX_CH], valid[DW_MAX_CH];
  int64_t c, plane; /* output channels, OH*OW */
} dw_direct_t;

/* What a depthwise chunk reads and writes: nch channels, channel ch's
 * phase images at xp[ch] (image (py, px) at (py*sw + px)*istr +
 * shift[px], row R at R*wq) and weights splatted in wv[ch][t], its rows
 * at out[ch] + oh*OW, or with `direct` through the tail ops straight to
 * the output. */
typedef struct dw_ctx_t {
  int32_t nch, vw;
  int64_t kh, kw, sh, sw, dh, dwx, istr, wq, ow;
  int64_t shift[RT_JIT_TPL_MAX_MR]; /* image (py, px) starts shift[px] further */
  LLVMValueRef xp[DW_MAX_CH], out[DW_MAX_CH];
  LLVMValueRef wv[DW_MAX_CH][DW_MAX_TAPS];
  const dw_direct_t *direct;
} dw_ctx_t;

/* One chunk of nch channels by nr rows by nv vectors of outputs, the
 * first at phase-image position q0 (row oh, column col: oh*wq + col) and
 * stored at o0 = oh*OW + col of the channel blocks. Output (r, v) of tap
 * (ky, kx) reads phase image (ey % sh, ex % sw) (ey = ky*dh, ex = kx*dw)
 * at row R = r + ey/sh, column col + ex/sw + v*vw. The taps go by kernel
 * column kx: the kh weights of that column stay in registers while each
 * input vector (py, R, v) of the column is loaded once and feeds every
 * accumulator whose tap row reads it (up to kh/sh of them: at stride 1 a
 * row of nr outputs by 3 taps loads nr + 2 input rows, not 3*nr), so
 * each channel's nr*nv <= DW_REGS - kh - 1 accumulators (independent FMA
 * chains; the channels go one after the other) run from registers, the
 * weights of the next column reloaded once per chunk. Rows are stored compact (OW apart) by whole vectors,
 * rows in ascending order: a row's last vector may spill past OW into the
 * next row, which is stored later (dw_rows walks a row's chunks last to
 * first). */
static rt_status_t dw_store_direct(rt_jit_lower_t *L, const dw_ctx_t *d, int32_t ch, int32_t nr, int32_t nv,
                                   LLVMValueRef o0, bool ends_row, const LLVMValueRef *acc);

static rt_status_t dw_chunk(rt_jit_lower_t *L, const dw_ctx_t *d, int32_t nr, int32_t nv, LLVMValueRef q0,
                            LLVMValueRef o0, bool ends_row) {
  LLVMBuilderRef B = L->b;
  const int32_t vw = d->vw;
  LLVMValueRef acc[DW_MAX_CH * DW_MAX_ACC];
  const int32_t na = d->nch * nr * nv;
  RT_ASSERT(nr * nv <= DW_MAX_ACC && d->nch <= DW_MAX_CH);
  for (int32_t i = 0; i < na; ++i) acc[i] = NULL;
  int64_t maxrk = 0;
  for (int64_t ky = 0; ky < d->kh; ++ky) {
    if (ky * d->dh / d->sh > maxrk) maxrk = ky * d->dh / d->sh;
  }
  for (int32_t ch = 0; ch < d->nch; ++ch) {
    for (int64_t kx = 0; kx < d->kw; ++kx) {
      const int64_t ex = kx * d->dwx;
      for (int64_t py = 0; py < d->sh; ++py) {
        const int64_t img = (py * d->sw + ex % d->sw) * d->istr + d->shift[ex % d->sw] + ex / d->sw;
        for (int64_t R = 0; R < nr + maxrk; ++R) {
          bool used = false;
          for (int64_t ky = 0; ky < d->kh; ++ky) {
            const int64_t ey = ky * d->dh, r = R - ey / d->sh;
            if (ey % d->sh == py && r >= 0 && r < nr) used = true;
          }
          if (!used) continue;
          for (int32_t v = 0; v < nv; ++v) {
            LLVMValueRef x = rt_jit_tpl_loadv(
                L, d->xp[ch], LLVMBuildAdd(B, q0, rt_jit_i64(L, img + R * d->wq + (int64_t)v * vw), ""), vw);
            for (int64_t ky = 0; ky < d->kh; ++ky) {
              const int64_t ey = ky * d->dh, r = R - ey / d->sh;
              if (ey % d->sh != py || r < 0 || r >= nr) continue;
              LLVMValueRef w = d->wv[ch][ky * d->kw + kx];
              LLVMValueRef *a = &acc[(ch * nr + r) * nv + v];
              *a = *a ? rt_jit_intrinsic(L, "llvm.fma", w, x, *a) : LLVMBuildFMul(B, w, x, "");
            }
          }
        }
      }
    }
    if (d->direct) {
      RT_RETURN_IF_ERROR(dw_store_direct(L, d, ch, nr, nv, o0, ends_row, &acc[ch * nr * nv]));
      continue;
    }
    LLVMValueRef o = rt_jit_tpl_gep(L, d->out[ch], o0);
    for (int32_t r = 0; r < nr; ++r) {
      for (int32_t v = 0; v < nv; ++v) {
        rt_jit_tpl_storev(L, acc[(ch * nr + r) * nv + v], o, rt_jit_i64(L, r * d->ow + (int64_t)v * vw));
      }
    }
  }
  return RT_OK;
}

/* Channel slot ch's nr x nv accumulators of a chunk at o0 = oh*OW + col
 * through the tail ops (rt_jit_tpl_vepi_uniform: constant over the
 * pixels) to the output, when the slot is valid. A row's vectors lie
 * inside the row but for its last one (in the chunk that `ends_row`),
 * whose OW - (nvec - 1)*vw lanes inside the row (all of them where OW is
 * whole vectors) are stored alone (rt_jit_tpl_store_first), so no store
 * reaches a row another task or channel writes. */
static rt_status_t dw_store_direct(rt_jit_lower_t *L, const dw_ctx_t *d, int32_t ch, int32_t nr, int32_t nv,
                                   LLVMValueRef o0, bool ends_row, const LLVMValueRef *acc) {
  LLVMBuilderRef B = L->b;
  const dw_direct_t *e = d->direct;
  const int32_t vw = d->vw;
  rt_jit_if_t st;
  if (e->valid[ch]) rt_jit_if_begin(L, e->valid[ch], &st);
  LLVMValueRef idx[4] = {e->n, e->gi[ch], rt_jit_i64(L, 0), rt_jit_i64(L, 0)};
  LLVMValueRef plane = LLVMBuildMul(
      B, LLVMBuildAdd(B, LLVMBuildMul(B, e->n, rt_jit_i64(L, e->c), ""), e->gi[ch], ""), rt_jit_i64(L, e->plane), "");
  LLVMValueRef base = LLVMBuildAdd(B, plane, o0, "");
  /* The lanes of a row's last vector inside the row. */
  const int32_t last = (int32_t)(d->ow - ((d->ow + vw - 1) / vw - 1) * vw);
  for (int32_t r = 0; r < nr; ++r) {
    for (int32_t v = 0; v < nv; ++v) {
      LLVMValueRef val;
      RT_RETURN_IF_ERROR(rt_jit_tpl_vepi_uniform(L, e->anchor, e->out, 2, 4, idx, acc[r * nv + v], &val));
      LLVMValueRef off = LLVMBuildAdd(B, base, rt_jit_i64(L, r * d->ow + (int64_t)v * vw), "");
      rt_jit_tpl_store_first(L, val, e->data, off, ends_row && v == nv - 1 ? last : vw, vw);
    }
  }
  if (e->valid[ch]) {
    rt_jit_if_else(L, &st, NULL);
    (void)rt_jit_if_end(L, &st, NULL);
  }
  return RT_OK;
}

/* Estimated cycles of one chunk of nch x nr x nv accumulators (for
 * dw_plan). The channels of a chunk run one after the other, each the
 * larger of its FMAs (two a cycle), its loads (the input vectors, each
 * once, plus the weights; two a cycle) and its FMA chains' latency (4
 * cycles a link: fewer than 8 chains leave the FMA units idle), plus a
 * fixed cost of the chunk's loop and stores. */
static int64_t dw_chunk_cost(const rt_jit_conv2d_t *c, int64_t nch, int64_t nr, int64_t nv) {
  const int64_t taps = c->kh * c->kw, fmas = nr * nv * taps;
  int64_t rows = 0;
  for (int64_t py = 0; py < c->sh; ++py) {
    int64_t kp = 0, mrk = -1;
    for (int64_t ky = 0; ky < c->kh; ++ky) {
      if (ky * c->dh % c->sh == py) ++kp, mrk = ky * c->dh / c->sh;
    }
    if (kp) rows += nr + mrk;
  }
  const int64_t loads = c->kw * (rows * nv + c->kh);
  int64_t cyc = fmas / 2;
  if (loads / 2 > cyc) cyc = loads / 2;
  if (taps * 4 > cyc) cyc = taps * 4;
  return nch * (cyc + nr * nv) + 8;
}

/* The chunk shape of a depthwise kernel (nch channels, nr rows, nv
 * vectors of a row) the cost model above finds cheapest per output
 * channel, the row and column tails (a shorter last row group, a shorter
 * last chunk of a row) counted, with at most DW_REGS - kh - 1
 * accumulators per channel (DW_MAX_ACC), at most maxch channels and
 * DW_MAX_UNROLL unrolled FMAs. With `halves`, the kernel splits its row
 * groups over tasks (dw_span): the cost is that of the larger share of
 * two (so 14 rows go as 2 x 7, not as 12 + 2). */
static void dw_plan(const rt_jit_conv2d_t *c, int64_t nvec, int64_t maxch, bool halves, int32_t *out_nch,
                    int32_t *out_nr, int32_t *out_nv) {
  int64_t budget = DW_REGS - c->kh - 1;
  if (budget > DW_MAX_ACC) budget = DW_MAX_ACC;
  if (budget < 1) budget = 1;
  int64_t best = -1;
  *out_nch = 1, *out_nr = 1, *out_nv = 1;
  for (int64_t nch = 1; nch <= maxch && nch <= c->g; ++nch) {
    for (int64_t nv = 1; nv <= 4 && nv <= nvec; ++nv) {
      for (int64_t nr = 1; nr <= c->oh && nr * nv <= budget; ++nr) {
        const int64_t nvt = nvec % nv, nrt = c->oh % nr;
        /* The FMAs the unit's chunk instances unroll (a full chunk, the
         * row's shorter last one, and both for a shorter last row group)
         * bound the code LLVM optimizes. */
        const int64_t unrolled = nch * c->kh * c->kw * (nr + nrt) * (nv + nvt);
        if (unrolled > DW_MAX_UNROLL && !(nr == 1 && nv == 1 && nch == 1)) continue;
        int64_t row = (nvec / nv) * dw_chunk_cost(c, nch, nr, nv) + (nvt ? dw_chunk_cost(c, nch, nr, nvt) : 0);
        int64_t tail = nrt ? (nvec / nv) * dw_chunk_cost(c, nch, nrt, nv) + (nvt ? dw_chunk_cost(c, nch, nrt, nvt) : 0) : 0;
        /* Per channel, the last unit's channels past the count included. */
        const int64_t units = (c->g + nch - 1) / nch;
        int64_t rows_cost = (c->oh / nr) * row + tail;
        if (halves) {
          /* dw_span: the first task the first ngroups / 2 groups, the
           * second the rest, with the shorter last one. */
          const int64_t ng = (c->oh + nr - 1) / nr, first = ng / 2;
          const int64_t second = (ng - first - (nrt ? 1 : 0)) * row + tail;
          rows_cost = first * row > second ? first * row : second;
        }
        const int64_t cost = (rows_cost + DW_UNIT_COST) * units;
        if (best < 0 || cost < best) {
          best = cost;
          *out_nch = (int32_t)nch, *out_nr = (int32_t)nr, *out_nv = (int32_t)nv;
        }
      }
    }
  }
}

/* nr output rows from row oh of the unit's channels: the nvec vectors of
 * a row as a shorter last chunk, then chunks of nv, last to first (so,
 * into the compact blocks, the spill of a row's last vector into the next
 * row is overwritten). */
static rt_status_t dw_rows(rt_jit_lower_t *L, const dw_ctx_t *d, int32_t nr, int32_t nv, int64_t nvec,
                           LLVMValueRef oh) {
  LLVMBuilderRef B = L->b;
  const int64_t nfull = nvec / nv;
  const int32_t nvt = (int32_t)(nvec % nv);
  LLVMValueRef rowq = LLVMBuildMul(B, oh, rt_jit_i64(L, d->wq), "");
  LLVMValueRef rowo = LLVMBuildMul(B, oh, rt_jit_i64(L, d->ow), "");
  /* The chunk that ends the row goes first, on its own: the shorter last
   * one, or for a direct store whose row's last vector runs past OW the
   * last whole one. */
  int64_t nloop = nfull;
  if (nvt || (d->direct && nvec * d->vw > d->ow)) {
    const int32_t m = nvt ? nvt : nv;
    if (!nvt) --nloop;
    LLVMValueRef tcol = rt_jit_i64(L, nloop * nv * d->vw);
    RT_RETURN_IF_ERROR(dw_chunk(L, d, nr, m, LLVMBuildAdd(B, rowq, tcol, ""), LLVMBuildAdd(B, rowo, tcol, ""), true));
  }
  if (nloop == 0) return RT_OK;
  rt_jit_loop_t lj;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, nloop), 0, NULL, &lj);
  LLVMValueRef j = LLVMBuildSub(B, rt_jit_i64(L, nloop - 1), lj.iv, "");
  LLVMValueRef col = LLVMBuildMul(B, j, rt_jit_i64(L, (int64_t)nv * d->vw), "");
  RT_RETURN_IF_ERROR(dw_chunk(L, d, nr, nv, LLVMBuildAdd(B, rowq, col, ""), LLVMBuildAdd(B, rowo, col, ""), false));
  rt_jit_loop_end(L, &lj, NULL);
  return RT_OK;
}

/* llvm.masked.load of the first `k` (i64 value, clamped to [0, vw]) of
 * the vw floats at p + off, zeros in the other lanes; the lanes past k
 * are not read. */
static LLVMValueRef dw_load_first(rt_jit_lower_t *L, LLVMValueRef p, LLVMValueRef off, LLVMValueRef k, int32_t vw) {
  return rt_jit_tpl_masked_load(L, p, off, rt_jit_tpl_lanes_below(L, k, vw), LLVMConstNull(rt_jit_tpl_vec(L, vw)), vw);
}

/* Stores the sw vectors v[] of input elements [i0, i0 + sw*vw) of one row
 * to their phase rows (dst: row r of phase image (py, 0)): at stride 1 one
 * vector at column i0 + pl; at stride 2 elements i0 + 2m + e (e = 0, 1)
 * to phase (e + pl) % 2, column i0/2 + m + (e + pl)/2. */
static void dw_store_chunk(rt_jit_lower_t *L, const rt_jit_conv2d_t *c, const LLVMValueRef *v, LLVMValueRef dst,
                           LLVMValueRef i0, int64_t istr, const int64_t *shift, int32_t vw) {
  LLVMBuilderRef B = L->b;
  if (c->sw == 1) {
    rt_jit_tpl_storev(L, v[0], dst, LLVMBuildAdd(B, i0, rt_jit_i64(L, c->pl + shift[0]), ""));
    return;
  }
  LLVMValueRef half = LLVMBuildUDiv(B, i0, rt_jit_i64(L, 2), "");
  for (int64_t e = 0; e < 2; ++e) {
    LLVMValueRef d = rt_jit_tpl_deinterleave(L, v[0], v[1], vw, e == 1);
    const int64_t px = (e + c->pl) % 2, dc = (e + c->pl) / 2;
    rt_jit_tpl_storev(L, d, dst, LLVMBuildAdd(B, half, rt_jit_i64(L, px * istr + shift[px] + dc), ""));
  }
}

/* Loads the sw vectors of elements [i0, i0 + sw*vw) of row src (`tail`:
 * the row's last chunk, masked: zeros past W). */
static void dw_load_chunk(rt_jit_lower_t *L, const rt_jit_conv2d_t *c, LLVMValueRef src, LLVMValueRef i0,
                          int32_t vw, bool tail, LLVMValueRef *v) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef left = LLVMBuildSub(B, rt_jit_i64(L, c->w), i0, "");
  for (int64_t e = 0; e < c->sw; ++e) {
    LLVMValueRef ie = LLVMBuildAdd(B, i0, rt_jit_i64(L, e * vw), "");
    v[e] = tail ? dw_load_first(L, src, ie, LLVMBuildSub(B, left, rt_jit_i64(L, e * vw), ""), vw)
                : rt_jit_tpl_loadv(L, src, ie, vw);
  }
}

/* Input elements [i0, i0 + sw*vw) of one row (src) to their phase rows
 * (dst: row r of phase image (py, 0)); `tail`: the last chunk of the
 * row, loaded masked (zeros past W). */
static void dw_copy_chunk(rt_jit_lower_t *L, const rt_jit_conv2d_t *c, LLVMValueRef src, LLVMValueRef dst,
                          LLVMValueRef i0, int64_t istr, const int64_t *shift, int32_t vw, bool tail) {
  LLVMValueRef v[2];
  dw_load_chunk(L, c, src, i0, vw, tail, v);
  dw_store_chunk(L, c, v, dst, i0, istr, shift, vw);
}

/* What a depthwise task computes: task units [ulo, uhi) (of `units`:
 * channel groups of the images), and of each the row groups [glo, ghi)
 * of nr rows (of ngroups; the last one shorter when nr does not divide
 * OH), rows [rlo, rhi), which read input rows [ilo, ihi). Split by rows
 * (DW_ROW_SPLIT_MIN), every unit and the task's share of the groups;
 * else the task's share of the units and every group. */
typedef struct dw_span_t {
  int64_t ngroups;
  LLVMValueRef ulo, uhi, glo, ghi, rlo, rhi, ilo, ihi;
} dw_span_t;

/* The span's rows [rlo, rhi) of its groups [glo, ghi) and the input
 * rows [ilo, ihi) they read. */
static void dw_span_set_rows(rt_jit_lower_t *L, const rt_jit_conv2d_t *c, int32_t nr, dw_span_t *s) {
  LLVMBuilderRef B = L->b;
  s->rlo = LLVMBuildMul(B, s->glo, rt_jit_i64(L, nr), "");
  s->rhi = rt_jit_min(L, LLVMBuildMul(B, s->ghi, rt_jit_i64(L, nr), ""), rt_jit_i64(L, c->oh));
  /* Output row r reads input rows r*sh - pt + ky*dh, ky < kh. */
  s->ilo = rt_jit_max(L, LLVMBuildSub(B, LLVMBuildMul(B, s->rlo, rt_jit_i64(L, c->sh), ""), rt_jit_i64(L, c->pt), ""),
                      rt_jit_i64(L, 0));
  LLVMValueRef last = LLVMBuildSub(B, LLVMBuildMul(B, s->rhi, rt_jit_i64(L, c->sh), ""),
                                   rt_jit_i64(L, c->sh + c->pt - (c->kh - 1) * c->dh - 1), "");
  s->ihi = rt_jit_min(L, last, rt_jit_i64(L, c->h));
}

static void dw_span(rt_jit_lower_t *L, const rt_jit_conv2d_t *c, int64_t units, int32_t nr, bool by_rows,
                    LLVMValueRef task, LLVMValueRef ntasks, dw_span_t *s) {
  s->ngroups = (c->oh + nr - 1) / nr;
  s->ulo = rt_jit_i64(L, 0), s->uhi = rt_jit_i64(L, units);
  s->glo = rt_jit_i64(L, 0), s->ghi = rt_jit_i64(L, s->ngroups);
  if (by_rows) {
    rt_jit_tpl_split(L, s->ngroups, task, ntasks, &s->glo, &s->ghi);
  } else {
    rt_jit_tpl_split(L, units, task, ntasks, &s->ulo, &s->uhi);
  }
  dw_span_set_rows(L, c, nr, s);
}

/* The phase images of channel (n, gi) of an input in memory, at stride
 * sw 1 or 2, into xp (image (py, px) at (py*sw + px)*istr + shift[px],
 * row r at r*wq), where everything else is already zero: per input row
 * of the span, whole vectors of the row (the last one a masked load,
 * zeros past W) stored at their phase column (shift makes these stores
 * aligned where xp and wq are); at sw 2, pairs of vectors split into
 * their even and odd elements (one phase each). A store may spill zeros
 * past a phase row's end into the padding, or into the next row, which a
 * later input row writes or, past the span, the task never reads (images
 * are istr >= hq*wq + 2*vw apart, shifts below vw, so no spill reaches
 * another image). */
static void dw_copy_raw(rt_jit_lower_t *L, const conv_ctx_t *cc, LLVMValueRef xp, LLVMValueRef n, LLVMValueRef gi,
                        const dw_span_t *s, int64_t wq, int64_t istr, const int64_t *shift, int32_t vw) {
  const rt_jit_conv2d_t *c = &cc->c;
  LLVMBuilderRef B = L->b;
  const int64_t sw = c->sw, span = sw * vw, nchunk = (c->w + span - 1) / span;
  LLVMValueRef src0 = rt_jit_tpl_gep(
      L, rt_jit_node(L, cc->x)->data,
      LLVMBuildMul(B, LLVMBuildAdd(B, LLVMBuildMul(B, c->n == 1 ? rt_jit_i64(L, 0) : n, rt_jit_i64(L, c->c), ""), gi, ""),
                   rt_jit_i64(L, c->h * c->w), ""));
  rt_jit_loop_t li, lk;
  rt_jit_loop_begin(L, s->ilo, s->ihi, 0, NULL, &li);
  LLVMValueRef prow = LLVMBuildAdd(B, li.iv, rt_jit_i64(L, c->pt), "");
  LLVMValueRef py = LLVMBuildURem(B, prow, rt_jit_i64(L, c->sh), "");
  LLVMValueRef r = LLVMBuildUDiv(B, prow, rt_jit_i64(L, c->sh), "");
  LLVMValueRef src = rt_jit_tpl_gep(L, src0, LLVMBuildMul(B, li.iv, rt_jit_i64(L, c->w), ""));
  /* Row r of image (py, px): py*sw*istr + px*istr + r*wq. */
  LLVMValueRef dst = rt_jit_tpl_gep(
      L, xp, LLVMBuildAdd(B, LLVMBuildMul(B, py, rt_jit_i64(L, sw * istr), ""), LLVMBuildMul(B, r, rt_jit_i64(L, wq), ""), ""));
  /* Whole chunks with plain loads, then the last, partial one masked. */
  const int64_t nwhole = c->w / span;
  if (nwhole > 0) {
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, nwhole), 0, NULL, &lk);
    dw_copy_chunk(L, c, src, dst, LLVMBuildMul(B, lk.iv, rt_jit_i64(L, span), ""), istr, shift, vw, false);
    rt_jit_loop_end(L, &lk, NULL);
  }
  if (nchunk > nwhole) dw_copy_chunk(L, c, src, dst, rt_jit_i64(L, nwhole * span), istr, shift, vw, true);
  rt_jit_loop_end(L, &li, NULL);
}

/* Where a depthwise kernel's phase images lie in its workspace: image
 * (py, px) of a channel at (py*sw + px)*istr + shift[px], row R at R*wqs;
 * a channel's images xsize floats apart (zeros past them), its output
 * block oblock floats (OH*OW and the last row's spill). A raw copy (an
 * input in memory, or the fused expand) pads rows to whole vectors and
 * shifts each image so that the copy's vector stores are aligned. */
typedef struct dw_layout_t {
  int64_t hq, wq, wqs, istr, xsize, nvec, oblock;
  int64_t shift[RT_JIT_TPL_MAX_MR];
} dw_layout_t;

static void dw_layout(const rt_jit_conv2d_t *c, int32_t vw, bool raw, dw_layout_t *y) {
  memset(y, 0, sizeof *y);
  const int64_t hp = c->h + c->pt + c->pb, wp = c->w + c->pl + c->pr;
  y->hq = (hp + c->sh - 1) / c->sh, y->wq = (wp + c->sw - 1) / c->sw;
  y->wqs = raw ? (y->wq + vw - 1) / vw * vw : y->wq;
  for (int64_t px = 0; raw && px < c->sw; ++px) {
    /* The column of image px the copy's stores start at. */
    const int64_t c0 = c->sw == 1 ? c->pl : ((px + c->pl) % 2 + c->pl) / 2;
    y->shift[px] = (vw - c0 % vw) % vw;
  }
  y->istr = raw ? (y->hq * y->wqs + 3 * vw - 1) / vw * vw : y->hq * y->wq;
  y->nvec = (c->ow + vw - 1) / vw;
  int64_t offmax = 0;
  for (int64_t r = 0; r < c->kh; ++r) {
    for (int64_t x = 0; x < c->kw; ++x) {
      const int64_t ey = r * c->dh, ex = x * c->dw;
      const int64_t phase = (ey % c->sh) * c->sw + ex % c->sw;
      const int64_t o = phase * y->istr + y->shift[ex % c->sw] + (ey / c->sh) * y->wqs + ex / c->sw;
      if (o > offmax) offmax = o;
    }
  }
  /* Reads reach (OH-1)*wqs + nvec*vw - 1 + offmax: zeros past the images. */
  int64_t xsize = offmax + (c->oh - 1) * y->wqs + y->nvec * vw;
  if (xsize < c->sh * c->sw * y->istr) xsize = c->sh * c->sw * y->istr;
  y->xsize = (xsize + 15) / 16 * 16;
  y->oblock = c->oh * c->ow + vw;
}

static void dw_ctx_init(const rt_jit_conv2d_t *c, const dw_layout_t *y, int32_t nch, int32_t vw, dw_ctx_t *d) {
  *d = (dw_ctx_t){.nch = nch, .vw = vw, .kh = c->kh, .kw = c->kw, .sh = c->sh, .sw = c->sw, .dh = c->dh,
                  .dwx = c->dw, .istr = y->istr, .wq = y->wqs, .ow = c->ow};
  memcpy(d->shift, y->shift, sizeof d->shift);
}

/* The span's output rows of the context's channels: its whole groups of
 * nr rows, then the last, shorter group when the span has it. */
static rt_status_t dw_span_rows(rt_jit_lower_t *L, const dw_ctx_t *d, const dw_span_t *s, int64_t oh, int32_t nr,
                                int32_t nv, int64_t nvec) {
  LLVMBuilderRef B = L->b;
  rt_jit_loop_t ly;
  rt_jit_loop_begin(L, s->glo, rt_jit_min(L, s->ghi, rt_jit_i64(L, oh / nr)), 0, NULL, &ly);
  RT_RETURN_IF_ERROR(dw_rows(L, d, nr, nv, nvec, LLVMBuildMul(B, ly.iv, rt_jit_i64(L, nr), "")));
  rt_jit_loop_end(L, &ly, NULL);
  if (oh % nr) {
    rt_jit_if_t last;
    rt_jit_if_begin(L, LLVMBuildICmp(B, LLVMIntEQ, s->ghi, rt_jit_i64(L, s->ngroups), ""), &last);
    RT_RETURN_IF_ERROR(dw_rows(L, d, (int32_t)(oh % nr), nv, nvec, rt_jit_i64(L, oh - oh % nr)));
    rt_jit_if_else(L, &last, NULL);
    (void)rt_jit_if_end(L, &last, NULL);
  }
  return RT_OK;
}

/* The span's rows of channel (n, gi)'s compact output block through the
 * fused epilogue to the output, when `valid`: the pixels vw at a time
 * through the vector epilogue where it takes the tail ops (lanes along
 * the flattened rows, so a vector may cross a row's end), the rest (the
 * last few, or all of them) by element. */
static rt_status_t dw_store_channel(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_ir_expr_t *out,
                                    LLVMValueRef data, const rt_jit_conv2d_t *c, const dw_span_t *s, LLVMValueRef n,
                                    LLVMValueRef gi, LLVMValueRef valid, LLVMValueRef block) {
  LLVMBuilderRef B = L->b;
  rt_jit_if_t st;
  rt_jit_loop_t ex, ev;
  rt_jit_if_begin(L, valid, &st);
  LLVMValueRef ow = rt_jit_i64(L, c->ow);
  LLVMValueRef lo = LLVMBuildMul(B, s->rlo, ow, ""), hi = LLVMBuildMul(B, s->rhi, ow, "");
  if (rt_jit_tpl_vepi_ok(L, p->anchor, out, 2, 4)) {
    /* Whole vectors of the rows' pixels (dims [2, 4) flattened), then
     * the last few by element below. */
    const int32_t vw = p->vw;
    LLVMValueRef nvec = LLVMBuildUDiv(B, LLVMBuildSub(B, hi, lo, ""), rt_jit_i64(L, vw), "");
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), nvec, 0, NULL, &ev);
    LLVMValueRef i = LLVMBuildAdd(B, lo, LLVMBuildMul(B, ev.iv, rt_jit_i64(L, vw), ""), "");
    LLVMValueRef vidx[4] = {n, gi, LLVMBuildUDiv(B, i, ow, ""), LLVMBuildURem(B, i, ow, "")};
    RT_RETURN_IF_ERROR(rt_jit_tpl_vepi(L, p->anchor, out, data, 2, 4, vidx, rt_jit_tpl_loadv(L, block, i, vw)));
    rt_jit_loop_end(L, &ev, NULL);
    lo = LLVMBuildAdd(B, lo, LLVMBuildMul(B, nvec, rt_jit_i64(L, vw), ""), "");
  }
  rt_jit_loop_begin(L, lo, hi, 0, NULL, &ex);
  LLVMValueRef idx[4] = {n, gi, LLVMBuildUDiv(B, ex.iv, ow, ""), LLVMBuildURem(B, ex.iv, ow, "")};
  RT_RETURN_IF_ERROR(rt_jit_tpl_epilogue(L, p->anchor, out, data, idx, rt_jit_tpl_loadf(L, block, ex.iv)));
  rt_jit_loop_end(L, &ex, NULL);
  rt_jit_if_else(L, &st, NULL);
  (void)rt_jit_if_end(L, &st, NULL);
  return RT_OK;
}

/* A depthwise kernel's two workspace blocks (phase images, output
 * blocks) and the branch taken when both were allocated; dw_ws_end
 * closes it (the other branch flags the error) and frees them. */
static void dw_ws_begin(rt_jit_lower_t *L, int64_t xbytes, int64_t obytes, LLVMValueRef *wsx, LLVMValueRef *wout,
                        rt_jit_if_t *have) {
  LLVMBuilderRef B = L->b;
  *wsx = rt_jit_tpl_ws_alloc(L, xbytes);
  *wout = rt_jit_tpl_ws_alloc(L, obytes);
  rt_jit_if_begin(L, LLVMBuildAnd(B, LLVMBuildIsNotNull(B, *wsx, ""), LLVMBuildIsNotNull(B, *wout, ""), ""), have);
}

static void dw_ws_end(rt_jit_lower_t *L, rt_jit_if_t *have, LLVMValueRef wsx, LLVMValueRef wout) {
  rt_jit_if_else(L, have, NULL);
  rt_jit_flag_error(L, LLVMConstInt(L->i1, 1, 0), "out of workspace memory (conv2d template)");
  (void)rt_jit_if_end(L, have, NULL);
  rt_jit_tpl_ws_free(L, wout);
  rt_jit_tpl_ws_free(L, wsx);
}

/* Channel gi's kh*kw weights, splatted into wv[]. */
static rt_status_t dw_weights(rt_jit_lower_t *L, const conv_ctx_t *cc, LLVMValueRef gi, int32_t vw, LLVMValueRef *wv) {
  for (int64_t t = 0; t < cc->c.kh * cc->c.kw; ++t) {
    LLVMValueRef w;
    RT_RETURN_IF_ERROR(w_at(L, cc, gi, rt_jit_i64(L, t), &w));
    wv[t] = rt_jit_tpl_splat(L, w, vw);
  }
  return RT_OK;
}

/* ---- the expand fused into the depthwise kernel ------------------------------ */

/* Channels whose expand one depthwise task unit computes together: each
 * input vector loaded feeds that many FMAs (passes/fuse_expand_depthwise.c
 * merges the groups). */
#define DW_EXPAND_CH 4

/* The 1x1 convolution that the depthwise kernel's input comes from
 * (FuseExpandDepthwise): conv, its tail's result out (the depthwise
 * conv's data, out = cc->x) and its input channels k. */
typedef struct dw_expand_t {
  const rt_ir_expr_t *conv, *out;
  int64_t k;
} dw_expand_t;

/* e's data is raw memory: rt_jit_tpl_raw, or before lowering (L NULL)
 * a param or constant. */
static bool in_memory(rt_jit_lower_t *L, const rt_ir_expr_t *e) {
  return L ? rt_jit_tpl_raw(L, e) : e->kind == RT_IR_VAR || e->kind == RT_IR_CONSTANT;
}

/* dw_expand_of's conditions, with L NULL on the nodes alone (before
 * lowering): the expand's anchor and its input channels *k, or NULL. */
static const rt_ir_expr_t *dw_expand_anchor(rt_jit_lower_t *L, const rt_jit_conv2d_t *c, const rt_ir_expr_t *x,
                                            int64_t *k) {
  if (in_memory(L, x) || c->sw > 2) return NULL;
  const rt_ir_expr_t *a = rt_ir_anchor_of(x, RT_OP_NN_CONV2D);
  rt_jit_conv2d_t ec;
  if (!a || !rt_jit_tpl_conv2d_attrs(a, &ec)) return NULL;
  if (ec.kh != 1 || ec.kw != 1 || ec.sh != 1 || ec.sw != 1 || ec.g != 1 || ec.wpack) return NULL;
  if (ec.pt || ec.pl || ec.pb || ec.pr || ec.n != c->n || ec.o != c->c || ec.oh != c->h || ec.ow != c->w) {
    return NULL;
  }
  if (!in_memory(L, a->call.args[0]) || !in_memory(L, a->call.args[1])) return NULL;
  if (!rt_jit_tpl_vepi_uniform_ok(L, a, x, 2, 4)) return NULL;
  *k = ec.c;
  return a;
}

/* Is the depthwise conv's data a fused expand the template computes in
 * its phase-image fill: a 1x1 conv2d (stride 1, unpadded, groups 1, OIHW)
 * of an input and weight in memory, to the depthwise input's shape, whose
 * tail ops the vector epilogue applies to a vector of pixels, with a
 * depthwise stride of at most 2? */
static bool dw_expand_of(rt_jit_lower_t *L, const conv_ctx_t *cc, dw_expand_t *e) {
  int64_t k = 0;
  const rt_ir_expr_t *a = dw_expand_anchor(L, &cc->c, cc->x, &k);
  if (!a) return false;
  *e = (dw_expand_t){.conv = a, .out = cc->x, .k = k};
  return true;
}

bool rt_jit_tpl_conv2d_dw_explicit(const rt_ir_expr_t *anchor, const rt_ir_expr_t *out) {
  rt_jit_conv2d_t c;
  if (!rt_jit_tpl_conv2d_attrs(anchor, &c) || c.kh * c.kw > DW_MAX_TAPS) return false;
  const rt_ir_expr_t *x = anchor->call.args[0];
  int64_t k;
  if (!in_memory(NULL, anchor->call.args[1]) || c.sw > 2) return false;
  if (!in_memory(NULL, x) && !dw_expand_anchor(NULL, &c, x, &k)) return false;
  return rt_jit_tpl_vepi_takes(anchor, out, 2, 4);
}

/* Accumulators of one expand chunk at most: DW_EXPAND_CH channels by
 * DW_EXPAND_VECS input vectors. */
#define DW_EXPAND_VECS 4

/* One chunk of input columns [i0, i0 + m*sw*vw) of input row xrow (the
 * expand's input, channel 0 of the image) for the nu channels gi[] of a
 * unit: sum over the k input channels of W[gi][k] * x[k] (each input
 * vector loaded once for every channel, nu*m*sw independent FMA chains),
 * the expand's tail ops (rt_jit_tpl_vepi_uniform), zeros past W (`tail`:
 * the row's last chunk, loaded masked), stored to the channels' phase
 * rows dst[] by sw vectors (dw_store_chunk). */
static rt_status_t dw_expand_chunk(rt_jit_lower_t *L, const conv_ctx_t *cc, const dw_expand_t *e, int32_t nu,
                                   int32_t m, LLVMValueRef n, const LLVMValueRef *gi, LLVMValueRef xrow,
                                   const LLVMValueRef *dst, LLVMValueRef i0, const dw_layout_t *y, int32_t vw,
                                   bool tail) {
  const rt_jit_conv2d_t *c = &cc->c;
  LLVMBuilderRef B = L->b;
  const int32_t nx = m * (int32_t)c->sw, nacc = nu * nx;
  RT_ASSERT(nx <= DW_EXPAND_VECS && nu <= DW_EXPAND_CH);
  LLVMValueRef w = rt_jit_node(L, e->conv->call.args[1])->data;
  LLVMValueRef init[DW_EXPAND_CH * DW_EXPAND_VECS], next[DW_EXPAND_CH * DW_EXPAND_VECS], x[DW_EXPAND_VECS];
  for (int32_t a = 0; a < nacc; ++a) init[a] = LLVMConstNull(rt_jit_tpl_vec(L, vw));
  rt_jit_loop_t lk;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, e->k), nacc, init, &lk);
  LLVMValueRef src = rt_jit_tpl_gep(L, xrow, LLVMBuildMul(B, lk.iv, rt_jit_i64(L, c->h * c->w), ""));
  for (int32_t g = 0; g < m; ++g) {
    LLVMValueRef ig = LLVMBuildAdd(B, i0, rt_jit_i64(L, (int64_t)g * c->sw * vw), "");
    dw_load_chunk(L, c, src, ig, vw, tail, &x[g * c->sw]);
  }
  for (int32_t u = 0; u < nu; ++u) {
    LLVMValueRef wk = rt_jit_tpl_splat(
        L, rt_jit_tpl_loadf(L, w, LLVMBuildAdd(B, LLVMBuildMul(B, gi[u], rt_jit_i64(L, e->k), ""), lk.iv, "")), vw);
    for (int32_t v = 0; v < nx; ++v) next[u * nx + v] = rt_jit_intrinsic(L, "llvm.fma", wk, x[v], lk.carry[u * nx + v]);
  }
  rt_jit_loop_end(L, &lk, next);
  LLVMValueRef left = LLVMBuildSub(B, rt_jit_i64(L, c->w), i0, "");
  for (int32_t u = 0; u < nu; ++u) {
    LLVMValueRef idx[4] = {n, gi[u], rt_jit_i64(L, 0), rt_jit_i64(L, 0)}, v[DW_EXPAND_VECS];
    for (int32_t s = 0; s < nx; ++s) {
      RT_RETURN_IF_ERROR(rt_jit_tpl_vepi_uniform(L, e->conv, e->out, 2, 4, idx, lk.carry[u * nx + s], &v[s]));
      if (tail) {
        LLVMValueRef mk = rt_jit_tpl_lanes_below(L, LLVMBuildSub(B, left, rt_jit_i64(L, (int64_t)s * vw), ""), vw);
        v[s] = LLVMBuildSelect(B, mk, v[s], LLVMConstNull(rt_jit_tpl_vec(L, vw)), "");
      }
    }
    for (int32_t g = 0; g < m; ++g) {
      LLVMValueRef ig = LLVMBuildAdd(B, i0, rt_jit_i64(L, (int64_t)g * c->sw * vw), "");
      dw_store_chunk(L, c, &v[g * c->sw], dst[u], ig, y->istr, y->shift, vw);
    }
  }
  return RT_OK;
}

/* The phase images of the unit's nu channels g0 + [0, nu) of image n
 * (channel u's at wsx + u*xsize; past the channel count the last channel
 * again), from the expand (dw_copy_raw's layout and order, the values
 * computed): per input row of the span, whole chunks of columns, then
 * the last one masked; each chunk's columns for DW_EXPAND_CH channels at a time, so
 * the chunk's input (k x a few vectors) is read from L1 for all but the
 * first group. Everything a chunk does not write stays zero. */
static rt_status_t dw_expand_raw(rt_jit_lower_t *L, const conv_ctx_t *cc, const dw_expand_t *e, int32_t nu,
                                 LLVMValueRef n, LLVMValueRef g0, const dw_span_t *s, LLVMValueRef wsx,
                                 const dw_layout_t *y, int32_t vw) {
  const rt_jit_conv2d_t *c = &cc->c;
  LLVMBuilderRef B = L->b;
  /* 4 vectors of columns per chunk on 16 lanes (2 on 8): 16 (8) FMA
   * chains with 4 channels, within the registers of either. */
  const int32_t m = (int32_t)((vw >= 16 ? 4 : 2) / c->sw), ng = nu < DW_EXPAND_CH ? nu : DW_EXPAND_CH;
  RT_ASSERT(nu % ng == 0);
  const int64_t span = m * c->sw * vw, nchunk = (c->w + span - 1) / span, nwhole = c->w / span;
  LLVMValueRef x0 = rt_jit_tpl_gep(L, rt_jit_node(L, e->conv->call.args[0])->data,
                                   LLVMBuildMul(B, c->n == 1 ? rt_jit_i64(L, 0) : n, rt_jit_i64(L, e->k * c->h * c->w), ""));
  rt_jit_loop_t li, lj, lg;
  rt_jit_loop_begin(L, s->ilo, s->ihi, 0, NULL, &li);
  LLVMValueRef prow = LLVMBuildAdd(B, li.iv, rt_jit_i64(L, c->pt), "");
  LLVMValueRef py = LLVMBuildURem(B, prow, rt_jit_i64(L, c->sh), "");
  LLVMValueRef r = LLVMBuildUDiv(B, prow, rt_jit_i64(L, c->sh), "");
  LLVMValueRef xrow = rt_jit_tpl_gep(L, x0, LLVMBuildMul(B, li.iv, rt_jit_i64(L, c->w), ""));
  LLVMValueRef doff = LLVMBuildAdd(B, LLVMBuildMul(B, py, rt_jit_i64(L, c->sw * y->istr), ""),
                                   LLVMBuildMul(B, r, rt_jit_i64(L, y->wqs), ""), "");
  for (int32_t part = 0; part < 2; ++part) {
    /* part 0: the whole chunks (a loop), part 1: the last, partial one. */
    if (part == 0 ? nwhole == 0 : nchunk == nwhole) continue;
    LLVMValueRef i0 = rt_jit_i64(L, nwhole * span);
    if (part == 0) {
      rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, nwhole), 0, NULL, &lj);
      i0 = LLVMBuildMul(B, lj.iv, rt_jit_i64(L, span), "");
    }
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, nu / ng), 0, NULL, &lg);
    LLVMValueRef gi[DW_EXPAND_CH], dst[DW_EXPAND_CH];
    for (int32_t u = 0; u < ng; ++u) {
      LLVMValueRef slot = LLVMBuildAdd(B, LLVMBuildMul(B, lg.iv, rt_jit_i64(L, ng), ""), rt_jit_i64(L, u), "");
      gi[u] = rt_jit_min(L, LLVMBuildAdd(B, g0, slot, ""), rt_jit_i64(L, c->g - 1));
      dst[u] = rt_jit_tpl_gep(L, wsx, LLVMBuildAdd(B, LLVMBuildMul(B, slot, rt_jit_i64(L, y->xsize), ""), doff, ""));
    }
    RT_RETURN_IF_ERROR(dw_expand_chunk(L, cc, e, ng, m, n, gi, xrow, dst, i0, y, vw, part == 1));
    rt_jit_loop_end(L, &lg, NULL);
    if (part == 0) rt_jit_loop_end(L, &lj, NULL);
  }
  rt_jit_loop_end(L, &li, NULL);
  return RT_OK;
}

/* Phase images one fused unit keeps at most (bytes). Larger units read
 * the expand's input fewer times but leave fewer units to split over
 * threads: mobilenet_v2 on 2 threads ran 3.84-3.86 ms with 128 KiB,
 * slower with 512 (a 56x56 layer in 5 units of 32 channels). */
#define DW_EXPAND_UNIT_BYTES (128 << 10)

/* Channels of one fused task unit: as many groups of DW_EXPAND_CH as
 * DW_EXPAND_UNIT_BYTES of phase images hold (at least one), all the
 * channels when fewer. */
static int32_t dw_expand_unit(const rt_jit_conv2d_t *c, const dw_layout_t *y) {
  if (c->g <= DW_EXPAND_CH) return (int32_t)c->g;
  int64_t groups = DW_EXPAND_UNIT_BYTES / (y->xsize * 4 * DW_EXPAND_CH);
  const int64_t need = (c->g + DW_EXPAND_CH - 1) / DW_EXPAND_CH;
  if (groups < 1) groups = 1;
  if (groups > need) groups = need;
  return (int32_t)(groups * DW_EXPAND_CH);
}

/* Row groups of one band of a fused expand + depthwise kernel (ngroups:
 * one band). Where the expand's input (all k channels) outgrows half of
 * L2, the rows that a band reads take at most a quarter of it, so that
 * every unit of the band (each computing its channels' expand from all
 * of them) finds them there: a unit over the whole image read them from
 * L3 once per unit (EfficientNet-B0's and MobileNet-v2's 16 -> 96 at
 * 112x112: 800 KB, 24 times; that kernel 0.45 -> 0.40 ms, 0.33-0.38 ->
 * 0.29-0.32 with ReLU6, on a 1 MiB L2). The band's first input rows (the
 * kernel's reach above its first output row) are computed again by the
 * next band's units, so an input that fits (24 -> 144 at 56x56, 300 KB)
 * stays one band (two ran 2-4% slower). At least one group. */
static int64_t dw_expand_band(rt_jit_lower_t *L, const rt_jit_conv2d_t *c, const dw_expand_t *ex, int32_t nr) {
  const int64_t row_bytes = ex->k * c->w * 4, l2 = L->target->l2_bytes;
  const int64_t ngroups = (c->oh + nr - 1) / nr;
  if (row_bytes * c->h <= l2 / 2) return ngroups;
  const int64_t rows = (l2 / 4 / row_bytes - (c->kh - 1) * c->dh) / c->sh; /* output rows */
  const int64_t bg = rows / nr;
  return bg > 1 ? bg : 1;
}

/* conv2d.depthwise with the expand fused (FuseExpandDepthwise): a task
 * unit is dw_expand_unit's channels of one image (the last unit of an
 * image repeats its last channel in the slots past the count and stores
 * nothing for them); their phase images come from the expand
 * (dw_expand_raw), then each channel's rows (nr x nv chunks, dw_plan with
 * one channel) and its epilogue, one channel after the other in a loop.
 * With by_rows (DW_ROW_SPLIT_MIN), every task computes every unit, for its
 * share of the output rows and the input rows they read (dw_span). */
static rt_status_t conv_depthwise_expand(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const conv_ctx_t *cc,
                                         const dw_expand_t *ex, const dw_layout_t *y, bool by_rows, int32_t nr,
                                         int32_t nv, const rt_ir_expr_t *out, LLVMValueRef data, LLVMValueRef task,
                                         LLVMValueRef ntasks) {
  const rt_jit_conv2d_t *c = &cc->c;
  LLVMBuilderRef B = L->b;
  const int32_t vw = p->vw, nu = dw_expand_unit(c, y);
  const int64_t gunits = (c->g + nu - 1) / nu, units = c->n * gunits;
  rt_jit_tpl_wide(L, vw);
  dw_span_t sp;
  dw_span(L, c, units, nr, by_rows, task, ntasks, &sp);
  const bool direct = rt_jit_tpl_vepi_uniform_ok(L, p->anchor, out, 2, 4);
  LLVMValueRef wsx, wout;
  rt_jit_if_t have;
  /* (a direct store needs no output block: one vector, unused) */
  dw_ws_begin(L, nu * y->xsize * 4, direct ? vw * 4 : y->oblock * 4, &wsx, &wout, &have);
  zero_run(L, wsx, 0, nu * y->xsize);
  /* Bands of bg row groups, the units inside (dw_expand_band). */
  const int64_t bg = dw_expand_band(L, c, ex, nr);
  rt_jit_loop_t lband, lb, lu;
  dw_span_t task_sp = sp;
  if (bg < sp.ngroups) {
    LLVMValueRef ng = LLVMBuildSub(B, task_sp.ghi, task_sp.glo, "");
    LLVMValueRef nb = LLVMBuildUDiv(B, LLVMBuildAdd(B, ng, rt_jit_i64(L, bg - 1), ""), rt_jit_i64(L, bg), "");
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), nb, 0, NULL, &lband);
    sp.glo = LLVMBuildAdd(B, task_sp.glo, LLVMBuildMul(B, lband.iv, rt_jit_i64(L, bg), ""), "");
    sp.ghi = rt_jit_min(L, LLVMBuildAdd(B, sp.glo, rt_jit_i64(L, bg), ""), task_sp.ghi);
    dw_span_set_rows(L, c, nr, &sp);
  }
  rt_jit_loop_begin(L, sp.ulo, sp.uhi, 0, NULL, &lb);
  LLVMValueRef n = LLVMBuildUDiv(B, lb.iv, rt_jit_i64(L, gunits), "");
  LLVMValueRef g0 = LLVMBuildMul(B, LLVMBuildURem(B, lb.iv, rt_jit_i64(L, gunits), ""), rt_jit_i64(L, nu), "");
  RT_RETURN_IF_ERROR(dw_expand_raw(L, cc, ex, nu, n, g0, &sp, wsx, y, vw));
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, nu), 0, NULL, &lu);
  LLVMValueRef gc = LLVMBuildAdd(B, g0, lu.iv, "");
  LLVMValueRef g = rt_jit_min(L, gc, rt_jit_i64(L, c->g - 1));
  dw_ctx_t d;
  dw_ctx_init(c, y, 1, vw, &d);
  d.xp[0] = rt_jit_tpl_gep(L, wsx, LLVMBuildMul(B, lu.iv, rt_jit_i64(L, y->xsize), ""));
  d.out[0] = wout;
  LLVMValueRef valid = LLVMBuildICmp(B, LLVMIntSLT, gc, rt_jit_i64(L, c->g), "");
  dw_direct_t dd = {.anchor = p->anchor, .out = out, .data = data, .n = n, .c = c->o, .plane = c->oh * c->ow};
  dd.gi[0] = g, dd.valid[0] = c->g % nu ? valid : NULL;
  if (direct) d.direct = &dd;
  RT_RETURN_IF_ERROR(dw_weights(L, cc, g, vw, d.wv[0]));
  RT_RETURN_IF_ERROR(dw_span_rows(L, &d, &sp, c->oh, nr, nv, y->nvec));
  if (!direct) RT_RETURN_IF_ERROR(dw_store_channel(L, p, out, data, c, &sp, n, g, valid, wout));
  rt_jit_loop_end(L, &lu, NULL);
  rt_jit_loop_end(L, &lb, NULL);
  if (bg < task_sp.ngroups) rt_jit_loop_end(L, &lband, NULL);
  dw_ws_end(L, &have, wsx, wout);
  return RT_OK;
}

/* conv2d.depthwise. A task unit is nch consecutive channels of one image
 * (the last unit of an image computes its last channel again in the
 * channel slots past the channel count and does not store them). Per
 * unit: the phase images of each channel (dw_copy_raw for an input in
 * memory at column stride 1 or 2, else copy_phases through the input's
 * element expression), the weights splatted once, then the output rows
 * nr at a time (the rows left over as one shorter group): the OW columns
 * in chunks of nv vectors (dw_rows, dw_chunk; nr, nv and the channels of
 * a unit from dw_plan), each output a sum of the kh*kw taps read at
 * constant offsets of the phase images, so at stride 2 too every load is
 * contiguous and only the vectors covering [0, OW) are computed.
 * Channels are taken together where a row has one or two vectors (7x7,
 * 14x14 at 8 lanes). The rows go compact to a block per channel and the
 * epilogue writes each channel out (dw_store_channel). No
 * software prefetch of the next unit: on Zen 3 it made dw3x3 144@56x56
 * take 0.27 ms instead of 0.15 (prefetched into L1, evicting the phase
 * images), 0.23 instead of 0.18 into L2 (the hardware prefetcher follows
 * the sequential reads of the copy); spread over the row groups of the
 * column-ordered chunks, 96@112x112 stride 2 went from 0.22 to 0.20 of
 * the peak. */
static rt_status_t conv_depthwise(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const conv_ctx_t *cc,
                                  const rt_ir_expr_t *out, LLVMValueRef data, LLVMValueRef task,
                                  LLVMValueRef ntasks) {
  const rt_jit_conv2d_t *c = &cc->c;
  LLVMBuilderRef B = L->b;
  const int32_t vw = p->vw;
  dw_expand_t ex = {0};
  const bool fused = dw_expand_of(L, cc, &ex);
  const bool raw = fused || (rt_jit_tpl_raw(L, cc->x) && c->sw <= 2);
  dw_layout_t y;
  dw_layout(c, vw, raw, &y);
  int32_t nch, nr, nv;
  /* Channels are taken together on small images (rows of 1-2 vectors:
   * 7x7, 14x14 at 8 lanes), where a unit's fixed costs weigh; larger
   * ones ran slower so (bench_kernels dw5s1_240_28 0.54 of the peak with
   * 4 channels against 0.67 with 1, dw3s1_144_56 0.47 against 0.52 with
   * 2: the unrolled chunk outgrows the op cache). */
  const int64_t maxch = y.nvec <= 2 && !fused ? DW_MAX_CH : 1;
  const bool by_rows = fused && c->n == 1 && c->oh >= DW_ROW_SPLIT_MIN;
  dw_plan(c, y.nvec, maxch, by_rows, &nch, &nr, &nv);
  if (fused) return conv_depthwise_expand(L, p, cc, &ex, &y, by_rows, nr, nv, out, data, task, ntasks);
  const int64_t gunits = (c->g + nch - 1) / nch, units = c->n * gunits;
  rt_jit_tpl_wide(L, vw);
  dw_span_t sp;
  dw_span(L, c, units, nr, false, task, ntasks, &sp);
  const bool direct = rt_jit_tpl_vepi_uniform_ok(L, p->anchor, out, 2, 4);
  LLVMValueRef wsx, wout;
  rt_jit_if_t have;
  dw_ws_begin(L, nch * y.xsize * 4, direct ? vw * 4 : nch * y.oblock * 4, &wsx, &wout, &have);
  if (raw) zero_run(L, wsx, 0, nch * y.xsize);
  rt_jit_loop_t lb;
  rt_jit_loop_begin(L, sp.ulo, sp.uhi, 0, NULL, &lb);
  LLVMValueRef n = LLVMBuildUDiv(B, lb.iv, rt_jit_i64(L, gunits), "");
  LLVMValueRef g0 = LLVMBuildMul(B, LLVMBuildURem(B, lb.iv, rt_jit_i64(L, gunits), ""), rt_jit_i64(L, nch), "");
  dw_ctx_t d;
  dw_ctx_init(c, &y, nch, vw, &d);
  LLVMValueRef gi[DW_MAX_CH], valid[DW_MAX_CH];
  for (int32_t ch = 0; ch < nch; ++ch) {
    LLVMValueRef gc = LLVMBuildAdd(B, g0, rt_jit_i64(L, ch), "");
    valid[ch] = LLVMBuildICmp(B, LLVMIntSLT, gc, rt_jit_i64(L, c->g), "");
    gi[ch] = rt_jit_min(L, gc, rt_jit_i64(L, c->g - 1));
    d.xp[ch] = rt_jit_tpl_gep(L, wsx, rt_jit_i64(L, ch * y.xsize));
    d.out[ch] = direct ? wout : rt_jit_tpl_gep(L, wout, rt_jit_i64(L, ch * y.oblock));
    if (raw) {
      dw_copy_raw(L, cc, d.xp[ch], n, gi[ch], &sp, y.wqs, y.istr, y.shift, vw);
    } else {
      RT_RETURN_IF_ERROR(copy_phases(L, cc, d.xp[ch], n, gi[ch], y.hq, y.wq, y.xsize));
    }
    RT_RETURN_IF_ERROR(dw_weights(L, cc, gi[ch], vw, d.wv[ch]));
  }
  dw_direct_t dd = {.anchor = p->anchor, .out = out, .data = data, .n = n, .c = c->o, .plane = c->oh * c->ow};
  for (int32_t ch = 0; ch < nch; ++ch) dd.gi[ch] = gi[ch], dd.valid[ch] = c->g % nch ? valid[ch] : NULL;
  if (direct) d.direct = &dd;
  RT_RETURN_IF_ERROR(dw_span_rows(L, &d, &sp, c->oh, nr, nv, y.nvec));
  for (int32_t ch = 0; ch < nch && !direct; ++ch) {
    RT_RETURN_IF_ERROR(dw_store_channel(L, p, out, data, c, &sp, n, gi[ch], valid[ch], d.out[ch]));
  }
  rt_jit_loop_end(L, &lb, NULL);
  dw_ws_end(L, &have, wsx, wout);
  return RT_OK;
}

rt_status_t rt_jit_tpl_conv2d(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_ir_expr_t *out,
                              LLVMValueRef data, LLVMValueRef task, LLVMValueRef ntasks) {
  conv_ctx_t cc = {.x = p->anchor->call.args[0], .w = p->anchor->call.args[1]};
  if (!rt_jit_tpl_conv2d_attrs(p->anchor, &cc.c)) {
    return RT_STATUS(INTERNAL, "%s", "conv2d attributes changed between planning and lowering");
  }
  if (p->kind == RT_JIT_TPL_CONV_DW && cc.c.kh * cc.c.kw <= DW_MAX_TAPS) {
    return conv_depthwise(L, p, &cc, out, data, task, ntasks);
  }
  if (p->kind == RT_JIT_TPL_CONV_IM2COL_T) {
    rt_jit_gemm_core_t g = {
        .anchor = p->anchor, .out = out, .data = data, .mr = p->mr, .nv = p->nv, .vw = p->vw,
        .user = &cc,
        .nb = cc.c.n * cc.c.g, .m = cc.c.oh * cc.c.ow, .n = cc.c.og,
        .k = cc.c.cg * cc.c.kh * cc.c.kw,
        .k_inner = true, .a_m_inner = true, .a_elem = ict_a_elem, .b_elem = ict_b_elem,
        .out_idx = ict_out_idx, .vec_d0 = 1, .vec_d1 = 2, .vec_t_d0 = 2, .vec_t_d1 = 4,
        .split_rows = cc.c.oh * cc.c.ow >= IM2COLT_SPLIT_ROWS_PX,
    };
    /* The input in memory, 1x1 without padding: A read in place (with a
     * stride by a table of up to 2^16 pixels, i32 offsets into the
     * plane). */
    const rt_jit_conv2d_t *c = &cc.c;
    if (c->kh == 1 && c->kw == 1 && c->pt == 0 && c->pl == 0 && c->pb == 0 && c->pr == 0 &&
        (c->oh - 1) * c->sh < c->h && (c->ow - 1) * c->sw < c->w && rt_jit_tpl_raw(L, cc.x)) {
      const bool dense_rows = c->sh == 1 && c->sw == 1 && c->oh == c->h && c->ow == c->w;
      if (dense_rows || (g.m <= 65536 && c->h * c->w <= INT32_MAX)) {
        g.a_base = x_group_base;
        g.a_ld = c->h * c->w;
        if (!dense_rows) {
          g.a_rows = x_rows;
          g.a_row_step = c->ow % g.mr == 0 && c->sw <= 2 ? c->sw : 0;
        }
      }
    }
    if (rt_jit_tpl_raw(L, cc.w)) {
      if (cc.c.wpack) {
        g.b_panels = w_panels; /* planned with vw*nv = wpack, one group */
      } else {
        g.b_base = w_group_base;
      }
    }
    /* A k x k kernel on an input in memory: each task copies the input
     * zero-padded (up to 16 MiB; offsets in i32) and packs A from it by
     * two tables (pixels, taps); else A element by element. */
    cc.hp = c->h + c->pt + c->pb, cc.wp = c->w + c->pl + c->pr;
    const int64_t pad_bytes = c->n * c->c * cc.hp * cc.wp * 4;
    if ((c->kh > 1 || c->kw > 1) && rt_jit_tpl_raw(L, cc.x) && pad_bytes <= (16 << 20) && g.m <= 65536 &&
        g.k <= 65536) {
      cc.xpad = rt_jit_tpl_ws_alloc(L, pad_bytes);
      rt_jit_if_t have;
      rt_jit_if_begin(L, LLVMBuildIsNotNull(L->b, cc.xpad, ""), &have);
      copy_padded(L, &cc);
      g.a_base = xpad_group_base;
      g.a_ld = 0;
      g.a_rows = xpad_rows;
      g.a_koff = xpad_koff;
      g.a_row_step = c->ow % g.mr == 0 && c->sw <= 2 ? c->sw : 0;
      RT_RETURN_IF_ERROR(rt_jit_tpl_gemm_core(L, &g, task, ntasks));
      rt_jit_if_else(L, &have, NULL);
      rt_jit_flag_error(L, LLVMConstInt(L->i1, 1, 0), "out of workspace memory (conv2d.im2colT)");
      (void)rt_jit_if_end(L, &have, NULL);
      rt_jit_tpl_ws_free(L, cc.xpad);
      return RT_OK;
    }
    return rt_jit_tpl_gemm_core(L, &g, task, ntasks);
  }
  if (p->kind != RT_JIT_TPL_CONV_IM2COL) return conv_direct(L, p, &cc, out, data, task, ntasks);
  rt_jit_gemm_core_t g = {
      .anchor = p->anchor, .out = out, .data = data, .mr = p->mr, .nv = p->nv, .vw = p->vw,
      .user = &cc,
      .nb = cc.c.n * cc.c.g, .m = cc.c.og, .n = cc.c.oh * cc.c.ow, .k = cc.c.cg * cc.c.kh * cc.c.kw,
      .k_inner = false, .a_elem = ic_a_elem, .b_elem = ic_b_elem, .out_idx = ic_out_idx,
  };
  if (rt_jit_tpl_raw(L, cc.w)) g.a_base = w_group_base;
  return rt_jit_tpl_gemm_core(L, &g, task, ntasks);
}
