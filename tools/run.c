/* `relayrt run [MODEL]`: create an executor, feed inputs (.npy files, or
 * seeded random data shaped by the signature or --shape), run it --warmup +
 * --repeat times, and report latency and an output summary (text or one
 * JSON object), optionally writing output_<i>.npy files to --out DIR.
 * A sequence or optional input (debug executor) takes its items as
 * --input NAME=A.npy,B.npy (NAME= none, NAME=none an absent optional); such
 * an output is written as output_<i>.txt ("list N", "some N" or "none")
 * and its items output_<i>.<k>.npy.
 * --trace-values prints every binding's value to stderr as the debug
 * executor evaluates it. --const-input NAME=FILE.npy binds an ONNX graph
 * input as a constant when the model is loaded (rt_module_load_options_t),
 * for inputs relayrt needs at compile time (a Reshape's shape, Slice's
 * starts ...); the model is specialized to that value. --shape NAME=DIMS
 * specializes the model to that input shape at load time (`?` dims become
 * static) and sizes its random data; without it, the graph executor
 * specializes itself to the shapes of the inputs given, and the report
 * says how many specializations the runs made. --profile (graph
 * executor) then times every kernel over --repeat more runs and prints a
 * table slowest first (in the JSON report: "profile").
 *
 * --executor all runs the model on every executor (debug, graph, vm) on
 * the same inputs and prints one line per executor: compile time, median
 * latency, and how far each output is from the reference interpreter's
 * (debug): max abs and max rel difference, "agrees" or "DIFFERS" against
 * rtol/atol (--rtol, --atol; an element agrees when |x - ref| <= atol +
 * rtol * |ref|, numpy's allclose). A difference exits 1. The disk kernel
 * cache is off there, so each compile time is that executor's own. That
 * mode is run_all.c; what the two files share is run.h.
 *
 * MODEL.so (a library from `relayrt build --emit=so`, or any ELF file) is
 * run through the artifact API (include/rt/artifact.h, what
 * librelayrt_runtime exports) on the executor it was exported from; the
 * options that only mean something when a model is compiled are refused. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "run.h"






double run_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int split_name_value(const char *arg, const char *opt, name_value *out) {
  const char *eq = strchr(arg, '=');
  /* `--input NAME=` is an empty sequence (set_items); other options need a value. */
  bool empty_ok = strncmp(opt, "--input ", 8) == 0;
  if (!eq || eq == arg || (eq[1] == '\0' && !empty_ok)) return cli_usage_error(opt, arg);
  static char names[4 * MAX_ITEMS][128];
  static int used;
  size_t n = (size_t)(eq - arg);
  if (n >= sizeof names[0] || used >= 4 * MAX_ITEMS) return cli_usage_error("name too long:", arg);
  memcpy(names[used], arg, n);
  names[used][n] = '\0';
  out->name = names[used++];
  out->value = eq + 1;
  return 0;
}

static bool parse_long(const char *v, long lo, long hi, long *out) {
  char *end = NULL;
  long x = strtol(v, &end, 10);
  if (*v == '\0' || *end != '\0' || x < lo || x > hi) return false;
  *out = x;
  return true;
}

static bool parse_tolerance(const char *v, double *out) {
  char *end = NULL;
  double x = strtod(v, &end);
  if (*v == '\0' || *end != '\0' || !(x >= 0) || !isfinite(x)) return false;
  *out = x;
  return true;
}

static bool is_all(const run_opts *o) { return strcmp(o->executor, "all") == 0; }

static int parse_opts(int argc, char **argv, run_opts *o) {
  memset(o, 0, sizeof *o);
  o->executor = "debug";
  o->opt_level = 2;
  o->repeat = 1;
  o->rtol = 1e-4;
  o->atol = 1e-5;
  for (int i = 0; i < argc; ++i) {
    const char *v;
    long x = 0;
    if ((v = cli_option(argc, argv, &i, "--executor"))) {
      o->executor = v;
      o->executor_set = true;
    } else if ((v = cli_option(argc, argv, &i, "--opt-level"))) {
      if (!parse_long(v, 0, 4, &x)) return cli_usage_error("--opt-level expects 0..4, got", v);
      o->opt_level = (int)x;
      o->opt_level_set = true;
    } else if ((v = cli_option(argc, argv, &i, "--input"))) {
      if (o->ninputs == MAX_ITEMS) return cli_usage_error("too many --input options:", v);
      int rc = split_name_value(v, "--input expects NAME=FILE.npy, got", &o->inputs[o->ninputs++]);
      if (rc) return rc;
    } else if ((v = cli_option(argc, argv, &i, "--const-input"))) {
      if (o->nconsts == MAX_ITEMS) return cli_usage_error("too many --const-input options:", v);
      int rc = split_name_value(v, "--const-input expects NAME=FILE.npy, got", &o->consts[o->nconsts++]);
      if (rc) return rc;
    } else if ((v = cli_option(argc, argv, &i, "--shape"))) {
      if (o->nshapes == MAX_ITEMS) return cli_usage_error("too many --shape options:", v);
      int rc = split_name_value(v, "--shape expects NAME=1x3x224x224, got", &o->shapes[o->nshapes++]);
      if (rc) return rc;
    } else if ((v = cli_option(argc, argv, &i, "--require"))) {
      if (o->nrequired == MAX_ITEMS) return cli_usage_error("too many --require options:", v);
      o->required[o->nrequired++] = v;
    } else if ((v = cli_option(argc, argv, &i, "--disable"))) {
      if (o->ndisabled == MAX_ITEMS) return cli_usage_error("too many --disable options:", v);
      o->disabled[o->ndisabled++] = v;
    } else if ((v = cli_option(argc, argv, &i, "--config"))) {
      if (o->nconfigs == MAX_ITEMS) return cli_usage_error("too many --config options:", v);
      int rc = split_name_value(v, "--config expects KEY=VALUE, got", &o->configs[o->nconfigs++]);
      if (rc) return rc;
    } else if ((v = cli_option(argc, argv, &i, "--params"))) {
      o->params = v;
    } else if ((v = cli_option(argc, argv, &i, "--out"))) {
      o->out_dir = v;
    } else if ((v = cli_option(argc, argv, &i, "--repeat"))) {
      if (!parse_long(v, 1, 1000000, &o->repeat)) return cli_usage_error("--repeat expects >= 1, got", v);
      o->repeat_set = true;
    } else if ((v = cli_option(argc, argv, &i, "--warmup"))) {
      if (!parse_long(v, 0, 1000000, &o->warmup)) return cli_usage_error("--warmup expects >= 0, got", v);
      o->warmup_set = true;
    } else if ((v = cli_option(argc, argv, &i, "--threads"))) {
      if (!parse_long(v, 0, 1024, &o->threads)) return cli_usage_error("--threads expects 0..1024, got", v);
    } else if ((v = cli_option(argc, argv, &i, "--rtol"))) {
      if (!parse_tolerance(v, &o->rtol)) return cli_usage_error("--rtol expects a number >= 0, got", v);
      o->tolerance_set = true;
    } else if ((v = cli_option(argc, argv, &i, "--atol"))) {
      if (!parse_tolerance(v, &o->atol)) return cli_usage_error("--atol expects a number >= 0, got", v);
      o->tolerance_set = true;
    } else if ((v = cli_option(argc, argv, &i, "--report"))) {
      if (strcmp(v, "json") == 0) {
        o->json = true;
      } else if (strcmp(v, "text") == 0) {
        o->json = false;
      } else {
        return cli_usage_error("--report expects text or json, got", v);
      }
    } else if (strcmp(argv[i], "--trace-values") == 0) {
      o->trace = true;
    } else if (strcmp(argv[i], "--profile") == 0) {
      o->profile = true;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error("unknown option for run:", argv[i]);
    } else if (!o->model) {
      o->model = argv[i];
    } else {
      return cli_usage_error("unexpected argument", argv[i]);
    }
  }
  if (is_all(o)) {
    /* Every executor, so nothing that belongs to one of them. */
    if (o->profile) return cli_usage_error("--profile times the kernels of --executor graph, not", o->executor);
    if (o->trace) return cli_usage_error("--trace-values steps --executor debug, not", o->executor);
    if (!o->repeat_set) o->repeat = 10;
    if (!o->warmup_set) o->warmup = 1;
  } else if (o->tolerance_set) {
    return cli_usage_error("--rtol and --atol compare the executors of --executor all, not", o->executor);
  }
  return 0;
}

static rt_status_t trace_step(void *user, const rt_step_event_t *ev) {
  (void)user;
  if (!ev->after) return RT_OK;
  for (int32_t i = 0; i < ev->num_tensors; ++i) {
    char label[512];
    if (ev->source_name && ev->line > 0) {
      snprintf(label, sizeof label, "trace %s:%d: %s%s", ev->source_name, (int)ev->line, ev->text,
               ev->num_tensors > 1 ? " (field)" : "");
    } else {
      snprintf(label, sizeof label, "trace: %s", ev->text);
    }
    cli_print_summary(stderr, label, ev->tensors[i]);
  }
  return RT_OK;
}

/* ---- what runs: an executor, or an exported model's runtime ------------------ */



int32_t run_runner_num_inputs(const runner *r) {
  return r->ex ? rt_executor_num_inputs(r->ex) : rt_artifact_num_inputs(r->art);
}

int32_t run_runner_num_outputs(const runner *r) {
  return r->ex ? rt_executor_num_outputs(r->ex) : rt_artifact_num_outputs(r->art);
}

static rt_status_t runner_input_info(const runner *r, int32_t index, rt_tensor_info_t *out) {
  if (r->ex) return rt_executor_input_info(r->ex, index, out);
  rt_tensor_info_t io;
  RT_RETURN_IF_ERROR(rt_artifact_input_info(r->art, index, &io));
  *out = (rt_tensor_info_t){.name = io.name, .dtype = io.dtype, .rank = io.rank, .shape = io.shape};
  return RT_OK;
}

static rt_status_t runner_input_index(const runner *r, const char *name, int32_t *out) {
  return r->ex ? rt_executor_input_index(r->ex, name, out) : rt_artifact_input_index(r->art, name, out);
}

static rt_status_t runner_set_input(runner *r, int32_t index, rt_tensor_t *t) {
  return r->ex ? rt_executor_set_input(r->ex, index, t) : rt_artifact_runtime_set_input(r->rt, index, t);
}

static rt_status_t runner_run(runner *r) {
  return r->ex ? rt_executor_run(r->ex) : rt_artifact_runtime_run(r->rt);
}

/* Borrowed, as rt_executor_get_output / rt_artifact_runtime_output. */
rt_status_t run_runner_output(runner *r, int32_t index, rt_tensor_t **out) {
  return r->ex ? rt_executor_get_output(r->ex, index, out) : rt_artifact_runtime_output(r->rt, index, out);
}

void run_runner_release(runner *r) {
  rt_executor_release(r->ex);
  rt_artifact_runtime_release(r->rt);
  rt_artifact_release(r->art);
  memset(r, 0, sizeof *r);
}

/* ---- inputs -------------------------------------------------------------------- */

/* Replaces *t by a tensor of the same shape and bytes with dtype `dt` (of
 * the same width): bfloat16 values travel through .npy files as uint16
 * arrays of their bits, the way ONNX's test data stores them. */
static rt_status_t retype_bits(rt_tensor_t **t, rt_dtype_t dt) {
  rt_tensor_t *src = *t, *dst = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(rt_allocator_system(), dt, rt_tensor_rank(src),
                                      rt_tensor_shape(src), &dst));
  memcpy(rt_tensor_data(dst), rt_tensor_data(src), rt_tensor_nbytes(src));
  rt_tensor_release(src);
  *t = dst;
  return RT_OK;
}

/* A List or Option input (debug executor only; rt_value_kind_t): NULL
 * in the tensors of run_make_inputs, set by run_set_inputs from its
 * --input NAME=A.npy,B.npy,... (`NAME=` an empty list, `NAME=none` an
 * absent option). */
static bool adt_input(const runner *r, int32_t index) {
  rt_value_kind_t kind = RT_VALUE_TENSOR;
  if (!r->ex) return false;
  rt_status_t st = rt_executor_input_kind(r->ex, index, &kind);
  rt_status_free(st);
  return kind != RT_VALUE_TENSOR;
}

static rt_status_t set_items(const run_opts *o, runner *r, int32_t index) {
  rt_tensor_info_t info;
  RT_RETURN_IF_ERROR(runner_input_info(r, index, &info));
  const char *spec = NULL;
  for (int i = 0; i < o->ninputs; ++i) {
    if (strcmp(o->inputs[i].name, info.name) == 0) spec = o->inputs[i].value;
  }
  if (!spec) {
    return RT_STATUS(INVALID_ARGUMENT, "input '%s' is a sequence or optional: give its items "
                     "with --input %s=A.npy,B.npy,... (%s= for none, %s=none for an absent "
                     "optional)", info.name, info.name, info.name, info.name);
  }
  bool present = strcmp(spec, "none") != 0;
  rt_tensor_t *items[MAX_ITEMS];
  int32_t n = 0;
  rt_status_t st = RT_OK;
  for (const char *p = present ? spec : ""; *p && !st;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char path[4096];
    if (n == MAX_ITEMS || len >= sizeof path) {
      st = RT_STATUS(INVALID_ARGUMENT, "input '%s': too many items or too long a path", info.name);
      break;
    }
    memcpy(path, p, len);
    path[len] = 0;
    st = rt_npy_read_file(rt_allocator_system(), path, &items[n]);
    if (!st) ++n;
    p = comma ? comma + 1 : p + len;
  }
  if (!st) st = rt_executor_set_input_items(r->ex, index, present, n, items);
  for (int32_t i = 0; i < n; ++i) rt_tensor_release(items[i]);
  return st;
}

/* Makes the input tensor for input `index`: from --input, else random. */
static rt_status_t make_input(const run_opts *o, const runner *r, int32_t index,
                              rt_tensor_t **out) {
  rt_tensor_info_t info;
  *out = NULL;
  if (adt_input(r, index)) return RT_OK; /* run_set_inputs reads its items */
  RT_RETURN_IF_ERROR(runner_input_info(r, index, &info));
  for (int i = 0; i < o->ninputs; ++i) {
    if (strcmp(o->inputs[i].name, info.name) == 0) {
      RT_RETURN_IF_ERROR(rt_npy_read_file(rt_allocator_system(), o->inputs[i].value, out));
      /* numpy has no bfloat16: a uint16 array holds its raw bits. */
      if (rt_dtype_equal(info.dtype, RT_DTYPE_BFLOAT16) &&
          rt_dtype_equal(rt_tensor_dtype(*out), RT_DTYPE_UINT16)) {
        return retype_bits(out, RT_DTYPE_BFLOAT16);
      }
      return RT_OK;
    }
  }
  int32_t rank = info.rank;
  int64_t shape[RT_TENSOR_MAX_RANK];
  for (int32_t d = 0; d < rank; ++d) shape[d] = info.shape[d];
  for (int i = 0; i < o->nshapes; ++i) {
    if (strcmp(o->shapes[i].name, info.name) != 0) continue;
    RT_RETURN_IF_ERROR(cli_parse_dims(o->shapes[i].value, &rank, shape));
  }
  for (int32_t d = 0; d < rank; ++d) {
    if (shape[d] < 0) {
      char ty[256];
      cli_type_text(info.dtype, info.rank, info.shape, ty, sizeof ty);
      return RT_STATUS(INVALID_ARGUMENT,
                       "input '%s' has type %s with dynamic dims: give its shape with "
                       "--shape %s=DIMS or its data with --input %s=FILE.npy",
                       info.name, ty, info.name, info.name);
    }
  }
  RT_RETURN_IF_ERROR(rt_tensor_create(rt_allocator_system(), info.dtype, rank, shape, out));
  rt_tensor_fill_random(*out, cli_seed(info.name));
  return RT_OK;
}

void run_release_tensors(rt_tensor_t **ts, int32_t n) {
  for (int32_t i = 0; ts && i < n; ++i) rt_tensor_release(ts[i]);
  free(ts);
}

/* Checks that every --input and --shape names an input of `r`, then makes
 * one tensor per input (*out_inputs[0..num_inputs-1], owned). */
rt_status_t run_make_inputs(const run_opts *o, const runner *r, rt_tensor_t ***out_inputs) {
  *out_inputs = NULL;
  for (int i = 0; i < o->ninputs; ++i) {
    int32_t idx;
    RT_RETURN_IF_ERROR(runner_input_index(r, o->inputs[i].name, &idx));
  }
  for (int i = 0; i < o->nshapes; ++i) {
    int32_t idx;
    RT_RETURN_IF_ERROR(runner_input_index(r, o->shapes[i].name, &idx));
  }
  int32_t n = run_runner_num_inputs(r);
  rt_tensor_t **ts = calloc((size_t)(n > 0 ? n : 1), sizeof *ts);
  if (!ts) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t i = 0; i < n; ++i) {
    rt_status_t st = make_input(o, r, i, &ts[i]);
    if (st) {
      run_release_tensors(ts, n);
      return st;
    }
  }
  *out_inputs = ts;
  return RT_OK;
}

rt_status_t run_set_inputs(const run_opts *o, runner *r, rt_tensor_t **inputs) {
  for (int32_t i = 0; i < run_runner_num_inputs(r); ++i) {
    if (adt_input(r, i)) {
      RT_RETURN_IF_ERROR(set_items(o, r, i));
    } else {
      RT_RETURN_IF_ERROR(runner_set_input(r, i, inputs[i]));
    }
  }
  return RT_OK;
}

/* ---- timing, outputs ----------------------------------------------------------- */



static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* `warmup` runs, then `repeat` timed ones. */
rt_status_t run_time_runs(runner *r, long warmup, long repeat, latency_t *out) {
  memset(out, 0, sizeof *out);
  for (long i = 0; i < warmup; ++i) RT_RETURN_IF_ERROR(runner_run(r));
  double *times = calloc((size_t)repeat, sizeof(double));
  if (!times) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  rt_status_t st = RT_OK;
  double sum = 0;
  for (long i = 0; !st && i < repeat; ++i) {
    double t0 = run_now_ms();
    st = runner_run(r);
    times[i] = run_now_ms() - t0;
    sum += times[i];
  }
  if (!st) {
    qsort(times, (size_t)repeat, sizeof(double), cmp_double);
    out->min = times[0];
    out->max = times[repeat - 1];
    out->median = repeat % 2 ? times[repeat / 2] : 0.5 * (times[repeat / 2 - 1] + times[repeat / 2]);
    out->mean = sum / (double)repeat;
    out->runs = repeat;
  }
  free(times);
  return st;
}

rt_status_t run_make_dir(const char *dir) {
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    return RT_STATUS(IO_ERROR, "cannot create %s: %s", dir, strerror(errno));
  }
  return RT_OK;
}

/* A sequence or optional output: output_<i>.txt says "list N", "some N"
 * (an optional holding N items: 1 for a tensor) or "none", and its items
 * are output_<i>.<k>.npy. */
static rt_status_t write_items(const char *dir, runner *r, int32_t i, rt_value_kind_t kind) {
  bool present = false;
  int32_t n = 0;
  RT_RETURN_IF_ERROR(rt_executor_get_output_items(r->ex, i, &present, &n));
  char path[4096];
  snprintf(path, sizeof path, "%s/output_%d.txt", dir, (int)i);
  FILE *f = fopen(path, "w");
  if (!f) return RT_STATUS(IO_ERROR, "cannot write %s: %s", path, strerror(errno));
  if (!present) {
    fprintf(f, "none\n");
  } else {
    fprintf(f, "%s %d\n", kind == RT_VALUE_LIST ? "list" : "some", (int)n);
  }
  if (fclose(f) != 0) return RT_STATUS(IO_ERROR, "cannot write %s", path);
  for (int32_t k = 0; k < n; ++k) {
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(rt_executor_get_output_item(r->ex, i, k, &t));
    snprintf(path, sizeof path, "%s/output_%d.%d.npy", dir, (int)i, (int)k);
    RT_RETURN_IF_ERROR(rt_npy_write_file(t, path));
  }
  return RT_OK;
}

rt_status_t run_write_outputs(const char *dir, runner *r) {
  RT_RETURN_IF_ERROR(run_make_dir(dir));
  for (int32_t i = 0; i < run_runner_num_outputs(r); ++i) {
    rt_value_kind_t kind = RT_VALUE_TENSOR;
    if (r->ex) RT_RETURN_IF_ERROR(rt_executor_output_kind(r->ex, i, &kind));
    if (kind != RT_VALUE_TENSOR) {
      RT_RETURN_IF_ERROR(write_items(dir, r, i, kind));
      continue;
    }
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(run_runner_output(r, i, &t));
    char path[4096];
    snprintf(path, sizeof path, "%s/output_%d.npy", dir, (int)i);
    if (rt_dtype_equal(rt_tensor_dtype(t), RT_DTYPE_BFLOAT16)) {
      /* Written as uint16 bits (numpy has no bfloat16; see retype_bits). */
      rt_tensor_t *bits = NULL;
      RT_RETURN_IF_ERROR(rt_tensor_clone(rt_allocator_system(), t, &bits));
      rt_status_t st = retype_bits(&bits, RT_DTYPE_UINT16);
      if (!st) st = rt_npy_write_file(bits, path);
      rt_tensor_release(bits);
      RT_RETURN_IF_ERROR(st);
      continue;
    }
    RT_RETURN_IF_ERROR(rt_npy_write_file(t, path));
  }
  return RT_OK;
}

void run_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    if (*p == '"' || *p == '\\') {
      fprintf(f, "\\%c", *p);
    } else if (*p < 0x20) {
      fprintf(f, "\\u%04x", *p);
    } else {
      fputc(*p, f);
    }
  }
  fputc('"', f);
}

/* A number, or null where JSON has none (inf, nan). */
void run_json_number(FILE *f, double x) {
  if (isfinite(x)) {
    fprintf(f, "%.6g", x);
  } else {
    fputs("null", f);
  }
}

/* {min, median, mean, max} with `digits` decimals (ms). */
void run_json_latency(FILE *f, const latency_t *l, int digits) {
  fprintf(f, "{\"min\": %.*f, \"median\": %.*f, \"mean\": %.*f, \"max\": %.*f}", digits, l->min,
          digits, l->median, digits, l->mean, digits, l->max);
}

/* The "outputs" array: [{name, shape, dtype}]. */
static void json_outputs(FILE *f, runner *r) {
  fprintf(f, "[");
  for (int32_t i = 0; i < run_runner_num_outputs(r); ++i) {
    rt_tensor_t *t = NULL;
    rt_status_free(run_runner_output(r, i, &t)); /* after a run, i < num_outputs: cannot fail */
    char dn[RT_DTYPE_NAME_MAX];
    fprintf(f, "%s{\"name\": \"output_%d\", \"shape\": [", i ? ", " : "", (int)i);
    for (int32_t d = 0; t && d < rt_tensor_rank(t); ++d) {
      fprintf(f, "%s%lld", d ? ", " : "", (long long)rt_tensor_shape(t)[d]);
    }
    fprintf(f, "], \"dtype\": \"%s\"}", t ? rt_dtype_name(rt_tensor_dtype(t), dn) : "");
  }
  fprintf(f, "]");
}

/* ---- loading ------------------------------------------------------------------- */

/* Loads the model, binding the --const-input values as constants and the
 * --shape shapes as @main's input shapes (so `?` dims become static: the
 * graph executor can run the model, and ONNX shape computations fold). */
rt_status_t run_load_model(const run_opts *o, rt_module_t **out) {
  const bool builtin = !o->model || strcmp(o->model, "-") == 0;
  if (builtin && o->nconsts) return RT_STATUS(INVALID_ARGUMENT, "--const-input needs an ONNX model file");
  static int64_t dims[MAX_ITEMS][RT_TENSOR_MAX_RANK];
  rt_input_shape_t shapes[MAX_ITEMS];
  for (int i = 0; i < o->nshapes; ++i) {
    shapes[i].name = o->shapes[i].name;
    shapes[i].dims = dims[i];
    RT_RETURN_IF_ERROR_ANNOTATE(cli_parse_dims(o->shapes[i].value, &shapes[i].rank, dims[i]),
                                "--shape %s=%s", o->shapes[i].name, o->shapes[i].value);
  }
  if (builtin) {
    rt_module_t *m = NULL;
    RT_RETURN_IF_ERROR(cli_load_model(NULL, &m));
    rt_status_t st = rt_module_bind_input_shapes(m, o->nshapes, shapes, out);
    rt_module_release(m);
    return st;
  }
  rt_tensor_t *values[MAX_ITEMS] = {0};
  const char *names[MAX_ITEMS];
  rt_status_t st = RT_OK;
  for (int i = 0; !st && i < o->nconsts; ++i) {
    names[i] = o->consts[i].name;
    st = rt_npy_read_file(rt_allocator_system(), o->consts[i].value, &values[i]);
  }
  if (!st) {
    rt_module_load_options_t lo = {.num_constant_inputs = o->nconsts,
                                   .constant_input_names = names,
                                   .constant_input_values = values,
                                   .num_input_shapes = o->nshapes,
                                   .input_shapes = shapes};
    cli_onnx_op_options(&lo);
    st = rt_module_load_with_options(o->model, &lo, out);
  }
  for (int i = 0; i < o->nconsts; ++i) rt_tensor_release(values[i]);
  return st;
}

/* The pass context of the options (opt level, --require, --disable,
 * --config, threads). */
rt_status_t run_make_context(const run_opts *o, rt_pass_context_t **out) {
  rt_pass_context_t *ctx = NULL;
  RT_RETURN_IF_ERROR(rt_pass_context_create(&ctx));
  rt_status_t st = rt_pass_context_set_opt_level(ctx, o->opt_level);
  for (int k = 0; !st && k < o->nrequired; ++k) st = rt_pass_context_require(ctx, o->required[k]);
  for (int k = 0; !st && k < o->ndisabled; ++k) st = rt_pass_context_disable(ctx, o->disabled[k]);
  for (int k = 0; !st && k < o->nconfigs; ++k) {
    st = rt_pass_context_set_config(ctx, o->configs[k].name, o->configs[k].value);
  }
  if (!st && o->threads) {
    char n[24];
    snprintf(n, sizeof n, "%ld", o->threads);
    st = rt_pass_context_set_config(ctx, "runtime.num_threads", n);
  }
  if (st) {
    rt_pass_context_release(ctx);
    return st;
  }
  *out = ctx;
  return RT_OK;
}

/* MODEL.so, or any ELF file: an exported model (include/rt/artifact.h). */
static bool is_artifact_path(const char *path) {
  if (!path || strcmp(path, "-") == 0) return false;
  size_t n = strlen(path);
  if (n > 3 && strcmp(path + n - 3, ".so") == 0) return true;
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  unsigned char magic[4] = {0};
  bool elf = fread(magic, 1, 4, f) == 4 && memcmp(magic, "\177ELF", 4) == 0;
  fclose(f);
  return elf;
}

/* An exported model says which executor built it only through behaviour
 * include/rt/artifact.h documents: a vm model's runtime has no outputs
 * before its first run (FAILED_PRECONDITION), a graph model's runtime
 * owns planned output tensors from the start. */
static const char *artifact_kind(const rt_artifact_t *a, const rt_artifact_runtime_t *r) {
  for (int32_t i = 0; i < rt_artifact_num_inputs(a); ++i) {
    rt_tensor_info_t io;
    if (rt_status_consume_code(rt_artifact_input_info(a, i, &io)) != RT_STATUS_OK) continue;
    for (int32_t d = 0; d < io.rank; ++d) {
      if (io.shape[d] < 0) return "vm"; /* `?` dims: only the vm exports those */
    }
  }
  if (rt_artifact_num_outputs(a) == 0) return "graph";
  rt_tensor_t *t = NULL;
  rt_status_code_t code = rt_status_consume_code(rt_artifact_runtime_output(r, 0, &t));
  return code == RT_STATUS_FAILED_PRECONDITION ? "vm" : "graph";
}

/* "relayrt: <message>" and the usage hint; returns 2. */
static int usage_errorf(const char *format, ...) RT_PRINTF_FORMAT(1, 2);
static int usage_errorf(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  fputs("relayrt: ", stderr);
  vfprintf(stderr, format, ap);
  fputs("\n(run 'relayrt help' for usage)\n", stderr);
  va_end(ap);
  return 2;
}

/* The options an exported model cannot honour: it was compiled (passes,
 * params, shapes, executor) when `relayrt build --emit=so` wrote it. */
static int check_artifact_opts(const run_opts *o) {
  const char *m = o->model;
  if (o->executor_set && is_all(o)) {
    return usage_errorf("--executor all compares the executors on a model file; %s is an "
                        "exported model and runs on the executor it was exported from", m);
  }
  if (o->opt_level_set) {
    return usage_errorf("--opt-level: %s is an exported model, compiled already; pass "
                        "--opt-level to 'relayrt build ... --emit=so' instead", m);
  }
  if (o->nrequired || o->ndisabled) {
    return usage_errorf("--require/--disable: %s is an exported model, compiled already; pass "
                        "them to 'relayrt build ... --emit=so' instead", m);
  }
  if (o->nconfigs) {
    return usage_errorf("--config: %s is an exported model, compiled already; pass --config to "
                        "'relayrt build ... --emit=so' instead", m);
  }
  if (o->params) {
    return usage_errorf("--params: %s is an exported model and carries its constants; bind "
                        "params when the model is compiled, not when it runs", m);
  }
  if (o->nconsts) {
    return usage_errorf("--const-input: %s is an exported model; inputs become constants when "
                        "an ONNX model is loaded and compiled, not when it runs", m);
  }
  if (o->trace) {
    return usage_errorf("--trace-values steps the debug executor; %s is an exported model", m);
  }
  if (o->profile) {
    return usage_errorf("--profile times the kernels of --executor graph on a model file; %s is "
                        "an exported model (time it with --repeat N --warmup N)", m);
  }
  return 0;
}

/* ---- the report of one run ----------------------------------------------------- */

static void print_report(const run_opts *o, runner *r, const char *setup_what, double setup_ms,
                         const latency_t *lat, const cli_profile_t *prof) {
  const char *model_name = o->model ? o->model : CLI_BUILTIN_NAME;
  rt_executor_memory_t mem;
  rt_status_t ms = r->ex ? rt_executor_memory(r->ex, &mem)
                         : RT_STATUS(FAILED_PRECONDITION, "an exported model");
  /* A graph executor with `?` inputs: the plans its runs made. */
  rt_executor_stats_t stats;
  memset(&stats, 0, sizeof stats);
  if (r->ex) rt_status_free(rt_executor_stats(r->ex, &stats)); /* fails for NULL arguments only */
  /* Where the compile time went (not for an exported model; a graph
   * executor with `?` inputs reports its latest specialization). */
  rt_executor_compile_t cs;
  memset(&cs, 0, sizeof cs);
  rt_status_t cst = r->ex ? rt_executor_compile_stats(r->ex, &cs) : RT_STATUS(FAILED_PRECONDITION, "exported");
  const bool has_compile = cst == RT_OK;
  rt_status_free(cst);
  if (o->json) {
    printf("{\"model\": ");
    run_json_string(stdout, model_name);
    printf(", \"executor\": ");
    run_json_string(stdout, r->kind);
    printf(", \"%s_ms\": %.3f, \"latency_ms\": ", setup_what, setup_ms);
    run_json_latency(stdout, lat, 3);
    printf(", \"outputs\": ");
    json_outputs(stdout, r);
    if (!ms) {
      printf(", \"memory\": {\"planned_bytes\": %llu, \"planned_blocks\": %d, "
             "\"intermediates\": %d, \"unshared_bytes\": %llu, \"output_bytes\": %llu}",
             (unsigned long long)mem.planned_bytes, (int)mem.planned_blocks, (int)mem.intermediates,
             (unsigned long long)mem.unshared_bytes, (unsigned long long)mem.output_bytes);
    }
    if (has_compile) {
      printf(", \"compile\": {\"import_ms\": %.3f, \"total_ms\": %.3f, \"passes_ms\": %.3f, "
             "\"jit_wall_ms\": %.3f, \"keys_ms\": %.3f, \"lowering_ms\": %.3f, "
             "\"optimization_ms\": %.3f, \"codegen_ms\": %.3f, \"cache_ms\": %.3f, "
             "\"linking_ms\": %.3f, \"kernels\": %d, \"distinct\": %d, \"compiled\": %d, "
             "\"disk_hits\": %d, \"memory_hits\": %d, \"target\": ",
             r->import_ms, cs.total_ms, cs.passes_ms, cs.jit_wall_ms, cs.key_ms, cs.lower_ms,
             cs.optimize_ms, cs.codegen_ms, cs.cache_ms, cs.link_ms, (int)cs.kernels,
             (int)cs.distinct, (int)cs.compiled, (int)cs.disk_hits, (int)cs.memory_hits);
      run_json_string(stdout, cs.target);
      printf(", \"vector_width\": %d", (int)cs.vector_width);
      /* Per kernel (graph executor): where its compile time went. */
      rt_executor_compile_kernel_t ck;
      for (int32_t k = 0; k < cs.kernels; ++k) {
        rt_status_t kst = rt_executor_compile_kernel(r->ex, k, &ck);
        if (kst) {
          rt_status_free(kst);
          break;
        }
        printf("%s{\"name\": ", k ? ", " : ", \"per_kernel\": [");
        run_json_string(stdout, ck.name);
        printf(", \"template\": ");
        run_json_string(stdout, ck.template_name);
        printf(", \"pipeline\": ");
        run_json_string(stdout, ck.pipeline);
        printf(", \"compiled\": %s, \"lowering_ms\": %.3f, \"optimization_ms\": %.3f, "
               "\"codegen_ms\": %.3f, \"ir_lowered\": %d, \"ir_optimized\": %d}",
               ck.compiled ? "true" : "false", ck.lowering_ms, ck.optimization_ms, ck.codegen_ms,
               (int)ck.ir_lowered, (int)ck.ir_optimized);
        if (k == cs.kernels - 1) printf("]");
      }
      printf("}");
    }
    if (stats.max_specializations > 0) {
      printf(", \"specializations\": {\"built\": %lld, \"hits\": %lld, \"evicted\": %lld, "
             "\"cached\": %d, \"max\": %d}",
             (long long)stats.specializations, (long long)stats.specialization_hits,
             (long long)stats.specializations_evicted, (int)stats.specializations_cached,
             (int)stats.max_specializations);
    }
    if (stats.per_shape_kernels > 0) {
      printf(", \"kernel_specializations\": {\"per_shape_kernels\": %d, \"built\": %lld, "
             "\"hits\": %lld}", (int)stats.per_shape_kernels,
             (long long)stats.kernel_specializations, (long long)stats.kernel_specialization_hits);
    }
    if (prof) {
      printf(", \"profile\": {\"runs\": %ld, \"total_ms\": %.6f, \"fma_peak_gflops\": %.3f, "
             "\"threads\": %d, \"vector_width\": %d, \"kernels\": [", prof->runs, prof->total_ms,
             prof->peak_gflops, (int)prof->threads, (int)prof->vector_width);
      for (int32_t i = 0; i < prof->count; ++i) {
        printf("%s{\"kernel\": ", i ? ", " : "");
        run_json_string(stdout, prof->nodes[i].kernel);
        printf(", \"type\": ");
        run_json_string(stdout, prof->nodes[i].type);
        printf(", \"mean_ms\": %.6f, \"min_ms\": %.6f, \"warm_ms\": %.6f, \"flops\": %.0f, "
               "\"peak_fraction\": %.4f, \"tasks\": %d, \"balance\": %.4f}",
               prof->nodes[i].mean_ms, prof->nodes[i].min_ms, prof->nodes[i].warm_ms, prof->nodes[i].flops,
               cli_profile_peak_fraction(prof, prof->nodes[i].flops, prof->nodes[i].mean_ms),
               (int)prof->nodes[i].tasks, prof->nodes[i].balance);
      }
      printf("]}");
    }
    printf("}\n");
  } else {
    printf("model: %s\nexecutor: %s%s\n%s: %.3f ms\n", model_name, r->kind,
           r->ex ? "" : " (exported model, run by the artifact runtime)", setup_what, setup_ms);
    printf("latency: min %.3f ms, median %.3f ms, mean %.3f ms, max %.3f ms (%ld run%s)\n",
           lat->min, lat->median, lat->mean, lat->max, lat->runs, lat->runs == 1 ? "" : "s");
    if (has_compile && cs.kernels > 0) {
      printf("compile stages: import %.1f ms, passes %.1f ms, kernels %.1f ms wall (%d kernel%s, "
             "%d distinct: %d compiled, %d from the disk cache, %d loaded already; thread time: "
             "lowering %.1f, optimization %.1f, codegen %.1f, linking %.1f ms), %s target, "
             "%d-lane templates\n",
             r->import_ms, cs.passes_ms, cs.jit_wall_ms, (int)cs.kernels, cs.kernels == 1 ? "" : "s",
             (int)cs.distinct, (int)cs.compiled, (int)cs.disk_hits, (int)cs.memory_hits, cs.lower_ms,
             cs.optimize_ms, cs.codegen_ms, cs.link_ms, cs.target, (int)cs.vector_width);
    }
    if (!ms) {
      printf("memory: %llu bytes planned in %d blocks for %d intermediates (%llu without "
             "reuse), outputs %llu bytes\n",
             (unsigned long long)mem.planned_bytes, (int)mem.planned_blocks, (int)mem.intermediates,
             (unsigned long long)mem.unshared_bytes, (unsigned long long)mem.output_bytes);
    }
    if (stats.max_specializations > 0) {
      printf("specializations: %lld built for the input shapes (the first run of each pays for "
             "it), %lld run%s reused one; %d kept of at most %d\n",
             (long long)stats.specializations, (long long)stats.specialization_hits,
             stats.specialization_hits == 1 ? "" : "s", (int)stats.specializations_cached,
             (int)stats.max_specializations);
    }
    if (stats.per_shape_kernels > 0) {
      printf("kernel specializations: %lld built for the input shapes met by %d kernel%s with "
             "`?` dims (the first call of each pays for it), %lld lookup%s (shape functions and calls) reused one\n",
             (long long)stats.kernel_specializations, (int)stats.per_shape_kernels,
             stats.per_shape_kernels == 1 ? "" : "s", (long long)stats.kernel_specialization_hits,
             stats.kernel_specialization_hits == 1 ? "" : "s");
    }
    for (int32_t i = 0; i < run_runner_num_outputs(r); ++i) {
      rt_tensor_t *t = NULL;
      rt_status_free(run_runner_output(r, i, &t)); /* after a run, i < num_outputs: cannot fail */
      char name[32];
      snprintf(name, sizeof name, "output_%d", (int)i);
      if (t) cli_print_summary(stdout, name, t);
    }
    if (prof) cli_profile_print(stdout, prof);
  }
  rt_status_free(ms); /* only graph executors have a memory plan to report */
}

/* Inputs, warm-up, timed runs, --out, the report: the same for a model's
 * executor and an exported model's runtime. */
static rt_status_t run_and_report(const run_opts *o, runner *r, const char *setup_what,
                                  double setup_ms) {
  rt_tensor_t **inputs = NULL;
  rt_status_t st = run_make_inputs(o, r, &inputs);
  if (!st) st = run_set_inputs(o, r, inputs);
  run_release_tensors(inputs, run_runner_num_inputs(r));
  if (!st && o->trace) st = rt_executor_set_step_callback(r->ex, trace_step, NULL);
  latency_t lat;
  if (!st) st = run_time_runs(r, o->warmup, o->repeat, &lat);
  if (!st && o->out_dir) st = run_write_outputs(o->out_dir, r);
  /* After the timed runs (the warm-up of the profile's), so those and the
   * written outputs are the plain runs'. */
  cli_profile_t prof = {0};
  if (!st && o->profile) st = cli_profile_run(r->ex, o->repeat, (int32_t)o->threads, &prof);
  if (!st) print_report(o, r, setup_what, setup_ms, &lat, o->profile ? &prof : NULL);
  cli_profile_free(&prof);
  return st;
}

/* `relayrt run MODEL.so`: load the library, make a runtime, run it. */
static int run_artifact(const run_opts *o) {
  int rc = check_artifact_opts(o);
  if (rc) return rc;
  runner r = {0};
  double t0 = run_now_ms();
  rt_status_t st = rt_artifact_load(o->model, &r.art);
  if (!st) st = rt_artifact_runtime_create(r.art, (int32_t)o->threads, &r.rt);
  double load_ms = run_now_ms() - t0;
  if (!st) {
    r.kind = artifact_kind(r.art, r.rt);
    if (o->executor_set && strcmp(o->executor, r.kind) != 0) {
      rc = usage_errorf("--executor %s: %s was exported from the %s executor and runs only on it "
                        "(export it again with 'relayrt build MODEL --executor %s --emit=so')",
                        o->executor, o->model, r.kind, o->executor);
    }
  }
  /* --shape sizes the random data of a `?` dim (a vm export); an exported
   * model's static inputs are fixed. */
  for (int i = 0; !st && !rc && i < o->nshapes; ++i) {
    int32_t idx;
    rt_tensor_info_t info;
    st = runner_input_index(&r, o->shapes[i].name, &idx);
    if (!st) st = runner_input_info(&r, idx, &info);
    bool dynamic = false;
    for (int32_t d = 0; !st && d < info.rank; ++d) dynamic = dynamic || info.shape[d] < 0;
    if (!st && !dynamic) {
      char ty[256];
      cli_type_text(info.dtype, info.rank, info.shape, ty, sizeof ty);
      rc = usage_errorf("--shape %s=%s: input '%s' of the exported model %s is static (%s); "
                        "--shape only sizes the random data of an exported model's `?` dims",
                        o->shapes[i].name, o->shapes[i].value, info.name, o->model, ty);
    }
  }
  if (!st && !rc) st = run_and_report(o, &r, "load", load_ms);
  run_runner_release(&r);
  if (rc) {
    rt_status_free(st);
    return rc;
  }
  return st ? cli_report(st) : 0;
}

/* ---- relayrt run ----------------------------------------------------------------- */

int cli_run(int argc, char **argv) {
  run_opts o;
  int rc = parse_opts(argc, argv, &o);
  if (rc) return rc;
  if (is_artifact_path(o.model)) return run_artifact(&o);
  if (is_all(&o)) return run_all(&o);
  if (o.profile && strcmp(o.executor, "graph") != 0) {
    /* Per-kernel times need the graph executor's plan: one kernel per node. */
    return cli_usage_error("--profile times the kernels of --executor graph, not", o.executor);
  }
  rt_module_t *m = NULL;
  rt_params_t *params = NULL;
  rt_pass_context_t *ctx = NULL;
  runner r = {0};
  double compile_ms = 0;
  const double t_import = run_now_ms();
  rt_status_t st = run_load_model(&o, &m);
  r.import_ms = run_now_ms() - t_import;
  if (!st && o.params) st = rt_params_read_file(rt_allocator_system(), o.params, &params);
  if (!st) st = run_make_context(&o, &ctx);
  if (!st) {
    double t0 = run_now_ms();
    st = rt_create_executor(o.executor, m, NULL, ctx, params, &r.ex);
    compile_ms = run_now_ms() - t0;
  }
  if (!st) {
    r.kind = rt_executor_kind(r.ex);
    st = run_and_report(&o, &r, "compile", compile_ms);
  }
  run_runner_release(&r);
  rt_pass_context_release(ctx);
  rt_params_release(params);
  rt_module_release(m);
  return st ? cli_report(st) : 0;
}
