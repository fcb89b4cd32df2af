/* The state of a `relayrt repl` session (tools/repl.h) and the helpers the
 * command files share: the current module with an undo stack of earlier
 * ones, executors created on demand from the current module and pass
 * context (dropped whenever either changes, which also ends a debug run in
 * flight), the inputs the user chose, and lookups of recorded values by
 * their binding label ("%3") or of inputs by name ("%data").
 *
 * Binding labels are the ones the model's text gave its nodes: passes keep
 * them on the nodes they rewrite (a fused call carries its group's last
 * binding, the ops inside a group keep theirs), so "%3" names the same
 * value before and after :apply, in the stepping run and under :compare. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "repl.h"

const char *const kReplKinds[3] = {"debug", "graph", "vm"};

char *repl_dupstr(const char *s) {
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

char *repl_next_word(char **s) {
  char *p = *s;
  while (*p == ' ' || *p == '\t') p++;
  char *w = p;
  while (*p && *p != ' ' && *p != '\t') p++;
  if (*p) *p++ = '\0';
  while (*p == ' ' || *p == '\t') p++;
  *s = p;
  return w;
}

double repl_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

bool repl_in_list(char *const *list, int n, const char *name) {
  for (int i = 0; i < n; ++i) {
    if (strcmp(list[i], name) == 0) return true;
  }
  return false;
}

int repl_kind_index(const char *name) {
  for (int i = 0; i < 3; ++i) {
    if (strcmp(name, kReplKinds[i]) == 0) return i;
  }
  return -1;
}

void repl_initialize(repl *r) {
  memset(r, 0, sizeof *r);
  pthread_mutex_init(&r->step.mu, NULL);
  pthread_cond_init(&r->step.cv, NULL);
}

void repl_deinitialize(repl *r) {
  repl_drop_executors(r);
  free(r->values);
  for (int i = 0; i < r->nundo; ++i) rt_module_release(r->undo[i]);
  rt_module_release(r->module);
  rt_pass_context_release(r->ctx);
  for (int i = 0; i < r->nrequired; ++i) free(r->required[i]);
  for (int i = 0; i < r->ndisabled; ++i) free(r->disabled[i]);
  for (int i = 0; i < r->ninputs; ++i) {
    free(r->inputs[i].name);
    free(r->inputs[i].file);
  }
  for (int i = 0; i < r->nbreaks; ++i) free(r->breaks[i]);
  free(r->model_name);
  pthread_cond_destroy(&r->step.cv);
  pthread_mutex_destroy(&r->step.mu);
}

void repl_drop_executors(repl *r) {
  repl_reset_stepping(r); /* the worker runs ex[KIND_DEBUG]: stop it first */
  for (int i = 0; i < 3; ++i) {
    rt_executor_release(r->ex[i]);
    r->ex[i] = NULL;
  }
  rt_executor_release(r->asm_ex);
  r->asm_ex = NULL;
  for (int i = 0; i < REPL_MAX_INPUTS; ++i) {
    rt_tensor_release(r->in_vals[i]);
    r->in_vals[i] = NULL;
  }
}

void repl_set_module(repl *r, rt_module_t *m, bool keep_undo) {
  repl_drop_executors(r);
  if (keep_undo && r->module) {
    if (r->nundo == REPL_MAX_UNDO) {
      rt_module_release(r->undo[0]);
      memmove(r->undo, r->undo + 1, sizeof r->undo[0] * (REPL_MAX_UNDO - 1));
      r->nundo--;
    }
    r->undo[r->nundo++] = r->module;
  } else {
    rt_module_release(r->module);
  }
  r->module = m;
}

rt_status_t repl_need_module(const repl *r) {
  if (!r->module) return RT_STATUS(FAILED_PRECONDITION, "no model loaded: use :load FILE");
  return RT_OK;
}

rt_status_t repl_executor(repl *r, int kind, rt_executor_t **out) {
  RT_RETURN_IF_ERROR(repl_need_module(r));
  if (!r->ex[kind]) {
    RT_RETURN_IF_ERROR(
        rt_create_executor(kReplKinds[kind], r->module, NULL, r->ctx, NULL, &r->ex[kind]));
  }
  *out = r->ex[kind];
  return RT_OK;
}

rt_status_t repl_set_inputs(repl *r, rt_executor_t *ex) {
  for (int32_t i = 0; i < rt_executor_num_inputs(ex); ++i) {
    rt_tensor_info_t info;
    RT_RETURN_IF_ERROR(rt_executor_input_info(ex, i, &info));
    const repl_input *given = NULL;
    for (int k = 0; k < r->ninputs; ++k) {
      if (strcmp(r->inputs[k].name, info.name) == 0) given = &r->inputs[k];
    }
    rt_tensor_t *t = NULL;
    if (given && given->file) {
      RT_RETURN_IF_ERROR(rt_npy_read_file(rt_allocator_system(), given->file, &t));
    } else {
      for (int32_t d = 0; d < info.rank; ++d) {
        if (info.shape[d] < 0) {
          return RT_STATUS(INVALID_ARGUMENT,
                           "input '%s' has dynamic dims: give its data with :input %s=FILE.npy",
                           info.name, info.name);
        }
      }
      RT_RETURN_IF_ERROR(
          rt_tensor_create(rt_allocator_system(), info.dtype, info.rank, info.shape, &t));
      rt_tensor_fill_random(t, cli_seed(info.name));
    }
    rt_status_t st = rt_executor_set_input(ex, i, t);
    if (i < REPL_MAX_INPUTS) {
      rt_tensor_release(r->in_vals[i]);
      r->in_vals[i] = t;
    } else {
      rt_tensor_release(t);
    }
    RT_RETURN_IF_ERROR(st);
  }
  return RT_OK;
}

/* Values from index `from` on at call depth `d` (or inside a fused group
 * called there) labelled `label`, the latest first. */
static const repl_value *find_in_frame(const repl *r, int from, int32_t d, const char *label) {
  for (int i = r->nvalues - 1; i >= from; --i) {
    const repl_value *v = &r->values[i];
    bool here = (v->depth == d && !v->in_fused) || (v->depth == d + 1 && v->in_fused);
    if (here && strcmp(v->label, label) == 0) return v;
  }
  return NULL;
}

const repl_value *repl_find_value(const repl *r, const char *label) {
  int32_t base = r->step.base_depth;
  if (r->paused) {
    /* The frame paused in: a function called from main has its own labels. */
    int32_t d = r->where_in_fused ? r->where_depth - 1 : r->where_depth;
    if (d > base && d < REPL_MAX_FRAMES) {
      const repl_value *v = find_in_frame(r, r->step.frame_start[d], d, label);
      if (v) return v;
    }
  }
  for (int i = r->nvalues - 1; i >= 0; --i) {
    const repl_value *v = &r->values[i];
    if (v->depth == base && !v->in_fused && strcmp(v->label, label) == 0) return v;
  }
  /* Not one of main's own bindings: an op inside a fused group called from
   * main keeps the label it had before FuseOps. */
  for (int i = r->nvalues - 1; i >= 0; --i) {
    const repl_value *v = &r->values[i];
    if (v->depth == base + 1 && v->in_fused && strcmp(v->label, label) == 0) return v;
  }
  return NULL;
}

rt_status_t repl_lookup_tensor(repl *r, const char *ref, rt_tensor_t **out) {
  if (strncmp(ref, "output_", 7) == 0 && ref[7] >= '0' && ref[7] <= '9') {
    /* An output of the last debug run that ran to its end. */
    char *end = NULL;
    long i = strtol(ref + 7, &end, 10);
    if (*end || r->step.active || !r->ex[KIND_DEBUG] || r->nvalues == 0) {
      return RT_STATUS(NOT_FOUND, "no %s: the outputs are there once a debug run finished "
                                  "(:run, or :continue to the end)", ref);
    }
    if (i >= rt_executor_num_outputs(r->ex[KIND_DEBUG])) {
      return RT_STATUS(OUT_OF_RANGE, "no %s: @main has %d output(s)", ref,
                       (int)rt_executor_num_outputs(r->ex[KIND_DEBUG]));
    }
    return rt_executor_get_output(r->ex[KIND_DEBUG], (int32_t)i, out);
  }
  if (ref[0] != '%' || ref[1] == '\0') {
    return RT_STATUS(INVALID_ARGUMENT,
                     "expected a binding like %%3, an input like %%data or output_0, got '%s'",
                     ref);
  }
  const repl_value *v = repl_find_value(r, ref);
  if (v) {
    if (v->n != 1) {
      return RT_STATUS(INVALID_ARGUMENT, "%s holds %d tensors (a tuple or closure), not one", ref,
                       (int)v->n);
    }
    *out = v->tensors[0];
    return RT_OK;
  }
  if (!(ref[1] >= '0' && ref[1] <= '9')) {
    /* An input. While a debug run is parked this only reads the
     * executor's signature (the worker waits; no call runs concurrently). */
    rt_executor_t *ex = NULL;
    RT_RETURN_IF_ERROR(repl_executor(r, KIND_DEBUG, &ex));
    int32_t idx;
    RT_RETURN_IF_ERROR(rt_executor_input_index(ex, ref + 1, &idx));
    if (idx >= REPL_MAX_INPUTS) {
      return RT_STATUS(OUT_OF_RANGE, "input %s is past the first %d", ref, REPL_MAX_INPUTS);
    }
    if (!r->in_vals[idx]) {
      if (r->step.active) return RT_STATUS(INTERNAL, "input %s was not set for the run", ref);
      RT_RETURN_IF_ERROR(repl_set_inputs(r, ex));
    }
    *out = r->in_vals[idx];
    return RT_OK;
  }
  return repl_no_value(r, ref);
}

rt_status_t repl_no_value(const repl *r, const char *ref) {
  size_t n = strlen(ref);
  if (r->paused && r->where_text && strncmp(r->where_text, ref, n) == 0 &&
      strncmp(r->where_text + n, " = ", 3) == 0) {
    return RT_STATUS(NOT_FOUND, "%s is the binding about to be evaluated (:where): :step or :next "
                                "computes it", ref);
  }
  return RT_STATUS(NOT_FOUND,
                   "no value for %s yet: :run, :step or :continue past it "
                   "(labels are the model text's, as :where shows them)",
                   ref);
}

rt_status_t repl_module_text(const rt_module_t *m, char **out) {
  return rt_module_print(m, RT_PRINT_NO_METADATA, out);
}

void repl_print_outputs(rt_executor_t *ex) {
  for (int32_t i = 0; i < rt_executor_num_outputs(ex); ++i) {
    rt_tensor_t *t = NULL;
    rt_status_t st = rt_executor_get_output(ex, i, &t);
    if (st) {
      fflush(stdout);
      cli_report(st);
      continue;
    }
    char name[32];
    snprintf(name, sizeof name, "output_%d", (int)i);
    cli_print_summary(stdout, name, t);
  }
}
