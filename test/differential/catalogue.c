/* The differential catalogue (see catalogue.h): every case of every op of
 * ir/ops.def, read by test/differential/test_differential.c (graph and vm
 * against debug) and test/jit/test_jit_ops.c (one JIT module against the
 * interpreter). */
#include "catalogue.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "runtime/mem.h"

/* ---- the op list, from ops.def itself -------------------------------------- */

const char *const cat_ops[] = {
#define RT_OP(ID, name, ninputs, pattern, fields, rel, family, doc) name,
#include "ir/ops.def"
#undef RT_OP
};
const size_t cat_num_ops = RT_COUNTOF(cat_ops);

/* The plain elementwise ops and their domains, from their RT_UNARY /
 * RT_BINARY rows. */
typedef struct plain_t {
  const char *op;
  const char *domain; /* "any", "float" or "int" */
  bool binary;
  const char *rel; /* binary: its type relation ("rel_broadcast_bool": a comparison) */
} plain_t;

static const plain_t kPlain[] = {
#define RT_OP(ID, name, ninputs, pattern, fields, rel, family, doc)
#define RT_UNARY(ID, name, fields, domain, doc) {name, #domain, false, NULL},
#define RT_BINARY(ID, name, rel, domain, doc) {name, #domain, true, #rel},
#include "ir/ops.def"
#undef RT_OP
#undef RT_UNARY
#undef RT_BINARY
};

/* ---- building ---------------------------------------------------------------- */

#define MAX_CASES 1800
static dcase_t *g_cases;
static int32_t g_ncases;
static int32_t g_runs = CAT_ALL; /* the harnesses of the cases added now */

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
  c->runs = g_runs;
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
static const char *const kPairs[][2] = {
    {"(3, 1, 5)", "(4, 5)"}, {"(1)", "(2, 3)"}, {"(130, 513)", "(513)"}, {"()", "(2, 3)"}};

/* The params of a plain elementwise op whose inputs need a domain (float
 * inputs a, b; integer inputs ia, ib; the shapes of the integer cases,
 * when not (2, 1, 7) and (3, 7)); the rest take %x (and %y). */
typedef struct params_t {
  const char *op, *a, *b, *ia, *ib, *ishape_a, *ishape_b;
} params_t;

static const params_t kParams[] = {
    {"log", "p", NULL, "p", NULL, NULL, NULL},
    {"log2", "p", NULL, "p", NULL, NULL, NULL},
    {"log10", "p", NULL, "p", NULL, NULL, NULL},
    {"sqrt", "p", NULL, "p", NULL, NULL, NULL},
    {"rsqrt", "p", NULL, "p", NULL, NULL, NULL},
    {"asin", "u", NULL, "u", NULL, NULL, NULL},
    {"acos", "u", NULL, "u", NULL, NULL, NULL},
    {"atanh", "u", NULL, "u", NULL, NULL, NULL},
    {"acosh", "g", NULL, "g", NULL, NULL, NULL},
    {"divide", "x", "nzb", "x", "nzb", NULL, NULL},
    {"mod", "x", "nzb", "x", "nzb", NULL, NULL},
    {"floor_divide", "x", "nzb", "x", "nzb", NULL, NULL},
    {"floor_mod", "x", "nzb", "x", "nzb", NULL, NULL},
    {"trunc_divide", "x", "nzb", "x", "nzb", NULL, NULL},
    {"trunc_mod", "x", "nzb", "x", "nzb", NULL, NULL},
    {"power", "p", "y", "x", "shb", NULL, NULL},
    {"left_shift", NULL, NULL, "x", "shb", "(2, 9)", "(9)"},
    {"right_shift", NULL, NULL, "x", "shb", "(2, 9)", "(9)"},
};

static const params_t *params_of(const char *op) {
  static const params_t kPlainParams = {NULL, "x", "y", "x", "y", NULL, NULL};
  for (size_t i = 0; i < RT_COUNTOF(kParams); ++i) {
    if (strcmp(kParams[i].op, op) == 0) return &kParams[i];
  }
  return &kPlainParams;
}

/* Every plain elementwise op from its row: float32 on kShapes (kPairs; a
 * comparison, rel_broadcast_bool, on the first pair) and float64 unless
 * its domain is `int`; every integer dtype of kInts when it has an integer
 * form (domain `any` or `int`), int32 when it has not (`float`: computed
 * in double and stored saturated, one path for every such op; a few run
 * every integer dtype in unary_cases). The executors run them all; the JIT
 * harness the first float32 shape and one int32 case (compiling is most of
 * its time): a unary op's on raw (4, 5) data, a binary op's the generated
 * one. An op whose params have a domain also runs on the raw data in the
 * JIT harness (NaN, saturation and, for integer division, power and
 * shifts, the error paths: the harness checks that the kernel fails where
 * the reference does). */
static void plain_cases(void) {
  for (size_t i = 0; i < RT_COUNTOF(kPlain); ++i) {
    const char *op = kPlain[i].op;
    const params_t *pp = params_of(op);
    const bool fl = strcmp(kPlain[i].domain, "int") != 0;
    if (!kPlain[i].binary) {
      const char *a = pp->a ? pp->a : "x";
      for (size_t s = 0; s < RT_COUNTOF(kShapes) && fl; ++s) {
        g_runs = s == 0 ? CAT_ALL : CAT_EXEC;
        ADD(op, TOL_E, S("%%%s: Tensor[%s, float32]", a, kShapes[s]), "%s(%%%s)", op, a);
      }
      g_runs = CAT_EXEC;
      if (fl) ADD(op, TOL_E, S("%%%s: Tensor[(4, 9), float64]", a), "%s(%%%s)", op, a);
      const char *ia = pp->ia ? pp->ia : "x";
      for (size_t d = 0; d < RT_COUNTOF(kInts); ++d) {
        if (strcmp(kInts[d], "int32") != 0 && strcmp(kPlain[i].domain, "float") == 0) continue;
        ADD(op, TOL_E, S("%%%s: Tensor[(5, 11), %s]", ia, kInts[d]), "%s(%%%s)", op, ia);
      }
      g_runs = CAT_JIT;
      if (strcmp(a, "x") != 0) ADD(op, TOL_E, "%x: Tensor[(3, 7), float32]", "%s(%%x)", op);
      ADD(op, TOL_E, "%x: Tensor[(4, 5), int32]", "%s(%%x)", op);
      g_runs = CAT_ALL;
      continue;
    }
    const bool compare = strcmp(kPlain[i].rel, "rel_broadcast_bool") == 0;
    for (size_t s = 0; s < (compare ? 1 : RT_COUNTOF(kPairs)) && fl; ++s) {
      g_runs = s == 0 ? CAT_ALL : CAT_EXEC;
      ADD(op, TOL_E, S("%%%s: Tensor[%s, float32], %%%s: Tensor[%s, float32]", pp->a, kPairs[s][0], pp->b, kPairs[s][1]),
          "%s(%%%s, %%%s)", op, pp->a, pp->b);
    }
    g_runs = CAT_EXEC;
    if (fl) {
      ADD(op, TOL_E, S("%%%s: Tensor[(3, 4), float64], %%%s: Tensor[(4), float64]", pp->a, pp->b), "%s(%%%s, %%%s)", op,
          pp->a, pp->b);
    }
    for (size_t d = 0; d < RT_COUNTOF(kInts); ++d) {
      g_runs = strcmp(kInts[d], "int32") == 0 ? CAT_ALL : CAT_EXEC;
      ADD(op, TOL_E,
          S("%%%s: Tensor[%s, %s], %%%s: Tensor[%s, %s]", pp->ia, pp->ishape_a ? pp->ishape_a : "(2, 1, 7)", kInts[d],
            pp->ib, pp->ishape_b ? pp->ishape_b : "(3, 7)", kInts[d]),
          "%s(%%%s, %%%s)", op, pp->ia, pp->ib);
    }
    g_runs = CAT_JIT;
    if (strcmp(pp->ib, "y") != 0) {
      if (fl) ADD(op, TOL_E, "%x: Tensor[(3, 1, 5), float32], %y: Tensor[(4, 5), float32]", "%s(%%x, %%y)", op);
      ADD(op, TOL_E, "%x: Tensor[(2, 1, 7), int32], %y: Tensor[(3, 7), int32]", "%s(%%x, %%y)", op);
    }
    g_runs = CAT_ALL;
  }
}

/* The other elementwise ops, and the plain ones' attributes and bools. */
static void unary_cases(void) {
  static const struct { const char *op; bool ints; } u[] = {
      {"isnan", true}, {"isinf", false}, {"isfinite", true}, {"zeros_like", true}, {"ones_like", true}};
  for (size_t i = 0; i < RT_COUNTOF(u); ++i) { /* as plain_cases */
    for (size_t s = 0; s < RT_COUNTOF(kShapes); ++s) {
      g_runs = s == 0 ? CAT_ALL : CAT_EXEC;
      ADD(u[i].op, TOL_E, S("%%x: Tensor[%s, float32]", kShapes[s]), "%s(%%x)", u[i].op);
    }
    g_runs = CAT_EXEC;
    ADD(u[i].op, TOL_E, "%x: Tensor[(4, 9), float64]", "%s(%%x)", u[i].op);
    for (size_t d = 0; d < RT_COUNTOF(kInts) && u[i].ints; ++d) {
      ADD(u[i].op, TOL_E, S("%%x: Tensor[(5, 11), %s]", kInts[d]), "%s(%%x)", u[i].op);
    }
    g_runs = CAT_JIT;
    if (u[i].ints && strstr(u[i].op, "_like") == NULL) ADD(u[i].op, TOL_E, "%x: Tensor[(4, 5), int32]", "%s(%%x)", u[i].op);
  }
  g_runs = CAT_EXEC;
  /* The saturating store of `float` ops on every integer dtype. */
  static const char *const kSat[][2] = {{"exp", "x"}, {"sqrt", "p"}, {"sigmoid", "x"}};
  for (size_t i = 0; i < RT_COUNTOF(kSat); ++i) {
    for (size_t d = 0; d < RT_COUNTOF(kInts); ++d) {
      if (strcmp(kInts[d], "int32") == 0) continue; /* plain_cases */
      ADD(kSat[i][0], TOL_E, S("%%%s: Tensor[(5, 11), %s]", kSat[i][1], kInts[d]), "%s(%%%s)", kSat[i][0], kSat[i][1]);
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
  static const char *const kLogic[] = {"logical_and", "logical_or", "logical_xor"};
  static const char *const kBits[] = {"bitwise_and", "bitwise_or", "bitwise_xor"};
  static const char *const kCmp[] = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"};
  for (size_t i = 0; i < RT_COUNTOF(kLogic); ++i) {
    ADD(kLogic[i], TOL_E, "%x: Tensor[(7), bool], %y: Tensor[(2, 7), bool]", "%s(%%x, %%y)", kLogic[i]);
    ADD(kLogic[i], TOL_E, "%x: Tensor[(6), int32], %y: Tensor[(6), int32]", "%s(%%x, %%y)", kLogic[i]);
  }
  for (size_t i = 0; i < RT_COUNTOF(kBits); ++i) {
    ADD(kBits[i], TOL_E, "%x: Tensor[(7), bool], %y: Tensor[(7), bool]", "%s(%%x, %%y)", kBits[i]);
  }
  for (size_t i = 0; i < RT_COUNTOF(kCmp); ++i) {
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
  /* strides past begin's count apply (the reference and the JIT ignored them). */
  ADD("strided_slice", TOL_E, "%x: Tensor[(5, 6), float32]", "strided_slice(%%x, begin=[1], end=[4], strides=[1, 2])");
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
  /* AlterOpLayout's transforms: NCHW <-> NCHW16c, blocked to blocked,
   * OIHW weights to OIHW{i}i{o}o and the depthwise OIHW1i{o}o. */
  ADD("layout_transform", TOL_E, "%x: Tensor[(2, 2, 3, 5, 16), float32]", "layout_transform(%%x, src_layout=\"NCHW16c\", dst_layout=\"NCHW\")");
  ADD("layout_transform", TOL_E, "%x: Tensor[(1, 4, 3, 3, 8), float32]", "layout_transform(%%x, src_layout=\"NCHW8c\", dst_layout=\"NCHW16c\")");
  ADD("layout_transform", TOL_E, "%x: Tensor[(16, 8, 3, 3), float32]", "layout_transform(%%x, src_layout=\"OIHW\", dst_layout=\"OIHW8i8o\")");
  ADD("layout_transform", TOL_E, "%x: Tensor[(32, 16, 1, 1), float32]", "layout_transform(%%x, src_layout=\"OIHW\", dst_layout=\"OIHW16i16o\")");
  ADD("layout_transform", TOL_E, "%x: Tensor[(16, 1, 3, 3), float32]", "layout_transform(%%x, src_layout=\"OIHW\", dst_layout=\"OIHW1i8o\")");
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
    /* tf_crop_and_resize: a roi reaching past the image (extrapolation) */
    ADD("image.resize2d", TOL_A, "%x: Tensor[(1, 2, 5, 7), float32]",
        "image.resize2d(%%x, size=[4, 6], roi=[0.1f, -0.2f, 1.3f, 0.9f], method=\"%s\", "
        "coordinate_transformation_mode=\"tf_crop_and_resize\", extrapolation_value=3f, rounding_method=\"\")",
        kMethods[m]);
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
  /* h1: given scales (ONNX's Resize: size floor(in * scale), the scale in
   * the coordinate transform), down and up, every mode */
  for (size_t m = 0; m < RT_COUNTOF(kMethods); ++m) {
    for (size_t c = 0; c < RT_COUNTOF(kModes); ++c) {
      ADD("image.resize2d", TOL_A, "%x: Tensor[(1, 2, 5, 7), float32]",
          "image.resize2d(%%x, size=[3, 9], scales=[0.7f, 1.3f], method=\"%s\", "
          "coordinate_transformation_mode=\"%s\", rounding_method=\"\")",
          kMethods[m], kModes[c]);
    }
  }
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
  /* The blocked convolutions (AlterOpLayout's form): block 8 and 16, a
   * different output block, strides, batch 2, groups, depthwise. */
  ADD("nn.contrib_conv2d_NCHWc", TOL_A, "%x: Tensor[(1, 2, 7, 7, 8), float32], %w: Tensor[(2, 2, 3, 3, 8, 8), float32]",
      "nn.contrib_conv2d_NCHWc(%%x, %%w, padding=[1, 1], channels=16, kernel_size=[3, 3], data_layout=\"NCHW8c\", kernel_layout=\"OIHW8i8o\", out_layout=\"NCHW8c\")");
  ADD("nn.contrib_conv2d_NCHWc", TOL_A, "%x: Tensor[(1, 1, 9, 8, 16), float32], %w: Tensor[(2, 2, 3, 3, 8, 16), float32]",
      "nn.contrib_conv2d_NCHWc(%%x, %%w, strides=[2, 2], padding=[1, 1], channels=32, kernel_size=[3, 3], data_layout=\"NCHW16c\", kernel_layout=\"OIHW8i16o\", out_layout=\"NCHW16c\")");
  ADD("nn.contrib_conv2d_NCHWc", TOL_A, "%x: Tensor[(2, 1, 6, 6, 4), float32], %w: Tensor[(3, 1, 1, 1, 4, 4), float32]",
      "nn.contrib_conv2d_NCHWc(%%x, %%w, dilation=[2, 2], channels=12, kernel_size=[1, 1], data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i4o\", out_layout=\"NCHW4c\")");
  ADD("nn.contrib_conv2d_NCHWc", TOL_A, "%x: Tensor[(1, 2, 5, 5, 8), float32], %w: Tensor[(2, 1, 3, 3, 8, 8), float32]",
      "nn.contrib_conv2d_NCHWc(%%x, %%w, padding=[1, 1], groups=2, channels=16, kernel_size=[3, 3], data_layout=\"NCHW8c\", kernel_layout=\"OIHW8i8o\", out_layout=\"NCHW8c\")");
  ADD("nn.contrib_conv2d_NCHWc", TOL_A, "%x: Tensor[(1, 2, 6, 6, 8), float32], %w: Tensor[(4, 2, 3, 3, 8, 4), float32]",
      "nn.contrib_conv2d_NCHWc(%%x, %%w, padding=[1, 1], channels=16, kernel_size=[3, 3], data_layout=\"NCHW8c\", kernel_layout=\"OIHW8i4o\", out_layout=\"NCHW8c\")");
  ADD("nn.contrib_depthwise_conv2d_NCHWc", TOL_A, "%x: Tensor[(1, 2, 9, 9, 8), float32], %w: Tensor[(2, 1, 3, 3, 1, 8), float32]",
      "nn.contrib_depthwise_conv2d_NCHWc(%%x, %%w, strides=[2, 2], padding=[1, 1], groups=16, channels=16, kernel_size=[3, 3], data_layout=\"NCHW8c\", kernel_layout=\"OIHW1i8o\", out_layout=\"NCHW8c\")");
  ADD("nn.contrib_depthwise_conv2d_NCHWc", TOL_A, "%x: Tensor[(1, 1, 8, 7, 16), float32], %w: Tensor[(1, 1, 3, 3, 1, 16), float32], %b: Tensor[(1, 1, 1, 1, 16), float32]",
      "%%0 = nn.contrib_depthwise_conv2d_NCHWc(%%x, %%w, padding=[1, 1], groups=16, channels=16, kernel_size=[3, 3], data_layout=\"NCHW16c\", kernel_layout=\"OIHW1i16o\", out_layout=\"NCHW16c\"); %%1 = add(%%0, %%b); clip(%%1, a_min=0f, a_max=6f)");
  /* conv2d_NCHWc.depthwise (jit/templates/blocked.c, block 8 = the AVX2 width): interior pixel groups,
   * border columns, batch 2, 5x5, a fused residual add */
  ADD("nn.contrib_depthwise_conv2d_NCHWc", TOL_A, "%x: Tensor[(2, 2, 11, 19, 8), float32], %w: Tensor[(2, 1, 5, 5, 1, 8), float32], %r: Tensor[(2, 2, 11, 19, 8), float32]",
      "%%0 = nn.contrib_depthwise_conv2d_NCHWc(%%x, %%w, padding=[2, 2], groups=16, channels=16, kernel_size=[5, 5], data_layout=\"NCHW8c\", kernel_layout=\"OIHW1i8o\", out_layout=\"NCHW8c\"); add(%%0, %%r)");
  /* Pools on NCHW{x}c. */
  ADD("nn.max_pool2d", TOL_E, "%x: Tensor[(1, 2, 7, 7, 8), float32]", "nn.max_pool2d(%%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout=\"NCHW8c\")");
  ADD("nn.avg_pool2d", TOL_A, "%x: Tensor[(2, 1, 7, 6, 16), float32]", "nn.avg_pool2d(%%x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1], ceil_mode=True, count_include_pad=True, layout=\"NCHW16c\")");
  ADD("nn.global_max_pool2d", TOL_E, "%x: Tensor[(1, 3, 5, 4, 8), float32]", "nn.global_max_pool2d(%%x, layout=\"NCHW8c\")");
  ADD("nn.global_avg_pool2d", TOL_A, "%x: Tensor[(1, 2, 7, 7, 8), float32]", "nn.global_avg_pool2d(%%x, layout=\"NCHW8c\")");
  ADD("nn.adaptive_avg_pool2d", TOL_A, "%x: Tensor[(1, 1, 7, 5, 8), float32]", "nn.adaptive_avg_pool2d(%%x, output_size=[3, 2], layout=\"NCHW8c\")");
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
  /* The conv2d templates' paths (jit/templates/conv2d.c): depthwise at
   * stride 1, 2 and 3, 3x3 / 5x5 / 7x7 taps, dilation, widths that are not
   * a multiple of any vector width, a phase with no column inside the
   * image, batch 2, fused epilogues (bias + clip as MobileNet's ReLU6,
   * x * sigmoid(x) as EfficientNet's SiLU, a residual add); 1x1 and 3x3
   * convolutions at 7x7 (the 6x16 tile) and a strided 3x3 one on odd
   * sizes. */
  ADD("fused", TOL_A, "%x: Tensor[(1, 12, 19, 21), float32], %w: Tensor[(12, 1, 3, 3), float32], %b: Tensor[(12), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], padding=[1, 1, 1, 1], groups=12, channels=12, kernel_size=[3, 3]); "
      "%%1 = nn.bias_add(%%0, %%b); clip(%%1, a_min=0f, a_max=6f)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 6, 13, 29), float32], %w: Tensor[(6, 1, 5, 5), float32], %b: Tensor[(6), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[2, 2, 2, 2], groups=6, channels=6, kernel_size=[5, 5]); "
      "%%1 = nn.bias_add(%%0, %%b); nn.relu(%%1)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 5, 17, 17), float32], %w: Tensor[(5, 1, 5, 5), float32], %b: Tensor[(5), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], padding=[2, 2, 2, 2], groups=5, channels=5, kernel_size=[5, 5]); "
      "%%1 = nn.bias_add(%%0, %%b); multiply(%%1, sigmoid(%%1))");
  ADD("fused", TOL_A, "%x: Tensor[(1, 20, 7, 7), float32], %w: Tensor[(20, 1, 3, 3), float32], %b: Tensor[(20, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[1, 1], groups=20, channels=20, kernel_size=[3, 3]); "
      "%%1 = add(%%0, %%b); %%2 = add(%%1, %%x); clip(%%2, a_min=0f, a_max=6f)");
  ADD("fused", TOL_A, "%x: Tensor[(2, 3, 11, 10), float32], %w: Tensor[(3, 1, 3, 3), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[1, 2], padding=[2, 1, 1, 0], dilation=[2, 1], groups=3, channels=3, kernel_size=[3, 3]); nn.relu(%%0)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 4, 9, 35), float32], %w: Tensor[(4, 1, 7, 7), float32], %b: Tensor[(4), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[3, 3, 3, 3], groups=4, channels=4, kernel_size=[7, 7]); nn.bias_add(%%0, %%b)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 3, 10, 14), float32], %w: Tensor[(3, 1, 5, 5), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[3, 3], padding=[2, 2, 1, 0], groups=3, channels=3, kernel_size=[5, 5]); nn.relu(%%0)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 2, 4, 1), float32], %w: Tensor[(2, 1, 3, 3), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], padding=[1, 3, 1, 1], groups=2, channels=2, kernel_size=[3, 3]); nn.relu(%%0)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 3, 9, 67), float32], %w: Tensor[(3, 1, 3, 3), float32], %b: Tensor[(3), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], padding=[1, 1, 1, 1], groups=3, channels=3, kernel_size=[3, 3]); "
      "%%1 = nn.bias_add(%%0, %%b); clip(%%1, a_min=0f, a_max=6f)");
  ADD("fused", TOL_A, "%x: Tensor[(2, 2, 11, 70), float32], %w: Tensor[(2, 1, 5, 5), float32], %b: Tensor[(2), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], padding=[2, 2, 2, 2], groups=2, channels=2, kernel_size=[5, 5]); "
      "%%1 = nn.bias_add(%%0, %%b); multiply(%%1, sigmoid(%%1))");
  ADD("fused", TOL_A, "%x: Tensor[(1, 3, 6, 41), float32], %w: Tensor[(3, 1, 3, 3), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[1, 1, 1, 1], groups=3, channels=3, kernel_size=[3, 3]); add(%%0, %%x)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 2, 5, 40), float32], %w: Tensor[(2, 1, 3, 3), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[1, 17], padding=[1, 1, 1, 1], groups=2, channels=2, kernel_size=[3, 3]); nn.relu(%%0)");
  /* conv_depthwise's paths (issue 18): channels 4 or 2 at a time on 7x7
   * and 14x14 with a partial last unit, batch 2, odd and single output
   * rows, stride 2 on widths with a partly masked last vector pair, and
   * the MobileNet / EfficientNet epilogues on them (ReLU6, SiLU, a
   * per-channel scale as after squeeze-excitation). */
  ADD("fused", TOL_A, "%x: Tensor[(2, 13, 7, 7), float32], %w: Tensor[(13, 1, 3, 3), float32], %b: Tensor[(13), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[1, 1, 1, 1], groups=13, channels=13, kernel_size=[3, 3]); "
      "%%1 = nn.bias_add(%%0, %%b); clip(%%1, a_min=0f, a_max=6f)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 10, 14, 14), float32], %w: Tensor[(10, 1, 5, 5), float32], %s: Tensor[(1, 10, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[2, 2, 2, 2], groups=10, channels=10, kernel_size=[5, 5]); "
      "%%1 = multiply(%%0, sigmoid(%%0)); multiply(%%1, %%s)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 6, 1, 30), float32], %w: Tensor[(6, 1, 3, 3), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[1, 1, 1, 1], groups=6, channels=6, kernel_size=[3, 3]); nn.relu(%%0)");
  ADD("fused", TOL_A, "%x: Tensor[(2, 5, 15, 37), float32], %w: Tensor[(5, 1, 3, 3), float32], %b: Tensor[(5), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], padding=[0, 0, 1, 1], groups=5, channels=5, kernel_size=[3, 3]); "
      "%%1 = nn.bias_add(%%0, %%b); clip(%%1, a_min=0f, a_max=6f)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 7, 19, 19), float32], %w: Tensor[(7, 1, 5, 5), float32], %b: Tensor[(7), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], padding=[2, 2, 2, 2], groups=7, channels=7, kernel_size=[5, 5]); "
      "%%1 = nn.bias_add(%%0, %%b); multiply(%%1, sigmoid(%%1))");
  /* conv_depthwise's chunks by kernel column (dw_plan: up to 12 rows of
   * one vector, 5-10 rows of two): row groups with a shorter last one
   * (29, 25 and 17 output rows), rows of 1-6 vectors with a partial last
   * one, stride 2 and dilation on them, batch 2, 3 channels (no unit of
   * several). */
  ADD("fused", TOL_A, "%x: Tensor[(1, 3, 29, 45), float32], %w: Tensor[(3, 1, 3, 3), float32], %b: Tensor[(3), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[1, 1, 1, 1], groups=3, channels=3, kernel_size=[3, 3]); "
      "%%1 = nn.bias_add(%%0, %%b); clip(%%1, a_min=0f, a_max=6f)");
  ADD("fused", TOL_A, "%x: Tensor[(2, 3, 57, 57), float32], %w: Tensor[(3, 1, 3, 3), float32], %b: Tensor[(3), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], padding=[1, 1, 1, 1], groups=3, channels=3, kernel_size=[3, 3]); "
      "%%1 = nn.bias_add(%%0, %%b); clip(%%1, a_min=0f, a_max=6f)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 3, 33, 47), float32], %w: Tensor[(3, 1, 5, 5), float32], %b: Tensor[(3), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], padding=[2, 2, 2, 2], groups=3, channels=3, kernel_size=[5, 5]); "
      "%%1 = nn.bias_add(%%0, %%b); multiply(%%1, sigmoid(%%1))");
  ADD("fused", TOL_A, "%x: Tensor[(1, 3, 25, 23), float32], %w: Tensor[(3, 1, 5, 5), float32], %b: Tensor[(3), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[2, 2, 2, 2], groups=3, channels=3, kernel_size=[5, 5]); "
      "%%1 = nn.bias_add(%%0, %%b); multiply(%%1, sigmoid(%%1))");
  ADD("fused", TOL_A, "%x: Tensor[(1, 3, 21, 21), float32], %w: Tensor[(3, 1, 3, 3), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[2, 2, 2, 2], dilation=[2, 2], groups=3, channels=3, kernel_size=[3, 3]); nn.relu(%%0)");
  ADD("fused", TOL_A, "%x: Tensor[(2, 6, 5, 9), float32], %w: Tensor[(10, 3, 1, 1), float32], %b: Tensor[(10), float32]",
      "%%0 = nn.conv2d(%%x, %%w, groups=2, channels=10, kernel_size=[1, 1]); %%1 = nn.bias_add(%%0, %%b); nn.relu(%%1)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 8, 4, 8), float32], %w: Tensor[(13, 8, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, channels=13, kernel_size=[1, 1]); nn.relu(%%0)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 40, 7, 7), float32], %w: Tensor[(72, 40, 1, 1), float32], %b: Tensor[(72), float32]",
      "%%0 = nn.conv2d(%%x, %%w, channels=72, kernel_size=[1, 1]); %%1 = nn.bias_add(%%0, %%b); nn.relu(%%1)");
  /* 1x1 convolutions with the GEMM's operands swapped (conv2d.im2colT:
   * 64+ output channels on a small image, or a stride): a column tail
   * (80), a batch, a residual; padding read as zeros at stride 2; groups;
   * a fused input prologue; more than one K block (2100 > 2048). */
  ADD("fused", TOL_A, "%x: Tensor[(2, 300, 5, 5), float32], %w: Tensor[(80, 300, 1, 1), float32], %b: Tensor[(80), float32], %y: Tensor[(2, 80, 5, 5), float32]",
      "%%0 = nn.conv2d(%%x, %%w, channels=80, kernel_size=[1, 1]); %%1 = nn.bias_add(%%0, %%b); %%2 = add(%%1, %%y); nn.relu(%%2)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 64, 9, 11), float32], %w: Tensor[(96, 64, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], padding=[1, 0, 0, 1], channels=96, kernel_size=[1, 1]); nn.relu(%%0)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 128, 6, 6), float32], %w: Tensor[(128, 64, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, groups=2, channels=128, kernel_size=[1, 1]); nn.relu(%%0)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 32, 7, 7), float32], %w: Tensor[(64, 32, 1, 1), float32]",
      "%%0 = nn.relu(%%x); %%1 = nn.conv2d(%%0, %%w, channels=64, kernel_size=[1, 1]); multiply(%%1, 0.5f)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 2100, 3, 3), float32], %w: Tensor[(64, 2100, 1, 1), float32]",
      "nn.conv2d(%%x, %%w, channels=64, kernel_size=[1, 1])");
  ADD("fused", TOL_A, "%x: Tensor[(1, 48, 7, 7), float32], %w: Tensor[(50, 48, 3, 3), float32], %b: Tensor[(50, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[1, 1], channels=50, kernel_size=[3, 3]); %%1 = add(%%0, %%b); nn.relu(%%1)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 5, 15, 23), float32], %w: Tensor[(7, 5, 3, 3), float32], %b: Tensor[(7), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], padding=[1, 2, 0, 1], channels=7, kernel_size=[3, 3]); nn.bias_add(%%0, %%b)");
  /* The direct template's cache blocking (conv2d.c, direct_blocking): an
   * input of more than 256 KiB per image with the weight rows in 128 KiB
   * runs q tiles outer (a 1x1 read in place with a partial last q tile,
   * batch 2, bias and residual; a padded 1x1 through the phase copy, a
   * row tail); a larger weight runs in K blocks, the later ones adding to
   * the stored tile (a stride-2 3x3 on odd sizes whose last K block is
   * shorter; batch 2 with a residual). */
  ADD("fused", TOL_A, "%x: Tensor[(2, 24, 56, 56), float32], %w: Tensor[(40, 24, 1, 1), float32], %b: Tensor[(40), float32], %y: Tensor[(2, 40, 56, 56), float32]",
      "%%0 = nn.conv2d(%%x, %%w, channels=40, kernel_size=[1, 1]); %%1 = nn.bias_add(%%0, %%b); %%2 = add(%%1, %%y); nn.relu(%%2)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 20, 61, 59), float32], %w: Tensor[(13, 20, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[1, 0, 0, 1], channels=13, kernel_size=[1, 1]); nn.relu(%%0)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 30, 53, 57), float32], %w: Tensor[(130, 30, 3, 3), float32], %b: Tensor[(130), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], padding=[1, 1, 1, 1], channels=130, kernel_size=[3, 3]); nn.bias_add(%%0, %%b)");
  ADD("fused", TOL_A, "%x: Tensor[(2, 70, 31, 31), float32], %w: Tensor[(60, 70, 3, 3), float32], %b: Tensor[(60, 1, 1), float32], %y: Tensor[(2, 60, 16, 16), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], padding=[1, 1, 1, 1], channels=60, kernel_size=[3, 3]); %%1 = add(%%0, %%b); %%2 = add(%%1, %%y); nn.relu(%%2)");
  /* The vector epilogue on the 1x1 paths (issue 18; jit/templates/
   * epilogue.c): conv2d.direct applies the tail ops to each tile's
   * accumulators (pixels in the lanes; a partial last tile through the
   * element epilogue), conv2d.im2colT to each full-width tile's rows
   * (channels in the lanes, a residual read and the output written with
   * a stride). Odd channel counts and pixel counts (row tiles and q tiles
   * with tails), batch 2, groups, padding (the phase copy), several K
   * blocks (an input over 256 KiB and a weight over 128 KiB), bias +
   * ReLU6 as maximum / minimum with the constant on either side, clip
   * with bounds that are not float32 values (the element epilogue), a
   * residual, a per-channel scale, x * x, SiLU, nn.bias_add with a 1-d bias;
   * stride 2 and a channel tail (the last panel through the element
   * epilogue) on im2colT. */
  ADD("fused", TOL_A, "%x: Tensor[(2, 19, 13, 11), float32], %w: Tensor[(37, 19, 1, 1), float32], %b: Tensor[(37, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, channels=37, kernel_size=[1, 1]); %%1 = add(%%0, %%b); %%2 = maximum(%%1, 0f); minimum(%%2, 6f)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 16, 23, 23), float32], %w: Tensor[(25, 16, 1, 1), float32], %b: Tensor[(25, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, channels=25, kernel_size=[1, 1]); %%1 = add(%%b, %%0); %%2 = maximum(0f, %%1); minimum(6f, %%2)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 9, 10, 10), float32], %w: Tensor[(14, 9, 1, 1), float32], %b: Tensor[(14), float32]",
      "%%0 = nn.conv2d(%%x, %%w, channels=14, kernel_size=[1, 1]); %%1 = nn.bias_add(%%0, %%b); clip(%%1, a_min=-0.3f, a_max=0.7f)");
  ADD("fused", TOL_A, "%x: Tensor[(2, 24, 17, 9), float32], %w: Tensor[(30, 24, 1, 1), float32], %b: Tensor[(30, 1, 1), float32], %y: Tensor[(2, 30, 17, 9), float32]",
      "%%0 = nn.conv2d(%%x, %%w, channels=30, kernel_size=[1, 1]); %%1 = add(%%0, %%b); %%2 = add(%%1, %%y); nn.relu(%%2)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 12, 9, 14), float32], %w: Tensor[(22, 6, 1, 1), float32], %s: Tensor[(1, 22, 1, 1), float32], %t: Tensor[(22, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, padding=[1, 2, 0, 1], groups=2, channels=22, kernel_size=[1, 1]); %%1 = multiply(%%0, %%s); %%2 = subtract(%%1, %%t); %%3 = multiply(%%2, %%2); negative(%%3)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 160, 24, 24), float32], %w: Tensor[(210, 160, 1, 1), float32], %b: Tensor[(210, 1, 1), float32], %y: Tensor[(1, 210, 24, 24), float32]",
      "%%0 = nn.conv2d(%%x, %%w, channels=210, kernel_size=[1, 1]); %%1 = add(%%0, %%b); %%2 = add(%%1, %%y); nn.relu(%%2)");
  ADD("fused", TOL_A, "%x: Tensor[(2, 40, 7, 7), float32], %w: Tensor[(100, 40, 1, 1), float32], %b: Tensor[(100, 1, 1), float32], %y: Tensor[(2, 100, 7, 7), float32]",
      "%%0 = nn.conv2d(%%x, %%w, channels=100, kernel_size=[1, 1]); %%1 = add(%%0, %%b); %%2 = add(%%y, %%1); nn.relu(%%2)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 48, 13, 13), float32], %w: Tensor[(72, 48, 1, 1), float32], %b: Tensor[(72), float32]",
      "%%0 = nn.conv2d(%%x, %%w, strides=[2, 2], channels=72, kernel_size=[1, 1]); %%1 = nn.bias_add(%%0, %%b, axis=1); %%2 = maximum(%%1, 0f); minimum(%%2, 6f)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 24, 15, 15), float32], %w: Tensor[(36, 24, 1, 1), float32], %b: Tensor[(36, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, channels=36, kernel_size=[1, 1]); %%1 = add(%%0, %%b); multiply(%%1, sigmoid(%%1))");
  ADD("fused", TOL_A, "%x: Tensor[(1, 32, 7, 7), float32], %w: Tensor[(96, 32, 1, 1), float32], %b: Tensor[(96, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, channels=96, kernel_size=[1, 1]); %%1 = add(%%0, %%b); multiply(%%1, sigmoid(%%1))");
  ADD("fused", TOL_A, "%x: Tensor[(1, 64, 5, 5), float32], %w: Tensor[(64, 64, 1, 1), float32], %s: Tensor[(64, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, channels=64, kernel_size=[1, 1]); %%1 = divide(%%0, %%s); clip(%%1, a_min=-1f, a_max=1f)");
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
  /* A concatenate that fills the output: one loop nest per input slab
   * (jit/lower.c, emit_slab). DenseNet's concatenate + batch norm + relu
   * with odd channel counts; the axis last and first; batch 2; and a
   * transpose of a square concatenate (same dims as the output, but the
   * index reaches it permuted: the nests must fall back to the compares). */
  ADD("fused", TOL_E, "%a: Tensor[(1, 5, 3, 7), float32], %b: Tensor[(1, 2, 3, 7), float32], %c: Tensor[(1, 1, 3, 7), float32], %d: Tensor[(1, 3, 3, 7), float32], %s: Tensor[(11, 1, 1), float32], %t: Tensor[(11, 1, 1), float32]",
      "%%0 = concatenate((%%a, %%b, %%c, %%d), axis=1); %%1 = multiply(%%0, %%s); %%2 = add(%%1, %%t); nn.relu(%%2)");
  ADD("fused", TOL_E, "%a: Tensor[(2, 3, 5), float32], %b: Tensor[(2, 3, 4), float32], %r: Tensor[(2, 3, 9), float32]",
      "%%0 = concatenate((%%a, %%b), axis=-1); add(%%0, %%r)");
  ADD("fused", TOL_E, "%a: Tensor[(1, 3, 4), float32], %b: Tensor[(2, 3, 4), float32]",
      "%%0 = concatenate((%%a, %%b), axis=0); nn.relu(%%0)");
  ADD("fused", TOL_E, "%a: Tensor[(2, 5, 6, 6), float32], %b: Tensor[(2, 3, 6, 6), float32]",
      "%%0 = concatenate((%%a, %%b), axis=1); sigmoid(%%0)");
  ADD("fused", TOL_E, "%a: Tensor[(2, 1, 3), float32], %b: Tensor[(2, 2, 3), float32]",
      "%%0 = concatenate((%%a, %%b), axis=1); %%1 = transpose(%%0, axes=[0, 2, 1]); negative(%%1)");
  /* Three or more inputs, all params of the group: one nest in a loop
   * over the inputs, each read through a pointer chosen at run time
   * (jit/lower.c, emit_slab_loop): the axis last, batch 2 with a
   * per-channel scale, an integer dtype, and one input computed in the
   * group (back to a nest per input). */
  ADD("fused", TOL_E, "%a: Tensor[(2, 3, 5), float32], %b: Tensor[(2, 3, 4), float32], %c: Tensor[(2, 3, 1), float32], %r: Tensor[(2, 3, 10), float32]",
      "%%0 = concatenate((%%a, %%b, %%c), axis=-1); add(%%0, %%r)");
  ADD("fused", TOL_E, "%a: Tensor[(2, 3, 2, 5), float32], %b: Tensor[(2, 1, 2, 5), float32], %c: Tensor[(2, 4, 2, 5), float32], %s: Tensor[(8, 1, 1), float32]",
      "%%0 = concatenate((%%a, %%b, %%c), axis=1); %%1 = multiply(%%0, %%s); nn.relu(%%1)");
  ADD("fused", TOL_E, "%a: Tensor[(1, 3, 4), int32], %b: Tensor[(2, 3, 4), int32], %c: Tensor[(1, 3, 4), int32]",
      "%%0 = concatenate((%%a, %%b, %%c), axis=0); negative(%%0)");
  ADD("fused", TOL_E, "%a: Tensor[(1, 2, 3, 3), float32], %b: Tensor[(1, 3, 3, 3), float32], %c: Tensor[(1, 1, 3, 3), float32]",
      "%%0 = exp(%%b); %%1 = concatenate((%%a, %%0, %%c), axis=1); nn.relu(%%1)");
}

static void dynamic_cases(void);
static void dyn_cases(void);
static void datadep_cases(void);
static void list_cases(void);
static void jit_cases(void);
static void winograd_cases(void);
static void scatter_cases(void); /* h3, issue 19 */
static void dense_pack_cases(void); /* h2, issue 18 */

static void build_cases(void) {
  g_ncases = 0;
  plain_cases();
  g_runs = CAT_EXEC;
  unary_cases();
  binary_cases();
  reduce_cases();
  transform_cases();
  image_cases();
  anchor_cases();
  composite_cases();
  fused_cases();
  winograd_cases();
  dense_pack_cases(); /* h2, issue 18 */
  dynamic_cases();
  dyn_cases();
  scatter_cases();
  datadep_cases();
  list_cases();
  g_runs = CAT_JIT;
  jit_cases();
}


/* ---- Winograd convolution (ir/op/winograd.c) ---------------------------------- */

/* Through both harnesses. The weight-transformed chain is what the
 * Conv2dWinograd pass makes of nn.conv2d (the weight a param here, so the
 * transform runs in a kernel instead of being folded); random transformed
 * weights test the convolution op alone. Output channels 16 and 32 take
 * the template (jit/templates/winograd.c), 3 and 12 the generic lowering;
 * odd sizes leave partial tiles and partial tile blocks. */
#define WT(w, m) "nn.contrib_conv2d_winograd_weight_transform(" w ", tile_size=" m ")"
#define WT_T(w, m) WT("transpose(" w ", axes=[1, 0, 2, 3])", m)
#define WCONV "nn.contrib_conv2d_winograd_without_weight_transform"

static void winograd_cases(void) {
  const int32_t runs = g_runs;
  g_runs = CAT_ALL;
  ADD("nn.contrib_conv2d_winograd_weight_transform", TOL_A, "%w: Tensor[(5, 3, 3, 3), float32]", WT("%%w", "4"));
  ADD("nn.contrib_conv2d_winograd_weight_transform", TOL_E, "%w: Tensor[(4, 2, 3, 3), float64]", WT("%%w", "2"));
  ADD(WCONV, TOL_W, "%x: Tensor[(1, 3, 7, 6), float32], %w: Tensor[(6, 6, 3, 16), float32]",
      WCONV "(%%x, %%w, tile_size=4, padding=[1, 1], channels=16, kernel_size=[3, 3])");
  ADD(WCONV, TOL_E, "%x: Tensor[(2, 2, 5, 5), float64], %w: Tensor[(4, 4, 2, 3), float64]",
      WCONV "(%%x, %%w, tile_size=2, padding=[1, 0, 2, 1], channels=3, kernel_size=[3, 3])");
  ADD(WCONV, TOL_W, "%x: Tensor[(2, 5, 6, 7), float32], %w: Tensor[(4, 4, 5, 12), float32]",
      WCONV "(%%x, %%w, tile_size=2)");
  ADD(WCONV, TOL_W, "%x: Tensor[(1, 8, 10, 9), float32], %w: Tensor[(16, 8, 3, 3), float32], %b: Tensor[(16, 1, 1), float32]",
      "%%0 = " WCONV "(%%x, " WT_T("%%w", "4") ", tile_size=4, padding=[1, 1], channels=16, kernel_size=[3, 3]); "
      "%%1 = add(%%0, %%b); nn.relu(%%1)");
  ADD(WCONV, TOL_W, "%x: Tensor[(2, 16, 11, 13), float32], %w: Tensor[(16, 16, 3, 3), float32]",
      "%%0 = " WCONV "(%%x, " WT_T("%%w", "4") ", tile_size=4, padding=[1, 1], channels=16, kernel_size=[3, 3]); "
      "%%1 = add(%%0, %%x); nn.relu(%%1)");
  ADD(WCONV, TOL_W, "%x: Tensor[(1, 32, 7, 7), float32], %w: Tensor[(32, 32, 3, 3), float32]",
      WCONV "(%%x, " WT_T("%%w", "2") ", tile_size=2, padding=[1, 1])");
  /* The packed weight (alpha, alpha, O/P, I, P): random panels of 16 read
   * in place by the template, of 8 (panels copied), of 3 (generic
   * lowering: P not a multiple of the vector width), float64; the weight
   * transform with pack=16 (what the Conv2dWinograd pass makes), here on a
   * param so it runs in the kernel. */
  ADD(WCONV, TOL_W, "%x: Tensor[(1, 8, 10, 9), float32], %w: Tensor[(6, 6, 2, 8, 16), float32]",
      WCONV "(%%x, %%w, tile_size=4, padding=[1, 1], channels=32, kernel_size=[3, 3])");
  ADD(WCONV, TOL_W, "%x: Tensor[(2, 5, 7, 6), float32], %w: Tensor[(4, 4, 4, 5, 8), float32]",
      WCONV "(%%x, %%w, tile_size=2, padding=[1, 1])");
  ADD(WCONV, TOL_W, "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(6, 6, 2, 4, 3), float32]",
      WCONV "(%%x, %%w, tile_size=4, padding=[1, 1])");
  ADD(WCONV, TOL_E, "%x: Tensor[(1, 3, 5, 5), float64], %w: Tensor[(4, 4, 2, 3, 2), float64]",
      WCONV "(%%x, %%w, tile_size=2, padding=[0, 1, 1, 0])");
  ADD("nn.contrib_conv2d_winograd_weight_transform", TOL_A, "%w: Tensor[(32, 3, 3, 3), float32]",
      WT("%%w", "4, pack=16"));
  /* More input channels than the reference kernel's blocks hold (64 per
   * 16-lane panel, 1024 unpacked): partial last blocks. */
  ADD("nn.contrib_conv2d_winograd_weight_transform", TOL_A, "%w: Tensor[(32, 200, 3, 3), float32]",
      WT("%%w", "4, pack=16"));
  ADD("nn.contrib_conv2d_winograd_weight_transform", TOL_A, "%w: Tensor[(3, 1100, 3, 3), float32]",
      WT("%%w", "2"));
  ADD(WCONV, TOL_W, "%x: Tensor[(1, 8, 12, 11), float32], %w: Tensor[(32, 8, 3, 3), float32], %b: Tensor[(32, 1, 1), float32]",
      "%%0 = " WCONV "(%%x, " WT("%%w", "4, pack=16")
      ", tile_size=4, padding=[1, 1], channels=32, kernel_size=[3, 3]); %%1 = add(%%0, %%b); nn.relu(%%1)");
  /* ResNet-18's 3x3 layers (channels@size), with the bias and relu the
   * model fuses (and a residual add on one). */
  static const int32_t kLayers[][2] = {{64, 56}, {128, 28}, {256, 14}, {512, 7}};
  for (size_t i = 0; i < RT_COUNTOF(kLayers); ++i) {
    const int32_t c = kLayers[i][0], hw = kLayers[i][1];
    char sig[400];
    snprintf(sig, sizeof sig,
             "%%x: Tensor[(1, %d, %d, %d), float32], %%w: Tensor[(%d, %d, 3, 3), float32], "
             "%%b: Tensor[(%d, 1, 1), float32]",
             c, hw, hw, c, c, c);
    ADD(WCONV, TOL_W, sig,
        "%%0 = " WCONV "(%%x, " WT_T("%%w", "4") ", tile_size=4, padding=[1, 1], channels=%d, kernel_size=[3, 3]); "
        "%%1 = add(%%0, %%b); %%2 = add(%%1, %%x); nn.relu(%%2)", c);
  }
  g_runs = runs;
}

/* ---- prepacked dense (h2, issue 18: ir/op/nn.c, passes/dense_pack.c) ---------- */

/* Through both harnesses. Random packed weights (N/16, K, 16) test the op
 * alone (the template reads them in place: tails in N, in M's row tiles,
 * K odd, K in 3 blocks, flattened batch dims, 1 row); the packing chain
 * over a (N, K) param is what the DensePack pass makes of nn.dense (the
 * weight a param here, so the packing runs in a kernel instead of being
 * folded); fused bias / relu / gelu-style epilogues; float64 lowers
 * generically. */
#define DPACK "nn.contrib_dense_pack"
#define PACKED(w, np, pad, k) \
  "transpose(reshape(nn.pad(" w ", 0f, pad_width=[[0, " pad "], [0, 0]]), newshape=[" np ", 16, " k "]), axes=[0, 2, 1])"

static void dense_pack_cases(void) {
  const int32_t runs = g_runs;
  g_runs = CAT_ALL;
  ADD(DPACK, TOL_A, "%x: Tensor[(37, 129), float32], %w: Tensor[(5, 129, 16), float32]",
      DPACK "(%%x, %%w, units=65)");
  ADD(DPACK, TOL_A, "%x: Tensor[(1, 40), float32], %w: Tensor[(3, 40, 16), float32]",
      DPACK "(%%x, %%w, units=40)");
  ADD(DPACK, TOL_A, "%x: Tensor[(3, 5, 33), float32], %w: Tensor[(3, 33, 16), float32]",
      DPACK "(%%x, %%w)");
  ADD(DPACK, TOL_A, "%x: Tensor[(2, 3, 7), float32], %w: Tensor[(1, 7, 16), float32]",
      DPACK "(%%x, %%w, units=9)");
  ADD(DPACK, TOL_A, "%x: Tensor[(3, 4099), float32], %w: Tensor[(2, 4099, 16), float32]",
      DPACK "(%%x, %%w, units=20)");
  ADD(DPACK, TOL_A, "%x: Tensor[(5), float32], %w: Tensor[(1, 5, 16), float32]",
      DPACK "(%%x, %%w, units=3)");
  ADD(DPACK, TOL_E, "%x: Tensor[(4, 8), float64], %w: Tensor[(1, 8, 16), float64]",
      DPACK "(%%x, %%w, units=5)");
  ADD(DPACK, TOL_A, "%x: Tensor[(13, 48), float32], %w: Tensor[(3, 48, 16), float32], %b: Tensor[(40), float32]",
      "%%0 = " DPACK "(%%x, %%w, units=40); %%1 = add(%%0, %%b); nn.relu(%%1)");
  ADD(DPACK, TOL_A, "%x: Tensor[(64, 256), float32], %w: Tensor[(130, 256), float32], %b: Tensor[(130), float32]",
      "%%0 = " DPACK "(%%x, " PACKED("%%w", "9", "14", "256") ", units=130); %%1 = add(%%0, %%b); "
      "%%2 = multiply(%%1, 0.707107f); %%3 = erf(%%2); %%4 = add(%%3, 1f); %%5 = multiply(%%1, %%4); "
      "multiply(%%5, 0.5f)");
  ADD(DPACK, TOL_A, "%x: Tensor[(2, 9, 24), float32], %w: Tensor[(17, 24), float32]",
      DPACK "(%%x, " PACKED("%%w", "2", "15", "24") ", units=17)");
  /* nn.conv2d with an OIHW16o kernel (DensePack's 1x1 weights): random
   * panels (conv2d.im2colT_pack: row tail, batch 2, bias + relu6), the
   * chain DensePack makes over an OIHW param, strided; a grouped and a
   * 3x3 packed kernel and float64 lower generically. */
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(2, 40, 7, 7), float32], %w: Tensor[(4, 40, 1, 1, 16), float32], %b: Tensor[(64, 1, 1), float32]",
      "%%0 = nn.conv2d(%%x, %%w, kernel_layout=\"OIHW16o\"); %%1 = add(%%0, %%b); clip(%%1, a_min=0f, a_max=6f)");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(1, 96, 9, 9), float32], %w: Tensor[(80, 96, 1, 1), float32]",
      "nn.conv2d(%%x, reshape(transpose(reshape(%%w, newshape=[5, 16, 96]), axes=[0, 2, 1]), newshape=[5, 96, 1, 1, 16]), "
      "strides=[2, 2], channels=80, kernel_size=[1, 1], kernel_layout=\"OIHW16o\")");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(1, 8, 5, 5), float32], %w: Tensor[(2, 4, 1, 1, 16), float32]",
      "nn.conv2d(%%x, %%w, groups=2, kernel_layout=\"OIHW16o\")");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(1, 6, 6, 7), float32], %w: Tensor[(1, 6, 3, 3, 16), float32]",
      "nn.conv2d(%%x, %%w, padding=[1, 0], kernel_layout=\"OIHW16o\")");
  ADD("nn.conv2d", TOL_E, "%x: Tensor[(1, 5, 3, 3), float64], %w: Tensor[(1, 5, 1, 1, 16), float64]",
      "nn.conv2d(%%x, %%w, kernel_layout=\"OIHW16o\")");
  g_runs = runs;
}

/* ---- the dyn family (ir/op/dyn.h) -------------------------------------------- */

/* The JIT does not lower dyn ops (their values decide the static op), so
 * their cases run through the executors only (CAT_EXEC): each value
 * operand is a shape_of of a static zeros, which FoldConstant makes a
 * constant and DynamicToStatic then turns the call into its static op, on
 * every executor; the reference kernels on run-time values are tested in
 * test/interp/test_dyn.c (the vm's run-time specialization of dyn calls
 * is the vm's to test). */
#define V(dims) "shape_of(zeros(shape=[" dims "]), dtype=\"int64\")"

/* ---- list and option (ir/op/list.c; sequences and optionals) ---------------- */

/* The debug executor and the vm run them (CAT_DEBUG; graph refuses them);
 * each case's result is a tensor made from a list or option. */
static void list_cases(void) {
  g_runs = CAT_DEBUG;
  ADD("list.empty", TOL_E, "%x: Tensor[(2, 3), float32]",
      "%%0 = list.empty(rank=2); %%1 = list.insert(%%0, %%x, list.length(%%0)); list.at(%%1, 0)");
  ADD("list.construct", TOL_E, "%x: Tensor[(2, 3), float32]",
      "list.length(list.construct((%%x, %%x, %%x)))");
  ADD("list.at", TOL_E, "%x: Tensor[(2, 3), float32], %y: Tensor[(4, 3), float32]",
      "list.at(list.construct((%%x, %%y)), -1)");
  ADD("list.length", TOL_E, "%x: Tensor[(2, 3), float32]", "list.length(list.construct((%%x,)))");
  ADD("list.insert", TOL_E, "%x: Tensor[(2, 3), float32], %y: Tensor[(4, 3), float32]",
      "list.concat(list.insert(list.construct((%%x, %%x)), %%y, 1i64), axis=0)");
  ADD("list.erase", TOL_E, "%x: Tensor[(2, 3), float32], %y: Tensor[(4, 3), float32]",
      "list.at(list.erase(list.construct((%%x, %%y, %%x)), 0), 0)");
  ADD("list.concat", TOL_E, "%x: Tensor[(2, 3), int32], %y: Tensor[(2, 3), int32]",
      "list.concat(list.construct((%%x, %%y)), axis=-1, new_axis=True)");
  ADD("list.split", TOL_E, "%x: Tensor[(5, 3), float32]",
      "%%0 = list.split(%%x, 2i64, axis=0); list.at(%%0, 2)");
  ADD("option.some", TOL_E, "%x: Tensor[(2, 3), float32]", "option.get(option.some(%%x))");
  ADD("option.none", TOL_E, "", "option.is_some(option.none(rank=1))");
  ADD("option.is_some", TOL_E, "%x: Tensor[(2, 3), float32]", "option.is_some(option.some(%%x))");
  ADD("option.get", TOL_E, "%x: Tensor[(2, 3), float32]",
      "list.at(option.get(option.some(list.construct((%%x,)))), 0)");
  g_runs = CAT_ALL;
}

static void dyn_cases(void) {
  ADD("dyn.strided_slice", TOL_E, "%x: Tensor[(4, 6), float32]",
      "dyn.strided_slice(%%x, " V("1, 1") ", " V("3, 5") ", " V("1, 2") ", " V("0, 1") ")");
  ADD("dyn.nn.pad", TOL_E, "%x: Tensor[(2, 3), float32]", "dyn.nn.pad(%%x, " V("1, 0, 2, 1") ", 0.5f)");
  ADD("dyn.tile", TOL_E, "%x: Tensor[(2, 3), int32]", "dyn.tile(%%x, " V("2, 1, 2") ")");
  /* (1, 3) to (2, 4, 3): no 1 in the shape, so with x's dims `?` the
   * target is still known */
  ADD("dyn.broadcast_to", TOL_E, "%x: Tensor[(1, 3), float32]", "dyn.broadcast_to(%%x, " V("2, 4, 3") ")");
  ADD("dyn.full", TOL_E, "%x: Tensor[(), float32]", "dyn.full(%%x, " V("2, 3") ", dtype=\"float64\")");
  ADD("dyn.topk", TOL_E, "%x: Tensor[(3, 7), float32]", "dyn.topk(%%x, " V("2") ", axis=1, ret_type=\"values\")");
  ADD("dyn.one_hot", TOL_E, "%i5_a: Tensor[(2, 3), int32]",
      "dyn.one_hot(%%i5_a, 1f, 0f, " V("5") ", axis=-1, dtype=\"float32\")");
  ADD("dyn.image.resize2d", TOL_E, "%x: Tensor[(1, 2, 3, 4), float32]",
      "dyn.image.resize2d(%%x, " V("6, 8") ", method=\"nearest_neighbor\")");
  ADD("dyn.expand_dims", TOL_E, "%x: Tensor[(2, 3), float32]", "dyn.expand_dims(%%x, " V("3, 1") ", rank=4)");
  ADD("dyn.squeeze", TOL_E, "%x: Tensor[(2, 1, 3, 1), float32]", "dyn.squeeze(%%x, " V("3") ", rank=3)");
  static const char *const kReduce[] = {"dyn.sum", "dyn.max", "dyn.min", "dyn.mean", "dyn.prod"};
  for (size_t i = 0; i < RT_COUNTOF(kReduce); ++i) {
    add_full(kReduce[i], 1, TOL_A, NOPASS_NONE, "%x: Tensor[(3, 4, 5), float32]", "%s(%%x, " V("2") ", rank=2)",
             kReduce[i]);
    add_full(kReduce[i], 1, TOL_A, NOPASS_NONE, "%x: Tensor[(3, 4, 5), float32]", "%s(%%x, " V("0, 2") ", keepdims=True)",
             kReduce[i]);
  }
  add_full("dyn.split", 2, TOL_E, NOPASS_NONE, "%x: Tensor[(5, 3), float32]",
           "%%0 = dyn.split(%%x, " V("2, 3") "); (%%0.0, %%0.1)");
  ADD("dyn.cumsum", TOL_A, "%x: Tensor[(3, 4), float32]", "dyn.cumsum(%%x, " V("1") ", reverse=True)");
  /* h1: not training, ratio 0.25: the identity */
  ADD("dyn.nn.dropout", TOL_E, "%x: Tensor[(3, 4), float32]", "dyn.nn.dropout(%%x, 0.25f, less(1, 0))");
}
#undef V

/* ---- data-dependent output shapes (ir/ops.def; h5) -------------------------- */

/* argwhere's output dims come from its input's values: the graph executor
 * refuses it on a run-time input and the JIT does not lower it, so its
 * case reads a constant (shape_of of a static zeros: [2, 0, 3]), which
 * FoldConstant computes with the reference kernel on every executor. On
 * run-time values it is tested by the ONNX cases (NonZero, Compress) on
 * debug and the vm (a host op there: backend/vm_host.c). */
static void datadep_cases(void) {
  ADD("argwhere", TOL_E, "%x: Tensor[(2, 1), int32]",
      "add(%%x, argwhere(shape_of(zeros(shape=[2, 0, 3]), dtype=\"int64\")))");
  /* h1, detection: unique and vision.onnx_nms the same way, on constants
   * (their values are checked by hand in test/interp/test_detect.c). */
  add_full("unique", 4, TOL_E, NOPASS_NONE, "%x: Tensor[(2), int64]",
           "%%0 = unique(shape_of(zeros(shape=[2, 2, 3]), dtype=\"int64\"), sorted=False); "
           "(add(%%x, %%0.0), %%0.1, %%0.2, %%0.3)");
  ADD("vision.onnx_nms", TOL_E, "%x: Tensor[(2, 3), int64]",
      "%%0 = reshape(cast(shape_of(zeros(shape=[0, 0, 1, 1, 2, 2, 3, 3]), dtype=\"int64\"), "
      "dtype=\"float32\"), newshape=[1, 2, 4]); "
      "%%1 = reshape(cast(shape_of(zeros(shape=[2, 1]), dtype=\"int64\"), dtype=\"float32\"), "
      "newshape=[1, 1, 2]); "
      "add(%%x, vision.onnx_nms(%%0, %%1, 5i64, 0.5f, 0f))");
  /* vision.roi_align does not lower yet: on constants (rois (0, 1, 1, 3, 3)). */
  ADD("vision.roi_align", TOL_A, "%x: Tensor[(1, 2, 2, 2), float32]",
      "%%0 = reshape(arange(0f, 32f, 1f), newshape=[1, 2, 4, 4]); "
      "%%1 = reshape(cast(shape_of(zeros(shape=[0, 1, 1, 3, 3]), dtype=\"int64\"), dtype=\"float32\"), "
      "newshape=[1, 5]); "
      "add(%%x, vision.roi_align(%%0, %%1, pooled_size=[2, 2], spatial_scale=1f, aligned=True))");
}

/* ---- the cases test/jit/test_jit_ops.c kept as its own lists ------------------ */

/* For the JIT harness (where they ran before the catalogue): raw inputs
 * throughout (negative and out-of-range indices, zero divisors: the kernel
 * must fail where the reference does), float16 math, rank-0 and size-1
 * broadcasts, short fused chains. Those identical to a case above merge
 * with it and run in both harnesses (cat_build). */
static void jit_cases(void) {
  /* Integer division, divisors of both signs and no zero. */
  static const char *const kDivI[] = {"divide", "mod", "floor_divide", "floor_mod", "trunc_divide", "trunc_mod"};
  for (size_t i = 0; i < RT_COUNTOF(kDivI); ++i) {
    ADD(kDivI[i], TOL_E, "%x: Tensor[(5, 7), int32], %y: Tensor[(5, 7), int32]",
        "%s(%%x, where(less(%%y, 0), subtract(%%y, 1), add(%%y, 1)))", kDivI[i]);
  }
  ADD("tanh", TOL_E, "%x: Tensor[(3, 5), float64]", "tanh(%%x)");
  ADD("power", TOL_E, "%x: Tensor[(3, 5), float64], %y: Tensor[(5), float64]", "power(%%x, %%y)");
  ADD("exp", TOL_E, "%x: Tensor[(4, 3), float16]", "exp(%%x)");
  ADD("add", TOL_E, "%x: Tensor[(4, 3), float16], %y: Tensor[(4, 3), float16]", "add(%%x, %%y)");
  ADD("negative", TOL_E, "%x: Tensor[(2, 9), uint8]", "negative(%%x)");
  ADD("subtract", TOL_E, "%x: Tensor[(2, 9), uint8], %y: Tensor[(9), uint8]", "subtract(%%x, %%y)");
  ADD("right_shift", TOL_E, "%x: Tensor[(2, 9), uint8], %y: Tensor[(9), uint8]", "right_shift(%%x, %%y)");
  ADD("less", TOL_E, "%x: Tensor[(2, 9), uint8], %y: Tensor[(9), uint8]", "less(%%x, %%y)");
  ADD("left_shift", TOL_E, "%x: Tensor[(2, 9), int8], %y: Tensor[(2, 9), int8]", "left_shift(%%x, %%y)");
  ADD("multiply", TOL_E, "%x: Tensor[(2, 9), int8], %y: Tensor[(2, 9), int8]", "multiply(%%x, %%y)");
  ADD("power", TOL_E, "%x: Tensor[(2, 9), int64], %y: Tensor[(2, 9), int64]", "power(%%x, %%y)");
  ADD("logical_xor", TOL_E, "%x: Tensor[(7), bool], %y: Tensor[(7), bool]", "logical_xor(%%x, %%y)");
  ADD("add", TOL_E, "%x: Tensor[(7), bool], %y: Tensor[(7), bool]", "add(%%x, %%y)");
  ADD("bitwise_not", TOL_E, "%x: Tensor[(7), bool]", "bitwise_not(%%x)");
  ADD("logical_not", TOL_E, "%x: Tensor[(7), bool]", "logical_not(%%x)");
  ADD("nn.leaky_relu", TOL_E, "%x: Tensor[(3, 6), float32]", "nn.leaky_relu(%%x, alpha=0.1f)");
  ADD("nn.leaky_relu", TOL_E, "%x: Tensor[(3, 6), int32]", "nn.leaky_relu(%%x, alpha=0.5f)");
  ADD("clip", TOL_E, "%x: Tensor[(3, 6), float32]", "clip(%%x, a_min=-0.5f, a_max=0.25f)");
  ADD("clip", TOL_E, "%x: Tensor[(3, 6), int32]", "clip(%%x, a_min=-2.5f, a_max=3f)");
  ADD("cast", TOL_E, "%x: Tensor[(3, 6), float32]", "cast(%%x, dtype=\"int8\")");
  ADD("cast", TOL_E, "%x: Tensor[(3, 6), float32]", "cast(multiply(%%x, 300f), dtype=\"uint8\")");
  ADD("cast", TOL_E, "%x: Tensor[(3, 6), float32]", "cast(%%x, dtype=\"bool\")");
  ADD("cast", TOL_E, "%x: Tensor[(3, 6), float32]", "cast(%%x, dtype=\"float16\")");
  ADD("cast", TOL_E, "%x: Tensor[(3, 6), int32]", "cast(%%x, dtype=\"float32\")");
  ADD("cast", TOL_E, "%x: Tensor[(3, 6), int32]", "cast(multiply(%%x, 40), dtype=\"int8\")");
  ADD("cast_like", TOL_E, "%x: Tensor[(3, 6), float32], %y: Tensor[(2), int32]", "cast_like(%%x, %%y)");
  ADD("full_like", TOL_E, "%x: Tensor[(3, 6), float32]", "full_like(%%x, 3.5f)");
  ADD("nn.prelu", TOL_E, "%x: Tensor[(2, 3, 4), float32], %y: Tensor[(3), float32]", "nn.prelu(%%x, %%y)");
  ADD("nn.bias_add", TOL_E, "%x: Tensor[(2, 3, 4), float32], %y: Tensor[(4), float32]", "nn.bias_add(%%x, %%y, axis=-1)");
  ADD("nn.bias_add", TOL_E, "%x: Tensor[(2, 3, 4), int32], %y: Tensor[(3), int32]", "nn.bias_add(%%x, %%y)");
  ADD("where", TOL_E, "%c: Tensor[(3, 1), bool], %x: Tensor[(3, 4), float32], %y: Tensor[(4), float32]", "where(%%c, %%x, %%y)");
  ADD("where", TOL_E, "%x: Tensor[(3, 4), float32], %y: Tensor[(3, 4), float32]", "where(greater(%%x, 0f), %%x, %%y)");
  ADD("where", TOL_E, "%x: Tensor[(3, 4), int32], %y: Tensor[(4), int32]", "where(%%x, %%x, %%y)");
  ADD("add", TOL_E, "%x: Tensor[(3, 1, 5), float32], %y: Tensor[(4, 5), float32]", "add(%%x, %%y)");
  ADD("multiply", TOL_E, "%x: Tensor[(1), float32], %y: Tensor[(2, 3), float32]", "multiply(%%x, %%y)");
  ADD("subtract", TOL_E, "%x: Tensor[(1, 1), float32], %y: Tensor[(1, 1), float32]", "subtract(%%x, %%y)");
  ADD("maximum", TOL_E, "%x: Tensor[(), float32], %y: Tensor[(2, 3), float32]", "maximum(%%x, %%y)");
  ADD("exp", TOL_E, "%x: Tensor[(), float32]", "exp(%%x)");
  ADD("sum", TOL_A, "%x: Tensor[(4, 5, 6), float32]", "sum(%%x, axis=[1])");
  ADD("sum", TOL_A, "%x: Tensor[(4, 5, 6), float32]", "sum(%%x)");
  ADD("sum", TOL_A, "%x: Tensor[(4, 5, 6), float32]", "sum(%%x, axis=[0, 2], keepdims=True)");
  ADD("sum", TOL_A, "%x: Tensor[(4, 5, 6), float32]", "sum(%%x, axis=[1], exclude=True)");
  ADD("mean", TOL_A, "%x: Tensor[(4, 5, 6), float32]", "mean(%%x, axis=[-1])");
  ADD("max", TOL_E, "%x: Tensor[(4, 5, 6), float32]", "max(%%x, axis=[1, 2])");
  ADD("min", TOL_E, "%x: Tensor[(4, 5, 6), float32]", "min(%%x, axis=[0])");
  ADD("prod", TOL_A, "%x: Tensor[(4, 3), float32]", "prod(%%x, axis=[1])");
  ADD("sum", TOL_E, "%x: Tensor[(4, 5), int32]", "sum(%%x, axis=[1])");
  ADD("mean", TOL_E, "%x: Tensor[(4, 5), int32]", "mean(%%x, axis=[1])");
  ADD("max", TOL_E, "%x: Tensor[(4, 5), uint8]", "max(%%x, axis=[0])");
  ADD("prod", TOL_E, "%x: Tensor[(4, 5), int8]", "prod(%%x)");
  ADD("all", TOL_E, "%x: Tensor[(4, 5), bool]", "all(%%x, axis=[1])");
  ADD("any", TOL_E, "%x: Tensor[(4, 5), bool]", "any(%%x, axis=[0], keepdims=True)");
  ADD("all", TOL_E, "%x: Tensor[(4, 5), float32]", "all(%%x)");
  ADD("argmax", TOL_E, "%x: Tensor[(4, 7), float32]", "argmax(%%x, axis=[1])");
  ADD("argmin", TOL_E, "%x: Tensor[(4, 7), float32]", "argmin(%%x, axis=[0], keepdims=True)");
  ADD("argmax", TOL_E, "%x: Tensor[(4, 7), int32]", "argmax(%%x, axis=[1], select_last_index=True)");
  ADD("argmin", TOL_E, "%x: Tensor[(4, 7), int32]", "argmin(%%x)");
  ADD("variance", TOL_A, "%x: Tensor[(4, 7), float32]", "variance(%%x, mean(%%x, axis=[1], keepdims=True), axis=[1])");
  ADD("variance", TOL_A, "%x: Tensor[(4, 7), float32]", "variance(%%x, mean(%%x, axis=[1], keepdims=True), axis=[1], unbiased=True, keepdims=True)");
  ADD("reshape", TOL_E, "%x: Tensor[(3, 4, 5), float32]", "reshape(%%x, newshape=[12, 5])");
  ADD("reshape", TOL_E, "%x: Tensor[(3, 4, 5), float32]", "reshape(%%x, newshape=[-1])");
  ADD("reshape", TOL_E, "%x: Tensor[(3, 4, 5), int8]", "reshape(%%x, newshape=[5, 0, 3])");
  ADD("reshape_like", TOL_E, "%x: Tensor[(3, 4, 5), float32], %y: Tensor[(2, 30), float32]", "reshape_like(%%x, %%y)");
  ADD("squeeze", TOL_E, "%x: Tensor[(3, 1, 5, 1), float32]", "squeeze(%%x)");
  ADD("squeeze", TOL_E, "%x: Tensor[(3, 1, 5, 1), float32]", "squeeze(%%x, axis=[1])");
  ADD("expand_dims", TOL_E, "%x: Tensor[(3, 5), float32]", "expand_dims(%%x, axis=1, num_newaxis=2)");
  ADD("transpose", TOL_E, "%x: Tensor[(3, 4, 5), float32]", "transpose(%%x)");
  ADD("transpose", TOL_E, "%x: Tensor[(3, 4, 5), uint8]", "transpose(%%x, axes=[1, 2, 0])");
  ADD("nn.batch_flatten", TOL_E, "%x: Tensor[(2, 3, 4), float32]", "nn.batch_flatten(%%x)");
  ADD("concatenate", TOL_E, "%x: Tensor[(2, 3), float32], %y: Tensor[(2, 4), float32]", "concatenate((%%x, %%y), axis=1)");
  ADD("concatenate", TOL_E, "%x: Tensor[(2, 3), float32], %y: Tensor[(1, 3), float32], %c: Tensor[(3, 3), float32]", "concatenate((%%x, %%y, %%c))");
  ADD("stack", TOL_E, "%x: Tensor[(2, 3), int32], %y: Tensor[(2, 3), int32]", "stack((%%x, %%y), axis=1)");
  ADD("split", TOL_E, "%x: Tensor[(2, 6), float32]", "%%0 = split(%%x, indices_or_sections=3, axis=1); %%0.1");
  add_full("split", 2, TOL_E, NOPASS_NONE, "%x: Tensor[(2, 6), float32]", "%%0 = split(%%x, indices_or_sections=[1, 4], axis=1); (%%0.0, %%0.2)");
  ADD("strided_slice", TOL_E, "%x: Tensor[(5, 6), float32]", "strided_slice(%%x, begin=[1, 0], end=[4, 6], strides=[1, 2])");
  ADD("strided_slice", TOL_E, "%x: Tensor[(5, 6), float32]", "strided_slice(%%x, begin=[-1, 5], end=[0, -7], strides=[-2, -1])");
  ADD("strided_slice", TOL_E, "%x: Tensor[(5, 6), float32]", "strided_slice(%%x, begin=[1], end=[2], slice_mode=\"size\", axes=[1])");
  /* strides past begin's count apply (the reference and the JIT ignored them). */
  ADD("strided_slice", TOL_E, "%x: Tensor[(5, 6), float32]", "strided_slice(%%x, begin=[1], end=[4], strides=[1, 2])");
  ADD("take", TOL_E, "%x: Tensor[(5, 6), float32], %i: Tensor[(2, 3), int32]", "take(%%x, %%i, axis=1)");
  ADD("take", TOL_E, "%x: Tensor[(5, 6), float32], %i: Tensor[(4), int32]", "take(%%x, %%i, axis=0, mode=\"wrap\")");
  ADD("take", TOL_E, "%x: Tensor[(5, 6), float32], %i: Tensor[(4), int32]", "take(%%x, %%i)");
  ADD("take", TOL_E, "%x: Tensor[(5, 16), float32], %i: Tensor[(4), uint8]", "take(%%x, %%i, axis=1, mode=\"fast\")");
  ADD("take", TOL_E, "%x: Tensor[(5, 9), float32], %i: Tensor[(4), int32]", "take(%%x, %%i, axis=1, mode=\"fast\")");
  ADD("gather", TOL_E, "%x: Tensor[(3, 16), float32], %i: Tensor[(3, 5), uint8]", "gather(%%x, %%i, axis=1)");
  ADD("broadcast_to", TOL_E, "%x: Tensor[(3, 1), float32]", "broadcast_to(%%x, shape=[2, 3, 4])");
  ADD("tile", TOL_E, "%x: Tensor[(2, 3), float32]", "tile(%%x, reps=[2, 1, 2])");
  ADD("repeat", TOL_E, "%x: Tensor[(2, 3), float32]", "repeat(%%x, repeats=2, axis=1)");
  ADD("reverse", TOL_E, "%x: Tensor[(2, 3), float32]", "reverse(%%x, axis=0)");
  ADD("nn.pad", TOL_E, "%x: Tensor[(2, 3), float32]", "nn.pad(%%x, 0.5f, pad_width=[[1, 0], [2, 1]])");
  ADD("nn.pad", TOL_E, "%x: Tensor[(2, 4), float32]", "nn.pad(%%x, 0f, pad_width=[[1, 1], [2, 2]], pad_mode=\"edge\")");
  ADD("nn.pad", TOL_E, "%x: Tensor[(3, 4), float32]", "nn.pad(%%x, 0f, pad_width=[[1, 2], [3, 1]], pad_mode=\"reflect\")");
  ADD("one_hot", TOL_E, "%i: Tensor[(2, 3), int32]", "one_hot(%%i, 1f, 0f, depth=5, axis=-1, dtype=\"float32\")");
  ADD("one_hot", TOL_E, "%i: Tensor[(4), int32]", "one_hot(%%i, 3, -1, depth=6, axis=0, dtype=\"int32\")");
  ADD("zeros", TOL_E, "%x: Tensor[(2), float32]", "add(%%x, zeros(shape=[3, 2], dtype=\"float32\"))");
  ADD("ones", TOL_E, "%x: Tensor[(2), float32]", "add(%%x, ones(shape=[3, 2], dtype=\"float32\"))");
  ADD("full", TOL_E, "%x: Tensor[(2), float32]", "add(%%x, full(2.5f, shape=[3, 2], dtype=\"float32\"))");
  ADD("nn.dense", TOL_A, "%x: Tensor[(4, 8), float32], %w: Tensor[(5, 8), float32]", "nn.dense(%%x, %%w)");
  ADD("nn.dense", TOL_A, "%x: Tensor[(1, 3, 7), float32], %w: Tensor[(2, 7), float32]", "nn.dense(%%x, %%w)");
  ADD("nn.dense", TOL_E, "%x: Tensor[(4, 8), int8], %w: Tensor[(5, 8), int8]", "nn.dense(%%x, %%w, out_dtype=\"int32\")");
  ADD("nn.matmul", TOL_A, "%x: Tensor[(3, 4), float32], %y: Tensor[(4, 5), float32]", "nn.matmul(%%x, %%y)");
  ADD("nn.matmul", TOL_A, "%x: Tensor[(4, 3), float32], %y: Tensor[(5, 4), float32]", "nn.matmul(%%x, %%y, transpose_a=True, transpose_b=True)");
  ADD("nn.matmul", TOL_A, "%x: Tensor[(2, 3, 4), float32], %y: Tensor[(4, 5), float32]", "nn.matmul(%%x, %%y)");
  ADD("nn.batch_matmul", TOL_A, "%x: Tensor[(2, 3, 4), float32], %y: Tensor[(2, 4, 5), float32]", "nn.batch_matmul(%%x, %%y)");
  ADD("nn.batch_matmul", TOL_A, "%x: Tensor[(2, 3, 4), float32], %y: Tensor[(1, 5, 4), float32]", "nn.batch_matmul(%%x, %%y, transpose_b=True)");
  ADD("nn.batch_matmul", TOL_A, "%x: Tensor[(1, 4, 3), float32], %y: Tensor[(3, 4, 5), float32]", "nn.batch_matmul(%%x, %%y, transpose_a=True)");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(1, 3, 7, 7), float32], %w: Tensor[(4, 3, 3, 3), float32]", "nn.conv2d(%%x, %%w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3])");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(2, 3, 9, 8), float32], %w: Tensor[(4, 3, 3, 2), float32]", "nn.conv2d(%%x, %%w, strides=[2, 3], padding=[1, 0, 2, 1], dilation=[2, 1], channels=4, kernel_size=[3, 2])");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 1, 3, 3), float32]", "nn.conv2d(%%x, %%w, padding=[1, 1], groups=4, channels=4, kernel_size=[3, 3])");
  ADD("nn.conv2d", TOL_A, "%x: Tensor[(1, 4, 5, 5), float32], %w: Tensor[(6, 2, 1, 1), float32]", "nn.conv2d(%%x, %%w, groups=2, channels=6, kernel_size=[1, 1])");
  ADD("nn.conv2d", TOL_E, "%x: Tensor[(1, 2, 5, 5), int8], %w: Tensor[(3, 2, 3, 3), int8]", "nn.conv2d(%%x, %%w, padding=[1, 1], channels=3, kernel_size=[3, 3], out_dtype=\"int32\")");
  ADD("nn.conv1d", TOL_A, "%x: Tensor[(2, 3, 11), float32], %w: Tensor[(4, 3, 3), float32]", "nn.conv1d(%%x, %%w, strides=[2], padding=[1, 2], channels=4, kernel_size=[3])");
  /* The blocked convolutions (AlterOpLayout's form): block 8 and 16, a
   * different output block, strides, batch 2, groups, depthwise. */
  ADD("nn.contrib_conv2d_NCHWc", TOL_A, "%x: Tensor[(1, 2, 7, 7, 8), float32], %w: Tensor[(2, 2, 3, 3, 8, 8), float32]",
      "nn.contrib_conv2d_NCHWc(%%x, %%w, padding=[1, 1], channels=16, kernel_size=[3, 3], data_layout=\"NCHW8c\", kernel_layout=\"OIHW8i8o\", out_layout=\"NCHW8c\")");
  ADD("nn.contrib_conv2d_NCHWc", TOL_A, "%x: Tensor[(1, 1, 9, 8, 16), float32], %w: Tensor[(2, 2, 3, 3, 8, 16), float32]",
      "nn.contrib_conv2d_NCHWc(%%x, %%w, strides=[2, 2], padding=[1, 1], channels=32, kernel_size=[3, 3], data_layout=\"NCHW16c\", kernel_layout=\"OIHW8i16o\", out_layout=\"NCHW16c\")");
  ADD("nn.contrib_conv2d_NCHWc", TOL_A, "%x: Tensor[(2, 1, 6, 6, 4), float32], %w: Tensor[(3, 1, 1, 1, 4, 4), float32]",
      "nn.contrib_conv2d_NCHWc(%%x, %%w, dilation=[2, 2], channels=12, kernel_size=[1, 1], data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i4o\", out_layout=\"NCHW4c\")");
  ADD("nn.contrib_conv2d_NCHWc", TOL_A, "%x: Tensor[(1, 2, 5, 5, 8), float32], %w: Tensor[(2, 1, 3, 3, 8, 8), float32]",
      "nn.contrib_conv2d_NCHWc(%%x, %%w, padding=[1, 1], groups=2, channels=16, kernel_size=[3, 3], data_layout=\"NCHW8c\", kernel_layout=\"OIHW8i8o\", out_layout=\"NCHW8c\")");
  ADD("nn.contrib_conv2d_NCHWc", TOL_A, "%x: Tensor[(1, 2, 6, 6, 8), float32], %w: Tensor[(4, 2, 3, 3, 8, 4), float32]",
      "nn.contrib_conv2d_NCHWc(%%x, %%w, padding=[1, 1], channels=16, kernel_size=[3, 3], data_layout=\"NCHW8c\", kernel_layout=\"OIHW8i4o\", out_layout=\"NCHW8c\")");
  ADD("nn.contrib_depthwise_conv2d_NCHWc", TOL_A, "%x: Tensor[(1, 2, 9, 9, 8), float32], %w: Tensor[(2, 1, 3, 3, 1, 8), float32]",
      "nn.contrib_depthwise_conv2d_NCHWc(%%x, %%w, strides=[2, 2], padding=[1, 1], groups=16, channels=16, kernel_size=[3, 3], data_layout=\"NCHW8c\", kernel_layout=\"OIHW1i8o\", out_layout=\"NCHW8c\")");
  ADD("nn.contrib_depthwise_conv2d_NCHWc", TOL_A, "%x: Tensor[(1, 1, 8, 7, 16), float32], %w: Tensor[(1, 1, 3, 3, 1, 16), float32], %b: Tensor[(1, 1, 1, 1, 16), float32]",
      "%%0 = nn.contrib_depthwise_conv2d_NCHWc(%%x, %%w, padding=[1, 1], groups=16, channels=16, kernel_size=[3, 3], data_layout=\"NCHW16c\", kernel_layout=\"OIHW1i16o\", out_layout=\"NCHW16c\"); %%1 = add(%%0, %%b); clip(%%1, a_min=0f, a_max=6f)");
  /* Pools on NCHW{x}c. */
  ADD("nn.max_pool2d", TOL_E, "%x: Tensor[(1, 2, 7, 7, 8), float32]", "nn.max_pool2d(%%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout=\"NCHW8c\")");
  ADD("nn.avg_pool2d", TOL_A, "%x: Tensor[(2, 1, 7, 6, 16), float32]", "nn.avg_pool2d(%%x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1], ceil_mode=True, count_include_pad=True, layout=\"NCHW16c\")");
  ADD("nn.global_max_pool2d", TOL_E, "%x: Tensor[(1, 3, 5, 4, 8), float32]", "nn.global_max_pool2d(%%x, layout=\"NCHW8c\")");
  ADD("nn.global_avg_pool2d", TOL_A, "%x: Tensor[(1, 2, 7, 7, 8), float32]", "nn.global_avg_pool2d(%%x, layout=\"NCHW8c\")");
  ADD("nn.adaptive_avg_pool2d", TOL_A, "%x: Tensor[(1, 1, 7, 5, 8), float32]", "nn.adaptive_avg_pool2d(%%x, output_size=[3, 2], layout=\"NCHW8c\")");
  ADD("nn.max_pool2d", TOL_E, "%x: Tensor[(1, 2, 7, 7), float32]", "nn.max_pool2d(%%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])");
  ADD("nn.max_pool2d", TOL_E, "%x: Tensor[(1, 2, 7, 6), float32]", "nn.max_pool2d(%%x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)");
  ADD("nn.avg_pool2d", TOL_E, "%x: Tensor[(1, 2, 7, 7), float32]", "nn.avg_pool2d(%%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])");
  ADD("nn.avg_pool2d", TOL_E, "%x: Tensor[(1, 2, 7, 7), float32]", "nn.avg_pool2d(%%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], count_include_pad=True)");
  ADD("nn.avg_pool2d", TOL_E, "%x: Tensor[(1, 2, 7, 7), int32]", "nn.avg_pool2d(%%x, pool_size=[2, 2])");
  ADD("nn.max_pool1d", TOL_E, "%x: Tensor[(2, 3, 9), float32]", "nn.max_pool1d(%%x, pool_size=[3], strides=[2], padding=[1])");
  ADD("nn.avg_pool1d", TOL_E, "%x: Tensor[(2, 3, 9), float32]", "nn.avg_pool1d(%%x, pool_size=[2], dilation=[2])");
  ADD("nn.global_avg_pool2d", TOL_A, "%x: Tensor[(2, 3, 5, 4), float32]", "nn.global_avg_pool2d(%%x)");
  ADD("nn.global_max_pool2d", TOL_E, "%x: Tensor[(2, 3, 5, 4), float32]", "nn.global_max_pool2d(%%x)");
  ADD("nn.adaptive_avg_pool2d", TOL_A, "%x: Tensor[(1, 2, 5, 7), float32]", "nn.adaptive_avg_pool2d(%%x, output_size=[2, 3])");
  ADD("nn.adaptive_max_pool2d", TOL_E, "%x: Tensor[(1, 2, 5, 7), float32]", "nn.adaptive_max_pool2d(%%x, output_size=[3, 3])");
  ADD("nn.adaptive_avg_pool1d", TOL_A, "%x: Tensor[(1, 2, 7), float32]", "nn.adaptive_avg_pool1d(%%x, output_size=[3])");
  ADD("nn.softmax", TOL_A, "%x: Tensor[(3, 10), float32]", "nn.softmax(%%x)");
  ADD("nn.softmax", TOL_A, "%x: Tensor[(2, 5, 3), float32]", "nn.softmax(%%x, axis=1)");
  ADD("nn.log_softmax", TOL_A, "%x: Tensor[(3, 10), float32]", "nn.log_softmax(%%x)");
  ADD("fused", TOL_A, "%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %y: Tensor[(4, 1, 1), float32]", "%%0 = nn.conv2d(%%x, %%w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]); %%1 = add(%%0, %%y); nn.relu(%%1)");
  ADD("fused", TOL_A, "%x: Tensor[(3, 16), float32], %w: Tensor[(8, 16), float32], %y: Tensor[(8), float32]", "add(nn.dense(%%x, %%w), %%y)");
  ADD("fused", TOL_A, "%x: Tensor[(4, 9), float32]", "sum(exp(%%x), axis=[1])");
  ADD("fused", TOL_E, "%x: Tensor[(2, 12), float32], %y: Tensor[(4, 2, 3), float32]", "%%0 = reshape(%%x, newshape=[2, 3, 4]); %%1 = transpose(%%0, axes=[2, 0, 1]); add(%%1, %%y)");
  ADD("fused", TOL_A, "%x: Tensor[(2, 8), float32], %w: Tensor[(10, 8), float32]", "nn.softmax(nn.dense(%%x, %%w))");
  ADD("fused", TOL_E, "%x: Tensor[(3, 4), float32]", "%%0 = exp(%%x); %%1 = add(%%0, %%0); multiply(%%1, %%0)");
  ADD("fused", TOL_E, "%x: Tensor[(1, 2, 6, 6), float32]", "nn.max_pool2d(nn.relu(%%x), pool_size=[2, 2], strides=[2, 2])");
  ADD("fused", TOL_E, "%x: Tensor[(3, 4), int32], %y: Tensor[(3, 4), int32]", "divide(%%x, add(abs(%%y), 1))");
}

/* ---- `?` dims, at the JIT level ---------------------------------------------- */

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

/* ---- scatter and grid_sample (ir/op/scatter.c, grid_sample.c; h3, issue 19) - */

/* Through both harnesses. Random indices repeat, so the cases also check
 * that updates meeting one element apply in updates' order on every
 * executor (the last wins for update); subtract(%i.., n) makes indices in
 * [-n, 0), counted from the end. */
static void scatter_cases(void) {
  const int32_t runs = g_runs;
  g_runs = CAT_ALL;
  ADD("scatter_elements", TOL_E, "%x: Tensor[(4, 5), float32], %i4_a: Tensor[(3, 5), int32], %u: Tensor[(3, 5), float32]",
      "scatter_elements(%%x, %%i4_a, %%u)");
  ADD("scatter_elements", TOL_E, "%x: Tensor[(3, 6), float32], %i6_a: Tensor[(2, 4), int64], %u: Tensor[(2, 4), float32]",
      "scatter_elements(%%x, %%i6_a, %%u, axis=1, reduction=\"add\")");
  ADD("scatter_elements", TOL_E, "%x: Tensor[(2, 3, 4), int32], %i4_a: Tensor[(2, 2, 3), int32], %u: Tensor[(2, 2, 3), int32]",
      "scatter_elements(%%x, %%i4_a, %%u, axis=-1, reduction=\"mul\")");
  ADD("scatter_elements", TOL_E, "%x: Tensor[(2, 5), float64], %i5_a: Tensor[(2, 3), int32], %u: Tensor[(2, 3), float64]",
      "scatter_elements(%%x, subtract(%%i5_a, 5), %%u, axis=1, reduction=\"max\")");
  ADD("scatter_elements", TOL_E, "%x: Tensor[(3, 4), uint8], %i3_a: Tensor[(3, 4), uint8], %u: Tensor[(3, 4), uint8]",
      "scatter_elements(%%x, %%i3_a, %%u, axis=0, reduction=\"min\")");
  ADD("scatter_nd", TOL_E, "%x: Tensor[(4, 5), float32], %i4_a: Tensor[(1, 3), int32], %u: Tensor[(3, 5), float32]",
      "scatter_nd(%%x, %%i4_a, %%u)");
  ADD("scatter_nd", TOL_E, "%x: Tensor[(3, 3, 2), int32], %i3_a: Tensor[(2, 2, 2), int64], %u: Tensor[(2, 2, 2), int32]",
      "scatter_nd(%%x, %%i3_a, %%u, mode=\"add\")");
  ADD("scatter_nd", TOL_E, "%x: Tensor[(3, 4), float64], %i3_a: Tensor[(2, 4), int32], %u: Tensor[(4), float64]",
      "scatter_nd(%%x, subtract(%%i3_a, 3), %%u, mode=\"mul\")");
  ADD("scatter_nd", TOL_E, "%x: Tensor[(3, 4), float32], %i3_a: Tensor[(2), int32], %u: Tensor[(), float32]",
      "scatter_nd(%%x, %%i3_a, %%u, mode=\"max\")");
  /* image.grid_sample: grid values scaled past [-1, 1] so that padding
   * modes matter. */
  ADD("image.grid_sample", TOL_E, "%x: Tensor[(1, 2, 4, 5), float32], %g: Tensor[(1, 2, 3, 3), float32]",
      "image.grid_sample(%%x, multiply(%%g, 1.3f), align_corners=False)");
  ADD("image.grid_sample", TOL_E, "%x: Tensor[(2, 1, 3, 4), float64], %g: Tensor[(2, 2, 2, 5), float64]",
      "image.grid_sample(%%x, multiply(%%g, 1.3f64), method=\"nearest\", padding_mode=\"border\")");
  ADD("image.grid_sample", TOL_E, "%x: Tensor[(1, 3, 4, 4), float32], %g: Tensor[(1, 2, 4, 2), float32]",
      "image.grid_sample(%%x, multiply(%%g, 1.6f), method=\"bicubic\", padding_mode=\"reflection\", align_corners=False)");
  ADD("image.grid_sample", TOL_E, "%x: Tensor[(2, 2, 3, 3), float32], %g: Tensor[(2, 2, 3, 2), float32]",
      "image.grid_sample(%%x, multiply(%%g, 1.6f), padding_mode=\"reflection\")");
  ADD("image.grid_sample", TOL_E, "%x: Tensor[(1, 1, 5, 3), float32], %g: Tensor[(1, 2, 2, 2), float32]",
      "image.grid_sample(%%x, multiply(%%g, 1.2f), method=\"bicubic\")");
  g_runs = runs;
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

/* The domain of a param by its name (catalogue.h). */
void cat_input_domain(rt_tensor_t *t, const char *name) {
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

/* ---- the catalogue ------------------------------------------------------------- */

static bool same_case(const dcase_t *a, const dcase_t *b) {
  return strcmp(a->op, b->op) == 0 && a->nopass == b->nopass && a->nout == b->nout && a->tol == b->tol &&
         strcmp(a->sig, b->sig) == 0 && strcmp(a->body, b->body) == 0;
}

dcase_t *cat_build(int32_t *out_n) {
  g_cases = rt_mem_calloc(MAX_CASES, sizeof *g_cases);
  assert_non_null(g_cases);
  g_runs = CAT_ALL;
  build_cases();
  /* A case written twice (a test_jit_ops case the lists above generate
   * too) runs once, in the harnesses of both. */
  int32_t n = 0;
  for (int32_t k = 0; k < g_ncases; ++k) {
    int32_t j = 0;
    while (j < n && !same_case(&g_cases[j], &g_cases[k])) ++j;
    if (j < n) {
      g_cases[j].runs |= g_cases[k].runs;
    } else {
      g_cases[n++] = g_cases[k];
    }
  }
  dcase_t *cases = g_cases;
  g_cases = NULL;
  g_ncases = 0;
  *out_n = n;
  return cases;
}

static bool is_op(const char *op) {
  for (size_t i = 0; i < cat_num_ops; ++i) {
    if (strcmp(cat_ops[i], op) == 0) return true;
  }
  return false;
}

/* Whether body calls op: `op(` not preceded by a name character. */
static bool calls(const char *body, const char *op) {
  const size_t len = strlen(op);
  for (const char *p = strstr(body, op); p; p = strstr(p + 1, op)) {
    const bool start = p == body || !(p[-1] == '_' || p[-1] == '.' || (p[-1] >= 'a' && p[-1] <= 'z') ||
                                      (p[-1] >= '0' && p[-1] <= '9'));
    if (start && p[len] == '(') return true;
  }
  return false;
}

/* Ops that only the debug executor runs, so there is nothing to compare
 * it with: the string ops (string tensors are refused by graph and vm;
 * their hand-computed cases are in test/interp/test_string.c). */
static bool debug_only(const char *op) {
  return strcmp(op, "string_normalizer") == 0 || strcmp(op, "string_lookup") == 0;
}

int32_t cat_check(const dcase_t *cases, int32_t n) {
  int32_t problems = 0;
  for (size_t i = 0; i < cat_num_ops; ++i) {
    if (debug_only(cat_ops[i])) continue;
    bool found = false;
    for (int32_t k = 0; k < n && !found; ++k) found = strcmp(cases[k].op, cat_ops[i]) == 0;
    if (!found) {
      fprintf(stderr, "FAIL op %s has no differential case\n", cat_ops[i]);
      problems++;
    }
  }
  for (int32_t k = 0; k < n; ++k) {
    const dcase_t *c = &cases[k];
    if (strcmp(c->op, "fused") == 0) continue;
    if (!is_op(c->op)) {
      fprintf(stderr, "FAIL case %d names op %s, which ir/ops.def does not have: %s\n", k, c->op, c->body);
      problems++;
    } else if (!calls(c->body, c->op)) {
      fprintf(stderr, "FAIL case %d names op %s but does not call it: %s\n", k, c->op, c->body);
      problems++;
    }
    if (c->runs == 0 || (c->runs & ~(CAT_ALL | CAT_DEBUG)) ||
        ((c->runs & CAT_DEBUG) && c->runs != CAT_DEBUG)) {
      fprintf(stderr, "FAIL case %d (%s) runs in no harness\n", k, c->op);
      problems++;
    }
  }
  for (size_t i = 0; i < RT_COUNTOF(kParams); ++i) {
    bool plain = false;
    for (size_t j = 0; j < RT_COUNTOF(kPlain) && !plain; ++j) plain = strcmp(kPlain[j].op, kParams[i].op) == 0;
    if (!plain) {
      fprintf(stderr, "FAIL kParams names %s, which is not an RT_UNARY / RT_BINARY op of ir/ops.def\n", kParams[i].op);
      problems++;
    }
  }
  return problems;
}
