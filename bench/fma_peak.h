/* The FMA peak probe of bench_kernels (fma_peak.c, built with -mavx2
 * -mfma). */
#ifndef RT_BENCH_FMA_PEAK_H_
#define RT_BENCH_FMA_PEAK_H_

#include <stdint.h>

/* GFLOP/s of `threads` threads each running `iters` iterations of 12
 * independent 8-wide FMA chains. */
double rt_bench_fma_peak(int32_t threads, long iters);

#endif
