/* Growable string buffer (strbuf.h). Capacity doubles; every growth is
 * overflow-checked. The first failed growth sets `failed`, after which all
 * appends are no-ops and rt_strbuf_finish reports RESOURCE_EXHAUSTED, so a
 * printer appends freely and checks once. `data` is NUL-terminated whenever
 * it is non-NULL. */
#include "runtime/strbuf.h"
#include "runtime/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rt_strbuf_initialize(rt_strbuf_t *out_buf) {
  out_buf->data = NULL;
  out_buf->len = 0;
  out_buf->cap = 0;
  out_buf->failed = false;
}

void rt_strbuf_deinitialize(rt_strbuf_t *buf) {
  rt_mem_free(buf->data);
  rt_strbuf_initialize(buf);
}

/* Makes room for `extra` more bytes plus the NUL. */
static bool reserve(rt_strbuf_t *buf, size_t extra) {
  if (buf->failed) return false;
  size_t need;
  if (__builtin_add_overflow(buf->len, extra, &need) ||
      __builtin_add_overflow(need, 1, &need)) {
    buf->failed = true;
    return false;
  }
  if (need <= buf->cap) return true;
  size_t cap = buf->cap ? buf->cap : 64;
  while (cap < need) {
    if (cap > SIZE_MAX / 2) {
      cap = need;
      break;
    }
    cap *= 2;
  }
  char *grown = rt_mem_realloc(buf->data, cap);
  if (!grown) {
    buf->failed = true;
    return false;
  }
  buf->data = grown;
  buf->cap = cap;
  return true;
}

void rt_strbuf_append(rt_strbuf_t *buf, const char *s, size_t len) {
  if (!reserve(buf, len)) return;
  if (len) memcpy(buf->data + buf->len, s, len);
  buf->len += len;
  buf->data[buf->len] = '\0';
}

void rt_strbuf_puts(rt_strbuf_t *buf, const char *s) {
  rt_strbuf_append(buf, s, strlen(s));
}

void rt_strbuf_putc(rt_strbuf_t *buf, char c) { rt_strbuf_append(buf, &c, 1); }

void rt_strbuf_vprintf(rt_strbuf_t *buf, const char *format, va_list args) {
  if (buf->failed) return;
  va_list copy;
  va_copy(copy, args);
  size_t room = buf->cap > buf->len ? buf->cap - buf->len : 0;
  int n = vsnprintf(room ? buf->data + buf->len : NULL, room, format, copy);
  va_end(copy);
  if (n < 0) {
    buf->failed = true;
    return;
  }
  if ((size_t)n < room) {
    buf->len += (size_t)n;
    return;
  }
  if (!reserve(buf, (size_t)n)) return;
  vsnprintf(buf->data + buf->len, (size_t)n + 1, format, args);
  buf->len += (size_t)n;
}

void rt_strbuf_printf(rt_strbuf_t *buf, const char *format, ...) {
  va_list args;
  va_start(args, format);
  rt_strbuf_vprintf(buf, format, args);
  va_end(args);
}

void rt_strbuf_truncate(rt_strbuf_t *buf, size_t len) {
  if (len >= buf->len) return;
  buf->len = len;
  buf->data[len] = '\0';
}

rt_status_t rt_strbuf_finish(rt_strbuf_t *buf, char **out_text,
                             size_t *out_len) {
  if (!buf->failed && !buf->data) reserve(buf, 0);
  if (buf->failed) {
    size_t len = buf->len;
    rt_strbuf_deinitialize(buf);
    return RT_STATUS(RESOURCE_EXHAUSTED,
                     "out of memory building a string (%zu bytes so far)", len);
  }
  buf->data[buf->len] = '\0';
  *out_text = buf->data;
  if (out_len) *out_len = buf->len;
  rt_strbuf_initialize(buf);
  return RT_OK;
}
