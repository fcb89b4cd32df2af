/* What the plan tests (test_plan.c, test_plan_nn.c) share: an op call's
 * schema-complete attrs from "key=value; key=value" text (Relay attribute
 * values, defaults filled, made in module m), and a float32 plan input. */
#ifndef RT_TEST_IR_OP_PLAN_TEST_UTIL_H_
#define RT_TEST_IR_OP_PLAN_TEST_UTIL_H_

#include "ir/ir.h"
#include "ir/op/plan.h"

/* Fails the test (cmocka) on a bad text; the attrs live in m's arena. */
const rt_ir_attrs_t *plan_test_attrs(rt_module_t *m, const rt_ir_op_t *op, const char *text);
/* A float32 input of `rank` dims (shape borrowed), no value. */
rt_plan_input_t plan_test_input(int32_t rank, const int64_t *shape);

#endif /* RT_TEST_IR_OP_PLAN_TEST_UTIL_H_ */
