/* Custom ops on the command line (rt/op.h), options every subcommand takes:
 *
 *   --ops LIB.so            dlopen LIB and call its
 *                           `rt_status_t relayrt_ops_init(void)`, which
 *                           registers its ops and strategies
 *   --onnx-op DOMAIN.TYPE=OP  map ONNX nodes of a custom domain to a
 *                           registered op when loading .onnx models
 *
 * cli_take_op_options removes them from argv before the subcommand parses
 * the rest, so they may appear anywhere after the command. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_ONNX_OPS 32

static const char *g_sources[MAX_ONNX_OPS];
static const char *g_targets[MAX_ONNX_OPS];
static char g_store[MAX_ONNX_OPS][2][128];
static int32_t g_num_onnx_ops;

typedef rt_status_t (*ops_init_fn)(void);

static int load_ops(const char *path) {
  /* RTLD_GLOBAL: the library's kernels may be looked up by its users.
   * Never closed: registered ops point into it until the process exits. */
  void *lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    fprintf(stderr, "relayrt: error: --ops %s: %s\n", path, dlerror());
    return 1;
  }
  void *sym = dlsym(lib, "relayrt_ops_init");
  if (!sym) {
    fprintf(stderr, "relayrt: error: --ops %s: the library has no relayrt_ops_init function "
            "(rt_status_t relayrt_ops_init(void), registering its ops)\n", path);
    return 1;
  }
  ops_init_fn init;
  memcpy(&init, &sym, sizeof init);
  rt_status_t st = init();
  if (st) {
    st = rt_status_annotate(st, "registering the ops of %s", path);
    return cli_report(st);
  }
  return 0;
}

int cli_take_op_options(int *argc, char **argv) {
  int out = 0;
  for (int i = 0; i < *argc; ++i) {
    const char *v;
    if ((v = cli_option(*argc, argv, &i, "--ops"))) {
      int rc = load_ops(v);
      if (rc) return rc;
    } else if ((v = cli_option(*argc, argv, &i, "--onnx-op"))) {
      const char *eq = strchr(v, '=');
      if (!eq || eq == v || !eq[1] || !strchr(v, '.') || strchr(v, '.') > eq) {
        return cli_usage_error("--onnx-op expects DOMAIN.OPTYPE=OP (e.g. "
                               "com.example.Gelu=my.gelu), got", v);
      }
      if (g_num_onnx_ops == MAX_ONNX_OPS) return cli_usage_error("too many --onnx-op options:", v);
      if ((size_t)(eq - v) >= sizeof g_store[0][0] || strlen(eq + 1) >= sizeof g_store[0][1]) {
        return cli_usage_error("--onnx-op names too long:", v);
      }
      snprintf(g_store[g_num_onnx_ops][0], sizeof g_store[0][0], "%.*s", (int)(eq - v), v);
      snprintf(g_store[g_num_onnx_ops][1], sizeof g_store[0][1], "%s", eq + 1);
      g_sources[g_num_onnx_ops] = g_store[g_num_onnx_ops][0];
      g_targets[g_num_onnx_ops] = g_store[g_num_onnx_ops][1];
      g_num_onnx_ops++;
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  argv[out] = NULL;
  return 0;
}

void cli_onnx_op_options(rt_module_load_options_t *options) {
  options->num_custom_ops = g_num_onnx_ops;
  options->custom_op_sources = g_sources;
  options->custom_op_targets = g_targets;
}
