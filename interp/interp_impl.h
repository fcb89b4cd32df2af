/* Internal to interp/: environments and the interpreter object. */
#ifndef RT_INTERP_INTERP_IMPL_H_
#define RT_INTERP_INTERP_IMPL_H_

#include <stdatomic.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (oom = true)
#include "runtime/uthash_rt.h"

#include "interp/interp.h"

typedef struct rt_interp_binding_t {
  uint32_t id;                /* var node id */
  rt_interp_value_t *value;   /* one reference */
  UT_hash_handle hh;
} rt_interp_binding_t;

struct rt_interp_env_t {
  _Atomic int32_t refcount;
  rt_allocator_t allocator;
  rt_interp_env_t *parent;    /* one reference; NULL at the root */
  rt_interp_binding_t *table;
};

RT_MUST_USE_RESULT rt_status_t rt_interp_env_create(rt_allocator_t a, rt_interp_env_t *parent,
                                                    rt_interp_env_t **out);
void rt_interp_env_retain(rt_interp_env_t *env);
void rt_interp_env_release(rt_interp_env_t *env);
/* Binds (or rebinds) var in this frame; retains value. */
RT_MUST_USE_RESULT rt_status_t rt_interp_env_bind(rt_interp_env_t *env, const rt_ir_expr_t *var,
                                                  rt_interp_value_t *value);
/* Borrowed value of var in this frame or a parent; NULL if unbound. */
rt_interp_value_t *rt_interp_env_lookup(const rt_interp_env_t *env, const rt_ir_expr_t *var);

RT_MUST_USE_RESULT rt_status_t rt_interp_value_closure(rt_allocator_t a, rt_ir_expr_t *fn,
                                                       rt_interp_env_t *env,
                                                       rt_interp_value_t **out);

/* The free variables of one fn literal, computed once. */
typedef struct rt_interp_free_vars_t {
  uint32_t fn_id;
  int32_t count;
  const rt_ir_expr_t **vars;
  UT_hash_handle hh;
} rt_interp_free_vars_t;

struct rt_interp_t {
  rt_allocator_t allocator;
  rt_interp_free_vars_t *free_vars; /* fn id -> its free vars */
  int32_t in_primitive;       /* > 0 inside a fused group's body: no hooks */
  rt_module_t *module;        /* retained */
  rt_module_t *scratch;       /* types made at run time (dynamic shapes) */
  rt_interp_options_t options;
  int32_t depth;              /* current call depth */
};

/* The list and option ops (ir/ops.def family adt), run on values by
 * interp/list.c: args are the call's argument values (borrowed), *out a
 * new reference. Value errors (a position out of range, option.get of an
 * empty option) are INVALID_ARGUMENT naming the op. */
bool rt_interp_is_adt_op(const rt_ir_op_t *op);
RT_MUST_USE_RESULT rt_status_t rt_interp_adt_apply(rt_interp_t *it, const rt_ir_op_t *op,
                                                   const rt_ir_attrs_t *attrs, int32_t nargs,
                                                   rt_interp_value_t *const *args,
                                                   rt_interp_value_t **out);

#endif /* RT_INTERP_INTERP_IMPL_H_ */
