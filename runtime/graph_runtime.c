/* The graph executor's runtime: storage set up once, a flat loop of kernel
 * calls per run. Each node's argument descriptors (rt_kernel_arg) point at
 * fixed storage and shapes, so only the input entries' data pointers change
 * between runs (set_input). Kernels get a context whose parallel_for runs
 * tasks on the thread pool and whose set_error keeps the first message. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/graph_runtime.h"
#include "runtime/kernel_services.h"
#include "runtime/tensor_impl.h"
#include "runtime/mem.h"
#include "runtime/clock.h"
#include "runtime/size.h"

struct rt_graph_runtime_t {
  rt_allocator_t allocator;
  rt_graph_plan_t plan;
  const rt_kernel_fn *kernels;
  int32_t num_kernels;
  rt_thread_pool_t *pool;
  void **storage;              /* per storage id */
  uint64_t storage_total;
  rt_tensor_t **inputs;        /* retained; per input */
  rt_tensor_t **outputs;       /* owned; per output */
  rt_kernel_arg *args;         /* per entry */
  rt_kernel_arg **node_args;   /* per node: its packed argument array */
  rt_kernel_services_t services; /* the kernels' ctx */
};

void rt_graph_plan_deinitialize(rt_graph_plan_t *plan) {
  for (int32_t i = 0; i < plan->num_nodes; ++i) rt_mem_free(plan->nodes[i].entries);
  for (int32_t i = 0; i < plan->num_consts; ++i) rt_tensor_release(plan->consts[i]);
  rt_mem_free(plan->entries);
  rt_mem_free(plan->nodes);
  rt_mem_free(plan->storage_bytes);
  rt_mem_free(plan->input_entries);
  rt_mem_free(plan->output_entries);
  rt_mem_free(plan->output_sources);
  rt_mem_free(plan->consts);
  memset(plan, 0, sizeof *plan);
}


/* ---- creation ------------------------------------------------------------ */

static void fill_arg(rt_kernel_arg *a, const rt_graph_entry_t *e, void *data) {
  a->data = data;
  a->shape = e->shape;
  a->strides = NULL;
  a->rank = e->rank;
  a->dtype.code = e->dtype.code;
  a->dtype.bits = e->dtype.bits;
  a->dtype.lanes = e->dtype.lanes;
  a->reserved = 0;
}

rt_status_t rt_graph_runtime_create(rt_allocator_t allocator, rt_graph_plan_t *plan,
                                    const rt_kernel_fn *kernels, int32_t num_kernels,
                                    rt_thread_pool_t *pool, rt_graph_runtime_t **out_runtime) {
  rt_graph_runtime_t *rt = rt_mem_calloc(1, sizeof *rt);
  if (!rt) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating the graph runtime");
  rt->allocator = allocator;
  rt->plan = *plan;
  memset(plan, 0, sizeof *plan);
  rt->kernels = kernels;
  rt->num_kernels = num_kernels;
  rt->pool = pool;
  rt_kernel_services_initialize(pool, &rt->services);

  const rt_graph_plan_t *p = &rt->plan;
  rt_status_t st = RT_OK;
  rt->storage = rt_mem_calloc((size_t)(p->num_storage ? p->num_storage : 1), sizeof(void *));
  rt->inputs = rt_mem_calloc((size_t)(p->num_inputs ? p->num_inputs : 1), sizeof(rt_tensor_t *));
  rt->outputs = rt_mem_calloc((size_t)(p->num_outputs ? p->num_outputs : 1), sizeof(rt_tensor_t *));
  rt->args = rt_mem_calloc((size_t)(p->num_entries ? p->num_entries : 1), sizeof(rt_kernel_arg));
  rt->node_args = rt_mem_calloc((size_t)(p->num_nodes ? p->num_nodes : 1), sizeof(rt_kernel_arg *));
  if (!rt->storage || !rt->inputs || !rt->outputs || !rt->args || !rt->node_args) {
    st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating the graph runtime");
  }
  for (int32_t s = 0; !st && s < p->num_storage; ++s) {
    st = rt_allocator_malloc(allocator, (size_t)(p->storage_bytes[s] ? p->storage_bytes[s] : 64),
                             RT_TENSOR_ALIGNMENT, true, &rt->storage[s]);
    rt->storage_total += p->storage_bytes[s];
  }
  for (int32_t o = 0; !st && o < p->num_outputs; ++o) {
    const rt_graph_entry_t *e = &p->entries[p->output_entries[o]];
    st = rt_tensor_create(allocator, e->dtype, e->rank, e->shape, &rt->outputs[o]);
  }
  for (int32_t i = 0; !st && i < p->num_entries; ++i) {
    const rt_graph_entry_t *e = &p->entries[i];
    void *data = NULL;
    switch (e->kind) {
      case RT_GRAPH_ENTRY_TEMP: data = (char *)rt->storage[e->storage_id] + e->byte_offset; break;
      case RT_GRAPH_ENTRY_OUTPUT: data = rt_tensor_data(rt->outputs[e->index]); break;
      case RT_GRAPH_ENTRY_CONST: data = rt_tensor_data(p->consts[e->index]); break;
      case RT_GRAPH_ENTRY_INPUT: data = NULL; break; /* set_input */
    }
    fill_arg(&rt->args[i], e, data);
  }
  for (int32_t n = 0; !st && n < p->num_nodes; ++n) {
    const rt_graph_node_t *node = &p->nodes[n];
    int32_t nargs = node->num_inputs + node->num_outputs;
    if (node->kernel == RT_GRAPH_NOP) continue;
    if (node->kernel < 0 || node->kernel >= num_kernels) {
      st = RT_STATUS(INTERNAL, "graph node %d uses kernel %d of %d", (int)n, (int)node->kernel,
                     (int)num_kernels);
      break;
    }
    rt->node_args[n] = rt_mem_calloc((size_t)(nargs ? nargs : 1), sizeof(rt_kernel_arg));
    if (!rt->node_args[n]) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  }
  if (st) {
    rt_graph_runtime_release(rt);
    return st;
  }
  *out_runtime = rt;
  return RT_OK;
}

void rt_graph_runtime_release(rt_graph_runtime_t *rt) {
  if (!rt) return;
  for (int32_t s = 0; rt->storage && s < rt->plan.num_storage; ++s) {
    rt_allocator_free(rt->allocator, rt->storage[s]);
  }
  for (int32_t i = 0; rt->inputs && i < rt->plan.num_inputs; ++i) rt_tensor_release(rt->inputs[i]);
  for (int32_t o = 0; rt->outputs && o < rt->plan.num_outputs; ++o) rt_tensor_release(rt->outputs[o]);
  for (int32_t n = 0; rt->node_args && n < rt->plan.num_nodes; ++n) rt_mem_free(rt->node_args[n]);
  rt_mem_free(rt->node_args);
  rt_mem_free(rt->args);
  rt_mem_free(rt->outputs);
  rt_mem_free(rt->inputs);
  rt_mem_free(rt->storage);
  rt_graph_plan_deinitialize(&rt->plan);
  rt_kernel_services_deinitialize(&rt->services);
  rt_mem_free(rt);
}

rt_status_t rt_graph_runtime_set_input(rt_graph_runtime_t *rt, int32_t index, rt_tensor_t *tensor) {
  if (index < 0 || index >= rt->plan.num_inputs) {
    return RT_STATUS(OUT_OF_RANGE, "graph input %d does not exist", (int)index);
  }
  rt_tensor_t *t = tensor;
  if (!rt_tensor_is_compact(tensor)) {
    RT_RETURN_IF_ERROR(rt_tensor_clone(rt->allocator, tensor, &t));
  } else {
    rt_tensor_retain(t);
  }
  rt_tensor_release(rt->inputs[index]);
  rt->inputs[index] = t;
  rt->args[rt->plan.input_entries[index]].data = rt_tensor_data(t);
  return RT_OK;
}

void rt_graph_runtime_clear_inputs(rt_graph_runtime_t *rt) {
  for (int32_t i = 0; i < rt->plan.num_inputs; ++i) {
    rt_tensor_release(rt->inputs[i]);
    rt->inputs[i] = NULL;
    rt->args[rt->plan.input_entries[i]].data = NULL;
  }
}

/* Whether the node's one output shares its storage with an input. */
static bool over_input(const rt_kernel_arg *a, const rt_graph_node_t *node) {
  if (node->num_outputs != 1) return false;
  for (int32_t k = 0; k < node->num_inputs; ++k) {
    if (a[k].data == a[node->num_inputs].data) return true;
  }
  return false;
}

/* The run; with `node_ms`, each node's wall time is added to its entry,
 * with `node_tasks` its task statistics, with `node_warm_ms` the wall time
 * of a second call of its kernel made right after the first. */
static rt_status_t run_nodes(rt_graph_runtime_t *rt, double *node_ms, rt_task_stats_t *node_tasks,
                             double *node_warm_ms) {
  const rt_graph_plan_t *p = &rt->plan;
  for (int32_t i = 0; i < p->num_inputs; ++i) {
    if (!rt->inputs[i]) return RT_STATUS(FAILED_PRECONDITION, "graph input %d is not set", (int)i);
  }
  for (int32_t n = 0; n < p->num_nodes; ++n) {
    const rt_graph_node_t *node = &p->nodes[n];
    if (node->kernel == RT_GRAPH_NOP) continue;
    int32_t nargs = node->num_inputs + node->num_outputs;
    rt_kernel_arg *a = rt->node_args[n];
    for (int32_t k = 0; k < nargs; ++k) a[k] = rt->args[node->entries[k]];
    rt_kernel_services_clear_error(&rt->services);
    /* An output planned over an input it reads (graph.c, "outputs over a
     * dying input") is not the same after a second call, which would read
     * the first one's output: with node_warm_ms the first, timed call
     * writes a scratch copy of the output instead and the second the
     * output, both from the intact input. */
    void *out_data = a[node->num_inputs].data, *scratch = NULL;
    if (node_warm_ms && over_input(a, node)) {
      const rt_graph_entry_t *e = &p->entries[node->entries[node->num_inputs]];
      size_t bytes = 0;
      RT_RETURN_IF_ERROR(rt_size_of_shape(e->rank, e->shape, rt_dtype_size(e->dtype), &bytes));
      RT_RETURN_IF_ERROR(rt_allocator_malloc(rt->allocator, bytes ? bytes : 64, RT_TENSOR_ALIGNMENT, false, &scratch));
      a[node->num_inputs].data = scratch;
    }
    rt->services.stats = node_tasks ? &node_tasks[n] : NULL;
    double t0 = node_ms ? rt_now_ms() : 0;
    const int32_t failed = rt->kernels[node->kernel](a, nargs, &rt->services.ctx);
    rt->services.stats = NULL;
    a[node->num_inputs].data = out_data;
    rt_allocator_free(rt->allocator, scratch);
    if (failed != 0) {
      return RT_STATUS(INVALID_ARGUMENT, "kernel %s (node %d) failed: %s", node->name, (int)n,
                       rt_kernel_services_error(&rt->services));
    }
    if (node_ms) node_ms[n] += rt_now_ms() - t0;
    if (node_warm_ms) {
      /* A kernel writes only its outputs, from its inputs alone, so the
       * second call stores what the first did. */
      t0 = rt_now_ms();
      if (rt->kernels[node->kernel](a, nargs, &rt->services.ctx) != 0) {
        return RT_STATUS(INVALID_ARGUMENT, "kernel %s (node %d) failed on its second call: %s", node->name,
                         (int)n, rt_kernel_services_error(&rt->services));
      }
      node_warm_ms[n] += rt_now_ms() - t0;
    }
  }
  for (int32_t o = 0; o < p->num_outputs; ++o) {
    int32_t src = p->output_sources[o];
    if (src < 0) continue;
    memcpy(rt_tensor_data(rt->outputs[o]), rt->args[src].data, rt_tensor_nbytes(rt->outputs[o]));
  }
  return RT_OK;
}

rt_status_t rt_graph_runtime_run(rt_graph_runtime_t *rt) { return run_nodes(rt, NULL, NULL, NULL); }

rt_status_t rt_graph_runtime_run_timed(rt_graph_runtime_t *rt, double *node_ms,
                                       rt_task_stats_t *node_tasks, double *node_warm_ms) {
  return run_nodes(rt, node_ms, node_tasks, node_warm_ms);
}

rt_tensor_t *rt_graph_runtime_output(const rt_graph_runtime_t *rt, int32_t index) {
  if (index < 0 || index >= rt->plan.num_outputs) return NULL;
  return rt->outputs[index];
}

uint64_t rt_graph_runtime_storage_bytes(const rt_graph_runtime_t *rt) { return rt->storage_total; }

const rt_graph_plan_t *rt_graph_runtime_plan(const rt_graph_runtime_t *rt) { return &rt->plan; }
