/* AlterOpLayout (passes/alter_op_layout.c) end to end: programs built
 * with the pass required, at block 8 and 16, run on the debug, graph and
 * vm executors and must give the outputs of the same program built
 * without it on the debug executor (the reference kernels on plain NCHW:
 * an oracle independent of the blocked kernels and lowerings). Also: the
 * pass is off by default, it did rewrite what each case expects, and the
 * small generated ONNX CNN in alter_op_layout/ (gen_model.py) agrees too.
 * Structure of the rewrite is the golden files' business
 * (golden/alter_op_layout_*.relay). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pass_test_util.h"
#include "passes/pass.h"
#include "test_util.h"
#include "runtime/mem.h"

/* A conv chain with bias + relu, a residual add, a strided depthwise conv
 * with ReLU6, a max pool, a 1x1 conv, a channel concatenate, a global
 * pool and the dense/softmax edge; the 3-channel stem stays NCHW. */
static const char kChain[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 3, 12, 12), float32]) {\n"
    "  %0 = sin(multiply(reshape(arange(0f, 432f, 1f), newshape=[16, 3, 3, 3]), 0.7f));\n"
    "  %1 = nn.conv2d(%x, %0, padding=[1, 1], channels=16, kernel_size=[3, 3]);\n"
    "  %2 = cos(arange(0f, 16f, 1f));\n"
    "  %3 = nn.bias_add(%1, %2);\n"
    "  %4 = nn.relu(%3);\n"
    "  %5 = sin(multiply(reshape(arange(0f, 2304f, 1f), newshape=[16, 16, 3, 3]), 0.37f));\n"
    "  %6 = nn.conv2d(%4, %5, padding=[1, 1], channels=16, kernel_size=[3, 3]);\n"
    "  %7 = add(%6, %4);\n"
    "  %8 = cos(multiply(reshape(arange(0f, 144f, 1f), newshape=[16, 1, 3, 3]), 0.9f));\n"
    "  %9 = nn.conv2d(%7, %8, strides=[2, 2], padding=[1, 1], groups=16, channels=16, kernel_size=[3, 3]);\n"
    "  %10 = clip(%9, a_min=0f, a_max=6f);\n"
    "  %11 = nn.max_pool2d(%10, pool_size=[3, 3], strides=[2, 2], padding=[1, 1]);\n"
    "  %12 = sin(multiply(reshape(arange(0f, 512f, 1f), newshape=[32, 16, 1, 1]), 0.13f));\n"
    "  %13 = nn.conv2d(%11, %12, channels=32, kernel_size=[1, 1]);\n"
    "  %14 = concatenate((%13, %11), axis=1);\n"
    "  %15 = nn.global_avg_pool2d(%14);\n"
    "  %16 = nn.batch_flatten(%15);\n"
    "  nn.softmax(%16)\n"
    "}\n";

/* Per-channel constants in both (C, 1, 1) and (1, C, 1, 1) shapes, an
 * avg pool, a squeeze-excite gate (global pool, 1x1 conv, sigmoid,
 * multiply by a non-constant (1, C, 1, 1)), a subtract of two blocked
 * tensors and a strided 3x3 conv; 32 channels, so block 16 applies. The
 * output stays 4-d (the transform back at the function's result). */
static const char kSqueeze[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(2, 32, 9, 9), float32]) {\n"
    "  %0 = sin(multiply(reshape(arange(0f, 9216f, 1f), newshape=[32, 32, 3, 3]), 0.11f));\n"
    "  %1 = nn.conv2d(%x, %0, padding=[1, 1], channels=32, kernel_size=[3, 3]);\n"
    "  %2 = cos(reshape(arange(0f, 32f, 1f), newshape=[32, 1, 1]));\n"
    "  %3 = multiply(%1, %2);\n"
    "  %4 = sin(reshape(arange(0f, 32f, 1f), newshape=[1, 32, 1, 1]));\n"
    "  %5 = add(%3, %4);\n"
    "  %6 = nn.avg_pool2d(%5, pool_size=[3, 3], strides=[1, 1], padding=[1, 1], count_include_pad=True);\n"
    "  %7 = nn.global_avg_pool2d(%6);\n"
    "  %8 = cos(multiply(reshape(arange(0f, 1024f, 1f), newshape=[32, 32, 1, 1]), 0.3f));\n"
    "  %9 = nn.conv2d(%7, %8, channels=32, kernel_size=[1, 1]);\n"
    "  %10 = sigmoid(%9);\n"
    "  %11 = multiply(%6, %10);\n"
    "  %12 = subtract(%11, %5);\n"
    "  %13 = sin(multiply(reshape(arange(0f, 4608f, 1f), newshape=[16, 32, 3, 3]), 0.05f));\n"
    "  nn.conv2d(%12, %13, strides=[2, 2], padding=[1, 1], channels=16, kernel_size=[3, 3])\n"
    "}\n";

/* 24 channels: blocked at 8, left alone at 16. */
static const char kTwentyFour[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 24, 7, 7), float32]) {\n"
    "  %0 = sin(multiply(reshape(arange(0f, 5184f, 1f), newshape=[24, 24, 3, 3]), 0.21f));\n"
    "  %1 = nn.conv2d(%x, %0, padding=[1, 1], channels=24, kernel_size=[3, 3]);\n"
    "  %2 = nn.relu(%1);\n"
    "  %3 = nn.max_pool2d(%2, pool_size=[2, 2], strides=[2, 2], ceil_mode=True);\n"
    "  %4 = sin(multiply(reshape(arange(0f, 4608f, 1f), newshape=[48, 24, 2, 2]), 0.08f));\n"
    "  nn.conv2d(%3, %4, strides=[2, 2], dilation=[1, 1], channels=48, kernel_size=[2, 2])\n"
    "}\n";

/* Opt level 3; Conv2dWinograd disabled unless `winograd` (AlterOpLayout
 * leaves the convolutions it takes NCHW). */
static rt_pass_context_t *make_ctx_w(int64_t block, bool require, bool winograd) {
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_set_opt_level(ctx, 3));
  assert_ok(rt_pass_context_set_config(ctx, "jit.disk_cache", "0"));
  if (!winograd) assert_ok(rt_pass_context_disable(ctx, "Conv2dWinograd"));
  if (require) {
    char b[24];
    snprintf(b, sizeof b, "%lld", (long long)block);
    assert_ok(rt_pass_context_require(ctx, "AlterOpLayout"));
    assert_ok(rt_pass_context_set_config(ctx, "alter_op_layout.block", b));
  }
  return ctx;
}

static rt_pass_context_t *make_ctx(int64_t block, bool require) { return make_ctx_w(block, require, false); }

/* How many times `needle` occurs in the module built under ctx. */
static int count_in_built(rt_module_t *m, const rt_pass_context_t *ctx, const char *needle) {
  rt_module_t *built = NULL;
  assert_ok(rt_module_build(m, ctx, &built));
  char *text = NULL;
  assert_ok(rt_module_print(built, RT_PRINT_NO_TYPES, &text));
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
  free(text);
  rt_module_release(built);
  return n;
}

/* m built with the pass at `block` runs on every executor as the
 * unrewritten m runs on the debug executor; `rewritten` says whether the
 * pass must have blocked something. */
static void check_module(rt_module_t *m, const char *what, int64_t block, bool rewritten) {
  rt_pass_context_t *plain = make_ctx(block, false), *ctx = make_ctx(block, true);
  char layout[32];
  snprintf(layout, sizeof layout, "\"NCHW%lldc\"", (long long)block);
  const int blocked = count_in_built(m, ctx, layout);
  if (rewritten != (blocked > 0)) {
    fail_msg("%s at block %lld: expected %s, found %s %d times", what, (long long)block,
             rewritten ? "a rewrite" : "no rewrite", layout, blocked);
  }
  /* Off by default: the same context without the requirement. */
  assert_int_equal(count_in_built(m, plain, "contrib_conv2d_NCHWc"), 0);
  pt_run_t ref, got;
  bool skipped = false;
  assert_ok(pt_run_main_on("debug", m, plain, 7, "", &ref, &skipped));
  assert_false(skipped);
  /* Float32 kernels against the double reference: the error of a sum
   * scales with its terms, not its result (the last conv of kSqueeze sums
   * terms of magnitude ~10 into outputs near 0.02), so the absolute
   * tolerance follows the output's largest magnitude, as the catalogue's
   * TOL_W does. */
  double big = 0;
  for (int32_t i = 0; i < ref.num_outputs; ++i) {
    for (int64_t k = 0; k < rt_tensor_numel(ref.outputs[i]); ++k) {
      const double v = fabs(rt_tensor_get_f64(ref.outputs[i], k));
      big = v > big ? v : big;
    }
  }
  const double atol = 1e-5 + 1e-5 * big;
  static const char *const kinds[] = {"debug", "graph", "vm"};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
    assert_ok(pt_run_main_on(kinds[k], m, ctx, 7, "", &got, &skipped));
    char msg[256];
    if (!pt_runs_match(&got, &ref, 1e-4, atol, msg, sizeof msg)) {
      fail_msg("%s, block %lld, %s executor: %s", what, (long long)block, kinds[k], msg);
    }
    pt_run_release(&got);
  }
  pt_run_release(&ref);
  rt_pass_context_release(plain);
  rt_pass_context_release(ctx);
}

static void check_text(const char *text, const char *what, int64_t block, bool rewritten) {
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(text, strlen(text), what, &m));
  check_module(m, what, block, rewritten);
  rt_module_release(m);
}

static void test_chain(void **state) {
  (void)state;
  check_text(kChain, "chain", 8, true);
  check_text(kChain, "chain", 16, true);
}

static void test_squeeze_excite(void **state) {
  (void)state;
  check_text(kSqueeze, "squeeze", 8, true);
  check_text(kSqueeze, "squeeze", 16, true);
}

static void test_channels_not_dividing(void **state) {
  (void)state;
  check_text(kTwentyFour, "twenty-four", 8, true);
  check_text(kTwentyFour, "twenty-four", 16, false);
}

static void test_onnx_model(void **state) {
  (void)state;
  rt_module_t *m = NULL;
  assert_ok(rt_module_load(rt_test_path("passes/alter_op_layout/model.onnx"), &m));
  check_module(m, "model.onnx", 8, true);
  check_module(m, "model.onnx", 16, true);
  rt_module_release(m);
}

/* With Conv2dWinograd after it, the pass leaves the stride-1 3x3
 * convolutions Winograd takes in NCHW (kChain's 16 -> 16 at 12x12: F(2x2)
 * on either width) and blocks the rest (the counts in the built module;
 * the outputs with the pass are check_module's business above). */
static void test_winograd_left_nchw(void **state) {
  (void)state;
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(kChain, strlen(kChain), "chain", &m));
  for (int64_t block = 8; block <= 16; block *= 2) {
    rt_pass_context_t *off = make_ctx_w(block, true, false), *on = make_ctx_w(block, true, true);
    const char *wg = "nn.contrib_conv2d_winograd_without_weight_transform(";
    assert_int_equal(count_in_built(m, off, wg), 0);
    assert_int_equal(count_in_built(m, on, wg), 1);
    const int blocked_off = count_in_built(m, off, "nn.contrib_conv2d_NCHWc(");
    const int blocked_on = count_in_built(m, on, "nn.contrib_conv2d_NCHWc(");
    assert_int_equal(blocked_on, blocked_off - 1);
    assert_true(blocked_on >= 1);
    rt_pass_context_release(off);
    rt_pass_context_release(on);
  }
  rt_module_release(m);
  /* rt_pass_context_runs: by level, required, disabled. */
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  assert_false(rt_pass_context_runs(ctx, "Conv2dWinograd")); /* opt_level 2 */
  assert_false(rt_pass_context_runs(NULL, "Conv2dWinograd"));
  assert_ok(rt_pass_context_set_opt_level(ctx, 3));
  assert_true(rt_pass_context_runs(ctx, "Conv2dWinograd"));
  assert_false(rt_pass_context_runs(ctx, "AlterOpLayout"));
  assert_ok(rt_pass_context_require(ctx, "AlterOpLayout"));
  assert_true(rt_pass_context_runs(ctx, "AlterOpLayout"));
  assert_ok(rt_pass_context_disable(ctx, "Conv2dWinograd"));
  assert_false(rt_pass_context_runs(ctx, "Conv2dWinograd"));
  assert_false(rt_pass_context_runs(ctx, "NoSuchPass"));
  rt_pass_context_release(ctx);
}

static void test_config(void **state) {
  (void)state;
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  int64_t v = -1;
  assert_ok(rt_pass_context_config_int(ctx, "alter_op_layout.block", &v));
  assert_int_equal(v, 0);
  assert_status(rt_pass_context_set_config(ctx, "alter_op_layout.block", "65"), INVALID_ARGUMENT,
                "expects an integer in 0..64");
  rt_pass_context_release(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain),
      cmocka_unit_test(test_squeeze_excite),
      cmocka_unit_test(test_channels_not_dividing),
      cmocka_unit_test(test_onnx_model),
      cmocka_unit_test(test_winograd_left_nchw),
      cmocka_unit_test(test_config),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
