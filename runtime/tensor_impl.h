/* The tensor object behind include/rt/tensor.h, for the layers that read
 * fields directly (ir/, interp/, the executors). Only tensor.c writes them.
 *
 * Invariants: `shape` (and `strides` when non-NULL) point into the same
 * allocation as the struct and hold `rank` entries; `strides` is NULL when
 * the layout is compact row-major (imports whose strides are compact are
 * normalized to NULL); `numel` and `nbytes` are the validated products of
 * the shape; `data + byte_offset` is element 0. A tensor made here owns
 * `data` (from `allocator`, RT_TENSOR_ALIGNMENT-aligned, `managed` NULL);
 * an imported one borrows `data` from `managed`, whose deleter runs when
 * the last reference goes. */
#ifndef RT_RUNTIME_TENSOR_IMPL_H_
#define RT_RUNTIME_TENSOR_IMPL_H_

#include <stdatomic.h>

#include "rt/tensor.h"

struct rt_tensor_t {
  atomic_int_least32_t refcount;
  rt_allocator_t allocator; /* owns this struct (and `data` if !managed) */
  rt_dtype_t dtype;
  int32_t rank;
  int64_t *shape;
  int64_t *strides;          /* elements; NULL = compact row-major */
  uint64_t byte_offset;
  void *data;
  int64_t numel;
  size_t nbytes;             /* numel * rt_dtype_size(dtype) */
  DLManagedTensorVersioned *managed; /* DLPack import, else NULL */
};

/* Copies the elements of `tensor` in row-major order to `dst` (which has
 * rt_tensor_nbytes bytes), whatever its strides. */
void rt_tensor_copy_compact(const rt_tensor_t *tensor, void *dst);

/* rt_tensor_create without the zero fill: for a kernel's outputs, which
 * the kernel writes whole (the vm's AllocTensorReg). */
RT_MUST_USE_RESULT rt_status_t rt_tensor_create_for_output(rt_allocator_t allocator,
                                                           rt_dtype_t dtype, int32_t rank,
                                                           const int64_t *shape,
                                                           rt_tensor_t **out_tensor);

/* (FoldConstant's reshapes of constants.) A tensor of `shape` over the
 * elements of compact tensor `base` (the same
 * dtype and element count), sharing its data: the view holds a reference
 * on base until its last release. A strided base, a string tensor or
 * another element count is INVALID_ARGUMENT. */
RT_MUST_USE_RESULT rt_status_t rt_tensor_reshaped_view(rt_tensor_t *base, int32_t rank,
                                                       const int64_t *shape,
                                                       rt_tensor_t **out_view);

#endif /* RT_RUNTIME_TENSOR_IMPL_H_ */
