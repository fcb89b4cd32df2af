/* Reference kernels of the Winograd convolution ops (ir/op/winograd.c):
 *   nn.contrib_conv2d_winograd_weight_transform: U[a, b, o, i] =
 *     sum_{y, x} G[a, y] w[o, i, y, x] G[b, x] (stored packed with pack=P);
 *   nn.contrib_conv2d_winograd_without_weight_transform: per image n and
 *     m x m output tile (ty, tx), with d_c the alpha x alpha input patch of
 *     channel c at rows ty*m - pt .., columns tx*m - pl .. (zero outside
 *     the image):
 *       V_c = B^T d_c B,  M[a, b, o] = sum_c U'[a, b, c, o] V_c[a, b],
 *       out[n, o, ty*m + i, tx*m + j] = (A^T M[., ., o] A)[i, j]
 *     for the positions inside the output.
 * Plain loops from the op's plan (rt_ir_plan_winograd*, the matrices of
 * rt_ir_winograd_matrices), every sum in double (a sum over c in the
 * order c = 0, 1, ...), tensors read and written as spans
 * (rt_interp_load_span_f / rt_interp_store_span_f: any float dtype) and
 * the convolution's sums done as one loop over tiles per (a, b) and
 * input channel, so memory streams in order. These
 * are the algorithm's own reference; the differential suite checks the
 * compiled kernels against them and test_winograd checks them against the
 * direct nn.conv2d reference kernel. */

#include "interp/kernels/kernels_impl.h"
#include "ir/op/plan.h"

#define AMAX RT_WINOGRAD_MAX_ALPHA

rt_status_t rt_interp_k_NN_WINOGRAD_WEIGHT_TRANSFORM(const rt_interp_call_t *call) {
  const rt_tensor_t *w = call->args[0];
  rt_tensor_t *out = call->outs[0];
  rt_plan_input_t in;
  rt_ir_plan_input_of_tensor(w, &in);
  rt_plan_winograd_weight_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_winograd_weight(call->op, call->attrs, 1, &in, &p));
  const int64_t *s = rt_tensor_shape(w);
  if (s[2] != p.mat.r || s[3] != p.mat.r) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "the kernel must be %dx%d, got %lldx%lld",
                           (int)p.mat.r, (int)p.mat.r, (long long)s[2], (long long)s[3]);
  }
  const int32_t alpha = p.mat.alpha, r = p.mat.r, aa = alpha * alpha, rr = r * r;
  const double *g = p.mat.g;
  const int64_t oi = p.o * p.i;
  /* Blocks of kernels (o, i): L output channels (lanes) x a run of NI
   * input channels [i0, i0 + NI). Packed (P = L): lane l is o = panel * P
   * + l, and U[a, b] of the block is one span of the output, [a, b, panel,
   * i0 .. i0 + NI, 0 .. P) (block position (i - i0) * P + l); the L weight
   * runs (o, i0 .. i0 + NI, ., .) are read as they lie. Unpacked: L = 1,
   * o = panel, the span [a, b, o, i0 .. i0 + NI). Blocks of about CHUNK
   * kernels keep the scratch small whatever the channel counts. */
  enum { CHUNK = 1024 };
  const int64_t lanes = p.pack ? p.pack : 1, panels = p.o / lanes;
  const int64_t ni_max = CHUNK / lanes > 0 ? CHUNK / lanes : 1;
  const int64_t block = lanes * (ni_max < p.i ? ni_max : p.i);
  double *wd = NULL, *ud = NULL;
  rt_status_t st = rt_interp_scratch(call, block * rr, sizeof(double), false, (void **)&wd);
  if (!st) st = rt_interp_scratch(call, (int64_t)aa * block, sizeof(double), false, (void **)&ud);
  for (int64_t panel = 0; !st && panel < panels; ++panel) {
    for (int64_t i0 = 0; i0 < p.i; i0 += ni_max) {
      const int64_t ni = p.i - i0 < ni_max ? p.i - i0 : ni_max, n = lanes * ni;
      for (int64_t l = 0; l < lanes; ++l) {
        rt_interp_load_span_f(w, ((panel * lanes + l) * p.i + i0) * rr, ni * rr, wd + l * ni * rr);
      }
      for (int64_t l = 0; l < lanes; ++l) {
        for (int64_t i = 0; i < ni; ++i) {
          const double *gk = wd + (l * ni + i) * rr; /* gk[y * r + x] */
          const int64_t j = i * lanes + l;          /* its block position */
          double tmp[AMAX][3];
          /* tmp = G g, then U = tmp G^T. */
          for (int32_t a = 0; a < alpha; ++a)
            for (int32_t x = 0; x < r; ++x) {
              double acc = 0;
              for (int32_t y = 0; y < r; ++y) acc += g[a * r + y] * gk[y * r + x];
              tmp[a][x] = acc;
            }
          for (int32_t a = 0; a < alpha; ++a)
            for (int32_t b = 0; b < alpha; ++b) {
              double acc = 0;
              for (int32_t x = 0; x < r; ++x) acc += tmp[a][x] * g[b * r + x];
              ud[(int64_t)(a * alpha + b) * n + j] = acc;
            }
        }
      }
      const int64_t at = (panel * p.i + i0) * lanes; /* the block's span in a U[a, b] slab */
      for (int32_t ab = 0; ab < aa; ++ab) rt_interp_store_span_f(out, (int64_t)ab * oi + at, n, ud + (int64_t)ab * n);
    }
  }
  rt_interp_scratch_free(call, ud);
  rt_interp_scratch_free(call, wd);
  return st;
}

rt_status_t rt_interp_k_NN_WINOGRAD_CONV2D(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0], *u = call->args[1];
  rt_tensor_t *out = call->outs[0];
  rt_plan_input_t in[2];
  rt_ir_plan_input_of_tensor(x, &in[0]);
  rt_ir_plan_input_of_tensor(u, &in[1]);
  rt_plan_winograd_t p;
  RT_RETURN_IF_ERROR(rt_ir_plan_winograd(call->op, call->attrs, 2, in, &p));
  const int64_t wo = p.pack ? rt_tensor_shape(u)[2] * p.pack : rt_tensor_shape(u)[3];
  if (wo != p.o) {
    return RT_INTERP_ERROR(call, INVALID_ARGUMENT, "channels=%lld but the weight gives %lld",
                           (long long)p.o, (long long)wo);
  }
  const int32_t alpha = p.mat.alpha, m = p.mat.m, aa = alpha * alpha;
  const double *at = p.mat.at, *bt = p.mat.bt;
  const int64_t C = p.c, O = p.o, H = p.h, W = p.w, OH = p.oh, OW = p.ow;
  const int64_t T = p.th * p.tw; /* tiles per image */
  /* Per image: the image (C, H, W) and its output (O, OH, OW) in double;
   * tiles in blocks of tb (at most TILES tiles and about CHUNK doubles of
   * V and of M whatever the sizes): V[e][t][c] = (B^T d_c B)[e] of each tile t of the block, then
   * per e the slab U'[e] as ut[c][o] and M[e][t][o] = sum_c V[e][t][c]
   * ut[c][o], then Y = A^T M A into the output. */
  enum { CHUNK = 1 << 20, TILES = 16 };
  const int64_t cmax = C > O ? C : O;
  int64_t tb = CHUNK / ((int64_t)aa * (cmax > 0 ? cmax : 1));
  if (tb < 1) tb = 1;
  if (tb > TILES) tb = TILES;
  if (tb > T) tb = T > 0 ? T : 1;
  double *img = NULL, *res = NULL, *v = NULL, *mm = NULL, *slab = NULL, *ut = NULL;
  rt_status_t st = rt_interp_scratch(call, C * H * W, sizeof(double), false, (void **)&img);
  if (!st) st = rt_interp_scratch(call, O * OH * OW, sizeof(double), false, (void **)&res);
  if (!st) st = rt_interp_scratch(call, (int64_t)aa * tb * C, sizeof(double), false, (void **)&v);
  if (!st) st = rt_interp_scratch(call, (int64_t)aa * tb * O, sizeof(double), false, (void **)&mm);
  if (!st) st = rt_interp_scratch(call, C * O, sizeof(double), false, (void **)&slab);
  if (!st) st = rt_interp_scratch(call, C * O, sizeof(double), false, (void **)&ut);
  for (int64_t n = 0; !st && n < p.n; ++n) {
    rt_interp_load_span_f(x, n * C * H * W, C * H * W, img);
    for (int64_t t0 = 0; t0 < T; t0 += tb) {
      const int64_t nt = T - t0 < tb ? T - t0 : tb;
      for (int64_t t = 0; t < nt; ++t) {
        const int64_t ty = (t0 + t) / p.tw, tx = (t0 + t) % p.tw;
        for (int64_t c = 0; c < C; ++c) {
          const double *plane = img + c * H * W;
          double d[AMAX][AMAX], t1[AMAX][AMAX];
          for (int32_t py = 0; py < alpha; ++py)
            for (int32_t px = 0; px < alpha; ++px) {
              const int64_t iy = ty * m - p.pt + py, ix = tx * m - p.pl + px;
              d[py][px] = iy < 0 || iy >= H || ix < 0 || ix >= W ? 0 : plane[iy * W + ix];
            }
          /* t1 = B^T d, V = t1 B. */
          for (int32_t a = 0; a < alpha; ++a)
            for (int32_t px = 0; px < alpha; ++px) {
              double s = 0;
              for (int32_t py = 0; py < alpha; ++py) s += bt[a * alpha + py] * d[py][px];
              t1[a][px] = s;
            }
          for (int32_t a = 0; a < alpha; ++a)
            for (int32_t b = 0; b < alpha; ++b) {
              double s = 0;
              for (int32_t px = 0; px < alpha; ++px) s += t1[a][px] * bt[b * alpha + px];
              v[((int64_t)(a * alpha + b) * nt + t) * C + c] = s;
            }
        }
      }
      for (int32_t e = 0; e < aa; ++e) {
        rt_interp_load_span_f(u, rt_ir_winograd_u_offset(&p, e, 0, 0), C * O, slab);
        for (int64_t c = 0; c < C; ++c)
          for (int64_t o = 0; o < O; ++o) ut[c * O + o] = slab[rt_ir_winograd_u_offset(&p, 0, c, o)];
        for (int64_t t = 0; t < nt; ++t) {
          const double *vr = v + ((int64_t)e * nt + t) * C;
          double *mr = mm + ((int64_t)e * nt + t) * O;
          for (int64_t o = 0; o < O; ++o) mr[o] = 0;
          for (int64_t c = 0; c < C; ++c) {
            const double vc = vr[c], *ur = ut + c * O;
            for (int64_t o = 0; o < O; ++o) mr[o] += vc * ur[o];
          }
        }
      }
      for (int64_t t = 0; t < nt; ++t) {
        const int64_t ty = (t0 + t) / p.tw, tx = (t0 + t) % p.tw;
        for (int64_t o = 0; o < O; ++o) {
          double t2[4][AMAX];
          /* t2 = A^T M, Y = t2 A. */
          for (int32_t i = 0; i < m; ++i)
            for (int32_t b = 0; b < alpha; ++b) {
              double s = 0;
              for (int32_t a = 0; a < alpha; ++a) s += at[i * alpha + a] * mm[((int64_t)(a * alpha + b) * nt + t) * O + o];
              t2[i][b] = s;
            }
          for (int32_t i = 0; i < m; ++i)
            for (int32_t j = 0; j < m; ++j) {
              const int64_t oy = ty * m + i, ox = tx * m + j;
              if (oy >= OH || ox >= OW) continue;
              double s = 0;
              for (int32_t b = 0; b < alpha; ++b) s += t2[i][b] * at[j * alpha + b];
              res[(o * OH + oy) * OW + ox] = s;
            }
        }
      }
    }
    rt_interp_store_span_f(out, n * O * OH * OW, O * OH * OW, res);
  }
  rt_interp_scratch_free(call, ut);
  rt_interp_scratch_free(call, slab);
  rt_interp_scratch_free(call, mm);
  rt_interp_scratch_free(call, v);
  rt_interp_scratch_free(call, res);
  rt_interp_scratch_free(call, img);
  return st;
}
