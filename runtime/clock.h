/* The monotonic clock in milliseconds, for the timings the library reports
 * (pass instruments, compile stages, per-kernel profiles). Header only. */
#ifndef RT_RUNTIME_CLOCK_H_
#define RT_RUNTIME_CLOCK_H_

#include <time.h>

static inline double rt_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

#endif /* RT_RUNTIME_CLOCK_H_ */
