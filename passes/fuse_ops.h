/* FuseOps helpers that later stages share (the JIT's kernel names,
 * `relayrt build --emit=kernels`, the DOT writer). Internal to passes/ and
 * the layers above it. */
#ifndef RT_PASSES_FUSE_OPS_H_
#define RT_PASSES_FUSE_OPS_H_

#include "ir/ir.h"
#include "runtime/strbuf.h"

/* rt_ir_is_primitive and rt_ir_primitive_name (ir/ir.h) name fused groups. */

#endif /* RT_PASSES_FUSE_OPS_H_ */
