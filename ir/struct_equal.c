/* Structural equality and hashing, up to renaming of bound variables.
 *
 * Equality walks pairs of nodes with an explicit stack (deep programs do
 * not touch the C stack), memoizing pairs already shown equal, and keeps a
 * bijection between bound variables: a function pair binds its params
 * positionally and a let pair binds its vars when the pair is popped, which
 * is always before any use inside their scope is compared. Free variables
 * (and globals) match by name.
 *
 * Hashing is a post-order fold, memoized per node so DAG sharing costs
 * nothing and a tree hashes like the DAG it unfolds. A bound variable
 * hashes by what binds it (param position, or "let") and its annotation,
 * never by identity, so alpha-equivalent terms hash alike. */
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (oom = true)
#include "runtime/uthash_rt.h"

#include "ir/ir.h"
#include "runtime/assert.h"

/* ---- helpers ------------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v) {
  /* splitmix64-style combine. */
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  return h;
}

static uint64_t hash_bytes(uint64_t h, const void *data, size_t n) {
  const uint8_t *p = data;
  uint64_t x = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) x = (x ^ p[i]) * 0x100000001b3ull;
  return mix(h, x);
}

static uint64_t hash_string(uint64_t h, const char *s) {
  return hash_bytes(h, s, strlen(s));
}

/* Annotations: NULL and unresolved `_` are equal to themselves. */
static bool annotation_equal(const rt_ir_type_t *a, const rt_ir_type_t *b) {
  a = rt_ir_type_resolve((rt_ir_type_t *)a);
  b = rt_ir_type_resolve((rt_ir_type_t *)b);
  if (!a || !b) return a == b;
  if (a->kind == RT_IR_TYPE_INCOMPLETE || b->kind == RT_IR_TYPE_INCOMPLETE) {
    return a->kind == b->kind;
  }
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case RT_IR_TYPE_TUPLE:
      if (a->tuple.count != b->tuple.count) return false;
      for (int32_t i = 0; i < a->tuple.count; ++i) {
        if (!annotation_equal(a->tuple.fields[i], b->tuple.fields[i])) return false;
      }
      return true;
    case RT_IR_TYPE_FUNC:
      if (a->func.count != b->func.count) return false;
      for (int32_t i = 0; i < a->func.count; ++i) {
        if (!annotation_equal(a->func.params[i], b->func.params[i])) return false;
      }
      return annotation_equal(a->func.ret, b->func.ret);
    case RT_IR_TYPE_LIST:
    case RT_IR_TYPE_OPTION:
      return annotation_equal(a->adt.elem, b->adt.elem);
    default:
      return rt_ir_type_equal(a, b);
  }
}

static uint64_t type_hash(uint64_t h, const rt_ir_type_t *t) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (!t) return mix(h, 0x51);
  h = mix(h, (uint64_t)t->kind + 0x100);
  switch (t->kind) {
    case RT_IR_TYPE_TENSOR:
      h = mix(h, (uint64_t)t->tensor.dtype.code << 24 | (uint64_t)t->tensor.dtype.bits << 16 |
                     t->tensor.dtype.lanes);
      h = mix(h, (uint64_t)t->tensor.rank);
      for (int32_t i = 0; i < t->tensor.rank; ++i) h = mix(h, (uint64_t)t->tensor.shape[i]);
      return h;
    case RT_IR_TYPE_TUPLE:
      h = mix(h, (uint64_t)t->tuple.count);
      for (int32_t i = 0; i < t->tuple.count; ++i) h = type_hash(h, t->tuple.fields[i]);
      return h;
    case RT_IR_TYPE_FUNC:
      h = mix(h, (uint64_t)t->func.count);
      for (int32_t i = 0; i < t->func.count; ++i) h = type_hash(h, t->func.params[i]);
      return type_hash(h, t->func.ret);
    case RT_IR_TYPE_LIST:
    case RT_IR_TYPE_OPTION:
      return type_hash(h, t->adt.elem);
    case RT_IR_TYPE_INCOMPLETE:
      return h;
  }
  return h;
}

static bool attrs_equal(const rt_ir_attrs_t *a, const rt_ir_attrs_t *b) {
  int32_t na = a ? a->count : 0, nb = b ? b->count : 0;
  if (na != nb) return false;
  for (int32_t i = 0; i < na; ++i) {
    if (strcmp(a->keys[i], b->keys[i]) != 0) return false;
    if (!rt_attr_value_equal(&a->values[i], &b->values[i])) return false;
  }
  return true;
}

static uint64_t attrs_hash(uint64_t h, const rt_ir_attrs_t *a) {
  int32_t n = a ? a->count : 0;
  h = mix(h, (uint64_t)n);
  for (int32_t i = 0; i < n; ++i) {
    h = hash_string(h, a->keys[i]);
    h = rt_attr_value_hash(&a->values[i], h);
  }
  return h;
}

static bool tensor_equal(const rt_tensor_t *a, const rt_tensor_t *b) {
  if (a == b) return true;
  if (!rt_dtype_equal(rt_tensor_dtype(a), rt_tensor_dtype(b))) return false;
  int32_t r = rt_tensor_rank(a);
  if (r != rt_tensor_rank(b)) return false;
  if (memcmp(rt_tensor_shape(a), rt_tensor_shape(b), (size_t)r * sizeof(int64_t)) != 0) {
    return false;
  }
  if (!rt_tensor_is_compact(a) || !rt_tensor_is_compact(b)) return false;
  return memcmp(rt_tensor_data(a), rt_tensor_data(b), rt_tensor_nbytes(a)) == 0;
}

static uint64_t tensor_hash(uint64_t h, const rt_tensor_t *t) {
  rt_dtype_t d = rt_tensor_dtype(t);
  h = mix(h, (uint64_t)d.code << 24 | (uint64_t)d.bits << 16 | d.lanes);
  int32_t r = rt_tensor_rank(t);
  h = hash_bytes(h, rt_tensor_shape(t), (size_t)r * sizeof(int64_t));
  if (rt_tensor_is_compact(t)) h = hash_bytes(h, rt_tensor_data(t), rt_tensor_nbytes(t));
  return h;
}

/* ---- equality ------------------------------------------------------------ */

typedef struct {
  uint64_t key; /* a->id << 32 | b->id */
  UT_hash_handle hh;
} pair_t;

typedef struct {
  uint32_t id;      /* var id on one side */
  uint32_t other;   /* the id it corresponds to on the other side */
  UT_hash_handle hh;
} var_map_t;

typedef struct {
  const rt_ir_expr_t *a, *b;
} work_t;

typedef struct {
  pair_t *pairs;
  var_map_t *a2b, *b2a;
  work_t *stack;
  int32_t depth, cap;
  bool oom;
} eq_state;

static bool push(eq_state *s, const rt_ir_expr_t *a, const rt_ir_expr_t *b) {
  if (s->depth == s->cap) {
    int32_t ncap = s->cap ? s->cap * 2 : 64;
    work_t *p = rt_mem_realloc(s->stack, (size_t)ncap * sizeof(work_t));
    if (!p) {
      s->oom = true;
      return false;
    }
    s->stack = p;
    s->cap = ncap;
  }
  s->stack[s->depth++] = (work_t){a, b};
  return true;
}

/* What a var or function result is declared as: the annotation, or, when
 * none is written, the type inference gave it. Printing a typed module
 * writes the inferred types as annotations, so comparing effective types
 * keeps parse(print(m)) equal to m. */
static const rt_ir_type_t *var_type(const rt_ir_expr_t *v) {
  return v->var.annotation ? v->var.annotation : v->checked_type;
}

static const rt_ir_type_t *ret_type(const rt_ir_expr_t *fn) {
  if (fn->fn.ret_type) return fn->fn.ret_type;
  const rt_ir_type_t *t = rt_ir_type_resolve(fn->checked_type);
  return t && t->kind == RT_IR_TYPE_FUNC ? t->func.ret : NULL;
}

static bool bind(eq_state *s, const rt_ir_expr_t *a, const rt_ir_expr_t *b) {
  bool oom = false;
  var_map_t *x = NULL, *y = NULL;
  HASH_FIND(hh, s->a2b, &a->id, sizeof(uint32_t), x);
  HASH_FIND(hh, s->b2a, &b->id, sizeof(uint32_t), y);
  if (x || y) return x && y && x->other == b->id && y->other == a->id;
  if (!annotation_equal(var_type(a), var_type(b))) return false;
  x = rt_mem_calloc(1, sizeof *x);
  y = rt_mem_calloc(1, sizeof *y);
  if (!x || !y) {
    rt_mem_free(x);
    rt_mem_free(y);
    s->oom = true;
    return false;
  }
  x->id = a->id;
  x->other = b->id;
  y->id = b->id;
  y->other = a->id;
  HASH_ADD(hh, s->a2b, id, sizeof(uint32_t), x);
  if (oom) {
    rt_mem_free(x);
    rt_mem_free(y);
    s->oom = true;
    return false;
  }
  HASH_ADD(hh, s->b2a, id, sizeof(uint32_t), y);
  if (oom) {
    rt_mem_free(y);
    s->oom = true;
    return false;
  }
  return true;
}

static bool var_equal(eq_state *s, const rt_ir_expr_t *a, const rt_ir_expr_t *b) {
  var_map_t *x = NULL, *y = NULL;
  HASH_FIND(hh, s->a2b, &a->id, sizeof(uint32_t), x);
  HASH_FIND(hh, s->b2a, &b->id, sizeof(uint32_t), y);
  if (x || y) return x && y && x->other == b->id;
  /* Both free. */
  return strcmp(a->var.name, b->var.name) == 0 && annotation_equal(var_type(a), var_type(b));
}

/* Compares what is local to the pair and pushes the child pairs. */
static bool step(eq_state *s, const rt_ir_expr_t *a, const rt_ir_expr_t *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case RT_IR_VAR:
      return var_equal(s, a, b);
    case RT_IR_GLOBAL_VAR:
      return strcmp(a->global.name, b->global.name) == 0;
    case RT_IR_CONSTANT:
      return tensor_equal(a->constant.value, b->constant.value);
    case RT_IR_OP:
      return a->op.op == b->op.op;
    case RT_IR_CALL:
      if (a->call.nargs != b->call.nargs) return false;
      if (!attrs_equal(a->call.attrs, b->call.attrs)) return false;
      for (int32_t i = a->call.nargs - 1; i >= 0; --i) {
        if (!push(s, a->call.args[i], b->call.args[i])) return false;
      }
      return push(s, a->call.callee, b->call.callee);
    case RT_IR_TUPLE:
      if (a->tuple.count != b->tuple.count) return false;
      for (int32_t i = a->tuple.count - 1; i >= 0; --i) {
        if (!push(s, a->tuple.fields[i], b->tuple.fields[i])) return false;
      }
      return true;
    case RT_IR_TUPLE_GET_ITEM:
      if (a->get_item.index != b->get_item.index) return false;
      return push(s, a->get_item.tuple, b->get_item.tuple);
    case RT_IR_LET:
      if (!bind(s, a->let.var, b->let.var)) return false;
      return push(s, a->let.body, b->let.body) && push(s, a->let.value, b->let.value);
    case RT_IR_IF:
      return push(s, a->if_.else_branch, b->if_.else_branch) &&
             push(s, a->if_.then_branch, b->if_.then_branch) &&
             push(s, a->if_.cond, b->if_.cond);
    case RT_IR_FUNCTION:
      if (a->fn.nparams != b->fn.nparams) return false;
      if (!annotation_equal(ret_type(a), ret_type(b))) return false;
      if (!attrs_equal(a->fn.attrs, b->fn.attrs)) return false;
      for (int32_t i = 0; i < a->fn.nparams; ++i) {
        if (!bind(s, a->fn.params[i], b->fn.params[i])) return false;
      }
      return push(s, a->fn.body, b->fn.body);
  }
  return false;
}

static bool equal_with(eq_state *s, const rt_ir_expr_t *a, const rt_ir_expr_t *b) {
  bool oom = false;
  if (!push(s, a, b)) return false;
  while (s->depth > 0) {
    work_t w = s->stack[--s->depth];
    if (w.a == w.b && w.a->kind != RT_IR_VAR) continue;
    uint64_t key = (uint64_t)w.a->id << 32 | w.b->id;
    pair_t *p = NULL;
    HASH_FIND(hh, s->pairs, &key, sizeof key, p);
    if (p) continue;
    if (!step(s, w.a, w.b)) return false;
    p = rt_mem_calloc(1, sizeof *p);
    if (!p) {
      s->oom = true;
      return false;
    }
    p->key = key;
    HASH_ADD(hh, s->pairs, key, sizeof(uint64_t), p);
    if (oom) {
      rt_mem_free(p);
      s->oom = true;
      return false;
    }
  }
  return true;
}

static void eq_free(eq_state *s) {
  pair_t *p, *ptmp;
  HASH_ITER(hh, s->pairs, p, ptmp) {
    HASH_DEL(s->pairs, p);
    rt_mem_free(p);
  }
  var_map_t *v, *vtmp;
  HASH_ITER(hh, s->a2b, v, vtmp) {
    HASH_DEL(s->a2b, v);
    rt_mem_free(v);
  }
  HASH_ITER(hh, s->b2a, v, vtmp) {
    HASH_DEL(s->b2a, v);
    rt_mem_free(v);
  }
  rt_mem_free(s->stack);
}

bool rt_ir_struct_equal(const rt_ir_expr_t *a, const rt_ir_expr_t *b) {
  if (!a || !b) return a == b;
  eq_state s = {0};
  bool eq = equal_with(&s, a, b);
  eq_free(&s);
  return eq;
}

bool rt_ir_module_struct_equal(const rt_module_t *a, const rt_module_t *b) {
  if (a->num_globals != b->num_globals) return false;
  for (int32_t i = 0; i < a->num_globals; ++i) {
    if (strcmp(a->globals[i].name, b->globals[i].name) != 0) return false;
  }
  /* One state across globals: a free var shared by two globals maps
   * consistently. */
  eq_state s = {0};
  bool eq = true;
  for (int32_t i = 0; i < a->num_globals && eq; ++i) {
    eq = equal_with(&s, a->globals[i].fn, b->globals[i].fn);
  }
  eq_free(&s);
  return eq;
}

/* ---- hashing ------------------------------------------------------------- */

typedef struct {
  uint32_t id;
  uint64_t hash;
  UT_hash_handle hh;
} memo_t;

typedef struct {
  memo_t *memo;      /* node id -> hash */
  memo_t *binder;    /* var id -> binder tag (param position + 1, or 0 = let) */
  bool oom;
} hash_state;

static memo_t *memo_find(memo_t *table, uint32_t id) {
  memo_t *m = NULL;
  HASH_FIND(hh, table, &id, sizeof(uint32_t), m);
  return m;
}

static bool memo_put(memo_t **table, uint32_t id, uint64_t value) {
  bool oom = false;
  memo_t *m = rt_mem_calloc(1, sizeof *m);
  if (!m) return false;
  m->id = id;
  m->hash = value;
  HASH_ADD(hh, *table, id, sizeof(uint32_t), m);
  if (oom) {
    rt_mem_free(m);
    return false;
  }
  return true;
}

static uint64_t child_hash(hash_state *s, const rt_ir_expr_t *e) {
  memo_t *m = memo_find(s->memo, e->id);
  RT_ASSERT(m != NULL);
  return m ? m->hash : 0;
}

static rt_status_t hash_visit(void *user, rt_ir_expr_t *e) {
  hash_state *s = user;
  uint64_t h = mix(0x1234567, (uint64_t)e->kind);
  switch (e->kind) {
    case RT_IR_VAR: {
      memo_t *b = memo_find(s->binder, e->id);
      h = b ? mix(h, b->hash) : hash_string(mix(h, 0xf7ee), e->var.name);
      h = type_hash(h, var_type(e));
      break;
    }
    case RT_IR_GLOBAL_VAR:
      h = hash_string(h, e->global.name);
      break;
    case RT_IR_CONSTANT:
      h = tensor_hash(h, e->constant.value);
      break;
    case RT_IR_OP:
      h = hash_string(h, e->op.op->name);
      break;
    case RT_IR_CALL:
      h = mix(h, child_hash(s, e->call.callee));
      for (int32_t i = 0; i < e->call.nargs; ++i) h = mix(h, child_hash(s, e->call.args[i]));
      h = attrs_hash(h, e->call.attrs);
      break;
    case RT_IR_TUPLE:
      h = mix(h, (uint64_t)e->tuple.count);
      for (int32_t i = 0; i < e->tuple.count; ++i) h = mix(h, child_hash(s, e->tuple.fields[i]));
      break;
    case RT_IR_TUPLE_GET_ITEM:
      h = mix(mix(h, child_hash(s, e->get_item.tuple)), (uint64_t)e->get_item.index);
      break;
    case RT_IR_LET:
      h = mix(h, child_hash(s, e->let.var));
      h = mix(h, child_hash(s, e->let.value));
      h = mix(h, child_hash(s, e->let.body));
      break;
    case RT_IR_IF:
      h = mix(h, child_hash(s, e->if_.cond));
      h = mix(h, child_hash(s, e->if_.then_branch));
      h = mix(h, child_hash(s, e->if_.else_branch));
      break;
    case RT_IR_FUNCTION:
      h = mix(h, (uint64_t)e->fn.nparams);
      for (int32_t i = 0; i < e->fn.nparams; ++i) h = mix(h, child_hash(s, e->fn.params[i]));
      h = mix(h, child_hash(s, e->fn.body));
      h = type_hash(h, ret_type(e));
      h = attrs_hash(h, e->fn.attrs);
      break;
  }
  if (!memo_put(&s->memo, e->id, h)) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory hashing the IR");
  }
  return RT_OK;
}

/* Records what binds each var before the hashing walk. */
static rt_status_t binder_visit(void *user, rt_ir_expr_t *e) {
  hash_state *s = user;
  if (e->kind == RT_IR_FUNCTION) {
    for (int32_t i = 0; i < e->fn.nparams; ++i) {
      if (!memo_find(s->binder, e->fn.params[i]->id) &&
          !memo_put(&s->binder, e->fn.params[i]->id, (uint64_t)i + 1)) {
        return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory hashing the IR");
      }
    }
  } else if (e->kind == RT_IR_LET) {
    if (!memo_find(s->binder, e->let.var->id) &&
        !memo_put(&s->binder, e->let.var->id, 0)) {
      return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory hashing the IR");
    }
  }
  return RT_OK;
}

static void memo_clear(memo_t **table) {
  memo_t *m, *tmp;
  HASH_ITER(hh, *table, m, tmp) {
    HASH_DEL(*table, m);
    rt_mem_free(m);
  }
}

uint64_t rt_ir_struct_hash(const rt_ir_expr_t *expr) {
  if (!expr) return 0;
  hash_state s = {0};
  uint64_t h = 0;
  rt_ir_expr_t *root = (rt_ir_expr_t *)expr;
  rt_status_t st = rt_ir_post_order(rt_mem_current(), root, binder_visit, &s);
  if (!st) st = rt_ir_post_order(rt_mem_current(), root, hash_visit, &s);
  if (!st) {
    h = child_hash(&s, root);
  } else {
    /* Out of memory: fall back to a hash that is still consistent with
     * equality (kind only). */
    rt_status_free(st);
    h = mix(0x1234567, (uint64_t)expr->kind);
  }
  memo_clear(&s.memo);
  memo_clear(&s.binder);
  return h;
}
