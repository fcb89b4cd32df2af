/* The "debug" executor through the public executor API: every IR construct
 * (recursion, closures, if, tuples, let), dynamic shapes, params bound at
 * creation, invoke of any global, and the errors of bad use. Expected values
 * are computed by hand in the comments. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/target.h"
#include "passes/pass.h"
#include "rt/executor.h"
#include "test_util.h"

static rt_module_t *parse(const char *body) {
  char src[8192];
  snprintf(src, sizeof src, "#[version = \"0.0.5\"]\n%s", body);
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(src, strlen(src), "t.relay", &m));
  return m;
}

static rt_executor_t *debug_exec(rt_module_t *m) {
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ex));
  return ex;
}

static rt_tensor_t *tensor_f32(int32_t rank, const int64_t *shape, const float *data) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, rank, shape, &t));
  memcpy(rt_tensor_data(t), data, rt_tensor_nbytes(t));
  return t;
}

static rt_tensor_t *scalar_i32(int32_t v) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_INT32, 0, NULL, &t));
  memcpy(rt_tensor_data(t), &v, 4);
  return t;
}

static int32_t out_i32(rt_executor_t *ex, int32_t i) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_executor_get_output(ex, i, &t));
  int32_t v;
  memcpy(&v, rt_tensor_data(t), 4);
  return v;
}

static const char kFact[] =
    "def @fact(%n: int32) -> int32 {\n"
    "  %0 = equal(%n, 0);\n"
    "  if (%0) {\n"
    "    1\n"
    "  } else {\n"
    "    %1 = subtract(%n, 1);\n"
    "    %2 = @fact(%1);\n"
    "    multiply(%n, %2)\n"
    "  }\n"
    "}\n"
    "def @main(%n: int32) -> int32 {\n"
    "  @fact(%n)\n"
    "}\n";

static void test_executor_factorial(void **state) {
  (void)state;
  rt_module_t *m = parse(kFact);
  rt_executor_t *ex = debug_exec(m);
  assert_int_equal(rt_executor_num_inputs(ex), 1);
  assert_int_equal(rt_executor_num_outputs(ex), 1);
  rt_tensor_t *n = scalar_i32(10);
  assert_ok(rt_executor_set_input_by_name(ex, "n", n));
  assert_ok(rt_executor_run(ex));
  assert_int_equal(out_i32(ex, 0), 3628800); /* 10! */
  /* invoke any global: fact(5) = 120 */
  rt_tensor_t *five = scalar_i32(5), *outs[2] = {0};
  int32_t nouts = 0;
  assert_ok(rt_executor_invoke(ex, "fact", 1, &five, 2, outs, &nouts));
  assert_int_equal(nouts, 1);
  int32_t v;
  memcpy(&v, rt_tensor_data(outs[0]), 4);
  assert_int_equal(v, 120);
  rt_tensor_release(outs[0]);
  rt_tensor_release(five);
  rt_tensor_release(n);
  rt_executor_release(ex);
  rt_module_release(m);
}

static void test_executor_recursion_depth_limit(void **state) {
  (void)state;
  /* Unbounded recursion is an error, not a crash. */
  rt_module_t *m = parse("def @f(%n: int32) -> int32 {\n  @f(%n)\n}\n"
                         "def @main(%n: int32) -> int32 {\n  @f(%n)\n}\n");
  rt_executor_t *ex = debug_exec(m);
  rt_tensor_t *n = scalar_i32(1);
  assert_ok(rt_executor_set_input(ex, 0, n));
  assert_status(rt_executor_run(ex), RESOURCE_EXHAUSTED, "call depth limit");
  rt_tensor_release(n);
  rt_executor_release(ex);
  rt_module_release(m);
}

static void test_executor_loop_as_tail_recursion(void **state) {
  (void)state;
  /* sum_{i=1..n} i via @loop(i, acc): n=100 -> 5050. */
  rt_module_t *m = parse(
      "def @loop(%i: int32, %acc: int32) -> int32 {\n"
      "  %0 = greater(%i, 0);\n"
      "  if (%0) {\n"
      "    %1 = subtract(%i, 1);\n"
      "    %2 = add(%acc, %i);\n"
      "    @loop(%1, %2)\n"
      "  } else {\n"
      "    %acc\n"
      "  }\n"
      "}\n"
      "def @main(%n: int32) -> int32 {\n  @loop(%n, 0)\n}\n");
  rt_executor_t *ex = debug_exec(m);
  rt_tensor_t *n = scalar_i32(100);
  assert_ok(rt_executor_set_input(ex, 0, n));
  assert_ok(rt_executor_run(ex));
  assert_int_equal(out_i32(ex, 0), 5050);
  rt_tensor_release(n);
  rt_executor_release(ex);
  rt_module_release(m);
}

static void test_executor_mutual_recursion(void **state) {
  (void)state;
  /* is_even(7) via is_even/is_odd: 7 is odd -> False. */
  rt_module_t *m = parse(
      "def @is_even(%n: int32) -> bool {\n"
      "  %0 = equal(%n, 0);\n"
      "  if (%0) { True } else { %1 = subtract(%n, 1); @is_odd(%1) }\n"
      "}\n"
      "def @is_odd(%n: int32) -> bool {\n"
      "  %0 = equal(%n, 0);\n"
      "  if (%0) { False } else { %1 = subtract(%n, 1); @is_even(%1) }\n"
      "}\n"
      "def @main(%n: int32) -> (bool, bool) {\n"
      "  %0 = @is_even(%n);\n"
      "  %1 = @is_odd(%n);\n"
      "  (%0, %1)\n"
      "}\n");
  rt_executor_t *ex = debug_exec(m);
  assert_int_equal(rt_executor_num_outputs(ex), 2);
  rt_tensor_t *n = scalar_i32(7);
  assert_ok(rt_executor_set_input(ex, 0, n));
  assert_ok(rt_executor_run(ex));
  rt_tensor_t *a = NULL, *b = NULL;
  assert_ok(rt_executor_get_output(ex, 0, &a));
  assert_ok(rt_executor_get_output(ex, 1, &b));
  assert_int_equal(*(uint8_t *)rt_tensor_data(a), 0);
  assert_int_equal(*(uint8_t *)rt_tensor_data(b), 1);
  rt_tensor_release(n);
  rt_executor_release(ex);
  rt_module_release(m);
}

static void test_executor_closures(void **state) {
  (void)state;
  /* @make_adder(x) returns fn (y) { y + x }; main applies it: (1,2,3) + 10. */
  rt_module_t *m = parse(
      "def @make_adder(%x: Tensor[(3), float32]) -> fn (Tensor[(3), float32]) -> Tensor[(3), float32] {\n"
      "  fn (%y: Tensor[(3), float32]) -> Tensor[(3), float32] {\n"
      "    add(%y, %x)\n"
      "  }\n"
      "}\n"
      "def @main(%a: Tensor[(3), float32], %b: Tensor[(3), float32]) -> Tensor[(3), float32] {\n"
      "  %0 = @make_adder(%b);\n"
      "  %0(%a)\n"
      "}\n");
  rt_executor_t *ex = debug_exec(m);
  int64_t shape[1] = {3};
  float av[3] = {1, 2, 3}, bv[3] = {10, 10, 10};
  rt_tensor_t *a = tensor_f32(1, shape, av), *b = tensor_f32(1, shape, bv);
  assert_ok(rt_executor_set_input(ex, 0, a));
  assert_ok(rt_executor_set_input(ex, 1, b));
  assert_ok(rt_executor_run(ex));
  rt_tensor_t *o = NULL;
  assert_ok(rt_executor_get_output(ex, 0, &o));
  const float *ov = rt_tensor_data(o);
  assert_true(ov[0] == 11.0f && ov[1] == 12.0f && ov[2] == 13.0f);
  /* A global returning a closure cannot come back through invoke. */
  rt_tensor_t *outs[1] = {0};
  int32_t n = 0;
  assert_status(rt_executor_invoke(ex, "make_adder", 1, &b, 1, outs, &n), INVALID_ARGUMENT,
                "closure");
  rt_tensor_release(a);
  rt_tensor_release(b);
  rt_executor_release(ex);
  rt_module_release(m);
}

static void test_executor_if_on_computed_condition(void **state) {
  (void)state;
  /* if (sum(x) > 0) { x * 2 } else { negative(x) }. */
  rt_module_t *m = parse(
      "def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {\n"
      "  %0 = sum(%x);\n"
      "  %1 = greater(%0, 0f);\n"
      "  if (%1) {\n"
      "    multiply(%x, 2f)\n"
      "  } else {\n"
      "    negative(%x)\n"
      "  }\n"
      "}\n");
  rt_executor_t *ex = debug_exec(m);
  int64_t shape[1] = {2};
  float pos[2] = {1, 2}, neg[2] = {-3, 1};
  rt_tensor_t *p = tensor_f32(1, shape, pos), *q = tensor_f32(1, shape, neg), *o = NULL;
  assert_ok(rt_executor_set_input(ex, 0, p));
  assert_ok(rt_executor_run(ex));
  assert_ok(rt_executor_get_output(ex, 0, &o));
  assert_true(((float *)rt_tensor_data(o))[0] == 2.0f && ((float *)rt_tensor_data(o))[1] == 4.0f);
  assert_ok(rt_executor_set_input(ex, 0, q));
  assert_ok(rt_executor_run(ex));
  assert_ok(rt_executor_get_output(ex, 0, &o));
  assert_true(((float *)rt_tensor_data(o))[0] == 3.0f && ((float *)rt_tensor_data(o))[1] == -1.0f);
  rt_tensor_release(p);
  rt_tensor_release(q);
  rt_executor_release(ex);
  rt_module_release(m);
}

static void test_executor_let_and_tuples(void **state) {
  (void)state;
  /* let t = (x, x+1); (t.1, t.0 * t.1) with x = 3: (4, 12). */
  rt_module_t *m = parse(
      "def @main(%x: int32) {\n"
      "  let %t = (%x, add(%x, 1));\n"
      "  %0 = %t.1;\n"
      "  %1 = %t.0;\n"
      "  %2 = multiply(%1, %0);\n"
      "  (%0, %2)\n"
      "}\n");
  rt_executor_t *ex = debug_exec(m);
  rt_tensor_t *x = scalar_i32(3);
  assert_ok(rt_executor_set_input(ex, 0, x));
  assert_ok(rt_executor_run(ex));
  assert_int_equal(out_i32(ex, 0), 4);
  assert_int_equal(out_i32(ex, 1), 12);
  rt_tensor_release(x);
  rt_executor_release(ex);
  rt_module_release(m);
}

static void test_executor_dynamic_batch(void **state) {
  (void)state;
  /* (?, 2) dense with weight (3, 2) = [[1,0],[0,1],[1,1]]: row (a, b) -> (a, b, a+b). */
  rt_module_t *m = parse(
      "def @main(%x: Tensor[(?, 2), float32], %w: Tensor[(3, 2), float32]) {\n"
      "  nn.dense(%x, %w)\n"
      "}\n");
  rt_executor_t *ex = debug_exec(m);
  rt_tensor_info_t info;
  assert_ok(rt_executor_input_info(ex, 0, &info));
  assert_string_equal(info.name, "x");
  assert_int_equal(info.shape[0], RT_DIM_ANY);
  int64_t ws[2] = {3, 2};
  float wv[6] = {1, 0, 0, 1, 1, 1};
  rt_tensor_t *w = tensor_f32(2, ws, wv);
  assert_ok(rt_executor_set_input(ex, 1, w));
  for (int64_t batch = 1; batch <= 3; ++batch) {
    int64_t xs[2] = {batch, 2};
    float xv[6] = {1, 2, 3, 4, 5, 6};
    rt_tensor_t *x = tensor_f32(2, xs, xv), *o = NULL;
    assert_ok(rt_executor_set_input(ex, 0, x));
    assert_ok(rt_executor_run(ex));
    assert_ok(rt_executor_get_output(ex, 0, &o));
    assert_int_equal(rt_tensor_shape(o)[0], batch);
    assert_int_equal(rt_tensor_shape(o)[1], 3);
    const float *ov = rt_tensor_data(o);
    for (int64_t r = 0; r < batch; ++r) {
      assert_true(ov[r * 3 + 0] == xv[r * 2]);
      assert_true(ov[r * 3 + 1] == xv[r * 2 + 1]);
      assert_true(ov[r * 3 + 2] == xv[r * 2] + xv[r * 2 + 1]);
    }
    rt_tensor_release(x);
  }
  rt_tensor_release(w);
  rt_executor_release(ex);
  rt_module_release(m);
}

static void test_executor_params_bound_before_passes(void **state) {
  (void)state;
  rt_module_t *m = parse(
      "def @main(%x: Tensor[(2), float32], %w: Tensor[(2), float32]) {\n"
      "  multiply(%x, %w)\n"
      "}\n");
  rt_params_t *params = NULL;
  assert_ok(rt_params_create(rt_allocator_system(), &params));
  int64_t shape[1] = {2};
  float wv[2] = {3, 4}, xv[2] = {5, 6};
  rt_tensor_t *w = tensor_f32(1, shape, wv), *x = tensor_f32(1, shape, xv);
  assert_ok(rt_params_set(params, "w", w));
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, NULL, params, &ex));
  /* w is now a constant: one input left. */
  assert_int_equal(rt_executor_num_inputs(ex), 1);
  assert_ok(rt_executor_set_input(ex, 0, x));
  assert_ok(rt_executor_run(ex));
  rt_tensor_t *o = NULL;
  assert_ok(rt_executor_get_output(ex, 0, &o));
  assert_true(((float *)rt_tensor_data(o))[0] == 15.0f && ((float *)rt_tensor_data(o))[1] == 24.0f);
  rt_executor_release(ex);
  /* A param that is not a parameter of main, and one of the wrong type. */
  rt_params_t *bad = NULL;
  assert_ok(rt_params_create(rt_allocator_system(), &bad));
  assert_ok(rt_params_set(bad, "nope", w));
  assert_status(rt_create_executor("debug", m, NULL, NULL, bad, &ex), INVALID_ARGUMENT,
                "param 'nope' is not a parameter of @main (its parameters: x, w)");
  rt_params_release(bad);
  assert_ok(rt_params_create(rt_allocator_system(), &bad));
  rt_tensor_t *s = scalar_i32(1);
  assert_ok(rt_params_set(bad, "w", s));
  assert_status(rt_create_executor("debug", m, NULL, NULL, bad, &ex), INVALID_ARGUMENT,
                "param 'w': @main expects Tensor[(2), float32], the params give int32");
  rt_tensor_release(s);
  rt_params_release(bad);
  rt_params_release(params);
  rt_tensor_release(w);
  rt_tensor_release(x);
  rt_module_release(m);
}

static void test_executor_bad_use(void **state) {
  (void)state;
  rt_module_t *m = parse("def @main(%x: Tensor[(2, 3), float32]) {\n  nn.relu(%x)\n}\n");
  rt_executor_t *ex = NULL;
  assert_status(rt_create_executor("fast", m, NULL, NULL, NULL, &ex), INVALID_ARGUMENT,
                "unknown executor 'fast' (known: debug, graph, vm)");
  /* The vm exists now (test/vm/ tests it); it runs this model. */
  assert_ok(rt_create_executor("vm", m, NULL, NULL, NULL, &ex));
  rt_executor_release(ex);
  ex = NULL;
  /* The graph executor refuses control flow, naming the executors that
   * run it; `?` input dims it specializes per run
   * (test_graph_specialize.c). */
  rt_module_t *cf = parse(kFact);
  assert_status(rt_create_executor("graph", cf, NULL, NULL, NULL, &ex), INVALID_ARGUMENT,
                "use the \"vm\" or \"debug\" executor");
  rt_module_release(cf);
  rt_module_t *dyn = parse("def @main(%x: Tensor[(?, 3), float32]) {\n  nn.relu(%x)\n}\n");
  assert_ok(rt_create_executor("graph", dyn, NULL, NULL, NULL, &ex));
  rt_executor_release(ex);
  ex = NULL;
  rt_module_release(dyn);
  ex = debug_exec(m);
  assert_status(rt_executor_run(ex), FAILED_PRECONDITION, "input 'x' is not set");
  rt_tensor_t *o = NULL;
  assert_status(rt_executor_get_output(ex, 0, &o), FAILED_PRECONDITION, "run the executor first");
  int64_t wrong[2] = {3, 2};
  float v[6] = {0};
  rt_tensor_t *t = tensor_f32(2, wrong, v);
  assert_status(rt_executor_set_input(ex, 0, t), INVALID_ARGUMENT,
                "input 'x' expects Tensor[(2, 3), float32], got Tensor[(3, 2), float32]");
  assert_status(rt_executor_set_input_by_name(ex, "y", t), NOT_FOUND,
                "no input named 'y' (inputs: x)");
  /* A NULL name is a lookup that fails, not a crash (strcmp(NULL) before). */
  int32_t index = -1;
  assert_status(rt_executor_input_index(ex, NULL, &index), NOT_FOUND,
                "no input named '(null)' (inputs: x)");
  assert_status(rt_executor_set_input(ex, 5, t), OUT_OF_RANGE, NULL);
  rt_tensor_info_t info;
  assert_status(rt_executor_output_info(ex, 1, &info), OUT_OF_RANGE, NULL);
  rt_tensor_release(t);
  rt_executor_release(ex);
  rt_module_release(m);
}

typedef struct {
  int before, after;
  int stop_at;
} step_count;

static rt_status_t count_steps(void *user, const rt_step_event_t *ev) {
  step_count *c = user;
  if (ev->after) {
    c->after++;
  } else {
    c->before++;
  }
  if (c->stop_at && c->after == c->stop_at) return RT_STATUS(CANCELLED, "stopped by the test");
  return RT_OK;
}

typedef struct {
  int before, after;
  char first_text[128];
} step_texts;

static rt_status_t record_steps(void *user, const rt_step_event_t *ev) {
  step_texts *c = user;
  if (ev->after) {
    c->after++;
  } else {
    if (c->before == 0) snprintf(c->first_text, sizeof c->first_text, "%s", ev->text);
    c->before++;
  }
  return RT_OK;
}

static void test_executor_step_callback(void **state) {
  (void)state;
  rt_module_t *m = parse("def @main(%x: Tensor[(2), float32]) {\n"
                         "  %0 = nn.relu(%x);\n"
                         "  %1 = add(%0, 1f);\n"
                         "  multiply(%1, %1)\n"
                         "}\n");
  int64_t shape[1] = {2};
  float v[2] = {-1, 2};
  rt_tensor_t *x = tensor_f32(1, shape, v);
  /* At opt_level 0 every op is its own group: three steps, each named by
   * its kernel. */
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_set_opt_level(ctx, 0));
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, ctx, NULL, &ex));
  assert_ok(rt_executor_set_input(ex, 0, x));
  step_texts t = {0, 0, ""};
  assert_ok(rt_executor_set_step_callback(ex, record_steps, &t));
  assert_ok(rt_executor_run(ex));
  assert_int_equal(t.before, 3);
  assert_int_equal(t.after, 3);
  assert_non_null(strstr(t.first_text, "fused_nn_relu(%x)"));
  rt_tensor_t *o = NULL;
  assert_ok(rt_executor_get_output(ex, 0, &o));
  /* relu(-1, 2) = (0, 2); +1 = (1, 3); squared = (1, 9). */
  assert_true(((float *)rt_tensor_data(o))[0] == 1.0f && ((float *)rt_tensor_data(o))[1] == 9.0f);
  step_count s = {0, 0, 2};
  assert_ok(rt_executor_set_step_callback(ex, count_steps, &s));
  assert_status(rt_executor_run(ex), CANCELLED, "stopped by the test");
  assert_int_equal(s.after, 2);
  rt_executor_release(ex);
  /* At opt_level 2 the three ops fuse into one group: one step. */
  ex = debug_exec(m);
  assert_ok(rt_executor_set_input(ex, 0, x));
  step_texts u = {0, 0, ""};
  assert_ok(rt_executor_set_step_callback(ex, record_steps, &u));
  assert_ok(rt_executor_run(ex));
  assert_int_equal(u.before, 1);
  assert_non_null(strstr(u.first_text, "fused_nn_relu_add_multiply(%x)"));
  rt_executor_release(ex);
  rt_pass_context_release(ctx);
  rt_tensor_release(x);
  rt_module_release(m);
}

static void test_executor_graph_inlines_helpers(void **state) {
  (void)state;
  /* @main calls @block twice: the graph executor inlines both calls (one
   * kernel, used twice) and agrees with the interpreter. x = I (2x2 in 2x4
   * padded), w = identity: block(x) = relu(x); block(block(x)) + x = 2x. */
  rt_module_t *m = parse(
      "def @block(%x: Tensor[(2, 2), float32], %w: Tensor[(2, 2), float32]) {\n"
      "  %0 = nn.dense(%x, %w);\n"
      "  nn.relu(%0)\n"
      "}\n"
      "def @main(%x: Tensor[(2, 2), float32], %w: Tensor[(2, 2), float32]) {\n"
      "  %0 = @block(%x, %w);\n"
      "  %1 = @block(%0, %w);\n"
      "  add(%1, %x)\n"
      "}\n");
  int64_t shape[2] = {2, 2};
  float xv[4] = {1, -2, 3, 4}, wv[4] = {1, 0, 0, 1};
  rt_tensor_t *x = tensor_f32(2, shape, xv), *w = tensor_f32(2, shape, wv), *o = NULL;
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, NULL, NULL, &ex));
  assert_ok(rt_executor_set_input(ex, 0, x));
  assert_ok(rt_executor_set_input(ex, 1, w));
  assert_ok(rt_executor_run(ex));
  assert_ok(rt_executor_get_output(ex, 0, &o));
  /* relu(relu(x)) + x = (2, -2, 6, 8) */
  const float *ov = rt_tensor_data(o);
  assert_true(ov[0] == 2.0f && ov[1] == -2.0f && ov[2] == 6.0f && ov[3] == 8.0f);
  rt_executor_release(ex);
  rt_tensor_release(x);
  rt_tensor_release(w);
  rt_module_release(m);
}

typedef struct {
  rt_module_t *module;
  int failures;
} thread_job;

static void *thread_main(void *arg) {
  thread_job *job = arg;
  for (int iter = 0; iter < 20; ++iter) {
    /* Each executor binds its own params: a derived module per executor,
     * all sharing (and type-checking against) the one parsed module. */
    rt_params_t *params = NULL;
    rt_tensor_t *w = NULL, *x = NULL, *o = NULL;
    rt_executor_t *ex = NULL;
    int64_t shape[1] = {2};
    rt_status_t st = rt_params_create(rt_allocator_system(), &params);
    if (!st) st = rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, shape, &w);
    if (!st) st = rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, shape, &x);
    if (!st) {
      ((float *)rt_tensor_data(w))[0] = (float)iter;
      ((float *)rt_tensor_data(w))[1] = 2.0f;
      ((float *)rt_tensor_data(x))[0] = 3.0f;
      ((float *)rt_tensor_data(x))[1] = 4.0f;
      st = rt_params_set(params, "w", w);
    }
    if (!st) st = rt_create_executor("debug", job->module, NULL, NULL, params, &ex);
    if (!st) st = rt_executor_set_input(ex, 0, x);
    if (!st) st = rt_executor_run(ex);
    if (!st) st = rt_executor_get_output(ex, 0, &o);
    if (st || ((float *)rt_tensor_data(o))[0] != 3.0f * (float)iter ||
        ((float *)rt_tensor_data(o))[1] != 8.0f) {
      job->failures++;
    }
    rt_status_free(st);
    rt_executor_release(ex);
    rt_tensor_release(w);
    rt_tensor_release(x);
    rt_params_release(params);
  }
  return NULL;
}

static void test_executor_many_threads_one_module(void **state) {
  (void)state;
  rt_module_t *m = parse(
      "def @main(%x: Tensor[(2), float32], %w: Tensor[(2), float32]) {\n"
      "  %0 = multiply(%x, %w);\n"
      "  nn.relu(%0)\n"
      "}\n");
  pthread_t threads[4];
  thread_job jobs[4];
  for (int i = 0; i < 4; ++i) {
    jobs[i] = (thread_job){m, 0};
    assert_int_equal(pthread_create(&threads[i], NULL, thread_main, &jobs[i]), 0);
  }
  for (int i = 0; i < 4; ++i) {
    pthread_join(threads[i], NULL);
    assert_int_equal(jobs[i].failures, 0);
  }
  rt_module_release(m);
}

/* An executor is reference-counted: a retained executor survives the
 * creator's release and still runs; the last release frees it (ASan/LSan
 * would report a leak or a use after free otherwise). */
static void test_executor_retain(void **state) {
  (void)state;
  rt_module_t *m = parse("def @main(%x: Tensor[(2), float32]) { add(%x, %x) }");
  rt_executor_t *ex = debug_exec(m);
  rt_module_release(m);
  rt_executor_retain(ex);
  rt_executor_release(ex);
  const int64_t shape[1] = {2};
  const float xs[2] = {1.5f, -2.0f};
  rt_tensor_t *x = tensor_f32(1, shape, xs);
  assert_ok(rt_executor_set_input(ex, 0, x));
  assert_ok(rt_executor_run(ex));
  rt_tensor_t *y = NULL;
  assert_ok(rt_executor_get_output(ex, 0, &y));
  assert_true(rt_tensor_get_f64(y, 0) == 3.0 && rt_tensor_get_f64(y, 1) == -4.0);
  rt_tensor_release(x);
  rt_executor_release(ex);
}

/* jit.target's names (passes/context.c) are jit/target.h's, in order: the
 * executor maps the option's index to rt_jit_target_kind_t. */
static void test_executor_jit_target_names(void **state) {
  (void)state;
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  for (int32_t k = 0; k < RT_JIT_TARGET_KIND_COUNT; ++k) {
    assert_ok(rt_pass_context_set_config(ctx, "jit.target", rt_jit_target_names[k]));
    int64_t v = -1;
    assert_ok(rt_pass_context_config_int(ctx, "jit.target", &v));
    assert_int_equal(v, k);
  }
  assert_status(rt_pass_context_set_config(ctx, "jit.target", "avx3"), INVALID_ARGUMENT,
                "default, host, avx2, avx512, generic");
  rt_pass_context_release(ctx);
}

/* The passes' idea of the templates' lanes (rt_pass_template_lanes:
 * Conv2dWinograd's tile rule, AlterOpLayout's block) is the JIT's, for
 * every jit.target the JIT can resolve here, and for the default with and
 * without RELAYRT_JIT_TARGET. */
static void check_lanes_agree(rt_pass_context_t *ctx, rt_jit_target_kind_t k) {
  rt_jit_target_t t;
  rt_status_t st = rt_jit_target_resolve(k, &t);
  if (st) { /* an ISA this CPU lacks */
    assert_int_equal(rt_status_code(st), RT_STATUS_FAILED_PRECONDITION);
    rt_status_free(st);
    return;
  }
  assert_int_equal(rt_pass_template_lanes(ctx), t.vector_width);
}

static void test_executor_template_lanes(void **state) {
  (void)state;
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  for (int32_t k = 0; k < RT_JIT_TARGET_KIND_COUNT; ++k) {
    assert_ok(rt_pass_context_set_config(ctx, "jit.target", rt_jit_target_names[k]));
    check_lanes_agree(ctx, (rt_jit_target_kind_t)k);
  }
  assert_ok(rt_pass_context_set_config(ctx, "jit.target", "default"));
  const char *saved = getenv("RELAYRT_JIT_TARGET");
  char keep[64] = "";
  if (saved) snprintf(keep, sizeof keep, "%s", saved);
  const char *envs[] = {"generic", "avx2", "avx512", "host"};
  for (size_t i = 0; i < sizeof envs / sizeof envs[0]; ++i) {
    setenv("RELAYRT_JIT_TARGET", envs[i], 1);
    check_lanes_agree(ctx, RT_JIT_TARGET_DEFAULT);
  }
  unsetenv("RELAYRT_JIT_TARGET");
  check_lanes_agree(ctx, RT_JIT_TARGET_DEFAULT);
  if (saved) setenv("RELAYRT_JIT_TARGET", keep, 1);
  rt_pass_context_release(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_executor_factorial),
      cmocka_unit_test(test_executor_recursion_depth_limit),
      cmocka_unit_test(test_executor_loop_as_tail_recursion),
      cmocka_unit_test(test_executor_mutual_recursion),
      cmocka_unit_test(test_executor_closures),
      cmocka_unit_test(test_executor_if_on_computed_condition),
      cmocka_unit_test(test_executor_let_and_tuples),
      cmocka_unit_test(test_executor_dynamic_batch),
      cmocka_unit_test(test_executor_params_bound_before_passes),
      cmocka_unit_test(test_executor_bad_use),
      cmocka_unit_test(test_executor_retain),
      cmocka_unit_test(test_executor_jit_target_names),
      cmocka_unit_test(test_executor_template_lanes),
      cmocka_unit_test(test_executor_step_callback),
      cmocka_unit_test(test_executor_many_threads_one_module),
      cmocka_unit_test(test_executor_graph_inlines_helpers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
