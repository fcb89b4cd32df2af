/* Tests of the string buffer: appends of every kind, printf growth past
 * the capacity, truncate, finish handing over the text, and sticky
 * failure (after an impossible growth, appends are no-ops and finish
 * reports RESOURCE_EXHAUSTED). */
#include <stdlib.h>
#include <string.h>

#include "runtime/strbuf.h"
#include "test_util.h"
#include "runtime/mem.h"

static void test_strbuf_appends(void **state) {
  (void)state;
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  assert_null(b.data);
  rt_strbuf_puts(&b, "abc");
  rt_strbuf_putc(&b, '-');
  rt_strbuf_append(&b, "xyz123", 3);
  rt_strbuf_printf(&b, "[%d:%s]", 42, "q");
  assert_string_equal(b.data, "abc-xyz[42:q]");
  assert_int_equal(b.len, 13);
  rt_strbuf_truncate(&b, 3);
  assert_string_equal(b.data, "abc");
  rt_strbuf_truncate(&b, 100); /* longer than the text: no-op */
  assert_string_equal(b.data, "abc");
  char *text = NULL;
  size_t len = 0;
  assert_ok(rt_strbuf_finish(&b, &text, &len));
  assert_string_equal(text, "abc");
  assert_int_equal(len, 3);
  assert_null(b.data);
  assert_int_equal(b.len, 0);
  rt_mem_free(text);
}

static void test_strbuf_printf_grows(void **state) {
  (void)state;
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  char big[3000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  for (int i = 0; i < 10; ++i) rt_strbuf_printf(&b, "%s%d", big, i);
  assert_int_equal(b.len, 10 * sizeof big);
  assert_int_equal(b.data[sizeof big - 1], '0');
  assert_int_equal(b.data[b.len - 1], '9');
  assert_int_equal(strlen(b.data), b.len);
  rt_strbuf_deinitialize(&b);
  assert_null(b.data);
}

static void test_strbuf_finish_empty(void **state) {
  (void)state;
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  char *text = NULL;
  size_t len = 99;
  assert_ok(rt_strbuf_finish(&b, &text, &len));
  assert_non_null(text);
  assert_string_equal(text, "");
  assert_int_equal(len, 0);
  rt_mem_free(text);
}

static void test_strbuf_sticky_failure(void **state) {
  (void)state;
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_strbuf_puts(&b, "ok");
  /* A growth that cannot be satisfied (the pointer is never read). */
  rt_strbuf_append(&b, "x", SIZE_MAX - 1);
  assert_true(b.failed);
  rt_strbuf_puts(&b, "more");
  rt_strbuf_printf(&b, "%d", 5);
  assert_int_equal(b.len, 2);
  char *text = NULL;
  size_t len = 0;
  assert_status(rt_strbuf_finish(&b, &text, &len), RESOURCE_EXHAUSTED, "out of memory");
  assert_null(text);
  assert_null(b.data);
  /* The buffer is usable again after finish. */
  rt_strbuf_puts(&b, "again");
  assert_false(b.failed);
  assert_string_equal(b.data, "again");
  rt_strbuf_deinitialize(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_strbuf_appends),
      cmocka_unit_test(test_strbuf_printf_grows),
      cmocka_unit_test(test_strbuf_finish_empty),
      cmocka_unit_test(test_strbuf_sticky_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
