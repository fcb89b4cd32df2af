/* The differential suite (after ggml's test-backend-ops): every op of
 * ir/ops.def, on several random shapes and the dtypes it supports, run
 * through every executor in kExecutors and compared with the "debug"
 * executor (the reference interpreter) by per-dtype tolerances; then fused
 * patterns, every corpus program the graph executor accepts, and the
 * example CNN.
 *
 * Cases. A case is a one-op Relay body over named params (`%x: Tensor[...]`)
 * with the op it covers, its output count and tolerance class. The param's
 * name picks its input domain on top of rt_tensor_fill_random: %p* positive
 * (|v| + 0.25), %u* inside (-0.9, 0.9), %g* >= 1.1, %nz* a non-zero
 * integer, %sh* a small non-negative integer (shift counts, exponents),
 * %i<N>_* an index in [0, N); anything else is the raw random data. An op
 * of ops.def without a case fails the suite, so no op is skipped silently.
 *
 * Batching. Creating an executor costs a JIT module (~4 ms fixed plus the
 * kernels, found by compiling the same small kernels as one module and as one
 * module each, LLVM 19), so cases run in batches: one @main whose params are
 * every case's params (renamed %c<k>_<name>) and whose result is the tuple of
 * every case's result. The cases stay independent dataflow (FuseOps never
 * joins them), each one its own kernel. A batch that fails to build or run is
 * rerun case by case, so a failure names its case. Cases that need a pass
 * disabled (SimplifyInference, to send the composites to the JIT as
 * themselves; FoldConstant, to keep arange/shape_of from folding) batch
 * separately with that pass context.
 *
 * Tolerances: float32 |got - want| <= atol + rtol * |want| with 1e-5/1e-5
 * for elementwise ops and 1e-4/1e-5 for accumulations (the JIT accumulates
 * float32 in float with reassociation, the reference in double); float64
 * 1e-10; float16 2e-3; integers and bools exact; NaN equals NaN. Dtypes and
 * shapes must match exactly.
 *
 * `?` dims cannot go through the graph executor (it refuses them), so the
 * dynamic-dim anchors are checked at the JIT level: rt_jit_build on the
 * function, run at two sizes, against the debug executor. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_util.h"
#include "ir/ir.h"
#include "jit/jit.h"
#include "runtime/mem.h"

/* ---- the op list, from ops.def itself -------------------------------------- */

static const char *const kOps[] = {
#define RT_OP(ID, name, ninputs, pattern, fields, rel, family, doc) name,
#include "ir/ops.def"
#undef RT_OP
};

/* ---- executors under test ---------------------------------------------------- */

typedef struct exec_t {
  const char *kind;
  bool unavailable; /* create said UNIMPLEMENTED: skipped with a note */
} exec_t;

static exec_t kExecutors[] = {{"graph", false}, {"vm", false}};
#define NUM_EXECUTORS ((int32_t)RT_COUNTOF(kExecutors))

/* ---- cases ------------------------------------------------------------------- */

typedef enum { TOL_E, TOL_A } tol_t;

/* NOPASS_JIT: not through an executor but rt_jit_build (`?` dims, which
 * the graph executor refuses; arange, whose type is always `?`). */
enum { NOPASS_NONE = 0, NOPASS_SIMPLIFY = 1, NOPASS_FOLD = 2, NOPASS_JIT = 8 };

typedef struct dcase_t {
  const char *op;    /* the op of ops.def it covers ("fused" for patterns) */
  char sig[400];
  char body[600];
  int32_t nout;
  tol_t tol;
  int32_t nopass;
} dcase_t;

#define MAX_CASES 1400
static dcase_t *g_cases;
static int32_t g_ncases;

static void add_full(const char *op, int32_t nout, tol_t tol, int32_t nopass, const char *sig,
                     const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void add_full(const char *op, int32_t nout, tol_t tol, int32_t nopass, const char *sig,
                     const char *fmt, ...) {
  assert_true(g_ncases < MAX_CASES);
  dcase_t *c = &g_cases[g_ncases++];
  c->op = op;
  c->nout = nout;
  c->tol = tol;
  c->nopass = nopass;
  snprintf(c->sig, sizeof c->sig, "%s", sig);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->body, sizeof c->body, fmt, ap);
  va_end(ap);
}

/* sig built from printf too */
static char g_sig[400];
static const char *S(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *S(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_sig, sizeof g_sig, fmt, ap);
  va_end(ap);
  return g_sig;
}

#define ADD(op, tol, sig, ...) add_full(op, 1, tol, NOPASS_NONE, sig, __VA_ARGS__)

static const char *const kShapes[] = {"(3, 7)", "(1)", "(2, 3, 5)", "(130, 513)"};
static const char *const kInts[] = {"int8", "int16", "int32", "int64", "uint8"};

static void unary_cases(void) {
  static const struct { const char *op; const char *p; bool ints; } u[] = {
      {"negative", "x", true}, {"abs", "x", true}, {"sign", "x", true}, {"floor", "x", true},
      {"ceil", "x", false}, {"round", "x", true}, {"trunc", "x", false}, {"exp", "x", true},
      {"log", "p", false}, {"log2", "p", false}, {"log10", "p", false}, {"sqrt", "p", true},
      {"rsqrt", "p", false}, {"sigmoid", "x", true}, {"tanh", "x", false}, {"erf", "x", false},
      {"sin", "x", false}, {"cos", "x", false}, {"tan", "x", false}, {"asin", "u", false},
      {"acos", "u", false}, {"atan", "x", false}, {"sinh", "x", false}, {"cosh", "x", false},
      {"asinh", "x", false}, {"acosh", "g", false}, {"atanh", "u", false}, {"isnan", "x", true},
      {"isinf", "x", false}, {"isfinite", "x", true}, {"logical_not", "x", true},
      {"bitwise_not", "x", true}, {"copy", "x", true}, {"nn.relu", "x", true},
      {"zeros_like", "x", true}, {"ones_like", "x", true}};
  for (size_t i = 0; i < RT_COUNTOF(u); ++i) {
    const bool bits = strcmp(u[i].op, "bitwise_not") == 0;
    for (size_t s = 0; s < RT_COUNTOF(kShapes) && !bits; ++s) {
      ADD(u[i].op, TOL_E, S("%%%s: Tensor[%s, float32]", u[i].p, kShapes[s]), "%s(%%%s)", u[i].op, u[i].p);
    }
    if (!bits) ADD(u[i].op, TOL_E, S("%%%s: Tensor[(4, 9), float64]", u[i].p), "%s(%%%s)", u[i].op, u[i].p);
    if (u[i].ints) {
      for (size_t d = 0; d < RT_COUNTOF(kInts); ++d) {
        ADD(u[i].op, TOL_E, S("%%%s: Tensor[(5, 11), %s]", u[i].p, kInts[d]), "%s(%%%s)", u[i].op, u[i].p);
      }
    }
  }
  ADD("logical_not", TOL_E, "%x: Tensor[(7), bool]", "logical_not(%%x)");
  ADD("bitwise_not", TOL_E, "%x: Tensor[(7), bool]", "bitwise_not(%%x)");
  ADD("copy", TOL_E, "%x: Tensor[(2, 7), bool]", "copy(%%x)");
  ADD("nn.leaky_relu", TOL_E, "%x: Tensor[(3, 6), float32]", "nn.leaky_relu(%%x, alpha=0.1f)");
  ADD("nn.leaky_relu", TOL_E, "%x: Tensor[(1), float64]", "nn.leaky_relu(%%x)");
  ADD("nn.leaky_relu", TOL_E, "%x: Tensor[(3, 6), int32]", "nn.leaky_relu(%%x, alpha=0.5f)");
  ADD("nn.thresholded_relu", TOL_E, "%x: Tensor[(3, 6), float32]", "nn.thresholded_relu(%%x, alpha=0.25f)");
  ADD("nn.thresholded_relu", TOL_E, "%x: Tensor[(130, 17), float64]", "nn.thresholded_relu(%%x)");
  ADD("nn.shrink", TOL_E, "%x: Tensor[(3, 6), float32]", "nn.shrink(%%x, bias=0.25f, lambd=0.3f)");
  ADD("nn.shrink", TOL_E, "%x: Tensor[(2, 9), float16]", "nn.shrink(%%x)");
  ADD("nn.shrink", TOL_E, "%x: Tensor[(3, 6), int32]", "nn.shrink(%%x, bias=1.5f, lambd=2f)");
  ADD("clip", TOL_E, "%x: Tensor[(3, 6), float32]", "clip(%%x, a_min=-0.5f, a_max=0.25f)");
  ADD("clip", TOL_E, "%x: Tensor[(130, 513), float32]", "clip(%%x, a_min=-0.5f, a_max=0.25f)");
  ADD("clip", TOL_E, "%x: Tensor[(3, 6), int8]", "clip(%%x, a_min=-2.5f, a_max=3f)");
  ADD("clip", TOL_E, "%x: Tensor[(3, 6), float64]", "clip(%%x, a_min=0f, a_max=1f)");
  static const char *const kCast[][2] = {
      {"float32", "int8"}, {"float32", "uint8"}, {"float32", "bool"}, {"float32", "float64"},
      {"float32", "float16"}, {"float64", "float32"}, {"int32", "float32"}, {"int32", "int8"},
      {"int8", "int64"}, {"uint8", "int32"}, {"bool", "float32"}, {"int64", "uint8"},
      {"int16", "float64"}};
  for (size_t i = 0; i < RT_COUNTOF(kCast); ++i) {
    ADD("cast", TOL_E, S("%%x: Tensor[(4, 5), %s]", kCast[i][0]), "cast(%%x, dtype=\"%s\")", kCast[i][1]);
  }
  ADD("cast", TOL_E, "%x: Tensor[(3, 6), float32]", "cast(multiply(%%x, 300f), dtype=\"uint8\")");
  ADD("cast_like", TOL_E, "%x: Tensor[(3, 6), float32], %y: Tensor[(2), int32]", "cast_like(%%x, %%y)");
  ADD("cast_like", TOL_E, "%x: Tensor[(1), int8], %y: Tensor[(2), float64]", "cast_like(%%x, %%y)");
  ADD("full_like", TOL_E, "%x: Tensor[(3, 6), float32]", "full_like(%%x, 3.5f)");
  ADD("full_like", TOL_E, "%x: Tensor[(1, 2), int32]", "full_like(%%x, 7)");
}

static void binary_cases(void) {
  static const char *const kArith[] = {"add", "subtract", "multiply", "maximum", "minimum"};
  static const char *const kDiv[] = {"divide", "mod", "floor_divide", "floor_mod", "trunc_divide", "trunc_mod"};
  static const char *const kLogic[] = {"logical_and", "logical_or", "logical_xor"};
  static const char *const kBits[] = {"bitwise_and", "bitwise_or", "bitwise_xor"};
  static const char *const kCmp[] = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"};
  static const char *const kPairs[][2] = {
      {"(3, 1, 5)", "(4, 5)"}, {"(1)", "(2, 3)"}, {"(130, 513)", "(513)"}, {"()", "(2, 3)"}};
  for (size_t i = 0; i < RT_COUNTOF(kArith) + RT_COUNTOF(kDiv) + 1; ++i) {
    const char *op = i < RT_COUNTOF(kArith) ? kArith[i]
                     : i < RT_COUNTOF(kArith) + RT_COUNTOF(kDiv) ? kDiv[i - RT_COUNTOF(kArith)]
                                                                 : "power";
    const bool div = i >= RT_COUNTOF(kArith) && strcmp(op, "power") != 0;
    const bool pw = strcmp(op, "power") == 0;
    for (size_t s = 0; s < RT_COUNTOF(kPairs); ++s) {
      ADD(op, TOL_E, S("%%%s: Tensor[%s, float32], %%%s: Tensor[%s, float32]", pw ? "p" : "x", kPairs[s][0],
                       div ? "nzb" : "y", kPairs[s][1]),
          "%s(%%%s, %%%s)", op, pw ? "p" : "x", div ? "nzb" : "y");
    }
    ADD(op, TOL_E, S("%%%s: Tensor[(3, 4), float64], %%%s: Tensor[(4), float64]", pw ? "p" : "x", div ? "nzb" : "y"),
        "%s(%%%s, %%%s)", op, pw ? "p" : "x", div ? "nzb" : "y");
    for (size_t d = 0; d < RT_COUNTOF(kInts); ++d) {
      ADD(op, TOL_E, S("%%x: Tensor[(2, 1, 7), %s], %%%s: Tensor[(3, 7), %s]", kInts[d],
                       div ? "nzb" : pw ? "shb" : "y", kInts[d]),
          "%s(%%x, %%%s)", op, div ? "nzb" : pw ? "shb" : "y");
    }
  }
  for (size_t i = 0; i < RT_COUNTOF(kLogic); ++i) {
    ADD(kLogic[i], TOL_E, "%x: Tensor[(3, 1, 5), float32], %y: Tensor[(4, 5), float32]", "%s(%%x, %%y)", kLogic[i]);
    ADD(kLogic[i], TOL_E, "%x: Tensor[(7), bool], %y: Tensor[(2, 7), bool]", "%s(%%x, %%y)", kLogic[i]);
    ADD(kLogic[i], TOL_E, "%x: Tensor[(6), int32], %y: Tensor[(6), int32]", "%s(%%x, %%y)", kLogic[i]);
  }
  for (size_t i = 0; i < RT_COUNTOF(kBits); ++i) {
    for (size_t d = 0; d < RT_COUNTOF(kInts); ++d) {
      ADD(kBits[i], TOL_E, S("%%x: Tensor[(2, 1, 7), %s], %%y: Tensor[(3, 7), %s]", kInts[d], kInts[d]),
          "%s(%%x, %%y)", kBits[i]);
    }
    ADD(kBits[i], TOL_E, "%x: Tensor[(7), bool], %y: Tensor[(7), bool]", "%s(%%x, %%y)", kBits[i]);
  }
  for (int sh = 0; sh < 2; ++sh) {
    const char *op = sh ? "right_shift" : "left_shift";
    for (size_t d = 0; d < RT_COUNTOF(kInts); ++d) {
      ADD(op, TOL_E, S("%%x: Tensor[(2, 9), %s], %%shb: Tensor[(9), %s]", kInts[d], kInts[d]), "%s(%%x, %%shb)", op);
    }
  }
  for (size_t i = 0; i < RT_COUNTOF(kCmp); ++i) {
    ADD(kCmp[i], TOL_E, "%x: Tensor[(3, 1, 5), float32], %y: Tensor[(4, 5), float32]", "%s(%%x, %%y)", kCmp[i]);
    ADD(kCmp[i], TOL_E, "%x: Tensor[(64, 130), float32], %y: Tensor[(64, 130), float32]", "%s(%%x, %%y)", kCmp[i]);
    ADD(kCmp[i], TOL_E, "%x: Tensor[(2, 9), int32], %y: Tensor[(9), int32]", "%s(%%x, %%y)", kCmp[i]);
    ADD(kCmp[i], TOL_E, "%x: Tensor[(2, 9), uint8], %y: Tensor[(9), uint8]", "%s(%%x, %%y)", kCmp[i]);
    ADD(kCmp[i], TOL_E, "%x: Tensor[(2, 9), float64], %y: Tensor[(2, 9), float64]", "%s(%%x, %%y)", kCmp[i]);
    ADD(kCmp[i], TOL_E, "%x: Tensor[(5), bool], %y: Tensor[(5), bool]", "%s(%%x, %%y)", kCmp[i]);
  }
  ADD("where", TOL_E, "%c: Tensor[(3, 1), bool], %x: Tensor[(3, 4), float32], %y: Tensor[(4), float32]", "where(%%c, %%x, %%y)");
  ADD("where", TOL_E, "%c: Tensor[(3, 4), int32], %x: Tensor[(3, 4), int32], %y: Tensor[(1), int32]", "where(%%c, %%x, %%y)");
  ADD("where", TOL_E, "%c: Tensor[(1), bool], %x: Tensor[(2, 5), float64], %y: Tensor[(2, 5), float64]", "where(%%c, %%x, %%y)");
  ADD("nn.prelu", TOL_E, "%x: Tensor[(2, 3, 4), float32], %y: Tensor[(3), float32]", "nn.prelu(%%x, %%y)");
  ADD("nn.prelu", TOL_E, "%x: Tensor[(2, 5), float64], %y: Tensor[(5), float64]", "nn.prelu(%%x, %%y, axis=1)");
  ADD("nn.bias_add", TOL_E, "%x: Tensor[(2, 3, 4), float32], %y: Tensor[(4), float32]", "nn.bias_add(%%x, %%y, axis=-1)");
  ADD("nn.bias_add", TOL_E, "%x: Tensor[(2, 3, 4), int32], %y: Tensor[(3), int32]", "nn.bias_add(%%x, %%y)");
  ADD("nn.bias_add", TOL_E, "%x: Tensor[(1, 64, 33, 33), float32], %y: Tensor[(64), float32]", "nn.bias_add(%%x, %%y)");
}

static void reduce_cases(void) {
  static const char *const kRed[] = {"sum", "max", "min", "mean", "prod"};
  static const char *const kAxes[] = {"axis=[1]", "", "axis=[0, 2], keepdims=True", "axis=[1], exclude=True", "axis=[-1]"};
  for (size_t i = 0; i < RT_COUNTOF(kRed); ++i) {
    const tol_t t = strcmp(kRed[i], "max") == 0 || strcmp(kRed[i], "min") == 0 ? TOL_E : TOL_A;
    for (size_t a = 0; a < RT_COUNTOF(kAxes); ++a) {
      ADD(kRed[i], t, "%x: Tensor[(4, 5, 6), float32]", "%s(%%x%s%s)", kRed[i], *kAxes[a] ? ", " : "", kAxes[a]);
    }
    ADD(kRed[i], t, "%x: Tensor[(1, 1, 1), float32]", "%s(%%x, axis=[1])", kRed[i]);
    ADD(kRed[i], t, "%x: Tensor[(33, 257), float32]", "%s(%%x, axis=[1], keepdims=True)", kRed[i]);
    ADD(kRed[i], t, "%x: Tensor[(300, 2, 129), float32]", "%s(%%x, axis=[1])", kRed[i]);
    ADD(kRed[i], TOL_E, "%x: Tensor[(4, 7), float64]", "%s(%%x, axis=[0])", kRed[i]);
    ADD(kRed[i], TOL_E, "%x: Tensor[(4, 5), int32]", "%s(%%x, axis=[1])", kRed[i]);
    ADD(kRed[i], TOL_E, "%x: Tensor[(4, 5), uint8]", "%s(%%x)", kRed[i]);
    ADD(kRed[i], TOL_E, "%x: Tensor[(3, 5), int8]", "%s(%%x, axis=[0])", kRed[i]);
    ADD(kRed[i], TOL_E, "%x: Tensor[(3, 5), int64]", "%s(%%x, axis=[1])", kRed[i]);
  }
  for (int k = 0; k < 2; ++k) {
    const char *op = k ? "any" : "all";
    ADD(op, TOL_E, "%x: Tensor[(4, 5), bool]", "%s(%%x, axis=[1])", op);
    ADD(op, TOL_E, "%x: Tensor[(4, 5), bool]", "%s(%%x, axis=[0], keepdims=True)", op);
    ADD(op, TOL_E, "%x: Tensor[(40, 130), bool]", "%s(%%x)", op);
    ADD(op, TOL_E, "%x: Tensor[(4, 5), float32]", "%s(%%x)", op);
  }
  for (int k = 0; k < 2; ++k) {
    const char *op = k ? "argmin" : "argmax";
    ADD(op, TOL_E, "%x: Tensor[(4, 7), float32]", "%s(%%x, axis=[1])", op);
    ADD(op, TOL_E, "%x: Tensor[(4, 7), float32]", "%s(%%x, axis=[0], keepdims=True)", op);
    ADD(op, TOL_E, "%x: Tensor[(4, 7), int32]", "%s(%%x, axis=[1], select_last_index=True)", op);
    ADD(op, TOL_E, "%x: Tensor[(4, 7), int8]", "%s(%%x)", op);
    ADD(op, TOL_E, "%x: Tensor[(3, 4, 5), float64]", "%s(%%x, axis=[2])", op);
    ADD(op, TOL_E, "%x: Tensor[(1), float32]", "%s(%%x, axis=[0])", op);
  }
  ADD("variance", TOL_A, "%x: Tensor[(4, 7), float32]", "variance(%%x, mean(%%x, axis=[1], keepdims=True), axis=[1])");
  ADD("variance", TOL_A, "%x: Tensor[(4, 7), float32]",
      "variance(%%x, mean(%%x, axis=[1], keepdims=True), axis=[1], unbiased=True, keepdims=True)");
  ADD("variance", TOL_A, "%x: Tensor[(3, 5, 9), float32], %m: Tensor[(1, 5, 1), float32]", "variance(%%x, %%m, axis=[0, 2])");
  ADD("variance", TOL_E, "%x: Tensor[(4, 7), float64], %m: Tensor[(4, 1), float64]", "variance(%%x, %%m, axis=[1])");
}

static void transform_cases(void) {
  ADD("reshape", TOL_E, "%x: Tensor[(3, 4, 5), float32]", "reshape(%%x, newshape=[12, 5])");
  ADD("reshape", TOL_E, "%x: Tensor[(3, 4, 5), int8]", "reshape(%%x, newshape=[5, 0, 3])");
  ADD("reshape", TOL_E, "%x: Tensor[(3, 4, 5), float64]", "reshape(%%x, newshape=[-1])");
  ADD("reshape", TOL_E, "%x: Tensor[(1), bool]", "reshape(%%x, newshape=[1, 1])");
  ADD("reshape_like", TOL_E, "%x: Tensor[(3, 4, 5), float32], %y: Tensor[(2, 30), float32]", "reshape_like(%%x, %%y)");
  ADD("squeeze", TOL_E, "%x: Tensor[(3, 1, 5, 1), float32]", "squeeze(%%x)");
  ADD("squeeze", TOL_E, "%x: Tensor[(3, 1, 5, 1), uint8]", "squeeze(%%x, axis=[1])");
  ADD("expand_dims", TOL_E, "%x: Tensor[(3, 5), float32]", "expand_dims(%%x, axis=1, num_newaxis=2)");
  ADD("expand_dims", TOL_E, "%x: Tensor[(3), int64]", "expand_dims(%%x, axis=0)");
  ADD("transpose", TOL_E, "%x: Tensor[(3, 4, 5), float32]", "transpose(%%x)");
  ADD("transpose", TOL_E, "%x: Tensor[(3, 4, 5), uint8]", "transpose(%%x, axes=[1, 2, 0])");
  ADD("transpose", TOL_E, "%x: Tensor[(130, 513), float32]", "transpose(%%x)");
  ADD("transpose", TOL_E, "%x: Tensor[(2, 3), bool]", "transpose(%%x, axes=[1, 0])");
  ADD("nn.batch_flatten", TOL_E, "%x: Tensor[(2, 3, 4), float32]", "nn.batch_flatten(%%x)");
  ADD("nn.batch_flatten", TOL_E, "%x: Tensor[(1, 1, 1), int32]", "nn.batch_flatten(%%x)");
  ADD("concatenate", TOL_E, "%x: Tensor[(2, 3), float32], %y: Tensor[(2, 4), float32]", "concatenate((%%x, %%y), axis=1)");
  ADD("concatenate", TOL_E, "%x: Tensor[(2, 3), int8], %y: Tensor[(1, 3), int8], %z: Tensor[(3, 3), int8]", "concatenate((%%x, %%y, %%z))");
  ADD("concatenate", TOL_E, "%x: Tensor[(1), float64], %y: Tensor[(1), float64]", "concatenate((%%x, %%y))");
  ADD("stack", TOL_E, "%x: Tensor[(2, 3), int32], %y: Tensor[(2, 3), int32]", "stack((%%x, %%y), axis=1)");
  ADD("stack", TOL_E, "%x: Tensor[(4), float32], %y: Tensor[(4), float32], %z: Tensor[(4), float32]", "stack((%%x, %%y, %%z))");
  add_full("split", 1, TOL_E, 0, "%x: Tensor[(2, 6), float32]", "%%0 = split(%%x, indices_or_sections=3, axis=1); %%0.1");
  add_full("split", 2, TOL_E, 0, "%x: Tensor[(2, 6), int16]", "%%0 = split(%%x, indices_or_sections=[1, 4], axis=1); (%%0.0, %%0.2)");
  add_full("split", 3, TOL_E, 0, "%x: Tensor[(6, 5), float64]", "split(%%x, indices_or_sections=3)");
  ADD("strided_slice", TOL_E, "%x: Tensor[(5, 6), float32]", "strided_slice(%%x, begin=[1, 0], end=[4, 6], strides=[1, 2])");
  ADD("strided_slice", TOL_E, "%x: Tensor[(5, 6), int32]", "strided_slice(%%x, begin=[-1, 5], end=[0, -7], strides=[-2, -1])");
  ADD("strided_slice", TOL_E, "%x: Tensor[(5, 6), float32]", "strided_slice(%%x, begin=[1], end=[2], slice_mode=\"size\", axes=[1])");
  ADD("take", TOL_E, "%x: Tensor[(5, 6), float32], %i6_a: Tensor[(2, 3), int32]", "take(%%x, %%i6_a, axis=1)");
  ADD("take", TOL_E, "%x: Tensor[(5, 6), float32], %y: Tensor[(4), int32]", "take(%%x, %%y, axis=0, mode=\"wrap\")");
  ADD("take", TOL_E, "%x: Tensor[(5, 6), int8], %y: Tensor[(4), int32]", "take(%%x, %%y)");
  ADD("take", TOL_E, "%x: Tensor[(5, 9), float64], %i9_a: Tensor[(4), int64]", "take(%%x, %%i9_a, axis=1, mode=\"fast\")");
  ADD("take", TOL_E, "%x: Tensor[(3, 5, 4), float32], %i5_a: Tensor[(3, 2), int32]", "take(%%x, %%i5_a, axis=1, batch_dims=1)");
  ADD("take", TOL_E, "%x: Tensor[(2, 3, 4, 2), float32], %i4_a: Tensor[(2, 3, 5), int32]", "take(%%x, %%i4_a, axis=2, batch_dims=2)");
  ADD("gather", TOL_E, "%x: Tensor[(3, 16), float32], %i3_a: Tensor[(3, 5), uint8]", "gather(%%x, %%i3_a, axis=1)");
  ADD("gather", TOL_E, "%x: Tensor[(4, 3), int32], %i4_a: Tensor[(2, 3), int32]", "gather(%%x, %%i4_a, axis=0)");
  ADD("gather_nd", TOL_E, "%x: Tensor[(4, 5, 3), float32], %i4_a: Tensor[(1, 6), int32]", "gather_nd(%%x, %%i4_a)");
  ADD("gather_nd", TOL_E, "%x: Tensor[(4, 4, 3), int8], %i4_a: Tensor[(2, 2, 3), int64]", "gather_nd(%%x, %%i4_a)");
  ADD("gather_nd", TOL_E, "%x: Tensor[(2, 3, 3), float64], %i2_a: Tensor[(1, 2), int32]", "gather_nd(%%x, %%i2_a, batch_dims=1)");
  ADD("broadcast_to", TOL_E, "%x: Tensor[(3, 1), float32]", "broadcast_to(%%x, shape=[2, 3, 4])");
  ADD("broadcast_to", TOL_E, "%x: Tensor[(1), int32]", "broadcast_to(%%x, shape=[5])");
  ADD("tile", TOL_E, "%x: Tensor[(2, 3), float32]", "tile(%%x, reps=[2, 1, 2])");
  ADD("tile", TOL_E, "%x: Tensor[(2), bool]", "tile(%%x, reps=[3])");
  ADD("repeat", TOL_E, "%x: Tensor[(2, 3), float32]", "repeat(%%x, repeats=2, axis=1)");
  ADD("repeat", TOL_E, "%x: Tensor[(2, 3), int64]", "repeat(%%x, repeats=3, axis=0)");
  ADD("reverse", TOL_E, "%x: Tensor[(2, 3), float32]", "reverse(%%x, axis=0)");
  ADD("reverse", TOL_E, "%x: Tensor[(4, 5), uint8]", "reverse(%%x, axis=-1)");
  ADD("cumsum", TOL_A, "%x: Tensor[(3, 7), float32]", "cumsum(%%x, axis=1)");
  ADD("cumsum", TOL_A, "%x: Tensor[(2, 3, 4), float32]", "cumsum(%%x, exclusive=True)");
  ADD("cumsum", TOL_E, "%x: Tensor[(5, 6), int32]", "cumsum(%%x, axis=0, exclusive=True)");
  ADD("cumsum", TOL_E, "%x: Tensor[(4, 5), int8]", "cumsum(%%x, axis=-1, dtype=\"int64\")");
  ADD("cumsum", TOL_E, "%x: Tensor[(4, 3), float64]", "cumsum(%%x, axis=0)");
  ADD("topk", TOL_E, "%x: Tensor[(4, 20), float32]", "topk(%%x, k=5, ret_type=\"values\")");
  add_full("topk", 2, TOL_E, 0, "%x: Tensor[(6, 5), float32]", "topk(%%x, k=3, axis=0, dtype=\"int64\")");
  ADD("topk", TOL_E, "%x: Tensor[(3, 9), int8]", "topk(%%x, k=0, is_ascend=True, ret_type=\"indices\")");
  ADD("topk", TOL_E, "%x: Tensor[(2, 3, 5), uint8]", "%%0 = topk(%%x, k=2, axis=1); %%0.1");
  ADD("nn.pad", TOL_E, "%x: Tensor[(2, 3), float32]", "nn.pad(%%x, 0.5f, pad_width=[[1, 0], [2, 1]])");
  ADD("nn.pad", TOL_E, "%x: Tensor[(2, 4), int32]", "nn.pad(%%x, 3, pad_width=[[1, 1], [2, 2]], pad_mode=\"edge\")");
  ADD("nn.pad", TOL_E, "%x: Tensor[(3, 4), float64]", "nn.pad(%%x, 0f, pad_width=[[1, 2], [3, 1]], pad_mode=\"reflect\")");
  ADD("layout_transform", TOL_E, "%x: Tensor[(1, 8, 3, 5), float32]", "layout_transform(%%x, src_layout=\"NCHW\", dst_layout=\"NCHW4c\")");
  ADD("layout_transform", TOL_E, "%x: Tensor[(2, 2, 3, 5, 4), float32]", "layout_transform(%%x, src_layout=\"NCHW4c\", dst_layout=\"NCHW\")");
  ADD("layout_transform", TOL_E, "%x: Tensor[(1, 3, 4, 5), int8]", "layout_transform(%%x, src_layout=\"NCHW\", dst_layout=\"NHWC\")");
  ADD("layout_transform", TOL_E, "%x: Tensor[(2, 4, 5, 3), float64]", "layout_transform(%%x, src_layout=\"NHWC\", dst_layout=\"NCHW\")");
  ADD("layout_transform", TOL_E, "%x: Tensor[(1, 16, 2, 2), float32]", "layout_transform(%%x, src_layout=\"NCHW\", dst_layout=\"NCHW8c\")");
  ADD("one_hot", TOL_E, "%i5_a: Tensor[(2, 3), int32]", "one_hot(%%i5_a, 1f, 0f, depth=5, axis=-1, dtype=\"float32\")");
  ADD("one_hot", TOL_E, "%i6_a: Tensor[(4), int32]", "one_hot(%%i6_a, 3, -1, depth=6, axis=0, dtype=\"int32\")");
  ADD("nn.depth_to_space", TOL_E, "%x: Tensor[(1, 8, 3, 2), float32]", "nn.depth_to_space(%%x, block_size=2)");
  ADD("nn.depth_to_space", TOL_E, "%x: Tensor[(2, 8, 2, 3), int32]", "nn.depth_to_space(%%x, block_size=2, mode=\"CRD\")");
  ADD("nn.depth_to_space", TOL_E, "%x: Tensor[(1, 3, 2, 18), float32]", "nn.depth_to_space(%%x, block_size=3, layout=\"NHWC\")");
  ADD("nn.space_to_depth", TOL_E, "%x: Tensor[(1, 2, 4, 6), float32]", "nn.space_to_depth(%%x, block_size=2)");
  ADD("nn.space_to_depth", TOL_E, "%x: Tensor[(1, 6, 3, 2), uint8]", "nn.space_to_depth(%%x, block_size=3, layout=\"NHWC\")");
  ADD("zeros", TOL_E, "%x: Tensor[(2), float32]", "add(%%x, zeros(shape=[3, 2], dtype=\"float32\"))");
  ADD("zeros", TOL_E, "", "zeros(shape=[3, 2], dtype=\"int8\")");
  ADD("ones", TOL_E, "%x: Tensor[(2), float32]", "add(%%x, ones(shape=[3, 2], dtype=\"float32\"))");
  ADD("ones", TOL_E, "", "ones(shape=[4], dtype=\"float64\")");
  ADD("full", TOL_E, "%x: Tensor[(2), float32]", "add(%%x, full(2.5f, shape=[3, 2], dtype=\"float32\"))");
  ADD("full", TOL_E, "%x: Tensor[(), int32]", "full(%%x, shape=[2, 3], dtype=\"int32\")");
  /* shape_of and ndarray_size fold away under FoldConstant: run them with
   * it disabled too, so they reach the JIT. arange's type is `?` (its
   * length is data-dependent), so the graph executor refuses it: it runs
   * at the JIT level. */
  for (int nf = 0; nf < 2; ++nf) {
    const int32_t np = nf ? NOPASS_FOLD : NOPASS_NONE;
    add_full("shape_of", 1, TOL_E, np, "%x: Tensor[(2, 3, 7), float32]", "shape_of(%%x)");
    add_full("shape_of", 1, TOL_E, np, "%x: Tensor[(5), int8]", "shape_of(%%x, dtype=\"int64\")");
    add_full("ndarray_size", 1, TOL_E, np, "%x: Tensor[(2, 3, 7), float32]", "ndarray_size(%%x)");
    add_full("ndarray_size", 1, TOL_E, np, "%x: Tensor[(1), uint8]", "ndarray_size(%%x, dtype=\"int64\")");
  }
  add_full("arange", 1, TOL_E, NOPASS_JIT, "%x: Tensor[(), float32], %p: Tensor[(), float32], %pstep: Tensor[(), float32]",
           "arange(%%x, %%p, %%pstep, dtype=\"float32\")");
  add_full("arange", 1, TOL_E, NOPASS_JIT, "%x: Tensor[(), int32], %p: Tensor[(), int32], %pstep: Tensor[(), int32]",
           "arange(%%x, %%p, %%pstep, dtype=\"int32\")");
  add_full("arange", 1, TOL_E, NOPASS_JIT, "%x: Tensor[(), float32]", "arange(%%x, 7.5f, 0.5f, dtype=\"float64\")");
  /* dyn.reshape: its shape comes from values (here (6, n) from x's (n, 6));
   * the vm runs it as a view, tested in test/vm. */
  add_full("dyn.reshape", 1, TOL_E, NOPASS_JIT, "%x: Tensor[(?, 6), float32]",
           "dyn.reshape(%%x, reverse(shape_of(%%x, dtype=\"int64\"), axis=0))");
}

static void image_cases(void) {
  static const char *const kModes[] = {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn"};
  static const char *const kMethods[] = {"nearest_neighbor", "linear", "cubic"};
  for (size_t m = 0; m < RT_COUNTOF(kMethods); ++m) {
    for (size_t c = 0; c < RT_COUNTOF(kModes); ++c) {
      ADD("image.resize2d", TOL_A, "%x: Tensor[(1, 2, 5, 7), float32]",
          "image.resize2d(%%x, size=[8, 4], method=\"%s\", coordinate_transformation_mode=\"%s\", rounding_method=\"\")",
          kMethods[m], kModes[c]);
    }
  }
  static const char *const kRound[] = {"round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  for (size_t r = 0; r < RT_COUNTOF(kRound); ++r) {
    ADD("image.resize2d", TOL_E, "%x: Tensor[(1, 1, 4, 6), float32]",
        "image.resize2d(%%x, size=[7, 9], method=\"nearest_neighbor\", coordinate_transformation_mode=\"half_pixel\", rounding_method=\"%s\")",
        kRound[r]);
  }
  ADD("image.resize2d", TOL_A, "%x: Tensor[(2, 6, 5, 3), float32]",
      "image.resize2d(%%x, size=[3, 7], layout=\"NHWC\", method=\"linear\")");
  ADD("image.resize2d", TOL_A, "%x: Tensor[(1, 3, 4, 4), float64]",
      "image.resize2d(%%x, size=[9, 9], method=\"cubic\", cubic_exclude=1, coordinate_transformation_mode=\"align_corners\")");
  ADD("image.resize2d", TOL_E, "%x: Tensor[(1, 2, 3, 3), int32]",
      "image.resize2d(%%x, size=[6, 6], method=\"nearest_neighbor\", rounding_method=\"\")");
  ADD("image.resize2d", TOL_A, "%x: Tensor[(1, 1, 1, 1), float32]", "image.resize2d(%%x, size=[1, 1])");
  ADD("nn.upsampling", TOL_E, "%x: Tensor[(1, 2, 3, 4), float32]", "nn.upsampling(%%x, scale_h=2f, scale_w=2f)");
  ADD("nn.upsampling", TOL_A, "%x: Tensor[(1, 2, 3, 4), float32]", "nn.upsampling(%%x, scale_h=2f, scale_w=3f, method=\"bilinear\", align_corners=True)");
  ADD("nn.upsampling", TOL_A, "%x: Tensor[(2, 3, 4, 2), float32]", "nn.upsampling(%%x, scale_h=2f, scale_w=2f, layout=\"NHWC\", method=\"bicubic\")");
  ADD("nn.upsampling", TOL_E, "%x: Tensor[(1, 1, 2, 2), int8]", "nn.upsampling(%%x, scale_h=3f, scale_w=2f)");
}

static void anchor_cases(void) {
  /* dense: 37x129x65 takes the thread split and odd tails; 1x1x1 the
   * degenerate loops. */
  ADD("nn.dense", TOL_A, "%x: Tensor[(37, 129), float32], %w: Tensor[(65, 129), float32]", "nn.dense(%%x, %%w)");
  ADD("nn.dense", TOL_A, "%x: Tensor[(1, 1), float32], %w: Tensor[(1, 1), float32]", "nn.dense(%%x, %%w)");
  ADD("nn.dense", TOL_A, "%x: Tensor[(4, 8), float32], %w: Tensor[(5, 8), float32]", "nn.dense(%%x, %%w, units=5)");
  ADD("nn.dense", TOL_A, "%x: Tensor[(2, 3, 7), float32], %w: Tensor[(9, 7), float32]", "nn.dense(%%x, %%w)");
  ADD("nn.dense", TOL_A, "%x: Tensor[(64, 256), float32], %w: Tensor[(128, 256), float32]", "nn.dense(%%x, %%w)");
  ADD("nn.dense", TOL_E, "%x: Tensor[(4, 8), float64], %w: Tensor[(5, 8), float64]", "nn.dense(%%x, %%w)");
  ADD("nn.dense", TOL_E, "%x: Tensor[(4, 8), int8], %w: Tensor[(5, 8), int8]", "nn.dense(%%x, %%w, out_dtype=\"int32\")");
  ADD("nn.dense", TOL_E, "%x: Tensor[(3, 5), int32], %w: Tensor[(2, 5), int32]", "nn.dense(%%x, %%w)");
  ADD("nn.matmul", TOL_A, "%x: Tensor[(3, 4), float32], %y: Tensor[(4, 5), float32]", "nn.matmul(%%x, %%y)");
  ADD("nn.matmul", TOL_A, "%x: Tensor[(4, 3), float32], %y: Tensor[(5, 4), float32]", "nn.matmul(%%x, %%y, transpose_a=True, transpose_b=True)");
  ADD("nn.matmul", TOL_A, "%x: Tensor[(2, 3, 4), float32], %y: Tensor[(4, 5), float32]", "nn.matmul(%%x, %%y)");
  ADD("nn.matmul", TOL_A, "%x: Tensor[(37, 129), float32], %y: Tensor[(129, 65), float32]", "nn.matmul(%%x, %%y)");
  ADD("nn.matmul", TOL_E, "%x: Tensor[(1, 1), float64], %y: Tensor[(1, 1), float64]", "nn.matmul(%%x, %%y)");
  ADD("nn.batch_matmul", TOL_A, "%x: Tensor[(2, 3, 4), float32], %y: Tensor[(2, 5, 4), float32]", "nn.batch_matmul(%%x, %%y, transpose_b=True)");
  ADD("nn.batch_matmul", TOL_A, "%x: Tensor[(2, 3, 4), float32], %y: Tensor[(1, 4, 5), float32]", "nn.batch_matmul(%%x, %%y)");
  ADD("nn.batch_matmul", TOL_A, "%x: Tensor[(1, 4, 3), float32], %y: Tensor[(3, 4, 5), float32]", "nn.batch_matmul(%%x, %%y, transpose_a=True)");
  ADD("nn.batch_matmul", TOL_A, "%x: Tensor[(5, 37, 33), float32], %y: Tensor[(5, 33, 65), float32]", "nn.batch_matmul(%%x, %%y)");
  ADD("nn.batch_matmul", TOL_E, "%x: Tensor[(2, 2, 3), int32], %y: Tensor[(2, 3, 2), int32]", "nn.batch_matmul(%%x, %%y)");
  /* The weight packing's vector transpose (vw x vw blocks, then the K tail
   * and a partial column group): K 40 and 48, N 37 and 40, a broadcast b. */
  ADD("nn.batch_matmul", TOL_A, "%x: Tensor[(3, 20, 40), float32], %y: Tensor[(1, 37, 40), float32]", "nn.batch_matmul(%%x, %%y, transpose_b=True)");
  ADD("nn.dense", TOL_A, "%x: Tensor[(13, 48), float32], %w: Tensor[(40, 48), float32]", "nn.dense(%%x, %%w)");
  ADD("nn.conv1d", TOL_A, "%x: Tensor[(2, 3, 11), float32], %w: Tensor[(4, 3, 3), float32]", "nn.conv1d(%%x, %%w, strides=[2], padding=[1, 2], channels=4, kernel_size=[3])");
  ADD("nn.conv1d", TOL_A, "%x: Tensor[(1, 4, 9), float32], %w: Tensor[(4, 1, 3), float32]", "nn.conv1d(%%x, %%w, groups=4, dilation=[2], channels=4, kernel_size=[3])");
  ADD("nn.conv1d", TOL_A, "%x: Tensor[(1, 9, 3), float32], %w: Tensor[(3, 3, 5), float32]", "nn.conv1d(%%x, %%w, data_layout=\"NWC\", kernel_layout=\"WIO\", channels=5, kernel_size=[3])");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(1, 3, 7, 7), float32], %w: Tensor[(4, 3, 3, 3), float32]", "nn.conv2d(%%x, %%w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3])");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(2, 3, 9, 8), float32], %w: Tensor[(4, 3, 3, 2), float32]", "nn.conv2d(%%x, %%w, strides=[2, 3], padding=[1, 0, 2, 1], dilation=[2, 1], channels=4, kernel_size=[3, 2])");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 1, 3, 3), float32]", "nn.conv2d(%%x, %%w, padding=[1, 1], groups=4, channels=4, kernel_size=[3, 3])");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(1, 4, 5, 5), float32], %w: Tensor[(6, 2, 1, 1), float32]", "nn.conv2d(%%x, %%w, groups=2, channels=6, kernel_size=[1, 1])");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(1, 16, 17, 17), float32], %w: Tensor[(32, 16, 3, 3), float32]", "nn.conv2d(%%x, %%w, padding=[1, 1], channels=32, kernel_size=[3, 3])");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(1, 1, 1, 1), float32], %w: Tensor[(1, 1, 1, 1), float32]", "nn.conv2d(%%x, %%w, channels=1, kernel_size=[1, 1])");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(1, 7, 7, 3), float32], %w: Tensor[(3, 3, 3, 4), float32]", "nn.conv2d(%%x, %%w, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", kernel_layout=\"HWIO\")");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(2, 9, 8, 4), float32], %w: Tensor[(3, 3, 4, 1), float32]", "nn.conv2d(%%x, %%w, strides=[2, 2], padding=[1, 1], groups=4, channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", kernel_layout=\"HWOI\")");
  ADD("nn.conv2d", TOL_E, "%x: Tensor[(1, 2, 5, 5), int8], %w: Tensor[(3, 2, 3, 3), int8]", "nn.conv2d(%%x, %%w, padding=[1, 1], channels=3, kernel_size=[3, 3], out_dtype=\"int32\")");
  ADD("nn.conv2d", TOL_E, "%x: Tensor[(1, 2, 5, 5), float64], %w: Tensor[(3, 2, 3, 3), float64]", "nn.conv2d(%%x, %%w, channels=3, kernel_size=[3, 3])");
  ADD("nn.conv2d_transpose", TOL_A, "%x: Tensor[(1, 3, 4, 4), float32], %w: Tensor[(3, 2, 3, 3), float32]", "nn.conv2d_transpose(%%x, %%w, channels=2, kernel_size=[3, 3], strides=[2, 2], padding=[1, 1], output_padding=[1, 1])");
  ADD("nn.conv2d_transpose", TOL_A, "%x: Tensor[(2, 4, 5, 3), float32], %w: Tensor[(4, 3, 2, 3), float32]", "nn.conv2d_transpose(%%x, %%w, channels=6, kernel_size=[2, 3], groups=2, dilation=[2, 1])");
  ADD("nn.conv2d_transpose", TOL_A, "%x: Tensor[(1, 1, 1, 1), float32], %w: Tensor[(1, 1, 1, 1), float32]", "nn.conv2d_transpose(%%x, %%w, channels=1, kernel_size=[1, 1])");
  ADD("nn.conv2d_transpose", TOL_A, "%x: Tensor[(1, 8, 9, 9), float32], %w: Tensor[(8, 4, 4, 4), float32]", "nn.conv2d_transpose(%%x, %%w, channels=4, kernel_size=[4, 4], strides=[2, 2], padding=[1, 1, 2, 2])");
  ADD("nn.max_pool2d", TOL_E, "%x: Tensor[(1, 2, 7, 7), float32]", "nn.max_pool2d(%%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])");
  ADD("nn.max_pool2d", TOL_E, "%x: Tensor[(1, 2, 7, 6), float32]", "nn.max_pool2d(%%x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)");
  ADD("nn.max_pool2d", TOL_E, "%x: Tensor[(1, 7, 7, 3), float32]", "nn.max_pool2d(%%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout=\"NHWC\")");
  ADD("nn.max_pool2d", TOL_E, "%x: Tensor[(2, 3, 6, 6), int8]", "nn.max_pool2d(%%x, pool_size=[2, 2])");
  ADD("nn.max_pool2d", TOL_E, "%x: Tensor[(1, 32, 33, 33), float32]", "nn.max_pool2d(%%x, pool_size=[3, 3], dilation=[2, 2])");
  ADD("nn.avg_pool2d", TOL_A, "%x: Tensor[(1, 2, 7, 7), float32]", "nn.avg_pool2d(%%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])");
  ADD("nn.avg_pool2d", TOL_A, "%x: Tensor[(1, 2, 7, 7), float32]", "nn.avg_pool2d(%%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], count_include_pad=True)");
  ADD("nn.avg_pool2d", TOL_A, "%x: Tensor[(2, 6, 5, 3), float32]", "nn.avg_pool2d(%%x, pool_size=[2, 2], padding=[1, 1], layout=\"NHWC\", ceil_mode=True)");
  ADD("nn.avg_pool2d", TOL_E, "%x: Tensor[(1, 2, 7, 7), int32]", "nn.avg_pool2d(%%x, pool_size=[2, 2])");
  ADD("nn.avg_pool2d", TOL_E, "%x: Tensor[(1, 2, 5, 5), float64]", "nn.avg_pool2d(%%x, pool_size=[3, 3])");
  ADD("nn.max_pool1d", TOL_E, "%x: Tensor[(2, 3, 9), float32]", "nn.max_pool1d(%%x, pool_size=[3], strides=[2], padding=[1])");
  ADD("nn.max_pool1d", TOL_E, "%x: Tensor[(1, 1, 1), float32]", "nn.max_pool1d(%%x, pool_size=[1])");
  ADD("nn.avg_pool1d", TOL_A, "%x: Tensor[(2, 3, 9), float32]", "nn.avg_pool1d(%%x, pool_size=[2], dilation=[2])");
  ADD("nn.avg_pool1d", TOL_A, "%x: Tensor[(2, 3, 9), float32]", "nn.avg_pool1d(%%x, pool_size=[3], padding=[1], count_include_pad=True)");
  ADD("nn.global_avg_pool2d", TOL_A, "%x: Tensor[(2, 3, 5, 4), float32]", "nn.global_avg_pool2d(%%x)");
  ADD("nn.global_avg_pool2d", TOL_A, "%x: Tensor[(1, 5, 4, 3), float32]", "nn.global_avg_pool2d(%%x, layout=\"NHWC\")");
  ADD("nn.global_avg_pool2d", TOL_A, "%x: Tensor[(1, 64, 28, 28), float32]", "nn.global_avg_pool2d(%%x)");
  ADD("nn.global_max_pool2d", TOL_E, "%x: Tensor[(2, 3, 5, 4), float32]", "nn.global_max_pool2d(%%x)");
  ADD("nn.global_max_pool2d", TOL_E, "%x: Tensor[(1, 2, 2, 3), int32]", "nn.global_max_pool2d(%%x)");
  ADD("nn.adaptive_avg_pool2d", TOL_A, "%x: Tensor[(1, 2, 5, 7), float32]", "nn.adaptive_avg_pool2d(%%x, output_size=[2, 3])");
  ADD("nn.adaptive_avg_pool2d", TOL_A, "%x: Tensor[(1, 5, 7, 2), float32]", "nn.adaptive_avg_pool2d(%%x, output_size=[3, 3], layout=\"NHWC\")");
  ADD("nn.adaptive_max_pool2d", TOL_E, "%x: Tensor[(1, 2, 5, 7), float32]", "nn.adaptive_max_pool2d(%%x, output_size=[3, 3])");
  ADD("nn.adaptive_max_pool2d", TOL_E, "%x: Tensor[(1, 2, 4, 4), float32]", "nn.adaptive_max_pool2d(%%x, output_size=[1, 1])");
  ADD("nn.adaptive_avg_pool1d", TOL_A, "%x: Tensor[(1, 2, 7), float32]", "nn.adaptive_avg_pool1d(%%x, output_size=[3])");
  ADD("nn.adaptive_max_pool1d", TOL_E, "%x: Tensor[(1, 2, 7), float32]", "nn.adaptive_max_pool1d(%%x, output_size=[4])");
  ADD("nn.softmax", TOL_A, "%x: Tensor[(3, 10), float32]", "nn.softmax(%%x)");
  ADD("nn.softmax", TOL_A, "%x: Tensor[(2, 5, 3), float32]", "nn.softmax(%%x, axis=1)");
  ADD("nn.softmax", TOL_A, "%x: Tensor[(1), float32]", "nn.softmax(%%x)");
  ADD("nn.softmax", TOL_A, "%x: Tensor[(64, 300), float32]", "nn.softmax(%%x)");
  ADD("nn.softmax", TOL_E, "%x: Tensor[(3, 7), float64]", "nn.softmax(%%x)");
  ADD("nn.hardmax", TOL_E, "%x: Tensor[(3, 10), float32]", "nn.hardmax(%%x)");
  ADD("nn.hardmax", TOL_E, "%x: Tensor[(2, 5, 3), float64]", "nn.hardmax(%%x, axis=1)");
  ADD("nn.hardmax", TOL_E, "%x: Tensor[(1), float32]", "nn.hardmax(%%x, axis=0)");
  ADD("nn.log_softmax", TOL_A, "%x: Tensor[(3, 10), float32]", "nn.log_softmax(%%x)");
  ADD("nn.log_softmax", TOL_A, "%x: Tensor[(4, 3, 2), float32]", "nn.log_softmax(%%x, axis=0)");
  ADD("nn.log_softmax", TOL_E, "%x: Tensor[(2, 5), float64]", "nn.log_softmax(%%x)");
}

/* The composites, once through SimplifyInference (expanded) and once with
 * it disabled (lowered as themselves). */
static void composite_cases(void) {
  for (int d = 0; d < 2; ++d) {
    const int32_t np = d ? NOPASS_SIMPLIFY : NOPASS_NONE;
    add_full("nn.batch_norm", 3, TOL_A, np,
             "%x: Tensor[(2, 3, 4, 5), float32], %g: Tensor[(3), float32], %b: Tensor[(3), float32], %m: Tensor[(3), float32], %pv: Tensor[(3), float32]",
             "nn.batch_norm(%%x, %%g, %%b, %%m, %%pv)");
    add_full("nn.batch_norm", 1, TOL_A, np,
             "%x: Tensor[(2, 5, 3), float32], %g: Tensor[(3), float32], %b: Tensor[(3), float32], %m: Tensor[(3), float32], %pv: Tensor[(3), float32]",
             "%%0 = nn.batch_norm(%%x, %%g, %%b, %%m, %%pv, axis=2, center=False); %%1 = %%0.0; nn.relu(%%1)");
    add_full("nn.batch_norm", 1, TOL_E, np,
             "%x: Tensor[(1, 2, 3), float64], %g: Tensor[(2), float64], %b: Tensor[(2), float64], %m: Tensor[(2), float64], %pv: Tensor[(2), float64]",
             "%%0 = nn.batch_norm(%%x, %%g, %%b, %%m, %%pv, scale=False, epsilon=0.001f); %%0.0");
    add_full("nn.layer_norm", 1, TOL_A, np, "%x: Tensor[(3, 10), float32], %g: Tensor[(10), float32], %b: Tensor[(10), float32]", "nn.layer_norm(%%x, %%g, %%b)");
    add_full("nn.layer_norm", 1, TOL_A, np, "%x: Tensor[(2, 4, 3), float32], %g: Tensor[(4), float32], %b: Tensor[(4), float32]", "nn.layer_norm(%%x, %%g, %%b, axis=1, center=False)");
    add_full("nn.layer_norm", 1, TOL_E, np, "%x: Tensor[(2, 6), float64], %g: Tensor[(6), float64], %b: Tensor[(6), float64]", "nn.layer_norm(%%x, %%g, %%b, scale=False)");
    add_full("nn.group_norm", 1, TOL_A, np, "%x: Tensor[(2, 6, 3, 4), float32], %g: Tensor[(6), float32], %b: Tensor[(6), float32]", "nn.group_norm(%%x, %%g, %%b, num_groups=3)");
    add_full("nn.group_norm", 1, TOL_A, np, "%x: Tensor[(1, 4, 5), float32], %g: Tensor[(4), float32], %b: Tensor[(4), float32]", "nn.group_norm(%%x, %%g, %%b, num_groups=4)");
    add_full("nn.instance_norm", 1, TOL_A, np, "%x: Tensor[(2, 3, 4, 5), float32], %g: Tensor[(3), float32], %b: Tensor[(3), float32]", "nn.instance_norm(%%x, %%g, %%b)");
    add_full("nn.instance_norm", 1, TOL_A, np, "%x: Tensor[(2, 5, 3), float32], %g: Tensor[(3), float32], %b: Tensor[(3), float32]", "nn.instance_norm(%%x, %%g, %%b, axis=2)");
    add_full("nn.l2_normalize", 1, TOL_A, np, "%x: Tensor[(3, 8), float32]", "nn.l2_normalize(%%x, eps=0.001f, axis=[1])");
    add_full("nn.l2_normalize", 1, TOL_A, np, "%x: Tensor[(2, 3, 4), float32]", "nn.l2_normalize(%%x, eps=0.0001f)");
    add_full("nn.l2_normalize", 1, TOL_E, np, "%x: Tensor[(2, 3, 4), float64]", "nn.l2_normalize(%%x, eps=0.0001f, axis=[0, 2])");
    add_full("nn.dropout", 2, TOL_E, np, "%x: Tensor[(3, 4), float32]", "nn.dropout(%%x)");
    add_full("nn.dropout", 1, TOL_E, np, "%x: Tensor[(2, 5), float64]", "%%0 = nn.dropout(%%x, rate=0.2f); %%0.0");
    add_full("nn.lrn", 1, TOL_A, np, "%x: Tensor[(1, 6, 3, 3), float32]", "nn.lrn(%%x)");
    add_full("nn.lrn", 1, TOL_A, np, "%x: Tensor[(2, 3, 7), float32]", "nn.lrn(%%x, size=3, axis=2, bias=1f, alpha=0.5f, beta=0.5f)");
  }
}

static void fused_cases(void) {
  ADD("fused", TOL_A, "%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]); %%1 = nn.bias_add(%%0, %%b); nn.relu(%%1)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 16, 15, 15), float32], %w: Tensor[(16, 16, 3, 3), float32], %b: Tensor[(16, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[1, 1], channels=16, kernel_size=[3, 3]); %%1 = add(%%0, %%b); nn.relu(%%1)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 8, 9, 9), float32], %w: Tensor[(8, 8, 3, 3), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[1, 1], channels=8, kernel_size=[3, 3]); %%1 = add(%%0, %%x); nn.relu(%%1)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 9, 9, 8), float32], %w: Tensor[(3, 3, 8, 8), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[1, 1], channels=8, kernel_size=[3, 3], data_layout=\"NHWC\", kernel_layout=\"HWIO\"); %%1 = add(%%0, %%x); nn.relu(%%1)");
  /* gelu, erf form: x * 0.5 * (1 + erf(x / sqrt(2))). */
  ADD("fused", TOL_A, "%x: Tensor[(37, 129), float32], %w: Tensor[(65, 129), float32], %b: Tensor[(65), float32]",
      "%%0 = nn.dense(%%x, %%w); %%1 = nn.bias_add(%%0, %%b, axis=-1); %%2 = multiply(%%1, 0.707107f); %%3 = erf(%%2); %%4 = add(%%3, 1f); %%5 = multiply(%%1, %%4); multiply(%%5, 0.5f)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 1), float32], %w: Tensor[(1, 1), float32]",
      "%%0 = nn.dense(%%x, %%w); %%1 = multiply(%%0, 0.707107f); %%2 = erf(%%1); %%3 = add(%%2, 1f); %%4 = multiply(%%0, %%3); multiply(%%4, 0.5f)");
  ADD("fused", TOL_A, "%x: Tensor[(2, 8, 16), float32], %y: Tensor[(2, 16, 8), float32]",
      "%%0 = nn.batch_matmul(%%x, %%y); %%1 = multiply(%%0, 0.25f); nn.softmax(%%1)");
  ADD("fused", TOL_A, "%x: Tensor[(5, 12), float32], %y: Tensor[(12, 7), float32]", "%%0 = nn.matmul(%%x, %%y); nn.softmax(%%0)");
  ADD("fused", TOL_A, "%x: Tensor[(4, 9), float32]", "sum(exp(%%x), axis=[1])");
  ADD("fused", TOL_E, "%x: Tensor[(2, 12), float32], %y: Tensor[(4, 2, 3), float32]",
      "%%0 = reshape(%%x, newshape=[2, 3, 4]); %%1 = transpose(%%0, axes=[2, 0, 1]); add(%%1, %%y)");
  ADD("fused", TOL_E, "%x: Tensor[(1, 2, 6, 6), float32]", "nn.max_pool2d(nn.relu(%%x), pool_size=[2, 2], strides=[2, 2])");
  /* A tuple from outside the group: softmax is its own group, so the
   * concatenate's group takes a tuple whose field comes in as a param. */
  ADD("fused", TOL_A, "%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]", "%%0 = exp(%%x); %%1 = nn.softmax(%%y); concatenate((%%0, %%1))");
  ADD("fused", TOL_A, "%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]", "%%0 = nn.softmax(%%x); %%1 = nn.softmax(%%y); stack((%%0, %%1), axis=1)");
}

static void dynamic_cases(void);

static void build_cases(void) {
  g_ncases = 0;
  unary_cases();
  binary_cases();
  reduce_cases();
  transform_cases();
  image_cases();
  anchor_cases();
  composite_cases();
  fused_cases();
  dynamic_cases();
}

/* ---- inputs ------------------------------------------------------------------- */

static void set_elem(rt_tensor_t *t, int64_t i, double v) {
  rt_dtype_t d = rt_tensor_dtype(t);
  char *p = (char *)rt_tensor_data(t);
  switch (d.code) {
    case kDLFloat:
      if (d.bits == 32) ((float *)p)[i] = (float)v;
      if (d.bits == 64) ((double *)p)[i] = v;
      return;
    case kDLInt:
      if (d.bits == 8) ((int8_t *)p)[i] = (int8_t)v;
      if (d.bits == 16) ((int16_t *)p)[i] = (int16_t)v;
      if (d.bits == 32) ((int32_t *)p)[i] = (int32_t)v;
      if (d.bits == 64) ((int64_t *)p)[i] = (int64_t)v;
      return;
    case kDLUInt:
      if (d.bits == 8) ((uint8_t *)p)[i] = (uint8_t)v;
      if (d.bits == 16) ((uint16_t *)p)[i] = (uint16_t)v;
      if (d.bits == 32) ((uint32_t *)p)[i] = (uint32_t)v;
      if (d.bits == 64) ((uint64_t *)p)[i] = (uint64_t)v;
      return;
    case kDLBool: ((uint8_t *)p)[i] = v != 0; return;
    default: return;
  }
}

/* The domain of a param by its name (see the file comment). */
static void shape_domain(rt_tensor_t *t, const char *name) {
  const bool fl = rt_tensor_dtype(t).code == kDLFloat;
  long n = 0;
  if (name[0] == 'i' && sscanf(name + 1, "%ld", &n) == 1 && n > 0) {
    for (int64_t k = 0; k < rt_tensor_numel(t); ++k) {
      set_elem(t, k, (double)((long)fabs(rt_tensor_get_f64(t, k) * (fl ? 64 : 1)) % n));
    }
    return;
  }
  for (int64_t k = 0; k < rt_tensor_numel(t); ++k) {
    double v = rt_tensor_get_f64(t, k);
    if (name[0] == 'p') {
      v = fabs(v) + (fl ? 0.25 : 1);
    } else if (name[0] == 'u' && fl) {
      v = v * 0.9;
    } else if (name[0] == 'g' && fl) {
      v = fabs(v) + 1.1;
    } else if (strncmp(name, "nz", 2) == 0) {
      v = fl ? (v >= 0 ? v + 0.5 : v - 0.5) : (v >= 0 ? v + 1 : v);
    } else if (strncmp(name, "sh", 2) == 0) {
      v = fl ? fabs(v) * 3 : (double)((int64_t)fabs(v) % 4);
    } else {
      continue;
    }
    set_elem(t, k, v);
  }
}

/* ---- comparison --------------------------------------------------------------- */

static bool close_to(const rt_tensor_t *got, const rt_tensor_t *want, tol_t tol, char *why, size_t cap) {
  rt_dtype_t gd = rt_tensor_dtype(got), wd = rt_tensor_dtype(want);
  if (gd.code != wd.code || gd.bits != wd.bits || gd.lanes != wd.lanes) {
    snprintf(why, cap, "dtype code %u bits %u, want code %u bits %u", gd.code, gd.bits, wd.code, wd.bits);
    return false;
  }
  if (rt_tensor_rank(got) != rt_tensor_rank(want) ||
      memcmp(rt_tensor_shape(got), rt_tensor_shape(want), (size_t)rt_tensor_rank(got) * sizeof(int64_t)) != 0) {
    snprintf(why, cap, "shape differs (rank %d, want %d)", rt_tensor_rank(got), rt_tensor_rank(want));
    return false;
  }
  double rtol = 0, atol = 0;
  if (wd.code == kDLFloat || wd.code == kDLBfloat) {
    if (wd.bits == 64) {
      rtol = atol = 1e-10;
    } else if (wd.bits == 16) {
      rtol = atol = 2e-3;
    } else {
      rtol = tol == TOL_A ? 1e-4 : 1e-5;
      atol = 1e-5;
    }
  }
  for (int64_t i = 0; i < rt_tensor_numel(want); ++i) {
    double a = rt_tensor_get_f64(got, i), b = rt_tensor_get_f64(want, i);
    if (isnan(a) && isnan(b)) continue;
    if (a == b) continue;
    if (rtol > 0 && fabs(a - b) <= atol + rtol * fabs(b)) continue;
    snprintf(why, cap, "element %lld: got %.9g, want %.9g", (long long)i, a, b);
    return false;
  }
  return true;
}

/* ---- programs ----------------------------------------------------------------- */

typedef struct strbuf_t {
  char *data;
  size_t len, cap;
} strbuf_t;

static void sb_put(strbuf_t *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    b->data = rt_mem_realloc(b->data, b->cap);
    assert_non_null(b->data);
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

static void sb_puts(strbuf_t *b, const char *s) { sb_put(b, s, strlen(s)); }

/* Copies s with every param `%name` renamed `%c<k>_name` and every
 * binding `%<n>` renumbered `%<16 k + n>` (bindings must be numbers). */
static void sb_renamed(strbuf_t *b, const char *s, int32_t k) {
  char pre[24];
  snprintf(pre, sizeof pre, "%%c%d_", (int)k);
  for (; *s; ++s) {
    if (*s == '%' && s[1] >= '0' && s[1] <= '9') {
      char *end;
      long v = strtol(s + 1, &end, 10);
      char num[24];
      snprintf(num, sizeof num, "%%%ld", 16L * k + v);
      sb_puts(b, num);
      s = end - 1;
    } else if (*s == '%' && s[1] && (s[1] == '_' || (s[1] >= 'a' && s[1] <= 'z') ||
                                     (s[1] >= 'A' && s[1] <= 'Z'))) {
      sb_puts(b, pre);
    } else {
      sb_put(b, s, 1);
    }
  }
}

/* One @main over cases idx[0..n): params renamed, result the tuple of
 * every case's result. A case body "s1; s2; e" becomes "s1; s2; %<16 k +
 * 15> = e;". */
static char *batch_text(const int32_t *idx, int32_t n) {
  strbuf_t b = {0};
  sb_puts(&b, "#[version = \"0.0.5\"]\ndef @main(");
  bool first = true;
  for (int32_t j = 0; j < n; ++j) {
    const dcase_t *c = &g_cases[idx[j]];
    if (!*c->sig) continue;
    if (!first) sb_puts(&b, ", ");
    first = false;
    sb_renamed(&b, c->sig, idx[j]);
  }
  sb_puts(&b, ") {\n");
  for (int32_t j = 0; j < n; ++j) {
    const dcase_t *c = &g_cases[idx[j]];
    const char *last = strrchr(c->body, ';');
    char tmp[32];
    sb_puts(&b, "  ");
    if (last) {
      char head[600];
      snprintf(head, sizeof head, "%.*s", (int)(last - c->body + 1), c->body);
      sb_renamed(&b, head, idx[j]);
      sb_puts(&b, "\n  ");
    }
    snprintf(tmp, sizeof tmp, "%%%d = ", (int)(16 * idx[j] + 15));
    sb_puts(&b, tmp);
    sb_renamed(&b, last ? last + 1 : c->body, idx[j]);
    sb_puts(&b, ";\n");
  }
  sb_puts(&b, "  (");
  for (int32_t j = 0; j < n; ++j) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%s%%%d", j ? ", " : "", (int)(16 * idx[j] + 15));
    sb_puts(&b, tmp);
  }
  sb_puts(&b, n == 1 ? ",)\n}\n" : ")\n}\n");
  return b.data;
}

static rt_status_t make_ctx(int32_t nopass, rt_pass_context_t **out) {
  *out = NULL;
  if (nopass == NOPASS_NONE) return RT_OK;
  RT_RETURN_IF_ERROR(rt_pass_context_create(out));
  if (nopass & NOPASS_SIMPLIFY) RT_RETURN_IF_ERROR(rt_pass_context_disable(*out, "SimplifyInference"));
  if (nopass & NOPASS_FOLD) RT_RETURN_IF_ERROR(rt_pass_context_disable(*out, "FoldConstant"));
  return RT_OK;
}

/* Random inputs for every input of ex, by name. */
static void make_inputs(rt_executor_t *ex, uint64_t seed, rt_tensor_t **ins, int32_t *out_n) {
  const int32_t n = rt_executor_num_inputs(ex);
  for (int32_t i = 0; i < n; ++i) {
    rt_tensor_info_t info;
    assert_ok(rt_executor_input_info(ex, i, &info));
    int64_t shape[RT_TENSOR_MAX_RANK];
    for (int32_t k = 0; k < info.rank; ++k) shape[k] = info.shape[k] < 0 ? 3 : info.shape[k];
    assert_ok(rt_tensor_create(rt_allocator_system(), info.dtype, info.rank, shape, &ins[i]));
    rt_tensor_fill_random(ins[i], seed + (uint64_t)i * 7919u);
    /* Names are c<k>_<param>: the domain is the param part. */
    const char *u = strchr(info.name, '_');
    shape_domain(ins[i], u && info.name[0] == 'c' ? u + 1 : info.name);
  }
  *out_n = n;
}

/* Runs ex on ins; outputs (new references) into outs. */
static rt_status_t run_exec(rt_executor_t *ex, int32_t nin, rt_tensor_t **ins, rt_tensor_t **outs,
                            int32_t *out_n) {
  for (int32_t i = 0; i < nin; ++i) RT_RETURN_IF_ERROR(rt_executor_set_input(ex, i, ins[i]));
  RT_RETURN_IF_ERROR(rt_executor_run(ex));
  const int32_t n = rt_executor_num_outputs(ex);
  for (int32_t o = 0; o < n; ++o) {
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(rt_executor_get_output(ex, o, &t));
    rt_tensor_retain(t);
    outs[o] = t;
  }
  *out_n = n;
  return RT_OK;
}

static int64_t g_cases_run, g_execs_created;
static int64_t g_cases_by_exec[4];

#define MAX_IO 1024

/* Runs cases idx[0..n) (one nopass class) as one program through every
 * executor; returns the number of failures. With `alone`, failures are
 * reported; otherwise a failing batch is rerun case by case. */
static int32_t run_batch(const int32_t *idx, int32_t n, bool alone) {
  char *text = batch_text(idx, n);
  int32_t failures = 0;
  rt_module_t *m = NULL;
  rt_status_t st = rt_module_parse(text, strlen(text), "differential.relay", &m);
  rt_pass_context_t *ctx = NULL;
  if (!st) st = make_ctx(g_cases[idx[0]].nopass, &ctx);
  rt_executor_t *ref = NULL;
  if (!st) st = rt_create_executor("debug", m, NULL, ctx, NULL, &ref);
  rt_tensor_t **ins = rt_mem_calloc(MAX_IO, sizeof *ins), **want = rt_mem_calloc(MAX_IO, sizeof *want);
  rt_tensor_t **got = rt_mem_calloc(MAX_IO, sizeof *got);
  int32_t nin = 0, nwant = 0;
  if (!st) {
    make_inputs(ref, 0x5eed0000u + (uint64_t)idx[0] * 131u, ins, &nin);
    st = run_exec(ref, nin, ins, want, &nwant);
  }
  if (st) {
    if (alone) {
      fprintf(stderr, "FAIL case %d (%s) %s: reference: %s\n", idx[0], g_cases[idx[0]].op,
              g_cases[idx[0]].body, rt_status_message(st));
      failures = 1;
    }
    rt_status_free(st);
    st = RT_STATUS(INTERNAL, "reference");
  }
  for (int32_t e = 0; !st && e < NUM_EXECUTORS && failures == 0; ++e) {
    if (kExecutors[e].unavailable) continue;
    rt_executor_t *ex = NULL;
    rt_status_t es = rt_create_executor(kExecutors[e].kind, m, NULL, ctx, NULL, &ex);
    g_execs_created++;
    if (es && rt_status_code(es) == RT_STATUS_UNIMPLEMENTED && strstr(rt_status_message(es), "not built")) {
      printf("# note: executor \"%s\" is not built yet (%s); skipped\n", kExecutors[e].kind, rt_status_message(es));
      kExecutors[e].unavailable = true;
      rt_status_free(es);
      continue;
    }
    int32_t ngot = 0;
    if (!es) es = run_exec(ex, nin, ins, got, &ngot);
    if (!es && ngot != nwant) es = RT_STATUS(INTERNAL, "%d outputs, the reference has %d", ngot, nwant);
    if (es) {
      if (alone) fprintf(stderr, "FAIL case %d (%s) %s [%s]: %s\n", idx[0], g_cases[idx[0]].op, g_cases[idx[0]].body,
                         kExecutors[e].kind, rt_status_message(es));
      rt_status_free(es);
      failures++;
    } else {
      int32_t o = 0;
      for (int32_t j = 0; j < n; ++j) {
        const dcase_t *c = &g_cases[idx[j]];
        bool bad = false;
        for (int32_t k = 0; k < c->nout && o < ngot; ++k, ++o) {
          char why[200];
          if (!close_to(got[o], want[o], c->tol, why, sizeof why)) {
            fprintf(stderr, "FAIL case %d (%s) %s: %s sig %s [%s] output %d: %s\n", idx[j], c->op, c->body,
                    c->sig, "", kExecutors[e].kind, k, why);
            bad = true;
          }
        }
        if (bad) failures++;
        g_cases_by_exec[e]++;
      }
      if (o != ngot) {
        fprintf(stderr, "FAIL batch at case %d: output count mismatch (%d of %d)\n", idx[0], o, ngot);
        failures++;
      }
    }
    for (int32_t k = 0; k < ngot; ++k) rt_tensor_release(got[k]);
    rt_executor_release(ex);
  }
  if (!alone && (st || failures)) {
    /* Find the culprits. */
    failures = 0;
    for (int32_t j = 0; j < n; ++j) failures += run_batch(&idx[j], 1, true);
  } else if (alone) {
    g_cases_run += 1;
  } else {
    g_cases_run += n;
  }
  rt_status_free(st);
  for (int32_t k = 0; k < nin; ++k) rt_tensor_release(ins[k]);
  for (int32_t k = 0; k < nwant; ++k) rt_tensor_release(want[k]);
  rt_mem_free(ins);
  rt_mem_free(want);
  rt_mem_free(got);
  rt_executor_release(ref);
  rt_pass_context_release(ctx);
  rt_module_release(m);
  rt_mem_free(text);
  return failures;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- tests -------------------------------------------------------------------- */

/* Every op of ops.def has a case; then every case through every executor. */
static void test_differential_ops(void **state) {
  (void)state;
  g_cases = rt_mem_calloc(MAX_CASES, sizeof *g_cases);
  build_cases();
  int32_t missing = 0;
  for (size_t i = 0; i < RT_COUNTOF(kOps); ++i) {
    bool found = false;
    for (int32_t k = 0; k < g_ncases && !found; ++k) found = strcmp(g_cases[k].op, kOps[i]) == 0;
    if (!found) {
      fprintf(stderr, "FAIL op %s has no differential case\n", kOps[i]);
      missing++;
    }
  }
  /* Dtypes covered. */
  static const char *const kDtypes[] = {"float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "bool"};
  int32_t ndt = 0;
  for (size_t d = 0; d < RT_COUNTOF(kDtypes); ++d) {
    for (int32_t k = 0; k < g_ncases; ++k) {
      if (strstr(g_cases[k].sig, kDtypes[d]) || strstr(g_cases[k].body, kDtypes[d])) {
        ndt++;
        break;
      }
    }
  }
  const double t0 = now_s();
  int32_t failures = 0;
  const int32_t kBatch = 64;
  int32_t *idx = rt_mem_calloc((size_t)g_ncases, sizeof *idx);
  for (int32_t np = 0; np < 4; ++np) { /* NOPASS_JIT cases: test_differential_jit_level */
    int32_t n = 0;
    for (int32_t k = 0; k < g_ncases; ++k) {
      if (g_cases[k].nopass != np) continue;
      idx[n++] = k;
      if (n == kBatch) {
        failures += run_batch(idx, n, false);
        n = 0;
      }
    }
    if (n) failures += run_batch(idx, n, false);
  }
  printf("# %d cases over %zu ops (+ fused patterns), %d dtypes; %lld run through executors, %d failed; %lld executors created; %.1f s\n",
         g_ncases, RT_COUNTOF(kOps), ndt, (long long)g_cases_run, failures, (long long)g_execs_created, now_s() - t0);
  for (int32_t e = 0; e < NUM_EXECUTORS; ++e) {
    printf("#   %s: %lld cases%s\n", kExecutors[e].kind, (long long)g_cases_by_exec[e],
           kExecutors[e].unavailable ? " (not built: skipped)" : "");
  }
  rt_mem_free(idx);
  rt_mem_free(g_cases);
  assert_int_equal(missing, 0);
  assert_int_equal(failures, 0);
}

/* Runs one whole program (a corpus file, the example) through every
 * executor against the reference. Returns 1 when it ran, 0 when skipped
 * (the reason in why), and counts failures. */
static int32_t run_program(const char *path, char *why, size_t cap, int32_t *failures) {
  rt_module_t *m = NULL;
  rt_status_t st = rt_module_load(path, &m);
  if (st) {
    snprintf(why, cap, "does not load (%.60s)", rt_status_message(st));
    rt_status_free(st);
    return 0;
  }
  rt_executor_t *ref = NULL, *ex = NULL;
  st = rt_create_executor("graph", m, NULL, NULL, NULL, &ex);
  if (st) {
    const char *msg = rt_status_message(st);
    const char *p = strstr(msg, "does not run ");
    if (p) {
      p += strlen("does not run ");
      const char *e = strchr(p, '(');
      snprintf(why, cap, "graph refuses %.*s", (int)(e ? e - p - 1 : 40), p);
    } else if (strstr(msg, "not a tensor") || strstr(msg, "no @main")) {
      snprintf(why, cap, "%s", strstr(msg, "no @main") ? "no @main" : "non-tensor inputs or outputs");
    } else {
      fprintf(stderr, "FAIL %s: the graph executor: %s\n", path, msg);
      ++*failures;
      rt_status_free(st);
      rt_module_release(m);
      return 1;
    }
    rt_status_free(st);
    rt_module_release(m);
    return 0;
  }
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ref));
  rt_tensor_t *ins[MAX_IO], *want[MAX_IO], *got[MAX_IO];
  int32_t nin = 0, nwant = 0, ngot = 0;
  make_inputs(ref, 77, ins, &nin);
  st = run_exec(ref, nin, ins, want, &nwant);
  int32_t ran = 1;
  if (st) {
    snprintf(why, cap, "the reference fails on random inputs");
    rt_status_free(st);
    ran = 0;
  }
  for (int32_t e = 0; ran && e < NUM_EXECUTORS; ++e) {
    if (kExecutors[e].unavailable) continue;
    rt_executor_t *x = ex;
    if (e > 0) {
      st = rt_create_executor(kExecutors[e].kind, m, NULL, NULL, NULL, &x);
      if (st) {
        if (rt_status_code(st) == RT_STATUS_UNIMPLEMENTED && strstr(rt_status_message(st), "not built")) {
          kExecutors[e].unavailable = true;
        } else {
          fprintf(stderr, "FAIL %s [%s]: %s\n", path, kExecutors[e].kind, rt_status_message(st));
          ++*failures;
        }
        rt_status_free(st);
        continue;
      }
    }
    st = run_exec(x, nin, ins, got, &ngot);
    if (st) {
      fprintf(stderr, "FAIL %s [%s]: run: %s\n", path, kExecutors[e].kind, rt_status_message(st));
      rt_status_free(st);
      ++*failures;
      ngot = 0;
    }
    for (int32_t o = 0; o < ngot && o < nwant; ++o) {
      char w[200];
      if (!close_to(got[o], want[o], TOL_A, w, sizeof w)) {
        fprintf(stderr, "FAIL %s [%s] output %d: %s\n", path, kExecutors[e].kind, o, w);
        ++*failures;
      }
    }
    for (int32_t o = 0; o < ngot; ++o) rt_tensor_release(got[o]);
    if (x != ex) rt_executor_release(x);
  }
  for (int32_t k = 0; k < nin; ++k) rt_tensor_release(ins[k]);
  for (int32_t k = 0; k < nwant; ++k) rt_tensor_release(want[k]);
  rt_executor_release(ref);
  rt_executor_release(ex);
  rt_module_release(m);
  return ran;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_differential_corpus(void **state) {
  (void)state;
  const char *dir = rt_test_path("ir/corpus");
  char dpath[1024];
  snprintf(dpath, sizeof dpath, "%s", dir);
  DIR *d = opendir(dpath);
  assert_non_null(d);
  char *names[512];
  int32_t n = 0;
  for (struct dirent *de; (de = readdir(d)) != NULL && n < 512;) {
    size_t len = strlen(de->d_name);
    if (len > 6 && strcmp(de->d_name + len - 6, ".relay") == 0) names[n++] = rt_mem_strdup(de->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  int32_t ran = 0, skipped = 0, failures = 0;
  for (int32_t i = 0; i < n; ++i) {
    char path[1200], why[160] = "";
    snprintf(path, sizeof path, "%s/%s", dpath, names[i]);
    if (run_program(path, why, sizeof why, &failures)) {
      ++ran;
    } else {
      ++skipped;
      printf("# skipped %s: %s\n", names[i], why);
    }
    rt_mem_free(names[i]);
  }
  char ex[1200], why[160] = "";
  snprintf(ex, sizeof ex, "%s/../examples/cnn.relay", rt_test_path("."));
  const int32_t ex_ran = run_program(ex, why, sizeof why, &failures);
  if (!ex_ran) fprintf(stderr, "FAIL examples/cnn.relay was skipped: %s\n", why);
  printf("# corpus: %d programs run, %d skipped; examples/cnn.relay %s; %d failures\n", ran, skipped,
         ex_ran ? "run" : "skipped", failures);
  assert_int_equal(ex_ran, 1);
  assert_int_equal(failures, 0);
}

/* ---- `?` dims, at the JIT level ----------------------------------------------- */

static void dynamic_cases(void) {
  static const char *const kFns[][2] = {
      {"%x: Tensor[(?, 24), float32], %w: Tensor[(10, 24), float32]", "nn.dense(%x, %w)"},
      {"%x: Tensor[(?, ?, 24), float32], %w: Tensor[(10, 24), float32]", "nn.relu(nn.dense(%x, %w))"},
      {"%x: Tensor[(?, 24), float32], %w: Tensor[(?, 24), float32]", "nn.dense(%x, %w)"},
      {"%x: Tensor[(?, 6), float32], %y: Tensor[(6, 5), float32]", "nn.matmul(%x, %y)"},
      {"%x: Tensor[(6, ?), float32], %y: Tensor[(7, 6), float32]", "nn.matmul(%x, %y, transpose_a=True, transpose_b=True)"},
      {"%x: Tensor[(?, ?, 8), float32], %y: Tensor[(?, 5, 8), float32]", "nn.batch_matmul(%x, %y, transpose_b=True)"},
      {"%x: Tensor[(?, 4, 8), float32], %y: Tensor[(1, 8, 3), float32]", "nn.batch_matmul(%x, %y)"},
  };
  static const char *const kOpOf[] = {"nn.dense", "nn.dense", "nn.dense", "nn.matmul", "nn.matmul",
                                      "nn.batch_matmul", "nn.batch_matmul"};
  for (size_t f = 0; f < RT_COUNTOF(kFns); ++f) add_full(kOpOf[f], 1, TOL_A, NOPASS_JIT, kFns[f][0], "%s", kFns[f][1]);
}

/* Case k through rt_jit_build at two sizes of its `?` dims, against the
 * debug executor. */
static int32_t run_jit_case(rt_jit_session_t *s, int32_t k) {
  const dcase_t *c = &g_cases[k];
  char text[1200];
  snprintf(text, sizeof text, "#[version = \"0.0.5\"]\ndef @main(%s) {\n  %s\n}\n", c->sig, c->body);
  int32_t failures = 0;
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(text, strlen(text), "jit_case.relay", &m));
  rt_ir_expr_t *fn = rt_ir_module_lookup(m, "main");
  assert_non_null(fn);
  rt_jit_module_t *jm = NULL;
  rt_status_t st = rt_jit_build(s, 1, &fn, NULL, 0, NULL, &jm);
  if (st) {
    fprintf(stderr, "FAIL case %d (%s) %s: jit: %s\n", k, c->op, c->body, rt_status_message(st));
    rt_status_free(st);
    rt_module_release(m);
    return 1;
  }
  rt_executor_t *ref = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ref));
  const int64_t sizes[2] = {1, 13};
  for (int32_t z = 0; z < 2; ++z) {
    rt_tensor_t *ins[8], *want[1] = {0};
    const int32_t nin = fn->fn.nparams;
    for (int32_t i = 0; i < nin; ++i) {
      rt_ir_type_t *t = rt_ir_type_resolve(fn->fn.params[i]->checked_type);
      int64_t shape[RT_TENSOR_MAX_RANK];
      for (int32_t d = 0; d < t->tensor.rank; ++d) {
        shape[d] = t->tensor.shape[d] == RT_DIM_ANY ? sizes[z] : t->tensor.shape[d];
      }
      assert_ok(rt_tensor_create(rt_allocator_system(), t->tensor.dtype, t->tensor.rank, shape, &ins[i]));
      rt_tensor_fill_random(ins[i], 900 + (uint64_t)(z * 10 + i) + (uint64_t)k * 31u);
      shape_domain(ins[i], fn->fn.params[i]->var.name);
    }
    int32_t nout = 0;
    assert_ok(run_exec(ref, nin, ins, want, &nout));
    rt_tensor_t *got = NULL;
    assert_ok(rt_tensor_create(rt_allocator_system(), rt_tensor_dtype(want[0]), rt_tensor_rank(want[0]),
                               rt_tensor_shape(want[0]), &got));
    rt_kernel_arg args[9];
    for (int32_t i = 0; i < nin; ++i) rt_jit_arg_from_tensor(ins[i], &args[i]);
    rt_jit_arg_from_tensor(got, &args[nin]);
    rt_jit_simple_ctx_t ctx;
    rt_jit_simple_ctx_initialize(&ctx);
    char why[200];
    if (rt_jit_module_kernel(jm, 0)(args, nin + 1, &ctx.ctx) != 0) {
      fprintf(stderr, "FAIL case %d (%s) %s size %lld: kernel: %s\n", k, c->op, c->body, (long long)sizes[z], ctx.error);
      ++failures;
    } else if (!close_to(got, want[0], c->tol, why, sizeof why)) {
      fprintf(stderr, "FAIL case %d (%s) %s size %lld: %s\n", k, c->op, c->body, (long long)sizes[z], why);
      ++failures;
    }
    rt_tensor_release(got);
    rt_tensor_release(want[0]);
    for (int32_t i = 0; i < nin; ++i) rt_tensor_release(ins[i]);
  }
  rt_executor_release(ref);
  rt_jit_module_release(jm);
  rt_module_release(m);
  return failures ? 1 : 0;
}

static void test_differential_jit_level(void **state) {
  (void)state;
  g_cases = rt_mem_calloc(MAX_CASES, sizeof *g_cases);
  build_cases();
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  int32_t failures = 0, n = 0;
  for (int32_t k = 0; k < g_ncases; ++k) {
    if (g_cases[k].nopass != NOPASS_JIT) continue;
    failures += run_jit_case(s, k);
    ++n;
  }
  printf("# %d JIT-level cases (`?` dims, arange), %d failed\n", n, failures);
  rt_jit_session_release(s);
  rt_mem_free(g_cases);
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_differential_ops),
      cmocka_unit_test(test_differential_corpus),
      cmocka_unit_test(test_differential_jit_level),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
