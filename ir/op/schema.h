/* Attribute schemas of the built-in ops as the arrays the op table holds,
 * included by ir/op/table.c only: schema_<fields> for each RT_SCHEMA of
 * ir/op/attrs.def (where the fields, their order and defaults are
 * documented). Each array ends with a {NULL} terminator; counts are
 * RT_COUNTOF - 1. (schema_none, of the ops without attributes, is the
 * table's.) */
#ifndef RT_IR_OP_SCHEMA_H_
#define RT_IR_OP_SCHEMA_H_

#include "ir/attrs.h"

#define NUL RT_ATTR_F_NULLABLE
#define ALW RT_ATTR_F_ALWAYS_PRINT
#define END {NULL, RT_ATTR_K_ANY, NULL, 0}

#define RT_FIELD(field, KIND, dflt, flags) {#field, RT_ATTR_K_##KIND, dflt, flags},
#define RT_SCHEMA(name, fields) \
  static const rt_attr_field_t schema_##name[] = {fields END};
#include "ir/op/attrs.def"
#undef RT_SCHEMA
#undef RT_FIELD

#undef NUL
#undef ALW
#undef END

#endif /* RT_IR_OP_SCHEMA_H_ */
