/* relayrt: the umbrella header. Include this, link librelayrt.
 *
 * Ownership rules, once for the whole API:
 *  - Functions that can fail return rt_status_t: NULL is success; anything
 *    else is an error the caller owns (rt_status_free, or return it on).
 *    Results come back through out_ parameters, which are untouched on error.
 *  - The objects that cross the API are reference-counted: tensors,
 *    params, modules, executors and artifacts (rt_tensor_retain,
 *    rt_params_retain, rt_module_retain, rt_executor_retain,
 *    rt_artifact_retain). _create/_parse/_load/_read return a reference the
 *    caller owns; drop it with _release. _retain adds one. The other
 *    objects have one owner and no _retain: a pass context
 *    (rt_pass_context_create/_release) and an artifact runtime
 *    (rt_artifact_runtime_create/_release). Accessors borrow: what they
 *    return lives as long as the object it came from.
 *  - Memory comes from an rt_allocator_t where a function takes one;
 *    rt_allocator_system() is the default.
 *  - No function aborts, exits or prints because of its input. */
#ifndef RT_RT_H_
#define RT_RT_H_

#include "rt/allocator.h"
#include "rt/artifact.h"
#include "rt/base.h"
#include "rt/dlpack.h"
#include "rt/dot.h"
#include "rt/executor.h"
#include "rt/kernel_abi.h"
#include "rt/module.h"
#include "rt/op.h"
#include "rt/params.h"
#include "rt/pass.h"
#include "rt/status.h"
#include "rt/tensor.h"

#endif /* RT_RT_H_ */
