/* relayrt tensors and dtypes.
 *
 * A tensor is a reference-counted n-d array in DLPack's layout: a dtype
 * {code, bits, lanes}, an int64 shape, optional element strides (NULL =
 * compact row-major), a byte_offset into 64-byte-aligned data. Tensors made
 * here always own compact data; tensors imported from DLPack keep the
 * producer's strides and call its deleter when the last reference goes.
 *
 * Ownership: rt_tensor_create* return a reference the caller owns; release
 * it with rt_tensor_release. Accessors borrow.
 * Thread-safety: retain/release are atomic; the data is not synchronized. */
#ifndef RT_TENSOR_H_
#define RT_TENSOR_H_

#include "rt/allocator.h"
#include "rt/base.h"
#include "rt/dlpack.h"
#include "rt/status.h"

RT_EXTERN_C_BEGIN

/* A dimension that is `?` (unknown until run time) wherever the API
 * describes a shape: signatures, rt_tensor_info_t, custom-op types. */
#define RT_DIM_ANY INT64_C(-1)

/* ---- dtypes ------------------------------------------------------------ */

typedef DLDataType rt_dtype_t;

/* One input or output of a model: of an executor (rt_executor_input_info)
 * or an exported model (rt_artifact_input_info). Borrowed from the object
 * it describes. */
typedef struct rt_tensor_info_t {
  const char *name;      /* inputs: the parameter name; outputs: "output_<i>" */
  rt_dtype_t dtype;
  int32_t rank;
  const int64_t *shape;  /* rank dims, RT_DIM_ANY for `?` */
} rt_tensor_info_t;

/* DLPack type codes (kDLInt ...) are used directly. Bool is {kDLBool, 8, 1}:
 * one byte per element, 0 or 1. */
#define RT_DTYPE(code_, bits_) ((rt_dtype_t){(uint8_t)(code_), (uint8_t)(bits_), 1})
#define RT_DTYPE_BOOL RT_DTYPE(kDLBool, 8)
#define RT_DTYPE_INT8 RT_DTYPE(kDLInt, 8)
#define RT_DTYPE_INT16 RT_DTYPE(kDLInt, 16)
#define RT_DTYPE_INT32 RT_DTYPE(kDLInt, 32)
#define RT_DTYPE_INT64 RT_DTYPE(kDLInt, 64)
#define RT_DTYPE_UINT8 RT_DTYPE(kDLUInt, 8)
#define RT_DTYPE_UINT16 RT_DTYPE(kDLUInt, 16)
#define RT_DTYPE_UINT32 RT_DTYPE(kDLUInt, 32)
#define RT_DTYPE_UINT64 RT_DTYPE(kDLUInt, 64)
#define RT_DTYPE_FLOAT16 RT_DTYPE(kDLFloat, 16)
#define RT_DTYPE_BFLOAT16 RT_DTYPE(kDLBfloat, 16)
#define RT_DTYPE_FLOAT32 RT_DTYPE(kDLFloat, 32)
#define RT_DTYPE_FLOAT64 RT_DTYPE(kDLFloat, 64)

/* Strings (relayrt's own code, outside DLPack's): each element is an
 * rt_string_t, a UTF-8 byte string the tensor owns (allocated from the
 * tensor's allocator, freed with it; `data` NULL when `size` is 0; not
 * NUL-terminated). A zero-filled tensor holds empty strings; clone copies
 * the bytes. String tensors have no DLPack form (export is refused) and
 * run on the debug and vm executors (the vm runs their ops as host ops):
 * the graph executor refuses them, and of the built-in ops only cast,
 * cast_like and the string family take them. The
 * Relay name is "string". */
#define RT_DTYPE_CODE_STRING 200
#define RT_DTYPE_STRING RT_DTYPE(RT_DTYPE_CODE_STRING, 128)
typedef struct rt_string_t {
  char *data;
  int64_t size; /* bytes */
} rt_string_t;

/* Longest dtype name plus NUL ("bfloat16x65535" fits). */
#define RT_DTYPE_NAME_MAX 24

RT_API bool rt_dtype_equal(rt_dtype_t a, rt_dtype_t b);
/* Bytes of one element (lanes included): (bits * lanes + 7) / 8. */
RT_API size_t rt_dtype_size(rt_dtype_t dtype);
/* True for the dtypes tensors may hold: the 14 scalar types above, with
 * lanes >= 1, and RT_DTYPE_STRING (lanes 1). */
RT_API bool rt_dtype_is_valid(rt_dtype_t dtype);
RT_API bool rt_dtype_is_float(rt_dtype_t dtype);  /* float16/32/64, bfloat16 */
RT_API bool rt_dtype_is_int(rt_dtype_t dtype);    /* signed int */
RT_API bool rt_dtype_is_uint(rt_dtype_t dtype);
RT_API bool rt_dtype_is_bool(rt_dtype_t dtype);
RT_API bool rt_dtype_is_string(rt_dtype_t dtype); /* RT_DTYPE_STRING */

/* Writes the name as Relay prints it ("float32", "bool", "int8x4") into
 * buf (at least RT_DTYPE_NAME_MAX bytes) and returns buf. */
RT_API const char *rt_dtype_name(rt_dtype_t dtype, char *buf);

/* Parses a Relay dtype name ("float32", "uint8", "bool", "bfloat16",
 * "float16x4"). `len` bytes of `name` are read (no NUL needed).
 * INVALID_ARGUMENT names the text when it is not a dtype. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_dtype_parse(const char *name,
                                                     size_t len,
                                                     rt_dtype_t *out_dtype);

/* ---- tensors ----------------------------------------------------------- */

typedef struct rt_tensor_t rt_tensor_t;

/* Largest rank a tensor may have. */
#define RT_TENSOR_MAX_RANK 32

/* Alignment of the data of tensors created here. */
#define RT_TENSOR_ALIGNMENT 64

/* Creates a zero-filled compact tensor. A negative dim, rank past
 * RT_TENSOR_MAX_RANK, an invalid dtype or a byte size that overflows is
 * INVALID_ARGUMENT/RESOURCE_EXHAUSTED; nothing is allocated then. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_tensor_create(
    rt_allocator_t allocator, rt_dtype_t dtype, int32_t rank,
    const int64_t *shape, rt_tensor_t **out_tensor);

/* A compact copy of any tensor (strided ones included; strings are copied
 * byte for byte). */
RT_API RT_MUST_USE_RESULT rt_status_t rt_tensor_clone(
    rt_allocator_t allocator, const rt_tensor_t *tensor,
    rt_tensor_t **out_tensor);

/* Sets string element `index` (row-major) of a compact string tensor to a
 * copy of `size` bytes at `data` (the old string is freed). Not a string
 * tensor, or an index outside, is INVALID_ARGUMENT; RESOURCE_EXHAUSTED
 * when the copy cannot be allocated. Not thread-safe on one tensor. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_tensor_set_string(
    rt_tensor_t *tensor, int64_t index, const char *data, size_t size);

RT_API void rt_tensor_retain(rt_tensor_t *tensor);
RT_API void rt_tensor_release(rt_tensor_t *tensor); /* NULL is fine */

RT_API rt_dtype_t rt_tensor_dtype(const rt_tensor_t *tensor);
RT_API int32_t rt_tensor_rank(const rt_tensor_t *tensor);
RT_API const int64_t *rt_tensor_shape(const rt_tensor_t *tensor);
/* Element strides, or NULL when compact row-major. */
RT_API const int64_t *rt_tensor_strides(const rt_tensor_t *tensor);
RT_API uint64_t rt_tensor_byte_offset(const rt_tensor_t *tensor);
/* Pointer to element 0 (data + byte_offset). */
RT_API void *rt_tensor_data(const rt_tensor_t *tensor);
RT_API int64_t rt_tensor_numel(const rt_tensor_t *tensor);
/* numel * dtype size. */
RT_API size_t rt_tensor_nbytes(const rt_tensor_t *tensor);
RT_API bool rt_tensor_is_compact(const rt_tensor_t *tensor);
/* Fills a DLTensor view (borrowed pointers, valid while the tensor lives). */
RT_API void rt_tensor_dltensor(const rt_tensor_t *tensor, DLTensor *out);

/* Imports a DLPack tensor without copying. On success the tensor owns
 * `managed` (its deleter runs at the last release); on failure ownership
 * stays with the caller. Only kDLCPU tensors with a valid dtype are taken. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_tensor_from_dlpack(
    DLManagedTensorVersioned *managed, rt_tensor_t **out_tensor);

/* Exports as DLPack without copying: the returned object holds a reference
 * on the tensor, dropped by its deleter. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_tensor_to_dlpack(
    rt_tensor_t *tensor, DLManagedTensorVersioned **out_managed);

/* ---- element access and summaries (runtime/tensor_util.c) ------------- */

/* Element `index` (row-major over the shape, whatever the strides) as a
 * double; bool is 0/1, int64 beyond 2^53 rounds. Contract: 0 <= index <
 * rt_tensor_numel(tensor); a debug build of the library asserts it, and a
 * release build returns NaN for an index outside (never reads memory
 * outside the tensor). Check the index against rt_tensor_numel first. */
RT_API double rt_tensor_get_f64(const rt_tensor_t *tensor, int64_t index);

typedef struct rt_tensor_stats_t {
  double min, max, mean;   /* over finite elements; 0 when there are none */
  int64_t nan_count;
  int64_t inf_count;
  int64_t count;           /* numel */
} rt_tensor_stats_t;

RT_API void rt_tensor_stats(const rt_tensor_t *tensor, rt_tensor_stats_t *out_stats);

/* Fills with deterministic pseudo-random values from `seed` (the same seed
 * gives the same data on every machine): floats uniform in [-1, 1), signed
 * ints in [-8, 8), unsigned in [0, 16), bools 0/1. */
RT_API void rt_tensor_fill_random(rt_tensor_t *tensor, uint64_t seed);

/* ---- .npy files -------------------------------------------------------- */

/* Reads a .npy (format 1.0, 2.0 or 3.0, C order, any dtype above but
 * bfloat16, little-endian or one-byte descrs; numpy's fixed-width
 * unicode '<Un' (UTF-32) reads as a string tensor, trailing NULs
 * dropped, each string converted to UTF-8; a code point that is not
 * Unicode scalar value is INVALID_ARGUMENT). Fortran order, object
 * arrays, big-endian or unknown descrs and a malformed header are
 * INVALID_ARGUMENT; truncated data or a header whose shape disagrees with
 * the file size are DATA_LOSS; raw 'V' descrs (how bfloat16 gets saved)
 * are UNIMPLEMENTED. Messages name the file (or source_name) and the
 * problem. A missing file is NOT_FOUND, other OS failures IO_ERROR. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_npy_read_file(
    rt_allocator_t allocator, const char *path, rt_tensor_t **out_tensor);
RT_API RT_MUST_USE_RESULT rt_status_t rt_npy_read_memory(
    rt_allocator_t allocator, const void *bytes, size_t size,
    const char *source_name, rt_tensor_t **out_tensor);
/* Writes a .npy exactly as numpy's np.save does (format 1.0, or 2.0 when
 * the header needs it; strided tensors are written compact; a string
 * tensor as '<Un', n the longest string in code points, at least 1;
 * invalid UTF-8 is INVALID_ARGUMENT). bfloat16 and
 * vector dtypes have no numpy descr: UNIMPLEMENTED. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_npy_write_file(
    const rt_tensor_t *tensor, const char *path);

RT_EXTERN_C_END

#endif /* RT_TENSOR_H_ */
