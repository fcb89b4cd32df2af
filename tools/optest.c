/* `relayrt optest OP`: one op through every executor against the reference
 * interpreter. It writes a one-op Relay program (inputs from --shape, in
 * order, of --dtype; attributes from --attr), runs it on seeded random
 * inputs with the "debug" executor (the reference), then with every other
 * executor that exists, and prints each one's max abs and max rel error.
 * With --tolerance T (the default for custom ops, rt/op.h: 1e-4) an error
 * above T (both absolute and relative) fails. A custom op is checked with
 * its native kernel (the op alone) and, when it has an element expression,
 * fused after negative() (the JIT then computes it from the expression);
 * both against its reference kernel. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_ARGS 16
#define MAX_OUTS 64

/* Appends an attribute value in Relay text: "1,1" -> [1, 1]; 0.5 -> 0.5f;
 * True/False/None and numbers bare; anything else quoted. */
static void append_attr_value(char *buf, size_t cap, const char *v) {
  size_t n = strlen(buf);
  if (strchr(v, ',')) {
    n += (size_t)snprintf(buf + n, cap - n, "[");
    const char *p = v;
    bool first = true;
    while (*p && n < cap) {
      const char *comma = strchr(p, ',');
      size_t len = comma ? (size_t)(comma - p) : strlen(p);
      char item[128];
      snprintf(item, sizeof item, "%.*s", (int)(len < 127 ? len : 127), p);
      n += (size_t)snprintf(buf + n, cap - n, "%s", first ? "" : ", ");
      first = false;
      buf[n] = '\0';
      append_attr_value(buf, cap, item);
      n = strlen(buf);
      p = comma ? comma + 1 : p + len;
    }
    snprintf(buf + n, cap - n, "]");
    return;
  }
  if (strcmp(v, "True") == 0 || strcmp(v, "False") == 0 || strcmp(v, "None") == 0) {
    snprintf(buf + n, cap - n, "%s", v);
    return;
  }
  char *end = NULL;
  strtod(v, &end);
  bool numeric = *v && *end == '\0';
  if (numeric) {
    bool is_float = strpbrk(v, ".eE") != NULL;
    snprintf(buf + n, cap - n, "%s%s", v, is_float ? "f" : "");
    return;
  }
  size_t vl = strlen(v);
  bool suffixed_float = vl > 1 && v[vl - 1] == 'f' && strtod(v, &end) && end == v + vl - 1;
  if (suffixed_float || v[0] == '"' || v[0] == '[') {
    snprintf(buf + n, cap - n, "%s", v);
    return;
  }
  snprintf(buf + n, cap - n, "\"%s\"", v);
}

static bool valid_ident(const char *s) {
  if (!*s) return false;
  for (const char *p = s; *p; ++p) {
    if (!isalnum((unsigned char)*p) && *p != '_') return false;
  }
  return !isdigit((unsigned char)s[0]);
}

static void compare(const rt_tensor_t *ref, const rt_tensor_t *got, double *max_abs,
                    double *max_rel, bool *shape_ok) {
  *shape_ok = rt_tensor_rank(ref) == rt_tensor_rank(got) &&
              rt_tensor_numel(ref) == rt_tensor_numel(got);
  for (int32_t d = 0; *shape_ok && d < rt_tensor_rank(ref); ++d) {
    *shape_ok = rt_tensor_shape(ref)[d] == rt_tensor_shape(got)[d];
  }
  if (!*shape_ok) return;
  for (int64_t i = 0; i < rt_tensor_numel(ref); ++i) {
    double a = rt_tensor_get_f64(ref, i), b = rt_tensor_get_f64(got, i);
    if (isnan(a) && isnan(b)) continue;
    if (a == b) continue; /* equal infinities too */
    double e = fabs(a - b);
    if (isnan(e)) e = INFINITY;
    double r = e / (fabs(a) > 1e-30 ? fabs(a) : 1e-30);
    if (e > *max_abs) *max_abs = e;
    if (r > *max_rel) *max_rel = r;
  }
}

static rt_status_t run_kind(const char *kind, rt_module_t *m, int32_t nargs,
                            rt_tensor_t *const *inputs, rt_tensor_t **outs, int32_t *nouts) {
  rt_executor_t *ex = NULL;
  RT_RETURN_IF_ERROR(rt_create_executor(kind, m, NULL, NULL, NULL, &ex));
  rt_status_t st = RT_OK;
  for (int32_t i = 0; !st && i < nargs; ++i) st = rt_executor_set_input(ex, i, inputs[i]);
  if (!st) st = rt_executor_run(ex);
  int32_t n = rt_executor_num_outputs(ex);
  if (!st && n > MAX_OUTS) st = RT_STATUS(OUT_OF_RANGE, "too many outputs");
  for (int32_t i = 0; !st && i < n; ++i) {
    st = rt_executor_get_output(ex, i, &outs[i]);
    if (!st) rt_tensor_retain(outs[i]);
    *nouts = i + 1;
  }
  if (!st) *nouts = n;
  rt_executor_release(ex);
  return st;
}

/* Runs the program `text` on the debug executor (the reference) and on
 * graph and vm, printing each one's errors; counts failures (errors, shape
 * mismatches, and with tolerance >= 0 errors above it). `what` labels the
 * compiled executors' lines ("native kernel"); NULL for none. */
static rt_status_t check_program(const char *text, const char *what, int nshapes,
                                 const char *const *shape_names, rt_tensor_t *const *inputs,
                                 double tolerance, bool summaries, int *failures) {
  rt_module_t *m = NULL;
  rt_status_t st = rt_module_parse(text, strlen(text), "<optest>", &m);
  if (st) {
    fprintf(stderr, "relayrt: the one-op program was:\n%s", text);
    return st;
  }
  rt_tensor_t *ref[MAX_OUTS] = {0};
  int32_t nref = 0;
  st = run_kind("debug", m, nshapes, inputs, ref, &nref);
  if (!st) {
    printf("%s", text);
    for (int i = 0; summaries && i < nshapes; ++i) cli_print_summary(stdout, shape_names[i], inputs[i]);
    for (int32_t i = 0; i < nref; ++i) {
      char name[32];
      snprintf(name, sizeof name, "reference output_%d", (int)i);
      cli_print_summary(stdout, name, ref[i]);
    }
    const char *others[] = {"graph", "vm"};
    for (size_t k = 0; k < 2; ++k) {
      char label[96];
      snprintf(label, sizeof label, "%s%s%s%s", others[k], what ? " (" : "", what ? what : "",
               what ? ")" : "");
      rt_tensor_t *got[MAX_OUTS] = {0};
      int32_t ngot = 0;
      rt_status_t ks = run_kind(others[k], m, nshapes, inputs, got, &ngot);
      if (ks && rt_status_code(ks) == RT_STATUS_UNIMPLEMENTED && tolerance < 0) {
        printf("%s: not built yet\n", label);
        rt_status_free(ks);
      } else if (ks) {
        printf("%s: error: %s\n", label, rt_status_message(ks));
        rt_status_free(ks);
        (*failures)++;
      } else {
        double max_abs = 0, max_rel = 0;
        bool ok = ngot == nref;
        for (int32_t i = 0; ok && i < nref; ++i) compare(ref[i], got[i], &max_abs, &max_rel, &ok);
        if (!ok) {
          printf("%s: output shapes differ from the reference\n", label);
          (*failures)++;
        } else {
          bool within = tolerance < 0 || max_abs <= tolerance || max_rel <= tolerance;
          printf("%s: max abs error %.3g, max rel error %.3g%s\n", label, max_abs, max_rel,
                 within ? "" : " (above the tolerance)");
          if (!within) (*failures)++;
        }
      }
      for (int32_t i = 0; i < ngot; ++i) rt_tensor_release(got[i]);
    }
  }
  for (int32_t i = 0; i < nref; ++i) rt_tensor_release(ref[i]);
  rt_module_release(m);
  return st;
}

/* Writes the one-op program into text: inputs from the shapes, op applied
 * to them with the attributes; `fused` first negates input 0 (an
 * elementwise op the JIT fuses with an elementwise `op`). False when it
 * does not fit. */
static bool program(char *text, size_t cap, const char *op, rt_dtype_t dt, int nshapes,
                    const char *const *shape_names, const int32_t *ranks,
                    int64_t (*shapes)[RT_TENSOR_MAX_RANK], int nattrs,
                    const char *const *attrs, bool fused) {
  size_t n = (size_t)snprintf(text, cap, "#[version = \"0.0.5\"]\ndef @main(");
  for (int i = 0; i < nshapes; ++i) {
    char ty[512];
    cli_type_text(dt, ranks[i], shapes[i], ty, sizeof ty);
    n += (size_t)snprintf(text + n, cap - n, "%s%%%s: %s", i ? ", " : "", shape_names[i], ty);
    if (n >= cap) return false;
  }
  n += (size_t)snprintf(text + n, cap - n, ") {\n");
  if (fused && nshapes > 0 && n < cap) {
    n += (size_t)snprintf(text + n, cap - n, "  %%0 = negative(%%%s);\n", shape_names[0]);
  }
  if (n >= cap) return false;
  n += (size_t)snprintf(text + n, cap - n, "  %s(", op);
  for (int i = 0; i < nshapes && n < cap; ++i) {
    if (fused && i == 0) {
      n += (size_t)snprintf(text + n, cap - n, "%%0");
    } else {
      n += (size_t)snprintf(text + n, cap - n, "%s%%%s", i ? ", " : "", shape_names[i]);
    }
  }
  for (int i = 0; i < nattrs && n < cap; ++i) {
    const char *eq = strchr(attrs[i], '=');
    n += (size_t)snprintf(text + n, cap - n, "%s%.*s=", (nshapes || i) ? ", " : "",
                          (int)(eq - attrs[i]), attrs[i]);
    if (n >= cap) return false;
    append_attr_value(text, cap, eq + 1);
    n = strlen(text);
  }
  if (n + 8 >= cap) return false;
  snprintf(text + n, cap - n, ")\n}\n");
  return true;
}

int cli_optest(int argc, char **argv) {
  const char *op = NULL, *dtype = "float32";
  double tolerance = -1; /* < 0: report errors, fail on none */
  const char *shape_names[MAX_ARGS], *shape_values[MAX_ARGS], *attrs[MAX_ARGS];
  char name_store[MAX_ARGS][64];
  int nshapes = 0, nattrs = 0;
  for (int i = 0; i < argc; ++i) {
    const char *v;
    if ((v = cli_option(argc, argv, &i, "--shape"))) {
      const char *eq = strchr(v, '=');
      if (nshapes == MAX_ARGS) return cli_usage_error("too many --shape options:", v);
      if (!eq || eq == v || (size_t)(eq - v) >= sizeof name_store[0]) {
        return cli_usage_error("--shape expects NAME=DIMS, got", v);
      }
      snprintf(name_store[nshapes], sizeof name_store[0], "%.*s", (int)(eq - v), v);
      if (!valid_ident(name_store[nshapes])) return cli_usage_error("bad input name in", v);
      shape_names[nshapes] = name_store[nshapes];
      shape_values[nshapes++] = eq + 1;
    } else if ((v = cli_option(argc, argv, &i, "--attr"))) {
      const char *eq = strchr(v, '=');
      if (nattrs == MAX_ARGS) return cli_usage_error("too many --attr options:", v);
      if (!eq || eq == v || eq[1] == '\0') return cli_usage_error("--attr expects K=V, got", v);
      attrs[nattrs++] = v;
    } else if ((v = cli_option(argc, argv, &i, "--dtype"))) {
      dtype = v;
    } else if ((v = cli_option(argc, argv, &i, "--tolerance"))) {
      char *end = NULL;
      tolerance = strtod(v, &end);
      if (!*v || *end || !(tolerance >= 0)) return cli_usage_error("--tolerance expects a number >= 0, got", v);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_usage_error("unknown option for optest:", argv[i]);
    } else if (!op) {
      op = argv[i];
    } else {
      return cli_usage_error("unexpected argument", argv[i]);
    }
  }
  if (!op) return cli_usage_error("optest needs an op name, e.g.", "nn.conv2d");
  for (const char *p = op; *p; ++p) {
    if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.') return cli_usage_error("bad op name", op);
  }
  rt_dtype_t dt;
  rt_status_t st = rt_dtype_parse(dtype, strlen(dtype), &dt);
  if (st) return cli_report(st);

  /* The one-op program. */
  char text[16384];
  int32_t ranks[MAX_ARGS];
  int64_t shapes[MAX_ARGS][RT_TENSOR_MAX_RANK];
  for (int i = 0; i < nshapes; ++i) {
    st = cli_parse_dims(shape_values[i], &ranks[i], shapes[i]);
    if (st) return cli_report(st);
  }
  if (!program(text, sizeof text, op, dt, nshapes, shape_names, ranks, shapes, nattrs, attrs,
               false)) {
    return cli_usage_error("program too long for", op);
  }
  /* A custom op (rt/op.h) is checked harder: its native kernel and (if it
   * has one) its element expression, fused after negative(), must match
   * its reference kernel within the tolerance. */
  rt_op_info_t info;
  memset(&info, 0, sizeof info);
  rt_status_t is = rt_op_info(op, &info);
  rt_status_free(is);
  if (info.custom && tolerance < 0) tolerance = 1e-4;

  rt_tensor_t *inputs[MAX_ARGS] = {0};
  for (int i = 0; !st && i < nshapes; ++i) {
    st = rt_tensor_create(rt_allocator_system(), dt, ranks[i], shapes[i], &inputs[i]);
    if (!st) rt_tensor_fill_random(inputs[i], cli_seed(shape_names[i]));
  }
  int failures = 0;
  if (!st) {
    const char *what = !info.custom ? NULL : info.has_native ? "native kernel"
                       : info.has_elem_expr ? "element expression" : NULL;
    st = check_program(text, what, nshapes, shape_names, inputs, tolerance, true, &failures);
  }
  if (!st && info.custom && info.has_elem_expr && nshapes > 0) {
    if (program(text, sizeof text, op, dt, nshapes, shape_names, ranks, shapes, nattrs, attrs,
                true)) {
      st = check_program(text, "fused, element expression", nshapes, shape_names, inputs,
                         tolerance, false, &failures);
    }
  }
  for (int i = 0; i < nshapes; ++i) rt_tensor_release(inputs[i]);
  if (st) return cli_report(st);
  return failures ? 1 : 0;
}
