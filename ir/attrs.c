/* Attribute values: the literal parser, schema conversion, equality, hash
 * and printing, the rt_attrs_* accessors, and the builders of op-call and
 * generic attrs (rt_ir_op_attrs, rt_ir_generic_attrs, declared in ir/ir.h).
 *
 * The parser reads the attribute `value` production of Relay text without
 * expression atoms: ints (optional i/i16/i32/i64 suffix; no suffix means
 * int32, or int64 when the value does not fit), floats (which in Relay
 * exist only with an f/f16/f32/f64 suffix, plus inff), True/False, strings
 * without escapes, None/nullptr, [..] arrays and a parenthesized value.
 * Floats print in the shortest %.Ng (N >= 6, TVM's precision) that strtod
 * reads back to the same double, with an `f` suffix, so print/parse is a
 * fixed point. Every value built here lives in the given arena; converted
 * values are deep copies, so op-call attrs never point into the caller's
 * memory (op defaults excepted: they live in static storage forever). */
#include "ir/attrs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "runtime/assert.h"

#define MAX_DEPTH 64 /* nesting of [...] and (...) */

/* ---- parsing ------------------------------------------------------------ */

typedef struct parser_t {
  rt_arena_t *arena;
  const char *text; /* the whole input, for messages */
  const char *p;
} parser_t;

static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
         c == '_';
}

static void skip_space(parser_t *ps) {
  while (is_space(*ps->p)) ps->p++;
}

static rt_status_t parse_error(const parser_t *ps, const char *what) {
  return RT_STATUS(INVALID_ARGUMENT, "attribute value \"%s\": %s at offset %d",
                   ps->text, what, (int)(ps->p - ps->text));
}

/* number := '-'* digits ('.' digits)? ([eE] [+-]? digits)? suffix?
 * suffix := 'i' | 'i16' | 'i32' | 'i64' | 'f' | 'f16' | 'f32' | 'f64'
 * A run of '-' folds by parity, as TVM's lexer does. */
static rt_status_t parse_number(parser_t *ps, rt_attr_value_t *out) {
  bool negative = false;
  while (*ps->p == '-') {
    negative = !negative;
    ps->p++;
  }
  if (strncmp(ps->p, "inff", 4) == 0 && !is_ident(ps->p[4])) {
    ps->p += 4;
    out->kind = RT_ATTR_FLOAT;
    out->f = negative ? -INFINITY : INFINITY;
    return RT_OK;
  }
  const char *start = ps->p;
  bool is_float_form = false;
  while (is_digit(*ps->p)) ps->p++;
  if (ps->p == start) return parse_error(ps, "expected a value");
  if (*ps->p == '.') {
    is_float_form = true;
    ps->p++;
    while (is_digit(*ps->p)) ps->p++;
  }
  if ((*ps->p == 'e' || *ps->p == 'E') &&
      (is_digit(ps->p[1]) ||
       ((ps->p[1] == '+' || ps->p[1] == '-') && is_digit(ps->p[2])))) {
    is_float_form = true;
    ps->p += 2;
    while (is_digit(*ps->p)) ps->p++;
  }
  size_t len = (size_t)(ps->p - start);
  char buf[64];
  if (len + 2 > sizeof buf) return parse_error(ps, "number too long");
  buf[0] = negative ? '-' : '+';
  memcpy(buf + 1, start, len);
  buf[len + 1] = '\0';

  /* Suffix. */
  char kind = 0;
  int width = 0;
  if (*ps->p == 'f' || *ps->p == 'i') {
    kind = *ps->p++;
    if (is_digit(*ps->p)) {
      const char *w = ps->p;
      while (is_digit(*ps->p)) ps->p++;
      if (ps->p - w == 2 && (strncmp(w, "16", 2) == 0 || strncmp(w, "32", 2) == 0 ||
                             strncmp(w, "64", 2) == 0)) {
        width = atoi(w);
      } else {
        return parse_error(ps, "unrecognized scalar width");
      }
    }
  }
  if (is_ident(*ps->p) || *ps->p == '.') {
    return parse_error(ps, "malformed number");
  }
  if (kind == 'f') {
    errno = 0;
    double v = strtod(buf, NULL);
    if (errno == ERANGE && isinf(v)) return parse_error(ps, "float out of range");
    if (width == 16 && fabs(v) > 65504.0) return parse_error(ps, "float16 out of range");
    if (width == 32 && isinf((float)v)) return parse_error(ps, "float32 out of range");
    out->kind = RT_ATTR_FLOAT;
    out->f = v;
    return RT_OK;
  }
  if (is_float_form) {
    return parse_error(ps, "a float needs an f suffix (as 1.5f)");
  }
  errno = 0;
  long long v = strtoll(buf, NULL, 10);
  if (errno == ERANGE) return parse_error(ps, "integer out of range");
  if ((kind == 'i' && (width == 0 || width == 32)) &&
      (v < INT32_MIN || v > INT32_MAX)) {
    return parse_error(ps, "integer out of range for int32");
  }
  if (kind == 'i' && width == 16 && (v < INT16_MIN || v > INT16_MAX)) {
    return parse_error(ps, "integer out of range for int16");
  }
  out->kind = RT_ATTR_INT;
  out->i = (int64_t)v;
  return RT_OK;
}

static rt_status_t parse_value(parser_t *ps, int depth, rt_attr_value_t *out);

/* array := '[' (value (',' value)* ','?)? ']' */
static rt_status_t parse_array(parser_t *ps, int depth, rt_attr_value_t *out) {
  ps->p++; /* '[' */
  int32_t count = 0, cap = 0;
  rt_attr_value_t *items = NULL;
  skip_space(ps);
  while (*ps->p != ']') {
    if (count == cap) {
      int32_t new_cap = cap ? cap * 2 : 4;
      if (new_cap > (1 << 24)) return parse_error(ps, "array too long");
      rt_attr_value_t *grown = NULL;
      RT_RETURN_IF_ERROR(rt_arena_alloc_array(ps->arena, (size_t)new_cap,
                                              sizeof *grown, (void **)&grown));
      if (count) memcpy(grown, items, (size_t)count * sizeof *grown);
      items = grown;
      cap = new_cap;
    }
    RT_RETURN_IF_ERROR(parse_value(ps, depth + 1, &items[count]));
    count++;
    skip_space(ps);
    if (*ps->p == ',') {
      ps->p++;
      skip_space(ps);
    } else if (*ps->p != ']') {
      return parse_error(ps, "expected ',' or ']'");
    }
  }
  ps->p++; /* ']' */
  out->kind = RT_ATTR_ARRAY;
  out->array.items = items;
  out->array.count = count;
  return RT_OK;
}

/* value := number | 'True' | 'False' | 'None' | 'nullptr' | string
 *        | array | '(' value ')' */
static rt_status_t parse_value(parser_t *ps, int depth, rt_attr_value_t *out) {
  if (depth > MAX_DEPTH) return parse_error(ps, "nested too deeply");
  skip_space(ps);
  memset(out, 0, sizeof *out);
  char c = *ps->p;
  if (c == '[') return parse_array(ps, depth, out);
  if (c == '(') {
    ps->p++;
    RT_RETURN_IF_ERROR(parse_value(ps, depth + 1, out));
    skip_space(ps);
    if (*ps->p != ')') return parse_error(ps, "expected ')'");
    ps->p++;
    return RT_OK;
  }
  if (c == '"') {
    const char *start = ++ps->p;
    while (*ps->p && *ps->p != '"') ps->p++;
    if (*ps->p != '"') return parse_error(ps, "unterminated string");
    char *s = NULL;
    RT_RETURN_IF_ERROR(
        rt_arena_strndup(ps->arena, start, (size_t)(ps->p - start), &s));
    ps->p++;
    out->kind = RT_ATTR_STRING;
    out->s = s;
    return RT_OK;
  }
  if (c == '-' || is_digit(c) || strncmp(ps->p, "inff", 4) == 0) {
    return parse_number(ps, out);
  }
  static const struct { const char *word; rt_attr_value_kind_t kind; bool b; } words[] = {
      {"True", RT_ATTR_BOOL, true},
      {"False", RT_ATTR_BOOL, false},
      {"None", RT_ATTR_NONE, false},
      {"nullptr", RT_ATTR_NONE, false},
  };
  for (size_t i = 0; i < RT_COUNTOF(words); ++i) {
    size_t n = strlen(words[i].word);
    if (strncmp(ps->p, words[i].word, n) == 0 && !is_ident(ps->p[n])) {
      ps->p += n;
      out->kind = words[i].kind;
      if (out->kind == RT_ATTR_BOOL) out->b = words[i].b;
      return RT_OK;
    }
  }
  return parse_error(ps, "expected a value");
}

rt_status_t rt_attr_value_parse(rt_arena_t *arena, const char *text,
                                rt_attr_value_t *out_value) {
  RT_ASSERT(arena && text && out_value);
  parser_t ps = {arena, text, text};
  RT_RETURN_IF_ERROR(parse_value(&ps, 0, out_value));
  skip_space(&ps);
  if (*ps.p != '\0') return parse_error(&ps, "unexpected text after the value");
  return RT_OK;
}

/* ---- printing ----------------------------------------------------------- */

static void print_float(double f, rt_strbuf_t *out) {
  if (isinf(f)) {
    rt_strbuf_puts(out, f < 0 ? "-inff" : "inff");
    return;
  }
  if (isnan(f)) { /* Relay has no NaN literal; this at least reads as one. */
    rt_strbuf_puts(out, "nanf");
    return;
  }
  char buf[40];
  for (int prec = 6; prec <= 17; ++prec) {
    snprintf(buf, sizeof buf, "%.*g", prec, f);
    if (strtod(buf, NULL) == f) break;
  }
  rt_strbuf_puts(out, buf);
  rt_strbuf_putc(out, 'f');
}

void rt_attr_value_print(const rt_attr_value_t *value, rt_strbuf_t *out) {
  switch (value->kind) {
    case RT_ATTR_NONE: rt_strbuf_puts(out, "None"); return;
    case RT_ATTR_INT: rt_strbuf_printf(out, "%lld", (long long)value->i); return;
    case RT_ATTR_FLOAT: print_float(value->f, out); return;
    case RT_ATTR_BOOL: rt_strbuf_puts(out, value->b ? "True" : "False"); return;
    case RT_ATTR_STRING:
      rt_strbuf_putc(out, '"');
      rt_strbuf_puts(out, value->s ? value->s : "");
      rt_strbuf_putc(out, '"');
      return;
    case RT_ATTR_ARRAY:
      rt_strbuf_putc(out, '[');
      for (int32_t i = 0; i < value->array.count; ++i) {
        if (i) rt_strbuf_puts(out, ", ");
        rt_attr_value_print(&value->array.items[i], out);
      }
      rt_strbuf_putc(out, ']');
      return;
  }
  RT_ASSERT(false);
}

/* ---- equality and hashing ----------------------------------------------- */

bool rt_attr_value_equal(const rt_attr_value_t *a, const rt_attr_value_t *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case RT_ATTR_NONE: return true;
    case RT_ATTR_INT: return a->i == b->i;
    case RT_ATTR_FLOAT: return a->f == b->f || (isnan(a->f) && isnan(b->f));
    case RT_ATTR_BOOL: return a->b == b->b;
    case RT_ATTR_STRING: return strcmp(a->s ? a->s : "", b->s ? b->s : "") == 0;
    case RT_ATTR_ARRAY:
      if (a->array.count != b->array.count) return false;
      for (int32_t i = 0; i < a->array.count; ++i) {
        if (!rt_attr_value_equal(&a->array.items[i], &b->array.items[i])) {
          return false;
        }
      }
      return true;
  }
  return false;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  /* FNV-1a over the 8 bytes of v, then a murmur finalizer step. */
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= UINT64_C(0x100000001b3);
  }
  h ^= h >> 29;
  return h;
}

uint64_t rt_attr_value_hash(const rt_attr_value_t *value, uint64_t seed) {
  uint64_t h = mix(seed ^ UINT64_C(0xcbf29ce484222325), (uint64_t)value->kind);
  switch (value->kind) {
    case RT_ATTR_NONE: return h;
    case RT_ATTR_INT: return mix(h, (uint64_t)value->i);
    case RT_ATTR_FLOAT: {
      double f = value->f;
      if (f == 0) f = 0; /* -0 equals 0 */
      uint64_t bits;
      if (isnan(f)) {
        bits = UINT64_C(0x7ff8000000000000);
      } else {
        memcpy(&bits, &f, sizeof bits);
      }
      return mix(h, bits);
    }
    case RT_ATTR_BOOL: return mix(h, value->b);
    case RT_ATTR_STRING:
      for (const char *s = value->s ? value->s : ""; *s; ++s) {
        h = mix(h, (uint8_t)*s);
      }
      return h;
    case RT_ATTR_ARRAY:
      h = mix(h, (uint64_t)value->array.count);
      for (int32_t i = 0; i < value->array.count; ++i) {
        h = rt_attr_value_hash(&value->array.items[i], h);
      }
      return h;
  }
  return h;
}

/* ---- conversion --------------------------------------------------------- */

static rt_status_t clone_value(rt_arena_t *arena, const rt_attr_value_t *v,
                               rt_attr_value_t *out) {
  *out = *v;
  if (v->kind == RT_ATTR_STRING) {
    const char *s = v->s ? v->s : "";
    char *copy = NULL;
    RT_RETURN_IF_ERROR(rt_arena_strndup(arena, s, strlen(s), &copy));
    out->s = copy;
  } else if (v->kind == RT_ATTR_ARRAY) {
    out->array.items = NULL;
    if (v->array.count > 0) {
      rt_attr_value_t *items = NULL;
      RT_RETURN_IF_ERROR(rt_arena_alloc_array(arena, (size_t)v->array.count,
                                              sizeof *items, (void **)&items));
      for (int32_t i = 0; i < v->array.count; ++i) {
        RT_RETURN_IF_ERROR(clone_value(arena, &v->array.items[i], &items[i]));
      }
      out->array.items = items;
    }
  }
  return RT_OK;
}

static const char *kind_name(rt_attr_kind_t kind) {
  switch (kind) {
    case RT_ATTR_K_INT: return "an int";
    case RT_ATTR_K_FLOAT: return "a float";
    case RT_ATTR_K_BOOL: return "a bool";
    case RT_ATTR_K_STRING: return "a string";
    case RT_ATTR_K_DTYPE: return "a dtype";
    case RT_ATTR_K_INTS: return "ints";
    case RT_ATTR_K_INTS2: return "an array of int arrays";
    case RT_ATTR_K_INT_OR_INTS: return "an int or ints";
    case RT_ATTR_K_FLOATS: return "floats";
    case RT_ATTR_K_ANY: return "a value";
  }
  return "a value";
}

static rt_status_t convert_error(const char *op_name,
                                 const rt_attr_field_t *field,
                                 const rt_attr_value_t *value) {
  rt_strbuf_t text;
  rt_strbuf_initialize(&text);
  rt_attr_value_print(value, &text);
  const char *shown = text.data ? text.data : "?";
  int n = (int)strlen(shown);
  rt_status_t st = RT_STATUS(
      INVALID_ARGUMENT, "attribute '%s' of %s expects %s%s, got %.*s%s",
      field->name, op_name, kind_name(field->kind),
      (field->flags & RT_ATTR_F_NULLABLE) ? " or None" : "", n > 80 ? 80 : n,
      shown, n > 80 ? "..." : "");
  rt_strbuf_deinitialize(&text);
  return st;
}

static bool all_items(const rt_attr_value_t *v, rt_attr_value_kind_t kind) {
  for (int32_t i = 0; i < v->array.count; ++i) {
    if (v->array.items[i].kind != kind) return false;
  }
  return true;
}

rt_status_t rt_attr_value_convert(rt_arena_t *arena, const char *op_name,
                                  const rt_attr_field_t *field,
                                  const rt_attr_value_t *value,
                                  rt_attr_value_t *out_value) {
  memset(out_value, 0, sizeof *out_value);
  const rt_attr_value_kind_t k = value->kind;
  if (k == RT_ATTR_NONE) {
    if ((field->flags & RT_ATTR_F_NULLABLE) || field->kind == RT_ATTR_K_ANY) {
      out_value->kind = RT_ATTR_NONE;
      return RT_OK;
    }
    return convert_error(op_name, field, value);
  }
  switch (field->kind) {
    case RT_ATTR_K_ANY:
      return clone_value(arena, value, out_value);
    case RT_ATTR_K_INT:
      if (k == RT_ATTR_INT) {
        *out_value = *value;
        return RT_OK;
      }
      if (k == RT_ATTR_BOOL) {
        out_value->kind = RT_ATTR_INT;
        out_value->i = value->b;
        return RT_OK;
      }
      break;
    case RT_ATTR_K_FLOAT:
      if (k == RT_ATTR_FLOAT) {
        *out_value = *value;
        return RT_OK;
      }
      if (k == RT_ATTR_INT) {
        out_value->kind = RT_ATTR_FLOAT;
        out_value->f = (double)value->i;
        return RT_OK;
      }
      break;
    case RT_ATTR_K_BOOL:
      if (k == RT_ATTR_BOOL) {
        *out_value = *value;
        return RT_OK;
      }
      if (k == RT_ATTR_INT && (value->i == 0 || value->i == 1)) {
        out_value->kind = RT_ATTR_BOOL;
        out_value->b = value->i == 1;
        return RT_OK;
      }
      break;
    case RT_ATTR_K_STRING:
      if (k == RT_ATTR_STRING) return clone_value(arena, value, out_value);
      break;
    case RT_ATTR_K_DTYPE:
      if (k == RT_ATTR_STRING) {
        rt_dtype_t dt;
        const char *s = value->s ? value->s : "";
        if (*s != '\0') {
          rt_status_t st = rt_dtype_parse(s, strlen(s), &dt);
          if (st != RT_OK) {
            rt_status_free(st);
            break;
          }
        }
        return clone_value(arena, value, out_value);
      }
      break;
    case RT_ATTR_K_INT_OR_INTS:
      if (k == RT_ATTR_INT) {
        *out_value = *value;
        return RT_OK;
      }
      /* fall through */
    case RT_ATTR_K_INTS:
      if (k == RT_ATTR_ARRAY && all_items(value, RT_ATTR_INT)) {
        return clone_value(arena, value, out_value);
      }
      if (k == RT_ATTR_INT && field->kind == RT_ATTR_K_INTS) {
        rt_attr_value_t *item = NULL;
        RT_RETURN_IF_ERROR(rt_arena_alloc(arena, sizeof *item, (void **)&item));
        *item = *value;
        out_value->kind = RT_ATTR_ARRAY;
        out_value->array.items = item;
        out_value->array.count = 1;
        return RT_OK;
      }
      break;
    case RT_ATTR_K_INTS2:
      if (k == RT_ATTR_ARRAY && all_items(value, RT_ATTR_ARRAY)) {
        bool ok = true;
        for (int32_t i = 0; i < value->array.count && ok; ++i) {
          ok = all_items(&value->array.items[i], RT_ATTR_INT);
        }
        if (ok) return clone_value(arena, value, out_value);
      }
      break;
    case RT_ATTR_K_FLOATS:
      if (k == RT_ATTR_ARRAY) {
        bool ok = true;
        for (int32_t i = 0; i < value->array.count && ok; ++i) {
          rt_attr_value_kind_t ik = value->array.items[i].kind;
          ok = ik == RT_ATTR_FLOAT || ik == RT_ATTR_INT;
        }
        if (!ok) break;
        RT_RETURN_IF_ERROR(clone_value(arena, value, out_value));
        for (int32_t i = 0; i < out_value->array.count; ++i) {
          rt_attr_value_t *it = &out_value->array.items[i];
          if (it->kind == RT_ATTR_INT) {
            it->kind = RT_ATTR_FLOAT;
            it->f = (double)value->array.items[i].i;
          }
        }
        return RT_OK;
      }
      break;
  }
  return convert_error(op_name, field, value);
}

/* ---- accessors ---------------------------------------------------------- */

static const rt_attr_value_t k_none_value = {.kind = RT_ATTR_NONE};

const rt_attr_value_t *rt_attrs_get(const rt_ir_attrs_t *attrs,
                                    const char *name) {
  if (attrs) {
    for (int32_t i = 0; i < attrs->count; ++i) {
      if (strcmp(attrs->keys[i], name) == 0) return &attrs->values[i];
    }
  }
  RT_ASSERT(!"attribute name not in the schema");
  return &k_none_value;
}

int64_t rt_attrs_int(const rt_ir_attrs_t *attrs, const char *name) {
  const rt_attr_value_t *v = rt_attrs_get(attrs, name);
  switch (v->kind) {
    case RT_ATTR_INT: return v->i;
    case RT_ATTR_BOOL: return v->b;
    case RT_ATTR_FLOAT: return (int64_t)v->f;
    default: return 0;
  }
}

double rt_attrs_float(const rt_ir_attrs_t *attrs, const char *name) {
  const rt_attr_value_t *v = rt_attrs_get(attrs, name);
  switch (v->kind) {
    case RT_ATTR_FLOAT: return v->f;
    case RT_ATTR_INT: return (double)v->i;
    case RT_ATTR_BOOL: return v->b;
    default: return 0;
  }
}

bool rt_attrs_bool(const rt_ir_attrs_t *attrs, const char *name) {
  const rt_attr_value_t *v = rt_attrs_get(attrs, name);
  switch (v->kind) {
    case RT_ATTR_BOOL: return v->b;
    case RT_ATTR_INT: return v->i != 0;
    default: return false;
  }
}

const char *rt_attrs_string(const rt_ir_attrs_t *attrs, const char *name) {
  const rt_attr_value_t *v = rt_attrs_get(attrs, name);
  return v->kind == RT_ATTR_STRING && v->s ? v->s : "";
}

bool rt_attrs_is_none(const rt_ir_attrs_t *attrs, const char *name) {
  return rt_attrs_get(attrs, name)->kind == RT_ATTR_NONE;
}

int32_t rt_attrs_ints_count(const rt_ir_attrs_t *attrs, const char *name) {
  const rt_attr_value_t *v = rt_attrs_get(attrs, name);
  if (v->kind == RT_ATTR_ARRAY) return v->array.count;
  if (v->kind == RT_ATTR_INT) return 1; /* INT_OR_INTS holding an int */
  return 0;
}

int64_t rt_attrs_ints_at(const rt_ir_attrs_t *attrs, const char *name,
                         int32_t i) {
  const rt_attr_value_t *v = rt_attrs_get(attrs, name);
  if (v->kind == RT_ATTR_INT) {
    RT_ASSERT(i == 0);
    return v->i;
  }
  if (v->kind != RT_ATTR_ARRAY || i < 0 || i >= v->array.count) {
    RT_ASSERT(!"ints index out of range");
    return 0;
  }
  const rt_attr_value_t *it = &v->array.items[i];
  return it->kind == RT_ATTR_INT ? it->i : it->kind == RT_ATTR_BOOL ? it->b : 0;
}

/* ---- building attrs ----------------------------------------------------- */

static rt_status_t unknown_key_error(const rt_ir_op_t *op, const char *key) {
  rt_strbuf_t known;
  rt_strbuf_initialize(&known);
  for (int32_t i = 0; i < op->num_fields; ++i) {
    if (i) rt_strbuf_puts(&known, ", ");
    rt_strbuf_puts(&known, op->fields[i].name);
  }
  if (op->num_fields == 0) rt_strbuf_puts(&known, "none");
  rt_status_t st = RT_STATUS(INVALID_ARGUMENT,
                             "unknown attribute '%s' for %s (known: %s)", key,
                             op->name, known.data ? known.data : "?");
  rt_strbuf_deinitialize(&known);
  return st;
}

rt_status_t rt_ir_op_attrs(rt_module_t *m, rt_ir_span_t span,
                           const rt_ir_op_t *op, int32_t count,
                           const char *const *keys,
                           const rt_attr_value_t *values, rt_ir_attrs_t **out) {
  (void)span; /* callers position the message */
  RT_ASSERT(m && op && out);
  RT_ASSERT(count == 0 || (keys && values));
  *out = NULL;
  rt_arena_t *arena = &m->arena;
  const int32_t n = op->num_fields;
  rt_ir_attrs_t *attrs = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc(arena, sizeof *attrs, (void **)&attrs));
  attrs->count = n;
  bool *seen = NULL;
  if (n > 0) {
    RT_RETURN_IF_ERROR(rt_arena_alloc_array(arena, (size_t)n, sizeof *attrs->keys,
                                            (void **)&attrs->keys));
    RT_RETURN_IF_ERROR(rt_arena_alloc_array(
        arena, (size_t)n, sizeof *attrs->values, (void **)&attrs->values));
    RT_RETURN_IF_ERROR(
        rt_arena_alloc_array(arena, (size_t)n, sizeof *seen, (void **)&seen));
    for (int32_t i = 0; i < n; ++i) {
      attrs->keys[i] = op->fields[i].name;
      if (op->defaults) attrs->values[i] = op->defaults[i];
    }
  }
  for (int32_t k = 0; k < count; ++k) {
    int32_t f = 0;
    while (f < n && strcmp(op->fields[f].name, keys[k]) != 0) f++;
    if (f == n) return unknown_key_error(op, keys[k]);
    if (seen[f]) {
      return RT_STATUS(INVALID_ARGUMENT, "duplicate attribute '%s' for %s",
                       keys[k], op->name);
    }
    seen[f] = true;
    RT_RETURN_IF_ERROR(rt_attr_value_convert(arena, op->name, &op->fields[f],
                                             &values[k], &attrs->values[f]));
  }
  for (int32_t f = 0; f < n; ++f) {
    if (!seen[f] && op->fields[f].default_text == NULL) {
      return RT_STATUS(INVALID_ARGUMENT, "%s requires attribute '%s'",
                       op->name, op->fields[f].name);
    }
  }
  *out = attrs;
  return RT_OK;
}

rt_status_t rt_ir_generic_attrs(rt_module_t *m, int32_t count,
                                const char *const *keys,
                                const rt_attr_value_t *values,
                                rt_ir_attrs_t **out) {
  RT_ASSERT(m && out && count >= 0);
  RT_ASSERT(count == 0 || (keys && values));
  *out = NULL;
  rt_arena_t *arena = &m->arena;
  rt_ir_attrs_t *attrs = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc(arena, sizeof *attrs, (void **)&attrs));
  attrs->count = count;
  if (count > 0) {
    RT_RETURN_IF_ERROR(rt_arena_alloc_array(
        arena, (size_t)count, sizeof *attrs->keys, (void **)&attrs->keys));
    RT_RETURN_IF_ERROR(rt_arena_alloc_array(
        arena, (size_t)count, sizeof *attrs->values, (void **)&attrs->values));
    for (int32_t i = 0; i < count; ++i) {
      char *key = NULL;
      RT_RETURN_IF_ERROR(rt_arena_strndup(arena, keys[i], strlen(keys[i]), &key));
      attrs->keys[i] = key;
      RT_RETURN_IF_ERROR(clone_value(arena, &values[i], &attrs->values[i]));
    }
  }
  *out = attrs;
  return RT_OK;
}
