/* The Relay-style IR: types, expressions, ops, modules.
 *
 * Every node lives in its module's arena and is immutable once built, with
 * one exception: `checked_type`, a memo that type inference fills in place
 * (a node's type is a function of the node, so sharing is safe). Passes
 * build new nodes. Expressions form a DAG: `%N = ...` graph bindings in the
 * text are shared nodes, not Let nodes. Variables are compared by identity.
 * Tensor payloads of constants are reference-counted; the module holds one
 * reference per constant node and drops them when it is freed. */
#ifndef RT_IR_IR_H_
#define RT_IR_IR_H_

#include <stdatomic.h>

#include "ir/attrs.h"
#include "rt/module.h"
#include "rt/op.h"
#include "rt/tensor.h"
#include "runtime/arena.h"

/* ---- source spans -------------------------------------------------------- */

typedef struct rt_ir_source_t {
  const char *name;   /* file name as given */
  const char *text;   /* the whole text, NUL-terminated */
  size_t size;
} rt_ir_source_t;

typedef struct rt_ir_span_t {
  const rt_ir_source_t *source; /* NULL for nodes made by passes */
  int32_t line, col;            /* 1-based; col counts bytes */
  int32_t end_line, end_col;
} rt_ir_span_t;

/* The standard diagnostic: "name:line:col: error: <message>\n<line>\n<caret>"
 * as an INVALID_ARGUMENT status. With no source, just the message. */
rt_status_t rt_ir_diag(rt_ir_span_t span, const char *format, ...)
    RT_PRINTF_FORMAT(2, 3);

/* ---- types --------------------------------------------------------------- */

typedef enum rt_ir_type_kind_e {
  RT_IR_TYPE_TENSOR,
  RT_IR_TYPE_TUPLE,
  RT_IR_TYPE_FUNC,
  RT_IR_TYPE_INCOMPLETE, /* `_`, or a type variable of inference */
  /* Relay's ADTs as TVM's prelude has them, built in: `List[T]` (a value
   * holds any number of T, ONNX's sequences) and `Option[T]` (none or one
   * T, ONNX's optionals). Their ops are list.* and option.* (ir/op/list.c);
   * the debug executor runs them (interp/list.c). */
  RT_IR_TYPE_LIST,
  RT_IR_TYPE_OPTION,
} rt_ir_type_kind_t;

typedef struct rt_ir_type_t rt_ir_type_t;
struct rt_ir_type_t {
  rt_ir_type_kind_t kind;
  union {
    struct { rt_dtype_t dtype; int32_t rank; const int64_t *shape; } tensor;
    struct { rt_ir_type_t **fields; int32_t count; } tuple;
    struct { rt_ir_type_t **params; int32_t count; rt_ir_type_t *ret; } func;
    struct { rt_ir_type_t *resolved; /* union-find link, NULL = free */ } incomplete;
    struct { rt_ir_type_t *elem; } adt; /* LIST and OPTION: the element type */
  };
};

/* ---- ops ----------------------------------------------------------------- */

/* rt_op_pattern_t (TVM's TOpPattern values) is public: rt/op.h. */

typedef struct rt_ir_op_t rt_ir_op_t;
typedef struct rt_module_t rt_ir_module_t;

/* What a type relation sees: the call's attrs and its argument types, all
 * resolved (no INCOMPLETE at the top level). */
typedef struct rt_ir_rel_ctx_t {
  rt_module_t *module;          /* allocate result types here */
  const rt_ir_op_t *op;
  const rt_ir_attrs_t *attrs;
  int32_t nargs;
  rt_ir_type_t *const *args;
} rt_ir_rel_ctx_t;

/* Computes the call's result type. Errors are INVALID_ARGUMENT with a plain
 * message ("shapes (1, 3) and (1, 4) do not broadcast"); type inference adds
 * the position, the binding and the op. */
typedef rt_status_t (*rt_ir_type_rel_fn)(const rt_ir_rel_ctx_t *ctx,
                                         rt_ir_type_t **out_type);

struct rt_ir_op_t {
  int32_t id;                 /* RT_OP_<ID> for built-ins, >= RT_OP_COUNT else */
  const char *name;           /* "nn.conv2d" */
  int32_t num_inputs;
  rt_op_pattern_t pattern;
  const rt_attr_field_t *fields;
  int32_t num_fields;
  rt_ir_type_rel_fn type_rel;
  const char *doc;            /* one line */
  /* Defaults parsed from fields[i].default_text (NONE for required ones),
   * filled once by the op table. */
  const rt_attr_value_t *defaults;
  /* Custom ops (rt_op_register): the definition, kernels and element
   * expression (ir/op/custom.h); NULL for built-ins. */
  const struct rt_ir_custom_t *custom;
};

/* Built-in op ids, one per line of ops.def. */
typedef enum rt_op_id_e {
#define RT_OP(ID, name, ninputs, pattern, fields, rel, family, doc) RT_OP_##ID,
#include "ir/ops.def"
#undef RT_OP
  RT_OP_COUNT
} rt_op_id_t;

/* The op named `name` (`len` bytes), built-in or registered; NULL when none
 * (a lookup, not an error). Thread-safe. */
const rt_ir_op_t *rt_ir_op_lookup(const char *name, size_t len);
/* Built-in op by id. */
const rt_ir_op_t *rt_ir_op_builtin(rt_op_id_t id);
/* Number of built-in + registered ops, and the i-th (for listing). */
int32_t rt_ir_op_count(void);
const rt_ir_op_t *rt_ir_op_at(int32_t index);
/* Adds an op at run time (copied; its id is assigned). ALREADY_EXISTS when
 * the name is taken. Thread-safe. */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_register(const rt_ir_op_t *def,
                                                 const rt_ir_op_t **out_op);

/* ---- expressions --------------------------------------------------------- */

typedef enum rt_ir_expr_kind_e {
  RT_IR_VAR,
  RT_IR_GLOBAL_VAR,
  RT_IR_CONSTANT,
  RT_IR_OP,
  RT_IR_CALL,
  RT_IR_TUPLE,
  RT_IR_TUPLE_GET_ITEM,
  RT_IR_LET,
  RT_IR_IF,
  RT_IR_FUNCTION,
} rt_ir_expr_kind_t;

typedef struct rt_ir_expr_t rt_ir_expr_t;
struct rt_ir_expr_t {
  rt_ir_expr_kind_t kind;
  uint32_t id;                 /* unique in the module, in creation order */
  rt_ir_span_t span;
  rt_ir_type_t *checked_type;  /* set by type inference; NULL before */
  const char *binding;         /* "3" when parsed from `%3 = ...`; NULL else.
                                  For diagnostics only: not structural. */
  union {
    struct { const char *name; rt_ir_type_t *annotation; /* may be NULL */ } var;
    struct { const char *name; } global;
    struct { rt_tensor_t *value; } constant;
    struct { const rt_ir_op_t *op; } op;
    struct {
      rt_ir_expr_t *callee;
      rt_ir_expr_t **args;
      int32_t nargs;
      rt_ir_attrs_t *attrs;   /* op calls: schema order, never NULL;
                                 other calls: NULL or generic */
    } call;
    struct { rt_ir_expr_t **fields; int32_t count; } tuple;
    struct { rt_ir_expr_t *tuple; int32_t index; } get_item;
    struct { rt_ir_expr_t *var; rt_ir_expr_t *value; rt_ir_expr_t *body; } let;
    struct { rt_ir_expr_t *cond; rt_ir_expr_t *then_branch; rt_ir_expr_t *else_branch; } if_;
    struct {
      rt_ir_expr_t **params;  /* RT_IR_VAR nodes */
      int32_t nparams;
      rt_ir_expr_t *body;
      rt_ir_type_t *ret_type; /* annotation; may be NULL */
      rt_ir_attrs_t *attrs;   /* generic; may be NULL */
    } fn;
  };
};

/* ---- module -------------------------------------------------------------- */

typedef struct rt_ir_global_t {
  const char *name;       /* without '@' */
  rt_ir_expr_t *fn;       /* RT_IR_FUNCTION */
} rt_ir_global_t;

struct rt_module_t {
  _Atomic int32_t refcount;
  rt_allocator_t allocator;
  rt_arena_t arena;
  uint32_t next_id;
  rt_ir_global_t *globals;    /* rt_mem_alloc'd, kept sorted by name */
  int32_t num_globals;
  int32_t cap_globals;
  rt_tensor_t **constants;    /* rt_mem_alloc'd; one reference each */
  int32_t num_constants;
  int32_t cap_constants;
  rt_ir_source_t *source;     /* in the arena; NULL for built modules */
  bool typed;                 /* type inference has run on every global */
  rt_module_t *base;          /* derived modules: the module whose nodes they
                                 share (retained); NULL otherwise */
};

RT_MUST_USE_RESULT rt_status_t rt_ir_module_create(rt_allocator_t allocator,
                                                   rt_module_t **out_module);
/* Adds or replaces a global function. */
RT_MUST_USE_RESULT rt_status_t rt_ir_module_add(rt_module_t *m,
                                                const char *name,
                                                rt_ir_expr_t *fn);
/* A new module sharing `base`'s nodes and globals, for passes and
 * executors to build on without touching `base` (which stays immutable and
 * is retained). New nodes get ids after all of base's, so id-keyed memos
 * never confuse the two. */
RT_MUST_USE_RESULT rt_status_t rt_ir_module_derive(rt_module_t *base,
                                                   rt_module_t **out_module);
/* The function of global `name`, or NULL. */
rt_ir_expr_t *rt_ir_module_lookup(const rt_module_t *m, const char *name);
/* Copies text into the arena and records it as the module's source. */
RT_MUST_USE_RESULT rt_status_t rt_ir_module_set_source(
    rt_module_t *m, const char *name, const char *text, size_t size,
    const rt_ir_source_t **out_source);

/* ---- constructors (all allocate in m's arena; span may be {0}) ---------- */

RT_MUST_USE_RESULT rt_status_t rt_ir_tensor_type(rt_module_t *m, rt_dtype_t dtype,
                                                 int32_t rank, const int64_t *shape,
                                                 rt_ir_type_t **out);
RT_MUST_USE_RESULT rt_status_t rt_ir_tuple_type(rt_module_t *m, int32_t count,
                                                rt_ir_type_t *const *fields,
                                                rt_ir_type_t **out);
RT_MUST_USE_RESULT rt_status_t rt_ir_func_type(rt_module_t *m, int32_t count,
                                               rt_ir_type_t *const *params,
                                               rt_ir_type_t *ret,
                                               rt_ir_type_t **out);
RT_MUST_USE_RESULT rt_status_t rt_ir_incomplete_type(rt_module_t *m,
                                                     rt_ir_type_t **out);
/* `List[elem]` (kind RT_IR_TYPE_LIST) or `Option[elem]` (RT_IR_TYPE_OPTION). */
RT_MUST_USE_RESULT rt_status_t rt_ir_adt_type(rt_module_t *m, rt_ir_type_kind_t kind,
                                              rt_ir_type_t *elem, rt_ir_type_t **out);

RT_MUST_USE_RESULT rt_status_t rt_ir_var(rt_module_t *m, rt_ir_span_t span,
                                         const char *name,
                                         rt_ir_type_t *annotation,
                                         rt_ir_expr_t **out);
RT_MUST_USE_RESULT rt_status_t rt_ir_global_var(rt_module_t *m, rt_ir_span_t span,
                                                const char *name,
                                                rt_ir_expr_t **out);
/* Retains `value`; the module releases it when freed. */
RT_MUST_USE_RESULT rt_status_t rt_ir_constant(rt_module_t *m, rt_ir_span_t span,
                                              rt_tensor_t *value,
                                              rt_ir_expr_t **out);
/* A 0-d constant from a double/int64 (converted to dtype). */
RT_MUST_USE_RESULT rt_status_t rt_ir_scalar(rt_module_t *m, rt_ir_span_t span,
                                            rt_dtype_t dtype, double value,
                                            rt_ir_expr_t **out);
RT_MUST_USE_RESULT rt_status_t rt_ir_op_ref(rt_module_t *m, rt_ir_span_t span,
                                            const rt_ir_op_t *op,
                                            rt_ir_expr_t **out);
/* args are copied. For an op callee, attrs must be NULL or schema-ordered
 * (rt_ir_op_attrs); NULL becomes the op's defaults. Arity of op calls is
 * checked (INVALID_ARGUMENT). */
RT_MUST_USE_RESULT rt_status_t rt_ir_call(rt_module_t *m, rt_ir_span_t span,
                                          rt_ir_expr_t *callee, int32_t nargs,
                                          rt_ir_expr_t *const *args,
                                          rt_ir_attrs_t *attrs,
                                          rt_ir_expr_t **out);
RT_MUST_USE_RESULT rt_status_t rt_ir_tuple(rt_module_t *m, rt_ir_span_t span,
                                           int32_t count,
                                           rt_ir_expr_t *const *fields,
                                           rt_ir_expr_t **out);
RT_MUST_USE_RESULT rt_status_t rt_ir_get_item(rt_module_t *m, rt_ir_span_t span,
                                              rt_ir_expr_t *tuple, int32_t index,
                                              rt_ir_expr_t **out);
RT_MUST_USE_RESULT rt_status_t rt_ir_let(rt_module_t *m, rt_ir_span_t span,
                                         rt_ir_expr_t *var, rt_ir_expr_t *value,
                                         rt_ir_expr_t *body, rt_ir_expr_t **out);
RT_MUST_USE_RESULT rt_status_t rt_ir_if(rt_module_t *m, rt_ir_span_t span,
                                        rt_ir_expr_t *cond, rt_ir_expr_t *then_b,
                                        rt_ir_expr_t *else_b, rt_ir_expr_t **out);
/* params are copied. */
RT_MUST_USE_RESULT rt_status_t rt_ir_function(rt_module_t *m, rt_ir_span_t span,
                                              int32_t nparams,
                                              rt_ir_expr_t *const *params,
                                              rt_ir_expr_t *body,
                                              rt_ir_type_t *ret_type,
                                              rt_ir_attrs_t *attrs,
                                              rt_ir_expr_t **out);

/* Builds an op call's attrs from key/value pairs as written in text:
 * unknown keys, missing required fields and ill-typed values are
 * INVALID_ARGUMENT naming the op and the attribute (positioned at `span`);
 * omitted fields get their defaults. */
RT_MUST_USE_RESULT rt_status_t rt_ir_op_attrs(rt_module_t *m, rt_ir_span_t span,
                                              const rt_ir_op_t *op, int32_t count,
                                              const char *const *keys,
                                              const rt_attr_value_t *values,
                                              rt_ir_attrs_t **out);
/* Generic attrs (function attrs): keys and values copied as given. */
RT_MUST_USE_RESULT rt_status_t rt_ir_generic_attrs(rt_module_t *m, int32_t count,
                                                   const char *const *keys,
                                                   const rt_attr_value_t *values,
                                                   rt_ir_attrs_t **out);

/* ---- types: helpers ------------------------------------------------------ */

/* Follows incomplete-type links to the representative. */
rt_ir_type_t *rt_ir_type_resolve(rt_ir_type_t *type);
/* Structural equality on resolved types; `?` equals only `?`. */
bool rt_ir_type_equal(const rt_ir_type_t *a, const rt_ir_type_t *b);
/* The type of a value that is either of a or b (an `if`'s result): dims
 * that agree stay, dims that differ (or are `?` in one) become `?`;
 * tuples join field by field; unresolved types and function types are
 * unified as rt_ir_infer_types does. *out is NULL when the two cannot
 * join: different kinds, dtypes, ranks or tuple arities. New types are
 * allocated in m's arena (the only error is running out of memory). */
RT_MUST_USE_RESULT rt_status_t rt_ir_type_join(rt_module_t *m, rt_ir_type_t *a,
                                               rt_ir_type_t *b, rt_ir_type_t **out);
/* Prints "Tensor[(1, 3), float32]", "float32", "(T1, T2)", "fn (T) -> R",
 * "List[T]", "Option[T]", "?" dims, "_" for an unresolved type. */
void rt_ir_type_print(const rt_ir_type_t *type, rt_strbuf_t *out);
/* "(1, 3)" / "(?, 4)" / "()" for a tensor type's shape. */
void rt_ir_shape_print(int32_t rank, const int64_t *shape, rt_strbuf_t *out);

/* ---- analysis ------------------------------------------------------------ */

/* Alpha-equivalence: bound vars (params, let vars) correspond by position;
 * free vars and globals by name; constants by dtype, shape and bytes; op
 * calls by op and attrs; types/annotations included. Spans and binding
 * names are ignored. DAG sharing is not observable (a tree equal to a DAG is
 * equal). */
bool rt_ir_struct_equal(const rt_ir_expr_t *a, const rt_ir_expr_t *b);
uint64_t rt_ir_struct_hash(const rt_ir_expr_t *expr);
/* Same global names with structurally equal functions. */
bool rt_ir_module_struct_equal(const rt_module_t *a, const rt_module_t *b);

/* Checks well-formedness: every var used is bound (param, let, or
 * enclosing function) or is a declared free var of main; op calls have the
 * op's arity and schema-ordered attrs; Function params are vars; get_item
 * indices fit typed tuples; no node is its own ancestor. INTERNAL error
 * naming the node and its span otherwise. */
RT_MUST_USE_RESULT rt_status_t rt_ir_verify(const rt_module_t *m);

/* Type inference over every global: fills checked_type on every node, and
 * the FuncType of each function. Errors use rt_ir_diag at the node's span:
 * "%3 = add(%1, %2): shapes (1, 3) and (1, 4) do not broadcast". */
RT_MUST_USE_RESULT rt_status_t rt_ir_infer_types(rt_module_t *m);

/* The dims an input of type `declared` takes under the shape `given`
 * (rt_input_shape_t, rt/module.h: -1 keeps a declared dim) into
 * out_dims[declared rank]; INVALID_ARGUMENT "<where>: input 'x' ..." when
 * it is not a tensor, the ranks differ, a dim is negative or a static dim
 * differs. Shared by rt_module_bind_input_shapes and the ONNX importer. */
RT_MUST_USE_RESULT rt_status_t rt_ir_bind_shape(const char *where, const rt_ir_type_t *declared,
                                                const rt_input_shape_t *given, int64_t *out_dims);

/* ---- traversal ----------------------------------------------------------- */

/* Calls `visit` once per distinct node reachable from `root`, children
 * before parents (post order, args left to right), descending into function
 * bodies and branches. Stops at the first error and returns it. Iterative:
 * deep programs do not overflow the C stack. */
typedef rt_status_t (*rt_ir_visit_fn)(void *user, rt_ir_expr_t *expr);
RT_MUST_USE_RESULT rt_status_t rt_ir_post_order(rt_allocator_t allocator,
                                                rt_ir_expr_t *root,
                                                rt_ir_visit_fn visit, void *user);

/* Direct children of a node in evaluation order (callee, args; fields;
 * tuple; value, var, body; cond, then, else; params, body). A let's value
 * comes before its var, so a post-order walk meets the value first. Writes at most
 * `cap` pointers and returns the count (which may exceed cap). */
int32_t rt_ir_children(rt_ir_expr_t *expr, rt_ir_expr_t **out, int32_t cap);

/* Rebuilds the DAG under `root` bottom-up. `rewrite` is called once per
 * distinct node, children first, with the node as rebuilt so far (`node`
 * itself when no child changed, else a copy with the new children) and may
 * return a replacement in *out (or leave *out = rebuilt). New nodes go into
 * m's arena; copies keep the span and binding name but have no checked
 * type (run rt_ir_infer_types after). The rewritten root comes back in
 * *out_root. Iterative: deep programs are fine. */
typedef rt_status_t (*rt_ir_rewrite_fn)(void *user, rt_ir_expr_t *original,
                                        rt_ir_expr_t *rebuilt, rt_ir_expr_t **out);
RT_MUST_USE_RESULT rt_status_t rt_ir_mutate(rt_module_t *m, rt_ir_expr_t *root,
                                            rt_ir_rewrite_fn rewrite, void *user,
                                            rt_ir_expr_t **out_root);

/* rt_ir_mutate replacing every use of from[i] under `root` with to[i]
 * (i < n; vars retyped, params bound to constants): the nodes that depend
 * on one are rebuilt without checked types; *out_root is `root` itself
 * when none occurs. Errors are rt_ir_mutate's (out of memory). */
RT_MUST_USE_RESULT rt_status_t rt_ir_substitute(rt_module_t *m, rt_ir_expr_t *root, int32_t n,
                                                rt_ir_expr_t *const *from,
                                                rt_ir_expr_t *const *to,
                                                rt_ir_expr_t **out_root);

/* ---- printing ------------------------------------------------------------ */

/* Prints a module (see rt_module_print for the flags). */
RT_MUST_USE_RESULT rt_status_t rt_ir_print_module(const rt_module_t *m,
                                                  uint32_t flags,
                                                  char **out_text,
                                                  size_t *out_len);
/* Prints one expression (a function body or any node), for diagnostics and
 * the REPL; constants inline or as meta refs, no metadata section. */
void rt_ir_print_expr(const rt_ir_expr_t *expr, uint32_t flags, rt_strbuf_t *out);

/* Is `fn` a fused group: an RT_IR_FUNCTION whose attrs hold Primitive with
 * a non-zero value? */
bool rt_ir_is_primitive(const rt_ir_expr_t *fn);

/* The call of op `id` that e's value comes from through elementwise and
 * broadcast op calls of e's checked type (at most 16 deep, the first
 * argument that leads to one first): a fused group's anchor as the
 * templates find it ("clip(add(nn.conv2d(...), %b))" -> the conv2d), or
 * e itself when it is such a call; NULL when there is none or a type is
 * missing. Nothing is allocated. */
const rt_ir_expr_t *rt_ir_anchor_of(const rt_ir_expr_t *e, int32_t id);

/* Appends TVM's readable kernel name of a Primitive function to `out`:
 * "fused" then "_<op>" for every op call of the body in post order (args
 * left to right, each node once), '.' written as '_':
 * "fused_nn_conv2d_add_nn_relu". A name longer than 80 characters is cut
 * to 80 and followed by "_<hash>_" (64-bit FNV-1a of the whole name, hex),
 * as TVM does. Not unique: the JIT adds "_1", "_2" for repeats.
 * INVALID_ARGUMENT when `fn` is not a function; RESOURCE_EXHAUSTED when
 * the walk cannot allocate. Thread-safe. */
RT_MUST_USE_RESULT rt_status_t rt_ir_primitive_name(const rt_ir_expr_t *fn, rt_strbuf_t *out);

/* One-line form of a node for messages and stepping hooks, naming its
 * operands by their graph-binding numbers: "%3 = add(%1, %2)" for a call,
 * "%x" for a var, a call of a fused group by its kernel name
 * ("%4 = fused_nn_conv2d_nn_relu(%x)"), "(%1, %2)" for a tuple, "%4.0" for a projection, "1f"
 * for a scalar constant. */
void rt_ir_describe_binding(const rt_ir_expr_t *expr, rt_strbuf_t *out);

/* ---- parsing ------------------------------------------------------------- */

/* Parses a whole module (with `#[version = "0.0.5"]`) into `m` (which must
 * be empty) without running type inference. Diagnostics as rt_ir_diag. */
RT_MUST_USE_RESULT rt_status_t rt_ir_parse_module(rt_module_t *m,
                                                  const char *source_name,
                                                  const char *text, size_t size);
/* Limits the parser enforces (errors, not crashes). */
#define RT_IR_MAX_NESTING 512       /* brackets/blocks deep */
#define RT_IR_MAX_SOURCE_BYTES (1u << 30)

#endif /* RT_IR_IR_H_ */
