/* A runtime-only host for the vm export test (test_vm_export.c): linked
 * with librelayrt_runtime alone (no LLVM, no IR, no compiler), like
 * examples/deploy, but for any number of inputs, outputs and runs.
 *
 *   vm_host MODEL.so OUTDIR IN.npy...
 *
 * The inputs come in groups of the model's input count; each group is one
 * run of the SAME runtime (so a `?`-batch model runs at several sizes in
 * one VM), writing OUTDIR/run<R>_out<O>.npy for each output O. Errors are
 * printed with their status message, exit code 1. */
#include <stdio.h>
#include <stdlib.h>

#include "rt/artifact.h"

static int fail(rt_status_t st) {
  fprintf(stderr, "vm_host: error: %s\n", rt_status_message(st));
  rt_status_free(st);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODEL.so OUTDIR IN.npy...\n", argv[0]);
    return 2;
  }
  rt_artifact_t *model = NULL;
  rt_artifact_runtime_t *runtime = NULL;
  rt_status_t st = rt_artifact_load(argv[1], &model);
  if (!st) st = rt_artifact_runtime_create(model, 1, &runtime);
  int32_t ni = st ? 0 : rt_artifact_num_inputs(model);
  int32_t nfiles = argc - 3;
  if (!st && (ni == 0 ? nfiles != 0 : nfiles % ni != 0)) {
    fprintf(stderr, "vm_host: %d input files for a model of %d inputs\n", (int)nfiles, (int)ni);
    rt_artifact_runtime_release(runtime);
    rt_artifact_release(model);
    return 2;
  }
  int32_t runs = ni ? nfiles / ni : 1;
  for (int32_t r = 0; !st && r < runs; ++r) {
    for (int32_t i = 0; !st && i < ni; ++i) {
      rt_tensor_t *t = NULL;
      st = rt_npy_read_file(rt_allocator_system(), argv[3 + r * ni + i], &t);
      if (!st) st = rt_artifact_runtime_set_input(runtime, i, t);
      rt_tensor_release(t);
    }
    if (!st) st = rt_artifact_runtime_run(runtime);
    for (int32_t o = 0; !st && o < rt_artifact_num_outputs(model); ++o) {
      rt_tensor_t *out = NULL;
      char path[1024];
      snprintf(path, sizeof path, "%s/run%d_out%d.npy", argv[2], (int)r, (int)o);
      st = rt_artifact_runtime_output(runtime, o, &out);
      if (!st) st = rt_npy_write_file(out, path);
    }
  }
  rt_artifact_runtime_release(runtime);
  rt_artifact_release(model);
  if (st) return fail(st);
  printf("vm_host: %s: %d runs\n", argv[1], (int)runs);
  return 0;
}
