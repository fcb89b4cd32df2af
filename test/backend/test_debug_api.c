/* The executor calls a debugger needs (include/rt/executor.h), as
 * `relayrt repl` uses them: stepping into fused groups
 * (rt_executor_set_step_into_fused), an executor for one binding of main
 * (rt_create_executor_for_binding) on every executor kind, and the graph
 * executor's per-node profile (rt_executor_profile). Expected values are
 * computed by hand in the comments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/executor.h"
#include "test_util.h"

/* x = [-3, -1, 0, 2]: %0 = x + 1 = [-2, 0, 1, 3]; %1 = 2 * %0 = [-4, 0, 2, 6];
 * result relu(%1) = [0, 0, 2, 6]. At opt_level 2 FuseOps makes one group. */
static const char kProgram[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(4), float32]) {\n"
    "  %0 = add(%x, 1f);\n"
    "  %1 = multiply(%0, 2f);\n"
    "  nn.relu(%1)\n"
    "}\n";

static rt_module_t *parse(void) {
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(kProgram, strlen(kProgram), "t.relay", &m));
  return m;
}

static rt_tensor_t *input_x(void) {
  static const float x[4] = {-3, -1, 0, 2};
  int64_t shape[1] = {4};
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, shape, &t));
  memcpy(rt_tensor_data(t), x, sizeof x);
  return t;
}

static void expect_values(const rt_tensor_t *t, const float *want) {
  assert_int_equal(rt_tensor_numel(t), 4);
  const float *got = rt_tensor_data((rt_tensor_t *)t);
  for (int i = 0; i < 4; ++i) assert_true(got[i] == want[i]);
}

typedef struct {
  int before, after, inside;
  int32_t inside_depth;
  float v0[4]; /* %0's value, seen inside the group */
  bool have_v0;
} events;

static rt_status_t on_step(void *user, const rt_step_event_t *ev) {
  events *e = user;
  if (ev->after) {
    e->after++;
    if (ev->in_fused && strncmp(ev->text, "%0 = ", 5) == 0 && ev->num_tensors == 1) {
      memcpy(e->v0, rt_tensor_data(ev->tensors[0]), sizeof e->v0);
      e->have_v0 = true;
    }
  } else {
    e->before++;
  }
  if (ev->in_fused) {
    e->inside++;
    e->inside_depth = ev->call_depth;
  }
  return RT_OK;
}

static void test_debug_api_step_into_fused(void **state) {
  (void)state;
  rt_module_t *m = parse();
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ex));
  rt_tensor_t *x = input_x();
  assert_ok(rt_executor_set_input(ex, 0, x));
  events e = {0};
  assert_ok(rt_executor_set_step_callback(ex, on_step, &e));
  /* By default the group is one step: one call, before and after. */
  assert_ok(rt_executor_run(ex));
  assert_int_equal(e.before, 1);
  assert_int_equal(e.after, 1);
  assert_int_equal(e.inside, 0);
  /* Stepping in: the call, then add, multiply, relu inside at depth 1. */
  memset(&e, 0, sizeof e);
  assert_ok(rt_executor_set_step_into_fused(ex, true));
  assert_ok(rt_executor_run(ex));
  assert_int_equal(e.before, 4);
  assert_int_equal(e.after, 4);
  assert_int_equal(e.inside, 6);
  assert_int_equal(e.inside_depth, 1);
  assert_true(e.have_v0);
  static const float v0[4] = {-2, 0, 1, 3};
  for (int i = 0; i < 4; ++i) assert_true(e.v0[i] == v0[i]);
  rt_tensor_t *out = NULL;
  assert_ok(rt_executor_get_output(ex, 0, &out));
  static const float result[4] = {0, 0, 2, 6};
  expect_values(out, result);
  /* Only the debug executor steps. */
  rt_executor_t *vm = NULL;
  assert_ok(rt_create_executor("vm", m, NULL, NULL, NULL, &vm));
  assert_status(rt_executor_set_step_into_fused(vm, true), UNIMPLEMENTED, "debug");
  rt_executor_release(vm);
  rt_tensor_release(x);
  rt_executor_release(ex);
  rt_module_release(m);
}

static void test_debug_api_executor_for_binding(void **state) {
  (void)state;
  rt_module_t *m = parse();
  rt_tensor_t *x = input_x();
  static const float v0[4] = {-2, 0, 1, 3}, v1[4] = {-4, 0, 2, 6};
  const char *const kinds[3] = {"debug", "graph", "vm"};
  for (int k = 0; k < 3; ++k) {
    for (int32_t level = 0; level <= 3; level += 3) {
      rt_pass_context_t *ctx = NULL;
      assert_ok(rt_pass_context_create(&ctx));
      assert_ok(rt_pass_context_set_opt_level(ctx, level));
      for (int b = 0; b < 2; ++b) {
        rt_executor_t *ex = NULL;
        assert_ok(rt_create_executor_for_binding(kinds[k], m, b ? "%1" : "0", NULL, ctx, NULL, &ex));
        assert_int_equal(rt_executor_num_inputs(ex), 1);
        assert_int_equal(rt_executor_num_outputs(ex), 1);
        assert_ok(rt_executor_set_input_by_name(ex, "x", x));
        assert_ok(rt_executor_run(ex));
        rt_tensor_t *out = NULL;
        assert_ok(rt_executor_get_output(ex, 0, &out));
        expect_values(out, b ? v1 : v0);
        rt_executor_release(ex);
      }
      rt_pass_context_release(ctx);
    }
  }
  rt_executor_t *ex = NULL;
  assert_status(rt_create_executor_for_binding("graph", m, "%7", NULL, NULL, NULL, &ex), NOT_FOUND,
                "no binding %7");
  assert_status(rt_create_executor_for_binding("graph", m, "%", NULL, NULL, NULL, &ex),
                INVALID_ARGUMENT, "expected a binding");
  assert_status(rt_create_executor_for_binding("nosuch", m, "%1", NULL, NULL, NULL, &ex),
                INVALID_ARGUMENT, "%1");
  assert_null(ex);
  rt_tensor_release(x);
  rt_module_release(m);
}

static void test_debug_api_profile(void **state) {
  (void)state;
  rt_module_t *m = parse();
  rt_executor_t *ex = NULL, *dbg = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, NULL, NULL, &ex));
  rt_node_profile_t nodes[4];
  int32_t n = -1;
  assert_status(rt_executor_profile(ex, 2, 4, nodes, &n), FAILED_PRECONDITION, "input 'x'");
  rt_tensor_t *x = input_x();
  assert_ok(rt_executor_set_input(ex, 0, x));
  assert_status(rt_executor_profile(ex, 0, 4, nodes, &n), INVALID_ARGUMENT, "runs");
  assert_ok(rt_executor_profile(ex, 3, 4, nodes, &n));
  assert_int_equal(n, 1); /* one fused group, one node */
  assert_true(strncmp(nodes[0].kernel, "fused_", 6) == 0);
  assert_non_null(strstr(nodes[0].type, "Tensor[(4), float32]"));
  assert_true(nodes[0].min_ms >= 0 && nodes[0].min_ms <= nodes[0].mean_ms);
  /* The second call of each run was timed too (after the last run's
   * second call the outputs below are still right). */
  assert_true(nodes[0].warm_ms > 0);
  /* Four elements: too small to split, one task on the caller. */
  assert_int_equal(nodes[0].tasks, 1);
  assert_true(nodes[0].balance == 1.0);
  /* The outputs are the last run's. */
  rt_tensor_t *out = NULL;
  assert_ok(rt_executor_get_output(ex, 0, &out));
  static const float result[4] = {0, 0, 2, 6};
  expect_values(out, result);
  /* Counting only. */
  assert_ok(rt_executor_profile(ex, 1, 0, NULL, &n));
  assert_int_equal(n, 1);
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &dbg));
  assert_status(rt_executor_profile(dbg, 1, 4, nodes, &n), FAILED_PRECONDITION, "graph");
  rt_executor_release(dbg);
  rt_tensor_release(x);
  rt_executor_release(ex);
  rt_module_release(m);
}

/* A kernel big enough to split over a pool of 3 threads (the pool's size
 * is the config's, whatever the machine): it reports 3 tasks and a balance
 * in (0, 1]; on one thread, 1 task. */
static void test_debug_api_profile_tasks(void **state) {
  (void)state;
  static const char kBig[] =
      "#[version = \"0.0.5\"]\n"
      "def @main(%a: Tensor[(256, 512), float32], %b: Tensor[(384, 512), float32]) {\n"
      "  nn.relu(nn.dense(%a, %b))\n"
      "}\n";
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(kBig, strlen(kBig), "big.relay", &m));
  const int64_t sa[2] = {256, 512}, sb[2] = {384, 512}; /* zero-filled */
  rt_tensor_t *a = NULL, *b = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, sa, &a));
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, sb, &b));
  for (int threads = 1; threads <= 3; threads += 2) {
    rt_pass_context_t *ctx = NULL;
    assert_ok(rt_pass_context_create(&ctx));
    char v[8];
    snprintf(v, sizeof v, "%d", threads);
    assert_ok(rt_pass_context_set_config(ctx, "runtime.num_threads", v));
    rt_executor_t *ex = NULL;
    assert_ok(rt_create_executor("graph", m, NULL, ctx, NULL, &ex));
    assert_ok(rt_executor_set_input(ex, 0, a));
    assert_ok(rt_executor_set_input(ex, 1, b));
    rt_node_profile_t node;
    int32_t n = 0;
    assert_ok(rt_executor_profile(ex, 2, 1, &node, &n));
    assert_int_equal(n, 1);
    assert_int_equal(node.tasks, threads);
    assert_true(node.balance > 0 && node.balance <= 1.0);
    rt_executor_release(ex);
    rt_pass_context_release(ctx);
  }
  rt_tensor_release(a);
  rt_tensor_release(b);
  rt_module_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_debug_api_step_into_fused),
      cmocka_unit_test(test_debug_api_executor_for_binding),
      cmocka_unit_test(test_debug_api_profile),
      cmocka_unit_test(test_debug_api_profile_tasks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
