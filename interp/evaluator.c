/* The reference interpreter as ir/'s constant evaluator (interp/evaluator.h):
 * an op call whose arguments are constants (or tuples of constants, for
 * concatenate and stack) becomes rt_interp_apply_op on their tensors.
 * Whether a call is worth computing is the caller's policy; this only says
 * whether it could be. As in FoldConstant, running out of memory is told
 * from the op's own errors by rt_mem_failure_count: the first fails the
 * caller, the others just leave the call uncomputed. */
#include <string.h>

#include "interp/evaluator.h"
#include "runtime/mem.h"

#define MAX_ARGS 64

/* The value of argument e (a Constant or a Tuple of Constants); *out is
 * NULL when it is neither. */
static rt_status_t arg_value(rt_allocator_t a, const rt_ir_expr_t *e, rt_interp_value_t **out) {
  *out = NULL;
  if (e->kind == RT_IR_CONSTANT) return rt_interp_value_tensor(a, e->constant.value, out);
  if (e->kind != RT_IR_TUPLE || e->tuple.count > MAX_ARGS) return RT_OK;
  for (int32_t i = 0; i < e->tuple.count; ++i) {
    if (e->tuple.fields[i]->kind != RT_IR_CONSTANT) return RT_OK;
  }
  rt_interp_value_t *fields[MAX_ARGS];
  int32_t n = 0;
  rt_status_t st = RT_OK;
  for (; n < e->tuple.count; ++n) {
    st = rt_interp_value_tensor(a, e->tuple.fields[n]->constant.value, &fields[n]);
    if (st) break;
  }
  if (!st) st = rt_interp_value_tuple(a, n, fields, out);
  for (int32_t i = 0; i < n; ++i) rt_interp_value_release(fields[i]);
  return st;
}

static rt_status_t start(rt_interp_evaluator_t *ev) {
  RT_RETURN_IF_ERROR(rt_ir_module_create(ev->allocator, &ev->scratch));
  RT_RETURN_IF_ERROR(rt_ir_infer_types(ev->scratch)); /* empty: just marks it typed */
  return rt_interp_create(ev->allocator, ev->scratch, NULL, &ev->interp);
}

static rt_status_t eval(void *self, const rt_ir_expr_t *call, rt_tensor_t **out) {
  rt_interp_evaluator_t *ev = self;
  *out = NULL;
  if (call->kind != RT_IR_CALL || call->call.callee->kind != RT_IR_OP ||
      call->call.nargs > MAX_ARGS) {
    return RT_OK;
  }
  if (!ev->interp) {
    rt_status_t st = start(ev);
    if (st) {
      rt_interp_release(ev->interp);
      rt_module_release(ev->scratch);
      ev->interp = NULL;
      ev->scratch = NULL;
      return st;
    }
  }
  rt_interp_value_t *args[MAX_ARGS];
  int32_t n = 0;
  rt_status_t st = RT_OK;
  for (; n < call->call.nargs; ++n) {
    st = arg_value(ev->allocator, call->call.args[n], &args[n]);
    if (st || !args[n]) break;
  }
  rt_interp_value_t *result = NULL;
  if (!st && n == call->call.nargs) {
    const uint64_t failures = rt_mem_failure_count();
    rt_status_t e = rt_interp_apply_op(ev->interp, call->call.callee->op.op, call->call.attrs,
                                       n, args, &result);
    if (e && rt_mem_failure_count() != failures) {
      st = e; /* out of memory is the caller's failure, not the op's */
    } else if (e) {
      rt_status_free(e); /* not computable (no kernel, a kernel error): leave it */
      result = NULL;
    }
  }
  for (int32_t i = 0; i < n; ++i) rt_interp_value_release(args[i]);
  if (result && result->kind == RT_INTERP_TENSOR) {
    rt_tensor_retain(result->tensor);
    *out = result->tensor;
  }
  if (result) rt_interp_value_release(result);
  return st;
}

void rt_interp_evaluator_init(rt_interp_evaluator_t *ev, rt_allocator_t allocator) {
  memset(ev, 0, sizeof *ev);
  ev->base.eval = eval;
  ev->base.self = ev;
  ev->allocator = allocator;
}

void rt_interp_evaluator_fini(rt_interp_evaluator_t *ev) {
  rt_interp_release(ev->interp);
  rt_module_release(ev->scratch);
  ev->interp = NULL;
  ev->scratch = NULL;
}
