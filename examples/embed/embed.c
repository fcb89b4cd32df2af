/* A minimal host program embedding relayrt: loads a model (ONNX or Relay
 * text), creates a "graph" executor (JIT-compiled kernels), feeds one input
 * and prints the outputs.
 *
 *   embed MODEL [INPUT.npy]
 *
 * Without INPUT.npy, input 0 gets the values 1, 2, 3, ... (its shape and
 * dtype come from the model; float32 only then). Every error is printed
 * with its status message and the exit code is 1. Build: see Makefile
 * (pkg-config relayrt). */
#include <stdio.h>
#include <stdlib.h>

#include <rt/rt.h>

static rt_status_t make_input(rt_executor_t *ex, rt_tensor_t **out) {
  rt_tensor_info_t info;
  RT_RETURN_IF_ERROR(rt_executor_input_info(ex, 0, &info));
  if (!rt_dtype_equal(info.dtype, RT_DTYPE_FLOAT32)) {
    return RT_STATUS(INVALID_ARGUMENT, "input '%s' is not float32: give an INPUT.npy", info.name);
  }
  for (int32_t i = 0; i < info.rank; ++i) {
    if (info.shape[i] == RT_DIM_ANY) {
      return RT_STATUS(INVALID_ARGUMENT, "input '%s' has a `?` dim: give an INPUT.npy", info.name);
    }
  }
  RT_RETURN_IF_ERROR(rt_tensor_create(rt_allocator_system(), info.dtype, info.rank, info.shape, out));
  float *x = rt_tensor_data(*out);
  for (int64_t i = 0; i < rt_tensor_numel(*out); ++i) x[i] = (float)(i + 1);
  return RT_OK;
}

static void print_tensor(const char *label, const rt_tensor_t *t) {
  char dtype[RT_DTYPE_NAME_MAX];
  printf("%s: (", label);
  for (int32_t i = 0; i < rt_tensor_rank(t); ++i) {
    printf("%s%lld", i ? ", " : "", (long long)rt_tensor_shape(t)[i]);
  }
  printf(") %s:", rt_dtype_name(rt_tensor_dtype(t), dtype));
  int64_t n = rt_tensor_numel(t);
  for (int64_t i = 0; i < n && i < 8; ++i) printf(" %g", rt_tensor_get_f64(t, i));
  printf("%s\n", n > 8 ? " ..." : "");
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s MODEL [INPUT.npy]\n", argv[0]);
    return 2;
  }
  rt_module_t *module = NULL;
  rt_executor_t *ex = NULL;
  rt_tensor_t *input = NULL;
  rt_status_t st = rt_module_load(argv[1], &module);
  if (!st) st = rt_create_executor("graph", module, NULL, NULL, NULL, &ex);
  if (!st && argc == 3) st = rt_npy_read_file(rt_allocator_system(), argv[2], &input);
  if (!st && argc == 2) st = make_input(ex, &input);
  if (!st) st = rt_executor_set_input(ex, 0, input);
  if (!st) st = rt_executor_run(ex);
  for (int32_t i = 0; !st && i < rt_executor_num_outputs(ex); ++i) {
    rt_tensor_t *out = NULL; /* borrowed from the executor */
    rt_tensor_info_t info;
    st = rt_executor_get_output(ex, i, &out);
    if (!st) st = rt_executor_output_info(ex, i, &info);
    if (!st) print_tensor(info.name, out);
  }
  rt_tensor_release(input);
  rt_executor_release(ex);
  rt_module_release(module);
  if (st) {
    fprintf(stderr, "embed: error: %s\n", rt_status_message(st));
    rt_status_free(st);
    return 1;
  }
  return 0;
}
