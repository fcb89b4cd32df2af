/* Kernel workspace served from a pool, so a run allocates nothing once the
 * executor is warm: blocks a kernel frees go back to the pool and the next
 * request of at most that size reuses one. Sizes are rounded up to a power of
 * two (at least 4 KiB) so blocks fit later requests. Thread-safe (a mutex):
 * parallel tasks allocate at once. A thread gets back the blocks it freed
 * before any other thread's (free lists per thread slot), so a task's
 * scratch stays in its own core's cache from one kernel to the next: from
 * a shared list a block often went to the other core, whose writes then
 * had to take every line from this core's cache first.
 *
 * Ownership: the pool owns every block; rt_workspace_pool_deinitialize frees
 * them all (after every kernel using the pool has returned). */
#ifndef RT_RUNTIME_WORKSPACE_H_
#define RT_RUNTIME_WORKSPACE_H_

#include <pthread.h>

#include "rt/status.h"

typedef struct rt_workspace_block_t rt_workspace_block_t;

/* Free lists, one per thread slot (threads take slots in turn, modulo). */
#define RT_WORKSPACE_SLOTS 8

typedef struct rt_workspace_pool_t {
  pthread_mutex_t lock;
  rt_workspace_block_t *free_list[RT_WORKSPACE_SLOTS]; /* blocks ready for reuse, by the
                                                        * slot of the thread that freed them */
  rt_workspace_block_t *all;         /* every block, for deinitialize */
  uint64_t allocations;              /* calls that had to malloc (for tests) */
} rt_workspace_pool_t;

void rt_workspace_pool_initialize(rt_workspace_pool_t *out_pool);
void rt_workspace_pool_deinitialize(rt_workspace_pool_t *pool);
/* 64-byte-aligned memory of at least nbytes, or NULL when out of memory. */
void *rt_workspace_alloc(rt_workspace_pool_t *pool, uint64_t nbytes);
/* Returns a block from rt_workspace_alloc to the pool. NULL is fine. */
void rt_workspace_free(rt_workspace_pool_t *pool, void *ptr);

#endif /* RT_RUNTIME_WORKSPACE_H_ */
