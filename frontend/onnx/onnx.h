/* The ONNX importer: an ONNX ModelProto (protobuf, parsed with the
 * protobuf-c code generated from Debian's onnx.proto) becomes a typed
 * module whose @main takes the graph's non-initializer inputs and returns
 * its outputs (a tuple when there are several).
 *
 * Opsets 7 to 18 of the default domain are accepted; each op is converted
 * with its semantics at the model's opset. Older opsets (1-6) are read with
 * opset-7 semantics and refused where a node uses an attribute opset 7
 * removed (broadcast, consumed_inputs, is_test, spatial). Errors (all statuses, never a
 * crash): DATA_LOSS for malformed or truncated protobuf, UNIMPLEMENTED for
 * an op or feature not supported (naming the op type, the node, the opset
 * and the file), INVALID_ARGUMENT for an inconsistent model (a missing
 * input or initializer, types that do not fit), NOT_FOUND/IO_ERROR for
 * external data that cannot be read. Thread-safe: no shared state. */
#ifndef RT_FRONTEND_ONNX_ONNX_H_
#define RT_FRONTEND_ONNX_ONNX_H_

#include <stddef.h>

#include "ir/evaluator.h"
#include "rt/module.h"

/* Largest .onnx file read (protobuf messages are limited to 2 GiB). */
#define RT_ONNX_MAX_MODEL_BYTES ((size_t)1 << 31)

/* Imports `size` bytes of a serialized ModelProto. `source_name` names it
 * in messages; external data is read relative to `model_dir` (NULL: a
 * model with external data is refused). `options` (NULL: none) are the
 * load options: the graph inputs named in options->constant_input_names
 * become constants, and so on (see rt_module_load_options_t in
 * rt/module.h). `eval` computes the small constant calls the importer
 * folds (shape subgraphs, frontend/onnx/fold.c): backend/load.c passes the
 * reference interpreter's (interp/evaluator.h); NULL folds nothing (then a
 * Reshape whose shape is computed, even from static shapes, is refused).
 * The caller owns *out_module. */
RT_MUST_USE_RESULT rt_status_t rt_onnx_import_memory(const void *bytes, size_t size,
                                                     const char *source_name,
                                                     const char *model_dir,
                                                     const rt_module_load_options_t *options,
                                                     const rt_ir_evaluator_t *eval,
                                                     rt_module_t **out_module);

/* Reads and imports the file at `path` as rt_onnx_import_memory; external
 * data is found relative to its folder. */
RT_MUST_USE_RESULT rt_status_t rt_onnx_import_file(const char *path,
                                                   const rt_module_load_options_t *options,
                                                   const rt_ir_evaluator_t *eval,
                                                   rt_module_t **out_module);

#endif /* RT_FRONTEND_ONNX_ONNX_H_ */
