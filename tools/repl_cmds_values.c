/* Values: :input :print :save :compare, and the Relay expressions typed at
 * the prompt (tools/repl.h).
 *
 * :compare checks one value, or main's outputs, against another executor
 * or opt_level. `:compare %N` takes the value the debug run recorded for
 * %N and computes the same binding elsewhere with
 * rt_create_executor_for_binding (main cut at that binding, then the other
 * configuration's whole pipeline), on the same inputs. Agreement is numpy's
 * allclose with rtol 1e-3, atol 1e-4 (the ONNX conformance tolerances),
 * and the largest difference is printed either way.
 *
 * An expression (`add(%3, 1f)`) becomes a one-expression @main whose
 * parameters are the values it names (typed by their tensors), parsed with
 * the text parser (so its diagnostics point into the typed line) and run on
 * a debug executor of its own. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "repl.h"

#define COMPARE_RTOL 1e-3
#define COMPARE_ATOL 1e-4

/* Does `t` fit input `info` (`?` dims take any size)? */
static bool fits(const rt_tensor_t *t, const rt_tensor_info_t *info) {
  if (!rt_dtype_equal(rt_tensor_dtype(t), info->dtype) || rt_tensor_rank(t) != info->rank) {
    return false;
  }
  for (int32_t d = 0; d < info->rank; ++d) {
    if (info->shape[d] != RT_DIM_ANY && info->shape[d] != rt_tensor_shape(t)[d]) return false;
  }
  return true;
}

rt_status_t cmd_input(repl *r, char *args) {
  char *spec = repl_next_word(&args);
  char *eq = strchr(spec, '=');
  if (!eq || eq == spec || eq[1] == '\0') {
    return RT_STATUS(INVALID_ARGUMENT, ":input expects NAME=FILE.npy or NAME=random, got '%s'",
                     spec);
  }
  *eq = '\0';
  const char *name = spec[0] == '%' ? spec + 1 : spec;
  rt_executor_t *ex = NULL;
  RT_RETURN_IF_ERROR(repl_executor(r, KIND_DEBUG, &ex));
  int32_t idx;
  RT_RETURN_IF_ERROR(rt_executor_input_index(ex, name, &idx)); /* an info call: fine while parked */
  const char *file = strcmp(eq + 1, "random") == 0 ? NULL : eq + 1;
  if (file) {
    rt_tensor_info_t info;
    RT_RETURN_IF_ERROR(rt_executor_input_info(ex, idx, &info));
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(rt_npy_read_file(rt_allocator_system(), file, &t));
    bool ok = fits(t, &info);
    char want[256], got[256];
    cli_type_text(info.dtype, info.rank, info.shape, want, sizeof want);
    cli_type_text(rt_tensor_dtype(t), rt_tensor_rank(t), rt_tensor_shape(t), got, sizeof got);
    rt_tensor_release(t);
    if (!ok) {
      return RT_STATUS(INVALID_ARGUMENT, "input '%s' expects %s, %s holds %s", name, want, file,
                       got);
    }
  }
  repl_input *slot = NULL;
  for (int i = 0; i < r->ninputs; ++i) {
    if (strcmp(r->inputs[i].name, name) == 0) slot = &r->inputs[i];
  }
  char *file_copy = file ? repl_dupstr(file) : NULL;
  if (file && !file_copy) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  if (!slot) {
    char *name_copy = repl_dupstr(name);
    if (r->ninputs == REPL_MAX_INPUTS || !name_copy) {
      free(name_copy);
      free(file_copy);
      return RT_STATUS(RESOURCE_EXHAUSTED, "too many inputs");
    }
    slot = &r->inputs[r->ninputs++];
    slot->name = name_copy;
  } else {
    free(slot->file);
  }
  slot->file = file_copy;
  repl_reset_stepping(r); /* a run in flight used the old input */
  printf("input %s = %s\n", name, file ? file : "random (seeded)");
  return RT_OK;
}

rt_status_t cmd_print(repl *r, char *args) {
  char *ref = repl_next_word(&args);
  const repl_value *v = repl_find_value(r, ref);
  if (v && v->n > 1) {
    for (int32_t i = 0; i < v->n; ++i) {
      char name[64];
      snprintf(name, sizeof name, "%s.%d", ref, (int)i);
      cli_print_summary(stdout, name, v->tensors[i]);
    }
    return RT_OK;
  }
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(repl_lookup_tensor(r, ref, &t));
  cli_print_summary(stdout, ref, t);
  return RT_OK;
}

rt_status_t cmd_save(repl *r, char *args) {
  char *ref = repl_next_word(&args);
  char *file = repl_next_word(&args);
  if (!*file) return RT_STATUS(INVALID_ARGUMENT, ":save expects %%N FILE.npy");
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(repl_lookup_tensor(r, ref, &t));
  RT_RETURN_IF_ERROR(rt_npy_write_file(t, file));
  printf("saved %s to %s\n", ref, file);
  return RT_OK;
}


/* One tensor against another: shapes, then numpy's allclose. */
static void compare_tensors(const char *name, const rt_tensor_t *a, const rt_tensor_t *b,
                            const char *label) {
  char ta[256], tb[256];
  cli_type_text(rt_tensor_dtype(a), rt_tensor_rank(a), rt_tensor_shape(a), ta, sizeof ta);
  cli_type_text(rt_tensor_dtype(b), rt_tensor_rank(b), rt_tensor_shape(b), tb, sizeof tb);
  if (strcmp(ta, tb) != 0) {
    printf("%s: %s: %s vs %s (DIFFER)\n", name, label, ta, tb);
    return;
  }
  double max_abs = 0;
  int64_t worst = 0, bad = 0;
  for (int64_t e = 0; e < rt_tensor_numel(a); ++e) {
    double x = rt_tensor_get_f64(a, e), y = rt_tensor_get_f64(b, e);
    double d = fabs(x - y);
    bool same = x == y || d <= COMPARE_ATOL + COMPARE_RTOL * fabs(y);
    if (!same) bad++;
    if (d > max_abs || (d != d && max_abs == max_abs)) {
      max_abs = d;
      worst = e;
    }
  }
  if (bad) {
    printf("%s: %s: max |diff| = %.3g at element %lld, %lld of %lld elements differ (DIFFER)\n",
           name, label, max_abs, (long long)worst, (long long)bad,
           (long long)rt_tensor_numel(a));
  } else {
    printf("%s: %s: max |diff| = %.3g at element %lld (match)\n", name, label, max_abs,
           (long long)worst);
  }
}

/* Creates and runs the executor `:compare` checks against. */
static rt_status_t run_other(repl *r, const char *kind, long level, const char *binding,
                             rt_executor_t **out) {
  rt_pass_context_t *ctx = NULL;
  rt_executor_t *ex = NULL;
  rt_status_t st = rt_pass_context_copy(r->ctx, &ctx);
  if (!st && level >= 0) st = rt_pass_context_set_opt_level(ctx, (int32_t)level);
  if (!st) {
    st = binding ? rt_create_executor_for_binding(kind, r->module, binding, NULL, ctx, NULL, &ex)
                 : rt_create_executor(kind, r->module, NULL, ctx, NULL, &ex);
  }
  if (!st) st = repl_set_inputs(r, ex);
  if (!st) st = rt_executor_run(ex);
  rt_pass_context_release(ctx);
  if (st) {
    rt_executor_release(ex);
    return st;
  }
  *out = ex;
  return RT_OK;
}

rt_status_t cmd_compare(repl *r, char *args) {
  RT_RETURN_IF_ERROR(repl_need_module(r));
  const char *kind = "graph";
  const char *ref = NULL;
  long level = -1;
  for (char *w = repl_next_word(&args); *w; w = repl_next_word(&args)) {
    if (w[0] == '%' && !ref) {
      ref = w;
    } else if (strncmp(w, "opt_level=", 10) == 0) {
      char *end = NULL;
      level = strtol(w + 10, &end, 10);
      if (!w[10] || *end || level < 0 || level > 4) {
        return RT_STATUS(INVALID_ARGUMENT, "opt_level expects 0..4, got '%s'", w + 10);
      }
    } else if (repl_kind_index(w) >= 0) {
      kind = w;
    } else {
      return RT_STATUS(INVALID_ARGUMENT,
                       ":compare expects [%%N] [debug|graph|vm] [opt_level=N], got '%s'", w);
    }
  }
  char label[96];
  int here = (int)rt_pass_context_opt_level(r->ctx);
  snprintf(label, sizeof label, "debug at opt_level %d vs %s at opt_level %d", here, kind,
           (int)(level >= 0 ? level : here));
  if (ref) {
    if (ref[1] < '0' || ref[1] > '9') {
      return RT_STATUS(INVALID_ARGUMENT, ":compare expects a binding like %%3, got '%s' "
                                         "(inputs are the same everywhere)", ref);
    }
    const repl_value *v = repl_find_value(r, ref);
    if (!v) return repl_no_value(r, ref);
    rt_executor_t *ex = NULL;
    RT_RETURN_IF_ERROR(run_other(r, kind, level, ref, &ex));
    rt_status_t st = RT_OK;
    if (rt_executor_num_outputs(ex) != v->n) {
      st = RT_STATUS(INTERNAL, "%s has %d tensors here and %d under %s", ref, (int)v->n,
                     (int)rt_executor_num_outputs(ex), kind);
    }
    for (int32_t i = 0; !st && i < v->n; ++i) {
      rt_tensor_t *b = NULL;
      st = rt_executor_get_output(ex, i, &b);
      char name[64];
      if (v->n == 1) {
        snprintf(name, sizeof name, "%s", ref);
      } else {
        snprintf(name, sizeof name, "%s.%d", ref, (int)i);
      }
      if (!st) compare_tensors(name, v->tensors[i], b, label);
    }
    rt_executor_release(ex);
    return st;
  }
  /* The outputs. While a debug run is in flight the session's debug
   * executor is busy: the reference run gets one of its own. */
  rt_executor_t *dbg = NULL, *own = NULL, *ex = NULL;
  rt_status_t st = RT_OK;
  if (r->step.active) {
    st = rt_create_executor("debug", r->module, NULL, r->ctx, NULL, &own);
    dbg = own;
  } else {
    st = repl_executor(r, KIND_DEBUG, &dbg);
  }
  if (!st) st = repl_set_inputs(r, dbg);
  if (!st) st = rt_executor_run(dbg);
  if (!st) st = run_other(r, kind, level, NULL, &ex);
  for (int32_t i = 0; !st && i < rt_executor_num_outputs(dbg); ++i) {
    rt_tensor_t *a = NULL, *b = NULL;
    st = rt_executor_get_output(dbg, i, &a);
    if (!st) st = rt_executor_get_output(ex, i, &b);
    char name[32];
    snprintf(name, sizeof name, "output_%d", (int)i);
    if (!st) compare_tensors(name, a, b, label);
  }
  rt_executor_release(ex);
  rt_executor_release(own);
  return st;
}

/* Evaluates a Relay expression against the current values: each %N and
 * %input it names becomes a parameter of a one-expression @main, typed by
 * the value's tensor, run on the debug executor. Diagnostics point into the
 * typed line ("<prompt>:1:col"). */
rt_status_t repl_eval_expr(repl *r, const char *expr) {
  RT_RETURN_IF_ERROR(repl_need_module(r));
  enum { MAX_REFS = 32 };
  char *refs[MAX_REFS];
  rt_tensor_t *vals[MAX_REFS];
  int nrefs = 0;
  size_t cap = strlen(expr) * 2 + 4096, n = 0;
  char *body = malloc(cap);
  char *params = malloc(cap * 2);
  char *text = NULL;
  rt_module_t *m = NULL;
  rt_executor_t *ex = NULL;
  rt_status_t st = (!body || !params) ? RT_STATUS(RESOURCE_EXHAUSTED, "out of memory") : RT_OK;
  size_t np = 0;
  if (!st) params[0] = '\0';
  for (const char *p = expr; !st && *p; ++p) {
    if (*p != '%') {
      if (n + 2 < cap) body[n++] = *p;
      continue;
    }
    const char *s = p + 1;
    size_t len = 0;
    while (s[len] == '_' || (s[len] >= '0' && s[len] <= '9') || (s[len] >= 'a' && s[len] <= 'z') ||
           (s[len] >= 'A' && s[len] <= 'Z')) {
      len++;
    }
    char ref[128];
    snprintf(ref, sizeof ref, "%%%.*s", (int)(len < 120 ? len : 120), s);
    int k = 0;
    for (; k < nrefs; ++k) {
      if (strcmp(refs[k], ref) == 0) break;
    }
    if (k == nrefs) {
      if (nrefs == MAX_REFS) {
        st = RT_STATUS(RESOURCE_EXHAUSTED, "too many values in one expression");
        break;
      }
      rt_tensor_t *t = NULL;
      st = repl_lookup_tensor(r, ref, &t);
      if (st) break;
      refs[nrefs] = repl_dupstr(ref);
      vals[nrefs] = t;
      char ty[256];
      cli_type_text(rt_tensor_dtype(t), rt_tensor_rank(t), rt_tensor_shape(t), ty, sizeof ty);
      np += (size_t)snprintf(params + np, cap * 2 - np, "%s%%v%d: %s", nrefs ? ", " : "", k, ty);
      nrefs++;
    }
    n += (size_t)snprintf(body + n, cap - n, "%%v%d", k);
    p = s + len - 1;
  }
  if (!st) {
    body[n] = '\0';
    size_t tn = strlen(body) + strlen(params) + 64;
    text = malloc(tn);
    if (!text) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
    if (text) snprintf(text, tn, "#[version = \"0.0.5\"]\ndef @main(%s) {\n%s\n}\n", params, body);
  }
  if (!st) {
    st = rt_module_parse(text, strlen(text), "<prompt>", &m);
    if (st) {
      /* The expression is line 3 of the text made here: say line 1. */
      const char *msg = rt_status_message(st);
      const char *at = strncmp(msg, "<prompt>:3:", 11) == 0 ? msg + 11 : NULL;
      if (at) {
        rt_status_t fixed = RT_STATUS(INVALID_ARGUMENT, "<prompt>:1:%s", at);
        rt_status_free(st);
        st = fixed;
      }
    }
  }
  if (!st) st = rt_create_executor("debug", m, NULL, r->ctx, NULL, &ex);
  for (int k = 0; !st && k < nrefs; ++k) st = rt_executor_set_input(ex, k, vals[k]);
  if (!st) st = rt_executor_run(ex);
  for (int32_t i = 0; !st && i < rt_executor_num_outputs(ex); ++i) {
    rt_tensor_t *t = NULL;
    st = rt_executor_get_output(ex, i, &t);
    if (!st) cli_print_summary(stdout, "=", t);
  }
  for (int k = 0; k < nrefs; ++k) free(refs[k]);
  rt_executor_release(ex);
  rt_module_release(m);
  free(text);
  free(body);
  free(params);
  return st;
}

