/* Allocation failure is a status: every allocation the library makes for a
 * module or an executor comes from the allocator given in its options, and
 * failing the n-th one, for every n, gives RESOURCE_EXHAUSTED (or, once n
 * is past the last allocation, success) with nothing leaked: the counting
 * allocator's live count returns to zero after each release, and ASan/LSan
 * (scripts/test's second pass) see no leak or bad free of the rest.
 *
 * Steps, each with its own count of allocations: loading the example CNN
 * from text; loading a small ONNX model; creating each executor kind over
 * the CNN, one run with an input, reading the output, release; a graph
 * executor specializing a `?` batch twice with one plan kept. Kernels come
 * from a disk cache this test fills first (RELAYRT_CACHE_DIR, set by meson),
 * so the hundreds of executor builds skip LLVM. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/executor.h"
#include "rt/module.h"
#include "test_util.h"

static char g_cnn[1024], g_onnx[1024];

/* A step under allocator `a`: 0 when it succeeded, else the status code. */
typedef rt_status_code_t (*step_fn)(const rt_allocator_t *a, const void *arg);

static rt_status_code_t code_of(rt_status_t st) {
  rt_status_code_t c = rt_status_code(st);
  if (st && c != RT_STATUS_RESOURCE_EXHAUSTED) {
    print_error("unexpected status: %s: %s\n", rt_status_code_name(c), rt_status_message(st));
  }
  rt_status_free(st);
  return st ? c : RT_STATUS_OK;
}

static rt_status_code_t load_step(const rt_allocator_t *a, const void *arg) {
  rt_module_load_options_t o;
  memset(&o, 0, sizeof o);
  o.allocator = a;
  rt_module_t *m = NULL;
  rt_status_code_t c = code_of(rt_module_load_with_options(arg, &o, &m));
  rt_module_release(m);
  return c;
}

typedef struct {
  const char *kind;
  rt_module_t *module;
  float want[10]; /* the debug executor's output, with the system allocator */
} exec_arg;

static rt_status_code_t exec_step(const rt_allocator_t *a, const void *arg) {
  const exec_arg *e = arg;
  rt_executor_options_t o = {a};
  rt_executor_t *ex = NULL;
  rt_tensor_t *x = NULL, *y = NULL;
  const int64_t shape[4] = {1, 3, 16, 16};
  rt_status_t st = rt_create_executor_with_options(e->kind, e->module, NULL, NULL, NULL, &o, &ex);
  if (!st) st = rt_tensor_create(*a, RT_DTYPE_FLOAT32, 4, shape, &x);
  if (!st) {
    float *d = rt_tensor_data(x);
    for (int64_t i = 0; i < rt_tensor_numel(x); ++i) d[i] = (float)(i % 7) * 0.25f - 0.5f;
    st = rt_executor_set_input_by_name(ex, "data", x);
  }
  if (!st) st = rt_executor_run(ex);
  if (!st) st = rt_executor_get_output(ex, 0, &y);
  if (!st && rt_tensor_numel(y) != 10) {
    st = RT_STATUS(INTERNAL, "the CNN gave %lld outputs", (long long)rt_tensor_numel(y));
  }
  /* A run that succeeded despite a failed allocation (one the library
   * absorbs: a structural hash falling back to a coarser one, a kernel
   * cache lookup that recompiles) must still give the right answer. */
  for (int64_t i = 0; !st && i < 10; ++i) {
    double got = rt_tensor_get_f64(y, i), want = e->want[i];
    if (!(got - want <= 1e-5 && want - got <= 1e-5)) {
      st = RT_STATUS(INTERNAL, "output %lld is %g, the reference %g", (long long)i, got, want);
    }
  }
  rt_tensor_release(x);
  rt_executor_release(ex);
  return code_of(st);
}

/* Runs `step` failing allocation n = 0, 1, 2, ... until a run makes fewer
 * than n + 1 allocations (so none failed) and succeeds. Every failing run
 * must end in RESOURCE_EXHAUSTED, or (where `absorb` allows, and the step
 * checked its result) in success; every run with nothing live. */
static void fail_every_allocation(const char *what, step_fn step, const void *arg, bool absorb) {
  rt_test_alloc_t counts = {0, 0, -1, 0};
  rt_allocator_t a = rt_test_allocator(&counts);
  assert_int_equal(step(&a, arg), RT_STATUS_OK);
  assert_int_equal(counts.live_allocations, 0);
  const int64_t total = counts.total_allocations;
  assert_true(total > 0); /* the step's memory does come from the allocator */
  int64_t failures = 0, problems = 0, absorbed = 0;
  for (int64_t n = 0;; ++n) {
    rt_test_alloc_t c = {0, 0, n, 0};
    a = rt_test_allocator(&c);
    rt_status_code_t code = step(&a, arg);
    const bool reached = c.total_allocations > n;
    if (c.live_allocations != 0) {
      print_error("%s: failing allocation %lld of %lld left %lld blocks live\n", what,
                  (long long)n, (long long)total, (long long)c.live_allocations);
      ++problems;
    }
    if (!reached) {
      assert_int_equal(code, RT_STATUS_OK);
      break;
    }
    if (code == RT_STATUS_OK && absorb) {
      ++absorbed;
    } else if (code != RT_STATUS_RESOURCE_EXHAUSTED) {
      print_error("%s: failing allocation %lld of %lld gave %s\n", what, (long long)n,
                  (long long)total, rt_status_code_name(code));
      ++problems;
    }
    ++failures;
  }
  /* Every problem was printed above; a run lists them all at once. */
  assert_int_equal(problems, 0);
  printf("# %s: %lld allocations, each failed once: %lld RESOURCE_EXHAUSTED, %lld absorbed "
         "with the right result, nothing leaked\n",
         what, (long long)failures, (long long)(failures - absorbed), (long long)absorbed);
}

static void test_alloc_fail_load_text(void **state) {
  (void)state;
  fail_every_allocation("load examples/cnn.relay", load_step, g_cnn, false);
}

static void test_alloc_fail_load_onnx(void **state) {
  (void)state;
  fail_every_allocation("load conv_with_strides_padding.onnx", load_step, g_onnx, false);
}

static void run_executor_kind(const char *kind) {
  rt_module_t *m = NULL;
  assert_ok(rt_module_load(g_cnn, &m));
  exec_arg e = {kind, m, {0}};
  rt_executor_t *ref = NULL;
  rt_tensor_t *x = NULL, *y = NULL;
  const int64_t shape[4] = {1, 3, 16, 16};
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ref));
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 4, shape, &x));
  float *d = rt_tensor_data(x);
  for (int64_t i = 0; i < rt_tensor_numel(x); ++i) d[i] = (float)(i % 7) * 0.25f - 0.5f;
  assert_ok(rt_executor_set_input_by_name(ref, "data", x));
  assert_ok(rt_executor_run(ref));
  assert_ok(rt_executor_get_output(ref, 0, &y));
  assert_int_equal(rt_tensor_numel(y), 10);
  for (int64_t i = 0; i < 10; ++i) e.want[i] = (float)rt_tensor_get_f64(y, i);
  rt_tensor_release(x);
  rt_executor_release(ref);
  char what[64];
  snprintf(what, sizeof what, "%s executor: create, run, release", kind);
  /* The debug executor absorbs nothing; the JIT's structural hashing and
   * kernel cache degrade instead of failing (their fallbacks are exact). */
  fail_every_allocation(what, exec_step, &e, strcmp(kind, "debug") != 0);
  rt_module_release(m);
}

static void test_alloc_fail_debug(void **state) {
  (void)state;
  run_executor_kind("debug");
}

static void test_alloc_fail_graph(void **state) {
  (void)state;
  run_executor_kind("graph");
}

static void test_alloc_fail_vm(void **state) {
  (void)state;
  run_executor_kind("vm");
}

/* The graph executor with a `?` batch and graph.max_specializations 1:
 * creation, a run at batch 2 (a specialization), one at batch 3 (another,
 * evicting the first), each output checked: sum(relu(x), axis=1). */
static rt_status_code_t specialize_step(const rt_allocator_t *a, const void *arg) {
  rt_module_t *m = (rt_module_t *)arg;
  rt_executor_options_t o = {a};
  rt_pass_context_t *ctx = NULL;
  rt_executor_t *ex = NULL;
  rt_tensor_t *x = NULL, *y = NULL;
  rt_status_t st = rt_pass_context_create(&ctx);
  if (!st) st = rt_pass_context_set_config(ctx, "graph.max_specializations", "1");
  if (!st) st = rt_create_executor_with_options("graph", m, NULL, ctx, NULL, &o, &ex);
  for (int64_t batch = 2; !st && batch <= 3; ++batch) {
    const int64_t shape[2] = {batch, 4};
    st = rt_tensor_create(*a, RT_DTYPE_FLOAT32, 2, shape, &x);
    if (!st) {
      float *d = rt_tensor_data(x);
      for (int64_t i = 0; i < rt_tensor_numel(x); ++i) d[i] = (float)(i % 5) - 2.0f;
      st = rt_executor_set_input(ex, 0, x);
    }
    if (!st) st = rt_executor_run(ex);
    if (!st) st = rt_executor_get_output(ex, 0, &y);
    for (int64_t r = 0; !st && r < batch; ++r) {
      double want = 0;
      for (int64_t c = 0; c < 4; ++c) want += (r * 4 + c) % 5 > 2 ? (double)((r * 4 + c) % 5 - 2) : 0;
      if (rt_tensor_numel(y) != batch || rt_tensor_get_f64(y, r) != want) {
        st = RT_STATUS(INTERNAL, "batch %lld row %lld is %g, want %g", (long long)batch,
                       (long long)r, rt_tensor_get_f64(y, r), want);
      }
    }
    rt_tensor_release(x);
    x = NULL;
  }
  rt_executor_release(ex);
  rt_pass_context_release(ctx);
  return code_of(st);
}

static void test_alloc_fail_graph_specialize(void **state) {
  (void)state;
  static const char src[] = "#[version = \"0.0.5\"]\n"
                            "def @main(%x: Tensor[(?, 4), float32]) {\n"
                            "  %0 = nn.relu(%x);\n"
                            "  sum(%0, axis=[1])\n"
                            "}\n";
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(src, strlen(src), "dyn.relay", &m));
  fail_every_allocation("graph executor, `?` batch: create, run batch 2 and 3, release",
                        specialize_step, m, true);
  rt_module_release(m);
}

int main(void) {
  const char *src = getenv("RT_TEST_SRCDIR");
  if (!src) {
    fprintf(stderr, "RT_TEST_SRCDIR is not set\n");
    return 1;
  }
  snprintf(g_cnn, sizeof g_cnn, "%s/../examples/cnn.relay", src);
  snprintf(g_onnx, sizeof g_onnx, "%s/../fuzz/corpus/onnx/conv_with_strides_padding.onnx", src);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_alloc_fail_load_text),
      cmocka_unit_test(test_alloc_fail_load_onnx),
      cmocka_unit_test(test_alloc_fail_debug),
      cmocka_unit_test(test_alloc_fail_graph),
      cmocka_unit_test(test_alloc_fail_vm),
      cmocka_unit_test(test_alloc_fail_graph_specialize),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
