/* Arena (arena.h): a bump allocator over a list of blocks.
 *
 * `head` is the block being bumped; full blocks and dedicated blocks sit
 * behind it. A request larger than a quarter of the block size gets a block
 * of its own, linked behind the head, so one big allocation does not waste
 * the rest of the current block. Every allocation is rounded up to 16 bytes
 * and zero-filled when handed out (blocks are reused after a reset, so they
 * cannot be zeroed once at creation). rt_arena_reset keeps one
 * default-sized block and frees the rest. */
#include "runtime/arena.h"

#include <string.h>

#include "runtime/assert.h"

#define ARENA_ALIGN 16
#define ARENA_DEFAULT_BLOCK_SIZE (64 * 1024)

struct rt_arena_block_t {
  rt_arena_block_t *next;
  size_t capacity; /* usable bytes after the header */
  size_t used;
  /* Pads the header to ARENA_ALIGN so the payload that follows is aligned. */
  _Alignas(ARENA_ALIGN) unsigned char payload[];
};

_Static_assert(sizeof(rt_arena_block_t) % ARENA_ALIGN == 0,
               "arena block header must keep the payload aligned");

void rt_arena_initialize(rt_allocator_t allocator, rt_arena_t *out_arena) {
  out_arena->allocator = allocator;
  out_arena->head = NULL;
  out_arena->block_size = ARENA_DEFAULT_BLOCK_SIZE;
  out_arena->bytes_allocated = 0;
}

void rt_arena_deinitialize(rt_arena_t *arena) {
  rt_arena_block_t *block = arena->head;
  while (block) {
    rt_arena_block_t *next = block->next;
    rt_allocator_free(arena->allocator, block);
    block = next;
  }
  arena->head = NULL;
  arena->bytes_allocated = 0;
}

void rt_arena_reset(rt_arena_t *arena) {
  rt_arena_block_t *keep = NULL;
  rt_arena_block_t *block = arena->head;
  while (block) {
    rt_arena_block_t *next = block->next;
    if (!keep && block->capacity == arena->block_size) {
      keep = block;
    } else {
      rt_allocator_free(arena->allocator, block);
    }
    block = next;
  }
  if (keep) {
    keep->next = NULL;
    keep->used = 0;
  }
  arena->head = keep;
  arena->bytes_allocated = 0;
}

static rt_status_t new_block(rt_arena_t *arena, size_t capacity,
                             rt_arena_block_t **out_block) {
  size_t total;
  if (__builtin_add_overflow(capacity, sizeof(rt_arena_block_t), &total)) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "arena block of %zu bytes overflows",
                     capacity);
  }
  void *mem = NULL;
  RT_RETURN_IF_ERROR(
      rt_allocator_malloc(arena->allocator, total, ARENA_ALIGN, false, &mem));
  rt_arena_block_t *block = mem;
  block->next = NULL;
  block->capacity = capacity;
  block->used = 0;
  *out_block = block;
  return RT_OK;
}

rt_status_t rt_arena_alloc(rt_arena_t *arena, size_t size, void **out_ptr) {
  size_t rounded;
  if (__builtin_add_overflow(size ? size : 1, ARENA_ALIGN - 1, &rounded)) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "arena allocation of %zu bytes overflows",
                     size);
  }
  rounded &= ~(size_t)(ARENA_ALIGN - 1);
  rt_arena_block_t *head = arena->head;
  if (!head || head->capacity - head->used < rounded) {
    rt_arena_block_t *block = NULL;
    if (rounded > arena->block_size / 4) {
      /* A dedicated block, behind the head (or the only block). */
      RT_RETURN_IF_ERROR(new_block(arena, rounded, &block));
      if (head) {
        block->next = head->next;
        head->next = block;
      } else {
        arena->head = block;
      }
    } else {
      RT_RETURN_IF_ERROR(new_block(arena, arena->block_size, &block));
      block->next = head;
      arena->head = block;
    }
    head = block;
  }
  RT_ASSERT(head->capacity - head->used >= rounded);
  unsigned char *ptr = head->payload + head->used;
  head->used += rounded;
  arena->bytes_allocated += rounded;
  memset(ptr, 0, rounded);
  *out_ptr = ptr;
  return RT_OK;
}

rt_status_t rt_arena_alloc_array(rt_arena_t *arena, size_t count,
                                 size_t elem_size, void **out_ptr) {
  size_t bytes;
  if (__builtin_mul_overflow(count, elem_size, &bytes)) {
    return RT_STATUS(RESOURCE_EXHAUSTED,
                     "arena array of %zu x %zu bytes overflows", count,
                     elem_size);
  }
  return rt_arena_alloc(arena, bytes, out_ptr);
}

rt_status_t rt_arena_strndup(rt_arena_t *arena, const char *s, size_t len,
                             char **out_str) {
  size_t bytes;
  if (__builtin_add_overflow(len, 1, &bytes)) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "arena string of %zu bytes overflows",
                     len);
  }
  void *mem = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc(arena, bytes, &mem));
  char *str = mem;
  if (len) memcpy(str, s, len);
  str[len] = '\0';
  *out_str = str;
  return RT_OK;
}
