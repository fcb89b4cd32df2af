/* The graph executor's runtime half (no IR, no LLVM: the deployable part).
 *
 * A plan is a flat list of kernel invocations over "entries" (tensors):
 * model inputs, constants, intermediates living in planned storage, and
 * outputs (an intermediate may sit at a byte offset inside a block; a
 * no-op node, RT_GRAPH_NOP, runs nothing). The runtime allocates every
 * intermediate storage block and every output tensor once, at creation,
 * prepares each node's rt_kernel_arg array,
 * and `run` just calls the kernels in order: it allocates nothing (memory is
 * planned when the executor is built). Inputs are used in place
 * (zero-copy) when compact.
 *
 * Ownership: rt_graph_runtime_create takes the plan (freed with the
 * runtime) and borrows `kernels` and `pool` (they must outlive it).
 * Thread-safety: one runtime per thread at a time. */
#ifndef RT_RUNTIME_GRAPH_RUNTIME_H_
#define RT_RUNTIME_GRAPH_RUNTIME_H_

#include "rt/kernel_abi.h"
#include "rt/tensor.h"
#include "runtime/kernel_services.h"
#include "runtime/thread_pool.h"

typedef enum rt_graph_entry_kind_e {
  RT_GRAPH_ENTRY_INPUT,        /* model input `index` */
  RT_GRAPH_ENTRY_CONST,        /* constant `index` */
  RT_GRAPH_ENTRY_TEMP,         /* an intermediate in storage `storage_id` */
  RT_GRAPH_ENTRY_OUTPUT,       /* model output `index` (own tensor) */
} rt_graph_entry_kind_t;

typedef struct rt_graph_entry_t {
  rt_graph_entry_kind_t kind;
  int32_t index;               /* input / const / output index */
  int32_t storage_id;          /* TEMP only */
  uint64_t byte_offset;        /* TEMP only: where in its storage block (a concatenate's
                                * input written in place into its slab, else 0) */
  rt_dtype_t dtype;
  int32_t rank;
  int64_t shape[RT_TENSOR_MAX_RANK];
} rt_graph_entry_t;

/* A node whose kernel is RT_GRAPH_NOP runs nothing: its inputs were
 * written into its output's storage in place (a concatenate's slabs;
 * TVM's graph executors call such a node "__nop"). */
#define RT_GRAPH_NOP (-1)

typedef struct rt_graph_node_t {
  int32_t kernel;              /* index into the kernel table, or RT_GRAPH_NOP */
  int32_t num_inputs, num_outputs;
  int32_t *entries;            /* inputs then outputs (entry ids) */
  char name[96];               /* kernel name, for errors and profiles */
} rt_graph_node_t;

/* A model output that is not computed by a kernel (main returns an input or
 * a constant directly) is copied from `source` at the end of a run. */
typedef struct rt_graph_plan_t {
  int32_t num_entries;
  rt_graph_entry_t *entries;
  int32_t num_nodes;
  rt_graph_node_t *nodes;
  int32_t num_storage;
  uint64_t *storage_bytes;
  int32_t num_inputs;
  int32_t *input_entries;
  int32_t num_outputs;
  int32_t *output_entries;     /* the OUTPUT entries, by output index */
  int32_t *output_sources;     /* entry to copy from, or -1 (computed) */
  int32_t num_consts;
  rt_tensor_t **consts;        /* one reference each */
} rt_graph_plan_t;

/* Frees a plan's arrays and releases its constants. */
void rt_graph_plan_deinitialize(rt_graph_plan_t *plan);

typedef struct rt_graph_runtime_t rt_graph_runtime_t;

RT_MUST_USE_RESULT rt_status_t rt_graph_runtime_create(rt_allocator_t allocator,
                                                       rt_graph_plan_t *plan,
                                                       const rt_kernel_fn *kernels,
                                                       int32_t num_kernels,
                                                       rt_thread_pool_t *pool,
                                                       rt_graph_runtime_t **out_runtime);
void rt_graph_runtime_release(rt_graph_runtime_t *rt);

/* Retains `tensor` as input `index`; dtype and shape are checked by the
 * caller. A strided tensor is compacted into a copy here. */
RT_MUST_USE_RESULT rt_status_t rt_graph_runtime_set_input(rt_graph_runtime_t *rt, int32_t index,
                                                          rt_tensor_t *tensor);
/* Drops the input references (a later run needs set_input again): a
 * runtime kept idle, as a graph executor's cached specializations are,
 * then pins none of its last inputs. */
void rt_graph_runtime_clear_inputs(rt_graph_runtime_t *rt);
RT_MUST_USE_RESULT rt_status_t rt_graph_runtime_run(rt_graph_runtime_t *rt);
/* rt_graph_runtime_run, adding each node's wall time in milliseconds to
 * node_ms[n] (plan.num_nodes entries) and, when node_tasks is not NULL,
 * how its parallel_for calls spread over tasks to node_tasks[n]: the same
 * kernels over the same planned storage, so the results are those of run
 * (rt_executor_profile). With node_warm_ms, each node's kernel is called a
 * second time right after the first (same arguments, its operands then in
 * cache as far as they fit) and that call's time added to node_warm_ms[n]. */
RT_MUST_USE_RESULT rt_status_t rt_graph_runtime_run_timed(rt_graph_runtime_t *rt, double *node_ms,
                                                          rt_task_stats_t *node_tasks, double *node_warm_ms);
/* Borrowed output tensor (valid until the runtime is released; its
 * contents change with each run). */
rt_tensor_t *rt_graph_runtime_output(const rt_graph_runtime_t *rt, int32_t index);
/* The plan the runtime runs (borrowed). */
const rt_graph_plan_t *rt_graph_runtime_plan(const rt_graph_runtime_t *rt);
/* Bytes of planned intermediate storage (for reports and tests). */
uint64_t rt_graph_runtime_storage_bytes(const rt_graph_runtime_t *rt);

#endif /* RT_RUNTIME_GRAPH_RUNTIME_H_ */
