/* Reference kernels of the dyn family (ir/op/dyn.h): one kernel for every
 * dyn op but dyn.reshape (transform.c). It reads the value operands,
 * asks rt_ir_dyn_static for the static op(s) and attributes they stand
 * for, and runs those static ops' own relations and kernels on the
 * concrete tensors, so a dyn op computes exactly what its static op
 * computes, with no kernel code of its own. The types and attributes of
 * the static steps live in a scratch module for the call.
 *
 * The result must have the rank the dyn call's type promised (the `rank`
 * attribute where the values decide it): a model whose declared output
 * rank disagrees with its values gets an INVALID_ARGUMENT naming the op,
 * not the interpreter's INTERNAL. */
#include <string.h>

#include "interp/kernels/kernels_impl.h"
#include "ir/op/dyn.h"
#include "runtime/size.h"

#define MAX_OUTS 64 /* dyn.split's pieces */
/* Outputs sized by values: the interpreter's default per-tensor limit
 * (interp/interp.h max_tensor_bytes), which a kernel does not see. */
#define MAX_BYTES (UINT64_C(16) << 30)

static void release_all(rt_tensor_t **t, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    rt_tensor_release(t[i]);
    t[i] = NULL;
  }
}

/* Flattens the tensor leaves of a concrete type into leaves[]. */
static rt_status_t leaves_of(const rt_ir_type_t *t, const rt_ir_type_t **leaves, int32_t *n) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (t->kind == RT_IR_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->tuple.count; ++i) {
      RT_RETURN_IF_ERROR(leaves_of(t->tuple.fields[i], leaves, n));
    }
    return RT_OK;
  }
  if (t->kind != RT_IR_TYPE_TENSOR || *n >= MAX_OUTS) {
    return RT_STATUS(INTERNAL, "%s", "a static step returned an unexpected type");
  }
  leaves[(*n)++] = t;
  return RT_OK;
}

/* op(args; attrs) through its relation and reference kernel: outs[0 ..
 * *nouts) are new references. */
static rt_status_t run_step(const rt_interp_call_t *dyn, rt_module_t *m, const rt_ir_op_t *op,
                            const rt_ir_attrs_t *attrs, int32_t nargs, rt_tensor_t *const *args,
                            rt_tensor_t **outs, int32_t *nouts) {
  rt_ir_type_t *types[4];
  int32_t arity[4];
  for (int32_t i = 0; i < nargs; ++i) {
    RT_RETURN_IF_ERROR(rt_ir_tensor_type(m, rt_tensor_dtype(args[i]), rt_tensor_rank(args[i]),
                                         rt_tensor_shape(args[i]), &types[i]));
    arity[i] = 1;
  }
  rt_ir_rel_ctx_t rc = {m, op, attrs, nargs, types};
  rt_ir_type_t *out_type = NULL;
  RT_RETURN_IF_ERROR(op->type_rel(&rc, &out_type));
  const rt_ir_type_t *leaves[MAX_OUTS];
  int32_t n = 0;
  RT_RETURN_IF_ERROR(leaves_of(out_type, leaves, &n));
  rt_status_t st = RT_OK;
  *nouts = 0;
  for (int32_t i = 0; i < n && !st; ++i) {
    const rt_ir_type_t *t = leaves[i];
    size_t bytes = 0;
    for (int32_t d = 0; d < t->tensor.rank && !st; ++d) {
      if (t->tensor.shape[d] == RT_DIM_ANY) st = RT_STATUS(INTERNAL, "%s", "a static step has a `?` dim");
    }
    if (!st) st = rt_size_of_shape(t->tensor.rank, t->tensor.shape, rt_dtype_size(t->tensor.dtype), &bytes);
    if (!st && (uint64_t)bytes > MAX_BYTES) {
      st = RT_INTERP_ERROR(dyn, RESOURCE_EXHAUSTED, "an output of %zu bytes is past the limit of %llu bytes",
                           bytes, (unsigned long long)MAX_BYTES);
    }
    if (!st) st = rt_tensor_create(dyn->allocator, t->tensor.dtype, t->tensor.rank, t->tensor.shape, &outs[i]);
    if (!st) *nouts = i + 1;
  }
  if (!st) {
    rt_interp_call_t call = {dyn->allocator, op, attrs, nargs, args, nargs, arity, n, outs, out_type};
    st = rt_interp_kernel((rt_op_id_t)op->id)(&call);
  }
  if (st) release_all(outs, *nouts);
  return st;
}

static rt_status_t run_dyn(const rt_interp_call_t *call) {
  rt_plan_input_t in[8];
  if (call->nargs > 8 || call->nargs != call->ninputs) {
    return RT_INTERP_ERROR(call, INTERNAL, "%s", "unexpected operands");
  }
  for (int32_t i = 0; i < call->nargs; ++i) rt_ir_plan_input_of_tensor(call->args[i], &in[i]);
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_create(call->allocator, &m));
  rt_ir_dyn_static_t s;
  rt_tensor_t *cur[MAX_OUTS] = {0};
  int32_t ncur = 0;
  rt_status_t st = rt_ir_dyn_static(m, call->op, call->attrs, call->nargs, in, &s);
  if (!st && s.nsteps == 0) st = RT_INTERP_ERROR(call, INTERNAL, "%s", "no static form for concrete shapes");
  for (int32_t k = 0; !st && k < s.nsteps; ++k) {
    rt_tensor_t *args[4];
    int32_t nargs = 0;
    if (k == 0) {
      for (int32_t i = 0; i < s.nargs; ++i) args[nargs++] = call->args[s.args[i]];
    } else {
      args[nargs++] = cur[0];
    }
    rt_tensor_t *next[MAX_OUTS] = {0};
    int32_t nnext = 0;
    st = run_step(call, m, s.op[k], s.attrs[k], nargs, args, next, &nnext);
    if (st) st = rt_status_annotate(st, "in %s", call->op->name);
    release_all(cur, ncur);
    memcpy(cur, next, sizeof next);
    ncur = st ? 0 : nnext;
  }
  if (!st && s.out_rank >= 0 && rt_tensor_rank(cur[0]) != s.out_rank) {
    st = RT_INTERP_ERROR(call, INVALID_ARGUMENT, "the result has rank %d, not %d",
                         (int)rt_tensor_rank(cur[0]), (int)s.out_rank);
  }
  if (!st && ncur != call->nouts) {
    st = RT_INTERP_ERROR(call, INTERNAL, "%d results for %d outputs", (int)ncur, (int)call->nouts);
  }
  const rt_ir_type_t *leaves[MAX_OUTS];
  int32_t nleaves = 0;
  if (!st) st = leaves_of(call->out_type, leaves, &nleaves);
  for (int32_t i = 0; !st && i < ncur && i < nleaves; ++i) {
    if (rt_tensor_rank(cur[i]) != leaves[i]->tensor.rank) {
      st = RT_INTERP_ERROR(call, INVALID_ARGUMENT, "the values give a rank-%d result, but its type "
                           "(the `rank` attribute, or the model's declared type) has rank %d",
                           (int)rt_tensor_rank(cur[i]), (int)leaves[i]->tensor.rank);
    }
  }
  for (int32_t i = 0; !st && i < ncur; ++i) {
    st = rt_interp_deliver(call, i, cur[i], "the static op's result differs from the type");
    cur[i] = NULL;
  }
  release_all(cur, ncur);
  rt_module_release(m);
  return st;
}

#define DYN_KERNEL(ID) \
  rt_status_t rt_interp_k_##ID(const rt_interp_call_t *call) { return run_dyn(call); }

DYN_KERNEL(DYN_STRIDED_SLICE)
DYN_KERNEL(DYN_NN_PAD)
DYN_KERNEL(DYN_TILE)
DYN_KERNEL(DYN_BROADCAST_TO)
DYN_KERNEL(DYN_FULL)
DYN_KERNEL(DYN_TOPK)
DYN_KERNEL(DYN_ONE_HOT)
DYN_KERNEL(DYN_IMAGE_RESIZE2D)
DYN_KERNEL(DYN_EXPAND_DIMS)
DYN_KERNEL(DYN_SQUEEZE)
DYN_KERNEL(DYN_SUM)
DYN_KERNEL(DYN_MAX)
DYN_KERNEL(DYN_MIN)
DYN_KERNEL(DYN_MEAN)
DYN_KERNEL(DYN_PROD)
DYN_KERNEL(DYN_SPLIT)
DYN_KERNEL(DYN_CUMSUM)
DYN_KERNEL(DYN_NN_DROPOUT)
