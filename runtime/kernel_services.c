/* The kernel context's services (see kernel_services.h): parallel_for on
 * the thread pool (a task's non-zero return marks the whole call failed;
 * with stats set, every task timed), pooled workspace, and a
 * first-message-wins error slot. */
#include <stdint.h>
#include <stdio.h>

#include "runtime/clock.h"
#include "runtime/kernel_services.h"

static void ctx_set_error(const rt_kernel_ctx *ctx, const char *message) {
  rt_kernel_services_t *s = ctx->user;
  if (atomic_flag_test_and_set(&s->error_set)) return;
  snprintf(s->error, sizeof s->error, "%s", message ? message : "(no message)");
}

typedef struct {
  rt_kernel_task_fn body;
  void *closure;
  atomic_int failed;
  bool timed;
  _Atomic int64_t busy_ns, max_ns; /* when timed */
} task_job;

/* rt_now_ms in whole nanoseconds (C11 has no atomic add on doubles). */
static int64_t now_ns(void) { return (int64_t)(rt_now_ms() * 1e6); }

static void run_task(void *closure, int32_t task, int32_t n) {
  task_job *j = closure;
  const int64_t t0 = j->timed ? now_ns() : 0;
  if (j->body(j->closure, task, n) != 0) atomic_store(&j->failed, 1);
  if (!j->timed) return;
  const int64_t dt = now_ns() - t0;
  atomic_fetch_add(&j->busy_ns, dt);
  int64_t m = atomic_load(&j->max_ns);
  while (dt > m && !atomic_compare_exchange_weak(&j->max_ns, &m, dt)) {
  }
}

static int32_t ctx_parallel_for(const rt_kernel_ctx *ctx, rt_kernel_task_fn body, void *closure,
                                int32_t n_tasks) {
  rt_kernel_services_t *s = ctx->user;
  task_job j = {.body = body, .closure = closure, .timed = s->stats != NULL};
  atomic_init(&j.failed, 0);
  atomic_init(&j.busy_ns, 0);
  atomic_init(&j.max_ns, 0);
  rt_thread_pool_run(s->pool, run_task, &j, n_tasks);
  if (s->stats && n_tasks > 0) {
    rt_task_stats_t *st = s->stats;
    if (n_tasks > st->tasks) st->tasks = n_tasks;
    st->busy_ns += (double)atomic_load(&j.busy_ns);
    st->capacity_ns += (double)n_tasks * (double)atomic_load(&j.max_ns);
  }
  return atomic_load(&j.failed);
}

static void *ctx_workspace_alloc(const rt_kernel_ctx *ctx, uint64_t nbytes) {
  rt_kernel_services_t *s = ctx->user;
  return rt_workspace_alloc(&s->workspace, nbytes ? nbytes : 64);
}

static void ctx_workspace_free(const rt_kernel_ctx *ctx, void *ptr) {
  rt_kernel_services_t *s = ctx->user;
  rt_workspace_free(&s->workspace, ptr);
}

void rt_kernel_services_initialize(rt_thread_pool_t *pool, rt_kernel_services_t *out) {
  out->pool = pool;
  rt_workspace_pool_initialize(&out->workspace);
  out->error[0] = '\0';
  atomic_flag_clear(&out->error_set);
  out->stats = NULL;
  out->ctx.version = RT_KERNEL_ABI_VERSION;
  out->ctx.num_threads = pool ? rt_thread_pool_size(pool) : 1;
  out->ctx.parallel_for = pool ? ctx_parallel_for : NULL;
  out->ctx.workspace_alloc = ctx_workspace_alloc;
  out->ctx.workspace_free = ctx_workspace_free;
  out->ctx.set_error = ctx_set_error;
  out->ctx.user = out;
}

void rt_kernel_services_deinitialize(rt_kernel_services_t *services) {
  rt_workspace_pool_deinitialize(&services->workspace);
}

void rt_kernel_services_clear_error(rt_kernel_services_t *services) {
  atomic_flag_clear(&services->error_set);
  services->error[0] = '\0';
}

const char *rt_kernel_services_error(const rt_kernel_services_t *services) {
  return services->error[0] ? services->error : "(no message)";
}
