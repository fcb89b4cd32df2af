/* The GEMM template: nn.dense (data (..., M, K) x weight (N, K)^T),
 * nn.contrib_dense_pack (dense with the weight prepacked at build time in
 * the panel layout pack_b makes, read in place: no packing of B at run
 * time),
 * nn.matmul (data (..., M, K) or 2-d (K, M), optional transposes: a data
 * of rank >= 3 is one GEMM over its flattened rows, as in every
 * transformer's projections) and nn.batch_matmul (rank 3, batch dims
 * broadcast when 1), and the GEMM core the im2col convolution reuses.
 *
 * Algorithm (rt_jit_tpl_gemm_core), per task and batch:
 *   pack the task's rows of A k-major by mr-row tile (tile t's A(r, k) at
 *     t * mr * kp + k * mr + r, zeros past M and K), so the micro-kernel's
 *     broadcasts read one contiguous stream (a row-major A in memory by
 *     vw x vw blocks transposed in registers: pack_a_rows_transposed);
 *   for each K block (one up to K = KC_MAX):
 *     for each block of ncp N panels of vw*nv columns (vw = 8 or 16 lanes,
 *     templates.h) owned by the task:
 *       pack those panels' K block of B into workspace (kc x vw*nv each,
 *         zero past N and K), so B is read with unit stride whatever its
 *         layout; the block (about B_BLOCK_BYTES) stays in L2 (a
 *         prepacked weight is read where it lies: panel p, K block k0 at
 *         p * K * vw*nv + k0 * vw*nv, the last block's steps cut at K);
 *       for each row tile, for each panel of the block: the micro-kernel
 *         (broadcast A(i, k), fma into mr*nv <vw x float> accumulators)
 *         over the K block, into a workspace C tile (added to the tile's
 *         partial sums after the first K block); after the last K block
 *         the tile's epilogue: the anchor value, the fused tail ops, the
 *         store (clipped to M x N).
 * Workspace per task: its packed A, one packed B block, and one C tile
 * (all the task's C tiles when K has several blocks).
 *
 * Invariants: a C tile is mr x vw*nv floats whatever M and N; padded rows
 * and columns hold values computed from the zero padding and are never
 * read by the epilogue. Tasks own disjoint (batch, rows, columns) regions,
 * so no synchronisation is needed.
 *
 * The transposes and M, N, K and the batch dims of dense/matmul/
 * batch_matmul come from their plan (rt_ir_plan_matmul, ir/op/plan_nn.h). */
#include <stdio.h>
#include <string.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"
#include "jit/templates/templates.h"

/* ---- the core ---------------------------------------------------------------- */

/* K blocks of at most this many steps. Up to this K the micro-kernel runs
 * the whole K in registers: its k-major A panel and its B panel are two
 * sequential streams (from L1/L2), and no C block round-trips through
 * workspace. Measured (build-rel/bench/bench_kernels 5 dense, with the
 * variants built in and interleaved in one process; K = 4096 and 16384 as
 * extra dense cases in its list): K blocks of 256 with C accumulated in
 * workspace ran dense 512^3 at 0.52-0.64 of the FMA peak where one block
 * ran 0.82-0.87, and 1024^3 at 0.65-0.71 vs 0.75-0.90; at K = 4096 and
 * 16384 blocks of 1024-2048 and one block were within noise of each
 * other. */
#define KC_MAX 2048
/* Bytes of packed B (kc x the columns of one block) kept in L2 while
 * every row tile of the task passes over it. */
#define B_BLOCK_BYTES (256 * 1024)

typedef struct blocking_t {
  int64_t nw, np;      /* panel width (vw * nv), panels over N */
  int64_t mt;          /* row tiles over M */
  int64_t nkb, kc, kp; /* K blocks, steps per block, padded K = nkb * kc */
  int64_t ncp;         /* panels per B block */
} blocking_t;

static blocking_t blocking(const rt_jit_gemm_core_t *g) {
  blocking_t z;
  z.nw = (int64_t)g->vw * g->nv;
  z.np = (g->n + z.nw - 1) / z.nw;
  z.mt = (g->m + g->mr - 1) / g->mr;
  z.nkb = (g->k + KC_MAX - 1) / KC_MAX;
  z.kc = (g->k + z.nkb - 1) / z.nkb;
  z.kp = z.nkb * z.kc;
  z.ncp = B_BLOCK_BYTES / (z.kc * 4 * z.nw);
  if (z.ncp < 1) z.ncp = 1;
  return z;
}

static LLVMValueRef imin(rt_jit_lower_t *L, LLVMValueRef a, int64_t b) {
  return rt_jit_min(L, a, rt_jit_i64(L, b));
}

static LLVMValueRef mul(rt_jit_lower_t *L, LLVMValueRef a, int64_t b) {
  return LLVMBuildMul(L->b, a, rt_jit_i64(L, b), "");
}

static LLVMValueRef add(rt_jit_lower_t *L, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildAdd(L->b, a, b, "");
}

/* Zeros p[lo, hi) (float offsets). */
static void zero_range(rt_jit_lower_t *L, LLVMValueRef p, LLVMValueRef lo, LLVMValueRef hi) {
  rt_jit_loop_t lz;
  rt_jit_loop_begin(L, lo, hi, 0, NULL, &lz);
  rt_jit_tpl_storef(L, LLVMConstReal(L->f32, 0), p, lz.iv);
  rt_jit_loop_end(L, &lz, NULL);
}

/* Row i's offset in a_rows' table (i64). */
static LLVMValueRef a_row_off(rt_jit_lower_t *L, LLVMValueRef tab, LLVMValueRef i) {
  LLVMValueRef v = LLVMBuildLoad2(L->b, L->i32, LLVMBuildGEP2(L->b, L->i32, tab, &i, 1, ""), "");
  return LLVMBuildSExt(L->b, v, L->i64, "");
}

/* Step k's offset: k * a_ld, or a_koff's table entry (ktab). */
static LLVMValueRef a_k_off(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef ktab, LLVMValueRef k) {
  return ktab ? a_row_off(L, ktab, k) : mul(L, k, g->a_ld);
}

/* A(b, i, k) for the packing loops: in memory (a_base; tab: a_rows'
 * table or NULL, ktab: a_koff's or NULL) or through a_elem. */
static rt_status_t a_value(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                           LLVMValueRef abase, LLVMValueRef tab, LLVMValueRef ktab, LLVMValueRef i,
                           LLVMValueRef k, LLVMValueRef *out) {
  if (abase) {
    LLVMValueRef off;
    if (!g->a_m_inner) {
      off = add(L, mul(L, i, g->k), k);
    } else if (tab) {
      off = add(L, a_k_off(L, g, ktab, k), a_row_off(L, tab, i));
    } else {
      off = add(L, mul(L, k, g->m), i);
    }
    *out = rt_jit_tpl_loadf(L, abase, off);
    return RT_OK;
  }
  return g->a_elem(L, g, b, i, k, out);
}

/* The first n lanes of vector v (v itself where it has n). */
static LLVMValueRef first_lanes(rt_jit_lower_t *L, LLVMValueRef v, int32_t n) {
  if ((int32_t)LLVMGetVectorSize(LLVMTypeOf(v)) == n) return v;
  LLVMValueRef keep[RT_JIT_TPL_MAX_VW];
  for (int32_t l = 0; l < n; ++l) keep[l] = rt_jit_i32(L, l);
  return LLVMBuildShuffleVector(L->b, v, LLVMGetUndef(LLVMTypeOf(v)), LLVMConstVector(keep, (unsigned)n), "");
}

/* pack_a's whole tiles of a row-major A in memory (A(i, k) at i * K + k)
 * by blocks of vw steps: the tile's mr rows loaded as vw-wide vectors
 * along k, transposed in registers (rows past mr undefined) and each
 * step's first mr lanes stored as one run; the K tail element by element.
 * An element loop packed about one float per 3 cycles: a quarter of the
 * time of a 128 x 1024 x 256 dense (the transformer's feed-forward
 * output projection) went to it. Returns the first row not packed. */
static LLVMValueRef pack_a_rows_transposed(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g,
                                           const blocking_t *z, LLVMValueRef abase, LLVMValueRef row_lo,
                                           LLVMValueRef valid_hi, LLVMValueRef wsa) {
  LLVMBuilderRef B = L->b;
  const int32_t vw = g->vw, mr = g->mr;
  const int64_t kv = g->k / vw * vw;
  LLVMTypeRef vt = rt_jit_tpl_vec(L, vw);
  LLVMValueRef nfull = LLVMBuildUDiv(B, LLVMBuildSub(B, rt_jit_max(L, valid_hi, row_lo), row_lo, ""),
                                     rt_jit_i64(L, mr), "");
  rt_jit_loop_t lt, lk, lkt;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), nfull, 0, NULL, &lt);
  LLVMValueRef src = rt_jit_tpl_gep(L, abase, mul(L, add(L, row_lo, mul(L, lt.iv, mr)), g->k));
  LLVMValueRef dst = rt_jit_tpl_gep(L, wsa, mul(L, lt.iv, mr * z->kp));
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, kv / vw), 0, NULL, &lk);
  LLVMValueRef kk = mul(L, lk.iv, vw);
  LLVMValueRef rows[RT_JIT_TPL_MAX_VW];
  for (int32_t r = 0; r < vw; ++r) {
    if (r >= mr) {
      rows[r] = LLVMGetUndef(vt);
      continue;
    }
    rows[r] = LLVMBuildLoad2(B, vt, rt_jit_tpl_gep(L, src, add(L, kk, rt_jit_i64(L, (int64_t)r * g->k))), "");
    LLVMSetAlignment(rows[r], 4);
  }
  rt_jit_tpl_transpose(L, vw, rows);
  for (int32_t j = 0; j < vw; ++j) {
    LLVMValueRef st = LLVMBuildStore(B, first_lanes(L, rows[j], mr), rt_jit_tpl_gep(L, dst, mul(L, add(L, kk, rt_jit_i64(L, j)), mr)));
    LLVMSetAlignment(st, 4);
  }
  rt_jit_loop_end(L, &lk, NULL);
  rt_jit_loop_begin(L, rt_jit_i64(L, kv), rt_jit_i64(L, g->k), 0, NULL, &lkt);
  for (int32_t r = 0; r < mr; ++r) {
    LLVMValueRef v = rt_jit_tpl_loadf(L, src, add(L, lkt.iv, rt_jit_i64(L, (int64_t)r * g->k)));
    rt_jit_tpl_storef(L, v, dst, add(L, mul(L, lkt.iv, mr), rt_jit_i64(L, r)));
  }
  rt_jit_loop_end(L, &lkt, NULL);
  rt_jit_loop_end(L, &lt, NULL);
  return add(L, row_lo, mul(L, nfull, mr));
}

/* Packs rows [row_lo, row_hi) of A(b) (row_hi - row_lo = the task's tiles
 * times mr, possibly past M) into wsa k-major by tile: tile t's mr x kp
 * panel at t * mr * kp, A(row_lo + t * mr + r, k) at k * mr + r, so the
 * micro-kernel's broadcasts walk one contiguous stream. Steps past K and
 * rows past M are zero. */
static rt_status_t pack_a(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, const blocking_t *z,
                          LLVMValueRef b, LLVMValueRef row_lo, LLVMValueRef row_hi,
                          LLVMValueRef wsa) {
  LLVMBuilderRef B = L->b;
  const int64_t mr = g->mr;
  LLVMValueRef abase = g->a_base ? g->a_base(L, g, b) : NULL;
  LLVMValueRef tab = NULL, ktab = NULL;
  if (abase && g->a_m_inner && g->a_rows) {
    tab = g->a_rows(L, g);
    ktab = g->a_koff ? g->a_koff(L, g) : NULL;
    if (!tab || (g->a_koff && !ktab)) {
      return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory for the GEMM's row or step table");
    }
  }
  LLVMValueRef valid_hi = imin(L, row_hi, g->m);
  LLVMValueRef first = row_lo; /* the first row the element loops below pack */
  rt_jit_loop_t lr, lk;
  if (abase && g->a_m_inner) {
    /* A stored k-major in memory: the task's whole tiles below M by
     * steps k, each step's mr values one <mr x float> copy (contiguous
     * rows) or mr loads at the tile's row offsets, read from the table
     * once per tile (a_rows); the rows of a last partial tile by the
     * loops below. Tiles outer: a tile's writes are one sequential run
     * and its reads (one run per row k of A) leave the lines the next
     * tile reads in L1; with k outer, the tiles' panels (mr * K floats
     * apart: 48 KB at K = 1024) alias to the same L1 sets. */
    LLVMValueRef nfull = LLVMBuildUDiv(B, LLVMBuildSub(B, rt_jit_max(L, valid_hi, row_lo), row_lo, ""),
                                       rt_jit_i64(L, mr), "");
    rt_jit_loop_t lt;
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), nfull, 0, NULL, &lt);
    LLVMValueRef i0 = add(L, row_lo, mul(L, lt.iv, mr));
    LLVMValueRef roff[RT_JIT_TPL_MAX_MR];
    for (int64_t r = 0; tab && r < mr; ++r) roff[r] = a_row_off(L, tab, add(L, i0, rt_jit_i64(L, r)));
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->k), 0, NULL, &lk);
    LLVMValueRef dst = add(L, mul(L, lt.iv, mr * z->kp), mul(L, lk.iv, mr));
    if (!tab) {
      LLVMValueRef src = add(L, mul(L, lk.iv, g->m), i0);
      LLVMValueRef v = LLVMBuildLoad2(B, rt_jit_tpl_vec(L, (int32_t)mr), rt_jit_tpl_gep(L, abase, src), "");
      LLVMSetAlignment(v, 4);
      rt_jit_tpl_storev(L, v, wsa, dst);
    } else if (g->a_row_step > 0 && (mr - 1) * g->a_row_step + 1 <= 2 * (int64_t)g->vw) {
      /* The tile's rows a_row_step apart: the run they span ((mr - 1) *
       * step + 1 floats) as one or two vectors, the last a masked load
       * (nothing past the run's end is read), their lanes picked by a
       * shuffle at a stride. */
      const int32_t vw = g->vw;
      const int64_t step = g->a_row_step, span = (mr - 1) * step + 1, nvec = (span + vw - 1) / vw;
      LLVMValueRef at = add(L, a_k_off(L, g, ktab, lk.iv), roff[0]);
      LLVMValueRef part[2] = {NULL, NULL};
      for (int64_t j = 0; j < nvec; ++j) {
        const int64_t lanes = j + 1 < nvec ? vw : span - j * vw;
        LLVMValueRef off = add(L, at, rt_jit_i64(L, j * vw));
        part[j] = lanes == vw ? rt_jit_tpl_loadv(L, abase, off, vw)
                              : rt_jit_tpl_masked_load(L, abase, off, rt_jit_tpl_lanes_mask(L, lanes, vw),
                                                       LLVMGetUndef(rt_jit_tpl_vec(L, vw)), vw);
      }
      LLVMValueRef pick[RT_JIT_TPL_MAX_MR];
      for (int64_t r = 0; r < mr; ++r) pick[r] = rt_jit_i32(L, (int32_t)(r * step));
      LLVMValueRef v = LLVMBuildShuffleVector(B, part[0], part[1] ? part[1] : LLVMGetUndef(LLVMTypeOf(part[0])),
                                              LLVMConstVector(pick, (unsigned)mr), "");
      LLVMValueRef st = LLVMBuildStore(B, v, rt_jit_tpl_gep(L, wsa, dst));
      LLVMSetAlignment(st, 4);
    } else {
      LLVMValueRef krow = a_k_off(L, g, ktab, lk.iv);
      for (int64_t r = 0; r < mr; ++r) {
        rt_jit_tpl_storef(L, rt_jit_tpl_loadf(L, abase, add(L, krow, roff[r])), wsa,
                          add(L, dst, rt_jit_i64(L, r)));
      }
    }
    rt_jit_loop_end(L, &lk, NULL);
    rt_jit_loop_end(L, &lt, NULL);
    first = add(L, row_lo, mul(L, nfull, mr));
  }
  if (abase && !g->a_m_inner && (g->vw == 8 || g->vw == 16) && mr <= g->vw && g->k >= g->vw) {
    first = pack_a_rows_transposed(L, g, z, abase, row_lo, valid_hi, wsa);
  }
  /* Row i of the task: tile (i / mr) * mr * kp + (i % mr); step k at k * mr. */
  if (!g->a_m_inner) {
    /* Row by row: contiguous reads. */
    rt_jit_loop_begin(L, first, rt_jit_max(L, valid_hi, first), 0, NULL, &lr);
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->k), 0, NULL, &lk);
  } else {
    /* A stored k-major (transpose_a, conv2d.im2colT): walk rows inside
     * each k. */
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->k), 0, NULL, &lk);
    rt_jit_loop_begin(L, first, rt_jit_max(L, valid_hi, first), 0, NULL, &lr);
  }
  LLVMValueRef rel = LLVMBuildSub(B, lr.iv, row_lo, "");
  LLVMValueRef t = LLVMBuildUDiv(B, rel, rt_jit_i64(L, mr), "");
  LLVMValueRef rr = LLVMBuildURem(B, rel, rt_jit_i64(L, mr), "");
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(a_value(L, g, b, abase, tab, ktab, lr.iv, lk.iv, &v));
  rt_jit_tpl_storef(L, v, wsa, add(L, add(L, mul(L, t, mr * z->kp), mul(L, lk.iv, mr)), rr));
  if (!g->a_m_inner) {
    rt_jit_loop_end(L, &lk, NULL);
    rt_jit_loop_end(L, &lr, NULL);
  } else {
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(B);
    rt_jit_loop_end(L, &lr, NULL);
    rt_jit_tpl_loop_hints(L, latch, true, false);
    rt_jit_loop_end(L, &lk, NULL);
  }
  /* Steps past K of every tile: the last K block reads them. */
  LLVMValueRef ntile = LLVMBuildUDiv(B, LLVMBuildSub(B, row_hi, row_lo, ""), rt_jit_i64(L, mr), "");
  if (z->kp > g->k) {
    rt_jit_loop_t lt;
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), ntile, 0, NULL, &lt);
    LLVMValueRef panel = mul(L, lt.iv, mr * z->kp);
    zero_range(L, wsa, add(L, panel, rt_jit_i64(L, g->k * mr)), add(L, panel, rt_jit_i64(L, z->kp * mr)));
    rt_jit_loop_end(L, &lt, NULL);
  }
  /* Rows past M (the last tile's padding). */
  rt_jit_loop_t lp, lz;
  rt_jit_loop_begin(L, rt_jit_max(L, valid_hi, row_lo), row_hi, 0, NULL, &lp);
  LLVMValueRef prel = LLVMBuildSub(B, lp.iv, row_lo, "");
  LLVMValueRef pbase = add(L, mul(L, LLVMBuildUDiv(B, prel, rt_jit_i64(L, mr), ""), mr * z->kp),
                           LLVMBuildURem(B, prel, rt_jit_i64(L, mr), ""));
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, z->kp), 0, NULL, &lz);
  rt_jit_tpl_storef(L, LLVMConstReal(L->f32, 0), wsa, add(L, pbase, mul(L, lz.iv, mr)));
  rt_jit_loop_end(L, &lz, NULL);
  rt_jit_loop_end(L, &lp, NULL);
  return RT_OK;
}

/* Where pack_b writes: B(k, n0 + c) at dst[(k - k0) * nw + c]. */
typedef struct bdst_t {
  LLVMValueRef dst, k0, n0;
  int64_t nw;
} bdst_t;

static LLVMValueRef bdst_index(rt_jit_lower_t *L, const bdst_t *d, LLVMValueRef k, LLVMValueRef c) {
  return add(L, mul(L, LLVMBuildSub(L->b, k, d->k0, ""), d->nw), c);
}

/* B(k, n0 + c) for k in [k_lo, k_hi), c in [c_lo, c_hi), one element at a
 * time through b_elem, walking k inside c (k_inner) or c inside k. */
static rt_status_t pack_b_elems(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, const bdst_t *d,
                                LLVMValueRef b, LLVMValueRef k_lo, LLVMValueRef k_hi,
                                LLVMValueRef c_lo, LLVMValueRef c_hi) {
  rt_jit_loop_t lo, li;
  LLVMValueRef v;
  rt_jit_loop_begin(L, g->k_inner ? c_lo : k_lo, g->k_inner ? c_hi : k_hi, 0, NULL, &lo);
  rt_jit_loop_begin(L, g->k_inner ? k_lo : c_lo, g->k_inner ? k_hi : c_hi, 0, NULL, &li);
  LLVMValueRef k = g->k_inner ? li.iv : lo.iv, c = g->k_inner ? lo.iv : li.iv;
  RT_RETURN_IF_ERROR(g->b_elem(L, g, b, k, add(L, d->n0, c), &v));
  rt_jit_tpl_storef(L, v, d->dst, bdst_index(L, d, k, c));
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
  rt_jit_loop_end(L, &li, NULL);
  /* Along k the stores are nw apart: keep the loop scalar. */
  if (g->k_inner) rt_jit_tpl_loop_hints(L, latch, true, false);
  rt_jit_loop_end(L, &lo, NULL);
  return RT_OK;
}

/* A weight stored (N, K) in memory: vw x vw blocks (vw columns n, vw
 * steps k) are loaded as vw vectors along k, transposed in registers and
 * stored as vw rows of the panel; the K tail and a partial last column
 * group go element by element. */
static rt_status_t pack_b_transposed(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, const bdst_t *d,
                                     LLVMValueRef b, LLVMValueRef k1, LLVMValueRef cols) {
  LLVMBuilderRef B = L->b;
  const int32_t vw = g->vw;
  LLVMTypeRef vt = rt_jit_tpl_vec(L, vw);
  LLVMValueRef base = g->b_base(L, g, b);
  LLVMValueRef ngroups = LLVMBuildSDiv(B, cols, rt_jit_i64(L, vw), "");
  LLVMValueRef colsv = mul(L, ngroups, vw);
  LLVMValueRef kgroups = LLVMBuildSDiv(B, LLVMBuildSub(B, k1, d->k0, ""), rt_jit_i64(L, vw), "");
  LLVMValueRef kv = add(L, d->k0, mul(L, kgroups, vw));
  rt_jit_loop_t lc, lk;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), ngroups, 0, NULL, &lc);
  LLVMValueRef c0 = mul(L, lc.iv, vw);
  LLVMValueRef src = rt_jit_tpl_gep(L, base, mul(L, add(L, d->n0, c0), g->k));
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), kgroups, 0, NULL, &lk);
  LLVMValueRef kk = add(L, d->k0, mul(L, lk.iv, vw));
  LLVMValueRef rows[16];
  for (int32_t j = 0; j < vw; ++j) {
    LLVMValueRef pj = rt_jit_tpl_gep(L, src, add(L, kk, rt_jit_i64(L, (int64_t)j * g->k)));
    rows[j] = LLVMBuildLoad2(B, vt, pj, "");
    LLVMSetAlignment(rows[j], 4);
  }
  rt_jit_tpl_transpose(L, vw, rows);
  for (int32_t r = 0; r < vw; ++r) {
    LLVMValueRef pr = rt_jit_tpl_gep(L, d->dst, bdst_index(L, d, add(L, kk, rt_jit_i64(L, r)), c0));
    LLVMSetAlignment(LLVMBuildStore(B, rows[r], pr), 4);
  }
  rt_jit_loop_end(L, &lk, NULL);
  rt_jit_loop_end(L, &lc, NULL);
  RT_RETURN_IF_ERROR(pack_b_elems(L, g, d, b, kv, k1, rt_jit_i64(L, 0), colsv));
  return pack_b_elems(L, g, d, b, d->k0, k1, colsv, cols);
}

/* Packs steps [k0, k0 + kc) of the panel of columns n0 .. n0 + nw of B(b)
 * into dst: step k at (k - k0) * nw; zeros past N and past K. */
static rt_status_t pack_b(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, const blocking_t *z,
                          LLVMValueRef b, LLVMValueRef n0, LLVMValueRef k0, LLVMValueRef dst) {
  LLVMBuilderRef B = L->b;
  const int64_t nw = z->nw;
  const bdst_t d = {.dst = dst, .k0 = k0, .n0 = n0, .nw = nw};
  LLVMValueRef cols = rt_jit_min(L, LLVMBuildSub(B, rt_jit_i64(L, g->n), n0, ""), rt_jit_i64(L, nw));
  LLVMValueRef k1 = imin(L, add(L, k0, rt_jit_i64(L, z->kc)), g->k);
  if (g->k_inner && g->b_base && (g->vw == 8 || g->vw == 16) && g->k >= g->vw) {
    RT_RETURN_IF_ERROR(pack_b_transposed(L, g, &d, b, k1, cols));
  } else if (g->k_inner) {
    /* B(k, n) contiguous along k: runs of 64 k so those rows of the panel
     * (64 x nw floats) stay in L1 while each column is filled. */
    rt_jit_loop_t lkb;
    const int64_t kb = 64;
    LLVMValueRef nkb = LLVMBuildSDiv(B, add(L, LLVMBuildSub(B, k1, k0, ""), rt_jit_i64(L, kb - 1)),
                                     rt_jit_i64(L, kb), "");
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), nkb, 0, NULL, &lkb);
    LLVMValueRef ka = add(L, k0, mul(L, lkb.iv, kb));
    LLVMValueRef kz = rt_jit_min(L, add(L, ka, rt_jit_i64(L, kb)), k1);
    RT_RETURN_IF_ERROR(pack_b_elems(L, g, &d, b, ka, kz, rt_jit_i64(L, 0), cols));
    LLVMBasicBlockRef outer = LLVMGetInsertBlock(B);
    rt_jit_loop_end(L, &lkb, NULL);
    rt_jit_tpl_loop_hints(L, outer, false, true);
  } else {
    RT_RETURN_IF_ERROR(pack_b_elems(L, g, &d, b, k0, k1, rt_jit_i64(L, 0), cols));
  }
  /* Columns past N, then steps past K (the last block's padding). */
  if (g->n % nw) {
    rt_jit_loop_t lk;
    rt_jit_loop_begin(L, k0, k1, 0, NULL, &lk);
    zero_range(L, dst, bdst_index(L, &d, lk.iv, cols), bdst_index(L, &d, lk.iv, rt_jit_i64(L, nw)));
    rt_jit_loop_end(L, &lk, NULL);
  }
  if (z->kp > g->k) {
    zero_range(L, dst, mul(L, LLVMBuildSub(B, k1, k0, ""), nw), rt_jit_i64(L, z->kc * nw));
  }
  return RT_OK;
}

/* The register tile: acc[mr][nv] = sum over `steps` (kc, or what is left
 * of K for panels read in place) steps of A(r, k) * B(k, :)
 * with A(r, k) at ap + k * mr + r and B row k at bp + k * nw (packed;
 * balign: 64-byte aligned in workspace, 4 for a prepacked weight read in
 * place, whose buffer may be a caller's); then stored to the contiguous
 * tile ct (mr x nw), added to what ct holds when `accumulate` (i1). ct's
 * lines are prefetched before the k loop, so the add at the end finds
 * them in L1. With pf (a B panel of the next block, read in place from a
 * prepacked weight that comes from memory), step k also prefetches line
 * min(k * ntile + tr, nlines - 1) of its nlines: the row tiles tr of
 * [0, ntile) that pass over the current block fetch the next one between
 * them, so its first tile does not wait on memory (resnet18's 512@7 3x3
 * layers, 9.4 MB of weight each). */
static void micro(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, const blocking_t *z,
                  LLVMValueRef ap, LLVMValueRef bp, LLVMValueRef ct, LLVMValueRef accumulate,
                  LLVMValueRef steps, unsigned balign, LLVMValueRef pf, LLVMValueRef tr, LLVMValueRef ntile,
                  LLVMValueRef nlines) {
  LLVMBuilderRef B = L->b;
  const int32_t mr = g->mr, nv = g->nv, vw = g->vw, nacc = mr * nv;
  const int64_t nw = z->nw;
  const unsigned valign = (unsigned)vw * 4;
  LLVMTypeRef vt = rt_jit_tpl_vec(L, vw);
  rt_jit_tpl_wide(L, vw);
  if (z->nkb > 1) {
    for (int32_t l = 0; l < mr * nw / 16; ++l) rt_jit_tpl_prefetch(L, rt_jit_tpl_gep(L, ct, rt_jit_i64(L, 16 * l)), true);
  }
  LLVMValueRef init[RT_JIT_MAX_CARRY], bv[RT_JIT_MAX_CARRY], next[RT_JIT_MAX_CARRY];
  for (int32_t i = 0; i < nacc; ++i) init[i] = LLVMConstNull(vt);
  /* The prefetch of the next panel's nlines lines is spread evenly over
   * the ntile x steps micro-kernel steps of all row tiles (row tile tr
   * takes its share in order, at most one line a step:
   * rt_jit_tpl_pf_spread). All of it in the first steps of each tile
   * made bursts that the weight's stream from memory (4 MB per 1x1 layer
   * at 7x7 in ResNet-50) could not sustain. */
  rt_jit_tpl_pf_spread_t sp = {0};
  if (pf) sp = rt_jit_tpl_pf_spread(L, pf, tr, ntile, steps, nlines);
  rt_jit_loop_t lp;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), steps, nacc, init, &lp);
  LLVMValueRef brow = rt_jit_tpl_gep(L, bp, mul(L, lp.iv, nw));
  if (pf) rt_jit_tpl_pf_spread_step(L, &sp, lp.iv);
  for (int32_t v = 0; v < nv; ++v) {
    LLVMValueRef ld = LLVMBuildLoad2(B, vt, rt_jit_tpl_gep(L, brow, rt_jit_i64(L, (int64_t)vw * v)), "");
    LLVMSetAlignment(ld, balign);
    bv[v] = ld;
  }
  for (int32_t r = 0; r < mr; ++r) {
    LLVMValueRef a = rt_jit_tpl_loadf(L, ap, add(L, mul(L, lp.iv, mr), rt_jit_i64(L, r)));
    LLVMValueRef s = rt_jit_tpl_splat(L, a, vw);
    for (int32_t v = 0; v < nv; ++v) {
      next[r * nv + v] = rt_jit_intrinsic(L, "llvm.fma", s, bv[v], lp.carry[r * nv + v]);
    }
  }
  rt_jit_loop_end(L, &lp, next);
  LLVMValueRef acc[RT_JIT_MAX_CARRY];
  for (int32_t i = 0; i < nacc; ++i) acc[i] = lp.carry[i];
  if (z->nkb > 1) {
    /* acc += ct when accumulating (a branch, so a first block never reads
     * the uninitialized tile). */
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
    LLVMBasicBlockRef addb = LLVMAppendBasicBlockInContext(L->c, L->fn, "tacc");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(L->c, L->fn, "tstore");
    LLVMBuildCondBr(B, accumulate, addb, join);
    LLVMPositionBuilderAtEnd(B, addb);
    LLVMValueRef sum[RT_JIT_MAX_CARRY];
    for (int32_t i = 0; i < nacc; ++i) {
      LLVMValueRef ld = LLVMBuildLoad2(B, vt, rt_jit_tpl_gep(L, ct, rt_jit_i64(L, (int64_t)vw * i)), "");
      LLVMSetAlignment(ld, valign);
      sum[i] = LLVMBuildFAdd(B, acc[i], ld, "");
    }
    LLVMBuildBr(B, join);
    LLVMPositionBuilderAtEnd(B, join);
    for (int32_t i = 0; i < nacc; ++i) {
      LLVMValueRef phi = LLVMBuildPhi(B, vt, "");
      LLVMValueRef vals[2] = {acc[i], sum[i]};
      LLVMBasicBlockRef bbs[2] = {pre, addb};
      LLVMAddIncoming(phi, vals, bbs, 2);
      acc[i] = phi;
    }
  }
  /* Tile layout: row r at r * nw, so vector i = r * nv + v at i * vw. */
  for (int32_t i = 0; i < nacc; ++i) {
    LLVMValueRef st = LLVMBuildStore(B, acc[i], rt_jit_tpl_gep(L, ct, rt_jit_i64(L, (int64_t)vw * i)));
    LLVMSetAlignment(st, valign);
  }
}

static rt_status_t tile_epilogue_elems(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, const blocking_t *z,
                                       LLVMValueRef b, LLVMValueRef i0, LLVMValueRef n0, LLVMValueRef ct,
                                       LLVMValueRef rows, LLVMValueRef cols);

/* Rows of a tile from which its by-column epilogue runs as rolled loops
 * (tile_epilogue_by_columns; its scratch `tr` exists only then). */
#define BY_COLUMNS_ROLLED_MIN_MR 4

/* The tile ct's vector column at c0: its mr row vectors (vw wide; rows
 * past mr undefined) transposed in registers (rt_jit_tpl_transpose), so
 * r[j] holds column c0 + j's mr rows in its first lanes. */
static void load_columns_transposed(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, const blocking_t *z,
                                    LLVMValueRef ct, LLVMValueRef c0, LLVMValueRef *r) {
  for (int32_t i = 0; i < g->vw; ++i) {
    r[i] = i < g->mr ? rt_jit_tpl_loadv(L, ct, add(L, c0, rt_jit_i64(L, (int64_t)i * z->nw)), g->vw)
                     : LLVMGetUndef(rt_jit_tpl_vec(L, g->vw));
  }
  rt_jit_tpl_transpose(L, g->vw, r);
}

/* A full tile (mr rows, nw columns) through the vector epilogue by
 * columns (g->vec_t_d*): per vector column, its vw columns transposed
 * (load_columns_transposed), then column j's first mr lanes (rows i0 ..
 * i0 + mr - 1) are output positions i0.. of dims [vec_t_d0, vec_t_d1),
 * one contiguous store. */
static rt_status_t tile_epilogue_by_columns(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g,
                                            const blocking_t *z, LLVMValueRef b, LLVMValueRef i0,
                                            LLVMValueRef n0, LLVMValueRef ct, LLVMValueRef tr) {
  const int32_t vw = g->vw, mr = g->mr;
  LLVMValueRef r[RT_JIT_TPL_MAX_VW];
  if (mr < BY_COLUMNS_ROLLED_MIN_MR) {
    /* Few rows: unrolled, LLVM's SLP vectorizer joins the columns' few
     * lanes (EfficientNet's squeeze-excitation 48 -> 1152 at 1x1, mr = 1:
     * rolled, 47 -> 63 us). */
    for (int32_t v = 0; v < g->nv; ++v) {
      load_columns_transposed(L, g, z, ct, rt_jit_i64(L, (int64_t)v * vw), r);
      for (int32_t j = 0; j < vw; ++j) {
        LLVMValueRef idx[RT_TENSOR_MAX_RANK];
        g->out_idx(L, g, b, i0, add(L, n0, rt_jit_i64(L, (int64_t)v * vw + j)), idx);
        RT_RETURN_IF_ERROR(rt_jit_tpl_vepi(L, g->anchor, g->out, g->data, g->vec_t_d0, g->vec_t_d1, idx,
                                           first_lanes(L, r[j], mr)));
      }
    }
    return RT_OK;
  }
  /* Else by a loop over the nv vector columns and one over pairs of
   * columns of the transposed block (back from `tr`, vw x vw floats),
   * both kept rolled: the nv * vw unrolled instances of the tail ops and
   * stores were a sixth of resnet18's optimization and codegen thread
   * time (16 lanes, 4 alternated cold compiles: 1700-2030 -> 1585-1896
   * ms); mobilenet_v2's and resnet50's im2colT kernels as fast
   * (--profile, 1 thread, within +-1%). */
  rt_jit_loop_t lv, lj;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->nv), 0, NULL, &lv);
  LLVMValueRef c0 = mul(L, lv.iv, vw);
  load_columns_transposed(L, g, z, ct, c0, r);
  for (int32_t j = 0; j < vw; ++j) rt_jit_tpl_storev(L, r[j], tr, rt_jit_i64(L, (int64_t)j * vw));
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, vw / 2), 0, NULL, &lj);
  for (int32_t u = 0; u < 2; ++u) {
    LLVMValueRef j = add(L, mul(L, lj.iv, 2), rt_jit_i64(L, u));
    LLVMValueRef idx[RT_TENSOR_MAX_RANK];
    g->out_idx(L, g, b, i0, add(L, n0, add(L, c0, j)), idx);
    LLVMValueRef val = rt_jit_tpl_loadv(L, tr, mul(L, j, vw), vw);
    RT_RETURN_IF_ERROR(rt_jit_tpl_vepi(L, g->anchor, g->out, g->data, g->vec_t_d0, g->vec_t_d1, idx,
                                       first_lanes(L, val, mr)));
  }
  rt_jit_tpl_loop_end_rolled(L, &lj);
  rt_jit_tpl_loop_end_rolled(L, &lv);
  return RT_OK;
}

/* The epilogue of one tile: rows i0.., columns n0.. of the output from the
 * tile ct (row r at r * nw), clipped to M x N. */
static rt_status_t tile_epilogue(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, const blocking_t *z,
                                 LLVMValueRef b, LLVMValueRef i0, LLVMValueRef n0, LLVMValueRef ct,
                                 LLVMValueRef tr) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef rows = rt_jit_min(L, LLVMBuildSub(B, rt_jit_i64(L, g->m), i0, ""), rt_jit_i64(L, g->mr));
  LLVMValueRef cols = rt_jit_min(L, LLVMBuildSub(B, rt_jit_i64(L, g->n), n0, ""), rt_jit_i64(L, z->nw));
  rt_jit_if_t full;
  const bool pow2 = g->vw > 0 && (g->vw & (g->vw - 1)) == 0 && g->vw <= RT_JIT_TPL_MAX_VW;
  if (g->vec_t_d1 > 0 && pow2 && g->mr <= g->vw &&
      rt_jit_tpl_vepi_ok(L, g->anchor, g->out, g->vec_t_d0, g->vec_t_d1)) {
    /* A full tile by columns (contiguous stores), else the element path. */
    LLVMValueRef whole = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntEQ, cols, rt_jit_i64(L, z->nw), ""),
                                      LLVMBuildICmp(B, LLVMIntEQ, rows, rt_jit_i64(L, g->mr), ""), "");
    rt_jit_if_begin(L, whole, &full);
    RT_RETURN_IF_ERROR(tile_epilogue_by_columns(L, g, z, b, i0, n0, ct, tr));
    rt_jit_if_else(L, &full, NULL);
    RT_RETURN_IF_ERROR(tile_epilogue_elems(L, g, z, b, i0, n0, ct, rows, cols));
    (void)rt_jit_if_end(L, &full, NULL);
    return RT_OK;
  }
  if (g->vec_d1 > 0 && rt_jit_tpl_vepi_ok(L, g->anchor, g->out, g->vec_d0, g->vec_d1)) {
    /* A full-width tile (issue 18, h3): each row's nv vectors through the
     * vector epilogue (the tail ops on vw columns at once; conv2d.im2colT
     * 512->2048 at 7x7 + bias + residual + relu spent a quarter of its
     * time in the element loop below). */
    rt_jit_if_begin(L, LLVMBuildICmp(B, LLVMIntEQ, cols, rt_jit_i64(L, z->nw), ""), &full);
    rt_jit_loop_t vr;
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rows, 0, NULL, &vr);
    LLVMValueRef src = rt_jit_tpl_gep(L, ct, mul(L, vr.iv, z->nw));
    for (int32_t v = 0; v < g->nv; ++v) {
      LLVMValueRef idx[RT_TENSOR_MAX_RANK];
      g->out_idx(L, g, b, add(L, i0, vr.iv), add(L, n0, rt_jit_i64(L, (int64_t)v * g->vw)), idx);
      LLVMValueRef val = rt_jit_tpl_loadv(L, src, rt_jit_i64(L, (int64_t)v * g->vw), g->vw);
      RT_RETURN_IF_ERROR(rt_jit_tpl_vepi(L, g->anchor, g->out, g->data, g->vec_d0, g->vec_d1, idx, val));
    }
    rt_jit_loop_end(L, &vr, NULL);
    rt_jit_if_else(L, &full, NULL);
    RT_RETURN_IF_ERROR(tile_epilogue_elems(L, g, z, b, i0, n0, ct, rows, cols));
    (void)rt_jit_if_end(L, &full, NULL);
    return RT_OK;
  }
  const bool vcopy = g->out_row && g->out == g->anchor;
  if (vcopy) {
    /* A plain product of a full-width tile: each row's nv vectors copied
     * as vectors (the element loop below stays scalar). */
    rt_jit_if_begin(L, LLVMBuildICmp(B, LLVMIntEQ, cols, rt_jit_i64(L, z->nw), ""), &full);
    LLVMTypeRef vt = rt_jit_tpl_vec(L, g->vw);
    rt_jit_loop_t vr;
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rows, 0, NULL, &vr);
    LLVMValueRef dst = rt_jit_tpl_gep(L, g->data, add(L, g->out_row(L, g, b, add(L, i0, vr.iv)), n0));
    LLVMValueRef src = rt_jit_tpl_gep(L, ct, mul(L, vr.iv, z->nw));
    for (int32_t v = 0; v < g->nv; ++v) {
      LLVMValueRef off = rt_jit_i64(L, (int64_t)v * g->vw);
      LLVMValueRef ld = LLVMBuildLoad2(B, vt, rt_jit_tpl_gep(L, src, off), "");
      LLVMSetAlignment(ld, 4);
      LLVMSetAlignment(LLVMBuildStore(B, ld, rt_jit_tpl_gep(L, dst, off)), 4);
    }
    rt_jit_loop_end(L, &vr, NULL);
    rt_jit_if_else(L, &full, NULL);
  }
  RT_RETURN_IF_ERROR(tile_epilogue_elems(L, g, z, b, i0, n0, ct, rows, cols));
  if (vcopy) (void)rt_jit_if_end(L, &full, NULL);
  return RT_OK;
}

/* The element epilogue of rows x cols of a tile. */
static rt_status_t tile_epilogue_elems(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, const blocking_t *z,
                                       LLVMValueRef b, LLVMValueRef i0, LLVMValueRef n0, LLVMValueRef ct,
                                       LLVMValueRef rows, LLVMValueRef cols) {
  rt_jit_loop_t er, ec;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rows, 0, NULL, &er);
  LLVMValueRef crow = rt_jit_tpl_gep(L, ct, mul(L, er.iv, z->nw));
  LLVMValueRef i = add(L, i0, er.iv);
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), cols, 0, NULL, &ec);
  LLVMValueRef val = rt_jit_tpl_loadf(L, crow, ec.iv);
  LLVMValueRef idx[RT_TENSOR_MAX_RANK];
  g->out_idx(L, g, b, i, add(L, n0, ec.iv), idx);
  RT_RETURN_IF_ERROR(rt_jit_tpl_epilogue(L, g->anchor, g->out, g->data, idx, val));
  rt_jit_loop_end(L, &ec, NULL);
  rt_jit_loop_end(L, &er, NULL);
  return RT_OK;
}

rt_status_t rt_jit_tpl_gemm_core(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef task,
                                 LLVMValueRef ntasks) {
  LLVMBuilderRef B = L->b;
  /* Without this, O3's loop idioms turn each tile row of the epilogue's
   * copy into a memcpy call (12 calls of 128 bytes per tile, each with a
   * vzeroupper) and the zero fills into memset; as loops they vectorize. */
  static const char kNoBuiltins[] = "no-builtins";
  LLVMAddAttributeAtIndex(L->fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(L->c, kNoBuiltins, sizeof kNoBuiltins - 1, "", 0));
  const blocking_t z = blocking(g);
  const int32_t mr = g->mr;
  const int64_t nw = z.nw, tile = (int64_t)mr * nw;
  /* Split: batches when there are several, else N panels (each task packs
   * only its own), else row tiles; row tiles first where the caller asks
   * (split_rows) and there are 4 or more. Split by panels every task packs
   * all of A; by rows each packs its rows and reads all of B. For the
   * swapped convolution of 196+ output pixels (conv2d.im2colT, whose A is
   * the input gathered by pixel, through a tap table for k x k kernels)
   * rows cost less, also because its neighbours (the direct 1x1 template
   * on large images, Winograd) split by pixels, so each core reads what
   * it wrote: ResNet-50 at 2 threads on an AVX-512 Xeon (--profile
   * minima, 3 alternated rounds, a switch in one binary): its 256 -> 256
   * stride-2 3x3 onto 14x14 1075 -> 829 us, 1024 -> 256 at 14x14 (x5)
   * 1995 -> 1754, the stride-2 256 -> 512 1x1 downsample onto 28x28 955
   * -> 738; at 7x7 (49 pixels, 7 row tiles) rows lost (512 -> 2048 (x3)
   * 1184 -> 1474 us, 2048 -> 512 (x2) 823 -> 931): there every core
   * streamed all of a 2-4 MB weight and the tiles split 3 / 4. */
  LLVMValueRef b_lo = rt_jit_i64(L, 0), b_hi = rt_jit_i64(L, g->nb);
  LLVMValueRef p_lo = rt_jit_i64(L, 0), p_hi = rt_jit_i64(L, z.np);
  LLVMValueRef t_lo = rt_jit_i64(L, 0), t_hi = rt_jit_i64(L, z.mt);
  /* Split by panels, the tasks share out (panel, row tile) units in
   * panel-major order: where the panels do not divide evenly, one panel's
   * row tiles go partly to each of two tasks (both read that panel), the
   * rest whole panels as before. MobileNet-v2's 960 -> 160 and 576 ->
   * 160 at 7x7 (5 panels of 32, 7 row tiles), 2 threads: whole panels
   * split 3 / 2 (--profile balance 0.87, now 0.96); their three kernels'
   * means 245-249 -> 220-230 us (two alternated rounds), mobilenet_v2
   * within noise (3.352 / 3.357 ms, 4 rounds). */
  LLVMValueRef u_lo = NULL, u_hi = NULL;
  if (g->nb >= 4) {
    rt_jit_tpl_split(L, g->nb, task, ntasks, &b_lo, &b_hi);
  } else if (g->split_rows && z.mt >= 4) {
    rt_jit_tpl_split(L, z.mt, task, ntasks, &t_lo, &t_hi);
  } else if (z.np >= 4 || z.np >= z.mt) {
    rt_jit_tpl_split(L, z.np * z.mt, task, ntasks, &u_lo, &u_hi);
    p_lo = LLVMBuildSDiv(B, u_lo, rt_jit_i64(L, z.mt), "");
    p_hi = LLVMBuildSDiv(B, add(L, u_hi, rt_jit_i64(L, z.mt - 1)), rt_jit_i64(L, z.mt), "");
  } else {
    rt_jit_tpl_split(L, z.mt, task, ntasks, &t_lo, &t_hi);
  }
  LLVMValueRef ntile = LLVMBuildSub(B, t_hi, t_lo, ""), npan = LLVMBuildSub(B, p_hi, p_lo, "");
  LLVMValueRef row_lo = mul(L, t_lo, mr), row_hi = mul(L, t_hi, mr);
  /* Workspace of this task: its packed A rows, one packed B block (at
   * most ncp panels of one K block), and the C tiles (all of them while K
   * blocks accumulate, else one). */
  LLVMValueRef wsa = rt_jit_tpl_ws_alloc_v(L, mul(L, ntile, (int64_t)mr * z.kp * 4));
  /* (none when B's panels are read in place) */
  LLVMValueRef wsb = g->b_panels ? NULL : rt_jit_tpl_ws_alloc_v(L, mul(L, imin(L, npan, z.ncp), z.kc * nw * 4));
  LLVMValueRef wsc = z.nkb > 1 ? rt_jit_tpl_ws_alloc_v(L, mul(L, LLVMBuildMul(B, ntile, npan, ""), tile * 4))
                               : rt_jit_tpl_ws_alloc(L, tile * 4);
  /* (the by-column epilogue's transposed block, where it runs rolled) */
  LLVMValueRef wst = g->vec_t_d1 > 0 && g->mr >= BY_COLUMNS_ROLLED_MIN_MR
                         ? rt_jit_tpl_ws_alloc(L, (int64_t)g->vw * g->vw * 4)
                         : NULL;
  LLVMValueRef ok = LLVMBuildIsNotNull(B, wsc, "");
  if (wst) ok = LLVMBuildAnd(B, ok, LLVMBuildIsNotNull(B, wst, ""), "");
  if (wsb) ok = LLVMBuildAnd(B, ok, LLVMBuildIsNotNull(B, wsb, ""), "");
  ok = LLVMBuildAnd(B, ok, LLVMBuildIsNotNull(B, wsa, ""), "");
  /* A task with no work (more tasks than panels or tiles) skips it all. */
  LLVMValueRef work = LLVMBuildICmp(B, LLVMIntSGT, LLVMBuildMul(B, ntile, npan, ""), rt_jit_i64(L, 0), "");
  if (u_lo) work = LLVMBuildICmp(B, LLVMIntSGT, u_hi, u_lo, "");
  ok = LLVMBuildAnd(B, ok, work, "");
  rt_jit_if_t have;
  rt_jit_if_begin(L, ok, &have);
  rt_jit_loop_t lb;
  rt_jit_loop_begin(L, b_lo, b_hi, 0, NULL, &lb);
  RT_RETURN_IF_ERROR(pack_a(L, g, &z, lb.iv, row_lo, row_hi, wsa));
  LLVMValueRef bpan = g->b_panels ? g->b_panels(L, g, lb.iv) : NULL;
  /* for K block, for block of ncp panels (packed here, then in L2 while
   * every row tile passes over it), for row tile, for panel. */
  rt_jit_loop_t lk, lj, lt, lp;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, z.nkb), 0, NULL, &lk);
  LLVMValueRef k0 = mul(L, lk.iv, z.kc);
  LLVMValueRef nblk = LLVMBuildSDiv(B, add(L, npan, rt_jit_i64(L, z.ncp - 1)), rt_jit_i64(L, z.ncp), "");
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), nblk, 0, NULL, &lj);
  LLVMValueRef pj = add(L, p_lo, mul(L, lj.iv, z.ncp));
  LLVMValueRef pe = rt_jit_min(L, add(L, pj, rt_jit_i64(L, z.ncp)), p_hi);
  if (!bpan) {
    rt_jit_loop_begin(L, pj, pe, 0, NULL, &lp);
    LLVMValueRef dst = rt_jit_tpl_gep(L, wsb, mul(L, LLVMBuildSub(B, lp.iv, pj, ""), z.kc * nw));
    RT_RETURN_IF_ERROR(pack_b(L, g, &z, lb.iv, mul(L, lp.iv, nw), k0, dst));
    rt_jit_loop_end(L, &lp, NULL);
  }
  rt_jit_loop_begin(L, t_lo, t_hi, 0, NULL, &lt);
  LLVMValueRef tr = LLVMBuildSub(B, lt.iv, t_lo, "");
  LLVMValueRef ap = rt_jit_tpl_gep(L, wsa, add(L, mul(L, tr, (int64_t)mr * z.kp), mul(L, k0, mr)));
  rt_jit_loop_begin(L, pj, pe, 0, NULL, &lp);
  LLVMValueRef pr = LLVMBuildSub(B, lp.iv, p_lo, "");
  /* B's K block of panel lp: packed here, or in place in the packed weight
   * (the last block cut at K: nothing is stored past it). */
  LLVMValueRef bp = bpan ? rt_jit_tpl_gep(L, bpan, add(L, mul(L, lp.iv, g->k * nw), mul(L, k0, nw)))
                         : rt_jit_tpl_gep(L, wsb, mul(L, LLVMBuildSub(B, lp.iv, pj, ""), z.kc * nw));
  LLVMValueRef steps = bpan ? imin(L, LLVMBuildSub(B, rt_jit_i64(L, g->k), k0, ""), z.kc) : rt_jit_i64(L, z.kc);
  LLVMValueRef ct = z.nkb > 1 ? rt_jit_tpl_gep(L, wsc, mul(L, add(L, LLVMBuildMul(B, tr, npan, ""), pr), tile)) : wsc;
  /* In place: the same K block of the panel one block on, where there is
   * one (else the prefetches go to this panel, already in cache). */
  LLVMValueRef pf = NULL, nlines = NULL;
  if (bpan) {
    LLVMValueRef pn = add(L, lp.iv, LLVMBuildSub(B, pe, pj, ""));
    LLVMValueRef has = LLVMBuildICmp(B, LLVMIntSLT, pn, p_hi, "");
    /* Past the task's last panel: the same panel of the first block in
     * the next K block, where there is one (else this panel again). */
    LLVMValueRef pw = LLVMBuildSub(B, pn, LLVMBuildSub(B, p_hi, p_lo, ""), "");
    LLVMValueRef k1 = add(L, k0, rt_jit_i64(L, z.kc));
    LLVMValueRef knext = LLVMBuildICmp(B, LLVMIntSLT, k1, rt_jit_i64(L, g->k), "");
    LLVMValueRef wrap = LLVMBuildSelect(B, knext, rt_jit_tpl_gep(L, bpan, add(L, mul(L, pw, g->k * nw), mul(L, k1, nw))), bp, "");
    pf = LLVMBuildSelect(B, has, rt_jit_tpl_gep(L, bpan, add(L, mul(L, pn, g->k * nw), mul(L, k0, nw))), wrap, "");
    nlines = LLVMBuildUDiv(B, add(L, mul(L, steps, nw), rt_jit_i64(L, 15)), rt_jit_i64(L, 16), "");
  }
  rt_jit_if_t mine;
  if (u_lo) {
    LLVMValueRef u = add(L, mul(L, lp.iv, z.mt), lt.iv);
    rt_jit_if_begin(L, LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, u, u_lo, ""), LLVMBuildICmp(B, LLVMIntSLT, u, u_hi, ""), ""),
                    &mine);
  }
  micro(L, g, &z, ap, bp, ct, LLVMBuildICmp(B, LLVMIntSGT, lk.iv, rt_jit_i64(L, 0), ""), steps,
        bpan ? 4u : (unsigned)g->vw * 4, pf, tr, LLVMBuildSub(B, t_hi, t_lo, ""), nlines);
  rt_jit_if_t last;
  if (z.nkb > 1) rt_jit_if_begin(L, LLVMBuildICmp(B, LLVMIntEQ, lk.iv, rt_jit_i64(L, z.nkb - 1), ""), &last);
  RT_RETURN_IF_ERROR(tile_epilogue(L, g, &z, lb.iv, mul(L, lt.iv, mr), mul(L, lp.iv, nw), ct, wst));
  if (z.nkb > 1) {
    rt_jit_if_else(L, &last, NULL);
    (void)rt_jit_if_end(L, &last, NULL);
  }
  if (u_lo) {
    rt_jit_if_else(L, &mine, NULL);
    (void)rt_jit_if_end(L, &mine, NULL);
  }
  rt_jit_loop_end(L, &lp, NULL);
  rt_jit_loop_end(L, &lt, NULL);
  rt_jit_loop_end(L, &lj, NULL);
  rt_jit_loop_end(L, &lk, NULL);
  rt_jit_loop_end(L, &lb, NULL);
  rt_jit_if_else(L, &have, NULL);
  /* Out of memory, unless the task simply had nothing to do. */
  rt_jit_flag_error(L, work, "out of workspace memory (gemm template)");
  (void)rt_jit_if_end(L, &have, NULL);
  if (wst) rt_jit_tpl_ws_free(L, wst);
  rt_jit_tpl_ws_free(L, wsa);
  rt_jit_tpl_ws_free(L, wsc);
  if (wsb) rt_jit_tpl_ws_free(L, wsb);
  return RT_OK;
}

/* ---- dense, matmul, batch_matmul ------------------------------------------------ */

typedef struct mm_t {
  int32_t id;
  bool ta, tb;
  int64_t pack;       /* nn.contrib_dense_pack: the weight's panel width P */
  const rt_ir_expr_t *a, *b;
  int64_t ba, bb;     /* batch dims of a and b (batch_matmul) */
  /* dense/matmul of a rank >= 3 data: row i of the flat GEMM is the
   * multi-index rows[0 .. nrows) of the output's leading dims. */
  int32_t nrows;
  int64_t rows[RT_TENSOR_MAX_RANK];
} mm_t;

/* Unravels flat row i into idx[0 .. mm->nrows) (row-major). */
static void unravel_row(rt_jit_lower_t *L, const mm_t *mm, LLVMValueRef i, LLVMValueRef *idx) {
  for (int32_t d = mm->nrows - 1; d >= 0; --d) {
    LLVMValueRef e = rt_jit_i64(L, mm->rows[d]);
    idx[d] = d ? LLVMBuildURem(L->b, i, e, "") : i;
    if (d) i = LLVMBuildUDiv(L->b, i, e, "");
  }
}

/* Batch index of an operand whose batch dim is `nb` (1 broadcasts). */
static LLVMValueRef bidx(rt_jit_lower_t *L, int64_t nb, LLVMValueRef b) {
  return nb == 1 ? rt_jit_i64(L, 0) : b;
}

static LLVMValueRef mm_a_base(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b) {
  const mm_t *mm = g->user;
  LLVMValueRef base = rt_jit_node(L, mm->a)->data;
  if (mm->id != RT_OP_NN_BATCH_MATMUL) return base;
  return rt_jit_tpl_gep(L, base, LLVMBuildMul(L->b, bidx(L, mm->ba, b), rt_jit_i64(L, g->m * g->k), ""));
}

/* b stored (N, K) (dense's weight, matmul with transpose_b). */
static LLVMValueRef mm_b_base(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b) {
  const mm_t *mm = g->user;
  LLVMValueRef base = rt_jit_node(L, mm->b)->data;
  if (mm->id != RT_OP_NN_BATCH_MATMUL) return base;
  return rt_jit_tpl_gep(L, base, LLVMBuildMul(L->b, bidx(L, mm->bb, b), rt_jit_i64(L, g->n * g->k), ""));
}

/* nn.contrib_dense_pack's weight, read in place: panels of P = vw*nv
 * columns (the planner matched the tile to P). */
static LLVMValueRef mm_b_panels(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b) {
  (void)b;
  const mm_t *mm = g->user;
  return rt_jit_node(L, mm->b)->data;
}

static rt_status_t mm_a_elem(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                             LLVMValueRef i, LLVMValueRef k, LLVMValueRef *out) {
  const mm_t *mm = g->user;
  LLVMValueRef idx[RT_TENSOR_MAX_RANK];
  int32_t o = 0;
  if (mm->nrows > 1) {
    unravel_row(L, mm, i, idx);
    idx[mm->nrows] = k;
    return rt_jit_elem(L, mm->a, idx, out);
  }
  if (mm->id == RT_OP_NN_BATCH_MATMUL) idx[o++] = bidx(L, mm->ba, b);
  idx[o] = mm->ta ? k : i;
  idx[o + 1] = mm->ta ? i : k;
  return rt_jit_elem(L, mm->a, idx, out);
}

static rt_status_t mm_b_elem(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                             LLVMValueRef k, LLVMValueRef n, LLVMValueRef *out) {
  const mm_t *mm = g->user;
  LLVMValueRef idx[3];
  int32_t o = 0;
  if (mm->pack) {
    /* W(n, k) at w[n / P, k, n % P] */
    LLVMValueRef pw = rt_jit_i64(L, mm->pack);
    idx[0] = LLVMBuildUDiv(L->b, n, pw, "");
    idx[1] = k;
    idx[2] = LLVMBuildURem(L->b, n, pw, "");
    return rt_jit_elem(L, mm->b, idx, out);
  }
  if (mm->id == RT_OP_NN_BATCH_MATMUL) idx[o++] = bidx(L, mm->bb, b);
  idx[o] = mm->tb ? n : k;
  idx[o + 1] = mm->tb ? k : n;
  return rt_jit_elem(L, mm->b, idx, out);
}

static void mm_out_idx(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                       LLVMValueRef i, LLVMValueRef j, LLVMValueRef *idx) {
  const mm_t *mm = g->user;
  if (mm->nrows > 1) {
    unravel_row(L, mm, i, idx);
    idx[mm->nrows] = j;
    return;
  }
  int32_t o = 0;
  if (mm->id == RT_OP_NN_BATCH_MATMUL) idx[o++] = b;
  idx[o] = i;
  idx[o + 1] = j;
}

/* Output row i (of batch b) starts at (b * M + i) * N: every output is
 * stored row-major with N last (the flattened rows of dense/matmul are its
 * leading dims in order). */
static LLVMValueRef mm_out_row(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                               LLVMValueRef i) {
  const mm_t *mm = g->user;
  LLVMValueRef row = i;
  if (mm->id == RT_OP_NN_BATCH_MATMUL) row = add(L, mul(L, b, g->m), i);
  return mul(L, row, g->n);
}

rt_status_t rt_jit_tpl_gemm(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_ir_expr_t *out,
                            LLVMValueRef data, LLVMValueRef task, LLVMValueRef ntasks) {
  const rt_ir_expr_t *call = p->anchor;
  mm_t mm = {.id = call->call.callee->op.op->id, .a = call->call.args[0], .b = call->call.args[1]};
  rt_plan_input_t in[2];
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 2, in));
  rt_plan_matmul_t plan;
  RT_RETURN_IF_ERROR(rt_ir_plan_matmul(call->call.callee->op.op, call->call.attrs, 2, in, &plan));
  mm.ta = plan.transpose_a; /* dense: false, true (weight (N, K)) */
  mm.tb = plan.transpose_b;
  mm.pack = plan.pack;
  rt_jit_gemm_core_t g = {
      .anchor = call, .out = out, .data = data, .mr = p->mr, .nv = p->nv, .vw = p->vw, .user = &mm,
      .a_elem = mm_a_elem, .b_elem = mm_b_elem, .out_idx = mm_out_idx, .out_row = mm_out_row,
  };
  g.m = plan.m;
  g.n = plan.n;
  g.k = plan.k;
  g.nb = 1;
  if (mm.id == RT_OP_NN_BATCH_MATMUL) {
    g.nb = plan.batch;
    mm.ba = plan.batch_a;
    mm.bb = plan.batch_b;
  } else if (plan.rank > 2) {
    /* The leading dims of a (stored row-major, no transpose_a: the
     * planner checked) flatten into M: one GEMM over every row. */
    if (mm.ta) return RT_STATUS(INTERNAL, "%s", "a flattened GEMM with transpose_a");
    mm.nrows = plan.rank - 1;
    for (int32_t d = 0; d < mm.nrows; ++d) mm.rows[d] = plan.out_shape[d];
    g.m = plan.batch * plan.m;
  }
  /* B(k, n) is contiguous along k when b is stored (N, K), along n (in a
   * panel) when it is packed. */
  g.k_inner = mm.tb && !mm.pack;
  if (rt_jit_tpl_raw(L, mm.a)) g.a_base = mm_a_base; /* (M, K), or (K, M) with ta */
  if (g.k_inner && rt_jit_tpl_raw(L, mm.b)) g.b_base = mm_b_base;
  if (mm.pack == (int64_t)g.vw * g.nv && rt_jit_tpl_raw(L, mm.b)) g.b_panels = mm_b_panels;
  g.a_m_inner = mm.ta; /* A(i, k) = a[k][i]: contiguous along i */
  if (g.m < 1 || g.n < 1 || g.k < 1) return RT_STATUS(UNIMPLEMENTED, "%s", "empty GEMM");
  return rt_jit_tpl_gemm_core(L, &g, task, ntasks);
}
