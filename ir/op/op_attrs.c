/* The decoders of ir/op/op_attrs.h, one per schema of ir/op/attrs.def,
 * expanded from the same rows: field i of the struct is value i of the
 * call's schema-ordered attrs, converted by its kind. */
#include <string.h>

#include "ir/op/op_attrs.h"

#include "ir/ir.h"
#include "ir/op/schema.h"
#include "runtime/assert.h"

static const rt_attr_value_t k_none = {.kind = RT_ATTR_NONE};

/* Value i, or None past the end (a release build given attrs that do not
 * follow the schema reads defaults of zero rather than out of bounds). */
static const rt_attr_value_t *value_at(const rt_ir_attrs_t *attrs, int32_t i) {
  return attrs && i < attrs->count ? &attrs->values[i] : &k_none;
}

static void check_schema(const rt_ir_attrs_t *attrs,
                         const rt_attr_field_t *schema) {
  (void)attrs;
  (void)schema;
#ifndef NDEBUG
  int32_t n = 0;
  while (schema[n].name) n++;
  RT_ASSERT(attrs && attrs->count == n);
  for (int32_t i = 0; attrs && i < n && i < attrs->count; ++i) {
    RT_ASSERT(strcmp(attrs->keys[i], schema[i].name) == 0);
  }
#endif
}

static int64_t dec_INT(const rt_attr_value_t *v, bool *none) {
  *none = v->kind == RT_ATTR_NONE;
  switch (v->kind) {
    case RT_ATTR_INT: return v->i;
    case RT_ATTR_BOOL: return v->b;
    case RT_ATTR_FLOAT: return (int64_t)v->f;
    default: return 0;
  }
}

static double dec_FLOAT(const rt_attr_value_t *v, bool *none) {
  *none = v->kind == RT_ATTR_NONE;
  switch (v->kind) {
    case RT_ATTR_FLOAT: return v->f;
    case RT_ATTR_INT: return (double)v->i;
    case RT_ATTR_BOOL: return v->b;
    default: return 0;
  }
}

static bool dec_BOOL(const rt_attr_value_t *v, bool *none) {
  *none = v->kind == RT_ATTR_NONE;
  if (v->kind == RT_ATTR_BOOL) return v->b;
  if (v->kind == RT_ATTR_INT) return v->i != 0;
  return false;
}

static const char *dec_STRING(const rt_attr_value_t *v, bool *none) {
  *none = v->kind != RT_ATTR_STRING || !v->s;
  return *none ? "" : v->s;
}

static rt_dtype_t dec_DTYPE(const rt_attr_value_t *v, bool *none) {
  rt_dtype_t dt = {0, 0, 0};
  *none = true;
  if (v->kind == RT_ATTR_STRING && v->s && *v->s) {
    rt_status_t st = rt_dtype_parse(v->s, strlen(v->s), &dt);
    *none = st != RT_OK;
    rt_status_free(st);
  }
  return dt;
}

static rt_attr_list_t dec_list(const rt_attr_value_t *v, bool *none) {
  rt_attr_list_t l = {NULL, 0};
  *none = v->kind == RT_ATTR_NONE;
  if (v->kind == RT_ATTR_ARRAY) {
    l.items = v->array.items;
    l.count = v->array.count;
  } else if (v->kind == RT_ATTR_INT) { /* INT_OR_INTS holding an int */
    l.items = v;
    l.count = 1;
  }
  return l;
}
#define dec_INTS dec_list
#define dec_INTS2 dec_list
#define dec_INT_OR_INTS dec_list
#define dec_FLOATS dec_list

static const rt_attr_value_t *dec_ANY(const rt_attr_value_t *v, bool *none) {
  *none = v->kind == RT_ATTR_NONE;
  return v;
}

#define RT_FIELD(field, KIND, dflt, flags) \
  a.field = dec_##KIND(value_at(attrs, i++), &a.field##_is_none);
#define RT_SCHEMA(name, fields)                                   \
  rt_attrs_##name##_t rt_ir_attrs_##name(const rt_ir_attrs_t *attrs) { \
    check_schema(attrs, schema_##name);                           \
    rt_attrs_##name##_t a;                                        \
    memset(&a, 0, sizeof a);                                      \
    int32_t i = 0;                                                \
    fields                                                        \
    return a;                                                     \
  }
#include "ir/op/attrs.def"
#undef RT_SCHEMA
#undef RT_FIELD

static rt_attrs_none_t rt_ir_attrs_none(const rt_ir_attrs_t *attrs) {
  (void)attrs;
  rt_attrs_none_t a = {0};
  return a;
}

void rt_ir_attrs_decode(const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                        rt_attrs_any_t *out) {
  memset(out, 0, sizeof *out);
  if (!op) return;
  switch (op->id) {
#define RT_OP(ID, name, ninputs, pattern, fields, rel, family, doc) \
  case RT_OP_##ID:                                                 \
    out->fields = rt_ir_attrs_##fields(attrs);                      \
    break;
#include "ir/ops.def"
#undef RT_OP
    default: break;
  }
}
