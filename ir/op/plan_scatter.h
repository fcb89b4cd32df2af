/* Plans of the scatter family (ir/op/scatter.c): scatter_elements and
 * scatter_nd, the inverses of gather and gather_nd. Included by
 * ir/op/plan.h. */
#ifndef RT_IR_OP_PLAN_SCATTER_H_
#define RT_IR_OP_PLAN_SCATTER_H_

/* How an update meets the element it lands on: TVM's reduction / mode
 * names ("update" replaces; ONNX's "none"). */
typedef enum rt_scatter_reduce_e {
  RT_SCATTER_UPDATE,
  RT_SCATTER_ADD,
  RT_SCATTER_MUL,
  RT_SCATTER_MIN,
  RT_SCATTER_MAX
} rt_scatter_reduce_t;

/* scatter_elements(data, indices, updates): indices and updates have one
 * shape and data's rank, no dim past data's but along axis; element u of
 * updates lands on data at u with u[axis] = indices[u] (negative values
 * count from the end). The output has data's type. */
typedef struct rt_plan_scatter_elements_t {
  int32_t axis;
  rt_scatter_reduce_t reduce;
} rt_plan_scatter_elements_t;

RT_MUST_USE_RESULT rt_status_t rt_ir_plan_scatter_elements(const rt_ir_attrs_t *attrs,
                                                           int32_t n,
                                                           const rt_plan_input_t *in,
                                                           rt_plan_scatter_elements_t *out_plan);

/* scatter_nd(data, indices, updates), TVM's layout: indices (M, Y...)
 * hold index tuples along their first axis, each naming data's first M
 * axes (negative values count from the end); updates are (Y...,
 * data[M:]). The output has data's type. */
typedef struct rt_plan_scatter_nd_t {
  int32_t m;      /* index tuple length */
  int32_t yrank;  /* rank of Y */
  rt_scatter_reduce_t reduce;
} rt_plan_scatter_nd_t;

RT_MUST_USE_RESULT rt_status_t rt_ir_plan_scatter_nd(const rt_ir_attrs_t *attrs,
                                                     int32_t n,
                                                     const rt_plan_input_t *in,
                                                     rt_plan_scatter_nd_t *out_plan);

#endif /* RT_IR_OP_PLAN_SCATTER_H_ */
