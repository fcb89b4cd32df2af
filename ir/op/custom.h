/* Internal: custom ops (include/rt/op.h) as the rest of the library sees
 * them. A registered custom op is an rt_ir_op_t (ir/op/table.c) whose
 * `custom` points at its rt_ir_custom_t (ir/op/custom.c): the user's
 * definition, its prepared libffi call and its parsed element expression.
 * Both live until the process exits. */
#ifndef RT_IR_OP_CUSTOM_H_
#define RT_IR_OP_CUSTOM_H_

#include "ir/ir.h"
#include "rt/op.h"

typedef struct rt_ir_custom_t rt_ir_custom_t;

/* Runs op's reference kernel on compact inputs into `output` (allocated
 * with the call's type). Errors name the op. In debug builds the output is
 * guarded: writing past it is INTERNAL. */
RT_MUST_USE_RESULT rt_status_t rt_ir_custom_reference(const rt_ir_op_t *op,
                                                      const rt_ir_attrs_t *attrs,
                                                      int32_t num_inputs,
                                                      rt_tensor_t *const *inputs,
                                                      int32_t num_outputs,
                                                      rt_tensor_t *const *outputs);

/* The custom op's native kernel entry (kernel ABI; wraps the user's ABI
 * kernel or libffi function with argument checks, and the output guard in
 * debug builds), or NULL when it has none. */
rt_kernel_fn rt_ir_custom_native(const rt_ir_op_t *op);

/* When `fn` (a typed Primitive function) is one call of an op whose
 * arguments are all params of the function (in any order), and that op is a custom op
 * without an element expression, or has strategies that do not all
 * decline: the kernel to run the group in *out_kernel and what it is
 * ("native kernel of my.op", "strategy 'x' for nn.conv2d") in `what`.
 * *out_kernel = NULL otherwise. UNIMPLEMENTED for a custom op that has
 * neither a native kernel nor an element expression; a strategy's error
 * is returned annotated. `target` is the LLVM triple. */
RT_MUST_USE_RESULT rt_status_t rt_ir_custom_kernel_for(const rt_ir_expr_t *fn,
                                                       const char *target,
                                                       rt_kernel_fn *out_kernel,
                                                       char *what, size_t what_size);

/* Strategies inside fused groups: when `fn`'s body holds exactly one call
 * of an op with strategies (not the body itself), whose arguments are
 * params and whose result type is static, and a strategy gives a kernel:
 * that kernel in *out_kernel and the call in *out_anchor (else both NULL).
 * The JIT then runs the kernel into a workspace buffer and the rest of the
 * group (rt_ir_custom_split) over it. */
RT_MUST_USE_RESULT rt_status_t rt_ir_custom_anchor_for(const rt_ir_expr_t *fn,
                                                       const char *target,
                                                       rt_kernel_fn *out_kernel,
                                                       const rt_ir_expr_t **out_anchor,
                                                       char *what, size_t what_size);
/* `fn` with `anchor` replaced by a new last param of its type (typed, in a
 * scratch module the caller releases after using *out_fn). */
RT_MUST_USE_RESULT rt_status_t rt_ir_custom_split(const rt_ir_expr_t *fn,
                                                  const rt_ir_expr_t *anchor,
                                                  rt_module_t **out_scratch,
                                                  const rt_ir_expr_t **out_fn);

/* Rewrites a typed function so every call of a custom op with an element
 * expression becomes that expression over built-in ops (new nodes in a
 * scratch module, typed). *out_fn = fn and *out_scratch = NULL when there
 * is none; else the caller releases *out_scratch after using *out_fn. */
RT_MUST_USE_RESULT rt_status_t rt_ir_custom_expand(const rt_ir_expr_t *fn,
                                                   rt_module_t **out_scratch,
                                                   const rt_ir_expr_t **out_fn);

/* True when kernels built for these functions may call into this process
 * (a custom op appears in one of them, or any strategy is registered):
 * such kernels must not go to the disk cache or into an exported library. */
bool rt_ir_custom_in_use(int32_t count, rt_ir_expr_t *const *fns);

#endif /* RT_IR_OP_CUSTOM_H_ */
