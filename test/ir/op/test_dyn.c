/* The dyn family's contract (ir/op/dyn.h), which the vm's run-time
 * specialization codes against: which operands are read for values, and
 * the rewrite of dyn calls with constant values into static calls. The
 * relations are in test_type_rel.c, the kernels in test/interp/test_dyn.c,
 * the pass in test/passes/golden/dynamic_to_static_*.relay. */
#include <string.h>

#include "ir/ir.h"
#include "ir/op/dyn.h"
#include "ir/op/op_attrs.h"
#include "test_util.h"

static void test_dyn_reads_value(void **state) {
  (void)state;
  assert_true(rt_ir_op_reads_value(RT_OP_DYN_RESHAPE, 1));
  assert_false(rt_ir_op_reads_value(RT_OP_DYN_RESHAPE, 0));
  assert_false(rt_ir_op_reads_value(RT_OP_DYN_STRIDED_SLICE, 0));
  for (int32_t i = 1; i <= 4; ++i) assert_true(rt_ir_op_reads_value(RT_OP_DYN_STRIDED_SLICE, i));
  assert_false(rt_ir_op_reads_value(RT_OP_DYN_STRIDED_SLICE, 5));
  assert_false(rt_ir_op_reads_value(RT_OP_DYN_FULL, 0));
  assert_true(rt_ir_op_reads_value(RT_OP_DYN_FULL, 1));
  assert_false(rt_ir_op_reads_value(RT_OP_DYN_NN_PAD, 2)); /* pad_value is data */
  assert_true(rt_ir_op_reads_value(RT_OP_DYN_ONE_HOT, 3));
  assert_false(rt_ir_op_reads_value(RT_OP_DYN_ONE_HOT, 1));
  assert_false(rt_ir_op_reads_value(RT_OP_DYN_TOPK, -1));
  /* Every dyn op reads some operand; no other op reads any. */
  for (int32_t id = 0; id < RT_OP_COUNT; ++id) {
    const char *name = rt_ir_op_builtin((rt_op_id_t)id)->name;
    bool any = false;
    for (int32_t i = 0; i < 8; ++i) any = any || rt_ir_op_reads_value(id, i);
    assert_int_equal(any, strncmp(name, "dyn.", 4) == 0);
  }
  assert_false(rt_ir_op_reads_value(RT_OP_COUNT + 5, 1));
}

typedef struct fixture {
  rt_module_t *m;
  rt_ir_expr_t *x, *s; /* @main's params: Tensor[(2, 3), float32], Tensor[(2), int64] */
} fixture;

static void setup(fixture *f) {
  static const char text[] = "#[version = \"0.0.5\"]\n"
                             "def @main(%x: Tensor[(2, 3), float32], %s: Tensor[(2), int64]) { %x }\n";
  assert_ok(rt_module_parse(text, strlen(text), "dyn.relay", &f->m));
  assert_ok(rt_ir_infer_types(f->m));
  rt_ir_expr_t *fn = rt_ir_module_lookup(f->m, "main");
  f->x = fn->fn.params[0];
  f->s = fn->fn.params[1];
}

static rt_ir_expr_t *constant(fixture *f, rt_dtype_t dt, int64_t n, const double *v) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), dt, 1, &n, &t));
  for (int64_t i = 0; i < n; ++i) {
    if (dt.code == kDLFloat) ((float *)rt_tensor_data(t))[i] = (float)v[i];
    else ((int64_t *)rt_tensor_data(t))[i] = (int64_t)v[i];
  }
  rt_ir_expr_t *c = NULL;
  assert_ok(rt_ir_constant(f->m, (rt_ir_span_t){0}, t, &c));
  rt_tensor_release(t);
  return c;
}

static rt_ir_expr_t *call(fixture *f, rt_op_id_t id, int32_t n, rt_ir_expr_t **args, const char *key,
                          const rt_attr_value_t *value) {
  const rt_ir_op_t *op = rt_ir_op_builtin(id);
  rt_ir_expr_t *callee = NULL, *e = NULL;
  rt_ir_attrs_t *attrs = NULL;
  assert_ok(rt_ir_op_ref(f->m, (rt_ir_span_t){0}, op, &callee));
  assert_ok(rt_ir_op_attrs(f->m, (rt_ir_span_t){0}, op, key ? 1 : 0, &key, value, &attrs));
  assert_ok(rt_ir_call(f->m, (rt_ir_span_t){0}, callee, n, args, attrs, &e));
  return e;
}

static void assert_op(const rt_ir_expr_t *e, rt_op_id_t id) {
  assert_int_equal(e->kind, RT_IR_CALL);
  assert_int_equal(e->call.callee->kind, RT_IR_OP);
  assert_int_equal(e->call.callee->op.op->id, id);
}

/* dyn.tile(x, const (2, 1)) -> tile(x, reps=[2, 1]); with a var as reps
 * it stays; float reps are an error naming the op. */
static void test_dyn_to_static_tile(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  rt_ir_expr_t *args[2] = {f.x, constant(&f, RT_DTYPE_INT64, 2, (double[]){2, 1})};
  rt_ir_expr_t *e = call(&f, RT_OP_DYN_TILE, 2, args, NULL, NULL), *out = NULL;
  assert_ok(rt_ir_dyn_to_static(f.m, e, &out));
  assert_op(out, RT_OP_TILE);
  assert_ptr_equal(out->call.args[0], f.x);
  const rt_attrs_tile_t a = rt_ir_attrs_tile(out->call.attrs);
  assert_int_equal(a.reps.count, 2);
  assert_int_equal(rt_attr_list_int(a.reps, 0), 2);
  assert_int_equal(rt_attr_list_int(a.reps, 1), 1);

  rt_ir_expr_t *vargs[2] = {f.x, f.s};
  e = call(&f, RT_OP_DYN_TILE, 2, vargs, NULL, NULL);
  assert_ok(rt_ir_dyn_to_static(f.m, e, &out));
  assert_ptr_equal(out, e);

  rt_ir_expr_t *bad[2] = {f.x, constant(&f, RT_DTYPE_FLOAT32, 2, (double[]){2, 1})};
  e = call(&f, RT_OP_DYN_TILE, 2, bad, NULL, NULL);
  assert_status(rt_ir_dyn_to_static(f.m, e, &out), INVALID_ARGUMENT,
                "dyn.tile: reps must be a 0-d or 1-d int tensor");
  rt_module_release(f.m);
}

/* dyn.expand_dims(x, const (-1, 0), rank=4) -> expand_dims(expand_dims(x,
 * axis=0), axis=3): one per new axis, ascending; a wrong rank is an
 * error. dyn.reshape -> reshape. */
static void test_dyn_to_static_chain(void **state) {
  (void)state;
  fixture f;
  setup(&f);
  rt_ir_expr_t *args[2] = {f.x, constant(&f, RT_DTYPE_INT64, 2, (double[]){-1, 0})};
  const rt_attr_value_t rank4 = {.kind = RT_ATTR_INT, .i = 4}, rank3 = {.kind = RT_ATTR_INT, .i = 3};
  rt_ir_expr_t *e = call(&f, RT_OP_DYN_EXPAND_DIMS, 2, args, "rank", &rank4), *out = NULL;
  assert_ok(rt_ir_dyn_to_static(f.m, e, &out));
  assert_op(out, RT_OP_EXPAND_DIMS);
  assert_int_equal(rt_ir_attrs_expand_dims(out->call.attrs).axis, 3);
  rt_ir_expr_t *inner = out->call.args[0];
  assert_op(inner, RT_OP_EXPAND_DIMS);
  assert_int_equal(rt_ir_attrs_expand_dims(inner->call.attrs).axis, 0);
  assert_ptr_equal(inner->call.args[0], f.x);

  e = call(&f, RT_OP_DYN_EXPAND_DIMS, 2, args, "rank", &rank3);
  assert_status(rt_ir_dyn_to_static(f.m, e, &out), INVALID_ARGUMENT, "the rank attribute");

  rt_ir_expr_t *rargs[2] = {f.x, constant(&f, RT_DTYPE_INT64, 2, (double[]){3, -1})};
  e = call(&f, RT_OP_DYN_RESHAPE, 2, rargs, NULL, NULL);
  assert_ok(rt_ir_dyn_to_static(f.m, e, &out));
  assert_op(out, RT_OP_RESHAPE);
  const rt_attrs_reshape_t r = rt_ir_attrs_reshape(out->call.attrs);
  assert_int_equal(r.newshape.count, 2);
  assert_int_equal(rt_attr_list_int(r.newshape, 1), -1);
  rt_module_release(f.m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dyn_reads_value),
      cmocka_unit_test(test_dyn_to_static_tile),
      cmocka_unit_test(test_dyn_to_static_chain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
