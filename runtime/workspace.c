/* The workspace pool behind kernels' workspace_alloc (see workspace.h).
 * Each block carries a 64-byte header (its capacity and list links) in
 * front of the memory handed out, which keeps that memory 64-byte aligned.
 * A request takes the smallest free block that fits from the calling
 * thread's slot list, else from another slot's, else a new one; a freed
 * block goes to the freeing thread's slot list. */
#include <stdatomic.h>
#include <stdlib.h>

#include "runtime/workspace.h"

#define HEADER 64
#define MIN_BLOCK 4096u

struct rt_workspace_block_t {
  uint64_t capacity;                 /* bytes after the header */
  rt_workspace_block_t *next_free;
  rt_workspace_block_t *next_all;
};

_Static_assert(sizeof(rt_workspace_block_t) <= HEADER, "the header fits in 64 bytes");

void rt_workspace_pool_initialize(rt_workspace_pool_t *out_pool) {
  pthread_mutex_init(&out_pool->lock, NULL);
  for (int32_t i = 0; i < RT_WORKSPACE_SLOTS; ++i) out_pool->free_list[i] = NULL;
  out_pool->all = NULL;
  out_pool->allocations = 0;
}

void rt_workspace_pool_deinitialize(rt_workspace_pool_t *pool) {
  rt_workspace_block_t *b = pool->all;
  while (b) {
    rt_workspace_block_t *next = b->next_all;
    free(b); /* posix_memalign'd */
    b = next;
  }
  pool->all = NULL;
  for (int32_t i = 0; i < RT_WORKSPACE_SLOTS; ++i) pool->free_list[i] = NULL;
  pthread_mutex_destroy(&pool->lock);
}

static uint64_t round_up(uint64_t n) {
  uint64_t c = MIN_BLOCK;
  while (c < n && c < (UINT64_C(1) << 62)) c <<= 1;
  return c < n ? n : c;
}

/* This thread's free list slot. */
static int32_t my_slot(void) {
  static atomic_int next_slot;
  static _Thread_local int32_t slot = -1;
  if (slot < 0) slot = (int32_t)((unsigned)atomic_fetch_add(&next_slot, 1) % RT_WORKSPACE_SLOTS);
  return slot;
}

/* The smallest block of list `*head` that holds nbytes (its link), or NULL. */
static rt_workspace_block_t **best_fit(rt_workspace_block_t **head, uint64_t nbytes) {
  rt_workspace_block_t **best = NULL;
  for (rt_workspace_block_t **p = head; *p; p = &(*p)->next_free) {
    if ((*p)->capacity >= nbytes && (!best || (*p)->capacity < (*best)->capacity)) best = p;
  }
  return best;
}

void *rt_workspace_alloc(rt_workspace_pool_t *pool, uint64_t nbytes) {
  const int32_t own = my_slot();
  pthread_mutex_lock(&pool->lock);
  /* This thread's blocks first, then another's. */
  rt_workspace_block_t **best = best_fit(&pool->free_list[own], nbytes);
  for (int32_t i = 1; !best && i < RT_WORKSPACE_SLOTS; ++i) {
    best = best_fit(&pool->free_list[(own + i) % RT_WORKSPACE_SLOTS], nbytes);
  }
  rt_workspace_block_t *b = NULL;
  if (best) {
    b = *best;
    *best = b->next_free;
  } else {
    uint64_t cap = round_up(nbytes);
    void *mem = NULL;
    if (cap <= SIZE_MAX - HEADER && posix_memalign(&mem, 64, (size_t)(cap + HEADER)) == 0) {
      b = mem;
      b->capacity = cap;
      b->next_all = pool->all;
      pool->all = b;
      pool->allocations++;
    }
  }
  if (b) b->next_free = NULL;
  pthread_mutex_unlock(&pool->lock);
  return b ? (char *)b + HEADER : NULL;
}

void rt_workspace_free(rt_workspace_pool_t *pool, void *ptr) {
  if (!ptr) return;
  rt_workspace_block_t *b = (rt_workspace_block_t *)((char *)ptr - HEADER);
  const int32_t own = my_slot();
  pthread_mutex_lock(&pool->lock);
  b->next_free = pool->free_list[own];
  pool->free_list[own] = b;
  pthread_mutex_unlock(&pool->lock);
}
