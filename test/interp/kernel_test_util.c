/* The kernel-test harness (kernel_test_util.h): parses tensors and
 * attributes from text, builds an rt_interp_call_t the way the interpreter
 * will (attrs from rt_ir_op_attrs in a scratch module, outputs allocated
 * with the expected shapes), runs the kernel and compares. Tensor values
 * are written and read here with plain C conversions of its own, not with
 * the kernels' load/store helpers, so a bug there cannot hide itself. */
#include "kernel_test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/kernel.h"
#include "runtime/half.h"
#include "runtime/tensor_impl.h"
#include "runtime/mem.h"

#define MAX_TENSORS 16
#define MAX_ATTRS 16

/* ---- registration ----------------------------------------------------------- */

static struct CMUnitTest g_tests[1024];
static size_t g_ntests;

void kt_register(const char *name, kt_test_fn fn) {
  if (g_ntests >= RT_COUNTOF(g_tests)) {
    fprintf(stderr, "too many tests\n");
    abort();
  }
  g_tests[g_ntests].name = name;
  g_tests[g_ntests].test_func = fn;
  g_ntests++;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const struct CMUnitTest *)a)->name, ((const struct CMUnitTest *)b)->name);
}

int kt_run_all(const char *group) {
  qsort(g_tests, g_ntests, sizeof g_tests[0], by_name);
  return _cmocka_run_group_tests(group, g_tests, g_ntests, NULL, NULL);
}

/* ---- tensors from text --------------------------------------------------------- */

typedef struct spec_t {
  rt_dtype_t dtype;
  int32_t rank;
  int64_t shape[RT_TENSOR_MAX_RANK];
  bool unknown;       /* a `?` dim: the kernel creates the output */
  rt_tensor_t *tensor;
} spec_t;

static bool parse_dtype(const char *s, size_t n, rt_dtype_t *out) {
  const struct { const char *name; rt_dtype_t dt; } names[] = {
      {"f16", RT_DTYPE_FLOAT16}, {"bf16", RT_DTYPE_BFLOAT16}, {"f32", RT_DTYPE_FLOAT32},
      {"f64", RT_DTYPE_FLOAT64}, {"i8", RT_DTYPE_INT8},       {"i16", RT_DTYPE_INT16},
      {"i32", RT_DTYPE_INT32},   {"i64", RT_DTYPE_INT64},     {"u8", RT_DTYPE_UINT8},
      {"u16", RT_DTYPE_UINT16},  {"u32", RT_DTYPE_UINT32},    {"u64", RT_DTYPE_UINT64},
      {"bool", RT_DTYPE_BOOL},
  };
  for (size_t i = 0; i < RT_COUNTOF(names); ++i) {
    if (strlen(names[i].name) == n && strncmp(names[i].name, s, n) == 0) {
      *out = names[i].dt;
      return true;
    }
  }
  return false;
}

static void put(rt_tensor_t *t, int64_t i, const char *tok, const char *file, int line) {
  void *p = t->data;
  char *end = NULL;
  const rt_dtype_t dt = t->dtype;
  if (dt.code == kDLFloat || dt.code == kDLBfloat) {
    double v = strtod(tok, &end);
    if (dt.code == kDLBfloat) ((uint16_t *)p)[i] = rt_f32_to_bf16((float)v);
    else if (dt.bits == 16) ((uint16_t *)p)[i] = rt_f32_to_f16((float)v);
    else if (dt.bits == 32) ((float *)p)[i] = (float)v;
    else ((double *)p)[i] = v;
  } else if (dt.code == kDLUInt || dt.code == kDLBool) {
    unsigned long long v = strtoull(tok, &end, 0);
    if (dt.code == kDLBool) ((uint8_t *)p)[i] = v != 0;
    else if (dt.bits == 8) ((uint8_t *)p)[i] = (uint8_t)v;
    else if (dt.bits == 16) ((uint16_t *)p)[i] = (uint16_t)v;
    else if (dt.bits == 32) ((uint32_t *)p)[i] = (uint32_t)v;
    else ((uint64_t *)p)[i] = v;
  } else {
    long long v = strtoll(tok, &end, 0);
    if (dt.bits == 8) ((int8_t *)p)[i] = (int8_t)v;
    else if (dt.bits == 16) ((int16_t *)p)[i] = (int16_t)v;
    else if (dt.bits == 32) ((int32_t *)p)[i] = (int32_t)v;
    else ((int64_t *)p)[i] = v;
  }
  if (end == tok || (end && *end)) {
    print_error("%s:%d: bad value \"%s\"\n", file, line, tok);
    _fail(file, line);
  }
}

/* Parses "<dtype>[dims] values" into spec (tensor created, values set;
 * for a `?` dim the shape is the value count). */
static void parse_tensor(rt_allocator_t alloc, const char *text, spec_t *s, const char *file,
                         int line) {
  memset(s, 0, sizeof *s);
  const char *lb = strchr(text, '[');
  const char *rb = lb ? strchr(lb, ']') : NULL;
  if (!lb || !rb || !parse_dtype(text, (size_t)(lb - text), &s->dtype)) {
    print_error("%s:%d: bad tensor \"%s\"\n", file, line, text);
    _fail(file, line);
  }
  for (const char *p = lb + 1; p < rb;) {
    while (p < rb && (*p == ' ' || *p == ',')) p++;
    if (p >= rb) break;
    if (*p == '?') {
      s->unknown = true;
      s->shape[s->rank++] = -1;
      p++;
    } else {
      char *end;
      s->shape[s->rank++] = strtoll(p, &end, 10);
      p = end;
    }
  }
  /* Values. */
  char *copy = rt_mem_strdup(rb + 1);
  char *toks[4096];
  int64_t n = 0;
  for (char *tok = strtok(copy, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
    if (n == (int64_t)RT_COUNTOF(toks)) break;
    toks[n++] = tok;
  }
  bool iota = n == 1 && strcmp(toks[0], "iota") == 0;
  int64_t numel = 1;
  for (int32_t d = 0; d < s->rank; ++d) {
    if (s->shape[d] < 0) s->shape[d] = n;
    numel *= s->shape[d];
  }
  if (!iota && n != numel) {
    print_error("%s:%d: tensor \"%s\" has %lld values for %lld elements\n", file, line, text,
                (long long)n, (long long)numel);
    rt_mem_free(copy);
    _fail(file, line);
  }
  assert_ok(rt_tensor_create(alloc, s->dtype, s->rank, s->shape, &s->tensor));
  char buf[32];
  for (int64_t i = 0; i < numel; ++i) {
    if (iota) snprintf(buf, sizeof buf, "%lld", (long long)i);
    put(s->tensor, i, iota ? buf : toks[i], file, line);
  }
  rt_mem_free(copy);
}

/* ---- reading values back (independently of the kernels) ---------------------------- */

static double get_f(const rt_tensor_t *t, int64_t i) {
  const void *p = t->data;
  if (t->dtype.code == kDLBfloat) return rt_bf16_to_f32(((const uint16_t *)p)[i]);
  if (t->dtype.bits == 16) return rt_f16_to_f32(((const uint16_t *)p)[i]);
  if (t->dtype.bits == 32) return ((const float *)p)[i];
  return ((const double *)p)[i];
}

static uint64_t get_bits(const rt_tensor_t *t, int64_t i) {
  const uint8_t *p = t->data;
  uint64_t v = 0;
  size_t esz = rt_dtype_size(t->dtype);
  memcpy(&v, p + (size_t)i * esz, esz); /* little-endian hosts */
  return v;
}

static void describe(const rt_tensor_t *t, int64_t i, char *buf, size_t cap) {
  if (t->dtype.code == kDLFloat || t->dtype.code == kDLBfloat) {
    snprintf(buf, cap, "%.9g", get_f(t, i));
  } else if (t->dtype.code == kDLInt) {
    uint64_t b = get_bits(t, i);
    int bits = t->dtype.bits;
    int64_t v = bits == 64 ? (int64_t)b : (int64_t)(b << (64 - bits)) >> (64 - bits);
    snprintf(buf, cap, "%lld", (long long)v);
  } else {
    snprintf(buf, cap, "%llu", (unsigned long long)get_bits(t, i));
  }
}

static void compare(const rt_tensor_t *got, const rt_tensor_t *want, int k, double rtol,
                    double atol, const char *file, int line) {
  char a[RT_DTYPE_NAME_MAX], b[RT_DTYPE_NAME_MAX];
  if (!rt_dtype_equal(got->dtype, want->dtype)) {
    print_error("%s:%d: output %d dtype %s, expected %s\n", file, line, k,
                rt_dtype_name(got->dtype, a), rt_dtype_name(want->dtype, b));
    _fail(file, line);
  }
  bool same_shape = got->rank == want->rank;
  for (int32_t d = 0; same_shape && d < got->rank; ++d) same_shape = got->shape[d] == want->shape[d];
  if (!same_shape) {
    print_error("%s:%d: output %d has another shape (rank %d vs %d)\n", file, line, k,
                got->rank, want->rank);
    _fail(file, line);
  }
  const bool is_float = want->dtype.code == kDLFloat || want->dtype.code == kDLBfloat;
  if (is_float && rtol < 0) {
    if (want->dtype.code == kDLBfloat) rtol = atol = 1e-2;
    else if (want->dtype.bits == 16) rtol = atol = 2e-3;
    else if (want->dtype.bits == 64) rtol = atol = 1e-12;
    else {
      rtol = 1e-5;
      atol = 1e-6;
    }
  }
  for (int64_t i = 0; i < want->numel; ++i) {
    bool ok;
    if (is_float) {
      double g = get_f(got, i), w = get_f(want, i);
      if (isnan(w)) ok = isnan(g);
      else if (isinf(w)) ok = g == w;
      else ok = !isnan(g) && fabs(g - w) <= atol + rtol * fabs(w);
    } else {
      ok = get_bits(got, i) == get_bits(want, i);
    }
    if (!ok) {
      char gs[40], ws[40];
      describe(got, i, gs, sizeof gs);
      describe(want, i, ws, sizeof ws);
      print_error("%s:%d: output %d element %lld is %s, expected %s\n", file, line, k,
                  (long long)i, gs, ws);
      _fail(file, line);
    }
  }
}

/* ---- attributes ------------------------------------------------------------------------ */

static int32_t parse_attrs(rt_module_t *m, const char *text, const char **keys,
                           rt_attr_value_t *values, const char *file, int line) {
  int32_t n = 0;
  const char *p = text;
  while (p && *p) {
    while (*p == ' ' || *p == ';') p++;
    if (!*p) break;
    const char *eq = strchr(p, '=');
    const char *end = p;
    bool quoted = false;
    while (*end && (quoted || *end != ';')) {
      if (*end == '"') quoted = !quoted;
      end++;
    }
    if (!eq || eq > end || n == MAX_ATTRS) {
      print_error("%s:%d: bad attributes \"%s\"\n", file, line, text);
      _fail(file, line);
    }
    const char *k0 = p, *k1 = eq;
    while (k1 > k0 && k1[-1] == ' ') k1--;
    char *key = NULL, *val = NULL;
    assert_ok(rt_arena_strndup(&m->arena, k0, (size_t)(k1 - k0), &key));
    assert_ok(rt_arena_strndup(&m->arena, eq + 1, (size_t)(end - eq - 1), &val));
    char *v = val;
    while (*v == ' ') v++;
    size_t vl = strlen(v);
    while (vl > 0 && v[vl - 1] == ' ') v[--vl] = '\0';
    keys[n] = key;
    assert_ok(rt_attr_value_parse(&m->arena, v, &values[n]));
    n++;
    p = end;
  }
  return n;
}

/* ---- running ------------------------------------------------------------------------------ */

typedef struct run_t {
  rt_test_alloc_t st;
  rt_allocator_t alloc;
  rt_module_t *m;
  spec_t ins[MAX_TENSORS], want[MAX_TENSORS];
  rt_tensor_t *args[MAX_TENSORS], *outs[MAX_TENSORS];
  int32_t nins, nouts;
  rt_status_t status;
} run_t;

static void run(run_t *r, const char *file, int line, const char *opname, const char *attrs,
                const char *const *ins, const char *const *outs) {
  memset(r, 0, sizeof *r);
  r->st.fail_at = -1;
  r->alloc = rt_test_allocator(&r->st);
  assert_ok(rt_ir_module_create(r->alloc, &r->m));
  const rt_ir_op_t *op = rt_ir_op_lookup(opname, strlen(opname));
  if (!op) {
    print_error("%s:%d: no op \"%s\"\n", file, line, opname);
    _fail(file, line);
  }
  const char *keys[MAX_ATTRS];
  rt_attr_value_t values[MAX_ATTRS];
  int32_t nattrs = parse_attrs(r->m, attrs, keys, values, file, line);
  rt_ir_attrs_t *at = NULL;
  assert_ok(rt_ir_op_attrs(r->m, (rt_ir_span_t){0}, op, nattrs, keys, values, &at));
  while (ins[r->nins]) {
    parse_tensor(r->alloc, ins[r->nins], &r->ins[r->nins], file, line);
    r->args[r->nins] = r->ins[r->nins].tensor;
    r->nins++;
  }
  rt_ir_type_t *types[MAX_TENSORS];
  while (outs[r->nouts]) {
    spec_t *w = &r->want[r->nouts];
    parse_tensor(r->alloc, outs[r->nouts], w, file, line);
    int64_t tshape[RT_TENSOR_MAX_RANK];
    for (int32_t d = 0; d < w->rank; ++d) tshape[d] = w->unknown ? RT_DIM_ANY : w->shape[d];
    assert_ok(rt_ir_tensor_type(r->m, w->dtype, w->rank, tshape, &types[r->nouts]));
    if (!w->unknown) {
      assert_ok(rt_tensor_create(r->alloc, w->dtype, w->rank, w->shape, &r->outs[r->nouts]));
    }
    r->nouts++;
  }
  rt_ir_type_t *out_type = types[0];
  if (r->nouts != 1) assert_ok(rt_ir_tuple_type(r->m, r->nouts, types, &out_type));
  int32_t arity[MAX_TENSORS];
  for (int32_t i = 0; i < op->num_inputs; ++i) arity[i] = 1;
  if (op->num_inputs >= 1 && r->nins > op->num_inputs) arity[0] = r->nins - op->num_inputs + 1;
  rt_interp_call_t call = {
      .allocator = r->alloc,
      .op = op,
      .attrs = at,
      .nargs = r->nins,
      .args = r->args,
      .ninputs = op->num_inputs,
      .tuple_arity = arity,
      .nouts = r->nouts,
      .outs = r->outs,
      .out_type = out_type,
  };
  rt_interp_kernel_fn fn = rt_interp_kernel((rt_op_id_t)op->id);
  assert_non_null(fn);
  r->status = fn(&call);
}

static void finish(run_t *r, const char *file, int line) {
  for (int32_t i = 0; i < r->nins; ++i) rt_tensor_release(r->ins[i].tensor);
  for (int32_t i = 0; i < r->nouts; ++i) {
    rt_tensor_release(r->want[i].tensor);
    rt_tensor_release(r->outs[i]);
  }
  rt_module_release(r->m);
  if (r->st.live_allocations != 0) {
    print_error("%s:%d: %lld allocations leaked\n", file, line,
                (long long)r->st.live_allocations);
    _fail(file, line);
  }
}

void kt_check(const char *file, int line, const char *op, const char *attrs,
              const char *const *ins, const char *const *outs, double rtol, double atol) {
  run_t r;
  run(&r, file, line, op, attrs, ins, outs);
  if (r.status) {
    print_error("%s:%d: %s failed: %s\n", file, line, op, rt_status_message(r.status));
    rt_status_free(r.status);
    _fail(file, line);
  }
  for (int32_t k = 0; k < r.nouts; ++k) {
    if (!r.outs[k]) {
      print_error("%s:%d: output %d was not created\n", file, line, k);
      _fail(file, line);
    }
    compare(r.outs[k], r.want[k].tensor, k, rtol, atol, file, line);
  }
  finish(&r, file, line);
}

void kt_error(const char *file, int line, const char *op, const char *attrs,
              const char *const *ins, const char *const *outs, rt_status_code_t code,
              const char *needle) {
  run_t r;
  run(&r, file, line, op, attrs, ins, outs);
  rt_status_t st = r.status;
  bool ok = rt_status_code(st) == code &&
            (!needle || strstr(rt_status_message(st), needle) != NULL);
  if (!ok) {
    print_error("%s:%d: %s: expected %s containing \"%s\", got %s: %s\n", file, line, op,
                rt_status_code_name(code), needle ? needle : "", rt_status_code_name(rt_status_code(st)),
                rt_status_message(st));
    rt_status_free(st);
    _fail(file, line);
  }
  rt_status_free(st);
  finish(&r, file, line);
}
