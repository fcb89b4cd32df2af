/* The op table: every ops.def line is reachable by id and by name, names
 * are unique, patterns and arities are sane, every schema default parses
 * and prints back to its own text, rt_ir_op_attrs fills defaults and
 * reports unknown/duplicate/missing/ill-typed attributes, generic attrs
 * are copied, and run-time registration (including from several threads)
 * works and refuses taken names. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"
#include "test_util.h"

static void test_op_table_lookup(void **state) {
  (void)state;
  assert_true(rt_ir_op_count() >= RT_OP_COUNT);
  for (int32_t id = 0; id < RT_OP_COUNT; ++id) {
    const rt_ir_op_t *op = rt_ir_op_builtin((rt_op_id_t)id);
    assert_non_null(op);
    assert_int_equal(op->id, id);
    assert_ptr_equal(rt_ir_op_at(id), op);
    assert_ptr_equal(rt_ir_op_lookup(op->name, strlen(op->name)), op);
    assert_non_null(op->type_rel);
    assert_non_null(op->doc);
    assert_true(op->num_inputs >= 0 && op->num_inputs <= 5);
    assert_true(op->num_fields == 0 || op->defaults != NULL);
    for (int32_t j = 0; j < id; ++j) {
      assert_string_not_equal(rt_ir_op_builtin((rt_op_id_t)j)->name, op->name);
    }
  }
  /* Lengths are honoured: no NUL needed, prefixes do not match. */
  assert_ptr_equal(rt_ir_op_lookup("nn.conv2dXYZ", 9), rt_ir_op_builtin(RT_OP_NN_CONV2D));
  assert_null(rt_ir_op_lookup("nn.conv", 7));
  assert_null(rt_ir_op_lookup("nn.conv2d_", 10));
  assert_null(rt_ir_op_lookup("no.such_op", 10));
  assert_null(rt_ir_op_lookup("", 0));
  assert_ptr_equal(rt_ir_op_lookup("add", 3), rt_ir_op_builtin(RT_OP_ADD));
}

static void test_op_table_arity_and_patterns(void **state) {
  (void)state;
  static const struct { const char *name; int32_t n; rt_op_pattern_t p; } want[] = {
      {"concatenate", 1, RT_OP_PATTERN_INJECTIVE},
      {"stack", 1, RT_OP_PATTERN_INJECTIVE},
      {"nn.pad", 2, RT_OP_PATTERN_INJECTIVE},
      {"full", 1, RT_OP_PATTERN_ELEMWISE},
      {"zeros", 0, RT_OP_PATTERN_ELEMWISE},
      {"ones", 0, RT_OP_PATTERN_ELEMWISE},
      {"arange", 3, RT_OP_PATTERN_OPAQUE},
      {"where", 3, RT_OP_PATTERN_BROADCAST},
      {"one_hot", 3, RT_OP_PATTERN_OUT_ELEMWISE_FUSABLE},
      {"nn.prelu", 2, RT_OP_PATTERN_BROADCAST},
      {"nn.batch_norm", 5, RT_OP_PATTERN_OUT_ELEMWISE_FUSABLE},
      {"nn.layer_norm", 3, RT_OP_PATTERN_OPAQUE},
      {"nn.group_norm", 3, RT_OP_PATTERN_OPAQUE},
      {"nn.instance_norm", 3, RT_OP_PATTERN_OPAQUE},
      {"nn.dropout", 1, RT_OP_PATTERN_OPAQUE},
      {"variance", 2, RT_OP_PATTERN_COMM_REDUCE},
      {"cast_like", 2, RT_OP_PATTERN_ELEMWISE},
      {"full_like", 2, RT_OP_PATTERN_ELEMWISE},
      {"reshape_like", 2, RT_OP_PATTERN_INJECTIVE},
      {"nn.conv2d", 2, RT_OP_PATTERN_OUT_ELEMWISE_FUSABLE},
      {"add", 2, RT_OP_PATTERN_BROADCAST},
      {"exp", 1, RT_OP_PATTERN_ELEMWISE},
      {"sum", 1, RT_OP_PATTERN_COMM_REDUCE},
      {"expand_dims", 1, RT_OP_PATTERN_BROADCAST},
      {"shape_of", 1, RT_OP_PATTERN_OPAQUE},
  };
  for (size_t i = 0; i < RT_COUNTOF(want); ++i) {
    const rt_ir_op_t *op = rt_ir_op_lookup(want[i].name, strlen(want[i].name));
    assert_non_null(op);
    assert_int_equal(op->num_inputs, want[i].n);
    assert_int_equal(op->pattern, want[i].p);
  }
}

/* Each default prints back to its schema text; required fields hold NONE. */
static void test_op_table_defaults_round_trip(void **state) {
  (void)state;
  for (int32_t id = 0; id < rt_ir_op_count(); ++id) {
    const rt_ir_op_t *op = rt_ir_op_at(id);
    for (int32_t i = 0; i < op->num_fields; ++i) {
      const rt_attr_field_t *f = &op->fields[i];
      if (!f->default_text) {
        assert_int_equal(op->defaults[i].kind, RT_ATTR_NONE);
        continue;
      }
      rt_strbuf_t sb;
      rt_strbuf_initialize(&sb);
      rt_attr_value_print(&op->defaults[i], &sb);
      if (strcmp(sb.data, f->default_text) != 0) {
        fail_msg("%s.%s: default %s prints as %s", op->name, f->name, f->default_text,
                 sb.data);
      }
      rt_strbuf_deinitialize(&sb);
    }
  }
  /* Defaults are TVM's C++ ones (what its text parser uses), where they
   * differ from its Python API's: leaky_relu alpha, batch_matmul
   * transpose_b, lrn alpha. */
  const rt_ir_op_t *lr = rt_ir_op_builtin(RT_OP_NN_LEAKY_RELU);
  assert_true(lr->defaults[0].kind == RT_ATTR_FLOAT && lr->defaults[0].f == 0.25);
  const rt_ir_op_t *bm = rt_ir_op_builtin(RT_OP_NN_BATCH_MATMUL);
  assert_string_equal(bm->fields[2].name, "transpose_b");
  assert_false(bm->defaults[2].b);
  const rt_ir_op_t *lrn = rt_ir_op_builtin(RT_OP_NN_LRN);
  assert_string_equal(lrn->fields[3].name, "alpha");
  assert_true(lrn->defaults[3].f == 1e-4);
  const rt_ir_op_t *dense = rt_ir_op_builtin(RT_OP_NN_DENSE);
  assert_true(dense->fields[0].flags & RT_ATTR_F_ALWAYS_PRINT);
}

static rt_module_t *new_module(void) {
  rt_module_t *m = NULL;
  assert_ok(rt_ir_module_create(rt_allocator_system(), &m));
  return m;
}

static void test_op_table_op_attrs(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  const rt_ir_op_t *conv = rt_ir_op_builtin(RT_OP_NN_CONV2D);
  rt_ir_span_t span = {0};
  rt_ir_attrs_t *a = NULL;
  /* Defaults only. */
  assert_ok(rt_ir_op_attrs(m, span, conv, 0, NULL, NULL, &a));
  assert_int_equal(a->count, conv->num_fields);
  assert_string_equal(a->keys[0], "strides");
  assert_int_equal(rt_attrs_ints_count(a, "strides"), 2);
  assert_int_equal(rt_attrs_ints_at(a, "strides", 1), 1);
  assert_int_equal(rt_attrs_int(a, "groups"), 1);
  assert_true(rt_attrs_is_none(a, "channels"));
  assert_int_equal(rt_attrs_ints_count(a, "kernel_size"), 0);
  assert_string_equal(rt_attrs_string(a, "data_layout"), "NCHW");
  assert_string_equal(rt_attrs_string(a, "out_dtype"), "");
  /* Given values land in schema order, converted. */
  const char *keys[] = {"groups", "strides", "out_dtype"};
  rt_attr_value_t values[3];
  assert_ok(rt_attr_value_parse(&m->arena, "True", &values[0]));
  assert_ok(rt_attr_value_parse(&m->arena, "2", &values[1]));
  assert_ok(rt_attr_value_parse(&m->arena, "\"int32\"", &values[2]));
  assert_ok(rt_ir_op_attrs(m, span, conv, 3, keys, values, &a));
  assert_int_equal(rt_attrs_int(a, "groups"), 1);
  assert_int_equal(rt_attrs_ints_count(a, "strides"), 1);
  assert_int_equal(rt_attrs_ints_at(a, "strides", 0), 2);
  assert_string_equal(rt_attrs_string(a, "out_dtype"), "int32");
  assert_int_equal(rt_attrs_get(a, "padding")->kind, RT_ATTR_ARRAY);
  /* Errors. */
  const char *bad_key[] = {"stride"};
  assert_status(rt_ir_op_attrs(m, span, conv, 1, bad_key, values, &a), INVALID_ARGUMENT,
                "unknown attribute 'stride' for nn.conv2d (known: strides, padding,");
  const char *dup[] = {"groups", "groups"};
  assert_status(rt_ir_op_attrs(m, span, conv, 2, dup, values, &a), INVALID_ARGUMENT,
                "duplicate attribute 'groups' for nn.conv2d");
  const char *dt[] = {"out_dtype"};
  rt_attr_value_t bad;
  assert_ok(rt_attr_value_parse(&m->arena, "\"floaty\"", &bad));
  assert_status(rt_ir_op_attrs(m, span, conv, 1, dt, &bad, &a), INVALID_ARGUMENT,
                "attribute 'out_dtype' of nn.conv2d expects a dtype, got \"floaty\"");
  assert_status(rt_ir_op_attrs(m, span, rt_ir_op_builtin(RT_OP_RESHAPE), 0, NULL, NULL, &a),
                INVALID_ARGUMENT, "reshape requires attribute 'newshape'");
  const char *none_key[] = {"groups"};
  rt_attr_value_t none = {.kind = RT_ATTR_NONE};
  assert_status(rt_ir_op_attrs(m, span, conv, 1, none_key, &none, &a), INVALID_ARGUMENT,
                "attribute 'groups' of nn.conv2d expects an int, got None");
  rt_module_release(m);
}

static void test_op_table_generic_attrs(void **state) {
  (void)state;
  rt_module_t *m = new_module();
  char key[] = "Primitive";
  const char *keys[] = {key, "hash"};
  rt_attr_value_t values[2];
  assert_ok(rt_attr_value_parse(&m->arena, "1", &values[0]));
  assert_ok(rt_attr_value_parse(&m->arena, "\"9332b3872fb5292c\"", &values[1]));
  rt_ir_attrs_t *a = NULL;
  assert_ok(rt_ir_generic_attrs(m, 2, keys, values, &a));
  key[0] = 'X'; /* copied */
  assert_int_equal(a->count, 2);
  assert_string_equal(a->keys[0], "Primitive");
  assert_int_equal(a->values[0].i, 1);
  assert_string_equal(a->values[1].s, "9332b3872fb5292c");
  assert_ok(rt_ir_generic_attrs(m, 0, NULL, NULL, &a));
  assert_int_equal(a->count, 0);
  rt_module_release(m);
}

static rt_status_t my_rel(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out) {
  *out = ctx->args[0];
  return RT_OK;
}

static const rt_attr_field_t k_my_fields[] = {
    {"scale", RT_ATTR_K_FLOAT, "2f", 0},
    {"mode", RT_ATTR_K_STRING, NULL, 0},
};

static void test_op_table_register(void **state) {
  (void)state;
  int32_t before = rt_ir_op_count();
  rt_ir_op_t def = {0};
  def.name = "test.my_op";
  def.num_inputs = 1;
  def.pattern = RT_OP_PATTERN_ELEMWISE;
  def.fields = k_my_fields;
  def.num_fields = 2;
  def.type_rel = my_rel;
  def.doc = "a test op";
  const rt_ir_op_t *op = NULL;
  assert_ok(rt_ir_op_register(&def, &op));
  assert_non_null(op);
  assert_true(op->id >= RT_OP_COUNT);
  assert_ptr_not_equal(op->name, def.name); /* copied */
  assert_ptr_equal(rt_ir_op_lookup("test.my_op", 10), op);
  assert_int_equal(rt_ir_op_count(), before + 1);
  assert_ptr_equal(rt_ir_op_at(op->id), op);
  assert_true(op->defaults[0].kind == RT_ATTR_FLOAT && op->defaults[0].f == 2.0);
  assert_int_equal(op->defaults[1].kind, RT_ATTR_NONE);
  const rt_ir_op_t *again = NULL;
  assert_status(rt_ir_op_register(&def, &again), ALREADY_EXISTS, "already registered");
  def.name = "nn.conv2d";
  assert_status(rt_ir_op_register(&def, &again), ALREADY_EXISTS, "built-in");
  rt_attr_field_t bad_fields[] = {{"x", RT_ATTR_K_INT, "1.5", 0}};
  def.name = "test.bad_default";
  def.fields = bad_fields;
  def.num_fields = 1;
  assert_status(rt_ir_op_register(&def, &again), INVALID_ARGUMENT, "default of attribute 'x'");
  assert_null(rt_ir_op_lookup("test.bad_default", 16));
  def.name = "test.no_rel";
  def.type_rel = NULL;
  assert_status(rt_ir_op_register(&def, &again), INVALID_ARGUMENT, "type relation");
  /* Attrs of a registered op. */
  rt_module_t *m = new_module();
  rt_ir_attrs_t *a = NULL;
  rt_ir_span_t span = {0};
  assert_status(rt_ir_op_attrs(m, span, op, 0, NULL, NULL, &a), INVALID_ARGUMENT,
                "test.my_op requires attribute 'mode'");
  rt_module_release(m);
}

#define NTHREADS 4
#define PER_THREAD 16

static void *register_many(void *arg) {
  intptr_t t = (intptr_t)arg;
  for (int i = 0; i < PER_THREAD; ++i) {
    char name[64];
    snprintf(name, sizeof name, "test.thread%d_%d", (int)t, i);
    rt_ir_op_t def = {0};
    def.name = name;
    def.num_inputs = 1;
    def.type_rel = my_rel;
    const rt_ir_op_t *op = NULL;
    rt_status_t st = rt_ir_op_register(&def, &op);
    if (st || rt_ir_op_lookup(name, strlen(name)) != op) {
      rt_status_free(st);
      return (void *)1;
    }
    if (!rt_ir_op_lookup("nn.dense", 8)) return (void *)1;
  }
  return NULL;
}

static void test_op_table_register_threads(void **state) {
  (void)state;
  int32_t before = rt_ir_op_count();
  pthread_t threads[NTHREADS];
  for (intptr_t t = 0; t < NTHREADS; ++t) {
    assert_int_equal(pthread_create(&threads[t], NULL, register_many, (void *)t), 0);
  }
  for (int t = 0; t < NTHREADS; ++t) {
    void *ret = NULL;
    pthread_join(threads[t], &ret);
    assert_null(ret);
  }
  assert_int_equal(rt_ir_op_count(), before + NTHREADS * PER_THREAD);
  for (int32_t i = before; i < rt_ir_op_count(); ++i) {
    assert_int_equal(rt_ir_op_at(i)->id, i);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_op_table_lookup),
      cmocka_unit_test(test_op_table_arity_and_patterns),
      cmocka_unit_test(test_op_table_defaults_round_trip),
      cmocka_unit_test(test_op_table_op_attrs),
      cmocka_unit_test(test_op_table_generic_attrs),
      cmocka_unit_test(test_op_table_register),
      cmocka_unit_test(test_op_table_register_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
