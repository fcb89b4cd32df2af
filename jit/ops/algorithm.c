/* Lowering of the algorithm ops (ir/op/algorithm.c): cumsum and topk, with
 * the semantics of interp/kernels/algorithm.c.
 *
 * cumsum: element j along the axis is a loop over positions 0..j (0..j-1
 * when exclusive) of the input's element expression, converted to the
 * output dtype and added in its compute type (float for float32, where the
 * reference uses double); axis None walks the flattened input (the output
 * index is a flat position, unravelled into the input's dims). Quadratic
 * in the axis extent, like every element-expression scan: fine for the
 * short axes models use it on.
 *
 * topk: element j along the axis is the input element whose rank is j,
 * rank(i) = the number of positions l that come before i: strictly larger
 * (smaller with is_ascend; NaN larger than every number), or equal with
 * l < i. That is the stable sort's position, so values and indices agree
 * with the reference exactly. Two nested loops per output element (k n^2
 * per line): topk here is for small axes (detection heads, sampling), not
 * for sorting long vectors.
 *
 * Both read their plan (ir/op/plan_misc.h) computed on the operand's type:
 * the axis made non-negative, exclusive, is_ascend, ret_type as an enum. */
#include <string.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"

static rt_jit_node_t *arg0(rt_jit_lower_t *L, const rt_ir_expr_t *call) {
  return rt_jit_node(L, call->call.args[0]);
}

static rt_status_t plan_scan(const rt_ir_expr_t *call, rt_plan_scan_t *out) {
  rt_plan_input_t in;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 1, &in));
  return rt_ir_plan_scan(call->call.attrs, 1, &in, out);
}

static rt_status_t plan_topk(const rt_ir_expr_t *call, rt_plan_topk_t *out) {
  rt_plan_input_t in;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 1, &in));
  return rt_ir_plan_topk(call->call.attrs, 1, &in, out);
}

/* ---- cumsum ------------------------------------------------------------------ */

RT_JIT_ELEM_FN(rt_jit_elem_cumsum) {
  rt_jit_node_t *x = arg0(L, call);
  rt_jit_node_t *self = rt_jit_node(L, call);
  if (!x || !self) return RT_STATUS(INTERNAL, "%s", "cumsum: operand was not sized");
  rt_plan_scan_t plan;
  RT_RETURN_IF_ERROR(plan_scan(call, &plan));
  const bool flat = plan.flat;
  const int32_t axis = flat ? 0 : plan.axis;
  const bool exclusive = plan.exclusive;
  const rt_dtype_t odt = self->dtype;
  LLVMValueRef j = flat ? idx[0] : idx[axis];
  LLVMValueRef hi = exclusive ? j : LLVMBuildAdd(L->b, j, rt_jit_i64(L, 1), "");
  LLVMValueRef init = rt_jit_const_f(L, odt, 0);
  if (!rt_jit_is_float(odt)) init = rt_jit_const_i(L, odt, 0);
  rt_jit_loop_t loop;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), hi, 1, &init, &loop);
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  if (flat) {
    rt_jit_unravel(L, loop.iv, x->rank, x->dims, in);
  } else {
    memcpy(in, idx, (size_t)x->rank * sizeof *in);
    in[axis] = loop.iv;
  }
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], in, &v));
  v = rt_jit_convert(L, v, x->dtype, odt);
  LLVMValueRef next = rt_jit_is_float(odt) ? LLVMBuildFAdd(L->b, loop.carry[0], v, "")
                                          : LLVMBuildAdd(L->b, loop.carry[0], v, "");
  rt_jit_loop_end(L, &loop, &next);
  *out_value = loop.carry[0];
  return RT_OK;
}

/* ---- topk ---------------------------------------------------------------------- */

/* (a before b strictly, a tie with b) for compute values of dtype dt. */
static void order(rt_jit_lower_t *L, rt_dtype_t dt, bool ascend, LLVMValueRef a, LLVMValueRef b,
                  LLVMValueRef *out_before, LLVMValueRef *out_tie) {
  LLVMBuilderRef B = L->b;
  if (rt_jit_is_float(dt)) {
    LLVMValueRef na = LLVMBuildFCmp(B, LLVMRealUNO, a, a, "");
    LLVMValueRef nb = LLVMBuildFCmp(B, LLVMRealUNO, b, b, "");
    LLVMValueRef nan_first = ascend ? LLVMBuildAnd(B, LLVMBuildNot(B, na, ""), nb, "")
                                    : LLVMBuildAnd(B, na, LLVMBuildNot(B, nb, ""), "");
    LLVMValueRef cmp = LLVMBuildFCmp(B, ascend ? LLVMRealOLT : LLVMRealOGT, a, b, "");
    *out_before = LLVMBuildOr(B, nan_first, cmp, "");
    *out_tie = LLVMBuildOr(B, LLVMBuildFCmp(B, LLVMRealOEQ, a, b, ""), LLVMBuildAnd(B, na, nb, ""), "");
    return;
  }
  const bool uns = !rt_jit_is_signed(dt);
  LLVMIntPredicate p = ascend ? (uns ? LLVMIntULT : LLVMIntSLT) : (uns ? LLVMIntUGT : LLVMIntSGT);
  *out_before = LLVMBuildICmp(B, p, a, b, "");
  *out_tie = LLVMBuildICmp(B, LLVMIntEQ, a, b, "");
}

/* The element of rank idx[axis] along the axis: its value (compute type of
 * x's dtype) and its position (i64). */
static rt_status_t topk_select(rt_jit_lower_t *L, const rt_ir_expr_t *call, const LLVMValueRef *idx,
                               LLVMValueRef *out_value, LLVMValueRef *out_pos) {
  rt_jit_node_t *x = arg0(L, call);
  if (!x) return RT_STATUS(INTERNAL, "%s", "topk: operand was not sized");
  rt_plan_topk_t plan;
  RT_RETURN_IF_ERROR(plan_topk(call, &plan));
  const int32_t axis = plan.axis;
  const bool ascend = plan.ascend;
  const rt_ir_expr_t *arg = call->call.args[0];
  LLVMValueRef n = x->dims[axis];
  LLVMValueRef j = idx[axis];
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  memcpy(in, idx, (size_t)x->rank * sizeof *in);
  /* for i: found = rank(i) == j ? (x_i, i) : found */
  LLVMValueRef init[2] = {rt_jit_const_i(L, x->dtype, 0), rt_jit_i64(L, 0)};
  if (rt_jit_is_float(x->dtype)) init[0] = rt_jit_const_f(L, x->dtype, 0);
  rt_jit_loop_t outer;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), n, 2, init, &outer);
  LLVMValueRef i = outer.iv, xi;
  in[axis] = i;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, arg, in, &xi));
  LLVMValueRef zero = rt_jit_i64(L, 0);
  rt_jit_loop_t inner;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), n, 1, &zero, &inner);
  LLVMValueRef l = inner.iv, xl;
  LLVMValueRef lin[RT_TENSOR_MAX_RANK];
  memcpy(lin, idx, (size_t)x->rank * sizeof *lin);
  lin[axis] = l;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, arg, lin, &xl));
  LLVMValueRef bef, tie;
  order(L, x->dtype, ascend, xl, xi, &bef, &tie);
  LLVMValueRef earlier = LLVMBuildICmp(L->b, LLVMIntSLT, l, i, "");
  LLVMValueRef counts = LLVMBuildOr(L->b, bef, LLVMBuildAnd(L->b, tie, earlier, ""), "");
  LLVMValueRef cnt = LLVMBuildAdd(L->b, inner.carry[0], LLVMBuildZExt(L->b, counts, L->i64, ""), "");
  rt_jit_loop_end(L, &inner, &cnt);
  LLVMValueRef hit = LLVMBuildICmp(L->b, LLVMIntEQ, inner.carry[0], j, "");
  LLVMValueRef next[2] = {LLVMBuildSelect(L->b, hit, xi, outer.carry[0], ""),
                          LLVMBuildSelect(L->b, hit, i, outer.carry[1], "")};
  rt_jit_loop_end(L, &outer, next);
  *out_value = outer.carry[0];
  *out_pos = outer.carry[1];
  return RT_OK;
}

rt_status_t rt_jit_topk_field_elem(rt_jit_lower_t *L, const rt_ir_expr_t *call, int32_t field,
                                   const LLVMValueRef *idx, LLVMValueRef *out_value) {
  LLVMValueRef v, pos;
  RT_RETURN_IF_ERROR(topk_select(L, call, idx, &v, &pos));
  if (field == 0) {
    *out_value = v;
    return RT_OK;
  }
  rt_ir_type_t *t = rt_ir_type_resolve(call->checked_type);
  if (t->kind != RT_IR_TYPE_TUPLE || field != 1 || t->tuple.count != 2) {
    return RT_STATUS(INTERNAL, "topk: no field %d", field);
  }
  rt_ir_type_t *ft = rt_ir_type_resolve(t->tuple.fields[1]);
  *out_value = rt_jit_convert(L, pos, RT_DTYPE_INT64, ft->tensor.dtype);
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_topk) {
  rt_plan_topk_t plan;
  RT_RETURN_IF_ERROR(plan_topk(call, &plan));
  if (plan.ret == RT_TOPK_RET_BOTH) {
    return RT_STATUS(INTERNAL, "%s", "topk: lowered through its fields");
  }
  LLVMValueRef v, pos;
  RT_RETURN_IF_ERROR(topk_select(L, call, idx, &v, &pos));
  if (plan.ret == RT_TOPK_RET_VALUES) {
    *out_value = v;
    return RT_OK;
  }
  *out_value = rt_jit_convert(L, pos, RT_DTYPE_INT64, rt_jit_node(L, call)->dtype);
  return RT_OK;
}
