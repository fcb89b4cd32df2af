/* The `relayrt repl` session, shared by its files (public API only):
 *
 *   repl.c               the loop: libedit line editing, history,
 *                        completion, the command table, :help
 *   repl_session.c       session state: the current module and its undo
 *                        stack, executors made on demand, inputs, values
 *   repl_step.c          stepping: the debug run on a worker thread that
 *                        parks in the step hook; :run :step :next
 *                        :continue :break :where
 *   repl_cmds_model.c    the model and its passes: :load :show :type
 *                        :passes :set :disable :require :config :apply
 *                        :build :undo
 *   repl_cmds_values.c   values: :input :print :save :compare, and Relay
 *                        expressions typed at the prompt
 *   repl_cmds_kernels.c  kernels: :kernels :ll :asm :profile
 *
 * Every command is `rt_status_t cmd_NAME(repl *r, char *args)`: it prints
 * its result to stdout and returns an error status (printed by the loop)
 * that never ends the session. */
#ifndef RT_TOOLS_REPL_H_
#define RT_TOOLS_REPL_H_

#include <pthread.h>

#include "cli.h"

#define REPL_MAX_UNDO 64
#define REPL_MAX_INPUTS 64
#define REPL_MAX_BREAKS 64
#define REPL_MAX_PASS_NAMES 64
#define REPL_MAX_FRAMES 64

typedef struct {
  char *name;
  char *file; /* NULL: seeded random data */
} repl_input;

/* One recorded "after" event of the debug run. */
typedef struct {
  char *label; /* "%3"; "?" for a node the text did not name */
  char *text;
  int32_t depth;
  bool in_fused; /* inside a fused group's body */
  int32_t n;
  rt_tensor_t **tensors; /* retained */
} repl_value;

typedef enum {
  STEP_RUN,      /* to a breakpoint or the end */
  STEP_INTO,     /* the next binding, into calls and fused groups */
  STEP_OVER,     /* the next binding at this call depth or above */
} step_mode;

/* The debug run in flight: a worker thread inside rt_executor_run, parked
 * in the step hook while the session has the turn. */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t thread;
  bool active;      /* the worker exists (running or parked) */
  bool worker_turn; /* who runs: the worker, or the session (false) */
  bool cancel;      /* the session asked the parked worker to stop */
  bool finished;    /* rt_executor_run returned: `result` holds its status */
  rt_status_t result;
  step_mode mode;
  int32_t stop_depth; /* STEP_OVER: stop at this depth or above */
  int32_t base_depth; /* call depth of @main's own bindings */
  long nbefore;
  int32_t last_depth; /* of the last event */
  int frame_start[REPL_MAX_FRAMES]; /* per call depth: first value of the frame entered last */
} repl_stepper;

typedef struct repl {
  char *model_name;
  rt_module_t *module;
  rt_module_t *undo[REPL_MAX_UNDO];
  int nundo;
  rt_pass_context_t *ctx;
  char *required[REPL_MAX_PASS_NAMES];
  int nrequired;
  char *disabled[REPL_MAX_PASS_NAMES];
  int ndisabled;
  repl_input inputs[REPL_MAX_INPUTS];
  int ninputs;
  char *breaks[REPL_MAX_BREAKS];
  int nbreaks;
  rt_executor_t *ex[3];                  /* debug, graph, vm */
  rt_executor_t *asm_ex;                 /* graph with jit.keep_asm=1 */
  rt_tensor_t *in_vals[REPL_MAX_INPUTS]; /* the inputs last set, by index; retained */
  /* The values of the last (or current) debug run. */
  repl_value *values;
  int nvalues, capvalues;
  /* Where the run is parked (paused is true). */
  bool paused;
  int32_t where_depth;
  bool where_in_fused;
  char *where_text;
  char *where_source;
  int32_t where_line;
  repl_stepper step;
  bool interactive;
} repl;

extern const char *const kReplKinds[3]; /* "debug", "graph", "vm" */
enum { KIND_DEBUG = 0, KIND_GRAPH = 1, KIND_VM = 2 };

/* ---- repl_session.c ------------------------------------------------------ */

char *repl_dupstr(const char *s);
/* Splits "word rest": returns the first word (NUL-terminated in place) and
 * sets *rest to what follows, spaces skipped. */
char *repl_next_word(char **s);
double repl_now_ms(void);
bool repl_in_list(char *const *list, int n, const char *name);
/* "debug"/"graph"/"vm" -> KIND_*, else -1. */
int repl_kind_index(const char *name);

void repl_initialize(repl *r);
void repl_deinitialize(repl *r);
/* Makes `m` (owned) the current module; the old one goes on the undo
 * stack when `keep_undo`. Drops the executors and the debug run. */
void repl_set_module(repl *r, rt_module_t *m, bool keep_undo);
/* Releases the executors (ending a debug run in flight first). */
void repl_drop_executors(repl *r);
rt_status_t repl_need_module(const repl *r);
/* The session's executor of `kind`, created on first use (borrowed). */
rt_status_t repl_executor(repl *r, int kind, rt_executor_t **out);
/* Sets every input of `ex`: the file chosen with :input, else seeded
 * random data. Keeps a reference to each in r->in_vals. */
rt_status_t repl_set_inputs(repl *r, rt_executor_t *ex);
/* The recorded value labelled `label`: while paused, one of the frame
 * paused in (its function's bindings, or its fused group's); else one of
 * @main's own bindings, else one inside a fused group called from @main.
 * NULL when there is none. */
const repl_value *repl_find_value(const repl *r, const char *label);
/* The tensor for `%N` (a recorded binding), `%name` (an input) or
 * `output_N` (of a finished debug run). Borrowed. */
rt_status_t repl_lookup_tensor(repl *r, const char *ref, rt_tensor_t **out);
/* NOT_FOUND for a %N with no recorded value, saying why. */
rt_status_t repl_no_value(const repl *r, const char *ref);
rt_status_t repl_module_text(const rt_module_t *m, char **out);
void repl_print_outputs(rt_executor_t *ex);

/* ---- repl_step.c --------------------------------------------------------- */

/* Ends the debug run in flight (if any) and forgets its values. */
void repl_reset_stepping(repl *r);

/* ---- repl_cmds_values.c -------------------------------------------------- */

/* Type-checks and evaluates a Relay expression over the current values. */
rt_status_t repl_eval_expr(repl *r, const char *expr);

/* ---- commands ------------------------------------------------------------ */

typedef rt_status_t (*repl_cmd_fn)(repl *r, char *args);

#define REPL_COMMANDS(X)                                                                      \
  X(load, "FILE", "load a model (.relay, .txt, .onnx; '-' = the built-in example)")            \
  X(show, "[@fn]", "print the module (or one function) with its binding numbers")             \
  X(type, "%N", "the type of binding %N in the current module")                               \
  X(passes, "", "the pipeline: each pass, its opt_level, enabled or not and why")             \
  X(set, "opt_level N", "set the pass context's opt_level (0..4)")                            \
  X(disable, "PASS", "never run PASS")                                                        \
  X(require, "PASS", "always run PASS, whatever the opt_level")                               \
  X(config, "KEY=VALUE", "set a pass config option (fuse.max_depth, jit.keep_asm, ...)")      \
  X(apply, "PASS", "run one pass (e.g. FuseOps) on the current module and print the IR diff") \
  X(build, "", "run the whole pipeline with its trace; the result becomes current")           \
  X(undo, "", "go back to the module before the last :apply or :build")                      \
  X(input, "NAME=FILE.npy|NAME=random", "choose an input of @main (default: seeded random)")  \
  X(run, "[debug|graph|vm]", "run @main from the start, print the outputs (debug: to a breakpoint)") \
  X(step, "", "evaluate up to the next binding, into calls and fused kernels (:s)")           \
  X(next, "", "evaluate up to the next binding at this depth, over calls and kernels (:n)")   \
  X(continue, "", "run on to the next breakpoint or the end (:c)")                            \
  X(break, "[%N|OPNAME]", "stop before binding %N or a call of OPNAME; no argument lists them") \
  X(where, "", "the binding stopped at, with its source line")                               \
  X(print, "%N|output_N", "a value: shape, dtype, min/max/mean, NaN/inf count, the first elements")    \
  X(save, "%N FILE.npy", "write a value to a .npy file")                                      \
  X(compare, "[%N] [debug|graph|vm] [opt_level=N]", "%N (or the outputs) here vs under another executor or opt_level") \
  X(kernels, "", "the graph executor's fused kernels: name, type, template")                  \
  X(ll, "NAME", "the LLVM IR of kernel NAME (names from :kernels)")                           \
  X(asm, "NAME", "the assembly of kernel NAME")                                               \
  X(profile, "[N]", "time each kernel of the graph executor over N runs (default 10)")        \
  X(help, "[CMD]", "this list, or one command")                                               \
  X(quit, "", "leave (also :q, :exit, end of input)")

#define REPL_DECLARE(name, args, doc) rt_status_t cmd_##name(repl *r, char *args_);
REPL_COMMANDS(REPL_DECLARE)
#undef REPL_DECLARE

#endif /* RT_TOOLS_REPL_H_ */
