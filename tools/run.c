/* `relayrt run [MODEL]`: create an executor, feed inputs (.npy files, or
 * seeded random data shaped by the signature or --shape), run it --warmup +
 * --repeat times, and report latency and an output summary (text or one
 * JSON object), optionally writing output_<i>.npy files to --out DIR.
 * --trace-values prints every binding's value to stderr as the debug
 * executor evaluates it. --const-input NAME=FILE.npy binds an ONNX graph
 * input as a constant when the model is loaded (rt_module_load_options_t),
 * for inputs relayrt needs at compile time (a Reshape's shape, Slice's
 * starts ...); the model is specialized to that value. --shape NAME=DIMS
 * specializes the model to that input shape at load time (`?` dims become
 * static, so the graph executor runs it) and sizes its random data. --profile (graph
 * executor) then times every kernel over --repeat more runs and prints a
 * table slowest first (in the JSON report: "profile"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

#define MAX_ITEMS 64

typedef struct {
  const char *name;
  const char *value;
} name_value;

typedef struct {
  const char *model;
  const char *executor;
  int opt_level;
  name_value inputs[MAX_ITEMS];
  int ninputs;
  name_value shapes[MAX_ITEMS];
  int nshapes;
  name_value consts[MAX_ITEMS];
  int nconsts;
  const char *params;
  const char *out_dir;
  long repeat, warmup, threads;
  bool json;
  bool trace;
  bool profile;
} run_opts;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int split_name_value(const char *arg, const char *opt, name_value *out) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || eq[1] == '\0') return cli_usage_error(opt, arg);
  static char names[3 * MAX_ITEMS][128];
  static int used;
  size_t n = (size_t)(eq - arg);
  if (n >= sizeof names[0] || used >= 3 * MAX_ITEMS) return cli_usage_error("name too long:", arg);
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

static int parse_opts(int argc, char **argv, run_opts *o) {
  memset(o, 0, sizeof *o);
  o->executor = "debug";
  o->opt_level = 2;
  o->repeat = 1;
  for (int i = 0; i < argc; ++i) {
    const char *v;
    long x = 0;
    if ((v = cli_option(argc, argv, &i, "--executor"))) {
      o->executor = v;
    } else if ((v = cli_option(argc, argv, &i, "--opt-level"))) {
      if (!parse_long(v, 0, 4, &x)) return cli_usage_error("--opt-level expects 0..4, got", v);
      o->opt_level = (int)x;
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
    } else if ((v = cli_option(argc, argv, &i, "--params"))) {
      o->params = v;
    } else if ((v = cli_option(argc, argv, &i, "--out"))) {
      o->out_dir = v;
    } else if ((v = cli_option(argc, argv, &i, "--repeat"))) {
      if (!parse_long(v, 1, 1000000, &o->repeat)) return cli_usage_error("--repeat expects >= 1, got", v);
    } else if ((v = cli_option(argc, argv, &i, "--warmup"))) {
      if (!parse_long(v, 0, 1000000, &o->warmup)) return cli_usage_error("--warmup expects >= 0, got", v);
    } else if ((v = cli_option(argc, argv, &i, "--threads"))) {
      if (!parse_long(v, 0, 1024, &o->threads)) return cli_usage_error("--threads expects 0..1024, got", v);
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
  if (o->profile && strcmp(o->executor, "graph") != 0) {
    /* Per-kernel times need the graph executor's plan: one kernel per node. */
    return cli_usage_error("--profile times the kernels of --executor graph, not", o->executor);
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

/* Makes the input tensor for input `index`: from --input, else random. */
static rt_status_t make_input(const run_opts *o, rt_executor_t *ex, int32_t index,
                              rt_tensor_t **out) {
  rt_tensor_info_t info;
  RT_RETURN_IF_ERROR(rt_executor_input_info(ex, index, &info));
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
  bool given = false;
  for (int i = 0; i < o->nshapes; ++i) {
    if (strcmp(o->shapes[i].name, info.name) != 0) continue;
    RT_RETURN_IF_ERROR(cli_parse_dims(o->shapes[i].value, &rank, shape));
    given = true;
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
  (void)given;
  RT_RETURN_IF_ERROR(rt_tensor_create(rt_allocator_system(), info.dtype, rank, shape, out));
  rt_tensor_fill_random(*out, cli_seed(info.name));
  return RT_OK;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static rt_status_t write_outputs(const char *dir, rt_executor_t *ex) {
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    return RT_STATUS(IO_ERROR, "cannot create %s: %s", dir, strerror(errno));
  }
  for (int32_t i = 0; i < rt_executor_num_outputs(ex); ++i) {
    rt_tensor_t *t = NULL;
    RT_RETURN_IF_ERROR(rt_executor_get_output(ex, i, &t));
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

static void json_string(FILE *f, const char *s) {
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

/* Loads the model, binding the --const-input values as constants and the
 * --shape shapes as @main's input shapes (so `?` dims become static: the
 * graph executor can run the model, and ONNX shape computations fold). */
static rt_status_t load_model(const run_opts *o, rt_module_t **out) {
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

int cli_run(int argc, char **argv) {
  run_opts o;
  int rc = parse_opts(argc, argv, &o);
  if (rc) return rc;
  rt_status_t st = RT_OK;
  rt_module_t *m = NULL;
  rt_params_t *params = NULL;
  rt_pass_context_t *ctx = NULL;
  rt_executor_t *ex = NULL;
  double *times = NULL;
  double compile_ms = 0;

  st = load_model(&o, &m);
  if (!st && o.params) st = rt_params_read_file(rt_allocator_system(), o.params, &params);
  if (!st) st = rt_pass_context_create(&ctx);
  if (!st) st = rt_pass_context_set_opt_level(ctx, o.opt_level);
  if (!st && o.threads) {
    char n[24];
    snprintf(n, sizeof n, "%ld", o.threads);
    st = rt_pass_context_set_config(ctx, "runtime.num_threads", n);
  }
  if (!st) {
    double t0 = now_ms();
    st = rt_create_executor(o.executor, m, NULL, ctx, params, &ex);
    compile_ms = now_ms() - t0;
  }
  /* Every --input and --shape must name an input. */
  for (int i = 0; !st && i < o.ninputs; ++i) {
    int32_t idx;
    st = rt_executor_input_index(ex, o.inputs[i].name, &idx);
  }
  for (int i = 0; !st && i < o.nshapes; ++i) {
    int32_t idx;
    st = rt_executor_input_index(ex, o.shapes[i].name, &idx);
  }
  for (int32_t i = 0; !st && i < rt_executor_num_inputs(ex); ++i) {
    rt_tensor_t *t = NULL;
    st = make_input(&o, ex, i, &t);
    if (!st) st = rt_executor_set_input(ex, i, t);
    rt_tensor_release(t);
  }
  if (!st && o.trace) st = rt_executor_set_step_callback(ex, trace_step, NULL);
  for (long i = 0; !st && i < o.warmup; ++i) st = rt_executor_run(ex);
  if (!st) {
    times = calloc((size_t)o.repeat, sizeof(double));
    if (!times) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  }
  for (long i = 0; !st && i < o.repeat; ++i) {
    double t0 = now_ms();
    st = rt_executor_run(ex);
    times[i] = now_ms() - t0;
  }
  if (!st && o.out_dir) st = write_outputs(o.out_dir, ex);
  /* After the timed runs (the warm-up of the profile's), so those and the
   * written outputs are the plain runs'. */
  cli_profile_t prof = {0};
  if (!st && o.profile) st = cli_profile_run(ex, o.repeat, &prof);
  if (!st) {
    double sum = 0;
    for (long i = 0; i < o.repeat; ++i) sum += times[i];
    qsort(times, (size_t)o.repeat, sizeof(double), cmp_double);
    double median = o.repeat % 2 ? times[o.repeat / 2]
                                 : 0.5 * (times[o.repeat / 2 - 1] + times[o.repeat / 2]);
    const char *model_name = o.model ? o.model : CLI_BUILTIN_NAME;
    int32_t nout = rt_executor_num_outputs(ex);
    if (o.json) {
      printf("{\"model\": ");
      json_string(stdout, model_name);
      printf(", \"executor\": ");
      json_string(stdout, rt_executor_kind(ex));
      printf(", \"compile_ms\": %.3f, \"latency_ms\": {\"min\": %.3f, \"median\": %.3f, "
             "\"mean\": %.3f, \"max\": %.3f}, \"outputs\": [",
             compile_ms, times[0], median, sum / (double)o.repeat, times[o.repeat - 1]);
      for (int32_t i = 0; i < nout; ++i) {
        rt_tensor_t *t = NULL;
        rt_status_free(rt_executor_get_output(ex, i, &t)); /* i < nout: cannot fail */
        char dn[RT_DTYPE_NAME_MAX];
        printf("%s{\"name\": \"output_%d\", \"shape\": [", i ? ", " : "", (int)i);
        for (int32_t d = 0; d < rt_tensor_rank(t); ++d) {
          printf("%s%lld", d ? ", " : "", (long long)rt_tensor_shape(t)[d]);
        }
        printf("], \"dtype\": \"%s\"}", rt_dtype_name(rt_tensor_dtype(t), dn));
      }
      printf("]");
      rt_executor_memory_t mem;
      rt_status_t ms = rt_executor_memory(ex, &mem);
      if (!ms) {
        printf(", \"memory\": {\"planned_bytes\": %llu, \"planned_blocks\": %d, "
               "\"intermediates\": %d, \"unshared_bytes\": %llu, \"output_bytes\": %llu}",
               (unsigned long long)mem.planned_bytes, (int)mem.planned_blocks, (int)mem.intermediates,
               (unsigned long long)mem.unshared_bytes, (unsigned long long)mem.output_bytes);
      }
      rt_status_free(ms); /* other executors have no memory plan to report */
      if (o.profile) {
        printf(", \"profile\": {\"runs\": %ld, \"total_ms\": %.6f, \"kernels\": [", prof.runs,
               prof.total_ms);
        for (int32_t i = 0; i < prof.count; ++i) {
          printf("%s{\"kernel\": ", i ? ", " : "");
          json_string(stdout, prof.nodes[i].kernel);
          printf(", \"type\": ");
          json_string(stdout, prof.nodes[i].type);
          printf(", \"mean_ms\": %.6f, \"min_ms\": %.6f}", prof.nodes[i].mean_ms,
                 prof.nodes[i].min_ms);
        }
        printf("]}");
      }
      printf("}\n");
    } else {
      printf("model: %s\nexecutor: %s\ncompile: %.3f ms\n", model_name, rt_executor_kind(ex),
             compile_ms);
      printf("latency: min %.3f ms, median %.3f ms, mean %.3f ms, max %.3f ms (%ld run%s)\n",
             times[0], median, sum / (double)o.repeat, times[o.repeat - 1], o.repeat,
             o.repeat == 1 ? "" : "s");
      rt_executor_memory_t mem;
      rt_status_t ms = rt_executor_memory(ex, &mem);
      if (!ms) {
        printf("memory: %llu bytes planned in %d blocks for %d intermediates (%llu without "
               "reuse), outputs %llu bytes\n",
               (unsigned long long)mem.planned_bytes, (int)mem.planned_blocks, (int)mem.intermediates,
               (unsigned long long)mem.unshared_bytes, (unsigned long long)mem.output_bytes);
      }
      rt_status_free(ms); /* other executors have no memory plan to report */
      for (int32_t i = 0; i < nout; ++i) {
        rt_tensor_t *t = NULL;
        rt_status_free(rt_executor_get_output(ex, i, &t)); /* i < nout: cannot fail */
        char name[32];
        snprintf(name, sizeof name, "output_%d", (int)i);
        cli_print_summary(stdout, name, t);
      }
      if (o.profile) cli_profile_print(stdout, &prof);
    }
  }
  cli_profile_free(&prof);
  free(times);
  rt_executor_release(ex);
  rt_pass_context_release(ctx);
  rt_params_release(params);
  rt_module_release(m);
  return st ? cli_report(st) : 0;
}
