/* Shared test helpers: the counting allocator (a 64-byte header before each
 * block records its size, so frees and leaks are checked), status
 * assertions, and test-data paths. */
#include "test_util.h"
#include "runtime/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  size_t size;
  size_t magic;
} block_header;

#define HEADER_BYTES 64
#define BLOCK_MAGIC ((size_t)0x5eed5eed5eed5eedull)

static void *counting_alloc(void *self, size_t size, size_t alignment) {
  rt_test_alloc_t *st = self;
  if (st->fail_at >= 0 && st->total_allocations == st->fail_at) {
    st->total_allocations++;
    return NULL;
  }
  if (alignment < HEADER_BYTES) alignment = HEADER_BYTES;
  if (size > SIZE_MAX - alignment) return NULL;
  void *raw = NULL;
  if (posix_memalign(&raw, alignment, size + alignment) != 0) return NULL;
  uint8_t *user = (uint8_t *)raw + alignment;
  block_header *h = (block_header *)(user - sizeof(block_header));
  h->size = size;
  h->magic = BLOCK_MAGIC;
  /* The offset back to raw is kept just before the header. */
  ((size_t *)h)[-1] = alignment;
  st->total_allocations++;
  st->live_allocations++;
  st->live_bytes += (int64_t)size;
  return user;
}

static void counting_free(void *self, void *ptr) {
  if (!ptr) return;
  rt_test_alloc_t *st = self;
  uint8_t *user = ptr;
  block_header *h = (block_header *)(user - sizeof(block_header));
  assert_true(h->magic == BLOCK_MAGIC);
  h->magic = 0;
  size_t alignment = ((size_t *)h)[-1];
  st->live_allocations--;
  st->live_bytes -= (int64_t)h->size;
  free(user - alignment);
}

rt_allocator_t rt_test_allocator(rt_test_alloc_t *state) {
  rt_allocator_t a = {state, counting_alloc, counting_free};
  return a;
}

void rt_test_assert_ok(rt_status_t status, const char *expr, const char *file,
                       int line) {
  if (status == NULL) return;
  print_error("%s failed: %s: %s\n", expr,
              rt_status_code_name(rt_status_code(status)),
              rt_status_message(status));
  rt_status_free(status);
  _fail(file, line);
}

void rt_test_assert_status(rt_status_t status, rt_status_code_t code,
                           const char *needle, const char *expr,
                           const char *file, int line) {
  if (status == NULL) {
    print_error("%s succeeded; expected %s\n", expr, rt_status_code_name(code));
    _fail(file, line);
    return;
  }
  rt_status_code_t got = rt_status_code(status);
  const char *msg = rt_status_message(status);
  int bad = got != code || (needle && strstr(msg, needle) == NULL);
  if (bad) {
    print_error("%s: expected %s containing \"%s\", got %s: %s\n", expr,
                rt_status_code_name(code), needle ? needle : "",
                rt_status_code_name(got), msg);
  }
  rt_status_free(status);
  if (bad) _fail(file, line);
}

const char *rt_test_path(const char *relative) {
  static char buf[4096];
  const char *dir = getenv("RT_TEST_SRCDIR");
  if (!dir) dir = ".";
  snprintf(buf, sizeof buf, "%s/%s", dir, relative);
  return buf;
}

char *rt_test_read_file(const char *path, size_t *out_size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    print_error("cannot open %s\n", path);
    fail();
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = rt_mem_alloc((size_t)n + 1);
  assert_non_null(buf);
  size_t got = fread(buf, 1, (size_t)n, f);
  fclose(f);
  assert_int_equal(got, (size_t)n);
  buf[n] = '\0';
  if (out_size) *out_size = (size_t)n;
  return buf;
}

void rt_test_write_file(const char *path, const void *bytes, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    print_error("cannot create %s\n", path);
    fail();
  }
  size_t put = fwrite(bytes, 1, n, f);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(put, n);
}

long rt_test_find_bytes(const void *hay, size_t n, const void *needle, size_t len) {
  const unsigned char *h = hay;
  for (size_t i = 0; i + len <= n; ++i) {
    if (memcmp(h + i, needle, len) == 0) return (long)i;
  }
  return -1;
}
