/* Host kernels (backend/host_kernel.c): a group the JIT does not compile,
 * run by the graph executor through its reference kernels. RoiAlign
 * (vision.roi_align, no JIT lowering) on run-time inputs: the graph
 * executor's output equals the hand-computed one and the debug
 * executor's, a JIT kernel after it still fuses and runs, get_source
 * marks the kernel `host` and refuses its LLVM IR, and the plan is not
 * exportable. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt/rt.h"
#include "test_util.h"

/* x = 0..15 as a 1x1x4x4 image; one roi, the whole pixel-centred square
 * (0.5, 0.5)-(2.5, 2.5) with aligned=True, i.e. pixel coordinates 0..2;
 * a 1x1 output with one sample at its centre (1, 1): x[1][1] = 5, plus 1. */
static const char kProgram[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 1, 4, 4), float32], %r: Tensor[(1, 5), float32]) {\n"
    "  %0 = vision.roi_align(%x, %r, pooled_size=[1, 1], spatial_scale=1f, sample_ratio=1, "
    "aligned=True);\n"
    "  add(%0, 1f)\n"
    "}\n";

static rt_tensor_t *run(rt_executor_t *ex, rt_tensor_t *x, rt_tensor_t *r) {
  assert_ok(rt_executor_set_input(ex, 0, x));
  assert_ok(rt_executor_set_input(ex, 1, r));
  assert_ok(rt_executor_run(ex));
  rt_tensor_t *o = NULL;
  assert_ok(rt_executor_get_output(ex, 0, &o));
  rt_tensor_retain(o);
  return o;
}

static void test_host_kernel_roi_align(void **state) {
  (void)state;
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(kProgram, strlen(kProgram), "roi.relay", &m));
  int64_t xs[4] = {1, 1, 4, 4}, rs[2] = {1, 5};
  rt_tensor_t *x = NULL, *r = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), (rt_dtype_t){kDLFloat, 32, 1}, 4, xs, &x));
  assert_ok(rt_tensor_create(rt_allocator_system(), (rt_dtype_t){kDLFloat, 32, 1}, 2, rs, &r));
  for (int i = 0; i < 16; ++i) ((float *)rt_tensor_data(x))[i] = (float)i;
  const float roi[5] = {0, 0.5f, 0.5f, 2.5f, 2.5f};
  memcpy(rt_tensor_data(r), roi, sizeof roi);
  rt_executor_t *graph = NULL, *debug = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, NULL, NULL, &graph));
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &debug));
  for (int run_i = 0; run_i < 2; ++run_i) {
    rt_tensor_t *g = run(graph, x, r), *d = run(debug, x, r);
    assert_int_equal(rt_tensor_numel(g), 1);
    assert_true(((const float *)rt_tensor_data(g))[0] == 6.0f);
    assert_true(((const float *)rt_tensor_data(d))[0] == 6.0f);
    rt_tensor_release(g);
    rt_tensor_release(d);
  }
  char *text = NULL;
  assert_ok(rt_executor_get_source(graph, "kernels", &text));
  assert_non_null(strstr(text, "(host: its reference kernels"));
  free(text);
  assert_status(rt_executor_get_source(graph, "ll:fused_vision_roi_align", &text), NOT_FOUND,
                "runs on the host");
  char path[] = "/tmp/relayrt-host-kernel-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_status(rt_executor_export(graph, path), FAILED_PRECONDITION,
                "run ops that have no compiled kernel on the host");
  unlink(path);
  rt_executor_release(graph);
  rt_executor_release(debug);
  rt_tensor_release(x);
  rt_tensor_release(r);
  rt_module_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_host_kernel_roi_align),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
