/* The differential catalogue: the one list of op cases that every harness
 * reads, checked against ir/ops.def.
 *
 * A case is a one-op Relay body over named params (`%x: Tensor[...]`), the
 * op of ops.def it covers ("fused" for multi-op patterns), its output
 * count, its tolerance class, the passes it needs disabled and the
 * harnesses that run it:
 *
 *   CAT_EXEC  test/differential/test_differential.c: the case through the
 *             graph and vm executors against the debug executor (cases of
 *             `?` dims, NOPASS_JIT, through rt_jit_build at two sizes);
 *   CAT_JIT   test/jit/test_jit_ops.c: the case's function compiled with
 *             the others in one JIT module (no passes) and each kernel
 *             run against the interpreter; where the interpreter fails on
 *             the values, the kernel must fail too.
 *
 * The plain elementwise ops (RT_UNARY and RT_BINARY rows) get their cases
 * from their rows: float32 on several shapes and float64 unless the row's
 * domain is `int`, every integer dtype when it has an integer form (`any`,
 * `int`), int32 when it has not (`float`: computed in double, stored
 * saturated); everything else is written out per op. Most cases run in
 * both harnesses or only through the executors; the JIT harness gets the
 * first float32 shape and int32 of each elementwise op, the cases of every
 * other op that test/jit/test_jit_ops.c listed itself, and the raw-input
 * cases whose reference may fail. cat_check fails an op of ops.def without
 * a case, and a case that names an op ops.def does not have or does not
 * call it.
 *
 * The param's name picks its input domain on top of rt_tensor_fill_random
 * (cat_input_domain): %p* positive (|v| + 0.25), %u* inside (-0.9, 0.9),
 * %g* >= 1.1, %nz* a non-zero value, %sh* a small non-negative integer
 * (shift counts, exponents), %i<N>_* an index in [0, N); anything else is
 * the raw random data (floats in [-1, 1), integers in [-8, 8)). */
#ifndef RT_TEST_DIFFERENTIAL_CATALOGUE_H_
#define RT_TEST_DIFFERENTIAL_CATALOGUE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt/rt.h"

/* Tolerance classes: elementwise (E), accumulating (A), or Winograd (W:
 * accumulating through the transforms, whose coefficients (up to 8 * 8 *
 * 5 * 5 for F(4x4, 3x3)) amplify float32 rounding, so its bound is
 * relative to the output's largest magnitude instead of each element's);
 * each harness maps them to its own bounds (see its file comment). */
typedef enum { TOL_E, TOL_A, TOL_W } tol_t;

/* Passes a case needs disabled. NOPASS_JIT: not through an executor but
 * rt_jit_build (`?` dims, which the graph executor refuses; arange, whose
 * type is always `?`). */
enum { NOPASS_NONE = 0, NOPASS_SIMPLIFY = 1, NOPASS_FOLD = 2, NOPASS_JIT = 8 };

/* The harnesses that run a case. CAT_DEBUG: the list and option ops,
 * which the debug executor and the vm (host ops) run: test_differential
 * runs the case on both, compares, and checks that the graph executor
 * refuses it naming them (their values are checked by hand in
 * test/interp/test_list.c). */
enum { CAT_EXEC = 1, CAT_JIT = 2, CAT_ALL = CAT_EXEC | CAT_JIT, CAT_DEBUG = 4 };

typedef struct dcase_t {
  const char *op; /* the op of ops.def it covers ("fused" for patterns) */
  char sig[400];
  char body[600];
  int32_t nout;
  tol_t tol;
  int32_t nopass;
  int32_t runs; /* CAT_EXEC | CAT_JIT */
} dcase_t;

/* Every op of ops.def, in its order. */
extern const char *const cat_ops[];
extern const size_t cat_num_ops;

/* The whole catalogue (rt_mem_calloc'd; the caller rt_mem_free's it). */
dcase_t *cat_build(int32_t *out_n);

/* Every op of ops.def has a case; every case names an op of ops.def (or
 * "fused") and calls it. Prints each problem to stderr; returns their
 * number. */
int32_t cat_check(const dcase_t *cases, int32_t n);

/* Applies the input domain of the param `name` to t (see above). */
void cat_input_domain(rt_tensor_t *t, const char *name);

#endif
