/* The kernel cache: identities (alpha-equivalent functions share one,
 * any real difference does not), in-memory sharing within a session, the
 * disk cache across sessions (a "second start" is a fresh session: a new
 * LLJIT), misses on a changed model, target, opt level or LLVM pipeline
 * (a template's), corrupt files ignored and rewritten, and the cache
 * switched off. Counts are asserted,
 * never times. Every test uses its own temporary cache folder through
 * RELAYRT_CACHE_DIR: the user's real cache is never touched. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit/cache.h"
#include "jit_test_util.h"
#include "runtime/mem.h"

static const char kModel[] =
    "#[version = \"0.0.5\"]\n"
    "def @f(%x: Tensor[(64, 33), float32]) { add(%x, 2f) }\n"
    "def @g(%x: Tensor[(64, 33), float32]) { multiply(nn.relu(%x), 3f) }\n"
    "def @h(%x: Tensor[(64, 33), float32]) { sum(%x, axis=[1]) }\n";

/* The same functions, other names. */
static const char kRenamed[] =
    "#[version = \"0.0.5\"]\n"
    "def @a(%input0: Tensor[(64, 33), float32]) { add(%input0, 2f) }\n"
    "def @b(%y: Tensor[(64, 33), float32]) { %0 = nn.relu(%y); multiply(%0, 3f) }\n";

typedef struct {
  char dir[256];
} tmpdir_t;

static void tmp_make(tmpdir_t *t) {
  snprintf(t->dir, sizeof t->dir, "/tmp/relayrt-cache-test-XXXXXX");
  assert_non_null(mkdtemp(t->dir));
  setenv("RELAYRT_CACHE_DIR", t->dir, 1);
}

static int count_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static void tmp_remove(tmpdir_t *t) {
  DIR *d = opendir(t->dir);
  if (d) {
    struct dirent *e;
    char p[512];
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      snprintf(p, sizeof p, "%s/%s", t->dir, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(t->dir);
  setenv("RELAYRT_CACHE_DIR", "off", 1);
}

/* Builds @f @g @h of `m` in a session; checks f's and g's results. */
static void build3(rt_jit_session_t *s, rt_module_t *m, uint32_t flags,
                   rt_jit_build_stats_t *st, rt_jit_module_t **out) {
  rt_ir_expr_t *fns[3] = {rt_ir_module_lookup(m, "f"), rt_ir_module_lookup(m, "g"),
                          rt_ir_module_lookup(m, "h")};
  assert_ok(rt_jit_build(s, 3, fns, NULL, flags, st, out));
  float x[64 * 33], y[64 * 33];
  for (int i = 0; i < 64 * 33; ++i) x[i] = (float)(i % 13) - 6.0f;
  int64_t shape[2] = {64, 33};
  rt_kernel_arg args[2] = {{x, shape, NULL, 2, {kDLFloat, 32, 1}, 0},
                           {y, shape, NULL, 2, {kDLFloat, 32, 1}, 0}};
  rt_jit_simple_ctx_t ctx;
  rt_jit_simple_ctx_initialize(&ctx);
  assert_int_equal(rt_jit_module_kernel(*out, 0)(args, 2, &ctx.ctx), 0);
  for (int i = 0; i < 64 * 33; ++i) assert_true(y[i] == x[i] + 2.0f);
  assert_int_equal(rt_jit_module_kernel(*out, 1)(args, 2, &ctx.ctx), 0);
  for (int i = 0; i < 64 * 33; ++i) assert_true(y[i] == (x[i] > 0 ? x[i] : 0) * 3.0f);
}

static void test_jit_cache_identity(void **state) {
  (void)state;
  rt_module_t *m = jt_parse(kModel), *r = jt_parse(kRenamed);
  const char *tgt = "x86_64-pc-linux-gnu znver3 +avx2", *cc = "relayrt test";
  rt_jit_kernel_id_t f, a, g, b, h, f_tgt, f_o0;
  assert_ok(rt_jit_kernel_id(rt_ir_module_lookup(m, "f"), tgt, cc, "O3", &f));
  assert_ok(rt_jit_kernel_id(rt_ir_module_lookup(r, "a"), tgt, cc, "O3", &a));
  assert_ok(rt_jit_kernel_id(rt_ir_module_lookup(m, "g"), tgt, cc, "O3", &g));
  assert_ok(rt_jit_kernel_id(rt_ir_module_lookup(r, "b"), tgt, cc, "O3", &b));
  assert_ok(rt_jit_kernel_id(rt_ir_module_lookup(m, "h"), tgt, cc, "O3", &h));
  assert_ok(rt_jit_kernel_id(rt_ir_module_lookup(m, "f"), "x86_64-pc-linux-gnu haswell +avx2", cc,
                             "O3", &f_tgt));
  assert_ok(rt_jit_kernel_id(rt_ir_module_lookup(m, "f"), tgt, cc, "O0", &f_o0));
  /* Renamed variables: the same kernel. */
  assert_true(f.key == a.key);
  assert_string_equal(f.symbol, a.symbol);
  assert_int_equal(f.identity_len, a.identity_len);
  assert_memory_equal(f.identity, a.identity, f.identity_len);
  assert_string_equal(g.symbol, b.symbol);
  /* Different functions, targets or opt levels: different kernels. */
  assert_true(f.key != g.key && g.key != h.key && f.key != h.key);
  assert_true(f.key != f_tgt.key && f.identity_hash != f_tgt.identity_hash);
  assert_true(f.key != f_o0.key);
  assert_non_null(strstr((const char *)f.identity, "target x86_64-pc-linux-gnu znver3"));
  rt_jit_kernel_id_t *all[] = {&f, &a, &g, &b, &h, &f_tgt, &f_o0};
  for (size_t i = 0; i < RT_COUNTOF(all); ++i) rt_jit_kernel_id_deinitialize(all[i]);
  rt_module_release(m);
  rt_module_release(r);
}

/* The pipeline a kernel gets is part of its key and identity: the light
 * pipeline of the explicit-vector templates (Winograd with FastISel) never
 * shares an object with O3's (or O0's), so changing a template's pipeline
 * never reuses stale code. */
static void test_jit_cache_pipeline(void **state) {
  (void)state;
  const char *wino = rt_jit_pipeline_key(0, "conv2d.winograd.6x16", true);
  const char *direct = rt_jit_pipeline_key(0, "conv2d.direct.4x24", false);
  const char *direct_light = rt_jit_pipeline_key(0, "conv2d.direct.4x24", true);
  assert_string_equal(direct, "O3");
  assert_string_equal(rt_jit_pipeline_key(0, NULL, false), "O3");
  assert_string_not_equal(wino, "O3");
  assert_string_not_equal(direct_light, "O3");
  assert_string_equal(rt_jit_pipeline_key(RT_JIT_NO_OPT, "conv2d.winograd.6x16", true), "O0");
  assert_string_equal(rt_jit_pipeline_key(RT_JIT_NO_OPT, NULL, false), "O0");
  rt_module_t *m = jt_parse(kModel);
  const char *tgt = "x86_64-pc-linux-gnu znver3 +avx2", *cc = "relayrt test";
  rt_jit_kernel_id_t o3, light;
  assert_ok(rt_jit_kernel_id(rt_ir_module_lookup(m, "f"), tgt, cc, direct, &o3));
  assert_ok(rt_jit_kernel_id(rt_ir_module_lookup(m, "f"), tgt, cc, wino, &light));
  assert_true(o3.key != light.key && o3.identity_hash != light.identity_hash);
  assert_string_not_equal(o3.symbol, light.symbol);
  char line[128];
  snprintf(line, sizeof line, "opt %s\n", wino);
  assert_non_null(strstr((const char *)light.identity, line));
  rt_jit_kernel_id_deinitialize(&o3);
  rt_jit_kernel_id_deinitialize(&light);
  rt_module_release(m);
}

/* A constant inside the function is part of its identity (its bytes, not
 * only its meta[] reference). */
static void test_jit_cache_identity_constants(void **state) {
  (void)state;
  rt_module_t *m = jt_parse(kModel);
  rt_ir_expr_t *f = rt_ir_module_lookup(m, "f");
  rt_jit_kernel_id_t id1, id2;
  assert_ok(rt_jit_kernel_id(f, "t", "c", "O3", &id1));
  /* The scalar 2f is inline text; flipping it must change the identity. */
  rt_module_t *m2 = jt_parse(
      "#[version = \"0.0.5\"]\n"
      "def @f(%x: Tensor[(64, 33), float32]) { add(%x, 2.5f) }\n");
  assert_ok(rt_jit_kernel_id(rt_ir_module_lookup(m2, "f"), "t", "c", "O3", &id2));
  assert_true(id1.identity_hash != id2.identity_hash);
  assert_string_not_equal(id1.symbol, id2.symbol);
  rt_jit_kernel_id_deinitialize(&id1);
  rt_jit_kernel_id_deinitialize(&id2);
  rt_module_release(m);
  rt_module_release(m2);
}

/* In one session: a second build of the same kernels compiles nothing,
 * also when they come from another module with other names; the code is
 * dropped with the last module using it. */
static void test_jit_cache_memory(void **state) {
  (void)state;
  setenv("RELAYRT_CACHE_DIR", "off", 1);
  rt_module_t *m = jt_parse(kModel), *r = jt_parse(kRenamed);
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  rt_jit_build_stats_t st;
  rt_jit_module_t *j1 = NULL, *j2 = NULL, *j3 = NULL;
  build3(s, m, 0, &st, &j1);
  assert_int_equal(st.compiled, 3);
  assert_int_equal(st.memory_hits, 0);
  assert_int_equal(st.disk_hits + st.disk_writes, 0);
  build3(s, m, 0, &st, &j2);
  assert_int_equal(st.compiled, 0);
  assert_int_equal(st.memory_hits, 3);
  assert_ptr_equal(rt_jit_module_kernel(j1, 2), rt_jit_module_kernel(j2, 2));
  /* Alpha-equivalent functions of another model, and a repeat in one build. */
  rt_ir_expr_t *fns[3] = {rt_ir_module_lookup(r, "b"), rt_ir_module_lookup(r, "a"),
                          rt_ir_module_lookup(r, "b")};
  assert_ok(rt_jit_build(s, 3, fns, NULL, 0, &st, &j3));
  assert_int_equal(st.compiled, 0);
  assert_int_equal(st.memory_hits, 3);
  assert_ptr_equal(rt_jit_module_kernel(j3, 0), rt_jit_module_kernel(j1, 1));
  assert_ptr_equal(rt_jit_module_kernel(j3, 1), rt_jit_module_kernel(j1, 0));
  rt_jit_module_release(j1);
  rt_jit_module_release(j2);
  rt_jit_module_release(j3);
  /* Nothing alive: compiled again (and the same symbols are reusable). */
  build3(s, m, 0, &st, &j1);
  assert_int_equal(st.compiled, 3);
  /* A cold build of two kernels; then one function twice in one build. */
  rt_ir_expr_t *twice[2] = {rt_ir_module_lookup(r, "a"), rt_ir_module_lookup(r, "b")};
  rt_jit_module_release(j1);
  assert_ok(rt_jit_build(s, 2, twice, NULL, 0, &st, &j2));
  assert_int_equal(st.compiled, 2);
  rt_ir_expr_t *dup[2] = {rt_ir_module_lookup(m, "h"), rt_ir_module_lookup(m, "h")};
  assert_ok(rt_jit_build(s, 2, dup, NULL, 0, &st, &j3));
  assert_int_equal(st.compiled, 1);
  assert_ptr_equal(rt_jit_module_kernel(j3, 0), rt_jit_module_kernel(j3, 1));
  rt_jit_cache_counts_t c;
  rt_jit_session_counts(s, &c);
  assert_int_equal(c.compiled, 3 + 3 + 2 + 1);
  assert_int_equal(c.memory_hits, 6);
  rt_jit_module_release(j2);
  rt_jit_module_release(j3);
  rt_jit_session_release(s);
  rt_module_release(m);
  rt_module_release(r);
}

/* A second start (a new session) loads every kernel from disk and runs
 * them; IR text kept on the first start comes back too. */
static void test_jit_cache_disk(void **state) {
  (void)state;
  tmpdir_t t;
  tmp_make(&t);
  rt_module_t *m = jt_parse(kModel);
  rt_jit_build_stats_t st;
  rt_jit_module_t *jm = NULL;
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  build3(s, m, RT_JIT_KEEP_LL, &st, &jm);
  assert_int_equal(st.compiled, 3);
  assert_int_equal(st.disk_hits, 0);
  assert_int_equal(st.disk_writes, 3);
  assert_int_equal(count_files(t.dir), 3);
  rt_jit_module_release(jm);
  rt_jit_session_release(s);

  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  build3(s, m, RT_JIT_KEEP_LL, &st, &jm);
  assert_int_equal(st.compiled, 0);
  assert_int_equal(st.disk_hits, 3);
  assert_int_equal(st.disk_writes, 0);
  char *ll = NULL;
  assert_ok(rt_jit_module_ll(jm, 2, &ll));
  assert_non_null(strstr(ll, rt_jit_module_symbol(jm, 2)));
  rt_mem_free(ll);
  rt_jit_module_release(jm);
  /* Unoptimized kernels are other kernels. */
  build3(s, m, RT_JIT_NO_OPT, &st, &jm);
  assert_int_equal(st.compiled, 3);
  assert_int_equal(count_files(t.dir), 6);
  rt_jit_module_release(jm);
  /* A changed model: only the changed kernel misses. */
  rt_module_t *m2 = jt_parse(
      "#[version = \"0.0.5\"]\n"
      "def @f(%x: Tensor[(64, 33), float32]) { add(%x, 2f) }\n"
      "def @g(%x: Tensor[(64, 33), float32]) { multiply(nn.relu(%x), 3f) }\n"
      "def @h(%x: Tensor[(64, 33), float32]) { max(%x, axis=[1]) }\n");
  build3(s, m2, 0, &st, &jm);
  assert_int_equal(st.compiled, 1);
  assert_int_equal(st.disk_hits, 2);
  rt_jit_module_release(jm);
  /* RT_JIT_NO_DISK_CACHE neither reads nor writes. */
  rt_jit_session_release(s);
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  build3(s, m, RT_JIT_NO_DISK_CACHE, &st, &jm);
  assert_int_equal(st.compiled, 3);
  assert_int_equal(st.disk_hits + st.disk_writes, 0);
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);
  rt_module_release(m2);
  tmp_remove(&t);
}

/* Entries of another target miss: the target is in the key and the
 * identity, so the file name and the stored identity both differ. */
static void test_jit_cache_disk_target(void **state) {
  (void)state;
  tmpdir_t t;
  tmp_make(&t);
  rt_module_t *m = jt_parse(kModel);
  rt_jit_kernel_id_t a, b;
  assert_ok(rt_jit_kernel_id(rt_ir_module_lookup(m, "f"), "x86_64 znver3 +avx2", "c", "O3", &a));
  assert_ok(rt_jit_kernel_id(rt_ir_module_lookup(m, "f"), "x86_64 skylake +avx2", "c", "O3", &b));
  uint8_t obj[16] = "not really ELF";
  rt_jit_cache_entry_t e = {1, 1, obj, sizeof obj, NULL, 0}, got;
  assert_ok(rt_jit_cache_write(t.dir, &a, &e));
  bool found = false;
  assert_ok(rt_jit_cache_read(t.dir, &a, &got, &found));
  assert_true(found);
  assert_int_equal(got.object_len, sizeof obj);
  assert_memory_equal(got.object, obj, sizeof obj);
  rt_jit_cache_entry_deinitialize(&got);
  assert_ok(rt_jit_cache_read(t.dir, &b, &got, &found));
  assert_false(found);
  /* Even under a's file name, b's identity is refused. */
  char pa[512], pb[512];
  snprintf(pa, sizeof pa, "%s/%016llx-%016llx.rtk", t.dir, (unsigned long long)a.key,
           (unsigned long long)a.identity_hash);
  snprintf(pb, sizeof pb, "%s/%016llx-%016llx.rtk", t.dir, (unsigned long long)b.key,
           (unsigned long long)b.identity_hash);
  assert_int_equal(rename(pa, pb), 0);
  assert_ok(rt_jit_cache_read(t.dir, &b, &got, &found));
  assert_false(found);
  rt_jit_kernel_id_deinitialize(&a);
  rt_jit_kernel_id_deinitialize(&b);
  rt_module_release(m);
  tmp_remove(&t);
}

/* Flip / cut / pad every file in dir. */
static void damage_all(const char *dir, int how) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  char p[512];
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    FILE *f = fopen(p, "r+b");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    if (how == 0) { /* one payload byte flipped */
      fseek(f, n / 2, SEEK_SET);
      int c = fgetc(f);
      fseek(f, n / 2, SEEK_SET);
      fputc(c ^ 0x40, f);
      fclose(f);
    } else if (how == 1) { /* truncated */
      fclose(f);
      assert_int_equal(truncate(p, n - 7), 0);
    } else if (how == 2) { /* another format version */
      fseek(f, 8, SEEK_SET);
      fputc(99, f);
      fclose(f);
    } else { /* empty */
      fclose(f);
      assert_int_equal(truncate(p, 0), 0);
    }
  }
  closedir(d);
}

/* Corrupt entries are ignored (the kernels compile), replaced, and the
 * replacement is used by the next start. */
static void test_jit_cache_disk_corrupt(void **state) {
  (void)state;
  tmpdir_t t;
  tmp_make(&t);
  rt_module_t *m = jt_parse(kModel);
  rt_jit_build_stats_t st;
  rt_jit_module_t *jm = NULL;
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  build3(s, m, 0, &st, &jm);
  assert_int_equal(st.compiled, 3);
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  for (int how = 0; how < 4; ++how) {
    damage_all(t.dir, how);
    assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
    build3(s, m, 0, &st, &jm);
    assert_int_equal(st.compiled, 3);
    assert_int_equal(st.disk_hits, 0);
    assert_int_equal(st.disk_writes, 3);
    rt_jit_module_release(jm);
    rt_jit_session_release(s);
    assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
    build3(s, m, 0, &st, &jm);
    assert_int_equal(st.compiled, 0);
    assert_int_equal(st.disk_hits, 3);
    rt_jit_module_release(jm);
    rt_jit_session_release(s);
  }
  assert_int_equal(count_files(t.dir), 3); /* no temporary files left */
  rt_module_release(m);
  tmp_remove(&t);
}

/* RELAYRT_CACHE_DIR=off disables the disk cache; an unwritable folder is
 * skipped without an error. */
static void test_jit_cache_disk_off(void **state) {
  (void)state;
  rt_module_t *m = jt_parse(kModel);
  rt_jit_build_stats_t st;
  rt_jit_module_t *jm = NULL;
  rt_jit_session_t *s = NULL;
  char *dir = (char *)"x";
  setenv("RELAYRT_CACHE_DIR", "off", 1);
  assert_ok(rt_jit_cache_dir(&dir));
  assert_null(dir);
  setenv("RELAYRT_CACHE_DIR", "/proc/relayrt-cannot-write-here", 1);
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  build3(s, m, 0, &st, &jm);
  assert_int_equal(st.compiled, 3);
  assert_int_equal(st.disk_writes, 0);
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  /* The default folder follows XDG_CACHE_HOME, then HOME. */
  unsetenv("RELAYRT_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/somewhere", 1);
  assert_ok(rt_jit_cache_dir(&dir));
  assert_string_equal(dir, "/somewhere/relayrt");
  rt_mem_free(dir);
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  assert_ok(rt_jit_cache_dir(&dir));
  assert_string_equal(dir, "/home/u/.cache/relayrt");
  rt_mem_free(dir);
  setenv("RELAYRT_CACHE_DIR", "off", 1);
  rt_module_release(m);
}

/* The shared session is one object while referenced, and a new one after. */
static void test_jit_cache_shared_session(void **state) {
  (void)state;
  rt_jit_session_t *a = NULL, *b = NULL;
  assert_ok(rt_jit_session_shared(RT_JIT_TARGET_DEFAULT, &a));
  assert_ok(rt_jit_session_shared(RT_JIT_TARGET_DEFAULT, &b));
  assert_ptr_equal(a, b);
  assert_non_null(strstr(rt_jit_session_compiler(a), "LLVM"));
  rt_jit_session_release(a);
  rt_jit_session_release(b);
  assert_ok(rt_jit_session_shared(RT_JIT_TARGET_DEFAULT, &a));
  rt_jit_session_release(a);
}

int main(void) {
  setenv("RELAYRT_CACHE_DIR", "off", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_jit_cache_identity),
      cmocka_unit_test(test_jit_cache_identity_constants),
      cmocka_unit_test(test_jit_cache_pipeline),
      cmocka_unit_test(test_jit_cache_memory),
      cmocka_unit_test(test_jit_cache_disk),
      cmocka_unit_test(test_jit_cache_disk_target),
      cmocka_unit_test(test_jit_cache_disk_corrupt),
      cmocka_unit_test(test_jit_cache_disk_off),
      cmocka_unit_test(test_jit_cache_shared_session),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
