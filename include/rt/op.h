/* relayrt custom operators and implementation overrides.
 *
 * 1. A new op, registered at run time with rt_op_register:
 *
 *      static const rt_op_def_t gelu = {
 *          .name = "my.gelu", .num_inputs = 1,
 *          .pattern = RT_OP_PATTERN_ELEMWISE,
 *          .reference = gelu_ref,                 // the oracle, debug executor
 *          .signature = "void(f32*, f32*, i64)",  // native kernel via libffi
 *          .function = (rt_op_function_t)gelu_c,
 *          .elem_expr = "multiply(%0, sigmoid(multiply(%0, 1.702f)))",
 *      };
 *      RT_RETURN_IF_ERROR(rt_op_register(&gelu));
 *
 *    After that the op is an op like any other: the text format parses
 *    `my.gelu(%x)`, type inference calls its type relation, the debug
 *    executor runs its reference kernel, the graph and vm executors run its
 *    native kernel (a kernel call of its own), or, for an elementwise op
 *    with an element expression, fuse it with its neighbours into one JIT
 *    kernel (a conv2d followed by my.gelu is one kernel,
 *    `fused_nn_conv2d_my_gelu`). ONNX nodes of a custom domain map to it
 *    with rt_module_load_options_t's custom_op_sources/_targets (rt/module.h;
 *    `relayrt run --onnx-op com.example.Gelu=my.gelu`), and `relayrt
 *    --ops LIB.so optest my.gelu` checks the native kernel (and the element
 *    expression) against the reference kernel. docs/custom-ops.md has the
 *    whole story with tested samples.
 *
 * 2. A strategy for an existing op (rt_op_strategy_register): given the
 *    op, its attributes, its input and output types and the target, it
 *    returns a kernel (kernel ABI) or declines. The strategies of an op
 *    are asked in decreasing priority (equal priorities: the one
 *    registered first) and the first kernel returned is used; when all
 *    decline, the built-in lowering runs. They are asked for a fused group
 *    that is the op alone, and for a group with one call of the op whose
 *    arguments are the group's inputs and whose result has static dims
 *    (conv2d + bias_add + relu): the kernel then writes the op's result to
 *    workspace memory and a JIT kernel computes the rest of the group over
 *    it. Groups with two such calls, or where the op reads a fused
 *    prologue, use the built-in lowering.
 *
 * Names. A custom op's name is namespaced: "<ns>.<name>" with a namespace
 * that is not one of the built-in ones ("nn", "image", "vision", "qnn",
 * "dyn", "annotation", "memory", "vm", "device"), made of [A-Za-z0-9_] and
 * dots. A name already taken (built-in or registered) is ALREADY_EXISTS.
 *
 * Types. A type relation sees only tensor types (rt_op_type_t: dtype and
 * shape, RT_DIM_ANY for a `?` dim) and gives the one tensor result; an
 * error it returns becomes a type error positioned at the call
 * ("model.relay:3:8: error: %2 = my.gelu(%1): ..."). With a `?` input dim
 * it is called with RT_DIM_ANY and again (vm) with concrete shapes.
 *
 * Kernels. All kernels see compact row-major tensors described as
 * rt_kernel_arg (kernel_abi.h): inputs in order, then the output, already
 * allocated with the shape the type relation gave.
 *  - reference (required): returns a status; runs in the debug executor and
 *    is the oracle of `relayrt optest`.
 *  - kernel: a native kernel with the kernel ABI (args = inputs then the
 *    output; non-zero return after ctx->set_error). It gets no attributes:
 *    use a libffi function, or one registration per attribute value, when
 *    the kernel depends on them.
 *  - signature + function: a plain C function called through libffi. The
 *    signature is "<ret>(<param>, ...)", types i8 i16 i32 i64 u8 u16 u32
 *    u64 f32 f64 bool, and pointers to them or `void*`. <ret> is void, or
 *    an integer type where non-zero means failure. Parameters map in order:
 *    the K-th pointer parameter is the K-th tensor (inputs, then the
 *    output), and its element type must be the tensor's dtype (void* takes
 *    any); an integer parameter receives the element count of the tensor of
 *    the closest pointer parameter before it (of the output when no pointer
 *    comes before it). So "void(f32*, f32*, i64)" is f(x, y, numel(y)).
 *    Floating-point scalar parameters are refused (no value to give them).
 *    The signature is parsed and its ffi_cif prepared once, at
 *    registration; a bad one is INVALID_ARGUMENT naming the column.
 *  - Without kernel and function (and without an element expression) the
 *    graph and vm executors run the reference kernel too, on the host
 *    (copies in and out, one call at a time): correct, not fast, and not
 *    exportable.
 * In debug builds (RT_DEBUG) every native and reference kernel call writes
 * into a buffer with a guard zone after the output: a kernel that writes
 * past its output (it computed a larger shape than the type relation's) is
 * an INTERNAL error naming the op, not memory corruption.
 *
 * Element expression. elem_expr writes an elementwise or broadcast op in
 * terms of existing ops, so the JIT can fuse it: `expr := op(expr, ...) |
 * %K | @attr | number[f]`, where %K is input K, @attr the call's value of
 * an int, float or bool attribute of the op, a number (and an @attr) is a
 * scalar of input 0's dtype, and op is a built-in op whose attributes all
 * have defaults
 * (add, multiply, sigmoid, tanh, erf, exp, maximum, ...). It is checked at
 * registration (unknown op, wrong arity, %K out of range: INVALID_ARGUMENT)
 * and must compute what the reference kernel computes (optest checks the
 * JIT'd kernel, which then uses it, against the reference). An op that is
 * not OPAQUE but has no element expression is treated as OPAQUE by fusion
 * (it runs as a kernel call of its own).
 *
 * Thread-safety and lifetime. rt_op_register and rt_op_strategy_register
 * may be called from any thread at any time, concurrently with each other
 * and with parsing, building and running; lookups see an op from the moment
 * rt_op_register returns. Register before you parse or load the models
 * that use an op and before you create the executors a strategy should
 * affect: kernels compiled earlier are kept by the JIT's in-memory cache.
 * Registrations last until the process exits (there is no unregister);
 * the definition is copied (names, attributes, signature, expression), but
 * `user` and the functions must stay valid that long. Callbacks may be
 * called from any thread (the JIT lowers in parallel, executors run on
 * their callers' threads), concurrently: make them reentrant. Modules
 * using a custom op or a strategy kernel are never written to the disk
 * kernel cache and cannot be exported (--emit=so): their kernels live in
 * this process. */
#ifndef RT_OP_H_
#define RT_OP_H_

#include "rt/base.h"
#include "rt/kernel_abi.h"
#include "rt/status.h"
#include "rt/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TVM's TOpPattern values: how an op may fuse. */
typedef enum rt_op_pattern_e {
  RT_OP_PATTERN_ELEMWISE = 0,
  RT_OP_PATTERN_BROADCAST = 1,
  RT_OP_PATTERN_INJECTIVE = 2,
  RT_OP_PATTERN_COMM_REDUCE = 3,
  RT_OP_PATTERN_OUT_ELEMWISE_FUSABLE = 4,
  RT_OP_PATTERN_TUPLE = 7,
  RT_OP_PATTERN_OPAQUE = 8,
} rt_op_pattern_t;

/* The public view of a tensor type. */
typedef struct rt_op_type_t {
  rt_dtype_t dtype;
  int32_t rank;
  int64_t shape[RT_TENSOR_MAX_RANK]; /* rank entries; RT_DIM_ANY = `?` */
} rt_op_type_t;

/* A call's attributes (schema order, defaults filled in); borrowed. */
typedef struct rt_op_attrs_t rt_op_attrs_t;

/* Attribute value kinds of a custom op's schema. */
typedef enum rt_op_attr_kind_e {
  RT_OP_ATTR_INT,
  RT_OP_ATTR_FLOAT,
  RT_OP_ATTR_BOOL,
  RT_OP_ATTR_STRING,
  RT_OP_ATTR_INTS,
  RT_OP_ATTR_FLOATS,
} rt_op_attr_kind_t;

typedef struct rt_op_attr_def_t {
  const char *name;
  rt_op_attr_kind_t kind;
  /* Relay attribute text ("0.5f", "[1, 1]", "\"x\"", "True"); NULL means
   * required. */
  const char *default_text;
} rt_op_attr_def_t;

/* Reads an attribute of a call. NOT_FOUND when the op has no attribute of
 * that name; INVALID_ARGUMENT when it is of another kind (an INT attribute
 * reads as float too). */
RT_API RT_MUST_USE_RESULT rt_status_t rt_op_attr_int(const rt_op_attrs_t *attrs,
                                                     const char *name,
                                                     int64_t *out_value);
RT_API RT_MUST_USE_RESULT rt_status_t rt_op_attr_float(const rt_op_attrs_t *attrs,
                                                       const char *name,
                                                       double *out_value);
RT_API RT_MUST_USE_RESULT rt_status_t rt_op_attr_bool(const rt_op_attrs_t *attrs,
                                                      const char *name,
                                                      bool *out_value);
/* The string is borrowed from the call. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_op_attr_string(const rt_op_attrs_t *attrs,
                                                        const char *name,
                                                        const char **out_value);

/* Computes the result type from the input types. Return an error
 * (INVALID_ARGUMENT, a plain message) for inputs the op does not take. */
typedef rt_status_t (*rt_op_type_rel_fn)(void *user, const rt_op_attrs_t *attrs,
                                         int32_t num_inputs,
                                         const rt_op_type_t *inputs,
                                         rt_op_type_t *out_type);

/* What a reference kernel gets. */
typedef struct rt_op_call_t {
  void *user;                   /* rt_op_def_t.user */
  const char *name;             /* the op's name */
  const rt_op_attrs_t *attrs;
  int32_t num_inputs;
  const rt_kernel_arg *inputs;  /* compact, read-only */
  const rt_kernel_arg *output;  /* compact, allocated, to be written */
} rt_op_call_t;
typedef rt_status_t (*rt_op_reference_fn)(const rt_op_call_t *call);

/* Any C function, cast to this type for rt_op_def_t.function. */
typedef void (*rt_op_function_t)(void);

typedef struct rt_op_def_t {
  const char *name;             /* "my.gelu" (see Names above) */
  const char *doc;              /* one line; may be NULL */
  int32_t num_inputs;           /* 1 .. 16 tensors */
  rt_op_pattern_t pattern;
  const rt_op_attr_def_t *attrs;
  int32_t num_attrs;
  /* NULL: the result has the type of input 0. */
  rt_op_type_rel_fn type_rel;
  rt_op_reference_fn reference; /* required */
  /* The native kernel: at most one of `kernel` and `signature`+`function`. */
  rt_kernel_fn kernel;
  const char *signature;
  rt_op_function_t function;
  /* Optional element expression (ELEMWISE / BROADCAST ops). */
  const char *elem_expr;
  void *user;                   /* passed to type_rel and reference */
} rt_op_def_t;

/* Registers a custom op (see the top of this file). INVALID_ARGUMENT for a
 * bad name, arity, schema, signature or element expression, or a missing
 * reference kernel; ALREADY_EXISTS when the name is taken. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_op_register(const rt_op_def_t *def);

/* True when an op (built-in or registered) of that name exists. */
RT_API bool rt_op_exists(const char *name);

/* What an op is (strings borrowed: they live as long as the process). */
typedef struct rt_op_info_t {
  const char *name;
  const char *doc;
  int32_t num_inputs;
  rt_op_pattern_t pattern;   /* as declared */
  bool custom;               /* registered with rt_op_register */
  bool has_native;           /* custom: a kernel ABI or libffi kernel */
  bool has_elem_expr;        /* custom: an element expression */
} rt_op_info_t;
/* NOT_FOUND when there is no op of that name. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_op_info(const char *name, rt_op_info_t *out_info);

/* ---- strategies: implementation overrides of existing ops -------------- */

typedef struct rt_op_strategy_query_t {
  const char *op;               /* "nn.conv2d" */
  const rt_op_attrs_t *attrs;
  int32_t num_inputs;
  const rt_op_type_t *inputs;   /* static shapes */
  const rt_op_type_t *output;
  const char *target;           /* the LLVM triple compiled for ("x86_64-...") */
} rt_op_strategy_query_t;

/* Sets *out_kernel to a kernel for the query (kernel ABI: inputs, then the
 * output), or leaves it NULL to decline. An error fails the build. */
typedef rt_status_t (*rt_op_strategy_fn)(void *user,
                                         const rt_op_strategy_query_t *query,
                                         rt_kernel_fn *out_kernel);

typedef struct rt_op_strategy_t {
  const char *op;               /* an existing op, built-in or custom */
  const char *name;             /* for messages: "my_conv2d_avx2" */
  int32_t priority;             /* higher is asked first */
  rt_op_strategy_fn select;
  void *user;
} rt_op_strategy_t;

/* Adds a strategy. NOT_FOUND when the op does not exist; INVALID_ARGUMENT
 * without a name or select function. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_op_strategy_register(
    const rt_op_strategy_t *strategy);

#ifdef __cplusplus
}
#endif

#endif /* RT_OP_H_ */
