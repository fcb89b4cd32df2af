/* Traversal: the children of a node, and an iterative post-order walk over
 * the DAG (each distinct node once, children first). An explicit stack keeps
 * deep programs (long let chains, deep nesting) off the C stack; a hash set
 * of node ids (uthash) marks what has been visited. */
#include <stdlib.h>
#include <string.h>

/* uthash must not exit on allocation failure: it sets `oom` (a local of the
 * function doing the insert) and leaves the table usable. */
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (oom = true)
#include "runtime/uthash_rt.h"

#include "ir/ir.h"
#include "runtime/assert.h"

int32_t rt_ir_children(rt_ir_expr_t *e, rt_ir_expr_t **out, int32_t cap) {
  int32_t n = 0;
#define PUSH(x)                    \
  do {                             \
    if (n < cap) out[n] = (x);     \
    ++n;                           \
  } while (0)
  switch (e->kind) {
    case RT_IR_VAR:
    case RT_IR_GLOBAL_VAR:
    case RT_IR_CONSTANT:
    case RT_IR_OP:
      break;
    case RT_IR_CALL:
      PUSH(e->call.callee);
      for (int32_t i = 0; i < e->call.nargs; ++i) PUSH(e->call.args[i]);
      break;
    case RT_IR_TUPLE:
      for (int32_t i = 0; i < e->tuple.count; ++i) PUSH(e->tuple.fields[i]);
      break;
    case RT_IR_TUPLE_GET_ITEM:
      PUSH(e->get_item.tuple);
      break;
    case RT_IR_LET:
      PUSH(e->let.value);
      PUSH(e->let.var);
      PUSH(e->let.body);
      break;
    case RT_IR_IF:
      PUSH(e->if_.cond);
      PUSH(e->if_.then_branch);
      PUSH(e->if_.else_branch);
      break;
    case RT_IR_FUNCTION:
      for (int32_t i = 0; i < e->fn.nparams; ++i) PUSH(e->fn.params[i]);
      PUSH(e->fn.body);
      break;
  }
#undef PUSH
  return n;
}

typedef struct {
  uint32_t id;
  UT_hash_handle hh;
} seen_t;

typedef struct {
  rt_ir_expr_t *expr;
  int32_t next_child; /* index of the next child to descend into */
} frame_t;

rt_status_t rt_ir_post_order(rt_allocator_t allocator, rt_ir_expr_t *root,
                             rt_ir_visit_fn visit, void *user) {
  rt_status_t status = RT_OK;
  bool oom = false;
  seen_t *seen = NULL;
  seen_t *pool = NULL;        /* seen entries, allocated in chunks */
  frame_t *stack = NULL;
  int32_t depth = 0, cap = 0;
  size_t pool_used = 0, pool_cap = 0;
  void **chunks = NULL;
  size_t nchunks = 0, chunks_cap = 0;

#define GROW_STACK()                                                        \
  do {                                                                      \
    if (depth == cap) {                                                     \
      int32_t ncap = cap ? cap * 2 : 64;                                    \
      void *p = NULL;                                                       \
      status = rt_allocator_malloc(allocator, (size_t)ncap * sizeof(frame_t), \
                                   8, false, &p);                           \
      if (status) goto done;                                                \
      if (stack) memcpy(p, stack, (size_t)depth * sizeof(frame_t));          \
      rt_allocator_free(allocator, stack);                                  \
      stack = p;                                                            \
      cap = ncap;                                                           \
    }                                                                       \
  } while (0)

  if (!root) return RT_OK;
  GROW_STACK();
  stack[depth++] = (frame_t){root, 0};
  while (depth > 0) {
    frame_t *f = &stack[depth - 1];
    rt_ir_expr_t *kids[3];
    rt_ir_expr_t *child = NULL;
    /* Find the next unvisited child. */
    for (;;) {
      int32_t i = f->next_child;
      rt_ir_expr_t *e = f->expr;
      int32_t total;
      if (e->kind == RT_IR_CALL) {
        total = e->call.nargs + 1;
        child = i == 0 ? e->call.callee : (i < total ? e->call.args[i - 1] : NULL);
      } else if (e->kind == RT_IR_TUPLE) {
        total = e->tuple.count;
        child = i < total ? e->tuple.fields[i] : NULL;
      } else if (e->kind == RT_IR_FUNCTION) {
        total = e->fn.nparams + 1;
        child = i < e->fn.nparams ? e->fn.params[i] : (i == e->fn.nparams ? e->fn.body : NULL);
      } else {
        total = rt_ir_children(e, kids, 3);
        child = i < total ? kids[i] : NULL;
      }
      if (!child) break;
      f->next_child++;
      seen_t *s = NULL;
      HASH_FIND(hh, seen, &child->id, sizeof(uint32_t), s);
      if (!s) break;
      child = NULL;
    }
    if (child) {
      /* Mark on push so a node shared by siblings is entered once. */
      if (pool_used == pool_cap) {
        size_t ncap = pool_cap ? pool_cap * 2 : 256;
        void *p = NULL;
        status = rt_allocator_malloc(allocator, ncap * sizeof(seen_t), 8, true, &p);
        if (status) goto done;
        if (nchunks == chunks_cap) {
          size_t ccap = chunks_cap ? chunks_cap * 2 : 16;
          void *q = NULL;
          status = rt_allocator_malloc(allocator, ccap * sizeof(void *), 8, false, &q);
          if (status) {
            rt_allocator_free(allocator, p);
            goto done;
          }
          if (chunks) memcpy(q, chunks, nchunks * sizeof(void *));
          rt_allocator_free(allocator, chunks);
          chunks = q;
          chunks_cap = ccap;
        }
        chunks[nchunks++] = p;
        pool = p;
        pool_used = 0;
        pool_cap = ncap;
      }
      seen_t *s = &pool[pool_used++];
      s->id = child->id;
      HASH_ADD(hh, seen, id, sizeof(uint32_t), s);
      if (oom) {
        status = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory walking the IR");
        goto done;
      }
      GROW_STACK();
      stack[depth++] = (frame_t){child, 0};
      continue;
    }
    rt_ir_expr_t *done_expr = f->expr;
    --depth;
    status = visit(user, done_expr);
    if (status) goto done;
  }

done:
  HASH_CLEAR(hh, seen);
  for (size_t i = 0; i < nchunks; ++i) rt_allocator_free(allocator, chunks[i]);
  rt_allocator_free(allocator, chunks);
  rt_allocator_free(allocator, stack);
  return status;
#undef GROW_STACK
}
