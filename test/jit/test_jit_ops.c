/* The JIT's differential suite: every op that lowers, as a one-op function
 * (and a few fused chains), compiled in ONE batch through the JIT and
 * compared with the reference interpreter on seeded random inputs.
 * Tolerances: float32 rel 1e-5 + abs 1e-6 for elementwise ops, 1e-4 for
 * accumulations (the JIT accumulates float32 in float with reassociation, the
 * reference in double); float16 2e-3; integers and bools exact. When the
 * reference fails on the values (integer division by zero, an out-of-range
 * index) the kernel must fail too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit_test_util.h"
#include "runtime/mem.h"

typedef enum { E, A, H } tol_t;

typedef struct case_t {
  const char *sig;   /* params */
  const char *body;  /* the function body */
  tol_t tol;
} case_t;

#define F32 "float32"
static const char *const kUnaryF[] = {
    "negative", "abs", "sign", "floor", "ceil", "round", "trunc", "exp", "log", "log2",
    "log10", "sqrt", "rsqrt", "sigmoid", "tanh", "erf", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "isnan", "isinf",
    "isfinite", "logical_not", "copy", "nn.relu", "zeros_like", "ones_like"};
static const char *const kUnaryI[] = {
    "negative", "abs", "sign", "floor", "round", "exp", "sqrt", "logical_not",
    "bitwise_not", "copy", "nn.relu", "isnan", "isfinite", "sigmoid"};
static const char *const kBinaryF[] = {
    "add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "mod",
    "floor_divide", "floor_mod", "trunc_divide", "trunc_mod", "logical_and", "logical_or",
    "logical_xor", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"};
static const char *const kBinaryI[] = {
    "add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "mod",
    "floor_divide", "floor_mod", "trunc_divide", "trunc_mod", "logical_and", "logical_or",
    "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"};
static const char *const kDivI[] = {"divide", "mod", "floor_divide", "floor_mod",
                                    "trunc_divide", "trunc_mod"};

static const case_t kFixed[] = {
    /* dtypes */
    {"%a: Tensor[(3, 5), float64]", "tanh(%a)", E},
    {"%a: Tensor[(3, 5), float64], %b: Tensor[(5), float64]", "power(%a, %b)", E},
    {"%a: Tensor[(4, 3), float16]", "exp(%a)", H},
    {"%a: Tensor[(4, 3), float16], %b: Tensor[(4, 3), float16]", "add(%a, %b)", H},
    {"%a: Tensor[(2, 9), uint8]", "negative(%a)", E},
    {"%a: Tensor[(2, 9), uint8], %b: Tensor[(9), uint8]", "subtract(%a, %b)", E},
    {"%a: Tensor[(2, 9), uint8], %b: Tensor[(9), uint8]", "right_shift(%a, %b)", E},
    {"%a: Tensor[(2, 9), uint8], %b: Tensor[(9), uint8]", "less(%a, %b)", E},
    {"%a: Tensor[(2, 9), int8], %b: Tensor[(2, 9), int8]", "left_shift(%a, %b)", E},
    {"%a: Tensor[(2, 9), int8], %b: Tensor[(2, 9), int8]", "multiply(%a, %b)", E},
    {"%a: Tensor[(2, 9), int64], %b: Tensor[(2, 9), int64]", "power(%a, %b)", E},
    {"%a: Tensor[(7), bool], %b: Tensor[(7), bool]", "logical_xor(%a, %b)", E},
    {"%a: Tensor[(7), bool], %b: Tensor[(7), bool]", "add(%a, %b)", E},
    {"%a: Tensor[(7), bool]", "bitwise_not(%a)", E},
    {"%a: Tensor[(7), bool]", "logical_not(%a)", E},
    /* elementwise with attributes */
    {"%a: Tensor[(3, 6), float32]", "nn.leaky_relu(%a, alpha=0.1f)", E},
    {"%a: Tensor[(3, 6), int32]", "nn.leaky_relu(%a, alpha=0.5f)", E},
    {"%a: Tensor[(3, 6), float32]", "clip(%a, a_min=-0.5f, a_max=0.25f)", E},
    {"%a: Tensor[(3, 6), int32]", "clip(%a, a_min=-2.5f, a_max=3f)", E},
    {"%a: Tensor[(3, 6), float32]", "cast(%a, dtype=\"int8\")", E},
    {"%a: Tensor[(3, 6), float32]", "cast(multiply(%a, 300f), dtype=\"uint8\")", E},
    {"%a: Tensor[(3, 6), float32]", "cast(%a, dtype=\"bool\")", E},
    {"%a: Tensor[(3, 6), float32]", "cast(%a, dtype=\"float16\")", H},
    {"%a: Tensor[(3, 6), int32]", "cast(%a, dtype=\"float32\")", E},
    {"%a: Tensor[(3, 6), int32]", "cast(multiply(%a, 40), dtype=\"int8\")", E},
    {"%a: Tensor[(3, 6), float32], %b: Tensor[(2), int32]", "cast_like(%a, %b)", E},
    {"%a: Tensor[(3, 6), float32]", "full_like(%a, 3.5f)", E},
    {"%a: Tensor[(2, 3, 4), float32], %b: Tensor[(3), float32]", "nn.prelu(%a, %b)", E},
    {"%a: Tensor[(2, 3, 4), float32], %b: Tensor[(4), float32]", "nn.bias_add(%a, %b, axis=-1)", E},
    {"%a: Tensor[(2, 3, 4), int32], %b: Tensor[(3), int32]", "nn.bias_add(%a, %b)", E},
    {"%c: Tensor[(3, 1), bool], %a: Tensor[(3, 4), float32], %b: Tensor[(4), float32]", "where(%c, %a, %b)", E},
    {"%a: Tensor[(3, 4), float32], %b: Tensor[(3, 4), float32]", "where(greater(%a, 0f), %a, %b)", E},
    {"%a: Tensor[(3, 4), int32], %b: Tensor[(4), int32]", "where(%a, %a, %b)", E},
    /* broadcasting */
    {"%a: Tensor[(3, 1, 5), float32], %b: Tensor[(4, 5), float32]", "add(%a, %b)", E},
    {"%a: Tensor[(1), float32], %b: Tensor[(2, 3), float32]", "multiply(%a, %b)", E},
    {"%a: Tensor[(1, 1), float32], %b: Tensor[(1, 1), float32]", "subtract(%a, %b)", E},
    {"%a: Tensor[(), float32], %b: Tensor[(2, 3), float32]", "maximum(%a, %b)", E},
    {"%a: Tensor[(), float32]", "exp(%a)", E},
    /* reductions */
    {"%a: Tensor[(4, 5, 6), float32]", "sum(%a, axis=[1])", A},
    {"%a: Tensor[(4, 5, 6), float32]", "sum(%a)", A},
    {"%a: Tensor[(4, 5, 6), float32]", "sum(%a, axis=[0, 2], keepdims=True)", A},
    {"%a: Tensor[(4, 5, 6), float32]", "sum(%a, axis=[1], exclude=True)", A},
    {"%a: Tensor[(4, 5, 6), float32]", "mean(%a, axis=[-1])", A},
    {"%a: Tensor[(4, 5, 6), float32]", "max(%a, axis=[1, 2])", E},
    {"%a: Tensor[(4, 5, 6), float32]", "min(%a, axis=[0])", E},
    {"%a: Tensor[(4, 3), float32]", "prod(%a, axis=[1])", A},
    {"%a: Tensor[(4, 5), int32]", "sum(%a, axis=[1])", E},
    {"%a: Tensor[(4, 5), int32]", "mean(%a, axis=[1])", E},
    {"%a: Tensor[(4, 5), uint8]", "max(%a, axis=[0])", E},
    {"%a: Tensor[(4, 5), int8]", "prod(%a)", E},
    {"%a: Tensor[(4, 5), bool]", "all(%a, axis=[1])", E},
    {"%a: Tensor[(4, 5), bool]", "any(%a, axis=[0], keepdims=True)", E},
    {"%a: Tensor[(4, 5), float32]", "all(%a)", E},
    {"%a: Tensor[(4, 7), float32]", "argmax(%a, axis=[1])", E},
    {"%a: Tensor[(4, 7), float32]", "argmin(%a, axis=[0], keepdims=True)", E},
    {"%a: Tensor[(4, 7), int32]", "argmax(%a, axis=[1], select_last_index=True)", E},
    {"%a: Tensor[(4, 7), int32]", "argmin(%a)", E},
    {"%a: Tensor[(4, 7), float32]", "variance(%a, mean(%a, axis=[1], keepdims=True), axis=[1])", A},
    {"%a: Tensor[(4, 7), float32]", "variance(%a, mean(%a, axis=[1], keepdims=True), axis=[1], unbiased=True, keepdims=True)", A},
    /* data movement */
    {"%a: Tensor[(3, 4, 5), float32]", "reshape(%a, newshape=[12, 5])", E},
    {"%a: Tensor[(3, 4, 5), float32]", "reshape(%a, newshape=[-1])", E},
    {"%a: Tensor[(3, 4, 5), int8]", "reshape(%a, newshape=[5, 0, 3])", E},
    {"%a: Tensor[(3, 4, 5), float32], %b: Tensor[(2, 30), float32]", "reshape_like(%a, %b)", E},
    {"%a: Tensor[(3, 1, 5, 1), float32]", "squeeze(%a)", E},
    {"%a: Tensor[(3, 1, 5, 1), float32]", "squeeze(%a, axis=[1])", E},
    {"%a: Tensor[(3, 5), float32]", "expand_dims(%a, axis=1, num_newaxis=2)", E},
    {"%a: Tensor[(3, 4, 5), float32]", "transpose(%a)", E},
    {"%a: Tensor[(3, 4, 5), uint8]", "transpose(%a, axes=[1, 2, 0])", E},
    {"%a: Tensor[(2, 3, 4), float32]", "nn.batch_flatten(%a)", E},
    {"%a: Tensor[(2, 3), float32], %b: Tensor[(2, 4), float32]", "concatenate((%a, %b), axis=1)", E},
    {"%a: Tensor[(2, 3), float32], %b: Tensor[(1, 3), float32], %c: Tensor[(3, 3), float32]", "concatenate((%a, %b, %c))", E},
    {"%a: Tensor[(2, 3), int32], %b: Tensor[(2, 3), int32]", "stack((%a, %b), axis=1)", E},
    {"%a: Tensor[(2, 6), float32]", "%0 = split(%a, indices_or_sections=3, axis=1); %0.1", E},
    {"%a: Tensor[(2, 6), float32]", "%0 = split(%a, indices_or_sections=[1, 4], axis=1); (%0.0, %0.2)", E},
    {"%a: Tensor[(5, 6), float32]", "strided_slice(%a, begin=[1, 0], end=[4, 6], strides=[1, 2])", E},
    {"%a: Tensor[(5, 6), float32]", "strided_slice(%a, begin=[-1, 5], end=[0, -7], strides=[-2, -1])", E},
    {"%a: Tensor[(5, 6), float32]", "strided_slice(%a, begin=[1], end=[2], slice_mode=\"size\", axes=[1])", E},
    {"%a: Tensor[(5, 6), float32]", "strided_slice(%a, begin=[1], end=[4], strides=[1, 2])", E},
    {"%a: Tensor[(5, 6), float32], %i: Tensor[(2, 3), int32]", "take(%a, %i, axis=1)", E},
    {"%a: Tensor[(5, 6), float32], %i: Tensor[(4), int32]", "take(%a, %i, axis=0, mode=\"wrap\")", E},
    {"%a: Tensor[(5, 6), float32], %i: Tensor[(4), int32]", "take(%a, %i)", E},
    {"%a: Tensor[(5, 16), float32], %i: Tensor[(4), uint8]", "take(%a, %i, axis=1, mode=\"fast\")", E},
    {"%a: Tensor[(5, 9), float32], %i: Tensor[(4), int32]", "take(%a, %i, axis=1, mode=\"fast\")", E},
    {"%a: Tensor[(3, 16), float32], %i: Tensor[(3, 5), uint8]", "gather(%a, %i, axis=1)", E},
    {"%a: Tensor[(3, 1), float32]", "broadcast_to(%a, shape=[2, 3, 4])", E},
    {"%a: Tensor[(2, 3), float32]", "tile(%a, reps=[2, 1, 2])", E},
    {"%a: Tensor[(2, 3), float32]", "repeat(%a, repeats=2, axis=1)", E},
    {"%a: Tensor[(2, 3), float32]", "reverse(%a, axis=0)", E},
    {"%a: Tensor[(2, 3), float32]", "nn.pad(%a, 0.5f, pad_width=[[1, 0], [2, 1]])", E},
    {"%a: Tensor[(2, 4), float32]", "nn.pad(%a, 0f, pad_width=[[1, 1], [2, 2]], pad_mode=\"edge\")", E},
    {"%a: Tensor[(3, 4), float32]", "nn.pad(%a, 0f, pad_width=[[1, 2], [3, 1]], pad_mode=\"reflect\")", E},
    {"%i: Tensor[(2, 3), int32]", "one_hot(%i, 1f, 0f, depth=5, axis=-1, dtype=\"float32\")", E},
    {"%i: Tensor[(4), int32]", "one_hot(%i, 3, -1, depth=6, axis=0, dtype=\"int32\")", E},
    {"%a: Tensor[(2), float32]", "add(%a, zeros(shape=[3, 2], dtype=\"float32\"))", E},
    {"%a: Tensor[(2), float32]", "add(%a, ones(shape=[3, 2], dtype=\"float32\"))", E},
    {"%a: Tensor[(2), float32]", "add(%a, full(2.5f, shape=[3, 2], dtype=\"float32\"))", E},
    /* anchors */
    {"%x: Tensor[(4, 8), float32], %w: Tensor[(5, 8), float32]", "nn.dense(%x, %w)", A},
    {"%x: Tensor[(1, 3, 7), float32], %w: Tensor[(2, 7), float32]", "nn.dense(%x, %w)", A},
    {"%x: Tensor[(4, 8), int8], %w: Tensor[(5, 8), int8]", "nn.dense(%x, %w, out_dtype=\"int32\")", E},
    {"%a: Tensor[(3, 4), float32], %b: Tensor[(4, 5), float32]", "nn.matmul(%a, %b)", A},
    {"%a: Tensor[(4, 3), float32], %b: Tensor[(5, 4), float32]", "nn.matmul(%a, %b, transpose_a=True, transpose_b=True)", A},
    {"%a: Tensor[(2, 3, 4), float32], %b: Tensor[(4, 5), float32]", "nn.matmul(%a, %b)", A},
    {"%a: Tensor[(2, 3, 4), float32], %b: Tensor[(2, 4, 5), float32]", "nn.batch_matmul(%a, %b)", A},
    {"%a: Tensor[(2, 3, 4), float32], %b: Tensor[(1, 5, 4), float32]", "nn.batch_matmul(%a, %b, transpose_b=True)", A},
    {"%a: Tensor[(1, 4, 3), float32], %b: Tensor[(3, 4, 5), float32]", "nn.batch_matmul(%a, %b, transpose_a=True)", A},
    {"%x: Tensor[(1, 3, 7, 7), float32], %w: Tensor[(4, 3, 3, 3), float32]", "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3])", A},
    {"%x: Tensor[(2, 3, 9, 8), float32], %w: Tensor[(4, 3, 3, 2), float32]", "nn.conv2d(%x, %w, strides=[2, 3], padding=[1, 0, 2, 1], dilation=[2, 1], channels=4, kernel_size=[3, 2])", A},
    {"%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 1, 3, 3), float32]", "nn.conv2d(%x, %w, padding=[1, 1], groups=4, channels=4, kernel_size=[3, 3])", A},
    {"%x: Tensor[(1, 4, 5, 5), float32], %w: Tensor[(6, 2, 1, 1), float32]", "nn.conv2d(%x, %w, groups=2, channels=6, kernel_size=[1, 1])", A},
    {"%x: Tensor[(1, 2, 5, 5), int8], %w: Tensor[(3, 2, 3, 3), int8]", "nn.conv2d(%x, %w, padding=[1, 1], channels=3, kernel_size=[3, 3], out_dtype=\"int32\")", E},
    {"%x: Tensor[(2, 3, 11), float32], %w: Tensor[(4, 3, 3), float32]", "nn.conv1d(%x, %w, strides=[2], padding=[1, 2], channels=4, kernel_size=[3])", A},
    {"%x: Tensor[(1, 2, 7, 7), float32]", "nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])", E},
    {"%x: Tensor[(1, 2, 7, 6), float32]", "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)", E},
    {"%x: Tensor[(1, 2, 7, 7), float32]", "nn.avg_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])", E},
    {"%x: Tensor[(1, 2, 7, 7), float32]", "nn.avg_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], count_include_pad=True)", E},
    {"%x: Tensor[(1, 2, 7, 7), int32]", "nn.avg_pool2d(%x, pool_size=[2, 2])", E},
    {"%x: Tensor[(2, 3, 9), float32]", "nn.max_pool1d(%x, pool_size=[3], strides=[2], padding=[1])", E},
    {"%x: Tensor[(2, 3, 9), float32]", "nn.avg_pool1d(%x, pool_size=[2], dilation=[2])", E},
    {"%x: Tensor[(2, 3, 5, 4), float32]", "nn.global_avg_pool2d(%x)", A},
    {"%x: Tensor[(2, 3, 5, 4), float32]", "nn.global_max_pool2d(%x)", E},
    {"%x: Tensor[(1, 2, 5, 7), float32]", "nn.adaptive_avg_pool2d(%x, output_size=[2, 3])", A},
    {"%x: Tensor[(1, 2, 5, 7), float32]", "nn.adaptive_max_pool2d(%x, output_size=[3, 3])", E},
    {"%x: Tensor[(1, 2, 7), float32]", "nn.adaptive_avg_pool1d(%x, output_size=[3])", A},
    {"%x: Tensor[(3, 10), float32]", "nn.softmax(%x)", A},
    {"%x: Tensor[(2, 5, 3), float32]", "nn.softmax(%x, axis=1)", A},
    {"%x: Tensor[(3, 10), float32]", "nn.log_softmax(%x)", A},
    /* fused chains */
    {"%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4, 1, 1), float32]",
     "%0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]); %1 = add(%0, %b); nn.relu(%1)", A},
    {"%x: Tensor[(3, 16), float32], %w: Tensor[(8, 16), float32], %b: Tensor[(8), float32]",
     "add(nn.dense(%x, %w), %b)", A},
    {"%x: Tensor[(4, 9), float32]", "sum(exp(%x), axis=[1])", A},
    {"%x: Tensor[(2, 12), float32], %y: Tensor[(4, 2, 3), float32]",
     "%0 = reshape(%x, newshape=[2, 3, 4]); %1 = transpose(%0, axes=[2, 0, 1]); add(%1, %y)", E},
    {"%x: Tensor[(2, 8), float32], %w: Tensor[(10, 8), float32]", "nn.softmax(nn.dense(%x, %w))", A},
    {"%x: Tensor[(3, 4), float32]", "%0 = exp(%x); %1 = add(%0, %0); multiply(%1, %0)", E},
    {"%x: Tensor[(1, 2, 6, 6), float32]", "nn.max_pool2d(nn.relu(%x), pool_size=[2, 2], strides=[2, 2])", E},
    {"%x: Tensor[(3, 4), int32], %y: Tensor[(3, 4), int32]", "divide(%x, add(abs(%y), 1))", E},
};

typedef struct built_t {
  char sig[256], body[512];
  tol_t tol;
} built_t;

static int32_t build_cases(built_t *out) {
  int32_t n = 0;
  static const char *shapes[] = {"(3, 7)", "(1)", "(2, 3, 5)"};
  for (size_t i = 0; i < RT_COUNTOF(kUnaryF); ++i) {
    for (int s = 0; s < (i < 8 ? 3 : 1); ++s) {
      snprintf(out[n].sig, 256, "%%a: Tensor[%s, float32]", shapes[s]);
      snprintf(out[n].body, 512, "%s(%%a)", kUnaryF[i]);
      out[n++].tol = E;
    }
  }
  for (size_t i = 0; i < RT_COUNTOF(kUnaryI); ++i) {
    snprintf(out[n].sig, 256, "%%a: Tensor[(4, 5), int32]");
    snprintf(out[n].body, 512, "%s(%%a)", kUnaryI[i]);
    out[n++].tol = E;
  }
  for (size_t i = 0; i < RT_COUNTOF(kBinaryF); ++i) {
    snprintf(out[n].sig, 256, "%%a: Tensor[(3, 1, 5), float32], %%b: Tensor[(4, 5), float32]");
    snprintf(out[n].body, 512, "%s(%%a, %%b)", kBinaryF[i]);
    out[n++].tol = E;
  }
  for (size_t i = 0; i < RT_COUNTOF(kBinaryI); ++i) {
    snprintf(out[n].sig, 256, "%%a: Tensor[(2, 1, 7), int32], %%b: Tensor[(3, 7), int32]");
    snprintf(out[n].body, 512, "%s(%%a, %%b)", kBinaryI[i]);
    out[n++].tol = E;
  }
  /* Integer division with divisors of both signs and no zero. */
  for (size_t i = 0; i < RT_COUNTOF(kDivI); ++i) {
    snprintf(out[n].sig, 256, "%%a: Tensor[(5, 7), int32], %%b: Tensor[(5, 7), int32]");
    snprintf(out[n].body, 512,
             "%s(%%a, where(less(%%b, 0), subtract(%%b, 1), add(%%b, 1)))", kDivI[i]);
    out[n++].tol = E;
  }
  for (size_t i = 0; i < RT_COUNTOF(kFixed); ++i) {
    snprintf(out[n].sig, 256, "%s", kFixed[i].sig);
    snprintf(out[n].body, 512, "%s", kFixed[i].body);
    out[n++].tol = kFixed[i].tol;
  }
  return n;
}

#define MAX_CASES 400

static void test_jit_ops_differential(void **state) {
  (void)state;
  built_t *cases = rt_mem_calloc(MAX_CASES, sizeof *cases);
  const int32_t n = build_cases(cases);
  assert_true(n <= MAX_CASES);
  size_t cap = 1 << 20;
  char *text = rt_mem_alloc(cap);
  size_t len = (size_t)snprintf(text, cap, "#[version = \"0.0.5\"]\n");
  for (int32_t i = 0; i < n; ++i) {
    len += (size_t)snprintf(text + len, cap - len, "def @c%d(%s) {\n  %s\n}\n", i, cases[i].sig,
                            cases[i].body);
  }
  rt_module_t *m = jt_parse(text);
  rt_ir_expr_t **fns = rt_mem_calloc((size_t)n, sizeof *fns);
  char names[MAX_CASES][16];
  const char *namep[MAX_CASES];
  for (int32_t i = 0; i < n; ++i) {
    snprintf(names[i], 16, "c%d", i);
    namep[i] = names[i];
    fns[i] = rt_ir_module_lookup(m, names[i]);
    assert_non_null(fns[i]);
  }
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  rt_jit_module_t *jm = NULL;
  rt_jit_build_stats_t st;
  rt_status_t bs = rt_jit_build(s, n, fns, namep, 0, &st, &jm);
  if (bs) {
    /* Say which cases fail on their own. */
    for (int32_t i = 0; i < n; ++i) {
      rt_jit_module_t *one = NULL;
      rt_status_t e = rt_jit_build(s, 1, &fns[i], &namep[i], 0, NULL, &one);
      if (e) fprintf(stderr, "c%d %s: %s\n", i, cases[i].body, rt_status_message(e));
      rt_status_free(e);
      rt_jit_module_release(one);
    }
  }
  assert_ok(bs);
  printf("# one module of %d kernels: lower %.0f ms, O3 %.0f ms, codegen+link %.0f ms\n", n,
         st.lower_ms, st.opt_ms, st.codegen_ms);
  int failures = 0, both_failed = 0;
  for (int32_t i = 0; i < n; ++i) {
    rt_tensor_t *ins[16], *want[8] = {0}, *got[8] = {0};
    int32_t nin, nout = 0;
    jt_make_inputs(fns[i], 0, 1000 + (uint64_t)i * 7, ins, &nin);
    rt_status_t is = jt_interp(m, names[i], nin, ins, want, &nout);
    char err[512], why[256];
    if (is) {
      /* The reference failed on these values: the kernel must fail too. */
      rt_tensor_t *like[8];
      int32_t ko = rt_jit_module_num_outputs(jm, i);
      for (int32_t o = 0; o < ko; ++o) {
        rt_ir_type_t *t = rt_ir_type_resolve(fns[i]->fn.body->checked_type);
        if (t->kind == RT_IR_TYPE_TUPLE) t = rt_ir_type_resolve(t->tuple.fields[o]);
        assert_ok(rt_tensor_create(rt_allocator_system(), t->tensor.dtype, t->tensor.rank, t->tensor.shape, &like[o]));
      }
      int32_t r = jt_run_kernel(rt_jit_module_kernel(jm, i), nin, ins, ko, like, got, NULL, err);
      if (r == 0) {
        fprintf(stderr, "c%d %s: interp failed (%s) but the kernel succeeded\n", i, cases[i].body,
                rt_status_message(is));
        ++failures;
      } else {
        ++both_failed;
      }
      for (int32_t o = 0; o < ko; ++o) {
        rt_tensor_release(like[o]);
        rt_tensor_release(got[o]);
      }
      rt_status_free(is);
    } else {
      assert_int_equal(nout, rt_jit_module_num_outputs(jm, i));
      int32_t r = jt_run_kernel(rt_jit_module_kernel(jm, i), nin, ins, nout, want, got, NULL, err);
      if (r) {
        fprintf(stderr, "c%d %s: kernel failed: %s\n", i, cases[i].body, err);
        ++failures;
      }
      for (int32_t o = 0; !r && o < nout; ++o) {
        double rtol = 1e-5, atol = 1e-6;
        if (cases[i].tol == A) rtol = atol = 1e-4;
        if (cases[i].tol == H || rt_tensor_dtype(want[o]).bits == 16) rtol = atol = 2e-3;
        if (!jt_close(got[o], want[o], rtol, atol, why)) {
          fprintf(stderr, "c%d %s (output %d): %s\n", i, cases[i].body, o, why);
          ++failures;
        }
      }
      for (int32_t o = 0; o < nout; ++o) {
        rt_tensor_release(want[o]);
        rt_tensor_release(got[o]);
      }
    }
    for (int32_t k = 0; k < nin; ++k) rt_tensor_release(ins[k]);
  }
  printf("# %d cases, %d where reference and kernel both failed on the values\n", n, both_failed);
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);
  rt_mem_free(fns);
  rt_mem_free(text);
  rt_mem_free(cases);
  assert_int_equal(failures, 0);
}

/* A kernel compiled for `?` dims runs at two sizes. */
static void test_jit_ops_dynamic_dims(void **state) {
  (void)state;
  rt_module_t *m = jt_parse(
      "#[version = \"0.0.5\"]\n"
      "def @dyn(%x: Tensor[(?, 8), float32], %y: Tensor[(8), float32]) {\n"
      "  %0 = add(%x, %y); %1 = nn.relu(%0); sum(%1, axis=[1], keepdims=True)\n"
      "}\n"
      "def @dyn2(%x: Tensor[(?, ?), float32], %y: Tensor[(?, ?), float32]) {\n"
      "  multiply(transpose(%x), exp(%y))\n"
      "}\n");
  rt_ir_expr_t *fns[2] = {rt_ir_module_lookup(m, "dyn"), rt_ir_module_lookup(m, "dyn2")};
  const char *names[2] = {"dyn", "dyn2"};
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  rt_jit_module_t *jm = NULL;
  assert_ok(rt_jit_build(s, 2, fns, names, 0, NULL, &jm));
  const int64_t sizes[3] = {1, 3, 17};
  for (int32_t f = 0; f < 2; ++f) {
    for (int32_t k = 0; k < 3; ++k) {
      rt_tensor_t *ins[2], *want[1], *got[1];
      int32_t nin, nout;
      jt_make_inputs(fns[f], sizes[k], 77 + (uint64_t)k, ins, &nin);
      assert_ok(jt_interp(m, names[f], nin, ins, want, &nout));
      char err[512], why[256];
      assert_int_equal(jt_run_kernel(rt_jit_module_kernel(jm, f), nin, ins, 1, want, got, NULL, err), 0);
      if (!jt_close(got[0], want[0], 1e-5, 1e-5, why)) fail_msg("%s size %lld: %s", names[f], (long long)sizes[k], why);
      rt_tensor_release(want[0]);
      rt_tensor_release(got[0]);
      rt_tensor_release(ins[0]);
      rt_tensor_release(ins[1]);
    }
  }
  /* Mismatched dynamic dims are an error, not a crash. */
  {
    rt_tensor_t *a, *b, *o;
    int64_t sa[2] = {3, 8}, sb[2] = {4, 8}, so[2] = {8, 3};
    assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, sa, &a));
    assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, sb, &b));
    assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, so, &o));
    rt_tensor_t *ins[2] = {a, b}, *like[1] = {o}, *got[1];
    char err[512];
    assert_int_not_equal(jt_run_kernel(rt_jit_module_kernel(jm, 1), 2, ins, 1, like, got, NULL, err), 0);
    assert_non_null(strstr(err, "broadcast"));
    rt_tensor_release(got[0]);
    /* Wrong rank, wrong dtype, wrong arg count. */
    rt_tensor_t *c;
    int64_t sc[1] = {8};
    assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_INT32, 1, sc, &c));
    rt_tensor_t *ins2[2] = {a, c};
    assert_int_not_equal(jt_run_kernel(rt_jit_module_kernel(jm, 0), 2, ins2, 1, like, got, NULL, err), 0);
    assert_non_null(strstr(err, "dtype"));
    rt_tensor_release(got[0]);
    rt_jit_simple_ctx_t ctx;
    rt_jit_simple_ctx_initialize(&ctx);
    rt_kernel_arg args[1];
    rt_jit_arg_from_tensor(a, &args[0]);
    assert_int_not_equal(rt_jit_module_kernel(jm, 0)(args, 1, &ctx.ctx), 0);
    assert_non_null(strstr(ctx.error, "expected 3 arguments"));
    rt_tensor_release(a);
    rt_tensor_release(b);
    rt_tensor_release(c);
    rt_tensor_release(o);
  }
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);
}

/* The Primitive form FuseOps produces: the fn node inside @main lowers. */
static void test_jit_ops_primitive_function(void **state) {
  (void)state;
  rt_module_t *m = jt_parse(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(4, 8), float32], %b: Tensor[(8), float32]) {\n"
      "  %0 = fn (%p0: Tensor[(4, 8), float32], %p1: Tensor[(8), float32], Primitive=1) {\n"
      "    %1 = add(%p0, %p1); nn.relu(%1)\n"
      "  };\n"
      "  %0(%x, %b)\n"
      "}\n");
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(m, "main");
  rt_ir_expr_t *prim = main_fn->fn.body->call.callee;
  assert_int_equal(prim->kind, RT_IR_FUNCTION);
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  rt_jit_module_t *jm = NULL;
  assert_ok(rt_jit_build(s, 1, &prim, NULL, RT_JIT_KEEP_LL | RT_JIT_KEEP_ASM, NULL, &jm));
  rt_tensor_t *ins[2], *want[1], *got[1];
  int32_t nin, nout;
  jt_make_inputs(main_fn, 0, 5, ins, &nin);
  assert_ok(jt_interp(m, "main", nin, ins, want, &nout));
  char err[512], why[256];
  assert_int_equal(jt_run_kernel(rt_jit_module_kernel(jm, 0), 2, ins, 1, want, got, NULL, err), 0);
  assert_true(jt_close(got[0], want[0], 1e-6, 1e-7, why));
  char *ll = NULL, *as = NULL;
  assert_ok(rt_jit_module_ll(jm, 0, &ll));
  assert_ok(rt_jit_module_asm(jm, 0, &as));
  assert_non_null(strstr(ll, "define"));
  assert_non_null(strstr(ll, rt_jit_module_symbol(jm, 0)));
  assert_non_null(strstr(as, rt_jit_module_symbol(jm, 0)));
  rt_mem_free(ll);
  rt_mem_free(as);
  rt_tensor_release(want[0]);
  rt_tensor_release(got[0]);
  rt_tensor_release(ins[0]);
  rt_tensor_release(ins[1]);
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);
}

/* What does not lower says so, naming the op. (Every op of ops.def lowers
 * now; these are the constructs left: a strided_slice of `?` dims, a
 * reflect pad as long as its axis, a layout the conv cannot permute.) */
static void test_jit_ops_unimplemented(void **state) {
  (void)state;
  rt_module_t *m = jt_parse(
      "#[version = \"0.0.5\"]\n"
      "def @a(%x: Tensor[(?, 4), float32]) { strided_slice(%x, begin=[0, 1], end=[1, 3]) }\n"
      "def @b(%x: Tensor[(2, 3), float32]) { nn.pad(%x, 0f, pad_width=[[0, 0], [3, 0]], pad_mode=\"reflect\") }\n"
      "def @c(%x: Tensor[(1, 3, 4, 4), float32]) { nn.pad(%x, 0f, pad_width=[[0, 0], [0, 0], [4, 0], [0, 0]], pad_mode=\"reflect\") }\n");
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  const char *want[3] = {"strided_slice", "nn.pad", "nn.pad"};
  const char *name[3] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i) {
    rt_ir_expr_t *fn = rt_ir_module_lookup(m, name[i]);
    rt_jit_module_t *jm = NULL;
    assert_status(rt_jit_build(s, 1, &fn, NULL, 0, NULL, &jm), UNIMPLEMENTED, want[i]);
    assert_null(jm);
  }
  rt_jit_session_release(s);
  rt_module_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_jit_ops_differential),
      cmocka_unit_test(test_jit_ops_dynamic_dims),
      cmocka_unit_test(test_jit_ops_primitive_function),
      cmocka_unit_test(test_jit_ops_unimplemented),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
