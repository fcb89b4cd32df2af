/* Tests of interp/kernels/conv.c. */
#include "kernel_test_util.h"

KT_MAIN("kernels_conv")
