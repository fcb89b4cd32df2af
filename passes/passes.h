/* Internal to passes/ and backend/: the pass context's fields. */
#ifndef RT_PASSES_PASSES_H_
#define RT_PASSES_PASSES_H_

#include "ir/ir.h"
#include "rt/pass.h"

struct rt_pass_context_t {
  int32_t opt_level;
};

#endif /* RT_PASSES_PASSES_H_ */
