/* Internal to interp/: custom ops' reference kernels (interp/custom.c). */
#ifndef RT_INTERP_CUSTOM_H_
#define RT_INTERP_CUSTOM_H_

#include "ir/op/custom.h"

/* Runs op's reference kernel on compact inputs into `output` (allocated
 * with the call's type). Errors name the op. In debug builds the output is
 * guarded: writing past it is INTERNAL. */
RT_MUST_USE_RESULT rt_status_t rt_interp_custom_reference(const rt_ir_op_t *op,
                                                          const rt_ir_attrs_t *attrs,
                                                          int32_t num_inputs,
                                                          rt_tensor_t *const *inputs,
                                                          int32_t num_outputs,
                                                          rt_tensor_t *const *outputs);

#endif /* RT_INTERP_CUSTOM_H_ */
