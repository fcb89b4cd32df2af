/* cross_core: what it costs one core to read or write cache lines that
 * another core touched last, in GB/s, against lines it touched itself.
 *
 * Two threads, each pinned to one CPU (the first two the process may run
 * on, or CPU_A and CPU_B). For each buffer size, each case repeats
 * ROUNDS times: the helper (on B) or the timed thread itself (on A)
 * touches the whole buffer, then A's timed pass runs over it:
 *   read,  A wrote it          a read of every line, lines in A's cache;
 *   read,  B wrote it          lines modified in B's cache (a transfer);
 *   write, A wrote it          every float stored, lines already A's;
 *   write, B read it           lines shared with B: each store must take
 *                              B's copy away first (an invalidation);
 *   write, B wrote it          lines modified in B's cache;
 *   stream, B read it          as "write, B read it" with non-temporal
 *                              (streaming) stores, which take the lines
 *                              away from every cache without reading them;
 *   read, B streamed it        lines B wrote by streaming stores: in no
 *                              cache, read from memory.
 * (The two streaming cases need SSE2; elsewhere they store normally.)
 * The medians show what a kernel split between threads pays where a
 * tensor written by one task is read by another, or read by both and then
 * written (docs/executors.md, "What two threads pay for shared lines").
 * A figure, never pass/fail: on a shared machine, read medians and rerun.
 *
 * Usage: cross_core [ROUNDS [CPU_A CPU_B]]   (default 200 rounds)
 *        cross_core --json [ROUNDS [CPU_A CPU_B]]   the 256 KiB column as
 *                                     one JSON line (bench/models' probe,
 *                                     default 30 rounds)
 * Exits 2 without two CPUs to pin to, 1 when out of memory. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { kIdle, kWrite, kRead, kStream, kDone, kStop };

typedef struct {
  float *buf;
  size_t bytes;
  int cpu;
  _Atomic int cmd; /* set by A, reset to kDone by B */
} helper_t;

static volatile float g_sink;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int pin(int cpu) {
#if defined(__linux__)
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
#else
  (void)cpu;
  return -1;
#endif
}

/* Every float stored, by the compiler's vector stores (not memset, whose
 * string stores can skip reading a line before writing it where a
 * kernel's vector stores do not). */
static void write_all(float *p, size_t bytes, int v) {
  const float f = (float)v;
  for (size_t i = 0; i < bytes / sizeof(float); ++i) p[i] = f;
}

/* Every float stored by non-temporal stores (p 64-byte aligned), then a
 * store fence, so the lines have left the caches when it returns. */
static void stream_all(float *p, size_t bytes, int v) {
#if defined(__SSE2__)
  const __m128 f = _mm_set1_ps((float)v);
  for (size_t i = 0; i < bytes / sizeof(float); i += 4) _mm_stream_ps(p + i, f);
  _mm_sfence();
#else
  write_all(p, bytes, v);
#endif
}

/* One load per 64-byte line. */
static void read_lines(const float *p, size_t bytes) {
  float s = 0;
  for (size_t i = 0; i < bytes / sizeof(float); i += 16) s += p[i];
  g_sink = s;
}

static void *helper_main(void *arg) {
  helper_t *h = arg;
  if (pin(h->cpu) != 0) fprintf(stderr, "cross_core: cannot pin the helper to CPU %d\n", h->cpu);
  for (int v = 1;; ++v) {
    int c;
    while ((c = atomic_load(&h->cmd)) == kIdle || c == kDone) {
    }
    if (c == kStop) return NULL;
    if (c == kWrite) {
      write_all(h->buf, h->bytes, v);
    } else if (c == kStream) {
      stream_all(h->buf, h->bytes, v);
    } else {
      read_lines(h->buf, h->bytes);
    }
    atomic_store(&h->cmd, kDone);
  }
}

static void on_helper(helper_t *h, int cmd) {
  atomic_store(&h->cmd, cmd);
  while (atomic_load(&h->cmd) != kDone) {
  }
  atomic_store(&h->cmd, kIdle);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Case `k` (the table above) once: the touch before, then the timed pass. */
static double one(helper_t *h, int k, int v) {
  switch (k) {
    case 0: write_all(h->buf, h->bytes, v); break;
    case 1: on_helper(h, kWrite); break;
    case 2: read_lines(h->buf, h->bytes); break;
    case 3: case 5: on_helper(h, kRead); break;
    case 6: on_helper(h, kStream); break;
    default: on_helper(h, kWrite); break;
  }
  const double t0 = now_ns();
  if (k < 2 || k == 6) {
    read_lines(h->buf, h->bytes);
  } else if (k == 5) {
    stream_all(h->buf, h->bytes, v + 1);
  } else {
    write_all(h->buf, h->bytes, v + 1);
  }
  return now_ns() - t0;
}

int main(int argc, char **argv) {
  const bool json = argc > 1 && strcmp(argv[1], "--json") == 0;
  if (json) --argc, ++argv;
  const int rounds = argc > 1 ? atoi(argv[1]) : json ? 30 : 200;
  int cpu_a = -1, cpu_b = -1;
  if (argc > 3) {
    cpu_a = atoi(argv[2]);
    cpu_b = atoi(argv[3]);
  } else {
#if defined(__linux__)
    cpu_set_t s;
    if (sched_getaffinity(0, sizeof s, &s) == 0) {
      for (int c = 0; c < CPU_SETSIZE && cpu_b < 0; ++c) {
        if (!CPU_ISSET(c, &s)) continue;
        if (cpu_a < 0) {
          cpu_a = c;
        } else {
          cpu_b = c;
        }
      }
    }
#endif
  }
  if (rounds < 1 || cpu_a < 0 || cpu_b < 0 || cpu_a == cpu_b) {
    fprintf(stderr, "cross_core: needs two CPUs and ROUNDS >= 1 (usage: cross_core [--json] [ROUNDS [CPU_A CPU_B]])\n");
    return 2;
  }
  static const size_t kSizes[] = {64 << 10, 256 << 10, 1 << 20, 4 << 20};
  static const char *kCases[] = {"read, A wrote it",  "read, B wrote it",  "write, A wrote it",
                                 "write, B read it",  "write, B wrote it", "stream, B read it",
                                 "read, B streamed it"};
  static const char *kKeys[] = {"read_own",          "read_other_wrote",  "write_own",
                                "write_other_read",  "write_other_wrote", "stream_other_read",
                                "read_other_streamed"};
  enum { kCasesN = sizeof kCases / sizeof kCases[0] };
  const size_t nsizes = json ? 1 : sizeof kSizes / sizeof kSizes[0];
  const size_t *sizes = json ? &kSizes[1] : kSizes;
  const size_t maxb = sizes[nsizes - 1];
  helper_t h = {.buf = aligned_alloc(64, maxb), .cpu = cpu_b};
  double *t = malloc((size_t)rounds * sizeof(double));
  if (!h.buf || !t) {
    fprintf(stderr, "cross_core: out of memory\n");
    return 1;
  }
  memset(h.buf, 0, maxb);
  atomic_init(&h.cmd, kIdle);
  if (pin(cpu_a) != 0) fprintf(stderr, "cross_core: cannot pin the timed thread to CPU %d\n", cpu_a);
  pthread_t th;
  if (pthread_create(&th, NULL, helper_main, &h) != 0) {
    fprintf(stderr, "cross_core: cannot start the helper thread\n");
    return 1;
  }
  if (json) {
    printf("{\"cpu_a\": %d, \"cpu_b\": %d, \"bytes\": %zu", cpu_a, cpu_b, sizes[0]);
  } else {
    printf("cross_core: A = CPU %d (timed), B = CPU %d; median GB/s of %d rounds\n", cpu_a, cpu_b, rounds);
    printf("%-20s", "case");
    for (size_t s = 0; s < nsizes; ++s) printf(" %8zu KiB", sizes[s] >> 10);
    printf("\n");
  }
  for (int k = 0; k < kCasesN; ++k) {
    if (!json) printf("%-20s", kCases[k]);
    for (size_t s = 0; s < nsizes; ++s) {
      h.bytes = sizes[s];
      for (int r = 0; r < rounds; ++r) t[r] = one(&h, k, r);
      qsort(t, (size_t)rounds, sizeof(double), cmp_double);
      const double gbs = (double)h.bytes / t[rounds / 2];
      if (json) {
        printf(", \"%s_gbs\": %.1f", kKeys[k], gbs);
      } else {
        printf(" %12.1f", gbs);
      }
    }
    if (!json) printf("\n");
  }
  if (json) printf("}\n");
  atomic_store(&h.cmd, kStop);
  pthread_join(th, NULL);
  free(t);
  free(h.buf);
  return 0;
}
