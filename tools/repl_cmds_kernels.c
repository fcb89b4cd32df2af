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
#define PROFILE_MAX_NODES 65536

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

static int by_time_desc(const void *a, const void *b) {
  const rt_node_profile_t *x = a, *y = b;
  return x->mean_ms < y->mean_ms ? 1 : x->mean_ms > y->mean_ms ? -1 : 0;
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
  int32_t count = 0;
  RT_RETURN_IF_ERROR(rt_executor_profile(ex, 1, 0, NULL, &count));
  if (count > PROFILE_MAX_NODES) count = PROFILE_MAX_NODES;
  rt_node_profile_t *nodes = calloc((size_t)(count ? count : 1), sizeof *nodes);
  if (!nodes) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  int32_t n = 0;
  rt_status_t st = rt_executor_profile(ex, (int32_t)runs, count, nodes, &n);
  if (!st) {
    if (n > count) n = count;
    double total = 0;
    for (int32_t i = 0; i < n; ++i) total += nodes[i].mean_ms;
    qsort(nodes, (size_t)n, sizeof *nodes, by_time_desc);
    printf("graph executor, %d kernel call%s per run, mean of %ld runs after a warm-up:\n", (int)n,
           n == 1 ? "" : "s", runs);
    printf("  %12s %12s %7s  %-40s %s\n", "mean", "min", "share", "kernel", "type");
    for (int32_t i = 0; i < n; ++i) {
      printf("  %9.1f us %9.1f us %6.1f%%  %-40s %s\n", 1e3 * nodes[i].mean_ms, 1e3 * nodes[i].min_ms,
             total > 0 ? 100.0 * nodes[i].mean_ms / total : 0.0, nodes[i].kernel, nodes[i].type);
    }
    printf("  %9.1f us %12s %6.1f%%  total\n", 1e3 * total, "", 100.0);
  }
  free(nodes);
  return st;
}
