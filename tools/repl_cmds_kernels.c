/* Kernels: :kernels :ll :asm :profile (tools/repl.h).
 *
 * All four look at the graph executor built from the current module and
 * pass context: its fused kernels (get_source "kernels"), one kernel's
 * optimized LLVM IR ("ll:NAME") or assembly ("asm:NAME", from a second
 * graph executor built with jit.keep_asm=1, made on first use), and a
 * per-node profile (rt_executor_profile) printed slowest first with each
 * node's share of the summed kernel time. */
#include <stdlib.h>
#include <string.h>

#include "repl.h"

#define PROFILE_DEFAULT_RUNS 10

static rt_status_t print_source(rt_executor_t *ex, const char *kind) {
  char *text = NULL;
  RT_RETURN_IF_ERROR(rt_executor_get_source(ex, kind, &text));
  fputs(text, stdout);
  if (*text && text[strlen(text) - 1] != '\n') fputc('\n', stdout);
  free(text);
  return RT_OK;
}

rt_status_t cmd_kernels(repl *r, char *args) {
  (void)args;
  rt_executor_t *ex = NULL;
  RT_RETURN_IF_ERROR(repl_executor(r, KIND_GRAPH, &ex));
  return print_source(ex, "kernels");
}

rt_status_t cmd_ll(repl *r, char *args) {
  char *name = repl_next_word(&args);
  if (!*name) return RT_STATUS(INVALID_ARGUMENT, ":ll expects a kernel NAME (:kernels lists them)");
  rt_executor_t *ex = NULL;
  RT_RETURN_IF_ERROR(repl_executor(r, KIND_GRAPH, &ex));
  char kind[512];
  snprintf(kind, sizeof kind, "ll:%s", name);
  return print_source(ex, kind);
}

rt_status_t cmd_asm(repl *r, char *args) {
  char *name = repl_next_word(&args);
  if (!*name) return RT_STATUS(INVALID_ARGUMENT, ":asm expects a kernel NAME (:kernels lists them)");
  RT_RETURN_IF_ERROR(repl_need_module(r));
  if (!r->asm_ex) {
    rt_pass_context_t *ctx = NULL;
    rt_status_t st = rt_pass_context_copy(r->ctx, &ctx);
    if (!st) st = rt_pass_context_set_config(ctx, "jit.keep_asm", "1");
    if (!st) st = rt_create_executor("graph", r->module, NULL, ctx, NULL, &r->asm_ex);
    rt_pass_context_release(ctx);
    RT_RETURN_IF_ERROR(st);
  }
  char kind[512];
  snprintf(kind, sizeof kind, "asm:%s", name);
  return print_source(r->asm_ex, kind);
}

rt_status_t cmd_profile(repl *r, char *args) {
  char *w = repl_next_word(&args);
  long runs = PROFILE_DEFAULT_RUNS;
  if (*w) {
    char *end = NULL;
    runs = strtol(w, &end, 10);
    if (*end || runs < 1 || runs > 100000) {
      return RT_STATUS(INVALID_ARGUMENT, ":profile expects a number of runs 1..100000, got '%s'", w);
    }
  }
  rt_executor_t *ex = NULL;
  RT_RETURN_IF_ERROR(repl_executor(r, KIND_GRAPH, &ex));
  RT_RETURN_IF_ERROR(repl_set_inputs(r, ex));
  RT_RETURN_IF_ERROR(rt_executor_run(ex)); /* warm-up: first touches of the planned storage */
  cli_profile_t p;
  RT_RETURN_IF_ERROR(cli_profile_run(ex, runs, 0, &p));
  cli_profile_print(stdout, &p);
  cli_profile_free(&p);
  return RT_OK;
}
