/* The vm's kernels whose output shapes the input's values decide (ir/ops.def,
 * data-dependent block: argwhere): not compiled but run by host code here.
 * A kernel qualifies when its Primitive function is one call of such an op
 * on its parameter (an OPAQUE op is a group of its own). ShapeFunc's answer
 * reads the input's values (rt_vm_datadep_shapes: argwhere counts the
 * nonzero elements); the entry point that rt_vm_resolve_kernel hands the VM
 * then fills the output the VM allocated at that shape. Nothing is compiled
 * or cached per value. */
#include <string.h>

#include "backend/vm_compile.h"

/* The data-dependent op kernel k runs, or -1. */
int32_t rt_vm_datadep_op(const rt_vm_build_t *b, int32_t k) {
  const rt_ir_expr_t *fn = b->kernel_fns[k];
  if (!fn || fn->kind != RT_IR_FUNCTION || fn->fn.nparams != 1) return -1;
  const rt_ir_expr_t *body = fn->fn.body;
  if (body->kind != RT_IR_CALL || body->call.callee->kind != RT_IR_OP || body->call.nargs != 1 ||
      body->call.args[0] != fn->fn.params[0]) {
    return -1;
  }
  int32_t id = body->call.callee->op.op->id;
  return id == RT_OP_ARGWHERE ? id : -1;
}

static int64_t elem_offset(const rt_kernel_arg *a, int64_t i) {
  if (!a->strides) return i;
  int64_t off = 0;
  for (int32_t d = a->rank - 1; d >= 0; --d) {
    off += (i % a->shape[d]) * a->strides[d];
    i /= a->shape[d];
  }
  return off;
}

/* Whether element i of a is nonzero: its bytes, the sign bit aside for
 * floats (-0.0 is zero, NaN is not). */
static bool nonzero(const rt_kernel_arg *a, int64_t i) {
  int32_t size = a->dtype.bits / 8;
  const uint8_t *p = (const uint8_t *)a->data + elem_offset(a, i) * size;
  uint64_t v = 0;
  memcpy(&v, p, (size_t)size); /* little-endian hosts: the low bytes */
  if (a->dtype.code == 2 || a->dtype.code == 4) v &= ~((uint64_t)1 << (a->dtype.bits - 1));
  return v != 0;
}

static int64_t numel(const rt_kernel_arg *a) {
  int64_t n = 1;
  for (int32_t d = 0; d < a->rank; ++d) n *= a->shape[d];
  return n;
}

static bool readable(const rt_kernel_arg *a) {
  return a->dtype.lanes == 1 && (a->dtype.bits == 8 || a->dtype.bits == 16 || a->dtype.bits == 32 ||
                                 a->dtype.bits == 64);
}

rt_status_t rt_vm_datadep_shapes(int32_t op, int32_t num_inputs, const rt_kernel_arg *inputs,
                                 int32_t num_outputs, rt_vm_shape_t *out_shapes) {
  if (op != RT_OP_ARGWHERE || num_inputs != 1 || num_outputs != 1 || !readable(&inputs[0])) {
    return RT_STATUS(INTERNAL, "%s", "not a data-dependent kernel the vm runs");
  }
  const rt_kernel_arg *x = &inputs[0];
  int64_t n = numel(x), count = 0;
  for (int64_t i = 0; i < n; ++i) count += nonzero(x, i);
  out_shapes[0].rank = 2;
  out_shapes[0].dims[0] = count;
  out_shapes[0].dims[1] = x->rank;
  return RT_OK;
}

/* argwhere's entry point: args = input, output [count, rank] int32 (the
 * shape ShapeFunc gave). */
static int32_t argwhere_host(const rt_kernel_arg *args, int32_t nargs, const rt_kernel_ctx *ctx) {
  (void)ctx;
  if (nargs != 2) return 1;
  const rt_kernel_arg *x = &args[0], *y = &args[1];
  if (!readable(x) || y->rank != 2 || y->shape[1] != x->rank || y->dtype.bits != 32) return 1;
  int32_t *out = y->data;
  int64_t n = numel(x), row = 0, r = x->rank;
  for (int64_t i = 0; i < n; ++i) {
    if (!nonzero(x, i)) continue;
    if (row >= y->shape[0]) return 1;
    int64_t rem = i;
    for (int64_t d = r - 1; d >= 0; --d) {
      out[row * r + d] = (int32_t)(rem % x->shape[d]);
      rem /= x->shape[d];
    }
    ++row;
  }
  return row == y->shape[0] ? 0 : 1;
}

rt_kernel_fn rt_vm_datadep_kernel(int32_t op) {
  return op == RT_OP_ARGWHERE ? argwhere_host : NULL;
}
