/* Reference kernels: the interpreter's implementation of every op, written
 * for obviousness (plain loops over row-major indices, float64 accumulation
 * where it makes the result more exact, each tensor converted once rather
 * than element by element). They share nothing with jit/: they
 * are the independent side of every differential test.
 *
 * Calling convention. The interpreter evaluates the op's type relation on
 * the concrete argument types, allocates every output whose shape is known
 * (compact, zero-filled), and calls the kernel once:
 *   - args: the call's arguments as tensors. An argument that is a tuple
 *     (concatenate, stack) is flattened: args holds its fields in order and
 *     `tuple_arity[i]` says how many of them came from argument i.
 *   - outs: the outputs, flattened the same way for a tuple result
 *     (split, batch_norm, dropout). outs[i] is NULL when the type relation
 *     left a `?` in that output's shape (arange: the length depends on the
 *     values); the kernel then creates it with rt_tensor_create.
 * Kernels read tensors through rt_tensor_data/shape/... and may assume
 * compact layout (the interpreter compacts arguments first). They return
 * an error status for conditions only the values reveal (index out of range
 * with mode="fast", integer division by zero), never crash, never print. */
#ifndef RT_INTERP_KERNEL_H_
#define RT_INTERP_KERNEL_H_

#include "ir/ir.h"

typedef struct rt_interp_call_t {
  rt_allocator_t allocator;     /* for outputs a kernel creates, and scratch */
  const rt_ir_op_t *op;
  const rt_ir_attrs_t *attrs;   /* schema order, defaults filled */
  int32_t nargs;                /* flattened count */
  rt_tensor_t *const *args;
  int32_t ninputs;              /* the op's num_inputs */
  const int32_t *tuple_arity;   /* per input: fields taken from args (1 for a tensor) */
  int32_t nouts;                /* flattened count */
  rt_tensor_t **outs;
  const rt_ir_type_t *out_type; /* the concrete result type */
} rt_interp_call_t;

typedef rt_status_t (*rt_interp_kernel_fn)(const rt_interp_call_t *call);

/* The reference kernel of a built-in op (never NULL for ids < RT_OP_COUNT:
 * a missing one is a build error through the table's static assert). */
rt_interp_kernel_fn rt_interp_kernel(rt_op_id_t id);

#endif /* RT_INTERP_KERNEL_H_ */
