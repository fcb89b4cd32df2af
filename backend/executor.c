/* rt_create_executor and the executor object (include/rt/executor.h).
 *
 * Creation: bind params into main (on a derived module), run the one build
 * pipeline (rt_build) with a copy of the pass context, then hand the
 * optimized module to the chosen executor: "debug" walks it with the
 * reference interpreter; "graph" lowers @main to a flat plan of JIT-compiled
 * kernels with planned memory (backend/graph.c, runtime/graph_runtime.c);
 * "vm" compiles every global to bytecode over the same JIT kernels
 * (backend/vm_compile.c) and runs it with the register machine of
 * runtime/vm.c, whose shape functions (for `?` dims) call back into
 * rt_vm_shape_function here. A "graph" executor whose @main has `?` input
 * dims plans nothing at creation: it checks the unbound module
 * (rt_graph_check) and each run specializes it to the inputs' shapes
 * (backend/graph_specialize.c, the runner's call); the calls that
 * describe a plan read the most recent specialization (current_plan).
 *
 * Inputs and outputs are described from main's signature once, at
 * creation; `?` dims are RT_DIM_ANY in the info and bound by the
 * tensors given to set_input. The input values, their checks, the run of
 * @main (graph runtime, VM or interpreter) and the outputs are the
 * runner's (runtime/runner.h), shared with rt_artifact_runtime.
 *
 * Concurrent use: an executor runs one call at a time. Every call that
 * runs it or changes its state (set_input, run, get_output, invoke,
 * profile, the step settings) takes the runner's busy guard (enter, which
 * also opens the scope of the executor's allocator) and gives it back on
 * return (leave); a call that finds it taken (another thread inside the
 * executor, or a step callback calling back in) fails at once with
 * FAILED_PRECONDITION and changes nothing. Info, get_source and export only
 * read what creation fixed, and take no guard. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/export.h"
#include "backend/graph.h"
#include "backend/graph_specialize.h"
#include "backend/vm_compile.h"
#include "interp/interp.h"
#include "jit/target.h"
#include "passes/pass.h"
#include "passes/fold_cache.h"
#include "rt/executor.h"
#include "runtime/strbuf.h"
#include "runtime/clock.h"
#include "runtime/mem.h"
#include "runtime/runner.h"

#define MAX_OUTPUTS RT_RUNNER_MAX_OUTPUTS

typedef struct {
  char name[64];
  rt_ir_type_t *type;      /* the declared type */
  rt_value_kind_t kind;    /* a tensor, or a List / Option (debug and vm) */
} io_desc;

struct rt_executor_t {
  _Atomic int32_t refcount;
  rt_allocator_t allocator;    /* options.allocator: every block of this executor */
  const char *kind;
  rt_module_t *module;     /* optimized, with the executor's steps; retained */
  rt_module_t *pipeline;   /* after the shared pipeline alone; retained */
  rt_ir_expr_t *main_fn;
  rt_pass_context_t ctx;
  rt_interp_t *interp;         /* "debug" */
  rt_jit_session_t *jit;       /* "graph" */
  rt_graph_build_t build;
  rt_graph_runtime_t *graph;
  rt_graph_spec_cache_t *spec; /* "graph" with `?` inputs: plans per input shape */
  rt_vm_build_t vm_build;      /* "vm" */
  rt_vm_t *vm;
  int32_t vm_main;
  rt_thread_pool_t *pool;      /* ctx.num_threads of them */
  int32_t num_inputs;
  io_desc *inputs;
  rt_tensor_info_t *input_infos;   /* the same, for the runner and input_info */
  int32_t num_outputs;
  rt_ir_type_t **output_types;
  rt_value_kind_t *output_kinds;
  /* Sequences and optionals (debug and vm): the List / Option values set
   * for inputs (rt_executor_set_input_items) and made by the last run for
   * outputs, one reference each, NULL for tensors. */
  rt_interp_value_t **adt_inputs;
  rt_interp_value_t **adt_outputs;
  rt_runner_t runner;          /* input values, the guard, runs, outputs (see the top) */
  rt_step_fn step;
  void *step_user;
  double create_ms, passes_ms; /* rt_create_executor's wall time, its pass pipeline's */
};

/* ---- helpers ------------------------------------------------------------- */

static void count_leaves(const rt_ir_type_t *t, int32_t *n) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (t && t->kind == RT_IR_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->tuple.count; ++i) count_leaves(t->tuple.fields[i], n);
  } else {
    (*n)++;
  }
}

static void collect_leaves(const rt_ir_type_t *t, rt_ir_type_t **out, int32_t *n) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (t && t->kind == RT_IR_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->tuple.count; ++i) collect_leaves(t->tuple.fields[i], out, n);
  } else {
    out[(*n)++] = (rt_ir_type_t *)t;
  }
}

/* The tensors of a result, flattened. With `ex` (a run of @main), a List
 * or Option leaf k is kept in ex->adt_outputs[k] and stands in the flat
 * list as a new 0-d int64 of its item count (-1: an absent option), which
 * goes to made[] for the caller to release. */
typedef struct flat_t {
  rt_executor_t *ex;
  int32_t leaf;
  rt_tensor_t **made;
  int32_t nmade;
} flat_t;

static rt_status_t flatten_value(const rt_interp_value_t *v, rt_tensor_t **out, int32_t cap,
                                 int32_t *n, flat_t *f) {
  switch (v->kind) {
    case RT_INTERP_TENSOR:
      if (*n < cap) out[*n] = v->tensor;
      (*n)++;
      if (f) f->leaf++;
      return RT_OK;
    case RT_INTERP_TUPLE:
      for (int32_t i = 0; i < v->tuple.count; ++i) {
        RT_RETURN_IF_ERROR(flatten_value(v->tuple.fields[i], out, cap, n, f));
      }
      return RT_OK;
    case RT_INTERP_CLOSURE:
      return RT_STATUS(INVALID_ARGUMENT, "the result holds a function (a closure), which cannot "
                                         "be returned through the executor API");
    case RT_INTERP_LIST:
    case RT_INTERP_OPTION: {
      if (!f || f->leaf >= f->ex->num_outputs) {
        return RT_STATUS(UNIMPLEMENTED, "the result holds a %s, which this call cannot return "
                                        "(@main's outputs can: rt_executor_get_output_items)",
                         v->kind == RT_INTERP_LIST ? "list" : "option");
      }
      int64_t count = v->tuple.count;
      if (f->ex->output_kinds[f->leaf] == RT_VALUE_OPTION_LIST) {
        count = v->tuple.count == 0 ? -1 : v->tuple.fields[0]->tuple.count;
      } else if (v->kind == RT_INTERP_OPTION && v->tuple.count == 0) {
        count = -1;
      }
      rt_tensor_t *t = NULL;
      RT_RETURN_IF_ERROR(rt_tensor_create(f->ex->allocator, (rt_dtype_t){kDLInt, 64, 1}, 0, NULL,
                                          &t));
      *(int64_t *)rt_tensor_data(t) = count;
      f->made[f->nmade++] = t;
      rt_interp_value_retain((rt_interp_value_t *)v);
      rt_interp_value_release(f->ex->adt_outputs[f->leaf]);
      f->ex->adt_outputs[f->leaf] = (rt_interp_value_t *)v;
      if (*n < cap) out[*n] = t;
      (*n)++;
      f->leaf++;
      return RT_OK;
    }
  }
  return RT_STATUS(INTERNAL, "bad value kind");
}

/* ---- creation ------------------------------------------------------------ */

static void fill_info(const char *name, const rt_ir_type_t *t, rt_tensor_info_t *out);
static rt_status_t call_main(void *user, int32_t nargs, rt_tensor_t *const *args,
                             int32_t max_outs, rt_tensor_t **outs, int32_t *out_count);

/* The kind of a value @main takes or returns: tensors anywhere; a List of
 * tensors, an Option of a tensor or of a List of tensors on the debug
 * executor alone (an element type inference left open, `_`, is taken as
 * a tensor). */
static rt_status_t value_kind(const rt_executor_t *ex, const rt_ir_type_t *t, const char *what,
                              const char *name, rt_value_kind_t *out) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  *out = RT_VALUE_TENSOR;
  if (t && t->kind == RT_IR_TYPE_TENSOR) return RT_OK;
  if (t && (t->kind == RT_IR_TYPE_LIST || t->kind == RT_IR_TYPE_OPTION)) {
    const rt_ir_type_t *e = rt_ir_type_resolve(t->adt.elem);
    bool tensor_elem = !e || e->kind == RT_IR_TYPE_TENSOR || e->kind == RT_IR_TYPE_INCOMPLETE;
    const rt_ir_type_t *ee = e && e->kind == RT_IR_TYPE_LIST ? rt_ir_type_resolve(e->adt.elem)
                                                             : NULL;
    bool list_elem = t->kind == RT_IR_TYPE_OPTION && e && e->kind == RT_IR_TYPE_LIST &&
                     (!ee || ee->kind == RT_IR_TYPE_TENSOR || ee->kind == RT_IR_TYPE_INCOMPLETE);
    if (tensor_elem || list_elem) {
      if (strcmp(ex->kind, "graph") == 0) {
        return RT_STATUS(INVALID_ARGUMENT, "the %s executor does not run list and option values "
                         "(%s %s%s of @main is a%s %s); use the \"vm\" or \"debug\" executor", ex->kind,
                         what, strcmp(what, "parameter") == 0 ? "%" : "", name,
                         t->kind == RT_IR_TYPE_LIST ? "" : "n",
                         t->kind == RT_IR_TYPE_LIST ? "List" : "Option");
      }
      *out = t->kind == RT_IR_TYPE_LIST ? RT_VALUE_LIST
             : list_elem                ? RT_VALUE_OPTION_LIST
                                        : RT_VALUE_OPTION;
      return RT_OK;
    }
  }
  const bool param = strcmp(what, "parameter") == 0;
  return RT_STATUS(INVALID_ARGUMENT, "%s %s%s of @main is not a tensor (a function?); executors "
                   "%s (the debug and vm executors also Lists of tensors and Options of a tensor or of "
                   "such a List)", what, param ? "%" : "", name,
                   param ? "take tensor inputs" : "return tensors");
}

static rt_status_t describe_io(rt_executor_t *ex) {
  rt_ir_expr_t *fn = ex->main_fn;
  ex->num_inputs = fn->fn.nparams;
  ex->inputs = rt_mem_calloc((size_t)(ex->num_inputs ? ex->num_inputs : 1), sizeof(io_desc));
  ex->input_infos = rt_mem_calloc((size_t)(ex->num_inputs ? ex->num_inputs : 1), sizeof(rt_tensor_info_t));
  if (!ex->inputs || !ex->input_infos) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t i = 0; i < ex->num_inputs; ++i) {
    rt_ir_expr_t *p = fn->fn.params[i];
    snprintf(ex->inputs[i].name, sizeof ex->inputs[i].name, "%s", p->var.name);
    rt_ir_type_t *t = rt_ir_type_resolve(p->checked_type);
    RT_RETURN_IF_ERROR(value_kind(ex, t, "parameter", p->var.name, &ex->inputs[i].kind));
    ex->inputs[i].type = t;
    fill_info(ex->inputs[i].name, ex->inputs[i].kind == RT_VALUE_TENSOR ? t : NULL,
              &ex->input_infos[i]);
  }
  rt_ir_type_t *ft = rt_ir_type_resolve(fn->checked_type);
  rt_ir_type_t *ret = ft ? ft->func.ret : NULL;
  int32_t n = 0;
  count_leaves(ret, &n);
  if (n > MAX_OUTPUTS) return RT_STATUS(RESOURCE_EXHAUSTED, "@main has %d outputs", (int)n);
  ex->num_outputs = n;
  ex->output_types = rt_mem_calloc((size_t)(n ? n : 1), sizeof(rt_ir_type_t *));
  if (!ex->output_types) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  n = 0;
  collect_leaves(ret, ex->output_types, &n);
  ex->output_kinds = rt_mem_calloc((size_t)(n ? n : 1), sizeof(rt_value_kind_t));
  ex->adt_outputs = rt_mem_calloc((size_t)(n ? n : 1), sizeof(rt_interp_value_t *));
  ex->adt_inputs = rt_mem_calloc((size_t)(ex->num_inputs ? ex->num_inputs : 1),
                                 sizeof(rt_interp_value_t *));
  if (!ex->output_kinds || !ex->adt_outputs || !ex->adt_inputs) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  }
  for (int32_t i = 0; i < n; ++i) {
    rt_ir_type_t *t = rt_ir_type_resolve(ex->output_types[i]);
    char what[32];
    snprintf(what, sizeof what, "%d", (int)i);
    RT_RETURN_IF_ERROR(value_kind(ex, t, "output", what, &ex->output_kinds[i]));
  }
  return rt_runner_initialize(&ex->runner, RT_RUNNER_API_EXECUTOR, ex->kind, &ex->allocator,
                              ex->num_inputs, ex->input_infos, n);
}

static rt_status_t create_executor(const char *kind, rt_module_t *module, const char *target,
                                  const rt_pass_context_t *ctx, const rt_params_t *params,
                                  const rt_allocator_t *allocator, rt_executor_t **out_executor);

/* The executor's JIT session. With the system allocator, the process-wide
 * session of its target: executors alive at once share kernels. With an
 * allocator of the embedder's, a session of its own, whose bookkeeping
 * comes from that allocator (LLVM's own heap is LLVM's). */
static rt_status_t jit_session(rt_executor_t *ex, const rt_allocator_t *allocator) {
  const rt_jit_target_kind_t kind = (rt_jit_target_kind_t)ex->ctx.jit_target;
  if (!allocator) return rt_jit_session_shared(kind, &ex->jit);
  return rt_jit_session_create_for(*allocator, kind, &ex->jit);
}

rt_status_t rt_create_executor(const char *kind, rt_module_t *module, const char *target,
                               const rt_pass_context_t *ctx, const rt_params_t *params,
                               rt_executor_t **out_executor) {
  return rt_create_executor_with_options(kind, module, target, ctx, params, NULL, out_executor);
}

rt_status_t rt_create_executor_with_options(const char *kind, rt_module_t *module,
                                            const char *target, const rt_pass_context_t *ctx,
                                            const rt_params_t *params,
                                            const rt_executor_options_t *options,
                                            rt_executor_t **out_executor) {
  const rt_allocator_t *allocator = options ? options->allocator : NULL;
  rt_mem_scope_t scope;
  rt_mem_scope_enter(&scope, allocator);
  rt_status_t st = create_executor(kind, module, target, ctx, params, allocator, out_executor);
  rt_mem_scope_leave(&scope);
  return st;
}

static bool has_dynamic_input(const rt_executor_t *ex) {
  for (int32_t i = 0; i < ex->num_inputs; ++i) {
    for (int32_t d = 0; d < ex->input_infos[i].rank; ++d) {
      if (ex->input_infos[i].shape[d] == RT_DIM_ANY) return true;
    }
  }
  return false;
}

/* Whether ops of `bound` read the values of some input of @main for
 * shapes (backend/graph_specialize.h, rt_graph_value_inputs). */
static rt_status_t has_value_input(rt_module_t *bound, bool *out_any) {
  const rt_ir_expr_t *main_fn = rt_ir_module_lookup(bound, "main");
  const int32_t n = main_fn ? main_fn->fn.nparams : 0;
  bool *values = rt_mem_calloc((size_t)(n ? n : 1), sizeof *values);
  if (!values) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating the graph executor");
  rt_status_t st = rt_graph_value_inputs(bound, values, out_any);
  rt_mem_free(values);
  return st;
}

/* A graph executor for `?` inputs (backend/graph_specialize.h): the
 * pipeline ran on the unbound module already (type errors, every pass's
 * errors), and rt_graph_check now refuses what no input shape would make
 * plannable (control flow, closures, calls of globals), so those errors
 * come at creation as for a static model. Kernels are not compiled here:
 * a specialization's groups have static types, so kernels compiled for
 * the `?` types would serve none of them. What runs is planned at the
 * first run of each input shape, from `bound` (params bound, shapes not). */
static rt_status_t create_specializing(rt_executor_t *ex, rt_module_t *bound, uint32_t flags) {
  RT_RETURN_IF_ERROR(rt_graph_check(ex->module));
  /* Runs bind `bound`'s parameters by position to the executor's inputs,
   * which the pipeline keeps as they were (names and order). */
  const rt_ir_expr_t *main_fn = rt_ir_module_lookup(bound, "main");
  bool same = main_fn && main_fn->fn.nparams == ex->num_inputs;
  for (int32_t i = 0; same && i < ex->num_inputs; ++i) {
    same = strncmp(main_fn->fn.params[i]->var.name, ex->inputs[i].name,
                   sizeof ex->inputs[i].name - 1) == 0;
  }
  if (!same) {
    return RT_STATUS(INTERNAL, "the pipeline changed @main's parameters; the graph executor "
                     "cannot specialize it to its inputs' shapes");
  }
  RT_RETURN_IF_ERROR(rt_thread_pool_create((int32_t)ex->ctx.num_threads, &ex->pool));
  RT_RETURN_IF_ERROR(rt_graph_spec_cache_create(ex->allocator, bound, &ex->ctx, ex->jit, flags,
                                                ex->pool, &ex->spec));
  rt_runner_use_call(&ex->runner, rt_graph_spec_call, ex->spec);
  return RT_OK;
}

/* String tensors (include/rt/tensor.h) run on the debug executor and, as
 * host ops (backend/vm_host.c), on the vm; the graph executor's planned
 * memory and kernels take elements as plain bytes, so it refuses them. */
typedef struct {
  bool found;
  const char *op; /* the first op call that takes or gives one, if any */
} string_scan;

static bool is_string_type(const rt_ir_type_t *t) {
  t = t ? rt_ir_type_resolve((rt_ir_type_t *)t) : NULL;
  return t && t->kind == RT_IR_TYPE_TENSOR && rt_dtype_is_string(t->tensor.dtype);
}

static rt_status_t string_visit(void *user, rt_ir_expr_t *e) {
  string_scan *scan = user;
  bool str = is_string_type(e->checked_type);
  if (e->kind == RT_IR_CALL) {
    for (int32_t i = 0; !str && i < e->call.nargs; ++i) str = is_string_type(e->call.args[i]->checked_type);
    if (str && !scan->op && e->call.callee->kind == RT_IR_OP) scan->op = e->call.callee->op.op->name;
  }
  scan->found = scan->found || str;
  return RT_OK;
}

static rt_status_t refuse_strings(rt_module_t *m, const char *kind) {
  for (int32_t g = 0; g < m->num_globals; ++g) {
    string_scan scan = {false, NULL};
    RT_RETURN_IF_ERROR(rt_ir_post_order(m->allocator, m->globals[g].fn, string_visit, &scan));
    if (!scan.found) continue;
    return RT_STATUS(UNIMPLEMENTED,
                     "the %s executor does not run string tensors (@%s%s%s uses them); use "
                     "the \"vm\" or \"debug\" executor",
                     kind, m->globals[g].name, scan.op ? ": op " : "", scan.op ? scan.op : "");
  }
  return RT_OK;
}

/* Whether @main takes or returns a List or an Option. */
static bool has_adt_io(const rt_executor_t *ex) {
  for (int32_t i = 0; i < ex->num_inputs; ++i) {
    if (ex->inputs[i].kind != RT_VALUE_TENSOR) return true;
  }
  for (int32_t i = 0; i < ex->num_outputs; ++i) {
    if (ex->output_kinds[i] != RT_VALUE_TENSOR) return true;
  }
  return false;
}

/* rt_jit_build's flags for the executor's context. */
static uint32_t jit_flags(const rt_executor_t *ex) {
  return (ex->ctx.jit_keep_ll ? RT_JIT_KEEP_LL : 0u) | (ex->ctx.jit_keep_asm ? RT_JIT_KEEP_ASM : 0u) |
         (ex->ctx.jit_disk_cache ? 0u : RT_JIT_NO_DISK_CACHE);
}

static rt_status_t create_executor(const char *kind, rt_module_t *module, const char *target,
                                  const rt_pass_context_t *ctx, const rt_params_t *params,
                                  const rt_allocator_t *allocator, rt_executor_t **out_executor) {
  if (!kind || !module || !out_executor) {
    return RT_STATUS(INVALID_ARGUMENT, "rt_create_executor: kind, module and out_executor are required");
  }
  const char *kinds[] = {"debug", "graph", "vm"};
  const char *k = NULL;
  for (size_t i = 0; i < 3; ++i) {
    if (strcmp(kind, kinds[i]) == 0) k = kinds[i];
  }
  if (!k) {
    return RT_STATUS(INVALID_ARGUMENT, "unknown executor '%s' (known: debug, graph, vm)", kind);
  }
  if (target && *target && strcmp(target, "llvm") != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "unknown target '%s' (known: llvm, the host CPU)", target);
  }
  rt_executor_t *ex = rt_mem_calloc(1, sizeof *ex);
  if (!ex) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating an executor");
  atomic_init(&ex->refcount, 1);
  ex->allocator = allocator ? *allocator : rt_allocator_system();
  ex->kind = k;
  /* The context is a value: copied here and applied in full before
   * returning (its instruments run during this call only). */
  if (ctx) {
    ex->ctx = *ctx;
    ex->ctx.num_owned = 0;
  } else {
    rt_pass_context_defaults(&ex->ctx);
  }
  rt_module_t *bound = NULL;
  const double t_create = rt_now_ms();
  /* FoldConstant's large folds are written to the fold cache on a writer
   * thread while the kernels compile; waited for before returning. */
  rt_fold_cache_defer_begin();
  rt_status_t st = rt_backend_bind_params(module, params, &bound);
  if (!st) st = rt_build(bound, &ex->ctx, k, &ex->module, &ex->pipeline);
  ex->passes_ms = rt_now_ms() - t_create;
  if (!st && strcmp(k, "graph") == 0) st = refuse_strings(ex->module, k);
  if (!st && strcmp(k, "vm") == 0) {
    rt_module_t *prepared = NULL;
    st = rt_vm_prepare_module(ex->module, &ex->ctx, &prepared);
    if (!st) {
      rt_module_release(ex->module);
      ex->module = prepared;
    }
  }
  if (!st) {
    ex->main_fn = rt_ir_module_lookup(ex->module, "main");
    if (!ex->main_fn) st = RT_STATUS(NOT_FOUND, "the module has no @main");
  }
  if (!st) st = describe_io(ex);
  if (!st && strcmp(k, "debug") == 0) {
    st = rt_interp_create(ex->allocator, ex->module, NULL, &ex->interp);
    if (!st) rt_runner_use_call(&ex->runner, call_main, ex);
  } else if (!st && strcmp(k, "vm") == 0) {
    const uint32_t flags = jit_flags(ex);
    st = jit_session(ex, allocator);
    if (!st) {
      st = rt_vm_compile(ex->module, ex->jit, flags, (rt_vm_specialize_t)ex->ctx.vm_specialize,
                         &ex->vm_build);
    }
    if (!st) st = rt_vm_executable_lookup(&ex->vm_build.exe, "main", &ex->vm_main);
    if (!st) st = rt_thread_pool_create((int32_t)ex->ctx.num_threads, &ex->pool);
    if (!st) {
      rt_vm_options_t opts = {0};
      opts.shape_fn = rt_vm_shape_function;
      opts.shape_user = &ex->vm_build;
      opts.resolve_fn = rt_vm_resolve_kernel;
      opts.resolve_user = &ex->vm_build;
      opts.host_fn = rt_vm_run_host_op;
      opts.host_user = &ex->vm_build;
      st = rt_vm_create(ex->allocator, &ex->vm_build.exe, ex->vm_build.kernels, ex->pool, &opts,
                        &ex->vm);
    }
    /* Lists and options in or out of @main go through the items API. */
    if (!st && has_adt_io(ex)) {
      rt_runner_use_call(&ex->runner, call_main, ex);
    } else if (!st) {
      rt_runner_use_vm(&ex->runner, ex->vm, ex->vm_main);
    }
  } else if (!st) {
    const uint32_t flags = jit_flags(ex);
    st = jit_session(ex, allocator);
    bool values = false;
    if (!st) st = has_value_input(bound, &values);
    if (!st && (values || has_dynamic_input(ex))) {
      st = create_specializing(ex, bound, flags);
    } else {
      if (!st) st = rt_graph_build(ex->module, ex->jit, flags, &ex->build);
      if (!st) st = rt_thread_pool_create((int32_t)ex->ctx.num_threads, &ex->pool);
      if (!st) {
        st = rt_graph_runtime_create(ex->allocator, &ex->build.plan, ex->build.kernels,
                                     ex->build.num_kernels, ex->pool, &ex->graph);
      }
      if (!st) rt_runner_use_graph(&ex->runner, ex->graph);
    }
  }
  rt_module_release(bound);
  rt_fold_cache_defer_end();
  if (st) {
    rt_executor_release(ex);
    return rt_status_annotate(st, "creating the %s executor", k);
  }
  ex->create_ms = rt_now_ms() - t_create;
  *out_executor = ex;
  return RT_OK;
}

void rt_executor_retain(rt_executor_t *ex) { atomic_fetch_add(&ex->refcount, 1); }

void rt_executor_release(rt_executor_t *ex) {
  if (!ex || atomic_fetch_sub(&ex->refcount, 1) != 1) return;
  rt_runner_deinitialize(&ex->runner);
  for (int32_t i = 0; ex->adt_inputs && i < ex->num_inputs; ++i) {
    rt_interp_value_release(ex->adt_inputs[i]);
  }
  for (int32_t i = 0; ex->adt_outputs && i < ex->num_outputs; ++i) {
    rt_interp_value_release(ex->adt_outputs[i]);
  }
  rt_mem_free(ex->adt_inputs);
  rt_mem_free(ex->adt_outputs);
  rt_mem_free(ex->output_kinds);
  rt_mem_free(ex->inputs);
  rt_mem_free(ex->input_infos);
  rt_mem_free(ex->output_types);
  rt_interp_release(ex->interp);
  rt_graph_runtime_release(ex->graph);
  rt_graph_spec_cache_release(ex->spec);
  rt_vm_release(ex->vm);
  rt_vm_build_deinitialize(&ex->vm_build);
  rt_graph_build_deinitialize(&ex->build);
  rt_thread_pool_release(ex->pool);
  rt_jit_session_release(ex->jit);
  rt_module_release(ex->module);
  rt_module_release(ex->pipeline);
  rt_mem_free(ex);
}

/* ---- info ---------------------------------------------------------------- */

const char *rt_executor_kind(const rt_executor_t *ex) { return ex->kind; }
int32_t rt_executor_num_inputs(const rt_executor_t *ex) { return ex->num_inputs; }
int32_t rt_executor_num_outputs(const rt_executor_t *ex) { return ex->num_outputs; }

/* t NULL: a List or Option input, which reads as a 0-d int64 (its count). */
static void fill_info(const char *name, const rt_ir_type_t *t, rt_tensor_info_t *out) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  out->name = name;
  if (!t) {
    out->dtype = (rt_dtype_t){kDLInt, 64, 1};
    out->rank = 0;
    out->shape = NULL;
    return;
  }
  out->dtype = t->tensor.dtype;
  out->rank = t->tensor.rank;
  out->shape = t->tensor.shape;
}

rt_status_t rt_executor_input_info(const rt_executor_t *ex, int32_t index, rt_tensor_info_t *out) {
  if (index < 0 || index >= ex->num_inputs) {
    return RT_STATUS(OUT_OF_RANGE, "input %d does not exist (the executor has %d)", (int)index,
                     (int)ex->num_inputs);
  }
  *out = ex->input_infos[index];
  return RT_OK;
}

static const char *const kOutputNames[] = {"output_0", "output_1", "output_2", "output_3",
                                           "output_4", "output_5", "output_6", "output_7"};

rt_status_t rt_executor_output_info(const rt_executor_t *ex, int32_t index, rt_tensor_info_t *out) {
  if (index < 0 || index >= ex->num_outputs) {
    return RT_STATUS(OUT_OF_RANGE, "output %d does not exist (the executor has %d)", (int)index,
                     (int)ex->num_outputs);
  }
  fill_info(index < 8 ? kOutputNames[index] : "output",
            ex->output_kinds[index] == RT_VALUE_TENSOR ? ex->output_types[index] : NULL, out);
  return RT_OK;
}

rt_status_t rt_executor_input_index(const rt_executor_t *ex, const char *name, int32_t *out_index) {
  for (int32_t i = 0; name && i < ex->num_inputs; ++i) {
    if (strcmp(ex->inputs[i].name, name) == 0) {
      *out_index = i;
      return RT_OK;
    }
  }
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  for (int32_t i = 0; i < ex->num_inputs; ++i) {
    rt_strbuf_printf(&b, "%s%s", i ? ", " : "", ex->inputs[i].name);
  }
  rt_status_t st = RT_STATUS(NOT_FOUND, "no input named '%s' (inputs: %s)", name ? name : "(null)",
                             ex->num_inputs ? (b.data ? b.data : "") : "none");
  rt_strbuf_deinitialize(&b);
  return st;
}

/* ---- inputs, run, outputs ------------------------------------------------ */

static rt_status_t enter(rt_executor_t *ex, const char *what) {
  return rt_runner_enter(&ex->runner, what);
}

static void leave(rt_executor_t *ex) { rt_runner_leave(&ex->runner); }

rt_status_t rt_executor_set_input(rt_executor_t *ex, int32_t index, rt_tensor_t *tensor) {
  RT_RETURN_IF_ERROR(enter(ex, "set_input"));
  rt_status_t st = rt_runner_set_input(&ex->runner, index, tensor);
  leave(ex);
  return st;
}

rt_status_t rt_executor_set_input_by_name(rt_executor_t *ex, const char *name, rt_tensor_t *tensor) {
  int32_t index = 0;
  RT_RETURN_IF_ERROR(rt_executor_input_index(ex, name, &index));
  return rt_executor_set_input(ex, index, tensor);
}

/* ---- sequences and optionals (debug and vm) ------------------------------- */

rt_status_t rt_executor_input_kind(const rt_executor_t *ex, int32_t index, rt_value_kind_t *out) {
  if (index < 0 || index >= ex->num_inputs) {
    return RT_STATUS(OUT_OF_RANGE, "input %d does not exist (the executor has %d)", (int)index,
                     (int)ex->num_inputs);
  }
  *out = ex->inputs[index].kind;
  return RT_OK;
}

rt_status_t rt_executor_output_kind(const rt_executor_t *ex, int32_t index, rt_value_kind_t *out) {
  if (index < 0 || index >= ex->num_outputs) {
    return RT_STATUS(OUT_OF_RANGE, "output %d does not exist (the executor has %d)", (int)index,
                     (int)ex->num_outputs);
  }
  *out = ex->output_kinds[index];
  return RT_OK;
}

static rt_status_t make_items(rt_executor_t *ex, int32_t index, bool present, int32_t count,
                              rt_tensor_t *const *items, rt_interp_value_t **out) {
  const io_desc *d = &ex->inputs[index];
  if (count < 0 || (count > 0 && !items) || (!present && count != 0)) {
    return RT_STATUS(INVALID_ARGUMENT, "input '%s': %d items%s", d->name, (int)count,
                     present ? " (need a non-negative count and items)"
                             : " for an absent option (give 0)");
  }
  if (!present && d->kind == RT_VALUE_LIST) {
    return RT_STATUS(INVALID_ARGUMENT, "input '%s' is a List, which is always present", d->name);
  }
  if (present && d->kind == RT_VALUE_OPTION && count != 1) {
    return RT_STATUS(INVALID_ARGUMENT, "input '%s' is an Option of a tensor: give one item, not "
                     "%d", d->name, (int)count);
  }
  rt_interp_value_t **vals = rt_mem_calloc((size_t)(count ? count : 1), sizeof *vals);
  if (!vals) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  rt_status_t st = RT_OK;
  int32_t made = 0;
  for (; made < count && !st; ++made) {
    if (!items[made]) {
      st = RT_STATUS(INVALID_ARGUMENT, "input '%s': item %d is NULL", d->name, (int)made);
      break;
    }
    st = rt_interp_value_tensor(ex->allocator, items[made], &vals[made]);
    if (st) break;
  }
  rt_interp_value_t *list = NULL;
  if (!st && d->kind != RT_VALUE_OPTION) {
    st = rt_interp_value_adt(ex->allocator, RT_INTERP_LIST, count, vals, &list);
  }
  if (!st && d->kind == RT_VALUE_LIST) {
    *out = list;
    list = NULL;
  } else if (!st) {
    rt_interp_value_t *inner = d->kind == RT_VALUE_OPTION ? (count ? vals[0] : NULL) : list;
    st = rt_interp_value_adt(ex->allocator, RT_INTERP_OPTION, present ? 1 : 0, &inner, out);
  }
  rt_interp_value_release(list);
  for (int32_t i = 0; i < made; ++i) rt_interp_value_release(vals[i]);
  rt_mem_free(vals);
  return st;
}

rt_status_t rt_executor_set_input_items(rt_executor_t *ex, int32_t index, bool present,
                                        int32_t count, rt_tensor_t *const *items) {
  RT_RETURN_IF_ERROR(enter(ex, "set_input_items"));
  rt_status_t st = RT_OK;
  rt_interp_value_t *v = NULL;
  rt_tensor_t *n = NULL;
  if (index < 0 || index >= ex->num_inputs) {
    st = RT_STATUS(OUT_OF_RANGE, "input %d does not exist (the executor has %d)", (int)index,
                   (int)ex->num_inputs);
  } else if (ex->inputs[index].kind == RT_VALUE_TENSOR) {
    st = RT_STATUS(INVALID_ARGUMENT, "input '%s' is a tensor: set it with rt_executor_set_input",
                   ex->inputs[index].name);
  }
  if (!st) st = make_items(ex, index, present, count, items, &v);
  if (!st) {
    /* The value's type against the declared one (item shapes, dtypes):
     * the interpreter checks it when @main is called; a run reports it. */
    st = rt_tensor_create(ex->allocator, (rt_dtype_t){kDLInt, 64, 1}, 0, NULL, &n);
  }
  if (!st) {
    *(int64_t *)rt_tensor_data(n) = present ? count : -1;
    st = rt_runner_set_input(&ex->runner, index, n);
  }
  if (!st) {
    rt_interp_value_release(ex->adt_inputs[index]);
    ex->adt_inputs[index] = v;
    v = NULL;
  }
  rt_interp_value_release(v);
  rt_tensor_release(n);
  leave(ex);
  return st;
}

static rt_status_t output_adt(rt_executor_t *ex, int32_t index, const rt_interp_value_t **out) {
  if (index < 0 || index >= ex->num_outputs) {
    return RT_STATUS(OUT_OF_RANGE, "output %d does not exist (the executor has %d)", (int)index,
                     (int)ex->num_outputs);
  }
  if (ex->output_kinds[index] == RT_VALUE_TENSOR) {
    return RT_STATUS(FAILED_PRECONDITION, "output %d is a tensor: read it with "
                     "rt_executor_get_output", (int)index);
  }
  rt_tensor_t *t = NULL; /* the runner says whether the last run succeeded */
  RT_RETURN_IF_ERROR(rt_runner_output(&ex->runner, index, &t));
  if (!ex->adt_outputs[index]) {
    return RT_STATUS(FAILED_PRECONDITION, "output %d has no value yet", (int)index);
  }
  *out = ex->adt_outputs[index];
  return RT_OK;
}

/* The items of an output value: an Option of a List holds them in its list. */
static const rt_interp_value_t *items_of(const rt_executor_t *ex, int32_t index,
                                         const rt_interp_value_t *v) {
  if (ex->output_kinds[index] == RT_VALUE_OPTION_LIST && v->tuple.count == 1) {
    return v->tuple.fields[0];
  }
  return v;
}

rt_status_t rt_executor_get_output_items(rt_executor_t *ex, int32_t index, bool *out_present,
                                         int32_t *out_count) {
  RT_RETURN_IF_ERROR(enter(ex, "get_output_items"));
  const rt_interp_value_t *v = NULL;
  rt_status_t st = output_adt(ex, index, &v);
  if (!st) {
    *out_present = v->kind == RT_INTERP_LIST || v->tuple.count > 0;
    *out_count = *out_present ? items_of(ex, index, v)->tuple.count : 0;
  }
  leave(ex);
  return st;
}

rt_status_t rt_executor_get_output_item(rt_executor_t *ex, int32_t index, int32_t item,
                                        rt_tensor_t **out_tensor) {
  RT_RETURN_IF_ERROR(enter(ex, "get_output_item"));
  const rt_interp_value_t *v = NULL;
  rt_status_t st = output_adt(ex, index, &v);
  if (!st) {
    bool present = v->kind == RT_INTERP_LIST || v->tuple.count > 0;
    const rt_interp_value_t *l = items_of(ex, index, v);
    if (!present || item < 0 || item >= l->tuple.count) {
      st = RT_STATUS(OUT_OF_RANGE, "output %d has no item %d (it has %d)", (int)index, (int)item,
                     present ? (int)l->tuple.count : 0);
    } else if (l->tuple.fields[item]->kind != RT_INTERP_TENSOR) {
      st = RT_STATUS(INTERNAL, "item %d of output %d is not a tensor", (int)item, (int)index);
    } else {
      *out_tensor = l->tuple.fields[item]->tensor;
    }
  }
  leave(ex);
  return st;
}

static rt_status_t step_adapter(void *user, const rt_interp_event_t *ev) {
  rt_executor_t *ex = user;
  rt_tensor_t *tensors[256];
  int32_t n = 0;
  /* A step's list or option value shows no tensors (its items are not
   * flattened into the event). */
  if (ev->value && ev->value->kind != RT_INTERP_CLOSURE && ev->value->kind != RT_INTERP_LIST &&
      ev->value->kind != RT_INTERP_OPTION) {
    RT_RETURN_IF_ERROR(flatten_value(ev->value, tensors, 256, &n, NULL));
    if (n > 256) n = 256;
  }
  rt_step_event_t se = {ev->text,
                        ev->expr->span.source ? ev->expr->span.source->name : NULL,
                        ev->expr->span.line,
                        ev->expr->span.col,
                        ev->call_depth,
                        ev->value != NULL,
                        n,
                        tensors,
                        ev->in_primitive};
  return ex->step(ex->step_user, &se);
}

static rt_status_t set_step_callback(rt_executor_t *ex, rt_step_fn callback, void *user) {
  if (!ex->interp) {
    return RT_STATUS(UNIMPLEMENTED, "the %s executor cannot step; use the \"debug\" executor",
                     ex->kind);
  }
  ex->step = callback;
  ex->step_user = user;
  if (callback) {
    rt_interp_set_hooks(ex->interp, step_adapter, step_adapter, ex);
  } else {
    rt_interp_set_hooks(ex->interp, NULL, NULL, NULL);
  }
  return RT_OK;
}

rt_status_t rt_executor_set_step_callback(rt_executor_t *ex, rt_step_fn callback, void *user) {
  RT_RETURN_IF_ERROR(enter(ex, "set_step_callback"));
  rt_status_t st = set_step_callback(ex, callback, user);
  leave(ex);
  return st;
}

rt_status_t rt_executor_set_step_into_fused(rt_executor_t *ex, bool enter_groups) {
  if (!ex->interp) {
    return RT_STATUS(UNIMPLEMENTED, "the %s executor cannot step; use the \"debug\" executor",
                     ex->kind);
  }
  RT_RETURN_IF_ERROR(enter(ex, "set_step_into_fused"));
  rt_interp_set_step_into_primitive(ex->interp, enter_groups);
  leave(ex);
  return RT_OK;
}

/* Calls global `name`: the debug executor's interpreter, or the vm with
 * the values converted both ways (tensors shared). */
static rt_status_t call_global(rt_executor_t *ex, const char *name, int32_t nargs,
                               rt_interp_value_t *const *vals, rt_interp_value_t **out) {
  if (ex->interp) return rt_interp_call_global(ex->interp, name, nargs, vals, out);
  int32_t f = 0;
  RT_RETURN_IF_ERROR(rt_vm_executable_lookup(&ex->vm_build.exe, name, &f));
  /* The VM checks tensors as kernels take them, not a list's items: the
   * interpreter's check, as on the debug executor. */
  const rt_ir_expr_t *fn = rt_ir_module_lookup(ex->module, name);
  if (!fn || fn->fn.nparams != nargs) {
    return RT_STATUS(INVALID_ARGUMENT, "@%s takes %d arguments, got %d", name,
                     fn ? (int)fn->fn.nparams : 0, (int)nargs);
  }
  for (int32_t i = 0; i < nargs; ++i) {
    const rt_ir_expr_t *p = fn->fn.params[i];
    char what[160];
    snprintf(what, sizeof what, "argument %d (%%%s) of @%s", (int)i + 1, p->var.name, name);
    RT_RETURN_IF_ERROR(rt_interp_check_value(vals[i], p->checked_type, what));
  }
  rt_allocator_t va = rt_vm_allocator(ex->vm);
  rt_vm_value_t *args = rt_mem_calloc((size_t)(nargs ? nargs : 1), sizeof *args);
  if (!args) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  rt_status_t st = RT_OK;
  for (int32_t i = 0; i < nargs && !st; ++i) st = rt_vm_value_from_interp(va, vals[i], &args[i]);
  rt_vm_value_t res = {.kind = RT_VM_VALUE_EMPTY};
  if (!st) st = rt_vm_invoke(ex->vm, f, nargs, args, &res);
  for (int32_t i = 0; i < nargs; ++i) rt_vm_value_release(args[i]);
  rt_mem_free(args);
  if (!st) st = rt_vm_value_to_interp(ex->allocator, res, out);
  rt_vm_value_release(res);
  return st;
}

/* Calls `name` with tensor args; the flattened result into outs (new refs). */
static rt_status_t call_tensors(rt_executor_t *ex, const char *name, bool is_main,
                                int32_t nargs, rt_tensor_t *const *args, int32_t max_outs,
                                rt_tensor_t **outs, int32_t *out_count) {
  rt_status_t st = RT_OK;
  rt_interp_value_t **vals = rt_mem_calloc((size_t)(nargs ? nargs : 1), sizeof *vals);
  if (!vals) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t i = 0; i < nargs && !st; ++i) {
    if (is_main && i < ex->num_inputs && ex->inputs[i].kind != RT_VALUE_TENSOR) {
      vals[i] = ex->adt_inputs[i];
      if (!vals[i]) {
        st = RT_STATUS(FAILED_PRECONDITION, "input '%s' is a list or option: set it with "
                       "rt_executor_set_input_items", ex->inputs[i].name);
      }
      rt_interp_value_retain(vals[i]);
      continue;
    }
    if (!args[i]) {
      st = RT_STATUS(INVALID_ARGUMENT, "argument %d is NULL", (int)i);
      break;
    }
    st = rt_interp_value_tensor(ex->allocator, args[i], &vals[i]);
  }
  rt_interp_value_t *result = NULL;
  if (!st) st = call_global(ex, name, nargs, vals, &result);
  for (int32_t i = 0; i < nargs; ++i) rt_interp_value_release(vals[i]);
  rt_mem_free(vals);
  if (st) return st;
  int32_t n = 0;
  rt_tensor_t *flat[MAX_OUTPUTS];
  rt_tensor_t *made[MAX_OUTPUTS];
  flat_t f = {ex, 0, made, 0};
  st = flatten_value(result, flat, MAX_OUTPUTS, &n, is_main ? &f : NULL);
  if (!st && n > max_outs) {
    st = RT_STATUS(OUT_OF_RANGE, "@%s returns %d tensors; room was given for %d", name, (int)n,
                   (int)max_outs);
  }
  if (!st) {
    for (int32_t i = 0; i < n; ++i) {
      rt_tensor_retain(flat[i]);
      outs[i] = flat[i];
    }
    *out_count = n;
  }
  for (int32_t i = 0; i < f.nmade; ++i) rt_tensor_release(made[i]);
  rt_interp_value_release(result);
  return st;
}

/* The debug executor's @main for the runner. */
static rt_status_t call_main(void *user, int32_t nargs, rt_tensor_t *const *args,
                             int32_t max_outs, rt_tensor_t **outs, int32_t *out_count) {
  return call_tensors(user, "main", true, nargs, args, max_outs, outs, out_count);
}

rt_status_t rt_executor_run(rt_executor_t *ex) {
  RT_RETURN_IF_ERROR(enter(ex, "run"));
  rt_status_t st = rt_runner_run(&ex->runner);
  leave(ex);
  return st;
}

/* `runs` timed runs of `graph` (the runner runs it), one entry per node;
 * after each, a run that calls every kernel twice, timing the second call
 * (warm_ms). */
static rt_status_t profile_runs(rt_executor_t *ex, rt_graph_runtime_t *graph,
                                const rt_graph_build_t *build, int32_t runs, int32_t max_nodes,
                                rt_node_profile_t *out, int32_t *out_count) {
  const rt_graph_plan_t *plan = rt_graph_runtime_plan(graph);
  int32_t nn = plan->num_nodes;
  double *sum = rt_mem_calloc((size_t)(nn ? nn : 1) * 5, sizeof(double));
  rt_task_stats_t *tasks = rt_mem_calloc((size_t)(nn ? nn : 1), sizeof *tasks);
  if (!sum || !tasks) {
    rt_mem_free(sum);
    rt_mem_free(tasks);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  }
  double *best = sum + nn, *cur = best + nn, *warm = cur + nn, *first = warm + nn;
  rt_runner_clear_outputs(&ex->runner);
  rt_status_t st = RT_OK;
  for (int32_t r = 0; r < runs && !st; ++r) {
    memset(cur, 0, (size_t)nn * sizeof(double));
    st = rt_runner_run_timed(&ex->runner, cur, tasks, NULL);
    for (int32_t n = 0; !st && n < nn; ++n) {
      sum[n] += cur[n];
      if (r == 0 || cur[n] < best[n]) best[n] = cur[n];
    }
    if (!st) st = rt_runner_run_timed(&ex->runner, first, NULL, warm);
  }
  if (!st) {
    /* The nodes that run a kernel (a "__nop" runs none). */
    int32_t count = 0;
    for (int32_t n = 0; n < nn; ++n) {
      const int32_t k = plan->nodes[n].kernel;
      if (k == RT_GRAPH_NOP) continue;
      const rt_task_stats_t *t = &tasks[n];
      if (count < max_nodes) {
        out[count] = (rt_node_profile_t){plan->nodes[n].name, build->kernel_types[k], sum[n] / runs,
                                         best[n], warm[n] / runs,
                                         build->kernel_flops ? build->kernel_flops[k] : 0,
                                         t->tasks > 1 ? t->tasks : 1,
                                         t->capacity_ns > 0 ? t->busy_ns / t->capacity_ns : 1.0};
      }
      count++;
    }
    *out_count = count;
  }
  rt_mem_free(tasks);
  rt_mem_free(sum);
  return st;
}

static rt_status_t profile(rt_executor_t *ex, int32_t runs, int32_t max_nodes,
                           rt_node_profile_t *out, int32_t *out_count) {
  RT_RETURN_IF_ERROR(rt_runner_inputs_ready(&ex->runner));
  rt_graph_runtime_t *graph = ex->graph;
  const rt_graph_build_t *build = &ex->build;
  if (ex->spec) {
    /* The specialization of the inputs set (built now if new), run in
     * place of the executor's plan for these runs. */
    rt_graph_spec_t *spec = NULL;
    RT_RETURN_IF_ERROR(rt_graph_spec_cache_prepare(ex->spec, ex->runner.num_inputs,
                                                   ex->runner.input_values, &spec));
    graph = rt_graph_spec_runtime(spec);
    build = rt_graph_spec_build(spec);
    rt_runner_use_graph(&ex->runner, graph);
  }
  rt_status_t st = profile_runs(ex, graph, build, runs, max_nodes, out, out_count);
  if (ex->spec) {
    rt_graph_runtime_clear_inputs(graph);
    rt_runner_use_graph(&ex->runner, NULL);
  }
  return st;
}

rt_status_t rt_executor_profile(rt_executor_t *ex, int32_t runs, int32_t max_nodes,
                                rt_node_profile_t *out, int32_t *out_count) {
  if (!ex->graph && !ex->spec) {
    return RT_STATUS(FAILED_PRECONDITION, "per-kernel profiles come from the \"graph\" executor; "
                     "this is a \"%s\" one", ex->kind);
  }
  if (runs < 1 || runs > 1000000) {
    return RT_STATUS(INVALID_ARGUMENT, "profile runs must be 1..1000000, got %d", (int)runs);
  }
  if (max_nodes < 0 || (max_nodes > 0 && !out) || !out_count) {
    return RT_STATUS(INVALID_ARGUMENT, "rt_executor_profile: bad output arguments");
  }
  RT_RETURN_IF_ERROR(enter(ex, "profile"));
  rt_status_t st = profile(ex, runs, max_nodes, out, out_count);
  leave(ex);
  return st;
}

static uint64_t entry_bytes(const rt_graph_entry_t *e) {
  uint64_t n = ((uint64_t)e->dtype.bits * e->dtype.lanes + 7) / 8;
  for (int32_t d = 0; d < e->rank; ++d) n *= (uint64_t)e->shape[d];
  return n;
}

/* The plan that memory, get_source and export describe: the executor's
 * own, or with `?` inputs the most recent specialization's (a reference in
 * *out_spec for the caller to release: a run on another thread may evict
 * it meanwhile). FAILED_PRECONDITION "bind the input shapes first" before
 * the first specialization. `what` names the call. */
static rt_status_t current_plan(const rt_executor_t *ex, const char *what,
                                rt_graph_spec_t **out_spec, const rt_graph_build_t **out_build,
                                rt_graph_runtime_t **out_graph) {
  *out_spec = NULL;
  if (!ex->spec) {
    *out_build = &ex->build;
    *out_graph = ex->graph;
    return RT_OK;
  }
  rt_graph_spec_cache_latest(ex->spec, out_spec);
  if (!*out_spec) {
    return RT_STATUS(FAILED_PRECONDITION, "bind the input shapes first: %s describes a plan for "
                     "static shapes, and this graph executor has `?` inputs: it plans @main per "
                     "input shape when it runs, and has not run yet (set the inputs and run it, "
                     "or bind them before creating it: rt_module_bind_input_shapes, "
                     "`relayrt run --shape`)", what);
  }
  *out_build = rt_graph_spec_build(*out_spec);
  *out_graph = rt_graph_spec_runtime(*out_spec);
  return RT_OK;
}

rt_status_t rt_executor_memory(const rt_executor_t *ex, rt_executor_memory_t *out) {
  if (!ex || !out) return RT_STATUS(INVALID_ARGUMENT, "rt_executor_memory: NULL argument");
  memset(out, 0, sizeof *out);
  if (!ex->graph && !ex->spec) {
    return RT_STATUS(FAILED_PRECONDITION, "a memory plan comes from the \"graph\" executor; this "
                     "is a \"%s\" one", ex->kind);
  }
  rt_graph_spec_t *spec = NULL;
  const rt_graph_build_t *build = NULL;
  rt_graph_runtime_t *graph = NULL;
  RT_RETURN_IF_ERROR(current_plan(ex, "rt_executor_memory", &spec, &build, &graph));
  const rt_graph_plan_t *plan = rt_graph_runtime_plan(graph);
  out->planned_bytes = rt_graph_runtime_storage_bytes(graph);
  out->planned_blocks = plan->num_storage;
  for (int32_t i = 0; i < plan->num_entries; ++i) {
    const rt_graph_entry_t *e = &plan->entries[i];
    if (e->kind == RT_GRAPH_ENTRY_TEMP) {
      out->intermediates++;
      out->unshared_bytes += entry_bytes(e);
    } else if (e->kind == RT_GRAPH_ENTRY_OUTPUT) {
      out->output_bytes += entry_bytes(e);
    }
  }
  rt_graph_spec_release(spec);
  return RT_OK;
}

rt_status_t rt_executor_stats(const rt_executor_t *ex, rt_executor_stats_t *out) {
  if (!ex || !out) return RT_STATUS(INVALID_ARGUMENT, "rt_executor_stats: NULL argument");
  memset(out, 0, sizeof *out);
  if (ex->vm) {
    for (int32_t k = 0; k < ex->vm_build.exe.num_kernels; ++k) {
      out->per_shape_kernels += ex->vm_build.per_shape[k];
    }
    rt_vm_specializer_counts(&ex->vm_build, &out->kernel_specializations,
                             &out->kernel_specialization_hits);
  }
  if (!ex->spec) return RT_OK;
  rt_graph_spec_stats_t st;
  rt_graph_spec_cache_stats(ex->spec, &st);
  out->specializations = st.built;
  out->specialization_hits = st.hits;
  out->specializations_evicted = st.evicted;
  out->specializations_cached = st.cached;
  out->max_specializations = st.max;
  return RT_OK;
}

rt_status_t rt_executor_compile_stats(const rt_executor_t *ex, rt_executor_compile_t *out) {
  if (!ex || !out) return RT_STATUS(INVALID_ARGUMENT, "rt_executor_compile_stats: NULL argument");
  memset(out, 0, sizeof *out);
  out->total_ms = ex->create_ms;
  out->passes_ms = ex->passes_ms;
  if (!ex->jit) return RT_OK;
  const rt_jit_target_t *tgt = rt_jit_session_target(ex->jit);
  out->vector_width = tgt->vector_width;
  snprintf(out->target, sizeof out->target, "%s", rt_jit_target_name(tgt));
  rt_graph_spec_t *spec = NULL;
  const rt_jit_build_stats_t *js = &ex->vm_build.jit_stats;
  if (!ex->vm) {
    const rt_graph_build_t *build = NULL;
    rt_graph_runtime_t *graph = NULL;
    RT_RETURN_IF_ERROR(current_plan(ex, "rt_executor_compile_stats", &spec, &build, &graph));
    js = &build->jit_stats;
  }
  out->jit_wall_ms = js->wall_ms;
  out->key_ms = js->key_ms;
  out->lower_ms = js->lower_ms;
  out->optimize_ms = js->opt_ms;
  out->codegen_ms = js->emit_ms + js->asm_ms;
  out->cache_ms = js->cache_ms;
  out->link_ms = js->link_ms;
  out->kernels = js->kernels;
  out->distinct = js->distinct;
  out->compiled = js->compiled;
  out->disk_hits = js->disk_hits;
  out->memory_hits = js->memory_hits;
  rt_graph_spec_release(spec);
  return RT_OK;
}

rt_status_t rt_executor_compile_kernel(const rt_executor_t *ex, int32_t index,
                                       rt_executor_compile_kernel_t *out) {
  if (!ex || !out) return RT_STATUS(INVALID_ARGUMENT, "rt_executor_compile_kernel: NULL argument");
  memset(out, 0, sizeof *out);
  if (!ex->jit || ex->vm) {
    return RT_STATUS(FAILED_PRECONDITION, "rt_executor_compile_kernel: per-kernel compile figures are "
                     "kept by the \"graph\" executor");
  }
  rt_graph_spec_t *spec = NULL;
  const rt_graph_build_t *build = NULL;
  rt_graph_runtime_t *graph = NULL;
  RT_RETURN_IF_ERROR(current_plan(ex, "rt_executor_compile_kernel", &spec, &build, &graph));
  rt_status_t st = RT_OK;
  if (index < 0 || index >= build->num_kernels) {
    st = RT_STATUS(OUT_OF_RANGE, "rt_executor_compile_kernel: kernel %d of %d", (int)index,
                   (int)build->num_kernels);
  } else {
    snprintf(out->name, sizeof out->name, "%s", build->kernel_names[index] ? build->kernel_names[index] : "");
    const int32_t j = build->jit_index ? build->jit_index[index] : index;
    if (j < 0 || !build->jit) {
      snprintf(out->template_name, sizeof out->template_name, "host");
    } else {
      rt_jit_kernel_stats_t ks;
      rt_jit_module_kernel_stats(build->jit, j, &ks);
      snprintf(out->template_name, sizeof out->template_name, "%s", rt_jit_module_template(build->jit, j));
      snprintf(out->pipeline, sizeof out->pipeline, "%s", ks.pipeline ? ks.pipeline : "");
      out->compiled = ks.compiled;
      out->lowering_ms = ks.lower_ms;
      out->optimization_ms = ks.opt_ms;
      out->codegen_ms = ks.codegen_ms;
      out->ir_lowered = ks.ir_lowered;
      out->ir_optimized = ks.ir_optimized;
    }
  }
  rt_graph_spec_release(spec);
  return st;
}

rt_status_t rt_executor_get_output(rt_executor_t *ex, int32_t index, rt_tensor_t **out_tensor) {
  RT_RETURN_IF_ERROR(enter(ex, "get_output"));
  rt_status_t st = rt_runner_output(&ex->runner, index, out_tensor);
  leave(ex);
  return st;
}

static rt_status_t invoke(rt_executor_t *ex, const char *fn_name, int32_t nargs,
                          rt_tensor_t *const *args, int32_t max_outs, rt_tensor_t **outs,
                          int32_t *out_count) {
  if (!fn_name) return RT_STATUS(INVALID_ARGUMENT, "fn_name is NULL");
  if (fn_name[0] == '@') fn_name++;
  if (ex->vm) {
    int32_t index = 0;
    RT_RETURN_IF_ERROR(rt_vm_executable_lookup(&ex->vm_build.exe, fn_name, &index));
    return rt_runner_vm_call(&ex->runner, index, ex->vm_build.exe.functions[index].name, nargs,
                             args, max_outs, outs, out_count);
  }
  if (!ex->interp) {
    return RT_STATUS(UNIMPLEMENTED, "the %s executor runs @main only (set_input + run); invoke "
                                    "@%s with the \"debug\" executor", ex->kind, fn_name);
  }
  return call_tensors(ex, fn_name, false, nargs, args, max_outs, outs, out_count);
}

rt_status_t rt_executor_invoke(rt_executor_t *ex, const char *fn_name, int32_t nargs,
                               rt_tensor_t *const *args, int32_t max_outs, rt_tensor_t **outs,
                               int32_t *out_count) {
  RT_RETURN_IF_ERROR(enter(ex, "invoke"));
  rt_status_t st = invoke(ex, fn_name, nargs, args, max_outs, outs, out_count);
  leave(ex);
  return st;
}

static rt_status_t source_text(const rt_executor_t *ex, const char *kind, char **out_text);

rt_status_t rt_executor_get_source(const rt_executor_t *ex, const char *kind, char **out_text) {
  if (!kind) return RT_STATUS(INVALID_ARGUMENT, "kind is NULL");
  char *text = NULL;
  rt_status_t st = source_text(ex, kind, &text);
  return rt_mem_export_text(st, text, out_text);
}

static rt_status_t graph_text(const rt_executor_t *ex, const rt_graph_build_t *b,
                              rt_graph_runtime_t *graph, const char *kind, char **out_text);

/* rt_executor_get_source's text, from the library heap. */
static rt_status_t source_text(const rt_executor_t *ex, const char *kind, char **out_text) {
  size_t printed = 0;
  if (strcmp(kind, "relay") == 0) {
    return rt_ir_print_module(ex->module, RT_PRINT_DEFAULT, out_text, &printed);
  }
  if (strcmp(kind, "pipeline") == 0) {
    return rt_ir_print_module(ex->pipeline, RT_PRINT_DEFAULT, out_text, &printed);
  }
  if (strcmp(kind, "vm") == 0) {
    if (!ex->vm) {
      return RT_STATUS(FAILED_PRECONDITION, "the %s executor has no bytecode; \"vm\" comes from "
                                            "the vm executor", ex->kind);
    }
    rt_strbuf_t b;
    rt_strbuf_initialize(&b);
    rt_vm_executable_disassemble(&ex->vm_build.exe, &b);
    size_t len = 0;
    return rt_strbuf_finish(&b, out_text, &len);
  }
  if (!ex->graph && !ex->spec) {
    return RT_STATUS(FAILED_PRECONDITION, "the %s executor compiles no kernels; \"%s\" comes from "
                                          "the graph executor", ex->kind, kind);
  }
  rt_graph_spec_t *spec = NULL;
  const rt_graph_build_t *b = NULL;
  rt_graph_runtime_t *graph = NULL;
  char what[64];
  snprintf(what, sizeof what, "get_source(\"%.40s\")", kind);
  RT_RETURN_IF_ERROR(current_plan(ex, what, &spec, &b, &graph));
  rt_status_t st = graph_text(ex, b, graph, kind, out_text);
  rt_graph_spec_release(spec);
  return st;
}

/* get_source's kernels, ll, asm and graph-json of one plan. */
static rt_status_t graph_text(const rt_executor_t *ex, const rt_graph_build_t *b,
                              rt_graph_runtime_t *graph, const char *kind, char **out_text) {
  rt_strbuf_t out;
  rt_strbuf_initialize(&out);
  rt_status_t st = RT_OK;
  if (strcmp(kind, "kernels") == 0) {
    rt_strbuf_printf(&out, "%d kernels, %d nodes, %llu bytes of planned storage in %d blocks\n",
                     (int)b->num_kernels, (int)rt_graph_runtime_plan(graph)->num_nodes,
                     (unsigned long long)rt_graph_runtime_storage_bytes(graph),
                     (int)rt_graph_runtime_plan(graph)->num_storage);
    rt_strbuf_printf(&out, "kernel cache: %d compiled, %d shared in memory, %d from disk\n",
                     (int)b->jit_stats.compiled, (int)b->jit_stats.memory_hits,
                     (int)b->jit_stats.disk_hits);
    for (int32_t k = 0; k < b->num_kernels; ++k) {
      int32_t uses = 0;
      const rt_graph_plan_t *p = rt_graph_runtime_plan(graph);
      for (int32_t n = 0; n < p->num_nodes; ++n) uses += p->nodes[n].kernel == k;
      const int32_t j = b->jit_index[k];
      if (j < 0) {
        rt_strbuf_printf(&out, "%s: %s (host: its reference kernels, used %d times)\n",
                         b->kernel_names[k], b->kernel_types[k], (int)uses);
        continue;
      }
      rt_strbuf_printf(&out, "%s: %s (template %s, symbol %s, %d inputs, %d outputs, used %d times)\n",
                       b->kernel_names[k], b->kernel_types[k], rt_jit_module_template(b->jit, j),
                       rt_jit_module_symbol(b->jit, j),
                       (int)rt_jit_module_num_inputs(b->jit, j),
                       (int)rt_jit_module_num_outputs(b->jit, j), (int)uses);
    }
  } else if (strncmp(kind, "ll", 2) == 0 || strncmp(kind, "asm", 3) == 0) {
    /* "ll" / "asm", or "ll:NAME" / "asm:NAME" for one kernel. */
    bool ll = kind[0] == 'l';
    const char *rest = kind + (ll ? 2 : 3);
    int32_t which = -1;
    if (*rest == ':') {
      for (int32_t k = 0; k < b->num_kernels; ++k) {
        if (strcmp(b->kernel_names[k], rest + 1) == 0) which = k;
      }
      if (which < 0) {
        rt_strbuf_deinitialize(&out);
        return RT_STATUS(NOT_FOUND, "no kernel named '%s' (get_source \"kernels\" lists them)",
                         rest + 1);
      }
    } else if (*rest != '\0') {
      rt_strbuf_deinitialize(&out);
      return RT_STATUS(INVALID_ARGUMENT, "unknown source kind '%s'", kind);
    }
    char *text = NULL;
    if (which >= 0 && b->jit_index[which] < 0) {
      rt_strbuf_deinitialize(&out);
      return RT_STATUS(NOT_FOUND, "kernel '%s' runs on the host (its reference kernels): it has "
                       "no %s", rest + 1, ll ? "LLVM IR" : "assembly");
    }
    if (which >= 0) which = b->jit_index[which];
    if (!b->jit) {
      rt_strbuf_puts(&out, "; no kernels\n");
    } else {
      st = ll ? rt_jit_module_ll(b->jit, which, &text) : rt_jit_module_asm(b->jit, which, &text);
      if (st) {
        st = rt_status_annotate(st, "%s text is kept only with the config option jit.keep_%s=1",
                                ll ? "ll" : "asm", ll ? "ll" : "asm");
      } else {
        rt_strbuf_puts(&out, text);
      }
    }
    rt_mem_free(text);
  } else if (strcmp(kind, "graph-json") == 0) {
    char **names = rt_mem_calloc((size_t)(ex->num_inputs ? ex->num_inputs : 1), sizeof(char *));
    if (!names) {
      st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
    } else {
      for (int32_t i = 0; i < ex->num_inputs; ++i) names[i] = (char *)ex->inputs[i].name;
      rt_graph_plan_to_json(rt_graph_runtime_plan(graph), b->kernel_names, names, &out);
      rt_mem_free(names);
    }
  } else {
    st = RT_STATUS(INVALID_ARGUMENT, "unknown source kind '%s' (known: relay, kernels, ll, asm, "
                                     "graph-json)", kind);
  }
  if (st) {
    rt_strbuf_deinitialize(&out);
    return st;
  }
  size_t len = 0;
  return rt_strbuf_finish(&out, out_text, &len);
}

/* A vm export's signature entry for a declared tensor type (-1 = `?`). */
static void io_of(const char *name, const rt_ir_type_t *t, int64_t *shape, rt_tensor_info_t *out) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  out->name = name;
  out->dtype = t->tensor.dtype;
  out->rank = t->tensor.rank;
  for (int32_t d = 0; d < t->tensor.rank; ++d) {
    shape[d] = t->tensor.shape[d] == RT_DIM_ANY ? -1 : t->tensor.shape[d];
  }
  out->shape = shape;
}

static rt_status_t export_vm(const rt_executor_t *ex, const char *path) {
  int32_t ni = ex->num_inputs, no = ex->num_outputs;
  if (has_adt_io(ex)) {
    return RT_STATUS(UNIMPLEMENTED, "%s", "@main takes or returns a list or an option, which an "
                     "exported library cannot carry yet");
  }
  rt_tensor_info_t *io = rt_mem_calloc((size_t)(ni + no ? ni + no : 1), sizeof *io);
  int64_t (*shapes)[RT_TENSOR_MAX_RANK] = rt_mem_calloc((size_t)(ni + no ? ni + no : 1), sizeof *shapes);
  char (*names)[24] = rt_mem_calloc((size_t)(no ? no : 1), sizeof *names);
  rt_status_t st = RT_OK;
  if (!io || !shapes || !names) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory exporting");
  for (int32_t i = 0; !st && i < ni; ++i) io_of(ex->inputs[i].name, ex->inputs[i].type, shapes[i], &io[i]);
  for (int32_t o = 0; !st && o < no; ++o) {
    snprintf(names[o], sizeof names[o], "output_%d", (int)o);
    io_of(names[o], ex->output_types[o], shapes[ni + o], &io[ni + o]);
  }
  /* Kernels the build compiles per shape for speed (vm.specialize auto or
   * all) are compiled for any shape here, as the library needs them; those
   * that cannot be are refused by the export. */
  bool per_shape = false;
  for (int32_t k = 0; k < ex->vm_build.exe.num_kernels; ++k) per_shape |= ex->vm_build.per_shape[k];
  rt_vm_build_t any_shape;
  memset(&any_shape, 0, sizeof any_shape);
  if (!st && per_shape) {
    st = rt_vm_compile(ex->module, ex->jit, jit_flags(ex), RT_VM_SPECIALIZE_NEEDED, &any_shape);
  }
  if (!st) st = rt_backend_export_vm(per_shape ? &any_shape : &ex->vm_build, ni, io, no, io + ni, path);
  rt_vm_build_deinitialize(&any_shape);
  rt_mem_free(io);
  rt_mem_free(shapes);
  rt_mem_free(names);
  return st;
}

rt_status_t rt_executor_export(const rt_executor_t *ex, const char *path) {
  if (!ex || !path) return RT_STATUS(INVALID_ARGUMENT, "rt_executor_export: executor and path are required");
  if (ex->vm) return export_vm(ex, path);
  if (ex->spec) {
    /* Not the most recent specialization: a library whose signature says
     * static where the executor's says `?` would surprise whoever loads it. */
    return RT_STATUS(FAILED_PRECONDITION, "bind the input shapes first: an exported graph model "
                     "has one static plan, and this graph executor has `?` inputs (it plans "
                     "@main per input shape when it runs); bind them before creating it "
                     "(rt_module_bind_input_shapes), or export a \"vm\" executor, which runs "
                     "any size");
  }
  if (!ex->graph) {
    return RT_STATUS(FAILED_PRECONDITION, "the %s executor cannot be exported; export a \"graph\" "
                                          "or \"vm\" executor", ex->kind);
  }
  const char *names[MAX_OUTPUTS];
  if (ex->num_inputs > MAX_OUTPUTS) return RT_STATUS(RESOURCE_EXHAUSTED, "too many inputs to export");
  for (int32_t i = 0; i < ex->num_inputs; ++i) names[i] = ex->inputs[i].name;
  return rt_backend_export(&ex->build, rt_graph_runtime_plan(ex->graph), names, path);
}
