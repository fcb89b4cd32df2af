/* Plans of the algorithm family, cumsum and topk (see ir/op/plan.h);
 * computed in ir/op/algorithm.c. */
#ifndef RT_IR_OP_PLAN_MISC_H_
#define RT_IR_OP_PLAN_MISC_H_

#include "ir/op/plan.h"

/* ---- algorithm (ir/op/algorithm.c) ------------------------------------- */

/* A tensor seen as lines along one axis: outer x extent x inner (each `?`
 * when a dim it multiplies is). */
typedef struct rt_plan_lines_t {
  int64_t outer, extent, inner;
} rt_plan_lines_t;

/* cumsum (schema scan). */
typedef struct rt_plan_scan_t {
  bool flat;            /* axis None: the flattened input, a 1-d result */
  int32_t axis;         /* non-negative; -1 when flat */
  bool exclusive;       /* None counts as false */
  rt_dtype_t dtype;     /* result and accumulation dtype (`dtype`, else the
                           input's) */
  rt_plan_lines_t lines; /* of the input along axis (flat: one line) */
  int32_t rank;         /* the result's shape */
  int64_t shape[RT_TENSOR_MAX_RANK];
} rt_plan_scan_t;

/* cumsum on in[0]: "axis 2 is out of range for rank 2", "cumsum: a running
 * sum of bool needs an integer dtype (dtype=\"int32\")", or a bad dtype
 * name. */
RT_MUST_USE_RESULT rt_status_t rt_ir_plan_scan(const rt_ir_attrs_t *attrs,
                                               int32_t n,
                                               const rt_plan_input_t *in,
                                               rt_plan_scan_t *out_plan);

/* What topk returns. */
typedef enum rt_topk_ret_e {
  RT_TOPK_RET_BOTH,    /* (values, indices) */
  RT_TOPK_RET_VALUES,  /* values alone */
  RT_TOPK_RET_INDICES, /* indices alone */
} rt_topk_ret_t;

/* topk (schema topk). */
typedef struct rt_plan_topk_t {
  int32_t axis;          /* non-negative */
  int64_t k;             /* resolved: the axis extent when the attribute is
                            < 1 (then `?` with a `?` extent) */
  rt_topk_ret_t ret;
  bool ascend;
  rt_dtype_t index_dtype; /* of the indices (an integer type) */
  rt_plan_lines_t lines; /* of the input along axis */
  int32_t rank;          /* the shape of values and indices: the input's
                            with the axis extent k */
  int64_t shape[RT_TENSOR_MAX_RANK];
} rt_plan_topk_t;

/* topk on in[0]: "topk: the input must have rank >= 1, got a 0-d tensor",
 * "axis 2 is out of range for rank 2", "topk: unknown ret_type ...", a bad
 * dtype name, "topk: dtype of the indices must be an integer type, got
 * float32", "topk: k = 6 is larger than axis 1's extent 5". */
RT_MUST_USE_RESULT rt_status_t rt_ir_plan_topk(const rt_ir_attrs_t *attrs,
                                               int32_t n,
                                               const rt_plan_input_t *in,
                                               rt_plan_topk_t *out_plan);

#endif /* RT_IR_OP_PLAN_MISC_H_ */
