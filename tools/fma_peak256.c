/* The 256-bit half of the FMA peak probe (fma_peak.c): 12 independent
 * chains of vfmadd231ps on ymm registers, enough to cover the FMA latency
 * (4 cycles) on two FMA pipes, no memory traffic. This file alone is
 * compiled with -mavx2 -mfma (tools/meson.build) and is only called after
 * __builtin_cpu_supports says the CPU has both. */
#include "tools/fma_peak.h"

#include <immintrin.h>

float rt_bench_fma_chains256(long iters) {
  /* Distinct starting values: equal chains would be merged by the
   * compiler into one (latency-bound) chain. */
  __m256 a0 = _mm256_set1_ps(1.0f), a1 = _mm256_set1_ps(1.1f), a2 = _mm256_set1_ps(1.2f);
  __m256 a3 = _mm256_set1_ps(1.3f), a4 = _mm256_set1_ps(1.4f), a5 = _mm256_set1_ps(1.5f);
  __m256 a6 = _mm256_set1_ps(1.6f), a7 = _mm256_set1_ps(1.7f), a8 = _mm256_set1_ps(1.8f);
  __m256 a9 = _mm256_set1_ps(1.9f), a10 = _mm256_set1_ps(2.0f), a11 = _mm256_set1_ps(2.1f);
  const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < iters; ++i) {
    a0 = _mm256_fmadd_ps(a0, x, y);
    a1 = _mm256_fmadd_ps(a1, x, y);
    a2 = _mm256_fmadd_ps(a2, x, y);
    a3 = _mm256_fmadd_ps(a3, x, y);
    a4 = _mm256_fmadd_ps(a4, x, y);
    a5 = _mm256_fmadd_ps(a5, x, y);
    a6 = _mm256_fmadd_ps(a6, x, y);
    a7 = _mm256_fmadd_ps(a7, x, y);
    a8 = _mm256_fmadd_ps(a8, x, y);
    a9 = _mm256_fmadd_ps(a9, x, y);
    a10 = _mm256_fmadd_ps(a10, x, y);
    a11 = _mm256_fmadd_ps(a11, x, y);
  }
  __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                           _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0];
}
