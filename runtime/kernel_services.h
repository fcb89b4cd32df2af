/* The runtime services a kernel reaches through its rt_kernel_ctx
 * (include/rt/kernel_abi.h): parallel_for over a thread pool, workspace
 * from a pool (so a warm run allocates nothing), and the first error
 * message of a call. One struct shared by the graph runtime and the VM.
 *
 * Ownership: the pool is borrowed (may be NULL: kernels then run their
 * tasks themselves); the workspace pool is owned. Thread-safety: kernels'
 * tasks may call every service concurrently; clear/error are for the one
 * thread driving the runtime. */
#ifndef RT_RUNTIME_KERNEL_SERVICES_H_
#define RT_RUNTIME_KERNEL_SERVICES_H_

#include <stdatomic.h>

#include "rt/kernel_abi.h"
#include "runtime/thread_pool.h"
#include "runtime/workspace.h"

/* How a kernel's calls spread over tasks (profiles only): the most tasks
 * a parallel_for of it asked for, the tasks' summed run time, and each
 * call's task count times its slowest task, summed (busy / capacity = 1:
 * every task as long as the slowest; 0.5: half the threads' time idle).
 * A kernel that never calls parallel_for leaves them 0. */
typedef struct rt_task_stats_t {
  int32_t tasks;
  double busy_ns, capacity_ns;
} rt_task_stats_t;

typedef struct rt_kernel_services_t {
  rt_kernel_ctx ctx;            /* pass &services.ctx to kernels */
  rt_thread_pool_t *pool;
  rt_workspace_pool_t workspace;
  char error[512];
  atomic_flag error_set;
  /* When set (by the driving thread, between kernel calls), parallel_for
   * times every task and adds to it. */
  rt_task_stats_t *stats;
} rt_kernel_services_t;

/* Fills *out (which must not move afterwards: ctx.user points at it). */
void rt_kernel_services_initialize(rt_thread_pool_t *pool, rt_kernel_services_t *out);
void rt_kernel_services_deinitialize(rt_kernel_services_t *services);
/* Forgets the last error before a kernel call. */
void rt_kernel_services_clear_error(rt_kernel_services_t *services);
/* The message the last failing kernel set, or "(no message)". */
const char *rt_kernel_services_error(const rt_kernel_services_t *services);

#endif /* RT_RUNTIME_KERNEL_SERVICES_H_ */
