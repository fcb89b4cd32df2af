/* The evaluator: walks a typed module's IR and computes values.
 *
 * eval(act, e) computes e in activation `act` (a function call: its
 * environment frame and a memo from node id to value). A let chain is
 * followed iteratively; then e's scope is walked in post order with an
 * explicit stack over "scope children" (callee and args, tuple fields, the
 * projected tuple, an if's condition, a let's value) — If branches, let
 * bodies and fn bodies are not entered: they are evaluated when their node
 * executes, which is the only place the C stack grows (once per nesting
 * level or call, bounded by max_call_depth).
 *
 * A closure captures the values of its free variables (computed once per
 * fn literal), never its defining frame, so closures bound by let cannot
 * form reference cycles. Hooks do not fire inside a Primitive function's
 * body: a fused group is one step, as its kernel will be.
 *
 * Op calls (apply_op) flatten tuple arguments, size the outputs from the
 * node's checked type — or, when it has `?` dims, by running the op's type
 * relation on the concrete argument shapes — allocate them, and call the
 * reference kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_impl.h"
#include "interp/custom.h"
#include "runtime/assert.h"
#include "runtime/size.h"
#include "runtime/strbuf.h"
#include "runtime/tensor_impl.h"
#include "runtime/mem.h"

#define DEFAULT_MAX_DEPTH 1000
#define DEFAULT_MAX_TENSOR_BYTES (UINT64_C(16) << 30)
#define MAX_FLAT 256 /* tensors in one op call's args or outputs */

typedef struct memo_entry {
  uint32_t id;
  rt_interp_value_t *value;
  UT_hash_handle hh;
} memo_entry;

typedef struct activation {
  rt_interp_t *it;
  rt_interp_env_t *env;  /* one reference */
  memo_entry *memo;
} activation;

static rt_status_t eval(activation *act, rt_ir_expr_t *e, rt_interp_value_t **out);

/* ---- memo ---------------------------------------------------------------- */

static rt_interp_value_t *memo_get(const activation *act, const rt_ir_expr_t *e) {
  memo_entry *m = NULL;
  HASH_FIND(hh, act->memo, &e->id, sizeof(uint32_t), m);
  return m ? m->value : NULL;
}

/* Takes over the caller's reference to v. */
static rt_status_t memo_put(activation *act, const rt_ir_expr_t *e, rt_interp_value_t *v) {
  bool oom = false;
  memo_entry *m = rt_mem_calloc(1, sizeof *m);
  if (!m) {
    rt_interp_value_release(v);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in the interpreter");
  }
  m->id = e->id;
  m->value = v;
  HASH_ADD(hh, act->memo, id, sizeof(uint32_t), m);
  if (oom) {
    rt_interp_value_release(v);
    rt_mem_free(m);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in the interpreter");
  }
  return RT_OK;
}

static void activation_finish(activation *act) {
  memo_entry *m, *tmp;
  HASH_ITER(hh, act->memo, m, tmp) {
    HASH_DEL(act->memo, m);
    rt_interp_value_release(m->value);
    rt_mem_free(m);
  }
  rt_interp_env_release(act->env);
  act->env = NULL;
}

/* ---- messages ------------------------------------------------------------ */

/* Annotates an error with the binding being evaluated and its position. */
static rt_status_t at_node(rt_status_t st, const rt_ir_expr_t *e) {
  if (!st) return st;
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_ir_describe_binding(e, &b);
  if (e->span.source) {
    st = rt_status_annotate(st, "evaluating %s at %s:%d:%d", b.data ? b.data : "",
                            e->span.source->name, (int)e->span.line, (int)e->span.col);
  } else {
    st = rt_status_annotate(st, "evaluating %s", b.data ? b.data : "");
  }
  rt_strbuf_deinitialize(&b);
  return st;
}

static rt_status_t fire(rt_interp_t *it, rt_interp_hook_fn hook, const rt_ir_expr_t *e,
                        const rt_interp_value_t *value) {
  /* A fused group is one step, like the kernel it becomes, unless asked. */
  if (!hook || (it->in_primitive > 0 && !it->options.step_into_primitive)) return RT_OK;
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_ir_describe_binding(e, &b);
  /* @main runs at depth 1 inside the interpreter; events count from 0. */
  rt_interp_event_t ev = {e, b.data ? b.data : "", value, it->depth > 0 ? it->depth - 1 : 0,
                          it->in_primitive > 0};
  rt_status_t st = hook(it->options.hook_user, &ev);
  rt_strbuf_deinitialize(&b);
  return st;
}

/* ---- types vs values ----------------------------------------------------- */

static bool type_is_static(const rt_ir_type_t *t) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (!t) return false;
  switch (t->kind) {
    case RT_IR_TYPE_TENSOR:
      for (int32_t i = 0; i < t->tensor.rank; ++i) {
        if (t->tensor.shape[i] == RT_DIM_ANY) return false;
      }
      return true;
    case RT_IR_TYPE_TUPLE:
      for (int32_t i = 0; i < t->tuple.count; ++i) {
        if (!type_is_static(t->tuple.fields[i])) return false;
      }
      return true;
    default:
      return false;
  }
}

/* The concrete type of a value (closures have none: error). */
static rt_status_t value_type(rt_module_t *scratch, const rt_interp_value_t *v,
                              rt_ir_type_t **out) {
  switch (v->kind) {
    case RT_INTERP_TENSOR:
      return rt_ir_tensor_type(scratch, rt_tensor_dtype(v->tensor), rt_tensor_rank(v->tensor),
                               rt_tensor_shape(v->tensor), out);
    case RT_INTERP_TUPLE: {
      rt_ir_type_t *fields[MAX_FLAT];
      if (v->tuple.count > MAX_FLAT) {
        return RT_STATUS(RESOURCE_EXHAUSTED, "tuple of %d fields is too large",
                         (int)v->tuple.count);
      }
      for (int32_t i = 0; i < v->tuple.count; ++i) {
        RT_RETURN_IF_ERROR(value_type(scratch, v->tuple.fields[i], &fields[i]));
      }
      return rt_ir_tuple_type(scratch, v->tuple.count, fields, out);
    }
    case RT_INTERP_CLOSURE:
      return RT_STATUS(INVALID_ARGUMENT, "a closure cannot be an op argument");
    case RT_INTERP_LIST:
    case RT_INTERP_OPTION:
      /* Only the list and option ops take these, and their relations read
       * no more than the element's kind, dtype and rank: the first
       * element's type stands for all (an empty one is a 0-d float32). */
      {
        rt_ir_type_t *elem = NULL;
        if (v->tuple.count > 0) {
          RT_RETURN_IF_ERROR(value_type(scratch, v->tuple.fields[0], &elem));
        } else {
          RT_RETURN_IF_ERROR(rt_ir_tensor_type(scratch, (rt_dtype_t){kDLFloat, 32, 1}, 0, NULL,
                                               &elem));
        }
        return rt_ir_adt_type(scratch, v->kind == RT_INTERP_LIST ? RT_IR_TYPE_LIST
                                                                 : RT_IR_TYPE_OPTION,
                              elem, out);
      }
  }
  return RT_STATUS(INTERNAL, "bad value kind");
}

/* Does value v fit declared type t (`?` matches any dim)? */
static bool value_fits(const rt_interp_value_t *v, const rt_ir_type_t *t) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (!t || t->kind == RT_IR_TYPE_INCOMPLETE) return true;
  switch (v->kind) {
    case RT_INTERP_TENSOR: {
      if (t->kind != RT_IR_TYPE_TENSOR) return false;
      if (!rt_dtype_equal(t->tensor.dtype, rt_tensor_dtype(v->tensor))) return false;
      if (t->tensor.rank != rt_tensor_rank(v->tensor)) return false;
      const int64_t *shape = rt_tensor_shape(v->tensor);
      for (int32_t i = 0; i < t->tensor.rank; ++i) {
        if (t->tensor.shape[i] != RT_DIM_ANY && t->tensor.shape[i] != shape[i]) return false;
      }
      return true;
    }
    case RT_INTERP_TUPLE:
      if (t->kind != RT_IR_TYPE_TUPLE || t->tuple.count != v->tuple.count) return false;
      for (int32_t i = 0; i < v->tuple.count; ++i) {
        if (!value_fits(v->tuple.fields[i], t->tuple.fields[i])) return false;
      }
      return true;
    case RT_INTERP_CLOSURE:
      return t->kind == RT_IR_TYPE_FUNC;
    case RT_INTERP_LIST:
    case RT_INTERP_OPTION:
      if (t->kind != (v->kind == RT_INTERP_LIST ? RT_IR_TYPE_LIST : RT_IR_TYPE_OPTION)) {
        return false;
      }
      for (int32_t i = 0; i < v->tuple.count; ++i) {
        if (!value_fits(v->tuple.fields[i], t->adt.elem)) return false;
      }
      return true;
  }
  return false;
}

static void describe_value(const rt_interp_value_t *v, rt_strbuf_t *out) {
  char name[RT_DTYPE_NAME_MAX];
  switch (v->kind) {
    case RT_INTERP_TENSOR:
      if (rt_tensor_rank(v->tensor) == 0) {
        rt_strbuf_puts(out, rt_dtype_name(rt_tensor_dtype(v->tensor), name));
        return;
      }
      rt_strbuf_puts(out, "Tensor[");
      rt_ir_shape_print(rt_tensor_rank(v->tensor), rt_tensor_shape(v->tensor), out);
      rt_strbuf_printf(out, ", %s]", rt_dtype_name(rt_tensor_dtype(v->tensor), name));
      return;
    case RT_INTERP_TUPLE:
      rt_strbuf_putc(out, '(');
      for (int32_t i = 0; i < v->tuple.count; ++i) {
        if (i) rt_strbuf_puts(out, ", ");
        describe_value(v->tuple.fields[i], out);
      }
      if (v->tuple.count == 1) rt_strbuf_putc(out, ',');
      rt_strbuf_putc(out, ')');
      return;
    case RT_INTERP_CLOSURE:
      rt_strbuf_puts(out, "closure");
      return;
    case RT_INTERP_LIST:
    case RT_INTERP_OPTION:
      rt_strbuf_puts(out, v->kind == RT_INTERP_LIST ? "List[" : "Option[");
      for (int32_t i = 0; i < v->tuple.count; ++i) {
        if (i) rt_strbuf_puts(out, ", ");
        describe_value(v->tuple.fields[i], out);
      }
      rt_strbuf_putc(out, ']');
      return;
  }
}

static rt_status_t type_mismatch(const char *what, const rt_ir_type_t *t,
                                 const rt_interp_value_t *v) {
  rt_strbuf_t a, b;
  rt_strbuf_initialize(&a);
  rt_strbuf_initialize(&b);
  rt_ir_type_print(t, &a);
  describe_value(v, &b);
  rt_status_t st = RT_STATUS(INVALID_ARGUMENT, "%s: expected %s, got %s", what,
                             a.data ? a.data : "", b.data ? b.data : "");
  rt_strbuf_deinitialize(&a);
  rt_strbuf_deinitialize(&b);
  return st;
}

rt_status_t rt_interp_check_value(const rt_interp_value_t *v, const rt_ir_type_t *type,
                                  const char *what) {
  return value_fits(v, (rt_ir_type_t *)type) ? RT_OK : type_mismatch(what, type, v);
}

/* ---- op calls ------------------------------------------------------------ */

/* Appends the leaves of a tensor-or-tuple-of-tensors value. */
static rt_status_t flatten(const rt_interp_value_t *v, rt_tensor_t **flat, int32_t *n) {
  if (v->kind == RT_INTERP_TENSOR) {
    if (*n >= MAX_FLAT) return RT_STATUS(RESOURCE_EXHAUSTED, "too many tensors in one op call");
    flat[(*n)++] = v->tensor;
    return RT_OK;
  }
  if (v->kind == RT_INTERP_TUPLE) {
    for (int32_t i = 0; i < v->tuple.count; ++i) {
      if (v->tuple.fields[i]->kind != RT_INTERP_TENSOR) {
        return RT_STATUS(INVALID_ARGUMENT, "an op argument tuple must hold tensors");
      }
      RT_RETURN_IF_ERROR(flatten(v->tuple.fields[i], flat, n));
    }
    return RT_OK;
  }
  return RT_STATUS(INVALID_ARGUMENT, "a %s cannot be an argument of a tensor op",
                   v->kind == RT_INTERP_CLOSURE ? "closure"
                   : v->kind == RT_INTERP_LIST  ? "list"
                                                : "option");
}

/* Leaves of the output type: allocate each static tensor (NULL for `?`). */
static rt_status_t alloc_outputs(rt_interp_t *it, const rt_ir_type_t *t, rt_tensor_t **outs,
                                 int32_t *n) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (t->kind == RT_IR_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->tuple.count; ++i) {
      RT_RETURN_IF_ERROR(alloc_outputs(it, t->tuple.fields[i], outs, n));
    }
    return RT_OK;
  }
  if (t->kind != RT_IR_TYPE_TENSOR) {
    return RT_STATUS(INTERNAL, "an op returned a non-tensor type");
  }
  if (*n >= MAX_FLAT) return RT_STATUS(RESOURCE_EXHAUSTED, "too many outputs in one op call");
  int32_t slot = (*n)++;
  outs[slot] = NULL;
  if (!type_is_static(t)) return RT_OK;
  size_t bytes = 0;
  RT_RETURN_IF_ERROR(rt_size_of_shape(t->tensor.rank, t->tensor.shape,
                                      rt_dtype_size(t->tensor.dtype), &bytes));
  if ((uint64_t)bytes > it->options.max_tensor_bytes) {
    return RT_STATUS(RESOURCE_EXHAUSTED,
                     "an output of %zu bytes is past the interpreter's limit of %llu bytes",
                     bytes, (unsigned long long)it->options.max_tensor_bytes);
  }
  return rt_tensor_create(it->allocator, t->tensor.dtype, t->tensor.rank, t->tensor.shape,
                          &outs[slot]);
}

/* Wraps the flat outputs back into the shape of the type. */
static rt_status_t wrap_outputs(rt_interp_t *it, const rt_ir_type_t *t, rt_tensor_t **outs,
                                int32_t *i, rt_interp_value_t **out) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (t->kind == RT_IR_TYPE_TUPLE) {
    rt_interp_value_t *fields[MAX_FLAT];
    rt_status_t st = RT_OK;
    int32_t made = 0;
    for (; made < t->tuple.count && !st; ++made) {
      st = wrap_outputs(it, t->tuple.fields[made], outs, i, &fields[made]);
      if (st) break;
    }
    if (!st) st = rt_interp_value_tuple(it->allocator, t->tuple.count, fields, out);
    for (int32_t k = 0; k < made; ++k) rt_interp_value_release(fields[k]);
    return st;
  }
  return rt_interp_value_tensor(it->allocator, outs[(*i)++], out);
}

static rt_status_t check_output(const rt_ir_type_t *t, rt_tensor_t *o, int32_t index) {
  if (!o) return RT_STATUS(INTERNAL, "the kernel did not produce output %d", (int)index);
  if (t->kind != RT_IR_TYPE_TENSOR) return RT_OK;
  if (!rt_dtype_equal(t->tensor.dtype, rt_tensor_dtype(o)) ||
      t->tensor.rank != rt_tensor_rank(o)) {
    return RT_STATUS(INTERNAL, "output %d of the kernel has the wrong dtype or rank", (int)index);
  }
  for (int32_t d = 0; d < t->tensor.rank; ++d) {
    if (t->tensor.shape[d] != RT_DIM_ANY && t->tensor.shape[d] != rt_tensor_shape(o)[d]) {
      return RT_STATUS(INTERNAL, "output %d of the kernel has the wrong shape", (int)index);
    }
  }
  return RT_OK;
}

static void collect_leaf_types(const rt_ir_type_t *t, const rt_ir_type_t **leaves, int32_t *n) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (t->kind == RT_IR_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->tuple.count; ++i) collect_leaf_types(t->tuple.fields[i], leaves, n);
    return;
  }
  if (*n < MAX_FLAT) leaves[(*n)++] = t;
}

/* Runs `op` on argument values. `static_type` is the call's checked type
 * when it has no `?` (NULL otherwise: computed here). */
static rt_status_t apply(rt_interp_t *it, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                         int32_t nargs, rt_interp_value_t *const *args,
                         const rt_ir_type_t *static_type, rt_interp_value_t **out) {
  rt_status_t st = RT_OK;
  rt_tensor_t *flat[MAX_FLAT];
  rt_tensor_t *compact[MAX_FLAT];
  rt_tensor_t *outs[MAX_FLAT];
  int32_t arity[MAX_FLAT];
  int32_t nflat = 0, nouts = 0;
  memset(compact, 0, sizeof compact);
  memset(outs, 0, sizeof outs);
  if (nargs != op->num_inputs) {
    return RT_STATUS(INVALID_ARGUMENT, "%s takes %d arguments, got %d", op->name,
                     (int)op->num_inputs, (int)nargs);
  }
  if (nargs > MAX_FLAT) return RT_STATUS(RESOURCE_EXHAUSTED, "too many arguments");
  rt_ir_attrs_t *defaults = NULL;
  if (!attrs) {
    RT_RETURN_IF_ERROR(rt_ir_op_attrs(it->scratch, (rt_ir_span_t){0}, op, 0, NULL, NULL, &defaults));
    attrs = defaults;
  }
  /* The list and option ops compute on values, not flat tensors. */
  if (rt_interp_is_adt_op(op)) return rt_interp_adt_apply(it, op, attrs, nargs, args, out);
  for (int32_t i = 0; i < nargs && !st; ++i) {
    int32_t before = nflat;
    st = flatten(args[i], flat, &nflat);
    arity[i] = nflat - before;
  }
  const rt_ir_type_t *out_type = static_type;
  if (!st && !out_type) {
    rt_ir_type_t *arg_types[MAX_FLAT];
    for (int32_t i = 0; i < nargs && !st; ++i) st = value_type(it->scratch, args[i], &arg_types[i]);
    if (!st) {
      rt_ir_rel_ctx_t rc = {it->scratch, op, attrs, nargs, arg_types};
      rt_ir_type_t *t = NULL;
      st = op->type_rel(&rc, &t);
      out_type = t;
    }
  }
  /* Kernels may assume compact arguments. */
  for (int32_t i = 0; i < nflat && !st; ++i) {
    if (!rt_tensor_is_compact(flat[i])) {
      st = rt_tensor_clone(it->allocator, flat[i], &compact[i]);
      if (!st) flat[i] = compact[i];
    }
  }
  if (!st) st = alloc_outputs(it, out_type, outs, &nouts);
  if (!st) {
    rt_interp_kernel_fn kernel = op->id < RT_OP_COUNT ? rt_interp_kernel((rt_op_id_t)op->id) : NULL;
    if (op->custom) {
      /* A custom op (rt/op.h): its reference kernel. */
      st = rt_interp_custom_reference(op, attrs, nflat, flat, nouts, outs);
    } else if (!kernel) {
      st = RT_STATUS(UNIMPLEMENTED, "%s has no reference kernel", op->name);
    } else {
      rt_interp_call_t call = {it->allocator, op, attrs, nflat, flat, nargs, arity,
                               nouts, outs, out_type};
      st = kernel(&call);
    }
  }
  if (!st) {
    const rt_ir_type_t *leaves[MAX_FLAT];
    int32_t nleaves = 0;
    collect_leaf_types(out_type, leaves, &nleaves);
    for (int32_t i = 0; i < nouts && !st; ++i) st = check_output(leaves[i], outs[i], i);
  }
  if (!st) {
    int32_t k = 0;
    st = wrap_outputs(it, out_type, outs, &k, out);
  }
  for (int32_t i = 0; i < nflat; ++i) rt_tensor_release(compact[i]);
  for (int32_t i = 0; i < nouts; ++i) rt_tensor_release(outs[i]);
  return st;
}

/* ---- calls of closures --------------------------------------------------- */

static rt_status_t invoke(rt_interp_t *it, const rt_interp_value_t *closure, int32_t nargs,
                          rt_interp_value_t *const *args, rt_interp_value_t **out) {
  RT_ASSERT(closure->kind == RT_INTERP_CLOSURE);
  rt_ir_expr_t *fn = closure->closure.fn;
  if (nargs != fn->fn.nparams) {
    return RT_STATUS(INVALID_ARGUMENT, "the function takes %d arguments, got %d",
                     (int)fn->fn.nparams, (int)nargs);
  }
  if (it->depth >= it->options.max_call_depth) {
    return RT_STATUS(RESOURCE_EXHAUSTED,
                     "call depth limit of %d exceeded (deep or unbounded recursion)",
                     (int)it->options.max_call_depth);
  }
  activation act = {it, NULL, NULL};
  rt_status_t st = rt_interp_env_create(it->allocator, closure->closure.env, &act.env);
  for (int32_t i = 0; !st && i < nargs; ++i) {
    const rt_ir_expr_t *p = fn->fn.params[i];
    rt_ir_type_t *declared = p->checked_type ? p->checked_type : p->var.annotation;
    if (!value_fits(args[i], declared)) {
      char what[160];
      snprintf(what, sizeof what, "argument %d (%%%s)", (int)i + 1, p->var.name);
      st = type_mismatch(what, declared, args[i]);
      break;
    }
    st = rt_interp_env_bind(act.env, p, args[i]);
  }
  if (!st) {
    bool primitive = rt_ir_is_primitive(fn);
    it->depth++;
    it->in_primitive += primitive;
    st = eval(&act, fn->fn.body, out);
    it->in_primitive -= primitive;
    it->depth--;
  }
  activation_finish(&act);
  return st;
}

/* ---- nodes --------------------------------------------------------------- */

/* ---- closures ------------------------------------------------------------ */

typedef struct {
  rt_interp_t *it;
  uint32_t *bound;   /* ids bound inside the fn (params, lets): a small set */
  int32_t nbound, cap_bound;
  const rt_ir_expr_t **used;
  int32_t nused, cap_used;
  bool oom;
} fv_walk;

static bool id_in(const uint32_t *ids, int32_t n, uint32_t id) {
  for (int32_t i = 0; i < n; ++i) {
    if (ids[i] == id) return true;
  }
  return false;
}

static rt_status_t fv_visit(void *user, rt_ir_expr_t *e) {
  fv_walk *w = user;
  if (e->kind == RT_IR_FUNCTION || e->kind == RT_IR_LET) {
    int32_t n = e->kind == RT_IR_FUNCTION ? e->fn.nparams : 1;
    for (int32_t i = 0; i < n; ++i) {
      const rt_ir_expr_t *v = e->kind == RT_IR_FUNCTION ? e->fn.params[i] : e->let.var;
      if (w->nbound == w->cap_bound) {
        int32_t cap = w->cap_bound ? w->cap_bound * 2 : 16;
        uint32_t *p = rt_mem_realloc(w->bound, (size_t)cap * sizeof *p);
        if (!p) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in the interpreter");
        w->bound = p;
        w->cap_bound = cap;
      }
      w->bound[w->nbound++] = v->id;
    }
  } else if (e->kind == RT_IR_VAR) {
    if (w->nused == w->cap_used) {
      int32_t cap = w->cap_used ? w->cap_used * 2 : 16;
      const rt_ir_expr_t **p = rt_mem_realloc(w->used, (size_t)cap * sizeof *p);
      if (!p) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in the interpreter");
      w->used = p;
      w->cap_used = cap;
    }
    w->used[w->nused++] = e;
  }
  return RT_OK;
}

/* The free vars of fn literal `fn` (cached per interpreter). */
static rt_status_t free_vars_of(rt_interp_t *it, rt_ir_expr_t *fn,
                                const rt_interp_free_vars_t **out) {
  rt_interp_free_vars_t *fv = NULL;
  HASH_FIND(hh, it->free_vars, &fn->id, sizeof(uint32_t), fv);
  if (fv) {
    *out = fv;
    return RT_OK;
  }
  fv_walk w = {it, NULL, 0, 0, NULL, 0, 0, false};
  rt_status_t st = rt_ir_post_order(it->allocator, fn, fv_visit, &w);
  if (!st) {
    fv = rt_mem_calloc(1, sizeof *fv);
    if (!fv) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in the interpreter");
  }
  if (!st) {
    fv->fn_id = fn->id;
    fv->vars = rt_mem_calloc((size_t)(w.nused ? w.nused : 1), sizeof *fv->vars);
    if (!fv->vars) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in the interpreter");
    for (int32_t i = 0; !st && i < w.nused; ++i) {
      /* rt_ir_post_order visits each var node once, so `used` is distinct. */
      if (!id_in(w.bound, w.nbound, w.used[i]->id)) fv->vars[fv->count++] = w.used[i];
    }
  }
  rt_mem_free(w.bound);
  rt_mem_free(w.used);
  if (st) {
    if (fv) rt_mem_free(fv->vars);
    rt_mem_free(fv);
    return st;
  }
  bool oom = false;
  HASH_ADD(hh, it->free_vars, fn_id, sizeof(uint32_t), fv);
  if (oom) {
    rt_mem_free(fv->vars);
    rt_mem_free(fv);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in the interpreter");
  }
  *out = fv;
  return RT_OK;
}

/* A closure captures the values of its free vars in a frame of its own
 * (not the defining frame): a closure bound by `let %f = fn ...` in that
 * frame would otherwise keep the frame alive through itself, a cycle that
 * reference counting never frees. */
static rt_status_t make_closure(activation *act, rt_ir_expr_t *fn, rt_interp_value_t **out) {
  rt_interp_t *it = act->it;
  const rt_interp_free_vars_t *fv = NULL;
  RT_RETURN_IF_ERROR(free_vars_of(it, fn, &fv));
  rt_interp_env_t *env = NULL;
  RT_RETURN_IF_ERROR(rt_interp_env_create(it->allocator, NULL, &env));
  rt_status_t st = RT_OK;
  for (int32_t i = 0; !st && i < fv->count; ++i) {
    rt_interp_value_t *v = rt_interp_env_lookup(act->env, fv->vars[i]);
    if (v) st = rt_interp_env_bind(env, fv->vars[i], v);
  }
  if (!st) st = rt_interp_value_closure(it->allocator, fn, env, out);
  rt_interp_env_release(env);
  return st;
}

static int32_t scope_children(rt_ir_expr_t *e, rt_ir_expr_t **out, int32_t cap, int32_t from) {
  /* Returns the child at index `from` (in out[0]) and the total count. */
  (void)cap;
  int32_t n = 0;
  rt_ir_expr_t *pick = NULL;
#define CHILD(x)                  \
  do {                            \
    if (n == from) pick = (x);    \
    ++n;                          \
  } while (0)
  switch (e->kind) {
    case RT_IR_CALL:
      if (e->call.callee->kind != RT_IR_OP) CHILD(e->call.callee);
      for (int32_t i = 0; i < e->call.nargs; ++i) CHILD(e->call.args[i]);
      break;
    case RT_IR_TUPLE:
      for (int32_t i = 0; i < e->tuple.count; ++i) CHILD(e->tuple.fields[i]);
      break;
    case RT_IR_TUPLE_GET_ITEM:
      CHILD(e->get_item.tuple);
      break;
    case RT_IR_IF:
      CHILD(e->if_.cond);
      break;
    case RT_IR_LET:
      CHILD(e->let.value);
      break;
    default:
      break;
  }
#undef CHILD
  out[0] = pick;
  return n;
}

static bool is_binding(const rt_ir_expr_t *e) {
  return e->kind == RT_IR_CALL || e->kind == RT_IR_TUPLE || e->kind == RT_IR_TUPLE_GET_ITEM ||
         e->kind == RT_IR_IF;
}

static rt_status_t exec_node(activation *act, rt_ir_expr_t *e, rt_interp_value_t **out) {
  rt_interp_t *it = act->it;
  switch (e->kind) {
    case RT_IR_VAR: {
      rt_interp_value_t *v = rt_interp_env_lookup(act->env, e);
      if (!v) return RT_STATUS(INVALID_ARGUMENT, "variable %%%s has no value", e->var.name);
      rt_interp_value_retain(v);
      *out = v;
      return RT_OK;
    }
    case RT_IR_GLOBAL_VAR: {
      rt_ir_expr_t *fn = rt_ir_module_lookup(it->module, e->global.name);
      if (!fn) return RT_STATUS(NOT_FOUND, "undefined global @%s", e->global.name);
      return rt_interp_value_closure(it->allocator, fn, NULL, out);
    }
    case RT_IR_CONSTANT:
      return rt_interp_value_tensor(it->allocator, e->constant.value, out);
    case RT_IR_OP:
      return RT_STATUS(UNIMPLEMENTED, "the op %s is used as a value; only calls of ops run",
                       e->op.op->name);
    case RT_IR_FUNCTION:
      return make_closure(act, e, out);
    case RT_IR_TUPLE: {
      rt_interp_value_t *fields[MAX_FLAT];
      if (e->tuple.count > MAX_FLAT) return RT_STATUS(RESOURCE_EXHAUSTED, "tuple too large");
      for (int32_t i = 0; i < e->tuple.count; ++i) fields[i] = memo_get(act, e->tuple.fields[i]);
      return rt_interp_value_tuple(it->allocator, e->tuple.count, fields, out);
    }
    case RT_IR_TUPLE_GET_ITEM: {
      rt_interp_value_t *t = memo_get(act, e->get_item.tuple);
      if (t->kind != RT_INTERP_TUPLE || e->get_item.index >= t->tuple.count) {
        return RT_STATUS(INVALID_ARGUMENT, "field %d of a value that is not a tuple of that size",
                         (int)e->get_item.index);
      }
      rt_interp_value_t *f = t->tuple.fields[e->get_item.index];
      rt_interp_value_retain(f);
      *out = f;
      return RT_OK;
    }
    case RT_IR_IF: {
      rt_interp_value_t *c = memo_get(act, e->if_.cond);
      if (c->kind != RT_INTERP_TENSOR || rt_tensor_numel(c->tensor) != 1 ||
          !rt_dtype_is_bool(rt_tensor_dtype(c->tensor))) {
        return RT_STATUS(INVALID_ARGUMENT, "the condition of if is not a single bool");
      }
      bool taken = *(const uint8_t *)rt_tensor_data(c->tensor) != 0;
      return eval(act, taken ? e->if_.then_branch : e->if_.else_branch, out);
    }
    case RT_IR_LET:
      return eval(act, e, out);
    case RT_IR_CALL: {
      rt_interp_value_t *args[MAX_FLAT];
      if (e->call.nargs > MAX_FLAT) return RT_STATUS(RESOURCE_EXHAUSTED, "too many arguments");
      for (int32_t i = 0; i < e->call.nargs; ++i) args[i] = memo_get(act, e->call.args[i]);
      if (e->call.callee->kind == RT_IR_OP) {
        const rt_ir_type_t *t = type_is_static(e->checked_type) ? e->checked_type : NULL;
        return apply(it, e->call.callee->op.op, e->call.attrs, e->call.nargs, args, t, out);
      }
      rt_interp_value_t *callee = memo_get(act, e->call.callee);
      if (callee->kind != RT_INTERP_CLOSURE) {
        return RT_STATUS(INVALID_ARGUMENT, "the callee is not a function");
      }
      return invoke(it, callee, e->call.nargs, args, out);
    }
  }
  return RT_STATUS(INTERNAL, "unknown node kind");
}

typedef struct {
  rt_ir_expr_t *expr;
  int32_t next;
} frame_t;

static rt_status_t eval(activation *act, rt_ir_expr_t *e, rt_interp_value_t **out) {
  rt_interp_t *it = act->it;
  rt_status_t st = RT_OK;
  /* Let chains: bind and move to the body without recursing. */
  while (e->kind == RT_IR_LET && !memo_get(act, e)) {
    rt_interp_value_t *v = NULL;
    RT_RETURN_IF_ERROR(eval(act, e->let.value, &v));
    st = rt_interp_env_bind(act->env, e->let.var, v);
    rt_interp_value_release(v);
    if (st) return st;
    e = e->let.body;
  }
  rt_interp_value_t *done = memo_get(act, e);
  if (done) {
    rt_interp_value_retain(done);
    *out = done;
    return RT_OK;
  }
  frame_t local[64];
  frame_t *stack = local;
  int32_t depth = 0, cap = (int32_t)RT_COUNTOF(local);
  stack[depth++] = (frame_t){e, 0};
  while (depth > 0 && !st) {
    frame_t *f = &stack[depth - 1];
    rt_ir_expr_t *child = NULL;
    for (;;) {
      int32_t total = scope_children(f->expr, &child, 1, f->next);
      if (f->next >= total) {
        child = NULL;
        break;
      }
      f->next++;
      if (!memo_get(act, child)) break;
    }
    if (child) {
      if (depth == cap) {
        int32_t ncap = cap * 2;
        frame_t *p = rt_mem_alloc((size_t)ncap * sizeof(frame_t));
        if (!p) {
          st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in the interpreter");
          break;
        }
        memcpy(p, stack, (size_t)depth * sizeof(frame_t));
        if (stack != local) rt_mem_free(stack);
        stack = p;
        cap = ncap;
      }
      stack[depth++] = (frame_t){child, 0};
      continue;
    }
    rt_ir_expr_t *node = f->expr;
    --depth;
    if (memo_get(act, node)) continue; /* reached twice before finishing */
    bool hook = is_binding(node);
    if (hook) st = fire(it, it->options.before, node, NULL);
    rt_interp_value_t *v = NULL;
    if (!st) {
      st = exec_node(act, node, &v);
      if (st && node->kind != RT_IR_IF && node->kind != RT_IR_LET) st = at_node(st, node);
    }
    if (!st && hook) {
      st = fire(it, it->options.after, node, v);
      if (st) rt_interp_value_release(v);
    }
    if (!st) st = memo_put(act, node, v);
  }
  if (stack != local) rt_mem_free(stack);
  if (st) return st;
  done = memo_get(act, e);
  RT_ASSERT(done != NULL);
  rt_interp_value_retain(done);
  *out = done;
  return RT_OK;
}

/* ---- public -------------------------------------------------------------- */

rt_status_t rt_interp_create(rt_allocator_t allocator, rt_module_t *module,
                             const rt_interp_options_t *options, rt_interp_t **out_interp) {
  if (!module->typed) {
    return RT_STATUS(FAILED_PRECONDITION, "the interpreter needs a type-checked module");
  }
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(allocator, sizeof(rt_interp_t), 16, true, &p));
  rt_interp_t *it = p;
  it->allocator = allocator;
  if (options) it->options = *options;
  if (it->options.max_call_depth <= 0) it->options.max_call_depth = DEFAULT_MAX_DEPTH;
  if (it->options.max_tensor_bytes == 0) it->options.max_tensor_bytes = DEFAULT_MAX_TENSOR_BYTES;
  rt_status_t st = rt_ir_module_create(allocator, &it->scratch);
  if (st) {
    rt_allocator_free(allocator, it);
    return st;
  }
  rt_module_retain(module);
  it->module = module;
  *out_interp = it;
  return RT_OK;
}

void rt_interp_release(rt_interp_t *it) {
  if (!it) return;
  rt_interp_free_vars_t *fv, *tmp;
  HASH_ITER(hh, it->free_vars, fv, tmp) {
    HASH_DEL(it->free_vars, fv);
    rt_mem_free(fv->vars);
    rt_mem_free(fv);
  }
  rt_module_release(it->module);
  rt_module_release(it->scratch);
  rt_allocator_free(it->allocator, it);
}

void rt_interp_set_hooks(rt_interp_t *it, rt_interp_hook_fn before, rt_interp_hook_fn after,
                         void *user) {
  it->options.before = before;
  it->options.after = after;
  it->options.hook_user = user;
}

void rt_interp_set_step_into_primitive(rt_interp_t *it, bool enter) {
  it->options.step_into_primitive = enter;
}

/* Types made for dynamic shapes are dropped between top-level calls. */
static void begin_top_level(rt_interp_t *it) {
  if (it->depth == 0) rt_arena_reset(&it->scratch->arena);
}

rt_status_t rt_interp_call_global(rt_interp_t *it, const char *name, int32_t nargs,
                                  rt_interp_value_t *const *args, rt_interp_value_t **out_value) {
  rt_ir_expr_t *fn = rt_ir_module_lookup(it->module, name);
  if (!fn) return RT_STATUS(NOT_FOUND, "no global function @%s", name);
  begin_top_level(it);
  rt_interp_value_t closure = {0};
  atomic_init(&closure.refcount, 1);
  closure.kind = RT_INTERP_CLOSURE;
  closure.allocator = it->allocator;
  closure.closure.fn = fn;
  rt_status_t st = invoke(it, &closure, nargs, args, out_value);
  if (st) st = rt_status_annotate(st, "in @%s", name);
  return st;
}

rt_status_t rt_interp_eval(rt_interp_t *it, rt_ir_expr_t *expr, int32_t nbindings,
                           rt_ir_expr_t *const *vars, rt_interp_value_t *const *values,
                           rt_interp_value_t **out_value) {
  begin_top_level(it);
  activation act = {it, NULL, NULL};
  rt_status_t st = rt_interp_env_create(it->allocator, NULL, &act.env);
  for (int32_t i = 0; !st && i < nbindings; ++i) st = rt_interp_env_bind(act.env, vars[i], values[i]);
  if (!st) st = eval(&act, expr, out_value);
  activation_finish(&act);
  return st;
}

rt_status_t rt_interp_apply_op(rt_interp_t *it, const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                               int32_t nargs, rt_interp_value_t *const *args,
                               rt_interp_value_t **out_value) {
  begin_top_level(it);
  return apply(it, op, attrs, nargs, args, NULL, out_value);
}
