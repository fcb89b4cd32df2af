/* rt_pass_context: the explicit pass configuration (include/rt/pass.h).
 * Today it holds the opt level; the pass manager of the passes issue reads
 * it. A context is a plain value: executors copy it. */
#include <stdlib.h>

#include "passes/passes.h"

rt_status_t rt_pass_context_create(rt_pass_context_t **out_context) {
  rt_pass_context_t *c = calloc(1, sizeof *c);
  if (!c) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating a pass context");
  c->opt_level = 2;
  *out_context = c;
  return RT_OK;
}

void rt_pass_context_release(rt_pass_context_t *context) { free(context); }

rt_status_t rt_pass_context_set_opt_level(rt_pass_context_t *context, int32_t opt_level) {
  if (opt_level < 0 || opt_level > 4) {
    return RT_STATUS(INVALID_ARGUMENT, "opt_level must be 0..4, got %d", (int)opt_level);
  }
  context->opt_level = opt_level;
  return RT_OK;
}

int32_t rt_pass_context_opt_level(const rt_pass_context_t *context) {
  return context ? context->opt_level : 2;
}
