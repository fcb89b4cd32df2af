/* Host kernels (backend/host_kernel.h): which fused groups the JIT does
 * not compile, and, for the graph executor, a kernel-ABI entry point that
 * runs such a group by its reference kernels.
 *
 * The entry is a libffi closure (as jit/custom.c makes custom ops' native
 * entries) bound to the group: it copies each input into a tensor of its
 * own, evaluates the group's body with an interpreter over the group's
 * module (rt_interp_eval, the debug executor's kernels), then copies each
 * result tensor into the output the plan gave it after checking its dtype
 * and shape. The copies and the interpreter's allocations happen per call:
 * a host kernel is the slow path, for ops that have no JIT lowering yet. */
#include <ffi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "backend/host_kernel.h"
#include "interp/interp.h"
#include "ir/op/custom.h"
#include "ir/op/dyn.h"
#include "jit/lower.h"
#include "runtime/mem.h"

static bool special_type(const rt_ir_type_t *t) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (!t) return false;
  switch (t->kind) {
    case RT_IR_TYPE_TENSOR: return rt_dtype_is_string(t->tensor.dtype);
    case RT_IR_TYPE_LIST:
    case RT_IR_TYPE_OPTION: return true;
    case RT_IR_TYPE_TUPLE:
      for (int32_t i = 0; i < t->tuple.count; ++i) {
        if (special_type(t->tuple.fields[i])) return true;
      }
      return false;
    default: return false;
  }
}

static rt_status_t note_host(void *user, rt_ir_expr_t *e) {
  bool *host = user;
  if (special_type(e->checked_type)) *host = true;
  if (e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP) return RT_OK;
  const rt_ir_op_t *op = e->call.callee->op.op;
  if (op->custom) {
    /* A custom op with neither a native kernel nor an element expression
     * has only its reference kernel (include/rt/op.h). */
    if (!op->custom->native && !op->custom->elem) *host = true;
    return RT_OK;
  }
  if (op->id < 0 || op->id >= RT_OP_COUNT) return RT_OK;
  const rt_jit_op_lowering_t *l = rt_jit_op_lowering(op->id);
  if (l->elem || l->shape) return RT_OK;
  bool reads = false;
  for (int32_t i = 0; i < e->call.nargs; ++i) reads = reads || rt_ir_op_reads_value(op->id, i);
  if (!reads) *host = true;
  return RT_OK;
}

rt_status_t rt_backend_is_host_group(const rt_ir_expr_t *fn, bool *out) {
  *out = special_type(fn->checked_type);
  for (int32_t i = 0; i < fn->fn.nparams && !*out; ++i) {
    *out = special_type(fn->fn.params[i]->checked_type);
  }
  if (*out) return RT_OK;
  return rt_ir_post_order(rt_mem_current(), fn->fn.body, note_host, out);
}


/* ---- the graph executor's entry --------------------------------------------- */

struct rt_host_kernel_t {
  rt_module_t *module;
  rt_ir_expr_t *fn;
  char name[96];
  rt_interp_t *interp;
  pthread_mutex_t mu;
  ffi_closure *closure;
  ffi_cif cif;
  ffi_type *types[3];
};

static void fail(const rt_kernel_ctx *ctx, const rt_host_kernel_t *hk, rt_status_t st) {
  char msg[512];
  snprintf(msg, sizeof msg, "%s (host kernel): %s", hk->name, rt_status_message(st));
  if (ctx && ctx->set_error) ctx->set_error(ctx, msg);
  rt_status_free(st);
}

static rt_status_t arg_tensor(const rt_kernel_arg *a, rt_tensor_t **out) {
  if (a->strides) return RT_STATUS(INVALID_ARGUMENT, "%s", "a strided argument");
  rt_dtype_t dt = {a->dtype.code, a->dtype.bits, a->dtype.lanes};
  RT_RETURN_IF_ERROR(rt_tensor_create(rt_allocator_system(), dt, a->rank, a->shape, out));
  size_t n = rt_tensor_nbytes(*out);
  if (n) memcpy(rt_tensor_data(*out), a->data, n);
  return RT_OK;
}

static rt_status_t leaves(const rt_interp_value_t *v, rt_tensor_t **out, int32_t cap, int32_t *n) {
  if (v->kind == RT_INTERP_TENSOR) {
    if (*n >= cap) return RT_STATUS(INTERNAL, "%s", "more results than outputs");
    out[(*n)++] = v->tensor;
    return RT_OK;
  }
  if (v->kind != RT_INTERP_TUPLE) return RT_STATUS(INTERNAL, "%s", "a result that is not a tensor");
  for (int32_t i = 0; i < v->tuple.count; ++i) RT_RETURN_IF_ERROR(leaves(v->tuple.fields[i], out, cap, n));
  return RT_OK;
}

static rt_status_t put_output(const rt_tensor_t *t, const rt_kernel_arg *o, int32_t index) {
  rt_dtype_t d = rt_tensor_dtype(t);
  bool same = d.code == o->dtype.code && d.bits == o->dtype.bits && d.lanes == o->dtype.lanes &&
              rt_tensor_rank(t) == o->rank && !o->strides;
  for (int32_t k = 0; same && k < o->rank; ++k) same = rt_tensor_shape(t)[k] == o->shape[k];
  if (!same) return RT_STATUS(INTERNAL, "result %d does not have its planned type", (int)index);
  rt_tensor_t *c = NULL;
  if (!rt_tensor_is_compact(t)) RT_RETURN_IF_ERROR(rt_tensor_clone(rt_allocator_system(), t, &c));
  const rt_tensor_t *src = c ? c : t;
  size_t n = rt_tensor_nbytes(src);
  if (n) memmove(o->data, rt_tensor_data(src), n);
  rt_tensor_release(c);
  return RT_OK;
}

static int32_t host_call(rt_host_kernel_t *hk, const rt_kernel_arg *args, int32_t nargs,
                         const rt_kernel_ctx *ctx) {
  const int32_t nin = hk->fn->fn.nparams;
  if (nargs <= nin) {
    fail(ctx, hk, RT_STATUS(INTERNAL, "%d arguments for %d inputs", (int)nargs, (int)nin));
    return 1;
  }
  rt_interp_value_t **vals = rt_mem_calloc((size_t)(nin ? nin : 1), sizeof *vals);
  rt_tensor_t **outs = rt_mem_calloc((size_t)(nargs - nin), sizeof *outs);
  rt_status_t st = vals && outs ? RT_OK : RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  for (int32_t i = 0; i < nin && !st; ++i) {
    rt_tensor_t *t = NULL;
    st = arg_tensor(&args[i], &t);
    if (!st) st = rt_interp_value_tensor(rt_allocator_system(), t, &vals[i]);
    rt_tensor_release(t);
  }
  rt_interp_value_t *res = NULL;
  if (!st) {
    pthread_mutex_lock(&hk->mu);
    st = rt_interp_eval(hk->interp, hk->fn->fn.body, nin, hk->fn->fn.params, vals, &res);
    pthread_mutex_unlock(&hk->mu);
  }
  int32_t n = 0;
  if (!st) st = leaves(res, outs, nargs - nin, &n);
  if (!st && n != nargs - nin) st = RT_STATUS(INTERNAL, "%d results for %d outputs", (int)n, (int)(nargs - nin));
  for (int32_t o = 0; o < n && !st; ++o) st = put_output(outs[o], &args[nin + o], o);
  rt_interp_value_release(res);
  for (int32_t i = 0; vals && i < nin; ++i) rt_interp_value_release(vals[i]);
  rt_mem_free(vals);
  rt_mem_free(outs);
  if (st) {
    fail(ctx, hk, st);
    return 1;
  }
  return 0;
}

static void host_entry(ffi_cif *cif, void *ret, void **args, void *user) {
  (void)cif;
  const rt_kernel_arg *kargs = *(const rt_kernel_arg *const *)args[0];
  int32_t nargs = *(const int32_t *)args[1];
  const rt_kernel_ctx *ctx = *(const rt_kernel_ctx *const *)args[2];
  *(ffi_arg *)ret = (ffi_arg)host_call(user, kargs, nargs, ctx);
}

rt_status_t rt_host_kernel_create(rt_module_t *module, rt_ir_expr_t *fn, const char *name,
                                  rt_host_kernel_t **out, rt_kernel_fn *out_entry) {
  *out = NULL;
  rt_host_kernel_t *hk = rt_mem_calloc(1, sizeof *hk);
  if (!hk) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  pthread_mutex_init(&hk->mu, NULL);
  hk->fn = fn;
  snprintf(hk->name, sizeof hk->name, "%s", name);
  rt_module_retain(module);
  hk->module = module;
  rt_status_t st = rt_interp_create(module->allocator, module, NULL, &hk->interp);
  void *code = NULL;
  if (!st) {
    hk->closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    if (!hk->closure) st = RT_STATUS(RESOURCE_EXHAUSTED, "%s: libffi cannot allocate a closure", name);
  }
  if (!st) {
    hk->types[0] = &ffi_type_pointer;
    hk->types[1] = &ffi_type_sint32;
    hk->types[2] = &ffi_type_pointer;
    if (ffi_prep_cif(&hk->cif, FFI_DEFAULT_ABI, 3, &ffi_type_sint32, hk->types) != FFI_OK ||
        ffi_prep_closure_loc(hk->closure, &hk->cif, host_entry, hk, code) != FFI_OK) {
      st = RT_STATUS(INTERNAL, "%s: libffi cannot prepare the kernel entry", name);
    }
  }
  if (st) {
    rt_host_kernel_release(hk);
    return st;
  }
  /* The closure's code address is the function (POSIX: object and
   * function pointers have one representation). */
  _Static_assert(sizeof *out_entry == sizeof code, "pointer sizes");
  memcpy(out_entry, &code, sizeof code);
  *out = hk;
  return RT_OK;
}

void rt_host_kernel_release(rt_host_kernel_t *hk) {
  if (!hk) return;
  if (hk->closure) ffi_closure_free(hk->closure);
  rt_interp_release(hk->interp);
  rt_module_release(hk->module);
  pthread_mutex_destroy(&hk->mu);
  rt_mem_free(hk);
}
