/* Lowering of the normalization composites (ir/op/nn.c): nn.batch_norm,
 * nn.layer_norm, nn.group_norm, nn.instance_norm, nn.l2_normalize,
 * nn.dropout and nn.lrn, and the fields of the tuple-valued ops
 * (rt_jit_op_field_elem: split, batch_norm, dropout).
 *
 * SimplifyInference normally expands these before FuseOps, so they reach
 * the JIT only when that pass is disabled; they lower directly, as
 * element expressions, so such a pipeline still runs. Semantics are
 * interp/kernels/nn.c's: each element's group (layer_norm: the elements
 * sharing every index but `axis`; instance_norm: those sharing index 0 and
 * the index along axis; group_norm: those sharing the indices before axis
 * and the channel group) is reduced inline by rt_jit_reduce_loops, first
 * to its mean, then to the mean of squared deviations (the biased
 * variance); out = (x - mean) / sqrt(var + epsilon) * gamma[c] + beta[c].
 * Everything is computed in double (the reference's precision) and
 * rounded to the output dtype once; the per-element recomputation of the
 * group statistics is O(group) per element: correct, not fast. batch_norm
 * uses the given moving statistics and returns them as fields 1 and 2;
 * dropout is the identity with an all-ones mask. lrn is topi's: x / (bias
 * + alpha / size * sum of x^2 over the window [c - size/2, c - size/2 +
 * size)) ^ beta. Axes, epsilon, center/scale, num_groups and lrn's
 * constants come from the ops' plans (rt_ir_plan_norm,
 * rt_ir_plan_l2_normalize; ir/op/plan_nn.h) on the primitive's types. */
#include <string.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"

static const rt_dtype_t kF64 = {kDLFloat, 64, 1};

static rt_jit_node_t *arg_node(rt_jit_lower_t *L, const rt_ir_expr_t *call, int32_t i) {
  return rt_jit_node(L, call->call.args[i]);
}

static LLVMValueRef f64c(rt_jit_lower_t *L, double v) { return LLVMConstReal(L->f64, v); }

static rt_status_t norm_plan(const rt_ir_expr_t *call, rt_plan_norm_t *p) {
  rt_plan_input_t in[5];
  const int32_t n = call->call.nargs < 5 ? call->call.nargs : 5;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, n, in));
  return rt_ir_plan_norm(call->call.callee->op.op, call->call.attrs, n, in, p);
}

/* Element i of a per-channel vector argument (rank 1, or any shape with
 * that many elements: read flat). */
static rt_status_t vec_elem(rt_jit_lower_t *L, const rt_ir_expr_t *call, int32_t arg, LLVMValueRef i,
                            LLVMValueRef *out) {
  rt_jit_node_t *n = arg_node(L, call, arg);
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  rt_jit_unravel(L, i, n->rank, n->dims, in);
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[arg], in, out));
  *out = rt_jit_convert(L, *out, n->dtype, kF64);
  return RT_OK;
}

/* ---- group statistics ----------------------------------------------------- */

typedef struct group_t {
  const rt_ir_expr_t *call;
  const LLVMValueRef *idx;
  int32_t rank;
  int32_t nred, dims[RT_TENSOR_MAX_RANK]; /* the reduced dims, in order */
  int32_t chan;                           /* group_norm: the channel dim (or -1) */
  LLVMValueRef chan_base;                 /* its first channel of the group */
  LLVMValueRef mean;                      /* pass 2 */
  rt_dtype_t dt;
} group_t;

static rt_status_t group_load(rt_jit_lower_t *L, group_t *g, const LLVMValueRef *red, LLVMValueRef *out) {
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  memcpy(in, g->idx, (size_t)g->rank * sizeof *in);
  for (int32_t k = 0; k < g->nred; ++k) {
    const int32_t d = g->dims[k];
    in[d] = d == g->chan ? LLVMBuildAdd(L->b, g->chan_base, red[k], "") : red[k];
  }
  RT_RETURN_IF_ERROR(rt_jit_elem(L, g->call->call.args[0], in, out));
  *out = rt_jit_convert(L, *out, g->dt, kF64);
  return RT_OK;
}

static rt_status_t sum_body(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                            const LLVMValueRef *accs, LLVMValueRef *next) {
  group_t *g = user;
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(group_load(L, g, red, &v));
  next[0] = LLVMBuildFAdd(L->b, accs[0], v, "");
  next[1] = LLVMBuildFAdd(L->b, accs[1], f64c(L, 1), "");
  return RT_OK;
}

static rt_status_t dev_body(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                            const LLVMValueRef *accs, LLVMValueRef *next) {
  group_t *g = user;
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(group_load(L, g, red, &v));
  LLVMValueRef d = LLVMBuildFSub(L->b, v, g->mean, "");
  next[0] = LLVMBuildFAdd(L->b, accs[0], LLVMBuildFMul(L->b, d, d, ""), "");
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_norm) {
  rt_jit_node_t *x = arg_node(L, call, 0), *self = rt_jit_node(L, call);
  const int32_t id = call->call.callee->op.op->id;
  rt_plan_norm_t plan;
  RT_RETURN_IF_ERROR(norm_plan(call, &plan));
  const int32_t axis = plan.axis;
  group_t g = {.call = call, .idx = idx, .rank = x->rank, .chan = -1, .dt = x->dtype};
  LLVMValueRef ext[RT_TENSOR_MAX_RANK];
  if (id == RT_OP_NN_LAYER_NORM) {
    g.dims[g.nred++] = axis;
  } else if (id == RT_OP_NN_INSTANCE_NORM) {
    for (int32_t d = 1; d < x->rank; ++d) {
      if (d != axis) g.dims[g.nred++] = d;
    }
  } else {
    const int64_t ng = plan.num_groups;
    if (!LLVMIsConstant(x->dims[axis])) {
      return RT_JIT_UNIMPLEMENTED(call, "%s", "`?` channels (the group size must be static)");
    }
    if (ng < 1 ||
        (int64_t)LLVMConstIntGetZExtValue(x->dims[axis]) % ng != 0) {
      return RT_STATUS(INVALID_ARGUMENT, "nn.group_norm: num_groups %lld does not divide the channels",
                       (long long)ng);
    }
    const int64_t per = (int64_t)LLVMConstIntGetZExtValue(x->dims[axis]) / ng;
    g.chan = axis;
    g.chan_base = LLVMBuildMul(L->b, LLVMBuildUDiv(L->b, idx[axis], rt_jit_i64(L, per), ""),
                               rt_jit_i64(L, per), "");
    for (int32_t d = axis; d < x->rank; ++d) g.dims[g.nred++] = d;
    for (int32_t k = 0; k < g.nred; ++k) ext[k] = g.dims[k] == axis ? rt_jit_i64(L, per) : x->dims[g.dims[k]];
  }
  if (id != RT_OP_NN_GROUP_NORM) {
    for (int32_t k = 0; k < g.nred; ++k) ext[k] = x->dims[g.dims[k]];
  }
  LLVMValueRef accs[2] = {f64c(L, 0), f64c(L, 0)};
  RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, g.nred, ext, 2, accs, sum_body, &g));
  LLVMValueRef count = accs[1];
  g.mean = LLVMBuildFDiv(L->b, accs[0], count, "");
  LLVMValueRef dev = f64c(L, 0);
  RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, g.nred, ext, 1, &dev, dev_body, &g));
  LLVMValueRef var = LLVMBuildFDiv(L->b, dev, count, "");
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], idx, &v));
  v = rt_jit_convert(L, v, x->dtype, kF64);
  LLVMValueRef den = rt_jit_intrinsic(
      L, "llvm.sqrt", LLVMBuildFAdd(L->b, var, f64c(L, plan.epsilon), ""), NULL, NULL);
  LLVMValueRef r = LLVMBuildFDiv(L->b, LLVMBuildFSub(L->b, v, g.mean, ""), den, "");
  if (plan.scale) {
    LLVMValueRef gm;
    RT_RETURN_IF_ERROR(vec_elem(L, call, 1, idx[axis], &gm));
    r = LLVMBuildFMul(L->b, r, gm, "");
  }
  if (plan.center) {
    LLVMValueRef bt;
    RT_RETURN_IF_ERROR(vec_elem(L, call, 2, idx[axis], &bt));
    r = LLVMBuildFAdd(L->b, r, bt, "");
  }
  *out_value = rt_jit_convert(L, r, kF64, self->dtype);
  return RT_OK;
}

/* ---- batch_norm and dropout (tuple-valued) ---------------------------------- */

static rt_status_t batch_norm_field(rt_jit_lower_t *L, const rt_ir_expr_t *call, int32_t field,
                                    const LLVMValueRef *idx, LLVMValueRef *out) {
  rt_jit_node_t *x = arg_node(L, call, 0);
  rt_jit_node_t *self = rt_jit_field_node(L, call, field);
  const rt_dtype_t odt = self ? self->dtype : x->dtype;
  if (field == 1 || field == 2) {
    /* The moving mean / variance, passed through. */
    rt_jit_node_t *s = arg_node(L, call, 2 + field);
    LLVMValueRef in[RT_TENSOR_MAX_RANK];
    rt_jit_unravel(L, idx[0], s->rank, s->dims, in);
    RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[2 + field], in, out));
    *out = rt_jit_convert(L, *out, s->dtype, odt);
    return RT_OK;
  }
  rt_plan_norm_t plan;
  RT_RETURN_IF_ERROR(norm_plan(call, &plan));
  const int32_t axis = plan.axis;
  LLVMValueRef v, mean, var;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], idx, &v));
  v = rt_jit_convert(L, v, x->dtype, kF64);
  RT_RETURN_IF_ERROR(vec_elem(L, call, 3, idx[axis], &mean));
  RT_RETURN_IF_ERROR(vec_elem(L, call, 4, idx[axis], &var));
  LLVMValueRef den = rt_jit_intrinsic(
      L, "llvm.sqrt", LLVMBuildFAdd(L->b, var, f64c(L, plan.epsilon), ""), NULL, NULL);
  LLVMValueRef r = LLVMBuildFDiv(L->b, LLVMBuildFSub(L->b, v, mean, ""), den, "");
  if (plan.scale) {
    LLVMValueRef gm;
    RT_RETURN_IF_ERROR(vec_elem(L, call, 1, idx[axis], &gm));
    r = LLVMBuildFMul(L->b, r, gm, "");
  }
  if (plan.center) {
    LLVMValueRef bt;
    RT_RETURN_IF_ERROR(vec_elem(L, call, 2, idx[axis], &bt));
    r = LLVMBuildFAdd(L->b, r, bt, "");
  }
  *out = rt_jit_convert(L, r, kF64, odt);
  return RT_OK;
}

static rt_status_t dropout_field(rt_jit_lower_t *L, const rt_ir_expr_t *call, int32_t field,
                                 const LLVMValueRef *idx, LLVMValueRef *out) {
  rt_jit_node_t *x = arg_node(L, call, 0);
  rt_jit_node_t *self = rt_jit_field_node(L, call, field);
  const rt_dtype_t odt = self ? self->dtype : x->dtype;
  if (field == 1) {
    *out = rt_jit_const_i(L, odt, 1);
    return RT_OK;
  }
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], idx, out));
  *out = rt_jit_convert(L, *out, x->dtype, odt);
  return RT_OK;
}

rt_status_t rt_jit_op_field_elem(rt_jit_lower_t *L, const rt_ir_expr_t *call, int32_t field,
                                 const LLVMValueRef *idx, LLVMValueRef *out_value) {
  if (call->kind != RT_IR_CALL || call->call.callee->kind != RT_IR_OP) {
    return RT_STATUS(UNIMPLEMENTED, "node %u: a projection of this tuple does not lower", call->id);
  }
  switch (call->call.callee->op.op->id) {
    case RT_OP_SPLIT: return rt_jit_split_field_elem(L, call, field, idx, out_value);
    case RT_OP_NN_BATCH_NORM: return batch_norm_field(L, call, field, idx, out_value);
    case RT_OP_NN_DROPOUT: return dropout_field(L, call, field, idx, out_value);
    case RT_OP_TOPK: return rt_jit_topk_field_elem(L, call, field, idx, out_value);
    default:
      return RT_JIT_UNIMPLEMENTED(call, "%s", "fields of this tuple-valued op do not lower");
  }
}

RT_JIT_ELEM_FN(rt_jit_elem_tuple_op) {
  return RT_STATUS(INTERNAL, "%s: lowered through its fields", call->call.callee->op.op->name);
}

/* ---- l2_normalize and lrn ---------------------------------------------------- */

typedef struct sq_t {
  const rt_ir_expr_t *call;
  const LLVMValueRef *idx;
  int32_t rank;
  bool reduced[RT_TENSOR_MAX_RANK];
  int32_t map[RT_TENSOR_MAX_RANK];   /* reduction loop k -> dim */
  int32_t axis;                      /* lrn */
  LLVMValueRef start, len;           /* lrn window */
  rt_dtype_t dt;
} sq_t;

static rt_status_t l2_body(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                           const LLVMValueRef *accs, LLVMValueRef *next) {
  sq_t *q = user;
  LLVMValueRef in[RT_TENSOR_MAX_RANK], v;
  for (int32_t d = 0, k = 0; d < q->rank; ++d) in[d] = q->reduced[d] ? red[k++] : q->idx[d];
  RT_RETURN_IF_ERROR(rt_jit_elem(L, q->call->call.args[0], in, &v));
  v = rt_jit_convert(L, v, q->dt, kF64);
  next[0] = LLVMBuildFAdd(L->b, accs[0], LLVMBuildFMul(L->b, v, v, ""), "");
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_l2_normalize) {
  rt_jit_node_t *x = arg_node(L, call, 0), *self = rt_jit_node(L, call);
  rt_plan_input_t in;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 1, &in));
  rt_plan_l2_normalize_t plan;
  RT_RETURN_IF_ERROR(rt_ir_plan_l2_normalize(call->call.callee->op.op, call->call.attrs, 1, &in, &plan));
  sq_t q = {.call = call, .idx = idx, .rank = x->rank, .dt = x->dtype};
  memcpy(q.reduced, plan.reduced, sizeof q.reduced);
  LLVMValueRef ext[RT_TENSOR_MAX_RANK];
  int32_t n = 0;
  for (int32_t d = 0; d < x->rank; ++d) {
    if (q.reduced[d]) ext[n++] = x->dims[d];
  }
  LLVMValueRef sum = f64c(L, 0);
  RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, n, ext, 1, &sum, l2_body, &q));
  LLVMValueRef eps = f64c(L, plan.eps);
  LLVMValueRef m = LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, LLVMRealOGT, sum, eps, ""), sum, eps, "");
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], idx, &v));
  v = rt_jit_convert(L, v, x->dtype, kF64);
  LLVMValueRef r = LLVMBuildFDiv(L->b, v, rt_jit_intrinsic(L, "llvm.sqrt", m, NULL, NULL), "");
  *out_value = rt_jit_convert(L, r, kF64, self->dtype);
  return RT_OK;
}

static rt_status_t lrn_body(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                            const LLVMValueRef *accs, LLVMValueRef *next) {
  sq_t *q = user;
  LLVMBuilderRef B = L->b;
  LLVMValueRef t = LLVMBuildAdd(B, q->start, red[0], "");
  LLVMValueRef ok = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, t, rt_jit_i64(L, 0), ""),
                                 LLVMBuildICmp(B, LLVMIntSLT, t, q->len, ""), "");
  LLVMValueRef in[RT_TENSOR_MAX_RANK], v;
  memcpy(in, q->idx, (size_t)q->rank * sizeof *in);
  in[q->axis] = LLVMBuildSelect(B, ok, t, rt_jit_i64(L, 0), "");
  RT_RETURN_IF_ERROR(rt_jit_elem(L, q->call->call.args[0], in, &v));
  v = rt_jit_convert(L, v, q->dt, kF64);
  v = LLVMBuildSelect(B, ok, LLVMBuildFMul(B, v, v, ""), f64c(L, 0), "");
  next[0] = LLVMBuildFAdd(B, accs[0], v, "");
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_lrn) {
  rt_jit_node_t *x = arg_node(L, call, 0), *self = rt_jit_node(L, call);
  rt_plan_norm_t plan;
  RT_RETURN_IF_ERROR(norm_plan(call, &plan));
  sq_t q = {.call = call, .idx = idx, .rank = x->rank, .dt = x->dtype, .axis = plan.axis};
  const int64_t size = plan.size;
  q.start = LLVMBuildSub(L->b, idx[q.axis], rt_jit_i64(L, size / 2), "");
  q.len = x->dims[q.axis];
  LLVMValueRef ext = rt_jit_i64(L, size), sum = f64c(L, 0);
  RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, 1, &ext, 1, &sum, lrn_body, &q));
  LLVMValueRef base = LLVMBuildFAdd(
      L->b, f64c(L, plan.bias),
      LLVMBuildFDiv(L->b, LLVMBuildFMul(L->b, f64c(L, plan.alpha), sum, ""),
                    f64c(L, (double)size), ""), "");
  LLVMValueRef p = rt_jit_intrinsic(L, "llvm.pow", base, f64c(L, plan.beta), NULL);
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], idx, &v));
  v = rt_jit_convert(L, v, x->dtype, kF64);
  *out_value = rt_jit_convert(L, LLVMBuildFDiv(L->b, v, p, ""), kF64, self->dtype);
  return RT_OK;
}
