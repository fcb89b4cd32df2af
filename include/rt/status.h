/* relayrt status objects: how every fallible function reports failure.
 *
 * A status is a pointer: NULL means success; anything else is an owned error
 * object holding a code, a message, the file:line where it was made, and the
 * annotations added on the way up. The receiver of a non-NULL status owns it
 * and must either return it further or free it with rt_status_free().
 *
 * Thread-safety: statuses are plain owned values; distinct statuses may be
 * used from distinct threads freely. */
#ifndef RT_STATUS_H_
#define RT_STATUS_H_

#include "rt/base.h"

RT_EXTERN_C_BEGIN

typedef enum rt_status_code_e {
  RT_STATUS_OK = 0,
  RT_STATUS_CANCELLED = 1,          /* stopped on request (e.g. a hook) */
  RT_STATUS_UNKNOWN = 2,
  RT_STATUS_INVALID_ARGUMENT = 3,   /* bad input: text, shapes, attributes */
  RT_STATUS_NOT_FOUND = 4,          /* a named thing does not exist */
  RT_STATUS_ALREADY_EXISTS = 5,
  RT_STATUS_OUT_OF_RANGE = 6,
  RT_STATUS_RESOURCE_EXHAUSTED = 7, /* out of memory or past a limit */
  RT_STATUS_FAILED_PRECONDITION = 8,
  RT_STATUS_UNIMPLEMENTED = 9,
  RT_STATUS_INTERNAL = 10,          /* a bug in relayrt */
  RT_STATUS_DATA_LOSS = 11,         /* a corrupt or truncated file */
  RT_STATUS_IO_ERROR = 12,          /* the operating system refused */
} rt_status_code_t;

typedef struct rt_status_s *rt_status_t;

#define RT_OK ((rt_status_t)NULL)

/* Makes an error status with a printf-formatted message. Never returns NULL
 * for a code other than RT_STATUS_OK: if memory runs out, a static
 * "out of memory" status is returned (rt_status_free ignores it). */
RT_API rt_status_t rt_status_create(rt_status_code_t code, const char *file,
                                    int line, const char *format, ...)
    RT_PRINTF_FORMAT(4, 5);

/* Convenience: RT_STATUS(INVALID_ARGUMENT, "bad %s", name). */
#define RT_STATUS(code, ...) \
  rt_status_create(RT_STATUS_##code, __FILE__, __LINE__, __VA_ARGS__)

/* Appends "; <formatted text>" context to an error status and returns it.
 * The same text as the last annotation is counted instead of repeated
 * ("; <text> (repeated 3 times)"), so a deep recursion names its frame
 * once. A NULL status passes through unchanged (nothing is formatted). */
RT_API rt_status_t rt_status_annotate(rt_status_t status, const char *format,
                                      ...) RT_PRINTF_FORMAT(2, 3);

/* Accessors; all borrow. For NULL they return RT_STATUS_OK / "" / "" / 0. */
RT_API rt_status_code_t rt_status_code(rt_status_t status);
RT_API const char *rt_status_message(rt_status_t status);
RT_API const char *rt_status_file(rt_status_t status);
RT_API int rt_status_line(rt_status_t status);

/* The code's upper-case name, e.g. "INVALID_ARGUMENT". */
RT_API const char *rt_status_code_name(rt_status_code_t code);

/* Frees a status. NULL is fine. */
RT_API void rt_status_free(rt_status_t status);

/* Frees the status and returns its code (to deliberately drop an error). */
RT_API rt_status_code_t rt_status_consume_code(rt_status_t status);

/* Returns from the enclosing function if expr yields an error. */
#define RT_RETURN_IF_ERROR(expr)    \
  do {                              \
    rt_status_t rt_s__ = (expr);    \
    if (rt_s__ != NULL) return rt_s__; \
  } while (0)

/* As RT_RETURN_IF_ERROR, annotating the error with formatted context. */
#define RT_RETURN_IF_ERROR_ANNOTATE(expr, ...)             \
  do {                                                     \
    rt_status_t rt_s__ = (expr);                           \
    if (rt_s__ != NULL) return rt_status_annotate(rt_s__, __VA_ARGS__); \
  } while (0)

RT_EXTERN_C_END

#endif /* RT_STATUS_H_ */
