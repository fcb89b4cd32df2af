/* Internal to tools/: what `relayrt run` (run.c) and its --executor all
 * mode (run_all.c) share: the parsed options, what runs (an executor or an
 * exported model's runtime), and the steps of a run (load, inputs, timing,
 * outputs, the JSON pieces of the report). */
#ifndef RT_TOOLS_RUN_H_
#define RT_TOOLS_RUN_H_

#include <stdio.h>

#include "cli.h"

#define MAX_ITEMS 64

typedef struct {
  const char *name;
  const char *value;
} name_value;

typedef struct {
  const char *model;
  const char *executor;
  bool executor_set, opt_level_set, repeat_set, warmup_set, tolerance_set;
  int opt_level;
  name_value inputs[MAX_ITEMS];
  int ninputs;
  name_value shapes[MAX_ITEMS];
  int nshapes;
  name_value consts[MAX_ITEMS];
  int nconsts;
  name_value configs[MAX_ITEMS]; /* --config KEY=VALUE: the pass context */
  int nconfigs;
  const char *required[MAX_ITEMS]; /* --require PASS */
  int nrequired;
  const char *disabled[MAX_ITEMS]; /* --disable PASS */
  int ndisabled;
  const char *params;
  const char *out_dir;
  long repeat, warmup, threads;
  double rtol, atol;
  bool json;
  bool trace;
  bool profile;
} run_opts;

/* What runs: a model's executor, or an exported model's runtime. */
typedef struct {
  rt_executor_t *ex;          /* a model's executor, or */
  rt_artifact_t *art;         /* an exported model (include/rt/artifact.h) */
  rt_artifact_runtime_t *rt;  /* and its runtime */
  const char *kind;           /* "debug", "graph", "vm" */
  double import_ms;           /* reading the model file into a module (0: not timed) */
} runner;

typedef struct {
  double min, median, mean, max;
  long runs;
} latency_t;

/* Milliseconds on the monotonic clock. */
double run_now_ms(void);
/* JSON pieces of the report: a number (null when not finite), a quoted
 * string, a latency object rounded to `digits`. */
void run_json_number(FILE *f, double x);
void run_json_string(FILE *f, const char *s);
void run_json_latency(FILE *f, const latency_t *l, int digits);
/* Releases n tensors (NULLs skipped). */
void run_release_tensors(rt_tensor_t **ts, int32_t n);
/* Writes output_<i>.npy for every output into dir (a sequence or optional:
 * output_<i>.txt and output_<i>.<k>.npy, run.c). */
rt_status_t run_write_outputs(const char *dir, runner *r);
/* `warmup` runs, then `repeat` timed ones. */
rt_status_t run_time_runs(runner *r, long warmup, long repeat, latency_t *out);
/* Sets every input from inputs[] (one per input, in order; a sequence or
 * optional input, NULL there, from its --input items in o). */
rt_status_t run_set_inputs(const run_opts *o, runner *r, rt_tensor_t **inputs);
/* Its input and output counts. */
int32_t run_runner_num_inputs(const runner *r);
int32_t run_runner_num_outputs(const runner *r);
/* Releases what runs (an executor, or a runtime and its artifact). */
void run_runner_release(runner *r);
/* Output i, borrowed (as rt_executor_get_output). */
rt_status_t run_runner_output(runner *r, int32_t index, rt_tensor_t **out);
/* The inputs: --input files, else seeded random data shaped by the
 * signature or --shape; a new array of new references. */
rt_status_t run_make_inputs(const run_opts *o, const runner *r, rt_tensor_t ***out_inputs);
/* Creates dir unless it exists. */
rt_status_t run_make_dir(const char *dir);
/* The pass context the options describe (--opt-level, --threads ...). */
rt_status_t run_make_context(const run_opts *o, rt_pass_context_t **out);
/* Loads the model (or the built-in example) with --const-input and
 * --shape applied. */
rt_status_t run_load_model(const run_opts *o, rt_module_t **out);

/* --executor all: every executor on the same inputs against debug's
 * outputs (run_all.c); the exit code. */
int run_all(const run_opts *o);

#endif /* RT_TOOLS_RUN_H_ */
