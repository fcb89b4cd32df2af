/* relayrt parameter sets: a named, ordered list of tensors, and TVM's param
 * blob file format (relay.save_param_dict: magic 0xF7E58D4F05049CB7, names,
 * then one NDArray record per tensor), read and written bit-exactly.
 *
 * Ownership: rt_params_create/read return a reference the caller owns
 * (rt_params_release). rt_params_set retains the tensor; accessors borrow.
 * Thread-safety: retain/release are atomic; mutation is not synchronized. */
#ifndef RT_PARAMS_H_
#define RT_PARAMS_H_

#include "rt/allocator.h"
#include "rt/base.h"
#include "rt/status.h"
#include "rt/tensor.h"

RT_EXTERN_C_BEGIN

typedef struct rt_params_t rt_params_t;

RT_API RT_MUST_USE_RESULT rt_status_t rt_params_create(rt_allocator_t allocator,
                                                       rt_params_t **out_params);
RT_API void rt_params_retain(rt_params_t *params);
RT_API void rt_params_release(rt_params_t *params); /* NULL is fine */

/* Adds or replaces `name` (copied) with `tensor` (retained). */
RT_API RT_MUST_USE_RESULT rt_status_t rt_params_set(rt_params_t *params,
                                                    const char *name,
                                                    rt_tensor_t *tensor);
RT_API int32_t rt_params_count(const rt_params_t *params);
RT_API const char *rt_params_name(const rt_params_t *params, int32_t index);
RT_API rt_tensor_t *rt_params_tensor(const rt_params_t *params, int32_t index);
/* The tensor named `name`, or NULL when absent (a lookup, not an error). */
RT_API rt_tensor_t *rt_params_find(const rt_params_t *params, const char *name);

/* Reads a param blob. Bad magic, counts that disagree, truncation or
 * sizes past the end are DATA_LOSS errors naming the source and offset. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_params_read_memory(
    rt_allocator_t allocator, const void *bytes, size_t size,
    const char *source_name, rt_params_t **out_params);
RT_API RT_MUST_USE_RESULT rt_status_t rt_params_read_file(
    rt_allocator_t allocator, const char *path, rt_params_t **out_params);
RT_API RT_MUST_USE_RESULT rt_status_t rt_params_write_file(
    const rt_params_t *params, const char *path);

RT_EXTERN_C_END

#endif /* RT_PARAMS_H_ */
