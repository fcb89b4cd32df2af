/* ONNX converters: the random ops — RandomUniform, RandomNormal,
 * RandomUniformLike, RandomNormalLike and Bernoulli (table
 * rt_onnx_random_ops).
 *
 * The values are drawn here, at import, by a seeded counter-based
 * generator (splitmix64 of the seed's key plus the element's index:
 * uniform = the top 53 bits over 2^53, normal = Box-Muller on two
 * uniforms) and enter the module as a constant; Bernoulli is
 * cast(less(U, p), dtype) with U such a constant, so every executor runs
 * it. The key is the `seed` attribute's bits, or, without one, the node's
 * position in the graph: a model draws the same values on every run (ONNX
 * leaves the values to the implementation; the conformance suite checks
 * only shapes and dtypes). Shapes must be static: the `*Like` ops and
 * Bernoulli over `?` dims are refused, naming the op. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "frontend/onnx/onnx_impl.h"

#define MAXR RT_TENSOR_MAX_RANK

static uint64_t splitmix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* The generator's key: the seed's bits, or the node's index. */
static uint64_t random_key(const rt_onnx_ctx_t *cx) {
  if (rt_onnx_attr(cx, "seed") != NULL) {
    double s = rt_onnx_attr_float(cx, "seed", 0.0);
    uint64_t bits;
    memcpy(&bits, &s, sizeof bits);
    return splitmix64(bits ^ 0x5eedULL);
  }
  return splitmix64((uint64_t)cx->node_index + 0x6e6f6465ULL);
}

/* Uniform in [0, 1), element i of the stream `key`. */
static double uniform01(uint64_t key, uint64_t i) {
  return (double)(splitmix64(key ^ splitmix64(i)) >> 11) * 0x1p-53;
}

/* dtype of a random output: float16, float32 or float64. */
static rt_status_t float_dtype(rt_onnx_ctx_t *cx, int64_t onnx_type, rt_dtype_t *out) {
  if (!rt_onnx_dtype((int32_t)onnx_type, out) ||
      !(rt_dtype_equal(*out, RT_DTYPE_FLOAT16) || rt_dtype_equal(*out, RT_DTYPE_FLOAT32) ||
        rt_dtype_equal(*out, RT_DTYPE_FLOAT64))) {
    return rt_onnx_unsupported(cx, "a random op with this dtype (float16, float and double are)");
  }
  return RT_OK;
}

/* A constant of `dtype` and `shape` holding the stream's values: uniform
 * in [lo, hi) (normal = false) or normal with mean lo and scale hi. A
 * float16 result is drawn in float32 and cast. */
static rt_status_t random_constant(rt_onnx_ctx_t *cx, rt_dtype_t dtype, int32_t rank,
                                   const int64_t *shape, bool normal, double lo, double hi,
                                   rt_ir_expr_t **out) {
  bool f64 = rt_dtype_equal(dtype, RT_DTYPE_FLOAT64);
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, f64 ? RT_DTYPE_FLOAT64 : RT_DTYPE_FLOAT32,
                                      rank, shape, &t));
  uint64_t key = random_key(cx);
  int64_t n = rt_tensor_numel(t);
  void *data = rt_tensor_data(t);
  for (int64_t i = 0; i < n; ++i) {
    double v;
    if (normal) {
      /* Box-Muller: u1 in (0, 1] keeps the log finite. */
      double u1 = 1.0 - uniform01(key, 2 * (uint64_t)i);
      double u2 = uniform01(key, 2 * (uint64_t)i + 1);
      v = lo + hi * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    } else {
      v = lo + (hi - lo) * uniform01(key, (uint64_t)i);
    }
    if (f64) {
      ((double *)data)[i] = v;
    } else {
      ((float *)data)[i] = (float)v;
    }
  }
  rt_status_t st = rt_onnx_constant(cx, t, out);
  rt_tensor_release(t);
  RT_RETURN_IF_ERROR(st);
  if (rt_dtype_equal(dtype, RT_DTYPE_FLOAT16)) {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "cast", 1, out, out, "dtype", "\"float16\"", NULL));
  }
  return RT_OK;
}

/* RandomUniform / RandomNormal: shape and dtype from the attributes. */
static rt_status_t random_from_attrs(rt_onnx_ctx_t *cx, rt_ir_expr_t **out, bool normal) {
  int32_t rank = 0;
  const int64_t *shape = NULL;
  if (!rt_onnx_attr_ints(cx, "shape", &rank, &shape)) return rt_onnx_bad(cx, "the shape attribute is required");
  if (rank > MAXR) return rt_onnx_bad(cx, "the shape has too many dims");
  for (int32_t d = 0; d < rank; ++d) {
    if (shape[d] < 0) return rt_onnx_bad(cx, "the shape has a negative dim");
  }
  rt_dtype_t dt;
  RT_RETURN_IF_ERROR(float_dtype(cx, rt_onnx_attr_int(cx, "dtype", 1), &dt));
  double a = rt_onnx_attr_float(cx, normal ? "mean" : "low", 0.0);
  double b = rt_onnx_attr_float(cx, normal ? "scale" : "high", 1.0);
  return random_constant(cx, dt, rank, shape, normal, a, b, &out[0]);
}

/* RandomUniformLike / RandomNormalLike: the input's shape; dtype from the
 * attribute or the input's. */
static rt_status_t random_like(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, bool normal, const char *onnx_name) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  if (!rt_onnx_static_shape(t)) {
    char what[64];
    snprintf(what, sizeof what, "%s over `?` dims", onnx_name);
    return rt_onnx_unsupported(cx, what);
  }
  rt_dtype_t dt = t->tensor.dtype;
  if (rt_onnx_attr(cx, "dtype") != NULL) {
    RT_RETURN_IF_ERROR(float_dtype(cx, rt_onnx_attr_int(cx, "dtype", 1), &dt));
  } else if (!(rt_dtype_equal(dt, RT_DTYPE_FLOAT16) || rt_dtype_equal(dt, RT_DTYPE_FLOAT32) ||
               rt_dtype_equal(dt, RT_DTYPE_FLOAT64))) {
    return rt_onnx_unsupported(cx, "a random op with this dtype (float16, float and double are)");
  }
  double a = rt_onnx_attr_float(cx, normal ? "mean" : "low", 0.0);
  double b = rt_onnx_attr_float(cx, normal ? "scale" : "high", 1.0);
  return random_constant(cx, dt, t->tensor.rank, t->tensor.shape, normal, a, b, &out[0]);
}

static rt_status_t cv_random_uniform(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                     rt_ir_expr_t **out, int32_t nout) {
  return random_from_attrs(cx, out, false);
}
static rt_status_t cv_random_normal(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                    rt_ir_expr_t **out, int32_t nout) {
  return random_from_attrs(cx, out, true);
}
static rt_status_t cv_random_uniform_like(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                          rt_ir_expr_t **out, int32_t nout) {
  return random_like(cx, in, nin, out, false, "RandomUniformLike");
}
static rt_status_t cv_random_normal_like(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                         rt_ir_expr_t **out, int32_t nout) {
  return random_like(cx, in, nin, out, true, "RandomNormalLike");
}

/* Bernoulli (opset 15): 1 with probability p (the input), as
 * cast(less(U, p), dtype), U uniform in [0, 1) of p's dtype. */
static rt_status_t cv_bernoulli(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  if (!rt_onnx_static_shape(t)) return rt_onnx_unsupported(cx, "Bernoulli over `?` dims");
  rt_dtype_t pt = t->tensor.dtype;
  if (!(rt_dtype_equal(pt, RT_DTYPE_FLOAT16) || rt_dtype_equal(pt, RT_DTYPE_FLOAT32) ||
        rt_dtype_equal(pt, RT_DTYPE_FLOAT64))) {
    return rt_onnx_bad(cx, "Bernoulli's input must be float16, float or double");
  }
  rt_dtype_t dt = pt;
  if (rt_onnx_attr(cx, "dtype") != NULL &&
      !rt_onnx_dtype((int32_t)rt_onnx_attr_int(cx, "dtype", 1), &dt)) {
    return rt_onnx_unsupported(cx, "Bernoulli with this dtype");
  }
  rt_ir_expr_t *u = NULL;
  RT_RETURN_IF_ERROR(random_constant(cx, pt, t->tensor.rank, t->tensor.shape, false, 0.0, 1.0, &u));
  rt_ir_expr_t *y = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "less", u, in[0], &y));
  char dn[RT_DTYPE_NAME_MAX];
  return rt_onnx_call(cx, "cast", 1, &y, &out[0], "dtype",
                      rt_onnx_str_text(cx, rt_dtype_name(dt, dn)), NULL);
}

const rt_onnx_op_entry_t rt_onnx_random_ops[] = {
    {"Bernoulli", cv_bernoulli},
    {"RandomNormal", cv_random_normal},
    {"RandomNormalLike", cv_random_normal_like},
    {"RandomUniform", cv_random_uniform},
    {"RandomUniformLike", cv_random_uniform_like},
};
const int32_t rt_onnx_random_ops_count = (int32_t)RT_COUNTOF(rt_onnx_random_ops);
