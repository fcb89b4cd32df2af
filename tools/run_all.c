/* `relayrt run --executor all` (see run.c's opening comment): the model on
 * every executor (debug, graph, vm) on the same inputs, one line each with
 * the compile time, the median latency and the largest absolute and
 * relative difference of every output from the reference interpreter's,
 * "agrees" or "DIFFERS" at --rtol/--atol (numpy's allclose); a difference
 * or a failed executor exits 1, a refusal (graph on control flow) is
 * reported and does not. The disk kernel cache is off, so each compile
 * time is that executor's own. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

/* ---- --executor all: every executor against the reference --------------------- */

#define NUM_KINDS 3
static const char *const kKinds[NUM_KINDS] = {"debug", "graph", "vm"};

typedef struct {
  double max_abs, max_rel;  /* rel: over elements whose reference is not 0 */
  int64_t beyond, count;    /* elements outside atol + rtol * |ref|, of count */
  int32_t first_output;     /* the first such element: output, index, values */
  int64_t first_index;
  double first_got, first_ref;
  int32_t mismatch_output;  /* an output whose dtype or shape differs; -1: none */
} diff_t;

static void diff_init(diff_t *d) {
  memset(d, 0, sizeof *d);
  d->first_output = -1;
  d->mismatch_output = -1;
}

static bool same_type(const rt_tensor_t *a, const rt_tensor_t *b) {
  if (!rt_dtype_equal(rt_tensor_dtype(a), rt_tensor_dtype(b)) || rt_tensor_rank(a) != rt_tensor_rank(b)) {
    return false;
  }
  for (int32_t d = 0; d < rt_tensor_rank(a); ++d) {
    if (rt_tensor_shape(a)[d] != rt_tensor_shape(b)[d]) return false;
  }
  return true;
}

/* Adds output `index` (got against ref) to d; per-output figures to one. */
static void diff_output(diff_t *d, diff_t *one, int32_t index, const rt_tensor_t *ref,
                        const rt_tensor_t *got, double rtol, double atol) {
  diff_init(one);
  if (!same_type(ref, got)) {
    one->mismatch_output = index;
    if (d->mismatch_output < 0) d->mismatch_output = index;
    return;
  }
  int64_t n = rt_tensor_numel(ref);
  for (int64_t i = 0; i < n; ++i) {
    double r = rt_tensor_get_f64(ref, i), g = rt_tensor_get_f64(got, i);
    double diff = (isnan(r) && isnan(g)) || r == g ? 0.0 : fabs(g - r); /* nan or inf: nan/inf */
    if (isnan(diff)) diff = INFINITY;
    if (diff > one->max_abs) one->max_abs = diff;
    if (r != 0 && !isnan(r) && diff / fabs(r) > one->max_rel) one->max_rel = diff / fabs(r);
    /* A NaN where the reference has one agrees (its diff is 0 above). */
    if (!(diff <= atol + rtol * (isnan(r) ? 0.0 : fabs(r)))) {
      if (one->beyond++ == 0) {
        one->first_output = index;
        one->first_index = i;
        one->first_got = g;
        one->first_ref = r;
      }
    }
  }
  one->count = n;
  if (one->max_abs > d->max_abs) d->max_abs = one->max_abs;
  if (one->max_rel > d->max_rel) d->max_rel = one->max_rel;
  if (one->beyond && d->beyond == 0) {
    d->first_output = one->first_output;
    d->first_index = one->first_index;
    d->first_got = one->first_got;
    d->first_ref = one->first_ref;
  }
  d->beyond += one->beyond;
  d->count += n;
}

typedef enum { KIND_RAN, KIND_REFUSED, KIND_FAILED } kind_state;

typedef struct {
  kind_state state;
  char *message;        /* refused / failed: why (malloc'd) */
  double compile_ms;
  latency_t lat;
  rt_tensor_t **outs;   /* clones of the outputs (num_outputs of them) */
  int32_t num_outputs;
  diff_t diff;          /* against the reference (not for debug itself) */
  diff_t *per_output;   /* num_outputs of them */
  rt_executor_stats_t stats; /* graph with `?` inputs: its specializations */
} kind_result;

static void kind_result_free(kind_result *r) {
  run_release_tensors(r->outs, r->num_outputs);
  free(r->per_output);
  free(r->message);
  memset(r, 0, sizeof *r);
}

/* "449 ms", "1.23 ms", "6.12 us": three digits and a unit that keeps them. */
static void fmt_time(char *buf, size_t cap, double ms) {
  if (ms >= 100) {
    snprintf(buf, cap, "%.0f ms", ms);
  } else if (ms >= 0.1) {
    snprintf(buf, cap, "%.3g ms", ms);
  } else {
    snprintf(buf, cap, "%.3g us", ms * 1e3);
  }
}

/* Runs a created executor on `inputs` and keeps clones of its outputs. */
static rt_status_t run_kind(const run_opts *o, runner *r, rt_tensor_t **inputs, kind_result *res) {
  RT_RETURN_IF_ERROR(run_set_inputs(o, r, inputs));
  RT_RETURN_IF_ERROR(run_time_runs(r, o->warmup, o->repeat, &res->lat));
  if (o->out_dir) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", o->out_dir, r->kind);
    RT_RETURN_IF_ERROR(run_write_outputs(dir, r));
  }
  int32_t n = run_runner_num_outputs(r);
  res->outs = calloc((size_t)(n > 0 ? n : 1), sizeof *res->outs);
  res->per_output = calloc((size_t)(n > 0 ? n : 1), sizeof *res->per_output);
  if (!res->outs || !res->per_output) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t i = 0; i < n; ++i) {
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(run_runner_output(r, i, &t));
    RT_RETURN_IF_ERROR(rt_tensor_clone(rt_allocator_system(), t, &res->outs[i]));
    res->num_outputs = i + 1;
  }
  return RT_OK;
}

/* Records st (consumed) as the executor's refusal or failure. */
static void kind_error(kind_result *res, kind_state state, rt_status_t st) {
  res->state = state;
  const char *m = rt_status_message(st);
  size_t n = strlen(m) + 1;
  res->message = malloc(n);
  if (res->message) memcpy(res->message, m, n);
  rt_status_free(st);
}

static void compare_kind(const run_opts *o, const kind_result *ref, kind_result *res) {
  diff_init(&res->diff);
  if (res->num_outputs != ref->num_outputs) {
    res->diff.mismatch_output = res->num_outputs < ref->num_outputs ? res->num_outputs : ref->num_outputs;
    return;
  }
  for (int32_t i = 0; i < res->num_outputs; ++i) {
    diff_output(&res->diff, &res->per_output[i], i, ref->outs[i], res->outs[i], o->rtol, o->atol);
  }
}

static bool kind_agrees(const kind_result *res) {
  return res->state == KIND_RAN && res->diff.mismatch_output < 0 && res->diff.beyond == 0;
}

/* "a, b and c" of the executors (1..NUM_KINDS-1) in `which`. */
static void kind_list(char *buf, size_t cap, const bool *which) {
  int n = 0, total = 0;
  for (int k = 1; k < NUM_KINDS; ++k) total += which[k];
  buf[0] = '\0';
  for (int k = 1; k < NUM_KINDS; ++k) {
    if (!which[k]) continue;
    size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "%s%s", n == 0 ? "" : n == total - 1 ? " and " : ", ", kKinds[k]);
    n++;
  }
}

static void print_all_text(const run_opts *o, const kind_result *res, int32_t ninputs) {
  const kind_result *ref = &res[0];
  printf("model: %s; %d input%s", o->model ? o->model : CLI_BUILTIN_NAME, (int)ninputs,
         ninputs == 1 ? "" : "s");
  if (ninputs > 0 && o->ninputs == 0) {
    printf(" (seeded random data)");
  } else if (ninputs > 0 && o->ninputs == ninputs) {
    printf(" (from --input)");
  } else if (ninputs > 0) {
    printf(" (%d from --input, the rest seeded random data)", o->ninputs);
  }
  printf(", %d output%s; latency: median of %ld run%s after %ld warm-up%s\n", (int)ref->num_outputs,
         ref->num_outputs == 1 ? "" : "s", o->repeat, o->repeat == 1 ? "" : "s", o->warmup,
         o->warmup == 1 ? "" : "s");
  for (int k = 0; k < NUM_KINDS; ++k) {
    const kind_result *r = &res[k];
    printf("  %-7s ", kKinds[k]);
    if (r->state != KIND_RAN) {
      printf("%s: %s\n", r->state == KIND_REFUSED ? "cannot run this model" : "error",
             r->message ? r->message : "out of memory");
      continue;
    }
    char ct[32], lt[32];
    fmt_time(ct, sizeof ct, r->compile_ms);
    fmt_time(lt, sizeof lt, r->lat.median);
    printf("compile %8s   latency %8s   ", ct, lt);
    if (k == 0) {
      printf("the reference interpreter\n");
      continue;
    }
    const diff_t *d = &r->diff;
    if (d->mismatch_output >= 0) {
      if (r->num_outputs != ref->num_outputs) {
        printf("DIFFERS: %d outputs, the reference %d\n", (int)r->num_outputs, (int)ref->num_outputs);
      } else {
        char a[256], b[256];
        const rt_tensor_t *x = r->outs[d->mismatch_output], *y = ref->outs[d->mismatch_output];
        cli_type_text(rt_tensor_dtype(x), rt_tensor_rank(x), rt_tensor_shape(x), a, sizeof a);
        cli_type_text(rt_tensor_dtype(y), rt_tensor_rank(y), rt_tensor_shape(y), b, sizeof b);
        printf("DIFFERS: output_%d is %s, the reference's %s\n", (int)d->mismatch_output, a, b);
      }
    } else if (d->beyond) {
      printf("DIFFERS: max abs diff %.2g, max rel diff %.2g, %lld of %lld values beyond; "
             "output_%d[%lld] = %.9g vs %.9g\n",
             d->max_abs, d->max_rel, (long long)d->beyond, (long long)d->count,
             (int)d->first_output, (long long)d->first_index, d->first_got, d->first_ref);
    } else {
      printf("agrees: max abs diff %.2g, max rel diff %.2g\n", d->max_abs, d->max_rel);
    }
  }
  bool agree[NUM_KINDS] = {0}, differ[NUM_KINDS] = {0}, refused[NUM_KINDS] = {0};
  int nagree = 0, ndiffer = 0, nrefused = 0;
  for (int k = 1; k < NUM_KINDS; ++k) {
    agree[k] = kind_agrees(&res[k]);
    differ[k] = res[k].state == KIND_RAN && !agree[k];
    refused[k] = res[k].state == KIND_REFUSED;
    nagree += agree[k];
    ndiffer += differ[k];
    nrefused += refused[k];
  }
  char list[128], list2[128];
  const char *sep = "";
  if (nagree && !ndiffer) {
    kind_list(list, sizeof list, agree);
    printf("%s agree%s with debug within rtol %g, atol %g", list, nagree == 1 ? "s" : "", o->rtol, o->atol);
    sep = "; ";
  } else if (ndiffer && !nagree) {
    kind_list(list, sizeof list, differ);
    printf("%s DIFFER%s from debug beyond rtol %g, atol %g", list, ndiffer == 1 ? "S" : "", o->rtol,
           o->atol);
    sep = "; ";
  } else if (ndiffer) {
    kind_list(list, sizeof list, agree);
    kind_list(list2, sizeof list2, differ);
    printf("%s agree%s with debug and %s DIFFER%s (rtol %g, atol %g)", list, nagree == 1 ? "s" : "",
           list2, ndiffer == 1 ? "S" : "", o->rtol, o->atol);
    sep = "; ";
  }
  if (nrefused) {
    kind_list(list, sizeof list, refused);
    printf("%s%s cannot run this model", sep, list);
    sep = "; ";
  }
  /* The fastest executor that agrees, against the interpreter (a figure of
   * this machine, this run). */
  int fastest = -1;
  for (int k = 1; k < NUM_KINDS; ++k) {
    if (agree[k] && (fastest < 0 || res[k].lat.median < res[fastest].lat.median)) fastest = k;
  }
  if (fastest > 0 && res[fastest].lat.median > 0 && ref->lat.median > res[fastest].lat.median) {
    printf("%s%s ran %.0fx faster than debug here", sep, kKinds[fastest],
           ref->lat.median / res[fastest].lat.median);
  }
  printf("\n");
}

static void print_all_json(const run_opts *o, const kind_result *res, bool agree) {
  printf("{\"model\": ");
  run_json_string(stdout, o->model ? o->model : CLI_BUILTIN_NAME);
  printf(", \"reference\": \"debug\", \"rtol\": ");
  run_json_number(stdout, o->rtol);
  printf(", \"atol\": ");
  run_json_number(stdout, o->atol);
  printf(", \"runs\": %ld, \"warmup\": %ld, \"agree\": %s, \"executors\": [", o->repeat, o->warmup,
         agree ? "true" : "false");
  for (int k = 0; k < NUM_KINDS; ++k) {
    const kind_result *r = &res[k];
    printf("%s{\"executor\": \"%s\"", k ? ", " : "", kKinds[k]);
    if (r->state != KIND_RAN) {
      printf(", \"%s\": ", r->state == KIND_REFUSED ? "refused" : "error");
      run_json_string(stdout, r->message ? r->message : "out of memory");
      printf("}");
      continue;
    }
    printf(", \"compile_ms\": %.3f, \"latency_ms\": ", r->compile_ms);
    run_json_latency(stdout, &r->lat, 6);
    if (r->stats.max_specializations > 0) {
      printf(", \"specializations\": {\"built\": %lld, \"hits\": %lld}",
             (long long)r->stats.specializations, (long long)r->stats.specialization_hits);
    }
    printf(", \"outputs\": [");
    for (int32_t i = 0; i < r->num_outputs; ++i) {
      const rt_tensor_t *t = r->outs[i];
      char dn[RT_DTYPE_NAME_MAX];
      printf("%s{\"name\": \"output_%d\", \"shape\": [", i ? ", " : "", (int)i);
      for (int32_t d = 0; d < rt_tensor_rank(t); ++d) {
        printf("%s%lld", d ? ", " : "", (long long)rt_tensor_shape(t)[d]);
      }
      printf("], \"dtype\": \"%s\"", rt_dtype_name(rt_tensor_dtype(t), dn));
      if (k > 0 && r->num_outputs == res[0].num_outputs) {
        const diff_t *d = &r->per_output[i];
        bool mismatch = d->mismatch_output >= 0;
        printf(", \"max_abs_diff\": ");
        run_json_number(stdout, mismatch ? INFINITY : d->max_abs);
        printf(", \"max_rel_diff\": ");
        run_json_number(stdout, mismatch ? INFINITY : d->max_rel);
        printf(", \"beyond_tolerance\": %lld, \"same_type\": %s", (long long)d->beyond,
               mismatch ? "false" : "true");
      }
      printf("}");
    }
    printf("]");
    if (k > 0) printf(", \"agrees\": %s", kind_agrees(r) ? "true" : "false");
    printf("}");
  }
  printf("]}\n");
}

/* `relayrt run [MODEL] --executor all`. */
int run_all(const run_opts *o) {
  rt_module_t *m = NULL;
  rt_params_t *params = NULL;
  rt_pass_context_t *ctx = NULL;
  rt_tensor_t **inputs = NULL;
  int32_t ninputs = 0;
  kind_result res[NUM_KINDS];
  memset(res, 0, sizeof res);

  rt_status_t st = run_load_model(o, &m);
  if (!st && o->params) st = rt_params_read_file(rt_allocator_system(), o->params, &params);
  if (!st) st = run_make_context(o, &ctx);
  /* Each executor compiles its own kernels: with the disk cache on, the vm
   * would load the graph executor's (the same fused groups) and its
   * compile time would be the cache's, not its own. */
  if (!st) st = rt_pass_context_set_config(ctx, "jit.disk_cache", "0");
  if (!st && o->out_dir) st = run_make_dir(o->out_dir);
  for (int k = 0; !st && k < NUM_KINDS; ++k) {
    runner r = {.kind = kKinds[k]};
    double t0 = run_now_ms();
    rt_status_t ks = rt_create_executor(kKinds[k], m, NULL, ctx, params, &r.ex);
    res[k].compile_ms = run_now_ms() - t0;
    /* The inputs, once, from the reference's signature (every executor's
     * is main's): every executor runs on the same data. */
    if (!ks && k == 0) ks = run_make_inputs(o, &r, &inputs);
    if (!ks && k == 0) ninputs = run_runner_num_inputs(&r);
    if (k == 0 && ks) {
      st = ks; /* no reference, nothing to compare with */
    } else if (ks) {
      rt_status_code_t code = rt_status_code(ks);
      kind_error(&res[k], code == RT_STATUS_INVALID_ARGUMENT || code == RT_STATUS_UNIMPLEMENTED
                              ? KIND_REFUSED : KIND_FAILED, ks);
    } else {
      ks = run_kind(o, &r, inputs, &res[k]);
      rt_status_free(rt_executor_stats(r.ex, &res[k].stats)); /* fails for NULL arguments only */
      /* A graph executor with `?` inputs that could not plan the model for
       * these shapes (a shape that depends on the input values) refuses it
       * at its first run rather than at creation. */
      bool unplanned = res[k].stats.max_specializations > 0 && res[k].stats.specializations == 0;
      if (ks && k == 0) {
        st = ks;
      } else if (ks) {
        kind_error(&res[k], unplanned && rt_status_code(ks) == RT_STATUS_INVALID_ARGUMENT
                                ? KIND_REFUSED : KIND_FAILED, ks);
      }
    }
    run_runner_release(&r); /* one at a time: each compiles its own kernels */
  }
  int rc = 0;
  if (st) {
    rc = cli_report(st);
  } else {
    bool agree = true, failed = false;
    for (int k = 1; k < NUM_KINDS; ++k) {
      if (res[k].state == KIND_RAN) compare_kind(o, &res[0], &res[k]);
      agree = agree && (res[k].state != KIND_RAN || kind_agrees(&res[k]));
      failed = failed || res[k].state == KIND_FAILED;
    }
    if (o->json) {
      print_all_json(o, res, agree && !failed);
    } else {
      print_all_text(o, res, ninputs);
    }
    fflush(stdout);
    for (int k = 1; k < NUM_KINDS; ++k) {
      if (res[k].state == KIND_FAILED) {
        fprintf(stderr, "relayrt: error: the %s executor: %s\n", kKinds[k],
                res[k].message ? res[k].message : "out of memory");
      } else if (res[k].state == KIND_RAN && !kind_agrees(&res[k])) {
        fprintf(stderr, "relayrt: error: the %s executor's outputs differ from the reference "
                "(debug) beyond rtol %g, atol %g\n", kKinds[k], o->rtol, o->atol);
      }
    }
    rc = agree && !failed ? 0 : 1;
  }
  for (int k = 0; k < NUM_KINDS; ++k) kind_result_free(&res[k]);
  run_release_tensors(inputs, ninputs);
  rt_pass_context_release(ctx);
  rt_params_release(params);
  rt_module_release(m);
  return rc;
}

