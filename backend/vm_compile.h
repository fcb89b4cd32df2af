/* Internal to backend/: the "vm" executor's compile side, from an optimized
 * module (the shared pipeline, then ToANormalForm and LambdaLift) to an
 * rt_vm_executable_t (runtime/vm.h) and its JIT kernels. */
#ifndef RT_BACKEND_VM_COMPILE_H_
#define RT_BACKEND_VM_COMPILE_H_

#include "ir/ir.h"
#include "jit/jit.h"
#include "rt/pass.h"
#include "runtime/vm.h"

/* Which kernels with `?` dims the vm compiles per shape at run time
 * (config "vm.specialize"; the value is the option's index). */
typedef enum rt_vm_specialize_e {
  /* Those the JIT does not lower with `?` dims, those whose shapes depend on
   * operand values (dyn ops), and those with an anchor op (conv2d, dense,
   * matmul ...: their templates need static shapes to be fast). */
  RT_VM_SPECIALIZE_AUTO = 0,
  RT_VM_SPECIALIZE_ALL = 1,    /* every kernel with a `?` dim */
  RT_VM_SPECIALIZE_NEEDED = 2, /* only those that cannot run otherwise */
} rt_vm_specialize_t;

typedef struct rt_vm_specializer_t rt_vm_specializer_t;

typedef struct rt_vm_build_t {
  rt_vm_executable_t exe;      /* handed to rt_vm_create (borrowed by the VM) */
  rt_jit_module_t *jit;        /* the kernels compiled at build time (owned) */
  rt_jit_build_stats_t jit_stats; /* how they were built */
  rt_kernel_fn *kernels;       /* per kernel (owned array); NULL: compiled per shape */
  rt_ir_expr_t **kernel_fns;   /* per kernel: its Primitive function */
  rt_module_t *module;         /* retained: the kernel functions live here */
  /* Kernels compiled per shape at run time (backend/vm_specialize.c). */
  uint8_t *per_shape;          /* per kernel: 1 = compiled for the shapes it meets */
  uint8_t *reads_values;       /* per kernel: 1 = its shapes depend on input values */
  struct rt_vm_specializer_t *spec; /* their cache; NULL when no kernel is per shape */
  /* Host ops (vm_host.c): per exe.host_ops entry its Primitive function,
   * run by `interp` (made when there is any). */
  rt_ir_expr_t **host_fns;
  struct rt_interp_t *interp;
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
 * every other value. A kernel with `?` dims that `specialize` picks gets
 * no entry in out_build->kernels: it is compiled for the concrete shapes
 * (and, for dyn ops, operand values) it meets at run time, through
 * rt_vm_resolve_kernel (vm_specialize.c). Each dynamic kernel gets a shape recipe (runtime/vm.h)
 * when its output dims are affine in its input `?` dims (checked by probing
 * the type relations), so the runtime-only library can size its outputs. A
 * group that is a lone dyn.reshape is no kernel but ReshapeDyn. A JIT that
 * cannot lower a group returns its
 * UNIMPLEMENTED status (naming the kernel and the op), annotated; a
 * construct the VM does not run (a recursive closure, an op call outside a
 * fused group) is INVALID_ARGUMENT naming it. */
RT_MUST_USE_RESULT rt_status_t rt_vm_compile(rt_module_t *module, rt_jit_session_t *session,
                                             uint32_t jit_flags, rt_vm_specialize_t specialize,
                                             rt_vm_build_t *out_build);
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

/* The concrete type of a kernel parameter of declared type `declared`
 * (tuples flattened in order) from the input descriptors inputs[*next ..],
 * advancing *next; made in module m. */
RT_MUST_USE_RESULT rt_status_t rt_vm_concrete_type(rt_module_t *m, const rt_ir_type_t *declared,
                                                   const rt_kernel_arg *inputs, int32_t num_inputs,
                                                   int32_t *next, rt_ir_type_t **out);

/* ---- kernels compiled per shape (vm_specialize.c) ------------------------- */


/* Makes build->spec for the build's per-shape kernels (nothing when it has
 * none). The session is retained; jit_flags are rt_jit_build's. */
RT_MUST_USE_RESULT rt_status_t rt_vm_specializer_create(rt_vm_build_t *build,
                                                        rt_jit_session_t *session,
                                                        uint32_t jit_flags);
void rt_vm_specializer_release(struct rt_vm_specializer_t *spec); /* NULL is fine */

/* The rt_vm_resolve_fn (runtime/vm.h) of a build (`user` is the
 * rt_vm_build_t): kernel `kernel` compiled for these inputs' shapes (and
 * the values of the inputs its dyn ops read), from the cache or compiled
 * now: the kernel's function with its parameters given the concrete types
 * (value operands become constants, and DynamicToStatic turns its dyn ops
 * into static ones), type inference, rt_jit_build (which also reads and
 * writes the disk cache, keyed by that static function). Thread-safe. */
RT_MUST_USE_RESULT rt_status_t rt_vm_resolve_kernel(void *user, int32_t kernel, int32_t nargs,
                                                    const rt_kernel_arg *args,
                                                    rt_kernel_fn *out_fn);

/* ---- host ops (vm_host.c) ---------------------------------------------------- */

struct rt_interp_value_t;

/* The rt_vm_host_fn of a build (`user` is the rt_vm_build_t): the host op's
 * group evaluated by the build's interpreter on these values. */
RT_MUST_USE_RESULT rt_status_t rt_vm_run_host_op(void *user, int32_t op, int32_t nargs,
                                                 const rt_vm_value_t *args,
                                                 rt_allocator_t allocator, rt_vm_value_t *out);

/* A VM value as an interpreter value and back (tensors shared, not
 * copied; tuples, lists and options rebuilt; a closure is UNIMPLEMENTED).
 * New references. */
RT_MUST_USE_RESULT rt_status_t rt_vm_value_to_interp(rt_allocator_t allocator,
                                                     rt_vm_value_t value,
                                                     struct rt_interp_value_t **out);
RT_MUST_USE_RESULT rt_status_t rt_vm_value_from_interp(rt_allocator_t allocator,
                                                       const struct rt_interp_value_t *value,
                                                       rt_vm_value_t *out);

/* The output shapes of per-shape kernel `kernel` for these inputs (the
 * same specialization rt_vm_resolve_kernel uses); for kernels that read
 * values, whose shapes the type relations alone cannot give. */
RT_MUST_USE_RESULT rt_status_t rt_vm_specialized_shapes(const rt_vm_build_t *build,
                                                        int32_t kernel, int32_t num_inputs,
                                                        const rt_kernel_arg *inputs,
                                                        int32_t num_outputs,
                                                        rt_vm_shape_t *out_shapes);

/* How many specializations the build made and how many calls found one
 * made before. */
void rt_vm_specializer_counts(const rt_vm_build_t *build, int64_t *out_made, int64_t *out_hits);

#endif /* RT_BACKEND_VM_COMPILE_H_ */
