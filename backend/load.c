/* The public rt_module_load and rt_module_load_with_options (rt/module.h).
 * The reading is frontend/load.c's; this only wires it: it opens the
 * memory scope of options->allocator and hands the frontend the reference
 * interpreter as its constant evaluator (interp/evaluator.h), so the ONNX
 * importer folds its shape subgraphs with the reference kernels. It lives
 * in backend/ because that is the layer that may see both the frontend and
 * the interpreter (docs/architecture.md). */
#include "frontend/load.h"
#include "interp/evaluator.h"
#include "runtime/mem.h"

rt_status_t rt_module_load(const char *path, rt_module_t **out_module) {
  return rt_module_load_with_options(path, NULL, out_module);
}

rt_status_t rt_module_load_with_options(const char *path, const rt_module_load_options_t *options,
                                        rt_module_t **out_module) {
  rt_mem_scope_t scope;
  rt_mem_scope_enter(&scope, options ? options->allocator : NULL);
  rt_interp_evaluator_t ev;
  rt_interp_evaluator_init(&ev, rt_mem_current());
  rt_status_t st = rt_frontend_load(path, options, &ev.base, out_module);
  rt_interp_evaluator_fini(&ev);
  rt_mem_scope_leave(&scope);
  return st;
}
