/* The worker pool behind rt_thread_pool_run, made cheap per run: no lock,
 * no allocation and, while the workers are awake, no system call.
 *
 * A run is published by storing the ticket (the run's generation in the
 * high 32 bits, the next task index in the low 32), then its function,
 * closure and task count, then the generation word `gen`. Workers watch
 * `gen`: after a run they spin on it for kWorkerSpinNs (so the next kernel
 * of a model finds them awake; pauses first, then yielding the core
 * between looks: spin_while), then sleep on it (a futex on Linux, a
 * condition variable elsewhere); the caller wakes sleepers only when some
 * sleep. The caller takes tasks too, from the start, so a worker that
 * arrives late (asleep, or its core busy) costs nothing but its share.
 *
 * A task index is claimed by a compare-and-swap on the ticket that also
 * checks the generation, so a worker that read the function of run g
 * claims only tasks of run g: a claim of g can succeed only before g's
 * last task finished, hence before the caller wrote the next run's
 * fields; and the caller writes the next ticket before those fields
 * (released, read with acquire), so a late worker that reads a newer
 * field sees the newer ticket and fails its claim (the fields are
 * atomics: that late read races with nobody).
 *
 * The caller waits for `remaining` (tasks not yet finished) to reach 0:
 * spinning, then asleep on it; the worker finishing the last task wakes it
 * when it sleeps. Sleeping is always announced first (a sleepers count,
 * the caller's flag) and the watched word re-checked, with sequentially
 * consistent atomics, so a wake-up is never lost: either the waker sees
 * the sleeper or the sleeper sees the new value (and the futex checks the
 * value again).
 * Runs from two threads are serialized by a mutex; a run started from
 * inside a task of the same pool runs its tasks inline (no deadlock).
 *
 * The spins, measured with bench/pool_cost on this project's 2-core AMD
 * EPYC VM: a worker asleep joins a run ~30 µs late (median; the futex wake
 * and the scheduler), one spinning at once (a parallel_for of 2 x 20 µs
 * tasks costs 0.3 µs over one task alone). The kernels of a model run back
 * to back (gaps of a few µs, a serial kernel rarely over 200 µs), so
 * workers spin kWorkerSpinNs = 250 µs before sleeping: a model run keeps
 * them awake, an idle pool costs 250 µs of CPU per worker once. The caller
 * spins only kCallerSpinNs = 50 µs for the tasks still running elsewhere:
 * a longer wait means an uneven split or a worker whose core was taken
 * (the machine is shared), and then sleeping frees the core for it. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#define RT_POOL_FUTEX 1
#else
#define RT_POOL_FUTEX 0
#endif

#include "runtime/thread_pool.h"
#include "runtime/mem.h"

enum {
  kWorkerSpinNs = 250 * 1000,
  kCallerSpinNs = 50 * 1000,
  kPauseNs = 20 * 1000,
  kCheckNs = 10 * 1000,
  kContendedNs = 20 * 1000 * 1000,
};

struct rt_thread_pool_t {
  int32_t size;              /* workers + the caller */
  int32_t num_workers;
  pthread_t *workers;
  pthread_mutex_t run_lock;  /* one run at a time */
  /* The run, written by the caller before `gen` is published. */
  _Atomic(rt_task_fn) fn;
  _Atomic(void *) closure;
  atomic_int num_tasks;
  /* The words written by different threads during a run are 64 bytes
   * apart (padding, not _Alignas: the pool comes from rt_mem_calloc,
   * aligned to 16), so claims, the caller's publish and the finishing
   * tasks do not invalidate each other's cache lines. */
  char pad0[64];
  _Atomic uint64_t ticket;   /* generation << 32 | next task index */
  char pad1[64];
  _Atomic uint32_t gen;      /* futex word of the workers */
  atomic_int sleepers;       /* workers asleep on gen (or about to) */
  atomic_bool stopping;
  char pad2[64];
  _Atomic uint32_t remaining; /* futex word of the caller */
  atomic_bool caller_sleeps;
  _Atomic int64_t contended_until; /* now_ns() before which no thread spins */
#if !RT_POOL_FUTEX
  pthread_mutex_t lock; /* the sleeps without futexes */
  pthread_cond_t cond;
#endif
};

/* The pool whose task this thread runs now, if any (nested runs). */
static _Thread_local const rt_thread_pool_t *tls_pool;

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spins while *word == value, for at most spin_ns: kPauseNs with pause
 * instructions, then yielding the CPU between looks. True when it
 * changed. On an idle core a yield returns at once (a look per ~0.5 µs);
 * on a machine whose cores are all busy it hands the core to a thread
 * with work, often ours: this process's threads share one scheduler
 * group (autogroup), so a worker spinning with pauses there would take
 * its time from the caller running a serial kernel.
 *
 * Contention: every kCheckNs the spinner compares the CPU time it got
 * with the time that passed; under half means the cores are taken (the
 * machine is shared). It then stops, and for kContendedNs every spin of
 * the pool is skipped: threads sleep at once, as a pool without spinning
 * does, which the scheduler favours over threads that stay runnable (on
 * the project's VM at load 10, 2-thread runs of squeezenet took 13-45 ms
 * with a sleeping pool and 48-76 ms with one that spun). */
static bool spin_while(rt_thread_pool_t *p, _Atomic uint32_t *word, uint32_t value,
                       int64_t spin_ns) {
  if (atomic_load_explicit(word, memory_order_acquire) != value) return true;
  const int64_t start = now_ns();
  if (start < atomic_load_explicit(&p->contended_until, memory_order_relaxed)) return false;
  int64_t mark = start, mark_cpu = -1;
  bool yielding = false;
  for (uint32_t i = 1;; ++i) {
    if (atomic_load_explicit(word, memory_order_acquire) != value) return true;
    if (yielding || (i & 255) == 0) { /* read the clock now and then only */
      const int64_t t = now_ns();
      if (t - start >= spin_ns) return false;
      if (t - mark >= kCheckNs) {
        const int64_t c = thread_cpu_ns();
        if (mark_cpu >= 0 && (c - mark_cpu) * 2 < t - mark) {
          atomic_store_explicit(&p->contended_until, t + kContendedNs, memory_order_relaxed);
          return false;
        }
        mark = t;
        mark_cpu = c;
      }
      if (t - start >= kPauseNs) {
        yielding = true;
        sched_yield();
        continue;
      }
    }
    cpu_relax();
  }
}

/* Sleeps until *word may differ from value (spurious returns are fine:
 * callers re-check). The caller announced its sleep before. */
static void sleep_on(rt_thread_pool_t *p, _Atomic uint32_t *word, uint32_t value) {
#if RT_POOL_FUTEX
  (void)p;
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
#else
  pthread_mutex_lock(&p->lock);
  if (atomic_load(word) == value) pthread_cond_wait(&p->cond, &p->lock);
  pthread_mutex_unlock(&p->lock);
#endif
}

/* Wakes up to `count` threads asleep on word (all of them without
 * futexes). */
static void wake_on(rt_thread_pool_t *p, _Atomic uint32_t *word, int32_t count) {
#if RT_POOL_FUTEX
  (void)p;
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
#else
  (void)word;
  (void)count;
  pthread_mutex_lock(&p->lock);
  pthread_cond_broadcast(&p->cond);
  pthread_mutex_unlock(&p->lock);
#endif
}

/* Runs the tasks of generation `gen` that are left, while it is current. */
static void take_tasks(rt_thread_pool_t *p, uint32_t gen, rt_task_fn fn, void *closure,
                       int32_t n) {
  uint64_t v = atomic_load(&p->ticket);
  for (;;) {
    if ((uint32_t)(v >> 32) != gen || (int64_t)(v & 0xffffffffu) >= n) return;
    if (!atomic_compare_exchange_weak(&p->ticket, &v, v + 1)) continue; /* v reloaded */
    const int32_t t = (int32_t)(v & 0xffffffffu);
    v += 1;
    fn(closure, t, n);
    if (atomic_fetch_sub(&p->remaining, 1) == 1 && atomic_load(&p->caller_sleeps)) {
      wake_on(p, &p->remaining, 1);
    }
  }
}

static void *worker_main(void *arg) {
  rt_thread_pool_t *p = arg;
  tls_pool = p;
  /* gen starts at 0; a worker that starts late (after runs, or after
   * release bumped gen) must not take the current value as seen. */
  uint32_t seen = 0;
  for (;;) {
    if (!spin_while(p, &p->gen, seen, kWorkerSpinNs)) {
      atomic_fetch_add(&p->sleepers, 1);
      while (atomic_load(&p->gen) == seen) sleep_on(p, &p->gen, seen);
      atomic_fetch_sub(&p->sleepers, 1);
    }
    /* gen before stopping: release sets stopping, then bumps gen. */
    seen = atomic_load(&p->gen);
    if (atomic_load(&p->stopping)) break;
    take_tasks(p, seen, atomic_load_explicit(&p->fn, memory_order_acquire),
               atomic_load_explicit(&p->closure, memory_order_acquire),
               atomic_load_explicit(&p->num_tasks, memory_order_acquire));
  }
  return NULL;
}

rt_status_t rt_thread_pool_create(int32_t num_threads, rt_thread_pool_t **out_pool) {
  if (num_threads <= 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    num_threads = n > 0 ? (int32_t)(n > 256 ? 256 : n) : 1;
  }
  rt_thread_pool_t *p = rt_mem_calloc(1, sizeof *p);
  if (!p) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating a thread pool");
  p->size = num_threads;
  pthread_mutex_init(&p->run_lock, NULL);
#if !RT_POOL_FUTEX
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->cond, NULL);
#endif
  atomic_init(&p->fn, NULL);
  atomic_init(&p->closure, NULL);
  atomic_init(&p->num_tasks, 0);
  atomic_init(&p->ticket, 0);
  atomic_init(&p->gen, 0);
  atomic_init(&p->sleepers, 0);
  atomic_init(&p->stopping, false);
  atomic_init(&p->remaining, 0);
  atomic_init(&p->caller_sleeps, false);
  atomic_init(&p->contended_until, 0);
  if (num_threads > 1) {
    p->workers = rt_mem_calloc((size_t)num_threads - 1, sizeof(pthread_t));
    if (!p->workers) {
      rt_thread_pool_release(p);
      return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating a thread pool");
    }
    for (int32_t i = 0; i < num_threads - 1; ++i) {
      if (pthread_create(&p->workers[i], NULL, worker_main, p) != 0) {
        rt_thread_pool_release(p);
        return RT_STATUS(RESOURCE_EXHAUSTED, "cannot start worker thread %d of %d", (int)i + 1,
                         (int)num_threads - 1);
      }
      p->num_workers++;
    }
  }
  *out_pool = p;
  return RT_OK;
}

void rt_thread_pool_release(rt_thread_pool_t *p) {
  if (!p) return;
  atomic_store(&p->stopping, true);
  atomic_fetch_add(&p->gen, 1);
  wake_on(p, &p->gen, INT32_MAX);
  for (int32_t i = 0; i < p->num_workers; ++i) pthread_join(p->workers[i], NULL);
  rt_mem_free(p->workers);
#if !RT_POOL_FUTEX
  pthread_cond_destroy(&p->cond);
  pthread_mutex_destroy(&p->lock);
#endif
  pthread_mutex_destroy(&p->run_lock);
  rt_mem_free(p);
}

int32_t rt_thread_pool_size(const rt_thread_pool_t *p) { return p ? p->size : 1; }

void rt_thread_pool_run(rt_thread_pool_t *p, rt_task_fn fn, void *closure, int32_t num_tasks) {
  if (num_tasks <= 0) return;
  if (!p || p->num_workers == 0 || num_tasks == 1 || tls_pool == p) {
    for (int32_t t = 0; t < num_tasks; ++t) fn(closure, t, num_tasks);
    return;
  }
  pthread_mutex_lock(&p->run_lock);
  const uint32_t gen = atomic_load_explicit(&p->gen, memory_order_relaxed) + 1;
  /* The ticket first: a worker still holding an older generation fails
   * its claims from now on; one that reads a field written below (release,
   * read with acquire) then sees this ticket too. */
  atomic_store(&p->ticket, (uint64_t)gen << 32);
  atomic_store_explicit(&p->fn, fn, memory_order_release);
  atomic_store_explicit(&p->closure, closure, memory_order_release);
  atomic_store_explicit(&p->num_tasks, num_tasks, memory_order_release);
  atomic_store_explicit(&p->remaining, (uint32_t)num_tasks, memory_order_release);
  atomic_store(&p->gen, gen); /* publishes the run */
  /* Only as many sleepers as there are tasks for besides the caller's
   * (a big pool running a 2-task kernel wakes one). */
  if (atomic_load(&p->sleepers) > 0) wake_on(p, &p->gen, num_tasks - 1);
  const rt_thread_pool_t *outer = tls_pool;
  tls_pool = p;
  take_tasks(p, gen, fn, closure, num_tasks);
  tls_pool = outer;
  for (;;) {
    uint32_t left = atomic_load(&p->remaining);
    if (!left) break;
    if (spin_while(p, &p->remaining, left, kCallerSpinNs)) continue; /* progress: spin on */
    atomic_store(&p->caller_sleeps, true);
    while ((left = atomic_load(&p->remaining)) != 0) sleep_on(p, &p->remaining, left);
    atomic_store(&p->caller_sleeps, false);
  }
  pthread_mutex_unlock(&p->run_lock);
}
