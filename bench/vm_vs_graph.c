/* vm_vs_graph: the latency of static models under the vm and the graph
 * executors in one run, as a ratio (the aim is vm/graph <= 1.1: the
 * vm's static path plans its memory and allocates nothing per run); then
 * models with a `?` batch (the example CNN, a transformer encoder layer, a
 * 3-layer MLP) under the vm, against the graph executor on the same model
 * bound to the batch it runs, at batch 1, 8 and 32 (the aim is vm/graph
 * <= 1.15: the vm compiles such kernels per shape, backend/vm_specialize.c).
 *
 * Method: per model and executor, 20 warm-up runs, then 15 rounds of a
 * batch of runs sized to ~20 ms; the figure is the median per-run time.
 * The two executors are interleaved round by round so drift on a shared
 * machine hits both alike. A figure, never pass/fail. Usage:
 *   vm_vs_graph [examples/cnn.relay] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/rt.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int check(rt_status_t st, const char *what) {
  if (!st) return 0;
  fprintf(stderr, "vm_vs_graph: %s: %s\n", what, rt_status_message(st));
  rt_status_free(st);
  return 1;
}

/* Sets seeded inputs (`?` dims = dyn). */
static int set_inputs(rt_executor_t *ex, int64_t dyn) {
  for (int32_t i = 0; i < rt_executor_num_inputs(ex); ++i) {
    rt_tensor_info_t info;
    if (check(rt_executor_input_info(ex, i, &info), "input info")) return 1;
    int64_t shape[RT_TENSOR_MAX_RANK];
    for (int32_t d = 0; d < info.rank; ++d) shape[d] = info.shape[d] < 0 ? dyn : info.shape[d];
    rt_tensor_t *t = NULL;
    if (check(rt_tensor_create(rt_allocator_system(), info.dtype, info.rank, shape, &t), "input")) return 1;
    rt_tensor_fill_random(t, 7 + (uint64_t)i);
    rt_status_t st = rt_executor_set_input(ex, i, t);
    rt_tensor_release(t);
    if (check(st, "set_input")) return 1;
  }
  return 0;
}

/* Median ms per run of each executor, measured interleaved. */
static int measure(rt_executor_t **exs, int32_t n, double *out_ms) {
  enum { ROUNDS = 15 };
  double samples[4][ROUNDS];
  int32_t batch[4];
  for (int32_t e = 0; e < n; ++e) {
    for (int w = 0; w < 20; ++w) {
      if (check(rt_executor_run(exs[e]), "warm-up run")) return 1;
    }
    double t0 = now_ms();
    for (int k = 0; k < 10; ++k) {
      if (check(rt_executor_run(exs[e]), "run")) return 1;
    }
    double per = (now_ms() - t0) / 10;
    batch[e] = per > 0 ? (int32_t)(20.0 / per) + 1 : 1000;
    if (batch[e] > 100000) batch[e] = 100000;
  }
  for (int r = 0; r < ROUNDS; ++r) {
    for (int32_t e = 0; e < n; ++e) {
      double t0 = now_ms();
      for (int32_t k = 0; k < batch[e]; ++k) {
        if (check(rt_executor_run(exs[e]), "run")) return 1;
      }
      samples[e][r] = (now_ms() - t0) / batch[e];
    }
  }
  for (int32_t e = 0; e < n; ++e) {
    qsort(samples[e], ROUNDS, sizeof(double), cmp_double);
    out_ms[e] = samples[e][ROUNDS / 2];
  }
  return 0;
}

/* graph on `gm`, vm on `vm_m`, both run with `?` dims = dyn. */
static int compare_at(const char *name, rt_module_t *gm, rt_module_t *vm_m, int64_t dyn) {
  rt_executor_t *exs[2] = {NULL, NULL};
  const char *kinds[2] = {"graph", "vm"};
  rt_module_t *mods[2] = {gm, vm_m};
  int rc = 0;
  for (int e = 0; e < 2 && !rc; ++e) {
    rc = check(rt_create_executor(kinds[e], mods[e], NULL, NULL, NULL, &exs[e]), kinds[e]);
    if (!rc) rc = set_inputs(exs[e], dyn);
  }
  double ms[2] = {0, 0};
  if (!rc) rc = measure(exs, 2, ms);
  if (!rc) {
    printf("%-28s graph %9.4f ms   vm %9.4f ms   vm/graph %.3f\n", name, ms[0], ms[1], ms[1] / ms[0]);
  }
  for (int e = 0; e < 2; ++e) rt_executor_release(exs[e]);
  return rc;
}

static int compare(const char *name, rt_module_t *m) { return compare_at(name, m, m, 1); }

/* m (first input's dim 0 `?`) at batch 1, 8, 32: the vm on m, the graph
 * executor on m bound to the batch. */
static int compare_dynamic(const char *name, rt_module_t *m) {
  static const int64_t batches[] = {1, 8, 32};
  int rc = 0;
  rt_executor_t *probe = NULL;
  if (check(rt_create_executor("debug", m, NULL, NULL, NULL, &probe), "debug")) return 1;
  rt_tensor_info_t info;
  rc = check(rt_executor_input_info(probe, 0, &info), "input info");
  int64_t dims[RT_TENSOR_MAX_RANK];
  const char *input = info.name;
  for (int32_t d = 0; !rc && d < info.rank; ++d) dims[d] = info.shape[d];
  for (int b = 0; b < 3 && !rc; ++b) {
    dims[0] = batches[b];
    rt_input_shape_t shape = {input, info.rank, dims};
    rt_module_t *bound = NULL;
    rc = check(rt_module_bind_input_shapes(m, 1, &shape, &bound), "binding the batch");
    char label[96];
    snprintf(label, sizeof label, "%s, batch %lld", name, (long long)batches[b]);
    if (!rc) rc = compare_at(label, bound, m, batches[b]);
    rt_module_release(bound);
  }
  rt_executor_release(probe);
  return rc;
}

/* A transformer encoder layer (one attention head, d 64, FFN 256) over
 * (?, 16, 64). */
static const char kEncoder[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(?, 16, 64), float32], %wq: Tensor[(64, 64), float32], "
    "%wk: Tensor[(64, 64), float32], %wv: Tensor[(64, 64), float32], %wo: Tensor[(64, 64), float32], "
    "%w1: Tensor[(256, 64), float32], %b1: Tensor[(256), float32], %w2: Tensor[(64, 256), float32], "
    "%b2: Tensor[(64), float32], %g: Tensor[(64), float32], %be: Tensor[(64), float32]) {\n"
    "  %0 = nn.dense(%x, %wq, units=64);\n"
    "  %1 = nn.dense(%x, %wk, units=64);\n"
    "  %2 = nn.dense(%x, %wv, units=64);\n"
    "  %3 = nn.batch_matmul(%0, %1, transpose_b=True);\n"
    "  %4 = multiply(%3, 0.125f);\n"
    "  %5 = nn.softmax(%4, axis=-1);\n"
    "  %6 = nn.batch_matmul(%5, %2, transpose_b=False);\n"
    "  %7 = nn.dense(%6, %wo, units=64);\n"
    "  %8 = nn.layer_norm(add(%7, %x), %g, %be);\n"
    "  %9 = nn.relu(nn.bias_add(nn.dense(%8, %w1, units=256), %b1, axis=-1));\n"
    "  %10 = nn.bias_add(nn.dense(%9, %w2, units=64), %b2, axis=-1);\n"
    "  nn.layer_norm(add(%10, %8), %g, %be)\n"
    "}\n";

/* The example CNN with its input's batch `?`. */
static rt_module_t *cnn_any_batch(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "vm_vs_graph: cannot open %s\n", path);
    return NULL;
  }
  static char text[1 << 20];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  char *p = strstr(text, "Tensor[(1, ");
  if (!p) {
    fprintf(stderr, "vm_vs_graph: %s has no batch-1 input to make `?`\n", path);
    return NULL;
  }
  p[8] = '?';
  rt_module_t *m = NULL;
  if (check(rt_module_parse(text, n, path, &m), "parsing the CNN")) return NULL;
  return m;
}

static const char kMlpHead[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(";
static const char kMlp[] =
    ", 256), float32], %w1: Tensor[(512, 256), float32], "
    "%b1: Tensor[(512), float32], %w2: Tensor[(512, 512), float32], %b2: Tensor[(512), float32], "
    "%w3: Tensor[(10, 512), float32], %b3: Tensor[(10), float32]) {\n"
    "  %0 = nn.relu(nn.bias_add(nn.dense(%x, %w1, units=512), %b1));\n"
    "  %1 = nn.relu(nn.bias_add(nn.dense(%0, %w2, units=512), %b2));\n"
    "  nn.bias_add(nn.dense(%1, %w3, units=10), %b3)\n"
    "}\n";

static rt_module_t *mlp(const char *batch) {
  char text[2048];
  snprintf(text, sizeof text, "%s%s%s", kMlpHead, batch, kMlp);
  rt_module_t *m = NULL;
  if (check(rt_module_parse(text, strlen(text), "mlp.relay", &m), "parsing the MLP")) return NULL;
  return m;
}

int main(int argc, char **argv) {
  const char *cnn_path = argc > 1 ? argv[1] : "examples/cnn.relay";
  int rc = 0;
  printf("static models (median per run, graph and vm interleaved):\n");
  rt_module_t *cnn = NULL;
  if (check(rt_module_load(cnn_path, &cnn), cnn_path)) {
    rc = 1;
  } else {
    rc |= compare("examples/cnn.relay", cnn);
  }
  rt_module_release(cnn);
  rt_module_t *m = mlp("16");
  if (m) rc |= compare("mlp 256-512-512-10, batch 16", m);
  rt_module_release(m);
  printf("`?`-batch models: the vm on the `?` model, the graph executor on it bound to the batch:\n");
  rt_module_t *dyn = cnn_any_batch(cnn_path);
  if (dyn) rc |= compare_dynamic("cnn", dyn);
  rt_module_release(dyn);
  dyn = NULL;
  if (check(rt_module_parse(kEncoder, strlen(kEncoder), "encoder.relay", &dyn), "parsing the encoder")) rc = 1;
  if (dyn) rc |= compare_dynamic("encoder layer (?, 16, 64)", dyn);
  rt_module_release(dyn);
  dyn = mlp("?");
  if (dyn) rc |= compare_dynamic("mlp 256-512-512-10", dyn);
  rt_module_release(dyn);
  return rc;
}
