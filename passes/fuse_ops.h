/* FuseOps helpers that later stages share (the JIT's kernel names,
 * `relayrt build --emit=kernels`, the DOT writer). Internal to passes/ and
 * the layers above it. */
#ifndef RT_PASSES_FUSE_OPS_H_
#define RT_PASSES_FUSE_OPS_H_

#include "ir/ir.h"
#include "runtime/strbuf.h"

/* Is `fn` (an RT_IR_FUNCTION) a fused group: its attrs hold Primitive with a
 * non-zero int value? */
bool rt_pass_is_primitive_fn(const rt_ir_expr_t *fn);

/* Appends TVM's readable kernel name of a Primitive function to `out`:
 * "fused" then "_<op>" for every op call of the body in post order (args
 * left to right, each node once), with '.' written as '_':
 * "fused_nn_conv2d_add_nn_relu". A name longer than 80 characters is cut
 * to 80 and followed by "_<hash>_" (64-bit FNV-1a of the whole name, hex),
 * as TVM does (with its std::hash). Not unique: the JIT adds "_1", "_2"
 * for repeats. INVALID_ARGUMENT when `fn` is not a function;
 * RESOURCE_EXHAUSTED when the walk cannot allocate. Thread-safe. */
RT_MUST_USE_RESULT rt_status_t rt_pass_fused_name(const rt_ir_expr_t *fn, rt_strbuf_t *out);

#endif /* RT_PASSES_FUSE_OPS_H_ */
