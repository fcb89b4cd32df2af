/* Helpers of the vm tests (vm_test_util.h): inputs and output comparison
 * against the reference interpreter. */
#include "vm_test_util.h"
#include "runtime/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rt_module_t *vm_test_parse(const char *body) {
  size_t n = strlen(body) + 64;
  char *src = rt_mem_alloc(n);
  assert_non_null(src);
  snprintf(src, n, "#[version = \"0.0.5\"]\n%s", body);
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(src, strlen(src), "t.relay", &m));
  rt_mem_free(src);
  return m;
}

void vm_test_inputs(rt_executor_t *ex, int64_t dyn, rt_tensor_t **inputs) {
  for (int32_t i = 0; i < rt_executor_num_inputs(ex); ++i) {
    rt_tensor_info_t info;
    assert_ok(rt_executor_input_info(ex, i, &info));
    int64_t shape[RT_TENSOR_MAX_RANK];
    for (int32_t d = 0; d < info.rank; ++d) shape[d] = info.shape[d] < 0 ? dyn : info.shape[d];
    rt_tensor_t *t = NULL;
    assert_ok(rt_tensor_create(rt_allocator_system(), info.dtype, info.rank, shape, &t));
    if (rt_dtype_is_float(info.dtype)) {
      rt_tensor_fill_random(t, 1234 + (uint64_t)i);
    } else {
      uint8_t *p = rt_tensor_data(t);
      size_t es = rt_dtype_size(info.dtype);
      for (int64_t k = 0; k < rt_tensor_numel(t); ++k) {
        int64_t v = rt_dtype_is_bool(info.dtype) ? (k + i) % 2 : 1 + (k + i) % 5;
        memcpy(p + (size_t)k * es, &v, es); /* little-endian: the low bytes */
      }
    }
    inputs[i] = t;
  }
}

void vm_test_release_inputs(rt_executor_t *ex, rt_tensor_t **inputs) {
  for (int32_t i = 0; i < rt_executor_num_inputs(ex); ++i) rt_tensor_release(inputs[i]);
}

bool vm_test_tensors_close(const rt_tensor_t *a, const rt_tensor_t *b, char *why, size_t size) {
  if (!rt_dtype_equal(rt_tensor_dtype(a), rt_tensor_dtype(b)) || rt_tensor_rank(a) != rt_tensor_rank(b)) {
    snprintf(why, size, "dtype or rank differ");
    return false;
  }
  for (int32_t d = 0; d < rt_tensor_rank(a); ++d) {
    if (rt_tensor_shape(a)[d] != rt_tensor_shape(b)[d]) {
      snprintf(why, size, "dim %d: %lld vs %lld", (int)d, (long long)rt_tensor_shape(a)[d],
               (long long)rt_tensor_shape(b)[d]);
      return false;
    }
  }
  bool fl = rt_dtype_is_float(rt_tensor_dtype(a));
  double tol = rt_tensor_dtype(a).bits == 16 ? 1e-2 : 1e-4;
  for (int64_t k = 0; k < rt_tensor_numel(a); ++k) {
    double x = rt_tensor_get_f64(a, k), y = rt_tensor_get_f64(b, k);
    bool ok = fl ? x == y || (isnan(x) && isnan(y)) || fabs(x - y) <= tol + tol * fabs(y) : x == y;
    if (!ok) {
      snprintf(why, size, "element %lld: %.9g vs %.9g", (long long)k, x, y);
      return false;
    }
  }
  return true;
}

void vm_test_compare(rt_executor_t *vm, rt_executor_t *ref, rt_tensor_t **inputs, const char *what) {
  for (int32_t i = 0; i < rt_executor_num_inputs(ref); ++i) {
    assert_ok(rt_executor_set_input(vm, i, inputs[i]));
    assert_ok(rt_executor_set_input(ref, i, inputs[i]));
  }
  assert_ok(rt_executor_run(ref));
  assert_ok(rt_executor_run(vm));
  assert_int_equal(rt_executor_num_outputs(vm), rt_executor_num_outputs(ref));
  for (int32_t o = 0; o < rt_executor_num_outputs(ref); ++o) {
    rt_tensor_t *a = NULL, *b = NULL;
    assert_ok(rt_executor_get_output(vm, o, &a));
    assert_ok(rt_executor_get_output(ref, o, &b));
    char why[256];
    if (!vm_test_tensors_close(a, b, why, sizeof why)) {
      fail_msg("%s: output %d differs from the debug executor: %s", what, (int)o, why);
    }
  }
}
