/* Lexer unit tests: token kinds, literal suffixes and ranges, minus
 * folding by parity, nested comments, keywords, the #[metadata] hand-off,
 * and the float16 rounding the literal reader relies on. */
#include <math.h>
#include <string.h>

#include "ir/text/text.h"
#include "test_util.h"

typedef struct lexed_t {
  rt_ir_token_t toks[64];
  int n;
} lexed_t;

static void lex_all(const char *text, lexed_t *out) {
  static rt_ir_source_t src;
  src = (rt_ir_source_t){"t.relay", text, strlen(text)};
  rt_ir_lexer_t lx;
  rt_ir_lexer_initialize(&src, &lx);
  out->n = 0;
  for (;;) {
    assert_true(out->n < 64);
    rt_ir_token_t *t = &out->toks[out->n++];
    assert_ok(rt_ir_lex(&lx, t));
    if (t->kind == RT_IR_TOK_EOF) break;
  }
}

static rt_status_t lex_error(const char *text) {
  static rt_ir_source_t src;
  src = (rt_ir_source_t){"t.relay", text, strlen(text)};
  rt_ir_lexer_t lx;
  rt_ir_lexer_initialize(&src, &lx);
  for (;;) {
    rt_ir_token_t t;
    rt_status_t s = rt_ir_lex(&lx, &t);
    if (s || t.kind == RT_IR_TOK_EOF) return s;
  }
}

static void test_lexer_tokens(void **state) {
  (void)state;
  lexed_t l;
  lex_all("def @main(%x: Tensor[(1, ?), float32]) -> { } ; . = == != < <= > >= + * / %3 \"s\" "
          "match? match free_var %bert/x nn.conv2d",
          &l);
  const rt_ir_tok_kind_t want[] = {
      RT_IR_TOK_KW_DEF, RT_IR_TOK_GLOBAL, RT_IR_TOK_LPAREN, RT_IR_TOK_LOCAL, RT_IR_TOK_COLON,
      RT_IR_TOK_IDENT, RT_IR_TOK_LBRACKET, RT_IR_TOK_LPAREN, RT_IR_TOK_INT, RT_IR_TOK_COMMA,
      RT_IR_TOK_QUESTION, RT_IR_TOK_RPAREN, RT_IR_TOK_COMMA, RT_IR_TOK_IDENT, RT_IR_TOK_RBRACKET,
      RT_IR_TOK_RPAREN, RT_IR_TOK_ARROW, RT_IR_TOK_LBRACE, RT_IR_TOK_RBRACE, RT_IR_TOK_SEMI,
      RT_IR_TOK_PERIOD, RT_IR_TOK_EQUAL, RT_IR_TOK_EQEQ, RT_IR_TOK_NE, RT_IR_TOK_LT, RT_IR_TOK_LE,
      RT_IR_TOK_GT, RT_IR_TOK_GE, RT_IR_TOK_PLUS, RT_IR_TOK_STAR, RT_IR_TOK_SLASH, RT_IR_TOK_GRAPH,
      RT_IR_TOK_STRING, RT_IR_TOK_KW_PMATCH, RT_IR_TOK_KW_MATCH, RT_IR_TOK_KW_FREE_VAR,
      RT_IR_TOK_LOCAL, RT_IR_TOK_IDENT, RT_IR_TOK_PERIOD, RT_IR_TOK_IDENT, RT_IR_TOK_EOF};
  assert_int_equal(l.n, (int)RT_COUNTOF(want));
  for (int i = 0; i < l.n; ++i) assert_int_equal(l.toks[i].kind, want[i]);
  assert_int_equal(l.toks[36].len, 7); /* %bert/x */
  assert_int_equal(l.toks[1].span.col, 5);
  assert_int_equal(l.toks[1].span.end_col, 10);
}

static void test_lexer_literal_suffixes(void **state) {
  (void)state;
  lexed_t l;
  lex_all("1 2147483648 7i16 1i64 5i 5i32 1.5f 1f16 3f64 1e-05f 2.5e+3f inff inff64 True False", &l);
  assert_int_equal(l.toks[0].kind, RT_IR_TOK_INT);
  assert_int_equal(l.toks[0].dtype.bits, 32);
  assert_int_equal(l.toks[1].dtype.bits, 64);
  assert_int_equal(l.toks[1].i, INT64_C(2147483648));
  assert_int_equal(l.toks[2].dtype.bits, 16);
  assert_int_equal(l.toks[2].i, 7);
  assert_int_equal(l.toks[3].dtype.bits, 64);
  assert_int_equal(l.toks[4].dtype.bits, 32);
  assert_int_equal(l.toks[5].dtype.bits, 32);
  assert_int_equal(l.toks[6].kind, RT_IR_TOK_FLOAT);
  assert_int_equal(l.toks[6].dtype.bits, 32);
  assert_true(l.toks[6].f == 1.5);
  assert_int_equal(l.toks[7].dtype.bits, 16);
  assert_int_equal(l.toks[7].f16, 0x3c00);
  assert_int_equal(l.toks[8].dtype.bits, 64);
  assert_true(l.toks[9].f == 1e-05);
  assert_true(l.toks[9].f32 == 1e-05f);
  assert_true(l.toks[10].f == 2500.0);
  assert_true(isinf(l.toks[11].f32) && l.toks[11].f32 > 0);
  assert_int_equal(l.toks[12].dtype.bits, 64);
  assert_int_equal(l.toks[13].kind, RT_IR_TOK_BOOL);
  assert_true(l.toks[13].b);
  assert_false(l.toks[14].b);
  /* Ranges and widths. */
  assert_status(lex_error("2147483648i32"), INVALID_ARGUMENT, "out of range for int32");
  assert_status(lex_error("32768i16"), INVALID_ARGUMENT, "out of range for int16");
  assert_status(lex_error("9223372036854775808"), INVALID_ARGUMENT, "out of range for int64");
  assert_status(lex_error("1i8"), INVALID_ARGUMENT, "unrecognized integer width `i8`");
  assert_status(lex_error("1f8"), INVALID_ARGUMENT, "unrecognized float width `f8`");
  assert_status(lex_error("65505f16"), INVALID_ARGUMENT, "out of range for float16");
  assert_status(lex_error("1e39f"), INVALID_ARGUMENT, "out of range for float32");
  assert_status(lex_error("1.5"), INVALID_ARGUMENT, "invalid integer number `1.5`");
  assert_status(lex_error("1e5"), INVALID_ARGUMENT, "invalid integer number");
  assert_status(lex_error("3x"), INVALID_ARGUMENT, "invalid number literal `3x`");
  lex_all("32767i16 -32768i16 -2147483648 -9223372036854775808 65504f16", &l);
  assert_int_equal(l.toks[1].i, -32768);
  assert_int_equal(l.toks[2].dtype.bits, 32);
  assert_int_equal(l.toks[3].dtype.bits, 64);
  assert_true(l.toks[3].i == INT64_MIN);
  assert_int_equal(l.toks[4].f16, 0x7bff);
}

static void test_lexer_minus_folding(void **state) {
  (void)state;
  lexed_t l;
  lex_all("--10 ---10 - 1 %a -1 -inff --inff -0f ->", &l);
  assert_int_equal(l.toks[0].kind, RT_IR_TOK_INT);
  assert_int_equal(l.toks[0].i, 10);
  assert_int_equal(l.toks[1].i, -10);
  assert_int_equal(l.toks[2].kind, RT_IR_TOK_MINUS);
  assert_int_equal(l.toks[3].i, 1);
  assert_int_equal(l.toks[4].kind, RT_IR_TOK_LOCAL);
  assert_int_equal(l.toks[5].kind, RT_IR_TOK_INT); /* `%a -1`: a literal, no operator */
  assert_int_equal(l.toks[5].i, -1);
  assert_true(isinf(l.toks[6].f) && l.toks[6].f < 0);
  assert_true(isinf(l.toks[7].f) && l.toks[7].f > 0);
  assert_true(l.toks[8].f32 == 0.0f && signbit(l.toks[8].f32));
  assert_int_equal(l.toks[9].kind, RT_IR_TOK_ARROW);
  /* A run of '-' before something else: one MINUS each. */
  lex_all("--%x", &l);
  assert_int_equal(l.toks[0].kind, RT_IR_TOK_MINUS);
  assert_int_equal(l.toks[1].kind, RT_IR_TOK_MINUS);
  assert_int_equal(l.toks[2].kind, RT_IR_TOK_LOCAL);
}

static void test_lexer_comments(void **state) {
  (void)state;
  lexed_t l;
  lex_all("/* a /* b */ c */ x // line\n y /* ty=float32 */ z", &l);
  assert_int_equal(l.n, 4);
  assert_true(l.toks[0].len == 1 && l.toks[0].text[0] == 'x');
  assert_true(l.toks[1].text[0] == 'y');
  assert_int_equal(l.toks[1].span.line, 2);
  assert_int_equal(l.toks[1].span.col, 2);
  assert_true(l.toks[2].text[0] == 'z');
  assert_status(lex_error("/* /* */"), INVALID_ARGUMENT, "unterminated comment");
  assert_status(lex_error("\"abc"), INVALID_ARGUMENT, "unterminated string");
}

static void test_lexer_metadata_handoff(void **state) {
  (void)state;
  lexed_t l;
  lex_all("x #[metadata]\n{\"root\": 1} ) ( garbage", &l);
  assert_int_equal(l.n, 3);
  assert_int_equal(l.toks[1].kind, RT_IR_TOK_METADATA);
  assert_int_equal(l.toks[1].meta_offset, strlen("x #[metadata]"));
  assert_int_equal(l.toks[2].kind, RT_IR_TOK_EOF);
  lex_all("#[version = \"0.0.5\"]", &l);
  assert_int_equal(l.toks[0].kind, RT_IR_TOK_ATTR_OPEN);
  assert_int_equal(l.toks[1].kind, RT_IR_TOK_IDENT);
}

static void test_lexer_encoding(void **state) {
  (void)state;
  rt_ir_source_t src = {"e.relay", "ok\n\xc3\xa9 \xff", 7};
  assert_status(rt_ir_text_check_encoding(&src), INVALID_ARGUMENT, "e.relay:2:4: error: invalid UTF-8 byte 0xff");
  src = (rt_ir_source_t){"e.relay", "a\r\nb\rc", 6};
  assert_status(rt_ir_text_check_encoding(&src), INVALID_ARGUMENT, "e.relay:2:2: error: carriage return");
  src = (rt_ir_source_t){"e.relay", "\xed\xa0\x80", 3}; /* a UTF-16 surrogate */
  assert_status(rt_ir_text_check_encoding(&src), INVALID_ARGUMENT, "invalid UTF-8");
  src = (rt_ir_source_t){"e.relay", "\xc0\xaf", 2}; /* overlong */
  assert_status(rt_ir_text_check_encoding(&src), INVALID_ARGUMENT, "invalid UTF-8");
  src = (rt_ir_source_t){"e.relay", "a\r\n\xe2\x82\xac", 6};
  assert_ok(rt_ir_text_check_encoding(&src));
}

static void test_lexer_float16_rounding(void **state) {
  (void)state;
  assert_int_equal(rt_ir_f16_from_double(1.0), 0x3c00);
  assert_int_equal(rt_ir_f16_from_double(-2.0), 0xc000);
  assert_int_equal(rt_ir_f16_from_double(65504.0), 0x7bff);
  assert_int_equal(rt_ir_f16_from_double(65520.0), 0x7c00);      /* rounds up to inf */
  assert_int_equal(rt_ir_f16_from_double(65519.99), 0x7bff);
  assert_int_equal(rt_ir_f16_from_double(ldexp(1, -24)), 0x0001); /* smallest subnormal */
  assert_int_equal(rt_ir_f16_from_double(ldexp(1, -25)), 0x0000); /* tie to even */
  assert_int_equal(rt_ir_f16_from_double(3 * ldexp(1, -25)), 0x0002);
  assert_int_equal(rt_ir_f16_from_double(ldexp(1023, -24) + ldexp(1, -25)), 0x0400);
  assert_int_equal(rt_ir_f16_from_double(1.0 + ldexp(1, -11)), 0x3c00); /* tie to even */
  assert_int_equal(rt_ir_f16_from_double(1.0 + 3 * ldexp(1, -11)), 0x3c02);
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    assert_int_equal(rt_ir_f16_from_double(rt_ir_f16_to_float((uint16_t)h)), h);
    assert_int_equal(rt_ir_f16_from_double(rt_ir_f16_to_float((uint16_t)(h | 0x8000))), h | 0x8000);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lexer_tokens),
      cmocka_unit_test(test_lexer_literal_suffixes),
      cmocka_unit_test(test_lexer_minus_folding),
      cmocka_unit_test(test_lexer_comments),
      cmocka_unit_test(test_lexer_metadata_handoff),
      cmocka_unit_test(test_lexer_encoding),
      cmocka_unit_test(test_lexer_float16_rounding),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
