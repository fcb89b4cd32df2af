/* relayrt allocator interface: where tensors, modules and executors get
 * their memory. An embedder may inject its own; rt_allocator_system() is the
 * default (aligned malloc/free).
 *
 * Thread-safety: the system allocator is thread-safe; an injected allocator
 * must be if the objects using it are shared between threads. */
#ifndef RT_ALLOCATOR_H_
#define RT_ALLOCATOR_H_

#include "rt/base.h"
#include "rt/status.h"

RT_EXTERN_C_BEGIN

typedef struct rt_allocator_t {
  void *self;
  /* Returns `size` bytes aligned to `alignment` (a power of two <= 4096),
   * or NULL when it cannot. size 0 may return NULL or a unique pointer. */
  void *(*alloc)(void *self, size_t size, size_t alignment);
  /* Frees a pointer returned by alloc; NULL is fine. */
  void (*free)(void *self, void *ptr);
} rt_allocator_t;

/* The process default: posix_memalign/free; a block of 4 MiB or more is
 * 2 MiB aligned and advised for transparent huge pages (madvise
 * MADV_HUGEPAGE), so its first touch faults per 2 MiB, not per 4 KiB. */
RT_API rt_allocator_t rt_allocator_system(void);

/* Allocates through `allocator`, returning RESOURCE_EXHAUSTED (naming the
 * size) instead of NULL. The memory is zero-filled when `zero` is true. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_allocator_malloc(
    rt_allocator_t allocator, size_t size, size_t alignment, bool zero,
    void **out_ptr);

/* Frees memory from rt_allocator_malloc. NULL is fine. */
RT_API void rt_allocator_free(rt_allocator_t allocator, void *ptr);

RT_EXTERN_C_END

#endif /* RT_ALLOCATOR_H_ */
