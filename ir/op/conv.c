/* Type relations of the convolutions: nn.conv1d, nn.conv2d and
 * nn.conv2d_transpose, in one routine over S spatial dims. Layouts may be
 * any ordering of the primal letters (data NCW/NCHW/NHWC..., kernel
 * OIW/OIHW/HWIO..., out_layout "" = data_layout). Checks, as TVM's
 * Conv2DRel: data channels = weight I * groups (transpose: = weight I),
 * channels and kernel_size when given match the weight, output channels
 * divide by groups. Output spatial size:
 *   conv:      (in + pad_before + pad_after - ((k - 1) * dilation + 1)) / stride + 1
 *   transpose: (in - 1) * stride + (k - 1) * dilation + 1
 *              - pad_before - pad_after + output_padding
 * Any `?` operand makes that output dim `?`. */
#include "ir/op/op_impl.h"

#define MAXS 2

static bool any2(int64_t a, int64_t b) { return a == RT_DIM_ANY || b == RT_DIM_ANY; }

static rt_status_t conv_common(const rt_ir_rel_ctx_t *ctx, int32_t S, bool transpose,
                               rt_ir_type_t **out_type) {
  const char *op = ctx->op->name;
  const rt_ir_attrs_t *a = ctx->attrs;
  const char *dl = S == 2 ? "NCHW" : "NCW";
  const char *kl = S == 2 ? "OIHW" : "OIW";
  const char *spatial_names = S == 2 ? "HW" : "W";
  const rt_ir_type_t *x, *w;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &w));
  int32_t dpos[2 + MAXS], kpos[2 + MAXS], opos[2 + MAXS];
  const char *data_layout = rt_attrs_string(a, "data_layout");
  const char *out_layout = rt_attrs_string(a, "out_layout");
  RT_RETURN_IF_ERROR(rt_ir_op_layout_perm(op, "data_layout", data_layout, dl, dpos));
  RT_RETURN_IF_ERROR(rt_ir_op_layout_perm(op, "kernel_layout",
                                          rt_attrs_string(a, "kernel_layout"), kl, kpos));
  RT_RETURN_IF_ERROR(rt_ir_op_layout_perm(op, "out_layout",
                                          *out_layout ? out_layout : data_layout, dl, opos));
  if (x->tensor.rank != 2 + S || w->tensor.rank != 2 + S) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: data and weight must be %d-d, got ranks %d and %d",
                     op, (int)(2 + S), (int)x->tensor.rank, (int)w->tensor.rank);
  }
  const int64_t *d = x->tensor.shape, *k = w->tensor.shape;
  const int64_t n = d[dpos[0]], c = d[dpos[1]];
  const int64_t wo = k[kpos[0]], wi = k[kpos[1]];
  const int64_t groups = rt_attrs_int(a, "groups");
  if (groups < 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: groups must be >= 1, got %lld", op,
                     (long long)groups);
  }
  int64_t strides[MAXS], dilation[MAXS], pb[MAXS], pa[MAXS], outpad[MAXS] = {0, 0};
  int64_t ksize[MAXS];
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(ctx, "strides", S, strides));
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(ctx, "dilation", S, dilation));
  RT_RETURN_IF_ERROR(rt_ir_op_padding(ctx, "padding", S, pb, pa));
  if (transpose) RT_RETURN_IF_ERROR(rt_ir_op_ints_n(ctx, "output_padding", S, outpad));
  for (int32_t i = 0; i < S; ++i) {
    if (strides[i] < 1 || dilation[i] < 1 || outpad[i] < 0) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: strides and dilation must be >= 1 (and output_padding >= 0)", op);
    }
    ksize[i] = k[kpos[2 + i]];
  }
  if (!rt_attrs_is_none(a, "kernel_size")) {
    int64_t given[MAXS];
    RT_RETURN_IF_ERROR(rt_ir_op_ints_n(ctx, "kernel_size", S, given));
    for (int32_t i = 0; i < S; ++i) {
      if (ksize[i] != RT_DIM_ANY && ksize[i] != given[i]) {
        return RT_STATUS(INVALID_ARGUMENT,
                         "%s: kernel_size %lld along %c but the weight has %lld", op,
                         (long long)given[i], spatial_names[i], (long long)ksize[i]);
      }
      ksize[i] = given[i];
    }
  }

  int64_t out_c;
  if (!transpose) {
    int64_t expect;
    RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(wi, groups, &expect));
    if (!any2(c, expect) && c != expect) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: data has %lld input channels but weight expects %lld (groups=%lld)",
                       op, (long long)c, (long long)expect, (long long)groups);
    }
    if (wo != RT_DIM_ANY && wo % groups != 0) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: %lld output channels do not divide into groups=%lld", op,
                       (long long)wo, (long long)groups);
    }
    out_c = wo;
  } else {
    if (!any2(c, wi) && c != wi) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: data has %lld input channels but weight expects %lld (groups=%lld)",
                       op, (long long)c, (long long)wi, (long long)groups);
    }
    RT_RETURN_IF_ERROR(rt_ir_op_dim_mul(wo, groups, &out_c));
  }
  if (!rt_attrs_is_none(a, "channels")) {
    int64_t channels = rt_attrs_int(a, "channels");
    if (out_c != RT_DIM_ANY && channels != out_c) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: channels=%lld but the weight gives %lld",
                       op, (long long)channels, (long long)out_c);
    }
    out_c = channels;
  }

  int64_t out[2 + MAXS];
  out[opos[0]] = n;
  out[opos[1]] = out_c;
  for (int32_t i = 0; i < S; ++i) {
    const int64_t in = d[dpos[2 + i]];
    int64_t o;
    if (any2(in, ksize[i])) {
      o = RT_DIM_ANY;
    } else {
      /* Values come from text: every step is overflow-checked. */
      int64_t dk, v;
      bool ovf = __builtin_mul_overflow(ksize[i] - 1, dilation[i], &dk) ||
                 __builtin_add_overflow(dk, 1, &dk);
      if (transpose) {
        ovf = ovf || __builtin_mul_overflow(in - 1, strides[i], &v) ||
              __builtin_add_overflow(v, dk, &v) || __builtin_sub_overflow(v, pb[i], &v) ||
              __builtin_sub_overflow(v, pa[i], &v) || __builtin_add_overflow(v, outpad[i], &v);
      } else {
        ovf = ovf || __builtin_add_overflow(in, pb[i], &v) ||
              __builtin_add_overflow(v, pa[i], &v) || __builtin_sub_overflow(v, dk, &v);
        v = ovf || v < 0 ? 0 : v / strides[i] + 1;
      }
      if (ovf || v < 1) {
        return RT_STATUS(INVALID_ARGUMENT,
                         "%s: output size along %c is not positive (input %lld, kernel %lld)",
                         op, spatial_names[i], (long long)in, (long long)ksize[i]);
      }
      o = v;
    }
    out[opos[2 + i]] = o;
  }
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "out_dtype", x->tensor.dtype, &dt));
  return rt_ir_op_make_tensor(ctx, dt, 2 + S, out, out_type);
}

rt_status_t rt_ir_rel_conv1d(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return conv_common(ctx, 1, false, out_type);
}

rt_status_t rt_ir_rel_conv2d(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  return conv_common(ctx, 2, false, out_type);
}

rt_status_t rt_ir_rel_conv2d_transpose(const rt_ir_rel_ctx_t *ctx,
                                       rt_ir_type_t **out_type) {
  return conv_common(ctx, 2, true, out_type);
}
