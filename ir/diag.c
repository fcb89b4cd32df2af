/* Diagnostics: the one error format for anything positioned in source text,
 *   name:line:col: error: message
 *   <the source line>
 *   <spaces>^
 * Columns are 1-based byte offsets; the caret line copies tabs from the
 * source line so it lines up in a terminal. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "runtime/strbuf.h"
#include "runtime/mem.h"

/* Start of line `line` (1-based) in text, or NULL past the end. */
static const char *line_start(const rt_ir_source_t *src, int32_t line) {
  const char *p = src->text, *end = src->text + src->size;
  for (int32_t l = 1; l < line; ++l) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return NULL;
    p = nl + 1;
  }
  return p;
}

rt_status_t rt_ir_diag(rt_ir_span_t span, const char *format, ...) {
  rt_strbuf_t buf;
  rt_strbuf_initialize(&buf);
  if (span.source && span.line > 0) {
    rt_strbuf_printf(&buf, "%s:%d:%d: error: ", span.source->name,
                     (int)span.line, (int)span.col);
  } else {
    rt_strbuf_puts(&buf, "error: ");
  }
  va_list args;
  va_start(args, format);
  rt_strbuf_vprintf(&buf, format, args);
  va_end(args);
  if (span.source && span.line > 0) {
    const char *ls = line_start(span.source, span.line);
    if (ls) {
      const char *end = span.source->text + span.source->size;
      const char *le = ls;
      while (le < end && *le != '\n' && *le != '\r') ++le;
      rt_strbuf_putc(&buf, '\n');
      rt_strbuf_append(&buf, ls, (size_t)(le - ls));
      rt_strbuf_putc(&buf, '\n');
      for (int32_t c = 1; c < span.col && ls + c - 1 < le; ++c) {
        rt_strbuf_putc(&buf, ls[c - 1] == '\t' ? '\t' : ' ');
      }
      rt_strbuf_putc(&buf, '^');
    }
  }
  char *text = NULL;
  size_t len = 0;
  rt_status_t st = rt_strbuf_finish(&buf, &text, &len);
  if (st) return st;
  st = rt_status_create(RT_STATUS_INVALID_ARGUMENT, __FILE__, __LINE__, "%s",
                        text);
  rt_mem_free(text);
  return st;
}
