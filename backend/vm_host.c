/* The vm's host ops: fused groups the JIT does not compile, run by their
 * reference kernels through the interpreter (runtime/vm.h, InvokeHost).
 *
 * A group is a host op when rt_backend_is_host_group says so
 * (backend/host_kernel.c: an op whose family does not lower, or a list,
 * option or string value). Such a group gets no kernel, no slots and no
 * shape function: InvokeHost hands its argument values (tuples, lists and
 * options included, nothing flattened) to rt_vm_run_host_op, which binds
 * them to the group's parameters and evaluates its body with the build's
 * interpreter (the debug executor's kernels), then hands the result back
 * as a VM value. Tensors are shared, never copied, both ways: a list's
 * elements stay the tensors the VM made. The outputs' shapes are whatever
 * the reference kernel makes, so data-dependent shapes (argwhere) need
 * nothing more. */
#include <string.h>

#include "backend/vm_compile.h"
#include "interp/interp.h"
#include "runtime/mem.h"

/* ---- values, both ways -------------------------------------------------------- */

static rt_status_t to_interp(rt_allocator_t a, rt_vm_value_t v, rt_interp_value_t **out) {
  switch (v.kind) {
    case RT_VM_VALUE_TENSOR: return rt_interp_value_tensor(a, v.tensor, out);
    case RT_VM_VALUE_TUPLE:
    case RT_VM_VALUE_LIST:
    case RT_VM_VALUE_OPTION: {
      int32_t n = v.object->count;
      rt_interp_value_t **f = rt_mem_calloc((size_t)(n ? n : 1), sizeof *f);
      if (!f) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
      rt_status_t st = RT_OK;
      for (int32_t i = 0; i < n && !st; ++i) st = to_interp(a, v.object->fields[i], &f[i]);
      if (!st) {
        st = v.kind == RT_VM_VALUE_TUPLE
                 ? rt_interp_value_tuple(a, n, f, out)
                 : rt_interp_value_adt(a, v.kind == RT_VM_VALUE_LIST ? RT_INTERP_LIST
                                                                     : RT_INTERP_OPTION,
                                       n, f, out);
      }
      for (int32_t i = 0; i < n; ++i) rt_interp_value_release(f[i]);
      rt_mem_free(f);
      return st;
    }
    case RT_VM_VALUE_CLOSURE:
      return RT_STATUS(UNIMPLEMENTED, "%s", "a host op was given a closure");
    case RT_VM_VALUE_EMPTY: break;
  }
  return RT_STATUS(INTERNAL, "%s", "a host op was given an empty register");
}

rt_status_t rt_vm_value_to_interp(rt_allocator_t allocator, rt_vm_value_t value,
                                  rt_interp_value_t **out) {
  return to_interp(allocator, value, out);
}

rt_status_t rt_vm_value_from_interp(rt_allocator_t allocator, const rt_interp_value_t *v,
                                    rt_vm_value_t *out) {
  switch (v->kind) {
    case RT_INTERP_TENSOR:
      rt_tensor_retain(v->tensor);
      *out = rt_vm_value_of_tensor(v->tensor);
      return RT_OK;
    case RT_INTERP_TUPLE:
    case RT_INTERP_LIST:
    case RT_INTERP_OPTION: {
      int32_t n = v->tuple.count;
      rt_vm_value_t *f = rt_mem_calloc((size_t)(n ? n : 1), sizeof *f);
      if (!f) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
      rt_status_t st = RT_OK;
      for (int32_t i = 0; i < n && !st; ++i) {
        st = rt_vm_value_from_interp(allocator, v->tuple.fields[i], &f[i]);
      }
      rt_vm_value_kind_t kind = v->kind == RT_INTERP_TUPLE  ? RT_VM_VALUE_TUPLE
                                : v->kind == RT_INTERP_LIST ? RT_VM_VALUE_LIST
                                                            : RT_VM_VALUE_OPTION;
      if (!st) st = rt_vm_value_make(allocator, kind, n, f, out);
      for (int32_t i = 0; i < n; ++i) rt_vm_value_release(f[i]);
      rt_mem_free(f);
      return st;
    }
    case RT_INTERP_CLOSURE:
      return RT_STATUS(UNIMPLEMENTED, "%s", "a host op returned a function (a closure)");
  }
  return RT_STATUS(INTERNAL, "%s", "bad interpreter value");
}

/* ---- running one ------------------------------------------------------------- */

rt_status_t rt_vm_run_host_op(void *user, int32_t op, int32_t nargs, const rt_vm_value_t *args,
                              rt_allocator_t allocator, rt_vm_value_t *out) {
  const rt_vm_build_t *b = user;
  if (op < 0 || op >= b->exe.num_host_ops) return RT_STATUS(OUT_OF_RANGE, "no host op %d", (int)op);
  rt_ir_expr_t *fn = b->host_fns[op];
  if (nargs != fn->fn.nparams) {
    return RT_STATUS(INTERNAL, "%d arguments; the group takes %d", (int)nargs,
                     (int)fn->fn.nparams);
  }
  rt_allocator_t a = b->module->allocator;
  rt_interp_value_t *small[8] = {NULL};
  rt_interp_value_t **vals = nargs <= 8 ? small : rt_mem_calloc((size_t)nargs, sizeof *vals);
  if (!vals) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  rt_status_t st = RT_OK;
  for (int32_t i = 0; i < nargs && !st; ++i) st = to_interp(a, args[i], &vals[i]);
  rt_interp_value_t *res = NULL;
  if (!st) st = rt_interp_eval(b->interp, fn->fn.body, nargs, fn->fn.params, vals, &res);
  for (int32_t i = 0; i < nargs; ++i) rt_interp_value_release(vals[i]);
  if (vals != small) rt_mem_free(vals);
  if (!st) st = rt_vm_value_from_interp(allocator, res, out);
  rt_interp_value_release(res);
  return st;
}
