/* rt_create_executor_for_binding (include/rt/executor.h): an executor for
 * one intermediate value of @main, the way a debugger compares "the same
 * binding" across executors and opt levels.
 *
 * The binding is found by the label the model's text gave it (`%3`), which
 * passes keep on the nodes they rewrite. Only @main's own dataflow is
 * searched: the walk from main's body does not enter functions, let or if
 * scopes, so the node found uses nothing but main's parameters, constants
 * and other top-level bindings. A derived module then gets a @main with the
 * same parameters whose body is that node, and is built as any module is
 * (rt_create_executor): the pipeline at the given context optimizes just
 * what the value depends on, and the executor's outputs are its tensors. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "rt/executor.h"
#include "runtime/mem.h"

/* The node of main's top-level dataflow labelled `label`, or NULL. */
static rt_status_t find_binding(const rt_module_t *m, rt_ir_expr_t *body, const char *label,
                                rt_ir_expr_t **out) {
  *out = NULL;
  uint32_t nids = m->next_id;
  uint8_t *seen = rt_mem_calloc((size_t)nids + 1, 1);
  size_t cap = 256, n = 0;
  rt_ir_expr_t **stack = rt_mem_alloc(cap * sizeof *stack);
  rt_status_t st = (!seen || !stack) ? RT_STATUS(RESOURCE_EXHAUSTED, "out of memory") : RT_OK;
  if (!st) stack[n++] = body;
  while (!st && n > 0 && !*out) {
    rt_ir_expr_t *e = stack[--n];
    if (e->id < nids) {
      if (seen[e->id]) continue;
      seen[e->id] = 1;
    }
    if (e->binding && strcmp(e->binding, label) == 0) {
      *out = e;
      break;
    }
    if (e->kind == RT_IR_FUNCTION || e->kind == RT_IR_LET || e->kind == RT_IR_IF) continue;
    rt_ir_expr_t *kids[64];
    int32_t nk = rt_ir_children(e, kids, 64);
    rt_ir_expr_t **all = kids;
    if (nk > 64) {
      all = rt_mem_alloc((size_t)nk * sizeof *all);
      if (!all) {
        st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
        break;
      }
      rt_ir_children(e, all, nk);
    }
    if (n + (size_t)nk > cap) {
      size_t ncap = (n + (size_t)nk) * 2;
      rt_ir_expr_t **s = rt_mem_realloc(stack, ncap * sizeof *s);
      if (!s) {
        st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
      } else {
        stack = s;
        cap = ncap;
      }
    }
    for (int32_t i = 0; !st && i < nk; ++i) stack[n++] = all[i];
    if (all != kids) rt_mem_free(all);
  }
  rt_mem_free(stack);
  rt_mem_free(seen);
  return st;
}

rt_status_t rt_create_executor_for_binding(const char *kind, rt_module_t *module,
                                           const char *binding, const char *target,
                                           const rt_pass_context_t *ctx,
                                           const rt_params_t *params,
                                           rt_executor_t **out_executor) {
  if (!module || !binding || !out_executor) {
    return RT_STATUS(INVALID_ARGUMENT, "rt_create_executor_for_binding: NULL argument");
  }
  const char *label = binding[0] == '%' ? binding + 1 : binding;
  if (!*label) return RT_STATUS(INVALID_ARGUMENT, "expected a binding like %%3, got '%s'", binding);
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(module, "main");
  if (!main_fn) return RT_STATUS(NOT_FOUND, "the module has no @main");
  rt_ir_expr_t *node = NULL;
  RT_RETURN_IF_ERROR(find_binding(module, main_fn->fn.body, label, &node));
  if (!node) {
    return RT_STATUS(NOT_FOUND,
                     "@main has no binding %%%s in its own dataflow (bindings inside "
                     "functions, fused groups, let or if scopes are not cut out)",
                     label);
  }
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_derive(module, &m));
  rt_ir_expr_t *fn = NULL;
  rt_status_t st = rt_ir_function(m, main_fn->span, main_fn->fn.nparams, main_fn->fn.params, node,
                                  NULL, main_fn->fn.attrs, &fn);
  if (!st) st = rt_ir_module_add(m, "main", fn);
  if (!st) st = rt_ir_infer_types(m);
  if (!st) st = rt_create_executor(kind, m, target, ctx, params, out_executor);
  rt_module_release(m);
  if (st) st = rt_status_annotate(st, "creating a %s executor for binding %%%s", kind, label);
  return st;
}
