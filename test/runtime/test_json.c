/* Tests of the JSON reader and string writer: every value kind, key order,
 * line:col of values and errors, all escapes and surrogate pairs, UTF-8
 * validation, number grammar, the depth limit, trailing garbage, an
 * allocation failure sweep, and write_string escaping that parses back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/json.h"
#include "test_util.h"
#include "runtime/mem.h"

typedef struct {
  rt_test_alloc_t counts;
  rt_arena_t arena;
} fixture;

static int setup(void **state) {
  fixture *f = rt_mem_calloc(1, sizeof *f);
  f->counts.fail_at = -1;
  rt_arena_initialize(rt_test_allocator(&f->counts), &f->arena);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  rt_arena_deinitialize(&f->arena);
  int leaked = f->counts.live_allocations != 0;
  rt_mem_free(f);
  return leaked;
}

static rt_json_t *parse(void **state, const char *text) {
  fixture *f = *state;
  rt_json_t *v = NULL;
  assert_ok(rt_json_parse(&f->arena, text, strlen(text), &v));
  return v;
}

static void parse_fails(void **state, const char *text, size_t len, const char *needle) {
  fixture *f = *state;
  rt_json_t *v = NULL;
  rt_status_t s = rt_json_parse(&f->arena, text, len, &v);
  if (!s || rt_status_code(s) != RT_STATUS_INVALID_ARGUMENT ||
      !strstr(rt_status_message(s), needle)) {
    print_error("parsing [%.*s]: expected \"%s\", got %s\n", (int)len, text, needle,
                s ? rt_status_message(s) : "success");
    rt_status_free(s);
    fail();
  }
  rt_status_free(s);
  assert_null(v);
}

static void test_json_scalars(void **state) {
  assert_int_equal(parse(state, "null")->kind, RT_JSON_NULL);
  rt_json_t *t = parse(state, " true ");
  assert_int_equal(t->kind, RT_JSON_BOOL);
  assert_true(t->boolean);
  assert_false(parse(state, "false")->boolean);
  rt_json_t *n = parse(state, "-12.5e2");
  assert_int_equal(n->kind, RT_JSON_NUMBER);
  assert_true(n->number == -1250.0);
  assert_true(parse(state, "0")->number == 0.0);
  assert_true(parse(state, "1E-3")->number == 0.001);
  assert_true(parse(state, "123456789012345678")->number == 123456789012345678.0);
  assert_true(parse(state, "1e-400")->number == 0.0); /* underflow is fine */
  rt_json_t *s = parse(state, "\"hi\"");
  assert_int_equal(s->kind, RT_JSON_STRING);
  assert_string_equal(s->string.data, "hi");
  assert_int_equal(s->string.len, 2);
}

static void test_json_containers_keep_order(void **state) {
  rt_json_t *v = parse(state, "{\"z\": 1, \"a\": [1, 2, {\"k\": null}], \"m\": {}, \"e\": []}");
  assert_int_equal(v->kind, RT_JSON_OBJECT);
  assert_int_equal(v->object.count, 4);
  assert_string_equal(v->object.keys[0], "z");
  assert_string_equal(v->object.keys[1], "a");
  assert_string_equal(v->object.keys[2], "m");
  assert_string_equal(v->object.keys[3], "e");
  const rt_json_t *a = rt_json_get(v, "a");
  assert_int_equal(a->kind, RT_JSON_ARRAY);
  assert_int_equal(a->array.count, 3);
  assert_true(a->array.items[1]->number == 2.0);
  assert_int_equal(rt_json_get(a->array.items[2], "k")->kind, RT_JSON_NULL);
  assert_int_equal(rt_json_get(v, "m")->object.count, 0);
  assert_int_equal(rt_json_get(v, "e")->array.count, 0);
  assert_null(rt_json_get(v, "missing"));
  assert_null(rt_json_get(a, "a")); /* not an object */
  assert_null(rt_json_get(NULL, "a"));
}

static void test_json_big_array(void **state) {
  size_t n = 10000;
  char *text = rt_mem_alloc(n * 2 + 2);
  size_t k = 0;
  text[k++] = '[';
  for (size_t i = 0; i < n; ++i) {
    text[k++] = (char)('0' + i % 10);
    text[k++] = i + 1 < n ? ',' : ']';
  }
  text[k] = '\0';
  rt_json_t *v = parse(state, text);
  assert_int_equal(v->array.count, (int32_t)n);
  assert_true(v->array.items[9999]->number == 9.0);
  rt_mem_free(text);
}

static void test_json_positions(void **state) {
  rt_json_t *v = parse(state, "{\n  \"a\": [1,\n   true]\n}");
  assert_int_equal(v->line, 1);
  assert_int_equal(v->col, 1);
  const rt_json_t *a = rt_json_get(v, "a");
  assert_int_equal(a->line, 2);
  assert_int_equal(a->col, 8);
  assert_int_equal(a->array.items[1]->line, 3);
  assert_int_equal(a->array.items[1]->col, 4);
  parse_fails(state, "{\n  \"a\": [1,\n   tru]\n}", 22, "3:4: unexpected 't'");
  parse_fails(state, "[1,\n 2,\n ]", 10, "3:2: unexpected ']'; expected a value");
}

static void test_json_escapes(void **state) {
  rt_json_t *s = parse(state, "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC\"");
  assert_string_equal(s->string.data, "a\"b\\c/d\b\f\n\r\tA\xc3\xa9\xe2\x82\xac");
  /* U+1F600 as a surrogate pair. */
  s = parse(state, "\"\\ud83d\\ude00\"");
  assert_string_equal(s->string.data, "\xf0\x9f\x98\x80");
  /* \u0000 is kept; len counts it. */
  s = parse(state, "\"x\\u0000y\"");
  assert_int_equal(s->string.len, 3);
  assert_memory_equal(s->string.data, "x\0y", 4);
  /* Raw UTF-8 passes through. */
  s = parse(state, "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
  assert_string_equal(s->string.data, "caf\xc3\xa9 \xf0\x9f\x98\x80");
}

static void test_json_string_errors(void **state) {
  parse_fails(state, "\"abc", 4, "1:5: unterminated string");
  parse_fails(state, "\"a\\x\"", 5, "1:3: invalid escape");
  parse_fails(state, "\"\\u12zz\"", 8, "1:6: bad hex digit");
  parse_fails(state, "\"\\u12", 5, "truncated \\u escape");
  parse_fails(state, "\"\\ud83d\"", 8, "high surrogate not followed");
  parse_fails(state, "\"\\ud83d\\u0041\"", 14, "high surrogate not followed by a low");
  parse_fails(state, "\"\\ude00\"", 8, "unpaired low surrogate");
  parse_fails(state, "\"a\nb\"", 5, "control character");
  parse_fails(state, "\"\xff\"", 3, "invalid UTF-8");
  parse_fails(state, "\"\xc0\xaf\"", 4, "invalid UTF-8");         /* overlong '/' */
  parse_fails(state, "\"\xe0\x80\xaf\"", 5, "invalid UTF-8");     /* overlong */
  parse_fails(state, "\"\xed\xa0\x80\"", 5, "invalid UTF-8");     /* surrogate */
  parse_fails(state, "\"\xf4\x90\x80\x80\"", 6, "invalid UTF-8"); /* > U+10FFFF */
  parse_fails(state, "\"\xe2\x82\"", 4, "invalid UTF-8");         /* truncated */
  parse_fails(state, "\"\x80\"", 3, "invalid UTF-8");             /* lone continuation */
}

static void test_json_number_errors(void **state) {
  parse_fails(state, "01", 2, "1:2: unexpected '1'; expected the end of input");
  parse_fails(state, "-", 1, "expected a digit");
  parse_fails(state, "1.", 2, "digit after '.'");
  parse_fails(state, "1.e5", 4, "digit after '.'");
  parse_fails(state, "1e", 2, "digit in the exponent");
  parse_fails(state, "+1", 2, "unexpected '+'");
  parse_fails(state, ".5", 2, "unexpected '.'");
  parse_fails(state, "1e999", 5, "number out of range");
  parse_fails(state, "NaN", 3, "unexpected 'N'");
  parse_fails(state, "Infinity", 8, "unexpected 'I'");
  /* The length bounds the number; the byte after it is not read. */
  fixture *f = *state;
  rt_json_t *v = NULL;
  assert_ok(rt_json_parse(&f->arena, "12345", 2, &v));
  assert_true(v->number == 12.0);
}

static void test_json_syntax_errors(void **state) {
  parse_fails(state, "", 0, "1:1: unexpected end of input; expected a value");
  parse_fails(state, "   ", 3, "1:4: unexpected end of input");
  parse_fails(state, "[1 2]", 5, "1:4: unexpected '2'; expected ',' or ']'");
  parse_fails(state, "[1,]", 4, "unexpected ']'; expected a value");
  parse_fails(state, "{\"a\" 1}", 7, "expected ':'");
  parse_fails(state, "{a: 1}", 6, "expected a string key");
  parse_fails(state, "{\"a\": 1,}", 9, "expected a string key");
  parse_fails(state, "{\"a\": 1", 7, "unexpected end of input; expected ',' or '}'");
  parse_fails(state, "[", 1, "unexpected end of input");
  parse_fails(state, "tru", 3, "unexpected 't'");
  parse_fails(state, "nul", 3, "unexpected 'n'");
  parse_fails(state, "true false", 10, "1:6: unexpected 'f'; expected the end of input");
  parse_fails(state, "{} x", 4, "expected the end of input");
  parse_fails(state, "[\x01]", 3, "unexpected byte 0x01");
  parse_fails(state, "1\0", 2, "unexpected byte 0x00");
  parse_fails(state, "\xef\xbb\xbf{}", 5, "unexpected byte 0xef");
}

static void test_json_depth_limit(void **state) {
  char text[2 * (RT_JSON_MAX_DEPTH + 1) + 1];
  for (int depth = RT_JSON_MAX_DEPTH; depth <= RT_JSON_MAX_DEPTH + 1; ++depth) {
    size_t k = 0;
    for (int i = 0; i < depth; ++i) text[k++] = i % 2 ? '[' : '[';
    for (int i = 0; i < depth; ++i) text[k++] = ']';
    text[k] = '\0';
    fixture *f = *state;
    rt_json_t *v = NULL;
    rt_status_t s = rt_json_parse(&f->arena, text, k, &v);
    if (depth == RT_JSON_MAX_DEPTH) {
      assert_ok(s);
    } else {
      assert_status(s, INVALID_ARGUMENT, "1:129: nesting deeper than 128");
    }
  }
  /* Objects count too; a deep hostile input fails fast, no stack blowup. */
  size_t n = 1000000;
  char *deep = rt_mem_alloc(n * 5);
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    memcpy(deep + k, "{\"a\":", 5);
    k += 5;
  }
  parse_fails(state, deep, k, "nesting deeper than 128");
  rt_mem_free(deep);
}

static void test_json_alloc_failure_every_index(void **state) {
  (void)state;
  const char *text = "{\"a\": [1, 2, \"three\"], \"b\": {\"c\": true}, \"d\": \"x\"}";
  for (int64_t fail_at = 0;; ++fail_at) {
    rt_test_alloc_t counts = {0, 0, fail_at, 0};
    rt_arena_t arena;
    rt_arena_initialize(rt_test_allocator(&counts), &arena);
    arena.block_size = 256; /* several blocks, several failure points */
    rt_json_t *v = NULL;
    rt_status_t s = rt_json_parse(&arena, text, strlen(text), &v);
    rt_arena_deinitialize(&arena);
    assert_int_equal(counts.live_allocations, 0);
    if (!s) {
      assert_true(fail_at >= 1);
      break;
    }
    assert_int_equal(rt_status_code(s), RT_STATUS_RESOURCE_EXHAUSTED);
    rt_status_free(s);
  }
}

static void test_json_write_string_escapes(void **state) {
  const char raw[] = "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f\xc3\xa9";
  rt_strbuf_t out;
  rt_strbuf_initialize(&out);
  rt_json_write_string(&out, raw, sizeof raw - 1);
  assert_string_equal(out.data,
                      "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\xc3\xa9\"");
  rt_json_t *v = parse(state, out.data);
  assert_int_equal(v->string.len, sizeof raw - 1);
  assert_memory_equal(v->string.data, raw, sizeof raw - 1);
  rt_strbuf_truncate(&out, 0);
  rt_json_write_string(&out, "a\0b", 3);
  assert_string_equal(out.data, "\"a\\u0000b\"");
  rt_strbuf_truncate(&out, 0);
  rt_json_write_string(&out, "", 0);
  assert_string_equal(out.data, "\"\"");
  rt_strbuf_deinitialize(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_json_scalars, setup, teardown),
      cmocka_unit_test_setup_teardown(test_json_containers_keep_order, setup, teardown),
      cmocka_unit_test_setup_teardown(test_json_big_array, setup, teardown),
      cmocka_unit_test_setup_teardown(test_json_positions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_json_escapes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_json_string_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_json_number_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_json_syntax_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_json_depth_limit, setup, teardown),
      cmocka_unit_test(test_json_alloc_failure_every_index),
      cmocka_unit_test_setup_teardown(test_json_write_string_escapes, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
