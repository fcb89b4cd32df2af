/* Plans of the reduce family (see ir/op/plan.h); computed in ir/op/. */
#ifndef RT_IR_OP_PLAN_REDUCE_H_
#define RT_IR_OP_PLAN_REDUCE_H_

#include "ir/op/plan.h"

#endif /* RT_IR_OP_PLAN_REDUCE_H_ */
