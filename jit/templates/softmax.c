/* The softmax template: nn.softmax / nn.log_softmax over any axis, one row
 * (all indices but the axis) at a time, rows split over tasks.
 *
 * The generic lowering computes each output element as an element
 * expression, so it recomputes its row's maximum and sum for every element
 * (O(len^2) per row). Here each row makes three passes over the axis: the
 * maximum, the sum of exp(x - max) (softmax keeps each exp in a row of
 * workspace), then each value exp(x - max) * (1 / sum) (log_softmax: x - max -
 * log(sum)) handed to the epilogue, so the fused
 * tail ops apply before the store as in the other templates. The input's
 * element expression (a fused producer such as a dense) is evaluated once
 * per pass that reads it (two for softmax, three for log_softmax). Semantics are nn.c's: the maximum with llvm.maximum (NaN
 * propagates), the sum reassociable. The axis is the op's plan's
 * (rt_ir_plan_norm, ir/op/plan_nn.h). On 16 lanes a softmax over the last
 * axis of an input in memory, without fused tail ops, runs as explicit
 * vectors instead, 4 rows at a time (softmax_vec), exp(x - max) written
 * to the output and scaled there in place. */
#include <math.h>
#include <string.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"
#include "jit/templates/templates.h"

/* llvm.vector.reduce.fadd(0, v), reassociable (a tree of adds). */
static LLVMValueRef reduce_fadd(rt_jit_lower_t *L, LLVMValueRef v) {
  static const char kName[] = "llvm.vector.reduce.fadd";
  unsigned id = LLVMLookupIntrinsicID(kName, sizeof kName - 1);
  LLVMTypeRef ty = LLVMTypeOf(v);
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(L->m, id, &ty, 1);
  LLVMTypeRef fty = LLVMIntrinsicGetType(L->c, id, &ty, 1);
  LLVMValueRef args[2] = {LLVMConstReal(L->f32, 0), v};
  return rt_jit_fast(LLVMBuildCall2(L->b, fty, fn, args, 2, ""));
}

/* Rows of softmax_vec computed together: their passes' dependency chains
 * (the running maximum and sum, the reductions across lanes, the
 * exp of each vector) interleave. */
#define SM_ROWS 4

/* Rows r0 .. r0 + nr - 1 (nr <= SM_ROWS) of softmax_vec. */
static void softmax_vec_rows(rt_jit_lower_t *L, int32_t vw, LLVMValueRef x, LLVMValueRef y, LLVMValueRef r0,
                             int32_t nr, int64_t n) {
  LLVMBuilderRef B = L->b;
  const int64_t nfull = n / vw, tail = n % vw;
  LLVMTypeRef vt = rt_jit_tpl_vec(L, vw);
  LLVMValueRef mask = tail ? rt_jit_tpl_lanes_mask(L, tail, vw) : NULL;
  LLVMValueRef ninf = rt_jit_tpl_splat(L, LLVMConstReal(L->f32, -INFINITY), vw), zero = LLVMConstNull(vt);
  LLVMValueRef toff = rt_jit_i64(L, nfull * vw);
  LLVMValueRef xr[SM_ROWS], yr[SM_ROWS], init[SM_ROWS], m[SM_ROWS], ms[SM_ROWS], sum[SM_ROWS], rs[SM_ROWS];
  for (int32_t i = 0; i < nr; ++i) {
    LLVMValueRef base = LLVMBuildMul(B, LLVMBuildAdd(B, r0, rt_jit_i64(L, i), ""), rt_jit_i64(L, n), "");
    xr[i] = rt_jit_tpl_gep(L, x, base);
    yr[i] = rt_jit_tpl_gep(L, y, base);
  }
  /* Pass 1: the maximum. */
  rt_jit_loop_t l1, l2, l3;
  for (int32_t i = 0; i < nr; ++i) init[i] = ninf;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, nfull), nr, init, &l1);
  LLVMValueRef off = LLVMBuildMul(B, l1.iv, rt_jit_i64(L, vw), "");
  for (int32_t i = 0; i < nr; ++i) {
    m[i] = rt_jit_intrinsic(L, "llvm.maximum", l1.carry[i], rt_jit_tpl_loadv(L, xr[i], off, vw), NULL);
  }
  rt_jit_loop_end(L, &l1, m);
  for (int32_t i = 0; i < nr; ++i) {
    m[i] = l1.carry[i];
    if (mask) {
      m[i] = rt_jit_intrinsic(L, "llvm.maximum", m[i], rt_jit_tpl_masked_load(L, xr[i], toff, mask, ninf, vw), NULL);
    }
    ms[i] = rt_jit_tpl_splat(L, rt_jit_intrinsic(L, "llvm.vector.reduce.fmaximum", m[i], NULL, NULL), vw);
    init[i] = zero;
  }
  /* Pass 2: exp(x - max) to y, summed. */
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, nfull), nr, init, &l2);
  off = LLVMBuildMul(B, l2.iv, rt_jit_i64(L, vw), "");
  for (int32_t i = 0; i < nr; ++i) {
    LLVMValueRef e = rt_jit_exp(L, LLVMBuildFSub(B, rt_jit_tpl_loadv(L, xr[i], off, vw), ms[i], ""));
    rt_jit_tpl_storev(L, e, yr[i], off);
    sum[i] = rt_jit_fast(LLVMBuildFAdd(B, l2.carry[i], e, ""));
  }
  rt_jit_loop_end(L, &l2, sum);
  for (int32_t i = 0; i < nr; ++i) {
    sum[i] = l2.carry[i];
    if (mask) {
      LLVMValueRef e = rt_jit_exp(L, LLVMBuildFSub(B, rt_jit_tpl_masked_load(L, xr[i], toff, mask, zero, vw), ms[i], ""));
      rt_jit_tpl_masked_store(L, e, yr[i], toff, mask, vw);
      sum[i] = rt_jit_fast(LLVMBuildFAdd(B, sum[i], LLVMBuildSelect(B, mask, e, zero, ""), ""));
    }
    rs[i] = rt_jit_tpl_splat(L, LLVMBuildFDiv(B, LLVMConstReal(L->f32, 1.0), reduce_fadd(L, sum[i]), ""), vw);
  }
  /* Pass 3: y times 1 / sum. */
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, nfull), 0, NULL, &l3);
  off = LLVMBuildMul(B, l3.iv, rt_jit_i64(L, vw), "");
  for (int32_t i = 0; i < nr; ++i) {
    rt_jit_tpl_storev(L, LLVMBuildFMul(B, rt_jit_tpl_loadv(L, yr[i], off, vw), rs[i], ""), yr[i], off);
  }
  rt_jit_loop_end(L, &l3, NULL);
  for (int32_t i = 0; i < nr && mask; ++i) {
    LLVMValueRef t = rt_jit_tpl_masked_load(L, yr[i], toff, mask, zero, vw);
    rt_jit_tpl_masked_store(L, LLVMBuildFMul(B, t, rs[i], ""), yr[i], toff, mask, vw);
  }
}

/* softmax over the last axis of an input in memory, no fused tail ops:
 * rows [lo, hi) of n floats at x and y, SM_ROWS rows at a time (then one
 * by one), each in three passes of vw-lane vectors (the last one masked):
 * the maximum (llvm.maximum lane-wise, then across the lanes: NaN
 * propagates), exp(x - max) stored to y and summed (the tail's masked-off
 * lanes add 0), then y times 1 / sum. The scalar passes below, left to
 * the loop vectorizer, ran the encoder's (4, 128, 128) softmax in 43.5 us
 * alone on an AVX-512 Xeon (ymm code; ONNX Runtime: 20-24 in the model);
 * these vectors one row at a time 40.6 (each short row's chain of
 * maximum, reduction, exp and sum waited on the one before), 4 rows at a
 * time 27.5-29.1, 8 rows 28.5-29.4. On 8 lanes the scalar passes stay:
 * there the vectorizer's code ran 49.9-52.1 us against 52.5-53.9 (4
 * rows) and 54.9-55.8 (2 rows). */
static void softmax_vec(rt_jit_lower_t *L, int32_t vw, LLVMValueRef x, LLVMValueRef y, LLVMValueRef lo,
                        LLVMValueRef hi, int64_t n) {
  LLVMBuilderRef B = L->b;
  rt_jit_tpl_wide(L, vw);
  LLVMValueRef ngroups = LLVMBuildSDiv(B, LLVMBuildSub(B, hi, lo, ""), rt_jit_i64(L, SM_ROWS), "");
  rt_jit_loop_t lg, lr;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), ngroups, 0, NULL, &lg);
  softmax_vec_rows(L, vw, x, y, LLVMBuildAdd(B, lo, LLVMBuildMul(B, lg.iv, rt_jit_i64(L, SM_ROWS), ""), ""),
                   SM_ROWS, n);
  rt_jit_loop_end(L, &lg, NULL);
  rt_jit_loop_begin(L, LLVMBuildAdd(B, lo, LLVMBuildMul(B, ngroups, rt_jit_i64(L, SM_ROWS), ""), ""), hi, 0, NULL,
                    &lr);
  softmax_vec_rows(L, vw, x, y, lr.iv, 1, n);
  rt_jit_loop_end(L, &lr, NULL);
}

rt_status_t rt_jit_tpl_softmax(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p, const rt_ir_expr_t *out,
                               LLVMValueRef data, LLVMValueRef task, LLVMValueRef ntasks) {
  const rt_ir_expr_t *call = p->anchor, *x = call->call.args[0];
  rt_jit_node_t *xn = rt_jit_node(L, x);
  const int32_t rank = xn->rank;
  rt_plan_input_t in = {.dtype = xn->dtype, .rank = rank, .shape = NULL, .value = NULL};
  RT_RETURN_IF_ERROR(rt_jit_tensor_type(x, &in.dtype, &in.rank, &in.shape));
  rt_plan_norm_t plan;
  RT_RETURN_IF_ERROR(rt_ir_plan_norm(call->call.callee->op.op, call->call.attrs, 1, &in, &plan));
  const int32_t axis = plan.axis;
  const bool log = call->call.callee->op.op->id == RT_OP_NN_LOG_SOFTMAX;
  LLVMValueRef rdims[RT_TENSOR_MAX_RANK], dims[RT_TENSOR_MAX_RANK];
  memcpy(dims, xn->dims, sizeof dims);
  int64_t rows = 1;
  for (int32_t k = 0, j = 0; k < rank; ++k) {
    if (k == axis) continue;
    rdims[j++] = dims[k];
    rows *= (int64_t)LLVMConstIntGetZExtValue(dims[k]);
  }
  LLVMValueRef len = dims[axis];
  LLVMValueRef lo, hi;
  rt_jit_tpl_split(L, rows, task, ntasks, &lo, &hi);
  if (!log && p->vw == 16 && axis == rank - 1 && out == call && rt_jit_tpl_raw(L, x)) {
    softmax_vec(L, p->vw, rt_jit_node(L, x)->data, data, lo, hi, (int64_t)LLVMConstIntGetZExtValue(len));
    return RT_OK;
  }
  /* softmax keeps its row's exp(x - max) from pass 2 for pass 3 (one exp
   * per element, not two): a row of workspace per task. */
  LLVMValueRef ebuf = log ? NULL : rt_jit_tpl_ws_alloc(L, (int64_t)LLVMConstIntGetZExtValue(len) * 4);
  rt_jit_if_t have;
  if (ebuf) rt_jit_if_begin(L, LLVMBuildIsNotNull(L->b, ebuf, ""), &have);
  rt_jit_loop_t lr;
  rt_jit_loop_begin(L, lo, hi, 0, NULL, &lr);
  LLVMValueRef ridx[RT_TENSOR_MAX_RANK], idx[RT_TENSOR_MAX_RANK];
  rt_jit_unravel(L, lr.iv, rank - 1, rdims, ridx);
  for (int32_t k = 0, j = 0; k < rank; ++k) idx[k] = k == axis ? NULL : ridx[j++];
  /* Pass 1: the maximum. */
  rt_jit_loop_t l1, l2, l3;
  LLVMValueRef init = rt_jit_const_lowest(L, xn->dtype);
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), len, 1, &init, &l1);
  idx[axis] = l1.iv;
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, x, idx, &v));
  LLVMValueRef m = rt_jit_intrinsic(L, "llvm.maximum", l1.carry[0], v, NULL);
  rt_jit_loop_end(L, &l1, &m);
  m = l1.carry[0];
  /* Pass 2: the sum of exp(x - max). */
  init = LLVMConstReal(L->f32, 0);
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), len, 1, &init, &l2);
  idx[axis] = l2.iv;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, x, idx, &v));
  LLVMValueRef e = rt_jit_exp(L, LLVMBuildFSub(L->b, v, m, ""));
  if (ebuf) rt_jit_tpl_storef(L, e, ebuf, l2.iv);
  LLVMValueRef s = rt_jit_fast(LLVMBuildFAdd(L->b, l2.carry[0], e, ""));
  rt_jit_loop_end(L, &l2, &s);
  s = l2.carry[0];
  LLVMValueRef lsum = log ? rt_jit_intrinsic(L, "llvm.log", s, NULL, NULL) : NULL;
  /* softmax multiplies by 1/sum: a vector division per 8 elements held
   * pass 3 at ~5 cycles (Zen 3); the product is within 1 ulp of the
   * quotient. */
  LLVMValueRef rsum = log ? NULL : LLVMBuildFDiv(L->b, LLVMConstReal(L->f32, 1.0), s, "");
  /* Pass 3: the values, through the epilogue. */
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), len, 0, NULL, &l3);
  LLVMValueRef oidx[RT_TENSOR_MAX_RANK];
  memcpy(oidx, idx, sizeof oidx);
  oidx[axis] = l3.iv;
  idx[axis] = l3.iv;
  LLVMValueRef r;
  if (log) {
    RT_RETURN_IF_ERROR(rt_jit_elem(L, x, idx, &v));
    r = LLVMBuildFSub(L->b, LLVMBuildFSub(L->b, v, m, ""), lsum, "");
  } else {
    r = LLVMBuildFMul(L->b, rt_jit_tpl_loadf(L, ebuf, l3.iv), rsum, "");
  }
  RT_RETURN_IF_ERROR(rt_jit_tpl_epilogue(L, call, out, data, oidx, r));
  rt_jit_loop_end(L, &l3, NULL);
  rt_jit_loop_end(L, &lr, NULL);
  if (ebuf) {
    rt_jit_if_else(L, &have, NULL);
    rt_jit_flag_error(L, LLVMConstInt(L->i1, 1, 0), "out of workspace memory (softmax template)");
    (void)rt_jit_if_end(L, &have, NULL);
    rt_jit_tpl_ws_free(L, ebuf);
  }
  return RT_OK;
}
