/* The built-in pass instruments: trace (a line per step: ran or skipped
 * and why, time, bindings before -> after), timing (a summary table at the
 * end of the pipeline) and dump (the IR after chosen passes, to a stream or
 * to numbered files in a directory). Their state is owned by the context
 * that created them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "passes/pass.h"
#include "runtime/mem.h"

static rt_status_t own(rt_pass_context_t *ctx, void *state) {
  if (ctx->num_owned == RT_PASS_MAX_INSTRUMENTS) {
    rt_mem_free(state);
    return RT_STATUS(RESOURCE_EXHAUSTED, "at most %d built-in instruments", RT_PASS_MAX_INSTRUMENTS);
  }
  ctx->owned[ctx->num_owned++] = state;
  return RT_OK;
}

static const char *reason(rt_pass_decision_t d) {
  switch (d) {
    case RT_PASS_RAN_BY_LEVEL: return "ran";
    case RT_PASS_RAN_REQUIRED: return "ran (required)";
    case RT_PASS_SKIPPED_LEVEL: return "skipped (opt_level too low)";
    case RT_PASS_SKIPPED_DISABLED: return "skipped (disabled)";
    case RT_PASS_SKIPPED_VETOED: return "skipped (vetoed by an instrument)";
  }
  return "?";
}

/* ---- trace --------------------------------------------------------------- */

typedef struct {
  FILE *out;
  int64_t before;
  int32_t opt_level;
} trace_state;

static rt_status_t trace_enter(void *user, const rt_module_t *m) {
  trace_state *s = user;
  fprintf(s->out, "pipeline: opt_level %d, %lld bindings\n", (int)s->opt_level,
          (long long)rt_pass_count_bindings(m));
  return RT_OK;
}

static rt_status_t trace_before(void *user, const rt_pass_info_t *p, const rt_module_t *m) {
  (void)p;
  trace_state *s = user;
  s->before = rt_pass_count_bindings(m);
  return RT_OK;
}

static rt_status_t trace_after(void *user, const rt_pass_info_t *p, const rt_module_t *m,
                               rt_pass_decision_t d, double ms) {
  trace_state *s = user;
  bool ran = d == RT_PASS_RAN_BY_LEVEL || d == RT_PASS_RAN_REQUIRED;
  if (ran) {
    fprintf(s->out, "  %-24s opt %d  %-28s %8.3f ms  bindings %lld -> %lld\n", p->name,
            (int)p->opt_level, reason(d), ms, (long long)s->before,
            (long long)rt_pass_count_bindings(m));
  } else {
    fprintf(s->out, "  %-24s opt %d  %s\n", p->name, (int)p->opt_level, reason(d));
  }
  return RT_OK;
}

rt_status_t rt_pass_context_add_trace(rt_pass_context_t *ctx, FILE *out) {
  trace_state *s = rt_mem_calloc(1, sizeof *s);
  if (!s) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  s->out = out;
  s->opt_level = ctx->opt_level;
  RT_RETURN_IF_ERROR(own(ctx, s));
  rt_pass_instrument_t ins = {s, trace_enter, NULL, NULL, trace_before, trace_after};
  return rt_pass_context_add_instrument(ctx, &ins);
}

/* ---- timing -------------------------------------------------------------- */

typedef struct {
  FILE *out;
  int32_t n;
  const char *names[64];
  double ms[64];
} timing_state;

static rt_status_t timing_after(void *user, const rt_pass_info_t *p, const rt_module_t *m,
                                rt_pass_decision_t d, double ms) {
  (void)m;
  timing_state *s = user;
  if (d != RT_PASS_RAN_BY_LEVEL && d != RT_PASS_RAN_REQUIRED) return RT_OK;
  if (s->n < 64) {
    s->names[s->n] = p->name;
    s->ms[s->n++] = ms;
  }
  return RT_OK;
}

static rt_status_t timing_exit(void *user, const rt_module_t *m) {
  (void)m;
  timing_state *s = user;
  double total = 0;
  for (int32_t i = 0; i < s->n; ++i) total += s->ms[i];
  fprintf(s->out, "pass timing (%d passes, %.3f ms):\n", (int)s->n, total);
  for (int32_t i = 0; i < s->n; ++i) {
    fprintf(s->out, "  %-24s %8.3f ms  %5.1f%%\n", s->names[i], s->ms[i],
            total > 0 ? 100.0 * s->ms[i] / total : 0.0);
  }
  s->n = 0;
  return RT_OK;
}

rt_status_t rt_pass_context_add_timing(rt_pass_context_t *ctx, FILE *out) {
  timing_state *s = rt_mem_calloc(1, sizeof *s);
  if (!s) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  s->out = out;
  RT_RETURN_IF_ERROR(own(ctx, s));
  rt_pass_instrument_t ins = {s, NULL, timing_exit, NULL, NULL, timing_after};
  return rt_pass_context_add_instrument(ctx, &ins);
}

/* ---- dump ---------------------------------------------------------------- */

typedef struct {
  FILE *out;
  char which[64];
  char dir[1024];
  int32_t step;
} dump_state;

static rt_status_t dump_after(void *user, const rt_pass_info_t *p, const rt_module_t *m,
                              rt_pass_decision_t d, double ms) {
  (void)ms;
  dump_state *s = user;
  bool ran = d == RT_PASS_RAN_BY_LEVEL || d == RT_PASS_RAN_REQUIRED;
  s->step++;
  if (!ran || (strcmp(s->which, "all") != 0 && strcmp(s->which, p->name) != 0)) return RT_OK;
  char *text = NULL;
  size_t len = 0;
  RT_RETURN_IF_ERROR(rt_ir_print_module(m, RT_PRINT_DEFAULT, &text, &len));
  rt_status_t st = RT_OK;
  if (s->dir[0]) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%02d_%s.relay", s->dir, (int)s->step, p->name);
    FILE *f = fopen(path, "w");
    if (!f) {
      st = RT_STATUS(IO_ERROR, "cannot write %s: %s", path, strerror(errno));
    } else {
      fputs(text, f);
      if (fclose(f) != 0) st = RT_STATUS(IO_ERROR, "cannot write %s", path);
    }
  } else {
    fprintf(s->out, "// IR after %s (step %d)\n%s", p->name, (int)s->step, text);
  }
  rt_mem_free(text);
  return st;
}

static rt_status_t dump_enter(void *user, const rt_module_t *m) {
  (void)m;
  ((dump_state *)user)->step = 0;
  return RT_OK;
}

rt_status_t rt_pass_context_add_dump(rt_pass_context_t *ctx, const char *which, const char *dir,
                                     FILE *out) {
  if (strcmp(which, "all") != 0) {
    bool known = false;
    for (int32_t i = 0; i < rt_pass_count(); ++i) known = known || strcmp(rt_pass_at(i)->name, which) == 0;
    if (!known) RT_RETURN_IF_ERROR(rt_pass_context_require(ctx, which)); /* reports the names */
  }
  if (dir && mkdir(dir, 0755) != 0 && errno != EEXIST) {
    return RT_STATUS(IO_ERROR, "cannot create %s: %s", dir, strerror(errno));
  }
  dump_state *s = rt_mem_calloc(1, sizeof *s);
  if (!s) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  s->out = out;
  snprintf(s->which, sizeof s->which, "%s", which);
  if (dir) snprintf(s->dir, sizeof s->dir, "%s", dir);
  RT_RETURN_IF_ERROR(own(ctx, s));
  rt_pass_instrument_t ins = {s, dump_enter, NULL, NULL, NULL, dump_after};
  return rt_pass_context_add_instrument(ctx, &ins);
}
