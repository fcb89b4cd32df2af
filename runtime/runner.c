/* The runner under rt_executor and rt_artifact_runtime (runtime/runner.h):
 * declared inputs and their check (`?` dims take any size), the input
 * values, the busy guard, running a graph runtime, a VM function or a
 * callback, flattening the VM's result, the outputs. Where the two APIs
 * word or promise things differently, the branch on r->api is that one
 * difference (runner.h lists them). */
#include <string.h>

#include "runtime/runner.h"
#include "runtime/strbuf.h"

static bool for_executor(const rt_runner_t *r) { return r->api == RT_RUNNER_API_EXECUTOR; }

/* "executor" / "model", in "(the executor has 2)". */
static const char *owner(const rt_runner_t *r) { return for_executor(r) ? "executor" : "model"; }

rt_status_t rt_runner_initialize(rt_runner_t *r, rt_runner_api_t api, const char *name,
                                 const rt_allocator_t *allocator, int32_t num_inputs,
                                 const rt_tensor_info_t *inputs, int32_t num_outputs) {
  memset(r, 0, sizeof *r);
  r->api = api;
  r->name = name;
  r->scoped = allocator != NULL;
  if (allocator) r->allocator = *allocator;
  atomic_init(&r->busy, false);
  r->num_inputs = num_inputs;
  r->inputs = inputs;
  r->num_outputs = num_outputs;
  r->input_values = rt_mem_calloc((size_t)(num_inputs ? num_inputs : 1), sizeof(rt_tensor_t *));
  r->output_values = rt_mem_calloc((size_t)(num_outputs ? num_outputs : 1), sizeof(rt_tensor_t *));
  if (!r->input_values || !r->output_values) {
    return for_executor(r) ? RT_STATUS(RESOURCE_EXHAUSTED, "out of memory")
                           : RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating a runtime");
  }
  return RT_OK;
}

void rt_runner_clear_outputs(rt_runner_t *r) {
  for (int32_t i = 0; r->output_values && i < r->num_outputs; ++i) {
    rt_tensor_release(r->output_values[i]);
    r->output_values[i] = NULL;
  }
  r->have_outputs = false;
}

void rt_runner_deinitialize(rt_runner_t *r) {
  rt_runner_clear_outputs(r);
  for (int32_t i = 0; r->input_values && i < r->num_inputs; ++i) {
    rt_tensor_release(r->input_values[i]);
  }
  rt_mem_free(r->input_values);
  rt_mem_free(r->output_values);
  r->input_values = r->output_values = NULL;
}

void rt_runner_use_graph(rt_runner_t *r, rt_graph_runtime_t *graph) { r->graph = graph; }

void rt_runner_use_vm(rt_runner_t *r, rt_vm_t *vm, int32_t main_function) {
  r->vm = vm;
  r->vm_main = main_function;
}

void rt_runner_use_call(rt_runner_t *r, rt_runner_call_fn call, void *user) {
  r->call = call;
  r->call_user = user;
}

/* ---- the busy guard ------------------------------------------------------------ */

rt_status_t rt_runner_enter(rt_runner_t *r, const char *what) {
  if (atomic_exchange_explicit(&r->busy, true, memory_order_acquire)) {
    if (for_executor(r)) {
      return RT_STATUS(FAILED_PRECONDITION, "rt_executor_%s: the %s executor is in use by another "
                       "thread (or a step callback): an executor runs one call at a time; use "
                       "one executor per thread, or serialize the calls", what, r->name);
    }
    return RT_STATUS(FAILED_PRECONDITION, "rt_artifact_runtime_%s: the runtime is in use by "
                     "another thread: a runtime runs one call at a time; use one runtime per "
                     "thread (many may share one artifact), or serialize the calls", what);
  }
  if (r->scoped) rt_mem_scope_enter(&r->scope, &r->allocator);
  return RT_OK;
}

void rt_runner_leave(rt_runner_t *r) {
  if (r->scoped) rt_mem_scope_leave(&r->scope);
  atomic_store_explicit(&r->busy, false, memory_order_release);
}

/* ---- inputs -------------------------------------------------------------------- */

/* "Tensor[(2, ?), float32]"; a rank-0 type as its dtype alone when
 * `bare_scalar` (the IR's way). */
static void describe(rt_dtype_t dtype, int32_t rank, const int64_t *shape, bool bare_scalar,
                     rt_strbuf_t *out) {
  char dn[RT_DTYPE_NAME_MAX];
  if (rank == 0 && bare_scalar) {
    rt_strbuf_puts(out, rt_dtype_name(dtype, dn));
    return;
  }
  rt_strbuf_puts(out, "Tensor[(");
  for (int32_t d = 0; d < rank; ++d) {
    if (shape[d] < 0) {
      rt_strbuf_printf(out, "%s?", d ? ", " : "");
    } else {
      rt_strbuf_printf(out, "%s%lld", d ? ", " : "", (long long)shape[d]);
    }
  }
  rt_strbuf_printf(out, "), %s]", rt_dtype_name(dtype, dn));
}

rt_status_t rt_runner_check_input(const rt_runner_t *r, int32_t index, const rt_tensor_t *t) {
  const rt_tensor_info_t *io = &r->inputs[index];
  bool ok = rt_dtype_equal(rt_tensor_dtype(t), io->dtype) && rt_tensor_rank(t) == io->rank;
  for (int32_t d = 0; ok && d < io->rank; ++d) {
    ok = io->shape[d] == RT_DIM_ANY || rt_tensor_shape(t)[d] == io->shape[d];
  }
  if (ok) return RT_OK;
  rt_strbuf_t want, got;
  rt_strbuf_initialize(&want);
  rt_strbuf_initialize(&got);
  describe(io->dtype, io->rank, io->shape, for_executor(r), &want);
  describe(rt_tensor_dtype(t), rt_tensor_rank(t), rt_tensor_shape(t), for_executor(r), &got);
  rt_status_t st = RT_STATUS(INVALID_ARGUMENT, "input '%s' expects %s, got %s", io->name,
                             want.data ? want.data : "", got.data ? got.data : "");
  rt_strbuf_deinitialize(&want);
  rt_strbuf_deinitialize(&got);
  return st;
}

rt_status_t rt_runner_set_input(rt_runner_t *r, int32_t index, rt_tensor_t *t) {
  if (index < 0 || index >= r->num_inputs) {
    return RT_STATUS(OUT_OF_RANGE, "input %d does not exist (the %s has %d)", (int)index,
                     owner(r), (int)r->num_inputs);
  }
  if (!t) return RT_STATUS(INVALID_ARGUMENT, "input '%s': tensor is NULL", r->inputs[index].name);
  RT_RETURN_IF_ERROR(rt_runner_check_input(r, index, t));
  if (r->graph) RT_RETURN_IF_ERROR(rt_graph_runtime_set_input(r->graph, index, t));
  rt_tensor_t *in = t;
  if (!for_executor(r) && r->vm && !rt_tensor_is_compact(t)) {
    RT_RETURN_IF_ERROR(rt_tensor_clone(rt_allocator_system(), t, &in));
  } else {
    rt_tensor_retain(in);
  }
  rt_tensor_release(r->input_values[index]);
  r->input_values[index] = in;
  if (for_executor(r)) rt_runner_clear_outputs(r);
  return RT_OK;
}

rt_status_t rt_runner_inputs_ready(const rt_runner_t *r) {
  for (int32_t i = 0; i < r->num_inputs; ++i) {
    if (!r->input_values[i]) {
      return RT_STATUS(FAILED_PRECONDITION, "input '%s' is not set", r->inputs[i].name);
    }
  }
  return RT_OK;
}

/* ---- running ------------------------------------------------------------------- */

/* The tensors of `v`, tuples flattened left to right, into out[0 .. cap)
 * (borrowed); *n counts them all (an artifact's runtime stops at cap). */
static rt_status_t flatten_vm(const rt_runner_t *r, rt_vm_value_t v, rt_tensor_t **out,
                              int32_t cap, int32_t *n) {
  switch (v.kind) {
    case RT_VM_VALUE_TENSOR:
      if (*n >= cap && !for_executor(r)) {
        return RT_STATUS(INTERNAL, "@main returned more than its %d outputs", (int)cap);
      }
      if (*n < cap) out[*n] = v.tensor;
      (*n)++;
      return RT_OK;
    case RT_VM_VALUE_TUPLE:
      for (int32_t i = 0; i < v.object->count; ++i) {
        RT_RETURN_IF_ERROR(flatten_vm(r, v.object->fields[i], out, cap, n));
      }
      return RT_OK;
    case RT_VM_VALUE_CLOSURE:
      if (!for_executor(r)) break;
      return RT_STATUS(INVALID_ARGUMENT, "the result holds a function (a closure), which cannot "
                                         "be returned through the executor API");
    case RT_VM_VALUE_EMPTY:
      if (for_executor(r)) return RT_STATUS(INTERNAL, "the vm returned no value");
      break;
    case RT_VM_VALUE_LIST:
    case RT_VM_VALUE_OPTION:
      return RT_STATUS(UNIMPLEMENTED, "@main returned a %s, which this call cannot return "
                       "(an executor's @main outputs can: rt_executor_get_output_items)",
                       v.kind == RT_VM_VALUE_LIST ? "list" : "option");
  }
  return RT_STATUS(INVALID_ARGUMENT, "@main returned a closure, which a model cannot output");
}

rt_status_t rt_runner_vm_call(rt_runner_t *r, int32_t function, const char *fn_name,
                              int32_t nargs, rt_tensor_t *const *args, int32_t max_outs,
                              rt_tensor_t **outs, int32_t *out_count) {
  rt_vm_value_t small[16];
  memset(small, 0, sizeof small);
  rt_vm_value_t *vals = nargs <= 16 ? small : rt_mem_calloc((size_t)nargs, sizeof *vals);
  if (!vals) {
    return for_executor(r) ? RT_STATUS(RESOURCE_EXHAUSTED, "out of memory")
                           : RT_STATUS(RESOURCE_EXHAUSTED, "out of memory running %s", r->name);
  }
  rt_status_t st = RT_OK;
  for (int32_t i = 0; i < nargs; ++i) {
    if (!args[i]) st = RT_STATUS(INVALID_ARGUMENT, "argument %d is NULL", (int)i);
    vals[i] = rt_vm_value_of_tensor(args[i]);
  }
  rt_vm_value_t result = {.kind = RT_VM_VALUE_EMPTY};
  if (!st) st = rt_vm_invoke(r->vm, function, nargs, vals, &result);
  if (vals != small) rt_mem_free(vals);
  if (st) return st;
  int32_t n = 0;
  rt_tensor_t *flat[RT_RUNNER_MAX_OUTPUTS];
  /* An artifact's runtime flattens into outs itself, stopping at max_outs. */
  rt_tensor_t **into = for_executor(r) ? flat : outs;
  st = flatten_vm(r, result, into, for_executor(r) ? RT_RUNNER_MAX_OUTPUTS : max_outs, &n);
  if (!st && n > max_outs) {
    st = RT_STATUS(OUT_OF_RANGE, "@%s returns %d tensors; room was given for %d", fn_name, (int)n,
                   (int)max_outs);
  }
  if (!st) {
    for (int32_t i = 0; i < n; ++i) {
      rt_tensor_retain(into[i]);
      outs[i] = into[i];
    }
    *out_count = n;
  } else if (into == outs) {
    memset(outs, 0, (size_t)(n < max_outs ? n : max_outs) * sizeof *outs);
  }
  rt_vm_value_release(result);
  return st;
}

/* The graph runtime's outputs become the run's. */
static void take_graph_outputs(rt_runner_t *r) {
  for (int32_t i = 0; i < r->num_outputs; ++i) {
    r->output_values[i] = rt_graph_runtime_output(r->graph, i);
    rt_tensor_retain(r->output_values[i]);
  }
  r->have_outputs = true;
}

rt_status_t rt_runner_run(rt_runner_t *r) {
  if (for_executor(r) || !r->graph) RT_RETURN_IF_ERROR(rt_runner_inputs_ready(r));
  rt_runner_clear_outputs(r);
  if (r->graph) {
    RT_RETURN_IF_ERROR(rt_graph_runtime_run(r->graph));
    take_graph_outputs(r);
    return RT_OK;
  }
  int32_t n = 0;
  if (r->vm) {
    RT_RETURN_IF_ERROR(rt_runner_vm_call(r, r->vm_main, "main", r->num_inputs, r->input_values,
                                         r->num_outputs, r->output_values, &n));
  } else {
    RT_RETURN_IF_ERROR(r->call(r->call_user, r->num_inputs, r->input_values, r->num_outputs,
                               r->output_values, &n));
  }
  if (n != r->num_outputs) {
    for (int32_t i = 0; i < n; ++i) rt_tensor_release(r->output_values[i]);
    memset(r->output_values, 0, (size_t)r->num_outputs * sizeof(rt_tensor_t *));
    if (for_executor(r)) {
      return RT_STATUS(INTERNAL, "@main returned %d tensors, its type says %d", (int)n,
                       (int)r->num_outputs);
    }
    return RT_STATUS(INTERNAL, "@main returned %d outputs, the signature has %d", (int)n,
                     (int)r->num_outputs);
  }
  r->have_outputs = true;
  return RT_OK;
}

rt_status_t rt_runner_run_timed(rt_runner_t *r, double *node_ms, rt_task_stats_t *node_tasks,
                                double *node_warm_ms) {
  RT_RETURN_IF_ERROR(rt_runner_inputs_ready(r));
  rt_runner_clear_outputs(r);
  RT_RETURN_IF_ERROR(rt_graph_runtime_run_timed(r->graph, node_ms, node_tasks, node_warm_ms));
  take_graph_outputs(r);
  return RT_OK;
}

/* ---- outputs ------------------------------------------------------------------- */

rt_status_t rt_runner_output(const rt_runner_t *r, int32_t index, rt_tensor_t **out_tensor) {
  if (index < 0 || index >= r->num_outputs) {
    return RT_STATUS(OUT_OF_RANGE, "output %d does not exist (the %s has %d)", (int)index,
                     owner(r), (int)r->num_outputs);
  }
  if (!for_executor(r) && r->graph) {
    *out_tensor = rt_graph_runtime_output(r->graph, index);
    return RT_OK;
  }
  if (!r->have_outputs) {
    return for_executor(r) ? RT_STATUS(FAILED_PRECONDITION, "no outputs: run the executor first")
                           : RT_STATUS(FAILED_PRECONDITION, "no outputs yet: run the model first "
                                       "(or its last run failed)");
  }
  *out_tensor = r->output_values[index];
  return RT_OK;
}
