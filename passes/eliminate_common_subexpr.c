/* EliminateCommonSubexpr: makes equal computations one node (TVM's
 * src/relay/transforms/eliminate_common_subexpr.cc).
 *
 * Hash-consing during one bottom-up rt_ir_mutate walk per global: the
 * arguments of a node are already deduplicated when it is visited, so two
 * op calls compute the same value exactly when they have the same op,
 * equal attrs and the very same argument nodes. The table is keyed by a
 * hash of (scope, op, attrs, argument node ids) and compared the same way,
 * which is rt_ir_struct_equal restricted to what it can decide safely here:
 * comparing arguments by identity keeps two different variables that share
 * a name (shadowing lets) apart, which struct equality of free variables,
 * done by name, would not. Besides op calls, tuples and projections of the
 * same nodes are merged, and constants with equal dtype, shape and bytes.
 * Calls of functions, globals and closures are left alone.
 *
 * Scopes: a node is merged only with a node of the same scope, where a
 * scope is a function body or one branch of an If (named by the node that
 * opens it, so it does not depend on the path a walk takes). Scopes are
 * assigned top-down before the rewrite; a node reached from two scopes is
 * already shared and is neither merged nor used as a representative. So a
 * value is never pulled out of a branch or a closure body, and nothing
 * computed in one branch is reused by the other. */
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (oom = true)
#include "runtime/uthash_rt.h"

#include "passes/pass.h"

#define SCOPE_NONE 0u
#define SCOPE_MULTI UINT64_MAX

typedef struct entry_t {
  uint64_t hash;
  rt_ir_expr_t *node;  /* the representative (a rewritten node) */
  uint64_t scope;
  struct entry_t *next; /* further entries with the same hash */
  UT_hash_handle hh;
} entry_t;

typedef struct {
  rt_module_t *m;
  uint32_t cap;
  uint64_t *scope;     /* per original node id */
  entry_t *table;      /* buckets by hash; collisions chained in `chain` */
  entry_t **all;       /* every entry, for freeing and collision lists */
  int64_t num_all, cap_all;
  bool changed;
} cse_ctx;

/* ---- scopes -------------------------------------------------------------- */

typedef struct {
  rt_ir_expr_t *e;
  uint64_t scope;
} item_t;

static uint64_t scope_id(uint32_t node_id, uint32_t which) {
  return ((uint64_t)node_id << 2) | which; /* which: 1 fn body, 2 then, 3 else */
}

static rt_status_t assign_scopes(cse_ctx *cx, rt_ir_expr_t *fn) {
  int64_t cap = 256, n = 0;
  item_t *stack = rt_mem_alloc((size_t)cap * sizeof *stack);
  rt_ir_expr_t *kids_local[16];
  rt_ir_expr_t **kids = kids_local;
  int32_t cap_kids = 16;
  rt_status_t st = RT_OK;
  if (!stack) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in EliminateCommonSubexpr");
  stack[n++] = (item_t){fn, scope_id(0, 1)}; /* no node has id 0 */
  while (n > 0 && !st) {
    item_t it = stack[--n];
    rt_ir_expr_t *e = it.e;
    if (e->id >= cx->cap) {
      st = RT_STATUS(INTERNAL, "node id %u past the module's ids", e->id);
      break;
    }
    uint64_t *s = &cx->scope[e->id];
    if (*s == it.scope || *s == SCOPE_MULTI) continue;
    *s = *s == SCOPE_NONE ? it.scope : SCOPE_MULTI;
    uint64_t child_scope = *s;
    int32_t k = rt_ir_children(e, kids, cap_kids);
    if (k > cap_kids) {
      rt_ir_expr_t **p = rt_mem_alloc((size_t)k * sizeof *p);
      if (!p) {
        st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in EliminateCommonSubexpr");
        break;
      }
      if (kids != kids_local) rt_mem_free(kids);
      kids = p;
      cap_kids = k;
      k = rt_ir_children(e, kids, cap_kids);
    }
    if (n + k > cap) {
      while (n + k > cap) cap *= 2;
      item_t *q = rt_mem_realloc(stack, (size_t)cap * sizeof *stack);
      if (!q) {
        st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in EliminateCommonSubexpr");
        break;
      }
      stack = q;
    }
    for (int32_t i = 0; i < k; ++i) {
      uint64_t cs = child_scope;
      if (e->kind == RT_IR_FUNCTION && i == k - 1) cs = scope_id(e->id, 1);
      if (e->kind == RT_IR_IF && i == 1) cs = scope_id(e->id, 2);
      if (e->kind == RT_IR_IF && i == 2) cs = scope_id(e->id, 3);
      stack[n++] = (item_t){kids[i], cs};
    }
  }
  if (kids != kids_local) rt_mem_free(kids);
  rt_mem_free(stack);
  return st;
}

/* ---- keys ---------------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

static bool mergeable(const rt_ir_expr_t *e) {
  return (e->kind == RT_IR_CALL && e->call.callee->kind == RT_IR_OP) || e->kind == RT_IR_TUPLE ||
         e->kind == RT_IR_TUPLE_GET_ITEM || e->kind == RT_IR_CONSTANT;
}

/* A constant's key: dtype, shape and up to three 64-byte windows of its
 * bytes (start, middle, end), not all of them: hashing every weight of a
 * model cost 72 ms of resnet18's build (46 MB), and key_equal compares the
 * whole bytes anyway (memcmp stops at the first difference). */
static uint64_t constant_hash(const rt_tensor_t *t, uint64_t h) {
  const rt_dtype_t dt = rt_tensor_dtype(t);
  h = mix(h, ((uint64_t)dt.code << 16) | ((uint64_t)dt.bits << 8) | dt.lanes);
  const int32_t rank = rt_tensor_rank(t);
  const int64_t *shape = rt_tensor_shape(t);
  h = mix(h, (uint64_t)rank);
  for (int32_t i = 0; i < rank; ++i) h = mix(h, (uint64_t)shape[i]);
  const size_t n = rt_tensor_nbytes(t);
  const uint8_t *b = rt_tensor_data(t);
  const size_t win = 64, starts[3] = {0, n / 2, n > win ? n - win : 0};
  for (int32_t w = 0; b && w < 3; ++w) {
    for (size_t i = starts[w]; i < n && i < starts[w] + win; ++i) h = mix(h, b[i]);
  }
  return mix(h, (uint64_t)n);
}

static uint64_t key_hash(const rt_ir_expr_t *e, uint64_t scope) {
  uint64_t h = mix(scope, (uint64_t)e->kind);
  switch (e->kind) {
    case RT_IR_CALL:
      h = mix(h, (uint64_t)e->call.callee->op.op->id);
      for (int32_t i = 0; e->call.attrs && i < e->call.attrs->count; ++i) {
        h = rt_attr_value_hash(&e->call.attrs->values[i], h);
      }
      for (int32_t i = 0; i < e->call.nargs; ++i) h = mix(h, e->call.args[i]->id);
      break;
    case RT_IR_TUPLE:
      for (int32_t i = 0; i < e->tuple.count; ++i) h = mix(h, e->tuple.fields[i]->id);
      h = mix(h, (uint64_t)e->tuple.count);
      break;
    case RT_IR_TUPLE_GET_ITEM:
      h = mix(mix(h, e->get_item.tuple->id), (uint64_t)e->get_item.index);
      break;
    case RT_IR_CONSTANT:
      h = constant_hash(e->constant.value, h);
      break;
    default:
      break;
  }
  return h;
}

static bool same_args(rt_ir_expr_t *const *a, rt_ir_expr_t *const *b, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

static bool key_equal(const rt_ir_expr_t *a, const rt_ir_expr_t *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case RT_IR_CALL: {
      if (b->call.callee->kind != RT_IR_OP || a->call.callee->op.op != b->call.callee->op.op ||
          a->call.nargs != b->call.nargs || !same_args(a->call.args, b->call.args, a->call.nargs)) {
        return false;
      }
      const rt_ir_attrs_t *x = a->call.attrs, *y = b->call.attrs;
      if (!x || !y) return x == y;
      if (x->count != y->count) return false;
      for (int32_t i = 0; i < x->count; ++i) {
        if (!rt_attr_value_equal(&x->values[i], &y->values[i])) return false;
      }
      return true;
    }
    case RT_IR_TUPLE:
      return a->tuple.count == b->tuple.count &&
             same_args(a->tuple.fields, b->tuple.fields, a->tuple.count);
    case RT_IR_TUPLE_GET_ITEM:
      return a->get_item.tuple == b->get_item.tuple && a->get_item.index == b->get_item.index;
    case RT_IR_CONSTANT:
      return rt_ir_struct_equal(a, b);
    default:
      return false;
  }
}

static rt_status_t rewrite(void *user, rt_ir_expr_t *orig, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  cse_ctx *cx = user;
  *out = e;
  if (!mergeable(e) || orig->id >= cx->cap) return RT_OK;
  uint64_t scope = cx->scope[orig->id];
  if (scope == SCOPE_NONE || scope == SCOPE_MULTI) return RT_OK;
  uint64_t h = key_hash(e, scope);
  entry_t *x = NULL;
  HASH_FIND(hh, cx->table, &h, sizeof(uint64_t), x);
  for (entry_t *y = x; y; y = y->next) {
    if (y->scope == scope && key_equal(y->node, e)) {
      *out = y->node;
      cx->changed = true;
      return RT_OK;
    }
  }
  /* A new representative. The table holds the first entry of each hash;
   * others with the same hash hang off it (collisions are rare). */
  entry_t *n = rt_mem_calloc(1, sizeof(entry_t));
  if (!n) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in EliminateCommonSubexpr");
  n->hash = h;
  n->node = e;
  n->scope = scope;
  if (cx->num_all == cx->cap_all) {
    int64_t c = cx->cap_all ? cx->cap_all * 2 : 256;
    entry_t **p = rt_mem_realloc(cx->all, (size_t)c * sizeof *p);
    if (!p) {
      rt_mem_free(n);
      return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in EliminateCommonSubexpr");
    }
    cx->all = p;
    cx->cap_all = c;
  }
  cx->all[cx->num_all++] = n;
  if (x) {
    /* Insert after the bucket head. */
    n->next = x->next;
    x->next = n;
    return RT_OK;
  }
  bool oom = false;
  HASH_ADD(hh, cx->table, hash, sizeof(uint64_t), n);
  if (oom) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in EliminateCommonSubexpr");
  return RT_OK;
}

static void clear_table(cse_ctx *cx) {
  HASH_CLEAR(hh, cx->table);
  for (int64_t i = 0; i < cx->num_all; ++i) rt_mem_free(cx->all[i]);
  cx->num_all = 0;
}

rt_status_t rt_pass_eliminate_common_subexpr(const rt_pass_env_t *env, rt_module_t *in,
                                             rt_module_t **out) {
  (void)env;
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_derive(in, &m));
  cse_ctx cx;
  memset(&cx, 0, sizeof cx);
  cx.m = m;
  cx.cap = in->next_id;
  cx.scope = rt_mem_calloc((size_t)cx.cap + 1, sizeof(uint64_t));
  rt_status_t st = RT_OK;
  if (!cx.scope) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in EliminateCommonSubexpr");
  for (int32_t i = 0; i < in->num_globals && !st; ++i) {
    rt_ir_expr_t *fn = in->globals[i].fn;
    memset(cx.scope, 0, ((size_t)cx.cap + 1) * sizeof(uint64_t));
    st = assign_scopes(&cx, fn);
    rt_ir_expr_t *nf = NULL;
    if (!st) st = rt_ir_mutate(m, fn, rewrite, &cx, &nf);
    clear_table(&cx);
    if (!st && nf != fn) st = rt_ir_module_add(m, in->globals[i].name, nf);
  }
  clear_table(&cx);
  rt_mem_free(cx.all);
  rt_mem_free(cx.scope);
  if (st || !cx.changed) {
    rt_module_release(m);
    if (st) return st;
    rt_module_retain(in);
    m = in;
  }
  *out = m;
  return RT_OK;
}
