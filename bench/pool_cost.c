/* pool_cost: what one parallel_for costs on the thread pool, in µs, the
 * way kernels call it (rt_kernel_ctx.parallel_for of the runtime's kernel
 * services), at 2 threads by default.
 *
 * Each case times its calls one by one (clock_gettime around the call) and
 * prints the median, the 10th and 90th percentile, and the share of tasks
 * that a worker ran (the rest ran on the calling thread, which takes tasks
 * too: an empty task is often done by the caller before a worker looks):
 *   empty tasks            back to back; after 200 µs of the caller working
 *                          alone (a serial kernel's gap); after 2 ms (the
 *                          workers have gone to sleep);
 *   2 us / 20 us tasks     THREADS tasks of calibrated busy work each; the
 *                          cost is the call's median minus the median of
 *                          one such task run alone without the pool (perfect
 *                          sharing costs 0), back to back and after 2 ms.
 * A figure, never pass/fail: on a shared machine, read medians and rerun.
 *
 * Usage: pool_cost [THREADS [CALLS]]   (defaults 2 and 20000) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/kernel_services.h"

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double pct(const double *sorted, int n, double q) {
  int i = (int)(q * (n - 1) + 0.5);
  return sorted[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* A task of calibrated busy work (a dependent chain of multiply-adds, no
 * memory traffic); records whether it ran off the calling thread. */
typedef struct {
  long iters;            /* per task */
  pthread_t caller;
  atomic_int off_caller; /* tasks run by a worker */
  atomic_int sink;
} work_t;

static int32_t work_task(void *closure, int32_t task, int32_t n) {
  (void)task;
  (void)n;
  work_t *w = closure;
  volatile float x = 1.0f;
  float y = x;
  for (long i = 0; i < w->iters; ++i) y = y * 0.999999f + 1e-7f;
  if (!pthread_equal(pthread_self(), w->caller)) atomic_fetch_add(&w->off_caller, 1);
  if (y < 0) atomic_fetch_add(&w->sink, 1);
  return 0;
}

/* Busy-works on the caller for about `us` microseconds. */
static void spin_for(double us) {
  const double end = now_us() + us;
  while (now_us() < end) {
  }
}

/* Times `calls` parallel_for calls of `ntasks` tasks of w (iters 0: empty
 * tasks), each after `gap_us` of work alone on the caller, into t (sorted);
 * ntasks 0: the tasks run serially on the caller, no pool. Returns the
 * share of tasks a worker ran. */
static double measure(const rt_kernel_ctx *ctx, work_t *w, int32_t ntasks, double gap_us,
                      int calls, double *t) {
  const int warm = calls / 10 + 1;
  atomic_store(&w->off_caller, 0);
  for (int i = 0; i < calls + warm; ++i) {
    if (i == warm) atomic_store(&w->off_caller, 0);
    if (gap_us > 0) spin_for(gap_us);
    double t0 = now_us();
    if (ntasks > 0) {
      (void)ctx->parallel_for(ctx, work_task, w, ntasks);
    } else {
      (void)work_task(w, 0, 1);
    }
    double t1 = now_us();
    if (i >= warm) t[i - warm] = t1 - t0;
  }
  qsort(t, (size_t)calls, sizeof *t, cmp_double);
  return ntasks > 0 ? (double)atomic_load(&w->off_caller) / ((double)calls * ntasks) : 0;
}

static void report(const char *what, const double *t, int calls, double off) {
  printf("  %-40s median %8.2f us  p10 %8.2f  p90 %8.2f  worker share %3.0f%%\n", what,
         pct(t, calls, 0.5), pct(t, calls, 0.1), pct(t, calls, 0.9), 100 * off);
}

/* Iterations of work_task that take about `us` on the caller. */
static long calibrate(work_t *w, double us, double *t) {
  w->iters = 100000;
  measure(NULL, w, 0, 0, 101, t);
  const double per = pct(t, 101, 0.5) / 100000;
  return (long)(us / per);
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  int calls = argc > 2 ? atoi(argv[2]) : 20000;
  if (threads < 1 || threads > 256 || calls < 100 || calls > 10000000) {
    fprintf(stderr, "usage: pool_cost [THREADS (1..256) [CALLS (100..1e7)]]\n");
    return 2;
  }
  rt_thread_pool_t *pool = NULL;
  rt_status_t st = rt_thread_pool_create(threads, &pool);
  if (st) {
    fprintf(stderr, "pool_cost: %s\n", rt_status_message(st));
    rt_status_free(st);
    return 1;
  }
  rt_kernel_services_t svc;
  rt_kernel_services_initialize(pool, &svc);
  double *t = malloc((size_t)calls * sizeof *t);
  if (!t) {
    fprintf(stderr, "pool_cost: out of memory\n");
    return 1;
  }
  work_t w = {.caller = pthread_self()};
  atomic_init(&w.off_caller, 0);
  atomic_init(&w.sink, 0);
  const long it2 = calibrate(&w, 2, t), it20 = calibrate(&w, 20, t);
  printf("pool_cost: %d threads, %d calls per case; per call: median, 10th and 90th\n"
         "percentile, and the share of tasks that a worker (not the caller) ran\n",
         threads, calls);
  const rt_kernel_ctx *ctx = &svc.ctx;
  const int32_t nt = threads;
  double off;
  w.iters = 0;
  off = measure(ctx, &w, nt, 0, calls, t);
  report("empty tasks, back to back", t, calls, off);
  const double empty = pct(t, calls, 0.5);
  off = measure(ctx, &w, 8 * nt, 0, calls, t);
  report("8x as many empty tasks, back to back", t, calls, off);
  off = measure(ctx, &w, nt, 200, calls / 10, t);
  report("empty tasks, after 200 us alone", t, calls / 10, off);
  off = measure(ctx, &w, nt, 2000, calls / 100, t);
  report("empty tasks, after 2 ms alone (asleep)", t, calls / 100, off);
  double base[2], cost[3];
  for (int k = 0; k < 2; ++k) {
    w.iters = k ? it20 : it2;
    measure(ctx, &w, 0, 0, calls / 10, t);
    base[k] = pct(t, calls / 10, 0.5);
    report(k ? "one 20 us task, serial (no pool)" : "one 2 us task, serial (no pool)", t,
           calls / 10, 0);
    off = measure(ctx, &w, nt, 0, calls / 10, t);
    report(k ? "20 us tasks, back to back" : "2 us tasks, back to back", t, calls / 10, off);
    cost[k] = pct(t, calls / 10, 0.5) - base[k];
  }
  off = measure(ctx, &w, nt, 2000, calls / 100, t);
  report("20 us tasks, after 2 ms alone (asleep)", t, calls / 100, off);
  cost[2] = pct(t, calls / 100, 0.5) - base[1];
  printf("cost per parallel_for on %d threads (median time of %d equal tasks minus one\n"
         "task alone): %.2f us with 2 us tasks, %.2f us with 20 us tasks, %.2f us with\n"
         "20 us tasks after 2 ms idle; empty tasks: %.2f us\n",
         threads, nt, cost[0], cost[1], cost[2], empty);
  free(t);
  rt_kernel_services_deinitialize(&svc);
  rt_thread_pool_release(pool);
  return 0;
}
