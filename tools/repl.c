/* `relayrt repl [MODEL]`: an interactive session over one model, its
 * passes, the reference interpreter and the JIT kernels, built on the
 * public API alone (include/rt/). This file is the loop: it reads lines
 * (libedit with history in the user's state directory and tab completion
 * of commands, pass names, op names, @globals and %bindings when stdin and
 * stdout are a terminal; plain lines without a prompt otherwise, or from
 * `--batch FILE`), dispatches `:commands` through the table below (each
 * row's one-line doc is what :help prints) and hands other lines to the
 * expression evaluator. The commands live in repl_cmds_*.c and
 * repl_step.c; tools/repl.h maps them.
 *
 * Errors print and the session goes on; in non-interactive mode the exit
 * status is 1 when any command failed, else 0. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <editline/readline.h>

#include "repl.h"

typedef struct {
  const char *name;
  const char *args;
  const char *doc;
  repl_cmd_fn fn;
} command;

#define REPL_ROW(name, args, doc) {#name, args, doc, cmd_##name},
static const command kCommands[] = {REPL_COMMANDS(REPL_ROW){NULL, NULL, NULL, NULL}};
#undef REPL_ROW

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

rt_status_t cmd_help(repl *r, char *args) {
  (void)r;
  char *w = repl_next_word(&args);
  if (*w) {
    const command *c = find_command(w[0] == ':' ? w + 1 : w);
    if (!c) return RT_STATUS(NOT_FOUND, "no command ':%s' (:help lists them)", w[0] == ':' ? w + 1 : w);
    print_help_line(c);
    return RT_OK;
  }
  printf("commands (a line not starting with ':' is a Relay expression, e.g. add(%%3, 1f)):\n");
  for (const command *c = kCommands; c->name; ++c) print_help_line(c);
  printf("a first session: :step until the conv, :print %%N, :apply FuseOps, :kernels, :ll NAME\n");
  return RT_OK;
}

rt_status_t cmd_quit(repl *r, char *args) {
  (void)r;
  (void)args;
  return RT_OK; /* the loop ends the session */
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
  rt_status_t st = repl_module_text(r->module, &text);
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
    if (strncmp(w, text, n) == 0) return repl_dupstr(w);
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

/* Writes the history beside its file and renames it into place, so a reader
 * (or a crash mid-write) never sees a truncated history. */
static void save_history(const char *hist) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", hist);
  if (write_history(tmp) == 0) {
    if (rename(tmp, hist) != 0) remove(tmp);
  } else {
    remove(tmp);
  }
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
    char *name = repl_next_word(&rest);
    const command *c = find_command(name);
    if (!c) {
      st = RT_STATUS(NOT_FOUND, "unknown command ':%s' (:help lists the commands)", name);
    } else if (c->fn == cmd_quit) {
      return 1;
    } else {
      st = c->fn(r, rest);
    }
  } else {
    st = repl_eval_expr(r, line);
  }
  fflush(stdout);
  if (st) {
    cli_report(st);
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
  repl_initialize(&r);
  rt_status_t st = rt_pass_context_create(&r.ctx);
  if (st) {
    repl_deinitialize(&r);
    return cli_report(st);
  }
  FILE *in = stdin;
  if (batch) {
    in = fopen(batch, "r");
    if (!in) {
      fprintf(stderr, "relayrt: error: cannot open %s: %s\n", batch, strerror(errno));
      repl_deinitialize(&r);
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
        if (hist[0]) save_history(hist);
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
  repl_deinitialize(&r);
  free_words();
  return r.interactive ? 0 : last_error;
}
