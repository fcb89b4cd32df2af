/* Printer unit tests: shortest floats per dtype, unique var names, where
 * shared nodes are placed (innermost scope enclosing all uses, before the
 * first use), lets in and out of final position, meta constants round-
 * tripping bit-exactly, and rt_ir_print_expr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/text/text.h"
#include "test_util.h"
#include "runtime/mem.h"

static rt_module_t *parse(const char *text) {
  rt_module_t *m = NULL;
  assert_ok(rt_ir_module_create(rt_allocator_system(), &m));
  assert_ok(rt_ir_parse_module(m, "p.relay", text, strlen(text)));
  return m;
}

static char *print(const rt_module_t *m, uint32_t flags) {
  char *out = NULL;
  size_t len = 0;
  assert_ok(rt_ir_print_module(m, flags, &out, &len));
  return out;
}

/* parse -> print (untyped) must give `want` exactly, and be a fixed point. */
static void expect_print(const char *text, const char *want) {
  rt_module_t *m = parse(text);
  char *got = print(m, RT_PRINT_NO_TYPES);
  if (strcmp(got, want) != 0) {
    print_message("--- got ---\n%s--- want ---\n%s", got, want);
    fail();
  }
  rt_module_t *m2 = parse(got);
  char *again = print(m2, RT_PRINT_NO_TYPES);
  assert_string_equal(got, again);
  assert_true(rt_ir_module_struct_equal(m, m2));
  rt_mem_free(got);
  rt_mem_free(again);
  rt_module_release(m);
  rt_module_release(m2);
}

#define HDR "#[version = \"0.0.5\"]\n"

static void test_printer_shortest_floats(void **state) {
  (void)state;
  struct { rt_dtype_t dt; double v; const char *want; } cases[] = {
      {RT_DTYPE_FLOAT32, 0.5, "0.5"},
      {RT_DTYPE_FLOAT32, 1e-05, "1e-05"},
      {RT_DTYPE_FLOAT32, 3.14159265358979, "3.1415927"},
      {RT_DTYPE_FLOAT32, 0.1, "0.1"},
      {RT_DTYPE_FLOAT32, 16777216.0, "16777216"},
      {RT_DTYPE_FLOAT32, 1e6, "1e+06"},
      {RT_DTYPE_FLOAT64, 0.1, "0.1"},
      {RT_DTYPE_FLOAT64, 3.14159265358979311600, "3.141592653589793"},
      {RT_DTYPE_FLOAT64, 1.0 / 3.0, "0.3333333333333333"},
      {RT_DTYPE_FLOAT16, 0.1, "0.0999756"},
      {RT_DTYPE_FLOAT16, 65504.0, "65504"},
  };
  for (size_t i = 0; i < RT_COUNTOF(cases); ++i) {
    uint8_t bytes[8];
    if (cases[i].dt.bits == 16) {
      uint16_t h = rt_ir_f16_from_double(cases[i].v);
      memcpy(bytes, &h, 2);
    } else if (cases[i].dt.bits == 32) {
      float f = (float)cases[i].v;
      memcpy(bytes, &f, 4);
    } else {
      memcpy(bytes, &cases[i].v, 8);
    }
    rt_strbuf_t b;
    rt_strbuf_initialize(&b);
    rt_ir_text_format_float(cases[i].dt, bytes, &b);
    assert_string_equal(b.data, cases[i].want);
    rt_strbuf_deinitialize(&b);
  }
}

/* Random bit patterns of every inline dtype round-trip exactly. */
static void test_printer_scalars_bit_exact(void **state) {
  (void)state;
  rt_module_t *m = NULL;
  assert_ok(rt_ir_module_create(rt_allocator_system(), &m));
  const rt_dtype_t dts[] = {RT_DTYPE_FLOAT16, RT_DTYPE_FLOAT32, RT_DTYPE_FLOAT64,
                            RT_DTYPE_INT16, RT_DTYPE_INT32, RT_DTYPE_INT64,
                            RT_DTYPE_BOOL, RT_DTYPE_INT8, RT_DTYPE_UINT8};
  enum { N = 400 };
  rt_ir_expr_t *fields[N];
  uint64_t seed = 12345;
  for (int i = 0; i < N; ++i) {
    rt_dtype_t dt = dts[i % RT_COUNTOF(dts)];
    rt_tensor_t *t = NULL;
    assert_ok(rt_tensor_create(rt_allocator_system(), dt, 0, NULL, &t));
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    uint64_t bits = seed ^ (seed >> 29);
    if (i < 30) bits = (uint64_t)i * 0x0101010101010101u; /* some special patterns */
    memcpy(rt_tensor_data(t), &bits, rt_dtype_size(dt));
    if (dt.code == kDLBool) *(uint8_t *)rt_tensor_data(t) &= 1;
    if (dt.code == kDLFloat) {
      /* NaNs go to the metadata section (they have no literal); keep them
       * too: they must round-trip there. */
    }
    assert_ok(rt_ir_constant(m, (rt_ir_span_t){0}, t, &fields[i]));
    rt_tensor_release(t);
  }
  rt_ir_expr_t *tuple = NULL, *fn = NULL;
  assert_ok(rt_ir_tuple(m, (rt_ir_span_t){0}, N, fields, &tuple));
  assert_ok(rt_ir_function(m, (rt_ir_span_t){0}, 0, NULL, tuple, NULL, NULL, &fn));
  assert_ok(rt_ir_module_add(m, "main", fn));
  char *text = print(m, RT_PRINT_DEFAULT);
  rt_module_t *m2 = parse(text);
  rt_ir_expr_t *body = rt_ir_module_lookup(m2, "main")->fn.body;
  assert_int_equal(body->kind, RT_IR_TUPLE);
  for (int i = 0; i < N; ++i) {
    const rt_tensor_t *a = fields[i]->constant.value;
    const rt_tensor_t *b = body->tuple.fields[i]->constant.value;
    assert_true(rt_dtype_equal(rt_tensor_dtype(a), rt_tensor_dtype(b)));
    assert_int_equal(rt_tensor_rank(b), 0);
    assert_memory_equal(rt_tensor_data(a), rt_tensor_data(b), rt_dtype_size(rt_tensor_dtype(a)));
  }
  assert_true(rt_ir_module_struct_equal(m, m2));
  char *again = print(m2, RT_PRINT_DEFAULT);
  assert_string_equal(text, again);
  rt_mem_free(text);
  rt_mem_free(again);
  rt_module_release(m);
  rt_module_release(m2);
}

static void test_printer_meta_constants_bit_exact(void **state) {
  (void)state;
  rt_module_t *m = NULL;
  assert_ok(rt_ir_module_create(rt_allocator_system(), &m));
  rt_tensor_t *t = NULL, *u = NULL;
  int64_t shape[2] = {2, 3};
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, shape, &t));
  float *d = rt_tensor_data(t);
  for (int i = 0; i < 6; ++i) d[i] = (float)i * 0.1f - 0.25f;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_INT8, 0, NULL, &u));
  *(int8_t *)rt_tensor_data(u) = -7;
  rt_ir_expr_t *c1, *c2, *x, *call, *tup, *fn;
  assert_ok(rt_ir_constant(m, (rt_ir_span_t){0}, t, &c1));
  assert_ok(rt_ir_constant(m, (rt_ir_span_t){0}, u, &c2));
  rt_ir_type_t *ty;
  assert_ok(rt_ir_tensor_type(m, RT_DTYPE_FLOAT32, 2, shape, &ty));
  assert_ok(rt_ir_var(m, (rt_ir_span_t){0}, "x", ty, &x));
  rt_ir_expr_t *args[2] = {x, c1};
  rt_ir_expr_t *add = NULL;
  assert_ok(rt_ir_op_ref(m, (rt_ir_span_t){0}, rt_ir_op_lookup("add", 3), &add));
  assert_ok(rt_ir_call(m, (rt_ir_span_t){0}, add, 2, args, NULL, &call));
  rt_ir_expr_t *f3[3] = {call, c2, c1};
  assert_ok(rt_ir_tuple(m, (rt_ir_span_t){0}, 3, f3, &tup));
  assert_ok(rt_ir_function(m, (rt_ir_span_t){0}, 1, &x, tup, NULL, NULL, &fn));
  assert_ok(rt_ir_module_add(m, "main", fn));
  char *text = print(m, RT_PRINT_DEFAULT);
  /* c1 is shared: one metadata entry, referenced twice. */
  assert_non_null(strstr(text, "add(%x, meta[relay.Constant][0])"));
  assert_non_null(strstr(text, "(%0, meta[relay.Constant][1], meta[relay.Constant][0])"));
  assert_non_null(strstr(text, "#[metadata]"));
  rt_module_t *m2 = parse(text);
  assert_true(rt_ir_module_struct_equal(m, m2));
  rt_ir_expr_t *b = rt_ir_module_lookup(m2, "main")->fn.body;
  const rt_tensor_t *back = b->tuple.fields[2]->constant.value;
  assert_int_equal(rt_tensor_rank(back), 2);
  assert_memory_equal(rt_tensor_data(back), d, 24);
  assert_int_equal(*(int8_t *)rt_tensor_data(b->tuple.fields[1]->constant.value), -7);
  /* The shared constant stays one node. */
  assert_ptr_equal(b->tuple.fields[2], b->tuple.fields[0]->call.args[1]);
  char *again = print(m2, RT_PRINT_DEFAULT);
  assert_string_equal(text, again);
  char *nometa = print(m, RT_PRINT_NO_METADATA);
  assert_null(strstr(nometa, "#[metadata]"));
  assert_non_null(strstr(nometa, "metadata section has been omitted"));
  rt_mem_free(nometa);
  rt_mem_free(text);
  rt_mem_free(again);
  rt_tensor_release(t);
  rt_tensor_release(u);
  rt_module_release(m);
  rt_module_release(m2);
}

static void test_printer_unique_names(void **state) {
  (void)state;
  expect_print(HDR "def @main(%p0: float32, %p01: float32) {\n"
                   "  %0 = fn (%p0: float32) {\n    add(%p0, %p01)\n  };\n  %0(%p0)\n}\n",
               HDR "def @main(%p0: float32, %p01: float32) {\n"
                   "  %0 = fn (%p02: float32) {\n    add(%p02, %p01)\n  };\n  %0(%p0)\n}\n");
  /* Empty and non-alpha names get a `v` prefix; sequencing lets are "". */
  expect_print(HDR "def @main(%x: float32) {\n  exp(%x);\n  %x\n}\n",
               HDR "def @main(%x: float32) {\n  let %v = exp(%x);\n  %x\n}\n");
}

static void test_printer_scope_placement(void **state) {
  (void)state;
  /* Used in both branches: printed before the if, in the enclosing scope. */
  expect_print(HDR "def @main(%c: bool, %x: float32) {\n"
                   "  %0 = exp(%x);\n"
                   "  if (%c) { add(%0, 1f) } else { %1 = log(%x); multiply(%0, %1) }\n}\n",
               HDR "def @main(%c: bool, %x: float32) {\n"
                   "  %0 = exp(%x);\n"
                   "  if (%c) {\n    add(%0, 1f)\n  } else {\n    %1 = log(%x);\n"
                   "    multiply(%0, %1)\n  }\n}\n");
  /* Used only inside one branch (twice): printed inside that branch. */
  expect_print(HDR "def @main(%c: bool, %x: float32) {\n"
                   "  %0 = exp(%x);\n  %1 = add(%0, %0);\n"
                   "  if (%c) { %1 } else { %x }\n}\n",
               HDR "def @main(%c: bool, %x: float32) {\n"
                   "  if (%c) {\n    %0 = exp(%x);\n    add(%0, %0)\n  } else {\n    %x\n  }\n}\n");
  /* Both branches return the same node: it is bound outside. */
  expect_print(HDR "def @main(%c: bool, %x: float32) {\n"
                   "  %0 = exp(%x);\n  if (%c) { %0 } else { %0 }\n}\n",
               HDR "def @main(%c: bool, %x: float32) {\n"
                   "  %0 = exp(%x);\n  if (%c) {\n    %0\n  } else {\n    %0\n  }\n}\n");
  /* A node used in a fn literal and outside it: before the fn. */
  expect_print(HDR "def @main(%x: float32) {\n"
                   "  %0 = exp(%x);\n  %1 = fn (%y: float32) { add(%y, %0) };\n  %1(%0)\n}\n",
               HDR "def @main(%x: float32) {\n"
                   "  %0 = exp(%x);\n  %1 = fn (%y: float32) {\n    add(%y, %0)\n  };\n"
                   "  %1(%0)\n}\n");
  /* Let in final position continues the block; elsewhere it is a block. */
  expect_print(HDR "def @main(%x: float32) {\n"
                   "  let %a = exp(%x); %0 = add(%a, %x); let %b = log(%0); (%b, %0)\n}\n",
               HDR "def @main(%x: float32) {\n  let %a = exp(%x);\n  %0 = add(%a, %x);\n"
                   "  let %b = log(%0);\n  (%b, %0)\n}\n");
  expect_print(HDR "def @main(%x: float32) {\n  add({ let %a = exp(%x); %a }, %x)\n}\n",
               HDR "def @main(%x: float32) {\n  %0 = {\n    let %a = exp(%x);\n    %a\n  };\n"
                   "  add(%0, %x)\n}\n");
  /* Binary operators and curried calls print as plain calls. */
  expect_print(HDR "def @main(%a: float32, %b: float32) {\n  %a * %b + %a\n}\n",
               HDR "def @main(%a: float32, %b: float32) {\n  %0 = multiply(%a, %b);\n"
                   "  add(%0, %a)\n}\n");
}

static void test_printer_defs_sorted_and_attrs(void **state) {
  (void)state;
  expect_print(HDR "def @z(%x: Tensor[(1, 4), float32]) {\n"
                   "  nn.softmax(%x, axis=-1)\n}\n"
                   "def @a(%x: Tensor[(1, 4), float32]) {\n"
                   "  %0 = fn (%y: Tensor[(1, 4), float32], Primitive=1, name=\"k\") { nn.leaky_relu(%y, alpha=0.25f) };\n"
                   "  %1 = nn.dense(%x, %x);\n  %0(%1)\n}\n",
               HDR "def @a(%x: Tensor[(1, 4), float32]) {\n"
                   "  %0 = fn (%y: Tensor[(1, 4), float32], Primitive=1, name=\"k\") {\n"
                   "    nn.leaky_relu(%y)\n  };\n"
                   "  %1 = nn.dense(%x, %x, units=None);\n  %0(%1)\n}\n\n"
                   "def @z(%x: Tensor[(1, 4), float32]) {\n  nn.softmax(%x)\n}\n");
}

static void test_printer_print_expr(void **state) {
  (void)state;
  rt_module_t *m = parse(HDR "def @main(%x: float32) {\n  %0 = exp(%x);\n  add(%0, %0)\n}\n");
  rt_ir_expr_t *fn = rt_ir_module_lookup(m, "main");
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_ir_print_expr(fn->fn.body, RT_PRINT_NO_TYPES, &b);
  assert_string_equal(b.data, "free_var %x: float32;\n%0 = exp(%x);\nadd(%0, %0)");
  rt_strbuf_truncate(&b, 0);
  rt_ir_print_expr(fn, RT_PRINT_NO_TYPES, &b);
  assert_string_equal(b.data, "fn (%x: float32) {\n  %0 = exp(%x);\n  add(%0, %0)\n}");
  rt_strbuf_deinitialize(&b);
  assert_ok(rt_ir_infer_types(m));
  char *typed = print(m, RT_PRINT_DEFAULT);
  assert_string_equal(typed, HDR "def @main(%x: float32 /* ty=float32 */) -> float32 {\n"
                                 "  %0 = exp(%x) /* ty=float32 */;\n"
                                 "  add(%0, %0) /* ty=float32 */\n}\n");
  rt_mem_free(typed);
  rt_module_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_printer_shortest_floats),
      cmocka_unit_test(test_printer_scalars_bit_exact),
      cmocka_unit_test(test_printer_meta_constants_bit_exact),
      cmocka_unit_test(test_printer_unique_names),
      cmocka_unit_test(test_printer_scope_placement),
      cmocka_unit_test(test_printer_defs_sorted_and_attrs),
      cmocka_unit_test(test_printer_print_expr),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
