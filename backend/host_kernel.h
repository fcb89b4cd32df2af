/* Internal to backend/: fused groups the JIT does not compile, run by
 * their reference kernels through the interpreter (backend/host_kernel.c).
 * The vm calls them as host ops on any values (backend/vm_host.c,
 * InvokeHost); the graph executor calls them as kernels of static tensor
 * groups, through a kernel-ABI entry point made here. */
#ifndef RT_BACKEND_HOST_KERNEL_H_
#define RT_BACKEND_HOST_KERNEL_H_

#include "ir/ir.h"
#include "rt/kernel_abi.h"

/* Whether Primitive function `fn` runs on the host: it holds a built-in op
 * the JIT does not lower (string, datadep, adt, detect ... families; not a
 * dyn op, whose value operands the vm and the graph executor specialize
 * on) or a custom op with only a reference kernel (include/rt/op.h), or
 * takes or makes a list, an option or a string tensor. */
RT_MUST_USE_RESULT rt_status_t rt_backend_is_host_group(const rt_ir_expr_t *fn, bool *out);

typedef struct rt_host_kernel_t rt_host_kernel_t;

/* A kernel-ABI entry point (*out_entry, valid while *out lives) for group
 * `fn` of `module` (retained) whose parameters and results are static
 * tensors: a libffi closure that copies the inputs into tensors, evaluates
 * the group's body with an interpreter of its own (one call at a time: a
 * mutex), and copies each result into its output, checking its dtype and
 * shape. Errors go to the call's set_error, naming the group. */
RT_MUST_USE_RESULT rt_status_t rt_host_kernel_create(rt_module_t *module, rt_ir_expr_t *fn,
                                                     const char *name, rt_host_kernel_t **out,
                                                     rt_kernel_fn *out_entry);
void rt_host_kernel_release(rt_host_kernel_t *kernel); /* NULL is fine */

#endif /* RT_BACKEND_HOST_KERNEL_H_ */
