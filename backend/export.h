/* Internal to backend/: writing a graph executor's build as a shared
 * library (rt_executor_export; the format is runtime/artifact_format.h). */
#ifndef RT_BACKEND_EXPORT_H_
#define RT_BACKEND_EXPORT_H_

#include "backend/graph.h"

/* Links build's kernel objects and `plan` (with the input names of main)
 * into a shared library at `path`. */
RT_MUST_USE_RESULT rt_status_t rt_backend_export(const rt_graph_build_t *build,
                                                 const rt_graph_plan_t *plan,
                                                 const char *const *input_names,
                                                 const char *path);

#endif /* RT_BACKEND_EXPORT_H_ */
