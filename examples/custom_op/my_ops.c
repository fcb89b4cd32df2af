/* Two custom ops, registered by relayrt_ops_init():
 *
 *   my.gelu(x)       = x * sigmoid(1.702 x), elementwise. Its element
 *                      expression lets the JIT fuse it into the kernel of
 *                      the op before it (a conv2d's epilogue); alone it
 *                      runs gelu_c through libffi.
 *   my.normalize(x)  = x / sum(|x|) over the whole tensor: opaque (it
 *                      reads every element for each output), run as a
 *                      kernel call of its own: normalize_c through libffi.
 *
 * The same file is linked into the example program (custom_op.c) and built
 * as a shared library the command line loads with
 * `relayrt --ops ./libmy_ops.so ...`. */
#include <math.h>
#include <stdint.h>

#include "rt/rt.h"

/* ---- my.gelu -------------------------------------------------------------- */

/* The reference kernel: the definition, in double (the debug executor runs
 * it; `relayrt optest my.gelu` compares the native kernel against it). */
static rt_status_t gelu_reference(const rt_op_call_t *call) {
  const float *x = call->inputs[0].data;
  float *y = call->output->data;
  int64_t n = 1;
  for (int32_t d = 0; d < call->output->rank; ++d) n *= call->output->shape[d];
  for (int64_t i = 0; i < n; ++i) y[i] = (float)(x[i] / (1.0 + exp(-1.702 * x[i])));
  return RT_OK;
}

/* The native kernel: a plain C function, "void(f32*, f32*, i64)":
 * input, output, element count of the output. */
static void gelu_c(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + expf(-1.702f * x[i]));
}

/* ---- my.normalize --------------------------------------------------------- */

static rt_status_t normalize_reference(const rt_op_call_t *call) {
  const float *x = call->inputs[0].data;
  float *y = call->output->data;
  int64_t n = 1;
  for (int32_t d = 0; d < call->output->rank; ++d) n *= call->output->shape[d];
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += fabs((double)x[i]);
  if (s == 0) return RT_STATUS(INVALID_ARGUMENT, "my.normalize of an all-zero tensor");
  for (int64_t i = 0; i < n; ++i) y[i] = (float)(x[i] / s);
  return RT_OK;
}

/* Non-zero return = failure (the executor reports it as an error). */
static int32_t normalize_c(const float *x, float *y, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += fabs((double)x[i]);
  if (s == 0) return 1;
  for (int64_t i = 0; i < n; ++i) y[i] = (float)(x[i] / s);
  return 0;
}

/* ---- registration --------------------------------------------------------- */

rt_status_t relayrt_ops_init(void);

rt_status_t relayrt_ops_init(void) {
  static const rt_op_def_t gelu = {
      .name = "my.gelu",
      .doc = "x * sigmoid(1.702 x)",
      .num_inputs = 1,
      .pattern = RT_OP_PATTERN_ELEMWISE,
      .reference = gelu_reference,
      .signature = "void(f32*, f32*, i64)",
      .function = (rt_op_function_t)gelu_c,
      .elem_expr = "multiply(%0, sigmoid(multiply(%0, 1.702f)))",
  };
  static const rt_op_def_t normalize = {
      .name = "my.normalize",
      .doc = "x / sum(|x|)",
      .num_inputs = 1,
      .pattern = RT_OP_PATTERN_OPAQUE,
      .reference = normalize_reference,
      .signature = "i32(f32* x, f32* y, i64 n)",
      .function = (rt_op_function_t)normalize_c,
  };
  RT_RETURN_IF_ERROR(rt_op_register(&gelu));
  return rt_op_register(&normalize);
}
