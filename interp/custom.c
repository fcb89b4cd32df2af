/* Custom ops (include/rt/op.h) in the reference interpreter: calling an
 * op's reference kernel (interp/custom.h). The output goes to a zeroed
 * copy followed by a guard zone in debug builds, so a kernel that computes
 * another shape than its type relation's is an error, not a corruption. */
#include <string.h>

#include "interp/custom.h"
#include "runtime/assert.h"
#include "runtime/mem.h"

static void arg_of(const rt_tensor_t *t, rt_kernel_arg *out) {
  rt_dtype_t d = rt_tensor_dtype(t);
  memset(out, 0, sizeof *out);
  out->data = rt_tensor_data(t);
  out->shape = rt_tensor_shape(t);
  out->strides = NULL;
  out->rank = rt_tensor_rank(t);
  out->dtype.code = d.code;
  out->dtype.bits = d.bits;
  out->dtype.lanes = d.lanes;
}

rt_status_t rt_interp_custom_reference(const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                                       int32_t num_inputs, rt_tensor_t *const *inputs,
                                       int32_t num_outputs, rt_tensor_t *const *outputs) {
  const rt_ir_custom_t *c = op->custom;
  RT_ASSERT(c);
  if (num_inputs != c->def.num_inputs || num_outputs != 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s takes %d tensors and gives one, got %d and %d",
                     op->name, (int)c->def.num_inputs, (int)num_inputs, (int)num_outputs);
  }
  rt_kernel_arg in[RT_IR_CUSTOM_MAX_INPUTS], out;
  for (int32_t i = 0; i < num_inputs; ++i) {
    if (!rt_tensor_is_compact(inputs[i])) {
      return RT_STATUS(INTERNAL, "%s: input %d is not compact", op->name, (int)i + 1);
    }
    arg_of(inputs[i], &in[i]);
  }
  arg_of(outputs[0], &out);
  size_t bytes = rt_tensor_nbytes(outputs[0]);
  unsigned char *shadow = NULL;
#ifdef RT_DEBUG
  shadow = rt_mem_alloc(bytes + RT_IR_CUSTOM_GUARD_BYTES);
  if (!shadow) return RT_STATUS(RESOURCE_EXHAUSTED, "%s: out of memory", op->name);
  memset(shadow, 0, bytes);
  memset(shadow + bytes, RT_IR_CUSTOM_GUARD_BYTE, RT_IR_CUSTOM_GUARD_BYTES);
  out.data = shadow;
#endif
  rt_op_call_t call = {c->def.user, op->name, (const rt_op_attrs_t *)attrs, num_inputs, in, &out};
  rt_status_t st = c->def.reference(&call);
  if (st) {
    st = rt_status_annotate(st, "in the reference kernel of %s", op->name);
  }
#ifdef RT_DEBUG
  if (!st && !rt_ir_custom_guard_intact(shadow + bytes, RT_IR_CUSTOM_GUARD_BYTES)) {
    char shape[128];
    rt_ir_custom_shape_text(&out, shape, sizeof shape);
    st = RT_STATUS(INTERNAL, "%s: the reference kernel wrote past the end of its output (%zu "
                   "bytes for shape %s): it computed another shape than the type relation's",
                   op->name, bytes, shape);
  }
  if (!st && bytes) memcpy(rt_tensor_data(outputs[0]), shadow, bytes);
  rt_mem_free(shadow);
#else
  (void)shadow;
  (void)bytes;
#endif
  return st;
}
