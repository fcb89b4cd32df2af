/* Reference kernels of the ops whose output dims the input's values decide
 * (ir/ops.def, data-dependent block): each counts its result first and
 * creates its output at that size (call->outs[i] is NULL for an output
 * whose type has `?` dims; a caller that sized it gets a check). */
#include <string.h>

#include "interp/kernels/kernels_impl.h"

/* argwhere: the coordinates of the nonzero elements in row-major order. */
rt_status_t rt_interp_k_ARGWHERE(const rt_interp_call_t *call) {
  rt_tensor_t *x = call->args[0];
  int32_t r = rt_tensor_rank(x);
  const int64_t *shape = rt_tensor_shape(x);
  int64_t n = rt_tensor_numel(x), count = 0;
  for (int64_t i = 0; i < n; ++i) count += rt_interp_load_f(x, i) != 0.0;
  int64_t oshape[2] = {count, r};
  rt_tensor_t *y = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(call->allocator, RT_DTYPE_INT32, 2, oshape, &y));
  int32_t *out = rt_tensor_data(y);
  int64_t row = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (rt_interp_load_f(x, i) == 0.0) continue;
    int64_t rem = i;
    for (int32_t d = r - 1; d >= 0; --d) {
      out[row * r + d] = (int32_t)(rem % shape[d]);
      rem /= shape[d];
    }
    ++row;
  }
  return rt_interp_deliver(call, 0, y, "the output was sized differently from the data's count");
}
