/* Reference kernels of the string ops (ir/op/string.c) and the string
 * paths of cast / cast_like (issue 19). Elements are rt_string_t (UTF-8
 * bytes the tensor owns, include/rt/tensor.h); outputs are written with
 * rt_tensor_set_string, which copies.
 *
 * string_normalizer (ONNX StringNormalizer): drops the stopwords (compared
 * byte for byte, or ASCII-case-insensitively unless is_case_sensitive),
 * then changes case. Case changes touch ASCII letters only: ONNX Runtime
 * maps case through the locale (en_US by default), which agrees on ASCII;
 * letters beyond ASCII are left as they are here (a documented limit).
 * When every word is dropped the result is one empty string.
 *
 * string_lookup: each string's position in the `vocab` list (byte-exact),
 * -1 when absent; an int64 tensor of the input's shape.
 *
 * cast to and from strings: a number prints as its shortest decimal form
 * that reads back to the same value of its dtype ("%.{p}g" for the least
 * p, as numpy's repr of float32 and ONNX's test data), NaN as "NaN", the
 * infinities as "INF" / "-INF" (ONNX Runtime's spelling), integers in
 * decimal, bools as "1" / "0"; a string parses with strtof / strtod /
 * strtoll (so "nan", "INF", "+inf" parse, case-insensitively), the whole
 * string must be a number (else INVALID_ARGUMENT naming it), and the value
 * is stored as a cast of that double or int64 would store it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/kernels/kernels_impl.h"
#include "ir/op/op_attrs.h"

static const rt_string_t *strings_of(const rt_tensor_t *t) {
  return (const rt_string_t *)rt_tensor_data(t);
}

static int ascii_lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

static bool word_equal(const rt_string_t *w, const char *stop, bool case_sensitive) {
  size_t n = strlen(stop);
  if ((size_t)w->size != n) return false;
  if (case_sensitive) return n == 0 || memcmp(w->data, stop, n) == 0;
  for (size_t i = 0; i < n; ++i) {
    if (ascii_lower((unsigned char)w->data[i]) != ascii_lower((unsigned char)stop[i])) return false;
  }
  return true;
}

rt_status_t rt_interp_k_STRING_NORMALIZER(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  const rt_attrs_string_normalizer_t a = rt_ir_attrs_string_normalizer(call->attrs);
  const int mode = strcmp(a.case_change_action, "LOWER") == 0 ? 1
                   : strcmp(a.case_change_action, "UPPER") == 0 ? 2 : 0;
  const int32_t nstop = a.stopwords_is_none ? 0 : a.stopwords->array.count;
  const rt_string_t *in = strings_of(x);
  bool *keep = NULL;
  RT_RETURN_IF_ERROR(rt_interp_scratch(call, x->numel + 1, sizeof *keep, false, (void **)&keep));
  int64_t kept = 0;
  for (int64_t i = 0; i < x->numel; ++i) {
    keep[i] = true;
    for (int32_t k = 0; k < nstop && keep[i]; ++k) {
      if (word_equal(&in[i], a.stopwords->array.items[k].s, a.is_case_sensitive)) keep[i] = false;
    }
    kept += keep[i];
  }
  const int32_t rank = x->rank;
  int64_t shape[2] = {1, 1};
  shape[rank - 1] = kept ? kept : 1;
  rt_status_t st = RT_OK;
  rt_tensor_t *out = call->outs[0];
  if (!out) {
    st = rt_tensor_create(call->allocator, RT_DTYPE_STRING, rank, shape, &out);
    if (!st) call->outs[0] = out;
  } else {
    st = rt_interp_check_shape(call, out, rank, shape);
  }
  char *buf = NULL;
  int64_t cap = 0;
  for (int64_t i = 0, o = 0; !st && i < x->numel; ++i) {
    if (!keep[i]) continue;
    const rt_string_t *w = &in[i];
    if (w->size > cap) {
      rt_interp_scratch_free(call, buf);
      buf = NULL;
      cap = w->size;
      st = rt_interp_scratch(call, cap, 1, false, (void **)&buf);
      if (st) break;
    }
    for (int64_t k = 0; k < w->size; ++k) {
      int c = (unsigned char)w->data[k];
      if (mode == 1 && c >= 'A' && c <= 'Z') c += 'a' - 'A';
      if (mode == 2 && c >= 'a' && c <= 'z') c -= 'a' - 'A';
      buf[k] = (char)c;
    }
    st = rt_tensor_set_string(out, o++, buf, (size_t)w->size);
  }
  rt_interp_scratch_free(call, buf);
  rt_interp_scratch_free(call, keep);
  return st;
}

/* string_lookup: a linear search per element (vocabularies here are an
 * op's attribute list, small); the first match wins. */
rt_status_t rt_interp_k_STRING_LOOKUP(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const rt_attrs_string_lookup_t a = rt_ir_attrs_string_lookup(call->attrs);
  const rt_string_t *in = strings_of(x);
  int64_t *o = rt_tensor_data(out);
  for (int64_t i = 0; i < x->numel; ++i) {
    o[i] = -1;
    for (int32_t k = 0; k < a.vocab->array.count; ++k) {
      if (word_equal(&in[i], a.vocab->array.items[k].s, true)) {
        o[i] = k;
        break;
      }
    }
  }
  return RT_OK;
}

/* ---- cast ------------------------------------------------------------------ */

/* The shortest "%.{p}g" of v that reads back as v in `dt` (float32 through
 * strtof, else strtod). */
static int format_float(double v, rt_dtype_t dt, char *buf, size_t cap) {
  if (isnan(v)) return snprintf(buf, cap, "NaN");
  if (isinf(v)) return snprintf(buf, cap, v < 0 ? "-INF" : "INF");
  const bool f32 = !(dt.code == kDLFloat && dt.bits == 64);
  int n = 0;
  for (int p = 1; p <= 17; ++p) {
    n = snprintf(buf, cap, "%.*g", p, v);
    if (f32 ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
  }
  return n;
}

static rt_status_t to_string(const rt_interp_call_t *call, const rt_tensor_t *x, rt_tensor_t *out) {
  const rt_interp_class_t cls = rt_interp_class(x->dtype);
  char buf[64];
  rt_status_t st = RT_OK;
  for (int64_t i = 0; !st && i < x->numel; ++i) {
    int n;
    if (cls == RT_INTERP_FLOAT) {
      n = format_float(rt_interp_load_f(x, i), x->dtype, buf, sizeof buf);
    } else if (cls == RT_INTERP_UINT) {
      n = snprintf(buf, sizeof buf, "%llu", (unsigned long long)rt_interp_load_i(x, i));
    } else {
      n = snprintf(buf, sizeof buf, "%lld", (long long)rt_interp_load_i(x, i));
    }
    st = rt_tensor_set_string(out, i, buf, n > 0 ? (size_t)n : 0);
  }
  (void)call;
  return st;
}

static rt_status_t from_string(const rt_interp_call_t *call, const rt_tensor_t *x, rt_tensor_t *out) {
  const rt_string_t *in = strings_of(x);
  const rt_interp_class_t cls = rt_interp_class(out->dtype);
  char small[128];
  rt_status_t st = RT_OK;
  for (int64_t i = 0; !st && i < x->numel; ++i) {
    const rt_string_t *w = &in[i];
    char *s = small;
    if ((size_t)w->size >= sizeof small) {
      st = rt_interp_scratch(call, w->size + 1, 1, false, (void **)&s);
      if (st) break;
    }
    if (w->size) memcpy(s, w->data, (size_t)w->size);
    s[w->size] = '\0';
    char *end = NULL;
    errno = 0;
    if (cls == RT_INTERP_FLOAT) {
      const double v = out->dtype.code == kDLFloat && out->dtype.bits == 64 ? strtod(s, &end)
                                                                         : (double)strtof(s, &end);
      if (end != s && *end == '\0') rt_interp_store_f(out, i, v);
    } else if (cls == RT_INTERP_UINT) {
      const unsigned long long v = strtoull(s, &end, 10);
      if (end != s && *end == '\0') rt_interp_store_i(out, i, (int64_t)v);
    } else {
      const long long v = strtoll(s, &end, 10);
      if (end != s && *end == '\0') rt_interp_store_i(out, i, v);
    }
    if (end == s || *end != '\0' || w->size == 0) {
      char name[RT_DTYPE_NAME_MAX];
      st = RT_INTERP_ERROR(call, INVALID_ARGUMENT, "element %lld, \"%.40s\", is not a %s number",
                           (long long)i, s, rt_dtype_name(out->dtype, name));
    }
    if (s != small) rt_interp_scratch_free(call, s);
  }
  return st;
}

rt_status_t rt_interp_cast_string(const rt_interp_call_t *call) {
  const rt_tensor_t *x = call->args[0];
  rt_tensor_t *out = call->outs[0];
  const bool from = rt_dtype_is_string(x->dtype), to = rt_dtype_is_string(out->dtype);
  if (from && to) {
    const rt_string_t *in = strings_of(x);
    rt_status_t st = RT_OK;
    for (int64_t i = 0; !st && i < x->numel; ++i) {
      st = rt_tensor_set_string(out, i, in[i].data, (size_t)in[i].size);
    }
    return st;
  }
  return to ? to_string(call, x, out) : from_string(call, x, out);
}
