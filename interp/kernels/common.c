/* Helpers shared by the reference kernels: dtype classes, the element
 * load/store conversions (their semantics are written down once, at the top
 * of kernels_impl.h) and their span forms, kernel scratch, index
 * arithmetic and row walks, strided row copies, layout strides and plan
 * errors. Everything here is plain and branchy on purpose. The
 * per-element conversions switch on the dtype for every element; the span
 * forms make the same conversions with one switch per span and a plain
 * loop per dtype, which is what kernels use on whole tensors. */
#include <math.h>
#include <string.h>

#include "interp/kernels/kernels_impl.h"
#include "runtime/half.h"
#include "runtime/size.h"

rt_interp_class_t rt_interp_class(rt_dtype_t dtype) {
  switch (dtype.code) {
    case kDLInt: return RT_INTERP_SINT;
    case kDLUInt: return RT_INTERP_UINT;
    case kDLBool: return RT_INTERP_BOOL;
    default: return RT_INTERP_FLOAT;
  }
}

int64_t rt_interp_sat_i64(double v) {
  if (isnan(v)) return 0;
  /* 2^63 is exact in double; anything >= it saturates. */
  if (v >= 9223372036854775808.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v; /* in range: C truncates toward zero */
}

uint64_t rt_interp_sat_u64(double v) {
  if (isnan(v) || v <= 0) return 0;
  if (v >= 18446744073709551616.0) return UINT64_MAX;
  return (uint64_t)v;
}

double rt_interp_round_even(double v) {
  if (!isfinite(v)) return v;
  double f = floor(v);
  double d = v - f; /* exact for doubles */
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return fmod(f, 2.0) == 0 ? f : f + 1;
}

double rt_interp_load_f(const rt_tensor_t *t, int64_t i) {
  const void *p = (const char *)rt_tensor_data(t);
  switch (t->dtype.code) {
    case kDLFloat:
      switch (t->dtype.bits) {
        case 16: return rt_f16_to_f32(((const uint16_t *)p)[i]);
        case 32: return ((const float *)p)[i];
        default: return ((const double *)p)[i];
      }
    case kDLBfloat: return rt_bf16_to_f32(((const uint16_t *)p)[i]);
    case kDLUInt:
      switch (t->dtype.bits) {
        case 8: return ((const uint8_t *)p)[i];
        case 16: return ((const uint16_t *)p)[i];
        case 32: return ((const uint32_t *)p)[i];
        default: return (double)((const uint64_t *)p)[i];
      }
    case kDLBool: return ((const uint8_t *)p)[i] != 0;
    default:
      switch (t->dtype.bits) {
        case 8: return ((const int8_t *)p)[i];
        case 16: return ((const int16_t *)p)[i];
        case 32: return ((const int32_t *)p)[i];
        default: return (double)((const int64_t *)p)[i];
      }
  }
}

int64_t rt_interp_load_i(const rt_tensor_t *t, int64_t i) {
  const void *p = (const char *)rt_tensor_data(t);
  switch (t->dtype.code) {
    case kDLFloat:
    case kDLBfloat: return rt_interp_sat_i64(rt_interp_load_f(t, i));
    case kDLUInt:
      switch (t->dtype.bits) {
        case 8: return ((const uint8_t *)p)[i];
        case 16: return ((const uint16_t *)p)[i];
        case 32: return ((const uint32_t *)p)[i];
        default: {
          uint64_t u = ((const uint64_t *)p)[i];
          int64_t s;
          memcpy(&s, &u, sizeof s); /* bit pattern, no conversion UB */
          return s;
        }
      }
    case kDLBool: return ((const uint8_t *)p)[i] != 0;
    default:
      switch (t->dtype.bits) {
        case 8: return ((const int8_t *)p)[i];
        case 16: return ((const int16_t *)p)[i];
        case 32: return ((const int32_t *)p)[i];
        default: return ((const int64_t *)p)[i];
      }
  }
}

/* Low `bits` bits of u as a two's-complement signed value, without the
 * implementation-defined conversion of out-of-range values to signed. */
static int64_t wrap_signed(uint64_t u, int bits) {
  if (bits < 64) {
    uint64_t mask = (UINT64_C(1) << bits) - 1;
    uint64_t sign = UINT64_C(1) << (bits - 1);
    u &= mask;
    if (u & sign) return -(int64_t)(mask - u) - 1;
    return (int64_t)u;
  }
  if (u <= (uint64_t)INT64_MAX) return (int64_t)u;
  return -(int64_t)(UINT64_MAX - u) - 1;
}

int64_t rt_interp_u2s(uint64_t u) { return wrap_signed(u, 64); }

void rt_interp_store_i(rt_tensor_t *t, int64_t i, int64_t v) {
  void *p = rt_tensor_data(t);
  uint64_t u = (uint64_t)v; /* conversion to unsigned is modular: defined */
  switch (t->dtype.code) {
    case kDLFloat:
    case kDLBfloat: rt_interp_store_f(t, i, (double)v); return;
    case kDLBool: ((uint8_t *)p)[i] = v != 0; return;
    case kDLUInt:
      switch (t->dtype.bits) {
        case 8: ((uint8_t *)p)[i] = (uint8_t)u; return;
        case 16: ((uint16_t *)p)[i] = (uint16_t)u; return;
        case 32: ((uint32_t *)p)[i] = (uint32_t)u; return;
        default: ((uint64_t *)p)[i] = u; return;
      }
    default:
      switch (t->dtype.bits) {
        case 8: ((int8_t *)p)[i] = (int8_t)wrap_signed(u, 8); return;
        case 16: ((int16_t *)p)[i] = (int16_t)wrap_signed(u, 16); return;
        case 32: ((int32_t *)p)[i] = (int32_t)wrap_signed(u, 32); return;
        default: ((int64_t *)p)[i] = v; return;
      }
  }
}

void rt_interp_store_f(rt_tensor_t *t, int64_t i, double v) {
  void *p = rt_tensor_data(t);
  switch (t->dtype.code) {
    case kDLFloat:
      switch (t->dtype.bits) {
        case 16: ((uint16_t *)p)[i] = rt_f32_to_f16((float)v); return;
        case 32: ((float *)p)[i] = (float)v; return;
        default: ((double *)p)[i] = v; return;
      }
    case kDLBfloat: ((uint16_t *)p)[i] = rt_f32_to_bf16((float)v); return;
    case kDLBool: ((uint8_t *)p)[i] = v != 0; return;
    case kDLUInt: {
      uint64_t u = rt_interp_sat_u64(v);
      int bits = t->dtype.bits;
      if (bits < 64 && u > (UINT64_C(1) << bits) - 1) u = (UINT64_C(1) << bits) - 1;
      switch (bits) {
        case 8: ((uint8_t *)p)[i] = (uint8_t)u; return;
        case 16: ((uint16_t *)p)[i] = (uint16_t)u; return;
        case 32: ((uint32_t *)p)[i] = (uint32_t)u; return;
        default: ((uint64_t *)p)[i] = u; return;
      }
    }
    default: {
      int64_t s = rt_interp_sat_i64(v);
      int bits = t->dtype.bits;
      if (bits < 64) {
        int64_t hi = (INT64_C(1) << (bits - 1)) - 1;
        int64_t lo = -hi - 1;
        s = s > hi ? hi : s < lo ? lo : s;
      }
      rt_interp_store_i(t, i, s);
      return;
    }
  }
}

bool rt_interp_truthy(const rt_tensor_t *t, int64_t i) {
  if (rt_interp_class(t->dtype) == RT_INTERP_FLOAT) return rt_interp_load_f(t, i) != 0;
  return rt_interp_load_i(t, i) != 0;
}

void rt_interp_convert(const rt_tensor_t *src, int64_t si, rt_tensor_t *dst,
                       int64_t di) {
  switch (rt_interp_class(src->dtype)) {
    case RT_INTERP_FLOAT: rt_interp_store_f(dst, di, rt_interp_load_f(src, si)); return;
    case RT_INTERP_UINT:
      if (src->dtype.bits == 64 && rt_interp_class(dst->dtype) == RT_INTERP_FLOAT) {
        rt_interp_store_f(dst, di, rt_interp_load_f(src, si));
        return;
      }
      rt_interp_store_i(dst, di, rt_interp_load_i(src, si));
      return;
    default: rt_interp_store_i(dst, di, rt_interp_load_i(src, si)); return;
  }
}

void rt_interp_copy_elem(const rt_tensor_t *src, int64_t si, rt_tensor_t *dst,
                         int64_t di) {
  size_t esz = rt_dtype_size(src->dtype);
  memcpy((char *)rt_tensor_data(dst) + (size_t)di * esz,
         (const char *)rt_tensor_data(src) + (size_t)si * esz, esz);
}

void rt_interp_strides(int32_t rank, const int64_t *shape, int64_t *out_strides) {
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    out_strides[d] = s;
    s *= shape[d];
  }
}

void rt_interp_unravel(int64_t flat, int32_t rank, const int64_t *shape,
                       int64_t *out_index) {
  for (int32_t d = rank - 1; d >= 0; --d) {
    if (shape[d] == 0) {
      out_index[d] = 0;
      continue;
    }
    out_index[d] = flat % shape[d];
    flat /= shape[d];
  }
}

int64_t rt_interp_bcast_index(int32_t out_rank, const int64_t *out_index,
                              int32_t rank, const int64_t *shape) {
  int64_t flat = 0;
  for (int32_t d = 0; d < rank; ++d) {
    int64_t o = out_index[out_rank - rank + d];
    flat = flat * shape[d] + (shape[d] == 1 ? 0 : o);
  }
  return flat;
}

rt_status_t rt_interp_axis(const rt_interp_call_t *call, int64_t axis,
                           int32_t rank, int32_t *out_axis) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT,
                           "axis %lld is out of range for rank %d",
                           (long long)axis, rank);
  }
  *out_axis = (int32_t)a;
  return RT_OK;
}

rt_status_t rt_interp_check_shape(const rt_interp_call_t *call,
                                  const rt_tensor_t *t, int32_t rank,
                                  const int64_t *shape) {
  bool ok = t->rank == rank;
  for (int32_t d = 0; ok && d < rank; ++d) ok = t->shape[d] == shape[d];
  if (!ok) {
    return RT_INTERP_ERROR(call, INTERNAL,
                           "output shape disagrees with the kernel's (rank %d "
                           "vs %d, or a dimension)", t->rank, rank);
  }
  return RT_OK;
}

rt_status_t rt_interp_layout(const rt_interp_call_t *call, const char *attr,
                             const char *layout, const char *letters,
                             const rt_tensor_t *t, int64_t *out_stride,
                             int64_t *out_extent) {
  size_t n = strlen(letters);
  size_t len = strlen(layout);
  for (size_t k = 0; k < n; ++k) {
    out_stride[k] = 0;
    out_extent[k] = 1;
  }
  if ((int64_t)len != t->rank) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT,
                           "%s \"%s\" does not fit a rank-%d tensor", attr,
                           layout, t->rank);
  }
  int64_t strides[RT_TENSOR_MAX_RANK];
  rt_interp_strides(t->rank, t->shape, strides);
  bool seen[26] = {false};
  for (size_t d = 0; d < len; ++d) {
    const char *hit = strchr(letters, layout[d]);
    if (layout[d] == '\0' || !hit || seen[layout[d] - 'A']) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT,
                             "%s \"%s\" is not supported (expected a "
                             "permutation of %s)", attr, layout, letters);
    }
    seen[layout[d] - 'A'] = true;
    out_stride[hit - letters] = strides[d];
    out_extent[hit - letters] = t->shape[d];
  }
  return RT_OK;
}

rt_status_t rt_interp_plan_status(const rt_interp_call_t *call, rt_status_t status) {
  if (status == RT_OK) return RT_OK;
  rt_status_t st = rt_status_create(rt_status_code(status), __FILE__, __LINE__, "%s: %s",
                                    call->op->name, rt_status_message(status));
  rt_status_free(status);
  return st;
}

void rt_interp_nchw_view(const rt_tensor_t *t, const int32_t *pos, int32_t nsp, int64_t s[4],
                         int64_t e[4]) {
  int64_t rs[RT_TENSOR_MAX_RANK];
  rt_interp_strides(t->rank, t->shape, rs);
  s[2] = 0;
  e[2] = 1;
  for (int32_t k = 0; k < 2 + nsp; ++k) {
    const int32_t letter = k < 2 ? k : 4 - nsp + (k - 2);
    s[letter] = rs[pos[k]];
    e[letter] = t->shape[pos[k]];
  }
}

/* ---- spans ----------------------------------------------------------------
 * The element conversions above over a run of elements: the dtype switch
 * runs once per span and each case is a plain loop, so whole-tensor kernels
 * pay one dispatch per tensor. Each case converts exactly as the
 * per-element function does (kernels_impl.h). */

void rt_interp_load_span_f(const rt_tensor_t *t, int64_t start, int64_t n, double *out) {
  if (n <= 0) return; /* an empty tensor may have no data */
  const char *base = rt_tensor_data(t);
  const void *p = base + (size_t)start * rt_dtype_size(t->dtype);
  switch (t->dtype.code) {
    case kDLFloat:
      if (t->dtype.bits == 32) {
        const float *f = p;
        for (int64_t i = 0; i < n; ++i) out[i] = f[i];
      } else if (t->dtype.bits == 64) {
        memcpy(out, p, (size_t)n * sizeof(double));
      } else {
        const uint16_t *h = p;
        for (int64_t i = 0; i < n; ++i) out[i] = rt_f16_to_f32(h[i]);
      }
      return;
    case kDLBfloat: {
      const uint16_t *h = p;
      for (int64_t i = 0; i < n; ++i) out[i] = rt_bf16_to_f32(h[i]);
      return;
    }
    case kDLUInt:
      switch (t->dtype.bits) {
        case 8: for (int64_t i = 0; i < n; ++i) out[i] = ((const uint8_t *)p)[i]; return;
        case 16: for (int64_t i = 0; i < n; ++i) out[i] = ((const uint16_t *)p)[i]; return;
        case 32: for (int64_t i = 0; i < n; ++i) out[i] = ((const uint32_t *)p)[i]; return;
        default: for (int64_t i = 0; i < n; ++i) out[i] = (double)((const uint64_t *)p)[i]; return;
      }
    case kDLBool:
      for (int64_t i = 0; i < n; ++i) out[i] = ((const uint8_t *)p)[i] != 0;
      return;
    default:
      switch (t->dtype.bits) {
        case 8: for (int64_t i = 0; i < n; ++i) out[i] = ((const int8_t *)p)[i]; return;
        case 16: for (int64_t i = 0; i < n; ++i) out[i] = ((const int16_t *)p)[i]; return;
        case 32: for (int64_t i = 0; i < n; ++i) out[i] = ((const int32_t *)p)[i]; return;
        default: for (int64_t i = 0; i < n; ++i) out[i] = (double)((const int64_t *)p)[i]; return;
      }
  }
}

void rt_interp_load_span_i(const rt_tensor_t *t, int64_t start, int64_t n, int64_t *out) {
  if (n <= 0) return; /* an empty tensor may have no data */
  const char *base = rt_tensor_data(t);
  const void *p = base + (size_t)start * rt_dtype_size(t->dtype);
  switch (t->dtype.code) {
    case kDLInt:
      switch (t->dtype.bits) {
        case 8: for (int64_t i = 0; i < n; ++i) out[i] = ((const int8_t *)p)[i]; return;
        case 16: for (int64_t i = 0; i < n; ++i) out[i] = ((const int16_t *)p)[i]; return;
        case 32: for (int64_t i = 0; i < n; ++i) out[i] = ((const int32_t *)p)[i]; return;
        default: memcpy(out, p, (size_t)n * sizeof(int64_t)); return;
      }
    case kDLUInt:
      switch (t->dtype.bits) {
        case 8: for (int64_t i = 0; i < n; ++i) out[i] = ((const uint8_t *)p)[i]; return;
        case 16: for (int64_t i = 0; i < n; ++i) out[i] = ((const uint16_t *)p)[i]; return;
        case 32: for (int64_t i = 0; i < n; ++i) out[i] = ((const uint32_t *)p)[i]; return;
        default: memcpy(out, p, (size_t)n * sizeof(int64_t)); return; /* the bit pattern */
      }
    case kDLBool:
      for (int64_t i = 0; i < n; ++i) out[i] = ((const uint8_t *)p)[i] != 0;
      return;
    default: /* floats saturate (rt_interp_sat_i64) */
      if (t->dtype.code == kDLFloat && t->dtype.bits == 32) {
        const float *f = p;
        for (int64_t i = 0; i < n; ++i) out[i] = rt_interp_sat_i64(f[i]);
        return;
      }
      for (int64_t i = 0; i < n; ++i) out[i] = rt_interp_load_i(t, start + i);
      return;
  }
}

void rt_interp_store_span_f(rt_tensor_t *t, int64_t start, int64_t n, const double *v) {
  if (n <= 0) return; /* an empty tensor may have no data */
  char *base = rt_tensor_data(t);
  void *p = base + (size_t)start * rt_dtype_size(t->dtype);
  switch (t->dtype.code) {
    case kDLFloat:
      if (t->dtype.bits == 32) {
        float *f = p;
        for (int64_t i = 0; i < n; ++i) f[i] = (float)v[i];
      } else if (t->dtype.bits == 64) {
        memcpy(p, v, (size_t)n * sizeof(double));
      } else {
        uint16_t *h = p;
        for (int64_t i = 0; i < n; ++i) h[i] = rt_f32_to_f16((float)v[i]);
      }
      return;
    case kDLBfloat: {
      uint16_t *h = p;
      for (int64_t i = 0; i < n; ++i) h[i] = rt_f32_to_bf16((float)v[i]);
      return;
    }
    default:
      /* Integers and bool (rare as a float kernel's output): saturated to
       * the dtype's range element by element, as rt_interp_store_f does. */
      for (int64_t i = 0; i < n; ++i) rt_interp_store_f(t, start + i, v[i]);
      return;
  }
}

void rt_interp_store_span_i(rt_tensor_t *t, int64_t start, int64_t n, const int64_t *v) {
  if (n <= 0) return; /* an empty tensor may have no data */
  char *base = rt_tensor_data(t);
  void *p = base + (size_t)start * rt_dtype_size(t->dtype);
  switch (t->dtype.code) {
    case kDLInt:
    case kDLUInt:
      /* Keep the low `bits` bits: conversion to an unsigned type is modular
       * in C, and the signed types share their unsigned twin's bits. */
      switch (t->dtype.bits) {
        case 8: for (int64_t i = 0; i < n; ++i) ((uint8_t *)p)[i] = (uint8_t)(uint64_t)v[i]; return;
        case 16: for (int64_t i = 0; i < n; ++i) ((uint16_t *)p)[i] = (uint16_t)(uint64_t)v[i]; return;
        case 32: for (int64_t i = 0; i < n; ++i) ((uint32_t *)p)[i] = (uint32_t)(uint64_t)v[i]; return;
        default: memcpy(p, v, (size_t)n * sizeof(int64_t)); return;
      }
    case kDLBool:
      for (int64_t i = 0; i < n; ++i) ((uint8_t *)p)[i] = v[i] != 0;
      return;
    default: /* floats: int64 -> double -> the float type, as rt_interp_store_i */
      if (t->dtype.code == kDLFloat && t->dtype.bits == 32) {
        float *f = p;
        for (int64_t i = 0; i < n; ++i) f[i] = (float)(double)v[i];
        return;
      }
      for (int64_t i = 0; i < n; ++i) rt_interp_store_i(t, start + i, v[i]);
      return;
  }
}

rt_status_t rt_interp_scratch(const rt_interp_call_t *call, int64_t n, size_t size, bool zero,
                              void **out) {
  size_t bytes = 0;
  RT_RETURN_IF_ERROR(rt_size_mul((size_t)(n > 0 ? n : 1), size, &bytes));
  return rt_allocator_malloc(call->allocator, bytes, 64, zero, out);
}

void rt_interp_scratch_free(const rt_interp_call_t *call, void *p) {
  rt_allocator_free(call->allocator, p);
}

rt_status_t rt_interp_load_all_f(const rt_interp_call_t *call, const rt_tensor_t *t,
                                 double **out) {
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_interp_scratch(call, t->numel, sizeof(double), false, &p));
  rt_interp_load_span_f(t, 0, t->numel, p);
  *out = p;
  return RT_OK;
}

rt_status_t rt_interp_load_all_i(const rt_interp_call_t *call, const rt_tensor_t *t,
                                 int64_t **out) {
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_interp_scratch(call, t->numel, sizeof(int64_t), false, &p));
  rt_interp_load_span_i(t, 0, t->numel, p);
  *out = p;
  return RT_OK;
}

void rt_interp_bcast_strides(int32_t out_rank, const int64_t *out_shape, int32_t rank,
                             const int64_t *shape, int64_t *out_strides) {
  int64_t s = 1;
  for (int32_t d = out_rank - 1; d >= 0; --d) {
    const int32_t k = d - (out_rank - rank); /* the input's dim, right-aligned */
    if (k < 0) {
      out_strides[d] = 0;
      continue;
    }
    out_strides[d] = shape[k] == 1 ? 0 : s;
    s *= shape[k];
  }
}

int64_t rt_interp_rows(int32_t rank, const int64_t *shape, int64_t numel, int64_t *out_len) {
  *out_len = rank > 0 ? shape[rank - 1] : 1;
  return *out_len > 0 ? numel / *out_len : 0;
}

int64_t rt_interp_row_start(int64_t row, int32_t rank, const int64_t *shape,
                            const int64_t *strides) {
  int64_t idx[RT_TENSOR_MAX_RANK];
  int64_t flat = 0;
  if (rank <= 1) return 0;
  rt_interp_unravel(row, rank - 1, shape, idx);
  for (int32_t d = 0; d < rank - 1; ++d) flat += idx[d] * strides[d];
  return flat;
}

void rt_interp_copy_strided(void *dst, const void *src, int64_t stride, int64_t n, size_t esz) {
  /* One switch on the element size per run; the cases are the same copy. */
  switch (esz) {
    case 1:
      for (int64_t i = 0; i < n; ++i) ((uint8_t *)dst)[i] = ((const uint8_t *)src)[i * stride];
      return;
    case 2:
      for (int64_t i = 0; i < n; ++i) ((uint16_t *)dst)[i] = ((const uint16_t *)src)[i * stride];
      return;
    case 4:
      for (int64_t i = 0; i < n; ++i) ((uint32_t *)dst)[i] = ((const uint32_t *)src)[i * stride];
      return;
    case 8:
      for (int64_t i = 0; i < n; ++i) ((uint64_t *)dst)[i] = ((const uint64_t *)src)[i * stride];
      return;
    default:
      for (int64_t i = 0; i < n; ++i) {
        memcpy((char *)dst + (size_t)i * esz, (const char *)src + i * stride * (int64_t)esz, esz);
      }
      return;
  }
}

void rt_interp_fill_from_first(rt_tensor_t *t) {
  const size_t esz = rt_dtype_size(t->dtype);
  char *p = rt_tensor_data(t);
  for (int64_t i = 1; i < t->numel; ++i) memcpy(p + (size_t)i * esz, p, esz);
}

rt_status_t rt_interp_deliver(const rt_interp_call_t *call, int32_t i, rt_tensor_t *r,
                              const char *what) {
  rt_tensor_t *o = call->outs[i];
  if (!o) {
    call->outs[i] = r;
    return RT_OK;
  }
  rt_status_t st = RT_OK;
  if (!rt_dtype_equal(rt_tensor_dtype(o), rt_tensor_dtype(r)) || rt_tensor_rank(o) != rt_tensor_rank(r) ||
      memcmp(rt_tensor_shape(o), rt_tensor_shape(r), sizeof(int64_t) * (size_t)rt_tensor_rank(r)) != 0) {
    st = RT_INTERP_ERROR(call, INTERNAL, "%s", what);
  } else {
    memcpy(rt_tensor_data(o), rt_tensor_data(r), rt_tensor_nbytes(r));
  }
  rt_tensor_release(r);
  return st;
}
