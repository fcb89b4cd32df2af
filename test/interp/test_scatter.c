/* Tests of the scatter kernels (interp/kernels/scatter.c): scatter_elements
 * and scatter_nd. Expected values are hand-computed from ONNX's
 * ScatterElements / ScatterND definitions (the examples of its operator
 * documentation among them), each update written out. */
#include "kernel_test_util.h"

KT_MAIN("kernels_scatter")

/* ONNX's ScatterElements example 1: data zeros (3, 3), axis 0,
 * indices [[1, 0, 2], [0, 2, 1]], updates [[1, 1.1, 1.2], [2, 2.1, 2.2]]:
 * out[1][0] = 1, out[0][1] = 1.1, out[2][2] = 1.2, out[0][0] = 2,
 * out[2][1] = 2.1, out[1][2] = 2.2. */
TEST(scatter_elements_axis0) {
  CHECK("scatter_elements", "", IN("f32[3,3] 0 0 0 0 0 0 0 0 0", "i64[2,3] 1 0 2 0 2 1", "f32[2,3] 1 1.1 1.2 2 2.1 2.2"),
        OUT("f32[3,3] 2 1.1 0 1 0 2.2 0 2.1 1.2"));
}
/* Example 2: data [[1 2 3 4 5]], axis 1, indices [[1, 3]], updates
 * [[1.1, 2.1]] -> [[1 1.1 3 2.1 5]]; negative indices -4, -2 name 1, 3. */
TEST(scatter_elements_axis1_negative) {
  CHECK("scatter_elements", "axis=1", IN("f32[1,5] 1 2 3 4 5", "i32[1,2] 1 3", "f32[1,2] 1.1 2.1"),
        OUT("f32[1,5] 1 1.1 3 2.1 5"));
  CHECK("scatter_elements", "axis=-1", IN("f32[1,5] 1 2 3 4 5", "i32[1,2] -4 -2", "f32[1,2] 1.1 2.1"),
        OUT("f32[1,5] 1 1.1 3 2.1 5"));
}
/* Duplicates: [1 2 3 4 5] with indices [1, 1] and updates [10, 20]:
 * update keeps the last (20), add 2 + 10 + 20 = 32, mul 2 * 10 * 20 = 400,
 * max 20, min 2. */
TEST(scatter_elements_reductions) {
  const char *x = "f32[1,5] 1 2 3 4 5", *i = "i32[1,2] 1 1", *u = "f32[1,2] 10 20";
  CHECK("scatter_elements", "axis=1", IN(x, i, u), OUT("f32[1,5] 1 20 3 4 5"));
  CHECK("scatter_elements", "axis=1; reduction=\"add\"", IN(x, i, u), OUT("f32[1,5] 1 32 3 4 5"));
  CHECK("scatter_elements", "axis=1; reduction=\"mul\"", IN(x, i, u), OUT("f32[1,5] 1 400 3 4 5"));
  CHECK("scatter_elements", "axis=1; reduction=\"max\"", IN(x, i, u), OUT("f32[1,5] 1 20 3 4 5"));
  CHECK("scatter_elements", "axis=1; reduction=\"min\"", IN(x, i, u), OUT("f32[1,5] 1 2 3 4 5"));
}
/* Integers wrap on add (int8 100 + 100 = -56) and compare by signedness
 * (uint8 200 > 100; int8 -1 < 1). */
TEST(scatter_elements_ints) {
  CHECK("scatter_elements", "reduction=\"add\"", IN("i8[2] 100 0", "i32[1] 0", "i8[1] 100"), OUT("i8[2] -56 0"));
  CHECK("scatter_elements", "reduction=\"max\"", IN("u8[2] 100 0", "i32[1] 0", "u8[1] 200"), OUT("u8[2] 200 0"));
  CHECK("scatter_elements", "reduction=\"min\"", IN("i8[2] 1 0", "i32[1] 0", "i8[1] -1"), OUT("i8[2] -1 0"));
}
TEST(scatter_elements_out_of_range) {
  CHECK_ERROR("scatter_elements", "", IN("f32[2] 1 2", "i32[1] 2", "f32[1] 5"), OUT("f32[2] 0 0"),
              OUT_OF_RANGE, "index 2 is out of range for an axis of size 2");
  CHECK_ERROR("scatter_elements", "", IN("f32[2] 1 2", "i32[1] -3", "f32[1] 5"), OUT("f32[2] 0 0"),
              OUT_OF_RANGE, "index -3");
}

/* ONNX's ScatterND example 1 in TVM's layout (tuples along the first
 * axis): data [1..8], indices [[4, 3, 1, 7]] (one tuple each), updates
 * [9 10 11 12] -> [1 11 3 10 9 6 7 12]. */
TEST(scatter_nd_elements) {
  CHECK("scatter_nd", "", IN("f32[8] 1 2 3 4 5 6 7 8", "i64[1,4] 4 3 1 7", "f32[4] 9 10 11 12"),
        OUT("f32[8] 1 11 3 10 9 6 7 12"));
}
/* Rows: data (3, 2), tuples (2) and (0) replace rows 2 and 0; add and
 * mul meet them; a negative tuple -1 names row 2. */
TEST(scatter_nd_rows) {
  const char *x = "f32[3,2] 1 2 3 4 5 6", *u = "f32[2,2] 10 20 30 40";
  CHECK("scatter_nd", "", IN(x, "i32[1,2] 2 0", u), OUT("f32[3,2] 30 40 3 4 10 20"));
  CHECK("scatter_nd", "mode=\"add\"", IN(x, "i32[1,2] 2 0", u), OUT("f32[3,2] 31 42 3 4 15 26"));
  CHECK("scatter_nd", "mode=\"mul\"", IN(x, "i32[1,2] -1 0", u), OUT("f32[3,2] 30 80 3 4 50 120"));
}
/* Full tuples into (2, 2): (1, 0) and (0, 1) twice with add: 0 + 5, 0 + 1 + 2. */
TEST(scatter_nd_full_tuples) {
  CHECK("scatter_nd", "mode=\"add\"", IN("i32[2,2] 0 0 0 0", "i32[2,3] 1 0 0 0 1 1", "i32[3] 5 1 2"),
        OUT("i32[2,2] 0 3 5 0"));
}
TEST(scatter_nd_out_of_range) {
  CHECK_ERROR("scatter_nd", "", IN("f32[2] 1 2", "i32[1,1] 2", "f32[1] 5"), OUT("f32[2] 0 0"),
              OUT_OF_RANGE, "index 2 is out of range for an axis of size 2");
}
