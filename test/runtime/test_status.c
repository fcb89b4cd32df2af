/* Tests of status objects: codes, messages with annotations in order,
 * file:line, code names, NULL handling, the propagation macros, and
 * rt_assert_fail's message and abort (in a child process). */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/assert.h"
#include "test_util.h"

static void test_status_ok_is_null(void **state) {
  (void)state;
  rt_status_t s = rt_status_create(RT_STATUS_OK, __FILE__, __LINE__, "ignored");
  assert_null(s);
  assert_int_equal(rt_status_code(NULL), RT_STATUS_OK);
  assert_string_equal(rt_status_message(NULL), "");
  assert_string_equal(rt_status_file(NULL), "");
  assert_int_equal(rt_status_line(NULL), 0);
  rt_status_free(NULL);
  assert_int_equal(rt_status_consume_code(NULL), RT_STATUS_OK);
  assert_null(rt_status_annotate(NULL, "not formatted %s", "x"));
}

static void test_status_message_and_location(void **state) {
  (void)state;
  int line = __LINE__ + 1;
  rt_status_t s = RT_STATUS(INVALID_ARGUMENT, "bad %s #%d", "dim", 3);
  assert_non_null(s);
  assert_int_equal(rt_status_code(s), RT_STATUS_INVALID_ARGUMENT);
  assert_string_equal(rt_status_message(s), "bad dim #3");
  assert_non_null(strstr(rt_status_file(s), "test_status.c"));
  assert_int_equal(rt_status_line(s), line);
  rt_status_free(s);
}

static void test_status_annotations_in_order(void **state) {
  (void)state;
  rt_status_t s = RT_STATUS(DATA_LOSS, "truncated");
  s = rt_status_annotate(s, "reading %s", "w.npy");
  s = rt_status_annotate(s, "param %d", 7);
  assert_string_equal(rt_status_message(s), "truncated; reading w.npy; param 7");
  assert_int_equal(rt_status_consume_code(s), RT_STATUS_DATA_LOSS);
}

/* A repeated context (a recursion's frame) is counted, not repeated;
 * different text in between starts a new count. */
static void test_status_annotation_repeats_counted(void **state) {
  (void)state;
  rt_status_t s = RT_STATUS(OUT_OF_RANGE, "depth");
  s = rt_status_annotate(s, "in @f");
  assert_string_equal(rt_status_message(s), "depth; in @f");
  s = rt_status_annotate(s, "in @f");
  assert_string_equal(rt_status_message(s), "depth; in @f (repeated 2 times)");
  for (int i = 0; i < 998; ++i) s = rt_status_annotate(s, "in @f");
  assert_string_equal(rt_status_message(s), "depth; in @f (repeated 1000 times)");
  s = rt_status_annotate(s, "in @main");
  s = rt_status_annotate(s, "in @f");
  assert_string_equal(rt_status_message(s), "depth; in @f (repeated 1000 times); in @main; in @f");
  /* Only a whole "; TEXT" tail counts: "@f" is not a repeat of "in @f". */
  s = rt_status_annotate(s, "@f");
  assert_string_equal(rt_status_message(s),
                      "depth; in @f (repeated 1000 times); in @main; in @f; @f");
  rt_status_free(s);
}

static void test_status_long_message(void **state) {
  (void)state;
  char big[5000];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  rt_status_t s = RT_STATUS(INTERNAL, "%s", big);
  assert_int_equal(strlen(rt_status_message(s)), sizeof big - 1);
  s = rt_status_annotate(s, "%s", big);
  assert_int_equal(strlen(rt_status_message(s)), 2 * (sizeof big - 1) + 2);
  rt_status_free(s);
}

static void test_status_code_names(void **state) {
  (void)state;
  assert_string_equal(rt_status_code_name(RT_STATUS_OK), "OK");
  assert_string_equal(rt_status_code_name(RT_STATUS_INVALID_ARGUMENT), "INVALID_ARGUMENT");
  assert_string_equal(rt_status_code_name(RT_STATUS_RESOURCE_EXHAUSTED),
                      "RESOURCE_EXHAUSTED");
  assert_string_equal(rt_status_code_name(RT_STATUS_DATA_LOSS), "DATA_LOSS");
  assert_string_equal(rt_status_code_name(RT_STATUS_IO_ERROR), "IO_ERROR");
  assert_string_equal(rt_status_code_name(RT_STATUS_UNIMPLEMENTED), "UNIMPLEMENTED");
  assert_string_equal(rt_status_code_name((rt_status_code_t)99), "UNKNOWN_CODE");
}

static rt_status_t fails(int *reached) {
  (void)reached;
  return RT_STATUS(NOT_FOUND, "no such thing");
}

static rt_status_t propagate(int *reached) {
  RT_RETURN_IF_ERROR_ANNOTATE(fails(reached), "looking up %s", "x");
  *reached = 1;
  return RT_OK;
}

static rt_status_t propagate_plain(int *reached) {
  RT_RETURN_IF_ERROR(fails(reached));
  *reached = 1;
  return RT_OK;
}

static void test_status_macros_propagate(void **state) {
  (void)state;
  int reached = 0;
  assert_status(propagate(&reached), NOT_FOUND, "no such thing; looking up x");
  assert_int_equal(reached, 0);
  assert_status(propagate_plain(&reached), NOT_FOUND, "no such thing");
  assert_int_equal(reached, 0);
}

static void test_status_assert_fail_aborts(void **state) {
  (void)state;
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    rt_assert_fail("x > 0", "some.c", 12);
  }
  close(fds[1]);
  char out[256] = {0};
  size_t n = 0;
  ssize_t got;
  while ((got = read(fds[0], out + n, sizeof out - 1 - n)) > 0) n += (size_t)got;
  close(fds[0]);
  int wstatus = 0;
  assert_int_equal(waitpid(pid, &wstatus, 0), pid);
  assert_true(WIFSIGNALED(wstatus));
  assert_int_equal(WTERMSIG(wstatus), SIGABRT);
  assert_non_null(strstr(out, "relayrt: assertion failed: x > 0 (some.c:12)\n"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_status_ok_is_null),
      cmocka_unit_test(test_status_message_and_location),
      cmocka_unit_test(test_status_annotations_in_order),
      cmocka_unit_test(test_status_annotation_repeats_counted),
      cmocka_unit_test(test_status_long_message),
      cmocka_unit_test(test_status_code_names),
      cmocka_unit_test(test_status_macros_propagate),
      cmocka_unit_test(test_status_assert_fail_aborts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
