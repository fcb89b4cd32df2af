/* The reference interpreter ("debug" executor): evaluates any Relay
 * expression of a typed module by walking the IR, calling the reference
 * kernels (interp/kernel.h) for op calls.
 *
 * Values are tensors, tuples, closures, lists and options (the built-in
 * ADTs, ir/ir.h; their ops run in interp/list.c), reference-counted. A function
 * activation keeps a memo from node id to value, so a `%N` shared node is
 * evaluated once per activation; each scope is evaluated by an iterative
 * post-order walk that stops at If branches, Let bodies and fn bodies, so a
 * long chain of bindings does not grow the C stack. Only nested scopes and
 * calls recurse, and call depth is limited (an error, not a crash).
 *
 * Dynamic shapes: when a call's checked type has `?` dims, the op's type
 * relation is run again on the argument tensors' concrete shapes to size the
 * outputs.
 *
 * Thread-safety: one rt_interp_t is used by one thread at a time. Many
 * interpreters may share one module. */
#ifndef RT_INTERP_INTERP_H_
#define RT_INTERP_INTERP_H_

#include "interp/kernel.h"
#include "ir/ir.h"

typedef enum rt_interp_value_kind_e {
  RT_INTERP_TENSOR,
  RT_INTERP_TUPLE,
  RT_INTERP_CLOSURE,
  RT_INTERP_LIST,      /* List[T]: `tuple` holds the elements */
  RT_INTERP_OPTION,    /* Option[T]: `tuple` holds none or one value */
} rt_interp_value_kind_t;

typedef struct rt_interp_env_t rt_interp_env_t;
typedef struct rt_interp_value_t rt_interp_value_t;

struct rt_interp_value_t {
  _Atomic int32_t refcount;
  rt_interp_value_kind_t kind;
  rt_allocator_t allocator;
  union {
    rt_tensor_t *tensor;
    struct { rt_interp_value_t **fields; int32_t count; } tuple; /* and LIST, OPTION */
    struct { rt_ir_expr_t *fn; rt_interp_env_t *env; } closure;
  };
};

/* Constructors return a new reference. value_tensor retains `t`;
 * value_tuple retains each field. */
RT_MUST_USE_RESULT rt_status_t rt_interp_value_tensor(rt_allocator_t a, rt_tensor_t *t,
                                                      rt_interp_value_t **out);
RT_MUST_USE_RESULT rt_status_t rt_interp_value_tuple(rt_allocator_t a, int32_t count,
                                                     rt_interp_value_t *const *fields,
                                                     rt_interp_value_t **out);
/* A list (kind RT_INTERP_LIST) or option (RT_INTERP_OPTION, count 0 or 1)
 * of `count` values, each retained. */
RT_MUST_USE_RESULT rt_status_t rt_interp_value_adt(rt_allocator_t a, rt_interp_value_kind_t kind,
                                                   int32_t count,
                                                   rt_interp_value_t *const *items,
                                                   rt_interp_value_t **out);
void rt_interp_value_retain(rt_interp_value_t *v);
void rt_interp_value_release(rt_interp_value_t *v);

/* What a stepping hook sees. `text` is the binding's one-line form
 * ("%3 = nn.relu(%2)"); `value` is NULL before evaluation. */
typedef struct rt_interp_event_t {
  const rt_ir_expr_t *expr;
  const char *text;
  const rt_interp_value_t *value;
  int32_t call_depth;
  bool in_primitive;             /* inside a fused group (step_into_primitive) */
} rt_interp_event_t;

/* Called before and after each binding (every non-atomic node: call,
 * tuple, projection, if, let, fn). A non-NULL status stops evaluation and is
 * returned by the evaluating call (CANCELLED for a user stop). */
typedef rt_status_t (*rt_interp_hook_fn)(void *user, const rt_interp_event_t *event);

typedef struct rt_interp_options_t {
  int32_t max_call_depth;        /* 0 = default (1000) */
  uint64_t max_tensor_bytes;     /* 0 = default (16 GiB): per tensor */
  rt_interp_hook_fn before;      /* may be NULL */
  rt_interp_hook_fn after;       /* may be NULL */
  void *hook_user;
  /* Hooks fire inside Primitive functions' bodies too (by default a fused
   * group is one step, like the kernel it becomes). */
  bool step_into_primitive;
} rt_interp_options_t;

typedef struct rt_interp_t rt_interp_t;

/* Retains the module, which must be typed. */
RT_MUST_USE_RESULT rt_status_t rt_interp_create(rt_allocator_t allocator, rt_module_t *module,
                                                const rt_interp_options_t *options,
                                                rt_interp_t **out_interp);
void rt_interp_release(rt_interp_t *interp);
void rt_interp_set_hooks(rt_interp_t *interp, rt_interp_hook_fn before,
                         rt_interp_hook_fn after, void *user);
/* Sets options.step_into_primitive. */
void rt_interp_set_step_into_primitive(rt_interp_t *interp, bool enter);

/* Calls global `name` with argument values (borrowed); *out_value is a new
 * reference. Argument count and types are checked against the signature
 * (`?` dims accept any size). */
RT_MUST_USE_RESULT rt_status_t rt_interp_call_global(rt_interp_t *interp, const char *name,
                                                     int32_t nargs,
                                                     rt_interp_value_t *const *args,
                                                     rt_interp_value_t **out_value);

/* INVALID_ARGUMENT "<what>: expected <type>, got <value>" unless `value`
 * fits `type` as an argument of that type must (`?` dims take any size). */
RT_MUST_USE_RESULT rt_status_t rt_interp_check_value(const rt_interp_value_t *value,
                                                     const rt_ir_type_t *type, const char *what);

/* Evaluates a closed expression of the module (no free vars except those
 * given in `bindings`: var node -> value). */
RT_MUST_USE_RESULT rt_status_t rt_interp_eval(rt_interp_t *interp, rt_ir_expr_t *expr,
                                              int32_t nbindings,
                                              rt_ir_expr_t *const *vars,
                                              rt_interp_value_t *const *values,
                                              rt_interp_value_t **out_value);

/* One op applied to tensors (the optest path and FoldConstant): runs the
 * type relation on the concrete types, allocates the outputs, calls the
 * kernel. `attrs` may be NULL (defaults). */
RT_MUST_USE_RESULT rt_status_t rt_interp_apply_op(rt_interp_t *interp, const rt_ir_op_t *op,
                                                  const rt_ir_attrs_t *attrs,
                                                  int32_t nargs,
                                                  rt_interp_value_t *const *args,
                                                  rt_interp_value_t **out_value);

#endif /* RT_INTERP_INTERP_H_ */
