/* The golden corpus (the .relay files of test/ir/corpus): every program parses, type-
 * checks to the hand-derived function types written in its `// TYPE @g: T`
 * lines, and round-trips through the printer: the typed print is a fixed
 * point (print(infer(parse(print(m)))) == print(m)), and the untyped print
 * parses back to a module structurally equal to the original. One cmocka
 * case per file, all under a counting allocator that fails on leaks. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/text/text.h"
#include "test_util.h"
#include "runtime/mem.h"

#define MAX_FILES 256

static char *g_names[MAX_FILES];
static int g_count;

static rt_module_t *parse_text(rt_test_alloc_t *st, const char *name, const char *text,
                               size_t len, bool infer) {
  rt_module_t *m = NULL;
  assert_ok(rt_ir_module_create(rt_test_allocator(st), &m));
  rt_status_t s = rt_ir_parse_module(m, name, text, len);
  if (!s && infer) s = rt_ir_infer_types(m);
  if (s) {
    print_message("%s: %s\n", name, rt_status_message(s));
    if (len < 20000) print_message("--- text ---\n%.*s\n", (int)len, text);
    rt_status_free(s);
    rt_module_release(m);
    fail();
  }
  return m;
}

static char *print_module(const rt_module_t *m, uint32_t flags, size_t *len) {
  char *out = NULL;
  assert_ok(rt_ir_print_module(m, flags, &out, len));
  return out;
}

static void check_types(const char *name, const char *text, const rt_module_t *m) {
  int found = 0;
  for (const char *line = strstr(text, "// TYPE @"); line; line = strstr(line + 1, "// TYPE @")) {
    const char *g = line + strlen("// TYPE @");
    const char *colon = strchr(g, ':');
    const char *eol = strchr(g, '\n');
    assert_non_null(colon);
    assert_non_null(eol);
    char global[128];
    snprintf(global, sizeof(global), "%.*s", (int)(colon - g), g);
    const char *want = colon + 2;
    rt_ir_expr_t *fn = rt_ir_module_lookup(m, global);
    if (!fn) {
      print_message("%s: no global @%s\n", name, global);
      fail();
    }
    rt_strbuf_t b;
    rt_strbuf_initialize(&b);
    rt_ir_text_print_type(fn->checked_type, &b);
    if (strlen(b.data) != (size_t)(eol - want) || strncmp(b.data, want, (size_t)(eol - want)) != 0) {
      print_message("%s: @%s has type\n  %s\nexpected\n  %.*s\n", name, global, b.data,
                    (int)(eol - want), want);
      rt_strbuf_deinitialize(&b);
      fail();
    }
    rt_strbuf_deinitialize(&b);
    found++;
  }
  if (found != m->num_globals) {
    print_message("%s: %d TYPE lines for %d globals\n", name, found, (int)m->num_globals);
    fail();
  }
}

static void expect_same(const char *name, const char *what, const char *a, const char *b) {
  if (strcmp(a, b) != 0) {
    print_message("%s: %s differs\n--- first ---\n%s\n--- second ---\n%s\n", name, what, a, b);
    fail();
  }
}

static void test_corpus_file(void **state) {
  const char *name = *state;
  char rel[512];
  snprintf(rel, sizeof(rel), "ir/corpus/%s", name);
  size_t size = 0;
  char *text = rt_test_read_file(rt_test_path(rel), &size);
  rt_test_alloc_t st = {0};
  st.fail_at = -1;

  rt_module_t *m = parse_text(&st, name, text, size, true);
  check_types(name, text, m);

  /* Typed print: a fixed point through parse + infer. */
  size_t l1, l2, l3, l4;
  char *t1 = print_module(m, RT_PRINT_DEFAULT, &l1);
  rt_module_t *m2 = parse_text(&st, "printed.relay", t1, l1, true);
  char *t2 = print_module(m2, RT_PRINT_DEFAULT, &l2);
  expect_same(name, "typed print of the reparsed module", t1, t2);
  check_types(name, text, m2);

  /* Untyped print: reparses structurally equal, and is a fixed point. */
  char *u1 = print_module(m, RT_PRINT_NO_TYPES, &l3);
  rt_module_t *m3 = parse_text(&st, "untyped.relay", u1, l3, true);
  if (!rt_ir_module_struct_equal(m, m3)) {
    print_message("%s: parse(print(m)) is not structurally equal to m\n%s\n", name, u1);
    fail();
  }
  char *u2 = print_module(m3, RT_PRINT_NO_TYPES, &l4);
  expect_same(name, "untyped print of the reparsed module", u1, u2);
  /* parse(print(m)) with the types printed is equal to m too: a missing
   * annotation compares by the type inference gave it. */
  if (!rt_ir_module_struct_equal(m, m2)) {
    print_message("%s: parse(typed print(m)) is not structurally equal to m\n%s\n", name, t1);
    fail();
  }
  rt_module_t *m4 = parse_text(&st, "printed2.relay", t2, l2, true);
  assert_true(rt_ir_module_struct_equal(m2, m4));

  rt_mem_free(t1);
  rt_mem_free(t2);
  rt_mem_free(u1);
  rt_mem_free(u2);
  rt_module_release(m);
  rt_module_release(m2);
  rt_module_release(m3);
  rt_module_release(m4);
  rt_mem_free(text);
  assert_int_equal(st.live_allocations, 0);
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void) {
  DIR *d = opendir(rt_test_path("ir/corpus"));
  if (!d) {
    fprintf(stderr, "cannot open the corpus folder\n");
    return 1;
  }
  struct dirent *ent;
  while ((ent = readdir(d)) && g_count < MAX_FILES) {
    size_t n = strlen(ent->d_name);
    if (n > 6 && strcmp(ent->d_name + n - 6, ".relay") == 0) {
      g_names[g_count++] = rt_mem_strdup(ent->d_name);
    }
  }
  closedir(d);
  qsort(g_names, (size_t)g_count, sizeof(char *), cmp_names);
  struct CMUnitTest *tests = rt_mem_calloc((size_t)g_count, sizeof(*tests));
  for (int i = 0; i < g_count; ++i) {
    tests[i] = (struct CMUnitTest){g_names[i], test_corpus_file, NULL, NULL, g_names[i]};
  }
  int rc = _cmocka_run_group_tests("ir-text corpus", tests, (size_t)g_count, NULL, NULL);
  for (int i = 0; i < g_count; ++i) rt_mem_free(g_names[i]);
  rt_mem_free(tests);
  return rc;
}
