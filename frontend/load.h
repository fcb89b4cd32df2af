/* Model loading by extension (load.c), for backend/load.c, which
 * implements the public rt_module_load with it. */
#ifndef RT_FRONTEND_LOAD_H_
#define RT_FRONTEND_LOAD_H_

#include "ir/evaluator.h"
#include "rt/module.h"

/* rt_module_load_with_options's work, in the caller's memory scope:
 * `.relay`/`.txt` are parsed, `.onnx` imported with `eval` computing what
 * the importer folds (frontend/onnx/onnx.h). */
RT_MUST_USE_RESULT rt_status_t rt_frontend_load(const char *path,
                                                const rt_module_load_options_t *options,
                                                const rt_ir_evaluator_t *eval,
                                                rt_module_t **out_module);

#endif /* RT_FRONTEND_LOAD_H_ */
