/* DeadCodeElimination: drops let bindings whose variable is never used and
 * global functions that @main cannot reach (TVM's
 * src/relay/transforms/dead_code.cc and RemoveUnusedFunctions).
 *
 * Every op is pure and so is every call (the IR has no references or
 * effects), so an unused let value can go whatever it computes. Graph
 * bindings (`%3 = ...`) need nothing: a DAG node nobody points to is
 * already gone.
 *
 * Lets, per global, by reference counting to a fixed point in linear time:
 *  1. a post-order walk lists the distinct nodes and counts, for each node,
 *     the edges pointing at it (binder positions - a let's var, a
 *     function's params - are not uses);
 *  2. every let whose var has no uses is dead: its value loses the edge
 *     from the let, and a node whose count drops to 0 releases its own
 *     children in turn (with an explicit stack). A var whose count drops to
 *     0 makes its let dead, so chains of lets that only feed dead lets
 *     die in the same pass. The edge into a dead let now reaches its body,
 *     so the body keeps its count until the let itself becomes unreachable;
 *  3. one rt_ir_mutate walk replaces each dead let by its (rewritten) body.
 * Lets that bind the same var node twice are kept (never seen in practice;
 * the analysis would not know which binding a use belongs to).
 *
 * Globals: the names reachable from @main through GlobalVar references,
 * transitively; the others are removed. Without a @main every global is
 * kept. */
#include <stdlib.h>
#include <string.h>

#include "passes/pass.h"
#include "runtime/mem.h"

enum {
  F_DEAD = 1u << 0,          /* a let found dead */
  F_VALUE_RELEASED = 1u << 1,/* a let whose value edge was released */
  F_MULTI_BIND = 1u << 2,    /* a var bound by more than one let */
  F_SEEN = 1u << 3,          /* listed in this global's walk */
};

typedef struct {
  rt_allocator_t allocator;
  uint32_t cap;              /* ids below this index the arrays */
  int32_t *refs;             /* uses per node id */
  uint8_t *flags;            /* F_* per node id */
  rt_ir_expr_t **let_of;     /* var id -> its let */
  rt_ir_expr_t **nodes;      /* this global's distinct nodes */
  int64_t num_nodes, cap_nodes;
  rt_ir_expr_t **stack;
  int64_t depth, cap_stack;
  rt_ir_expr_t **kids;       /* scratch for rt_ir_children */
  int32_t cap_kids;
  bool changed;
} dce_ctx;

static rt_status_t grow(void **p, int64_t *cap, int64_t need, size_t elem) {
  if (need <= *cap) return RT_OK;
  int64_t n = *cap ? *cap * 2 : 256;
  while (n < need) n *= 2;
  void *q = rt_mem_realloc(*p, (size_t)n * elem);
  if (!q) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in DeadCodeElimination");
  *p = q;
  *cap = n;
  return RT_OK;
}

/* The children of e that are uses (binders left out), in cx->kids. */
static rt_status_t uses_of(dce_ctx *cx, rt_ir_expr_t *e, int32_t *out_n) {
  int32_t n = rt_ir_children(e, cx->kids, cx->cap_kids);
  if (n > cx->cap_kids) {
    int64_t cap = cx->cap_kids;
    RT_RETURN_IF_ERROR(grow((void **)&cx->kids, &cap, n, sizeof(rt_ir_expr_t *)));
    cx->cap_kids = (int32_t)cap;
    n = rt_ir_children(e, cx->kids, cx->cap_kids);
  }
  if (e->kind == RT_IR_LET) {
    /* value, var, body -> value, body */
    cx->kids[1] = cx->kids[2];
    n = 2;
  } else if (e->kind == RT_IR_FUNCTION) {
    cx->kids[0] = cx->kids[n - 1];
    n = 1;
  }
  *out_n = n;
  return RT_OK;
}

static rt_status_t list_node(void *user, rt_ir_expr_t *e) {
  dce_ctx *cx = user;
  if (e->id >= cx->cap) return RT_STATUS(INTERNAL, "node id %u past the module's ids", e->id);
  RT_RETURN_IF_ERROR(grow((void **)&cx->nodes, &cx->cap_nodes, cx->num_nodes + 1,
                          sizeof(rt_ir_expr_t *)));
  cx->nodes[cx->num_nodes++] = e;
  cx->flags[e->id] |= F_SEEN;
  if (e->kind == RT_IR_LET) {
    uint32_t v = e->let.var->id;
    if (cx->let_of[v] && cx->let_of[v] != e) cx->flags[v] |= F_MULTI_BIND;
    cx->let_of[v] = e;
  }
  return RT_OK;
}

static rt_status_t push(dce_ctx *cx, rt_ir_expr_t *e) {
  RT_RETURN_IF_ERROR(grow((void **)&cx->stack, &cx->cap_stack, cx->depth + 1,
                          sizeof(rt_ir_expr_t *)));
  cx->stack[cx->depth++] = e;
  return RT_OK;
}

/* Marks let `l` dead and releases its value edge; then drains the stack of
 * released edges. */
static rt_status_t kill_let(dce_ctx *cx, rt_ir_expr_t *l) {
  if (cx->flags[l->id] & F_DEAD) return RT_OK;
  cx->flags[l->id] |= F_DEAD;
  cx->changed = true;
  if (!(cx->flags[l->id] & F_VALUE_RELEASED)) {
    cx->flags[l->id] |= F_VALUE_RELEASED;
    RT_RETURN_IF_ERROR(push(cx, l->let.value));
  }
  while (cx->depth > 0) {
    rt_ir_expr_t *e = cx->stack[--cx->depth];
    if (--cx->refs[e->id] > 0) continue;
    if (e->kind == RT_IR_VAR) {
      rt_ir_expr_t *owner = cx->let_of[e->id];
      if (owner && !(cx->flags[e->id] & F_MULTI_BIND) && !(cx->flags[owner->id] & F_DEAD)) {
        cx->flags[owner->id] |= F_DEAD;
        if (!(cx->flags[owner->id] & F_VALUE_RELEASED)) {
          cx->flags[owner->id] |= F_VALUE_RELEASED;
          RT_RETURN_IF_ERROR(push(cx, owner->let.value));
        }
      }
      continue;
    }
    /* e is unreachable: release its uses. */
    if (e->kind == RT_IR_LET) {
      if (!(cx->flags[e->id] & F_VALUE_RELEASED)) {
        cx->flags[e->id] |= F_VALUE_RELEASED;
        RT_RETURN_IF_ERROR(push(cx, e->let.value));
      }
      RT_RETURN_IF_ERROR(push(cx, e->let.body));
      continue;
    }
    int32_t n = 0;
    RT_RETURN_IF_ERROR(uses_of(cx, e, &n));
    for (int32_t i = 0; i < n; ++i) RT_RETURN_IF_ERROR(push(cx, cx->kids[i]));
  }
  return RT_OK;
}

static rt_status_t rewrite(void *user, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  dce_ctx *cx = user;
  *out = e;
  if (orig->kind == RT_IR_LET && orig->id < cx->cap && (cx->flags[orig->id] & F_DEAD)) {
    *out = e->let.body;
  }
  return RT_OK;
}

static rt_status_t dce_global(dce_ctx *cx, rt_module_t *m, rt_ir_expr_t *fn, rt_ir_expr_t **out) {
  *out = fn;
  cx->num_nodes = 0;
  cx->changed = false;
  rt_status_t st = rt_ir_post_order(cx->allocator, fn, list_node, cx);
  for (int64_t i = 0; i < cx->num_nodes && !st; ++i) {
    int32_t n = 0;
    st = uses_of(cx, cx->nodes[i], &n);
    for (int32_t k = 0; k < n && !st; ++k) cx->refs[cx->kids[k]->id]++;
  }
  if (!st) cx->refs[fn->id]++;
  for (int64_t i = 0; i < cx->num_nodes && !st; ++i) {
    rt_ir_expr_t *e = cx->nodes[i];
    if (e->kind != RT_IR_LET || (cx->flags[e->let.var->id] & F_MULTI_BIND)) continue;
    if (cx->refs[e->let.var->id] == 0 && cx->refs[e->id] > 0) st = kill_let(cx, e);
  }
  if (!st && cx->changed) st = rt_ir_mutate(m, fn, rewrite, cx, out);
  /* Reset what this global touched, for the next one. */
  for (int64_t i = 0; i < cx->num_nodes; ++i) {
    uint32_t id = cx->nodes[i]->id;
    cx->refs[id] = 0;
    cx->flags[id] = 0;
    cx->let_of[id] = NULL;
  }
  return st;
}

/* ---- unreachable globals ------------------------------------------------- */

typedef struct {
  const rt_module_t *m;
  uint8_t *live;
  int32_t *queue;
  int32_t tail;
} reach_ctx;

static int32_t global_index(const rt_module_t *m, const char *name) {
  for (int32_t i = 0; i < m->num_globals; ++i) {
    if (strcmp(m->globals[i].name, name) == 0) return i;
  }
  return -1;
}

static rt_status_t reach_visit(void *user, rt_ir_expr_t *e) {
  reach_ctx *rc = user;
  if (e->kind != RT_IR_GLOBAL_VAR) return RT_OK;
  int32_t gi = global_index(rc->m, e->global.name);
  if (gi >= 0 && !rc->live[gi]) {
    rc->live[gi] = 1;
    rc->queue[rc->tail++] = gi;
  }
  return RT_OK;
}

/* Removes the globals @main cannot reach from m (a derived module whose
 * globals array is its own). */
static rt_status_t drop_unreachable(rt_module_t *m, bool *changed) {
  int32_t main_i = global_index(m, "main");
  int32_t n = m->num_globals;
  if (main_i < 0 || n == 0) return RT_OK;
  reach_ctx rc = {m, rt_mem_calloc((size_t)n, 1), rt_mem_calloc((size_t)n, sizeof(int32_t)), 0};
  rt_status_t st = RT_OK;
  if (!rc.live || !rc.queue) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in DeadCodeElimination");
  if (!st) {
    rc.live[main_i] = 1;
    rc.queue[rc.tail++] = main_i;
  }
  for (int32_t head = 0; !st && head < rc.tail; ++head) {
    st = rt_ir_post_order(m->allocator, m->globals[rc.queue[head]].fn, reach_visit, &rc);
  }
  if (!st && rc.tail < n) {
    int32_t k = 0;
    for (int32_t i = 0; i < n; ++i) {
      if (rc.live[i]) m->globals[k++] = m->globals[i];
    }
    m->num_globals = k;
    *changed = true;
  }
  rt_mem_free(rc.live);
  rt_mem_free(rc.queue);
  return st;
}

rt_status_t rt_pass_dead_code_elimination(const rt_pass_env_t *env, rt_module_t *in,
                                          rt_module_t **out) {
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_derive(in, &m));
  dce_ctx cx;
  memset(&cx, 0, sizeof cx);
  cx.allocator = env ? env->allocator : in->allocator;
  cx.cap = in->next_id;
  cx.refs = rt_mem_calloc((size_t)cx.cap + 1, sizeof(int32_t));
  cx.flags = rt_mem_calloc((size_t)cx.cap + 1, 1);
  cx.let_of = rt_mem_calloc((size_t)cx.cap + 1, sizeof(rt_ir_expr_t *));
  rt_status_t st = RT_OK;
  if (!cx.refs || !cx.flags || !cx.let_of) {
    st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in DeadCodeElimination");
  }
  bool changed = false;
  for (int32_t i = 0; i < in->num_globals && !st; ++i) {
    rt_ir_expr_t *fn = NULL;
    st = dce_global(&cx, m, in->globals[i].fn, &fn);
    if (!st && fn != in->globals[i].fn) {
      changed = true;
      st = rt_ir_module_add(m, in->globals[i].name, fn);
    }
  }
  if (!st) st = drop_unreachable(m, &changed);
  rt_mem_free(cx.refs);
  rt_mem_free(cx.flags);
  rt_mem_free(cx.let_of);
  rt_mem_free(cx.nodes);
  rt_mem_free(cx.stack);
  rt_mem_free(cx.kids);
  if (st || !changed) {
    rt_module_release(m);
    if (st) return st;
    rt_module_retain(in);
    m = in;
  }
  *out = m;
  return RT_OK;
}
