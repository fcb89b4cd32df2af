/* The machine's float32 FMA peak, measured by its own loop: 12 independent
 * chains of vfmadd231ps on ymm registers (AVX2 + FMA; this file alone is
 * compiled with -mavx2 -mfma), enough independent work to cover the FMA
 * latency (4 cycles) on both FMA pipes, no memory traffic; and, when the
 * build has fma_peak512.c (RT_BENCH_HAVE_FMA512) and the CPU reports
 * avx512f, 16 chains on zmm registers. One thread, or one per requested
 * thread started together; the figure is
 * chains * lanes * 2 flops * iterations / wall time. The peak is the larger
 * of the two widths (on an AVX-512 core with two 512-bit FMA pipes the zmm
 * figure is about twice the ymm one). */
#include "bench/fma_peak.h"

#include <immintrin.h>
#include <pthread.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
  long iters;
  int32_t bits;
  float sink;
} job_t;

static void *run(void *arg) {
  job_t *j = arg;
#ifdef RT_BENCH_HAVE_FMA512
  if (j->bits == 512) {
    j->sink = rt_bench_fma_chains512(j->iters);
    return NULL;
  }
#endif
  /* Distinct starting values: equal chains would be merged by the
   * compiler into one (latency-bound) chain. */
  __m256 a0 = _mm256_set1_ps(1.0f), a1 = _mm256_set1_ps(1.1f), a2 = _mm256_set1_ps(1.2f);
  __m256 a3 = _mm256_set1_ps(1.3f), a4 = _mm256_set1_ps(1.4f), a5 = _mm256_set1_ps(1.5f);
  __m256 a6 = _mm256_set1_ps(1.6f), a7 = _mm256_set1_ps(1.7f), a8 = _mm256_set1_ps(1.8f);
  __m256 a9 = _mm256_set1_ps(1.9f), a10 = _mm256_set1_ps(2.0f), a11 = _mm256_set1_ps(2.1f);
  const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < j->iters; ++i) {
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
  j->sink = out[0];
  return NULL;
}

bool rt_bench_fma_has512(void) {
#ifdef RT_BENCH_HAVE_FMA512
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") != 0;
#else
  return false;
#endif
}

double rt_bench_fma_peak_bits(int32_t bits, int32_t threads, long iters) {
  enum { MAX = 64 };
  if (bits == 512 && !rt_bench_fma_has512()) return 0;
  if (bits != 512) bits = 256;
  if (threads < 1) threads = 1;
  if (threads > MAX) threads = MAX;
  pthread_t th[MAX];
  job_t jobs[MAX];
  double t0 = now_s();
  int32_t started = 0;
  for (int32_t i = 1; i < threads; ++i) {
    jobs[i].iters = iters;
    jobs[i].bits = bits;
    if (pthread_create(&th[i], NULL, run, &jobs[i]) == 0) started = i;
    else break;
  }
  jobs[0].iters = iters;
  jobs[0].bits = bits;
  run(&jobs[0]);
  for (int32_t i = 1; i <= started; ++i) pthread_join(th[i], NULL);
  double t = now_s() - t0;
  const double flops_per_iter = bits == 512 ? 16.0 * 16.0 * 2.0 : 12.0 * 8.0 * 2.0;
  return (double)(started + 1) * (double)iters * flops_per_iter / t / 1e9;
}

double rt_bench_fma_peak(int32_t threads, long iters) {
  double p256 = rt_bench_fma_peak_bits(256, threads, iters);
  double p512 = rt_bench_fma_peak_bits(512, threads, iters);
  return p512 > p256 ? p512 : p256;
}
