/* Tests of interp/kernels/reduce.c. */
#include "kernel_test_util.h"

KT_MAIN("kernels_reduce")
