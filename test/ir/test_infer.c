/* Type inference over every construct, on programs parsed from text. The
 * expected types are derived by hand in the comments; errors are checked
 * for their position and wording. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "runtime/strbuf.h"
#include "test_util.h"
#include "runtime/mem.h"

/* Parses and infers `body` (a module without the version line) and returns
 * the printed FuncType of global `name`. */
static char *global_type(const char *text, const char *name) {
  char src[8192];
  snprintf(src, sizeof src, "#[version = \"0.0.5\"]\n%s", text);
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(src, strlen(src), "t.relay", &m));
  rt_ir_expr_t *fn = rt_ir_module_lookup(m, name);
  assert_non_null(fn);
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_ir_type_print(fn->checked_type, &b);
  char *out = rt_mem_strdup(b.data);
  rt_strbuf_deinitialize(&b);
  rt_module_release(m);
  return out;
}

#define EXPECT_TYPE(text, name, expected)   \
  do {                                      \
    char *got_ = global_type(text, name);   \
    assert_string_equal(got_, expected);    \
    rt_mem_free(got_);                             \
  } while (0)

/* Expects parse+infer to fail with a message containing `needle`. */
static void expect_error(const char *text, const char *needle) {
  char src[8192];
  snprintf(src, sizeof src, "#[version = \"0.0.5\"]\n%s", text);
  rt_module_t *m = NULL;
  assert_status(rt_module_parse(src, strlen(src), "t.relay", &m), INVALID_ARGUMENT, needle);
}

static void test_infer_broadcast_chain(void **state) {
  (void)state;
  /* (1,3) + (2,1) -> (2,3); * scalar -> (2,3). */
  EXPECT_TYPE("def @main(%a: Tensor[(1, 3), float32], %b: Tensor[(2, 1), float32]) {\n"
              "  %0 = add(%a, %b);\n"
              "  multiply(%0, 2f)\n"
              "}\n",
              "main", "fn (Tensor[(1, 3), float32], Tensor[(2, 1), float32]) -> Tensor[(2, 3), float32]");
}

static void test_infer_let_takes_value_type(void **state) {
  (void)state;
  /* let %y = relu(x) (4,) ; tuple (y, y) */
  EXPECT_TYPE("def @main(%x: Tensor[(4), float32]) {\n"
              "  let %y = nn.relu(%x);\n"
              "  (%y, %y)\n"
              "}\n",
              "main", "fn (Tensor[(4), float32]) -> (Tensor[(4), float32], Tensor[(4), float32])");
}

static void test_infer_if_and_recursion(void **state) {
  (void)state;
  /* Recursion with a declared result type: int32 -> int32. */
  EXPECT_TYPE("def @fact(%n: int32) -> int32 {\n"
              "  %0 = equal(%n, 0);\n"
              "  if (%0) {\n"
              "    1\n"
              "  } else {\n"
              "    %1 = subtract(%n, 1);\n"
              "    %2 = @fact(%1);\n"
              "    multiply(%n, %2)\n"
              "  }\n"
              "}\n",
              "fact", "fn (int32) -> int32");
}

static void test_infer_callee_first_without_annotation(void **state) {
  (void)state;
  /* @helper has no result annotation; @main uses it in an op, which works
   * because callees are inferred first. */
  EXPECT_TYPE("def @helper(%x: Tensor[(2, 2), float32]) {\n"
              "  nn.relu(%x)\n"
              "}\n"
              "def @main(%x: Tensor[(2, 2), float32]) {\n"
              "  %0 = @helper(%x);\n"
              "  sum(%0)\n"
              "}\n",
              "main", "fn (Tensor[(2, 2), float32]) -> float32");
}

static void test_infer_closure_capture(void **state) {
  (void)state;
  /* A fn literal capturing %x, returned and called: its type is
   * fn (Tensor[(3), float32]) -> Tensor[(3), float32]. */
  EXPECT_TYPE("def @main(%x: Tensor[(3), float32], %y: Tensor[(3), float32]) {\n"
              "  %0 = fn (%z: Tensor[(3), float32]) {\n"
              "    add(%z, %x)\n"
              "  };\n"
              "  %0(%y)\n"
              "}\n",
              "main", "fn (Tensor[(3), float32], Tensor[(3), float32]) -> Tensor[(3), float32]");
}

static void test_infer_tuple_projection(void **state) {
  (void)state;
  /* split into 2 sections along axis 1 of (4, 6): two (4, 3). */
  EXPECT_TYPE("def @main(%x: Tensor[(4, 6), float32]) {\n"
              "  %0 = split(%x, indices_or_sections=2, axis=1);\n"
              "  %1 = %0.1;\n"
              "  %1\n"
              "}\n",
              "main", "fn (Tensor[(4, 6), float32]) -> Tensor[(4, 3), float32]");
}

static void test_infer_dynamic_dims(void **state) {
  (void)state;
  /* (?, 4) dense (8, 4) -> (?, 8). */
  EXPECT_TYPE("def @main(%x: Tensor[(?, 4), float32], %w: Tensor[(8, 4), float32]) {\n"
              "  nn.dense(%x, %w)\n"
              "}\n",
              "main", "fn (Tensor[(?, 4), float32], Tensor[(8, 4), float32]) -> Tensor[(?, 8), float32]");
}

static void test_infer_unannotated_let_in_if(void **state) {
  (void)state;
  /* if (x > 0f) { x } else { negative(x) } on float32 scalars. */
  EXPECT_TYPE("def @main(%x: float32) {\n"
              "  %0 = greater(%x, 0f);\n"
              "  if (%0) {\n"
              "    %x\n"
              "  } else {\n"
              "    negative(%x)\n"
              "  }\n"
              "}\n",
              "main", "fn (float32) -> float32");
}

static void test_infer_error_broadcast(void **state) {
  (void)state;
  expect_error("def @main(%x: Tensor[(1, 3), float32], %y: Tensor[(1, 4), float32]) {\n"
               "  %0 = add(%x, %y);\n"
               "  %0\n"
               "}\n",
               "t.relay:3:8: error: %0 = add(%x, %y): ");
  expect_error("def @main(%x: Tensor[(1, 3), float32], %y: Tensor[(1, 4), float32]) {\n"
               "  %0 = add(%x, %y);\n"
               "  %0\n"
               "}\n",
               "(1, 3) and (1, 4) do not broadcast");
}

/* String tensors (issue 19): cast and string_normalizer take them; any
 * other op is refused at type inference, naming it, since its kernels
 * copy elements as bytes. */
static void test_infer_strings(void **state) {
  (void)state;
  EXPECT_TYPE("def @main(%s: Tensor[(2, 3), string]) {\n"
              "  %0 = string_normalizer(%s, stopwords=[\"a\"]);\n"
              "  cast(%s, dtype=\"float32\")\n"
              "}\n",
              "main", "fn (Tensor[(2, 3), string]) -> Tensor[(2, 3), float32]");
  expect_error("def @main(%s: Tensor[(2, 3), string]) {\n"
               "  reshape(%s, newshape=[6])\n"
               "}\n",
               "this op does not take or give string tensors");
  expect_error("def @main(%x: Tensor[(2, 3), float32]) {\n"
               "  %0 = cast(%x, dtype=\"string\");\n"
               "  transpose(%0)\n"
               "}\n",
               "this op does not take or give string tensors");
}

static void test_infer_error_if_branches(void **state) {
  (void)state;
  expect_error("def @main(%b: bool, %x: float32) {\n"
               "  if (%b) {\n"
               "    %x\n"
               "  } else {\n"
               "    1\n"
               "  }\n"
               "}\n",
               "the branches of if disagree: the else branch: expected float32, got int32");
}

static void test_infer_if_joins_branch_shapes(void **state) {
  (void)state;
  /* then (2, 1), else (2, 4): the if is (2, ?); `?` against a static dim
   * stays `?`; equal dims stay; tuples join field by field. */
  EXPECT_TYPE("def @main(%b: bool, %x: Tensor[(2, 4), float32]) {\n"
              "  if (%b) {\n"
              "    sum(%x, axis=[1], keepdims=True)\n"
              "  } else {\n"
              "    %x\n"
              "  }\n"
              "}\n",
              "main", "fn (bool, Tensor[(2, 4), float32]) -> Tensor[(2, ?), float32]");
  EXPECT_TYPE("def @main(%b: bool, %x: Tensor[(?, 4), float32], %y: Tensor[(3, 4), float32]) {\n"
              "  if (%b) {\n"
              "    (%y, %x)\n"
              "  } else {\n"
              "    (%y, %y)\n"
              "  }\n"
              "}\n",
              "main",
              "fn (bool, Tensor[(?, 4), float32], Tensor[(3, 4), float32]) -> "
              "(Tensor[(3, 4), float32], Tensor[(?, 4), float32])");
  /* The joined type reaches the ops after the if. */
  EXPECT_TYPE("def @main(%b: bool, %x: Tensor[(2, 3), float32], %y: Tensor[(2, 5), float32]) {\n"
              "  %0 = if (%b) { %x } else { %y };\n"
              "  nn.relu(%0)\n"
              "}\n",
              "main",
              "fn (bool, Tensor[(2, 3), float32], Tensor[(2, 5), float32]) -> Tensor[(2, ?), float32]");
}

static void test_infer_error_if_branch_ranks(void **state) {
  (void)state;
  expect_error("def @main(%b: bool, %x: Tensor[(2, 3), float32]) {\n"
               "  if (%b) {\n"
               "    expand_dims(%x, axis=1)\n"
               "  } else {\n"
               "    %x\n"
               "  }\n"
               "}\n",
               "the branches of if disagree: the else branch: expected Tensor[(2, 1, 3), float32], "
               "got Tensor[(2, 3), float32]");
}

static void test_infer_error_condition(void **state) {
  (void)state;
  expect_error("def @main(%c: Tensor[(2), bool]) {\n"
               "  if (%c) {\n"
               "    1\n"
               "  } else {\n"
               "    0\n"
               "  }\n"
               "}\n",
               "the condition of if must be a 0-d bool: expected bool, got Tensor[(2), bool]");
}

static void test_infer_error_declared_result(void **state) {
  (void)state;
  expect_error("def @main(%x: Tensor[(2), float32]) -> Tensor[(3), float32] {\n"
               "  nn.relu(%x)\n"
               "}\n",
               "does not match its declared result type: expected Tensor[(3), float32], got "
               "Tensor[(2), float32]");
}

static void test_infer_error_call_arity_and_args(void **state) {
  (void)state;
  expect_error("def @f(%x: float32) -> float32 { %x }\n"
               "def @main(%x: float32) {\n"
               "  @f(%x, %x)\n"
               "}\n",
               "the function takes 1 argument, got 2");
  expect_error("def @f(%x: float32) -> float32 { %x }\n"
               "def @main(%x: int32) {\n"
               "  @f(%x)\n"
               "}\n",
               "argument 1 of the call: expected float32, got int32");
}

static void test_infer_error_tuple_index(void **state) {
  (void)state;
  expect_error("def @main(%x: float32) {\n"
               "  %0 = (%x, %x);\n"
               "  %0.2\n"
               "}\n",
               "tuple index 2 is out of range for a 2-tuple");
}

static void test_infer_error_recursion_needs_annotation(void **state) {
  (void)state;
  /* No declared result: the recursive call's type is unknown at multiply. */
  expect_error("def @f(%n: int32) {\n"
               "  %0 = equal(%n, 0);\n"
               "  if (%0) {\n"
               "    1\n"
               "  } else {\n"
               "    %1 = @f(%n);\n"
               "    multiply(%n, %1)\n"
               "  }\n"
               "}\n",
               "the type of argument 2 is not known here");
}

/* rt_module_bind_input_shapes: `?` dims become the given ones and every
 * type that follows from them is inferred again (hand-derived: (5, 4)
 * transposed to (4, 5), summed over axis 1 to (4)); the original module
 * keeps its `?`; bad shapes are errors naming the input. */
static void test_infer_bind_input_shapes(void **state) {
  (void)state;
  static const char src[] =
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(?, 4), float32], %y: Tensor[(4), float32]) {\n"
      "  %0 = add(%x, %y);\n"
      "  %1 = transpose(%0);\n"
      "  let %f = fn (%z: Tensor[(4, ?), float32]) { sum(%z, axis=[1]) };\n"
      "  %f(%1)\n"
      "}\n";
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(src, strlen(src), "b.relay", &m));
  const int64_t d54[2] = {5, 4}, dkeep[2] = {-1, 4}, d53[2] = {5, 3}, dneg[2] = {-3, 4};
  rt_input_shape_t s = {"x", 2, d54};
  rt_module_t *b = NULL;
  assert_ok(rt_module_bind_input_shapes(m, 1, &s, &b));
  rt_strbuf_t t;
  rt_strbuf_initialize(&t);
  rt_ir_type_print(rt_ir_module_lookup(b, "main")->checked_type, &t);
  assert_string_equal(t.data, "fn (Tensor[(5, 4), float32], Tensor[(4), float32]) -> Tensor[(4), float32]");
  rt_strbuf_deinitialize(&t);
  rt_strbuf_initialize(&t);
  rt_ir_type_print(rt_ir_module_lookup(m, "main")->checked_type, &t);
  assert_string_equal(t.data, "fn (Tensor[(?, 4), float32], Tensor[(4), float32]) -> Tensor[(4), float32]");
  rt_strbuf_deinitialize(&t);
  rt_module_release(b);
  /* -1 keeps the declared dim. */
  s.dims = dkeep;
  assert_ok(rt_module_bind_input_shapes(m, 1, &s, &b));
  const rt_ir_type_t *px = rt_ir_type_resolve(rt_ir_module_lookup(b, "main")->fn.params[0]->checked_type);
  assert_int_equal(px->tensor.shape[0], RT_DIM_ANY);
  rt_module_release(b);
  s.dims = d53;
  assert_status(rt_module_bind_input_shapes(m, 1, &s, &b), INVALID_ARGUMENT,
                "input 'x' is declared (?, 4); the shape given has 3 for its static dim 1");
  assert_null(b);
  s.dims = dneg;
  assert_status(rt_module_bind_input_shapes(m, 1, &s, &b), INVALID_ARGUMENT, "dim 0 of the shape given is -3");
  s = (rt_input_shape_t){"x", 1, d54};
  assert_status(rt_module_bind_input_shapes(m, 1, &s, &b), INVALID_ARGUMENT, "has rank 1");
  s = (rt_input_shape_t){"q", 2, d54};
  assert_status(rt_module_bind_input_shapes(m, 1, &s, &b), INVALID_ARGUMENT, "no input named 'q' (inputs: x, y)");
  rt_input_shape_t twice[2] = {{"x", 2, d54}, {"x", 2, d54}};
  assert_status(rt_module_bind_input_shapes(m, 2, twice, &b), INVALID_ARGUMENT, "given twice");
  /* A shape the program cannot take: the type error, positioned. */
  const int64_t d4[1] = {3};
  s = (rt_input_shape_t){"y", 1, d4};
  assert_status(rt_module_bind_input_shapes(m, 1, &s, &b), INVALID_ARGUMENT, "declared (4)");
  rt_module_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_infer_broadcast_chain),
      cmocka_unit_test(test_infer_let_takes_value_type),
      cmocka_unit_test(test_infer_if_and_recursion),
      cmocka_unit_test(test_infer_callee_first_without_annotation),
      cmocka_unit_test(test_infer_closure_capture),
      cmocka_unit_test(test_infer_tuple_projection),
      cmocka_unit_test(test_infer_dynamic_dims),
      cmocka_unit_test(test_infer_unannotated_let_in_if),
      cmocka_unit_test(test_infer_error_broadcast),
      cmocka_unit_test(test_infer_strings),
      cmocka_unit_test(test_infer_error_if_branches),
      cmocka_unit_test(test_infer_error_condition),
      cmocka_unit_test(test_infer_error_declared_result),
      cmocka_unit_test(test_infer_error_call_arity_and_args),
      cmocka_unit_test(test_infer_if_joins_branch_shapes),
      cmocka_unit_test(test_infer_error_if_branch_ranks),
      cmocka_unit_test(test_infer_error_tuple_index),
      cmocka_unit_test(test_infer_error_recursion_needs_annotation),
      cmocka_unit_test(test_infer_bind_input_shapes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
