/* Custom ops (include/rt/op.h) through the public API: registration and its
 * misuse, the text format, type relations and their errors, the reference
 * kernel in the debug executor, native kernels (kernel ABI and libffi) in
 * the graph and vm executors, fusion through an element expression (a
 * conv2d followed by a custom op is one kernel), strategies for a
 * built-in op, kernel errors, and kernels writing past their output.
 * Expected values are computed by hand (in the comments) or, for the
 * compiled kernels, by the debug executor running the reference kernels. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/executor.h"
#include "rt/op.h"
#include "test_util.h"
#include "runtime/mem.h"

static const char *const kExecutors[] = {"debug", "graph", "vm"};

/* ---- helpers ------------------------------------------------------------- */

static rt_status_t parse_text(const char *body, rt_module_t **out) {
  char src[8192];
  snprintf(src, sizeof src, "#[version = \"0.0.5\"]\n%s", body);
  return rt_module_parse(src, strlen(src), "t.relay", out);
}

static rt_module_t *parse(const char *body) {
  rt_module_t *m = NULL;
  assert_ok(parse_text(body, &m));
  return m;
}

static rt_tensor_t *tensor_f32(int32_t rank, const int64_t *shape, const float *data) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, rank, shape, &t));
  if (data) memcpy(rt_tensor_data(t), data, rt_tensor_nbytes(t));
  return t;
}

/* Runs main of `m` with the inputs on executor `kind`; returns a clone of
 * output 0 (owned). */
static rt_status_t run_on(const char *kind, rt_module_t *m, const rt_pass_context_t *ctx,
                          int32_t nin, rt_tensor_t *const *inputs, rt_tensor_t **out) {
  rt_executor_t *ex = NULL;
  rt_status_t st = rt_create_executor(kind, m, NULL, ctx, NULL, &ex);
  for (int32_t i = 0; !st && i < nin; ++i) st = rt_executor_set_input(ex, i, inputs[i]);
  if (!st) st = rt_executor_run(ex);
  rt_tensor_t *o = NULL;
  if (!st) st = rt_executor_get_output(ex, 0, &o);
  if (!st) st = rt_tensor_clone(rt_allocator_system(), o, out);
  rt_executor_release(ex);
  return st;
}

/* Asserts an error (any code) whose message contains `needle`; frees it. */
static void assert_error_has(rt_status_t st, const char *needle, const char *what) {
  if (!st) fail_msg("%s: expected an error containing '%s'", what, needle);
  if (!strstr(rt_status_message(st), needle)) {
    fail_msg("%s: error '%s' lacks '%s'", what, rt_status_message(st), needle);
  }
  rt_status_free(st);
}

static void assert_close(const rt_tensor_t *t, const float *want, int64_t n, double tol) {
  assert_int_equal(rt_tensor_numel(t), n);
  const float *got = rt_tensor_data(t);
  for (int64_t i = 0; i < n; ++i) {
    if (fabs((double)got[i] - (double)want[i]) > tol * (1.0 + fabs((double)want[i]))) {
      fail_msg("element %lld: got %.7g, want %.7g", (long long)i, (double)got[i], (double)want[i]);
    }
  }
}

/* ---- the ops ------------------------------------------------------------- */

/* my.scale(x, alpha=2f, beta=0f): alpha * x + beta. Reference only. */
static rt_status_t scale_ref(const rt_op_call_t *call) {
  double alpha = 0, beta = 0;
  RT_RETURN_IF_ERROR(rt_op_attr_float(call->attrs, "alpha", &alpha));
  RT_RETURN_IF_ERROR(rt_op_attr_float(call->attrs, "beta", &beta));
  const float *x = call->inputs[0].data;
  float *y = call->output->data;
  int64_t n = 1;
  for (int32_t d = 0; d < call->output->rank; ++d) n *= call->output->shape[d];
  for (int64_t i = 0; i < n; ++i) y[i] = (float)(alpha * x[i] + beta);
  return RT_OK;
}
static const rt_op_attr_def_t kScaleAttrs[] = {
    {"alpha", RT_OP_ATTR_FLOAT, "2f"},
    {"beta", RT_OP_ATTR_FLOAT, "0f"},
};

/* my.add2(a, b): a + b, same shapes; opaque, native through libffi. */
static rt_status_t add2_ref(const rt_op_call_t *call) {
  const float *a = call->inputs[0].data, *b = call->inputs[1].data;
  float *y = call->output->data;
  int64_t n = 1;
  for (int32_t d = 0; d < call->output->rank; ++d) n *= call->output->shape[d];
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
  return RT_OK;
}
static int g_add2_calls;
static void add2_c(const float *a, const float *b, float *y, int64_t n) {
  __atomic_add_fetch(&g_add2_calls, 1, __ATOMIC_RELAXED);
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}
static rt_status_t same_shapes_rel(void *user, const rt_op_attrs_t *attrs, int32_t n,
                                   const rt_op_type_t *in, rt_op_type_t *out) {
  for (int32_t i = 1; i < n; ++i) {
    bool same = in[i].rank == in[0].rank && rt_dtype_equal(in[i].dtype, in[0].dtype);
    for (int32_t d = 0; same && d < in[0].rank; ++d) same = in[i].shape[d] == in[0].shape[d];
    if (!same) return RT_STATUS(INVALID_ARGUMENT, "my ops want inputs of one type");
  }
  *out = in[0];
  return RT_OK;
}

/* my.rowsum(x: (r, c)) -> (r): sums each row; a relation that checks the
 * rank; native through libffi with element counts: "void(f32*, i64, f32*,
 * i64)" is f(x, numel(x), y, numel(y)). */
static rt_status_t rowsum_rel(void *user, const rt_op_attrs_t *attrs, int32_t n,
                              const rt_op_type_t *in, rt_op_type_t *out) {
  if (in[0].rank != 2) {
    return RT_STATUS(INVALID_ARGUMENT, "my.rowsum takes a matrix, not a rank-%d tensor",
                     (int)in[0].rank);
  }
  out->dtype = in[0].dtype;
  out->rank = 1;
  out->shape[0] = in[0].shape[0];
  return RT_OK;
}
static rt_status_t rowsum_ref(const rt_op_call_t *call) {
  const float *x = call->inputs[0].data;
  float *y = call->output->data;
  int64_t r = call->inputs[0].shape[0], c = call->inputs[0].shape[1];
  for (int64_t i = 0; i < r; ++i) {
    double s = 0;
    for (int64_t j = 0; j < c; ++j) s += x[i * c + j];
    y[i] = (float)s;
  }
  return RT_OK;
}
static void rowsum_c(const float *x, int64_t nx, float *y, int64_t ny) {
  int64_t c = nx / ny;
  for (int64_t i = 0; i < ny; ++i) {
    float s = 0;
    for (int64_t j = 0; j < c; ++j) s += x[i * c + j];
    y[i] = s;
  }
}

/* my.triple(x): 3x, native with the kernel ABI. */
static rt_status_t triple_ref(const rt_op_call_t *call) {
  const float *x = call->inputs[0].data;
  float *y = call->output->data;
  int64_t n = 1;
  for (int32_t d = 0; d < call->output->rank; ++d) n *= call->output->shape[d];
  for (int64_t i = 0; i < n; ++i) y[i] = 3.0f * x[i];
  return RT_OK;
}
static int32_t triple_abi(const rt_kernel_arg *args, int32_t nargs, const rt_kernel_ctx *ctx) {
  if (nargs != 2) {
    ctx->set_error(ctx, "triple: two tensors expected");
    return 1;
  }
  int64_t n = 1;
  for (int32_t d = 0; d < args[1].rank; ++d) n *= args[1].shape[d];
  const float *x = args[0].data;
  float *y = args[1].data;
  for (int64_t i = 0; i < n; ++i) y[i] = 3.0f * x[i];
  return 0;
}

/* my.gelu(x) = x * sigmoid(1.702 x): elementwise, with an element
 * expression (fuses) and a libffi kernel (when alone). */
static rt_status_t gelu_ref(const rt_op_call_t *call) {
  const float *x = call->inputs[0].data;
  float *y = call->output->data;
  int64_t n = 1;
  for (int32_t d = 0; d < call->output->rank; ++d) n *= call->output->shape[d];
  for (int64_t i = 0; i < n; ++i) y[i] = (float)(x[i] / (1.0 + exp(-1.702 * x[i])));
  return RT_OK;
}
static void gelu_c(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + expf(-1.702f * x[i]));
}

/* my.leaky_a(x, alpha=0.1f) = x > 0 ? x : alpha x; only a reference kernel
 * and an element expression reading the attribute. */
static rt_status_t leaky_a_ref(const rt_op_call_t *call) {
  double alpha = 0;
  RT_RETURN_IF_ERROR(rt_op_attr_float(call->attrs, "alpha", &alpha));
  const float *x = call->inputs[0].data;
  float *y = call->output->data;
  int64_t n = 1;
  for (int32_t d = 0; d < call->output->rank; ++d) n *= call->output->shape[d];
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0 ? x[i] : (float)alpha * x[i];
  return RT_OK;
}
static const rt_op_attr_def_t kAlphaAttr[] = {{"alpha", RT_OP_ATTR_FLOAT, "0.1f"}};

/* my.fail(x): the native kernel returns 7, the reference an error. */
static rt_status_t fail_ref(const rt_op_call_t *call) {
  return RT_STATUS(DATA_LOSS, "my.fail always fails");
}
static int32_t fail_c(const float *x, float *y, int64_t n) { return 7; }

/* my.overrun(x): kernels that write 4 elements past the output. */
static rt_status_t overrun_ref(const rt_op_call_t *call) {
  float *y = call->output->data;
  int64_t n = 1;
  for (int32_t d = 0; d < call->output->rank; ++d) n *= call->output->shape[d];
  for (int64_t i = 0; i < n + 4; ++i) y[i] = 1.0f;
  return RT_OK;
}
static void overrun_c(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n + 4; ++i) y[i] = 1.0f;
}

static void register_all(void) {
  static bool done;
  if (done) return;
  done = true;
  rt_op_def_t scale = {.name = "my.scale", .num_inputs = 1, .pattern = RT_OP_PATTERN_ELEMWISE,
                       .attrs = kScaleAttrs, .num_attrs = 2, .reference = scale_ref};
  assert_ok(rt_op_register(&scale));
  rt_op_def_t add2 = {.name = "my.add2", .num_inputs = 2, .pattern = RT_OP_PATTERN_OPAQUE,
                      .type_rel = same_shapes_rel, .reference = add2_ref,
                      .signature = "void(f32*, f32*, f32*, i64)",
                      .function = (rt_op_function_t)add2_c};
  assert_ok(rt_op_register(&add2));
  rt_op_def_t rowsum = {.name = "my.rowsum", .num_inputs = 1, .pattern = RT_OP_PATTERN_OPAQUE,
                        .type_rel = rowsum_rel, .reference = rowsum_ref,
                        .signature = "void(f32* x, i64 nx, f32* y, i64 ny)",
                        .function = (rt_op_function_t)rowsum_c};
  assert_ok(rt_op_register(&rowsum));
  rt_op_def_t triple = {.name = "my.triple", .num_inputs = 1, .pattern = RT_OP_PATTERN_OPAQUE,
                        .reference = triple_ref, .kernel = triple_abi};
  assert_ok(rt_op_register(&triple));
  rt_op_def_t gelu = {.name = "my.gelu", .num_inputs = 1, .pattern = RT_OP_PATTERN_ELEMWISE,
                      .reference = gelu_ref, .signature = "void(f32*, f32*, i64)",
                      .function = (rt_op_function_t)gelu_c,
                      .elem_expr = "multiply(%0, sigmoid(multiply(%0, 1.702f)))"};
  assert_ok(rt_op_register(&gelu));
  rt_op_def_t leaky_a = {.name = "my.leaky_a", .num_inputs = 1, .pattern = RT_OP_PATTERN_ELEMWISE,
                         .attrs = kAlphaAttr, .num_attrs = 1, .reference = leaky_a_ref,
                         .elem_expr = "maximum(%0, multiply(%0, @alpha))"};
  assert_ok(rt_op_register(&leaky_a));
  rt_op_def_t failing = {.name = "my.fail", .num_inputs = 1, .pattern = RT_OP_PATTERN_OPAQUE,
                         .reference = fail_ref, .signature = "i32(f32*, f32*, i64)",
                         .function = (rt_op_function_t)fail_c};
  assert_ok(rt_op_register(&failing));
  rt_op_def_t overrun = {.name = "my.overrun", .num_inputs = 1, .pattern = RT_OP_PATTERN_OPAQUE,
                         .reference = overrun_ref, .signature = "void(f32*, f32*, i64)",
                         .function = (rt_op_function_t)overrun_c};
  assert_ok(rt_op_register(&overrun));
}

static int setup(void **state) {
  register_all();
  return 0;
}

/* ---- registration and its misuse ----------------------------------------- */

static void test_register_misuse(void **state) {
  rt_op_def_t d = {.name = "gelu2", .num_inputs = 1, .pattern = RT_OP_PATTERN_ELEMWISE,
                   .reference = gelu_ref};
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "no namespace");
  d.name = "nn.gelu2";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "belongs to the built-in ops");
  d.name = "my.bad-name";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "not allowed");
  d.name = "my.";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "ends with a dot");
  d.name = "my.gelu";
  assert_status(rt_op_register(&d), ALREADY_EXISTS, "my.gelu");
  d.name = "my.noref";
  d.reference = NULL;
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "reference kernel");
  d.reference = gelu_ref;
  d.num_inputs = 0;
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "num_inputs");
  d.num_inputs = 1;
  d.pattern = RT_OP_PATTERN_TUPLE;
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "pattern");
  d.pattern = RT_OP_PATTERN_OPAQUE;
  /* Signatures. */
  d.function = (rt_op_function_t)gelu_c;
  d.signature = "void(f32*, f32*";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "expected ',' or ')'");
  d.signature = "void(f32*, q32*, i64)";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "column 12");
  d.signature = "void(f32*, i64)";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "1 pointer parameters, but the op has 2");
  d.signature = "void(f32*, f32*, f32*)";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "more pointer parameters");
  d.signature = "void(f32*, f32*, f64)";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "floating-point scalar");
  d.signature = "f32(f32*, f32*)";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "void or an integer");
  d.signature = "void(f32**, f32*)";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "pointers to pointers");
  d.signature = NULL;
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "go together");
  d.function = NULL;
  d.kernel = triple_abi;
  d.signature = "void(f32*, f32*)";
  d.function = (rt_op_function_t)gelu_c;
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "not both");
  d.kernel = NULL;
  d.signature = NULL;
  d.function = NULL;
  /* Element expressions. */
  d.pattern = RT_OP_PATTERN_ELEMWISE;
  d.elem_expr = "multiply(%0, nosuchop(%0))";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "'nosuchop' is not a built-in op");
  d.elem_expr = "add(%0)";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "takes 2 arguments, got 1");
  d.elem_expr = "add(%0, %1)";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "input %1 does not exist");
  d.elem_expr = "nn.conv2d(%0, %0)";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "not elementwise");
  d.elem_expr = "%0";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "must be an op call");
  d.elem_expr = "multiply(%0, @nope)";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "no attribute of that name");
  d.elem_expr = "exp(%0) x";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "unexpected text");
  d.pattern = RT_OP_PATTERN_OPAQUE;
  d.elem_expr = "exp(%0)";
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "ELEMWISE or BROADCAST");
  d.elem_expr = NULL;
  /* Attribute schemas. */
  const rt_op_attr_def_t bad_default[] = {{"alpha", RT_OP_ATTR_FLOAT, "[[["}};
  d.attrs = bad_default;
  d.num_attrs = 1;
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "alpha");
  const rt_op_attr_def_t twice[] = {{"a", RT_OP_ATTR_INT, "1"}, {"a", RT_OP_ATTR_INT, "2"}};
  d.attrs = twice;
  d.num_attrs = 2;
  assert_status(rt_op_register(&d), INVALID_ARGUMENT, "declared twice");
  /* None of these left an op behind. */
  assert_false(rt_op_exists("my.noref"));
  assert_true(rt_op_exists("my.gelu"));
  assert_true(rt_op_exists("nn.conv2d"));
  assert_status(rt_op_register(NULL), INVALID_ARGUMENT, NULL);
}

/* Registration and lookup from many threads at once (run under TSan/ASan
 * to see races): every op registered exactly once, all visible after. */
typedef struct reg_thread_t {
  int id;
  int registered;
} reg_thread_t;

static void *reg_thread(void *p) {
  reg_thread_t *t = p;
  for (int i = 0; i < 20; ++i) {
    char name[64];
    /* Threads race for the same 20 names: one wins each. */
    snprintf(name, sizeof name, "race.op%d", i);
    rt_op_def_t d = {.name = name, .num_inputs = 1, .pattern = RT_OP_PATTERN_OPAQUE,
                     .reference = triple_ref};
    rt_status_t st = rt_op_register(&d);
    if (!st) t->registered++;
    else rt_status_free(st);
    (void)rt_op_exists("my.gelu");
  }
  return NULL;
}

static void test_register_threads(void **state) {
  pthread_t th[4];
  reg_thread_t t[4];
  for (int i = 0; i < 4; ++i) {
    t[i] = (reg_thread_t){i, 0};
    assert_int_equal(pthread_create(&th[i], NULL, reg_thread, &t[i]), 0);
  }
  int total = 0;
  for (int i = 0; i < 4; ++i) {
    pthread_join(th[i], NULL);
    total += t[i].registered;
  }
  assert_int_equal(total, 20);
  for (int i = 0; i < 20; ++i) {
    char name[64];
    snprintf(name, sizeof name, "race.op%d", i);
    assert_true(rt_op_exists(name));
  }
}

/* ---- text format and type relations -------------------------------------- */

static void test_text_roundtrip(void **state) {
  rt_module_t *m = parse(
      "def @main(%x: Tensor[(2, 3), float32]) {\n"
      "  %0 = my.scale(%x, alpha=3f);\n"
      "  my.rowsum(%0)\n"
      "}\n");
  char *text = NULL;
  assert_ok(rt_module_print(m, 0, &text));
  assert_non_null(strstr(text, "my.scale(%x, alpha=3f)"));
  assert_non_null(strstr(text, "my.rowsum(%0)"));
  /* Printed text parses back to the same text. */
  rt_module_t *m2 = NULL;
  assert_ok(rt_module_parse(text, strlen(text), "printed.relay", &m2));
  char *text2 = NULL;
  assert_ok(rt_module_print(m2, 0, &text2));
  assert_string_equal(text, text2);
  free(text);
  free(text2);
  rt_module_release(m);
  rt_module_release(m2);
}

static void test_type_errors(void **state) {
  rt_module_t *m = NULL;
  /* The relation's error, positioned at the call. */
  assert_status(parse_text("def @main(%x: Tensor[(6), float32]) {\n"
                           "  my.rowsum(%x)\n"
                           "}\n", &m),
                INVALID_ARGUMENT, "t.relay:3:3: error");
  assert_null(m);
  assert_status(parse_text("def @main(%x: Tensor[(6), float32]) {\n"
                           "  my.rowsum(%x)\n"
                           "}\n", &m),
                INVALID_ARGUMENT, "my.rowsum takes a matrix, not a rank-1 tensor");
  assert_status(parse_text("def @main(%x: Tensor[(2), float32], %y: Tensor[(3), float32]) {\n"
                           "  my.add2(%x, %y)\n"
                           "}\n", &m),
                INVALID_ARGUMENT, "my ops want inputs of one type");
  /* Arity and attributes are checked like built-in ops'. */
  assert_status(parse_text("def @main(%x: Tensor[(2), float32]) {\n"
                           "  my.add2(%x)\n"
                           "}\n", &m),
                INVALID_ARGUMENT, NULL);
  assert_status(parse_text("def @main(%x: Tensor[(2), float32]) {\n"
                           "  my.scale(%x, gamma=1f)\n"
                           "}\n", &m),
                INVALID_ARGUMENT, "gamma");
  assert_status(parse_text("def @main(%x: Tensor[(2), float32]) {\n"
                           "  my.unknown(%x)\n"
                           "}\n", &m),
                INVALID_ARGUMENT, "my.unknown");
}

/* ---- the executors ------------------------------------------------------- */

/* my.scale (reference kernel, attributes) on every executor: graph and vm
 * run its reference kernel on the host, having no native kernel. */
static void test_reference_debug(void **state) {
  rt_module_t *m = parse("def @main(%x: Tensor[(4), float32]) {\n"
                         "  my.scale(%x, alpha=3f, beta=1f)\n"
                         "}\n");
  const int64_t shape[] = {4};
  const float x[] = {0, 1, -2, 0.5f};
  rt_tensor_t *in = tensor_f32(1, shape, x);
  rt_tensor_t *out = NULL;
  assert_ok(run_on("debug", m, NULL, 1, &in, &out));
  /* 3x + 1 */
  const float want[] = {1, 4, -5, 2.5f};
  assert_close(out, want, 4, 0);
  rt_tensor_release(out);
  for (int e = 1; e < 3; ++e) {
    assert_ok(run_on(kExecutors[e], m, NULL, 1, &in, &out));
    assert_close(out, want, 4, 0);
    rt_tensor_release(out);
  }
  rt_tensor_release(in);
  rt_module_release(m);
}

/* my.add2 (libffi, opaque) between built-in ops on every executor. */
static void test_ffi_opaque_all_executors(void **state) {
  rt_module_t *m = parse("def @main(%a: Tensor[(2, 3), float32], %b: Tensor[(2, 3), float32]) {\n"
                         "  %0 = nn.relu(%a);\n"
                         "  %1 = my.add2(%0, %b);\n"
                         "  multiply(%1, 2f)\n"
                         "}\n");
  const int64_t shape[] = {2, 3};
  const float a[] = {1, -2, 3, -4, 5, -6};
  const float b[] = {10, 20, 30, 40, 50, 60};
  rt_tensor_t *in[2] = {tensor_f32(2, shape, a), tensor_f32(2, shape, b)};
  /* 2 * (relu(a) + b) */
  const float want[] = {22, 40, 66, 80, 110, 120};
  for (size_t e = 0; e < RT_COUNTOF(kExecutors); ++e) {
    int before = __atomic_load_n(&g_add2_calls, __ATOMIC_RELAXED);
    rt_tensor_t *out = NULL;
    assert_ok(run_on(kExecutors[e], m, NULL, 2, in, &out));
    assert_close(out, want, 6, 0);
    rt_tensor_release(out);
    int calls = __atomic_load_n(&g_add2_calls, __ATOMIC_RELAXED) - before;
    /* debug runs the reference kernel; graph and vm the C function. */
    if (strcmp(kExecutors[e], "debug") == 0) {
      assert_int_equal(calls, 0);
    } else {
      assert_int_equal(calls, 1);
    }
  }
  rt_tensor_release(in[0]);
  rt_tensor_release(in[1]);
  rt_module_release(m);
}

/* my.add2(%x, %x) and my.add2(%b, %a): the group's params repeated and
 * reordered for the native kernel. */
static void test_ffi_param_order(void **state) {
  rt_module_t *m = parse("def @main(%a: Tensor[(3), float32], %b: Tensor[(3), float32]) {\n"
                         "  %0 = my.add2(%a, %a);\n"
                         "  %1 = my.add2(%b, %0);\n"
                         "  my.add2(%1, %b)\n"
                         "}\n");
  const int64_t shape[] = {3};
  const float a[] = {1, 2, 3}, b[] = {10, 20, 30};
  rt_tensor_t *in[2] = {tensor_f32(1, shape, a), tensor_f32(1, shape, b)};
  /* (b + 2a) + b */
  const float want[] = {22, 44, 66};
  for (size_t e = 0; e < RT_COUNTOF(kExecutors); ++e) {
    rt_tensor_t *out = NULL;
    assert_ok(run_on(kExecutors[e], m, NULL, 2, in, &out));
    assert_close(out, want, 3, 0);
    rt_tensor_release(out);
  }
  rt_tensor_release(in[0]);
  rt_tensor_release(in[1]);
  rt_module_release(m);
}

/* my.rowsum: a libffi kernel with element-count parameters and a type
 * relation changing the shape; on vm also with a `?` dim. */
static void test_ffi_counts_and_dynamic(void **state) {
  const int64_t shape[] = {3, 4};
  float x[12];
  for (int i = 0; i < 12; ++i) x[i] = (float)i;
  rt_tensor_t *in = tensor_f32(2, shape, x);
  /* Rows 0..3, 4..7, 8..11 sum to 6, 22, 38. */
  const float want[] = {6, 22, 38};
  rt_module_t *m = parse("def @main(%x: Tensor[(3, 4), float32]) {\n"
                         "  my.rowsum(%x)\n"
                         "}\n");
  for (size_t e = 0; e < RT_COUNTOF(kExecutors); ++e) {
    rt_tensor_t *out = NULL;
    assert_ok(run_on(kExecutors[e], m, NULL, 1, &in, &out));
    assert_int_equal(rt_tensor_rank(out), 1);
    assert_close(out, want, 3, 0);
    rt_tensor_release(out);
  }
  rt_module_release(m);
  rt_module_t *dyn = parse("def @main(%x: Tensor[(?, 4), float32]) {\n"
                           "  my.rowsum(%x)\n"
                           "}\n");
  const char *const dyn_execs[] = {"debug", "vm"};
  for (size_t e = 0; e < 2; ++e) {
    rt_tensor_t *out = NULL;
    assert_ok(run_on(dyn_execs[e], dyn, NULL, 1, &in, &out));
    assert_close(out, want, 3, 0);
    rt_tensor_release(out);
  }
  rt_module_release(dyn);
  rt_tensor_release(in);
}

/* my.triple: a native kernel with the kernel ABI. */
static void test_abi_kernel(void **state) {
  rt_module_t *m = parse("def @main(%x: Tensor[(5), float32]) {\n"
                         "  %0 = add(%x, 1f);\n"
                         "  my.triple(%0)\n"
                         "}\n");
  const int64_t shape[] = {5};
  const float x[] = {0, 1, 2, 3, -1};
  const float want[] = {3, 6, 9, 12, 0}; /* 3 (x + 1) */
  rt_tensor_t *in = tensor_f32(1, shape, x);
  for (size_t e = 0; e < RT_COUNTOF(kExecutors); ++e) {
    rt_tensor_t *out = NULL;
    assert_ok(run_on(kExecutors[e], m, NULL, 1, &in, &out));
    assert_close(out, want, 5, 0);
    rt_tensor_release(out);
  }
  rt_tensor_release(in);
  rt_module_release(m);
}

/* A conv2d followed by my.gelu: one kernel on graph (its name shows both),
 * outputs equal to the debug executor's (reference kernels). */
static const char kConvGelu[] =
    "def @main(%x: Tensor[(1, 2, 6, 6), float32], %w: Tensor[(4, 2, 3, 3), float32]) {\n"
    "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
    "  my.gelu(%0)\n"
    "}\n";

static void test_fusion_conv_gelu(void **state) {
  rt_module_t *m = parse(kConvGelu);
  const int64_t xs[] = {1, 2, 6, 6}, ws[] = {4, 2, 3, 3};
  rt_tensor_t *in[2] = {tensor_f32(4, xs, NULL), tensor_f32(4, ws, NULL)};
  rt_tensor_fill_random(in[0], 1);
  rt_tensor_fill_random(in[1], 2);
  rt_tensor_t *want = NULL;
  assert_ok(run_on("debug", m, NULL, 2, in, &want));
  for (size_t e = 1; e < RT_COUNTOF(kExecutors); ++e) {
    rt_tensor_t *out = NULL;
    assert_ok(run_on(kExecutors[e], m, NULL, 2, in, &out));
    assert_close(out, rt_tensor_data(want), rt_tensor_numel(want), 1e-4);
    rt_tensor_release(out);
  }
  /* One kernel, and it is the conv's. */
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("graph", m, NULL, NULL, NULL, &ex));
  char *kernels = NULL;
  assert_ok(rt_executor_get_source(ex, "kernels", &kernels));
  if (getenv("RT_TEST_VERBOSE")) fputs(kernels, stderr);
  assert_non_null(strstr(kernels, "fused_nn_conv2d_my_gelu"));
  const char *p = kernels;
  int count = 0;
  while ((p = strstr(p, "fused_")) != NULL) {
    const char *line = p;
    while (line > kernels && line[-1] != '\n') line--;
    if (line == p) count++; /* kernel entries start a line */
    p += 6;
  }
  if (count != 1) fail_msg("expected one kernel, got:\n%s", kernels);
  free(kernels);
  rt_executor_release(ex);
  rt_tensor_release(want);
  rt_tensor_release(in[0]);
  rt_tensor_release(in[1]);
  rt_module_release(m);
}

/* my.leaky_a: an element expression reading an attribute, fused after
 * add on graph and vm (it has no native kernel: it must fuse or lower
 * from the expression). */
static void test_elem_expr_attr(void **state) {
  rt_module_t *m = parse("def @main(%x: Tensor[(4), float32]) {\n"
                         "  %0 = add(%x, 1f);\n"
                         "  %1 = my.leaky_a(%0, alpha=0.25f);\n"
                         "  my.leaky_a(%1)\n"
                         "}\n");
  const int64_t shape[] = {4};
  const float x[] = {-5, -1, 0, 3};
  /* x + 1 = -4, 0, 1, 4; alpha 0.25: -1, 0, 1, 4; default 0.1: -0.1, 0, 1, 4 */
  const float want[] = {-0.1f, 0, 1, 4};
  rt_tensor_t *in = tensor_f32(1, shape, x);
  for (size_t e = 0; e < RT_COUNTOF(kExecutors); ++e) {
    rt_tensor_t *out = NULL;
    assert_ok(run_on(kExecutors[e], m, NULL, 1, &in, &out));
    assert_close(out, want, 4, 1e-6);
    rt_tensor_release(out);
  }
  rt_tensor_release(in);
  rt_module_release(m);
}

/* my.gelu alone: its libffi kernel; equal to the reference. */
static void test_gelu_alone(void **state) {
  rt_module_t *m = parse("def @main(%x: Tensor[(7), float32]) {\n"
                         "  my.gelu(%x)\n"
                         "}\n");
  const int64_t shape[] = {7};
  const float x[] = {-3, -1, -0.5f, 0, 0.5f, 1, 3};
  float want[7];
  for (int i = 0; i < 7; ++i) want[i] = (float)(x[i] / (1.0 + exp(-1.702 * x[i])));
  rt_tensor_t *in = tensor_f32(1, shape, x);
  for (size_t e = 0; e < RT_COUNTOF(kExecutors); ++e) {
    rt_tensor_t *out = NULL;
    assert_ok(run_on(kExecutors[e], m, NULL, 1, &in, &out));
    assert_close(out, want, 7, 1e-5);
    rt_tensor_release(out);
  }
  rt_tensor_release(in);
  rt_module_release(m);
}

/* Kernels that fail, and kernels that write past their output. */
static void test_kernel_errors(void **state) {
  const int64_t shape[] = {4};
  const float x[] = {1, 2, 3, 4};
  rt_tensor_t *in = tensor_f32(1, shape, x);
  rt_module_t *m = parse("def @main(%x: Tensor[(4), float32]) {\n"
                         "  my.fail(%x)\n"
                         "}\n");
  rt_tensor_t *out = NULL;
  assert_status(run_on("debug", m, NULL, 1, &in, &out), DATA_LOSS, "my.fail always fails");
  assert_error_has(run_on("graph", m, NULL, 1, &in, &out), "my.fail: the native kernel failed (returned 7)", "graph");
  assert_error_has(run_on("vm", m, NULL, 1, &in, &out), "my.fail: the native kernel failed (returned 7)", "vm");
  rt_module_release(m);
#ifdef RT_DEBUG
  rt_module_t *o = parse("def @main(%x: Tensor[(4), float32]) {\n"
                         "  my.overrun(%x)\n"
                         "}\n");
  for (size_t e = 0; e < RT_COUNTOF(kExecutors); ++e) {
    assert_error_has(run_on(kExecutors[e], o, NULL, 1, &in, &out),
                     "wrote past the end of its output", kExecutors[e]);
  }
  rt_module_release(o);
#endif
  rt_tensor_release(in);
}

/* ---- ONNX ------------------------------------------------------------------ */

/* custom_gelu.onnx: y = Relu(com.example.Gelu(x, alpha=1.702)), x (2, 3)
 * (make_onnx.py). Mapped to my.scale, whose alpha the node's sets. */
static void test_onnx_mapping(void **state) {
  const char *path = rt_test_path("custom_op/custom_gelu.onnx");
  rt_module_t *m = NULL;
  assert_status(rt_module_load(path, &m), UNIMPLEMENTED, "com.example");
  const char *src[] = {"com.example.Gelu"};
  const char *bad[] = {"my.not_registered"};
  rt_module_load_options_t lo = {.num_custom_ops = 1, .custom_op_sources = src,
                                 .custom_op_targets = bad};
  assert_status(rt_module_load_with_options(path, &lo, &m), INVALID_ARGUMENT, "not registered");
  const char *dst[] = {"my.scale"};
  lo.custom_op_targets = dst;
  assert_ok(rt_module_load_with_options(path, &lo, &m));
  const int64_t shape[] = {2, 3};
  const float x[] = {1, -1, 2, 0, 3, -2};
  rt_tensor_t *in = tensor_f32(2, shape, x);
  rt_tensor_t *out = NULL;
  assert_ok(run_on("debug", m, NULL, 1, &in, &out));
  /* relu(1.702 x + 0) */
  const float want[] = {1.702f, 0, 3.404f, 0, 5.106f, 0};
  assert_close(out, want, 6, 1e-6);
  rt_tensor_release(out);
  rt_tensor_release(in);
  rt_module_release(m);
}

/* ---- strategies ---------------------------------------------------------- */

static int g_declined, g_selected, g_conv_runs;

/* A naive NCHW conv2d, stride 1, no padding, groups 1. */
static int32_t my_conv(const rt_kernel_arg *args, int32_t nargs, const rt_kernel_ctx *ctx) {
  __atomic_add_fetch(&g_conv_runs, 1, __ATOMIC_RELAXED);
  const float *x = args[0].data, *w = args[1].data;
  float *y = args[2].data;
  int64_t C = args[0].shape[1], H = args[0].shape[2], W = args[0].shape[3];
  int64_t K = args[1].shape[0], R = args[1].shape[2], S = args[1].shape[3];
  int64_t OH = args[2].shape[2], OW = args[2].shape[3];
  for (int64_t k = 0; k < K; ++k)
    for (int64_t i = 0; i < OH; ++i)
      for (int64_t j = 0; j < OW; ++j) {
        float s = 0;
        for (int64_t c = 0; c < C; ++c)
          for (int64_t r = 0; r < R; ++r)
            for (int64_t q = 0; q < S; ++q)
              s += x[(c * H + i + r) * W + j + q] * w[((k * C + c) * R + r) * S + q];
        y[(k * OH + i) * OW + j] = s;
      }
  return 0;
}

static rt_status_t decline(void *user, const rt_op_strategy_query_t *q, rt_kernel_fn *out) {
  __atomic_add_fetch(&g_declined, 1, __ATOMIC_RELAXED);
  return RT_OK;
}

static rt_status_t select_conv(void *user, const rt_op_strategy_query_t *q, rt_kernel_fn *out) {
  int64_t groups = 0;
  RT_RETURN_IF_ERROR(rt_op_attr_int(q->attrs, "groups", &groups));
  /* Only batch 1, groups 1, no padding (all zero), stride 1. */
  if (groups != 1 || q->inputs[0].shape[0] != 1 || q->output->shape[2] != q->inputs[0].shape[2] - q->inputs[1].shape[2] + 1) {
    return RT_OK;
  }
  __atomic_add_fetch(&g_selected, 1, __ATOMIC_RELAXED);
  assert_string_equal(q->op, "nn.conv2d");
  assert_int_equal(q->num_inputs, 2);
  *out = my_conv;
  return RT_OK;
}

static void test_strategy_conv2d(void **state) {
  rt_op_strategy_t lo = {.op = "nn.conv2d", .name = "naive_conv", .priority = 5,
                         .select = select_conv};
  rt_op_strategy_t hi = {.op = "nn.conv2d", .name = "declines", .priority = 10,
                         .select = decline};
  assert_ok(rt_op_strategy_register(&lo));
  assert_ok(rt_op_strategy_register(&hi));
  rt_op_strategy_t bad = {.op = "nn.nosuch", .name = "x", .select = decline};
  assert_status(rt_op_strategy_register(&bad), NOT_FOUND, "nn.nosuch");
  bad.op = "nn.conv2d";
  bad.select = NULL;
  assert_status(rt_op_strategy_register(&bad), INVALID_ARGUMENT, NULL);
  /* Shapes no other test compiles, so no kernel of the JIT's memory cache
   * is reused. */
  rt_module_t *m = parse(
      "def @main(%x: Tensor[(1, 3, 7, 5), float32], %w: Tensor[(2, 3, 2, 2), float32]) {\n"
      "  nn.conv2d(%x, %w, channels=2, kernel_size=[2, 2])\n"
      "}\n");
  const int64_t xs[] = {1, 3, 7, 5}, ws[] = {2, 3, 2, 2};
  rt_tensor_t *in[2] = {tensor_f32(4, xs, NULL), tensor_f32(4, ws, NULL)};
  rt_tensor_fill_random(in[0], 3);
  rt_tensor_fill_random(in[1], 4);
  rt_tensor_t *want = NULL;
  assert_ok(run_on("debug", m, NULL, 2, in, &want));
  for (size_t e = 1; e < RT_COUNTOF(kExecutors); ++e) {
    int runs = g_conv_runs, declined = g_declined, selected = g_selected;
    rt_tensor_t *out = NULL;
    assert_ok(run_on(kExecutors[e], m, NULL, 2, in, &out));
    assert_close(out, rt_tensor_data(want), rt_tensor_numel(want), 1e-5);
    rt_tensor_release(out);
    /* The higher priority was asked first and declined; the kernel ran. */
    assert_true(g_conv_runs > runs);
    if (strcmp(kExecutors[e], "graph") == 0) {
      assert_true(g_declined > declined);
      assert_true(g_selected > selected);
    }
  }
  rt_tensor_release(want);
  /* conv2d + relu + my.leaky_a is one group: the strategy's kernel runs
   * the conv2d into a workspace buffer and the JIT the rest over it (the
   * custom op from its element expression); with fuse.max_depth=1 each op
   * is a group of its own. */
  rt_module_t *fused = parse(
      "def @main(%x: Tensor[(1, 3, 7, 5), float32], %w: Tensor[(2, 3, 2, 2), float32]) {\n"
      "  %0 = nn.conv2d(%x, %w, channels=2, kernel_size=[2, 2]);\n"
      "  %1 = add(%0, 0.5f);\n"
      "  my.leaky_a(%1, alpha=0.5f)\n"
      "}\n");
  assert_ok(run_on("debug", fused, NULL, 2, in, &want));
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_set_config(ctx, "fuse.max_depth", "1"));
  for (size_t e = 1; e < RT_COUNTOF(kExecutors); ++e) {
    int runs = g_conv_runs;
    rt_tensor_t *out = NULL;
    assert_ok(run_on(kExecutors[e], fused, NULL, 2, in, &out));
    assert_true(g_conv_runs > runs);
    assert_close(out, rt_tensor_data(want), rt_tensor_numel(want), 1e-5);
    rt_tensor_release(out);
    runs = g_conv_runs;
    assert_ok(run_on(kExecutors[e], fused, ctx, 2, in, &out));
    assert_true(g_conv_runs > runs);
    assert_close(out, rt_tensor_data(want), rt_tensor_numel(want), 1e-5);
    rt_tensor_release(out);
  }
  rt_pass_context_release(ctx);
  rt_tensor_release(want);
  rt_module_release(fused);
  rt_tensor_release(in[0]);
  rt_tensor_release(in[1]);
  rt_module_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_register_misuse),
      cmocka_unit_test(test_register_threads),
      cmocka_unit_test(test_text_roundtrip),
      cmocka_unit_test(test_type_errors),
      cmocka_unit_test(test_reference_debug),
      cmocka_unit_test(test_ffi_opaque_all_executors),
      cmocka_unit_test(test_ffi_param_order),
      cmocka_unit_test(test_ffi_counts_and_dynamic),
      cmocka_unit_test(test_abi_kernel),
      cmocka_unit_test(test_fusion_conv_gelu),
      cmocka_unit_test(test_gelu_alone),
      cmocka_unit_test(test_elem_expr_attr),
      cmocka_unit_test(test_kernel_errors),
      cmocka_unit_test(test_onnx_mapping),
      cmocka_unit_test(test_strategy_conv2d),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
