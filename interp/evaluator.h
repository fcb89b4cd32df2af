/* The reference interpreter as a constant evaluator (ir/evaluator.h), for
 * layers that may not include interp/ themselves: backend/load.c hands one
 * to the ONNX importer, which folds its shape subgraphs with it.
 *
 * An op call is computed with rt_interp_apply_op, so by the same reference
 * kernels the debug executor and FoldConstant run. The interpreter (over an
 * empty scratch module) is made at the first call, so an evaluator that is
 * never used costs nothing. One thread at a time, like rt_interp_t. */
#ifndef RT_INTERP_EVALUATOR_H_
#define RT_INTERP_EVALUATOR_H_

#include "interp/interp.h"
#include "ir/evaluator.h"

typedef struct rt_interp_evaluator_t {
  rt_ir_evaluator_t base;   /* hand &base down */
  rt_allocator_t allocator;
  rt_module_t *scratch;     /* NULL until the first call */
  rt_interp_t *interp;
} rt_interp_evaluator_t;

/* Sets *ev up; nothing is allocated (tensors and the interpreter come from
 * `allocator` later). */
void rt_interp_evaluator_init(rt_interp_evaluator_t *ev, rt_allocator_t allocator);
/* Frees what the calls made; *ev may be initialized again. */
void rt_interp_evaluator_fini(rt_interp_evaluator_t *ev);

#endif /* RT_INTERP_EVALUATOR_H_ */
