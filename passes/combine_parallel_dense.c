/* CombineParallelDense (opt_level 4): several nn.dense on the same input
 * with weights of the same K become one dense over the weights
 * concatenated along N, and each branch takes its columns back with a
 * strided_slice along the last axis (TVM's to_batch=False form; the
 * batch_matmul form is not implemented):
 *   %a = nn.dense(%x, %w1, units=2); %b = nn.dense(%x, %w2, units=3); ...
 * ->
 *   %w = concatenate((%w1, %w2, %w3));
 *   %y = nn.dense(%x, %w, units=2+3+...);
 *   %a = strided_slice(%y, begin=[0], end=[2], strides=[1], axes=[<last>]); ...
 * TVM's default min_branches = 3 is kept: two parallel denses are left
 * alone. Elementwise ops after each branch stay per branch.
 *
 * Branches combine when: the same data node; the same out_dtype; weights
 * atomic (a Var or a Constant, as they are where this pass runs), static,
 * 2-d, of one dtype and one K. units becomes the sum when every branch sets
 * it, else None. The grouping and rewriting are the engine of passes/combine_parallel.c. */
#include <string.h>

#include "passes/combine_parallel.h"

/* The output's last axis: the dense's N. */
static int32_t out_axis(const rt_ir_expr_t *c) {
  return rt_combine_tensor_type(c)->tensor.rank - 1;
}

static int32_t weight_axis(const rt_ir_expr_t *c) {
  (void)c;
  return 0;
}

static bool units_set(const rt_ir_expr_t *c) {
  return !rt_ir_attrs_dense(c->call.attrs).units_is_none;
}

static bool candidate(const rt_ir_expr_t *c) {
  if (!rt_pass_is_op(c, RT_OP_NN_DENSE)) return false;
  const rt_ir_expr_t *w = c->call.args[1];
  if (w->kind != RT_IR_VAR && w->kind != RT_IR_CONSTANT) return false;
  const rt_ir_type_t *wt = rt_combine_tensor_type(w), *ot = rt_combine_tensor_type(c);
  if (!wt || wt->tensor.rank != 2 || !ot || ot->tensor.rank < 1) return false;
  return wt->tensor.shape[0] != RT_DIM_ANY && wt->tensor.shape[1] != RT_DIM_ANY;
}

static bool compatible(const rt_ir_expr_t *a, const rt_ir_expr_t *b) {
  if (a->call.args[0] != b->call.args[0]) return false;
  const rt_attrs_dense_t x = rt_ir_attrs_dense(a->call.attrs), y = rt_ir_attrs_dense(b->call.attrs);
  if (x.out_dtype_is_none != y.out_dtype_is_none ||
      (!x.out_dtype_is_none && !rt_dtype_equal(x.out_dtype, y.out_dtype))) {
    return false;
  }
  const rt_ir_type_t *wa = rt_combine_tensor_type(a->call.args[1]);
  const rt_ir_type_t *wb = rt_combine_tensor_type(b->call.args[1]);
  return rt_dtype_equal(wa->tensor.dtype, wb->tensor.dtype) &&
         wa->tensor.shape[1] == wb->tensor.shape[1];
}


static const rt_combine_rules_t kRules = {
    .pass_name = "CombineParallelDense",
    .candidate = candidate,
    .compatible = compatible,
    .weight_axis = weight_axis,
    .out_axis = out_axis,
    .size_pos = RT_COMBINE_FIELD_POS(dense, units),
    .size_set = units_set,
    .size_none_unless_all = true,
};

rt_status_t rt_pass_combine_parallel_dense(const rt_pass_env_t *env, rt_module_t *in,
                                           rt_module_t **out) {
  return rt_pass_combine_parallel(env, &kRules, in, out);
}
