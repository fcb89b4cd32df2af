/* The dyn family: ops that read some operands for their VALUES (a shape,
 * slice bounds, axes, a count) where the static op holds them as
 * attributes. Each dyn op is its static op (or a short chain of them) once
 * those values are known, and this header is where that correspondence is
 * written, once, for everyone:
 *
 *   - rt_ir_op_reads_value: which operands are read for their values (the
 *     vm specializes a dyn call on them at run time);
 *   - rt_ir_dyn_static: the static op(s) and attributes a dyn call computes
 *     given those values (the reference kernels run it on the concrete
 *     tensors, interp/kernels/dyn.c);
 *   - rt_ir_dyn_to_static: the rewrite of dyn calls whose value operands
 *     are constants into static calls (the DynamicToStatic pass).
 *
 * The static ops' plans (ir/op/plan.h) normalise the attributes built here
 * (negative axes, clamped slice bounds ...); this file only turns values
 * into attributes and checks what only the dyn form can get wrong (the
 * value operand's dtype and length, the rank the `rank` attribute
 * promised). dyn.reshape (ir/op/transform.c) is part of the family here,
 * though it keeps its own kernel and lowering. */
#ifndef RT_IR_OP_DYN_H_
#define RT_IR_OP_DYN_H_

#include "ir/ir.h"
#include "ir/op/plan.h"

/* True when operand `operand` of the built-in op `op_id` is read for its
 * values to determine the output's shape or the static attributes
 * (dyn.reshape operand 1; dyn.strided_slice operands 1..4; dyn.full operand
 * 1, not 0). False for every non-dyn op and every out-of-range index. */
bool rt_ir_op_reads_value(int32_t op_id, int32_t operand);

/* Marks out_mask[k] (fn has nparams entries) when some call under fn's
 * body reads the VALUES of fn's parameter k through a chain of ops: an
 * operand rt_ir_op_reads_value names, or an operand of arange (its output
 * length is its values), computed from the parameter by any ops but
 * shape_of and ndarray_size (which read only its shape); or a parameter of
 * at most one element an `if` condition is computed from (the branch
 * taken is its value). Constants and the parameters of nested functions
 * are not fn's parameters. The graph
 * executor specializes on the values of these inputs
 * (backend/graph_specialize.h). */
RT_MUST_USE_RESULT rt_status_t rt_ir_value_params(rt_allocator_t allocator, rt_ir_expr_t *fn,
                                                  bool *out_mask);

/* Rewrites every call of a dyn op under `root` whose value operands are
 * all RT_IR_CONSTANT (or shape_of of a tensor whose type has a static
 * shape) into the equivalent static op call (or chain),
 * attributes from the values, and leaves the others alone (also those the
 * values alone cannot make static, e.g. a dyn.broadcast_to of a `?` dim
 * against 1). Rebuilt nodes have no checked type: run type inference
 * after. Bad values (a float shape, an axis out of range, a negative size)
 * are INVALID_ARGUMENT naming the op; *out_root is `root` itself when
 * nothing changed. New nodes go into m's arena. */
RT_MUST_USE_RESULT rt_status_t rt_ir_dyn_to_static(rt_module_t *m, rt_ir_expr_t *root,
                                                   rt_ir_expr_t **out_root);

/* ---- the correspondence ------------------------------------------------- */

#define RT_IR_DYN_MAX_STEPS RT_TENSOR_MAX_RANK

/* A dyn call as static calls: step 0 is op[0](operands args[0..nargs-1] of
 * the dyn call; attrs[0]), step j > 0 is op[j](result of step j-1;
 * attrs[j]). nsteps 0: the values do not make it static without more of
 * the data's shape (only where `in` has `?` dims). out_rank: the rank the
 * result must have (the `rank` attribute's promise), -1 when any. */
typedef struct rt_ir_dyn_static_t {
  int32_t nsteps;
  const rt_ir_op_t *op[RT_IR_DYN_MAX_STEPS];
  rt_ir_attrs_t *attrs[RT_IR_DYN_MAX_STEPS];
  int32_t nargs;
  int32_t args[4];
  int32_t out_rank;
} rt_ir_dyn_static_t;

/* The static form of a call of dyn op `op` (attrs schema-ordered) on
 * operands in[0 .. n-1]: every operand rt_ir_op_reads_value names must have
 * its value; the others need their dtype and shape (`?` allowed). Attrs go
 * into m's arena. INVALID_ARGUMENT "<op>: ..." for bad values;
 * INVALID_ARGUMENT for an op that is not a dyn op other than dyn.reshape. */
RT_MUST_USE_RESULT rt_status_t rt_ir_dyn_static(rt_module_t *m, const rt_ir_op_t *op,
                                                const rt_ir_attrs_t *attrs, int32_t n,
                                                const rt_plan_input_t *in,
                                                rt_ir_dyn_static_t *out);

#endif /* RT_IR_OP_DYN_H_ */
