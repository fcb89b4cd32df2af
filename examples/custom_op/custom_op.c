/* examples/custom_op: register two ops (my_ops.c), load a model that uses
 * them (model.relay), run it on the three executors and compare each with
 * the debug executor (the reference kernels).
 *
 *   ./custom_op model.relay
 *
 * Prints one line per executor and the graph executor's kernels (the
 * conv2d and my.gelu are one kernel, fused_nn_conv2d_my_gelu); exits 1 on
 * any error or a mismatch. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

rt_status_t relayrt_ops_init(void);

static int fail(rt_status_t st) {
  fprintf(stderr, "custom_op: %s\n", rt_status_message(st));
  rt_status_free(st);
  return 1;
}

/* Runs main on inputs x, w; *out is a new reference to output 0. */
static rt_status_t run(const char *kind, rt_module_t *m, rt_tensor_t *x, rt_tensor_t *w,
                       rt_tensor_t **out, rt_executor_t **out_ex) {
  rt_executor_t *ex = NULL;
  RT_RETURN_IF_ERROR(rt_create_executor(kind, m, NULL, NULL, NULL, &ex));
  rt_status_t st = rt_executor_set_input(ex, 0, x);
  if (!st) st = rt_executor_set_input(ex, 1, w);
  if (!st) st = rt_executor_run(ex);
  rt_tensor_t *o = NULL;
  if (!st) st = rt_executor_get_output(ex, 0, &o);
  if (!st) {
    rt_tensor_retain(o);
    *out = o;
    *out_ex = ex;
  } else {
    rt_executor_release(ex);
  }
  return st;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "model.relay";
  rt_status_t st = relayrt_ops_init();
  if (st) return fail(st);

  rt_module_t *m = NULL;
  st = rt_module_load(path, &m);
  if (st) return fail(st);

  const int64_t xs[] = {1, 3, 8, 8}, ws[] = {8, 3, 3, 3};
  rt_tensor_t *x = NULL, *w = NULL;
  st = rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 4, xs, &x);
  if (!st) st = rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 4, ws, &w);
  if (st) return fail(st);
  rt_tensor_fill_random(x, 1);
  rt_tensor_fill_random(w, 2);

  const char *kinds[] = {"debug", "graph", "vm"};
  rt_tensor_t *ref = NULL;
  int status = 0;
  for (int k = 0; k < 3 && !status; ++k) {
    rt_tensor_t *out = NULL;
    rt_executor_t *ex = NULL;
    st = run(kinds[k], m, x, w, &out, &ex);
    if (st) {
      status = fail(st);
      break;
    }
    double max_err = 0;
    if (!ref) {
      ref = out;
      rt_tensor_retain(ref);
    }
    const float *a = rt_tensor_data(ref), *b = rt_tensor_data(out);
    for (int64_t i = 0; i < rt_tensor_numel(out); ++i) {
      double e = fabs((double)a[i] - (double)b[i]);
      if (e > max_err) max_err = e;
    }
    printf("%-5s: %lld outputs, max abs difference to debug %.3g\n", kinds[k],
           (long long)rt_tensor_numel(out), max_err);
    if (max_err > 1e-5) status = 1;
    if (strcmp(kinds[k], "graph") == 0) {
      char *text = NULL;
      st = rt_executor_get_source(ex, "kernels", &text);
      if (st) {
        status = fail(st);
      } else {
        fputs(text, stdout);
        free(text);
      }
    }
    rt_tensor_release(out);
    rt_executor_release(ex);
  }
  rt_tensor_release(ref);
  rt_tensor_release(x);
  rt_tensor_release(w);
  rt_module_release(m);
  return status;
}
