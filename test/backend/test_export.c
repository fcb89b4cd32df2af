/* Export (rt_executor_export, `relayrt build --emit=so`) and the
 * runtime-only loader (include/rt/artifact.h): the example CNN exported,
 * loaded and run gives the graph executor's and the interpreter's
 * outputs, through the API and through examples/deploy (a host linked
 * with librelayrt_runtime alone); a truncated, corrupted or foreign
 * library is a clear error; inputs are checked. Files go to a temporary
 * folder; the kernel cache is off (test setup). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt/artifact.h"
#include "rt/executor.h"
#include "test_util.h"
#include "jit/target.h"
#include "runtime/artifact_format.h"
#include "runtime/mem.h"

static char g_dir[256];

static void path_in(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", g_dir, name); }

static rt_module_t *load_cnn(void) {
  const char *src = getenv("RT_TEST_SRCDIR");
  char p[512];
  snprintf(p, sizeof p, "%s/../examples/cnn.relay", src ? src : "test");
  rt_module_t *m = NULL;
  assert_ok(rt_module_load(p, &m));
  return m;
}

static double max_diff(const rt_tensor_t *a, const rt_tensor_t *b) {
  assert_int_equal(rt_tensor_numel(a), rt_tensor_numel(b));
  double d = 0;
  for (int64_t i = 0; i < rt_tensor_numel(a); ++i) {
    d = fmax(d, fabs(rt_tensor_get_f64(a, i) - rt_tensor_get_f64(b, i)));
  }
  return d;
}

static rt_tensor_t *g_input, *g_want_graph, *g_want_debug;
static char g_so[512];

/* Runs the CNN under graph and debug, exports the graph executor. */
static int setup(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "/tmp/relayrt-export-test-XXXXXX");
  if (!mkdtemp(g_dir)) return 1;
  rt_module_t *m = load_cnn();
  rt_executor_t *g = NULL, *d = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, NULL, NULL, &g));
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &d));
  int64_t shape[4] = {1, 3, 16, 16};
  assert_ok(rt_tensor_create(rt_allocator_system(), (rt_dtype_t){kDLFloat, 32, 1}, 4, shape, &g_input));
  rt_tensor_fill_random(g_input, 7);
  assert_ok(rt_executor_set_input(g, 0, g_input));
  assert_ok(rt_executor_set_input(d, 0, g_input));
  assert_ok(rt_executor_run(g));
  assert_ok(rt_executor_run(d));
  rt_tensor_t *o = NULL;
  assert_ok(rt_executor_get_output(g, 0, &o));
  assert_ok(rt_tensor_clone(rt_allocator_system(), o, &g_want_graph));
  assert_ok(rt_executor_get_output(d, 0, &o));
  assert_ok(rt_tensor_clone(rt_allocator_system(), o, &g_want_debug));
  path_in(g_so, sizeof g_so, "cnn.so");
  assert_ok(rt_executor_export(g, g_so));
  assert_status(rt_executor_export(d, g_so), FAILED_PRECONDITION, "graph");
  rt_executor_release(g);
  rt_executor_release(d);
  rt_module_release(m);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rt_tensor_release(g_input);
  rt_tensor_release(g_want_graph);
  rt_tensor_release(g_want_debug);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  return system(cmd) == 0 ? 0 : 1;
}

static void test_export_round_trip(void **state) {
  (void)state;
  rt_artifact_t *a = NULL;
  assert_ok(rt_artifact_load(g_so, &a));
  assert_int_equal(rt_artifact_num_inputs(a), 1);
  assert_int_equal(rt_artifact_num_outputs(a), 1);
  rt_tensor_info_t in, out;
  assert_ok(rt_artifact_input_info(a, 0, &in));
  assert_string_equal(in.name, "data");
  assert_int_equal(in.rank, 4);
  assert_int_equal(in.shape[1], 3);
  assert_ok(rt_artifact_output_info(a, 0, &out));
  assert_string_equal(out.name, "output_0");
  assert_int_equal(out.shape[1], 10);
  int32_t idx = -1;
  assert_ok(rt_artifact_input_index(a, "data", &idx));
  assert_int_equal(idx, 0);
  assert_ok(rt_artifact_output_index(a, "output_0", &idx));
  assert_status(rt_artifact_input_index(a, "nope", &idx), NOT_FOUND, "inputs: data");
  assert_status(rt_artifact_input_info(a, 1, &in), OUT_OF_RANGE, NULL);
  for (int32_t threads = 0; threads <= 2; ++threads) {
    rt_artifact_runtime_t *r = NULL;
    assert_ok(rt_artifact_runtime_create(a, threads, &r));
    assert_status(rt_artifact_runtime_run(r), FAILED_PRECONDITION, "not set");
    assert_ok(rt_artifact_runtime_set_input_by_name(r, "data", g_input));
    for (int rep = 0; rep < 2; ++rep) {
      assert_ok(rt_artifact_runtime_run(r));
      rt_tensor_t *o = NULL;
      assert_ok(rt_artifact_runtime_output(r, 0, &o));
      /* The same kernels as the graph executor; the interpreter within
       * float tolerance. */
      assert_true(max_diff(o, g_want_graph) <= 1e-6);
      assert_true(max_diff(o, g_want_debug) <= 1e-4);
    }
    rt_artifact_runtime_release(r);
  }
  /* The runtime keeps the artifact alive. */
  rt_artifact_runtime_t *r = NULL;
  assert_ok(rt_artifact_runtime_create(a, 1, &r));
  rt_artifact_release(a);
  assert_ok(rt_artifact_runtime_set_input(r, 0, g_input));
  assert_ok(rt_artifact_runtime_run(r));
  rt_artifact_runtime_release(r);
}

typedef struct {
  rt_artifact_runtime_t *r;
  pthread_barrier_t *start; /* both threads begin together */
  int ok, refused, other;
  char other_msg[512];
} race_job;

static void *race_main(void *arg) {
  race_job *j = arg;
  pthread_barrier_wait(j->start);
  for (int i = 0; i < 2000; ++i) {
    rt_status_t st = (i % 4) ? rt_artifact_runtime_run(j->r)
                             : rt_artifact_runtime_set_input(j->r, 0, g_input);
    if (!st) {
      j->ok++;
    } else if (rt_status_code(st) == RT_STATUS_FAILED_PRECONDITION &&
               strstr(rt_status_message(st), "in use by another thread")) {
      j->refused++;
    } else {
      j->other++;
      snprintf(j->other_msg, sizeof j->other_msg, "%s", rt_status_message(st));
    }
    rt_status_free(st);
  }
  return NULL;
}

/* Two threads call one runtime in a loop: each call either runs or is
 * refused as in use (how many collide depends on timing and is not
 * asserted), nothing else happens, and the output is right afterwards. */
static void test_export_runtime_two_threads(void **state) {
  (void)state;
  rt_artifact_t *a = NULL;
  rt_artifact_runtime_t *r = NULL;
  assert_ok(rt_artifact_load(g_so, &a));
  assert_ok(rt_artifact_runtime_create(a, 1, &r));
  assert_ok(rt_artifact_runtime_set_input(r, 0, g_input));
  pthread_barrier_t start;
  assert_int_equal(pthread_barrier_init(&start, NULL, 2), 0);
  race_job jobs[2] = {{.r = r, .start = &start}, {.r = r, .start = &start}};
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) assert_int_equal(pthread_create(&t[i], NULL, race_main, &jobs[i]), 0);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&start);
  for (int i = 0; i < 2; ++i) {
    if (jobs[i].other) fail_msg("unexpected error: %s", jobs[i].other_msg);
    assert_int_equal(jobs[i].ok + jobs[i].refused, 2000);
  }
  printf("# two threads on one runtime: %d calls ran, %d refused as in use\n",
         jobs[0].ok + jobs[1].ok, jobs[0].refused + jobs[1].refused);
  assert_ok(rt_artifact_runtime_run(r));
  rt_tensor_t *o = NULL;
  assert_ok(rt_artifact_runtime_output(r, 0, &o));
  assert_true(max_diff(o, g_want_graph) <= 1e-6);
  rt_artifact_runtime_release(r);
  rt_artifact_release(a);
}

static void test_export_bad_input(void **state) {
  (void)state;
  rt_artifact_t *a = NULL;
  rt_artifact_runtime_t *r = NULL;
  assert_ok(rt_artifact_load(g_so, &a));
  assert_ok(rt_artifact_runtime_create(a, 1, &r));
  int64_t shape[4] = {1, 3, 16, 15};
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), (rt_dtype_t){kDLFloat, 32, 1}, 4, shape, &t));
  assert_status(rt_artifact_runtime_set_input(r, 0, t), INVALID_ARGUMENT,
                "input 'data' expects Tensor[(1, 3, 16, 16), float32], got Tensor[(1, 3, 16, 15), float32]");
  assert_status(rt_artifact_runtime_set_input(r, 3, t), OUT_OF_RANGE, NULL);
  assert_status(rt_artifact_runtime_set_input_by_name(r, "x", t), NOT_FOUND, "data");
  rt_tensor_t *o = NULL;
  assert_status(rt_artifact_runtime_output(r, 1, &o), OUT_OF_RANGE, NULL);
  rt_tensor_release(t);
  rt_artifact_runtime_release(r);
  rt_artifact_release(a);
}

static void test_export_corrupt(void **state) {
  (void)state;
  size_t n = 0;
  unsigned char *orig = (unsigned char *)rt_test_read_file(g_so, &n);
  unsigned char *b = rt_mem_alloc((size_t)n);
  assert_non_null(b);
  char p[512];
  rt_artifact_t *a = NULL;
  /* Truncated: the dynamic loader refuses it. */
  path_in(p, sizeof p, "truncated.so");
  rt_test_write_file(p, orig, n / 2);
  assert_status(rt_artifact_load(p, &a), DATA_LOSS, "cannot load the model library");
  /* Not a library at all. */
  path_in(p, sizeof p, "text.so");
  rt_test_write_file(p, (const unsigned char *)"hello", 5);
  assert_status(rt_artifact_load(p, &a), DATA_LOSS, "text.so");
  /* Bad magic. */
  long at = rt_test_find_bytes(orig, n, "RTARTIF", 8);
  assert_true(at > 0);
  memcpy(b, orig, (size_t)n);
  b[at + 1] = 'X';
  path_in(p, sizeof p, "magic.so");
  rt_test_write_file(p, b, n);
  assert_status(rt_artifact_load(p, &a), DATA_LOSS, "bad magic");
  /* Another format version, then another kernel ABI. */
  memcpy(b, orig, (size_t)n);
  b[at + 8] = 7;
  path_in(p, sizeof p, "version.so");
  rt_test_write_file(p, b, n);
  assert_status(rt_artifact_load(p, &a), FAILED_PRECONDITION, "format 7");
  memcpy(b, orig, (size_t)n);
  b[at + 12] = 9;
  path_in(p, sizeof p, "abi.so");
  rt_test_write_file(p, b, n);
  assert_status(rt_artifact_load(p, &a), FAILED_PRECONDITION, "kernel ABI 9");
  /* A changed plan byte or weight: the checksum. */
  long plan = rt_test_find_bytes(orig, n, "RTPLAN02", 8);
  assert_true(plan > 0);
  memcpy(b, orig, (size_t)n);
  b[plan + 12] ^= 1;
  path_in(p, sizeof p, "plan.so");
  rt_test_write_file(p, b, n);
  assert_status(rt_artifact_load(p, &a), DATA_LOSS, "checksum");
  long params = rt_test_find_bytes(orig, n, "\x3f\xa1\xb4\x96\xf0\x40\x5e\xdd", 8); /* NDArray magic, LE */
  assert_true(params > 0);
  memcpy(b, orig, (size_t)n);
  b[params + 80] ^= 0x10; /* a weight of the first constant */
  path_in(p, sizeof p, "params.so");
  rt_test_write_file(p, b, n);
  assert_status(rt_artifact_load(p, &a), DATA_LOSS, "checksum");
  path_in(p, sizeof p, "missing.so");
  assert_status(rt_artifact_load(p, &a), NOT_FOUND, "missing.so");
  assert_null(a);
  rt_mem_free(b);
  rt_mem_free(orig);
}

/* examples/deploy, linked with librelayrt_runtime only, on .npy files. */
static void test_export_deploy_host(void **state) {
  (void)state;
  const char *exe = getenv("RT_DEPLOY_EXE");
  if (!exe) skip();
  char in[512], out[512], cmd[2048];
  path_in(in, sizeof in, "input.npy");
  path_in(out, sizeof out, "output.npy");
  assert_ok(rt_npy_write_file(g_input, in));
  snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s' data > /dev/null", exe, g_so, in, out);
  assert_int_equal(system(cmd), 0);
  rt_tensor_t *got = NULL;
  assert_ok(rt_npy_read_file(rt_allocator_system(), out, &got));
  assert_true(max_diff(got, g_want_graph) <= 1e-6);
  rt_tensor_release(got);
  /* A clear error, exit status 1. */
  snprintf(cmd, sizeof cmd, "'%s' '%s/none.so' '%s' '%s' 2> /dev/null", exe, g_dir, in, out);
  int rc = system(cmd);
  assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
}

/* Executors share the process-wide JIT session: a second executor of the
 * same model, created while the first is alive, compiles nothing. */
static void test_export_executors_share_kernels(void **state) {
  (void)state;
  rt_module_t *m = load_cnn();
  rt_executor_t *a = NULL, *b = NULL;
  char *ta = NULL, *tb = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, NULL, NULL, &a));
  assert_ok(rt_create_executor("graph", m, NULL, NULL, NULL, &b));
  assert_ok(rt_executor_get_source(a, "kernels", &ta));
  assert_ok(rt_executor_get_source(b, "kernels", &tb));
  assert_non_null(strstr(ta, "kernel cache: 7 compiled, 0 shared in memory, 0 from disk"));
  assert_non_null(strstr(tb, "kernel cache: 0 compiled, 7 shared in memory, 0 from disk"));
  free(ta);
  free(tb);
  rt_executor_release(a);
  rt_executor_release(b);
  rt_module_release(m);
}

/* An export records its target: the host's by default; one exported for
 * jit.target=generic needs no ISA extension, loads and gives the graph
 * executor's output; and a library asking for an extension this CPU lacks
 * (or a name the loader does not know) is refused, naming it. */
static void test_export_records_target(void **state) {
  (void)state;
  rt_artifact_t *a = NULL;
  /* setup() exported with the default target ($RELAYRT_JIT_TARGET, else host). */
  rt_jit_target_t def;
  assert_ok(rt_jit_target_resolve(RT_JIT_TARGET_DEFAULT, &def));
  char want[32];
  snprintf(want, sizeof want, " %s ", rt_jit_target_name(&def));
  assert_ok(rt_artifact_load(g_so, &a));
  assert_non_null(strstr(rt_artifact_target(a), want));
  rt_artifact_release(a);

  rt_module_t *m = load_cnn();
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_set_config(ctx, "jit.target", "generic"));
  rt_executor_t *g = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, ctx, NULL, &g));
  char so[512];
  path_in(so, sizeof so, "cnn_generic.so");
  assert_ok(rt_executor_export(g, so));
  rt_executor_release(g);
  rt_pass_context_release(ctx);
  rt_module_release(m);
  assert_ok(rt_artifact_load(so, &a));
  assert_non_null(strstr(rt_artifact_target(a), " generic x86-64 "));
  rt_artifact_runtime_t *r = NULL;
  assert_ok(rt_artifact_runtime_create(a, 1, &r));
  assert_ok(rt_artifact_runtime_set_input(r, 0, g_input));
  assert_ok(rt_artifact_runtime_run(r));
  rt_tensor_t *o = NULL;
  assert_ok(rt_artifact_runtime_output(r, 0, &o));
  for (int64_t i = 0; i < rt_tensor_numel(o); ++i) {
    assert_true(fabs(rt_tensor_get_f64(o, i) - rt_tensor_get_f64(g_want_debug, i)) < 1e-5);
  }
  rt_artifact_runtime_release(r);
  rt_artifact_release(a);

  assert_ok(rt_artifact_check_isa("m.so", "t", ""));
  assert_status(rt_artifact_check_isa("m.so", "t", "sse4.2,avx9000"), FAILED_PRECONDITION,
                "avx9000");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_export_round_trip),
      cmocka_unit_test(test_export_bad_input),
      cmocka_unit_test(test_export_runtime_two_threads),
      cmocka_unit_test(test_export_corrupt),
      cmocka_unit_test(test_export_deploy_host),
      cmocka_unit_test(test_export_executors_share_kernels),
      cmocka_unit_test(test_export_records_target),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
