/* The FMA peak probe of `relayrt run --profile` and the bench programs:
 * 256-bit ymm chains (fma_peak256.c, built with -mavx2 -mfma, run only on a
 * CPU with AVX2 and FMA) and, where the compiler and the CPU support
 * AVX-512F, 512-bit zmm chains (fma_peak512.c, built with -mavx512f); the
 * threads and the timing are in fma_peak.c, built for any x86-64. */
#ifndef RT_BENCH_FMA_PEAK_H_
#define RT_BENCH_FMA_PEAK_H_

#include <stdbool.h>
#include <stdint.h>

/* GFLOP/s of `threads` threads each running `iters` iterations of
 * independent FMA chains `bits` wide: 256 (12 ymm chains) or 512 (16 zmm
 * chains). 0 for 512 when the build or the CPU lacks AVX-512F. */
double rt_bench_fma_peak_bits(int32_t bits, int32_t threads, long iters);

/* True when the CPU runs the 256-bit loop (AVX2 and FMA). */
bool rt_bench_fma_has256(void);

/* True when the 512-bit loop was built and the CPU runs it. */
bool rt_bench_fma_has512(void);

/* The machine's FMA peak: the larger of the 256- and 512-bit figures. */
double rt_bench_fma_peak(int32_t threads, long iters);

/* fma_peak256.c: `iters` iterations of 12 ymm chains; returns a sink. */
float rt_bench_fma_chains256(long iters);

/* fma_peak512.c: `iters` iterations of 16 zmm chains; returns a sink. */
float rt_bench_fma_chains512(long iters);

#endif
