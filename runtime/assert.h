/* RT_ASSERT: checks of relayrt's own invariants, in debug builds only.
 * Never for user input (that gets a status), never with side effects.
 * RT_UNREACHABLE marks a path the code above makes impossible. */
#ifndef RT_RUNTIME_ASSERT_H_
#define RT_RUNTIME_ASSERT_H_

#include "rt/base.h"

/* Prints "relayrt: assertion failed: EXPR (file:line)" and aborts. Declared
 * in every build so the one definition (status.c) always has a prototype. */
__attribute__((noreturn)) void rt_assert_fail(const char *expr, const char *file,
                                             int line);

#if defined(RT_DEBUG) && RT_DEBUG
#define RT_ASSERT(cond) \
  ((cond) ? (void)0 : rt_assert_fail(#cond, __FILE__, __LINE__))
#else
#define RT_ASSERT(cond) ((void)0)
#endif

#define RT_UNREACHABLE() __builtin_unreachable()

#endif /* RT_RUNTIME_ASSERT_H_ */
