/* The machine's float32 FMA peak, measured by its own loops: 12 independent
 * chains of vfmadd231ps on ymm registers (fma_peak256.c, run when the CPU
 * has AVX2 and FMA) and, when the build has fma_peak512.c
 * (RT_BENCH_HAVE_FMA512) and the CPU reports avx512f, 16 chains on zmm
 * registers. This file is compiled for any x86-64. One thread, or one per requested
 * thread started together; the figure is
 * chains * lanes * 2 flops * iterations / wall time. The peak is the larger
 * of the two widths (on an AVX-512 core with two 512-bit FMA pipes the zmm
 * figure is about twice the ymm one). */
#include "tools/fma_peak.h"

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
  j->sink = rt_bench_fma_chains256(j->iters);
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

bool rt_bench_fma_has256(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

double rt_bench_fma_peak_bits(int32_t bits, int32_t threads, long iters) {
  enum { MAX = 64 };
  if (bits == 512 && !rt_bench_fma_has512()) return 0;
  if (bits != 512 && !rt_bench_fma_has256()) return 0;
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
