/* relayrt: macros shared by every public header (visibility, result checks,
 * C++ linkage). Includes only the C standard headers every header needs. */
#ifndef RT_BASE_H_
#define RT_BASE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define RT_EXTERN_C_BEGIN extern "C" {
#define RT_EXTERN_C_END }
#else
#define RT_EXTERN_C_BEGIN
#define RT_EXTERN_C_END
#endif

/* Public symbols are exported; everything else is hidden by the build. */
#if defined(RT_BUILDING_LIBRARY)
#define RT_API __attribute__((visibility("default")))
#else
#define RT_API
#endif

#define RT_MUST_USE_RESULT __attribute__((warn_unused_result))
#define RT_PRINTF_FORMAT(fmt, args) __attribute__((format(printf, fmt, args)))

/* Number of elements of a true array. */
#define RT_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

#endif /* RT_BASE_H_ */
