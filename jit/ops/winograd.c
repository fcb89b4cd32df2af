/* Generic lowering of the Winograd convolution ops (ir/op/winograd.c):
 * element functions that follow the reference kernels
 * (interp/kernels/winograd.c) one output element at a time, in the
 * double (as the reference kernels do: the transforms' coefficients, up
 * to 8 * 8 * 5 * 5, cancel too much for a float sum), rounded to the
 * output dtype at the end. They run where the template
 * (jit/templates/winograd.c) does not: dtypes other than float32, output
 * channels that no vector width divides, a group whose output is not the
 * anchor's chain; the weight transform runs here when it is not folded at
 * build time. The convolution's element recomputes its tile's input
 * transform for each output element (alpha^4 C terms): correct and slow,
 * as a fallback is.
 *
 *   weight transform:  U[a, b, o, i] = sum_{y, x} G[a, y] G[b, x] w[o, i, y, x]
 *   convolution:       out[n, o, ty*m + i, tx*m + j] = sum_{a, b, c, p, q}
 *                      AT[i, a] AT[j, b] U'[a, b, c, o] BT[a, p] BT[b, q]
 *                      x[n, c, ty*m - pt + p, tx*m - pl + q]
 *                      (taps outside the image are 0). */
#include <stdio.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"

/* A private constant table of `n` values of dtype's compute type. */
static LLVMValueRef const_table(rt_jit_lower_t *L, rt_dtype_t dt, const double *v, int32_t n) {
  LLVMTypeRef t = rt_jit_type(L, dt);
  LLVMValueRef vals[RT_WINOGRAD_MAX_ALPHA * RT_WINOGRAD_MAX_ALPHA];
  for (int32_t i = 0; i < n; ++i) vals[i] = LLVMConstReal(t, v[i]);
  return rt_jit_private_constant(L, LLVMConstArray(t, vals, (unsigned)n), "wino");
}

/* table[row * cols + col]. */
static LLVMValueRef table_at(rt_jit_lower_t *L, rt_dtype_t dt, LLVMValueRef table, LLVMValueRef row,
                             int64_t cols, LLVMValueRef col) {
  LLVMBuilderRef B = L->b;
  LLVMValueRef i = LLVMBuildAdd(B, LLVMBuildMul(B, row, rt_jit_i64(L, cols), ""), col, "");
  LLVMTypeRef t = rt_jit_type(L, dt);
  return LLVMBuildLoad2(B, t, LLVMBuildGEP2(B, t, table, &i, 1, ""), "");
}

static LLVMValueRef fmul(rt_jit_lower_t *L, LLVMValueRef a, LLVMValueRef b) {
  return rt_jit_fast(LLVMBuildFMul(L->b, a, b, ""));
}

typedef struct weight_t {
  const rt_ir_expr_t *call;
  rt_dtype_t dt, wdt;
  LLVMValueRef g;
  int64_t pack;
  const LLVMValueRef *idx; /* a, b, o, i (packed: a, b, o / P, i, o % P) */
} weight_t;

static rt_status_t weight_body(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                               const LLVMValueRef *accs, LLVMValueRef *next) {
  weight_t *c = user;
  /* The output's (o, i): idx[2], idx[3], or packed idx[2] P + idx[4],
   * idx[3]. */
  LLVMValueRef widx[4] = {c->idx[2], c->idx[3], red[0], red[1]}, w;
  if (c->pack) {
    widx[0] = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, c->idx[2], rt_jit_i64(L, c->pack), ""), c->idx[4], "");
  }
  RT_RETURN_IF_ERROR(rt_jit_elem(L, c->call->call.args[0], widx, &w));
  w = rt_jit_convert(L, w, c->wdt, c->dt);
  LLVMValueRef ga = table_at(L, c->dt, c->g, c->idx[0], 3, red[0]);
  LLVMValueRef gb = table_at(L, c->dt, c->g, c->idx[1], 3, red[1]);
  next[0] = rt_jit_fast(LLVMBuildFAdd(L->b, accs[0], fmul(L, fmul(L, ga, gb), w), ""));
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_winograd_weight) {
  rt_plan_input_t in;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 1, &in));
  rt_plan_winograd_weight_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_winograd_weight(call->call.callee->op.op, call->call.attrs, 1, &in, &p));
  const rt_dtype_t out_dt = rt_jit_node(L, call)->dtype;
  weight_t c = {.call = call, .dt = RT_DTYPE_FLOAT64,
                .wdt = rt_jit_node(L, call->call.args[0])->dtype, .pack = p.pack, .idx = idx};
  c.g = const_table(L, c.dt, p.mat.g, p.mat.alpha * p.mat.r);
  LLVMValueRef ext[2] = {rt_jit_i64(L, 3), rt_jit_i64(L, 3)};
  LLVMValueRef acc = rt_jit_const_f(L, c.dt, 0);
  RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, 2, ext, 1, &acc, weight_body, &c));
  *out_value = rt_jit_convert(L, acc, c.dt, out_dt);
  return RT_OK;
}

typedef struct wconv_t {
  const rt_ir_expr_t *call;
  rt_plan_winograd_t p;
  rt_dtype_t dt, xdt, udt;
  LLVMValueRef at, bt;
  LLVMValueRef n, o, i, j, y0, x0; /* y0, x0: the tile's first input row / column */
} wconv_t;

static rt_status_t wconv_body(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                              const LLVMValueRef *accs, LLVMValueRef *next) {
  wconv_t *c = user;
  LLVMBuilderRef B = L->b;
  const int64_t alpha = c->p.mat.alpha;
  /* red: a, b, ci, py, px. */
  LLVMValueRef iy = LLVMBuildAdd(B, c->y0, red[3], ""), ix = LLVMBuildAdd(B, c->x0, red[4], "");
  LLVMValueRef zero = rt_jit_i64(L, 0);
  LLVMValueRef ok = LLVMBuildAnd(
      B,
      LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, iy, zero, ""),
                   LLVMBuildICmp(B, LLVMIntSLT, iy, rt_jit_i64(L, c->p.h), ""), ""),
      LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, ix, zero, ""),
                   LLVMBuildICmp(B, LLVMIntSLT, ix, rt_jit_i64(L, c->p.w), ""), ""),
      "");
  LLVMValueRef xidx[4] = {c->n, red[2], LLVMBuildSelect(B, ok, iy, zero, ""),
                          LLVMBuildSelect(B, ok, ix, zero, "")};
  /* U'[a, b, ci, o], or [a, b, o / P, ci, o % P] packed. */
  LLVMValueRef x, u, uidx[5] = {red[0], red[1], red[2], c->o, NULL};
  if (c->p.pack) {
    LLVMValueRef pw = rt_jit_i64(L, c->p.pack);
    uidx[2] = LLVMBuildUDiv(B, c->o, pw, "");
    uidx[3] = red[2];
    uidx[4] = LLVMBuildURem(B, c->o, pw, "");
  }
  RT_RETURN_IF_ERROR(rt_jit_elem(L, c->call->call.args[0], xidx, &x));
  RT_RETURN_IF_ERROR(rt_jit_elem(L, c->call->call.args[1], uidx, &u));
  x = rt_jit_convert(L, x, c->xdt, c->dt);
  u = rt_jit_convert(L, u, c->udt, c->dt);
  x = LLVMBuildSelect(B, ok, x, rt_jit_const_f(L, c->dt, 0), "");
  LLVMValueRef coef = fmul(L, table_at(L, c->dt, c->at, c->i, alpha, red[0]),
                           table_at(L, c->dt, c->at, c->j, alpha, red[1]));
  coef = fmul(L, coef, fmul(L, table_at(L, c->dt, c->bt, red[0], alpha, red[3]),
                            table_at(L, c->dt, c->bt, red[1], alpha, red[4])));
  next[0] = rt_jit_fast(LLVMBuildFAdd(B, accs[0], fmul(L, coef, fmul(L, u, x)), ""));
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_winograd) {
  rt_plan_input_t in[2];
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 2, in));
  wconv_t c = {.call = call};
  RT_RETURN_IF_ERROR(rt_ir_plan_winograd(call->call.callee->op.op, call->call.attrs, 2, in, &c.p));
  if (c.p.h == RT_DIM_ANY || c.p.w == RT_DIM_ANY || c.p.c == RT_DIM_ANY || c.p.pack == RT_DIM_ANY) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "`?` input dims");
  }
  LLVMBuilderRef B = L->b;
  const int64_t m = c.p.mat.m, alpha = c.p.mat.alpha;
  const rt_dtype_t out_dt = rt_jit_node(L, call)->dtype;
  c.dt = RT_DTYPE_FLOAT64;
  c.xdt = rt_jit_node(L, call->call.args[0])->dtype;
  c.udt = rt_jit_node(L, call->call.args[1])->dtype;
  c.at = const_table(L, c.dt, c.p.mat.at, (int32_t)(m * alpha));
  c.bt = const_table(L, c.dt, c.p.mat.bt, (int32_t)(alpha * alpha));
  c.n = idx[0];
  c.o = idx[1];
  LLVMValueRef mv = rt_jit_i64(L, m);
  c.i = LLVMBuildURem(B, idx[2], mv, "");
  c.j = LLVMBuildURem(B, idx[3], mv, "");
  c.y0 = LLVMBuildSub(B, LLVMBuildSub(B, idx[2], c.i, ""), rt_jit_i64(L, c.p.pt), "");
  c.x0 = LLVMBuildSub(B, LLVMBuildSub(B, idx[3], c.j, ""), rt_jit_i64(L, c.p.pl), "");
  LLVMValueRef a = rt_jit_i64(L, alpha);
  LLVMValueRef ext[5] = {a, a, rt_jit_i64(L, c.p.c), a, a};
  LLVMValueRef acc = rt_jit_const_f(L, c.dt, 0);
  RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, 5, ext, 1, &acc, wconv_body, &c));
  *out_value = rt_jit_convert(L, acc, c.dt, out_dt);
  return RT_OK;
}
