/* relayrt pass context: the one explicit value that decides which passes
 * run before an executor is created (docs/pipeline.md, "The pass
 * context"). rt_create_executor and rt_module_build copy it and apply it
 * in full before returning; nothing depends on a hidden scope.
 *
 * A pass runs when it is not disabled, and it is required or its opt_level
 * <= the context's opt_level (disabled beats required beats opt_level), and
 * no instrument's should_run vetoes it (a required pass cannot be vetoed).
 * This holds for every run, in the pipeline or alone (rt_module_run_pass).
 *
 * Ownership: rt_pass_context_create/copy return a context the caller owns
 * (rt_pass_context_release). Instruments are copied by value; their `user`
 * pointers are borrowed and must outlive every build that uses the context.
 * Thread-safety: a context may be read from many threads at once (builds
 * copy it); setters are not synchronized. */
#ifndef RT_PASS_H_
#define RT_PASS_H_

#include <stdio.h>

#include "rt/base.h"
#include "rt/module.h"
#include "rt/status.h"

RT_EXTERN_C_BEGIN

typedef struct rt_pass_context_t rt_pass_context_t;

/* A context with opt_level 2 (TVM's default), nothing required or
 * disabled, default config, no instruments. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_pass_context_create(rt_pass_context_t **out_context);
RT_API RT_MUST_USE_RESULT rt_status_t rt_pass_context_copy(const rt_pass_context_t *context,
                                                           rt_pass_context_t **out_copy);
RT_API void rt_pass_context_release(rt_pass_context_t *context); /* NULL is fine */

/* 0..4; anything else is INVALID_ARGUMENT. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_pass_context_set_opt_level(rt_pass_context_t *context,
                                                                    int32_t opt_level);
RT_API int32_t rt_pass_context_opt_level(const rt_pass_context_t *context);

/* Force a pass on / off by name ("FoldConstant"). An unknown name is
 * NOT_FOUND, and the message lists the known passes. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_pass_context_require(rt_pass_context_t *context,
                                                              const char *pass_name);
RT_API RT_MUST_USE_RESULT rt_status_t rt_pass_context_disable(rt_pass_context_t *context,
                                                              const char *pass_name);

/* Typed config options, set from text: "fuse.max_depth" (int >= 1, default
 * 256), "jit.keep_ll" (0/1, default 1: keep kernels' LLVM IR for
 * rt_executor_get_source), "jit.keep_asm" (0/1, default 0: keep their
 * assembly, which costs a second codegen), "jit.disk_cache" (0/1, default 1:
 * read and write the on-disk kernel cache), "runtime.num_threads" (0..1024,
 * default 0: the threads of each executor's kernel pool, counting the
 * caller; 0 = one per online CPU), "jit.target" (default, host, avx2,
 * avx512 or generic; default "default": $RELAYRT_JIT_TARGET when set, else
 * host: what the JIT compiles kernels for; a target this CPU cannot run
 * fails rt_create_executor with FAILED_PRECONDITION), "vm.specialize" (auto,
 * all or needed; default auto: which of the vm's kernels with `?` dims are
 * compiled per input shape when they meet it, rather than once for any
 * shape: auto picks those the JIT cannot compile for `?` dims, those whose
 * shapes depend on operand values (dyn ops) and those with a conv2d, dense
 * or matmul anchor, whose templates are fast only on static shapes; all
 * picks every one; needed only the first two),
 * "graph.max_specializations" (1..1024, default 8: how many plans a graph
 * executor whose @main has `?` input dims keeps, one per input shape signature,
 * the least recently used evicted; include/rt/executor.h),
 * "alter_op_layout.block" (0..64, default 0: the x of the NCHW{x}c layouts
 * the AlterOpLayout pass writes; 0 = 16 when jit.target is avx512, else 8).
 * An unknown key is
 * NOT_FOUND listing the known keys; a value of the wrong type or range is
 * INVALID_ARGUMENT. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_pass_context_set_config(rt_pass_context_t *context,
                                                                 const char *key,
                                                                 const char *value);
/* The integer value of an int option (its default when unset); for a
 * named option (jit.target) the index of its name in the documented list. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_pass_context_config_int(const rt_pass_context_t *context,
                                                                 const char *key,
                                                                 int64_t *out_value);

/* ---- instruments ---------------------------------------------------------- */

typedef struct rt_pass_info_t {
  const char *name;       /* "FoldConstant" */
  int32_t opt_level;
  const char *doc;        /* one line */
} rt_pass_info_t;

/* Why a pass did or did not run. */
typedef enum rt_pass_decision_e {
  RT_PASS_RAN_BY_LEVEL = 0,   /* its opt_level <= the context's */
  RT_PASS_RAN_REQUIRED = 1,   /* required by name */
  RT_PASS_SKIPPED_LEVEL = 2,  /* its opt_level > the context's */
  RT_PASS_SKIPPED_DISABLED = 3,
  RT_PASS_SKIPPED_VETOED = 4, /* an instrument's should_run said no */
} rt_pass_decision_t;

/* Callbacks around a build. Any may be NULL. A non-NULL status returned by
 * one stops the build with that status. `module` arguments are borrowed for
 * the call (print them with rt_module_print). */
typedef struct rt_pass_instrument_t {
  void *user;
  rt_status_t (*enter_pipeline)(void *user, const rt_module_t *module);
  rt_status_t (*exit_pipeline)(void *user, const rt_module_t *module);
  /* Asked before each pass that the context lets run and that is not
   * required; *out_run = false vetoes it. */
  rt_status_t (*should_run)(void *user, const rt_pass_info_t *pass, const rt_module_t *module,
                            bool *out_run);
  rt_status_t (*before_pass)(void *user, const rt_pass_info_t *pass, const rt_module_t *module);
  /* After a pass ran, or was skipped (`decision` says which and why);
   * elapsed_ms is 0 for a skipped pass. */
  rt_status_t (*after_pass)(void *user, const rt_pass_info_t *pass, const rt_module_t *module,
                            rt_pass_decision_t decision, double elapsed_ms);
} rt_pass_instrument_t;

/* Adds an instrument (copied). They are called in the order added. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_pass_context_add_instrument(
    rt_pass_context_t *context, const rt_pass_instrument_t *instrument);

/* Built-in instruments, all writing to `out` (borrowed; must stay open):
 * - trace: one line per pass: name, opt_level, ran/skipped and why, time,
 *   bindings before -> after.
 * - timing: a table of the passes that ran and their times at the end.
 * - dump: the IR after each pass that ran whose name matches `which`
 *   ("all", or a pass name), to `out`, or, when `dir` is non-NULL, to
 *   DIR/NN_PassName.relay files (DIR is created if missing). */
RT_API RT_MUST_USE_RESULT rt_status_t rt_pass_context_add_trace(rt_pass_context_t *context,
                                                                FILE *out);
RT_API RT_MUST_USE_RESULT rt_status_t rt_pass_context_add_timing(rt_pass_context_t *context,
                                                                 FILE *out);
RT_API RT_MUST_USE_RESULT rt_status_t rt_pass_context_add_dump(rt_pass_context_t *context,
                                                               const char *which,
                                                               const char *dir, FILE *out);

/* ---- the pipeline --------------------------------------------------------- */

/* Passes of the pipeline in order (the same for every executor), then the
 * executor-specific steps; `index` from 0 to rt_pass_count() - 1. */
RT_API int32_t rt_pass_count(void);
RT_API const rt_pass_info_t *rt_pass_at(int32_t index);
/* Is pass `index` an executor-specific step (after the shared pipeline)?
 * Its executor name is written to *out_executor ("vm", "graph"). */
RT_API bool rt_pass_is_executor_step(int32_t index, const char **out_executor);

/* Runs the whole shared pipeline under `context` (NULL = defaults) and
 * returns the optimized module (a new reference; `module` is not changed). */
RT_API RT_MUST_USE_RESULT rt_status_t rt_module_build(rt_module_t *module,
                                                      const rt_pass_context_t *context,
                                                      rt_module_t **out_module);
/* Runs one pass by name under the same rules as the pipeline (a disabled
 * pass does not run; the result is then the same module, retained). */
RT_API RT_MUST_USE_RESULT rt_status_t rt_module_run_pass(rt_module_t *module, const char *pass_name,
                                                         const rt_pass_context_t *context,
                                                         rt_module_t **out_module);

RT_EXTERN_C_END

#endif /* RT_PASS_H_ */
