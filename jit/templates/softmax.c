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
 * (rt_ir_plan_norm, ir/op/plan_nn.h). */
#include <string.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"
#include "jit/templates/templates.h"

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
