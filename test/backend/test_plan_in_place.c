/* The graph executor's plan in place (backend/graph.c): a concatenate
 * along an axis with only 1s before it, of intermediates it alone reads,
 * each starting on a 64-byte boundary, becomes a "__nop" node whose
 * inputs' producers write into its output's slabs; chains of them add
 * offsets; anything else keeps its copy. A kernel's output takes the
 * storage of an input it reads only through element-wise tail ops, where
 * that input dies there (a residual); an input read any other way, or
 * read later, keeps its own. Every case checks the plan (graph-json's
 * "__nop" nodes, storage ids and offsets, the kernels the profile lists)
 * and the values against the debug executor (the reference), after a run
 * and after a profile (which calls each kernel twice), and one exports
 * the plan and runs it through the runtime-only loader. The last case
 * checks where a tensor sits in a larger block it reuses: in the middle
 * (graph.c, step 4). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt/artifact.h"
#include "rt/executor.h"
#include "rt/pass.h"
#include "test_util.h"

static rt_module_t *parse(const char *body) {
  char src[8192];
  snprintf(src, sizeof src, "#[version = \"0.0.5\"]\n%s", body);
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(src, strlen(src), "t.relay", &m));
  return m;
}

static rt_tensor_t *g_inputs[8];
static int32_t g_num_inputs;

static void release_inputs(void) {
  for (int32_t i = 0; i < g_num_inputs; ++i) rt_tensor_release(g_inputs[i]);
  g_num_inputs = 0;
}

static int count_of(const char *text, const char *what) {
  int n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
  return n;
}

/* Output 0 of graph executor g against debug executor d's, within tol
 * relative and as much absolute (`when` names the moment in a failure). */
static void expect_same_output(rt_executor_t *g, rt_executor_t *d, const char *when, double tol) {
  rt_tensor_t *go = NULL, *dout = NULL;
  assert_ok(rt_executor_get_output(g, 0, &go));
  assert_ok(rt_executor_get_output(d, 0, &dout));
  assert_int_equal(rt_tensor_numel(go), rt_tensor_numel(dout));
  for (int64_t i = 0; i < rt_tensor_numel(go); ++i) {
    const double a = rt_tensor_get_f64(go, i), b = rt_tensor_get_f64(dout, i);
    if (fabs(a - b) > tol + tol * fabs(b)) {
      fail_msg("%s, element %lld: graph %g, debug %g", when, (long long)i, a, b);
    }
  }
}

/* The graph executor of `m` (fuse.max_depth as given, 0 = default) run on
 * seeded random inputs, against the debug executor (within tol); its
 * graph JSON to *json (caller frees), its profiled kernel count to
 * *kernels. */
static rt_executor_t *run_both(rt_module_t *m, int64_t max_depth, double tol, char **json, int32_t *kernels) {
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  if (max_depth > 0) {
    char v[16];
    snprintf(v, sizeof v, "%lld", (long long)max_depth);
    assert_ok(rt_pass_context_set_config(ctx, "fuse.max_depth", v));
  }
  rt_executor_t *g = NULL, *d = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, ctx, NULL, &g));
  assert_ok(rt_create_executor("debug", m, NULL, ctx, NULL, &d));
  rt_pass_context_release(ctx);
  const int32_t n = rt_executor_num_inputs(g);
  assert_true(n <= 8);
  for (int32_t i = 0; i < n; ++i) {
    rt_tensor_info_t info;
    assert_ok(rt_executor_input_info(g, i, &info));
    rt_tensor_t *t = NULL;
    assert_ok(rt_tensor_create(rt_allocator_system(), info.dtype, info.rank, info.shape, &t));
    rt_tensor_fill_random(t, (uint64_t)(11 + i));
    assert_ok(rt_executor_set_input(g, i, t));
    assert_ok(rt_executor_set_input(d, i, t));
    g_inputs[i] = t;
  }
  g_num_inputs = n;
  assert_ok(rt_executor_run(g));
  assert_ok(rt_executor_run(d));
  expect_same_output(g, d, "after a run", tol);
  assert_ok(rt_executor_get_source(g, "graph-json", json));
  rt_node_profile_t nodes[16];
  assert_ok(rt_executor_profile(g, 1, 16, nodes, kernels));
  for (int32_t k = 0; k < *kernels && k < 16; ++k) assert_null(strstr(nodes[k].kernel, "__nop"));
  /* The profile calls every kernel twice (warm_ms): the producers written
   * in place store the same slabs again, the output is unchanged. */
  expect_same_output(g, d, "after the profile", tol);
  rt_executor_release(d);
  return g;
}

/* run_both on the program `body`, the executor, module and inputs
 * released: its graph JSON to *json (caller frees). */
static void plan_of(const char *body, int64_t max_depth, double tol, char **json, int32_t *kernels) {
  rt_module_t *m = parse(body);
  rt_executor_t *g = run_both(m, max_depth, tol, json, kernels);
  rt_executor_release(g);
  rt_module_release(m);
  release_inputs();
}

/* Two dense outputs (1, 16) concatenated into (1, 32): slabs at bytes 0
 * and 64; the concatenate runs nothing, the three denses remain. */
static const char kFire[] =
    "def @main(%x1: Tensor[(1, 8), float32], %x2: Tensor[(1, 8), float32],\n"
    "          %w1: Tensor[(16, 8), float32], %w2: Tensor[(16, 8), float32],\n"
    "          %w3: Tensor[(4, 32), float32]) {\n"
    "  %0 = nn.dense(%x1, %w1);\n"
    "  %1 = nn.dense(%x2, %w2);\n"
    "  %2 = concatenate((%0, %1), axis=1);\n"
    "  nn.dense(%2, %w3)\n"
    "}\n";

static void test_concat_in_place_slabs(void **state) {
  (void)state;
  rt_module_t *m = parse(kFire);
  char *json = NULL;
  int32_t kernels = 0;
  rt_executor_t *g = run_both(m, 0, 1e-5, &json, &kernels);
  assert_int_equal(count_of(json, "\"name\": \"__nop\""), 1);
  assert_int_equal(kernels, 3);
  /* Entries in node order: 5 inputs, dense, dense, the concatenate, dense;
   * the second dense's output sits 64 bytes into the concatenate's. */
  assert_non_null(strstr(json, "\"storage_offset\": [\"list_int\", [0, 0, 0, 0, 0, 0, 64, 0, 0]]"));
  free(json);

  /* Exported and run by the runtime-only loader: the same values. */
  char dir[] = "/tmp/relayrt-concat-test-XXXXXX", so[256];
  assert_non_null(mkdtemp(dir));
  snprintf(so, sizeof so, "%s/fire.so", dir);
  assert_ok(rt_executor_export(g, so));
  rt_artifact_t *a = NULL;
  rt_artifact_runtime_t *r = NULL;
  assert_ok(rt_artifact_load(so, &a));
  assert_ok(rt_artifact_runtime_create(a, 2, &r));
  for (int32_t i = 0; i < g_num_inputs; ++i) assert_ok(rt_artifact_runtime_set_input(r, i, g_inputs[i]));
  assert_ok(rt_artifact_runtime_run(r));
  rt_tensor_t *want = NULL, *got = NULL;
  assert_ok(rt_executor_get_output(g, 0, &want));
  assert_ok(rt_artifact_runtime_output(r, 0, &got));
  for (int64_t i = 0; i < rt_tensor_numel(want); ++i) {
    assert_true(rt_tensor_get_f64(got, i) == rt_tensor_get_f64(want, i));
  }
  rt_artifact_runtime_release(r);
  rt_artifact_release(a);
  unlink(so);
  rmdir(dir);
  rt_executor_release(g);
  rt_module_release(m);
  release_inputs();
}

/* With one op per group, concatenate((concatenate((a, b)), c)) is two
 * concatenations in place: a at byte 0, b at 64 (its offset in the inner
 * one), c at 128, all in the outer one's storage. */
static void test_concat_in_place_chain(void **state) {
  (void)state;
  int32_t kernels = 0;
  char *json = NULL;
  plan_of(
      "def @main(%x: Tensor[(1, 8), float32], %w1: Tensor[(16, 8), float32],\n"
      "          %w2: Tensor[(16, 8), float32], %w3: Tensor[(16, 8), float32],\n"
      "          %w4: Tensor[(4, 48), float32]) {\n"
      "  %0 = nn.dense(%x, %w1);\n"
      "  %1 = nn.dense(%x, %w2);\n"
      "  %2 = concatenate((%0, %1), axis=1);\n"
      "  %3 = nn.dense(%x, %w3);\n"
      "  %4 = concatenate((%2, %3), axis=1);\n"
      "  nn.dense(%4, %w4)\n"
      "}\n",
      1, 1e-5, &json, &kernels);
  assert_int_equal(count_of(json, "\"name\": \"__nop\""), 2);
  assert_int_equal(kernels, 4);
  /* 5 inputs, dense, dense, concatenate, dense, concatenate, dense. */
  assert_non_null(strstr(json, "[0, 0, 0, 0, 0, 0, 64, 0, 128, 0, 0]"));
  free(json);
}

/* Concatenations that keep their copy: an input read twice, a batch of
 * 2 (the slabs interleave), slabs off a 64-byte boundary (12 bytes), and
 * a concatenate that is the model's output (its own tensor). */
static void test_concat_in_place_refused(void **state) {
  (void)state;
  static const char *const kCases[] = {
      "def @main(%x: Tensor[(1, 8), float32], %w1: Tensor[(16, 8), float32],\n"
      "          %w2: Tensor[(16, 8), float32], %w3: Tensor[(4, 32), float32],\n"
      "          %w4: Tensor[(4, 16), float32]) {\n"
      "  %0 = nn.dense(%x, %w1);\n"
      "  %1 = nn.dense(%x, %w2);\n"
      "  %2 = concatenate((%0, %1), axis=1);\n"
      "  %3 = nn.dense(%2, %w3);\n"
      "  %4 = nn.dense(%0, %w4);\n"
      "  add(%3, %4)\n"
      "}\n",
      "def @main(%x: Tensor[(2, 8), float32], %w1: Tensor[(16, 8), float32],\n"
      "          %w2: Tensor[(16, 8), float32], %w3: Tensor[(4, 32), float32]) {\n"
      "  %0 = nn.dense(%x, %w1);\n"
      "  %1 = nn.dense(%x, %w2);\n"
      "  %2 = concatenate((%0, %1), axis=1);\n"
      "  nn.dense(%2, %w3)\n"
      "}\n",
      "def @main(%x: Tensor[(1, 8), float32], %w1: Tensor[(3, 8), float32],\n"
      "          %w2: Tensor[(3, 8), float32], %w3: Tensor[(4, 6), float32]) {\n"
      "  %0 = nn.dense(%x, %w1);\n"
      "  %1 = nn.dense(%x, %w2);\n"
      "  %2 = concatenate((%0, %1), axis=1);\n"
      "  nn.dense(%2, %w3)\n"
      "}\n",
      "def @main(%x: Tensor[(1, 8), float32], %w1: Tensor[(16, 8), float32],\n"
      "          %w2: Tensor[(16, 8), float32]) {\n"
      "  %0 = nn.dense(%x, %w1);\n"
      "  %1 = nn.dense(%x, %w2);\n"
      "  concatenate((%0, %1), axis=1)\n"
      "}\n",
  };
  static const int32_t kKernels[] = {6, 4, 4, 3};
  for (size_t c = 0; c < sizeof kCases / sizeof kCases[0]; ++c) {
    int32_t kernels = 0;
    char *json = NULL;
    plan_of(kCases[c], 1, 1e-5, &json, &kernels);
    if (count_of(json, "__nop") != 0) fail_msg("case %zu: a concatenate ran in place", c);
    assert_int_equal(kernels, kKernels[c]);
    free(json);
  }
}

/* %2 (64 bytes) reuses %0's block (1024 bytes, free once the second
 * dense has read it; %1's block is still read by the third dense): it
 * sits at (1024 - 64) / 2 = 480 rounded down to 64 bytes, 448. */
static void test_plan_tensor_centered(void **state) {
  (void)state;
  int32_t kernels = 0;
  char *json = NULL;
  plan_of(
      "def @main(%x: Tensor[(1, 64), float32], %w1: Tensor[(256, 64), float32],\n"
      "          %w2: Tensor[(64, 256), float32], %w3: Tensor[(16, 64), float32],\n"
      "          %w4: Tensor[(8, 16), float32]) {\n"
      "  %0 = nn.relu(nn.dense(%x, %w1));\n"
      "  %1 = nn.relu(nn.dense(%0, %w2));\n"
      "  %2 = nn.relu(nn.dense(%1, %w3));\n"
      "  nn.dense(%2, %w4)\n"
      "}\n",
      0, 1e-5, &json, &kernels);
  assert_int_equal(kernels, 4);
  /* Entries: 5 inputs, %0, %1, %2, the output (its own tensor). */
  if (!strstr(json, "\"storage_offset\": [\"list_int\", [0, 0, 0, 0, 0, 0, 0, 448, 0]]")) {
    fail_msg("storage offsets: %s", strstr(json, "\"storage_offset\""));
  }
  free(json);
}

/* The storage id of entry `entry` in graph JSON `json`. */
static int storage_of(const char *json, int entry) {
  const char *p = strstr(json, "\"storage_id\": [\"list_int\", [");
  assert_non_null(p);
  p = strchr(p, '[');
  p = strchr(p + 1, '[') + 1;
  for (int i = 0; i < entry; ++i) {
    p = strchr(p, ',');
    assert_non_null(p);
    p++;
  }
  return atoi(p);
}

/* A residual block: %0 dies in the kernel of conv2d(%1) + %0 (a 1x1 with
 * a bias, a 3x3; dense(%1) * %0), which reads it only through its tail
 * ops: that kernel's output takes %0's storage, never %1's. */
static void test_output_over_residual(void **state) {
  (void)state;
  static const char *const kCases[] = {
      "def @main(%x: Tensor[(1, 16, 12, 12), float32], %w1: Tensor[(16, 16, 3, 3), float32],\n"
      "          %w2: Tensor[(16, 16, 3, 3), float32], %w3: Tensor[(32, 16, 1, 1), float32],\n"
      "          %w4: Tensor[(32, 32, 1, 1), float32], %b: Tensor[(32, 1, 1), float32]) {\n"
      "  %0 = nn.relu(nn.conv2d(%x, %w3, channels=32, kernel_size=[1, 1]));\n"
      "  %1 = nn.relu(nn.conv2d(%x, %w1, padding=[1, 1], channels=16, kernel_size=[3, 3]));\n"
      "  %2 = nn.relu(add(add(nn.conv2d(%1, %w3, channels=32, kernel_size=[1, 1]), %b), %0));\n"
      "  nn.conv2d(%2, %w4, channels=32, kernel_size=[1, 1])\n"
      "}\n",
      "def @main(%x: Tensor[(1, 16, 12, 12), float32], %w1: Tensor[(16, 16, 1, 1), float32],\n"
      "          %w2: Tensor[(16, 16, 3, 3), float32], %w3: Tensor[(16, 16, 1, 1), float32],\n"
      "          %w4: Tensor[(16, 16, 1, 1), float32], %b: Tensor[(16, 1, 1), float32]) {\n"
      "  %0 = nn.relu(nn.conv2d(%x, %w1, channels=16, kernel_size=[1, 1]));\n"
      "  %1 = nn.relu(nn.conv2d(%x, %w3, channels=16, kernel_size=[1, 1]));\n"
      "  %2 = nn.relu(add(nn.conv2d(%1, %w2, padding=[1, 1], channels=16, kernel_size=[3, 3]), %0));\n"
      "  nn.conv2d(%2, %w4, channels=16, kernel_size=[1, 1])\n"
      "}\n",
      "def @main(%x: Tensor[(8, 64), float32], %w1: Tensor[(48, 64), float32], %w2: Tensor[(48, 64), float32],\n"
      "          %w3: Tensor[(48, 48), float32], %w4: Tensor[(48, 48), float32], %b: Tensor[(48), float32]) {\n"
      "  %0 = nn.relu(nn.dense(%x, %w1));\n"
      "  %1 = nn.relu(nn.dense(%x, %w2));\n"
      "  %2 = multiply(nn.bias_add(nn.dense(%1, %w3), %b), %0);\n"
      "  nn.dense(%2, %w4)\n"
      "}\n",
  };
  for (size_t c = 0; c < sizeof kCases / sizeof kCases[0]; ++c) {
    /* Three convolutions in a chain over up to 144 taps each, summed in
     * float32 in another order than the reference's: 1e-4 (the same
     * cases read 1.4e-5 off with the output in its own storage). */
    int32_t kernels = 0;
    char *json = NULL;
    plan_of(kCases[c], 0, 1e-4, &json, &kernels);
    assert_int_equal(kernels, 4);
    /* Entries: 6 inputs, then the nodes as the plan's post-order walk
     * meets them: %1 (the convolution's input), %0, %2, the output. */
    if (storage_of(json, 8) != storage_of(json, 7)) fail_msg("case %zu: the output of %%2 has its own storage", c);
    if (storage_of(json, 8) == storage_of(json, 6)) fail_msg("case %zu: %%2 took its convolution's input's storage", c);
    free(json);
  }
}

/* Outputs that keep their own storage: the residual read again later,
 * read by the convolution as well (its input), read transposed (an
 * injective op: element (i, j) from (j, i)), or of another type (a
 * broadcast channel vector). */
static void test_output_over_input_refused(void **state) {
  (void)state;
  static const char *const kCases[] = {
      "def @main(%x: Tensor[(1, 16, 8, 8), float32], %w1: Tensor[(16, 16, 1, 1), float32],\n"
      "          %w2: Tensor[(16, 16, 1, 1), float32], %w3: Tensor[(16, 16, 1, 1), float32]) {\n"
      "  %0 = nn.relu(nn.conv2d(%x, %w1, channels=16, kernel_size=[1, 1]));\n"
      "  %1 = nn.relu(nn.conv2d(%x, %w2, channels=16, kernel_size=[1, 1]));\n"
      "  %2 = add(nn.conv2d(%1, %w3, channels=16, kernel_size=[1, 1]), %0);\n"
      "  %3 = nn.conv2d(%2, %w3, channels=16, kernel_size=[1, 1]);\n"
      "  add(%3, %0)\n"
      "}\n",
      "def @main(%x: Tensor[(1, 16, 8, 8), float32], %w1: Tensor[(16, 16, 1, 1), float32],\n"
      "          %w2: Tensor[(16, 16, 3, 3), float32], %w3: Tensor[(16, 16, 1, 1), float32]) {\n"
      "  %0 = nn.relu(nn.conv2d(%x, %w1, channels=16, kernel_size=[1, 1]));\n"
      "  %1 = add(nn.conv2d(%0, %w2, padding=[1, 1], channels=16, kernel_size=[3, 3]), %0);\n"
      "  %2 = nn.conv2d(%1, %w3, channels=16, kernel_size=[1, 1]);\n"
      "  nn.conv2d(%2, %w3, channels=16, kernel_size=[1, 1])\n"
      "}\n",
      "def @main(%x: Tensor[(1, 16, 8, 8), float32], %w1: Tensor[(16, 16, 1, 1), float32],\n"
      "          %w2: Tensor[(16, 16, 1, 1), float32], %w3: Tensor[(16, 16, 1, 1), float32]) {\n"
      "  %0 = nn.relu(nn.conv2d(%x, %w1, channels=16, kernel_size=[1, 1]));\n"
      "  %1 = nn.relu(nn.conv2d(%x, %w2, channels=16, kernel_size=[1, 1]));\n"
      "  %2 = add(nn.conv2d(%1, %w3, channels=16, kernel_size=[1, 1]), transpose(%0, axes=[0, 1, 3, 2]));\n"
      "  nn.conv2d(%2, %w3, channels=16, kernel_size=[1, 1])\n"
      "}\n",
      "def @main(%x: Tensor[(1, 16, 8, 8), float32], %w1: Tensor[(16, 16, 1, 1), float32],\n"
      "          %w2: Tensor[(16, 16, 1, 1), float32], %w3: Tensor[(16, 16, 1, 1), float32]) {\n"
      "  %0 = mean(nn.conv2d(%x, %w1, channels=16, kernel_size=[1, 1]), axis=[2, 3], keepdims=True);\n"
      "  %1 = nn.relu(nn.conv2d(%x, %w2, channels=16, kernel_size=[1, 1]));\n"
      "  %2 = add(nn.conv2d(%1, %w3, channels=16, kernel_size=[1, 1]), %0);\n"
      "  nn.conv2d(%2, %w3, channels=16, kernel_size=[1, 1])\n"
      "}\n",
  };
  /* The entry of the kernel output that must keep its own storage, and
   * the residual's (entries: 4 inputs, then the nodes as the plan's
   * post-order walk meets them). */
  static const int kOut[] = {6, 5, 6, 6}, kRes[] = {5, 4, 5, 5};
  for (size_t c = 0; c < sizeof kCases / sizeof kCases[0]; ++c) {
    int32_t kernels = 0;
    char *json = NULL;
    plan_of(kCases[c], 0, 1e-5, &json, &kernels);
    if (storage_of(json, kOut[c]) == storage_of(json, kRes[c])) {
      fail_msg("case %zu: an output took the storage of an input it may not", c);
    }
    free(json);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plan_tensor_centered),
      cmocka_unit_test(test_concat_in_place_slabs),
      cmocka_unit_test(test_concat_in_place_chain),
      cmocka_unit_test(test_concat_in_place_refused),
      cmocka_unit_test(test_output_over_residual),
      cmocka_unit_test(test_output_over_input_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
