/* Type inference: fills checked_type on every node of every global.
 *
 * Algorithm: each global first gets a declared FuncType (parameter
 * annotations and the result annotation, with fresh type variables where
 * none is written). Globals are then inferred callees-first (a DFS over the
 * call graph), each by one post-order walk in which a node's type follows
 * from its children's: op calls run the op's type relation, calls of
 * functions unify arguments with parameters, Let binds its var to its
 * value's type (a let's value is visited before its var), If joins its
 * branches' types (`?` where their dims differ, rt_ir_type_join). Unification is union-find on INCOMPLETE types; a `?` dim is
 * compatible with any dim. Recursion works when the recursive function's
 * result type is written or can be unified before it is needed by an op.
 *
 * Limitation (documented in docs/text-format.md): a `fn` parameter without
 * an annotation is only inferred where unification reaches it; an op
 * applied to a value of unknown type is an error asking for an
 * annotation, rather than TVM's constraint solver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (oom = true)
#include "runtime/uthash_rt.h"

#include "ir/ir.h"
#include "runtime/assert.h"
#include "runtime/strbuf.h"

typedef struct {
  uint32_t var_id;
  rt_ir_expr_t *value;
  UT_hash_handle hh;
} let_entry;

typedef struct {
  rt_module_t *m;
  rt_ir_type_t **declared;  /* per global index: its FuncType */
  uint8_t *state;           /* per global: 0 = todo, 1 = in progress, 2 = done */
  uint8_t *typed_already;   /* per global: typed before this call (skipped) */
  let_entry *lets;          /* let var id -> value */
  const char *global_name;  /* global being inferred, for messages */
  rt_ir_expr_t *current_fn; /* the global's function node being inferred */
} infer_ctx;

/* ---- messages ------------------------------------------------------------ */

static rt_status_t call_error(const rt_ir_expr_t *e, const char *detail) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_ir_describe_binding(e, &b);
  rt_status_t st = rt_ir_diag(e->span, "%s: %s", b.data ? b.data : "", detail);
  rt_strbuf_deinitialize(&b);
  return st;
}

static void type_str(const rt_ir_type_t *t, rt_strbuf_t *b) { rt_ir_type_print(t, b); }

/* ---- unification --------------------------------------------------------- */

static bool has_unresolved(rt_ir_type_t *t) {
  t = rt_ir_type_resolve(t);
  return !t || t->kind == RT_IR_TYPE_INCOMPLETE;
}

/* Does type variable `var` occur in `t`? (Linking var to such a t would
 * make an infinite type, e.g. from `def @main() { (1, @main) }`.) Depth is
 * bounded by the size of the types, which inference builds finitely. */
static bool occurs(const rt_ir_type_t *var, rt_ir_type_t *t, int depth) {
  t = rt_ir_type_resolve(t);
  if (!t) return false;
  if (t == var) return true;
  if (depth > 256) return true; /* treat absurdly deep types as cyclic */
  switch (t->kind) {
    case RT_IR_TYPE_TUPLE:
      for (int32_t i = 0; i < t->tuple.count; ++i) {
        if (occurs(var, t->tuple.fields[i], depth + 1)) return true;
      }
      return false;
    case RT_IR_TYPE_FUNC:
      for (int32_t i = 0; i < t->func.count; ++i) {
        if (occurs(var, t->func.params[i], depth + 1)) return true;
      }
      return occurs(var, t->func.ret, depth + 1);
    case RT_IR_TYPE_LIST:
    case RT_IR_TYPE_OPTION:
      return occurs(var, t->adt.elem, depth + 1);
    default:
      return false;
  }
}

/* Unifies `expected` with `actual`; false when they cannot agree. Does not
 * build new types: incomplete ones are linked (after an occurs check), `?`
 * dims accepted. */
static bool unify(rt_ir_type_t *expected, rt_ir_type_t *actual) {
  expected = rt_ir_type_resolve(expected);
  actual = rt_ir_type_resolve(actual);
  if (!expected || !actual) return false;
  if (expected == actual) return true;
  if (expected->kind == RT_IR_TYPE_INCOMPLETE) {
    if (occurs(expected, actual, 0)) return false;
    expected->incomplete.resolved = actual;
    return true;
  }
  if (actual->kind == RT_IR_TYPE_INCOMPLETE) {
    if (occurs(actual, expected, 0)) return false;
    actual->incomplete.resolved = expected;
    return true;
  }
  if (expected->kind != actual->kind) return false;
  switch (expected->kind) {
    case RT_IR_TYPE_TENSOR:
      if (!rt_dtype_equal(expected->tensor.dtype, actual->tensor.dtype)) return false;
      if (expected->tensor.rank != actual->tensor.rank) return false;
      for (int32_t i = 0; i < expected->tensor.rank; ++i) {
        int64_t a = expected->tensor.shape[i], b = actual->tensor.shape[i];
        if (a != b && a != RT_DIM_ANY && b != RT_DIM_ANY) return false;
      }
      return true;
    case RT_IR_TYPE_TUPLE:
      if (expected->tuple.count != actual->tuple.count) return false;
      for (int32_t i = 0; i < expected->tuple.count; ++i) {
        if (!unify(expected->tuple.fields[i], actual->tuple.fields[i])) return false;
      }
      return true;
    case RT_IR_TYPE_FUNC:
      if (expected->func.count != actual->func.count) return false;
      for (int32_t i = 0; i < expected->func.count; ++i) {
        if (!unify(expected->func.params[i], actual->func.params[i])) return false;
      }
      return unify(expected->func.ret, actual->func.ret);
    case RT_IR_TYPE_LIST:
    case RT_IR_TYPE_OPTION:
      return unify(expected->adt.elem, actual->adt.elem);
    case RT_IR_TYPE_INCOMPLETE:
      break;
  }
  return false;
}

rt_status_t rt_ir_type_join(rt_module_t *m, rt_ir_type_t *a, rt_ir_type_t *b,
                            rt_ir_type_t **out) {
  *out = NULL;
  a = rt_ir_type_resolve(a);
  b = rt_ir_type_resolve(b);
  if (!a || !b) return RT_OK;
  if (a == b || a->kind == RT_IR_TYPE_INCOMPLETE || b->kind == RT_IR_TYPE_INCOMPLETE ||
      a->kind == RT_IR_TYPE_FUNC) {
    if (unify(a, b)) *out = rt_ir_type_resolve(a);
    return RT_OK;
  }
  if (a->kind != b->kind) return RT_OK;
  if (a->kind == RT_IR_TYPE_TUPLE) {
    const int32_t n = a->tuple.count;
    if (n != b->tuple.count) return RT_OK;
    rt_ir_type_t *fv[16];
    rt_ir_type_t **fields = fv;
    if (n > (int32_t)RT_COUNTOF(fv)) {
      void *p = NULL;
      RT_RETURN_IF_ERROR(rt_arena_alloc_array(&m->arena, (size_t)n, sizeof(rt_ir_type_t *), &p));
      fields = p;
    }
    bool same = true;
    for (int32_t i = 0; i < n; ++i) {
      RT_RETURN_IF_ERROR(rt_ir_type_join(m, a->tuple.fields[i], b->tuple.fields[i], &fields[i]));
      if (!fields[i]) return RT_OK;
      same = same && fields[i] == rt_ir_type_resolve(a->tuple.fields[i]);
    }
    if (same) {
      *out = a;
      return RT_OK;
    }
    return rt_ir_tuple_type(m, n, fields, out);
  }
  if (a->kind == RT_IR_TYPE_LIST || a->kind == RT_IR_TYPE_OPTION) {
    rt_ir_type_t *elem = NULL;
    RT_RETURN_IF_ERROR(rt_ir_type_join(m, a->adt.elem, b->adt.elem, &elem));
    if (!elem) return RT_OK;
    if (elem == rt_ir_type_resolve(a->adt.elem)) {
      *out = a;
      return RT_OK;
    }
    return rt_ir_adt_type(m, a->kind, elem, out);
  }
  RT_ASSERT(a->kind == RT_IR_TYPE_TENSOR);
  const int32_t r = a->tensor.rank;
  if (!rt_dtype_equal(a->tensor.dtype, b->tensor.dtype) || r != b->tensor.rank) return RT_OK;
  int64_t shape[RT_TENSOR_MAX_RANK];
  bool same = true;
  for (int32_t i = 0; i < r; ++i) {
    const int64_t x = a->tensor.shape[i], y = b->tensor.shape[i];
    shape[i] = x == y ? x : RT_DIM_ANY;
    same = same && x == y;
  }
  if (same) {
    *out = a;
    return RT_OK;
  }
  return rt_ir_tensor_type(m, a->tensor.dtype, r, shape, out);
}

static rt_status_t mismatch(rt_ir_span_t span, const char *what,
                            rt_ir_type_t *expected, rt_ir_type_t *actual) {
  rt_strbuf_t a, b;
  rt_strbuf_initialize(&a);
  rt_strbuf_initialize(&b);
  type_str(expected, &a);
  type_str(actual, &b);
  rt_status_t st = rt_ir_diag(span, "%s: expected %s, got %s", what,
                              a.data ? a.data : "", b.data ? b.data : "");
  rt_strbuf_deinitialize(&a);
  rt_strbuf_deinitialize(&b);
  return st;
}

/* ---- node rules ---------------------------------------------------------- */

static int32_t global_index(const rt_module_t *m, const char *name) {
  for (int32_t i = 0; i < m->num_globals; ++i) {
    if (strcmp(m->globals[i].name, name) == 0) return i;
  }
  return -1;
}

/* True when a type holds a string tensor (include/rt/tensor.h). */
static bool has_string(const rt_ir_type_t *t) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (!t) return false;
  if (t->kind == RT_IR_TYPE_TENSOR) return rt_dtype_is_string(t->tensor.dtype);
  if (t->kind == RT_IR_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->tuple.count; ++i) {
      if (has_string(t->tuple.fields[i])) return true;
    }
  }
  return false;
}

/* The ops whose kernels handle string tensors; every other op copies
 * elements as plain bytes, which for strings (owned pointers) would be
 * wrong, so string operands and results are refused for them. */
static bool takes_strings(const rt_ir_op_t *op) {
  return op->id == RT_OP_CAST || op->id == RT_OP_CAST_LIKE || op->id == RT_OP_STRING_NORMALIZER ||
         op->id == RT_OP_STRING_LOOKUP;
}

static rt_status_t infer_op_call(infer_ctx *cx, rt_ir_expr_t *e) {
  const rt_ir_op_t *op = e->call.callee->op.op;
  rt_ir_type_t *argv[64];
  rt_ir_type_t **args = argv;
  if (e->call.nargs > (int32_t)RT_COUNTOF(argv)) {
    return call_error(e, "too many arguments");
  }
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    rt_ir_type_t *t = rt_ir_type_resolve(e->call.args[i]->checked_type);
    if (has_unresolved(t)) {
      char detail[160];
      snprintf(detail, sizeof detail,
               "the type of argument %d is not known here (annotate it, or "
               "the result type of the function it comes from)",
               (int)i + 1);
      return call_error(e, detail);
    }
    args[i] = t;
  }
  if (!op->type_rel) {
    return call_error(e, "this op has no type relation");
  }
  rt_ir_rel_ctx_t rc = {cx->m, op, e->call.attrs, e->call.nargs, args};
  rt_ir_type_t *out = NULL;
  rt_status_t st = op->type_rel(&rc, &out);
  if (st) {
    rt_status_t diag = call_error(e, rt_status_message(st));
    rt_status_free(st);
    return diag;
  }
  RT_ASSERT(out != NULL);
  if (!takes_strings(op)) {
    bool str = has_string(out);
    for (int32_t i = 0; !str && i < e->call.nargs; ++i) str = has_string(args[i]);
    if (str) {
      return call_error(e, "this op does not take or give string tensors (the string ops are "
                           "cast, cast_like, string_lookup and string_normalizer)");
    }
  }
  e->checked_type = out;
  return RT_OK;
}

static rt_status_t infer_call(infer_ctx *cx, rt_ir_expr_t *e) {
  if (e->call.callee->kind == RT_IR_OP) return infer_op_call(cx, e);
  rt_ir_type_t *ft = rt_ir_type_resolve(e->call.callee->checked_type);
  if (has_unresolved(ft)) {
    return call_error(e, "the callee's type is not known here (annotate it)");
  }
  if (ft->kind != RT_IR_TYPE_FUNC) {
    rt_strbuf_t b;
    rt_strbuf_initialize(&b);
    rt_strbuf_puts(&b, "the callee is not a function: its type is ");
    type_str(ft, &b);
    rt_status_t st = call_error(e, b.data ? b.data : "");
    rt_strbuf_deinitialize(&b);
    return st;
  }
  if (ft->func.count != e->call.nargs) {
    char detail[96];
    snprintf(detail, sizeof detail, "the function takes %d argument%s, got %d",
             (int)ft->func.count, ft->func.count == 1 ? "" : "s",
             (int)e->call.nargs);
    return call_error(e, detail);
  }
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    rt_ir_type_t *at = e->call.args[i]->checked_type;
    if (!unify(ft->func.params[i], at)) {
      char what[64];
      snprintf(what, sizeof what, "argument %d of the call", (int)i + 1);
      return mismatch(e->call.args[i]->span.source ? e->call.args[i]->span : e->span,
                      what, ft->func.params[i], at);
    }
  }
  e->checked_type = ft->func.ret;
  return RT_OK;
}

static rt_status_t infer_node(void *user, rt_ir_expr_t *e) {
  infer_ctx *cx = user;
  rt_module_t *m = cx->m;
  /* Typed nodes are never written again: nodes shared with a base module
   * may be read by other threads at the same time. */
  if (e->checked_type && e != cx->current_fn) return RT_OK;
  switch (e->kind) {
    case RT_IR_VAR: {
      if (e->var.annotation) {
        e->checked_type = e->var.annotation;
      }
      let_entry *le = NULL;
      HASH_FIND(hh, cx->lets, &e->id, sizeof(uint32_t), le);
      if (le) {
        rt_ir_type_t *vt = le->value->checked_type;
        if (!e->checked_type) {
          e->checked_type = vt;
        } else if (!unify(e->checked_type, vt)) {
          return mismatch(le->value->span, "the value bound to this let",
                          e->checked_type, vt);
        }
      }
      if (!e->checked_type) RT_RETURN_IF_ERROR(rt_ir_incomplete_type(m, &e->checked_type));
      return RT_OK;
    }
    case RT_IR_GLOBAL_VAR: {
      int32_t gi = global_index(m, e->global.name);
      if (gi < 0) return rt_ir_diag(e->span, "undefined global @%s", e->global.name);
      e->checked_type = cx->declared[gi];
      return RT_OK;
    }
    case RT_IR_CONSTANT: {
      rt_tensor_t *t = e->constant.value;
      return rt_ir_tensor_type(m, rt_tensor_dtype(t), rt_tensor_rank(t),
                               rt_tensor_shape(t), &e->checked_type);
    }
    case RT_IR_OP:
      return RT_OK; /* ops are not first-class values */
    case RT_IR_CALL:
      return infer_call(cx, e);
    case RT_IR_TUPLE: {
      rt_ir_type_t *fv[16];
      rt_ir_type_t **fields = fv;
      if (e->tuple.count > (int32_t)RT_COUNTOF(fv)) {
        void *p = NULL;
        RT_RETURN_IF_ERROR(rt_arena_alloc_array(&m->arena, (size_t)e->tuple.count,
                                                sizeof(rt_ir_type_t *), &p));
        fields = p;
      }
      for (int32_t i = 0; i < e->tuple.count; ++i) fields[i] = e->tuple.fields[i]->checked_type;
      return rt_ir_tuple_type(m, e->tuple.count, fields, &e->checked_type);
    }
    case RT_IR_TUPLE_GET_ITEM: {
      rt_ir_type_t *tt = rt_ir_type_resolve(e->get_item.tuple->checked_type);
      if (has_unresolved(tt)) {
        return rt_ir_diag(e->span, "the type of the tuple is not known here (annotate it)");
      }
      if (tt->kind != RT_IR_TYPE_TUPLE) {
        rt_strbuf_t b;
        rt_strbuf_initialize(&b);
        type_str(tt, &b);
        rt_status_t st = rt_ir_diag(e->span, "cannot take field %d of a non-tuple of type %s",
                                    (int)e->get_item.index, b.data ? b.data : "");
        rt_strbuf_deinitialize(&b);
        return st;
      }
      if (e->get_item.index >= tt->tuple.count) {
        return rt_ir_diag(e->span, "tuple index %d is out of range for a %d-tuple",
                          (int)e->get_item.index, (int)tt->tuple.count);
      }
      e->checked_type = tt->tuple.fields[e->get_item.index];
      return RT_OK;
    }
    case RT_IR_LET:
      e->checked_type = e->let.body->checked_type;
      return RT_OK;
    case RT_IR_IF: {
      rt_ir_type_t *ct = rt_ir_type_resolve(e->if_.cond->checked_type);
      rt_ir_type_t *bool_t = NULL;
      RT_RETURN_IF_ERROR(rt_ir_tensor_type(m, RT_DTYPE_BOOL, 0, NULL, &bool_t));
      if (!unify(bool_t, ct)) {
        return mismatch(e->if_.cond->span.source ? e->if_.cond->span : e->span,
                        "the condition of if must be a 0-d bool", bool_t, ct);
      }
      /* The result is either branch's value: the join of their types,
       * `?` where their dims differ (a branch may compute (2, 1) and the
       * other (2, 4): the if is (2, ?)); kinds, dtypes and ranks must
       * agree. */
      rt_ir_type_t *tt = e->if_.then_branch->checked_type;
      rt_ir_type_t *et = e->if_.else_branch->checked_type;
      rt_ir_type_t *jt = NULL;
      RT_RETURN_IF_ERROR(rt_ir_type_join(m, tt, et, &jt));
      if (!jt) {
        return mismatch(e->if_.else_branch->span.source ? e->if_.else_branch->span : e->span,
                        "the branches of if disagree: the else branch", tt, et);
      }
      e->checked_type = jt;
      return RT_OK;
    }
    case RT_IR_FUNCTION: {
      rt_ir_type_t *pv[16];
      rt_ir_type_t **params = pv;
      if (e->fn.nparams > (int32_t)RT_COUNTOF(pv)) {
        void *p = NULL;
        RT_RETURN_IF_ERROR(rt_arena_alloc_array(&m->arena, (size_t)e->fn.nparams,
                                                sizeof(rt_ir_type_t *), &p));
        params = p;
      }
      for (int32_t i = 0; i < e->fn.nparams; ++i) params[i] = e->fn.params[i]->checked_type;
      rt_ir_type_t *ret = e->fn.body->checked_type;
      if (e->fn.ret_type && !unify(e->fn.ret_type, ret)) {
        return mismatch(e->fn.body->span.source ? e->fn.body->span : e->span,
                        "the function body does not match its declared result type",
                        e->fn.ret_type, ret);
      }
      rt_ir_type_t *ft = NULL;
      RT_RETURN_IF_ERROR(rt_ir_func_type(m, e->fn.nparams, params,
                                         e->fn.ret_type ? e->fn.ret_type : ret, &ft));
      if (e->checked_type && !unify(e->checked_type, ft)) {
        return mismatch(e->span, "the function", e->checked_type, ft);
      }
      e->checked_type = ft;
      return RT_OK;
    }
  }
  return RT_OK;
}

/* ---- per-global driving -------------------------------------------------- */

static rt_status_t collect_lets(void *user, rt_ir_expr_t *e) {
  infer_ctx *cx = user;
  if (e->kind != RT_IR_LET) return RT_OK;
  bool oom = false;
  let_entry *le = NULL;
  HASH_FIND(hh, cx->lets, &e->let.var->id, sizeof(uint32_t), le);
  if (le) return RT_OK;
  le = rt_mem_calloc(1, sizeof *le);
  if (!le) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in type inference");
  le->var_id = e->let.var->id;
  le->value = e->let.value;
  HASH_ADD(hh, cx->lets, var_id, sizeof(uint32_t), le);
  if (oom) {
    rt_mem_free(le);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in type inference");
  }
  return RT_OK;
}

typedef struct {
  infer_ctx *cx;
  int32_t *callees;
  int32_t count, cap;
} callee_list;

static rt_status_t collect_callees(void *user, rt_ir_expr_t *e) {
  callee_list *cl = user;
  if (e->kind != RT_IR_GLOBAL_VAR) return RT_OK;
  int32_t gi = global_index(cl->cx->m, e->global.name);
  if (gi < 0) return rt_ir_diag(e->span, "undefined global @%s", e->global.name);
  for (int32_t i = 0; i < cl->count; ++i) {
    if (cl->callees[i] == gi) return RT_OK;
  }
  if (cl->count == cl->cap) {
    int32_t ncap = cl->cap ? cl->cap * 2 : 8;
    int32_t *p = rt_mem_realloc(cl->callees, (size_t)ncap * sizeof(int32_t));
    if (!p) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in type inference");
    cl->callees = p;
    cl->cap = ncap;
  }
  cl->callees[cl->count++] = gi;
  return RT_OK;
}

static rt_status_t infer_global(infer_ctx *cx, int32_t gi, int32_t depth) {
  if (cx->state[gi] != 0) return RT_OK;
  if (cx->typed_already[gi]) {
    cx->state[gi] = 2;
    return RT_OK;
  }
  if (depth > 10000) return RT_STATUS(RESOURCE_EXHAUSTED, "call graph too deep");
  cx->state[gi] = 1;
  rt_module_t *m = cx->m;
  rt_ir_expr_t *fn = m->globals[gi].fn;
  /* Callees first, so their result types are known at our call sites. */
  callee_list cl = {cx, NULL, 0, 0};
  rt_status_t st = rt_ir_post_order(m->allocator, fn, collect_callees, &cl);
  for (int32_t i = 0; !st && i < cl.count; ++i) st = infer_global(cx, cl.callees[i], depth + 1);
  rt_mem_free(cl.callees);
  if (st) return st;
  /* Params carry the declared types, shared with call sites. */
  rt_ir_type_t *decl = cx->declared[gi];
  for (int32_t i = 0; i < fn->fn.nparams; ++i) {
    if (!fn->fn.params[i]->checked_type) {
      fn->fn.params[i]->checked_type = decl->func.params[i];
    }
  }
  fn->checked_type = decl;
  cx->current_fn = fn;
  st = rt_ir_post_order(m->allocator, fn, collect_lets, cx);
  if (!st) st = rt_ir_post_order(m->allocator, fn, infer_node, cx);
  let_entry *le, *tmp;
  HASH_ITER(hh, cx->lets, le, tmp) {
    HASH_DEL(cx->lets, le);
    rt_mem_free(le);
  }
  if (st) return rt_status_annotate(st, "in @%s", m->globals[gi].name);
  cx->state[gi] = 2;
  return RT_OK;
}

rt_status_t rt_ir_infer_types(rt_module_t *m) {
  rt_status_t st = RT_OK;
  infer_ctx cx = {0};
  cx.m = m;
  int32_t n = m->num_globals;
  void *p = NULL;
  if (n == 0) {
    m->typed = true;
    return RT_OK;
  }
  st = rt_arena_alloc_array(&m->arena, (size_t)n, sizeof(rt_ir_type_t *), &p);
  if (st) return st;
  cx.declared = p;
  cx.state = rt_mem_calloc((size_t)n * 2, 1);
  if (!cx.state) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in type inference");
  cx.typed_already = cx.state + n;
  for (int32_t gi = 0; gi < n && !st; ++gi) {
    rt_ir_expr_t *fn = m->globals[gi].fn;
    if (fn->checked_type && rt_ir_type_resolve(fn->checked_type)->kind == RT_IR_TYPE_FUNC) {
      cx.declared[gi] = rt_ir_type_resolve(fn->checked_type);
      cx.typed_already[gi] = 1;
      continue;
    }
    rt_ir_type_t *pv[64];
    rt_ir_type_t **params = pv;
    if (fn->fn.nparams > (int32_t)RT_COUNTOF(pv)) {
      st = rt_arena_alloc_array(&m->arena, (size_t)fn->fn.nparams, sizeof(rt_ir_type_t *), &p);
      if (st) break;
      params = p;
    }
    for (int32_t i = 0; i < fn->fn.nparams && !st; ++i) {
      rt_ir_expr_t *v = fn->fn.params[i];
      params[i] = v->checked_type ? v->checked_type : v->var.annotation;
      if (!params[i]) st = rt_ir_incomplete_type(m, &params[i]);
    }
    rt_ir_type_t *ret = fn->fn.ret_type;
    if (!st && !ret) st = rt_ir_incomplete_type(m, &ret);
    if (!st) st = rt_ir_func_type(m, fn->fn.nparams, params, ret, &cx.declared[gi]);
  }
  for (int32_t gi = 0; gi < n && !st; ++gi) st = infer_global(&cx, gi, 0);
  rt_mem_free(cx.state);
  if (!st) m->typed = true;
  return st;
}
