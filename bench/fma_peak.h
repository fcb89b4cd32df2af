/* The FMA peak probe of bench_kernels: 256-bit ymm chains (fma_peak.c,
 * built with -mavx2 -mfma) and, where the compiler and the CPU support
 * AVX-512F, 512-bit zmm chains (fma_peak512.c, built with -mavx512f). */
#ifndef RT_BENCH_FMA_PEAK_H_
#define RT_BENCH_FMA_PEAK_H_

#include <stdbool.h>
#include <stdint.h>

/* GFLOP/s of `threads` threads each running `iters` iterations of
 * independent FMA chains `bits` wide: 256 (12 ymm chains) or 512 (16 zmm
 * chains). 0 for 512 when the build or the CPU lacks AVX-512F. */
double rt_bench_fma_peak_bits(int32_t bits, int32_t threads, long iters);

/* True when the 512-bit loop was built and the CPU runs it. */
bool rt_bench_fma_has512(void);

/* The machine's FMA peak: the larger of the 256- and 512-bit figures. */
double rt_bench_fma_peak(int32_t threads, long iters);

/* fma_peak512.c: `iters` iterations of 16 zmm chains; returns a sink. */
float rt_bench_fma_chains512(long iters);

#endif
