/* The workspace pool: 64-byte alignment, reuse after free (so a warm run
 * allocates nothing), a request larger than every free block gets a new
 * one, a thread gets back the block it freed before another thread's, and
 * concurrent use from several threads. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "runtime/workspace.h"
#include "test_util.h"

static void test_workspace_reuse_and_alignment(void **state) {
  (void)state;
  rt_workspace_pool_t pool;
  rt_workspace_pool_initialize(&pool);
  void *a = rt_workspace_alloc(&pool, 1000);
  void *b = rt_workspace_alloc(&pool, 100000);
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal((uintptr_t)a % 64, 0);
  assert_int_equal((uintptr_t)b % 64, 0);
  memset(a, 1, 1000);
  memset(b, 2, 100000);
  assert_int_equal(pool.allocations, 2);
  /* The same requests again, as a second run makes them: no new blocks. */
  rt_workspace_free(&pool, a);
  rt_workspace_free(&pool, b);
  for (int run = 0; run < 5; ++run) {
    void *x = rt_workspace_alloc(&pool, 1000);
    void *y = rt_workspace_alloc(&pool, 100000);
    assert_non_null(x);
    assert_non_null(y);
    assert_ptr_not_equal(x, y);
    rt_workspace_free(&pool, y);
    rt_workspace_free(&pool, x);
  }
  assert_int_equal(pool.allocations, 2);
  /* Larger than any free block: a new one. */
  void *c = rt_workspace_alloc(&pool, 1 << 20);
  assert_non_null(c);
  assert_int_equal(pool.allocations, 3);
  rt_workspace_free(&pool, c);
  rt_workspace_free(&pool, NULL);
  rt_workspace_pool_deinitialize(&pool);
}

typedef struct {
  rt_workspace_pool_t *pool;
  pthread_barrier_t *bar;
  void *first, *second;
} own_job;

static void *other_thread(void *arg) {
  own_job *j = arg;
  pthread_barrier_wait(j->bar); /* main holds its block */
  j->first = rt_workspace_alloc(j->pool, 5000);
  rt_workspace_free(j->pool, j->first);
  pthread_barrier_wait(j->bar);
  pthread_barrier_wait(j->bar); /* main freed its block after ours */
  j->second = rt_workspace_alloc(j->pool, 5000);
  pthread_barrier_wait(j->bar);
  return NULL;
}

/* Main and another thread each free a block of the same size, main last;
 * each then asks again and gets its own back (from one shared list the
 * other thread would get main's, freed last). */
static void test_workspace_own_blocks_first(void **state) {
  (void)state;
  rt_workspace_pool_t pool;
  rt_workspace_pool_initialize(&pool);
  pthread_barrier_t bar;
  pthread_barrier_init(&bar, NULL, 2);
  own_job j = {&pool, &bar, NULL, NULL};
  pthread_t t;
  void *mine = rt_workspace_alloc(&pool, 5000);
  assert_non_null(mine);
  assert_int_equal(pthread_create(&t, NULL, other_thread, &j), 0);
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar); /* the other thread freed its block */
  rt_workspace_free(&pool, mine);
  pthread_barrier_wait(&bar);
  pthread_barrier_wait(&bar); /* it took one again */
  pthread_join(t, NULL);
  assert_non_null(j.first);
  assert_ptr_not_equal(j.first, mine);
  assert_ptr_equal(j.second, j.first);
  void *again = rt_workspace_alloc(&pool, 5000);
  assert_ptr_equal(again, mine);
  assert_int_equal(pool.allocations, 2);
  rt_workspace_free(&pool, again);
  rt_workspace_free(&pool, j.second);
  pthread_barrier_destroy(&bar);
  rt_workspace_pool_deinitialize(&pool);
}

static void *hammer(void *arg) {
  rt_workspace_pool_t *pool = arg;
  for (int i = 0; i < 2000; ++i) {
    size_t n = 64 + (size_t)(i % 17) * 1000;
    unsigned char *p = rt_workspace_alloc(pool, n);
    if (!p) return (void *)1;
    memset(p, i & 0xff, n);
    rt_workspace_free(pool, p);
  }
  return NULL;
}

static void test_workspace_threads(void **state) {
  (void)state;
  rt_workspace_pool_t pool;
  rt_workspace_pool_initialize(&pool);
  pthread_t t[4];
  for (int i = 0; i < 4; ++i) assert_int_equal(pthread_create(&t[i], NULL, hammer, &pool), 0);
  for (int i = 0; i < 4; ++i) {
    void *r = NULL;
    pthread_join(t[i], &r);
    assert_null(r);
  }
  /* Each thread holds at most one block at a time. */
  assert_true(pool.allocations <= 4 * 17);
  rt_workspace_pool_deinitialize(&pool);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_workspace_reuse_and_alignment),
      cmocka_unit_test(test_workspace_own_blocks_first),
      cmocka_unit_test(test_workspace_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
