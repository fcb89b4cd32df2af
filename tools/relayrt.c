/* The relayrt command: run, build, repl, optest (its options are a stable
 * contract: `relayrt --help`, README's "The command"). It uses only the
 * public API in include/rt/, as any embedder would. Exit status: 0 on
 * success, 1 when the model or an input is bad or a step fails, 2 on a usage
 * error. Diagnostics go to stderr as "file:line:col: error: message". */
#include <string.h>

#include "cli.h"

static const char kUsage[] =
    "usage: relayrt <command> [options]\n"
    "\n"
    "commands:\n"
    "  run [MODEL] [--executor graph|vm|debug|all] [--opt-level N]\n"
    "      [--input NAME=FILE.npy]... [--shape NAME=1x3x224x224]... [--params FILE]\n"
    "      [--out DIR] [--repeat N] [--warmup N] [--threads N] [--report text|json]\n"
    "      [--trace-values] [--const-input NAME=FILE.npy]... [--profile]\n"
    "      [--rtol X] [--atol Y] [--config K=V]... [--require P]... [--disable P]...\n"
    "        run MODEL's @main; missing inputs get seeded random data;\n"
    "        a sequence or optional input (debug) takes --input NAME=A.npy,B.npy\n"
    "        (NAME= empty, NAME=none absent); --out writes such an output as\n"
    "        output_<i>.txt (list N / some N / none) and output_<i>.<k>.npy;\n"
    "        --const-input binds an ONNX graph input as a constant at load time;\n"
    "        --shape binds an input's `?` dims at load time (graph can then run it)\n"
    "        --config sets a pass-context option (vm.specialize, graph.max_specializations ...);\n"
    "        --require / --disable force a pass on / off (--require AlterOpLayout)\n"
    "        --profile (graph) times each kernel over --repeat more runs, slowest first\n"
    "        --executor all runs debug, graph and vm on the same inputs: compile time\n"
    "        (each its own kernels, no disk cache), median latency (--repeat 10\n"
    "        --warmup 1 unless given) and each output's difference from debug's;\n"
    "        beyond --rtol (1e-4) and --atol (1e-5) exits 1\n"
    "  run MODEL.so [--executor graph|vm] [--input NAME=FILE.npy]... [--shape NAME=DIMS]...\n"
    "      [--out DIR] [--repeat N] [--warmup N] [--threads N] [--report text|json]\n"
    "        run an exported model (build --emit=so) through the artifact runtime, on the\n"
    "        executor it was exported from; --shape only sizes a `?` dim's random data\n"
    "  build MODEL [--emit=relay|dot|kernels|ll|asm|graph-json|vm|so] [--kernel NAME]\n"
    "      [--opt-level N] [--disable P]... [--require P]... [--config K=V]...\n"
    "      [--trace] [--timing] [--dump-after=PASS|all [--dump-dir DIR]] [--list-passes]\n"
    "      [--no-opt] [-o FILE] [--executor graph|vm (with --emit=so)]\n"
    "        run the pass pipeline on MODEL and print the result; --emit=so -o FILE\n"
    "        exports kernels + plan + params for librelayrt_runtime\n"
    "  optest OP [--shape NAME=DIMS]... [--attr K=V]... [--dtype T] [--tolerance T]\n"
    "        one op on random inputs through every executor, against the reference\n"
    "  repl [MODEL] [--batch FILE]\n        step through the IR, its passes and kernels (:help inside lists the commands)\n"
    "  help                this text\n"
    "\n"
    "MODEL: .relay/.txt (Relay text), .onnx, .so (exported, run only);\n"
    "       '-' or no MODEL means the built-in example.\n"
    "\n"
    "custom ops (docs/custom-ops.md), with any command:\n"
    "  --ops LIB.so        load LIB and call its relayrt_ops_init() (registers ops)\n"
    "  --onnx-op DOMAIN.TYPE=OP  load ONNX nodes of a custom domain as op OP\n";

int main(int argc, char **argv) {
  /* --ops LIB.so and --onnx-op DOMAIN.TYPE=OP, anywhere, for every command. */
  if (argc > 1) {
    int rest = argc - 1;
    int op_rc = cli_take_op_options(&rest, argv + 1);
    if (op_rc) return op_rc;
    argc = rest + 1;
  }
  if (argc < 2 || strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
      strcmp(argv[1], "-h") == 0) {
    fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "build") == 0) return cli_build(argc - 2, argv + 2);
  if (strcmp(cmd, "run") == 0) return cli_run(argc - 2, argv + 2);
  if (strcmp(cmd, "optest") == 0) return cli_optest(argc - 2, argv + 2);
  if (strcmp(cmd, "repl") == 0) return cli_repl(argc - 2, argv + 2);
  return cli_usage_error("unknown command", cmd);
}
