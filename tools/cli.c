/* Helpers shared by the relayrt subcommands (see cli.h). */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
