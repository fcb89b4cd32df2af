/* `relayrt build MODEL`: load, type-check, run the pass pipeline under the
 * context the options describe, and print what --emit asks for:
 * --emit=relay (the optimized module in TVM's text form). --list-passes
 * prints the pipeline; --trace, --dump-after and the timing summary come
 * from the pass context's built-in instruments. --no-opt prints the parsed,
 * type-checked module without running any pass (a formatter).
 * --emit=kernels|ll|asm|graph-json build the graph executor and print its
 * kernels, their LLVM IR or assembly (--kernel NAME: one kernel) or its
 * graph JSON; --emit=dot prints the dataflow graph with fused groups as
 * clusters; --emit=so -o FILE exports the graph executor (or, with
 * --executor vm, the vm executor: bytecode + constants next to the
 * kernels) as a shared library for librelayrt_runtime
 * (rt_executor_export); --emit=vm builds
 * the vm executor and prints its bytecode (functions, registers, each
 * instruction with its synopsis). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int list_passes(const rt_pass_context_t *ctx) {
  int32_t level = rt_pass_context_opt_level(ctx);
  printf("the pipeline (every executor runs it, in this order):\n");
  bool steps_header = false;
  for (int32_t i = 0; i < rt_pass_count(); ++i) {
    const rt_pass_info_t *p = rt_pass_at(i);
    const char *executor = NULL;
    if (rt_pass_is_executor_step(i, &executor)) {
      if (!steps_header) printf("executor-specific steps (after the pipeline):\n");
      steps_header = true;
      printf("  %-4s %-24s opt %d  %-8s %s\n", executor, p->name, (int)p->opt_level,
             p->opt_level <= level ? "runs" : "skipped", p->doc);
    } else {
      printf("  %2d   %-24s opt %d  %-8s %s\n", (int)i, p->name, (int)p->opt_level,
             p->opt_level <= level ? "runs" : "skipped", p->doc);
    }
  }
  printf("(runs/skipped at opt_level %d; --require and --disable override)\n", (int)level);
  return 0;
}

static const char kBuildHelp[] =
    "usage: relayrt build MODEL [options]\n"
    "  --emit=relay|dot|kernels|ll|asm|graph-json|vm|so   what to print or write (default relay)\n"
    "      relay       the module after the pipeline (--no-opt: parsed and type-checked only)\n"
    "      dot         the dataflow graph, fused groups as clusters\n"
    "      kernels, ll, asm, graph-json   the graph executor's kernels, LLVM IR, assembly, graph\n"
    "                  JSON (--kernel NAME for one kernel)\n"
    "      vm          the vm executor's bytecode (functions, registers, instructions)\n"
    "      so          -o FILE: a shared library of the kernels + the graph plan and params, run\n"
    "                  by librelayrt_runtime without LLVM (include/rt/artifact.h); with\n"
    "                  --executor vm it holds the serialized vm executable (bytecode + constants)\n"
    "                  instead, for control flow, recursion and `?` dims\n"
    "  --executor graph|vm    the executor --emit=so exports (default graph)\n"
    "  -o FILE                the output file (--emit=so)\n"
    "  --opt-level N, --disable P, --require P, --config K=V   the pass context\n"
    "  --trace, --timing, --dump-after=PASS|all [--dump-dir DIR], --list-passes\n"
    "  --no-opt               run no pass (--emit=relay)\n";

int cli_build(int argc, char **argv) {
  const char *model = NULL, *emit = "relay", *out_path = NULL, *dump_after = NULL,
             *dump_dir = NULL, *kernel = NULL, *executor = NULL;
  bool no_opt = false, trace = false, timing = false, list = false;
  rt_pass_context_t *ctx = NULL;
  rt_status_t st = rt_pass_context_create(&ctx);
  if (st) return cli_report(st);
  int rc = 0;
  for (int i = 0; i < argc && !rc && !st; ++i) {
    const char *v;
    if ((v = cli_option(argc, argv, &i, "--emit"))) {
      emit = v;
    } else if ((v = cli_option(argc, argv, &i, "--opt-level"))) {
      char *end = NULL;
      long level = strtol(v, &end, 10);
      if (*v == '\0' || *end != '\0' || level < 0 || level > 4) {
        rc = cli_usage_error("--opt-level expects 0..4, got", v);
      } else {
        st = rt_pass_context_set_opt_level(ctx, (int32_t)level);
      }
    } else if ((v = cli_option(argc, argv, &i, "--disable"))) {
      st = rt_pass_context_disable(ctx, v);
    } else if ((v = cli_option(argc, argv, &i, "--require"))) {
      st = rt_pass_context_require(ctx, v);
    } else if ((v = cli_option(argc, argv, &i, "--config"))) {
      const char *eq = strchr(v, '=');
      if (!eq || eq == v) {
        rc = cli_usage_error("--config expects KEY=VALUE, got", v);
      } else {
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(eq - v), v);
        st = rt_pass_context_set_config(ctx, key, eq + 1);
      }
    } else if ((v = cli_option(argc, argv, &i, "--dump-after"))) {
      dump_after = v;
    } else if ((v = cli_option(argc, argv, &i, "--kernel"))) {
      kernel = v;
    } else if ((v = cli_option(argc, argv, &i, "--dump-dir"))) {
      dump_dir = v;
    } else if ((v = cli_option(argc, argv, &i, "-o"))) {
      out_path = v;
    } else if ((v = cli_option(argc, argv, &i, "--executor"))) {
      if (strcmp(v, "graph") != 0 && strcmp(v, "vm") != 0) {
        rc = cli_usage_error("--executor for build (with --emit=so) is graph or vm, not", v);
      }
      executor = v;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(kBuildHelp, stdout);
      rt_pass_context_release(ctx);
      return 0;
    } else if (strcmp(argv[i], "--no-opt") == 0) {
      no_opt = true;
    } else if (strcmp(argv[i], "--trace") == 0) {
      trace = true;
    } else if (strcmp(argv[i], "--timing") == 0) {
      timing = true;
    } else if (strcmp(argv[i], "--list-passes") == 0) {
      list = true;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      rc = cli_usage_error("unknown option for build:", argv[i]);
    } else if (!model) {
      model = argv[i];
    } else {
      rc = cli_usage_error("unexpected argument", argv[i]);
    }
  }
  if (rc || st) {
    rt_pass_context_release(ctx);
    return rc ? rc : cli_report(st);
  }
  if (list) {
    rc = list_passes(ctx);
    rt_pass_context_release(ctx);
    return rc;
  }
  static const char *kinds[] = {"relay", "dot", "kernels", "ll", "asm", "graph-json"};
  bool known = false, graph_kind = false;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
    if (strcmp(emit, kinds[k]) == 0) {
      known = true;
      graph_kind = k >= 2;
    }
  }
  const bool so = strcmp(emit, "so") == 0;
  if (so && !out_path) {
    rt_pass_context_release(ctx);
    return cli_usage_error("--emit=so writes a shared library: give its path with", "-o FILE");
  }
  if (executor && !so) {
    rt_pass_context_release(ctx);
    return cli_usage_error("--executor picks what --emit=so exports; it does not apply to --emit",
                           emit);
  }
  known = known || so;
  /* --emit=vm: the vm executor's disassembly (rt_executor_get_source "vm"). */
  const bool vm_kind = strcmp(emit, "vm") == 0;
  known = known || vm_kind;
  if (!known) {
    rt_pass_context_release(ctx);
    return cli_usage_error("unknown --emit kind (relay|dot|kernels|ll|asm|graph-json|vm|so):", emit);
  }
  if (kernel && !graph_kind) {
    rt_pass_context_release(ctx);
    return cli_usage_error("--kernel filters --emit=kernels|ll|asm, not", emit);
  }
  if (strcmp(emit, "asm") == 0) st = rt_pass_context_set_config(ctx, "jit.keep_asm", "1");
  if (trace) st = rt_pass_context_add_trace(ctx, stderr);
  if (!st && timing) st = rt_pass_context_add_timing(ctx, stderr);
  if (!st && dump_after) st = rt_pass_context_add_dump(ctx, dump_after, dump_dir, stderr);
  if (!st && dump_dir && !dump_after) {
    st = RT_STATUS(INVALID_ARGUMENT, "--dump-dir needs --dump-after=PASS|all");
  }
  rt_module_t *m = NULL, *built = NULL;
  if (!st) st = cli_load_model(model, &m);
  if (!st) {
    if (no_opt) {
      built = m;
      rt_module_retain(built);
    } else {
      st = rt_module_build(m, ctx, &built);
    }
  }
  char *text = NULL;
  if (!st && so) {
    /* The graph (or vm) executor's build, linked into a library that
     * librelayrt_runtime runs without LLVM (include/rt/artifact.h). */
    rt_executor_t *ex = NULL;
    st = rt_create_executor(executor ? executor : "graph", m, NULL, ctx, NULL, &ex);
    if (!st) st = rt_executor_export(ex, out_path);
    rt_executor_release(ex);
    rt_module_release(built);
    rt_module_release(m);
    rt_pass_context_release(ctx);
    return st ? cli_report(st) : 0;
  }
  if (!st && (graph_kind || vm_kind)) {
    /* Kernels come from the graph executor's build of the same module;
     * bytecode from the vm executor's. */
    rt_executor_t *ex = NULL;
    st = rt_create_executor(vm_kind ? "vm" : "graph", m, NULL, ctx, NULL, &ex);
    char what[256];
    if (kernel && strcmp(emit, "kernels") != 0) {
      snprintf(what, sizeof what, "%s:%s", emit, kernel);
    } else {
      snprintf(what, sizeof what, "%s", emit);
    }
    if (!st) st = rt_executor_get_source(ex, what, &text);
    if (!st && kernel && strcmp(emit, "kernels") == 0) {
      /* Keep the header and the named kernel's line. */
      char *filtered = malloc(strlen(text) + 1);
      if (!filtered) {
        st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
      } else {
        size_t n = 0, klen = strlen(kernel);
        bool found = false;
        for (char *line = text, *next; line && *line; line = next) {
          next = strchr(line, '\n');
          size_t len = next ? (size_t)(next - line + 1) : strlen(line);
          bool header = line == text;
          bool match = strncmp(line, kernel, klen) == 0 && line[klen] == ':';
          if (header || match) {
            memcpy(filtered + n, line, len);
            n += len;
          }
          found = found || match;
          if (next) next++;
        }
        filtered[n] = '\0';
        free(text);
        text = filtered;
        if (!found) st = RT_STATUS(NOT_FOUND, "no kernel named '%s' (--emit=kernels lists them)", kernel);
      }
    }
    rt_executor_release(ex);
  } else if (!st && strcmp(emit, "dot") == 0) {
    st = rt_module_to_dot(built, &text);
  } else if (!st) {
    st = rt_module_print(built, RT_PRINT_DEFAULT, &text);
  }
  rt_module_release(built);
  rt_module_release(m);
  rt_pass_context_release(ctx);
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
