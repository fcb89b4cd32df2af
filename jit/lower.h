/* Internal to jit/: lowering of one Primitive function into LLVM IR with
 * the kernel ABI, and the interface the per-op lowerings (jit/ops/) use.
 *
 * The model. A fused group is lowered as element expressions: for an output
 * multi-index `idx` (a vector of i64 SSA values), rt_jit_elem(L, e, idx)
 * emits the instructions computing element idx of node e, recursively
 * through its operands, at the current insertion point. Elementwise and
 * broadcast ops combine their operands' elements (numpy broadcasting by
 * index arithmetic); injective ops map idx to their operand's index (an
 * index map: reshape, transpose, slices, gathers); reductions and the
 * anchors (dense, conv, pools, softmax) emit their loop over the reduced
 * domain inline, evaluating their operand's element expression inside the
 * loop (so an elementwise prologue fuses into the load) and returning the
 * accumulator (so the epilogue fuses into the store). One loop nest over
 * the output elements computes the whole chain; intermediate values are
 * never stored.
 *
 * Shapes. Before any loop, every node gets its dims as i64 SSA values in
 * the kernel's entry block: constants where the checked type has a static
 * dim, values computed from the argument descriptors otherwise (so `?`
 * dims work), with runtime checks (rt_jit_check) that dynamic dims agree.
 *
 * Memo. Element values are memoized by (node, index values) so a node
 * shared in the DAG is computed once per element. Entries made inside a
 * loop body are dropped when the loop closes (rt_jit_loop_end): they do not
 * dominate the code after it.
 *
 * Values are kept in a compute type per dtype (rt_jit_type): float32/64 as
 * float/double, float16/bfloat16 as float rounded to their precision after
 * every op, integers as iN of the dtype's width (wrapping arithmetic),
 * bool as i8 holding 0 or 1. */
#ifndef RT_JIT_LOWER_H_
#define RT_JIT_LOWER_H_

#include <llvm-c/Core.h>

#include "ir/ir.h"
#include "ir/op/plan.h"
#include "jit/target.h"

typedef struct rt_jit_lower_t rt_jit_lower_t;

/* Per-node facts computed in the shape phase. */
typedef struct rt_jit_node_t {
  const rt_ir_expr_t *expr;
  rt_dtype_t dtype;
  int32_t rank;
  LLVMValueRef dims[RT_TENSOR_MAX_RANK]; /* i64, dominate every loop */
  LLVMValueRef data;                     /* params and constants: ptr */
} rt_jit_node_t;

/* How one op lowers (jit/ops/table.c has one entry per line of ops.def).
 * shape: fills the dims of the call's result (static dims may be taken
 *   from the checked type with rt_jit_static_dims); NULL means "static
 *   shapes only" (a `?` in the result is UNIMPLEMENTED). It may emit
 *   rt_jit_check calls.
 * elem: computes element idx (rank of the call's type) of the call.
 * Both NULL: the op does not lower (UNIMPLEMENTED naming it). */
typedef struct rt_jit_op_lowering_t {
  rt_status_t (*shape)(rt_jit_lower_t *L, const rt_ir_expr_t *call,
                       LLVMValueRef *out_dims);
  rt_status_t (*elem)(rt_jit_lower_t *L, const rt_ir_expr_t *call,
                      const LLVMValueRef *idx, LLVMValueRef *out_value);
} rt_jit_op_lowering_t;

/* The lowering of built-in op `id` (never NULL; fields NULL when it does
 * not lower). */
const rt_jit_op_lowering_t *rt_jit_op_lowering(int32_t id);

/* ---- the lowering of one function (lower_custom.c, lower.c) ----------------- */

/* Lowers `fn` into module `m` as the kernel entry point `symbol` (plus
 * private helpers named `symbol`.*). *out_nin / *out_nout: the kernel's
 * input and output counts. UNIMPLEMENTED names the op that does not lower;
 * the module may then hold a partial function, which the caller discards
 * with the module. */
RT_MUST_USE_RESULT rt_status_t rt_jit_lower_function(LLVMModuleRef m,
                                                     const rt_jit_target_t *target,
                                                     const rt_ir_expr_t *fn,
                                                     const char *symbol,
                                                     int32_t *out_nin,
                                                     int32_t *out_nout);
/* The same for a function of built-in ops only (lower.c);
 * rt_jit_lower_function (lower_custom.c) calls it after dealing with
 * custom ops. */
RT_MUST_USE_RESULT rt_status_t rt_jit_lower_plain(LLVMModuleRef m,
                                                  const rt_jit_target_t *target,
                                                  const rt_ir_expr_t *fn,
                                                  const char *symbol,
                                                  int32_t *out_nin,
                                                  int32_t *out_nout);

/* ---- services for op lowerings ------------------------------------------ */

struct rt_jit_lower_t {
  LLVMContextRef c;
  LLVMModuleRef m;
  LLVMBuilderRef b;
  LLVMValueRef fn;     /* the function being built */
  LLVMValueRef ctx;    /* const rt_kernel_ctx * */
  LLVMValueRef err;    /* alloca ptr: first runtime error message, or null */
  LLVMTypeRef i1, i8, i16, i32, i64, f16, f32, f64, ptr, void_t;
  const char *symbol;
  const rt_jit_target_t *target; /* the session's: template widths */
  /* Nodes with their shapes (small groups: linear lookup). */
  rt_jit_node_t *nodes;
  int32_t num_nodes, cap_nodes;
  /* Element memo: a stack, truncated when loops close. */
  struct rt_jit_memo_t *memo;
  int32_t num_memo, cap_memo;
  int32_t num_strings; /* private globals (messages, tables) made so far: their name suffix */
  /* Fields of tuple values that have no expression of their own: a
   * tuple-typed param (the kernel takes each field as its own argument,
   * as the graph executor flattens tuples) and a tuple-valued op call
   * (split, nn.batch_norm, nn.dropout) as the function's result. */
  struct rt_jit_field_t *fields;
  int32_t num_fields, cap_fields;
  /* The loop nest being emitted covers only the slab of a concatenate's
   * output that its input `input` fills (lower.c, emit_output): where the
   * concatenate is asked for an element whose axis index is the very
   * value `index`, it reads that input without its chain of compares.
   * With `input` -1 the input is chosen at run time (one nest in a loop
   * over the inputs, all in memory with one dtype): its data at `base`,
   * its slab starting at `off` along the axis, `len` long. */
  struct {
    const rt_ir_expr_t *concat;
    int32_t input;
    LLVMValueRef index;
    LLVMValueRef base, off, len;
  } pin;
};

/* ---- tuple fields (lower.c) ---------------------------------------------- */

typedef struct rt_jit_field_t {
  const rt_ir_expr_t *tuple;  /* the tuple-typed param or op call */
  int32_t index;
  rt_jit_node_t node;         /* dtype, rank, dims (and data for params) */
} rt_jit_field_t;

/* Number of fields of a tuple-typed expression (0 when not a tuple). */
int32_t rt_jit_tuple_count(const rt_ir_expr_t *tuple);
/* The node facts of field `index` of `tuple` (a Tuple node, a tuple param
 * or a tuple-valued op call); NULL when it was not sized. */
rt_jit_node_t *rt_jit_field_node(rt_jit_lower_t *L, const rt_ir_expr_t *tuple, int32_t index);
/* Element idx of field `index` of `tuple`. */
RT_MUST_USE_RESULT rt_status_t rt_jit_field_elem(rt_jit_lower_t *L, const rt_ir_expr_t *tuple,
                                                 int32_t index, const LLVMValueRef *idx,
                                                 LLVMValueRef *out_value);
/* Element idx of field `field` of a tuple-valued op call (jit/ops/:
 * split, nn.batch_norm, nn.dropout); UNIMPLEMENTED for other ops. */
RT_MUST_USE_RESULT rt_status_t rt_jit_op_field_elem(rt_jit_lower_t *L, const rt_ir_expr_t *call,
                                                    int32_t field, const LLVMValueRef *idx,
                                                    LLVMValueRef *out_value);

/* The node facts of e (computed by the shape phase; NULL when e is not a
 * tensor-valued node of the function). */
rt_jit_node_t *rt_jit_node(rt_jit_lower_t *L, const rt_ir_expr_t *e);
/* The checked tensor type of e (dtype, rank, shape); INVALID_ARGUMENT when
 * e is not tensor-typed. */
RT_MUST_USE_RESULT rt_status_t rt_jit_tensor_type(const rt_ir_expr_t *e,
                                                  rt_dtype_t *out_dtype,
                                                  int32_t *out_rank,
                                                  const int64_t **out_shape);
/* The first n arguments of `call` as plan inputs (ir/op/plan.h), from
 * their checked types (no values): what a lowering hands its op's plan. */
RT_MUST_USE_RESULT rt_status_t rt_jit_plan_inputs(const rt_ir_expr_t *call, int32_t n,
                                                  rt_plan_input_t *in);
/* Static dims of e's checked type as constants; UNIMPLEMENTED (naming the
 * op of `call`) when one is `?`. */
RT_MUST_USE_RESULT rt_status_t rt_jit_static_dims(rt_jit_lower_t *L,
                                                  const rt_ir_expr_t *call,
                                                  LLVMValueRef *out_dims);

/* Element idx of e, memoized. */
RT_MUST_USE_RESULT rt_status_t rt_jit_elem(rt_jit_lower_t *L,
                                           const rt_ir_expr_t *e,
                                           const LLVMValueRef *idx,
                                           LLVMValueRef *out_value);

/* Records `value` as element idx of e in the memo (templates: the anchor's
 * value computed by a micro-kernel, read back by the tail ops' element
 * expressions). Dropped with the enclosing loop like any memo entry. */
RT_MUST_USE_RESULT rt_status_t rt_jit_memo_set(rt_jit_lower_t *L, const rt_ir_expr_t *e,
                                               const LLVMValueRef *idx, LLVMValueRef value);

/* Constants. */
LLVMValueRef rt_jit_i64(rt_jit_lower_t *L, int64_t v);
LLVMValueRef rt_jit_i32(rt_jit_lower_t *L, int32_t v);
/* A constant of dtype's compute type holding v (ints from int64). */
LLVMValueRef rt_jit_const_f(rt_jit_lower_t *L, rt_dtype_t dtype, double v);
LLVMValueRef rt_jit_const_i(rt_jit_lower_t *L, rt_dtype_t dtype, int64_t v);
/* Lowest / highest value of the dtype (-inf / +inf for floats). */
LLVMValueRef rt_jit_const_lowest(rt_jit_lower_t *L, rt_dtype_t dtype);
LLVMValueRef rt_jit_const_highest(rt_jit_lower_t *L, rt_dtype_t dtype);
/* True when e is a one-element constant; its value as a double in *out. */
bool rt_jit_scalar_constant(const rt_ir_expr_t *e, double *out);

/* Dtype classes and types. */
bool rt_jit_is_float(rt_dtype_t d);
bool rt_jit_is_signed(rt_dtype_t d);   /* signed ints */
bool rt_jit_is_bool(rt_dtype_t d);
LLVMTypeRef rt_jit_type(rt_jit_lower_t *L, rt_dtype_t d); /* compute type */
/* How elements of d are held in memory (half for float16, i16 for
 * bfloat16, else the compute type), and the conversions between a compute
 * value and its stored form. */
LLVMTypeRef rt_jit_storage_type(rt_jit_lower_t *L, rt_dtype_t d);
LLVMValueRef rt_jit_to_storage(rt_jit_lower_t *L, LLVMValueRef v, rt_dtype_t d);
LLVMValueRef rt_jit_from_storage(rt_jit_lower_t *L, LLVMValueRef v, rt_dtype_t d);
/* The value of element 0 of raw memory p holding dtype d, as a constant. */
LLVMValueRef rt_jit_const_from_bytes(rt_jit_lower_t *L, rt_dtype_t d, const void *p);
/* Converts a compute value with cast semantics (saturating float->int,
 * NaN -> 0; != 0 to bool; wrapping int->int). */
LLVMValueRef rt_jit_convert(rt_jit_lower_t *L, LLVMValueRef v, rt_dtype_t from,
                            rt_dtype_t to);
/* Rounds a computed value to what dtype holds (bool: != 0 as 0/1; float16
 * and bfloat16: their precision). Every op result passes through it. */
LLVMValueRef rt_jit_normalize(rt_jit_lower_t *L, LLVMValueRef v, rt_dtype_t d);
/* v != 0 as i1 (floats: une, so NaN is true). */
LLVMValueRef rt_jit_truthy(rt_jit_lower_t *L, LLVMValueRef v, rt_dtype_t d);
/* i1 -> 0/1 of dtype d. */
LLVMValueRef rt_jit_from_bool(rt_jit_lower_t *L, LLVMValueRef b, rt_dtype_t d);

/* Calls a math function: the LLVM intrinsic `name` (".f32"-style suffix
 * added from the type) with 1..3 operands of one float type. */
LLVMValueRef rt_jit_intrinsic(rt_jit_lower_t *L, const char *name,
                              LLVMValueRef a, LLVMValueRef b, LLVMValueRef c);
/* A private, unnamed_addr, 64-byte aligned constant global of the module
 * initialized with `init`, named "<symbol>.<tag><n>". */
LLVMValueRef rt_jit_private_constant(rt_jit_lower_t *L, LLVMValueRef init, const char *tag);
/* exp(x): for float32 straight-line arithmetic within ~1 ulp of expf
 * (vectorizable; NaN, overflow and underflow as expf), else llvm.exp. */
LLVMValueRef rt_jit_exp(rt_jit_lower_t *L, LLVMValueRef x);
/* tanh(x), erf(x): for float32 a rational function of x (vectorizable,
 * within 3.6e-7 relative of the double function, NaN passed), else libm.
 * tanh also takes a vector of float32 (the same function per lane). */
LLVMValueRef rt_jit_tanh(rt_jit_lower_t *L, LLVMValueRef x);
LLVMValueRef rt_jit_erf(rt_jit_lower_t *L, LLVMValueRef x);
/* sigmoid(x) of float32 (a scalar or a vector): 0.5 + 0.5 tanh(x / 2)
 * through rt_jit_tanh's rational function, the halvings folded into its
 * coefficients (the same values bit for bit, one multiply fewer). */
LLVMValueRef rt_jit_sigmoid_f32(rt_jit_lower_t *L, LLVMValueRef x);
/* Calls the libm function `name` (float version `name`f for float). */
LLVMValueRef rt_jit_libm(rt_jit_lower_t *L, const char *name, LLVMValueRef a,
                         LLVMValueRef b);
/* Sets reassoc+contract on a float instruction (reductions: lets the O3
 * vectorizer reorder the accumulation: without reassoc it does not
 * vectorize a float reduction at all); no-op on ints. */
LLVMValueRef rt_jit_fast(LLVMValueRef inst);

/* Index helpers. */
LLVMValueRef rt_jit_min(rt_jit_lower_t *L, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef rt_jit_max(rt_jit_lower_t *L, LLVMValueRef a, LLVMValueRef b);
/* Row-major linear index of idx in dims. */
LLVMValueRef rt_jit_linear(rt_jit_lower_t *L, int32_t rank,
                           const LLVMValueRef *idx, const LLVMValueRef *dims);
/* Flat index -> multi-index in dims. */
void rt_jit_unravel(rt_jit_lower_t *L, LLVMValueRef flat, int32_t rank,
                    const LLVMValueRef *dims, LLVMValueRef *out_idx);
/* Product of dims (1 for rank 0). */
LLVMValueRef rt_jit_numel(rt_jit_lower_t *L, int32_t rank,
                          const LLVMValueRef *dims);

/* Entry-phase check: when `ok` (i1) is false at run time the kernel
 * reports "<symbol>: <message>" and returns 1. Only in the shape phase. */
void rt_jit_check(rt_jit_lower_t *L, LLVMValueRef ok, const char *message);
/* In-loop check: when `bad` (i1) is true the kernel finishes its loops and
 * then reports the message (the first one) and fails. */
void rt_jit_flag_error(rt_jit_lower_t *L, LLVMValueRef bad, const char *message);

/* Loops with carried values. rt_jit_loop_begin emits `for (iv = lo; iv <
 * hi; ++iv)` with `ncarry` carried values starting at init[]; it returns
 * the induction variable and the carried values' phis (valid inside the
 * body and, after rt_jit_loop_end, holding the final values). The body is
 * emitted at the insertion point in between; rt_jit_loop_end takes the
 * carried values' next values and leaves the builder after the loop. */
/* 32: the GEMM micro-kernel carries up to 28 vector accumulators (the
 * 14x32 tile of conv2d.im2colT on 16 lanes). */
#define RT_JIT_MAX_CARRY 32
typedef struct rt_jit_loop_t {
  LLVMBasicBlockRef head, exit;
  LLVMValueRef iv;
  LLVMValueRef carry[RT_JIT_MAX_CARRY];
  int32_t ncarry;
  int32_t memo_mark;
} rt_jit_loop_t;
void rt_jit_loop_begin(rt_jit_lower_t *L, LLVMValueRef lo, LLVMValueRef hi,
                       int32_t ncarry, const LLVMValueRef *init,
                       rt_jit_loop_t *out_loop);
void rt_jit_loop_end(rt_jit_lower_t *L, rt_jit_loop_t *loop,
                     const LLVMValueRef *next);

/* An if/else producing one value: rt_jit_if_begin branches on cond and
 * positions the builder in the "then" block; rt_jit_if_else moves to the
 * "else" block given the then-value; rt_jit_if_end joins with a phi. */
typedef struct rt_jit_if_t {
  LLVMBasicBlockRef then_end, else_bb, else_end, join;
  LLVMValueRef then_value;
  int32_t memo_mark;
} rt_jit_if_t;
void rt_jit_if_begin(rt_jit_lower_t *L, LLVMValueRef cond, rt_jit_if_t *out_if);
void rt_jit_if_else(rt_jit_lower_t *L, rt_jit_if_t *s, LLVMValueRef then_value);
LLVMValueRef rt_jit_if_end(rt_jit_lower_t *L, rt_jit_if_t *s,
                           LLVMValueRef else_value);

/* Error helper: UNIMPLEMENTED "<op>: <message>". */
#define RT_JIT_UNIMPLEMENTED(call_, fmt, ...)                        \
  RT_STATUS(UNIMPLEMENTED, "%s: " fmt,                               \
            (call_)->call.callee->op.op->name, __VA_ARGS__)

/* Normalizes axis for rank; INVALID_ARGUMENT naming the op when out of
 * range. */
RT_MUST_USE_RESULT rt_status_t rt_jit_axis(const rt_ir_expr_t *call,
                                           int64_t axis, int32_t rank,
                                           int32_t *out_axis);

#endif /* RT_JIT_LOWER_H_ */
