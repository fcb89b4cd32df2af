/* Reference kernels of the algorithm ops (ir/op/algorithm.c): cumsum and
 * topk. These file comments are the specification the JIT lowering
 * (jit/ops/algorithm.c) follows.
 *
 * cumsum: each input element is first converted to the output dtype (as
 * cast does), then summed along the axis (over the flattened input when
 * axis is None): out[j] = sum of x[0..j] (inclusive) or of x[0..j-1]
 * (exclusive, so out[0] = 0). Float outputs accumulate in double and round
 * once per stored element; integer outputs wrap modulo 2^bits.
 *
 * topk: along the axis, the elements are ordered from the largest to the
 * smallest (smallest first with is_ascend), NaN counting as larger than
 * every number, equal elements in index order (a stable sort); the first k
 * (all when k < 1) are the values, and their positions along the axis the
 * indices. Unsigned ints and bool compare unsigned.
 *
 * Both read their plan (ir/op/plan_misc.h) computed on the concrete input:
 * the axis made non-negative, the line split, k resolved (k < 1 is the
 * whole axis; a k past the extent is refused here for `?` extents), the
 * ret_type as an enum. */
#include <math.h>
#include <string.h>

#include "interp/kernels/kernels_impl.h"
#include "ir/op/plan.h"
#include "runtime/size.h"

/* ---- cumsum ------------------------------------------------------------------ */

rt_status_t rt_interp_k_CUMSUM(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  rt_plan_input_t xin;
  rt_ir_plan_input_of_tensor(x, &xin);
  rt_plan_scan_t plan;
  RT_RETURN_IF_ERROR(rt_ir_plan_scan(call->attrs, 1, &xin, &plan));
  const bool exclusive = plan.exclusive;
  const bool fout = rt_interp_class(out->dtype) == RT_INTERP_FLOAT;
  const bool fin = rt_interp_class(x->dtype) == RT_INTERP_FLOAT;
  const int64_t outer = plan.lines.outer, n = plan.lines.extent, inner = plan.lines.inner;
  if (out->numel != x->numel) {
    return RT_INTERP_ERROR(call, INTERNAL, "%s", "output size differs from the input's");
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      double facc = 0;
      uint64_t iacc = 0;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t i = (o * n + j) * inner + in;
        if (exclusive) {
          if (fout) rt_interp_store_f(out, i, facc); else rt_interp_store_i(out, i, rt_interp_u2s(iacc));
        }
        if (fout) {
          facc += rt_interp_load_f(x, i);
        } else {
          /* Convert to the output dtype first (cast semantics), then add. */
          int64_t v = fin ? rt_interp_sat_i64(rt_interp_load_f(x, i)) : rt_interp_load_i(x, i);
          iacc += (uint64_t)v;
        }
        if (!exclusive) {
          if (fout) rt_interp_store_f(out, i, facc); else rt_interp_store_i(out, i, rt_interp_u2s(iacc));
        }
      }
    }
  }
  return RT_OK;
}

/* ---- topk ---------------------------------------------------------------------- */

typedef struct order_t {
  bool is_float, is_unsigned, ascend;
  const double *f;  /* keys of the line being sorted */
  const int64_t *i;
} order_t;

/* Does position a come strictly before position b? */
static bool before(const order_t *o, int64_t a, int64_t b) {
  if (o->is_float) {
    const double va = o->f[a], vb = o->f[b];
    if (o->ascend) return (!isnan(va) && isnan(vb)) || va < vb;
    return (isnan(va) && !isnan(vb)) || va > vb;
  }
  const int64_t va = o->i[a], vb = o->i[b];
  bool lt = o->is_unsigned ? (uint64_t)va < (uint64_t)vb : va < vb;
  bool gt = o->is_unsigned ? (uint64_t)va > (uint64_t)vb : va > vb;
  return o->ascend ? lt : gt;
}

/* Stable bottom-up merge sort of pos[0..n) with scratch tmp[0..n). */
static void merge_sort(const order_t *o, int64_t *pos, int64_t *tmp, int64_t n) {
  for (int64_t w = 1; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n;
      int64_t hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t a = lo, b = mid, t = lo;
      while (a < mid && b < hi) tmp[t++] = before(o, pos[b], pos[a]) ? pos[b++] : pos[a++];
      while (a < mid) tmp[t++] = pos[a++];
      while (b < hi) tmp[t++] = pos[b++];
    }
    memcpy(pos, tmp, (size_t)n * sizeof *pos);
  }
}

rt_status_t rt_interp_k_TOPK(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_plan_input_t xin;
  rt_ir_plan_input_of_tensor(x, &xin);
  rt_plan_topk_t plan;
  RT_RETURN_IF_ERROR(rt_ir_plan_topk(call->attrs, 1, &xin, &plan));
  rt_tensor_t *values = NULL, *indices = NULL;
  switch (plan.ret) {
    case RT_TOPK_RET_BOTH:
      values = call->outs[0];
      indices = call->nouts > 1 ? call->outs[1] : NULL;
      break;
    case RT_TOPK_RET_VALUES: values = call->outs[0]; break;
    case RT_TOPK_RET_INDICES: indices = call->outs[0]; break;
  }
  const int32_t axis = plan.axis;
  const int64_t outer = plan.lines.outer, n = plan.lines.extent, inner = plan.lines.inner;
  const int64_t k = plan.k;
  const rt_tensor_t *shape_of = values ? values : indices;
  if (!shape_of || shape_of->shape[axis] != k) {
    return RT_INTERP_ERROR(call, INTERNAL, "%s", "output extent differs from k");
  }
  order_t ord = {.is_float = rt_interp_class(x->dtype) == RT_INTERP_FLOAT,
                 .ascend = plan.ascend};
  ord.is_unsigned = !ord.is_float && rt_interp_class(x->dtype) != RT_INTERP_SINT;
  /* Scratch: positions, merge buffer and keys, n each. */
  size_t bytes = 0;
  RT_RETURN_IF_ERROR(rt_size_mul((size_t)(n > 0 ? n : 1), 3 * sizeof(int64_t), &bytes));
  int64_t *pos = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(call->allocator, bytes, 16, false, (void **)&pos));
  int64_t *tmp = pos + n, *keys = pos + 2 * n;
  double *fkeys = (double *)(void *)keys; /* same size as int64 */
  ord.f = fkeys;
  ord.i = keys;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      for (int64_t j = 0; j < n; ++j) {
        const int64_t i = (o * n + j) * inner + in;
        pos[j] = j;
        if (ord.is_float) fkeys[j] = rt_interp_load_f(x, i); else keys[j] = rt_interp_load_i(x, i);
      }
      merge_sort(&ord, pos, tmp, n);
      for (int64_t j = 0; j < k; ++j) {
        const int64_t dst = (o * k + j) * inner + in;
        if (values) rt_interp_copy_elem(x, (o * n + pos[j]) * inner + in, values, dst);
        if (indices) rt_interp_store_i(indices, dst, pos[j]);
      }
    }
  }
  rt_allocator_free(call->allocator, pos);
  return RT_OK;
}
