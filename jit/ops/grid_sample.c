/* Lowering of image.grid_sample (ir/op/grid_sample.c) as an element
 * function, with the arithmetic of interp/kernels/grid_sample.c written
 * again in LLVM IR, in double: output (n, c, oh, ow) reads the grid's
 * (x, y) at (n, 0|1, oh, ow), maps them to input coordinates, applies the
 * padding mode and blends 1 (nearest), 4 (bilinear) or 16 (bicubic) taps.
 * A tap outside the input (or at a NaN coordinate) reads 0: its index is
 * replaced by 0 before the load, so no load goes out of bounds, and the
 * value selected away. fmin/fmax are llvm.minnum/maxnum (the same NaN
 * rule), round half to even is llvm.roundeven. */
#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"

static const rt_dtype_t kF64 = {kDLFloat, 64, 1};

typedef struct gs_t {
  rt_jit_lower_t *L;
  const rt_ir_expr_t *call;
  const rt_plan_grid_sample_t *p;
  LLVMValueRef n, c;     /* output batch and channel */
  LLVMValueRef h, w;     /* input H and W (i64) */
  LLVMValueRef hf, wf;   /* the same as double */
  rt_dtype_t dtype;
} gs_t;

static LLVMValueRef f64c(rt_jit_lower_t *L, double v) { return LLVMConstReal(L->f64, v); }

static LLVMValueRef fadd(gs_t *g, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFAdd(g->L->b, a, b, ""); }
static LLVMValueRef fsub(gs_t *g, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFSub(g->L->b, a, b, ""); }
static LLVMValueRef fmul(gs_t *g, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFMul(g->L->b, a, b, ""); }
static LLVMValueRef ffloor(gs_t *g, LLVMValueRef a) { return rt_jit_intrinsic(g->L, "llvm.floor", a, NULL, NULL); }

static LLVMValueRef unnormalize(gs_t *g, LLVMValueRef c, LLVMValueRef size) {
  rt_jit_lower_t *L = g->L;
  LLVMValueRef c1 = fadd(g, c, f64c(L, 1));
  if (g->p->align_corners) return fmul(g, LLVMBuildFDiv(L->b, c1, f64c(L, 2), ""), fsub(g, size, f64c(L, 1)));
  return LLVMBuildFDiv(L->b, fsub(g, fmul(g, c1, size), f64c(L, 1)), f64c(L, 2), "");
}

static LLVMValueRef reflect(gs_t *g, LLVMValueRef v, LLVMValueRef lo2, LLVMValueRef hi2) {
  rt_jit_lower_t *L = g->L;
  LLVMValueRef lo = LLVMBuildFDiv(L->b, lo2, f64c(L, 2), "");
  LLVMValueRef span = LLVMBuildFDiv(L->b, fsub(g, hi2, lo2), f64c(L, 2), "");
  v = rt_jit_intrinsic(L, "llvm.fabs", fsub(g, v, lo), NULL, NULL);
  LLVMValueRef extra = LLVMBuildFRem(L->b, v, span, "");
  LLVMValueRef flips = ffloor(g, LLVMBuildFDiv(L->b, v, span, ""));
  LLVMValueRef even = LLVMBuildFCmp(L->b, LLVMRealOEQ, LLVMBuildFRem(L->b, flips, f64c(L, 2), ""), f64c(L, 0), "");
  LLVMValueRef r = LLVMBuildSelect(L->b, even, fadd(g, extra, lo), fadd(g, fsub(g, span, extra), lo), "");
  return LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, LLVMRealOEQ, lo2, hi2, ""), f64c(L, 0), r, "");
}

static LLVMValueRef clip(gs_t *g, LLVMValueRef v, LLVMValueRef size) {
  rt_jit_lower_t *L = g->L;
  LLVMValueRef m = rt_jit_intrinsic(L, "llvm.maxnum", v, f64c(L, 0), NULL);
  return rt_jit_intrinsic(L, "llvm.minnum", m, fsub(g, size, f64c(L, 1)), NULL);
}

static LLVMValueRef pad_coord(gs_t *g, LLVMValueRef v, LLVMValueRef size) {
  rt_jit_lower_t *L = g->L;
  if (g->p->padding == RT_GRID_BORDER) return clip(g, v, size);
  if (g->p->padding == RT_GRID_REFLECTION) {
    if (g->p->align_corners) {
      v = reflect(g, v, f64c(L, 0), fmul(g, f64c(L, 2), fsub(g, size, f64c(L, 1))));
    } else {
      v = reflect(g, v, f64c(L, -1), fsub(g, fmul(g, f64c(L, 2), size), f64c(L, 1)));
    }
    return clip(g, v, size);
  }
  return v;
}

/* data[n, c, y, x] as double, 0 outside. */
static rt_status_t tap(gs_t *g, LLVMValueRef y, LLVMValueRef x, LLVMValueRef *out) {
  rt_jit_lower_t *L = g->L;
  LLVMValueRef in = LLVMBuildAnd(L->b, LLVMBuildFCmp(L->b, LLVMRealOGE, y, f64c(L, 0), ""),
                                 LLVMBuildFCmp(L->b, LLVMRealOLT, y, g->hf, ""), "");
  in = LLVMBuildAnd(L->b, in, LLVMBuildFCmp(L->b, LLVMRealOGE, x, f64c(L, 0), ""), "");
  in = LLVMBuildAnd(L->b, in, LLVMBuildFCmp(L->b, LLVMRealOLT, x, g->wf, ""), "");
  LLVMValueRef yi = LLVMBuildFPToSI(L->b, LLVMBuildSelect(L->b, in, y, f64c(L, 0), ""), L->i64, "");
  LLVMValueRef xi = LLVMBuildFPToSI(L->b, LLVMBuildSelect(L->b, in, x, f64c(L, 0), ""), L->i64, "");
  LLVMValueRef idx[4] = {g->n, g->c, yi, xi}, v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, g->call->call.args[0], idx, &v));
  v = rt_jit_convert(L, v, g->dtype, kF64);
  *out = LLVMBuildSelect(L->b, in, v, f64c(L, 0), "");
  return RT_OK;
}

static LLVMValueRef cubic1(gs_t *g, LLVMValueRef t) {
  const double A = -0.75;
  rt_jit_lower_t *L = g->L;
  LLVMValueRef a = fsub(g, fmul(g, f64c(L, A + 2), t), f64c(L, A + 3));
  return fadd(g, fmul(g, fmul(g, a, t), t), f64c(L, 1));
}
static LLVMValueRef cubic2(gs_t *g, LLVMValueRef t) {
  const double A = -0.75;
  rt_jit_lower_t *L = g->L;
  LLVMValueRef a = fsub(g, fmul(g, f64c(L, A), t), f64c(L, 5 * A));
  a = fadd(g, fmul(g, a, t), f64c(L, 8 * A));
  return fsub(g, fmul(g, a, t), f64c(L, 4 * A));
}

RT_JIT_ELEM_FN(rt_jit_elem_grid_sample) {
  rt_jit_node_t *x = rt_jit_node(L, call->call.args[0]), *gr = rt_jit_node(L, call->call.args[1]);
  rt_plan_input_t pin[2];
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 2, pin));
  rt_plan_grid_sample_t p;
  rt_status_t st = rt_ir_plan_grid_sample(call->call.attrs, 2, pin, &p);
  if (st) return rt_status_annotate(st, "lowering %s", call->call.callee->op.op->name);
  gs_t g = {.L = L, .call = call, .p = &p, .n = idx[0], .c = idx[1], .h = x->dims[2], .w = x->dims[3],
            .dtype = x->dtype};
  g.hf = LLVMBuildSIToFP(L->b, g.h, L->f64, "");
  g.wf = LLVMBuildSIToFP(L->b, g.w, L->f64, "");
  LLVMValueRef gi[4] = {idx[0], rt_jit_i64(L, 0), idx[2], idx[3]}, gx, gy;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[1], gi, &gx));
  gi[1] = rt_jit_i64(L, 1);
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[1], gi, &gy));
  gx = rt_jit_convert(L, gx, gr->dtype, kF64);
  gy = rt_jit_convert(L, gy, gr->dtype, kF64);
  LLVMValueRef ix = unnormalize(&g, gx, g.wf), iy = unnormalize(&g, gy, g.hf);
  LLVMValueRef acc;
  if (p.method == RT_GRID_BICUBIC) {
    LLVMValueRef fx = ffloor(&g, ix), fy = ffloor(&g, iy);
    LLVMValueRef tx = fsub(&g, ix, fx), ty = fsub(&g, iy, fy), one = f64c(L, 1), two = f64c(L, 2);
    LLVMValueRef wx[4] = {cubic2(&g, fadd(&g, tx, one)), cubic1(&g, tx), cubic1(&g, fsub(&g, one, tx)),
                          cubic2(&g, fsub(&g, two, tx))};
    LLVMValueRef wy[4] = {cubic2(&g, fadd(&g, ty, one)), cubic1(&g, ty), cubic1(&g, fsub(&g, one, ty)),
                          cubic2(&g, fsub(&g, two, ty))};
    acc = f64c(L, 0);
    for (int32_t i = 0; i < 4; ++i) {
      LLVMValueRef row = f64c(L, 0);
      LLVMValueRef cy = pad_coord(&g, fadd(&g, fy, f64c(L, i - 1)), g.hf);
      for (int32_t j = 0; j < 4; ++j) {
        LLVMValueRef cx = pad_coord(&g, fadd(&g, fx, f64c(L, j - 1)), g.wf), v;
        RT_RETURN_IF_ERROR(tap(&g, cy, cx, &v));
        row = fadd(&g, row, fmul(&g, wx[j], v));
      }
      acc = fadd(&g, acc, fmul(&g, wy[i], row));
    }
  } else {
    ix = pad_coord(&g, ix, g.wf);
    iy = pad_coord(&g, iy, g.hf);
    if (p.method == RT_GRID_NEAREST) {
      RT_RETURN_IF_ERROR(tap(&g, rt_jit_intrinsic(L, "llvm.roundeven", iy, NULL, NULL),
                             rt_jit_intrinsic(L, "llvm.roundeven", ix, NULL, NULL), &acc));
    } else {
      LLVMValueRef x0 = ffloor(&g, ix), y0 = ffloor(&g, iy), one = f64c(L, 1);
      LLVMValueRef tx = fsub(&g, ix, x0), ty = fsub(&g, iy, y0);
      LLVMValueRef x1 = fadd(&g, x0, one), y1 = fadd(&g, y0, one), v00, v01, v10, v11;
      RT_RETURN_IF_ERROR(tap(&g, y0, x0, &v00));
      RT_RETURN_IF_ERROR(tap(&g, y0, x1, &v01));
      RT_RETURN_IF_ERROR(tap(&g, y1, x0, &v10));
      RT_RETURN_IF_ERROR(tap(&g, y1, x1, &v11));
      LLVMValueRef ux = fsub(&g, one, tx), uy = fsub(&g, one, ty);
      acc = fmul(&g, fmul(&g, v00, ux), uy);
      acc = fadd(&g, acc, fmul(&g, fmul(&g, v01, tx), uy));
      acc = fadd(&g, acc, fmul(&g, fmul(&g, v10, ux), ty));
      acc = fadd(&g, acc, fmul(&g, fmul(&g, v11, tx), ty));
    }
  }
  *out_value = rt_jit_convert(L, acc, kF64, rt_jit_node(L, call)->dtype);
  return RT_OK;
}
