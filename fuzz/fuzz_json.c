/* libFuzzer target for the JSON reader. A parsed document is walked and
 * every string re-escaped with rt_json_write_string; the escaped text must
 * parse back to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_string(const char *s, size_t len) {
  rt_strbuf_t out;
  rt_strbuf_initialize(&out);
  rt_json_write_string(&out, s, len);
  if (out.failed) abort();
  rt_arena_t arena;
  rt_arena_initialize(rt_allocator_system(), &arena);
  rt_json_t *v = NULL;
  rt_status_t status = rt_json_parse(&arena, out.data, out.len, &v);
  if (status || v->kind != RT_JSON_STRING || v->string.len != len ||
      memcmp(v->string.data, s, len) != 0) {
    abort();
  }
  rt_arena_deinitialize(&arena);
  rt_strbuf_deinitialize(&out);
}

static void walk(const rt_json_t *v) {
  switch (v->kind) {
    case RT_JSON_STRING:
      check_string(v->string.data, v->string.len);
      break;
    case RT_JSON_ARRAY:
      for (int32_t i = 0; i < v->array.count; ++i) walk(v->array.items[i]);
      break;
    case RT_JSON_OBJECT:
      for (int32_t i = 0; i < v->object.count; ++i) {
        check_string(v->object.keys[i], strlen(v->object.keys[i]));
        if (rt_json_get(v, v->object.keys[i]) == NULL) abort();
        walk(v->object.values[i]);
      }
      break;
    default:
      break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rt_arena_t arena;
  rt_arena_initialize(rt_allocator_system(), &arena);
  rt_json_t *value = NULL;
  rt_status_t status = rt_json_parse(&arena, (const char *)data, size, &value);
  if (status) {
    rt_status_free(status);
  } else {
    walk(value);
  }
  rt_arena_deinitialize(&arena);
  return 0;
}
