/* Import-time folding of small constant computations, so ONNX shape
 * subgraphs (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, Range,
 * ConstantOfShape sizes) become static attributes before the ops that need
 * them as attributes are built.
 *
 * rt_onnx_call hands every call it built here; when all arguments are
 * constants (a tuple of constants for concatenate), the result has a static
 * shape of at most RT_ONNX_HOST_FOLD_MAX elements, and the op is one of the
 * few computed here, the call is replaced by a constant. The frontend sits
 * above ir/ only (it cannot use the interpreter), so this covers what shape
 * arithmetic uses: reshapes, casts, elementwise arithmetic and comparison
 * with broadcasting, take, concatenate and 1-d strided_slice. Integers are
 * computed in int64, floats in double. Everything else is left to the
 * FoldConstant pass. */
#include <math.h>
#include <string.h>

#include "frontend/onnx/fold.h"
#include "runtime/half.h"

static int64_t get_i64(const rt_tensor_t *t, int64_t i) {
  const void *d = rt_tensor_data(t);
  rt_dtype_t dt = rt_tensor_dtype(t);
  switch (dt.code) {
    case kDLInt:
      switch (dt.bits) {
        case 8: return ((const int8_t *)d)[i];
        case 16: return ((const int16_t *)d)[i];
        case 32: return ((const int32_t *)d)[i];
        default: return ((const int64_t *)d)[i];
      }
    case kDLUInt:
    case kDLBool:
      switch (dt.bits) {
        case 8: return ((const uint8_t *)d)[i];
        case 16: return ((const uint16_t *)d)[i];
        case 32: return ((const uint32_t *)d)[i];
        default: return (int64_t)((const uint64_t *)d)[i];
      }
    default: return (int64_t)rt_tensor_get_f64(t, i);
  }
}

static void put(rt_tensor_t *t, int64_t i, double f, int64_t v, bool as_int) {
  void *d = rt_tensor_data(t);
  rt_dtype_t dt = rt_tensor_dtype(t);
  if (dt.code == kDLFloat || dt.code == kDLBfloat) {
    double x = as_int ? (double)v : f;
    if (dt.bits == 64) ((double *)d)[i] = x;
    else if (dt.bits == 32) ((float *)d)[i] = (float)x;
    else if (dt.code == kDLFloat) ((uint16_t *)d)[i] = rt_f32_to_f16((float)x);
    else ((uint16_t *)d)[i] = rt_f32_to_bf16((float)x);
    return;
  }
  int64_t x = v;
  if (!as_int) {
    if (dt.code == kDLBool) x = f != 0;
    else x = isfinite(f) ? (int64_t)f : 0;
  }
  if (dt.code == kDLBool) x = x != 0;
  switch (dt.bits) {
    case 8: ((uint8_t *)d)[i] = (uint8_t)x; break;
    case 16: ((uint16_t *)d)[i] = (uint16_t)x; break;
    case 32: ((uint32_t *)d)[i] = (uint32_t)x; break;
    default: ((uint64_t *)d)[i] = (uint64_t)x; break;
  }
}

static bool is_int_like(rt_dtype_t dt) { return dt.code != kDLFloat && dt.code != kDLBfloat; }

/* Index into a broadcast operand of output element `i`. */
static int64_t bcast_index(int64_t i, int32_t rank, const int64_t *oshape,
                           const rt_tensor_t *t) {
  int32_t r = rt_tensor_rank(t);
  const int64_t *s = rt_tensor_shape(t);
  int64_t idx = 0, stride = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    int64_t coord = i % oshape[d];
    i /= oshape[d];
    int32_t td = d - (rank - r);
    if (td >= 0) {
      if (s[td] != 1) idx += coord * stride;
      stride *= s[td];
    }
  }
  return idx;
}

typedef enum { F_NONE, F_RESHAPE, F_CAST, F_BINARY, F_UNARY, F_WHERE, F_TAKE, F_CONCAT,
               F_SLICE } fold_kind;

static fold_kind kind_of(const char *op) {
  static const char *const reshapes[] = {"reshape", "squeeze", "expand_dims",
                                         "nn.batch_flatten", "copy"};
  static const char *const binaries[] = {
      "add", "subtract", "multiply", "divide", "floor_divide", "maximum", "minimum",
      "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
      "logical_and", "logical_or", "floor_mod", "mod"};
  static const char *const unaries[] = {"negative", "abs", "logical_not", "sign"};
  for (size_t i = 0; i < RT_COUNTOF(reshapes); ++i) if (!strcmp(op, reshapes[i])) return F_RESHAPE;
  for (size_t i = 0; i < RT_COUNTOF(binaries); ++i) if (!strcmp(op, binaries[i])) return F_BINARY;
  for (size_t i = 0; i < RT_COUNTOF(unaries); ++i) if (!strcmp(op, unaries[i])) return F_UNARY;
  if (!strcmp(op, "cast")) return F_CAST;
  if (!strcmp(op, "where")) return F_WHERE;
  if (!strcmp(op, "take")) return F_TAKE;
  if (!strcmp(op, "concatenate")) return F_CONCAT;
  if (!strcmp(op, "strided_slice")) return F_SLICE;
  return F_NONE;
}

static double bin_f(const char *op, double a, double b) {
  if (!strcmp(op, "add")) return a + b;
  if (!strcmp(op, "subtract")) return a - b;
  if (!strcmp(op, "multiply")) return a * b;
  if (!strcmp(op, "divide")) return a / b;
  if (!strcmp(op, "floor_divide")) return floor(a / b);
  if (!strcmp(op, "maximum")) return a > b ? a : b;
  if (!strcmp(op, "minimum")) return a < b ? a : b;
  if (!strcmp(op, "equal")) return a == b;
  if (!strcmp(op, "not_equal")) return a != b;
  if (!strcmp(op, "less")) return a < b;
  if (!strcmp(op, "less_equal")) return a <= b;
  if (!strcmp(op, "greater")) return a > b;
  if (!strcmp(op, "greater_equal")) return a >= b;
  if (!strcmp(op, "logical_and")) return a != 0 && b != 0;
  if (!strcmp(op, "logical_or")) return a != 0 || b != 0;
  if (!strcmp(op, "floor_mod")) return a - floor(a / b) * b;
  return fmod(a, b);
}

/* false when the integer op cannot be computed (division by zero). */
static bool bin_i(const char *op, int64_t a, int64_t b, int64_t *out) {
  bool div = !strcmp(op, "divide") || !strcmp(op, "floor_divide") ||
             !strcmp(op, "floor_mod") || !strcmp(op, "mod");
  if (div && (b == 0 || (a == INT64_MIN && b == -1))) return false;
  if (!strcmp(op, "add")) *out = (int64_t)((uint64_t)a + (uint64_t)b);
  else if (!strcmp(op, "subtract")) *out = (int64_t)((uint64_t)a - (uint64_t)b);
  else if (!strcmp(op, "multiply")) *out = (int64_t)((uint64_t)a * (uint64_t)b);
  else if (!strcmp(op, "divide")) *out = a / b;
  else if (!strcmp(op, "floor_divide")) *out = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
  else if (!strcmp(op, "mod")) *out = a % b;
  else if (!strcmp(op, "floor_mod")) { int64_t r = a % b; *out = (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
  else *out = (int64_t)bin_f(op, (double)a, (double)b);
  return true;
}

rt_status_t rt_onnx_fold(rt_onnx_ctx_t *cx, rt_ir_expr_t *call, rt_ir_expr_t **out) {
  *out = call;
  const char *op = call->call.callee->op.op->name;
  fold_kind k = kind_of(op);
  if (k == F_NONE) return RT_OK;
  const rt_ir_type_t *ot = rt_onnx_type(call);
  if (!ot || !rt_onnx_static_shape(ot)) return RT_OK;
  int64_t numel = 1;
  for (int32_t d = 0; d < ot->tensor.rank; ++d) {
    numel *= ot->tensor.shape[d];
    if (numel > RT_ONNX_HOST_FOLD_MAX) return RT_OK;
  }
  rt_ir_expr_t *const *args = call->call.args;
  int32_t nargs = call->call.nargs;
  if (k == F_CONCAT) {
    const rt_ir_expr_t *tup = args[0];
    if (tup->kind != RT_IR_TUPLE) return RT_OK;
    args = tup->tuple.fields;
    nargs = tup->tuple.count;
  }
  for (int32_t i = 0; i < nargs; ++i) {
    if (!rt_onnx_is_const(args[i])) return RT_OK;
  }
  if (k == F_SLICE && ot->tensor.rank != 1) return RT_OK;
  rt_dtype_t odt = ot->tensor.dtype;
  rt_tensor_t *res = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, odt, ot->tensor.rank,
                                      ot->tensor.shape, &res));
  bool ok = true;
  const rt_tensor_t *a0 = nargs ? args[0]->constant.value : NULL;
  const rt_ir_attrs_t *attrs = call->call.attrs;
  switch (k) {
    case F_RESHAPE:
      memcpy(rt_tensor_data(res), rt_tensor_data(a0), rt_tensor_nbytes(res));
      break;
    case F_CAST:
    case F_UNARY: {
      bool in_int = is_int_like(rt_tensor_dtype(a0));
      for (int64_t i = 0; i < numel; ++i) {
        int64_t v = in_int ? get_i64(a0, i) : 0;
        double f = in_int ? (double)v : rt_tensor_get_f64(a0, i);
        if (k == F_UNARY) {
          if (!strcmp(op, "negative")) { v = (int64_t)(0 - (uint64_t)v); f = -f; }
          else if (!strcmp(op, "abs")) { v = v < 0 ? (int64_t)(0 - (uint64_t)v) : v; f = fabs(f); }
          else if (!strcmp(op, "logical_not")) { v = !v; f = f == 0; }
          else { v = (v > 0) - (v < 0); f = (f > 0) - (f < 0); }
        }
        put(res, i, f, v, in_int);
      }
      break;
    }
    case F_BINARY: {
      const rt_tensor_t *a1 = args[1]->constant.value;
      bool in_int = is_int_like(rt_tensor_dtype(a0));
      for (int64_t i = 0; i < numel && ok; ++i) {
        int64_t ia = bcast_index(i, ot->tensor.rank, ot->tensor.shape, a0);
        int64_t ib = bcast_index(i, ot->tensor.rank, ot->tensor.shape, a1);
        if (in_int) {
          int64_t v = 0;
          ok = bin_i(op, get_i64(a0, ia), get_i64(a1, ib), &v);
          put(res, i, 0, v, true);
        } else {
          put(res, i, bin_f(op, rt_tensor_get_f64(a0, ia), rt_tensor_get_f64(a1, ib)), 0, false);
        }
      }
      break;
    }
    case F_WHERE: {
      const rt_tensor_t *a1 = args[1]->constant.value, *a2 = args[2]->constant.value;
      bool in_int = is_int_like(rt_tensor_dtype(a1));
      for (int64_t i = 0; i < numel; ++i) {
        bool c = get_i64(a0, bcast_index(i, ot->tensor.rank, ot->tensor.shape, a0)) != 0;
        const rt_tensor_t *src = c ? a1 : a2;
        int64_t j = bcast_index(i, ot->tensor.rank, ot->tensor.shape, src);
        put(res, i, in_int ? 0 : rt_tensor_get_f64(src, j), in_int ? get_i64(src, j) : 0, in_int);
      }
      break;
    }
    case F_TAKE: {
      if (rt_attrs_is_none(attrs, "axis") || rt_attrs_int(attrs, "batch_dims") != 0) {
        ok = false;
        break;
      }
      const rt_tensor_t *idx = args[1]->constant.value;
      int32_t r = rt_tensor_rank(a0);
      int64_t axis = rt_attrs_int(attrs, "axis");
      if (axis < 0) axis += r;
      const int64_t *s = rt_tensor_shape(a0);
      int64_t outer = 1, inner = 1, n = s[axis];
      for (int32_t d = 0; d < axis; ++d) outer *= s[d];
      for (int32_t d = (int32_t)axis + 1; d < r; ++d) inner *= s[d];
      size_t es = rt_dtype_size(odt);
      int64_t ni = rt_tensor_numel(idx);
      const uint8_t *src = rt_tensor_data(a0);
      uint8_t *dst = rt_tensor_data(res);
      bool wrap = strcmp(rt_attrs_string(attrs, "mode"), "wrap") == 0;
      for (int64_t o = 0; o < outer && ok; ++o) {
        for (int64_t j = 0; j < ni; ++j) {
          int64_t v = get_i64(idx, j);
          if (wrap) v = n ? ((v % n) + n) % n : 0;
          else v = v < 0 ? 0 : v >= n ? n - 1 : v;
          if (n == 0) { ok = false; break; }
          memcpy(dst + ((size_t)(o * ni + j) * (size_t)inner) * es,
                 src + ((size_t)(o * n + v) * (size_t)inner) * es, (size_t)inner * es);
        }
      }
      break;
    }
    case F_CONCAT: {
      int32_t r = ot->tensor.rank;
      int64_t axis = rt_attrs_int(attrs, "axis");
      if (axis < 0) axis += r;
      int64_t outer = 1, inner = 1;
      for (int32_t d = 0; d < axis; ++d) outer *= ot->tensor.shape[d];
      for (int32_t d = (int32_t)axis + 1; d < r; ++d) inner *= ot->tensor.shape[d];
      size_t es = rt_dtype_size(odt);
      uint8_t *dst = rt_tensor_data(res);
      int64_t total = ot->tensor.shape[axis], off = 0;
      for (int32_t i = 0; i < nargs; ++i) {
        const rt_tensor_t *t = args[i]->constant.value;
        int64_t n = rt_tensor_shape(t)[axis];
        const uint8_t *src = rt_tensor_data(t);
        for (int64_t o = 0; o < outer; ++o) {
          memcpy(dst + ((size_t)(o * total + off) * (size_t)inner) * es,
                 src + ((size_t)(o * n) * (size_t)inner) * es, (size_t)(n * inner) * es);
        }
        off += n;
      }
      break;
    }
    case F_SLICE: {
      int64_t dim = rt_tensor_shape(a0)[0];
      int64_t begin = rt_attrs_ints_count(attrs, "begin") ? rt_attrs_ints_at(attrs, "begin", 0) : 0;
      int64_t stride = rt_attrs_ints_count(attrs, "strides") ? rt_attrs_ints_at(attrs, "strides", 0) : 1;
      if (strcmp(rt_attrs_string(attrs, "slice_mode"), "end") != 0 || stride == 0) {
        ok = false;
        break;
      }
      int64_t lo = stride < 0 ? -1 : 0, hi = stride < 0 ? dim - 1 : dim;
      if (begin < 0) begin += dim;
      begin = begin < lo ? lo : begin > hi ? hi : begin;
      size_t es = rt_dtype_size(odt);
      const uint8_t *src = rt_tensor_data(a0);
      uint8_t *dst = rt_tensor_data(res);
      for (int64_t i = 0; i < numel; ++i) {
        memcpy(dst + (size_t)i * es, src + (size_t)(begin + i * stride) * es, es);
      }
      break;
    }
    default:
      ok = false;
  }
  rt_status_t st = RT_OK;
  if (ok) st = rt_onnx_constant(cx, res, out);
  rt_tensor_release(res);
  return st;
}
