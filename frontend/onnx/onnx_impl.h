/* Internal to frontend/onnx/: the importer's context and the helpers the
 * per-op converters share (attribute lookup, building typed IR nodes,
 * reading constant inputs).
 *
 * Every node the importer builds gets its checked_type at once, from the
 * op's type relation, so converters can look at the shapes of their inputs
 * (auto_pad, Flatten, Expand, shape subgraphs) and a type error names the
 * ONNX node that caused it. Values whose inputs are all constants and that
 * feed shapes (Shape, Gather, Concat, Unsqueeze, Cast, arithmetic on small
 * int tensors ...) are computed at import (fold.c, by the caller's
 * evaluator), so Reshape(x, Concat(Shape(x)[0], -1)) becomes a static
 * reshape. */
#ifndef RT_FRONTEND_ONNX_ONNX_IMPL_H_
#define RT_FRONTEND_ONNX_ONNX_IMPL_H_

#include "frontend/onnx/onnx.h"
#include "ir/ir.h"
#include "onnx.pb-c.h"

/* Largest tensor the importer computes on the host (elements). */
#define RT_ONNX_HOST_FOLD_MAX 4096

typedef struct rt_onnx_ctx_t {
  rt_module_t *m;
  const char *path;               /* model file (or source name) for messages */
  const char *dir;                /* its folder, for external data; NULL = none */
  int64_t opset;                  /* default domain's opset */
  const Onnx__NodeProto *node;    /* node being converted */
  int32_t node_index;
  rt_ir_span_t span;              /* span of the node being converted */
  struct value_entry *values;     /* name -> expr (uthash) */
  const rt_module_load_options_t *opts; /* never NULL (zeroed: none) */
  const rt_ir_evaluator_t *eval;  /* computes what fold.c folds; NULL: none */
  bool oom;                       /* an attribute text could not be made (rt_onnx_*_text) */
  /* A top-level If whose branches' outputs differ in rank. While import.c
   * converts the main graph's own nodes (not a subgraph's), can_fork is
   * set, and the If converter (ops_control.c) may then record its
   * condition and both branches' outputs in *fork instead of refusing:
   * import.c converts the rest of the graph once per branch and returns
   * `if (cond) { rest(then) } else { rest(else) }`. */
  bool can_fork;
  struct rt_onnx_fork_t *fork;
  const Onnx__GraphProto *graph;  /* the graph (or subgraph) being converted */
} rt_onnx_ctx_t;

typedef struct rt_onnx_fork_t {
  rt_ir_expr_t *cond;        /* 0-d bool */
  int32_t nout;
  rt_ir_expr_t **outs[2];    /* the then and else branches' outputs, nout each */
  rt_ir_span_t span;         /* the If node's */
} rt_onnx_fork_t;

/* A converter: `in[i]` is NULL for an absent optional input (""), and
 * `nin` is the count given in the model; it sets out[0 .. nout-1] (NULL is
 * allowed for outputs nobody may use, e.g. a Dropout mask not asked for). */
typedef rt_status_t (*rt_onnx_convert_fn)(rt_onnx_ctx_t *cx, rt_ir_expr_t **in,
                                          int32_t nin, rt_ir_expr_t **out,
                                          int32_t nout);

typedef struct rt_onnx_op_entry_t {
  const char *op_type;
  rt_onnx_convert_fn convert;
} rt_onnx_op_entry_t;

/* The converter of `op_type`, or NULL (ops.c). */
rt_onnx_convert_fn rt_onnx_find_converter(const char *op_type);
/* The converters of ops_transform.c and ops_nn.c, searched by
 * rt_onnx_find_converter. */
extern const rt_onnx_op_entry_t rt_onnx_transform_ops[];
extern const int32_t rt_onnx_transform_ops_count;
extern const rt_onnx_op_entry_t rt_onnx_nn_ops[];
extern const int32_t rt_onnx_nn_ops_count;
/* h1 (issue 19): the loss functions and other decompositions of
 * ops_loss.c. */
extern const rt_onnx_op_entry_t rt_onnx_loss_ops[];
extern const int32_t rt_onnx_loss_ops_count;
/* BatchNormalization in training mode (ops_loss.c), for ops_nn.c's
 * converter. */
rt_status_t rt_onnx_batch_norm_training(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                        rt_ir_expr_t **out, int32_t nout);
/* Dropout (opsets 12, 13) whose ratio or training_mode is known only at
 * run time (ops_loss.c), for ops_transform.c's converter. */
rt_status_t rt_onnx_dropout_runtime(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                    rt_ir_expr_t **out, int32_t nout);
/* The quantized ops' converters (ops_quant.c). */
extern const rt_onnx_op_entry_t rt_onnx_quant_ops[];
extern const int32_t rt_onnx_quant_ops_count;
/* ops_extra.c (h3, issue 19): Scatter, ScatterElements, ScatterND. */
extern const rt_onnx_op_entry_t rt_onnx_extra_ops[];
extern const int32_t rt_onnx_extra_ops_count;
/* Text ops (issue 19, strings): ops_string.c. */
extern const rt_onnx_op_entry_t rt_onnx_string_ops[];
extern const int32_t rt_onnx_string_ops_count;
/* The random ops (ops_random.c), the signal ops (ops_signal.c). */
extern const rt_onnx_op_entry_t rt_onnx_random_ops[];
extern const int32_t rt_onnx_random_ops_count;
extern const rt_onnx_op_entry_t rt_onnx_signal_ops[];
extern const int32_t rt_onnx_signal_ops_count;
/* Ops with data-dependent output shapes (ops_datadep.c). */
extern const rt_onnx_op_entry_t rt_onnx_datadep_ops[];
extern const int32_t rt_onnx_datadep_ops_count;
/* h1 (issue 19), detection: NonMaxSuppression and Unique (ops_detect.c). */
extern const rt_onnx_op_entry_t rt_onnx_detect_ops[];
extern const int32_t rt_onnx_detect_ops_count;
/* Einsum for any equation (ops_einsum.c); ops_nn.c keeps the matmul forms. */
RT_MUST_USE_RESULT rt_status_t rt_onnx_einsum_general(rt_onnx_ctx_t *cx, rt_ir_expr_t **in,
                                                      int32_t nin, rt_ir_expr_t **out);
/* Sequences and optionals (ops_seq.c). */
extern const rt_onnx_op_entry_t rt_onnx_seq_ops[];
extern const int32_t rt_onnx_seq_ops_count;

/* Helpers the converter files share (ops.c): a value's rank and dtype
 * (from its checked type; 0 and float32 when it has none), `axis`
 * normalised for `rank` in place ("axis 3 is out of range for rank 2"
 * naming the node), and a scalar constant of `like`'s dtype. */
int32_t rt_onnx_rank(const rt_ir_expr_t *e);
rt_dtype_t rt_onnx_elem_dtype(const rt_ir_expr_t *e);
RT_MUST_USE_RESULT rt_status_t rt_onnx_axis(rt_onnx_ctx_t *cx, int64_t *axis, int32_t rank);
RT_MUST_USE_RESULT rt_status_t rt_onnx_scalar_like(rt_onnx_ctx_t *cx, const rt_ir_expr_t *like,
                                                   double v, rt_ir_expr_t **out);

/* ---- errors -------------------------------------------------------------- */

/* "<file>: node <i> '<name>' (<OpType>, opset N): <message>" with `code`. */
rt_status_t rt_onnx_node_error(const rt_onnx_ctx_t *cx, rt_status_code_t code,
                               const char *format, ...) RT_PRINTF_FORMAT(3, 4);
/* Shorthands the converters share: INVALID_ARGUMENT with `what`;
 * UNIMPLEMENTED "<what> is not supported"; INVALID_ARGUMENT unless the
 * node has at least k inputs and the first k are present. */
rt_status_t rt_onnx_bad(rt_onnx_ctx_t *cx, const char *what);
rt_status_t rt_onnx_unsupported(rt_onnx_ctx_t *cx, const char *what);
rt_status_t rt_onnx_need(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, int32_t k);

/* ---- attributes ---------------------------------------------------------- */

const Onnx__AttributeProto *rt_onnx_attr(const rt_onnx_ctx_t *cx, const char *name);
int64_t rt_onnx_attr_int(const rt_onnx_ctx_t *cx, const char *name, int64_t dflt);
double rt_onnx_attr_float(const rt_onnx_ctx_t *cx, const char *name, double dflt);
/* NUL-terminated copy in the module arena, or dflt. */
const char *rt_onnx_attr_string(const rt_onnx_ctx_t *cx, const char *name,
                                const char *dflt);
/* The INTS attribute; false when absent. */
bool rt_onnx_attr_ints(const rt_onnx_ctx_t *cx, const char *name, int32_t *out_n,
                       const int64_t **out_v);

/* ---- types --------------------------------------------------------------- */

/* The tensor type of a typed expression (resolved), or NULL. */
const rt_ir_type_t *rt_onnx_type(const rt_ir_expr_t *e);
/* Requires a tensor type: error naming input `i` otherwise. */
RT_MUST_USE_RESULT rt_status_t rt_onnx_tensor_type(const rt_onnx_ctx_t *cx,
                                                   const rt_ir_expr_t *e, int32_t i,
                                                   const rt_ir_type_t **out);
bool rt_onnx_static_shape(const rt_ir_type_t *t);
/* The rank the model declares for output k of the node being converted
 * (its graph's outputs and value_info); false when it declares none. The
 * dyn ops whose rank the values decide (Squeeze/Unsqueeze axes, reductions
 * without keepdims, known only at run time) take it from here. */
bool rt_onnx_output_rank(const rt_onnx_ctx_t *cx, int32_t k, int32_t *out_rank);
/* ONNX TensorProto data type -> dtype; false when unsupported. */
bool rt_onnx_dtype(int32_t onnx_type, rt_dtype_t *out);
/* The name of an ONNX data type relayrt has no dtype for ("string",
 * "complex64", "complex128", else "unknown"), for messages. */
const char *rt_onnx_type_name(int32_t onnx_type);

/* ---- building ------------------------------------------------------------ */

/* Calls op `name` with attributes given as key, Relay-text value pairs
 * ending with NULL ("strides", "[1, 1]", NULL), and types the call. */
RT_MUST_USE_RESULT rt_status_t rt_onnx_call(rt_onnx_ctx_t *cx, const char *name,
                                            int32_t nargs, rt_ir_expr_t *const *args,
                                            rt_ir_expr_t **out, ...);
RT_MUST_USE_RESULT rt_status_t rt_onnx_call1(rt_onnx_ctx_t *cx, const char *name,
                                             rt_ir_expr_t *a, rt_ir_expr_t **out);
RT_MUST_USE_RESULT rt_status_t rt_onnx_call2(rt_onnx_ctx_t *cx, const char *name,
                                             rt_ir_expr_t *a, rt_ir_expr_t *b,
                                             rt_ir_expr_t **out);
RT_MUST_USE_RESULT rt_status_t rt_onnx_tuple(rt_onnx_ctx_t *cx, int32_t n,
                                             rt_ir_expr_t *const *fields,
                                             rt_ir_expr_t **out);
RT_MUST_USE_RESULT rt_status_t rt_onnx_get_item(rt_onnx_ctx_t *cx, rt_ir_expr_t *t,
                                                int32_t index, rt_ir_expr_t **out);
/* A typed constant (retains t). */
RT_MUST_USE_RESULT rt_status_t rt_onnx_constant(rt_onnx_ctx_t *cx, rt_tensor_t *t,
                                                rt_ir_expr_t **out);
RT_MUST_USE_RESULT rt_status_t rt_onnx_scalar(rt_onnx_ctx_t *cx, rt_dtype_t dtype,
                                              double value, rt_ir_expr_t **out);
/* A 1-d (rank 1) or 0-d (rank 0, n == 1) int64 constant. */
RT_MUST_USE_RESULT rt_status_t rt_onnx_const_i64(rt_onnx_ctx_t *cx, int32_t rank,
                                                 int64_t n, const int64_t *v,
                                                 rt_ir_expr_t **out);

/* Text of an int list "[1, 2]" / a float "1.5f" / a string "\"x\"" in the
 * module arena (for rt_onnx_call's values). */
const char *rt_onnx_ints_text(rt_onnx_ctx_t *cx, int32_t n, const int64_t *v);
const char *rt_onnx_float_text(rt_onnx_ctx_t *cx, double v);
const char *rt_onnx_int_text(rt_onnx_ctx_t *cx, int64_t v);
const char *rt_onnx_str_text(rt_onnx_ctx_t *cx, const char *s);

/* ---- constants ----------------------------------------------------------- */

bool rt_onnx_is_const(const rt_ir_expr_t *e);
/* A present input that is not a constant: its values are known only at
 * run time, and the converter emits the dyn op (ir/op/dyn.h). */
bool rt_onnx_is_runtime(const rt_ir_expr_t *e);
/* The integer values of a constant input (any int dtype, 0-d or 1-d, at
 * most `cap`): error naming the input when it is not a constant. */
RT_MUST_USE_RESULT rt_status_t rt_onnx_const_ints(const rt_onnx_ctx_t *cx,
                                                  const rt_ir_expr_t *e,
                                                  const char *what, int32_t cap,
                                                  int64_t *out_v, int32_t *out_n);
/* One float value of a constant (0-d or 1-element). */
RT_MUST_USE_RESULT rt_status_t rt_onnx_const_float(const rt_onnx_ctx_t *cx,
                                                   const rt_ir_expr_t *e,
                                                   const char *what, double *out);
/* A TensorProto as a tensor (external data read relative to cx->dir). */
RT_MUST_USE_RESULT rt_status_t rt_onnx_tensor_from_proto(const rt_onnx_ctx_t *cx,
                                                         const Onnx__TensorProto *tp,
                                                         rt_tensor_t **out);

/* ---- subgraphs and control flow ------------------------------------------ */

/* Converts subgraph g (an If branch, a Loop body) in the scope of the node
 * being converted: its inputs are bound to inputs[0 .. nin-1] (nin must be
 * its input count), its outputs come back in outs[0 .. nout-1] (nout must
 * be its output count). Names it defines stay inside it (import.c). */
RT_MUST_USE_RESULT rt_status_t rt_onnx_subgraph(rt_onnx_ctx_t *cx, const Onnx__GraphProto *g,
                                                int32_t nin, rt_ir_expr_t *const *inputs,
                                                int32_t nout, rt_ir_expr_t **outs);
/* The same with the outer names bind_names[0 .. nbind-1] rebound to
 * bind_exprs inside the subgraph (a Loop body turned into a function
 * reads its outer values through parameters). */
RT_MUST_USE_RESULT rt_status_t rt_onnx_subgraph_bind(
    rt_onnx_ctx_t *cx, const Onnx__GraphProto *g, int32_t nin, rt_ir_expr_t *const *inputs,
    int32_t nbind, const char *const *bind_names, rt_ir_expr_t *const *bind_exprs, int32_t nout,
    rt_ir_expr_t **outs);
/* The value an ONNX name has at this point of the conversion, or NULL. */
rt_ir_expr_t *rt_onnx_value(rt_onnx_ctx_t *cx, const char *name);

/* The converters of ops_control.c (If, Loop) and ops_rnn.c (RNN, LSTM,
 * GRU), put into the table of ops.c. */
rt_status_t rt_onnx_cv_if(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                          rt_ir_expr_t **out, int32_t nout);
rt_status_t rt_onnx_cv_loop(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                            rt_ir_expr_t **out, int32_t nout);
/* ops_scan.c: Scan, unrolled. */
rt_status_t rt_onnx_cv_scan(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                            rt_ir_expr_t **out, int32_t nout);
/* A loop of `m` iterations (a 0-d int) over `body` (inputs: iteration,
 * condition; outputs: the condition, then nout values), each output
 * gathered in a list (ops_control.c; SequenceMap, ops_seq.c). */
rt_status_t rt_onnx_loop_lists(rt_onnx_ctx_t *cx, const Onnx__GraphProto *body, rt_ir_expr_t *m,
                               int32_t nout, rt_ir_expr_t **out);
rt_status_t rt_onnx_cv_rnn(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                           rt_ir_expr_t **out, int32_t nout);
rt_status_t rt_onnx_cv_lstm(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                            rt_ir_expr_t **out, int32_t nout);
rt_status_t rt_onnx_cv_gru(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                           rt_ir_expr_t **out, int32_t nout);

#endif /* RT_FRONTEND_ONNX_ONNX_IMPL_H_ */
