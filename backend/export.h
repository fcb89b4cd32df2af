/* Internal to backend/: writing a graph or vm executor's build as a shared
 * library (rt_executor_export; the format is runtime/artifact_format.h). */
#ifndef RT_BACKEND_EXPORT_H_
#define RT_BACKEND_EXPORT_H_

#include "backend/graph.h"
#include "backend/vm_compile.h"
#include "rt/artifact.h"

/* Links build's kernel objects and `plan` (with the input names of main)
 * into a shared library at `path`. */
RT_MUST_USE_RESULT rt_status_t rt_backend_export(const rt_graph_build_t *build,
                                                 const rt_graph_plan_t *plan,
                                                 const char *const *input_names,
                                                 const char *path);

/* Links a vm build's kernels, @main's signature (inputs and flattened
 * outputs; -1 dims are `?`) and its serialized executable into a shared
 * library at `path`, which rt_artifact_load makes a "vm" model of. */
RT_MUST_USE_RESULT rt_status_t rt_backend_export_vm(const rt_vm_build_t *build, int32_t num_inputs,
                                                    const rt_tensor_info_t *inputs,
                                                    int32_t num_outputs,
                                                    const rt_tensor_info_t *outputs,
                                                    const char *path);

#endif /* RT_BACKEND_EXPORT_H_ */
