/* Custom ops' element expressions and the rewrites the JIT asks of fused
 * groups (ir/op/custom.h).
 *
 * The element expression is parsed at registration into a small array of
 * nodes (inputs, scalars, attributes, calls of built-in ops), children
 * before parents; rt_ir_custom_expand rebuilds it as IR over each call's
 * arguments, so a custom elementwise op fuses and lowers as the built-ins
 * it is made of. rt_ir_custom_split cuts a fused group at the call a
 * strategy runs (jit/custom.c finds it): the rest of the group becomes a
 * function of one more param. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/op/custom.h"
#include "runtime/assert.h"
#include "runtime/mem.h"

#define MAX_ELEM_NODES 64
#define MAX_ELEM_ARGS 8

typedef enum elem_kind_e { ELEM_INPUT, ELEM_NUMBER, ELEM_ATTR, ELEM_CALL } elem_kind_t;

/* ---- element expressions ------------------------------------------------- */

struct rt_ir_elem_node_t {
  elem_kind_t kind;
  int32_t input;                 /* ELEM_INPUT */
  double number;                 /* ELEM_NUMBER */
  int32_t attr;                  /* ELEM_ATTR: index in the schema */
  const rt_ir_op_t *op;          /* ELEM_CALL */
  int32_t nargs;
  int32_t args[MAX_ELEM_ARGS];   /* node indices */
};
typedef rt_ir_elem_node_t elem_node_t;

static void skip_space(const char **p) {
  while (isspace((unsigned char)**p)) (*p)++;
}

typedef struct elem_parser_t {
  rt_ir_custom_t *c;
  const char *text, *p;
  elem_node_t nodes[MAX_ELEM_NODES];
  int32_t n;
  int32_t depth;
} elem_parser_t;

static rt_status_t elem_error(elem_parser_t *ep, const char *at, const char *what) {
  return RT_STATUS(INVALID_ARGUMENT, "%s: bad element expression \"%s\" at column %d: %s",
                   ep->c->def.name, ep->text, (int)(at - ep->text) + 1, what);
}

static rt_status_t elem_new(elem_parser_t *ep, const char *at, int32_t *out) {
  if (ep->n == MAX_ELEM_NODES) return elem_error(ep, at, "more than 64 nodes");
  memset(&ep->nodes[ep->n], 0, sizeof ep->nodes[ep->n]);
  *out = ep->n++;
  return RT_OK;
}

static rt_status_t elem_parse(elem_parser_t *ep, int32_t *out) {
  skip_space(&ep->p);
  const char *at = ep->p;
  if (++ep->depth > 32) return elem_error(ep, at, "nested more than 32 deep");
  if (*ep->p == '%') {
    ep->p++;
    if (!isdigit((unsigned char)*ep->p)) return elem_error(ep, ep->p, "expected an input number after '%'");
    long k = strtol(ep->p, (char **)&ep->p, 10);
    if (k < 0 || k >= ep->c->def.num_inputs) {
      char msg[96];
      snprintf(msg, sizeof msg, "input %%%ld does not exist (the op has %d inputs, %%0..%%%d)", k,
               (int)ep->c->def.num_inputs, (int)ep->c->def.num_inputs - 1);
      return elem_error(ep, at, msg);
    }
    RT_RETURN_IF_ERROR(elem_new(ep, at, out));
    ep->nodes[*out].kind = ELEM_INPUT;
    ep->nodes[*out].input = (int32_t)k;
  } else if (*ep->p == '@') {
    const char *s = ++ep->p;
    while (isalnum((unsigned char)*ep->p) || *ep->p == '_') ep->p++;
    size_t len = (size_t)(ep->p - s);
    int32_t found = -1;
    for (int32_t a = 0; a < ep->c->def.num_attrs && found < 0; ++a) {
      const rt_op_attr_def_t *ad = &ep->c->def.attrs[a];
      if (strlen(ad->name) == len && strncmp(ad->name, s, len) == 0) found = a;
    }
    if (found < 0) return elem_error(ep, at, "no attribute of that name");
    rt_op_attr_kind_t k = ep->c->def.attrs[found].kind;
    if (k != RT_OP_ATTR_INT && k != RT_OP_ATTR_FLOAT && k != RT_OP_ATTR_BOOL) {
      return elem_error(ep, at, "only int, float and bool attributes can be used");
    }
    RT_RETURN_IF_ERROR(elem_new(ep, at, out));
    ep->nodes[*out].kind = ELEM_ATTR;
    ep->nodes[*out].attr = found;
  } else if (isdigit((unsigned char)*ep->p) || *ep->p == '-' || *ep->p == '.') {
    char *end = NULL;
    double v = strtod(ep->p, &end);
    if (end == ep->p) return elem_error(ep, at, "expected a number");
    ep->p = end;
    if (*ep->p == 'f') ep->p++;
    RT_RETURN_IF_ERROR(elem_new(ep, at, out));
    ep->nodes[*out].kind = ELEM_NUMBER;
    ep->nodes[*out].number = v;
  } else if (isalpha((unsigned char)*ep->p) || *ep->p == '_') {
    const char *s = ep->p;
    while (isalnum((unsigned char)*ep->p) || *ep->p == '_' || *ep->p == '.') ep->p++;
    size_t len = (size_t)(ep->p - s);
    const rt_ir_op_t *op = rt_ir_op_lookup(s, len);
    char name[96];
    snprintf(name, sizeof name, "%.*s", (int)(len < 80 ? len : 80), s);
    char msg[200];
    if (!op || op->id >= RT_OP_COUNT) {
      snprintf(msg, sizeof msg, "'%s' is not a built-in op", name);
      return elem_error(ep, s, msg);
    }
    if (op->pattern != RT_OP_PATTERN_ELEMWISE && op->pattern != RT_OP_PATTERN_BROADCAST) {
      snprintf(msg, sizeof msg, "'%s' is not elementwise or broadcast", name);
      return elem_error(ep, s, msg);
    }
    for (int32_t f = 0; f < op->num_fields; ++f) {
      if (!op->fields[f].default_text) {
        snprintf(msg, sizeof msg, "'%s' has a required attribute '%s' (only ops whose "
                 "attributes all have defaults can be used)", name, op->fields[f].name);
        return elem_error(ep, s, msg);
      }
    }
    skip_space(&ep->p);
    if (*ep->p != '(') return elem_error(ep, ep->p, "expected '(' after the op name");
    ep->p++;
    int32_t args[MAX_ELEM_ARGS];
    int32_t nargs = 0;
    skip_space(&ep->p);
    if (*ep->p != ')') {
      for (;;) {
        if (nargs == MAX_ELEM_ARGS) return elem_error(ep, ep->p, "too many arguments");
        RT_RETURN_IF_ERROR(elem_parse(ep, &args[nargs]));
        nargs++;
        skip_space(&ep->p);
        if (*ep->p == ',') {
          ep->p++;
          continue;
        }
        break;
      }
    }
    if (*ep->p != ')') return elem_error(ep, ep->p, "expected ',' or ')'");
    ep->p++;
    if (nargs != op->num_inputs) {
      snprintf(msg, sizeof msg, "'%s' takes %d arguments, got %d", name, (int)op->num_inputs,
               (int)nargs);
      return elem_error(ep, s, msg);
    }
    RT_RETURN_IF_ERROR(elem_new(ep, at, out));
    elem_node_t *n = &ep->nodes[*out];
    n->kind = ELEM_CALL;
    n->op = op;
    n->nargs = nargs;
    memcpy(n->args, args, (size_t)nargs * sizeof args[0]);
  } else {
    return elem_error(ep, at, *at ? "expected an op call, %K, @attribute or a number"
                                  : "unexpected end");
  }
  ep->depth--;
  return RT_OK;
}

rt_status_t rt_ir_custom_parse_elem(rt_ir_custom_t *c) {
  elem_parser_t *ep = rt_mem_calloc(1, sizeof *ep);
  if (!ep) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  ep->c = c;
  ep->text = ep->p = c->def.elem_expr;
  int32_t root = 0;
  rt_status_t st = elem_parse(ep, &root);
  if (!st) {
    skip_space(&ep->p);
    if (*ep->p) st = elem_error(ep, ep->p, "unexpected text after the expression");
  }
  if (!st && ep->nodes[root].kind != ELEM_CALL) {
    st = elem_error(ep, ep->text, "the expression must be an op call");
  }
  if (!st) st = rt_arena_alloc_array(&c->arena, (size_t)ep->n, sizeof *c->elem, (void **)&c->elem);
  if (!st) {
    /* Children come before parents, and the root (parsed last) is last. */
    RT_ASSERT(root == ep->n - 1);
    memcpy(c->elem, ep->nodes, (size_t)ep->n * sizeof *c->elem);
    c->num_elem = ep->n;
  }
  rt_mem_free(ep);
  return st;
}

/* ---- splitting a fused group at an anchor ------------------------------- */

/* The largest node id under root (new nodes get ids after it: type
 * inference and the JIT key memos by id). */
static rt_status_t max_id_visit(void *user, rt_ir_expr_t *e) {
  uint32_t *max = user;
  if (e->id > *max) *max = e->id;
  return RT_OK;
}

typedef struct split_t {
  const rt_ir_expr_t *anchor;
  rt_ir_expr_t *var;
} split_t;

static rt_status_t split_rewrite(void *user, rt_ir_expr_t *original, rt_ir_expr_t *rebuilt,
                                 rt_ir_expr_t **out) {
  (void)rebuilt;
  split_t *s = user;
  if (original == s->anchor) *out = s->var;
  return RT_OK;
}

rt_status_t rt_ir_custom_split(const rt_ir_expr_t *fn, const rt_ir_expr_t *anchor,
                               rt_module_t **out_scratch, const rt_ir_expr_t **out_fn) {
  *out_scratch = NULL;
  *out_fn = NULL;
  uint32_t max_id = fn->id;
  RT_RETURN_IF_ERROR(rt_ir_post_order(rt_mem_current(), (rt_ir_expr_t *)fn, max_id_visit, &max_id));
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_create(rt_mem_current(), &m));
  m->next_id = max_id + 1;
  rt_ir_expr_t **params = NULL;
  split_t s = {anchor, NULL};
  rt_ir_expr_t *body = NULL, *out = NULL;
  rt_status_t st = rt_ir_var(m, anchor->span, "anchor", anchor->checked_type, &s.var);
  if (!st) s.var->checked_type = anchor->checked_type;
  if (!st) st = rt_ir_mutate(m, fn->fn.body, split_rewrite, &s, &body);
  if (!st) {
    st = rt_arena_alloc_array(&m->arena, (size_t)fn->fn.nparams + 1, sizeof *params,
                              (void **)&params);
  }
  if (!st) {
    for (int32_t i = 0; i < fn->fn.nparams; ++i) params[i] = fn->fn.params[i];
    params[fn->fn.nparams] = s.var;
    st = rt_ir_function(m, fn->span, fn->fn.nparams + 1, params, body, NULL, fn->fn.attrs, &out);
  }
  if (!st) st = rt_ir_module_add(m, "main", out);
  if (!st) st = rt_ir_infer_types(m);
  if (st) {
    rt_module_release(m);
    return rt_status_annotate(st, "splitting a fused group at its strategy kernel");
  }
  *out_scratch = m;
  *out_fn = out;
  return RT_OK;
}

/* ---- expanding element expressions -------------------------------------- */

typedef struct scan_t {
  bool custom, elem;
  uint32_t max_id;
} scan_t;

static rt_status_t scan_visit(void *user, rt_ir_expr_t *e) {
  scan_t *s = user;
  if (e->id > s->max_id) s->max_id = e->id;
  if (e->kind == RT_IR_CALL && e->call.callee->kind == RT_IR_OP && e->call.callee->op.op->custom) {
    s->custom = true;
    if (e->call.callee->op.op->custom->elem) s->elem = true;
  }
  return RT_OK;
}

typedef struct expand_t {
  rt_module_t *m;
} expand_t;

static rt_status_t expand_rewrite(void *user, rt_ir_expr_t *original, rt_ir_expr_t *rebuilt,
                                  rt_ir_expr_t **out) {
  expand_t *x = user;
  if (rebuilt->kind != RT_IR_CALL || rebuilt->call.callee->kind != RT_IR_OP) return RT_OK;
  const rt_ir_custom_t *c = rebuilt->call.callee->op.op->custom;
  if (!c || !c->elem) return RT_OK;
  rt_ir_type_t *t0 = rt_ir_type_resolve(original->call.args[0]->checked_type);
  if (!t0 || t0->kind != RT_IR_TYPE_TENSOR) {
    return RT_STATUS(INTERNAL, "%s: input 1 is not a typed tensor", c->def.name);
  }
  rt_ir_expr_t *built[MAX_ELEM_NODES];
  rt_ir_span_t span = rebuilt->span;
  for (int32_t i = 0; i < c->num_elem; ++i) {
    const elem_node_t *n = &c->elem[i];
    switch (n->kind) {
      case ELEM_INPUT:
        built[i] = rebuilt->call.args[n->input];
        break;
      case ELEM_NUMBER:
        RT_RETURN_IF_ERROR(rt_ir_scalar(x->m, span, t0->tensor.dtype, n->number, &built[i]));
        break;
      case ELEM_ATTR: {
        const rt_ir_attrs_t *attrs = rebuilt->call.attrs;
        const rt_attr_value_t *v = attrs && n->attr < attrs->count ? &attrs->values[n->attr] : NULL;
        double value = 0;
        if (v && v->kind == RT_ATTR_FLOAT) {
          value = v->f;
        } else if (v && v->kind == RT_ATTR_INT) {
          value = (double)v->i;
        } else if (v && v->kind == RT_ATTR_BOOL) {
          value = v->b ? 1.0 : 0.0;
        } else {
          return RT_STATUS(INVALID_ARGUMENT, "%s: attribute '%s' has no numeric value",
                           c->def.name, c->def.attrs[n->attr].name);
        }
        RT_RETURN_IF_ERROR(rt_ir_scalar(x->m, span, t0->tensor.dtype, value, &built[i]));
        break;
      }
      case ELEM_CALL: {
        rt_ir_expr_t *ref = NULL, *args[MAX_ELEM_ARGS];
        for (int32_t a = 0; a < n->nargs; ++a) args[a] = built[n->args[a]];
        RT_RETURN_IF_ERROR(rt_ir_op_ref(x->m, span, n->op, &ref));
        RT_RETURN_IF_ERROR(rt_ir_call(x->m, span, ref, n->nargs, args, NULL, &built[i]));
        break;
      }
    }
  }
  *out = built[c->num_elem - 1];
  return RT_OK;
}

rt_status_t rt_ir_custom_expand(const rt_ir_expr_t *fn, rt_module_t **out_scratch,
                                const rt_ir_expr_t **out_fn) {
  *out_scratch = NULL;
  *out_fn = fn;
  scan_t s = {false, false, fn->id};
  RT_RETURN_IF_ERROR(rt_ir_post_order(rt_mem_current(), (rt_ir_expr_t *)fn, scan_visit, &s));
  if (!s.elem) return RT_OK;
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_create(rt_mem_current(), &m));
  /* Ids after the function's own: type inference and the JIT key memos
   * (and constant names) by id. */
  m->next_id = s.max_id + 1;
  expand_t x = {m};
  rt_ir_expr_t *root = NULL;
  rt_status_t st = rt_ir_mutate(m, (rt_ir_expr_t *)fn, expand_rewrite, &x, &root);
  if (!st) st = rt_ir_module_add(m, "main", root);
  if (!st) st = rt_ir_infer_types(m);
  if (st) {
    rt_module_release(m);
    return rt_status_annotate(st, "expanding the element expressions of custom ops");
  }
  *out_scratch = m;
  *out_fn = root;
  return RT_OK;
}
