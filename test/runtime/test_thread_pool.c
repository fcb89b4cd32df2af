/* The thread pool: every task index runs exactly once per run, across many
 * back-to-back runs (the case where a slow worker could leak into the next
 * run), with pools of 1, 2 and 4 threads, and 8 threads (more than this
 * machine's cores, so workers often wake late) over many short runs: a
 * worker that woke after its run ended once took task indices of the next
 * run and ran them with the old run's function (CI caught it). */
#include <stdatomic.h>
#include <stdlib.h>

#include "runtime/thread_pool.h"
#include "test_util.h"

typedef struct {
  atomic_int *hits;
  int32_t run;
  atomic_int wrong;
} job;

static void task(void *closure, int32_t t, int32_t n) {
  job *j = closure;
  if (t < 0 || t >= n) atomic_fetch_add(&j->wrong, 1);
  atomic_fetch_add(&j->hits[t], 1);
}

static void run_pool(int32_t threads, int32_t runs) {
  rt_thread_pool_t *p = NULL;
  assert_ok(rt_thread_pool_create(threads, &p));
  assert_int_equal(rt_thread_pool_size(p), threads);
  for (int32_t r = 0; r < runs; ++r) {
    int32_t n = 1 + r % 37;
    atomic_int hits[37];
    for (int32_t i = 0; i < 37; ++i) atomic_init(&hits[i], 0);
    job j = {hits, r, 0};
    atomic_init(&j.wrong, 0);
    rt_thread_pool_run(p, task, &j, n);
    for (int32_t i = 0; i < 37; ++i) assert_int_equal(atomic_load(&hits[i]), i < n ? 1 : 0);
    assert_int_equal(atomic_load(&j.wrong), 0);
  }
  rt_thread_pool_release(p);
}

static void test_thread_pool_each_task_once(void **state) {
  (void)state;
  run_pool(1, 500);
  run_pool(2, 500);
  run_pool(4, 500);
  run_pool(8, 20000);
}

static void test_thread_pool_zero_tasks_and_default_size(void **state) {
  (void)state;
  rt_thread_pool_t *p = NULL;
  assert_ok(rt_thread_pool_create(0, &p));
  assert_true(rt_thread_pool_size(p) >= 1);
  rt_thread_pool_run(p, task, NULL, 0); /* no call at all */
  rt_thread_pool_release(p);
  rt_thread_pool_release(NULL);
}

static void test_thread_pool_release_at_once(void **state) {
  (void)state;
  for (int32_t i = 0; i < 200; ++i) {
    rt_thread_pool_t *p = NULL;
    assert_ok(rt_thread_pool_create(2 + i % 4, &p));
    if (i % 2) {
      atomic_int hits[37];
      for (int32_t k = 0; k < 37; ++k) atomic_init(&hits[k], 0);
      job j = {hits, 0, 0};
      atomic_init(&j.wrong, 0);
      rt_thread_pool_run(p, task, &j, 3);
      assert_int_equal(atomic_load(&hits[2]), 1);
    }
    rt_thread_pool_release(p);
  }
}

typedef struct {
  rt_thread_pool_t *pool;
  atomic_int inner;
} nest;

static void inner_task(void *closure, int32_t t, int32_t n) {
  (void)t;
  (void)n;
  atomic_fetch_add(&((nest *)closure)->inner, 1);
}

static void outer_task(void *closure, int32_t t, int32_t n) {
  (void)t;
  (void)n;
  nest *s = closure;
  rt_thread_pool_run(s->pool, inner_task, s, 5);
}

static void test_thread_pool_nested_run(void **state) {
  (void)state;
  rt_thread_pool_t *p = NULL;
  assert_ok(rt_thread_pool_create(3, &p));
  for (int32_t r = 0; r < 100; ++r) {
    nest s = {p, 0};
    atomic_init(&s.inner, 0);
    rt_thread_pool_run(p, outer_task, &s, 4);
    assert_int_equal(atomic_load(&s.inner), 20);
  }
  rt_thread_pool_release(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thread_pool_each_task_once),
      cmocka_unit_test(test_thread_pool_zero_tasks_and_default_size),
      cmocka_unit_test(test_thread_pool_release_at_once),
      cmocka_unit_test(test_thread_pool_nested_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
