/* The graph executor on a module with `?` input dims or value inputs
 * (include/rt/executor.h, "Dynamic shapes on the graph executor"): each
 * run specializes @main to its inputs' shapes (and the values of inputs
 * ops read for shapes), one plan per shape kept in
 * an LRU cache (graph.max_specializations). Values are checked against
 * the debug executor (the oracle) on the same inputs; the counters of
 * rt_executor_stats say what was built and what was reused. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/executor.h"
#include "test_util.h"

/* Two fused groups (dense+bias+relu, softmax), a `?` batch. */
static const char kMlp[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(?, 8), float32], %w: Tensor[(4, 8), float32], %b: Tensor[(4), float32]) {\n"
    "  %0 = nn.dense(%x, %w);\n"
    "  %1 = nn.bias_add(%0, %b);\n"
    "  %2 = nn.relu(%1);\n"
    "  nn.softmax(%2)\n"
    "}\n";

static rt_module_t *parse(const char *src) {
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(src, strlen(src), "t.relay", &m));
  return m;
}

/* A float32 tensor of `shape` filled with a fixed pattern from `seed`. */
static rt_tensor_t *pattern(int32_t rank, const int64_t *shape, int seed) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, rank, shape, &t));
  float *v = rt_tensor_data(t);
  const size_t n = rt_tensor_nbytes(t) / sizeof(float);
  for (size_t i = 0; i < n; ++i) v[i] = (float)((int)((i * 7 + (size_t)seed * 13) % 17) - 8) / 4.0f;
  return t;
}

typedef struct {
  rt_tensor_t *w, *b;
} weights;

static weights make_weights(void) {
  int64_t ws[2] = {4, 8}, bs[1] = {4};
  return (weights){pattern(2, ws, 1), pattern(1, bs, 2)};
}

static void release_weights(weights *w) {
  rt_tensor_release(w->w);
  rt_tensor_release(w->b);
}

static rt_tensor_t *batch_input(int64_t batch) {
  int64_t xs[2] = {batch, 8};
  return pattern(2, xs, (int)batch);
}

/* Runs `ex` on x (and the weights); a new reference to output 0. */
static rt_tensor_t *run_on(rt_executor_t *ex, rt_tensor_t *x, const weights *w) {
  assert_ok(rt_executor_set_input_by_name(ex, "x", x));
  assert_ok(rt_executor_set_input_by_name(ex, "w", w->w));
  assert_ok(rt_executor_set_input_by_name(ex, "b", w->b));
  assert_ok(rt_executor_run(ex));
  rt_tensor_t *o = NULL;
  assert_ok(rt_executor_get_output(ex, 0, &o));
  rt_tensor_retain(o);
  return o;
}

/* The debug executor's output 0 for batch `batch` (the oracle). */
static rt_tensor_t *oracle(rt_module_t *m, int64_t batch, const weights *w) {
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ex));
  rt_tensor_t *x = batch_input(batch);
  rt_tensor_t *o = run_on(ex, x, w);
  rt_tensor_release(x);
  rt_executor_release(ex);
  return o;
}

static void assert_close(const rt_tensor_t *got, const rt_tensor_t *want) {
  assert_int_equal(rt_tensor_rank(got), rt_tensor_rank(want));
  for (int32_t d = 0; d < rt_tensor_rank(got); ++d) {
    assert_int_equal(rt_tensor_shape(got)[d], rt_tensor_shape(want)[d]);
  }
  const float *g = rt_tensor_data((rt_tensor_t *)got), *r = rt_tensor_data((rt_tensor_t *)want);
  const size_t n = rt_tensor_nbytes(want) / sizeof(float);
  for (size_t i = 0; i < n; ++i) {
    if (fabsf(g[i] - r[i]) > 1e-5f + 1e-4f * fabsf(r[i])) {
      fail_msg("element %zu: graph %g, debug %g", i, (double)g[i], (double)r[i]);
    }
  }
}

static rt_executor_stats_t stats_of(const rt_executor_t *ex) {
  rt_executor_stats_t s;
  assert_ok(rt_executor_stats(ex, &s));
  return s;
}

static void assert_counts(const rt_executor_t *ex, int64_t built, int64_t hits, int64_t evicted,
                          int32_t cached) {
  rt_executor_stats_t s = stats_of(ex);
  assert_int_equal(s.specializations, built);
  assert_int_equal(s.specialization_hits, hits);
  assert_int_equal(s.specializations_evicted, evicted);
  assert_int_equal(s.specializations_cached, cached);
}

static rt_pass_context_t *context_with_max(const char *max) {
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  if (max) assert_ok(rt_pass_context_set_config(ctx, "graph.max_specializations", max));
  return ctx;
}

/* Batch 2, batch 5, batch 2 again: values as the debug executor's; a
 * specialization per new shape and none for a seen one. */
static void test_graph_specialize_batches_match_debug(void **state) {
  (void)state;
  rt_module_t *m = parse(kMlp);
  weights w = make_weights();
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, NULL, NULL, &ex));
  rt_tensor_info_t info;
  assert_ok(rt_executor_input_info(ex, 0, &info));
  assert_int_equal(info.shape[0], RT_DIM_ANY);
  assert_int_equal(info.shape[1], 8);
  rt_executor_stats_t s = stats_of(ex);
  assert_int_equal(s.max_specializations, 8);
  assert_counts(ex, 0, 0, 0, 0);

  const int64_t batches[3] = {2, 5, 2};
  const int64_t built[3] = {1, 2, 2}, hits[3] = {0, 0, 1};
  for (int i = 0; i < 3; ++i) {
    rt_tensor_t *x = batch_input(batches[i]);
    rt_tensor_t *got = run_on(ex, x, &w), *want = oracle(m, batches[i], &w);
    assert_close(got, want);
    assert_counts(ex, built[i], hits[i], 0, (int32_t)built[i]);
    /* The input info still says `?`. */
    assert_ok(rt_executor_input_info(ex, 0, &info));
    assert_int_equal(info.shape[0], RT_DIM_ANY);
    rt_tensor_release(got);
    rt_tensor_release(want);
    rt_tensor_release(x);
  }
  rt_executor_release(ex);
  release_weights(&w);
  rt_module_release(m);
}

/* max 1: every new shape evicts the last one; outputs a caller retained
 * from an evicted specialization stay valid, and nothing leaks. */
static void test_graph_specialize_lru_eviction(void **state) {
  (void)state;
  rt_module_t *m = parse(kMlp);
  weights w = make_weights();
  rt_pass_context_t *ctx = context_with_max("1");
  rt_test_alloc_t counts = {0, 0, -1, 0};
  rt_allocator_t a = rt_test_allocator(&counts);
  rt_executor_options_t opts = {.allocator = &a};
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor_with_options("graph", m, NULL, ctx, NULL, &opts, &ex));
  assert_int_equal(stats_of(ex).max_specializations, 1);

  rt_tensor_t *x2 = batch_input(2), *x3 = batch_input(3);
  rt_tensor_t *want2 = oracle(m, 2, &w), *want3 = oracle(m, 3, &w);
  rt_tensor_t *kept2 = run_on(ex, x2, &w);
  assert_counts(ex, 1, 0, 0, 1);
  rt_tensor_t *kept3 = run_on(ex, x3, &w); /* evicts batch 2's plan */
  assert_counts(ex, 2, 0, 1, 1);
  assert_close(kept2, want2);              /* still readable, still its values */
  assert_close(kept3, want3);
  rt_tensor_t *again2 = run_on(ex, x2, &w); /* built again */
  assert_counts(ex, 3, 0, 2, 1);
  assert_close(again2, want2);
  assert_close(kept3, want3);
  rt_tensor_t *again2b = run_on(ex, x2, &w); /* now a hit */
  assert_counts(ex, 3, 1, 2, 1);
  assert_close(again2b, want2);

  rt_executor_release(ex);
  /* Outputs outlive the executor too: the caller's references hold them. */
  assert_close(kept3, want3);
  rt_tensor_release(kept2);
  rt_tensor_release(kept3);
  rt_tensor_release(again2);
  rt_tensor_release(again2b);
  assert_int_equal(counts.live_allocations, 0);
  rt_tensor_release(x2);
  rt_tensor_release(x3);
  rt_tensor_release(want2);
  rt_tensor_release(want3);
  rt_pass_context_release(ctx);
  release_weights(&w);
  rt_module_release(m);
}

/* A cached specialization holds no input of its last run: once the
 * runner has another input and the caller releases its own, the tensor's
 * memory is gone (its allocator counts nothing live). */
static void test_graph_specialize_does_not_pin_inputs(void **state) {
  (void)state;
  rt_module_t *m = parse(kMlp);
  weights w = make_weights();
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, NULL, NULL, &ex));
  rt_test_alloc_t counts = {0, 0, -1, 0};
  rt_allocator_t a = rt_test_allocator(&counts);
  const int64_t xs[2] = {2, 8};
  rt_tensor_t *x2 = NULL;
  assert_ok(rt_tensor_create(a, RT_DTYPE_FLOAT32, 2, xs, &x2));
  memset(rt_tensor_data(x2), 0, rt_tensor_nbytes(x2));
  rt_tensor_t *o = run_on(ex, x2, &w);
  rt_tensor_release(o);
  rt_tensor_t *x3 = batch_input(3);
  o = run_on(ex, x3, &w); /* the runner now holds x3; batch 2's plan stays cached */
  rt_tensor_release(o);
  assert_counts(ex, 2, 0, 0, 2);
  rt_tensor_release(x2);
  assert_int_equal(counts.live_allocations, 0);
  /* Profiling leaves none pinned either. */
  assert_ok(rt_tensor_create(a, RT_DTYPE_FLOAT32, 2, xs, &x2));
  memset(rt_tensor_data(x2), 0, rt_tensor_nbytes(x2));
  assert_ok(rt_executor_set_input_by_name(ex, "x", x2));
  rt_node_profile_t nodes[4];
  int32_t count = 0;
  assert_ok(rt_executor_profile(ex, 1, 4, nodes, &count));
  assert_ok(rt_executor_set_input_by_name(ex, "x", x3));
  rt_tensor_release(x2);
  assert_int_equal(counts.live_allocations, 0);
  rt_tensor_release(x3);
  rt_executor_release(ex);
  release_weights(&w);
  rt_module_release(m);
}

/* The calls that describe a plan: before the first run "bind the input
 * shapes first"; after, the most recent specialization. Export is always
 * refused; profile specializes to the inputs set. */
static void test_graph_specialize_plan_calls(void **state) {
  (void)state;
  rt_module_t *m = parse(kMlp);
  weights w = make_weights();
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, NULL, NULL, &ex));
  rt_executor_memory_t mem;
  char *text = NULL;
  assert_status(rt_executor_memory(ex, &mem), FAILED_PRECONDITION, "bind the input shapes first");
  assert_status(rt_executor_get_source(ex, "kernels", &text), FAILED_PRECONDITION,
                "bind the input shapes first: get_source(\"kernels\")");
  assert_status(rt_executor_get_source(ex, "graph-json", &text), FAILED_PRECONDITION,
                "bind the input shapes first");
  /* The unbound module's text is there from creation. */
  assert_ok(rt_executor_get_source(ex, "relay", &text));
  assert_non_null(strstr(text, "Tensor[(?, 8), float32]"));
  free(text);
  assert_status(rt_executor_export(ex, "never-written.so"), FAILED_PRECONDITION,
                "bind the input shapes first");

  rt_tensor_t *x3 = batch_input(3), *x6 = batch_input(6);
  rt_tensor_t *o = run_on(ex, x3, &w);
  rt_tensor_release(o);
  assert_ok(rt_executor_memory(ex, &mem));
  assert_int_equal(mem.output_bytes, 3 * 4 * sizeof(float));
  o = run_on(ex, x6, &w);
  rt_tensor_release(o);
  assert_ok(rt_executor_memory(ex, &mem));
  assert_int_equal(mem.output_bytes, 6 * 4 * sizeof(float));
  assert_ok(rt_executor_get_source(ex, "graph-json", &text));
  assert_non_null(strstr(text, "[6, 4]"));
  free(text);
  assert_ok(rt_executor_get_source(ex, "kernels", &text));
  assert_non_null(strstr(text, "kernels,"));
  free(text);
  assert_status(rt_executor_export(ex, "never-written.so"), FAILED_PRECONDITION,
                "export a \"vm\" executor");

  /* Profile the batch-3 plan (a hit): it becomes the most recent. */
  assert_ok(rt_executor_set_input_by_name(ex, "x", x3));
  rt_node_profile_t nodes[8];
  int32_t count = 0;
  assert_ok(rt_executor_profile(ex, 2, 8, nodes, &count));
  assert_true(count >= 2);
  assert_counts(ex, 2, 1, 0, 2);
  assert_ok(rt_executor_memory(ex, &mem));
  assert_int_equal(mem.output_bytes, 3 * 4 * sizeof(float));
  rt_tensor_t *want = oracle(m, 3, &w);
  assert_ok(rt_executor_get_output(ex, 0, &o));
  assert_close(o, want);
  rt_tensor_release(want);

  rt_tensor_release(x3);
  rt_tensor_release(x6);
  rt_executor_release(ex);
  release_weights(&w);
  rt_module_release(m);
}

/* Wrong static dims, a shape that depends on values, control flow, the
 * config's range, executors that do not specialize. */
static void test_graph_specialize_errors(void **state) {
  (void)state;
  rt_module_t *m = parse(kMlp);
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, NULL, NULL, &ex));
  int64_t bad_shape[2] = {2, 7};
  rt_tensor_t *bad = pattern(2, bad_shape, 0);
  assert_status(rt_executor_set_input(ex, 0, bad), INVALID_ARGUMENT,
                "input 'x' expects Tensor[(?, 8), float32], got Tensor[(2, 7), float32]");
  assert_counts(ex, 0, 0, 0, 0);
  rt_tensor_release(bad);
  rt_executor_release(ex);
  rt_module_release(m);

  /* Control flow is refused at creation, `?` inputs or not (but for an
   * `if` on a scalar input: test_graph_specialize_if_condition). */
  rt_module_t *cf = parse("#[version = \"0.0.5\"]\n"
                          "def @main(%x: Tensor[(?, 4), float32]) {\n"
                          "  %0 = greater(sum(%x), 0f);\n"
                          "  if (%0) { nn.relu(%x) } else { negative(%x) }\n"
                          "}\n");
  assert_status(rt_create_executor("graph", cf, NULL, NULL, NULL, &ex), INVALID_ARGUMENT,
                "the graph executor does not run if (control flow)");
  rt_module_release(cf);

  /* The config key: its range, its default. */
  rt_pass_context_t *ctx = context_with_max(NULL);
  int64_t v = 0;
  assert_ok(rt_pass_context_config_int(ctx, "graph.max_specializations", &v));
  assert_int_equal(v, 8);
  assert_status(rt_pass_context_set_config(ctx, "graph.max_specializations", "0"),
                INVALID_ARGUMENT, "expects an integer in 1..1024");
  rt_pass_context_release(ctx);

  /* Executors that do not specialize count nothing. */
  rt_module_t *st = parse("#[version = \"0.0.5\"]\n"
                          "def @main(%x: Tensor[(2, 4), float32]) { nn.relu(%x) }\n");
  const char *kinds[3] = {"graph", "debug", "vm"};
  for (int k = 0; k < 3; ++k) {
    assert_ok(rt_create_executor(kinds[k], st, NULL, NULL, NULL, &ex));
    rt_executor_stats_t s0 = stats_of(ex);
    assert_int_equal(s0.max_specializations, 0);
    assert_int_equal(s0.specializations, 0);
    rt_executor_release(ex);
  }
  rt_module_release(st);
}

/* A module whose ops read an input's VALUES for shapes (dyn.reshape's
 * shape, arange's bounds) is specialized per run on those values too:
 * one plan per (shapes, values), values as the vm's (an independent
 * executor: dyn ops run there through the reference kernels' static
 * forms), and a seen value is a hit. */
static rt_tensor_t *int64_vector(int64_t n, const int64_t *v) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_INT64, 1, &n, &t));
  memcpy(rt_tensor_data(t), v, (size_t)n * sizeof *v);
  return t;
}

static rt_tensor_t *run2(rt_executor_t *ex, rt_tensor_t *a, rt_tensor_t *b) {
  assert_ok(rt_executor_set_input(ex, 0, a));
  assert_ok(rt_executor_set_input(ex, 1, b));
  assert_ok(rt_executor_run(ex));
  rt_tensor_t *o = NULL;
  assert_ok(rt_executor_get_output(ex, 0, &o));
  rt_tensor_retain(o);
  return o;
}

static void test_graph_specialize_value_inputs(void **state) {
  (void)state;
  /* A `?` batch and a shape input: both shapes and values are the key. */
  rt_module_t *dr = parse("#[version = \"0.0.5\"]\n"
                          "def @main(%x: Tensor[(?, 4), float32], %s: Tensor[(2), int64]) {\n"
                          "  %0 = nn.relu(%x);\n"
                          "  dyn.reshape(%0, %s)\n"
                          "}\n");
  rt_executor_t *ex = NULL, *vm = NULL;
  assert_ok(rt_create_executor("graph", dr, NULL, NULL, NULL, &ex));
  assert_ok(rt_create_executor("vm", dr, NULL, NULL, NULL, &vm));
  int64_t xs[2] = {3, 4};
  rt_tensor_t *x = pattern(2, xs, 0);
  const int64_t shapes[4][2] = {{2, -1}, {6, 2}, {2, -1}, {-1, 3}};
  const int64_t want_dims[4][2] = {{2, 6}, {6, 2}, {2, 6}, {4, 3}};
  const int64_t built[4] = {1, 2, 2, 3}, hits[4] = {0, 0, 1, 1};
  for (int i = 0; i < 4; ++i) {
    rt_tensor_t *s = int64_vector(2, shapes[i]);
    rt_tensor_t *got = run2(ex, x, s), *want = run2(vm, x, s);
    assert_int_equal(rt_tensor_shape(got)[0], want_dims[i][0]);
    assert_int_equal(rt_tensor_shape(got)[1], want_dims[i][1]);
    assert_close(got, want);
    assert_counts(ex, built[i], hits[i], 0, (int32_t)built[i]);
    rt_tensor_release(got);
    rt_tensor_release(want);
    rt_tensor_release(s);
  }
  /* Bad values are the reshape's error, naming the values; nothing cached. */
  const int64_t bad[2] = {5, -1};
  rt_tensor_t *s = int64_vector(2, bad);
  assert_ok(rt_executor_set_input(ex, 0, x));
  assert_ok(rt_executor_set_input(ex, 1, s));
  assert_status(rt_executor_run(ex), INVALID_ARGUMENT, "x: (3, 4), s: (2) = [5, -1]");
  assert_counts(ex, 3, 1, 0, 3);
  rt_tensor_release(s);
  rt_executor_release(vm);
  rt_executor_release(ex);
  rt_tensor_release(x);
  rt_module_release(dr);

  /* arange's bounds from inputs (static shapes: only the values vary). */
  rt_module_t *ar = parse("#[version = \"0.0.5\"]\n"
                          "def @main(%n: int64, %step: int64) {\n"
                          "  %0 = arange(0i64, %n, %step, dtype=\"float32\");\n"
                          "  multiply(%0, 2f)\n"
                          "}\n");
  assert_ok(rt_create_executor("graph", ar, NULL, NULL, NULL, &ex));
  const int64_t ns[3] = {5, 9, 5}, steps[3] = {1, 2, 1};
  for (int i = 0; i < 3; ++i) {
    rt_tensor_t *n = NULL, *st = NULL;
    assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_INT64, 0, NULL, &n));
    assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_INT64, 0, NULL, &st));
    *(int64_t *)rt_tensor_data(n) = ns[i];
    *(int64_t *)rt_tensor_data(st) = steps[i];
    rt_tensor_t *o = run2(ex, n, st);
    const int64_t len = (ns[i] + steps[i] - 1) / steps[i];
    assert_int_equal(rt_tensor_rank(o), 1);
    assert_int_equal(rt_tensor_shape(o)[0], len);
    const float *v = rt_tensor_data(o);
    for (int64_t k = 0; k < len; ++k) assert_true(v[k] == (float)(2 * k * steps[i]));
    rt_tensor_release(o);
    rt_tensor_release(n);
    rt_tensor_release(st);
  }
  assert_counts(ex, 2, 1, 0, 2);
  rt_executor_release(ex);
  rt_module_release(ar);

  /* A value input larger than a key may be is refused at run time,
   * naming the vm. */
  rt_module_t *big = parse("#[version = \"0.0.5\"]\n"
                           "def @main(%x: Tensor[(4), float32], %s: Tensor[(?), int64]) {\n"
                           "  dyn.sum(%x, %s, keepdims=True)\n"
                           "}\n");
  assert_ok(rt_create_executor("graph", big, NULL, NULL, NULL, &ex));
  int64_t xs1 = 4;
  rt_tensor_t *x1 = pattern(1, &xs1, 0);
  int64_t *ones = calloc(5000, sizeof *ones); /* axis 0, 5000 times */
  assert_non_null(ones);
  s = int64_vector(5000, ones);
  free(ones);
  assert_ok(rt_executor_set_input(ex, 0, x1));
  assert_ok(rt_executor_set_input(ex, 1, s));
  assert_status(rt_executor_run(ex), UNIMPLEMENTED, "input 's' has 5000 elements");
  assert_counts(ex, 0, 0, 0, 0);
  rt_tensor_release(s);
  rt_tensor_release(x1);
  rt_executor_release(ex);
  rt_module_release(big);

  /* An input whose shape alone feeds a dyn op (through shape_of) is not a
   * value input: with static shapes the module is planned once. */
  rt_module_t *so = parse("#[version = \"0.0.5\"]\n"
                          "def @main(%x: Tensor[(2, 6), float32], %y: Tensor[(3, 4), float32]) {\n"
                          "  dyn.reshape(%x, shape_of(%y, dtype=\"int64\"))\n"
                          "}\n");
  assert_ok(rt_create_executor("graph", so, NULL, NULL, NULL, &ex));
  assert_int_equal(stats_of(ex).max_specializations, 0);
  rt_executor_release(ex);
  rt_module_release(so);
}

/* An `if` on a scalar input: the executor specializes on the condition, in
 * each specialization FoldConstant keeps the branch taken, and nothing of
 * control flow is left to plan. A condition computed from a larger input
 * stays control flow, refused at creation naming the vm. Values by hand. */
static void test_graph_specialize_if_condition(void **state) {
  (void)state;
  rt_module_t *m = parse("#[version = \"0.0.5\"]\n"
                         "def @main(%c: bool, %x: Tensor[(3), float32]) {\n"
                         "  if (%c) { add(%x, %x) } else { multiply(%x, %x) }\n"
                         "}\n");
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, NULL, NULL, &ex));
  int64_t n = 3;
  rt_tensor_t *x = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, &n, &x));
  const float xv[3] = {1, 2, 3};
  memcpy(rt_tensor_data(x), xv, sizeof xv);
  const bool conds[3] = {true, false, true};
  const float want[2][3] = {{2, 4, 6}, {1, 4, 9}};
  const int64_t built[3] = {1, 2, 2}, hits[3] = {0, 0, 1};
  for (int i = 0; i < 3; ++i) {
    rt_tensor_t *c = NULL;
    assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_BOOL, 0, NULL, &c));
    *(uint8_t *)rt_tensor_data(c) = conds[i];
    rt_tensor_t *o = run2(ex, c, x);
    for (int k = 0; k < 3; ++k) assert_true(((const float *)rt_tensor_data(o))[k] == want[conds[i] ? 0 : 1][k]);
    assert_counts(ex, built[i], hits[i], 0, (int32_t)built[i]);
    rt_tensor_release(o);
    rt_tensor_release(c);
  }
  rt_executor_release(ex);
  rt_module_release(m);
  rt_tensor_release(x);
  rt_module_t *big = parse("#[version = \"0.0.5\"]\n"
                           "def @main(%x: Tensor[(3), float32]) {\n"
                           "  %0 = greater(sum(%x), 0f);\n"
                           "  if (%0) { add(%x, %x) } else { multiply(%x, %x) }\n"
                           "}\n");
  assert_status(rt_create_executor("graph", big, NULL, NULL, NULL, &ex), INVALID_ARGUMENT,
                "the graph executor does not run if (control flow)");
  rt_module_release(big);
}

/* A context's instruments run during rt_create_executor only: the builds
 * of later specializations do not call them (their `user` may be gone). */
typedef struct {
  int passes;
} pass_count;

static rt_status_t count_pass(void *user, const rt_pass_info_t *pass, const rt_module_t *module) {
  (void)pass;
  (void)module;
  ((pass_count *)user)->passes++;
  return RT_OK;
}

static void test_graph_specialize_instruments_at_creation_only(void **state) {
  (void)state;
  rt_module_t *m = parse(kMlp);
  weights w = make_weights();
  pass_count c = {0};
  rt_pass_context_t *ctx = context_with_max(NULL);
  rt_pass_instrument_t inst = {.user = &c, .before_pass = count_pass};
  assert_ok(rt_pass_context_add_instrument(ctx, &inst));
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, ctx, NULL, &ex));
  const int at_creation = c.passes;
  assert_true(at_creation > 0);
  rt_tensor_t *x = batch_input(4);
  rt_tensor_t *o = run_on(ex, x, &w);
  assert_counts(ex, 1, 0, 0, 1);
  assert_int_equal(c.passes, at_creation);
  rt_tensor_release(o);
  rt_tensor_release(x);
  rt_executor_release(ex);
  rt_pass_context_release(ctx);
  release_weights(&w);
  rt_module_release(m);
}

/* One thread runs alternating shapes with max 1 (a build and an eviction
 * per run); another reads the plan, source and counters meanwhile. The
 * readers hold a reference, so an eviction never frees what they read.
 * The runs start once the reader has read once: the 12 runs (each a build
 * from the kernel cache) could otherwise all end before the reader's
 * first look, and the test would check nothing concurrent. */
typedef struct {
  rt_executor_t *ex;
  weights *w;
  atomic_bool reading;
  atomic_bool done;
  atomic_int failures;         /* cmocka's asserts belong to the main thread */
} race_ctx;

static void *runs_thread(void *arg) {
  race_ctx *r = arg;
  while (!atomic_load(&r->reading)) sched_yield();
  rt_tensor_t *xs[2] = {batch_input(2), batch_input(3)};
  for (int i = 0; i < 12; ++i) {
    rt_tensor_t *o = NULL;
    rt_status_t st = rt_executor_set_input_by_name(r->ex, "x", xs[i % 2]);
    if (!st) st = rt_executor_set_input_by_name(r->ex, "w", r->w->w);
    if (!st) st = rt_executor_set_input_by_name(r->ex, "b", r->w->b);
    if (!st) st = rt_executor_run(r->ex);
    if (!st) st = rt_executor_get_output(r->ex, 0, &o);
    if (st || rt_tensor_shape(o)[0] != rt_tensor_shape(xs[i % 2])[0]) atomic_fetch_add(&r->failures, 1);
    rt_status_free(st);
  }
  rt_tensor_release(xs[0]);
  rt_tensor_release(xs[1]);
  atomic_store(&r->done, true);
  return NULL;
}

static void test_graph_specialize_readers_during_runs(void **state) {
  (void)state;
  rt_module_t *m = parse(kMlp);
  weights w = make_weights();
  rt_pass_context_t *ctx = context_with_max("1");
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, ctx, NULL, &ex));
  race_ctx r = {ex, &w, false, false, 0};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, runs_thread, &r), 0);
  int reads = 0;
  do {
    rt_executor_memory_t mem;
    rt_status_t st = rt_executor_memory(ex, &mem);
    if (st) {
      assert_int_equal(rt_status_code(st), RT_STATUS_FAILED_PRECONDITION); /* before the first */
      rt_status_free(st);
    } else {
      assert_true(mem.output_bytes == 2 * 16 || mem.output_bytes == 3 * 16);
    }
    char *text = NULL;
    st = rt_executor_get_source(ex, "kernels", &text);
    if (st) {
      rt_status_free(st);
    } else {
      free(text);
    }
    (void)stats_of(ex);
    ++reads;
    atomic_store(&r.reading, true);
  } while (!atomic_load(&r.done));
  pthread_join(t, NULL);
  assert_int_equal(atomic_load(&r.failures), 0);
  assert_true(reads > 1); /* at least one read after the runs began */
  assert_counts(ex, 12, 0, 11, 1);
  rt_executor_release(ex);
  rt_pass_context_release(ctx);
  release_weights(&w);
  rt_module_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_graph_specialize_batches_match_debug),
      cmocka_unit_test(test_graph_specialize_lru_eviction),
      cmocka_unit_test(test_graph_specialize_does_not_pin_inputs),
      cmocka_unit_test(test_graph_specialize_plan_calls),
      cmocka_unit_test(test_graph_specialize_errors),
      cmocka_unit_test(test_graph_specialize_value_inputs),
      cmocka_unit_test(test_graph_specialize_if_condition),
      cmocka_unit_test(test_graph_specialize_instruments_at_creation_only),
      cmocka_unit_test(test_graph_specialize_readers_during_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
