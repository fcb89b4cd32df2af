/* Tests of the image.grid_sample kernel (interp/kernels/grid_sample.c).
 * Expected values are hand-computed from PyTorch's grid_sampler_2d
 * formulas (ONNX GridSample's), on X = [[1, 2], [3, 4]]; the grid is TVM's
 * (N, 2, OH, OW): all x values, then all y values. */
#include "kernel_test_util.h"

KT_MAIN("kernels_grid_sample")

#define X "f32[1,1,2,2] 1 2 3 4"
/* Points (0, 0) and (-1, -1). */
#define G "f32[1,2,1,2] 0 -1 0 -1"

/* align_corners: (0, 0) is the center of the four pixels (2.5), (-1, -1)
 * pixel (0, 0). Without: (0, 0) maps to 0.5 still; (-1, -1) to -0.5, a
 * quarter of pixel (0, 0) with zeros (0.25), all of it with border. */
TEST(grid_sample_bilinear) {
  CHECK("image.grid_sample", "align_corners=True", IN(X, G), OUT("f32[1,1,1,2] 2.5 1"));
  CHECK("image.grid_sample", "align_corners=False", IN(X, G), OUT("f32[1,1,1,2] 2.5 0.25"));
  CHECK("image.grid_sample", "align_corners=False; padding_mode=\"border\"", IN(X, G), OUT("f32[1,1,1,2] 2.5 1"));
}
/* 0.5 rounds half to even: 0. */
TEST(grid_sample_nearest) {
  CHECK("image.grid_sample", "method=\"nearest\"", IN(X, G), OUT("f32[1,1,1,2] 1 1"));
}
/* x = 1.5 maps to 2.0, reflected at the outer edge -0.5 / 1.5 to 1.0; y =
 * -1 to -0.5, reflected to -0.5 and clamped to 0: pixel (0, 1) = 2. */
TEST(grid_sample_reflection) {
  CHECK("image.grid_sample", "align_corners=False; padding_mode=\"reflection\"",
        IN(X, "f32[1,2,1,1] 1.5 -1"), OUT("f32[1,1,1,1] 2"));
}
/* On a pixel center the cubic weights are 0, 1, 0, 0: the pixel itself. */
TEST(grid_sample_bicubic) {
  CHECK("image.grid_sample", "method=\"bicubic\"", IN(X, "f32[1,2,1,1] -1 -1"), OUT("f32[1,1,1,1] 1"));
}
