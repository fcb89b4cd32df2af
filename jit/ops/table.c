/* The op table of jit/: one entry per line of ir/ops.def, generated from
 * its `family` column: every op of a family lowers through the family's
 * shape function and element function (jit/ops/ops_impl.h), listed once
 * here. An ops.def row naming a family without an entry here is a build
 * error, and the _Static_assert keeps the table the size of the op enum.
 * An entry is LOWER(shape, elem), or NONE: the family does not lower yet,
 * and a kernel using it fails to build with UNIMPLEMENTED naming the op.
 * Every family lowers but dyn, string, datadep, detect and adt (see FAMILY_dyn,
 * FAMILY_adt). The plain
 * elementwise ops (RT_UNARY / RT_BINARY rows) are the `unary` and `binary`
 * families, whose element functions call each op's emitters
 * (jit/ops/elemwise.c). */
#include "jit/ops/ops_impl.h"

#define LOWER(shape, elem) {shape, elem}
#define NONE {NULL, NULL}

#define FAMILY_unary LOWER(rt_jit_shape_same, rt_jit_elem_unary)
#define FAMILY_classify LOWER(rt_jit_shape_same, rt_jit_elem_classify)
#define FAMILY_clip LOWER(rt_jit_shape_same, rt_jit_elem_clip)
#define FAMILY_cast LOWER(rt_jit_shape_same, rt_jit_elem_cast)
#define FAMILY_fill_like LOWER(rt_jit_shape_same, rt_jit_elem_fill_like)
#define FAMILY_binary LOWER(rt_jit_shape_broadcast, rt_jit_elem_binary)
#define FAMILY_where LOWER(rt_jit_shape_broadcast, rt_jit_elem_where)
#define FAMILY_prelu LOWER(rt_jit_shape_same, rt_jit_elem_prelu)
#define FAMILY_bias_add LOWER(rt_jit_shape_same, rt_jit_elem_bias_add)
#define FAMILY_reduce LOWER(rt_jit_shape_reduce, rt_jit_elem_reduce)
#define FAMILY_argreduce LOWER(rt_jit_shape_reduce, rt_jit_elem_argreduce)
#define FAMILY_variance LOWER(rt_jit_shape_reduce, rt_jit_elem_variance)
#define FAMILY_reshape LOWER(NULL, rt_jit_elem_reshape)
#define FAMILY_transpose LOWER(rt_jit_shape_transpose, rt_jit_elem_transpose)
#define FAMILY_concatenate LOWER(NULL, rt_jit_elem_concatenate)
#define FAMILY_stack LOWER(NULL, rt_jit_elem_stack)
#define FAMILY_split LOWER(NULL, rt_jit_elem_split)
#define FAMILY_strided_slice LOWER(NULL, rt_jit_elem_strided_slice)
#define FAMILY_take LOWER(NULL, rt_jit_elem_take)
#define FAMILY_gather LOWER(NULL, rt_jit_elem_gather)
#define FAMILY_gather_nd LOWER(NULL, rt_jit_elem_gather_nd)
#define FAMILY_broadcast_to LOWER(NULL, rt_jit_elem_broadcast_to)
#define FAMILY_tile LOWER(NULL, rt_jit_elem_tile)
#define FAMILY_repeat LOWER(NULL, rt_jit_elem_repeat)
#define FAMILY_reverse LOWER(NULL, rt_jit_elem_reverse)
#define FAMILY_pad LOWER(NULL, rt_jit_elem_pad)
#define FAMILY_layout_transform LOWER(NULL, rt_jit_elem_layout_transform)
#define FAMILY_one_hot LOWER(NULL, rt_jit_elem_one_hot)
#define FAMILY_subpixel LOWER(NULL, rt_jit_elem_subpixel)
#define FAMILY_init LOWER(NULL, rt_jit_elem_init)
#define FAMILY_arange LOWER(rt_jit_shape_arange, rt_jit_elem_arange)
#define FAMILY_shape_of LOWER(NULL, rt_jit_elem_shape_of)
#define FAMILY_ndarray_size LOWER(NULL, rt_jit_elem_ndarray_size)
#define FAMILY_resize2d LOWER(NULL, rt_jit_elem_resize2d)
#define FAMILY_dense LOWER(rt_jit_shape_dense, rt_jit_elem_dense)
#define FAMILY_dense_pack LOWER(rt_jit_shape_dense_pack, rt_jit_elem_dense_pack)
#define FAMILY_matmul LOWER(rt_jit_shape_matmul, rt_jit_elem_matmul)
#define FAMILY_batch_matmul LOWER(rt_jit_shape_batch_matmul, rt_jit_elem_batch_matmul)
#define FAMILY_conv LOWER(NULL, rt_jit_elem_conv)
#define FAMILY_winograd_weight LOWER(NULL, rt_jit_elem_winograd_weight)
#define FAMILY_winograd LOWER(NULL, rt_jit_elem_winograd)
#define FAMILY_pool LOWER(NULL, rt_jit_elem_pool)
#define FAMILY_global_pool LOWER(NULL, rt_jit_elem_global_pool)
#define FAMILY_adaptive_pool LOWER(NULL, rt_jit_elem_adaptive_pool)
#define FAMILY_softmax LOWER(rt_jit_shape_same, rt_jit_elem_softmax)
#define FAMILY_hardmax LOWER(rt_jit_shape_same, rt_jit_elem_hardmax)
#define FAMILY_tuple_op LOWER(NULL, rt_jit_elem_tuple_op)
#define FAMILY_norm LOWER(rt_jit_shape_same, rt_jit_elem_norm)
#define FAMILY_l2_normalize LOWER(rt_jit_shape_same, rt_jit_elem_l2_normalize)
#define FAMILY_lrn LOWER(rt_jit_shape_same, rt_jit_elem_lrn)
#define FAMILY_cumsum LOWER(NULL, rt_jit_elem_cumsum)
#define FAMILY_topk LOWER(NULL, rt_jit_elem_topk)
/* scatter family (h3, issue 19): jit/ops/scatter.c */
#define FAMILY_scatter_elements LOWER(NULL, rt_jit_elem_scatter_elements)
#define FAMILY_scatter_nd LOWER(NULL, rt_jit_elem_scatter_nd)
/* grid sampling (h3, issue 19): jit/ops/grid_sample.c */
#define FAMILY_grid_sample LOWER(NULL, rt_jit_elem_grid_sample)
/* The dyn family (ir/op/dyn.h) does not lower: its value operands decide
 * the static op, so the vm specializes the call on them at run time and
 * DynamicToStatic rewrites those with constant values before the JIT. */
#define FAMILY_dyn NONE
/* String tensors run on debug and, as host ops, the vm (include/rt/tensor.h). */
#define FAMILY_string NONE
/* Ops whose output dims the data decide (argwhere): no lowering; the
 * reference kernel sizes the output (ir/ops.def, data-dependent block). */
#define FAMILY_datadep NONE
/* h1 (issue 19): vision.roi_align (ir/op/detect.c) does not lower yet: its
 * reference kernel runs it (a sample grid sized by each roi's values). */
#define FAMILY_detect NONE
/* The list and option ops (ir/op/list.c) make and take ADT values, not
 * tensors: no kernel; the debug executor runs them (interp/list.c), the
 * vm as host ops (backend/vm_host.c). */
#define FAMILY_adt NONE
/* dyn.reshape as a kernel: reshape's copy, its dims from newshape's values
 * (checked against the output the caller sized). The vm does not use it:
 * it runs dyn.reshape as a view (ReshapeDyn); the graph executor refuses
 * its `?` dims. */
#define FAMILY_dyn_reshape LOWER(rt_jit_shape_dyn_reshape, rt_jit_elem_reshape)

static const rt_jit_op_lowering_t k_table[] = {
#define RT_OP(ID, name, ninputs, pattern, fields, rel, family, doc) [RT_OP_##ID] = FAMILY_##family,
#include "ir/ops.def"
#undef RT_OP
};
_Static_assert(RT_COUNTOF(k_table) == RT_OP_COUNT, "one jit entry per op");

static const rt_jit_op_lowering_t k_none = NONE;

const rt_jit_op_lowering_t *rt_jit_op_lowering(int32_t id) {
  if (id < 0 || id >= RT_OP_COUNT) return &k_none;
  return &k_table[id];
}
