/* Sequences and optionals through the executor API (include/rt/executor.h):
 * a List, an Option of a tensor and an Option of a List as @main's inputs
 * and outputs on the debug and vm executors (rt_executor_set_input_items,
 * rt_executor_get_output_items / _item), their kinds and count tensors,
 * misuse refused with a status, and the graph executor refusing such a
 * model naming the vm and debug executors. On the vm the list ops are host
 * ops (backend/vm_host.c) and list.concat's result feeds a JIT kernel.
 * Expected values by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rt/rt.h"
#include "test_util.h"

static const char kProgram[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%l: List[Tensor[(?), float32]], %o: Option[Tensor[(2), float32]],\n"
    "          %ol: Option[List[Tensor[(?), float32]]], %x: Tensor[(2), float32]) {\n"
    "  %0 = list.insert(%l, %x, 0);\n"
    "  (%0, list.length(%l), option.is_some(%o), %ol, add(list.concat(%0, axis=0), 0f))\n"
    "}\n";

static rt_tensor_t *vec(int64_t n, float first) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), (rt_dtype_t){kDLFloat, 32, 1}, 1, &n, &t));
  for (int64_t i = 0; i < n; ++i) ((float *)rt_tensor_data(t))[i] = first + (float)i;
  return t;
}

static int64_t i64_of(rt_tensor_t *t) { return (int64_t)rt_tensor_get_f64(t, 0); }

static void check_items(const char *executor) {
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(kProgram, strlen(kProgram), "items.relay", &m));
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor(executor, m, NULL, NULL, NULL, &ex));
  rt_value_kind_t kind;
  assert_ok(rt_executor_input_kind(ex, 0, &kind));
  assert_int_equal(kind, RT_VALUE_LIST);
  assert_ok(rt_executor_input_kind(ex, 1, &kind));
  assert_int_equal(kind, RT_VALUE_OPTION);
  assert_ok(rt_executor_input_kind(ex, 2, &kind));
  assert_int_equal(kind, RT_VALUE_OPTION_LIST);
  assert_ok(rt_executor_input_kind(ex, 3, &kind));
  assert_int_equal(kind, RT_VALUE_TENSOR);
  assert_ok(rt_executor_output_kind(ex, 0, &kind));
  assert_int_equal(kind, RT_VALUE_LIST);
  assert_ok(rt_executor_output_kind(ex, 3, &kind));
  assert_int_equal(kind, RT_VALUE_OPTION_LIST);
  rt_tensor_info_t info;
  assert_ok(rt_executor_input_info(ex, 0, &info));
  assert_int_equal(info.rank, 0);

  rt_tensor_t *a = vec(3, 1), *b = vec(1, 10), *x = vec(2, 20);
  rt_tensor_t *items[2] = {a, b};
  /* Misuse: a tensor input, an absent List, two items for an Option of a
   * tensor, a list input left unset. */
  assert_status(rt_executor_set_input_items(ex, 3, true, 1, &x), INVALID_ARGUMENT,
                "is a tensor");
  assert_status(rt_executor_set_input_items(ex, 0, false, 0, NULL), INVALID_ARGUMENT,
                "always present");
  assert_status(rt_executor_set_input_items(ex, 1, true, 2, items), INVALID_ARGUMENT,
                "give one item");
  assert_ok(rt_executor_set_input(ex, 3, x));
  assert_ok(rt_executor_set_input_items(ex, 1, true, 1, &x));
  assert_ok(rt_executor_set_input_items(ex, 2, false, 0, NULL));
  assert_status(rt_executor_run(ex), FAILED_PRECONDITION, "");

  assert_ok(rt_executor_set_input_items(ex, 0, true, 2, items));
  assert_ok(rt_executor_run(ex));
  /* Output 0: [x, a, b]; its count tensor is 3. */
  rt_tensor_t *t = NULL;
  bool present = false;
  int32_t n = 0;
  assert_ok(rt_executor_get_output(ex, 0, &t));
  assert_int_equal(i64_of(t), 3);
  assert_ok(rt_executor_get_output_items(ex, 0, &present, &n));
  assert_true(present);
  assert_int_equal(n, 3);
  assert_ok(rt_executor_get_output_item(ex, 0, 0, &t));
  /* The items are the tensors given, not copies. */
  assert_ptr_equal(t, x);
  assert_ok(rt_executor_get_output_item(ex, 0, 2, &t));
  assert_ptr_equal(t, b);
  assert_status(rt_executor_get_output_item(ex, 0, 3, &t), OUT_OF_RANGE, "has no item 3");
  /* Outputs 1, 2: the length 2, is_some true. */
  assert_ok(rt_executor_get_output(ex, 1, &t));
  assert_int_equal(i64_of(t), 2);
  assert_ok(rt_executor_get_output(ex, 2, &t));
  assert_int_equal(i64_of(t), 1);
  /* Output 3: the absent option (count -1). */
  assert_ok(rt_executor_get_output(ex, 3, &t));
  assert_int_equal(i64_of(t), -1);
  assert_ok(rt_executor_get_output_items(ex, 3, &present, &n));
  assert_false(present);
  assert_int_equal(n, 0);
  /* Output 4: concat [20, 21, 1, 2, 3, 10]. */
  assert_ok(rt_executor_get_output(ex, 4, &t));
  const float want[] = {20, 21, 1, 2, 3, 10};
  assert_int_equal(rt_tensor_shape(t)[0], 6);
  for (int i = 0; i < 6; ++i) assert_true(((const float *)rt_tensor_data(t))[i] == want[i]);
  assert_status(rt_executor_get_output_items(ex, 4, &present, &n), FAILED_PRECONDITION,
                "is a tensor");
  /* An Option of a List, present with two items. */
  assert_ok(rt_executor_set_input_items(ex, 2, true, 2, items));
  assert_ok(rt_executor_run(ex));
  assert_ok(rt_executor_get_output_items(ex, 3, &present, &n));
  assert_true(present);
  assert_int_equal(n, 2);
  assert_ok(rt_executor_get_output_item(ex, 3, 1, &t));
  assert_ptr_equal(t, b);
  /* An item of the wrong rank: the run names the input. */
  rt_tensor_t *s = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), (rt_dtype_t){kDLFloat, 32, 1}, 0, NULL, &s));
  assert_ok(rt_executor_set_input_items(ex, 0, true, 1, &s));
  assert_status(rt_executor_run(ex), INVALID_ARGUMENT, "%l");
  rt_tensor_release(s);
  rt_tensor_release(a);
  rt_tensor_release(b);
  rt_tensor_release(x);
  rt_executor_release(ex);
  rt_module_release(m);
}

static void test_items_debug(void **state) {
  (void)state;
  check_items("debug");
}

static void test_items_vm(void **state) {
  (void)state;
  check_items("vm");
}

static void test_items_refused_by_graph(void **state) {
  (void)state;
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(kProgram, strlen(kProgram), "items.relay", &m));
  rt_executor_t *ex = NULL;
  assert_status(rt_create_executor("graph", m, NULL, NULL, NULL, &ex), INVALID_ARGUMENT,
                "does not run list and option values (parameter %l of @main is a List); use "
                "the \"vm\" or \"debug\" executor");
  rt_module_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_items_debug),
      cmocka_unit_test(test_items_vm),
      cmocka_unit_test(test_items_refused_by_graph),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
