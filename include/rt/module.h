/* relayrt modules: a set of global Relay functions (`def @main(...)`) held
 * in memory, loaded from Relay text (TVM's format) or ONNX, type-checked.
 *
 * Ownership: rt_module_parse/load return a reference the caller owns;
 * release it with rt_module_release. Text returned by rt_module_print is
 * malloc'd and owned by the caller (free()).
 * Thread-safety: a module is immutable after loading; many threads may
 * read, print and build from one module at once, and create and run
 * executors over it (include/rt/executor.h). retain/release are atomic. */
#ifndef RT_MODULE_H_
#define RT_MODULE_H_

#include "rt/allocator.h"
#include "rt/base.h"
#include "rt/status.h"
#include "rt/tensor.h"

RT_EXTERN_C_BEGIN

typedef struct rt_module_t rt_module_t;

/* Parses Relay text (`size` bytes, no NUL needed) and runs type inference.
 * `source_name` is used in diagnostics. Errors are INVALID_ARGUMENT with the
 * message "source:line:col: error: what\n<source line>\n<caret>". */
RT_API RT_MUST_USE_RESULT rt_status_t rt_module_parse(const char *text,
                                                      size_t size,
                                                      const char *source_name,
                                                      rt_module_t **out_module);

/* Loads a model file by extension: .relay/.txt text (as rt_module_parse),
 * .onnx an ONNX model (opsets 7-18; external data is read relative to the
 * model's folder). ONNX errors: DATA_LOSS for malformed or truncated
 * protobuf, UNIMPLEMENTED for an unsupported op (naming the op type, node,
 * opset and file), INVALID_ARGUMENT for an inconsistent model. Other
 * extensions are INVALID_ARGUMENT. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_module_load(const char *path,
                                                     rt_module_t **out_module);

/* The shape to give one input of @main: `rank` dims (a -1 entry keeps
 * the declared dim). */
typedef struct rt_input_shape_t {
  const char *name;
  int32_t rank;
  const int64_t *dims;
} rt_input_shape_t;

/* Options for rt_module_load_with_options. Zero-initialize, then set what
 * you need; the pointers are borrowed for the duration of the call. */
typedef struct rt_module_load_options_t {
  /* Graph inputs bound to constants at load time (ONNX models only): input
   * `constant_input_names[i]` becomes the constant `constant_input_values[i]`
   * and is no longer an input of @main. Its dtype and rank must match the
   * declared ones, and its shape every static dim. Meant for inputs that
   * ONNX passes as tensors but relayrt needs at compile time (a Reshape's
   * shape, Slice's starts/ends/axes/steps, reduce axes, Tile repeats ...):
   * the importer names such an input in its UNIMPLEMENTED error. The model
   * is then specialized to those values; other values need a reload. */
  int32_t num_constant_inputs;
  const char *const *constant_input_names;
  rt_tensor_t *const *constant_input_values;
  /* ONNX nodes of custom domains mapped to custom ops (rt/op.h): a node
   * whose "<domain>.<op_type>" is custom_op_sources[i] ("com.example.Gelu")
   * becomes a call of the registered op custom_op_targets[i] ("my.gelu")
   * on the node's inputs, with the node's attributes the op declares (by
   * name; ints, floats and strings). The op must be registered before the
   * load; a node of a custom domain that no entry maps stays UNIMPLEMENTED.
   * Ignored for Relay text (which names custom ops directly). */
  int32_t num_custom_ops;
  const char *const *custom_op_sources;
  const char *const *custom_op_targets;
  /* Static shapes for inputs declared with `?` dims (an ONNX dim_param, a
   * Relay `?`), as TVM's frontends take a shape dict: the model is loaded
   * specialized to them, so shape computations fold and the graph
   * executor can run it. As rt_module_bind_input_shapes; for ONNX the
   * importer uses them while it converts. */
  int32_t num_input_shapes;
  const rt_input_shape_t *input_shapes;
  /* Where the module's memory comes from (NULL: rt_allocator_system()):
   * its IR, constants and everything loading allocates. Error statuses use
   * malloc, and protobuf-c's unpacking of an ONNX file uses its own
   * (system) allocator. When the allocator fails, the load fails with
   * RESOURCE_EXHAUSTED and leaves nothing behind. Borrowed: *allocator is
   * copied, and its `self` must outlive the module. */
  const rt_allocator_t *allocator;
} rt_module_load_options_t;

/* rt_module_load with options (NULL: the defaults, as rt_module_load).
 * Constant inputs on a Relay text model, or a name that is not a graph
 * input, are INVALID_ARGUMENT; a value whose type does not fit the input's
 * declared type is INVALID_ARGUMENT naming the input. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_module_load_with_options(
    const char *path, const rt_module_load_options_t *options, rt_module_t **out_module);

/* rt_module_parse with options (NULL: as rt_module_parse); of the options
 * only `allocator` and `input_shapes` apply to text. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_module_parse_with_options(
    const char *text, size_t size, const char *source_name,
    const rt_module_load_options_t *options, rt_module_t **out_module);

/* A new module whose @main takes the given inputs with the given shapes
 * (the other inputs unchanged), type-checked again; `module` is not
 * changed. Each name must be a tensor parameter of @main with the same
 * rank; a given dim must be >= 0 and equal a static declared dim, and -1
 * keeps the declared one. INVALID_ARGUMENT naming the input otherwise, or
 * the type error the new shapes cause (positioned as in rt_module_parse). */
RT_API RT_MUST_USE_RESULT rt_status_t rt_module_bind_input_shapes(
    rt_module_t *module, int32_t count, const rt_input_shape_t *shapes,
    rt_module_t **out_module);

RT_API void rt_module_retain(rt_module_t *module);
RT_API void rt_module_release(rt_module_t *module); /* NULL is fine */

/* Printing flags. */
enum {
  RT_PRINT_DEFAULT = 0,
  RT_PRINT_NO_TYPES = 1u << 0,    /* omit the ty=... annotations */
  RT_PRINT_NO_METADATA = 1u << 1, /* omit the #[metadata] section */
};

/* Prints the module in TVM's Relay text form. The text parses back to a
 * structurally equal module, and printing that prints the same text. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_module_print(const rt_module_t *module,
                                                      uint32_t flags,
                                                      char **out_text);

RT_API int32_t rt_module_num_functions(const rt_module_t *module);
/* Global function names in printing order (sorted); borrowed. */
RT_API const char *rt_module_function_name(const rt_module_t *module,
                                           int32_t index);

RT_EXTERN_C_END

#endif /* RT_MODULE_H_ */
