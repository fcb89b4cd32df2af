/* Tests of interp/kernels/elemwise.c. */
#include "kernel_test_util.h"

KT_MAIN("kernels_elemwise")
TEST(elemwise_add_smoke) {
  CHECK("add", "", IN("f32[2] 1 2", "f32[] 3"), OUT("f32[2] 4 5"));
}
