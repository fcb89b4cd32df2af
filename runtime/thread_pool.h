/* A fixed pool of worker threads for kernels' parallel loops (parallelism
 * is planned, then computed: kernels split work by task index; the pool is
 * passed in, never global). rt_thread_pool_run splits `num_tasks` task
 * indices over the workers and the calling thread, and returns when all
 * are done.
 *
 * Thread-safety: one run at a time per pool (runs from two threads are
 * serialized by a mutex). A pool of size 1 runs everything on the caller,
 * and so does a run started from inside a task of the same pool. Idle
 * workers spin for 250 µs after a run, then sleep (thread_pool.c). */
#ifndef RT_RUNTIME_THREAD_POOL_H_
#define RT_RUNTIME_THREAD_POOL_H_

#include "rt/status.h"

typedef struct rt_thread_pool_t rt_thread_pool_t;

/* Runs task `task` of `num_tasks`. */
typedef void (*rt_task_fn)(void *closure, int32_t task, int32_t num_tasks);

/* num_threads counts the caller: 1 = no workers; 0 = one per online CPU. */
RT_MUST_USE_RESULT rt_status_t rt_thread_pool_create(int32_t num_threads,
                                                     rt_thread_pool_t **out_pool);
void rt_thread_pool_release(rt_thread_pool_t *pool); /* NULL is fine */
int32_t rt_thread_pool_size(const rt_thread_pool_t *pool);
/* Calls fn(closure, i, num_tasks) for every i in [0, num_tasks), spread over
 * the pool; returns when every call has returned. */
void rt_thread_pool_run(rt_thread_pool_t *pool, rt_task_fn fn, void *closure, int32_t num_tasks);

#endif /* RT_RUNTIME_THREAD_POOL_H_ */
