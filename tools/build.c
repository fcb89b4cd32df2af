/* `relayrt build MODEL`: load, type-check, run the pipeline, and print what
 * --emit asks for. Today: --emit=relay (the module in TVM's text form);
 * the other kinds arrive with the JIT and executors and say so. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_build(int argc, char **argv) {
  const char *model = NULL, *emit = "relay", *out_path = NULL;
  for (int i = 0; i < argc; ++i) {
    const char *v;
    if ((v = cli_option(argc, argv, &i, "--emit"))) {
      emit = v;
    } else if ((v = cli_option(argc, argv, &i, "--opt-level"))) {
      char *end = NULL;
      long level = strtol(v, &end, 10);
      if (*v == '\0' || *end != '\0' || level < 0 || level > 4) {
        return cli_usage_error("--opt-level expects 0..4, got", v);
      }
    } else if ((v = cli_option(argc, argv, &i, "-o"))) {
      out_path = v;
    } else if (strcmp(argv[i], "--no-opt") == 0) {
      /* The pipeline is type inference only until the passes land, so
       * --no-opt and the default print the same module. */
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error("unknown option for build:", argv[i]);
    } else if (!model) {
      model = argv[i];
    } else {
      return cli_usage_error("unexpected argument", argv[i]);
    }
  }
  if (strcmp(emit, "relay") != 0) {
    static const char *later[] = {"ll", "asm", "kernels", "graph-json", "vm", "dot", "so"};
    for (size_t k = 0; k < sizeof later / sizeof later[0]; ++k) {
      if (strcmp(emit, later[k]) == 0) {
        fprintf(stderr, "relayrt: error: --emit=%s is not available yet (it arrives "
                        "with the JIT and executors)\n", emit);
        return 1;
      }
    }
    return cli_usage_error("unknown --emit kind (relay|ll|asm|kernels|graph-json|vm|dot|so):",
                           emit);
  }
  rt_module_t *m = NULL;
  rt_status_t st = cli_load_model(model, &m);
  if (st) return cli_report(st);
  char *text = NULL;
  st = rt_module_print(m, RT_PRINT_DEFAULT, &text);
  rt_module_release(m);
  if (st) return cli_report(st);
  FILE *f = stdout;
  if (out_path && !(f = fopen(out_path, "w"))) {
    fprintf(stderr, "relayrt: error: cannot write %s\n", out_path);
    free(text);
    return 1;
  }
  fputs(text, f);
  free(text);
  if (f != stdout && fclose(f) != 0) {
    fprintf(stderr, "relayrt: error: cannot write %s\n", out_path);
    return 1;
  }
  return 0;
}
