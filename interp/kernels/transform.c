/* Reference kernels of the data-movement, creation and shape ops
 * (ir/op/transform.c).
 *
 * Data movement copies element bytes, so every dtype works and values are
 * exact. Each kernel is written in gather form: for every output element
 * (row-major), compute the source multi-index from the op's definition and
 * copy. The busiest ones copy whole runs instead: reshapes one memcpy,
 * concatenate and split one block per index of the dims before the axis,
 * transpose, strided_slice and broadcast_to one strided row at a time
 * (rt_interp_copy_strided). Output shapes come from the type relation.
 * transpose, strided_slice, take, gather, nn.pad, layout_transform and
 * depth_to_space/space_to_depth read the op's plan (ir/op/plan_transform.h,
 * computed from the concrete tensors by the relations' own code) and check
 * that its output shape agrees; the others read their typed attributes.
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
#include "ir/op/plan.h"

/* ---- reshapes: a byte copy ------------------------------------------------ */

static rt_status_t copy_all(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  if (out->numel != x->numel) {
    return RT_INTERP_ERROR(call, INTERNAL,
                           "output has %lld elements, input %lld",
                           (long long)out->numel, (long long)x->numel);
  }
  if (!rt_dtype_equal(out->dtype, x->dtype)) {
    return RT_INTERP_ERROR(call, INTERNAL, "%s", "output dtype differs from the input's");
  }
  if (out->numel > 0) {
    memcpy(rt_tensor_data(out), rt_tensor_data(x), (size_t)x->numel * rt_dtype_size(x->dtype));
  }
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
  rt_plan_input_t in;
  rt_ir_plan_input_of_tensor(x, &in);
  rt_plan_transpose_t p;
  RT_RETURN_IF_ERROR(rt_interp_plan_status(call, rt_ir_plan_transpose(call->attrs, 1, &in, &p)));
  const int32_t *perm = p.perm;
  int64_t istride[RT_TENSOR_MAX_RANK], pstride[RT_TENSOR_MAX_RANK], len;
  rt_interp_strides(rank, x->shape, istride);
  RT_RETURN_IF_ERROR(rt_interp_check_shape(call, out, rank, p.out_shape));
  /* Output dim d walks input dim perm[d]. */
  for (int32_t d = 0; d < rank; ++d) pstride[d] = istride[perm[d]];
  const int64_t rows = rt_interp_rows(rank, out->shape, out->numel, &len);
  const size_t esz = rt_dtype_size(x->dtype);
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t src = rt_interp_row_start(row, rank, out->shape, pstride);
    rt_interp_copy_strided((char *)rt_tensor_data(out) + (size_t)(row * len) * esz,
                           (const char *)rt_tensor_data(x) + (size_t)src * esz,
                           rank > 0 ? pstride[rank - 1] : 0, len, esz);
  }
  return RT_OK;
}

/* Per index of the dims before `axis`, each input's block (its extent
 * along axis times everything after) follows the previous one's. */
rt_status_t rt_interp_k_CONCATENATE(const rt_interp_call_t *call) {
  rt_tensor_t *out = call->outs[0];
  const int32_t n = call->nargs;
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_ir_attrs_concatenate(call->attrs).axis,
                                    out->rank, &axis));
  int64_t outer = 1, inner = 1, total = 0;
  for (int32_t d = 0; d < axis; ++d) outer *= out->shape[d];
  for (int32_t d = axis + 1; d < out->rank; ++d) inner *= out->shape[d];
  for (int32_t k = 0; k < n; ++k) {
    const rt_tensor_t *x = call->args[k];
    if (x->rank != out->rank || !rt_dtype_equal(x->dtype, out->dtype)) {
      return RT_INTERP_ERROR(call, INTERNAL, "input %d does not fit the output", k);
    }
    total += x->shape[axis];
  }
  if (total != out->shape[axis]) {
    return RT_INTERP_ERROR(call, INTERNAL, "%s", "the inputs do not fill the output's axis");
  }
  const size_t esz = rt_dtype_size(out->dtype);
  char *dst = rt_tensor_data(out);
  for (int64_t o = 0; o < outer; ++o)
    for (int32_t k = 0; k < n; ++k) {
      const rt_tensor_t *x = call->args[k];
      const size_t block = (size_t)(x->shape[axis] * inner) * esz;
      if (block == 0) continue;
      memcpy(dst, (const char *)rt_tensor_data(x) + (size_t)o * block, block);
      dst += block;
    }
  return RT_OK;
}

rt_status_t rt_interp_k_STACK(const rt_interp_call_t *call) {
  rt_tensor_t *out = call->outs[0];
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_ir_attrs_stack(call->attrs).axis,
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
  RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_ir_attrs_split(call->attrs).axis,
                                    x->rank, &axis));
  /* Per index of the dims before axis: output k's block starts `offset`
   * rows (along axis) into the input's. */
  int64_t offset = 0, outer = 1, inner = 1;
  for (int32_t d = 0; d < axis; ++d) outer *= x->shape[d];
  for (int32_t d = axis + 1; d < x->rank; ++d) inner *= x->shape[d];
  const size_t esz = rt_dtype_size(x->dtype);
  const size_t xblock = (size_t)(x->shape[axis] * inner) * esz;
  for (int32_t k = 0; k < call->nouts; ++k) {
    rt_tensor_t *out = call->outs[k];
    if (out->rank != x->rank || offset + out->shape[axis] > x->shape[axis] ||
        !rt_dtype_equal(out->dtype, x->dtype) || out->numel != outer * out->shape[axis] * inner) {
      return RT_INTERP_ERROR(call, INTERNAL, "output %d does not fit the input", k);
    }
    const size_t block = (size_t)(out->shape[axis] * inner) * esz;
    for (int64_t o = 0; o < outer && block > 0; ++o) {
      memcpy((char *)rt_tensor_data(out) + (size_t)o * block,
             (const char *)rt_tensor_data(x) + (size_t)o * xblock + (size_t)(offset * inner) * esz,
             block);
    }
    offset += out->shape[axis];
  }
  return RT_OK;
}

/* ---- strided_slice ---------------------------------------------------------- */

/* The plan (rt_ir_plan_strided_slice: topi's canonicalization) gives each
 * dim's first source index, stride and extent. */
rt_status_t rt_interp_k_STRIDED_SLICE(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const int32_t rank = x->rank;
  rt_plan_input_t in;
  rt_ir_plan_input_of_tensor(x, &in);
  rt_plan_strided_slice_t p;
  RT_RETURN_IF_ERROR(rt_interp_plan_status(call, rt_ir_plan_strided_slice(call->attrs, 1, &in, &p)));
  RT_RETURN_IF_ERROR(rt_interp_check_shape(call, out, rank, p.extent));
  /* Source of output index idx: sum over d of (begin[d] + idx[d] *
   * stride[d]) * xstride[d]. */
  int64_t xstride[RT_TENSOR_MAX_RANK], step[RT_TENSOR_MAX_RANK], base = 0, len;
  rt_interp_strides(rank, x->shape, xstride);
  for (int32_t d = 0; d < rank; ++d) {
    step[d] = p.stride[d] * xstride[d];
    base += p.begin[d] * xstride[d];
  }
  const int64_t rows = rt_interp_rows(rank, out->shape, out->numel, &len);
  const size_t esz = rt_dtype_size(x->dtype);
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t src = base + rt_interp_row_start(row, rank, out->shape, step);
    rt_interp_copy_strided((char *)rt_tensor_data(out) + (size_t)(row * len) * esz,
                           (const char *)rt_tensor_data(x) + (size_t)src * esz,
                           rank > 0 ? step[rank - 1] : 0, len, esz);
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
  rt_plan_input_t in[2];
  rt_ir_plan_input_of_tensor(x, &in[0]);
  rt_ir_plan_input_of_tensor(ind, &in[1]);
  rt_plan_take_t p;
  RT_RETURN_IF_ERROR(rt_interp_plan_status(call, rt_ir_plan_take(call->attrs, 2, in, &p)));
  const bool flat = p.flat;
  const int32_t xrank = flat ? 1 : x->rank;
  int64_t flat_shape = x->numel;
  const int64_t *xshape = flat ? &flat_shape : x->shape;
  const int32_t axis = p.axis, bd = p.batch_dims;
  const int32_t nidx = ind->rank - bd; /* index dims placed at axis */
  const int64_t n = xshape[axis];
  int64_t oi[RT_TENSOR_MAX_RANK], ii[RT_TENSOR_MAX_RANK];
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, oi);
    int64_t iflat = 0;
    for (int32_t d = 0; d < bd; ++d) iflat = iflat * ind->shape[d] + oi[d];
    for (int32_t d = 0; d < nidx; ++d) iflat = iflat * ind->shape[bd + d] + oi[axis + d];
    int64_t v = rt_interp_load_i(ind, iflat);
    if (p.mode == RT_TAKE_WRAP) {
      if (n == 0) return out_of_range(call, v, n);
      v %= n;
      if (v < 0) v += n;
    } else if (p.mode == RT_TAKE_FAST) {
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
  rt_plan_input_t in[2];
  rt_ir_plan_input_of_tensor(x, &in[0]);
  rt_ir_plan_input_of_tensor(ind, &in[1]);
  rt_plan_gather_t p;
  RT_RETURN_IF_ERROR(rt_interp_plan_status(call, rt_ir_plan_gather(call->attrs, 2, in, &p)));
  const int32_t axis = p.axis;
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
  const int64_t bd = rt_ir_attrs_gather_nd(call->attrs).batch_dims;
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
  const int32_t r = out->rank;
  int64_t sx[RT_TENSOR_MAX_RANK], len;
  rt_interp_bcast_strides(r, out->shape, x->rank, x->shape, sx);
  const int64_t rows = rt_interp_rows(r, out->shape, out->numel, &len);
  const size_t esz = rt_dtype_size(x->dtype);
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t src = rt_interp_row_start(row, r, out->shape, sx);
    rt_interp_copy_strided((char *)rt_tensor_data(out) + (size_t)(row * len) * esz,
                           (const char *)rt_tensor_data(x) + (size_t)src * esz,
                           r > 0 ? sx[r - 1] : 0, len, esz);
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
  const rt_attrs_repeat_t a = rt_ir_attrs_repeat(call->attrs);
  const int64_t reps = a.repeats;
  if (reps < 1) return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "repeats %lld must be >= 1", (long long)reps);
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_interp_axis(call, a.axis, x->rank, &axis));
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
  const rt_attrs_reverse_t a = rt_ir_attrs_reverse(call->attrs);
  if (a.axis_is_none) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "requires attribute 'axis'");
  }
  int32_t axis;
  RT_RETURN_IF_ERROR(rt_interp_axis(call, a.axis, x->rank, &axis));
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
  rt_plan_input_t in[2];
  rt_ir_plan_input_of_tensor(x, &in[0]);
  rt_ir_plan_input_of_tensor(pv, &in[1]);
  rt_plan_pad_t p;
  RT_RETURN_IF_ERROR(rt_interp_plan_status(call, rt_ir_plan_pad(call->attrs, 2, in, &p)));
  const bool edge = p.mode == RT_PAD_EDGE;
  const bool reflect = p.mode == RT_PAD_REFLECT;
  const int64_t *before = p.before;
  RT_RETURN_IF_ERROR(rt_interp_check_shape(call, out, x->rank, p.out_shape));
  if (!edge && !reflect && pv->numel != 1) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "pad_value must have one element");
  }
  /* Each dim's source index (or -1: outside, the pad value) is computed
   * once per output position along that dim; an element reads the maps of
   * its indices. */
  const int32_t rank = x->rank;
  int64_t total = 0, first[RT_TENSOR_MAX_RANK];
  for (int32_t d = 0; d < rank; ++d) {
    first[d] = total;
    total += out->shape[d];
  }
  int64_t *map = NULL;
  RT_RETURN_IF_ERROR(rt_interp_scratch(call, total, sizeof(int64_t), false, (void **)&map));
  for (int32_t d = 0; d < rank; ++d) {
    const int64_t n = x->shape[d];
    for (int64_t o = 0; o < out->shape[d]; ++o) {
      int64_t j = o - before[d];
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
          j = -1;
        }
      }
      map[first[d] + o] = j;
    }
  }
  /* The pad value's bytes in the output dtype: converted into element 0,
   * which is rewritten with its own value below. */
  const size_t esz = rt_dtype_size(out->dtype);
  unsigned char fill[16] = {0};
  if (!edge && !reflect && out->numel > 0 && esz <= sizeof fill) {
    rt_interp_convert(pv, 0, out, 0);
    memcpy(fill, rt_tensor_data(out), esz);
  }
  int64_t xstride[RT_TENSOR_MAX_RANK], idx[RT_TENSOR_MAX_RANK], len;
  rt_interp_strides(rank, x->shape, xstride);
  const int64_t rows = rt_interp_rows(rank, out->shape, out->numel, &len);
  const char *src = rt_tensor_data(x);
  char *dst = rt_tensor_data(out);
  for (int64_t row = 0; row < rows; ++row) {
    /* The row's source start from the maps of its leading indices. */
    rt_interp_unravel(row, rank > 0 ? rank - 1 : 0, out->shape, idx);
    bool inside = true;
    int64_t base = 0;
    for (int32_t d = 0; d + 1 < rank; ++d) {
      const int64_t j = map[first[d] + idx[d]];
      if (j < 0) inside = false;
      base += j * xstride[d];
    }
    const int64_t *last = rank > 0 ? map + first[rank - 1] : NULL;
    for (int64_t k = 0; k < len; ++k) {
      const int64_t j = last ? last[k] : 0;
      char *o = dst + (size_t)(row * len + k) * esz;
      if (inside && j >= 0) {
        memcpy(o, src + (size_t)(base + j) * esz, esz);
      } else if (esz <= sizeof fill) {
        memcpy(o, fill, esz);
      } else {
        rt_interp_convert(pv, 0, out, row * len + k);
      }
    }
  }
  rt_interp_scratch_free(call, map);
  return RT_OK;
}

/* ---- layout_transform -------------------------------------------------------- */

/* The plan (rt_ir_plan_layout_transform) maps each source axis to the
 * destination axes holding its letter's coordinate. */
rt_status_t rt_interp_k_LAYOUT_TRANSFORM(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  rt_plan_input_t in;
  rt_ir_plan_input_of_tensor(x, &in);
  rt_plan_layout_transform_t p;
  RT_RETURN_IF_ERROR(rt_interp_plan_status(call, rt_ir_plan_layout_transform(call->attrs, 1, &in, &p)));
  RT_RETURN_IF_ERROR(rt_interp_check_shape(call, out, p.dst_rank, p.out_shape));
  int64_t oi[RT_TENSOR_MAX_RANK];
  const size_t esz = rt_dtype_size(out->dtype);
  for (int64_t i = 0; i < out->numel; ++i) {
    rt_interp_unravel(i, out->rank, out->shape, oi);
    bool inside = true;
    int64_t srcflat = 0;
    for (int32_t k = 0; k < p.src_rank; ++k) {
      /* The logical coordinate of this axis' letter from dst's index. */
      const int32_t ds = p.dst_split[k];
      int64_t coord = oi[p.dst_primal[k]] * p.dst_inner[k] + (ds >= 0 ? oi[ds] : 0);
      if (coord >= x->shape[p.src_primal[k]] * p.src_inner[k]) inside = false;
      int64_t v = p.src_factor[k] > 0 ? coord % p.src_factor[k] : coord / p.src_inner[k];
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
  RT_RETURN_IF_ERROR(rt_interp_axis(call, rt_ir_attrs_one_hot(call->attrs).axis, out->rank, &axis));
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
 * topi; the plan gives the mode, the block size and where N, C, H, W are
 * in the layout. */
static rt_status_t subpixel(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  rt_plan_input_t in;
  rt_ir_plan_input_of_tensor(x, &in);
  rt_plan_subpixel_t p;
  RT_RETURN_IF_ERROR(rt_interp_plan_status(call, rt_ir_plan_subpixel(call->op, call->attrs, 1, &in, &p)));
  RT_RETURN_IF_ERROR(rt_interp_check_shape(call, out, 4, p.out_shape));
  const bool to_space = p.to_space;
  const int64_t b = p.block_size;
  const bool crd = p.mode == RT_SUBPIXEL_CRD;
  int64_t xs[4], xe[4], os[4], oe[4]; /* N, C, H, W */
  int64_t xstride[4], ostride[4];
  rt_interp_strides(4, x->shape, xstride);
  rt_interp_strides(4, out->shape, ostride);
  for (int32_t k = 0; k < 4; ++k) {
    xs[k] = xstride[p.pos[k]];
    xe[k] = x->shape[p.pos[k]];
    os[k] = ostride[p.pos[k]];
    oe[k] = out->shape[p.pos[k]];
  }
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

rt_status_t rt_interp_k_NN_DEPTH_TO_SPACE(const rt_interp_call_t *call) { return subpixel(call); }
rt_status_t rt_interp_k_NN_SPACE_TO_DEPTH(const rt_interp_call_t *call) { return subpixel(call); }

/* ---- creation ---------------------------------------------------------------- */

static rt_status_t fill(const rt_interp_call_t *call, int64_t v) {
  rt_tensor_t *out = call->outs[0];
  if (out->numel == 0) return RT_OK;
  rt_interp_store_i(out, 0, v);
  rt_interp_fill_from_first(out);
  return RT_OK;
}

rt_status_t rt_interp_k_ZEROS(const rt_interp_call_t *call) { return fill(call, 0); }
rt_status_t rt_interp_k_ONES(const rt_interp_call_t *call) { return fill(call, 1); }

rt_status_t rt_interp_k_FULL(const rt_interp_call_t *call) {
  const rt_tensor_t *v = call->args[0];
  rt_tensor_t *out = call->outs[0];
  if (v->numel != 1) return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "fill_value must be a scalar");
  if (out->numel == 0) return RT_OK;
  rt_interp_convert(v, 0, out, 0);
  rt_interp_fill_from_first(out);
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
    const rt_attrs_arange_t a = rt_ir_attrs_arange(call->attrs);
    const rt_dtype_t dt = a.dtype_is_none ? RT_DTYPE_FLOAT32 : a.dtype;
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
  const bool allowzero = rt_ir_attrs_dyn_reshape(call->attrs).allowzero;
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
