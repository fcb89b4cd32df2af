/* Overflow-checked size arithmetic. Every size derived from shapes or from
 * file contents goes through these; overflow is RESOURCE_EXHAUSTED. */
#ifndef RT_RUNTIME_SIZE_H_
#define RT_RUNTIME_SIZE_H_

#include "rt/status.h"

static inline RT_MUST_USE_RESULT rt_status_t rt_size_mul(size_t a, size_t b,
                                                         size_t *out) {
  if (__builtin_mul_overflow(a, b, out)) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "size overflow: %zu * %zu", a, b);
  }
  return RT_OK;
}

static inline RT_MUST_USE_RESULT rt_status_t rt_size_add(size_t a, size_t b,
                                                         size_t *out) {
  if (__builtin_add_overflow(a, b, out)) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "size overflow: %zu + %zu", a, b);
  }
  return RT_OK;
}

/* Product of dims (each must be >= 0), times elem_size: the byte size of a
 * compact tensor. Negative dims are INVALID_ARGUMENT. */
RT_MUST_USE_RESULT rt_status_t rt_size_of_shape(int32_t rank,
                                                const int64_t *shape,
                                                size_t elem_size,
                                                size_t *out_bytes);

#endif /* RT_RUNTIME_SIZE_H_ */
