/* rt_ir_mutate: bottom-up rebuilding of a DAG. One post-order walk; a map
 * from original node id to its rewritten node makes shared nodes rewrite
 * once and stay shared. A node whose children all map to themselves is
 * reused as is (so an identity rewrite allocates nothing). */
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (oom = true)
#include "runtime/uthash_rt.h"

#include "ir/ir.h"
#include "runtime/assert.h"

typedef struct {
  uint32_t id;
  rt_ir_expr_t *to;
  UT_hash_handle hh;
} map_entry;

typedef struct {
  rt_module_t *m;
  rt_ir_rewrite_fn rewrite;
  void *user;
  map_entry *map;
} mutate_ctx;

static rt_ir_expr_t *mapped(mutate_ctx *cx, rt_ir_expr_t *e) {
  map_entry *x = NULL;
  HASH_FIND(hh, cx->map, &e->id, sizeof(uint32_t), x);
  return x ? x->to : e;
}

#define MAX_LOCAL 16

/* Maps an array of children; *changed is set when any differs. Uses `local`
 * when it fits, else arena memory. */
static rt_status_t map_array(mutate_ctx *cx, rt_ir_expr_t **src, int32_t n,
                             rt_ir_expr_t **local, rt_ir_expr_t ***out, bool *changed) {
  rt_ir_expr_t **dst = local;
  if (n > MAX_LOCAL) {
    void *p = NULL;
    RT_RETURN_IF_ERROR(rt_arena_alloc_array(&cx->m->arena, (size_t)n, sizeof(rt_ir_expr_t *), &p));
    dst = p;
  }
  for (int32_t i = 0; i < n; ++i) {
    dst[i] = mapped(cx, src[i]);
    if (dst[i] != src[i]) *changed = true;
  }
  *out = dst;
  return RT_OK;
}

static rt_status_t rebuild(mutate_ctx *cx, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  rt_module_t *m = cx->m;
  bool changed = false;
  rt_ir_expr_t *local[MAX_LOCAL];
  rt_ir_expr_t **kids = NULL;
  rt_ir_expr_t *n = e;
  switch (e->kind) {
    case RT_IR_VAR:
    case RT_IR_GLOBAL_VAR:
    case RT_IR_CONSTANT:
    case RT_IR_OP:
      break;
    case RT_IR_CALL: {
      rt_ir_expr_t *callee = mapped(cx, e->call.callee);
      changed = callee != e->call.callee;
      RT_RETURN_IF_ERROR(map_array(cx, e->call.args, e->call.nargs, local, &kids, &changed));
      if (changed) {
        RT_RETURN_IF_ERROR(rt_ir_call(m, e->span, callee, e->call.nargs, kids, e->call.attrs, &n));
      }
      break;
    }
    case RT_IR_TUPLE:
      RT_RETURN_IF_ERROR(map_array(cx, e->tuple.fields, e->tuple.count, local, &kids, &changed));
      if (changed) RT_RETURN_IF_ERROR(rt_ir_tuple(m, e->span, e->tuple.count, kids, &n));
      break;
    case RT_IR_TUPLE_GET_ITEM: {
      rt_ir_expr_t *t = mapped(cx, e->get_item.tuple);
      if (t != e->get_item.tuple) {
        changed = true;
        RT_RETURN_IF_ERROR(rt_ir_get_item(m, e->span, t, e->get_item.index, &n));
      }
      break;
    }
    case RT_IR_LET: {
      rt_ir_expr_t *var = mapped(cx, e->let.var), *value = mapped(cx, e->let.value),
                   *body = mapped(cx, e->let.body);
      if (var != e->let.var || value != e->let.value || body != e->let.body) {
        changed = true;
        RT_RETURN_IF_ERROR(rt_ir_let(m, e->span, var, value, body, &n));
      }
      break;
    }
    case RT_IR_IF: {
      rt_ir_expr_t *c = mapped(cx, e->if_.cond), *t = mapped(cx, e->if_.then_branch),
                   *f = mapped(cx, e->if_.else_branch);
      if (c != e->if_.cond || t != e->if_.then_branch || f != e->if_.else_branch) {
        changed = true;
        RT_RETURN_IF_ERROR(rt_ir_if(m, e->span, c, t, f, &n));
      }
      break;
    }
    case RT_IR_FUNCTION: {
      RT_RETURN_IF_ERROR(map_array(cx, e->fn.params, e->fn.nparams, local, &kids, &changed));
      rt_ir_expr_t *body = mapped(cx, e->fn.body);
      if (body != e->fn.body) changed = true;
      if (changed) {
        RT_RETURN_IF_ERROR(rt_ir_function(m, e->span, e->fn.nparams, kids, body, e->fn.ret_type,
                                          e->fn.attrs, &n));
      }
      break;
    }
  }
  if (changed) n->binding = e->binding;
  *out = n;
  return RT_OK;
}

static rt_status_t visit(void *user, rt_ir_expr_t *e) {
  mutate_ctx *cx = user;
  rt_ir_expr_t *rebuilt = NULL;
  RT_RETURN_IF_ERROR(rebuild(cx, e, &rebuilt));
  rt_ir_expr_t *result = rebuilt;
  if (cx->rewrite) RT_RETURN_IF_ERROR(cx->rewrite(cx->user, e, rebuilt, &result));
  RT_ASSERT(result != NULL);
  if (result == e) return RT_OK;
  bool oom = false;
  map_entry *x = rt_mem_calloc(1, sizeof *x);
  if (!x) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory rewriting the IR");
  x->id = e->id;
  x->to = result;
  HASH_ADD(hh, cx->map, id, sizeof(uint32_t), x);
  if (oom) {
    rt_mem_free(x);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory rewriting the IR");
  }
  return RT_OK;
}

rt_status_t rt_ir_mutate(rt_module_t *m, rt_ir_expr_t *root, rt_ir_rewrite_fn rewrite, void *user,
                         rt_ir_expr_t **out_root) {
  mutate_ctx cx = {m, rewrite, user, NULL};
  rt_status_t st = rt_ir_post_order(m->allocator, root, visit, &cx);
  if (!st) *out_root = mapped(&cx, root);
  map_entry *x, *tmp;
  HASH_ITER(hh, cx.map, x, tmp) {
    HASH_DEL(cx.map, x);
    rt_mem_free(x);
  }
  return st;
}

/* ---- substitution ------------------------------------------------------------ */

typedef struct {
  int32_t n;
  rt_ir_expr_t *const *from, *const *to;
} substitution;

static rt_status_t substitute_one(void *user, rt_ir_expr_t *original, rt_ir_expr_t *rebuilt,
                                  rt_ir_expr_t **out) {
  const substitution *w = user;
  (void)rebuilt;
  for (int32_t i = 0; i < w->n; ++i) {
    if (original == w->from[i]) *out = w->to[i];
  }
  return RT_OK;
}

rt_status_t rt_ir_substitute(rt_module_t *m, rt_ir_expr_t *root, int32_t n,
                             rt_ir_expr_t *const *from, rt_ir_expr_t *const *to,
                             rt_ir_expr_t **out_root) {
  substitution w = {n, from, to};
  return rt_ir_mutate(m, root, substitute_one, &w, out_root);
}
