/* The pool templates: nn.max_pool2d (pool2d.max), nn.avg_pool2d
 * (pool2d.avg) and nn.global_avg_pool2d / nn.global_max_pool2d
 * (pool2d.global) over NCHW float32 data with static shapes; window pools
 * with unit dilation, column stride 1 or 2 and at most 64 taps, averages
 * only where every window counts kh*kw positions (other pools lower
 * generically, jit/ops/nn.c).
 *
 * pool2d.max. The generic lowering makes each output element a reduction
 * over its window with bounds checks: a scalar loop, since at stride 2
 * every tap of a vector of outputs is a strided gather. Here a task takes
 * whole (image, channel) planes.
 * An input in memory is read in place (pool_direct_plane), by output
 * vectors: vector j of an output row reduces, per window row, its taps
 * loaded straight from the input row (column c's tap kx is element c*sw +
 * kx - pl: at stride 2 a pair of loads split into even and odd lanes by
 * two shuffles gives taps kx and kx + 1), then the window's rows. Going
 * down the rows of one vector, the kh - sh window rows that the next
 * output row shares are carried to it in registers, so each input row is
 * reduced once per vector (the 3x3/2 pools: two new rows per output
 * row). The vectors whose taps lie inside the row run in one loop; the
 * first (reading the padding) and the last (past W, or partial) each
 * have their lanes outside the row masked to -inf at lowering time; a
 * window row outside the image is -inf. The maximum is one vmaxps, (x >
 * acc) ? x : acc, which drops a NaN in x, so each load also tests for
 * NaN and a plane where one was read is computed again with
 * llvm.maximum, which propagates it as the reference does (jit/ops/nn.c
 * starts at -inf and skips the positions outside). SqueezeNet-1.1's
 * 64@111x111 3x3/2 pool, one thread, Zen 5 (its stem and pool cut from
 * the model as Relay text, --profile): 128-131 -> 61-62 us against
 * copying each plane into phase images first (below), which ran at 211
 * us with llvm.maximum throughout.
 * An input computed by fused producers is copied once per plane, element
 * by element through its expression, into sw phase images: padded
 * element (r, pc) (input (r - pt, pc - pl)) goes to row r, column pc / sw
 * of phase pc % sw, rows wq apart; everything else in the phase images --
 * the padding, and what lies past the image where ceil_mode's last
 * windows reach -- holds -inf, written once per task (a plane's copy
 * writes the same interior positions). Output row oh, columns [j*vw, j*vw
 * + vw) are then the maximum over the kh*kw taps of one contiguous vector
 * load each (tap (kh, kw): phase kw % sw, row oh*sh + kh, column j*vw +
 * kw/sw), four vectors of a row at a time (four independent chains of
 * llvm.maximum), the row's last vector a masked store.
 * Without fused tail ops the rows are stored straight into the output
 * plane; with them, into a plane block of workspace that one flat loop
 * per row hands to the epilogue (templates.h), which O3 vectorizes.
 * pool2d.avg is the same with 0 for -inf and a sum for the maximum,
 * divided by kh*kw: the templated averages are those whose windows lie
 * inside the image (or, counting the padding, inside the padded image),
 * so every window counts kh*kw positions, as the reference would.
 *
 * pool2d.global. The generic lowering reduces a plane in two nested loops
 * (rows of 7-56 elements: too short to vectorize well). Here, for an input
 * in memory, a plane's h*w contiguous floats are summed (or maximized) by
 * whole vectors into four accumulators, the last vector a masked load (0
 * or -inf past the end), then reduced across lanes; the average divides by
 * h*w, as the reference; the value goes through the epilogue. An input
 * computed by fused producers keeps the generic lowering. */
#include <string.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"
#include "jit/templates/templates.h"

/* Window taps the template unrolls at most. */
#define POOL_MAX_TAPS 64
/* Output vectors of a row computed together (independent chains). */
#define POOL_GROUP 4

bool rt_jit_tpl_pool_attrs(const rt_ir_expr_t *call, rt_plan_pool_t *plan) {
  memset(plan, 0, sizeof *plan);
  if (call->kind != RT_IR_CALL || call->call.callee->kind != RT_IR_OP || call->call.nargs != 1) return false;
  const int32_t id = call->call.callee->op.op->id;
  if (id != RT_OP_NN_MAX_POOL2D && id != RT_OP_NN_AVG_POOL2D && id != RT_OP_NN_GLOBAL_AVG_POOL2D &&
      id != RT_OP_NN_GLOBAL_MAX_POOL2D) {
    return false;
  }
  rt_plan_input_t in = {.value = NULL};
  rt_status_t st = rt_jit_tensor_type(call->call.args[0], &in.dtype, &in.rank, &in.shape);
  if (!st) st = rt_ir_plan_pool(call->call.callee->op.op, call->call.attrs, 1, &in, plan);
  if (st) {
    rt_status_free(st);
    return false;
  }
  if (plan->nsp != 2 || !plan->out_is_layout || plan->block) return false; /* NCHW only */
  for (int32_t k = 0; k < 4; ++k) {
    if (plan->pos[k] != k) return false; /* NCHW */
  }
  if (plan->kind == RT_PLAN_POOL_GLOBAL) {
    /* Only an input in memory (a param or constant of the kernel). */
    const rt_ir_expr_t *x = call->call.args[0];
    return (x->kind == RT_IR_VAR || x->kind == RT_IR_CONSTANT) &&
           plan->in_size[0] * plan->in_size[1] <= ((int64_t)1 << 40);
  }
  if (plan->kind != RT_PLAN_POOL_WINDOW) return false;
  if (!plan->is_max) {
    /* Averages whose every window counts kh*kw positions: all inside the
     * image, or inside the padded image when the padding counts. */
    for (int32_t s = 0; s < 2; ++s) {
      const int64_t pads = plan->pad_before[s] + plan->pad_after[s];
      const int64_t reach = (plan->out_size[s] - 1) * plan->strides[s] + plan->pool_size[s];
      if (plan->count_include_pad ? reach > plan->in_size[s] + pads : pads != 0 || reach > plan->in_size[s]) {
        return false;
      }
    }
  }
  if (plan->dilation[0] != 1 || plan->dilation[1] != 1) return false;
  if (plan->strides[0] < 1 || plan->strides[1] < 1 || plan->strides[1] > 2) return false;
  if (plan->pool_size[0] < 1 || plan->pool_size[1] < 1 ||
      plan->pool_size[0] * plan->pool_size[1] > POOL_MAX_TAPS) {
    return false;
  }
  if (plan->pad_before[0] < 0 || plan->pad_before[1] < 0 || plan->pad_before[0] > 64 ||
      plan->pad_before[1] > 64) {
    return false;
  }
  /* Planes of workspace far from overflow (larger ones lower generically). */
  return plan->in_size[0] <= (1 << 14) && plan->in_size[1] <= (1 << 14) &&
         plan->out_size[0] >= 1 && plan->out_size[1] >= 1;
}

/* The phase images' geometry: hp rows of wq columns per phase. Columns
 * cover every vector a row's outputs load ((ow rounded up to vectors) +
 * the taps' column reach) and every column the copy stores (the input
 * row rounded up to whole loads, shifted by pl). */
typedef struct pool_geom_t {
  int64_t n, c, h, w, oh, ow, kh, kw, sh, sw, pt, pl;
  int64_t hp, wq;
  int32_t vw;
  bool is_max; /* else an average over kh*kw positions (padding 0) */
} pool_geom_t;

static void pool_geom(const rt_plan_pool_t *pl, int32_t vw, pool_geom_t *g) {
  memset(g, 0, sizeof *g);
  g->n = pl->out_shape[0];
  g->c = pl->out_shape[1];
  g->h = pl->in_size[0];
  g->w = pl->in_size[1];
  g->oh = pl->out_size[0];
  g->ow = pl->out_size[1];
  g->kh = pl->pool_size[0];
  g->kw = pl->pool_size[1];
  g->sh = pl->strides[0];
  g->sw = pl->strides[1];
  g->pt = pl->pad_before[0];
  g->pl = pl->pad_before[1];
  g->vw = vw;
  g->is_max = pl->is_max;
  const int64_t rows_read = (g->oh - 1) * g->sh + g->kh;
  g->hp = g->pt + g->h > rows_read ? g->pt + g->h : rows_read;
  const int64_t span = g->sw * vw;
  const int64_t reach = (g->ow + vw - 1) / vw * vw + (g->kw - 1) / g->sw;
  const int64_t stored = (g->pl + (g->w + span - 1) / span * span + g->sw - 1) / g->sw + 1;
  g->wq = reach > stored ? reach : stored;
}

/* What the phase images hold outside the image: -inf for a maximum, 0
 * for a sum. */
static LLVMValueRef pad_value(rt_jit_lower_t *L, bool is_max, int32_t vw) {
  return is_max ? rt_jit_tpl_splat(L, rt_jit_const_lowest(L, (rt_dtype_t){kDLFloat, 32, 1}), vw)
                : LLVMConstNull(rt_jit_tpl_vec(L, vw));
}

/* The plane (n, c) of an input computed by fused producers: element by
 * element through the input's element expression. */
static rt_status_t copy_elem(rt_jit_lower_t *L, const pool_geom_t *g, const rt_ir_expr_t *x, LLVMValueRef n,
                             LLVMValueRef c, LLVMValueRef xp) {
  LLVMBuilderRef B = L->b;
  rt_jit_loop_t li, lj;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->h), 0, NULL, &li);
  LLVMValueRef row = LLVMBuildMul(B, LLVMBuildAdd(B, li.iv, rt_jit_i64(L, g->pt), ""), rt_jit_i64(L, g->wq), "");
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->w), 0, NULL, &lj);
  LLVMValueRef idx[4] = {g->n == 1 ? rt_jit_i64(L, 0) : n, c, li.iv, lj.iv};
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, x, idx, &v));
  LLVMValueRef pc = LLVMBuildAdd(B, lj.iv, rt_jit_i64(L, g->pl), "");
  LLVMValueRef px = LLVMBuildURem(B, pc, rt_jit_i64(L, g->sw), "");
  LLVMValueRef col = LLVMBuildUDiv(B, pc, rt_jit_i64(L, g->sw), "");
  LLVMValueRef off = LLVMBuildAdd(B, LLVMBuildAdd(B, LLVMBuildMul(B, px, rt_jit_i64(L, g->hp * g->wq), ""), row, ""), col, "");
  rt_jit_tpl_storef(L, v, xp, off);
  rt_jit_loop_end(L, &lj, NULL);
  rt_jit_loop_end(L, &li, NULL);
  return RT_OK;
}

/* Combines tap x into *acc (NULL: the first tap). */
static void pool_combine(rt_jit_lower_t *L, const pool_geom_t *g, LLVMValueRef *acc, LLVMValueRef x, bool exact) {
  LLVMBuilderRef B = L->b;
  if (!*acc) {
    *acc = x;
  } else if (!g->is_max) {
    *acc = rt_jit_fast(LLVMBuildFAdd(B, *acc, x, ""));
  } else if (exact) {
    *acc = rt_jit_intrinsic(L, "llvm.maximum", *acc, x, NULL);
  } else {
    *acc = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOGT, x, *acc, ""), x, *acc, "");
  }
}

/* The window's result acc (for an average, the sum: divided here) stored
 * at dst + off, masked to `last` lanes when last < vw. */
static void pool_store(rt_jit_lower_t *L, const pool_geom_t *g, LLVMValueRef acc, LLVMValueRef dst, LLVMValueRef off,
                       int64_t last) {
  const int32_t vw = g->vw;
  if (!g->is_max) {
    acc = LLVMBuildFDiv(L->b, acc, rt_jit_tpl_splat(L, LLVMConstReal(L->f32, (double)(g->kh * g->kw)), vw), "");
  }
  if (last < vw) {
    rt_jit_tpl_masked_store(L, acc, dst, off, rt_jit_tpl_lanes_mask(L, last, vw), vw);
  } else {
    rt_jit_tpl_storev(L, acc, dst, off);
  }
}

/* nv output vectors of row oh from column col0 (i64 value) from the
 * phase images xp: the maximum (llvm.maximum) or sum over the taps,
 * stored at dst + oh*ow + col0 (the last one masked to `last` lanes). */
static void pool_vectors(rt_jit_lower_t *L, const pool_geom_t *g, LLVMValueRef xp, LLVMValueRef dst, LLVMValueRef oh,
                         LLVMValueRef col0, int32_t nv, int64_t last) {
  LLVMBuilderRef B = L->b;
  const int32_t vw = g->vw;
  LLVMValueRef acc[POOL_GROUP] = {NULL, NULL, NULL, NULL};
  LLVMValueRef row0 = LLVMBuildAdd(B, LLVMBuildMul(B, LLVMBuildMul(B, oh, rt_jit_i64(L, g->sh), ""), rt_jit_i64(L, g->wq), ""), col0, "");
  for (int64_t kh = 0; kh < g->kh; ++kh) {
    for (int64_t kw = 0; kw < g->kw; ++kw) {
      const int64_t off = (kw % g->sw) * g->hp * g->wq + kh * g->wq + kw / g->sw;
      LLVMValueRef base = LLVMBuildAdd(B, row0, rt_jit_i64(L, off), "");
      for (int32_t v = 0; v < nv; ++v) {
        LLVMValueRef x = rt_jit_tpl_loadv(L, xp, LLVMBuildAdd(B, base, rt_jit_i64(L, (int64_t)v * vw), ""), vw);
        pool_combine(L, g, &acc[v], x, true);
      }
    }
  }
  LLVMValueRef o = LLVMBuildAdd(B, LLVMBuildMul(B, oh, rt_jit_i64(L, g->ow), ""), col0, "");
  for (int32_t v = 0; v < nv; ++v) {
    pool_store(L, g, acc[v], dst, LLVMBuildAdd(B, o, rt_jit_i64(L, (int64_t)v * vw), ""), v == nv - 1 ? last : vw);
  }
}

/* Every output row of one plane into dst (oh*ow floats, rows compact). */
static void pool_plane(rt_jit_lower_t *L, const pool_geom_t *g, LLVMValueRef xp, LLVMValueRef dst) {
  const int64_t nfull = g->ow / g->vw, tail = g->ow % g->vw;
  const int64_t ngroup = nfull / POOL_GROUP, rest = nfull % POOL_GROUP;
  rt_jit_loop_t lr, lg;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->oh), 0, NULL, &lr);
  if (ngroup > 0) {
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, ngroup), 0, NULL, &lg);
    LLVMValueRef col = LLVMBuildMul(L->b, lg.iv, rt_jit_i64(L, (int64_t)POOL_GROUP * g->vw), "");
    pool_vectors(L, g, xp, dst, lr.iv, col, POOL_GROUP, g->vw);
    rt_jit_loop_end(L, &lg, NULL);
  }
  /* The vectors left: the whole ones, then the partial last one, together. */
  const int32_t nv = (int32_t)(rest + (tail > 0));
  if (nv > 0) {
    pool_vectors(L, g, xp, dst, lr.iv, rt_jit_i64(L, ngroup * POOL_GROUP * g->vw), nv, tail > 0 ? tail : g->vw);
  }
  rt_jit_loop_end(L, &lr, NULL);
}

/* ---- window pools read in place ---------------------------------------------- */

/* Window rows carried from one output row to the next at most (kh - sh:
 * 1 for the 3x3/2 pools); windows that share more recompute them. */
#define POOL_MAX_CARRIED 6

/* vw elements of input row `row` from element offset `off` (i64: col0 +
 * e, where col0 is output vector jc's first column times sw minus pl):
 * with jc < 0 (an interior vector: every lane inside the row) one load,
 * else the lanes outside [0, W) are the pad value (a masked load, which
 * touches no memory in those lanes). */
static LLVMValueRef pool_load(rt_jit_lower_t *L, const pool_geom_t *g, LLVMValueRef row, LLVMValueRef off,
                              int64_t jc, int64_t e) {
  const int32_t vw = g->vw;
  if (jc < 0) return rt_jit_tpl_loadv(L, row, off, vw);
  const int64_t first = jc * vw * g->sw - g->pl + e;
  LLVMValueRef bits[RT_JIT_TPL_MAX_VW];
  int64_t in = 0;
  for (int32_t l = 0; l < vw; ++l) {
    const bool ok = first + l >= 0 && first + l < g->w;
    in += ok;
    bits[l] = LLVMConstInt(L->i1, ok, 0);
  }
  LLVMValueRef pad = pad_value(L, g->is_max, vw);
  if (in == vw) return rt_jit_tpl_loadv(L, row, off, vw);
  if (in == 0) return pad;
  return rt_jit_tpl_masked_load(L, row, off, LLVMConstVector(bits, (unsigned)vw), pad, vw);
}

/* The taps of one input row for output vector j (columns [j*vw, j*vw +
 * vw)): tap kx of output column c is element c*sw + kx - pl. At stride
 * 2 a pair of loads from element 2*j*vw + kx - pl split into even and
 * odd lanes gives taps kx and kx + 1. */
static LLVMValueRef pool_hrow(rt_jit_lower_t *L, const pool_geom_t *g, LLVMValueRef row, LLVMValueRef col0,
                              int64_t jc, bool exact, LLVMValueRef *nan) {
  LLVMBuilderRef B = L->b;
  const int32_t vw = g->vw;
  LLVMValueRef acc = NULL;
  for (int64_t kx = 0; kx < g->kw; kx += g->sw) {
    LLVMValueRef off = LLVMBuildAdd(B, col0, rt_jit_i64(L, kx), "");
    LLVMValueRef a = pool_load(L, g, row, off, jc, kx);
    if (g->sw == 1) {
      if (nan) *nan = LLVMBuildOr(B, *nan, LLVMBuildFCmp(B, LLVMRealUNO, a, a, ""), "");
      pool_combine(L, g, &acc, a, exact);
      continue;
    }
    LLVMValueRef b = pool_load(L, g, row, LLVMBuildAdd(B, off, rt_jit_i64(L, vw), ""), jc, kx + vw);
    if (nan) *nan = LLVMBuildOr(B, *nan, LLVMBuildFCmp(B, LLVMRealUNO, a, b, ""), "");
    pool_combine(L, g, &acc, rt_jit_tpl_deinterleave(L, a, b, vw, false), exact);
    if (kx + 1 < g->kw) pool_combine(L, g, &acc, rt_jit_tpl_deinterleave(L, a, b, vw, true), exact);
  }
  return acc;
}

/* Row i of output row oh's window (input row oh*sh - pt + i) through
 * pool_hrow; a row outside the image is the pad value (its taps read the
 * nearest row inside, in bounds). */
static LLVMValueRef pool_vrow(rt_jit_lower_t *L, const pool_geom_t *g, LLVMValueRef src, LLVMValueRef oh, int64_t i,
                              LLVMValueRef col0, int64_t jc, bool exact, LLVMValueRef *nan) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef r = LLVMBuildAdd(B, LLVMBuildMul(B, oh, rt_jit_i64(L, g->sh), ""), rt_jit_i64(L, i - g->pt), "");
  LLVMValueRef rc = rt_jit_min(L, rt_jit_max(L, r, rt_jit_i64(L, 0)), rt_jit_i64(L, g->h - 1));
  LLVMValueRef row = rt_jit_tpl_gep(L, src, LLVMBuildMul(B, rc, rt_jit_i64(L, g->w), ""));
  LLVMValueRef h = pool_hrow(L, g, row, col0, jc, exact, nan);
  return LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, r, rc, ""), h, pad_value(L, g->is_max, g->vw), "");
}

/* Output vector j (the constant jc, or with jc < 0 the value j) of every
 * output row of the plane at src into dst (oh*ow floats), its last one
 * masked to `last` lanes. The rows of a window that the next output row
 * shares (the last kh - sh) are carried to it, so each input row is read
 * once per vector. Returns *nan or'ed with the lanes that read a NaN. */
static LLVMValueRef pool_column(rt_jit_lower_t *L, const pool_geom_t *g, LLVMValueRef src, LLVMValueRef dst,
                                LLVMValueRef j, int64_t jc, int64_t last, bool exact, LLVMValueRef nan) {
  LLVMBuilderRef B = L->b;
  const int32_t vw = g->vw;
  const int64_t nc = g->kh > g->sh && g->kh - g->sh <= POOL_MAX_CARRIED ? g->kh - g->sh : 0;
  LLVMValueRef col0 = LLVMBuildSub(B, LLVMBuildMul(B, j, rt_jit_i64(L, (int64_t)vw * g->sw), ""), rt_jit_i64(L, g->pl), "");
  LLVMValueRef *pn = nan ? &nan : NULL;
  /* Output row 0's first nc rows, carried in. */
  LLVMValueRef init[POOL_MAX_CARRIED + 1];
  for (int64_t i = 0; i < nc; ++i) init[i] = pool_vrow(L, g, src, rt_jit_i64(L, 0), i, col0, jc, exact, pn);
  const int32_t ncarry = (int32_t)nc + (nan ? 1 : 0);
  if (nan) init[nc] = nan;
  rt_jit_loop_t lr;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->oh), ncarry, init, &lr);
  LLVMValueRef rows[POOL_MAX_TAPS];
  LLVMValueRef n2 = nan ? lr.carry[nc] : NULL;
  for (int64_t i = 0; i < g->kh; ++i) {
    rows[i] = i < nc ? lr.carry[i] : pool_vrow(L, g, src, lr.iv, i, col0, jc, exact, nan ? &n2 : NULL);
  }
  LLVMValueRef acc = NULL;
  for (int64_t i = 0; i < g->kh; ++i) pool_combine(L, g, &acc, rows[i], exact);
  LLVMValueRef off = LLVMBuildAdd(B, LLVMBuildMul(B, lr.iv, rt_jit_i64(L, g->ow), ""), LLVMBuildMul(B, j, rt_jit_i64(L, vw), ""), "");
  pool_store(L, g, acc, dst, off, last);
  LLVMValueRef next[POOL_MAX_CARRIED + 1];
  for (int64_t i = 0; i < nc; ++i) next[i] = rows[i + g->sh];
  if (nan) next[nc] = n2;
  rt_jit_loop_end(L, &lr, next);
  return nan ? lr.carry[nc] : NULL;
}

/* One plane (input at src, output at dst) read in place, by output
 * vectors: those whose taps lie inside the row in one loop, the others
 * (the first, where the padding is read; the last, past W or partial)
 * each with its constant lane masks. With nan (a maximum's fast pass)
 * returns whether a tap read a NaN (an i1). */
static LLVMValueRef pool_direct_plane(rt_jit_lower_t *L, const pool_geom_t *g, LLVMValueRef src, LLVMValueRef dst,
                                      bool exact, bool track_nan) {
  const int32_t vw = g->vw;
  const int64_t nvec = (g->ow + vw - 1) / vw;
  /* The largest element of a row that vector j reads, past its first. */
  const int64_t reach = g->sw == 1 ? vw - 1 + g->kw - 1 : (g->kw - 1) / 2 * 2 + 2 * (int64_t)vw - 1;
  int64_t jlo = 0, jhi = g->ow / vw;
  while (jlo < nvec && jlo * vw * g->sw - g->pl < 0) ++jlo;
  while (jhi > jlo && (jhi - 1) * vw * g->sw - g->pl + reach >= g->w) --jhi;
  if (jhi < jlo) jhi = jlo;
  LLVMValueRef nan = track_nan ? LLVMConstNull(LLVMVectorType(L->i1, (unsigned)vw)) : NULL;
  for (int64_t j = 0; j < nvec; ++j) {
    if (j == jlo && jhi > jlo) {
      rt_jit_loop_t lj;
      rt_jit_loop_begin(L, rt_jit_i64(L, jlo), rt_jit_i64(L, jhi), track_nan ? 1 : 0, &nan, &lj);
      LLVMValueRef n2 = pool_column(L, g, src, dst, lj.iv, -1, vw, exact, track_nan ? lj.carry[0] : NULL);
      rt_jit_loop_end(L, &lj, &n2);
      if (track_nan) nan = lj.carry[0];
      j = jhi - 1;
      continue;
    }
    const int64_t last = g->ow - j * vw < vw ? g->ow - j * vw : vw;
    nan = pool_column(L, g, src, dst, rt_jit_i64(L, j), j, last, exact, nan);
  }
  return track_nan ? rt_jit_intrinsic(L, "llvm.vector.reduce.or", nan, NULL, NULL) : NULL;
}

/* pool2d.global: planes [lo, hi) of an input in memory. */
static rt_status_t pool_global(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_plan_pool_t *plan,
                               const rt_ir_expr_t *out, LLVMValueRef data, LLVMValueRef task, LLVMValueRef ntasks) {
  LLVMBuilderRef B = L->b;
  const rt_ir_expr_t *a = p->anchor;
  const int32_t vw = p->vw;
  const int64_t c = plan->out_shape[1], hw = plan->in_size[0] * plan->in_size[1];
  const int64_t nvec = hw / vw, ngroup = nvec / POOL_GROUP, tail = hw % vw;
  const bool is_max = plan->is_max;
  rt_jit_tpl_wide(L, vw);
  LLVMValueRef init = pad_value(L, is_max, vw);
  LLVMValueRef lo, hi;
  rt_jit_tpl_split(L, plan->out_shape[0] * c, task, ntasks, &lo, &hi);
  rt_jit_loop_t lp, lg;
  rt_jit_loop_begin(L, lo, hi, 0, NULL, &lp);
  LLVMValueRef src = rt_jit_tpl_gep(L, rt_jit_node(L, a->call.args[0])->data, LLVMBuildMul(B, lp.iv, rt_jit_i64(L, hw), ""));
  LLVMValueRef acc[POOL_GROUP] = {init, init, init, init};
  /* Combines v into accumulator *a. */
#define POOL_ACC(a_, v_)                                                                              \
  (*(a_) = is_max ? rt_jit_intrinsic(L, "llvm.maximum", *(a_), (v_), NULL)                           \
                  : rt_jit_fast(LLVMBuildFAdd(B, *(a_), (v_), "")))
  if (ngroup > 0) {
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, ngroup), POOL_GROUP, acc, &lg);
    LLVMValueRef next[POOL_GROUP];
    LLVMValueRef base = LLVMBuildMul(B, lg.iv, rt_jit_i64(L, (int64_t)POOL_GROUP * vw), "");
    for (int32_t v = 0; v < POOL_GROUP; ++v) {
      next[v] = lg.carry[v];
      POOL_ACC(&next[v], rt_jit_tpl_loadv(L, src, LLVMBuildAdd(B, base, rt_jit_i64(L, (int64_t)v * vw), ""), vw));
    }
    rt_jit_loop_end(L, &lg, next);
    for (int32_t v = 0; v < POOL_GROUP; ++v) acc[v] = lg.carry[v];
  }
  for (int64_t v = ngroup * POOL_GROUP; v < nvec; ++v) {
    POOL_ACC(&acc[v % POOL_GROUP], rt_jit_tpl_loadv(L, src, rt_jit_i64(L, v * vw), vw));
  }
  if (tail > 0) {
    POOL_ACC(&acc[nvec % POOL_GROUP], rt_jit_tpl_masked_load(L, src, rt_jit_i64(L, nvec * vw), rt_jit_tpl_lanes_mask(L, tail, vw), init, vw));
  }
  for (int32_t v = 1; v < POOL_GROUP; ++v) POOL_ACC(&acc[0], acc[v]);
#undef POOL_ACC
  LLVMValueRef r = LLVMBuildExtractElement(B, acc[0], rt_jit_i32(L, 0), "");
  for (int32_t i = 1; i < vw; ++i) {
    LLVMValueRef e = LLVMBuildExtractElement(B, acc[0], rt_jit_i32(L, i), "");
    r = is_max ? rt_jit_intrinsic(L, "llvm.maximum", r, e, NULL) : rt_jit_fast(LLVMBuildFAdd(B, r, e, ""));
  }
  if (!is_max) r = LLVMBuildFDiv(B, r, LLVMConstReal(L->f32, (double)hw), "");
  LLVMValueRef idx[4] = {LLVMBuildUDiv(B, lp.iv, rt_jit_i64(L, c), ""), LLVMBuildURem(B, lp.iv, rt_jit_i64(L, c), ""),
                         rt_jit_i64(L, 0), rt_jit_i64(L, 0)};
  RT_RETURN_IF_ERROR(rt_jit_tpl_epilogue(L, a, out, data, idx, r));
  rt_jit_loop_end(L, &lp, NULL);
  return RT_OK;
}

rt_status_t rt_jit_tpl_pool(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_ir_expr_t *out,
                            LLVMValueRef data, LLVMValueRef task, LLVMValueRef ntasks) {
  LLVMBuilderRef B = L->b;
  const rt_ir_expr_t *a = p->anchor, *x = a->call.args[0];
  rt_plan_pool_t plan;
  if (!rt_jit_tpl_pool_attrs(a, &plan)) {
    return RT_STATUS(INTERNAL, "%s", "pool attributes changed between planning and lowering");
  }
  if (plan.kind == RT_PLAN_POOL_GLOBAL) {
    if (!rt_jit_tpl_raw(L, x)) return RT_STATUS(INTERNAL, "%s", "pool2d.global planned for an input not in memory");
    return pool_global(L, p, &plan, out, data, task, ntasks);
  }
  pool_geom_t g;
  pool_geom(&plan, p->vw, &g);
  rt_jit_tpl_wide(L, g.vw);
  const int64_t plane_in = g.h * g.w, plane_out = g.oh * g.ow;
  const int64_t xfloats = g.sw * g.hp * g.wq + g.vw;
  const bool tail_ops = out != a;
  const bool direct = rt_jit_tpl_raw(L, x);
  LLVMValueRef lo, hi;
  rt_jit_tpl_split(L, g.n * g.c, task, ntasks, &lo, &hi);
  LLVMValueRef xp = direct ? NULL : rt_jit_tpl_ws_alloc(L, xfloats * 4);
  LLVMValueRef ob = tail_ops ? rt_jit_tpl_ws_alloc(L, (plane_out + g.vw) * 4) : NULL;
  LLVMValueRef have = xp ? LLVMBuildIsNotNull(B, xp, "") : LLVMConstInt(L->i1, 1, 0);
  if (ob) have = LLVMBuildAnd(B, have, LLVMBuildIsNotNull(B, ob, ""), "");
  rt_jit_if_t ok;
  rt_jit_if_begin(L, have, &ok);
  rt_jit_loop_t lf, lp, lr, lc;
  if (!direct) {
    /* -inf (0) everywhere once; the planes overwrite the same interior. */
    LLVMValueRef ninf = pad_value(L, g.is_max, g.vw);
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, xfloats / g.vw), 0, NULL, &lf);
    rt_jit_tpl_storev(L, ninf, xp, LLVMBuildMul(B, lf.iv, rt_jit_i64(L, g.vw), ""));
    rt_jit_loop_end(L, &lf, NULL);
  }
  rt_jit_loop_begin(L, lo, hi, 0, NULL, &lp);
  LLVMValueRef n = LLVMBuildUDiv(B, lp.iv, rt_jit_i64(L, g.c), "");
  LLVMValueRef c = LLVMBuildURem(B, lp.iv, rt_jit_i64(L, g.c), "");
  LLVMValueRef pdst = tail_ops ? ob : rt_jit_tpl_gep(L, data, LLVMBuildMul(B, lp.iv, rt_jit_i64(L, plane_out), ""));
  if (direct) {
    LLVMValueRef src = rt_jit_tpl_gep(L, rt_jit_node(L, x)->data, LLVMBuildMul(B, lp.iv, rt_jit_i64(L, plane_in), ""));
    if (g.is_max) {
      /* The one-instruction maximum, then, where a tap read a NaN, the
       * plane again with the one that propagates it. */
      rt_jit_if_t has_nan;
      rt_jit_if_begin(L, pool_direct_plane(L, &g, src, pdst, false, true), &has_nan);
      (void)pool_direct_plane(L, &g, src, pdst, true, false);
      rt_jit_if_else(L, &has_nan, NULL);
      (void)rt_jit_if_end(L, &has_nan, NULL);
    } else {
      (void)pool_direct_plane(L, &g, src, pdst, false, false);
    }
  } else {
    /* Through the phase images, with the maximum that propagates NaN. */
    RT_RETURN_IF_ERROR(copy_elem(L, &g, x, n, c, xp));
    pool_plane(L, &g, xp, pdst);
  }
  if (tail_ops) {
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g.oh), 0, NULL, &lr);
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g.ow), 0, NULL, &lc);
    LLVMValueRef v = rt_jit_tpl_loadf(L, ob, LLVMBuildAdd(B, LLVMBuildMul(B, lr.iv, rt_jit_i64(L, g.ow), ""), lc.iv, ""));
    LLVMValueRef idx[4] = {n, c, lr.iv, lc.iv};
    RT_RETURN_IF_ERROR(rt_jit_tpl_epilogue(L, a, out, data, idx, v));
    rt_jit_loop_end(L, &lc, NULL);
    rt_jit_loop_end(L, &lr, NULL);
  }
  rt_jit_loop_end(L, &lp, NULL);
  rt_jit_if_else(L, &ok, NULL);
  rt_jit_flag_error(L, LLVMConstInt(L->i1, 1, 0), "pool2d.max: out of workspace memory");
  (void)rt_jit_if_end(L, &ok, NULL);
  if (ob) rt_jit_tpl_ws_free(L, ob);
  if (xp) rt_jit_tpl_ws_free(L, xp);
  return RT_OK;
}
