/* Reference kernels of the data-movement, creation and shape ops
 * (ir/op/transform.c).
 *
 * Data movement copies element bytes (rt_interp_copy_elem), so every dtype
 * works and values are exact. Each kernel is written in gather form: for
 * every output element (row-major), compute the source multi-index from the
 * op's definition and copy. Output shapes come from the type relation;
 * where a kernel recomputes one (strided_slice) it checks that they agree.
 *
 * Index semantics (TVM's): take mode=clip clamps to [0, n-1] (so -1 reads
 * 0), mode=wrap wraps modulo n (so -1 reads n-1), mode=fast treats an index
 * outside [-n, n) as an OUT_OF_RANGE error (negative ones count from the
 * end). gather and gather_nd indices must lie in [0, n): anything else is
 * OUT_OF_RANGE naming the op and the index (TVM reads out of bounds; an
 * oracle must not). one_hot writes on_value where index == depth position,
 * so out-of-range indices give an all-off row. nn.pad mode "reflect" is
 * numpy's (the edge is not repeated), applied repeatedly for pads longer
 * than the axis; "edge" clamps. layout_transform fills positions outside
 * the source (a split that does not divide) with zero bytes, as TVM.
 * arange creates its output: length ceil((stop - start) / step), at least
 * 0; step 0 or a non-finite length is INVALID_ARGUMENT. */
#include <math.h>
#include <string.h>

#include "interp/kernels/kernels_impl.h"

/* ---- reshapes: a byte copy ------------------------------------------------ */

static rt_status_t copy_all(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  if (out->numel != x->numel) {
    return RT_INTERP_ERROR(call, INTERNAL,
                           "output has %lld elements, input %lld",
                           (long long)out->numel, (long long)x->numel);
  }
  for (int64_t i = 0; i < out->numel; ++i) rt_interp_copy_elem(x, i, out, i);
  return RT_OK;
}

rt_status_t rt_interp_k_RESHAPE(const rt_interp_call_t *call) { return copy_all(call); }
rt_status_t rt_interp_k_RESHAPE_LIKE(const rt_interp_call_t *call) { return copy_all(call); }
rt_status_t rt_interp_k_SQUEEZE(const rt_interp_call_t *call) { return copy_all(call); }
rt_status_t rt_interp_k_EXPAND_DIMS(const rt_interp_call_t *call) { return copy_all(call); }
rt_status_t rt_interp_k_NN_BATCH_FLATTEN(const rt_interp_call_t *call) { return copy_all(call); }

/* ---- permutations and joins ---------------------------------------------- */

rt_status_t rt_interp_k_TRANSPOSE(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const int32_t rank = x->rank;
  int32_t perm[RT_TENSOR_MAX_RANK];
  if (rt_attrs_is_none(call->attrs, "axes") ||
      rt_attrs_ints_count(call->attrs, "axes") == 0) {
    for (int32_t d = 0; d < rank; ++d) perm[d] = rank - 1 - d;
  } else {
    if (rt_attrs_ints_count(call->attrs, "axes") != rank) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "axes must have %d values", rank);
    }
    for (int32_t d = 0; d < rank; ++d) {
      RT_RETURN_IF_ERROR(rt_interp_axis(
          call, rt_attrs_ints_at(call->attrs, "axes", d), rank, &perm[d]));
    }
  }
  int64_t istride[RT_TENSOR_MAX_RANK], idx[RT_TENSOR_MAX_RANK];
  int64_t shape[RT_TENSOR_MAX_RANK];
  rt_interp_strides(rank, x->shape, istride);
  for (int32_t d = 0; d < rank; ++d) shape[d] = x->shape[perm[d]];
  RT_RETURN_IF_ERROR(rt_interp_check_shape(call, out, rank, shape));
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, rank, out->shape, idx);
    int64_t src = 0;
    for (int32_t d = 0; d < rank; ++d) src += idx[d] * istride[perm[d]];
    rt_interp_copy_elem(x, src, out, i);
  }
  return RT_OK;
}

rt_status_t rt_interp_k_CONCATENATE(const rt_interp_call_t *call) {
  rt_tensor_t *out = call->outs[0];
  const int32_t n = call->nargs;
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_attrs_int(call->attrs, "axis"),
                                    out->rank, &axis));
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, idx);
    int32_t k = 0;
    while (k < n - 1 && idx[axis] >= call->args[k]->shape[axis]) {
      idx[axis] -= call->args[k]->shape[axis];
      k++;
    }
    const rt_tensor_t *x = call->args[k];
    int64_t src = 0;
    for (int32_t d = 0; d < x->rank; ++d) src = src * x->shape[d] + idx[d];
    rt_interp_copy_elem(x, src, out, i);
  }
  return RT_OK;
}

rt_status_t rt_interp_k_STACK(const rt_interp_call_t *call) {
  rt_tensor_t *out = call->outs[0];
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_attrs_int(call->attrs, "axis"),
                                    out->rank, &axis));
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, idx);
    const rt_tensor_t *x = call->args[idx[axis]];
    int64_t src = 0;
    for (int32_t d = 0, e = 0; d < out->rank; ++d) {
      if (d == axis) continue;
      src = src * x->shape[e++] + idx[d];
    }
    rt_interp_copy_elem(x, src, out, i);
  }
  return RT_OK;
}

/* split: outputs were shaped by the relation; output k starts where
 * output k-1 ended along axis. */
rt_status_t rt_interp_k_SPLIT(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_attrs_int(call->attrs, "axis"),
                                    x->rank, &axis));
  int64_t offset = 0, idx[RT_TENSOR_MAX_RANK];
  for (int32_t k = 0; k < call->nouts; ++k) {
    rt_tensor_t *out = call->outs[k];
    if (out->rank != x->rank || offset + out->shape[axis] > x->shape[axis]) {
      return RT_INTERP_ERROR(call, INTERNAL, "output %d does not fit the input", k);
    }
    for (int64_t i = 0; i < out->numel; ++i) {
      rt_interp_unravel(i, out->rank, out->shape, idx);
      idx[axis] += offset;
      int64_t src = 0;
      for (int32_t d = 0; d < x->rank; ++d) src = src * x->shape[d] + idx[d];
      rt_interp_copy_elem(x, src, out, i);
    }
    offset += out->shape[axis];
  }
  return RT_OK;
}

/* ---- strided_slice ---------------------------------------------------------- */

/* TVM's canonicalization (topi/detail/strided_slice.h): negative indices
 * count from the end, then clamp to [0, dim] (stride > 0) or [-1, dim - 1]
 * (stride < 0). */
static int64_t canon(int64_t v, int64_t dim, int64_t stride) {
  int64_t lo = stride < 0 ? -1 : 0;
  int64_t hi = stride < 0 ? dim - 1 : dim;
  if (v < 0) v += dim;
  return v < lo ? lo : v > hi ? hi : v;
}

rt_status_t rt_interp_k_STRIDED_SLICE(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const int32_t rank = x->rank;
  const rt_ir_attrs_t *at = call->attrs;
  const bool size_mode = strcmp(rt_attrs_string(at, "slice_mode"), "size") == 0;
  int64_t begin[RT_TENSOR_MAX_RANK], stride[RT_TENSOR_MAX_RANK];
  int64_t shape[RT_TENSOR_MAX_RANK];
  for (int32_t d = 0; d < rank; ++d) {
    begin[d] = 0;
    stride[d] = 1;
    shape[d] = x->shape[d];
  }
  const int32_t nb = rt_attrs_ints_count(at, "begin");
  const int32_t ne = rt_attrs_ints_count(at, "end");
  const int32_t ns = rt_attrs_ints_count(at, "strides");
  const bool has_axes = !rt_attrs_is_none(at, "axes");
  if (has_axes && rt_attrs_ints_count(at, "axes") < nb) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "fewer axes than begin values");
  }
  if (!has_axes && nb > rank) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%d begin values for rank %d", nb, rank);
  }
  for (int32_t k = 0; k < nb; ++k) {
    int32_t d = k;
    if (has_axes) {
      RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_attrs_ints_at(at, "axes", k), rank, &d));
    }
    const int64_t dim = x->shape[d];
    int64_t s = (!size_mode && k < ns) ? rt_attrs_ints_at(at, "strides", k) : 1;
    if (s == 0) return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "stride of axis %d is 0", d);
    if (s < -INT32_MAX || s > INT32_MAX) s = s < 0 ? -INT32_MAX : INT32_MAX; /* same slice, no overflow */
    int64_t b = canon(rt_attrs_ints_at(at, "begin", k), dim, s);
    int64_t e;
    if (size_mode) {
      int64_t size = k < ne ? rt_attrs_ints_at(at, "end", k) : -1;
      e = size < 0 ? dim : (b + size > dim ? dim : b + size);
    } else if (k < ne) {
      e = canon(rt_attrs_ints_at(at, "end", k), dim, s);
    } else {
      e = s < 0 ? -1 : dim;
    }
    int64_t len = s > 0 ? (e - b + s - 1) / s : (b - e + (-s) - 1) / (-s);
    begin[d] = b;
    stride[d] = s;
    shape[d] = len > 0 ? len : 0;
  }
  RT_RETURN_IF_ERROR(rt_interp_check_shape(call, out, rank, shape));
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, rank, out->shape, idx);
    int64_t src = 0;
    for (int32_t d = 0; d < rank; ++d) src = src * x->shape[d] + begin[d] + idx[d] * stride[d];
    rt_interp_copy_elem(x, src, out, i);
  }
  return RT_OK;
}

/* ---- indexing --------------------------------------------------------------- */

static rt_status_t out_of_range(const rt_interp_call_t *call, int64_t v, int64_t n) {
  return RT_INTERP_ERROR(call, OUT_OF_RANGE,
                         "index %lld is out of range for an axis of size %lld",
                         (long long)v, (long long)n);
}

rt_status_t rt_interp_k_TAKE(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *ind = call->args[1];
  rt_tensor_t *out = call->outs[0];
  const char *mode = rt_attrs_string(call->attrs, "mode");
  const bool flat = rt_attrs_is_none(call->attrs, "axis");
  const int32_t xrank = flat ? 1 : x->rank;
  int64_t flat_shape = x->numel;
  const int64_t *xshape = flat ? &flat_shape : x->shape;
  int32_t axis = 0, bd = 0;
  if (!flat) {
    RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_attrs_int(call->attrs, "axis"), x->rank, &axis));
    int64_t b = rt_attrs_int(call->attrs, "batch_dims");
    if (b < 0) b += ind->rank;
    if (b < 0 || b > axis || b > ind->rank) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "batch_dims %lld is invalid",
                             (long long)rt_attrs_int(call->attrs, "batch_dims"));
    }
    bd = (int32_t)b;
  }
  const int32_t nidx = ind->rank - bd; /* index dims placed at axis */
  const int64_t n = xshape[axis];
  int64_t oi[RT_TENSOR_MAX_RANK], ii[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, oi);
    int64_t iflat = 0;
    for (int32_t d = 0; d < bd; ++d) iflat = iflat * ind->shape[d] + oi[d];
    for (int32_t d = 0; d < nidx; ++d) iflat = iflat * ind->shape[bd + d] + oi[axis + d];
    int64_t v = rt_interp_load_i(ind, iflat);
    if (strcmp(mode, "wrap") == 0) {
      if (n == 0) return out_of_range(call, v, n);
      v %= n;
      if (v < 0) v += n;
    } else if (strcmp(mode, "fast") == 0) {
      if (v < -n || v >= n) return out_of_range(call, v, n);
      if (v < 0) v += n;
    } else {
      if (n == 0) return out_of_range(call, v, n);
      v = v < 0 ? 0 : v >= n ? n - 1 : v;
    }
    for (int32_t d = 0; d < axis; ++d) ii[d] = oi[d];
    ii[axis] = v;
    for (int32_t d = axis + 1; d < xrank; ++d) ii[d] = oi[d - 1 + nidx];
    int64_t src = 0;
    for (int32_t d = 0; d < xrank; ++d) src = src * xshape[d] + ii[d];
    rt_interp_copy_elem(x, src, out, i);
  }
  return RT_OK;
}

rt_status_t rt_interp_k_GATHER(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *ind = call->args[1];
  rt_tensor_t *out = call->outs[0];
  if (rt_attrs_is_none(call->attrs, "axis")) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "requires attribute 'axis'");
  }
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_attrs_int(call->attrs, "axis"), x->rank, &axis));
  if (ind->rank != x->rank) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "indices must have the rank of data");
  }
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, idx);
    int64_t v = rt_interp_load_i(ind, i);
    if (v < 0 || v >= x->shape[axis]) return out_of_range(call, v, x->shape[axis]);
    idx[axis] = v;
    int64_t src = 0;
    for (int32_t d = 0; d < x->rank; ++d) {
      if (idx[d] >= x->shape[d]) return out_of_range(call, idx[d], x->shape[d]);
      src = src * x->shape[d] + idx[d];
    }
    rt_interp_copy_elem(x, src, out, i);
  }
  return RT_OK;
}

rt_status_t rt_interp_k_GATHER_ND(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *ind = call->args[1];
  rt_tensor_t *out = call->outs[0];
  const int64_t bd = rt_attrs_int(call->attrs, "batch_dims");
  if (ind->rank < 1) return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "indices must have rank >= 1");
  const int64_t m = ind->shape[0];
  if (bd < 0 || bd + m > x->rank) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%lld index dims and batch_dims %lld exceed rank %d",
                           (long long)m, (long long)bd, x->rank);
  }
  const int32_t jrank = ind->rank - 1;
  int64_t jcount = 1;
  for (int32_t d = 1; d < ind->rank; ++d) jcount *= ind->shape[d];
  int64_t oi[RT_TENSOR_MAX_RANK], xi[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, oi);
    int64_t jflat = 0;
    for (int32_t d = 0; d < jrank; ++d) jflat = jflat * ind->shape[1 + d] + oi[d];
    for (int64_t d = 0; d < bd; ++d) xi[d] = oi[d];
    for (int64_t k = 0; k < m; ++k) {
      int64_t v = rt_interp_load_i(ind, k * jcount + jflat);
      if (v < 0 || v >= x->shape[bd + k]) return out_of_range(call, v, x->shape[bd + k]);
      xi[bd + k] = v;
    }
    for (int64_t d = bd + m; d < x->rank; ++d) xi[d] = oi[jrank + (d - bd - m)];
    int64_t src = 0;
    for (int32_t d = 0; d < x->rank; ++d) src = src * x->shape[d] + xi[d];
    rt_interp_copy_elem(x, src, out, i);
  }
  return RT_OK;
}

/* ---- broadcasting and repetition ------------------------------------------ */

rt_status_t rt_interp_k_BROADCAST_TO(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, idx);
    rt_interp_copy_elem(x, rt_interp_bcast_index(out->rank, idx, x->rank, x->shape), out, i);
  }
  return RT_OK;
}

/* tile: data and reps right-aligned (missing leading ones are 1). */
rt_status_t rt_interp_k_TILE(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  if (out->rank < x->rank) return RT_INTERP_ERROR(call, INTERNAL, "%s", "output rank below input rank");
  const int32_t off = out->rank - x->rank;
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, idx);
    int64_t src = 0;
    for (int32_t d = 0; d < x->rank; ++d) src = src * x->shape[d] + idx[off + d] % x->shape[d];
    rt_interp_copy_elem(x, src, out, i);
  }
  return RT_OK;
}

rt_status_t rt_interp_k_REPEAT(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const int64_t reps = rt_attrs_int(call->attrs, "repeats");
  if (reps < 1) return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "repeats %lld must be >= 1", (long long)reps);
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_attrs_int(call->attrs, "axis"), x->rank, &axis));
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, idx);
    idx[axis] /= reps;
    int64_t src = 0;
    for (int32_t d = 0; d < x->rank; ++d) src = src * x->shape[d] + idx[d];
    rt_interp_copy_elem(x, src, out, i);
  }
  return RT_OK;
}

rt_status_t rt_interp_k_REVERSE(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  if (rt_attrs_is_none(call->attrs, "axis")) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "requires attribute 'axis'");
  }
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_attrs_int(call->attrs, "axis"), x->rank, &axis));
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, idx);
    idx[axis] = x->shape[axis] - 1 - idx[axis];
    int64_t src = 0;
    for (int32_t d = 0; d < x->rank; ++d) src = src * x->shape[d] + idx[d];
    rt_interp_copy_elem(x, src, out, i);
  }
  return RT_OK;
}

/* ---- nn.pad ------------------------------------------------------------------ */

rt_status_t rt_interp_k_NN_PAD(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  const rt_tensor_t *pv = call->args[1];
  rt_tensor_t *out = call->outs[0];
  const char *mode = rt_attrs_string(call->attrs, "pad_mode");
  const rt_attr_value_t *pw = rt_attrs_get(call->attrs, "pad_width");
  if (pw->kind != RT_ATTR_ARRAY || pw->array.count != x->rank) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "pad_width must have %d pairs", x->rank);
  }
  const bool edge = strcmp(mode, "edge") == 0;
  const bool reflect = strcmp(mode, "reflect") == 0;
  if (!edge && !reflect && strcmp(mode, "constant") != 0) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "pad_mode \"%s\" is not supported", mode);
  }
  int64_t before[RT_TENSOR_MAX_RANK], shape[RT_TENSOR_MAX_RANK];
  for (int32_t d = 0; d < x->rank; ++d) {
    const rt_attr_value_t *pair = &pw->array.items[d];
    if (pair->kind != RT_ATTR_ARRAY || pair->array.count != 2 ||
        pair->array.items[0].kind != RT_ATTR_INT || pair->array.items[1].kind != RT_ATTR_INT) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "pad_width[%d] must be [before, after]", d);
    }
    before[d] = pair->array.items[0].i;
    if (__builtin_add_overflow(x->shape[d], before[d], &shape[d]) ||
        __builtin_add_overflow(shape[d], pair->array.items[1].i, &shape[d])) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "pad_width[%d] overflows", d);
    }
  }
  RT_RETURN_IF_ERROR(rt_interp_check_shape(call, out, x->rank, shape));
  if (!edge && !reflect && pv->numel != 1) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "pad_value must have one element");
  }
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, idx);
    bool inside = true;
    int64_t src = 0;
    for (int32_t d = 0; d < x->rank; ++d) {
      const int64_t n = x->shape[d];
      int64_t j = idx[d] - before[d];
      if (j < 0 || j >= n) {
        if (edge && n > 0) {
          j = j < 0 ? 0 : n - 1;
        } else if (reflect && n > 0) {
          while (j < 0 || j >= n) {
            if (n == 1) {
              j = 0;
            } else if (j < 0) {
              j = -j;
            } else {
              j = 2 * (n - 1) - j;
            }
          }
        } else {
          inside = false;
        }
      }
      src = src * n + j;
    }
    if (inside) {
      rt_interp_copy_elem(x, src, out, i);
    } else {
      rt_interp_convert(pv, 0, out, i);
    }
  }
  return RT_OK;
}

/* ---- layout_transform -------------------------------------------------------- */

/* A layout such as "NCHW4c": primal axes (upper case) and split-off inner
 * parts (factor + lower case). */
typedef struct layout_t {
  int32_t n;
  char letter[RT_TENSOR_MAX_RANK]; /* upper case for both kinds */
  int64_t factor[RT_TENSOR_MAX_RANK]; /* 0 for a primal axis */
} layout_t;

static rt_status_t parse_layout(const rt_interp_call_t *call, const char *s, layout_t *l) {
  l->n = 0;
  int64_t num = -1;
  for (const char *p = s; *p; ++p) {
    if (*p >= '0' && *p <= '9') {
      num = (num < 0 ? 0 : num) * 10 + (*p - '0');
      if (num > INT32_MAX) break;
      continue;
    }
    bool upper = *p >= 'A' && *p <= 'Z', lower = *p >= 'a' && *p <= 'z';
    if (l->n == RT_TENSOR_MAX_RANK || (!upper && !lower) || upper != (num < 0) ||
        (lower && num <= 0)) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "layout \"%s\" is not supported", s);
    }
    l->letter[l->n] = upper ? *p : (char)(*p - 'a' + 'A');
    l->factor[l->n++] = upper ? 0 : num;
    num = -1;
  }
  if (num >= 0 || l->n == 0) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "layout \"%s\" is not supported", s);
  }
  return RT_OK;
}

/* Position of the primal (sub = false) or split (sub = true) axis X; -1. */
static int32_t find_axis(const layout_t *l, char x, bool sub) {
  for (int32_t k = 0; k < l->n; ++k) {
    if (l->letter[k] == x && (l->factor[k] > 0) == sub) return k;
  }
  return -1;
}

rt_status_t rt_interp_k_LAYOUT_TRANSFORM(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  layout_t src, dst;
  RT_RETURN_IF_ERROR(parse_layout(call, rt_attrs_string(call->attrs, "src_layout"), &src));
  RT_RETURN_IF_ERROR(parse_layout(call, rt_attrs_string(call->attrs, "dst_layout"), &dst));
  if (src.n != x->rank || dst.n != out->rank) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "layouts do not fit the tensors' ranks");
  }
  /* Extent of each primal axis of the source: outer * inner factor. */
  int64_t extent[RT_TENSOR_MAX_RANK];
  for (int32_t k = 0; k < src.n; ++k) {
    if (src.factor[k] > 0) continue;
    int32_t s = find_axis(&src, src.letter[k], true);
    if (find_axis(&dst, src.letter[k], false) < 0) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "axis %c is missing from dst_layout", src.letter[k]);
    }
    extent[k] = x->shape[k] * (s >= 0 ? src.factor[s] : 1);
  }
  for (int32_t k = 0; k < dst.n; ++k) {
    if (find_axis(&src, dst.letter[k], false) < 0) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "axis %c is missing from src_layout", dst.letter[k]);
    }
  }
  int64_t oi[RT_TENSOR_MAX_RANK];
  const size_t esz = rt_dtype_size(out->dtype);
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, oi);
    bool inside = true;
    int64_t srcflat = 0;
    for (int32_t k = 0; k < src.n; ++k) {
      const char letter = src.letter[k];
      int32_t pk = find_axis(&src, letter, false);
      /* The logical coordinate of this primal axis from dst's index. */
      int32_t dp = find_axis(&dst, letter, false), ds = find_axis(&dst, letter, true);
      int64_t coord = oi[dp] * (ds >= 0 ? dst.factor[ds] : 1) + (ds >= 0 ? oi[ds] : 0);
      if (coord >= extent[pk]) inside = false;
      int32_t ss = find_axis(&src, letter, true);
      int64_t v = src.factor[k] > 0 ? coord % src.factor[k]
                                    : coord / (ss >= 0 ? src.factor[ss] : 1);
      srcflat = srcflat * x->shape[k] + v;
    }
    if (inside) {
      rt_interp_copy_elem(x, srcflat, out, i);
    } else {
      memset((char *)rt_tensor_data(out) + (size_t)i * esz, 0, esz);
    }
  }
  return RT_OK;
}

/* ---- one_hot, depth_to_space, space_to_depth --------------------------------- */

rt_status_t rt_interp_k_ONE_HOT(const rt_interp_call_t *call) {
  const rt_tensor_t *ind = call->args[0];
  const rt_tensor_t *on = call->args[1];
  const rt_tensor_t *off = call->args[2];
  rt_tensor_t *out = call->outs[0];
  if (on->numel != 1 || off->numel != 1) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "on_value and off_value must be scalars");
  }
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_attrs_int(call->attrs, "axis"), out->rank, &axis));
  int64_t idx[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, idx);
    int64_t src = 0;
    for (int32_t d = 0, e = 0; d < out->rank; ++d) {
      if (d != axis) src = src * ind->shape[e++] + idx[d];
    }
    bool hot = rt_interp_load_i(ind, src) == idx[axis];
    rt_interp_convert(hot ? on : off, 0, out, i);
  }
  return RT_OK;
}

/* depth_to_space (DCR: channel (by * b + bx) * C_out + c; CRD: c * b * b +
 * by * b + bx) and space_to_depth (channel (by * b + bx) * C_in + c), as
 * topi; layout NCHW or NHWC. */
static rt_status_t subpixel(const rt_interp_call_t *call, bool to_space) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const int64_t b = rt_attrs_int(call->attrs, "block_size");
  const char *layout = rt_attrs_string(call->attrs, "layout");
  const bool crd = strcmp(rt_attrs_string(call->attrs, "mode"), "CRD") == 0;
  if (b < 1) return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "block_size %lld must be >= 1", (long long)b);
  int64_t xs[4], xe[4], os[4], oe[4]; /* N, C, H, W */
  RT_RETURN_IF_ERROR(rt_interp_layout(call, "layout", layout, "NCHW", x, xs, xe));
  RT_RETURN_IF_ERROR(rt_interp_layout(call, "layout", layout, "NCHW", out, os, oe));
  for (int64_t n = 0; n < oe[0]; ++n)
    for (int64_t c = 0; c < oe[1]; ++c)
      for (int64_t h = 0; h < oe[2]; ++h)
        for (int64_t w = 0; w < oe[3]; ++w) {
          int64_t sc, sh, sw;
          if (to_space) {
            int64_t by = h % b, bx = w % b;
            sc = crd ? c * b * b + by * b + bx : (by * b + bx) * oe[1] + c;
            sh = h / b;
            sw = w / b;
          } else {
            int64_t blk = c / xe[1];
            sc = c % xe[1];
            sh = h * b + blk / b;
            sw = w * b + blk % b;
          }
          rt_interp_copy_elem(x, n * xs[0] + sc * xs[1] + sh * xs[2] + sw * xs[3], out,
                              n * os[0] + c * os[1] + h * os[2] + w * os[3]);
        }
  return RT_OK;
}

rt_status_t rt_interp_k_NN_DEPTH_TO_SPACE(const rt_interp_call_t *call) { return subpixel(call, true); }
rt_status_t rt_interp_k_NN_SPACE_TO_DEPTH(const rt_interp_call_t *call) { return subpixel(call, false); }

/* ---- creation ---------------------------------------------------------------- */

static rt_status_t fill(const rt_interp_call_t *call, int64_t v) {
  rt_tensor_t *out = call->outs[0];
  for (int64_t i = 0; i < out->numel; ++i) rt_interp_store_i(out, i, v);
  return RT_OK;
}

rt_status_t rt_interp_k_ZEROS(const rt_interp_call_t *call) { return fill(call, 0); }
rt_status_t rt_interp_k_ONES(const rt_interp_call_t *call) { return fill(call, 1); }

rt_status_t rt_interp_k_FULL(const rt_interp_call_t *call) {
  const rt_tensor_t *v = call->args[0];
  rt_tensor_t *out = call->outs[0];
  if (v->numel != 1) return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "fill_value must be a scalar");
  for (int64_t i = 0; i < out->numel; ++i) rt_interp_convert(v, 0, out, i);
  return RT_OK;
}

rt_status_t rt_interp_k_ARANGE(const rt_interp_call_t *call) {
  for (int32_t k = 0; k < 3; ++k) {
    if (call->args[k]->numel != 1) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "input %d must be a scalar", k);
    }
  }
  const double start = rt_interp_load_f(call->args[0], 0);
  const double stop = rt_interp_load_f(call->args[1], 0);
  const double step = rt_interp_load_f(call->args[2], 0);
  if (step == 0) return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "step must not be 0");
  double len = ceil((stop - start) / step);
  if (!isfinite(len) && !(len < 0)) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "the length is not finite");
  }
  if (!(len > 0)) len = 0;
  if (len > (double)INT64_MAX / 2) {
    return RT_INTERP_ERROR(call, RESOURCE_EXHAUSTED, "%s", "the length is too large");
  }
  const int64_t n = (int64_t)len;
  rt_tensor_t *out = call->outs[0];
  if (out == NULL) {
    rt_dtype_t dt = RT_DTYPE_FLOAT32;
    const char *name = rt_attrs_string(call->attrs, "dtype");
    if (*name) RT_RETURN_IF_ERROR(rt_dtype_parse(name, strlen(name), &dt));
    RT_RETURN_IF_ERROR(rt_tensor_create(call->allocator, dt, 1, &n, &out));
    call->outs[0] = out;
  } else {
    RT_RETURN_IF_ERROR(rt_interp_check_shape(call, out, 1, &n));
  }
  for (int64_t i = 0; i < n; ++i) rt_interp_store_f(out, i, start + (double)i * step);
  return RT_OK;
}

rt_status_t rt_interp_k_SHAPE_OF(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  RT_RETURN_IF_ERROR(rt_interp_check_shape(call, out, 1, (int64_t[]){x->rank}));
  for (int32_t d = 0; d < x->rank; ++d) rt_interp_store_i(out, d, x->shape[d]);
  return RT_OK;
}

rt_status_t rt_interp_k_NDARRAY_SIZE(const rt_interp_call_t *call) {
  rt_tensor_t *out = call->outs[0];
  if (out->numel != 1) return RT_INTERP_ERROR(call, INTERNAL, "%s", "output must have one element");
  rt_interp_store_i(out, 0, call->args[0]->numel);
  return RT_OK;
}

/* dyn.reshape: the shape from newshape's values (0 copies the input dim at
 * that position unless allowzero, one -1 is inferred), the bytes copied. */
rt_status_t rt_interp_k_DYN_RESHAPE(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0], *s = call->args[1];
  const bool allowzero = rt_attrs_bool(call->attrs, "allowzero");
  if (s->rank != 1 || s->numel > RT_TENSOR_MAX_RANK) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "newshape must be a 1-d tensor of at most 8 values");
  }
  const int32_t rank = (int32_t)s->numel;
  int64_t dims[RT_TENSOR_MAX_RANK];
  int32_t infer = -1;
  int64_t known = 1;
  for (int32_t d = 0; d < rank; ++d) {
    int64_t v = rt_interp_load_i(s, d);
    if (v == 0 && !allowzero) {
      if (d >= x->rank) {
        return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "newshape[%d] = 0 copies input dim %d, "
                               "but the input has rank %d", d, d, x->rank);
      }
      v = x->shape[d];
    }
    if (v == -1) {
      if (infer >= 0) return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "newshape has more than one -1");
      infer = d;
      v = 1;
    } else if (v < 0) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "newshape[%d] = %lld is not a size, 0 or -1",
                             d, (long long)v);
    }
    dims[d] = v;
    if (v != 0 && known > INT64_MAX / v) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "newshape overflows");
    }
    known *= v;
  }
  if (infer >= 0) {
    if (known == 0 || x->numel % known != 0) {
      return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "cannot infer the -1 of newshape: %lld "
                             "elements over %lld", (long long)x->numel, (long long)known);
    }
    dims[infer] = x->numel / known;
    known = x->numel;
  }
  if (known != x->numel) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "cannot reshape %lld elements to a shape of "
                           "%lld", (long long)x->numel, (long long)known);
  }
  if (!call->outs[0]) {
    RT_RETURN_IF_ERROR(rt_tensor_create(call->allocator, x->dtype, rank, dims, &call->outs[0]));
  } else {
    RT_RETURN_IF_ERROR(rt_interp_check_shape(call, call->outs[0], rank, dims));
  }
  return copy_all(call);
}
