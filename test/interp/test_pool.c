/* Tests of interp/kernels/pool.c. */
#include "kernel_test_util.h"

KT_MAIN("kernels_pool")
