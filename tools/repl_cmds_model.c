/* The model and its passes: :load :show :type :passes :set :disable
 * :require :config :apply :build :undo (tools/repl.h).
 *
 * :apply runs one pass over the current module and prints a line diff of
 * the printed IR (the longest common subsequence of lines; '-' for lines
 * only before, '+' for lines only after, an "@@ line N @@" header per
 * hunk); :build runs the whole pipeline with the trace instrument. Both
 * push the module they replace on the undo stack. Pass-context changes
 * (:set, :disable, :require, :config) drop the session's executors, so the
 * next run builds with the new context. */
#include <stdlib.h>
#include <string.h>

#include "repl.h"

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

rt_status_t cmd_load(repl *r, char *args) {
  char *path = repl_next_word(&args);
  if (!*path) return RT_STATUS(INVALID_ARGUMENT, ":load expects FILE (.relay, .txt or .onnx; '-' = built-in example)");
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(cli_load_model(path, &m));
  repl_set_module(r, m, false);
  for (int i = 0; i < r->nundo; ++i) rt_module_release(r->undo[i]);
  r->nundo = 0;
  free(r->model_name);
  r->model_name = repl_dupstr(strcmp(path, "-") == 0 ? CLI_BUILTIN_NAME : path);
  printf("loaded %s: %d function%s\n", r->model_name, (int)rt_module_num_functions(m),
         rt_module_num_functions(m) == 1 ? "" : "s");
  return RT_OK;
}

rt_status_t cmd_show(repl *r, char *args) {
  RT_RETURN_IF_ERROR(repl_need_module(r));
  char *fn = repl_next_word(&args);
  char *text = NULL;
  RT_RETURN_IF_ERROR(repl_module_text(r->module, &text));
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

rt_status_t cmd_type(repl *r, char *args) {
  RT_RETURN_IF_ERROR(repl_need_module(r));
  char *ref = repl_next_word(&args);
  if (ref[0] != '%' || ref[1] == '\0') return RT_STATUS(INVALID_ARGUMENT, ":type expects %%N");
  char *text = NULL;
  RT_RETURN_IF_ERROR(repl_module_text(r->module, &text));
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

rt_status_t cmd_passes(repl *r, char *args) {
  (void)args;
  int32_t level = rt_pass_context_opt_level(r->ctx);
  printf("the pipeline at opt_level %d:\n", (int)level);
  for (int32_t i = 0; i < rt_pass_count(); ++i) {
    const rt_pass_info_t *p = rt_pass_at(i);
    const char *executor = NULL;
    bool step = rt_pass_is_executor_step(i, &executor);
    char why[128];
    if (repl_in_list(r->disabled, r->ndisabled, p->name)) {
      snprintf(why, sizeof why, "disabled (:disable)");
    } else if (repl_in_list(r->required, r->nrequired, p->name)) {
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

rt_status_t cmd_set(repl *r, char *args) {
  char *key = repl_next_word(&args);
  char *val = repl_next_word(&args);
  if (strcmp(key, "opt_level") != 0 || !*val) {
    return RT_STATUS(INVALID_ARGUMENT, ":set expects 'opt_level N' (use :config K=V for config options)");
  }
  char *end = NULL;
  long level = strtol(val, &end, 10);
  if (*end != '\0') return RT_STATUS(INVALID_ARGUMENT, "opt_level expects 0..4, got '%s'", val);
  RT_RETURN_IF_ERROR(rt_pass_context_set_opt_level(r->ctx, (int32_t)(level < -1 ? -1 : level > 99 ? 99 : level)));
  repl_drop_executors(r);
  printf("opt_level = %d\n", (int)level);
  return RT_OK;
}

static rt_status_t name_pass(repl *r, char *args, bool disable) {
  char *name = repl_next_word(&args);
  if (!*name) return RT_STATUS(INVALID_ARGUMENT, ":%s expects a pass name (:passes lists them)", disable ? "disable" : "require");
  if (disable) {
    RT_RETURN_IF_ERROR(rt_pass_context_disable(r->ctx, name));
    if (!repl_in_list(r->disabled, r->ndisabled, name) && r->ndisabled < REPL_MAX_PASS_NAMES) r->disabled[r->ndisabled++] = repl_dupstr(name);
  } else {
    RT_RETURN_IF_ERROR(rt_pass_context_require(r->ctx, name));
    if (!repl_in_list(r->required, r->nrequired, name) && r->nrequired < REPL_MAX_PASS_NAMES) r->required[r->nrequired++] = repl_dupstr(name);
  }
  repl_drop_executors(r);
  printf("%s %s\n", disable ? "disabled" : "required", name);
  return RT_OK;
}

rt_status_t cmd_disable(repl *r, char *args) { return name_pass(r, args, true); }
rt_status_t cmd_require(repl *r, char *args) { return name_pass(r, args, false); }

rt_status_t cmd_config(repl *r, char *args) {
  char *kv = repl_next_word(&args);
  char *eq = strchr(kv, '=');
  if (!eq || eq == kv) return RT_STATUS(INVALID_ARGUMENT, ":config expects KEY=VALUE, got '%s'", kv);
  *eq = '\0';
  RT_RETURN_IF_ERROR(rt_pass_context_set_config(r->ctx, kv, eq + 1));
  repl_drop_executors(r);
  printf("%s = %s\n", kv, eq + 1);
  return RT_OK;
}

rt_status_t cmd_apply(repl *r, char *args) {
  RT_RETURN_IF_ERROR(repl_need_module(r));
  char *name = repl_next_word(&args);
  if (!*name) return RT_STATUS(INVALID_ARGUMENT, ":apply expects a pass name (:passes lists them)");
  rt_module_t *m = NULL;
  char *before = NULL, *after = NULL;
  rt_status_t st = rt_module_run_pass(r->module, name, r->ctx, &m);
  if (!st) st = repl_module_text(r->module, &before);
  if (!st) st = repl_module_text(m, &after);
  if (!st) {
    printf("%s:\n", name);
    st = print_diff(before, after);
  }
  if (!st) {
    repl_set_module(r, m, true);
    m = NULL;
  }
  rt_module_release(m);
  free(before);
  free(after);
  return st;
}

rt_status_t cmd_build(repl *r, char *args) {
  (void)args;
  RT_RETURN_IF_ERROR(repl_need_module(r));
  rt_pass_context_t *ctx = NULL;
  rt_module_t *m = NULL;
  rt_status_t st = rt_pass_context_copy(r->ctx, &ctx);
  if (!st) st = rt_pass_context_add_trace(ctx, stdout);
  if (!st) st = rt_module_build(r->module, ctx, &m);
  fflush(stdout);
  if (!st) {
    repl_set_module(r, m, true);
    printf("built: the current module is the pipeline's result (:undo goes back)\n");
  }
  rt_pass_context_release(ctx);
  return st;
}

rt_status_t cmd_undo(repl *r, char *args) {
  (void)args;
  if (r->nundo == 0) return RT_STATUS(FAILED_PRECONDITION, "nothing to undo");
  rt_module_t *m = r->undo[--r->nundo];
  repl_set_module(r, m, false);
  printf("undone (%d more)\n", r->nundo);
  return RT_OK;
}

