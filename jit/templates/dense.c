/* The GEMM template: nn.dense (data (M, K) x weight (N, K)^T), nn.matmul
 * (rank 2, optional transposes) and nn.batch_matmul (rank 3, batch dims
 * broadcast when 1), and the GEMM core the im2col convolution reuses.
 *
 * Algorithm (rt_jit_tpl_gemm_core), per task and batch:
 *   for each N panel p of vw*nv columns owned by the task (vw = 8 or 16
 *   lanes, templates.h):
 *     pack B[:, p] into a K x vw*nv workspace panel (zero past N), so the
 *       micro-kernel reads B with unit stride whatever its layout;
 *     for each mr-row tile of the task's rows: C tile = A rows x panel
 *       (rt_jit_tpl_micro: broadcast A(i, k), fma into mr*nv <vw x float>
 *       accumulators), stored into a workspace C block; the last partial
 *       row tile runs the same kernel with fewer rows;
 *   then the epilogue over the task's (rows x columns) region: the anchor
 *   value from the C block, the fused tail ops, the store.
 * The whole K is one panel: for K = 1024 a panel is 64 KB (L2), A's
 * rows stream from L2/L3 and are reused across the vw*nv columns; at these
 * sizes that keeps the kernel FMA-bound without K blocking.
 *
 * Invariants: the C block has a padded row pitch of ceil(N/vw*nv)*vw*nv
 * floats, so tiles never write outside it; padded columns hold zeros from
 * the packed panel and are never read by the epilogue. Tasks own disjoint
 * (batch, rows, columns) regions, so no synchronisation is needed. */
#include <stdio.h>
#include <string.h>

#include "jit/ops/ops_impl.h"
#include "jit/templates/templates.h"

/* ---- the core ---------------------------------------------------------------- */

static LLVMValueRef imin(rt_jit_lower_t *L, LLVMValueRef a, int64_t b) {
  return rt_jit_min(L, a, rt_jit_i64(L, b));
}

static rt_status_t pack_panel(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                              LLVMValueRef n0, LLVMValueRef wsb) {
  const int64_t nw = (int64_t)g->vw * g->nv;
  LLVMBuilderRef B = L->b;
  rt_jit_loop_t lo, li;
  LLVMValueRef c, k;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->k_inner ? nw : g->k), 0, NULL, &lo);
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->k_inner ? g->k : nw), 0, NULL, &li);
  c = g->k_inner ? lo.iv : li.iv;
  k = g->k_inner ? li.iv : lo.iv;
  LLVMValueRef n = LLVMBuildAdd(B, n0, c, "");
  LLVMValueRef valid = LLVMBuildICmp(B, LLVMIntSLT, n, rt_jit_i64(L, g->n), "");
  LLVMValueRef nn = LLVMBuildSelect(B, valid, n, rt_jit_i64(L, g->n - 1), "");
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(g->b_elem(L, g, b, k, nn, &v));
  v = LLVMBuildSelect(B, valid, v, LLVMConstReal(L->f32, 0), "");
  rt_jit_tpl_storef(L, v, wsb, LLVMBuildAdd(B, LLVMBuildMul(B, k, rt_jit_i64(L, nw), ""), c, ""));
  rt_jit_loop_end(L, &li, NULL);
  rt_jit_loop_end(L, &lo, NULL);
  return RT_OK;
}

static void tiles(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, int32_t mr, LLVMValueRef t_lo,
                  LLVMValueRef t_hi, LLVMValueRef abase, LLVMValueRef wsb, LLVMValueRef cblk,
                  int64_t ldc) {
  LLVMBuilderRef B = L->b;
  rt_jit_loop_t lt;
  rt_jit_loop_begin(L, t_lo, t_hi, 0, NULL, &lt);
  LLVMValueRef i0 = LLVMBuildMul(B, lt.iv, rt_jit_i64(L, g->mr), "");
  LLVMValueRef arow[RT_JIT_TPL_MAX_MR];
  for (int32_t r = 0; r < mr; ++r) {
    LLVMValueRef row = LLVMBuildAdd(B, i0, rt_jit_i64(L, r), "");
    arow[r] = rt_jit_tpl_gep(L, abase, LLVMBuildMul(B, row, rt_jit_i64(L, g->k), ""));
  }
  LLVMValueRef c = rt_jit_tpl_gep(L, cblk, LLVMBuildMul(B, i0, rt_jit_i64(L, ldc), ""));
  rt_jit_tpl_micro(L, mr, g->nv, g->vw, g->k, arow, wsb, NULL, (int64_t)g->vw * g->nv, c, ldc);
  rt_jit_loop_end(L, &lt, NULL);
}

rt_status_t rt_jit_tpl_gemm_core(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef task,
                                 LLVMValueRef ntasks) {
  LLVMBuilderRef B = L->b;
  const int64_t nw = (int64_t)g->vw * g->nv, np = (g->n + nw - 1) / nw, npad = np * nw;
  const int64_t mt = (g->m + g->mr - 1) / g->mr, mfull = g->m / g->mr;
  const int32_t mtail = (int32_t)(g->m % g->mr);
  /* Split: batches when there are several, else N panels (each task packs
   * only its own), else row tiles. */
  LLVMValueRef b_lo = rt_jit_i64(L, 0), b_hi = rt_jit_i64(L, g->nb);
  LLVMValueRef p_lo = rt_jit_i64(L, 0), p_hi = rt_jit_i64(L, np);
  LLVMValueRef t_lo = rt_jit_i64(L, 0), t_hi = rt_jit_i64(L, mt);
  if (g->nb >= 4) {
    rt_jit_tpl_split(L, g->nb, task, ntasks, &b_lo, &b_hi);
  } else if (np >= 4 || np >= mt) {
    rt_jit_tpl_split(L, np, task, ntasks, &p_lo, &p_hi);
  } else {
    rt_jit_tpl_split(L, mt, task, ntasks, &t_lo, &t_hi);
  }
  LLVMValueRef wsb = rt_jit_tpl_ws_alloc(L, g->k * nw * 4);
  LLVMValueRef wsc = rt_jit_tpl_ws_alloc(L, g->m * npad * 4);
  LLVMValueRef wsa = g->a_base ? LLVMConstNull(L->ptr) : rt_jit_tpl_ws_alloc(L, g->m * g->k * 4);
  LLVMValueRef ok = LLVMBuildAnd(B, LLVMBuildIsNotNull(B, wsb, ""), LLVMBuildIsNotNull(B, wsc, ""), "");
  if (!g->a_base) ok = LLVMBuildAnd(B, ok, LLVMBuildIsNotNull(B, wsa, ""), "");
  rt_jit_if_t have;
  rt_jit_if_begin(L, ok, &have);
  LLVMValueRef row_lo = LLVMBuildMul(B, t_lo, rt_jit_i64(L, g->mr), "");
  LLVMValueRef row_hi = imin(L, LLVMBuildMul(B, t_hi, rt_jit_i64(L, g->mr), ""), g->m);
  rt_jit_loop_t lb;
  rt_jit_loop_begin(L, b_lo, b_hi, 0, NULL, &lb);
  LLVMValueRef abase;
  if (g->a_base) {
    abase = g->a_base(L, g, lb.iv);
  } else {
    rt_jit_loop_t li, lk;
    rt_jit_loop_begin(L, row_lo, row_hi, 0, NULL, &li);
    rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, g->k), 0, NULL, &lk);
    LLVMValueRef v;
    RT_RETURN_IF_ERROR(g->a_elem(L, g, lb.iv, li.iv, lk.iv, &v));
    rt_jit_tpl_storef(L, v, wsa, LLVMBuildAdd(B, LLVMBuildMul(B, li.iv, rt_jit_i64(L, g->k), ""), lk.iv, ""));
    rt_jit_loop_end(L, &lk, NULL);
    rt_jit_loop_end(L, &li, NULL);
    abase = wsa;
  }
  rt_jit_loop_t lp;
  rt_jit_loop_begin(L, p_lo, p_hi, 0, NULL, &lp);
  LLVMValueRef n0 = LLVMBuildMul(B, lp.iv, rt_jit_i64(L, nw), "");
  RT_RETURN_IF_ERROR(pack_panel(L, g, lb.iv, n0, wsb));
  LLVMValueRef cblk = rt_jit_tpl_gep(L, wsc, n0);
  tiles(L, g, g->mr, t_lo, rt_jit_min(L, t_hi, rt_jit_i64(L, mfull)), abase, wsb, cblk, npad);
  if (mtail) {
    rt_jit_if_t tail;
    rt_jit_if_begin(L, LLVMBuildICmp(B, LLVMIntSGT, t_hi, rt_jit_i64(L, mfull), ""), &tail);
    tiles(L, g, mtail, rt_jit_i64(L, mfull), rt_jit_i64(L, mfull + 1), abase, wsb, cblk, npad);
    rt_jit_if_else(L, &tail, NULL);
    (void)rt_jit_if_end(L, &tail, NULL);
  }
  rt_jit_loop_end(L, &lp, NULL);
  /* The epilogue over the task's region. */
  LLVMValueRef col_lo = LLVMBuildMul(B, p_lo, rt_jit_i64(L, nw), "");
  LLVMValueRef col_hi = imin(L, LLVMBuildMul(B, p_hi, rt_jit_i64(L, nw), ""), g->n);
  rt_jit_loop_t ei, ej;
  rt_jit_loop_begin(L, row_lo, row_hi, 0, NULL, &ei);
  rt_jit_loop_begin(L, col_lo, col_hi, 0, NULL, &ej);
  LLVMValueRef val = rt_jit_tpl_loadf(
      L, wsc, LLVMBuildAdd(B, LLVMBuildMul(B, ei.iv, rt_jit_i64(L, npad), ""), ej.iv, ""));
  LLVMValueRef idx[RT_TENSOR_MAX_RANK];
  g->out_idx(L, g, lb.iv, ei.iv, ej.iv, idx);
  RT_RETURN_IF_ERROR(rt_jit_tpl_epilogue(L, g->anchor, g->out, g->data, idx, val));
  rt_jit_loop_end(L, &ej, NULL);
  rt_jit_loop_end(L, &ei, NULL);
  rt_jit_loop_end(L, &lb, NULL);
  rt_jit_if_else(L, &have, NULL);
  rt_jit_flag_error(L, LLVMConstInt(L->i1, 1, 0), "out of workspace memory (gemm template)");
  (void)rt_jit_if_end(L, &have, NULL);
  rt_jit_tpl_ws_free(L, wsa);
  rt_jit_tpl_ws_free(L, wsc);
  rt_jit_tpl_ws_free(L, wsb);
  return RT_OK;
}

/* ---- dense, matmul, batch_matmul ------------------------------------------------ */

typedef struct mm_t {
  int32_t id;
  bool ta, tb;
  const rt_ir_expr_t *a, *b;
  int64_t ba, bb;     /* batch dims of a and b (batch_matmul) */
} mm_t;

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

static rt_status_t mm_a_elem(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                             LLVMValueRef i, LLVMValueRef k, LLVMValueRef *out) {
  const mm_t *mm = g->user;
  LLVMValueRef idx[3];
  int32_t o = 0;
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
  if (mm->id == RT_OP_NN_BATCH_MATMUL) idx[o++] = bidx(L, mm->bb, b);
  idx[o] = mm->tb ? n : k;
  idx[o + 1] = mm->tb ? k : n;
  return rt_jit_elem(L, mm->b, idx, out);
}

static void mm_out_idx(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g, LLVMValueRef b,
                       LLVMValueRef i, LLVMValueRef j, LLVMValueRef *idx) {
  const mm_t *mm = g->user;
  int32_t o = 0;
  if (mm->id == RT_OP_NN_BATCH_MATMUL) idx[o++] = b;
  idx[o] = i;
  idx[o + 1] = j;
}

rt_status_t rt_jit_tpl_gemm(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_ir_expr_t *out,
                            LLVMValueRef data, LLVMValueRef task, LLVMValueRef ntasks) {
  const rt_ir_expr_t *call = p->anchor;
  mm_t mm = {.id = call->call.callee->op.op->id, .a = call->call.args[0], .b = call->call.args[1]};
  if (mm.id == RT_OP_NN_DENSE) {
    mm.tb = true; /* weight (N, K) */
  } else {
    mm.ta = rt_attrs_bool(call->call.attrs, "transpose_a");
    mm.tb = rt_attrs_bool(call->call.attrs, "transpose_b");
  }
  rt_jit_node_t *an = rt_jit_node(L, mm.a), *bn = rt_jit_node(L, mm.b), *self = rt_jit_node(L, call);
  const int32_t r = self->rank;
  const int32_t ar = an->rank;
  rt_jit_gemm_core_t g = {
      .anchor = call, .out = out, .data = data, .mr = p->mr, .nv = p->nv, .vw = p->vw, .user = &mm,
      .a_elem = mm_a_elem, .b_elem = mm_b_elem, .out_idx = mm_out_idx,
  };
  g.m = (int64_t)LLVMConstIntGetZExtValue(self->dims[r - 2]);
  g.n = (int64_t)LLVMConstIntGetZExtValue(self->dims[r - 1]);
  g.k = (int64_t)LLVMConstIntGetZExtValue(an->dims[mm.ta ? ar - 2 : ar - 1]);
  g.nb = 1;
  if (mm.id == RT_OP_NN_BATCH_MATMUL) {
    g.nb = (int64_t)LLVMConstIntGetZExtValue(self->dims[0]);
    mm.ba = (int64_t)LLVMConstIntGetZExtValue(an->dims[0]);
    mm.bb = (int64_t)LLVMConstIntGetZExtValue(bn->dims[0]);
  }
  /* B(k, n) is contiguous along k when b is stored (N, K). */
  g.k_inner = mm.tb;
  if (!mm.ta && rt_jit_tpl_raw(L, mm.a)) g.a_base = mm_a_base;
  if (g.m < 1 || g.n < 1 || g.k < 1) return RT_STATUS(UNIMPLEMENTED, "%s", "empty GEMM");
  return rt_jit_tpl_gemm_core(L, &g, task, ntasks);
}
