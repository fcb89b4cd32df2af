/* InlineGlobals (a "graph" executor step): replaces every call of a global
 * function in @main by the callee's body with its parameters substituted,
 * so a module of helper functions runs as one dataflow graph under the
 * graph executor (docs/executors.md, "The graph executor").
 *
 * Callees are inlined innermost first (a callee's own calls are expanded
 * before it is substituted), through a DFS over the call graph; a call that
 * would recurse — a global reachable from itself — is left alone and the
 * graph executor then refuses it with its clear error. Functions other than
 * @main are kept (the VM and debug paths never run this step). */
#include <string.h>

#include "passes/pass.h"

#define MAX_DEPTH 64

typedef struct {
  rt_module_t *out;
  rt_ir_expr_t **vars;    /* substitution while expanding one call */
  rt_ir_expr_t **values;
  int32_t count;
  int32_t depth;
  const char *stack[MAX_DEPTH]; /* globals being expanded (recursion check) */
} inline_ctx;

static rt_status_t expand(inline_ctx *cx, rt_ir_expr_t *body, rt_ir_expr_t **out);

static rt_status_t substitute(void *user, rt_ir_expr_t *original, rt_ir_expr_t *rebuilt,
                              rt_ir_expr_t **out) {
  inline_ctx *cx = user;
  *out = rebuilt;
  if (original->kind == RT_IR_VAR) {
    for (int32_t i = 0; i < cx->count; ++i) {
      if (cx->vars[i] == original) *out = cx->values[i];
    }
    return RT_OK;
  }
  if (rebuilt->kind != RT_IR_CALL || rebuilt->call.callee->kind != RT_IR_GLOBAL_VAR) return RT_OK;
  const char *name = rebuilt->call.callee->global.name;
  for (int32_t d = 0; d < cx->depth; ++d) {
    if (strcmp(cx->stack[d], name) == 0) return RT_OK; /* recursion: keep the call */
  }
  rt_ir_expr_t *fn = rt_ir_module_lookup(cx->out, name);
  if (!fn || fn->fn.nparams != rebuilt->call.nargs || cx->depth == MAX_DEPTH) return RT_OK;
  /* Expand the callee's body with its params bound to the call's args. */
  inline_ctx inner = *cx;
  inner.vars = fn->fn.params;
  inner.values = rebuilt->call.args;
  inner.count = fn->fn.nparams;
  inner.stack[inner.depth++] = name;
  return expand(&inner, fn->fn.body, out);
}

static rt_status_t expand(inline_ctx *cx, rt_ir_expr_t *body, rt_ir_expr_t **out) {
  return rt_ir_mutate(cx->out, body, substitute, cx, out);
}

rt_status_t rt_pass_inline_globals(const rt_pass_env_t *env, rt_module_t *in, rt_module_t **out) {
  (void)env;
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(in, "main");
  bool calls = false;
  for (int32_t i = 0; i < in->num_globals; ++i) calls = calls || strcmp(in->globals[i].name, "main") != 0;
  if (!main_fn || !calls) {
    rt_module_retain(in);
    *out = in;
    return RT_OK;
  }
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_derive(in, &m));
  inline_ctx cx = {0};
  cx.out = m;
  cx.stack[cx.depth++] = "main";
  rt_ir_expr_t *body = NULL, *fn = NULL;
  rt_status_t st = expand(&cx, main_fn->fn.body, &body);
  if (!st && body != main_fn->fn.body) {
    st = rt_ir_function(m, main_fn->span, main_fn->fn.nparams, main_fn->fn.params, body,
                        main_fn->fn.ret_type, main_fn->fn.attrs, &fn);
    if (!st) st = rt_ir_module_add(m, "main", fn);
  }
  if (st) {
    rt_module_release(m);
    return st;
  }
  *out = m;
  return RT_OK;
}
