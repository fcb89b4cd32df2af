/* relayrt executors: run a module's `main` (or any global function).
 *
 *   rt_create_executor("debug" | "graph" | "vm", module, target, ctx,
 *                      params, &ex)
 *
 * "debug" is the reference interpreter: it walks the IR with plain
 * reference kernels, runs every construct (control flow, recursion,
 * closures, dynamic shapes) and can be stepped. "graph" runs static
 * dataflow models as JIT-compiled fused kernels over memory planned at
 * creation (run allocates nothing); it refuses control flow with an error
 * naming "debug" and "vm", and specializes itself to `?` input dims (below,
 * "Dynamic shapes on the graph executor"). "vm" compiles the module (after
 * ToANormalForm and LambdaLift) to register bytecode calling the same JIT
 * kernels: control flow, recursion, closures and `?` dims (output shapes
 * from the type relations at run time), static values in planned frames.
 *
 * Inputs are main's parameters, in order, named as written (without '%').
 * Outputs are the tensors of main's result, in order (a tuple result is
 * flattened left to right).
 *
 * Ownership: rt_create_executor returns an executor the caller owns
 * (rt_executor_release); it retains the module and copies ctx and params.
 * rt_executor_set_input retains the tensor. Tensors from
 * rt_executor_get_output are borrowed and stay valid until the next
 * rt_executor_run (or set_input) on the same executor, or its release;
 * retain one to keep it longer. rt_executor_invoke returns new references.
 * Info structs borrow strings and shapes from the executor.
 *
 * Thread-safety: many executors, of any kinds, may be created from one
 * module and run from many threads at once (the module is only read; the
 * JIT kernels of graph and vm executors are shared and compiled once;
 * test/backend/test_threads.c). One executor runs one call at a time:
 * every call that runs it or changes its state (set_input, run,
 * get_output, invoke, profile, set_step_callback, set_step_into_fused) is
 * refused with FAILED_PRECONDITION ("... is in use by another thread")
 * while another such call is inside the same executor (from another
 * thread, or from its own step callback); the refused call changes
 * nothing. The calls are not
 * queued: use one executor per thread, or serialize the calls yourself.
 * The info accessors, get_source and export only read and may run at any
 * time. A borrowed output must not be read while another thread runs the
 * same executor (the run rewrites it).
 *
 * Dynamic shapes on the graph executor: when @main has `?` input dims,
 * rt_create_executor("graph") runs the pipeline on the unbound module
 * (so type and pass errors, and control flow, closures and calls of
 * globals, are refused at creation as for a static model) but plans and
 * compiles nothing. Each run binds @main to the shapes of the inputs set
 * (rt_module_bind_input_shapes), runs the whole pipeline again under the
 * executor's pass context (less its instruments, which run during
 * rt_create_executor only), plans memory and compiles: one
 * specialization per input shape signature (every input's dtype and
 * dims), kept in a least-recently-used cache of the pass-context config
 * "graph.max_specializations" (default 8). A new shape costs one such
 * build; a seen one costs a lookup; past the bound the least recently
 * used is evicted. A run's outputs are tensors of the specialization that
 * ran: retained ones stay valid when it is evicted (but, as on any graph
 * executor, a later run of the same shape rewrites them; copy them to
 * keep the values). Input info keeps reporting the declared `?` dims
 * (RT_DIM_ANY); a tensor whose static dims differ is refused by set_input.
 * The same holds for a module with value inputs: inputs whose VALUES ops
 * read for shapes (a dyn.reshape to a shape held by an input, slice
 * bounds, axes, arange's bounds), and inputs of one element an `if`
 * condition is computed from (the branch taken folds away in each
 * specialization). Their values (at most 4096 elements per
 * input; a larger one fails the run with UNIMPLEMENTED naming the vm) are
 * part of the signature and bound as constants in the specialization.
 * A value whose shape still has `?` dims once every input shape and value
 * is known fails the run with INVALID_ARGUMENT "... depends on the input
 * values; run it with the vm executor"; a failed build caches nothing. The calls that describe a plan
 * (rt_executor_memory, get_source "kernels", "ll", "asm", "graph-json")
 * describe the most recent specialization (the last one run or profiled),
 * and before the first run fail with FAILED_PRECONDITION "bind the input
 * shapes first: ..."; get_source "relay" and "pipeline" are the unbound
 * module's. rt_executor_profile profiles the specialization of the
 * inputs set (building it if new). rt_executor_export is refused
 * (FAILED_PRECONDITION, "bind the input shapes first"): an export has one
 * static plan; bind the shapes, or export a "vm" executor.
 * rt_executor_stats counts specializations and cache hits. */
#ifndef RT_EXECUTOR_H_
#define RT_EXECUTOR_H_

#include "rt/allocator.h"
#include "rt/base.h"
#include "rt/module.h"
#include "rt/params.h"
#include "rt/pass.h"
#include "rt/status.h"
#include "rt/tensor.h"

RT_EXTERN_C_BEGIN

typedef struct rt_executor_t rt_executor_t;


/* Creates an executor for `module`. `target` may be NULL or "llvm" (the
 * host CPU). `ctx` may be NULL (opt_level 2). `params`, when given, are bound
 * by name into main's parameters before any pass runs (so constant folding
 * sees them); a name that is not a parameter of main is INVALID_ARGUMENT, and
 * so is a tensor whose type does not match. Errors: INVALID_ARGUMENT for an
 * unknown kind (listing the kinds), NOT_FOUND when there is no @main,
 * UNIMPLEMENTED for kinds not built yet. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_create_executor(const char *kind, rt_module_t *module,
                                                         const char *target,
                                                         const rt_pass_context_t *ctx,
                                                         const rt_params_t *params,
                                                         rt_executor_t **out_executor);
/* Executors are reference-counted: _retain adds a reference, _release
 * drops one (NULL is fine) and the last frees the executor. Both are safe
 * from any thread; the last release must not race a call on the executor. */
/* Options for rt_create_executor_with_options. Zero-initialize, then set
 * what you need. */
typedef struct rt_executor_options_t {
  /* Where the executor's memory comes from (NULL: rt_allocator_system()):
   * its optimized module, plans, kernels' bookkeeping (an executor with an
   * allocator of its own gets a JIT session of its own rather than sharing
   * the process-wide one), values, outputs, and whatever its calls
   * allocate. LLVM's internal allocations while compiling are LLVM's, and
   * error statuses use malloc (so running out of memory can always be
   * reported). When it fails, the call fails with RESOURCE_EXHAUSTED and
   * leaves nothing behind. Borrowed: *allocator is copied, and its `self`
   * must outlive the executor. */
  const rt_allocator_t *allocator;
} rt_executor_options_t;

/* rt_create_executor with options (NULL: as rt_create_executor). */
RT_API RT_MUST_USE_RESULT rt_status_t rt_create_executor_with_options(
    const char *kind, rt_module_t *module, const char *target, const rt_pass_context_t *ctx,
    const rt_params_t *params, const rt_executor_options_t *options,
    rt_executor_t **out_executor);

RT_API void rt_executor_retain(rt_executor_t *executor);
RT_API void rt_executor_release(rt_executor_t *executor);

/* Like rt_create_executor, for one intermediate value of main instead of
 * main's result: `binding` names it by the label the model's text gave it
 * ("%3" or "3"; passes keep these labels on the nodes they rewrite, and a
 * fused call carries its group's last one). The executor's inputs are
 * main's parameters, unchanged; its outputs are the binding's tensors
 * (flattened). The pipeline runs on the cut-out value alone, so a debugger
 * can compare the same binding under another executor or opt_level.
 * NOT_FOUND when main's own dataflow has no such binding (the search does
 * not enter functions, fused groups, let or if scopes); other errors as
 * rt_create_executor, annotated with the binding. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_create_executor_for_binding(
    const char *kind, rt_module_t *module, const char *binding, const char *target,
    const rt_pass_context_t *ctx, const rt_params_t *params, rt_executor_t **out_executor);

RT_API const char *rt_executor_kind(const rt_executor_t *executor);
RT_API int32_t rt_executor_num_inputs(const rt_executor_t *executor);
RT_API int32_t rt_executor_num_outputs(const rt_executor_t *executor);
/* OUT_OF_RANGE for a bad index. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_input_info(const rt_executor_t *executor,
                                                             int32_t index,
                                                             rt_tensor_info_t *out_info);
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_output_info(const rt_executor_t *executor,
                                                              int32_t index,
                                                              rt_tensor_info_t *out_info);
/* NOT_FOUND naming the input and listing the known ones. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_input_index(const rt_executor_t *executor,
                                                              const char *name,
                                                              int32_t *out_index);

/* Sets input `index`. The tensor's dtype and shape must match the
 * signature (`?` dims take any size): INVALID_ARGUMENT names the input, the
 * expected and the given type. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_set_input(rt_executor_t *executor,
                                                            int32_t index, rt_tensor_t *tensor);
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_set_input_by_name(rt_executor_t *executor,
                                                                    const char *name,
                                                                    rt_tensor_t *tensor);

/* Runs main on the inputs set. FAILED_PRECONDITION names an input not set. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_run(rt_executor_t *executor);

/* Output `index` of the last run (borrowed; see the lifetime rule above).
 * FAILED_PRECONDITION before a successful run. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_get_output(rt_executor_t *executor,
                                                             int32_t index,
                                                             rt_tensor_t **out_tensor);

/* ---- sequences and optionals --------------------------------------------
 * An input or output of @main may be a List of tensors (an ONNX sequence),
 * an Option of a tensor or an Option of a List of tensors (ONNX
 * optionals). The debug and vm executors run them (the graph executor
 * refuses such a model when it is created, naming it). At the
 * tensor calls above such a value takes one index: its rt_tensor_info_t
 * reads as a 0-d int64, rt_executor_set_input does not set it, and
 * rt_executor_get_output gives a 0-d int64: its item count, -1 if absent.
 * Its items go through these calls; the lifetime rules are the tensor
 * calls' (set_items retains the tensors, items are borrowed until the
 * next run). */
typedef enum rt_value_kind_e {
  RT_VALUE_TENSOR = 0,
  RT_VALUE_LIST = 1,        /* List[Tensor]: any number of tensors */
  RT_VALUE_OPTION = 2,      /* Option[Tensor]: absent, or one tensor */
  RT_VALUE_OPTION_LIST = 3, /* Option[List[Tensor]]: absent, or a list */
} rt_value_kind_t;

/* The kind of input / output `index` (OUT_OF_RANGE for a bad index). */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_input_kind(const rt_executor_t *executor,
                                                             int32_t index,
                                                             rt_value_kind_t *out_kind);
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_output_kind(const rt_executor_t *executor,
                                                              int32_t index,
                                                              rt_value_kind_t *out_kind);
/* Sets a List or Option input: `present` false is an absent option (count
 * must be 0); a List takes present = true and `count` tensors; an Option
 * of a tensor exactly one; an Option of a List any number. The items are
 * retained (the caller keeps its references). OUT_OF_RANGE for a bad index,
 * INVALID_ARGUMENT for a tensor input or a count that does not fit the kind;
 * each item must fit the declared element type (`?` dims take any size),
 * which the next run checks: its INVALID_ARGUMENT names the input. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_set_input_items(rt_executor_t *executor,
                                                                  int32_t index, bool present,
                                                                  int32_t count,
                                                                  rt_tensor_t *const *items);
/* Output `index` of the last run as items: *out_present (false for an
 * absent option) and *out_count; then item i (borrowed). FAILED_PRECONDITION
 * before a successful run or for a tensor output. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_get_output_items(rt_executor_t *executor,
                                                                   int32_t index,
                                                                   bool *out_present,
                                                                   int32_t *out_count);
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_get_output_item(rt_executor_t *executor,
                                                                  int32_t index, int32_t item,
                                                                  rt_tensor_t **out_tensor);

/* Calls global `fn_name` (without '@') with tensor arguments. Its result's
 * tensors (flattened) are written to outs[0..] as new references, at most
 * `max_outs`; *out_count is the number the result has (more than max_outs is
 * OUT_OF_RANGE, and nothing is written). A result holding a closure is
 * INVALID_ARGUMENT. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_invoke(rt_executor_t *executor,
                                                         const char *fn_name, int32_t nargs,
                                                         rt_tensor_t *const *args,
                                                         int32_t max_outs, rt_tensor_t **outs,
                                                         int32_t *out_count);

/* The code the executor runs, as text (malloc'd; the caller frees it):
 *   "relay"      the module the executor runs (after its own steps)
 *   "pipeline"   the module after the shared pipeline: the same text for
 *                every executor under one pass context
 *   "kernels"    the graph executor's kernels: name, type, uses
 *   "ll"         their optimized LLVM IR (kept by default: jit.keep_ll)
 *   "asm"        their assembly (only with the config jit.keep_asm=1)
 *   "ll:NAME", "asm:NAME"  the same for kernel NAME alone (NOT_FOUND if none)
 *   "graph-json" the graph in TVM's graph JSON form
 * FAILED_PRECONDITION for kinds this executor does not have; INVALID_ARGUMENT
 * for an unknown kind. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_get_source(const rt_executor_t *executor,
                                                             const char *kind, char **out_text);

/* Writes a shared library at `path` that runs this executor's model without
 * LLVM or the IR: its kernels' object code, the graph plan (nodes, entries,
 * storage sizes, input and output names) and the constants, under one
 * exported descriptor (include/rt/artifact.h loads it with
 * librelayrt_runtime). Links with the system C compiler ($CC, else cc).
 * FAILED_PRECONDITION unless the executor is a "graph" (with static input
 * shapes; see the top) or "vm" one; IO_ERROR when
 * writing or linking fails (the linker's message included). The executor
 * is only read: safe while another thread runs it. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_export(const rt_executor_t *executor,
                                                         const char *path);

/* ---- profiling (the "graph" executor) ------------------------------------- */

typedef struct rt_node_profile_t {
  const char *kernel; /* the node's kernel, named as in get_source("kernels") */
  const char *type;   /* its function type: argument and result shapes */
  double mean_ms;     /* wall time of the node, averaged over the runs */
  double min_ms;      /* the fastest of the runs */
  double warm_ms;     /* mean wall time of a second call made right after the
                         first, on the same arguments (its operands then in
                         cache as far as they fit): mean_ms - warm_ms is about
                         what the node waits on memory that the nodes before
                         it left cold, or on lines another core wrote */
  double flops;       /* floating-point operations of one call, counted from the
                         plans of its dense/matmul/batch_matmul and convolutions
                         (a multiply-add counts 2); 0 when it has none */
  int32_t tasks;      /* the most tasks a call split into over the thread pool;
                         1 when it ran as one task on the caller */
  double balance;     /* over the split calls: the tasks' summed time / (tasks x
                         the slowest task's), 1 = evenly split, 0.5 = half the
                         threads' time idle; 1 for a kernel never split */
} rt_node_profile_t;

/* Runs the executor `runs` times (1..1000000) on the inputs set, timing
 * every node of its plan that runs a kernel (one call each; a concatenate
 * whose inputs were written in place runs none and is not listed). These are ordinary runs
 * over the planned storage: each node reads what the node before it wrote,
 * and the outputs afterwards are the last run's. One entry per node, in run
 * order, goes to out[0..max_nodes-1]; *out_count is the number of such
 * nodes (more than max_nodes: only the first max_nodes are written). After
 * each run comes one that calls every kernel twice and times the second
 * call (warm_ms; kernels write only their outputs, from their inputs, so
 * the outputs are the same). Strings
 * are borrowed from the executor (with `?` inputs, from the specialization
 * profiled: valid until the next run or profile, which may evict it).
 * FAILED_PRECONDITION for executors other
 * than "graph", for an input not set, or while another call is inside the
 * executor; INVALID_ARGUMENT for a bad `runs`; a kernel's error as run. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_profile(rt_executor_t *executor, int32_t runs,
                                                          int32_t max_nodes,
                                                          rt_node_profile_t *out,
                                                          int32_t *out_count);

/* ---- memory (the "graph" executor) ----------------------------------------- */

typedef struct rt_executor_memory_t {
  uint64_t planned_bytes;    /* intermediate storage, allocated once at creation */
  int32_t planned_blocks;    /* ... in this many blocks, each reused by later values */
  int32_t intermediates;     /* values between kernels that live in those blocks */
  uint64_t unshared_bytes;   /* their sizes summed: what storage without reuse would take */
  uint64_t output_bytes;     /* the outputs' own tensors */
} rt_executor_memory_t;

/* The memory plan of a graph executor (its peak: run allocates nothing
 * beyond it); with `?` inputs, the most recent specialization's, and
 * FAILED_PRECONDITION "bind the input shapes first: ..." before the first
 * run (see the top). FAILED_PRECONDITION for other executors (the vm plans a
 * frame per function and pools dynamic values; the interpreter allocates
 * as it goes). Only reads: safe while another thread runs the executor. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_memory(const rt_executor_t *executor,
                                                         rt_executor_memory_t *out);

/* ---- specializations (the "graph" executor with `?` inputs) -------------- */

typedef struct rt_executor_stats_t {
  int64_t specializations;         /* plans built for a new input shape signature */
  int64_t specialization_hits;     /* runs (and profiles) whose shape's plan was cached */
  int64_t specializations_evicted; /* dropped past max_specializations */
  int32_t specializations_cached;  /* held now */
  int32_t max_specializations;     /* graph.max_specializations; 0: the executor does not
                                      specialize (static inputs, or not "graph") */
  /* The "vm" executor: kernels with `?` dims it compiles per input shape
   * (vm.specialize). */
  int32_t per_shape_kernels;       /* such kernels in its kernel table */
  int64_t kernel_specializations;  /* (kernel, input shapes) pairs compiled so far */
  int64_t kernel_specialization_hits; /* lookups (shape functions, calls) that found theirs */
} rt_executor_stats_t;

/* The executor's counters since creation (all 0 for an executor that does
 * not specialize). INVALID_ARGUMENT for NULL arguments. Only reads: safe
 * at any time, from any thread. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_stats(const rt_executor_t *executor,
                                                        rt_executor_stats_t *out);

/* Where rt_create_executor's time went (and, for a "graph" executor with
 * `?` inputs, the latest specialization's build; the kernels a "vm"
 * compiles per input shape while it runs are not in it: rt_executor_stats
 * counts those). Stage times of the
 * kernel build are thread time summed over kernels, which compile in
 * parallel: they can add up to more than jit_wall_ms. The kernel fields
 * are 0 for "debug", which compiles no kernels. */
typedef struct rt_executor_compile_t {
  double total_ms;        /* rt_create_executor, wall clock */
  double passes_ms;       /* the pass pipeline (type inference, fusion, ...) */
  double jit_wall_ms;     /* building the kernels, wall clock */
  double key_ms;          /* kernel identities and cache keys */
  double lower_ms;        /* fused groups -> LLVM IR, verified */
  double optimize_ms;     /* LLVM's optimization pipeline */
  double codegen_ms;      /* LLVM IR -> object code */
  double cache_ms;        /* disk-cache reads and writes */
  double link_ms;         /* loading objects into the JIT, resolving symbols */
  int32_t kernels;        /* kernels of the plan */
  int32_t distinct;       /* distinct ones (equal kernels are built once) */
  int32_t compiled;       /* went through LLVM */
  int32_t disk_hits;      /* read from the disk cache */
  int32_t memory_hits;    /* already loaded in this process */
  int32_t vector_width;   /* float lanes of the kernel templates (8: AVX2, 16: AVX-512) */
  char target[16];        /* the JIT target's name: "host", "avx2", "avx512", "generic" */
} rt_executor_compile_t;

/* Fills *out (see rt_executor_compile_t). FAILED_PRECONDITION for a graph
 * executor with `?` inputs that has not run yet; INVALID_ARGUMENT for NULL
 * arguments. Only reads. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_compile_stats(const rt_executor_t *executor,
                                                                rt_executor_compile_t *out);

/* One kernel of the plan rt_executor_compile_stats describes: where its
 * compile time went (thread time; all 0 when it was not compiled by this
 * build: loaded already, read from the disk cache, equal to an earlier
 * kernel, or a host kernel) and how large its LLVM IR was after lowering
 * and after the optimization pipeline. Strings are copies, truncated to
 * fit. */
typedef struct rt_executor_compile_kernel_t {
  char name[96];          /* the fused group's name, as --profile prints it */
  char template_name[32]; /* "conv2d.direct.4x24", "loops", "host" (not compiled) */
  char pipeline[16];      /* the LLVM pipeline: "O3", "W2 fast-isel", "C2", "O0" */
  bool compiled;
  double lowering_ms;
  double optimization_ms;
  double codegen_ms;
  int32_t ir_lowered;     /* LLVM IR instructions after lowering */
  int32_t ir_optimized;   /* ... after the pipeline */
} rt_executor_compile_kernel_t;

/* Fills *out for kernel `index` (0 .. rt_executor_compile_t.kernels - 1)
 * of a "graph" executor's plan (its latest specialization for `?`
 * inputs). OUT_OF_RANGE for another index; FAILED_PRECONDITION for
 * another executor kind or a graph executor with `?` inputs that has not
 * run yet; INVALID_ARGUMENT for NULL arguments. Only reads. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_compile_kernel(const rt_executor_t *executor,
                                                                 int32_t index,
                                                                 rt_executor_compile_kernel_t *out);

/* ---- stepping (the "debug" executor) -------------------------------------- */

typedef struct rt_step_event_t {
  const char *text;         /* one-line binding form: "%3 = nn.relu(%2)" */
  const char *source_name;  /* NULL when the node has no source position */
  int32_t line, col;        /* 1-based; 0 when unknown */
  int32_t call_depth;       /* 0 in main */
  bool after;               /* false: about to evaluate; true: done */
  /* After evaluation: the value's tensors, flattened (borrowed for the
   * duration of the callback). 0 for a closure. */
  int32_t num_tensors;
  rt_tensor_t *const *tensors;
  /* Inside a fused group's body (a call of a Primitive function), reported
   * only after rt_executor_set_step_into_fused(ex, true); call_depth is
   * then one more than the group's call. */
  bool in_fused;
} rt_step_event_t;

/* Called before and after each binding; returning non-NULL stops the run
 * with that status (use RT_STATUS(CANCELLED, ...) for a deliberate stop). */
typedef rt_status_t (*rt_step_fn)(void *user, const rt_step_event_t *event);

/* Installs (or, with NULL, removes) the step callback. UNIMPLEMENTED for
 * executors that cannot step. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_set_step_callback(rt_executor_t *executor,
                                                                    rt_step_fn callback,
                                                                    void *user);

/* By default a call of a fused group (a Primitive function, after FuseOps)
 * is one step, as its kernel will be: the bindings inside are not reported.
 * With `enter` true they are, before and after each, flagged in_fused, so a
 * debugger can step into a kernel and see each op's value (the group is
 * still evaluated op by op by the reference kernels, as always). Applies
 * from the next run. UNIMPLEMENTED for executors that cannot step;
 * FAILED_PRECONDITION while a call is inside the executor. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_executor_set_step_into_fused(rt_executor_t *executor,
                                                                      bool enter);

RT_EXTERN_C_END

#endif /* RT_EXECUTOR_H_ */
