/* Lowering of the scatter family (ir/op/scatter.c): scatter_elements and
 * scatter_nd, with the semantics of interp/kernels/scatter.c, in the
 * element-function style: output element o starts as data[o] and a loop
 * over the updates that can land on it (scatter_elements: the positions
 * along the axis of the indices' line through o; scatter_nd: every index
 * tuple) meets it, in updates' row-major order, with each update whose
 * index names o. So duplicates resolve as in the reference (the last wins
 * for `update`), and each step is rounded to the dtype (rt_jit_normalize)
 * as the reference stores it. The cost is a loop per output element: the
 * axis extent for scatter_elements, the tuple count times M for
 * scatter_nd; fine for the index-update graphs models use them in, not a
 * bulk scatter. Index values may be negative (from the end); values
 * outside [-n, n) flag the kernel's error (rt_jit_flag_error) and are
 * clamped so no load goes out of bounds. */
#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"

static LLVMValueRef index_i64(rt_jit_lower_t *L, LLVMValueRef v, rt_dtype_t d) {
  if (LLVMGetIntTypeWidth(LLVMTypeOf(v)) == 64) return v;
  return rt_jit_is_signed(d) ? LLVMBuildSExt(L->b, v, L->i64, "") : LLVMBuildZExt(L->b, v, L->i64, "");
}

/* v (an index value) made non-negative for an axis of n; flags values
 * outside [-n, n) and clamps them into [0, n). */
static LLVMValueRef wrap(rt_jit_lower_t *L, LLVMValueRef v, LLVMValueRef n, const char *msg) {
  LLVMValueRef neg = LLVMBuildICmp(L->b, LLVMIntSLT, v, rt_jit_i64(L, 0), "");
  LLVMValueRef bad = LLVMBuildOr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, v, LLVMBuildNeg(L->b, n, ""), ""),
                                 LLVMBuildICmp(L->b, LLVMIntSGE, v, n, ""), "");
  rt_jit_flag_error(L, bad, msg);
  v = LLVMBuildSelect(L->b, neg, LLVMBuildAdd(L->b, v, n, ""), v, "");
  LLVMValueRef hi = rt_jit_max(L, LLVMBuildSub(L->b, n, rt_jit_i64(L, 1), ""), rt_jit_i64(L, 0));
  return rt_jit_min(L, rt_jit_max(L, v, rt_jit_i64(L, 0)), hi);
}

/* reduce(a, b) in dtype d's compute type, rounded to d. */
static LLVMValueRef meet(rt_jit_lower_t *L, rt_scatter_reduce_t r, rt_dtype_t d, LLVMValueRef a,
                         LLVMValueRef b) {
  LLVMValueRef v = b;
  if (rt_jit_is_float(d)) {
    switch (r) {
      case RT_SCATTER_ADD: v = LLVMBuildFAdd(L->b, a, b, ""); break;
      case RT_SCATTER_MUL: v = LLVMBuildFMul(L->b, a, b, ""); break;
      case RT_SCATTER_MIN: v = LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, LLVMRealOLT, b, a, ""), b, a, ""); break;
      case RT_SCATTER_MAX: v = LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, LLVMRealOGT, b, a, ""), b, a, ""); break;
      case RT_SCATTER_UPDATE: break;
    }
  } else {
    const bool s = rt_jit_is_signed(d);
    switch (r) {
      case RT_SCATTER_ADD: v = LLVMBuildAdd(L->b, a, b, ""); break;
      case RT_SCATTER_MUL: v = LLVMBuildMul(L->b, a, b, ""); break;
      case RT_SCATTER_MIN:
        v = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, s ? LLVMIntSLT : LLVMIntULT, b, a, ""), b, a, "");
        break;
      case RT_SCATTER_MAX:
        v = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, s ? LLVMIntSGT : LLVMIntUGT, b, a, ""), b, a, "");
        break;
      case RT_SCATTER_UPDATE: break;
    }
  }
  return rt_jit_normalize(L, v, d);
}

static rt_status_t plan_status(const rt_ir_expr_t *call, rt_status_t st) {
  return st ? rt_status_annotate(st, "lowering %s", call->call.callee->op.op->name) : RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_scatter_elements) {
  rt_jit_node_t *x = rt_jit_node(L, call->call.args[0]), *ind = rt_jit_node(L, call->call.args[1]);
  rt_plan_input_t pin[3];
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 3, pin));
  rt_plan_scatter_elements_t p;
  RT_RETURN_IF_ERROR(plan_status(call, rt_ir_plan_scatter_elements(call->call.attrs, 3, pin, &p)));
  const int32_t axis = p.axis, rank = x->rank;
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], idx, &v));
  /* Only the indices' line through o (same coordinates off the axis) can
   * land on o; when o is outside the indices' extent none does. */
  LLVMValueRef ui[RT_TENSOR_MAX_RANK];
  LLVMValueRef inside = LLVMConstInt(L->i1, 1, 0);
  for (int32_t d = 0; d < rank; ++d) {
    if (d == axis) continue;
    inside = LLVMBuildAnd(L->b, inside, LLVMBuildICmp(L->b, LLVMIntSLT, idx[d], ind->dims[d], ""), "");
    LLVMValueRef hi = rt_jit_max(L, LLVMBuildSub(L->b, ind->dims[d], rt_jit_i64(L, 1), ""), rt_jit_i64(L, 0));
    ui[d] = rt_jit_min(L, idx[d], hi);
  }
  LLVMValueRef count = LLVMBuildSelect(L->b, inside, ind->dims[axis], rt_jit_i64(L, 0), "");
  rt_jit_loop_t loop;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), count, 1, &v, &loop);
  ui[axis] = loop.iv;
  LLVMValueRef iv, uv;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[1], ui, &iv));
  LLVMValueRef w = wrap(L, index_i64(L, iv, ind->dtype), x->dims[axis], "scatter_elements: index out of range");
  LLVMValueRef hit = LLVMBuildICmp(L->b, LLVMIntEQ, w, idx[axis], "");
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[2], ui, &uv));
  LLVMValueRef next = LLVMBuildSelect(L->b, hit, meet(L, p.reduce, x->dtype, loop.carry[0], uv),
                                      loop.carry[0], "");
  rt_jit_loop_end(L, &loop, &next);
  *out_value = loop.carry[0];
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_scatter_nd) {
  rt_jit_node_t *x = rt_jit_node(L, call->call.args[0]), *ind = rt_jit_node(L, call->call.args[1]);
  rt_plan_input_t pin[3];
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 3, pin));
  rt_plan_scatter_nd_t p;
  RT_RETURN_IF_ERROR(plan_status(call, rt_ir_plan_scatter_nd(call->call.attrs, 3, pin, &p)));
  const int32_t m = p.m, yrank = p.yrank, rank = x->rank;
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], idx, &v));
  LLVMValueRef count = rt_jit_numel(L, yrank, ind->dims + 1);
  rt_jit_loop_t loop;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), count, 1, &v, &loop);
  LLVMValueRef ii[RT_TENSOR_MAX_RANK], ui[RT_TENSOR_MAX_RANK];
  rt_jit_unravel(L, loop.iv, yrank, ind->dims + 1, ii + 1);
  LLVMValueRef hit = LLVMConstInt(L->i1, 1, 0);
  for (int32_t k = 0; k < m; ++k) {
    ii[0] = rt_jit_i64(L, k);
    LLVMValueRef iv;
    RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[1], ii, &iv));
    LLVMValueRef w = wrap(L, index_i64(L, iv, ind->dtype), x->dims[k], "scatter_nd: index out of range");
    hit = LLVMBuildAnd(L->b, hit, LLVMBuildICmp(L->b, LLVMIntEQ, w, idx[k], ""), "");
  }
  for (int32_t d = 0; d < yrank; ++d) ui[d] = ii[d + 1];
  for (int32_t d = m; d < rank; ++d) ui[yrank + d - m] = idx[d];
  LLVMValueRef uv;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[2], ui, &uv));
  LLVMValueRef next = LLVMBuildSelect(L->b, hit, meet(L, p.reduce, x->dtype, loop.carry[0], uv),
                                      loop.carry[0], "");
  rt_jit_loop_end(L, &loop, &next);
  *out_value = loop.carry[0];
  return RT_OK;
}
