/* Internal to interp/kernels/: the per-op kernel declarations (one per line
 * of ir/ops.def, defined in the family file of the same name as ir/op/) and
 * the helpers every family shares (common.c).
 *
 * Element access. Kernels read and write elements through four helpers,
 * whatever the dtype, so each semantic choice is made once:
 *   - rt_interp_load_f: element i as a double. float16/bfloat16 widen
 *     exactly; integers convert as C does (int64 beyond 2^53 rounds).
 *   - rt_interp_load_i: element i as an int64. Signed ints sign-extend,
 *     unsigned ones zero-extend (uint64 keeps its bit pattern), bool is 0/1,
 *     floats convert like rt_interp_sat_i64.
 *   - rt_interp_store_f: stores a double. Floats round to nearest (float16
 *     and bfloat16 via float32: "float32 compute" for half types); integers
 *     take rt_interp_sat_* (truncate toward zero, saturate, NaN -> 0: C
 *     leaves out-of-range float->int conversion undefined, we define it);
 *     bool stores v != 0 (NaN is true, as numpy).
 *   - rt_interp_store_i: stores an int64 (bit pattern for uint64). Integers
 *     keep the low `bits` bits (wrap modulo 2^bits, two's complement), bool
 *     stores v != 0, floats convert as C does.
 * Integer arithmetic that may overflow is done in uint64 (defined
 * wraparound; the suite runs under UBSan) and stored with
 * rt_interp_store_i, so add/mul/neg wrap modulo 2^bits of the dtype.
 *
 * Whole tensors. The span forms (rt_interp_load_span_f ...) make exactly
 * these conversions over a run of elements with one dtype dispatch per
 * run. Kernels that touch every element read each input whole into a
 * double or int64 buffer (rt_interp_load_all_f / _i), compute on the
 * buffers in an order that streams memory (rows of the output, a weight
 * swept over a plane), and store the output once; element-by-element
 * access is left to rare paths (integer max pools, the indexing ops).
 *
 * Indices. Tensors are compact row-major (the interpreter compacts
 * arguments). Multi-indices are int64 arrays of RT_TENSOR_MAX_RANK. */
#ifndef RT_INTERP_KERNELS_KERNELS_IMPL_H_
#define RT_INTERP_KERNELS_KERNELS_IMPL_H_

#include "interp/kernel.h"
#include "runtime/tensor_impl.h"

/* ---- kernels, declared from ops.def -------------------------------------- */
#define RT_OP(ID, name, ninputs, pattern, fields, rel, family, doc) \
  RT_MUST_USE_RESULT rt_status_t rt_interp_k_##ID(const rt_interp_call_t *call);
#define RT_UNARY(ID, name, fields, domain, doc)
#define RT_BINARY(ID, name, rel, domain, doc)
#include "ir/ops.def"
#undef RT_BINARY
#undef RT_UNARY
#undef RT_OP
/* The plain elementwise ops (RT_UNARY / RT_BINARY rows) share one kernel
 * per kind, which applies the op's scalar forms (elemwise.c). */
RT_MUST_USE_RESULT rt_status_t rt_interp_k_unary(const rt_interp_call_t *call);
RT_MUST_USE_RESULT rt_status_t rt_interp_k_binary(const rt_interp_call_t *call);

/* ---- dtype classes ------------------------------------------------------- */

typedef enum rt_interp_class_e {
  RT_INTERP_FLOAT, /* float16/32/64, bfloat16 */
  RT_INTERP_SINT,
  RT_INTERP_UINT,
  RT_INTERP_BOOL,
} rt_interp_class_t;

rt_interp_class_t rt_interp_class(rt_dtype_t dtype);

/* ---- element access (see the top of this file) --------------------------- */

double rt_interp_load_f(const rt_tensor_t *t, int64_t i);
int64_t rt_interp_load_i(const rt_tensor_t *t, int64_t i);
void rt_interp_store_f(rt_tensor_t *t, int64_t i, double v);
void rt_interp_store_i(rt_tensor_t *t, int64_t i, int64_t v);
/* Element i is non-zero (floats: v != 0, so NaN is true). */
bool rt_interp_truthy(const rt_tensor_t *t, int64_t i);
/* Converts element si of src into element di of dst with cast semantics:
 * float sources go through load_f/store_f, integer and bool sources
 * through load_i/store_i (uint64 sources above INT64_MAX convert to floats
 * as unsigned). */
void rt_interp_convert(const rt_tensor_t *src, int64_t si, rt_tensor_t *dst,
                       int64_t di);
/* Copies the bytes of element si of src to element di of dst (same dtype). */
void rt_interp_copy_elem(const rt_tensor_t *src, int64_t si, rt_tensor_t *dst,
                         int64_t di);

/* Spans: the same conversions over the n elements from flat index
 * `start`, with one dtype dispatch per call (a plain loop per dtype).
 * Kernels that touch every element read their inputs whole into double or
 * int64 buffers, compute on those, and store the result the same way. */
void rt_interp_load_span_f(const rt_tensor_t *t, int64_t start, int64_t n, double *out);
void rt_interp_load_span_i(const rt_tensor_t *t, int64_t start, int64_t n, int64_t *out);
void rt_interp_store_span_f(rt_tensor_t *t, int64_t start, int64_t n, const double *v);
void rt_interp_store_span_i(rt_tensor_t *t, int64_t start, int64_t n, const int64_t *v);

/* Hands result r (a reference, taken) to output i: as the output when the
 * caller left it to the kernel (a `?` dim), else copied into the caller's
 * tensor, which must have r's dtype and shape (INTERNAL naming `what`
 * otherwise). For kernels that size their results themselves. */
RT_MUST_USE_RESULT rt_status_t rt_interp_deliver(const rt_interp_call_t *call, int32_t i,
                                                 rt_tensor_t *r, const char *what);
/* Kernel scratch: n elements of `size` bytes from the call's allocator
 * (zero-filled when `zero`); RESOURCE_EXHAUSTED when it cannot be had.
 * Freed with rt_interp_scratch_free (NULL is fine). */
RT_MUST_USE_RESULT rt_status_t rt_interp_scratch(const rt_interp_call_t *call, int64_t n,
                                                 size_t size, bool zero, void **out);
void rt_interp_scratch_free(const rt_interp_call_t *call, void *p);
/* All of t read into new scratch with rt_interp_load_span_f / _i. */
RT_MUST_USE_RESULT rt_status_t rt_interp_load_all_f(const rt_interp_call_t *call,
                                                    const rt_tensor_t *t, double **out);
RT_MUST_USE_RESULT rt_status_t rt_interp_load_all_i(const rt_interp_call_t *call,
                                                    const rt_tensor_t *t, int64_t **out);

/* The two's-complement int64 with the bits of u (defined for every u,
 * unlike C's conversion). */
int64_t rt_interp_u2s(uint64_t u);

/* Saturating float->int conversions: truncate toward zero, clamp to the
 * type's range, NaN -> 0. */
int64_t rt_interp_sat_i64(double v);
uint64_t rt_interp_sat_u64(double v);

/* Round half to even, independent of the FP rounding mode. */
double rt_interp_round_even(double v);

/* ---- indices ------------------------------------------------------------- */

/* Row-major strides (elements) of a shape. */
void rt_interp_strides(int32_t rank, const int64_t *shape, int64_t *out_strides);
/* Flat index -> multi-index. */
void rt_interp_unravel(int64_t flat, int32_t rank, const int64_t *shape,
                       int64_t *out_index);
/* Numpy broadcasting: the flat index in a tensor of (rank, shape) read at
 * the output multi-index `out_index` of rank `out_rank` (right-aligned;
 * size-1 dims read index 0). */
int64_t rt_interp_bcast_index(int32_t out_rank, const int64_t *out_index,
                              int32_t rank, const int64_t *shape);
/* Row walks. A kernel over an output of (rank, shape) loops over its rows
 * (all dims but the last; rt_interp_rows gives their count and the row
 * length) and, inside a row, over the last dim. An input read by
 * broadcasting advances along output dim d by strides[d] from
 * rt_interp_bcast_strides (0 where it broadcasts, or where it has no such
 * dim); rt_interp_row_start is its flat index at the start of row `row`
 * for such strides (or for the output's own row-major strides). */
void rt_interp_bcast_strides(int32_t out_rank, const int64_t *out_shape, int32_t rank,
                             const int64_t *shape, int64_t *out_strides);
int64_t rt_interp_rows(int32_t rank, const int64_t *shape, int64_t numel, int64_t *out_len);
int64_t rt_interp_row_start(int64_t row, int32_t rank, const int64_t *shape,
                            const int64_t *strides);
/* dst[i] = src[i * stride] for i < n, elements of esz bytes (stride in
 * elements, may be 0 or negative): the row copy of the data-movement
 * kernels, one switch on esz per row. */
void rt_interp_copy_strided(void *dst, const void *src, int64_t stride, int64_t n, size_t esz);
/* Copies element 0's bytes into every other element of t: a fill is one
 * conversion into element 0, then this. */
void rt_interp_fill_from_first(rt_tensor_t *t);
/* Normalizes a possibly negative axis for `rank` dims; INVALID_ARGUMENT
 * naming the op when out of range. */
RT_MUST_USE_RESULT rt_status_t rt_interp_axis(const rt_interp_call_t *call,
                                              int64_t axis, int32_t rank,
                                              int32_t *out_axis);
/* INTERNAL error unless t has `rank` dims equal to shape (a kernel's own
 * shape computation disagreeing with the type relation's). */
RT_MUST_USE_RESULT rt_status_t rt_interp_check_shape(
    const rt_interp_call_t *call, const rt_tensor_t *t, int32_t rank,
    const int64_t *shape);

/* ---- layouts ------------------------------------------------------------- */

/* For a layout of distinct upper-case letters ("NCHW", "OIHW", "NWC") over
 * a tensor t: the element stride of each letter in `letters` (0 when the
 * letter is absent, e.g. H of "NCW") and its extent (1 when absent).
 * INVALID_ARGUMENT naming the op and the attribute when the layout has a
 * letter outside `letters`, repeats one, or disagrees with t's rank. */
RT_MUST_USE_RESULT rt_status_t rt_interp_layout(const rt_interp_call_t *call,
                                                const char *attr,
                                                const char *layout,
                                                const char *letters,
                                                const rt_tensor_t *t,
                                                int64_t *out_stride,
                                                int64_t *out_extent);

/* ---- plans --------------------------------------------------------------- */

/* Element strides s and extents e of t's N, C, H, W (a kernel's O, I, H, W)
 * from a plan's layout positions pos[2 + nsp] (N, C, then the nsp spatial
 * dims); with one spatial dim there is no H (extent 1, stride 0). The
 * conv, pool and image kernels index through it. */
void rt_interp_nchw_view(const rt_tensor_t *t, const int32_t *pos, int32_t nsp, int64_t s[4],
                         int64_t e[4]);

/* A plan's error (ir/op/plan.h: a plain message) as the kernel's: the
 * same code, "<op>: <message>". RT_OK passes through. */
RT_MUST_USE_RESULT rt_status_t rt_interp_plan_status(const rt_interp_call_t *call,
                                                     rt_status_t status);

/* cast / cast_like where the input or the output is a string tensor
 * (interp/kernels/string.c). */
RT_MUST_USE_RESULT rt_status_t rt_interp_cast_string(const rt_interp_call_t *call);

/* Error helper: INVALID_ARGUMENT "<op>: <message>". */
#define RT_INTERP_ERROR(call, code, fmt, ...) \
  RT_STATUS(code, "%s: " fmt, (call)->op->name, __VA_ARGS__)

#endif /* RT_INTERP_KERNELS_KERNELS_IMPL_H_ */
