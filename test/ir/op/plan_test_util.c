/* The helpers of plan_test_util.h. */
#include <stdio.h>
#include <string.h>

#include "plan_test_util.h"
#include "test_util.h"

const rt_ir_attrs_t *plan_test_attrs(rt_module_t *m, const rt_ir_op_t *op, const char *text) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", text);
  const char *keys[16];
  rt_attr_value_t values[16];
  int32_t n = 0;
  for (char *item = strtok(buf, ";"); item; item = strtok(NULL, ";")) {
    char *eq = strchr(item, '=');
    assert_non_null(eq);
    *eq = '\0';
    while (*item == ' ') item++;
    char *key = NULL;
    assert_ok(rt_arena_strndup(&m->arena, item, strlen(item), &key));
    assert_true(n < 16);
    keys[n] = key;
    assert_ok(rt_attr_value_parse(&m->arena, eq + 1, &values[n]));
    n++;
  }
  rt_ir_attrs_t *attrs = NULL;
  rt_ir_span_t span = {0};
  assert_ok(rt_ir_op_attrs(m, span, op, n, keys, values, &attrs));
  return attrs;
}

rt_plan_input_t plan_test_input(int32_t rank, const int64_t *shape) {
  rt_plan_input_t in = {RT_DTYPE_FLOAT32, rank, shape, NULL};
  return in;
}
