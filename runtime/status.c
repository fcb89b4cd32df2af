/* Status objects (include/rt/status.h) and rt_assert_fail (assert.h).
 *
 * An error status is one malloc'd block: the code, the file:line where it
 * was made, and a growable NUL-terminated message. Annotations are appended
 * to the message in place as "; <text>", so rt_status_message is a plain
 * accessor and the annotations read in the order they were added. When
 * malloc fails, rt_status_create hands out a static "out of memory" status
 * that rt_status_free and rt_status_annotate recognise and leave alone; an
 * annotation that cannot be allocated is dropped, the status stays valid. */
#include "rt/status.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/assert.h"

struct rt_status_s {
  rt_status_code_t code;
  int line;
  const char *file; /* a string literal (__FILE__); never freed */
  size_t len;       /* strlen(message) */
  char *message;    /* malloc'd */
};

static struct rt_status_s oom_status = {
    RT_STATUS_RESOURCE_EXHAUSTED, __LINE__, __FILE__,
    sizeof("out of memory") - 1, (char *)"out of memory"};

/* Formats into a fresh malloc'd string; NULL when memory runs out or the
 * format is unusable. */
static char *vformat(const char *format, va_list args, size_t *out_len)
    RT_PRINTF_FORMAT(1, 0);

static char *vformat(const char *format, va_list args, size_t *out_len) {
  va_list copy;
  va_copy(copy, args);
  int n = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (n < 0) return NULL;
  char *text = malloc((size_t)n + 1);
  if (!text) return NULL;
  vsnprintf(text, (size_t)n + 1, format, args);
  *out_len = (size_t)n;
  return text;
}

rt_status_t rt_status_create(rt_status_code_t code, const char *file, int line,
                             const char *format, ...) {
  if (code == RT_STATUS_OK) return RT_OK;
  rt_status_t status = malloc(sizeof(*status));
  if (!status) return &oom_status;
  va_list args;
  va_start(args, format);
  status->message = vformat(format, args, &status->len);
  va_end(args);
  if (!status->message) {
    free(status);
    return &oom_status;
  }
  status->code = code;
  status->file = file ? file : "";
  status->line = line;
  return status;
}

/* When the message already ends with "; TEXT" or "; TEXT (repeated N
 * times)", rewrites that tail to count one more and returns true: an
 * unbounded recursion then reports its frame once, not a thousand times. */
static bool collapse_repeat(rt_status_t status, const char *text, size_t extra) {
  char *m = status->message;
  size_t len = status->len;
  long times = 1;
  /* Strip a " (repeated N times)" tail first. */
  static const char kTail[] = " times)";
  const size_t tail = sizeof kTail - 1;
  size_t body = len;
  if (len > tail && memcmp(m + len - tail, kTail, tail) == 0) {
    size_t i = len - tail;
    while (i > 0 && m[i - 1] >= '0' && m[i - 1] <= '9') --i;
    static const char kHead[] = " (repeated ";
    const size_t head = sizeof kHead - 1;
    if (i < len - tail && i >= head && memcmp(m + i - head, kHead, head) == 0) {
      times = strtol(m + i, NULL, 10);
      body = i - head;
    }
  }
  if (body < extra + 2 || memcmp(m + body - extra - 2, "; ", 2) != 0 ||
      memcmp(m + body - extra, text, extra) != 0) {
    return false;
  }
  char count[64];
  int n = snprintf(count, sizeof count, " (repeated %ld times)", times + 1);
  char *grown = realloc(m, body + (size_t)n + 1);
  if (!grown) return true; /* keep the message as it is: still valid */
  memcpy(grown + body, count, (size_t)n + 1);
  status->message = grown;
  status->len = body + (size_t)n;
  return true;
}

rt_status_t rt_status_annotate(rt_status_t status, const char *format, ...) {
  if (status == NULL || status == &oom_status) return status;
  va_list args;
  va_start(args, format);
  size_t extra = 0;
  char *text = vformat(format, args, &extra);
  va_end(args);
  if (!text) return status;
  if (collapse_repeat(status, text, extra)) {
    free(text);
    return status;
  }
  char *grown = realloc(status->message, status->len + 2 + extra + 1);
  if (grown) {
    memcpy(grown + status->len, "; ", 2);
    memcpy(grown + status->len + 2, text, extra + 1);
    status->message = grown;
    status->len += 2 + extra;
  }
  free(text);
  return status;
}

rt_status_code_t rt_status_code(rt_status_t status) {
  return status ? status->code : RT_STATUS_OK;
}

const char *rt_status_message(rt_status_t status) {
  return status ? status->message : "";
}

const char *rt_status_file(rt_status_t status) {
  return status ? status->file : "";
}

int rt_status_line(rt_status_t status) { return status ? status->line : 0; }

const char *rt_status_code_name(rt_status_code_t code) {
  switch (code) {
    case RT_STATUS_OK: return "OK";
    case RT_STATUS_CANCELLED: return "CANCELLED";
    case RT_STATUS_UNKNOWN: return "UNKNOWN";
    case RT_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case RT_STATUS_NOT_FOUND: return "NOT_FOUND";
    case RT_STATUS_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case RT_STATUS_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case RT_STATUS_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case RT_STATUS_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case RT_STATUS_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case RT_STATUS_INTERNAL: return "INTERNAL";
    case RT_STATUS_DATA_LOSS: return "DATA_LOSS";
    case RT_STATUS_IO_ERROR: return "IO_ERROR";
  }
  return "UNKNOWN_CODE";
}

void rt_status_free(rt_status_t status) {
  if (status == NULL || status == &oom_status) return;
  free(status->message);
  free(status);
}

rt_status_code_t rt_status_consume_code(rt_status_t status) {
  rt_status_code_t code = rt_status_code(status);
  rt_status_free(status);
  return code;
}

/* The one place library code prints: a broken invariant of our own, in a
 * debug build, where carrying on would corrupt memory. */
__attribute__((noreturn)) void rt_assert_fail(const char *expr, const char *file,
                                             int line) {
  fprintf(stderr, "relayrt: assertion failed: %s (%s:%d)\n", expr, file, line);
  abort();
}
