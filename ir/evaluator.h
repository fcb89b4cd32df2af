/* A constant evaluator: how a layer that may not include the interpreter
 * (frontend/, see docs/architecture.md's layer table) has an op call on
 * constants computed by the reference kernels instead of a copy of them.
 *
 * ir/ only declares it. interp/evaluator.h implements it with the
 * reference interpreter, and whoever may see both (backend/load.c, a test,
 * a fuzz target) hands it down as a value: the ONNX importer folds its
 * shape subgraphs with it (frontend/onnx/fold.c). Which calls are worth
 * computing (the folding policy) stays with the caller. */
#ifndef RT_IR_EVALUATOR_H_
#define RT_IR_EVALUATOR_H_

#include "ir/ir.h"

typedef struct rt_ir_evaluator_t {
  /* Computes op call `call`: typed, its callee an op, every argument a
   * Constant or a Tuple of Constants. *out = a new reference to the result
   * when it is one tensor; NULL when the call cannot be computed (no
   * reference kernel, an error of the kernel such as an integer division
   * by zero, a result that is not one tensor): the caller then leaves the
   * call in place. The only errors are running out of memory. */
  rt_status_t (*eval)(void *self, const rt_ir_expr_t *call, rt_tensor_t **out);
  void *self;
} rt_ir_evaluator_t;

#endif /* RT_IR_EVALUATOR_H_ */
