/* Type relations of the ops whose output dims the input's values decide
 * (ir/ops.def, data-dependent block): argwhere. Those dims are `?`; the
 * rank and dtype are static. */
#include "ir/op/op_impl.h"

rt_status_t rt_ir_rel_argwhere(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  int64_t dims[2] = {RT_DIM_ANY, x->tensor.rank};
  return rt_ir_op_make_tensor(ctx, RT_DTYPE_INT32, 2, dims, out_type);
}
