/* CombineParallelConv2d (opt_level 4): several nn.conv2d on the same
 * input that differ only in their output channels become one conv2d over
 * the weights concatenated along O, and each branch takes its channels
 * back with a strided_slice along the output's channel axis:
 *   %a = nn.conv2d(%x, %w1, channels=2); %b = ...(%x, %w2, channels=3); ...
 * ->
 *   %w = concatenate((%w1, %w2, %w3), axis=<O>);
 *   %y = nn.conv2d(%x, %w, channels=2+3+...);
 *   %a = strided_slice(%y, begin=[0], end=[2], strides=[1], axes=[<C>]); ...
 * TVM's default min_branches = 3 is kept: two parallel convs are left
 * alone. Elementwise ops after each branch stay per branch (TVM would also
 * merge identical ones; FuseOps fuses them into the slices' consumers).
 *
 * Branches combine when: the same data node; groups = 1; every attribute
 * other than channels equal (strides, padding, dilation, kernel_size,
 * layouts, out_dtype); weights of one dtype and equal shapes except on O,
 * all static; the layouts upper-case permutations. Weights must be atomic
 * (a Var or a Constant), which is what they are where this pass runs
 * (before FoldConstant and FoldScaleAxis rewrite them).
 * The grouping and rewriting are the engine of passes/combine_parallel.c. */
#include <string.h>

#include "passes/combine_parallel.h"

static int32_t layout_axis(const char *layout, char c) {
  if (strlen(layout) != 4) return -1;
  int32_t pos = -1;
  for (int32_t i = 0; i < 4; ++i) {
    if (layout[i] < 'A' || layout[i] > 'Z') return -1;
    if (layout[i] == c) pos = i;
  }
  return pos;
}

static int32_t out_axis(const rt_ir_expr_t *c) {
  const rt_attrs_conv2d_t a = rt_ir_attrs_conv2d(c->call.attrs);
  return layout_axis(a.out_layout[0] ? a.out_layout : a.data_layout, 'C');
}

static int32_t weight_axis(const rt_ir_expr_t *c) {
  return layout_axis(rt_ir_attrs_conv2d(c->call.attrs).kernel_layout, 'O');
}

static bool channels_set(const rt_ir_expr_t *c) {
  return !rt_ir_attrs_conv2d(c->call.attrs).channels_is_none;
}

static bool candidate(const rt_ir_expr_t *c) {
  if (!rt_pass_is_op(c, RT_OP_NN_CONV2D) || rt_ir_attrs_conv2d(c->call.attrs).groups != 1) {
    return false;
  }
  const rt_ir_expr_t *w = c->call.args[1];
  if (w->kind != RT_IR_VAR && w->kind != RT_IR_CONSTANT) return false;
  const rt_ir_type_t *wt = rt_combine_tensor_type(w);
  if (!wt || wt->tensor.rank != 4 || !rt_combine_tensor_type(c)) return false;
  for (int32_t i = 0; i < 4; ++i) {
    if (wt->tensor.shape[i] == RT_DIM_ANY) return false;
  }
  return out_axis(c) >= 0 && weight_axis(c) >= 0;
}

static bool compatible(const rt_ir_expr_t *a, const rt_ir_expr_t *b) {
  if (a->call.args[0] != b->call.args[0]) return false;
  const rt_ir_attrs_t *x = a->call.attrs, *y = b->call.attrs;
  for (int32_t i = 0; i < x->count; ++i) {
    if (i == RT_COMBINE_FIELD_POS(conv2d, channels)) continue;
    if (!rt_attr_value_equal(&x->values[i], &y->values[i])) return false;
  }
  const rt_ir_type_t *wa = rt_combine_tensor_type(a->call.args[1]);
  const rt_ir_type_t *wb = rt_combine_tensor_type(b->call.args[1]);
  if (!rt_dtype_equal(wa->tensor.dtype, wb->tensor.dtype)) return false;
  const int32_t o = weight_axis(a);
  for (int32_t i = 0; i < 4; ++i) {
    if (i != o && wa->tensor.shape[i] != wb->tensor.shape[i]) return false;
  }
  return true;
}


static const rt_combine_rules_t kRules = {
    .pass_name = "CombineParallelConv2d",
    .candidate = candidate,
    .compatible = compatible,
    .weight_axis = weight_axis,
    .out_axis = out_axis,
    .size_pos = RT_COMBINE_FIELD_POS(conv2d, channels),
    .size_set = channels_set,
};

rt_status_t rt_pass_combine_parallel_conv2d(const rt_pass_env_t *env, rt_module_t *in,
                                            rt_module_t **out) {
  return rt_pass_combine_parallel(env, &kRules, in, out);
}
