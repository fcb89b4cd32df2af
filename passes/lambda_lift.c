/* LambdaLift (opt_level 1, a VM step): turns every fn literal that is not
 * Primitive into a global function, so the VM compiles only globals and
 * builds closures with AllocClosure (as TVM's VM compiler does).
 *
 * TVM's form. A fn literal F with no free variables becomes
 * `def @lifted_N(params) { body }` and its site becomes `@lifted_N`. With
 * free variables f1..fk (in first-use order) it becomes
 *   def @lifted_N(%f1, ..., %fk) { fn (params, Closure=1) { body } }
 * and its site `@lifted_N(%f1, ..., %fk)`: calling the global with the
 * captured values returns the closure.
 *
 * Algorithm: per global, rt_ir_mutate rebuilds bottom up, so inner fn
 * literals are lifted before the ones around them: when an outer literal
 * is reached, its inner ones are already `@lifted_M(...)` calls whose
 * arguments are the outer literal's own free-variable uses. Free variables
 * of a (rebuilt) literal = vars used in it minus vars bound in it (params
 * and lets at any depth), found by one post-order walk; each var is bound
 * once (rt_ir_verify), so no scoping is needed. The lifted global gets
 * fresh parameters for the captures (same names, annotated with the
 * captured vars' types) substituted into the body, so no Var node is bound
 * by two globals (struct equality and per-global var maps stay simple);
 * `N` counts up from 0, skipping names taken.
 *
 * Not lifted: Primitive functions (kernels), and a literal bound by a let
 * that refers to its own let var (a recursive closure); Relay's text can
 * only write those with refs, which are out of scope here, so they are
 * left as they are (their inner literals are still lifted).
 *
 * Invariants: the input is untouched; the input is returned retained when
 * nothing was lifted; walks are iterative. */
#include <stdio.h>
#include <string.h>

#include "passes/pass.h"
#include "runtime/assert.h"

typedef struct {
  rt_module_t *m;
  const rt_module_t *in;
  rt_arena_t scratch;
  uint32_t nid;         /* ids below this are indexable */
  uint32_t *bound;      /* by var id: == gen when bound in the walked fn */
  uint32_t *seen;       /* by var id: == gen when already listed */
  uint8_t *recursive;   /* by fn id: a let-bound literal using its let var */
  uint32_t gen;
  rt_ir_expr_t **subst; /* by var id: the fresh param replacing a capture */
  rt_ir_expr_t **free_vars;
  int32_t nfree, cap_free;
  rt_ir_expr_t *root;   /* the global being rewritten */
  int32_t next_name;
  int32_t lifted;
} lift_t;

static rt_status_t mark_bound(void *user, rt_ir_expr_t *e) {
  lift_t *l = user;
  if (e->kind == RT_IR_FUNCTION) {
    for (int32_t i = 0; i < e->fn.nparams; ++i) {
      if (e->fn.params[i]->id < l->nid) l->bound[e->fn.params[i]->id] = l->gen;
    }
  } else if (e->kind == RT_IR_LET && e->let.var->id < l->nid) {
    l->bound[e->let.var->id] = l->gen;
  }
  return RT_OK;
}

static rt_status_t list_free(void *user, rt_ir_expr_t *e) {
  lift_t *l = user;
  if (e->kind != RT_IR_VAR) return RT_OK;
  if (e->id >= l->nid) return RT_STATUS(INTERNAL, "LambdaLift: a var made during the pass");
  if (l->bound[e->id] == l->gen || l->seen[e->id] == l->gen) return RT_OK;
  l->seen[e->id] = l->gen;
  if (l->nfree == l->cap_free) {
    int32_t ncap = l->cap_free ? l->cap_free * 2 : 16;
    void *p = NULL;
    RT_RETURN_IF_ERROR(rt_arena_alloc_array(&l->scratch, (size_t)ncap, sizeof(rt_ir_expr_t *), &p));
    if (l->free_vars) memcpy(p, l->free_vars, (size_t)l->nfree * sizeof(rt_ir_expr_t *));
    l->free_vars = p;
    l->cap_free = ncap;
  }
  l->free_vars[l->nfree++] = e;
  return RT_OK;
}

/* Free vars of `fn` into l->free_vars[0..nfree), in first-use order. */
static rt_status_t free_vars(lift_t *l, rt_ir_expr_t *fn) {
  l->gen++;
  l->nfree = 0;
  RT_RETURN_IF_ERROR(rt_ir_post_order(l->m->allocator, fn, mark_bound, l));
  return rt_ir_post_order(l->m->allocator, fn, list_free, l);
}

static rt_status_t mark_recursive(void *user, rt_ir_expr_t *e) {
  lift_t *l = user;
  if (e->kind != RT_IR_LET || e->let.value->kind != RT_IR_FUNCTION) return RT_OK;
  rt_ir_expr_t *fn = e->let.value;
  if (rt_ir_is_primitive(fn) || fn->id >= l->nid) return RT_OK;
  RT_RETURN_IF_ERROR(free_vars(l, fn));
  for (int32_t i = 0; i < l->nfree; ++i) {
    if (l->free_vars[i] == e->let.var) l->recursive[fn->id] = 1;
  }
  return RT_OK;
}

static rt_status_t fresh_name(lift_t *l, char *buf, size_t size) {
  for (int32_t guard = 0; guard < (1 << 30); ++guard) {
    snprintf(buf, size, "lifted_%d", (int)l->next_name++);
    if (!rt_ir_module_lookup(l->m, buf) && !rt_ir_module_lookup(l->in, buf)) return RT_OK;
  }
  return RT_STATUS(RESOURCE_EXHAUSTED, "LambdaLift: no free global name");
}

static rt_status_t substitute(void *user, rt_ir_expr_t *original, rt_ir_expr_t *rebuilt,
                              rt_ir_expr_t **out) {
  lift_t *l = user;
  *out = rebuilt;
  if (original->kind == RT_IR_VAR && original->id < l->nid && l->subst[original->id]) {
    *out = l->subst[original->id];
  }
  return RT_OK;
}

/* Fresh params for l->free_vars (written over them) and `body` with them
 * substituted. */
static rt_status_t rebind_captures(lift_t *l, rt_ir_expr_t *body, rt_ir_expr_t **out_body) {
  rt_status_t st = RT_OK;
  rt_ir_expr_t **orig = NULL;
  RT_RETURN_IF_ERROR(
      rt_arena_alloc_array(&l->scratch, (size_t)l->nfree, sizeof(rt_ir_expr_t *), (void **)&orig));
  for (int32_t i = 0; i < l->nfree && !st; ++i) {
    rt_ir_expr_t *v = l->free_vars[i], *nv = NULL;
    rt_ir_type_t *t = v->var.annotation ? v->var.annotation : rt_ir_type_resolve(v->checked_type);
    st = rt_ir_var(l->m, v->span, v->var.name, t, &nv);
    orig[i] = v;
    if (!st) l->subst[v->id] = nv;
  }
  if (!st) st = rt_ir_mutate(l->m, body, substitute, l, out_body);
  for (int32_t i = 0; i < l->nfree; ++i) {
    if (orig[i]) {
      if (l->subst[orig[i]->id]) l->free_vars[i] = l->subst[orig[i]->id];
      l->subst[orig[i]->id] = NULL;
    }
  }
  return st;
}

/* fn attrs plus Closure=1. */
static rt_status_t closure_attrs(lift_t *l, const rt_ir_attrs_t *attrs, rt_ir_attrs_t **out) {
  int32_t n = attrs ? attrs->count : 0;
  const char **keys = NULL;
  rt_attr_value_t *values = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&l->scratch, (size_t)n + 1, sizeof(char *), (void **)&keys));
  RT_RETURN_IF_ERROR(
      rt_arena_alloc_array(&l->scratch, (size_t)n + 1, sizeof(rt_attr_value_t), (void **)&values));
  for (int32_t i = 0; i < n; ++i) {
    keys[i] = attrs->keys[i];
    values[i] = attrs->values[i];
  }
  keys[n] = "Closure";
  values[n].kind = RT_ATTR_INT;
  values[n].i = 1;
  return rt_ir_generic_attrs(l->m, n + 1, keys, values, out);
}

static rt_status_t lift(void *user, rt_ir_expr_t *original, rt_ir_expr_t *rebuilt,
                        rt_ir_expr_t **out) {
  lift_t *l = user;
  *out = rebuilt;
  if (original->kind != RT_IR_FUNCTION || original == l->root || rt_ir_is_primitive(original)) {
    return RT_OK;
  }
  if (original->id < l->nid && l->recursive[original->id]) return RT_OK;
  rt_module_t *m = l->m;
  RT_RETURN_IF_ERROR(free_vars(l, rebuilt));
  char name[48];
  RT_RETURN_IF_ERROR(fresh_name(l, name, sizeof name));
  rt_ir_expr_t *gv = NULL;
  RT_RETURN_IF_ERROR(rt_ir_global_var(m, rebuilt->span, name, &gv));
  if (l->nfree == 0) {
    RT_RETURN_IF_ERROR(rt_ir_module_add(m, name, rebuilt));
    *out = gv;
  } else {
    /* The site passes the captured vars; the global binds fresh ones. */
    RT_RETURN_IF_ERROR(rt_ir_call(m, rebuilt->span, gv, l->nfree, l->free_vars, NULL, out));
    rt_ir_attrs_t *attrs = NULL;
    RT_RETURN_IF_ERROR(closure_attrs(l, rebuilt->fn.attrs, &attrs));
    rt_ir_expr_t *inner = NULL, *outer = NULL, *body = NULL;
    RT_RETURN_IF_ERROR(rebind_captures(l, rebuilt->fn.body, &body));
    RT_RETURN_IF_ERROR(rt_ir_function(m, rebuilt->span, rebuilt->fn.nparams, rebuilt->fn.params,
                                      body, rebuilt->fn.ret_type, attrs, &inner));
    RT_RETURN_IF_ERROR(rt_ir_function(m, rebuilt->span, l->nfree, l->free_vars, inner, NULL, NULL,
                                      &outer));
    RT_RETURN_IF_ERROR(rt_ir_module_add(m, name, outer));
  }
  l->lifted++;
  return RT_OK;
}

rt_status_t rt_pass_lambda_lift(const rt_pass_env_t *env, rt_module_t *in, rt_module_t **out) {
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_derive(in, &m));
  lift_t l = {0};
  l.m = m;
  l.in = in;
  l.nid = in->next_id;
  rt_arena_initialize(env->allocator, &l.scratch);
  rt_status_t st = rt_arena_alloc_array(&l.scratch, l.nid, sizeof(uint32_t), (void **)&l.bound);
  if (!st) st = rt_arena_alloc_array(&l.scratch, l.nid, sizeof(uint32_t), (void **)&l.seen);
  if (!st) st = rt_arena_alloc_array(&l.scratch, l.nid, 1, (void **)&l.recursive);
  if (!st) {
    st = rt_arena_alloc_array(&l.scratch, l.nid, sizeof(rt_ir_expr_t *), (void **)&l.subst);
  }
  for (int32_t i = 0; i < in->num_globals && !st; ++i) {
    st = rt_ir_post_order(m->allocator, in->globals[i].fn, mark_recursive, &l);
  }
  for (int32_t i = 0; i < in->num_globals && !st; ++i) {
    rt_ir_expr_t *fn = in->globals[i].fn, *nfn = NULL;
    if (rt_ir_is_primitive(fn)) continue;
    l.root = fn;
    st = rt_ir_mutate(m, fn, lift, &l, &nfn);
    if (!st && nfn != fn) st = rt_ir_module_add(m, in->globals[i].name, nfn);
    if (st) st = rt_status_annotate(st, "LambdaLift: in @%s", in->globals[i].name);
  }
  rt_arena_deinitialize(&l.scratch);
  if (st || l.lifted == 0) {
    rt_module_release(m);
    if (st) return st;
    rt_module_retain(in);
    *out = in;
    return RT_OK;
  }
  *out = m;
  return RT_OK;
}
