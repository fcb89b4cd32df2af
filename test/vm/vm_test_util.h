/* Shared by the vm tests: module parsing, random inputs, and comparing an
 * executor's outputs against the debug executor's. */
#ifndef RT_TEST_VM_UTIL_H_
#define RT_TEST_VM_UTIL_H_

#include "rt/executor.h"
#include "test_util.h"

rt_module_t *vm_test_parse(const char *body);
/* Seeded inputs for every input of `ex`: floats random, ints small (1..5),
 * `?` dims = dyn. The caller releases them (vm_test_release_inputs). */
void vm_test_inputs(rt_executor_t *ex, int64_t dyn, rt_tensor_t **inputs);
void vm_test_release_inputs(rt_executor_t *ex, rt_tensor_t **inputs);
/* Sets the inputs on both executors, runs both, and asserts equal outputs
 * (float tolerance 1e-4 relative + absolute; exact otherwise). */
void vm_test_compare(rt_executor_t *vm, rt_executor_t *ref, rt_tensor_t **inputs, const char *what);
/* Are two tensors equal within the tolerance? A message in `why` if not. */
bool vm_test_tensors_close(const rt_tensor_t *a, const rt_tensor_t *b, char *why, size_t size);

#endif
