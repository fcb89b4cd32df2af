/* Plans of the nn family (ir/op/plan_nn.h): what each normalises (padding
 * expanded to before/after, one value per spatial dim, layouts as
 * positions, resize modes and roundings as enums with "" resolved,
 * transposes and M/N/K, axes made non-negative), the sizes it derives
 * (`?` in, `?` out), and that it fails with the relation's messages.
 * Expectations are worked out by hand. */
#include <string.h>

#include "ir/op/plan.h"
#include "runtime/mem.h"
#include "plan_test_util.h"
#include "test_util.h"

static rt_module_t *g_m;

static int setup(void **state) {
  (void)state;
  assert_ok(rt_ir_module_create(rt_allocator_system(), &g_m));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rt_module_release(g_m);
  return 0;
}

/* The schema-complete attrs of op from "key=value; key=value" text. */
static const rt_ir_attrs_t *attrs_of(const rt_ir_op_t *op, const char *text) {
  return plan_test_attrs(g_m, op, text);
}

static void test_conv(void **state) {
  (void)state;
  const rt_ir_op_t *op = rt_ir_op_builtin(RT_OP_NN_CONV2D);
  /* NHWC data, HWIO kernel, padding 2 values, one stride for both dims. */
  const int64_t x[4] = {1, 9, RT_DIM_ANY, 4}, w[4] = {3, 3, 2, 8};
  rt_plan_input_t in[2] = {plan_test_input(4, x), plan_test_input(4, w)};
  rt_plan_conv_t p;
  assert_ok(rt_ir_plan_conv(op, attrs_of(op, "strides=[2]; padding=[1, 0]; groups=2; "
                                             "data_layout=\"NHWC\"; kernel_layout=\"HWIO\""),
                            2, in, &p));
  assert_int_equal(p.nsp, 2);
  assert_false(p.transpose);
  assert_int_equal(p.groups, 2);
  assert_int_equal(p.strides[0], 2);
  assert_int_equal(p.strides[1], 2);
  assert_int_equal(p.dilation[1], 1);
  assert_int_equal(p.pad_before[0], 1);
  assert_int_equal(p.pad_after[0], 1);
  assert_int_equal(p.pad_before[1], 0);
  const int32_t dpos[4] = {0, 3, 1, 2}, kpos[4] = {3, 2, 0, 1};
  assert_memory_equal(p.data_pos, dpos, sizeof dpos);
  assert_memory_equal(p.kernel_pos, kpos, sizeof kpos);
  assert_memory_equal(p.out_pos, dpos, sizeof dpos);
  assert_true(p.out_is_data_layout);
  assert_int_equal(p.in_channels, 4);
  assert_int_equal(p.kernel_i, 2);
  assert_int_equal(p.out_channels, 8);
  assert_int_equal(p.kernel_size[0], 3);
  /* H: (9 + 2 - 3) / 2 + 1 = 5; W is `?`. */
  assert_int_equal(p.out_size[0], 5);
  assert_int_equal(p.out_size[1], RT_DIM_ANY);
  const int64_t out[4] = {1, 5, RT_DIM_ANY, 8};
  assert_memory_equal(p.out_shape, out, sizeof out);

  /* Four paddings: top, left, bottom, right; out_layout another order. */
  const int64_t x2[4] = {1, 4, 5, 5}, w2[4] = {6, 4, 3, 3};
  rt_plan_input_t in2[2] = {plan_test_input(4, x2), plan_test_input(4, w2)};
  assert_ok(rt_ir_plan_conv(op, attrs_of(op, "padding=[1, 2, 3, 4]; out_layout=\"NHWC\""), 2,
                            in2, &p));
  assert_int_equal(p.pad_before[0], 1);
  assert_int_equal(p.pad_before[1], 2);
  assert_int_equal(p.pad_after[0], 3);
  assert_int_equal(p.pad_after[1], 4);
  assert_false(p.out_is_data_layout);
  const int64_t out2[4] = {1, 7, 9, 6}; /* H 5+4-2 = 7, W 5+6-2 = 9, NHWC */
  assert_memory_equal(p.out_shape, out2, sizeof out2);

  /* The relation's messages. */
  assert_status(rt_ir_plan_conv(op, attrs_of(op, "groups=0"), 2, in2, &p), INVALID_ARGUMENT,
                "nn.conv2d: groups must be >= 1, got 0");
  assert_status(rt_ir_plan_conv(op, attrs_of(op, "padding=[1, 2, 3]"), 2, in2, &p),
                INVALID_ARGUMENT, "nn.conv2d: attribute 'padding' needs 1, 2 or 4 values, got 3");
  assert_status(rt_ir_plan_conv(op, attrs_of(op, "data_layout=\"NCHH\""), 2, in2, &p),
                INVALID_ARGUMENT, "nn.conv2d: unsupported data_layout \"NCHH\"");
}

static void test_conv1d_and_transpose(void **state) {
  (void)state;
  const rt_ir_op_t *op1 = rt_ir_op_builtin(RT_OP_NN_CONV1D);
  const int64_t x[3] = {2, 3, 10}, w[3] = {4, 3, 3};
  rt_plan_input_t in[2] = {plan_test_input(3, x), plan_test_input(3, w)};
  rt_plan_conv_t p;
  assert_ok(rt_ir_plan_conv(op1, attrs_of(op1, "padding=[2, 1]; dilation=[2]"), 2, in, &p));
  assert_int_equal(p.nsp, 1);
  assert_int_equal(p.pad_before[0], 2);
  assert_int_equal(p.pad_after[0], 1);
  assert_int_equal(p.dilation[0], 2);
  assert_int_equal(p.out_size[0], 9); /* 10 + 3 - 5 + 1 */
  assert_status(rt_ir_plan_conv(op1, attrs_of(op1, "padding=[1, 2, 3]"), 2, in, &p),
                INVALID_ARGUMENT, "nn.conv1d: attribute 'padding' needs 1 or 2 values, got 3");

  const rt_ir_op_t *opt = rt_ir_op_builtin(RT_OP_NN_CONV2D_TRANSPOSE);
  const int64_t xt[4] = {1, 4, 3, 3}, wt[4] = {4, 2, 3, 3}; /* IOHW: I = C, O = O/G */
  rt_plan_input_t int_[2] = {plan_test_input(4, xt), plan_test_input(4, wt)};
  assert_ok(rt_ir_plan_conv(opt, attrs_of(opt, "strides=[2, 2]; padding=[1, 1]; "
                                               "output_padding=[1, 0]; groups=2"),
                            2, int_, &p));
  assert_true(p.transpose);
  assert_int_equal(p.out_channels, 4); /* 2 * groups */
  assert_int_equal(p.output_padding[0], 1);
  /* (3 - 1) * 2 + 3 - 2 + output_padding */
  assert_int_equal(p.out_size[0], 6);
  assert_int_equal(p.out_size[1], 5);
}

static void test_pool(void **state) {
  (void)state;
  const rt_ir_op_t *avg = rt_ir_op_builtin(RT_OP_NN_AVG_POOL2D);
  const int64_t x[4] = {1, 6, 6, 3}; /* NHWC */
  rt_plan_input_t in = plan_test_input(4, x);
  rt_plan_pool_t p;
  assert_ok(rt_ir_plan_pool(avg, attrs_of(avg, "pool_size=[3]; strides=[2]; padding=[1]; "
                                               "layout=\"NHWC\"; ceil_mode=True; "
                                               "count_include_pad=True"),
                            1, &in, &p));
  assert_int_equal(p.kind, RT_PLAN_POOL_WINDOW);
  assert_false(p.is_max);
  assert_true(p.ceil_mode);
  assert_true(p.count_include_pad);
  assert_true(p.out_is_layout);
  const int32_t pos[4] = {0, 3, 1, 2};
  assert_memory_equal(p.pos, pos, sizeof pos);
  assert_int_equal(p.pool_size[1], 3);
  assert_int_equal(p.pad_before[1], 1);
  assert_int_equal(p.pad_after[1], 1);
  /* ceil((6 + 2 - 3) / 2) + 1 = 4 */
  const int64_t out[4] = {1, 4, 4, 3};
  assert_memory_equal(p.out_shape, out, sizeof out);

  const rt_ir_op_t *mx = rt_ir_op_builtin(RT_OP_NN_MAX_POOL1D);
  const int64_t x1[3] = {1, 2, RT_DIM_ANY};
  in = plan_test_input(3, x1);
  assert_ok(rt_ir_plan_pool(mx, attrs_of(mx, "pool_size=[2]; out_layout=\"NWC\""), 1, &in, &p));
  assert_true(p.is_max);
  assert_int_equal(p.nsp, 1);
  assert_false(p.out_is_layout);
  assert_int_equal(p.out_size[0], RT_DIM_ANY);
  assert_status(rt_ir_plan_pool(mx, attrs_of(mx, "pool_size=[0]"), 1, &in, &p),
                INVALID_ARGUMENT, "nn.max_pool1d: pool_size, strides and dilation must be >= 1");

  const rt_ir_op_t *glob = rt_ir_op_builtin(RT_OP_NN_GLOBAL_MAX_POOL2D);
  in = plan_test_input(4, x);
  assert_ok(rt_ir_plan_pool(glob, attrs_of(glob, "layout=\"NHWC\""), 1, &in, &p));
  assert_int_equal(p.kind, RT_PLAN_POOL_GLOBAL);
  const int64_t gout[4] = {1, 1, 1, 3};
  assert_memory_equal(p.out_shape, gout, sizeof gout);

  const rt_ir_op_t *ad = rt_ir_op_builtin(RT_OP_NN_ADAPTIVE_AVG_POOL2D);
  const int64_t xa[4] = {1, 3, 7, 5};
  in = plan_test_input(4, xa);
  assert_ok(rt_ir_plan_pool(ad, attrs_of(ad, "output_size=[2]"), 1, &in, &p));
  assert_int_equal(p.kind, RT_PLAN_POOL_ADAPTIVE);
  assert_int_equal(p.in_size[0], 7);
  assert_int_equal(p.out_size[0], 2);
  assert_int_equal(p.out_size[1], 2);
}

static void test_resize(void **state) {
  (void)state;
  const rt_ir_op_t *op = rt_ir_op_builtin(RT_OP_IMAGE_RESIZE2D);
  const int64_t x[4] = {1, 3, 4, 6};
  rt_plan_input_t in = plan_test_input(4, x);
  rt_plan_resize2d_t p;
  assert_ok(rt_ir_plan_resize2d(op, attrs_of(op, "size=[8, 12]"), 1, &in, &p));
  assert_int_equal(p.method, RT_PLAN_RESIZE_LINEAR);
  assert_int_equal(p.coord, RT_PLAN_COORD_HALF_PIXEL);
  assert_int_equal(p.rounding, RT_PLAN_ROUND_HALF_EVEN);
  assert_true(p.cubic_alpha == -0.5);
  assert_int_equal(p.out_size[0], 8);
  assert_int_equal(p.out_size[1], 12);
  /* "" resolves by coordinate mode. */
  static const struct {
    const char *mode;
    rt_plan_resize_coord_t coord;
    rt_plan_resize_rounding_t rounding;
  } modes[] = {
      {"align_corners", RT_PLAN_COORD_ALIGN_CORNERS, RT_PLAN_ROUND_HALF_EVEN},
      {"tf_half_pixel_for_nn", RT_PLAN_COORD_TF_HALF_PIXEL_FOR_NN, RT_PLAN_ROUND_PREFER_CEIL},
      {"asymmetric", RT_PLAN_COORD_ASYMMETRIC, RT_PLAN_ROUND_FLOOR},
      {"pytorch_half_pixel", RT_PLAN_COORD_PYTORCH_HALF_PIXEL, RT_PLAN_ROUND_FLOOR},
  };
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; ++i) {
    char text[200];
    snprintf(text, sizeof text,
             "size=[2, 2]; method=\"nearest_neighbor\"; rounding_method=\"\"; "
             "coordinate_transformation_mode=\"%s\"",
             modes[i].mode);
    assert_ok(rt_ir_plan_resize2d(op, attrs_of(op, text), 1, &in, &p));
    assert_int_equal(p.method, RT_PLAN_RESIZE_NEAREST);
    assert_int_equal(p.coord, modes[i].coord);
    assert_int_equal(p.rounding, modes[i].rounding);
  }
  assert_ok(rt_ir_plan_resize2d(op, attrs_of(op, "size=[2, 2]; method=\"cubic\"; "
                                                 "rounding_method=\"round_prefer_floor\"; "
                                                 "cubic_alpha=-0.75f; cubic_exclude=1; "
                                                 "layout=\"NHWC\""),
                                1, &in, &p));
  assert_int_equal(p.method, RT_PLAN_RESIZE_CUBIC);
  assert_int_equal(p.rounding, RT_PLAN_ROUND_PREFER_FLOOR);
  assert_true(p.cubic_alpha == -0.75);
  assert_true(p.cubic_exclude);
  const int32_t pos[4] = {0, 3, 1, 2};
  assert_memory_equal(p.pos, pos, sizeof pos);
  assert_status(rt_ir_plan_resize2d(op, attrs_of(op, "size=[2, 2]; method=\"area\""), 1, &in, &p),
                INVALID_ARGUMENT, "image.resize2d: unknown method \"area\"");

  const rt_ir_op_t *up = rt_ir_op_builtin(RT_OP_NN_UPSAMPLING);
  assert_ok(rt_ir_plan_resize2d(up, attrs_of(up, "scale_h=2f; scale_w=1.5f; "
                                                 "method=\"bilinear\"; align_corners=True"),
                                1, &in, &p));
  assert_int_equal(p.method, RT_PLAN_RESIZE_LINEAR);
  assert_int_equal(p.coord, RT_PLAN_COORD_ALIGN_CORNERS);
  assert_int_equal(p.rounding, RT_PLAN_ROUND_HALF_EVEN);
  assert_true(p.cubic_alpha == -0.5);
  assert_true(p.scale[0] == 2 && p.scale[1] == 1.5);
  const int64_t out[4] = {1, 3, 8, 9};
  assert_memory_equal(p.out_shape, out, sizeof out);
}

static void test_matmul(void **state) {
  (void)state;
  const rt_ir_op_t *mm = rt_ir_op_builtin(RT_OP_NN_MATMUL);
  const int64_t a[4] = {2, RT_DIM_ANY, 5, 3}, b[2] = {7, 5};
  rt_plan_input_t in[2] = {plan_test_input(4, a), plan_test_input(2, b)};
  rt_plan_matmul_t p;
  assert_ok(rt_ir_plan_matmul(mm, attrs_of(mm, "transpose_a=True; transpose_b=True"), 2, in, &p));
  assert_true(p.transpose_a && p.transpose_b);
  assert_int_equal(p.m, 3);
  assert_int_equal(p.n, 7);
  assert_int_equal(p.k, 5);
  assert_int_equal(p.batch, RT_DIM_ANY);
  const int64_t out[4] = {2, RT_DIM_ANY, 3, 7};
  assert_memory_equal(p.out_shape, out, sizeof out);

  const rt_ir_op_t *dense = rt_ir_op_builtin(RT_OP_NN_DENSE);
  const int64_t d[2] = {4, 5};
  in[0] = plan_test_input(2, d);
  assert_ok(rt_ir_plan_matmul(dense, attrs_of(dense, "units=7"), 2, in, &p));
  assert_false(p.transpose_a);
  assert_true(p.transpose_b);
  assert_int_equal(p.m, 4);
  assert_int_equal(p.n, 7);
  assert_int_equal(p.k, 5);
  assert_status(rt_ir_plan_matmul(dense, attrs_of(dense, "units=6"), 2, in, &p),
                INVALID_ARGUMENT, "nn.dense: units=6 but weight has 7 outputs");

  const rt_ir_op_t *bmm = rt_ir_op_builtin(RT_OP_NN_BATCH_MATMUL);
  const int64_t x[3] = {1, 4, 5}, y[3] = {6, 3, 5};
  rt_plan_input_t bin[2] = {plan_test_input(3, x), plan_test_input(3, y)};
  assert_ok(rt_ir_plan_matmul(bmm, attrs_of(bmm, "transpose_b=True"), 2, bin, &p));
  assert_int_equal(p.batch, 6);
  assert_int_equal(p.batch_a, 1);
  assert_int_equal(p.batch_b, 6);
  assert_int_equal(p.m, 4);
  assert_int_equal(p.n, 3);
  assert_int_equal(p.k, 5);
}

static void test_norm(void **state) {
  (void)state;
  const int64_t x[3] = {2, 6, 4}, c[1] = {6};
  rt_plan_input_t in[3] = {plan_test_input(3, x), plan_test_input(1, c), plan_test_input(1, c)};
  rt_plan_norm_t p;
  const rt_ir_op_t *sm = rt_ir_op_builtin(RT_OP_NN_LOG_SOFTMAX);
  assert_ok(rt_ir_plan_norm(sm, attrs_of(sm, "axis=-2"), 1, in, &p));
  assert_int_equal(p.axis, 1);
  assert_status(rt_ir_plan_norm(sm, attrs_of(sm, "axis=3"), 1, in, &p), INVALID_ARGUMENT,
                "axis 3 is out of range for rank 3");

  const rt_ir_op_t *gn = rt_ir_op_builtin(RT_OP_NN_GROUP_NORM);
  assert_ok(rt_ir_plan_norm(gn, attrs_of(gn, "num_groups=3; epsilon=0.5f; center=False"), 3, in,
                            &p));
  assert_int_equal(p.axis, 1);
  assert_int_equal(p.channels, 6);
  assert_int_equal(p.num_groups, 3);
  assert_true(p.epsilon == 0.5);
  assert_false(p.center);
  assert_true(p.scale);
  assert_status(rt_ir_plan_norm(gn, attrs_of(gn, "num_groups=4"), 3, in, &p), INVALID_ARGUMENT,
                "nn.group_norm: num_groups 4 does not divide 6 channels");

  const rt_ir_op_t *lrn = rt_ir_op_builtin(RT_OP_NN_LRN);
  assert_ok(rt_ir_plan_norm(lrn, attrs_of(lrn, "size=3; bias=1f"), 1, in, &p));
  assert_int_equal(p.size, 3);
  assert_true(p.bias == 1 && p.beta == 0.75);

  const rt_ir_op_t *l2 = rt_ir_op_builtin(RT_OP_NN_L2_NORMALIZE);
  rt_plan_l2_normalize_t q;
  assert_ok(rt_ir_plan_l2_normalize(l2, attrs_of(l2, "eps=0.1f; axis=[-1]"), 1, in, &q));
  assert_false(q.reduced[0] || q.reduced[1]);
  assert_true(q.reduced[2]);
  assert_ok(rt_ir_plan_l2_normalize(l2, attrs_of(l2, "eps=0.1f"), 1, in, &q));
  assert_true(q.reduced[0] && q.reduced[1] && q.reduced[2]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv),   cmocka_unit_test(test_conv1d_and_transpose),
      cmocka_unit_test(test_pool),   cmocka_unit_test(test_resize),
      cmocka_unit_test(test_matmul), cmocka_unit_test(test_norm),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
