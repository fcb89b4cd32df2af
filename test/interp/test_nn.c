/* Tests of interp/kernels/nn.c. */
#include "kernel_test_util.h"

KT_MAIN("kernels_nn")
