/* Tests of the algorithm kernels (interp/kernels/algorithm.c): cumsum and
 * topk. Expected values are hand-computed (running sums written out; topk
 * orders checked against numpy's stable argsort semantics by hand). */
#include "kernel_test_util.h"

KT_MAIN("kernels_algorithm")

/* Rows (1 2 3), (4 5 6): inclusive 1 3 6 / 4 9 15; exclusive 0 1 3 / 0 4 9. */
TEST(algorithm_cumsum_axis) {
  CHECK("cumsum", "axis=1", IN("f32[2,3] 1 2 3 4 5 6"), OUT("f32[2,3] 1 3 6 4 9 15"));
  CHECK("cumsum", "axis=1; exclusive=True", IN("f32[2,3] 1 2 3 4 5 6"), OUT("f32[2,3] 0 1 3 0 4 9"));
  CHECK("cumsum", "axis=0", IN("f32[2,3] 1 2 3 4 5 6"), OUT("f32[2,3] 1 2 3 5 7 9"));
  CHECK("cumsum", "axis=-2", IN("f64[2,1] 0.5 0.25"), OUT("f64[2,1] 0.5 0.75"));
}
/* No axis: the flattened input, a 1-d result. */
TEST(algorithm_cumsum_flat) {
  CHECK("cumsum", "", IN("f32[2,2] 1 2 3 4"), OUT("f32[4] 1 3 6 10"));
  CHECK("cumsum", "exclusive=True", IN("i32[2,2] 1 2 3 4"), OUT("i32[4] 0 1 3 6"));
}
/* int8: 100 + 100 = 200 wraps to -56, + 100 = 44. */
TEST(algorithm_cumsum_int_wrap) {
  CHECK("cumsum", "axis=0", IN("i8[3] 100 100 100"), OUT("i8[3] 100 -56 44"));
  CHECK("cumsum", "axis=0", IN("u8[3] 200 100 1"), OUT("u8[3] 200 44 45"));
}
/* dtype: elements convert first (1.7 -> 1, 2.2 -> 2, -0.5 -> 0), then add. */
TEST(algorithm_cumsum_dtype) {
  CHECK("cumsum", "axis=0; dtype=\"int32\"", IN("f32[3] 1.7 2.2 -0.5"), OUT("i32[3] 1 3 3"));
  CHECK("cumsum", "axis=0; dtype=\"float64\"", IN("i32[3] 1 2 3"), OUT("f64[3] 1 3 6"));
}
TEST(algorithm_cumsum_empty) { CHECK("cumsum", "axis=1", IN("f32[2,0]"), OUT("f32[2,0]")); }

/* Rows (3 1 4 1), (5 9 2 6): the two largest 4 3 / 9 6 at 2 0 / 1 3. */
TEST(algorithm_topk_both) {
  CHECK("topk", "k=2; axis=1", IN("f32[2,4] 3 1 4 1 5 9 2 6"),
        OUT("f32[2,2] 4 3 9 6", "i32[2,2] 2 0 1 3"));
  CHECK("topk", "k=2; axis=1; is_ascend=True", IN("f32[2,4] 3 1 4 1 5 9 2 6"),
        OUT("f32[2,2] 1 1 2 5", "i32[2,2] 1 3 2 0"));
}
/* Ties keep index order in both directions; k=0 selects the whole axis. */
TEST(algorithm_topk_ties_all) {
  CHECK("topk", "k=0", IN("f32[4] 2 5 5 2"), OUT("f32[4] 5 5 2 2", "i32[4] 1 2 0 3"));
  CHECK("topk", "k=0; is_ascend=True", IN("f32[4] 2 5 5 2"), OUT("f32[4] 2 2 5 5", "i32[4] 0 3 1 2"));
}
/* NaN is larger than every number: first descending, last ascending. */
TEST(algorithm_topk_nan) {
  CHECK("topk", "k=1", IN("f32[3] 1 nan 3"), OUT("f32[1] nan", "i32[1] 1"));
  CHECK("topk", "k=3; is_ascend=True", IN("f32[3] 1 nan 3"), OUT("f32[3] 1 3 nan", "i32[3] 0 2 1"));
}
/* uint8 compares unsigned (250 > 200 > 100); int8 signed. */
TEST(algorithm_topk_ints) {
  CHECK("topk", "k=1", IN("u8[3] 200 100 250"), OUT("u8[1] 250", "i32[1] 2"));
  CHECK("topk", "k=2", IN("i8[3] -1 -128 127"), OUT("i8[2] 127 -1", "i32[2] 2 0"));
}
/* Columns (1 5 3), (6 2 4) along axis 0: 5 3 / 6 4 at rows 1 2 / 0 2. */
TEST(algorithm_topk_ret_type) {
  CHECK("topk", "k=2; axis=0; ret_type=\"values\"", IN("f32[3,2] 1 6 5 2 3 4"), OUT("f32[2,2] 5 6 3 4"));
  CHECK("topk", "k=2; axis=0; ret_type=\"indices\"; dtype=\"int64\"", IN("f32[3,2] 1 6 5 2 3 4"),
        OUT("i64[2,2] 1 0 2 2"));
}
/* A k past the axis is refused by the kernel (the relation refuses it for
 * static shapes; the kernel checks again for `?` ones). */
TEST(algorithm_topk_k_too_large) {
  CHECK_ERROR("topk", "k=4; ret_type=\"values\"", IN("f32[3] 1 2 3"), OUT("f32[4] 0 0 0 0"),
              INVALID_ARGUMENT, "larger than axis 0's extent 3");
}
