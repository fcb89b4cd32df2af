/* The op table of jit/: one entry per line of ir/ops.def, expanded from
 * ops.def itself so that adding an op without saying how (or that it does
 * not) lower is a build error (STYLE.md rule 17). An entry is
 * LOWER(shape, elem) with the family functions of jit/ops/ops_impl.h, or
 * NONE: the op does not lower yet, and a kernel using it fails to build
 * with UNIMPLEMENTED naming it. */
#include "jit/ops/ops_impl.h"

#define LOWER(shape, elem) {shape, elem}
#define NONE {NULL, NULL}

#define JIT_NEGATIVE LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_ABS LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_SIGN LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_FLOOR LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_CEIL LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_ROUND LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_TRUNC LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_EXP LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_LOG LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_LOG2 LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_LOG10 LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_SQRT LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_RSQRT LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_SIGMOID LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_TANH LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_ERF LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_SIN LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_COS LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_TAN LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_ASIN LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_ACOS LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_ATAN LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_SINH LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_COSH LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_ASINH LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_ACOSH LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_ATANH LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_ISNAN LOWER(rt_jit_shape_same, rt_jit_elem_classify)
#define JIT_ISINF LOWER(rt_jit_shape_same, rt_jit_elem_classify)
#define JIT_ISFINITE LOWER(rt_jit_shape_same, rt_jit_elem_classify)
#define JIT_LOGICAL_NOT LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_BITWISE_NOT LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_COPY LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_NN_RELU LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define JIT_NN_LEAKY_RELU LOWER(rt_jit_shape_same, rt_jit_elem_leaky_relu)
#define JIT_CLIP LOWER(rt_jit_shape_same, rt_jit_elem_clip)
#define JIT_CAST LOWER(rt_jit_shape_same, rt_jit_elem_cast)
#define JIT_CAST_LIKE LOWER(rt_jit_shape_same, rt_jit_elem_cast)
#define JIT_ZEROS_LIKE LOWER(rt_jit_shape_same, rt_jit_elem_fill_like)
#define JIT_ONES_LIKE LOWER(rt_jit_shape_same, rt_jit_elem_fill_like)
#define JIT_FULL_LIKE LOWER(rt_jit_shape_same, rt_jit_elem_fill_like)
#define JIT_ADD LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_SUBTRACT LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_MULTIPLY LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_DIVIDE LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_POWER LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_MAXIMUM LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_MINIMUM LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_MOD LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_FLOOR_DIVIDE LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_FLOOR_MOD LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_TRUNC_DIVIDE LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_TRUNC_MOD LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_LOGICAL_AND LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_LOGICAL_OR LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_LOGICAL_XOR LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_BITWISE_AND LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_BITWISE_OR LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_BITWISE_XOR LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_LEFT_SHIFT LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_RIGHT_SHIFT LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_EQUAL LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_NOT_EQUAL LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_LESS LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_LESS_EQUAL LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_GREATER LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_GREATER_EQUAL LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define JIT_WHERE LOWER(rt_jit_shape_broadcast, rt_jit_elem_where)
#define JIT_NN_PRELU LOWER(rt_jit_shape_same, rt_jit_elem_prelu)
#define JIT_NN_BIAS_ADD LOWER(rt_jit_shape_same, rt_jit_elem_bias_add)
#define JIT_SUM LOWER(rt_jit_shape_reduce, rt_jit_elem_reduce)
#define JIT_MAX LOWER(rt_jit_shape_reduce, rt_jit_elem_reduce)
#define JIT_MIN LOWER(rt_jit_shape_reduce, rt_jit_elem_reduce)
#define JIT_MEAN LOWER(rt_jit_shape_reduce, rt_jit_elem_reduce)
#define JIT_PROD LOWER(rt_jit_shape_reduce, rt_jit_elem_reduce)
#define JIT_ALL LOWER(rt_jit_shape_reduce, rt_jit_elem_reduce)
#define JIT_ANY LOWER(rt_jit_shape_reduce, rt_jit_elem_reduce)
#define JIT_ARGMAX LOWER(rt_jit_shape_reduce, rt_jit_elem_argreduce)
#define JIT_ARGMIN LOWER(rt_jit_shape_reduce, rt_jit_elem_argreduce)
#define JIT_VARIANCE LOWER(rt_jit_shape_reduce, rt_jit_elem_variance)
#define JIT_RESHAPE LOWER(NULL, rt_jit_elem_reshape)
#define JIT_RESHAPE_LIKE LOWER(NULL, rt_jit_elem_reshape)
#define JIT_SQUEEZE LOWER(NULL, rt_jit_elem_reshape)
#define JIT_EXPAND_DIMS LOWER(NULL, rt_jit_elem_reshape)
#define JIT_TRANSPOSE LOWER(rt_jit_shape_transpose, rt_jit_elem_transpose)
#define JIT_NN_BATCH_FLATTEN LOWER(NULL, rt_jit_elem_reshape)
#define JIT_CONCATENATE LOWER(NULL, rt_jit_elem_concatenate)
#define JIT_STACK LOWER(NULL, rt_jit_elem_stack)
#define JIT_SPLIT LOWER(NULL, rt_jit_elem_split)
#define JIT_STRIDED_SLICE LOWER(NULL, rt_jit_elem_strided_slice)
#define JIT_TAKE LOWER(NULL, rt_jit_elem_take)
#define JIT_GATHER LOWER(NULL, rt_jit_elem_gather)
#define JIT_GATHER_ND NONE
#define JIT_BROADCAST_TO LOWER(NULL, rt_jit_elem_broadcast_to)
#define JIT_TILE LOWER(NULL, rt_jit_elem_tile)
#define JIT_REPEAT LOWER(NULL, rt_jit_elem_repeat)
#define JIT_REVERSE LOWER(NULL, rt_jit_elem_reverse)
#define JIT_NN_PAD LOWER(NULL, rt_jit_elem_pad)
#define JIT_LAYOUT_TRANSFORM NONE
#define JIT_ONE_HOT LOWER(NULL, rt_jit_elem_one_hot)
#define JIT_NN_DEPTH_TO_SPACE NONE
#define JIT_NN_SPACE_TO_DEPTH NONE
#define JIT_ZEROS LOWER(NULL, rt_jit_elem_init)
#define JIT_ONES LOWER(NULL, rt_jit_elem_init)
#define JIT_FULL LOWER(NULL, rt_jit_elem_init)
#define JIT_ARANGE NONE
#define JIT_SHAPE_OF NONE
#define JIT_NDARRAY_SIZE NONE
#define JIT_IMAGE_RESIZE2D NONE
#define JIT_NN_UPSAMPLING NONE
#define JIT_NN_DENSE LOWER(NULL, rt_jit_elem_dense)
#define JIT_NN_MATMUL LOWER(NULL, rt_jit_elem_matmul)
#define JIT_NN_BATCH_MATMUL LOWER(NULL, rt_jit_elem_batch_matmul)
#define JIT_NN_CONV1D LOWER(NULL, rt_jit_elem_conv)
#define JIT_NN_CONV2D LOWER(NULL, rt_jit_elem_conv)
#define JIT_NN_CONV2D_TRANSPOSE NONE
#define JIT_NN_MAX_POOL2D LOWER(NULL, rt_jit_elem_pool)
#define JIT_NN_AVG_POOL2D LOWER(NULL, rt_jit_elem_pool)
#define JIT_NN_MAX_POOL1D LOWER(NULL, rt_jit_elem_pool)
#define JIT_NN_AVG_POOL1D LOWER(NULL, rt_jit_elem_pool)
#define JIT_NN_GLOBAL_AVG_POOL2D LOWER(NULL, rt_jit_elem_global_pool)
#define JIT_NN_GLOBAL_MAX_POOL2D LOWER(NULL, rt_jit_elem_global_pool)
#define JIT_NN_ADAPTIVE_AVG_POOL2D LOWER(NULL, rt_jit_elem_adaptive_pool)
#define JIT_NN_ADAPTIVE_MAX_POOL2D LOWER(NULL, rt_jit_elem_adaptive_pool)
#define JIT_NN_ADAPTIVE_AVG_POOL1D LOWER(NULL, rt_jit_elem_adaptive_pool)
#define JIT_NN_ADAPTIVE_MAX_POOL1D LOWER(NULL, rt_jit_elem_adaptive_pool)
#define JIT_NN_SOFTMAX LOWER(rt_jit_shape_same, rt_jit_elem_softmax)
#define JIT_NN_LOG_SOFTMAX LOWER(rt_jit_shape_same, rt_jit_elem_softmax)
#define JIT_NN_BATCH_NORM NONE
#define JIT_NN_LAYER_NORM NONE
#define JIT_NN_GROUP_NORM NONE
#define JIT_NN_INSTANCE_NORM NONE
#define JIT_NN_L2_NORMALIZE NONE
#define JIT_NN_DROPOUT NONE
#define JIT_NN_LRN NONE

static const rt_jit_op_lowering_t k_table[] = {
#define RT_OP(ID, name, ninputs, pattern, fields, rel, doc) [RT_OP_##ID] = JIT_##ID,
#include "ir/ops.def"
#undef RT_OP
};
_Static_assert(RT_COUNTOF(k_table) == RT_OP_COUNT, "one jit entry per op");

static const rt_jit_op_lowering_t k_none = NONE;

const rt_jit_op_lowering_t *rt_jit_op_lowering(int32_t id) {
  if (id < 0 || id >= RT_OP_COUNT) return &k_none;
  return &k_table[id];
}
