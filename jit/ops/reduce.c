/* Lowering of the reductions (ir/op/reduce.c): sum, max, min, mean, prod,
 * all, any, argmax, argmin, variance.
 *
 * Algorithm: the input's axes split into kept and reduced ones as the op's
 * plan says (rt_ir_plan_reduce, ir/op/plan_reduce.h, which the reference
 * reads too: axis None = all, exclude flips, negative axes count from the
 * end). Element idx of the output maps to the kept
 * axes of the input; the reduced axes are walked by nested loops emitted
 * inline (rt_jit_reduce_loops) with the accumulator carried in phis, and
 * the operand's element expression is evaluated inside the innermost loop,
 * so an elementwise prologue (exp -> sum) fuses into the load and whatever
 * consumes the result (the epilogue) fuses into the store.
 *
 * Semantics follow the reference: integer sums/products wrap in the dtype,
 * the integer mean divides the wrapped sum (truncating), max/min propagate
 * NaN, argmax/argmin give the first extremum (or the last with
 * select_last_index) with NaN counting as the extremum. Float sums,
 * products and variances accumulate in the compute type (float for
 * float32, where the reference uses double) with reassoc+contract flags so
 * O3 can vectorize the reduction loop; max/min use llvm.maximum/minimum
 * (NaN-propagating; they order -0 below +0, which the reference's strict
 * comparison does not: equal values either way). */
#include <stdio.h>
#include <string.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"

/* The op's plan (rt_ir_plan_reduce on the checked types) and the reduced
 * axes' extents as the lowering sees them. */
typedef struct plan_t {
  rt_plan_reduce_t r;
  LLVMValueRef extents[RT_TENSOR_MAX_RANK];
} plan_t;

static rt_status_t make_plan(rt_jit_lower_t *L, const rt_ir_expr_t *call, plan_t *p) {
  rt_jit_node_t *x = rt_jit_node(L, call->call.args[0]);
  rt_plan_input_t in;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 1, &in));
  memset(p, 0, sizeof *p);
  RT_RETURN_IF_ERROR_ANNOTATE(
      rt_ir_plan_reduce(call->call.callee->op.op, call->call.attrs, 1, &in, &p->r),
      "lowering %s", call->call.callee->op.op->name);
  if (p->r.rank != x->rank) {
    return RT_STATUS(INTERNAL, "%s: input rank %d, type says %d",
                     call->call.callee->op.op->name, x->rank, p->r.rank);
  }
  for (int32_t k = 0; k < p->r.naxes; ++k) p->extents[k] = x->dims[p->r.axes[k]];
  return RT_OK;
}

RT_JIT_SHAPE_FN(rt_jit_shape_reduce) {
  plan_t p;
  RT_RETURN_IF_ERROR(make_plan(L, call, &p));
  rt_jit_node_t *x = rt_jit_node(L, call->call.args[0]);
  rt_jit_node_t *self = rt_jit_node(L, call);
  int32_t o = 0;
  for (int32_t d = 0; d < x->rank; ++d) {
    if (!p.r.reduced[d]) {
      out_dims[o++] = x->dims[d];
    } else if (p.r.keepdims) {
      out_dims[o++] = rt_jit_i64(L, 1);
    }
  }
  if (o != self->rank) {
    return RT_STATUS(INTERNAL, "%s: reduced rank %d, type says %d",
                     call->call.callee->op.op->name, o, self->rank);
  }
  return RT_OK;
}

/* Input index from the output index and the reduced loop indices. */
static void input_index(const plan_t *p, const LLVMValueRef *idx, const LLVMValueRef *red,
                        LLVMValueRef *out) {
  int32_t o = 0, r = 0;
  for (int32_t d = 0; d < p->r.rank; ++d) {
    if (p->r.reduced[d]) {
      out[d] = red[r++];
      if (p->r.keepdims) ++o;
    } else {
      out[d] = idx[o++];
    }
  }
}

typedef struct loops_t {
  int32_t n;
  const LLVMValueRef *extents;
  int32_t nacc;
  rt_jit_reduce_body_fn body;
  void *user;
  LLVMValueRef red[RT_TENSOR_MAX_RANK];
} loops_t;

static rt_status_t nest(rt_jit_lower_t *L, loops_t *s, int32_t level, LLVMValueRef *accs) {
  if (level == s->n) {
    LLVMValueRef next[RT_JIT_MAX_CARRY];
    RT_RETURN_IF_ERROR(s->body(L, s->user, s->red, accs, next));
    memcpy(accs, next, (size_t)s->nacc * sizeof *accs);
    return RT_OK;
  }
  rt_jit_loop_t loop;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), s->extents[level], s->nacc, accs, &loop);
  s->red[level] = loop.iv;
  LLVMValueRef inner[RT_JIT_MAX_CARRY];
  memcpy(inner, loop.carry, (size_t)s->nacc * sizeof *inner);
  rt_status_t st = nest(L, s, level + 1, inner);
  if (st) return st;
  rt_jit_loop_end(L, &loop, inner);
  memcpy(accs, loop.carry, (size_t)s->nacc * sizeof *accs);
  return RT_OK;
}

rt_status_t rt_jit_reduce_loops(rt_jit_lower_t *L, int32_t n, const LLVMValueRef *extents,
                                int32_t nacc, LLVMValueRef *accs, rt_jit_reduce_body_fn body,
                                void *user) {
  loops_t s = {.n = n, .extents = extents, .nacc = nacc, .body = body, .user = user};
  return nest(L, &s, 0, accs);
}

typedef struct red_t {
  const rt_ir_expr_t *call;
  const plan_t *plan;
  const LLVMValueRef *idx;
  int32_t id;
  rt_dtype_t dt;        /* input dtype */
  bool fdomain;         /* computing in f64 for an integer input (variance) */
  bool last;            /* select_last_index */
} red_t;

static rt_status_t load_input(rt_jit_lower_t *L, red_t *r, const LLVMValueRef *red,
                              LLVMValueRef *out, LLVMValueRef *in_idx) {
  input_index(r->plan, r->idx, red, in_idx);
  return rt_jit_elem(L, r->call->call.args[0], in_idx, out);
}

static rt_status_t reduce_body(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                               const LLVMValueRef *accs, LLVMValueRef *next) {
  red_t *r = user;
  LLVMValueRef in_idx[RT_TENSOR_MAX_RANK], v;
  RT_RETURN_IF_ERROR(load_input(L, r, red, &v, in_idx));
  LLVMBuilderRef B = L->b;
  const bool fl = rt_jit_is_float(r->dt);
  const bool uns = !rt_jit_is_signed(r->dt);
  LLVMValueRef acc = accs[0];
  switch (r->id) {
    case RT_OP_SUM:
    case RT_OP_MEAN:
      next[0] = fl ? rt_jit_fast(LLVMBuildFAdd(B, acc, v, "")) : LLVMBuildAdd(B, acc, v, "");
      break;
    case RT_OP_PROD:
      next[0] = fl ? rt_jit_fast(LLVMBuildFMul(B, acc, v, "")) : LLVMBuildMul(B, acc, v, "");
      break;
    case RT_OP_MAX:
    case RT_OP_MIN: {
      const bool mx = r->id == RT_OP_MAX;
      if (fl) {
        next[0] = rt_jit_intrinsic(L, mx ? "llvm.maximum" : "llvm.minimum", acc, v, NULL);
      } else {
        LLVMIntPredicate pr = mx ? (uns ? LLVMIntUGT : LLVMIntSGT) : (uns ? LLVMIntULT : LLVMIntSLT);
        next[0] = LLVMBuildSelect(B, LLVMBuildICmp(B, pr, v, acc, ""), v, acc, "");
      }
      break;
    }
    case RT_OP_ALL:
      next[0] = LLVMBuildAnd(B, acc, rt_jit_truthy(L, v, r->dt), "");
      break;
    default: /* ANY */
      next[0] = LLVMBuildOr(B, acc, rt_jit_truthy(L, v, r->dt), "");
      break;
  }
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_reduce) {
  plan_t p;
  RT_RETURN_IF_ERROR(make_plan(L, call, &p));
  rt_jit_node_t *x = rt_jit_node(L, call->call.args[0]);
  red_t r = {.call = call, .plan = &p, .idx = idx, .id = call->call.callee->op.op->id, .dt = x->dtype};
  LLVMValueRef acc;
  switch (r.id) {
    case RT_OP_SUM:
    case RT_OP_MEAN: acc = rt_jit_const_i(L, x->dtype, 0); break;
    case RT_OP_PROD: acc = rt_jit_const_i(L, x->dtype, 1); break;
    case RT_OP_MAX: acc = rt_jit_const_lowest(L, x->dtype); break;
    case RT_OP_MIN: acc = rt_jit_const_highest(L, x->dtype); break;
    case RT_OP_ALL: acc = LLVMConstInt(L->i1, 1, 0); break;
    default: acc = LLVMConstInt(L->i1, 0, 0); break;
  }
  if (rt_jit_is_bool(x->dtype) && r.id != RT_OP_ALL && r.id != RT_OP_ANY) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "bool input (only all/any reduce bools)");
  }
  RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, p.r.naxes, p.extents, 1, &acc, reduce_body, &r));
  if (r.id == RT_OP_ALL || r.id == RT_OP_ANY) {
    *out_value = rt_jit_from_bool(L, acc, rt_jit_node(L, call)->dtype);
    return RT_OK;
  }
  if (r.id == RT_OP_MEAN) {
    LLVMValueRef count = rt_jit_numel(L, p.r.naxes, p.extents);
    if (rt_jit_is_float(x->dtype)) {
      acc = LLVMBuildFDiv(L->b, acc, LLVMBuildSIToFP(L->b, count, LLVMTypeOf(acc), ""), "");
    } else {
      const bool uns = !rt_jit_is_signed(x->dtype);
      LLVMValueRef wide = uns ? LLVMBuildZExt(L->b, acc, L->i64, "") : LLVMBuildSExt(L->b, acc, L->i64, "");
      if (LLVMGetIntTypeWidth(LLVMTypeOf(acc)) == 64) wide = acc;
      LLVMValueRef zero = LLVMBuildICmp(L->b, LLVMIntEQ, count, rt_jit_i64(L, 0), "");
      LLVMValueRef safe = LLVMBuildSelect(L->b, zero, rt_jit_i64(L, 1), count, "");
      LLVMValueRef q = uns ? LLVMBuildUDiv(L->b, wide, safe, "") : LLVMBuildSDiv(L->b, wide, safe, "");
      q = LLVMBuildSelect(L->b, zero, rt_jit_i64(L, 0), q, "");
      acc = LLVMGetIntTypeWidth(LLVMTypeOf(acc)) == 64 ? q : LLVMBuildTrunc(L->b, q, LLVMTypeOf(acc), "");
    }
  }
  *out_value = acc;
  return RT_OK;
}

/* accs: best value, best flat position (i64), "nothing seen yet" (i1). */
static rt_status_t arg_body(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                            const LLVMValueRef *accs, LLVMValueRef *next) {
  red_t *r = user;
  LLVMValueRef in_idx[RT_TENSOR_MAX_RANK], v;
  RT_RETURN_IF_ERROR(load_input(L, r, red, &v, in_idx));
  LLVMBuilderRef B = L->b;
  const bool mx = r->id == RT_OP_ARGMAX;
  LLVMValueRef best = accs[0], first = accs[2];
  LLVMValueRef last = LLVMConstInt(L->i1, r->last, 0);
  LLVMValueRef take;
  if (rt_jit_is_float(r->dt)) {
    LLVMValueRef bnan = LLVMBuildFCmp(B, LLVMRealUNO, best, best, "");
    LLVMValueRef vnan = LLVMBuildFCmp(B, LLVMRealUNO, v, v, "");
    LLVMValueRef better = LLVMBuildFCmp(B, mx ? LLVMRealOGT : LLVMRealOLT, v, best, "");
    LLVMValueRef eq = LLVMBuildAnd(B, last, LLVMBuildFCmp(B, LLVMRealOEQ, v, best, ""), "");
    LLVMValueRef normal = LLVMBuildSelect(B, vnan, LLVMConstInt(L->i1, 1, 0), LLVMBuildOr(B, better, eq, ""), "");
    take = LLVMBuildSelect(B, bnan, LLVMBuildAnd(B, last, vnan, ""), normal, "");
  } else {
    const bool uns = !rt_jit_is_signed(r->dt);
    LLVMIntPredicate pr = mx ? (uns ? LLVMIntUGT : LLVMIntSGT) : (uns ? LLVMIntULT : LLVMIntSLT);
    LLVMValueRef eq = LLVMBuildAnd(B, last, LLVMBuildICmp(B, LLVMIntEQ, v, best, ""), "");
    take = LLVMBuildOr(B, LLVMBuildICmp(B, pr, v, best, ""), eq, "");
  }
  take = LLVMBuildOr(B, take, first, "");
  LLVMValueRef pos = rt_jit_linear(L, r->plan->r.naxes, red, r->plan->extents);
  next[0] = LLVMBuildSelect(B, take, v, best, "");
  next[1] = LLVMBuildSelect(B, take, pos, accs[1], "");
  next[2] = LLVMConstInt(L->i1, 0, 0);
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_argreduce) {
  plan_t p;
  RT_RETURN_IF_ERROR(make_plan(L, call, &p));
  rt_jit_node_t *x = rt_jit_node(L, call->call.args[0]);
  red_t r = {.call = call, .plan = &p, .idx = idx, .id = call->call.callee->op.op->id,
             .dt = x->dtype, .last = p.r.select_last_index};
  LLVMValueRef accs[3] = {rt_jit_const_i(L, x->dtype, 0), rt_jit_i64(L, 0), LLVMConstInt(L->i1, 1, 0)};
  RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, p.r.naxes, p.extents, 3, accs, arg_body, &r));
  *out_value = rt_jit_convert(L, accs[1], (rt_dtype_t){kDLInt, 64, 1}, rt_jit_node(L, call)->dtype);
  return RT_OK;
}

static rt_status_t var_body(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                            const LLVMValueRef *accs, LLVMValueRef *next) {
  red_t *r = user;
  LLVMValueRef in_idx[RT_TENSOR_MAX_RANK], v, m;
  RT_RETURN_IF_ERROR(load_input(L, r, red, &v, in_idx));
  RT_RETURN_IF_ERROR(rt_jit_bcast_elem(L, r->call->call.args[1], r->plan->r.rank, in_idx, &m));
  rt_jit_node_t *mn = rt_jit_node(L, r->call->call.args[1]);
  const rt_dtype_t f64 = {kDLFloat, 64, 1};
  if (r->fdomain) {
    v = rt_jit_convert(L, v, r->dt, f64);
    m = rt_jit_convert(L, m, mn->dtype, f64);
  } else if (!rt_dtype_equal(mn->dtype, r->dt)) {
    m = rt_jit_convert(L, m, mn->dtype, r->dt);
  }
  LLVMValueRef d = LLVMBuildFSub(L->b, v, m, "");
  next[0] = rt_jit_fast(LLVMBuildFAdd(L->b, accs[0], rt_jit_fast(LLVMBuildFMul(L->b, d, d, "")), ""));
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_variance) {
  plan_t p;
  RT_RETURN_IF_ERROR(make_plan(L, call, &p));
  rt_jit_node_t *x = rt_jit_node(L, call->call.args[0]);
  rt_jit_node_t *mn = rt_jit_node(L, call->call.args[1]);
  if (mn->rank > x->rank) return RT_JIT_UNIMPLEMENTED(call, "%s", "mean of higher rank than data");
  red_t r = {.call = call, .plan = &p, .idx = idx, .id = RT_OP_VARIANCE, .dt = x->dtype,
             .fdomain = !rt_jit_is_float(x->dtype)};
  const rt_dtype_t f64 = {kDLFloat, 64, 1};
  const rt_dtype_t ad = r.fdomain ? f64 : x->dtype;
  LLVMValueRef acc = rt_jit_const_f(L, ad, 0);
  RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, p.r.naxes, p.extents, 1, &acc, var_body, &r));
  LLVMValueRef count = rt_jit_numel(L, p.r.naxes, p.extents);
  if (p.r.unbiased) count = LLVMBuildSub(L->b, count, rt_jit_i64(L, 1), "");
  acc = LLVMBuildFDiv(L->b, acc, LLVMBuildSIToFP(L->b, count, LLVMTypeOf(acc), ""), "");
  *out_value = r.fdomain ? rt_jit_convert(L, acc, f64, rt_jit_node(L, call)->dtype) : acc;
  return RT_OK;
}
