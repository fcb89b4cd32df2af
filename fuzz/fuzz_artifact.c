/* libFuzzer target for the exported model's plan and metadata reader
 * (runtime/artifact.c through rt_artifact_load_descriptor: everything
 * rt_artifact_load checks once the library is open: descriptor, graph
 * plan and constants, or a vm model's signature, executable and kernel
 * names). No dlopen: the descriptor is made here from the input, with a
 * correct checksum (a wrong one is refused before any parsing) and a
 * placeholder for every kernel (never called: no runtime is made).
 *
 * Input layout (what a library's descriptor points at, in one file):
 *   u32 num_kernels (at most 4096), then as many NUL-terminated kernel
 *   names; u32 params_size, then the params blob (params_size bytes);
 *   the rest is the plan bytes ("RTPLAN02..." or "RTVMART1...").
 * A model that loads must describe itself consistently (every input and
 * output found by its name, at its index). Seeds: fuzz/corpus/artifact,
 * cut from libraries that `relayrt build --emit=so` made. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/artifact_format.h"
#include "runtime/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int32_t never_called(const rt_kernel_arg *args, int32_t nargs, const rt_kernel_ctx *ctx) {
  (void)args;
  (void)nargs;
  (void)ctx;
  abort();
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void check_io(const rt_artifact_t *a, bool input) {
  int32_t n = input ? rt_artifact_num_inputs(a) : rt_artifact_num_outputs(a);
  if (n < 0) abort();
  for (int32_t i = 0; i < n; ++i) {
    rt_tensor_info_t io;
    rt_status_t st = input ? rt_artifact_input_info(a, i, &io) : rt_artifact_output_info(a, i, &io);
    if (st || !io.name || io.rank < 0 || io.rank > RT_TENSOR_MAX_RANK ||
        (io.rank && !io.shape) || !rt_dtype_is_valid(io.dtype)) {
      abort();
    }
    int32_t index = -1;
    st = input ? rt_artifact_input_index(a, io.name, &index)
               : rt_artifact_output_index(a, io.name, &index);
    /* Names need not be unique: the first one of the name is found. */
    if (st || index < 0 || index > i) abort();
  }
  rt_tensor_info_t io;
  rt_status_t st = input ? rt_artifact_input_info(a, n, &io) : rt_artifact_output_info(a, n, &io);
  if (!st) abort();
  rt_status_free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4) return 0;
  size_t at = 0;
  uint32_t num_kernels = le32(data);
  at += 4;
  if (num_kernels > 4096) return 0;
  const char **names = rt_mem_calloc(num_kernels ? num_kernels : 1, sizeof *names);
  rt_kernel_fn *kernels = rt_mem_calloc(num_kernels ? num_kernels : 1, sizeof *kernels);
  /* The names must be NUL-terminated inside the input. */
  char *text = rt_mem_alloc(size ? size : 1);
  uint8_t *params = NULL;
  if (!names || !kernels || !text) goto done;
  memcpy(text, data, size);
  for (uint32_t k = 0; k < num_kernels; ++k) {
    const char *end = at < size ? memchr(text + at, '\0', size - at) : NULL;
    if (!end) goto done;
    names[k] = text + at;
    kernels[k] = never_called;
    at = (size_t)(end - text) + 1;
  }
  if (size - at < 4) goto done;
  uint32_t params_size = le32(data + at);
  at += 4;
  if (params_size > size - at) goto done;
  rt_artifact_descriptor_t desc;
  memset(&desc, 0, sizeof desc);
  memcpy(desc.magic, RT_ARTIFACT_MAGIC, 8);
  desc.format_version = RT_ARTIFACT_FORMAT_VERSION;
  desc.kernel_abi_version = RT_KERNEL_ABI_VERSION;
  desc.descriptor_size = sizeof desc;
  desc.num_kernels = num_kernels;
  desc.kernels = kernels;
  desc.kernel_names = names;
  desc.target = "fuzz";
  desc.isa = "";
  /* The params blob is copied to a block of its own, so that a read past
   * its end is seen (the plan, the input's tail, is already). */
  params = rt_mem_alloc(params_size ? params_size : 1);
  if (!params) goto done;
  memcpy(params, data + at, params_size);
  desc.params = params;
  desc.params_size = params_size;
  at += params_size;
  desc.plan = data + at;
  desc.plan_size = size - at;
  uint64_t sum = rt_artifact_fnv(UINT64_C(0xcbf29ce484222325), desc.plan, (size_t)desc.plan_size);
  desc.checksum = rt_artifact_fnv(sum, desc.params, (size_t)desc.params_size);

  rt_artifact_t *a = NULL;
  rt_status_t st = rt_artifact_load_descriptor(&desc, "fuzz", &a);
  if (st) {
    if (a) abort();
    rt_status_free(st);
    goto done;
  }
  check_io(a, true);
  check_io(a, false);
  rt_artifact_release(a);

  /* A wrong checksum is always refused. */
  desc.checksum ^= 1;
  st = rt_artifact_load_descriptor(&desc, "fuzz", &a);
  if (!st || a) abort();
  rt_status_free(st);
done:
  rt_mem_free(params);
  rt_mem_free(text);
  rt_mem_free(kernels);
  rt_mem_free(names);
  return 0;
}
