/* The system allocator (posix_memalign/free) and the checked helpers every
 * layer allocates through. rt_allocator_malloc turns a NULL from any
 * allocator into RESOURCE_EXHAUSTED naming the size, and asks for at least
 * one byte so a successful call always yields a unique, freeable pointer. */
#include "rt/allocator.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime/mem.h"

/* Blocks of at least this many bytes start on a 2 MiB boundary and ask the
 * kernel for transparent huge pages (madvise; a no-op where THP is "never",
 * automatic where "always"): a fresh block's first touch then faults once
 * per 2 MiB instead of once per 4 KiB. On a virtual machine a 4 KiB fault
 * costs several microseconds: FoldConstant's packed 3x3 weights for
 * resnet18 (8 folds of 9.4 MB each) spent most of 250 ms faulting. */
#define HUGE_BLOCK ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

static void *system_alloc(void *self, size_t size, size_t alignment) {
  (void)self;
  /* posix_memalign wants a power-of-two multiple of sizeof(void *). */
  if (alignment < sizeof(void *)) alignment = sizeof(void *);
  const bool huge = size >= HUGE_BLOCK;
  if (huge && alignment < HUGE_PAGE) alignment = HUGE_PAGE;
  void *ptr = NULL;
  if (posix_memalign(&ptr, alignment, size ? size : 1) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  if (huge) (void)madvise(ptr, size & ~(HUGE_PAGE - 1), MADV_HUGEPAGE);
#endif
  return ptr;
}

static void system_free(void *self, void *ptr) {
  (void)self;
  free(ptr);
}

rt_allocator_t rt_allocator_system(void) {
  rt_allocator_t allocator = {NULL, system_alloc, system_free};
  return allocator;
}

rt_status_t rt_allocator_malloc(rt_allocator_t allocator, size_t size,
                                size_t alignment, bool zero, void **out_ptr) {
  if (alignment == 0) alignment = 1;
  if ((alignment & (alignment - 1)) != 0 || alignment > 4096) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "alignment %zu is not a power of two <= 4096", alignment);
  }
  if (!allocator.alloc) {
    return RT_STATUS(INVALID_ARGUMENT, "allocator has no alloc function");
  }
  size_t request = size ? size : 1;
  void *ptr = allocator.alloc(allocator.self, request, alignment);
  if (!ptr) {
    rt_mem_note_failure();
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory allocating %zu bytes",
                     size);
  }
  if (zero) memset(ptr, 0, request);
  *out_ptr = ptr;
  return RT_OK;
}

void rt_allocator_free(rt_allocator_t allocator, void *ptr) {
  if (ptr && allocator.free) allocator.free(allocator.self, ptr);
}
