/* Helpers for the reference-kernel tests: run one op's kernel on tensors
 * written as text and compare its outputs with expected tensors.
 *
 * A tensor is written "<dtype>[<dims>] <values>": dtype one of f16 bf16 f32
 * f64 i8 i16 i32 i64 u8 u16 u32 u64 bool; dims comma-separated ("[]" is
 * 0-d); values whitespace-separated in row-major order (floats accept nan,
 * inf, -inf; bools 0/1), or the word `iota` for 0, 1, 2, ... An expected
 * output with a `?` dim ("f32[?] 0 1 2") is passed to the kernel as NULL
 * (the kernel creates it: arange) and compared with the values' count.
 *
 * Attributes are written as in Relay text, separated by ';':
 * "strides=[2, 2]; padding=[1, 1]; data_layout=\"NHWC\"". The values are
 * parsed with rt_attr_value_parse and converted by rt_ir_op_attrs, so
 * omitted ones take the op's defaults.
 *
 * Inputs beyond the op's num_inputs are fields of its first (tuple) input
 * (concatenate, stack). Each case runs under the counting allocator and
 * fails on a leak. Tolerances: exact for integers and bool; |got - want| <=
 * atol + rtol * |want| for floats, by default rtol/atol 1e-5/1e-6 (float32),
 * 1e-12 (float64), 2e-3 (float16), 1e-2 (bfloat16); NaN matches NaN and
 * infinities match exactly. */
#ifndef RT_TEST_INTERP_KERNEL_TEST_UTIL_H_
#define RT_TEST_INTERP_KERNEL_TEST_UTIL_H_

#include "test_util.h"

#define IN(...) ((const char *const[]){__VA_ARGS__, NULL})
#define OUT(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NO_IN ((const char *const[]){NULL})

void kt_check(const char *file, int line, const char *op, const char *attrs,
              const char *const *ins, const char *const *outs, double rtol,
              double atol);
void kt_error(const char *file, int line, const char *op, const char *attrs,
              const char *const *ins, const char *const *outs,
              rt_status_code_t code, const char *needle);

/* Checks an op's outputs with the default tolerances. */
#define CHECK(op, attrs, ins, outs) kt_check(__FILE__, __LINE__, op, attrs, ins, outs, -1, -1)
/* Same with explicit rtol/atol for float outputs. */
#define CHECK_TOL(op, attrs, ins, outs, rtol, atol) \
  kt_check(__FILE__, __LINE__, op, attrs, ins, outs, rtol, atol)
/* Checks that the kernel fails with `code` and a message containing needle. */
#define CHECK_ERROR(op, attrs, ins, outs, code, needle) \
  kt_error(__FILE__, __LINE__, op, attrs, ins, outs, RT_STATUS_##code, needle)

/* Test registration: TEST(elemwise_add_basic) defines
 * test_elemwise_add_basic and registers it; KT_MAIN runs them all. */
typedef void (*kt_test_fn)(void **state);
void kt_register(const char *name, kt_test_fn fn);
int kt_run_all(const char *group);

#define TEST(name)                                                        \
  static void test_##name(void **state);                                  \
  __attribute__((constructor)) static void register_##name(void) {        \
    kt_register("test_" #name, test_##name);                              \
  }                                                                       \
  static void test_##name(void **state)

#define KT_MAIN(group) \
  int main(void) { return kt_run_all(group); }

#endif /* RT_TEST_INTERP_KERNEL_TEST_UTIL_H_ */
