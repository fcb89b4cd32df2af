/* libFuzzer target for the VM executable reader (runtime/vm_serialize.c:
 * rt_vm_executable_deserialize, which validates every operand). Whatever
 * it accepts must disassemble and survive a round trip (written, read back
 * and written again: the same bytes). Seeds: fuzz/corpus/vm_exe. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/vm.h"
#include "runtime/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rt_vm_executable_t exe;
  rt_status_t status = rt_vm_executable_deserialize(rt_allocator_system(), data, size, "fuzz", &exe);
  if (status) {
    rt_status_free(status);
    return 0;
  }
  rt_strbuf_t text;
  rt_strbuf_initialize(&text);
  rt_vm_executable_disassemble(&exe, &text);
  rt_strbuf_deinitialize(&text);
  /* Written, read and written again: the same bytes (the input itself
   * may differ in fields the reader ignores, like an NDArray's reserved
   * word). */
  char *bytes = NULL, *again = NULL;
  size_t n = 0, m = 0;
  status = rt_vm_executable_serialize(&exe, &bytes, &n);
  if (status) abort();
  rt_vm_executable_t back;
  status = rt_vm_executable_deserialize(rt_allocator_system(), (const uint8_t *)bytes, n, "again", &back);
  if (status) abort();
  status = rt_vm_executable_serialize(&back, &again, &m);
  if (status || m != n || memcmp(bytes, again, n) != 0) abort();
  rt_mem_free(bytes);
  rt_mem_free(again);
  rt_vm_executable_deinitialize(&back);
  rt_vm_executable_deinitialize(&exe);
  return 0;
}
