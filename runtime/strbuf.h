/* Growable string buffer for printers, diagnostics and JSON writing.
 * Allocation failure is sticky: after the first failure every append is a
 * no-op and rt_strbuf_finish returns RESOURCE_EXHAUSTED, so printers can
 * append freely and check once. Memory comes from the library heap
 * (runtime/mem.h): free the finished text with rt_mem_free, and hand it
 * to API callers through rt_mem_export_text (they free() theirs). */
#ifndef RT_RUNTIME_STRBUF_H_
#define RT_RUNTIME_STRBUF_H_

#include <stdarg.h>

#include "rt/status.h"
#include "runtime/mem.h"

typedef struct rt_strbuf_t {
  char *data;     /* NUL-terminated when non-NULL */
  size_t len;
  size_t cap;
  bool failed;
} rt_strbuf_t;

void rt_strbuf_initialize(rt_strbuf_t *out_buf);
void rt_strbuf_deinitialize(rt_strbuf_t *buf);
void rt_strbuf_append(rt_strbuf_t *buf, const char *s, size_t len);
void rt_strbuf_puts(rt_strbuf_t *buf, const char *s);
void rt_strbuf_putc(rt_strbuf_t *buf, char c);
void rt_strbuf_printf(rt_strbuf_t *buf, const char *format, ...)
    RT_PRINTF_FORMAT(2, 3);
void rt_strbuf_vprintf(rt_strbuf_t *buf, const char *format, va_list args)
    RT_PRINTF_FORMAT(2, 0);
/* Drops everything after the first `len` bytes. */
void rt_strbuf_truncate(rt_strbuf_t *buf, size_t len);
/* Hands the text (rt_mem_alloc'd, NUL-terminated, never NULL on success) to the
 * caller and leaves the buffer empty. */
RT_MUST_USE_RESULT rt_status_t rt_strbuf_finish(rt_strbuf_t *buf,
                                                char **out_text,
                                                size_t *out_len);

#endif /* RT_RUNTIME_STRBUF_H_ */
