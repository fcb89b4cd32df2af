/* The golden pass tests (test/passes/README.md): every golden/ *.relay file
 * holds an input program, the pass to run and the expected program,
 * written by hand from what the pass must do. For each file (one cmocka
 * case, named by the file):
 *   1. both halves are parsed (and type-checked);
 *   2. the pass runs required (so its opt_level does not matter) under the
 *      file's context, unless the context disables it; `pipeline` runs the
 *      whole shared pipeline under the context as written;
 *   3. the result must be structurally equal to the expected program
 *      (rt_ir_module_struct_equal); on failure both are printed;
 *   4. the input and the result run through the debug executor with no
 *      pass at all, on the same seeded random inputs, and the outputs must
 *      agree (floats within 1e-4 relative + 1e-5 absolute: a rewrite may
 *      reassociate float math, e.g. batch_norm's scale/shift form; ints
 *      and bools exactly). Programs whose @main takes a non-tensor input
 *      skip this step.
 * Directives, as comment lines before the input:
 *   // PASS: Name | pipeline
 *   // CONTEXT: opt_level=N disable=P require=P key=value ...
 *   // POSITIVE: x var     float inputs fed |random| + 0.5 (variances)
 *   // SHARING: exact      also require the same number of distinct
 *                          non-atomic nodes (structural equality cannot
 *                          see DAG sharing); always on for
 *                          EliminateCommonSubexpr
 * and the line `// EXPECT` separates the input from the expected program. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "passes/pass.h"
#include "pass_test_util.h"
#include "test_util.h"
#include "runtime/mem.h"

typedef struct {
  char path[1400];
  char name[256];
} golden_t;

/* The value of directive `key` ("// PASS:") in text, copied to buf up to
 * the end of its line; false when absent. */
static bool directive(const char *text, size_t limit, const char *key, char *buf, size_t cap) {
  size_t klen = strlen(key);
  for (const char *p = text; p && (size_t)(p - text) < limit; p = strchr(p, '\n')) {
    if (*p == '\n') ++p;
    if (strncmp(p, key, klen) == 0) {
      p += klen;
      while (*p == ' ') ++p;
      size_t n = strcspn(p, "\r\n");
      if (n >= cap) n = cap - 1;
      memcpy(buf, p, n);
      buf[n] = '\0';
      while (n > 0 && buf[n - 1] == ' ') buf[--n] = '\0';
      return true;
    }
  }
  return false;
}

static void apply_context(rt_pass_context_t *ctx, const char *spec, const char *pass,
                          bool *out_disabled) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", spec);
  char *save = NULL;
  for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) fail_msg("bad CONTEXT item '%s' (want key=value)", tok);
    *eq = '\0';
    const char *v = eq + 1;
    if (strcmp(tok, "opt_level") == 0) {
      assert_ok(rt_pass_context_set_opt_level(ctx, atoi(v)));
    } else if (strcmp(tok, "disable") == 0) {
      assert_ok(rt_pass_context_disable(ctx, v));
      if (strcmp(v, pass) == 0) *out_disabled = true;
    } else if (strcmp(tok, "require") == 0) {
      assert_ok(rt_pass_context_require(ctx, v));
    } else {
      assert_ok(rt_pass_context_set_config(ctx, tok, v));
    }
  }
}

static void print_module(const char *title, const rt_module_t *m) {
  char *text = NULL;
  rt_status_t st = rt_module_print(m, RT_PRINT_DEFAULT, &text);
  if (st) {
    fprintf(stderr, "%s: (cannot print: %s)\n", title, rt_status_message(st));
    rt_status_free(st);
    return;
  }
  fprintf(stderr, "---- %s ----\n%s\n", title, text);
  free(text);
}

static void test_golden_file(void **state) {
  const golden_t *g = *state;
  size_t size = 0;
  char *text = rt_test_read_file(g->path, &size);
  const char *sep = strstr(text, "\n// EXPECT");
  if (!sep) fail_msg("%s: no '// EXPECT' line", g->name);
  size_t in_len = (size_t)(sep - text) + 1;
  const char *expect = strchr(sep + 1, '\n');
  if (!expect) fail_msg("%s: nothing after '// EXPECT'", g->name);
  char pass[128], spec[1024] = "", positive[512] = "";
  if (!directive(text, in_len, "// PASS:", pass, sizeof pass)) {
    fail_msg("%s: no '// PASS:' line", g->name);
  }
  directive(text, in_len, "// CONTEXT:", spec, sizeof spec);
  directive(text, in_len, "// POSITIVE:", positive, sizeof positive);
  char sharing[32] = "";
  directive(text, in_len, "// SHARING:", sharing, sizeof sharing);
  const bool exact_sharing =
      strcmp(sharing, "exact") == 0 || strcmp(pass, "EliminateCommonSubexpr") == 0;

  rt_module_t *in = NULL, *want = NULL, *got = NULL;
  assert_ok(rt_module_parse(text, in_len, g->name, &in));
  assert_ok(rt_module_parse(expect, size - (size_t)(expect - text), g->name, &want));
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  bool disabled = false;
  apply_context(ctx, spec, pass, &disabled);
  if (strcmp(pass, "pipeline") == 0) {
    assert_ok(rt_module_build(in, ctx, &got));
  } else {
    if (!disabled) assert_ok(rt_pass_context_require(ctx, pass));
    assert_ok(rt_module_run_pass(in, pass, ctx, &got));
  }
  if (!rt_ir_module_struct_equal(got, want)) {
    print_module("input", in);
    print_module("got", got);
    print_module("expected", want);
    fail_msg("%s: %s did not give the expected program", g->name, pass);
  }
  if (exact_sharing && rt_pass_count_bindings(got) != rt_pass_count_bindings(want)) {
    print_module("got", got);
    print_module("expected", want);
    fail_msg("%s: %lld distinct bindings, expected %lld (sharing differs)", g->name,
             (long long)rt_pass_count_bindings(got), (long long)rt_pass_count_bindings(want));
  }

  rt_pass_context_t *none = NULL;
  assert_ok(pt_context_no_passes(&none));
  pt_run_t a, b;
  bool skip_a = false, skip_b = false;
  assert_ok(pt_run_main(in, none, 7, positive, &a, &skip_a));
  assert_ok(pt_run_main(got, none, 7, positive, &b, &skip_b));
  if (skip_a || skip_b) {
    printf("%s: @main takes non-tensor inputs; semantic check skipped\n", g->name);
  } else {
    char msg[256];
    if (!pt_runs_match(&b, &a, 1e-4, 1e-5, msg, sizeof msg)) {
      fail_msg("%s: the rewritten program computes something else: %s", g->name, msg);
    }
  }
  pt_run_release(&a);
  pt_run_release(&b);
  rt_pass_context_release(none);
  rt_pass_context_release(ctx);
  rt_module_release(got);
  rt_module_release(want);
  rt_module_release(in);
  rt_mem_free(text);
}

static int by_name(const void *x, const void *y) {
  return strcmp(((const golden_t *)x)->name, ((const golden_t *)y)->name);
}

int main(void) {
  const char *dir_path = rt_test_path("passes/golden");
  char dir_copy[1024];
  snprintf(dir_copy, sizeof dir_copy, "%s", dir_path);
  DIR *dir = opendir(dir_copy);
  if (!dir) {
    fprintf(stderr, "cannot open %s\n", dir_copy);
    return 1;
  }
  golden_t *files = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *d; (d = readdir(dir)) != NULL;) {
    size_t len = strlen(d->d_name);
    if (len < 7 || strcmp(d->d_name + len - 6, ".relay") != 0) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      golden_t *p = rt_mem_realloc(files, cap * sizeof *p);
      if (!p) return 1;
      files = p;
    }
    snprintf(files[n].name, sizeof files[n].name, "%s", d->d_name);
    snprintf(files[n].path, sizeof files[n].path, "%s/%s", dir_copy, d->d_name);
    ++n;
  }
  closedir(dir);
  if (n == 0) {
    fprintf(stderr, "no golden files in %s\n", dir_copy);
    rt_mem_free(files);
    return 1;
  }
  qsort(files, n, sizeof *files, by_name);
  struct CMUnitTest *tests = rt_mem_calloc(n, sizeof *tests);
  if (!tests) return 1;
  for (size_t i = 0; i < n; ++i) {
    tests[i].name = files[i].name;
    tests[i].test_func = test_golden_file;
    tests[i].initial_state = &files[i];
  }
  int rc = _cmocka_run_group_tests("golden", tests, n, NULL, NULL);
  rt_mem_free(tests);
  rt_mem_free(files);
  return rc;
}
