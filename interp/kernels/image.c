/* Reference kernels of the image ops (ir/op/image.c): image.resize2d and
 * nn.upsampling (which is resize2d with coordinate mode align_corners or
 * asymmetric and the default rounding, as topi.nn.upsampling).
 *
 * Following topi/image/resize.py, per output coordinate x (and likewise y):
 *   scale = in / out
 *   half_pixel:          in_x = (x + 0.5) * scale - 0.5
 *   pytorch_half_pixel:  the same, but 0 when out == 1
 *   align_corners:       in_x = (in - 1) / (out - 1) * x  (0 when out == 1)
 *   asymmetric:          in_x = x * scale
 *   tf_half_pixel_for_nn: in_x = (x + 0.5) * scale
 * nearest_neighbor picks round(in_x) by rounding_method: "round" (half to
 * even, TVM's round), "round_prefer_floor" ceil(in_x - 0.5),
 * "round_prefer_ceil" floor(in_x + 0.5), "floor" floor(in_x + 1e-5),
 * "ceil" ceil(in_x - 1e-5); "" means round under align_corners,
 * round_prefer_ceil under tf_half_pixel_for_nn and floor otherwise. linear
 * interpolates the four neighbours floor(in_x) + {0, 1}; cubic the sixteen
 * floor(in_x) + {-1, 0, 1, 2} with Keys' weights (cubic_alpha), optionally
 * dropping out-of-image taps and renormalizing (cubic_exclude). Source
 * indices are clamped to the image. Values are computed in double and
 * stored in the output's dtype. tf_crop_and_resize (roi) is not supported:
 * INVALID_ARGUMENT. */
#include <math.h>
#include <string.h>

#include "interp/kernels/kernels_impl.h"

typedef enum coord_e { C_HALF, C_PYTORCH, C_ALIGN, C_ASYM, C_TF_NN } coord_t;
typedef enum method_e { M_NEAREST, M_LINEAR, M_CUBIC } method_t;

typedef struct resize_t {
  coord_t coord;
  method_t method;
  const char *rounding;
  double alpha;
  bool exclude;
} resize_t;

static double in_coord(const resize_t *r, int64_t x, int64_t in, int64_t out) {
  const double scale = (double)in / (double)out;
  switch (r->coord) {
    case C_HALF: return ((double)x + 0.5) * scale - 0.5;
    case C_PYTORCH: return out > 1 ? ((double)x + 0.5) * scale - 0.5 : 0.0;
    case C_ALIGN: return out > 1 ? (double)(in - 1) / (double)(out - 1) * (double)x : 0.0;
    case C_ASYM: return (double)x * scale;
    default: return ((double)x + 0.5) * scale;
  }
}

static int64_t clamp(int64_t v, int64_t n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

static int64_t nearest(const resize_t *r, double v) {
  const char *m = r->rounding;
  double f;
  if (strcmp(m, "round_prefer_floor") == 0) {
    f = ceil(v - 0.5);
  } else if (strcmp(m, "round_prefer_ceil") == 0) {
    f = floor(v + 0.5);
  } else if (strcmp(m, "floor") == 0) {
    f = floor(v + 1e-5);
  } else if (strcmp(m, "ceil") == 0) {
    f = ceil(v - 1e-5);
  } else {
    f = rt_interp_round_even(v);
  }
  return (int64_t)f;
}

static void cubic_weights(double t, double a, double w[4]) {
  const double t2 = t * t, t3 = t2 * t;
  w[0] = a * (t3 - 2 * t2 + t);
  w[1] = (a + 2) * t3 - (3 + a) * t2 + 1;
  w[2] = -(a + 2) * t3 + (3 + 2 * a) * t2 - a * t;
  w[3] = -a * t3 + a * t2;
}

/* Taps (indices, clamped) and weights along one axis. */
static int32_t taps(const resize_t *r, int64_t o, int64_t in, int64_t out,
                    int64_t idx[4], double w[4]) {
  const double v = in_coord(r, o, in, out);
  if (r->method == M_NEAREST) {
    idx[0] = clamp(nearest(r, v), in);
    w[0] = 1;
    return 1;
  }
  const double f = floor(v);
  const int64_t base = (int64_t)f;
  const double t = v - f;
  if (r->method == M_LINEAR) {
    idx[0] = clamp(base, in);
    idx[1] = clamp(base + 1, in);
    w[0] = 1 - t;
    w[1] = t;
    return 2;
  }
  cubic_weights(t, r->alpha, w);
  double sum = 0;
  for (int32_t k = 0; k < 4; ++k) {
    int64_t j = base - 1 + k;
    if (r->exclude && (j < 0 || j >= in)) w[k] = 0;
    sum += w[k];
    idx[k] = clamp(j, in);
  }
  if (r->exclude) {
    for (int32_t k = 0; k < 4; ++k) w[k] /= sum;
  }
  return 4;
}

static rt_status_t resize(const rt_interp_call_t *call, const char *layout,
                          const resize_t *r) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  int64_t xs[4], xe[4], os[4], oe[4]; /* N, C, H, W */
  RT_RETURN_IF_ERROR(rt_interp_layout(call, "layout", layout, "NCHW", x, xs, xe));
  RT_RETURN_IF_ERROR(rt_interp_layout(call, "layout", layout, "NCHW", out, os, oe));
  if (oe[0] != xe[0] || oe[1] != xe[1]) {
    return RT_INTERP_ERROR(call, INTERNAL, "%s", "N or C differ between input and output");
  }
  if ((xe[2] == 0 || xe[3] == 0) && out->numel > 0) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "%s", "cannot resize an empty image");
  }
  for (int64_t h = 0; h < oe[2]; ++h) {
    int64_t yi[4], xi[4];
    double yw[4], xw[4];
    int32_t ny = taps(r, h, xe[2], oe[2], yi, yw);
    for (int64_t w = 0; w < oe[3]; ++w) {
      int32_t nx = taps(r, w, xe[3], oe[3], xi, xw);
      for (int64_t n = 0; n < oe[0]; ++n)
        for (int64_t c = 0; c < oe[1]; ++c) {
          double acc = 0;
          for (int32_t a = 0; a < ny; ++a) {
            double row = 0;
            for (int32_t b = 0; b < nx; ++b) {
              row += xw[b] * rt_interp_load_f(x, n * xs[0] + c * xs[1] + yi[a] * xs[2] + xi[b] * xs[3]);
            }
            acc += yw[a] * row;
          }
          int64_t o = n * os[0] + c * os[1] + h * os[2] + w * os[3];
          if (r->method == M_NEAREST) {
            rt_interp_convert(x, n * xs[0] + c * xs[1] + yi[0] * xs[2] + xi[0] * xs[3], out, o);
          } else {
            rt_interp_store_f(out, o, acc);
          }
        }
    }
  }
  return RT_OK;
}

static rt_status_t parse_method(const rt_interp_call_t *call, const char *m, method_t *out) {
  if (strcmp(m, "nearest_neighbor") == 0) {
    *out = M_NEAREST;
  } else if (strcmp(m, "linear") == 0 || strcmp(m, "bilinear") == 0) {
    *out = M_LINEAR;
  } else if (strcmp(m, "cubic") == 0 || strcmp(m, "bicubic") == 0) {
    *out = M_CUBIC;
  } else {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "method \"%s\" is not supported", m);
  }
  return RT_OK;
}

static const char *default_rounding(coord_t coord) {
  return coord == C_ALIGN ? "round" : coord == C_TF_NN ? "round_prefer_ceil" : "floor";
}

rt_status_t rt_interp_k_IMAGE_RESIZE2D(const rt_interp_call_t *call) {
  const rt_ir_attrs_t *at = call->attrs;
  resize_t r = {0};
  RT_RETURN_IF_ERROR(parse_method(call, rt_attrs_string(at, "method"), &r.method));
  const char *ct = rt_attrs_string(at, "coordinate_transformation_mode");
  if (strcmp(ct, "half_pixel") == 0) {
    r.coord = C_HALF;
  } else if (strcmp(ct, "pytorch_half_pixel") == 0) {
    r.coord = C_PYTORCH;
  } else if (strcmp(ct, "align_corners") == 0) {
    r.coord = C_ALIGN;
  } else if (strcmp(ct, "asymmetric") == 0) {
    r.coord = C_ASYM;
  } else if (strcmp(ct, "tf_half_pixel_for_nn") == 0) {
    r.coord = C_TF_NN;
  } else {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT,
                           "coordinate_transformation_mode \"%s\" is not supported", ct);
  }
  r.rounding = rt_attrs_string(at, "rounding_method");
  if (*r.rounding == '\0') r.rounding = default_rounding(r.coord);
  r.alpha = rt_attrs_float(at, "cubic_alpha");
  r.exclude = rt_attrs_int(at, "cubic_exclude") != 0;
  return resize(call, rt_attrs_string(at, "layout"), &r);
}

rt_status_t rt_interp_k_NN_UPSAMPLING(const rt_interp_call_t *call) {
  const rt_ir_attrs_t *at = call->attrs;
  resize_t r = {0};
  RT_RETURN_IF_ERROR(parse_method(call, rt_attrs_string(at, "method"), &r.method));
  r.coord = rt_attrs_bool(at, "align_corners") ? C_ALIGN : C_ASYM;
  r.rounding = default_rounding(r.coord);
  r.alpha = -0.5;
  return resize(call, rt_attrs_string(at, "layout"), &r);
}
