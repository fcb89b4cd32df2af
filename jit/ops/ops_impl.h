/* Internal to jit/ops/: the per-family lowering functions that
 * jit/ops/table.c puts into the op table, one family per file with the
 * same split as ir/op/ and interp/kernels/ (elemwise, reduce, transform,
 * nn). Semantics follow the reference kernels (the interp/kernels/ files), whose
 * file comments are the specification; where a lowering differs (float32
 * computed in float, not double) the family file says so. */
#ifndef RT_JIT_OPS_OPS_IMPL_H_
#define RT_JIT_OPS_OPS_IMPL_H_

#include "jit/lower.h"

#define RT_JIT_SHAPE_FN(name) \
  rt_status_t name(rt_jit_lower_t *L, const rt_ir_expr_t *call, LLVMValueRef *out_dims)
#define RT_JIT_ELEM_FN(name)                                                 \
  rt_status_t name(rt_jit_lower_t *L, const rt_ir_expr_t *call,              \
                   const LLVMValueRef *idx, LLVMValueRef *out_value)

/* elemwise.c */
RT_JIT_SHAPE_FN(rt_jit_shape_same);       /* the first argument's dims */
RT_JIT_SHAPE_FN(rt_jit_shape_broadcast);  /* numpy broadcast of all args */
RT_JIT_ELEM_FN(rt_jit_elem_unary);
RT_JIT_ELEM_FN(rt_jit_elem_classify);     /* isnan, isinf, isfinite */
RT_JIT_ELEM_FN(rt_jit_elem_clip);
RT_JIT_ELEM_FN(rt_jit_elem_cast);         /* cast, cast_like */
RT_JIT_ELEM_FN(rt_jit_elem_fill_like);    /* zeros_like, ones_like, full_like */
RT_JIT_ELEM_FN(rt_jit_elem_binary);
RT_JIT_ELEM_FN(rt_jit_elem_where);
RT_JIT_ELEM_FN(rt_jit_elem_prelu);
RT_JIT_ELEM_FN(rt_jit_elem_bias_add);
/* Element idx (of rank out_rank) of `arg` read with numpy broadcasting. */
RT_MUST_USE_RESULT rt_status_t rt_jit_bcast_elem(rt_jit_lower_t *L,
                                                 const rt_ir_expr_t *arg,
                                                 int32_t out_rank,
                                                 const LLVMValueRef *idx,
                                                 LLVMValueRef *out_value);

/* reduce.c */
RT_JIT_SHAPE_FN(rt_jit_shape_reduce);
RT_JIT_ELEM_FN(rt_jit_elem_reduce);       /* sum max min mean prod all any */
RT_JIT_ELEM_FN(rt_jit_elem_argreduce);
RT_JIT_ELEM_FN(rt_jit_elem_variance);

/* transform.c */
RT_JIT_ELEM_FN(rt_jit_elem_reshape);      /* reshape, reshape_like, squeeze,
                                             batch_flatten, expand_dims
                                             (row-major order kept) */
RT_JIT_ELEM_FN(rt_jit_elem_transpose);
RT_JIT_SHAPE_FN(rt_jit_shape_transpose);
RT_JIT_ELEM_FN(rt_jit_elem_concatenate);
RT_JIT_ELEM_FN(rt_jit_elem_stack);
RT_JIT_ELEM_FN(rt_jit_elem_split);        /* only through a projection */
RT_JIT_ELEM_FN(rt_jit_elem_strided_slice);
RT_JIT_ELEM_FN(rt_jit_elem_take);
RT_JIT_ELEM_FN(rt_jit_elem_gather);
RT_JIT_ELEM_FN(rt_jit_elem_scatter_elements); /* scatter.c (h3) */
RT_JIT_ELEM_FN(rt_jit_elem_scatter_nd);
RT_JIT_ELEM_FN(rt_jit_elem_grid_sample); /* grid_sample.c (h3) */
RT_JIT_ELEM_FN(rt_jit_elem_broadcast_to);
RT_JIT_ELEM_FN(rt_jit_elem_tile);
RT_JIT_ELEM_FN(rt_jit_elem_repeat);
RT_JIT_ELEM_FN(rt_jit_elem_reverse);
RT_JIT_ELEM_FN(rt_jit_elem_pad);
RT_JIT_ELEM_FN(rt_jit_elem_init);         /* zeros, ones, full */
RT_JIT_ELEM_FN(rt_jit_elem_one_hot);
RT_JIT_ELEM_FN(rt_jit_elem_gather_nd);
RT_JIT_ELEM_FN(rt_jit_elem_layout_transform);
RT_JIT_ELEM_FN(rt_jit_elem_subpixel);     /* depth_to_space, space_to_depth */
RT_JIT_ELEM_FN(rt_jit_elem_arange);
RT_JIT_SHAPE_FN(rt_jit_shape_arange);     /* the length from the inputs */
RT_JIT_SHAPE_FN(rt_jit_shape_dyn_reshape); /* the dims from newshape's values */
RT_JIT_ELEM_FN(rt_jit_elem_shape_of);
RT_JIT_ELEM_FN(rt_jit_elem_ndarray_size);
/* Field `field` of split(x) (rt_jit_op_field_elem dispatches here). */
RT_MUST_USE_RESULT rt_status_t rt_jit_split_field_elem(rt_jit_lower_t *L,
                                                       const rt_ir_expr_t *split,
                                                       int32_t field,
                                                       const LLVMValueRef *idx,
                                                       LLVMValueRef *out_value);

/* image.c */
RT_JIT_ELEM_FN(rt_jit_elem_resize2d);     /* image.resize2d, nn.upsampling */

/* norm.c */
RT_JIT_ELEM_FN(rt_jit_elem_norm);         /* layer_norm, group_norm, instance_norm */
RT_JIT_ELEM_FN(rt_jit_elem_l2_normalize);
RT_JIT_ELEM_FN(rt_jit_elem_lrn);
RT_JIT_ELEM_FN(rt_jit_elem_tuple_op);     /* batch_norm, dropout: only through
                                             their fields */

/* nn.c */
RT_JIT_ELEM_FN(rt_jit_elem_dense);
RT_JIT_ELEM_FN(rt_jit_elem_dense_pack); /* nn.contrib_dense_pack */
RT_JIT_ELEM_FN(rt_jit_elem_matmul);
RT_JIT_ELEM_FN(rt_jit_elem_batch_matmul);
RT_JIT_ELEM_FN(rt_jit_elem_conv);         /* conv1d, conv2d */
RT_JIT_ELEM_FN(rt_jit_elem_pool);         /* max/avg pool1d/2d */
RT_JIT_ELEM_FN(rt_jit_elem_global_pool);
RT_JIT_ELEM_FN(rt_jit_elem_adaptive_pool);
RT_JIT_ELEM_FN(rt_jit_elem_softmax);      /* softmax, log_softmax */
RT_JIT_ELEM_FN(rt_jit_elem_hardmax);
RT_JIT_SHAPE_FN(rt_jit_shape_dense);      /* `?` batch dims */
RT_JIT_SHAPE_FN(rt_jit_shape_dense_pack); /* `?` batch dims */
RT_JIT_SHAPE_FN(rt_jit_shape_matmul);
RT_JIT_SHAPE_FN(rt_jit_shape_batch_matmul);

/* winograd.c */
RT_JIT_ELEM_FN(rt_jit_elem_winograd_weight); /* nn.contrib_conv2d_winograd_weight_transform */
RT_JIT_ELEM_FN(rt_jit_elem_winograd);        /* ..._without_weight_transform */

/* algorithm.c */
RT_JIT_ELEM_FN(rt_jit_elem_cumsum);
RT_JIT_ELEM_FN(rt_jit_elem_topk);        /* ret_type values / indices */
/* Field `field` of topk(x, ret_type="both") (rt_jit_op_field_elem). */
RT_MUST_USE_RESULT rt_status_t rt_jit_topk_field_elem(rt_jit_lower_t *L,
                                                      const rt_ir_expr_t *call,
                                                      int32_t field,
                                                      const LLVMValueRef *idx,
                                                      LLVMValueRef *out_value);

/* Shared helper (reduce.c): runs nested loops over `n` extents with `nacc`
 * carried accumulators, calling body(L, user, red_idx, accs, next) in the
 * innermost body. Returns the final accumulators in accs. */
typedef rt_status_t (*rt_jit_reduce_body_fn)(rt_jit_lower_t *L, void *user,
                                             const LLVMValueRef *red_idx,
                                             const LLVMValueRef *accs,
                                             LLVMValueRef *next);
RT_MUST_USE_RESULT rt_status_t rt_jit_reduce_loops(rt_jit_lower_t *L, int32_t n,
                                                   const LLVMValueRef *extents,
                                                   int32_t nacc, LLVMValueRef *accs,
                                                   rt_jit_reduce_body_fn body,
                                                   void *user);

#endif /* RT_JIT_OPS_OPS_IMPL_H_ */
