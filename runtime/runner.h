/* The runner: what rt_executor (backend/executor.c: its graph, vm and
 * debug kinds) and rt_artifact_runtime (runtime/artifact.c) share around
 * whatever computes @main: the declared inputs (rt_tensor_info_t,
 * RT_DIM_ANY = `?`), the input values and their check, the busy guard,
 * running a graph runtime, a VM function or a callback, flattening the
 * VM's result and the outputs of the last run. No IR: its owner describes
 * the inputs.
 *
 * The runner is a value its owner embeds (rt_runner_initialize /
 * rt_runner_deinitialize) and points at what it runs (rt_runner_use_*,
 * borrowed). Its calls do not take the guard themselves: the owner's
 * public calls do (rt_runner_enter ... rt_runner_leave), so a call that
 * does several things is one guarded call.
 *
 * The two APIs it serves word their errors differently and promise
 * slightly different things (include/rt/executor.h, include/rt/artifact.h);
 * rt_runner_api_t says which one is served, and the differences are kept
 * here, each at its one place:
 *   - the busy refusal: "rt_executor_run: the graph executor is in use
 *     by another thread (or a step callback): ..." / "rt_artifact_runtime_run:
 *     the runtime is in use by another thread: ...";
 *   - indices: "(the executor has N)" / "(the model has N)";
 *   - a rank-0 type reads "float32" (as the IR prints it) / "Tensor[(),
 *     float32]";
 *   - set_input drops the last run's outputs (executor: they are valid
 *     until the next run or set_input) / keeps them (artifact: valid until
 *     the next run);
 *   - a vm model's runtime copies a strided input at set_input (the
 *     executor's vm leaves that to the VM's invoke);
 *   - a graph model's outputs are its planned tensors, readable at any
 *     time, and its unset inputs are the graph runtime's to report ("graph
 *     input 0 is not set"); the executor's outputs exist after a
 *     successful run only, and it names an unset input;
 *   - the words for a VM result that does not match the declared outputs.
 * Thread-safety: as its owner's (one call at a time, the guard refuses a
 * second). */
#ifndef RT_RUNTIME_RUNNER_H_
#define RT_RUNTIME_RUNNER_H_

#include <stdatomic.h>

#include "rt/allocator.h"
#include "rt/status.h"
#include "rt/tensor.h"
#include "runtime/graph_runtime.h"
#include "runtime/mem.h"
#include "runtime/vm.h"

/* The most tensors a result may flatten to (the executor's limit). */
#define RT_RUNNER_MAX_OUTPUTS 4096

typedef enum rt_runner_api_e {
  RT_RUNNER_API_EXECUTOR,      /* rt_executor_* */
  RT_RUNNER_API_ARTIFACT,      /* rt_artifact_runtime_* */
} rt_runner_api_t;

/* Calls @main (the debug executor): the flattened result into outs[0 ..
 * *out_count) (new references), OUT_OF_RANGE past max_outs. */
typedef rt_status_t (*rt_runner_call_fn)(void *user, int32_t nargs, rt_tensor_t *const *args,
                                         int32_t max_outs, rt_tensor_t **outs,
                                         int32_t *out_count);

typedef struct rt_runner_t {
  rt_runner_api_t api;
  /* The executor's kind ("graph": the busy refusal names it), or the
   * model's path (messages of the artifact's runtime). Borrowed. */
  const char *name;
  bool scoped;                 /* enter opens an rt_mem scope of `allocator` */
  rt_allocator_t allocator;
  rt_mem_scope_t scope;        /* the call in progress */
  int32_t num_inputs;
  const rt_tensor_info_t *inputs;  /* declared, borrowed from the owner */
  rt_tensor_t **input_values;  /* set_input's, one reference each */
  int32_t num_outputs;
  rt_tensor_t **output_values; /* the last run's, one reference each */
  bool have_outputs;
  /* What runs @main (one of them; borrowed). */
  rt_graph_runtime_t *graph;
  rt_vm_t *vm;
  int32_t vm_main;
  rt_runner_call_fn call;
  void *call_user;
  atomic_bool busy;            /* a guarded call is inside */
} rt_runner_t;

/* A runner for `num_inputs` declared `inputs` (borrowed: they must
 * outlive it) and `num_outputs` outputs, with nothing to run yet.
 * `allocator` non-NULL: every guarded call runs in an rt_mem scope of a
 * copy of it (the executor's options.allocator). RESOURCE_EXHAUSTED when
 * the value arrays cannot be had; deinitialize it then too. */
RT_MUST_USE_RESULT rt_status_t rt_runner_initialize(rt_runner_t *runner, rt_runner_api_t api,
                                                    const char *name,
                                                    const rt_allocator_t *allocator,
                                                    int32_t num_inputs,
                                                    const rt_tensor_info_t *inputs,
                                                    int32_t num_outputs);
/* Releases the inputs and outputs it holds (not what it runs). */
void rt_runner_deinitialize(rt_runner_t *runner);

void rt_runner_use_graph(rt_runner_t *runner, rt_graph_runtime_t *graph);
void rt_runner_use_vm(rt_runner_t *runner, rt_vm_t *vm, int32_t main_function);
void rt_runner_use_call(rt_runner_t *runner, rt_runner_call_fn call, void *user);

/* The busy guard: FAILED_PRECONDITION naming `what` (the public call
 * without its prefix: "run", "set_input") when a guarded call is inside,
 * changing nothing; else the runner is taken until rt_runner_leave. */
RT_MUST_USE_RESULT rt_status_t rt_runner_enter(rt_runner_t *runner, const char *what);
void rt_runner_leave(rt_runner_t *runner);

/* OK when `t` has declared input `index`'s dtype and rank and every dim
 * that is not `?`; INVALID_ARGUMENT "input 'x' expects Tensor[(2, ?),
 * float32], got Tensor[(2, 3, 4), float32]" otherwise. */
RT_MUST_USE_RESULT rt_status_t rt_runner_check_input(const rt_runner_t *runner, int32_t index,
                                                     const rt_tensor_t *t);
/* Checks `t` (index, NULL, type) and retains it as input `index`. */
RT_MUST_USE_RESULT rt_status_t rt_runner_set_input(rt_runner_t *runner, int32_t index,
                                                   rt_tensor_t *t);
/* FAILED_PRECONDITION "input 'x' is not set" for the first unset input. */
RT_MUST_USE_RESULT rt_status_t rt_runner_inputs_ready(const rt_runner_t *runner);

/* Runs @main on the inputs; its flattened result becomes the outputs. */
RT_MUST_USE_RESULT rt_status_t rt_runner_run(rt_runner_t *runner);
/* A graph runner's run, adding each node's milliseconds to node_ms, its
 * task statistics to node_tasks and, when node_warm_ms is not NULL, the
 * time of a second call of each kernel to node_warm_ms
 * (rt_graph_runtime_run_timed). */
RT_MUST_USE_RESULT rt_status_t rt_runner_run_timed(rt_runner_t *runner, double *node_ms,
                                                   rt_task_stats_t *node_tasks, double *node_warm_ms);

/* Calls VM function `function` (named `fn_name` in messages) with tensor
 * args: the flattened result into outs[0 .. *out_count) (new
 * references); OUT_OF_RANGE when it has more than max_outs tensors. */
RT_MUST_USE_RESULT rt_status_t rt_runner_vm_call(rt_runner_t *runner, int32_t function,
                                                 const char *fn_name, int32_t nargs,
                                                 rt_tensor_t *const *args, int32_t max_outs,
                                                 rt_tensor_t **outs, int32_t *out_count);

/* Output `index` of the last run (borrowed). OUT_OF_RANGE for a bad
 * index; FAILED_PRECONDITION before a successful run (but see the top). */
RT_MUST_USE_RESULT rt_status_t rt_runner_output(const rt_runner_t *runner, int32_t index,
                                                rt_tensor_t **out_tensor);
/* Drops the last run's outputs. */
void rt_runner_clear_outputs(rt_runner_t *runner);

#endif /* RT_RUNTIME_RUNNER_H_ */
