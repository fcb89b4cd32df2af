/* A small JSON reader (DOM) and writer helpers, for TVM's metadata section,
 * graph JSON and reports. The reader accepts RFC 8259 JSON; nesting deeper
 * than RT_JSON_MAX_DEPTH, invalid UTF-8 in strings, bad escapes and
 * trailing garbage are errors naming line:col. Values live in an arena. */
#ifndef RT_RUNTIME_JSON_H_
#define RT_RUNTIME_JSON_H_

#include "runtime/arena.h"
#include "runtime/strbuf.h"

#define RT_JSON_MAX_DEPTH 128

typedef enum rt_json_kind_e {
  RT_JSON_NULL,
  RT_JSON_BOOL,
  RT_JSON_NUMBER,
  RT_JSON_STRING,
  RT_JSON_ARRAY,
  RT_JSON_OBJECT,
} rt_json_kind_t;

typedef struct rt_json_t rt_json_t;
struct rt_json_t {
  rt_json_kind_t kind;
  int32_t line, col;        /* where the value starts (1-based) */
  union {
    bool boolean;
    double number;
    struct { const char *data; size_t len; } string;   /* NUL-terminated */
    struct { rt_json_t **items; int32_t count; } array;
    struct { const char **keys; rt_json_t **values; int32_t count; } object;
  };
};

/* Parses `len` bytes. On error the message is "line:col: what" (the caller
 * adds the file name and position offset). */
RT_MUST_USE_RESULT rt_status_t rt_json_parse(rt_arena_t *arena,
                                             const char *text, size_t len,
                                             rt_json_t **out_value);

/* Member lookup; NULL when absent or `object` is not an object. */
const rt_json_t *rt_json_get(const rt_json_t *object, const char *key);

/* Appends a JSON string literal (quotes and escapes) to `out`. */
void rt_json_write_string(rt_strbuf_t *out, const char *s, size_t len);

#endif /* RT_RUNTIME_JSON_H_ */
