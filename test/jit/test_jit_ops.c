/* The JIT's differential suite: every case of the differential catalogue
 * (test/differential/catalogue.h, checked against ir/ops.def) marked
 * CAT_JIT, each a function compiled with all the others in ONE JIT module
 * (no passes: fused chains and composites lower as they are written) and
 * compared with the reference interpreter on seeded random inputs, shaped
 * by each param's name (cat_input_domain). The catalogue's pass-disabled
 * twins (NOPASS_SIMPLIFY, NOPASS_FOLD) are the same functions here, so
 * they run once. Tolerances: float32 rel 1e-5 + abs 1e-6 for elementwise
 * cases (TOL_E), 1e-4 for accumulations (TOL_A: the JIT accumulates float32
 * in float with reassociation, the reference in double), and for Winograd
 * (TOL_W) 1e-4 of the output's largest magnitude on top; float16 2e-3;
 * integers and bools exact. When the reference fails on the values
 * (integer division by zero, an out-of-range index) the kernel must fail
 * too. Then: `?` dims, the Primitive form, and what does not lower. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "jit_test_util.h"
#include "runtime/mem.h"

/* `?` dims take this size in the one-module run. */
#define DYN_SIZE 5

static void test_jit_ops_differential(void **state) {
  (void)state;
  int32_t ncat = 0;
  dcase_t *cat = cat_build(&ncat);
  assert_int_equal(cat_check(cat, ncat), 0);
  const dcase_t **cases = rt_mem_calloc((size_t)ncat, sizeof *cases);
  int32_t n = 0;
  for (int32_t k = 0; k < ncat; ++k) {
    if (!(cat[k].runs & CAT_JIT) || (cat[k].nopass & (NOPASS_SIMPLIFY | NOPASS_FOLD))) continue;
    cases[n++] = &cat[k];
  }
  size_t cap = (size_t)n * 1200 + 64;
  char *text = rt_mem_alloc(cap);
  size_t len = (size_t)snprintf(text, cap, "#[version = \"0.0.5\"]\n");
  for (int32_t i = 0; i < n; ++i) {
    len += (size_t)snprintf(text + len, cap - len, "def @c%d(%s) {\n  %s\n}\n", i, cases[i]->sig,
                            cases[i]->body);
  }
  assert_true(len < cap);
  rt_module_t *m = jt_parse(text);
  rt_ir_expr_t **fns = rt_mem_calloc((size_t)n, sizeof *fns);
  char(*names)[16] = rt_mem_calloc((size_t)n, sizeof *names);
  const char **namep = rt_mem_calloc((size_t)n, sizeof *namep);
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
      if (e) fprintf(stderr, "c%d (%s) %s: %s\n", i, cases[i]->op, cases[i]->body, rt_status_message(e));
      rt_status_free(e);
      rt_jit_module_release(one);
    }
  }
  assert_ok(bs);
  printf("# one module of %d kernels: lower %.0f ms, O3 %.0f ms, codegen+link %.0f ms\n", n,
         st.lower_ms, st.opt_ms, st.emit_ms + st.link_ms);
  int failures = 0, both_failed = 0;
  for (int32_t i = 0; i < n; ++i) {
    rt_tensor_t *ins[16], *want[8] = {0}, *got[8] = {0};
    int32_t nin, nout = 0;
    jt_make_inputs(fns[i], DYN_SIZE, 1000 + (uint64_t)i * 7, ins, &nin);
    for (int32_t k = 0; k < nin; ++k) cat_input_domain(ins[k], fns[i]->fn.params[k]->var.name);
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
        fprintf(stderr, "c%d (%s) %s: interp failed (%s) but the kernel succeeded\n", i, cases[i]->op,
                cases[i]->body, rt_status_message(is));
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
        fprintf(stderr, "c%d (%s) %s: kernel failed: %s\n", i, cases[i]->op, cases[i]->body, err);
        ++failures;
      }
      for (int32_t o = 0; !r && o < nout; ++o) {
        double rtol = 1e-5, atol = 1e-6;
        if (cases[i]->tol != TOL_E) rtol = atol = 1e-4;
        if (cases[i]->tol == TOL_W) { /* 1e-4 of the largest magnitude */
          double big = 0;
          for (int64_t k = 0; k < rt_tensor_numel(want[o]); ++k) {
            const double b = fabs(rt_tensor_get_f64(want[o], k));
            if (b > big && !isinf(b)) big = b;
          }
          atol += 1e-4 * big;
        }
        if (rt_tensor_dtype(want[o]).bits == 16) rtol = atol = 2e-3;
        if (!jt_close(got[o], want[o], rtol, atol, why)) {
          fprintf(stderr, "c%d (%s) %s: %s (output %d): %s\n", i, cases[i]->op, cases[i]->body, cases[i]->sig, o, why);
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
  printf("# %d of the catalogue's %d cases, %d where reference and kernel both failed on the values, %d failed\n", n,
         ncat, both_failed, failures);
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);
  rt_mem_free(fns);
  rt_mem_free(names);
  rt_mem_free(namep);
  rt_mem_free(text);
  rt_mem_free(cases);
  rt_mem_free(cat);
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
 * now but the dyn family, whose values decide the static op; the
 * constructs left: a strided_slice of `?` dims, a reflect pad as long as
 * its axis, a layout the conv cannot permute.) */
static void test_jit_ops_unimplemented(void **state) {
  (void)state;
  rt_module_t *m = jt_parse(
      "#[version = \"0.0.5\"]\n"
      "def @a(%x: Tensor[(?, 4), float32]) { strided_slice(%x, begin=[0, 1], end=[1, 3]) }\n"
      "def @b(%x: Tensor[(2, 3), float32]) { nn.pad(%x, 0f, pad_width=[[0, 0], [3, 0]], pad_mode=\"reflect\") }\n"
      "def @c(%x: Tensor[(1, 3, 4, 4), float32]) { nn.pad(%x, 0f, pad_width=[[0, 0], [0, 0], [4, 0], [0, 0]], pad_mode=\"reflect\") }\n"
      "def @d(%x: Tensor[(2, 3), float32], %r: Tensor[(2), int64]) { dyn.tile(%x, %r) }\n");
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  const char *want[4] = {"strided_slice", "nn.pad", "nn.pad", "op dyn.tile does not lower"};
  const char *name[4] = {"a", "b", "c", "d"};
  for (int i = 0; i < 4; ++i) {
    rt_ir_expr_t *fn = rt_ir_module_lookup(m, name[i]);
    rt_jit_module_t *jm = NULL;
    assert_status(rt_jit_build(s, 1, &fn, NULL, 0, NULL, &jm), UNIMPLEMENTED, want[i]);
    assert_null(jm);
  }
  rt_jit_session_release(s);
  rt_module_release(m);
}

/* ULPs between two floats of one sign (or both zero). */
static int64_t ulps(float a, float b) {
  int32_t ia, ib;
  memcpy(&ia, &a, 4);
  memcpy(&ib, &b, 4);
  int64_t d = (int64_t)ia - (int64_t)ib;
  return d < 0 ? -d : d;
}

/* Two float32 functions of one vector of n elements, @a and @b of
 * `text`, compiled together; x is the input to fill, like an output-shaped
 * tensor for jt_run_kernel. */
typedef struct unary_pair_t {
  rt_module_t *m;
  rt_jit_session_t *sess;
  rt_jit_module_t *jm;
  rt_tensor_t *x, *like;
} unary_pair_t;

static void unary_pair_build(unary_pair_t *u, const char *text, int64_t n) {
  u->m = jt_parse(text);
  rt_ir_expr_t *fns[2] = {rt_ir_module_lookup(u->m, "a"), rt_ir_module_lookup(u->m, "b")};
  u->sess = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &u->sess));
  u->jm = NULL;
  assert_ok(rt_jit_build(u->sess, 2, fns, NULL, RT_JIT_NO_DISK_CACHE, NULL, &u->jm));
  int64_t shape[1] = {n};
  u->x = u->like = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, shape, &u->x));
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, shape, &u->like));
}

/* Runs function f (0: @a, 1: @b) on u->x; the caller releases the result. */
static rt_tensor_t *unary_pair_run(unary_pair_t *u, int32_t f) {
  char err[512];
  rt_tensor_t *out = NULL;
  assert_int_equal(jt_run_kernel(rt_jit_module_kernel(u->jm, f), 1, &u->x, 1, &u->like, &out, NULL, err), 0);
  return out;
}

static void unary_pair_release(unary_pair_t *u) {
  rt_tensor_release(u->x);
  rt_tensor_release(u->like);
  rt_jit_module_release(u->jm);
  rt_jit_session_release(u->sess);
  rt_module_release(u->m);
}

/* The JIT's float32 exp (rt_jit_exp: a polynomial, so loops vectorize)
 * against libm's expf, an independent implementation, over [-110, 95]
 * (normal, subnormal, overflowing and underflowing results) and the
 * special values: within 2 ulps (the subnormal grid included), and NaN,
 * +-inf, 0 exactly as expf; sigmoid (0.5 + 0.5 tanh(x/2) with the
 * rational tanh) within 2e-7 absolute. */
static void test_jit_exp_accuracy(void **state) {
  (void)state;
  enum { N = 41000 + 12 };
  unary_pair_t u;
  unary_pair_build(&u,
                   "#[version = \"0.0.5\"]\n"
                   "def @a(%x: Tensor[(41012), float32]) { exp(%x) }\n"
                   "def @b(%x: Tensor[(41012), float32]) { sigmoid(%x) }\n",
                   N);
  float *xv = rt_tensor_data(u.x);
  for (int32_t i = 0; i < 41000; ++i) xv[i] = -110.0f + 205.0f * (float)i / 41000.0f;
  const float special[12] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 88.72f, 88.73f,
                             -87.33f, -103.97f, -104.0f, -150.0f, 1e-8f};
  memcpy(xv + 41000, special, sizeof special);
  rt_tensor_t *out = unary_pair_run(&u, 0);
  const float *ev = rt_tensor_data(out);
  int64_t worst = 0;
  for (int32_t i = 0; i < N; ++i) {
    const float want = expf(xv[i]);
    if (isnan(want)) {
      assert_true(isnan(ev[i]));
      continue;
    }
    const int64_t d = ulps(ev[i], want);
    if (d > worst) worst = d;
    if (d > 2) fail_msg("exp(%.9g) = %.9g, expf says %.9g (%lld ulps)", (double)xv[i], (double)ev[i],
                        (double)want, (long long)d);
  }
  printf("# exp: worst %lld ulps over %d values\n", (long long)worst, (int)N);
  rt_tensor_release(out);
  out = unary_pair_run(&u, 1);
  const float *sv = rt_tensor_data(out);
  for (int32_t i = 0; i < N; ++i) {
    if (i == 41000) continue; /* NaN */
    const double want = 1.0 / (1.0 + exp(-(double)xv[i]));
    if (fabs(sv[i] - want) > 2e-7) fail_msg("sigmoid(%.9g) = %.9g, want %.9g", (double)xv[i], (double)sv[i], want);
  }
  assert_true(isnan(sv[41000]));
  rt_tensor_release(out);
  unary_pair_release(&u);
}

/* The JIT's float32 tanh and erf (rt_jit_tanh / rt_jit_erf: rational
 * functions, so loops vectorize) against libm's double tanh and erf over
 * [-12, 12] (past the clamps at 9 and 4 too) and the special values:
 * within 4e-7 relative (the fit's 3.6e-7 measured when it was made), NaN
 * passed, +-1 at +-inf, and exactly 0 and -0 at 0 and -0. */
static void test_jit_tanh_erf_accuracy(void **state) {
  (void)state;
  enum { G = 48000, N = G + 7 };
  unary_pair_t u;
  unary_pair_build(&u,
                   "#[version = \"0.0.5\"]\n"
                   "def @a(%x: Tensor[(48007), float32]) { tanh(%x) }\n"
                   "def @b(%x: Tensor[(48007), float32]) { erf(%x) }\n",
                   N);
  float *xv = rt_tensor_data(u.x);
  for (int32_t i = 0; i < G; ++i) xv[i] = -12.0f + 24.0f * (float)i / (float)G;
  const float special[7] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-20f, -3e-39f};
  memcpy(xv + G, special, sizeof special);
  for (int32_t f = 0; f < 2; ++f) {
    rt_tensor_t *out = unary_pair_run(&u, f);
    const float *v = rt_tensor_data(out);
    double worst = 0;
    for (int32_t i = 0; i < N; ++i) {
      if (i == G) {
        assert_true(isnan(v[i]));
        continue;
      }
      const double want = f == 0 ? tanh((double)xv[i]) : erf((double)xv[i]);
      const double rel = want == 0 ? fabs((double)v[i]) : fabs(v[i] - want) / fabs(want);
      if (rel > worst) worst = rel;
      if (rel > 4e-7) {
        fail_msg("%s(%.9g) = %.9g, libm says %.9g", f == 0 ? "tanh" : "erf", (double)xv[i],
                 (double)v[i], want);
      }
    }
    assert_true(v[G + 3] == 0.0f && !signbit(v[G + 3]));
    assert_true(v[G + 4] == 0.0f && signbit(v[G + 4]));
    printf("# %s: worst relative error %.3g over %d values\n", f == 0 ? "tanh" : "erf", worst, (int)N);
    rt_tensor_release(out);
  }
  unary_pair_release(&u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_jit_ops_differential),
      cmocka_unit_test(test_jit_ops_dynamic_dims),
      cmocka_unit_test(test_jit_ops_primitive_function),
      cmocka_unit_test(test_jit_ops_unimplemented),
      cmocka_unit_test(test_jit_exp_accuracy),
      cmocka_unit_test(test_jit_tanh_erf_accuracy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
