/* Arena: a bump allocator over linked blocks, freed all at once. IR nodes
 * of a module live in one; passes use a scratch arena reset after each pass.
 * Not thread-safe: one arena belongs to one owner at a time. */
#ifndef RT_RUNTIME_ARENA_H_
#define RT_RUNTIME_ARENA_H_

#include "rt/allocator.h"
#include "rt/status.h"

typedef struct rt_arena_block_t rt_arena_block_t;

typedef struct rt_arena_t {
  rt_allocator_t allocator;
  rt_arena_block_t *head;   /* current block (others linked behind it) */
  size_t block_size;        /* default size of a new block */
  size_t bytes_allocated;   /* total bytes handed out since the last reset */
} rt_arena_t;

void rt_arena_initialize(rt_allocator_t allocator, rt_arena_t *out_arena);
/* Frees every block. */
void rt_arena_deinitialize(rt_arena_t *arena);
/* Forgets every allocation, keeping one block for reuse. */
void rt_arena_reset(rt_arena_t *arena);

/* Zero-filled memory aligned to 16 bytes, valid until reset/deinitialize.
 * Large requests get a block of their own. */
RT_MUST_USE_RESULT rt_status_t rt_arena_alloc(rt_arena_t *arena, size_t size,
                                              void **out_ptr);
/* count * elem_size bytes, overflow-checked. */
RT_MUST_USE_RESULT rt_status_t rt_arena_alloc_array(rt_arena_t *arena,
                                                    size_t count,
                                                    size_t elem_size,
                                                    void **out_ptr);
/* A NUL-terminated copy of `len` bytes of `s`. */
RT_MUST_USE_RESULT rt_status_t rt_arena_strndup(rt_arena_t *arena,
                                                const char *s, size_t len,
                                                char **out_str);

#endif /* RT_RUNTIME_ARENA_H_ */
