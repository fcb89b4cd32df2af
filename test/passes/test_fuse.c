/* FuseOps and the DOT writer, checked on the output's structure (groups,
 * ops per group, kernel names through rt_pass_fused_name), on semantics
 * (the debug executor on seeded random inputs before and after fusion),
 * on deep programs (the walks are iterative) and on the DOT text (a
 * digraph, one cluster per group, balanced braces; validated with
 * Graphviz's `dot` when it is installed). The expected IR of the same
 * cases is in golden/fuse_ops_*.relay. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "pass_test_util.h"
#include "passes/fuse_ops.h"
#include "passes/pass.h"
#include "rt/dot.h"
#include "runtime/strbuf.h"
#include "test_util.h"
#include "runtime/mem.h"

static const char kConvAddRelu[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32],\n"
    "          %b: Tensor[(4, 1, 1), float32]) {\n"
    "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
    "  %1 = add(%0, %b);\n"
    "  nn.relu(%1)\n"
    "}\n";

static const char kResnet[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 8, 6, 6), float32], %w1: Tensor[(8, 8, 3, 3), float32],\n"
    "          %s1: Tensor[(8, 1, 1), float32], %b1: Tensor[(8, 1, 1), float32],\n"
    "          %w2: Tensor[(8, 8, 3, 3), float32], %s2: Tensor[(8, 1, 1), float32],\n"
    "          %b2: Tensor[(8, 1, 1), float32]) {\n"
    "  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);\n"
    "  %1 = multiply(%0, %s1);\n"
    "  %2 = add(%1, %b1);\n"
    "  %3 = nn.relu(%2);\n"
    "  %4 = nn.conv2d(%3, %w2, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);\n"
    "  %5 = multiply(%4, %s2);\n"
    "  %6 = add(%5, %b2);\n"
    "  %7 = add(%6, %x);\n"
    "  nn.relu(%7)\n"
    "}\n";

static const char kAttention[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%q: Tensor[(16, 4, 8), float32], %k: Tensor[(16, 4, 8), float32],\n"
    "          %v: Tensor[(16, 4, 8), float32]) {\n"
    "  %0 = transpose(%q, axes=[1, 0, 2]);\n"
    "  %1 = transpose(%k, axes=[1, 0, 2]);\n"
    "  %2 = nn.batch_matmul(%0, %1, transpose_b=True);\n"
    "  %3 = divide(%2, 2.82843f);\n"
    "  %4 = nn.softmax(%3);\n"
    "  %5 = transpose(%v, axes=[1, 2, 0]);\n"
    "  %6 = nn.batch_matmul(%4, %5, transpose_b=True);\n"
    "  %7 = transpose(%6, axes=[1, 0, 2]);\n"
    "  reshape(%7, newshape=[16, 32])\n"
    "}\n";

static const char kMobilenet[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(1, 8, 6, 6), float32], %w1: Tensor[(32, 8, 1, 1), float32],\n"
    "          %w2: Tensor[(32, 1, 3, 3), float32], %w3: Tensor[(8, 32, 1, 1), float32]) {\n"
    "  %0 = nn.conv2d(%x, %w1, padding=[0, 0, 0, 0], channels=32, kernel_size=[1, 1]);\n"
    "  %1 = clip(%0, a_min=0f, a_max=6f);\n"
    "  %2 = nn.conv2d(%1, %w2, padding=[1, 1, 1, 1], groups=32, channels=32, kernel_size=[3, 3]);\n"
    "  %3 = clip(%2, a_min=0f, a_max=6f);\n"
    "  %4 = nn.conv2d(%3, %w3, padding=[0, 0, 0, 0], channels=8, kernel_size=[1, 1]);\n"
    "  add(%4, %x)\n"
    "}\n";

static const char kBranchReduce[] =
    "#[version = \"0.0.5\"]\n"
    "def @main(%c: bool, %x: Tensor[(4, 8), float32]) {\n"
    "  %0 = exp(%x);\n"
    "  %1 = if (%c) {\n"
    "    %2 = sum(%0, axis=[1]);\n"
    "    %3 = multiply(%2, 0.5f);\n"
    "    sqrt(%3)\n"
    "  } else {\n"
    "    %4 = transpose(%0, axes=[1, 0]);\n"
    "    max(%4, axis=[0])\n"
    "  };\n"
    "  %5 = (%1, %0);\n"
    "  %6 = %5.0;\n"
    "  add(%6, 1f)\n"
    "}\n";

/* ---- helpers ------------------------------------------------------------- */

static rt_module_t *parse(const char *text) {
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(text, strlen(text), "test_fuse", &m));
  return m;
}

static rt_pass_context_t *context(int32_t opt_level, const char *max_depth) {
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_set_opt_level(ctx, opt_level));
  if (max_depth) assert_ok(rt_pass_context_set_config(ctx, "fuse.max_depth", max_depth));
  return ctx;
}

static rt_module_t *fuse(rt_module_t *m, int32_t opt_level, const char *max_depth) {
  rt_pass_context_t *ctx = context(opt_level, max_depth);
  rt_module_t *out = NULL;
  assert_ok(rt_module_run_pass(m, "FuseOps", ctx, &out));
  rt_pass_context_release(ctx);
  return out;
}

#define MAX_GROUPS 64

typedef struct {
  int32_t num_groups;
  int32_t num_calls;         /* calls of Primitive functions */
  int32_t loose_ops;         /* op calls outside any Primitive function */
  rt_ir_expr_t *groups[MAX_GROUPS];
  int32_t ops[MAX_GROUPS];
  int64_t total_groups;      /* also counted past MAX_GROUPS */
  int64_t max_ops;
} shape_t;

static rt_status_t count_ops(void *user, rt_ir_expr_t *e) {
  if (e->kind == RT_IR_CALL && e->call.callee->kind == RT_IR_OP) (*(int32_t *)user)++;
  return RT_OK;
}

static rt_status_t shape_visit(void *user, rt_ir_expr_t *e) {
  shape_t *s = user;
  if (e->kind != RT_IR_CALL) return RT_OK;
  if (rt_ir_is_primitive(e->call.callee)) {
    s->num_calls++;
    return RT_OK;
  }
  return RT_OK;
}

/* Counts Primitive calls and all op calls of main (group_visit then
 * subtracts the ops inside Primitive bodies, leaving the loose ones). */
static shape_t shape_of(const rt_module_t *m) {
  shape_t s;
  memset(&s, 0, sizeof s);
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(m, "main");
  assert_non_null(main_fn);
  int32_t all_ops = 0;
  assert_ok(rt_ir_post_order(rt_allocator_system(), main_fn, count_ops, &all_ops));
  assert_ok(rt_ir_post_order(rt_allocator_system(), main_fn, shape_visit, &s));
  s.loose_ops = all_ops;
  return s;
}

static rt_status_t group_visit(void *user, rt_ir_expr_t *e) {
  shape_t *s = user;
  if (e->kind != RT_IR_FUNCTION || !rt_ir_is_primitive(e)) return RT_OK;
  int32_t n = 0;
  RT_RETURN_IF_ERROR(rt_ir_post_order(rt_allocator_system(), e->fn.body, count_ops, &n));
  if (s->num_groups < MAX_GROUPS) {
    s->groups[s->num_groups] = e;
    s->ops[s->num_groups] = n;
    s->num_groups++;
  }
  s->total_groups++;
  if (n > s->max_ops) s->max_ops = n;
  s->loose_ops -= n;
  return RT_OK;
}

static shape_t groups_of(const rt_module_t *m) {
  shape_t s = shape_of(m);
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(m, "main");
  assert_ok(rt_ir_post_order(rt_allocator_system(), main_fn, group_visit, &s));
  return s;
}

static void assert_name(rt_ir_expr_t *fn, const char *want) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  assert_ok(rt_ir_primitive_name(fn, &b));
  assert_non_null(b.data);
  if (strcmp(b.data, want) != 0) fail_msg("fused name '%s', expected '%s'", b.data, want);
  rt_strbuf_deinitialize(&b);
}

static bool group_named(const shape_t *s, const char *want, int32_t ops) {
  for (int32_t i = 0; i < s->num_groups; ++i) {
    rt_strbuf_t b;
    rt_strbuf_initialize(&b);
    assert_ok(rt_ir_primitive_name(s->groups[i], &b));
    bool same = b.data && strcmp(b.data, want) == 0 && s->ops[i] == ops;
    rt_strbuf_deinitialize(&b);
    if (same) return true;
  }
  return false;
}

/* The debug executor agrees before (no passes) and after fusion. */
static void assert_same_results(const char *text, int32_t opt_level, const char *max_depth) {
  rt_module_t *m = parse(text);
  rt_module_t *fused = fuse(m, opt_level, max_depth);
  rt_pass_context_t *none = NULL;
  assert_ok(pt_context_no_passes(&none));
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    pt_run_t a, b;
    bool skip_a = false, skip_b = false;
    assert_ok(pt_run_main(m, none, seed, NULL, &a, &skip_a));
    assert_ok(pt_run_main(fused, none, seed, NULL, &b, &skip_b));
    assert_false(skip_a || skip_b);
    char msg[512];
    if (!pt_runs_match(&b, &a, 1e-5, 1e-6, msg, sizeof msg)) fail_msg("seed %d: %s", (int)seed, msg);
    pt_run_release(&a);
    pt_run_release(&b);
  }
  rt_pass_context_release(none);
  rt_module_release(fused);
  rt_module_release(m);
}

/* ---- structure ----------------------------------------------------------- */

static void test_fuse_conv_add_relu(void **state) {
  (void)state;
  rt_module_t *m = parse(kConvAddRelu);
  rt_module_t *f = fuse(m, 2, NULL);
  shape_t s = groups_of(f);
  assert_int_equal(s.num_groups, 1);
  assert_int_equal(s.num_calls, 1);
  assert_int_equal(s.ops[0], 3);
  assert_int_equal(s.loose_ops, 0);
  assert_name(s.groups[0], "fused_nn_conv2d_add_nn_relu");
  assert_int_equal(s.groups[0]->fn.nparams, 3);
  rt_module_release(f);
  rt_module_release(m);
}

static void test_fuse_resnet_block(void **state) {
  (void)state;
  rt_module_t *m = parse(kResnet);
  rt_module_t *f = fuse(m, 3, NULL);
  shape_t s = groups_of(f);
  assert_int_equal(s.num_groups, 2);
  assert_int_equal(s.loose_ops, 0);
  assert_true(group_named(&s, "fused_nn_conv2d_multiply_add_nn_relu", 4));
  assert_true(group_named(&s, "fused_nn_conv2d_multiply_add_add_nn_relu", 5));
  rt_module_release(f);
  rt_module_release(m);
}

static void test_fuse_attention_and_mobilenet(void **state) {
  (void)state;
  rt_module_t *m = parse(kAttention);
  rt_module_t *f = fuse(m, 3, NULL);
  shape_t s = groups_of(f);
  assert_int_equal(s.num_groups, 7);
  assert_true(group_named(&s, "fused_nn_batch_matmul_divide", 2));
  assert_true(group_named(&s, "fused_nn_softmax", 1));
  assert_true(group_named(&s, "fused_transpose_reshape", 2));
  rt_module_release(f);
  rt_module_release(m);

  m = parse(kMobilenet);
  f = fuse(m, 3, NULL);
  s = groups_of(f);
  assert_int_equal(s.num_groups, 3);
  assert_true(group_named(&s, "fused_nn_conv2d_clip", 2));
  assert_true(group_named(&s, "fused_nn_conv2d_add", 2));
  rt_module_release(f);
  rt_module_release(m);
}

static void test_fuse_branches_and_reduces(void **state) {
  (void)state;
  rt_module_t *m = parse(kBranchReduce);
  rt_module_t *f = fuse(m, 2, NULL);
  shape_t s = groups_of(f);
  /* exp (shared by both branches and the tuple); sum+multiply+sqrt in the
   * then branch; transpose+max in the else branch; the outer add (the
   * projection's tuple is a plain tuple, so the projection stays out). */
  assert_int_equal(s.loose_ops, 0);
  assert_int_equal(s.num_groups, 4);
  assert_true(group_named(&s, "fused_exp", 1));
  assert_true(group_named(&s, "fused_sum_multiply_sqrt", 3));
  assert_true(group_named(&s, "fused_transpose_max", 2));
  assert_true(group_named(&s, "fused_add", 1));
  rt_module_release(f);
  rt_module_release(m);
}

static void test_fuse_opt_level_0(void **state) {
  (void)state;
  rt_module_t *m = parse(kResnet);
  rt_module_t *f = fuse(m, 0, NULL);
  shape_t s = groups_of(f);
  assert_int_equal(s.num_groups, 9);
  assert_int_equal(s.max_ops, 1);
  assert_int_equal(s.loose_ops, 0);
  rt_module_release(f);
  rt_module_release(m);
}

static void test_fuse_idempotent(void **state) {
  (void)state;
  const char *const texts[] = {kConvAddRelu, kResnet, kAttention, kMobilenet, kBranchReduce};
  for (size_t i = 0; i < RT_COUNTOF(texts); ++i) {
    rt_module_t *m = parse(texts[i]);
    rt_module_t *f = fuse(m, 3, NULL);
    rt_module_t *g = fuse(f, 3, NULL);
    assert_ptr_equal(f, g); /* nothing to do: the same module comes back */
    assert_true(rt_ir_module_struct_equal(f, g));
    rt_module_release(g);
    rt_module_release(f);
    rt_module_release(m);
  }
}

/* A chain of n elementwise ops. */
static char *chain_text(int32_t n) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_strbuf_puts(&b, "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(8), float32]) {\n");
  const char *ops[] = {"negative", "exp", "nn.relu", "sigmoid", "tanh"};
  for (int32_t i = 0; i < n; ++i) {
    const char *op = ops[i % 5];
    if (i == 0) {
      rt_strbuf_printf(&b, "  %%0 = %s(%%x);\n", op);
    } else {
      rt_strbuf_printf(&b, "  %%%d = %s(%%%d);\n", (int)i, op, (int)(i - 1));
    }
  }
  rt_strbuf_printf(&b, "  %%%d\n}\n", (int)(n - 1));
  char *text = NULL;
  assert_ok(rt_strbuf_finish(&b, &text, NULL));
  return text;
}

static void test_fuse_max_depth(void **state) {
  (void)state;
  char *text = chain_text(50);
  rt_module_t *m = parse(text);
  rt_module_t *f = fuse(m, 2, "4");
  shape_t s = groups_of(f);
  assert_int_equal(s.total_groups, 13); /* ceil(50 / 4) */
  assert_true(s.max_ops <= 4);
  rt_module_release(f);
  rt_module_release(m);
  assert_same_results(text, 2, "4");
  rt_mem_free(text);
}

static void test_fuse_deep_chain(void **state) {
  (void)state;
  char *text = chain_text(20000);
  rt_module_t *m = parse(text);
  rt_mem_free(text);
  rt_module_t *f = fuse(m, 2, NULL);
  shape_t s = groups_of(f);
  assert_int_equal(s.total_groups, (20000 + 255) / 256);
  assert_int_equal(s.max_ops, 256);
  assert_int_equal(s.loose_ops, 0);
  rt_module_release(f);
  rt_module_release(m);

  /* A long name is cut to 80 characters plus a hash, as TVM does. 300
   * ops: groups of 256 and 44; the walk meets the callee of the last
   * call (the second group) first. */
  text = chain_text(300);
  m = parse(text);
  rt_mem_free(text);
  f = fuse(m, 2, NULL);
  s = groups_of(f);
  assert_int_equal(s.num_groups, 2);
  assert_int_equal(s.ops[1], 256);
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  assert_ok(rt_ir_primitive_name(s.groups[1], &b));
  assert_true(b.len > 80 && b.len < 80 + 20);
  assert_int_equal(b.data[80], '_');
  assert_int_equal(b.data[b.len - 1], '_');
  if (strncmp(b.data, "fused_negative_exp_nn_relu_sigmoid_tanh_negative", 48) != 0) {
    fail_msg("name %s", b.data);
  }
  rt_strbuf_deinitialize(&b);
  rt_module_release(f);
  rt_module_release(m);
}

/* ---- semantics ----------------------------------------------------------- */

static void test_fuse_same_results(void **state) {
  (void)state;
  assert_same_results(kConvAddRelu, 2, NULL);
  assert_same_results(kResnet, 3, NULL);
  assert_same_results(kAttention, 3, NULL);
  assert_same_results(kMobilenet, 3, NULL);
  assert_same_results(kBranchReduce, 2, NULL);
  assert_same_results(kResnet, 0, NULL);
}

/* ---- DOT ----------------------------------------------------------------- */

static int32_t count_substr(const char *s, const char *needle) {
  int32_t n = 0;
  for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle)) ++n;
  return n;
}

/* Braces balance outside quoted strings; quotes close; no raw newline
 * inside a string. */
static void assert_dot_well_formed(const char *dot) {
  int depth = 0;
  bool in_str = false;
  for (const char *p = dot; *p; ++p) {
    if (in_str) {
      if (*p == '\\' && p[1]) {
        ++p;
      } else if (*p == '"') {
        in_str = false;
      } else {
        assert_true(*p != '\n');
      }
      continue;
    }
    if (*p == '"') in_str = true;
    if (*p == '{') ++depth;
    if (*p == '}') {
      --depth;
      assert_true(depth >= 0);
    }
  }
  assert_false(in_str);
  assert_int_equal(depth, 0);
}

static void validate_with_graphviz(const char *dot) {
  if (system("command -v dot >/dev/null 2>&1") != 0) return;
  char path[] = "/tmp/rt_test_fuse_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  fputs(dot, f);
  fclose(f);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "dot -Tsvg %s -o /dev/null", path);
  int rc = system(cmd);
  remove(path);
  assert_int_equal(rc, 0);
}

static void test_fuse_dot(void **state) {
  (void)state;
  rt_module_t *m = parse(kResnet);
  rt_module_t *f = fuse(m, 3, NULL);
  char *dot = NULL;
  assert_ok(rt_module_to_dot(f, &dot));
  assert_non_null(strstr(dot, "digraph"));
  assert_int_equal(count_substr(dot, "subgraph cluster_"), 2);
  assert_non_null(strstr(dot, "label=\"fused_nn_conv2d_multiply_add_nn_relu\""));
  assert_non_null(strstr(dot, "label=\"fused_nn_conv2d_multiply_add_add_nn_relu\""));
  assert_non_null(strstr(dot, "nn.conv2d\\nTensor[(1, 8, 6, 6), float32]"));
  assert_int_equal(count_substr(dot, "[label=\"nn.conv2d"), 2);
  assert_int_equal(count_substr(dot, "[label=\"%"), 7); /* main's params */
  assert_dot_well_formed(dot);
  validate_with_graphviz(dot);
  free(dot);

  /* Unfused, branches, tuples and projections: no clusters. */
  rt_module_t *b = parse(kBranchReduce);
  assert_ok(rt_module_to_dot(b, &dot));
  assert_int_equal(count_substr(dot, "subgraph cluster_"), 0);
  assert_non_null(strstr(dot, "[label=\"if\\n"));
  assert_non_null(strstr(dot, "[label=\".0"));
  assert_dot_well_formed(dot);
  validate_with_graphviz(dot);
  free(dot);
  rt_module_t *bf = fuse(b, 2, NULL);
  assert_ok(rt_module_to_dot(bf, &dot));
  assert_int_equal(count_substr(dot, "subgraph cluster_"), 4);
  assert_dot_well_formed(dot);
  validate_with_graphviz(dot);
  free(dot);
  rt_module_release(bf);
  rt_module_release(b);

  assert_status(rt_module_to_dot(NULL, &dot), INVALID_ARGUMENT, NULL);
  rt_module_release(f);
  rt_module_release(m);
}

static void test_fuse_dot_escapes(void **state) {
  (void)state;
  /* Var names cannot hold quotes, but identifiers may hold '/': check the
   * label survives, and that a module without @main is NOT_FOUND. */
  const char text[] =
      "#[version = \"0.0.5\"]\n"
      "def @main(%bert/x: Tensor[(2), float32]) { exp(%bert/x) }\n";
  rt_module_t *m = parse(text);
  char *dot = NULL;
  assert_ok(rt_module_to_dot(m, &dot));
  assert_non_null(strstr(dot, "%bert/x\\nTensor[(2), float32]"));
  assert_dot_well_formed(dot);
  free(dot);
  rt_module_release(m);
  const char other[] = "#[version = \"0.0.5\"]\ndef @f(%x: float32) { %x }\n";
  m = parse(other);
  assert_status(rt_module_to_dot(m, &dot), NOT_FOUND, "main");
  rt_module_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fuse_conv_add_relu),
      cmocka_unit_test(test_fuse_resnet_block),
      cmocka_unit_test(test_fuse_attention_and_mobilenet),
      cmocka_unit_test(test_fuse_branches_and_reduces),
      cmocka_unit_test(test_fuse_opt_level_0),
      cmocka_unit_test(test_fuse_idempotent),
      cmocka_unit_test(test_fuse_max_depth),
      cmocka_unit_test(test_fuse_deep_chain),
      cmocka_unit_test(test_fuse_same_results),
      cmocka_unit_test(test_fuse_dot),
      cmocka_unit_test(test_fuse_dot_escapes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
