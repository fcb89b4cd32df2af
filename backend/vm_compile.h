/* Internal to backend/: the "vm" executor's compile side, from an optimized
 * module (the shared pipeline, then ToANormalForm and LambdaLift) to an
 * rt_vm_executable_t (runtime/vm.h) and its JIT kernels. */
#ifndef RT_BACKEND_VM_COMPILE_H_
#define RT_BACKEND_VM_COMPILE_H_

#include "ir/ir.h"
#include "jit/jit.h"
#include "rt/pass.h"
#include "runtime/vm.h"

typedef struct rt_vm_build_t {
  rt_vm_executable_t exe;      /* handed to rt_vm_create (borrowed by the VM) */
  rt_jit_module_t *jit;        /* the compiled kernels (owned) */
  rt_kernel_fn *kernels;       /* per kernel (owned array) */
  rt_ir_expr_t **kernel_fns;   /* per kernel: its Primitive function */
  rt_module_t *module;         /* retained: the kernel functions live here */
} rt_vm_build_t;

/* The VM's lowering steps, ToANormalForm and LambdaLift, are lowering, not
 * optimization: when `ctx` skipped them (opt_level 0, or disabled), this
 * runs them (and type inference) on `module` so the compiler gets the form
 * it needs; otherwise *out_module is `module`, retained. */
RT_MUST_USE_RESULT rt_status_t rt_vm_prepare_module(rt_module_t *module,
                                                    const rt_pass_context_t *ctx,
                                                    rt_module_t **out_module);

/* Compiles every global function of `module` (in A-normal form, closures
 * lifted) into one VM function each, with the same index order as the
 * module's globals, and every distinct Primitive function into one kernel
 * of ONE JIT module. Static-shaped intermediates that only kernels read get
 * frame storage planned by liveness; KillRegister follows the last use of
 * every other value. Each dynamic kernel gets a shape recipe (runtime/vm.h)
 * when its output dims are affine in its input `?` dims (checked by probing
 * the type relations), so the runtime-only library can size its outputs. A
 * group that is a lone dyn.reshape is no kernel but ReshapeDyn. A JIT that
 * cannot lower a group returns its
 * UNIMPLEMENTED status (naming the kernel and the op), annotated; a
 * construct the VM does not run (a recursive closure, an op call outside a
 * fused group) is INVALID_ARGUMENT naming it. */
RT_MUST_USE_RESULT rt_status_t rt_vm_compile(rt_module_t *module, rt_jit_session_t *session,
                                             uint32_t jit_flags, rt_vm_build_t *out_build);
void rt_vm_build_deinitialize(rt_vm_build_t *build);

/* The most tensors (inputs + outputs, tuples flattened) of one kernel. */
#define RT_VM_MAX_LEAVES 256

/* The tensor leaves of a type, tuples flattened in order, into out (room
 * for RT_VM_MAX_LEAVES; *n counts them all, even past that). */
void rt_vm_type_leaves(const rt_ir_type_t *type, const rt_ir_type_t **out, int32_t *n);

/* Derives kernel k's shape recipe (runtime/vm.h) by probing the host shape
 * function, when its output dims are affine in its inputs' `?` dims;
 * leaves the kernel without one otherwise (vm_shape.c). */
RT_MUST_USE_RESULT rt_status_t rt_vm_derive_recipe(rt_vm_build_t *build, int32_t k);

/* The host shape function (rt_vm_shape_fn) for a build: `user` is the
 * rt_vm_build_t. It runs the kernel's fused function's type relations, op
 * by op, on the concrete input shapes, and fills the output shapes. An
 * output whose shape depends on the input values (not only their shapes)
 * is UNIMPLEMENTED naming the kernel. */
RT_MUST_USE_RESULT rt_status_t rt_vm_shape_function(void *user, int32_t kernel,
                                                    int32_t num_inputs,
                                                    const rt_kernel_arg *inputs,
                                                    int32_t num_outputs,
                                                    rt_vm_shape_t *out_shapes);

#endif /* RT_BACKEND_VM_COMPILE_H_ */
