/* Floating-point operations of a function's heavy ops, counted from their
 * plans (ir/op/plan_nn.h): the figure `--profile` divides by a kernel's
 * time (GFLOP/s), so a kernel that misses its template shows as a number.
 * A multiply-add counts 2. Counted: nn.dense, nn.contrib_dense_pack,
 * nn.matmul, nn.batch_matmul
 * (2 M N K per batch), nn.conv1d/conv2d and the blocked
 * nn.contrib_conv2d_NCHWc / nn.contrib_depthwise_conv2d_NCHWc (2 N O
 * out-size (I/groups) kernel-size, logical channels) and nn.conv2d_transpose (2 N I in-size (O/groups)
 * kernel-size); nn.contrib_conv2d_winograd_without_weight_transform as the
 * direct 3x3 convolution it computes (2 N O OH OW C 9), so GFLOP/s compare
 * with the direct template's. Other ops count 0: their cost is memory, not arithmetic.
 * Types with `?` dims count 0. */
#include "ir/op/plan.h"
#include "runtime/mem.h"

static double matmul_flops(const rt_ir_expr_t *call, const rt_plan_input_t *in) {
  rt_plan_matmul_t p;
  rt_status_t st = rt_ir_plan_matmul(call->call.callee->op.op, call->call.attrs, 2, in, &p);
  if (st) {
    rt_status_free(st);
    return 0;
  }
  if (p.m < 0 || p.n < 0 || p.k < 0 || p.batch < 0) return 0;
  return 2.0 * (double)p.batch * (double)p.m * (double)p.n * (double)p.k;
}

static double conv_flops(const rt_ir_expr_t *call, const rt_plan_input_t *in) {
  rt_plan_conv_t p;
  rt_status_t st = rt_ir_plan_conv(call->call.callee->op.op, call->call.attrs, 2, in, &p);
  if (st) {
    rt_status_free(st);
    return 0;
  }
  if (p.groups < 1) return 0;
  double f = 2.0 * (double)p.batch;
  for (int32_t d = 0; d < p.nsp; ++d) {
    f *= (double)p.kernel_size[d] * (double)(p.transpose ? p.in_size[d] : p.out_size[d]);
  }
  f *= p.transpose ? (double)p.in_channels * (double)(p.out_channels / p.groups)
                   : (double)p.out_channels * (double)(p.in_channels / p.groups);
  return f < 0 ? 0 : f;
}

static double winograd_flops(const rt_ir_expr_t *call, const rt_plan_input_t *in) {
  rt_plan_winograd_t p;
  rt_status_t st = rt_ir_plan_winograd(call->call.callee->op.op, call->call.attrs, 2, in, &p);
  if (st) {
    rt_status_free(st);
    return 0;
  }
  const double r = p.mat.r;
  return 2.0 * (double)p.n * (double)p.o * (double)p.oh * (double)p.ow * (double)p.c * r * r;
}

static rt_status_t add_call(void *user, rt_ir_expr_t *e) {
  double *total = user;
  if (e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP || e->call.nargs < 2) return RT_OK;
  const int32_t id = e->call.callee->op.op->id;
  const bool mm = id == RT_OP_NN_DENSE || id == RT_OP_NN_DENSE_PACK || id == RT_OP_NN_MATMUL ||
                  id == RT_OP_NN_BATCH_MATMUL;
  const bool conv = id == RT_OP_NN_CONV1D || id == RT_OP_NN_CONV2D || id == RT_OP_NN_CONV2D_TRANSPOSE ||
                    id == RT_OP_NN_CONV2D_NCHWC || id == RT_OP_NN_DEPTHWISE_CONV2D_NCHWC;
  const bool wino = id == RT_OP_NN_WINOGRAD_CONV2D;
  if (!mm && !conv && !wino) return RT_OK;
  rt_plan_input_t in[2];
  for (int32_t i = 0; i < 2; ++i) {
    const rt_ir_type_t *t = e->call.args[i]->checked_type;
    t = t ? rt_ir_type_resolve((rt_ir_type_t *)t) : NULL;
    if (!t || t->kind != RT_IR_TYPE_TENSOR) return RT_OK;
    rt_ir_plan_input_of_type(t, &in[i]);
    for (int32_t d = 0; d < in[i].rank; ++d) {
      if (in[i].shape[d] == RT_DIM_ANY) return RT_OK;
    }
  }
  *total += mm ? matmul_flops(e, in) : wino ? winograd_flops(e, in) : conv_flops(e, in);
  return RT_OK;
}

double rt_ir_flops(const rt_ir_expr_t *fn) {
  double total = 0;
  rt_status_t st = rt_ir_post_order(rt_mem_current(), (rt_ir_expr_t *)fn, add_call, &total);
  if (st) {
    rt_status_free(st);
    return 0;
  }
  return total;
}
