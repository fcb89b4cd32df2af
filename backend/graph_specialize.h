/* Internal to backend/: the graph executor's plans per input shape, for a
 * module whose @main has `?` input dims or value inputs (inputs whose
 * values ops read for shapes: a Reshape's shape, a Slice's bounds, a
 * count; include/rt/executor.h, "Dynamic shapes on the graph executor").
 *
 * A cache holds up to `graph.max_specializations` specializations, one
 * per input signature (every input's dtype and dims, and the bytes of the
 * value inputs), most recently used first. Each is the module bound to
 * those shapes (rt_module_bind_input_shapes) and values
 * (rt_backend_bind_values), built by the same pipeline as any
 * executor's (rt_build under the executor's pass context, less its
 * instruments), compiled and planned (rt_graph_build) and given its own
 * graph runtime. A new signature costs one build, a seen one a list move.
 *
 * Ownership: specializations are reference-counted. The cache holds one
 * reference to each it keeps; rt_graph_spec_cache_latest hands out
 * another, so eviction never frees a plan a reader is looking at. A run's
 * outputs are the runtime's own tensors, retained by the caller
 * (rt_graph_spec_call returns new references), so evicting the
 * specialization that made them leaves them valid.
 * Thread-safety: _prepare and _call are the executor's guarded calls (one
 * at a time); _latest and _stats may run at any time from any thread (a
 * mutex orders them against the list changes of _prepare). */
#ifndef RT_BACKEND_GRAPH_SPECIALIZE_H_
#define RT_BACKEND_GRAPH_SPECIALIZE_H_

#include "backend/graph.h"
#include "ir/ir.h"
#include "jit/jit.h"
#include "passes/pass.h"
#include "runtime/thread_pool.h"

/* The most elements a value input may have (its values are part of a
 * specialization's key). */
#define RT_GRAPH_MAX_VALUE_ELEMENTS 4096

/* Which of source's @main parameters are value inputs: ops read their
 * values for shapes (rt_ir_value_params: dyn ops' value operands, arange,
 * one-element `if` conditions), and their types allow at most RT_GRAPH_MAX_VALUE_ELEMENTS elements.
 * out_values has one entry per parameter; *out_any says whether any is. A
 * module with value inputs is specialized per run, like one with `?`
 * input dims: the values are bound as constants (rt_backend_bind_values)
 * and DynamicToStatic makes its dyn ops static. */
RT_MUST_USE_RESULT rt_status_t rt_graph_value_inputs(rt_module_t *source, bool *out_values,
                                                     bool *out_any);

typedef struct rt_graph_spec_cache_t rt_graph_spec_cache_t;

/* One specialization: read-only after it is made. */
typedef struct rt_graph_spec_t rt_graph_spec_t;

/* A cache for `source` (main's params bound, its `?` input dims not;
 * retained), whose optimized form the executor already built and checked
 * (rt_graph_check). `ctx` is copied without its instruments (they run
 * during rt_create_executor only); its graph.max_specializations bounds
 * the cache. `session` and `pool` are borrowed and must outlive the cache. */
RT_MUST_USE_RESULT rt_status_t rt_graph_spec_cache_create(rt_allocator_t allocator,
                                                          rt_module_t *source,
                                                          const rt_pass_context_t *ctx,
                                                          rt_jit_session_t *session,
                                                          uint32_t jit_flags,
                                                          rt_thread_pool_t *pool,
                                                          rt_graph_spec_cache_t **out_cache);
/* Drops the cache's references (NULL is fine). */
void rt_graph_spec_cache_release(rt_graph_spec_cache_t *cache);

/* The specialization for the shapes of args[0 .. nargs) (checked against
 * @main's signature by the caller), found or built (and then the most
 * recent; past the bound, the least recently used one is evicted), with
 * args set as its runtime's inputs (the caller clears them after its
 * runs, rt_graph_runtime_clear_inputs, so an idle specialization pins no
 * tensor). Borrowed: valid until the next _prepare. A failed build caches nothing; its error names the shapes
 * ("specializing the graph executor to x: (2, 3)"), and a value whose
 * shape still has a `?` dim is refused naming the vm (rt_graph_build). */
RT_MUST_USE_RESULT rt_status_t rt_graph_spec_cache_prepare(rt_graph_spec_cache_t *cache,
                                                           int32_t nargs,
                                                           rt_tensor_t *const *args,
                                                           rt_graph_spec_t **out_spec);

/* An rt_runner_call_fn (user = the cache): _prepare, run, and the
 * outputs as new references. */
RT_MUST_USE_RESULT rt_status_t rt_graph_spec_call(void *cache, int32_t nargs,
                                                  rt_tensor_t *const *args, int32_t max_outs,
                                                  rt_tensor_t **outs, int32_t *out_count);

/* A new reference to the most recently used specialization, or NULL in
 * *out_spec when none was made yet. Release it with rt_graph_spec_release. */
void rt_graph_spec_cache_latest(rt_graph_spec_cache_t *cache, rt_graph_spec_t **out_spec);
void rt_graph_spec_release(rt_graph_spec_t *spec);

/* What a specialization ran: its compiled build (kernel names, types,
 * LLVM IR) and its runtime (plan, storage). Borrowed from `spec`. */
const rt_graph_build_t *rt_graph_spec_build(const rt_graph_spec_t *spec);
rt_graph_runtime_t *rt_graph_spec_runtime(const rt_graph_spec_t *spec);

typedef struct rt_graph_spec_stats_t {
  int64_t built;       /* specializations made (each one build) */
  int64_t hits;        /* _prepare calls that found theirs cached */
  int64_t evicted;     /* dropped past the bound */
  int32_t cached;      /* held now */
  int32_t max;         /* the bound */
} rt_graph_spec_stats_t;

void rt_graph_spec_cache_stats(rt_graph_spec_cache_t *cache, rt_graph_spec_stats_t *out);

#endif /* RT_BACKEND_GRAPH_SPECIALIZE_H_ */
