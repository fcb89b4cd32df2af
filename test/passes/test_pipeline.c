/* The whole pipeline preserves semantics, and the pass context's filtering
 * rules hold.
 *
 * test_pipeline_corpus: every program of test/ir/corpus/ *.relay (read from
 * the directory) and examples/cnn.relay runs through the debug executor
 * with no pass at all (the reference), then built at opt_level 0, 3 and 4
 * (every pass that exists at those levels runs), on the same seeded random
 * inputs (a `?` dim gets size 2); all outputs must agree (floats within
 * 1e-4 relative + 1e-5 absolute, ints and bools exactly). Programs whose
 * @main takes a non-tensor input (or returns a closure) are skipped, and
 * so are programs whose reference run fails on random inputs; the counts
 * are printed.
 *
 * The filtering cases check, through instruments and rt_module_build /
 * rt_module_run_pass: disabled beats required beats opt_level; after_pass
 * is called once per pipeline step, in order, with the right decision;
 * should_run vetoes (but is not asked for required passes); a disabled
 * pass run alone leaves the module as it is; with FoldConstant disabled a
 * foldable add of constants is still an add. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pass_test_util.h"
#include "test_util.h"
#include "runtime/mem.h"

/* ---- the corpus ----------------------------------------------------------- */

static int by_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void run_program(const char *path, int *checked, int *skipped_inputs, int *skipped_ref) {
  rt_module_t *m = NULL;
  rt_status_t st = rt_module_load(path, &m);
  if (st) fail_msg("%s: %s", path, rt_status_message(st));
  rt_pass_context_t *none = NULL;
  assert_ok(pt_context_no_passes(&none));
  pt_run_t ref;
  bool skip = false;
  st = pt_run_main(m, none, 42, NULL, &ref, &skip);
  rt_pass_context_release(none);
  if (st || skip) {
    if (st) {
      printf("  skipped %s: the reference run fails on random inputs (%s)\n", path,
             rt_status_message(st));
      rt_status_free(st);
      (*skipped_ref)++;
    } else {
      printf("  skipped %s: @main takes or returns non-tensor values\n", path);
      (*skipped_inputs)++;
    }
    rt_module_release(m);
    return;
  }
  static const int32_t kLevels[] = {0, 3, 4};
  for (size_t i = 0; i < 3; ++i) {
    rt_pass_context_t *ctx = NULL;
    assert_ok(rt_pass_context_create(&ctx));
    assert_ok(rt_pass_context_set_opt_level(ctx, kLevels[i]));
    pt_run_t got;
    st = pt_run_main(m, ctx, 42, NULL, &got, &skip);
    rt_pass_context_release(ctx);
    if (st) {
      fail_msg("%s at opt_level %d: %s", path, (int)kLevels[i], rt_status_message(st));
    }
    char msg[256];
    if (!pt_runs_match(&got, &ref, 1e-4, 1e-5, msg, sizeof msg)) {
      fail_msg("%s at opt_level %d: %s", path, (int)kLevels[i], msg);
    }
    pt_run_release(&got);
  }
  pt_run_release(&ref);
  rt_module_release(m);
  (*checked)++;
}

static void test_pipeline_corpus(void **state) {
  (void)state;
  char dir_path[1024];
  snprintf(dir_path, sizeof dir_path, "%s", rt_test_path("ir/corpus"));
  DIR *dir = opendir(dir_path);
  assert_non_null(dir);
  char **paths = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *d; (d = readdir(dir)) != NULL;) {
    size_t len = strlen(d->d_name);
    if (len < 7 || strcmp(d->d_name + len - 6, ".relay") != 0) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      paths = rt_mem_realloc(paths, cap * sizeof *paths);
      assert_non_null(paths);
    }
    size_t sz = strlen(dir_path) + len + 2;
    paths[n] = rt_mem_alloc(sz);
    assert_non_null(paths[n]);
    snprintf(paths[n], sz, "%s/%s", dir_path, d->d_name);
    ++n;
  }
  closedir(dir);
  assert_true(n > 0);
  qsort(paths, n, sizeof *paths, by_str);
  int checked = 0, skipped_inputs = 0, skipped_ref = 0;
  for (size_t i = 0; i < n; ++i) run_program(paths[i], &checked, &skipped_inputs, &skipped_ref);
  char cnn[1024];
  snprintf(cnn, sizeof cnn, "%s", rt_test_path("../examples/cnn.relay"));
  run_program(cnn, &checked, &skipped_inputs, &skipped_ref);
  printf("pipeline corpus: %d programs checked at opt_level 0, 3, 4; %d skipped for "
         "non-tensor inputs/outputs; %d skipped because the reference run fails\n",
         checked, skipped_inputs, skipped_ref);
  for (size_t i = 0; i < n; ++i) rt_mem_free(paths[i]);
  rt_mem_free(paths);
  assert_true(checked > 0);
}

/* ---- filtering ------------------------------------------------------------ */

#define MAX_SEEN 64

typedef struct {
  int32_t count;
  const char *names[MAX_SEEN];
  rt_pass_decision_t decisions[MAX_SEEN];
  int32_t asked;                 /* should_run calls */
  const char *asked_names[MAX_SEEN];
  const char *veto;              /* pass name to veto, or NULL */
} recorder_t;

static rt_status_t rec_after(void *user, const rt_pass_info_t *pass, const rt_module_t *module,
                             rt_pass_decision_t decision, double elapsed_ms) {
  (void)module;
  (void)elapsed_ms;
  recorder_t *r = user;
  if (r->count < MAX_SEEN) {
    r->names[r->count] = pass->name;
    r->decisions[r->count] = decision;
  }
  r->count++;
  return RT_OK;
}

static rt_status_t rec_should_run(void *user, const rt_pass_info_t *pass, const rt_module_t *module,
                                  bool *out_run) {
  (void)module;
  recorder_t *r = user;
  if (r->asked < MAX_SEEN) r->asked_names[r->asked] = pass->name;
  r->asked++;
  *out_run = !(r->veto && strcmp(r->veto, pass->name) == 0);
  return RT_OK;
}

static void add_recorder(rt_pass_context_t *ctx, recorder_t *r) {
  rt_pass_instrument_t ins;
  memset(&ins, 0, sizeof ins);
  ins.user = r;
  ins.after_pass = rec_after;
  ins.should_run = rec_should_run;
  assert_ok(rt_pass_context_add_instrument(ctx, &ins));
}

static rt_module_t *parse(const char *body) {
  char src[4096];
  snprintf(src, sizeof src, "#[version = \"0.0.5\"]\n%s", body);
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(src, strlen(src), "t.relay", &m));
  return m;
}

static const char kSimple[] =
    "def @main(%x: Tensor[(2, 3), float32]) {\n"
    "  %0 = add(1f, 2f);\n"
    "  %1 = multiply(%x, 1f);\n"
    "  add(%1, %0)\n"
    "}\n";

static int32_t num_shared_steps(void) {
  int32_t n = 0;
  for (int32_t i = 0; i < rt_pass_count(); ++i) n += !rt_pass_is_executor_step(i, NULL);
  return n;
}

static rt_pass_decision_t decision_of(const recorder_t *r, const char *name) {
  for (int32_t i = 0; i < r->count && i < MAX_SEEN; ++i) {
    if (strcmp(r->names[i], name) == 0) return r->decisions[i];
  }
  fail_msg("pass %s was never reported", name);
  return RT_PASS_SKIPPED_LEVEL;
}

static void test_pipeline_every_step_reported(void **state) {
  (void)state;
  rt_module_t *m = parse(kSimple);
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx)); /* opt_level 2 */
  recorder_t r;
  memset(&r, 0, sizeof r);
  add_recorder(ctx, &r);
  rt_module_t *out = NULL;
  assert_ok(rt_module_build(m, ctx, &out));
  assert_int_equal(r.count, num_shared_steps());
  int32_t k = 0;
  for (int32_t i = 0; i < rt_pass_count(); ++i) {
    if (rt_pass_is_executor_step(i, NULL)) continue;
    const rt_pass_info_t *info = rt_pass_at(i);
    assert_string_equal(r.names[k], info->name);
    assert_int_equal(r.decisions[k],
                     info->opt_level <= 2 ? RT_PASS_RAN_BY_LEVEL : RT_PASS_SKIPPED_LEVEL);
    ++k;
  }
  /* The same through rt_create_executor("debug"): every step, once. */
  memset(&r, 0, sizeof r);
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, ctx, NULL, &ex));
  assert_int_equal(r.count, num_shared_steps());
  rt_executor_release(ex);
  rt_module_release(out);
  rt_pass_context_release(ctx);
  rt_module_release(m);
}

static void test_pipeline_disabled_beats_required_beats_level(void **state) {
  (void)state;
  rt_module_t *m = parse(kSimple);
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_set_opt_level(ctx, 0));
  assert_ok(rt_pass_context_require(ctx, "FoldConstant"));
  assert_ok(rt_pass_context_disable(ctx, "FoldConstant"));
  assert_ok(rt_pass_context_require(ctx, "EliminateCommonSubexpr"));
  assert_ok(rt_pass_context_disable(ctx, "SimplifyExpr"));
  recorder_t r;
  memset(&r, 0, sizeof r);
  add_recorder(ctx, &r);
  rt_module_t *out = NULL;
  assert_ok(rt_module_build(m, ctx, &out));
  assert_int_equal(decision_of(&r, "FoldConstant"), RT_PASS_SKIPPED_DISABLED);
  assert_int_equal(decision_of(&r, "EliminateCommonSubexpr"), RT_PASS_RAN_REQUIRED);
  assert_int_equal(decision_of(&r, "SimplifyExpr"), RT_PASS_SKIPPED_DISABLED);
  assert_int_equal(decision_of(&r, "SimplifyInference"), RT_PASS_RAN_BY_LEVEL);
  assert_int_equal(decision_of(&r, "CanonicalizeOps"), RT_PASS_SKIPPED_LEVEL);
  /* should_run is never asked about a required or a skipped pass. */
  for (int32_t i = 0; i < r.asked && i < MAX_SEEN; ++i) {
    assert_string_not_equal(r.asked_names[i], "EliminateCommonSubexpr");
    assert_string_not_equal(r.asked_names[i], "FoldConstant");
    assert_string_not_equal(r.asked_names[i], "CanonicalizeOps");
  }
  rt_module_release(out);
  rt_pass_context_release(ctx);
  rt_module_release(m);
}

static bool printed_contains(const rt_module_t *m, const char *needle) {
  char *text = NULL;
  assert_ok(rt_module_print(m, RT_PRINT_NO_TYPES, &text));
  bool found = strstr(text, needle) != NULL;
  free(text);
  return found;
}

static void test_pipeline_should_run_vetoes(void **state) {
  (void)state;
  rt_module_t *m = parse(kSimple);
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_set_opt_level(ctx, 0));
  recorder_t r;
  memset(&r, 0, sizeof r);
  r.veto = "SimplifyExpr";
  add_recorder(ctx, &r);
  rt_module_t *out = NULL;
  assert_ok(rt_module_build(m, ctx, &out));
  assert_int_equal(decision_of(&r, "SimplifyExpr"), RT_PASS_SKIPPED_VETOED);
  assert_true(printed_contains(out, "multiply(")); /* x * 1 survived */
  rt_module_release(out);
  /* A required pass cannot be vetoed. */
  assert_ok(rt_pass_context_require(ctx, "SimplifyExpr"));
  memset(&r, 0, sizeof r);
  r.veto = "SimplifyExpr";
  assert_ok(rt_module_build(m, ctx, &out));
  assert_int_equal(decision_of(&r, "SimplifyExpr"), RT_PASS_RAN_REQUIRED);
  assert_false(printed_contains(out, "multiply("));
  rt_module_release(out);
  rt_pass_context_release(ctx);
  rt_module_release(m);
}

static void test_pipeline_run_disabled_pass_is_identity(void **state) {
  (void)state;
  rt_module_t *m = parse(kSimple);
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_disable(ctx, "FoldConstant"));
  rt_module_t *out = NULL;
  assert_ok(rt_module_run_pass(m, "FoldConstant", ctx, &out));
  assert_ptr_equal(out, m);
  rt_module_release(out);
  /* Enabled, it folds. */
  rt_pass_context_release(ctx);
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_module_run_pass(m, "FoldConstant", ctx, &out));
  assert_ptr_not_equal(out, m);
  assert_true(printed_contains(out, "3f"));
  rt_module_release(out);
  rt_pass_context_release(ctx);
  rt_module_release(m);
}

static void test_pipeline_disable_fold_constant_keeps_add(void **state) {
  (void)state;
  rt_module_t *m = parse(
      "def @main(%x: Tensor[(2, 3), float32]) {\n"
      "  %0 = add(1f, 2f);\n"
      "  multiply(%x, %0)\n"
      "}\n");
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_set_opt_level(ctx, 3));
  assert_ok(rt_pass_context_disable(ctx, "FoldConstant"));
  rt_module_t *out = NULL;
  assert_ok(rt_module_build(m, ctx, &out));
  assert_true(printed_contains(out, "add(1f, 2f)"));
  rt_module_release(out);
  rt_pass_context_release(ctx);
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_set_opt_level(ctx, 3));
  assert_ok(rt_module_build(m, ctx, &out));
  assert_false(printed_contains(out, "add("));
  assert_true(printed_contains(out, "3f"));
  rt_module_release(out);
  rt_pass_context_release(ctx);
  rt_module_release(m);
}

/* A long chain (10000 graph bindings, constants mixed in, 300 lets of which
 * half are dead) goes through every pass at opt_level 4 without exhausting
 * the C stack, and still computes the same thing. */
static void test_pipeline_deep_program(void **state) {
  (void)state;
  const int kBindings = 10000, kLets = 300;
  size_t cap = 64u * (size_t)(kBindings + kLets) + 256;
  char *src = rt_mem_alloc(cap);
  assert_non_null(src);
  size_t n = (size_t)snprintf(src, cap, "#[version = \"0.0.5\"]\ndef @main(%%x: Tensor[(2), float32]) {\n");
  n += (size_t)snprintf(src + n, cap - n, "  %%0 = add(%%x, 1f);\n");
  for (int i = 1; i < kBindings; ++i) {
    if (i % 3 == 0) {
      n += (size_t)snprintf(src + n, cap - n, "  %%%d = multiply(%%%d, 1f);\n", i, i - 1);
    } else {
      n += (size_t)snprintf(src + n, cap - n, "  %%%d = add(%%%d, 0.001f);\n", i, i - 1);
    }
  }
  n += (size_t)snprintf(src + n, cap - n, "  let %%l0 = %%%d;\n", kBindings - 1);
  for (int i = 1; i < kLets; ++i) {
    if (i % 2) {
      n += (size_t)snprintf(src + n, cap - n, "  let %%d%d = exp(%%l%d);\n", i, i - 1);
    }
    n += (size_t)snprintf(src + n, cap - n, "  let %%l%d = negative(%%l%d);\n", i, i - 1);
  }
  n += (size_t)snprintf(src + n, cap - n, "  %%l%d\n}\n", kLets - 1);
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(src, n, "deep.relay", &m));
  rt_mem_free(src);
  rt_pass_context_t *none = NULL, *ctx = NULL;
  assert_ok(pt_context_no_passes(&none));
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_set_opt_level(ctx, 4));
  pt_run_t ref, got;
  bool skip = false;
  assert_ok(pt_run_main(m, none, 3, NULL, &ref, &skip));
  assert_ok(pt_run_main(m, ctx, 3, NULL, &got, &skip));
  char msg[256];
  if (!pt_runs_match(&got, &ref, 1e-4, 1e-5, msg, sizeof msg)) fail_msg("deep program: %s", msg);
  pt_run_release(&ref);
  pt_run_release(&got);
  rt_pass_context_release(none);
  rt_pass_context_release(ctx);
  rt_module_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pipeline_corpus),
      cmocka_unit_test(test_pipeline_every_step_reported),
      cmocka_unit_test(test_pipeline_disabled_beats_required_beats_level),
      cmocka_unit_test(test_pipeline_should_run_vetoes),
      cmocka_unit_test(test_pipeline_run_disabled_pass_is_identity),
      cmocka_unit_test(test_pipeline_disable_fold_constant_keeps_add),
      cmocka_unit_test(test_pipeline_deep_program),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
