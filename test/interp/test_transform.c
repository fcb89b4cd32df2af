/* Tests of the data-movement, creation and shape kernels
 * (interp/kernels/transform.c).
 *
 * The first block is generated: expected values from numpy slicing, take,
 * take_along_axis, pad, tile, ... (the expression above each case), printed
 * by
 *   /usr/bin/python3 test/interp/gen_cases.py transform
 * Data movement compares exactly. The hand-written block covers reshape
 * codes, joins and splits, index errors, creation and shape ops. */
#include "kernel_test_util.h"

KT_MAIN("kernels_transform")

/* ---- generated ------------------------------------------------------------ */

/* x[1:4:2, -1:-5:-1, 0:3:1] */
TEST(transform_strided_slice_neg_strides) {
  CHECK("strided_slice", "begin=[1, -1, 0]; end=[4, -5, 3]; strides=[2, -1, 1]", IN("f32[3,4,3] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35"),
        OUT("f32[1,4,3] 21 22 23 18 19 20 15 16 17 12 13 14"));
}

/* x[0:4:1, 0:-5:-1, 0:4:2] */
TEST(transform_strided_slice_neg_end_clamp) {
  CHECK("strided_slice", "begin=[0, 0, 0]; end=[4, -5, 4]; strides=[1, -1, 2]", IN("f32[3,4,3] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35"),
        OUT("f32[3,1,2] 0 2 12 14 24 26"));
}

/* x[1:4, 1:1000, 0:3] */
TEST(transform_strided_slice_end_out_of_range) {
  CHECK("strided_slice", "begin=[1, 1, 0]; end=[4, 1000, 3]", IN("f32[3,4,3] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35"),
        OUT("f32[2,3,3] 15 16 17 18 19 20 21 22 23 27 28 29 30 31 32 33 34 35"));
}

/* x[-1:-5:-1, -1:-5:-1, -1:-5:-1] */
TEST(transform_strided_slice_all_reversed) {
  CHECK("strided_slice", "begin=[-1, -1, -1]; end=[-5, -5, -5]; strides=[-1, -1, -1]", IN("f32[3,4,3] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35"),
        OUT("f32[3,4,3] 35 34 33 32 31 30 29 28 27 26 25 24 23 22 21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0"));
}

/* x[:, 1:3, :] */
TEST(transform_strided_slice_axes) {
  CHECK("strided_slice", "begin=[1]; end=[3]; axes=[1]", IN("f32[3,4,3] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35"),
        OUT("f32[3,2,3] 3 4 5 6 7 8 15 16 17 18 19 20 27 28 29 30 31 32"));
}

/* x[0:2, 1:] */
TEST(transform_strided_slice_size_mode) {
  CHECK("strided_slice", "begin=[0, 1]; end=[2, -1]; slice_mode=\"size\"", IN("f32[3,4,3] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35"),
        OUT("f32[2,3,3] 3 4 5 6 7 8 9 10 11 15 16 17 18 19 20 21 22 23"));
}

/* x[2:3] */
TEST(transform_strided_slice_short_begin) {
  CHECK("strided_slice", "begin=[2]; end=[3]", IN("f32[3,4,3] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35"),
        OUT("f32[1,4,3] 24 25 26 27 28 29 30 31 32 33 34 35"));
}

/* np.take(t, i, axis=0, mode='clip') */
TEST(transform_take_clip_axis0) {
  CHECK("take", "axis=0", IN("f32[3,4] 0 1 2 3 4 5 6 7 8 9 10 11", "i32[2] -1 2"),
        OUT("f32[2,4] 0 1 2 3 8 9 10 11"));
}

/* np.take(t, i, axis=0, mode='wrap') */
TEST(transform_take_wrap_axis0) {
  CHECK("take", "axis=0; mode=\"wrap\"", IN("f32[3,4] 0 1 2 3 4 5 6 7 8 9 10 11", "i32[2] -1 2"),
        OUT("f32[2,4] 8 9 10 11 8 9 10 11"));
}

/* np.take(t, j, mode='clip') */
TEST(transform_take_flat_clip) {
  CHECK("take", "", IN("f32[3,4] 0 1 2 3 4 5 6 7 8 9 10 11", "i32[2] -5 20"),
        OUT("f32[2] 0 11"));
}

/* np.take(t, j, mode='wrap') */
TEST(transform_take_flat_wrap) {
  CHECK("take", "mode=\"wrap\"", IN("f32[3,4] 0 1 2 3 4 5 6 7 8 9 10 11", "i32[2] -5 20"),
        OUT("f32[2] 7 8"));
}

/* np.take(t, k, axis=1) */
TEST(transform_take_2d_indices_axis1) {
  CHECK("take", "axis=1", IN("f32[3,4] 0 1 2 3 4 5 6 7 8 9 10 11", "i64[2,2] 0 3 1 1"),
        OUT("f32[3,2,2] 0 3 1 1 4 7 5 5 8 11 9 9"));
}

/* np.take(t, k, axis=-1) */
TEST(transform_take_negative_axis) {
  CHECK("take", "axis=-1", IN("f32[3,4] 0 1 2 3 4 5 6 7 8 9 10 11", "i64[2,2] 0 3 1 1"),
        OUT("f32[3,2,2] 0 3 1 1 4 7 5 5 8 11 9 9"));
}

/* np.take_along_axis(bt, bi, 1) */
TEST(transform_take_batch_dims) {
  CHECK("take", "axis=1; batch_dims=1", IN("f32[2,3] 0 1 2 3 4 5", "i32[2,2] 2 0 1 1"),
        OUT("f32[2,2] 2 0 4 4"));
}

/* np.take_along_axis(t[:2], gi, 1) */
TEST(transform_gather_axis1) {
  CHECK("gather", "axis=1", IN("f32[2,4] 0 1 2 3 4 5 6 7", "i32[2,3] 0 2 1 3 0 0"),
        OUT("f32[2,3] 0 2 1 7 4 4"));
}

/* np.take_along_axis(t, g0, 0) */
TEST(transform_gather_axis0) {
  CHECK("gather", "axis=0", IN("f32[3,4] 0 1 2 3 4 5 6 7 8 9 10 11", "i32[1,4] 2 0 1 0"),
        OUT("f32[1,4] 8 1 6 3"));
}

/* np.take_along_axis(t[:2], gi, -1) */
TEST(transform_gather_negative_axis) {
  CHECK("gather", "axis=-1", IN("f32[2,4] 0 1 2 3 4 5 6 7", "i32[2,3] 0 2 1 3 0 0"),
        OUT("f32[2,3] 0 2 1 7 4 4"));
}

/* d[tuple(np.array([[1, 0], [2, 1], [3, 0]]))] */
TEST(transform_gather_nd_full) {
  CHECK("gather_nd", "", IN("f32[2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23", "i32[3,2] 1 0 2 1 3 0"),
        OUT("f32[2] 23 4"));
}

/* d[tuple(n1)] */
TEST(transform_gather_nd_prefix) {
  CHECK("gather_nd", "", IN("f32[2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23", "i32[2,2] 1 0 2 1"),
        OUT("f32[2,4] 20 21 22 23 4 5 6 7"));
}

/* np.stack([d[b][[2, 0][b]] for b in range(2)]) */
TEST(transform_gather_nd_batch_dims) {
  CHECK("gather_nd", "batch_dims=1", IN("f32[2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23", "i32[1,2] 2 0"),
        OUT("f32[2,4] 8 9 10 11 12 13 14 15"));
}

/* np.broadcast_to(v, (2, 3)) */
TEST(transform_broadcast_to_2d) {
  CHECK("broadcast_to", "shape=[2, 3]", IN("f32[2,1] 1 2"),
        OUT("f32[2,3] 1 1 1 2 2 2"));
}

/* np.broadcast_to(v, (2, 2, 1)) */
TEST(transform_broadcast_to_rank_up) {
  CHECK("broadcast_to", "shape=[2, 2, 1]", IN("f32[2,1] 1 2"),
        OUT("f32[2,2,1] 1 2 1 2"));
}

/* np.broadcast_to(np.int32(7), (3,)) */
TEST(transform_broadcast_to_scalar) {
  CHECK("broadcast_to", "shape=[3]", IN("i32[] 7"),
        OUT("i32[3] 7 7 7"));
}

/* np.tile(bt, (2, 1)) */
TEST(transform_tile_2d) {
  CHECK("tile", "reps=[2, 1]", IN("f32[2,3] 0 1 2 3 4 5"),
        OUT("f32[4,3] 0 1 2 3 4 5 0 1 2 3 4 5"));
}

/* np.tile(bt, (2, 1, 2)) */
TEST(transform_tile_more_reps) {
  CHECK("tile", "reps=[2, 1, 2]", IN("f32[2,3] 0 1 2 3 4 5"),
        OUT("f32[2,2,6] 0 1 2 0 1 2 3 4 5 3 4 5 0 1 2 0 1 2 3 4 5 3 4 5"));
}

/* np.tile(bt, 3) */
TEST(transform_tile_fewer_reps) {
  CHECK("tile", "reps=[3]", IN("f32[2,3] 0 1 2 3 4 5"),
        OUT("f32[2,9] 0 1 2 0 1 2 0 1 2 3 4 5 3 4 5 3 4 5"));
}

/* np.repeat(bt, 2, 0) */
TEST(transform_repeat_axis0) {
  CHECK("repeat", "repeats=2; axis=0", IN("f32[2,3] 0 1 2 3 4 5"),
        OUT("f32[4,3] 0 1 2 0 1 2 3 4 5 3 4 5"));
}

/* np.repeat(bt, 3, 1) */
TEST(transform_repeat_axis1) {
  CHECK("repeat", "repeats=3; axis=1", IN("f32[2,3] 0 1 2 3 4 5"),
        OUT("f32[2,9] 0 0 0 1 1 1 2 2 2 3 3 3 4 4 4 5 5 5"));
}

/* np.repeat(bt.astype(np.int8), 2, -1) */
TEST(transform_repeat_negative_axis) {
  CHECK("repeat", "repeats=2; axis=-1", IN("i8[2,3] 0 1 2 3 4 5"),
        OUT("i8[2,6] 0 0 1 1 2 2 3 3 4 4 5 5"));
}

/* np.flip(bt, 0) */
TEST(transform_reverse_axis0) {
  CHECK("reverse", "axis=0", IN("f32[2,3] 0 1 2 3 4 5"),
        OUT("f32[2,3] 3 4 5 0 1 2"));
}

/* np.flip(d, 1) */
TEST(transform_reverse_axis1) {
  CHECK("reverse", "axis=1", IN("f32[2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[2,3,4] 8 9 10 11 4 5 6 7 0 1 2 3 20 21 22 23 16 17 18 19 12 13 14 15"));
}

/* np.flip(bt, -1) */
TEST(transform_reverse_negative_axis) {
  CHECK("reverse", "axis=-1", IN("f32[2,3] 0 1 2 3 4 5"),
        OUT("f32[2,3] 2 1 0 5 4 3"));
}

/* np.pad(p, ((1, 0), (2, 1)), constant_values=9) */
TEST(transform_pad_constant) {
  CHECK("nn.pad", "pad_width=[[1, 0], [2, 1]]", IN("f32[2,3] 1 2 3 4 5 6", "f32[] 9"),
        OUT("f32[3,6] 9 9 9 9 9 9 9 9 1 2 3 9 9 9 4 5 6 9"));
}

/* np.pad(p, ((1, 1), (2, 2)), mode='edge') */
TEST(transform_pad_edge) {
  CHECK("nn.pad", "pad_width=[[1, 1], [2, 2]]; pad_mode=\"edge\"", IN("f32[2,3] 1 2 3 4 5 6", "f32[] 0"),
        OUT("f32[4,7] 1 1 1 2 3 3 3 1 1 1 2 3 3 3 4 4 4 5 6 6 6 4 4 4 5 6 6 6"));
}

/* np.pad(p, ((1, 1), (2, 2)), mode='reflect') */
TEST(transform_pad_reflect) {
  CHECK("nn.pad", "pad_width=[[1, 1], [2, 2]]; pad_mode=\"reflect\"", IN("f32[2,3] 1 2 3 4 5 6", "f32[] 0"),
        OUT("f32[4,7] 6 5 4 5 6 5 4 3 2 1 2 3 2 1 6 5 4 5 6 5 4 3 2 1 2 3 2 1"));
}

/* np.pad(p, ((0, 0), (4, 5)), mode='reflect') */
TEST(transform_pad_reflect_long) {
  CHECK("nn.pad", "pad_width=[[0, 0], [4, 5]]; pad_mode=\"reflect\"", IN("f32[2,3] 1 2 3 4 5 6", "f32[] 0"),
        OUT("f32[2,12] 1 2 3 2 1 2 3 2 1 2 3 2 4 5 6 5 4 5 6 5 4 5 6 5"));
}

/* np.pad(p.astype(np.int32), ((0, 1), (1, 0)), constant_values=-1) */
TEST(transform_pad_int_value) {
  CHECK("nn.pad", "pad_width=[[0, 1], [1, 0]]", IN("i32[2,3] 1 2 3 4 5 6", "i32[] -1"),
        OUT("i32[3,4] -1 1 2 3 -1 4 5 6 -1 -1 -1 -1"));
}

/* lt.reshape(1, 2, 4, 2, 3).transpose(0, 1, 3, 4, 2) */
TEST(transform_layout_transform_to_nchw4c) {
  CHECK("layout_transform", "src_layout=\"NCHW\"; dst_layout=\"NCHW4c\"", IN("f32[1,8,2,3] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47"),
        OUT("f32[1,2,2,3,4] 0 6 12 18 1 7 13 19 2 8 14 20 3 9 15 21 4 10 16 22 5 11 17 23 24 30 36 42 25 31 37 43 26 32 38 44 27 33 39 45 28 34 40 46 29 35 41 47"));
}

/* l4.transpose(0, 1, 4, 2, 3).reshape(1, 8, 2, 3) */
TEST(transform_layout_transform_from_nchw4c) {
  CHECK("layout_transform", "src_layout=\"NCHW4c\"; dst_layout=\"NCHW\"", IN("f32[1,2,2,3,4] 0 6 12 18 1 7 13 19 2 8 14 20 3 9 15 21 4 10 16 22 5 11 17 23 24 30 36 42 25 31 37 43 26 32 38 44 27 33 39 45 28 34 40 46 29 35 41 47"),
        OUT("f32[1,8,2,3] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47"));
}

/* lt.transpose(0, 2, 3, 1) */
TEST(transform_layout_transform_to_nhwc) {
  CHECK("layout_transform", "src_layout=\"NCHW\"; dst_layout=\"NHWC\"", IN("f32[1,8,2,3] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47"),
        OUT("f32[1,2,3,8] 0 6 12 18 24 30 36 42 1 7 13 19 25 31 37 43 2 8 14 20 26 32 38 44 3 9 15 21 27 33 39 45 4 10 16 22 28 34 40 46 5 11 17 23 29 35 41 47"));
}

/* lt.transpose(0, 3, 1, 2) */
TEST(transform_layout_transform_nhwc_to_nchw) {
  CHECK("layout_transform", "src_layout=\"NHWC\"; dst_layout=\"NCHW\"", IN("f32[1,8,2,3] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47"),
        OUT("f32[1,3,8,2] 0 3 6 9 12 15 18 21 24 27 30 33 36 39 42 45 1 4 7 10 13 16 19 22 25 28 31 34 37 40 43 46 2 5 8 11 14 17 20 23 26 29 32 35 38 41 44 47"));
}

/* np.pad(l6, ((0, 0), (0, 2), (0, 0), (0, 0))).reshape(1, 2, 4, 1, 2).transpose(0, 1, 3, 4, 2) */
TEST(transform_layout_transform_pad_split) {
  CHECK("layout_transform", "src_layout=\"NCHW\"; dst_layout=\"NCHW4c\"", IN("f32[1,6,1,2] 0 1 2 3 4 5 6 7 8 9 10 11"),
        OUT("f32[1,2,1,2,4] 0 2 4 6 1 3 5 7 8 10 0 0 9 11 0 0"));
}

/* ds.reshape(1, 2, 2, 2, 2, 2).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 4) */
TEST(transform_depth_to_space_dcr) {
  CHECK("nn.depth_to_space", "block_size=2", IN("f32[1,8,2,2] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31"),
        OUT("f32[1,2,4,4] 0 8 1 9 16 24 17 25 2 10 3 11 18 26 19 27 4 12 5 13 20 28 21 29 6 14 7 15 22 30 23 31"));
}

/* ds.reshape(1, 2, 2, 2, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 4) */
TEST(transform_depth_to_space_crd) {
  CHECK("nn.depth_to_space", "block_size=2; mode=\"CRD\"", IN("f32[1,8,2,2] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31"),
        OUT("f32[1,2,4,4] 0 4 1 5 8 12 9 13 2 6 3 7 10 14 11 15 16 20 17 21 24 28 25 29 18 22 19 23 26 30 27 31"));
}

/* ds.reshape(1, 2, 2, 2, 2, 2).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 4).transpose(0, 2, 3, 1) */
TEST(transform_depth_to_space_nhwc) {
  CHECK("nn.depth_to_space", "block_size=2; layout=\"NHWC\"", IN("f32[1,2,2,8] 0 4 8 12 16 20 24 28 1 5 9 13 17 21 25 29 2 6 10 14 18 22 26 30 3 7 11 15 19 23 27 31"),
        OUT("f32[1,4,4,2] 0 4 8 12 1 5 9 13 16 20 24 28 17 21 25 29 2 6 10 14 3 7 11 15 18 22 26 30 19 23 27 31"));
}

/* sd.reshape(1, 2, 2, 2, 2, 2).transpose(0, 3, 5, 1, 2, 4).reshape(1, 8, 2, 2) */
TEST(transform_space_to_depth_nchw) {
  CHECK("nn.space_to_depth", "block_size=2", IN("f32[1,2,4,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31"),
        OUT("f32[1,8,2,2] 0 2 8 10 16 18 24 26 1 3 9 11 17 19 25 27 4 6 12 14 20 22 28 30 5 7 13 15 21 23 29 31"));
}

/* sd.reshape(1, 2, 2, 2, 2, 2).transpose(0, 3, 5, 1, 2, 4).reshape(1, 8, 2, 2).transpose(0, 2, 3, 1) */
TEST(transform_space_to_depth_nhwc) {
  CHECK("nn.space_to_depth", "block_size=2; layout=\"NHWC\"", IN("f32[1,4,4,2] 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31"),
        OUT("f32[1,2,2,8] 0 16 1 17 4 20 5 21 2 18 3 19 6 22 7 23 8 24 9 25 12 28 13 29 10 26 11 27 14 30 15 31"));
}

/* sd.reshape(1, 2, 1, 4, 1, 4).transpose(0, 3, 5, 1, 2, 4).reshape(1, 32, 1, 1) */
TEST(transform_space_to_depth_block4) {
  CHECK("nn.space_to_depth", "block_size=4", IN("f32[1,2,4,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31"),
        OUT("f32[1,32,1,1] 0 16 1 17 2 18 3 19 4 20 5 21 6 22 7 23 8 24 9 25 10 26 11 27 12 28 13 29 14 30 15 31"));
}

/* np.transpose(a3, (0, 2, 1)) */
TEST(transform_transpose_axes) {
  CHECK("transpose", "axes=[0, 2, 1]", IN("f32[2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[2,4,3] 0 4 8 1 5 9 2 6 10 3 7 11 12 16 20 13 17 21 14 18 22 15 19 23"));
}

/* np.transpose(a3) */
TEST(transform_transpose_default) {
  CHECK("transpose", "", IN("f32[2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[4,3,2] 0 12 4 16 8 20 1 13 5 17 9 21 2 14 6 18 10 22 3 15 7 19 11 23"));
}

/* np.transpose(a3, (2, 0, 1)) */
TEST(transform_transpose_negative_axes) {
  CHECK("transpose", "axes=[-1, 0, -2]", IN("f32[2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[4,2,3] 0 4 8 12 16 20 1 5 9 13 17 21 2 6 10 14 18 22 3 7 11 15 19 23"));
}

/* ---- hand-written -------------------------------------------------------- */

/* reshape copies row-major; the codes only shape the output (TVM's examples
 * on (2,3,4)): (4,0,2) -> (4,3,2), (-3,4) -> (6,4), (-4,1,2,-2) -> (1,2,3,4),
 * (2,-4,-1,3,-2) -> (2,1,3,4); the elements keep their order. */
TEST(transform_reshape_codes) {
  CHECK("reshape", "newshape=[4, 0, 2]", IN("f32[2,3,4] iota"), OUT("f32[4,3,2] iota"));
  CHECK("reshape", "newshape=[-3, 4]", IN("f32[2,3,4] iota"), OUT("f32[6,4] iota"));
  CHECK("reshape", "newshape=[-4, 1, 2, -2]", IN("f32[2,3,4] iota"), OUT("f32[1,2,3,4] iota"));
  CHECK("reshape", "newshape=[2, -4, -1, 3, -2]", IN("f32[2,3,4] iota"), OUT("f32[2,1,3,4] iota"));
}
/* strides beyond begin's count still apply (the axis is whole): the
 * relation says so, and the kernel reads the same plan (it used to slice
 * only the axes with a begin value and fail on the output's shape). */
TEST(transform_strided_slice_strides_past_begin) {
  CHECK("strided_slice", "begin=[1]; end=[3]; strides=[1, 2]", IN("f32[3,4] iota"),
        OUT("f32[2,2] 4 6 8 10"));
}
TEST(transform_reshape_int64_bytes) {
  CHECK("reshape", "newshape=[-1]", IN("i64[2,1] -9223372036854775808 9223372036854775807"),
        OUT("i64[2] -9223372036854775808 9223372036854775807"));
}
TEST(transform_reshape_empty_and_scalar) {
  CHECK("reshape", "newshape=[0, 5]", IN("f32[0,5]"), OUT("f32[0,5]"));
  CHECK("reshape", "newshape=[]", IN("u8[1,1] 7"), OUT("u8[] 7"));
}
TEST(transform_reshape_like_basic) {
  CHECK("reshape_like", "", IN("f32[6] iota", "f32[2,3] iota"), OUT("f32[2,3] iota"));
}
TEST(transform_reshape_like_ranges) {
  CHECK("reshape_like", "lhs_begin=1; rhs_begin=1", IN("f32[2,6] iota", "f32[7,3,2] iota"), OUT("f32[2,3,2] iota"));
}
TEST(transform_reshape_like_bool) {
  CHECK("reshape_like", "", IN("bool[4] 1 0 0 1", "i8[2,2] iota"), OUT("bool[2,2] 1 0 0 1"));
}
TEST(transform_squeeze_all) { CHECK("squeeze", "", IN("f32[1,3,1] 1 2 3"), OUT("f32[3] 1 2 3")); }
TEST(transform_squeeze_axis) { CHECK("squeeze", "axis=[-1]", IN("f32[1,3,1] 1 2 3"), OUT("f32[1,3] 1 2 3")); }
TEST(transform_squeeze_to_scalar) { CHECK("squeeze", "", IN("i16[1,1] -7"), OUT("i16[] -7")); }
TEST(transform_expand_dims_front) { CHECK("expand_dims", "axis=0", IN("f32[2] 1 2"), OUT("f32[1,2] 1 2")); }
TEST(transform_expand_dims_negative) {
  CHECK("expand_dims", "axis=-1; num_newaxis=2", IN("f32[2] 1 2"), OUT("f32[2,1,1] 1 2"));
}
TEST(transform_expand_dims_scalar) { CHECK("expand_dims", "axis=0", IN("bool[] 1"), OUT("bool[1] 1")); }
TEST(transform_batch_flatten_3d) { CHECK("nn.batch_flatten", "", IN("f32[2,2,3] iota"), OUT("f32[2,6] iota")); }
TEST(transform_batch_flatten_4d) { CHECK("nn.batch_flatten", "", IN("i32[1,2,2,2] iota"), OUT("i32[1,8] iota")); }
TEST(transform_batch_flatten_empty) { CHECK("nn.batch_flatten", "", IN("f32[0,2,3]"), OUT("f32[0,6]")); }
/* (2,2) ++ (2,1) along axis 1: rows [0 1 | 9], [2 3 | 8]. */
TEST(transform_concatenate_axis1) {
  CHECK("concatenate", "axis=1", IN("f32[2,2] 0 1 2 3", "f32[2,1] 9 8"), OUT("f32[2,3] 0 1 9 2 3 8"));
}
TEST(transform_concatenate_axis0_three) {
  CHECK("concatenate", "", IN("i32[1] 1", "i32[0]", "i32[2] 2 3"), OUT("i32[3] 1 2 3"));
}
TEST(transform_concatenate_negative_axis) {
  CHECK("concatenate", "axis=-1", IN("u8[1,1] 5", "u8[1,2] 6 7"), OUT("u8[1,3] 5 6 7"));
}
/* stack (2) and (2) on axis 0 -> [[a],[b]], on axis 1 -> [[a0 b0],[a1 b1]]. */
TEST(transform_stack_axis0) { CHECK("stack", "", IN("f32[2] 1 2", "f32[2] 3 4"), OUT("f32[2,2] 1 2 3 4")); }
TEST(transform_stack_axis1) { CHECK("stack", "axis=1", IN("f32[2] 1 2", "f32[2] 3 4"), OUT("f32[2,2] 1 3 2 4")); }
TEST(transform_stack_negative_axis) {
  CHECK("stack", "axis=-1", IN("i8[2] 1 2", "i8[2] 3 4", "i8[2] 5 6"), OUT("i8[2,3] 1 3 5 2 4 6"));
}
TEST(transform_split_sections) {
  CHECK("split", "indices_or_sections=2", IN("f32[4] 1 2 3 4"), OUT("f32[2] 1 2", "f32[2] 3 4"));
}
/* indices [1, 3] on axis 1 of (2,4): columns [0], [1,2], [3]. */
TEST(transform_split_indices_axis1) {
  CHECK("split", "indices_or_sections=[1, 3]; axis=1", IN("f32[2,4] iota"),
        OUT("f32[2,1] 0 4", "f32[2,2] 1 2 5 6", "f32[2,1] 3 7"));
}
TEST(transform_split_negative_axis) {
  CHECK("split", "indices_or_sections=3; axis=-1", IN("i32[1,3] 7 8 9"),
        OUT("i32[1,1] 7", "i32[1,1] 8", "i32[1,1] 9"));
}
TEST(transform_take_fast_out_of_range) {
  CHECK_ERROR("take", "axis=0; mode=\"fast\"", IN("f32[3] 1 2 3", "i32[1] 3"), OUT("f32[1] 0"), OUT_OF_RANGE,
              "take: index 3 is out of range");
}
/* mode fast accepts negative indices from the end: -1 -> 3. */
TEST(transform_take_fast_negative) {
  CHECK("take", "axis=0; mode=\"fast\"", IN("f32[3] 1 2 3", "i32[2] -1 0"), OUT("f32[2] 3 1"));
}
TEST(transform_take_scalar_index) {
  CHECK("take", "axis=1", IN("f32[2,3] iota", "i32[] 2"), OUT("f32[2] 2 5"));
}
TEST(transform_gather_out_of_range) {
  CHECK_ERROR("gather", "axis=0", IN("f32[2] 1 2", "i32[1] 2"), OUT("f32[1] 0"), OUT_OF_RANGE, "gather: index 2");
  CHECK_ERROR("gather", "axis=0", IN("f32[2] 1 2", "i32[1] -1"), OUT("f32[1] 0"), OUT_OF_RANGE, "index -1");
}
TEST(transform_gather_nd_out_of_range) {
  CHECK_ERROR("gather_nd", "", IN("f32[2,2] 1 2 3 4", "i32[2,1] 0 2"), OUT("f32[1] 0"), OUT_OF_RANGE,
              "gather_nd: index 2");
}
/* one_hot of [0, 2, -1, 3] with depth 3: index 3 and -1 give all-off rows. */
TEST(transform_one_hot_last_axis) {
  CHECK("one_hot", "depth=3", IN("i32[4] 0 2 -1 3", "f32[] 1", "f32[] 0"),
        OUT("f32[4,3] 1 0 0 0 0 1 0 0 0 0 0 0"));
}
TEST(transform_one_hot_axis0) {
  CHECK("one_hot", "depth=3; axis=0", IN("i32[2] 1 0", "i32[] 5", "i32[] -1"), OUT("i32[3,2] -1 5 5 -1 -1 -1"));
}
TEST(transform_one_hot_2d_axis1) {
  CHECK("one_hot", "depth=2; axis=1", IN("i64[2,2] 0 1 1 1", "f32[] 1", "f32[] 0"),
        OUT("f32[2,2,2] 1 0 0 1 0 0 1 1"));
}
TEST(transform_zeros_f32) { CHECK("zeros", "shape=[2]; dtype=\"float32\"", NO_IN, OUT("f32[2] 0 0")); }
TEST(transform_zeros_i64_scalar) { CHECK("zeros", "shape=[]; dtype=\"int64\"", NO_IN, OUT("i64[] 0")); }
TEST(transform_zeros_empty) { CHECK("zeros", "shape=[0, 2]; dtype=\"float32\"", NO_IN, OUT("f32[0,2]")); }
TEST(transform_ones_f16) { CHECK("ones", "shape=[2]; dtype=\"float16\"", NO_IN, OUT("f16[2] 1 1")); }
TEST(transform_ones_bool) { CHECK("ones", "shape=[1, 2]; dtype=\"bool\"", NO_IN, OUT("bool[1,2] 1 1")); }
TEST(transform_ones_u8) { CHECK("ones", "shape=[3]; dtype=\"uint8\"", NO_IN, OUT("u8[3] 1 1 1")); }
TEST(transform_full_f32) { CHECK("full", "shape=[2, 2]; dtype=\"float32\"", IN("f32[] 2.5"), OUT("f32[2,2] 2.5 2.5 2.5 2.5")); }
/* The fill converts: 300 -> int8 44 (wrap), -1.5 -> int32 -1 (truncate). */
TEST(transform_full_convert) {
  CHECK("full", "shape=[1]; dtype=\"int8\"", IN("i32[] 300"), OUT("i8[1] 44"));
  CHECK("full", "shape=[1]; dtype=\"int32\"", IN("f32[] -1.5"), OUT("i32[1] -1"));
}
TEST(transform_full_nan) { CHECK("full", "shape=[1]; dtype=\"float64\"", IN("f32[] nan"), OUT("f64[1] nan")); }
/* arange creates its output: ceil((stop - start) / step) elements:
 * (0, 5, 1) -> 5; (1, 2, 0.3) -> ceil(3.33) = 4: 1 1.3 1.6 1.9;
 * (5, 0, -2) -> ceil(2.5) = 3: 5 3 1; (3, 1, 1) -> 0. */
TEST(transform_arange_float) {
  CHECK("arange", "", IN("f32[] 0", "f32[] 5", "f32[] 1"), OUT("f32[?] 0 1 2 3 4"));
  CHECK("arange", "", IN("f32[] 1", "f32[] 2", "f32[] 0.3"), OUT("f32[?] 1 1.3 1.6 1.9"));
}
TEST(transform_arange_int_negative_step) {
  CHECK("arange", "dtype=\"int32\"", IN("i32[] 5", "i32[] 0", "i32[] -2"), OUT("i32[?] 5 3 1"));
  CHECK("arange", "", IN("f32[] 3", "f32[] 1", "f32[] 1"), OUT("f32[?]"));
}
TEST(transform_arange_zero_step) {
  CHECK_ERROR("arange", "", IN("f32[] 0", "f32[] 1", "f32[] 0"), OUT("f32[?] 0"), INVALID_ARGUMENT, "step");
}
TEST(transform_shape_of_int32) { CHECK("shape_of", "", IN("f32[2,0,3]"), OUT("i32[3] 2 0 3")); }
TEST(transform_shape_of_int64) { CHECK("shape_of", "dtype=\"int64\"", IN("u8[5] iota"), OUT("i64[1] 5")); }
TEST(transform_shape_of_scalar) { CHECK("shape_of", "", IN("f32[] 1"), OUT("i32[0]")); }
TEST(transform_ndarray_size_basic) { CHECK("ndarray_size", "", IN("f32[2,3] iota"), OUT("i32[] 6")); }
TEST(transform_ndarray_size_empty) { CHECK("ndarray_size", "", IN("f32[4,0]"), OUT("i32[] 0")); }
TEST(transform_ndarray_size_int64) { CHECK("ndarray_size", "dtype=\"int64\"", IN("f32[]  1"), OUT("i64[] 1")); }
/* Bytes are copied whatever the dtype: float16 transposes bit-exactly. */
TEST(transform_transpose_f16_bits) {
  CHECK("transpose", "", IN("f16[2,2] 1 2 nan -0"), OUT("f16[2,2] 1 nan 2 -0"));
}
