/* Element access, summaries and deterministic random fill for tensors, for
 * the command line, the REPL and tests: reading any dtype as double
 * (strided tensors included), min/max/mean with NaN/inf counts, and a
 * splitmix64 generator so a seed means the same data everywhere. */
#include <math.h>
#include <string.h>

#include "runtime/assert.h"
#include "runtime/half.h"
#include "runtime/tensor_impl.h"

/* Byte offset of row-major element `index`. */
static size_t element_offset(const rt_tensor_t *t, int64_t index) {
  size_t esize = rt_dtype_size(t->dtype);
  if (!t->strides) return (size_t)index * esize;
  int64_t off = 0;
  for (int32_t d = t->rank - 1; d >= 0; --d) {
    int64_t n = t->shape[d];
    int64_t i = n ? index % n : 0;
    index = n ? index / n : 0;
    off += i * t->strides[d];
  }
  return (size_t)off * esize;
}

static double load(rt_dtype_t dt, const uint8_t *p) {
  switch (dt.code) {
    case kDLBool: return *p ? 1.0 : 0.0;
    case kDLInt:
      switch (dt.bits) {
        case 8: { int8_t v; memcpy(&v, p, 1); return v; }
        case 16: { int16_t v; memcpy(&v, p, 2); return v; }
        case 32: { int32_t v; memcpy(&v, p, 4); return v; }
        default: { int64_t v; memcpy(&v, p, 8); return (double)v; }
      }
    case kDLUInt:
      switch (dt.bits) {
        case 1:
        case 8: return *p;
        case 16: { uint16_t v; memcpy(&v, p, 2); return v; }
        case 32: { uint32_t v; memcpy(&v, p, 4); return v; }
        default: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
      }
    case kDLFloat:
      switch (dt.bits) {
        case 16: { uint16_t v; memcpy(&v, p, 2); return rt_f16_to_f32(v); }
        case 32: { float v; memcpy(&v, p, 4); return v; }
        default: { double v; memcpy(&v, p, 8); return v; }
      }
    case kDLBfloat: { uint16_t v; memcpy(&v, p, 2); return rt_bf16_to_f32(v); }
    default: return 0.0;
  }
}

double rt_tensor_get_f64(const rt_tensor_t *t, int64_t index) {
  RT_ASSERT(index >= 0 && index < t->numel);
  if (index < 0 || index >= t->numel) return NAN; /* release builds: outside the contract */
  const uint8_t *base = (const uint8_t *)t->data + t->byte_offset;
  return load(t->dtype, base + element_offset(t, index));
}

void rt_tensor_stats(const rt_tensor_t *t, rt_tensor_stats_t *out) {
  memset(out, 0, sizeof *out);
  out->count = t->numel;
  int64_t finite = 0;
  double sum = 0.0;
  for (int64_t i = 0; i < t->numel; ++i) {
    double v = rt_tensor_get_f64(t, i);
    if (isnan(v)) {
      out->nan_count++;
      continue;
    }
    if (isinf(v)) {
      out->inf_count++;
      continue;
    }
    if (finite == 0 || v < out->min) out->min = v;
    if (finite == 0 || v > out->max) out->max = v;
    sum += v;
    finite++;
  }
  out->mean = finite ? sum / (double)finite : 0.0;
}

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void rt_tensor_fill_random(rt_tensor_t *t, uint64_t seed) {
  uint64_t state = seed;
  uint8_t *base = (uint8_t *)t->data + t->byte_offset;
  rt_dtype_t dt = t->dtype;
  size_t esize = rt_dtype_size(dt);
  if (dt.lanes != 1 || esize > 8) return; /* vector dtypes: left as they are */
  for (int64_t i = 0; i < t->numel; ++i) {
    uint64_t r = splitmix64(&state);
    uint8_t *p = base + element_offset(t, i);
    double u = (double)(r >> 11) * (1.0 / 9007199254740992.0); /* [0, 1) */
    switch (dt.code) {
      case kDLBool: *p = (uint8_t)(r & 1u); break;
      case kDLInt: {
        int64_t v = (int64_t)(r % 16u) - 8;
        memcpy(p, &v, esize); /* little-endian: the low bytes, two's complement */
        break;
      }
      case kDLUInt: {
        uint64_t v = r % 16u;
        memcpy(p, &v, esize);
        break;
      }
      case kDLFloat:
        if (dt.bits == 16) {
          uint16_t h = rt_f32_to_f16((float)(2.0 * u - 1.0));
          memcpy(p, &h, 2);
        } else if (dt.bits == 32) {
          float f = (float)(2.0 * u - 1.0);
          memcpy(p, &f, 4);
        } else {
          double d = 2.0 * u - 1.0;
          memcpy(p, &d, 8);
        }
        break;
      case kDLBfloat: {
        uint16_t b = rt_f32_to_bf16((float)(2.0 * u - 1.0));
        memcpy(p, &b, 2);
        break;
      }
      default: break;
    }
  }
}
