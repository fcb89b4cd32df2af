/* fma_peak: prints the machine's float32 FMA peak (tools/fma_peak.h) in
 * GFLOP/s, per width (256-bit ymm: the 8-lane templates; 512-bit zmm: the
 * 16-lane ones, when the CPU has AVX-512F) on 1 and on N threads, the best
 * of 3 runs each, as one JSON object (bench/models reads it):
 *   fma_peak [N]   (N: threads of the second figure, default 2) */
#include <stdio.h>
#include <stdlib.h>

#include "tools/fma_peak.h"

static double best_of_3(int32_t bits, int32_t threads) {
  double best = 0;
  for (int32_t i = 0; i < 3; ++i) {
    double g = rt_bench_fma_peak_bits(bits, threads, bits == 512 ? 10000000L : 20000000L);
    if (g > best) best = g;
  }
  return best;
}

int main(int argc, char **argv) {
  int32_t n = argc > 1 ? atoi(argv[1]) : 2;
  if (n < 1 || n > 64) {
    fprintf(stderr, "fma_peak: threads must be 1..64, got '%s'\n", argv[1]);
    return 2;
  }
  printf("{\"threads\": %d, \"ymm_1t\": %.2f, \"ymm_nt\": %.2f, \"zmm_1t\": %.2f, \"zmm_nt\": %.2f}\n",
         (int)n, best_of_3(256, 1), best_of_3(256, n), best_of_3(512, 1), best_of_3(512, n));
  return 0;
}
