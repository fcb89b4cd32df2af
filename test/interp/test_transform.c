/* Tests of interp/kernels/transform.c. */
#include "kernel_test_util.h"

KT_MAIN("kernels_transform")
