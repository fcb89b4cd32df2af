/* Helpers shared by the JIT tests (see jit_test_util.h). */
#include "jit_test_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/tensor_impl.h"

rt_module_t *jt_parse(const char *text) {
  rt_module_t *m = NULL;
  assert_ok(rt_ir_module_create(rt_allocator_system(), &m));
  rt_status_t s = rt_ir_parse_module(m, "test.relay", text, strlen(text));
  if (!s) s = rt_ir_infer_types(m);

  assert_ok(s);
  return m;
}

void jt_make_inputs(const rt_ir_expr_t *fn, int64_t dyn, uint64_t seed, rt_tensor_t **ins,
                    int32_t *out_n) {
  for (int32_t i = 0; i < fn->fn.nparams; ++i) {
    rt_ir_type_t *t = rt_ir_type_resolve(fn->fn.params[i]->checked_type);
    assert_int_equal(t->kind, RT_IR_TYPE_TENSOR);
    int64_t shape[RT_TENSOR_MAX_RANK];
    for (int32_t k = 0; k < t->tensor.rank; ++k) {
      shape[k] = t->tensor.shape[k] == RT_DIM_ANY ? dyn : t->tensor.shape[k];
    }
    assert_ok(rt_tensor_create(rt_allocator_system(), t->tensor.dtype, t->tensor.rank, shape, &ins[i]));
    rt_tensor_fill_random(ins[i], seed + (uint64_t)i);
  }
  *out_n = fn->fn.nparams;
}

static void flatten(rt_interp_value_t *v, rt_tensor_t **outs, int32_t *n) {
  if (v->kind == RT_INTERP_TENSOR) {
    rt_tensor_retain(v->tensor);
    outs[(*n)++] = v->tensor;
  } else {
    for (int32_t i = 0; i < v->tuple.count; ++i) flatten(v->tuple.fields[i], outs, n);
  }
}

rt_status_t jt_interp(rt_module_t *m, const char *name, int32_t nin, rt_tensor_t **ins,
                      rt_tensor_t **outs, int32_t *out_nout) {
  rt_interp_t *it = NULL;
  assert_ok(rt_interp_create(rt_allocator_system(), m, NULL, &it));
  rt_interp_value_t *args[16] = {0}, *res = NULL;
  for (int32_t i = 0; i < nin; ++i) assert_ok(rt_interp_value_tensor(rt_allocator_system(), ins[i], &args[i]));
  rt_status_t s = rt_interp_call_global(it, name, nin, args, &res);
  *out_nout = 0;
  if (!s) flatten(res, outs, out_nout);
  rt_interp_value_release(res);
  for (int32_t i = 0; i < nin; ++i) rt_interp_value_release(args[i]);
  rt_interp_release(it);
  return s;
}

int32_t jt_run_kernel(rt_kernel_fn k, int32_t nin, rt_tensor_t **ins, int32_t nout,
                      rt_tensor_t **like, rt_tensor_t **outs, const rt_kernel_ctx *ctx,
                      char *err) {
  rt_kernel_arg args[32];
  for (int32_t i = 0; i < nin; ++i) rt_jit_arg_from_tensor(ins[i], &args[i]);
  for (int32_t o = 0; o < nout; ++o) {
    assert_ok(rt_tensor_create(rt_allocator_system(), rt_tensor_dtype(like[o]), rt_tensor_rank(like[o]),
                               rt_tensor_shape(like[o]), &outs[o]));
    /* Poison: a kernel that skips an element is caught. */
    memset(rt_tensor_data(outs[o]), 0x5a, rt_tensor_nbytes(outs[o]));
    rt_jit_arg_from_tensor(outs[o], &args[nin + o]);
  }
  rt_jit_simple_ctx_t simple;
  if (!ctx) {
    rt_jit_simple_ctx_initialize(&simple);
    ctx = &simple.ctx;
  }
  int32_t r = k(args, nin + nout, ctx);
  err[0] = 0;
  if (r && ctx == &simple.ctx) snprintf(err, 512, "%s", simple.error);
  return r;
}

bool jt_close(const rt_tensor_t *got, const rt_tensor_t *want, double rtol, double atol, char *why) {
  if (!rt_dtype_equal(got->dtype, want->dtype) || got->numel != want->numel) {
    snprintf(why, 256, "dtype or size differ");
    return false;
  }
  const bool fl = rt_dtype_is_float(got->dtype);
  for (int64_t i = 0; i < got->numel; ++i) {
    double a = rt_tensor_get_f64(got, i), b = rt_tensor_get_f64(want, i);
    bool ok;
    if (!fl) {
      size_t es = rt_dtype_size(got->dtype);
      ok = memcmp((const char *)rt_tensor_data(got) + (size_t)i * es,
                  (const char *)rt_tensor_data(want) + (size_t)i * es, es) == 0;
    } else if (isnan(b)) {
      ok = isnan(a);
    } else if (isinf(b)) {
      ok = a == b;
    } else {
      ok = fabs(a - b) <= atol + rtol * fabs(b);
    }
    if (!ok) {
      snprintf(why, 256, "element %lld: got %.9g, want %.9g", (long long)i, a, b);
      return false;
    }
  }
  return true;
}
