/* rt_module_to_dot (include/rt/dot.h): Graphviz DOT of @main's dataflow.
 *
 * Algorithm: an iterative post-order walk of main's body that does not
 * enter function bodies. Each node gets a DOT id ("n<id>") when it is
 * drawn; a Let takes its body's id (and its var an edge from the value).
 * A call of a Primitive function opens `subgraph cluster_<k>`: a second
 * walk of the function's body draws its op calls there with ids
 * "c<k>_<id>", where each param stands for the call's argument, so edges
 * into a group end at the ops that read it; the call itself takes the id
 * of the body's result. Node statements are written as they are met, edges
 * into a second buffer written last, so every node is declared (inside its
 * cluster) before an edge names it.
 *
 * Invariants: the output is a valid `digraph` (labels escaped: `"` and `\`
 * backslashed, newlines as \n, other control bytes as spaces); one
 * `subgraph cluster_` per Primitive call; walks use explicit stacks. */
#include <stdlib.h>
#include <string.h>

#include "passes/fuse_ops.h"
#include "passes/pass.h"
#include "rt/dot.h"
#include "runtime/strbuf.h"
#include "runtime/mem.h"

typedef struct {
  uint32_t site; /* 0: main's scope; k > 0: cluster k */
  uint32_t id;   /* the node drawn; UINT32_MAX: none (an op) */
} ref_t;

typedef struct {
  uint32_t id_cap;
  ref_t *outer;        /* by node id: main-scope ids */
  uint32_t *outer_set; /* 1 when outer[id] is set */
  ref_t *inner;        /* by node id: ids in the current cluster */
  uint32_t *inner_gen; /* cluster number when inner[id] is set */
  uint32_t clusters;
  rt_strbuf_t nodes, edges;
} dot_t;

typedef rt_status_t (*walk_fn)(dot_t *d, rt_ir_expr_t *e);

typedef struct {
  rt_ir_expr_t *e;
  int32_t next;
} wframe_t;

static rt_ir_expr_t *child_at(rt_ir_expr_t *e, int32_t i) {
  switch (e->kind) {
    case RT_IR_CALL:
      if (i == 0) return e->call.callee;
      return i <= e->call.nargs ? e->call.args[i - 1] : NULL;
    case RT_IR_TUPLE:
      return i < e->tuple.count ? e->tuple.fields[i] : NULL;
    case RT_IR_FUNCTION:
      return NULL; /* bodies are not walked */
    default: {
      rt_ir_expr_t *kids[3];
      int32_t n = rt_ir_children(e, kids, 3);
      return i < n ? kids[i] : NULL;
    }
  }
}

/* Post order from root, each node once (by `seen`, cleared here), not
 * entering functions. */
static rt_status_t walk(dot_t *d, rt_ir_expr_t *root, uint8_t *seen, walk_fn fn) {
  memset(seen, 0, d->id_cap);
  size_t cap = 64, depth = 0;
  wframe_t *st = rt_mem_alloc(cap * sizeof *st);
  if (!st) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory drawing the graph");
  rt_status_t status = RT_OK;
  seen[root->id] = 1;
  st[depth++] = (wframe_t){root, 0};
  while (depth > 0 && !status) {
    wframe_t *f = &st[depth - 1];
    rt_ir_expr_t *c = child_at(f->e, f->next);
    if (c) {
      f->next++;
      if (c->id >= d->id_cap || seen[c->id]) continue;
      seen[c->id] = 1;
      if (depth == cap) {
        wframe_t *n = rt_mem_realloc(st, 2 * cap * sizeof *st);
        if (!n) {
          status = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory drawing the graph");
          break;
        }
        st = n;
        cap *= 2;
      }
      st[depth++] = (wframe_t){c, 0};
      continue;
    }
    rt_ir_expr_t *e = f->e;
    --depth;
    status = fn(d, e);
  }
  rt_mem_free(st);
  return status;
}

/* ---- text ---------------------------------------------------------------- */

static void put_escaped(rt_strbuf_t *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"' || ch == '\\') {
      rt_strbuf_putc(b, '\\');
      rt_strbuf_putc(b, (char)ch);
    } else if (ch == '\n') {
      rt_strbuf_puts(b, "\\n");
    } else if (ch < 0x20 || ch == 0x7f) {
      rt_strbuf_putc(b, ' ');
    } else {
      rt_strbuf_putc(b, (char)ch);
    }
  }
}

static void put_ref(rt_strbuf_t *b, ref_t r) {
  if (r.site == 0) {
    rt_strbuf_printf(b, "n%u", r.id);
  } else {
    rt_strbuf_printf(b, "c%u_%u", r.site, r.id);
  }
}

/* A label: `head`, then the node's type on a second line when known. */
static void label_text(rt_strbuf_t *lab, const rt_ir_expr_t *e, const char *head) {
  rt_strbuf_puts(lab, head);
  if (e->checked_type) {
    rt_strbuf_putc(lab, '\n');
    rt_ir_type_print(rt_ir_type_resolve(e->checked_type), lab);
  }
}

static void emit_node(dot_t *d, ref_t r, const rt_strbuf_t *label, const char *attrs, int indent) {
  for (int i = 0; i < indent; ++i) rt_strbuf_puts(&d->nodes, "  ");
  put_ref(&d->nodes, r);
  rt_strbuf_puts(&d->nodes, " [label=\"");
  if (label->data) put_escaped(&d->nodes, label->data, label->len);
  rt_strbuf_putc(&d->nodes, '"');
  if (attrs && *attrs) rt_strbuf_printf(&d->nodes, ", %s", attrs);
  rt_strbuf_puts(&d->nodes, "];\n");
}

static void emit_edge(dot_t *d, ref_t from, ref_t to, const char *label) {
  if (from.id == UINT32_MAX || to.id == UINT32_MAX) return;
  rt_strbuf_puts(&d->edges, "  ");
  put_ref(&d->edges, from);
  rt_strbuf_puts(&d->edges, " -> ");
  put_ref(&d->edges, to);
  if (label) {
    rt_strbuf_puts(&d->edges, " [label=\"");
    put_escaped(&d->edges, label, strlen(label));
    rt_strbuf_puts(&d->edges, "\"]");
  }
  rt_strbuf_puts(&d->edges, ";\n");
}

static const ref_t kNone = {0, UINT32_MAX};

static ref_t outer_ref(const dot_t *d, const rt_ir_expr_t *e) {
  return (e->id < d->id_cap && d->outer_set[e->id]) ? d->outer[e->id] : kNone;
}

static ref_t inner_ref(const dot_t *d, const rt_ir_expr_t *e) {
  if (e->id < d->id_cap && d->inner_gen[e->id] == d->clusters) return d->inner[e->id];
  return kNone;
}

/* Head text of a leaf or call node. */
static void head_text(rt_strbuf_t *b, const rt_ir_expr_t *e) {
  switch (e->kind) {
    case RT_IR_VAR:
      rt_strbuf_printf(b, "%%%s", e->var.name);
      break;
    case RT_IR_GLOBAL_VAR:
      rt_strbuf_printf(b, "@%s", e->global.name);
      break;
    case RT_IR_CONSTANT:
      if (rt_tensor_rank(e->constant.value) == 0) {
        rt_strbuf_printf(b, "%g", rt_tensor_get_f64(e->constant.value, 0));
      } else {
        rt_strbuf_puts(b, "constant");
      }
      break;
    case RT_IR_CALL:
      if (e->call.callee->kind == RT_IR_OP) {
        rt_strbuf_puts(b, e->call.callee->op.op->name);
      } else if (e->call.callee->kind == RT_IR_GLOBAL_VAR) {
        rt_strbuf_printf(b, "call @%s", e->call.callee->global.name);
      } else {
        rt_strbuf_puts(b, "call");
      }
      break;
    case RT_IR_TUPLE:
      rt_strbuf_puts(b, "tuple");
      break;
    case RT_IR_TUPLE_GET_ITEM:
      rt_strbuf_printf(b, ".%d", (int)e->get_item.index);
      break;
    case RT_IR_IF:
      rt_strbuf_puts(b, "if");
      break;
    case RT_IR_FUNCTION:
      rt_strbuf_puts(b, rt_ir_is_primitive(e) ? "fn (Primitive)" : "fn");
      break;
    default:
      break;
  }
}

static const char *shape_of_kind(const rt_ir_expr_t *e) {
  switch (e->kind) {
    case RT_IR_VAR:
    case RT_IR_GLOBAL_VAR:
      return "shape=ellipse";
    case RT_IR_CONSTANT:
      return "shape=box, style=dashed";
    case RT_IR_TUPLE:
    case RT_IR_TUPLE_GET_ITEM:
      return "shape=box, style=rounded";
    case RT_IR_IF:
      return "shape=diamond";
    default:
      return "";
  }
}

/* ---- clusters ------------------------------------------------------------ */

static rt_status_t inner_visit(dot_t *d, rt_ir_expr_t *e) {
  if (e->kind == RT_IR_OP) return RT_OK;
  if (e->id >= d->id_cap) return RT_OK;
  if (e->kind == RT_IR_VAR && d->inner_gen[e->id] == d->clusters) return RT_OK; /* a param */
  ref_t r = {d->clusters, e->id};
  d->inner[e->id] = r;
  d->inner_gen[e->id] = d->clusters;
  rt_strbuf_t lab;
  rt_strbuf_initialize(&lab);
  rt_strbuf_t head;
  rt_strbuf_initialize(&head);
  head_text(&head, e);
  label_text(&lab, e, head.data ? head.data : "");
  emit_node(d, r, &lab, shape_of_kind(e), 2);
  rt_strbuf_deinitialize(&head);
  rt_strbuf_deinitialize(&lab);
  for (int32_t i = 0;; ++i) {
    rt_ir_expr_t *c = child_at(e, i);
    if (!c) break;
    emit_edge(d, inner_ref(d, c), r, NULL);
  }
  return RT_OK;
}

static rt_status_t draw_group(dot_t *d, rt_ir_expr_t *call, ref_t *out) {
  rt_ir_expr_t *fn = call->call.callee;
  d->clusters++;
  uint32_t k = d->clusters;
  rt_strbuf_t name;
  rt_strbuf_initialize(&name);
  rt_status_t st = rt_ir_primitive_name(fn, &name);
  if (st) {
    rt_strbuf_deinitialize(&name);
    return st;
  }
  rt_strbuf_printf(&d->nodes, "  subgraph cluster_%u {\n    label=\"", k - 1);
  if (name.data) put_escaped(&d->nodes, name.data, name.len);
  rt_strbuf_puts(&d->nodes, "\";\n    style=rounded;\n    color=blue;\n");
  rt_strbuf_deinitialize(&name);
  for (int32_t i = 0; i < fn->fn.nparams && i < call->call.nargs; ++i) {
    const rt_ir_expr_t *p = fn->fn.params[i];
    if (p->id >= d->id_cap) continue;
    d->inner[p->id] = outer_ref(d, call->call.args[i]);
    d->inner_gen[p->id] = k;
  }
  uint8_t *seen = rt_mem_calloc(d->id_cap ? d->id_cap : 1, 1);
  if (!seen) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory drawing the graph");
  st = walk(d, fn->fn.body, seen, inner_visit);
  rt_mem_free(seen);
  rt_strbuf_puts(&d->nodes, "  }\n");
  *out = inner_ref(d, fn->fn.body);
  return st;
}

/* ---- main's scope --------------------------------------------------------- */

static void set_outer(dot_t *d, const rt_ir_expr_t *e, ref_t r) {
  d->outer[e->id] = r;
  d->outer_set[e->id] = 1;
}

static rt_status_t outer_visit(dot_t *d, rt_ir_expr_t *e) {
  if (e->kind == RT_IR_OP || d->outer_set[e->id]) return RT_OK;
  /* Primitive functions are drawn as clusters at their calls. */
  if (e->kind == RT_IR_FUNCTION && rt_ir_is_primitive(e)) return RT_OK;
  if (e->kind == RT_IR_LET) {
    emit_edge(d, outer_ref(d, e->let.value), outer_ref(d, e->let.var), NULL);
    set_outer(d, e, outer_ref(d, e->let.body));
    return RT_OK;
  }
  if (e->kind == RT_IR_CALL && rt_ir_is_primitive(e->call.callee)) {
    ref_t r = kNone;
    RT_RETURN_IF_ERROR(draw_group(d, e, &r));
    set_outer(d, e, r);
    return RT_OK;
  }
  ref_t r = {0, e->id};
  set_outer(d, e, r);
  rt_strbuf_t head, lab;
  rt_strbuf_initialize(&head);
  rt_strbuf_initialize(&lab);
  head_text(&head, e);
  label_text(&lab, e, head.data ? head.data : "");
  emit_node(d, r, &lab, shape_of_kind(e), 1);
  rt_strbuf_deinitialize(&head);
  rt_strbuf_deinitialize(&lab);
  if (e->kind == RT_IR_IF) {
    emit_edge(d, outer_ref(d, e->if_.cond), r, "cond");
    emit_edge(d, outer_ref(d, e->if_.then_branch), r, "then");
    emit_edge(d, outer_ref(d, e->if_.else_branch), r, "else");
    return RT_OK;
  }
  for (int32_t i = 0;; ++i) {
    rt_ir_expr_t *c = child_at(e, i);
    if (!c) break;
    emit_edge(d, outer_ref(d, c), r, NULL);
  }
  return RT_OK;
}

static rt_status_t module_to_dot(const rt_module_t *m, char **out_text);

rt_status_t rt_module_to_dot(const rt_module_t *m, char **out_text) {
  if (!m || !out_text) return RT_STATUS(INVALID_ARGUMENT, "rt_module_to_dot: NULL argument");
  char *text = NULL;
  rt_status_t st = module_to_dot(m, &text);
  return rt_mem_export_text(st, text, out_text);
}

/* rt_module_to_dot's text, from the library heap. */
static rt_status_t module_to_dot(const rt_module_t *m, char **out_text) {
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(m, "main");
  if (!main_fn) return RT_STATUS(NOT_FOUND, "the module has no @main");
  dot_t d;
  memset(&d, 0, sizeof d);
  d.id_cap = m->next_id;
  size_t n = d.id_cap ? d.id_cap : 1;
  d.outer = rt_mem_calloc(n, sizeof *d.outer);
  d.outer_set = rt_mem_calloc(n, sizeof *d.outer_set);
  d.inner = rt_mem_calloc(n, sizeof *d.inner);
  d.inner_gen = rt_mem_calloc(n, sizeof *d.inner_gen);
  uint8_t *seen = rt_mem_calloc(n, 1);
  rt_strbuf_initialize(&d.nodes);
  rt_strbuf_initialize(&d.edges);
  rt_status_t st = RT_OK;
  if (!d.outer || !d.outer_set || !d.inner || !d.inner_gen || !seen) {
    st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory drawing the graph");
  }
  if (!st) {
    rt_strbuf_puts(&d.nodes,
                   "digraph main {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n");
    /* main's params first, so unused ones appear too. */
    for (int32_t i = 0; i < main_fn->fn.nparams && !st; ++i) {
      rt_ir_expr_t *p = main_fn->fn.params[i];
      if (p->id < d.id_cap) st = outer_visit(&d, p);
    }
  }
  if (!st) {
    /* outer_visit skips what is drawn already (the params). */
    st = walk(&d, main_fn->fn.body, seen, outer_visit);
  }
  char *text = NULL;
  if (!st) {
    rt_strbuf_puts(&d.nodes, "  // data edges\n");
    if (d.edges.data) rt_strbuf_append(&d.nodes, d.edges.data, d.edges.len);
    rt_strbuf_puts(&d.nodes, "}\n");
    st = rt_strbuf_finish(&d.nodes, &text, NULL);
  }
  rt_strbuf_deinitialize(&d.nodes);
  rt_strbuf_deinitialize(&d.edges);
  rt_mem_free(d.outer);
  rt_mem_free(d.outer_set);
  rt_mem_free(d.inner);
  rt_mem_free(d.inner_gen);
  rt_mem_free(seen);
  if (st) return st;
  *out_text = text;
  return RT_OK;
}
