/* Template selection and the pieces every template shares (see
 * templates.h for the model).
 *
 * Selection (rt_jit_tpl_plan): from the kernel output, follow elementwise
 * and broadcast ops whose result has the output's shape down to an anchor
 * op (one that a template of the registry, kTemplates, takes); the anchor, its operands and the output must be float32 with static
 * shapes (a `?` dim keeps the generic loop nest, which reads dims at run
 * time). The vector width vw is the session target's (jit/target.h: 16
 * lanes for AVX-512, else 8) and picks the tile table. The tile shape is chosen
 * by a small cost model: the padded work ceil(M/mr)*ceil(N/(vw*nv)) tiles
 * times the cycles one k step of an mr x vw*nv tile needs on a 2-FMA /
 * 2-load per cycle core, max(mr*nv, mr+nv) / 2.
 *
 * The micro-kernel (rt_jit_tpl_micro) is the only place that emits the
 * vector inner loop: mr*nv <vw x float> accumulators carried by phis
 * through the k loop, per k one vector load per vw columns of B, one
 * broadcast per row of A and mr*nv llvm.fma.v8f32 / .v16f32 calls, then the
 * tile stored once (rt_jit_tpl_micro_acc: for a later K block, the
 * accumulators start from the stored tile). AVX2: 12 accumulators + the B vectors + a broadcast fit
 * the 16 ymm registers; AVX-512: 24 accumulators (6x4, 8x3, 12x2, 4x6
 * vectors) + B + a broadcast fit the 32 zmm registers. */
#include "jit/templates/templates.h"

#include <stdio.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"

/* ---- selection ------------------------------------------------------------- */

static const rt_ir_op_t *op_of(const rt_ir_expr_t *e) {
  if (e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP) return NULL;
  return e->call.callee->op.op;
}

/* rt_jit_tensor_type as a predicate (the status, if any, is dropped). */
static bool ttype(const rt_ir_expr_t *e, rt_dtype_t *dt, int32_t *rank, const int64_t **shape) {
  rt_status_t st = rt_jit_tensor_type(e, dt, rank, shape);
  if (st) rt_status_free(st);
  return st == RT_OK;
}

/* Static float32 tensor type of e: its rank and shape. */
static bool static_f32(const rt_ir_expr_t *e, int32_t *rank, const int64_t **shape) {
  rt_dtype_t dt;
  int32_t r;
  const int64_t *s;
  if (!ttype(e, &dt, &r, &s)) return false;
  if (dt.code != kDLFloat || dt.bits != 32 || dt.lanes != 1) return false;
  for (int32_t k = 0; k < r; ++k) {
    if (s[k] == RT_DIM_ANY || s[k] < 1) return false; /* `?` or empty */
  }
  if (rank) *rank = r;
  if (shape) *shape = s;
  return true;
}

/* An op some template takes (the registry, below). */
static bool is_anchor(int32_t id);

static const rt_ir_expr_t *find_anchor(const rt_ir_expr_t *e, int32_t rank, const int64_t *shape,
                                       int32_t depth) {
  const rt_ir_op_t *op = op_of(e);
  if (!op || depth > 12) return NULL;
  rt_dtype_t dt;
  int32_t r;
  const int64_t *s;
  if (!ttype(e, &dt, &r, &s) || r != rank) return NULL;
  if (rank && memcmp(s, shape, (size_t)rank * sizeof *s) != 0) return NULL;
  if (is_anchor(op->id)) return e;
  if (op->pattern != RT_OP_PATTERN_ELEMWISE && op->pattern != RT_OP_PATTERN_BROADCAST) return NULL;
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    const rt_ir_expr_t *a = find_anchor(e->call.args[i], rank, shape, depth + 1);
    if (a) return a;
  }
  return NULL;
}

typedef struct tile_t {
  int32_t mr, nv;
  const char *gemm, *direct, *im2col, *im2colt;
} tile_t;

/* The tile tables of one template width: the one place a planner learns
 * what the target's vector registers hold. */
typedef struct tile_family_t {
  int32_t vw;
  const tile_t *direct;  /* direct convolution (pick_tile) */
  size_t num_direct;
  const tile_t *gemm;    /* packed GEMM core (pick_gemm_tile) */
  size_t num_gemm;
  const char *depthwise; /* the depthwise template's name ("1x": mr 1, up to 4 vectors of
                          * a row per chunk; conv2d.c takes 2 or 4 rows and up to 4
                          * channels per chunk) */
} tile_family_t;

/* Tiles of 8-lane (ymm) vectors: mr*nv <= 12 accumulators. */
static const tile_t kTiles8[] = {
    {6, 2, "gemm.6x16", "conv2d.direct.6x16", "conv2d.im2col.6x16", NULL},
    {4, 3, "gemm.4x24", "conv2d.direct.4x24", "conv2d.im2col.4x24", NULL},
    {2, 6, "gemm.2x48", "conv2d.direct.2x48", "conv2d.im2col.2x48", NULL},
    {3, 4, "gemm.3x32", "conv2d.direct.3x32", "conv2d.im2col.3x32", NULL},
    {1, 4, "gemm.1x32", "conv2d.direct.1x32", "conv2d.im2col.1x32", NULL},
};

/* Tiles of 16-lane (zmm) vectors: mr*nv <= 24 accumulators, plus nv B
 * vectors and a broadcast, within the 32 zmm registers. */
static const tile_t kTiles16[] = {
    {6, 4, "gemm.6x64", "conv2d.direct.6x64", "conv2d.im2col.6x64", NULL},
    {8, 3, "gemm.8x48", "conv2d.direct.8x48", "conv2d.im2col.8x48", NULL},
    {12, 2, "gemm.12x32", "conv2d.direct.12x32", "conv2d.im2col.12x32", NULL},
    {4, 6, "gemm.4x96", "conv2d.direct.4x96", "conv2d.im2col.4x96", NULL},
    {2, 8, "gemm.2x128", "conv2d.direct.2x128", "conv2d.im2col.2x128", NULL},
    {1, 4, "gemm.1x64", "conv2d.direct.1x64", "conv2d.im2col.1x64", NULL},
};

/* The direct convolution reads B in place (k rows of vw*nv floats at the
 * tap offsets), unpacked: once a tile's K x vw*nv panel outgrows L1 (32
 * KiB) each k step pulls its nv*vw*4 bytes from L2, at ~16 bytes per
 * cycle for these scattered rows. Without that term 3x32 tied 6x16 on
 * the 7x7 layers and ran at 0.32 of the peak against 0.73 (ResNet's
 * 512@7x7 3x3 conv; the 1x1 ones at 7x7 0.32 against 0.51-0.54:
 * build-rel/bench/bench_kernels 3 conv512 / _7, each tile forced). */
static const tile_t *pick_tile(int64_t m, int64_t n, int64_t k, const tile_family_t *f) {
  const tile_t *tab = f->direct;
  const size_t count = f->num_direct;
  const int32_t vw = f->vw;
  const tile_t *best = &tab[0];
  double best_cost = 0;
  for (size_t i = 0; i < count; ++i) {
    const tile_t *t = &tab[i];
    const int64_t nw = (int64_t)vw * t->nv;
    double tiles = (double)((m + t->mr - 1) / t->mr) * (double)((n + nw - 1) / nw);
    double step = (double)(t->mr * t->nv > t->mr + t->nv ? t->mr * t->nv : t->mr + t->nv) / 2;
    if ((double)k * (double)nw * 4 > 32768) {
      const double l2 = (double)(nw * 4) / 16;
      if (l2 > step) step = l2;
    }
    double cost = tiles * step;
    if (i == 0 || cost < best_cost - 1e-9) {
      best = t;
      best_cost = cost;
    }
  }
  return best;
}

/* Tiles of the packed GEMM core (dense.c: dense, matmul, batch_matmul,
 * im2col convolution). Its A tile streams k-major from L1/L2 and its B
 * panels (kc x vw*nv) stream from L2, so besides the FMA and load counts
 * a tile pays for the B bytes it pulls per step (gemm_cost). Ordered by
 * preference where costs tie: 12x2 first (the BLIS Skylake-X shape, half
 * the L2 traffic of 6x4), 1-row tiles before wider ones for vectors.
 * 8 lanes, 5x16: the 49 pixel rows of a 7x7 image fill 10 tiles of 5
 * where 6x16 leaves 5 of its 54 rows empty; the cost model picks it there
 * (conv2d.im2colT / _pack at 7x7, `build-rel/bench/bench_kernels 5 pw`,
 * one core: packed 320->1280, 960->320, 2048->512, 512->2048 at 0.80-0.82
 * of the peak with 6x16, 0.85-0.89 with 5x16; unpacked 0.73-0.74 and
 * 0.74-0.79; 14x14 layers keep 6x16). 16 lanes, 7x32 likewise: 7 tiles
 * of 7 rows where 12x32 leaves 11 of its 60 empty (Zen 5, one core:
 * unpacked 320->1280, 960->320, 2048->512, 512->2048 @7 0.65-0.70 of
 * the peak with 6x64 / 8x48, 0.78-0.80 with 7x32; in the models, packed
 * in 32-wide panels, --profile 1 thread: resnet50's 7x7 1x1 kernels
 * 3.8-4.0 -> 3.3-3.4 ms, mobilenet_v2's 1147 -> 966-998 us,
 * efficientnet_b0's 1840-1900 -> 1672-1698 us). */
static const tile_t kGemm16[] = {
    {12, 2, "gemm.12x32", NULL, "conv2d.im2col.12x32", "conv2d.im2colT.12x32"},
    {6, 4, "gemm.6x64", NULL, "conv2d.im2col.6x64", "conv2d.im2colT.6x64"},
    {8, 3, "gemm.8x48", NULL, "conv2d.im2col.8x48", "conv2d.im2colT.8x48"},
    {1, 4, "gemm.1x64", NULL, "conv2d.im2col.1x64", "conv2d.im2colT.1x64"},
    {2, 4, "gemm.2x64", NULL, "conv2d.im2col.2x64", "conv2d.im2colT.2x64"},
    {4, 4, "gemm.4x64", NULL, "conv2d.im2col.4x64", "conv2d.im2colT.4x64"},
    {12, 1, "gemm.12x16", NULL, "conv2d.im2col.12x16", "conv2d.im2colT.12x16"},
    {16, 1, "gemm.16x16", NULL, "conv2d.im2col.16x16", "conv2d.im2colT.16x16"},
    {7, 2, "gemm.7x32", NULL, "conv2d.im2col.7x32", "conv2d.im2colT.7x32"},
    {1, 2, "gemm.1x32", NULL, "conv2d.im2col.1x32", "conv2d.im2colT.1x32"},
    {1, 1, "gemm.1x16", NULL, "conv2d.im2col.1x16", "conv2d.im2colT.1x16"},
};
static const tile_t kGemm8[] = {
    {6, 2, "gemm.6x16", NULL, "conv2d.im2col.6x16", "conv2d.im2colT.6x16"},
    {4, 3, "gemm.4x24", NULL, "conv2d.im2col.4x24", "conv2d.im2colT.4x24"},
    {3, 4, "gemm.3x32", NULL, "conv2d.im2col.3x32", "conv2d.im2colT.3x32"},
    {1, 4, "gemm.1x32", NULL, "conv2d.im2col.1x32", "conv2d.im2colT.1x32"},
    {2, 4, "gemm.2x32", NULL, "conv2d.im2col.2x32", "conv2d.im2colT.2x32"},
    {12, 1, "gemm.12x8", NULL, "conv2d.im2col.12x8", "conv2d.im2colT.12x8"},
    {5, 2, "gemm.5x16", NULL, "conv2d.im2col.5x16", "conv2d.im2colT.5x16"},
    {1, 2, "gemm.1x16", NULL, "conv2d.im2col.1x16", "conv2d.im2colT.1x16"},
};

static const tile_family_t kFamilies[] = {
    {8, kTiles8, RT_COUNTOF(kTiles8), kGemm8, RT_COUNTOF(kGemm8), "conv2d.depthwise.1x32"},
    {16, kTiles16, RT_COUNTOF(kTiles16), kGemm16, RT_COUNTOF(kGemm16), "conv2d.depthwise.1x64"},
};

/* The family of the target's width, or NULL (no templates for it). */
static const tile_family_t *family_of(const rt_jit_target_t *target) {
  for (size_t i = 0; i < RT_COUNTOF(kFamilies); ++i) {
    if (kFamilies[i].vw == target->vector_width) return &kFamilies[i];
  }
  return NULL;
}

/* Cycles of one k step of a tile on a core with 2 FMA and 2 load ports and
 * ~24 bytes per cycle from L2: the most of mr*nv FMAs / 2, (nv vector +
 * mr broadcast loads) / 2 and the nv*vw*4 bytes of B / 24, plus a quarter
 * of the B term (the L2 stream is not hidden completely behind the FMAs:
 * bench_kernels' dense 1024^3 ran at 0.60 of the 1-core peak with 6x64
 * and at 0.63-0.65 with 12x32, whose max() costs nearly tie:
 * build-rel/bench/bench_kernels 5 dense1024, with the GEMM tile table cut
 * to one tile at a time);
 * times the padded tiles. */
static const tile_t *pick_gemm_tile_rows(int64_t m, int64_t n, int64_t width, const tile_family_t *f,
                                         int32_t any_height) {
  const tile_t *tab = f->gemm;
  const size_t count = f->num_gemm;
  const int32_t vw = f->vw;
  const tile_t *best = NULL;
  double best_cost = 0;
  for (size_t i = 0; i < count; ++i) {
    const tile_t *t = &tab[i];
    const int64_t nw = (int64_t)vw * t->nv;
    if (width && nw != width) continue;
    if (t->mr > m && !any_height) continue;
    double tiles = (double)((m + t->mr - 1) / t->mr) * (double)((n + nw - 1) / nw);
    double step = (double)(t->mr * t->nv) / 2;
    double loads = (double)(t->mr + t->nv) / 2, bytes = (double)(t->nv * vw * 4) / 24;
    if (loads > step) step = loads;
    if (bytes > step) step = bytes;
    double cost = tiles * (step + 0.25 * bytes);
    if (!best || cost < best_cost - 1e-9) {
      best = t;
      best_cost = cost;
    }
  }
  return best;
}

static const tile_t *pick_gemm_tile_of_width(int64_t m, int64_t n, int64_t width,
                                            const tile_family_t *f) {
  /* Tiles no taller than M first: rows past M are broadcasts and FMAs for
   * nothing (the cost above counts a tile's rows whether used or not, so
   * 7x32 would beat 1x64 at M = 1); any height where none is that short
   * at the width the panels fix. */
  for (int32_t any_height = 0; any_height < 2; ++any_height) {
    const tile_t *t = pick_gemm_tile_rows(m, n, width, f, any_height);
    if (t) return t;
  }
  return NULL;
}

/* The cheapest tile of any width (with width 0 one is always found). */
static const tile_t *pick_gemm_tile(int64_t m, int64_t n, const tile_family_t *f) {
  return pick_gemm_tile_of_width(m, n, 0, f);
}

/* M and N of a GEMM-shaped anchor (its output's last two dims). */
/* The output's N (last dim) and M: the dim before it, or for dense and
 * matmul of a rank >= 3 data every dim before it (their rows are one GEMM
 * over the flattened rows, as the weight is 2-d). */
static bool gemm_dims(const rt_ir_expr_t *a, int64_t *m, int64_t *n) {
  int32_t r;
  const int64_t *s;
  if (!static_f32(a, &r, &s) || r < 1) return false;
  *n = s[r - 1];
  *m = r >= 2 ? s[r - 2] : 1;
  if (op_of(a)->id != RT_OP_NN_BATCH_MATMUL) {
    for (int32_t d = 0; d < r - 2; ++d) *m *= s[d];
  }
  return true;
}

/* ---- the registry ---------------------------------------------------------- */

/* One template: the anchors it takes, its planner (the template kind and
 * the tile from the target's tile family, or false: not this anchor, the
 * generic lowering runs) and its emitter. Adding a template is a row here
 * and its three functions. */
typedef struct template_t {
  bool (*takes)(int32_t op_id);
  bool (*plan)(const rt_ir_expr_t *anchor, const tile_family_t *fam, rt_jit_tpl_plan_t *p);
  rt_status_t (*emit)(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_ir_expr_t *out,
                      LLVMValueRef data, LLVMValueRef task, LLVMValueRef ntasks);
} template_t;

static bool takes_softmax(int32_t id) {
  return id == RT_OP_NN_SOFTMAX || id == RT_OP_NN_LOG_SOFTMAX;
}

static bool plan_softmax(const rt_ir_expr_t *a, const tile_family_t *fam, rt_jit_tpl_plan_t *p) {
  (void)a;
  (void)fam;
  p->kind = RT_JIT_TPL_SOFTMAX;
  p->name = "softmax.rows";
  return true;
}

static bool takes_conv2d(int32_t id) { return id == RT_OP_NN_CONV2D; }

/* conv2d.im2colT's name for a weight packed in panels (read in place, as
 * dense_pack's), so --report and --profile tell the two apart. */
static const char *packed_im2colt_name(const char *name) {
  static const char *const kPacked[][2] = {
      {"conv2d.im2colT.6x16", "conv2d.im2colT_pack.6x16"},
      {"conv2d.im2colT.5x16", "conv2d.im2colT_pack.5x16"},
      {"conv2d.im2colT.12x16", "conv2d.im2colT_pack.12x16"},
      {"conv2d.im2colT.16x16", "conv2d.im2colT_pack.16x16"},
      {"conv2d.im2colT.12x32", "conv2d.im2colT_pack.12x32"},
      {"conv2d.im2colT.3x32", "conv2d.im2colT_pack.3x32"},
      {"conv2d.im2colT.7x32", "conv2d.im2colT_pack.7x32"},
      {"conv2d.im2colT.1x16", "conv2d.im2colT_pack.1x16"},
      {"conv2d.im2colT.1x32", "conv2d.im2colT_pack.1x32"},
  };
  for (size_t i = 0; i < RT_COUNTOF(kPacked); ++i) {
    if (strcmp(kPacked[i][0], name) == 0) return kPacked[i][1];
  }
  return name;
}

/* Output pixels from which conv2d.im2colT on 16 lanes, its weight in
 * panels of 32, takes 14-row tiles (28 accumulators, no spills) where the
 * pixels are a multiple of 14: 14x14 and 28x28 images fill them exactly
 * (12x32 pads 196 rows to 204 and 784 to 792) and split evenly over two
 * threads by row tiles (split_rows: 17 tiles of 12 split 9 / 8). ResNet-50
 * on an AVX-512 Xeon, --profile, each variant twice in alternation, the
 * im2colT kernels at 14x14 and 28x28 summed (the Winograd ones at those
 * sizes in both sums): 1 thread 17791 / 17208 -> 16793 / 16551 us, 2
 * threads 9924 / 9834 -> 9386 / 9259; whole-model medians over 5
 * alternated rounds 2 threads 29.06 -> 28.10 ms, 1 thread 49.19 -> 48.54
 * (a noisy spell). At 7x7 (49 rows) 7x32 stays the better fit. The dense
 * GEMMs keep 12x32: 14x32 ran dense 1024^3 at 0.68-0.70 of the FMA peak
 * against 0.75-0.77 (bench_kernels). */
static const int64_t kRows14MinPx = 196;

static bool plan_conv2d(const rt_ir_expr_t *a, const tile_family_t *fam, rt_jit_tpl_plan_t *p) {
  rt_jit_conv2d_t c;
  if (!rt_jit_tpl_conv2d_attrs(a, &c)) return false;
  if (c.wpack && c.g != 1) return false; /* grouped panels: generic */
  /* Strided convolutions run direct on phase images (conv2d.c), except
   * 1x1 ones: their phase copy would move sh*sw times the data used. */
  const bool direct = (c.sh == 1 && c.sw == 1) || c.kh > 1 || c.kw > 1;
  /* 1x1 convolutions with the GEMM's operands swapped (conv2d.c:
   * conv2d.im2colT) by the rule in ir/op/conv.c, which the weight packing
   * (passes/dense_pack.c) follows too; a weight packed in panels
   * (kernel_layout OIHW16o / OIHW32o, any kernel size: DensePack packs
   * the 3x3 layers of small images too, rt_ir_conv_gemm_swapped) takes
   * it whatever the shape, with a tile as wide as its panels. */
  const bool swap = c.wpack || (c.kh == 1 && c.kw == 1 &&
                                rt_ir_conv1x1_gemm_swapped(c.cg, c.og, c.oh * c.ow, !direct, fam->vw));
  const int64_t px = c.oh * c.ow;
  if (swap) {
    const tile_t *t = pick_gemm_tile_of_width(px, c.og, c.wpack, fam);
    if (!t) return false; /* no tile as wide as the panels: generic */
    p->kind = RT_JIT_TPL_CONV_IM2COL_T;
    p->mr = t->mr;
    p->nv = t->nv;
    p->name = c.wpack ? packed_im2colt_name(t->im2colt) : t->im2colt;
    if (fam->vw == 16 && c.wpack == 32 && px >= kRows14MinPx && px % 14 == 0) {
      p->mr = 14;
      p->name = "conv2d.im2colT_pack.14x32";
    }
    return true;
  }
  if (c.cg == 1 && c.og == 1 && direct) {
    p->kind = RT_JIT_TPL_CONV_DW;
    p->mr = 1;
    p->nv = 4;
    p->name = fam->depthwise;
    /* Rows of at most 8 outputs on 8 lanes: a row of a 7x7 image is one
     * vector either way (dw_chunk), on 16 lanes 9 of its lanes idle.
     * EfficientNet-B0's 1152@7x7 5x5 kernels 258 -> 186 us, its 672 at
     * 14x14 stride 2 60 -> 40 (--profile, 1 thread, Zen 4; there the
     * 16-lane FMA has no more throughput than the 8-lane one; where it
     * has twice, the row still takes as many instructions). */
    if (fam->vw == 16 && c.ow <= 8) {
      p->vw = 8;
      p->name = kFamilies[0].depthwise;
    }
    return true;
  }
  if (direct) {
    const int64_t wq = (c.w + c.pl + c.pr + c.sw - 1) / c.sw;
    const tile_t *t = pick_tile(c.og, (c.oh - 1) * wq + c.ow, c.cg * c.kh * c.kw, fam);
    p->kind = RT_JIT_TPL_CONV_DIRECT;
    p->mr = t->mr;
    p->nv = t->nv;
    p->name = t->direct;
    return true;
  }
  const tile_t *t = pick_gemm_tile(c.og, c.oh * c.ow, fam);
  p->kind = RT_JIT_TPL_CONV_IM2COL;
  p->mr = t->mr;
  p->nv = t->nv;
  p->name = t->im2col;
  return true;
}

static bool takes_gemm(int32_t id) {
  return id == RT_OP_NN_DENSE || id == RT_OP_NN_MATMUL || id == RT_OP_NN_BATCH_MATMUL ||
         id == RT_OP_NN_DENSE_PACK;
}

/* ---- prepacked dense (h2, issue 18) ---- nn.contrib_dense_pack reads its
 * weight's panels in place, so the tile's columns vw*nv must be the panel
 * width P (16: what passes/dense_pack.c packs). Rows: the tallest tile
 * that M fills (a tile of mr rows does mr broadcasts per step whatever M,
 * and one row at batch 1 streams the weight once, as the generic dot
 * products would). Other panel widths lower generically. */
static bool plan_dense_pack(int64_t m, int64_t pack, const tile_family_t *fam, rt_jit_tpl_plan_t *p) {
  static const struct {
    int32_t vw, mr, nv;
    const char *name;
  } kPacked[] = {
      {8, 6, 2, "dense_pack.6x16"},   {8, 4, 2, "dense_pack.4x16"},  {8, 2, 2, "dense_pack.2x16"},
      {8, 1, 2, "dense_pack.1x16"},   {16, 12, 1, "dense_pack.12x16"}, {16, 6, 1, "dense_pack.6x16"},
      {16, 2, 1, "dense_pack.2x16"},  {16, 1, 1, "dense_pack.1x16"},  {16, 12, 2, "dense_pack.12x32"},
      {16, 6, 2, "dense_pack.6x32"},  {16, 2, 2, "dense_pack.2x32"},  {16, 1, 2, "dense_pack.1x32"},
      {8, 3, 4, "dense_pack.3x32"},   {8, 1, 4, "dense_pack.1x32"},
  };
  for (size_t i = 0; i < RT_COUNTOF(kPacked); ++i) {
    if (kPacked[i].vw != fam->vw || (int64_t)kPacked[i].vw * kPacked[i].nv != pack) continue;
    if (kPacked[i].mr > m && kPacked[i].mr > 1) continue;
    p->kind = RT_JIT_TPL_GEMM;
    p->mr = kPacked[i].mr;
    p->nv = kPacked[i].nv;
    p->name = kPacked[i].name;
    return true;
  }
  return false;
}
/* ---- end of prepacked dense (h2) ---- */

/* dense and matmul (data of rank >= 2, its leading dims flattened into M,
 * against a 2-d weight), batch_matmul (rank 3). */
static bool plan_gemm(const rt_ir_expr_t *a, const tile_family_t *fam, rt_jit_tpl_plan_t *p) {
  rt_plan_input_t in[2];
  for (int32_t i = 0; i < 2; ++i) {
    if (!ttype(a->call.args[i], &in[i].dtype, &in[i].rank, &in[i].shape)) return false;
    in[i].value = NULL;
  }
  const int32_t id = op_of(a)->id;
  if (id == RT_OP_NN_BATCH_MATMUL) {
    if (in[0].rank != 3 || in[1].rank != 3) return false;
  } else if (in[0].rank < 2 || in[1].rank != (id == RT_OP_NN_DENSE_PACK ? 3 : 2)) {
    return false;
  }
  int64_t m, n;
  if (!gemm_dims(a, &m, &n)) return false;
  /* One or two rows against a weight contiguous along K: the generic
   * lowering's dot products read the weight once, in place, where the
   * template would pack all of it first (dense 1x1280 x 1000x1280: 0.053
   * ms generic vs 0.21 ms template, one thread; the two tie at 4 rows and
   * the template is ahead from 8: `build-rel/tools/relayrt run M.relay
   * --executor graph --threads 1 --profile` on a dense + bias_add of those
   * shapes, with and without this check). */
  rt_plan_matmul_t mm;
  rt_status_t st = rt_ir_plan_matmul(op_of(a), a->call.attrs, 2, in, &mm);
  if (st) {
    rt_status_free(st);
    return false;
  }
  /* Rank >= 3 data with transpose_a: its rows are not one flat matrix. */
  if (id != RT_OP_NN_BATCH_MATMUL && in[0].rank > 2 && mm.transpose_a) return false;
  if (id == RT_OP_NN_DENSE_PACK) return plan_dense_pack(m, mm.pack, fam, p);
  const bool b_k_contiguous = mm.transpose_b && !mm.transpose_a; /* dense: always */
  if (m <= 2 && b_k_contiguous) return false;
  const tile_t *t = pick_gemm_tile(m, n, fam);
  p->kind = RT_JIT_TPL_GEMM;
  p->mr = t->mr;
  p->nv = t->nv;
  p->name = t->gemm;
  return true;
}

/* The Winograd convolution (winograd.c): rows are output tiles, columns
 * output channels; the first register tile whose vw*nv columns divide O
 * (accumulators within the registers, as the tables above), for a packed
 * weight the first one as wide as its panels. */
static bool takes_winograd(int32_t id) { return id == RT_OP_NN_WINOGRAD_CONV2D; }

static bool plan_winograd(const rt_ir_expr_t *a, const tile_family_t *fam, rt_jit_tpl_plan_t *p) {
  static const struct {
    int32_t vw, mr, nv;
    const char *name;
  } kTiles[] = {
      {8, 6, 2, "conv2d.winograd.6x16"},    {8, 4, 3, "conv2d.winograd.4x24"},
      {8, 8, 1, "conv2d.winograd.8x8"},     {16, 12, 2, "conv2d.winograd.12x32"},
      {16, 8, 3, "conv2d.winograd.8x48"},   {16, 12, 1, "conv2d.winograd.12x16"},
  };
  rt_plan_winograd_t w;
  if (!rt_jit_tpl_winograd_attrs(a, &w)) return false;
  /* Its workspace sizes stay far from overflow (larger ones lower generically). */
  if (w.c > (1 << 16) || w.o > (1 << 16) || w.th > (1 << 14) || w.tw > (1 << 14)) return false;
  /* A packed weight (panels of P channels) wants the tile P wide, read
   * in place; failing that any tile, copying panels (P a multiple of vw). */
  if (w.pack % fam->vw != 0) return false;
  for (int32_t pass = w.pack ? 0 : 1; pass < 2; ++pass) {
    for (size_t i = 0; i < RT_COUNTOF(kTiles); ++i) {
      const int64_t nw = (int64_t)kTiles[i].vw * kTiles[i].nv;
      if (kTiles[i].vw != fam->vw || w.o % nw != 0 || (pass == 0 && nw != w.pack)) continue;
      p->kind = RT_JIT_TPL_WINOGRAD;
      p->mr = kTiles[i].mr;
      p->nv = kTiles[i].nv;
      p->name = kTiles[i].name;
      return true;
    }
  }
  return false;
}

/* The pool templates (pool.c): the NCHW max_pool2d, avg_pool2d and global
 * pools its attrs check takes. */
static bool takes_pool(int32_t id) {
  return id == RT_OP_NN_MAX_POOL2D || id == RT_OP_NN_AVG_POOL2D || id == RT_OP_NN_GLOBAL_AVG_POOL2D ||
         id == RT_OP_NN_GLOBAL_MAX_POOL2D;
}

static bool plan_pool(const rt_ir_expr_t *a, const tile_family_t *fam, rt_jit_tpl_plan_t *p) {
  (void)fam;
  rt_plan_pool_t plan;
  if (!rt_jit_tpl_pool_attrs(a, &plan)) return false;
  p->kind = RT_JIT_TPL_POOL;
  p->name = plan.kind == RT_PLAN_POOL_GLOBAL ? "pool2d.global" : plan.is_max ? "pool2d.max" : "pool2d.avg";
  return true;
}

/* The blocked depthwise template (blocked.c): NCHW{vw}c data, a vw-lane
 * channel block per vector. */
static bool takes_blocked_dw(int32_t id) { return id == RT_OP_NN_DEPTHWISE_CONV2D_NCHWC; }

static bool plan_blocked_dw(const rt_ir_expr_t *a, const tile_family_t *fam, rt_jit_tpl_plan_t *p) {
  if (!rt_jit_tpl_blocked_dw_attrs(a, fam->vw)) return false;
  p->kind = RT_JIT_TPL_DW_NCHWC;
  p->name = "conv2d_NCHWc.depthwise";
  return true;
}

/* The blocked convolution template (blocked.c): NCHW{vw}c data and
 * output, OIHW{vw}i{vw}o weight, groups 1. */
static bool takes_blocked_conv(int32_t id) { return id == RT_OP_NN_CONV2D_NCHWC; }

static bool plan_blocked_conv(const rt_ir_expr_t *a, const tile_family_t *fam, rt_jit_tpl_plan_t *p) {
  if (!rt_jit_tpl_blocked_conv_attrs(a, fam->vw)) return false;
  p->kind = RT_JIT_TPL_CONV_NCHWC;
  p->name = "conv2d_NCHWc.direct";
  return true;
}

static const template_t kTemplates[] = {
    {takes_softmax, plan_softmax, rt_jit_tpl_softmax},
    {takes_pool, plan_pool, rt_jit_tpl_pool},
    {takes_blocked_dw, plan_blocked_dw, rt_jit_tpl_blocked_dw},
    {takes_blocked_conv, plan_blocked_conv, rt_jit_tpl_blocked_conv},
    {takes_conv2d, plan_conv2d, rt_jit_tpl_conv2d},
    {takes_winograd, plan_winograd, rt_jit_tpl_winograd},
    {takes_gemm, plan_gemm, rt_jit_tpl_gemm},
};

static const template_t *template_of(int32_t op_id) {
  for (size_t i = 0; i < RT_COUNTOF(kTemplates); ++i) {
    if (kTemplates[i].takes(op_id)) return &kTemplates[i];
  }
  return NULL;
}

static bool is_anchor(int32_t id) { return template_of(id) != NULL; }

bool rt_jit_tpl_plan(const rt_ir_expr_t *out, const rt_jit_target_t *target,
                     rt_jit_tpl_plan_t *p) {
  memset(p, 0, sizeof *p);
  int32_t rank;
  const int64_t *shape;
  if (!static_f32(out, &rank, &shape)) return false;
  const rt_ir_expr_t *a = find_anchor(out, rank, shape, 0);
  if (!a || !static_f32(a, NULL, NULL)) return false;
  for (int32_t i = 0; i < a->call.nargs; ++i) {
    if (!static_f32(a->call.args[i], NULL, NULL)) return false;
  }
  const template_t *tpl = template_of(op_of(a)->id);
  const tile_family_t *fam = family_of(target);
  if (!tpl || !fam) return false;
  p->anchor = a;
  p->vw = fam->vw;
  p->tpl = tpl;
  return tpl->plan(a, fam, p);
}

/* The single tensor output of fn, or NULL (tuple results keep the generic
 * loop nests). */
static const rt_ir_expr_t *single_output(const rt_ir_expr_t *fn) {
  if (fn->kind != RT_IR_FUNCTION || !fn->fn.body || fn->fn.body->kind == RT_IR_TUPLE) return NULL;
  return fn->fn.body;
}

const char *rt_jit_template_name(const rt_ir_expr_t *fn, const rt_jit_target_t *target) {
  const rt_ir_expr_t *out = single_output(fn);
  rt_jit_tpl_plan_t p;
  if (!out || !rt_jit_tpl_plan(out, target, &p)) return NULL;
  return p.name;
}

bool rt_jit_template_explicit_vector(const rt_ir_expr_t *fn, const rt_jit_target_t *target) {
  const rt_ir_expr_t *out = single_output(fn);
  rt_jit_tpl_plan_t p;
  if (!out || !rt_jit_tpl_plan(out, target, &p)) return false;
  switch (p.kind) {
    case RT_JIT_TPL_WINOGRAD:
      return true;
    case RT_JIT_TPL_CONV_DW:
      return rt_jit_tpl_conv2d_dw_explicit(p.anchor, out);
    case RT_JIT_TPL_CONV_NCHWC:
      /* Vector FMAs on contiguous channel blocks; the tail ops through
       * the vector epilogue (lanes: the output's channel block). On 8
       * lanes the C2 pipeline's code of the 6 x 2 tile keeps the 6
       * broadcasts live beside the 12 accumulators and spills (ResNet-50's
       * 1x1 layers 57-64 GFLOP/s against 106-107 under O3, 1 thread, AVX2
       * templates on an AVX-512 Xeon); on 16 lanes both run alike (within
       * 3%) and C2 optimizes in 0.4-0.7 of O3's time. */
      if (p.vw != 16) return false;
      return out == p.anchor || rt_jit_tpl_vepi_takes(p.anchor, out, 4, 5);
    case RT_JIT_TPL_CONV_DIRECT:
    case RT_JIT_TPL_CONV_IM2COL_T: {
      const rt_ir_expr_t *a = p.anchor;
      if (a->kind != RT_IR_CALL || a->call.nargs < 2) return false;
      for (int32_t i = 0; i < 2; ++i) {
        const rt_ir_expr_t *x = a->call.args[i];
        if (x->kind != RT_IR_VAR && x->kind != RT_IR_CONSTANT) return false;
      }
      /* The lanes: output columns (conv2d.direct's C-block rows; its 1x1
       * register epilogue takes whatever these take), output channels
       * (conv2d.im2colT). */
      return p.kind == RT_JIT_TPL_CONV_DIRECT ? rt_jit_tpl_vepi_takes(a, out, 3, 4)
                                              : rt_jit_tpl_vepi_takes(a, out, 1, 2);
    }
    default:
      return false;
  }
}

rt_status_t rt_jit_template_emit(rt_jit_lower_t *L, const rt_ir_expr_t *out, LLVMValueRef data,
                                 LLVMValueRef task, LLVMValueRef ntasks, bool *out_done) {
  *out_done = false;
  rt_jit_tpl_plan_t p;
  if (!rt_jit_tpl_plan(out, L->target, &p)) return RT_OK;
  /* Every node on the way must have been sized (it is: the shape phase
   * ran over the whole output). */
  if (!rt_jit_node(L, out) || !rt_jit_node(L, p.anchor)) return RT_OK;
  LLVMValueRef t64 = LLVMBuildSExt(L->b, task, L->i64, "");
  LLVMValueRef n64 = LLVMBuildSExt(L->b, ntasks, L->i64, "");
  const template_t *tpl = p.tpl;
  rt_status_t st = tpl->emit(L, &p, out, data, t64, n64);
  if (st) return rt_status_annotate(st, "template %s", p.name);
  *out_done = true;
  return RT_OK;
}

/* ---- vectors and memory ---------------------------------------------------- */

LLVMTypeRef rt_jit_tpl_vec(rt_jit_lower_t *L, int32_t vw) {
  return LLVMVectorType(L->f32, (unsigned)vw);
}

LLVMValueRef rt_jit_tpl_splat(rt_jit_lower_t *L, LLVMValueRef s, int32_t vw) {
  LLVMTypeRef vt = rt_jit_tpl_vec(L, vw);
  LLVMValueRef v = LLVMBuildInsertElement(L->b, LLVMGetUndef(vt), s, rt_jit_i32(L, 0), "");
  return LLVMBuildShuffleVector(L->b, v, LLVMGetUndef(vt),
                                LLVMConstNull(LLVMVectorType(L->i32, (unsigned)vw)), "");
}

LLVMValueRef rt_jit_tpl_gep(rt_jit_lower_t *L, LLVMValueRef p, LLVMValueRef off) {
  return LLVMBuildGEP2(L->b, L->f32, p, &off, 1, "");
}

LLVMValueRef rt_jit_tpl_loadv(rt_jit_lower_t *L, LLVMValueRef p, LLVMValueRef off, int32_t vw) {
  LLVMValueRef v = LLVMBuildLoad2(L->b, rt_jit_tpl_vec(L, vw), rt_jit_tpl_gep(L, p, off), "");
  LLVMSetAlignment(v, 4);
  return v;
}

void rt_jit_tpl_storev(rt_jit_lower_t *L, LLVMValueRef v, LLVMValueRef p, LLVMValueRef off) {
  LLVMSetAlignment(LLVMBuildStore(L->b, v, rt_jit_tpl_gep(L, p, off)), 4);
}

LLVMValueRef rt_jit_tpl_loadf(rt_jit_lower_t *L, LLVMValueRef p, LLVMValueRef off) {
  LLVMValueRef v = LLVMBuildLoad2(L->b, L->f32, rt_jit_tpl_gep(L, p, off), "");
  LLVMSetAlignment(v, 4);
  return v;
}

void rt_jit_tpl_storef(rt_jit_lower_t *L, LLVMValueRef v, LLVMValueRef p, LLVMValueRef off) {
  LLVMSetAlignment(LLVMBuildStore(L->b, v, rt_jit_tpl_gep(L, p, off)), 4);
}

void rt_jit_tpl_loop_hints(rt_jit_lower_t *L, LLVMBasicBlockRef latch, bool no_vectorize,
                           bool no_unroll) {
  LLVMValueRef br = LLVMGetBasicBlockTerminator(latch);
  if (!br || (!no_vectorize && !no_unroll)) return;
  LLVMMetadataRef self = LLVMTemporaryMDNode(L->c, NULL, 0);
  LLVMMetadataRef ops[3] = {self};
  unsigned n = 1;
  if (no_vectorize) {
    LLVMMetadataRef opt[2] = {LLVMMDStringInContext2(L->c, "llvm.loop.vectorize.enable", 26),
                              LLVMValueAsMetadata(LLVMConstInt(L->i1, 0, 0))};
    ops[n++] = LLVMMDNodeInContext2(L->c, opt, 2);
  }
  if (no_unroll) {
    LLVMMetadataRef opt[1] = {LLVMMDStringInContext2(L->c, "llvm.loop.unroll.disable", 24)};
    ops[n++] = LLVMMDNodeInContext2(L->c, opt, 1);
  }
  LLVMMetadataRef loop = LLVMMDNodeInContext2(L->c, ops, n);
  /* The loop id refers to itself (LLVM's convention for loop metadata). */
  LLVMMetadataReplaceAllUsesWith(self, loop);
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(L->c, "llvm.loop", 9), LLVMMetadataAsValue(L->c, loop));
}

void rt_jit_tpl_loop_end_rolled(rt_jit_lower_t *L, rt_jit_loop_t *loop) {
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
  rt_jit_loop_end(L, loop, NULL);
  rt_jit_tpl_loop_hints(L, latch, false, true);
}

LLVMValueRef rt_jit_tpl_masked_load(rt_jit_lower_t *L, LLVMValueRef p, LLVMValueRef off, LLVMValueRef mask,
                                    LLVMValueRef passthru, int32_t vw) {
  LLVMTypeRef tys[2] = {rt_jit_tpl_vec(L, vw), L->ptr};
  unsigned id = LLVMLookupIntrinsicID("llvm.masked.load", 16);
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(L->m, id, tys, 2);
  LLVMTypeRef fty = LLVMIntrinsicGetType(L->c, id, tys, 2);
  LLVMValueRef args[4] = {rt_jit_tpl_gep(L, p, off), LLVMConstInt(L->i32, 4, 0), mask, passthru};
  return LLVMBuildCall2(L->b, fty, fn, args, 4, "");
}

void rt_jit_tpl_masked_store(rt_jit_lower_t *L, LLVMValueRef v, LLVMValueRef p, LLVMValueRef off, LLVMValueRef mask,
                             int32_t vw) {
  LLVMTypeRef tys[2] = {rt_jit_tpl_vec(L, vw), L->ptr};
  unsigned id = LLVMLookupIntrinsicID("llvm.masked.store", 17);
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(L->m, id, tys, 2);
  LLVMTypeRef fty = LLVMIntrinsicGetType(L->c, id, tys, 2);
  LLVMValueRef args[4] = {v, rt_jit_tpl_gep(L, p, off), LLVMConstInt(L->i32, 4, 0), mask};
  (void)LLVMBuildCall2(L->b, fty, fn, args, 4, "");
}

void rt_jit_tpl_store_first(rt_jit_lower_t *L, LLVMValueRef v, LLVMValueRef p, LLVMValueRef off, int32_t k,
                            int32_t vw) {
  LLVMBuilderRef B = L->b;
  if (k >= vw) {
    rt_jit_tpl_storev(L, v, p, off);
    return;
  }
  for (int32_t at = 0; at < k;) {
    int32_t n = 1;
    while (n * 2 <= k - at) n *= 2;
    LLVMValueRef o = LLVMBuildAdd(B, off, rt_jit_i64(L, at), "");
    if (n == 1) {
      rt_jit_tpl_storef(L, LLVMBuildExtractElement(B, v, rt_jit_i32(L, at), ""), p, o);
    } else {
      LLVMValueRef lanes[16];
      for (int32_t i = 0; i < n; ++i) lanes[i] = rt_jit_i32(L, at + i);
      LLVMValueRef part =
          LLVMBuildShuffleVector(B, v, LLVMGetUndef(LLVMTypeOf(v)), LLVMConstVector(lanes, (unsigned)n), "");
      rt_jit_tpl_storev(L, part, p, o);
    }
    at += n;
  }
}

LLVMValueRef rt_jit_tpl_deinterleave(rt_jit_lower_t *L, LLVMValueRef lo, LLVMValueRef hi, int32_t vw, bool odd) {
  LLVMValueRef lanes[16];
  for (int32_t i = 0; i < vw; ++i) lanes[i] = LLVMConstInt(L->i32, (unsigned long long)(2 * i + odd), 0);
  return LLVMBuildShuffleVector(L->b, lo, hi, LLVMConstVector(lanes, (unsigned)vw), "");
}

/* Transposes the vw x vw floats in rows[0..vw) in place (rows[i][j] becomes
 * the old rows[j][i]): log2(vw) rounds, each swapping the off-diagonal
 * s x s blocks of every 2s x 2s block with two shuffles per row pair. */
void rt_jit_tpl_transpose(rt_jit_lower_t *L, int32_t vw, LLVMValueRef *rows) {
  LLVMValueRef lo[16], hi[16];
  for (int32_t s = 1; s < vw; s *= 2) {
    for (int32_t j = 0; j < vw; ++j) {
      lo[j] = LLVMConstInt(L->i32, (unsigned long long)((j & s) ? vw + j - s : j), 0);
      hi[j] = LLVMConstInt(L->i32, (unsigned long long)((j & s) ? vw + j : j + s), 0);
    }
    LLVMValueRef mlo = LLVMConstVector(lo, (unsigned)vw), mhi = LLVMConstVector(hi, (unsigned)vw);
    for (int32_t i = 0; i < vw; ++i) {
      if (i & s) continue;
      LLVMValueRef a = rows[i], c = rows[i + s];
      rows[i] = LLVMBuildShuffleVector(L->b, a, c, mlo, "");
      rows[i + s] = LLVMBuildShuffleVector(L->b, a, c, mhi, "");
    }
  }
}

LLVMValueRef rt_jit_tpl_lanes_mask(rt_jit_lower_t *L, int64_t k, int32_t vw) {
  LLVMValueRef bits[16];
  for (int32_t i = 0; i < vw; ++i) bits[i] = LLVMConstInt(L->i1, i < k, 0);
  return LLVMConstVector(bits, (unsigned)vw);
}

LLVMValueRef rt_jit_tpl_lanes_below(rt_jit_lower_t *L, LLVMValueRef k, int32_t vw) {
  LLVMBuilderRef B = L->b;
  LLVMTypeRef it = LLVMVectorType(L->i64, (unsigned)vw);
  LLVMValueRef lanes[16];
  for (int32_t i = 0; i < vw; ++i) lanes[i] = LLVMConstInt(L->i64, (unsigned long long)i, 0);
  LLVMValueRef k0 = LLVMBuildInsertElement(B, LLVMGetUndef(it), k, LLVMConstInt(L->i32, 0, 0), "");
  LLVMValueRef kv = LLVMBuildShuffleVector(B, k0, LLVMGetUndef(it),
                                           LLVMConstNull(LLVMVectorType(L->i32, (unsigned)vw)), "");
  return LLVMBuildICmp(B, LLVMIntSLT, LLVMConstVector(lanes, (unsigned)vw), kv, "");
}

static void prefetch(rt_jit_lower_t *L, LLVMValueRef p, bool write, int32_t locality) {
  unsigned id = LLVMLookupIntrinsicID("llvm.prefetch", 13);
  LLVMTypeRef pty = L->ptr;
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(L->m, id, &pty, 1);
  LLVMTypeRef fty = LLVMIntrinsicGetType(L->c, id, &pty, 1);
  /* (address, rw, locality: 3 = keep in all levels, 2 = not L1; data cache) */
  LLVMValueRef args[4] = {p, rt_jit_i32(L, write ? 1 : 0), rt_jit_i32(L, locality), rt_jit_i32(L, 1)};
  LLVMBuildCall2(L->b, fty, fn, args, 4, "");
}

void rt_jit_tpl_prefetch(rt_jit_lower_t *L, LLVMValueRef p, bool write) { prefetch(L, p, write, 3); }

void rt_jit_tpl_prefetch_stream(rt_jit_lower_t *L, LLVMValueRef p) { prefetch(L, p, false, 2); }

static void add_fn_attr(rt_jit_lower_t *L, const char *k, const char *v) {
  LLVMAddAttributeAtIndex(L->fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(L->c, k, (unsigned)strlen(k), v, (unsigned)strlen(v)));
}

void rt_jit_tpl_wide(rt_jit_lower_t *L, int32_t vw) {
  if (vw != 16) return;
  /* Without these the x86 backend legalizes <16 x float> as two ymm
   * halves on CPUs whose tuning prefers 256-bit vectors (Skylake-SP and
   * later Xeons). */
  add_fn_attr(L, "min-legal-vector-width", "512");
  add_fn_attr(L, "prefer-vector-width", "512");
}

void rt_jit_tpl_micro(rt_jit_lower_t *L, int32_t mr, int32_t nv, int32_t vw, int64_t K,
                      const LLVMValueRef *arow, LLVMValueRef bbase, LLVMValueRef btab,
                      int64_t bstride, LLVMValueRef c, int64_t ldc) {
  rt_jit_tpl_micro_acc(L, mr, nv, vw, K, arow, bbase, btab, bstride, c, ldc, NULL);
}

void rt_jit_tpl_micro_acc(rt_jit_lower_t *L, int32_t mr, int32_t nv, int32_t vw, int64_t K,
                          const LLVMValueRef *arow, LLVMValueRef bbase, LLVMValueRef btab,
                          int64_t bstride, LLVMValueRef c, int64_t ldc, LLVMValueRef add) {
  LLVMValueRef acc[RT_JIT_MAX_CARRY];
  rt_jit_tpl_micro_regs(L, mr, nv, vw, K, arow, bbase, btab, bstride, c, ldc, add, acc);
  for (int32_t r = 0; r < mr; ++r) {
    for (int32_t v = 0; v < nv; ++v) {
      rt_jit_tpl_storev(L, acc[r * nv + v], c, rt_jit_i64(L, r * ldc + (int64_t)vw * v));
    }
  }
}

rt_jit_tpl_pf_spread_t rt_jit_tpl_pf_spread(rt_jit_lower_t *L, LLVMValueRef p, LLVMValueRef tr, LLVMValueRef ntile,
                                             LLVMValueRef steps, LLVMValueRef nlines) {
  LLVMBuilderRef B = L->b;
  /* rate = ceil(nlines * 65536 / (ntile * steps)), at most one line a step. */
  LLVMValueRef span = rt_jit_max(L, LLVMBuildMul(B, ntile, steps, ""), rt_jit_i64(L, 1));
  LLVMValueRef rate = LLVMBuildUDiv(B, LLVMBuildAdd(B, LLVMBuildShl(B, nlines, rt_jit_i64(L, 16), ""),
                                                    LLVMBuildSub(B, span, rt_jit_i64(L, 1), ""), ""),
                                    span, "");
  rt_jit_tpl_pf_spread_t sp = {.p = p,
                               .base = LLVMBuildMul(B, tr, steps, ""),
                               .rate = rt_jit_min(L, rate, rt_jit_i64(L, 65536)),
                               .last = LLVMBuildSub(B, nlines, rt_jit_i64(L, 1), "")};
  return sp;
}

void rt_jit_tpl_pf_spread_step(rt_jit_lower_t *L, const rt_jit_tpl_pf_spread_t *sp, LLVMValueRef k) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef at = LLVMBuildLShr(B, LLVMBuildMul(B, LLVMBuildAdd(B, sp->base, k, ""), sp->rate, ""),
                                  rt_jit_i64(L, 16), "");
  LLVMValueRef line = rt_jit_min(L, at, sp->last);
  rt_jit_tpl_prefetch_stream(L, rt_jit_tpl_gep(L, sp->p, LLVMBuildMul(B, line, rt_jit_i64(L, 16), "")));
}

static void micro_regs(rt_jit_lower_t *L, int32_t mr, int32_t nv, int32_t vw, int64_t K, const LLVMValueRef *arow,
                       LLVMValueRef bbase, LLVMValueRef btab, int64_t bstride, LLVMValueRef c, int64_t ldc,
                       LLVMValueRef add, const rt_jit_tpl_pf_spread_t *pf, LLVMValueRef *out_acc);

void rt_jit_tpl_micro_regs(rt_jit_lower_t *L, int32_t mr, int32_t nv, int32_t vw, int64_t K,
                           const LLVMValueRef *arow, LLVMValueRef bbase, LLVMValueRef btab,
                           int64_t bstride, LLVMValueRef c, int64_t ldc, LLVMValueRef add,
                           LLVMValueRef *out_acc) {
  micro_regs(L, mr, nv, vw, K, arow, bbase, btab, bstride, c, ldc, add, NULL, out_acc);
}

void rt_jit_tpl_micro_pf(rt_jit_lower_t *L, int32_t mr, int32_t nv, int32_t vw, int64_t K,
                         const LLVMValueRef *arow, LLVMValueRef bbase, int64_t bstride, LLVMValueRef c,
                         int64_t ldc, LLVMValueRef pf, LLVMValueRef tr, LLVMValueRef ntile, LLVMValueRef nlines) {
  const rt_jit_tpl_pf_spread_t sp = rt_jit_tpl_pf_spread(L, pf, tr, ntile, rt_jit_i64(L, K), nlines);
  LLVMValueRef acc[RT_JIT_MAX_CARRY];
  micro_regs(L, mr, nv, vw, K, arow, bbase, NULL, bstride, c, ldc, NULL, &sp, acc);
  for (int32_t r = 0; r < mr; ++r) {
    for (int32_t v = 0; v < nv; ++v) {
      rt_jit_tpl_storev(L, acc[r * nv + v], c, rt_jit_i64(L, r * ldc + (int64_t)vw * v));
    }
  }
}

/* One k step of the micro-kernel: next = acc + A(:, k) x B(k, :). */
static void micro_step(rt_jit_lower_t *L, int32_t mr, int32_t nv, int32_t vw, const LLVMValueRef *arow,
                       LLVMValueRef bbase, LLVMValueRef btab, int64_t bstride, const rt_jit_tpl_pf_spread_t *pf, LLVMValueRef k,
                       const LLVMValueRef *acc, LLVMValueRef *next) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef bv[RT_JIT_MAX_CARRY] = {0}, boff;
  if (btab) {
    LLVMValueRef at = LLVMBuildGEP2(B, L->i32, btab, &k, 1, "");
    LLVMValueRef o = LLVMBuildLoad2(B, L->i32, at, "");
    LLVMSetAlignment(o, 4);
    boff = LLVMBuildSExt(B, o, L->i64, "");
  } else {
    boff = LLVMBuildMul(B, k, rt_jit_i64(L, bstride), "");
  }
  LLVMValueRef bp = rt_jit_tpl_gep(L, bbase, boff);
  for (int32_t v = 0; v < nv; ++v) bv[v] = rt_jit_tpl_loadv(L, bp, rt_jit_i64(L, (int64_t)vw * v), vw);
  if (pf) rt_jit_tpl_pf_spread_step(L, pf, k);
  for (int32_t r = 0; r < mr; ++r) {
    LLVMValueRef s = rt_jit_tpl_splat(L, rt_jit_tpl_loadf(L, arow[r], k), vw);
    for (int32_t v = 0; v < nv; ++v) {
      next[r * nv + v] = rt_jit_intrinsic(L, "llvm.fma", s, bv[v], acc[r * nv + v]);
    }
  }
}

static void micro_regs(rt_jit_lower_t *L, int32_t mr, int32_t nv, int32_t vw, int64_t K, const LLVMValueRef *arow,
                       LLVMValueRef bbase, LLVMValueRef btab, int64_t bstride, LLVMValueRef c, int64_t ldc,
                       LLVMValueRef add, const rt_jit_tpl_pf_spread_t *pf, LLVMValueRef *out_acc) {
  LLVMBuilderRef B = L->b;
  const int32_t nacc = mr * nv;
  rt_jit_tpl_wide(L, vw);
  LLVMValueRef init[RT_JIT_MAX_CARRY] = {0}, next[RT_JIT_MAX_CARRY] = {0};
  for (int32_t i = 0; i < nacc; ++i) init[i] = LLVMConstNull(rt_jit_tpl_vec(L, vw));
  if (add) {
    /* A later K block: the accumulators start from the tile stored by the
     * earlier ones (loaded only then: the first block's C is not written
     * yet). */
    rt_jit_if_t later;
    rt_jit_if_begin(L, add, &later);
    LLVMValueRef old[RT_JIT_MAX_CARRY] = {0};
    for (int32_t r = 0; r < mr; ++r) {
      for (int32_t v = 0; v < nv; ++v) {
        old[r * nv + v] = rt_jit_tpl_loadv(L, c, rt_jit_i64(L, r * ldc + (int64_t)vw * v), vw);
      }
    }
    rt_jit_if_else(L, &later, NULL);
    (void)rt_jit_if_end(L, &later, NULL);
    for (int32_t i = 0; i < nacc; ++i) {
      LLVMValueRef phi = LLVMBuildPhi(B, rt_jit_tpl_vec(L, vw), "");
      LLVMValueRef vals[2] = {old[i], init[i]};
      LLVMBasicBlockRef blocks[2] = {later.then_end, later.else_end};
      LLVMAddIncoming(phi, vals, blocks, 2);
      init[i] = phi;
    }
  }
  /* On 16 lanes the k loop does two steps an iteration (one on 8 lanes).
   * An AVX-512 Xeon, 1 thread, --profile minima summed over 3 alternated
   * rounds against one step: resnet50's kernels 0.981 of their time (2
   * threads 0.960), densenet121 0.950, mobilenet_v2 0.984; four steps
   * gained as much (resnet18 0.978, squeezenet1_1 0.984, efficientnet_b0
   * 0.991) but ran 1-2% behind two and compiled 5-8% slower; on 8 lanes
   * resnet50 1.006 (two) and 1.001 (four). The GEMM core's own loop
   * (dense.c) ran slower unrolled (the encoder 1.010 with two steps,
   * 1.084 with four). */
  const int64_t U = vw == 16 ? 2 : 1;
  const int64_t kmain = K / U * U;
  LLVMValueRef acc[RT_JIT_MAX_CARRY];
  for (int32_t i = 0; i < nacc; ++i) acc[i] = init[i];
  if (kmain > 0) {
    rt_jit_loop_t lp;
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, kmain / U), nacc, init, &lp);
    for (int32_t i = 0; i < nacc; ++i) acc[i] = lp.carry[i];
    LLVMValueRef k0 = U == 1 ? lp.iv : LLVMBuildMul(B, lp.iv, rt_jit_i64(L, U), "");
    for (int64_t u = 0; u < U; ++u) {
      LLVMValueRef k = u ? LLVMBuildAdd(B, k0, rt_jit_i64(L, u), "") : k0;
      micro_step(L, mr, nv, vw, arow, bbase, btab, bstride, pf, k, acc, next);
      for (int32_t i = 0; i < nacc; ++i) acc[i] = next[i];
    }
    rt_jit_loop_end(L, &lp, acc);
    for (int32_t i = 0; i < nacc; ++i) acc[i] = lp.carry[i];
  }
  for (int64_t k = kmain; k < K; ++k) {
    micro_step(L, mr, nv, vw, arow, bbase, btab, bstride, pf, rt_jit_i64(L, k), acc, next);
    for (int32_t i = 0; i < nacc; ++i) acc[i] = next[i];
  }
  for (int32_t i = 0; i < nacc; ++i) out_acc[i] = acc[i];
}

/* Field indices of rt_kernel_ctx (kernel_abi.h). */
enum { CTX_WS_ALLOC = 3, CTX_WS_FREE = 4 };

static LLVMTypeRef ctx_struct(rt_jit_lower_t *L) {
  LLVMTypeRef f[7] = {L->i32, L->i32, L->ptr, L->ptr, L->ptr, L->ptr, L->ptr};
  return LLVMStructTypeInContext(L->c, f, 7, 0);
}

LLVMValueRef rt_jit_tpl_ws_alloc(rt_jit_lower_t *L, int64_t nbytes) {
  return rt_jit_tpl_ws_alloc_v(L, rt_jit_i64(L, nbytes > 0 ? nbytes : 64));
}

LLVMValueRef rt_jit_tpl_ws_alloc_v(rt_jit_lower_t *L, LLVMValueRef nbytes) {
  LLVMValueRef slot = LLVMBuildStructGEP2(L->b, ctx_struct(L), L->ctx, CTX_WS_ALLOC, "");
  LLVMValueRef fp = LLVMBuildLoad2(L->b, L->ptr, slot, "ws_alloc");
  LLVMTypeRef params[2] = {L->ptr, L->i64};
  LLVMTypeRef fty = LLVMFunctionType(L->ptr, params, 2, 0);
  LLVMValueRef args[2] = {L->ctx, rt_jit_max(L, nbytes, rt_jit_i64(L, 64))};
  /* A NULL workspace_alloc (allowed by the ABI) reads as out of memory. */
  rt_jit_if_t s;
  rt_jit_if_begin(L, LLVMBuildIsNotNull(L->b, fp, ""), &s);
  LLVMValueRef p = LLVMBuildCall2(L->b, fty, fp, args, 2, "ws");
  rt_jit_if_else(L, &s, p);
  return rt_jit_if_end(L, &s, LLVMConstNull(L->ptr));
}

void rt_jit_tpl_ws_free(rt_jit_lower_t *L, LLVMValueRef p) {
  LLVMValueRef slot = LLVMBuildStructGEP2(L->b, ctx_struct(L), L->ctx, CTX_WS_FREE, "");
  LLVMValueRef fp = LLVMBuildLoad2(L->b, L->ptr, slot, "ws_free");
  LLVMTypeRef params[2] = {L->ptr, L->ptr};
  LLVMTypeRef fty = LLVMFunctionType(L->void_t, params, 2, 0);
  LLVMValueRef args[2] = {L->ctx, p};
  rt_jit_if_t s;
  rt_jit_if_begin(L, LLVMBuildAnd(L->b, LLVMBuildIsNotNull(L->b, fp, ""),
                                  LLVMBuildIsNotNull(L->b, p, ""), ""), &s);
  LLVMBuildCall2(L->b, fty, fp, args, 2, "");
  rt_jit_if_else(L, &s, NULL);
  (void)rt_jit_if_end(L, &s, NULL);
}

void rt_jit_tpl_split(rt_jit_lower_t *L, int64_t n, LLVMValueRef task, LLVMValueRef ntasks,
                      LLVMValueRef *lo, LLVMValueRef *hi) {
  LLVMValueRef nn = rt_jit_i64(L, n);
  *lo = LLVMBuildSDiv(L->b, LLVMBuildMul(L->b, nn, task, ""), ntasks, "");
  *hi = LLVMBuildSDiv(L->b, LLVMBuildMul(L->b, nn, LLVMBuildAdd(L->b, task, rt_jit_i64(L, 1), ""), ""),
                      ntasks, "");
}

rt_status_t rt_jit_tpl_epilogue(rt_jit_lower_t *L, const rt_ir_expr_t *anchor,
                                const rt_ir_expr_t *out, LLVMValueRef data, LLVMValueRef *idx,
                                LLVMValueRef value) {
  rt_jit_node_t *n = rt_jit_node(L, out);
  for (int32_t k = 0; k < n->rank; ++k) {
    if (LLVMIsConstant(n->dims[k]) && LLVMConstIntGetZExtValue(n->dims[k]) == 1) {
      idx[k] = rt_jit_i64(L, 0);
    }
  }
  RT_RETURN_IF_ERROR(rt_jit_memo_set(L, anchor, idx, value));
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, out, idx, &v));
  n = rt_jit_node(L, out);
  rt_jit_tpl_storef(L, v, data, rt_jit_linear(L, n->rank, idx, n->dims));
  return RT_OK;
}

bool rt_jit_tpl_raw(rt_jit_lower_t *L, const rt_ir_expr_t *e) {
  rt_jit_node_t *n = rt_jit_node(L, e);
  return n && n->data && (e->kind == RT_IR_VAR || e->kind == RT_IR_CONSTANT);
}
