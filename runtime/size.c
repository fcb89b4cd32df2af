/* rt_size_of_shape: the byte size of a compact tensor, overflow-checked.
 * A zero dim anywhere makes the size 0 whatever the other dims are (so
 * (2^62, 2^62, 0) is a valid empty shape); otherwise the product is built
 * with checked multiplies and must stay within PTRDIFF_MAX, the largest
 * object C can index. */
#include "runtime/size.h"

#include <stdint.h>

rt_status_t rt_size_of_shape(int32_t rank, const int64_t *shape,
                             size_t elem_size, size_t *out_bytes) {
  if (rank < 0) return RT_STATUS(INVALID_ARGUMENT, "negative rank %d", rank);
  bool empty = false;
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] < 0) {
      return RT_STATUS(INVALID_ARGUMENT, "negative dimension %lld at axis %d",
                       (long long)shape[i], i);
    }
    if (shape[i] == 0) empty = true;
  }
  if (empty) {
    *out_bytes = 0;
    return RT_OK;
  }
  size_t bytes = elem_size;
  for (int32_t i = 0; i < rank; ++i) {
    if ((uint64_t)shape[i] > SIZE_MAX ||
        __builtin_mul_overflow(bytes, (size_t)shape[i], &bytes) ||
        bytes > (size_t)PTRDIFF_MAX) {
      return RT_STATUS(RESOURCE_EXHAUSTED,
                       "tensor byte size overflows (dimension %lld at axis %d)",
                       (long long)shape[i], i);
    }
  }
  *out_bytes = bytes;
  return RT_OK;
}
