/* Helpers shared by the cmocka tests: a counting allocator that reports
 * leaks and can fail the Nth allocation, and status assertions. */
#ifndef RT_TEST_UTIL_H_
#define RT_TEST_UTIL_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka.h needs the four headers above first. */
#include <cmocka.h>

#include "rt/rt.h"

typedef struct rt_test_alloc_t {
  int64_t live_allocations;   /* alloc - free */
  int64_t total_allocations;
  int64_t fail_at;            /* fail the allocation with this index (0-based); -1 = never */
  int64_t live_bytes;
} rt_test_alloc_t;

/* An allocator counting into *state (which the caller zeroes and sets
 * fail_at = -1). Blocks carry a header so frees are checked. */
rt_allocator_t rt_test_allocator(rt_test_alloc_t *state);

/* Fails the test (with the message) when status is an error; frees it. */
#define assert_ok(expr) rt_test_assert_ok((expr), #expr, __FILE__, __LINE__)
void rt_test_assert_ok(rt_status_t status, const char *expr, const char *file,
                       int line);

/* Asserts `status` has `code` and its message contains `needle` (NULL =
 * any); frees it. */
#define assert_status(expr, code, needle) \
  rt_test_assert_status((expr), RT_STATUS_##code, (needle), #expr, __FILE__, __LINE__)
void rt_test_assert_status(rt_status_t status, rt_status_code_t code,
                           const char *needle, const char *expr,
                           const char *file, int line);

/* Path of a file under the source tree's test/ folder: RT_TEST_SRCDIR is
 * set by meson for every test. Returns a static buffer. */
const char *rt_test_path(const char *relative);

/* Reads a whole file (test fails if it cannot); caller frees. */
char *rt_test_read_file(const char *path, size_t *out_size);

/* Writes n bytes to path, replacing it (test fails if it cannot). */
void rt_test_write_file(const char *path, const void *bytes, size_t n);

/* Offset of the first `len` bytes equal to needle in hay[0, n), or -1. */
long rt_test_find_bytes(const void *hay, size_t n, const void *needle, size_t len);

#endif /* RT_TEST_UTIL_H_ */
