/* Malformed text: every file of test/ir/bad listed in test/ir/bad/EXPECTED
 * must fail (parse, then rt_ir_infer_types) with exactly the expected first
 * line "file:line:col: error: message". Generated cases cover inputs too
 * large to keep as files (100000-deep nesting of every bracket kind), and
 * an allocation-failure sweep checks that every error path frees what it
 * made. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "test_util.h"
#include "runtime/mem.h"

/* Parses (and type-checks) `text`; returns the error's first line
 * (malloc'd) or NULL when it succeeded. Checks for leaks. */
static char *first_error_line(const char *name, const char *text, size_t len) {
  rt_test_alloc_t st = {0};
  st.fail_at = -1;
  rt_module_t *m = NULL;
  assert_ok(rt_ir_module_create(rt_test_allocator(&st), &m));
  rt_status_t s = rt_ir_parse_module(m, name, text, len);
  if (!s) s = rt_ir_infer_types(m);
  char *line = NULL;
  if (s) {
    const char *msg = rt_status_message(s);
    const char *nl = strchr(msg, '\n');
    size_t n = nl ? (size_t)(nl - msg) : strlen(msg);
    line = rt_mem_alloc(n + 1);
    memcpy(line, msg, n);
    line[n] = 0;
    assert_int_equal(rt_status_code(s), RT_STATUS_INVALID_ARGUMENT);
    rt_status_free(s);
  }
  rt_module_release(m);
  assert_int_equal(st.live_allocations, 0);
  return line;
}

static void test_bad_inputs_expected(void **state) {
  (void)state;
  size_t size = 0;
  char *index = rt_test_read_file(rt_test_path("ir/bad/EXPECTED"), &size);
  int checked = 0, failures = 0;
  for (char *line = strtok(index, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#' || !line[0]) continue;
    char *tab = strchr(line, '\t');
    assert_non_null(tab);
    *tab = 0;
    const char *file = line, *want = tab + 1;
    char rel[512];
    snprintf(rel, sizeof(rel), "ir/bad/%s", file);
    size_t len = 0;
    char *text = rt_test_read_file(rt_test_path(rel), &len);
    char *got = first_error_line(file, text, len);
    if (!got || strcmp(got, want) != 0) {
      print_message("%s:\n  expected: %s\n  got:      %s\n", file, want, got ? got : "(no error)");
      failures++;
    }
    rt_mem_free(got);
    rt_mem_free(text);
    checked++;
  }
  rt_mem_free(index);
  print_message("checked %d bad inputs\n", checked);
  assert_true(checked >= 50);
  assert_int_equal(failures, 0);
}

/* `depth` copies of `open`, then `close` as many times, inside `prefix` and
 * `suffix`. */
static char *nested(const char *prefix, const char *open, const char *mid, const char *close,
                    const char *suffix, int depth, size_t *out_len) {
  size_t n = strlen(prefix) + strlen(mid) + strlen(suffix) +
             (size_t)depth * (strlen(open) + strlen(close)) + 1;
  char *s = rt_mem_alloc(n);
  assert_non_null(s);
  size_t w = 0;
#define PUT(str) (memcpy(s + w, (str), strlen(str)), w += strlen(str))
  PUT(prefix);
  for (int i = 0; i < depth; ++i) PUT(open);
  PUT(mid);
  for (int i = 0; i < depth; ++i) PUT(close);
  PUT(suffix);
#undef PUT
  s[w] = 0;
  *out_len = w;
  return s;
}

static void expect_nesting_error(const char *prefix, const char *open, const char *mid,
                                 const char *close, const char *suffix, const char *want) {
  size_t len;
  char *text = nested(prefix, open, mid, close, suffix, 100000, &len);
  char *got = first_error_line("deep.relay", text, len);
  assert_non_null(got);
  if (strcmp(got, want) != 0) {
    print_message("expected: %s\ngot:      %s\n", want, got);
    fail();
  }
  rt_mem_free(got);
  rt_mem_free(text);
}

static void test_bad_inputs_deep_nesting(void **state) {
  (void)state;
  const char *head = "#[version = \"0.0.5\"]\ndef @main(%x: float32) {\n  ";
  /* The 513th bracket is the first one too deep: the function body's `{`
   * is level 1, so the 512th `(` (column 514) fails. */
  expect_nesting_error(head, "(", "%x", ")", "\n}\n",
                       "deep.relay:3:514: error: nesting deeper than 512 levels");
  expect_nesting_error(head, "{", "%x", "}", "\n}\n",
                       "deep.relay:3:514: error: nesting deeper than 512 levels");
  expect_nesting_error(head, "nn.relu(", "%x", ")", "\n}\n",
                       "deep.relay:3:4098: error: nesting deeper than 512 levels");
  expect_nesting_error(head, "if (True) { ", "%x", " } else { %x }", "\n}\n",
                       "deep.relay:3:6138: error: nesting deeper than 512 levels");
  expect_nesting_error("#[version = \"0.0.5\"]\ndef @main(%x: ", "(", "float32", ")",
                       ") {\n  %x\n}\n",
                       "deep.relay:2:526: error: nesting deeper than 512 levels");
  expect_nesting_error("#[version = \"0.0.5\"]\ndef @main(%x: float32) {\n  nn.pad(%x, 0f, pad_width=",
                       "[", "0", "]", ")\n}\n",
                       "deep.relay:3:538: error: nesting deeper than 512 levels");
  /* Comments nest without recursion: 100000 deep is fine. */
  size_t len;
  char *text = nested(head, "/* ", "x", " */", "%x\n}\n", 100000, &len);
  char *got = first_error_line("deep.relay", text, len);
  assert_null(got);
  rt_mem_free(text);
  /* 512 levels exactly are accepted. */
  text = nested(head, "(", "%x", ")", "\n}\n", 511, &len);
  got = first_error_line("deep.relay", text, len);
  assert_null(got);
  rt_mem_free(text);
}

/* Fails every allocation in turn while parsing and printing a program with
 * metadata, closures and control flow: each must give an error (never a
 * crash) and leave nothing allocated. */
static void test_bad_inputs_allocation_failures(void **state) {
  (void)state;
  const char *files[] = {"ir/corpus/metadata_dense.relay", "ir/corpus/closure_nested.relay",
                         "ir/corpus/shared_across_branches.relay"};
  for (size_t f = 0; f < RT_COUNTOF(files); ++f) {
    size_t len = 0;
    char *text = rt_test_read_file(rt_test_path(files[f]), &len);
    for (int64_t n = 0;; ++n) {
      rt_test_alloc_t st = {0};
      st.fail_at = n;
      rt_module_t *m = NULL;
      rt_status_t s = rt_ir_module_create(rt_test_allocator(&st), &m);
      if (!s) s = rt_ir_parse_module(m, "oom.relay", text, len);
      char *out = NULL;
      size_t out_len = 0;
      if (!s) s = rt_ir_print_module(m, 0, &out, &out_len);
      bool ok = s == NULL;
      rt_status_free(s);
      rt_mem_free(out);
      rt_module_release(m);
      assert_int_equal(st.live_allocations, 0);
      if (ok && st.total_allocations <= n) break; /* no allocation left to fail */
      assert_true(n < 100000);
    }
    rt_mem_free(text);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_inputs_expected),
      cmocka_unit_test(test_bad_inputs_deep_nesting),
      cmocka_unit_test(test_bad_inputs_allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
