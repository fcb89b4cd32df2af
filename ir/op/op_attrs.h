/* Typed attributes of the built-in ops: one struct per schema of
 * ir/op/attrs.def, and its decoder.
 *
 * An op call's attrs (rt_ir_attrs_t) hold values in schema order with every
 * default filled in. rt_ir_attrs_<schema>(attrs) copies them into
 * rt_attrs_<schema>_t, a struct with one C field per attribute, so code
 * outside ir/ names an attribute as a struct member: a misspelt name is a
 * compile error, not a run-time miss. The decoders read by position; they
 * allocate nothing and cannot fail (the call was checked against the schema
 * when it was built, and a debug build asserts the attrs follow it).
 *
 * Field types by kind:
 *   INT          int64_t             BOOL   bool
 *   FLOAT        double              STRING const char * ("" for None)
 *   DTYPE        rt_dtype_t          ANY    const rt_attr_value_t *
 *   INTS, INTS2, INT_OR_INTS, FLOATS  rt_attr_list_t (count 0 for None;
 *                a lone int of INT_OR_INTS is a list of one)
 * and beside each, `bool <field>_is_none`: the value is None (for DTYPE:
 * unset, ""; the type relation has already rejected a bad dtype name).
 * Typed attrs are the raw, un-normalised values; the op's plan
 * (ir/op/plan.h) carries the normalised ones (axes made non-negative,
 * padding expanded, layouts as enums). */
#ifndef RT_IR_OP_OP_ATTRS_H_
#define RT_IR_OP_OP_ATTRS_H_

#include <stdbool.h>
#include <stdint.h>

#include "ir/attrs.h"
#include "rt/tensor.h"

/* A list value: ints, floats, or lists (INTS2). Read with the accessors. */
typedef struct rt_attr_list_t {
  const rt_attr_value_t *items;
  int32_t count;
} rt_attr_list_t;

/* Item i as an int (bools count as 0/1) or a float (ints widen). */
static inline int64_t rt_attr_list_int(rt_attr_list_t l, int32_t i) {
  if (i < 0 || i >= l.count) return 0;
  const rt_attr_value_t *v = &l.items[i];
  return v->kind == RT_ATTR_INT ? v->i : v->kind == RT_ATTR_BOOL ? (int64_t)v->b : 0;
}
static inline double rt_attr_list_float(rt_attr_list_t l, int32_t i) {
  if (i < 0 || i >= l.count) return 0;
  const rt_attr_value_t *v = &l.items[i];
  return v->kind == RT_ATTR_FLOAT ? v->f : v->kind == RT_ATTR_INT ? (double)v->i : 0;
}
/* Item i of a list of lists (INTS2), empty when it is not a list. */
static inline rt_attr_list_t rt_attr_list_list(rt_attr_list_t l, int32_t i) {
  rt_attr_list_t r = {NULL, 0};
  if (i >= 0 && i < l.count && l.items[i].kind == RT_ATTR_ARRAY) {
    r.items = l.items[i].array.items;
    r.count = l.items[i].array.count;
  }
  return r;
}

#define RT_ATTR_CTYPE_INT int64_t
#define RT_ATTR_CTYPE_FLOAT double
#define RT_ATTR_CTYPE_BOOL bool
#define RT_ATTR_CTYPE_STRING const char *
#define RT_ATTR_CTYPE_DTYPE rt_dtype_t
#define RT_ATTR_CTYPE_INTS rt_attr_list_t
#define RT_ATTR_CTYPE_INTS2 rt_attr_list_t
#define RT_ATTR_CTYPE_INT_OR_INTS rt_attr_list_t
#define RT_ATTR_CTYPE_FLOATS rt_attr_list_t
#define RT_ATTR_CTYPE_ANY const rt_attr_value_t *

#define RT_FIELD(field, KIND, dflt, flags) \
  RT_ATTR_CTYPE_##KIND field;              \
  bool field##_is_none;
#define RT_SCHEMA(name, fields)                                   \
  typedef struct rt_attrs_##name##_t { fields } rt_attrs_##name##_t; \
  rt_attrs_##name##_t rt_ir_attrs_##name(const rt_ir_attrs_t *attrs);
#include "ir/op/attrs.def"
#undef RT_SCHEMA
#undef RT_FIELD

/* The typed attrs of an op without attributes. */
typedef struct rt_attrs_none_t {
  char unused_;
} rt_attrs_none_t;

/* Any op's typed attrs, as its schema's member (`a.leaky_relu.alpha`):
 * what a family kernel holds when its ops have different schemas. */
typedef union rt_attrs_any_t {
  rt_attrs_none_t none;
#define RT_FIELD(field, KIND, dflt, flags)
#define RT_SCHEMA(name, fields) rt_attrs_##name##_t name;
#include "ir/op/attrs.def"
#undef RT_SCHEMA
#undef RT_FIELD
} rt_attrs_any_t;

struct rt_ir_op_t;
/* Decodes a built-in op call's attrs into the member of its schema (the
 * `fields` column of ir/ops.def); all zero for a registered op. */
void rt_ir_attrs_decode(const struct rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                        rt_attrs_any_t *out);

#endif /* RT_IR_OP_OP_ATTRS_H_ */
