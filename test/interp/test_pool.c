/* Tests of the pooling kernels (interp/kernels/pool.c).
 *
 * Window pools are checked against pool_ref in test/interp/gen_cases.py, a
 * tap-by-tap python reference of the documented semantics (max over
 * in-image taps; avg divides by the in-image count, or with
 * count_include_pad by the taps inside the padded image, ceil_mode's extra
 * taps excluded); adaptive pools against numpy means/maxima over
 * [floor(i*H/OH), ceil((i+1)*H/OH)). Printed by
 *   /usr/bin/python3 test/interp/gen_cases.py pool
 * X is 1..25 on 5x5 with the centre replaced by -7 (so max pools must skip
 * it and padding). */
#include "kernel_test_util.h"

KT_MAIN("kernels_pool")

/* pool_ref(x, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), 'max', out_hw=(2, 2)).astype(np.float32) */
TEST(pool_max_pool2d_basic) {
  CHECK("nn.max_pool2d", "pool_size=[2, 2]; strides=[2, 2]", IN("f32[1,1,5,5] 1 2 3 4 5 6 7 8 9 10 11 12 -7 14 15 16 17 18 19 20 21 22 23 24 25"),
        OUT("f32[1,1,2,2] 7 9 17 19"));
}

/* pool_ref(-x, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 'max', out_hw=(3, 3)).astype(np.float32) */
TEST(pool_max_pool2d_pad_ceil) {
  CHECK("nn.max_pool2d", "pool_size=[3, 3]; strides=[2, 2]; padding=[1, 1]; ceil_mode=True", IN("f32[1,1,5,5] -1 -2 -3 -4 -5 -6 -7 -8 -9 -10 -11 -12 7 -14 -15 -16 -17 -18 -19 -20 -21 -22 -23 -24 -25"),
        OUT("f32[1,1,3,3] -1 -2 -4 -6 7 -9 -16 -17 -19"));
}

/* pool_ref(x, (2, 2), (1, 1), (2, 2), (0, 0, 0, 0), 'max', out_hw=(3, 3)).astype(np.float32) */
TEST(pool_max_pool2d_dilation) {
  CHECK("nn.max_pool2d", "pool_size=[2, 2]; dilation=[2, 2]", IN("f32[1,1,5,5] 1 2 3 4 5 6 7 8 9 10 11 12 -7 14 15 16 17 18 19 20 21 22 23 24 25"),
        OUT("f32[1,1,3,3] 11 14 15 18 19 20 23 24 25"));
}

/* pool_ref(x, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 'avg', out_hw=(3, 3)).astype(np.float32) */
TEST(pool_avg_pool2d_pad_exclude) {
  CHECK("nn.avg_pool2d", "pool_size=[3, 3]; strides=[2, 2]; padding=[1, 1]", IN("f32[1,1,5,5] 1 2 3 4 5 6 7 8 9 10 11 12 -7 14 15 16 17 18 19 20 21 22 23 24 25"),
        OUT("f32[1,1,3,3] 4 5.5 7 11.5 10.7777777 14.5 19 20.5 22"));
}

/* pool_ref(x, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 'avg', True, out_hw=(3, 3)).astype(np.float32) */
TEST(pool_avg_pool2d_pad_include) {
  CHECK("nn.avg_pool2d", "pool_size=[3, 3]; strides=[2, 2]; padding=[1, 1]; count_include_pad=True", IN("f32[1,1,5,5] 1 2 3 4 5 6 7 8 9 10 11 12 -7 14 15 16 17 18 19 20 21 22 23 24 25"),
        OUT("f32[1,1,3,3] 1.77777779 3.66666675 3.11111116 7.66666651 10.7777777 9.66666698 8.44444466 13.666667 9.77777767"));
}

/* pool_ref(x, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), 'avg', True, out_hw=(3, 3)).astype(np.float32) */
TEST(pool_avg_pool2d_ceil_include) {
  CHECK("nn.avg_pool2d", "pool_size=[2, 2]; strides=[2, 2]; ceil_mode=True; count_include_pad=True", IN("f32[1,1,5,5] 1 2 3 4 5 6 7 8 9 10 11 12 -7 14 15 16 17 18 19 20 21 22 23 24 25"),
        OUT("f32[1,1,3,3] 4 6 7.5 14 11 17.5 21.5 23.5 25"));
}

/* pool_ref(x, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), 'avg', False, out_hw=(3, 3)).astype(np.float32) */
TEST(pool_avg_pool2d_ceil_exclude) {
  CHECK("nn.avg_pool2d", "pool_size=[2, 2]; strides=[2, 2]; ceil_mode=True", IN("f32[1,1,5,5] 1 2 3 4 5 6 7 8 9 10 11 12 -7 14 15 16 17 18 19 20 21 22 23 24 25"),
        OUT("f32[1,1,3,3] 4 6 7.5 14 11 17.5 21.5 23.5 25"));
}

/* pool_ref(x, (2, 2), (1, 1), (1, 1), (0, 1, 1, 0), 'avg', out_hw=(5, 5)).transpose(0, 2, 3, 1).astype(np.float32) */
TEST(pool_avg_pool2d_asym_pad_nhwc) {
  CHECK("nn.avg_pool2d", "pool_size=[2, 2]; padding=[0, 1, 1, 0]; layout=\"NHWC\"", IN("f32[1,5,5,1] 1 2 3 4 5 6 7 8 9 10 11 12 -7 14 15 16 17 18 19 20 21 22 23 24 25"),
        OUT("f32[1,5,5,1] 3.5 4 5 6 7 8.5 9 5 6 12 13.5 14 10 11 17 18.5 19 20 21 22 21 21.5 22.5 23.5 24.5"));
}

/* pool_ref(x1[:, :, None, :], (1, 3), (1, 2), (1, 1), (0, 0, 0, 0), 'max', out_hw=(1, 3))[:, :, 0].astype(np.float32) */
TEST(pool_max_pool1d_basic) {
  CHECK("nn.max_pool1d", "pool_size=[3]; strides=[2]", IN("f32[1,1,7] 3 1 4 1 5 9 2"),
        OUT("f32[1,1,3] 4 5 9"));
}

/* pool_ref(-x1[:, :, None, :], (1, 2), (1, 1), (1, 1), (0, 1, 0, 1), 'max', out_hw=(1, 8))[:, :, 0].astype(np.float32) */
TEST(pool_max_pool1d_pad) {
  CHECK("nn.max_pool1d", "pool_size=[2]; padding=[1]", IN("f32[1,1,7] -3 -1 -4 -1 -5 -9 -2"),
        OUT("f32[1,1,8] -3 -1 -1 -1 -1 -5 -2 -2"));
}

/* pool_ref(x1[:, :, None, :], (1, 2), (1, 1), (1, 3), (0, 0, 0, 0), 'max', out_hw=(1, 4))[:, :, 0].transpose(0, 2, 1).astype(np.float32) */
TEST(pool_max_pool1d_nwc_dilation) {
  CHECK("nn.max_pool1d", "pool_size=[2]; dilation=[3]; layout=\"NWC\"", IN("f32[1,7,1] 3 1 4 1 5 9 2"),
        OUT("f32[1,4,1] 3 5 9 2"));
}

/* pool_ref(x1[:, :, None, :], (1, 2), (1, 2), (1, 1), (0, 0, 0, 0), 'avg', out_hw=(1, 3))[:, :, 0].astype(np.float32) */
TEST(pool_avg_pool1d_basic) {
  CHECK("nn.avg_pool1d", "pool_size=[2]; strides=[2]", IN("f32[1,1,7] 3 1 4 1 5 9 2"),
        OUT("f32[1,1,3] 2 2.5 7"));
}

/* pool_ref(x1[:, :, None, :], (1, 3), (1, 1), (1, 1), (0, 1, 0, 2), 'avg', True, out_hw=(1, 8))[:, :, 0].astype(np.float32) */
TEST(pool_avg_pool1d_pad_include) {
  CHECK("nn.avg_pool1d", "pool_size=[3]; padding=[1, 2]; count_include_pad=True", IN("f32[1,1,7] 3 1 4 1 5 9 2"),
        OUT("f32[1,1,8] 1.33333337 2.66666675 2 3.33333325 5 5.33333349 3.66666675 0.666666687"));
}

/* pool_ref(x1[:, :, None, :], (1, 3), (1, 1), (1, 1), (0, 1, 0, 2), 'avg', False, out_hw=(1, 8))[:, :, 0].astype(np.float32) */
TEST(pool_avg_pool1d_pad_exclude) {
  CHECK("nn.avg_pool1d", "pool_size=[3]; padding=[1, 2]", IN("f32[1,1,7] 3 1 4 1 5 9 2"),
        OUT("f32[1,1,8] 2 2.66666675 2 3.33333325 5 5.33333349 5.5 2"));
}

/* g.mean(axis=(2, 3), keepdims=True).astype(np.float32) */
TEST(pool_global_avg_pool2d_nchw) {
  CHECK("nn.global_avg_pool2d", "", IN("f32[1,2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[1,2,1,1] 5.5 17.5"));
}

/* g.mean(axis=(1, 2), keepdims=True).astype(np.float32) */
TEST(pool_global_avg_pool2d_nhwc) {
  CHECK("nn.global_avg_pool2d", "layout=\"NHWC\"", IN("f32[1,2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[1,1,1,4] 10 11 12 13"));
}

/* g.max(axis=(2, 3), keepdims=True).astype(np.float32) */
TEST(pool_global_max_pool2d_nchw) {
  CHECK("nn.global_max_pool2d", "", IN("f32[1,2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[1,2,1,1] 11 23"));
}

/* g.max(axis=(1, 2), keepdims=True).astype(np.float32) */
TEST(pool_global_max_pool2d_nhwc) {
  CHECK("nn.global_max_pool2d", "layout=\"NHWC\"", IN("f32[1,2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[1,1,1,4] 20 21 22 23"));
}

/* g[:, :, :1, :1].astype(np.float32) */
TEST(pool_global_avg_pool2d_1x1) {
  CHECK("nn.global_avg_pool2d", "", IN("f32[1,2,1,1] 0 12"),
        OUT("f32[1,2,1,1] 0 12"));
}

/* np.array([[[[np.mean(g[0, c, (i * 3) // 2:-((-(i + 1) * 3) // 2), (j * 4) // 3:-((-(j + 1) * 4) // 3)]) for j in range(3)] for i in range(2)] for c in range(2)]]).astype(np.float32) */
TEST(pool_adaptive_avg_pool2d_2x3) {
  CHECK("nn.adaptive_avg_pool2d", "output_size=[2, 3]", IN("f32[1,2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[1,2,2,3] 2.5 3.5 4.5 6.5 7.5 8.5 14.5 15.5 16.5 18.5 19.5 20.5"));
}

/* np.array([[[[np.mean(g[0, c, (i * 3) // 1:-((-(i + 1) * 3) // 1), (j * 4) // 1:-((-(j + 1) * 4) // 1)]) for j in range(1)] for i in range(1)] for c in range(2)]]).astype(np.float32) */
TEST(pool_adaptive_avg_pool2d_1x1) {
  CHECK("nn.adaptive_avg_pool2d", "output_size=[1, 1]", IN("f32[1,2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[1,2,1,1] 5.5 17.5"));
}

/* np.array([[[[np.mean(g[0, c, (i * 3) // 4:-((-(i + 1) * 3) // 4), (j * 4) // 4:-((-(j + 1) * 4) // 4)]) for j in range(4)] for i in range(4)] for c in range(2)]]).astype(np.float32) */
TEST(pool_adaptive_avg_pool2d_upsample) {
  CHECK("nn.adaptive_avg_pool2d", "output_size=[4, 4]", IN("f32[1,2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[1,2,4,4] 0 1 2 3 2 3 4 5 6 7 8 9 8 9 10 11 12 13 14 15 14 15 16 17 18 19 20 21 20 21 22 23"));
}

/* np.array([[[[np.max(g[0, c, (i * 3) // 2:-((-(i + 1) * 3) // 2), (j * 4) // 3:-((-(j + 1) * 4) // 3)]) for j in range(3)] for i in range(2)] for c in range(2)]]).astype(np.float32) */
TEST(pool_adaptive_max_pool2d_2x3) {
  CHECK("nn.adaptive_max_pool2d", "output_size=[2, 3]", IN("f32[1,2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[1,2,2,3] 5 6 7 9 10 11 17 18 19 21 22 23"));
}

/* np.array([[[[np.max(g[0, c, (i * 3) // 2:-((-(i + 1) * 3) // 2), (j * 4) // 2:-((-(j + 1) * 4) // 2)]) for j in range(2)] for i in range(2)] for c in range(2)]]).astype(np.float32) */
TEST(pool_adaptive_max_pool2d_2x2) {
  CHECK("nn.adaptive_max_pool2d", "output_size=[2, 2]", IN("f32[1,2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[1,2,2,2] 5 7 9 11 17 19 21 23"));
}

/* np.array([[[[np.max(g[0, c, (i * 3) // 3:-((-(i + 1) * 3) // 3), (j * 4) // 4:-((-(j + 1) * 4) // 4)]) for j in range(4)] for i in range(3)] for c in range(2)]]).astype(np.float32) */
TEST(pool_adaptive_max_pool2d_3x4_identity) {
  CHECK("nn.adaptive_max_pool2d", "output_size=[3, 4]", IN("f32[1,2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"),
        OUT("f32[1,2,3,4] 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23"));
}

/* np.array([[[np.mean(a1[0, 0, (i * 7) // 3:-((-(i + 1) * 7) // 3)]) for i in range(3)]]]).astype(np.float32) */
TEST(pool_adaptive_avg_pool1d_3) {
  CHECK("nn.adaptive_avg_pool1d", "output_size=[3]", IN("f32[1,1,7] 3 1 4 1 5 9 2"),
        OUT("f32[1,1,3] 2.66666675 3.33333325 5.33333349"));
}

/* np.array([[[np.mean(a1[0, 0, (i * 7) // 2:-((-(i + 1) * 7) // 2)]) for i in range(2)]]]).astype(np.float32) */
TEST(pool_adaptive_avg_pool1d_2) {
  CHECK("nn.adaptive_avg_pool1d", "output_size=[2]", IN("f32[1,1,7] 3 1 4 1 5 9 2"),
        OUT("f32[1,1,2] 2.25 4.25"));
}

/* np.array([[[np.mean(a1[0, 0, (i * 7) // 1:-((-(i + 1) * 7) // 1)]) for i in range(1)]]]).astype(np.float32) */
TEST(pool_adaptive_avg_pool1d_1) {
  CHECK("nn.adaptive_avg_pool1d", "output_size=[1]", IN("f32[1,1,7] 3 1 4 1 5 9 2"),
        OUT("f32[1,1,1] 3.57142854"));
}

/* np.array([[[np.max(a1[0, 0, (i * 7) // 3:-((-(i + 1) * 7) // 3)]) for i in range(3)]]]).astype(np.float32) */
TEST(pool_adaptive_max_pool1d_3) {
  CHECK("nn.adaptive_max_pool1d", "output_size=[3]", IN("f32[1,1,7] 3 1 4 1 5 9 2"),
        OUT("f32[1,1,3] 4 5 9"));
}

/* np.array([[[np.max(a1[0, 0, (i * 7) // 4:-((-(i + 1) * 7) // 4)]) for i in range(4)]]]).astype(np.float32) */
TEST(pool_adaptive_max_pool1d_4) {
  CHECK("nn.adaptive_max_pool1d", "output_size=[4]", IN("f32[1,1,7] 3 1 4 1 5 9 2"),
        OUT("f32[1,1,4] 3 4 9 9"));
}

/* np.array([[[np.max(a1[0, 0, (i * 7) // 1:-((-(i + 1) * 7) // 1)]) for i in range(1)]]]).astype(np.float32) */
TEST(pool_adaptive_max_pool1d_1) {
  CHECK("nn.adaptive_max_pool1d", "output_size=[1]", IN("f32[1,1,7] 3 1 4 1 5 9 2"),
        OUT("f32[1,1,1] 9"));
}

/* Hand: 2x2 window over [[1 2] [3 nan]] -> nan (NaN propagates); an int
 * max pool; a window of padding only gives -inf. */
TEST(pool_max_pool2d_nan_int_pad_only) {
  CHECK("nn.max_pool2d", "pool_size=[2, 2]", IN("f32[1,1,2,2] 1 2 3 nan"), OUT("f32[1,1,1,1] nan"));
  CHECK("nn.max_pool2d", "pool_size=[2, 2]", IN("i8[1,1,2,2] -5 -3 -9 -128"), OUT("i8[1,1,1,1] -3"));
  CHECK("nn.max_pool2d", "pool_size=[1, 1]; padding=[1, 1]", IN("f32[1,1,1,1] 5"), OUT("f32[1,1,3,3] -inf -inf -inf -inf 5 -inf -inf -inf -inf"));
}
/* avg with padding only in the window: count 0 -> 0 (excluded) or 1/1 ... */
TEST(pool_avg_pool2d_hand) {
  /* 2x2 over [[1 2] [3 4]] with padding 1: corners see one element each:
   * exclude: 1, 2, 3, 4 (means of one element) at the corners, (1+2)/2 etc.;
   * include: divide by 4 always. */
  CHECK("nn.avg_pool2d", "pool_size=[2, 2]; padding=[1, 1]", IN("f32[1,1,2,2] 1 2 3 4"),
        OUT("f32[1,1,3,3] 1 1.5 2 2 2.5 3 3 3.5 4"));
  CHECK("nn.avg_pool2d", "pool_size=[2, 2]; padding=[1, 1]; count_include_pad=True", IN("f32[1,1,2,2] 1 2 3 4"),
        OUT("f32[1,1,3,3] 0.25 0.75 0.5 1 2.5 1.5 0.75 1.75 1"));
}
/* Global max over H x W: ints compare exactly, NaN propagates. */
TEST(pool_global_max_pool2d_int_nan) {
  CHECK("nn.global_max_pool2d", "", IN("i32[1,1,2,2] -5 3 9 -1"), OUT("i32[1,1,1,1] 9"));
  CHECK("nn.global_max_pool2d", "", IN("f32[1,2,1,2] 1 nan -3 -4"), OUT("f32[1,2,1,1] nan -3"));
}
