/* Tests of dtypes: names as Relay prints them, parsing (uint1 as bool,
 * vector lanes), validity, sizes and the predicates. */
#include <string.h>

#include "test_util.h"

typedef struct {
  const char *name;
  rt_dtype_t dtype;
  size_t size;
} dtype_case;

static const dtype_case kCases[] = {
    {"bool", {kDLBool, 8, 1}, 1},       {"int8", {kDLInt, 8, 1}, 1},
    {"int16", {kDLInt, 16, 1}, 2},      {"int32", {kDLInt, 32, 1}, 4},
    {"int64", {kDLInt, 64, 1}, 8},      {"uint8", {kDLUInt, 8, 1}, 1},
    {"uint16", {kDLUInt, 16, 1}, 2},    {"uint32", {kDLUInt, 32, 1}, 4},
    {"uint64", {kDLUInt, 64, 1}, 8},    {"float16", {kDLFloat, 16, 1}, 2},
    {"bfloat16", {kDLBfloat, 16, 1}, 2}, {"float32", {kDLFloat, 32, 1}, 4},
    {"float64", {kDLFloat, 64, 1}, 8},
};

static void test_dtype_names_round_trip(void **state) {
  (void)state;
  for (size_t i = 0; i < RT_COUNTOF(kCases); ++i) {
    char buf[RT_DTYPE_NAME_MAX];
    assert_string_equal(rt_dtype_name(kCases[i].dtype, buf), kCases[i].name);
    rt_dtype_t parsed;
    assert_ok(rt_dtype_parse(kCases[i].name, strlen(kCases[i].name), &parsed));
    assert_true(rt_dtype_equal(parsed, kCases[i].dtype));
    assert_true(rt_dtype_is_valid(parsed));
    assert_int_equal(rt_dtype_size(parsed), kCases[i].size);
  }
}

static void test_dtype_macros_match(void **state) {
  (void)state;
  assert_true(rt_dtype_equal(RT_DTYPE_BOOL, kCases[0].dtype));
  assert_true(rt_dtype_equal(RT_DTYPE_FLOAT32, (rt_dtype_t){kDLFloat, 32, 1}));
  assert_true(rt_dtype_equal(RT_DTYPE_BFLOAT16, (rt_dtype_t){kDLBfloat, 16, 1}));
  assert_false(rt_dtype_equal(RT_DTYPE_INT32, RT_DTYPE_UINT32));
}

static void test_dtype_uint1_is_bool(void **state) {
  (void)state;
  rt_dtype_t d;
  assert_ok(rt_dtype_parse("uint1", 5, &d));
  assert_true(rt_dtype_equal(d, RT_DTYPE_BOOL));
  char buf[RT_DTYPE_NAME_MAX];
  assert_string_equal(rt_dtype_name(d, buf), "bool");
}

static void test_dtype_vector_lanes(void **state) {
  (void)state;
  rt_dtype_t d;
  assert_ok(rt_dtype_parse("float16x4", 9, &d));
  assert_int_equal(d.code, kDLFloat);
  assert_int_equal(d.bits, 16);
  assert_int_equal(d.lanes, 4);
  assert_int_equal(rt_dtype_size(d), 8);
  assert_true(rt_dtype_is_valid(d));
  char buf[RT_DTYPE_NAME_MAX];
  assert_string_equal(rt_dtype_name(d, buf), "float16x4");
  rt_dtype_t wide = {kDLBfloat, 16, 65535};
  assert_string_equal(rt_dtype_name(wide, buf), "bfloat16x65535");
  assert_ok(rt_dtype_parse("bfloat16x65535", 14, &d));
  assert_true(rt_dtype_equal(d, wide));
  /* A length, not a NUL, ends the name. */
  assert_ok(rt_dtype_parse("int8x16junk", 7, &d));
  assert_true(rt_dtype_equal(d, ((rt_dtype_t){kDLInt, 8, 16})));
}

static void test_dtype_parse_rejects(void **state) {
  (void)state;
  static const char *bad[] = {"", "float", "float31", "int", "int128", "uint1x",
                              "float32x0", "float32x65536", "float32x04", "Float32",
                              "float32 ", "x4", "bool8", "complex64", "handle",
                              "float32x4x4"};
  for (size_t i = 0; i < RT_COUNTOF(bad); ++i) {
    rt_dtype_t d;
    assert_status(rt_dtype_parse(bad[i], strlen(bad[i]), &d), INVALID_ARGUMENT,
                  "unknown dtype");
  }
  char longname[300];
  memset(longname, 'q', sizeof longname);
  rt_dtype_t d;
  assert_status(rt_dtype_parse(longname, sizeof longname, &d), INVALID_ARGUMENT, "...");
}

static void test_dtype_validity(void **state) {
  (void)state;
  assert_false(rt_dtype_is_valid((rt_dtype_t){kDLFloat, 32, 0}));
  assert_false(rt_dtype_is_valid((rt_dtype_t){kDLFloat, 8, 1}));
  assert_false(rt_dtype_is_valid((rt_dtype_t){kDLUInt, 1, 1})); /* TVM bool */
  assert_false(rt_dtype_is_valid((rt_dtype_t){kDLBool, 1, 1}));
  assert_false(rt_dtype_is_valid((rt_dtype_t){kDLComplex, 64, 1}));
  assert_false(rt_dtype_is_valid((rt_dtype_t){kDLBfloat, 32, 1}));
  assert_false(rt_dtype_is_valid((rt_dtype_t){kDLOpaqueHandle, 64, 1}));
  assert_false(rt_dtype_is_valid((rt_dtype_t){99, 32, 1}));
  char buf[RT_DTYPE_NAME_MAX];
  assert_string_equal(rt_dtype_name((rt_dtype_t){kDLComplex, 64, 1}, buf), "complex64");
  assert_string_equal(rt_dtype_name((rt_dtype_t){99, 32, 2}, buf), "code99_32x2");
  assert_string_equal(rt_dtype_name((rt_dtype_t){255, 255, 65535}, buf),
                      "code255_255x65535");
}

static void test_dtype_predicates(void **state) {
  (void)state;
  assert_true(rt_dtype_is_float(RT_DTYPE_FLOAT16));
  assert_true(rt_dtype_is_float(RT_DTYPE_BFLOAT16));
  assert_true(rt_dtype_is_float(RT_DTYPE_FLOAT64));
  assert_false(rt_dtype_is_float(RT_DTYPE_INT32));
  assert_true(rt_dtype_is_int(RT_DTYPE_INT8));
  assert_false(rt_dtype_is_int(RT_DTYPE_UINT8));
  assert_true(rt_dtype_is_uint(RT_DTYPE_UINT64));
  assert_false(rt_dtype_is_uint(RT_DTYPE_BOOL));
  assert_true(rt_dtype_is_bool(RT_DTYPE_BOOL));
  assert_false(rt_dtype_is_bool(RT_DTYPE_UINT8));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dtype_names_round_trip),
      cmocka_unit_test(test_dtype_macros_match),
      cmocka_unit_test(test_dtype_uint1_is_bool),
      cmocka_unit_test(test_dtype_vector_lanes),
      cmocka_unit_test(test_dtype_parse_rejects),
      cmocka_unit_test(test_dtype_validity),
      cmocka_unit_test(test_dtype_predicates),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
