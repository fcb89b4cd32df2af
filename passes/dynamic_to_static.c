/* DynamicToStatic: every call of a dyn op (ir/op/dyn.h) whose value
 * operands are constants becomes its static op (TVM's
 * src/relay/transforms/dynamic_to_static.cc): dyn.reshape(x, const) ->
 * reshape(x, newshape=...), dyn.tile(x, const) -> tile(x, reps=...), and
 * so on, with the attributes read from the constants by
 * rt_ir_dyn_to_static, the same correspondence the reference kernels and
 * the vm's specialization use. It runs after FoldConstant, which turns
 * computations over constants (arithmetic, concat, shape_of of a
 * constant) into the constants this pass reads, and again after the
 * second FoldConstant, which folds the static ops this pass made from
 * constant operands. A value operand that is shape_of of a tensor whose
 * type has a static shape counts as a constant here (TVM's FoldConstant
 * folds it; relayrt's does not), so dyn.reshape(x, shape_of(y)) of a
 * static y becomes a static reshape. Calls whose values stay unknown are
 * left for the debug and vm executors; the graph executor then refuses
 * their `?` dims.
 *
 * Rebuilt calls have no types: the module is type-checked here (so a
 * caller that runs the pass alone gets a typed module), and a now static
 * result makes its users' types static too. */
#include "ir/op/dyn.h"
#include "passes/pass.h"

rt_status_t rt_pass_dynamic_to_static(const rt_pass_env_t *env, rt_module_t *in,
                                      rt_module_t **out) {
  (void)env;
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_derive(in, &m));
  bool changed = false;
  rt_status_t st = RT_OK;
  for (int32_t i = 0; i < in->num_globals && !st; ++i) {
    rt_ir_expr_t *fn = NULL;
    st = rt_ir_dyn_to_static(m, in->globals[i].fn, &fn);
    if (!st && fn != in->globals[i].fn) {
      changed = true;
      st = rt_ir_module_add(m, in->globals[i].name, fn);
    }
  }
  if (!st && changed) st = rt_ir_infer_types(m);
  if (st || !changed) {
    rt_module_release(m);
    if (st) return st;
    rt_module_retain(in);
    m = in;
  }
  *out = m;
  return RT_OK;
}
