/* relayrt DOT export: a Graphviz picture of a module's @main dataflow
 * (`relayrt build --emit=dot`).
 *
 * One node per op call, var, constant, tuple, projection and if; an edge
 * per data dependence (producer -> consumer). Each call of a Primitive
 * function (a fused group, after FuseOps) is drawn as
 * `subgraph cluster_<N>` labeled with its kernel name
 * ("fused_nn_conv2d_add_nn_relu"), holding the ops of its body; edges into
 * the group go straight to the ops that read each parameter. Let is drawn
 * as its bound var (with an edge from the value); a non-Primitive fn
 * literal is one node (its body is not drawn).
 *
 * Ownership: *out_text is malloc'd, NUL-terminated, owned by the caller
 * (free()). Thread-safety: reads the module only; safe to call from many
 * threads at once. */
#ifndef RT_DOT_H_
#define RT_DOT_H_

#include "rt/base.h"
#include "rt/module.h"
#include "rt/status.h"

RT_EXTERN_C_BEGIN

/* Writes `module`'s @main as a DOT `digraph`. Errors: INVALID_ARGUMENT for
 * NULL arguments, NOT_FOUND when there is no @main, RESOURCE_EXHAUSTED when
 * memory runs out. *out_text is untouched on error. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_module_to_dot(const rt_module_t *module,
                                                       char **out_text);

RT_EXTERN_C_END

#endif /* RT_DOT_H_ */
