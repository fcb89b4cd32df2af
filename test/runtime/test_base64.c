/* Tests of base64: RFC 4648 §10 test vectors both ways, binary round trips
 * of every length mod 3, and the decoder's rejections with offsets. */
#include <stdlib.h>
#include <string.h>

#include "runtime/base64.h"
#include "test_util.h"
#include "runtime/mem.h"

static const char *kVectors[][2] = {
    {"", ""},          {"f", "Zg=="},         {"fo", "Zm8="},
    {"foo", "Zm9v"},   {"foob", "Zm9vYg=="},  {"fooba", "Zm9vYmE="},
    {"foobar", "Zm9vYmFy"},
};

static void test_base64_rfc4648_vectors(void **state) {
  (void)state;
  for (size_t i = 0; i < RT_COUNTOF(kVectors); ++i) {
    rt_strbuf_t out;
    rt_strbuf_initialize(&out);
    rt_base64_encode(kVectors[i][0], strlen(kVectors[i][0]), &out);
    char *text = NULL;
    size_t len = 0;
    assert_ok(rt_strbuf_finish(&out, &text, &len));
    assert_string_equal(text, kVectors[i][1]);
    rt_mem_free(text);
    uint8_t *bytes = NULL;
    size_t size = 0;
    assert_ok(rt_base64_decode(kVectors[i][1], strlen(kVectors[i][1]), &bytes, &size));
    assert_int_equal(size, strlen(kVectors[i][0]));
    if (size) assert_memory_equal(bytes, kVectors[i][0], size);
    rt_mem_free(bytes);
  }
}

static void test_base64_binary_round_trip(void **state) {
  (void)state;
  uint8_t data[256];
  for (int i = 0; i < 256; ++i) data[i] = (uint8_t)(255 - i);
  for (size_t n = 0; n <= 256; n += 1) {
    rt_strbuf_t out;
    rt_strbuf_initialize(&out);
    rt_base64_encode(data, n, &out);
    assert_int_equal(out.len, (n + 2) / 3 * 4);
    uint8_t *bytes = NULL;
    size_t size = 0;
    assert_ok(rt_base64_decode(out.data ? out.data : "", out.len, &bytes, &size));
    assert_int_equal(size, n);
    if (n) assert_memory_equal(bytes, data, n);
    rt_mem_free(bytes);
    rt_strbuf_deinitialize(&out);
  }
  /* Every alphabet character decodes: "+/" included. */
  uint8_t *bytes = NULL;
  size_t size = 0;
  assert_ok(rt_base64_decode("+/+/", 4, &bytes, &size));
  assert_int_equal(size, 3);
  assert_memory_equal(bytes, "\xfb\xff\xbf", 3);
  rt_mem_free(bytes);
}

static void test_base64_rejects(void **state) {
  (void)state;
  uint8_t *bytes = NULL;
  size_t size = 0;
  assert_status(rt_base64_decode("Zm9", 3, &bytes, &size), INVALID_ARGUMENT,
                "not a multiple of 4");
  assert_status(rt_base64_decode("Zm9v Zm8=", 9, &bytes, &size), INVALID_ARGUMENT,
                "not a multiple of 4");
  assert_status(rt_base64_decode("Zm 9", 4, &bytes, &size), INVALID_ARGUMENT,
                "invalid character in base64 at offset 2");
  assert_status(rt_base64_decode("Zm9v\nZm8", 8, &bytes, &size), INVALID_ARGUMENT,
                "offset 4");
  assert_status(rt_base64_decode("Zm=vZm8=", 8, &bytes, &size), INVALID_ARGUMENT,
                "misplaced '=' in base64 at offset 2");
  assert_status(rt_base64_decode("Z===", 4, &bytes, &size), INVALID_ARGUMENT,
                "misplaced '='");
  assert_status(rt_base64_decode("====", 4, &bytes, &size), INVALID_ARGUMENT,
                "offset 0");
  assert_status(rt_base64_decode("Zg=a", 4, &bytes, &size), INVALID_ARGUMENT,
                "misplaced '=' in base64 at offset 2");
  assert_status(rt_base64_decode("Zm-_", 4, &bytes, &size), INVALID_ARGUMENT,
                "offset 2"); /* the URL alphabet is not accepted */
  assert_null(bytes);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_base64_rfc4648_vectors),
      cmocka_unit_test(test_base64_binary_round_trip),
      cmocka_unit_test(test_base64_rejects),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
