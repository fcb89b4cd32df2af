/* Tensors (include/rt/tensor.h): creation, cloning, reference counting and
 * the DLPack import/export.
 *
 * One allocation holds the struct followed by its shape and strides, so a
 * tensor's metadata can never be half-freed; the payload is a second,
 * RT_TENSOR_ALIGNMENT-aligned allocation (or, for imports, the producer's
 * memory). The reference count is a C11 atomic: release uses acq_rel so
 * the thread that frees sees every other thread's writes. An export is a
 * DLManagedTensorVersioned (with its own copy of explicit strides, since
 * some consumers want them) whose manager_ctx holds one reference.
 *
 * String tensors (RT_DTYPE_STRING) hold rt_string_t elements whose bytes
 * are separate allocations from the tensor's allocator: always zeroed at
 * creation (empty strings), freed one by one at the last release, copied
 * by clone; they are never imported from or exported to DLPack. */
#include <string.h>

#include "runtime/assert.h"
#include "runtime/size.h"
#include "runtime/tensor_impl.h"

/* Allocates the struct with room for shape and (optionally) strides. */
static rt_status_t alloc_header(rt_allocator_t allocator, rt_dtype_t dtype,
                                int32_t rank, const int64_t *shape,
                                bool with_strides, rt_tensor_t **out_tensor) {
  char name[RT_DTYPE_NAME_MAX];
  if (!rt_dtype_is_valid(dtype)) {
    return RT_STATUS(INVALID_ARGUMENT, "invalid tensor dtype %s",
                     rt_dtype_name(dtype, name));
  }
  if (rank < 0 || rank > RT_TENSOR_MAX_RANK) {
    return RT_STATUS(INVALID_ARGUMENT, "tensor rank %d is outside [0, %d]",
                     rank, RT_TENSOR_MAX_RANK);
  }
  if (rank > 0 && !shape) {
    return RT_STATUS(INVALID_ARGUMENT, "rank %d tensor without a shape", rank);
  }
  size_t nbytes = 0;
  RT_RETURN_IF_ERROR(rt_size_of_shape(rank, shape, rt_dtype_size(dtype), &nbytes));
  size_t dims = (size_t)rank * (with_strides ? 2 : 1);
  void *mem = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(
      allocator, sizeof(rt_tensor_t) + dims * sizeof(int64_t),
      _Alignof(rt_tensor_t), true, &mem));
  rt_tensor_t *t = mem;
  atomic_init(&t->refcount, 1);
  t->allocator = allocator;
  t->dtype = dtype;
  t->rank = rank;
  t->shape = (int64_t *)(t + 1);
  t->strides = with_strides ? t->shape + rank : NULL;
  if (rank > 0) memcpy(t->shape, shape, (size_t)rank * sizeof(int64_t));
  /* Not the product of dims: with a 0 dim late, earlier ones may overflow. */
  t->numel = (int64_t)(nbytes / rt_dtype_size(dtype));
  t->nbytes = nbytes;
  *out_tensor = t;
  return RT_OK;
}

static rt_status_t create(rt_allocator_t allocator, rt_dtype_t dtype, int32_t rank,
                          const int64_t *shape, bool zero, rt_tensor_t **out_tensor) {
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(alloc_header(allocator, dtype, rank, shape, false, &t));
  /* A string tensor is always zeroed: its elements are owned pointers. */
  rt_status_t status = rt_allocator_malloc(allocator, t->nbytes, RT_TENSOR_ALIGNMENT,
                                           zero || rt_dtype_is_string(dtype), &t->data);
  if (status) {
    rt_allocator_free(allocator, t);
    return rt_status_annotate(status, "creating a tensor");
  }
  *out_tensor = t;
  return RT_OK;
}

rt_status_t rt_tensor_create(rt_allocator_t allocator, rt_dtype_t dtype, int32_t rank,
                             const int64_t *shape, rt_tensor_t **out_tensor) {
  return create(allocator, dtype, rank, shape, true, out_tensor);
}

rt_status_t rt_tensor_create_for_output(rt_allocator_t allocator, rt_dtype_t dtype, int32_t rank,
                                        const int64_t *shape, rt_tensor_t **out_tensor) {
  return create(allocator, dtype, rank, shape, false, out_tensor);
}

void rt_tensor_copy_compact(const rt_tensor_t *tensor, void *dst) {
  const unsigned char *src = rt_tensor_data(tensor);
  if (!tensor->strides) {
    if (tensor->nbytes) memcpy(dst, src, tensor->nbytes);
    return;
  }
  if (tensor->numel == 0) return;
  size_t elem = rt_dtype_size(tensor->dtype);
  int32_t rank = tensor->rank;
  int64_t index[RT_TENSOR_MAX_RANK] = {0};
  int64_t offset = 0; /* element offset of `index` */
  unsigned char *out = dst;
  for (int64_t n = 0; n < tensor->numel; ++n) {
    memcpy(out, src + offset * (int64_t)elem, elem);
    out += elem;
    /* Odometer increment, last axis fastest. */
    for (int32_t axis = rank - 1; axis >= 0; --axis) {
      if (++index[axis] < tensor->shape[axis]) {
        offset += tensor->strides[axis];
        break;
      }
      offset -= tensor->strides[axis] * (index[axis] - 1);
      index[axis] = 0;
    }
  }
}

rt_status_t rt_tensor_clone(rt_allocator_t allocator, const rt_tensor_t *tensor,
                            rt_tensor_t **out_tensor) {
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(
      rt_tensor_create(allocator, tensor->dtype, tensor->rank, tensor->shape, &t));
  if (rt_dtype_is_string(tensor->dtype)) {
    /* Element by element through a compact view of the pointers. */
    rt_string_t *src = NULL;
    rt_status_t st = RT_OK;
    if (tensor->nbytes) {
      st = rt_allocator_malloc(allocator, tensor->nbytes, _Alignof(rt_string_t), false,
                               (void **)&src);
    }
    if (!st && src) rt_tensor_copy_compact(tensor, src);
    for (int64_t i = 0; !st && i < tensor->numel; ++i) {
      st = rt_tensor_set_string(t, i, src[i].data, (size_t)src[i].size);
    }
    if (src) rt_allocator_free(allocator, src);
    if (st) {
      rt_tensor_release(t);
      return rt_status_annotate(st, "cloning a string tensor");
    }
    *out_tensor = t;
    return RT_OK;
  }
  rt_tensor_copy_compact(tensor, t->data);
  *out_tensor = t;
  return RT_OK;
}

rt_status_t rt_tensor_set_string(rt_tensor_t *tensor, int64_t index, const char *data,
                                 size_t size) {
  if (!rt_dtype_is_string(tensor->dtype) || tensor->strides || tensor->managed) {
    return RT_STATUS(INVALID_ARGUMENT, "%s", "rt_tensor_set_string: not a compact string tensor");
  }
  if (index < 0 || index >= tensor->numel) {
    return RT_STATUS(INVALID_ARGUMENT, "rt_tensor_set_string: index %lld is outside [0, %lld)",
                     (long long)index, (long long)tensor->numel);
  }
  if (size > (size_t)INT64_MAX / 2) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "rt_tensor_set_string: string too long");
  }
  rt_string_t *e = (rt_string_t *)((char *)tensor->data + tensor->byte_offset) + index;
  char *copy = NULL;
  if (size) {
    RT_RETURN_IF_ERROR(rt_allocator_malloc(tensor->allocator, size, 1, false, (void **)&copy));
    memcpy(copy, data, size);
  }
  if (e->data) rt_allocator_free(tensor->allocator, e->data);
  e->data = copy;
  e->size = (int64_t)size;
  return RT_OK;
}

void rt_tensor_retain(rt_tensor_t *tensor) {
  if (tensor) atomic_fetch_add_explicit(&tensor->refcount, 1, memory_order_relaxed);
}

void rt_tensor_release(rt_tensor_t *tensor) {
  if (!tensor) return;
  int_least32_t before =
      atomic_fetch_sub_explicit(&tensor->refcount, 1, memory_order_acq_rel);
  RT_ASSERT(before >= 1);
  if (before != 1) return;
  if (tensor->managed) {
    DLManagedTensorVersioned *managed = tensor->managed;
    if (managed->deleter) managed->deleter(managed);
  } else {
    if (rt_dtype_is_string(tensor->dtype) && tensor->data) {
      rt_string_t *e = tensor->data;
      for (int64_t i = 0; i < tensor->numel; ++i) {
        if (e[i].data) rt_allocator_free(tensor->allocator, e[i].data);
      }
    }
    rt_allocator_free(tensor->allocator, tensor->data);
  }
  rt_allocator_free(tensor->allocator, tensor);
}

rt_dtype_t rt_tensor_dtype(const rt_tensor_t *tensor) { return tensor->dtype; }
int32_t rt_tensor_rank(const rt_tensor_t *tensor) { return tensor->rank; }
const int64_t *rt_tensor_shape(const rt_tensor_t *tensor) { return tensor->shape; }
const int64_t *rt_tensor_strides(const rt_tensor_t *tensor) { return tensor->strides; }
uint64_t rt_tensor_byte_offset(const rt_tensor_t *tensor) { return tensor->byte_offset; }
int64_t rt_tensor_numel(const rt_tensor_t *tensor) { return tensor->numel; }
size_t rt_tensor_nbytes(const rt_tensor_t *tensor) { return tensor->nbytes; }
bool rt_tensor_is_compact(const rt_tensor_t *tensor) { return tensor->strides == NULL; }

void *rt_tensor_data(const rt_tensor_t *tensor) {
  return (unsigned char *)tensor->data + tensor->byte_offset;
}

void rt_tensor_dltensor(const rt_tensor_t *tensor, DLTensor *out) {
  out->data = tensor->data;
  out->device.device_type = kDLCPU;
  out->device.device_id = 0;
  out->ndim = tensor->rank;
  out->dtype = tensor->dtype;
  out->shape = tensor->shape;
  out->strides = tensor->strides;
  out->byte_offset = tensor->byte_offset;
}

/* True when `strides` describe the compact row-major layout of `shape`
 * (axes of extent 1 may have any stride; an empty tensor is compact). */
static bool strides_are_compact(int32_t rank, const int64_t *shape,
                                const int64_t *strides) {
  int64_t expect = 1;
  for (int32_t i = rank - 1; i >= 0; --i) {
    if (shape[i] == 0) return true;
    if (shape[i] != 1 && strides[i] != expect) return false;
    expect *= shape[i];
  }
  return true;
}

rt_status_t rt_tensor_from_dlpack(DLManagedTensorVersioned *managed,
                                  rt_tensor_t **out_tensor) {
  if (!managed) return RT_STATUS(INVALID_ARGUMENT, "NULL DLPack tensor");
  const DLTensor *dl = &managed->dl_tensor;
  if (managed->version.major != DLPACK_MAJOR_VERSION) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "DLPack major version %u is not supported (want %d)",
                     managed->version.major, DLPACK_MAJOR_VERSION);
  }
  if (dl->device.device_type != kDLCPU) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "DLPack tensor on device type %d; only kDLCPU (1) is "
                     "supported", (int)dl->device.device_type);
  }
  if (dl->ndim < 0 || dl->ndim > RT_TENSOR_MAX_RANK) {
    return RT_STATUS(INVALID_ARGUMENT, "DLPack tensor rank %d is outside [0, %d]",
                     dl->ndim, RT_TENSOR_MAX_RANK);
  }
  if (rt_dtype_is_string(dl->dtype)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s", "DLPack has no string tensors");
  }
  bool strided = dl->strides && dl->ndim > 0 &&
                 !strides_are_compact(dl->ndim, dl->shape, dl->strides);
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR_ANNOTATE(alloc_header(rt_allocator_system(), dl->dtype,
                                           dl->ndim, dl->shape, strided, &t),
                              "importing a DLPack tensor");
  if (!dl->data && t->nbytes != 0) {
    size_t nbytes = t->nbytes;
    rt_allocator_free(t->allocator, t);
    return RT_STATUS(INVALID_ARGUMENT, "DLPack tensor of %zu bytes has no data",
                     nbytes);
  }
  if (strided) memcpy(t->strides, dl->strides, (size_t)dl->ndim * sizeof(int64_t));
  t->data = dl->data;
  t->byte_offset = dl->byte_offset;
  t->managed = managed;
  *out_tensor = t;
  return RT_OK;
}

typedef struct {
  DLManagedTensorVersioned managed;
  int64_t strides[RT_TENSOR_MAX_RANK];
} export_block;

static void export_deleter(DLManagedTensorVersioned *self) {
  export_block *block = (export_block *)self;
  rt_tensor_t *tensor = self->manager_ctx;
  rt_allocator_t allocator = rt_allocator_system();
  rt_allocator_free(allocator, block);
  rt_tensor_release(tensor);
}

rt_status_t rt_tensor_to_dlpack(rt_tensor_t *tensor,
                                DLManagedTensorVersioned **out_managed) {
  if (rt_dtype_is_string(tensor->dtype)) {
    return RT_STATUS(UNIMPLEMENTED, "%s", "a string tensor has no DLPack form");
  }
  void *mem = NULL;
  RT_RETURN_IF_ERROR_ANNOTATE(
      rt_allocator_malloc(rt_allocator_system(), sizeof(export_block),
                          _Alignof(export_block), true, &mem),
      "exporting a tensor to DLPack");
  export_block *block = mem;
  if (tensor->strides) {
    memcpy(block->strides, tensor->strides, (size_t)tensor->rank * sizeof(int64_t));
  } else {
    int64_t stride = 1;
    for (int32_t i = tensor->rank - 1; i >= 0; --i) {
      block->strides[i] = stride;
      stride *= tensor->shape[i];
    }
  }
  DLManagedTensorVersioned *managed = &block->managed;
  managed->version.major = DLPACK_MAJOR_VERSION;
  managed->version.minor = DLPACK_MINOR_VERSION;
  managed->manager_ctx = tensor;
  managed->deleter = export_deleter;
  managed->flags = 0;
  rt_tensor_dltensor(tensor, &managed->dl_tensor);
  managed->dl_tensor.strides = block->strides;
  rt_tensor_retain(tensor);
  *out_managed = managed;
  return RT_OK;
}

rt_status_t rt_tensor_reshaped_view(rt_tensor_t *base, int32_t rank, const int64_t *shape,
                                    rt_tensor_t **out_view) {
  if (base->strides || rt_dtype_is_string(base->dtype)) {
    return RT_STATUS(INVALID_ARGUMENT, "only a compact, non-string tensor has reshaped views");
  }
  size_t nbytes = 0;
  RT_RETURN_IF_ERROR(rt_size_of_shape(rank, shape, rt_dtype_size(base->dtype), &nbytes));
  if (nbytes != base->nbytes) {
    return RT_STATUS(INVALID_ARGUMENT, "a reshaped view of %zu bytes over a tensor of %zu",
                     nbytes, base->nbytes);
  }
  DLManagedTensorVersioned *managed = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_to_dlpack(base, &managed));
  /* from_dlpack copies the shape: pointing at the caller's is enough. */
  managed->dl_tensor.ndim = rank;
  managed->dl_tensor.shape = (int64_t *)shape;
  managed->dl_tensor.strides = NULL;
  rt_status_t st = rt_tensor_from_dlpack(managed, out_view);
  if (st) {
    managed->deleter(managed);
    return st;
  }
  managed->dl_tensor.shape = (*out_view)->shape;
  return RT_OK;
}
