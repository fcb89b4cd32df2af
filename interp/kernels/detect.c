/* Reference kernels of the detection ops (ir/ops.def, h1's block in the
 * data-dependent rows): vision.onnx_nms and unique, as ONNX defines
 * NonMaxSuppression (opsets 10, 11) and Unique (opset 11). Each counts its
 * result first and creates its outputs at that size (call->outs[i] is
 * NULL for an output whose type has `?` dims; one the caller sized gets a
 * check and a copy).
 *
 * NonMaxSuppression, per batch and class: the boxes whose score is above
 * score_threshold (strictly), by score descending (the lower box index
 * first on ties), each kept unless its IoU with a box already kept is
 * above iou_threshold (strictly), until max_output_boxes_per_class are
 * kept. IoU is 0 when either box or their union has no area, as ONNX
 * Runtime computes it; corners may come in either order.
 *
 * Unique: the slices of x along axis (its elements when axis is None),
 * compared element by element in row-major order; equal slices form one
 * group. The groups come out in ascending lexicographic order (sorted) or
 * in the order of their first occurrence; indices are each group's first
 * occurrence, inverse_indices the group of every slice, counts its size.
 *
 * vision.roi_align (TVM's op; ONNX RoiAlign 10 and 16): bilinear samples
 * on a grid in every bin of every roi, averaged or maxed, as ONNX
 * Runtime computes them (see rt_interp_k_VISION_ROI_ALIGN). */
#include <math.h>
#include <string.h>

#include "interp/kernels/kernels_impl.h"
#include "ir/op/op_attrs.h"

/* Stable merge sort of a[0 .. n-1] (tmp: n more) by less(ctx, x, y). */
typedef bool (*less_fn)(const void *ctx, int64_t x, int64_t y);
static void merge_sort(int64_t *a, int64_t *tmp, int64_t n, less_fn less, const void *ctx) {
  for (int64_t w = 1; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = less(ctx, a[j], a[i]) ? a[j++] : a[i++];
      while (i < mid) tmp[k++] = a[i++];
      while (j < hi) tmp[k++] = a[j++];
    }
    memcpy(a, tmp, sizeof(int64_t) * (size_t)n);
  }
}

/* One float value of operand i (0-d or one element). */
static rt_status_t one_value(const rt_interp_call_t *call, int32_t i, const char *what) {
  if (rt_tensor_numel(call->args[i]) != 1) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s must hold one value, got %lld", what,
                           (long long)rt_tensor_numel(call->args[i]));
  }
  return RT_OK;
}

/* ---- vision.onnx_nms ------------------------------------------------------ */

typedef struct box_t {
  double ymin, xmin, ymax, xmax;
} box_t;

static box_t box_at(const double *b, bool center) {
  box_t r;
  if (center) { /* x_center, y_center, width, height */
    r.xmin = b[0] - b[2] / 2, r.xmax = b[0] + b[2] / 2;
    r.ymin = b[1] - b[3] / 2, r.ymax = b[1] + b[3] / 2;
  } else { /* y1, x1, y2, x2, either corner first */
    r.ymin = b[0] < b[2] ? b[0] : b[2], r.ymax = b[0] < b[2] ? b[2] : b[0];
    r.xmin = b[1] < b[3] ? b[1] : b[3], r.xmax = b[1] < b[3] ? b[3] : b[1];
  }
  return r;
}

static bool suppresses(box_t a, box_t b, double iou_threshold) {
  const double iw = (a.xmax < b.xmax ? a.xmax : b.xmax) - (a.xmin > b.xmin ? a.xmin : b.xmin);
  const double ih = (a.ymax < b.ymax ? a.ymax : b.ymax) - (a.ymin > b.ymin ? a.ymin : b.ymin);
  if (iw <= 0 || ih <= 0) return false;
  const double inter = iw * ih;
  const double area_a = (a.xmax - a.xmin) * (a.ymax - a.ymin), area_b = (b.xmax - b.xmin) * (b.ymax - b.ymin);
  const double uni = area_a + area_b - inter;
  if (area_a <= 0 || area_b <= 0 || uni <= 0) return false;
  return inter / uni > iou_threshold;
}

/* Candidates by score descending, the lower box index first on ties. */
static bool score_before(const void *ctx, int64_t x, int64_t y) {
  const double *s = ctx;
  return s[x] > s[y] || (s[x] == s[y] && x < y);
}

rt_status_t rt_interp_k_VISION_ONNX_NMS(const rt_interp_call_t *call) {
  const rt_attrs_onnx_nms_t at = rt_ir_attrs_onnx_nms(call->attrs);
  const rt_tensor_t *boxes = call->args[0], *scores = call->args[1];
  const int64_t nb = rt_tensor_shape(boxes)[0], n = rt_tensor_shape(boxes)[1];
  const int64_t nc = rt_tensor_shape(scores)[1];
  RT_RETURN_IF_ERROR(one_value(call, 2, "max_output_boxes_per_class"));
  RT_RETURN_IF_ERROR(one_value(call, 3, "iou_threshold"));
  RT_RETURN_IF_ERROR(one_value(call, 4, "score_threshold"));
  int64_t max_out = rt_interp_load_i(call->args[2], 0);
  const double iou_t = rt_interp_load_f(call->args[3], 0), score_t = rt_interp_load_f(call->args[4], 0);
  if (!(iou_t >= 0 && iou_t <= 1)) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "iou_threshold must be in [0, 1], got %g", iou_t);
  }
  if (max_out < 0) max_out = 0;
  const int64_t per_class = max_out < n ? max_out : n;
  double *b = NULL, *s = NULL;
  int64_t *cand = NULL, *tmp = NULL, *kept = NULL, *rows = NULL;
  rt_tensor_t *y = NULL;
  rt_status_t st = rt_interp_load_all_f(call, boxes, &b);
  if (!st) st = rt_interp_load_all_f(call, scores, &s);
  if (!st) st = rt_interp_scratch(call, n > 0 ? n : 1, sizeof(int64_t), false, (void **)&cand);
  if (!st) st = rt_interp_scratch(call, n > 0 ? n : 1, sizeof(int64_t), false, (void **)&tmp);
  if (!st) st = rt_interp_scratch(call, n > 0 ? n : 1, sizeof(int64_t), false, (void **)&kept);
  /* at most per_class rows for each (batch, class): nb * nc * n <= the scores' size */
  if (!st) st = rt_interp_scratch(call, 3 * (nb * nc * per_class) + 1, sizeof(int64_t), false, (void **)&rows);
  int64_t count = 0;
  for (int64_t bi = 0; !st && bi < nb; ++bi) {
    for (int64_t ci = 0; ci < nc && per_class > 0; ++ci) {
      const double *cs = s + (bi * nc + ci) * n;
      int64_t nk = 0, ncand = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (cs[i] > score_t) cand[ncand++] = i;
      }
      merge_sort(cand, tmp, ncand, score_before, cs);
      for (int64_t k = 0; k < ncand && nk < per_class; ++k) {
        const box_t c = box_at(b + (bi * n + cand[k]) * 4, at.center_point_box == 1);
        bool drop = false;
        for (int64_t j = 0; j < nk && !drop; ++j) {
          drop = suppresses(box_at(b + (bi * n + kept[j]) * 4, at.center_point_box == 1), c, iou_t);
        }
        if (drop) continue;
        kept[nk++] = cand[k];
        rows[3 * count] = bi, rows[3 * count + 1] = ci, rows[3 * count + 2] = cand[k];
        ++count;
      }
    }
  }
  const int64_t shape[2] = {count, 3};
  if (!st) st = rt_tensor_create(call->allocator, RT_DTYPE_INT64, 2, shape, &y);
  if (!st) {
    if (count > 0) memcpy(rt_tensor_data(y), rows, sizeof(int64_t) * (size_t)(3 * count));
    st = rt_interp_deliver(call, 0, y, "an output was sized differently from the data's count");
  }
  rt_interp_scratch_free(call, b);
  rt_interp_scratch_free(call, s);
  rt_interp_scratch_free(call, cand);
  rt_interp_scratch_free(call, tmp);
  rt_interp_scratch_free(call, kept);
  rt_interp_scratch_free(call, rows);
  return st;
}

/* ---- unique --------------------------------------------------------------- */

/* The slices, slice-major: slice i is f[i * len .. (i + 1) * len - 1] (or
 * v for integers; u: compare v as unsigned). */
typedef struct slices_t {
  const double *f;
  const int64_t *v;
  bool u;
  int64_t len;
} slices_t;

/* -1, 0, 1: slice x against slice y, element by element. */
static int slice_cmp(const slices_t *sl, int64_t x, int64_t y) {
  for (int64_t j = 0; j < sl->len; ++j) {
    const int64_t a = x * sl->len + j, b = y * sl->len + j;
    if (sl->f) {
      if (sl->f[a] != sl->f[b]) return sl->f[a] < sl->f[b] ? -1 : 1;
    } else if (sl->u) {
      if (sl->v[a] != sl->v[b]) return (uint64_t)sl->v[a] < (uint64_t)sl->v[b] ? -1 : 1;
    } else if (sl->v[a] != sl->v[b]) {
      return sl->v[a] < sl->v[b] ? -1 : 1;
    }
  }
  return 0;
}

static bool slice_before(const void *ctx, int64_t x, int64_t y) {
  const int c = slice_cmp(ctx, x, y);
  return c < 0 || (c == 0 && x < y);
}

static bool index_before(const void *ctx, int64_t x, int64_t y) {
  const int64_t *first = ctx;
  return first[x] < first[y];
}

rt_status_t rt_interp_k_UNIQUE(const rt_interp_call_t *call) {
  const rt_attrs_unique_t at = rt_ir_attrs_unique(call->attrs);
  const rt_tensor_t *x = call->args[0];
  const int32_t r = rt_tensor_rank(x);
  const int64_t *shape = rt_tensor_shape(x);
  const int64_t numel = rt_tensor_numel(x);
  int32_t axis = 0;
  int64_t outer = 1, n = numel, inner = 1;
  if (!at.axis_is_none) {
    RT_RETURN_IF_ERROR(rt_interp_axis(call, at.axis, r, &axis));
    n = shape[axis];
    for (int32_t d = 0; d < axis; ++d) outer *= shape[d];
    for (int32_t d = axis + 1; d < r; ++d) inner *= shape[d];
  }
  const int64_t len = outer * inner, cap = n > 0 ? n : 1;
  const bool is_float = rt_interp_class(rt_tensor_dtype(x)) == RT_INTERP_FLOAT;
  double *fx = NULL, *fs = NULL;
  int64_t *ix = NULL, *is = NULL, *order = NULL, *tmp = NULL, *group = NULL, *first = NULL, *cnt = NULL,
          *gorder = NULL, *pos = NULL;
  rt_tensor_t *outs[4] = {NULL, NULL, NULL, NULL};
  rt_status_t st = is_float ? rt_interp_load_all_f(call, x, &fx) : rt_interp_load_all_i(call, x, &ix);
  /* slice-major copy: element (o, i, k) of x at slice i, position o * inner + k */
  if (!st) {
    st = is_float ? rt_interp_scratch(call, numel > 0 ? numel : 1, sizeof(double), false, (void **)&fs)
                  : rt_interp_scratch(call, numel > 0 ? numel : 1, sizeof(int64_t), false, (void **)&is);
  }
  int64_t **const idx[] = {&order, &tmp, &group, &first, &cnt, &gorder, &pos};
  for (size_t k = 0; k < RT_COUNTOF(idx) && !st; ++k) {
    st = rt_interp_scratch(call, cap, sizeof(int64_t), false, (void **)idx[k]);
  }
  int64_t ng = 0;
  if (!st) {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t k = 0; k < inner; ++k) {
          const int64_t src = (o * n + i) * inner + k, dst = i * len + o * inner + k;
          if (is_float) fs[dst] = fx[src];
          else is[dst] = ix[src];
        }
      }
    }
    const slices_t sl = {fs, is, rt_interp_class(rt_tensor_dtype(x)) == RT_INTERP_UINT, len};
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    merge_sort(order, tmp, n, slice_before, &sl);
    for (int64_t k = 0; k < n; ++k) {
      if (k == 0 || slice_cmp(&sl, order[k - 1], order[k]) != 0) {
        first[ng] = order[k]; /* the lowest index of its group: ties sort by index */
        cnt[ng++] = 0;
      }
      group[order[k]] = ng - 1;
      cnt[ng - 1]++;
    }
    for (int64_t g = 0; g < ng; ++g) gorder[g] = g;
    if (!at.sorted) merge_sort(gorder, tmp, ng, index_before, first);
    for (int64_t u = 0; u < ng; ++u) pos[gorder[u]] = u;
  }
  int64_t vshape[RT_TENSOR_MAX_RANK];
  int32_t vrank = 1;
  if (at.axis_is_none) {
    vshape[0] = ng;
  } else {
    vrank = r;
    for (int32_t d = 0; d < r; ++d) vshape[d] = d == axis ? ng : shape[d];
  }
  if (!st) st = rt_tensor_create(call->allocator, rt_tensor_dtype(x), vrank, vshape, &outs[0]);
  if (!st) st = rt_tensor_create(call->allocator, RT_DTYPE_INT64, 1, &ng, &outs[1]);
  if (!st) st = rt_tensor_create(call->allocator, RT_DTYPE_INT64, 1, &n, &outs[2]);
  if (!st) st = rt_tensor_create(call->allocator, RT_DTYPE_INT64, 1, &ng, &outs[3]);
  if (!st) {
    int64_t *indices = rt_tensor_data(outs[1]), *inverse = rt_tensor_data(outs[2]), *counts = rt_tensor_data(outs[3]);
    for (int64_t u = 0; u < ng; ++u) {
      indices[u] = first[gorder[u]];
      counts[u] = cnt[gorder[u]];
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t k = 0; k < inner; ++k) {
          rt_interp_copy_elem(x, (o * n + first[gorder[u]]) * inner + k, outs[0], (o * ng + u) * inner + k);
        }
      }
    }
    for (int64_t i = 0; i < n; ++i) inverse[i] = pos[group[i]];
  }
  for (int32_t i = 0; i < 4; ++i) {
    if (!st) {
      st = rt_interp_deliver(call, i, outs[i], "an output was sized differently from the data's count");
    } else {
      rt_tensor_release(outs[i]);
    }
    outs[i] = NULL;
  }
  rt_interp_scratch_free(call, fx);
  rt_interp_scratch_free(call, fs);
  rt_interp_scratch_free(call, ix);
  rt_interp_scratch_free(call, is);
  for (size_t k = 0; k < RT_COUNTOF(idx); ++k) rt_interp_scratch_free(call, *idx[k]);
  return st;
}

/* ---- vision.roi_align ----------------------------------------------------- */

/* The bilinear sample of plane p (h x w) at (y, x), as ONNX Runtime's
 * RoiAlign takes it: outside [-1, h] x [-1, w] it is 0 (every weight 0);
 * otherwise coordinates below 0 clamp to 0 and the last row or column
 * takes the whole weight. mode max takes the largest of the four weighted
 * corners instead of their sum. */
static double roi_sample(const double *p, int64_t h, int64_t w, double y, double x, bool max) {
  if (h == 0 || w == 0 || y < -1.0 || y > (double)h || x < -1.0 || x > (double)w) return 0; /* an empty plane: 0 */
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y0 = (int64_t)y, x0 = (int64_t)x, y1, x1;
  if (y0 >= h - 1) {
    y0 = y1 = h - 1;
    y = (double)y0;
  } else {
    y1 = y0 + 1;
  }
  if (x0 >= w - 1) {
    x0 = x1 = w - 1;
    x = (double)x0;
  } else {
    x1 = x0 + 1;
  }
  const double ly = y - (double)y0, lx = x - (double)x0, hy = 1 - ly, hx = 1 - lx;
  const double v[4] = {hy * hx * p[y0 * w + x0], hy * lx * p[y0 * w + x1], ly * hx * p[y1 * w + x0],
                       ly * lx * p[y1 * w + x1]};
  if (!max) return v[0] + v[1] + v[2] + v[3];
  double m = v[0];
  for (int32_t k = 1; k < 4; ++k) m = v[k] > m ? v[k] : m;
  return m;
}

/* Per roi (batch b, corners scaled by spatial_scale, shifted by -0.5 when
 * aligned, else at least 1 x 1): each of the ph x pw bins samples a grid
 * of sample_ratio (or ceil(roi size / bins)) points per side at their
 * centres; avg averages the samples, max takes the largest (0 when a bin
 * has no sample). */
rt_status_t rt_interp_k_VISION_ROI_ALIGN(const rt_interp_call_t *call) {
  const rt_attrs_roi_align_t at = rt_ir_attrs_roi_align(call->attrs);
  const rt_tensor_t *x = call->args[0], *rois = call->args[1];
  rt_tensor_t *out = call->outs[0];
  const int64_t *xs = rt_tensor_shape(x);
  const int64_t n = xs[0], c = xs[1], h = xs[2], w = xs[3];
  const int64_t nr = rt_tensor_shape(rois)[0], ph = rt_tensor_shape(out)[2], pw = rt_tensor_shape(out)[3];
  const bool max = strcmp(at.mode, "max") == 0;
  const double scale = at.spatial_scale, off = at.aligned ? 0.5 : 0.0;
  double *xf = NULL, *rf = NULL, *of = NULL;
  rt_status_t st = rt_interp_load_all_f(call, x, &xf);
  if (!st) st = rt_interp_load_all_f(call, rois, &rf);
  if (!st) st = rt_interp_scratch(call, rt_tensor_numel(out) > 0 ? rt_tensor_numel(out) : 1, sizeof(double), true,
                                  (void **)&of);
  for (int64_t r = 0; !st && r < nr; ++r) {
    const double *roi = rf + r * 5;
    if (!(roi[0] >= 0 && roi[0] < (double)n)) {
      st = RT_INTERP_ERROR(call, INVALID_ARGUMENT, "roi %lld's batch index %g is outside [0, %lld)", (long long)r,
                           roi[0], (long long)n);
      break;
    }
    const int64_t b = (int64_t)roi[0];
    const double x0 = roi[1] * scale - off, y0 = roi[2] * scale - off;
    double rw = roi[3] * scale - off - x0, rh = roi[4] * scale - off - y0;
    if (!at.aligned) {
      rw = rw > 1 ? rw : 1;
      rh = rh > 1 ? rh : 1;
    }
    if (!isfinite(x0) || !isfinite(y0) || !(fabs(rh) < 1e9) || !(fabs(rw) < 1e9)) {
      st = RT_INTERP_ERROR(call, INVALID_ARGUMENT, "roi %lld is not finite or too large", (long long)r);
      break;
    }
    const double bh = rh / (double)ph, bw = rw / (double)pw;
    const int64_t gh = at.sample_ratio > 0 ? at.sample_ratio : (int64_t)ceil(rh / (double)ph);
    const int64_t gw = at.sample_ratio > 0 ? at.sample_ratio : (int64_t)ceil(rw / (double)pw);
    if (gh * gw > ((int64_t)1 << 24)) {
      st = RT_INTERP_ERROR(call, INVALID_ARGUMENT, "roi %lld needs %lld x %lld samples per bin, more than 2^24",
                           (long long)r, (long long)gh, (long long)gw);
      break;
    }
    const double count = gh * gw > 0 ? (double)(gh * gw) : 1.0;
    for (int64_t ci = 0; ci < c; ++ci) {
      const double *plane = xf + (b * c + ci) * h * w;
      for (int64_t i = 0; i < ph; ++i) {
        for (int64_t j = 0; j < pw; ++j) {
          double acc = 0;
          bool any = false;
          for (int64_t iy = 0; iy < gh; ++iy) {
            const double y = y0 + (double)i * bh + ((double)iy + 0.5) * bh / (double)gh;
            for (int64_t ix = 0; ix < gw; ++ix) {
              const double xx = x0 + (double)j * bw + ((double)ix + 0.5) * bw / (double)gw;
              const double v = roi_sample(plane, h, w, y, xx, max);
              if (!max) {
                acc += v;
              } else if (!any || v > acc) {
                acc = v;
              }
              any = true;
            }
          }
          of[((r * c + ci) * ph + i) * pw + j] = max ? acc : acc / count;
        }
      }
    }
  }
  if (!st) rt_interp_store_span_f(out, 0, rt_tensor_numel(out), of);
  rt_interp_scratch_free(call, xf);
  rt_interp_scratch_free(call, rf);
  rt_interp_scratch_free(call, of);
  return st;
}
