/* The JIT session: many threads compiling and running kernels through one
 * session at once (the LLJIT itself is not thread-safe: the session's lock
 * must make it so), kernels split over a thread pool through
 * ctx->parallel_for, the task-split cost model (a kernel too small to
 * repay a task runs as one, without calling parallel_for), and the LLVM
 * IR / assembly text of a kernel. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit_test_util.h"
#include "runtime/mem.h"

typedef struct worker_t {
  rt_jit_session_t *session;
  int32_t id;
  int failures;
} worker_t;

/* Each round builds 3 kernels (distinct per thread and round), runs them
 * and checks against plain C. */
static void *worker(void *arg) {
  worker_t *w = arg;
  for (int round = 0; round < 3; ++round) {
    char text[1024];
    const float k = (float)(w->id * 10 + round);
    snprintf(text, sizeof text,
             "#[version = \"0.0.5\"]\n"
             "def @f(%%x: Tensor[(64, 33), float32]) { add(%%x, %gf) }\n"
             "def @g(%%x: Tensor[(64, 33), float32]) { multiply(nn.relu(%%x), %gf) }\n"
             "def @h(%%x: Tensor[(64, 33), float32]) { sum(%%x, axis=[1]) }\n",
             (double)k, (double)k);
    rt_module_t *m = jt_parse(text);
    rt_ir_expr_t *fns[3] = {rt_ir_module_lookup(m, "f"), rt_ir_module_lookup(m, "g"),
                            rt_ir_module_lookup(m, "h")};
    rt_jit_module_t *jm = NULL;
    rt_status_t s = rt_jit_build(w->session, 3, fns, NULL, 0, NULL, &jm);
    if (s) {
      fprintf(stderr, "thread %d: %s\n", w->id, rt_status_message(s));
      rt_status_free(s);
      ++w->failures;
      rt_module_release(m);
      continue;
    }
    float x[64 * 33], y[64 * 33], r[64];
    for (int i = 0; i < 64 * 33; ++i) x[i] = (float)((i * 7 + w->id) % 13) - 6.0f;
    int64_t shape[2] = {64, 33}, rshape[1] = {64};
    rt_kernel_arg args[2] = {{x, shape, NULL, 2, {kDLFloat, 32, 1}, 0},
                             {y, shape, NULL, 2, {kDLFloat, 32, 1}, 0}};
    rt_jit_simple_ctx_t ctx;
    rt_jit_simple_ctx_initialize(&ctx);
    for (int kk = 0; kk < 2; ++kk) {
      if (rt_jit_module_kernel(jm, kk)(args, 2, &ctx.ctx) != 0) ++w->failures;
      for (int i = 0; i < 64 * 33; ++i) {
        float want = kk == 0 ? x[i] + k : (x[i] > 0 ? x[i] : 0) * k;
        if (y[i] != want) {
          ++w->failures;
          break;
        }
      }
    }
    rt_kernel_arg rargs[2] = {{x, shape, NULL, 2, {kDLFloat, 32, 1}, 0},
                              {r, rshape, NULL, 1, {kDLFloat, 32, 1}, 0}};
    if (rt_jit_module_kernel(jm, 2)(rargs, 2, &ctx.ctx) != 0) ++w->failures;
    for (int i = 0; i < 64; ++i) {
      float want = 0;
      for (int j = 0; j < 33; ++j) want += x[i * 33 + j];
      if (r[i] != want) ++w->failures; /* small integers: exact in any order */
    }
    rt_jit_module_release(jm);
    rt_module_release(m);
  }
  return NULL;
}

static void test_jit_session_threads(void **state) {
  (void)state;
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  pthread_t th[4];
  worker_t w[4];
  for (int i = 0; i < 4; ++i) {
    w[i] = (worker_t){s, i, 0};
    assert_int_equal(pthread_create(&th[i], NULL, worker, &w[i]), 0);
  }
  int failures = 0;
  for (int i = 0; i < 4; ++i) {
    pthread_join(th[i], NULL);
    failures += w[i].failures;
  }
  rt_jit_session_release(s);
  assert_int_equal(failures, 0);
}

/* Every kernel checks the descriptors it is given against its types
 * (jit/lower.c: inline for `?` dims, from one table otherwise): a wrong
 * rank, dtype, dim or a non-compact stride fails the call with a message
 * naming the argument and writes nothing; explicit compact strides, and
 * any stride of a size-1 dim, are accepted. */
static void test_jit_kernel_checks_descriptors(void **state) {
  (void)state;
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  rt_module_t *m = jt_parse("#[version = \"0.0.5\"]\n"
                            "def @f(%x: Tensor[(2, 1, 3), float32], %y: Tensor[(3), float32]) { add(%x, %y) }\n"
                            "def @g(%x: Tensor[(?, 3), float32]) { negative(%x) }\n");
  rt_ir_expr_t *fns[2] = {rt_ir_module_lookup(m, "f"), rt_ir_module_lookup(m, "g")};
  rt_jit_module_t *jm = NULL;
  assert_ok(rt_jit_build(s, 2, fns, NULL, 0, NULL, &jm));
  rt_kernel_fn f = rt_jit_module_kernel(jm, 0), g = rt_jit_module_kernel(jm, 1);
  float x[6] = {1, 2, 3, 4, 5, 6}, y[3] = {10, 20, 30}, out[6];
  int64_t xs[3] = {2, 1, 3}, ys[1] = {3}, bad_dim[3] = {2, 1, 4};
  int64_t compact[3] = {3, 3, 1}, odd1[3] = {3, 77, 1}, strided[3] = {6, 3, 2};
  const rt_kernel_dtype f32 = {kDLFloat, 32, 1}, i32 = {kDLInt, 32, 1}, f16 = {kDLFloat, 16, 1};
  struct {
    const int64_t *shape, *strides;
    int32_t rank;
    rt_kernel_dtype dt;
    int32_t arg; /* the argument made wrong */
    const char *want; /* NULL: accepted */
  } cases[] = {
      {xs, NULL, 3, f32, 0, NULL},
      {xs, compact, 3, f32, 0, NULL},
      {xs, odd1, 3, f32, 0, NULL},
      {xs, NULL, 2, f32, 0, "argument 0: expected rank 3 and dtype float32"},
      {xs, NULL, 3, i32, 0, "argument 0: expected rank 3 and dtype float32"},
      {xs, NULL, 3, f16, 2, "argument 2: expected rank 3 and dtype float32"},
      {bad_dim, NULL, 3, f32, 0, "argument 0: expected shape (2, 1, 3)"},
      {bad_dim, NULL, 3, f32, 2, "argument 2: expected shape (2, 1, 3)"},
      {xs, strided, 3, f32, 2, "argument 2: strided tensors are not supported"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    rt_kernel_arg args[3] = {{x, xs, NULL, 3, f32, 0}, {y, ys, NULL, 1, f32, 0}, {out, xs, NULL, 3, f32, 0}};
    args[cases[c].arg] = (rt_kernel_arg){args[cases[c].arg].data, cases[c].shape, cases[c].strides, cases[c].rank,
                                         cases[c].dt, 0};
    for (int i = 0; i < 6; ++i) out[i] = -1;
    rt_jit_simple_ctx_t ctx;
    rt_jit_simple_ctx_initialize(&ctx);
    const int32_t rc = f(args, 3, &ctx.ctx);
    if (!cases[c].want) {
      assert_int_equal(rc, 0);
      for (int i = 0; i < 6; ++i) assert_true(out[i] == x[i] + y[i % 3]);
    } else {
      assert_int_not_equal(rc, 0);
      if (!strstr(ctx.error, cases[c].want)) fail_msg("case %zu: got \"%s\"", c, ctx.error);
      for (int i = 0; i < 6; ++i) assert_true(out[i] == -1);
    }
  }
  /* A `?` dim keeps the inline checks: its output must agree. */
  int64_t gx[2] = {2, 3}, gy[2] = {3, 3};
  rt_kernel_arg gargs[2] = {{x, gx, NULL, 2, f32, 0}, {out, gy, NULL, 2, f32, 0}};
  rt_jit_simple_ctx_t ctx;
  rt_jit_simple_ctx_initialize(&ctx);
  assert_int_not_equal(g(gargs, 2, &ctx.ctx), 0);
  assert_non_null(strstr(ctx.error, "output 0: dim 0 disagrees"));
  gargs[1].shape = gx;
  rt_jit_simple_ctx_initialize(&ctx);
  assert_int_equal(g(gargs, 2, &ctx.ctx), 0);
  for (int i = 0; i < 6; ++i) assert_true(out[i] == -x[i]);
  rt_jit_module_release(jm);
  rt_module_release(m);
  rt_jit_session_release(s);
}

/* ---- a small pool: one pthread per task, for the test -------------------- */

typedef struct task_t {
  rt_kernel_task_fn body;
  void *closure;
  int32_t i, n, rc;
} task_t;

static _Atomic int32_t g_pool_calls;

static void *run_task(void *arg) {
  task_t *t = arg;
  t->rc = t->body(t->closure, t->i, t->n);
  return NULL;
}

static int32_t pool_parallel_for(const rt_kernel_ctx *ctx, rt_kernel_task_fn body, void *closure,
                                 int32_t n) {
  (void)ctx;
  g_pool_calls++;
  task_t tasks[16];
  pthread_t th[16];
  if (n > 16) return 1;
  for (int32_t i = 0; i < n; ++i) {
    tasks[i] = (task_t){body, closure, i, n, 0};
    pthread_create(&th[i], NULL, run_task, &tasks[i]);
  }
  int32_t rc = 0;
  for (int32_t i = 0; i < n; ++i) {
    pthread_join(th[i], NULL);
    rc |= tasks[i].rc;
  }
  return rc;
}

static void test_jit_session_parallel_for(void **state) {
  (void)state;
  rt_module_t *m = jt_parse(
      "#[version = \"0.0.5\"]\n"
      "def @f(%x: Tensor[(37, 4096), float32], %y: Tensor[(4096), float32]) {\n"
      "  tanh(add(%x, %y))\n"
      "}\n");
  rt_ir_expr_t *fn = rt_ir_module_lookup(m, "f");
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  rt_jit_module_t *jm = NULL;
  assert_ok(rt_jit_build(s, 1, &fn, NULL, 0, NULL, &jm));
  rt_tensor_t *ins[2], *want[1], *got[1];
  int32_t nin, nout;
  jt_make_inputs(fn, 0, 9, ins, &nin);
  assert_ok(jt_interp(m, "f", nin, ins, want, &nout));
  rt_jit_simple_ctx_t ctx;
  rt_jit_simple_ctx_initialize(&ctx);
  ctx.ctx.num_threads = 4;
  ctx.ctx.parallel_for = pool_parallel_for;
  char err[512], why[256];
  g_pool_calls = 0;
  assert_int_equal(jt_run_kernel(rt_jit_module_kernel(jm, 0), 2, ins, 1, want, got, &ctx.ctx, err), 0);
  assert_int_equal(g_pool_calls, 1);
  assert_true(jt_close(got[0], want[0], 1e-5, 1e-6, why));
  rt_tensor_release(want[0]);
  rt_tensor_release(got[0]);
  rt_tensor_release(ins[0]);
  rt_tensor_release(ins[1]);
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);
}

/* A parallel_for that runs the tasks in order and records how many. */
static int32_t g_split_tasks, g_split_calls;
static int32_t counting_pf(const rt_kernel_ctx *ctx, rt_kernel_task_fn body, void *closure,
                           int32_t n) {
  (void)ctx;
  g_split_calls++;
  g_split_tasks = n;
  int32_t r = 0;
  for (int32_t t = 0; t < n; ++t) r |= body(closure, t, n);
  return r;
}

/* The cost model of jit/lower.c (elems_per_task), at 4 threads. Expected
 * counts by hand: 250 ps per unit of generic work (inputs read per output
 * element), 20 ps per FLOP of a template (+ 250 ps per element), at least
 * 5 us per task:
 *   small:  4 x 64 adds, 256 x 250 ps = 64 ns            -> 1 task (no call)
 *   big:    37 x 4096 tanh(add), 151552 x 250 ps = 38 us -> 4 tasks
 *   sdense: dense 2x32 by 16x32 (two rows: the generic dot products),
 *           32 outputs of 18 units, 32 x 4.5 ns = 144 ns -> 1 task
 *   bdense: dense 8x512 by 512x512 (the GEMM template),
 *           4.2 MFLOP x 20 ps = 84 us                     -> 4 tasks
 *   row:    dense 1x1024 by 1024x1024 (one row: the generic dot products,
 *           whose tasks then take column ranges), 1024 outputs of 1025
 *           units of work, 1024 x 256 ns = 262 us             -> 4 tasks
 * and every result matches the interpreter either way. */
static void test_jit_session_task_split_cost(void **state) {
  (void)state;
  rt_module_t *m = jt_parse(
      "#[version = \"0.0.5\"]\n"
      "def @small(%x: Tensor[(4, 64), float32], %y: Tensor[(4, 64), float32]) { add(%x, %y) }\n"
      "def @big(%x: Tensor[(37, 4096), float32], %y: Tensor[(4096), float32]) {\n"
      "  tanh(add(%x, %y))\n"
      "}\n"
      "def @sdense(%x: Tensor[(2, 32), float32], %w: Tensor[(16, 32), float32]) {\n"
      "  nn.dense(%x, %w)\n"
      "}\n"
      "def @bdense(%x: Tensor[(8, 512), float32], %w: Tensor[(512, 512), float32]) {\n"
      "  nn.dense(%x, %w)\n"
      "}\n"
      "def @row(%x: Tensor[(1, 1024), float32], %w: Tensor[(1024, 1024), float32]) {\n"
      "  nn.dense(%x, %w)\n"
      "}\n");
  enum { N = 5 };
  const char *names[N] = {"small", "big", "sdense", "bdense", "row"};
  const int32_t want_tasks[N] = {1, 4, 1, 4, 4};
  rt_ir_expr_t *fns[N];
  for (int32_t i = 0; i < N; ++i) fns[i] = rt_ir_module_lookup(m, names[i]);
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  rt_jit_module_t *jm = NULL;
  assert_ok(rt_jit_build(s, N, fns, NULL, 0, NULL, &jm));
  for (int32_t i = 0; i < N; ++i) {
    rt_tensor_t *ins[2], *want[1], *got[1];
    int32_t nin, nout;
    jt_make_inputs(fns[i], 0, 20 + (uint64_t)i, ins, &nin);
    assert_ok(jt_interp(m, names[i], nin, ins, want, &nout));
    rt_jit_simple_ctx_t ctx;
    rt_jit_simple_ctx_initialize(&ctx);
    ctx.ctx.num_threads = 4;
    ctx.ctx.parallel_for = counting_pf;
    char err[512], why[256];
    g_split_calls = 0;
    g_split_tasks = 1;
    assert_int_equal(jt_run_kernel(rt_jit_module_kernel(jm, i), nin, ins, 1, want, got, &ctx.ctx, err), 0);
    printf("# %s: %d parallel_for call(s), %d task(s)\n", names[i], (int)g_split_calls,
           (int)g_split_tasks);
    assert_int_equal(g_split_calls, want_tasks[i] > 1 ? 1 : 0);
    assert_int_equal(g_split_tasks, want_tasks[i]);
    assert_true(jt_close(got[0], want[0], 1e-4, 1e-5, why));
    rt_tensor_release(want[0]);
    rt_tensor_release(got[0]);
    for (int32_t k = 0; k < nin; ++k) rt_tensor_release(ins[k]);
  }
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);
}

/* The IR/asm text: kept only when asked, per kernel or whole module; the
 * O3 pipeline vectorizes a float sum (reassoc flags). */
static void test_jit_session_source(void **state) {
  (void)state;
  rt_module_t *m = jt_parse(
      "#[version = \"0.0.5\"]\n"
      "def @f(%x: Tensor[(8, 1024), float32]) { sum(%x, axis=[1]) }\n"
      "def @g(%x: Tensor[(8, 1024), float32]) { exp(%x) }\n");
  rt_ir_expr_t *fns[2] = {rt_ir_module_lookup(m, "f"), rt_ir_module_lookup(m, "g")};
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  printf("# host: %s %s\n", rt_jit_session_triple(s), rt_jit_session_cpu(s));
  rt_jit_module_t *jm = NULL;
  assert_ok(rt_jit_build(s, 2, fns, NULL, 0, NULL, &jm));
  char *text = NULL;
  assert_status(rt_jit_module_ll(jm, 0, &text), FAILED_PRECONDITION, "RT_JIT_KEEP_LL");
  assert_status(rt_jit_module_asm(jm, 0, &text), FAILED_PRECONDITION, "RT_JIT_KEEP_ASM");
  rt_jit_module_release(jm);
  jm = NULL;
  rt_jit_build_stats_t st;
  assert_ok(rt_jit_build(s, 2, fns, NULL, RT_JIT_KEEP_LL | RT_JIT_KEEP_ASM, &st, &jm));
  printf("# 2 kernels: lower %.1f ms, O3 %.1f ms, asm %.1f ms, codegen %.1f ms\n", st.lower_ms,
         st.opt_ms, st.asm_ms, st.emit_ms + st.link_ms);
  char *ll0 = NULL, *ll1 = NULL, *as0 = NULL, *all = NULL;
  assert_ok(rt_jit_module_ll(jm, 0, &ll0));
  assert_ok(rt_jit_module_ll(jm, 1, &ll1));
  assert_ok(rt_jit_module_asm(jm, 0, &as0));
  assert_ok(rt_jit_module_ll(jm, -1, &all));
  assert_non_null(strstr(ll0, rt_jit_module_symbol(jm, 0)));
  assert_null(strstr(ll0, rt_jit_module_symbol(jm, 1)));
  assert_non_null(strstr(ll1, rt_jit_module_symbol(jm, 1)));
  assert_non_null(strstr(all, "target triple"));
  /* The sum was vectorized (8-wide float on AVX2 hosts, some vector on any). */
  assert_non_null(strstr(ll0, "x float>"));
  assert_non_null(strstr(as0, rt_jit_module_symbol(jm, 0)));
  rt_mem_free(ll0);
  rt_mem_free(ll1);
  rt_mem_free(as0);
  rt_mem_free(all);
  assert_status(rt_jit_module_ll(jm, 7, &text), OUT_OF_RANGE, NULL);
  rt_jit_module_release(jm);
  /* The session outlives released modules and compiles again. */
  assert_ok(rt_jit_build(s, 1, fns, NULL, 0, NULL, &jm));
  rt_jit_session_release(s); /* the module keeps it alive */
  rt_jit_module_release(jm);
  rt_module_release(m);
}

/* Target names round-trip, and each named target resolves to its CPU model
 * and lane count, or (only for an ISA this CPU lacks) FAILED_PRECONDITION.
 * RELAYRT_JIT_TARGET chooses the default and a bad value is an error. */
static void test_jit_target_resolve(void **state) {
  (void)state;
  for (int32_t k = 0; k < RT_JIT_TARGET_KIND_COUNT; ++k) {
    rt_jit_target_kind_t got = RT_JIT_TARGET_KIND_COUNT;
    assert_true(rt_jit_target_parse(rt_jit_target_names[k], &got));
    assert_int_equal(got, k);
  }
  rt_jit_target_kind_t none;
  assert_false(rt_jit_target_parse("avx", &none));
  assert_null(rt_jit_target_names[RT_JIT_TARGET_KIND_COUNT]);

  rt_jit_target_t t;
  assert_ok(rt_jit_target_resolve(RT_JIT_TARGET_HOST, &t));
  assert_int_equal(t.kind, RT_JIT_TARGET_HOST);
  assert_true(t.vector_width == 8 || t.vector_width == 16);
  assert_true(t.cpu[0] != '\0');
  /* The machine's L2 (sysfs, else 256 KiB), in the checked range, on
   * every resolved target; the unchecked ones take the default. */
  assert_true(t.l2_bytes >= (64 << 10) && t.l2_bytes <= (64 << 20));
  assert_int_equal(t.l2_bytes, rt_jit_host_l2_bytes());
  assert_ok(rt_jit_target_resolve_unchecked(RT_JIT_TARGET_AVX512, &t));
  assert_int_equal(t.l2_bytes, 256 << 10);
  assert_ok(rt_jit_target_resolve(RT_JIT_TARGET_GENERIC, &t));
  assert_int_equal(t.l2_bytes, rt_jit_host_l2_bytes());
  assert_string_equal(t.cpu, "x86-64");
  assert_int_equal(t.vector_width, 8);
  const struct { rt_jit_target_kind_t kind; const char *cpu; int32_t vw; } named[] = {
      {RT_JIT_TARGET_AVX2, "haswell", 8}, {RT_JIT_TARGET_AVX512, "skylake-avx512", 16}};
  for (size_t i = 0; i < sizeof named / sizeof named[0]; ++i) {
    rt_status_t st = rt_jit_target_resolve(named[i].kind, &t);
    if (st) {
      assert_int_equal(rt_status_code(st), RT_STATUS_FAILED_PRECONDITION);
      assert_non_null(strstr(rt_status_message(st), rt_jit_target_names[named[i].kind]));
      rt_status_free(st);
      continue;
    }
    assert_string_equal(t.cpu, named[i].cpu);
    assert_int_equal(t.vector_width, named[i].vw);
    assert_string_equal(t.features, "");
  }

  const char *saved = getenv("RELAYRT_JIT_TARGET");
  char *keep = saved ? rt_mem_strdup(saved) : NULL;
  setenv("RELAYRT_JIT_TARGET", "generic", 1);
  assert_ok(rt_jit_target_resolve(RT_JIT_TARGET_DEFAULT, &t));
  assert_int_equal(t.kind, RT_JIT_TARGET_GENERIC);
  setenv("RELAYRT_JIT_TARGET", "avx3", 1);
  rt_status_t st = rt_jit_target_resolve(RT_JIT_TARGET_DEFAULT, &t);
  assert_int_equal(rt_status_code(st), RT_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(rt_status_message(st), "avx3"));
  rt_status_free(st);
  unsetenv("RELAYRT_JIT_TARGET");
  assert_ok(rt_jit_target_resolve(RT_JIT_TARGET_DEFAULT, &t));
  assert_int_equal(t.kind, RT_JIT_TARGET_HOST);
  if (keep) setenv("RELAYRT_JIT_TARGET", keep, 1);
  rt_mem_free(keep);
}

/* A kernel cached on disk for one target is not served to another (the
 * target is part of its identity), and is served to the same target. */
static void test_jit_target_separates_kernels(void **state) {
  (void)state;
  char dir[] = "/tmp/relayrt-target-XXXXXX";
  assert_non_null(mkdtemp(dir));
  const char *saved = getenv("RELAYRT_CACHE_DIR");
  char *keep = saved ? rt_mem_strdup(saved) : NULL;
  setenv("RELAYRT_CACHE_DIR", dir, 1);
  rt_module_t *m = jt_parse(
      "#[version = \"0.0.5\"]\n"
      "def @f(%x: Tensor[(4, 8), float32], %w: Tensor[(16, 8), float32]) { nn.dense(%x, %w) }\n");
  rt_ir_expr_t *fn = rt_ir_module_lookup(m, "f");
  const rt_jit_target_kind_t order[] = {RT_JIT_TARGET_HOST, RT_JIT_TARGET_GENERIC, RT_JIT_TARGET_HOST};
  const int32_t want_disk_hits[] = {0, 0, 1};
  for (int32_t i = 0; i < 3; ++i) {
    rt_jit_session_t *s = NULL;
    assert_ok(rt_jit_session_create_for(rt_allocator_system(), order[i], &s));
    if (order[i] == RT_JIT_TARGET_GENERIC) assert_string_equal(rt_jit_session_cpu(s), "x86-64");
    rt_jit_module_t *jm = NULL;
    rt_jit_build_stats_t st;
    assert_ok(rt_jit_build(s, 1, &fn, NULL, 0, &st, &jm));
    assert_int_equal(st.disk_hits, want_disk_hits[i]);
    assert_int_equal(st.compiled, 1 - want_disk_hits[i]);
    rt_jit_module_release(jm);
    rt_jit_session_release(s);
  }
  rt_module_release(m);
  if (keep) setenv("RELAYRT_CACHE_DIR", keep, 1);
  else unsetenv("RELAYRT_CACHE_DIR");
  rt_mem_free(keep);
  char cmd[96];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_jit_session_threads),
      cmocka_unit_test(test_jit_kernel_checks_descriptors),
      cmocka_unit_test(test_jit_session_parallel_for),
      cmocka_unit_test(test_jit_session_task_split_cost),
      cmocka_unit_test(test_jit_session_source),
      cmocka_unit_test(test_jit_target_resolve),
      cmocka_unit_test(test_jit_target_separates_kernels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
