/* Lowering of the anchors (ir/op/nn.c, conv.c, pool.c): nn.dense,
 * nn.contrib_dense_pack, nn.matmul, nn.batch_matmul, nn.conv1d/conv2d (NCW/NCHW data, OIW/OIHW
 * kernels, groups, strides, padding, dilation), the blocked
 * nn.contrib_conv2d_NCHWc / nn.contrib_depthwise_conv2d_NCHWc (NCHW{x}c
 * data, OIHW{i}i{o}o kernels: the same dot product through blocked
 * indices), max/avg pool 1-d and 2-d (also on NCHW{x}c),
 * global and adaptive pools, softmax and log_softmax.
 *
 * This is the correct, simple form: each output element is a dot product
 * or window reduction emitted inline as a loop nest (rt_jit_reduce_loops)
 * inside the output loop, with the operands' element expressions in the
 * innermost body (a fused prologue such as a pad or a cast happens at the
 * load) and the result handed to the fused epilogue (bias add, relu) before
 * the store. Float accumulations carry reassoc+contract so O3 may vectorize
 * them and form FMAs; register-blocked, packed micro-kernel templates
 * (jit/templates/) replace these bodies for dense, matmul, batch_matmul,
 * conv2d and softmax when they are float32 with static shapes.
 *
 * Semantics are the reference kernels' (interp/kernels/nn.c, conv.c,
 * pool.c): the accumulator has the output dtype (out_dtype widens int8 to
 * int32, integers wrap), out-of-image conv taps are zero, max pools ignore
 * padding (an all-padding window gives the dtype's lowest value), avg pools
 * divide by the in-image tap count (or, with count_include_pad, the taps
 * inside the padded image), adaptive pools cover [floor(i*H/OH),
 * ceil((i+1)*H/OH)). Softmax recomputes its row's maximum and sum for each
 * element (O(len^2) per row: correct but slow for long rows; the template
 * step computes them once per row).
 *
 * Transposes, strides, dilation, padding, groups, layouts and axes come
 * from the ops' plans (rt_ir_plan_matmul, rt_ir_plan_conv, rt_ir_plan_pool,
 * rt_ir_plan_norm; ir/op/plan_nn.h) computed on the primitive's types. */
#include <stdio.h>
#include <string.h>

#include "ir/op/plan.h"
#include "jit/ops/ops_impl.h"

static rt_jit_node_t *arg_node(rt_jit_lower_t *L, const rt_ir_expr_t *call, int32_t i) {
  return rt_jit_node(L, call->call.args[i]);
}

static rt_status_t matmul_plan(const rt_ir_expr_t *call, rt_plan_matmul_t *p) {
  rt_plan_input_t in[2];
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 2, in));
  return rt_ir_plan_matmul(call->call.callee->op.op, call->call.attrs, 2, in, p);
}

/* ---- dot products ------------------------------------------------------- */

typedef struct dot_t {
  const rt_ir_expr_t *call;
  rt_dtype_t out;            /* accumulator dtype */
  /* Index builders: fill a's / b's index for reduction index k. */
  void (*index)(struct dot_t *d, LLVMValueRef k, LLVMValueRef *ai, LLVMValueRef *bi);
  const LLVMValueRef *idx;
  int32_t out_rank, a_rank, b_rank;
  bool ta, tb;
  LLVMValueRef pa, pb;       /* batch indices for batch_matmul */
  rt_jit_lower_t *L;         /* dense_pack: its index builder's builder */
  LLVMValueRef pw;           /* dense_pack: the panel width */
} dot_t;

static rt_status_t dot_body(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                            const LLVMValueRef *accs, LLVMValueRef *next) {
  dot_t *d = user;
  LLVMValueRef ai[RT_TENSOR_MAX_RANK], bi[RT_TENSOR_MAX_RANK], a, b;
  d->index(d, red[0], ai, bi);
  RT_RETURN_IF_ERROR(rt_jit_elem(L, d->call->call.args[0], ai, &a));
  RT_RETURN_IF_ERROR(rt_jit_elem(L, d->call->call.args[1], bi, &b));
  a = rt_jit_convert(L, a, arg_node(L, d->call, 0)->dtype, d->out);
  b = rt_jit_convert(L, b, arg_node(L, d->call, 1)->dtype, d->out);
  if (rt_jit_is_float(d->out)) {
    next[0] = rt_jit_fast(LLVMBuildFAdd(L->b, accs[0], rt_jit_fast(LLVMBuildFMul(L->b, a, b, "")), ""));
  } else {
    next[0] = LLVMBuildAdd(L->b, accs[0], LLVMBuildMul(L->b, a, b, ""), "");
  }
  return RT_OK;
}

static rt_status_t run_dot(rt_jit_lower_t *L, dot_t *d, LLVMValueRef k, LLVMValueRef *out) {
  LLVMValueRef acc = rt_jit_const_i(L, d->out, 0);
  RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, 1, &k, 1, &acc, dot_body, d));
  *out = acc;
  return RT_OK;
}

static void dense_index(dot_t *d, LLVMValueRef k, LLVMValueRef *ai, LLVMValueRef *bi) {
  for (int32_t j = 0; j < d->a_rank - 1; ++j) ai[j] = d->idx[j];
  ai[d->a_rank - 1] = k;
  bi[0] = d->idx[d->out_rank - 1];
  bi[1] = k;
}

RT_JIT_ELEM_FN(rt_jit_elem_dense) {
  rt_jit_node_t *x = arg_node(L, call, 0), *w = arg_node(L, call, 1), *self = rt_jit_node(L, call);
  if (x->rank < 1 || w->rank != 2) return RT_JIT_UNIMPLEMENTED(call, "%s", "needs data (..., K), weight (N, K)");
  dot_t d = {.call = call, .out = self->dtype, .index = dense_index, .idx = idx,
             .out_rank = self->rank, .a_rank = x->rank, .b_rank = 2};
  return run_dot(L, &d, w->dims[1], out_value);
}

/* nn.contrib_dense_pack: W[n, k] at w[n / P, k, n % P] (P = pw). */
static void dense_pack_index(dot_t *d, LLVMValueRef k, LLVMValueRef *ai, LLVMValueRef *bi) {
  for (int32_t j = 0; j < d->a_rank - 1; ++j) ai[j] = d->idx[j];
  ai[d->a_rank - 1] = k;
  LLVMValueRef n = d->idx[d->out_rank - 1];
  bi[0] = LLVMBuildUDiv(d->L->b, n, d->pw, "");
  bi[1] = k;
  bi[2] = LLVMBuildURem(d->L->b, n, d->pw, "");
}

RT_JIT_ELEM_FN(rt_jit_elem_dense_pack) {
  rt_jit_node_t *x = arg_node(L, call, 0), *w = arg_node(L, call, 1), *self = rt_jit_node(L, call);
  if (x->rank < 1 || w->rank != 3) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "needs data (..., K), packed weight (N/P, K, P)");
  }
  dot_t d = {.call = call, .out = self->dtype, .index = dense_pack_index, .idx = idx,
             .out_rank = self->rank, .a_rank = x->rank, .b_rank = 3, .L = L, .pw = w->dims[2]};
  return run_dot(L, &d, w->dims[1], out_value);
}

static void matmul_index(dot_t *d, LLVMValueRef k, LLVMValueRef *ai, LLVMValueRef *bi) {
  const int32_t r = d->out_rank;
  for (int32_t j = 0; j < d->a_rank - 2; ++j) ai[j] = d->idx[j];
  LLVMValueRef i = d->idx[r - 2], jj = d->idx[r - 1];
  ai[d->a_rank - 2] = d->ta ? k : i;
  ai[d->a_rank - 1] = d->ta ? i : k;
  bi[0] = d->tb ? jj : k;
  bi[1] = d->tb ? k : jj;
}

RT_JIT_ELEM_FN(rt_jit_elem_matmul) {
  rt_jit_node_t *a = arg_node(L, call, 0), *b = arg_node(L, call, 1), *self = rt_jit_node(L, call);
  if (a->rank < 2 || b->rank != 2) return RT_JIT_UNIMPLEMENTED(call, "%s", "needs a of rank >= 2, b of rank 2");
  rt_plan_matmul_t plan;
  RT_RETURN_IF_ERROR(matmul_plan(call, &plan));
  dot_t d = {.call = call, .out = self->dtype, .index = matmul_index, .idx = idx,
             .out_rank = self->rank, .a_rank = a->rank, .b_rank = 2,
             .ta = plan.transpose_a, .tb = plan.transpose_b};
  LLVMValueRef k = d.ta ? a->dims[a->rank - 2] : a->dims[a->rank - 1];
  return run_dot(L, &d, k, out_value);
}

static void bmm_index(dot_t *d, LLVMValueRef k, LLVMValueRef *ai, LLVMValueRef *bi) {
  LLVMValueRef i = d->idx[1], j = d->idx[2];
  ai[0] = d->pa;
  ai[1] = d->ta ? k : i;
  ai[2] = d->ta ? i : k;
  bi[0] = d->pb;
  bi[1] = d->tb ? j : k;
  bi[2] = d->tb ? k : j;
}

RT_JIT_ELEM_FN(rt_jit_elem_batch_matmul) {
  rt_jit_node_t *a = arg_node(L, call, 0), *b = arg_node(L, call, 1), *self = rt_jit_node(L, call);
  if (a->rank != 3 || b->rank != 3) return RT_JIT_UNIMPLEMENTED(call, "%s", "needs rank-3 inputs");
  rt_plan_matmul_t plan;
  RT_RETURN_IF_ERROR(matmul_plan(call, &plan));
  dot_t d = {.call = call, .out = self->dtype, .index = bmm_index, .idx = idx,
             .out_rank = 3, .a_rank = 3, .b_rank = 3,
             .ta = plan.transpose_a, .tb = plan.transpose_b};
  LLVMValueRef zero = rt_jit_i64(L, 0);
  d.pa = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, a->dims[0], rt_jit_i64(L, 1), ""), zero, idx[0], "");
  d.pb = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, b->dims[0], rt_jit_i64(L, 1), ""), zero, idx[0], "");
  LLVMValueRef k = d.ta ? a->dims[1] : a->dims[2];
  return run_dot(L, &d, k, out_value);
}

/* ---- layouts ------------------------------------------------------------ */

/* Builds the index in a layout from the canonical-order index. */
static void permute_index(int32_t n, const int32_t *pos, const LLVMValueRef *canon,
                          LLVMValueRef *out) {
  for (int32_t k = 0; k < n; ++k) out[pos[k]] = canon[k];
}

/* ---- convolution -------------------------------------------------------- */

typedef struct conv_t {
  const rt_ir_expr_t *call;
  int32_t nsp;
  int64_t stride[2], dil[2], pad[2];
  LLVMValueRef cin_per_group, g;   /* i64 */
  const LLVMValueRef *idx;         /* n, o, spatial... (canonical order) */
  LLVMValueRef in_dims[2];
  rt_dtype_t out;
  int32_t dpos[4], kpos[4];        /* data / kernel layout positions */
  bool transpose;
  LLVMValueRef out_per_group;      /* transpose: O/G */
  int64_t xb, ib, ob;              /* NCHWc ops: data, kernel in/out blocks; nn.conv2d's
                                    * OIHW{ob}o: ob only; else 0 */
} conv_t;

static rt_status_t conv_body(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                             const LLVMValueRef *accs, LLVMValueRef *next) {
  conv_t *c = user;
  LLVMBuilderRef B = L->b;
  /* red: c, then kh (2-d), kw. */
  LLVMValueRef ci = LLVMBuildAdd(B, LLVMBuildMul(B, c->g, c->cin_per_group, ""), red[0], "");
  LLVMValueRef xc[4], wc[4], xi[5], wi[6];
  xc[0] = c->idx[0];
  xc[1] = ci;
  wc[0] = c->idx[1];
  wc[1] = red[0];
  if (c->transpose) {
    /* Kernel IOHW (canonical O, I = O/G, C): w[ci, o % (O/G), kh, kw]. */
    wc[0] = LLVMBuildURem(B, c->idx[1], c->out_per_group, "");
    wc[1] = ci;
  }
  LLVMValueRef inside = LLVMConstInt(L->i1, 1, 0);
  for (int32_t s = 0; s < c->nsp; ++s) {
    LLVMValueRef pos;
    if (c->transpose) {
      /* y + pad - k * dil = iy * stride with 0 <= iy < H. */
      LLVMValueRef t = LLVMBuildSub(
          B, LLVMBuildAdd(B, c->idx[2 + s], rt_jit_i64(L, c->pad[s]), ""),
          LLVMBuildMul(B, red[1 + s], rt_jit_i64(L, c->dil[s]), ""), "");
      LLVMValueRef st = rt_jit_i64(L, c->stride[s]);
      LLVMValueRef nonneg = LLVMBuildICmp(B, LLVMIntSGE, t, rt_jit_i64(L, 0), "");
      LLVMValueRef ts = LLVMBuildSelect(B, nonneg, t, rt_jit_i64(L, 0), "");
      LLVMValueRef exact = LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildURem(B, ts, st, ""), rt_jit_i64(L, 0), "");
      pos = LLVMBuildUDiv(B, ts, st, "");
      inside = LLVMBuildAnd(B, inside, LLVMBuildAnd(B, nonneg, exact, ""), "");
    } else {
      pos = LLVMBuildAdd(
          B, LLVMBuildSub(B, LLVMBuildMul(B, c->idx[2 + s], rt_jit_i64(L, c->stride[s]), ""),
                          rt_jit_i64(L, c->pad[s]), ""),
          LLVMBuildMul(B, red[1 + s], rt_jit_i64(L, c->dil[s]), ""), "");
    }
    LLVMValueRef ok = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, pos, rt_jit_i64(L, 0), ""),
                                   LLVMBuildICmp(B, LLVMIntSLT, pos, c->in_dims[s], ""), "");
    inside = LLVMBuildAnd(B, inside, ok, "");
    xc[2 + s] = LLVMBuildSelect(B, inside, pos, rt_jit_i64(L, 0), "");
    wc[2 + s] = red[1 + s];
  }
  if (c->xb) {
    /* Blocked: data [n, c / x, h, w, c % x], weight [o / ob, i / ib, kh,
     * kw, i % ib, o % ob]. */
    LLVMValueRef xb = rt_jit_i64(L, c->xb), ib = rt_jit_i64(L, c->ib), ob = rt_jit_i64(L, c->ob);
    xi[0] = xc[0];
    xi[1] = LLVMBuildUDiv(B, xc[1], xb, "");
    xi[2] = xc[2];
    xi[3] = xc[3];
    xi[4] = LLVMBuildURem(B, xc[1], xb, "");
    wi[0] = LLVMBuildUDiv(B, wc[0], ob, "");
    wi[1] = LLVMBuildUDiv(B, wc[1], ib, "");
    wi[2] = wc[2];
    wi[3] = wc[3];
    wi[4] = LLVMBuildURem(B, wc[1], ib, "");
    wi[5] = LLVMBuildURem(B, wc[0], ob, "");
  } else {
    permute_index(2 + c->nsp, c->dpos, xc, xi);
    permute_index(2 + c->nsp, c->kpos, wc, wi);
    if (c->ob) {
      /* nn.conv2d's OIHW{ob}o weight: [o / ob, i, kh, kw, o % ob]. */
      wi[0] = LLVMBuildUDiv(B, wc[0], rt_jit_i64(L, c->ob), "");
      wi[4] = LLVMBuildURem(B, wc[0], rt_jit_i64(L, c->ob), "");
    }
  }
  LLVMValueRef x, w;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, c->call->call.args[0], xi, &x));
  RT_RETURN_IF_ERROR(rt_jit_elem(L, c->call->call.args[1], wi, &w));
  x = rt_jit_convert(L, x, arg_node(L, c->call, 0)->dtype, c->out);
  w = rt_jit_convert(L, w, arg_node(L, c->call, 1)->dtype, c->out);
  x = LLVMBuildSelect(B, inside, x, rt_jit_const_i(L, c->out, 0), "");
  if (rt_jit_is_float(c->out)) {
    next[0] = rt_jit_fast(LLVMBuildFAdd(B, accs[0], rt_jit_fast(LLVMBuildFMul(B, x, w, "")), ""));
  } else {
    next[0] = LLVMBuildAdd(B, accs[0], LLVMBuildMul(B, x, w, ""), "");
  }
  return RT_OK;
}

/* The blocked ops' loop order: kh, kw outside, the input channel
 * innermost, where both blocked operands are closest to contiguous (the
 * data's lanes, the weight's i rows); conv_body takes (cl, kh, kw).
 * Measured with AlterOpLayout, graph executor, one thread, no kernel
 * cache (release build on a shared 2-core host whose run times jump by
 * exactly 2x between runs, so pairs in the same state are compared):
 * resnet18 4.21 s a run with its KxK convs in (cl, kh, kw) order, 1.13 s
 * in this one. 1x1 convs measured the same either way (mobilenet_v2 136
 * ms) and keep the plain order, as does depthwise (one channel per
 * group). */
static rt_status_t conv_body_blocked(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                                     const LLVMValueRef *accs, LLVMValueRef *next) {
  const LLVMValueRef order[3] = {red[2], red[0], red[1]};
  return conv_body(L, user, order, accs, next);
}

RT_JIT_ELEM_FN(rt_jit_elem_conv) {
  rt_plan_input_t in[2];
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 2, in));
  rt_plan_conv_t plan;
  RT_RETURN_IF_ERROR(rt_ir_plan_conv(call->call.callee->op.op, call->call.attrs, 2, in, &plan));
  const int32_t nsp = plan.nsp;
  conv_t c = {.call = call, .nsp = nsp, .transpose = plan.transpose};
  if (!plan.out_is_data_layout) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "layouts must be permutations of NCHW/OIHW (NCW/OIW), out_layout the data layout");
  }
  memcpy(c.dpos, plan.data_pos, sizeof plan.data_pos);
  memcpy(c.kpos, plan.kernel_pos, sizeof plan.kernel_pos);
  rt_jit_node_t *x = arg_node(L, call, 0), *w = arg_node(L, call, 1), *self = rt_jit_node(L, call);
  /* The output index in canonical order (n, o, spatial...); blocked:
   * o = idx[1] * z + idx[4]. */
  LLVMValueRef cidx[4];
  for (int32_t k = 0; k < 2 + nsp; ++k) cidx[k] = idx[c.dpos[k]];
  c.xb = plan.data_block;
  c.ib = plan.kernel_in_block;
  c.ob = plan.kernel_out_block;
  if (c.xb) {
    cidx[1] = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, idx[1], rt_jit_i64(L, plan.out_block), ""), idx[4], "");
  }
  c.idx = cidx;
  c.out = self->dtype;
  for (int32_t s = 0; s < nsp; ++s) {
    c.stride[s] = plan.strides[s];
    c.dil[s] = plan.dilation[s];
    c.pad[s] = plan.pad_before[s];
  }
  const bool transpose = plan.transpose;
  const int64_t groups = plan.groups;
  /* O/G output channels per group: g = o / (O/G). */
  LLVMValueRef out_c = self->dims[c.dpos[1]];
  if (c.xb) out_c = LLVMBuildMul(L->b, out_c, rt_jit_i64(L, plan.out_block), "");
  LLVMValueRef opg = LLVMBuildUDiv(L->b, out_c, rt_jit_i64(L, groups), "");
  opg = rt_jit_max(L, opg, rt_jit_i64(L, 1));
  c.g = LLVMBuildUDiv(L->b, cidx[1], opg, "");
  c.out_per_group = opg;
  /* Input channels per group: conv I; transpose C/G. */
  c.cin_per_group = transpose ? LLVMBuildUDiv(L->b, x->dims[c.dpos[1]], rt_jit_i64(L, groups), "")
                              : c.xb ? LLVMBuildMul(L->b, w->dims[1], rt_jit_i64(L, c.ib), "")
                                     : w->dims[c.kpos[1]];
  for (int32_t s = 0; s < nsp; ++s) c.in_dims[s] = x->dims[c.dpos[2 + s]];
  LLVMValueRef ext[3] = {c.cin_per_group, w->dims[c.kpos[2]], nsp == 2 ? w->dims[c.kpos[3]] : NULL};
  LLVMValueRef acc = rt_jit_const_i(L, self->dtype, 0);
  if (c.xb && plan.groups < plan.in_channels && plan.kernel_size[0] * plan.kernel_size[1] > 1) {
    LLVMValueRef bext[3] = {ext[1], ext[2], ext[0]};
    RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, 3, bext, 1, &acc, conv_body_blocked, &c));
  } else {
    RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, 1 + nsp, ext, 1, &acc, conv_body, &c));
  }
  *out_value = acc;
  return RT_OK;
}

/* ---- pools -------------------------------------------------------------- */

typedef struct pool_t {
  const rt_ir_expr_t *call;
  int32_t nsp;
  bool is_max, include_pad;
  int64_t stride[2], dil[2], pad_lo[2], pad_hi[2];
  LLVMValueRef start[2];           /* adaptive: window start; else NULL */
  const LLVMValueRef *idx;         /* canonical order: n, c, spatial... */
  LLVMValueRef in_dims[2];
  rt_dtype_t in, acc;              /* input dtype; accumulation dtype */
  int32_t pos[4];                  /* layout positions of N, C, spatial */
  LLVMValueRef cidx[4];
  LLVMValueRef lane;               /* NCHW{x}c: the output's lane index; else NULL */
} pool_t;

static rt_status_t pool_body(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                             const LLVMValueRef *accs, LLVMValueRef *next) {
  pool_t *p = user;
  LLVMBuilderRef B = L->b;
  LLVMValueRef xc[4] = {p->idx[0], p->idx[1], NULL, NULL}, xi[5];
  LLVMValueRef inside = LLVMConstInt(L->i1, 1, 0), padded = LLVMConstInt(L->i1, 1, 0);
  for (int32_t s = 0; s < p->nsp; ++s) {
    LLVMValueRef pos;
    if (p->start[s]) {
      pos = LLVMBuildAdd(B, p->start[s], red[s], "");
    } else {
      pos = LLVMBuildAdd(
          B, LLVMBuildSub(B, LLVMBuildMul(B, p->idx[2 + s], rt_jit_i64(L, p->stride[s]), ""),
                          rt_jit_i64(L, p->pad_lo[s]), ""),
          LLVMBuildMul(B, red[s], rt_jit_i64(L, p->dil[s]), ""), "");
    }
    LLVMValueRef ok = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntSGE, pos, rt_jit_i64(L, 0), ""),
                                   LLVMBuildICmp(B, LLVMIntSLT, pos, p->in_dims[s], ""), "");
    LLVMValueRef in_pad = LLVMBuildAnd(
        B, LLVMBuildICmp(B, LLVMIntSGE, pos, rt_jit_i64(L, -p->pad_lo[s]), ""),
        LLVMBuildICmp(B, LLVMIntSLT, pos, LLVMBuildAdd(B, p->in_dims[s], rt_jit_i64(L, p->pad_hi[s]), ""), ""), "");
    inside = LLVMBuildAnd(B, inside, ok, "");
    padded = LLVMBuildAnd(B, padded, in_pad, "");
    xc[2 + s] = LLVMBuildSelect(B, ok, pos, rt_jit_i64(L, 0), "");
  }
  permute_index(2 + p->nsp, p->pos, xc, xi);
  xi[4] = p->lane; /* read only when blocked (rank 5) */
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, p->call->call.args[0], xi, &v));
  if (p->is_max) {
    LLVMValueRef m;
    if (rt_jit_is_float(p->in)) {
      m = rt_jit_intrinsic(L, "llvm.maximum", accs[0], v, NULL);
    } else {
      LLVMIntPredicate pr = rt_jit_is_signed(p->in) ? LLVMIntSGT : LLVMIntUGT;
      m = LLVMBuildSelect(B, LLVMBuildICmp(B, pr, v, accs[0], ""), v, accs[0], "");
    }
    next[0] = LLVMBuildSelect(B, inside, m, accs[0], "");
    return RT_OK;
  }
  v = rt_jit_convert(L, v, p->in, p->acc);
  v = LLVMBuildSelect(B, inside, v, rt_jit_const_f(L, p->acc, 0), "");
  next[0] = rt_jit_fast(LLVMBuildFAdd(B, accs[0], v, ""));
  LLVMValueRef counted = p->include_pad ? padded : inside;
  next[1] = LLVMBuildAdd(B, accs[1], LLVMBuildZExt(B, counted, L->i64, ""), "");
  return RT_OK;
}

static rt_status_t pool_finish(rt_jit_lower_t *L, pool_t *p, LLVMValueRef *ext, rt_dtype_t out,
                               LLVMValueRef *out_value) {
  LLVMValueRef accs[2];
  accs[0] = p->is_max ? rt_jit_const_lowest(L, p->in) : rt_jit_const_f(L, p->acc, 0);
  accs[1] = rt_jit_i64(L, 0);
  RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, p->nsp, ext, p->is_max ? 1 : 2, accs, pool_body, p));
  if (p->is_max) {
    *out_value = accs[0];
    return RT_OK;
  }
  LLVMValueRef zero = LLVMBuildICmp(L->b, LLVMIntEQ, accs[1], rt_jit_i64(L, 0), "");
  LLVMValueRef cnt = LLVMBuildSIToFP(L->b, accs[1], rt_jit_type(L, p->acc), "");
  LLVMValueRef avg = LLVMBuildFDiv(L->b, accs[0], cnt, "");
  avg = LLVMBuildSelect(L->b, zero, rt_jit_const_f(L, p->acc, 0), avg, "");
  *out_value = rt_jit_convert(L, avg, p->acc, out);
  return RT_OK;
}

/* The pool's plan; UNIMPLEMENTED unless the output is in the input's
 * layout. */
static rt_status_t pool_plan(const rt_ir_expr_t *call, rt_plan_pool_t *plan) {
  rt_plan_input_t in;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 1, &in));
  RT_RETURN_IF_ERROR(rt_ir_plan_pool(call->call.callee->op.op, call->call.attrs, 1, &in, plan));
  if (!plan->out_is_layout) {
    return RT_JIT_UNIMPLEMENTED(call, "the layout must be a permutation of %s",
                                plan->kind == RT_PLAN_POOL_GLOBAL ? "NCHW" : "NCHW (NCW)");
  }
  return RT_OK;
}

static void pool_init(rt_jit_lower_t *L, pool_t *p, const rt_ir_expr_t *call,
                      const rt_plan_pool_t *plan, const LLVMValueRef *idx) {
  rt_jit_node_t *x = arg_node(L, call, 0);
  const int32_t nsp = plan->nsp;
  const int32_t *pos = plan->pos;
  memset(p, 0, sizeof *p);
  p->call = call;
  p->nsp = nsp;
  for (int32_t k = 0; k < 2 + nsp; ++k) {
    p->pos[k] = pos[k];
    p->cidx[k] = idx[pos[k]];
  }
  p->idx = p->cidx;
  p->lane = plan->block ? idx[4] : NULL;
  p->in = x->dtype;
  p->acc = rt_jit_is_float(x->dtype) ? x->dtype : (rt_dtype_t){kDLFloat, 64, 1};
  p->is_max = plan->is_max;
  for (int32_t s = 0; s < nsp; ++s) p->in_dims[s] = x->dims[pos[2 + s]];
}

RT_JIT_ELEM_FN(rt_jit_elem_pool) {
  rt_plan_pool_t plan;
  RT_RETURN_IF_ERROR(pool_plan(call, &plan));
  pool_t p;
  pool_init(L, &p, call, &plan, idx);
  for (int32_t s = 0; s < plan.nsp; ++s) {
    p.stride[s] = plan.strides[s];
    p.dil[s] = plan.dilation[s];
    p.pad_lo[s] = plan.pad_before[s];
    p.pad_hi[s] = plan.pad_after[s];
  }
  if (!p.is_max) p.include_pad = plan.count_include_pad;
  LLVMValueRef ext[2];
  for (int32_t s = 0; s < plan.nsp; ++s) ext[s] = rt_jit_i64(L, plan.pool_size[s]);
  return pool_finish(L, &p, ext, rt_jit_node(L, call)->dtype, out_value);
}

RT_JIT_ELEM_FN(rt_jit_elem_adaptive_pool) {
  rt_plan_pool_t plan;
  RT_RETURN_IF_ERROR(pool_plan(call, &plan));
  rt_jit_node_t *self = rt_jit_node(L, call);
  pool_t p;
  pool_init(L, &p, call, &plan, idx);
  LLVMValueRef ext[2];
  for (int32_t s = 0; s < plan.nsp; ++s) {
    LLVMValueRef in = p.in_dims[s], on = self->dims[plan.pos[2 + s]], i = p.idx[2 + s];
    LLVMValueRef safe = rt_jit_max(L, on, rt_jit_i64(L, 1));
    LLVMValueRef start = LLVMBuildUDiv(L->b, LLVMBuildMul(L->b, i, in, ""), safe, "");
    LLVMValueRef end = LLVMBuildUDiv(
        L->b, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, LLVMBuildAdd(L->b, i, rt_jit_i64(L, 1), ""), in, ""),
                           LLVMBuildSub(L->b, safe, rt_jit_i64(L, 1), ""), ""), safe, "");
    p.start[s] = start;
    ext[s] = LLVMBuildSub(L->b, end, start, "");
  }
  return pool_finish(L, &p, ext, self->dtype, out_value);
}

RT_JIT_ELEM_FN(rt_jit_elem_global_pool) {
  rt_plan_pool_t plan;
  RT_RETURN_IF_ERROR(pool_plan(call, &plan));
  pool_t p;
  pool_init(L, &p, call, &plan, idx);
  p.start[0] = p.start[1] = rt_jit_i64(L, 0);
  LLVMValueRef ext[2] = {p.in_dims[0], p.in_dims[1]};
  return pool_finish(L, &p, ext, rt_jit_node(L, call)->dtype, out_value);
}

/* ---- softmax ------------------------------------------------------------ */

typedef struct smax_t {
  const rt_ir_expr_t *call;
  const LLVMValueRef *idx;
  int32_t axis, rank;
  LLVMValueRef max;     /* pass 2 */
} smax_t;

static rt_status_t smax_load(rt_jit_lower_t *L, smax_t *s, LLVMValueRef j, LLVMValueRef *out) {
  LLVMValueRef in[RT_TENSOR_MAX_RANK];
  memcpy(in, s->idx, (size_t)s->rank * sizeof *in);
  in[s->axis] = j;
  return rt_jit_elem(L, s->call->call.args[0], in, out);
}

static rt_status_t smax_max(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                            const LLVMValueRef *accs, LLVMValueRef *next) {
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(smax_load(L, user, red[0], &v));
  next[0] = rt_jit_intrinsic(L, "llvm.maximum", accs[0], v, NULL);
  return RT_OK;
}

static rt_status_t smax_sum(rt_jit_lower_t *L, void *user, const LLVMValueRef *red,
                            const LLVMValueRef *accs, LLVMValueRef *next) {
  smax_t *s = user;
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(smax_load(L, s, red[0], &v));
  LLVMValueRef e = rt_jit_exp(L, LLVMBuildFSub(L->b, v, s->max, ""));
  next[0] = rt_jit_fast(LLVMBuildFAdd(L->b, accs[0], e, ""));
  return RT_OK;
}

RT_JIT_ELEM_FN(rt_jit_elem_softmax) {
  rt_jit_node_t *x = arg_node(L, call, 0);
  if (!rt_jit_is_float(x->dtype)) return RT_JIT_UNIMPLEMENTED(call, "%s", "needs a float input");
  rt_plan_input_t in;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 1, &in));
  rt_plan_norm_t plan;
  RT_RETURN_IF_ERROR(rt_ir_plan_norm(call->call.callee->op.op, call->call.attrs, 1, &in, &plan));
  smax_t s = {.call = call, .idx = idx, .rank = x->rank, .axis = plan.axis};
  LLVMValueRef len = x->dims[s.axis];
  LLVMValueRef m = rt_jit_const_lowest(L, x->dtype);
  RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, 1, &len, 1, &m, smax_max, &s));
  s.max = m;
  LLVMValueRef sum = rt_jit_const_f(L, x->dtype, 0);
  RT_RETURN_IF_ERROR(rt_jit_reduce_loops(L, 1, &len, 1, &sum, smax_sum, &s));
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, call->call.args[0], idx, &v));
  LLVMValueRef d = LLVMBuildFSub(L->b, v, m, "");
  if (call->call.callee->op.op->id == RT_OP_NN_LOG_SOFTMAX) {
    *out_value = LLVMBuildFSub(L->b, d, rt_jit_intrinsic(L, "llvm.log", sum, NULL, NULL), "");
  } else {
    *out_value = LLVMBuildFDiv(L->b, rt_jit_exp(L, d), sum, "");
  }
  return RT_OK;
}

/* ---- shapes of the dot-product anchors (`?` batch and M dims) ---------- */

/* dims[k] of the call: the checked type's constant, or `computed` for a
 * `?` dim. */
static LLVMValueRef dim_or(rt_jit_lower_t *L, const int64_t *shape, int32_t k,
                           LLVMValueRef computed) {
  return shape[k] == RT_DIM_ANY ? computed : rt_jit_i64(L, shape[k]);
}

RT_JIT_SHAPE_FN(rt_jit_shape_dense) {
  rt_jit_node_t *x = arg_node(L, call, 0), *w = arg_node(L, call, 1);
  rt_dtype_t dt;
  int32_t rank;
  const int64_t *shape;
  RT_RETURN_IF_ERROR(rt_jit_tensor_type(call, &dt, &rank, &shape));
  if (x->rank < 1 || w->rank != 2 || rank != x->rank) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "needs data (..., K), weight (N, K)");
  }
  for (int32_t k = 0; k < rank - 1; ++k) out_dims[k] = dim_or(L, shape, k, x->dims[k]);
  out_dims[rank - 1] = dim_or(L, shape, rank - 1, w->dims[0]);
  rt_jit_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, x->dims[x->rank - 1], w->dims[1], ""),
               "nn.dense: data and weight disagree on K");
  return RT_OK;
}

RT_JIT_SHAPE_FN(rt_jit_shape_dense_pack) {
  rt_jit_node_t *x = arg_node(L, call, 0), *w = arg_node(L, call, 1);
  rt_dtype_t dt;
  int32_t rank;
  const int64_t *shape;
  RT_RETURN_IF_ERROR(rt_jit_tensor_type(call, &dt, &rank, &shape));
  if (x->rank < 1 || w->rank != 3 || rank != x->rank) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "needs data (..., K), packed weight (N/P, K, P)");
  }
  for (int32_t k = 0; k < rank - 1; ++k) out_dims[k] = dim_or(L, shape, k, x->dims[k]);
  LLVMValueRef cols = LLVMBuildMul(L->b, w->dims[0], w->dims[2], "");
  out_dims[rank - 1] = dim_or(L, shape, rank - 1, cols);
  rt_jit_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, x->dims[x->rank - 1], w->dims[1], ""),
               "nn.contrib_dense_pack: data and weight disagree on K");
  rt_jit_check(L, LLVMBuildICmp(L->b, LLVMIntSLE, out_dims[rank - 1], cols, ""),
               "nn.contrib_dense_pack: units exceed the packed weight's columns");
  return RT_OK;
}

RT_JIT_SHAPE_FN(rt_jit_shape_matmul) {
  rt_jit_node_t *a = arg_node(L, call, 0), *b = arg_node(L, call, 1);
  rt_dtype_t dt;
  int32_t rank;
  const int64_t *shape;
  RT_RETURN_IF_ERROR(rt_jit_tensor_type(call, &dt, &rank, &shape));
  if (a->rank < 2 || b->rank != 2 || rank != a->rank) {
    return RT_JIT_UNIMPLEMENTED(call, "%s", "needs a of rank >= 2, b of rank 2");
  }
  rt_plan_matmul_t plan;
  RT_RETURN_IF_ERROR(matmul_plan(call, &plan));
  const bool ta = plan.transpose_a, tb = plan.transpose_b;
  for (int32_t k = 0; k < rank - 2; ++k) out_dims[k] = dim_or(L, shape, k, a->dims[k]);
  out_dims[rank - 2] = dim_or(L, shape, rank - 2, a->dims[ta ? a->rank - 1 : a->rank - 2]);
  out_dims[rank - 1] = dim_or(L, shape, rank - 1, b->dims[tb ? 0 : 1]);
  LLVMValueRef ka = a->dims[ta ? a->rank - 2 : a->rank - 1], kb = b->dims[tb ? 1 : 0];
  rt_jit_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, ka, kb, ""), "nn.matmul: a and b disagree on K");
  return RT_OK;
}

RT_JIT_SHAPE_FN(rt_jit_shape_batch_matmul) {
  rt_jit_node_t *a = arg_node(L, call, 0), *b = arg_node(L, call, 1);
  rt_dtype_t dt;
  int32_t rank;
  const int64_t *shape;
  RT_RETURN_IF_ERROR(rt_jit_tensor_type(call, &dt, &rank, &shape));
  if (a->rank != 3 || b->rank != 3 || rank != 3) return RT_JIT_UNIMPLEMENTED(call, "%s", "needs rank-3 inputs");
  rt_plan_matmul_t plan;
  RT_RETURN_IF_ERROR(matmul_plan(call, &plan));
  const bool ta = plan.transpose_a, tb = plan.transpose_b;
  LLVMValueRef a1 = LLVMBuildICmp(L->b, LLVMIntEQ, a->dims[0], rt_jit_i64(L, 1), "");
  LLVMValueRef batch = LLVMBuildSelect(L->b, a1, b->dims[0], a->dims[0], "");
  LLVMValueRef bok = LLVMBuildOr(
      L->b, LLVMBuildICmp(L->b, LLVMIntEQ, a->dims[0], b->dims[0], ""),
      LLVMBuildOr(L->b, a1, LLVMBuildICmp(L->b, LLVMIntEQ, b->dims[0], rt_jit_i64(L, 1), ""), ""), "");
  rt_jit_check(L, bok, "nn.batch_matmul: batch dims do not broadcast");
  out_dims[0] = dim_or(L, shape, 0, batch);
  out_dims[1] = dim_or(L, shape, 1, a->dims[ta ? 2 : 1]);
  out_dims[2] = dim_or(L, shape, 2, b->dims[tb ? 1 : 2]);
  LLVMValueRef ka = a->dims[ta ? 1 : 2], kb = b->dims[tb ? 2 : 1];
  rt_jit_check(L, LLVMBuildICmp(L->b, LLVMIntEQ, ka, kb, ""), "nn.batch_matmul: a and b disagree on K");
  return RT_OK;
}

/* ---- hardmax ------------------------------------------------------------- */

/* Element idx is 1 when idx[axis] is the first maximum of its row along
 * axis (a NaN counts as the maximum: the first NaN wins, as the reference),
 * found by a loop over the row in the element itself: O(len) per element,
 * for an op that is rare and small in models. */
RT_JIT_ELEM_FN(rt_jit_elem_hardmax) {
  const rt_ir_expr_t *a = call->call.args[0];
  rt_jit_node_t *x = rt_jit_node(L, a);
  if (!rt_jit_is_float(x->dtype)) return RT_JIT_UNIMPLEMENTED(call, "%s", "a non-float input");
  rt_plan_input_t in;
  RT_RETURN_IF_ERROR(rt_jit_plan_inputs(call, 1, &in));
  rt_plan_norm_t plan;
  RT_RETURN_IF_ERROR(rt_ir_plan_norm(call->call.callee->op.op, call->call.attrs, 1, &in, &plan));
  const int32_t axis = plan.axis;
  LLVMValueRef xi[RT_TENSOR_MAX_RANK];
  for (int32_t k = 0; k < x->rank; ++k) xi[k] = idx[k];
  xi[axis] = rt_jit_i64(L, 0);
  LLVMValueRef v0;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, a, xi, &v0));
  LLVMValueRef init[2] = {v0, rt_jit_i64(L, 0)};
  rt_jit_loop_t loop;
  rt_jit_loop_begin(L, rt_jit_i64(L, 1), x->dims[axis], 2, init, &loop);
  xi[axis] = loop.iv;
  LLVMValueRef v;
  RT_RETURN_IF_ERROR(rt_jit_elem(L, a, xi, &v));
  LLVMValueRef bv = loop.carry[0], bj = loop.carry[1];
  LLVMValueRef v_nan = LLVMBuildFCmp(L->b, LLVMRealUNO, v, v, "");
  LLVMValueRef b_num = LLVMBuildFCmp(L->b, LLVMRealORD, bv, bv, "");
  LLVMValueRef take = LLVMBuildOr(L->b, LLVMBuildAnd(L->b, v_nan, b_num, ""),
                                  LLVMBuildFCmp(L->b, LLVMRealOGT, v, bv, ""), "");
  LLVMValueRef next[2] = {LLVMBuildSelect(L->b, take, v, bv, ""),
                          LLVMBuildSelect(L->b, take, loop.iv, bj, "")};
  rt_jit_loop_end(L, &loop, next);
  LLVMValueRef hit = LLVMBuildICmp(L->b, LLVMIntEQ, loop.carry[1], idx[axis], "");
  const rt_dtype_t od = rt_jit_node(L, call)->dtype;
  *out_value = LLVMBuildSelect(L->b, hit, rt_jit_const_f(L, od, 1), rt_jit_const_f(L, od, 0), "");
  return RT_OK;
}
