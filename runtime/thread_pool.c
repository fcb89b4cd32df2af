/* The worker pool behind rt_thread_pool_run. Workers sleep on a condition
 * variable until a run is published (a generation counter changes), then
 * take task indices from an atomic ticket; the caller takes tasks too. A
 * run ends when every task is done and no worker is still inside it.
 * The ticket holds the run's generation beside the next task index, and a
 * worker claims an index only while the generation is the one it read
 * with the run's function: a worker that wakes late, after its run ended
 * and the next one began, gives up instead of running a task of the new
 * run with the old function and closure. Runs are serialized by a mutex
 * so one pool can be shared by executors on different threads. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime/thread_pool.h"
#include "runtime/mem.h"

struct rt_thread_pool_t {
  int32_t size;              /* workers + the caller */
  pthread_t *workers;
  int32_t num_workers;
  pthread_mutex_t run_lock;  /* one run at a time */
  pthread_mutex_t lock;      /* guards the fields below */
  pthread_cond_t wake;
  pthread_cond_t done;
  uint64_t generation;
  bool stopping;
  rt_task_fn fn;
  void *closure;
  int32_t num_tasks;
  _Atomic uint64_t ticket;   /* generation << 32 | next task index */
  atomic_int remaining;
  int32_t active;            /* workers inside take_tasks (under lock) */
};

static void take_tasks(rt_thread_pool_t *p, uint64_t generation, rt_task_fn fn, void *closure,
                       int32_t n) {
  const uint64_t gen = generation & 0xffffffffu;
  uint64_t v = atomic_load(&p->ticket);
  for (;;) {
    if (v >> 32 != gen || (int64_t)(v & 0xffffffffu) >= n) return;
    if (!atomic_compare_exchange_weak(&p->ticket, &v, v + 1)) continue; /* v reloaded */
    const int32_t t = (int32_t)(v & 0xffffffffu);
    v += 1;
    fn(closure, t, n);
    if (atomic_fetch_sub(&p->remaining, 1) == 1) {
      pthread_mutex_lock(&p->lock);
      pthread_cond_signal(&p->done);
      pthread_mutex_unlock(&p->lock);
    }
  }
}

static void *worker_main(void *arg) {
  rt_thread_pool_t *p = arg;
  uint64_t seen = 0;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->stopping && p->generation == seen) pthread_cond_wait(&p->wake, &p->lock);
    if (p->stopping) break;
    seen = p->generation;
    rt_task_fn fn = p->fn;
    void *closure = p->closure;
    int32_t n = p->num_tasks;
    p->active++;
    pthread_mutex_unlock(&p->lock);
    take_tasks(p, seen, fn, closure, n);
    pthread_mutex_lock(&p->lock);
    /* The caller waits for every active worker to leave take_tasks, so no
     * worker can take a task of the next run with this run's fn. */
    if (--p->active == 0) pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

rt_status_t rt_thread_pool_create(int32_t num_threads, rt_thread_pool_t **out_pool) {
  if (num_threads <= 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    num_threads = n > 0 ? (int32_t)(n > 256 ? 256 : n) : 1;
  }
  rt_thread_pool_t *p = rt_mem_calloc(1, sizeof *p);
  if (!p) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating a thread pool");
  p->size = num_threads;
  pthread_mutex_init(&p->run_lock, NULL);
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  if (num_threads > 1) {
    p->workers = rt_mem_calloc((size_t)num_threads - 1, sizeof(pthread_t));
    if (!p->workers) {
      rt_thread_pool_release(p);
      return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating a thread pool");
    }
    for (int32_t i = 0; i < num_threads - 1; ++i) {
      if (pthread_create(&p->workers[i], NULL, worker_main, p) != 0) {
        rt_thread_pool_release(p);
        return RT_STATUS(RESOURCE_EXHAUSTED, "cannot start worker thread %d of %d", (int)i + 1,
                         (int)num_threads - 1);
      }
      p->num_workers++;
    }
  }
  *out_pool = p;
  return RT_OK;
}

void rt_thread_pool_release(rt_thread_pool_t *p) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->stopping = true;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (int32_t i = 0; i < p->num_workers; ++i) pthread_join(p->workers[i], NULL);
  rt_mem_free(p->workers);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->lock);
  pthread_mutex_destroy(&p->run_lock);
  rt_mem_free(p);
}

int32_t rt_thread_pool_size(const rt_thread_pool_t *p) { return p ? p->size : 1; }

void rt_thread_pool_run(rt_thread_pool_t *p, rt_task_fn fn, void *closure, int32_t num_tasks) {
  if (num_tasks <= 0) return;
  if (!p || p->num_workers == 0 || num_tasks == 1) {
    for (int32_t t = 0; t < num_tasks; ++t) fn(closure, t, num_tasks);
    return;
  }
  pthread_mutex_lock(&p->run_lock);
  pthread_mutex_lock(&p->lock);
  p->fn = fn;
  p->closure = closure;
  p->num_tasks = num_tasks;
  atomic_store(&p->remaining, num_tasks);
  const uint64_t generation = ++p->generation;
  atomic_store(&p->ticket, (generation & 0xffffffffu) << 32);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  take_tasks(p, generation, fn, closure, num_tasks);
  pthread_mutex_lock(&p->lock);
  while (atomic_load(&p->remaining) > 0 || p->active > 0) pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
  pthread_mutex_unlock(&p->run_lock);
}
