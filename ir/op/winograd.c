/* Type relations and plans of the Winograd convolution ops, and their
 * transform matrices (ir/op/plan_winograd.h):
 *   nn.contrib_conv2d_winograd_weight_transform(w, tile_size=m):
 *     w (O, I, 3, 3) -> U (alpha, alpha, O, I), U[a, b, o, i] =
 *     sum_{y, x} G[a, y] w[o, i, y, x] G[b, x], alpha = m + 2 (TVM's
 *     Conv2DWinogradWeightTransformRel: the same shape); with pack=P (our
 *     attribute) U packed (alpha, alpha, O/P, I, P);
 *   nn.contrib_conv2d_winograd_without_weight_transform(x, U', tile_size=m,
 *     padding, ...): the stride-1, dilation-1, groups-1 NCHW conv2d of x
 *     with the 3x3 weight whose transform is U' (alpha, alpha, I, O): U
 *     with its channel axes swapped, as TVM's x86/cuda pre-computed
 *     kernels and its AlterOpLayout produce it (transpose(U, [0, 1, 3, 2])),
 *     so a GEMM row reads output channels contiguously; or U' packed in
 *     panels of P output channels, (alpha, alpha, O/P, I, P) (what the
 *     weight transform makes with pack=P, the form
 *     passes/conv2d_winograd.c stores).
 * The output size is the direct convolution's, (H + pt + pb - 3 + 1) x
 * (W + pl + pr - 3 + 1); tiles of m x m cover it (the last ones cut). The
 * relation checks what TVM's leaves to the kernels: strides and dilation 1,
 * groups 1, NCHW data and output, a square tile of a supported size, the
 * weight's alpha and input channels against the data, channels and
 * kernel_size when given. */
#include <string.h>

#include "ir/op/op_impl.h"
#include "ir/op/plan.h"
#include "runtime/assert.h"

/* F(2, 3): points 0, 1, -1, infinity. */
static const double kAT2[2 * 4] = {1, 1, 1, 0, 0, 1, -1, -1};
static const double kBT2[4 * 4] = {1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1};
static const double kG2[4 * 3] = {1, 0, 0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0, 0, 1};
/* F(4, 3): points 0, 1, -1, 2, -2, infinity. */
static const double kAT4[4 * 6] = {
    1, 1, 1, 1, 1, 0,  0, 1, -1, 2, -2, 0,
    0, 1, 1, 4, 4, 0,  0, 1, -1, 8, -8, 1,
};
static const double kBT4[6 * 6] = {
    4, 0, -5, 0, 1, 0,  0, -4, -4, 1, 1, 0,  0, 4, -4, -1, 1, 0,
    0, -2, -1, 2, 1, 0, 0, 2, -1, -2, 1, 0,  0, 4, 0, -5, 0, 1,
};
static const double kG4[6 * 3] = {
    1.0 / 4,  0,         0,        -1.0 / 6, -1.0 / 6, -1.0 / 6,
    -1.0 / 6, 1.0 / 6,   -1.0 / 6, 1.0 / 24, 1.0 / 12, 1.0 / 6,
    1.0 / 24, -1.0 / 12, 1.0 / 6,  0,        0,        1,
};

bool rt_ir_winograd_matrices(int64_t m, int64_t r, rt_winograd_matrices_t *out) {
  memset(out, 0, sizeof *out);
  if (r != 3 || (m != 2 && m != 4)) return false;
  out->m = (int32_t)m;
  out->r = 3;
  out->alpha = (int32_t)m + 2;
  out->at = m == 2 ? kAT2 : kAT4;
  out->bt = m == 2 ? kBT2 : kBT4;
  out->g = m == 2 ? kG2 : kG4;
  return true;
}

static rt_status_t check_float(const char *op, rt_dtype_t dt) {
  if (!rt_dtype_is_float(dt) || dt.lanes != 1) {
    char buf[RT_DTYPE_NAME_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "%s: needs float tensors, got %s", op,
                     rt_dtype_name(dt, buf));
  }
  return RT_OK;
}

static rt_status_t matrices(const char *op, int64_t tile, int64_t r, rt_winograd_matrices_t *mat) {
  if (!rt_ir_winograd_matrices(tile, r, mat)) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: tile_size %lld with a %lldx%lld kernel is not supported "
                     "(tile_size 2 or 4, kernel 3x3)",
                     op, (long long)tile, (long long)r, (long long)r);
  }
  return RT_OK;
}

rt_status_t rt_ir_plan_winograd_weight(const rt_ir_op_t *opdef, const rt_ir_attrs_t *attrs,
                                       int32_t nin, const rt_plan_input_t *in,
                                       rt_plan_winograd_weight_t *p) {
  RT_ASSERT(nin >= 1);
  (void)nin;
  const char *op = opdef->name;
  memset(p, 0, sizeof *p);
  rt_attrs_winograd_weight_transform_t a = rt_ir_attrs_winograd_weight_transform(attrs);
  if (in[0].rank != 4) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: the weight must be 4-d (OIHW), got rank %d", op,
                     (int)in[0].rank);
  }
  RT_RETURN_IF_ERROR(check_float(op, in[0].dtype));
  const int64_t *s = in[0].shape;
  if (s[2] != s[3] && s[2] != RT_DIM_ANY && s[3] != RT_DIM_ANY) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: the kernel must be square, got %lldx%lld", op,
                     (long long)s[2], (long long)s[3]);
  }
  /* A `?` kernel size is taken as 3, the only one supported; the kernel
   * checks the concrete one. */
  const int64_t r = s[2] != RT_DIM_ANY ? s[2] : s[3] != RT_DIM_ANY ? s[3] : 3;
  RT_RETURN_IF_ERROR(matrices(op, a.tile_size, r, &p->mat));
  p->o = s[0];
  p->i = s[1];
  p->rank = 4;
  p->out_shape[0] = p->out_shape[1] = p->mat.alpha;
  p->out_shape[2] = s[0];
  p->out_shape[3] = s[1];
  if (a.pack < 0) return RT_STATUS(INVALID_ARGUMENT, "%s: pack must be >= 0, got %lld", op, (long long)a.pack);
  if (a.pack > 0) {
    if (s[0] != RT_DIM_ANY && s[0] % a.pack != 0) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: pack=%lld does not divide the %lld output channels", op,
                       (long long)a.pack, (long long)s[0]);
    }
    p->pack = a.pack;
    p->rank = 5;
    p->out_shape[2] = s[0] == RT_DIM_ANY ? RT_DIM_ANY : s[0] / a.pack;
    p->out_shape[3] = s[1];
    p->out_shape[4] = a.pack;
  }
  return RT_OK;
}

/* ceil(a / b) of a non-negative size, `?` stays `?`. */
static int64_t ceil_div(int64_t a, int64_t b) { return a == RT_DIM_ANY ? RT_DIM_ANY : (a + b - 1) / b; }

rt_status_t rt_ir_plan_winograd(const rt_ir_op_t *opdef, const rt_ir_attrs_t *attrs, int32_t nin,
                                const rt_plan_input_t *in, rt_plan_winograd_t *p) {
  RT_ASSERT(nin >= 2);
  (void)nin;
  const char *op = opdef->name;
  memset(p, 0, sizeof *p);
  rt_attrs_conv2d_winograd_t a = rt_ir_attrs_conv2d_winograd(attrs);
  if (strcmp(a.data_layout, "NCHW") != 0 || (*a.out_layout && strcmp(a.out_layout, "NCHW") != 0)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: only NCHW data and output are supported, got \"%s\" / \"%s\"",
                     op, a.data_layout, a.out_layout);
  }
  if (in[0].rank != 4 || (in[1].rank != 4 && in[1].rank != 5)) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: data must be 4-d and the transformed weight 4-d (alpha, alpha, I, O) or 5-d "
                     "(alpha, alpha, O/P, I, P), got ranks %d and %d",
                     op, (int)in[0].rank, (int)in[1].rank);
  }
  const bool packed = in[1].rank == 5;
  RT_RETURN_IF_ERROR(check_float(op, in[0].dtype));
  RT_RETURN_IF_ERROR(check_float(op, in[1].dtype));
  int64_t strides[2], dilation[2], ks[2] = {3, 3};
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(op, "strides", a.strides, 2, strides));
  RT_RETURN_IF_ERROR(rt_ir_op_ints_n(op, "dilation", a.dilation, 2, dilation));
  int64_t before[2], after[2];
  RT_RETURN_IF_ERROR(rt_ir_op_padding(op, "padding", a.padding, 2, before, after));
  if (strides[0] != 1 || strides[1] != 1 || dilation[0] != 1 || dilation[1] != 1 || a.groups != 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: strides, dilation and groups must be 1", op);
  }
  for (int32_t i = 0; i < 2; ++i) {
    if (before[i] < 0 || after[i] < 0) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: padding must be >= 0", op);
    }
  }
  if (!a.kernel_size_is_none) RT_RETURN_IF_ERROR(rt_ir_op_ints_n(op, "kernel_size", a.kernel_size, 2, ks));
  if (ks[0] != ks[1]) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: kernel_size must be square, got [%lld, %lld]", op,
                     (long long)ks[0], (long long)ks[1]);
  }
  RT_RETURN_IF_ERROR(matrices(op, a.tile_size, ks[0], &p->mat));
  const int64_t alpha = p->mat.alpha, r = p->mat.r, m = p->mat.m;
  const int64_t *d = in[0].shape, *w = in[1].shape;
  for (int32_t i = 0; i < 2; ++i) {
    if (w[i] != RT_DIM_ANY && w[i] != alpha) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: the transformed weight must be (%lld, %lld, ...) for tile_size %lld, "
                       "got %lld along axis %d",
                       op, (long long)alpha, (long long)alpha, (long long)m, (long long)w[i], (int)i);
    }
  }
  /* Input channels at axis 2 (or 3 packed); output channels w[3] (or
   * panels w[2] of w[4]). */
  const int64_t wi = w[packed ? 3 : 2];
  if (d[1] != RT_DIM_ANY && wi != RT_DIM_ANY && d[1] != wi) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: data has %lld input channels but the transformed weight %lld", op,
                     (long long)d[1], (long long)wi);
  }
  int64_t o = w[3];
  if (packed) {
    if (w[4] != RT_DIM_ANY && w[4] < 1) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: the packed weight's panel width must be >= 1, got %lld", op,
                       (long long)w[4]);
    }
    p->pack = w[4]; /* `?` (RT_DIM_ANY) only in types: kernels see the concrete one */
    o = RT_DIM_ANY;
    if (w[2] != RT_DIM_ANY && w[4] != RT_DIM_ANY && __builtin_mul_overflow(w[2], w[4], &o)) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: the packed weight's output channels overflow", op);
    }
  }
  if (!a.channels_is_none) {
    if (o != RT_DIM_ANY && a.channels != o) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: channels=%lld but the weight gives %lld", op,
                       (long long)a.channels, (long long)o);
    }
    o = a.channels;
  }
  p->n = d[0], p->c = d[1], p->h = d[2], p->w = d[3], p->o = o;
  p->pt = before[0], p->pl = before[1], p->pb = after[0], p->pr = after[1];
  const int64_t sp[2] = {d[2], d[3]};
  int64_t out[2];
  for (int32_t i = 0; i < 2; ++i) {
    if (sp[i] == RT_DIM_ANY) {
      out[i] = RT_DIM_ANY;
      continue;
    }
    int64_t v;
    if (__builtin_add_overflow(sp[i], before[i], &v) || __builtin_add_overflow(v, after[i], &v) ||
        v - r + 1 < 1) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: output size along %c is not positive (input %lld, kernel %lld)", op,
                       "HW"[i], (long long)sp[i], (long long)r);
    }
    out[i] = v - r + 1;
  }
  p->oh = out[0], p->ow = out[1];
  p->th = ceil_div(out[0], m), p->tw = ceil_div(out[1], m);
  p->out_shape[0] = d[0];
  p->out_shape[1] = o;
  p->out_shape[2] = out[0];
  p->out_shape[3] = out[1];
  return RT_OK;
}

rt_status_t rt_ir_rel_winograd_weight_transform(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *w;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &w));
  rt_plan_input_t in;
  rt_ir_plan_input_of_type(w, &in);
  rt_plan_winograd_weight_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_winograd_weight(ctx->op, ctx->attrs, 1, &in, &p));
  return rt_ir_op_make_tensor(ctx, w->tensor.dtype, p.rank, p.out_shape, out_type);
}

rt_status_t rt_ir_rel_conv2d_winograd(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x, *w;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 1, &w));
  rt_plan_input_t in[2];
  rt_ir_plan_input_of_type(x, &in[0]);
  rt_ir_plan_input_of_type(w, &in[1]);
  rt_plan_winograd_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_winograd(ctx->op, ctx->attrs, 2, in, &p));
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(rt_ir_op_dtype_attr(ctx, "out_dtype", x->tensor.dtype, &dt));
  RT_RETURN_IF_ERROR(check_float(ctx->op->name, dt));
  return rt_ir_op_make_tensor(ctx, dt, 4, p.out_shape, out_type);
}
