/* The Relay text parser: recursive descent over TVM v0.13's grammar
 * (docs/text-format.md lists what it accepts), building IR nodes directly
 * in the module's arena.
 *
 * Algorithm. A pull lexer feeds one current token; the few places that need
 * more lookahead (`%3 =`, `k=v` attributes, dotted op names, `.0`
 * projections) lex ahead on a copy of the lexer state. Names live in one
 * hash table keyed by the token text (`%x`, `%3`) whose entries chain to
 * the binding they shadow; every parse_expr call remembers the binding
 * stack height and pops back to it, which gives Relay's lexical scoping
 * for let, fn parameters, if branches, blocks and graph bindings alike.
 * Globals may be used before their `def` (recursion, mutual recursion):
 * references are recorded and checked after the last definition. The
 * `#[metadata]` section is located by a first lexing pass, read when the
 * first `meta[relay.Constant][i]` needs it (or at the end), and each index
 * maps to one shared Constant node.
 *
 * Invariants. Recursion happens only at brackets and blocks, and each of
 * those counts one level of `depth`, limited to RT_IR_MAX_NESTING, so deep
 * input is an error, not a stack overflow. Every error is an rt_ir_diag at
 * the offending token; scratch memory (tables, stacks, the JSON arena) is
 * freed on every path, nodes stay in the module's arena. */
#include <stdio.h>
#include <string.h>

#include "ir/text/text.h"

/* ---- small growable arrays ----------------------------------------------- */

typedef struct vec_t {
  void *data;
  int32_t count, cap;
} vec_t;

static rt_status_t vec_reserve(rt_allocator_t a, vec_t *v, int32_t need,
                               size_t elem) {
  if (need <= v->cap) return RT_OK;
  int32_t cap = v->cap ? v->cap : 16;
  while (cap < need) {
    if (cap > INT32_MAX / 2) return RT_STATUS(RESOURCE_EXHAUSTED, "parser stack too large");
    cap *= 2;
  }
  void *mem = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(a, (size_t)cap * elem, 16, false, &mem));
  if (v->count) memcpy(mem, v->data, (size_t)v->count * elem);
  rt_allocator_free(a, v->data);
  v->data = mem;
  v->cap = cap;
  return RT_OK;
}

#define VEC_AT(v, T, i) (((T *)(v).data)[i])

/* ---- parser state -------------------------------------------------------- */

typedef struct slot_t {
  const char *key;      /* NULL = empty slot */
  size_t len;
  uint64_t hash;
  int32_t top;          /* index into binds, -1 = not bound now */
} slot_t;

typedef struct bind_t {
  const char *key;
  size_t len;
  uint64_t hash;
  int32_t prev;         /* the binding it shadows, -1 = none */
  rt_ir_expr_t *expr;
} bind_t;

typedef struct item_t {  /* a pending `let` or `e;` of a statement list */
  rt_ir_expr_t *var;     /* NULL for `e;` sequencing */
  rt_ir_expr_t *value;
  rt_ir_span_t start;
} item_t;

typedef struct gref_t {
  rt_ir_expr_t *global;
} gref_t;

typedef struct parser_t {
  rt_module_t *m;
  const rt_ir_source_t *src;
  rt_allocator_t alloc;
  rt_ir_lexer_t lx;
  rt_ir_token_t tok;
  rt_ir_span_t prev;     /* the last consumed token */
  const char *prev_end;  /* one past its last byte */
  int32_t depth;
  slot_t *slots;
  size_t nslots, nused;
  vec_t binds;           /* bind_t */
  vec_t exprs;           /* rt_ir_expr_t *: args, fields, params */
  vec_t types;           /* rt_ir_type_t * */
  vec_t keys;            /* const char * (attr keys) */
  vec_t key_spans;       /* rt_ir_span_t */
  vec_t values;          /* rt_attr_value_t (attr values) */
  vec_t items;           /* rt_attr_value_t (array elements) */
  vec_t stmts;           /* item_t */
  vec_t grefs;           /* gref_t */
  int64_t dims[RT_TENSOR_MAX_RANK];
  /* metadata */
  bool has_meta, meta_loaded;
  size_t meta_offset;
  rt_ir_text_meta_t meta;
  rt_ir_expr_t **meta_nodes;
  rt_arena_t scratch;
} parser_t;

/* ---- tokens -------------------------------------------------------------- */

static rt_status_t next(parser_t *p) {
  p->prev = p->tok.span;
  p->prev_end = p->tok.text + p->tok.len;
  return rt_ir_lex(&p->lx, &p->tok);
}

/* The token after the current one (lexed on a copy; errors leave `out` EOF). */
static void peek_next(const parser_t *p, rt_ir_lexer_t *lx, rt_ir_token_t *out) {
  rt_status_t s = rt_ir_lex(lx, out);
  if (s) {
    rt_status_free(s);
    memset(out, 0, sizeof(*out));
    out->kind = RT_IR_TOK_EOF;
  }
  (void)p;
}

static rt_ir_tok_kind_t kind_after(const parser_t *p) {
  rt_ir_lexer_t lx = p->lx;
  rt_ir_token_t t;
  peek_next(p, &lx, &t);
  return t.kind;
}

static rt_ir_span_t span_from(const parser_t *p, rt_ir_span_t start) {
  rt_ir_span_t s = start;
  s.end_line = p->prev.end_line;
  s.end_col = p->prev.end_col;
  return s;
}

static rt_status_t found_error(parser_t *p, const char *what) {
  const rt_ir_token_t *t = &p->tok;
  if (t->kind == RT_IR_TOK_EOF) {
    return rt_ir_diag(t->span, "expected %s, found end of input", what);
  }
  if (t->kind == RT_IR_TOK_METADATA) {
    return rt_ir_diag(t->span, "expected %s, found `#[metadata]`", what);
  }
  int len = t->len > 40 ? 40 : (int)t->len;
  return rt_ir_diag(t->span, "expected %s, found `%.*s`", what, len, t->text);
}

static rt_status_t expect(parser_t *p, rt_ir_tok_kind_t kind, const char *what) {
  if (p->tok.kind != kind) return found_error(p, what);
  return next(p);
}

static bool tok_is_ident(const rt_ir_token_t *t, const char *word) {
  return t->kind == RT_IR_TOK_IDENT && strlen(word) == t->len &&
         memcmp(t->text, word, t->len) == 0;
}

/* Consumes an opening bracket, counting one nesting level. */
static rt_status_t enter(parser_t *p, rt_ir_tok_kind_t kind, const char *what) {
  if (p->tok.kind != kind) return found_error(p, what);
  if (p->depth >= RT_IR_MAX_NESTING) {
    return rt_ir_diag(p->tok.span, "nesting deeper than %d levels",
                      RT_IR_MAX_NESTING);
  }
  p->depth++;
  return next(p);
}

static rt_status_t leave(parser_t *p, rt_ir_tok_kind_t kind, const char *what) {
  RT_RETURN_IF_ERROR(expect(p, kind, what));
  p->depth--;
  return RT_OK;
}

static rt_status_t arena_str(parser_t *p, const char *s, size_t len, char **out) {
  return rt_arena_strndup(&p->m->arena, s, len, out);
}

/* Wraps an unpositioned error from a constructor as a diagnostic. */
static rt_status_t at(rt_ir_span_t span, rt_status_t status) {
  if (!status) return RT_OK;
  const char *msg = rt_status_message(status);
  /* Already a diagnostic of this file? Keep it. */
  if (span.source && span.source->name &&
      strncmp(msg, span.source->name, strlen(span.source->name)) == 0) {
    return status;
  }
  if (rt_status_code(status) == RT_STATUS_RESOURCE_EXHAUSTED) return status;
  rt_status_t d = rt_ir_diag(span, "%s", msg);
  rt_status_free(status);
  return d;
}

/* ---- names --------------------------------------------------------------- */

static uint64_t hash_key(const char *s, size_t len) {
  uint64_t h = UINT64_C(1469598103934665603);
  for (size_t i = 0; i < len; ++i) h = (h ^ (uint8_t)s[i]) * UINT64_C(1099511628211);
  return h;
}

static slot_t *find_slot(parser_t *p, const char *key, size_t len, uint64_t h) {
  size_t mask = p->nslots - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    slot_t *s = &p->slots[i];
    if (!s->key || (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0)) {
      return s;
    }
  }
}

static rt_status_t grow_slots(parser_t *p) {
  size_t n = p->nslots ? p->nslots * 2 : 256;
  slot_t *old = p->slots;
  size_t old_n = p->nslots;
  void *mem = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(p->alloc, n * sizeof(slot_t), 16, true, &mem));
  p->slots = mem;
  p->nslots = n;
  for (size_t i = 0; i < old_n; ++i) {
    if (old[i].key) *find_slot(p, old[i].key, old[i].len, old[i].hash) = old[i];
  }
  rt_allocator_free(p->alloc, old);
  return RT_OK;
}

static rt_ir_expr_t *lookup(parser_t *p, const char *key, size_t len) {
  if (!p->nslots) return NULL;
  slot_t *s = find_slot(p, key, len, hash_key(key, len));
  return s->key && s->top >= 0 ? VEC_AT(p->binds, bind_t, s->top).expr : NULL;
}

static rt_status_t bind(parser_t *p, const char *key, size_t len, rt_ir_expr_t *e) {
  if ((p->nused + 1) * 2 > p->nslots) RT_RETURN_IF_ERROR(grow_slots(p));
  uint64_t h = hash_key(key, len);
  slot_t *s = find_slot(p, key, len, h);
  if (!s->key) {
    *s = (slot_t){key, len, h, -1};
    p->nused++;
  }
  RT_RETURN_IF_ERROR(vec_reserve(p->alloc, &p->binds, p->binds.count + 1, sizeof(bind_t)));
  VEC_AT(p->binds, bind_t, p->binds.count) = (bind_t){key, len, h, s->top, e};
  s->top = p->binds.count++;
  return RT_OK;
}

static void unbind_to(parser_t *p, int32_t mark) {
  while (p->binds.count > mark) {
    bind_t *b = &VEC_AT(p->binds, bind_t, --p->binds.count);
    find_slot(p, b->key, b->len, b->hash)->top = b->prev;
  }
}

/* ---- scratch stacks ------------------------------------------------------ */

static rt_status_t push_expr(parser_t *p, rt_ir_expr_t *e) {
  RT_RETURN_IF_ERROR(vec_reserve(p->alloc, &p->exprs, p->exprs.count + 1, sizeof(e)));
  VEC_AT(p->exprs, rt_ir_expr_t *, p->exprs.count++) = e;
  return RT_OK;
}

static rt_status_t push_type(parser_t *p, rt_ir_type_t *t) {
  RT_RETURN_IF_ERROR(vec_reserve(p->alloc, &p->types, p->types.count + 1, sizeof(t)));
  VEC_AT(p->types, rt_ir_type_t *, p->types.count++) = t;
  return RT_OK;
}

/* ---- types --------------------------------------------------------------- */

static rt_status_t parse_type(parser_t *p, rt_ir_type_t **out);

/* types := type (',' type)* ','?   up to `close`; pushes onto p->types. */
static rt_status_t parse_type_list(parser_t *p, rt_ir_tok_kind_t close,
                                   const char *what) {
  while (p->tok.kind != close) {
    rt_ir_type_t *t = NULL;
    RT_RETURN_IF_ERROR(parse_type(p, &t));
    RT_RETURN_IF_ERROR(push_type(p, t));
    if (p->tok.kind != RT_IR_TOK_COMMA) {
      if (p->tok.kind != close) return found_error(p, what);
      break;
    }
    RT_RETURN_IF_ERROR(next(p));
  }
  return RT_OK;
}

/* shape := '(' (dim (',' dim)* ','?)? ')'
 * dim   := INT | '?' */
static rt_status_t parse_shape(parser_t *p, int32_t *out_rank) {
  RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LPAREN, "`(` starting a shape"));
  int32_t rank = 0;
  while (p->tok.kind != RT_IR_TOK_RPAREN) {
    int64_t dim;
    if (p->tok.kind == RT_IR_TOK_QUESTION) {
      dim = RT_DIM_ANY;
    } else if (p->tok.kind == RT_IR_TOK_INT) {
      dim = p->tok.i;
      if (dim < 0) return rt_ir_diag(p->tok.span, "negative dimension %lld", (long long)dim);
    } else if (tok_is_ident(&p->tok, "meta")) {
      return rt_ir_diag(p->tok.span, "meta references as dimensions are not supported");
    } else {
      return found_error(p, "a dimension (an integer or `?`)");
    }
    if (rank >= RT_TENSOR_MAX_RANK) {
      return rt_ir_diag(p->tok.span, "tensor rank exceeds %d", RT_TENSOR_MAX_RANK);
    }
    p->dims[rank++] = dim;
    RT_RETURN_IF_ERROR(next(p));
    if (p->tok.kind != RT_IR_TOK_COMMA) break;
    RT_RETURN_IF_ERROR(next(p));
  }
  RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RPAREN, "`,` or `)` in a shape"));
  *out_rank = rank;
  return RT_OK;
}

static rt_status_t parse_dtype(parser_t *p, rt_dtype_t *out) {
  if (p->tok.kind != RT_IR_TOK_IDENT) return found_error(p, "a dtype");
  rt_status_t s = rt_dtype_parse(p->tok.text, p->tok.len, out);
  if (s) {
    rt_status_free(s);
    return rt_ir_diag(p->tok.span, "unknown dtype `%.*s`",
                      (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
  }
  return next(p);
}

static bool has_prefix(const rt_ir_token_t *t, const char *prefix) {
  size_t n = strlen(prefix);
  return t->len >= n && memcmp(t->text, prefix, n) == 0;
}

/* type := '(' (type (',' type)* ','?)? ')'        tuple; (T) is a 1-tuple, as TVM
 *       | 'fn' '(' types ')' '->' type
 *       | 'Tensor' '[' shape ',' DTYPE ']'
 *       | ('List' | 'Option') '[' type ']'       the built-in ADTs
 *       | DTYPE                                   0-d tensor (int*, uint*, float*, bool)
 *       | '_'                                     incomplete */
static rt_status_t parse_type(parser_t *p, rt_ir_type_t **out) {
  rt_ir_token_t t = p->tok;
  if (t.kind == RT_IR_TOK_LPAREN) {
    int32_t base = p->types.count;
    RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LPAREN, "`(`"));
    RT_RETURN_IF_ERROR(parse_type_list(p, RT_IR_TOK_RPAREN, "`,` or `)` in a tuple type"));
    RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RPAREN, "`)`"));
    rt_status_t s = rt_ir_tuple_type(p->m, p->types.count - base,
                                     &VEC_AT(p->types, rt_ir_type_t *, base), out);
    p->types.count = base;
    return s;
  }
  if (t.kind == RT_IR_TOK_KW_FN) {
    RT_RETURN_IF_ERROR(next(p));
    int32_t base = p->types.count;
    RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LPAREN, "`(` after `fn`"));
    RT_RETURN_IF_ERROR(parse_type_list(p, RT_IR_TOK_RPAREN, "`,` or `)` in a function type"));
    RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RPAREN, "`)`"));
    RT_RETURN_IF_ERROR(expect(p, RT_IR_TOK_ARROW, "`->` in a function type"));
    rt_ir_type_t *ret = NULL;
    RT_RETURN_IF_ERROR(parse_type(p, &ret));
    rt_status_t s = rt_ir_func_type(p->m, p->types.count - base,
                                    &VEC_AT(p->types, rt_ir_type_t *, base), ret, out);
    p->types.count = base;
    return s;
  }
  if (t.kind != RT_IR_TOK_IDENT) return found_error(p, "a type");
  if (tok_is_ident(&t, "Tensor")) {
    RT_RETURN_IF_ERROR(next(p));
    RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LBRACKET, "`[` after `Tensor`"));
    int32_t rank = 0;
    RT_RETURN_IF_ERROR(parse_shape(p, &rank));
    RT_RETURN_IF_ERROR(expect(p, RT_IR_TOK_COMMA, "`,` before the dtype"));
    rt_dtype_t dtype;
    RT_RETURN_IF_ERROR(parse_dtype(p, &dtype));
    RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RBRACKET, "`]` closing `Tensor[`"));
    return rt_ir_tensor_type(p->m, dtype, rank, p->dims, out);
  }
  if (tok_is_ident(&t, "List") || tok_is_ident(&t, "Option")) {
    rt_ir_type_kind_t kind = tok_is_ident(&t, "List") ? RT_IR_TYPE_LIST : RT_IR_TYPE_OPTION;
    RT_RETURN_IF_ERROR(next(p));
    RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LBRACKET, kind == RT_IR_TYPE_LIST ? "`[` after `List`"
                                                                            : "`[` after `Option`"));
    rt_ir_type_t *elem = NULL;
    RT_RETURN_IF_ERROR(parse_type(p, &elem));
    RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RBRACKET, "`]` closing the element type"));
    return rt_ir_adt_type(p->m, kind, elem, out);
  }
  if (tok_is_ident(&t, "_")) {
    RT_RETURN_IF_ERROR(next(p));
    return rt_ir_incomplete_type(p->m, out);
  }
  if (has_prefix(&t, "int") || has_prefix(&t, "uint") || has_prefix(&t, "float") ||
      has_prefix(&t, "bfloat") || has_prefix(&t, "bool")) {
    rt_dtype_t dtype;
    RT_RETURN_IF_ERROR(parse_dtype(p, &dtype));
    return rt_ir_tensor_type(p->m, dtype, 0, NULL, out);
  }
  return rt_ir_diag(t.span,
                    "type `%.*s` is not supported (ADTs other than List and Option, and type variables, are not supported)",
                    (int)(t.len > 40 ? 40 : t.len), t.text);
}

/* ---- attribute values ---------------------------------------------------- */

/* IDENT ('.' IDENT)* '=' ahead? (an attribute, not an argument) */
static bool at_attr(const parser_t *p) {
  if (p->tok.kind != RT_IR_TOK_IDENT) return false;
  rt_ir_lexer_t lx = p->lx;
  for (;;) {
    rt_ir_token_t t;
    peek_next(p, &lx, &t);
    if (t.kind == RT_IR_TOK_EQUAL) return true;
    if (t.kind != RT_IR_TOK_PERIOD) return false;
    peek_next(p, &lx, &t);
    if (t.kind != RT_IR_TOK_IDENT) return false;
  }
}

/* value := INT | FLOAT | BOOL | STRING | 'None' | 'nullptr'
 *        | '[' (value (',' value)* ','?)? ']' | '(' value ')' */
static rt_status_t parse_value(parser_t *p, rt_attr_value_t *out) {
  rt_ir_token_t t = p->tok;
  memset(out, 0, sizeof(*out));
  switch (t.kind) {
    case RT_IR_TOK_INT:
      out->kind = RT_ATTR_INT;
      out->i = t.i;
      return next(p);
    case RT_IR_TOK_FLOAT:
      out->kind = RT_ATTR_FLOAT;
      out->f = t.f;
      return next(p);
    case RT_IR_TOK_BOOL:
      out->kind = RT_ATTR_BOOL;
      out->b = t.b;
      return next(p);
    case RT_IR_TOK_STRING: {
      char *s = NULL;
      RT_RETURN_IF_ERROR(arena_str(p, t.text + 1, t.len - 2, &s));
      out->kind = RT_ATTR_STRING;
      out->s = s;
      return next(p);
    }
    case RT_IR_TOK_LBRACKET: {
      RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LBRACKET, "`[`"));
      int32_t base = p->items.count;
      while (p->tok.kind != RT_IR_TOK_RBRACKET) {
        rt_attr_value_t v;
        RT_RETURN_IF_ERROR(parse_value(p, &v));
        RT_RETURN_IF_ERROR(vec_reserve(p->alloc, &p->items, p->items.count + 1, sizeof(v)));
        VEC_AT(p->items, rt_attr_value_t, p->items.count++) = v;
        if (p->tok.kind != RT_IR_TOK_COMMA) break;
        RT_RETURN_IF_ERROR(next(p));
      }
      RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RBRACKET, "`,` or `]` in an array"));
      int32_t n = p->items.count - base;
      void *mem = NULL;
      RT_RETURN_IF_ERROR(rt_arena_alloc_array(&p->m->arena, (size_t)n + 1,
                                              sizeof(rt_attr_value_t), &mem));
      if (n) memcpy(mem, &VEC_AT(p->items, rt_attr_value_t, base), (size_t)n * sizeof(rt_attr_value_t));
      p->items.count = base;
      out->kind = RT_ATTR_ARRAY;
      out->array.items = mem;
      out->array.count = n;
      return RT_OK;
    }
    case RT_IR_TOK_LPAREN:
      RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LPAREN, "`(`"));
      RT_RETURN_IF_ERROR(parse_value(p, out));
      return leave(p, RT_IR_TOK_RPAREN, "`)`");
    default:
      if (tok_is_ident(&t, "None") || tok_is_ident(&t, "nullptr")) {
        out->kind = RT_ATTR_NONE;
        return next(p);
      }
      if (tok_is_ident(&t, "meta")) {
        return rt_ir_diag(t.span, "meta references as attribute values are not supported");
      }
      return found_error(p, "an attribute value (a number, bool, string, None or [...])");
  }
}

/* dotted := IDENT ('.' IDENT)*   joined with '.', into the module arena.
 * A '.' is taken only when an IDENT follows (so `%t.0` stays a projection). */
static rt_status_t parse_dotted(parser_t *p, char **out) {
  rt_strbuf_t buf;
  rt_strbuf_initialize(&buf);
  rt_strbuf_append(&buf, p->tok.text, p->tok.len);
  rt_status_t s = next(p);
  while (!s && p->tok.kind == RT_IR_TOK_PERIOD) {
    rt_ir_lexer_t lx = p->lx;
    rt_ir_token_t t;
    peek_next(p, &lx, &t);
    if (t.kind != RT_IR_TOK_IDENT) break;
    s = next(p);
    if (!s) {
      rt_strbuf_putc(&buf, '.');
      rt_strbuf_append(&buf, p->tok.text, p->tok.len);
      s = next(p);
    }
  }
  if (!s && buf.failed) s = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  if (!s) s = arena_str(p, buf.data, buf.len, out);
  rt_strbuf_deinitialize(&buf);
  return s;
}

/* attr_kv := IDENT ('.' IDENT)* '=' value   pushed onto keys/values;
 * `base` is where this list's keys start. */
static rt_status_t parse_attr(parser_t *p, int32_t base) {
  rt_ir_span_t start = p->tok.span;
  char *key = NULL;
  RT_RETURN_IF_ERROR(parse_dotted(p, &key));
  for (int32_t i = base; i < p->keys.count; ++i) {
    if (strcmp(VEC_AT(p->keys, const char *, i), key) == 0) {
      return rt_ir_diag(start, "duplicate attribute `%s`", key);
    }
  }
  RT_RETURN_IF_ERROR(expect(p, RT_IR_TOK_EQUAL, "`=`"));
  rt_attr_value_t v;
  RT_RETURN_IF_ERROR(parse_value(p, &v));
  RT_RETURN_IF_ERROR(vec_reserve(p->alloc, &p->keys, p->keys.count + 1, sizeof(char *)));
  RT_RETURN_IF_ERROR(vec_reserve(p->alloc, &p->key_spans, p->keys.count + 1, sizeof(start)));
  RT_RETURN_IF_ERROR(vec_reserve(p->alloc, &p->values, p->keys.count + 1, sizeof(v)));
  VEC_AT(p->key_spans, rt_ir_span_t, p->keys.count) = start;
  VEC_AT(p->values, rt_attr_value_t, p->keys.count) = v;
  VEC_AT(p->keys, const char *, p->keys.count++) = key;
  p->values.count = p->key_spans.count = p->keys.count;
  return RT_OK;
}

/* ---- expressions --------------------------------------------------------- */

static rt_status_t parse_expr(parser_t *p, rt_ir_expr_t **out);
static rt_status_t parse_binop(parser_t *p, int min_prec, rt_ir_expr_t **out);

static rt_status_t scalar(parser_t *p, const rt_ir_token_t *t, rt_ir_expr_t **out) {
  rt_tensor_t *tensor = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(p->m->allocator, t->dtype, 0, NULL, &tensor));
  void *d = rt_tensor_data(tensor);
  if (t->kind == RT_IR_TOK_BOOL) {
    *(uint8_t *)d = t->b ? 1 : 0;
  } else if (t->kind == RT_IR_TOK_INT) {
    if (t->dtype.bits == 16) { int16_t v = (int16_t)t->i; memcpy(d, &v, 2); }
    else if (t->dtype.bits == 32) { int32_t v = (int32_t)t->i; memcpy(d, &v, 4); }
    else memcpy(d, &t->i, 8);
  } else if (t->dtype.bits == 16) {
    memcpy(d, &t->f16, 2);
  } else if (t->dtype.bits == 32) {
    memcpy(d, &t->f32, 4);
  } else {
    memcpy(d, &t->f, 8);
  }
  rt_status_t s = rt_ir_constant(p->m, t->span, tensor, out);
  rt_tensor_release(tensor);
  return s;
}

static rt_status_t load_meta(parser_t *p) {
  if (p->meta_loaded) return RT_OK;
  RT_RETURN_IF_ERROR(rt_ir_text_meta_load(p->src, p->meta_offset, &p->scratch, &p->meta));
  p->meta_loaded = true;
  void *mem = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&p->scratch, (size_t)p->meta.count + 1,
                                          sizeof(rt_ir_expr_t *), &mem));
  p->meta_nodes = mem;
  return RT_OK;
}


/* meta_ref := 'meta' '[' IDENT ('.' IDENT)* ']' '[' INT ']' */
static rt_status_t parse_meta_ref(parser_t *p, rt_ir_expr_t **out) {
  rt_ir_span_t start = p->tok.span;
  RT_RETURN_IF_ERROR(next(p));
  RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LBRACKET, "`[` after `meta`"));
  if (p->tok.kind != RT_IR_TOK_IDENT) return found_error(p, "a metadata type key");
  char *key = NULL;
  RT_RETURN_IF_ERROR(parse_dotted(p, &key));
  RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RBRACKET, "`]`"));
  if (strcmp(key, "relay.Constant") != 0) {
    return rt_ir_diag(start, "meta[%s] is not supported (only meta[relay.Constant])", key);
  }
  RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LBRACKET, "`[` before the metadata index"));
  if (p->tok.kind != RT_IR_TOK_INT) return found_error(p, "a metadata index");
  int64_t index = p->tok.i;
  RT_RETURN_IF_ERROR(next(p));
  RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RBRACKET, "`]`"));
  rt_ir_span_t span = span_from(p, start);
  if (!p->has_meta) {
    return rt_ir_diag(span, "meta[relay.Constant][%lld] used, but there is no #[metadata] section",
                      (long long)index);
  }
  RT_RETURN_IF_ERROR(load_meta(p));
  if (index < 0 || index >= p->meta.count) {
    return rt_ir_diag(span,
                      "meta[relay.Constant][%lld] is out of range (the metadata has %d constants)",
                      (long long)index, (int)p->meta.count);
  }
  if (p->meta_nodes[index]) {
    *out = p->meta_nodes[index];
    return RT_OK;
  }
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_ir_text_meta_tensor(&p->meta, p->src, p->m->allocator,
                                            (int32_t)index, span, &t));
  rt_status_t s = rt_ir_constant(p->m, span, t, out);
  rt_tensor_release(t);
  if (!s) p->meta_nodes[index] = *out;
  return s;
}

/* fundef := '(' (param (',' param)*)? (',' attr_kv)* ','? ')' ('->' type)? '{' expr '}'
 * param  := LOCAL (':' type)?
 * (`start` is the `def` or `fn` token; type parameters are not supported) */
static rt_status_t parse_fundef(parser_t *p, rt_ir_span_t start, rt_ir_expr_t **out) {
  if (p->tok.kind == RT_IR_TOK_LBRACKET) {
    return rt_ir_diag(p->tok.span, "type parameters are not supported");
  }
  int32_t mark = p->binds.count, ebase = p->exprs.count, kbase = p->keys.count;
  RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LPAREN, "`(` starting the parameters"));
  while (p->tok.kind != RT_IR_TOK_RPAREN) {
    if (at_attr(p)) {
      RT_RETURN_IF_ERROR(parse_attr(p, kbase));
    } else if (p->tok.kind == RT_IR_TOK_LOCAL && p->keys.count == kbase) {
      rt_ir_token_t name = p->tok;
      RT_RETURN_IF_ERROR(next(p));
      if (p->tok.kind == RT_IR_TOK_LBRACE) {
        return rt_ir_diag(p->tok.span, "parameter virtual devices are not supported");
      }
      rt_ir_type_t *ann = NULL;
      if (p->tok.kind == RT_IR_TOK_COLON) {
        RT_RETURN_IF_ERROR(next(p));
        RT_RETURN_IF_ERROR(parse_type(p, &ann));
      }
      char *vname = NULL;
      rt_ir_expr_t *var = NULL;
      RT_RETURN_IF_ERROR(arena_str(p, name.text + 1, name.len - 1, &vname));
      RT_RETURN_IF_ERROR(at(name.span, rt_ir_var(p->m, name.span, vname, ann, &var)));
      RT_RETURN_IF_ERROR(push_expr(p, var));
      RT_RETURN_IF_ERROR(bind(p, name.text, name.len, var));
    } else {
      return found_error(p, p->keys.count == kbase ? "a parameter or an attribute `k=v`"
                                                   : "an attribute `k=v` (parameters come first)");
    }
    if (p->tok.kind != RT_IR_TOK_COMMA) break;
    RT_RETURN_IF_ERROR(next(p));
  }
  RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RPAREN, "`,` or `)` after a parameter"));
  rt_ir_type_t *ret = NULL;
  if (p->tok.kind == RT_IR_TOK_ARROW) {
    RT_RETURN_IF_ERROR(next(p));
    RT_RETURN_IF_ERROR(parse_type(p, &ret));
  }
  rt_ir_expr_t *body = NULL;
  RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LBRACE, "`{` starting the function body"));
  RT_RETURN_IF_ERROR(parse_expr(p, &body));
  RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RBRACE, "`}` closing the function body"));
  rt_ir_attrs_t *attrs = NULL;
  int32_t nk = p->keys.count - kbase;
  if (nk > 0) {
    RT_RETURN_IF_ERROR(rt_ir_generic_attrs(p->m, nk, &VEC_AT(p->keys, const char *, kbase),
                                           &VEC_AT(p->values, rt_attr_value_t, kbase),
                                           &attrs));
  }
  rt_ir_span_t span = span_from(p, start);
  rt_status_t s = rt_ir_function(p->m, span, p->exprs.count - ebase,
                                 &VEC_AT(p->exprs, rt_ir_expr_t *, ebase), body, ret,
                                 attrs, out);
  p->exprs.count = ebase;
  p->keys.count = p->values.count = p->key_spans.count = kbase;
  unbind_to(p, mark);
  return at(span, s);
}

/* if := 'if' '(' expr ')' '{' expr '}' 'else' '{' expr '}' */
static rt_status_t parse_if(parser_t *p, rt_ir_expr_t **out) {
  rt_ir_span_t start = p->tok.span;
  rt_ir_expr_t *cond = NULL, *then_b = NULL, *else_b = NULL;
  RT_RETURN_IF_ERROR(next(p));
  RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LPAREN, "`(` after `if`"));
  RT_RETURN_IF_ERROR(parse_expr(p, &cond));
  RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RPAREN, "`)` closing the condition"));
  RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LBRACE, "`{` starting the then branch"));
  RT_RETURN_IF_ERROR(parse_expr(p, &then_b));
  RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RBRACE, "`}` closing the then branch"));
  RT_RETURN_IF_ERROR(expect(p, RT_IR_TOK_KW_ELSE, "`else`"));
  RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LBRACE, "`{` starting the else branch"));
  RT_RETURN_IF_ERROR(parse_expr(p, &else_b));
  RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RBRACE, "`}` closing the else branch"));
  rt_ir_span_t span = span_from(p, start);
  return at(span, rt_ir_if(p->m, span, cond, then_b, else_b, out));
}

/* tuple := '(' ')' | '(' expr ')' | '(' expr ',' (expr ',')* expr? ')' */
static rt_status_t parse_paren(parser_t *p, rt_ir_expr_t **out) {
  rt_ir_span_t start = p->tok.span;
  RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LPAREN, "`(`"));
  if (p->tok.kind == RT_IR_TOK_RPAREN) {
    RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RPAREN, "`)`"));
    rt_ir_span_t span = span_from(p, start);
    return at(span, rt_ir_tuple(p->m, span, 0, NULL, out));
  }
  rt_ir_expr_t *first = NULL;
  RT_RETURN_IF_ERROR(parse_expr(p, &first));
  if (p->tok.kind != RT_IR_TOK_COMMA) {
    RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RPAREN, "`,` or `)`"));
    *out = first;
    return RT_OK;
  }
  int32_t ebase = p->exprs.count;
  RT_RETURN_IF_ERROR(push_expr(p, first));
  while (p->tok.kind == RT_IR_TOK_COMMA) {
    RT_RETURN_IF_ERROR(next(p));
    if (p->tok.kind == RT_IR_TOK_RPAREN) break;
    rt_ir_expr_t *e = NULL;
    RT_RETURN_IF_ERROR(parse_expr(p, &e));
    RT_RETURN_IF_ERROR(push_expr(p, e));
  }
  RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RPAREN, "`,` or `)` in a tuple"));
  rt_ir_span_t span = span_from(p, start);
  rt_status_t s = rt_ir_tuple(p->m, span, p->exprs.count - ebase,
                              &VEC_AT(p->exprs, rt_ir_expr_t *, ebase), out);
  p->exprs.count = ebase;
  return at(span, s);
}

static rt_status_t unsupported(const rt_ir_token_t *t, const char *why) {
  return rt_ir_diag(t->span, "`%.*s` is not supported (%s)", (int)t->len, t->text, why);
}

/* atom := INT | FLOAT | BOOL | LOCAL | GRAPH | GLOBAL | OPNAME | meta_ref
 *       | 'fn' fundef | if | tuple | '{' expr '}'
 * then optionally ONE '.' INT (a TupleGetItem). */
static rt_status_t parse_atom(parser_t *p, rt_ir_expr_t **out) {
  rt_ir_token_t t = p->tok;
  rt_ir_expr_t *e = NULL;
  switch (t.kind) {
    case RT_IR_TOK_INT:
    case RT_IR_TOK_FLOAT:
    case RT_IR_TOK_BOOL:
      RT_RETURN_IF_ERROR(scalar(p, &t, &e));
      RT_RETURN_IF_ERROR(next(p));
      break;
    case RT_IR_TOK_LOCAL:
    case RT_IR_TOK_GRAPH:
      e = lookup(p, t.text, t.len);
      if (!e) {
        return rt_ir_diag(t.span, "undefined %s `%.*s`",
                          t.kind == RT_IR_TOK_LOCAL ? "variable" : "graph binding",
                          (int)(t.len > 64 ? 64 : t.len), t.text);
      }
      RT_RETURN_IF_ERROR(next(p));
      break;
    case RT_IR_TOK_GLOBAL: {
      char *name = NULL;
      RT_RETURN_IF_ERROR(arena_str(p, t.text + 1, t.len - 1, &name));
      RT_RETURN_IF_ERROR(at(t.span, rt_ir_global_var(p->m, t.span, name, &e)));
      RT_RETURN_IF_ERROR(vec_reserve(p->alloc, &p->grefs, p->grefs.count + 1, sizeof(gref_t)));
      VEC_AT(p->grefs, gref_t, p->grefs.count++) = (gref_t){e};
      RT_RETURN_IF_ERROR(next(p));
      break;
    }
    case RT_IR_TOK_KW_FN:
      RT_RETURN_IF_ERROR(next(p));
      RT_RETURN_IF_ERROR(parse_fundef(p, t.span, &e));
      break;
    case RT_IR_TOK_KW_IF:
      RT_RETURN_IF_ERROR(parse_if(p, &e));
      break;
    case RT_IR_TOK_LPAREN:
      RT_RETURN_IF_ERROR(parse_paren(p, &e));
      break;
    case RT_IR_TOK_LBRACE:
      RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LBRACE, "`{`"));
      RT_RETURN_IF_ERROR(parse_expr(p, &e));
      RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RBRACE, "`}` closing the block"));
      break;
    case RT_IR_TOK_KW_REF:
    case RT_IR_TOK_KW_REF_READ:
    case RT_IR_TOK_KW_REF_WRITE:
      return unsupported(&t, "references");
    case RT_IR_TOK_KW_MATCH:
    case RT_IR_TOK_KW_PMATCH:
      return unsupported(&t, "ADTs");
    case RT_IR_TOK_IDENT: {
      if (tok_is_ident(&t, "meta") && kind_after(p) == RT_IR_TOK_LBRACKET) {
        RT_RETURN_IF_ERROR(parse_meta_ref(p, &e));
        break;
      }
      char *name = NULL;
      RT_RETURN_IF_ERROR(parse_dotted(p, &name));
      const rt_ir_op_t *op = rt_ir_op_lookup(name, strlen(name));
      if (!op) return rt_ir_diag(t.span, "operator `%s` not found", name);
      RT_RETURN_IF_ERROR(at(t.span, rt_ir_op_ref(p->m, span_from(p, t.span), op, &e)));
      break;
    }
    default:
      return found_error(p, "an expression");
  }
  if (p->tok.kind == RT_IR_TOK_PERIOD && kind_after(p) == RT_IR_TOK_INT) {
    RT_RETURN_IF_ERROR(next(p));
    rt_ir_token_t idx = p->tok;
    if (idx.i < 0 || idx.i > INT32_MAX) {
      return rt_ir_diag(idx.span, "tuple index %lld is out of range", (long long)idx.i);
    }
    RT_RETURN_IF_ERROR(next(p));
    rt_ir_span_t span = span_from(p, t.span);
    return at(span, rt_ir_get_item(p->m, span, e, (int32_t)idx.i, out));
  }
  *out = e;
  return RT_OK;
}

/* Builds callee(args..., attrs...) from the stacks above the bases. */
static rt_status_t build_call(parser_t *p, rt_ir_span_t span, rt_ir_expr_t *callee,
                              int32_t ebase, int32_t kbase, rt_ir_expr_t **out) {
  int32_t n = p->exprs.count - ebase, nk = p->keys.count - kbase;
  const char **keys = &VEC_AT(p->keys, const char *, kbase);
  rt_attr_value_t *values = &VEC_AT(p->values, rt_attr_value_t, kbase);
  rt_ir_attrs_t *attrs = NULL;
  if (callee->kind == RT_IR_OP) {
    const rt_ir_op_t *op = callee->op.op;
    if (op->num_inputs >= 0 && n != op->num_inputs) {
      return rt_ir_diag(span, "operator `%s` expects %d argument%s, got %d", op->name,
                        (int)op->num_inputs, op->num_inputs == 1 ? "" : "s", (int)n);
    }
    rt_status_t s = rt_ir_op_attrs(p->m, span, op, nk, keys, values, &attrs);
    if (s) {
      /* The message names the attribute ('strides'): point at its key. */
      rt_ir_span_t where = span;
      const char *msg = rt_status_message(s);
      for (int32_t i = 0; i < nk; ++i) {
        char quoted[128];
        snprintf(quoted, sizeof(quoted), "'%s'", keys[i]);
        if (strstr(msg, quoted)) {
          where = VEC_AT(p->key_spans, rt_ir_span_t, kbase + i);
          break;
        }
      }
      return at(where, s);
    }
  } else if (nk > 0) {
    RT_RETURN_IF_ERROR(rt_ir_generic_attrs(p->m, nk, keys, values, &attrs));
  }
  rt_status_t s = rt_ir_call(p->m, span, callee, n, &VEC_AT(p->exprs, rt_ir_expr_t *, ebase),
                             attrs, out);
  p->exprs.count = ebase;
  p->keys.count = p->values.count = p->key_spans.count = kbase;
  return at(span, s);
}

/* call := atom ('(' args ')')*
 * args := (expr (',' expr)*)? (',' attr_kv)* ','? */
static rt_status_t parse_call(parser_t *p, rt_ir_expr_t **out) {
  rt_ir_span_t start = p->tok.span;
  rt_ir_expr_t *e = NULL;
  RT_RETURN_IF_ERROR(parse_atom(p, &e));
  while (p->tok.kind == RT_IR_TOK_LPAREN) {
    int32_t ebase = p->exprs.count, kbase = p->keys.count;
    RT_RETURN_IF_ERROR(enter(p, RT_IR_TOK_LPAREN, "`(`"));
    while (p->tok.kind != RT_IR_TOK_RPAREN) {
      if (at_attr(p)) {
        RT_RETURN_IF_ERROR(parse_attr(p, kbase));
      } else if (p->keys.count > kbase) {
        return found_error(p, "an attribute `k=v` (arguments come first)");
      } else {
        rt_ir_expr_t *arg = NULL;
        RT_RETURN_IF_ERROR(parse_expr(p, &arg));
        RT_RETURN_IF_ERROR(push_expr(p, arg));
      }
      if (p->tok.kind != RT_IR_TOK_COMMA) break;
      RT_RETURN_IF_ERROR(next(p));
    }
    RT_RETURN_IF_ERROR(leave(p, RT_IR_TOK_RPAREN, "`,` or `)` in the arguments"));
    RT_RETURN_IF_ERROR(build_call(p, span_from(p, start), e, ebase, kbase, &e));
  }
  *out = e;
  return RT_OK;
}

static int binop_prec(rt_ir_tok_kind_t kind, const char **out_op) {
  switch (kind) {
    case RT_IR_TOK_STAR: *out_op = "multiply"; return 12;
    case RT_IR_TOK_SLASH: *out_op = "divide"; return 12;
    case RT_IR_TOK_PLUS: *out_op = "add"; return 10;
    case RT_IR_TOK_MINUS: *out_op = "subtract"; return 10;
    case RT_IR_TOK_LT: *out_op = "less"; return 8;
    case RT_IR_TOK_LE: *out_op = "less_equal"; return 8;
    case RT_IR_TOK_GT: *out_op = "greater"; return 8;
    case RT_IR_TOK_GE: *out_op = "greater_equal"; return 8;
    case RT_IR_TOK_EQEQ: *out_op = "equal"; return 7;
    case RT_IR_TOK_NE: *out_op = "not_equal"; return 7;
    default: *out_op = NULL; return -1;
  }
}

/* binop := call (BINOP call)*   precedence climbing, all left-associative:
 * `*` `/` 12, `+` `-` 10, `<` `<=` `>` `>=` 8, `==` `!=` 7. */
static rt_status_t parse_binop(parser_t *p, int min_prec, rt_ir_expr_t **out) {
  rt_ir_span_t start = p->tok.span;
  rt_ir_expr_t *lhs = NULL;
  RT_RETURN_IF_ERROR(parse_call(p, &lhs));
  for (;;) {
    const char *opname = NULL;
    int prec = binop_prec(p->tok.kind, &opname);
    if (prec < min_prec) break;
    rt_ir_token_t op_tok = p->tok;
    RT_RETURN_IF_ERROR(next(p));
    rt_ir_expr_t *rhs = NULL;
    RT_RETURN_IF_ERROR(parse_binop(p, prec + 1, &rhs));
    const rt_ir_op_t *op = rt_ir_op_lookup(opname, strlen(opname));
    if (!op) return rt_ir_diag(op_tok.span, "operator `%s` not found", opname);
    rt_ir_expr_t *callee = NULL;
    RT_RETURN_IF_ERROR(at(op_tok.span, rt_ir_op_ref(p->m, op_tok.span, op, &callee)));
    int32_t ebase = p->exprs.count, kbase = p->keys.count;
    RT_RETURN_IF_ERROR(push_expr(p, lhs));
    RT_RETURN_IF_ERROR(push_expr(p, rhs));
    RT_RETURN_IF_ERROR(build_call(p, span_from(p, start), callee, ebase, kbase, &lhs));
  }
  *out = lhs;
  return RT_OK;
}

static bool is_atomic(const rt_ir_expr_t *e) {
  return e->kind == RT_IR_VAR || e->kind == RT_IR_GLOBAL_VAR || e->kind == RT_IR_CONSTANT ||
         e->kind == RT_IR_OP;
}

static rt_status_t push_stmt(parser_t *p, rt_ir_expr_t *var, rt_ir_expr_t *value,
                             rt_ir_span_t start) {
  RT_RETURN_IF_ERROR(vec_reserve(p->alloc, &p->stmts, p->stmts.count + 1, sizeof(item_t)));
  VEC_AT(p->stmts, item_t, p->stmts.count++) = (item_t){var, value, start};
  return RT_OK;
}

/* A new variable from a LOCAL token with an optional `: type`. */
static rt_status_t parse_binder(parser_t *p, rt_ir_expr_t **out) {
  rt_ir_token_t name = p->tok;
  RT_RETURN_IF_ERROR(expect(p, RT_IR_TOK_LOCAL, "a variable `%name`"));
  rt_ir_type_t *ann = NULL;
  if (p->tok.kind == RT_IR_TOK_COLON) {
    RT_RETURN_IF_ERROR(next(p));
    RT_RETURN_IF_ERROR(parse_type(p, &ann));
  }
  char *vname = NULL;
  RT_RETURN_IF_ERROR(arena_str(p, name.text + 1, name.len - 1, &vname));
  RT_RETURN_IF_ERROR(at(name.span, rt_ir_var(p->m, name.span, vname, ann, out)));
  return bind(p, name.text, name.len, *out);
}

/* expr := stmt (';' stmt)*
 * stmt := GRAPH '=' binop ';'            DAG binding, no node of its own
 *       | 'let' LOCAL (':' type)? '=' binop ';'   a Let over the rest
 *       | 'free_var' LOCAL (':' type)? ';'
 *       | binop                          a non-final one becomes let %"" = e
 * Bindings made here are visible to the end of this expr. */
static rt_status_t parse_expr(parser_t *p, rt_ir_expr_t **out) {
  int32_t mark = p->binds.count, sbase = p->stmts.count;
  rt_ir_expr_t *result = NULL;
  for (;;) {
    rt_ir_token_t t = p->tok;
    if (t.kind == RT_IR_TOK_KW_LET) {
      RT_RETURN_IF_ERROR(next(p));
      rt_ir_expr_t *var = NULL, *value = NULL;
      /* Bound before its value, as TVM: a let may be recursive. */
      RT_RETURN_IF_ERROR(parse_binder(p, &var));
      RT_RETURN_IF_ERROR(expect(p, RT_IR_TOK_EQUAL, "`=` in a let"));
      RT_RETURN_IF_ERROR(parse_binop(p, 0, &value));
      RT_RETURN_IF_ERROR(expect(p, RT_IR_TOK_SEMI, "`;` after a let binding"));
      RT_RETURN_IF_ERROR(push_stmt(p, var, value, t.span));
      continue;
    }
    if (t.kind == RT_IR_TOK_GRAPH && kind_after(p) == RT_IR_TOK_EQUAL) {
      RT_RETURN_IF_ERROR(next(p));
      RT_RETURN_IF_ERROR(next(p));
      rt_ir_expr_t *value = NULL;
      RT_RETURN_IF_ERROR(parse_binop(p, 0, &value));
      RT_RETURN_IF_ERROR(expect(p, RT_IR_TOK_SEMI, "`;` after a graph binding"));
      if (lookup(p, t.text, t.len)) {
        return rt_ir_diag(t.span, "duplicate graph binding `%.*s`",
                          (int)(t.len > 64 ? 64 : t.len), t.text);
      }
      RT_RETURN_IF_ERROR(bind(p, t.text, t.len, value));
      if (!value->binding && !is_atomic(value)) {
        char *b = NULL;
        RT_RETURN_IF_ERROR(arena_str(p, t.text + 1, t.len - 1, &b));
        value->binding = b;
      }
      continue;
    }
    if (t.kind == RT_IR_TOK_KW_FREE_VAR) {
      RT_RETURN_IF_ERROR(next(p));
      rt_ir_expr_t *var = NULL;
      RT_RETURN_IF_ERROR(parse_binder(p, &var));
      RT_RETURN_IF_ERROR(expect(p, RT_IR_TOK_SEMI, "`;` after free_var"));
      continue;
    }
    rt_ir_expr_t *e = NULL;
    RT_RETURN_IF_ERROR(parse_binop(p, 0, &e));
    if (p->tok.kind == RT_IR_TOK_SEMI) {
      RT_RETURN_IF_ERROR(next(p));
      RT_RETURN_IF_ERROR(push_stmt(p, NULL, e, t.span));
      continue;
    }
    result = e;
    break;
  }
  while (p->stmts.count > sbase) {
    item_t it = VEC_AT(p->stmts, item_t, --p->stmts.count);
    rt_ir_expr_t *var = it.var;
    if (!var) RT_RETURN_IF_ERROR(rt_ir_var(p->m, it.start, "", NULL, &var));
    rt_ir_span_t span = span_from(p, it.start);
    RT_RETURN_IF_ERROR(at(span, rt_ir_let(p->m, span, var, it.value, result, &result)));
  }
  unbind_to(p, mark);
  *out = result;
  return RT_OK;
}

/* ---- module -------------------------------------------------------------- */

/* version := '#[' 'version' '=' STRING ']'   (only "0.0.5") */
static rt_status_t parse_version(parser_t *p) {
  if (p->tok.kind != RT_IR_TOK_ATTR_OPEN) {
    return rt_ir_diag(p->tok.span, "missing version header `#[version = \"0.0.5\"]`");
  }
  rt_ir_span_t start = p->tok.span;
  RT_RETURN_IF_ERROR(next(p));
  if (!tok_is_ident(&p->tok, "version")) {
    return rt_ir_diag(start, "missing version header `#[version = \"0.0.5\"]`");
  }
  RT_RETURN_IF_ERROR(next(p));
  RT_RETURN_IF_ERROR(expect(p, RT_IR_TOK_EQUAL, "`=`"));
  if (p->tok.kind != RT_IR_TOK_STRING) return found_error(p, "a version string");
  if (!(p->tok.len == 7 && memcmp(p->tok.text, "\"0.0.5\"", 7) == 0)) {
    return rt_ir_diag(p->tok.span, "unsupported version %.*s (only \"0.0.5\" is supported)",
                      (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
  }
  RT_RETURN_IF_ERROR(next(p));
  return expect(p, RT_IR_TOK_RBRACKET, "`]`");
}

/* definition := 'def' GLOBAL fundef */
static rt_status_t parse_def(parser_t *p) {
  rt_ir_span_t start = p->tok.span;
  RT_RETURN_IF_ERROR(next(p));
  rt_ir_token_t g = p->tok;
  RT_RETURN_IF_ERROR(expect(p, RT_IR_TOK_GLOBAL, "a global name `@name`"));
  char *name = NULL;
  RT_RETURN_IF_ERROR(arena_str(p, g.text + 1, g.len - 1, &name));
  if (rt_ir_module_lookup(p->m, name)) {
    return rt_ir_diag(g.span, "duplicate definition of global `@%s`", name);
  }
  rt_ir_expr_t *fn = NULL;
  RT_RETURN_IF_ERROR(parse_fundef(p, start, &fn));
  return at(start, rt_ir_module_add(p->m, name, fn));
}

/* module := version definition* ('#[metadata]' JSON)? EOF */
static rt_status_t parse_module(parser_t *p) {
  RT_RETURN_IF_ERROR(parse_version(p));
  for (;;) {
    rt_ir_tok_kind_t k = p->tok.kind;
    if (k == RT_IR_TOK_EOF || k == RT_IR_TOK_METADATA) break;
    if (k == RT_IR_TOK_KW_DEF) {
      RT_RETURN_IF_ERROR(parse_def(p));
    } else if (k == RT_IR_TOK_KW_TYPE) {
      return unsupported(&p->tok, "ADT definitions");
    } else if (k == RT_IR_TOK_KW_EXTERN) {
      return unsupported(&p->tok, "ADT definitions");
    } else if (k == RT_IR_TOK_ATTR_OPEN) {
      rt_ir_span_t at_span = p->tok.span;
      RT_RETURN_IF_ERROR(next(p));
      if (tok_is_ident(&p->tok, "version")) {
        return rt_ir_diag(at_span, "duplicate version header");
      }
      if (p->tok.kind == RT_IR_TOK_IDENT) {
        return rt_ir_diag(at_span, "unknown attribute `#[%.*s]`",
                          (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
      }
      return rt_ir_diag(at_span, "unknown attribute `#[`");
    } else {
      return found_error(p, "`def` or end of input");
    }
  }
  for (int32_t i = 0; i < p->grefs.count; ++i) {
    rt_ir_expr_t *g = VEC_AT(p->grefs, gref_t, i).global;
    if (!rt_ir_module_lookup(p->m, g->global.name)) {
      return rt_ir_diag(g->span, "undefined global `@%s`", g->global.name);
    }
  }
  if (p->has_meta) RT_RETURN_IF_ERROR(load_meta(p));
  return RT_OK;
}

static void parser_deinitialize(parser_t *p) {
  rt_allocator_free(p->alloc, p->slots);
  vec_t *vecs[] = {&p->binds, &p->exprs, &p->types, &p->keys, &p->key_spans,
                   &p->values, &p->items, &p->stmts, &p->grefs};
  for (size_t i = 0; i < RT_COUNTOF(vecs); ++i) rt_allocator_free(p->alloc, vecs[i]->data);
  rt_arena_deinitialize(&p->scratch);
}

rt_status_t rt_ir_parse_module(rt_module_t *m, const char *source_name,
                               const char *text, size_t size) {
  if (size > RT_IR_MAX_SOURCE_BYTES) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "%s: source of %zu bytes exceeds the %u-byte limit",
                     source_name ? source_name : "<string>", size, RT_IR_MAX_SOURCE_BYTES);
  }
  const rt_ir_source_t *src = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_set_source(m, source_name ? source_name : "<string>",
                                             text, size, &src));
  RT_RETURN_IF_ERROR(rt_ir_text_check_encoding(src));
  parser_t *p = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(m->allocator, sizeof(parser_t), 16, true, (void **)&p));
  p->m = m;
  p->src = src;
  p->alloc = m->allocator;
  rt_arena_initialize(m->allocator, &p->scratch);
  /* Find #[metadata] first: a meta reference may come before it. A lexing
   * error here is reported by the real pass, in text order. */
  rt_ir_lexer_t scan;
  rt_ir_lexer_initialize(src, &scan);
  for (;;) {
    rt_ir_token_t t;
    rt_status_t s = rt_ir_lex(&scan, &t);
    if (s) {
      rt_status_free(s);
      break;
    }
    if (t.kind == RT_IR_TOK_EOF) break;
    if (t.kind == RT_IR_TOK_METADATA) {
      p->has_meta = true;
      p->meta_offset = t.meta_offset;
      break;
    }
  }
  rt_ir_lexer_initialize(src, &p->lx);
  rt_status_t status = rt_ir_lex(&p->lx, &p->tok);
  if (!status) status = parse_module(p);
  parser_deinitialize(p);
  rt_allocator_free(m->allocator, p);
  return status;
}
