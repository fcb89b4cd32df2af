/* ONNX converters of the quantized operators — QuantizeLinear,
 * DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, ConvInteger,
 * QLinearMatMul, QLinearConv — each written as existing Relay ops, with
 * ONNX's integer semantics exactly (opsets 10 to 18; int8 and uint8).
 *
 * quantize:   y = cast<T>(clip(round(x / scale) + zp, Tmin, Tmax)) in
 *             float32, `round` half to even; the clip saturates.
 * dequantize: y = (float(x) - float(zp)) * scale.
 * ...Integer: cast both operands to int32, subtract their zero points
 *             (int32, exact), then nn.dense (a 2-d B, transposed) or the
 *             MatMul converter's nn.matmul / nn.batch_matmul, and nn.conv2d
 *             (ungrouped 2-d: NHWC/OHWI between transposes; else the Conv
 *             converter's NCHW conv) on int32 operands with an int32
 *             accumulator (the reference kernels and the JIT compute
 *             integer anchors exactly, wrapping like ONNX's int32). The
 *             layouts are the ones the JIT's int32 loop nests run fast.
 *             The convolution's implicit padding is zero after the shift,
 *             which is the zero point before it, as ONNX Runtime pads.
 * QLinear*:   the same int32 accumulation (plus QLinearConv's int32 bias),
 *             then the float requantize of ONNX: round(float(acc) *
 *             (a_scale * b_scale / y_scale)) + y_zp, saturated. No float
 *             product of the int8 operands anywhere, so the accumulation is
 *             exact beyond 2^24. The int32 anchor is where a fast int8
 *             kernel (int8 operands, int32 accumulator) can take over later.
 *
 * Per-axis quantization: a 1-d scale / zero point of length n on an input
 * of rank r is reshaped to [n, 1, ... 1] (r - 1 - axis ones) so it
 * broadcasts along `axis`; per-row zero points of a matmul's left operand
 * the same way along its row axis, per-output-channel weight zero points
 * and scales along the convolution's output channel. The reshapes and the
 * scale products fold to constants when the scales are initializers. */
#include <stdio.h>
#include <string.h>

#include "frontend/onnx/onnx_impl.h"
#include "ir/op/op_attrs.h"

/* ---- building blocks ----------------------------------------------------- */

static rt_status_t cast_to(rt_onnx_ctx_t *cx, rt_ir_expr_t *e, rt_dtype_t dt, rt_ir_expr_t **out) {
  if (rt_dtype_equal(rt_onnx_elem_dtype(e), dt)) {
    *out = e;
    return RT_OK;
  }
  char dn[RT_DTYPE_NAME_MAX];
  return rt_onnx_call(cx, "cast", 1, &e, out, "dtype", rt_onnx_str_text(cx, rt_dtype_name(dt, dn)),
                      NULL);
}

/* The saturation range of a quantized dtype; false for any other dtype. */
static bool quant_range(rt_dtype_t dt, double *lo, double *hi) {
  if (rt_dtype_equal(dt, RT_DTYPE_UINT8)) {
    *lo = 0;
    *hi = 255;
    return true;
  }
  if (rt_dtype_equal(dt, RT_DTYPE_INT8)) {
    *lo = -128;
    *hi = 127;
    return true;
  }
  return false;
}

static rt_status_t need_quant_dtype(rt_onnx_ctx_t *cx, const rt_ir_expr_t *e, const char *what) {
  double lo, hi;
  if (quant_range(rt_onnx_elem_dtype(e), &lo, &hi)) return RT_OK;
  char dn[RT_DTYPE_NAME_MAX];
  return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED, "%s of type %s is not supported (int8, uint8 only)",
                            what, rt_dtype_name(rt_onnx_elem_dtype(e), dn));
}

/* v (a scale or zero point) made to broadcast along `axis` of a rank-`rank`
 * operand: a 1-d v of length > 1 becomes [n, 1, ... 1]; a 0-d or
 * 1-element v is per tensor and stays; anything else must already
 * broadcast. */
static rt_status_t along_axis(rt_onnx_ctx_t *cx, rt_ir_expr_t *v, int32_t axis, int32_t rank,
                              const char *what, rt_ir_expr_t **out) {
  const rt_ir_type_t *t = rt_onnx_type(v);
  *out = v;
  if (!t || t->tensor.rank != 1 || t->tensor.shape[0] == 1) return RT_OK;
  if (axis < 0 || axis >= rank) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT, "%s: axis %d is out of range for rank %d",
                              what, (int)axis, (int)rank);
  }
  int32_t trailing = rank - 1 - axis;
  if (trailing == 0) return RT_OK;
  int64_t shape[RT_TENSOR_MAX_RANK];
  shape[0] = -1;
  for (int32_t i = 0; i < trailing; ++i) shape[1 + i] = 1;
  return rt_onnx_call(cx, "reshape", 1, &v, out, "newshape", rt_onnx_ints_text(cx, 1 + trailing, shape),
                      NULL);
}

/* q + zp saturated to dt's range, as dt: q float32 holding whole numbers,
 * zp (NULL: 0) of dtype dt broadcasting against q. */
static rt_status_t saturate(rt_onnx_ctx_t *cx, rt_ir_expr_t *q, rt_ir_expr_t *zp, rt_dtype_t dt,
                            rt_ir_expr_t **out) {
  double lo, hi;
  if (!quant_range(dt, &lo, &hi)) return rt_onnx_unsupported(cx, "a quantized type other than int8 or uint8");
  if (zp) {
    rt_ir_expr_t *zf = NULL;
    RT_RETURN_IF_ERROR(cast_to(cx, zp, RT_DTYPE_FLOAT32, &zf));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", q, zf, &q));
  }
  rt_ir_expr_t *lo_c = NULL, *hi_c = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, lo, &lo_c));
  RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, hi, &hi_c));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "maximum", q, lo_c, &q));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "minimum", q, hi_c, &q));
  return cast_to(cx, q, dt, out);
}

/* round(x / scale) + zp saturated, as dt (x float32). */
static rt_status_t quantize(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, rt_ir_expr_t *scale,
                            rt_ir_expr_t *zp, rt_dtype_t dt, rt_ir_expr_t **out) {
  rt_ir_expr_t *q = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "divide", x, scale, &q));
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "round", q, &q));
  return saturate(cx, q, zp, dt, out);
}

/* int32(x) - int32(zp) (zp NULL: int32(x)). */
static rt_status_t shift(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, rt_ir_expr_t *zp, rt_ir_expr_t **out) {
  RT_RETURN_IF_ERROR(cast_to(cx, x, RT_DTYPE_INT32, out));
  if (!zp) return RT_OK;
  rt_ir_expr_t *z = NULL;
  RT_RETURN_IF_ERROR(cast_to(cx, zp, RT_DTYPE_INT32, &z));
  return rt_onnx_call2(cx, "subtract", *out, z, out);
}

/* Requires a float32 scale input. */
static rt_status_t need_scale(rt_onnx_ctx_t *cx, const rt_ir_expr_t *s, const char *what) {
  if (rt_dtype_equal(rt_onnx_elem_dtype(s), RT_DTYPE_FLOAT32)) return RT_OK;
  char dn[RT_DTYPE_NAME_MAX];
  return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED, "%s of type %s is not supported (float32 only)",
                            what, rt_dtype_name(rt_onnx_elem_dtype(s), dn));
}

/* The per-axis `axis` attribute (opset 13 on; per tensor before),
 * negative counted from the end. It is checked against the rank only when
 * the scale is per axis (along_axis): a per-tensor scale ignores it, so
 * the default 1 on a 1-d input is no error. */
static int32_t quant_axis(const rt_onnx_ctx_t *cx, int32_t rank) {
  int64_t a = cx->opset >= 13 ? rt_onnx_attr_int(cx, "axis", 1) : 1;
  if (a < 0) a += rank;
  return a < -RT_TENSOR_MAX_RANK ? -RT_TENSOR_MAX_RANK : a > RT_TENSOR_MAX_RANK ? RT_TENSOR_MAX_RANK : (int32_t)a;
}

/* ---- QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear -------------- */

static rt_status_t cv_quantize_linear(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                      rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  RT_RETURN_IF_ERROR(need_scale(cx, in[1], "y_scale"));
  rt_ir_expr_t *zp = nin > 2 ? in[2] : NULL;
  if (zp) RT_RETURN_IF_ERROR(need_quant_dtype(cx, zp, "y_zero_point"));
  rt_dtype_t dt = zp ? rt_onnx_elem_dtype(zp) : RT_DTYPE_UINT8;
  int32_t rank = rt_onnx_rank(in[0]), axis = quant_axis(cx, rank);
  rt_ir_expr_t *x = NULL, *s = NULL;
  RT_RETURN_IF_ERROR(cast_to(cx, in[0], RT_DTYPE_FLOAT32, &x));
  RT_RETURN_IF_ERROR(along_axis(cx, in[1], axis, rank, "y_scale", &s));
  if (zp) RT_RETURN_IF_ERROR(along_axis(cx, zp, axis, rank, "y_zero_point", &zp));
  return quantize(cx, x, s, zp, dt, &out[0]);
}

static rt_status_t cv_dequantize_linear(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                        rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  RT_RETURN_IF_ERROR(need_scale(cx, in[1], "x_scale"));
  rt_dtype_t xt = rt_onnx_elem_dtype(in[0]);
  if (!rt_dtype_equal(xt, RT_DTYPE_INT32)) RT_RETURN_IF_ERROR(need_quant_dtype(cx, in[0], "x"));
  rt_ir_expr_t *zp = nin > 2 ? in[2] : NULL;
  if (zp && !rt_dtype_equal(rt_onnx_elem_dtype(zp), xt)) return rt_onnx_bad(cx, "x_zero_point's type differs from x's");
  int32_t rank = rt_onnx_rank(in[0]), axis = quant_axis(cx, rank);
  rt_ir_expr_t *x = NULL, *s = NULL;
  RT_RETURN_IF_ERROR(cast_to(cx, in[0], RT_DTYPE_FLOAT32, &x));
  RT_RETURN_IF_ERROR(along_axis(cx, in[1], axis, rank, "x_scale", &s));
  if (zp) {
    rt_ir_expr_t *zf = NULL;
    RT_RETURN_IF_ERROR(along_axis(cx, zp, axis, rank, "x_zero_point", &zp));
    RT_RETURN_IF_ERROR(cast_to(cx, zp, RT_DTYPE_FLOAT32, &zf));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "subtract", x, zf, &x));
  }
  return rt_onnx_call2(cx, "multiply", x, s, &out[0]);
}

/* ONNX's function body, step for step: scale = (max(max(x), 0) -
 * min(min(x), 0)) / 255, zp = uint8(round(clip(0 - min / scale, 0, 255))),
 * y = QuantizeLinear(x, scale, zp); except that an all-zero x gets scale
 * 1 (zero point 0, y 0), as ONNX Runtime gives, instead of 0 / 0. */
static rt_status_t cv_dynamic_quantize_linear(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                              rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  RT_RETURN_IF_ERROR(need_scale(cx, in[0], "x"));
  rt_ir_expr_t *x = in[0];
  rt_ir_expr_t *zero = NULL, *qmax = NULL, *lo = NULL, *hi = NULL, *range = NULL, *scale = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, 0.0, &zero));
  RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, 255.0, &qmax));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "min", 1, &x, &lo, NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "minimum", lo, zero, &lo));
  RT_RETURN_IF_ERROR(rt_onnx_call(cx, "max", 1, &x, &hi, NULL));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "maximum", hi, zero, &hi));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "subtract", hi, lo, &range));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "divide", range, qmax, &scale));
  {
    /* x all zeros: scale 1 as ONNX Runtime (the function body's 0 would
     * make the zero point and y 0 / 0) */
    rt_ir_expr_t *flat = NULL, *one = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, 1.0, &one));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "equal", range, zero, &flat));
    rt_ir_expr_t *args[3] = {flat, one, scale};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "where", 3, args, &scale, NULL));
  }
  rt_ir_expr_t *z = NULL, *zp = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "divide", lo, scale, &z));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "subtract", zero, z, &z));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "maximum", z, zero, &z));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "minimum", z, qmax, &z));
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "round", z, &z));
  RT_RETURN_IF_ERROR(cast_to(cx, z, RT_DTYPE_UINT8, &zp));
  RT_RETURN_IF_ERROR(quantize(cx, x, scale, zp, RT_DTYPE_UINT8, &out[0]));
  if (nout > 1) out[1] = scale;
  if (nout > 2) out[2] = zp;
  return RT_OK;
}

/* ---- integer matmul and convolution -------------------------------------- */

/* int32 (A - a_zp) x (B - b_zp): nn.dense on B's transpose when B is 2-d,
 * else through the MatMul converter (batched); a_zp 1-d is per row of A,
 * b_zp 1-d per column of B (numpy broadcast as is). */
static rt_status_t int_matmul(rt_onnx_ctx_t *cx, rt_ir_expr_t *a, rt_ir_expr_t *a_zp,
                              rt_ir_expr_t *b, rt_ir_expr_t *b_zp, rt_ir_expr_t **out) {
  RT_RETURN_IF_ERROR(need_quant_dtype(cx, a, "A"));
  RT_RETURN_IF_ERROR(need_quant_dtype(cx, b, "B"));
  int32_t ra = rt_onnx_rank(a);
  if (a_zp && ra >= 2) RT_RETURN_IF_ERROR(along_axis(cx, a_zp, ra - 2, ra, "a_zero_point", &a_zp));
  rt_ir_expr_t *args[2] = {NULL, NULL};
  RT_RETURN_IF_ERROR(shift(cx, a, a_zp, &args[0]));
  RT_RETURN_IF_ERROR(shift(cx, b, b_zp, &args[1]));
  if (ra >= 2 && rt_onnx_rank(b) == 2) {
    /* nn.dense reads B^T along K, contiguous: on int32 the JIT's loop nest
     * is ~35x faster than nn.matmul's strided column; a constant B's
     * transpose folds away */
    rt_ir_expr_t *bt = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "transpose", 1, &args[1], &bt, "axes", "[1, 0]", NULL));
    args[1] = bt;
    return rt_onnx_call(cx, "nn.dense", 2, args, out, NULL);
  }
  rt_onnx_convert_fn mm = rt_onnx_find_converter("MatMul");
  if (!mm) return rt_onnx_unsupported(cx, "MatMul (no converter)");
  return mm(cx, args, 2, out, 1);
}

/* The NCHW/OIHW int32 nn.conv2d `y` (ungrouped) as NHWC/OHWI between
 * transposes: the JIT's loop nest then reduces over channels contiguously
 * (~11x faster on int32 than NCHW, where the float templates do not
 * apply); a constant weight's transpose folds away. Anything else stays. */
static rt_status_t nhwc(rt_onnx_ctx_t *cx, rt_ir_expr_t *y, rt_ir_expr_t **out) {
  *out = y;
  if (y->kind != RT_IR_CALL || y->call.callee->kind != RT_IR_OP ||
      y->call.callee->op.op->id != RT_OP_NN_CONV2D) {
    return RT_OK;
  }
  rt_attrs_conv2d_t a = rt_ir_attrs_conv2d(y->call.attrs);
  if (a.groups != 1 || a.strides.count != 2 || a.padding.count != 4 || a.dilation.count != 2 ||
      a.kernel_size.count != 2) {
    return RT_OK;
  }
  int64_t st[2], pad[4], dil[2], ks[2];
  for (int32_t i = 0; i < 2; ++i) {
    st[i] = rt_attr_list_int(a.strides, i);
    dil[i] = rt_attr_list_int(a.dilation, i);
    ks[i] = rt_attr_list_int(a.kernel_size, i);
  }
  for (int32_t i = 0; i < 4; ++i) pad[i] = rt_attr_list_int(a.padding, i);
  rt_ir_expr_t *args[2] = {NULL, NULL}, *c = NULL;
  for (int32_t i = 0; i < 2; ++i) {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "transpose", 1, &y->call.args[i], &args[i], "axes", "[0, 2, 3, 1]", NULL));
  }
  RT_RETURN_IF_ERROR(rt_onnx_call(
      cx, "nn.conv2d", 2, args, &c, "strides", rt_onnx_ints_text(cx, 2, st), "padding",
      rt_onnx_ints_text(cx, 4, pad), "dilation", rt_onnx_ints_text(cx, 2, dil), "channels",
      a.channels_is_none ? "None" : rt_onnx_int_text(cx, a.channels), "kernel_size",
      rt_onnx_ints_text(cx, 2, ks), "data_layout", "\"NHWC\"", "kernel_layout", "\"OHWI\"", NULL));
  return rt_onnx_call(cx, "transpose", 1, &c, out, "axes", "[0, 3, 1, 2]", NULL);
}

/* int32 conv(x - x_zp, w - w_zp) (+ bias) through the Conv converter (the
 * node's own attributes); w_zp 1-d is per output channel. */
static rt_status_t int_conv(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, rt_ir_expr_t *x_zp,
                            rt_ir_expr_t *w, rt_ir_expr_t *w_zp, rt_ir_expr_t *bias,
                            rt_ir_expr_t **out) {
  RT_RETURN_IF_ERROR(need_quant_dtype(cx, x, "x"));
  RT_RETURN_IF_ERROR(need_quant_dtype(cx, w, "w"));
  if (x_zp) {
    const rt_ir_type_t *t = rt_onnx_type(x_zp);
    if (t && !(t->tensor.rank == 0 || (t->tensor.rank == 1 && t->tensor.shape[0] == 1))) {
      return rt_onnx_unsupported(cx, "an x_zero_point other than per tensor");
    }
  }
  int32_t rw = rt_onnx_rank(w);
  if (w_zp) RT_RETURN_IF_ERROR(along_axis(cx, w_zp, 0, rw, "w_zero_point", &w_zp));
  rt_ir_expr_t *args[3] = {NULL, NULL, bias};
  RT_RETURN_IF_ERROR(shift(cx, x, x_zp, &args[0]));
  RT_RETURN_IF_ERROR(shift(cx, w, w_zp, &args[1]));
  if (bias && !rt_dtype_equal(rt_onnx_elem_dtype(bias), RT_DTYPE_INT32)) return rt_onnx_bad(cx, "B must be int32");
  rt_onnx_convert_fn conv = rt_onnx_find_converter("Conv");
  if (!conv) return rt_onnx_unsupported(cx, "Conv (no converter)");
  rt_ir_expr_t *y = NULL;
  RT_RETURN_IF_ERROR(conv(cx, args, 2, &y, 1));
  RT_RETURN_IF_ERROR(nhwc(cx, y, &y));
  if (!bias) {
    *out = y;
    return RT_OK;
  }
  rt_ir_expr_t *yb[2] = {y, bias};
  return rt_onnx_call(cx, "nn.bias_add", 2, yb, out, "axis", "1", NULL);
}

static rt_status_t cv_matmul_integer(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                     rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  return int_matmul(cx, in[0], nin > 2 ? in[2] : NULL, in[1], nin > 3 ? in[3] : NULL, &out[0]);
}

static rt_status_t cv_conv_integer(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                   rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  return int_conv(cx, in[0], nin > 2 ? in[2] : NULL, in[1], nin > 3 ? in[3] : NULL, NULL, &out[0]);
}

/* round(float(acc) * (s1 * s2 / y_scale)) + y_zp, saturated to y_zp's
 * type; s2 (1-d) along axis `axis2` of the rank-`rank` result. */
static rt_status_t requantize(rt_onnx_ctx_t *cx, rt_ir_expr_t *acc, rt_ir_expr_t *s1,
                              rt_ir_expr_t *s2, int32_t axis2, rt_ir_expr_t *y_scale,
                              rt_ir_expr_t *y_zp, rt_ir_expr_t **out) {
  RT_RETURN_IF_ERROR(need_scale(cx, s1, "a scale"));
  RT_RETURN_IF_ERROR(need_scale(cx, s2, "a scale"));
  RT_RETURN_IF_ERROR(need_scale(cx, y_scale, "y_scale"));
  RT_RETURN_IF_ERROR(need_quant_dtype(cx, y_zp, "y_zero_point"));
  int32_t rank = rt_onnx_rank(acc);
  rt_ir_expr_t *m = NULL, *q = NULL;
  RT_RETURN_IF_ERROR(along_axis(cx, s2, axis2, rank, "the second scale", &s2));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", s1, s2, &m));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "divide", m, y_scale, &m));
  RT_RETURN_IF_ERROR(cast_to(cx, acc, RT_DTYPE_FLOAT32, &q));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", q, m, &q));
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "round", q, &q));
  return saturate(cx, q, y_zp, rt_onnx_elem_dtype(y_zp), out);
}

/* a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point. */
static rt_status_t cv_qlinear_matmul(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                     rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 8));
  rt_ir_expr_t *acc = NULL;
  RT_RETURN_IF_ERROR(int_matmul(cx, in[0], in[2], in[3], in[5], &acc));
  int32_t r = rt_onnx_rank(acc);
  /* a 1-d a_scale is per row: put it along the row axis too */
  rt_ir_expr_t *sa = in[1];
  if (r >= 2) RT_RETURN_IF_ERROR(along_axis(cx, sa, r - 2, r, "a_scale", &sa));
  return requantize(cx, acc, sa, in[4], r - 1, in[6], in[7], &out[0]);
}

/* x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
 * y_zero_point, B (int32, optional). */
static rt_status_t cv_qlinear_conv(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                   rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 8));
  rt_ir_expr_t *acc = NULL;
  RT_RETURN_IF_ERROR(int_conv(cx, in[0], in[2], in[3], in[5], nin > 8 ? in[8] : NULL, &acc));
  return requantize(cx, acc, in[1], in[4], 1, in[6], in[7], &out[0]);
}

const rt_onnx_op_entry_t rt_onnx_quant_ops[] = {
    {"ConvInteger", cv_conv_integer},
    {"DequantizeLinear", cv_dequantize_linear},
    {"DynamicQuantizeLinear", cv_dynamic_quantize_linear},
    {"MatMulInteger", cv_matmul_integer},
    {"QLinearConv", cv_qlinear_conv},
    {"QLinearMatMul", cv_qlinear_matmul},
    {"QuantizeLinear", cv_quantize_linear},
};
const int32_t rt_onnx_quant_ops_count = (int32_t)RT_COUNTOF(rt_onnx_quant_ops);
