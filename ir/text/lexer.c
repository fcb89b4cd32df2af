/* The Relay text lexer (docs/text-format.md): a pull lexer that hands out one
 * token at a time, so the parser can stop at `#[metadata]` (the rest of the
 * file is JSON) and can look ahead by copying the lexer's small state.
 *
 * Rules as TVM's tokenizer: whitespace is space, tab, '\n' and "\r\n";
 * `//` and nesting slash-star comments are skipped; `%x` locals, `%3` graph
 * bindings, `@f` globals; integers default to int32 (int64 when they do not
 * fit) with i/i16/i32/i64 suffixes; floats exist only with f/f16/f32/f64
 * suffixes (and `inff`); a run of '-' directly before a digit (or `inff`)
 * folds into the literal by parity; strings have no escapes. Encoding
 * (UTF-8 validity, lone '\r', NUL) is checked for the whole source first by
 * rt_ir_text_check_encoding, so the lexer may assume it. Also here: the
 * float16 conversions and the shortest float formatting the printer uses
 * (kept beside the literal reader they must agree with). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/text/text.h"

/* ---- float16 ------------------------------------------------------------- */

uint16_t rt_ir_f16_from_double(double value) {
  uint64_t b;
  memcpy(&b, &value, sizeof(b));
  uint16_t sign = (uint16_t)((b >> 48) & 0x8000u);
  int32_t exp = (int32_t)((b >> 52) & 0x7ff);
  uint64_t mant = b & UINT64_C(0xfffffffffffff);
  if (exp == 0x7ff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0u));
  if (exp == 0) return sign; /* double subnormals are far below float16's */
  uint64_t full = mant | (UINT64_C(1) << 52);
  int32_t e = exp - 1008; /* float16 biased exponent */
  int32_t shift = e >= 1 ? 42 : 1051 - exp;
  if (shift > 60) return sign;
  uint64_t m = full >> shift;
  uint64_t rem = full & ((UINT64_C(1) << shift) - 1);
  uint64_t half = UINT64_C(1) << (shift - 1);
  if (rem > half || (rem == half && (m & 1u))) m++;
  /* Subnormal and normal encodings are continuous, so a rounding carry
   * lands on the next binade (or infinity) by itself. */
  uint64_t bits = e >= 1 ? ((uint64_t)e << 10) + m - 1024 : m;
  if (bits >= 0x7c00u) return (uint16_t)(sign | 0x7c00u);
  return (uint16_t)(sign | bits);
}

float rt_ir_f16_to_float(uint16_t bits) {
  uint32_t sign = (uint32_t)(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1fu;
  uint32_t mant = bits & 0x3ffu;
  float f;
  if (exp == 0x1f) {
    uint32_t u = sign | 0x7f800000u | (mant << 13);
    memcpy(&f, &u, sizeof(f));
    return f;
  }
  if (exp == 0) {
    f = ldexpf((float)mant, -24);
    return sign ? -f : f;
  }
  uint32_t u = sign | ((exp + 112u) << 23) | (mant << 13);
  memcpy(&f, &u, sizeof(f));
  return f;
}

void rt_ir_text_format_float(rt_dtype_t dtype, const void *value,
                             rt_strbuf_t *out) {
  char buf[64];
  double d;
  if (dtype.bits == 16) {
    uint16_t h;
    memcpy(&h, value, sizeof(h));
    d = rt_ir_f16_to_float(h);
  } else if (dtype.bits == 32) {
    float f;
    memcpy(&f, value, sizeof(f));
    d = f;
  } else {
    memcpy(&d, value, sizeof(d));
  }
  if (isinf(d)) {
    rt_strbuf_puts(out, d < 0 ? "-inf" : "inf");
    return;
  }
  int max_digits = dtype.bits == 64 ? 17 : 9;
  for (int p = 6; p <= max_digits; ++p) {
    snprintf(buf, sizeof(buf), "%.*g", p, d);
    bool same;
    if (dtype.bits == 16) {
      uint16_t h, back = rt_ir_f16_from_double(strtod(buf, NULL));
      memcpy(&h, value, sizeof(h));
      same = h == back;
    } else if (dtype.bits == 32) {
      float f, back = strtof(buf, NULL);
      memcpy(&f, value, sizeof(f));
      same = memcmp(&f, &back, sizeof(f)) == 0;
    } else {
      double back = strtod(buf, NULL);
      same = memcmp(&d, &back, sizeof(d)) == 0;
    }
    if (same) break;
  }
  rt_strbuf_puts(out, buf);
}

/* ---- positions and encoding ---------------------------------------------- */

rt_ir_span_t rt_ir_text_span_at(const rt_ir_source_t *source, size_t offset) {
  int32_t line = 1;
  size_t line_start = 0;
  if (offset > source->size) offset = source->size;
  for (size_t i = 0; i < offset; ++i) {
    if (source->text[i] == '\n') {
      line++;
      line_start = i + 1;
    }
  }
  int32_t col = (int32_t)(offset - line_start) + 1;
  return (rt_ir_span_t){source, line, col, line, col + 1};
}

/* Length of the UTF-8 sequence at s[0..n), 0 when it is not valid. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t len;
  uint32_t cp;
  if (c >= 0xc2 && c <= 0xdf) { len = 2; cp = c & 0x1fu; }
  else if (c >= 0xe0 && c <= 0xef) { len = 3; cp = c & 0x0fu; }
  else if (c >= 0xf0 && c <= 0xf4) { len = 4; cp = c & 0x07u; }
  else return 0;
  if (n < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((s[i] & 0xc0u) != 0x80u) return 0;
    cp = (cp << 6) | (s[i] & 0x3fu);
  }
  if (len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) return 0;
  if (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) return 0;
  return len;
}

rt_status_t rt_ir_text_check_encoding(const rt_ir_source_t *source) {
  const unsigned char *s = (const unsigned char *)source->text;
  size_t n = source->size;
  int32_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < n;) {
    unsigned char c = s[i];
    rt_ir_span_t span = {source, line, (int32_t)(i - line_start) + 1, line,
                         (int32_t)(i - line_start) + 2};
    if (c == '\n') {
      line++;
      line_start = ++i;
      continue;
    }
    if (c == '\r' && (i + 1 >= n || s[i + 1] != '\n')) {
      return rt_ir_diag(span, "carriage return not followed by a newline");
    }
    if (c == 0) return rt_ir_diag(span, "unexpected NUL byte");
    size_t len = utf8_len(s + i, n - i);
    if (len == 0) return rt_ir_diag(span, "invalid UTF-8 byte 0x%02x", c);
    i += len;
  }
  return RT_OK;
}

/* ---- the lexer ----------------------------------------------------------- */

void rt_ir_lexer_initialize(const rt_ir_source_t *source,
                            rt_ir_lexer_t *out_lexer) {
  *out_lexer = (rt_ir_lexer_t){source, 0, 1, 0, false};
}

static int peek_at(const rt_ir_lexer_t *lx, size_t k) {
  size_t p = lx->pos + k;
  return p < lx->source->size ? (unsigned char)lx->source->text[p] : -1;
}

static void advance(rt_ir_lexer_t *lx) {
  if (lx->source->text[lx->pos] == '\n') {
    lx->line++;
    lx->line_start = lx->pos + 1;
  }
  lx->pos++;
}

static rt_ir_span_t here(const rt_ir_lexer_t *lx) {
  int32_t col = (int32_t)(lx->pos - lx->line_start) + 1;
  return (rt_ir_span_t){lx->source, lx->line, col, lx->line, col + 1};
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_alpha(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_ident_char(int c) { return is_alpha(c) || is_digit(c) || c == '/'; }

/* Skips whitespace and comments. */
static rt_status_t skip_trivia(rt_ir_lexer_t *lx) {
  for (;;) {
    int c = peek_at(lx, 0);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      advance(lx);
    } else if (c == '/' && peek_at(lx, 1) == '/') {
      while (peek_at(lx, 0) != -1 && peek_at(lx, 0) != '\n') advance(lx);
    } else if (c == '/' && peek_at(lx, 1) == '*') {
      rt_ir_span_t start = here(lx);
      int32_t depth = 0;
      for (;;) {
        int d = peek_at(lx, 0);
        if (d == -1) return rt_ir_diag(start, "unterminated comment");
        if (d == '/' && peek_at(lx, 1) == '*') {
          advance(lx);
          advance(lx);
          depth++;
        } else if (d == '*' && peek_at(lx, 1) == '/') {
          advance(lx);
          advance(lx);
          if (--depth == 0) break;
        } else {
          advance(lx);
        }
      }
    } else {
      return RT_OK;
    }
  }
}

typedef struct keyword_t {
  const char *text;
  rt_ir_tok_kind_t kind;
} keyword_t;

static const keyword_t kKeywords[] = {
    {"let", RT_IR_TOK_KW_LET},       {"fn", RT_IR_TOK_KW_FN},
    {"def", RT_IR_TOK_KW_DEF},       {"if", RT_IR_TOK_KW_IF},
    {"else", RT_IR_TOK_KW_ELSE},     {"type", RT_IR_TOK_KW_TYPE},
    {"match", RT_IR_TOK_KW_MATCH},   {"extern", RT_IR_TOK_KW_EXTERN},
    {"free_var", RT_IR_TOK_KW_FREE_VAR}, {"ref", RT_IR_TOK_KW_REF},
    {"ref_read", RT_IR_TOK_KW_REF_READ}, {"ref_write", RT_IR_TOK_KW_REF_WRITE},
};

static bool text_is(const char *s, size_t len, const char *word) {
  return strlen(word) == len && memcmp(s, word, len) == 0;
}

/* The width of `inff`, `inff16`, `inff32`, `inff64` (0 when not one). */
static int inff_width(const char *s, size_t len) {
  if (text_is(s, len, "inff") || text_is(s, len, "inff32")) return 32;
  if (text_is(s, len, "inff16")) return 16;
  if (text_is(s, len, "inff64")) return 64;
  return 0;
}

static void set_float(rt_ir_token_t *tok, int width, double d, float f32) {
  tok->kind = RT_IR_TOK_FLOAT;
  tok->dtype = RT_DTYPE(kDLFloat, width);
  tok->f = d;
  tok->f32 = f32;
  tok->f16 = rt_ir_f16_from_double(d);
}

/* number := '-'* digits ('.' digits)? ([eE] [+-]? digits)? suffix?
 * suffix := 'f' ('16'|'32'|'64')? | 'i' ('16'|'32'|'64')?
 * `start` is the first '-' (or digit); `negative` the parity of the run. */
static rt_status_t lex_number(rt_ir_lexer_t *lx, size_t start, bool negative,
                              rt_ir_token_t *tok) {
  const char *text = lx->source->text;
  rt_ir_span_t span = tok->span;
  size_t digits_start = lx->pos;
  bool is_real = false;
  while (is_digit(peek_at(lx, 0))) advance(lx);
  if (peek_at(lx, 0) == '.' && is_digit(peek_at(lx, 1))) {
    is_real = true;
    advance(lx);
    while (is_digit(peek_at(lx, 0))) advance(lx);
  }
  if ((peek_at(lx, 0) == 'e' || peek_at(lx, 0) == 'E') &&
      (is_digit(peek_at(lx, 1)) ||
       ((peek_at(lx, 1) == '+' || peek_at(lx, 1) == '-') && is_digit(peek_at(lx, 2))))) {
    is_real = true;
    advance(lx);
    if (peek_at(lx, 0) == '+' || peek_at(lx, 0) == '-') advance(lx);
    while (is_digit(peek_at(lx, 0))) advance(lx);
  }
  size_t digits_end = lx->pos;
  char suffix = 0;
  size_t suffix_start = lx->pos;
  if (peek_at(lx, 0) == 'f' || peek_at(lx, 0) == 'i') {
    suffix = (char)peek_at(lx, 0);
    advance(lx);
    while (is_digit(peek_at(lx, 0))) advance(lx);
  }
  /* Anything glued on (`1x`, `2f3x`) makes the whole run invalid. */
  bool glued = false;
  while (is_ident_char(peek_at(lx, 0)) || peek_at(lx, 0) == '.') {
    if (peek_at(lx, 0) == '.' && !is_digit(peek_at(lx, 1))) break;
    glued = true;
    advance(lx);
  }
  tok->text = text + start;
  tok->len = lx->pos - start;
  int tlen = tok->len > 64 ? 64 : (int)tok->len;
  if (glued) {
    return rt_ir_diag(span, "invalid number literal `%.*s`", tlen, tok->text);
  }
  int width = 32;
  size_t wlen = lx->pos - suffix_start - (suffix ? 1 : 0);
  if (suffix) {
    const char *w = text + suffix_start + 1;
    if (wlen == 0) width = 32;
    else if (text_is(w, wlen, "16")) width = 16;
    else if (text_is(w, wlen, "32")) width = 32;
    else if (text_is(w, wlen, "64")) width = 64;
    else if (suffix == 'i') {
      return rt_ir_diag(span, "unrecognized integer width `i%.*s` (expected i16, i32 or i64)",
                        (int)(wlen > 20 ? 20 : wlen), w);
    } else {
      return rt_ir_diag(span, "unrecognized float width `f%.*s` (expected f16, f32 or f64)",
                        (int)(wlen > 20 ? 20 : wlen), w);
    }
  }
  if (suffix == 'f') {
    char buf[512];
    size_t n = digits_end - digits_start;
    if (n >= sizeof(buf)) {
      return rt_ir_diag(span, "float literal `%.*s...` is too long", 32, tok->text);
    }
    memcpy(buf, text + digits_start, n);
    buf[n] = 0;
    double d = strtod(buf, NULL);
    float f = strtof(buf, NULL);
    if (negative) {
      d = -d;
      f = -f;
    }
    if ((width == 16 && fabs(d) > 65504.0) || (width == 32 && isinf(f)) ||
        (width == 64 && isinf(d))) {
      return rt_ir_diag(span, "float literal `%.*s` is out of range for float%d",
                        tlen, tok->text, width);
    }
    set_float(tok, width, d, f);
    return RT_OK;
  }
  if (is_real) {
    return rt_ir_diag(span,
                      "invalid integer number `%.*s` (a float literal needs an f suffix, e.g. `%.*sf`)",
                      tlen, tok->text, tlen, tok->text);
  }
  uint64_t mag = 0;
  bool overflow = false;
  for (size_t i = digits_start; i < digits_end; ++i) {
    uint64_t digit = (uint64_t)(text[i] - '0');
    if (mag > (UINT64_MAX - digit) / 10) overflow = true;
    else mag = mag * 10 + digit;
  }
  /* Range of the target width: [-2^(w-1), 2^(w-1) - 1]. */
  int target = suffix ? width : 64;
  uint64_t limit = (UINT64_C(1) << (target - 1)) - (negative ? 0 : 1);
  if (overflow || mag > limit) {
    return rt_ir_diag(span, "integer literal `%.*s` is out of range for int%d",
                      tlen, tok->text, target);
  }
  int64_t v = negative ? (int64_t)(0 - mag) : (int64_t)mag;
  if (!suffix) width = (v >= INT32_MIN && v <= INT32_MAX) ? 32 : 64;
  tok->kind = RT_IR_TOK_INT;
  tok->dtype = RT_DTYPE(kDLInt, width);
  tok->i = v;
  return RT_OK;
}

/* Consumes a name after `%` or `@`; false when none follows. */
static bool lex_name(rt_ir_lexer_t *lx) {
  int c = peek_at(lx, 0);
  if (!(is_alpha(c) || is_digit(c) || c == '/')) return false;
  while (is_ident_char(peek_at(lx, 0))) advance(lx);
  return true;
}

rt_status_t rt_ir_lex(rt_ir_lexer_t *lx, rt_ir_token_t *tok) {
  memset(tok, 0, sizeof(*tok));
  if (!lx->done) RT_RETURN_IF_ERROR(skip_trivia(lx));
  const char *text = lx->source->text;
  tok->span = here(lx);
  tok->text = text + lx->pos;
  if (lx->done || lx->pos >= lx->source->size) {
    tok->kind = RT_IR_TOK_EOF;
    tok->len = 0;
    return RT_OK;
  }
  size_t start = lx->pos;
  int c = peek_at(lx, 0);
  rt_ir_tok_kind_t kind = RT_IR_TOK_EOF;
  if (is_digit(c)) {
    RT_RETURN_IF_ERROR(lex_number(lx, start, false, tok));
    goto done;
  }
  if (c == '-' && peek_at(lx, 1) == '>') {
    advance(lx);
    advance(lx);
    kind = RT_IR_TOK_ARROW;
  } else if (c == '-') {
    size_t negs = 0;
    while (peek_at(lx, (size_t)negs) == '-') negs++;
    int after = peek_at(lx, negs);
    if (is_digit(after)) {
      for (size_t i = 0; i < negs; ++i) advance(lx);
      RT_RETURN_IF_ERROR(lex_number(lx, start, negs % 2 == 1, tok));
      goto done;
    }
    if (after == 'i') {
      rt_ir_lexer_t save = *lx;
      for (size_t i = 0; i < negs; ++i) advance(lx);
      size_t id_start = lx->pos;
      while (is_ident_char(peek_at(lx, 0))) advance(lx);
      int w = inff_width(text + id_start, lx->pos - id_start);
      if (w) {
        double inf = negs % 2 ? -INFINITY : INFINITY;
        set_float(tok, w, inf, (float)inf);
        goto done;
      }
      *lx = save;
    }
    advance(lx);
    kind = RT_IR_TOK_MINUS;
  } else if (is_alpha(c)) {
    while (is_ident_char(peek_at(lx, 0))) advance(lx);
    const char *s = text + start;
    size_t len = lx->pos - start;
    kind = RT_IR_TOK_IDENT;
    for (size_t i = 0; i < RT_COUNTOF(kKeywords); ++i) {
      if (text_is(s, len, kKeywords[i].text)) kind = kKeywords[i].kind;
    }
    if (kind == RT_IR_TOK_KW_MATCH && peek_at(lx, 0) == '?') {
      advance(lx);
      kind = RT_IR_TOK_KW_PMATCH;
    } else if (text_is(s, len, "True") || text_is(s, len, "False")) {
      kind = RT_IR_TOK_BOOL;
      tok->b = s[0] == 'T';
      tok->dtype = RT_DTYPE_BOOL;
    } else if (inff_width(s, len)) {
      set_float(tok, inff_width(s, len), INFINITY, INFINITY);
      goto done;
    }
  } else if (c == '%' || c == '@') {
    advance(lx);
    if (!lex_name(lx)) {
      return rt_ir_diag(tok->span, "expected a name after `%c`", c);
    }
    kind = c == '@' ? RT_IR_TOK_GLOBAL : RT_IR_TOK_LOCAL;
    if (c == '%') {
      bool all_digits = true;
      for (size_t i = start + 1; i < lx->pos; ++i) all_digits &= is_digit(text[i]);
      if (all_digits) kind = RT_IR_TOK_GRAPH;
    }
  } else if (c == '"') {
    advance(lx);
    while (peek_at(lx, 0) != '"') {
      if (peek_at(lx, 0) == -1) return rt_ir_diag(tok->span, "unterminated string");
      advance(lx);
    }
    advance(lx);
    kind = RT_IR_TOK_STRING;
  } else if (c == '#') {
    if (peek_at(lx, 1) != '[') {
      return rt_ir_diag(tok->span, "unexpected character `#`");
    }
    advance(lx);
    advance(lx);
    kind = RT_IR_TOK_ATTR_OPEN;
    /* `#[metadata]` ends the program: the lexer hands the rest over. */
    rt_ir_lexer_t save = *lx;
    while (peek_at(lx, 0) == ' ' || peek_at(lx, 0) == '\t') advance(lx);
    size_t id_start = lx->pos;
    while (is_ident_char(peek_at(lx, 0))) advance(lx);
    bool is_meta = text_is(text + id_start, lx->pos - id_start, "metadata");
    while (peek_at(lx, 0) == ' ' || peek_at(lx, 0) == '\t') advance(lx);
    if (is_meta && peek_at(lx, 0) == ']') {
      advance(lx);
      kind = RT_IR_TOK_METADATA;
      tok->meta_offset = lx->pos;
      lx->done = true;
    } else {
      *lx = save;
    }
  } else {
    advance(lx);
    int n = peek_at(lx, 0);
    switch (c) {
      case '(': kind = RT_IR_TOK_LPAREN; break;
      case ')': kind = RT_IR_TOK_RPAREN; break;
      case '[': kind = RT_IR_TOK_LBRACKET; break;
      case ']': kind = RT_IR_TOK_RBRACKET; break;
      case '{': kind = RT_IR_TOK_LBRACE; break;
      case '}': kind = RT_IR_TOK_RBRACE; break;
      case ',': kind = RT_IR_TOK_COMMA; break;
      case ';': kind = RT_IR_TOK_SEMI; break;
      case ':': kind = RT_IR_TOK_COLON; break;
      case '.': kind = RT_IR_TOK_PERIOD; break;
      case '?': kind = RT_IR_TOK_QUESTION; break;
      case '+': kind = RT_IR_TOK_PLUS; break;
      case '*': kind = RT_IR_TOK_STAR; break;
      case '/': kind = RT_IR_TOK_SLASH; break;
      case '=':
        kind = n == '=' ? RT_IR_TOK_EQEQ : RT_IR_TOK_EQUAL;
        if (n == '=') advance(lx);
        break;
      case '!':
        if (n != '=') return rt_ir_diag(tok->span, "unexpected character `!`");
        advance(lx);
        kind = RT_IR_TOK_NE;
        break;
      case '<':
        kind = n == '=' ? RT_IR_TOK_LE : RT_IR_TOK_LT;
        if (n == '=') advance(lx);
        break;
      case '>':
        kind = n == '=' ? RT_IR_TOK_GE : RT_IR_TOK_GT;
        if (n == '=') advance(lx);
        break;
      default: {
        if (c >= 0x21 && c < 0x7f) {
          return rt_ir_diag(tok->span, "unexpected character `%c`", c);
        }
        if (c >= 0x80) {
          /* The encoding was checked: print the whole character. */
          size_t len = utf8_len((const unsigned char *)text + start,
                                lx->source->size - start);
          return rt_ir_diag(tok->span, "unexpected character `%.*s`",
                            (int)(len ? len : 1), text + start);
        }
        return rt_ir_diag(tok->span, "unexpected byte 0x%02x", c);
      }
    }
  }
  tok->kind = kind;
  tok->text = text + start;
  tok->len = lx->pos - start;
done:
  tok->span.end_line = lx->line;
  tok->span.end_col = (int32_t)(lx->pos - lx->line_start) + 1;
  return RT_OK;
}
