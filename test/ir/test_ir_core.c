/* IR core: constructors, module table, traversal, structural equality and
 * hashing (alpha-equivalence, DAG vs tree), and rt_ir_verify. Programs are
 * built by hand with the constructors, so nothing here depends on the
 * parser. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "test_util.h"

static const rt_ir_span_t kNoSpan = {0};

static rt_module_t *new_module(void) {
  rt_module_t *m = NULL;
  assert_ok(rt_ir_module_create(rt_allocator_system(), &m));
  return m;
}

static rt_ir_type_t *tensor_type(rt_module_t *m, int32_t rank, const int64_t *shape) {
  rt_ir_type_t *t = NULL;
  assert_ok(rt_ir_tensor_type(m, RT_DTYPE_FLOAT32, rank, shape, &t));
  return t;
}

static rt_ir_expr_t *var(rt_module_t *m, const char *name, rt_ir_type_t *t) {
  rt_ir_expr_t *v = NULL;
  assert_ok(rt_ir_var(m, kNoSpan, name, t, &v));
  return v;
}

static rt_ir_expr_t *call_op(rt_module_t *m, const char *op_name, int32_t n,
                             rt_ir_expr_t **args) {
  const rt_ir_op_t *op = rt_ir_op_lookup(op_name, strlen(op_name));
  assert_non_null(op);
  rt_ir_expr_t *ref = NULL, *call = NULL;
  assert_ok(rt_ir_op_ref(m, kNoSpan, op, &ref));
  assert_ok(rt_ir_call(m, kNoSpan, ref, n, args, NULL, &call));
  return call;
}

/* fn (%x: T, %y: T) { add(x, y) } with chosen names; order picks which
 * param goes first in the add. */
static rt_ir_expr_t *add_fn(rt_module_t *m, const char *a, const char *b, bool swap) {
  int64_t shape[2] = {2, 3};
  rt_ir_expr_t *p[2] = {var(m, a, tensor_type(m, 2, shape)),
                        var(m, b, tensor_type(m, 2, shape))};
  rt_ir_expr_t *args[2] = {swap ? p[1] : p[0], swap ? p[0] : p[1]};
  rt_ir_expr_t *body = call_op(m, "add", 2, args);
  rt_ir_expr_t *fn = NULL;
  assert_ok(rt_ir_function(m, kNoSpan, 2, p, body, NULL, NULL, &fn));
  return fn;
}

static void test_ir_core_alpha_equivalence(void **state) {
  (void)state;
  rt_module_t *m1 = new_module(), *m2 = new_module();
  rt_ir_expr_t *f1 = add_fn(m1, "x", "y", false);
  rt_ir_expr_t *f2 = add_fn(m2, "a", "b", false);   /* renamed */
  rt_ir_expr_t *f3 = add_fn(m2, "x", "y", true);    /* args swapped */
  assert_true(rt_ir_struct_equal(f1, f2));
  assert_int_equal(rt_ir_struct_hash(f1), rt_ir_struct_hash(f2));
  assert_false(rt_ir_struct_equal(f1, f3));
  assert_true(rt_ir_struct_equal(f1, f1));
  rt_module_release(m1);
  rt_module_release(m2);
}

static void test_ir_core_free_vars_match_by_name(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  int64_t shape[1] = {4};
  rt_ir_expr_t *x1 = var(m, "x", tensor_type(m, 1, shape));
  rt_ir_expr_t *x2 = var(m, "x", tensor_type(m, 1, shape));
  rt_ir_expr_t *z = var(m, "z", tensor_type(m, 1, shape));
  rt_ir_expr_t *a1[1] = {x1}, *a2[1] = {x2}, *a3[1] = {z};
  rt_ir_expr_t *c1 = call_op(m, "nn.relu", 1, a1);
  rt_ir_expr_t *c2 = call_op(m, "nn.relu", 1, a2);
  rt_ir_expr_t *c3 = call_op(m, "nn.relu", 1, a3);
  assert_true(rt_ir_struct_equal(c1, c2));
  assert_false(rt_ir_struct_equal(c1, c3));
  assert_int_equal(rt_ir_struct_hash(c1), rt_ir_struct_hash(c2));
  rt_module_release(m);
}

static void test_ir_core_dag_equals_tree(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  int64_t shape[1] = {4};
  rt_ir_expr_t *x = var(m, "x", tensor_type(m, 1, shape));
  rt_ir_expr_t *ax[1] = {x};
  /* DAG: r = relu(x); add(r, r). Tree: add(relu(x), relu(x)). */
  rt_ir_expr_t *r = call_op(m, "nn.relu", 1, ax);
  rt_ir_expr_t *dag_args[2] = {r, r};
  rt_ir_expr_t *dag = call_op(m, "add", 2, dag_args);
  rt_ir_expr_t *tree_args[2] = {call_op(m, "nn.relu", 1, ax), call_op(m, "nn.relu", 1, ax)};
  rt_ir_expr_t *tree = call_op(m, "add", 2, tree_args);
  assert_true(rt_ir_struct_equal(dag, tree));
  assert_int_equal(rt_ir_struct_hash(dag), rt_ir_struct_hash(tree));
  rt_module_release(m);
}

static void test_ir_core_constants_compare_bytes(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  rt_ir_expr_t *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  assert_ok(rt_ir_scalar(m, kNoSpan, RT_DTYPE_FLOAT32, 0.5, &a));
  assert_ok(rt_ir_scalar(m, kNoSpan, RT_DTYPE_FLOAT32, 0.5, &b));
  assert_ok(rt_ir_scalar(m, kNoSpan, RT_DTYPE_FLOAT32, 0.25, &c));
  assert_ok(rt_ir_scalar(m, kNoSpan, RT_DTYPE_FLOAT64, 0.5, &d));
  assert_true(rt_ir_struct_equal(a, b));
  assert_false(rt_ir_struct_equal(a, c));
  assert_false(rt_ir_struct_equal(a, d)); /* dtype differs */
  assert_int_equal(rt_ir_struct_hash(a), rt_ir_struct_hash(b));
  float v;
  memcpy(&v, rt_tensor_data(a->constant.value), 4);
  assert_true(v == 0.5f);
  rt_module_release(m);
}

static void test_ir_core_attrs_are_structural(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  int64_t shape[2] = {2, 3};
  rt_ir_expr_t *x = var(m, "x", tensor_type(m, 2, shape));
  const rt_ir_op_t *sum = rt_ir_op_lookup("sum", 3);
  assert_non_null(sum);
  rt_ir_expr_t *ref = NULL;
  assert_ok(rt_ir_op_ref(m, kNoSpan, sum, &ref));
  const char *keys[1] = {"keepdims"};
  rt_attr_value_t vals[1];
  vals[0].kind = RT_ATTR_BOOL;
  vals[0].b = true;
  rt_ir_attrs_t *keep = NULL;
  assert_ok(rt_ir_op_attrs(m, kNoSpan, sum, 1, keys, vals, &keep));
  rt_ir_expr_t *c1 = NULL, *c2 = NULL;
  rt_ir_expr_t *args[1] = {x};
  assert_ok(rt_ir_call(m, kNoSpan, ref, 1, args, keep, &c1));
  assert_ok(rt_ir_call(m, kNoSpan, ref, 1, args, NULL, &c2));
  assert_false(rt_ir_struct_equal(c1, c2));
  assert_true(rt_ir_struct_equal(c2, c2));
  rt_module_release(m);
}

static void test_ir_core_call_arity_checked(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  int64_t shape[1] = {4};
  rt_ir_expr_t *x = var(m, "x", tensor_type(m, 1, shape));
  const rt_ir_op_t *add = rt_ir_op_lookup("add", 3);
  rt_ir_expr_t *ref = NULL, *call = NULL;
  assert_ok(rt_ir_op_ref(m, kNoSpan, add, &ref));
  rt_ir_expr_t *args[1] = {x};
  assert_status(rt_ir_call(m, kNoSpan, ref, 1, args, NULL, &call), INVALID_ARGUMENT,
                "add takes 2 arguments, got 1");
  rt_module_release(m);
}

static void test_ir_core_module_globals_sorted(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  const char *names[] = {"main", "helper", "zeta", "alpha"};
  for (size_t i = 0; i < 4; ++i) {
    assert_ok(rt_ir_module_add(m, names[i], add_fn(m, "x", "y", false)));
  }
  assert_int_equal(rt_module_num_functions(m), 4);
  assert_string_equal(rt_module_function_name(m, 0), "alpha");
  assert_string_equal(rt_module_function_name(m, 1), "helper");
  assert_string_equal(rt_module_function_name(m, 2), "main");
  assert_string_equal(rt_module_function_name(m, 3), "zeta");
  assert_null(rt_module_function_name(m, 4));
  assert_non_null(rt_ir_module_lookup(m, "helper"));
  assert_null(rt_ir_module_lookup(m, "nope"));
  rt_module_release(m);
}

typedef struct {
  int32_t count;
  uint32_t last_id;
  bool ordered;
} order_check;

static rt_status_t count_visit(void *user, rt_ir_expr_t *e) {
  order_check *oc = user;
  oc->count++;
  /* Built bottom-up, so children have smaller ids than parents. */
  if (e->id < oc->last_id && e->kind == RT_IR_CALL) oc->ordered = false;
  if (e->kind == RT_IR_CALL) oc->last_id = e->id;
  return RT_OK;
}

static void test_ir_core_post_order_deep_chain(void **state) {
  (void)state;
  /* 200000 chained calls: the walk must not use the C stack per level. */
  rt_module_t *m = new_module();
  int64_t shape[1] = {4};
  rt_ir_expr_t *e = var(m, "x", tensor_type(m, 1, shape));
  const int32_t depth = 200000;
  for (int32_t i = 0; i < depth; ++i) {
    rt_ir_expr_t *a[1] = {e};
    e = call_op(m, "nn.relu", 1, a);
  }
  order_check oc = {0, 0, true};
  assert_ok(rt_ir_post_order(rt_allocator_system(), e, count_visit, &oc));
  /* depth calls + 1 var + 1 shared op node (one per call here) */
  assert_int_equal(oc.count, depth + 1 + depth);
  assert_true(oc.ordered);
  /* Equality and hashing of deep programs are iterative too. */
  assert_true(rt_ir_struct_equal(e, e));
  (void)rt_ir_struct_hash(e);
  rt_module_release(m);
}

static void test_ir_core_post_order_visits_shared_once(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  int64_t shape[1] = {4};
  rt_ir_expr_t *x = var(m, "x", tensor_type(m, 1, shape));
  rt_ir_expr_t *ax[1] = {x};
  rt_ir_expr_t *r = call_op(m, "nn.relu", 1, ax);
  rt_ir_expr_t *args[2] = {r, r};
  rt_ir_expr_t *sum = call_op(m, "add", 2, args);
  order_check oc = {0, 0, true};
  assert_ok(rt_ir_post_order(rt_allocator_system(), sum, count_visit, &oc));
  /* x, relu op, r, add op, sum */
  assert_int_equal(oc.count, 5);
  rt_module_release(m);
}

static rt_status_t stop_visit(void *user, rt_ir_expr_t *e) {
  (void)user;
  (void)e;
  return RT_STATUS(CANCELLED, "stop here");
}

static void test_ir_core_post_order_stops_on_error(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  rt_ir_expr_t *f = add_fn(m, "x", "y", false);
  assert_status(rt_ir_post_order(rt_allocator_system(), f, stop_visit, NULL), CANCELLED,
                "stop here");
  rt_module_release(m);
}

static void test_ir_core_verify_ok_and_double_binding(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  rt_ir_expr_t *f = add_fn(m, "x", "y", false);
  assert_ok(rt_ir_module_add(m, "main", f));
  assert_ok(rt_ir_verify(m));
  /* A function binding the same var twice is ill-formed. */
  rt_ir_expr_t *p[2] = {f->fn.params[0], f->fn.params[0]};
  rt_ir_expr_t *bad = NULL;
  assert_ok(rt_ir_function(m, kNoSpan, 2, p, f->fn.body, NULL, NULL, &bad));
  assert_ok(rt_ir_module_add(m, "bad", bad));
  assert_status(rt_ir_verify(m), INTERNAL, "bound twice");
  rt_module_release(m);
}

static void test_ir_core_verify_undefined_global(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  rt_ir_expr_t *g = NULL, *call = NULL, *fn = NULL;
  assert_ok(rt_ir_global_var(m, kNoSpan, "missing", &g));
  assert_ok(rt_ir_call(m, kNoSpan, g, 0, NULL, NULL, &call));
  assert_ok(rt_ir_function(m, kNoSpan, 0, NULL, call, NULL, NULL, &fn));
  assert_ok(rt_ir_module_add(m, "main", fn));
  assert_status(rt_ir_verify(m), INTERNAL, "undefined global @missing");
  rt_module_release(m);
}

static void test_ir_core_type_print(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  int64_t s2[2] = {RT_DIM_ANY, 3}, s1[1] = {64};
  rt_ir_type_t *a = tensor_type(m, 2, s2), *b = tensor_type(m, 1, s1), *c = tensor_type(m, 0, NULL);
  rt_ir_type_t *one = NULL, *pair = NULL, *fn = NULL;
  rt_ir_type_t *f1[1] = {b}, *f2[2] = {a, c};
  assert_ok(rt_ir_tuple_type(m, 1, f1, &one));
  assert_ok(rt_ir_tuple_type(m, 2, f2, &pair));
  assert_ok(rt_ir_func_type(m, 2, f2, one, &fn));
  rt_strbuf_t out;
  rt_strbuf_initialize(&out);
  rt_ir_type_print(a, &out);
  rt_strbuf_puts(&out, " | ");
  rt_ir_type_print(b, &out);
  rt_strbuf_puts(&out, " | ");
  rt_ir_type_print(c, &out);
  rt_strbuf_puts(&out, " | ");
  rt_ir_type_print(one, &out);
  rt_strbuf_puts(&out, " | ");
  rt_ir_type_print(pair, &out);
  rt_strbuf_puts(&out, " | ");
  rt_ir_type_print(fn, &out);
  assert_string_equal(out.data,
                      "Tensor[(?, 3), float32] | Tensor[(64), float32] | float32 | "
                      "(Tensor[(64), float32],) | (Tensor[(?, 3), float32], float32) | "
                      "fn (Tensor[(?, 3), float32], float32) -> (Tensor[(64), float32],)");
  rt_strbuf_deinitialize(&out);
  assert_true(rt_ir_type_equal(a, tensor_type(m, 2, s2)));
  assert_false(rt_ir_type_equal(a, b));
  rt_module_release(m);
}

static void test_ir_core_bad_types_rejected(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  int64_t neg[1] = {-5};
  rt_ir_type_t *t = NULL;
  assert_status(rt_ir_tensor_type(m, RT_DTYPE_FLOAT32, 1, neg, &t), INVALID_ARGUMENT,
                "negative dimension -5");
  assert_status(rt_ir_tensor_type(m, RT_DTYPE_FLOAT32, 99, NULL, &t), INVALID_ARGUMENT,
                "rank 99");
  rt_module_release(m);
}

/* Builds fn (%x: float32) { add(%x, 3) } as "main", propagating failures. */
static rt_status_t build_small(rt_module_t *m) {
  rt_ir_type_t *t = NULL;
  rt_ir_expr_t *x = NULL, *c = NULL, *ref = NULL, *call = NULL, *fn = NULL;
  const rt_ir_op_t *add = rt_ir_op_lookup("add", 3);
  RT_RETURN_IF_ERROR(rt_ir_tensor_type(m, RT_DTYPE_FLOAT32, 0, NULL, &t));
  RT_RETURN_IF_ERROR(rt_ir_var(m, kNoSpan, "x", t, &x));
  RT_RETURN_IF_ERROR(rt_ir_scalar(m, kNoSpan, RT_DTYPE_FLOAT32, 3, &c));
  RT_RETURN_IF_ERROR(rt_ir_op_ref(m, kNoSpan, add, &ref));
  rt_ir_expr_t *args[2] = {x, c};
  RT_RETURN_IF_ERROR(rt_ir_call(m, kNoSpan, ref, 2, args, NULL, &call));
  RT_RETURN_IF_ERROR(rt_ir_function(m, kNoSpan, 1, &x, call, NULL, NULL, &fn));
  RT_RETURN_IF_ERROR(rt_ir_module_add(m, "main", fn));
  return rt_ir_infer_types(m);
}

static void test_ir_core_constructors_fail_cleanly(void **state) {
  (void)state;
  /* Fail each allocation in turn while building and typing a small
   * program: every failure is a status and nothing leaks. */
  int64_t successes = 0;
  for (int64_t n = 0; n < 64; ++n) {
    rt_test_alloc_t st = {0, 0, n, 0};
    rt_module_t *m = NULL;
    rt_status_t s = rt_ir_module_create(rt_test_allocator(&st), &m);
    if (!s) {
      s = build_small(m);
      rt_module_release(m);
    }
    if (!s) successes++;
    rt_status_free(s);
    assert_int_equal(st.live_allocations, 0);
  }
  assert_true(successes > 0); /* past the last allocation it succeeds */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ir_core_alpha_equivalence),
      cmocka_unit_test(test_ir_core_free_vars_match_by_name),
      cmocka_unit_test(test_ir_core_dag_equals_tree),
      cmocka_unit_test(test_ir_core_constants_compare_bytes),
      cmocka_unit_test(test_ir_core_attrs_are_structural),
      cmocka_unit_test(test_ir_core_call_arity_checked),
      cmocka_unit_test(test_ir_core_module_globals_sorted),
      cmocka_unit_test(test_ir_core_post_order_deep_chain),
      cmocka_unit_test(test_ir_core_post_order_visits_shared_once),
      cmocka_unit_test(test_ir_core_post_order_stops_on_error),
      cmocka_unit_test(test_ir_core_verify_ok_and_double_binding),
      cmocka_unit_test(test_ir_core_verify_undefined_global),
      cmocka_unit_test(test_ir_core_type_print),
      cmocka_unit_test(test_ir_core_bad_types_rejected),
      cmocka_unit_test(test_ir_core_constructors_fail_cleanly),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
