/* Type relations of the pools: max/avg pool 1-d and 2-d, global pools and
 * adaptive pools. Layouts are any ordering of NCW / NCHW, or (2-d) the
 * blocked NCHW{x}c, whose lane axis rides along; the output is in
 * the input layout (out_layout only matters to layout rewriting). TVM's
 * Pool2DRel output size, with pad = before + after and
 * k' = (pool_size - 1) * dilation + 1:
 *   floor mode: (in + pad - k') / stride + 1
 *   ceil mode:  (in + pad - k' + stride - 1) / stride + 1
 * (TVM applies no "last window must start inside the input" correction).
 * Adaptive pools: output_size [] keeps the input size, one value applies
 * to every spatial dim. rt_ir_plan_pool (ir/op/plan_nn.h) does all of it:
 * the relations, the reference kernels and the lowering read its plan. */
#include <string.h>

#include "ir/op/op_impl.h"
#include "ir/op/plan.h"
#include "runtime/assert.h"

#define MAXS RT_PLAN_MAX_SPATIAL

/* The block x of "NCHW<x>c" (x in 1..4096); 0 for any other text. */
static int64_t nchwc_block(const char *layout) {
  if (strncmp(layout, "NCHW", 4) != 0) return 0;
  const char *q = layout + 4;
  int64_t v = 0;
  while (*q >= '0' && *q <= '9' && v <= 4096) v = v * 10 + (*q++ - '0');
  return v >= 1 && v <= 4096 && q[0] == 'c' && q[1] == '\0' ? v : 0;
}

/* The layout's positions and the rank check, for every pool. */
static rt_status_t layout_of(const char *op, const char *layout, const char *out_layout,
                             const rt_plan_input_t *x, int32_t S, rt_plan_pool_t *p) {
  const char *letters = S == 2 ? "NCHW" : "NCW";
  p->block = S == 2 ? nchwc_block(layout) : 0;
  p->rank = 2 + S;
  if (p->block) {
    for (int32_t k = 0; k < 4; ++k) p->pos[k] = k;
    p->rank = 5;
    if (x->rank == 5 && x->shape[4] != RT_DIM_ANY && x->shape[4] != p->block) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: the input's last dim is %lld, layout %s needs %lld",
                       op, (long long)x->shape[4], layout, (long long)p->block);
    }
  } else {
    RT_RETURN_IF_ERROR(rt_ir_op_layout_perm(op, "layout", layout, letters, p->pos));
  }
  if (x->rank != p->rank) {
    return RT_STATUS(INVALID_ARGUMENT, "%s needs a %d-d input, got rank %d (layout %s)",
                     op, (int)p->rank, (int)x->rank, layout);
  }
  p->nsp = S;
  p->out_is_layout = !*out_layout || strcmp(out_layout, layout) == 0;
  for (int32_t i = 0; i < p->rank; ++i) p->out_shape[i] = x->shape[i];
  for (int32_t i = 0; i < S; ++i) p->in_size[i] = p->out_size[i] = x->shape[p->pos[2 + i]];
  return RT_OK;
}

static rt_status_t plan_window(const char *op, const rt_plan_input_t *x, int32_t S,
                               rt_attr_list_t size_l, rt_attr_list_t strides_l,
                               rt_attr_list_t dilation_l, rt_attr_list_t padding_l,
                               rt_plan_pool_t *p) {
  int64_t *size = p->pool_size, *strides = p->strides, *dilation = p->dilation;
  int64_t *pb = p->pad_before, *pa = p->pad_after;
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(op, "pool_size", size_l, S, size));
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(op, "strides", strides_l, S, strides));
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(op, "dilation", dilation_l, S, dilation));
  RT_RETURN_IF_ERROR(rt_ir_op_padding(op, "padding", padding_l, S, pb, pa));
  for (int32_t i = 0; i < S; ++i) {
    if (size[i] < 1 || strides[i] < 1 || dilation[i] < 1) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: pool_size, strides and dilation must be >= 1", op);
    }
    const int32_t pos = p->pos[2 + i];
    const int64_t in = x->shape[pos];
    if (in == RT_DIM_ANY) continue;
    int64_t dk, span;
    bool ovf = __builtin_mul_overflow(size[i] - 1, dilation[i], &dk) ||
               __builtin_add_overflow(dk, 1, &dk) ||
               __builtin_add_overflow(in, pb[i], &span) ||
               __builtin_add_overflow(span, pa[i], &span) ||
               __builtin_sub_overflow(span, dk, &span);
    if (ovf || span < 0) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: the window (%lld, dilation %lld) is larger than the padded input %lld",
                       op, (long long)size[i], (long long)dilation[i], (long long)in);
    }
    if (p->ceil_mode && __builtin_add_overflow(span, strides[i] - 1, &span)) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: output too large", op);
    }
    p->out_shape[pos] = p->out_size[i] = span / strides[i] + 1;
  }
  return RT_OK;
}

static rt_status_t plan_adaptive(const char *op, int32_t S, rt_attr_list_t output_size,
                                 rt_plan_pool_t *p) {
  if (output_size.count > 0) {
    int64_t size[MAXS];
    RT_RETURN_IF_ERROR(rt_ir_op_ints_n(op, "output_size", output_size, S, size));
    for (int32_t i = 0; i < S; ++i) {
      if (size[i] < 1) {
        return RT_STATUS(INVALID_ARGUMENT, "%s: output_size must be >= 1", op);
      }
      p->out_shape[p->pos[2 + i]] = p->out_size[i] = size[i];
    }
  }
  return RT_OK;
}

rt_status_t rt_ir_plan_pool(const rt_ir_op_t *opdef, const rt_ir_attrs_t *attrs,
                            int32_t nin, const rt_plan_input_t *in, rt_plan_pool_t *p) {
  RT_ASSERT(nin >= 1);
  (void)nin;
  const char *op = opdef->name;
  const rt_plan_input_t *x = &in[0];
  memset(p, 0, sizeof *p);
  switch (opdef->id) {
    case RT_OP_NN_MAX_POOL2D: {
      rt_attrs_max_pool2d_t a = rt_ir_attrs_max_pool2d(attrs);
      p->is_max = true;
      p->ceil_mode = a.ceil_mode;
      RT_RETURN_IF_ERROR(layout_of(op, a.layout, a.out_layout, x, 2, p));
      return plan_window(op, x, 2, a.pool_size, a.strides, a.dilation, a.padding, p);
    }
    case RT_OP_NN_AVG_POOL2D: {
      rt_attrs_avg_pool2d_t a = rt_ir_attrs_avg_pool2d(attrs);
      p->ceil_mode = a.ceil_mode;
      p->count_include_pad = a.count_include_pad;
      RT_RETURN_IF_ERROR(layout_of(op, a.layout, a.out_layout, x, 2, p));
      return plan_window(op, x, 2, a.pool_size, a.strides, a.dilation, a.padding, p);
    }
    case RT_OP_NN_MAX_POOL1D: {
      rt_attrs_max_pool1d_t a = rt_ir_attrs_max_pool1d(attrs);
      p->is_max = true;
      p->ceil_mode = a.ceil_mode;
      RT_RETURN_IF_ERROR(layout_of(op, a.layout, a.out_layout, x, 1, p));
      return plan_window(op, x, 1, a.pool_size, a.strides, a.dilation, a.padding, p);
    }
    case RT_OP_NN_AVG_POOL1D: {
      rt_attrs_avg_pool1d_t a = rt_ir_attrs_avg_pool1d(attrs);
      p->ceil_mode = a.ceil_mode;
      p->count_include_pad = a.count_include_pad;
      RT_RETURN_IF_ERROR(layout_of(op, a.layout, a.out_layout, x, 1, p));
      return plan_window(op, x, 1, a.pool_size, a.strides, a.dilation, a.padding, p);
    }
    case RT_OP_NN_GLOBAL_AVG_POOL2D:
    case RT_OP_NN_GLOBAL_MAX_POOL2D: {
      rt_attrs_global_pool2d_t a = rt_ir_attrs_global_pool2d(attrs);
      p->kind = RT_PLAN_POOL_GLOBAL;
      p->is_max = opdef->id == RT_OP_NN_GLOBAL_MAX_POOL2D;
      RT_RETURN_IF_ERROR(layout_of(op, a.layout, a.out_layout, x, 2, p));
      for (int32_t i = 0; i < 2; ++i) p->out_shape[p->pos[2 + i]] = p->out_size[i] = 1;
      return RT_OK;
    }
    case RT_OP_NN_ADAPTIVE_AVG_POOL2D:
    case RT_OP_NN_ADAPTIVE_MAX_POOL2D: {
      rt_attrs_adaptive_pool2d_t a = rt_ir_attrs_adaptive_pool2d(attrs);
      p->kind = RT_PLAN_POOL_ADAPTIVE;
      p->is_max = opdef->id == RT_OP_NN_ADAPTIVE_MAX_POOL2D;
      RT_RETURN_IF_ERROR(layout_of(op, a.layout, a.out_layout, x, 2, p));
      return plan_adaptive(op, 2, a.output_size, p);
    }
    case RT_OP_NN_ADAPTIVE_AVG_POOL1D:
    case RT_OP_NN_ADAPTIVE_MAX_POOL1D: {
      rt_attrs_adaptive_pool1d_t a = rt_ir_attrs_adaptive_pool1d(attrs);
      p->kind = RT_PLAN_POOL_ADAPTIVE;
      p->is_max = opdef->id == RT_OP_NN_ADAPTIVE_MAX_POOL1D;
      RT_RETURN_IF_ERROR(layout_of(op, a.layout, a.out_layout, x, 1, p));
      return plan_adaptive(op, 1, a.output_size, p);
    }
    default:
      return RT_STATUS(INTERNAL, "%s is not a pool", op);
  }
}

/* Every pool relation: the plan's output shape, in the input's dtype. */
static rt_status_t pool_rel(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  rt_plan_input_t in;
  rt_ir_plan_input_of_type(x, &in);
  rt_plan_pool_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_pool(ctx->op, ctx->attrs, 1, &in, &p));
  return rt_ir_op_make_tensor(ctx, x->tensor.dtype, p.rank, p.out_shape, out_type);
}

rt_status_t rt_ir_rel_pool2d(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return pool_rel(ctx, out_type);
}

rt_status_t rt_ir_rel_pool1d(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return pool_rel(ctx, out_type);
}

rt_status_t rt_ir_rel_global_pool2d(const rt_ir_rel_ctx_t *ctx,
                                    rt_ir_type_t **out_type) {
  return pool_rel(ctx, out_type);
}

rt_status_t rt_ir_rel_adaptive_pool2d(const rt_ir_rel_ctx_t *ctx,
                                      rt_ir_type_t **out_type) {
  return pool_rel(ctx, out_type);
}

rt_status_t rt_ir_rel_adaptive_pool1d(const rt_ir_rel_ctx_t *ctx,
                                      rt_ir_type_t **out_type) {
  return pool_rel(ctx, out_type);
}
