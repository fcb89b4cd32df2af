/* The Winograd convolution template: nn.contrib_conv2d_winograd_without_
 * weight_transform (ir/op/winograd.c) with float32 NCHW data, the
 * transformed weight U' (alpha, alpha, C, O) or packed in panels of P
 * output channels (alpha, alpha, O/P, C, P) (P a multiple of the vector
 * width), in memory (a param or a constant: the Conv2dWinograd pass and
 * FoldConstant put it there, packed with P = 16, at build time) or
 * computed in the kernel (then copied out unpacked first), static shapes
 * and O a multiple of the vector width.
 *
 * Per image n, the task copies the zero-padded input once, channels
 * innermost: Xp[yy][xx][c] = x[n, c, yy - pt, xx - pl] (0 outside the
 * image; HP = th*m + alpha - m rows, WP = tw*m + alpha - m columns, Cp = C
 * rounded up to vw channels, the extra channels 0). An input in memory is
 * copied row by row in vw x vw blocks transposed in registers
 * (copy_input_vec); any other goes through its element expression, so a
 * fused prologue applies there. The
 * th*tw output tiles (m x m each) are then taken TB at a time (a tile
 * block: TB a multiple of mr, sized so the block's buffers stay near L2):
 *   1. input transform, vw channels at a time: for tile t of the block and
 *      channel vector cb, the alpha x alpha vectors d[p][q] = Xp[ty*m + p]
 *      [tx*m + q][cb], V = B^T d B with the matrices' constant
 *      coefficients (zeros skipped, +-1 as adds, rows equal up to signs
 *      and columns equal up to magnitude sharing their sums: matvec), stored to
 *      Vb[e][t][c] (e = a*alpha + b, c contiguous); a block's tiles past
 *      the last one repeat it (their rows are computed and dropped);
 *   2. alpha^2 GEMMs Mb[e][t][o] = sum_c Vb[e][t][c] U'[e][c][o]: the
 *      register micro-kernel of templates.c with A = the tile rows of Vb
 *      (k = c contiguous), B = U'[e] one vw*nv-column panel at a time
 *      (read in place from a weight packed with P = vw*nv, else copied
 *      to a contiguous panel first), mr tiles x vw*nv output channels per
 *      register tile;
 *   3. output transform, vw output channels at a time: Y = A^T M A, stored
 *      to Yb[t][i][j][o];
 *   4. the epilogue (bias, relu, residual add ...: templates.h) inside
 *      the output, from Yb: where the vector epilogue (epilogue.c) takes
 *      the tail ops, vw/m tiles of one tile row at a time, their vw
 *      pixels of vw channels transposed in registers so each channel's
 *      pixels are one contiguous store (epilogue_group; a row's last
 *      group, fewer tiles or past the output's columns, a masked store
 *      where the tail ops are constant over the pixels and it covers half
 *      a vector), each row of stores prefetching the next row's lines
 *      for writing, else (the tiles at a block's edges, or a row's end)
 *      on vw output channels at a time, each lane stored to its own
 *      channel plane; else per element.
 * Work splits over ranges of units of sub tiles (4 where mr is a
 * multiple of 4, else mr), each task copying only the input rows its
 * tiles read, or over blocks of output channels where that leaves the
 * busiest task less work. Against the direct template
 * the GEMMs do alpha^2 / m^2 of its m^2 * 9 multiply-adds per tile and
 * channel pair (F(4x4, 3x3): 36 vs 144), and the transforms are
 * O(alpha^3 (C + O)) per tile, vectorized. */
#include <string.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"
#include "jit/templates/templates.h"

#define AMAX RT_WINOGRAD_MAX_ALPHA

/* What streaming one float of the transformed weight costs a task, in
 * multiply-adds (the split's cost model, below). Fitted on 2 threads,
 * costly placement, medians of 100-200 runs, three variants in turn three
 * times: 0 (no streaming term) against 8, resnet18 with F(2x2) at 7x7
 * 7.98-8.13 -> 6.76-6.87 ms; resnet50's three 128@28x28 F(4x4) kernels
 * (split by channels at 8) 1046-1334 -> 896-1023 us summed, 4 rounds;
 * its other Winograd kernels keep their split. One thread has one task:
 * no split to choose. */
#define WG_STREAM_FMA 8
/* Transformed weights up to this size count as cached, not streamed:
 * they may stay in L2 or L3 from run to run (SqueezeNet's, 590 KB each,
 * in a model of 5 MB), and there the split by tiles they had without the
 * streaming term ran as fast or faster (its 32 -> 128 @27x27 and 48 ->
 * 192 @13x13 kernels, 2 threads, summed per-kernel minima over 6 rounds:
 * 93 / 80 us counted as streamed, 73 / 67 not; medians within noise). */
#define WG_STREAM_MIN_BYTES (1 << 20)

/* sum_k coef[k * stride] * v[k] over n terms, zero coefficients skipped,
 * +-1 as adds and subtracts; a vector of zeros when every one is 0. */
static LLVMValueRef lin(rt_jit_lower_t *L, int32_t vw, const double *coef, int32_t stride,
                        const LLVMValueRef *v, int32_t n) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef acc = NULL;
  for (int32_t k = 0; k < n; ++k) {
    const double c = coef[k * stride];
    if (c == 0) continue;
    LLVMValueRef term = v[k];
    const bool neg = c < 0;
    const double mag = neg ? -c : c;
    if (mag != 1) term = rt_jit_fast(LLVMBuildFMul(B, term, rt_jit_tpl_splat(L, LLVMConstReal(L->f32, mag), vw), ""));
    if (!acc) {
      acc = neg ? rt_jit_fast(LLVMBuildFNeg(B, term, "")) : term;
    } else {
      acc = rt_jit_fast(neg ? LLVMBuildFSub(B, acc, term, "") : LLVMBuildFAdd(B, acc, term, ""));
    }
  }
  return acc ? acc : LLVMConstNull(rt_jit_tpl_vec(L, vw));
}

/* out[r] = sum_k M[r * n + k] v[k] for r < rows (n <= AMAX), with the two
 * savings Winograd's matrices offer; each is found on the numbers, so any
 * matrix gives the same sums, only with fewer operations or not:
 *  - columns j, j' whose coefficients agree in magnitude in every row
 *    (F(4x4)'s A^T: the points 1, -1 and 2, -2) are summed and differenced
 *    once, each row then taking v_j + v_j' or v_j - v_j' with its
 *    coefficient, when more rows use the pair than the two vectors cost;
 *  - rows r, r' equal up to the signs of some of their terms (F(4x4)'s
 *    B^T rows 1, 2 and 3, 4) share two partial sums: E over the terms of
 *    equal sign, O over the others, row r = E + O and row r' = E - O.
 * In resnet18's F(4x4) kernels (IR after O1) the vector fmul / fadd /
 * fsub went from 144 / 204-208 / 126 to 114 / 136-140 / 116 and the
 * instructions from ~1845 to ~1715 a kernel; their run time did not move
 * beyond the noise (summed minima within +-1% in alternated batches, 1
 * thread). */
static void matvec(rt_jit_lower_t *L, int32_t vw, const double *M, int32_t rows, int32_t n,
                   const LLVMValueRef *v, LLVMValueRef *out) {
  LLVMBuilderRef B = L->b;
  double c[AMAX][2 * AMAX];
  LLVMValueRef t[2 * AMAX];
  int32_t nt = n;
  bool used[AMAX] = {false};
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t k = 0; k < 2 * AMAX; ++k) c[r][k] = k < n ? M[r * n + k] : 0;
  }
  for (int32_t k = 0; k < n; ++k) t[k] = v[k];
  for (int32_t j = 0; j < n; ++j) {
    for (int32_t j2 = j + 1; j2 < n && !used[j]; ++j2) {
      if (used[j2]) continue;
      int32_t uses = 0, sums = 0, diffs = 0;
      bool ok = true;
      for (int32_t r = 0; r < rows && ok; ++r) {
        const double a = c[r][j], b = c[r][j2];
        if (a == 0 && b == 0) continue;
        ok = a != 0 && (a == b || a == -b);
        uses++;
        sums += a == b;
        diffs += a == -b;
      }
      if (!ok || uses <= (sums > 0) + (diffs > 0)) continue;
      t[nt] = sums ? rt_jit_fast(LLVMBuildFAdd(B, v[j], v[j2], "")) : LLVMConstNull(rt_jit_tpl_vec(L, vw));
      t[nt + 1] = diffs ? rt_jit_fast(LLVMBuildFSub(B, v[j], v[j2], "")) : LLVMConstNull(rt_jit_tpl_vec(L, vw));
      for (int32_t r = 0; r < rows; ++r) {
        const double a = c[r][j];
        if (a == 0) continue;
        c[r][c[r][j2] == a ? nt : nt + 1] = a;
        c[r][j] = c[r][j2] = 0;
      }
      nt += 2;
      used[j] = used[j2] = true;
    }
  }
  bool done[AMAX] = {false};
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t r2 = r + 1; r2 < rows && !done[r]; ++r2) {
      if (done[r2]) continue;
      double e[2 * AMAX] = {0}, o[2 * AMAX] = {0};
      int32_t ns = 0, nd = 0;
      bool ok = true;
      for (int32_t k = 0; k < nt && ok; ++k) {
        const double a = c[r][k], b = c[r2][k];
        if (a == 0 && b == 0) continue;
        ok = a != 0 && (a == b || a == -b);
        if (a == b) e[k] = a, ns++;
        else o[k] = a, nd++;
      }
      if (!ok || ns == 0 || nd == 0 || ns + nd <= 2) continue;
      LLVMValueRef ev = lin(L, vw, e, 1, t, nt), ov = lin(L, vw, o, 1, t, nt);
      out[r] = rt_jit_fast(LLVMBuildFAdd(B, ev, ov, ""));
      out[r2] = rt_jit_fast(LLVMBuildFSub(B, ev, ov, ""));
      done[r] = done[r2] = true;
    }
    if (!done[r]) out[r] = lin(L, vw, c[r], 1, t, nt);
    done[r] = true;
  }
}

typedef struct wg_t {
  rt_plan_winograd_t p;
  int64_t m, alpha, a2, cp, hp, wp, ntiles, tb, nw;
  int64_t vstride, mstride; /* floats from one e plane of Vb / Mb to the next (plane_stride) */
  int32_t vw, mr, nv;
  int32_t sub; /* rows of the tiles after the last whole mr-row one (4 where mr is a multiple of 4, else mr) */
  const rt_ir_expr_t *x, *u;
  LLVMValueRef ob_lo, ob_hi; /* the task's nw-column blocks of output channels */
  LLVMValueRef tr;           /* vw x vw floats: a group's transposed vectors (epilogue_group) */
} wg_t;

/* The floats from one of the alpha^2 planes of Vb (or Mb) to the next:
 * the plane's n floats, plus one cache line where that would make an
 * even number of lines. Step 1 stores (step 3 loads) one vector to each
 * of the alpha^2 planes in turn; at a stride of an even number of lines
 * (a multiple of 4 KiB on DenseNet's 128 -> 32 layers at 56x56: 24 tiles
 * x 128 channels) those vectors fall into a few L1 sets, 36 into one at
 * 4 KiB, more than its ways; an odd number of lines spreads them over
 * all of them. That layer (F(4x4), 1 thread, alone): 680 -> 452 us. */
static int64_t plane_stride(int64_t n) {
  const int64_t lines = (n * 4 + 63) / 64;
  return (lines % 2 ? lines : lines + 1) * 16;
}

/* Rows [y_lo, y_hi) of the zero-padded input of image n, channels
 * innermost (see the file comment): rows outside the image and the
 * columns left and right of it are zeros, the rest the input's elements. */
static rt_status_t copy_input(rt_jit_lower_t *L, const wg_t *g, LLVMValueRef n, LLVMValueRef y_lo,
                              LLVMValueRef y_hi, LLVMValueRef xp) {
  LLVMBuilderRef B = L->b;
  const rt_plan_winograd_t *p = &g->p;
  LLVMValueRef zero = rt_jit_i64(L, 0), fz = LLVMConstReal(L->f32, 0);
  rt_jit_loop_t lc, ly, lx;
  rt_jit_loop_begin(L, zero, rt_jit_i64(L, g->cp), 0, NULL, &lc);
  LLVMValueRef real_c = LLVMBuildICmp(B, LLVMIntSLT, lc.iv, rt_jit_i64(L, p->c), "");
  rt_jit_loop_begin(L, y_lo, y_hi, 0, NULL, &ly);
  LLVMValueRef ih = LLVMBuildSub(B, ly.iv, rt_jit_i64(L, p->pt), "");
  LLVMValueRef row_ok = LLVMBuildAnd(B, LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, ih, zero, ""),
                                                     LLVMBuildICmp(B, LLVMIntSLT, ih, rt_jit_i64(L, p->h), ""), ""),
                                     real_c, "");
  /* Columns xx with xx - pl in [0, W): [pl, pl + W) within [0, WP). */
  const int64_t lo = p->pl < g->wp ? p->pl : g->wp;
  const int64_t hi = p->pl + p->w < g->wp ? p->pl + p->w : g->wp;
  LLVMValueRef rlo = LLVMBuildSelect(B, row_ok, rt_jit_i64(L, lo), rt_jit_i64(L, g->wp), "");
  LLVMValueRef rhi = LLVMBuildSelect(B, row_ok, rt_jit_i64(L, hi), rt_jit_i64(L, g->wp), "");
  LLVMValueRef row = LLVMBuildMul(B, ly.iv, rt_jit_i64(L, g->wp), "");
  /* Element (yy, xx, c) at (row + xx) * Cp + c. */
#define AT(xx) LLVMBuildAdd(B, LLVMBuildMul(B, LLVMBuildAdd(B, row, xx, ""), rt_jit_i64(L, g->cp), ""), lc.iv, "")
  rt_jit_loop_begin(L, zero, rlo, 0, NULL, &lx);
  rt_jit_tpl_storef(L, fz, xp, AT(lx.iv));
  rt_jit_loop_end(L, &lx, NULL);
  rt_jit_loop_begin(L, rlo, rhi, 0, NULL, &lx);
  LLVMValueRef idx[4] = {p->n == 1 ? zero : n, lc.iv, ih, LLVMBuildSub(B, lx.iv, rt_jit_i64(L, p->pl), "")}, v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, g->x, idx, &v));
  rt_jit_tpl_storef(L, v, xp, AT(lx.iv));
  rt_jit_loop_end(L, &lx, NULL);
  rt_jit_loop_begin(L, rhi, rt_jit_i64(L, g->wp), 0, NULL, &lx);
  rt_jit_tpl_storef(L, fz, xp, AT(lx.iv));
  rt_jit_loop_end(L, &lx, NULL);
#undef AT
  rt_jit_loop_end(L, &ly, NULL);
  rt_jit_loop_end(L, &lc, NULL);
  return RT_OK;
}

/* Whether copy_input_vec takes the copy: the input in memory (a param or
 * a constant, so no prologue to apply) and its columns inside the padded
 * rows. */
static bool copy_vec_ok(rt_jit_lower_t *L, const wg_t *g) {
  return rt_jit_tpl_raw(L, g->x) && g->p.pl + g->p.w <= g->wp;
}

/* copy_input for an input in memory, by vw x vw blocks: vw channels'
 * rows of vw columns loaded as vectors (the last block of a row a masked
 * load, channels past C zeros), transposed in registers and stored as vw
 * pixel vectors of vw channels each. Row by row, so a padded row
 * (WP * Cp floats) is written whole while it is in cache; the padding
 * (rows outside the image, the columns left and right of it) is stored as
 * zero vectors. Element by element (copy_input), each store went to its
 * own cache line Cp floats from the last, and on DenseNet's 128@56x56
 * layers (a 1.7 MB Xp, past L2) the copy took about half the kernel. */
static void copy_input_vec(rt_jit_lower_t *L, const wg_t *g, LLVMValueRef n, LLVMValueRef y_lo,
                           LLVMValueRef y_hi, LLVMValueRef xp) {
  LLVMBuilderRef B = L->b;
  const rt_plan_winograd_t *p = &g->p;
  const int32_t vw = g->vw;
  const int64_t cp = g->cp, W = p->w, H = p->h, C = p->c;
  LLVMValueRef zero = rt_jit_i64(L, 0), zv = LLVMConstNull(rt_jit_tpl_vec(L, vw));
  LLVMValueRef x = rt_jit_node(L, g->x)->data;
  LLVMValueRef img = LLVMBuildMul(B, p->n == 1 ? zero : n, rt_jit_i64(L, C * H * W), "");
  rt_jit_loop_t ly, lz, lc, lb;
  rt_jit_loop_begin(L, y_lo, y_hi, 0, NULL, &ly);
  LLVMValueRef ih = LLVMBuildSub(B, ly.iv, rt_jit_i64(L, p->pt), "");
  LLVMValueRef row_ok = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, ih, zero, ""),
                                     LLVMBuildICmp(B, LLVMIntSLT, ih, rt_jit_i64(L, H), ""), "");
  LLVMValueRef row = LLVMBuildMul(B, ly.iv, rt_jit_i64(L, g->wp * cp), "");
  /* Zero vectors: the whole row outside the image, else the pl pixels
   * left of it and the ones right of it (two contiguous runs). */
  const int64_t left = p->pl * cp / vw, right = (g->wp - p->pl - W) * cp / vw;
  LLVMValueRef nz0 = LLVMBuildSelect(B, row_ok, rt_jit_i64(L, left), rt_jit_i64(L, g->wp * cp / vw), "");
  rt_jit_loop_begin(L, zero, nz0, 0, NULL, &lz);
  rt_jit_tpl_storev(L, zv, xp, LLVMBuildAdd(B, row, LLVMBuildMul(B, lz.iv, rt_jit_i64(L, vw), ""), ""));
  rt_jit_loop_end(L, &lz, NULL);
  LLVMValueRef nz1 = LLVMBuildSelect(B, row_ok, rt_jit_i64(L, right), zero, "");
  LLVMValueRef rrow = LLVMBuildAdd(B, row, rt_jit_i64(L, (p->pl + W) * cp), "");
  rt_jit_loop_begin(L, zero, nz1, 0, NULL, &lz);
  rt_jit_tpl_storev(L, zv, xp, LLVMBuildAdd(B, rrow, LLVMBuildMul(B, lz.iv, rt_jit_i64(L, vw), ""), ""));
  rt_jit_loop_end(L, &lz, NULL);
  /* The image's columns: Cp / vw channel blocks of W / vw column blocks
   * and a last partial one. */
  rt_jit_loop_begin(L, zero, LLVMBuildSelect(B, row_ok, rt_jit_i64(L, cp / vw), zero, ""), 0, NULL, &lc);
  LLVMValueRef c0 = LLVMBuildMul(B, lc.iv, rt_jit_i64(L, vw), "");
  LLVMValueRef src[16], real[16];
  for (int32_t i = 0; i < vw; ++i) {
    /* Channel c0 + i (clamped to C - 1 so the load stays inside x; its
     * lanes are replaced by zeros past C). */
    LLVMValueRef ci = LLVMBuildAdd(B, c0, rt_jit_i64(L, i), "");
    real[i] = C % vw ? LLVMBuildICmp(B, LLVMIntSLT, ci, rt_jit_i64(L, C), "") : NULL;
    if (real[i]) ci = rt_jit_min(L, ci, rt_jit_i64(L, C - 1));
    LLVMValueRef off = LLVMBuildAdd(B, img, LLVMBuildAdd(B, LLVMBuildMul(B, ci, rt_jit_i64(L, H * W), ""),
                                                        LLVMBuildMul(B, ih, rt_jit_i64(L, W), ""), ""), "");
    src[i] = rt_jit_tpl_gep(L, x, off);
  }
  LLVMValueRef dst = rt_jit_tpl_gep(L, xp, LLVMBuildAdd(B, LLVMBuildAdd(B, row, rt_jit_i64(L, p->pl * cp), ""), c0, ""));
  /* One block: columns x0 .. x0 + k - 1 (k = vw but for the last one). */
#define BLOCK(x0, k)                                                                               \
  do {                                                                                             \
    LLVMValueRef v[16];                                                                            \
    for (int32_t i = 0; i < vw; ++i) {                                                             \
      v[i] = (k) == vw ? rt_jit_tpl_loadv(L, src[i], (x0), vw)                                     \
                       : rt_jit_tpl_masked_load(L, src[i], (x0), rt_jit_tpl_lanes_mask(L, (k), vw), zv, vw); \
      if (real[i]) v[i] = LLVMBuildSelect(B, real[i], v[i], zv, "");                               \
    }                                                                                              \
    rt_jit_tpl_transpose(L, vw, v);                                                                \
    for (int32_t j = 0; j < (k); ++j) {                                                            \
      rt_jit_tpl_storev(L, v[j], dst, LLVMBuildMul(B, LLVMBuildAdd(B, (x0), rt_jit_i64(L, j), ""), rt_jit_i64(L, cp), "")); \
    }                                                                                              \
  } while (0)
  rt_jit_loop_begin(L, zero, rt_jit_i64(L, W / vw), 0, NULL, &lb);
  BLOCK(LLVMBuildMul(B, lb.iv, rt_jit_i64(L, vw), ""), vw);
  rt_jit_loop_end(L, &lb, NULL);
  if (W % vw) BLOCK(rt_jit_i64(L, W / vw * vw), W % vw);
#undef BLOCK
  rt_jit_loop_end(L, &lc, NULL);
  rt_jit_loop_end(L, &ly, NULL);
}

/* Tile number t (i64) -> the element offset of its first input in Xp. */
static LLVMValueRef tile_base(rt_jit_lower_t *L, const wg_t *g, LLVMValueRef t) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef ty = LLVMBuildUDiv(B, t, rt_jit_i64(L, g->p.tw), "");
  LLVMValueRef tx = LLVMBuildURem(B, t, rt_jit_i64(L, g->p.tw), "");
  LLVMValueRef pos = LLVMBuildAdd(B, LLVMBuildMul(B, ty, rt_jit_i64(L, g->m * g->wp), ""),
                                  LLVMBuildMul(B, tx, rt_jit_i64(L, g->m), ""), "");
  return LLVMBuildMul(B, pos, rt_jit_i64(L, g->cp), "");
}

/* Step 1 for the block of `count` tiles from t0: `rows` (count rounded up
 * to sub) rows of Vb, the ones past the block's last tile repeating it
 * (their GEMM rows are computed and dropped). */
static void input_transform(rt_jit_lower_t *L, const wg_t *g, LLVMValueRef t0, LLVMValueRef count,
                            LLVMValueRef rows, LLVMValueRef xp, LLVMValueRef vb) {
  LLVMBuilderRef B = L->b;
  const int32_t vw = g->vw, alpha = (int32_t)g->alpha;
  const double *bt = g->p.mat.bt;
  rt_jit_loop_t lt, lc;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rows, 0, NULL, &lt);
  LLVMValueRef last = LLVMBuildSub(B, LLVMBuildAdd(B, t0, count, ""), rt_jit_i64(L, 1), "");
  LLVMValueRef t = rt_jit_min(L, LLVMBuildAdd(B, t0, lt.iv, ""), last);
  LLVMValueRef base = tile_base(L, g, t);
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->cp / vw), 0, NULL, &lc);
  LLVMValueRef c0 = LLVMBuildMul(B, lc.iv, rt_jit_i64(L, vw), "");
  LLVMValueRef src = rt_jit_tpl_gep(L, xp, LLVMBuildAdd(B, base, c0, ""));
  /* t1[a][q] = sum_p BT[a][p] d[p][q], column by column. */
  LLVMValueRef t1[AMAX][AMAX];
  for (int32_t q = 0; q < alpha; ++q) {
    LLVMValueRef d[AMAX], col[AMAX];
    for (int32_t pp = 0; pp < alpha; ++pp) {
      d[pp] = rt_jit_tpl_loadv(L, src, rt_jit_i64(L, ((int64_t)pp * g->wp + q) * g->cp), vw);
    }
    matvec(L, vw, bt, alpha, alpha, d, col);
    for (int32_t a = 0; a < alpha; ++a) t1[a][q] = col[a];
  }
  /* V[a][b] = sum_q t1[a][q] BT[b][q], stored at Vb[e][tile][c]. */
  LLVMValueRef dst = rt_jit_tpl_gep(L, vb, LLVMBuildAdd(B, LLVMBuildMul(B, lt.iv, rt_jit_i64(L, g->cp), ""), c0, ""));
  for (int32_t a = 0; a < alpha; ++a) {
    LLVMValueRef row[AMAX];
    matvec(L, vw, bt, alpha, alpha, t1[a], row);
    for (int32_t b = 0; b < alpha; ++b) {
      rt_jit_tpl_storev(L, row[b], dst, rt_jit_i64(L, (int64_t)(a * alpha + b) * g->vstride));
    }
  }
  rt_jit_loop_end(L, &lc, NULL);
  rt_jit_loop_end(L, &lt, NULL);
}

/* Step 2: the alpha^2 GEMMs of the block's first `rows` rows (a multiple
 * of sub), mr tiles x nw channels a tile, the rows after the last whole
 * one sub at a time (49 tiles: 4 tiles of 12 and one of 4 rows, where 5
 * of 12 computed 11 rows for nothing). `bpack` is the panel width P of
 * ub when it is the packed weight (alpha, alpha, O/P, C, P), else 0 (ub
 * holds U' (alpha, alpha, C, O)).
 * With P = nw every panel is C x nw contiguous floats in ub and the
 * micro-kernel reads it in place, a sequential stream, the row tiles of
 * each panel prefetching the next one between them (rt_jit_tpl_micro_pf).
 * Otherwise each
 * nw-column panel of U'[e] is first copied to pk (C x nw, contiguous,
 * L1-sized): read in place by the micro-kernel, U' (alpha, alpha, C, O)
 * has the panel's rows a stride no prefetcher follows, and the loads wait
 * in the FMA chain (ResNet's 512@7x7 layer ran at a third of the direct
 * template's speed that way); the copy loop issues them independently but
 * still waits on them: on ResNet-18's 512@7x7 layer (F(4x4), 1 thread)
 * the kernel ran 63 GFLOP/s with the copy and 186 without it, hence the
 * packed weight. */
static void gemms(rt_jit_lower_t *L, const wg_t *g, LLVMValueRef rows, LLVMValueRef vb, LLVMValueRef ub,
                  int64_t bpack, LLVMValueRef pk, LLVMValueRef mb) {
  LLVMBuilderRef B = L->b;
  const int64_t C = g->p.c, O = g->p.o, nw = g->nw;
  const bool inplace = bpack == nw;
  rt_jit_loop_t le, lo, lr, lc;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->a2), 0, NULL, &le);
  LLVMValueRef ue = rt_jit_tpl_gep(L, ub, LLVMBuildMul(B, le.iv, rt_jit_i64(L, C * O), ""));
  LLVMValueRef ve = rt_jit_tpl_gep(L, vb, LLVMBuildMul(B, le.iv, rt_jit_i64(L, g->vstride), ""));
  LLVMValueRef me = rt_jit_tpl_gep(L, mb, LLVMBuildMul(B, le.iv, rt_jit_i64(L, g->mstride), ""));
  rt_jit_loop_begin(L, g->ob_lo, g->ob_hi, 0, NULL, &lo);
  LLVMValueRef o0 = LLVMBuildMul(B, lo.iv, rt_jit_i64(L, nw), "");
  LLVMValueRef panel = pk;
  if (inplace) {
    /* Panel lo.iv of U'[e]: C * nw floats from (e * O/nw + lo) * C * nw. */
    panel = rt_jit_tpl_gep(L, ue, LLVMBuildMul(B, lo.iv, rt_jit_i64(L, C * nw), ""));
  } else {
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, C), 0, NULL, &lc);
    LLVMValueRef prow = rt_jit_tpl_gep(L, pk, LLVMBuildMul(B, lc.iv, rt_jit_i64(L, nw), ""));
    for (int32_t v = 0; v < g->nv; ++v) {
      /* U'[e][c][o0 + v*vw ..]: vw contiguous floats either way (P is a
       * multiple of vw). */
      LLVMValueRef o = LLVMBuildAdd(B, o0, rt_jit_i64(L, (int64_t)v * g->vw), "");
      LLVMValueRef at;
      if (bpack) {
        LLVMValueRef pw = rt_jit_i64(L, bpack);
        at = LLVMBuildAdd(B, LLVMBuildMul(B, LLVMBuildAdd(B, LLVMBuildMul(B, LLVMBuildUDiv(B, o, pw, ""), rt_jit_i64(L, C), ""), lc.iv, ""), pw, ""),
                          LLVMBuildURem(B, o, pw, ""), "");
      } else {
        at = LLVMBuildAdd(B, LLVMBuildMul(B, lc.iv, rt_jit_i64(L, O), ""), o, "");
      }
      rt_jit_tpl_storev(L, rt_jit_tpl_loadv(L, ue, at, g->vw), prow, rt_jit_i64(L, (int64_t)v * g->vw));
    }
    rt_jit_loop_end(L, &lc, NULL);
  }
  /* The panel after this one in the task's stream (the next block of
   * output channels, or the first of the next alpha plane's; the last
   * panel's "next" is itself), prefetched while the row tiles read this
   * one: the transformed weight comes from memory on every run
   * (resnet50's five 256@14x14 layers 4 MB each), and a panel of 16-64
   * KB spans 4 KiB pages at which the hardware prefetcher's streams stop.
   * 1 thread, summed per-kernel minima, 4 rounds ABBA: resnet50's
   * 256@14x14 kernels 680-698 -> 572-602 us each, the model 35131 ->
   * 34060 us (medians 36.8-37.4 -> 36.4-36.6 ms; 2 threads 22.1-25.7 ->
   * 21.7-24.0), squeezenet1_1 3.34-3.42 -> 3.17-3.25 ms, resnet18 on 8
   * lanes 21.7-22.0 -> 19.4-19.9 ms. Its lines are spread evenly over
   * the steps of all the row tiles (as the GEMM core's, dense.c), not
   * issued by the first tile alone: a 32 KB panel asked for within one
   * tile's 256 steps came from L3 no faster than the tiles after it
   * waited for it (an AVX-512 Xeon with 2 MiB L2, 1 thread, --profile
   * means in resnet50, 2 alternated rounds: the five 256@14x14 kernels
   * 5280 -> 4515 us, the two 512@7x7 3864 -> 3548, the three 128@28x28
   * 2358 -> 2083; the panel two or three ahead instead of the next: 1-5%
   * slower). */
  LLVMValueRef pfnext = NULL;
  if (inplace) {
    LLVMValueRef last_o = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildAdd(B, lo.iv, rt_jit_i64(L, 1), ""), g->ob_hi, "");
    LLVMValueRef last_e = LLVMBuildICmp(B, LLVMIntEQ, le.iv, rt_jit_i64(L, g->a2 - 1), "");
    LLVMValueRef e1 = LLVMBuildAdd(B, le.iv, rt_jit_i64(L, 1), "");
    LLVMValueRef next_e = rt_jit_tpl_gep(L, ub, LLVMBuildAdd(B, LLVMBuildMul(B, e1, rt_jit_i64(L, C * O), ""),
                                                           LLVMBuildMul(B, g->ob_lo, rt_jit_i64(L, C * nw), ""), ""));
    pfnext = LLVMBuildSelect(B, last_o, LLVMBuildSelect(B, last_e, panel, next_e, ""),
                             rt_jit_tpl_gep(L, panel, rt_jit_i64(L, C * nw)), "");
  }
  LLVMValueRef whole = LLVMBuildUDiv(B, rows, rt_jit_i64(L, g->mr), "");
  /* Row tiles reading this panel (whole ones, then those of sub rows). */
  LLVMValueRef ntile = whole;
  if (g->sub < g->mr) {
    LLVMValueRef left = LLVMBuildSub(B, rows, LLVMBuildMul(B, whole, rt_jit_i64(L, g->mr), ""), "");
    ntile = LLVMBuildAdd(B, whole, LLVMBuildUDiv(B, left, rt_jit_i64(L, g->sub), ""), "");
  }
  for (int32_t part = 0; part < (g->sub < g->mr ? 2 : 1); ++part) {
    /* part 0: whole mr-row tiles; part 1: the rows after them, sub a tile. */
    const int32_t tr = part == 0 ? g->mr : g->sub;
    LLVMValueRef first = part == 0 ? rt_jit_i64(L, 0) : LLVMBuildMul(B, whole, rt_jit_i64(L, g->mr), "");
    LLVMValueRef n = part == 0 ? whole
                               : LLVMBuildUDiv(B, LLVMBuildSub(B, rows, first, ""), rt_jit_i64(L, g->sub), "");
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), n, 0, NULL, &lr);
    LLVMValueRef r0 = LLVMBuildAdd(B, first, LLVMBuildMul(B, lr.iv, rt_jit_i64(L, tr), ""), "");
    LLVMValueRef arow[RT_JIT_TPL_MAX_MR];
    for (int32_t r = 0; r < tr; ++r) {
      arow[r] = rt_jit_tpl_gep(L, ve, LLVMBuildMul(B, LLVMBuildAdd(B, r0, rt_jit_i64(L, r), ""), rt_jit_i64(L, g->cp), ""));
    }
    LLVMValueRef c = rt_jit_tpl_gep(L, me, LLVMBuildAdd(B, LLVMBuildMul(B, r0, rt_jit_i64(L, O), ""), o0, ""));
    if (pfnext) {
      /* Every row tile fetches its share of the next panel, in order. */
      LLVMValueRef ti = part == 0 ? lr.iv : LLVMBuildAdd(B, whole, lr.iv, "");
      rt_jit_tpl_micro_pf(L, tr, g->nv, g->vw, C, arow, panel, nw, c, O, pfnext, ti, ntile,
                          rt_jit_i64(L, (C * nw + 15) / 16));
    } else {
      rt_jit_tpl_micro(L, tr, g->nv, g->vw, C, arow, panel, NULL, nw, c, O);
    }
    rt_jit_loop_end(L, &lr, NULL);
  }
  rt_jit_loop_end(L, &lo, NULL);
  rt_jit_loop_end(L, &le, NULL);
}

/* Step 3 for the block's first `count` tiles. */
static void output_transform(rt_jit_lower_t *L, const wg_t *g, LLVMValueRef count, LLVMValueRef mb,
                             LLVMValueRef yb) {
  LLVMBuilderRef B = L->b;
  const int32_t vw = g->vw, alpha = (int32_t)g->alpha, m = (int32_t)g->m;
  const int64_t O = g->p.o;
  const double *at = g->p.mat.at;
  rt_jit_loop_t lt, lo;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), count, 0, NULL, &lt);
  LLVMValueRef per = rt_jit_i64(L, g->nv);
  rt_jit_loop_begin(L, LLVMBuildMul(B, g->ob_lo, per, ""), LLVMBuildMul(B, g->ob_hi, per, ""), 0, NULL, &lo);
  LLVMValueRef o0 = LLVMBuildMul(B, lo.iv, rt_jit_i64(L, vw), "");
  LLVMValueRef src = rt_jit_tpl_gep(L, mb, LLVMBuildAdd(B, LLVMBuildMul(B, lt.iv, rt_jit_i64(L, O), ""), o0, ""));
  /* t2[i][b] = sum_a AT[i][a] M[a][b], column by column. */
  LLVMValueRef t2[AMAX][AMAX];
  for (int32_t b = 0; b < alpha; ++b) {
    LLVMValueRef mv[AMAX], col[AMAX];
    for (int32_t a = 0; a < alpha; ++a) {
      mv[a] = rt_jit_tpl_loadv(L, src, rt_jit_i64(L, (int64_t)(a * alpha + b) * g->mstride), vw);
    }
    matvec(L, vw, at, m, alpha, mv, col);
    for (int32_t i = 0; i < m; ++i) t2[i][b] = col[i];
  }
  LLVMValueRef dst = rt_jit_tpl_gep(L, yb, LLVMBuildAdd(B, LLVMBuildMul(B, lt.iv, rt_jit_i64(L, (int64_t)m * m * O), ""), o0, ""));
  for (int32_t i = 0; i < m; ++i) {
    LLVMValueRef row[AMAX];
    matvec(L, vw, at, m, alpha, t2[i], row);
    for (int32_t j = 0; j < m; ++j) {
      rt_jit_tpl_storev(L, row[j], dst, rt_jit_i64(L, (int64_t)(i * m + j) * O));
    }
  }
  rt_jit_loop_end(L, &lo, NULL);
  rt_jit_loop_end(L, &lt, NULL);
}

/* Output element (n, o, y, x)'s offset in floats (NCHW). */
static LLVMValueRef out_at(rt_jit_lower_t *L, const wg_t *g, LLVMValueRef n, LLVMValueRef o, LLVMValueRef y,
                           LLVMValueRef x) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef ch = LLVMBuildAdd(B, LLVMBuildMul(B, n, rt_jit_i64(L, g->p.o), ""), o, "");
  LLVMValueRef row = LLVMBuildAdd(B, LLVMBuildMul(B, ch, rt_jit_i64(L, g->p.oh), ""), y, "");
  return LLVMBuildAdd(B, LLVMBuildMul(B, row, rt_jit_i64(L, g->p.ow), ""), x, "");
}

/* Tiles [lg, lg + vw/m) of the block (indices in Yb), one tile row, every
 * column inside the output: per tile row i and vw output channels, the vw
 * pixels (vw/m tiles x m columns, contiguous in the output row) of each
 * channel by a vw x vw transpose of Yb's channel vectors, through the
 * vector epilogue with pixels in the lanes: one contiguous store per
 * channel, where the per-tile path stores each lane to its own channel
 * plane (16 scalar stores a vector). bench_kernels `wino`, 1 thread,
 * alternated: F(4x4) 64@56 454-479 -> 514-515 GFLOP/s, 128@28 507-539 ->
 * 546-562, F(2x2) 64@56 289-314 -> 331-335 (7x7 images have no group);
 * in the models (--profile, the Winograd kernels summed, warm column)
 * squeezenet1_1 1125-1166 -> 1052-1117 us, resnet50 5989-6149 ->
 * 5541-5900. */
static rt_status_t epilogue_group(rt_jit_lower_t *L, const wg_t *g, const rt_jit_tpl_plan_t *tp,
                                  const rt_ir_expr_t *out, LLVMValueRef data, LLVMValueRef n, LLVMValueRef yb,
                                  LLVMValueRef lg, LLVMValueRef oy0, LLVMValueRef ox0, LLVMValueRef ni,
                                  LLVMValueRef nvalid) {
  LLVMBuilderRef B = L->b;
  const int32_t vw = g->vw;
  const int64_t O = g->p.o, m = g->m;
  rt_jit_loop_t li, lo;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), ni, 0, NULL, &li);
  LLVMValueRef per = rt_jit_i64(L, g->nv);
  rt_jit_loop_begin(L, LLVMBuildMul(B, g->ob_lo, per, ""), LLVMBuildMul(B, g->ob_hi, per, ""), 0, NULL, &lo);
  LLVMValueRef o0 = LLVMBuildMul(B, lo.iv, rt_jit_i64(L, vw), "");
  /* Yb[lg + q/m][i][q%m][o0..] for pixel q of the group. */
  LLVMValueRef base = LLVMBuildAdd(B, LLVMBuildAdd(B, LLVMBuildMul(B, lg, rt_jit_i64(L, m * m * O), ""),
                                                  LLVMBuildMul(B, li.iv, rt_jit_i64(L, m * O), ""), ""), o0, "");
  LLVMValueRef r[RT_JIT_TPL_MAX_VW];
  for (int32_t q = 0; q < vw; ++q) {
    const int64_t at = (q / m) * m * m * O + (q % m) * O;
    r[q] = rt_jit_tpl_loadv(L, yb, LLVMBuildAdd(B, base, rt_jit_i64(L, at), ""), vw);
  }
  rt_jit_tpl_transpose(L, vw, r);
  for (int32_t c = 0; c < vw; ++c) rt_jit_tpl_storev(L, r[c], g->tr, rt_jit_i64(L, (int64_t)c * vw));
  LLVMValueRef oy = LLVMBuildAdd(B, oy0, li.iv, "");
  LLVMValueRef ny = rt_jit_min(L, LLVMBuildAdd(B, oy, rt_jit_i64(L, 1), ""), rt_jit_i64(L, g->p.oh - 1));
  LLVMValueRef mask = nvalid ? rt_jit_tpl_lanes_below(L, nvalid, vw) : NULL;
  /* Two channels an iteration of a loop LLVM keeps rolled, the
   * transposed vectors back from g->tr: unrolled, the vw instances of the
   * tail ops and stores took an eighth of resnet18's code generation
   * (16 lanes, 4 alternated cold compiles: 2264-2554 -> 1929-2238 ms of
   * optimization and codegen thread time) and ran no faster; one channel
   * an iteration made SqueezeNet's 16 -> 64 at 55x55 and 32 -> 128 at
   * 27x27 5% slower, two within noise (--profile, 1 thread, 4 rounds). */
  rt_jit_loop_t lc;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, vw / 2), 0, NULL, &lc);
  for (int32_t u = 0; u < 2; ++u) {
    LLVMValueRef c = LLVMBuildAdd(B, LLVMBuildMul(B, lc.iv, rt_jit_i64(L, 2), ""), rt_jit_i64(L, u), "");
    LLVMValueRef o = LLVMBuildAdd(B, o0, c, "");
    LLVMValueRef rc = rt_jit_tpl_loadv(L, g->tr, LLVMBuildMul(B, c, rt_jit_i64(L, vw), ""), vw);
    /* The lines of the channel's next output row (its store is vw
     * floats, on one or two lines), fetched for writing a row ahead: the
     * stores go to vw channel planes of an output last written long
     * before (a buffer an earlier layer used), and each waited for its
     * line. */
    LLVMValueRef at = out_at(L, g, n, o, ny, ox0);
    rt_jit_tpl_prefetch(L, rt_jit_tpl_gep(L, data, at), true);
    rt_jit_tpl_prefetch(L, rt_jit_tpl_gep(L, data, LLVMBuildAdd(B, at, rt_jit_i64(L, vw - 1), "")), true);
    LLVMValueRef idx[4] = {n, o, oy, ox0};
    if (!nvalid) {
      RT_RETURN_IF_ERROR(rt_jit_tpl_vepi(L, tp->anchor, out, data, 3, 4, idx, rc));
      continue;
    }
    /* Tail ops constant over the pixels; the group's first nvalid lanes
     * stored (all of them but in a row's last, partial group). */
    LLVMValueRef v;
    RT_RETURN_IF_ERROR(rt_jit_tpl_vepi_uniform(L, tp->anchor, out, 3, 4, idx, rc, &v));
    rt_jit_tpl_masked_store(L, v, data, out_at(L, g, n, o, oy, ox0), mask, vw);
  }
  rt_jit_tpl_loop_end_rolled(L, &lc);
  rt_jit_loop_end(L, &lo, NULL);
  rt_jit_loop_end(L, &li, NULL);
  return RT_OK;
}

/* Step 4: the epilogue of the block's first `count` tiles (t0 the first). */
static rt_status_t epilogue(rt_jit_lower_t *L, const wg_t *g, const rt_jit_tpl_plan_t *tp,
                            const rt_ir_expr_t *out, LLVMValueRef data, LLVMValueRef n,
                            LLVMValueRef t0, LLVMValueRef count, LLVMValueRef yb) {
  LLVMBuilderRef B = L->b;
  const int64_t O = g->p.o, m = g->m;
  rt_jit_loop_t lt, lo, li, lj;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), count, 0, NULL, &lt);
  LLVMValueRef t = LLVMBuildAdd(B, t0, lt.iv, "");
  LLVMValueRef oy0 = LLVMBuildMul(B, LLVMBuildUDiv(B, t, rt_jit_i64(L, g->p.tw), ""), rt_jit_i64(L, m), "");
  LLVMValueRef tx = LLVMBuildURem(B, t, rt_jit_i64(L, g->p.tw), "");
  LLVMValueRef ox0 = LLVMBuildMul(B, tx, rt_jit_i64(L, m), "");
  /* The tile's rows and columns inside the output. */
  LLVMValueRef ni = rt_jit_min(L, rt_jit_i64(L, m), LLVMBuildSub(B, rt_jit_i64(L, g->p.oh), oy0, ""));
  LLVMValueRef nj = rt_jit_min(L, rt_jit_i64(L, m), LLVMBuildSub(B, rt_jit_i64(L, g->p.ow), ox0, ""));
  LLVMValueRef ytile = LLVMBuildMul(B, lt.iv, rt_jit_i64(L, m * m * O), "");
  LLVMValueRef nwv = rt_jit_i64(L, g->nw);
  const int64_t gt = g->vw % m == 0 ? g->vw / m : 0; /* tiles of a group */
  rt_jit_if_t in_group;
  const bool grouped = gt > 1 && rt_jit_tpl_vepi_ok(L, tp->anchor, out, 3, 4) &&
                       rt_jit_tpl_vepi_ok(L, tp->anchor, out, 1, 2);
  /* A row's last group, where it has fewer than gt tiles or runs past
   * the output's columns: its first tile column, tiles and pixels. Taken
   * as a group (its first nvalid_last lanes stored, tail ops constant
   * over the pixels) where that is at least half a vector, instead of
   * tile by tile with a scalar store per lane: ResNet-50's 256@14x14
   * F(2x2) (one group of 7 tiles, 14 pixels, a row) and 128@28x28
   * F(4x4) (3 tiles, 12 pixels) kernels 4-5% faster (--profile, 1
   * thread, 3 alternated rounds), SqueezeNet's at 13x13 and 27x27 2-3%;
   * with 7 pixels (7x7, 55x55) the 512@7x7 kernels ran 5% slower. */
  const int64_t tx_last = gt > 1 ? (g->p.tw - 1) / gt * gt : 0;
  const int64_t ntl_last = g->p.tw - tx_last, nvalid_last = g->p.ow - tx_last * m;
  const bool partial = grouped && nvalid_last < g->vw && 2 * nvalid_last >= g->vw &&
                       rt_jit_tpl_vepi_uniform_ok(L, tp->anchor, out, 3, 4);
  if (grouped) {
    /* Groups of gt tiles from a tile column that is a multiple of gt,
     * inside the output's columns and the block: the group's first tile
     * stores all of them (epilogue_group), its others nothing. With
     * `partial`, likewise each row's last group of ntl_last tiles. */
    LLVMValueRef k = LLVMBuildURem(B, tx, rt_jit_i64(L, gt), "");
    LLVMValueRef gx = LLVMBuildSub(B, tx, k, "");
    LLVMValueRef lg = LLVMBuildSub(B, lt.iv, k, ""); /* the group's first tile, in the block */
    LLVMValueRef gin = LLVMBuildAnd(
        B, LLVMBuildICmp(B, LLVMIntSLE, LLVMBuildAdd(B, gx, rt_jit_i64(L, gt), ""), rt_jit_i64(L, g->p.ow / m), ""),
        LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, lg, rt_jit_i64(L, 0), ""),
                     LLVMBuildICmp(B, LLVMIntSLE, LLVMBuildAdd(B, lg, rt_jit_i64(L, gt), ""), count, ""), ""),
        "");
    LLVMValueRef pin = NULL;
    if (partial) {
      pin = LLVMBuildAnd(
          B, LLVMBuildICmp(B, LLVMIntEQ, gx, rt_jit_i64(L, tx_last), ""),
          LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, lg, rt_jit_i64(L, 0), ""),
                       LLVMBuildICmp(B, LLVMIntSLE, LLVMBuildAdd(B, lg, rt_jit_i64(L, ntl_last), ""), count, ""), ""),
          "");
    }
    rt_jit_if_t first;
    rt_jit_if_begin(L, pin ? LLVMBuildOr(B, gin, pin, "") : gin, &in_group);
    rt_jit_if_begin(L, LLVMBuildICmp(B, LLVMIntEQ, k, rt_jit_i64(L, 0), ""), &first);
    /* One instance for both kinds of group (a partial one's tiles past
     * its last are read from the slack after Yb and not stored). */
    LLVMValueRef nvalid = pin ? LLVMBuildSelect(B, gin, rt_jit_i64(L, g->vw), rt_jit_i64(L, nvalid_last), "") : NULL;
    RT_RETURN_IF_ERROR(epilogue_group(L, g, tp, out, data, n, yb, lg, oy0, ox0, ni, nvalid));
    rt_jit_if_else(L, &first, NULL);
    (void)rt_jit_if_end(L, &first, NULL);
    rt_jit_if_else(L, &in_group, NULL);
  }
  if (rt_jit_tpl_vepi_ok(L, tp->anchor, out, 1, 2)) {
    /* The tail ops on vw output channels at a time (Yb's o is contiguous),
     * each lane then stored to its own channel plane. */
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), ni, 0, NULL, &li);
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), nj, 0, NULL, &lj);
    LLVMValueRef pos = LLVMBuildAdd(B, LLVMBuildMul(B, li.iv, rt_jit_i64(L, m), ""), lj.iv, "");
    LLVMValueRef row = LLVMBuildAdd(B, ytile, LLVMBuildMul(B, pos, rt_jit_i64(L, O), ""), "");
    LLVMValueRef per = rt_jit_i64(L, g->nv);
    rt_jit_loop_begin(L, LLVMBuildMul(B, g->ob_lo, per, ""), LLVMBuildMul(B, g->ob_hi, per, ""), 0, NULL, &lo);
    LLVMValueRef o0 = LLVMBuildMul(B, lo.iv, rt_jit_i64(L, g->vw), "");
    LLVMValueRef val = rt_jit_tpl_loadv(L, yb, LLVMBuildAdd(B, row, o0, ""), g->vw);
    LLVMValueRef idx[4] = {n, o0, LLVMBuildAdd(B, oy0, li.iv, ""), LLVMBuildAdd(B, ox0, lj.iv, "")};
    RT_RETURN_IF_ERROR(rt_jit_tpl_vepi(L, tp->anchor, out, data, 1, 2, idx, val));
    rt_jit_loop_end(L, &lo, NULL);
    rt_jit_loop_end(L, &lj, NULL);
    rt_jit_loop_end(L, &li, NULL);
    if (grouped) (void)rt_jit_if_end(L, &in_group, NULL);
    rt_jit_loop_end(L, &lt, NULL);
    return RT_OK;
  }
  rt_jit_loop_begin(L, LLVMBuildMul(B, g->ob_lo, nwv, ""), LLVMBuildMul(B, g->ob_hi, nwv, ""), 0, NULL, &lo);
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), ni, 0, NULL, &li);
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), nj, 0, NULL, &lj);
  LLVMValueRef pos = LLVMBuildAdd(B, LLVMBuildMul(B, li.iv, rt_jit_i64(L, m), ""), lj.iv, "");
  LLVMValueRef off = LLVMBuildAdd(B, ytile, LLVMBuildAdd(B, LLVMBuildMul(B, pos, rt_jit_i64(L, O), ""), lo.iv, ""), "");
  LLVMValueRef val = rt_jit_tpl_loadf(L, yb, off);
  LLVMValueRef idx[4] = {n, lo.iv, LLVMBuildAdd(B, oy0, li.iv, ""), LLVMBuildAdd(B, ox0, lj.iv, "")};
  RT_RETURN_IF_ERROR(rt_jit_tpl_epilogue(L, tp->anchor, out, data, idx, val));
  rt_jit_loop_end(L, &lj, NULL);
  rt_jit_loop_end(L, &li, NULL);
  rt_jit_loop_end(L, &lo, NULL);
  rt_jit_loop_end(L, &lt, NULL);
  return RT_OK;
}

bool rt_jit_tpl_winograd_attrs(const rt_ir_expr_t *call, rt_plan_winograd_t *out) {
  memset(out, 0, sizeof *out);
  const rt_ir_op_t *op = call->call.callee->op.op;
  if (op->id != RT_OP_NN_WINOGRAD_CONV2D) return false;
  rt_plan_input_t in[2];
  if (rt_jit_plan_inputs(call, 2, in) != RT_OK) return false; /* unreachable: typed */
  rt_status_t st = rt_ir_plan_winograd(op, call->call.attrs, 2, in, out);
  if (st) {
    rt_status_free(st);
    return false;
  }
  return out->n > 0 && out->c > 0 && out->o > 0 && out->oh > 0 && out->ow > 0 &&
         (out->pack ? in[1].shape[2] * out->pack : in[1].shape[3]) == out->o;
}

rt_status_t rt_jit_tpl_winograd(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *tp, const rt_ir_expr_t *out,
                                LLVMValueRef data, LLVMValueRef task, LLVMValueRef ntasks) {
  LLVMBuilderRef B = L->b;
  wg_t g = {.x = tp->anchor->call.args[0], .u = tp->anchor->call.args[1], .vw = tp->vw, .mr = tp->mr,
            .nv = tp->nv};
  if (!rt_jit_tpl_winograd_attrs(tp->anchor, &g.p)) {
    return RT_STATUS(INTERNAL, "%s", "winograd attributes changed between planning and lowering");
  }
  const rt_plan_winograd_t *p = &g.p;
  g.m = p->mat.m, g.alpha = p->mat.alpha, g.a2 = g.alpha * g.alpha;
  g.cp = (p->c + g.vw - 1) / g.vw * g.vw;
  g.hp = p->th * g.m + g.alpha - g.m, g.wp = p->tw * g.m + g.alpha - g.m;
  g.ntiles = p->th * p->tw;
  g.nw = (int64_t)g.vw * g.nv;
  g.sub = g.mr > 4 && g.mr % 4 == 0 ? 4 : g.mr;
  /* Tiles per block: every tile of the image when the transformed weight
   * (read once per block) outweighs the V and M buffers of all of them
   * (alpha^2 (Cp + O) floats a tile; ResNet's 256@14x14 and 512@7x7
   * layers), else as many as keep one block's buffers within ~768 KiB;
   * a multiple of mr, at least mr. */
  const int64_t per_tile = g.a2 * (g.cp + p->o) * 4;
  const int64_t all = (g.ntiles + g.mr - 1) / g.mr * g.mr;
  int64_t tb = (768 * 1024 / per_tile) / g.mr * g.mr;
  if (g.a2 * p->c * p->o * 4 > all * per_tile) tb = all;
  if (tb < g.mr) tb = g.mr;
  if (tb > all) tb = all;
  g.tb = tb;
  g.vstride = plane_stride(tb * g.cp);
  g.mstride = plane_stride(tb * p->o);
  if (p->o % g.nw != 0 || g.mr > RT_JIT_TPL_MAX_MR || p->pack % g.vw != 0) {
    return RT_STATUS(INTERNAL, "%s",
                     "winograd template: the tile does not divide the output channels, or the weight's "
                     "panels are not whole vectors");
  }
  rt_jit_tpl_wide(L, g.vw);
  /* Tasks take ranges of units, sub tiles each (an image's tiles in raster
   * order, the images one after another), each task copying only the
   * input rows its tiles read; or every task takes every tile and its
   * share of the output channel blocks (each then copies and transforms
   * the whole input, but reads only its share of the transformed
   * weight). Whichever gives the busiest task less work: per unit,
   * ceil(units / T) units of O columns each against units units of
   * ceil(blocks / T) blocks, each unit also costing its input transform,
   * 4 alpha columns' worth (fitted: on 2 threads, each split forced,
   * resnet50's five 256@14x14 F(2x2) kernels took 2897-2944 us by
   * channels against 3287-3432 by units, its three 128@28x28 F(4x4) ones
   * 1494-1793 against 1413-1458, the 64@56x56 ones 1411-1455 against
   * 1243-1404; --profile, Zen 5 host). With units of 12 tiles the
   * 49-tile layers had 5 units, 3 on one of two tasks: channels won
   * there (resnet18's 760-940 -> 620-650 us). Each task also streams
   * its share of a transformed weight over WG_STREAM_MIN_BYTES from
   * memory, WG_STREAM_FMA per float in the same units (per sub tiles of
   * a2 * C multiply-adds): the whole weight, O columns, split by units;
   * its channels' share split by channels. With few tiles to share it
   * (7x7: 4 units of 4 tiles, 16.8 MB for 512 channels) streaming all of
   * it on both cores cost more than the arithmetic. */
  const int64_t per_img = (g.ntiles + g.sub - 1) / g.sub;
  const int64_t units = p->n * per_img;
  const int64_t nob = p->o / g.nw;
  LLVMValueRef one = rt_jit_i64(L, 1), tm1 = LLVMBuildSub(B, ntasks, one, "");
  LLVMValueRef u_per = LLVMBuildSDiv(B, LLVMBuildAdd(B, rt_jit_i64(L, units), tm1, ""), ntasks, "");
  LLVMValueRef ob_per = LLVMBuildSDiv(B, LLVMBuildAdd(B, rt_jit_i64(L, nob), tm1, ""), ntasks, "");
  const int64_t xform = 4 * g.alpha;
  const int64_t stream = g.a2 * p->c * p->o * 4 > WG_STREAM_MIN_BYTES ? WG_STREAM_FMA : 0;
  LLVMValueRef cols_c = LLVMBuildMul(B, ob_per, rt_jit_i64(L, g.nw), "");
  LLVMValueRef cost_u = rt_jit_i64(L, p->o * stream / g.sub);
  cost_u = LLVMBuildAdd(B, LLVMBuildMul(B, u_per, rt_jit_i64(L, p->o + xform), ""), cost_u, "");
  LLVMValueRef cost_c = LLVMBuildMul(B, rt_jit_i64(L, units), LLVMBuildAdd(B, cols_c, rt_jit_i64(L, xform), ""), "");
  cost_c = LLVMBuildAdd(B, cost_c,
                        LLVMBuildSDiv(B, LLVMBuildMul(B, cols_c, rt_jit_i64(L, stream), ""), rt_jit_i64(L, g.sub), ""),
                        "");
  LLVMValueRef by_units = LLVMBuildICmp(B, LLVMIntSLE, cost_u, cost_c, "");
  LLVMValueRef u_lo, u_hi, ob_lo, ob_hi;
  rt_jit_tpl_split(L, units, task, ntasks, &u_lo, &u_hi);
  rt_jit_tpl_split(L, nob, task, ntasks, &ob_lo, &ob_hi);
  u_lo = LLVMBuildSelect(B, by_units, u_lo, rt_jit_i64(L, 0), "");
  u_hi = LLVMBuildSelect(B, by_units, u_hi, rt_jit_i64(L, units), "");
  g.ob_lo = LLVMBuildSelect(B, by_units, rt_jit_i64(L, 0), ob_lo, "");
  g.ob_hi = LLVMBuildSelect(B, by_units, rt_jit_i64(L, nob), ob_hi, "");
  /* A task with no channel block has nothing to do. */
  u_hi = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSLT, g.ob_lo, g.ob_hi, ""), u_hi, u_lo, "");
  const bool uraw = rt_jit_tpl_raw(L, g.u);
  LLVMValueRef xp = rt_jit_tpl_ws_alloc(L, g.hp * g.wp * g.cp * 4 + 64);
  LLVMValueRef vb = rt_jit_tpl_ws_alloc(L, g.a2 * g.vstride * 4);
  LLVMValueRef mb = rt_jit_tpl_ws_alloc(L, g.a2 * g.mstride * 4);
  /* (plus vw/m tiles read, not used, by a row's last group of tiles) */
  LLVMValueRef yb = rt_jit_tpl_ws_alloc(L, (tb + g.vw / g.m) * g.m * g.m * p->o * 4);
  LLVMValueRef pk = rt_jit_tpl_ws_alloc(L, p->c * g.nw * 4);
  g.tr = rt_jit_tpl_ws_alloc(L, (int64_t)g.vw * g.vw * 4);
  LLVMValueRef uw = uraw ? LLVMConstNull(L->ptr) : rt_jit_tpl_ws_alloc(L, g.a2 * p->c * p->o * 4);
  LLVMValueRef ok = LLVMBuildAnd(B, LLVMBuildAnd(B, LLVMBuildIsNotNull(B, xp, ""), LLVMBuildIsNotNull(B, vb, ""), ""),
                                 LLVMBuildAnd(B, LLVMBuildIsNotNull(B, mb, ""), LLVMBuildIsNotNull(B, yb, ""), ""), "");
  ok = LLVMBuildAnd(B, ok, LLVMBuildAnd(B, LLVMBuildIsNotNull(B, pk, ""), LLVMBuildIsNotNull(B, g.tr, ""), ""), "");
  if (!uraw) ok = LLVMBuildAnd(B, ok, LLVMBuildIsNotNull(B, uw, ""), "");
  rt_jit_if_t have;
  rt_jit_if_begin(L, ok, &have);
  LLVMValueRef ub = uraw ? rt_jit_node(L, g.u)->data : uw;
  if (!uraw) {
    /* A transformed weight computed in this kernel: copied out once. */
    rt_jit_loop_t le, lc, lo;
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g.a2), 0, NULL, &le);
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, p->c), 0, NULL, &lc);
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, p->o), 0, NULL, &lo);
    /* U'[a, b, c, o], or [a, b, o / P, c, o % P] packed; stored unpacked. */
    LLVMValueRef v, idx[5] = {LLVMBuildUDiv(B, le.iv, rt_jit_i64(L, g.alpha), ""),
                              LLVMBuildURem(B, le.iv, rt_jit_i64(L, g.alpha), ""), lc.iv, lo.iv, NULL};
    if (p->pack) {
      idx[2] = LLVMBuildUDiv(B, lo.iv, rt_jit_i64(L, p->pack), "");
      idx[3] = lc.iv;
      idx[4] = LLVMBuildURem(B, lo.iv, rt_jit_i64(L, p->pack), "");
    }
    RT_RETURN_IF_ERROR(rt_jit_elem(L, g.u, idx, &v));
    LLVMValueRef at = LLVMBuildAdd(B, LLVMBuildMul(B, LLVMBuildAdd(B, LLVMBuildMul(B, le.iv, rt_jit_i64(L, p->c), ""), lc.iv, ""),
                                                   rt_jit_i64(L, p->o), ""), lo.iv, "");
    rt_jit_tpl_storef(L, v, uw, at);
    rt_jit_loop_end(L, &lo, NULL);
    rt_jit_loop_end(L, &lc, NULL);
    rt_jit_loop_end(L, &le, NULL);
  }
  /* Images n_lo .. n_hi - 1 hold the task's units; in image n its tiles
   * are [ta, tz), read from padded rows [ty(ta) m, ty(tz - 1) m + alpha),
   * taken in blocks of tb tiles. */
  LLVMValueRef pim = rt_jit_i64(L, per_img), su = rt_jit_i64(L, g.sub);
  LLVMValueRef n_lo = LLVMBuildUDiv(B, u_lo, pim, "");
  LLVMValueRef n_hi = LLVMBuildUDiv(B, LLVMBuildAdd(B, u_hi, rt_jit_i64(L, per_img - 1), ""), pim, "");
  n_hi = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntSGT, u_hi, u_lo, ""), n_hi, n_lo, "");
  rt_jit_loop_t ln, lb;
  rt_jit_loop_begin(L, n_lo, n_hi, 0, NULL, &ln);
  LLVMValueRef first = LLVMBuildMul(B, ln.iv, pim, "");
  LLVMValueRef ta = LLVMBuildMul(B, rt_jit_max(L, LLVMBuildSub(B, u_lo, first, ""), rt_jit_i64(L, 0)), su, "");
  LLVMValueRef tz = rt_jit_min(L, LLVMBuildMul(B, rt_jit_min(L, LLVMBuildSub(B, u_hi, first, ""), pim), su, ""),
                               rt_jit_i64(L, g.ntiles));
  LLVMValueRef tw = rt_jit_i64(L, p->tw), mv = rt_jit_i64(L, g.m);
  LLVMValueRef y_lo = LLVMBuildMul(B, LLVMBuildUDiv(B, ta, tw, ""), mv, "");
  LLVMValueRef y_hi = LLVMBuildAdd(B, LLVMBuildMul(B, LLVMBuildUDiv(B, LLVMBuildSub(B, tz, rt_jit_i64(L, 1), ""), tw, ""), mv, ""),
                                   rt_jit_i64(L, g.alpha), "");
  if (copy_vec_ok(L, &g)) {
    copy_input_vec(L, &g, ln.iv, y_lo, y_hi, xp);
  } else {
    RT_RETURN_IF_ERROR(copy_input(L, &g, ln.iv, y_lo, y_hi, xp));
  }
  LLVMValueRef nb = LLVMBuildUDiv(B, LLVMBuildAdd(B, LLVMBuildSub(B, tz, ta, ""), rt_jit_i64(L, tb - 1), ""),
                                  rt_jit_i64(L, tb), "");
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), nb, 0, NULL, &lb);
  LLVMValueRef t0 = LLVMBuildAdd(B, ta, LLVMBuildMul(B, lb.iv, rt_jit_i64(L, tb), ""), "");
  LLVMValueRef count = rt_jit_min(L, rt_jit_i64(L, tb), LLVMBuildSub(B, tz, t0, ""));
  LLVMValueRef rows = LLVMBuildMul(B, LLVMBuildUDiv(B, LLVMBuildAdd(B, count, rt_jit_i64(L, g.sub - 1), ""), su, ""), su, "");
  input_transform(L, &g, t0, count, rows, xp, vb);
  gemms(L, &g, rows, vb, ub, uraw ? p->pack : 0, pk, mb);
  output_transform(L, &g, count, mb, yb);
  RT_RETURN_IF_ERROR(epilogue(L, &g, tp, out, data, ln.iv, t0, count, yb));
  rt_jit_loop_end(L, &lb, NULL);
  rt_jit_loop_end(L, &ln, NULL);
  rt_jit_if_else(L, &have, NULL);
  rt_jit_flag_error(L, LLVMConstInt(L->i1, 1, 0), "out of workspace memory (winograd template)");
  (void)rt_jit_if_end(L, &have, NULL);
  rt_jit_tpl_ws_free(L, uw);
  rt_jit_tpl_ws_free(L, g.tr);
  rt_jit_tpl_ws_free(L, pk);
  rt_jit_tpl_ws_free(L, yb);
  rt_jit_tpl_ws_free(L, mb);
  rt_jit_tpl_ws_free(L, vb);
  rt_jit_tpl_ws_free(L, xp);
  return RT_OK;
}
