/* InferType: type inference as a pass (the manager type-checks after every
 * pass anyway, so the module comes back as it is, typed). */
#include "passes/pass.h"

rt_status_t rt_pass_infer_type(const rt_pass_env_t *env, rt_module_t *in, rt_module_t **out) {
  (void)env;
  if (!in->typed) RT_RETURN_IF_ERROR(rt_ir_infer_types(in));
  rt_module_retain(in);
  *out = in;
  return RT_OK;
}
