/* Attribute values and schemas.
 *
 * An op declares its attributes as a schema: an array of fields, each with a
 * name, a kind and a default written as Relay attribute text ("[1, 1]",
 * "\"NCHW\"", "1e-05f", "None", "False"; NULL = required). A call to an op
 * carries an rt_ir_attrs whose values are in schema order with every
 * default filled in, so lookups never fail for a declared name. Function
 * attributes (`Primitive=1`) and attrs of non-op calls use the same struct
 * with keys in source order and no schema. */
#ifndef RT_IR_ATTRS_H_
#define RT_IR_ATTRS_H_

#include "rt/status.h"
#include "runtime/arena.h"
#include "runtime/strbuf.h"

typedef enum rt_attr_value_kind_e {
  RT_ATTR_NONE,    /* None / nullptr */
  RT_ATTR_INT,
  RT_ATTR_FLOAT,   /* printed with an f suffix */
  RT_ATTR_BOOL,    /* True / False */
  RT_ATTR_STRING,  /* "..." (no escapes, as TVM) */
  RT_ATTR_ARRAY,   /* [v, ...] */
} rt_attr_value_kind_t;

typedef struct rt_attr_value_t rt_attr_value_t;
struct rt_attr_value_t {
  rt_attr_value_kind_t kind;
  union {
    int64_t i;
    double f;
    bool b;
    const char *s;  /* NUL-terminated, in the module arena */
    struct { rt_attr_value_t *items; int32_t count; } array;
  };
};

/* What a schema field accepts. Conversions done when a call is built:
 * INT takes ints and bools; FLOAT takes floats and ints; BOOL takes bools and
 * ints 0/1; DTYPE takes a string naming a dtype (or "" = unset); INTS takes
 * an array of ints (a lone int becomes a 1-element array); INTS2 an array of
 * arrays of ints (pad_width); INT_OR_INTS either form (split); FLOATS an
 * array of floats; ANY takes anything. */
typedef enum rt_attr_kind_e {
  RT_ATTR_K_INT,
  RT_ATTR_K_FLOAT,
  RT_ATTR_K_BOOL,
  RT_ATTR_K_STRING,
  RT_ATTR_K_DTYPE,
  RT_ATTR_K_INTS,
  RT_ATTR_K_INTS2,
  RT_ATTR_K_INT_OR_INTS,
  RT_ATTR_K_FLOATS,
  RT_ATTR_K_ANY,
} rt_attr_kind_t;

enum {
  /* Printed even when equal to its default (TVM prints fields that have no
   * C++ default, e.g. nn.dense's units=None). */
  RT_ATTR_F_ALWAYS_PRINT = 1u << 0,
  /* None is accepted besides the field's kind. */
  RT_ATTR_F_NULLABLE = 1u << 1,
};

typedef struct rt_attr_field_t {
  const char *name;
  rt_attr_kind_t kind;
  const char *default_text; /* Relay attribute text; NULL = required */
  uint32_t flags;           /* RT_ATTR_F_* */
} rt_attr_field_t;

typedef struct rt_ir_attrs_t {
  int32_t count;
  const char **keys;       /* schema names for op calls */
  rt_attr_value_t *values;
} rt_ir_attrs_t;

/* Parses attribute literal text (the `value` production without atoms:
 * ints, floats with f suffix, True/False, strings, None, nested [...]).
 * Used for schema defaults and by tests. */
RT_MUST_USE_RESULT rt_status_t rt_attr_value_parse(rt_arena_t *arena,
                                                   const char *text,
                                                   rt_attr_value_t *out_value);

/* Converts a value given in text to what the field accepts (see
 * rt_attr_kind_t), or INVALID_ARGUMENT "attribute 'strides' of nn.conv2d
 * expects ints, got \"a\"". `op_name` is for the message only. */
RT_MUST_USE_RESULT rt_status_t rt_attr_value_convert(
    rt_arena_t *arena, const char *op_name, const rt_attr_field_t *field,
    const rt_attr_value_t *value, rt_attr_value_t *out_value);

bool rt_attr_value_equal(const rt_attr_value_t *a, const rt_attr_value_t *b);
uint64_t rt_attr_value_hash(const rt_attr_value_t *value, uint64_t seed);
/* Prints in Relay text form. Floats print with the shortest %g form (at
 * least TVM's 6 digits) that reads back to the same double. */
void rt_attr_value_print(const rt_attr_value_t *value, rt_strbuf_t *out);

/* Lookups by field name on an op call's attrs. The name must be in the
 * schema (a wrong name is a bug: RT_ASSERT, then a NONE value). */
const rt_attr_value_t *rt_attrs_get(const rt_ir_attrs_t *attrs,
                                    const char *name);
int64_t rt_attrs_int(const rt_ir_attrs_t *attrs, const char *name);
double rt_attrs_float(const rt_ir_attrs_t *attrs, const char *name);
bool rt_attrs_bool(const rt_ir_attrs_t *attrs, const char *name);
/* "" for NONE. */
const char *rt_attrs_string(const rt_ir_attrs_t *attrs, const char *name);
bool rt_attrs_is_none(const rt_ir_attrs_t *attrs, const char *name);
/* Number of ints in an INTS value (0 for NONE); element i. */
int32_t rt_attrs_ints_count(const rt_ir_attrs_t *attrs, const char *name);
int64_t rt_attrs_ints_at(const rt_ir_attrs_t *attrs, const char *name,
                         int32_t i);

#endif /* RT_IR_ATTRS_H_ */
