/* The 512-bit half of the FMA peak probe (fma_peak.c): 16 independent
 * chains of vfmadd231ps on zmm registers. This file alone is compiled with
 * -mavx512f (when the compiler accepts it, tools/meson.build) and is only
 * called after __builtin_cpu_supports("avx512f"), so the rest of the probe
 * runs on any x86-64. 16 chains cover the 4-cycle FMA latency on
 * two 512-bit FMA pipes with room to spare (32 zmm registers). */
#include "tools/fma_peak.h"

#include <immintrin.h>

float rt_bench_fma_chains512(long iters) {
  __m512 a[16];
  for (int i = 0; i < 16; ++i) a[i] = _mm512_set1_ps(1.0f + 0.05f * (float)i);
  const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  for (long it = 0; it < iters; ++it) {
    a[0] = _mm512_fmadd_ps(a[0], x, y);
    a[1] = _mm512_fmadd_ps(a[1], x, y);
    a[2] = _mm512_fmadd_ps(a[2], x, y);
    a[3] = _mm512_fmadd_ps(a[3], x, y);
    a[4] = _mm512_fmadd_ps(a[4], x, y);
    a[5] = _mm512_fmadd_ps(a[5], x, y);
    a[6] = _mm512_fmadd_ps(a[6], x, y);
    a[7] = _mm512_fmadd_ps(a[7], x, y);
    a[8] = _mm512_fmadd_ps(a[8], x, y);
    a[9] = _mm512_fmadd_ps(a[9], x, y);
    a[10] = _mm512_fmadd_ps(a[10], x, y);
    a[11] = _mm512_fmadd_ps(a[11], x, y);
    a[12] = _mm512_fmadd_ps(a[12], x, y);
    a[13] = _mm512_fmadd_ps(a[13], x, y);
    a[14] = _mm512_fmadd_ps(a[14], x, y);
    a[15] = _mm512_fmadd_ps(a[15], x, y);
  }
  __m512 s = a[0];
  for (int i = 1; i < 16; ++i) s = _mm512_add_ps(s, a[i]);
  return _mm512_reduce_add_ps(s);
}
