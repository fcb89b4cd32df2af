/* One-line descriptions of nodes ("%3 = add(%1, %2)") for diagnostics and
 * stepping hooks, and what a fused group is (Primitive, its kernel name,
 * its anchor). Operands are named by their graph binding (`%N` as parsed),
 * var name or a short literal; anything else prints as "...". */
#include <string.h>

#include "ir/ir.h"
#include "runtime/strbuf.h"
#include "runtime/mem.h"

bool rt_ir_is_primitive(const rt_ir_expr_t *fn) {
  if (!fn || fn->kind != RT_IR_FUNCTION || !fn->fn.attrs) return false;
  for (int32_t i = 0; i < fn->fn.attrs->count; ++i) {
    const rt_attr_value_t *v = &fn->fn.attrs->values[i];
    if (strcmp(fn->fn.attrs->keys[i], "Primitive") == 0) {
      return (v->kind == RT_ATTR_INT && v->i != 0) || (v->kind == RT_ATTR_BOOL && v->b);
    }
  }
  return false;
}

static const rt_ir_expr_t *anchor_walk(const rt_ir_expr_t *e, const rt_ir_type_t *t, int32_t id, int32_t depth) {
  if (e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP || depth > 16 || !e->checked_type) return NULL;
  const rt_ir_op_t *op = e->call.callee->op.op;
  if (!rt_ir_type_equal(rt_ir_type_resolve(e->checked_type), t)) return NULL;
  if (op->id == id) return e;
  if (op->pattern != RT_OP_PATTERN_ELEMWISE && op->pattern != RT_OP_PATTERN_BROADCAST) return NULL;
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    const rt_ir_expr_t *a = anchor_walk(e->call.args[i], t, id, depth + 1);
    if (a) return a;
  }
  return NULL;
}

const rt_ir_expr_t *rt_ir_anchor_of(const rt_ir_expr_t *e, int32_t id) {
  if (!e || !e->checked_type) return NULL;
  return anchor_walk(e, rt_ir_type_resolve(e->checked_type), id, 0);
}

#define MAX_NAME_LENGTH 80 /* TVM's kMaxFuncNameLength */

static rt_status_t name_visit(void *user, rt_ir_expr_t *e) {
  rt_strbuf_t *b = user;
  if (e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP) return RT_OK;
  rt_strbuf_putc(b, '_');
  for (const char *s = e->call.callee->op.op->name; *s; ++s) rt_strbuf_putc(b, *s == '.' ? '_' : *s);
  return RT_OK;
}

rt_status_t rt_ir_primitive_name(const rt_ir_expr_t *fn, rt_strbuf_t *out) {
  if (!fn || fn->kind != RT_IR_FUNCTION) {
    return RT_STATUS(INVALID_ARGUMENT, "rt_ir_primitive_name: not a function");
  }
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_strbuf_puts(&b, "fused");
  rt_status_t st = rt_ir_post_order(rt_mem_current(), fn->fn.body, name_visit, &b);
  if (!st && b.failed) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory naming a kernel");
  if (!st) {
    if (b.len > MAX_NAME_LENGTH) {
      uint64_t h = UINT64_C(1469598103934665603);
      for (size_t i = 0; i < b.len; ++i) {
        h ^= (unsigned char)b.data[i];
        h *= UINT64_C(1099511628211);
      }
      rt_strbuf_append(out, b.data, MAX_NAME_LENGTH);
      rt_strbuf_printf(out, "_%llx_", (unsigned long long)h);
    } else {
      rt_strbuf_append(out, b.data, b.len);
    }
  }
  rt_strbuf_deinitialize(&b);
  if (!st && (out->failed || !out->data)) {
    st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory naming a kernel");
  }
  return st;
}

static void describe_operand(const rt_ir_expr_t *e, rt_strbuf_t *out) {
  if (e->binding) {
    rt_strbuf_printf(out, "%%%s", e->binding);
    return;
  }
  switch (e->kind) {
    case RT_IR_VAR: rt_strbuf_printf(out, "%%%s", e->var.name); return;
    case RT_IR_GLOBAL_VAR: rt_strbuf_printf(out, "@%s", e->global.name); return;
    case RT_IR_CONSTANT:
      if (rt_tensor_rank(e->constant.value) == 0) {
        rt_ir_print_expr(e, RT_PRINT_NO_TYPES, out);
      } else {
        rt_strbuf_puts(out, "constant");
      }
      return;
    case RT_IR_OP: rt_strbuf_puts(out, e->op.op->name); return;
    case RT_IR_CALL:
      if (e->call.callee->kind == RT_IR_OP) {
        rt_strbuf_printf(out, "%s(...)", e->call.callee->op.op->name);
        return;
      }
      break;
    default: break;
  }
  rt_strbuf_puts(out, "...");
}

void rt_ir_describe_binding(const rt_ir_expr_t *e, rt_strbuf_t *out) {
  bool bound = e->binding != NULL;
  if (bound) rt_strbuf_printf(out, "%%%s = ", e->binding);
  switch (e->kind) {
    case RT_IR_CALL:
      if (e->call.callee->kind == RT_IR_OP) {
        rt_strbuf_puts(out, e->call.callee->op.op->name);
      } else if (rt_ir_is_primitive(e->call.callee)) {
        /* A fused group reads as its kernel name. */
        rt_status_free(rt_ir_primitive_name(e->call.callee, out));
      } else {
        describe_operand(e->call.callee, out);
      }
      rt_strbuf_putc(out, '(');
      for (int32_t i = 0; i < e->call.nargs; ++i) {
        if (i) rt_strbuf_puts(out, ", ");
        describe_operand(e->call.args[i], out);
      }
      rt_strbuf_putc(out, ')');
      return;
    case RT_IR_TUPLE:
      rt_strbuf_putc(out, '(');
      for (int32_t i = 0; i < e->tuple.count; ++i) {
        if (i) rt_strbuf_puts(out, ", ");
        describe_operand(e->tuple.fields[i], out);
      }
      if (e->tuple.count == 1) rt_strbuf_putc(out, ',');
      rt_strbuf_putc(out, ')');
      return;
    case RT_IR_TUPLE_GET_ITEM:
      describe_operand(e->get_item.tuple, out);
      rt_strbuf_printf(out, ".%d", (int)e->get_item.index);
      return;
    case RT_IR_IF:
      rt_strbuf_puts(out, "if (");
      describe_operand(e->if_.cond, out);
      rt_strbuf_puts(out, ") { ... } else { ... }");
      return;
    case RT_IR_LET:
      rt_strbuf_printf(out, "let %%%s = ", e->let.var->var.name);
      describe_operand(e->let.value, out);
      return;
    case RT_IR_FUNCTION:
      rt_strbuf_puts(out, "fn (...) { ... }");
      return;
    default:
      if (!bound) describe_operand(e, out);
      return;
  }
}
