/* Shared pieces of the relayrt command's subcommands: error reporting,
 * option matching, model loading (the built-in example), tensor summaries
 * and shape parsing. Public API only (include/rt/). */
#ifndef RT_TOOLS_CLI_H_
#define RT_TOOLS_CLI_H_

#include <stdio.h>

#include "rt/executor.h"
#include "rt/rt.h"

#define CLI_BUILTIN_NAME "<built-in example>"

/* Prints an error status to stderr (positioned diagnostics as they are,
 * others with "relayrt: error: "), frees it, returns 1. */
int cli_report(rt_status_t st);
/* "relayrt: <what> '<arg>'" plus the usage hint; returns 2. */
int cli_usage_error(const char *what, const char *arg);
/* "--name=value" or "--name value" (advances *i); NULL if argv[*i] is not it. */
const char *cli_option(int argc, char **argv, int *i, const char *name);
/* Loads MODEL, or the built-in example for NULL or "-". */
rt_status_t cli_load_model(const char *path, rt_module_t **out);
/* Parses "1x3x224x224" (or "1,3,224,224"); "" or "scalar" is rank 0. */
rt_status_t cli_parse_dims(const char *text, int32_t *out_rank, int64_t *out_shape);
/* "Tensor[(1, 3), float32]"-style text of a tensor's type into buf. */
void cli_type_text(rt_dtype_t dtype, int32_t rank, const int64_t *shape, char *buf, size_t cap);
/* One summary line: shape dtype min max mean nan inf and the first values. */
void cli_print_summary(FILE *f, const char *name, const rt_tensor_t *t);
/* Seed for an input's random data: fixed, derived from the name. */
uint64_t cli_seed(const char *name);

/* A graph executor's per-kernel profile (rt_executor_profile), slowest
 * node first. cli_profile_run times `runs` ordinary runs on the inputs
 * set (the caller warms up first); total_ms is the sum of the nodes'
 * means. cli_profile_print writes the table (time, min, share, kernel =
 * the ops it fused, type = its shapes); cli_profile_free releases. */
typedef struct cli_profile_t {
  rt_node_profile_t *nodes;
  int32_t count;
  long runs;
  double total_ms;
  /* The FMA peak measured just after the runs (tools/fma_peak.h) at the
   * templates' vector width, on `threads` threads at once (the executor's
   * pool: --threads, 0 = every online CPU); 0 when the CPU has no FMA
   * loop to measure. A kernel's fraction of peak is its GFLOP/s over it. */
  double peak_gflops;
  int32_t threads, vector_width;
} cli_profile_t;
rt_status_t cli_profile_run(rt_executor_t *ex, long runs, int32_t threads, cli_profile_t *out);
void cli_profile_print(FILE *f, const cli_profile_t *p);
/* flops done in ms as a fraction of p's peak; 0 when either is unknown. */
double cli_profile_peak_fraction(const cli_profile_t *p, double flops, double ms);
void cli_profile_free(cli_profile_t *p);

/* Custom ops (tools/ops.c): takes --ops LIB.so (loads it, calling its
 * relayrt_ops_init) and --onnx-op DOMAIN.TYPE=OP out of argv; returns 0
 * or an exit status. cli_onnx_op_options fills a load options' ONNX op
 * mapping from them. */
int cli_take_op_options(int *argc, char **argv);
void cli_onnx_op_options(rt_module_load_options_t *options);

int cli_build(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_optest(int argc, char **argv);
int cli_repl(int argc, char **argv);

#endif /* RT_TOOLS_CLI_H_ */
