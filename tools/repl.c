/* `relayrt repl [MODEL]`: an interactive session over one model, its
 * passes, the reference interpreter and the JIT kernels, built on the
 * public API alone (include/rt/).
 *
 * State: the current module (with an undo stack of earlier ones), a pass
 * context (opt_level, required/disabled names, config), the inputs the user
 * chose, executors created on demand from the current module and context
 * (dropped whenever either changes), and the values of the last debug run.
 *
 * Stepping model: re-running. The debug executor is deterministic, so
 * `:step`, `:next` and `:continue` re-run @main from the start with a step
 * callback that records every binding's value and stops (CANCELLED) at the
 * first "before" event past the current position that the command's
 * predicate accepts. There is no second thread and no half-finished run to
 * clean up; the cost is a re-run of the prefix per step, fine for the
 * models a person steps through by hand.
 *
 * Input: libedit (readline interface) with history in the user's state
 * directory and tab completion when stdin is a terminal; plain lines with
 * no prompt otherwise, or from `--batch FILE`. Errors print and the session
 * goes on; in non-interactive mode the exit status is 1 when any command
 * failed (the last error's), else 0. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <editline/readline.h>

#include "cli.h"

extern const char rt_builtin_example[];
extern const size_t rt_builtin_example_size;

#define MAX_UNDO 64
#define MAX_INPUTS 64
#define MAX_BREAKS 64

typedef struct {
  char *name;
  char *file; /* NULL: seeded random data */
} repl_input;

typedef struct {
  char *label; /* "%3", or "result" for main's unnamed result */
  char *text;
  int32_t depth;
  int32_t n;
  rt_tensor_t **tensors; /* retained */
} repl_value;

typedef enum { MODE_RUN, MODE_STEP, MODE_NEXT, MODE_CONTINUE, MODE_PROFILE } step_mode;

typedef struct {
  char *model_name;
  rt_module_t *module;
  rt_module_t *undo[MAX_UNDO];
  int nundo;
  rt_pass_context_t *ctx;
  char *required[64];
  int nrequired;
  char *disabled[64];
  int ndisabled;
  repl_input inputs[MAX_INPUTS];
  int ninputs;
  char *breaks[MAX_BREAKS];
  int nbreaks;
  rt_executor_t *ex[3]; /* debug, graph, vm */
  rt_executor_t *asm_ex; /* graph with jit.keep_asm=1 */
  rt_tensor_t *in_vals[MAX_INPUTS]; /* the inputs last set, by index; retained */
  /* The last debug run. */
  repl_value *values;
  int nvalues, capvalues;
  bool paused;
  long cursor; /* index of the before-event paused at */
  int32_t cursor_depth;
  char *where_text;
  char *where_source;
  int32_t where_line;
  /* The run in flight. */
  step_mode mode;
  long nbefore;
  /* The call depth of @main's own bindings: the first event's (the
   * executor reports 1 there although executor.h says 0). */
  int32_t base_depth;
  double t_before;
  bool stopped;
  bool interactive;
} repl;

static const char *const kKinds[3] = {"debug", "graph", "vm"};

static char *dupstr(const char *s) {
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int report(rt_status_t st) {
  fflush(stdout);
  return cli_report(st);
}

/* ---- state changes --------------------------------------------------------- */

static void clear_values(repl *r) {
  for (int i = 0; i < r->nvalues; ++i) {
    for (int32_t j = 0; j < r->values[i].n; ++j) rt_tensor_release(r->values[i].tensors[j]);
    free(r->values[i].tensors);
    free(r->values[i].label);
    free(r->values[i].text);
  }
  r->nvalues = 0;
}

static void reset_stepping(repl *r) {
  clear_values(r);
  r->paused = false;
  r->cursor = -1;
  r->cursor_depth = 0;
  free(r->where_text);
  free(r->where_source);
  r->where_text = r->where_source = NULL;
  r->where_line = 0;
}

static void drop_executors(repl *r) {
  for (int i = 0; i < 3; ++i) {
    rt_executor_release(r->ex[i]);
    r->ex[i] = NULL;
  }
  rt_executor_release(r->asm_ex);
  r->asm_ex = NULL;
  for (int i = 0; i < MAX_INPUTS; ++i) {
    rt_tensor_release(r->in_vals[i]);
    r->in_vals[i] = NULL;
  }
  reset_stepping(r);
}

/* Makes `m` (owned) the current module; the old one goes on the undo stack
 * when `keep_undo`. */
static void set_module(repl *r, rt_module_t *m, bool keep_undo) {
  if (keep_undo && r->module) {
    if (r->nundo == MAX_UNDO) {
      rt_module_release(r->undo[0]);
      memmove(r->undo, r->undo + 1, sizeof r->undo[0] * (MAX_UNDO - 1));
      r->nundo--;
    }
    r->undo[r->nundo++] = r->module;
  } else {
    rt_module_release(r->module);
  }
  r->module = m;
  drop_executors(r);
}

static rt_status_t need_module(const repl *r) {
  if (!r->module) return RT_STATUS(FAILED_PRECONDITION, "no model loaded: use :load FILE");
  return RT_OK;
}

static rt_status_t get_executor(repl *r, int kind, rt_executor_t **out) {
  RT_RETURN_IF_ERROR(need_module(r));
  if (!r->ex[kind]) {
    RT_RETURN_IF_ERROR(rt_create_executor(kKinds[kind], r->module, NULL, r->ctx, NULL, &r->ex[kind]));
  }
  *out = r->ex[kind];
  return RT_OK;
}

static int kind_index(const char *name) {
  for (int i = 0; i < 3; ++i) {
    if (strcmp(name, kKinds[i]) == 0) return i;
  }
  return -1;
}

/* ---- inputs ---------------------------------------------------------------- */

static rt_status_t set_inputs(repl *r, rt_executor_t *ex) {
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
      RT_RETURN_IF_ERROR(rt_tensor_create(rt_allocator_system(), info.dtype, info.rank, info.shape, &t));
      rt_tensor_fill_random(t, cli_seed(info.name));
    }
    rt_status_t st = rt_executor_set_input(ex, i, t);
    if (i < MAX_INPUTS) {
      rt_tensor_release(r->in_vals[i]);
      r->in_vals[i] = t;
    } else {
      rt_tensor_release(t);
    }
    RT_RETURN_IF_ERROR(st);
  }
  return RT_OK;
}

/* ---- the step callback ------------------------------------------------------ */

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

static bool matches_break(const repl *r, const char *text) {
  for (int i = 0; i < r->nbreaks; ++i) {
    const char *b = r->breaks[i];
    size_t n = strlen(b);
    if (b[0] == '%') {
      if (strncmp(text, b, n) == 0 && strncmp(text + n, " = ", 3) == 0) return true;
    } else {
      /* An op name: a call of it, or of a fused kernel holding it. */
      const char *p = strstr(text, b);
      if (p && (p == text || p[-1] == ' ' || p[-1] == '_') &&
          (p[n] == '(' || p[n] == '_')) {
        return true;
      }
    }
  }
  return false;
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
  if (!v->label) v->label = dupstr(ev->call_depth == r->base_depth ? "result" : "?");
  v->text = dupstr(ev->text);
  v->depth = ev->call_depth;
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

static void set_where(repl *r, const rt_step_event_t *ev) {
  free(r->where_text);
  free(r->where_source);
  r->where_text = dupstr(ev->text);
  r->where_source = ev->source_name ? dupstr(ev->source_name) : NULL;
  r->where_line = ev->line;
}

static rt_status_t on_step(void *user, const rt_step_event_t *ev) {
  repl *r = user;
  if (ev->after) {
    if (r->mode == MODE_PROFILE && ev->call_depth == r->base_depth) {
      printf("  %9.3f ms  %s\n", now_ms() - r->t_before, ev->text);
    }
    return record(r, ev);
  }
  long idx = r->nbefore++;
  if (idx == 0) r->base_depth = ev->call_depth;
  r->t_before = now_ms();
  bool stop = false;
  if (idx > r->cursor) {
    switch (r->mode) {
      case MODE_STEP: stop = true; break;
      case MODE_NEXT: stop = ev->call_depth <= r->cursor_depth; break;
      case MODE_RUN:
      case MODE_CONTINUE: stop = matches_break(r, ev->text); break;
      case MODE_PROFILE: break;
    }
  }
  if (!stop) return RT_OK;
  r->cursor = idx;
  r->cursor_depth = ev->call_depth;
  set_where(r, ev);
  r->stopped = true;
  return RT_STATUS(CANCELLED, "paused");
}

static void print_outputs(rt_executor_t *ex) {
  for (int32_t i = 0; i < rt_executor_num_outputs(ex); ++i) {
    rt_tensor_t *t = NULL;
    rt_status_t st = rt_executor_get_output(ex, i, &t);
    if (st) {
      report(st);
      continue;
    }
    char name[32];
    snprintf(name, sizeof name, "output_%d", (int)i);
    cli_print_summary(stdout, name, t);
  }
}

static void print_where(const repl *r) {
  printf("at %s", r->where_text ? r->where_text : "?");
  if (r->where_source && r->where_line > 0) printf("  (%s:%d)", r->where_source, (int)r->where_line);
  printf("\n");
}

/* Runs @main on the debug executor under `mode`. */
static rt_status_t debug_run(repl *r, step_mode mode) {
  rt_executor_t *ex = NULL;
  RT_RETURN_IF_ERROR(get_executor(r, 0, &ex));
  RT_RETURN_IF_ERROR(set_inputs(r, ex));
  if (mode == MODE_RUN || mode == MODE_PROFILE) {
    r->cursor = -1;
    r->cursor_depth = 0;
  }
  clear_values(r);
  r->mode = mode;
  r->nbefore = 0;
  r->stopped = false;
  RT_RETURN_IF_ERROR(rt_executor_set_step_callback(ex, on_step, r));
  double t0 = now_ms();
  rt_status_t st = rt_executor_run(ex);
  double elapsed = now_ms() - t0;
  rt_status_free(rt_executor_set_step_callback(ex, NULL, NULL));
  if (st && r->stopped && rt_status_code(st) == RT_STATUS_CANCELLED) {
    rt_status_free(st);
    r->paused = true;
    print_where(r);
    return RT_OK;
  }
  r->paused = false;
  r->cursor = -1;
  RT_RETURN_IF_ERROR(st);
  if (mode == MODE_PROFILE) {
    printf("  %9.3f ms  total (debug executor)\n", elapsed);
  } else {
    if (mode != MODE_RUN) printf("finished\n");
    print_outputs(ex);
  }
  return RT_OK;
}

static const repl_value *find_value(const repl *r, const char *label) {
  for (int i = r->nvalues - 1; i >= 0; --i) {
    if (r->values[i].depth == r->base_depth && strcmp(r->values[i].label, label) == 0) return &r->values[i];
  }
  return NULL;
}

/* The tensor for `%N` (a recorded binding) or `%name` (an input). Borrowed. */
static rt_status_t lookup_tensor(repl *r, const char *ref, rt_tensor_t **out) {
  if (ref[0] != '%' || ref[1] == '\0') {
    return RT_STATUS(INVALID_ARGUMENT, "expected a binding like %%3 or an input like %%data, got '%s'", ref);
  }
  const repl_value *v = find_value(r, ref);
  if (v) {
    if (v->n != 1) {
      return RT_STATUS(INVALID_ARGUMENT, "%s holds %d tensors (a tuple or closure), not one", ref, (int)v->n);
    }
    *out = v->tensors[0];
    return RT_OK;
  }
  if (!(ref[1] >= '0' && ref[1] <= '9')) {
    rt_executor_t *ex = NULL;
    RT_RETURN_IF_ERROR(get_executor(r, 0, &ex));
    int32_t idx;
    RT_RETURN_IF_ERROR(rt_executor_input_index(ex, ref + 1, &idx));
    if (idx >= MAX_INPUTS) return RT_STATUS(OUT_OF_RANGE, "input %s is past the first %d", ref, MAX_INPUTS);
    if (!r->in_vals[idx]) RT_RETURN_IF_ERROR(set_inputs(r, ex));
    *out = r->in_vals[idx];
    return RT_OK;
  }
  return RT_STATUS(NOT_FOUND, "no value for %s yet: :run, :step or :continue past it "
                              "(values are the debug executor's numbering, see :where)", ref);
}

/* ---- text helpers ------------------------------------------------------------ */

static rt_status_t module_text(const rt_module_t *m, char **out) {
  return rt_module_print(m, RT_PRINT_NO_METADATA, out);
}

typedef struct {
  char **lines;
  int n;
} line_list;

static rt_status_t split_lines(char *text, line_list *out) {
  int cap = 16;
  out->n = 0;
  out->lines = malloc(sizeof(char *) * (size_t)cap);
  if (!out->lines) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  char *p = text;
  while (*p) {
    if (out->n == cap) {
      cap *= 2;
      char **l = realloc(out->lines, sizeof(char *) * (size_t)cap);
      if (!l) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
      out->lines = l;
    }
    out->lines[out->n++] = p;
    char *nl = strchr(p, '\n');
    if (!nl) break;
    *nl = '\0';
    p = nl + 1;
  }
  return RT_OK;
}

/* A line diff: the longest common subsequence of lines, then '-' for lines
 * only in `a` and '+' for lines only in `b`, with "@@ line N" headers. */
static rt_status_t print_diff(char *a_text, char *b_text) {
  line_list a = {0}, b = {0};
  rt_status_t st = split_lines(a_text, &a);
  if (!st) st = split_lines(b_text, &b);
  int *lcs = NULL;
  if (!st && (size_t)(a.n + 1) * (size_t)(b.n + 1) > (size_t)64 << 20) {
    st = RT_STATUS(RESOURCE_EXHAUSTED, "the module is too large to diff (%d and %d lines)", a.n, b.n);
  }
  if (!st) {
    lcs = calloc((size_t)(a.n + 1) * (size_t)(b.n + 1), sizeof(int));
    if (!lcs) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  }
  if (!st) {
    int w = b.n + 1;
    for (int i = a.n - 1; i >= 0; --i) {
      for (int j = b.n - 1; j >= 0; --j) {
        if (strcmp(a.lines[i], b.lines[j]) == 0) {
          lcs[i * w + j] = lcs[(i + 1) * w + j + 1] + 1;
        } else {
          int x = lcs[(i + 1) * w + j], y = lcs[i * w + j + 1];
          lcs[i * w + j] = x > y ? x : y;
        }
      }
    }
    int i = 0, j = 0, removed = 0, added = 0;
    bool in_hunk = false;
    while (i < a.n || j < b.n) {
      if (i < a.n && j < b.n && strcmp(a.lines[i], b.lines[j]) == 0) {
        i++, j++;
        in_hunk = false;
        continue;
      }
      if (!in_hunk) printf("@@ line %d @@\n", j + 1);
      in_hunk = true;
      if (j >= b.n || (i < a.n && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) {
        printf("-%s\n", a.lines[i++]);
        removed++;
      } else {
        printf("+%s\n", b.lines[j++]);
        added++;
      }
    }
    if (!removed && !added) {
      printf("(no change)\n");
    } else {
      printf("(%d line%s removed, %d added)\n", removed, removed == 1 ? "" : "s", added);
    }
  }
  free(lcs);
  free(a.lines);
  free(b.lines);
  return st;
}

/* Splits "word rest": returns the first word (NUL-terminated in place) and
 * sets *rest to what follows, spaces skipped. */
static char *next_word(char **s) {
  char *p = *s;
  while (*p == ' ' || *p == '\t') p++;
  char *w = p;
  while (*p && *p != ' ' && *p != '\t') p++;
  if (*p) *p++ = '\0';
  while (*p == ' ' || *p == '\t') p++;
  *s = p;
  return w;
}

/* ---- commands ------------------------------------------------------------------ */

typedef rt_status_t (*cmd_fn)(repl *r, char *args);

typedef struct {
  const char *name;
  const char *args;
  const char *doc;
  cmd_fn fn;
} command;

static const command *find_command(const char *name);
static void print_help_line(const command *c);
#define NUM_COMMANDS 28 /* with the NULL row */
static const command kCommands[NUM_COMMANDS];

static rt_status_t cmd_help(repl *r, char *args) {
  (void)r;
  char *w = next_word(&args);
  if (*w) {
    const command *c = find_command(w[0] == ':' ? w + 1 : w);
    if (!c) return RT_STATUS(NOT_FOUND, "no command ':%s' (:help lists them)", w[0] == ':' ? w + 1 : w);
    print_help_line(c);
    return RT_OK;
  }
  printf("commands (a line not starting with ':' is a Relay expression, e.g. add(%%3, 1f)):\n");
  for (const command *c = kCommands; c->name; ++c) print_help_line(c);
  return RT_OK;
}

static rt_status_t cmd_quit(repl *r, char *args) {
  (void)r;
  (void)args;
  return RT_OK; /* handled by the loop */
}

static rt_status_t cmd_load(repl *r, char *args) {
  char *path = next_word(&args);
  if (!*path) return RT_STATUS(INVALID_ARGUMENT, ":load expects FILE (.relay, .txt or .onnx; '-' = built-in example)");
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(cli_load_model(path, &m));
  set_module(r, m, false);
  for (int i = 0; i < r->nundo; ++i) rt_module_release(r->undo[i]);
  r->nundo = 0;
  free(r->model_name);
  r->model_name = dupstr(strcmp(path, "-") == 0 ? CLI_BUILTIN_NAME : path);
  printf("loaded %s: %d function%s\n", r->model_name, (int)rt_module_num_functions(m),
         rt_module_num_functions(m) == 1 ? "" : "s");
  return RT_OK;
}

static rt_status_t cmd_show(repl *r, char *args) {
  RT_RETURN_IF_ERROR(need_module(r));
  char *fn = next_word(&args);
  char *text = NULL;
  RT_RETURN_IF_ERROR(module_text(r->module, &text));
  if (!*fn) {
    fputs(text, stdout);
    free(text);
    return RT_OK;
  }
  const char *name = fn[0] == '@' ? fn + 1 : fn;
  char head[512];
  snprintf(head, sizeof head, "def @%s(", name);
  char *p = strstr(text, head);
  if (!p || (p != text && p[-1] != '\n')) {
    free(text);
    rt_status_t st = RT_STATUS(NOT_FOUND, "no function @%s; the module has:", name);
    for (int32_t i = 0; i < rt_module_num_functions(r->module); ++i) {
      st = rt_status_annotate(st, "@%s", rt_module_function_name(r->module, i));
    }
    return st;
  }
  char *end = strstr(p, "\n}\n");
  if (end) end[3] = '\0';
  fputs(p, stdout);
  free(text);
  return RT_OK;
}

static rt_status_t cmd_type(repl *r, char *args) {
  RT_RETURN_IF_ERROR(need_module(r));
  char *ref = next_word(&args);
  if (ref[0] != '%' || ref[1] == '\0') return RT_STATUS(INVALID_ARGUMENT, ":type expects %%N");
  char *text = NULL;
  RT_RETURN_IF_ERROR(module_text(r->module, &text));
  char pat[256];
  snprintf(pat, sizeof pat, "  %s = ", ref);
  char *p = strstr(text, pat);
  rt_status_t st = RT_OK;
  if (!p) {
    st = RT_STATUS(NOT_FOUND, "no binding %s in the current module (:show lists them)", ref);
  } else {
    /* The binding's type is the last ty= annotation on its line. */
    char *eol = strchr(p, '\n');
    if (eol) *eol = '\0';
    char *ty = NULL;
    for (char *q = strstr(p, "/* ty="); q; q = strstr(q + 1, "/* ty=")) ty = q + 6;
    if (!ty) {
      st = RT_STATUS(NOT_FOUND, "%s has no type annotation", ref);
    } else {
      char *close = strstr(ty, " */");
      if (close) *close = '\0';
      printf("%s: %s\n", ref, ty);
    }
  }
  free(text);
  return st;
}

static bool in_list(char *const *list, int n, const char *name) {
  for (int i = 0; i < n; ++i) {
    if (strcmp(list[i], name) == 0) return true;
  }
  return false;
}

static rt_status_t cmd_passes(repl *r, char *args) {
  (void)args;
  int32_t level = rt_pass_context_opt_level(r->ctx);
  printf("the pipeline at opt_level %d:\n", (int)level);
  for (int32_t i = 0; i < rt_pass_count(); ++i) {
    const rt_pass_info_t *p = rt_pass_at(i);
    const char *executor = NULL;
    bool step = rt_pass_is_executor_step(i, &executor);
    char why[128];
    if (in_list(r->disabled, r->ndisabled, p->name)) {
      snprintf(why, sizeof why, "disabled (:disable)");
    } else if (in_list(r->required, r->nrequired, p->name)) {
      snprintf(why, sizeof why, "enabled (:require)");
    } else if (p->opt_level <= level) {
      snprintf(why, sizeof why, "enabled (opt %d <= %d)", (int)p->opt_level, (int)level);
    } else {
      snprintf(why, sizeof why, "skipped (opt %d > %d)", (int)p->opt_level, (int)level);
    }
    char where[32];
    if (step) {
      snprintf(where, sizeof where, "%s", executor);
    } else {
      snprintf(where, sizeof where, "%d", (int)i);
    }
    printf("  %-5s %-24s opt %d  %-24s %s\n", where, p->name, (int)p->opt_level, why, p->doc);
  }
  return RT_OK;
}

static rt_status_t cmd_set(repl *r, char *args) {
  char *key = next_word(&args);
  char *val = next_word(&args);
  if (strcmp(key, "opt_level") != 0 || !*val) {
    return RT_STATUS(INVALID_ARGUMENT, ":set expects 'opt_level N' (use :config K=V for config options)");
  }
  char *end = NULL;
  long level = strtol(val, &end, 10);
  if (*end != '\0') return RT_STATUS(INVALID_ARGUMENT, "opt_level expects 0..4, got '%s'", val);
  RT_RETURN_IF_ERROR(rt_pass_context_set_opt_level(r->ctx, (int32_t)(level < -1 ? -1 : level > 99 ? 99 : level)));
  drop_executors(r);
  printf("opt_level = %d\n", (int)level);
  return RT_OK;
}

static rt_status_t name_pass(repl *r, char *args, bool disable) {
  char *name = next_word(&args);
  if (!*name) return RT_STATUS(INVALID_ARGUMENT, ":%s expects a pass name (:passes lists them)", disable ? "disable" : "require");
  if (disable) {
    RT_RETURN_IF_ERROR(rt_pass_context_disable(r->ctx, name));
    if (!in_list(r->disabled, r->ndisabled, name) && r->ndisabled < 64) r->disabled[r->ndisabled++] = dupstr(name);
  } else {
    RT_RETURN_IF_ERROR(rt_pass_context_require(r->ctx, name));
    if (!in_list(r->required, r->nrequired, name) && r->nrequired < 64) r->required[r->nrequired++] = dupstr(name);
  }
  drop_executors(r);
  printf("%s %s\n", disable ? "disabled" : "required", name);
  return RT_OK;
}

static rt_status_t cmd_disable(repl *r, char *args) { return name_pass(r, args, true); }
static rt_status_t cmd_require(repl *r, char *args) { return name_pass(r, args, false); }

static rt_status_t cmd_config(repl *r, char *args) {
  char *kv = next_word(&args);
  char *eq = strchr(kv, '=');
  if (!eq || eq == kv) return RT_STATUS(INVALID_ARGUMENT, ":config expects KEY=VALUE, got '%s'", kv);
  *eq = '\0';
  RT_RETURN_IF_ERROR(rt_pass_context_set_config(r->ctx, kv, eq + 1));
  drop_executors(r);
  printf("%s = %s\n", kv, eq + 1);
  return RT_OK;
}

static rt_status_t cmd_apply(repl *r, char *args) {
  RT_RETURN_IF_ERROR(need_module(r));
  char *name = next_word(&args);
  if (!*name) return RT_STATUS(INVALID_ARGUMENT, ":apply expects a pass name (:passes lists them)");
  rt_module_t *m = NULL;
  char *before = NULL, *after = NULL;
  rt_status_t st = rt_module_run_pass(r->module, name, r->ctx, &m);
  if (!st) st = module_text(r->module, &before);
  if (!st) st = module_text(m, &after);
  if (!st) {
    printf("%s:\n", name);
    st = print_diff(before, after);
  }
  if (!st) {
    set_module(r, m, true);
    m = NULL;
  }
  rt_module_release(m);
  free(before);
  free(after);
  return st;
}

static rt_status_t cmd_build(repl *r, char *args) {
  (void)args;
  RT_RETURN_IF_ERROR(need_module(r));
  rt_pass_context_t *ctx = NULL;
  rt_module_t *m = NULL;
  rt_status_t st = rt_pass_context_copy(r->ctx, &ctx);
  if (!st) st = rt_pass_context_add_trace(ctx, stdout);
  if (!st) st = rt_module_build(r->module, ctx, &m);
  fflush(stdout);
  if (!st) {
    set_module(r, m, true);
    printf("built: the current module is the pipeline's result (:undo goes back)\n");
  }
  rt_pass_context_release(ctx);
  return st;
}

static rt_status_t cmd_undo(repl *r, char *args) {
  (void)args;
  if (r->nundo == 0) return RT_STATUS(FAILED_PRECONDITION, "nothing to undo");
  rt_module_t *m = r->undo[--r->nundo];
  set_module(r, m, false);
  printf("undone (%d more)\n", r->nundo);
  return RT_OK;
}

static rt_status_t cmd_input(repl *r, char *args) {
  char *spec = next_word(&args);
  char *eq = strchr(spec, '=');
  if (!eq || eq == spec || eq[1] == '\0') {
    return RT_STATUS(INVALID_ARGUMENT, ":input expects NAME=FILE.npy or NAME=random, got '%s'", spec);
  }
  *eq = '\0';
  const char *name = spec[0] == '%' ? spec + 1 : spec;
  rt_executor_t *ex = NULL;
  RT_RETURN_IF_ERROR(get_executor(r, 0, &ex));
  int32_t idx;
  RT_RETURN_IF_ERROR(rt_executor_input_index(ex, name, &idx));
  const char *file = strcmp(eq + 1, "random") == 0 ? NULL : eq + 1;
  if (file) {
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(rt_npy_read_file(rt_allocator_system(), file, &t));
    rt_status_t st = rt_executor_set_input(ex, idx, t); /* checks the type now */
    rt_tensor_release(t);
    RT_RETURN_IF_ERROR(st);
  }
  repl_input *slot = NULL;
  for (int i = 0; i < r->ninputs; ++i) {
    if (strcmp(r->inputs[i].name, name) == 0) slot = &r->inputs[i];
  }
  if (!slot) {
    if (r->ninputs == MAX_INPUTS) return RT_STATUS(RESOURCE_EXHAUSTED, "too many inputs");
    slot = &r->inputs[r->ninputs++];
    slot->name = dupstr(name);
  } else {
    free(slot->file);
  }
  slot->file = file ? dupstr(file) : NULL;
  reset_stepping(r);
  printf("input %s = %s\n", name, file ? file : "random (seeded)");
  return RT_OK;
}

static rt_status_t cmd_run(repl *r, char *args) {
  char *kind = next_word(&args);
  int k = *kind ? kind_index(kind) : 0;
  if (k < 0) return RT_STATUS(INVALID_ARGUMENT, "unknown executor '%s': debug, graph or vm", kind);
  if (k == 0) {
    reset_stepping(r);
    return debug_run(r, MODE_RUN);
  }
  rt_executor_t *ex = NULL;
  RT_RETURN_IF_ERROR(get_executor(r, k, &ex));
  RT_RETURN_IF_ERROR(set_inputs(r, ex));
  RT_RETURN_IF_ERROR(rt_executor_run(ex));
  print_outputs(ex);
  return RT_OK;
}

static rt_status_t cmd_step(repl *r, char *args) {
  (void)args;
  return debug_run(r, MODE_STEP);
}

static rt_status_t cmd_next(repl *r, char *args) {
  (void)args;
  return debug_run(r, MODE_NEXT);
}

static rt_status_t cmd_continue(repl *r, char *args) {
  (void)args;
  return debug_run(r, MODE_CONTINUE);
}

static rt_status_t cmd_break(repl *r, char *args) {
  char *what = next_word(&args);
  if (!*what) {
    if (!r->nbreaks) printf("no breakpoints\n");
    for (int i = 0; i < r->nbreaks; ++i) printf("break %s\n", r->breaks[i]);
    return RT_OK;
  }
  if (what[0] == '%') {
    const char *p = what + 1;
    if (!*p) return RT_STATUS(INVALID_ARGUMENT, ":break expects %%N or an op name");
    for (; *p; ++p) {
      if (*p < '0' || *p > '9') return RT_STATUS(INVALID_ARGUMENT, ":break expects %%N (a number) or an op name, got '%s'", what);
    }
  }
  if (r->nbreaks == MAX_BREAKS) return RT_STATUS(RESOURCE_EXHAUSTED, "too many breakpoints");
  r->breaks[r->nbreaks++] = dupstr(what);
  printf("breakpoint %d at %s\n", r->nbreaks, what);
  return RT_OK;
}

static rt_status_t cmd_where(repl *r, char *args) {
  (void)args;
  if (!r->paused) return RT_STATUS(FAILED_PRECONDITION, "not stopped: :step or :break then :continue");
  print_where(r);
  if (!r->where_source || r->where_line <= 0) return RT_OK;
  /* The source line itself. */
  char *src = NULL;
  size_t size = 0;
  if (strcmp(r->where_source, CLI_BUILTIN_NAME) == 0) {
    src = malloc(rt_builtin_example_size + 1);
    if (src) {
      memcpy(src, rt_builtin_example, rt_builtin_example_size);
      src[rt_builtin_example_size] = '\0';
    }
  } else {
    FILE *f = fopen(r->where_source, "rb");
    if (f) {
      fseek(f, 0, SEEK_END);
      long n = ftell(f);
      fseek(f, 0, SEEK_SET);
      if (n >= 0) src = malloc((size_t)n + 1);
      if (src) {
        size = fread(src, 1, (size_t)n, f);
        src[size] = '\0';
      }
      fclose(f);
    }
  }
  if (src) {
    char *p = src;
    for (int32_t l = 1; l < r->where_line && p; ++l) {
      p = strchr(p, '\n');
      if (p) p++;
    }
    if (p) {
      char *nl = strchr(p, '\n');
      if (nl) *nl = '\0';
      printf("%5d | %s\n", (int)r->where_line, p);
    }
  }
  free(src);
  return RT_OK;
}

static rt_status_t cmd_print(repl *r, char *args) {
  char *ref = next_word(&args);
  const repl_value *v = find_value(r, ref);
  if (v && v->n > 1) {
    for (int32_t i = 0; i < v->n; ++i) {
      char name[64];
      snprintf(name, sizeof name, "%s.%d", ref, (int)i);
      cli_print_summary(stdout, name, v->tensors[i]);
    }
    return RT_OK;
  }
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(lookup_tensor(r, ref, &t));
  cli_print_summary(stdout, ref, t);
  return RT_OK;
}

static rt_status_t cmd_save(repl *r, char *args) {
  char *ref = next_word(&args);
  char *file = next_word(&args);
  if (!*file) return RT_STATUS(INVALID_ARGUMENT, ":save expects %%N FILE.npy");
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(lookup_tensor(r, ref, &t));
  RT_RETURN_IF_ERROR(rt_npy_write_file(t, file));
  printf("saved %s to %s\n", ref, file);
  return RT_OK;
}

/* Outputs of `ex` against the debug executor's, element by element. */
static rt_status_t compare_outputs(rt_executor_t *ref, rt_executor_t *ex, const char *label) {
  for (int32_t i = 0; i < rt_executor_num_outputs(ref); ++i) {
    rt_tensor_t *a = NULL, *b = NULL;
    RT_RETURN_IF_ERROR(rt_executor_get_output(ref, i, &a));
    RT_RETURN_IF_ERROR(rt_executor_get_output(ex, i, &b));
    if (rt_tensor_numel(a) != rt_tensor_numel(b)) {
      printf("output_%d: %lld vs %lld elements\n", (int)i, (long long)rt_tensor_numel(a),
             (long long)rt_tensor_numel(b));
      continue;
    }
    double max_abs = 0;
    int64_t worst = 0;
    for (int64_t e = 0; e < rt_tensor_numel(a); ++e) {
      double d = rt_tensor_get_f64(a, e) - rt_tensor_get_f64(b, e);
      if (d < 0) d = -d;
      if (d > max_abs || d != d) {
        max_abs = d;
        worst = e;
      }
    }
    printf("output_%d: debug vs %s: max |diff| = %.3g at element %lld (%s)\n", (int)i, label,
           max_abs, (long long)worst, max_abs <= 1e-4 ? "match" : "DIFFER");
  }
  return RT_OK;
}

static rt_status_t cmd_compare(repl *r, char *args) {
  RT_RETURN_IF_ERROR(need_module(r));
  const char *kind = "graph";
  long level = -1;
  for (char *w = next_word(&args); *w; w = next_word(&args)) {
    if (w[0] == '%') {
      return RT_STATUS(UNIMPLEMENTED, ":compare %%N is not yet available: binding numbers differ "
                                      "between builds; :compare compares the outputs");
    } else if (strncmp(w, "opt_level=", 10) == 0) {
      char *end = NULL;
      level = strtol(w + 10, &end, 10);
      if (*end) return RT_STATUS(INVALID_ARGUMENT, "opt_level expects 0..4, got '%s'", w + 10);
    } else if (kind_index(w) >= 0) {
      kind = w;
    } else {
      return RT_STATUS(INVALID_ARGUMENT, ":compare expects [debug|graph|vm] [opt_level=N], got '%s'", w);
    }
  }
  rt_executor_t *ref = NULL, *ex = NULL;
  rt_pass_context_t *ctx = NULL;
  RT_RETURN_IF_ERROR(get_executor(r, 0, &ref));
  RT_RETURN_IF_ERROR(set_inputs(r, ref));
  RT_RETURN_IF_ERROR(rt_executor_run(ref));
  reset_stepping(r); /* the reference run above ran without recording */
  rt_status_t st = rt_pass_context_copy(r->ctx, &ctx);
  if (!st && level >= 0) st = rt_pass_context_set_opt_level(ctx, (int32_t)level);
  if (!st) st = rt_create_executor(kind, r->module, NULL, ctx, NULL, &ex);
  if (!st) st = set_inputs(r, ex);
  if (!st) st = rt_executor_run(ex);
  char label[64];
  snprintf(label, sizeof label, "%s at opt_level %d", kind,
           (int)(level >= 0 ? level : rt_pass_context_opt_level(r->ctx)));
  if (!st) st = compare_outputs(ref, ex, label);
  rt_executor_release(ex);
  rt_pass_context_release(ctx);
  return st;
}

static rt_status_t print_source(rt_executor_t *ex, const char *kind) {
  char *text = NULL;
  RT_RETURN_IF_ERROR(rt_executor_get_source(ex, kind, &text));
  fputs(text, stdout);
  if (*text && text[strlen(text) - 1] != '\n') fputc('\n', stdout);
  free(text);
  return RT_OK;
}

static rt_status_t cmd_kernels(repl *r, char *args) {
  (void)args;
  rt_executor_t *ex = NULL;
  RT_RETURN_IF_ERROR(get_executor(r, 1, &ex));
  return print_source(ex, "kernels");
}

static rt_status_t cmd_ll(repl *r, char *args) {
  char *name = next_word(&args);
  if (!*name) return RT_STATUS(INVALID_ARGUMENT, ":ll expects a kernel NAME (:kernels lists them)");
  rt_executor_t *ex = NULL;
  RT_RETURN_IF_ERROR(get_executor(r, 1, &ex));
  char kind[512];
  snprintf(kind, sizeof kind, "ll:%s", name);
  return print_source(ex, kind);
}

static rt_status_t cmd_asm(repl *r, char *args) {
  char *name = next_word(&args);
  if (!*name) return RT_STATUS(INVALID_ARGUMENT, ":asm expects a kernel NAME (:kernels lists them)");
  RT_RETURN_IF_ERROR(need_module(r));
  if (!r->asm_ex) {
    rt_pass_context_t *ctx = NULL;
    rt_status_t st = rt_pass_context_copy(r->ctx, &ctx);
    if (!st) st = rt_pass_context_set_config(ctx, "jit.keep_asm", "1");
    if (!st) st = rt_create_executor("graph", r->module, NULL, ctx, NULL, &r->asm_ex);
    rt_pass_context_release(ctx);
    RT_RETURN_IF_ERROR(st);
  }
  char kind[512];
  snprintf(kind, sizeof kind, "asm:%s", name);
  return print_source(r->asm_ex, kind);
}

static rt_status_t cmd_profile(repl *r, char *args) {
  (void)args;
  printf("debug executor, per binding:\n");
  reset_stepping(r);
  RT_RETURN_IF_ERROR(debug_run(r, MODE_PROFILE));
  rt_executor_t *ex = NULL;
  rt_status_t st = get_executor(r, 1, &ex);
  if (st) {
    printf("graph executor: unavailable here (%s)\n", rt_status_message(st));
    rt_status_free(st);
    return RT_OK;
  }
  RT_RETURN_IF_ERROR(set_inputs(r, ex));
  RT_RETURN_IF_ERROR(rt_executor_run(ex)); /* warm-up */
  double best = 0;
  for (int i = 0; i < 5; ++i) {
    double t0 = now_ms();
    RT_RETURN_IF_ERROR(rt_executor_run(ex));
    double t = now_ms() - t0;
    if (i == 0 || t < best) best = t;
  }
  printf("  %9.3f ms  total (graph executor, best of 5)\n", best);
  return RT_OK;
}

static const command kCommands[NUM_COMMANDS] = {
    {"load", "FILE", "load a model (.relay, .txt, .onnx; '-' = the built-in example)", cmd_load},
    {"show", "[@fn]", "print the module (or one function) with its binding numbers", cmd_show},
    {"type", "%N", "the type of binding %N in the current module", cmd_type},
    {"passes", "", "the pipeline: each pass, its opt_level, enabled or not and why", cmd_passes},
    {"set", "opt_level N", "set the pass context's opt_level (0..4)", cmd_set},
    {"disable", "PASS", "never run PASS", cmd_disable},
    {"require", "PASS", "always run PASS, whatever the opt_level", cmd_require},
    {"config", "KEY=VALUE", "set a pass config option (fuse.max_depth, jit.keep_asm, ...)", cmd_config},
    {"apply", "PASS", "run one pass on the current module and print the IR diff", cmd_apply},
    {"build", "", "run the whole pipeline with its trace; the result becomes current", cmd_build},
    {"undo", "", "go back to the module before the last :apply or :build", cmd_undo},
    {"input", "NAME=FILE.npy|NAME=random", "choose an input of @main (default: seeded random)", cmd_input},
    {"run", "[debug|graph|vm]", "run @main and print the outputs (debug stops at breakpoints)", cmd_run},
    {"step", "", "evaluate up to the next binding (into calls)", cmd_step},
    {"next", "", "evaluate up to the next binding at this call depth (over calls)", cmd_next},
    {"continue", "", "run to the next breakpoint or the end", cmd_continue},
    {"break", "[%N|OPNAME]", "stop before binding %N or a call of OPNAME; no argument lists them", cmd_break},
    {"where", "", "the binding stopped at, with its source line", cmd_where},
    {"print", "%N", "a value: shape, dtype, min/max/mean, NaN/inf count, the first elements", cmd_print},
    {"save", "%N FILE.npy", "write a value to a .npy file", cmd_save},
    {"compare", "[graph|vm|debug] [opt_level=N]", "outputs under another executor or opt_level vs debug", cmd_compare},
    {"kernels", "", "the graph executor's fused kernels with their types", cmd_kernels},
    {"ll", "NAME", "the LLVM IR of kernel NAME", cmd_ll},
    {"asm", "NAME", "the assembly of kernel NAME", cmd_asm},
    {"profile", "", "time each binding (debug) and the whole model (graph)", cmd_profile},
    {"help", "[CMD]", "this list, or one command", cmd_help},
    {"quit", "", "leave (also :q, :exit, end of input)", cmd_quit},
    {NULL, NULL, NULL, NULL},
};

static const command *find_command(const char *name) {
  if (strcmp(name, "q") == 0 || strcmp(name, "exit") == 0) name = "quit";
  if (strcmp(name, "c") == 0) name = "continue";
  if (strcmp(name, "s") == 0) name = "step";
  if (strcmp(name, "n") == 0) name = "next";
  for (const command *c = kCommands; c->name; ++c) {
    if (strcmp(c->name, name) == 0) return c;
  }
  return NULL;
}

static void print_help_line(const command *c) {
  char head[96];
  snprintf(head, sizeof head, ":%s %s", c->name, c->args);
  printf("  %-44s %s\n", head, c->doc);
}

/* ---- expressions ------------------------------------------------------------------ */

/* Evaluates a Relay expression against the current values: each %N and
 * %input it names becomes a parameter of a one-expression @main, typed by
 * the value's tensor, run on the debug executor. Diagnostics point into the
 * typed line ("<prompt>:1:col"). */
static rt_status_t eval_expr(repl *r, const char *expr) {
  RT_RETURN_IF_ERROR(need_module(r));
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
      st = lookup_tensor(r, ref, &t);
      if (st) break;
      refs[nrefs] = dupstr(ref);
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

/* ---- completion -------------------------------------------------------------------- */

static repl *g_repl; /* for the completion callbacks, which take no user pointer */
static char **g_words;
static int g_nwords;

static void add_word(const char *w, size_t len) {
  for (int i = 0; i < g_nwords; ++i) {
    if (strlen(g_words[i]) == len && strncmp(g_words[i], w, len) == 0) return;
  }
  char **nw = realloc(g_words, sizeof(char *) * (size_t)(g_nwords + 1));
  if (!nw) return;
  g_words = nw;
  char *d = malloc(len + 1);
  if (!d) return;
  memcpy(d, w, len);
  d[len] = '\0';
  g_words[g_nwords++] = d;
}

static void free_words(void) {
  for (int i = 0; i < g_nwords; ++i) free(g_words[i]);
  free(g_words);
  g_words = NULL;
  g_nwords = 0;
}

/* Words of the current module: op names (identifiers before '('), @globals,
 * %bindings; plus pass names. */
static void collect_words(repl *r) {
  free_words();
  for (int32_t i = 0; i < rt_pass_count(); ++i) add_word(rt_pass_at(i)->name, strlen(rt_pass_at(i)->name));
  for (int i = 0; i < r->nvalues; ++i) add_word(r->values[i].label, strlen(r->values[i].label));
  if (!r->module) return;
  char *text = NULL;
  rt_status_t st = module_text(r->module, &text);
  if (st) {
    rt_status_free(st);
    return;
  }
  for (const char *p = text; *p; ++p) {
    if (*p == '@' || *p == '%') {
      size_t len = 1;
      while (p[len] == '_' || (p[len] >= '0' && p[len] <= '9') || (p[len] >= 'a' && p[len] <= 'z') ||
             (p[len] >= 'A' && p[len] <= 'Z')) {
        len++;
      }
      if (len > 1) add_word(p, len);
      p += len - 1;
    } else if ((*p >= 'a' && *p <= 'z') && (p == text || p[-1] == ' ' || p[-1] == '(')) {
      size_t len = 0;
      while (p[len] == '_' || p[len] == '.' || (p[len] >= '0' && p[len] <= '9') ||
             (p[len] >= 'a' && p[len] <= 'z')) {
        len++;
      }
      if (p[len] == '(') add_word(p, len);
      p += len - 1;
    }
  }
  free(text);
}

static int g_gen_index;
static bool g_gen_commands;

static char *complete_gen(const char *text, int state) {
  if (state == 0) g_gen_index = 0;
  size_t n = strlen(text);
  if (g_gen_commands) {
    const char *t = text[0] == ':' ? text + 1 : text;
    size_t tn = strlen(t);
    while (kCommands[g_gen_index].name) {
      const char *name = kCommands[g_gen_index++].name;
      if (strncmp(name, t, tn) == 0) {
        char *m = malloc(strlen(name) + 2);
        if (m) {
          m[0] = ':';
          strcpy(m + 1, name);
        }
        return m;
      }
    }
    return NULL;
  }
  while (g_gen_index < g_nwords) {
    const char *w = g_words[g_gen_index++];
    if (strncmp(w, text, n) == 0) return dupstr(w);
  }
  return NULL;
}

static char **complete(const char *text, int start, int end) {
  (void)end;
  g_gen_commands = start == 0 && (text[0] == ':' || text[0] == '\0');
  if (!g_gen_commands) collect_words(g_repl);
  rl_attempted_completion_over = 1;
  return rl_completion_matches(text, complete_gen);
}

/* ---- the loop ----------------------------------------------------------------------- */

static void history_path(char *buf, size_t cap) {
  const char *state = getenv("XDG_STATE_HOME");
  const char *home = getenv("HOME");
  char dir[3072];
  if (state && *state) {
    snprintf(dir, sizeof dir, "%s/relayrt", state);
  } else if (home && *home) {
    snprintf(dir, sizeof dir, "%s/.local/state/relayrt", home);
  } else {
    buf[0] = '\0';
    return;
  }
  /* mkdir -p of the last three levels is enough for both forms. */
  char tmp[3072];
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (char *p = tmp + 1; *p; ++p) {
    if (*p == '/') {
      *p = '\0';
      mkdir(tmp, 0700);
      *p = '/';
    }
  }
  mkdir(tmp, 0700);
  snprintf(buf, cap, "%s/history", dir);
}

/* Runs one line; returns 1 when it was :quit, -1 on an error, 0 otherwise. */
static int run_line(repl *r, char *line) {
  while (*line == ' ' || *line == '\t') line++;
  size_t n = strlen(line);
  while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\n' || line[n - 1] == '\r')) {
    line[--n] = '\0';
  }
  if (!*line || line[0] == '#') return 0;
  rt_status_t st;
  if (line[0] == ':') {
    char *rest = line + 1;
    char *name = next_word(&rest);
    const command *c = find_command(name);
    if (!c) {
      st = RT_STATUS(NOT_FOUND, "unknown command ':%s' (:help lists the commands)", name);
    } else if (c->fn == cmd_quit) {
      return 1;
    } else {
      st = c->fn(r, rest);
    }
  } else {
    st = eval_expr(r, line);
  }
  fflush(stdout);
  if (st) {
    report(st);
    return -1;
  }
  return 0;
}

int cli_repl(int argc, char **argv) {
  const char *model = NULL, *batch = NULL;
  for (int i = 0; i < argc; ++i) {
    const char *v;
    if ((v = cli_option(argc, argv, &i, "--batch"))) {
      batch = v;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error("unknown option for repl:", argv[i]);
    } else if (!model) {
      model = argv[i];
    } else {
      return cli_usage_error("unexpected argument", argv[i]);
    }
  }
  repl r;
  memset(&r, 0, sizeof r);
  r.cursor = -1;
  rt_status_t st = rt_pass_context_create(&r.ctx);
  if (st) return report(st);
  FILE *in = stdin;
  if (batch) {
    in = fopen(batch, "r");
    if (!in) {
      fprintf(stderr, "relayrt: error: cannot open %s: %s\n", batch, strerror(errno));
      rt_pass_context_release(r.ctx);
      return 1;
    }
  }
  r.interactive = !batch && isatty(0) && isatty(1);
  int last_error = 0;
  {
    char load[4096];
    snprintf(load, sizeof load, ":load %s", model ? model : "-");
    if (run_line(&r, load) < 0) last_error = 1;
  }
  char hist[4096] = "";
  if (r.interactive) {
    g_repl = &r;
    rl_attempted_completion_function = complete;
    history_path(hist, sizeof hist);
    stifle_history(1000);
    if (hist[0]) read_history(hist);
    printf("relayrt repl: :help lists the commands, :quit leaves\n");
  }
  char *line = NULL;
  size_t cap = 0;
  for (;;) {
    char *text;
    if (r.interactive) {
      text = readline("relayrt> ");
      if (!text) {
        printf("\n");
        break;
      }
      if (*text) {
        add_history(text);
        if (hist[0]) write_history(hist);
      }
    } else {
      if (getline(&line, &cap, in) < 0) break;
      text = line;
    }
    int rc = run_line(&r, text);
    if (r.interactive) free(text);
    if (rc == 1) break;
    if (rc < 0) last_error = 1;
  }
  free(line);
  if (batch) fclose(in);
  drop_executors(&r);
  free(r.values);
  for (int i = 0; i < r.nundo; ++i) rt_module_release(r.undo[i]);
  rt_module_release(r.module);
  rt_pass_context_release(r.ctx);
  for (int i = 0; i < r.nrequired; ++i) free(r.required[i]);
  for (int i = 0; i < r.ndisabled; ++i) free(r.disabled[i]);
  for (int i = 0; i < r.ninputs; ++i) {
    free(r.inputs[i].name);
    free(r.inputs[i].file);
  }
  for (int i = 0; i < r.nbreaks; ++i) free(r.breaks[i]);
  free(r.model_name);
  free_words();
  return r.interactive ? 0 : last_error;
}
