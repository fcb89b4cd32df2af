/* Library heap blocks with their allocator in a header (runtime/mem.h).
 *
 * Layout: [header: the allocator (self, alloc, free), the usable size]
 * [payload], the header padded to 32 bytes so the payload keeps the 16-byte
 * alignment malloc gives. realloc allocates anew and copies, since an
 * rt_allocator_t has no realloc. The current allocator is a thread-local
 * pointer to the innermost scope's copy, NULL meaning the system one. */
#include "runtime/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct header_t {
  rt_allocator_t allocator;
  size_t size;
} header_t;

enum { HEADER = 32 };
_Static_assert(sizeof(header_t) <= HEADER, "the header fits its padding");

static _Thread_local const rt_allocator_t *g_current;
static _Thread_local uint64_t g_failures;

uint64_t rt_mem_failure_count(void) { return g_failures; }
void rt_mem_note_failure(void) { ++g_failures; }

rt_allocator_t rt_mem_current(void) { return g_current ? *g_current : rt_allocator_system(); }

void rt_mem_scope_enter(rt_mem_scope_t *scope, const rt_allocator_t *allocator) {
  scope->previous = g_current;
  scope->allocator = allocator ? *allocator : rt_allocator_system();
  g_current = &scope->allocator;
}

void rt_mem_scope_leave(rt_mem_scope_t *scope) { g_current = scope->previous; }

static header_t *header_of(void *ptr) { return (header_t *)(void *)((char *)ptr - HEADER); }

void *rt_mem_alloc(size_t size) {
  if (size > SIZE_MAX - HEADER) {
    rt_mem_note_failure();
    return NULL;
  }
  rt_allocator_t a = rt_mem_current();
  char *block = a.alloc ? a.alloc(a.self, size + HEADER, 16) : NULL;
  if (!block) {
    rt_mem_note_failure();
    return NULL;
  }
  header_t *h = (header_t *)(void *)block;
  h->allocator = a;
  h->size = size;
  return block + HEADER;
}

void *rt_mem_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  void *p = rt_mem_alloc(count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

void rt_mem_free(void *ptr) {
  if (!ptr) return;
  header_t *h = header_of(ptr);
  rt_allocator_t a = h->allocator;
  if (a.free) a.free(a.self, h);
}

void *rt_mem_realloc(void *ptr, size_t size) {
  if (!ptr) return rt_mem_alloc(size);
  header_t *h = header_of(ptr);
  if (size <= h->size) {
    h->size = size;
    return ptr;
  }
  /* The grown block comes from the block's own allocator, not the scope's:
   * a buffer keeps one owner however it grows. */
  rt_mem_scope_t scope;
  rt_mem_scope_enter(&scope, &h->allocator);
  void *q = rt_mem_alloc(size);
  rt_mem_scope_leave(&scope);
  if (!q) return NULL;
  memcpy(q, ptr, h->size);
  rt_mem_free(ptr);
  return q;
}

char *rt_mem_strndup(const char *s, size_t n) {
  size_t len = strnlen(s, n);
  char *d = rt_mem_alloc(len + 1);
  if (!d) return NULL;
  memcpy(d, s, len);
  d[len] = '\0';
  return d;
}

char *rt_mem_strdup(const char *s) { return rt_mem_strndup(s, SIZE_MAX); }

rt_status_t rt_mem_export_text(rt_status_t status, char *text, char **out_text) {
  if (status) {
    rt_mem_free(text);
    return status;
  }
  size_t n = strlen(text) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, text, n);
  rt_mem_free(text);
  if (!d) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory copying %zu bytes of text", n);
  *out_text = d;
  return RT_OK;
}
