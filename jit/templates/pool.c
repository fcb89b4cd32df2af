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
 * whole (image, channel) planes. Per plane the input is copied once into
 * sw phase images: padded element (r, pc) (input (r - pt, pc - pl)) goes
 * to row r, column pc / sw of phase pc % sw, rows wq apart; at stride 2 a
 * pair of vectors of an input row is split into its even and odd elements
 * by two shuffles. Everything else in the phase images -- the padding, and
 * what lies past the image where ceil_mode's last windows reach -- holds
 * -inf, written once per task (a plane's copy writes the same interior
 * positions, and the lanes of a row's last, masked load past W are -inf
 * too). The maximum over -inf padding is the reference's maximum over the
 * positions inside the image (jit/ops/nn.c starts at -inf and skips the
 * others), NaN propagating the same way (llvm.maximum).
 * Output row oh, columns [j*vw, j*vw + vw) are then the maximum over
 * the kh*kw taps of one contiguous vector load each (tap (kh, kw): phase
 * kw % sw, row oh*sh + kh, column j*vw + kw/sw), four vectors of a row at
 * a time (four independent chains of maximums), the row's last vector a
 * masked store. The maximum is llvm.maximum, which propagates NaN, only
 * for a plane that holds one (the copy of an input in memory tests each
 * pair of vectors it loads; an input computed by fused producers always
 * takes it): x86 lowers it to six instructions, where the other planes
 * take one vmaxps, (x > acc) ? x : acc (squeezenet1_1's 64@111x111 3x3/2
 * pool 211 -> 128 us alone, one thread, Zen 5). Without fused tail ops the rows are stored straight into
 * the output plane; with them, into a plane block of workspace that one
 * flat loop per row hands to the epilogue (templates.h), which O3
 * vectorizes.
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

/* Input elements [i0, i0 + sw*vw) of row `src` (i0 a multiple of sw*vw;
 * `tail`: lanes past W load -inf) to the phase rows at `dst` (row r of
 * phase 0; phase px is px*hp*wq further). For a maximum, *nan (a vw x i1
 * vector) gains the lanes where an element loaded is NaN. */
static void copy_chunk(rt_jit_lower_t *L, const pool_geom_t *g, LLVMValueRef src, LLVMValueRef dst,
                       LLVMValueRef i0, bool tail, LLVMValueRef *nan) {
  LLVMBuilderRef B = L->b;
  const int32_t vw = g->vw;
  LLVMValueRef ninf = pad_value(L, g->is_max, vw);
  const int64_t tail_start = g->w / (g->sw * vw) * (g->sw * vw);
  LLVMValueRef v[2] = {NULL, NULL};
  for (int64_t e = 0; e < g->sw; ++e) {
    LLVMValueRef off = LLVMBuildAdd(B, i0, rt_jit_i64(L, e * vw), "");
    if (!tail) {
      v[e] = rt_jit_tpl_loadv(L, src, off, vw);
    } else {
      /* i0 is the row's last chunk: tail_start. */
      const int64_t k = g->w - tail_start - e * vw;
      v[e] = k >= vw ? rt_jit_tpl_loadv(L, src, off, vw)
                     : k <= 0 ? ninf : rt_jit_tpl_masked_load(L, src, off, rt_jit_tpl_lanes_mask(L, k, vw), ninf, vw);
    }
  }
  if (g->is_max) *nan = LLVMBuildOr(B, *nan, LLVMBuildFCmp(B, LLVMRealUNO, v[0], v[g->sw - 1], ""), "");
  if (g->sw == 1) {
    rt_jit_tpl_storev(L, v[0], dst, LLVMBuildAdd(B, i0, rt_jit_i64(L, g->pl), ""));
    return;
  }
  /* Element i0 + 2m + e is padded column pc = i0 + pl + 2m + e: phase
   * (pl + e) % 2, column i0/2 + m + (pl + e)/2. */
  LLVMValueRef half = LLVMBuildUDiv(B, i0, rt_jit_i64(L, 2), "");
  for (int64_t e = 0; e < 2; ++e) {
    LLVMValueRef s = rt_jit_tpl_deinterleave(L, v[0], v[1], vw, e == 1);
    const int64_t px = (g->pl + e) % 2, dc = (g->pl + e) / 2;
    rt_jit_tpl_storev(L, s, dst, LLVMBuildAdd(B, half, rt_jit_i64(L, px * g->hp * g->wq + dc), ""));
  }
}

/* The plane (n, c) of an input in memory into the phase images xp;
 * returns whether an element of it is NaN (an i1; false for a sum). */
static LLVMValueRef copy_raw(rt_jit_lower_t *L, const pool_geom_t *g, LLVMValueRef src0, LLVMValueRef xp) {
  LLVMBuilderRef B = L->b;
  const int64_t span = g->sw * g->vw, nwhole = g->w / span;
  LLVMValueRef none = LLVMConstNull(LLVMVectorType(L->i1, (unsigned)g->vw));
  rt_jit_loop_t li, lk;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->h), 1, &none, &li);
  LLVMValueRef nan = li.carry[0];
  LLVMValueRef src = rt_jit_tpl_gep(L, src0, LLVMBuildMul(B, li.iv, rt_jit_i64(L, g->w), ""));
  LLVMValueRef dst =
      rt_jit_tpl_gep(L, xp, LLVMBuildMul(B, LLVMBuildAdd(B, li.iv, rt_jit_i64(L, g->pt), ""), rt_jit_i64(L, g->wq), ""));
  if (nwhole > 0) {
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, nwhole), 1, &nan, &lk);
    LLVMValueRef next = lk.carry[0];
    copy_chunk(L, g, src, dst, LLVMBuildMul(B, lk.iv, rt_jit_i64(L, span), ""), false, &next);
    rt_jit_loop_end(L, &lk, &next);
    nan = lk.carry[0];
  }
  if (g->w % span) copy_chunk(L, g, src, dst, rt_jit_i64(L, nwhole * span), true, &nan);
  rt_jit_loop_end(L, &li, &nan);
  return rt_jit_intrinsic(L, "llvm.vector.reduce.or", li.carry[0], NULL, NULL);
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

/* nv output vectors of row oh from column col0 (i64 value): the maximum
 * over the taps, stored at dst + oh*ow + col0 (the last one masked to
 * `last` lanes when last < vw). The maximum is llvm.maximum where the
 * plane may hold a NaN (`exact`: six instructions on x86), else one
 * vmaxps: (x > acc) ? x : acc. */
static void pool_vectors(rt_jit_lower_t *L, const pool_geom_t *g, LLVMValueRef xp, LLVMValueRef dst, LLVMValueRef oh,
                         LLVMValueRef col0, int32_t nv, int64_t last, bool exact) {
  LLVMBuilderRef B = L->b;
  const int32_t vw = g->vw;
  LLVMValueRef acc[POOL_GROUP];
  for (int32_t v = 0; v < nv; ++v) acc[v] = pad_value(L, g->is_max, vw);
  LLVMValueRef row0 = LLVMBuildAdd(B, LLVMBuildMul(B, LLVMBuildMul(B, oh, rt_jit_i64(L, g->sh), ""), rt_jit_i64(L, g->wq), ""), col0, "");
  for (int64_t kh = 0; kh < g->kh; ++kh) {
    for (int64_t kw = 0; kw < g->kw; ++kw) {
      const int64_t off = (kw % g->sw) * g->hp * g->wq + kh * g->wq + kw / g->sw;
      LLVMValueRef base = LLVMBuildAdd(B, row0, rt_jit_i64(L, off), "");
      for (int32_t v = 0; v < nv; ++v) {
        LLVMValueRef x = rt_jit_tpl_loadv(L, xp, LLVMBuildAdd(B, base, rt_jit_i64(L, (int64_t)v * vw), ""), vw);
        if (!g->is_max) {
          acc[v] = rt_jit_fast(LLVMBuildFAdd(B, acc[v], x, ""));
        } else if (exact) {
          acc[v] = rt_jit_intrinsic(L, "llvm.maximum", acc[v], x, NULL);
        } else {
          acc[v] = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOGT, x, acc[v], ""), x, acc[v], "");
        }
      }
    }
  }
  if (!g->is_max) {
    LLVMValueRef cnt = rt_jit_tpl_splat(L, LLVMConstReal(L->f32, (double)(g->kh * g->kw)), vw);
    for (int32_t v = 0; v < nv; ++v) acc[v] = LLVMBuildFDiv(B, acc[v], cnt, "");
  }
  LLVMValueRef o = LLVMBuildAdd(B, LLVMBuildMul(B, oh, rt_jit_i64(L, g->ow), ""), col0, "");
  for (int32_t v = 0; v < nv; ++v) {
    LLVMValueRef off = LLVMBuildAdd(B, o, rt_jit_i64(L, (int64_t)v * vw), "");
    if (v == nv - 1 && last < vw) {
      rt_jit_tpl_masked_store(L, acc[v], dst, off, rt_jit_tpl_lanes_mask(L, last, vw), vw);
    } else {
      rt_jit_tpl_storev(L, acc[v], dst, off);
    }
  }
}

/* Every output row of one plane into dst (oh*ow floats, rows compact). */
static void pool_plane(rt_jit_lower_t *L, const pool_geom_t *g, LLVMValueRef xp, LLVMValueRef dst, bool exact) {
  const int64_t nfull = g->ow / g->vw, tail = g->ow % g->vw;
  const int64_t ngroup = nfull / POOL_GROUP, rest = nfull % POOL_GROUP;
  rt_jit_loop_t lr, lg;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->oh), 0, NULL, &lr);
  if (ngroup > 0) {
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, ngroup), 0, NULL, &lg);
    LLVMValueRef col = LLVMBuildMul(L->b, lg.iv, rt_jit_i64(L, (int64_t)POOL_GROUP * g->vw), "");
    pool_vectors(L, g, xp, dst, lr.iv, col, POOL_GROUP, g->vw, exact);
    rt_jit_loop_end(L, &lg, NULL);
  }
  /* The vectors left: the whole ones, then the partial last one, together. */
  const int32_t nv = (int32_t)(rest + (tail > 0));
  if (nv > 0) {
    pool_vectors(L, g, xp, dst, lr.iv, rt_jit_i64(L, ngroup * POOL_GROUP * g->vw), nv, tail > 0 ? tail : g->vw,
                 exact);
  }
  rt_jit_loop_end(L, &lr, NULL);
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
  LLVMValueRef lo, hi;
  rt_jit_tpl_split(L, g.n * g.c, task, ntasks, &lo, &hi);
  LLVMValueRef xp = rt_jit_tpl_ws_alloc(L, xfloats * 4);
  LLVMValueRef ob = tail_ops ? rt_jit_tpl_ws_alloc(L, (plane_out + g.vw) * 4) : NULL;
  LLVMValueRef have = LLVMBuildIsNotNull(B, xp, "");
  if (ob) have = LLVMBuildAnd(B, have, LLVMBuildIsNotNull(B, ob, ""), "");
  rt_jit_if_t ok;
  rt_jit_if_begin(L, have, &ok);
  /* -inf (0) everywhere once; the planes overwrite the same interior. */
  LLVMValueRef ninf = pad_value(L, g.is_max, g.vw);
  rt_jit_loop_t lf, lp, lr, lc;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, xfloats / g.vw), 0, NULL, &lf);
  rt_jit_tpl_storev(L, ninf, xp, LLVMBuildMul(B, lf.iv, rt_jit_i64(L, g.vw), ""));
  rt_jit_loop_end(L, &lf, NULL);
  rt_jit_loop_begin(L, lo, hi, 0, NULL, &lp);
  LLVMValueRef n = LLVMBuildUDiv(B, lp.iv, rt_jit_i64(L, g.c), "");
  LLVMValueRef c = LLVMBuildURem(B, lp.iv, rt_jit_i64(L, g.c), "");
  /* Whether the plane may hold a NaN: then the maximum that propagates it
   * (the reference's), else the one-instruction one. */
  LLVMValueRef nan = LLVMConstInt(L->i1, 1, 0);
  if (rt_jit_tpl_raw(L, x)) {
    nan = copy_raw(L, &g, rt_jit_tpl_gep(L, rt_jit_node(L, x)->data, LLVMBuildMul(B, lp.iv, rt_jit_i64(L, plane_in), "")), xp);
  } else {
    RT_RETURN_IF_ERROR(copy_elem(L, &g, x, n, c, xp));
  }
  LLVMValueRef pdst = tail_ops ? ob : rt_jit_tpl_gep(L, data, LLVMBuildMul(B, lp.iv, rt_jit_i64(L, plane_out), ""));
  if (g.is_max && !LLVMIsConstant(nan)) {
    rt_jit_if_t has_nan;
    rt_jit_if_begin(L, nan, &has_nan);
    pool_plane(L, &g, xp, pdst, true);
    rt_jit_if_else(L, &has_nan, NULL);
    pool_plane(L, &g, xp, pdst, false);
    (void)rt_jit_if_end(L, &has_nan, NULL);
  } else {
    pool_plane(L, &g, xp, pdst, true);
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
  rt_jit_tpl_ws_free(L, xp);
  return RT_OK;
}
