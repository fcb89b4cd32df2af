/* The pass manager: runs passes.def's list under a context.
 *
 * For each step: decide (disabled beats required beats opt_level, then the
 * instruments' should_run for passes that are not required), call
 * before_pass, run it, type-check the result (and rt_ir_verify it in debug
 * builds, naming the pass when it broke the IR), call after_pass. A skipped
 * step still reaches after_pass with the reason, so a trace lists every
 * step. rt_module_run_pass applies the same rules to one pass. */
#include <string.h>

#include "passes/pass.h"
#include "runtime/clock.h"

typedef struct {
  rt_pass_info_t info;
  rt_pass_fn fn;
  const char *executor;
} step_t;

static const step_t kSteps[] = {
#define RT_PASS(ID, name, level, fn, executor, doc) {{name, level, doc}, rt_pass_##fn, executor},
#include "passes/passes.def"
#undef RT_PASS
};
_Static_assert(RT_COUNTOF(kSteps) == RT_PASS_COUNT, "one step per passes.def line");

int32_t rt_pass_count(void) { return (int32_t)RT_COUNTOF(kSteps); }

const rt_pass_info_t *rt_pass_at(int32_t index) {
  if (index < 0 || index >= (int32_t)RT_COUNTOF(kSteps)) return NULL;
  return &kSteps[index].info;
}

bool rt_pass_is_executor_step(int32_t index, const char **out_executor) {
  if (index < 0 || index >= (int32_t)RT_COUNTOF(kSteps)) return false;
  if (out_executor) *out_executor = kSteps[index].executor;
  return kSteps[index].executor[0] != '\0';
}

static bool listed(const char *const *names, int32_t n, const char *name) {
  for (int32_t i = 0; i < n; ++i) {
    if (strcmp(names[i], name) == 0) return true;
  }
  return false;
}

/* What ctx's lists and opt_level decide for the pass, instruments aside. */
static rt_pass_decision_t by_context(const rt_pass_context_t *ctx, const rt_pass_info_t *info) {
  if (listed(ctx->disabled, ctx->num_disabled, info->name)) return RT_PASS_SKIPPED_DISABLED;
  if (listed(ctx->required, ctx->num_required, info->name)) return RT_PASS_RAN_REQUIRED;
  if (info->opt_level > ctx->opt_level) return RT_PASS_SKIPPED_LEVEL;
  return RT_PASS_RAN_BY_LEVEL;
}

bool rt_pass_context_runs(const rt_pass_context_t *ctx, const char *name) {
  rt_pass_context_t defaults;
  if (!ctx) {
    rt_pass_context_defaults(&defaults);
    ctx = &defaults;
  }
  for (int32_t i = 0; i < (int32_t)RT_COUNTOF(kSteps); ++i) {
    if (strcmp(kSteps[i].info.name, name) != 0) continue;
    const rt_pass_decision_t d = by_context(ctx, &kSteps[i].info);
    return d == RT_PASS_RAN_REQUIRED || d == RT_PASS_RAN_BY_LEVEL;
  }
  return false;
}

static rt_status_t decide(const rt_pass_context_t *ctx, const rt_pass_info_t *info,
                          const rt_module_t *m, rt_pass_decision_t *out) {
  *out = by_context(ctx, info);
  if (*out != RT_PASS_RAN_BY_LEVEL) return RT_OK;
  for (int32_t i = 0; i < ctx->num_instruments; ++i) {
    const rt_pass_instrument_t *ins = &ctx->instruments[i];
    if (!ins->should_run) continue;
    bool run = true;
    RT_RETURN_IF_ERROR(ins->should_run(ins->user, info, m, &run));
    if (!run) {
      *out = RT_PASS_SKIPPED_VETOED;
      return RT_OK;
    }
  }
  *out = RT_PASS_RAN_BY_LEVEL;
  return RT_OK;
}

/* Runs one step under ctx; *m is replaced by the result (references
 * managed). */
static rt_status_t run_step(const step_t *step, const rt_pass_context_t *ctx, rt_module_t **m) {
  rt_pass_decision_t d;
  RT_RETURN_IF_ERROR(decide(ctx, &step->info, *m, &d));
  bool run = d == RT_PASS_RAN_BY_LEVEL || d == RT_PASS_RAN_REQUIRED;
  double elapsed = 0;
  if (run) {
    for (int32_t i = 0; i < ctx->num_instruments; ++i) {
      const rt_pass_instrument_t *ins = &ctx->instruments[i];
      if (ins->before_pass) RT_RETURN_IF_ERROR(ins->before_pass(ins->user, &step->info, *m));
    }
    rt_pass_env_t env = {ctx, (*m)->allocator};
    rt_module_t *out = NULL;
    double t0 = rt_now_ms();
    rt_status_t st = step->fn(&env, *m, &out);
    /* A pass that changed nothing may return its input, which may be the
     * caller's module, shared with other threads' builds: it is typed
     * already, and re-inferring would write to it (its flag, its arena). */
    if (!st && (out != *m || !out->typed)) {
      st = rt_ir_infer_types(out);
      if (st) st = rt_status_annotate(st, "type-checking the output of %s (a bug in the pass)",
                                      step->info.name);
    }
#if defined(RT_DEBUG) && RT_DEBUG
    if (!st) {
      st = rt_ir_verify(out);
      if (st) st = rt_status_annotate(st, "after %s", step->info.name);
    }
#endif
    elapsed = rt_now_ms() - t0;
    if (st) {
      rt_module_release(out);
      return rt_status_annotate(st, "in pass %s", step->info.name);
    }
    rt_module_release(*m);
    *m = out;
  }
  for (int32_t i = 0; i < ctx->num_instruments; ++i) {
    const rt_pass_instrument_t *ins = &ctx->instruments[i];
    if (ins->after_pass) RT_RETURN_IF_ERROR(ins->after_pass(ins->user, &step->info, *m, d, elapsed));
  }
  return RT_OK;
}

rt_status_t rt_pass_run_pipeline(rt_module_t *module, const rt_pass_context_t *ctx,
                                 const char *executor, rt_module_t **out_module,
                                 rt_module_t **out_shared) {
  rt_pass_context_t defaults;
  if (!ctx) {
    rt_pass_context_defaults(&defaults);
    ctx = &defaults;
  }
  rt_status_t st = RT_OK;
  for (int32_t i = 0; i < ctx->num_instruments && !st; ++i) {
    const rt_pass_instrument_t *ins = &ctx->instruments[i];
    if (ins->enter_pipeline) st = ins->enter_pipeline(ins->user, module);
  }
  if (st) return st;
  rt_module_t *m = module, *shared = NULL;
  rt_module_retain(m);
  for (size_t i = 0; i < RT_COUNTOF(kSteps) && !st; ++i) {
    const step_t *s = &kSteps[i];
    if (s->executor[0] && !shared) {
      shared = m; /* the shared list is over: every executor saw this IR */
      rt_module_retain(shared);
    }
    if (s->executor[0] && (!executor || strcmp(s->executor, executor) != 0)) continue;
    st = run_step(s, ctx, &m);
  }
  if (!shared) {
    shared = m;
    rt_module_retain(shared);
  }
  for (int32_t i = 0; i < ctx->num_instruments && !st; ++i) {
    const rt_pass_instrument_t *ins = &ctx->instruments[i];
    if (ins->exit_pipeline) st = ins->exit_pipeline(ins->user, m);
  }
  if (st) {
    rt_module_release(shared);
    rt_module_release(m);
    return st;
  }
  if (out_shared) {
    *out_shared = shared;
  } else {
    rt_module_release(shared);
  }
  *out_module = m;
  return RT_OK;
}

rt_status_t rt_module_build(rt_module_t *module, const rt_pass_context_t *context,
                            rt_module_t **out_module) {
  return rt_pass_run_pipeline(module, context, NULL, out_module, NULL);
}

rt_status_t rt_module_run_pass(rt_module_t *module, const char *pass_name,
                               const rt_pass_context_t *context, rt_module_t **out_module) {
  rt_pass_context_t defaults;
  if (!context) {
    rt_pass_context_defaults(&defaults);
    context = &defaults;
  }
  for (size_t i = 0; i < RT_COUNTOF(kSteps); ++i) {
    if (strcmp(kSteps[i].info.name, pass_name) != 0) continue;
    rt_module_t *m = module;
    rt_module_retain(m);
    rt_status_t st = run_step(&kSteps[i], context, &m);
    if (st) {
      rt_module_release(m);
      return st;
    }
    *out_module = m;
    return RT_OK;
  }
  return RT_STATUS(NOT_FOUND, "unknown pass '%s' (relayrt build --list-passes lists them)",
                   pass_name);
}
