/* Tests of image.resize2d and nn.upsampling (interp/kernels/image.c).
 * Nearest-neighbour cases are generated as numpy fancy indexing with the
 * source indices derived by hand from the coordinate formulas
 *   /usr/bin/python3 test/interp/gen_cases.py image
 * (asymmetric 2->4: x/2 floored = 0 0 1 1; half_pixel 3->6 rounded (x +
 * 0.5)/2 - 0.5 = -.25 .25 .75 1.25 1.75 2.25 -> 0 0 1 1 2 2; align_corners
 * 3->5: x/2 rounded half-even = 0 0 1 2 2); linear and cubic values are
 * worked out in the comments. */
#include "kernel_test_util.h"

KT_MAIN("kernels_image")

/* x.repeat(2, 2).repeat(2, 3) */
TEST(image_resize2d_nearest_asymmetric) {
  CHECK("image.resize2d", "size=[4, 6]; method=\"nearest_neighbor\"; coordinate_transformation_mode=\"asymmetric\"; rounding_method=\"\"", IN("f32[1,1,2,3] 1 2 3 4 5 6"),
        OUT("f32[1,1,4,6] 1 1 2 2 3 3 1 1 2 2 3 3 4 4 5 5 6 6 4 4 5 5 6 6"));
}

/* x[:, :, [0, 0, 1, 1]][:, :, :, [0, 0, 1, 1, 2, 2]] */
TEST(image_resize2d_nearest_half_pixel_round) {
  CHECK("image.resize2d", "size=[4, 6]; method=\"nearest_neighbor\"; rounding_method=\"round\"", IN("f32[1,1,2,3] 1 2 3 4 5 6"),
        OUT("f32[1,1,4,6] 1 1 2 2 3 3 1 1 2 2 3 3 4 4 5 5 6 6 4 4 5 5 6 6"));
}

/* x[:, :, [0, 0, 1]][:, :, :, [0, 0, 1, 2, 2]] */
TEST(image_resize2d_nearest_align_corners) {
  CHECK("image.resize2d", "size=[3, 5]; method=\"nearest_neighbor\"; coordinate_transformation_mode=\"align_corners\"; rounding_method=\"\"", IN("f32[1,1,2,3] 1 2 3 4 5 6"),
        OUT("f32[1,1,3,5] 1 1 2 3 3 1 1 2 3 3 4 4 5 6 6"));
}

/* half_pixel linear, [0 10] width 2 -> 4: in_x = -.25 .25 .75 1.25; taps
 * clamp to the edge: 0, 2.5, 7.5, 10. */
TEST(image_resize2d_linear_half_pixel) {
  CHECK("image.resize2d", "size=[1, 4]", IN("f32[1,1,1,2] 0 10"), OUT("f32[1,1,1,4] 0 2.5 7.5 10"));
}
/* align_corners 2x2 -> 3x3 bilinear: midpoints. */
TEST(image_resize2d_linear_align_corners_2d) {
  CHECK("image.resize2d", "size=[3, 3]; coordinate_transformation_mode=\"align_corners\"",
        IN("f32[1,1,2,2] 0 10 20 30"), OUT("f32[1,1,3,3] 0 5 10 10 15 20 20 25 30"));
}
/* asymmetric: in_x = x/2 = 0 .5 1 1.5 -> 0 5 10 10; NHWC with 2 channels. */
TEST(image_resize2d_linear_asymmetric_nhwc) {
  CHECK("image.resize2d", "size=[1, 4]; layout=\"NHWC\"; coordinate_transformation_mode=\"asymmetric\"",
        IN("f32[1,1,2,2] 0 1 10 2"), OUT("f32[1,1,4,2] 0 1 5 1.5 10 2 10 2"));
}
/* cubic, alpha -0.5, [0 10 20 30] -> width 2 (half_pixel: in_x = .5, 2.5,
 * t = .5): weights (-.0625, .5625, .5625, -.0625); taps (0 0 10 20) ->
 * 5.625 - 1.25 = 4.375 and (10 20 30 30) -> -.625 + 11.25 + 16.875 - 1.875
 * = 25.625. */
TEST(image_resize2d_cubic_half_pixel) {
  CHECK("image.resize2d", "size=[1, 2]; method=\"cubic\"", IN("f32[1,1,1,4] 0 10 20 30"),
        OUT("f32[1,1,1,2] 4.375 25.625"));
}
/* cubic_exclude drops the out-of-image tap and renormalizes by 1.0625:
 * 4.375 / 1.0625 = 4.11764706, 27.5 / 1.0625 = 25.8823529. */
TEST(image_resize2d_cubic_exclude) {
  CHECK("image.resize2d", "size=[1, 2]; method=\"cubic\"; cubic_exclude=1", IN("f32[1,1,1,4] 0 10 20 30"),
        OUT("f32[1,1,1,2] 4.11764706 25.8823529"));
}
/* h1: given scales (ONNX's Resize), x = [[1 2 3 4], [5 6 7 8]], scale 0.6:
 * size floor(2 * .6) = 1 by floor(4 * .6) = 2. half_pixel linear: in_y =
 * .5 / .6 - .5 = 1/3, in_x = 1/3 and 1.5 / .6 - .5 = 2; x(y, x) = 1 + 4y +
 * x -> 2.6666667, 4.3333333 (ONNX's test_resize_downsample_scales_linear). */
TEST(image_resize2d_scales_linear) {
  CHECK("image.resize2d", "size=[1, 2]; scales=[0.6f, 0.6f]", IN("f32[1,1,2,4] 1 2 3 4 5 6 7 8"),
        OUT("f32[1,1,1,2] 2.6666667 4.3333333"));
}
/* align_corners uses the unfloored length in * s: in_x = x * 3 / (2.4 - 1)
 * = 0, 2.1428571; in_y = 0 -> 1, 3.1428571. */
TEST(image_resize2d_scales_align_corners) {
  CHECK("image.resize2d", "size=[1, 2]; scales=[0.6f, 0.6f]; coordinate_transformation_mode=\"align_corners\"",
        IN("f32[1,1,2,4] 1 2 3 4 5 6 7 8"), OUT("f32[1,1,1,2] 1 3.1428571"));
}
/* nearest, round_prefer_floor (ceil(v - .5)): in_x = 1/3 -> 0, 2 -> 2. */
TEST(image_resize2d_scales_nearest) {
  CHECK("image.resize2d", "size=[1, 2]; scales=[0.6f, 0.6f]; method=\"nearest_neighbor\"; rounding_method=\"round_prefer_floor\"",
        IN("f32[1,1,2,4] 1 2 3 4 5 6 7 8"), OUT("f32[1,1,1,2] 1 3"));
}
/* tf_crop_and_resize, roi (h 0..1, w .25..1.5) of [0 10 20 30]: H 1 -> 1
 * takes the middle, 0; W: in_x = .25 * 3 + x * 1.25 * 3 / 2 = .75, 2.625,
 * 4.5 -> 7.5, 26.25 and, past the last column, extrapolation_value 7. */
TEST(image_resize2d_tf_crop_and_resize) {
  CHECK("image.resize2d", "size=[1, 3]; roi=[0f, 0.25f, 1f, 1.5f]; coordinate_transformation_mode=\"tf_crop_and_resize\"; extrapolation_value=7f",
        IN("f32[1,1,1,4] 0 10 20 30"), OUT("f32[1,1,1,3] 7.5 26.25 7"));
}
/* align_corners to the same size: t = 0, weights (0 1 0 0): identity. */
TEST(image_resize2d_cubic_identity) {
  CHECK("image.resize2d", "size=[1, 4]; method=\"cubic\"; coordinate_transformation_mode=\"align_corners\"",
        IN("f32[1,1,1,4] 0 10 20 30"), OUT("f32[1,1,1,4] 0 10 20 30"));
}
/* asymmetric 3 -> 2: in_x = 0, 1.5. round_prefer_ceil floor(2) = 2,
 * round_prefer_floor ceil(1) = 1, round (half even) 2, floor 1. */
TEST(image_resize2d_nearest_rounding_methods) {
  const char *in = "f32[1,1,1,3] 1 2 3";
  CHECK("image.resize2d", "size=[1, 2]; method=\"nearest_neighbor\"; coordinate_transformation_mode=\"asymmetric\"; rounding_method=\"round_prefer_ceil\"",
        IN(in), OUT("f32[1,1,1,2] 1 3"));
  CHECK("image.resize2d", "size=[1, 2]; method=\"nearest_neighbor\"; coordinate_transformation_mode=\"asymmetric\"; rounding_method=\"round_prefer_floor\"",
        IN(in), OUT("f32[1,1,1,2] 1 2"));
  CHECK("image.resize2d", "size=[1, 2]; method=\"nearest_neighbor\"; coordinate_transformation_mode=\"asymmetric\"; rounding_method=\"round\"",
        IN(in), OUT("f32[1,1,1,2] 1 3"));
  CHECK("image.resize2d", "size=[1, 2]; method=\"nearest_neighbor\"; coordinate_transformation_mode=\"asymmetric\"; rounding_method=\"floor\"",
        IN(in), OUT("f32[1,1,1,2] 1 2"));
}
/* Nearest copies integer values exactly. */
TEST(image_resize2d_nearest_int) {
  CHECK("image.resize2d", "size=[1, 2]; method=\"nearest_neighbor\"; coordinate_transformation_mode=\"asymmetric\"; rounding_method=\"\"",
        IN("i64[1,1,1,1] 9007199254740993"), OUT("i64[1,1,1,2] 9007199254740993 9007199254740993"));
}
/* upsampling nearest x2: asymmetric, floor: repeat each pixel. */
TEST(image_upsampling_nearest) {
  CHECK("nn.upsampling", "scale_h=2f; scale_w=2f", IN("f32[1,1,1,2] 1 2"), OUT("f32[1,1,2,4] 1 1 2 2 1 1 2 2"));
}
TEST(image_upsampling_bilinear_align_corners) {
  CHECK("nn.upsampling", "scale_h=1.5f; scale_w=1.5f; method=\"bilinear\"; align_corners=True",
        IN("f32[1,1,2,2] 0 10 20 30"), OUT("f32[1,1,3,3] 0 5 10 10 15 20 20 25 30"));
}
TEST(image_upsampling_bilinear_asymmetric_nhwc) {
  CHECK("nn.upsampling", "scale_h=1f; scale_w=2f; method=\"bilinear\"; layout=\"NHWC\"",
        IN("f32[1,1,2,1] 0 10"), OUT("f32[1,1,4,1] 0 5 10 10"));
}
