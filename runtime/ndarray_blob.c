/* TVM's NDArray record (runtime::SaveDLTensor / LoadDLTensor), the unit of
 * param blobs, the text format's b64ndarrays and VM constant sections.
 *
 * The reader trusts nothing in the record: it checks that each fixed field
 * fits in the bytes left before reading it, that ndim is within
 * RT_TENSOR_MAX_RANK before reading the shape, and that data_byte_size is
 * both present in full and equal to numel * element size before it
 * allocates, so a huge count in a tiny file is DATA_LOSS, never a huge
 * allocation. Bool reads from TVM's {kDLUInt, 1, 1} or {kDLBool, 8, 1} and
 * is written as TVM writes it, {kDLUInt, 1, 1} with one byte per element.
 * TVM sizes data as ceil(bits / 8) * numel, ignoring lanes; for vector
 * dtypes this file uses the true size (bits * lanes / 8), which is what
 * the data actually occupies. String tensors (relayrt's own dtype) have no
 * NDArray form: the writer writes zeros for their elements and the reader
 * refuses the dtype, so a string constant never round-trips by address. */
#include "runtime/ndarray_blob.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bytes.h"
#include "runtime/size.h"
#include "runtime/tensor_impl.h"
#include "runtime/mem.h"

/* DATA_LOSS "<source> at offset N: <message>". */
#define BLOB_ERROR(offset, ...) blob_error(source_name, (offset), __VA_ARGS__)

static rt_status_t blob_error(const char *source, size_t offset,
                              const char *format, ...) RT_PRINTF_FORMAT(3, 4);

static rt_status_t blob_error(const char *source, size_t offset,
                              const char *format, ...) {
  char what[256];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  return RT_STATUS(DATA_LOSS, "%s at offset %zu: %s", source ? source : "<memory>",
                   offset, what);
}

rt_status_t rt_ndarray_blob_read(rt_allocator_t allocator, const uint8_t *bytes,
                                 size_t size, size_t *offset,
                                 const char *source_name,
                                 rt_tensor_t **out_tensor) {
  size_t at = *offset;
  const size_t fixed = 8 + 8 + 8 + 4 + 4; /* magic .. dtype */
  if (at > size || size - at < fixed) {
    return BLOB_ERROR(at, "truncated NDArray record (%zu bytes left, header needs %zu)",
                      at > size ? 0 : size - at, fixed);
  }
  const uint8_t *p = bytes + at;
  uint64_t magic = rt_le_u64(p);
  if (magic != RT_NDARRAY_MAGIC) {
    return BLOB_ERROR(at, "bad NDArray magic 0x%016llx (want 0x%016llx)",
                      (unsigned long long)magic,
                      (unsigned long long)RT_NDARRAY_MAGIC);
  }
  int32_t device_type = (int32_t)rt_le_u32(p + 16);
  int32_t ndim = (int32_t)rt_le_u32(p + 24);
  rt_dtype_t dtype = {p[28], p[29], rt_le_u16(p + 30)};
  if (device_type != kDLCPU) {
    return BLOB_ERROR(at + 16, "NDArray device type %d is not CPU (1)", device_type);
  }
  if (ndim < 0 || ndim > RT_TENSOR_MAX_RANK) {
    return BLOB_ERROR(at + 24, "NDArray ndim %d is outside [0, %d]", ndim,
                      RT_TENSOR_MAX_RANK);
  }
  if (dtype.code == kDLUInt && dtype.bits == 1) {
    dtype.code = kDLBool;
    dtype.bits = 8;
  }
  /* String tensors hold pointers: an NDArray blob has no form for them. */
  if (!rt_dtype_is_valid(dtype) || rt_dtype_is_string(dtype)) {
    return BLOB_ERROR(at + 28, "NDArray dtype {code %u, bits %u, lanes %u} is not "
                      "supported", dtype.code, dtype.bits, dtype.lanes);
  }
  at += fixed;
  size_t shape_bytes = (size_t)ndim * 8 + 8; /* shape, then data_byte_size */
  if (size - at < shape_bytes) {
    return BLOB_ERROR(at, "truncated NDArray shape (ndim %d, %zu bytes left)", ndim,
                      size - at);
  }
  int64_t shape[RT_TENSOR_MAX_RANK];
  for (int32_t i = 0; i < ndim; ++i) {
    shape[i] = (int64_t)rt_le_u64(bytes + at + 8 * (size_t)i);
    if (shape[i] < 0) {
      return BLOB_ERROR(at + 8 * (size_t)i, "negative NDArray dimension %lld",
                        (long long)shape[i]);
    }
  }
  at += (size_t)ndim * 8;
  uint64_t data_size = rt_le_u64(bytes + at);
  at += 8;
  if (data_size > size - at) {
    return BLOB_ERROR(at - 8, "NDArray data_byte_size %llu runs past the end "
                      "(%zu bytes left)", (unsigned long long)data_size, size - at);
  }
  size_t expect = 0;
  rt_status_t status = rt_size_of_shape(ndim, shape, rt_dtype_size(dtype), &expect);
  if (status || expect != data_size) {
    rt_status_free(status);
    return BLOB_ERROR(at - 8, "NDArray data_byte_size %llu disagrees with its shape "
                      "and dtype", (unsigned long long)data_size);
  }
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR_ANNOTATE(rt_tensor_create(allocator, dtype, ndim, shape, &t),
                              "reading an NDArray at offset %zu of %s", *offset,
                              source_name ? source_name : "<memory>");
  if (data_size) memcpy(t->data, bytes + at, (size_t)data_size);
  if (rt_dtype_is_bool(dtype)) {
    uint8_t *d = t->data;
    for (size_t i = 0; i < (size_t)data_size; ++i) d[i] = d[i] != 0;
  }
  at += (size_t)data_size;
  *offset = at;
  *out_tensor = t;
  return RT_OK;
}

void rt_ndarray_blob_write(const rt_tensor_t *tensor, rt_strbuf_t *out) {
  rt_put_le_u64(out, RT_NDARRAY_MAGIC);
  rt_put_le_u64(out, 0);
  rt_put_le_u32(out, kDLCPU);
  rt_put_le_u32(out, 0);
  rt_put_le_u32(out, (uint32_t)tensor->rank);
  rt_dtype_t dtype = tensor->dtype;
  if (rt_dtype_is_bool(dtype)) {
    dtype.code = kDLUInt;
    dtype.bits = 1;
  }
  char code_bits[2] = {(char)dtype.code, (char)dtype.bits};
  rt_strbuf_append(out, code_bits, 2);
  rt_put_le_u16(out, dtype.lanes);
  for (int32_t i = 0; i < tensor->rank; ++i) {
    rt_put_le_u64(out, (uint64_t)tensor->shape[i]);
  }
  rt_put_le_u64(out, (uint64_t)tensor->nbytes);
  if (rt_dtype_is_string(tensor->dtype)) {
    /* Strings have no NDArray form: zeros stand for the pointers, and the
     * reader refuses the dtype. */
    for (size_t i = 0; i < tensor->nbytes; ++i) rt_strbuf_putc(out, 0);
    return;
  }
  if (rt_tensor_is_compact(tensor)) {
    rt_strbuf_append(out, rt_tensor_data(tensor), tensor->nbytes);
    return;
  }
  if (out->failed) return;
  void *data = rt_mem_alloc(tensor->nbytes ? tensor->nbytes : 1);
  if (!data) {
    out->failed = true;
    return;
  }
  rt_tensor_copy_compact(tensor, data);
  rt_strbuf_append(out, data, tensor->nbytes);
  rt_mem_free(data);
}
