/* relayrt pass context: the one explicit value that decides which passes
 * run before an executor is created (DESIGN.md, "PassContext and the
 * pipeline"). rt_create_executor copies it and applies it in full before
 * returning; nothing depends on a hidden scope.
 *
 * This header holds what exists today: the opt level. Required/disabled
 * passes, config and instruments arrive with the passes issue.
 *
 * Ownership: rt_pass_context_create returns a context the caller owns
 * (rt_pass_context_release). Thread-safety: a context may be read from many
 * threads at once; setters are not synchronized. */
#ifndef RT_PASS_H_
#define RT_PASS_H_

#include "rt/base.h"
#include "rt/status.h"

RT_EXTERN_C_BEGIN

typedef struct rt_pass_context_t rt_pass_context_t;

/* A context with opt_level 2 (TVM's default). */
RT_API RT_MUST_USE_RESULT rt_status_t rt_pass_context_create(rt_pass_context_t **out_context);
RT_API void rt_pass_context_release(rt_pass_context_t *context); /* NULL is fine */

/* 0..4; anything else is INVALID_ARGUMENT. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_pass_context_set_opt_level(rt_pass_context_t *context,
                                                                    int32_t opt_level);
RT_API int32_t rt_pass_context_opt_level(const rt_pass_context_t *context);

RT_EXTERN_C_END

#endif /* RT_PASS_H_ */
