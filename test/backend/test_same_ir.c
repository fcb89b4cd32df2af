/* One pipeline for every executor (no executor or API gets different code for
 * the same opt_level): under one pass context, the debug, graph and vm
 * executors see the same optimized IR —
 * rt_executor_get_source(ex, "pipeline") prints identically — and give the
 * same outputs. Run over every corpus program and the example CNN;
 * graph is skipped (and counted) where it refuses a program (control flow,
 * `?` dims), as its contract says. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"
#include "test_util.h"
#include "runtime/mem.h"

static const char *const kKinds[] = {"debug", "graph", "vm"};

static bool tensor_inputs_static(rt_executor_t *ex) {
  for (int32_t i = 0; i < rt_executor_num_inputs(ex); ++i) {
    rt_tensor_info_t info;
    rt_status_free(rt_executor_input_info(ex, i, &info));
    for (int32_t d = 0; d < info.rank; ++d) {
      if (info.shape[d] < 0) return false;
    }
  }
  return true;
}

/* Runs ex on seeded inputs; outs get new references. */
static rt_status_t run(rt_executor_t *ex, rt_tensor_t **outs, int32_t *nouts) {
  for (int32_t i = 0; i < rt_executor_num_inputs(ex); ++i) {
    rt_tensor_info_t info;
    RT_RETURN_IF_ERROR(rt_executor_input_info(ex, i, &info));
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(rt_tensor_create(rt_allocator_system(), info.dtype, info.rank, info.shape, &t));
    rt_tensor_fill_random(t, 1000u + (uint64_t)i);
    rt_status_t st = rt_executor_set_input(ex, i, t);
    rt_tensor_release(t);
    RT_RETURN_IF_ERROR(st);
  }
  RT_RETURN_IF_ERROR(rt_executor_run(ex));
  *nouts = rt_executor_num_outputs(ex);
  for (int32_t o = 0; o < *nouts; ++o) {
    RT_RETURN_IF_ERROR(rt_executor_get_output(ex, o, &outs[o]));
    rt_tensor_retain(outs[o]);
  }
  return RT_OK;
}

static bool close_enough(const rt_tensor_t *a, const rt_tensor_t *b) {
  if (!rt_dtype_equal(rt_tensor_dtype(a), rt_tensor_dtype(b)) || rt_tensor_numel(a) != rt_tensor_numel(b)) {
    return false;
  }
  bool fp = rt_dtype_is_float(rt_tensor_dtype(a));
  for (int64_t i = 0; i < rt_tensor_numel(a); ++i) {
    double x = rt_tensor_get_f64(a, i), y = rt_tensor_get_f64(b, i);
    if (isnan(x) && isnan(y)) continue;
    if (fp ? fabs(x - y) > 1e-4 * fabs(x) + 1e-5 : x != y) return false;
  }
  return true;
}

/* Returns 1 when graph refused the program, 2 when no executor can take
 * its inputs (non-tensor params), 0 otherwise. */
static int check_program(const char *path, int32_t opt_level) {
  rt_module_t *m = NULL;
  assert_ok(rt_module_load(path, &m));
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_set_opt_level(ctx, opt_level));
  char *ir[3] = {0};
  rt_tensor_t *outs[3][16] = {{0}};
  int32_t nouts[3] = {0};
  int refused = 0;
  bool runnable = true;
  for (int k = 0; k < 3; ++k) {
    rt_executor_t *ex = NULL;
    rt_status_t st = rt_create_executor(kKinds[k], m, NULL, ctx, NULL, &ex);
    if (st && k == 0 && strstr(rt_status_message(st), "executors take tensor inputs")) {
      /* A @main taking a tuple cannot be fed through the executor API. */
      rt_status_free(st);
      refused = 2;
      break;
    }
    if (st && k == 1 && rt_status_code(st) == RT_STATUS_INVALID_ARGUMENT &&
        strstr(rt_status_message(st), "graph executor does not run")) {
      rt_status_free(st);
      refused = 1;
      continue;
    }
    if (st) print_error("%s: %s executor: %s\n", path, kKinds[k], rt_status_message(st));
    assert_ok(st);
    assert_ok(rt_executor_get_source(ex, "pipeline", &ir[k]));
    if (k == 0) runnable = tensor_inputs_static(ex) && rt_executor_num_outputs(ex) <= 16;
    if (runnable) {
      st = run(ex, outs[k], &nouts[k]);
      if (st) print_error("%s: %s executor run: %s\n", path, kKinds[k], rt_status_message(st));
      assert_ok(st);
    }
    rt_executor_release(ex);
  }
  for (int k = 1; k < 3; ++k) {
    if (!ir[k]) continue;
    if (strcmp(ir[0], ir[k]) != 0) {
      print_error("%s: the %s executor saw different IR than debug at opt_level %d\n", path,
                  kKinds[k], (int)opt_level);
      fail();
    }
    if (!runnable) continue;
    assert_int_equal(nouts[k], nouts[0]);
    for (int32_t o = 0; o < nouts[0]; ++o) {
      if (!close_enough(outs[0][o], outs[k][o])) {
        print_error("%s: output %d of %s differs from debug\n", path, (int)o, kKinds[k]);
        fail();
      }
    }
  }
  for (int k = 0; k < 3; ++k) {
    free(ir[k]);
    for (int32_t o = 0; o < nouts[k]; ++o) rt_tensor_release(outs[k][o]);
  }
  rt_pass_context_release(ctx);
  rt_module_release(m);
  return refused;
}

static void test_same_ir_corpus_and_example(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", rt_test_path("ir/corpus"));
  DIR *d = opendir(dir);
  assert_non_null(d);
  int programs = 0, refused = 0, skipped = 0;
  struct dirent *ent;
  while ((ent = readdir(d))) {
    size_t n = strlen(ent->d_name);
    if (n < 7 || strcmp(ent->d_name + n - 6, ".relay") != 0) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    int r = check_program(path, 2);
    if (r == 2) {
      skipped++;
    } else {
      refused += r;
      programs++;
    }
  }
  closedir(d);
  char cnn[4096];
  snprintf(cnn, sizeof cnn, "%s", rt_test_path("../examples/cnn.relay"));
  for (int32_t level = 0; level <= 4; ++level) refused += check_program(cnn, level);
  print_message("%d corpus programs (%d skipped: non-tensor params) and the example at 5 levels; "
                "graph refused %d\n", programs, skipped, refused);
  assert_true(programs >= 40);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_ir_corpus_and_example),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
