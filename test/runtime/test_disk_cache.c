/* The disk cache's entry writer (runtime/disk_cache.h): an entry reads
 * back byte for byte whatever its size -- small ones through the page
 * cache, large ones (>= 1 MiB) through the direct-I/O path with its
 * aligned bounce buffer, parts that straddle its 1 MiB chunks and a tail
 * that is not a whole block -- and a second write replaces the first. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/disk_cache.h"
#include "test_util.h"

static char g_tmpdir[64];

static int setup_tmpdir(void **state) {
  (void)state;
  snprintf(g_tmpdir, sizeof g_tmpdir, "/tmp/rt_test_disk_cache_XXXXXX");
  return mkdtemp(g_tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state) {
  (void)state;
  char sub[96], entry[128];
  snprintf(sub, sizeof sub, "%s/sub", g_tmpdir);
  snprintf(entry, sizeof entry, "%s/entry.bin", sub);
  unlink(entry);
  rmdir(sub);
  return rmdir(g_tmpdir);
}

/* Fills n bytes with a sequence that differs per seed and per offset. */
static uint8_t *pattern(size_t n, uint32_t seed) {
  uint8_t *p = malloc(n ? n : 1);
  assert_non_null(p);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    p[i] = (uint8_t)(x >> 16);
  }
  return p;
}

/* Writes parts of the given sizes to one entry and checks the file holds
 * exactly their concatenation. */
static void write_and_check(const size_t *sizes, int32_t n, uint32_t seed) {
  char dir[96], path[128];
  snprintf(dir, sizeof dir, "%s/sub", g_tmpdir);
  snprintf(path, sizeof path, "%s/entry.bin", dir);
  rt_cache_part_t parts[8];
  size_t total = 0;
  for (int32_t i = 0; i < n; ++i) {
    parts[i] = (rt_cache_part_t){pattern(sizes[i], seed + (uint32_t)i), sizes[i]};
    total += sizes[i];
  }
  assert_ok(rt_cache_write_entry(dir, path, parts, n));

  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  uint8_t *got = malloc(total + 1);
  assert_non_null(got);
  assert_int_equal(fread(got, 1, total + 1, f), total); /* no padding left */
  fclose(f);
  size_t off = 0;
  for (int32_t i = 0; i < n; ++i) {
    assert_memory_equal(got + off, parts[i].data, sizes[i]);
    off += sizes[i];
    free((void *)parts[i].data);
  }
  free(got);
}

static void test_small_entry(void **state) {
  (void)state;
  const size_t sizes[] = {7, 4096, 100};
  write_and_check(sizes, 3, 1);
}

static void test_large_entry_unaligned_parts(void **state) {
  (void)state;
  /* A header-sized part, a part crossing two 1 MiB chunks with an odd
   * tail, then a few bytes: every block boundary case of the direct path. */
  const size_t sizes[] = {4096, (size_t)5 << 19 /* 2.5 MiB */, 3, ((size_t)1 << 20) - 5};
  write_and_check(sizes, 4, 2);
}

static void test_large_entry_exact_chunks(void **state) {
  (void)state;
  const size_t sizes[] = {(size_t)1 << 20, (size_t)1 << 20};
  write_and_check(sizes, 2, 3);
}

static void test_rewrite_replaces(void **state) {
  (void)state;
  const size_t big[] = {(size_t)3 << 20};
  write_and_check(big, 1, 4);
  const size_t small[] = {10};
  write_and_check(small, 1, 5); /* shorter than the first: nothing of it left */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_entry),
      cmocka_unit_test(test_large_entry_unaligned_parts),
      cmocka_unit_test(test_large_entry_exact_chunks),
      cmocka_unit_test(test_rewrite_replaces),
  };
  return cmocka_run_group_tests(tests, setup_tmpdir, remove_tmpdir);
}
