/* The reference kernel table: ir/ops.def expanded into one kernel per
 * built-in op (rt_interp_k_<ID>, defined in the family file matching
 * ir/op/<family>.c). A line of ops.def without its kernel is a link error,
 * and the static assert keeps the table the size of the op enum. */
#include "interp/kernels/kernels_impl.h"

static const rt_interp_kernel_fn table[] = {
#define RT_OP(ID, name, ninputs, pattern, fields, rel, doc) [RT_OP_##ID] = rt_interp_k_##ID,
#include "ir/ops.def"
#undef RT_OP
};
_Static_assert(RT_COUNTOF(table) == RT_OP_COUNT,
               "one reference kernel per ops.def line");

rt_interp_kernel_fn rt_interp_kernel(rt_op_id_t id) {
  if ((int32_t)id < 0 || (int32_t)id >= RT_OP_COUNT) return NULL;
  return table[id];
}
