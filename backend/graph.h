/* Internal to backend/: the graph executor's compile side. */
#ifndef RT_BACKEND_GRAPH_H_
#define RT_BACKEND_GRAPH_H_

#include "ir/ir.h"
#include "jit/jit.h"
#include "runtime/graph_runtime.h"
#include "runtime/strbuf.h"

typedef struct rt_graph_build_t {
  rt_graph_plan_t plan;          /* handed to rt_graph_runtime_create */
  rt_jit_module_t *jit;          /* the compiled kernels (owned) */
  rt_kernel_fn *kernels;         /* per kernel (owned array) */
  int32_t num_kernels;
  char **kernel_names;           /* per kernel, rt_mem_alloc'd */
  char **kernel_types;           /* per kernel: its function type text */
  double *kernel_flops;          /* per kernel: floating-point ops per call (rt_ir_flops) */
  rt_jit_build_stats_t jit_stats; /* where the kernels came from (cache counts) */
  bool process_local;            /* kernels call custom ops or strategies, or run on the
                                  * host: no export */
  /* Per kernel: the host kernel of a group the JIT does not compile
   * (backend/host_kernel.h), else NULL; NULL when there is none. */
  struct rt_host_kernel_t **host_kernels;
  int32_t *jit_index;            /* per kernel: its index in `jit`, -1 for a host kernel */
} rt_graph_build_t;

/* Lowers an optimized module's @main (after FuseOps: a dataflow of calls of
 * Primitive functions) into a flat plan with planned storage, compiling
 * every distinct group once through `session`; a group the JIT does not
 * compile (rt_backend_is_host_group: RoiAlign's, say) becomes a host kernel
 * that runs its reference kernels. Control flow, closures,
 * calls of globals and `?` dims are INVALID_ARGUMENT naming the construct
 * and the executor that runs it; a `?` dim when every input is static
 * depends on the input values, and its refusal names the vm. */
RT_MUST_USE_RESULT rt_status_t rt_graph_build(rt_module_t *module, rt_jit_session_t *session,
                                              uint32_t jit_flags, rt_graph_build_t *out_build);
/* Step 1 of rt_graph_build alone (no plan, no kernels), with `?` dims
 * allowed: the refusals that no binding of input shapes removes (control
 * flow, closures, calls of globals, ops outside groups), as
 * rt_graph_build words them. For a graph executor with `?` inputs, at
 * creation. */
RT_MUST_USE_RESULT rt_status_t rt_graph_check(rt_module_t *module);
/* Frees what rt_graph_build made (the plan only if still held). */
void rt_graph_build_deinitialize(rt_graph_build_t *build);

/* TVM's graph-executor JSON (nodes, arg_nodes, heads, node_row_ptr and the
 * shape / dltype / storage_id attrs) of a plan, with `names` of the
 * kernels; for `relayrt build --emit=graph-json`. */
void rt_graph_plan_to_json(const rt_graph_plan_t *plan, char *const *kernel_names,
                           char *const *input_names, rt_strbuf_t *out);

#endif /* RT_BACKEND_GRAPH_H_ */
