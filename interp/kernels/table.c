/* The reference kernel table: ir/ops.def expanded into one kernel per
 * built-in op: rt_interp_k_<ID> (defined in the family file matching
 * ir/op/<family>.c) for RT_OP rows, the shared unary / binary kernels of
 * elemwise.c for RT_UNARY / RT_BINARY rows. A line of ops.def without its
 * kernel is a link error, and the static assert keeps the table the size
 * of the op enum. */
#include "interp/kernels/kernels_impl.h"

static const rt_interp_kernel_fn table[] = {
#define RT_OP(ID, name, ninputs, pattern, fields, rel, family, doc) [RT_OP_##ID] = rt_interp_k_##ID,
#define RT_UNARY(ID, name, fields, domain, doc) [RT_OP_##ID] = rt_interp_k_unary,
#define RT_BINARY(ID, name, rel, domain, doc) [RT_OP_##ID] = rt_interp_k_binary,
#include "ir/ops.def"
#undef RT_BINARY
#undef RT_UNARY
#undef RT_OP
};
_Static_assert(RT_COUNTOF(table) == RT_OP_COUNT,
               "one reference kernel per ops.def line");

rt_interp_kernel_fn rt_interp_kernel(rt_op_id_t id) {
  if ((int32_t)id < 0 || (int32_t)id >= RT_OP_COUNT) return NULL;
  return table[id];
}
