/* The differential suite (after ggml's test-backend-ops): every case of the
 * differential catalogue (catalogue.h: every op of ir/ops.def, on several
 * random shapes and the dtypes it supports) that is marked CAT_EXEC, run
 * through every executor in kExecutors and compared with the "debug"
 * executor (the reference interpreter) by per-dtype tolerances; then every
 * corpus program the graph executor accepts, and the example CNN. The same
 * catalogue feeds test/jit/test_jit_ops.c (one JIT module against the
 * interpreter). The catalogue is checked first (cat_check): an op of
 * ops.def without a case, or a case naming an op it does not have, fails
 * the suite, so no op is skipped silently.
 *
 * Batching. Creating an executor costs a JIT module (~4 ms fixed plus the
 * kernels, found by compiling the same small kernels as one module and as one
 * module each, LLVM 19), so cases run in batches: one @main whose params are
 * every case's params (renamed %c<k>_<name>) and whose result is the tuple of
 * every case's result. The cases stay independent dataflow (FuseOps never
 * joins them), each one its own kernel. A batch that fails to build or run is
 * rerun case by case, so a failure names its case. Cases that need a pass
 * disabled (SimplifyInference, to send the composites to the JIT as
 * themselves; FoldConstant, to keep arange/shape_of from folding) batch
 * separately with that pass context. Inputs are random, shaped by each
 * param's name (cat_input_domain).
 *
 * Tolerances: float32 |got - want| <= atol + rtol * |want| with 1e-5/1e-5
 * for elementwise ops (TOL_E) and 1e-4/1e-5 for accumulations (TOL_A: the
 * JIT accumulates float32 in float with reassociation, the reference in
 * double), and for Winograd (TOL_W) 1e-4 of the output's largest magnitude
 * plus 1e-5; float64 1e-10; float16 2e-3; integers and bools exact; NaN equals
 * NaN. Dtypes and shapes must match exactly.
 *
 * The graph executor binds `?` input dims before it compiles (it
 * specializes itself per input shape), so its kernels never see them: the
 * dynamic-dim cases (NOPASS_JIT) are checked at the JIT level: rt_jit_build
 * on the function, run at two sizes, against the debug executor. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_util.h"
#include "ir/ir.h"
#include "jit/jit.h"
#include "runtime/mem.h"

#include "catalogue.h"

/* ---- executors under test ---------------------------------------------------- */

typedef struct exec_t {
  const char *kind;
  bool unavailable; /* create said UNIMPLEMENTED: skipped with a note */
} exec_t;

static exec_t kExecutors[] = {{"graph", false}, {"vm", false}};
#define NUM_EXECUTORS ((int32_t)RT_COUNTOF(kExecutors))

static dcase_t *g_cases;
static int32_t g_ncases;

/* ---- comparison --------------------------------------------------------------- */

static bool close_to(const rt_tensor_t *got, const rt_tensor_t *want, tol_t tol, char *why, size_t cap) {
  rt_dtype_t gd = rt_tensor_dtype(got), wd = rt_tensor_dtype(want);
  if (gd.code != wd.code || gd.bits != wd.bits || gd.lanes != wd.lanes) {
    snprintf(why, cap, "dtype code %u bits %u, want code %u bits %u", gd.code, gd.bits, wd.code, wd.bits);
    return false;
  }
  if (rt_tensor_rank(got) != rt_tensor_rank(want) ||
      memcmp(rt_tensor_shape(got), rt_tensor_shape(want), (size_t)rt_tensor_rank(got) * sizeof(int64_t)) != 0) {
    snprintf(why, cap, "shape differs (rank %d, want %d)", rt_tensor_rank(got), rt_tensor_rank(want));
    return false;
  }
  double rtol = 0, atol = 0;
  if (wd.code == kDLFloat || wd.code == kDLBfloat) {
    if (wd.bits == 64) {
      rtol = atol = 1e-10;
    } else if (wd.bits == 16) {
      rtol = atol = 2e-3;
    } else {
      rtol = tol == TOL_E ? 1e-5 : 1e-4;
      atol = 1e-5;
    }
  }
  if (tol == TOL_W && rtol > 0) {
    double big = 0;
    for (int64_t i = 0; i < rt_tensor_numel(want); ++i) {
      const double b = fabs(rt_tensor_get_f64(want, i));
      if (b > big && !isinf(b)) big = b;
    }
    atol += rtol * big;
  }
  for (int64_t i = 0; i < rt_tensor_numel(want); ++i) {
    double a = rt_tensor_get_f64(got, i), b = rt_tensor_get_f64(want, i);
    if (isnan(a) && isnan(b)) continue;
    if (a == b) continue;
    if (rtol > 0 && fabs(a - b) <= atol + rtol * fabs(b)) continue;
    snprintf(why, cap, "element %lld: got %.9g, want %.9g", (long long)i, a, b);
    return false;
  }
  return true;
}

/* ---- programs ----------------------------------------------------------------- */

typedef struct strbuf_t {
  char *data;
  size_t len, cap;
} strbuf_t;

static void sb_put(strbuf_t *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    b->data = rt_mem_realloc(b->data, b->cap);
    assert_non_null(b->data);
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

static void sb_puts(strbuf_t *b, const char *s) { sb_put(b, s, strlen(s)); }

/* Copies s with every param `%name` renamed `%c<k>_name` and every
 * binding `%<n>` renumbered `%<16 k + n>` (bindings must be numbers). */
static void sb_renamed(strbuf_t *b, const char *s, int32_t k) {
  char pre[24];
  snprintf(pre, sizeof pre, "%%c%d_", (int)k);
  for (; *s; ++s) {
    if (*s == '%' && s[1] >= '0' && s[1] <= '9') {
      char *end;
      long v = strtol(s + 1, &end, 10);
      char num[24];
      snprintf(num, sizeof num, "%%%ld", 16L * k + v);
      sb_puts(b, num);
      s = end - 1;
    } else if (*s == '%' && s[1] && (s[1] == '_' || (s[1] >= 'a' && s[1] <= 'z') ||
                                     (s[1] >= 'A' && s[1] <= 'Z'))) {
      sb_puts(b, pre);
    } else {
      sb_put(b, s, 1);
    }
  }
}

/* Copies a signature with every dim of every tensor type made `?`. */
static void sb_any_dims(strbuf_t *b, const char *s) {
  for (; *s; ++s) {
    if (strncmp(s, "Tensor[(", 8) == 0) {
      sb_put(b, s, 8);
      s += 8;
      while (*s && *s != ')') {
        if (*s >= '0' && *s <= '9') {
          sb_puts(b, "?");
          while (*s >= '0' && *s <= '9') ++s;
        } else {
          sb_put(b, s++, 1);
        }
      }
      if (!*s) return;
    }
    sb_put(b, s, 1);
  }
}

/* One @main over cases idx[0..n): params renamed, result the tuple of
 * every case's result. A case body "s1; s2; e" becomes "s1; s2; %<16 k +
 * 15> = e;". With any_dims, every dim of every param is `?`. */
static char *batch_text(const int32_t *idx, int32_t n, bool any_dims) {
  strbuf_t b = {0};
  sb_puts(&b, "#[version = \"0.0.5\"]\ndef @main(");
  bool first = true;
  for (int32_t j = 0; j < n; ++j) {
    const dcase_t *c = &g_cases[idx[j]];
    if (!*c->sig) continue;
    if (!first) sb_puts(&b, ", ");
    first = false;
    if (any_dims) {
      strbuf_t r = {0};
      sb_renamed(&r, c->sig, idx[j]);
      sb_put(&r, "", 1);
      sb_any_dims(&b, r.data);
      rt_mem_free(r.data);
    } else {
      sb_renamed(&b, c->sig, idx[j]);
    }
  }
  sb_puts(&b, ") {\n");
  for (int32_t j = 0; j < n; ++j) {
    const dcase_t *c = &g_cases[idx[j]];
    const char *last = strrchr(c->body, ';');
    char tmp[32];
    sb_puts(&b, "  ");
    if (last) {
      char head[600];
      snprintf(head, sizeof head, "%.*s", (int)(last - c->body + 1), c->body);
      sb_renamed(&b, head, idx[j]);
      sb_puts(&b, "\n  ");
    }
    snprintf(tmp, sizeof tmp, "%%%d = ", (int)(16 * idx[j] + 15));
    sb_puts(&b, tmp);
    sb_renamed(&b, last ? last + 1 : c->body, idx[j]);
    sb_puts(&b, ";\n");
  }
  sb_puts(&b, "  (");
  for (int32_t j = 0; j < n; ++j) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%s%%%d", j ? ", " : "", (int)(16 * idx[j] + 15));
    sb_puts(&b, tmp);
  }
  sb_puts(&b, n == 1 ? ",)\n}\n" : ")\n}\n");
  return b.data;
}

static rt_status_t make_ctx(int32_t nopass, rt_pass_context_t **out) {
  *out = NULL;
  if (nopass == NOPASS_NONE) return RT_OK;
  RT_RETURN_IF_ERROR(rt_pass_context_create(out));
  if (nopass & NOPASS_SIMPLIFY) RT_RETURN_IF_ERROR(rt_pass_context_disable(*out, "SimplifyInference"));
  if (nopass & NOPASS_FOLD) RT_RETURN_IF_ERROR(rt_pass_context_disable(*out, "FoldConstant"));
  return RT_OK;
}

/* Random inputs for every input of ex, by name. */
static void make_inputs(rt_executor_t *ex, uint64_t seed, rt_tensor_t **ins, int32_t *out_n) {
  const int32_t n = rt_executor_num_inputs(ex);
  for (int32_t i = 0; i < n; ++i) {
    rt_tensor_info_t info;
    assert_ok(rt_executor_input_info(ex, i, &info));
    int64_t shape[RT_TENSOR_MAX_RANK];
    for (int32_t k = 0; k < info.rank; ++k) shape[k] = info.shape[k] < 0 ? 3 : info.shape[k];
    assert_ok(rt_tensor_create(rt_allocator_system(), info.dtype, info.rank, shape, &ins[i]));
    rt_tensor_fill_random(ins[i], seed + (uint64_t)i * 7919u);
    /* Names are c<k>_<param>: the domain is the param part. */
    const char *u = strchr(info.name, '_');
    cat_input_domain(ins[i], u && info.name[0] == 'c' ? u + 1 : info.name);
  }
  *out_n = n;
}

/* Runs ex on ins; outputs (new references) into outs. */
static rt_status_t run_exec(rt_executor_t *ex, int32_t nin, rt_tensor_t **ins, rt_tensor_t **outs,
                            int32_t *out_n) {
  for (int32_t i = 0; i < nin; ++i) RT_RETURN_IF_ERROR(rt_executor_set_input(ex, i, ins[i]));
  RT_RETURN_IF_ERROR(rt_executor_run(ex));
  const int32_t n = rt_executor_num_outputs(ex);
  for (int32_t o = 0; o < n; ++o) {
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(rt_executor_get_output(ex, o, &t));
    rt_tensor_retain(t);
    outs[o] = t;
  }
  *out_n = n;
  return RT_OK;
}

static int64_t g_cases_run, g_execs_created;
static int64_t g_cases_by_exec[4];

#define MAX_IO 1024

/* The executors run on the cases with every input dim `?` (the reference
 * runs the static program on the same inputs). */
static exec_t kAnyDimExecutors[] = {{"debug", false}, {"vm", false}};

/* Programs whose types `?` dims make undecidable: type inference must
 * refuse them, saying what to give instead (checked, and counted). */
static const struct {
  const char *op, *body_has, *message_has;
} kAnyDimRefusals[] = {
    {"squeeze", "squeeze(%x)", "give axis"},          /* which dims are 1 fixes the rank */
    {"gather_nd", "gather_nd(", "set index_rank"},    /* indices' first dim fixes the rank */
    {"scatter_nd", "scatter_nd(", "must be static"},  /* indices' first dim is the tuple length (h3) */
};
static int64_t g_any_dim_refused;

static bool refused_as_documented(const dcase_t *c, const char *message) {
  for (size_t r = 0; r < RT_COUNTOF(kAnyDimRefusals); ++r) {
    if (strcmp(c->op, kAnyDimRefusals[r].op) == 0 && strstr(c->body, kAnyDimRefusals[r].body_has) &&
        strstr(message, kAnyDimRefusals[r].message_has)) {
      return true;
    }
  }
  return false;
}

/* Runs cases idx[0..n) (one nopass class) as one program through every
 * executor; returns the number of failures. With `alone`, failures are
 * reported; otherwise a failing batch is rerun case by case. With
 * `any_dims`, the executors of kAnyDimExecutors run the program with every
 * param dim `?`. */
static int32_t run_batch(const int32_t *idx, int32_t n, bool alone, bool any_dims) {
  char *text = batch_text(idx, n, false);
  char *any_text = any_dims ? batch_text(idx, n, true) : NULL;
  exec_t *execs = any_dims ? kAnyDimExecutors : kExecutors;
  const int32_t nexecs = any_dims ? (int32_t)RT_COUNTOF(kAnyDimExecutors) : NUM_EXECUTORS;
  int32_t failures = 0;
  rt_module_t *m = NULL, *m_run = NULL;
  rt_status_t st = rt_module_parse(text, strlen(text), "differential.relay", &m);
  if (!st && any_text) {
    st = rt_module_parse(any_text, strlen(any_text), "differential-any.relay", &m_run);
    if (st && alone && refused_as_documented(&g_cases[idx[0]], rt_status_message(st))) {
      g_any_dim_refused++;
      g_cases_run++;
      rt_status_free(st);
      rt_module_release(m);
      rt_mem_free(text);
      rt_mem_free(any_text);
      return 0;
    }
  }
  if (!st && !any_text) {
    rt_module_retain(m);
    m_run = m;
  }
  rt_pass_context_t *ctx = NULL;
  if (!st) st = make_ctx(g_cases[idx[0]].nopass, &ctx);
  rt_executor_t *ref = NULL;
  if (!st) st = rt_create_executor("debug", m, NULL, ctx, NULL, &ref);
  rt_tensor_t **ins = rt_mem_calloc(MAX_IO, sizeof *ins), **want = rt_mem_calloc(MAX_IO, sizeof *want);
  rt_tensor_t **got = rt_mem_calloc(MAX_IO, sizeof *got);
  int32_t nin = 0, nwant = 0;
  if (!st) {
    make_inputs(ref, 0x5eed0000u + (uint64_t)idx[0] * 131u, ins, &nin);
    st = run_exec(ref, nin, ins, want, &nwant);
  }
  if (st) {
    if (alone) {
      fprintf(stderr, "FAIL case %d (%s) %s: reference: %s\n", idx[0], g_cases[idx[0]].op,
              g_cases[idx[0]].body, rt_status_message(st));
      failures = 1;
    }
    rt_status_free(st);
    st = RT_STATUS(INTERNAL, "reference");
  }
  for (int32_t e = 0; !st && e < nexecs && failures == 0; ++e) {
    if (execs[e].unavailable) continue;
    rt_executor_t *ex = NULL;
    rt_status_t es = rt_create_executor(execs[e].kind, m_run, NULL, ctx, NULL, &ex);
    g_execs_created++;
    if (es && rt_status_code(es) == RT_STATUS_UNIMPLEMENTED && strstr(rt_status_message(es), "not built")) {
      printf("# note: executor \"%s\" is not built yet (%s); skipped\n", execs[e].kind, rt_status_message(es));
      execs[e].unavailable = true;
      rt_status_free(es);
      continue;
    }
    int32_t ngot = 0;
    if (!es) es = run_exec(ex, nin, ins, got, &ngot);
    if (!es && ngot != nwant) es = RT_STATUS(INTERNAL, "%d outputs, the reference has %d", ngot, nwant);
    if (es) {
      if (alone) fprintf(stderr, "FAIL case %d (%s) %s sig %s%s [%s]: %s\n", idx[0], g_cases[idx[0]].op, g_cases[idx[0]].body,
                         g_cases[idx[0]].sig, any_dims ? " (dims `?`)" : "", execs[e].kind, rt_status_message(es));
      rt_status_free(es);
      failures++;
    } else {
      int32_t o = 0;
      for (int32_t j = 0; j < n; ++j) {
        const dcase_t *c = &g_cases[idx[j]];
        bool bad = false;
        for (int32_t k = 0; k < c->nout && o < ngot; ++k, ++o) {
          char why[200];
          if (!close_to(got[o], want[o], c->tol, why, sizeof why)) {
            fprintf(stderr, "FAIL case %d (%s) %s: sig %s%s [%s] output %d: %s\n", idx[j], c->op, c->body,
                    c->sig, any_dims ? " (dims `?`)" : "", execs[e].kind, k, why);
            bad = true;
          }
        }
        if (bad) failures++;
        g_cases_by_exec[any_dims ? 2 + e : e]++;
      }
      if (o != ngot) {
        fprintf(stderr, "FAIL batch at case %d: output count mismatch (%d of %d)\n", idx[0], o, ngot);
        failures++;
      }
    }
    for (int32_t k = 0; k < ngot; ++k) rt_tensor_release(got[k]);
    rt_executor_release(ex);
  }
  if (!alone && (st || failures)) {
    /* Find the culprits. */
    failures = 0;
    for (int32_t j = 0; j < n; ++j) failures += run_batch(&idx[j], 1, true, any_dims);
  } else if (alone) {
    g_cases_run += 1;
  } else {
    g_cases_run += n;
  }
  rt_status_free(st);
  for (int32_t k = 0; k < nin; ++k) rt_tensor_release(ins[k]);
  for (int32_t k = 0; k < nwant; ++k) rt_tensor_release(want[k]);
  rt_mem_free(ins);
  rt_mem_free(want);
  rt_mem_free(got);
  rt_executor_release(ref);
  rt_pass_context_release(ctx);
  rt_module_release(m);
  rt_module_release(m_run);
  rt_mem_free(text);
  rt_mem_free(any_text);
  return failures;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- tests -------------------------------------------------------------------- */

/* Every CAT_EXEC case, in batches of one nopass class; returns the failures. */
static int32_t run_catalogue(bool any_dims, int32_t *out_nexec) {
  int32_t failures = 0;
  const int32_t kBatch = 64;
  int32_t *idx = rt_mem_calloc((size_t)g_ncases, sizeof *idx);
  assert_non_null(idx);
  *out_nexec = 0;
  for (int32_t np = 0; np < 4; ++np) { /* NOPASS_JIT cases: test_differential_jit_level */
    int32_t n = 0;
    for (int32_t k = 0; k < g_ncases; ++k) {
      if (g_cases[k].nopass != np || !(g_cases[k].runs & CAT_EXEC)) continue;
      ++*out_nexec;
      idx[n++] = k;
      if (n == kBatch) {
        failures += run_batch(idx, n, false, any_dims);
        n = 0;
      }
    }
    if (n) failures += run_batch(idx, n, false, any_dims);
  }
  rt_mem_free(idx);
  return failures;
}

/* Every op of ops.def has a case; then every case through every executor. */
static void test_differential_ops(void **state) {
  (void)state;
  g_cases = cat_build(&g_ncases);
  const int32_t problems = cat_check(g_cases, g_ncases);
  /* Dtypes covered. */
  static const char *const kDtypes[] = {"float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "bool"};
  int32_t ndt = 0;
  for (size_t d = 0; d < RT_COUNTOF(kDtypes); ++d) {
    for (int32_t k = 0; k < g_ncases; ++k) {
      if (strstr(g_cases[k].sig, kDtypes[d]) || strstr(g_cases[k].body, kDtypes[d])) {
        ndt++;
        break;
      }
    }
  }
  const double t0 = now_s();
  int32_t nexec = 0;
  const int32_t failures = run_catalogue(false, &nexec);
  printf("# catalogue: %d cases over %zu ops (+ fused patterns), %d dtypes; %d for the executors, %lld run, %d failed; %lld executors created; %.1f s\n",
         g_ncases, cat_num_ops, ndt, nexec, (long long)g_cases_run, failures, (long long)g_execs_created, now_s() - t0);
  for (int32_t e = 0; e < NUM_EXECUTORS; ++e) {
    printf("#   %s: %lld cases%s\n", kExecutors[e].kind, (long long)g_cases_by_exec[e],
           kExecutors[e].unavailable ? " (not built: skipped)" : "");
  }
  rt_mem_free(g_cases);
  assert_int_equal(problems, 0);
  assert_int_equal(failures, 0);
}

/* The CAT_DEBUG cases (the list and option ops): each runs on the debug
 * executor and on the vm (as host ops, backend/vm_host.c), whose outputs
 * must equal the debug executor's, and the graph executor refuses it
 * naming the vm and debug executors. */
static void test_differential_lists(void **state) {
  (void)state;
  dcase_t *cases = cat_build(&g_ncases);
  g_cases = cases;
  int32_t failures = 0, n = 0;
  for (int32_t k = 0; k < g_ncases; ++k) {
    if (!(g_cases[k].runs & CAT_DEBUG)) continue;
    ++n;
    char *text = batch_text(&k, 1, false);
    rt_module_t *m = NULL;
    assert_ok(rt_module_parse(text, strlen(text), "lists.relay", &m));
    static const char *const kinds[] = {"debug", "vm", "graph"};
    rt_tensor_t *want[MAX_IO];
    int32_t nwant = 0;
    for (size_t e = 0; e < RT_COUNTOF(kinds); ++e) {
      rt_executor_t *ex = NULL;
      rt_tensor_t *ins[MAX_IO], *outs[MAX_IO];
      int32_t nin = 0, nout = 0;
      rt_status_t st = rt_create_executor(kinds[e], m, NULL, NULL, NULL, &ex);
      if (!st) {
        make_inputs(ex, 17, ins, &nin);
        st = run_exec(ex, nin, ins, outs, &nout);
        for (int32_t i = 0; i < nin; ++i) rt_tensor_release(ins[i]);
        rt_executor_release(ex);
      }
      const bool graph = e == 2;
      if (!graph && st) {
        fprintf(stderr, "FAIL %s on %s: %s\n", g_cases[k].op, kinds[e], rt_status_message(st));
        ++failures;
      } else if (graph && (!st || !strstr(rt_status_message(st), "\"vm\" or \"debug\""))) {
        fprintf(stderr, "FAIL %s on graph: %s\n", g_cases[k].op,
                st ? rt_status_message(st) : "ran (expected a refusal naming the vm and debug executors)");
        ++failures;
      }
      if (!st && e == 0) {
        memcpy(want, outs, (size_t)nout * sizeof *outs);
        nwant = nout;
      } else if (!st) {
        char why[256] = "";
        bool same = nout == nwant;
        for (int32_t o = 0; same && o < nout; ++o) same = close_to(outs[o], want[o], TOL_E, why, sizeof why);
        if (!same) {
          fprintf(stderr, "FAIL %s on %s: differs from debug (%d outputs, want %d) %s\n",
                  g_cases[k].op, kinds[e], (int)nout, (int)nwant, why);
          ++failures;
        }
        for (int32_t o = 0; o < nout; ++o) rt_tensor_release(outs[o]);
      }
      rt_status_free(st);
    }
    for (int32_t o = 0; o < nwant; ++o) rt_tensor_release(want[o]);
    rt_module_release(m);
    rt_mem_free(text);
  }
  printf("# list and option cases (debug, vm; graph refuses): %d, %d failed\n", n, failures);
  rt_mem_free(cases);
  g_cases = NULL;
  assert_true(n > 0);
  assert_int_equal(failures, 0);
}

/* The catalogue again with every input dim of every case `?`: the vm
 * compiles what it cannot run for any shape per shape, the interpreter
 * sizes everything at run time; both against the reference on the static
 * program, same inputs. */
static void test_differential_any_dims(void **state) {
  (void)state;
  g_cases = cat_build(&g_ncases);
  const double t0 = now_s();
  int32_t nexec = 0;
  const int64_t before = g_cases_run;
  const int32_t failures = run_catalogue(true, &nexec);
  printf("# every dim `?`: %d cases, %lld run, %d failed, %lld refused by type inference as "
         "documented (kAnyDimRefusals); %.1f s\n", nexec, (long long)(g_cases_run - before),
         failures, (long long)g_any_dim_refused, now_s() - t0);
  for (int32_t e = 0; e < (int32_t)RT_COUNTOF(kAnyDimExecutors); ++e) {
    printf("#   %s: %lld cases\n", kAnyDimExecutors[e].kind, (long long)g_cases_by_exec[2 + e]);
  }
  rt_mem_free(g_cases);
  assert_int_equal(failures, 0);
}

/* Runs one whole program (a corpus file, the example) through every
 * executor against the reference. Returns 1 when it ran, 0 when skipped
 * (the reason in why), and counts failures. */
static int32_t run_program(const char *path, char *why, size_t cap, int32_t *failures) {
  rt_module_t *m = NULL;
  rt_status_t st = rt_module_load(path, &m);
  if (st) {
    snprintf(why, cap, "does not load (%.60s)", rt_status_message(st));
    rt_status_free(st);
    return 0;
  }
  rt_executor_t *ref = NULL, *ex = NULL;
  st = rt_create_executor("graph", m, NULL, NULL, NULL, &ex);
  if (st) {
    const char *msg = rt_status_message(st);
    const char *p = strstr(msg, "does not run ");
    if (p) {
      p += strlen("does not run ");
      const char *e = strchr(p, '(');
      snprintf(why, cap, "graph refuses %.*s", (int)(e ? e - p - 1 : 40), p);
    } else if (strstr(msg, "not a tensor") || strstr(msg, "no @main")) {
      snprintf(why, cap, "%s", strstr(msg, "no @main") ? "no @main" : "non-tensor inputs or outputs");
    } else {
      fprintf(stderr, "FAIL %s: the graph executor: %s\n", path, msg);
      ++*failures;
      rt_status_free(st);
      rt_module_release(m);
      return 1;
    }
    rt_status_free(st);
    rt_module_release(m);
    return 0;
  }
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ref));
  rt_tensor_t *ins[MAX_IO], *want[MAX_IO], *got[MAX_IO];
  int32_t nin = 0, nwant = 0, ngot = 0;
  make_inputs(ref, 77, ins, &nin);
  st = run_exec(ref, nin, ins, want, &nwant);
  int32_t ran = 1;
  if (st) {
    snprintf(why, cap, "the reference fails on random inputs");
    rt_status_free(st);
    ran = 0;
  }
  for (int32_t e = 0; ran && e < NUM_EXECUTORS; ++e) {
    if (kExecutors[e].unavailable) continue;
    rt_executor_t *x = ex;
    if (e > 0) {
      st = rt_create_executor(kExecutors[e].kind, m, NULL, NULL, NULL, &x);
      if (st) {
        if (rt_status_code(st) == RT_STATUS_UNIMPLEMENTED && strstr(rt_status_message(st), "not built")) {
          kExecutors[e].unavailable = true;
        } else {
          fprintf(stderr, "FAIL %s [%s]: %s\n", path, kExecutors[e].kind, rt_status_message(st));
          ++*failures;
        }
        rt_status_free(st);
        continue;
      }
    }
    st = run_exec(x, nin, ins, got, &ngot);
    if (st) {
      fprintf(stderr, "FAIL %s [%s]: run: %s\n", path, kExecutors[e].kind, rt_status_message(st));
      rt_status_free(st);
      ++*failures;
      ngot = 0;
    }
    for (int32_t o = 0; o < ngot && o < nwant; ++o) {
      char w[200];
      if (!close_to(got[o], want[o], TOL_A, w, sizeof w)) {
        fprintf(stderr, "FAIL %s [%s] output %d: %s\n", path, kExecutors[e].kind, o, w);
        ++*failures;
      }
    }
    for (int32_t o = 0; o < ngot; ++o) rt_tensor_release(got[o]);
    if (x != ex) rt_executor_release(x);
  }
  for (int32_t k = 0; k < nin; ++k) rt_tensor_release(ins[k]);
  for (int32_t k = 0; k < nwant; ++k) rt_tensor_release(want[k]);
  rt_executor_release(ref);
  rt_executor_release(ex);
  rt_module_release(m);
  return ran;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_differential_corpus(void **state) {
  (void)state;
  const char *dir = rt_test_path("ir/corpus");
  char dpath[1024];
  snprintf(dpath, sizeof dpath, "%s", dir);
  DIR *d = opendir(dpath);
  assert_non_null(d);
  char *names[512];
  int32_t n = 0;
  for (struct dirent *de; (de = readdir(d)) != NULL && n < 512;) {
    size_t len = strlen(de->d_name);
    if (len > 6 && strcmp(de->d_name + len - 6, ".relay") == 0) names[n++] = rt_mem_strdup(de->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  int32_t ran = 0, skipped = 0, failures = 0;
  for (int32_t i = 0; i < n; ++i) {
    char path[1200], why[160] = "";
    snprintf(path, sizeof path, "%s/%s", dpath, names[i]);
    if (run_program(path, why, sizeof why, &failures)) {
      ++ran;
    } else {
      ++skipped;
      printf("# skipped %s: %s\n", names[i], why);
    }
    rt_mem_free(names[i]);
  }
  char ex[1200], why[160] = "";
  snprintf(ex, sizeof ex, "%s/../examples/cnn.relay", rt_test_path("."));
  const int32_t ex_ran = run_program(ex, why, sizeof why, &failures);
  if (!ex_ran) fprintf(stderr, "FAIL examples/cnn.relay was skipped: %s\n", why);
  printf("# corpus: %d programs run, %d skipped; examples/cnn.relay %s; %d failures\n", ran, skipped,
         ex_ran ? "run" : "skipped", failures);
  assert_int_equal(ex_ran, 1);
  assert_int_equal(failures, 0);
}

/* ---- `?` dims, at the JIT level ----------------------------------------------- */

/* Case k through rt_jit_build at two sizes of its `?` dims, against the
 * debug executor. */
static int32_t run_jit_case(rt_jit_session_t *s, int32_t k) {
  const dcase_t *c = &g_cases[k];
  char text[1200];
  snprintf(text, sizeof text, "#[version = \"0.0.5\"]\ndef @main(%s) {\n  %s\n}\n", c->sig, c->body);
  int32_t failures = 0;
  rt_module_t *m = NULL;
  assert_ok(rt_module_parse(text, strlen(text), "jit_case.relay", &m));
  rt_ir_expr_t *fn = rt_ir_module_lookup(m, "main");
  assert_non_null(fn);
  rt_jit_module_t *jm = NULL;
  rt_status_t st = rt_jit_build(s, 1, &fn, NULL, 0, NULL, &jm);
  if (st) {
    fprintf(stderr, "FAIL case %d (%s) %s: jit: %s\n", k, c->op, c->body, rt_status_message(st));
    rt_status_free(st);
    rt_module_release(m);
    return 1;
  }
  rt_executor_t *ref = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ref));
  const int64_t sizes[2] = {1, 13};
  for (int32_t z = 0; z < 2; ++z) {
    rt_tensor_t *ins[8], *want[1] = {0};
    const int32_t nin = fn->fn.nparams;
    for (int32_t i = 0; i < nin; ++i) {
      rt_ir_type_t *t = rt_ir_type_resolve(fn->fn.params[i]->checked_type);
      int64_t shape[RT_TENSOR_MAX_RANK];
      for (int32_t d = 0; d < t->tensor.rank; ++d) {
        shape[d] = t->tensor.shape[d] == RT_DIM_ANY ? sizes[z] : t->tensor.shape[d];
      }
      assert_ok(rt_tensor_create(rt_allocator_system(), t->tensor.dtype, t->tensor.rank, shape, &ins[i]));
      rt_tensor_fill_random(ins[i], 900 + (uint64_t)(z * 10 + i) + (uint64_t)k * 31u);
      cat_input_domain(ins[i], fn->fn.params[i]->var.name);
    }
    int32_t nout = 0;
    assert_ok(run_exec(ref, nin, ins, want, &nout));
    rt_tensor_t *got = NULL;
    assert_ok(rt_tensor_create(rt_allocator_system(), rt_tensor_dtype(want[0]), rt_tensor_rank(want[0]),
                               rt_tensor_shape(want[0]), &got));
    rt_kernel_arg args[9];
    for (int32_t i = 0; i < nin; ++i) rt_jit_arg_from_tensor(ins[i], &args[i]);
    rt_jit_arg_from_tensor(got, &args[nin]);
    rt_jit_simple_ctx_t ctx;
    rt_jit_simple_ctx_initialize(&ctx);
    char why[200];
    if (rt_jit_module_kernel(jm, 0)(args, nin + 1, &ctx.ctx) != 0) {
      fprintf(stderr, "FAIL case %d (%s) %s size %lld: kernel: %s\n", k, c->op, c->body, (long long)sizes[z], ctx.error);
      ++failures;
    } else if (!close_to(got, want[0], c->tol, why, sizeof why)) {
      fprintf(stderr, "FAIL case %d (%s) %s size %lld: %s\n", k, c->op, c->body, (long long)sizes[z], why);
      ++failures;
    }
    rt_tensor_release(got);
    rt_tensor_release(want[0]);
    for (int32_t i = 0; i < nin; ++i) rt_tensor_release(ins[i]);
  }
  rt_executor_release(ref);
  rt_jit_module_release(jm);
  rt_module_release(m);
  return failures ? 1 : 0;
}

static void test_differential_jit_level(void **state) {
  (void)state;
  g_cases = cat_build(&g_ncases);
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  int32_t failures = 0, n = 0;
  for (int32_t k = 0; k < g_ncases; ++k) {
    if (g_cases[k].nopass != NOPASS_JIT || !(g_cases[k].runs & CAT_EXEC)) continue;
    failures += run_jit_case(s, k);
    ++n;
  }
  printf("# %d JIT-level cases (`?` dims, arange), %d failed\n", n, failures);
  rt_jit_session_release(s);
  rt_mem_free(g_cases);
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_differential_ops),
      cmocka_unit_test(test_differential_lists),
      cmocka_unit_test(test_differential_any_dims),
      cmocka_unit_test(test_differential_corpus),
      cmocka_unit_test(test_differential_jit_level),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
