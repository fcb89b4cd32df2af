/* Helpers shared by the pass tests: see pass_test_util.h. */
#include "pass_test_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

rt_status_t pt_context_no_passes(rt_pass_context_t **out_ctx) {
  rt_pass_context_t *ctx = NULL;
  RT_RETURN_IF_ERROR(rt_pass_context_create(&ctx));
  rt_status_t st = rt_pass_context_set_opt_level(ctx, 0);
  for (int32_t i = 0; i < rt_pass_count() && !st; ++i) {
    const char *name = rt_pass_at(i)->name;
    bool seen = false;
    for (int32_t j = 0; j < i; ++j) seen = seen || strcmp(rt_pass_at(j)->name, name) == 0;
    if (!seen) st = rt_pass_context_disable(ctx, name);
  }
  if (st) {
    rt_pass_context_release(ctx);
    return st;
  }
  *out_ctx = ctx;
  return RT_OK;
}

static bool listed(const char *list, const char *name) {
  if (!list) return false;
  size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p += n) {
    bool start = p == list || p[-1] == ' ';
    bool end = p[n] == '\0' || p[n] == ' ';
    if (start && end) return true;
  }
  return false;
}

static void make_positive(rt_tensor_t *t) {
  rt_dtype_t dt = rt_tensor_dtype(t);
  int64_t n = rt_tensor_numel(t);
  if (dt.code == kDLFloat && dt.bits == 32) {
    float *p = rt_tensor_data(t);
    for (int64_t i = 0; i < n; ++i) p[i] = fabsf(p[i]) + 0.5f;
  } else if (dt.code == kDLFloat && dt.bits == 64) {
    double *p = rt_tensor_data(t);
    for (int64_t i = 0; i < n; ++i) p[i] = fabs(p[i]) + 0.5;
  }
}

rt_status_t pt_run_main(rt_module_t *m, const rt_pass_context_t *ctx, uint64_t seed,
                        const char *positive, pt_run_t *out_run, bool *out_skipped) {
  return pt_run_main_on("debug", m, ctx, seed, positive, out_run, out_skipped);
}

rt_status_t pt_run_main_on(const char *kind, rt_module_t *m, const rt_pass_context_t *ctx,
                           uint64_t seed, const char *positive, pt_run_t *out_run,
                           bool *out_skipped) {
  memset(out_run, 0, sizeof *out_run);
  *out_skipped = false;
  rt_executor_t *ex = NULL;
  rt_status_t st = rt_create_executor(kind, m, NULL, ctx, NULL, &ex);
  if (st && rt_status_code(st) == RT_STATUS_INVALID_ARGUMENT &&
      strstr(rt_status_message(st), "is not a tensor")) {
    rt_status_free(st);
    *out_skipped = true;
    return RT_OK;
  }
  for (int32_t i = 0; !st && i < rt_executor_num_inputs(ex); ++i) {
    rt_tensor_info_t info;
    st = rt_executor_input_info(ex, i, &info);
    if (st) break;
    int64_t shape[RT_TENSOR_MAX_RANK];
    for (int32_t d = 0; d < info.rank; ++d) shape[d] = info.shape[d] < 0 ? 2 : info.shape[d];
    rt_tensor_t *t = NULL;
    st = rt_tensor_create(rt_allocator_system(), info.dtype, info.rank, shape, &t);
    if (st) break;
    rt_tensor_fill_random(t, seed * 1000003u + (uint64_t)i);
    if (listed(positive, info.name)) make_positive(t);
    st = rt_executor_set_input(ex, i, t);
    rt_tensor_release(t);
  }
  if (!st) st = rt_executor_run(ex);
  if (!st && rt_executor_num_outputs(ex) > PT_MAX_OUTPUTS) {
    st = RT_STATUS(OUT_OF_RANGE, "too many outputs for the test");
  }
  for (int32_t i = 0; !st && i < rt_executor_num_outputs(ex); ++i) {
    rt_tensor_t *t = NULL;
    st = rt_executor_get_output(ex, i, &t);
    if (!st) {
      rt_tensor_retain(t);
      out_run->outputs[out_run->num_outputs++] = t;
    }
  }
  rt_executor_release(ex);
  if (st) pt_run_release(out_run);
  return st;
}

void pt_run_release(pt_run_t *run) {
  for (int32_t i = 0; i < run->num_outputs; ++i) rt_tensor_release(run->outputs[i]);
  run->num_outputs = 0;
}

bool pt_runs_match(const pt_run_t *a, const pt_run_t *b, double rtol, double atol, char *msg,
                   size_t cap) {
  if (a->num_outputs != b->num_outputs) {
    snprintf(msg, cap, "%d outputs vs %d", (int)a->num_outputs, (int)b->num_outputs);
    return false;
  }
  for (int32_t i = 0; i < a->num_outputs; ++i) {
    const rt_tensor_t *x = a->outputs[i], *y = b->outputs[i];
    rt_dtype_t dt = rt_tensor_dtype(x);
    bool same = rt_dtype_equal(dt, rt_tensor_dtype(y)) && rt_tensor_rank(x) == rt_tensor_rank(y);
    for (int32_t d = 0; same && d < rt_tensor_rank(x); ++d) {
      same = rt_tensor_shape(x)[d] == rt_tensor_shape(y)[d];
    }
    if (!same) {
      snprintf(msg, cap, "output %d: dtype or shape differs", (int)i);
      return false;
    }
    const bool is_float = rt_dtype_is_float(dt);
    for (int64_t k = 0; k < rt_tensor_numel(x); ++k) {
      double u = rt_tensor_get_f64(x, k), v = rt_tensor_get_f64(y, k);
      bool ok;
      if (!is_float) {
        ok = u == v;
      } else if (isnan(u) || isnan(v)) {
        ok = isnan(u) && isnan(v);
      } else if (isinf(u) || isinf(v)) {
        ok = u == v;
      } else {
        ok = fabs(u - v) <= atol + rtol * fabs(v);
      }
      if (!ok) {
        snprintf(msg, cap, "output %d element %lld: %.9g vs %.9g", (int)i, (long long)k, u, v);
        return false;
      }
    }
  }
  return true;
}
