/* Tests of the detection kernels (interp/kernels/detect.c) through the
 * debug executor, with expected values worked out by hand:
 * vision.onnx_nms (corner boxes given either way round, ties in score,
 * two classes, a score threshold, max_output_boxes_per_class, center
 * boxes, no boxes asked for, a bad IoU threshold) and unique (flattened,
 * sorted and in first-occurrence order; slices along an axis; unsigned
 * ints) and vision.roi_align (avg and max, aligned or not, grids, batch,
 * spatial_scale, a bad batch index; test_roialign_* and ONNX Runtime
 * agree with it to 6e-7 on random data in both modes). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rt/rt.h"
#include "test_util.h"

static rt_tensor_t *f32(int32_t rank, const int64_t *shape, const float *v) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, rank, shape, &t));
  memcpy(rt_tensor_data(t), v, rt_tensor_nbytes(t));
  return t;
}

/* Runs `body` over params `sig` on the debug executor with inputs in[0 ..
 * nin-1]; outputs go to out[0 ..] (new references), their count returned.
 * A failing run returns -1 and its status in *out_st (when given). */
static int32_t run(const char *sig, const char *body, int32_t nin, rt_tensor_t **in, rt_tensor_t **out,
                   rt_status_t *out_st) {
  char src[2048];
  snprintf(src, sizeof src, "#[version = \"0.0.5\"]\ndef @main(%s) {\n  %s\n}\n", sig, body);
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(src, strlen(src), "t.relay", &m));
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ex));
  for (int32_t i = 0; i < nin; ++i) assert_ok(rt_executor_set_input(ex, i, in[i]));
  rt_status_t st = rt_executor_run(ex);
  int32_t n = -1;
  if (!st) {
    n = rt_executor_num_outputs(ex);
    for (int32_t i = 0; i < n; ++i) {
      assert_ok(rt_executor_get_output(ex, i, &out[i]));
      rt_tensor_retain(out[i]);
    }
  }
  if (out_st) {
    *out_st = st;
  } else {
    assert_ok(st);
  }
  rt_executor_release(ex);
  rt_module_release(m);
  return n;
}

/* t is int64 [rows, cols] (cols 0: 1-d of rows) with values want. */
static void expect_i64(rt_tensor_t *t, int64_t rows, int64_t cols, const int64_t *want) {
  assert_true(rt_dtype_equal(rt_tensor_dtype(t), RT_DTYPE_INT64));
  assert_int_equal(rt_tensor_rank(t), cols ? 2 : 1);
  assert_int_equal(rt_tensor_shape(t)[0], rows);
  if (cols) assert_int_equal(rt_tensor_shape(t)[1], cols);
  const int64_t *v = rt_tensor_data(t);
  for (int64_t i = 0; i < rows * (cols ? cols : 1); ++i) assert_int_equal(v[i], want[i]);
  rt_tensor_release(t);
}

#define NMS_SIG "%b: Tensor[(1, 4, 4), float32], %s: Tensor[(1, 2, 4), float32]"

/* Four corner boxes [y1, x1, y2, x2]: b1 overlaps b0 with IoU 0.9 / 1.1 =
 * 0.82; b3 is b2 with its corners swapped (IoU 1). Class 0 scores 0.9,
 * 0.8, 0.7, 0.7 (b2 and b3 tie: b2, the lower index, goes first and b3
 * falls to it); class 1 scores 0.1, 0.95, 0.3, 0.2, of which the score
 * threshold 0.25 keeps b1 and b2, far apart. */
static void test_detect_nms(void **state) {
  (void)state;
  const float boxes[] = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 2, 2, 3, 3, 3, 3, 2, 2};
  const float scores[] = {0.9f, 0.8f, 0.7f, 0.7f, 0.1f, 0.95f, 0.3f, 0.2f};
  const int64_t bs[] = {1, 4, 4}, ss[] = {1, 2, 4};
  rt_tensor_t *in[2] = {f32(3, bs, boxes), f32(3, ss, scores)}, *out[1];
  assert_int_equal(run(NMS_SIG, "vision.onnx_nms(%b, %s, 3i64, 0.5f, 0.25f)", 2, in, out, NULL), 1);
  const int64_t w1[] = {0, 0, 0, 0, 0, 2, 0, 1, 1, 0, 1, 2};
  expect_i64(out[0], 4, 3, w1);
  /* At most one box per class: the best of each. */
  assert_int_equal(run(NMS_SIG, "vision.onnx_nms(%b, %s, 1i64, 0.5f, 0.25f)", 2, in, out, NULL), 1);
  const int64_t w2[] = {0, 0, 0, 0, 1, 1};
  expect_i64(out[0], 2, 3, w2);
  /* IoU threshold 0.9: b1 (0.82) stays beside b0; no score threshold
   * (-inf) lets every class-1 box in; b3 still falls to b2 (IoU 1). */
  assert_int_equal(run(NMS_SIG, "vision.onnx_nms(%b, %s, 10i64, 0.9f, -1f)", 2, in, out, NULL), 1);
  const int64_t w3[] = {0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1, 1, 0, 1, 2, 0, 1, 0};
  expect_i64(out[0], 6, 3, w3);
  /* max_output_boxes_per_class 0: nothing. */
  assert_int_equal(run(NMS_SIG, "vision.onnx_nms(%b, %s, 0i64, 0.5f, 0f)", 2, in, out, NULL), 1);
  expect_i64(out[0], 0, 3, NULL);
  /* An IoU threshold outside [0, 1] is an error naming the op. */
  rt_status_t st = NULL;
  assert_int_equal(run(NMS_SIG, "vision.onnx_nms(%b, %s, 3i64, 1.5f, 0f)", 2, in, out, &st), -1);
  assert_status(st, INVALID_ARGUMENT, "vision.onnx_nms: iou_threshold must be in [0, 1], got 1.5");
  rt_tensor_release(in[0]);
  rt_tensor_release(in[1]);
  /* Center boxes [x, y, w, h]: b1 is b0 moved 0.05 along x (IoU 0.95 /
   * 1.05), b2 far away. */
  const float cboxes[] = {0.5f, 0.5f, 1, 1, 0.55f, 0.5f, 1, 1, 2.5f, 2.5f, 1, 1};
  const float cscores[] = {0.9f, 0.8f, 0.7f};
  const int64_t cbs[] = {1, 3, 4}, css[] = {1, 1, 3};
  in[0] = f32(3, cbs, cboxes);
  in[1] = f32(3, css, cscores);
  assert_int_equal(run("%b: Tensor[(1, 3, 4), float32], %s: Tensor[(1, 1, 3), float32]",
                       "vision.onnx_nms(%b, %s, 5i64, 0.5f, 0f, center_point_box=1)", 2, in, out, NULL),
                   1);
  const int64_t w4[] = {0, 0, 0, 0, 0, 2};
  expect_i64(out[0], 2, 3, w4);
  rt_tensor_release(in[0]);
  rt_tensor_release(in[1]);
}

/* ONNX's own example of Unique without an axis: [2, 1, 1, 3, 4, 3]. */
static void test_detect_unique_flat(void **state) {
  (void)state;
  const float x[] = {2, 1, 1, 3, 4, 3};
  const int64_t s6[] = {6};
  rt_tensor_t *in[1] = {f32(1, s6, x)}, *out[4];
  assert_int_equal(run("%x: Tensor[(6), float32]", "unique(%x)", 1, in, out, NULL), 4);
  assert_int_equal(rt_tensor_shape(out[0])[0], 4);
  const float *y = rt_tensor_data(out[0]);
  assert_true(y[0] == 1 && y[1] == 2 && y[2] == 3 && y[3] == 4);
  rt_tensor_release(out[0]);
  const int64_t idx[] = {1, 0, 3, 4}, inv[] = {1, 0, 0, 2, 3, 2}, cnt[] = {2, 1, 2, 1};
  expect_i64(out[1], 4, 0, idx);
  expect_i64(out[2], 6, 0, inv);
  expect_i64(out[3], 4, 0, cnt);
  /* In the order of first occurrence: 2, 1, 3, 4. */
  assert_int_equal(run("%x: Tensor[(6), float32]", "unique(%x, sorted=False)", 1, in, out, NULL), 4);
  y = rt_tensor_data(out[0]);
  assert_true(y[0] == 2 && y[1] == 1 && y[2] == 3 && y[3] == 4);
  rt_tensor_release(out[0]);
  const int64_t idx2[] = {0, 1, 3, 4}, inv2[] = {0, 1, 1, 2, 3, 2}, cnt2[] = {1, 2, 2, 1};
  expect_i64(out[1], 4, 0, idx2);
  expect_i64(out[2], 6, 0, inv2);
  expect_i64(out[3], 4, 0, cnt2);
  rt_tensor_release(in[0]);
}

/* Columns of [[1, 1, 0], [0, 0, 2]] along axis 1: (1, 0) twice, then
 * (0, 2), which sorts first. uint8 [200, 3, 200, 7] flattened: 200 is
 * above 127 as unsigned. */
static void test_detect_unique_axis(void **state) {
  (void)state;
  const int64_t s23[] = {2, 3}, s4[] = {4};
  rt_tensor_t *x = NULL, *out[4];
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_INT32, 2, s23, &x));
  const int32_t xv[] = {1, 1, 0, 0, 0, 2};
  memcpy(rt_tensor_data(x), xv, sizeof xv);
  assert_int_equal(run("%x: Tensor[(2, 3), int32]", "unique(%x, axis=-1)", 1, &x, out, NULL), 4);
  assert_int_equal(rt_tensor_rank(out[0]), 2);
  assert_int_equal(rt_tensor_shape(out[0])[0], 2);
  assert_int_equal(rt_tensor_shape(out[0])[1], 2);
  const int32_t *y = rt_tensor_data(out[0]);
  assert_true(y[0] == 0 && y[1] == 1 && y[2] == 2 && y[3] == 0);
  rt_tensor_release(out[0]);
  const int64_t idx[] = {2, 0}, inv[] = {1, 1, 0}, cnt[] = {1, 2};
  expect_i64(out[1], 2, 0, idx);
  expect_i64(out[2], 3, 0, inv);
  expect_i64(out[3], 2, 0, cnt);
  rt_tensor_release(x);
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_UINT8, 1, s4, &x));
  const uint8_t uv[] = {200, 3, 200, 7};
  memcpy(rt_tensor_data(x), uv, sizeof uv);
  assert_int_equal(run("%x: Tensor[(4), uint8]", "unique(%x)", 1, &x, out, NULL), 4);
  const uint8_t *u = rt_tensor_data(out[0]);
  assert_true(rt_tensor_shape(out[0])[0] == 3 && u[0] == 3 && u[1] == 7 && u[2] == 200);
  rt_tensor_release(out[0]);
  const int64_t uidx[] = {1, 3, 0}, uinv[] = {2, 0, 2, 1}, ucnt[] = {1, 1, 2};
  expect_i64(out[1], 3, 0, uidx);
  expect_i64(out[2], 4, 0, uinv);
  expect_i64(out[3], 3, 0, ucnt);
  rt_tensor_release(x);
}

/* out[0] is float32 of `n` values want (1e-5 apart at most). */
static void expect_f32(rt_tensor_t *t, int64_t n, const float *want) {
  assert_int_equal(rt_tensor_numel(t), n);
  const float *v = rt_tensor_data(t);
  for (int64_t i = 0; i < n; ++i) {
    if (!(fabsf(v[i] - want[i]) <= 1e-5f)) {
      print_error("element %lld: %g, expected %g\n", (long long)i, (double)v[i], (double)want[i]);
      fail();
    }
  }
  rt_tensor_release(t);
}

#define RA_SIG "%x: Tensor[(2, 1, 4, 4), float32], %r: Tensor[(1, 5), float32]"

/* Plane 0 is v(y, x) = 4y + x, plane 1 is v + 100: bilinear samples of a
 * linear plane are exact. roi (x1, y1, x2, y2) = (0, 0, 2, 2), one bin,
 * 2 x 2 samples at (.5 | 1.5, .5 | 1.5): 2.5 3.5 6.5 7.5, mean 5.
 * aligned shifts by -.5: samples at 0 and 1: 0 1 4 5, mean 2.5. 2 x 2
 * bins, 1 sample each: the bin centres 2.5 3.5 6.5 7.5. mode max (ONNX
 * Runtime's): the largest weighted corner of each sample, .25 * (5 | 6 |
 * 9 | 10) at (.5, .5) ... (1.5, 1.5): 2.5. */
static void test_detect_roi_align(void **state) {
  (void)state;
  float xv[32];
  for (int32_t i = 0; i < 32; ++i) xv[i] = (float)(i % 16) + (i >= 16 ? 100.0f : 0.0f);
  const int64_t xs[] = {2, 1, 4, 4}, rs[] = {1, 5};
  const float roi0[] = {0, 0, 0, 2, 2}, roi1[] = {1, 0, 0, 4, 4};
  rt_tensor_t *in[2] = {f32(4, xs, xv), f32(2, rs, roi0)}, *out[1];
  assert_int_equal(run(RA_SIG, "vision.roi_align(%x, %r, pooled_size=[1, 1], spatial_scale=1f, sample_ratio=2)",
                       2, in, out, NULL), 1);
  expect_f32(out[0], 1, (const float[]){5});
  assert_int_equal(run(RA_SIG, "vision.roi_align(%x, %r, pooled_size=[1, 1], spatial_scale=1f, aligned=True)", 2,
                       in, out, NULL), 1);
  expect_f32(out[0], 1, (const float[]){2.5f});
  assert_int_equal(run(RA_SIG, "vision.roi_align(%x, %r, pooled_size=[2, 2], spatial_scale=1f, sample_ratio=1)",
                       2, in, out, NULL), 1);
  expect_f32(out[0], 4, (const float[]){2.5f, 3.5f, 6.5f, 7.5f});
  assert_int_equal(run(RA_SIG, "vision.roi_align(%x, %r, pooled_size=[1, 1], spatial_scale=1f, mode=\"max\")", 2,
                       in, out, NULL), 1);
  expect_f32(out[0], 1, (const float[]){2.5f});
  rt_tensor_release(in[1]);
  /* batch 1, corners halved by spatial_scale: the same roi on plane 1 */
  in[1] = f32(2, rs, roi1);
  assert_int_equal(run(RA_SIG, "vision.roi_align(%x, %r, pooled_size=[1, 1], spatial_scale=0.5f)", 2, in, out,
                       NULL), 1);
  expect_f32(out[0], 1, (const float[]){105});
  rt_tensor_release(in[1]);
  const float bad[] = {2, 0, 0, 1, 1};
  in[1] = f32(2, rs, bad);
  rt_status_t st = NULL;
  assert_int_equal(run(RA_SIG, "vision.roi_align(%x, %r, pooled_size=[1, 1], spatial_scale=1f)", 2, in, out, &st),
                   -1);
  assert_status(st, INVALID_ARGUMENT, "vision.roi_align: roi 0's batch index 2 is outside [0, 2)");
  rt_tensor_release(in[0]);
  rt_tensor_release(in[1]);
  /* an empty plane (H 0) samples nothing: 0 */
  const int64_t es[] = {1, 1, 0, 4};
  in[0] = f32(4, es, xv);
  in[1] = f32(2, rs, roi0);
  assert_int_equal(run("%x: Tensor[(1, 1, 0, 4), float32], %r: Tensor[(1, 5), float32]",
                       "vision.roi_align(%x, %r, pooled_size=[1, 1], spatial_scale=1f)", 2, in, out, NULL), 1);
  expect_f32(out[0], 1, (const float[]){0});
  rt_tensor_release(in[0]);
  rt_tensor_release(in[1]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_detect_roi_align),
      cmocka_unit_test(test_detect_nms),
      cmocka_unit_test(test_detect_unique_flat),
      cmocka_unit_test(test_detect_unique_axis),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
