/* The engine the CombineParallel* passes share (passes/combine_parallel.c),
 * internal to passes/: one op's branches on the same data become one call
 * over the weights concatenated along the weight's output axis, and every
 * branch takes its part back with a strided_slice along the result's
 * output axis. Each pass supplies the op-specific rules in a
 * rt_combine_rules_t; the grouping, rewriting and slicing are here. */
#ifndef RT_PASSES_COMBINE_PARALLEL_H_
#define RT_PASSES_COMBINE_PARALLEL_H_

#include <stddef.h>

#include "ir/op/op_attrs.h"
#include "passes/pass.h"

/* The position of `field` in the attrs of a call whose schema is `schema`
 * (the order of ir/op/attrs.def, which a call's attrs follow): a misspelt
 * schema or field is a compile error. Each schema expands to a struct of
 * one char per field, so a field's offset is its index. */
#define RT_FIELD(field, KIND, dflt, flags) char field;
#define RT_SCHEMA(name, fields) \
  typedef struct rt_combine_pos_##name##_t { fields } rt_combine_pos_##name##_t;
#include "ir/op/attrs.def"
#undef RT_SCHEMA
#undef RT_FIELD
#define RT_COMBINE_FIELD_POS(schema, field) \
  ((int32_t)offsetof(rt_combine_pos_##schema##_t, field))

typedef struct rt_combine_rules_t {
  const char *pass_name;  /* "CombineParallelConv2d", for error annotations */
  /* A call this pass can combine (its weight atomic and static). */
  bool (*candidate)(const rt_ir_expr_t *call);
  /* Two candidates that may share one combined call (same data node). */
  bool (*compatible)(const rt_ir_expr_t *a, const rt_ir_expr_t *b);
  int32_t (*weight_axis)(const rt_ir_expr_t *call); /* concatenated weights */
  int32_t (*out_axis)(const rt_ir_expr_t *call);    /* sliced result */
  /* The size attribute (channels / units) the combined call sums: its
   * position in the call's attrs (RT_COMBINE_FIELD_POS), and whether a call
   * sets it (reads the typed attr). */
  int32_t size_pos;
  bool (*size_set)(const rt_ir_expr_t *call);
  bool size_none_unless_all; /* the sum only when every branch sets it, else None */
} rt_combine_rules_t;

#define RT_COMBINE_MIN_BRANCHES 3

/* The tensor type of `e` (NULL when it is not a tensor). */
const rt_ir_type_t *rt_combine_tensor_type(const rt_ir_expr_t *e);

RT_MUST_USE_RESULT rt_status_t rt_pass_combine_parallel(const rt_pass_env_t *env,
                                                        const rt_combine_rules_t *rules,
                                                        rt_module_t *in, rt_module_t **out);

#endif /* RT_PASSES_COMBINE_PARALLEL_H_ */
