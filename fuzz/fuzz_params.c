/* libFuzzer target for the param blob reader. Whatever parses must also
 * survive a round trip: each tensor written back as an NDArray record and
 * read again gives the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"
#include "runtime/ndarray_blob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rt_params_t *params = NULL;
  rt_status_t status =
      rt_params_read_memory(rt_allocator_system(), data, size, "fuzz", &params);
  if (status) {
    rt_status_free(status);
    return 0;
  }
  for (int32_t i = 0; i < rt_params_count(params); ++i) {
    rt_tensor_t *t = rt_params_tensor(params, i);
    rt_strbuf_t out;
    rt_strbuf_initialize(&out);
    rt_ndarray_blob_write(t, &out);
    if (out.failed) abort();
    size_t offset = 0;
    rt_tensor_t *back = NULL;
    status = rt_ndarray_blob_read(rt_allocator_system(), (const uint8_t *)out.data,
                                  out.len, &offset, "round trip", &back);
    if (status || offset != out.len || rt_tensor_nbytes(back) != rt_tensor_nbytes(t) ||
        memcmp(rt_tensor_data(back), rt_tensor_data(t), rt_tensor_nbytes(t)) != 0) {
      abort();
    }
    rt_tensor_release(back);
    rt_strbuf_deinitialize(&out);
  }
  rt_params_release(params);
  return 0;
}
