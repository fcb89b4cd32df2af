/* Tests of interp/kernels/image.c. */
#include "kernel_test_util.h"

KT_MAIN("kernels_image")
