/* The runner (runtime/runner.h) alone, with a callback for @main: the
 * input check (`?` dims, dtype, rank, a scalar in each API's words), the
 * index and NULL checks, "is not set", the busy guard (a second call is
 * refused with each API's message and changes nothing; a guarded call
 * runs in the scope of the executor's allocator), outputs before and
 * after a run, the result count check, and set_input dropping (executor)
 * or keeping (artifact) the last run's outputs. The messages are the
 * public APIs' (test_executor.c, test_vm_export.c check them end to end):
 * compared whole here. */
#include <string.h>

#include "runtime/mem.h"
#include "runtime/runner.h"
#include "test_util.h"

static void expect(rt_status_t st, rt_status_code_t code, const char *message) {
  assert_non_null(st);
  assert_int_equal(rt_status_code(st), code);
  assert_string_equal(rt_status_message(st), message);
  rt_status_free(st);
}

static const int64_t kAnyBy3[2] = {RT_DIM_ANY, 3};
static const rt_tensor_info_t kInputs[2] = {
    {"x", {kDLFloat, 32, 1}, 2, kAnyBy3},
    {"s", {kDLFloat, 32, 1}, 0, NULL},
};

static rt_tensor_t *tensor(rt_dtype_t dt, int32_t rank, const int64_t *shape) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), dt, rank, shape, &t));
  return t;
}

/* @main: returns its first argument `want` times (0 = a wrong count). */
typedef struct {
  int32_t want;
  rt_runner_t *reenter;        /* when set: try to enter it from inside */
  rt_status_t reenter_status;
  rt_allocator_t current;      /* the allocator in force during the call */
} call_state;

static rt_status_t call(void *user, int32_t nargs, rt_tensor_t *const *args, int32_t max_outs,
                        rt_tensor_t **outs, int32_t *out_count) {
  call_state *cs = user;
  cs->current = rt_mem_current();
  if (cs->reenter) cs->reenter_status = rt_runner_enter(cs->reenter, "run");
  assert_true(nargs == 2 && cs->want <= max_outs);
  for (int32_t i = 0; i < cs->want; ++i) {
    rt_tensor_retain(args[0]);
    outs[i] = args[0];
  }
  *out_count = cs->want;
  return RT_OK;
}

static void test_runner_input_check(void **state) {
  (void)state;
  for (int api = 0; api < 2; ++api) {
    rt_runner_t r;
    assert_ok(rt_runner_initialize(&r, (rt_runner_api_t)api, "graph", NULL, 2, kInputs, 1));
    const bool ex = api == RT_RUNNER_API_EXECUTOR;
    rt_tensor_t *ok = tensor(RT_DTYPE_FLOAT32, 2, (const int64_t[]){7, 3});
    rt_tensor_t *bad = tensor(RT_DTYPE_FLOAT32, 2, (const int64_t[]){7, 4});
    rt_tensor_t *i32 = tensor(RT_DTYPE_INT32, 2, (const int64_t[]){7, 3});
    rt_tensor_t *vec = tensor(RT_DTYPE_FLOAT32, 1, (const int64_t[]){2});
    rt_tensor_t *scalar = tensor(RT_DTYPE_FLOAT32, 0, NULL);
    assert_ok(rt_runner_check_input(&r, 0, ok));
    expect(rt_runner_check_input(&r, 0, bad), RT_STATUS_INVALID_ARGUMENT,
           "input 'x' expects Tensor[(?, 3), float32], got Tensor[(7, 4), float32]");
    expect(rt_runner_check_input(&r, 0, i32), RT_STATUS_INVALID_ARGUMENT,
           "input 'x' expects Tensor[(?, 3), float32], got Tensor[(7, 3), int32]");
    expect(rt_runner_check_input(&r, 1, vec), RT_STATUS_INVALID_ARGUMENT,
           ex ? "input 's' expects float32, got Tensor[(2), float32]"
              : "input 's' expects Tensor[(), float32], got Tensor[(2), float32]");
    expect(rt_runner_check_input(&r, 0, scalar), RT_STATUS_INVALID_ARGUMENT,
           ex ? "input 'x' expects Tensor[(?, 3), float32], got float32"
              : "input 'x' expects Tensor[(?, 3), float32], got Tensor[(), float32]");
    expect(rt_runner_set_input(&r, 2, ok), RT_STATUS_OUT_OF_RANGE,
           ex ? "input 2 does not exist (the executor has 2)"
              : "input 2 does not exist (the model has 2)");
    expect(rt_runner_set_input(&r, 0, NULL), RT_STATUS_INVALID_ARGUMENT,
           "input 'x': tensor is NULL");
    expect(rt_runner_set_input(&r, 0, bad), RT_STATUS_INVALID_ARGUMENT,
           "input 'x' expects Tensor[(?, 3), float32], got Tensor[(7, 4), float32]");
    expect(rt_runner_inputs_ready(&r), RT_STATUS_FAILED_PRECONDITION, "input 'x' is not set");
    assert_ok(rt_runner_set_input(&r, 0, ok));
    expect(rt_runner_inputs_ready(&r), RT_STATUS_FAILED_PRECONDITION, "input 's' is not set");
    assert_ok(rt_runner_set_input(&r, 1, scalar));
    assert_ok(rt_runner_inputs_ready(&r));
    rt_runner_deinitialize(&r);
    rt_tensor_release(ok);
    rt_tensor_release(bad);
    rt_tensor_release(i32);
    rt_tensor_release(vec);
    rt_tensor_release(scalar);
  }
}

static void test_runner_busy_guard(void **state) {
  (void)state;
  rt_test_alloc_t counts;
  memset(&counts, 0, sizeof counts);
  counts.fail_at = -1;
  rt_allocator_t mine = rt_test_allocator(&counts);
  for (int api = 0; api < 2; ++api) {
    const bool ex = api == RT_RUNNER_API_EXECUTOR;
    rt_runner_t r;
    assert_ok(rt_runner_initialize(&r, (rt_runner_api_t)api, "debug", ex ? &mine : NULL, 2,
                                   kInputs, 1));
    call_state cs = {1, NULL, RT_OK, {0}};
    rt_runner_use_call(&r, call, &cs);
    rt_tensor_t *x = tensor(RT_DTYPE_FLOAT32, 2, (const int64_t[]){1, 3});
    rt_tensor_t *s = tensor(RT_DTYPE_FLOAT32, 0, NULL);
    assert_ok(rt_runner_enter(&r, "set_input"));
    /* A second call while one is inside: refused, nothing changes. */
    expect(rt_runner_enter(&r, "run"), RT_STATUS_FAILED_PRECONDITION,
           ex ? "rt_executor_run: the debug executor is in use by another thread (or a step "
                "callback): an executor runs one call at a time; use one executor per thread, "
                "or serialize the calls"
              : "rt_artifact_runtime_run: the runtime is in use by another thread: a runtime "
                "runs one call at a time; use one runtime per thread (many may share one "
                "artifact), or serialize the calls");
    assert_ok(rt_runner_set_input(&r, 0, x));
    assert_ok(rt_runner_set_input(&r, 1, s));
    rt_runner_leave(&r);
    /* A call from inside the run (a step callback) is refused too. */
    cs.reenter = &r;
    assert_ok(rt_runner_enter(&r, "run"));
    assert_ok(rt_runner_run(&r));
    rt_runner_leave(&r);
    assert_non_null(cs.reenter_status);
    assert_int_equal(rt_status_code(cs.reenter_status), RT_STATUS_FAILED_PRECONDITION);
    rt_status_free(cs.reenter_status);
    /* The executor's guarded calls run in its allocator's scope. */
    assert_true(cs.current.self == (ex ? mine.self : rt_allocator_system().self));
    assert_true(rt_mem_current().self == rt_allocator_system().self);
    /* Free again: a new call gets in. */
    assert_ok(rt_runner_enter(&r, "get_output"));
    rt_runner_leave(&r);
    rt_runner_deinitialize(&r);
    rt_tensor_release(x);
    rt_tensor_release(s);
  }
  assert_int_equal(counts.live_allocations, 0);
}

static void test_runner_outputs(void **state) {
  (void)state;
  for (int api = 0; api < 2; ++api) {
    const bool ex = api == RT_RUNNER_API_EXECUTOR;
    rt_runner_t r;
    assert_ok(rt_runner_initialize(&r, (rt_runner_api_t)api, "debug", NULL, 2, kInputs, 2));
    call_state cs = {2, NULL, RT_OK, {0}};
    rt_runner_use_call(&r, call, &cs);
    rt_tensor_t *x = tensor(RT_DTYPE_FLOAT32, 2, (const int64_t[]){4, 3});
    rt_tensor_t *s = tensor(RT_DTYPE_FLOAT32, 0, NULL);
    rt_tensor_t *out = NULL;
    const char *no_outputs = ex ? "no outputs: run the executor first"
                                : "no outputs yet: run the model first (or its last run failed)";
    expect(rt_runner_output(&r, 0, &out), RT_STATUS_FAILED_PRECONDITION, no_outputs);
    expect(rt_runner_output(&r, 2, &out), RT_STATUS_OUT_OF_RANGE,
           ex ? "output 2 does not exist (the executor has 2)"
              : "output 2 does not exist (the model has 2)");
    assert_ok(rt_runner_set_input(&r, 0, x));
    assert_ok(rt_runner_set_input(&r, 1, s));
    assert_ok(rt_runner_run(&r));
    assert_ok(rt_runner_output(&r, 1, &out));
    assert_ptr_equal(out, x);
    /* set_input: the executor drops the outputs, the artifact keeps them. */
    assert_ok(rt_runner_set_input(&r, 1, s));
    if (ex) {
      expect(rt_runner_output(&r, 0, &out), RT_STATUS_FAILED_PRECONDITION, no_outputs);
    } else {
      assert_ok(rt_runner_output(&r, 0, &out));
      assert_ptr_equal(out, x);
    }
    /* A result of the wrong size: an internal error, and no outputs. */
    cs.want = 1;
    expect(rt_runner_run(&r), RT_STATUS_INTERNAL,
           ex ? "@main returned 1 tensors, its type says 2"
              : "@main returned 1 outputs, the signature has 2");
    expect(rt_runner_output(&r, 0, &out), RT_STATUS_FAILED_PRECONDITION, no_outputs);
    rt_runner_deinitialize(&r);
    rt_tensor_release(x);
    rt_tensor_release(s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_runner_input_check),
      cmocka_unit_test(test_runner_busy_guard),
      cmocka_unit_test(test_runner_outputs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
