/* FoldConstant's disk cache of large folds (passes/fold_cache.h), through
 * the public API: a model whose params fold into constants of 2 MiB
 * (multiply, then a transpose of the product) under a debug executor,
 * with RELAYRT_CACHE_DIR pointing at a fresh folder. Expected values are
 * computed here by hand (2 * w, transposed). That a build read the cache
 * is shown by editing an entry's data behind its valid header: the next
 * build returns the edited value (a hit), and once the entry is cut short
 * it folds again (a miss) and rewrites it. The deferred stores
 * (rt_create_executor's writer thread) are checked directly: written by
 * the time the outermost scope ends, synchronous outside a scope. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "passes/fold_cache.h"
#include "rt/rt.h"
#include "test_util.h"

#define ROWS 512
#define COLS 1024 /* 2 MiB of float32: past the cache's 256 KiB threshold */

static const char kModel[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%w: Tensor[(512, 1024), float32], %x: Tensor[(1024, 512), float32]) {\n"
    "  %0 = multiply(%w, 2f);\n"
    "  %1 = transpose(%0, axes=[1, 0]);\n"
    "  add(%1, %x)\n"
    "}\n";

static char g_dir[64];

static float w_at(int64_t r, int64_t c) { return (float)((r * 7 + c * 3) % 101) - 50.0f; }

static rt_params_t *weights(void) {
  int64_t shape[2] = {ROWS, COLS};
  rt_tensor_t *w = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, shape, &w));
  float *v = rt_tensor_data(w);
  for (int64_t r = 0; r < ROWS; ++r) {
    for (int64_t c = 0; c < COLS; ++c) v[r * COLS + c] = w_at(r, c);
  }
  rt_params_t *p = NULL;
  assert_ok(rt_params_create(rt_allocator_system(), &p));
  assert_ok(rt_params_set(p, "w", w));
  rt_tensor_release(w);
  return p;
}

/* One build and run with x = 0: the output is 2 * w^T as folded. */
static rt_tensor_t *build_and_run(const rt_pass_context_t *ctx) {
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(kModel, strlen(kModel), "fold.relay", &m));
  rt_params_t *p = weights();
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, ctx, p, &ex));
  int64_t xs[2] = {COLS, ROWS};
  rt_tensor_t *x = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, xs, &x));
  memset(rt_tensor_data(x), 0, rt_tensor_nbytes(x));
  assert_ok(rt_executor_set_input_by_name(ex, "x", x));
  assert_ok(rt_executor_run(ex));
  rt_tensor_t *o = NULL;
  assert_ok(rt_executor_get_output(ex, 0, &o));
  rt_tensor_retain(o);
  rt_tensor_release(x);
  rt_executor_release(ex);
  rt_params_release(p);
  rt_module_release(m);
  return o;
}

static void assert_folded(const rt_tensor_t *o) {
  const float *v = rt_tensor_data((rt_tensor_t *)o);
  for (int64_t c = 0; c < COLS; ++c) {
    for (int64_t r = 0; r < ROWS; ++r) {
      if (v[c * ROWS + r] != 2.0f * w_at(r, c)) {
        fail_msg("(%lld, %lld): %g, expected %g", (long long)c, (long long)r,
                 (double)v[c * ROWS + r], (double)(2.0f * w_at(r, c)));
      }
    }
  }
}

/* The entries under g_dir/fold: their paths into names[], the count. */
static int entries(char names[][512], int cap) {
  char folder[128];
  snprintf(folder, sizeof folder, "%s/fold", g_dir);
  DIR *d = opendir(folder);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!strstr(e->d_name, ".rtf") || strstr(e->d_name, ".tmp")) continue;
    if (n < cap) snprintf(names[n], 512, "%s/%s", folder, e->d_name);
    n++;
  }
  closedir(d);
  return n;
}

static void test_fold_cache_hit_and_miss(void **state) {
  (void)state;
  /* Cold: folds, and stores the product and its transpose. */
  rt_tensor_t *o = build_and_run(NULL);
  assert_folded(o);
  rt_tensor_release(o);
  char names[8][512];
  assert_int_equal(entries(names, 8), 2);
  struct stat sb;
  for (int i = 0; i < 2; ++i) {
    assert_int_equal(stat(names[i], &sb), 0);
    assert_int_equal(sb.st_size, 4096 + ROWS * COLS * 4);
  }

  /* Warm: both are hits. Element 0 of each entry's data is edited behind
   * its valid header; the output's element 0 is the transpose entry's. */
  const float sentinel = 12345.0f;
  for (int i = 0; i < 2; ++i) {
    FILE *f = fopen(names[i], "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 4096, SEEK_SET), 0);
    assert_int_equal(fwrite(&sentinel, sizeof sentinel, 1, f), 1);
    fclose(f);
  }
  o = build_and_run(NULL);
  assert_true(((const float *)rt_tensor_data(o))[0] == sentinel);
  rt_tensor_release(o);

  /* Entries cut short are misses: the build folds again, right, and
   * rewrites them whole. */
  for (int i = 0; i < 2; ++i) assert_int_equal(truncate(names[i], 4096 + 100), 0);
  o = build_and_run(NULL);
  assert_folded(o);
  rt_tensor_release(o);
  assert_int_equal(entries(names, 8), 2);
  for (int i = 0; i < 2; ++i) {
    assert_int_equal(stat(names[i], &sb), 0);
    assert_int_equal(sb.st_size, 4096 + ROWS * COLS * 4);
  }
}

/* jit.disk_cache=0 turns the fold cache off with the kernel cache. */
static void test_fold_cache_off(void **state) {
  (void)state;
  char dir[128];
  snprintf(dir, sizeof dir, "%s/off", g_dir);
  assert_int_equal(setenv("RELAYRT_CACHE_DIR", dir, 1), 0);
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_set_config(ctx, "jit.disk_cache", "0"));
  rt_tensor_t *o = build_and_run(ctx);
  assert_folded(o);
  rt_tensor_release(o);
  rt_pass_context_release(ctx);
  struct stat sb;
  char folder[256];
  snprintf(folder, sizeof folder, "%s/fold", dir);
  assert_int_not_equal(stat(folder, &sb), 0);
  assert_int_equal(setenv("RELAYRT_CACHE_DIR", g_dir, 1), 0);
}

/* A 1.2 MiB tensor of known values v[i] = (i % 1009) - 500 + seed. */
static rt_tensor_t *known(float seed) {
  int64_t shape[2] = {300, 1024};
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, shape, &t));
  float *v = rt_tensor_data(t);
  for (int64_t i = 0; i < 300 * 1024; ++i) v[i] = (float)(i % 1009) - 500.0f + seed;
  return t;
}

/* The entry of key under dir holds known(seed)'s values. */
static void assert_entry(const char *dir, rt_fold_key_t key, float seed) {
  int64_t shape[2] = {300, 1024};
  rt_tensor_t *t = NULL;
  assert_ok(rt_fold_cache_load(dir, key, RT_DTYPE_FLOAT32, 2, shape, &t));
  assert_non_null(t);
  const float *v = rt_tensor_data(t);
  for (int64_t i = 0; i < 300 * 1024; ++i) {
    if (v[i] != (float)(i % 1009) - 500.0f + seed) fail_msg("element %lld: %g", (long long)i, (double)v[i]);
  }
  rt_tensor_release(t);
}

static void test_fold_cache_deferred(void **state) {
  (void)state;
  char dir[128];
  snprintf(dir, sizeof dir, "%s/deferred", g_dir);
  int64_t shape[2] = {300, 1024};
  rt_tensor_t *miss = NULL;
  /* Outside a scope: written before the call returns. */
  const rt_fold_key_t k1 = {1, 11}, k2 = {2, 22}, k3 = {3, 33};
  rt_tensor_t *t = known(1);
  assert_ok(rt_fold_cache_store_deferred(dir, k1, t));
  rt_tensor_release(t);
  assert_entry(dir, k1, 1);
  /* In nested scopes: the entries (whose tensors only the writer still
   * holds) are there, right, once the outer scope ends. */
  rt_fold_cache_defer_begin();
  rt_fold_cache_defer_begin();
  t = known(2);
  assert_ok(rt_fold_cache_store_deferred(dir, k2, t));
  rt_tensor_release(t);
  rt_fold_cache_defer_end();
  t = known(3);
  assert_ok(rt_fold_cache_store_deferred(dir, k3, t));
  rt_tensor_release(t);
  rt_fold_cache_defer_end();
  assert_entry(dir, k2, 2);
  assert_entry(dir, k3, 3);
  /* A key never stored stays a miss; an end without a begin is a no-op. */
  assert_ok(rt_fold_cache_load(dir, (rt_fold_key_t){4, 44}, RT_DTYPE_FLOAT32, 2, shape, &miss));
  assert_null(miss);
  rt_fold_cache_defer_end();
}

static void remove_tree(const char *path) {
  DIR *d = opendir(path);
  if (!d) {
    unlink(path);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char child[1024];
    snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    remove_tree(child);
  }
  closedir(d);
  rmdir(path);
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/rt_fold_cache_XXXXXX");
  if (!mkdtemp(g_dir)) return 1;
  if (setenv("RELAYRT_CACHE_DIR", g_dir, 1) != 0) return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fold_cache_hit_and_miss),
      cmocka_unit_test(test_fold_cache_off),
      cmocka_unit_test(test_fold_cache_deferred),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  remove_tree(g_dir);
  return rc;
}
