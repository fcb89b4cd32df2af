/* Attribute values (ir/attrs.c): parse/print round trips of every value
 * kind, literal errors, float printing (shortest exact form, f suffix),
 * conversions to each schema kind and their error messages, equality and
 * hashing, and the rt_attrs_* accessors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "test_util.h"
#include "runtime/mem.h"

static rt_arena_t g_arena;

static int setup(void **state) {
  (void)state;
  rt_arena_initialize(rt_allocator_system(), &g_arena);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rt_arena_deinitialize(&g_arena);
  return 0;
}

static char *print_value(const rt_attr_value_t *v) {
  rt_strbuf_t sb;
  rt_strbuf_initialize(&sb);
  rt_attr_value_print(v, &sb);
  char *text = NULL;
  size_t len = 0;
  assert_ok(rt_strbuf_finish(&sb, &text, &len));
  return text;
}

/* parse(text) prints as `expect`, and that prints to itself again. */
static void check_round_trip(const char *text, const char *expect) {
  rt_attr_value_t v, w;
  assert_ok(rt_attr_value_parse(&g_arena, text, &v));
  char *printed = print_value(&v);
  if (strcmp(printed, expect) != 0) fail_msg("%s printed as %s, want %s", text, printed, expect);
  assert_ok(rt_attr_value_parse(&g_arena, printed, &w));
  assert_true(rt_attr_value_equal(&v, &w));
  assert_true(rt_attr_value_hash(&v, 7) == rt_attr_value_hash(&w, 7));
  rt_mem_free(printed);
}

static void test_attrs_round_trip(void **state) {
  (void)state;
  static const char *const cases[][2] = {
      {"1", "1"},
      {"-3", "-3"},
      {"--10", "10"},
      {"---10", "-10"},
      {"1i64", "1"},
      {"7i16", "7"},
      {"5i", "5"},
      {"2147483648", "2147483648"},
      {"True", "True"},
      {"False", "False"},
      {"None", "None"},
      {"nullptr", "None"},
      {"\"NCHW\"", "\"NCHW\""},
      {"\"\"", "\"\""},
      {"\"a b\\c\"", "\"a b\\c\""},
      {"[]", "[]"},
      {"[1,1]", "[1, 1]"},
      {"[ 1 , -2 , 3 , ]", "[1, -2, 3]"},
      {"[[0, 0], [1, 2]]", "[[0, 0], [1, 2]]"},
      {"[1, 0.5f, \"s\", True, None, [2]]", "[1, 0.5f, \"s\", True, None, [2]]"},
      {"(5)", "5"},
      {"((\"x\"))", "\"x\""},
      {"  [1]  ", "[1]"},
      {"1f", "1f"},
      {"0.5f", "0.5f"},
      {"1e-05f", "1e-05f"},
      {"1e-5f", "1e-05f"},
      {"3.14159f", "3.14159f"},
      {"1.5f16", "1.5f"},
      {"2f32", "2f"},
      {"0.1f64", "0.1f"},
      {"-0.25f", "-0.25f"},
      {"inff", "inff"},
      {"-inff", "-inff"},
      {"1e300f64", "1e+300f"},
      {"1E3f", "1000f"},
      {"123456789f64", "123456789f"},
  };
  for (size_t i = 0; i < RT_COUNTOF(cases); ++i) check_round_trip(cases[i][0], cases[i][1]);
}

/* Floats print in the shortest form (>= 6 digits) that reads back. */
static void test_attrs_float_print(void **state) {
  (void)state;
  static const struct { double v; const char *text; } cases[] = {
      {0.1, "0.1f"},       {1e-05, "1e-05f"},  {3.14159, "3.14159f"},
      {1e300, "1e+300f"},  {-INFINITY, "-inff"}, {1.0, "1f"},
      {0.0, "0f"},         {100000, "100000f"}, {1234567, "1234567f"},
      {1.0 / 3, "0.3333333333333333f"},        {2.5e-10, "2.5e-10f"},
  };
  for (size_t i = 0; i < RT_COUNTOF(cases); ++i) {
    rt_attr_value_t v = {.kind = RT_ATTR_FLOAT, .f = cases[i].v};
    char *text = print_value(&v);
    assert_string_equal(text, cases[i].text);
    rt_attr_value_t back;
    assert_ok(rt_attr_value_parse(&g_arena, text, &back));
    assert_int_equal(back.kind, RT_ATTR_FLOAT);
    assert_true(back.f == cases[i].v);
    rt_mem_free(text);
  }
  rt_attr_value_t nan_value = {.kind = RT_ATTR_FLOAT, .f = NAN};
  assert_true(rt_attr_value_equal(&nan_value, &nan_value));
  rt_attr_value_t zero = {.kind = RT_ATTR_FLOAT, .f = 0.0};
  rt_attr_value_t neg_zero = {.kind = RT_ATTR_FLOAT, .f = -0.0};
  assert_true(rt_attr_value_equal(&zero, &neg_zero));
  assert_true(rt_attr_value_hash(&zero, 1) == rt_attr_value_hash(&neg_zero, 1));
}

static void test_attrs_parse_errors(void **state) {
  (void)state;
  static const char *const bad[] = {
      "", "1.5", "1e5", "[1, 2", "[1 2]", "\"abc", "2147483648i32", "32768i16",
      "1i8", "abc", "1 2", "true", "1x", "[", "(1", "-", "65505f16", "1e999f",
      "Nonesuch",
  };
  for (size_t i = 0; i < RT_COUNTOF(bad); ++i) {
    rt_attr_value_t v;
    rt_status_t st = rt_attr_value_parse(&g_arena, bad[i], &v);
    if (!st) fail_msg("\"%s\" parsed", bad[i]);
    assert_int_equal(rt_status_code(st), RT_STATUS_INVALID_ARGUMENT);
    rt_status_free(st);
  }
  rt_attr_value_t v;
  assert_status(rt_attr_value_parse(&g_arena, "1.5", &v), INVALID_ARGUMENT, "f suffix");
  /* Deep nesting is an error, not a stack overflow. */
  char deep[400];
  memset(deep, '[', sizeof deep - 1);
  deep[sizeof deep - 1] = '\0';
  assert_status(rt_attr_value_parse(&g_arena, deep, &v), INVALID_ARGUMENT, "nested too deeply");
}

static void convert_ok(rt_attr_kind_t kind, uint32_t flags, const char *text,
                       const char *expect) {
  rt_attr_field_t f = {"x", kind, NULL, flags};
  rt_attr_value_t v, out;
  assert_ok(rt_attr_value_parse(&g_arena, text, &v));
  assert_ok(rt_attr_value_convert(&g_arena, "test.op", &f, &v, &out));
  char *printed = print_value(&out);
  if (strcmp(printed, expect) != 0) fail_msg("%s converted to %s, want %s", text, printed, expect);
  rt_mem_free(printed);
}

static void convert_bad(rt_attr_kind_t kind, uint32_t flags, const char *text,
                        const char *message) {
  rt_attr_field_t f = {"strides", kind, NULL, flags};
  rt_attr_value_t v, out;
  assert_ok(rt_attr_value_parse(&g_arena, text, &v));
  assert_status(rt_attr_value_convert(&g_arena, "nn.conv2d", &f, &v, &out), INVALID_ARGUMENT,
                message);
}

static void test_attrs_convert(void **state) {
  (void)state;
  convert_ok(RT_ATTR_K_INT, 0, "3", "3");
  convert_ok(RT_ATTR_K_INT, 0, "True", "1");
  convert_ok(RT_ATTR_K_FLOAT, 0, "2", "2f");
  convert_ok(RT_ATTR_K_FLOAT, 0, "2.5f", "2.5f");
  convert_ok(RT_ATTR_K_BOOL, 0, "1", "True");
  convert_ok(RT_ATTR_K_BOOL, 0, "0", "False");
  convert_ok(RT_ATTR_K_STRING, 0, "\"NHWC\"", "\"NHWC\"");
  convert_ok(RT_ATTR_K_DTYPE, 0, "\"float16\"", "\"float16\"");
  convert_ok(RT_ATTR_K_DTYPE, 0, "\"\"", "\"\"");
  convert_ok(RT_ATTR_K_INTS, 0, "[1, 2]", "[1, 2]");
  convert_ok(RT_ATTR_K_INTS, 0, "4", "[4]");
  convert_ok(RT_ATTR_K_INTS, 0, "[]", "[]");
  convert_ok(RT_ATTR_K_INTS, RT_ATTR_F_NULLABLE, "None", "None");
  convert_ok(RT_ATTR_K_INTS2, 0, "[[0, 0], [1, 1]]", "[[0, 0], [1, 1]]");
  convert_ok(RT_ATTR_K_INT_OR_INTS, 0, "3", "3");
  convert_ok(RT_ATTR_K_INT_OR_INTS, 0, "[1, 3]", "[1, 3]");
  convert_ok(RT_ATTR_K_FLOATS, 0, "[1, 0.5f]", "[1f, 0.5f]");
  convert_ok(RT_ATTR_K_ANY, 0, "[\"a\", 1]", "[\"a\", 1]");
  convert_ok(RT_ATTR_K_ANY, 0, "None", "None");
  convert_bad(RT_ATTR_K_INTS, 0, "\"a\"", "attribute 'strides' of nn.conv2d expects ints, got \"a\"");
  convert_bad(RT_ATTR_K_INTS, 0, "[1, 2.5f]", "expects ints, got [1, 2.5f]");
  convert_bad(RT_ATTR_K_INTS, 0, "None", "expects ints, got None");
  convert_bad(RT_ATTR_K_INTS, RT_ATTR_F_NULLABLE, "\"a\"", "expects ints or None");
  convert_bad(RT_ATTR_K_INT, 0, "1.5f", "expects an int, got 1.5f");
  convert_bad(RT_ATTR_K_FLOAT, 0, "\"1\"", "expects a float");
  convert_bad(RT_ATTR_K_BOOL, 0, "2", "expects a bool, got 2");
  convert_bad(RT_ATTR_K_STRING, 0, "1", "expects a string, got 1");
  convert_bad(RT_ATTR_K_DTYPE, 0, "\"float33\"", "expects a dtype, got \"float33\"");
  convert_bad(RT_ATTR_K_INTS2, 0, "[1, 2]", "expects an array of int arrays");
  convert_bad(RT_ATTR_K_INT_OR_INTS, 0, "[[1]]", "expects an int or ints");
  convert_bad(RT_ATTR_K_FLOATS, 0, "[\"x\"]", "expects floats");
  /* Converted values are deep copies. */
  rt_arena_t other;
  rt_arena_initialize(rt_allocator_system(), &other);
  rt_attr_value_t v, out;
  rt_attr_field_t f = {"x", RT_ATTR_K_ANY, NULL, 0};
  assert_ok(rt_attr_value_parse(&other, "[\"abc\", [1]]", &v));
  assert_ok(rt_attr_value_convert(&g_arena, "t", &f, &v, &out));
  rt_arena_deinitialize(&other);
  char *printed = print_value(&out);
  assert_string_equal(printed, "[\"abc\", [1]]");
  rt_mem_free(printed);
}

static void test_attrs_equal_hash(void **state) {
  (void)state;
  static const char *const texts[] = {"1", "1f", "True", "\"1\"", "[1]", "None", "[1, 2]",
                                      "[2, 1]", "[[1], [2]]", "[[1, 2]]", "2", "\"\""};
  rt_attr_value_t v[RT_COUNTOF(texts)];
  for (size_t i = 0; i < RT_COUNTOF(texts); ++i) {
    assert_ok(rt_attr_value_parse(&g_arena, texts[i], &v[i]));
  }
  for (size_t i = 0; i < RT_COUNTOF(texts); ++i) {
    for (size_t j = 0; j < RT_COUNTOF(texts); ++j) {
      assert_int_equal(rt_attr_value_equal(&v[i], &v[j]), i == j);
      if (i != j) assert_true(rt_attr_value_hash(&v[i], 0) != rt_attr_value_hash(&v[j], 0));
    }
  }
  assert_true(rt_attr_value_hash(&v[0], 1) != rt_attr_value_hash(&v[0], 2));
}

static void test_attrs_accessors(void **state) {
  (void)state;
  const char *keys[] = {"i", "f", "b", "s", "n", "a", "one"};
  const char *texts[] = {"3", "0.5f", "True", "\"NCHW\"", "None", "[4, 5, 6]", "7"};
  rt_attr_value_t values[7];
  for (int i = 0; i < 7; ++i) assert_ok(rt_attr_value_parse(&g_arena, texts[i], &values[i]));
  rt_ir_attrs_t attrs = {7, keys, values};
  assert_int_equal(rt_attrs_int(&attrs, "i"), 3);
  assert_int_equal(rt_attrs_int(&attrs, "b"), 1);
  assert_true(rt_attrs_float(&attrs, "f") == 0.5);
  assert_true(rt_attrs_float(&attrs, "i") == 3.0);
  assert_true(rt_attrs_bool(&attrs, "b"));
  assert_true(rt_attrs_bool(&attrs, "i"));
  assert_string_equal(rt_attrs_string(&attrs, "s"), "NCHW");
  assert_string_equal(rt_attrs_string(&attrs, "n"), "");
  assert_true(rt_attrs_is_none(&attrs, "n"));
  assert_false(rt_attrs_is_none(&attrs, "i"));
  assert_int_equal(rt_attrs_ints_count(&attrs, "a"), 3);
  assert_int_equal(rt_attrs_ints_at(&attrs, "a", 2), 6);
  assert_int_equal(rt_attrs_ints_count(&attrs, "n"), 0);
  assert_int_equal(rt_attrs_ints_count(&attrs, "one"), 1);
  assert_int_equal(rt_attrs_ints_at(&attrs, "one", 0), 7);
  assert_ptr_equal(rt_attrs_get(&attrs, "a"), &values[5]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_attrs_round_trip),
      cmocka_unit_test(test_attrs_float_print),
      cmocka_unit_test(test_attrs_parse_errors),
      cmocka_unit_test(test_attrs_convert),
      cmocka_unit_test(test_attrs_equal_hash),
      cmocka_unit_test(test_attrs_accessors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
