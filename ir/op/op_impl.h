/* Internal to ir/op/: the type relations of the built-in ops (one per `rel`
 * column of ir/ops.def) and the helpers they share (argument checks, axis
 * normalization, broadcasting, dimension arithmetic with `?`).
 *
 * Conventions: relations read their attributes as typed structs
 * (rt_ir_attrs_<schema>, ir/op/op_attrs.h); a family that normalises them
 * computes its plan (ir/op/plan.h) and builds the result type from it.
 * Results are built with rt_ir_tensor_type /
 * rt_ir_tuple_type in ctx->module, and fail with INVALID_ARGUMENT plain
 * messages; type inference prefixes the position and the call. A `?`
 * (RT_DIM_ANY) input dimension makes every output dimension computed from
 * it `?`. */
#ifndef RT_IR_OP_OP_IMPL_H_
#define RT_IR_OP_OP_IMPL_H_

#include "ir/ir.h"
#include "ir/op/op_attrs.h"
#include "ir/op/plan.h"

/* ---- relations, declared from ops.def (shared ones repeat harmlessly) -- */
#define RT_OP(ID, name, ninputs, pattern, fields, rel, family, doc)            \
  RT_MUST_USE_RESULT rt_status_t rt_ir_##rel(const rt_ir_rel_ctx_t *ctx, \
                                             rt_ir_type_t **out_type);
#include "ir/ops.def"
#undef RT_OP

/* ---- helpers (ir/op/common.c) ------------------------------------------ */

#define RT_IR_OP_MSG_MAX 160 /* shape and layout texts in messages */

/* The i-th argument as a tensor type (rank <= RT_TENSOR_MAX_RANK), or
 * INVALID_ARGUMENT "argument 1 of nn.dense must be a tensor, got (...)". */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_tensor_arg(const rt_ir_rel_ctx_t *ctx,
                                                   int32_t i,
                                                   const rt_ir_type_t **out);
/* A tensor type in ctx->module (shape copied). */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_make_tensor(const rt_ir_rel_ctx_t *ctx,
                                                    rt_dtype_t dtype,
                                                    int32_t rank,
                                                    const int64_t *shape,
                                                    rt_ir_type_t **out);
/* Same shape as `t`, another dtype. */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_retype(const rt_ir_rel_ctx_t *ctx,
                                               const rt_ir_type_t *t,
                                               rt_dtype_t dtype,
                                               rt_ir_type_t **out);
/* "(1, 3, ?)" into buf (truncated to cap). Returns buf. */
const char *rt_ir_op_shape_text(int32_t rank, const int64_t *shape, char *buf,
                                size_t cap);
/* rt_ir_op_axis (axis normalisation) is in ir/op/plan.h, for every layer. */
/* Numpy broadcasting of two shapes into out (rank = max): "shapes (1, 3)
 * and (1, 4) do not broadcast". */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_broadcast(int32_t ra, const int64_t *a,
                                                  int32_t rb, const int64_t *b,
                                                  int32_t *out_rank,
                                                  int64_t *out_shape);
/* Checks that two dtypes are equal: "dtypes float32 and int32 differ". */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_same_dtype(rt_dtype_t a, rt_dtype_t b);
/* Dtype attribute `name`: "" -> `fallback`; a bad name is an error. */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_dtype_attr(const rt_ir_rel_ctx_t *ctx,
                                                   const char *name,
                                                   rt_dtype_t fallback,
                                                   rt_dtype_t *out);
/* Checks the rank of an output (or a computed shape) fits. */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_check_rank(int64_t rank);

/* Dimension arithmetic: `?` in -> `?` out; overflow is an error. */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_dim_mul(int64_t a, int64_t b,
                                                int64_t *out);
/* Attribute `name` (an INTS list of op `op`) expanding 1 value to n;
 * error unless 1 or n values. */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_ints_n(const char *op, const char *name,
                                               rt_attr_list_t list, int32_t n,
                                               int64_t *out);
/* Spatial padding: 1 value (all sides), n values (before = after) or 2n
 * values (all befores, then all afters), as TVM's get_pad_tuple. */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_padding(const char *op, const char *name,
                                                rt_attr_list_t list, int32_t n,
                                                int64_t *before,
                                                int64_t *after);

/* A layout of single-letter primal axes ("NCHW") that is a permutation of
 * `letters`: the position of each letter of `letters` in `layout`, or an
 * error naming the attribute. */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_layout_perm(const char *op_name,
                                                    const char *attr,
                                                    const char *layout,
                                                    const char *letters,
                                                    int32_t *out_pos);

#endif /* RT_IR_OP_OP_IMPL_H_ */
