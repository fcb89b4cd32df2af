/* The list and option ops on the interpreter (interp/list.c): small Relay
 * programs run through rt_interp with list values as inputs and results,
 * every expected value worked out by hand from ONNX's rules for
 * SequenceInsert/At/Erase/Length, ConcatFromSequence, SplitToSequence and
 * the optionals; bad positions and an empty option's get are errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "interp/interp.h"
#include "test_util.h"

typedef struct run_t {
  rt_module_t *m;
  rt_interp_t *it;
} run_t;

static void load(run_t *r, const char *body) {
  char text[2048];
  snprintf(text, sizeof text, "#[version = \"0.0.5\"]\n%s\n", body);
  assert_ok(rt_ir_module_create(rt_allocator_system(), &r->m));
  assert_ok(rt_ir_parse_module(r->m, "list.relay", text, strlen(text)));
  assert_ok(rt_ir_infer_types(r->m));
  assert_ok(rt_interp_create(rt_allocator_system(), r->m, NULL, &r->it));
}

static void unload(run_t *r) {
  rt_interp_release(r->it);
  rt_module_release(r->m);
}

/* A 1-d or 2-d float32 value from the given numbers. */
static rt_interp_value_t *f32(int32_t rank, const int64_t *shape, const float *v) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), (rt_dtype_t){kDLFloat, 32, 1}, rank, shape, &t));
  memcpy(rt_tensor_data(t), v, rt_tensor_nbytes(t));
  rt_interp_value_t *out = NULL;
  assert_ok(rt_interp_value_tensor(rt_allocator_system(), t, &out));
  rt_tensor_release(t);
  return out;
}

static void expect_f32(const rt_interp_value_t *v, int32_t rank, const int64_t *shape,
                       const float *want) {
  assert_int_equal(v->kind, RT_INTERP_TENSOR);
  assert_int_equal(rt_tensor_rank(v->tensor), rank);
  int64_t n = 1;
  for (int32_t i = 0; i < rank; ++i) {
    assert_int_equal(rt_tensor_shape(v->tensor)[i], shape[i]);
    n *= shape[i];
  }
  const float *got = rt_tensor_data(v->tensor);
  for (int64_t i = 0; i < n; ++i) assert_true(got[i] == want[i]);
}

static int64_t scalar_i64(const rt_interp_value_t *v) {
  assert_int_equal(v->kind, RT_INTERP_TENSOR);
  assert_int_equal(rt_tensor_rank(v->tensor), 0);
  return (int64_t)rt_tensor_get_f64(v->tensor, 0);
}

/* [x] -> insert y at 0: [y, x] -> insert x at -1 (before the last): [y, x, x];
 * erase -3 (the first): [x, x]. */
static void test_list_insert_at_erase(void **state) {
  (void)state;
  run_t r;
  load(&r,
       "def @main(%x: Tensor[(2), float32], %y: Tensor[(3), float32]) {\n"
       "  %0 = list.construct((%x,));\n"
       "  %1 = list.insert(%0, %y, 0);\n"
       "  %2 = list.insert(%1, %x, -1i64);\n"
       "  %3 = list.erase(%2, -3);\n"
       "  (list.length(%2), list.at(%2, 0), list.at(%2, -2), %3)\n"
       "}");
  const int64_t s2[] = {2}, s3[] = {3};
  const float x[] = {1, 2}, y[] = {3, 4, 5};
  rt_interp_value_t *args[2] = {f32(1, s2, x), f32(1, s3, y)};
  rt_interp_value_t *out = NULL;
  assert_ok(rt_interp_call_global(r.it, "main", 2, args, &out));
  assert_int_equal(out->kind, RT_INTERP_TUPLE);
  assert_int_equal(scalar_i64(out->tuple.fields[0]), 3);
  expect_f32(out->tuple.fields[1], 1, s3, y);
  expect_f32(out->tuple.fields[2], 1, s2, x);
  const rt_interp_value_t *l = out->tuple.fields[3];
  assert_int_equal(l->kind, RT_INTERP_LIST);
  assert_int_equal(l->tuple.count, 2);
  expect_f32(l->tuple.fields[0], 1, s2, x);
  expect_f32(l->tuple.fields[1], 1, s2, x);
  rt_interp_value_release(out);
  for (int i = 0; i < 2; ++i) rt_interp_value_release(args[i]);
  unload(&r);
}

/* A list input: [[1, 2], [3]] concatenated is [1, 2, 3]; [1, 2] and [3, 4]
 * stacked on a new last axis are [[1, 3], [2, 4]]. */
static void test_list_concat(void **state) {
  (void)state;
  run_t r;
  load(&r,
       "def @main(%l: List[Tensor[(?), float32]], %a: Tensor[(2), float32], "
       "%b: Tensor[(2), float32]) {\n"
       "  (list.concat(%l, axis=0), list.concat(list.construct((%a, %b)), axis=-1, "
       "new_axis=True))\n"
       "}");
  const int64_t s1[] = {1}, s2[] = {2}, s3[] = {3}, s22[] = {2, 2};
  const float a[] = {1, 2}, b[] = {3}, c[] = {3, 4};
  rt_interp_value_t *items[2] = {f32(1, s2, a), f32(1, s1, b)};
  rt_interp_value_t *args[3] = {NULL, f32(1, s2, a), f32(1, s2, c)};
  assert_ok(rt_interp_value_adt(rt_allocator_system(), RT_INTERP_LIST, 2, items, &args[0]));
  rt_interp_value_t *out = NULL;
  assert_ok(rt_interp_call_global(r.it, "main", 3, args, &out));
  const float cat[] = {1, 2, 3}, stacked[] = {1, 3, 2, 4};
  expect_f32(out->tuple.fields[0], 1, s3, cat);
  expect_f32(out->tuple.fields[1], 2, s22, stacked);
  rt_interp_value_release(out);
  /* A list whose elements differ in rank: the list's type refuses it. */
  const float one[] = {7};
  rt_interp_value_t *bad_items[1] = {f32(0, NULL, one)};
  rt_interp_value_t *bad = NULL;
  assert_ok(rt_interp_value_adt(rt_allocator_system(), RT_INTERP_LIST, 1, bad_items, &bad));
  rt_interp_value_t *bad_args[3] = {bad, args[1], args[2]};
  assert_status(rt_interp_call_global(r.it, "main", 3, bad_args, &out), INVALID_ARGUMENT,
                "List[");
  rt_interp_value_release(bad);
  rt_interp_value_release(bad_items[0]);
  for (int i = 0; i < 3; ++i) rt_interp_value_release(args[i]);
  for (int i = 0; i < 2; ++i) rt_interp_value_release(items[i]);
  unload(&r);
}

/* x = [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]] (5, 2): pieces of 2 rows
 * leave [[8, 9]] last; sizes [1, 4] give a first piece [[0, 1]]; pieces
 * of 1 along axis 1 without keepdims are the columns [0, 2, 4, 6, 8] and
 * [1, 3, 5, 7, 9]. */
static void test_list_split(void **state) {
  (void)state;
  run_t r;
  load(&r,
       "def @main(%x: Tensor[(5, 2), float32], %s: Tensor[(2), int64]) {\n"
       "  %0 = list.split(%x, 2i64, axis=0);\n"
       "  %1 = list.split(%x, %s);\n"
       "  %2 = list.split(%x, zeros(shape=[0], dtype=\"int64\"), axis=1, keepdims=False);\n"
       "  (list.length(%0), list.at(%0, 2), list.at(%1, 0), list.at(%1, 1), list.at(%2, 0), "
       "list.at(%2, 1))\n"
       "}");
  const int64_t s52[] = {5, 2}, s2[] = {2};
  const float x[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  rt_tensor_t *st = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), (rt_dtype_t){kDLInt, 64, 1}, 1, s2, &st));
  ((int64_t *)rt_tensor_data(st))[0] = 1;
  ((int64_t *)rt_tensor_data(st))[1] = 4;
  rt_interp_value_t *args[2] = {f32(2, s52, x), NULL};
  assert_ok(rt_interp_value_tensor(rt_allocator_system(), st, &args[1]));
  rt_tensor_release(st);
  rt_interp_value_t *out = NULL;
  assert_ok(rt_interp_call_global(r.it, "main", 2, args, &out));
  assert_int_equal(scalar_i64(out->tuple.fields[0]), 3);
  const int64_t s12[] = {1, 2}, s42[] = {4, 2}, s5[] = {5};
  const float last[] = {8, 9}, first[] = {0, 1}, rest[] = {2, 3, 4, 5, 6, 7, 8, 9};
  const float col0[] = {0, 2, 4, 6, 8}, col1[] = {1, 3, 5, 7, 9};
  expect_f32(out->tuple.fields[1], 2, s12, last);
  expect_f32(out->tuple.fields[2], 2, s12, first);
  expect_f32(out->tuple.fields[3], 2, s42, rest);
  expect_f32(out->tuple.fields[4], 1, s5, col0);
  expect_f32(out->tuple.fields[5], 1, s5, col1);
  rt_interp_value_release(out);
  /* Sizes that do not add up to the axis. */
  ((int64_t *)rt_tensor_data(args[1]->tensor))[1] = 3;
  assert_status(rt_interp_call_global(r.it, "main", 2, args, &out), INVALID_ARGUMENT,
                "add up to 4, the axis has 5");
  for (int i = 0; i < 2; ++i) rt_interp_value_release(args[i]);
  unload(&r);
}

static void test_list_bad_positions(void **state) {
  (void)state;
  run_t r;
  load(&r,
       "def @main(%x: Tensor[(2), float32], %p: int64) {\n"
       "  list.at(list.construct((%x, %x)), %p)\n"
       "}");
  const int64_t s2[] = {2};
  const float x[] = {1, 2};
  rt_tensor_t *p = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), (rt_dtype_t){kDLInt, 64, 1}, 0, NULL, &p));
  rt_interp_value_t *args[2] = {f32(1, s2, x), NULL};
  assert_ok(rt_interp_value_tensor(rt_allocator_system(), p, &args[1]));
  rt_interp_value_t *out = NULL;
  *(int64_t *)rt_tensor_data(p) = 2;
  assert_status(rt_interp_call_global(r.it, "main", 2, args, &out), INVALID_ARGUMENT,
                "list.at: position 2 is out of range for a list of 2 (accepted: -2 to 1)");
  *(int64_t *)rt_tensor_data(p) = -3;
  assert_status(rt_interp_call_global(r.it, "main", 2, args, &out), INVALID_ARGUMENT,
                "position -3 is out of range");
  *(int64_t *)rt_tensor_data(p) = -2;
  assert_ok(rt_interp_call_global(r.it, "main", 2, args, &out));
  expect_f32(out, 1, s2, x);
  rt_interp_value_release(out);
  rt_tensor_release(p);
  for (int i = 0; i < 2; ++i) rt_interp_value_release(args[i]);
  unload(&r);
}

static void test_list_options(void **state) {
  (void)state;
  run_t r;
  load(&r,
       "def @main(%x: Tensor[(2), float32], %o: Option[Tensor[(2), float32]]) {\n"
       "  (option.is_some(option.some(%x)), option.is_some(option.none(rank=1)), "
       "option.is_some(%o), option.get(%o))\n"
       "}");
  const int64_t s2[] = {2};
  const float x[] = {1, 2};
  rt_interp_value_t *args[2] = {f32(1, s2, x), NULL};
  assert_ok(rt_interp_value_adt(rt_allocator_system(), RT_INTERP_OPTION, 1, args, &args[1]));
  rt_interp_value_t *out = NULL;
  assert_ok(rt_interp_call_global(r.it, "main", 2, args, &out));
  assert_int_equal(scalar_i64(out->tuple.fields[0]), 1);
  assert_int_equal(scalar_i64(out->tuple.fields[1]), 0);
  assert_int_equal(scalar_i64(out->tuple.fields[2]), 1);
  expect_f32(out->tuple.fields[3], 1, s2, x);
  rt_interp_value_release(out);
  rt_interp_value_release(args[1]);
  assert_ok(rt_interp_value_adt(rt_allocator_system(), RT_INTERP_OPTION, 0, NULL, &args[1]));
  assert_status(rt_interp_call_global(r.it, "main", 2, args, &out), INVALID_ARGUMENT,
                "option.get of an empty option");
  for (int i = 0; i < 2; ++i) rt_interp_value_release(args[i]);
  unload(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_list_insert_at_erase),
      cmocka_unit_test(test_list_concat),
      cmocka_unit_test(test_list_split),
      cmocka_unit_test(test_list_bad_positions),
      cmocka_unit_test(test_list_options),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
