/* ONNX importer tests: good models import with the right signature, and
 * bad ones — truncated or garbage bytes, a missing initializer, an
 * unsupported op, an opset out of range, external data that escapes the
 * model's folder or runs past its file — give the documented status and a
 * message naming what is wrong, never a crash.
 *
 * Models are built here with the protobuf-c structs generated from
 * onnx.proto and packed to bytes, so each test states its model in a few
 * lines; external data tests write files into a fresh temporary folder.
 * The importer gets the reference interpreter as its constant evaluator,
 * as rt_module_load gives it (backend/load.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend/onnx/onnx.h"
#include "interp/evaluator.h"
#include "ir/ir.h"
#include "onnx.pb-c.h"
#include "rt/executor.h"
#include "test_util.h"
#include "runtime/mem.h"
#include "runtime/strbuf.h"

/* The evaluator every import gets (set up in main). */
static rt_interp_evaluator_t g_eval;

/* ---- model building ------------------------------------------------------ */

typedef struct model_builder {
  Onnx__ModelProto model;
  Onnx__OperatorSetIdProto opset;
  Onnx__OperatorSetIdProto *opsets[1];
  Onnx__GraphProto graph;
  Onnx__NodeProto node;
  Onnx__NodeProto *nodes[1];
  char *node_inputs[2];
  char *node_outputs[1];
  Onnx__ValueInfoProto in_vi, out_vi;
  Onnx__ValueInfoProto *inputs[1], *outputs[1];
  Onnx__TypeProto in_type, out_type;
  Onnx__TypeProto__Tensor in_tt, out_tt;
  Onnx__TensorShapeProto in_shape;
  Onnx__TensorShapeProto__Dimension dims[2];
  Onnx__TensorShapeProto__Dimension *dimp[2];
  Onnx__TensorProto init;
  Onnx__TensorProto *inits[1];
  Onnx__StringStringEntryProto ext[3];
  Onnx__StringStringEntryProto *extp[3];
  int64_t init_dims[1];
  float init_data[2];
} model_builder;

/* y = OP(x[, w]) with x: float32 (N, 2), N a dim_param; w an initializer
 * of 2 floats when with_init. */
static void build(model_builder *b, const char *op, int64_t opset, bool two_inputs,
                  bool with_init) {
  memset(b, 0, sizeof *b);
  onnx__model_proto__init(&b->model);
  onnx__operator_set_id_proto__init(&b->opset);
  onnx__graph_proto__init(&b->graph);
  onnx__node_proto__init(&b->node);
  onnx__value_info_proto__init(&b->in_vi);
  onnx__value_info_proto__init(&b->out_vi);
  onnx__type_proto__init(&b->in_type);
  onnx__type_proto__tensor__init(&b->in_tt);
  onnx__tensor_shape_proto__init(&b->in_shape);
  onnx__tensor_proto__init(&b->init);
  for (int i = 0; i < 2; ++i) {
    onnx__tensor_shape_proto__dimension__init(&b->dims[i]);
    b->dimp[i] = &b->dims[i];
  }
  b->model.has_ir_version = 1;
  b->model.ir_version = 8;
  b->opset.has_version = 1;
  b->opset.version = opset;
  b->opset.domain = "";
  b->opsets[0] = &b->opset;
  b->model.n_opset_import = 1;
  b->model.opset_import = b->opsets;
  b->model.graph = &b->graph;
  b->node.op_type = (char *)op;
  b->node.name = "the_node";
  b->node_inputs[0] = "x";
  b->node_inputs[1] = "w";
  b->node.n_input = two_inputs ? 2 : 1;
  b->node.input = b->node_inputs;
  b->node_outputs[0] = "y";
  b->node.n_output = 1;
  b->node.output = b->node_outputs;
  b->nodes[0] = &b->node;
  b->graph.n_node = 1;
  b->graph.node = b->nodes;
  b->dims[0].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
  b->dims[0].dim_param = "N";
  b->dims[1].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
  b->dims[1].dim_value = 2;
  b->in_shape.n_dim = 2;
  b->in_shape.dim = b->dimp;
  b->in_tt.has_elem_type = 1;
  b->in_tt.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  b->in_tt.shape = &b->in_shape;
  b->in_type.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  b->in_type.tensor_type = &b->in_tt;
  b->in_vi.name = "x";
  b->in_vi.type = &b->in_type;
  b->inputs[0] = &b->in_vi;
  b->graph.n_input = 1;
  b->graph.input = b->inputs;
  b->out_vi.name = "y";
  b->outputs[0] = &b->out_vi;
  b->graph.n_output = 1;
  b->graph.output = b->outputs;
  if (with_init) {
    b->init.name = "w";
    b->init.has_data_type = 1;
    b->init.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    b->init_dims[0] = 2;
    b->init.n_dims = 1;
    b->init.dims = b->init_dims;
    b->init_data[0] = 1.5f;
    b->init_data[1] = -2.0f;
    b->init.n_float_data = 2;
    b->init.float_data = b->init_data;
    b->inits[0] = &b->init;
    b->graph.n_initializer = 1;
    b->graph.initializer = b->inits;
  }
}

/* Makes w's data external: location, offset, length as given. */
static void make_external(model_builder *b, const char *location, const char *offset,
                          const char *length) {
  b->init.n_float_data = 0;
  b->init.float_data = NULL;
  b->init.has_data_location = 1;
  b->init.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  const char *keys[3] = {"location", "offset", "length"};
  const char *vals[3] = {location, offset, length};
  size_t n = 0;
  for (int i = 0; i < 3; ++i) {
    if (!vals[i]) continue;
    onnx__string_string_entry_proto__init(&b->ext[n]);
    b->ext[n].key = (char *)keys[i];
    b->ext[n].value = (char *)vals[i];
    b->extp[n] = &b->ext[n];
    n++;
  }
  b->init.n_external_data = n;
  b->init.external_data = b->extp;
}

static uint8_t *pack(model_builder *b, size_t *out_size) {
  size_t n = onnx__model_proto__get_packed_size(&b->model);
  uint8_t *buf = rt_mem_alloc(n ? n : 1);
  assert_non_null(buf);
  assert_int_equal(onnx__model_proto__pack(&b->model, buf), n);
  *out_size = n;
  return buf;
}

static rt_status_t import(model_builder *b, const char *dir, rt_module_t **out) {
  size_t n = 0;
  uint8_t *buf = pack(b, &n);
  rt_status_t st = rt_onnx_import_memory(buf, n, "test.onnx", dir, NULL, &g_eval.base, out);
  rt_mem_free(buf);
  return st;
}

/* A fresh folder with `name` holding `size` bytes. */
static char *temp_dir_with(const char *name, const void *data, size_t size) {
  char tmpl[] = "/tmp/rt-onnx-test-XXXXXX";
  char *dir = mkdtemp(tmpl);
  assert_non_null(dir);
  dir = rt_mem_strdup(dir);
  if (name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
  }
  return dir;
}

static void remove_dir(char *dir, const char *name) {
  char path[512];
  if (name) {
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
  }
  rmdir(dir);
  rt_mem_free(dir);
}

/* ---- tests ----------------------------------------------------------------- */

static void test_onnx_import_good_model(void **state) {
  model_builder b;
  build(&b, "Add", 13, true, true);
  rt_module_t *m = NULL;
  assert_ok(import(&b, NULL, &m));
  rt_ir_expr_t *fn = rt_ir_module_lookup(m, "main");
  assert_non_null(fn);
  assert_int_equal(fn->fn.nparams, 1); /* w is an initializer: a constant */
  const rt_ir_type_t *t = rt_ir_type_resolve(fn->fn.params[0]->checked_type);
  assert_int_equal(t->tensor.rank, 2);
  assert_int_equal(t->tensor.shape[0], RT_DIM_ANY); /* dim_param N */
  assert_int_equal(t->tensor.shape[1], 2);
  char *text = NULL;
  assert_ok(rt_module_print(m, RT_PRINT_NO_METADATA, &text));
  assert_non_null(strstr(text, "add(%x"));
  free(text);
  rt_module_release(m);
}

/* Load-time input shapes: the dim_param N becomes 5, the result follows;
 * a shape for an initializer or an unknown name, or one that contradicts
 * the static dim, is refused naming the input. */
static rt_status_t import_shaped(model_builder *b, int32_t n, const rt_input_shape_t *shapes,
                                 rt_module_t **out) {
  size_t size = 0;
  uint8_t *buf = pack(b, &size);
  rt_module_load_options_t lo = {.num_input_shapes = n, .input_shapes = shapes};
  rt_status_t st = rt_onnx_import_memory(buf, size, "test.onnx", NULL, &lo, &g_eval.base, out);
  rt_mem_free(buf);
  return st;
}

static void test_onnx_import_input_shapes(void **state) {
  (void)state;
  model_builder b;
  build(&b, "Add", 13, true, true);
  const int64_t d52[2] = {5, 2}, d53[2] = {5, 3};
  rt_input_shape_t s = {"x", 2, d52};
  rt_module_t *m = NULL;
  assert_ok(import_shaped(&b, 1, &s, &m));
  rt_strbuf_t t;
  rt_strbuf_initialize(&t);
  rt_ir_type_print(rt_ir_module_lookup(m, "main")->checked_type, &t);
  assert_string_equal(t.data, "fn (Tensor[(5, 2), float32]) -> Tensor[(5, 2), float32]");
  rt_strbuf_deinitialize(&t);
  rt_module_release(m);
  s.dims = d53;
  assert_status(import_shaped(&b, 1, &s, &m), INVALID_ARGUMENT,
                "test.onnx: input 'x' is declared (?, 2); the shape given has 3 for its static dim 1");
  s = (rt_input_shape_t){"w", 1, d52};
  assert_status(import_shaped(&b, 1, &s, &m), INVALID_ARGUMENT, "'w', which is not a graph input");
  s = (rt_input_shape_t){"nope", 2, d52};
  assert_status(import_shaped(&b, 1, &s, &m), INVALID_ARGUMENT, "'nope', which is not a graph input");
  assert_status(import_shaped(&b, 1, NULL, &m), INVALID_ARGUMENT, "bad input shapes");
}

static void test_onnx_import_initializer_listed_as_input(void **state) {
  model_builder b;
  build(&b, "Mul", 9, true, true);
  /* Old exporters list initializers among the inputs too. */
  Onnx__ValueInfoProto wvi = ONNX__VALUE_INFO_PROTO__INIT;
  wvi.name = "w";
  wvi.type = &b.in_type;
  Onnx__ValueInfoProto *ins[2] = {&b.in_vi, &wvi};
  b.graph.n_input = 2;
  b.graph.input = ins;
  rt_module_t *m = NULL;
  assert_ok(import(&b, NULL, &m));
  assert_int_equal(rt_ir_module_lookup(m, "main")->fn.nparams, 1);
  rt_module_release(m);
}

static void test_onnx_import_truncated(void **state) {
  model_builder b;
  build(&b, "Add", 13, true, true);
  size_t n = 0;
  uint8_t *buf = pack(&b, &n);
  rt_module_t *m = NULL;
  for (size_t cut = 1; cut < n; cut += 7) {
    rt_status_t st = rt_onnx_import_memory(buf, n - cut, "cut.onnx", NULL, NULL, &g_eval.base, &m);
    /* Some prefixes are valid protobuf; those must fail with a clear
     * model error instead (no graph, no outputs, ...). */
    assert_non_null(st);
    assert_non_null(strstr(rt_status_message(st), "cut.onnx"));
    rt_status_free(st);
  }
  rt_mem_free(buf);
  assert_status(rt_onnx_import_memory("\x0a\xff\xff\xff\x0f", 5, "t.onnx", NULL, NULL, &g_eval.base,
                                      &m),
                DATA_LOSS, "malformed or truncated");
}

static void test_onnx_import_garbage(void **state) {
  rt_module_t *m = NULL;
  const char junk[] = "\xff\xfe\xfd this is not a protobuf \x07\x08";
  assert_status(rt_onnx_import_memory(junk, sizeof junk, "junk.onnx", NULL, NULL, &g_eval.base,
                                      &m),
                DATA_LOSS, "junk.onnx: not a valid ONNX model");
  assert_status(rt_onnx_import_memory("", 0, "empty.onnx", NULL, NULL, &g_eval.base, &m),
                INVALID_ARGUMENT, "no opset");
  assert_status(rt_onnx_import_file("/nonexistent/dir/m.onnx", NULL, &g_eval.base, &m),
                NOT_FOUND, "m.onnx");
}

static void test_onnx_import_missing_initializer(void **state) {
  model_builder b;
  build(&b, "Add", 13, true, false);
  rt_module_t *m = NULL;
  assert_status(import(&b, NULL, &m), INVALID_ARGUMENT,
                "node 0 'the_node' (Add, opset 13): input 'w' is not defined");
}

static void test_onnx_import_unsupported_op(void **state) {
  model_builder b;
  build(&b, "FrobnicateV2", 15, false, false);
  rt_module_t *m = NULL;
  assert_status(import(&b, NULL, &m), UNIMPLEMENTED,
                "test.onnx: node 0 'the_node' (FrobnicateV2, opset 15): unsupported op FrobnicateV2");
  build(&b, "Relu", 0, false, false);
  assert_status(import(&b, NULL, &m), UNIMPLEMENTED, "opset 0 of the default domain");
  build(&b, "Add", 6, true, true);
  Onnx__AttributeProto bc = ONNX__ATTRIBUTE_PROTO__INIT;
  bc.name = "broadcast";
  bc.has_i = 1;
  bc.i = 1;
  bc.has_type = 1;
  bc.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  Onnx__AttributeProto *attrs[1] = {&bc};
  b.node.n_attribute = 1;
  b.node.attribute = attrs;
  assert_status(import(&b, NULL, &m), UNIMPLEMENTED, "attribute 'broadcast' of opsets before 7");
  build(&b, "Relu", 19, false, false);
  assert_status(import(&b, NULL, &m), UNIMPLEMENTED, "7 to 18");
}

static void test_onnx_import_inconsistent_types(void **state) {
  model_builder b;
  build(&b, "Add", 13, true, true);
  b.init_dims[0] = 3; /* (N, 2) + (3,) does not broadcast; data count too */
  rt_module_t *m = NULL;
  assert_status(import(&b, NULL, &m), INVALID_ARGUMENT, "tensor 'w' has 8 bytes");
  b.init_dims[0] = 2;
  b.init.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT32; /* float data, int32 type */
  assert_status(import(&b, NULL, &m), INVALID_ARGUMENT, "tensor 'w'");
  build(&b, "MatMul", 13, true, true);
  b.init_dims[0] = 2;
  b.dims[1].dim_value = 5; /* (N, 5) x (2,) */
  assert_status(import(&b, NULL, &m), INVALID_ARGUMENT, "inconsistent types");
}

static void test_onnx_import_external_data(void **state) {
  float data[3] = {0.0f, 1.5f, -2.0f}; /* w = data[1..2] at offset 4 */
  char *dir = temp_dir_with("w.bin", data, sizeof data);
  model_builder b;
  build(&b, "Add", 13, true, true);
  make_external(&b, "w.bin", "4", "8");
  rt_module_t *m = NULL;
  assert_ok(import(&b, dir, &m));
  rt_ir_expr_t *body = rt_ir_module_lookup(m, "main")->fn.body;
  assert_int_equal(body->kind, RT_IR_CALL);
  rt_ir_expr_t *c = body->call.args[1];
  assert_int_equal(c->kind, RT_IR_CONSTANT);
  const float *v = rt_tensor_data(c->constant.value);
  assert_true(v[0] == 1.5f && v[1] == -2.0f);
  rt_module_release(m);

  make_external(&b, "w.bin", "8", NULL); /* 8 + 8 > 12 bytes */
  assert_status(import(&b, dir, &m), OUT_OF_RANGE, "past the end of 'w.bin'");
  make_external(&b, "w.bin", "99999999999", NULL);
  assert_status(import(&b, dir, &m), OUT_OF_RANGE, "past the end");
  make_external(&b, "../w.bin", NULL, NULL);
  assert_status(import(&b, dir, &m), NOT_FOUND, "w.bin");
  make_external(&b, "/etc/passwd", NULL, NULL);
  assert_status(import(&b, dir, &m), INVALID_ARGUMENT, "must be a relative path");
  make_external(&b, "w.bin", NULL, NULL);
  assert_status(import(&b, NULL, &m), INVALID_ARGUMENT, "not loaded from a file");
  make_external(&b, "w.bin", "-4", NULL);
  assert_status(import(&b, dir, &m), INVALID_ARGUMENT, "bad external data offset");
  remove_dir(dir, "w.bin");
}

static void test_onnx_import_external_data_escape(void **state) {
  /* A file that exists one level up must still be refused. */
  float data[2] = {1.0f, 2.0f};
  char *outer = temp_dir_with("secret.bin", data, sizeof data);
  char inner[512];
  snprintf(inner, sizeof inner, "%s/model", outer);
  assert_int_equal(mkdir(inner, 0700), 0);
  model_builder b;
  build(&b, "Add", 13, true, true);
  make_external(&b, "../secret.bin", NULL, NULL);
  rt_module_t *m = NULL;
  assert_status(import(&b, inner, &m), INVALID_ARGUMENT, "escapes the model's folder");
  make_external(&b, "sub/../../secret.bin", NULL, NULL);
  assert_status(import(&b, inner, &m), NOT_FOUND, NULL);
  rmdir(inner);
  remove_dir(outer, "secret.bin");
}

static void test_onnx_import_load_dispatch(void **state) {
  model_builder b;
  build(&b, "Relu", 13, false, false);
  size_t n = 0;
  uint8_t *buf = pack(&b, &n);
  char *dir = temp_dir_with("m.onnx", buf, n);
  rt_mem_free(buf);
  char path[512];
  snprintf(path, sizeof path, "%s/m.onnx", dir);
  rt_module_t *m = NULL;
  assert_ok(rt_module_load(path, &m));
  rt_module_release(m);
  remove_dir(dir, "m.onnx");
  assert_status(rt_module_load("model.pb", &m), INVALID_ARGUMENT, "unknown model format");
}

/* Import-time folding (frontend/onnx/fold.c): with x bound to a constant,
 * Add(x, w) is computed by the evaluator (the reference kernel) and @main
 * returns a constant; without an evaluator the call stays. */
static rt_status_t import_folding(model_builder *b, const rt_ir_evaluator_t *eval,
                                  rt_module_t **out) {
  const int64_t shape[2] = {3, 2};
  rt_tensor_t *x = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, shape, &x));
  float *xd = rt_tensor_data(x);
  for (int i = 0; i < 6; ++i) xd[i] = (float)i * 0.25f;
  const char *names[1] = {"x"};
  rt_tensor_t *values[1] = {x};
  rt_module_load_options_t lo = {.num_constant_inputs = 1, .constant_input_names = names,
                                 .constant_input_values = values};
  size_t size = 0;
  uint8_t *buf = pack(b, &size);
  rt_status_t st = rt_onnx_import_memory(buf, size, "test.onnx", NULL, &lo, eval, out);
  rt_mem_free(buf);
  rt_tensor_release(x);
  return st;
}

static void test_onnx_import_folds_with_evaluator(void **state) {
  model_builder b;
  build(&b, "Add", 13, true, true);
  rt_module_t *m = NULL;
  assert_ok(import_folding(&b, &g_eval.base, &m));
  rt_ir_expr_t *fn = rt_ir_module_lookup(m, "main");
  assert_non_null(fn);
  assert_int_equal(fn->fn.nparams, 0);
  assert_int_equal(fn->fn.body->kind, RT_IR_CONSTANT);
  const rt_tensor_t *y = fn->fn.body->constant.value;
  assert_int_equal(rt_tensor_numel(y), 6);
  const float *yd = rt_tensor_data(y);
  const float w[2] = {1.5f, -2.0f};
  for (int i = 0; i < 6; ++i) assert_true(yd[i] == (float)i * 0.25f + w[i % 2]);
  rt_module_release(m);

  assert_ok(import_folding(&b, NULL, &m));
  fn = rt_ir_module_lookup(m, "main");
  assert_non_null(fn);
  assert_int_equal(fn->fn.body->kind, RT_IR_CALL);
  rt_module_release(m);
}

/* The type of @main of test/frontend/wild/CASE/model.onnx (made by
 * scripts/make-wild-models), or the load's status. */
static rt_status_t wild_main_type(const char *wcase, char *type, size_t size) {
  const char *src = getenv("RT_TEST_SRCDIR");
  assert_non_null(src);
  char path[1024];
  snprintf(path, sizeof path, "%s/frontend/wild/%s/model.onnx", src, wcase);
  rt_module_t *m = NULL;
  rt_status_t st = rt_module_load(path, &m);
  if (st) return st;
  rt_ir_expr_t *fn = rt_ir_module_lookup(m, "main");
  assert_non_null(fn);
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_ir_type_print(fn->checked_type, &b);
  snprintf(type, size, "%s", b.data ? b.data : "");
  rt_strbuf_deinitialize(&b);
  rt_module_release(m);
  return RT_OK;
}

/* MatMul with `?` batch and matrix dims imports (batch_matmul, reshapes
 * with `?`), and an If whose branches' shapes differ is typed with their
 * join; different ranks fork the rest of the graph, refused naming the
 * construct when the graph's outputs still differ in rank. */
static void test_onnx_import_wild_types(void **state) {
  (void)state;
  char t[512];
  assert_ok(wild_main_type("c2_matmul_3x3", t, sizeof t));
  assert_string_equal(t, "fn (Tensor[(?, ?, 64), float32], Tensor[(?, 64, ?), float32]) -> "
                         "Tensor[(?, ?, ?), float32]");
  assert_ok(wild_main_type("c2_matmul_4x4", t, sizeof t));
  assert_string_equal(t, "fn (Tensor[(?, ?, ?, 16), float32], Tensor[(?, ?, 16, ?), float32]) -> "
                         "Tensor[(?, ?, ?, ?), float32]");
  assert_ok(wild_main_type("c2_matmul_4x3", t, sizeof t));
  assert_string_equal(t, "fn (Tensor[(?, ?, ?, 8), float32], Tensor[(?, 8, ?), float32]) -> "
                         "Tensor[(?, ?, ?, ?), float32]");
  assert_ok(wild_main_type("c5_if_same_rank", t, sizeof t));
  assert_string_equal(t, "fn (Tensor[(2, ?, 4), float32], float32) -> Tensor[(2, ?, ?), float32]");
  /* Different ranks: the graph after the If is converted once per branch,
   * under the condition; the graph's output must then agree in rank. */
  assert_ok(wild_main_type("c5_if_different_rank_flatten", t, sizeof t));
  assert_string_equal(t, "fn (Tensor[(2, ?, 4), float32], float32) -> Tensor[(2, ?), float32]");
  assert_status(wild_main_type("c5_if_different_rank", t, sizeof t), UNIMPLEMENTED,
                "node 1 '' (If): its branches' outputs differ in rank, and so do the graph's "
                "outputs (then Tensor[(2, 1, ?, 4), float32], else Tensor[(2, ?, 4), float32]): a "
                "graph output whose rank depends on a condition known only at run time is not "
                "supported");
}

/* ---- h1 (issue 19): loss functions and other decompositions ---------------
 * One node whose first input "x" is a float graph input and whose other
 * inputs are initializers, run on the debug executor; expected values are
 * computed by hand in the comments. */

typedef struct loss_init {
  const char *name;
  int32_t type;          /* ONNX__TENSOR_PROTO__DATA_TYPE__* (FLOAT or INT64) */
  int64_t dims[2];
  int32_t rank;
  const float *f;
  const int64_t *i;
} loss_init;

typedef struct loss_model {
  model_builder b;
  Onnx__NodeProto node;
  char *in_names[5], *out_names[3];
  Onnx__AttributeProto attrs[2];
  Onnx__AttributeProto *attrp[2];
  Onnx__TensorProto inits[4];
  Onnx__TensorProto *initp[4];
  Onnx__ValueInfoProto out_vi[3];
  Onnx__ValueInfoProto *outp[3];
} loss_model;

/* OP(x (rows, cols), inits...) -> nout outputs, with `reduction` (NULL:
 * absent) and ignore_index (when has_ii). */
static void build_node(loss_model *lm, const char *op, int64_t opset, int64_t rows, int64_t cols,
                       int32_t ninit, const loss_init *init, const char *reduction,
                       const char *int_attr, int64_t int_val, int32_t nout);

static void build_loss(loss_model *lm, const char *op, int64_t rows, int64_t cols, int32_t ninit,
                       const loss_init *init, const char *reduction, bool has_ii, int64_t ii,
                       int32_t nout) {
  build_node(lm, op, 13, rows, cols, ninit, init, reduction, has_ii ? "ignore_index" : NULL, ii,
             nout);
}

/* OP(x (rows, cols) unless rows is 0, inits...) -> nout outputs, with the
 * string attribute `reduction` and the int attribute int_attr = int_val
 * (each left out when NULL). */
static void build_node(loss_model *lm, const char *op, int64_t opset, int64_t rows, int64_t cols,
                       int32_t ninit, const loss_init *init, const char *reduction,
                       const char *int_attr, int64_t int_val, int32_t nout) {
  build(&lm->b, op, opset, false, false);
  int32_t nx = rows ? 1 : 0;
  if (!rows) lm->b.graph.n_input = 0;
  lm->b.dims[0].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
  lm->b.dims[0].dim_value = rows;
  lm->b.dims[1].dim_value = cols;
  if (nx) lm->in_names[0] = "x";
  for (int32_t k = 0; k < ninit; ++k) {
    Onnx__TensorProto *t = &lm->inits[k];
    onnx__tensor_proto__init(t);
    t->name = (char *)init[k].name;
    t->has_data_type = 1;
    t->data_type = init[k].type;
    t->n_dims = (size_t)init[k].rank;
    t->dims = (int64_t *)init[k].dims;
    int64_t n = 1;
    for (int32_t d = 0; d < init[k].rank; ++d) n *= init[k].dims[d];
    if (init[k].f) {
      t->n_float_data = (size_t)n;
      t->float_data = (float *)init[k].f;
    } else {
      t->n_int64_data = (size_t)n;
      t->int64_data = (int64_t *)init[k].i;
    }
    lm->initp[k] = t;
    lm->in_names[k + nx] = (char *)init[k].name;
  }
  lm->b.graph.n_initializer = (size_t)ninit;
  lm->b.graph.initializer = lm->initp;
  lm->b.node.n_input = (size_t)(ninit + nx);
  lm->b.node.input = lm->in_names;
  size_t na = 0;
  if (reduction) {
    onnx__attribute_proto__init(&lm->attrs[na]);
    lm->attrs[na].name = "reduction";
    lm->attrs[na].has_type = 1;
    lm->attrs[na].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    lm->attrs[na].has_s = 1;
    lm->attrs[na].s.data = (uint8_t *)reduction;
    lm->attrs[na].s.len = strlen(reduction);
    lm->attrp[na] = &lm->attrs[na];
    na++;
  }
  if (int_attr) {
    onnx__attribute_proto__init(&lm->attrs[na]);
    lm->attrs[na].name = (char *)int_attr;
    lm->attrs[na].has_type = 1;
    lm->attrs[na].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    lm->attrs[na].has_i = 1;
    lm->attrs[na].i = int_val;
    lm->attrp[na] = &lm->attrs[na];
    na++;
  }
  lm->b.node.n_attribute = na;
  lm->b.node.attribute = lm->attrp;
  static char *const outs[3] = {"y", "out1", "out2"};
  for (int32_t k = 0; k < nout; ++k) {
    onnx__value_info_proto__init(&lm->out_vi[k]);
    lm->out_vi[k].name = outs[k];
    lm->outp[k] = &lm->out_vi[k];
    lm->out_names[k] = outs[k];
  }
  lm->b.node.n_output = (size_t)nout;
  lm->b.node.output = lm->out_names;
  lm->b.graph.n_output = (size_t)nout;
  lm->b.graph.output = lm->outp;
}

/* Runs the model on x (rows*cols floats; NULL: no input) and checks output k against
 * want[0 .. nwant-1] (within 1e-5). */
static void run_loss(loss_model *lm, const float *x, int32_t k, int32_t nwant,
                     const double *want) {
  rt_module_t *m = NULL;
  assert_ok(import(&lm->b, NULL, &m));
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ex));
  const int64_t shape[2] = {lm->b.dims[0].dim_value, lm->b.dims[1].dim_value};
  rt_tensor_t *xt = NULL;
  if (x) {
    assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, shape, &xt));
    memcpy(rt_tensor_data(xt), x, sizeof(float) * (size_t)(shape[0] * shape[1]));
    assert_ok(rt_executor_set_input(ex, 0, xt));
  }
  assert_ok(rt_executor_run(ex));
  rt_tensor_t *y = NULL;
  assert_ok(rt_executor_get_output(ex, k, &y));
  assert_int_equal(rt_tensor_numel(y), nwant);
  const float *yd = rt_tensor_data(y);
  for (int32_t i = 0; i < nwant; ++i) {
    if (fabs((double)yd[i] - want[i]) > 1e-5) {
      fail_msg("output %d[%d] = %g, want %g", (int)k, (int)i, (double)yd[i], want[i]);
    }
  }
  if (xt) rt_tensor_release(xt); /* y is borrowed from ex */
  rt_executor_release(ex);
  rt_module_release(m);
}

/* NegativeLogLikelihoodLoss on x = [[-1, -2, -3], [-4, -5, -6]] (N 2, C 3):
 *  target [2, 1], weight [0.5, 2, 4]:
 *    none: [3*4, 5*2] = [12, 10]; sum 22; mean 22 / (4 + 2) = 11/3;
 *    ignore_index 1: none [12, 0], mean 12 / 4 = 3 (the ignored weight
 *    leaves the divisor);
 *  no weight: mean (3 + 5) / 2 = 4; target [2, -1] with ignore_index -1
 *  (outside [0, C)): none [3, 0], mean 3 / 1 = 3. */
static void test_onnx_import_nll_loss(void **state) {
  (void)state;
  static const float x[6] = {-1, -2, -3, -4, -5, -6};
  static const int64_t t21[2] = {2, 1}, t2m1[2] = {2, -1};
  static const float w[3] = {0.5f, 2, 4};
  const loss_init tw[2] = {{"t", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, {2}, 1, NULL, t21},
                           {"w", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, {3}, 1, w, NULL}};
  const loss_init tneg[1] = {{"t", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, {2}, 1, NULL, t2m1}};
  loss_model lm;
  build_loss(&lm, "NegativeLogLikelihoodLoss", 2, 3, 2, tw, "none", false, 0, 1);
  run_loss(&lm, x, 0, 2, (const double[]){12, 10});
  build_loss(&lm, "NegativeLogLikelihoodLoss", 2, 3, 2, tw, "sum", false, 0, 1);
  run_loss(&lm, x, 0, 1, (const double[]){22});
  build_loss(&lm, "NegativeLogLikelihoodLoss", 2, 3, 2, tw, NULL, false, 0, 1);
  run_loss(&lm, x, 0, 1, (const double[]){22.0 / 6.0});
  build_loss(&lm, "NegativeLogLikelihoodLoss", 2, 3, 2, tw, "none", true, 1, 1);
  run_loss(&lm, x, 0, 2, (const double[]){12, 0});
  build_loss(&lm, "NegativeLogLikelihoodLoss", 2, 3, 2, tw, "mean", true, 1, 1);
  run_loss(&lm, x, 0, 1, (const double[]){3});
  build_loss(&lm, "NegativeLogLikelihoodLoss", 2, 3, 1, tw, "mean", false, 0, 1);
  run_loss(&lm, x, 0, 1, (const double[]){4});
  build_loss(&lm, "NegativeLogLikelihoodLoss", 2, 3, 1, tneg, "none", true, -1, 1);
  run_loss(&lm, x, 0, 2, (const double[]){3, 0});
  build_loss(&lm, "NegativeLogLikelihoodLoss", 2, 3, 1, tneg, "mean", true, -1, 1);
  run_loss(&lm, x, 0, 1, (const double[]){3});

  /* Bad input: a target of the input's rank or of another N, an unknown
   * reduction. */
  static const int64_t t2x1[2] = {2, 1};
  const loss_init bad[1] = {{"t", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, {2, 1}, 2, NULL, t2x1}};
  rt_module_t *m = NULL;
  build_loss(&lm, "NegativeLogLikelihoodLoss", 2, 3, 1, bad, NULL, false, 0, 1);
  assert_status(import(&lm.b, NULL, &m), INVALID_ARGUMENT,
                "(NegativeLogLikelihoodLoss, opset 13): target must have the input's rank minus 1");
  static const int64_t t3[3] = {0, 1, 2};
  const loss_init bad3[1] = {{"t", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, {3}, 1, NULL, t3}};
  build_loss(&lm, "NegativeLogLikelihoodLoss", 2, 3, 1, bad3, NULL, false, 0, 1);
  assert_status(import(&lm.b, NULL, &m), INVALID_ARGUMENT,
                "target's shape must be the input's without axis 1 (N, d1 ...)");
  build_loss(&lm, "NegativeLogLikelihoodLoss", 2, 3, 1, tneg, "max", false, 0, 1);
  assert_status(import(&lm.b, NULL, &m), INVALID_ARGUMENT,
                "(NegativeLogLikelihoodLoss, opset 13): reduction must be none, sum or mean");
}

/* SoftmaxCrossEntropyLoss on x = [[0, 0], [0, ln 3]] (N 2, C 2), target
 * [1, 1]: log_softmax rows [-ln 2, -ln 2] and [-ln 4, ln 3 - ln 4]; loss
 * [ln 2, ln 4 - ln 3], mean their half-sum; the second output is the
 * log_softmax itself. */
static void test_onnx_import_softmax_cross_entropy(void **state) {
  (void)state;
  const float x[4] = {0, 0, 0, (float)log(3.0)};
  static const int64_t t11[2] = {1, 1};
  const loss_init t[1] = {{"t", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, {2}, 1, NULL, t11}};
  const double l0 = log(2.0), l1 = log(4.0) - log(3.0);
  loss_model lm;
  build_loss(&lm, "SoftmaxCrossEntropyLoss", 2, 2, 1, t, "none", false, 0, 2);
  run_loss(&lm, x, 0, 2, (const double[]){l0, l1});
  run_loss(&lm, x, 1, 4, (const double[]){-l0, -l0, -log(4.0), log(3.0) - log(4.0)});
  build_loss(&lm, "SoftmaxCrossEntropyLoss", 2, 2, 1, t, NULL, false, 0, 1);
  run_loss(&lm, x, 0, 1, (const double[]){(l0 + l1) / 2});
}

/* The windows of a size known at import (a constant; the node suite
 * passes the size as a graph input, the arange path): HannWindow size 4
 * periodic, angles n pi/2: 0.5 - 0.5 cos = [0, 0.5, 1, 0.5]; symmetric
 * size 3, angles n pi: [0, 1, 0]; BlackmanWindow size 4, 0.42 - 0.5 cos(a)
 * + 0.08 cos(2a): [0, 0.34, 1, 0.34]; HammingWindow size 2 periodic,
 * 25/46 - 21/46 cos(n pi): [4/46, 1]. */
static void test_onnx_import_windows(void **state) {
  (void)state;
  static const int64_t s4 = 4, s3 = 3, s2 = 2;
  const loss_init i4[1] = {{"n", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, {0}, 0, NULL, &s4}};
  const loss_init i3[1] = {{"n", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, {0}, 0, NULL, &s3}};
  const loss_init i2[1] = {{"n", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, {0}, 0, NULL, &s2}};
  loss_model lm;
  build_node(&lm, "HannWindow", 17, 0, 0, 1, i4, NULL, NULL, 0, 1);
  run_loss(&lm, NULL, 0, 4, (const double[]){0, 0.5, 1, 0.5});
  build_node(&lm, "HannWindow", 17, 0, 0, 1, i3, NULL, "periodic", 0, 1);
  run_loss(&lm, NULL, 0, 3, (const double[]){0, 1, 0});
  build_node(&lm, "BlackmanWindow", 17, 0, 0, 1, i4, NULL, NULL, 0, 1);
  run_loss(&lm, NULL, 0, 4, (const double[]){0, 0.34, 1, 0.34});
  build_node(&lm, "HammingWindow", 17, 0, 0, 1, i2, NULL, NULL, 0, 1);
  run_loss(&lm, NULL, 0, 2, (const double[]){4.0 / 46.0, 1});
  /* An output_datatype relayrt has no dtype for. */
  rt_module_t *m = NULL;
  build_node(&lm, "HannWindow", 17, 0, 0, 1, i4, NULL, "output_datatype", 14, 1); /* complex64 */
  assert_status(import(&lm.b, NULL, &m), UNIMPLEMENTED,
                "(HannWindow, opset 17): this output_datatype");
}

/* BatchNormalization in training mode (opset 15) on x = [[1], [3]] (N 2,
 * C 1), scale 2, B 1, input_mean 0, input_var 1: the batch's mean 2 and
 * variance ((1-2)^2 + (3-2)^2) / 2 = 1, y = 2 (x - 2) / sqrt(1 + 1e-5) + 1;
 * running mean 0 * 0.9 + 2 * 0.1 = 0.2, running var 1 * 0.9 + 1 * 0.1 = 1. */
static void test_onnx_import_batch_norm_training(void **state) {
  (void)state;
  static const float x[2] = {1, 3}, two[1] = {2}, one[1] = {1}, zero[1] = {0};
  const loss_init p[4] = {{"s", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, {1}, 1, two, NULL},
                          {"b", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, {1}, 1, one, NULL},
                          {"m", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, {1}, 1, zero, NULL},
                          {"v", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, {1}, 1, one, NULL}};
  const double s = sqrt(1 + 1e-5);
  loss_model lm;
  build_node(&lm, "BatchNormalization", 15, 2, 1, 4, p, NULL, "training_mode", 1, 3);
  run_loss(&lm, x, 0, 2, (const double[]){-2 / s + 1, 2 / s + 1});
  run_loss(&lm, x, 1, 1, (const double[]){0.2});
  run_loss(&lm, x, 2, 1, (const double[]){1});
  /* Running statistics asked for outside training mode. */
  rt_module_t *m = NULL;
  build_node(&lm, "BatchNormalization", 15, 2, 1, 4, p, NULL, NULL, 0, 3);
  assert_status(import(&lm.b, NULL, &m), INVALID_ARGUMENT,
                "(BatchNormalization, opset 15): running_mean and running_var are outputs of "
                "training_mode = 1 only");
}

int main(void) {
  rt_interp_evaluator_init(&g_eval, rt_allocator_system());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_onnx_import_good_model),
      cmocka_unit_test(test_onnx_import_initializer_listed_as_input),
      cmocka_unit_test(test_onnx_import_truncated),
      cmocka_unit_test(test_onnx_import_garbage),
      cmocka_unit_test(test_onnx_import_missing_initializer),
      cmocka_unit_test(test_onnx_import_unsupported_op),
      cmocka_unit_test(test_onnx_import_inconsistent_types),
      cmocka_unit_test(test_onnx_import_external_data),
      cmocka_unit_test(test_onnx_import_external_data_escape),
      cmocka_unit_test(test_onnx_import_load_dispatch),
      cmocka_unit_test(test_onnx_import_input_shapes),
      cmocka_unit_test(test_onnx_import_folds_with_evaluator),
      cmocka_unit_test(test_onnx_import_wild_types),
      cmocka_unit_test(test_onnx_import_nll_loss), /* h1 */
      cmocka_unit_test(test_onnx_import_softmax_cross_entropy),
      cmocka_unit_test(test_onnx_import_windows),
      cmocka_unit_test(test_onnx_import_batch_norm_training),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  rt_interp_evaluator_fini(&g_eval);
  return failed;
}
