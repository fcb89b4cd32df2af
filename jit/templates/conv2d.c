/* The conv2d templates (NCHW data, OIHW weight, float32, static shapes).
 *
 * conv2d.direct (any stride, kernel size, dilation, padding, groups; 1x1
 * kernels only at stride 1): the input of one (image, group) is copied
 * once per task into workspace phase images: the padded input split by
 * row and column residue modulo the stride, image (c, py, px) holding
 * padded element (r*sh + py, col*sw + px) at [r][col] (hq x wq each; at
 * stride 1 this is just the padded image Xp[c][Hp][Wp]), plus a zero
 * tail. The copy goes through the input's element expression, so a fused
 * prologue is applied there and the inner loop has no bounds checks.
 * Output positions are numbered q = oh*wq + ow; the tap (c, kh, kw) of
 * output q then reads one phase image at q + off[k] (offset_table), so
 * vw*nv consecutive q are one contiguous load per tap whatever the
 * stride. That makes the convolution a GEMM C[o][q] = sum_k W[o][k] *
 * X[q + off[k]] with A = the weight rows (OIHW rows are contiguous in k),
 * B rows read in place at a constant offset table (no packing), and the
 * register micro-kernel of templates.c. The columns ow in [OW, wq) of each
 * row are computed and dropped (OW/wq of the work is useful: 56/58 .. 7/9
 * on ResNet's 3x3 layers, 112/115 on its 7x7 stride-2 stem).
 *
 * conv2d.depthwise: the same with one output channel per group (mr = 1,
 * 4 vectors of vw positions), split over channels.
 *
 * conv2d.im2col (1x1 kernels with a stride > 1): the GEMM core of dense.c
 * with B(k, p) = X(c, oh*sh - pt, ow*sw - pl) gathered into the packed
 * panels, walking p inside k.
 *
 * The epilogue (bias, scale, relu, residual add...) runs on the task's part
 * of the C block, per output element, as everywhere (templates.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"
#include "jit/templates/templates.h"
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
  const int64_t *x = in[0].shape, *w = in[1].shape;
  c->n = x[0], c->c = x[1], c->h = x[2], c->w = x[3];
  c->o = w[0], c->cg = w[1], c->kh = w[2], c->kw = w[3];
  c->oh = y[2], c->ow = y[3];
  c->g = p.groups;
  if (c->c % c->g || c->o % c->g || c->c / c->g != c->cg || y[1] != c->o) return false;
  c->og = c->o / c->g;
  c->sh = p.strides[0], c->sw = p.strides[1], c->dh = p.dilation[0], c->dw = p.dilation[1];
  c->pt = p.pad_before[0], c->pl = p.pad_before[1], c->pb = p.pad_after[0], c->pr = p.pad_after[1];
  /* The output shape the type relation gave must be the one we compute. */
  const int64_t eh = (c->h + c->pt + c->pb - c->dh * (c->kh - 1) - 1) / c->sh + 1;
  const int64_t ew = (c->w + c->pl + c->pr - c->dw * (c->kw - 1) - 1) / c->sw + 1;
  return eh == c->oh && ew == c->ow && c->oh > 0 && c->ow > 0;
}

/* ---- shared pieces ------------------------------------------------------------ */

typedef struct conv_ctx_t {
  rt_jit_conv2d_t c;
  const rt_ir_expr_t *x, *w;
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

/* Weight element (o, k) with k = (ci*KH + y)*KW + x. */
static rt_status_t w_at(rt_jit_lower_t *L, const conv_ctx_t *cc, LLVMValueRef o, LLVMValueRef k,
                        LLVMValueRef *out) {
  LLVMBuilderRef B = L->b;
  const int64_t khw = cc->c.kh * cc->c.kw;
  LLVMValueRef ci = LLVMBuildUDiv(B, k, rt_jit_i64(L, khw), "");
  LLVMValueRef rem = LLVMBuildURem(B, k, rt_jit_i64(L, khw), "");
  LLVMValueRef idx[4] = {o, ci, LLVMBuildUDiv(B, rem, rt_jit_i64(L, cc->c.kw), ""),
                         LLVMBuildURem(B, rem, rt_jit_i64(L, cc->c.kw), "")};
  return rt_jit_elem(L, cc->w, idx, out);
}

/* ---- im2col through the GEMM core ------------------------------------------------ */

static LLVMValueRef ic_a_base(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b) {
  const conv_ctx_t *cc = g->user;
  LLVMValueRef gi = LLVMBuildURem(L->b, b, rt_jit_i64(L, cc->c.g), "");
  return rt_jit_tpl_gep(L, rt_jit_node(L, cc->w)->data,
                        LLVMBuildMul(L->b, gi, rt_jit_i64(L, cc->c.og * g->k), ""));
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
  char name[64];
  snprintf(name, sizeof name, "%s.taps%d", L->symbol, L->num_strings++);
  LLVMValueRef g = LLVMAddGlobal(L->m, LLVMTypeOf(init), name);
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  LLVMSetAlignment(g, 64);
  *out_max = mx;
  return g;
}

static void direct_tiles(rt_jit_lower_t *L, int32_t mr, int32_t mr_full, int32_t nv, int32_t vw,
                         int64_t K,
                         LLVMValueRef t_lo, LLVMValueRef t_hi, LLVMValueRef q_lo, LLVMValueRef q_hi,
                         LLVMValueRef abase, LLVMValueRef xp, LLVMValueRef tab, LLVMValueRef wsc,
                         int64_t qpad) {
  LLVMBuilderRef B = L->b;
  rt_jit_loop_t lt, lq;
  rt_jit_loop_begin(L, t_lo, t_hi, 0, NULL, &lt);
  LLVMValueRef i0 = LLVMBuildMul(B, lt.iv, rt_jit_i64(L, mr_full), "");
  LLVMValueRef arow[RT_JIT_TPL_MAX_MR];
  for (int32_t r = 0; r < mr; ++r) {
    arow[r] = rt_jit_tpl_gep(L, abase, LLVMBuildMul(B, LLVMBuildAdd(B, i0, rt_jit_i64(L, r), ""), rt_jit_i64(L, K), ""));
  }
  rt_jit_loop_begin(L, q_lo, q_hi, 0, NULL, &lq);
  LLVMValueRef q0 = LLVMBuildMul(B, lq.iv, rt_jit_i64(L, (int64_t)vw * nv), "");
  LLVMValueRef c = rt_jit_tpl_gep(L, wsc, LLVMBuildAdd(B, LLVMBuildMul(B, i0, rt_jit_i64(L, qpad), ""), q0, ""));
  rt_jit_tpl_micro(L, mr, nv, vw, K, arow, rt_jit_tpl_gep(L, xp, q0), tab, 0, c, qpad);
  rt_jit_loop_end(L, &lq, NULL);
  rt_jit_loop_end(L, &lt, NULL);
}

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
  /* Split: (image, group) pairs, else output-channel tiles, else q tiles. */
  LLVMValueRef b_lo = rt_jit_i64(L, 0), b_hi = rt_jit_i64(L, nbg);
  LLVMValueRef t_lo = rt_jit_i64(L, 0), t_hi = rt_jit_i64(L, mt);
  LLVMValueRef q_lo = rt_jit_i64(L, 0), q_hi = rt_jit_i64(L, qt);
  if (nbg >= 4) {
    rt_jit_tpl_split(L, nbg, task, ntasks, &b_lo, &b_hi);
  } else if (mt >= 4) {
    rt_jit_tpl_split(L, mt, task, ntasks, &t_lo, &t_hi);
  } else {
    rt_jit_tpl_split(L, qt, task, ntasks, &q_lo, &q_hi);
  }
  const bool wraw = rt_jit_tpl_raw(L, cc->w);
  LLVMValueRef wsx = rt_jit_tpl_ws_alloc(L, xsize * 4);
  LLVMValueRef wsc = rt_jit_tpl_ws_alloc(L, M * qpad * 4);
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
  /* The phase images of (n, group gi), then the zero tail: image
   * (ci, py, px) holds padded element (r*sh + py, col*sw + px) at
   * ((ci*sh + py)*sw + px)*hq*wq + r*wq + col (with stride 1, the padded
   * image itself). Positions past the padded image are zero. Each row is
   * three runs: zeros left of the image, the image's elements (no bounds
   * checks: a plain or strided copy), zeros right of it. */
  {
    rt_jit_loop_t lc, ly, lx;
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, nph), 0, NULL, &lc);
    LLVMValueRef ci = LLVMBuildUDiv(B, lc.iv, rt_jit_i64(L, c->sh * c->sw), "");
    LLVMValueRef ph = LLVMBuildURem(B, lc.iv, rt_jit_i64(L, c->sh * c->sw), "");
    LLVMValueRef py = LLVMBuildUDiv(B, ph, rt_jit_i64(L, c->sw), "");
    LLVMValueRef px = LLVMBuildURem(B, ph, rt_jit_i64(L, c->sw), "");
    LLVMValueRef cin = LLVMBuildAdd(B, LLVMBuildMul(B, gi, rt_jit_i64(L, c->cg), ""), ci, "");
    /* Columns col of this phase inside the image: col*sw + px - pl in
     * [0, W), i.e. col in [lo, hi) (both clipped to [0, wq]). */
    LLVMValueRef zero = rt_jit_i64(L, 0), sw1 = rt_jit_i64(L, c->sw - 1), swv = rt_jit_i64(L, c->sw);
    LLVMValueRef lo = LLVMBuildSDiv(B, LLVMBuildAdd(B, rt_jit_max(L, LLVMBuildSub(B, rt_jit_i64(L, c->pl), px, ""), zero), sw1, ""), swv, "");
    LLVMValueRef hi = LLVMBuildSDiv(B, LLVMBuildAdd(B, rt_jit_max(L, LLVMBuildSub(B, rt_jit_i64(L, c->pl + c->w), px, ""), zero), sw1, ""), swv, "");
    lo = rt_jit_min(L, lo, rt_jit_i64(L, wq));
    hi = rt_jit_max(L, rt_jit_min(L, hi, rt_jit_i64(L, wq)), lo);
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, hq), 0, NULL, &ly);
    LLVMValueRef ih = LLVMBuildSub(B, LLVMBuildAdd(B, LLVMBuildMul(B, ly.iv, rt_jit_i64(L, c->sh), ""), py, ""),
                                   rt_jit_i64(L, c->pt), "");
    LLVMValueRef row_ok = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, ih, zero, ""),
                                       LLVMBuildICmp(B, LLVMIntSLT, ih, rt_jit_i64(L, c->h), ""), "");
    /* A row outside the image (rows past the padded image included) is
     * all zeros. */
    LLVMValueRef rlo = LLVMBuildSelect(B, row_ok, lo, rt_jit_i64(L, wq), "");
    LLVMValueRef rhi = LLVMBuildSelect(B, row_ok, hi, rt_jit_i64(L, wq), "");
    LLVMValueRef row = rt_jit_tpl_gep(
        L, wsx, LLVMBuildMul(B, LLVMBuildAdd(B, LLVMBuildMul(B, lc.iv, rt_jit_i64(L, hq), ""), ly.iv, ""), rt_jit_i64(L, wq), ""));
    rt_jit_loop_begin(L, zero, rlo, 0, NULL, &lx);
    rt_jit_tpl_storef(L, LLVMConstReal(L->f32, 0), row, lx.iv);
    rt_jit_loop_end(L, &lx, NULL);
    rt_jit_loop_begin(L, rlo, rhi, 0, NULL, &lx);
    LLVMValueRef iw = LLVMBuildSub(B, LLVMBuildAdd(B, LLVMBuildMul(B, lx.iv, swv, ""), px, ""), rt_jit_i64(L, c->pl), "");
    LLVMValueRef idx[4] = {c->n == 1 ? zero : n, cin, ih, iw}, v;
    RT_RETURN_IF_ERROR(rt_jit_elem(L, cc->x, idx, &v));
    rt_jit_tpl_storef(L, v, row, lx.iv);
    rt_jit_loop_end(L, &lx, NULL);
    rt_jit_loop_begin(L, rhi, rt_jit_i64(L, wq), 0, NULL, &lx);
    rt_jit_tpl_storef(L, LLVMConstReal(L->f32, 0), row, lx.iv);
    rt_jit_loop_end(L, &lx, NULL);
    rt_jit_loop_end(L, &ly, NULL);
    rt_jit_loop_end(L, &lc, NULL);
    rt_jit_loop_t lz;
    rt_jit_loop_begin(L, rt_jit_i64(L, nph * hqwq), rt_jit_i64(L, xsize), 0, NULL, &lz);
    rt_jit_tpl_storef(L, LLVMConstReal(L->f32, 0), wsx, lz.iv);
    rt_jit_loop_end(L, &lz, NULL);
  }
  LLVMValueRef abase = rt_jit_tpl_gep(L, wbase, LLVMBuildMul(B, gi, rt_jit_i64(L, M * K), ""));
  direct_tiles(L, mr, mr, nv, vw, K, t_lo, rt_jit_min(L, t_hi, rt_jit_i64(L, mfull)), q_lo, q_hi, abase,
               wsx, tab, wsc, qpad);
  if (mtail) {
    rt_jit_if_t tail;
    rt_jit_if_begin(L, LLVMBuildICmp(B, LLVMIntSGT, t_hi, rt_jit_i64(L, mfull), ""), &tail);
    direct_tiles(L, mtail, mr, nv, vw, K, rt_jit_i64(L, mfull), rt_jit_i64(L, mfull + 1), q_lo, q_hi,
                 abase, wsx, tab, wsc, qpad);
    rt_jit_if_else(L, &tail, NULL);
    (void)rt_jit_if_end(L, &tail, NULL);
  }
  /* Epilogue: rows of the task's channel tiles, positions of its q range. */
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
  rt_jit_loop_begin(L, x_lo, x_hi, 0, NULL, &ex);
  LLVMValueRef val = rt_jit_tpl_loadf(
      L, wsc, LLVMBuildAdd(B, LLVMBuildMul(B, eo.iv, rt_jit_i64(L, qpad), ""), LLVMBuildAdd(B, rowq, ex.iv, ""), ""));
  LLVMValueRef idx[4] = {n, LLVMBuildAdd(B, LLVMBuildMul(B, gi, rt_jit_i64(L, M), ""), eo.iv, ""), ey.iv, ex.iv};
  RT_RETURN_IF_ERROR(rt_jit_tpl_epilogue(L, p->anchor, out, data, idx, val));
  rt_jit_loop_end(L, &ex, NULL);
  rt_jit_loop_end(L, &ey, NULL);
  rt_jit_loop_end(L, &eo, NULL);
  rt_jit_loop_end(L, &lb, NULL);
  rt_jit_if_else(L, &have, NULL);
  rt_jit_flag_error(L, LLVMConstInt(L->i1, 1, 0), "out of workspace memory (conv2d template)");
  (void)rt_jit_if_end(L, &have, NULL);
  rt_jit_tpl_ws_free(L, wsw);
  rt_jit_tpl_ws_free(L, wsc);
  rt_jit_tpl_ws_free(L, wsx);
  return RT_OK;
}

rt_status_t rt_jit_tpl_conv2d(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_ir_expr_t *out,
                              LLVMValueRef data, LLVMValueRef task, LLVMValueRef ntasks) {
  conv_ctx_t cc = {.x = p->anchor->call.args[0], .w = p->anchor->call.args[1]};
  if (!rt_jit_tpl_conv2d_attrs(p->anchor, &cc.c)) {
    return RT_STATUS(INTERNAL, "%s", "conv2d attributes changed between planning and lowering");
  }
  if (p->kind != RT_JIT_TPL_CONV_IM2COL) return conv_direct(L, p, &cc, out, data, task, ntasks);
  rt_jit_gemm_core_t g = {
      .anchor = p->anchor, .out = out, .data = data, .mr = p->mr, .nv = p->nv, .vw = p->vw,
      .user = &cc,
      .nb = cc.c.n * cc.c.g, .m = cc.c.og, .n = cc.c.oh * cc.c.ow, .k = cc.c.cg * cc.c.kh * cc.c.kw,
      .k_inner = false, .a_elem = ic_a_elem, .b_elem = ic_b_elem, .out_idx = ic_out_idx,
  };
  if (rt_jit_tpl_raw(L, cc.w)) g.a_base = ic_a_base;
  return rt_jit_tpl_gemm_core(L, &g, task, ntasks);
}
