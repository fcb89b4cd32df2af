/* libFuzzer target for the .npy reader: any bytes must give a tensor or a
 * status, never a crash, a leak or a read past the input. A tensor that
 * comes back must be self-consistent (numel x element size = nbytes). */
#include <stdint.h>
#include <stdlib.h>

#include "rt/rt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rt_tensor_t *t = NULL;
  rt_status_t status = rt_npy_read_memory(rt_allocator_system(), data, size, "fuzz", &t);
  if (status) {
    rt_status_free(status);
    return 0;
  }
  size_t expect = (size_t)rt_tensor_numel(t) * rt_dtype_size(rt_tensor_dtype(t));
  if (expect != rt_tensor_nbytes(t)) abort();
  rt_tensor_release(t);
  return 0;
}
