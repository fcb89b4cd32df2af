/* CombineParallelConv2d (opt_level 4): several nn.conv2d on the same
 * input that differ only in their output channels become one conv2d over
 * the weights concatenated along O, and each branch takes its channels
 * back with a strided_slice along the output's channel axis:
 *   %a = nn.conv2d(%x, %w1, channels=2); %b = ...(%x, %w2, channels=3); ...
 * ->
 *   %w = concatenate((%w1, %w2, %w3), axis=<O>);
 *   %y = nn.conv2d(%x, %w, channels=2+3+...);
 *   %a = strided_slice(%y, begin=[0], end=[2], strides=[1], axes=[<C>]); ...
 * TVM's default min_branches = 3 is kept: two parallel convs are left
 * alone. Elementwise ops after each branch stay per branch (TVM would also
 * merge identical ones; FuseOps fuses them into the slices' consumers).
 *
 * Branches combine when: the same data node; groups = 1; every attribute
 * other than channels equal (strides, padding, dilation, kernel_size,
 * layouts, out_dtype); weights of one dtype and equal shapes except on O,
 * all static; the layouts upper-case permutations. Weights must be atomic
 * (a Var or a Constant), which is what they are where this pass runs
 * (before FoldConstant and FoldScaleAxis rewrite them).
 *
 * Algorithm: per global, a scan of the input in post order groups the
 * candidates (first come, first grouped; a group keeps the post order, so
 * the concatenation follows evaluation order). Then rt_ir_mutate rebuilds
 * bottom up: at the first member of a group of >= 3 it builds the combined
 * conv (over the rebuilt data, which every member shares, and the atomic
 * weights) and all the slices, and every member is replaced by its slice.
 * Only dataflow globals are combined (no If, Let or non-primitive fn
 * inside), so hoisting a branch's conv next to its siblings cannot move it
 * into or out of a scope. The input is untouched; it is returned retained
 * when nothing combined. */
#include <stdio.h>
#include <string.h>

#include "passes/pass.h"
#include "runtime/assert.h"

#define MIN_BRANCHES 3

typedef struct {
  rt_ir_expr_t *first;       /* input node of the first member */
  int32_t count, cap;
  rt_ir_expr_t **members;    /* input nodes, post order */
  rt_ir_expr_t **slices;     /* built at the first member's rewrite */
} group_t;

typedef struct {
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

static const rt_ir_type_t *tensor_type(const rt_ir_expr_t *e) {
  const rt_ir_type_t *t = e ? rt_ir_type_resolve(e->checked_type) : NULL;
  return t && t->kind == RT_IR_TYPE_TENSOR ? t : NULL;
}

static int32_t layout_axis(const char *layout, char c) {
  if (strlen(layout) != 4) return -1;
  int32_t pos = -1;
  for (int32_t i = 0; i < 4; ++i) {
    if (layout[i] < 'A' || layout[i] > 'Z') return -1;
    if (layout[i] == c) pos = i;
  }
  return pos;
}

static int32_t out_axis(const rt_ir_expr_t *c) {
  const char *ol = rt_attrs_string(c->call.attrs, "out_layout");
  return layout_axis(ol[0] ? ol : rt_attrs_string(c->call.attrs, "data_layout"), 'C');
}

static int32_t weight_axis(const rt_ir_expr_t *c) {
  return layout_axis(rt_attrs_string(c->call.attrs, "kernel_layout"), 'O');
}

static bool candidate(const rt_ir_expr_t *c) {
  if (!rt_pass_is_op(c, RT_OP_NN_CONV2D) || rt_attrs_int(c->call.attrs, "groups") != 1) return false;
  const rt_ir_expr_t *w = c->call.args[1];
  if (w->kind != RT_IR_VAR && w->kind != RT_IR_CONSTANT) return false;
  const rt_ir_type_t *wt = tensor_type(w);
  if (!wt || wt->tensor.rank != 4 || !tensor_type(c)) return false;
  for (int32_t i = 0; i < 4; ++i) {
    if (wt->tensor.shape[i] == RT_DIM_ANY) return false;
  }
  return out_axis(c) >= 0 && weight_axis(c) >= 0;
}

static bool compatible(const rt_ir_expr_t *a, const rt_ir_expr_t *b) {
  if (a->call.args[0] != b->call.args[0]) return false;
  const rt_ir_attrs_t *x = a->call.attrs, *y = b->call.attrs;
  for (int32_t i = 0; i < x->count; ++i) {
    if (strcmp(x->keys[i], "channels") == 0) continue;
    if (!rt_attr_value_equal(&x->values[i], &y->values[i])) return false;
  }
  const rt_ir_type_t *wa = tensor_type(a->call.args[1]), *wb = tensor_type(b->call.args[1]);
  if (!rt_dtype_equal(wa->tensor.dtype, wb->tensor.dtype)) return false;
  const int32_t o = weight_axis(a);
  for (int32_t i = 0; i < 4; ++i) {
    if (i != o && wa->tensor.shape[i] != wb->tensor.shape[i]) return false;
  }
  return true;
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
  if (!candidate(e)) return RT_OK;
  group_t *g = NULL;
  for (int32_t i = 0; i < c->ngroups && !g; ++i) {
    if (compatible(c->groups[i].first, e)) g = &c->groups[i];
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

/* Builds the combined conv and the slices of group `g`; `data` is the
 * rebuilt data input. */
static rt_status_t build(combine_t *c, group_t *g, rt_ir_expr_t *data) {
  rt_module_t *m = c->m;
  const rt_ir_expr_t *first = g->members[0];
  const int32_t o = weight_axis(first), ca = out_axis(first);
  rt_ir_expr_t **weights = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&c->scratch, (size_t)g->count, sizeof(rt_ir_expr_t *),
                                          (void **)&weights));
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&c->scratch, (size_t)g->count, sizeof(rt_ir_expr_t *),
                                          (void **)&g->slices));
  int64_t total = 0;
  for (int32_t i = 0; i < g->count; ++i) {
    weights[i] = g->members[i]->call.args[1];
    total += tensor_type(weights[i])->tensor.shape[o];
  }
  rt_ir_expr_t *tuple = NULL, *wcat = NULL, *conv = NULL;
  RT_RETURN_IF_ERROR(rt_ir_tuple(m, first->span, g->count, weights, &tuple));
  char axis[24];
  snprintf(axis, sizeof axis, "%d", (int)o);
  const char *ckeys[] = {"axis"};
  const char *cvals[] = {axis};
  RT_RETURN_IF_ERROR(
      rt_pass_make_call(m, first->span, RT_OP_CONCATENATE, 1, &tuple, 1, ckeys, cvals, &wcat));
  /* The members' attrs with channels = the sum. */
  const rt_ir_attrs_t *a = first->call.attrs;
  rt_ir_attrs_t *attrs = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc(&m->arena, sizeof *attrs, (void **)&attrs));
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&m->arena, (size_t)a->count, sizeof(rt_attr_value_t),
                                          (void **)&attrs->values));
  attrs->count = a->count;
  attrs->keys = a->keys;
  for (int32_t i = 0; i < a->count; ++i) {
    attrs->values[i] = a->values[i];
    if (strcmp(a->keys[i], "channels") == 0) {
      attrs->values[i].kind = RT_ATTR_INT;
      attrs->values[i].i = total;
    }
  }
  rt_ir_expr_t *args[2] = {data, wcat};
  RT_RETURN_IF_ERROR(rt_ir_call(m, first->span, first->call.callee, 2, args, attrs, &conv));
  int64_t off = 0;
  for (int32_t i = 0; i < g->count; ++i) {
    const int64_t n = tensor_type(weights[i])->tensor.shape[o];
    char begin[32], end[32], axes[32];
    snprintf(begin, sizeof begin, "[%lld]", (long long)off);
    snprintf(end, sizeof end, "[%lld]", (long long)(off + n));
    snprintf(axes, sizeof axes, "[%d]", (int)ca);
    const char *keys[] = {"begin", "end", "strides", "axes"};
    const char *vals[] = {begin, end, "[1]", axes};
    RT_RETURN_IF_ERROR(rt_pass_make_call(m, g->members[i]->span, RT_OP_STRIDED_SLICE, 1, &conv, 4,
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

rt_status_t rt_pass_combine_parallel_conv2d(const rt_pass_env_t *env, rt_module_t *in,
                                            rt_module_t **out) {
  combine_t c = {0};
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
      if (g->count < MIN_BRANCHES) continue;
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
    if (st) st = rt_status_annotate(st, "CombineParallelConv2d: in @%s", in->globals[gi].name);
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
