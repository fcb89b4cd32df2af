/* Tests of the dyn family's reference kernels (interp/kernels/dyn.c): each
 * reads its value operands at run time and runs the static op they stand
 * for. Expected values are worked by hand (the comment above each case);
 * an output written with its dims is handed to the kernel allocated (the
 * interpreter does so where the type is static), one with a `?` is
 * created by the kernel;
 * the error cases are the bad values only the run time sees: a float
 * shape, an axis out of range, a negative size, a rank the model declared
 * wrongly. Outputs with `?` dims are created by the kernel. */
#include "kernel_test_util.h"

KT_MAIN("kernels_dyn")

/* x = [[0 1 2] [3 4 5]]; x[0:2, 1:3:1] over axes (0, 1) = [[1 2] [4 5]] */
TEST(dyn_strided_slice) {
  CHECK("dyn.strided_slice", "", IN("f32[2,3] iota", "i64[2] 0 1", "i64[2] 2 3", "i64[2] 1 1", "i64[2] 0 1"),
        OUT("f32[2,2] 1 2 4 5"));
  /* axis -1 from the end, step -2: x[:, 2::-2] = [[2 0] [5 3]] */
  CHECK("dyn.strided_slice", "", IN("f32[2,3] iota", "i32[1] 2", "i32[1] -9", "i32[1] -2", "i32[1] -1"),
        OUT("f32[2,2] 2 0 5 3"));
}

TEST(dyn_strided_slice_bad) {
  CHECK_ERROR("dyn.strided_slice", "", IN("f32[2,3] iota", "i64[1] 0", "i64[1] 2", "i64[1] 1", "i64[1] 2"),
              OUT("f32[?,?] 0"), INVALID_ARGUMENT, "axis 2 is out of range for rank 2");
  CHECK_ERROR("dyn.strided_slice", "", IN("f32[2,3] iota", "i64[1] 0", "i64[1] 2", "i64[1] 0", "i64[1] 0"),
              OUT("f32[?,?] 0"), INVALID_ARGUMENT, "strides must not be 0");
}

/* pad_width (1, 0 | 0, 2): one row before, two columns after, with 9 */
TEST(dyn_pad) {
  CHECK("dyn.nn.pad", "", IN("f32[1,2] 1 2", "i64[4] 1 0 0 2", "f32[] 9"),
        OUT("f32[2,4] 9 9 9 9 1 2 9 9"));
  CHECK_ERROR("dyn.nn.pad", "", IN("f32[1,2] 1 2", "i64[4] -1 0 0 2", "f32[] 9"), OUT("f32[?,?] 0"),
              INVALID_ARGUMENT, "negative value");
}

/* tile([1 2], (2, 2)) = [[1 2 1 2] [1 2 1 2]] */
TEST(dyn_tile) {
  CHECK("dyn.tile", "", IN("i32[2] 1 2", "i64[2] 2 2"), OUT("i32[2,4] 1 2 1 2 1 2 1 2"));
  CHECK_ERROR("dyn.tile", "", IN("i32[2] 1 2", "f32[2] 2 2"), OUT("i32[?,?] 0"), INVALID_ARGUMENT,
              "reps must be a 0-d or 1-d int tensor");
}

/* [[1] [2]] (2, 1) with shape (3): both ways, (2, 3) */
TEST(dyn_broadcast_to) {
  CHECK("dyn.broadcast_to", "", IN("f32[2,1] 1 2", "i64[1] 3"), OUT("f32[2,3] 1 1 1 2 2 2"));
  CHECK_ERROR("dyn.broadcast_to", "", IN("f32[2,1] 1 2", "i64[1] -3"), OUT("f32[?,?] 0"), INVALID_ARGUMENT,
              "negative dim");
}

TEST(dyn_full) {
  CHECK("dyn.full", "", IN("f32[] 7", "i64[2] 1 3"), OUT("f32[1,3] 7 7 7"));
  CHECK("dyn.full", "dtype=\"int32\"", IN("f32[] 2.5", "i64[1] 2"), OUT("i32[?] 2 2"));
  CHECK_ERROR("dyn.full", "", IN("f32[] 7", "i64[1] -1"), OUT("f32[?] 0"), INVALID_ARGUMENT, "negative dim");
  /* a shape only the values make huge: refused, not allocated */
  CHECK_ERROR("dyn.full", "", IN("f32[] 7", "i64[2] 1099511627776 1024"), OUT("f32[?] 0"), RESOURCE_EXHAUSTED,
              "past the limit");
}

/* top 2 of (3 1 4 1 5) along the last axis: 5 4 at 4 2 */
TEST(dyn_topk) {
  CHECK("dyn.topk", "dtype=\"int64\"", IN("f32[5] 3 1 4 1 5", "i64[] 2"), OUT("f32[?] 5 4", "i64[?] 4 2"));
  CHECK_ERROR("dyn.topk", "", IN("f32[5] 3 1 4 1 5", "i64[] 0"), OUT("f32[?] 0", "i32[?] 0"),
              INVALID_ARGUMENT, "k must be >= 1");
}

/* indices (0 2) with depth 3: [[1 0 0] [0 0 1]] */
TEST(dyn_one_hot) {
  CHECK("dyn.one_hot", "", IN("i32[2] 0 2", "f32[] 1", "f32[] 0", "i64[] 3"), OUT("f32[2,3] 1 0 0 0 0 1"));
  CHECK("dyn.one_hot", "axis=0", IN("i32[2] 0 2", "f32[] 1", "f32[] 0", "f32[1] 3"), OUT("f32[3,2] 1 0 0 0 0 1"));
  CHECK_ERROR("dyn.one_hot", "", IN("i32[2] 0 2", "f32[] 1", "f32[] 0", "i64[] 0"), OUT("f32[2,1] 0 0"),
              INVALID_ARGUMENT, "depth must be >= 1");
}

/* nearest 2x upsampling of [[1 2]] (1, 1, 1, 2) to (2, 4) */
TEST(dyn_resize2d) {
  CHECK("dyn.image.resize2d", "method=\"nearest_neighbor\"; rounding_method=\"floor\"; coordinate_transformation_mode=\"asymmetric\"",
        IN("f32[1,1,1,2] 1 2", "i64[2] 2 4"), OUT("f32[1,1,2,4] 1 1 2 2 1 1 2 2"));
  /* the same as scales of every dim */
  CHECK("dyn.image.resize2d", "method=\"nearest_neighbor\"; rounding_method=\"floor\"; coordinate_transformation_mode=\"asymmetric\"",
        IN("f32[1,1,1,2] 1 2", "f32[4] 1 1 2 2"), OUT("f32[1,1,2,4] 1 1 2 2 1 1 2 2"));
  /* scales 1.5 of H 1 and W 2: sizes floor(1.5) = 1, 3; half_pixel
   * linear with the scale (ONNX's): in_y = .5 / 1.5 - .5 < 0 -> row 0;
   * in_x = -1/6, .5, 7/6 -> taps clamped to the edge: 1, 1.5, 2 */
  CHECK("dyn.image.resize2d", "", IN("f32[1,1,1,2] 1 2", "f32[4] 1 1 1.5 1.5"), OUT("f32[1,1,1,3] 1 1.5 2"));
  CHECK_ERROR("dyn.image.resize2d", "", IN("f32[1,1,1,2] 1 2", "i64[4] 1 2 1 2"), OUT("f32[1,1,?,?] 0"),
              UNIMPLEMENTED, "resizing the C dim");
}

/* (2, 3) with new axes at -1 and 0 of the rank-4 result: (1, 2, 3, 1) */
TEST(dyn_expand_dims) {
  CHECK("dyn.expand_dims", "rank=4", IN("f32[2,3] iota", "i64[2] -1 0"), OUT("f32[1,2,3,1] 0 1 2 3 4 5"));
  CHECK_ERROR("dyn.expand_dims", "rank=4", IN("f32[2,3] iota", "i64[2] 0 0"), OUT("f32[?,?,?,?] 0"),
              INVALID_ARGUMENT, "appears twice");
}

TEST(dyn_squeeze) {
  CHECK("dyn.squeeze", "rank=3", IN("f32[1,2,1,3] iota", "i64[1] -2"), OUT("f32[1,2,3] 0 1 2 3 4 5"));
  CHECK_ERROR("dyn.squeeze", "rank=2", IN("f32[1,2,1,3] iota", "i64[1] 0"), OUT("f32[?,?] 0"), INVALID_ARGUMENT,
              "the rank attribute");
  CHECK_ERROR("dyn.squeeze", "rank=3", IN("f32[1,2,1,3] iota", "i64[1] 4"), OUT("f32[?,?,?] 0"),
              INVALID_ARGUMENT, "axis 4 is out of range for rank 4");
}

/* x = [[0 1 2] [3 4 5]]: sum over axis 1 = (3 12); max over both = 5 */
TEST(dyn_reduce) {
  CHECK("dyn.sum", "rank=1", IN("f32[2,3] iota", "i64[1] 1"), OUT("f32[?] 3 12"));
  CHECK("dyn.sum", "keepdims=True", IN("f32[2,3] iota", "i64[1] 0"), OUT("f32[1,3] 3 5 7"));
  CHECK("dyn.max", "rank=0", IN("f32[2,3] iota", "i64[0]"), OUT("f32[] 5"));
  CHECK("dyn.mean", "rank=1", IN("f32[2,3] iota", "i32[1] -1"), OUT("f32[?] 1 4"));
  CHECK("dyn.min", "rank=1", IN("f32[2,3] iota", "i64[1] 0"), OUT("f32[?] 0 1 2"));
  CHECK("dyn.prod", "rank=1", IN("f32[2,3] 1 2 3 4 5 6", "i64[1] 0"), OUT("f32[?] 4 10 18"));
  CHECK_ERROR("dyn.sum", "rank=0", IN("f32[2,3] iota", "i64[1] 1"), OUT("f32[] 0"), INVALID_ARGUMENT,
              "the rank attribute");
}

/* (0 1 2 3 4) into sizes 2, 0, 3 */
TEST(dyn_split) {
  CHECK("dyn.split", "", IN("f32[5] iota", "i64[3] 2 0 3"), OUT("f32[?] 0 1", "f32[?]", "f32[?] 2 3 4"));
  CHECK_ERROR("dyn.split", "", IN("f32[5] iota", "i64[2] 2 2"), OUT("f32[?] 0", "f32[?] 0"), INVALID_ARGUMENT,
              "sizes add up to 4");
  CHECK_ERROR("dyn.split", "", IN("f32[5] iota", "i64[2] 6 -1"), OUT("f32[?] 0", "f32[?] 0"), INVALID_ARGUMENT,
              "negative");
}

/* running sums of (1 2 3) forward, reversed (6 5 3), reversed exclusive (5 3 0) */
TEST(dyn_cumsum) {
  CHECK("dyn.cumsum", "", IN("f32[3] 1 2 3", "i64[] 0"), OUT("f32[3] 1 3 6"));
  CHECK("dyn.cumsum", "reverse=True", IN("f32[3] 1 2 3", "i64[1] -1"), OUT("f32[3] 6 5 3"));
  CHECK("dyn.cumsum", "reverse=True; exclusive=True", IN("f32[3] 1 2 3", "i64[] 0"), OUT("f32[3] 5 3 0"));
  CHECK_ERROR("dyn.cumsum", "", IN("f32[3] 1 2 3", "i64[] 1"), OUT("f32[3] 0 0 0"), INVALID_ARGUMENT,
              "axis 1 is out of range for rank 1");
}

/* h1: dropout with run-time ratio and training_mode: the identity when not
 * training or at ratio 0; random dropout (training, ratio > 0) is refused
 * at run time, as is a ratio outside [0, 1). */
TEST(dyn_dropout) {
  CHECK("dyn.nn.dropout", "", IN("f32[3] 1 -2 3", "f32[] 0", "bool[] 1"), OUT("f32[3] 1 -2 3"));
  CHECK("dyn.nn.dropout", "", IN("f32[3] 1 -2 3", "f32[] 0.5", "bool[] 0"), OUT("f32[3] 1 -2 3"));
  CHECK_ERROR("dyn.nn.dropout", "", IN("f32[3] 1 -2 3", "f32[] 0.5", "bool[] 1"), OUT("f32[3] 0 0 0"),
              UNIMPLEMENTED, "training_mode with ratio 0.5 (random dropout) is not supported");
  CHECK_ERROR("dyn.nn.dropout", "", IN("f32[3] 1 -2 3", "f32[] 1.5", "bool[] 0"), OUT("f32[3] 0 0 0"),
              INVALID_ARGUMENT, "ratio 1.5 is not in [0, 1)");
}
