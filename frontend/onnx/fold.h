/* Import-time constant folding of small shape computations (fold.c). */
#ifndef RT_FRONTEND_ONNX_FOLD_H_
#define RT_FRONTEND_ONNX_FOLD_H_

#include "frontend/onnx/onnx_impl.h"

/* *out = a constant equal to `call` when fold.c's policy picks it and
 * cx->eval computes it, else `call` itself. Errors: out of memory. */
RT_MUST_USE_RESULT rt_status_t rt_onnx_fold(rt_onnx_ctx_t *cx, rt_ir_expr_t *call,
                                            rt_ir_expr_t **out);

#endif /* RT_FRONTEND_ONNX_FOLD_H_ */
