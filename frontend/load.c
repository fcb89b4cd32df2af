/* Picks the reader of a model file by its extension: `.relay`/`.txt` go
 * to the text parser (ir/), `.onnx` to the ONNX importer
 * (frontend/onnx/). It lives here rather than in ir/ because the frontend
 * is the layer above ir/: ir/ never knows about ONNX. The public
 * rt_module_load is backend/load.c, which opens the memory scope and
 * hands in the reference interpreter as the importer's constant
 * evaluator (the frontend may not include interp/). */
#include <stdlib.h>
#include <string.h>

#include "frontend/load.h"
#include "frontend/onnx/onnx.h"
#include "ir/ir.h"
#include "runtime/file.h"
#include "runtime/mem.h"

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

rt_status_t rt_frontend_load(const char *path, const rt_module_load_options_t *options,
                             const rt_ir_evaluator_t *eval, rt_module_t **out_module) {
  if (!path || !out_module) return RT_STATUS(INVALID_ARGUMENT, "path is NULL");
  if (has_suffix(path, ".onnx")) return rt_onnx_import_file(path, options, eval, out_module);
  if (options && options->num_constant_inputs > 0) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: constant inputs are supported for ONNX models only (bind a Relay "
                     "model's parameters with params instead)", path);
  }
  if (!has_suffix(path, ".relay") && !has_suffix(path, ".txt")) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: unknown model format (expected .relay, .txt or .onnx)",
                     path);
  }
  char *text = NULL;
  size_t size = 0;
  RT_RETURN_IF_ERROR(rt_file_read(path, RT_IR_MAX_SOURCE_BYTES, &text, &size));
  rt_module_t *m = NULL;
  rt_status_t st = rt_module_parse(text, size, path, &m);
  rt_mem_free(text);
  if (!st && options && options->num_input_shapes != 0) {
    /* Relay text: parse as written, then specialize @main. */
    st = rt_module_bind_input_shapes(m, options->num_input_shapes, options->input_shapes,
                                     out_module);
    rt_module_release(m);
    if (st) st = rt_status_annotate(st, "loading %s", path);
    return st;
  }
  *out_module = m;
  return st;
}
