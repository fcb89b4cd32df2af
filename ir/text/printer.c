/* The Relay text printer: TVM v0.13's `astext` form (docs/text-format.md),
 * built so that print(parse(text)) is a fixed point and parse(print(m)) is
 * structurally equal to m, sharing included.
 *
 * Algorithm, per printed function:
 *  1. An iterative DFS lists every node reachable from the body in post
 *     order and counts the uses (edges) of each.
 *  2. Scopes: the body of the def, each if branch, each fn literal body,
 *     each let body, and the `{ ... }` block a let gets when it is not in
 *     final position. Walking the nodes in reverse post order (users before
 *     what they use), each node is placed: atoms (vars, globals, constants,
 *     ops) are always inline; a node used exactly once as the final
 *     expression of a scope or as a let's value is printed inline there;
 *     every other node is bound (`%N = ...;`) in the innermost scope that
 *     encloses all its uses (the LCA in the scope tree). Children's uses are
 *     then recorded in the scope their parent prints them in.
 *  3. Each scope prints its bound nodes in post order (so every binding
 *     comes before its first use), then its final expression; a let in
 *     final position continues the same block with its body's scope. Temp
 *     numbers are handed out as lines are written, per def, so a fn
 *     literal's inner lines are numbered before the line that binds it.
 * Var names are made unique per def as TVM does (`%p0`, `%p01`). Scalar
 * constants print inline with the shortest text that reads back to the
 * same bits; every other constant becomes `meta[relay.Constant][k]` and
 * lands in the #[metadata] section. Printing recurses only through nested
 * scopes (if, fn, block), with a depth limit; let chains are a loop. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ir/text/text.h"
#include "runtime/mem.h"

#define MAX_PRINT_DEPTH (4 * RT_IR_MAX_NESTING)

/* ---- pointer map --------------------------------------------------------- */

typedef struct pmap_t {
  const void **keys;
  int32_t *vals;
  size_t cap, count;
} pmap_t;

static size_t phash(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33;
  return (size_t)x;
}

/* Index of `key`, or -1. */
static int32_t pmap_get(const pmap_t *m, const void *key) {
  if (!m->cap) return -1;
  for (size_t i = phash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (m->keys[i] == key) return m->vals[i];
    if (!m->keys[i]) return -1;
  }
}

/* ---- printer state ------------------------------------------------------- */

enum { SLOT_NONE = 0, SLOT_FINAL = 1, SLOT_LETVALUE = 2 };

typedef struct info_t {
  rt_ir_expr_t *e;
  int32_t uses;
  int32_t acc;          /* LCA of the use scopes so far, -1 none */
  int32_t slot_scope;   /* scope of the last inline-capable use */
  int32_t slot_kind;    /* SLOT_* of that use */
  bool is_inline;       /* printed at its single use */
  int32_t text_scope;   /* where its text is printed */
  int32_t own1, own2;   /* child scopes: then/else, fn body, let host/body */
  int32_t temp;         /* %N once printed, -1 before */
  int32_t name;         /* vars: index into names, -1 before */
  bool binder;          /* vars: a param or let var */
  bool on_stack;        /* DFS */
} info_t;

typedef struct scope_t {
  int32_t parent, depth;
  int32_t first, last;  /* bound nodes: linked through next_bound */
} scope_t;

typedef struct printer_t {
  rt_allocator_t alloc;
  uint32_t flags;
  bool failed;          /* allocation failure or too deep: sticky */
  bool too_deep;
  /* module-wide: metadata constants */
  pmap_t meta_map;
  rt_ir_expr_t **meta;
  int32_t num_meta, cap_meta;
  /* per function */
  pmap_t map;
  info_t *info;
  int32_t ninfo, cap_info;
  int32_t *post;
  int32_t npost;
  int32_t *next_bound;  /* per info */
  int32_t cap_next_bound;
  scope_t *scopes;
  int32_t nscopes, cap_scopes;
  int32_t temp_counter;
  rt_arena_t names;     /* unique var names and the name-count table */
  char **name_text;     /* per var name index */
  int32_t nnames, cap_names;
  /* name -> count table (strings in `names`) */
  const char **nkeys;
  int32_t *ncounts;
  size_t ncap, ncount;
  int32_t depth;
} printer_t;

static bool grow(printer_t *p, void **data, int32_t *cap, int32_t need, size_t elem) {
  if (need <= *cap) return true;
  int32_t n = *cap ? *cap : 64;
  while (n < need) {
    if (n > INT32_MAX / 2) {
      p->failed = true;
      return false;
    }
    n *= 2;
  }
  void *mem = NULL;
  rt_status_t s = rt_allocator_malloc(p->alloc, (size_t)n * elem, 16, false, &mem);
  if (s) {
    rt_status_free(s);
    p->failed = true;
    return false;
  }
  if (*data) memcpy(mem, *data, (size_t)(*cap) * elem);
  rt_allocator_free(p->alloc, *data);
  *data = mem;
  *cap = n;
  return true;
}

static bool pmap_put(printer_t *p, pmap_t *m, const void *key, int32_t val) {
  if ((m->count + 1) * 2 > m->cap) {
    size_t n = m->cap ? m->cap * 2 : 256;
    void *k = NULL, *v = NULL;
    rt_status_t s = rt_allocator_malloc(p->alloc, n * sizeof(void *), 16, true, &k);
    if (!s) s = rt_allocator_malloc(p->alloc, n * sizeof(int32_t), 16, true, &v);
    if (s) {
      rt_status_free(s);
      rt_allocator_free(p->alloc, k);
      p->failed = true;
      return false;
    }
    pmap_t old = *m;
    m->keys = k;
    m->vals = v;
    m->cap = n;
    m->count = 0;
    for (size_t i = 0; i < old.cap; ++i) {
      if (old.keys[i]) {
        size_t j = phash(old.keys[i]) & (n - 1);
        while (m->keys[j]) j = (j + 1) & (n - 1);
        m->keys[j] = old.keys[i];
        m->vals[j] = old.vals[i];
        m->count++;
      }
    }
    rt_allocator_free(p->alloc, old.keys);
    rt_allocator_free(p->alloc, old.vals);
  }
  size_t i = phash(key) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
  if (!m->keys[i]) m->count++;
  m->keys[i] = key;
  m->vals[i] = val;
  return true;
}

static void pmap_free(printer_t *p, pmap_t *m) {
  rt_allocator_free(p->alloc, m->keys);
  rt_allocator_free(p->alloc, m->vals);
  memset(m, 0, sizeof(*m));
}

/* ---- types --------------------------------------------------------------- */

/* `stack` holds the types being printed: a type inside itself (a cyclic
 * type from a faulty inference) or nesting past the limit prints "...". */
static void print_type_rec(const rt_ir_type_t *type, const rt_ir_type_t **stack, int32_t depth,
                           rt_strbuf_t *out) {
  const rt_ir_type_t *t = type ? rt_ir_type_resolve((rt_ir_type_t *)type) : NULL;
  if (t && t->kind != RT_IR_TYPE_TENSOR) {
    bool cyclic = depth >= 2 * RT_IR_MAX_NESTING;
    for (int32_t i = 0; i < depth && !cyclic; ++i) cyclic = stack[i] == t;
    if (cyclic) {
      rt_strbuf_puts(out, "...");
      return;
    }
    stack[depth++] = t;
  }
  if (!t || t->kind == RT_IR_TYPE_INCOMPLETE) {
    rt_strbuf_putc(out, '_');
    return;
  }
  char dt[RT_DTYPE_NAME_MAX];
  switch (t->kind) {
    case RT_IR_TYPE_TENSOR:
      rt_dtype_name(t->tensor.dtype, dt);
      if (t->tensor.rank == 0) {
        rt_strbuf_puts(out, dt);
        return;
      }
      rt_strbuf_puts(out, "Tensor[(");
      for (int32_t i = 0; i < t->tensor.rank; ++i) {
        if (i) rt_strbuf_puts(out, ", ");
        if (t->tensor.shape[i] == RT_DIM_ANY) rt_strbuf_putc(out, '?');
        else rt_strbuf_printf(out, "%lld", (long long)t->tensor.shape[i]);
      }
      rt_strbuf_printf(out, "), %s]", dt);
      return;
    case RT_IR_TYPE_TUPLE:
      rt_strbuf_putc(out, '(');
      for (int32_t i = 0; i < t->tuple.count; ++i) {
        if (i) rt_strbuf_puts(out, ", ");
        print_type_rec(t->tuple.fields[i], stack, depth, out);
      }
      rt_strbuf_puts(out, t->tuple.count == 1 ? ",)" : ")");
      return;
    case RT_IR_TYPE_FUNC:
      rt_strbuf_puts(out, "fn (");
      for (int32_t i = 0; i < t->func.count; ++i) {
        if (i) rt_strbuf_puts(out, ", ");
        print_type_rec(t->func.params[i], stack, depth, out);
      }
      rt_strbuf_puts(out, ") -> ");
      print_type_rec(t->func.ret, stack, depth, out);
      return;
    case RT_IR_TYPE_LIST:
    case RT_IR_TYPE_OPTION:
      rt_strbuf_puts(out, t->kind == RT_IR_TYPE_LIST ? "List[" : "Option[");
      print_type_rec(t->adt.elem, stack, depth, out);
      rt_strbuf_putc(out, ']');
      return;
    default:
      rt_strbuf_putc(out, '_');
      return;
  }
}

void rt_ir_text_print_type(const rt_ir_type_t *type, rt_strbuf_t *out) {
  const rt_ir_type_t *stack[2 * RT_IR_MAX_NESTING];
  print_type_rec(type, stack, 0, out);
}

static void print_ty(printer_t *p, const rt_ir_expr_t *e, rt_strbuf_t *out) {
  if ((p->flags & RT_PRINT_NO_TYPES) || !e->checked_type) return;
  rt_strbuf_puts(out, " /* ty=");
  rt_ir_text_print_type(e->checked_type, out);
  rt_strbuf_puts(out, " */");
}

/* ---- names --------------------------------------------------------------- */

static uint64_t shash(const char *s) {
  uint64_t h = UINT64_C(1469598103934665603);
  for (; *s; ++s) h = (h ^ (uint8_t)*s) * UINT64_C(1099511628211);
  return h;
}

/* The count slot of `name` in the name table (inserting it with -1). */
static int32_t *name_slot(printer_t *p, const char *name, bool insert) {
  if ((p->ncount + 1) * 2 > p->ncap) {
    if (!insert && p->ncap) goto find;
    size_t n = p->ncap ? p->ncap * 2 : 256;
    void *k = NULL, *v = NULL;
    rt_status_t s = rt_allocator_malloc(p->alloc, n * sizeof(char *), 16, true, &k);
    if (!s) s = rt_allocator_malloc(p->alloc, n * sizeof(int32_t), 16, true, &v);
    if (s) {
      rt_status_free(s);
      rt_allocator_free(p->alloc, k);
      p->failed = true;
      return NULL;
    }
    const char **ok = p->nkeys;
    int32_t *ov = p->ncounts;
    size_t oc = p->ncap;
    p->nkeys = k;
    p->ncounts = v;
    p->ncap = n;
    for (size_t i = 0; i < oc; ++i) {
      if (!ok[i]) continue;
      size_t j = shash(ok[i]) & (n - 1);
      while (p->nkeys[j]) j = (j + 1) & (n - 1);
      p->nkeys[j] = ok[i];
      p->ncounts[j] = ov[i];
    }
    rt_allocator_free(p->alloc, ok);
    rt_allocator_free(p->alloc, ov);
  }
find:
  if (!p->ncap) return NULL;
  for (size_t i = shash(name) & (p->ncap - 1);; i = (i + 1) & (p->ncap - 1)) {
    if (p->nkeys[i] && strcmp(p->nkeys[i], name) == 0) return &p->ncounts[i];
    if (!p->nkeys[i]) {
      if (!insert) return NULL;
      char *copy = NULL;
      rt_status_t s = rt_arena_strndup(&p->names, name, strlen(name), &copy);
      if (s) {
        rt_status_free(s);
        p->failed = true;
        return NULL;
      }
      p->nkeys[i] = copy;
      p->ncounts[i] = 0;
      p->ncount++;
      return &p->ncounts[i];
    }
  }
}

/* TVM's GetUniqueName: a taken name gets the first free counter suffix. */
static const char *unique_name(printer_t *p, const char *base) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  /* Only identifier characters survive, and the name must start with a
   * letter or it gets a `v` prefix (as TVM), so it lexes back as one. */
  if (!((base[0] >= 'a' && base[0] <= 'z') || (base[0] >= 'A' && base[0] <= 'Z'))) {
    rt_strbuf_putc(&b, 'v');
  }
  for (const char *c = base; *c; ++c) {
    bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9') || *c == '_' || *c == '/';
    rt_strbuf_putc(&b, ok ? *c : '_');
  }
  const char *result = "v";
  if (b.failed || !b.data) {
    p->failed = true;
    rt_strbuf_deinitialize(&b);
    return result;
  }
  int32_t *slot = name_slot(p, b.data, false);
  char *chosen = NULL;
  if (!slot) {
    slot = name_slot(p, b.data, true);
    if (slot) *slot = 0;
    rt_status_t s = rt_arena_strndup(&p->names, b.data, b.len, &chosen);
    if (s) { rt_status_free(s); p->failed = true; }
  } else {
    char buf[32];
    size_t base_len = b.len;
    for (;;) {
      ++*slot;
      snprintf(buf, sizeof(buf), "%d", (int)*slot);
      rt_strbuf_truncate(&b, base_len);
      rt_strbuf_puts(&b, buf);
      if (b.failed) { p->failed = true; break; }
      if (!name_slot(p, b.data, false)) break;
    }
    if (!p->failed) {
      int32_t *ns = name_slot(p, b.data, true);
      if (ns) *ns = 0;
      rt_status_t s = rt_arena_strndup(&p->names, b.data, b.len, &chosen);
      if (s) { rt_status_free(s); p->failed = true; }
    }
  }
  rt_strbuf_deinitialize(&b);
  return chosen ? chosen : result;
}

static const char *var_name(printer_t *p, int32_t vi) {
  info_t *in = &p->info[vi];
  if (in->name < 0) {
    if (!grow(p, (void **)&p->name_text, &p->cap_names, p->nnames + 1, sizeof(char *))) {
      return "v";
    }
    p->name_text[p->nnames] = (char *)unique_name(p, in->e->var.name ? in->e->var.name : "");
    in->name = p->nnames++;
  }
  return p->name_text[in->name];
}

/* ---- analysis ------------------------------------------------------------ */

/* The i-th child of e (evaluation order). */
static rt_ir_expr_t *child_at(rt_ir_expr_t *e, int32_t i) {
  switch (e->kind) {
    case RT_IR_CALL: return i == 0 ? e->call.callee : e->call.args[i - 1];
    case RT_IR_TUPLE: return e->tuple.fields[i];
    case RT_IR_TUPLE_GET_ITEM: return e->get_item.tuple;
    case RT_IR_LET: return i == 0 ? e->let.var : i == 1 ? e->let.value : e->let.body;
    case RT_IR_IF: return i == 0 ? e->if_.cond : i == 1 ? e->if_.then_branch : e->if_.else_branch;
    case RT_IR_FUNCTION: return i < e->fn.nparams ? e->fn.params[i] : e->fn.body;
    default: return NULL;
  }
}

static int32_t num_children(const rt_ir_expr_t *e) {
  switch (e->kind) {
    case RT_IR_CALL: return 1 + e->call.nargs;
    case RT_IR_TUPLE: return e->tuple.count;
    case RT_IR_TUPLE_GET_ITEM: return 1;
    case RT_IR_LET: return 3;
    case RT_IR_IF: return 3;
    case RT_IR_FUNCTION: return e->fn.nparams + 1;
    default: return 0;
  }
}

static int32_t add_info(printer_t *p, rt_ir_expr_t *e) {
  if (!grow(p, (void **)&p->info, &p->cap_info, p->ninfo + 1, sizeof(info_t))) return -1;
  int32_t i = p->ninfo++;
  p->info[i] = (info_t){.e = e, .acc = -1, .slot_scope = -1, .text_scope = -1,
                        .own1 = -1, .own2 = -1, .temp = -1, .name = -1};
  if (!pmap_put(p, &p->map, e, i)) return -1;
  return i;
}

/* Post-order DFS from root (iterative). */
static void collect(printer_t *p, rt_ir_expr_t *root) {
  typedef struct frame_t { int32_t node, next; } frame_t;
  frame_t *stack = NULL;
  int32_t depth = 0, cap = 0;
  int32_t r = add_info(p, root);
  if (r < 0) return;
  if (!grow(p, (void **)&stack, &cap, 1, sizeof(frame_t))) return;
  stack[depth++] = (frame_t){r, 0};
  p->info[r].on_stack = true;
  int32_t cap_post = 0;
  while (depth > 0 && !p->failed) {
    frame_t *f = &stack[depth - 1];
    rt_ir_expr_t *e = p->info[f->node].e;
    if (f->next < num_children(e)) {
      rt_ir_expr_t *c = child_at(e, f->next++);
      if (!c) continue;
      int32_t ci = pmap_get(&p->map, c);
      if (ci >= 0) continue; /* seen (or on the stack: a cycle, ignored) */
      ci = add_info(p, c);
      if (ci < 0) break;
      if (!grow(p, (void **)&stack, &cap, depth + 1, sizeof(frame_t))) break;
      stack[depth++] = (frame_t){ci, 0};
      p->info[ci].on_stack = true;
    } else {
      p->info[f->node].on_stack = false;
      if (!grow(p, (void **)&p->post, &cap_post, p->npost + 1, sizeof(int32_t))) break;
      p->post[p->npost++] = f->node;
      depth--;
    }
  }
  rt_allocator_free(p->alloc, stack);
}

static int32_t new_scope(printer_t *p, int32_t parent) {
  if (!grow(p, (void **)&p->scopes, &p->cap_scopes, p->nscopes + 1, sizeof(scope_t))) return 0;
  int32_t d = parent >= 0 ? p->scopes[parent].depth + 1 : 0;
  p->scopes[p->nscopes] = (scope_t){parent, d, -1, -1};
  return p->nscopes++;
}

static int32_t lca(const printer_t *p, int32_t a, int32_t b) {
  while (a != b) {
    if (p->scopes[a].depth >= p->scopes[b].depth) a = p->scopes[a].parent;
    else b = p->scopes[b].parent;
    if (a < 0 || b < 0) return 0;
  }
  return a;
}

static void use(printer_t *p, rt_ir_expr_t *c, int32_t scope, int32_t slot) {
  int32_t ci = pmap_get(&p->map, c);
  if (ci < 0) return;
  info_t *in = &p->info[ci];
  in->acc = in->acc < 0 ? scope : lca(p, in->acc, scope);
  in->slot_scope = scope;
  in->slot_kind = slot;
}

static bool is_atom(const rt_ir_expr_t *e) {
  return e->kind == RT_IR_VAR || e->kind == RT_IR_GLOBAL_VAR || e->kind == RT_IR_CONSTANT ||
         e->kind == RT_IR_OP;
}

/* Places every node (see the file comment). `final` is the final of scope
 * 0; when `top` differs it is the def's function, which owns scope 0. */
static void place(printer_t *p, rt_ir_expr_t *top, rt_ir_expr_t *root) {
  for (int32_t k = 0; k < p->npost; ++k) {
    rt_ir_expr_t *e = p->info[p->post[k]].e;
    int32_t n = num_children(e);
    for (int32_t i = 0; i < n; ++i) {
      int32_t ci = pmap_get(&p->map, child_at(e, i));
      if (ci >= 0) p->info[ci].uses++;
    }
    if (e->kind == RT_IR_FUNCTION) {
      for (int32_t i = 0; i < e->fn.nparams; ++i) {
        int32_t ci = pmap_get(&p->map, e->fn.params[i]);
        if (ci >= 0) p->info[ci].binder = true;
      }
    } else if (e->kind == RT_IR_LET) {
      int32_t ci = pmap_get(&p->map, e->let.var);
      if (ci >= 0) p->info[ci].binder = true;
    }
  }
  int32_t ri = pmap_get(&p->map, root);
  if (ri < 0) return;
  if (top == root) p->info[ri].uses++;
  use(p, root, 0, SLOT_FINAL);
  for (int32_t k = p->npost - 1; k >= 0 && !p->failed; --k) {
    info_t *in = &p->info[p->post[k]];
    rt_ir_expr_t *e = in->e;
    if (is_atom(e)) continue;
    if (e == top && top != root) {
      in->is_inline = true; /* printed as the def, not as a node */
      in->own1 = 0;
      continue;
    }
    if (in->acc < 0) in->acc = 0; /* unreachable from root's uses: a cycle */
    if (in->uses == 1 && in->slot_kind != SLOT_NONE) {
      in->is_inline = true;
      in->text_scope = in->slot_scope;
    } else {
      in->text_scope = in->acc;
    }
    int32_t s = in->text_scope;
    switch (e->kind) {
      case RT_IR_CALL:
        use(p, e->call.callee, s, SLOT_NONE);
        for (int32_t i = 0; i < e->call.nargs; ++i) use(p, e->call.args[i], s, SLOT_NONE);
        break;
      case RT_IR_TUPLE:
        for (int32_t i = 0; i < e->tuple.count; ++i) use(p, e->tuple.fields[i], s, SLOT_NONE);
        break;
      case RT_IR_TUPLE_GET_ITEM:
        use(p, e->get_item.tuple, s, SLOT_NONE);
        break;
      case RT_IR_IF: {
        use(p, e->if_.cond, s, SLOT_NONE);
        int32_t t = new_scope(p, s);
        int32_t f = new_scope(p, s);
        in = &p->info[p->post[k]];
        in->own1 = t;
        in->own2 = f;
        use(p, e->if_.then_branch, t, SLOT_FINAL);
        use(p, e->if_.else_branch, f, SLOT_FINAL);
        break;
      }
      case RT_IR_FUNCTION: {
        int32_t b = new_scope(p, s);
        in = &p->info[p->post[k]];
        in->own1 = b;
        use(p, e->fn.body, b, SLOT_FINAL);
        break;
      }
      case RT_IR_LET: {
        bool final = in->is_inline && in->slot_kind == SLOT_FINAL;
        int32_t host = final ? s : new_scope(p, s);
        int32_t body = new_scope(p, host);
        in = &p->info[p->post[k]];
        in->own1 = host;
        in->own2 = body;
        use(p, e->let.value, host, SLOT_LETVALUE);
        use(p, e->let.body, body, SLOT_FINAL);
        break;
      }
      default:
        break;
    }
  }
  /* Bound nodes per scope, in post order. */
  if (!grow(p, (void **)&p->next_bound, &p->cap_next_bound, p->ninfo, sizeof(int32_t))) return;
  for (int32_t k = 0; k < p->npost; ++k) {
    int32_t i = p->post[k];
    info_t *in = &p->info[i];
    p->next_bound[i] = -1;
    if (is_atom(in->e) || in->is_inline || in->text_scope < 0) continue;
    scope_t *sc = &p->scopes[in->text_scope];
    if (sc->last < 0) sc->first = i;
    else p->next_bound[sc->last] = i;
    sc->last = i;
  }
}

/* ---- printing ------------------------------------------------------------ */

static void indent(rt_strbuf_t *out, int32_t n) {
  for (int32_t i = 0; i < n; ++i) rt_strbuf_putc(out, ' ');
}

static bool scalar_inline(const rt_tensor_t *t) {
  if (rt_tensor_rank(t) != 0) return false;
  rt_dtype_t d = rt_tensor_dtype(t);
  const void *v = rt_tensor_data(t);
  if (d.lanes != 1) return false;
  if (d.code == kDLInt) return d.bits == 16 || d.bits == 32 || d.bits == 64;
  if (d.code == kDLBool) return d.bits == 8 && *(const uint8_t *)v <= 1;
  if (d.code == kDLFloat) {
    double x;
    if (d.bits == 16) {
      uint16_t h;
      memcpy(&h, v, 2);
      x = rt_ir_f16_to_float(h);
    } else if (d.bits == 32) {
      float f;
      memcpy(&f, v, 4);
      x = f;
    } else if (d.bits == 64) {
      memcpy(&x, v, 8);
    } else {
      return false;
    }
    return !isnan(x);
  }
  return false;
}

static void print_constant(printer_t *p, rt_ir_expr_t *e, rt_strbuf_t *out) {
  const rt_tensor_t *t = e->constant.value;
  if (t && scalar_inline(t)) {
    rt_dtype_t d = rt_tensor_dtype(t);
    const void *v = rt_tensor_data(t);
    if (d.code == kDLBool) {
      rt_strbuf_puts(out, *(const uint8_t *)v ? "True" : "False");
    } else if (d.code == kDLInt) {
      int64_t x;
      if (d.bits == 16) { int16_t y; memcpy(&y, v, 2); x = y; }
      else if (d.bits == 32) { int32_t y; memcpy(&y, v, 4); x = y; }
      else memcpy(&x, v, 8);
      rt_strbuf_printf(out, "%lld%s", (long long)x,
                       d.bits == 16 ? "i16" : d.bits == 64 ? "i64" : "");
    } else {
      rt_ir_text_format_float(d, v, out);
      rt_strbuf_puts(out, d.bits == 16 ? "f16" : d.bits == 64 ? "f64" : "f");
    }
  } else {
    int32_t k = pmap_get(&p->meta_map, e);
    if (k < 0) {
      k = p->num_meta;
      if (grow(p, (void **)&p->meta, &p->cap_meta, k + 1, sizeof(rt_ir_expr_t *)) &&
          pmap_put(p, &p->meta_map, e, k)) {
        p->meta[p->num_meta++] = e;
      }
    }
    rt_strbuf_printf(out, "meta[relay.Constant][%d]", (int)k);
  }
  print_ty(p, e, out);
}

static void print_node(printer_t *p, int32_t ni, int32_t ind, rt_strbuf_t *out);

/* An operand: atoms as themselves, bound nodes by %N, inline ones in full. */
static void print_operand(printer_t *p, rt_ir_expr_t *e, int32_t ind, rt_strbuf_t *out) {
  int32_t i = pmap_get(&p->map, e);
  switch (e->kind) {
    case RT_IR_VAR:
      rt_strbuf_printf(out, "%%%s", i >= 0 ? var_name(p, i) : "v");
      return;
    case RT_IR_GLOBAL_VAR:
      rt_strbuf_printf(out, "@%s", e->global.name);
      return;
    case RT_IR_OP:
      rt_strbuf_puts(out, e->op.op->name);
      return;
    case RT_IR_CONSTANT:
      print_constant(p, e, out);
      return;
    default:
      break;
  }
  if (i < 0) {
    rt_strbuf_puts(out, "_");
    return;
  }
  if (p->info[i].is_inline || p->info[i].temp < 0) {
    /* A bound node not printed yet only happens on malformed (cyclic) IR. */
    if (!p->info[i].is_inline) {
      rt_strbuf_puts(out, "_");
      return;
    }
    print_node(p, i, ind, out);
    return;
  }
  rt_strbuf_printf(out, "%%%d", (int)p->info[i].temp);
}

/* A var where it is bound: name, `: annotation`, ty comment. */
static void print_var_def(printer_t *p, rt_ir_expr_t *v, rt_strbuf_t *out) {
  int32_t i = pmap_get(&p->map, v);
  rt_strbuf_printf(out, "%%%s", i >= 0 ? var_name(p, i) : "v");
  if (v->var.annotation) {
    rt_strbuf_puts(out, ": ");
    rt_ir_text_print_type(v->var.annotation, out);
  }
  print_ty(p, v, out);
}

static void print_attrs(const rt_ir_attrs_t *a, const rt_ir_op_t *op, bool first,
                        rt_strbuf_t *out) {
  if (!a) return;
  bool schema = op && a->count == op->num_fields;
  for (int32_t i = 0; i < a->count; ++i) {
    if (schema) {
      bool always = (op->fields[i].flags & RT_ATTR_F_ALWAYS_PRINT) != 0;
      if (!always && op->defaults && rt_attr_value_equal(&a->values[i], &op->defaults[i])) {
        continue;
      }
    }
    if (!first) rt_strbuf_puts(out, ", ");
    first = false;
    rt_strbuf_printf(out, "%s=", a->keys[i]);
    rt_attr_value_print(&a->values[i], out);
  }
}

static void print_scope(printer_t *p, int32_t scope, rt_ir_expr_t *final, bool force_let,
                        int32_t ind, rt_strbuf_t *out);

/* `(params, attrs) -> ret` of a function. */
static void print_header(printer_t *p, rt_ir_expr_t *fn, rt_strbuf_t *out) {
  rt_strbuf_putc(out, '(');
  for (int32_t i = 0; i < fn->fn.nparams; ++i) {
    if (i) rt_strbuf_puts(out, ", ");
    print_var_def(p, fn->fn.params[i], out);
  }
  print_attrs(fn->fn.attrs, NULL, fn->fn.nparams == 0, out);
  rt_strbuf_putc(out, ')');
  const rt_ir_type_t *ret = fn->fn.ret_type;
  if (!ret && !(p->flags & RT_PRINT_NO_TYPES) && fn->checked_type) {
    const rt_ir_type_t *ft = rt_ir_type_resolve(fn->checked_type);
    if (ft && ft->kind == RT_IR_TYPE_FUNC) ret = ft->func.ret;
  }
  if (ret) {
    rt_strbuf_puts(out, " -> ");
    rt_ir_text_print_type(ret, out);
  }
}

static void print_node(printer_t *p, int32_t ni, int32_t ind, rt_strbuf_t *out) {
  info_t in = p->info[ni];
  rt_ir_expr_t *e = in.e;
  if (++p->depth > MAX_PRINT_DEPTH) {
    p->too_deep = true;
    rt_strbuf_puts(out, "...");
    p->depth--;
    return;
  }
  switch (e->kind) {
    case RT_IR_CALL: {
      print_operand(p, e->call.callee, ind, out);
      rt_strbuf_putc(out, '(');
      for (int32_t i = 0; i < e->call.nargs; ++i) {
        if (i) rt_strbuf_puts(out, ", ");
        print_operand(p, e->call.args[i], ind, out);
      }
      const rt_ir_op_t *op = e->call.callee->kind == RT_IR_OP ? e->call.callee->op.op : NULL;
      print_attrs(e->call.attrs, op, e->call.nargs == 0, out);
      rt_strbuf_putc(out, ')');
      print_ty(p, e, out);
      break;
    }
    case RT_IR_TUPLE:
      rt_strbuf_putc(out, '(');
      for (int32_t i = 0; i < e->tuple.count; ++i) {
        if (i) rt_strbuf_puts(out, ", ");
        print_operand(p, e->tuple.fields[i], ind, out);
      }
      rt_strbuf_puts(out, e->tuple.count == 1 ? ",)" : ")");
      print_ty(p, e, out);
      break;
    case RT_IR_TUPLE_GET_ITEM: {
      rt_ir_expr_t *t = e->get_item.tuple;
      /* A scalar literal would glue to the index (`1.0`): parenthesize. */
      bool paren = t->kind == RT_IR_CONSTANT && t->constant.value &&
                   scalar_inline(t->constant.value);
      if (paren) rt_strbuf_putc(out, '(');
      print_operand(p, t, ind, out);
      if (paren) rt_strbuf_putc(out, ')');
      rt_strbuf_printf(out, ".%d", (int)e->get_item.index);
      print_ty(p, e, out);
      break;
    }
    case RT_IR_IF:
      rt_strbuf_puts(out, "if (");
      print_operand(p, e->if_.cond, ind, out);
      rt_strbuf_puts(out, ") {\n");
      print_scope(p, in.own1, e->if_.then_branch, false, ind + 2, out);
      indent(out, ind);
      rt_strbuf_puts(out, "} else {\n");
      print_scope(p, in.own2, e->if_.else_branch, false, ind + 2, out);
      indent(out, ind);
      rt_strbuf_putc(out, '}');
      break;
    case RT_IR_FUNCTION:
      rt_strbuf_puts(out, "fn ");
      print_header(p, e, out);
      rt_strbuf_puts(out, " {\n");
      print_scope(p, in.own1, e->fn.body, false, ind + 2, out);
      indent(out, ind);
      rt_strbuf_putc(out, '}');
      print_ty(p, e, out);
      break;
    case RT_IR_LET:
      rt_strbuf_puts(out, "{\n");
      print_scope(p, in.own1, e, true, ind + 2, out);
      indent(out, ind);
      rt_strbuf_putc(out, '}');
      break;
    default:
      print_operand(p, e, ind, out);
      break;
  }
  p->depth--;
}

/* A scope's lines: its bound nodes, then its final expression; a final let
 * (or `force_let` for a block's own let) continues with its body's scope. */
static void print_scope(printer_t *p, int32_t scope, rt_ir_expr_t *final, bool force_let,
                        int32_t ind, rt_strbuf_t *out) {
  rt_strbuf_t rhs;
  rt_strbuf_initialize(&rhs);
  for (;;) {
    for (int32_t b = p->scopes[scope].first; b >= 0; b = p->next_bound[b]) {
      rt_strbuf_truncate(&rhs, 0);
      print_node(p, b, ind, &rhs);
      p->info[b].temp = p->temp_counter++;
      indent(out, ind);
      rt_strbuf_printf(out, "%%%d = ", (int)p->info[b].temp);
      if (rhs.len) rt_strbuf_append(out, rhs.data, rhs.len);
      rt_strbuf_puts(out, ";\n");
      if (rhs.failed) p->failed = true;
    }
    int32_t fi = pmap_get(&p->map, final);
    if (final->kind == RT_IR_LET && fi >= 0 &&
        (force_let || (p->info[fi].is_inline && p->info[fi].slot_kind == SLOT_FINAL))) {
      force_let = false;
      indent(out, ind);
      rt_strbuf_puts(out, "let ");
      print_var_def(p, final->let.var, out);
      rt_strbuf_puts(out, " = ");
      print_operand(p, final->let.value, ind, out);
      rt_strbuf_puts(out, ";\n");
      scope = p->info[fi].own2;
      final = final->let.body;
      continue;
    }
    indent(out, ind);
    print_operand(p, final, ind, out);
    rt_strbuf_putc(out, '\n');
    break;
  }
  rt_strbuf_deinitialize(&rhs);
}

static void reset_function(printer_t *p) {
  pmap_free(p, &p->map);
  rt_allocator_free(p->alloc, p->info);
  rt_allocator_free(p->alloc, p->post);
  rt_allocator_free(p->alloc, p->next_bound);
  rt_allocator_free(p->alloc, p->scopes);
  rt_allocator_free(p->alloc, p->name_text);
  rt_allocator_free(p->alloc, p->nkeys);
  rt_allocator_free(p->alloc, p->ncounts);
  p->info = NULL;
  p->post = NULL;
  p->next_bound = NULL;
  p->scopes = NULL;
  p->name_text = NULL;
  p->nkeys = NULL;
  p->ncounts = NULL;
  p->ninfo = p->cap_info = p->npost = p->nscopes = p->cap_scopes = 0;
  p->cap_next_bound = 0;
  p->nnames = p->cap_names = 0;
  p->ncap = p->ncount = 0;
  p->temp_counter = 0;
  p->depth = 0;
  rt_arena_reset(&p->names);
}

/* Analyses `root` (a function or any expression) for printing. */
static void analyse(printer_t *p, rt_ir_expr_t *root, rt_ir_expr_t *final) {
  collect(p, root);
  new_scope(p, -1);
  if (!p->failed) place(p, root, final);
}

/* free_var lines for vars no param or let binds, at the top of a body. */
static void print_free_vars(printer_t *p, int32_t ind, rt_strbuf_t *out) {
  for (int32_t k = 0; k < p->npost; ++k) {
    info_t *in = &p->info[p->post[k]];
    if (in->e->kind != RT_IR_VAR || in->binder) continue;
    indent(out, ind);
    rt_strbuf_puts(out, "free_var ");
    print_var_def(p, in->e, out);
    rt_strbuf_puts(out, ";\n");
  }
}

static void print_function(printer_t *p, const char *global, rt_ir_expr_t *fn,
                           rt_strbuf_t *out) {
  analyse(p, fn, fn->fn.body);
  if (p->failed) return;
  /* The def itself is the scope-0 owner: its body is scope 0's final. */
  rt_strbuf_printf(out, "def @%s", global);
  print_header(p, fn, out);
  rt_strbuf_puts(out, " {\n");
  print_free_vars(p, 2, out);
  print_scope(p, 0, fn->fn.body, false, 2, out);
  rt_strbuf_puts(out, "}\n");
}

static void printer_initialize(printer_t *p, rt_allocator_t alloc, uint32_t flags) {
  memset(p, 0, sizeof(*p));
  p->alloc = alloc;
  p->flags = flags;
  rt_arena_initialize(alloc, &p->names);
}

static void printer_deinitialize(printer_t *p) {
  reset_function(p);
  pmap_free(p, &p->meta_map);
  rt_allocator_free(p->alloc, p->meta);
  rt_arena_deinitialize(&p->names);
}

rt_status_t rt_ir_print_module(const rt_module_t *m, uint32_t flags, char **out_text,
                               size_t *out_len) {
  printer_t p;
  printer_initialize(&p, m->allocator, flags);
  rt_strbuf_t out;
  rt_strbuf_initialize(&out);
  rt_strbuf_puts(&out, "#[version = \"0.0.5\"]\n");
  for (int32_t g = 0; g < m->num_globals && !p.failed; ++g) {
    if (g) rt_strbuf_putc(&out, '\n');
    rt_ir_expr_t *fn = m->globals[g].fn;
    if (!fn || fn->kind != RT_IR_FUNCTION) continue;
    print_function(&p, m->globals[g].name, fn, &out);
    reset_function(&p);
  }
  if (p.num_meta > 0) {
    if (flags & RT_PRINT_NO_METADATA) {
      rt_strbuf_puts(&out,
                     "/* For debugging purposes the metadata section has been omitted.\n"
                     " * If you would like to see the full metadata section you can set the \n"
                     " * option to `True` when invoking `astext`. \n"
                     " */\n");
    } else {
      rt_ir_text_meta_write(p.meta, p.num_meta, !(flags & RT_PRINT_NO_TYPES), &out);
    }
  }
  bool failed = p.failed, too_deep = p.too_deep;
  printer_deinitialize(&p);
  if (failed || too_deep) {
    rt_strbuf_deinitialize(&out);
    if (too_deep) {
      return RT_STATUS(RESOURCE_EXHAUSTED, "module nests deeper than %d scopes: cannot print",
                       MAX_PRINT_DEPTH);
    }
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory while printing");
  }
  return rt_strbuf_finish(&out, out_text, out_len);
}

void rt_ir_print_expr(const rt_ir_expr_t *expr, uint32_t flags, rt_strbuf_t *out) {
  printer_t p;
  printer_initialize(&p, rt_mem_current(), flags);
  rt_ir_expr_t *e = (rt_ir_expr_t *)expr;
  rt_strbuf_t buf;
  rt_strbuf_initialize(&buf);
  if (e->kind == RT_IR_FUNCTION) {
    /* Scope 0 holds nothing; the function prints inline as the final. */
    analyse(&p, e, e);
    if (!p.failed) {
      print_free_vars(&p, 0, &buf);
      print_scope(&p, 0, e, false, 0, &buf);
    }
  } else {
    analyse(&p, e, e);
    if (!p.failed) {
      print_free_vars(&p, 0, &buf);
      print_scope(&p, 0, e, false, 0, &buf);
    }
  }
  if (buf.len && buf.data[buf.len - 1] == '\n') rt_strbuf_truncate(&buf, buf.len - 1);
  if (p.failed || buf.failed) {
    rt_strbuf_puts(out, "<out of memory>");
  } else if (buf.len) {
    rt_strbuf_append(out, buf.data, buf.len);
  }
  rt_strbuf_deinitialize(&buf);
  printer_deinitialize(&p);
}
