/* TVM's NDArray record (runtime::SaveDLTensor), little-endian:
 *   u64 magic 0xDD5E40F096B4A13F, u64 reserved, DLDevice {i32 type, i32 id},
 *   i32 ndim, DLDataType {u8 code, u8 bits, u16 lanes}, i64 shape[ndim],
 *   i64 data_byte_size, raw bytes.
 * Used by param blobs, the text format's metadata (base64) and VM files.
 * bool is written as TVM writes it ({kDLUInt, 1, 1}, one byte each) and read
 * from either that or {kDLBool, 8, 1}. */
#ifndef RT_RUNTIME_NDARRAY_BLOB_H_
#define RT_RUNTIME_NDARRAY_BLOB_H_

#include "rt/tensor.h"
#include "runtime/strbuf.h"

#define RT_NDARRAY_MAGIC UINT64_C(0xDD5E40F096B4A13F)
#define RT_NDARRAY_LIST_MAGIC UINT64_C(0xF7E58D4F05049CB7)

/* Reads one record starting at bytes[*offset], advancing *offset past it.
 * Any truncation, bad magic, invalid dtype, negative dim or a byte size that
 * disagrees with the shape is DATA_LOSS naming `source_name` and the
 * offset. */
RT_MUST_USE_RESULT rt_status_t rt_ndarray_blob_read(
    rt_allocator_t allocator, const uint8_t *bytes, size_t size,
    size_t *offset, const char *source_name, rt_tensor_t **out_tensor);

/* Appends one record (compact data; strided tensors are compacted). */
void rt_ndarray_blob_write(const rt_tensor_t *tensor, rt_strbuf_t *out);

#endif /* RT_RUNTIME_NDARRAY_BLOB_H_ */
