/* Lowering of the data-movement and creation ops (ir/op/transform.c) as
 * index maps: each op turns the output multi-index into its operand's
 * index and asks for that element (rt_jit_elem), so chains such as
 * reshape -> transpose -> add fuse into one loop nest with no copies.
 *
 * Index semantics are interp/kernels/transform.c's (TVM's), and both read
 * the same plans (ir/op/plan_transform.h: transpose, split, strided_slice,
 * take, gather, nn.pad, layout_transform, depth/space moves) computed on
 * the checked types; the other ops read their typed attributes. Reshapes
 * keep row-major order (linearize in the output dims, unravel in the input
 * dims); strided_slice canonicalizes begin/end as topi does; take clips,
 * wraps or (mode=fast) reports out-of-range indices; gather reports
 * indices outside [0, n); pad's reflect is numpy's. Out-of-range indices
 * are clamped before the load so a bad index never reads out of bounds:
 * the kernel then fails with the op's message (rt_jit_flag_error).
 * Branches (concatenate, stack) use if/else chains joined by phis, so only
 * the selected operand's expression runs; a nest that covers one input's
 * slab of a concatenate reads that input directly (lower.c's pin). Shapes are static unless a
 * shape function says otherwise (transpose maps `?` dims). */
#include <stdio.h>
#include <string.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"

/* A plan's error (a plain message) annotated with the op lowered. */
static rt_status_t plan_status(const rt_ir_expr_t *call, rt_status_t st) {
  return st ? rt_status_annotate(st, "lowering %s", call->call.callee->op.op->name) : RT_OK;
}

static rt_jit_node_t *arg_node(rt_jit_lower_t *L, const rt_ir_expr_t *call, int32_t i) {
  return rt_jit_node(L, call->call.args[i]);
}

/* ---- reshapes ----------------------------------------------------------- */

RT_JIT_ELEM_FN(rt_jit_elem_reshape) {
  rt_jit_node_t *self = rt_jit_node(L, call), *x = arg_node(L, call, 0);
  LLVMValueRef flat = rt_jit_linear(L, self->rank, idx, self->dims);
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  rt_jit_unravel(L, flat, x->rank, x->dims, in);
  return rt_jit_elem(L, call->call.args[0], in, out_value);
}

static rt_status_t transpose_plan(const rt_ir_expr_t *call, rt_plan_transpose_t *p) {
  rt_plan_input_t in;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 1, &in));
  return plan_status(call, rt_ir_plan_transpose(call->call.attrs, 1, &in, p));
}

RT_JIT_SHAPE_FN(rt_jit_shape_transpose) {
  rt_jit_node_t *x = arg_node(L, call, 0);
  rt_plan_transpose_t p;
  RT_RETURN_IF_ERROR(transpose_plan(call, &p));
  for (int32_t k = 0; k < x->rank; ++k) out_dims[k] = x->dims[p.perm[k]];
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_transpose) {
  rt_jit_node_t *x = arg_node(L, call, 0);
  rt_plan_transpose_t p;
  RT_RETURN_IF_ERROR(transpose_plan(call, &p));
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  for (int32_t k = 0; k < x->rank; ++k) in[p.perm[k]] = idx[k];
  return rt_jit_elem(L, call->call.args[0], in, out_value);
}

/* ---- joins and splits --------------------------------------------------- */

static rt_status_t concat_from(rt_jit_lower_t *L, const rt_ir_expr_t *tup, int32_t axis,
                               int32_t k, LLVMValueRef off, const LLVMValueRef *idx,
                               int32_t rank, LLVMValueRef *out) {
  rt_jit_node_t *n = rt_jit_field_node(L, tup, k);
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  memcpy(in, idx, (size_t)rank * sizeof *in);
  in[axis] = LLVMBuildSub(L->b, idx[axis], off, "");
  if (k == rt_jit_tuple_count(tup) - 1) return rt_jit_field_elem(L, tup, k, in, out);
  LLVMValueRef end = LLVMBuildAdd(L->b, off, n->dims[axis], "");
  rt_jit_if_t s;
  rt_jit_if_begin(L, LLVMBuildICmp(L->b, LLVMIntSLT, idx[axis], end, ""), &s);
  LLVMValueRef a, b;
  RT_RETURN_IF_ERROR(rt_jit_field_elem(L, tup, k, in, &a));
  rt_jit_if_else(L, &s, a);
  RT_RETURN_IF_ERROR(concat_from(L, tup, axis, k + 1, end, idx, rank, &b));
  *out = rt_jit_if_end(L, &s, b);
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_concatenate) {
  const rt_ir_expr_t *tup = call->call.args[0];
  if (rt_jit_tuple_count(tup) == 0 || !rt_jit_field_node(L, tup, 0)) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "the input must be a tuple built in the group or a tuple param");
  }
  rt_jit_node_t *self = rt_jit_node(L, call);
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_jit_axis(call, rt_ir_attrs_concatenate(call->call.attrs).axis, self->rank, &axis));
  if (L->pin.concat == call && L->pin.index == idx[axis] && L->pin.input < 0) {
    /* The input chosen at run time (lower.c, emit_slab_loop): in memory,
     * of field 0's dtype, its dims the output's but pin.len on the axis. */
    const rt_jit_node_t *f0 = rt_jit_field_node(L, tup, 0);
    LLVMValueRef in[RT_TENSOR_MAX_RANK], dims[RT_TENSOR_MAX_RANK];
    memcpy(in, idx, (size_t)self->rank * sizeof *in);
    memcpy(dims, self->dims, (size_t)self->rank * sizeof *dims);
    in[axis] = LLVMBuildSub(L->b, idx[axis], L->pin.off, "");
    dims[axis] = L->pin.len;
    LLVMTypeRef st = rt_jit_storage_type(L, f0->dtype);
    LLVMValueRef lin = rt_jit_linear(L, self->rank, in, dims);
    LLVMValueRef v = LLVMBuildLoad2(L->b, st, LLVMBuildGEP2(L->b, st, L->pin.base, &lin, 1, ""), "");
    LLVMSetAlignment(v, (unsigned)rt_dtype_size(f0->dtype));
    *out_value = rt_jit_from_storage(L, v, f0->dtype);
    return RT_OK;
  }
  if (L->pin.concat == call && L->pin.index == idx[axis]) {
    /* The loop nest runs over input pin.input's slab only (lower.c). */
    LLVMValueRef off = rt_jit_i64(L, 0);
    for (int32_t k = 0; k < L->pin.input; ++k) {
      off = LLVMBuildAdd(L->b, off, rt_jit_field_node(L, tup, k)->dims[axis], "");
    }
    LLVMValueRef in[RT_TENSOR_MAX_RANK];
    memcpy(in, idx, (size_t)self->rank * sizeof *in);
    in[axis] = LLVMBuildSub(L->b, idx[axis], off, "");
    return rt_jit_field_elem(L, tup, L->pin.input, in, out_value);
  }
  return concat_from(L, tup, axis, 0, rt_jit_i64(L, 0), idx, self->rank, out_value);
}

static rt_status_t stack_from(rt_jit_lower_t *L, const rt_ir_expr_t *tup, int32_t axis,
                              int32_t k, const LLVMValueRef *in, LLVMValueRef sel,
                              LLVMValueRef *out) {
  if (k == rt_jit_tuple_count(tup) - 1) return rt_jit_field_elem(L, tup, k, in, out);
  rt_jit_if_t s;
  rt_jit_if_begin(L, LLVMBuildICmp(L->b, LLVMIntEQ, sel, rt_jit_i64(L, k), ""), &s);
  LLVMValueRef a, b;
  RT_RETURN_IF_ERROR(rt_jit_field_elem(L, tup, k, in, &a));
  rt_jit_if_else(L, &s, a);
  RT_RETURN_IF_ERROR(stack_from(L, tup, axis, k + 1, in, sel, &b));
  *out = rt_jit_if_end(L, &s, b);
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_stack) {
  const rt_ir_expr_t *tup = call->call.args[0];
  if (rt_jit_tuple_count(tup) == 0 || !rt_jit_field_node(L, tup, 0)) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "the input must be a tuple built in the group or a tuple param");
  }
  rt_jit_node_t *self = rt_jit_node(L, call);
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_jit_axis(call, rt_ir_attrs_stack(call->call.attrs).axis, self->rank, &axis));
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  for (int32_t d = 0, e = 0; d < self->rank; ++d) {
    if (d != axis) in[e++] = idx[d];
  }
  return stack_from(L, tup, axis, 0, in, idx[axis], out_value);
}

RT_JIT_ELEM_FN(rt_jit_elem_split) {
  return RT_STATUS(INTERNAL, "%s", "split is lowered through its projections");
}

/* Field `field` of split(x): x read at an offset along the axis. */
rt_status_t rt_jit_split_field_elem(rt_jit_lower_t *L, const rt_ir_expr_t *split,
                                    int32_t field, const LLVMValueRef *idx,
                                    LLVMValueRef *out_value) {
  rt_jit_node_t *x = arg_node(L, split, 0);
  rt_plan_input_t pin;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(split, 1, &pin));
  rt_plan_split_t p;
  RT_RETURN_IF_ERROR(plan_status(split, rt_ir_plan_split(split->call.attrs, 1, &pin, &p)));
  const int32_t axis = p.axis;
  LLVMValueRef begin;
  if (p.sections > 0) {
    LLVMValueRef size = LLVMBuildUDiv(L->b, x->dims[axis], rt_jit_i64(L, p.sections), "");
    begin = LLVMBuildMul(L->b, size, rt_jit_i64(L, field), "");
  } else {
    int64_t b, extent;
    rt_ir_plan_split_piece(&p, pin.shape[axis], field, &b, &extent);
    begin = rt_jit_i64(L, b);
  }
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  memcpy(in, idx, (size_t)x->rank * sizeof *in);
  in[axis] = LLVMBuildAdd(L->b, idx[axis], begin, "");
  return rt_jit_elem(L, split->call.args[0], in, out_value);
}

/* ---- slices ------------------------------------------------------------- */

/* The plan (rt_ir_plan_strided_slice on the checked type) gives each
 * dim's first source index and stride. */
RT_JIT_ELEM_FN(rt_jit_elem_strided_slice) {
  rt_jit_node_t *x = arg_node(L, call, 0);
  const int32_t rank = x->rank;
  for (int32_t d = 0; d < rank; ++d) {
    if (!LLVMIsConstant(x->dims[d])) {
      return RT_JIT_UNIMPLEMENTED(call, "%s", "`?` dims in the input");
    }
  }
  rt_plan_input_t in = {.value = NULL};
  RT_RETURN_IF_ERROR(rt_jit_tensor_type(call->call.args[0], &in.dtype, &in.rank, &in.shape));
  rt_plan_strided_slice_t p;
  RT_RETURN_IF_ERROR(plan_status(call, rt_ir_plan_strided_slice(call->call.attrs, 1, &in, &p)));
  if (p.rank != rank) return RT_STATUS(INTERNAL, "%s", "strided_slice: the plan's rank differs");
  LLVMValueRef in_idx[RT_TENSOR_MAX_RANK];
  for (int32_t d = 0; d < rank; ++d) {
    in_idx[d] = LLVMBuildAdd(L->b, rt_jit_i64(L, p.begin[d]),
                             LLVMBuildMul(L->b, idx[d], rt_jit_i64(L, p.stride[d]), ""), "");
  }
  return rt_jit_elem(L, call->call.args[0], in_idx, out_value);
}

/* ---- gathers ------------------------------------------------------------ */

/* The index value as i64 (sign- or zero-extended). */
static LLVMValueRef index_i64(rt_jit_lower_t *L, LLVMValueRef v, rt_dtype_t d) {
  if (rt_jit_is_float(d)) return rt_jit_convert(L, v, d, (rt_dtype_t){kDLInt, 64, 1});
  if (LLVMGetIntTypeWidth(LLVMTypeOf(v)) == 64) return v;
  return rt_jit_is_signed(d) ? LLVMBuildSExt(L->b, v, L->i64, "") : LLVMBuildZExt(L->b, v, L->i64, "");
}

static LLVMValueRef clamp(rt_jit_lower_t *L, LLVMValueRef v, LLVMValueRef n) {
  LLVMValueRef hi = rt_jit_max(L, LLVMBuildSub(L->b, n, rt_jit_i64(L, 1), ""), rt_jit_i64(L, 0));
  return rt_jit_min(L, rt_jit_max(L, v, rt_jit_i64(L, 0)), hi);
}

RT_JIT_ELEM_FN(rt_jit_elem_take) {
  rt_jit_node_t *x = arg_node(L, call, 0), *ind = arg_node(L, call, 1);
  rt_plan_input_t pin[2];
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 2, pin));
  rt_plan_take_t p;
  RT_RETURN_IF_ERROR(plan_status(call, rt_ir_plan_take(call->call.attrs, 2, pin, &p)));
  const bool flat = p.flat;
  const int32_t axis = p.axis, bd = p.batch_dims;
  const int32_t nidx = ind->rank - bd;
  LLVMValueRef flat_n = rt_jit_numel(L, x->rank, x->dims);
  LLVMValueRef n = flat ? flat_n : x->dims[axis];
  /* The index's index: the batch dims, then the dims placed at axis. */
  LLVMValueRef ii[RT_TENSOR_MAX_RANK];
  for (int32_t d = 0; d < bd; ++d) ii[d] = idx[d];
  for (int32_t d = 0; d < nidx; ++d) ii[bd + d] = idx[axis + d];
  LLVMValueRef iv;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[1], ii, &iv));
  LLVMValueRef v = index_i64(L, iv, ind->dtype);
  LLVMValueRef empty = LLVMBuildICmp(L->b, LLVMIntEQ, n, rt_jit_i64(L, 0), "");
  if (p.mode == RT_TAKE_WRAP) {
    LLVMValueRef safe = LLVMBuildSelect(L->b, empty, rt_jit_i64(L, 1), n, "");
    LLVMValueRef r = LLVMBuildSRem(L->b, v, safe, "");
    v = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, r, rt_jit_i64(L, 0), ""),
                        LLVMBuildAdd(L->b, r, safe, ""), r, "");
    rt_jit_flag_error(L, empty, "take: index into an empty axis");
  } else if (p.mode == RT_TAKE_FAST) {
    LLVMValueRef bad = LLVMBuildOr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, v, LLVMBuildNeg(L->b, n, ""), ""),
                                   LLVMBuildICmp(L->b, LLVMIntSGE, v, n, ""), "");
    rt_jit_flag_error(L, bad, "take: index out of range");
    v = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, v, rt_jit_i64(L, 0), ""),
                        LLVMBuildAdd(L->b, v, n, ""), v, "");
  } else {
    rt_jit_flag_error(L, empty, "take: index into an empty axis");
  }
  v = clamp(L, v, n);
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  if (flat) {
    rt_jit_unravel(L, v, x->rank, x->dims, in);
  } else {
    for (int32_t d = 0; d < axis; ++d) in[d] = idx[d];
    in[axis] = v;
    for (int32_t d = axis + 1; d < x->rank; ++d) in[d] = idx[d - 1 + nidx];
  }
  return rt_jit_elem(L, call->call.args[0], in, out_value);
}

RT_JIT_ELEM_FN(rt_jit_elem_gather) {
  rt_jit_node_t *x = arg_node(L, call, 0), *ind = arg_node(L, call, 1);
  rt_plan_input_t pin[2];
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 2, pin));
  rt_plan_gather_t p;
  RT_RETURN_IF_ERROR(plan_status(call, rt_ir_plan_gather(call->call.attrs, 2, pin, &p)));
  if (ind->rank != x->rank) {
    return RT_STATUS(INTERNAL, "%s", "gather: indices of another rank than data's");
  }
  const int32_t axis = p.axis;
  LLVMValueRef iv;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[1], idx, &iv));
  LLVMValueRef v = index_i64(L, iv, ind->dtype);
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  LLVMValueRef bad = LLVMBuildOr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, v, rt_jit_i64(L, 0), ""),
                                 LLVMBuildICmp(L->b, LLVMIntSGE, v, x->dims[axis], ""), "");
  for (int32_t d = 0; d < x->rank; ++d) {
    if (d == axis) continue;
    bad = LLVMBuildOr(L->b, bad, LLVMBuildICmp(L->b, LLVMIntSGE, idx[d], x->dims[d], ""), "");
    in[d] = clamp(L, idx[d], x->dims[d]);
  }
  rt_jit_flag_error(L, bad, "gather: index out of range");
  in[axis] = clamp(L, v, x->dims[axis]);
  return rt_jit_elem(L, call->call.args[0], in, out_value);
}

/* ---- repeats ------------------------------------------------------------ */

RT_JIT_ELEM_FN(rt_jit_elem_broadcast_to) {
  return rt_jit_bcast_elem(L, call->call.args[0], rt_jit_node(L, call)->rank, idx, out_value);
}

RT_JIT_ELEM_FN(rt_jit_elem_tile) {
  rt_jit_node_t *x = arg_node(L, call, 0), *self = rt_jit_node(L, call);
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  for (int32_t j = 0; j < x->rank; ++j) {
    in[j] = LLVMBuildURem(L->b, idx[j + self->rank - x->rank], x->dims[j], "");
  }
  return rt_jit_elem(L, call->call.args[0], in, out_value);
}

RT_JIT_ELEM_FN(rt_jit_elem_repeat) {
  rt_jit_node_t *x = arg_node(L, call, 0);
  const rt_attrs_repeat_t a = rt_ir_attrs_repeat(call->call.attrs);
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_jit_axis(call, a.axis, x->rank, &axis));
  int64_t r = a.repeats;
  if (r <= 0) return RT_JIT_UNIMPLEMENTED(call, "%s", "repeats must be positive");
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  memcpy(in, idx, (size_t)x->rank * sizeof *in);
  in[axis] = LLVMBuildUDiv(L->b, idx[axis], rt_jit_i64(L, r), "");
  return rt_jit_elem(L, call->call.args[0], in, out_value);
}

RT_JIT_ELEM_FN(rt_jit_elem_reverse) {
  rt_jit_node_t *x = arg_node(L, call, 0);
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_jit_axis(call, rt_ir_attrs_reverse(call->call.attrs).axis, x->rank, &axis));
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  memcpy(in, idx, (size_t)x->rank * sizeof *in);
  in[axis] = LLVMBuildSub(L->b, LLVMBuildSub(L->b, x->dims[axis], rt_jit_i64(L, 1), ""), idx[axis], "");
  return rt_jit_elem(L, call->call.args[0], in, out_value);
}

RT_JIT_ELEM_FN(rt_jit_elem_pad) {
  rt_jit_node_t *x = arg_node(L, call, 0);
  rt_plan_input_t pin[2];
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 2, pin));
  rt_plan_pad_t plan;
  RT_RETURN_IF_ERROR(plan_status(call, rt_ir_plan_pad(call->call.attrs, 2, pin, &plan)));
  const bool edge = plan.mode == RT_PAD_EDGE, reflect = plan.mode == RT_PAD_REFLECT;
  if (plan.rank != x->rank) return RT_STATUS(INTERNAL, "%s", "nn.pad: the plan's rank differs");
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  LLVMValueRef inside = LLVMConstInt(L->i1, 1, 0);
  for (int32_t d = 0; d < x->rank; ++d) {
    const int64_t before = plan.before[d], after = plan.after[d];
    LLVMValueRef n = x->dims[d];
    LLVMValueRef j = LLVMBuildSub(L->b, idx[d], rt_jit_i64(L, before), "");
    if (reflect) {
      /* One reflection suffices when the pads are shorter than the axis. */
      if (!LLVMIsConstant(n) || (int64_t)LLVMConstIntGetZExtValue(n) <= (before > after ? before : after)) {
        return RT_JIT_UNIMPLEMENTED(call, "%s", "reflect pads as long as the axis");
      }
      LLVMValueRef last2 = LLVMBuildMul(L->b, LLVMBuildSub(L->b, n, rt_jit_i64(L, 1), ""), rt_jit_i64(L, 2), "");
      j = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, j, rt_jit_i64(L, 0), ""),
                          LLVMBuildNeg(L->b, j, ""), j, "");
      j = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSGE, j, n, ""), LLVMBuildSub(L->b, last2, j, ""), j, "");
    } else if (!edge) {
      LLVMValueRef ok = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntSGE, j, rt_jit_i64(L, 0), ""),
                                     LLVMBuildICmp(L->b, LLVMIntSLT, j, n, ""), "");
      inside = LLVMBuildAnd(L->b, inside, ok, "");
    }
    in[d] = clamp(L, j, n);
  }
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], in, &v));
  if (edge || reflect) {
    *out_value = v;
    return RT_OK;
  }
  rt_jit_node_t *pv = arg_node(L, call, 1);
  LLVMValueRef zeros[RT_TENSOR_MAX_RANK], p;
  for (int32_t k = 0; k < pv->rank; ++k) zeros[k] = rt_jit_i64(L, 0);
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[1], zeros, &p));
  p = rt_jit_convert(L, p, pv->dtype, x->dtype);
  *out_value = LLVMBuildSelect(L->b, inside, v, p, "");
  return RT_OK;
}

/* ---- creation ----------------------------------------------------------- */

RT_JIT_ELEM_FN(rt_jit_elem_init) {
  rt_jit_node_t *self = rt_jit_node(L, call);
  switch (call->call.callee->op.op->id) {
    case RT_OP_ZEROS: *out_value = rt_jit_const_i(L, self->dtype, 0); return RT_OK;
    case RT_OP_ONES: *out_value = rt_jit_const_i(L, self->dtype, 1); return RT_OK;
    default: break;
  }
  rt_jit_node_t *f = arg_node(L, call, 0);
  LLVMValueRef zeros[RT_TENSOR_MAX_RANK], v;
  for (int32_t k = 0; k < f->rank; ++k) zeros[k] = rt_jit_i64(L, 0);
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], zeros, &v));
  *out_value = rt_jit_convert(L, v, f->dtype, self->dtype);
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_one_hot) {
  rt_jit_node_t *self = rt_jit_node(L, call), *ind = arg_node(L, call, 0);
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_jit_axis(call, rt_ir_attrs_one_hot(call->call.attrs).axis, self->rank, &axis));
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  for (int32_t d = 0, e = 0; d < self->rank; ++d) {
    if (d != axis) in[e++] = idx[d];
  }
  LLVMValueRef iv, on, off, zeros[RT_TENSOR_MAX_RANK];
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], in, &iv));
  rt_jit_node_t *non = arg_node(L, call, 1), *noff = arg_node(L, call, 2);
  for (int32_t k = 0; k < RT_TENSOR_MAX_RANK; ++k) zeros[k] = rt_jit_i64(L, 0);
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[1], zeros, &on));
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[2], zeros, &off));
  on = rt_jit_convert(L, on, non->dtype, self->dtype);
  off = rt_jit_convert(L, off, noff->dtype, self->dtype);
  LLVMValueRef hot = LLVMBuildICmp(L->b, LLVMIntEQ, index_i64(L, iv, ind->dtype), idx[axis], "");
  *out_value = LLVMBuildSelect(L->b, hot, on, off, "");
  return RT_OK;
}

/* ---- gather_nd, layout_transform, depth/space moves --------------------- */

/* gather_nd (TVM's): indices (M, J...) index axes batch_dims ..
 * batch_dims + M of data; the output is (J..., remaining data dims), the
 * first batch_dims of J being data's leading (batch) axes. */
RT_JIT_ELEM_FN(rt_jit_elem_gather_nd) {
  rt_jit_node_t *x = arg_node(L, call, 0), *ind = arg_node(L, call, 1);
  const int64_t bd = rt_ir_attrs_gather_nd(call->call.attrs).batch_dims;
  if (ind->rank < 1 || !LLVMIsConstant(ind->dims[0])) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "needs indices of rank >= 1 with a static first dim");
  }
  const int64_t m = (int64_t)LLVMConstIntGetZExtValue(ind->dims[0]);
  if (bd < 0 || bd + m > x->rank) {
    return RT_STATUS(INVALID_ARGUMENT, "gather_nd: %lld index dims and batch_dims %lld exceed rank %d",
                     (long long)m, (long long)bd, x->rank);
  }
  const int32_t jrank = ind->rank - 1;
  LLVMValueRef ii[RT_TENSOR_MAX_RANK], in[RT_TENSOR_MAX_RANK];
  for (int32_t d = 0; d < jrank; ++d) ii[1 + d] = idx[d];
  for (int64_t d = 0; d < bd; ++d) in[d] = idx[d];
  LLVMValueRef bad = LLVMConstInt(L->i1, 0, 0);
  for (int64_t k = 0; k < m; ++k) {
    ii[0] = rt_jit_i64(L, k);
    LLVMValueRef iv;
    RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[1], ii, &iv));
    LLVMValueRef v = index_i64(L, iv, ind->dtype);
    LLVMValueRef n = x->dims[bd + k];
    bad = LLVMBuildOr(L->b, bad, LLVMBuildOr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, v, rt_jit_i64(L, 0), ""),
                                             LLVMBuildICmp(L->b, LLVMIntSGE, v, n, ""), ""), "");
    in[bd + k] = clamp(L, v, n);
  }
  rt_jit_flag_error(L, bad, "gather_nd: index out of range");
  for (int64_t d = bd + m; d < x->rank; ++d) in[d] = idx[jrank + (d - bd - m)];
  return rt_jit_elem(L, call->call.args[0], in, out_value);
}

/* For each source axis, the logical coordinate of its primal axis from the
 * destination index, then the source index (outer part or inner part);
 * coordinates past the source extent (a padded split) read as 0. The plan
 * (rt_ir_plan_layout_transform) says which axes hold what. */
RT_JIT_ELEM_FN(rt_jit_elem_layout_transform) {
  rt_jit_node_t *x = arg_node(L, call, 0), *self = rt_jit_node(L, call);
  rt_plan_input_t pin;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 1, &pin));
  rt_plan_layout_transform_t p;
  RT_RETURN_IF_ERROR(plan_status(call, rt_ir_plan_layout_transform(call->call.attrs, 1, &pin, &p)));
  if (p.src_rank != x->rank || p.dst_rank != self->rank) {
    return RT_STATUS(INTERNAL, "%s", "layout_transform: layouts do not fit the tensors' ranks");
  }
  LLVMBuilderRef B = L->b;
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  LLVMValueRef inside = LLVMConstInt(L->i1, 1, 0);
  for (int32_t k = 0; k < p.src_rank; ++k) {
    const int32_t ds = p.dst_split[k];
    LLVMValueRef coord = idx[p.dst_primal[k]];
    if (ds >= 0) {
      coord = LLVMBuildAdd(B, LLVMBuildMul(B, coord, rt_jit_i64(L, p.dst_inner[k]), ""), idx[ds], "");
    }
    LLVMValueRef extent = x->dims[p.src_primal[k]];
    if (p.src_inner[k] != 1) extent = LLVMBuildMul(B, extent, rt_jit_i64(L, p.src_inner[k]), "");
    if (p.src_factor[k] == 0) {
      inside = LLVMBuildAnd(B, inside, LLVMBuildICmp(B, LLVMIntSLT, coord, extent, ""), "");
    }
    in[k] = p.src_factor[k] > 0 ? LLVMBuildURem(B, coord, rt_jit_i64(L, p.src_factor[k]), "")
                                : LLVMBuildUDiv(B, coord, rt_jit_i64(L, p.src_inner[k]), "");
  }
  for (int32_t k = 0; k < p.src_rank; ++k) {
    in[k] = LLVMBuildSelect(B, inside, in[k], rt_jit_i64(L, 0), "");
  }
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], in, &v));
  *out_value = LLVMBuildSelect(B, inside, v, rt_jit_const_i(L, self->dtype, 0), "");
  return RT_OK;
}

/* depth_to_space (DCR: channel (by * b + bx) * C_out + c; CRD: c * b * b +
 * by * b + bx) and space_to_depth (channel (by * b + bx) * C_in + c), as
 * topi; layout NCHW or NHWC. */
RT_JIT_ELEM_FN(rt_jit_elem_subpixel) {
  rt_jit_node_t *x = arg_node(L, call, 0), *self = rt_jit_node(L, call);
  rt_plan_input_t pin;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 1, &pin));
  rt_plan_subpixel_t p;
  RT_RETURN_IF_ERROR(plan_status(
      call, rt_ir_plan_subpixel(call->call.callee->op.op, call->call.attrs, 1, &pin, &p)));
  const bool to_space = p.to_space;
  const int64_t b = p.block_size;
  const bool crd = p.mode == RT_SUBPIXEL_CRD;
  const int32_t *pos = p.pos;
  if (x->rank != 4) return RT_JIT_UNIMPLEMENTED(call, "%s", "needs rank 4");
  LLVMBuilderRef B = L->b;
  LLVMValueRef bb = rt_jit_i64(L, b);
  LLVMValueRef n = idx[pos[0]], c = idx[pos[1]], h = idx[pos[2]], w = idx[pos[3]];
  LLVMValueRef sc, sh, sw;
  if (to_space) {
    LLVMValueRef by = LLVMBuildURem(B, h, bb, ""), bx = LLVMBuildURem(B, w, bb, "");
    LLVMValueRef blk = LLVMBuildAdd(B, LLVMBuildMul(B, by, bb, ""), bx, "");
    sc = crd ? LLVMBuildAdd(B, LLVMBuildMul(B, c, rt_jit_i64(L, b * b), ""), blk, "")
             : LLVMBuildAdd(B, LLVMBuildMul(B, blk, self->dims[pos[1]], ""), c, "");
    sh = LLVMBuildUDiv(B, h, bb, "");
    sw = LLVMBuildUDiv(B, w, bb, "");
  } else {
    LLVMValueRef cin = rt_jit_max(L, x->dims[pos[1]], rt_jit_i64(L, 1));
    LLVMValueRef blk = LLVMBuildUDiv(B, c, cin, "");
    sc = LLVMBuildURem(B, c, cin, "");
    sh = LLVMBuildAdd(B, LLVMBuildMul(B, h, bb, ""), LLVMBuildUDiv(B, blk, bb, ""), "");
    sw = LLVMBuildAdd(B, LLVMBuildMul(B, w, bb, ""), LLVMBuildURem(B, blk, bb, ""), "");
  }
  LLVMValueRef in[4];
  in[pos[0]] = n;
  in[pos[1]] = sc;
  in[pos[2]] = sh;
  in[pos[3]] = sw;
  return rt_jit_elem(L, call->call.args[0], in, out_value);
}

/* ---- arange, shape_of, ndarray_size -------------------------------------- */

/* arange with its output length known from the checked type (the graph
 * executor runs it only when FoldConstant left a static shape): element i
 * is start + i * step, computed in double as the reference does. */
RT_JIT_ELEM_FN(rt_jit_elem_arange) {
  rt_jit_node_t *self = rt_jit_node(L, call);
  const rt_dtype_t f64 = {kDLFloat, 64, 1};
  LLVMValueRef zeros[RT_TENSOR_MAX_RANK], v[3];
  for (int32_t k = 0; k < RT_TENSOR_MAX_RANK; ++k) zeros[k] = rt_jit_i64(L, 0);
  for (int32_t k = 0; k < 3; ++k) {
    rt_jit_node_t *a = arg_node(L, call, k);
    if (a->rank > 1) return RT_JIT_UNIMPLEMENTED(call, "%s", "start, stop and step must be scalars");
    RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[k], zeros, &v[k]));
    v[k] = rt_jit_convert(L, v[k], a->dtype, f64);
  }
  LLVMValueRef i = LLVMBuildSIToFP(L->b, idx[0], L->f64, "");
  LLVMValueRef r = LLVMBuildFAdd(L->b, v[0], LLVMBuildFMul(L->b, i, v[2], ""), "");
  *out_value = rt_jit_convert(L, r, f64, self->dtype);
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_shape_of) {
  rt_jit_node_t *x = arg_node(L, call, 0), *self = rt_jit_node(L, call);
  LLVMValueRef v = rt_jit_i64(L, 0);
  for (int32_t d = x->rank - 1; d >= 0; --d) {
    LLVMValueRef is = LLVMBuildICmp(L->b, LLVMIntEQ, idx[0], rt_jit_i64(L, d), "");
    v = LLVMBuildSelect(L->b, is, x->dims[d], v, "");
  }
  *out_value = rt_jit_convert(L, v, (rt_dtype_t){kDLInt, 64, 1}, self->dtype);
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_ndarray_size) {
  rt_jit_node_t *x = arg_node(L, call, 0), *self = rt_jit_node(L, call);
  *out_value = rt_jit_convert(L, rt_jit_numel(L, x->rank, x->dims), (rt_dtype_t){kDLInt, 64, 1},
                              self->dtype);
  return RT_OK;
}

/* arange's length from its scalar inputs, max(0, ceil((stop - start) /
 * step)) in double as the reference computes it: a constant when the
 * inputs are, else computed at run time (the caller sizes the output; the
 * kernel checks it agrees). */
RT_JIT_SHAPE_FN(rt_jit_shape_arange) {
  rt_dtype_t dt;
  int32_t rank;
  const int64_t *shape;
  RT_RETURN_IF_ERROR(rt_jit_tensor_type(call, &dt, &rank, &shape));
  if (rank != 1) return RT_JIT_UNIMPLEMENTED(call, "%s", "needs a rank-1 result");
  if (shape[0] != RT_DIM_ANY) {
    out_dims[0] = rt_jit_i64(L, shape[0]);
    return RT_OK;
  }
  const rt_dtype_t f64 = {kDLFloat, 64, 1};
  LLVMValueRef zeros[RT_TENSOR_MAX_RANK], v[3];
  for (int32_t k = 0; k < RT_TENSOR_MAX_RANK; ++k) zeros[k] = rt_jit_i64(L, 0);
  for (int32_t k = 0; k < 3; ++k) {
    rt_jit_node_t *a = arg_node(L, call, k);
    if (a->rank > 1) return RT_JIT_UNIMPLEMENTED(call, "%s", "start, stop and step must be scalars");
    RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[k], zeros, &v[k]));
    v[k] = rt_jit_convert(L, v[k], a->dtype, f64);
  }
  LLVMValueRef q = LLVMBuildFDiv(L->b, LLVMBuildFSub(L->b, v[1], v[0], ""), v[2], "");
  LLVMValueRef len = rt_jit_intrinsic(L, "llvm.ceil", q, NULL, NULL);
  LLVMValueRef pos = LLVMBuildFCmp(L->b, LLVMRealOGT, len, LLVMConstReal(L->f64, 0), "");
  len = LLVMBuildSelect(L->b, pos, len, LLVMConstReal(L->f64, 0), "");
  out_dims[0] = rt_jit_convert(L, len, f64, (rt_dtype_t){kDLInt, 64, 1});
  return RT_OK;
}

/* ---- dyn.reshape ------------------------------------------------------------ */

/* The dims from newshape's values at run time, as the reference reads them:
 * 0 copies the input dim at that position (unless allowzero), one -1 takes
 * what is left of the element count. A newshape that does not fit the
 * input (another negative value, a count that differs) fails the kernel's
 * check. The element function is reshape's (a flat copy). */
RT_JIT_SHAPE_FN(rt_jit_shape_dyn_reshape) {
  rt_dtype_t dt;
  int32_t rank;
  const int64_t *shape;
  RT_RETURN_IF_ERROR(rt_jit_tensor_type(call, &dt, &rank, &shape));
  rt_jit_node_t *x = arg_node(L, call, 0), *s = arg_node(L, call, 1);
  if (s->rank != 1) return RT_JIT_UNIMPLEMENTED(call, "%s", "newshape must be 1-d");
  const bool allowzero = rt_ir_attrs_dyn_reshape(call->call.attrs).allowzero;
  const rt_dtype_t i64 = {kDLInt, 64, 1};
  const rt_dtype_t sdt = s->dtype;
  LLVMValueRef xdims[RT_TENSOR_MAX_RANK];
  memcpy(xdims, x->dims, sizeof xdims);
  LLVMValueRef vals[RT_TENSOR_MAX_RANK], minus[RT_TENSOR_MAX_RANK];
  LLVMValueRef known = rt_jit_i64(L, 1), ok = LLVMConstInt(L->i1, 1, 0);
  LLVMValueRef nminus = rt_jit_i64(L, 0);
  for (int32_t k = 0; k < rank; ++k) {
    LLVMValueRef idx[RT_TENSOR_MAX_RANK] = {rt_jit_i64(L, k)};
    LLVMValueRef v;
    RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[1], idx, &v));
    v = rt_jit_convert(L, v, sdt, i64);
    if (!allowzero && k < x->rank) {
      LLVMValueRef z = LLVMBuildICmp(L->b, LLVMIntEQ, v, rt_jit_i64(L, 0), "");
      v = LLVMBuildSelect(L->b, z, xdims[k], v, "");
    }
    minus[k] = LLVMBuildICmp(L->b, LLVMIntEQ, v, rt_jit_i64(L, -1), "");
    nminus = LLVMBuildAdd(L->b, nminus, LLVMBuildZExt(L->b, minus[k], LLVMTypeOf(nminus), ""), "");
    LLVMValueRef good = LLVMBuildOr(L->b, minus[k], LLVMBuildICmp(L->b, LLVMIntSGE, v, rt_jit_i64(L, 0), ""), "");
    ok = LLVMBuildAnd(L->b, ok, good, "");
    vals[k] = v;
    known = LLVMBuildMul(L->b, known, LLVMBuildSelect(L->b, minus[k], rt_jit_i64(L, 1), v, ""), "");
  }
  LLVMValueRef numel = rt_jit_numel(L, x->rank, xdims);
  LLVMValueRef safe = rt_jit_max(L, known, rt_jit_i64(L, 1));
  LLVMValueRef inferred = LLVMBuildSDiv(L->b, numel, safe, "");
  for (int32_t k = 0; k < rank; ++k) {
    out_dims[k] = LLVMBuildSelect(L->b, minus[k], inferred, vals[k], "");
  }
  LLVMValueRef has_minus = LLVMBuildICmp(L->b, LLVMIntNE, nminus, rt_jit_i64(L, 0), "");
  LLVMValueRef total = LLVMBuildSelect(L->b, has_minus, LLVMBuildMul(L->b, known, inferred, ""), known, "");
  ok = LLVMBuildAnd(L->b, ok, LLVMBuildICmp(L->b, LLVMIntULE, nminus, rt_jit_i64(L, 1), ""), "");
  ok = LLVMBuildAnd(L->b, ok, LLVMBuildICmp(L->b, LLVMIntEQ, total, numel, ""), "");
  rt_jit_check(L, ok, "dyn.reshape: newshape does not fit the input's element count");
  return RT_OK;
}
