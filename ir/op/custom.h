/* Internal: custom ops (include/rt/op.h) as the rest of the library sees
 * them. A registered custom op is an rt_ir_op_t (ir/op/table.c) whose
 * `custom` points at its rt_ir_custom_t: the user's definition, its parsed
 * native signature, its native entry and its parsed element expression.
 * Both live until the process exits.
 *
 * The pieces live with the layer that uses them:
 *   ir/op/custom.c       the record: names, the type relation, attribute
 *                        access (rt_op_attr_*), signatures, the op table
 *                        side of registration, rt_op_exists / rt_op_info;
 *   ir/op/custom_expr.c  element expressions (parsed at registration,
 *                        expanded to built-in ops for the JIT) and the
 *                        splitting of a fused group at an anchor call;
 *   interp/custom.c      calling the reference kernel (the debug executor);
 *   jit/custom.c         rt_op_register, the native entry (libffi), the
 *                        strategy registry, and which kernel runs a group.
 * ir/ neither includes <ffi.h> nor links libffi. */
#ifndef RT_IR_OP_CUSTOM_H_
#define RT_IR_OP_CUSTOM_H_

#include "ir/ir.h"
#include "rt/op.h"

#define RT_IR_CUSTOM_MAX_INPUTS 16
#define RT_IR_CUSTOM_MAX_PARAMS 32
/* Debug builds guard a kernel's output with this many bytes of this value
 * after it: a kernel that writes past its output is caught. */
#define RT_IR_CUSTOM_GUARD_BYTES 64
#define RT_IR_CUSTOM_GUARD_BYTE 0xA5

/* A type of a native signature: "i32", "f32*", "void". */
typedef struct rt_ir_sig_type_t {
  char code;      /* 'v' void, 'i' signed, 'u' unsigned, 'f' float, 'b' bool */
  uint8_t bits;
  bool pointer;
} rt_ir_sig_type_t;

typedef struct rt_ir_sig_param_t {
  rt_ir_sig_type_t type;
  int32_t tensor; /* pointers: the tensor; ints: whose element count */
} rt_ir_sig_param_t;

/* The parsed element expression (ir/op/custom_expr.c). */
typedef struct rt_ir_elem_node_t rt_ir_elem_node_t;

typedef struct rt_ir_custom_t {
  rt_op_def_t def;               /* strings point into the arena */
  const rt_ir_op_t *op;          /* set when it is in the op table */
  rt_arena_t arena;
  rt_attr_field_t *fields;       /* the attribute schema (in the arena) */
  /* the native function's signature (def.signature), parsed */
  rt_ir_sig_type_t ret;
  rt_ir_sig_param_t params[RT_IR_CUSTOM_MAX_PARAMS];
  int32_t nparams;
  /* the native entry (kernel ABI), made by jit/custom.c before the op is
   * published, and its libffi side (opaque here); NULL without a native
   * kernel */
  rt_kernel_fn native;
  void *native_state;
  /* element expression; root = elem[num_elem - 1]; NULL without one */
  rt_ir_elem_node_t *elem;
  int32_t num_elem;
} rt_ir_custom_t;

/* ---- registration (ir/op/custom.c) -------------------------------------- */

/* Checks `def` (name, inputs, pattern, kernels, attribute schema; not yet
 * registered) and copies it into a new record: signature and element
 * expression parsed. The caller makes its native entry, then publishes it
 * or destroys it. */
RT_MUST_USE_RESULT rt_status_t rt_ir_custom_create(const rt_op_def_t *def,
                                                   rt_ir_custom_t **out);
/* Registers c's op with the op table (ALREADY_EXISTS when the name was
 * taken meanwhile); on success c belongs to the table for good. */
RT_MUST_USE_RESULT rt_status_t rt_ir_custom_publish(rt_ir_custom_t *c);
/* Frees a record that was not published. */
void rt_ir_custom_destroy(rt_ir_custom_t *c);

/* The public view of a tensor type; false when t is not a tensor. */
bool rt_ir_custom_public_type(const rt_ir_type_t *t, rt_op_type_t *out);

/* True when a call of a custom op appears in one of fns (or the walk ran
 * out of memory: the safe answer). */
bool rt_ir_custom_called(int32_t count, rt_ir_expr_t *const *fns);

/* Debug output guards: are the n bytes at p all RT_IR_CUSTOM_GUARD_BYTE;
 * "(2, 3)" for a descriptor's shape. */
bool rt_ir_custom_guard_intact(const unsigned char *p, size_t n);
void rt_ir_custom_shape_text(const rt_kernel_arg *a, char *buf, size_t size);

/* ---- element expressions and group rewrites (ir/op/custom_expr.c) ------- */

/* Parses c->def.elem_expr into c->elem (at registration). */
RT_MUST_USE_RESULT rt_status_t rt_ir_custom_parse_elem(rt_ir_custom_t *c);

/* `fn` with `anchor` replaced by a new last param of its type (typed, in a
 * scratch module the caller releases after using *out_fn). */
RT_MUST_USE_RESULT rt_status_t rt_ir_custom_split(const rt_ir_expr_t *fn,
                                                  const rt_ir_expr_t *anchor,
                                                  rt_module_t **out_scratch,
                                                  const rt_ir_expr_t **out_fn);

/* Rewrites a typed function so every call of a custom op with an element
 * expression becomes that expression over built-in ops (new nodes in a
 * scratch module, typed). *out_fn = fn and *out_scratch = NULL when there
 * is none; else the caller releases *out_scratch after using *out_fn. */
RT_MUST_USE_RESULT rt_status_t rt_ir_custom_expand(const rt_ir_expr_t *fn,
                                                   rt_module_t **out_scratch,
                                                   const rt_ir_expr_t **out_fn);

#endif /* RT_IR_OP_CUSTOM_H_ */
