/* JSON (RFC 8259) reader into an arena DOM, and string escaping for the
 * writers (json.h).
 *
 * A recursive-descent parser, one function per production, depth-limited
 * to RT_JSON_MAX_DEPTH so hostile input cannot exhaust the C stack.
 * Children of the arrays and objects being parsed are pushed on one
 * rt_mem_alloc'd scratch stack shared by all levels; when a container closes,
 * its slice is copied into exactly-sized arena arrays and popped, so the
 * arena holds no growth garbage and there is one buffer to free on any
 * error. Strings are decoded (all escapes, \uXXXX surrogate pairs to UTF-8)
 * into a scratch strbuf and then copied to the arena; raw bytes must be
 * well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF). Numbers are
 * validated against the grammar before strtod sees them (strtod honours
 * the C locale's decimal point: hosts must not change LC_NUMERIC). Line
 * and column are tracked while skipping whitespace, the only place a raw
 * newline may appear; columns count bytes, from 1. */
#include "runtime/json.h"
#include "runtime/mem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  rt_arena_t *arena;
  const char *text;
  size_t len;
  size_t pos;
  int32_t line;
  size_t line_start;
  void **stack; /* children of the open containers (keys and values) */
  size_t stack_len, stack_cap;
  rt_strbuf_t scratch;
} jparser;

static rt_status_t jerror_at(const jparser *p, size_t pos, const char *what) {
  return RT_STATUS(INVALID_ARGUMENT, "%d:%zu: %s", p->line, pos - p->line_start + 1,
                   what);
}

static rt_status_t jerror(const jparser *p, const char *what) {
  return jerror_at(p, p->pos, what);
}

/* "unexpected 'c'" or "unexpected end of input". */
static rt_status_t unexpected(const jparser *p, const char *expected) {
  char what[96];
  if (p->pos >= p->len) {
    snprintf(what, sizeof what, "unexpected end of input; expected %s", expected);
  } else {
    unsigned char c = (unsigned char)p->text[p->pos];
    if (c >= 0x20 && c < 0x7f) {
      snprintf(what, sizeof what, "unexpected '%c'; expected %s", c, expected);
    } else {
      snprintf(what, sizeof what, "unexpected byte 0x%02x; expected %s", c, expected);
    }
  }
  return jerror(p, what);
}

static void skip_ws(jparser *p) {
  while (p->pos < p->len) {
    char c = p->text[p->pos];
    if (c == '\n') {
      p->line++;
      p->line_start = p->pos + 1;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      break;
    }
    p->pos++;
  }
}

static rt_status_t push(jparser *p, void *item) {
  if (p->stack_len == p->stack_cap) {
    size_t cap = p->stack_cap ? p->stack_cap * 2 : 64;
    void **grown = rt_mem_realloc(p->stack, cap * sizeof(void *));
    if (!grown) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory parsing JSON");
    p->stack = grown;
    p->stack_cap = cap;
  }
  p->stack[p->stack_len++] = item;
  return RT_OK;
}

static rt_status_t new_value(jparser *p, rt_json_kind_t kind, size_t pos,
                             rt_json_t **out_value) {
  void *mem = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc(p->arena, sizeof(rt_json_t), &mem));
  rt_json_t *v = mem;
  v->kind = kind;
  v->line = p->line;
  v->col = (int32_t)(pos - p->line_start + 1);
  *out_value = v;
  return RT_OK;
}

static rt_status_t parse_value(jparser *p, int depth, rt_json_t **out_value);

/* Length of the well-formed UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_sequence(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F; /* no UTF-16 surrogates */
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F; /* <= U+10FFFF */
  } else {
    return 0;
  }
  if (n < len || s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < len; ++i) {
    if (s[i] < 0x80 || s[i] > 0xBF) return 0;
  }
  return len;
}

static void put_utf8(rt_strbuf_t *out, uint32_t cp) {
  char b[4];
  size_t n;
  if (cp < 0x80) {
    b[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    b[0] = (char)(0xC0 | (cp >> 6));
    b[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    b[0] = (char)(0xE0 | (cp >> 12));
    b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    b[0] = (char)(0xF0 | (cp >> 18));
    b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  rt_strbuf_append(out, b, n);
}

/* hex4 after "\u"; p->pos at the first hex digit. */
static rt_status_t parse_hex4(jparser *p, uint32_t *out_unit) {
  if (p->len - p->pos < 4) return jerror(p, "truncated \\u escape");
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    char c = p->text[p->pos + (size_t)i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return jerror_at(p, p->pos + (size_t)i, "bad hex digit in \\u escape");
    v = v * 16 + (uint32_t)d;
  }
  p->pos += 4;
  *out_unit = v;
  return RT_OK;
}

/* string := '"' (char | escape)* '"'; decoded into p->scratch. */
static rt_status_t parse_string_raw(jparser *p) {
  rt_strbuf_truncate(&p->scratch, 0);
  p->pos++; /* '"' */
  for (;;) {
    size_t start = p->pos;
    while (p->pos < p->len) {
      unsigned char c = (unsigned char)p->text[p->pos];
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
      p->pos++;
    }
    rt_strbuf_append(&p->scratch, p->text + start, p->pos - start);
    if (p->pos >= p->len) return jerror(p, "unterminated string");
    unsigned char c = (unsigned char)p->text[p->pos];
    if (c == '"') {
      p->pos++;
      break;
    }
    if (c < 0x20) return jerror(p, "control character in string (escape it)");
    if (c >= 0x80) {
      size_t n = utf8_sequence((const unsigned char *)p->text + p->pos, p->len - p->pos);
      if (!n) return jerror(p, "invalid UTF-8 in string");
      rt_strbuf_append(&p->scratch, p->text + p->pos, n);
      p->pos += n;
      continue;
    }
    /* escape */
    size_t esc = p->pos;
    p->pos++;
    if (p->pos >= p->len) return jerror(p, "unterminated string");
    char e = p->text[p->pos++];
    switch (e) {
      case '"': rt_strbuf_putc(&p->scratch, '"'); break;
      case '\\': rt_strbuf_putc(&p->scratch, '\\'); break;
      case '/': rt_strbuf_putc(&p->scratch, '/'); break;
      case 'b': rt_strbuf_putc(&p->scratch, '\b'); break;
      case 'f': rt_strbuf_putc(&p->scratch, '\f'); break;
      case 'n': rt_strbuf_putc(&p->scratch, '\n'); break;
      case 'r': rt_strbuf_putc(&p->scratch, '\r'); break;
      case 't': rt_strbuf_putc(&p->scratch, '\t'); break;
      case 'u': {
        uint32_t unit = 0;
        RT_RETURN_IF_ERROR(parse_hex4(p, &unit));
        if (unit >= 0xDC00 && unit <= 0xDFFF) {
          return jerror_at(p, esc, "unpaired low surrogate in \\u escape");
        }
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          if (p->len - p->pos < 2 || p->text[p->pos] != '\\' ||
              p->text[p->pos + 1] != 'u') {
            return jerror_at(p, esc, "high surrogate not followed by a \\u low surrogate");
          }
          p->pos += 2;
          uint32_t low = 0;
          RT_RETURN_IF_ERROR(parse_hex4(p, &low));
          if (low < 0xDC00 || low > 0xDFFF) {
            return jerror_at(p, esc, "high surrogate not followed by a low surrogate");
          }
          unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
        }
        put_utf8(&p->scratch, unit);
        break;
      }
      default:
        return jerror_at(p, esc, "invalid escape in string");
    }
  }
  if (p->scratch.failed) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory parsing a JSON string");
  }
  return RT_OK;
}

static rt_status_t parse_string(jparser *p, const char **out_s, size_t *out_len) {
  RT_RETURN_IF_ERROR(parse_string_raw(p));
  char *s = NULL;
  RT_RETURN_IF_ERROR(rt_arena_strndup(p->arena, p->scratch.data ? p->scratch.data : "",
                                      p->scratch.len, &s));
  *out_s = s;
  *out_len = p->scratch.len;
  return RT_OK;
}

/* number := '-'? ('0' | [1-9][0-9]*) ('.' [0-9]+)? ([eE] [+-]? [0-9]+)? */
static rt_status_t parse_number(jparser *p, double *out_number) {
  size_t start = p->pos, i = p->pos;
  const char *t = p->text;
  if (i < p->len && t[i] == '-') i++;
  if (i < p->len && t[i] == '0') {
    i++;
  } else if (i < p->len && t[i] >= '1' && t[i] <= '9') {
    while (i < p->len && t[i] >= '0' && t[i] <= '9') i++;
  } else {
    p->pos = i;
    return unexpected(p, "a digit");
  }
  if (i < p->len && t[i] == '.') {
    i++;
    if (i >= p->len || t[i] < '0' || t[i] > '9') {
      p->pos = i;
      return unexpected(p, "a digit after '.'");
    }
    while (i < p->len && t[i] >= '0' && t[i] <= '9') i++;
  }
  if (i < p->len && (t[i] == 'e' || t[i] == 'E')) {
    i++;
    if (i < p->len && (t[i] == '+' || t[i] == '-')) i++;
    if (i >= p->len || t[i] < '0' || t[i] > '9') {
      p->pos = i;
      return unexpected(p, "a digit in the exponent");
    }
    while (i < p->len && t[i] >= '0' && t[i] <= '9') i++;
  }
  /* strtod needs a NUL-terminated copy: the input need not have one. */
  rt_strbuf_truncate(&p->scratch, 0);
  rt_strbuf_append(&p->scratch, t + start, i - start);
  if (p->scratch.failed) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory parsing a JSON number");
  }
  errno = 0;
  double v = strtod(p->scratch.data, NULL);
  if (errno == ERANGE && isinf(v)) return jerror_at(p, start, "number out of range");
  p->pos = i;
  *out_number = v;
  return RT_OK;
}

/* array := '[' (value (',' value)*)? ']' */
static rt_status_t parse_array(jparser *p, int depth, rt_json_t *v) {
  size_t mark = p->stack_len;
  p->pos++; /* '[' */
  skip_ws(p);
  if (p->pos < p->len && p->text[p->pos] == ']') {
    p->pos++;
  } else {
    for (;;) {
      rt_json_t *item = NULL;
      RT_RETURN_IF_ERROR(parse_value(p, depth, &item));
      RT_RETURN_IF_ERROR(push(p, item));
      skip_ws(p);
      if (p->pos < p->len && p->text[p->pos] == ',') {
        p->pos++;
        continue;
      }
      if (p->pos < p->len && p->text[p->pos] == ']') {
        p->pos++;
        break;
      }
      return unexpected(p, "',' or ']'");
    }
  }
  size_t count = p->stack_len - mark;
  if (count > INT32_MAX) return jerror(p, "array has too many items");
  void *items = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(p->arena, count, sizeof(rt_json_t *), &items));
  if (count) memcpy(items, p->stack + mark, count * sizeof(void *));
  p->stack_len = mark;
  v->array.items = items;
  v->array.count = (int32_t)count;
  return RT_OK;
}

/* object := '{' (string ':' value (',' string ':' value)*)? '}' */
static rt_status_t parse_object(jparser *p, int depth, rt_json_t *v) {
  size_t mark = p->stack_len;
  p->pos++; /* '{' */
  skip_ws(p);
  if (p->pos < p->len && p->text[p->pos] == '}') {
    p->pos++;
  } else {
    for (;;) {
      skip_ws(p);
      if (p->pos >= p->len || p->text[p->pos] != '"') return unexpected(p, "a string key");
      const char *key = NULL;
      size_t key_len = 0;
      RT_RETURN_IF_ERROR(parse_string(p, &key, &key_len));
      skip_ws(p);
      if (p->pos >= p->len || p->text[p->pos] != ':') return unexpected(p, "':'");
      p->pos++;
      rt_json_t *value = NULL;
      RT_RETURN_IF_ERROR(parse_value(p, depth, &value));
      RT_RETURN_IF_ERROR(push(p, (void *)key));
      RT_RETURN_IF_ERROR(push(p, value));
      skip_ws(p);
      if (p->pos < p->len && p->text[p->pos] == ',') {
        p->pos++;
        continue;
      }
      if (p->pos < p->len && p->text[p->pos] == '}') {
        p->pos++;
        break;
      }
      return unexpected(p, "',' or '}'");
    }
  }
  size_t count = (p->stack_len - mark) / 2;
  if (count > INT32_MAX) return jerror(p, "object has too many members");
  void *keys = NULL, *values = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(p->arena, count, sizeof(char *), &keys));
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(p->arena, count, sizeof(rt_json_t *), &values));
  const char **k = keys;
  rt_json_t **vals = values;
  for (size_t i = 0; i < count; ++i) {
    k[i] = p->stack[mark + 2 * i];
    vals[i] = p->stack[mark + 2 * i + 1];
  }
  p->stack_len = mark;
  v->object.keys = k;
  v->object.values = vals;
  v->object.count = (int32_t)count;
  return RT_OK;
}

static bool match_word(jparser *p, const char *word) {
  size_t n = strlen(word);
  if (p->len - p->pos < n || memcmp(p->text + p->pos, word, n) != 0) return false;
  p->pos += n;
  return true;
}

/* value := object | array | string | number | true | false | null */
static rt_status_t parse_value(jparser *p, int depth, rt_json_t **out_value) {
  skip_ws(p);
  if (p->pos >= p->len) return unexpected(p, "a value");
  size_t start = p->pos;
  char c = p->text[p->pos];
  rt_json_t *v = NULL;
  switch (c) {
    case '{':
    case '[':
      if (depth >= RT_JSON_MAX_DEPTH) {
        char what[64];
        snprintf(what, sizeof what, "nesting deeper than %d", RT_JSON_MAX_DEPTH);
        return jerror(p, what);
      }
      RT_RETURN_IF_ERROR(new_value(p, c == '{' ? RT_JSON_OBJECT : RT_JSON_ARRAY, start, &v));
      RT_RETURN_IF_ERROR(c == '{' ? parse_object(p, depth + 1, v)
                                  : parse_array(p, depth + 1, v));
      break;
    case '"': {
      RT_RETURN_IF_ERROR(new_value(p, RT_JSON_STRING, start, &v));
      RT_RETURN_IF_ERROR(parse_string(p, &v->string.data, &v->string.len));
      break;
    }
    case 't':
    case 'f':
      RT_RETURN_IF_ERROR(new_value(p, RT_JSON_BOOL, start, &v));
      v->boolean = c == 't';
      if (!match_word(p, c == 't' ? "true" : "false")) return unexpected(p, "a value");
      break;
    case 'n':
      RT_RETURN_IF_ERROR(new_value(p, RT_JSON_NULL, start, &v));
      if (!match_word(p, "null")) return unexpected(p, "a value");
      break;
    default:
      if (c != '-' && (c < '0' || c > '9')) return unexpected(p, "a value");
      RT_RETURN_IF_ERROR(new_value(p, RT_JSON_NUMBER, start, &v));
      RT_RETURN_IF_ERROR(parse_number(p, &v->number));
      break;
  }
  *out_value = v;
  return RT_OK;
}

rt_status_t rt_json_parse(rt_arena_t *arena, const char *text, size_t len,
                          rt_json_t **out_value) {
  jparser p = {arena, text, len, 0, 1, 0, NULL, 0, 0, {NULL, 0, 0, false}};
  rt_strbuf_initialize(&p.scratch);
  rt_json_t *value = NULL;
  rt_status_t status = parse_value(&p, 0, &value);
  if (!status) {
    skip_ws(&p);
    if (p.pos != p.len) status = unexpected(&p, "the end of input");
  }
  rt_mem_free(p.stack);
  rt_strbuf_deinitialize(&p.scratch);
  if (status) return status;
  *out_value = value;
  return RT_OK;
}

const rt_json_t *rt_json_get(const rt_json_t *object, const char *key) {
  if (!object || object->kind != RT_JSON_OBJECT) return NULL;
  for (int32_t i = 0; i < object->object.count; ++i) {
    if (strcmp(object->object.keys[i], key) == 0) return object->object.values[i];
  }
  return NULL;
}

void rt_json_write_string(rt_strbuf_t *out, const char *s, size_t len) {
  static const char hex[] = "0123456789abcdef";
  rt_strbuf_putc(out, '"');
  size_t start = 0;
  for (size_t i = 0; i < len; ++i) {
    unsigned char c = (unsigned char)s[i];
    const char *esc = NULL;
    char u[7];
    switch (c) {
      case '"': esc = "\\\""; break;
      case '\\': esc = "\\\\"; break;
      case '\b': esc = "\\b"; break;
      case '\f': esc = "\\f"; break;
      case '\n': esc = "\\n"; break;
      case '\r': esc = "\\r"; break;
      case '\t': esc = "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          u[0] = '\\'; u[1] = 'u'; u[2] = '0'; u[3] = '0';
          u[4] = hex[c >> 4]; u[5] = hex[c & 15]; u[6] = '\0';
          esc = u;
        }
        break;
    }
    if (!esc) continue;
    rt_strbuf_append(out, s + start, i - start);
    rt_strbuf_puts(out, esc);
    start = i + 1;
  }
  rt_strbuf_append(out, s + start, len - start);
  rt_strbuf_putc(out, '"');
}
