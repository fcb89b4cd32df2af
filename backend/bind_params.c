/* Binding params into main before any pass (TVM's create_executor took params
 * as run-time inputs, so FoldConstant and the other passes that need
 * constants never saw them), and the build pipeline entry point rt_build.
 * Binding works on a derived module: the caller's module is never
 * modified. */
#include <string.h>

#include "backend/backend.h"
#include "passes/pass.h"
#include "runtime/strbuf.h"

typedef struct {
  rt_ir_expr_t **vars;
  rt_ir_expr_t **consts;
  int32_t count;
} subst_ctx;

static rt_status_t substitute(void *user, rt_ir_expr_t *original, rt_ir_expr_t *rebuilt,
                              rt_ir_expr_t **out) {
  subst_ctx *s = user;
  *out = rebuilt;
  if (original->kind != RT_IR_VAR) return RT_OK;
  for (int32_t i = 0; i < s->count; ++i) {
    if (s->vars[i] == original) {
      *out = s->consts[i];
      break;
    }
  }
  return RT_OK;
}

bool rt_backend_tensor_fits(const rt_tensor_t *t, const rt_ir_type_t *ty) {
  ty = rt_ir_type_resolve((rt_ir_type_t *)ty);
  if (!ty || ty->kind != RT_IR_TYPE_TENSOR) return false;
  if (!rt_dtype_equal(ty->tensor.dtype, rt_tensor_dtype(t))) return false;
  if (ty->tensor.rank != rt_tensor_rank(t)) return false;
  for (int32_t i = 0; i < ty->tensor.rank; ++i) {
    if (ty->tensor.shape[i] != RT_DIM_ANY && ty->tensor.shape[i] != rt_tensor_shape(t)[i]) {
      return false;
    }
  }
  return true;
}

void rt_backend_describe_tensor(const rt_tensor_t *t, rt_strbuf_t *b) {
  char dn[RT_DTYPE_NAME_MAX];
  if (rt_tensor_rank(t) == 0) {
    rt_strbuf_puts(b, rt_dtype_name(rt_tensor_dtype(t), dn));
    return;
  }
  rt_strbuf_puts(b, "Tensor[");
  rt_ir_shape_print(rt_tensor_rank(t), rt_tensor_shape(t), b);
  rt_strbuf_printf(b, ", %s]", rt_dtype_name(rt_tensor_dtype(t), dn));
}

/* Both bindings: `keep` leaves the bound parameters in main's signature
 * (unused), so its remaining parameters keep their positions. */
static rt_status_t bind(rt_module_t *module, const rt_params_t *params, bool keep,
                        rt_module_t **out_module) {
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(module, "main");
  if (!main_fn) return RT_STATUS(NOT_FOUND, "the module has no @main");
  int32_t np = params ? rt_params_count(params) : 0;
  if (np == 0) {
    rt_module_retain(module);
    *out_module = module;
    return RT_OK;
  }
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_derive(module, &m));
  rt_status_t st = RT_OK;
  int32_t nfp = main_fn->fn.nparams;
  rt_ir_expr_t **vars = NULL, **consts = NULL, **kept = NULL;
  void *p = NULL;
  st = rt_arena_alloc_array(&m->arena, (size_t)np * 2 + (size_t)nfp + 1, sizeof(rt_ir_expr_t *), &p);
  if (!st) {
    vars = p;
    consts = vars + np;
    kept = consts + np;
  }
  int32_t nbound = 0;
  for (int32_t i = 0; !st && i < np; ++i) {
    const char *name = rt_params_name(params, i);
    rt_tensor_t *t = rt_params_tensor(params, i);
    rt_ir_expr_t *var = NULL;
    for (int32_t k = 0; k < nfp; ++k) {
      if (strcmp(main_fn->fn.params[k]->var.name, name) == 0) var = main_fn->fn.params[k];
    }
    if (!var) {
      rt_strbuf_t b;
      rt_strbuf_initialize(&b);
      for (int32_t k = 0; k < nfp; ++k) {
        rt_strbuf_printf(&b, "%s%s", k ? ", " : "", main_fn->fn.params[k]->var.name);
      }
      st = RT_STATUS(INVALID_ARGUMENT, "param '%s' is not a parameter of @main (its parameters: %s)",
                     name, b.data ? b.data : "none");
      rt_strbuf_deinitialize(&b);
      break;
    }
    rt_ir_type_t *ty = var->checked_type ? var->checked_type : var->var.annotation;
    if (!rt_backend_tensor_fits(t, ty)) {
      rt_strbuf_t want, got;
      rt_strbuf_initialize(&want);
      rt_strbuf_initialize(&got);
      rt_ir_type_print(ty, &want);
      rt_backend_describe_tensor(t, &got);
      st = RT_STATUS(INVALID_ARGUMENT, "param '%s': @main expects %s, the params give %s", name,
                     want.data ? want.data : "", got.data ? got.data : "");
      rt_strbuf_deinitialize(&want);
      rt_strbuf_deinitialize(&got);
      break;
    }
    vars[nbound] = var;
    st = rt_ir_constant(m, var->span, t, &consts[nbound]);
    nbound++;
  }
  rt_ir_expr_t *body = NULL, *fn = NULL;
  if (!st) {
    subst_ctx s = {vars, consts, nbound};
    st = rt_ir_mutate(m, main_fn->fn.body, substitute, &s, &body);
  }
  int32_t nkept = 0;
  if (!st) {
    for (int32_t k = 0; k < nfp; ++k) {
      bool bound = false;
      for (int32_t i = 0; i < nbound; ++i) bound = bound || vars[i] == main_fn->fn.params[k];
      if (keep || !bound) kept[nkept++] = main_fn->fn.params[k];
    }
    st = rt_ir_function(m, main_fn->span, nkept, kept, body, main_fn->fn.ret_type,
                        main_fn->fn.attrs, &fn);
  }
  if (!st) st = rt_ir_module_add(m, "main", fn);
  if (!st) st = rt_ir_infer_types(m);
  if (st) {
    rt_module_release(m);
    return st;
  }
  *out_module = m;
  return RT_OK;
}

rt_status_t rt_backend_bind_params(rt_module_t *module, const rt_params_t *params,
                                   rt_module_t **out_module) {
  return bind(module, params, false, out_module);
}

rt_status_t rt_backend_bind_values(rt_module_t *module, const rt_params_t *params,
                                   rt_module_t **out_module) {
  return bind(module, params, true, out_module);
}

rt_status_t rt_build(rt_module_t *module, const rt_pass_context_t *ctx, const char *executor,
                     rt_module_t **out_module, rt_module_t **out_shared) {
  return rt_pass_run_pipeline(module, ctx, executor, out_module, out_shared);
}
