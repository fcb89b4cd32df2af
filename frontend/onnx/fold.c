/* Import-time folding of small constant computations, so ONNX shape
 * subgraphs (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, Range,
 * ConstantOfShape sizes) become static attributes before the ops that need
 * them as attributes are built.
 *
 * rt_onnx_call hands every call it built here. The policy: when the call
 * is one of the ops shape arithmetic uses (reshapes, casts, elementwise
 * arithmetic and comparison with broadcasting, where, take, concatenate,
 * strided_slice), all its arguments are constants (a tuple of constants
 * for concatenate), and its result has a static shape of at most
 * RT_ONNX_HOST_FOLD_MAX elements, the call is computed and replaced by a
 * constant. Computing is not done here: the frontend sits above ir/ only,
 * so whoever loads the model hands the importer a constant evaluator
 * (ir/evaluator.h; backend/load.c gives it the reference interpreter's,
 * interp/evaluator.h), and the values are the reference kernels'. A call
 * the evaluator cannot compute (an integer division by zero, a take index
 * out of range) stays a call, as does everything when there is no
 * evaluator. Everything else is left to the FoldConstant pass. */
#include "frontend/onnx/fold.h"

/* The ops folded at import time: reshapes, casts, elementwise arithmetic
 * and comparison, where, take, concatenate, strided_slice. */
static const int32_t folded_ops[] = {
    RT_OP_RESHAPE, RT_OP_SQUEEZE, RT_OP_EXPAND_DIMS, RT_OP_NN_BATCH_FLATTEN, RT_OP_COPY,
    RT_OP_CAST,
    RT_OP_ADD, RT_OP_SUBTRACT, RT_OP_MULTIPLY, RT_OP_DIVIDE, RT_OP_FLOOR_DIVIDE,
    RT_OP_MAXIMUM, RT_OP_MINIMUM, RT_OP_FLOOR_MOD, RT_OP_MOD,
    RT_OP_EQUAL, RT_OP_NOT_EQUAL, RT_OP_LESS, RT_OP_LESS_EQUAL, RT_OP_GREATER,
    RT_OP_GREATER_EQUAL, RT_OP_LOGICAL_AND, RT_OP_LOGICAL_OR,
    RT_OP_NEGATIVE, RT_OP_ABS, RT_OP_LOGICAL_NOT, RT_OP_SIGN,
    RT_OP_WHERE, RT_OP_TAKE, RT_OP_CONCATENATE, RT_OP_STRIDED_SLICE,
};

static bool foldable(int32_t op) {
  for (size_t i = 0; i < RT_COUNTOF(folded_ops); ++i) {
    if (folded_ops[i] == op) return true;
  }
  return false;
}

rt_status_t rt_onnx_fold(rt_onnx_ctx_t *cx, rt_ir_expr_t *call, rt_ir_expr_t **out) {
  *out = call;
  if (!cx->eval || !foldable(call->call.callee->op.op->id)) return RT_OK;
  const rt_ir_type_t *ot = rt_onnx_type(call);
  if (!ot || !rt_onnx_static_shape(ot)) return RT_OK;
  int64_t numel = 1;
  for (int32_t d = 0; d < ot->tensor.rank; ++d) {
    numel *= ot->tensor.shape[d];
    if (numel > RT_ONNX_HOST_FOLD_MAX) return RT_OK;
  }
  for (int32_t i = 0; i < call->call.nargs; ++i) {
    const rt_ir_expr_t *a = call->call.args[i];
    if (a->kind == RT_IR_TUPLE && call->call.callee->op.op->id == RT_OP_CONCATENATE) {
      for (int32_t j = 0; j < a->tuple.count; ++j) {
        if (!rt_onnx_is_const(a->tuple.fields[j])) return RT_OK;
      }
    } else if (!rt_onnx_is_const(a)) {
      return RT_OK;
    }
  }
  rt_tensor_t *res = NULL;
  RT_RETURN_IF_ERROR(cx->eval->eval(cx->eval->self, call, &res));
  if (!res) return RT_OK;
  rt_status_t st = rt_onnx_constant(cx, res, out);
  rt_tensor_release(res);
  return st;
}
