/* libFuzzer target for the ONNX importer: import the bytes as a model
 * (no folder, so external data is refused rather than read), folding with
 * the reference interpreter's evaluator as rt_module_load does; when that
 * succeeds, print the module and re-parse the print. Any crash, leak,
 * sanitizer report or printed text that does not parse is a finding.
 * Seeds: fuzz/corpus/onnx (small models from ONNX's node tests, each
 * under 4 KiB). */
#include <stdint.h>
#include <stdlib.h>

#include "frontend/onnx/onnx.h"
#include "interp/evaluator.h"
#include "ir/ir.h"
#include "runtime/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rt_module_t *m = NULL;
  rt_interp_evaluator_t ev;
  rt_interp_evaluator_init(&ev, rt_allocator_system());
  rt_status_t s = rt_onnx_import_memory(data, size, "fuzz.onnx", NULL, NULL, &ev.base, &m);
  rt_interp_evaluator_fini(&ev);
  if (s) {
    rt_status_free(s);
    return 0;
  }
  char *text = NULL;
  size_t len = 0;
  s = rt_ir_print_module(m, RT_PRINT_DEFAULT, &text, &len);
  if (!s) {
    rt_module_t *m2 = NULL;
    s = rt_module_parse(text, len, "fuzz.relay", &m2);
    if (s) abort(); /* an imported module must print as valid text */
    rt_module_release(m2);
  }
  rt_status_free(s);
  rt_mem_free(text);
  rt_module_release(m);
  return 0;
}
