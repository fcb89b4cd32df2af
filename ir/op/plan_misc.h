/* Plans of the misc family (see ir/op/plan.h); computed in ir/op/. */
#ifndef RT_IR_OP_PLAN_MISC_H_
#define RT_IR_OP_PLAN_MISC_H_

#include "ir/op/plan.h"

#endif /* RT_IR_OP_PLAN_MISC_H_ */
