/* Tests of the arena: alignment, zero fill, big requests in their own
 * block, reset keeping one block, overflow checks, allocation failure and
 * that every block goes back to the allocator. */
#include <string.h>

#include "runtime/arena.h"
#include "test_util.h"

static void test_arena_alignment_and_zero(void **state) {
  (void)state;
  rt_test_alloc_t counts = {0, 0, -1, 0};
  rt_arena_t arena;
  rt_arena_initialize(rt_test_allocator(&counts), &arena);
  for (size_t size = 0; size < 100; ++size) {
    void *p = NULL;
    assert_ok(rt_arena_alloc(&arena, size, &p));
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 16, 0);
    for (size_t i = 0; i < size; ++i) assert_int_equal(((unsigned char *)p)[i], 0);
    memset(p, 0xAB, size);
  }
  assert_int_equal(counts.live_allocations, 1);
  rt_arena_deinitialize(&arena);
  assert_int_equal(counts.live_allocations, 0);
}

static void test_arena_big_request_own_block(void **state) {
  (void)state;
  rt_test_alloc_t counts = {0, 0, -1, 0};
  rt_arena_t arena;
  rt_arena_initialize(rt_test_allocator(&counts), &arena);
  void *small = NULL, *big = NULL, *small2 = NULL;
  assert_ok(rt_arena_alloc(&arena, 32, &small));
  assert_ok(rt_arena_alloc(&arena, 1 << 20, &big));
  assert_int_equal(counts.live_allocations, 2);
  memset(big, 1, 1 << 20);
  /* The small block is still the current one. */
  assert_ok(rt_arena_alloc(&arena, 32, &small2));
  assert_ptr_equal((char *)small + 32, small2);
  assert_int_equal(counts.live_allocations, 2);
  assert_true(arena.bytes_allocated >= 64 + (1 << 20));
  rt_arena_deinitialize(&arena);
  assert_int_equal(counts.live_allocations, 0);
}

static void test_arena_reset_keeps_one_block(void **state) {
  (void)state;
  rt_test_alloc_t counts = {0, 0, -1, 0};
  rt_arena_t arena;
  rt_arena_initialize(rt_test_allocator(&counts), &arena);
  for (int i = 0; i < 10000; ++i) {
    void *p = NULL;
    assert_ok(rt_arena_alloc(&arena, 100, &p));
    memset(p, 0xFF, 100);
  }
  void *big = NULL;
  assert_ok(rt_arena_alloc(&arena, 1 << 20, &big));
  assert_true(counts.live_allocations > 2);
  rt_arena_reset(&arena);
  assert_int_equal(counts.live_allocations, 1);
  assert_int_equal(arena.bytes_allocated, 0);
  /* Reused memory comes back zeroed. */
  void *p = NULL;
  assert_ok(rt_arena_alloc(&arena, 100, &p));
  for (int i = 0; i < 100; ++i) assert_int_equal(((unsigned char *)p)[i], 0);
  assert_int_equal(counts.live_allocations, 1);
  rt_arena_deinitialize(&arena);
  assert_int_equal(counts.live_allocations, 0);
}

static void test_arena_overflow_is_error(void **state) {
  (void)state;
  rt_test_alloc_t counts = {0, 0, -1, 0};
  rt_arena_t arena;
  rt_arena_initialize(rt_test_allocator(&counts), &arena);
  void *p = NULL;
  assert_status(rt_arena_alloc_array(&arena, SIZE_MAX / 2, 3, &p), RESOURCE_EXHAUSTED,
                "overflows");
  assert_status(rt_arena_alloc(&arena, SIZE_MAX - 3, &p), RESOURCE_EXHAUSTED, "overflows");
  assert_status(rt_arena_alloc(&arena, SIZE_MAX - 100, &p), RESOURCE_EXHAUSTED, NULL);
  char *s = NULL;
  assert_status(rt_arena_strndup(&arena, "x", SIZE_MAX, &s), RESOURCE_EXHAUSTED, NULL);
  assert_null(p);
  rt_arena_deinitialize(&arena);
  assert_int_equal(counts.live_allocations, 0);
}

static void test_arena_alloc_failure(void **state) {
  (void)state;
  rt_test_alloc_t counts = {0, 0, 0, 0};
  rt_arena_t arena;
  rt_arena_initialize(rt_test_allocator(&counts), &arena);
  void *p = NULL;
  assert_status(rt_arena_alloc(&arena, 10, &p), RESOURCE_EXHAUSTED, "bytes");
  counts.fail_at = -1;
  assert_ok(rt_arena_alloc(&arena, 10, &p));
  rt_arena_deinitialize(&arena);
  assert_int_equal(counts.live_allocations, 0);
}

static void test_arena_strndup_and_array(void **state) {
  (void)state;
  rt_test_alloc_t counts = {0, 0, -1, 0};
  rt_arena_t arena;
  rt_arena_initialize(rt_test_allocator(&counts), &arena);
  char *s = NULL;
  assert_ok(rt_arena_strndup(&arena, "hello world", 5, &s));
  assert_string_equal(s, "hello");
  int64_t *a = NULL;
  void *mem = NULL;
  assert_ok(rt_arena_alloc_array(&arena, 10, sizeof(int64_t), &mem));
  a = mem;
  for (int i = 0; i < 10; ++i) assert_int_equal(a[i], 0);
  rt_arena_deinitialize(&arena);
  assert_int_equal(counts.live_allocations, 0);
  /* Deinitializing an empty arena is fine, twice too. */
  rt_arena_initialize(rt_test_allocator(&counts), &arena);
  rt_arena_deinitialize(&arena);
  rt_arena_deinitialize(&arena);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arena_alignment_and_zero),
      cmocka_unit_test(test_arena_big_request_own_block),
      cmocka_unit_test(test_arena_reset_keeps_one_block),
      cmocka_unit_test(test_arena_overflow_is_error),
      cmocka_unit_test(test_arena_alloc_failure),
      cmocka_unit_test(test_arena_strndup_and_array),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
