/* A minimal deployment host: runs a model exported with
 * `relayrt build MODEL --emit=so -o model.so` using librelayrt_runtime
 * alone (no LLVM, no compiler, no IR on the target machine).
 *
 *   deploy model.so input.npy output.npy [INPUT_NAME]
 *
 * Feeds input.npy to the model's first input (or INPUT_NAME), runs it
 * once and writes output 0 to output.npy. Every error is printed with its
 * status message and the exit code is 1. */
#include <stdio.h>
#include <stdlib.h>

#include <rt/artifact.h>

static int fail(rt_status_t st) {
  fprintf(stderr, "deploy: error: %s\n", rt_status_message(st));
  rt_status_free(st);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 4 || argc > 5) {
    fprintf(stderr, "usage: %s model.so input.npy output.npy [INPUT_NAME]\n", argv[0]);
    return 2;
  }
  rt_artifact_t *model = NULL;
  rt_artifact_runtime_t *runtime = NULL;
  rt_tensor_t *input = NULL, *output = NULL;
  rt_status_t st = rt_artifact_load(argv[1], &model);
  if (!st) st = rt_artifact_runtime_create(model, 0, &runtime);
  if (!st) st = rt_npy_read_file(rt_allocator_system(), argv[2], &input);
  if (!st && argc == 5) st = rt_artifact_runtime_set_input_by_name(runtime, argv[4], input);
  if (!st && argc == 4) st = rt_artifact_runtime_set_input(runtime, 0, input);
  if (!st) st = rt_artifact_runtime_run(runtime);
  if (!st) st = rt_artifact_runtime_output(runtime, 0, &output);
  if (!st) st = rt_npy_write_file(output, argv[3]);
  if (!st) {
    rt_tensor_info_t info;
    st = rt_artifact_output_info(model, 0, &info);
    if (!st) printf("%s: wrote %s (%d-d) to %s\n", argv[1], info.name, (int)info.rank, argv[3]);
  }
  rt_tensor_release(input);
  rt_artifact_runtime_release(runtime); /* output belonged to it */
  rt_artifact_release(model);
  return st ? fail(st) : 0;
}
