/* The templates of the blocked layouts (issue 18): conv2d_NCHWc.direct
 * (the second half of this file) and conv2d_NCHWc.depthwise, for
 * nn.contrib_depthwise_conv2d_NCHWc over
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

/* The interior output columns [*lo, *hi) of a row (every kernel column
 * inside the image: ox*sw - pl >= 0 and ox*sw - pl + (kw-1)*dw <= w - 1);
 * returns how many border columns that leaves. */
static int64_t interior_columns(int64_t w, int64_t ow, int64_t kw, int64_t sw, int64_t dw, int64_t pl, int64_t *lo,
                                int64_t *hi) {
  *lo = (pl + sw - 1) / sw;
  const int64_t last = w - 1 + pl - (kw - 1) * dw;
  *hi = last < 0 ? 0 : last / sw + 1;
  if (*lo > ow) *lo = ow;
  if (*hi > ow) *hi = ow;
  if (*hi < *lo) *hi = *lo;
  return *lo + (ow - *hi);
}

/* The kernel rows [*lo, *hi) of kh whose input row iy0 + k*dh lies in
 * [0, h), iy0 a run-time value. */
static void kernel_rows(rt_jit_lower_t *L, LLVMValueRef iy0, int64_t kh, int64_t dh, int64_t h, LLVMValueRef *lo,
                        LLVMValueRef *hi) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef zero = rt_jit_i64(L, 0), kh_n = rt_jit_i64(L, kh);
  LLVMValueRef above = LLVMBuildNeg(B, iy0, ""); /* rows of padding above: lo*dh >= above */
  LLVMValueRef klo = LLVMBuildSDiv(B, LLVMBuildAdd(B, above, rt_jit_i64(L, dh - 1), ""), rt_jit_i64(L, dh), "");
  klo = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLE, above, zero, ""), zero, klo, "");
  *lo = rt_jit_min(L, klo, kh_n);
  LLVMValueRef below = LLVMBuildSub(B, rt_jit_i64(L, h - 1), iy0, ""); /* k*dh <= below */
  LLVMValueRef khi = rt_jit_min(L, LLVMBuildAdd(B, LLVMBuildSDiv(B, below, rt_jit_i64(L, dh), ""), rt_jit_i64(L, 1), ""), kh_n);
  khi = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, below, zero, ""), zero, khi, "");
  *hi = rt_jit_max(L, khi, *lo);
}

/* The geometry both templates read: the blocked op's sizes (logical
 * channels / vw in cb and ob), the interior columns, and for
 * conv2d_NCHWc.direct its tile, rows and order. */
/* Stores acc, output pixel (n, blk, oy, ox)'s vw channels of an NCHW{vw}c
 * output: as one vector at float offset off without tail ops, through
 * the vector epilogue where it takes them (vepi), else lane by lane
 * through the element epilogue. */
static rt_status_t store_pixel(rt_jit_lower_t *L, const rt_ir_expr_t *anchor, const rt_ir_expr_t *out,
                               LLVMValueRef data, bool tail_ops, bool vepi, int32_t vw, LLVMValueRef off,
                               LLVMValueRef n, LLVMValueRef blk, LLVMValueRef oy, LLVMValueRef ox, LLVMValueRef acc) {
  if (!tail_ops) {
    rt_jit_tpl_storev(L, acc, data, off);
    return RT_OK;
  }
  if (vepi) {
    LLVMValueRef idx[5] = {n, blk, oy, ox, rt_jit_i64(L, 0)};
    return rt_jit_tpl_vepi(L, anchor, out, data, 4, 5, idx, acc);
  }
  for (int32_t l = 0; l < vw; ++l) {
    LLVMValueRef idx[5] = {n, blk, oy, ox, rt_jit_i64(L, l)};
    LLVMValueRef v = LLVMBuildExtractElement(L->b, acc, rt_jit_i32(L, l), "");
    RT_RETURN_IF_ERROR(rt_jit_tpl_epilogue(L, anchor, out, data, idx, v));
  }
  return RT_OK;
}

typedef struct blk_geom_t {
  int64_t n, cb, ob, h, w, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl;
  int64_t ox_lo, ox_hi; /* interior output columns: every kernel column inside the image */
  bool flat;            /* direct: 1x1, stride 1, no padding: the plane as rows of rlen pixels */
  int64_t rows, rlen;   /* direct: rows per (image, output block group) and their length */
  int32_t vw, r, no;    /* direct: the tile, r pixels x no output blocks (cb_tile) */
  bool obg_outer;       /* direct: units output blocks outer, rows inner (cb_order) */
} blk_geom_t;

/* What the two templates share: `call` is op `op_id` with data and
 * weight in memory (params or constants of the kernel), float32 with
 * static shapes, 2 spatial dims in a blocked layout; *p its plan and g's
 * sizes from it, within the templates' limits (at most DW_MAX_TAPS taps
 * of at most DW_MAX_KW columns; offsets far from overflow: larger
 * tensors lower generically). The block checks are the caller's. */
static bool blk_geom(const rt_ir_expr_t *call, int32_t op_id, int32_t vw, rt_plan_conv_t *p, blk_geom_t *g) {
  memset(g, 0, sizeof *g);
  if (call->kind != RT_IR_CALL || call->call.callee->kind != RT_IR_OP || call->call.nargs != 2) return false;
  const rt_ir_op_t *op = call->call.callee->op.op;
  if (op->id != op_id) return false;
  for (int32_t i = 0; i < 2; ++i) {
    const rt_ir_expr_t *e = call->call.args[i];
    if (e->kind != RT_IR_VAR && e->kind != RT_IR_CONSTANT) return false;
  }
  rt_plan_input_t in[2] = {{.value = NULL}, {.value = NULL}};
  rt_status_t st = rt_jit_tensor_type(call->call.args[0], &in[0].dtype, &in[0].rank, &in[0].shape);
  if (!st) st = rt_jit_tensor_type(call->call.args[1], &in[1].dtype, &in[1].rank, &in[1].shape);
  if (!st) st = rt_ir_plan_conv(op, call->call.attrs, 2, in, p);
  if (st) {
    rt_status_free(st);
    return false;
  }
  if (p->nsp != 2 || p->out_rank != 5) return false;
  g->vw = vw;
  g->n = p->batch;
  g->h = p->in_size[0];
  g->w = p->in_size[1];
  g->oh = p->out_size[0];
  g->ow = p->out_size[1];
  g->kh = p->kernel_size[0];
  g->kw = p->kernel_size[1];
  g->sh = p->strides[0];
  g->sw = p->strides[1];
  g->dh = p->dilation[0];
  g->dw = p->dilation[1];
  g->pt = p->pad_before[0];
  g->pl = p->pad_before[1];
  if (g->n < 1 || g->oh < 1 || g->ow < 1 || g->kh < 1 || g->kw < 1) return false;
  if (g->kw > DW_MAX_KW || g->kh * g->kw > DW_MAX_TAPS) return false;
  if (g->sh < 1 || g->sw < 1 || g->dh < 1 || g->dw < 1 || g->sh > 64 || g->sw > 64 || g->dh > 64 || g->dw > 64) {
    return false;
  }
  if (g->pt < 0 || g->pl < 0 || g->pt > 1024 || g->pl > 1024) return false;
  return g->h <= (1 << 16) && g->w <= (1 << 16) && g->oh <= (1 << 16) && g->ow <= (1 << 16) && g->n <= (1 << 16);
}

static bool dw_geom(const rt_ir_expr_t *call, int32_t vw, blk_geom_t *g) {
  rt_plan_conv_t p;
  if (!blk_geom(call, RT_OP_NN_DEPTHWISE_CONV2D_NCHWC, vw, &p, g)) return false;
  if (p.data_block != vw || p.kernel_out_block != vw || p.out_block != vw || p.kernel_in_block != 1) return false;
  if (p.groups != p.in_channels || p.out_channels != p.in_channels || p.kernel_i != 1) return false;
  g->cb = p.in_channels / vw;
  if (g->cb < 1 || g->n * g->cb > (1 << 20)) return false;
  return interior_columns(g->w, g->ow, g->kw, g->sw, g->dw, g->pl, &g->ox_lo, &g->ox_hi) <= DW_MAX_BORDER;
}

bool rt_jit_tpl_blocked_dw_attrs(const rt_ir_expr_t *call, int32_t vw) {
  blk_geom_t g;
  return dw_geom(call, vw, &g);
}

/* What every pixel group of one output row shares. */
typedef struct dw_row_t {
  const blk_geom_t *g;
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
  const blk_geom_t *g = r->g;
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
    LLVMValueRef off = LLVMBuildAdd(B, r->obase, LLVMBuildMul(B, ox, rt_jit_i64(L, vw), ""), "");
    RT_RETURN_IF_ERROR(store_pixel(L, r->anchor, r->out, r->data, r->tail_ops, r->vepi, vw, off, r->n, r->cb, r->oy,
                                   ox, acc));
  }
  return RT_OK;
}

rt_status_t rt_jit_tpl_blocked_dw(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_ir_expr_t *out,
                                  LLVMValueRef data, LLVMValueRef task, LLVMValueRef ntasks) {
  LLVMBuilderRef B = L->b;
  const rt_ir_expr_t *a = p->anchor;
  blk_geom_t g;
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
  r.iy0 = LLVMBuildSub(B, LLVMBuildMul(B, r.oy, rt_jit_i64(L, g.sh), ""), rt_jit_i64(L, g.pt), "");
  kernel_rows(L, r.iy0, g.kh, g.dh, g.h, &r.kh_lo, &r.kh_hi);
  LLVMValueRef zero = rt_jit_i64(L, 0);
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

/* ---- conv2d_NCHWc.direct ----------------------------------------------
 *
 * nn.contrib_conv2d_NCHWc of groups 1 over float32 data NCHW{vw}c, kernel
 * OIHW{vw}i{vw}o and output NCHW{vw}c (vw the template width), data and
 * weight in memory, any stride, padding and dilation, at most 64 taps of
 * at most 11 columns. The register tile is r pixels of an output row by
 * no output channel blocks (cb_tile): per input channel ii of a block and
 * per tap, no weight vectors (W[ob][icb][kh][kw][ii][:], contiguous) and
 * one broadcast input scalar per pixel feed r x no vector FMAs; the
 * accumulators run over every input channel block and tap, so each output
 * vector is stored once, contiguous (the blocked layout's point: no
 * output plane is written in short pieces, no input channel is read at a
 * stride of a plane). The units of work are (image, output row, group of
 * no output blocks), rows outer or block groups outer by which re-reads
 * less (cb_order), split over tasks by rt_jit_tpl_split. A 1x1
 * convolution at stride 1 without padding has its output plane's pixels
 * as one flat row, cut into rows of about CB_FLAT_GROUPS tiles. Within a
 * row as in the depthwise template: the interior in the fewest tiles of
 * at most r pixels (cb_row), the border columns a pixel each with their
 * out-of-image kernel columns left out (never multiplied by zero: the
 * sums are the reference's terms, reassociated). */

#define CB_MAX_R 8
#define CB_MAX_NO 4
#define CB_FLAT_GROUPS 4
/* FMA chains a tile keeps in flight at least (partial sums, cb_pixels). */
#define CB_MIN_CHAINS 8

/* The register tile, measured (one thread, `--profile`, GFLOP/s of
 * ResNet-50's 1x1 and 3x3 layers alone, an AVX-512 Xeon with a 2 MiB L2
 * per core, FMA peak 220-230 on 16 lanes, 126-128 on 8; docs/executors.md
 * has the table; compiled under O3): 16 lanes, 1x1: 8 pixels x 2 blocks
 * (145-190 GFLOP/s; 12x2 140-174, and 0.24-0.44 of the peak under the C2
 * pipeline these kernels take on 16 lanes; 6x4 100-125, 8x3 96-114, 4x4
 * 93-162); k x k: 6 x 4 (147-222; 12x2 142-185). 8 lanes: 6 x 2 (1x1
 * 100-117, 3x3 103-126; 4x3 and 5x2 within or below). */
static void cb_tile(blk_geom_t *g) {
  if (g->vw == 16 && g->kh * g->kw == 1) {
    g->r = 8;
    g->no = 2;
  } else if (g->vw == 16) {
    g->r = 6;
    g->no = 4;
  } else {
    g->r = 6;
    g->no = 2;
  }
}

/* The order of the units: with rows outer each row reads all the weight
 * (rows x its bytes in all), with output blocks outer each block group
 * reads all the input (groups x its bytes): the smaller. ResNet-50's 3x3
 * at 7x7 (9.4 MB of weight, 7 rows) runs 83 -> 139-147 GFLOP/s with
 * blocks outer; its 1x1 layers at 56x56 and 28x28 (weight 64-256 KiB,
 * 25-98 rows) 5-15% faster with rows outer, where each core's rows are
 * also the pixels the next layer's rows read. */
static void cb_order(blk_geom_t *g) {
  const int64_t groups = (g->ob + g->no - 1) / g->no;
  const double wbytes = (double)g->ob * g->cb * g->kh * g->kw * g->vw * g->vw * 4;
  const double xbytes = (double)g->cb * g->h * g->w * g->vw * 4;
  g->obg_outer = (double)g->rows * wbytes > (double)groups * xbytes;
}

static bool cb_geom(const rt_ir_expr_t *call, int32_t vw, blk_geom_t *g) {
  rt_plan_conv_t p;
  if (!blk_geom(call, RT_OP_NN_CONV2D_NCHWC, vw, &p, g) || p.groups != 1) return false;
  if (p.data_block != vw || p.kernel_in_block != vw || p.kernel_out_block != vw || p.out_block != vw) return false;
  if (p.in_channels % vw != 0 || p.out_channels % vw != 0 || p.kernel_i != p.in_channels ||
      p.kernel_o != p.out_channels) {
    return false;
  }
  g->cb = p.in_channels / vw;
  g->ob = p.out_channels / vw;
  if (g->cb < 1 || g->ob < 1 || g->cb > (1 << 12) || g->ob > (1 << 12)) return false;
  cb_tile(g);
  g->flat = g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->pt == 0 && g->pl == 0 &&
            g->oh == g->h && g->ow == g->w;
  if (g->flat) {
    const int64_t px = g->oh * g->ow, per = (int64_t)g->r * CB_FLAT_GROUPS;
    g->rows = (px + per - 1) / per;
    g->rlen = (px + g->rows - 1) / g->rows;
  } else {
    g->rows = g->oh;
    g->rlen = g->ow;
  }
  cb_order(g);
  if (g->flat) return true;
  return interior_columns(g->w, g->ow, g->kw, g->sw, g->dw, g->pl, &g->ox_lo, &g->ox_hi) <= DW_MAX_BORDER;
}

bool rt_jit_tpl_blocked_conv_attrs(const rt_ir_expr_t *call, int32_t vw) {
  blk_geom_t g;
  return cb_geom(call, vw, &g);
}

/* What every tile of one output row shares. */
typedef struct cb_row_t {
  const blk_geom_t *g;
  const rt_ir_expr_t *anchor, *out;
  LLVMValueRef data, x, wt; /* output; image n's input; output block ob0's weight */
  LLVMValueRef n, ob0;      /* the image and the tile's first output block */
  LLVMValueRef xrow;        /* input offset of (input row iy0, column -pl) in a channel block's plane */
  LLVMValueRef pix0;        /* the row's first output pixel (oy*ow, or flat row*rlen) */
  LLVMValueRef kh_lo, kh_hi;
  int32_t no;               /* output blocks of the tile */
  bool tail_ops, vepi;
} cb_row_t;

/* np pixels from the row's column ox0 (pixel pix0 + ox0); `fixed` as
 * dw_pixels. */
static rt_status_t cb_pixels(rt_jit_lower_t *L, const cb_row_t *r, LLVMValueRef ox0, int64_t fixed, int32_t np) {
  LLVMBuilderRef B = L->b;
  const blk_geom_t *g = r->g;
  const int32_t vw = g->vw, no = r->no;
  /* A small tile keeps `ns` partial sums per output vector (input
   * channel ii adds to sum ii % ns), so at least CB_MIN_CHAINS FMA
   * chains are in flight; they are added at the end. */
  int32_t ns = (CB_MIN_CHAINS + np * no - 1) / (np * no);
  if (ns > 4) ns = 4;
  const int32_t nout = np * no, nacc = nout * ns;
  const int64_t plane = g->h * g->w * vw, wblock = g->cb * g->kh * g->kw * vw * vw;
  LLVMValueRef init[RT_JIT_MAX_CARRY], next[RT_JIT_MAX_CARRY];
  for (int32_t a = 0; a < nacc; ++a) init[a] = LLVMConstNull(rt_jit_tpl_vec(L, vw));
  /* Input offset of (channel block 0, input row iy0, column ox0*sw - pl). */
  LLVMValueRef xcol = LLVMBuildAdd(B, r->xrow, LLVMBuildMul(B, ox0, rt_jit_i64(L, g->sw * vw), ""), "");
  rt_jit_loop_t lc, lk;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->cb), nacc, init, &lc);
  LLVMValueRef xc = LLVMBuildAdd(B, xcol, LLVMBuildMul(B, lc.iv, rt_jit_i64(L, plane), ""), "");
  LLVMValueRef wc = LLVMBuildMul(B, lc.iv, rt_jit_i64(L, g->kh * g->kw * vw * vw), "");
  rt_jit_loop_begin(L, r->kh_lo, r->kh_hi, nacc, lc.carry, &lk);
  LLVMValueRef xk = LLVMBuildAdd(B, xc, LLVMBuildMul(B, lk.iv, rt_jit_i64(L, g->dh * g->w * vw), ""), "");
  LLVMValueRef wk = LLVMBuildAdd(B, wc, LLVMBuildMul(B, lk.iv, rt_jit_i64(L, g->kw * vw * vw), ""), "");
  /* Interior tiles loop over the kernel columns: unrolled, the load of
   * pixel p's tap kw (the same input as pixel p+1's tap kw-1 at stride
   * 1) was shared across columns and its broadcast kept live, spilling. */
  const bool kloop = fixed < 0 && g->kw > 1;
  rt_jit_loop_t lw;
  if (kloop) rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->kw), nacc, lk.carry, &lw);
  for (int32_t a = 0; a < nacc; ++a) next[a] = kloop ? lw.carry[a] : lk.carry[a];
  for (int64_t kw = 0; kw < (kloop ? 1 : g->kw); ++kw) {
    if (fixed >= 0) {
      const int64_t ix = fixed * g->sw - g->pl + kw * g->dw;
      if (ix < 0 || ix >= g->w) continue;
    }
    LLVMValueRef xw = xk, ww = wk;
    if (kloop) {
      xw = LLVMBuildAdd(B, xk, LLVMBuildMul(B, lw.iv, rt_jit_i64(L, g->dw * vw), ""), "");
      ww = LLVMBuildAdd(B, wk, LLVMBuildMul(B, lw.iv, rt_jit_i64(L, vw * vw), ""), "");
    }
    for (int32_t ii = 0; ii < vw; ++ii) {
      LLVMValueRef wv[CB_MAX_NO];
      for (int32_t j = 0; j < no; ++j) {
        const int64_t off = j * wblock + (kw * vw + ii) * vw;
        wv[j] = rt_jit_tpl_loadv(L, r->wt, LLVMBuildAdd(B, ww, rt_jit_i64(L, off), ""), vw);
      }
      for (int32_t p = 0; p < np; ++p) {
        const int64_t off = ((int64_t)p * g->sw + kw * g->dw) * vw + ii;
        LLVMValueRef xs = rt_jit_tpl_loadf(L, r->x, LLVMBuildAdd(B, xw, rt_jit_i64(L, off), ""));
        LLVMValueRef xv = rt_jit_tpl_splat(L, xs, vw);
        for (int32_t j = 0; j < no; ++j) {
          const int32_t a = (ii % ns) * nout + j * np + p;
          next[a] = rt_jit_intrinsic(L, "llvm.fma", xv, wv[j], next[a]);
        }
      }
    }
  }
  if (kloop) {
    rt_jit_loop_end(L, &lw, next);
    for (int32_t a = 0; a < nacc; ++a) next[a] = lw.carry[a];
  }
  rt_jit_loop_end(L, &lk, next);
  rt_jit_loop_end(L, &lc, lk.carry);
  LLVMValueRef sum[CB_MAX_R * CB_MAX_NO];
  for (int32_t a = 0; a < nout; ++a) {
    sum[a] = lc.carry[a];
    for (int32_t k = 1; k < ns; ++k) sum[a] = LLVMBuildFAdd(B, sum[a], lc.carry[k * nout + a], "");
  }
  const int64_t px = g->oh * g->ow;
  for (int32_t j = 0; j < no; ++j) {
    LLVMValueRef ob = LLVMBuildAdd(B, r->ob0, rt_jit_i64(L, j), "");
    LLVMValueRef obase = LLVMBuildMul(
        B, LLVMBuildAdd(B, LLVMBuildMul(B, r->n, rt_jit_i64(L, g->ob), ""), ob, ""), rt_jit_i64(L, px), "");
    for (int32_t p = 0; p < np; ++p) {
      LLVMValueRef acc = sum[j * np + p];
      LLVMValueRef pix = LLVMBuildAdd(B, r->pix0, LLVMBuildAdd(B, ox0, rt_jit_i64(L, p), ""), "");
      LLVMValueRef off = LLVMBuildMul(B, LLVMBuildAdd(B, obase, pix, ""), rt_jit_i64(L, vw), "");
      /* The pixel's (oy, ox) only for the epilogues' indices. */
      LLVMValueRef oy = r->tail_ops ? LLVMBuildUDiv(B, pix, rt_jit_i64(L, g->ow), "") : NULL;
      LLVMValueRef ox = r->tail_ops ? LLVMBuildURem(B, pix, rt_jit_i64(L, g->ow), "") : NULL;
      RT_RETURN_IF_ERROR(
          store_pixel(L, r->anchor, r->out, r->data, r->tail_ops, r->vepi, vw, off, r->n, ob, oy, ox, acc));
    }
  }
  return RT_OK;
}

/* The row's tiles: flat, len pixels; else the interior, then the border
 * columns. The pixels [lo, hi) go in the fewest tiles of at most r
 * pixels, of sizes that differ by at most one (13 pixels: 7 + 6, not 12
 * + 1, whose single pixel would run at a fraction of the FMA rate). */
static rt_status_t cb_row(rt_jit_lower_t *L, const cb_row_t *r, int64_t len) {
  const blk_geom_t *g = r->g;
  const int64_t lo = g->flat ? 0 : g->ox_lo, hi = g->flat ? len : g->ox_hi;
  const int64_t ntiles = (hi - lo + g->r - 1) / g->r;
  const int64_t small = ntiles > 0 ? (hi - lo) / ntiles : 0, nbig = ntiles > 0 ? (hi - lo) % ntiles : 0;
  const int64_t counts[2] = {nbig, ntiles - nbig}, sizes[2] = {small + 1, small};
  int64_t start = lo;
  for (int32_t k = 0; k < 2; ++k) {
    if (counts[k] == 0 || sizes[k] == 0) continue;
    rt_jit_loop_t lt;
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, counts[k]), 0, NULL, &lt);
    LLVMValueRef ox0 = LLVMBuildAdd(L->b, rt_jit_i64(L, start), LLVMBuildMul(L->b, lt.iv, rt_jit_i64(L, sizes[k]), ""), "");
    RT_RETURN_IF_ERROR(cb_pixels(L, r, ox0, -1, (int32_t)sizes[k]));
    rt_jit_loop_end(L, &lt, NULL);
    start += counts[k] * sizes[k];
  }
  if (g->flat) return RT_OK;
  for (int64_t ox = 0; ox < g->ow; ++ox) {
    if (ox >= g->ox_lo && ox < g->ox_hi) continue;
    RT_RETURN_IF_ERROR(cb_pixels(L, r, rt_jit_i64(L, ox), ox, 1));
  }
  return RT_OK;
}

/* The row for the tile's block count: a full row, or (flat) the last,
 * shorter one. */
static rt_status_t cb_rows(rt_jit_lower_t *L, const cb_row_t *r, LLVMValueRef row) {
  const blk_geom_t *g = r->g;
  const int64_t last = g->oh * g->ow - (g->rows - 1) * g->rlen;
  if (!g->flat || last == g->rlen) return cb_row(L, r, g->rlen);
  rt_jit_if_t is_last;
  rt_jit_if_begin(L, LLVMBuildICmp(L->b, LLVMIntEQ, row, rt_jit_i64(L, g->rows - 1), ""), &is_last);
  RT_RETURN_IF_ERROR(cb_row(L, r, last));
  rt_jit_if_else(L, &is_last, NULL);
  RT_RETURN_IF_ERROR(cb_row(L, r, g->rlen));
  (void)rt_jit_if_end(L, &is_last, NULL);
  return RT_OK;
}

rt_status_t rt_jit_tpl_blocked_conv(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_ir_expr_t *out,
                                    LLVMValueRef data, LLVMValueRef task, LLVMValueRef ntasks) {
  LLVMBuilderRef B = L->b;
  const rt_ir_expr_t *a = p->anchor;
  blk_geom_t g;
  if (!cb_geom(a, p->vw, &g)) {
    return RT_STATUS(INTERNAL, "%s", "conv2d NCHWc attributes changed between planning and lowering");
  }
  if (!rt_jit_tpl_raw(L, a->call.args[0]) || !rt_jit_tpl_raw(L, a->call.args[1])) {
    return RT_STATUS(INTERNAL, "%s", "conv2d_NCHWc.direct planned for operands not in memory");
  }
  const int32_t vw = g.vw;
  rt_jit_tpl_wide(L, vw);
  cb_row_t r = {.g = &g, .anchor = a, .out = out, .data = data, .tail_ops = out != a};
  r.vepi = r.tail_ops && rt_jit_tpl_vepi_ok(L, a, out, 4, 5);
  LLVMValueRef x0 = rt_jit_node(L, a->call.args[0])->data, w0 = rt_jit_node(L, a->call.args[1])->data;
  const int64_t groups = (g.ob + g.no - 1) / g.no, tail = g.ob % g.no;
  LLVMValueRef lo, hi;
  rt_jit_tpl_split(L, g.n * g.rows * groups, task, ntasks, &lo, &hi);
  rt_jit_loop_t lu;
  rt_jit_loop_begin(L, lo, hi, 0, NULL, &lu);
  /* Unit u: (n*rows + row)*groups + gi rows outer, (n*groups + gi)*rows + row block groups
   * outer; output blocks [gi*no, ...) of a row. */
  LLVMValueRef gi, row;
  if (g.obg_outer) {
    row = LLVMBuildSRem(B, lu.iv, rt_jit_i64(L, g.rows), "");
    LLVMValueRef ng = LLVMBuildSDiv(B, lu.iv, rt_jit_i64(L, g.rows), "");
    gi = LLVMBuildSRem(B, ng, rt_jit_i64(L, groups), "");
    r.n = LLVMBuildSDiv(B, ng, rt_jit_i64(L, groups), "");
  } else {
    LLVMValueRef nrow = LLVMBuildSDiv(B, lu.iv, rt_jit_i64(L, groups), "");
    gi = LLVMBuildSRem(B, lu.iv, rt_jit_i64(L, groups), "");
    row = LLVMBuildSRem(B, nrow, rt_jit_i64(L, g.rows), "");
    r.n = LLVMBuildSDiv(B, nrow, rt_jit_i64(L, g.rows), "");
  }
  r.ob0 = LLVMBuildMul(B, gi, rt_jit_i64(L, g.no), "");
  r.x = rt_jit_tpl_gep(L, x0, LLVMBuildMul(B, r.n, rt_jit_i64(L, g.cb * g.h * g.w * vw), ""));
  r.wt = rt_jit_tpl_gep(L, w0, LLVMBuildMul(B, r.ob0, rt_jit_i64(L, g.cb * g.kh * g.kw * vw * vw), ""));
  r.pix0 = LLVMBuildMul(B, row, rt_jit_i64(L, g.rlen), "");
  if (g.flat) {
    r.xrow = LLVMBuildMul(B, r.pix0, rt_jit_i64(L, vw), "");
    r.kh_lo = rt_jit_i64(L, 0);
    r.kh_hi = rt_jit_i64(L, 1);
  } else {
    LLVMValueRef iy0 = LLVMBuildSub(B, LLVMBuildMul(B, row, rt_jit_i64(L, g.sh), ""), rt_jit_i64(L, g.pt), "");
    r.xrow = LLVMBuildMul(B, LLVMBuildSub(B, LLVMBuildMul(B, iy0, rt_jit_i64(L, g.w), ""), rt_jit_i64(L, g.pl), ""),
                          rt_jit_i64(L, vw), "");
    kernel_rows(L, iy0, g.kh, g.dh, g.h, &r.kh_lo, &r.kh_hi);
  }
  if (tail == 0 || groups == 1) {
    r.no = tail == 0 ? g.no : (int32_t)tail;
    RT_RETURN_IF_ERROR(cb_rows(L, &r, row));
  } else {
    rt_jit_if_t full;
    rt_jit_if_begin(L, LLVMBuildICmp(B, LLVMIntSLT, gi, rt_jit_i64(L, groups - 1), ""), &full);
    r.no = g.no;
    RT_RETURN_IF_ERROR(cb_rows(L, &r, row));
    rt_jit_if_else(L, &full, NULL);
    r.no = (int32_t)tail;
    RT_RETURN_IF_ERROR(cb_rows(L, &r, row));
    (void)rt_jit_if_end(L, &full, NULL);
  }
  rt_jit_loop_end(L, &lu, NULL);
  return RT_OK;
}
