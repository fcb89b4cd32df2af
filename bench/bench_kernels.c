/* bench_kernels: the speed figures the JIT is held to, in one run (floors:
 * dense >= 0.60 and 3x3 conv >= 0.50 of the 1-core FMA peak, the example
 * CNN's graph executor >= 20x the interpreter).
 *
 *   1. The FMA peak of this machine, measured by its own loops (fma_peak.c:
 *      ymm chains; fma_peak512.c: zmm chains where AVX-512F exists), on one
 *      core and on all cores; the ratios divide by the one at the JIT
 *      templates' width (16 lanes: zmm, 8 lanes: ymm; RELAYRT_JIT_TARGET=
 *      avx2 forces 8 lanes on an AVX-512 host).
 *   2. Kernel level (jit/jit.h): dense 512^3 and 1024^3 (the weight a
 *      parameter, packed at run time, and prepacked: "densepack", the
 *      nn.contrib_dense_pack the DensePack pass makes), ResNet-18's 3x3
 *      conv layers (direct, and by Winograd F(4x4, 3x3) and F(2x2, 3x3):
 *      "wino4", "wino2"), MobileNet-v2 / EfficientNet-B0 layers (depthwise
 *      3x3 and 5x5 at stride 1 and 2, 1x1 expand / project convolutions;
 *      the targets: depthwise >= 0.5, 3x3 conv >= 0.7), 1x1 layers with the
 *      epilogues the models fuse into them ("pwe": bias, ReLU6, residual,
 *      SiLU), the swapped-GEMM 1x1 layers with prepacked weights ("pwp":
 *      kernel_layout OIHW{16,32}o, the panels DensePack makes for the
 *      templates' lanes, as the "densepack" cases), ResNet-50's layers in
 *      the blocked layouts AlterOpLayout makes ("cb": NCHW{lanes}c,
 *      conv2d_NCHWc.direct), compiled in one module,
 *      each run single-threaded (a context without a pool) and on all cores
 *      (runtime/thread_pool.h behind ctx->parallel_for), as GFLOP/s and as a
 *      ratio of the matching peak (one core / all cores) measured in the
 *      same run. Best of several repetitions: the machine is shared.
 *   3. Model level (the public API): examples/cnn.relay under the graph
 *      executor vs the debug executor (the interpreter), and the cold
 *      compile (executor creation: passes + lowering + LLVM) of a ResNet
 *      basic block written below in Relay text, then its warm start from
 *      the disk kernel cache (a fresh temporary $RELAYRT_CACHE_DIR; the
 *      process-wide session is dropped in between, so nothing is shared in
 *      memory).
 *
 * The peak is measured before every kernel too and the best figure of the
 * whole run is the one the ratios divide by: on a shared machine a
 * momentarily slow peak would flatter the ratios.
 *
 * Usage: bench_kernels [REPS [FILTER]]   (default 5 repetitions). FILTER
 * keeps the kernel cases whose name contains it ("dense", "conv64") and
 * skips the model level. Not a test: it never fails on a slow figure; it
 * prints the floors next to the ratios. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "tools/fma_peak.h"
#include "ir/ir.h"
#include "jit/jit.h"
#include "rt/rt.h"
#include "runtime/kernel_services.h"

#ifndef RT_SOURCE_ROOT
#define RT_SOURCE_ROOT "."
#endif

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int check(rt_status_t st, const char *what) {
  if (!st) return 0;
  fprintf(stderr, "bench_kernels: %s: %s\n", what, rt_status_message(st));
  rt_status_free(st);
  return 1;
}

/* ---- kernels ------------------------------------------------------------------ */

typedef struct kcase_t {
  const char *name;
  const char *label;
  double gflop;
  bool floor_dense, floor_conv;
} kcase_t;

#define CONV3(c, hw) \
  "def @conv" #c "(%x: Tensor[(1, " #c ", " #hw ", " #hw "), float32], %w: Tensor[(" #c ", " #c \
  ", 3, 3), float32]) { nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=" #c             \
  ", kernel_size=[3, 3]) }\n"

/* The same layer by Winograd F(m x m, 3x3) (jit/templates/winograd.c) on
 * a transformed weight packed in panels of 16 output channels (alpha,
 * alpha, C/16, C, 16): what Conv2dWinograd makes of CONV3 (its rule,
 * passes/conv2d_winograd.c, was chosen from these figures); GFLOP/s
 * counted in the direct convolution's FLOPs. */
#define WINO(m, a, c, cb, hw) \
  "def @wino" #m "_" #c "(%x: Tensor[(1, " #c ", " #hw ", " #hw "), float32], %w: Tensor[(" #a ", " #a \
  ", " #cb ", " #c ", 16), float32]) { nn.contrib_conv2d_winograd_without_weight_transform(%x, %w, " \
  "tile_size=" #m ", padding=[1, 1, 1, 1], channels=" #c ", kernel_size=[3, 3]) }\n"

/* Depthwise: c channels of hw x hw, k x k kernel, stride s, padding p. */
#define DW(c, hw, k, s, p) \
  "def @dw" #k "s" #s "_" #c "_" #hw "(%x: Tensor[(1, " #c ", " #hw ", " #hw "), float32], %w: Tensor[(" #c \
  ", 1, " #k ", " #k "), float32]) { nn.conv2d(%x, %w, strides=[" #s ", " #s "], padding=[" #p ", " #p ", " #p \
  ", " #p "], groups=" #c ", channels=" #c ", kernel_size=[" #k ", " #k "]) }\n"

/* Pointwise (1x1): c -> o channels of hw x hw. */
#define PW(c, o, hw) \
  "def @pw_" #c "_" #o "_" #hw "(%x: Tensor[(1, " #c ", " #hw ", " #hw "), float32], %w: Tensor[(" #o ", " #c \
  ", 1, 1), float32]) { nn.conv2d(%x, %w, channels=" #o ", kernel_size=[1, 1]) }\n"

/* 1x1 at stride 2 (ResNet-50's projection shortcuts). */
#define PWS(c, o, hw) \
  "def @pws_" #c "_" #o "_" #hw "(%x: Tensor[(1, " #c ", " #hw ", " #hw "), float32], %w: Tensor[(" #o ", " #c \
  ", 1, 1), float32]) { nn.conv2d(%x, %w, strides=[2, 2], channels=" #o ", kernel_size=[1, 1]) }\n"

static const char kKernelText[] =
    "#[version = \"0.0.5\"]\n"
    "def @dense512(%x: Tensor[(512, 512), float32], %w: Tensor[(512, 512), float32]) { nn.dense(%x, %w) }\n"
    "def @dense1024(%x: Tensor[(1024, 1024), float32], %w: Tensor[(1024, 1024), float32]) { nn.dense(%x, %w) }\n"
    CONV3(64, 56) CONV3(128, 28) CONV3(256, 14) CONV3(512, 7)
    WINO(4, 6, 64, 4, 56) WINO(4, 6, 128, 8, 28) WINO(4, 6, 256, 16, 14) WINO(4, 6, 512, 32, 7)
    WINO(2, 4, 64, 4, 56) WINO(2, 4, 128, 8, 28) WINO(2, 4, 256, 16, 14) WINO(2, 4, 512, 32, 7)
    "def @dw32(%x: Tensor[(1, 32, 112, 112), float32], %w: Tensor[(32, 1, 3, 3), float32]) "
    "{ nn.conv2d(%x, %w, padding=[1, 1, 1, 1], groups=32, channels=32, kernel_size=[3, 3]) }\n";
/* MobileNet-v2 / EfficientNet-B0 layer shapes: depthwise 3x3 and 5x5 at
 * stride 1 and 2, 1x1 expand / project convolutions (a second string: C
 * compilers need only take 4095 characters in one literal; parsed as one
 * module with the first). */
static const char kKernelText2[] =
    DW(96, 112, 3, 2, 1) DW(144, 56, 3, 1, 1) DW(144, 56, 3, 2, 1) DW(384, 14, 3, 1, 1) DW(960, 7, 3, 1, 1)
    DW(240, 28, 5, 1, 2) DW(144, 56, 5, 2, 2) DW(672, 14, 5, 1, 2) DW(1152, 7, 5, 1, 2)
    PW(16, 96, 112) PW(24, 144, 56) PW(144, 24, 56) PW(96, 576, 14) PW(576, 96, 14)
    PW(320, 1280, 7) PW(960, 320, 7);
/* ResNet-50's 1x1 convolutions at 7, 14 and 28 (a third string, as above). */
static const char kKernelText3[] =
    PW(2048, 512, 7) PW(512, 2048, 7) PW(1024, 256, 14) PW(256, 1024, 14) PW(512, 128, 28)
    PW(128, 512, 28) PWS(1024, 2048, 14) PWS(512, 1024, 28) PWS(256, 512, 56);
/* ResNet-50's stride-2 3x3 convolutions (torchvision v1.5 strides the 3x3)
 * and its 1x1 convolutions at 56x56 (a fourth string, as above). */
#define CONV3S2(c, hw) \
  "def @conv3s2_" #c "_" #hw "(%x: Tensor[(1, " #c ", " #hw ", " #hw "), float32], %w: Tensor[(" #c ", " #c \
  ", 3, 3), float32]) { nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1], channels=" #c           \
  ", kernel_size=[3, 3]) }\n"
static const char kKernelText4[] =
    CONV3S2(128, 56) CONV3S2(256, 28) CONV3S2(512, 14) PW(64, 256, 56) PW(256, 64, 56) PW(256, 128, 56)
    PW(64, 64, 56);

/* 1x1 convolutions with the epilogues the models fuse into them (issue
 * 18): a bias (o, 1, 1) and then relu ("r"), MobileNet-v2's ReLU6 as
 * maximum / minimum ("c"), ResNet's residual add + relu ("a"),
 * EfficientNet's SiLU ("s"), or nothing more ("b"); stride s. */
#define PWE(ci, co, hw, ohw, st, kind, tail)                                                                   \
  "def @pwe" #kind "_" #ci "_" #co "_" #hw "(%x: Tensor[(1, " #ci ", " #hw ", " #hw "), float32], %w: Tensor[(" \
  #co ", " #ci ", 1, 1), float32], %b: Tensor[(" #co ", 1, 1), float32], %y: Tensor[(1, " #co ", " #ohw ", "   \
  #ohw "), float32]) { %0 = nn.conv2d(%x, %w, strides=[" #st ", " #st "], channels=" #co                        \
  ", kernel_size=[1, 1]); %1 = add(%0, %b); " tail " }\n"
#define PWE_R(ci, co, hw) PWE(ci, co, hw, hw, 1, r, "nn.relu(%1)")
#define PWE_C(ci, co, hw) PWE(ci, co, hw, hw, 1, c, "%2 = maximum(%1, 0f); minimum(%2, 6f)")
#define PWE_A(ci, co, hw) PWE(ci, co, hw, hw, 1, a, "%2 = add(%1, %y); nn.relu(%2)")
#define PWE_B(ci, co, hw, ohw, st) PWE(ci, co, hw, ohw, st, b, "%1")
#define PWE_S(ci, co, hw) PWE(ci, co, hw, hw, 1, s, "multiply(%1, sigmoid(%1))")
static const char kKernelText5[] =
    PWE_C(16, 96, 112) PWE_C(24, 144, 56) PWE_B(144, 24, 56, 56, 1) PWE_C(96, 576, 14) PWE_B(960, 320, 7, 7, 1)
    PWE_A(512, 2048, 7) PWE_R(2048, 512, 7) PWE_R(1024, 256, 14) PWE_A(256, 1024, 14) PWE_A(64, 256, 56)
    PWE_R(256, 64, 56) PWE_R(512, 128, 28);
static const char kKernelText6[] = PWE_A(128, 512, 28) PWE_B(1024, 2048, 14, 7, 2) PWE_S(24, 144, 56)
    PWE_S(192, 1152, 7);

static double conv_gflop(double c, double o, double hw) { return 2.0 * o * hw * hw * c * 9 / 1e9; }
/* Depthwise k x k with c channels and an ohw x ohw output; 1x1 c -> o. */
static double dw_gflop(double c, double ohw, double k) { return 2.0 * c * ohw * ohw * k * k / 1e9; }
/* The prepacked cases, in the panel layout the DensePack pass makes for
 * the templates' lanes (passes/dense_pack.c: panels of 2 vectors, 16 or
 * 32 columns): dense 512^3 and 1024^3 (nn.contrib_dense_pack, weight
 * (N/P, K, P)) and the swapped-GEMM 1x1 layers (kernel_layout OIHW{P}o,
 * conv2d.im2colT_pack). Appended to `text` (room for 4096 more bytes). */
static void packed_cases(char *text, int32_t panel) {
  static const int32_t pw[][3] = {{320, 1280, 7}, {960, 320, 7}, {2048, 512, 7}, {512, 2048, 7}, {1024, 256, 14},
                                  {96, 576, 14}};
  char *p = text + strlen(text);
  for (int32_t n = 512; n <= 1024; n *= 2) {
    p += sprintf(p,
                 "def @densepack%d(%%x: Tensor[(%d, %d), float32], %%w: Tensor[(%d, %d, %d), float32]) "
                 "{ nn.contrib_dense_pack(%%x, %%w) }\n",
                 n, n, n, n / panel, n, panel);
  }
  for (size_t i = 0; i < sizeof pw / sizeof pw[0]; ++i) {
    const int32_t c = pw[i][0], o = pw[i][1], hw = pw[i][2];
    p += sprintf(p,
                 "def @pwp_%d_%d_%d(%%x: Tensor[(1, %d, %d, %d), float32], %%w: Tensor[(%d, %d, 1, 1, %d), float32]) "
                 "{ nn.conv2d(%%x, %%w, channels=%d, kernel_size=[1, 1], kernel_layout=\"OIHW%do\") }\n",
                 c, o, hw, c, hw, hw, o / panel, c, panel, o, panel);
  }
}

static double pw_gflop(double c, double o, double hw) { return 2.0 * c * o * hw * hw / 1e9; }

/* The blocked convolutions (nn.contrib_conv2d_NCHWc, conv2d_NCHWc.direct)
 * of ResNet-50's layers in the layouts AlterOpLayout makes for the
 * templates' lanes (NCHW{lanes}c, OIHW{lanes}i{lanes}o): c -> o channels
 * of an hw x hw input, k x k kernel, stride st ("cb<k>s<st>_c_o_hw").
 * Appended to `text` (room for 4096 more bytes). */
static const int32_t kBlocked[][5] = {{64, 256, 56, 1, 1},  {256, 64, 56, 1, 1}, {128, 512, 28, 1, 1},
                                      {512, 128, 28, 1, 1}, {256, 1024, 14, 1, 1}, {1024, 256, 14, 1, 1},
                                      {512, 2048, 7, 1, 1}, {2048, 512, 7, 1, 1},  {512, 1024, 28, 1, 2},
                                      {64, 64, 56, 3, 1},   {128, 128, 28, 3, 1},  {256, 256, 14, 3, 1},
                                      {512, 512, 7, 3, 1},  {128, 128, 56, 3, 2},  {256, 256, 28, 3, 2}};
enum { NBLOCKED = sizeof kBlocked / sizeof kBlocked[0] };

static void blocked_cases(char *text, int32_t x) {
  char *p = text + strlen(text);
  for (int32_t i = 0; i < NBLOCKED; ++i) {
    const int32_t c = kBlocked[i][0], o = kBlocked[i][1], hw = kBlocked[i][2], k = kBlocked[i][3],
                  st = kBlocked[i][4];
    p += sprintf(p,
                 "def @cb%ds%d_%d_%d_%d(%%x: Tensor[(1, %d, %d, %d, %d), float32], "
                 "%%w: Tensor[(%d, %d, %d, %d, %d, %d), float32]) { nn.contrib_conv2d_NCHWc(%%x, %%w, "
                 "strides=[%d, %d], padding=[%d, %d], channels=%d, kernel_size=[%d, %d], data_layout=\"NCHW%dc\", "
                 "kernel_layout=\"OIHW%di%do\", out_layout=\"NCHW%dc\") }\n",
                 k, st, c, o, hw, c / x, hw, hw, x, o / x, c / x, k, k, x, x, st, st, k / 2, k / 2, o, k, k, x, x, x,
                 x);
  }
}

/* With RELAYRT_BENCH_CPUTIME set, the 1-thread kernel figures are timed
 * in the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) instead of
 * wall time: on a host shared with other jobs a wall-clock figure halves
 * whenever another process shares the core, the thread's CPU time does not
 * (cache sharing still shows). The all-core figures are then meaningless. */
static bool g_cputime;

static double kernel_now_s(void) {
  if (!g_cputime) return now_s();
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best seconds per call of kernel k over `reps` repetitions, each long
 * enough (>= 30 ms) to time. */
static double time_kernel(rt_kernel_fn k, const rt_kernel_arg *args, int32_t nargs,
                          const rt_kernel_ctx *ctx, int reps, int *failed) {
  *failed = k(args, nargs, ctx) != 0;
  double t0 = kernel_now_s();
  int inner = 1;
  if (!*failed) *failed = k(args, nargs, ctx) != 0;
  double one = kernel_now_s() - t0;
  if (one < 0.03) inner = (int)(0.03 / (one > 1e-6 ? one : 1e-6)) + 1;
  double best = 1e30;
  for (int r = 0; r < reps && !*failed; ++r) {
    t0 = kernel_now_s();
    for (int i = 0; i < inner; ++i) *failed |= k(args, nargs, ctx) != 0;
    double t = (kernel_now_s() - t0) / inner;
    if (t < best) best = t;
  }
  return best;
}

/* ---- model level -------------------------------------------------------------- */

static const char kBasicBlock[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 64, 56, 56), float32], %w1: Tensor[(64, 64, 3, 3), float32],\n"
    "          %g1: Tensor[(64), float32], %b1: Tensor[(64), float32], %m1: Tensor[(64), float32],\n"
    "          %v1: Tensor[(64), float32], %w2: Tensor[(64, 64, 3, 3), float32],\n"
    "          %g2: Tensor[(64), float32], %b2: Tensor[(64), float32], %m2: Tensor[(64), float32],\n"
    "          %v2: Tensor[(64), float32]) {\n"
    "  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]);\n"
    "  %1 = nn.batch_norm(%0, %g1, %b1, %m1, %v1);\n"
    "  %2 = nn.relu(%1.0);\n"
    "  %3 = nn.conv2d(%2, %w2, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]);\n"
    "  %4 = nn.batch_norm(%3, %g2, %b2, %m2, %v2);\n"
    "  %5 = add(%4.0, %x);\n"
    "  nn.relu(%5)\n"
    "}\n";

/* Sets every input of ex to seeded random data (variances made positive). */
static int fill_inputs(rt_executor_t *ex) {
  for (int32_t i = 0; i < rt_executor_num_inputs(ex); ++i) {
    rt_tensor_info_t info;
    if (check(rt_executor_input_info(ex, i, &info), "input info")) return 1;
    rt_tensor_t *t = NULL;
    if (check(rt_tensor_create(rt_allocator_system(), info.dtype, info.rank, info.shape, &t), "tensor")) return 1;
    rt_tensor_fill_random(t, 7 + (uint64_t)i);
    float *d = rt_tensor_data(t);
    if (info.name[0] == 'v') {
      for (int64_t k = 0; k < rt_tensor_numel(t); ++k) d[k] = fabsf(d[k]) + 0.5f;
    }
    rt_status_t st = rt_executor_set_input(ex, i, t);
    rt_tensor_release(t);
    if (check(st, "set input")) return 1;
  }
  return 0;
}

/* Removes the flat cache folder `dir` and its files. */
static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
    closedir(d);
  }
  rmdir(dir);
}

static void print_counts(const char *what) {
  rt_jit_session_t *s = NULL;
  if (rt_jit_session_shared(RT_JIT_TARGET_DEFAULT, &s) != RT_OK) return;
  rt_jit_cache_counts_t c;
  rt_jit_session_counts(s, &c);
  printf("    (%s: %lld compiled, %lld from disk, %lld written)\n", what, (long long)c.compiled,
         (long long)c.disk_hits, (long long)c.disk_writes);
  rt_jit_session_release(s);
}

/* Best run latency in ms over `reps` runs (after one warm-up). */
static double run_latency(rt_executor_t *ex, int reps) {
  if (check(rt_executor_run(ex), "run")) return -1;
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = now_s();
    if (check(rt_executor_run(ex), "run")) return -1;
    double t = (now_s() - t0) * 1e3;
    if (t < best) best = t;
  }
  return best;
}

static int bench_models(int reps) {
  rt_module_t *cnn = NULL;
  if (check(rt_module_load(RT_SOURCE_ROOT "/examples/cnn.relay", &cnn), "loading examples/cnn.relay")) return 1;
  rt_executor_t *g = NULL, *d = NULL;
  int rc = 0;
  if (check(rt_create_executor("graph", cnn, NULL, NULL, NULL, &g), "graph executor") ||
      check(rt_create_executor("debug", cnn, NULL, NULL, NULL, &d), "debug executor") ||
      fill_inputs(g) || fill_inputs(d)) {
    rc = 1;
  } else {
    double tg = run_latency(g, 20 * reps), td = run_latency(d, 4 * reps);
    printf("\nexample CNN (examples/cnn.relay), best of runs:\n");
    printf("  graph executor (all cores)  %9.4f ms\n", tg);
    printf("  debug executor (interpreter)%9.4f ms\n", td);
    printf("  speedup graph vs debug      %9.1fx   (floor >= 20x: %s)\n", td / tg,
           td / tg >= 20 ? "met" : "NOT met");
  }
  rt_executor_release(g);
  rt_executor_release(d);
  rt_module_release(cnn);
  if (rc) return rc;

  rt_module_t *bb = NULL;
  if (check(rt_module_parse(kBasicBlock, strlen(kBasicBlock), "basic_block.relay", &bb), "basic block")) return 1;
  char dir[] = "/tmp/relayrt-bench-cache-XXXXXX";
  if (!mkdtemp(dir)) {
    fprintf(stderr, "bench_kernels: cannot make a temporary cache folder\n");
    rt_module_release(bb);
    return 1;
  }
  setenv("RELAYRT_CACHE_DIR", dir, 1);
  printf("\nResNet basic block (1x64x56x56, conv-bn-relu-conv-bn-add-relu):\n");
  double ms[2] = {0, 0}, lat = -1;
  for (int pass = 0; pass < 2 && !rc; ++pass) {
    double t0 = now_s();
    rt_executor_t *ex = NULL;
    if (check(rt_create_executor("graph", bb, NULL, NULL, NULL, &ex), "basic block executor")) {
      rc = 1;
      break;
    }
    ms[pass] = (now_s() - t0) * 1e3;
    printf("  %s (graph executor creation)  %8.1f ms\n",
           pass == 0 ? "cold compile, empty disk cache" : "warm start from the disk cache ", ms[pass]);
    print_counts(pass == 0 ? "cold" : "warm");
    if (pass == 0) lat = fill_inputs(ex) ? -1 : run_latency(ex, reps);
    rt_executor_release(ex); /* the last reference: the shared session goes */
  }
  if (!rc) {
    printf("  warm / cold                                      %8.2f\n", ms[1] / ms[0]);
    printf("  latency (all cores)                             %8.3f ms  (%.1f GFLOP/s)\n", lat,
           2 * conv_gflop(64, 64, 56) / (lat / 1e3));
  }
  unsetenv("RELAYRT_CACHE_DIR");
  remove_dir(dir);
  rt_module_release(bb);
  return rc;
}

/* ---- main ---------------------------------------------------------------------- */

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 5;
  if (reps < 1) reps = 1;
  const char *filter = argc > 2 ? argv[2] : NULL;
  g_cputime = getenv("RELAYRT_BENCH_CPUTIME") != NULL;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  if (ncpu < 1) ncpu = 1;

  /* 1. Peak: best of reps. */
  /* Both widths are reported; the peak is the larger (zmm on AVX-512). */
  double y1 = 0, yn = 0, z1 = 0, zn = 0;
  const bool has512 = rt_bench_fma_has512();
  for (int r = 0; r < reps; ++r) {
    double p1 = rt_bench_fma_peak_bits(256, 1, 20000000L);
    double pn = rt_bench_fma_peak_bits(256, (int32_t)ncpu, 20000000L);
    if (p1 > y1) y1 = p1;
    if (pn > yn) yn = pn;
    if (has512) {
      p1 = rt_bench_fma_peak_bits(512, 1, 20000000L);
      pn = rt_bench_fma_peak_bits(512, (int32_t)ncpu, 20000000L);
      if (p1 > z1) z1 = p1;
      if (pn > zn) zn = pn;
    }
  }
  printf("FMA peak, best of %d:\n", reps);
  printf("  256-bit (12 vfmadd231ps ymm chains): 1 core %7.1f GFLOP/s, %ld cores %7.1f GFLOP/s\n", y1,
         ncpu, yn);
  if (has512) {
    printf("  512-bit (16 vfmadd231ps zmm chains): 1 core %7.1f GFLOP/s, %ld cores %7.1f GFLOP/s\n", z1,
           ncpu, zn);
  } else {
    printf("  512-bit: not measured (no AVX-512F in this build or CPU)\n");
  }
  /* The JIT session first: its target's lanes pick the peak the ratios
   * divide by (the templates' width: zmm for 16 lanes, ymm for 8, e.g.
   * with RELAYRT_JIT_TARGET=avx2 on an AVX-512 host) and the prepacked
   * cases' panel width. */
  rt_jit_session_t *s = NULL;
  if (check(rt_jit_session_create(rt_allocator_system(), &s), "jit session")) return 1;
  const int32_t lanes = rt_jit_session_target(s)->vector_width;
  const int32_t bits = lanes == 16 ? 512 : 256;
  double peak1 = lanes == 16 ? z1 : y1, peakn = lanes == 16 ? zn : yn;
  printf("  the peak at the templates' %d lanes: 1 core %7.1f GFLOP/s, %ld cores %7.1f GFLOP/s\n", lanes, peak1,
         ncpu, peakn);

  /* 2. Kernels. */
  const kcase_t all_cases[] = {
      {"dense512", "dense 512^3", 2.0 * 512 * 512 * 512 / 1e9, true, false},
      {"dense1024", "dense 1024^3", 2.0 * 1024 * 1024 * 1024 / 1e9, true, false},
      {"densepack512", "dense 512^3 prepacked", 2.0 * 512 * 512 * 512 / 1e9, true, false},
      {"densepack1024", "dense 1024^3 prepacked", 2.0 * 1024 * 1024 * 1024 / 1e9, true, false},
      {"conv64", "conv3x3 1x64x56x56->64", conv_gflop(64, 64, 56), false, true},
      {"conv128", "conv3x3 1x128x28x28->128", conv_gflop(128, 128, 28), false, true},
      {"conv256", "conv3x3 1x256x14x14->256", conv_gflop(256, 256, 14), false, true},
      {"conv512", "conv3x3 1x512x7x7->512", conv_gflop(512, 512, 7), false, true},
      {"wino4_64", "winograd4 1x64x56x56->64", conv_gflop(64, 64, 56), false, false},
      {"wino4_128", "winograd4 1x128x28x28->128", conv_gflop(128, 128, 28), false, false},
      {"wino4_256", "winograd4 1x256x14x14->256", conv_gflop(256, 256, 14), false, false},
      {"wino4_512", "winograd4 1x512x7x7->512", conv_gflop(512, 512, 7), false, false},
      {"wino2_64", "winograd2 1x64x56x56->64", conv_gflop(64, 64, 56), false, false},
      {"wino2_128", "winograd2 1x128x28x28->128", conv_gflop(128, 128, 28), false, false},
      {"wino2_256", "winograd2 1x256x14x14->256", conv_gflop(256, 256, 14), false, false},
      {"wino2_512", "winograd2 1x512x7x7->512", conv_gflop(512, 512, 7), false, false},
      {"dw32", "depthwise3x3 1x32x112x112", 2.0 * 32 * 112 * 112 * 9 / 1e9, false, false},
      {"dw3s2_96_112", "dw3x3/2 1x96x112x112", dw_gflop(96, 56, 3), false, false},
      {"dw3s1_144_56", "dw3x3 1x144x56x56", dw_gflop(144, 56, 3), false, false},
      {"dw3s2_144_56", "dw3x3/2 1x144x56x56", dw_gflop(144, 28, 3), false, false},
      {"dw3s1_384_14", "dw3x3 1x384x14x14", dw_gflop(384, 14, 3), false, false},
      {"dw3s1_960_7", "dw3x3 1x960x7x7", dw_gflop(960, 7, 3), false, false},
      {"dw5s1_240_28", "dw5x5 1x240x28x28", dw_gflop(240, 28, 5), false, false},
      {"dw5s2_144_56", "dw5x5/2 1x144x56x56", dw_gflop(144, 28, 5), false, false},
      {"dw5s1_672_14", "dw5x5 1x672x14x14", dw_gflop(672, 14, 5), false, false},
      {"dw5s1_1152_7", "dw5x5 1x1152x7x7", dw_gflop(1152, 7, 5), false, false},
      {"pw_16_96_112", "conv1x1 16->96 @112", pw_gflop(16, 96, 112), false, false},
      {"pw_24_144_56", "conv1x1 24->144 @56", pw_gflop(24, 144, 56), false, false},
      {"pw_144_24_56", "conv1x1 144->24 @56", pw_gflop(144, 24, 56), false, false},
      {"pw_96_576_14", "conv1x1 96->576 @14", pw_gflop(96, 576, 14), false, false},
      {"pw_576_96_14", "conv1x1 576->96 @14", pw_gflop(576, 96, 14), false, false},
      {"pw_320_1280_7", "conv1x1 320->1280 @7", pw_gflop(320, 1280, 7), false, false},
      {"pw_960_320_7", "conv1x1 960->320 @7", pw_gflop(960, 320, 7), false, false},
      {"pw_2048_512_7", "conv1x1 2048->512 @7", pw_gflop(2048, 512, 7), false, false},
      {"pw_512_2048_7", "conv1x1 512->2048 @7", pw_gflop(512, 2048, 7), false, false},
      {"pw_1024_256_14", "conv1x1 1024->256 @14", pw_gflop(1024, 256, 14), false, false},
      {"pw_256_1024_14", "conv1x1 256->1024 @14", pw_gflop(256, 1024, 14), false, false},
      {"pw_512_128_28", "conv1x1 512->128 @28", pw_gflop(512, 128, 28), false, false},
      {"pw_128_512_28", "conv1x1 128->512 @28", pw_gflop(128, 512, 28), false, false},
      {"pws_1024_2048_14", "conv1x1/2 1024->2048 @14", pw_gflop(1024, 2048, 7), false, false},
      {"pws_512_1024_28", "conv1x1/2 512->1024 @28", pw_gflop(512, 1024, 14), false, false},
      {"pws_256_512_56", "conv1x1/2 256->512 @56", pw_gflop(256, 512, 28), false, false},
      {"conv3s2_128_56", "conv3x3/2 1x128x56x56->128", conv_gflop(128, 128, 28), false, false},
      {"conv3s2_256_28", "conv3x3/2 1x256x28x28->256", conv_gflop(256, 256, 14), false, false},
      {"conv3s2_512_14", "conv3x3/2 1x512x14x14->512", conv_gflop(512, 512, 7), false, false},
      {"pw_64_256_56", "conv1x1 64->256 @56", pw_gflop(64, 256, 56), false, false},
      {"pw_256_64_56", "conv1x1 256->64 @56", pw_gflop(256, 64, 56), false, false},
      {"pw_256_128_56", "conv1x1 256->128 @56", pw_gflop(256, 128, 56), false, false},
      {"pw_64_64_56", "conv1x1 64->64 @56", pw_gflop(64, 64, 56), false, false},
      {"pwec_16_96_112", "1x1+b+relu6 16->96 @112", pw_gflop(16, 96, 112), false, false},
      {"pwec_24_144_56", "1x1+b+relu6 24->144 @56", pw_gflop(24, 144, 56), false, false},
      {"pweb_144_24_56", "1x1+b 144->24 @56", pw_gflop(144, 24, 56), false, false},
      {"pwec_96_576_14", "1x1+b+relu6 96->576 @14", pw_gflop(96, 576, 14), false, false},
      {"pweb_960_320_7", "1x1+b 960->320 @7", pw_gflop(960, 320, 7), false, false},
      {"pwea_512_2048_7", "1x1+b+res+relu 512->2048 @7", pw_gflop(512, 2048, 7), false, false},
      {"pwer_2048_512_7", "1x1+b+relu 2048->512 @7", pw_gflop(2048, 512, 7), false, false},
      {"pwer_1024_256_14", "1x1+b+relu 1024->256 @14", pw_gflop(1024, 256, 14), false, false},
      {"pwea_256_1024_14", "1x1+b+res+relu 256->1024 @14", pw_gflop(256, 1024, 14), false, false},
      {"pwea_64_256_56", "1x1+b+res+relu 64->256 @56", pw_gflop(64, 256, 56), false, false},
      {"pwer_256_64_56", "1x1+b+relu 256->64 @56", pw_gflop(256, 64, 56), false, false},
      {"pwer_512_128_28", "1x1+b+relu 512->128 @28", pw_gflop(512, 128, 28), false, false},
      {"pwea_128_512_28", "1x1+b+res+relu 128->512 @28", pw_gflop(128, 512, 28), false, false},
      {"pweb_1024_2048_14", "1x1/2+b 1024->2048 @14", pw_gflop(1024, 2048, 7), false, false},
      {"pwes_24_144_56", "1x1+b+silu 24->144 @56", pw_gflop(24, 144, 56), false, false},
      {"pwes_192_1152_7", "1x1+b+silu 192->1152 @7", pw_gflop(192, 1152, 7), false, false},
      {"pwp_320_1280_7", "1x1 packed 320->1280 @7", pw_gflop(320, 1280, 7), false, false},
      {"pwp_960_320_7", "1x1 packed 960->320 @7", pw_gflop(960, 320, 7), false, false},
      {"pwp_2048_512_7", "1x1 packed 2048->512 @7", pw_gflop(2048, 512, 7), false, false},
      {"pwp_512_2048_7", "1x1 packed 512->2048 @7", pw_gflop(512, 2048, 7), false, false},
      {"pwp_1024_256_14", "1x1 packed 1024->256 @14", pw_gflop(1024, 256, 14), false, false},
      {"pwp_96_576_14", "1x1 packed 96->576 @14", pw_gflop(96, 576, 14), false, false},
  };
  enum { NFIXED = sizeof all_cases / sizeof all_cases[0], NALL = NFIXED + NBLOCKED };
  kcase_t cases[NALL];
  char bnames[NBLOCKED][40], blabels[NBLOCKED][48];
  int NCASES = 0;
  for (int i = 0; i < NALL; ++i) {
    kcase_t kc;
    if (i < NFIXED) {
      kc = all_cases[i];
    } else {
      const int32_t *b = kBlocked[i - NFIXED];
      snprintf(bnames[i - NFIXED], sizeof bnames[0], "cb%ds%d_%d_%d_%d", b[3], b[4], b[0], b[1], b[2]);
      snprintf(blabels[i - NFIXED], sizeof blabels[0], "NCHWc %dx%d%s %d->%d @%d", b[3], b[3], b[4] == 2 ? "/2" : "",
               b[0], b[1], b[2]);
      const double ohw = (double)(b[2] / b[4]);
      kc = (kcase_t){bnames[i - NFIXED], blabels[i - NFIXED], 2.0 * b[0] * b[1] * ohw * ohw * b[3] * b[3] / 1e9,
                     false, false};
    }
    if (!filter || strstr(kc.name, filter)) cases[NCASES++] = kc;
  }
  if (NCASES == 0) {
    fprintf(stderr, "bench_kernels: no kernel case matches '%s'\n", filter);
    return 1;
  }
  rt_module_t *m = NULL;
  rt_jit_module_t *jm = NULL;
  rt_thread_pool_t *pool = NULL;
  const char *parts[] = {kKernelText, kKernelText2, kKernelText3, kKernelText4, kKernelText5, kKernelText6};
  size_t total = 2 * 4096 + 1;
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i) total += strlen(parts[i]);
  char *text = malloc(total);
  if (!text) return 1;
  text[0] = 0;
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i) strcat(text, parts[i]);
  packed_cases(text, 2 * lanes);
  blocked_cases(text, lanes);
  rt_status_t pst = rt_module_parse(text, strlen(text), "bench.relay", &m);
  free(text);
  if (check(pst, "parsing the kernels")) return 1;
  rt_ir_expr_t *fns[NALL];
  for (int i = 0; i < NCASES; ++i) fns[i] = rt_ir_module_lookup(m, cases[i].name);
  rt_jit_build_stats_t st;
  double tb = now_s();
  if (check(rt_jit_build(s, NCASES, fns, NULL, RT_JIT_NO_DISK_CACHE, &st, &jm), "compiling the kernels")) return 1;
  printf("\ncompiled %d kernels in one module: %.0f ms (lower %.0f, O3 %.0f, codegen %.0f)\n", NCASES,
         (now_s() - tb) * 1e3, st.lower_ms, st.opt_ms, st.emit_ms + st.link_ms);
  if (check(rt_thread_pool_create((int32_t)ncpu, &pool), "thread pool")) return 1;
  /* Kernel contexts like the executors' (pooled workspace, so timed calls
   * allocate nothing): one thread, and the thread pool. */
  rt_kernel_services_t one, all;
  rt_kernel_services_initialize(NULL, &one);
  rt_kernel_services_initialize(pool, &all);
  bool dense_ok = true, conv_ok = true;
  double worst_dense = 1e9, worst_conv = 1e9;
  double g1s[NALL], gns[NALL];
  for (int i = 0; i < NCASES; ++i) {
    double p1 = rt_bench_fma_peak_bits(bits, 1, 20000000L), pn = rt_bench_fma_peak_bits(bits, (int32_t)ncpu, 20000000L);
    if (p1 > peak1) peak1 = p1;
    if (pn > peakn) peakn = pn;
    const rt_ir_expr_t *fn = fns[i];
    /* The params (at most 4: the epilogue cases' bias and residual), then the output. */
    rt_tensor_t *t[5] = {0};
    rt_kernel_arg args[5];
    const int32_t np = fn->fn.nparams < 4 ? fn->fn.nparams : 4, na = np + 1;
    for (int32_t a = 0; a < np; ++a) {
      rt_ir_type_t *ty = rt_ir_type_resolve(fn->fn.params[a]->checked_type);
      if (check(rt_tensor_create(rt_allocator_system(), ty->tensor.dtype, ty->tensor.rank, ty->tensor.shape, &t[a]), "tensor")) return 1;
      rt_tensor_fill_random(t[a], 11 + (uint64_t)a);
    }
    rt_ir_type_t *ty = rt_ir_type_resolve(fn->fn.body->checked_type);
    if (check(rt_tensor_create(rt_allocator_system(), ty->tensor.dtype, ty->tensor.rank, ty->tensor.shape, &t[np]), "tensor")) return 1;
    for (int a = 0; a < na; ++a) rt_jit_arg_from_tensor(t[a], &args[a]);
    rt_kernel_fn k = rt_jit_module_kernel(jm, i);
    int f1 = 0, fn_ = 0;
    double s1 = time_kernel(k, args, na, &one.ctx, reps, &f1);
    double sn = time_kernel(k, args, na, &all.ctx, reps, &fn_);
    if (f1 || fn_) {
      printf("%-28s kernel failed: %s\n", cases[i].label,
             rt_kernel_services_error(f1 ? &one : &all));
      return 1;
    }
    g1s[i] = cases[i].gflop / s1;
    gns[i] = cases[i].gflop / sn;
    for (int a = 0; a < na; ++a) rt_tensor_release(t[a]);
  }
  printf("best FMA peak over the run: 1 core %.1f GFLOP/s, %ld cores %.1f GFLOP/s\n", peak1, ncpu, peakn);
  printf("\n%-28s %-22s %9s %6s %9s %6s\n", "kernel", "template", "1-core", "/peak", "all-core",
         "/peak");
  for (int i = 0; i < NCASES; ++i) {
    double g1 = g1s[i], gn = gns[i];
    printf("%-28s %-22s %9.1f %6.2f %9.1f %6.2f\n", cases[i].label, rt_jit_module_template(jm, i), g1,
           g1 / peak1, gn, gn / peakn);
    if (cases[i].floor_dense && g1 / peak1 < worst_dense) worst_dense = g1 / peak1;
    if (cases[i].floor_conv && g1 / peak1 < worst_conv) worst_conv = g1 / peak1;
  }
  dense_ok = worst_dense >= 0.6;
  conv_ok = worst_conv >= 0.5;
  printf("(GFLOP/s; /peak = ratio to the FMA peak above with the same thread count)\n");
  /* worst_* stay 1e9 when the filter left out every case of a floor. */
  if (worst_dense < 1e9) {
    printf("floor dense >= 0.60 of the 1-core peak: worst %.2f -> %s\n", worst_dense, dense_ok ? "met" : "NOT met");
  }
  if (worst_conv < 1e9) {
    printf("floor 3x3 conv >= 0.50 of the 1-core peak: worst %.2f -> %s\n", worst_conv, conv_ok ? "met" : "NOT met");
    printf("target 3x3 conv >= 0.70 of the 1-core peak: worst %.2f -> %s\n", worst_conv,
           worst_conv >= 0.7 ? "met" : "NOT met");
  }
  double worst_dw = 1e9;
  for (int i = 0; i < NCASES; ++i) {
    if (strncmp(cases[i].name, "dw", 2) == 0 && g1s[i] / peak1 < worst_dw) worst_dw = g1s[i] / peak1;
  }
  if (worst_dw < 1e9) {
    printf("target depthwise >= 0.50 of the 1-core peak: worst %.2f -> %s\n", worst_dw,
           worst_dw >= 0.5 ? "met" : "NOT met");
  }
  rt_thread_pool_release(pool);
  rt_kernel_services_deinitialize(&one);
  rt_kernel_services_deinitialize(&all);
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);

  /* 3. Models. */
  return filter ? 0 : bench_models(reps);
}
