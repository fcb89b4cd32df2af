/* Plans of the reduce family (see ir/op/plan.h); computed in ir/op/. */
#ifndef RT_IR_OP_PLAN_REDUCE_H_
#define RT_IR_OP_PLAN_REDUCE_H_

#include "ir/op/plan.h"

/* sum, max, min, mean, prod, all, any (schema reduce), argmax, argmin
 * (argreduce) and variance: the data input's axes split into reduced and
 * kept ones. TVM's ReduceRel: axis None reduces every axis (exclude is
 * then ignored); a list, possibly empty, reduces those axes (negative ones
 * count from the end, repeats allowed); exclude reduces the others
 * instead. keepdims keeps the reduced axes as size 1. */
typedef struct rt_plan_reduce_t {
  int32_t rank;                          /* the data input's */
  bool reduced[RT_TENSOR_MAX_RANK];      /* per input axis */
  int32_t naxes;                         /* the reduced axes: ascending, */
  int32_t axes[RT_TENSOR_MAX_RANK];      /* distinct, non-negative */
  bool keepdims;
  bool select_last_index;                /* argreduce; false otherwise */
  bool unbiased;                         /* variance; false otherwise */
  int32_t out_rank;                      /* the kept dims in order, and a */
  int64_t out_shape[RT_TENSOR_MAX_RANK]; /* 1 per reduced one if keepdims */
} rt_plan_reduce_t;

/* The plan of `op` (one of the ops above: it names the schema of attrs)
 * for its data input in[0] (variance's mean, in[1], is not read). */
RT_MUST_USE_RESULT rt_status_t rt_ir_plan_reduce(const rt_ir_op_t *op,
                                                 const rt_ir_attrs_t *attrs,
                                                 int32_t n,
                                                 const rt_plan_input_t *in,
                                                 rt_plan_reduce_t *out_plan);

#endif /* RT_IR_OP_PLAN_REDUCE_H_ */
