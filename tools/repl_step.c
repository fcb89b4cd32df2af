/* Stepping through @main with the debug executor: :run :step :next
 * :continue :break :where (tools/repl.h).
 *
 * Model: one run per session at a time, on a worker thread. The worker
 * calls rt_executor_run on the session's debug executor with a step
 * callback; the callback records every "after" event's value and, at a
 * "before" event the current command's predicate accepts (STEP_INTO: any;
 * STEP_OVER: at or above the depth paused at; STEP_RUN: a breakpoint), it
 * parks: it hands the turn to the session and waits until :step, :next or
 * :continue hands it back with a new predicate, or the session ends the
 * run (the callback then returns CANCELLED and the run unwinds). So a step
 * costs one binding, never a re-run of the prefix, and a run stepped to its
 * end is the same single run as :run: same outputs, same final values.
 *
 * Turns: `worker_turn` under `mu` says who runs; the other side waits on
 * `cv`. Exactly one side runs at a time, so the session may read the
 * recorded values and the executor's signature while the worker is parked,
 * and the worker may append values while the session waits: the mutex
 * hand-off orders the two. The session never calls the debug executor's
 * run, set_input or set_step_callback while a run is in flight: every
 * command that would (`:run`, `:input`, a module or context change) ends
 * the run first (repl_reset_stepping).
 *
 * Fused groups: the executor reports the bindings inside a fused group
 * (rt_executor_set_step_into_fused), one level deeper, flagged in_fused;
 * :step enters a group, :next steps over it, and inside one :next goes op
 * by op. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "repl.h"

extern const char rt_builtin_example[];
extern const size_t rt_builtin_example_size;

#define STEP_THREAD_STACK ((size_t)64 << 20) /* the interpreter recurses per call */

/* ---- values ---------------------------------------------------------------- */

static void clear_values(repl *r) {
  for (int i = 0; i < r->nvalues; ++i) {
    for (int32_t j = 0; j < r->values[i].n; ++j) rt_tensor_release(r->values[i].tensors[j]);
    free(r->values[i].tensors);
    free(r->values[i].label);
    free(r->values[i].text);
  }
  r->nvalues = 0;
}

static void clear_where(repl *r) {
  r->paused = false;
  free(r->where_text);
  free(r->where_source);
  r->where_text = r->where_source = NULL;
  r->where_line = 0;
  r->where_depth = 0;
  r->where_in_fused = false;
}

/* "%3" from "%3 = ..."; NULL when the text is not a numbered binding. */
static char *binding_label(const char *text) {
  if (text[0] != '%') return NULL;
  size_t n = 1;
  while (text[n] >= '0' && text[n] <= '9') n++;
  if (n == 1 || strncmp(text + n, " = ", 3) != 0) return NULL;
  char *l = malloc(n + 1);
  if (!l) return NULL;
  memcpy(l, text, n);
  l[n] = '\0';
  return l;
}

static rt_status_t record(repl *r, const rt_step_event_t *ev) {
  if (r->nvalues == r->capvalues) {
    int cap = r->capvalues ? 2 * r->capvalues : 64;
    repl_value *v = realloc(r->values, sizeof *v * (size_t)cap);
    if (!v) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
    r->values = v;
    r->capvalues = cap;
  }
  repl_value *v = &r->values[r->nvalues];
  memset(v, 0, sizeof *v);
  v->label = binding_label(ev->text);
  if (!v->label) v->label = repl_dupstr("?"); /* unnamed: main's result, an op's operand */
  v->text = repl_dupstr(ev->text);
  v->depth = ev->call_depth;
  v->in_fused = ev->in_fused;
  v->tensors = calloc((size_t)(ev->num_tensors ? ev->num_tensors : 1), sizeof(rt_tensor_t *));
  if (!v->label || !v->text || !v->tensors) {
    free(v->label);
    free(v->text);
    free(v->tensors);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  }
  for (int32_t i = 0; i < ev->num_tensors; ++i) {
    rt_tensor_retain(ev->tensors[i]);
    v->tensors[i] = ev->tensors[i];
  }
  v->n = ev->num_tensors;
  r->nvalues++;
  return RT_OK;
}

/* ---- breakpoints ------------------------------------------------------------ */

/* The callee of a one-line binding form: "nn.relu" in "%3 = nn.relu(%2)". */
static void callee_of(const char *text, const char **out, size_t *out_len) {
  const char *p = text;
  if (p[0] == '%') {
    const char *eq = strstr(p, " = ");
    if (eq) p = eq + 3;
  }
  size_t n = 0;
  while (p[n] && p[n] != '(' && p[n] != ' ') n++;
  *out = p;
  *out_len = p[n] == '(' ? n : 0;
}

static bool matches_break(const repl *r, const char *text) {
  const char *callee;
  size_t clen;
  callee_of(text, &callee, &clen);
  for (int i = 0; i < r->nbreaks; ++i) {
    const char *b = r->breaks[i];
    size_t n = strlen(b);
    if (b[0] == '%') {
      if (strncmp(text, b, n) == 0 && strncmp(text + n, " = ", 3) == 0) return true;
    } else if (clen == n && strncmp(callee, b, n) == 0) {
      return true;
    }
  }
  return false;
}

/* ---- the worker --------------------------------------------------------------- */

static void set_where(repl *r, const rt_step_event_t *ev) {
  free(r->where_text);
  free(r->where_source);
  r->where_text = repl_dupstr(ev->text);
  r->where_source = ev->source_name ? repl_dupstr(ev->source_name) : NULL;
  r->where_line = ev->line;
  r->where_depth = ev->call_depth;
  r->where_in_fused = ev->in_fused;
}

/* Worker side: gives the turn to the session and waits for it back.
 * CANCELLED when the session ended the run meanwhile. */
static rt_status_t park(repl_stepper *s) {
  pthread_mutex_lock(&s->mu);
  s->worker_turn = false;
  pthread_cond_broadcast(&s->cv);
  while (!s->worker_turn) pthread_cond_wait(&s->cv, &s->mu);
  bool cancel = s->cancel;
  pthread_mutex_unlock(&s->mu);
  return cancel ? RT_STATUS(CANCELLED, "the debug run was ended from the repl") : RT_OK;
}

static rt_status_t on_step(void *user, const rt_step_event_t *ev) {
  repl *r = user;
  repl_stepper *s = &r->step;
  /* Set by the session before it last handed the turn over (ordered by the
   * mutex); once set, the run only unwinds. */
  if (s->cancel) return RT_STATUS(CANCELLED, "the debug run was ended from the repl");
  /* A deeper event than the last opens a frame (a call, a fused group). */
  if (ev->call_depth > s->last_depth && ev->call_depth >= 0 && ev->call_depth < REPL_MAX_FRAMES) {
    s->frame_start[ev->call_depth] = r->nvalues;
  }
  s->last_depth = ev->call_depth;
  if (ev->after) return record(r, ev);
  long idx = s->nbefore++;
  if (idx == 0) s->base_depth = ev->call_depth;
  bool stop = false;
  switch (s->mode) {
    case STEP_INTO: stop = true; break;
    case STEP_OVER: stop = ev->call_depth <= s->stop_depth; break;
    case STEP_RUN: stop = matches_break(r, ev->text); break;
  }
  if (!stop) return RT_OK;
  set_where(r, ev);
  return park(s);
}

static void *worker_main(void *arg) {
  repl *r = arg;
  repl_stepper *s = &r->step;
  rt_status_t st = rt_executor_run(r->ex[KIND_DEBUG]);
  pthread_mutex_lock(&s->mu);
  s->result = st;
  s->finished = true;
  s->worker_turn = false;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

/* Session side: hands the turn to the worker and waits until it parks or
 * finishes. */
static void give_turn(repl_stepper *s) {
  pthread_mutex_lock(&s->mu);
  s->worker_turn = true;
  pthread_cond_broadcast(&s->cv);
  while (s->worker_turn) pthread_cond_wait(&s->cv, &s->mu);
  pthread_mutex_unlock(&s->mu);
}

/* After the worker finished: joins it and takes its status. */
static rt_status_t join_worker(repl *r) {
  repl_stepper *s = &r->step;
  pthread_join(s->thread, NULL);
  s->active = false;
  rt_status_t st = s->result;
  s->result = RT_OK;
  rt_status_free(rt_executor_set_step_callback(r->ex[KIND_DEBUG], NULL, NULL));
  return st;
}

static void print_where(const repl *r) {
  printf("at %s", r->where_text ? r->where_text : "?");
  if (r->where_source && r->where_line > 0) {
    printf("  (%s:%d)", r->where_source, (int)r->where_line);
  }
  if (r->where_in_fused) printf("  [inside a fused kernel]");
  printf("\n");
}

/* What a turn of the worker ended with: parked (print where) or finished
 * (print the outputs, or return the run's error). */
static rt_status_t after_turn(repl *r, bool say_finished) {
  if (!r->step.finished) {
    r->paused = true;
    print_where(r);
    return RT_OK;
  }
  clear_where(r);
  RT_RETURN_IF_ERROR(join_worker(r));
  if (say_finished) printf("finished\n");
  repl_print_outputs(r->ex[KIND_DEBUG]);
  return RT_OK;
}

static rt_status_t start_run(repl *r, step_mode mode, bool say_finished) {
  repl_reset_stepping(r);
  rt_executor_t *ex = NULL;
  RT_RETURN_IF_ERROR(repl_executor(r, KIND_DEBUG, &ex));
  RT_RETURN_IF_ERROR(repl_set_inputs(r, ex));
  RT_RETURN_IF_ERROR(rt_executor_set_step_into_fused(ex, true));
  RT_RETURN_IF_ERROR(rt_executor_set_step_callback(ex, on_step, r));
  repl_stepper *s = &r->step;
  s->mode = mode;
  s->stop_depth = INT32_MAX;
  s->base_depth = 0;
  s->nbefore = 0;
  s->last_depth = 0;
  s->cancel = false;
  s->finished = false;
  s->result = RT_OK;
  s->worker_turn = true;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, STEP_THREAD_STACK);
  int rc = pthread_create(&s->thread, &attr, worker_main, r);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    rt_status_free(rt_executor_set_step_callback(ex, NULL, NULL));
    return RT_STATUS(RESOURCE_EXHAUSTED, "cannot start the stepping thread: %s", strerror(rc));
  }
  s->active = true;
  /* The worker holds the turn from its creation: wait for it to park. */
  pthread_mutex_lock(&s->mu);
  while (s->worker_turn) pthread_cond_wait(&s->cv, &s->mu);
  pthread_mutex_unlock(&s->mu);
  return after_turn(r, say_finished);
}

static rt_status_t resume(repl *r, step_mode mode) {
  repl_stepper *s = &r->step;
  s->mode = mode;
  s->stop_depth = r->where_depth;
  give_turn(s);
  return after_turn(r, true);
}

void repl_reset_stepping(repl *r) {
  repl_stepper *s = &r->step;
  if (s->active) {
    pthread_mutex_lock(&s->mu);
    s->cancel = true;
    pthread_mutex_unlock(&s->mu);
    give_turn(s);
    rt_status_free(join_worker(r)); /* CANCELLED, or the run's own end */
  }
  clear_values(r);
  clear_where(r);
}

/* ---- commands ------------------------------------------------------------------- */

rt_status_t cmd_run(repl *r, char *args) {
  char *kind = repl_next_word(&args);
  int k = *kind ? repl_kind_index(kind) : KIND_DEBUG;
  if (k < 0) return RT_STATUS(INVALID_ARGUMENT, "unknown executor '%s': debug, graph or vm", kind);
  if (k == KIND_DEBUG) return start_run(r, STEP_RUN, false);
  rt_executor_t *ex = NULL;
  RT_RETURN_IF_ERROR(repl_executor(r, k, &ex));
  RT_RETURN_IF_ERROR(repl_set_inputs(r, ex));
  RT_RETURN_IF_ERROR(rt_executor_run(ex));
  repl_print_outputs(ex);
  return RT_OK;
}

static rt_status_t step_cmd(repl *r, step_mode mode) {
  RT_RETURN_IF_ERROR(repl_need_module(r));
  if (r->step.active && r->paused) return resume(r, mode);
  return start_run(r, mode, true);
}

rt_status_t cmd_step(repl *r, char *args) {
  (void)args;
  return step_cmd(r, STEP_INTO);
}

rt_status_t cmd_next(repl *r, char *args) {
  (void)args;
  return step_cmd(r, STEP_OVER);
}

rt_status_t cmd_continue(repl *r, char *args) {
  (void)args;
  return step_cmd(r, STEP_RUN);
}

rt_status_t cmd_break(repl *r, char *args) {
  char *what = repl_next_word(&args);
  if (!*what) {
    if (!r->nbreaks) printf("no breakpoints\n");
    for (int i = 0; i < r->nbreaks; ++i) printf("break %s\n", r->breaks[i]);
    return RT_OK;
  }
  if (what[0] == '%') {
    const char *p = what + 1;
    if (!*p) return RT_STATUS(INVALID_ARGUMENT, ":break expects %%N or an op name");
    for (; *p; ++p) {
      if (*p < '0' || *p > '9') {
        return RT_STATUS(INVALID_ARGUMENT,
                         ":break expects %%N (a number) or an op name, got '%s'", what);
      }
    }
  }
  if (r->nbreaks == REPL_MAX_BREAKS) return RT_STATUS(RESOURCE_EXHAUSTED, "too many breakpoints");
  char *copy = repl_dupstr(what);
  if (!copy) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  r->breaks[r->nbreaks++] = copy;
  printf("breakpoint %d at %s\n", r->nbreaks, what);
  return RT_OK;
}

/* Line `line` (1-based) of the model's source, or NULL. malloc'd. */
static char *source_line(const char *source, int32_t line) {
  char *src = NULL;
  if (strcmp(source, CLI_BUILTIN_NAME) == 0) {
    src = malloc(rt_builtin_example_size + 1);
    if (src) {
      memcpy(src, rt_builtin_example, rt_builtin_example_size);
      src[rt_builtin_example_size] = '\0';
    }
  } else {
    FILE *f = fopen(source, "rb");
    if (f) {
      long n = -1;
      if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
      if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) src = malloc((size_t)n + 1);
      if (src) src[fread(src, 1, (size_t)n, f)] = '\0';
      fclose(f);
    }
  }
  if (!src) return NULL;
  char *p = src;
  for (int32_t l = 1; l < line && p; ++l) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  char *out = NULL;
  if (p) {
    char *nl = strchr(p, '\n');
    if (nl) *nl = '\0';
    out = repl_dupstr(p);
  }
  free(src);
  return out;
}

rt_status_t cmd_where(repl *r, char *args) {
  (void)args;
  if (!r->paused) return RT_STATUS(FAILED_PRECONDITION, "not stopped: :step or :break then :continue");
  print_where(r);
  if (!r->where_source || r->where_line <= 0) return RT_OK;
  char *line = source_line(r->where_source, r->where_line);
  if (line) printf("%5d | %s\n", (int)r->where_line, line);
  free(line);
  return RT_OK;
}
