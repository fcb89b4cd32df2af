/* Helpers shared by the pass tests (test_golden.c, test_pipeline.c,
 * test_alter_op_layout.c): run a module's @main through the "debug" (or
 * another) executor on seeded random inputs,
 * with no pass at all or under a given context, and compare two runs
 * elementwise. */
#ifndef RT_TEST_PASS_TEST_UTIL_H_
#define RT_TEST_PASS_TEST_UTIL_H_

#include <stdbool.h>
#include <stddef.h>

#include "rt/rt.h"

#define PT_MAX_OUTPUTS 64

/* What one run produced: each output retained. */
typedef struct pt_run_t {
  int32_t num_outputs;
  rt_tensor_t *outputs[PT_MAX_OUTPUTS];
} pt_run_t;

/* A context that disables every pass of the pipeline (the module runs as
 * it is); caller releases. */
rt_status_t pt_context_no_passes(rt_pass_context_t **out_ctx);

/* Builds a debug executor for `m` under `ctx`, feeds every input random
 * data from `seed` (a `?` dim is 2; float inputs whose name is listed in
 * the space-separated `positive` become |x| + 0.5), runs main and keeps
 * the outputs. *out_skipped is set (and OK returned) when @main takes a
 * non-tensor input. */
rt_status_t pt_run_main(rt_module_t *m, const rt_pass_context_t *ctx, uint64_t seed,
                        const char *positive, pt_run_t *out_run, bool *out_skipped);
/* The same on the executor `kind` ("debug", "graph", "vm"). */
rt_status_t pt_run_main_on(const char *kind, rt_module_t *m, const rt_pass_context_t *ctx,
                           uint64_t seed, const char *positive, pt_run_t *out_run,
                           bool *out_skipped);
void pt_run_release(pt_run_t *run);

/* Compares two runs: the same number of outputs, dtypes and shapes, and
 * values within |a - b| <= atol + rtol * |b| for floats (NaN equals NaN,
 * infinities must match), exactly for ints and bools. On a mismatch it
 * writes a description to msg and returns false. */
bool pt_runs_match(const pt_run_t *a, const pt_run_t *b, double rtol, double atol, char *msg,
                   size_t cap);

#endif /* RT_TEST_PASS_TEST_UTIL_H_ */
