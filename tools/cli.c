/* Helpers shared by the relayrt subcommands (see cli.h). */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fma_peak.h"

extern const char rt_builtin_example[];
extern const size_t rt_builtin_example_size;

int cli_report(rt_status_t st) {
  const char *msg = rt_status_message(st);
  if (strstr(msg, ": error: ") || strncmp(msg, "error: ", 7) == 0) {
    fprintf(stderr, "%s\n", msg);
  } else {
    fprintf(stderr, "relayrt: error: %s\n", msg);
  }
  rt_status_free(st);
  return 1;
}

int cli_usage_error(const char *what, const char *arg) {
  fprintf(stderr, "relayrt: %s '%s'\n(run 'relayrt help' for usage)\n", what, arg);
  return 2;
}

const char *cli_option(int argc, char **argv, int *i, const char *name) {
  size_t n = strlen(name);
  const char *a = argv[*i];
  if (strncmp(a, name, n) != 0) return NULL;
  if (a[n] == '=') return a + n + 1;
  if (a[n] == '\0' && *i + 1 < argc) {
    *i += 1;
    return argv[*i];
  }
  return NULL;
}

rt_status_t cli_load_model(const char *path, rt_module_t **out) {
  if (!path || strcmp(path, "-") == 0) {
    return rt_module_parse(rt_builtin_example, rt_builtin_example_size, CLI_BUILTIN_NAME, out);
  }
  rt_module_load_options_t lo = {0};
  cli_onnx_op_options(&lo);
  return rt_module_load_with_options(path, &lo, out);
}

rt_status_t cli_parse_dims(const char *text, int32_t *out_rank, int64_t *out_shape) {
  int32_t rank = 0;
  if (*text == '\0' || strcmp(text, "scalar") == 0) {
    *out_rank = 0;
    return RT_OK;
  }
  const char *p = text;
  while (*p) {
    char *end = NULL;
    long long d = strtoll(p, &end, 10);
    if (end == p || d < 0) {
      return RT_STATUS(INVALID_ARGUMENT, "bad shape '%s': expected dims like 1x3x224x224", text);
    }
    if (rank >= RT_TENSOR_MAX_RANK) {
      return RT_STATUS(INVALID_ARGUMENT, "bad shape '%s': more than %d dims", text, RT_TENSOR_MAX_RANK);
    }
    out_shape[rank++] = d;
    p = end;
    if (*p == 'x' || *p == ',') {
      p++;
      if (*p == '\0') return RT_STATUS(INVALID_ARGUMENT, "bad shape '%s': trailing separator", text);
    } else if (*p != '\0') {
      return RT_STATUS(INVALID_ARGUMENT, "bad shape '%s': expected dims like 1x3x224x224", text);
    }
  }
  *out_rank = rank;
  return RT_OK;
}

void cli_type_text(rt_dtype_t dtype, int32_t rank, const int64_t *shape, char *buf, size_t cap) {
  char dn[RT_DTYPE_NAME_MAX];
  rt_dtype_name(dtype, dn);
  if (rank == 0) {
    snprintf(buf, cap, "%s", dn);
    return;
  }
  size_t n = (size_t)snprintf(buf, cap, "Tensor[(");
  for (int32_t i = 0; i < rank && n < cap; ++i) {
    if (shape[i] < 0) {
      n += (size_t)snprintf(buf + n, cap - n, "%s?", i ? ", " : "");
    } else {
      n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)shape[i]);
    }
  }
  if (n < cap) snprintf(buf + n, cap - n, "), %s]", dn);
}

void cli_print_summary(FILE *f, const char *name, const rt_tensor_t *t) {
  char ty[256];
  cli_type_text(rt_tensor_dtype(t), rt_tensor_rank(t), rt_tensor_shape(t), ty, sizeof ty);
  if (rt_dtype_is_string(rt_tensor_dtype(t)) && rt_tensor_is_compact(t)) {
    /* The first strings, quoted, each cut at 40 bytes. */
    const rt_string_t *e = rt_tensor_data(t);
    const int64_t count = rt_tensor_numel(t), show = count < 6 ? count : 6;
    fprintf(f, "%s: %s [", name, ty);
    for (int64_t i = 0; i < show; ++i) {
      fprintf(f, "%s\"%.*s%s\"", i ? ", " : "", (int)(e[i].size < 40 ? e[i].size : 40),
              e[i].data ? e[i].data : "", e[i].size > 40 ? "..." : "");
    }
    fprintf(f, "%s]\n", count > show ? ", ..." : "");
    return;
  }
  rt_tensor_stats_t s;
  rt_tensor_stats(t, &s);
  fprintf(f, "%s: %s min=%.6g max=%.6g mean=%.6g", name, ty, s.min, s.max, s.mean);
  if (s.nan_count || s.inf_count) {
    fprintf(f, " nan=%lld inf=%lld", (long long)s.nan_count, (long long)s.inf_count);
  }
  fprintf(f, " [");
  int64_t show = s.count < 6 ? s.count : 6;
  for (int64_t i = 0; i < show; ++i) fprintf(f, "%s%.6g", i ? ", " : "", rt_tensor_get_f64(t, i));
  fprintf(f, "%s]\n", s.count > show ? ", ..." : "");
}

uint64_t cli_seed(const char *name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char *p = name; *p; ++p) h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
  return h;
}

/* ---- per-kernel profile ------------------------------------------------------------ */

static int by_time_desc(const void *a, const void *b) {
  const rt_node_profile_t *x = a, *y = b;
  return (x->mean_ms < y->mean_ms) - (x->mean_ms > y->mean_ms);
}

/* The FMA peak at the executor's template width on `threads` threads: the
 * best of three ~40 ms measurements (a probe that lost its core to another
 * process reads low). */
static void measure_peak(rt_executor_t *ex, int32_t threads, cli_profile_t *out) {
  rt_executor_compile_t cs;
  rt_status_t st = rt_executor_compile_stats(ex, &cs);
  out->vector_width = st ? 0 : cs.vector_width;
  rt_status_free(st);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  out->threads = threads > 0 ? threads : (int32_t)(cpus > 0 ? cpus : 1);
  if (out->vector_width != 8 && out->vector_width != 16) return;
  const int32_t bits = out->vector_width == 16 ? 512 : 256;
  const long iters = bits == 512 ? 5000000 : 10000000;
  for (int32_t i = 0; i < 3; ++i) {
    double g = rt_bench_fma_peak_bits(bits, out->threads, iters);
    if (g > out->peak_gflops) out->peak_gflops = g;
  }
}

double cli_profile_peak_fraction(const cli_profile_t *p, double flops, double ms) {
  if (p->peak_gflops <= 0 || flops <= 0 || ms <= 0) return 0;
  return flops / (ms * 1e6) / p->peak_gflops;
}

rt_status_t cli_profile_run(rt_executor_t *ex, long runs, int32_t threads, cli_profile_t *out) {
  memset(out, 0, sizeof *out);
  if (runs < 1 || runs > 1000000) {
    return RT_STATUS(INVALID_ARGUMENT, "profile: runs must be 1..1000000, got %ld", runs);
  }
  int32_t count = 0;
  RT_RETURN_IF_ERROR(rt_executor_profile(ex, 1, 0, NULL, &count));
  rt_node_profile_t *nodes = calloc((size_t)(count > 0 ? count : 1), sizeof *nodes);
  if (!nodes) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory for a profile of %d nodes", (int)count);
  int32_t n = 0;
  rt_status_t st = rt_executor_profile(ex, (int32_t)runs, count, nodes, &n);
  if (st) {
    free(nodes);
    return st;
  }
  if (n > count) n = count; /* the plan cannot grow between the calls; be safe */
  qsort(nodes, (size_t)n, sizeof *nodes, by_time_desc);
  out->nodes = nodes;
  out->count = n;
  out->runs = runs;
  for (int32_t i = 0; i < n; ++i) out->total_ms += nodes[i].mean_ms;
  measure_peak(ex, threads, out);
  return RT_OK;
}

void cli_profile_print(FILE *f, const cli_profile_t *p) {
  fprintf(f, "graph executor, %d kernel call%s per run, mean of %ld run%s, slowest first "
          "(warm: the mean of a second call right after the first, its operands in cache; "
          "GFLOP/s: the dense/matmul/conv FLOPs of the kernel over its mean time",
          (int)p->count, p->count == 1 ? "" : "s", p->runs, p->runs == 1 ? "" : "s");
  if (p->peak_gflops > 0) {
    fprintf(f, "; peak: that as a fraction of the FMA peak measured now, %.1f GFLOP/s on %d "
            "thread%s at the templates' %d lanes", p->peak_gflops, (int)p->threads,
            p->threads == 1 ? "" : "s", (int)p->vector_width);
  }
  fprintf(f, "; tasks: the most a call split into, bal: their summed time over tasks x the "
          "slowest's, 1 = even):\n");
  fprintf(f, "  %12s %12s %12s %7s %8s %5s %5s %4s  %-40s %s\n", "mean", "min", "warm", "share", "GFLOP/s",
          "peak", "tasks", "bal", "kernel", "type");
  double flops = 0, warm = 0;
  for (int32_t i = 0; i < p->count; ++i) {
    const rt_node_profile_t *x = &p->nodes[i];
    char gf[16] = "-", pk[16] = "-";
    if (x->flops > 0 && x->mean_ms > 0) snprintf(gf, sizeof gf, "%.1f", x->flops / (x->mean_ms * 1e6));
    const double frac = cli_profile_peak_fraction(p, x->flops, x->mean_ms);
    if (frac > 0) snprintf(pk, sizeof pk, "%.2f", frac);
    flops += x->flops;
    char bal[16] = "-";
    if (x->tasks > 1) snprintf(bal, sizeof bal, "%.2f", x->balance);
    warm += x->warm_ms;
    fprintf(f, "  %9.1f us %9.1f us %9.1f us %6.1f%% %8s %5s %5d %4s  %-40s %s\n", 1e3 * x->mean_ms,
            1e3 * x->min_ms, 1e3 * x->warm_ms, p->total_ms > 0 ? 100.0 * x->mean_ms / p->total_ms : 0.0, gf,
            pk, (int)x->tasks, bal, x->kernel, x->type);
  }
  char gf[16] = "-", pk[16] = "-";
  if (flops > 0 && p->total_ms > 0) snprintf(gf, sizeof gf, "%.1f", flops / (p->total_ms * 1e6));
  const double frac = cli_profile_peak_fraction(p, flops, p->total_ms);
  if (frac > 0) snprintf(pk, sizeof pk, "%.2f", frac);
  fprintf(f, "  %9.1f us %12s %9.1f us %6.1f%% %8s %5s %5s %4s  total\n", 1e3 * p->total_ms, "", 1e3 * warm,
          100.0, gf, pk, "", "");
}

void cli_profile_free(cli_profile_t *p) {
  free(p->nodes);
  memset(p, 0, sizeof *p);
}
