/* Helpers for the JIT tests: parse a module of test functions, run a global
 * through the reference interpreter and through a JIT kernel, compare. */
#ifndef RT_TEST_JIT_JIT_TEST_UTIL_H_
#define RT_TEST_JIT_JIT_TEST_UTIL_H_

#include "test_util.h"
#include "interp/interp.h"
#include "jit/jit.h"

/* Parses and type-checks `text` (a whole module); fails the test on error. */
rt_module_t *jt_parse(const char *text);

/* Inputs for global `fn` of m: one tensor per param, shaped by its type
 * (`?` dims take `dyn`), filled with rt_tensor_fill_random(seed + i). */
void jt_make_inputs(const rt_ir_expr_t *fn, int64_t dyn, uint64_t seed,
                    rt_tensor_t **out_inputs, int32_t *out_n);

/* Runs global `name` through the interpreter: outputs flattened into outs
 * (caller releases); returns the interpreter's status. */
rt_status_t jt_interp(rt_module_t *m, const char *name, int32_t nin, rt_tensor_t **ins,
                      rt_tensor_t **outs, int32_t *out_nout);

/* Runs a kernel on ins, writing fresh outputs shaped like `like`; returns
 * the kernel's return code and its message in err (>= 512 bytes). */
int32_t jt_run_kernel(rt_kernel_fn k, int32_t nin, rt_tensor_t **ins, int32_t nout,
                      rt_tensor_t **like, rt_tensor_t **outs, const rt_kernel_ctx *ctx,
                      char *err);

/* Compares two tensors: exact for ints/bools, |a-b| <= atol + rtol*|b| for
 * floats (NaN == NaN). Returns true when equal; describes the first
 * mismatch in why (>= 256 bytes). */
bool jt_close(const rt_tensor_t *got, const rt_tensor_t *want, double rtol, double atol,
              char *why);

#endif
