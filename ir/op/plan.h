/* Typed op plans: what an op computes, normalised once, for everyone.
 *
 * A plan is a C struct per op family holding the call's attributes made
 * canonical (axes non-negative and sorted, slice bounds clamped, padding
 * expanded to before/after per dimension, layouts and modes as enums) and
 * the sizes derived from the input shapes (the output shape among them).
 * One function per family computes it:
 *
 *   rt_status_t rt_ir_plan_<family>(const rt_ir_attrs_t *attrs, int32_t n,
 *                                   const rt_plan_input_t *in,
 *                                   rt_plan_<family>_t *out_plan);
 *
 * from the inputs' dtypes and shapes, and for value-dependent ops their
 * values when known. It runs
 *   - in the type relation (ir/op/<family>.c) on the argument types, where a
 *     dim may be `?` (RT_DIM_ANY): every size derived from it is `?` too,
 *     and the relation builds the result type from the plan;
 *   - in the reference kernel (interp/kernels/<family>.c) on the concrete
 *     tensors;
 *   - in the lowering and the templates (jit/) on the primitive's types;
 *   - at run time on concrete shapes (the vm's shape functions).
 * Errors are INVALID_ARGUMENT with the relation's plain messages ("axis 3
 * is out of range for rank 2"); callers add where.
 *
 * Families without normalisation need no plan: their typed attributes
 * (ir/op/op_attrs.h) are the plan. Each family's plans are declared in
 * ir/op/plan_<family>.h, all included here. */
#ifndef RT_IR_OP_PLAN_H_
#define RT_IR_OP_PLAN_H_

#include "ir/ir.h"
#include "ir/op/op_attrs.h"

/* One input of an op as a plan sees it. */
typedef struct rt_plan_input_t {
  rt_dtype_t dtype;
  int32_t rank;
  const int64_t *shape;     /* rank dims; RT_DIM_ANY for `?` */
  const rt_tensor_t *value; /* its value when known (a constant, or at run
                               time); NULL otherwise */
} rt_plan_input_t;

/* Normalizes axis (negative counts from the end) for an axis of `rank`
 * dims: "axis 3 is out of range for rank 2". The one axis normaliser of
 * the relations, the plans and the passes. */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_axis(int64_t axis, int32_t rank,
                                             int32_t *out_axis);

/* Floating-point operations of one evaluation of `fn` (or any expression):
 * its dense/matmul/batch_matmul and convolutions, from their plans, a
 * multiply-add counting 2; 0 for other ops and for `?` dims (flops.c). */
double rt_ir_flops(const rt_ir_expr_t *fn);

/* The input view of a tensor type (shape borrowed from the type). */
void rt_ir_plan_input_of_type(const rt_ir_type_t *type, rt_plan_input_t *out);
/* The input view of a concrete tensor (shape and value borrowed). */
void rt_ir_plan_input_of_tensor(const rt_tensor_t *tensor, rt_plan_input_t *out);

#include "ir/op/plan_nn.h"
#include "ir/op/plan_reduce.h"
#include "ir/op/plan_transform.h"
#include "ir/op/plan_misc.h"
#include "ir/op/plan_winograd.h"
#include "ir/op/plan_scatter.h"
#include "ir/op/plan_grid_sample.h"

#endif /* RT_IR_OP_PLAN_H_ */
