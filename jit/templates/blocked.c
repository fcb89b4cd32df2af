/* The templates of the blocked layouts (issue 18): so far one,
 * conv2d_NCHWc.depthwise, for nn.contrib_depthwise_conv2d_NCHWc over
 * float32 data NCHW{x}c with static shapes, where the channel block x is
 * the template vector width vw (8 on AVX2, 16 on AVX-512) for the data,
 * the kernel (OIHW1i{x}o) and the output, one output channel per input
 * channel, data and weight in memory (params or constants of the kernel),
 * any stride, padding and dilation, at most 64 taps of at most 11 columns.
 * Anything else (another block, a fused prologue on the data or weight)
 * lowers generically (jit/ops/nn.c).
 *
 * With vw channels in a vector a depthwise convolution is pure vector
 * FMAs: output pixel (oy, ox)'s vw channels are the sum over the taps of
 * the input pixel vector (oy*sh - pt + kh*dh, ox*sw - pl + kw*dw) times
 * the tap's weight vector, both one contiguous load; the stride only picks
 * which pixel vector is loaded (no de-interleave, no phase copies).
 *
 * Work: a task takes a range of output rows (n, channel block, oy) of
 * rt_jit_tpl_split over all of them. Per row, the valid kernel rows
 * [kh_lo, kh_hi) (input row inside the image) are computed once, so the
 * top and bottom padding costs no branch in the tap loop. The row's
 * columns split statically into the interior (every kernel column inside
 * the image), done DW_NACC pixels at a time (DW_NACC independent vector
 * accumulators carried through a kh loop; per kh the kw weight vectors are
 * loaded once and each input vector feeds its FMAs), then the interior's
 * last few pixels as one shorter group, then the border columns one pixel
 * each with their out-of-image kernel columns left out at compile time.
 * Out-of-image taps are skipped, never multiplied by zero, so the sums are
 * the reference's terms (NaN and inf inputs included), reassociated.
 *
 * Epilogue: without fused tail ops the accumulators are stored as vectors;
 * with them, through the vector epilogue (epilogue.c, rt_jit_tpl_vepi:
 * the lanes are the output's last dim, the channel block, contiguous)
 * where it takes the tail ops, else element by element through
 * rt_jit_tpl_epilogue. */
#include <string.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"
#include "jit/templates/templates.h"

/* Pixels of a row computed together (independent accumulator chains):
 * with the kw weight vectors and the input vectors in flight they fit the
 * 16 ymm (vw 8) or 32 zmm (vw 16) registers. */
#define DW_NACC8 6
#define DW_NACC16 8
#define DW_MAX_NACC 8
/* Taps and kernel columns at most (the tap loop is unrolled over kw). */
#define DW_MAX_TAPS 64
#define DW_MAX_KW 11
/* Border pixels of a row at most (each is unrolled). */
#define DW_MAX_BORDER 32

typedef struct dw_geom_t {
  int64_t n, cb, h, w, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl;
  int64_t ox_lo, ox_hi; /* interior output columns: every kernel column inside the image */
  int32_t vw;
} dw_geom_t;

static bool dw_geom(const rt_ir_expr_t *call, int32_t vw, dw_geom_t *g) {
  memset(g, 0, sizeof *g);
  if (call->kind != RT_IR_CALL || call->call.callee->kind != RT_IR_OP || call->call.nargs != 2) return false;
  const rt_ir_op_t *op = call->call.callee->op.op;
  if (op->id != RT_OP_NN_DEPTHWISE_CONV2D_NCHWC) return false;
  /* Data and weight in memory: params or constants of the kernel. */
  for (int32_t i = 0; i < 2; ++i) {
    const rt_ir_expr_t *e = call->call.args[i];
    if (e->kind != RT_IR_VAR && e->kind != RT_IR_CONSTANT) return false;
  }
  rt_plan_input_t in[2] = {{.value = NULL}, {.value = NULL}};
  rt_plan_conv_t p;
  rt_status_t st = rt_jit_tensor_type(call->call.args[0], &in[0].dtype, &in[0].rank, &in[0].shape);
  if (!st) st = rt_jit_tensor_type(call->call.args[1], &in[1].dtype, &in[1].rank, &in[1].shape);
  if (!st) st = rt_ir_plan_conv(op, call->call.attrs, 2, in, &p);
  if (st) {
    rt_status_free(st);
    return false;
  }
  if (p.nsp != 2 || p.out_rank != 5) return false;
  if (p.data_block != vw || p.kernel_out_block != vw || p.out_block != vw || p.kernel_in_block != 1) return false;
  if (p.groups != p.in_channels || p.out_channels != p.in_channels || p.kernel_i != 1) return false;
  g->vw = vw;
  g->n = p.batch;
  g->cb = p.in_channels / vw;
  g->h = p.in_size[0];
  g->w = p.in_size[1];
  g->oh = p.out_size[0];
  g->ow = p.out_size[1];
  g->kh = p.kernel_size[0];
  g->kw = p.kernel_size[1];
  g->sh = p.strides[0];
  g->sw = p.strides[1];
  g->dh = p.dilation[0];
  g->dw = p.dilation[1];
  g->pt = p.pad_before[0];
  g->pl = p.pad_before[1];
  if (g->n < 1 || g->cb < 1 || g->oh < 1 || g->ow < 1 || g->kh < 1 || g->kw < 1) return false;
  if (g->kw > DW_MAX_KW || g->kh * g->kw > DW_MAX_TAPS) return false;
  if (g->sh < 1 || g->sw < 1 || g->dh < 1 || g->dw < 1 || g->sh > 64 || g->sw > 64 || g->dh > 64 || g->dw > 64) {
    return false;
  }
  if (g->pt < 0 || g->pl < 0 || g->pt > 1024 || g->pl > 1024) return false;
  /* Offsets far from overflow (larger tensors lower generically). */
  if (g->h > (1 << 16) || g->w > (1 << 16) || g->oh > (1 << 16) || g->ow > (1 << 16) || g->n * g->cb > (1 << 20)) {
    return false;
  }
  /* Interior columns [ox_lo, ox_hi): ox*sw - pl >= 0 and
   * ox*sw - pl + (kw-1)*dw <= w - 1. */
  g->ox_lo = (g->pl + g->sw - 1) / g->sw;
  const int64_t last = g->w - 1 + g->pl - (g->kw - 1) * g->dw;
  g->ox_hi = last < 0 ? 0 : last / g->sw + 1;
  if (g->ox_lo > g->ow) g->ox_lo = g->ow;
  if (g->ox_hi > g->ow) g->ox_hi = g->ow;
  if (g->ox_hi < g->ox_lo) g->ox_hi = g->ox_lo;
  return g->ox_lo + (g->ow - g->ox_hi) <= DW_MAX_BORDER;
}

bool rt_jit_tpl_blocked_dw_attrs(const rt_ir_expr_t *call, int32_t vw) {
  dw_geom_t g;
  return dw_geom(call, vw, &g);
}

/* What every pixel group of one output row shares. */
typedef struct dw_row_t {
  const dw_geom_t *g;
  const rt_ir_expr_t *anchor, *out;
  LLVMValueRef data, x, wt; /* output; the (n, cb) input plane; the cb weight block */
  LLVMValueRef n, cb, oy;   /* the row's indices */
  LLVMValueRef iy0;         /* oy*sh - pt */
  LLVMValueRef kh_lo, kh_hi;
  LLVMValueRef obase;       /* output (n, cb, oy, 0, 0)'s offset */
  bool tail_ops, vepi;
} dw_row_t;

/* np pixels (n, cb, oy, ox0 + p) for p < np; `fixed` >= 0 when ox0 is
 * that constant (a border pixel: kernel columns outside the image are left
 * out), else -1 (interior: every kernel column inside). */
static rt_status_t dw_pixels(rt_jit_lower_t *L, const dw_row_t *r, LLVMValueRef ox0, int64_t fixed, int32_t np) {
  LLVMBuilderRef B = L->b;
  const dw_geom_t *g = r->g;
  const int32_t vw = g->vw;
  const int64_t rowf = g->w * vw;
  LLVMValueRef init[DW_MAX_NACC], next[DW_MAX_NACC];
  for (int32_t p = 0; p < np; ++p) init[p] = LLVMConstNull(rt_jit_tpl_vec(L, vw));
  rt_jit_loop_t lk;
  rt_jit_loop_begin(L, r->kh_lo, r->kh_hi, np, init, &lk);
  for (int32_t p = 0; p < np; ++p) next[p] = lk.carry[p];
  LLVMValueRef iy = LLVMBuildAdd(B, r->iy0, LLVMBuildMul(B, lk.iv, rt_jit_i64(L, g->dh), ""), "");
  /* Input (iy, ox0*sw - pl) as a float offset into the plane. */
  LLVMValueRef xbase = LLVMBuildAdd(B, LLVMBuildMul(B, iy, rt_jit_i64(L, rowf), ""),
                                    LLVMBuildMul(B, ox0, rt_jit_i64(L, g->sw * vw), ""), "");
  xbase = LLVMBuildSub(B, xbase, rt_jit_i64(L, g->pl * vw), "");
  LLVMValueRef wrow = LLVMBuildMul(B, lk.iv, rt_jit_i64(L, g->kw * vw), "");
  for (int64_t kw = 0; kw < g->kw; ++kw) {
    if (fixed >= 0) {
      const int64_t ix = fixed * g->sw - g->pl + kw * g->dw;
      if (ix < 0 || ix >= g->w) continue;
    }
    LLVMValueRef wv = rt_jit_tpl_loadv(L, r->wt, LLVMBuildAdd(B, wrow, rt_jit_i64(L, kw * vw), ""), vw);
    for (int32_t p = 0; p < np; ++p) {
      const int64_t off = ((int64_t)p * g->sw + kw * g->dw) * vw;
      LLVMValueRef xv = rt_jit_tpl_loadv(L, r->x, LLVMBuildAdd(B, xbase, rt_jit_i64(L, off), ""), vw);
      next[p] = rt_jit_intrinsic(L, "llvm.fma", xv, wv, next[p]);
    }
  }
  rt_jit_loop_end(L, &lk, next);
  for (int32_t p = 0; p < np; ++p) {
    LLVMValueRef acc = lk.carry[p];
    LLVMValueRef ox = LLVMBuildAdd(B, ox0, rt_jit_i64(L, p), "");
    if (!r->tail_ops) {
      rt_jit_tpl_storev(L, acc, r->data, LLVMBuildAdd(B, r->obase, LLVMBuildMul(B, ox, rt_jit_i64(L, vw), ""), ""));
    } else if (r->vepi) {
      LLVMValueRef idx[5] = {r->n, r->cb, r->oy, ox, rt_jit_i64(L, 0)};
      RT_RETURN_IF_ERROR(rt_jit_tpl_vepi(L, r->anchor, r->out, r->data, 4, 5, idx, acc));
    } else {
      for (int32_t l = 0; l < vw; ++l) {
        LLVMValueRef idx[5] = {r->n, r->cb, r->oy, ox, rt_jit_i64(L, l)};
        LLVMValueRef v = LLVMBuildExtractElement(B, acc, rt_jit_i32(L, l), "");
        RT_RETURN_IF_ERROR(rt_jit_tpl_epilogue(L, r->anchor, r->out, r->data, idx, v));
      }
    }
  }
  return RT_OK;
}

rt_status_t rt_jit_tpl_blocked_dw(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_ir_expr_t *out,
                                  LLVMValueRef data, LLVMValueRef task, LLVMValueRef ntasks) {
  LLVMBuilderRef B = L->b;
  const rt_ir_expr_t *a = p->anchor;
  dw_geom_t g;
  if (!dw_geom(a, p->vw, &g)) {
    return RT_STATUS(INTERNAL, "%s", "depthwise NCHWc attributes changed between planning and lowering");
  }
  if (!rt_jit_tpl_raw(L, a->call.args[0]) || !rt_jit_tpl_raw(L, a->call.args[1])) {
    return RT_STATUS(INTERNAL, "%s", "conv2d_NCHWc.depthwise planned for operands not in memory");
  }
  const int32_t vw = g.vw;
  const int32_t nacc = vw == 16 ? DW_NACC16 : DW_NACC8;
  rt_jit_tpl_wide(L, vw);
  dw_row_t r = {.g = &g, .anchor = a, .out = out, .data = data, .tail_ops = out != a};
  r.vepi = r.tail_ops && rt_jit_tpl_vepi_ok(L, a, out, 4, 5);
  LLVMValueRef x0 = rt_jit_node(L, a->call.args[0])->data, w0 = rt_jit_node(L, a->call.args[1])->data;
  LLVMValueRef lo, hi;
  rt_jit_tpl_split(L, g.n * g.cb * g.oh, task, ntasks, &lo, &hi);
  rt_jit_loop_t lu, lg;
  rt_jit_loop_begin(L, lo, hi, 0, NULL, &lu);
  /* Unit u = (n*cb + c)*oh + oy: output row (n, c, oy). */
  LLVMValueRef plane = LLVMBuildSDiv(B, lu.iv, rt_jit_i64(L, g.oh), "");
  r.oy = LLVMBuildSRem(B, lu.iv, rt_jit_i64(L, g.oh), "");
  r.n = LLVMBuildSDiv(B, plane, rt_jit_i64(L, g.cb), "");
  r.cb = LLVMBuildSRem(B, plane, rt_jit_i64(L, g.cb), "");
  r.x = rt_jit_tpl_gep(L, x0, LLVMBuildMul(B, plane, rt_jit_i64(L, g.h * g.w * vw), ""));
  r.wt = rt_jit_tpl_gep(L, w0, LLVMBuildMul(B, r.cb, rt_jit_i64(L, g.kh * g.kw * vw), ""));
  r.obase = LLVMBuildMul(B, lu.iv, rt_jit_i64(L, g.ow * vw), "");
  /* Kernel rows whose input row iy0 + kh*dh lies in [0, h). */
  r.iy0 = LLVMBuildSub(B, LLVMBuildMul(B, r.oy, rt_jit_i64(L, g.sh), ""), rt_jit_i64(L, g.pt), "");
  LLVMValueRef zero = rt_jit_i64(L, 0), kh_n = rt_jit_i64(L, g.kh);
  LLVMValueRef above = LLVMBuildNeg(B, r.iy0, ""); /* rows of padding above: kh_lo*dh >= above */
  LLVMValueRef klo = LLVMBuildSDiv(B, LLVMBuildAdd(B, above, rt_jit_i64(L, g.dh - 1), ""), rt_jit_i64(L, g.dh), "");
  klo = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLE, above, zero, ""), zero, klo, "");
  r.kh_lo = rt_jit_min(L, klo, kh_n);
  LLVMValueRef below = LLVMBuildSub(B, rt_jit_i64(L, g.h - 1), r.iy0, ""); /* kh*dh <= below */
  LLVMValueRef khi = rt_jit_min(L, LLVMBuildAdd(B, LLVMBuildSDiv(B, below, rt_jit_i64(L, g.dh), ""), rt_jit_i64(L, 1), ""), kh_n);
  khi = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, below, zero, ""), zero, khi, "");
  r.kh_hi = rt_jit_max(L, khi, r.kh_lo);
  /* Interior: groups of nacc pixels, then the rest as one group. */
  const int64_t ninner = g.ox_hi - g.ox_lo, ngroups = ninner / nacc, rest = ninner % nacc;
  if (ngroups > 0) {
    rt_jit_loop_begin(L, zero, rt_jit_i64(L, ngroups), 0, NULL, &lg);
    LLVMValueRef ox0 = LLVMBuildAdd(B, rt_jit_i64(L, g.ox_lo), LLVMBuildMul(B, lg.iv, rt_jit_i64(L, nacc), ""), "");
    RT_RETURN_IF_ERROR(dw_pixels(L, &r, ox0, -1, nacc));
    rt_jit_loop_end(L, &lg, NULL);
  }
  if (rest > 0) RT_RETURN_IF_ERROR(dw_pixels(L, &r, rt_jit_i64(L, g.ox_lo + ngroups * nacc), -1, (int32_t)rest));
  /* Border columns, each with its in-image kernel columns only. */
  for (int64_t ox = 0; ox < g.ow; ++ox) {
    if (ox >= g.ox_lo && ox < g.ox_hi) continue;
    RT_RETURN_IF_ERROR(dw_pixels(L, &r, rt_jit_i64(L, ox), ox, 1));
  }
  rt_jit_loop_end(L, &lu, NULL);
  return RT_OK;
}
