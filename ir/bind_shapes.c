/* Specializing @main to given input shapes (rt_module_bind_input_shapes,
 * include/rt/module.h), and the check both it and the ONNX importer apply
 * to one given shape (rt_ir_bind_shape, ir/ir.h).
 *
 * The new module derives from the old one (rt_ir_module_derive: the old
 * one stays as it was). Each bound parameter becomes a new var with the
 * static type; rt_ir_mutate then rebuilds every node that depends on one
 * of them (they lose their checked types), @main gets the new parameter
 * list without its return annotation, and type inference runs again over
 * the module, so `?` dims that follow from the inputs become static. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "runtime/strbuf.h"
#include "runtime/mem.h"

rt_status_t rt_ir_bind_shape(const char *where, const rt_ir_type_t *declared,
                             const rt_input_shape_t *given, int64_t *out_dims) {
  const char *name = given->name ? given->name : "(null)";
  declared = rt_ir_type_resolve((rt_ir_type_t *)declared);
  if (!declared || declared->kind != RT_IR_TYPE_TENSOR) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: input '%s' is not a tensor; its shape cannot be given",
                     where, name);
  }
  rt_strbuf_t want;
  rt_strbuf_initialize(&want);
  rt_ir_shape_print(declared->tensor.rank, declared->tensor.shape, &want);
  rt_status_t st = RT_OK;
  if (given->rank != declared->tensor.rank || (given->rank > 0 && !given->dims)) {
    st = RT_STATUS(INVALID_ARGUMENT, "%s: input '%s' is declared %s (rank %d); the shape given "
                   "has rank %d", where, name, want.data ? want.data : "", (int)declared->tensor.rank,
                   (int)given->rank);
  }
  for (int32_t d = 0; !st && d < given->rank; ++d) {
    const int64_t have = declared->tensor.shape[d], g = given->dims[d];
    if (g == -1) {
      out_dims[d] = have;
    } else if (g < 0) {
      st = RT_STATUS(INVALID_ARGUMENT, "%s: input '%s': dim %d of the shape given is %lld (a size "
                     ">= 0, or -1 to keep %s's)", where, name, (int)d, (long long)g, name);
    } else if (have != RT_DIM_ANY && have != g) {
      st = RT_STATUS(INVALID_ARGUMENT, "%s: input '%s' is declared %s; the shape given has %lld "
                     "for its static dim %d", where, name, want.data ? want.data : "",
                     (long long)g, (int)d);
    } else {
      out_dims[d] = g;
    }
  }
  rt_strbuf_deinitialize(&want);
  return st;
}

typedef struct {
  int32_t n;
  rt_ir_expr_t **from, **to; /* old parameter -> its bound replacement */
} swap_t;

static rt_status_t bind(rt_module_t *m, const rt_ir_expr_t *main_fn, int32_t count,
                        const rt_input_shape_t *shapes, rt_ir_expr_t **params, swap_t *w) {
  const int32_t np = main_fn->fn.nparams;
  memcpy(params, main_fn->fn.params, (size_t)np * sizeof *params);
  for (int32_t k = 0; k < count; ++k) {
    const char *name = shapes[k].name ? shapes[k].name : "";
    int32_t p = -1;
    for (int32_t i = 0; i < np && p < 0; ++i) {
      if (strcmp(main_fn->fn.params[i]->var.name, name) == 0) p = i;
    }
    if (p < 0) {
      rt_strbuf_t names;
      rt_strbuf_initialize(&names);
      for (int32_t i = 0; i < np; ++i) {
        rt_strbuf_printf(&names, "%s%s", i ? ", " : "", main_fn->fn.params[i]->var.name);
      }
      rt_status_t st = RT_STATUS(INVALID_ARGUMENT, "binding input shapes: @main has no input "
                                 "named '%s' (inputs: %s)", name, names.data ? names.data : "");
      rt_strbuf_deinitialize(&names);
      return st;
    }
    for (int32_t j = 0; j < w->n; ++j) {
      if (w->from[j] == main_fn->fn.params[p]) {
        return RT_STATUS(INVALID_ARGUMENT, "binding input shapes: input '%s' is given twice", name);
      }
    }
    rt_ir_expr_t *old = main_fn->fn.params[p];
    const rt_ir_type_t *declared = old->checked_type ? old->checked_type : old->var.annotation;
    int64_t dims[RT_TENSOR_MAX_RANK];
    RT_RETURN_IF_ERROR(rt_ir_bind_shape("binding input shapes", declared, &shapes[k], dims));
    const rt_ir_type_t *t = rt_ir_type_resolve((rt_ir_type_t *)declared);
    rt_ir_type_t *nt = NULL;
    rt_ir_expr_t *nv = NULL;
    RT_RETURN_IF_ERROR(rt_ir_tensor_type(m, t->tensor.dtype, t->tensor.rank, dims, &nt));
    RT_RETURN_IF_ERROR(rt_ir_var(m, old->span, old->var.name, nt, &nv));
    nv->binding = old->binding;
    params[p] = nv;
    w->from[w->n] = old;
    w->to[w->n] = nv;
    w->n++;
  }
  rt_ir_expr_t *body = NULL, *fn = NULL;
  RT_RETURN_IF_ERROR(rt_ir_substitute(m, main_fn->fn.body, w->n, w->from, w->to, &body));
  RT_RETURN_IF_ERROR(rt_ir_function(m, main_fn->span, np, params, body, NULL, main_fn->fn.attrs, &fn));
  fn->binding = main_fn->binding;
  RT_RETURN_IF_ERROR(rt_ir_module_add(m, "main", fn));
  return rt_ir_infer_types(m);
}

rt_status_t rt_module_bind_input_shapes(rt_module_t *module, int32_t count,
                                        const rt_input_shape_t *shapes, rt_module_t **out_module) {
  if (!out_module) return RT_STATUS(INVALID_ARGUMENT, "rt_module_bind_input_shapes: out_module is NULL");
  *out_module = NULL;
  if (!module || count < 0 || (count > 0 && !shapes)) {
    return RT_STATUS(INVALID_ARGUMENT, "rt_module_bind_input_shapes: NULL module or bad shapes");
  }
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(module, "main");
  if (!main_fn) return RT_STATUS(NOT_FOUND, "binding input shapes: the module has no @main");
  if (count == 0) {
    rt_module_retain(module);
    *out_module = module;
    return RT_OK;
  }
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_derive(module, &m));
  const size_t np = (size_t)main_fn->fn.nparams;
  rt_ir_expr_t **params = rt_mem_alloc((np + 1) * sizeof *params);
  swap_t w = {0, rt_mem_alloc(((size_t)count + 1) * sizeof *w.from), rt_mem_alloc(((size_t)count + 1) * sizeof *w.to)};
  rt_status_t st = params && w.from && w.to ? bind(m, main_fn, count, shapes, params, &w)
                                            : RT_STATUS(RESOURCE_EXHAUSTED, "out of memory binding input shapes");
  rt_mem_free(params);
  rt_mem_free(w.from);
  rt_mem_free(w.to);
  if (st) {
    rt_module_release(m);
    return st;
  }
  *out_module = m;
  return RT_OK;
}
