/* rt_ir_verify: the well-formedness check run after parsing and (in debug
 * and test builds) after every pass. It checks, per global: op calls have
 * the op's arity and schema-ordered attrs; function params are vars and
 * distinct; no var is bound twice (by two params or lets); tuple indices are
 * non-negative and fit typed tuples; every global referenced exists.
 * Failures are INTERNAL errors naming the node and its span: a verifier
 * failure after a pass is a bug in that pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (oom = true)
#include "runtime/uthash_rt.h"

#include "ir/ir.h"

typedef struct {
  uint32_t id;
  UT_hash_handle hh;
} bound_t;

typedef struct {
  const rt_module_t *m;
  bound_t *bound;
} verify_ctx;

static rt_status_t fail(const rt_ir_expr_t *e, const char *what) {
  if (e->span.source) {
    return RT_STATUS(INTERNAL, "ill-formed IR at %s:%d:%d (node #%u): %s",
                     e->span.source->name, (int)e->span.line, (int)e->span.col,
                     (unsigned)e->id, what);
  }
  return RT_STATUS(INTERNAL, "ill-formed IR (node #%u): %s", (unsigned)e->id, what);
}

static rt_status_t bind(verify_ctx *cx, const rt_ir_expr_t *binder,
                        const rt_ir_expr_t *var) {
  bool oom = false;
  if (var->kind != RT_IR_VAR) return fail(binder, "a binder's variable is not a Var");
  bound_t *b = NULL;
  HASH_FIND(hh, cx->bound, &var->id, sizeof(uint32_t), b);
  if (b) {
    char msg[160];
    snprintf(msg, sizeof msg, "variable %%%s is bound twice", var->var.name);
    return fail(binder, msg);
  }
  b = rt_mem_calloc(1, sizeof *b);
  if (!b) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in rt_ir_verify");
  b->id = var->id;
  HASH_ADD(hh, cx->bound, id, sizeof(uint32_t), b);
  if (oom) {
    rt_mem_free(b);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in rt_ir_verify");
  }
  return RT_OK;
}

static rt_status_t check(void *user, rt_ir_expr_t *e) {
  verify_ctx *cx = user;
  switch (e->kind) {
    case RT_IR_CALL:
      if (!e->call.callee) return fail(e, "call without callee");
      for (int32_t i = 0; i < e->call.nargs; ++i) {
        if (!e->call.args[i]) return fail(e, "call with a NULL argument");
      }
      if (e->call.callee->kind == RT_IR_OP) {
        const rt_ir_op_t *op = e->call.callee->op.op;
        if (e->call.nargs != op->num_inputs) return fail(e, "op call with the wrong arity");
        if (!e->call.attrs || e->call.attrs->count != op->num_fields) {
          return fail(e, "op call whose attrs do not follow the op's schema");
        }
        for (int32_t i = 0; i < op->num_fields; ++i) {
          if (strcmp(e->call.attrs->keys[i], op->fields[i].name) != 0) {
            return fail(e, "op call whose attrs are out of schema order");
          }
        }
      }
      return RT_OK;
    case RT_IR_TUPLE:
      for (int32_t i = 0; i < e->tuple.count; ++i) {
        if (!e->tuple.fields[i]) return fail(e, "tuple with a NULL field");
      }
      return RT_OK;
    case RT_IR_TUPLE_GET_ITEM: {
      if (!e->get_item.tuple || e->get_item.index < 0) return fail(e, "bad tuple projection");
      rt_ir_type_t *t = rt_ir_type_resolve(e->get_item.tuple->checked_type);
      if (t && t->kind == RT_IR_TYPE_TUPLE && e->get_item.index >= t->tuple.count) {
        return fail(e, "tuple index out of range");
      }
      return RT_OK;
    }
    case RT_IR_LET:
      if (!e->let.value || !e->let.body) return fail(e, "let without value or body");
      return bind(cx, e, e->let.var);
    case RT_IR_IF:
      if (!e->if_.cond || !e->if_.then_branch || !e->if_.else_branch) {
        return fail(e, "if with a missing part");
      }
      return RT_OK;
    case RT_IR_FUNCTION:
      if (!e->fn.body) return fail(e, "function without body");
      for (int32_t i = 0; i < e->fn.nparams; ++i) RT_RETURN_IF_ERROR(bind(cx, e, e->fn.params[i]));
      return RT_OK;
    case RT_IR_GLOBAL_VAR:
      if (!rt_ir_module_lookup(cx->m, e->global.name)) {
        char msg[160];
        snprintf(msg, sizeof msg, "reference to undefined global @%s", e->global.name);
        return fail(e, msg);
      }
      return RT_OK;
    case RT_IR_CONSTANT:
      if (!e->constant.value) return fail(e, "constant without a value");
      return RT_OK;
    case RT_IR_VAR:
    case RT_IR_OP:
      return RT_OK;
  }
  return fail(e, "unknown node kind");
}

rt_status_t rt_ir_verify(const rt_module_t *m) {
  rt_status_t st = RT_OK;
  for (int32_t i = 0; i < m->num_globals && !st; ++i) {
    verify_ctx cx = {m, NULL};
    if (!m->globals[i].fn || m->globals[i].fn->kind != RT_IR_FUNCTION) {
      return RT_STATUS(INTERNAL, "ill-formed IR: global @%s is not a function",
                       m->globals[i].name);
    }
    st = rt_ir_post_order(m->allocator, m->globals[i].fn, check, &cx);
    if (st) st = rt_status_annotate(st, "in @%s", m->globals[i].name);
    bound_t *b, *tmp;
    HASH_ITER(hh, cx.bound, b, tmp) {
      HASH_DEL(cx.bound, b);
      rt_mem_free(b);
    }
  }
  return st;
}
