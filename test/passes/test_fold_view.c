/* FoldConstant's reshapes of constants (passes/fold_constant.c, fold_view):
 * reshape, squeeze, expand_dims and nn.batch_flatten of a constant fold to
 * a constant that shares the constant's data (the same pointer, no copy),
 * with the reshaped shape; a transpose between two reshapes is a real fold
 * (new data, elements moved), and the reshape after it views that. The
 * expected elements are computed here: w[i] = i, so w's flat order is the
 * index itself and a transpose's is worked out by hand below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "ir/ir.h"
#include "passes/pass.h"
#include "rt/rt.h"
#include "test_util.h"

/* main's body after binding w (arange floats of `shape`) and FoldConstant:
 * returns the constant it folded to (the body itself must be one). */
static const rt_tensor_t *fold(const char *body, int32_t rank, const int64_t *shape,
                               rt_module_t **keep, rt_tensor_t **w_out) {
  char src[1024];
  snprintf(src, sizeof src, "#[version = \"0.0.5\"]\n%s", body);
  rt_module_t *m = NULL, *bound = NULL, *folded = NULL;
  assert_ok(rt_module_parse(src, strlen(src), "view.relay", &m));
  rt_tensor_t *w = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, rank, shape, &w));
  float *v = rt_tensor_data(w);
  for (int64_t i = 0; i < rt_tensor_numel(w); ++i) v[i] = (float)i;
  rt_params_t *p = NULL;
  assert_ok(rt_params_create(rt_allocator_system(), &p));
  assert_ok(rt_params_set(p, "w", w));
  assert_ok(rt_backend_bind_params(m, p, &bound));
  rt_pass_env_t env = {NULL, rt_allocator_system()};
  assert_ok(rt_pass_fold_constant(&env, bound, &folded));
  rt_params_release(p);
  rt_module_release(bound);
  rt_module_release(m);
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(folded, "main");
  assert_non_null(main_fn);
  const rt_ir_expr_t *b = main_fn->fn.body;
  if (b->kind != RT_IR_CONSTANT) fail_msg("main's body did not fold to a constant");
  *keep = folded;
  *w_out = w;
  return b->constant.value;
}

static void assert_shape(const rt_tensor_t *t, int32_t rank, const int64_t *shape) {
  assert_int_equal(rt_tensor_rank(t), rank);
  for (int32_t d = 0; d < rank; ++d) assert_int_equal(rt_tensor_shape(t)[d], shape[d]);
  assert_true(rt_tensor_is_compact(t));
}

static void test_fold_view_shares_data(void **state) {
  (void)state;
  static const struct {
    const char *body;
    int32_t rank;
    int64_t out[4];
  } kCases[] = {
      {"def @main(%w: Tensor[(2, 3, 4), float32]) { reshape(%w, newshape=[6, 4]) }", 2, {6, 4}},
      {"def @main(%w: Tensor[(2, 3, 4), float32]) { reshape(%w, newshape=[-1]) }", 1, {24}},
      {"def @main(%w: Tensor[(2, 3, 4), float32]) { nn.batch_flatten(%w) }", 2, {2, 12}},
      {"def @main(%w: Tensor[(2, 3, 4), float32]) { expand_dims(%w, axis=1) }", 4, {2, 1, 3, 4}},
      {"def @main(%w: Tensor[(2, 3, 4), float32]) {\n"
       "  %0 = expand_dims(%w, axis=0);\n"
       "  squeeze(%0, axis=[0])\n"
       "}",
       3, {2, 3, 4}},
  };
  const int64_t wshape[3] = {2, 3, 4};
  for (size_t c = 0; c < sizeof kCases / sizeof kCases[0]; ++c) {
    rt_module_t *m = NULL;
    rt_tensor_t *w = NULL;
    const rt_tensor_t *t = fold(kCases[c].body, 3, wshape, &m, &w);
    assert_shape(t, kCases[c].rank, kCases[c].out);
    if (rt_tensor_data(t) != rt_tensor_data(w)) fail_msg("case %zu: the fold copied", c);
    rt_module_release(m);
    rt_tensor_release(w);
  }
}

/* reshape (2, 3, 4) -> (6, 4), transpose -> (4, 6), reshape -> (24): the
 * transpose moves elements: out[j * 6 + i] = w[i * 4 + j] = i * 4 + j. */
static void test_fold_view_after_transpose(void **state) {
  (void)state;
  const int64_t wshape[3] = {2, 3, 4}, out[1] = {24};
  rt_module_t *m = NULL;
  rt_tensor_t *w = NULL;
  const rt_tensor_t *t = fold(
      "def @main(%w: Tensor[(2, 3, 4), float32]) {\n"
      "  %0 = reshape(%w, newshape=[6, 4]);\n"
      "  %1 = transpose(%0, axes=[1, 0]);\n"
      "  reshape(%1, newshape=[24])\n"
      "}",
      3, wshape, &m, &w);
  assert_shape(t, 1, out);
  assert_true(rt_tensor_data(t) != rt_tensor_data(w));
  const float *v = rt_tensor_data(t);
  for (int64_t j = 0; j < 4; ++j) {
    for (int64_t i = 0; i < 6; ++i) {
      if (v[j * 6 + i] != (float)(i * 4 + j)) {
        fail_msg("out[%lld] = %g, expected %g", (long long)(j * 6 + i), (double)v[j * 6 + i],
                 (double)(i * 4 + j));
      }
    }
  }
  rt_tensor_release(w);
  rt_module_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fold_view_shares_data),
      cmocka_unit_test(test_fold_view_after_transpose),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
