/* PLACEHOLDER: simplify_expr is not implemented yet; it returns its input unchanged.
 * Its implementation replaces this file. */
#include "passes/pass.h"

rt_status_t rt_pass_simplify_expr(const rt_pass_env_t *env, rt_module_t *in, rt_module_t **out) {
  (void)env;
  rt_module_retain(in);
  *out = in;
  return RT_OK;
}
