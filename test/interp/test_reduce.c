/* Tests of the reduction kernels (interp/kernels/reduce.c). Expected values
 * are hand-computed; X below is iota over (2, 3, 4): X[i, j, k] =
 * 12 i + 4 j + k, so sums are closed forms written next to each case. */
#include "kernel_test_util.h"

KT_MAIN("kernels_reduce")

#define X "f32[2,3,4] iota"

/* axis 1, keepdims: sum_j (12 i + 4 j + k) = 36 i + 12 + 3 k. */
TEST(reduce_sum_axis_keepdims) {
  CHECK("sum", "axis=[1]; keepdims=True", IN(X), OUT("f32[2,1,4] 12 15 18 21 48 51 54 57"));
}
/* all axes: 0 + ... + 23 = 276; axis None. */
TEST(reduce_sum_all) { CHECK("sum", "", IN(X), OUT("f32[] 276")); }
/* axes (0, 2): sum_{i,k} = 48 + 32 j + 12 = 60 + 32 j; the same by
 * excluding axis 1. */
TEST(reduce_sum_two_axes_and_exclude) {
  CHECK("sum", "axis=[0, 2]", IN(X), OUT("f32[3] 60 92 124"));
  CHECK("sum", "axis=[1]; exclude=True", IN(X), OUT("f32[3] 60 92 124"));
}
/* axis -1: row m sums 4m..4m+3 = 16 m + 6. */
TEST(reduce_sum_negative_axis) {
  CHECK("sum", "axis=[-1]", IN(X), OUT("f32[2,3] 6 22 38 54 70 86"));
}
/* i8 100*3 = 300 wraps to 44; an empty axis sums to 0. */
TEST(reduce_sum_int_wrap_and_empty) {
  CHECK("sum", "", IN("i8[3] 100 100 100"), OUT("i8[] 44"));
  CHECK("sum", "axis=[0]", IN("f32[0,2]"), OUT("f32[2] 0 0"));
}
/* axis 1: (36 i + 12 + 3 k) / 3 = 12 i + 4 + k. */
TEST(reduce_mean_axis) {
  CHECK("mean", "axis=[1]", IN(X), OUT("f32[2,4] 4 5 6 7 16 17 18 19"));
}
/* Integer mean truncates: 11/4 = 2, -7/2 = -3. */
TEST(reduce_mean_int) {
  CHECK("mean", "", IN("i32[4] 1 2 3 5"), OUT("i32[] 2"));
  CHECK("mean", "", IN("i32[2] -3 -4"), OUT("i32[] -3"));
}
TEST(reduce_mean_empty_nan) { CHECK("mean", "", IN("f32[0]"), OUT("f32[] nan")); }
TEST(reduce_prod_axis) { CHECK("prod", "axis=[1]", IN("f32[2,2] 1 2 3 4"), OUT("f32[2] 2 12")); }
TEST(reduce_prod_all) { CHECK("prod", "", IN("f64[2,2] 1 2 3 4"), OUT("f64[] 24")); }
/* i8 16*16 = 256 wraps to 0; empty product 1. */
TEST(reduce_prod_wrap_empty) {
  CHECK("prod", "", IN("i8[2] 16 16"), OUT("i8[] 0"));
  CHECK("prod", "", IN("f32[0]"), OUT("f32[] 1"));
}
/* NaN propagates (numpy). */
TEST(reduce_max_nan) {
  CHECK("max", "axis=[1]", IN("f32[3,2] 1 nan 3 2 -inf -1"), OUT("f32[3] nan 3 -1"));
  CHECK("max", "axis=[0]", IN("f32[3,2] 1 nan 3 2 -inf -1"), OUT("f32[2] 3 nan"));
}
TEST(reduce_max_int) {
  CHECK("max", "", IN("i32[2] -5 -2"), OUT("i32[] -2"));
  CHECK("max", "", IN("u8[2] 200 100"), OUT("u8[] 200"));
}
/* Empty: the lowest value of the dtype. */
TEST(reduce_max_empty) {
  CHECK("max", "", IN("f32[0]"), OUT("f32[] -inf"));
  CHECK("max", "axis=[1]", IN("i8[2,0]"), OUT("i8[2] -128 -128"));
}
TEST(reduce_min_nan) {
  CHECK("min", "axis=[1]", IN("f32[3,2] 1 nan 3 2 -inf -1"), OUT("f32[3] nan 2 -inf"));
}
TEST(reduce_min_int) {
  CHECK("min", "", IN("u8[2] 200 100"), OUT("u8[] 100"));
  CHECK("min", "keepdims=True", IN("i64[1,2] -9223372036854775808 0"), OUT("i64[1,1] -9223372036854775808"));
}
TEST(reduce_min_empty) { CHECK("min", "", IN("f32[0]"), OUT("f32[] inf")); }
TEST(reduce_all_axis) {
  CHECK("all", "axis=[1]", IN("bool[2,2] 1 1 1 0"), OUT("bool[2] 1 0"));
  CHECK("all", "", IN("bool[2,2] 1 1 1 0"), OUT("bool[] 0"));
}
TEST(reduce_all_empty) { CHECK("all", "", IN("bool[0]"), OUT("bool[] 1")); }
TEST(reduce_all_keepdims) { CHECK("all", "axis=[0]; keepdims=True", IN("bool[2,2] 1 1 0 1"), OUT("bool[1,2] 0 1")); }
TEST(reduce_any_axis) { CHECK("any", "axis=[1]", IN("bool[2,2] 0 0 1 0"), OUT("bool[2] 0 1")); }
TEST(reduce_any_empty) { CHECK("any", "", IN("bool[0]"), OUT("bool[] 0")); }
TEST(reduce_any_negative_axis) { CHECK("any", "axis=[-2]", IN("bool[2,2] 0 0 1 0"), OUT("bool[2] 1 0")); }
/* Rows (1 5 5) and (7 2 7): first maxima at 1 and 0, last at 2 and 2. */
TEST(reduce_argmax_axis) {
  CHECK("argmax", "axis=[1]", IN("f32[2,3] 1 5 5 7 2 7"), OUT("i32[2] 1 0"));
  CHECK("argmax", "axis=[1]; select_last_index=True", IN("f32[2,3] 1 5 5 7 2 7"), OUT("i32[2] 2 2"));
}
/* No axis: the flat index (7 at 3); keepdims; exclude axis 1 = reduce 0. */
TEST(reduce_argmax_all_keepdims_exclude) {
  CHECK("argmax", "", IN("f32[2,3] 1 5 5 7 2 7"), OUT("i32[] 3"));
  CHECK("argmax", "axis=[1]; keepdims=True", IN("f32[2,3] 1 5 5 7 2 7"), OUT("i32[2,1] 1 0"));
  CHECK("argmax", "axis=[1]; exclude=True", IN("f32[2,3] 1 5 5 7 2 7"), OUT("i32[3] 1 0 1"));
}
/* NaN is the maximum (numpy); uint8 compares unsigned. */
TEST(reduce_argmax_nan_uint) {
  CHECK("argmax", "", IN("f32[3] 1 nan 3"), OUT("i32[] 1"));
  CHECK("argmax", "", IN("u8[2] 100 200"), OUT("i32[] 1"));
}
TEST(reduce_argmin_axis) { CHECK("argmin", "axis=[1]", IN("f32[2,3] 1 5 5 7 2 7"), OUT("i32[2] 0 1")); }
TEST(reduce_argmin_last) { CHECK("argmin", "select_last_index=True", IN("i32[3] 3 1 1"), OUT("i32[] 2")); }
TEST(reduce_argmin_nan) {
  CHECK("argmin", "", IN("f32[3] 1 nan nan"), OUT("i32[] 1"));
  CHECK("argmin", "select_last_index=True", IN("f32[3] 1 nan nan"), OUT("i32[] 2"));
}
/* Rows (1 2 3) mean 2: (1+0+1)/3; (4 6 8) mean 6: (4+0+4)/3; unbiased /2. */
TEST(reduce_variance_axis) {
  CHECK("variance", "axis=[1]", IN("f32[2,3] 1 2 3 4 6 8", "f32[2,1] 2 6"), OUT("f32[2] 0.666666667 2.66666667"));
  CHECK("variance", "axis=[1]; unbiased=True", IN("f32[2,3] 1 2 3 4 6 8", "f32[2,1] 2 6"), OUT("f32[2] 1 4"));
}
/* All axes: (1 2 3 4) around 2.5: (2.25+0.25+0.25+2.25)/4 = 1.25. */
TEST(reduce_variance_all) {
  CHECK("variance", "", IN("f32[4] 1 2 3 4", "f32[] 2.5"), OUT("f32[] 1.25"));
}
/* Columns (1,4) (2,6) (3,8) around 2.5, 4, 5.5: 2.25, 4, 6.25; keepdims. */
TEST(reduce_variance_axis0_keepdims) {
  CHECK("variance", "axis=[0]; keepdims=True", IN("f32[2,3] 1 2 3 4 6 8", "f32[1,3] 2.5 4 5.5"),
        OUT("f32[1,3] 2.25 4 6.25"));
}
