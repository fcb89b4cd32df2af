/* Interpreter values (tensor, tuple, closure, list, option) and environments (chains of
 * frames mapping var ids to values; a closure keeps its defining frame
 * alive). Both are reference-counted; a value or frame is freed, with what
 * it holds, when its last reference goes. */
#include <stdlib.h>
#include <string.h>

#include "interp/interp_impl.h"
#include "runtime/assert.h"

static rt_status_t new_value(rt_allocator_t a, rt_interp_value_kind_t kind,
                             rt_interp_value_t **out) {
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(a, sizeof(rt_interp_value_t), 16, true, &p));
  rt_interp_value_t *v = p;
  atomic_init(&v->refcount, 1);
  v->kind = kind;
  v->allocator = a;
  *out = v;
  return RT_OK;
}

rt_status_t rt_interp_value_tensor(rt_allocator_t a, rt_tensor_t *t, rt_interp_value_t **out) {
  rt_interp_value_t *v = NULL;
  RT_RETURN_IF_ERROR(new_value(a, RT_INTERP_TENSOR, &v));
  rt_tensor_retain(t);
  v->tensor = t;
  *out = v;
  return RT_OK;
}

rt_status_t rt_interp_value_tuple(rt_allocator_t a, int32_t count,
                                  rt_interp_value_t *const *fields, rt_interp_value_t **out) {
  return rt_interp_value_adt(a, RT_INTERP_TUPLE, count, fields, out);
}

rt_status_t rt_interp_value_adt(rt_allocator_t a, rt_interp_value_kind_t kind, int32_t count,
                                rt_interp_value_t *const *fields, rt_interp_value_t **out) {
  RT_ASSERT(kind == RT_INTERP_TUPLE || kind == RT_INTERP_LIST || kind == RT_INTERP_OPTION);
  rt_interp_value_t *v = NULL;
  RT_RETURN_IF_ERROR(new_value(a, kind, &v));
  if (count > 0) {
    void *p = NULL;
    rt_status_t st = rt_allocator_malloc(a, (size_t)count * sizeof(rt_interp_value_t *), 8,
                                         false, &p);
    if (st) {
      rt_allocator_free(a, v);
      return st;
    }
    v->tuple.fields = p;
    for (int32_t i = 0; i < count; ++i) {
      rt_interp_value_retain(fields[i]);
      v->tuple.fields[i] = fields[i];
    }
  }
  v->tuple.count = count;
  *out = v;
  return RT_OK;
}

rt_status_t rt_interp_value_closure(rt_allocator_t a, rt_ir_expr_t *fn, rt_interp_env_t *env,
                                    rt_interp_value_t **out) {
  rt_interp_value_t *v = NULL;
  RT_RETURN_IF_ERROR(new_value(a, RT_INTERP_CLOSURE, &v));
  v->closure.fn = fn;
  v->closure.env = env;
  rt_interp_env_retain(env);
  *out = v;
  return RT_OK;
}

void rt_interp_value_retain(rt_interp_value_t *v) {
  if (v) atomic_fetch_add(&v->refcount, 1);
}

void rt_interp_value_release(rt_interp_value_t *v) {
  if (!v || atomic_fetch_sub(&v->refcount, 1) != 1) return;
  switch (v->kind) {
    case RT_INTERP_TENSOR:
      rt_tensor_release(v->tensor);
      break;
    case RT_INTERP_TUPLE:
    case RT_INTERP_LIST:
    case RT_INTERP_OPTION:
      for (int32_t i = 0; i < v->tuple.count; ++i) rt_interp_value_release(v->tuple.fields[i]);
      rt_allocator_free(v->allocator, v->tuple.fields);
      break;
    case RT_INTERP_CLOSURE:
      rt_interp_env_release(v->closure.env);
      break;
  }
  rt_allocator_free(v->allocator, v);
}

/* ---- environments -------------------------------------------------------- */

rt_status_t rt_interp_env_create(rt_allocator_t a, rt_interp_env_t *parent,
                                 rt_interp_env_t **out) {
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(a, sizeof(rt_interp_env_t), 16, true, &p));
  rt_interp_env_t *e = p;
  atomic_init(&e->refcount, 1);
  e->allocator = a;
  e->parent = parent;
  rt_interp_env_retain(parent);
  *out = e;
  return RT_OK;
}

void rt_interp_env_retain(rt_interp_env_t *env) {
  if (env) atomic_fetch_add(&env->refcount, 1);
}

void rt_interp_env_release(rt_interp_env_t *env) {
  /* Iterative over the parent chain: releasing a deep chain of frames does
   * not recurse. */
  while (env && atomic_fetch_sub(&env->refcount, 1) == 1) {
    rt_interp_env_t *parent = env->parent;
    rt_interp_binding_t *b, *tmp;
    HASH_ITER(hh, env->table, b, tmp) {
      HASH_DEL(env->table, b);
      rt_interp_value_release(b->value);
      rt_allocator_free(env->allocator, b);
    }
    rt_allocator_free(env->allocator, env);
    env = parent;
  }
}

rt_status_t rt_interp_env_bind(rt_interp_env_t *env, const rt_ir_expr_t *var,
                               rt_interp_value_t *value) {
  bool oom = false;
  rt_interp_binding_t *b = NULL;
  HASH_FIND(hh, env->table, &var->id, sizeof(uint32_t), b);
  if (b) {
    rt_interp_value_retain(value);
    rt_interp_value_release(b->value);
    b->value = value;
    return RT_OK;
  }
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(env->allocator, sizeof(rt_interp_binding_t), 8, true, &p));
  b = p;
  b->id = var->id;
  rt_interp_value_retain(value);
  b->value = value;
  HASH_ADD(hh, env->table, id, sizeof(uint32_t), b);
  if (oom) {
    rt_interp_value_release(value);
    rt_allocator_free(env->allocator, b);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory binding %%%s", var->var.name);
  }
  return RT_OK;
}

rt_interp_value_t *rt_interp_env_lookup(const rt_interp_env_t *env, const rt_ir_expr_t *var) {
  for (; env; env = env->parent) {
    rt_interp_binding_t *b = NULL;
    HASH_FIND(hh, env->table, &var->id, sizeof(uint32_t), b);
    if (b) return b->value;
  }
  return NULL;
}
