/* Internal: custom ops and strategies as the JIT and the backends use them
 * (jit/custom.c; the record is ir/op/custom.h). */
#ifndef RT_JIT_CUSTOM_H_
#define RT_JIT_CUSTOM_H_

#include "ir/ir.h"
#include "rt/op.h"

/* When `fn` (a typed Primitive function) is one call of an op whose
 * arguments are all params of the function (in any order), and that op is a custom op
 * without an element expression, or has strategies that do not all
 * decline: the kernel to run the group in *out_kernel and what it is
 * ("native kernel of my.op", "strategy 'x' for nn.conv2d") in `what`.
 * *out_kernel = NULL otherwise. UNIMPLEMENTED for a custom op that has
 * neither a native kernel nor an element expression; a strategy's error
 * is returned annotated. `target` is the LLVM triple. */
RT_MUST_USE_RESULT rt_status_t rt_jit_custom_kernel_for(const rt_ir_expr_t *fn,
                                                        const char *target,
                                                        rt_kernel_fn *out_kernel,
                                                        char *what, size_t what_size);

/* Strategies inside fused groups: when `fn`'s body holds exactly one call
 * of an op with strategies (not the body itself), whose arguments are
 * params and whose result type is static, and a strategy gives a kernel:
 * that kernel in *out_kernel and the call in *out_anchor (else both NULL).
 * The JIT then runs the kernel into a workspace buffer and the rest of the
 * group (rt_ir_custom_split) over it. */
RT_MUST_USE_RESULT rt_status_t rt_jit_custom_anchor_for(const rt_ir_expr_t *fn,
                                                        const char *target,
                                                        rt_kernel_fn *out_kernel,
                                                        const rt_ir_expr_t **out_anchor,
                                                        char *what, size_t what_size);

/* True when kernels built for these functions may call into this process
 * (a custom op appears in one of them, or any strategy is registered):
 * such kernels must not go to the disk cache or into an exported library. */
bool rt_jit_custom_in_use(int32_t count, rt_ir_expr_t *const *fns);

#endif /* RT_JIT_CUSTOM_H_ */
