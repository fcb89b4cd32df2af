/* Internal to backend/: the build steps every executor shares. */
#ifndef RT_BACKEND_BACKEND_H_
#define RT_BACKEND_BACKEND_H_

#include "ir/ir.h"
#include "runtime/strbuf.h"
#include "rt/params.h"
#include "rt/pass.h"

/* Replaces main's parameters named in `params` by constants (the tensors,
 * shared, not copied) in a module derived from `module`, and type-checks
 * it. A name that is not a parameter of main, or a tensor whose dtype or
 * shape does not fit the parameter, is INVALID_ARGUMENT naming both. */
RT_MUST_USE_RESULT rt_status_t rt_backend_bind_params(rt_module_t *module,
                                                      const rt_params_t *params,
                                                      rt_module_t **out_module);
/* The same substitution, but main keeps the bound parameters (unused), so
 * a caller that passes inputs by position still passes all of them: the
 * graph executor's specializations to the values of the inputs dyn ops
 * read (backend/graph_specialize.h). */
RT_MUST_USE_RESULT rt_status_t rt_backend_bind_values(rt_module_t *module,
                                                      const rt_params_t *params,
                                                      rt_module_t **out_module);

/* Does tensor t fit declared tensor type ty (`?` dims match any size)? */
bool rt_backend_tensor_fits(const rt_tensor_t *t, const rt_ir_type_t *ty);
/* "Tensor[(2, 3), float32]" (or "int32" for 0-d) of a tensor. */
void rt_backend_describe_tensor(const rt_tensor_t *t, rt_strbuf_t *out);

/* The one build pipeline (passes/passes.def; docs/pipeline.md) under ctx
 * (NULL = defaults), then the steps specific to `executor` ("vm", "graph";
 * "debug" has none). Returns the optimized module (a new reference) and, when
 * out_shared is non-NULL, the module after the shared pipeline alone. */
RT_MUST_USE_RESULT rt_status_t rt_build(rt_module_t *module, const rt_pass_context_t *ctx,
                                        const char *executor, rt_module_t **out_module,
                                        rt_module_t **out_shared);

#endif /* RT_BACKEND_BACKEND_H_ */
