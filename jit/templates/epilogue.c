/* The vector epilogue of the templates: the fused tail ops of a kernel
 * (bias add, relu, clip / ReLU6, residual add...) evaluated on a whole
 * <vw x float> of anchor values at once and stored as a vector, instead of
 * element by element through the output's element expression
 * (rt_jit_tpl_epilogue, templates.c, which stays the general path).
 *
 * The lanes. A vector covers vw consecutive positions of the output dims
 * [d0, d1) taken together (flattened row-major), every other dim fixed:
 * conv2d.direct's 1x1 tiles put output pixels (OH x OW, dims [2, 4)) in
 * the lanes, conv2d.im2colT's output channels (dim [1, 2)). idx is the
 * multi-index of lane 0 (the caller keeps the vw lanes inside [d0, d1)'s
 * extent). The uniform form (rt_jit_tpl_vepi_uniform) takes only operands
 * constant over the lanes and returns the vector unstored, so its lanes
 * may be any positions of those dims (conv2d.direct's k x k tiles, whose
 * vectors run past an output row's end).
 *
 * What it takes (rt_jit_tpl_vepi_ok, decided before emitting): a float32
 * output whose expression, from the output down to the anchor, is a tree
 * of add, subtract, multiply, divide, maximum, minimum, negative, nn.relu,
 * clip (bounds exact in float32), sigmoid and nn.bias_add, every node that
 * contains the anchor having the output's shape, and whose other operands
 * are float32 params or constants in memory (read with numpy broadcasting)
 * or one-element constants. Each such leaf is, over the lanes, constant
 * (a scalar load, splatted), contiguous (one vector load) or strided (vw
 * scalar loads: a residual read along channels); any other layout, op or
 * operand makes vepi_ok false and the caller keeps the element path.
 *
 * Semantics are the element path's, instruction for instruction (the same
 * LLVM operations on vectors as elemwise.c builds on scalars: relu as
 * select(x < 0, 0, x), maximum / minimum propagating NaN, clip's compares
 * in float where its bounds are float32 values, which equals elemwise.c's
 * compare in double; sigmoid through the same rational tanh), so a
 * template's values do not depend on which epilogue ran. */
#include <math.h>
#include <string.h>

#include "ir/op/op_attrs.h"
#include "jit/ops/ops_impl.h"
#include "jit/templates/templates.h"

typedef struct vepi_t {
  rt_jit_lower_t *L;
  const rt_ir_expr_t *anchor;
  int32_t rank, d0, d1, vw;
  const int64_t *shape;   /* the output's */
  const LLVMValueRef *idx; /* lane 0 (emit only) */
  LLVMValueRef value;     /* the anchor's vector (emit only) */
  bool uniform;           /* every operand constant over the lanes */
} vepi_t;

static const rt_ir_op_t *op_of(const rt_ir_expr_t *e) {
  if (e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP) return NULL;
  return e->call.callee->op.op;
}

static bool f32_type(const rt_ir_expr_t *e, int32_t *rank, const int64_t **shape) {
  rt_dtype_t dt;
  rt_status_t st = rt_jit_tensor_type(e, &dt, rank, shape);
  if (st) {
    rt_status_free(st);
    return false;
  }
  return dt.code == kDLFloat && dt.bits == 32 && dt.lanes == 1;
}

static bool contains(const rt_ir_expr_t *e, const rt_ir_expr_t *anchor, int32_t depth) {
  if (e == anchor) return true;
  if (depth > 16 || !op_of(e)) return false;
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    if (contains(e->call.args[i], anchor, depth + 1)) return true;
  }
  return false;
}

/* A leaf's element strides along the output's dims (0: broadcast) and how
 * it varies over the lanes. */
typedef struct leaf_t {
  int64_t s[RT_TENSOR_MAX_RANK];
  int64_t lane; /* 0: constant over the lanes, else the element step per lane */
  bool scalar;  /* a one-element constant: `c` */
  double c;
} leaf_t;

/* Checks the strides of dims [d0, d1) against the lanes: all 0, or
 * row-major contiguous over the output's dims there. */
static bool lane_step(const vepi_t *v, leaf_t *f) {
  bool any = false;
  for (int32_t k = v->d0; k < v->d1; ++k) any |= f->s[k] != 0;
  if (!any) {
    f->lane = 0;
    return true;
  }
  for (int32_t k = v->d0; k + 1 < v->d1; ++k) {
    if (f->s[k] != f->s[k + 1] * v->shape[k + 1]) return false;
  }
  f->lane = f->s[v->d1 - 1];
  return f->lane > 0 && !v->uniform;
}

/* e's data is raw memory: rt_jit_tpl_raw, or, for the check before
 * lowering (no L: rt_jit_tpl_vepi_takes), a param or a constant. */
static bool leaf_raw(const vepi_t *v, const rt_ir_expr_t *e) {
  if (v->L) return rt_jit_tpl_raw(v->L, e);
  return e->kind == RT_IR_VAR || e->kind == RT_IR_CONSTANT;
}

/* Leaf e read with numpy broadcasting against the output's shape. */
static bool leaf_bcast(vepi_t *v, const rt_ir_expr_t *e, leaf_t *f) {
  memset(f, 0, sizeof *f);
  int32_t r;
  const int64_t *ls;
  if (!f32_type(e, &r, &ls) || r > v->rank) return false;
  if (rt_jit_scalar_constant(e, &f->c)) {
    f->scalar = true;
    return true;
  }
  if (!leaf_raw(v, e)) return false;
  int64_t stride = 1;
  for (int32_t j = r - 1; j >= 0; --j) {
    const int32_t k = j + v->rank - r;
    if (ls[j] != 1 && ls[j] != v->shape[k]) return false;
    f->s[k] = ls[j] == 1 ? 0 : stride;
    stride *= ls[j];
  }
  return lane_step(v, f);
}

/* nn.bias_add's bias: 1-d along the output dim `axis`. */
static bool leaf_bias(vepi_t *v, const rt_ir_expr_t *call, leaf_t *f) {
  memset(f, 0, sizeof *f);
  int32_t r, axis;
  const int64_t *ls;
  const rt_ir_expr_t *b = call->call.args[1];
  if (!f32_type(b, &r, &ls) || r != 1 || !leaf_raw(v, b)) return false;
  rt_status_t st = rt_jit_axis(call, rt_ir_attrs_bias_add(call->call.attrs).axis, v->rank, &axis);
  if (st) {
    rt_status_free(st);
    return false;
  }
  if (ls[0] != v->shape[axis]) return false;
  f->s[axis] = ls[0] == 1 ? 0 : 1;
  return lane_step(v, f);
}

static LLVMValueRef splat_const(vepi_t *v, double c) {
  return rt_jit_tpl_splat(v->L, LLVMConstReal(v->L->f32, c), v->vw);
}

/* The element offset of the leaf's lane 0 (at idx). */
static LLVMValueRef leaf_offset(vepi_t *v, const leaf_t *f) {
  rt_jit_lower_t *L = v->L;
  LLVMValueRef off = rt_jit_i64(L, 0);
  for (int32_t k = 0; k < v->rank; ++k) {
    if (f->s[k]) off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, v->idx[k], rt_jit_i64(L, f->s[k]), ""), "");
  }
  return off;
}

/* The leaf's vector at lane 0 = idx. */
static LLVMValueRef leaf_load(vepi_t *v, const rt_ir_expr_t *e, const leaf_t *f) {
  rt_jit_lower_t *L = v->L;
  if (f->scalar) return splat_const(v, f->c);
  LLVMValueRef off = leaf_offset(v, f);
  LLVMValueRef p = rt_jit_node(L, e)->data;
  if (f->lane == 0) return rt_jit_tpl_splat(L, rt_jit_tpl_loadf(L, p, off), v->vw);
  if (f->lane == 1) return rt_jit_tpl_loadv(L, p, off, v->vw);
  LLVMValueRef r = LLVMGetUndef(rt_jit_tpl_vec(L, v->vw));
  for (int32_t l = 0; l < v->vw; ++l) {
    LLVMValueRef x = rt_jit_tpl_loadf(L, p, LLVMBuildAdd(L->b, off, rt_jit_i64(L, l * f->lane), ""));
    r = LLVMBuildInsertElement(L->b, r, x, rt_jit_i32(L, l), "");
  }
  return r;
}

static bool clip_exact(const rt_ir_expr_t *call, double *lo, double *hi) {
  const rt_attrs_clip_t clip = rt_ir_attrs_clip(call->call.attrs);
  *lo = clip.a_min;
  *hi = clip.a_max;
  return !isnan(*lo) && !isnan(*hi) && (double)(float)*lo == *lo && (double)(float)*hi == *hi;
}

/* maximum / minimum propagating NaN (elemwise.c's fminmax). */
static LLVMValueRef fminmax(vepi_t *v, LLVMRealPredicate keep_a, LLVMValueRef a, LLVMValueRef b) {
  LLVMBuilderRef B = v->L->b;
  LLVMValueRef nan = LLVMBuildFCmp(B, LLVMRealUNO, a, b, "");
  LLVMValueRef pick_a = LLVMBuildFCmp(B, keep_a, a, b, "");
  return LLVMBuildSelect(B, nan, splat_const(v, NAN), LLVMBuildSelect(B, pick_a, a, b, ""), "");
}

/* Checks (emit false) or emits (emit true) the vector of node e. */
static bool vexpr(vepi_t *v, const rt_ir_expr_t *e, bool emit, LLVMValueRef *out, int32_t depth) {
  if (e == v->anchor) {
    if (emit) *out = v->value;
    return true;
  }
  const rt_ir_op_t *op = op_of(e);
  int32_t r;
  const int64_t *s;
  if (!op || depth > 16 || !f32_type(e, &r, &s) || r != v->rank ||
      memcmp(s, v->shape, (size_t)r * sizeof *s) != 0) {
    return false;
  }
  LLVMBuilderRef B = emit ? v->L->b : NULL;
  LLVMValueRef a[2] = {NULL, NULL};
  switch (op->id) {
    case RT_OP_SIGMOID:
      if (!vexpr(v, e->call.args[0], emit, &a[0], depth + 1)) return false;
      if (emit) {
        /* elemwise.c's float32 sigmoid, per lane. */
        *out = rt_jit_sigmoid_f32(v->L, a[0]);
      }
      return true;
    case RT_OP_NEGATIVE:
    case RT_OP_NN_RELU:
    case RT_OP_CLIP: {
      if (!vexpr(v, e->call.args[0], emit, &a[0], depth + 1)) return false;
      double lo = 0, hi = 0;
      if (op->id == RT_OP_CLIP && !clip_exact(e, &lo, &hi)) return false;
      if (!emit) return true;
      LLVMValueRef x = a[0], zero = splat_const(v, 0);
      if (op->id == RT_OP_NEGATIVE) {
        *out = LLVMBuildFNeg(B, x, "");
      } else if (op->id == RT_OP_NN_RELU) {
        *out = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOLT, x, zero, ""), zero, x, "");
      } else {
        LLVMValueRef clo = splat_const(v, lo), chi = splat_const(v, hi);
        LLVMValueRef below = LLVMBuildFCmp(B, LLVMRealOLT, x, clo, "");
        LLVMValueRef above = LLVMBuildFCmp(B, LLVMRealOGT, x, chi, "");
        *out = LLVMBuildSelect(B, below, clo, LLVMBuildSelect(B, above, chi, x, ""), "");
      }
      return true;
    }
    case RT_OP_NN_BIAS_ADD: {
      leaf_t f;
      if (!leaf_bias(v, e, &f) || !vexpr(v, e->call.args[0], emit, &a[0], depth + 1)) return false;
      if (emit) *out = LLVMBuildFAdd(B, a[0], leaf_load(v, e->call.args[1], &f), "");
      return true;
    }
    case RT_OP_ADD:
    case RT_OP_SUBTRACT:
    case RT_OP_MULTIPLY:
    case RT_OP_DIVIDE:
    case RT_OP_MAXIMUM:
    case RT_OP_MINIMUM: {
      int32_t konst = -1; /* the operand that is a one-element constant, not NaN */
      for (int32_t i = 0; i < 2; ++i) {
        const rt_ir_expr_t *x = e->call.args[i];
        if (contains(x, v->anchor, 0)) {
          if (!vexpr(v, x, emit, &a[i], depth + 1)) return false;
        } else {
          leaf_t f;
          if (!leaf_bcast(v, x, &f)) return false;
          if (f.scalar && !isnan(f.c)) konst = i;
          if (emit) a[i] = leaf_load(v, x, &f);
        }
      }
      if (!emit) return true;
      if ((op->id == RT_OP_MAXIMUM || op->id == RT_OP_MINIMUM) && konst >= 0) {
        /* Against a constant that is not NaN the NaN check folds into the
         * compare: an unordered one when the constant is b (a NaN a is
         * kept), an ordered one when it is a (a NaN b is taken); one
         * vmaxps / vminps where elemwise.c's form is four instructions. */
        const bool mx = op->id == RT_OP_MAXIMUM;
        LLVMRealPredicate pr = konst == 1 ? (mx ? LLVMRealUGT : LLVMRealULT) : (mx ? LLVMRealOGT : LLVMRealOLT);
        *out = LLVMBuildSelect(B, LLVMBuildFCmp(B, pr, a[0], a[1], ""), a[0], a[1], "");
        return true;
      }
      switch (op->id) {
        case RT_OP_ADD: *out = LLVMBuildFAdd(B, a[0], a[1], ""); break;
        case RT_OP_SUBTRACT: *out = LLVMBuildFSub(B, a[0], a[1], ""); break;
        case RT_OP_MULTIPLY: *out = LLVMBuildFMul(B, a[0], a[1], ""); break;
        case RT_OP_DIVIDE: *out = LLVMBuildFDiv(B, a[0], a[1], ""); break;
        case RT_OP_MAXIMUM: *out = fminmax(v, LLVMRealOGT, a[0], a[1]); break;
        default: *out = fminmax(v, LLVMRealOLT, a[0], a[1]); break;
      }
      return true;
    }
    default:
      return false;
  }
}

static bool vepi_init(vepi_t *v, rt_jit_lower_t *L, const rt_ir_expr_t *anchor, const rt_ir_expr_t *out,
                      int32_t d0, int32_t d1, int32_t vw) {
  memset(v, 0, sizeof *v);
  v->L = L;
  v->anchor = anchor;
  v->d0 = d0;
  v->d1 = d1;
  v->vw = vw;
  if (!f32_type(out, &v->rank, &v->shape)) return false;
  return d0 >= 0 && d0 < d1 && d1 <= v->rank;
}

bool rt_jit_tpl_vepi_ok(rt_jit_lower_t *L, const rt_ir_expr_t *anchor, const rt_ir_expr_t *out, int32_t d0,
                        int32_t d1) {
  vepi_t v;
  if (!vepi_init(&v, L, anchor, out, d0, d1, 8)) return false;
  return vexpr(&v, out, false, NULL, 0);
}

bool rt_jit_tpl_vepi_takes(const rt_ir_expr_t *anchor, const rt_ir_expr_t *out, int32_t d0, int32_t d1) {
  vepi_t v;
  if (!vepi_init(&v, NULL, anchor, out, d0, d1, 8)) return false;
  return vexpr(&v, out, false, NULL, 0);
}

bool rt_jit_tpl_vepi_uniform_ok(rt_jit_lower_t *L, const rt_ir_expr_t *anchor, const rt_ir_expr_t *out,
                                int32_t d0, int32_t d1) {
  vepi_t v;
  if (!vepi_init(&v, L, anchor, out, d0, d1, 8)) return false;
  v.uniform = true;
  return vexpr(&v, out, false, NULL, 0);
}

/* out's vector over the lanes (uniform: every operand constant over
 * them), named "vepi" for the tests, which look for it in the
 * unoptimized IR. */
static rt_status_t vepi_value(rt_jit_lower_t *L, const rt_ir_expr_t *anchor, const rt_ir_expr_t *out, int32_t d0,
                              int32_t d1, const LLVMValueRef *idx, LLVMValueRef value, bool uniform, vepi_t *v,
                              LLVMValueRef *result) {
  const int32_t vw = (int32_t)LLVMGetVectorSize(LLVMTypeOf(value));
  if (!vepi_init(v, L, anchor, out, d0, d1, vw)) {
    return RT_STATUS(INTERNAL, "%s", "vector epilogue on an output it does not take");
  }
  v->idx = idx;
  v->value = value;
  v->uniform = uniform;
  *result = NULL;
  if (!vexpr(v, out, true, result, 0)) {
    return RT_STATUS(INTERNAL, "%s", "vector epilogue on an output it does not take");
  }
  LLVMSetValueName2(*result, "vepi", 4);
  return RT_OK;
}

rt_status_t rt_jit_tpl_vepi_uniform(rt_jit_lower_t *L, const rt_ir_expr_t *anchor, const rt_ir_expr_t *out,
                                    int32_t d0, int32_t d1, const LLVMValueRef *idx, LLVMValueRef value,
                                    LLVMValueRef *out_value) {
  vepi_t v;
  return vepi_value(L, anchor, out, d0, d1, idx, value, true, &v, out_value);
}

rt_status_t rt_jit_tpl_vepi(rt_jit_lower_t *L, const rt_ir_expr_t *anchor, const rt_ir_expr_t *out,
                            LLVMValueRef data, int32_t d0, int32_t d1, const LLVMValueRef *idx,
                            LLVMValueRef value) {
  vepi_t v;
  LLVMValueRef r = NULL;
  RT_RETURN_IF_ERROR(vepi_value(L, anchor, out, d0, d1, idx, value, false, &v, &r));
  const int32_t vw = v.vw;
  /* The output, row-major: lane step = the stride of dim d1 - 1. */
  int64_t stride[RT_TENSOR_MAX_RANK], st = 1;
  for (int32_t k = v.rank - 1; k >= 0; --k) {
    stride[k] = st;
    st *= v.shape[k];
  }
  LLVMValueRef off = rt_jit_i64(L, 0);
  for (int32_t k = 0; k < v.rank; ++k) {
    if (v.shape[k] > 1) off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, idx[k], rt_jit_i64(L, stride[k]), ""), "");
  }
  const int64_t lane = stride[d1 - 1];
  if (lane == 1) {
    rt_jit_tpl_storev(L, r, data, off);
    return RT_OK;
  }
  for (int32_t l = 0; l < vw; ++l) {
    LLVMValueRef x = LLVMBuildExtractElement(L->b, r, rt_jit_i32(L, l), "");
    rt_jit_tpl_storef(L, x, data, LLVMBuildAdd(L->b, off, rt_jit_i64(L, l * lane), ""));
  }
  return RT_OK;
}

/* Prefetches (for reading) the lines of n floats from idx on in each
 * operand contiguous over the lanes (a residual), the ones
 * rt_jit_tpl_vepi would load for the vectors there; broadcast and
 * strided operands are left to the caches. */
static void vprefetch(vepi_t *v, const rt_ir_expr_t *e, int64_t n, int32_t depth) {
  const rt_ir_op_t *op = op_of(e);
  if (e == v->anchor || !op || depth > 16) return;
  rt_jit_lower_t *L = v->L;
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    const rt_ir_expr_t *x = e->call.args[i];
    if (contains(x, v->anchor, 0)) {
      vprefetch(v, x, n, depth + 1);
      continue;
    }
    leaf_t f;
    if (op->id == RT_OP_NN_BIAS_ADD || !leaf_bcast(v, x, &f) || f.scalar || f.lane != 1) continue;
    LLVMValueRef off = leaf_offset(v, &f);
    LLVMValueRef p = rt_jit_node(L, x)->data;
    /* A line every 16 floats, and the last float's (the run need not
     * start on a line). */
    for (int64_t j = 0; j < n; j += 16) {
      rt_jit_tpl_prefetch(L, rt_jit_tpl_gep(L, p, LLVMBuildAdd(L->b, off, rt_jit_i64(L, j), "")), false);
    }
    rt_jit_tpl_prefetch(L, rt_jit_tpl_gep(L, p, LLVMBuildAdd(L->b, off, rt_jit_i64(L, n - 1), "")), false);
  }
}

void rt_jit_tpl_vepi_prefetch(rt_jit_lower_t *L, const rt_ir_expr_t *anchor, const rt_ir_expr_t *out, int32_t d0,
                              int32_t d1, const LLVMValueRef *idx, int64_t n) {
  vepi_t v;
  if (n < 1 || !vepi_init(&v, L, anchor, out, d0, d1, 16)) return;
  v.idx = idx;
  vprefetch(&v, out, n, 0);
}
