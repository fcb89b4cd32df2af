/* Lowering of one Primitive function into one kernel with the ABI of
 * include/rt/kernel_abi.h (the model is described in jit/lower.h).
 *
 * Three LLVM functions per kernel `S`:
 *   S(args, nargs, ctx)          the ABI entry: checks nargs, chooses the
 *                                number of tasks from the output size and a
 *                                static work estimate, and runs S.task
 *                                through ctx->parallel_for (or directly);
 *   S.task(closure, task, n)     loads the data pointers and calls S.body;
 *   S.body(args, ctx, task, n, noalias d0, ..., noalias dk)
 *                                validates every descriptor (rank, dtype,
 *                                compact strides, static dims), computes
 *                                every node's dims (the shape phase), then
 *                                for each output one loop nest over its
 *                                elements: the rows (all dims but the last,
 *                                unravelled once per row) are split evenly
 *                                between tasks (with fewer than 4 rows, the
 *                                columns are, in blocks of 16), the last dim
 *                                is the inner loop, and the element
 *                                expression of the whole chain is emitted
 *                                inside it.
 * The data pointers are `noalias` parameters of S.body (the ABI forbids
 * overlapping outputs), so O3 vectorizes without runtime overlap checks.
 *
 * Runtime errors: shape-phase checks branch to a block that calls
 * ctx->set_error and returns 1; checks inside loops (integer division by
 * zero, out-of-range gather indices) record the first message in a local
 * slot, the loops finish (their indices are clamped to stay in bounds), and
 * the kernel then reports it. Lowering errors are statuses naming the
 * kernel and the op. Invariant: every value in the memo dominates the
 * insertion point (loop and if bodies drop their entries when they close).
 *
 * The LLVM-building helpers it uses are jit/builder.c; a group with custom
 * ops goes through jit/lower_custom.c, which calls rt_jit_lower_plain here
 * for what is left of it. */
#include "jit/lower.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/templates/templates.h"
#include "runtime/tensor_impl.h"
#include "runtime/mem.h"

typedef struct rt_jit_memo_t {
  const rt_ir_expr_t *expr;
  LLVMValueRef idx[RT_TENSOR_MAX_RANK];
  LLVMValueRef value;
} rt_jit_memo_t;

/* Field indices of the LLVM mirrors of rt_kernel_arg and rt_kernel_ctx. */
enum { ARG_DATA, ARG_SHAPE, ARG_STRIDES, ARG_RANK, ARG_CODE, ARG_BITS, ARG_LANES };
enum { CTX_VERSION, CTX_THREADS, CTX_PARALLEL_FOR, CTX_WS_ALLOC, CTX_WS_FREE,
       CTX_SET_ERROR, CTX_USER };

/* ---- errors ------------------------------------------------------------- */

static LLVMValueRef message_global(rt_jit_lower_t *L, const char *message) {
  char text[400];
  snprintf(text, sizeof text, "%s: %s", L->symbol, message);
  char name[32];
  snprintf(name, sizeof name, ".msg%d", L->num_strings++);
  return LLVMBuildGlobalString(L->b, text, name);
}

static LLVMTypeRef ctx_type(rt_jit_lower_t *L) {
  LLVMTypeRef f[7] = {L->i32, L->i32, L->ptr, L->ptr, L->ptr, L->ptr, L->ptr};
  return LLVMStructTypeInContext(L->c, f, 7, 0);
}

static LLVMTypeRef arg_type(rt_jit_lower_t *L) {
  LLVMTypeRef f[8] = {L->ptr, L->ptr, L->ptr, L->i32, L->i8, L->i8, L->i16, L->i64};
  return LLVMStructTypeInContext(L->c, f, 8, 0);
}

static void call_set_error(rt_jit_lower_t *L, LLVMValueRef ctx, LLVMValueRef msg) {
  LLVMTypeRef ct = ctx_type(L);
  LLVMValueRef slot = LLVMBuildStructGEP2(L->b, ct, ctx, CTX_SET_ERROR, "");
  LLVMValueRef fp = LLVMBuildLoad2(L->b, L->ptr, slot, "set_error");
  LLVMTypeRef params[2] = {L->ptr, L->ptr};
  LLVMTypeRef fty = LLVMFunctionType(L->void_t, params, 2, 0);
  LLVMValueRef args[2] = {ctx, msg};
  LLVMBuildCall2(L->b, fty, fp, args, 2, "");
}

void rt_jit_check(rt_jit_lower_t *L, LLVMValueRef ok, const char *message) {
  if (LLVMIsConstant(ok) && LLVMConstIntGetZExtValue(ok) == 1) return;
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(L->c, L->fn, "fail");
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(L->c, L->fn, "ok");
  LLVMBuildCondBr(L->b, ok, cont, fail);
  LLVMPositionBuilderAtEnd(L->b, fail);
  call_set_error(L, L->ctx, message_global(L, message));
  LLVMBuildRet(L->b, rt_jit_i32(L, 1));
  LLVMPositionBuilderAtEnd(L->b, cont);
}

void rt_jit_flag_error(rt_jit_lower_t *L, LLVMValueRef bad, const char *message) {
  LLVMValueRef msg = message_global(L, message);
  LLVMValueRef cur = LLVMBuildLoad2(L->b, L->ptr, L->err, "");
  LLVMBuildStore(L->b, LLVMBuildSelect(L->b, bad, msg, cur, ""), L->err);
}

rt_status_t rt_jit_axis(const rt_ir_expr_t *call, int64_t axis, int32_t rank,
                        int32_t *out_axis) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: axis %lld out of range for rank %d",
                     call->call.callee->op.op->name, (long long)axis, rank);
  }
  *out_axis = (int32_t)a;
  return RT_OK;
}

/* ---- nodes -------------------------------------------------------------- */

rt_status_t rt_jit_tensor_type(const rt_ir_expr_t *e, rt_dtype_t *out_dtype,
                               int32_t *out_rank, const int64_t **out_shape) {
  rt_ir_type_t *t = e->checked_type ? rt_ir_type_resolve(e->checked_type) : NULL;
  if (!t || t->kind != RT_IR_TYPE_TENSOR) {
    return RT_STATUS(INVALID_ARGUMENT, "node %u is not a typed tensor", e->id);
  }
  if (t->tensor.dtype.lanes != 1) {
    return RT_STATUS(UNIMPLEMENTED, "vector dtypes (lanes %u) do not lower",
                     (unsigned)t->tensor.dtype.lanes);
  }
  *out_dtype = t->tensor.dtype;
  *out_rank = t->tensor.rank;
  if (out_shape) *out_shape = t->tensor.shape;
  return RT_OK;
}

rt_status_t rt_jit_plan_inputs(const rt_ir_expr_t *call, int32_t n, rt_plan_input_t *in) {
  for (int32_t i = 0; i < n; ++i) {
    in[i].value = NULL;
    RT_RETURN_IF_ERROR(rt_jit_tensor_type(call->call.args[i], &in[i].dtype, &in[i].rank,
                                          &in[i].shape));
  }
  return RT_OK;
}

rt_jit_node_t *rt_jit_node(rt_jit_lower_t *L, const rt_ir_expr_t *e) {
  for (int32_t i = L->num_nodes - 1; i >= 0; --i) {
    if (L->nodes[i].expr == e) return &L->nodes[i];
  }
  return NULL;
}

static rt_status_t add_node(rt_jit_lower_t *L, const rt_ir_expr_t *e,
                            rt_jit_node_t **out) {
  if (L->num_nodes == L->cap_nodes) {
    int32_t cap = L->cap_nodes ? 2 * L->cap_nodes : 32;
    rt_jit_node_t *n = rt_mem_realloc(L->nodes, (size_t)cap * sizeof *n);
    if (!n) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (jit nodes)");
    L->nodes = n;
    L->cap_nodes = cap;
  }
  rt_jit_node_t *n = &L->nodes[L->num_nodes++];
  memset(n, 0, sizeof *n);
  n->expr = e;
  const int64_t *shape;
  RT_RETURN_IF_ERROR(rt_jit_tensor_type(e, &n->dtype, &n->rank, &shape));
  if (!rt_dtype_is_valid(n->dtype)) {
    return RT_STATUS(UNIMPLEMENTED, "dtype code %u bits %u does not lower",
                     n->dtype.code, n->dtype.bits);
  }
  *out = n;
  return RT_OK;
}

rt_status_t rt_jit_static_dims(rt_jit_lower_t *L, const rt_ir_expr_t *call,
                               LLVMValueRef *out_dims) {
  rt_dtype_t dt;
  int32_t rank = 0;
  const int64_t *shape = NULL;
  RT_RETURN_IF_ERROR(rt_jit_tensor_type(call, &dt, &rank, &shape));
  for (int32_t k = 0; k < rank; ++k) {
    if (shape[k] == RT_DIM_ANY) {
      if (call->kind == RT_IR_CALL && call->call.callee->kind == RT_IR_OP) {
        return RT_JIT_UNIMPLEMENTED(call, "%s", "`?` dims do not lower for this op yet");
      }
      return RT_STATUS(UNIMPLEMENTED, "`?` dims do not lower for node %u", call->id);
    }
    out_dims[k] = rt_jit_i64(L, shape[k]);
  }
  return RT_OK;
}

/* ---- tuple fields --------------------------------------------------------- */

int32_t rt_jit_tuple_count(const rt_ir_expr_t *tuple) {
  rt_ir_type_t *t = tuple->checked_type ? rt_ir_type_resolve(tuple->checked_type) : NULL;
  return t && t->kind == RT_IR_TYPE_TUPLE ? t->tuple.count : 0;
}

static rt_jit_field_t *find_field(rt_jit_lower_t *L, const rt_ir_expr_t *tuple, int32_t index) {
  for (int32_t i = 0; i < L->num_fields; ++i) {
    if (L->fields[i].tuple == tuple && L->fields[i].index == index) return &L->fields[i];
  }
  return NULL;
}

/* Records field `index` of `tuple` with the static facts of its type
 * (dims: constants, or NULL for `?` ones, which the caller fills). */
static rt_status_t add_field(rt_jit_lower_t *L, const rt_ir_expr_t *tuple, int32_t index,
                             rt_jit_field_t **out) {
  rt_ir_type_t *t = rt_ir_type_resolve(tuple->checked_type);
  rt_ir_type_t *ft = rt_ir_type_resolve(t->tuple.fields[index]);
  if (!ft || ft->kind != RT_IR_TYPE_TENSOR || ft->tensor.dtype.lanes != 1 ||
      !rt_dtype_is_valid(ft->tensor.dtype)) {
    return RT_STATUS(UNIMPLEMENTED, "node %u: field %d of this tuple is not a plain tensor",
                     tuple->id, index);
  }
  if (L->num_fields == L->cap_fields) {
    int32_t cap = L->cap_fields ? 2 * L->cap_fields : 8;
    rt_jit_field_t *f = rt_mem_realloc(L->fields, (size_t)cap * sizeof *f);
    if (!f) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (jit fields)");
    L->fields = f;
    L->cap_fields = cap;
  }
  rt_jit_field_t *f = &L->fields[L->num_fields++];
  memset(f, 0, sizeof *f);
  f->tuple = tuple;
  f->index = index;
  f->node.expr = tuple;
  f->node.dtype = ft->tensor.dtype;
  f->node.rank = ft->tensor.rank;
  for (int32_t k = 0; k < ft->tensor.rank; ++k) {
    f->node.dims[k] = ft->tensor.shape[k] == RT_DIM_ANY ? NULL : rt_jit_i64(L, ft->tensor.shape[k]);
  }
  *out = f;
  return RT_OK;
}

rt_jit_node_t *rt_jit_field_node(rt_jit_lower_t *L, const rt_ir_expr_t *tuple, int32_t index) {
  if (tuple->kind == RT_IR_TUPLE) {
    return index >= 0 && index < tuple->tuple.count ? rt_jit_node(L, tuple->tuple.fields[index]) : NULL;
  }
  rt_jit_field_t *f = find_field(L, tuple, index);
  return f ? &f->node : NULL;
}

static LLVMValueRef load_elem(rt_jit_lower_t *L, rt_jit_node_t *n, const LLVMValueRef *idx);

rt_status_t rt_jit_field_elem(rt_jit_lower_t *L, const rt_ir_expr_t *tuple, int32_t index,
                              const LLVMValueRef *idx, LLVMValueRef *out_value) {
  if (tuple->kind == RT_IR_TUPLE) return rt_jit_elem(L, tuple->tuple.fields[index], idx, out_value);
  if (tuple->kind == RT_IR_CALL) {
    RT_RETURN_IF_ERROR(rt_jit_op_field_elem(L, tuple, index, idx, out_value));
    rt_jit_node_t *n = rt_jit_field_node(L, tuple, index);
    if (n) *out_value = rt_jit_normalize(L, *out_value, n->dtype);
    return RT_OK;
  }
  rt_jit_node_t *n = rt_jit_field_node(L, tuple, index);
  if (!n || !n->data) return RT_STATUS(INTERNAL, "node %u: field %d was not sized", tuple->id, index);
  *out_value = load_elem(L, n, idx);
  return RT_OK;
}

static rt_status_t shape_phase(rt_jit_lower_t *L, const rt_ir_expr_t *e);

static rt_status_t shape_constant(rt_jit_lower_t *L, const rt_ir_expr_t *e) {
  rt_jit_node_t *n;
  RT_RETURN_IF_ERROR(add_node(L, e, &n));
  const rt_tensor_t *t = e->constant.value;
  for (int32_t k = 0; k < t->rank; ++k) n->dims[k] = rt_jit_i64(L, t->shape[k]);
  if (t->numel == 1) return RT_OK; /* an immediate (see elem) */
  /* A private global holding the bytes (compact). */
  char *bytes = rt_mem_alloc(t->nbytes ? t->nbytes : 1);
  if (!bytes) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (constant)");
  rt_tensor_copy_compact(t, bytes);
  LLVMValueRef init = LLVMConstStringInContext(L->c, bytes, (unsigned)t->nbytes, 1);
  rt_mem_free(bytes);
  n->data = rt_jit_private_constant(L, init, "const");
  return RT_OK;
}

static rt_status_t shape_call(rt_jit_lower_t *L, const rt_ir_expr_t *e) {
  const rt_ir_expr_t *callee = e->call.callee;
  if (callee->kind != RT_IR_OP) {
    return RT_STATUS(UNIMPLEMENTED,
                     "node %u: calls of non-ops inside a fused function do not lower",
                     e->id);
  }
  const rt_ir_op_t *op = callee->op.op;
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    RT_RETURN_IF_ERROR(shape_phase(L, e->call.args[i]));
  }
  const rt_jit_op_lowering_t *low = op->id < RT_OP_COUNT ? rt_jit_op_lowering(op->id) : NULL;
  if (!low || !low->elem) {
    return RT_STATUS(UNIMPLEMENTED, "op %s does not lower to a JIT kernel yet", op->name);
  }
  rt_ir_type_t *t = e->checked_type ? rt_ir_type_resolve(e->checked_type) : NULL;
  if (t && t->kind == RT_IR_TYPE_TUPLE) {
    /* A tuple-valued op (split): its fields are sized at the projection. */
    return RT_OK;
  }
  rt_jit_node_t *n;
  RT_RETURN_IF_ERROR(add_node(L, e, &n));
  LLVMValueRef dims[RT_TENSOR_MAX_RANK];
  if (low->shape) {
    RT_RETURN_IF_ERROR(low->shape(L, e, dims));
  } else {
    RT_RETURN_IF_ERROR(rt_jit_static_dims(L, e, dims));
  }
  n = rt_jit_node(L, e); /* add_node may have moved during low->shape */
  memcpy(n->dims, dims, sizeof dims);
  return RT_OK;
}

static rt_status_t shape_get_item(rt_jit_lower_t *L, const rt_ir_expr_t *e) {
  const rt_ir_expr_t *tup = e->get_item.tuple;
  RT_RETURN_IF_ERROR(shape_phase(L, tup));
  rt_jit_node_t *n;
  RT_RETURN_IF_ERROR(add_node(L, e, &n));
  if (tup->kind == RT_IR_TUPLE) {
    if (e->get_item.index < 0 || e->get_item.index >= tup->tuple.count) {
      return RT_STATUS(INVALID_ARGUMENT, "node %u: tuple index %d out of range", e->id,
                       e->get_item.index);
    }
    rt_jit_node_t *f = rt_jit_node(L, tup->tuple.fields[e->get_item.index]);
    n = rt_jit_node(L, e);
    memcpy(n->dims, f->dims, sizeof n->dims);
    return RT_OK;
  }
  if (tup->kind == RT_IR_VAR) {
    /* A field of a tuple param: its own kernel argument. */
    rt_jit_node_t *f = rt_jit_field_node(L, tup, e->get_item.index);
    if (!f) return RT_STATUS(UNIMPLEMENTED, "node %u: a projection of this tuple does not lower", e->id);
    LLVMValueRef data = f->data;
    LLVMValueRef fd[RT_TENSOR_MAX_RANK];
    memcpy(fd, f->dims, sizeof fd);
    memcpy(n->dims, fd, sizeof n->dims); /* nothing was added since add_node */
    n->data = data;
    return RT_OK;
  }
  if (tup->kind == RT_IR_CALL && tup->call.callee->kind == RT_IR_OP) {
    /* A tuple-valued op (split, batch_norm, dropout): static fields. */
    LLVMValueRef dims[RT_TENSOR_MAX_RANK];
    RT_RETURN_IF_ERROR(rt_jit_static_dims(L, e, dims));
    n = rt_jit_node(L, e);
    memcpy(n->dims, dims, sizeof dims);
    return RT_OK;
  }
  return RT_STATUS(UNIMPLEMENTED, "node %u: a projection of this tuple does not lower",
                   e->id);
}

static rt_status_t shape_phase(rt_jit_lower_t *L, const rt_ir_expr_t *e) {
  if (rt_jit_node(L, e)) return RT_OK;
  switch (e->kind) {
    case RT_IR_VAR:
      if (find_field(L, e, 0)) return RT_OK; /* a tuple param */
      return RT_STATUS(INVALID_ARGUMENT, "free variable %%%s in a fused function",
                       e->var.name);
    case RT_IR_CONSTANT: return shape_constant(L, e);
    case RT_IR_CALL: return shape_call(L, e);
    case RT_IR_TUPLE:
      for (int32_t i = 0; i < e->tuple.count; ++i) {
        RT_RETURN_IF_ERROR(shape_phase(L, e->tuple.fields[i]));
      }
      return RT_OK;
    case RT_IR_TUPLE_GET_ITEM: return shape_get_item(L, e);
    default:
      return RT_STATUS(UNIMPLEMENTED,
                       "node %u: this construct (let, if, closure) does not lower "
                       "inside a fused function", e->id);
  }
}

/* ---- elements ----------------------------------------------------------- */

static LLVMValueRef load_elem(rt_jit_lower_t *L, rt_jit_node_t *n, const LLVMValueRef *idx) {
  LLVMTypeRef st = rt_jit_storage_type(L, n->dtype);
  LLVMValueRef lin = rt_jit_linear(L, n->rank, idx, n->dims);
  LLVMValueRef p = LLVMBuildGEP2(L->b, st, n->data, &lin, 1, "");
  LLVMValueRef v = LLVMBuildLoad2(L->b, st, p, "");
  LLVMSetAlignment(v, (unsigned)rt_dtype_size(n->dtype));
  return rt_jit_from_storage(L, v, n->dtype);
}

static rt_status_t elem_uncached(rt_jit_lower_t *L, const rt_ir_expr_t *e,
                                 rt_jit_node_t *n, const LLVMValueRef *idx,
                                 LLVMValueRef *out) {
  switch (e->kind) {
    case RT_IR_VAR:
      *out = load_elem(L, n, idx);
      return RT_OK;
    case RT_IR_CONSTANT:
      if (!n->data) {
        *out = rt_jit_const_from_bytes(L, n->dtype, rt_tensor_data(e->constant.value));
      } else {
        *out = load_elem(L, n, idx);
      }
      return RT_OK;
    case RT_IR_CALL: {
      const rt_jit_op_lowering_t *low = rt_jit_op_lowering(e->call.callee->op.op->id);
      RT_RETURN_IF_ERROR(low->elem(L, e, idx, out));
      *out = rt_jit_normalize(L, *out, n->dtype);
      return RT_OK;
    }
    case RT_IR_TUPLE_GET_ITEM: {
      const rt_ir_expr_t *tup = e->get_item.tuple;
      if (tup->kind == RT_IR_TUPLE) {
        return rt_jit_elem(L, tup->tuple.fields[e->get_item.index], idx, out);
      }
      if (tup->kind == RT_IR_VAR) {
        *out = load_elem(L, n, idx);
        return RT_OK;
      }
      return rt_jit_field_elem(L, tup, e->get_item.index, idx, out);
    }
    default:
      return RT_STATUS(INTERNAL, "node %u has no element expression", e->id);
  }
}

rt_status_t rt_jit_memo_set(rt_jit_lower_t *L, const rt_ir_expr_t *e,
                            const LLVMValueRef *idx, LLVMValueRef value) {
  rt_jit_node_t *n = rt_jit_node(L, e);
  if (!n) return RT_STATUS(INTERNAL, "node %u was not sized", e->id);
  if (L->num_memo == L->cap_memo) {
    int32_t cap = L->cap_memo ? 2 * L->cap_memo : 64;
    rt_jit_memo_t *m = rt_mem_realloc(L->memo, (size_t)cap * sizeof *m);
    if (!m) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (jit memo)");
    L->memo = m;
    L->cap_memo = cap;
  }
  rt_jit_memo_t *m = &L->memo[L->num_memo++];
  m->expr = e;
  if (n->rank) memcpy(m->idx, idx, (size_t)n->rank * sizeof *idx);
  m->value = value;
  return RT_OK;
}

rt_status_t rt_jit_elem(rt_jit_lower_t *L, const rt_ir_expr_t *e,
                        const LLVMValueRef *idx, LLVMValueRef *out_value) {
  rt_jit_node_t *n = rt_jit_node(L, e);
  if (!n) return RT_STATUS(INTERNAL, "node %u was not sized", e->id);
  const int32_t rank = n->rank;
  for (int32_t i = L->num_memo - 1; i >= 0; --i) {
    rt_jit_memo_t *m = &L->memo[i];
    if (m->expr != e) continue;
    if (rank == 0 || memcmp(m->idx, idx, (size_t)rank * sizeof *idx) == 0) {
      *out_value = m->value;
      return RT_OK;
    }
  }
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(elem_uncached(L, e, n, idx, &v));
  if (L->num_memo == L->cap_memo) {
    int32_t cap = L->cap_memo ? 2 * L->cap_memo : 64;
    rt_jit_memo_t *m = rt_mem_realloc(L->memo, (size_t)cap * sizeof *m);
    if (!m) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (jit memo)");
    L->memo = m;
    L->cap_memo = cap;
  }
  rt_jit_memo_t *m = &L->memo[L->num_memo++];
  m->expr = e;
  if (rank) memcpy(m->idx, idx, (size_t)rank * sizeof *idx);
  m->value = v;
  *out_value = v;
  return RT_OK;
}

/* ---- the kernel --------------------------------------------------------- */

/* Field `field` of descriptor args[ix] (ix an i64 value). */
static LLVMValueRef load_field_at(rt_jit_lower_t *L, LLVMValueRef args, LLVMValueRef ix, int field,
                                  LLVMTypeRef ty) {
  LLVMTypeRef at = arg_type(L);
  LLVMValueRef a = LLVMBuildGEP2(L->b, at, args, &ix, 1, "");
  LLVMValueRef p = LLVMBuildStructGEP2(L->b, at, a, (unsigned)field, "");
  return LLVMBuildLoad2(L->b, ty, p, "");
}

static LLVMValueRef load_field(rt_jit_lower_t *L, LLVMValueRef args, int32_t i, int field,
                               LLVMTypeRef ty) {
  return load_field_at(L, args, rt_jit_i64(L, i), field, ty);
}

/* The checks of the arguments whose dims are all static, gathered by
 * check_arg and emitted as one loop over a table (emit_static_checks):
 * emitted one by one, the checks of DenseNet-121's concatenate kernels
 * (30-odd arguments, 7 blocks each) were a quarter of its compile time.
 * Row j of `spec`: argument, rank, dtype code | bits << 8, then the dims
 * (SPEC_STRIDE i64s a row); three messages a row in `msgs`: rank or
 * dtype, shape, strides. */
#define SPEC_STRIDE (3 + RT_TENSOR_MAX_RANK)
typedef struct static_checks_t {
  LLVMValueRef *spec, *msgs;
  int32_t count;
} static_checks_t;

/* Checks descriptor i against (dtype, rank, shape) and loads its dims into
 * dims[] (constants for static dims). With `sc`, an argument whose dims
 * are all static is only recorded there, for emit_static_checks. */
static void check_arg(rt_jit_lower_t *L, LLVMValueRef args, int32_t i, rt_dtype_t dt,
                      int32_t rank, const int64_t *shape, LLVMValueRef *dims, static_checks_t *sc) {
  char msg[160];
  char dname[RT_DTYPE_NAME_MAX];
  bool fixed = sc != NULL;
  for (int32_t k = 0; k < rank; ++k) fixed = fixed && shape[k] != RT_DIM_ANY;
  if (fixed) {
    LLVMValueRef *row = sc->spec + (size_t)sc->count * SPEC_STRIDE;
    row[0] = rt_jit_i64(L, i);
    row[1] = rt_jit_i64(L, rank);
    row[2] = rt_jit_i64(L, (int64_t)dt.code | (int64_t)dt.bits << 8);
    char text[128] = "";
    size_t at = 0;
    for (int32_t k = 0; k < RT_TENSOR_MAX_RANK; ++k) {
      row[3 + k] = rt_jit_i64(L, k < rank ? shape[k] : 0);
      if (k < rank) {
        dims[k] = rt_jit_i64(L, shape[k]);
        if (at < sizeof text) {
          at += (size_t)snprintf(text + at, sizeof text - at, "%s%lld", k ? ", " : "", (long long)shape[k]);
        }
      }
    }
    LLVMValueRef *m = sc->msgs + (size_t)sc->count * 3;
    snprintf(msg, sizeof msg, "argument %d: expected rank %d and dtype %s", i, rank, rt_dtype_name(dt, dname));
    m[0] = message_global(L, msg);
    snprintf(msg, sizeof msg, "argument %d: expected shape (%s)", i, text);
    m[1] = message_global(L, msg);
    snprintf(msg, sizeof msg, "argument %d: strided tensors are not supported (compact it)", i);
    m[2] = message_global(L, msg);
    sc->count++;
    return;
  }
  LLVMValueRef r = load_field(L, args, i, ARG_RANK, L->i32);
  snprintf(msg, sizeof msg, "argument %d: expected rank %d", i, rank);
  rt_jit_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, r, rt_jit_i32(L, rank), ""), msg);
  LLVMValueRef code = load_field(L, args, i, ARG_CODE, L->i8);
  LLVMValueRef bits = load_field(L, args, i, ARG_BITS, L->i8);
  LLVMValueRef lanes = load_field(L, args, i, ARG_LANES, L->i16);
  LLVMValueRef ok = LLVMBuildAnd(
      L->b, LLVMBuildICmp(L->b, LLVMIntEQ, code, LLVMConstInt(L->i8, dt.code, 0), ""),
      LLVMBuildICmp(L->b, LLVMIntEQ, bits, LLVMConstInt(L->i8, dt.bits, 0), ""), "");
  ok = LLVMBuildAnd(L->b, ok,
                    LLVMBuildICmp(L->b, LLVMIntEQ, lanes, LLVMConstInt(L->i16, 1, 0), ""), "");
  snprintf(msg, sizeof msg, "argument %d: expected dtype %s", i, rt_dtype_name(dt, dname));
  rt_jit_check(L, ok, msg);
  if (rank == 0) return;
  LLVMValueRef shp = load_field(L, args, i, ARG_SHAPE, L->ptr);
  for (int32_t k = 0; k < rank; ++k) {
    LLVMValueRef ix = rt_jit_i64(L, k);
    LLVMValueRef d = LLVMBuildLoad2(L->b, L->i64, LLVMBuildGEP2(L->b, L->i64, shp, &ix, 1, ""), "");
    if (shape[k] != RT_DIM_ANY) {
      snprintf(msg, sizeof msg, "argument %d: dim %d must be %lld", i, k, (long long)shape[k]);
      rt_jit_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, d, rt_jit_i64(L, shape[k]), ""), msg);
      dims[k] = rt_jit_i64(L, shape[k]);
    } else {
      snprintf(msg, sizeof msg, "argument %d: dim %d is negative", i, k);
      rt_jit_check(L, LLVMBuildICmp(L->b, LLVMIntSGE, d, rt_jit_i64(L, 0), ""), msg);
      dims[k] = d;
    }
  }
  /* Strides: NULL, or equal to the compact ones. */
  LLVMValueRef str = load_field(L, args, i, ARG_STRIDES, L->ptr);
  LLVMBasicBlockRef chk = LLVMAppendBasicBlockInContext(L->c, L->fn, "strides");
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(L->c, L->fn, "strides_ok");
  LLVMBuildCondBr(L->b, LLVMBuildIsNull(L->b, str, ""), cont, chk);
  LLVMPositionBuilderAtEnd(L->b, chk);
  LLVMValueRef expect = rt_jit_i64(L, 1);
  LLVMValueRef all = LLVMConstInt(L->i1, 1, 0);
  for (int32_t k = rank - 1; k >= 0; --k) {
    LLVMValueRef ix = rt_jit_i64(L, k);
    LLVMValueRef s = LLVMBuildLoad2(L->b, L->i64, LLVMBuildGEP2(L->b, L->i64, str, &ix, 1, ""), "");
    /* A stride of a size-1 dim is irrelevant. */
    LLVMValueRef eq = LLVMBuildOr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, s, expect, ""),
                                  LLVMBuildICmp(L->b, LLVMIntEQ, dims[k], rt_jit_i64(L, 1), ""), "");
    all = LLVMBuildAnd(L->b, all, eq, "");
    expect = LLVMBuildMul(L->b, expect, dims[k], "");
  }
  snprintf(msg, sizeof msg, "argument %d: strided tensors are not supported (compact it)", i);
  rt_jit_check(L, all, msg);
  LLVMBuildBr(L->b, cont);
  LLVMPositionBuilderAtEnd(L->b, cont);
}

/* A check inside emit_static_checks' loop: where ok is false the kernel
 * reports the message at `msg` (a pointer loaded at run time) and fails. */
static void check_loaded(rt_jit_lower_t *L, LLVMValueRef ok, LLVMValueRef msg) {
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(L->c, L->fn, "fail");
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(L->c, L->fn, "ok");
  LLVMBuildCondBr(L->b, ok, cont, fail);
  LLVMPositionBuilderAtEnd(L->b, fail);
  call_set_error(L, L->ctx, msg);
  LLVMBuildRet(L->b, rt_jit_i32(L, 1));
  LLVMPositionBuilderAtEnd(L->b, cont);
}

static LLVMValueRef load_i64_at(rt_jit_lower_t *L, LLVMValueRef table, LLVMValueRef at) {
  return LLVMBuildLoad2(L->b, L->i64, LLVMBuildGEP2(L->b, L->i64, table, &at, 1, ""), "");
}

/* The checks check_arg gathered in `sc`: for each row, the descriptor's
 * rank and dtype, then its dims, then its strides (NULL, or the compact
 * ones; a size-1 dim's stride is irrelevant), as check_arg's inline
 * checks do one by one. */
static void emit_static_checks(rt_jit_lower_t *L, LLVMValueRef args, const static_checks_t *sc) {
  if (sc->count == 0) return;
  LLVMBuilderRef B = L->b;
  LLVMValueRef spec = rt_jit_private_constant(
      L, LLVMConstArray(L->i64, sc->spec, (unsigned)(sc->count * SPEC_STRIDE)), "arg_spec");
  LLVMValueRef msgs = rt_jit_private_constant(L, LLVMConstArray(L->ptr, sc->msgs, (unsigned)(sc->count * 3)),
                                              "arg_msgs");
  rt_jit_loop_t lj;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, sc->count), 0, NULL, &lj);
  LLVMValueRef row = LLVMBuildMul(B, lj.iv, rt_jit_i64(L, SPEC_STRIDE), "");
  LLVMValueRef m0 = LLVMBuildMul(B, lj.iv, rt_jit_i64(L, 3), "");
  LLVMValueRef msg[3];
  for (int32_t k = 0; k < 3; ++k) {
    LLVMValueRef ix = LLVMBuildAdd(B, m0, rt_jit_i64(L, k), "");
    msg[k] = LLVMBuildLoad2(B, L->ptr, LLVMBuildGEP2(B, L->ptr, msgs, &ix, 1, ""), "");
  }
  LLVMValueRef ai = load_i64_at(L, spec, row);
  LLVMValueRef rank = load_i64_at(L, spec, LLVMBuildAdd(B, row, rt_jit_i64(L, 1), ""));
  LLVMValueRef key = load_i64_at(L, spec, LLVMBuildAdd(B, row, rt_jit_i64(L, 2), ""));
  LLVMValueRef r = LLVMBuildSExt(B, load_field_at(L, args, ai, ARG_RANK, L->i32), L->i64, "");
  LLVMValueRef code = LLVMBuildZExt(B, load_field_at(L, args, ai, ARG_CODE, L->i8), L->i64, "");
  LLVMValueRef bits = LLVMBuildZExt(B, load_field_at(L, args, ai, ARG_BITS, L->i8), L->i64, "");
  LLVMValueRef lanes = load_field_at(L, args, ai, ARG_LANES, L->i16);
  LLVMValueRef dt = LLVMBuildOr(B, code, LLVMBuildShl(B, bits, rt_jit_i64(L, 8), ""), "");
  LLVMValueRef ok =
      LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntEQ, r, rank, ""), LLVMBuildICmp(B, LLVMIntEQ, dt, key, ""), "");
  ok = LLVMBuildAnd(B, ok, LLVMBuildICmp(B, LLVMIntEQ, lanes, LLVMConstInt(L->i16, 1, 0), ""), "");
  check_loaded(L, ok, msg[0]);
  LLVMValueRef shp = load_field_at(L, args, ai, ARG_SHAPE, L->ptr);
  LLVMValueRef str = load_field_at(L, args, ai, ARG_STRIDES, L->ptr);
  LLVMValueRef dims0 = LLVMBuildAdd(B, row, rt_jit_i64(L, 3), "");
  LLVMValueRef init = LLVMConstInt(L->i1, 1, 0);
  rt_jit_loop_t lk;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rank, 1, &init, &lk);
  LLVMValueRef d = LLVMBuildLoad2(B, L->i64, LLVMBuildGEP2(B, L->i64, shp, &lk.iv, 1, ""), "");
  LLVMValueRef e = load_i64_at(L, spec, LLVMBuildAdd(B, dims0, lk.iv, ""));
  LLVMValueRef same = LLVMBuildAnd(B, lk.carry[0], LLVMBuildICmp(B, LLVMIntEQ, d, e, ""), "");
  rt_jit_loop_end(L, &lk, &same);
  check_loaded(L, lk.carry[0], msg[1]);
  rt_jit_if_t strided;
  rt_jit_if_begin(L, LLVMBuildIsNotNull(B, str, ""), &strided);
  LLVMValueRef init2[2] = {rt_jit_i64(L, 1), LLVMConstInt(L->i1, 1, 0)};
  rt_jit_loop_t ls;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rank, 2, init2, &ls);
  LLVMValueRef k = LLVMBuildSub(B, LLVMBuildSub(B, rank, rt_jit_i64(L, 1), ""), ls.iv, "");
  LLVMValueRef st = LLVMBuildLoad2(B, L->i64, LLVMBuildGEP2(B, L->i64, str, &k, 1, ""), "");
  LLVMValueRef dk = load_i64_at(L, spec, LLVMBuildAdd(B, dims0, k, ""));
  LLVMValueRef eq = LLVMBuildOr(B, LLVMBuildICmp(B, LLVMIntEQ, st, ls.carry[0], ""),
                                LLVMBuildICmp(B, LLVMIntEQ, dk, rt_jit_i64(L, 1), ""), "");
  LLVMValueRef next[2] = {LLVMBuildMul(B, ls.carry[0], dk, ""), LLVMBuildAnd(B, ls.carry[1], eq, "")};
  rt_jit_loop_end(L, &ls, next);
  check_loaded(L, ls.carry[1], msg[2]);
  rt_jit_if_else(L, &strided, NULL);
  (void)rt_jit_if_end(L, &strided, NULL);
  rt_jit_loop_end(L, &lj, NULL);
}

/* One kernel output: a tensor node (field < 0) or field `field` of a
 * tuple-valued op call that is the function's result. */
typedef struct out_t {
  const rt_ir_expr_t *expr;
  int32_t field;
} out_t;

static rt_jit_node_t *out_node(rt_jit_lower_t *L, const out_t *o) {
  return o->field < 0 ? rt_jit_node(L, o->expr) : rt_jit_field_node(L, o->expr, o->field);
}

static rt_status_t out_elem(rt_jit_lower_t *L, const out_t *o, const LLVMValueRef *idx,
                            LLVMValueRef *v) {
  return o->field < 0 ? rt_jit_elem(L, o->expr, idx, v) : rt_jit_field_elem(L, o->expr, o->field, idx, v);
}

/* Whether the generic loop nest of output node n splits its columns
 * between tasks instead of its rows: when it has fewer than 4 rows, all
 * static (a dense of one row: (1, 1000)); its inner loop then runs over
 * a range known only at run time, which the row split avoids. */
static bool split_columns(const rt_jit_node_t *n) {
  if (n->rank < 1) return false;
  int64_t rows = 1;
  for (int32_t k = 0; k < n->rank - 1; ++k) {
    if (!LLVMIsConstant(n->dims[k])) return false;
    rows *= (int64_t)LLVMConstIntGetZExtValue(n->dims[k]);
    if (rows >= 4) return false;
  }
  return true;
}

/* A concatenate of the group whose output has the static dims of output
 * node n (rank and every dim) and whose inputs' sizes along its axis are
 * static: emit_output then runs one loop nest per input slab. NULL when
 * there is none. (The shape test is a heuristic for "the output's index
 * reaches the concatenate unchanged"; rt_jit_elem_concatenate checks that
 * exactly, by the index value, and falls back to its compares.) */
static const rt_ir_expr_t *slab_concat(rt_jit_lower_t *L, const rt_jit_node_t *n, int32_t *out_axis) {
  *out_axis = 0;
  for (int32_t i = 0; i < L->num_nodes; ++i) {
    const rt_ir_expr_t *e = L->nodes[i].expr;
    if (e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP ||
        e->call.callee->op.op->id != RT_OP_CONCATENATE || L->nodes[i].rank != n->rank) {
      continue;
    }
    bool same = true;
    for (int32_t k = 0; same && k < n->rank; ++k) {
      same = LLVMIsConstant(n->dims[k]) && L->nodes[i].dims[k] == n->dims[k];
    }
    const rt_ir_expr_t *tup = e->call.args[0];
    int32_t axis = 0;
    if (!same || rt_jit_tuple_count(tup) < 2 ||
        rt_jit_axis(e, rt_ir_attrs_concatenate(e->call.attrs).axis, n->rank, &axis) != RT_OK) {
      continue;
    }
    for (int32_t k = 0; same && k < rt_jit_tuple_count(tup); ++k) {
      rt_jit_node_t *f = rt_jit_field_node(L, tup, k);
      same = f && LLVMIsConstant(f->dims[axis]);
    }
    if (same) {
      *out_axis = axis;
      return e;
    }
  }
  return NULL;
}

/* The loop nest over the slab [off, off + len) of dim `axis` of output
 * node n (dims), for one concatenate input: its rows (the slab's dims but
 * the last, flattened) split between tasks as emit_output's are. */
static rt_status_t emit_slab(rt_jit_lower_t *L, const out_t *out, LLVMValueRef data,
                             LLVMValueRef task, LLVMValueRef ntasks, int32_t axis, LLVMValueRef off,
                             LLVMValueRef len) {
  rt_jit_node_t *n = out_node(L, out);
  const int32_t rank = n->rank;
  LLVMValueRef dims[RT_TENSOR_MAX_RANK], sub[RT_TENSOR_MAX_RANK], idx[RT_TENSOR_MAX_RANK] = {0};
  memcpy(dims, n->dims, sizeof dims);
  memcpy(sub, n->dims, sizeof sub);
  sub[axis] = len;
  LLVMValueRef rows = rt_jit_numel(L, rank - 1, sub);
  LLVMValueRef t64 = LLVMBuildSExt(L->b, task, L->i64, "");
  LLVMValueRef n64 = LLVMBuildSExt(L->b, ntasks, L->i64, "");
  LLVMValueRef t1 = LLVMBuildAdd(L->b, t64, rt_jit_i64(L, 1), "");
  LLVMValueRef lo = LLVMBuildSDiv(L->b, LLVMBuildMul(L->b, rows, t64, ""), n64, "");
  LLVMValueRef hi = LLVMBuildSDiv(L->b, LLVMBuildMul(L->b, rows, t1, ""), n64, "");
  rt_jit_loop_t outer, inner;
  rt_jit_loop_begin(L, lo, hi, 0, NULL, &outer);
  rt_jit_unravel(L, outer.iv, rank - 1, sub, idx);
  if (axis < rank - 1) idx[axis] = LLVMBuildAdd(L->b, idx[axis], off, "");
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), sub[rank - 1], 0, NULL, &inner);
  idx[rank - 1] = axis == rank - 1 ? LLVMBuildAdd(L->b, inner.iv, off, "") : inner.iv;
  L->pin.index = idx[axis];
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(out_elem(L, out, idx, &v));
  LLVMValueRef at = rt_jit_linear(L, rank, idx, dims);
  LLVMValueRef p = LLVMBuildGEP2(L->b, rt_jit_storage_type(L, n->dtype), data, &at, 1, "");
  LLVMValueRef stv = LLVMBuildStore(L->b, rt_jit_to_storage(L, v, n->dtype), p);
  LLVMSetAlignment(stv, (unsigned)rt_dtype_size(n->dtype));
  rt_jit_loop_end(L, &inner, NULL);
  rt_jit_loop_end(L, &outer, NULL);
  return RT_OK;
}

/* Inputs from which a concatenate's slabs are one nest in a loop over
 * the inputs (emit_slab_loop) rather than a nest each: a nest each made
 * DenseNet-121's 58 concatenate + batch-norm + relu kernels (up to 32
 * inputs) most of its compile time, 150-450 ms of LLVM optimization
 * apiece. */
#define SLAB_LOOP_MIN 3

/* Whether every input of the concatenate's tuple is in memory (a param
 * of the kernel) with the first one's dtype and rank. */
static bool inputs_in_memory(rt_jit_lower_t *L, const rt_ir_expr_t *tup) {
  if (tup->kind != RT_IR_TUPLE) return false;
  const rt_jit_node_t *f0 = rt_jit_field_node(L, tup, 0);
  for (int32_t k = 0; k < tup->tuple.count; ++k) {
    const rt_jit_node_t *f = rt_jit_field_node(L, tup, k);
    if (tup->tuple.fields[k]->kind != RT_IR_VAR || !f || !f->data || f->rank != f0->rank ||
        !rt_dtype_equal(f->dtype, f0->dtype)) {
      return false;
    }
  }
  return true;
}

/* The slabs of a concatenate whose inputs are in memory (inputs_in_memory)
 * as one nest (emit_slab) in a loop over the inputs: input k's data,
 * offset and length along the axis come from tables, and the
 * concatenate reads the input pinned at run time (rt_jit_elem_concatenate). */
static rt_status_t emit_slab_loop(rt_jit_lower_t *L, const out_t *out, LLVMValueRef data, LLVMValueRef task,
                                  LLVMValueRef ntasks, const rt_ir_expr_t *cat, int32_t axis) {
  const rt_ir_expr_t *tup = cat->call.args[0];
  const int32_t count = tup->tuple.count;
  LLVMValueRef *offs = rt_mem_alloc((size_t)count * 2 * sizeof *offs);
  if (!offs) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (concatenate tables)");
  LLVMValueRef *lens = offs + count;
  LLVMValueRef ptrs = LLVMBuildAlloca(L->b, LLVMArrayType(L->ptr, (unsigned)count), "concat_inputs");
  int64_t off = 0;
  for (int32_t k = 0; k < count; ++k) {
    const rt_jit_node_t *f = rt_jit_field_node(L, tup, k);
    const int64_t len = (int64_t)LLVMConstIntGetSExtValue(f->dims[axis]);
    offs[k] = rt_jit_i64(L, off);
    lens[k] = rt_jit_i64(L, len);
    off += len;
    LLVMValueRef at = rt_jit_i64(L, k);
    LLVMBuildStore(L->b, f->data, LLVMBuildGEP2(L->b, L->ptr, ptrs, &at, 1, ""));
  }
  LLVMValueRef toff = rt_jit_private_constant(L, LLVMConstArray(L->i64, offs, (unsigned)count), "concat_off");
  LLVMValueRef tlen = rt_jit_private_constant(L, LLVMConstArray(L->i64, lens, (unsigned)count), "concat_len");
  rt_mem_free(offs);
  rt_jit_loop_t lk;
  rt_jit_loop_begin(L, rt_jit_i64(L, 0), rt_jit_i64(L, count), 0, NULL, &lk);
  L->pin.concat = cat;
  L->pin.input = -1;
  L->pin.base = LLVMBuildLoad2(L->b, L->ptr, LLVMBuildGEP2(L->b, L->ptr, ptrs, &lk.iv, 1, ""), "");
  L->pin.off = LLVMBuildLoad2(L->b, L->i64, LLVMBuildGEP2(L->b, L->i64, toff, &lk.iv, 1, ""), "");
  L->pin.len = LLVMBuildLoad2(L->b, L->i64, LLVMBuildGEP2(L->b, L->i64, tlen, &lk.iv, 1, ""), "");
  RT_RETURN_IF_ERROR(emit_slab(L, out, data, task, ntasks, axis, L->pin.off, L->pin.len));
  rt_jit_loop_end(L, &lk, NULL);
  return RT_OK;
}

/* One loop nest writing output `out` to `data` (or one per input slab of
 * a concatenate that fills the output: slab_concat). */
static rt_status_t emit_output(rt_jit_lower_t *L, const out_t *out, LLVMValueRef data,
                               LLVMValueRef task, LLVMValueRef ntasks) {
  rt_jit_node_t *n = out_node(L, out);
  const int32_t rank = n->rank;
  LLVMValueRef dims[RT_TENSOR_MAX_RANK];
  memcpy(dims, n->dims, sizeof dims);
  const rt_dtype_t dt = n->dtype;
  LLVMTypeRef st = rt_jit_storage_type(L, dt);
  LLVMValueRef idx[RT_TENSOR_MAX_RANK];
  if (out->field < 0) {
    /* Anchors with static float32 shapes: a kernel template (jit/templates/). */
    bool templated = false;
    RT_RETURN_IF_ERROR(rt_jit_template_emit(L, out->expr, data, task, ntasks, &templated));
    if (templated) return RT_OK;
  }
  if (rank == 0) {
    rt_jit_if_t s;
    rt_jit_if_begin(L, LLVMBuildICmp(L->b, LLVMIntEQ, task, rt_jit_i32(L, 0), ""), &s);
    LLVMValueRef v;
    RT_RETURN_IF_ERROR(out_elem(L, out, idx, &v));
    LLVMValueRef stv = LLVMBuildStore(L->b, rt_jit_to_storage(L, v, dt), data);
    LLVMSetAlignment(stv, (unsigned)rt_dtype_size(dt));
    rt_jit_if_else(L, &s, NULL);
    (void)rt_jit_if_end(L, &s, NULL);
    return RT_OK;
  }
  int32_t axis = -1;
  const rt_ir_expr_t *cat = split_columns(n) ? NULL : slab_concat(L, n, &axis);
  if (cat) {
    /* One nest per input: its inner loop has no compares left, so it
     * vectorizes (densenet's concatenate + batch-norm + relu groups). */
    const rt_ir_expr_t *tup = cat->call.args[0];
    rt_status_t err = RT_OK;
    if (rt_jit_tuple_count(tup) >= SLAB_LOOP_MIN && inputs_in_memory(L, tup)) {
      err = emit_slab_loop(L, out, data, task, ntasks, cat, axis);
    } else {
      int64_t off = 0;
      for (int32_t k = 0; !err && k < rt_jit_tuple_count(tup); ++k) {
        const int64_t len = (int64_t)LLVMConstIntGetSExtValue(rt_jit_field_node(L, tup, k)->dims[axis]);
        L->pin.concat = cat;
        L->pin.input = k;
        if (len > 0) err = emit_slab(L, out, data, task, ntasks, axis, rt_jit_i64(L, off), rt_jit_i64(L, len));
        off += len;
      }
    }
    L->pin.concat = NULL;
    L->pin.index = NULL;
    L->pin.base = L->pin.off = L->pin.len = NULL;
    return err;
  }
  LLVMValueRef rows = rt_jit_numel(L, rank - 1, dims);
  LLVMValueRef cols = dims[rank - 1];
  LLVMValueRef t64 = LLVMBuildSExt(L->b, task, L->i64, "");
  LLVMValueRef n64 = LLVMBuildSExt(L->b, ntasks, L->i64, "");
  LLVMValueRef t1 = LLVMBuildAdd(L->b, t64, rt_jit_i64(L, 1), "");
  /* Tasks take rows, or, when there are too few rows (split_columns),
   * column ranges of every row, cut at multiples of 16 elements. */
  LLVMValueRef lo = rt_jit_i64(L, 0), hi = rows, c_lo = rt_jit_i64(L, 0), c_hi = cols;
  if (split_columns(n)) {
    c_lo = LLVMBuildAnd(L->b, LLVMBuildSDiv(L->b, LLVMBuildMul(L->b, cols, t64, ""), n64, ""),
                        rt_jit_i64(L, -16), "");
    LLVMValueRef h = LLVMBuildAnd(L->b, LLVMBuildSDiv(L->b, LLVMBuildMul(L->b, cols, t1, ""), n64, ""),
                                  rt_jit_i64(L, -16), "");
    c_hi = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, t1, n64, ""), cols, h, "");
  } else {
    lo = LLVMBuildSDiv(L->b, LLVMBuildMul(L->b, rows, t64, ""), n64, "");
    hi = LLVMBuildSDiv(L->b, LLVMBuildMul(L->b, rows, t1, ""), n64, "");
  }
  rt_jit_loop_t outer, inner;
  rt_jit_loop_begin(L, lo, hi, 0, NULL, &outer);
  rt_jit_unravel(L, outer.iv, rank - 1, dims, idx);
  LLVMValueRef base = LLVMBuildMul(L->b, outer.iv, cols, "");
  rt_jit_loop_begin(L, c_lo, c_hi, 0, NULL, &inner);
  idx[rank - 1] = inner.iv;
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(out_elem(L, out, idx, &v));
  LLVMValueRef at = LLVMBuildAdd(L->b, base, inner.iv, "");
  LLVMValueRef p = LLVMBuildGEP2(L->b, st, data, &at, 1, "");
  LLVMValueRef stv = LLVMBuildStore(L->b, rt_jit_to_storage(L, v, dt), p);
  LLVMSetAlignment(stv, (unsigned)rt_dtype_size(dt));
  rt_jit_loop_end(L, &inner, NULL);
  rt_jit_loop_end(L, &outer, NULL);
  return RT_OK;
}

/* The static work estimate per output element (for the task split): the
 * largest ratio of an op's static input elements to its output elements. */
static int64_t work_per_elem(rt_jit_lower_t *L) {
  int64_t best = 1;
  for (int32_t i = 0; i < L->num_nodes; ++i) {
    const rt_ir_expr_t *e = L->nodes[i].expr;
    if (e->kind != RT_IR_CALL) continue;
    double out = 1, in = 0;
    for (int32_t k = 0; k < L->nodes[i].rank; ++k) {
      unsigned long long d = LLVMIsConstant(L->nodes[i].dims[k])
                                 ? LLVMConstIntGetZExtValue(L->nodes[i].dims[k]) : 64;
      out *= (double)d;
    }
    for (int32_t a = 0; a < e->call.nargs; ++a) {
      rt_jit_node_t *an = rt_jit_node(L, e->call.args[a]);
      if (!an) continue;
      double c = 1;
      for (int32_t k = 0; k < an->rank; ++k) {
        c *= LLVMIsConstant(an->dims[k]) ? (double)LLVMConstIntGetZExtValue(an->dims[k]) : 64;
      }
      in += c;
    }
    double r = out > 0 ? in / out : 1;
    if (r > (double)best) best = r > 1e9 ? 1000000000 : (int64_t)r;
  }
  return best;
}

/* ---- the task split: a cost model ------------------------------------------

   A kernel runs as ntasks = min(threads, cost / kMinTaskNs) tasks (at
   least 1; a generic loop nest also at most its rows, or its 16-column
   blocks when it splits columns), so a kernel too small to repay a task
   runs as one task on the caller.
   cost = output elements x an estimate per element, fixed at lowering:
   kPsPerWork per unit of work_per_elem (the generic loop nests), or for
   a template kPsPerFlop per FLOP of its heavy op (rt_ir_flops: dense,
   matmul, conv; static shapes) and one unit of work. The constants, measured on the project's
   2-core AMD EPYC VM (release build, 1 thread, relayrt run --profile):
   - kPsPerWork 250: generic kernels took 190 ps per output element of a
     copy (concatenate, work 1), 375 ps per input element of max_pool2d
     (work 4) and 600 of global_avg_pool2d; 250 errs low (a split is never
     made for a kernel that is cheaper than it looks);
   - kPsPerFlop 20: the conv/dense templates run at 30-80 GFLOP/s
     (12-33 ps per FLOP); 20 is their middle (50 GFLOP/s);
   - kMinTaskNs 5000: bench/pool_cost: a parallel_for costs ~0.3 us
     while the workers are awake (they spin 250 us between runs); one
     that slept joins ~30 us late (the caller works meanwhile). A task of
     at least 5 us keeps the dispatch under ~6% of the work and leaves the
     second core idle only for kernels under 10 us, where it saves at most
     5 us per call. */
enum { kPsPerWork = 250, kPsPerFlop = 20, kMinTaskNs = 5000 };

/* The output elements each task must get at least (>= 1), from the cost
 * per element of fn's output (o0, static or not): for a template, its
 * FLOPs plus one unit of work (the epilogue's store); for a generic loop
 * nest, its work estimate (whose units already count the products of a
 * dense it computes in loops). */
static int64_t elems_per_task(const rt_ir_expr_t *fn, const rt_jit_node_t *o0, int64_t work,
                              bool templated) {
  double ps = (double)work * kPsPerWork;
  double numel = 1;
  for (int32_t k = 0; o0 && k < o0->rank; ++k) {
    if (!LLVMIsConstant(o0->dims[k])) {
      numel = 0; /* `?` dims: no FLOP count (rt_ir_flops counts 0 too) */
      break;
    }
    numel *= (double)LLVMConstIntGetZExtValue(o0->dims[k]);
  }
  const double flops = numel > 0 && templated ? rt_ir_flops(fn) : 0;
  if (flops > 0) ps = flops * kPsPerFlop / numel + kPsPerWork;
  const double n = (double)kMinTaskNs * 1000.0 / (ps > 1 ? ps : 1);
  return n < 1 ? 1 : n > 1e15 ? (int64_t)1e15 : (int64_t)n + 1;
}

/* Collects the function's outputs: a tensor body, the fields of a tuple
 * body, or the fields of a tuple-valued op call (nn.batch_norm). *out is
 * rt_mem_alloc'd. */
static rt_status_t outputs_of(const rt_ir_expr_t *fn, int32_t *out_n, out_t **out) {
  const rt_ir_expr_t *body = fn->fn.body;
  int32_t n = 1;
  if (body->kind == RT_IR_TUPLE) {
    n = body->tuple.count;
  } else if (body->kind == RT_IR_CALL && rt_jit_tuple_count(body) > 0) {
    n = rt_jit_tuple_count(body);
  }
  out_t *o = rt_mem_alloc((size_t)(n ? n : 1) * sizeof *o);
  if (!o) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  for (int32_t k = 0; k < n; ++k) {
    if (body->kind == RT_IR_TUPLE) {
      o[k] = (out_t){body->tuple.fields[k], -1};
    } else if (body->kind == RT_IR_CALL && rt_jit_tuple_count(body) > 0) {
      o[k] = (out_t){body, k};
    } else {
      o[k] = (out_t){body, -1};
    }
  }
  *out_n = n;
  *out = o;
  return RT_OK;
}

/* Kernel arguments taken by the params: one per tensor, one per field of
 * a tuple param. */
static int32_t param_args(const rt_ir_expr_t *fn) {
  int32_t n = 0;
  for (int32_t i = 0; i < fn->fn.nparams; ++i) {
    int32_t c = rt_jit_tuple_count(fn->fn.params[i]);
    n += c > 0 ? c : 1;
  }
  return n;
}

static void set_attr(rt_jit_lower_t *L, LLVMValueRef fn, unsigned index, const char *name) {
  unsigned k = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, index, LLVMCreateEnumAttribute(L->c, k, 0));
}

static rt_status_t lower_args(rt_jit_lower_t *L, const rt_ir_expr_t *fn, int32_t nin, int32_t nout,
                              const out_t *outs, LLVMValueRef body_fn, LLVMValueRef args, static_checks_t *sc);

static rt_status_t lower_body(rt_jit_lower_t *L, const rt_ir_expr_t *fn, int32_t nin,
                              int32_t nout, const out_t *outs,
                              LLVMValueRef body_fn, int64_t *out_work) {
  LLVMValueRef args = LLVMGetParam(body_fn, 0);
  L->ctx = LLVMGetParam(body_fn, 1);
  LLVMValueRef task = LLVMGetParam(body_fn, 2);
  LLVMValueRef ntasks = LLVMGetParam(body_fn, 3);
  L->fn = body_fn;
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(L->c, body_fn, "entry");
  LLVMPositionBuilderAtEnd(L->b, entry);
  L->err = LLVMBuildAlloca(L->b, L->ptr, "err");
  LLVMBuildStore(L->b, LLVMConstNull(L->ptr), L->err);
  const int32_t nargs = nin + nout + 1;
  static_checks_t sc = {rt_mem_alloc((size_t)nargs * SPEC_STRIDE * sizeof(LLVMValueRef)),
                        rt_mem_alloc((size_t)nargs * 3 * sizeof(LLVMValueRef)), 0};
  /* The inline checks go to a block of their own, which the table's
   * loop, emitted after lower_args gathered it, runs before: the first
   * argument in order that fails is the one reported. */
  LLVMBasicBlockRef inline_checks = LLVMAppendBasicBlockInContext(L->c, body_fn, "args");
  LLVMPositionBuilderAtEnd(L->b, inline_checks);
  rt_status_t st = sc.spec && sc.msgs ? lower_args(L, fn, nin, nout, outs, body_fn, args, &sc)
                                      : RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (argument checks)");
  if (!st) {
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(L->b);
    LLVMPositionBuilderAtEnd(L->b, entry);
    emit_static_checks(L, args, &sc);
    LLVMBuildBr(L->b, inline_checks);
    LLVMPositionBuilderAtEnd(L->b, cur);
  }
  rt_mem_free(sc.spec);
  rt_mem_free(sc.msgs);
  RT_RETURN_IF_ERROR(st);
  *out_work = work_per_elem(L);
  for (int32_t o = 0; o < nout; ++o) {
    LLVMValueRef data = LLVMGetParam(body_fn, (unsigned)(4 + nin + o));
    RT_RETURN_IF_ERROR(emit_output(L, &outs[o], data, task, ntasks));
  }
  LLVMValueRef e = LLVMBuildLoad2(L->b, L->ptr, L->err, "");
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(L->c, body_fn, "failed");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(L->c, body_fn, "finished");
  LLVMBuildCondBr(L->b, LLVMBuildIsNull(L->b, e, ""), done, fail);
  LLVMPositionBuilderAtEnd(L->b, fail);
  call_set_error(L, L->ctx, e);
  LLVMBuildRet(L->b, rt_jit_i32(L, 1));
  LLVMPositionBuilderAtEnd(L->b, done);
  LLVMBuildRet(L->b, rt_jit_i32(L, 0));
  return RT_OK;
}

/* The kernel's parameters and outputs: their nodes, data and dims, and
 * their descriptors' checks (inline, or gathered in sc). */
static rt_status_t lower_args(rt_jit_lower_t *L, const rt_ir_expr_t *fn, int32_t nin, int32_t nout,
                              const out_t *outs, LLVMValueRef body_fn, LLVMValueRef args, static_checks_t *sc) {
  /* Parameters: validated descriptors (a tuple param: one per field). */
  for (int32_t i = 0, ai = 0; i < fn->fn.nparams; ++i) {
    const rt_ir_expr_t *p = fn->fn.params[i];
    const int32_t nf = rt_jit_tuple_count(p);
    for (int32_t k = 0; k < nf; ++k, ++ai) {
      rt_jit_field_t *f;
      RT_RETURN_IF_ERROR(add_field(L, p, k, &f));
      rt_ir_type_t *ft = rt_ir_type_resolve(rt_ir_type_resolve(p->checked_type)->tuple.fields[k]);
      LLVMValueRef dims[RT_TENSOR_MAX_RANK] = {0};
      check_arg(L, args, ai, ft->tensor.dtype, ft->tensor.rank, ft->tensor.shape, dims, sc);
      memcpy(f->node.dims, dims, sizeof dims);
      f->node.data = LLVMGetParam(body_fn, (unsigned)(4 + ai));
    }
    if (nf > 0) continue;
    rt_jit_node_t *n;
    RT_RETURN_IF_ERROR(add_node(L, p, &n));
    const int64_t *shape = NULL;
    rt_dtype_t dt;
    int32_t rank = 0;
    RT_RETURN_IF_ERROR(rt_jit_tensor_type(p, &dt, &rank, &shape));
    check_arg(L, args, ai, dt, rank, shape, n->dims, sc);
    n->data = LLVMGetParam(body_fn, (unsigned)(4 + ai));
    ++ai;
  }
  for (int32_t o = 0; o < nout; ++o) {
    RT_RETURN_IF_ERROR(shape_phase(L, outs[o].expr));
    if (outs[o].field >= 0 && !find_field(L, outs[o].expr, outs[o].field)) {
      rt_jit_field_t *f;
      RT_RETURN_IF_ERROR(add_field(L, outs[o].expr, outs[o].field, &f));
      for (int32_t k = 0; k < f->node.rank; ++k) {
        if (!f->node.dims[k]) {
          return RT_STATUS(UNIMPLEMENTED, "output %d: `?` dims in a tuple-valued op's result", o);
        }
      }
    }
  }
  for (int32_t o = 0; o < nout; ++o) {
    rt_jit_node_t *n = out_node(L, &outs[o]);
    if (!n) return RT_STATUS(UNIMPLEMENTED, "output %d is not a tensor", o);
    int64_t shape[RT_TENSOR_MAX_RANK];
    const rt_dtype_t dt = n->dtype;
    const int32_t rank = n->rank;
    if (outs[o].field < 0) {
      const int64_t *sh = NULL;
      rt_dtype_t dt2;
      int32_t rank2 = 0;
      RT_RETURN_IF_ERROR(rt_jit_tensor_type(outs[o].expr, &dt2, &rank2, &sh));
      if (rank) memcpy(shape, sh, (size_t)rank * sizeof *shape); /* sh is NULL for rank 0 */
    } else {
      for (int32_t k = 0; k < rank; ++k) {
        shape[k] = (int64_t)LLVMConstIntGetSExtValue(n->dims[k]);
      }
    }
    LLVMValueRef dims[RT_TENSOR_MAX_RANK];
    check_arg(L, args, nin + o, dt, rank, shape, dims, sc);
    n = out_node(L, &outs[o]);
    for (int32_t k = 0; k < rank; ++k) {
      if (LLVMIsConstant(n->dims[k]) && LLVMIsConstant(dims[k])) continue;
      char msg[120];
      snprintf(msg, sizeof msg, "output %d: dim %d disagrees with the inputs' shapes", o, k);
      rt_jit_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, n->dims[k], dims[k], ""), msg);
    }
  }
  return RT_OK;
}

static void lower_task(rt_jit_lower_t *L, LLVMValueRef task_fn, LLVMValueRef body_fn,
                       LLVMTypeRef body_ty, int32_t nargs) {
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(L->c, task_fn, "entry");
  LLVMPositionBuilderAtEnd(L->b, entry);
  LLVMValueRef clo = LLVMGetParam(task_fn, 0);
  LLVMValueRef one = rt_jit_i64(L, 1);
  LLVMValueRef args = LLVMBuildLoad2(L->b, L->ptr, clo, "args");
  LLVMValueRef ctx = LLVMBuildLoad2(L->b, L->ptr, LLVMBuildGEP2(L->b, L->ptr, clo, &one, 1, ""), "ctx");
  LLVMValueRef *cargs = rt_mem_alloc((size_t)(4 + nargs) * sizeof *cargs);
  if (!cargs) return; /* verified later: a missing terminator is reported */
  cargs[0] = args;
  cargs[1] = ctx;
  cargs[2] = LLVMGetParam(task_fn, 1);
  cargs[3] = LLVMGetParam(task_fn, 2);
  for (int32_t i = 0; i < nargs; ++i) cargs[4 + i] = load_field(L, args, i, ARG_DATA, L->ptr);
  LLVMValueRef r = LLVMBuildCall2(L->b, body_ty, body_fn, cargs, (unsigned)(4 + nargs), "");
  rt_mem_free(cargs);
  LLVMBuildRet(L->b, r);
}

static void lower_entry(rt_jit_lower_t *L, LLVMValueRef entry_fn, LLVMValueRef task_fn,
                        LLVMTypeRef task_ty, int32_t nin, int32_t nargs,
                        const rt_jit_node_t *o0, int64_t min_elems, bool templated) {
  const int32_t rank = o0 ? o0->rank : 0;
  L->fn = entry_fn;
  L->ctx = LLVMGetParam(entry_fn, 2);
  LLVMValueRef args = LLVMGetParam(entry_fn, 0);
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(L->c, entry_fn, "entry");
  LLVMPositionBuilderAtEnd(L->b, bb);
  LLVMValueRef clo = LLVMBuildAlloca(L->b, LLVMArrayType(L->ptr, 2), "closure");
  char msg[80];
  snprintf(msg, sizeof msg, "expected %d arguments (inputs and outputs)", nargs);
  rt_jit_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, LLVMGetParam(entry_fn, 1), rt_jit_i32(L, nargs), ""), msg);
  LLVMValueRef one = rt_jit_i64(L, 1);
  LLVMBuildStore(L->b, args, clo);
  LLVMBuildStore(L->b, L->ctx, LLVMBuildGEP2(L->b, L->ptr, clo, &one, 1, ""));
  /* Tasks (the cost model above): numel / min_elems, at most the threads,
   * and for a generic loop nest at most the rows of output 0 (or its
   * 16-column blocks: split_columns); a template splits its own units
   * (panels, tiles) and skips a task left without any. */
  LLVMValueRef ntasks = rt_jit_i32(L, 1);
  if (rank >= 1) {
    LLVMValueRef shp = load_field(L, args, nin, ARG_SHAPE, L->ptr);
    LLVMValueRef rows = rt_jit_i64(L, 1), numel;
    for (int32_t k = 0; k < rank - 1; ++k) {
      LLVMValueRef ix = rt_jit_i64(L, k);
      rows = LLVMBuildMul(L->b, rows, LLVMBuildLoad2(L->b, L->i64, LLVMBuildGEP2(L->b, L->i64, shp, &ix, 1, ""), ""), "");
    }
    LLVMValueRef ix = rt_jit_i64(L, rank - 1);
    numel = LLVMBuildMul(L->b, rows, LLVMBuildLoad2(L->b, L->i64, LLVMBuildGEP2(L->b, L->i64, shp, &ix, 1, ""), ""), "");
    LLVMValueRef worth = LLVMBuildSDiv(L->b, numel, rt_jit_i64(L, min_elems), "");
    LLVMValueRef threads = LLVMBuildSExt(
        L->b, LLVMBuildLoad2(L->b, L->i32, LLVMBuildStructGEP2(L->b, ctx_type(L), L->ctx, CTX_THREADS, ""), ""),
        L->i64, "");
    LLVMValueRef nt = rt_jit_min(L, threads, worth);
    if (!templated) {
      nt = rt_jit_min(L, nt, split_columns(o0) ? LLVMBuildSDiv(L->b, numel, rt_jit_i64(L, 16), "")
                                               : rows);
    }
    ntasks = LLVMBuildTrunc(L->b, rt_jit_max(L, nt, rt_jit_i64(L, 1)), L->i32, "");
  }
  LLVMValueRef pf = LLVMBuildLoad2(L->b, L->ptr, LLVMBuildStructGEP2(L->b, ctx_type(L), L->ctx, CTX_PARALLEL_FOR, ""), "");
  LLVMValueRef use_pool = LLVMBuildAnd(L->b, LLVMBuildIsNotNull(L->b, pf, ""),
                                       LLVMBuildICmp(L->b, LLVMIntSGT, ntasks, rt_jit_i32(L, 1), ""), "");
  LLVMBasicBlockRef pool = LLVMAppendBasicBlockInContext(L->c, entry_fn, "pool");
  LLVMBasicBlockRef serial = LLVMAppendBasicBlockInContext(L->c, entry_fn, "serial");
  LLVMBuildCondBr(L->b, use_pool, pool, serial);
  LLVMPositionBuilderAtEnd(L->b, pool);
  LLVMTypeRef pft_params[4] = {L->ptr, L->ptr, L->ptr, L->i32};
  LLVMTypeRef pft = LLVMFunctionType(L->i32, pft_params, 4, 0);
  LLVMValueRef pargs[4] = {L->ctx, task_fn, clo, ntasks};
  LLVMValueRef r = LLVMBuildCall2(L->b, pft, pf, pargs, 4, "");
  LLVMBuildRet(L->b, LLVMBuildZExt(L->b, LLVMBuildICmp(L->b, LLVMIntNE, r, rt_jit_i32(L, 0), ""), L->i32, ""));
  LLVMPositionBuilderAtEnd(L->b, serial);
  LLVMValueRef targs[3] = {clo, rt_jit_i32(L, 0), rt_jit_i32(L, 1)};
  LLVMBuildRet(L->b, LLVMBuildCall2(L->b, task_ty, task_fn, targs, 3, ""));
}

rt_status_t rt_jit_lower_plain(LLVMModuleRef m, const rt_jit_target_t *target,
                                  const rt_ir_expr_t *fn, const char *symbol, int32_t *out_nin,
                                  int32_t *out_nout) {
  rt_jit_lower_t L0 = {0}, *L = &L0;
  L->target = target;
  L->m = m;
  L->c = LLVMGetModuleContext(m);
  L->b = LLVMCreateBuilderInContext(L->c);
  L->symbol = symbol;
  L->i1 = LLVMInt1TypeInContext(L->c);
  L->i8 = LLVMInt8TypeInContext(L->c);
  L->i16 = LLVMInt16TypeInContext(L->c);
  L->i32 = LLVMInt32TypeInContext(L->c);
  L->i64 = LLVMInt64TypeInContext(L->c);
  L->f16 = LLVMHalfTypeInContext(L->c);
  L->f32 = LLVMFloatTypeInContext(L->c);
  L->f64 = LLVMDoubleTypeInContext(L->c);
  L->ptr = LLVMPointerTypeInContext(L->c, 0);
  L->void_t = LLVMVoidTypeInContext(L->c);

  rt_status_t status = RT_OK;
  out_t *outs = NULL;
  int32_t nout = 0;
  const int32_t nin = param_args(fn);
  LLVMTypeRef *ptypes = NULL;
  status = outputs_of(fn, &nout, &outs);
  const int32_t nargs = nin + nout;
  if (!status) {
    ptypes = rt_mem_alloc((size_t)(4 + nargs) * sizeof *ptypes);
    if (!ptypes) status = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  }
  if (!status) {
    char name[160];
    /* S.body(args, ctx, task, ntasks, noalias data...) */
    ptypes[0] = L->ptr;
    ptypes[1] = L->ptr;
    ptypes[2] = L->i32;
    ptypes[3] = L->i32;
    for (int32_t i = 0; i < nargs; ++i) ptypes[4 + i] = L->ptr;
    LLVMTypeRef body_ty = LLVMFunctionType(L->i32, ptypes, (unsigned)(4 + nargs), 0);
    snprintf(name, sizeof name, "%s.body", symbol);
    LLVMValueRef body_fn = LLVMAddFunction(m, name, body_ty);
    LLVMSetLinkage(body_fn, LLVMInternalLinkage);
    for (int32_t i = 0; i < nargs; ++i) {
      set_attr(L, body_fn, (unsigned)(5 + i), "noalias");
      set_attr(L, body_fn, (unsigned)(5 + i), "nocapture");
    }
    set_attr(L, body_fn, LLVMAttributeFunctionIndex, "nounwind");
    int64_t work = 1;
    status = lower_body(L, fn, nin, nout, outs, body_fn, &work);
    if (!status) {
      /* S.task(closure, task, ntasks) */
      LLVMTypeRef tparams[3] = {L->ptr, L->i32, L->i32};
      LLVMTypeRef task_ty = LLVMFunctionType(L->i32, tparams, 3, 0);
      snprintf(name, sizeof name, "%s.task", symbol);
      LLVMValueRef task_fn = LLVMAddFunction(m, name, task_ty);
      LLVMSetLinkage(task_fn, LLVMInternalLinkage);
      lower_task(L, task_fn, body_fn, body_ty, nargs);
      /* S(args, nargs, ctx) */
      LLVMTypeRef eparams[3] = {L->ptr, L->i32, L->ptr};
      LLVMTypeRef entry_ty = LLVMFunctionType(L->i32, eparams, 3, 0);
      LLVMValueRef entry_fn = LLVMAddFunction(m, symbol, entry_ty);
      set_attr(L, entry_fn, LLVMAttributeFunctionIndex, "nounwind");
      rt_jit_node_t *o0 = out_node(L, &outs[0]);
      const bool templated = rt_jit_template_name(fn, target) != NULL;
      lower_entry(L, entry_fn, task_fn, task_ty, nin, nargs, o0,
                  elems_per_task(fn, o0, work, templated), templated);
    }
  }
  *out_nin = nin;
  *out_nout = nout;
  rt_mem_free(ptypes);
  rt_mem_free(outs);
  rt_mem_free(L->fields);
  rt_mem_free(L->nodes);
  rt_mem_free(L->memo);
  LLVMDisposeBuilder(L->b);
  return status;
}
