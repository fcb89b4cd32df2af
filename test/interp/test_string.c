/* Tests of the string kernels (interp/kernels/string.c) through the debug
 * executor, with hand-written expected values: string_lookup,
 * string_normalizer (stopwords
 * case-sensitive and not, ASCII case changes, letters beyond ASCII kept,
 * every word dropped -> one empty string, [1, C] input), cast between
 * strings and numbers (shortest round-trip float32 text, NaN and INF
 * spellings, integers; text that is not a number is an error naming the
 * element), and the graph and vm executors refusing string tensors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rt/rt.h"
#include "test_util.h"

static rt_tensor_t *strings(int32_t rank, const int64_t *shape, const char *const *v) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_STRING, rank, shape, &t));
  for (int64_t i = 0; i < rt_tensor_numel(t); ++i) {
    assert_ok(rt_tensor_set_string(t, i, v[i], strlen(v[i])));
  }
  return t;
}

/* Runs `body` over one param %x of type `xtype` on the debug executor;
 * returns output 0 (a new reference). */
static rt_tensor_t *run1(const char *xtype, const char *body, rt_tensor_t *x) {
  char src[2048];
  snprintf(src, sizeof src, "#[version = \"0.0.5\"]\ndef @main(%%x: %s) {\n  %s\n}\n", xtype, body);
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(src, strlen(src), "t.relay", &m));
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ex));
  assert_ok(rt_executor_set_input(ex, 0, x));
  assert_ok(rt_executor_run(ex));
  rt_tensor_t *out = NULL;
  assert_ok(rt_executor_get_output(ex, 0, &out));
  rt_tensor_retain(out);
  rt_executor_release(ex);
  rt_module_release(m);
  return out;
}

static void expect_strings(const rt_tensor_t *t, int32_t rank, const int64_t *shape,
                           const char *const *want) {
  assert_true(rt_dtype_is_string(rt_tensor_dtype(t)));
  assert_int_equal(rt_tensor_rank(t), rank);
  for (int32_t i = 0; i < rank; ++i) assert_int_equal(rt_tensor_shape(t)[i], shape[i]);
  const rt_string_t *e = rt_tensor_data(t);
  for (int64_t i = 0; i < rt_tensor_numel(t); ++i) {
    if ((size_t)e[i].size != strlen(want[i]) || (e[i].size && memcmp(e[i].data, want[i], strlen(want[i])) != 0)) {
      print_error("element %lld: \"%.*s\", expected \"%s\"\n", (long long)i, (int)e[i].size,
                  e[i].data ? e[i].data : "", want[i]);
      fail();
    }
  }
}

static void test_string_normalizer(void **state) {
  (void)state;
  const int64_t s5[] = {5};
  const char *in[] = {"Monday", "tuesday", "monday", "\xc3\x89t\xc3\xa9", "MONDAY"};
  rt_tensor_t *x = strings(1, s5, in);
  /* Case-insensitive stopwords (the default), then upper case: the three
   * mondays go, ASCII letters change, É and é stay. */
  rt_tensor_t *y = run1("Tensor[(5), string]",
                        "string_normalizer(%x, case_change_action=\"UPPER\", stopwords=[\"monday\"])", x);
  const int64_t s2[] = {2};
  const char *w1[] = {"TUESDAY", "\xc3\x89T\xc3\xa9"};
  expect_strings(y, 1, s2, w1);
  rt_tensor_release(y);
  /* Case-sensitive: only the exact "monday" goes; lower case. */
  y = run1("Tensor[(5), string]",
           "string_normalizer(%x, case_change_action=\"LOWER\", is_case_sensitive=True, "
           "stopwords=[\"monday\"])", x);
  const int64_t s4[] = {4};
  const char *w2[] = {"monday", "tuesday", "\xc3\x89t\xc3\xa9", "monday"};
  expect_strings(y, 1, s4, w2);
  rt_tensor_release(y);
  /* No stopwords, no case change: the input. */
  y = run1("Tensor[(5), string]", "string_normalizer(%x)", x);
  expect_strings(y, 1, s5, in);
  rt_tensor_release(y);
  rt_tensor_release(x);
  /* [1, C], every word dropped: one empty string, [1, 1]. */
  const int64_t s12[] = {1, 2}, s11[] = {1, 1};
  const char *in2[] = {"a", "A"};
  const char *w3[] = {""};
  x = strings(2, s12, in2);
  y = run1("Tensor[(1, 2), string]", "string_normalizer(%x, stopwords=[\"a\", \"b\"])", x);
  expect_strings(y, 2, s11, w3);
  rt_tensor_release(y);
  rt_tensor_release(x);
}

/* string_lookup: byte-exact positions in vocab, the first of repeats,
 * -1 when absent (case matters). */
static void test_string_lookup(void **state) {
  (void)state;
  const int64_t s5[] = {5};
  const char *in[] = {"b", "", "B", "a", "zz"};
  rt_tensor_t *x = strings(1, s5, in);
  rt_tensor_t *y = run1("Tensor[(5), string]", "string_lookup(%x, vocab=[\"a\", \"b\", \"b\", \"zz\"])", x);
  const int64_t *v = rt_tensor_data(y);
  assert_true(v[0] == 1 && v[1] == -1 && v[2] == -1 && v[3] == 0 && v[4] == 3);
  rt_tensor_release(y);
  rt_tensor_release(x);
}

static void test_string_cast(void **state) {
  (void)state;
  const int64_t s6[] = {6};
  rt_tensor_t *f = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, s6, &f));
  float *fv = rt_tensor_data(f);
  fv[0] = 0.1f;                 /* shortest text that reads back: 0.1 */
  fv[1] = -2.5f;
  fv[2] = 0.039187793f;         /* needs 8 digits */
  fv[3] = 1e-5f;
  fv[4] = (float)NAN;
  fv[5] = -(float)INFINITY;
  rt_tensor_t *y = run1("Tensor[(6), float32]", "cast(%x, dtype=\"string\")", f);
  const char *w[] = {"0.1", "-2.5", "0.039187793", "1e-05", "NaN", "-INF"};
  expect_strings(y, 1, s6, w);
  rt_tensor_release(y);
  rt_tensor_release(f);

  const char *in[] = {"0.47892547", "-3", "NaN", "INF", "+INF", "1e3"};
  rt_tensor_t *x = strings(1, s6, in);
  y = run1("Tensor[(6), string]", "cast(%x, dtype=\"float32\")", x);
  const float *yv = rt_tensor_data(y);
  assert_true(yv[0] == 0.47892547f);
  assert_true(yv[1] == -3.0f);
  assert_true(yv[2] != yv[2]);
  assert_true(yv[3] == (float)INFINITY && yv[4] == (float)INFINITY);
  assert_true(yv[5] == 1000.0f);
  rt_tensor_release(y);
  rt_tensor_release(x);

  const int64_t s3[] = {3};
  const char *ints[] = {"42", "-7", "0"};
  x = strings(1, s3, ints);
  y = run1("Tensor[(3), string]", "cast(%x, dtype=\"int64\")", x);
  const int64_t *iv = rt_tensor_data(y);
  assert_true(iv[0] == 42 && iv[1] == -7 && iv[2] == 0);
  rt_tensor_release(y);
  rt_tensor_release(x);

  /* Not a number: an error naming the element. */
  const char *bad[] = {"1", "one", "2"};
  x = strings(1, s3, bad);
  const char *src = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(3), string]) {\n"
                    "  cast(%x, dtype=\"float32\")\n}\n";
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(src, strlen(src), "t.relay", &m));
  rt_executor_t *ex = NULL;
  /* The same error on the vm, where the cast is a host op. */
  static const char *const kinds[] = {"debug", "vm"};
  for (int k = 0; k < 2; ++k) {
    assert_ok(rt_create_executor(kinds[k], m, NULL, NULL, NULL, &ex));
    assert_ok(rt_executor_set_input(ex, 0, x));
    assert_status(rt_executor_run(ex), INVALID_ARGUMENT,
                  "element 1, \"one\", is not a float32 number");
    rt_executor_release(ex);
  }
  /* The graph executor refuses string tensors, naming the op. */
  assert_status(rt_create_executor("graph", m, NULL, NULL, NULL, &ex), UNIMPLEMENTED,
                "the graph executor does not run string tensors (@main: op cast uses them)");
  rt_module_release(m);
  rt_tensor_release(x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_string_normalizer),
      cmocka_unit_test(test_string_cast),
      cmocka_unit_test(test_string_lookup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
