/* The plans of the reduce and transform families (ir/op/plan_reduce.h,
 * ir/op/plan_transform.h) read directly: the normalised values the
 * relations, the reference kernels and the lowerings share, on types with
 * `?` dims and on concrete tensors. The relations' results and messages
 * are test_type_rel's. */
#include <string.h>

#include "ir/ir.h"
#include "ir/op/plan.h"
#include "plan_test_util.h"
#include "test_util.h"

typedef struct fixture_t {
  rt_module_t *m;
  const rt_ir_op_t *op;
  const rt_ir_attrs_t *attrs;
} fixture_t;

/* The op's attrs from "key=value; ..." (Relay text values), defaults
 * filled. */
static void setup_op(fixture_t *f, const char *op_name, const char *text) {
  assert_ok(rt_ir_module_create(rt_allocator_system(), &f->m));
  f->op = rt_ir_op_lookup(op_name, strlen(op_name));
  assert_non_null(f->op);
  f->attrs = plan_test_attrs(f->m, f->op, text);
}

static void teardown_op(fixture_t *f) { rt_module_release(f->m); }

static void test_plan_reduce_axes(void **state) {
  (void)state;
  const int64_t shape[3] = {2, 3, 4};
  rt_plan_input_t in = plan_test_input(3, shape);
  rt_plan_reduce_t p;
  fixture_t f;
  /* Negative, repeated and unsorted axes: non-negative, sorted, once. */
  setup_op(&f, "sum", "axis=[-1, 0, -1]");
  assert_ok(rt_ir_plan_reduce(f.op, f.attrs, 1, &in, &p));
  assert_int_equal(p.naxes, 2);
  assert_int_equal(p.axes[0], 0);
  assert_int_equal(p.axes[1], 2);
  assert_int_equal(p.out_rank, 1);
  assert_int_equal(p.out_shape[0], 3);
  teardown_op(&f);
  setup_op(&f, "max", "axis=[2, 0]; keepdims=True; exclude=True");
  assert_ok(rt_ir_plan_reduce(f.op, f.attrs, 1, &in, &p));
  assert_int_equal(p.naxes, 1);
  assert_int_equal(p.axes[0], 1);
  assert_int_equal(p.out_rank, 3);
  assert_int_equal(p.out_shape[0], 2);
  assert_int_equal(p.out_shape[1], 1);
  assert_int_equal(p.out_shape[2], 4);
  teardown_op(&f);
  /* axis None reduces everything; exclude is then ignored (TVM). */
  setup_op(&f, "argmax", "exclude=True; select_last_index=True");
  assert_ok(rt_ir_plan_reduce(f.op, f.attrs, 1, &in, &p));
  assert_int_equal(p.naxes, 3);
  assert_int_equal(p.out_rank, 0);
  assert_true(p.select_last_index);
  teardown_op(&f);
  setup_op(&f, "variance", "axis=[1]; unbiased=True");
  assert_ok(rt_ir_plan_reduce(f.op, f.attrs, 1, &in, &p));
  assert_true(p.unbiased);
  assert_int_equal(p.naxes, 1);
  teardown_op(&f);
  setup_op(&f, "sum", "axis=[3]");
  rt_status_t st = rt_ir_plan_reduce(f.op, f.attrs, 1, &in, &p);
  assert_int_equal(rt_status_code(st), RT_STATUS_INVALID_ARGUMENT);
  assert_string_equal(rt_status_message(st), "axis 3 is out of range for rank 3");
  rt_status_free(st);
  teardown_op(&f);
}

static void test_plan_strided_slice(void **state) {
  (void)state;
  fixture_t f;
  rt_plan_strided_slice_t p;
  /* A `?` dim keeps `?` begin and extent; strides past begin's count
   * apply to the whole axis. */
  const int64_t shape[3] = {RT_DIM_ANY, 6, 5};
  rt_plan_input_t in = plan_test_input(3, shape);
  setup_op(&f, "strided_slice", "begin=[0, 1]; end=[1, 5]; strides=[1, 2, 2]");
  assert_ok(rt_ir_plan_strided_slice(f.attrs, 1, &in, &p));
  assert_int_equal(p.rank, 3);
  assert_true(p.begin[0] == RT_DIM_ANY && p.extent[0] == RT_DIM_ANY);
  assert_int_equal(p.begin[1], 1);
  assert_int_equal(p.stride[1], 2);
  assert_int_equal(p.extent[1], 2);
  assert_int_equal(p.begin[2], 0);
  assert_int_equal(p.stride[2], 2);
  assert_int_equal(p.extent[2], 3);
  teardown_op(&f);
  /* Negative stride: begin clamped to dim - 1; stride INT64_MIN is one
   * step (its magnitude 2^63 does not overflow). */
  const int64_t six[1] = {6};
  in = plan_test_input(1, six);
  setup_op(&f, "strided_slice", "begin=[100]; end=[-100]; strides=[-9223372036854775808]");
  assert_ok(rt_ir_plan_strided_slice(f.attrs, 1, &in, &p));
  assert_int_equal(p.begin[0], 5);
  assert_int_equal(p.extent[0], 1);
  teardown_op(&f);
  /* slice_mode "size": end is a size from the begin; strides ignored. */
  setup_op(&f, "strided_slice", "begin=[-4]; end=[2]; strides=[3]; slice_mode=\"size\"");
  assert_ok(rt_ir_plan_strided_slice(f.attrs, 1, &in, &p));
  assert_int_equal(p.begin[0], 2);
  assert_int_equal(p.stride[0], 1);
  assert_int_equal(p.extent[0], 2);
  teardown_op(&f);
}

static void test_plan_transform_others(void **state) {
  (void)state;
  fixture_t f;
  const int64_t shape[4] = {1, 6, 1, 2};
  rt_plan_input_t in = plan_test_input(4, shape);
  {
    rt_plan_transpose_t p;
    setup_op(&f, "transpose", "axes=[0, -1, 1, 2]");
    assert_ok(rt_ir_plan_transpose(f.attrs, 1, &in, &p));
    assert_int_equal(p.perm[1], 3);
    assert_int_equal(p.out_shape[1], 2);
    teardown_op(&f);
  }
  {
    rt_plan_pad_t p;
    const int64_t v[1] = {1};
    rt_plan_input_t ins[2] = {in, plan_test_input(0, v)};
    setup_op(&f, "nn.pad", "pad_width=[[0, 0], [1, 2], [0, 0], [3, 0]]; pad_mode=\"reflect\"");
    assert_ok(rt_ir_plan_pad(f.attrs, 2, ins, &p));
    assert_int_equal(p.mode, RT_PAD_REFLECT);
    assert_int_equal(p.before[1], 1);
    assert_int_equal(p.after[1], 2);
    assert_int_equal(p.out_shape[1], 9);
    assert_int_equal(p.out_shape[3], 5);
    teardown_op(&f);
  }
  {
    rt_plan_take_t p;
    const int64_t ishape[2] = {1, 5};
    rt_plan_input_t ins[2] = {in, plan_test_input(2, ishape)};
    setup_op(&f, "take", "axis=-1; batch_dims=-2; mode=\"wrap\"");
    assert_ok(rt_ir_plan_take(f.attrs, 2, ins, &p));
    assert_false(p.flat);
    assert_int_equal(p.axis, 3);
    assert_int_equal(p.batch_dims, 0);
    assert_int_equal(p.mode, RT_TAKE_WRAP);
    assert_int_equal(p.out_rank, 5);
    teardown_op(&f);
  }
  {
    /* A split that does not divide: the kernels pad it (the outer dim
     * rounds up), the relation rejects it. */
    rt_plan_layout_transform_t p;
    setup_op(&f, "layout_transform", "src_layout=\"NCHW\"; dst_layout=\"NCHW4c\"");
    assert_ok(rt_ir_plan_layout_transform(f.attrs, 1, &in, &p));
    assert_true(p.split_pads);
    assert_int_equal(p.dst_rank, 5);
    assert_int_equal(p.out_shape[1], 2);
    assert_int_equal(p.out_shape[4], 4);
    assert_int_equal(p.dst_primal[1], 1);
    assert_int_equal(p.dst_split[1], 4);
    assert_int_equal(p.dst_inner[1], 4);
    teardown_op(&f);
  }
  {
    rt_plan_subpixel_t p;
    const int64_t nhwc[4] = {1, 2, 3, 8};
    rt_plan_input_t x = plan_test_input(4, nhwc);
    setup_op(&f, "nn.depth_to_space", "block_size=2; layout=\"NHWC\"; mode=\"CRD\"");
    assert_ok(rt_ir_plan_subpixel(f.op, f.attrs, 1, &x, &p));
    assert_true(p.to_space);
    assert_int_equal(p.mode, RT_SUBPIXEL_CRD);
    assert_int_equal(p.pos[1], 3);
    assert_int_equal(p.out_shape[1], 4);
    assert_int_equal(p.out_shape[3], 2);
    teardown_op(&f);
  }
  {
    rt_plan_split_t p;
    setup_op(&f, "split", "indices_or_sections=[2, 5]; axis=1");
    assert_ok(rt_ir_plan_split(f.attrs, 1, &in, &p));
    assert_int_equal(p.pieces, 3);
    assert_int_equal(p.sections, 0);
    int64_t b, e;
    rt_ir_plan_split_piece(&p, 6, 2, &b, &e);
    assert_int_equal(b, 5);
    assert_int_equal(e, 1);
    teardown_op(&f);
    setup_op(&f, "split", "indices_or_sections=3; axis=1");
    assert_ok(rt_ir_plan_split(f.attrs, 1, &in, &p));
    assert_int_equal(p.sections, 3);
    rt_ir_plan_split_piece(&p, 6, 2, &b, &e);
    assert_int_equal(b, 4);
    assert_int_equal(e, 2);
    teardown_op(&f);
  }
}

/* At run time: the same plan from a concrete tensor. */
static void test_plan_of_tensor(void **state) {
  (void)state;
  rt_tensor_t *t = NULL;
  const int64_t shape[2] = {4, 3};
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, shape, &t));
  rt_plan_input_t in;
  rt_ir_plan_input_of_tensor(t, &in);
  fixture_t f;
  rt_plan_strided_slice_t p;
  setup_op(&f, "strided_slice", "begin=[-1]; end=[0]; strides=[-2]");
  assert_ok(rt_ir_plan_strided_slice(f.attrs, 1, &in, &p));
  assert_int_equal(p.begin[0], 3);
  assert_int_equal(p.stride[0], -2);
  assert_int_equal(p.extent[0], 2);
  assert_int_equal(p.extent[1], 3);
  teardown_op(&f);
  rt_tensor_release(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plan_reduce_axes),
      cmocka_unit_test(test_plan_strided_slice),
      cmocka_unit_test(test_plan_transform_others),
      cmocka_unit_test(test_plan_of_tensor),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
