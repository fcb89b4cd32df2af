/* The shared engine of CombineParallelConv2d and CombineParallelDense
 * (passes/combine_parallel.h): the op-specific rules (which calls are
 * candidates, which may combine, the weight and output axes, the size
 * attribute's position and reader) come in a rt_combine_rules_t.
 *
 * Algorithm: per global, a scan of the input in post order groups the
 * candidates (first come, first grouped; a group keeps the post order, so
 * the concatenation follows evaluation order). Then rt_ir_mutate rebuilds
 * bottom up: at the first member of a group of >= RT_COMBINE_MIN_BRANCHES
 * it builds the combined call (over the rebuilt data, which every member
 * shares, and the atomic weights concatenated along the weight axis) and
 * all the slices along the output axis, and every member is replaced by
 * its slice. Only dataflow globals are combined (no If, Let or
 * non-primitive fn inside), so hoisting a branch's call next to its
 * siblings cannot move it into or out of a scope. The input is untouched;
 * it is returned retained when nothing combined. */
#include "passes/combine_parallel.h"

#include <stdio.h>
#include <string.h>

#include "runtime/assert.h"

typedef struct {
  rt_ir_expr_t *first;       /* input node of the first member */
  int32_t count, cap;
  rt_ir_expr_t **members;    /* input nodes, post order */
  rt_ir_expr_t **slices;     /* built at the first member's rewrite */
} group_t;

typedef struct {
  const rt_combine_rules_t *rules;
  rt_module_t *m;
  rt_arena_t scratch;
  uint32_t nid;
  int32_t *group_of;         /* by input node id: group index + 1, 0 = none */
  int32_t *pos_of;           /* by input node id: position in the group */
  group_t *groups;
  int32_t ngroups, cap_groups;
  bool dataflow;
  int32_t combined;
} combine_t;

const rt_ir_type_t *rt_combine_tensor_type(const rt_ir_expr_t *e) {
  const rt_ir_type_t *t = e ? rt_ir_type_resolve(e->checked_type) : NULL;
  return t && t->kind == RT_IR_TYPE_TENSOR ? t : NULL;
}

static rt_status_t grow(rt_arena_t *arena, void **items, int32_t *cap, int32_t need, size_t elem) {
  if (need <= *cap) return RT_OK;
  int32_t ncap = *cap ? *cap * 2 : 8;
  while (ncap < need) ncap *= 2;
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(arena, (size_t)ncap, elem, &p));
  if (*items) memcpy(p, *items, (size_t)*cap * elem);
  *items = p;
  *cap = ncap;
  return RT_OK;
}

static rt_status_t scan(void *user, rt_ir_expr_t *e) {
  combine_t *c = user;
  if (e->kind == RT_IR_IF || e->kind == RT_IR_LET) c->dataflow = false;
  if (!c->rules->candidate(e)) return RT_OK;
  group_t *g = NULL;
  for (int32_t i = 0; i < c->ngroups && !g; ++i) {
    if (c->rules->compatible(c->groups[i].first, e)) g = &c->groups[i];
  }
  if (!g) {
    RT_RETURN_IF_ERROR(grow(&c->scratch, (void **)&c->groups, &c->cap_groups, c->ngroups + 1,
                            sizeof(group_t)));
    g = &c->groups[c->ngroups++];
    memset(g, 0, sizeof *g);
    g->first = e;
  }
  RT_RETURN_IF_ERROR(
      grow(&c->scratch, (void **)&g->members, &g->cap, g->count + 1, sizeof(rt_ir_expr_t *)));
  g->members[g->count++] = e;
  return RT_OK;
}

static rt_status_t scan_functions(void *user, rt_ir_expr_t *e) {
  combine_t *c = user;
  if (e->kind != RT_IR_FUNCTION || !e->fn.attrs) return RT_OK;
  for (int32_t i = 0; i < e->fn.attrs->count; ++i) {
    if (strcmp(e->fn.attrs->keys[i], "Primitive") == 0) return RT_OK;
  }
  c->dataflow = false;
  return RT_OK;
}

/* The first member's attrs with the size attribute = `total` (or None when
 * the rules ask for every branch to set it and one does not). */
static rt_status_t combined_attrs(combine_t *c, const group_t *g, int64_t total,
                                  rt_ir_attrs_t **out) {
  const rt_combine_rules_t *r = c->rules;
  bool all_set = true;
  for (int32_t i = 0; i < g->count && r->size_none_unless_all; ++i) {
    if (!r->size_set(g->members[i])) all_set = false;
  }
  const rt_ir_attrs_t *a = g->members[0]->call.attrs;
  rt_ir_attrs_t *attrs = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc(&c->m->arena, sizeof *attrs, (void **)&attrs));
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&c->m->arena, (size_t)a->count, sizeof(rt_attr_value_t),
                                          (void **)&attrs->values));
  attrs->count = a->count;
  attrs->keys = a->keys;
  for (int32_t i = 0; i < a->count; ++i) attrs->values[i] = a->values[i];
  RT_ASSERT(r->size_pos >= 0 && r->size_pos < a->count);
  attrs->values[r->size_pos].kind = all_set ? RT_ATTR_INT : RT_ATTR_NONE;
  attrs->values[r->size_pos].i = all_set ? total : 0;
  *out = attrs;
  return RT_OK;
}

/* Builds the combined call and the slices of group `g`; `data` is the
 * rebuilt data input. */
static rt_status_t build(combine_t *c, group_t *g, rt_ir_expr_t *data) {
  rt_module_t *m = c->m;
  const rt_ir_expr_t *first = g->members[0];
  const int32_t o = c->rules->weight_axis(first), ca = c->rules->out_axis(first);
  rt_ir_expr_t **weights = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&c->scratch, (size_t)g->count, sizeof(rt_ir_expr_t *),
                                          (void **)&weights));
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&c->scratch, (size_t)g->count, sizeof(rt_ir_expr_t *),
                                          (void **)&g->slices));
  int64_t total = 0;
  for (int32_t i = 0; i < g->count; ++i) {
    weights[i] = g->members[i]->call.args[1];
    total += rt_combine_tensor_type(weights[i])->tensor.shape[o];
  }
  rt_ir_expr_t *tuple = NULL, *wcat = NULL, *comb = NULL;
  RT_RETURN_IF_ERROR(rt_ir_tuple(m, first->span, g->count, weights, &tuple));
  char axis[24];
  snprintf(axis, sizeof axis, "%d", (int)o);
  const char *ckeys[] = {"axis"};
  const char *cvals[] = {axis};
  RT_RETURN_IF_ERROR(
      rt_pass_make_call(m, first->span, RT_OP_CONCATENATE, 1, &tuple, 1, ckeys, cvals, &wcat));
  rt_ir_attrs_t *attrs = NULL;
  RT_RETURN_IF_ERROR(combined_attrs(c, g, total, &attrs));
  rt_ir_expr_t *args[2] = {data, wcat};
  RT_RETURN_IF_ERROR(rt_ir_call(m, first->span, first->call.callee, 2, args, attrs, &comb));
  int64_t off = 0;
  for (int32_t i = 0; i < g->count; ++i) {
    const int64_t n = rt_combine_tensor_type(weights[i])->tensor.shape[o];
    char begin[32], end[32], axes[32];
    snprintf(begin, sizeof begin, "[%lld]", (long long)off);
    snprintf(end, sizeof end, "[%lld]", (long long)(off + n));
    snprintf(axes, sizeof axes, "[%d]", (int)ca);
    const char *keys[] = {"begin", "end", "strides", "axes"};
    const char *vals[] = {begin, end, "[1]", axes};
    RT_RETURN_IF_ERROR(rt_pass_make_call(m, g->members[i]->span, RT_OP_STRIDED_SLICE, 1, &comb, 4,
                                         keys, vals, &g->slices[i]));
    off += n;
  }
  c->combined++;
  return RT_OK;
}

static rt_status_t rewrite(void *user, rt_ir_expr_t *orig, rt_ir_expr_t *rebuilt,
                           rt_ir_expr_t **out) {
  combine_t *c = user;
  *out = rebuilt;
  if (orig->id >= c->nid || !c->group_of[orig->id]) return RT_OK;
  group_t *g = &c->groups[c->group_of[orig->id] - 1];
  if (!g->slices) RT_RETURN_IF_ERROR(build(c, g, rebuilt->call.args[0]));
  *out = g->slices[c->pos_of[orig->id]];
  return RT_OK;
}

rt_status_t rt_pass_combine_parallel(const rt_pass_env_t *env, const rt_combine_rules_t *rules,
                                     rt_module_t *in, rt_module_t **out) {
  combine_t c = {.rules = rules};
  c.nid = in->next_id;
  rt_arena_initialize(env->allocator, &c.scratch);
  rt_status_t st = rt_arena_alloc_array(&c.scratch, c.nid, sizeof(int32_t), (void **)&c.group_of);
  if (!st) st = rt_arena_alloc_array(&c.scratch, c.nid, sizeof(int32_t), (void **)&c.pos_of);
  rt_module_t *m = NULL;
  if (!st) st = rt_ir_module_derive(in, &m);
  c.m = m;
  for (int32_t gi = 0; gi < in->num_globals && !st; ++gi) {
    rt_ir_expr_t *fn = in->globals[gi].fn, *nfn = NULL;
    c.ngroups = 0;
    c.dataflow = true;
    st = rt_ir_post_order(env->allocator, fn->fn.body, scan_functions, &c);
    if (!st && c.dataflow) st = rt_ir_post_order(env->allocator, fn, scan, &c);
    if (st || !c.dataflow) continue;
    bool any = false;
    for (int32_t i = 0; i < c.ngroups; ++i) {
      group_t *g = &c.groups[i];
      if (g->count < RT_COMBINE_MIN_BRANCHES) continue;
      any = true;
      for (int32_t k = 0; k < g->count; ++k) {
        c.group_of[g->members[k]->id] = i + 1;
        c.pos_of[g->members[k]->id] = k;
      }
    }
    if (any) st = rt_ir_mutate(m, fn, rewrite, &c, &nfn);
    if (!st && any && nfn != fn) st = rt_ir_module_add(m, in->globals[gi].name, nfn);
    for (int32_t i = 0; i < c.ngroups; ++i) {
      for (int32_t k = 0; k < c.groups[i].count; ++k) c.group_of[c.groups[i].members[k]->id] = 0;
    }
    if (st) st = rt_status_annotate(st, "%s: in @%s", rules->pass_name, in->globals[gi].name);
  }
  rt_arena_deinitialize(&c.scratch);
  if (st || c.combined == 0) {
    rt_module_release(m);
    if (st) return st;
    rt_module_retain(in);
    *out = in;
    return RT_OK;
  }
  *out = m;
  return RT_OK;
}
