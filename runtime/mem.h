/* The library's own heap blocks: every malloc-style allocation relayrt
 * makes for a module, an executor, a JIT session or a runtime goes through
 * here, so an embedder's allocator (include/rt/allocator.h) serves them and
 * a failing allocator becomes a RESOURCE_EXHAUSTED status.
 *
 * Which allocator: the calling thread's current one, set for the duration
 * of a public call by the object or options it works for (rt_mem_scope_*:
 * rt_module_parse/load with options.allocator, rt_create_executor with its
 * options, an executor's run and release with the executor's own); the
 * system allocator when no scope is open (worker threads of the thread
 * pool, global registries).
 *
 * Where a block goes back: each block carries a header with the allocator
 * it came from, so rt_mem_free returns it there whatever scope is open (a
 * module made with one allocator may be released by an executor that uses
 * another). The allocator's `self` must outlive every block it served.
 *
 * Not through here: tensor payloads and arenas (they take an allocator
 * explicitly), statuses (runtime/status.c: malloc with a static
 * out-of-memory status, so an allocation failure can always be reported),
 * text handed to API callers to free() (copied at the boundary, see
 * rt_mem_export_text), and what LLVM, libffi, protobuf-c and libc allocate
 * for themselves.
 *
 * Thread-safety: scopes are per thread; blocks may be freed on any thread. */
#ifndef RT_RUNTIME_MEM_H_
#define RT_RUNTIME_MEM_H_

#include <stddef.h>
#include <stdint.h>

#include "rt/allocator.h"
#include "rt/status.h"

/* NULL when the current allocator fails (or size overflows). alloc and
 * realloc leave the memory uninitialized; calloc zeroes it. */
void *rt_mem_alloc(size_t size);
void *rt_mem_calloc(size_t count, size_t size);
void *rt_mem_realloc(void *ptr, size_t size);
char *rt_mem_strdup(const char *s);
char *rt_mem_strndup(const char *s, size_t n);
/* Returns a block to the allocator it came from. NULL is fine. */
void rt_mem_free(void *ptr);

/* Hands library text to an API caller who free()s it: on success
 * *out_text is a malloc'd copy of `text`; `text` (an rt_mem block or NULL)
 * is freed either way. Returns `status` when it is an error (text then
 * NULL or freed), else RESOURCE_EXHAUSTED when malloc fails. */
RT_MUST_USE_RESULT rt_status_t rt_mem_export_text(rt_status_t status, char *text, char **out_text);

/* Allocation failures on this thread so far (rt_mem_* and
 * rt_allocator_malloc): a caller that tolerates a failing step (constant
 * folding skips an op it cannot evaluate) compares the count before and
 * after to tell running out of memory, which must fail the whole call,
 * from the step's own limits and errors. */
uint64_t rt_mem_failure_count(void);
void rt_mem_note_failure(void);

/* The thread's current allocator (the system allocator outside scopes). */
rt_allocator_t rt_mem_current(void);

/* Opens a scope: until rt_mem_scope_leave, this thread's rt_mem_*
 * allocations come from *allocator (NULL: the system allocator). Scopes
 * nest; leave them in reverse order. */
typedef struct rt_mem_scope_t {
  const rt_allocator_t *previous;
  rt_allocator_t allocator;
} rt_mem_scope_t;
void rt_mem_scope_enter(rt_mem_scope_t *scope, const rt_allocator_t *allocator);
void rt_mem_scope_leave(rt_mem_scope_t *scope);

#endif /* RT_RUNTIME_MEM_H_ */
