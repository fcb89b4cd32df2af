/* ToANormalForm (opt_level 1, a VM step): binds every non-atomic
 * subexpression with a Let, in evaluation order, so the VM compiler sees
 * one operation per binding (as TVM's VM compiler does).
 *
 * Atomic (never bound): Var, GlobalVar, Constant, Op, and Primitive
 * functions, which are kept whole and inline at their call sites (their
 * bodies are kernels, not VM code). This differs from TVM, which also
 * let-binds constants and primitive functions; the VM compiler handles the
 * inline forms directly. Everything else (calls, tuples, projections, ifs,
 * non-primitive fn literals) gets `let %x_N = ...;`.
 *
 * Algorithm, per global function G (like TVM's dependency-graph scoping):
 *  1. Collect the DAG under G in post order (rt_ir_post_order; children in
 *     evaluation order, a let's value before its var and body).
 *  2. Scopes form a tree: G's body is the root; each If branch and each
 *     non-primitive fn body opens a child scope. Walking the post order
 *     backwards (every parent before its children), a node's scope is the
 *     lowest common ancestor of the scopes its parents place it in (a
 *     branch or body edge places it in that sub-scope, any other edge in
 *     the parent's own scope). So a value used only inside one branch is
 *     bound there, and a shared node is bound once, at the innermost scope
 *     that dominates all its uses.
 *  3. Walking the post order forwards, each node is rebuilt over its
 *     children's atoms and appended to its scope's binding list; the
 *     forward order is an evaluation order, so every binding follows the
 *     bindings it reads. A scope's list becomes a let chain when its owner
 *     (the If or fn) is rebuilt, which happens after every node placed in
 *     it (they are only reachable through the owner's edge).
 * Existing lets keep their vars: a let value used only by its let is bound
 * to the let var directly (so `let %f = fn ...` stays recursive-safe),
 * otherwise `let %v = <atom>` follows the value. A Let node itself binds
 * nothing: it is flattened into the chain and stands for its body's atom.
 *
 * Invariants: the input module is untouched (a derived module is
 * returned); fresh vars are `%x_N`, N counting across the module; vars
 * carry no annotation (type inference gives lets their value types); the
 * walks are iterative. Per-node scratch is indexed by node id, bounded by
 * the module's next_id. */
#include <stdio.h>
#include <string.h>

#include "passes/pass.h"
#include "runtime/assert.h"

typedef struct {
  rt_ir_expr_t *var, *value;
} binding_t;

typedef struct {
  int32_t parent, depth;
  binding_t *items;
  int32_t count, cap;
} scope_t;

typedef struct {
  int32_t scope;       /* placement scope, -1 = none (inside a primitive) */
  int32_t sub[2];      /* sub-scopes opened by this node (if: then/else; fn: body) */
  int32_t uses;        /* parent edges */
  rt_ir_expr_t *atom;  /* what refers to this node's value in the output */
  rt_ir_expr_t *let;   /* for a let var: its Let node */
  rt_ir_expr_t *direct;/* for a value bound straight to a let var: that var */
} info_t;

typedef struct {
  rt_module_t *m;
  rt_arena_t scratch;
  info_t *info;        /* by node id */
  uint32_t ninfo;
  rt_ir_expr_t **order;/* post order of the current global */
  int32_t norder, cap_order;
  scope_t *scopes;
  int32_t nscopes, cap_scopes;
  int64_t fresh;       /* next %x_N */
} anf_t;

static bool is_atomic(const rt_ir_expr_t *e) {
  switch (e->kind) {
    case RT_IR_VAR:
    case RT_IR_GLOBAL_VAR:
    case RT_IR_CONSTANT:
    case RT_IR_OP:
      return true;
    case RT_IR_FUNCTION:
      return rt_ir_is_primitive(e);
    default:
      return false;
  }
}

/* Nodes that produce a binding of their own (a Let does not). */
static bool binds(const rt_ir_expr_t *e) { return !is_atomic(e) && e->kind != RT_IR_LET; }

static info_t *info_of(anf_t *a, const rt_ir_expr_t *e) {
  RT_ASSERT(e->id < a->ninfo);
  return &a->info[e->id];
}

/* Grows an arena-backed array to hold `need` elements. */
static rt_status_t grow(rt_arena_t *arena, void **items, int32_t *cap, int32_t need, size_t elem) {
  if (need <= *cap) return RT_OK;
  int32_t ncap = *cap ? *cap * 2 : 16;
  while (ncap < need) ncap *= 2;
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(arena, (size_t)ncap, elem, &p));
  if (*items) memcpy(p, *items, (size_t)*cap * elem);
  *items = p;
  *cap = ncap;
  return RT_OK;
}

static rt_status_t collect(void *user, rt_ir_expr_t *e) {
  anf_t *a = user;
  RT_RETURN_IF_ERROR(grow(&a->scratch, (void **)&a->order, &a->cap_order, a->norder + 1,
                          sizeof(rt_ir_expr_t *)));
  a->order[a->norder++] = e;
  return RT_OK;
}

static rt_status_t new_scope(anf_t *a, int32_t parent, int32_t *out) {
  RT_RETURN_IF_ERROR(grow(&a->scratch, (void **)&a->scopes, &a->cap_scopes, a->nscopes + 1,
                          sizeof(scope_t)));
  scope_t *s = &a->scopes[a->nscopes];
  memset(s, 0, sizeof *s);
  s->parent = parent;
  s->depth = parent < 0 ? 0 : a->scopes[parent].depth + 1;
  *out = a->nscopes++;
  return RT_OK;
}

static int32_t lca(const anf_t *a, int32_t x, int32_t y) {
  while (a->scopes[x].depth > a->scopes[y].depth) x = a->scopes[x].parent;
  while (a->scopes[y].depth > a->scopes[x].depth) y = a->scopes[y].parent;
  while (x != y) {
    x = a->scopes[x].parent;
    y = a->scopes[y].parent;
  }
  return x;
}

static void place(anf_t *a, rt_ir_expr_t *child, int32_t scope) {
  info_t *ci = info_of(a, child);
  ci->uses++;
  if (is_atomic(child)) return;
  ci->scope = ci->scope < 0 ? scope : lca(a, ci->scope, scope);
}

/* Step 2: placement scopes, parents before children. */
static rt_status_t assign_scopes(anf_t *a, rt_ir_expr_t *root) {
  for (int32_t k = a->norder - 1; k >= 0; --k) {
    rt_ir_expr_t *e = a->order[k];
    info_t *ei = info_of(a, e);
    if (e != root && (ei->scope < 0 || is_atomic(e))) continue;
    switch (e->kind) {
      case RT_IR_CALL:
        place(a, e->call.callee, ei->scope);
        for (int32_t i = 0; i < e->call.nargs; ++i) place(a, e->call.args[i], ei->scope);
        break;
      case RT_IR_TUPLE:
        for (int32_t i = 0; i < e->tuple.count; ++i) place(a, e->tuple.fields[i], ei->scope);
        break;
      case RT_IR_TUPLE_GET_ITEM:
        place(a, e->get_item.tuple, ei->scope);
        break;
      case RT_IR_LET:
        place(a, e->let.value, ei->scope);
        place(a, e->let.body, ei->scope);
        break;
      case RT_IR_IF:
        place(a, e->if_.cond, ei->scope);
        RT_RETURN_IF_ERROR(new_scope(a, ei->scope, &ei->sub[0]));
        RT_RETURN_IF_ERROR(new_scope(a, ei->scope, &ei->sub[1]));
        place(a, e->if_.then_branch, ei->sub[0]);
        place(a, e->if_.else_branch, ei->sub[1]);
        break;
      case RT_IR_FUNCTION:
        RT_RETURN_IF_ERROR(new_scope(a, e == root ? -1 : ei->scope, &ei->sub[0]));
        place(a, e->fn.body, ei->sub[0]);
        break;
      default:
        break;
    }
  }
  return RT_OK;
}

static rt_status_t emit(anf_t *a, int32_t scope, rt_ir_expr_t *var, rt_ir_expr_t *value) {
  scope_t *s = &a->scopes[scope];
  RT_RETURN_IF_ERROR(grow(&a->scratch, (void **)&s->items, &s->cap, s->count + 1,
                          sizeof(binding_t)));
  s->items[s->count++] = (binding_t){var, value};
  return RT_OK;
}

/* The let chain of `scope` around `result`. */
static rt_status_t wrap(anf_t *a, int32_t scope, rt_ir_expr_t *result, rt_ir_expr_t **out) {
  const scope_t *s = &a->scopes[scope];
  rt_ir_expr_t *body = result;
  for (int32_t i = s->count - 1; i >= 0; --i) {
    RT_RETURN_IF_ERROR(rt_ir_let(a->m, s->items[i].value->span, s->items[i].var,
                                 s->items[i].value, body, &body));
  }
  *out = body;
  return RT_OK;
}

static rt_ir_expr_t *atom(anf_t *a, rt_ir_expr_t *e) {
  info_t *ei = info_of(a, e);
  return ei->atom ? ei->atom : e;
}

/* Binds `value` (the rebuilt form of e) and records the atom. */
static rt_status_t bind_value(anf_t *a, rt_ir_expr_t *e, rt_ir_expr_t *value) {
  info_t *ei = info_of(a, e);
  rt_ir_expr_t *var = ei->direct;
  if (!var) {
    char name[32];
    snprintf(name, sizeof name, "x_%lld", (long long)a->fresh++);
    RT_RETURN_IF_ERROR(rt_ir_var(a->m, e->span, name, NULL, &var));
  }
  RT_RETURN_IF_ERROR(emit(a, ei->scope, var, value));
  ei->atom = var;
  return RT_OK;
}

/* Step 3: rebuild in evaluation order. */
static rt_status_t rebuild(anf_t *a, rt_ir_expr_t *root, rt_ir_expr_t **out_fn) {
  rt_module_t *m = a->m;
  rt_ir_expr_t *local[16];
  for (int32_t k = 0; k < a->norder; ++k) {
    rt_ir_expr_t *e = a->order[k];
    info_t *ei = info_of(a, e);
    if (e->kind == RT_IR_VAR && ei->let) {
      /* The var slot of its let: the value has been rebuilt just before. */
      info_t *li = info_of(a, ei->let);
      if (li->scope >= 0 && info_of(a, ei->let->let.value)->direct != e) {
        RT_RETURN_IF_ERROR(emit(a, li->scope, e, atom(a, ei->let->let.value)));
      }
      continue;
    }
    if (e != root && (ei->scope < 0 || is_atomic(e))) continue;
    rt_ir_expr_t *n = NULL;
    switch (e->kind) {
      case RT_IR_CALL: {
        rt_ir_expr_t **args = local;
        if (e->call.nargs > (int32_t)RT_COUNTOF(local)) {
          void *p = NULL;
          RT_RETURN_IF_ERROR(rt_arena_alloc_array(&a->scratch, (size_t)e->call.nargs,
                                                  sizeof(rt_ir_expr_t *), &p));
          args = p;
        }
        for (int32_t i = 0; i < e->call.nargs; ++i) args[i] = atom(a, e->call.args[i]);
        RT_RETURN_IF_ERROR(rt_ir_call(m, e->span, atom(a, e->call.callee), e->call.nargs, args,
                                      e->call.attrs, &n));
        break;
      }
      case RT_IR_TUPLE: {
        rt_ir_expr_t **fields = local;
        if (e->tuple.count > (int32_t)RT_COUNTOF(local)) {
          void *p = NULL;
          RT_RETURN_IF_ERROR(rt_arena_alloc_array(&a->scratch, (size_t)e->tuple.count,
                                                  sizeof(rt_ir_expr_t *), &p));
          fields = p;
        }
        for (int32_t i = 0; i < e->tuple.count; ++i) fields[i] = atom(a, e->tuple.fields[i]);
        RT_RETURN_IF_ERROR(rt_ir_tuple(m, e->span, e->tuple.count, fields, &n));
        break;
      }
      case RT_IR_TUPLE_GET_ITEM:
        RT_RETURN_IF_ERROR(
            rt_ir_get_item(m, e->span, atom(a, e->get_item.tuple), e->get_item.index, &n));
        break;
      case RT_IR_LET:
        ei->atom = atom(a, e->let.body);
        continue;
      case RT_IR_IF: {
        rt_ir_expr_t *t = NULL, *f = NULL;
        RT_RETURN_IF_ERROR(wrap(a, ei->sub[0], atom(a, e->if_.then_branch), &t));
        RT_RETURN_IF_ERROR(wrap(a, ei->sub[1], atom(a, e->if_.else_branch), &f));
        RT_RETURN_IF_ERROR(rt_ir_if(m, e->span, atom(a, e->if_.cond), t, f, &n));
        break;
      }
      case RT_IR_FUNCTION: {
        rt_ir_expr_t *body = NULL;
        RT_RETURN_IF_ERROR(wrap(a, ei->sub[0], atom(a, e->fn.body), &body));
        RT_RETURN_IF_ERROR(rt_ir_function(m, e->span, e->fn.nparams, e->fn.params, body,
                                          e->fn.ret_type, e->fn.attrs, &n));
        if (e == root) {
          *out_fn = n;
          return RT_OK;
        }
        break;
      }
      default:
        continue;
    }
    n->binding = e->binding;
    RT_RETURN_IF_ERROR(bind_value(a, e, n));
  }
  return RT_STATUS(INTERNAL, "ToANormalForm: the function was not reached last");
}

static rt_status_t normalize_global(anf_t *a, rt_ir_expr_t *fn, rt_ir_expr_t **out_fn) {
  a->norder = 0;
  a->nscopes = 0;
  RT_RETURN_IF_ERROR(rt_ir_post_order(a->m->allocator, fn, collect, a));
  for (int32_t k = 0; k < a->norder; ++k) {
    info_t *ei = info_of(a, a->order[k]);
    memset(ei, 0, sizeof *ei);
    ei->scope = ei->sub[0] = ei->sub[1] = -1;
  }
  for (int32_t k = 0; k < a->norder; ++k) {
    rt_ir_expr_t *e = a->order[k];
    if (e->kind == RT_IR_LET && e->let.var->kind == RT_IR_VAR) info_of(a, e->let.var)->let = e;
  }
  RT_RETURN_IF_ERROR(assign_scopes(a, fn));
  /* A let value used by nothing else is bound to the let var itself. */
  for (int32_t k = 0; k < a->norder; ++k) {
    rt_ir_expr_t *e = a->order[k];
    if (e->kind != RT_IR_LET || info_of(a, e)->scope < 0) continue;
    info_t *vi = info_of(a, e->let.value);
    if (binds(e->let.value) && vi->uses == 1 && !vi->direct) vi->direct = e->let.var;
  }
  return rebuild(a, fn, out_fn);
}

rt_status_t rt_pass_to_a_normal_form(const rt_pass_env_t *env, rt_module_t *in,
                                     rt_module_t **out) {
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_derive(in, &m));
  anf_t a = {0};
  a.m = m;
  rt_arena_initialize(env->allocator, &a.scratch);
  a.ninfo = in->next_id;
  rt_status_t st = rt_arena_alloc_array(&a.scratch, a.ninfo, sizeof(info_t), (void **)&a.info);
  for (int32_t i = 0; i < in->num_globals && !st; ++i) {
    rt_ir_expr_t *fn = in->globals[i].fn;
    if (rt_ir_is_primitive(fn)) continue;
    rt_ir_expr_t *nfn = NULL;
    st = normalize_global(&a, fn, &nfn);
    if (!st) st = rt_ir_module_add(m, in->globals[i].name, nfn);
    if (st) st = rt_status_annotate(st, "ToANormalForm: in @%s", in->globals[i].name);
  }
  rt_arena_deinitialize(&a.scratch);
  if (st) {
    rt_module_release(m);
    return st;
  }
  *out = m;
  return RT_OK;
}
