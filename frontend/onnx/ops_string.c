/* ONNX converters of the text ops (issue 19, strings): TfIdfVectorizer
 * and StringNormalizer (Cast and CastLike to and from strings are the
 * plain cast of ops.c: string is a dtype like any other).
 *
 * StringNormalizer becomes string_normalizer with ONNX's attributes
 * (stopwords as a list of strings). Its case mapping is ASCII only
 * (interp/kernels/string.c); `locale` is kept but not consulted.
 *
 * TfIdfVectorizer on integer input is decomposed into existing Relay ops,
 * exactly: for each n-gram length n in [min_gram_length, max_gram_length]
 * and each skip distance d (1 for unigrams, 1 .. max_skip_count + 1
 * otherwise), the n-grams of a row are x[i], x[i + d], ..., x[i + (n-1)d]
 * for every start i with i + (n-1)d < C (ONNX Runtime's counting: an
 * n-gram is counted once per distance it occurs at, unigrams once). Each
 * item k is a strided_slice of the last axis, compared with column k of
 * the pool's n-grams of that length (equal broadcast to [..., W, P_n]);
 * the comparisons are and-ed, cast to float32 and summed over W, then
 * summed over d: the count of every pool n-gram. The counts of all
 * lengths are concatenated (with one zero column), weighted by mode (TF:
 * counts; IDF: weight where the count is non-zero; TFIDF: count * weight;
 * weights default to 1) and gathered (`take`) into output slot
 * ngram_indexes[j]; slots no n-gram maps to read the zero column. Counts
 * are whole numbers below 2^24, so the float sums are exact, and the
 * graph executor runs the result like any other static chain. String
 * input (with pool_strings) first becomes ints: string_lookup gives each
 * word's position in pool_strings (-1 when absent) and each pool string
 * stands for its first position; that model runs on the debug executor
 * only, as every string model. */
#include <stdlib.h>
#include <string.h>

#include "frontend/onnx/onnx_impl.h"
#include "runtime/mem.h"
#include "runtime/strbuf.h"

/* A 1-d constant of `dt` (int32 or int64 or float32) from int64 values. */
static rt_status_t const_vec(rt_onnx_ctx_t *cx, rt_dtype_t dt, int64_t n, const int64_t *iv,
                             const float *fv, rt_ir_expr_t **out) {
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, dt, 1, &n, &t));
  void *p = rt_tensor_data(t);
  for (int64_t i = 0; i < n; ++i) {
    if (dt.code == kDLFloat) ((float *)p)[i] = fv ? fv[i] : (float)iv[i];
    else if (dt.bits == 32) ((int32_t *)p)[i] = (int32_t)iv[i];
    else ((int64_t *)p)[i] = iv[i];
  }
  rt_status_t st = rt_onnx_constant(cx, t, out);
  rt_tensor_release(t);
  return st;
}

/* The count of each pool n-gram of length n (items pool[first ..], n per
 * n-gram, pn n-grams) in x of rank `rank` and last extent `c`:
 * [..., pn] float32, or NULL in *out when no n-gram of that length fits. */
static rt_status_t ngram_counts(rt_onnx_ctx_t *cx, rt_ir_expr_t *x, int32_t rank, int64_t c,
                                rt_dtype_t dt, const int64_t *pool, int64_t n, int64_t pn,
                                int64_t max_skip, rt_ir_expr_t **out) {
  *out = NULL;
  int64_t *col = rt_mem_alloc((size_t)pn * sizeof *col);
  if (!col) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "TfIdfVectorizer: out of memory");
  rt_status_t st = RT_OK;
  rt_ir_expr_t **cols = rt_mem_alloc((size_t)n * sizeof *cols);
  if (!cols) st = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "TfIdfVectorizer: out of memory");
  for (int64_t k = 0; !st && k < n; ++k) {
    for (int64_t j = 0; j < pn; ++j) col[j] = pool[j * n + k];
    st = const_vec(cx, dt, pn, col, NULL, &cols[k]);
  }
  const int64_t last_axis = rank - 1;
  const int64_t dmax = n == 1 ? 1 : max_skip + 1;
  for (int64_t d = 1; !st && d <= dmax; ++d) {
    const int64_t w = c - (n - 1) * d;
    if (w <= 0) break;
    rt_ir_expr_t *match = NULL;
    for (int64_t k = 0; !st && k < n; ++k) {
      int64_t b = k * d, e = k * d + w;
      rt_ir_expr_t *s = NULL, *eq = NULL;
      st = rt_onnx_call(cx, "strided_slice", 1, &x, &s, "begin", rt_onnx_ints_text(cx, 1, &b), "end",
                        rt_onnx_ints_text(cx, 1, &e), "axes", rt_onnx_ints_text(cx, 1, &last_axis),
                        NULL);
      if (!st) st = rt_onnx_call(cx, "expand_dims", 1, &s, &s, "axis", rt_onnx_int_text(cx, rank), NULL);
      if (!st) st = rt_onnx_call2(cx, "equal", s, cols[k], &eq);
      if (!st) {
        if (match) st = rt_onnx_call2(cx, "logical_and", match, eq, &match);
        else match = eq;
      }
    }
    rt_ir_expr_t *cnt = NULL;
    if (!st) st = rt_onnx_call(cx, "cast", 1, &match, &cnt, "dtype", "\"float32\"", NULL);
    if (!st) st = rt_onnx_call(cx, "sum", 1, &cnt, &cnt, "axis", rt_onnx_ints_text(cx, 1, &last_axis),
                               NULL);
    if (!st) {
      if (*out) st = rt_onnx_call2(cx, "add", *out, cnt, out);
      else *out = cnt;
    }
  }
  rt_mem_free(cols);
  rt_mem_free(col);
  return st;
}

/* What build_tfidf counts: x (ints, or the ids string_lookup gave) of
 * type t, and the node's checked attributes. */
typedef struct {
  rt_ir_expr_t *x;
  const rt_ir_type_t *t;
  rt_dtype_t dt;
  int which; /* 0 TF, 1 IDF, 2 TFIDF */
  int64_t min_n, max_n, max_skip;
  const int64_t *counts;
  int32_t ncounts;
  const int64_t *indexes;
  int32_t nindexes;
  const int64_t *pool;
  int32_t npool;
} tfidf_spec_t;

static rt_status_t build_tfidf(rt_onnx_ctx_t *cx, const tfidf_spec_t *sp, rt_ir_expr_t **out);

/* TfIdfVectorizer (opset 9, unchanged since): X [C] or [N, C] of int32 /
 * int64 / string -> float32 [O] or [N, O], O = max(ngram_indexes) + 1. */
/* A STRINGS attribute as Relay attribute text, ["a", "b"], in the module
 * arena: Relay strings have no escapes, so a string holding a quote, a
 * backslash or a control character is refused (`what` names it). */
static rt_status_t strings_text(rt_onnx_ctx_t *cx, const Onnx__AttributeProto *a,
                                const char *what, const char **out) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_strbuf_putc(&b, '[');
  for (size_t i = 0; i < a->n_strings; ++i) {
    const ProtobufCBinaryData *w = &a->strings[i];
    for (size_t k = 0; k < w->len; ++k) {
      if (w->data[k] == '"' || w->data[k] == '\\' || w->data[k] < 0x20) {
        rt_strbuf_deinitialize(&b);
        return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED,
                                  "%s holding a quote, a backslash or a control character is "
                                  "not supported", what);
      }
    }
    rt_strbuf_printf(&b, "%s\"%.*s\"", i ? ", " : "", (int)w->len, (const char *)w->data);
  }
  rt_strbuf_putc(&b, ']');
  char *text = NULL;
  size_t len = 0;
  RT_RETURN_IF_ERROR(rt_strbuf_finish(&b, &text, &len));
  void *copy = NULL;
  rt_status_t st = rt_arena_alloc(&cx->m->arena, len + 1, &copy);
  if (!st) memcpy(copy, text, len + 1);
  rt_mem_free(text);
  rt_strbuf_deinitialize(&b);
  if (!st) *out = copy;
  return st;
}

static rt_status_t cv_tfidf(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                            int32_t nout) {
  (void)nout;
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[0], 0, &t));
  rt_dtype_t dt = t->tensor.dtype;
  const bool is_str = rt_dtype_is_string(dt);
  if (!is_str && !(dt.code == kDLInt && (dt.bits == 32 || dt.bits == 64) && dt.lanes == 1)) {
    return rt_onnx_unsupported(cx, "TfIdfVectorizer on input other than int32, int64 or string");
  }
  const int32_t rank = t->tensor.rank;
  if (rank != 1 && rank != 2) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT,
                              "the input must be [C] or [N, C], got rank %d", rank);
  }
  for (int32_t i = 0; i < rank; ++i) {
    if (t->tensor.shape[i] < 0) {
      return rt_onnx_unsupported(cx, "TfIdfVectorizer on an input with a `?` dim");
    }
  }
  const char *mode = rt_onnx_attr_string(cx, "mode", NULL);
  int which = -1;
  if (mode && strcmp(mode, "TF") == 0) which = 0;
  else if (mode && strcmp(mode, "IDF") == 0) which = 1;
  else if (mode && strcmp(mode, "TFIDF") == 0) which = 2;
  if (which < 0) return rt_onnx_bad(cx, "mode must be TF, IDF or TFIDF");
  const int64_t min_n = rt_onnx_attr_int(cx, "min_gram_length", 0);
  const int64_t max_n = rt_onnx_attr_int(cx, "max_gram_length", 0);
  const int64_t max_skip = rt_onnx_attr_int(cx, "max_skip_count", -1);
  if (min_n < 1 || max_n < min_n || max_n > 1024) {
    return rt_onnx_bad(cx, "min_gram_length and max_gram_length must satisfy 1 <= min <= max");
  }
  if (max_skip < 0 || max_skip > (INT64_C(1) << 20)) {
    return rt_onnx_bad(cx, "max_skip_count must be given and >= 0");
  }
  int32_t ncounts = 0, nindexes = 0, npool = 0;
  const int64_t *counts = NULL, *indexes = NULL, *pool = NULL;
  if (!rt_onnx_attr_ints(cx, "ngram_counts", &ncounts, &counts) ||
      !rt_onnx_attr_ints(cx, "ngram_indexes", &nindexes, &indexes)) {
    return rt_onnx_bad(cx, "ngram_counts and ngram_indexes are required");
  }
  rt_ir_expr_t *x = in[0];
  int64_t *ids = NULL; /* string input: each pool item's id (rt_mem_alloc'd) */
  if (is_str) {
    /* Strings become ints: x's words by their position in pool_strings
     * (string_lookup, -1 when absent), the pool's by their first
     * occurrence there; then the integer counting below. */
    const Onnx__AttributeProto *ps = rt_onnx_attr(cx, "pool_strings");
    if (!ps || ps->n_strings == 0 || ps->n_strings > (1u << 24)) {
      return rt_onnx_bad(cx, "string input needs pool_strings");
    }
    const char *vocab = NULL;
    RT_RETURN_IF_ERROR(strings_text(cx, ps, "a pool string", &vocab));
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "string_lookup", 1, in, &x, "vocab", vocab, NULL));
    ids = rt_mem_alloc(ps->n_strings * sizeof *ids);
    if (!ids) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "TfIdfVectorizer: out of memory");
    for (size_t i = 0; i < ps->n_strings; ++i) {
      size_t j = 0;
      while (ps->strings[j].len != ps->strings[i].len ||
             (ps->strings[i].len && memcmp(ps->strings[j].data, ps->strings[i].data, ps->strings[i].len) != 0)) {
        ++j;
      }
      ids[i] = (int64_t)j;
    }
    pool = ids;
    npool = (int32_t)ps->n_strings;
    dt = RT_DTYPE_INT64;
  } else {
    if (rt_onnx_attr(cx, "pool_strings")) return rt_onnx_bad(cx, "pool_strings needs string input");
    if (!rt_onnx_attr_ints(cx, "pool_int64s", &npool, &pool)) return rt_onnx_bad(cx, "pool_int64s is required");
  }
  const tfidf_spec_t spec = {x, t, dt, which, min_n, max_n, max_skip, counts, ncounts,
                             indexes, nindexes, pool, npool};
  rt_status_t st = build_tfidf(cx, &spec, out);
  rt_mem_free(ids);
  return st;
}

static rt_status_t build_tfidf(rt_onnx_ctx_t *cx, const tfidf_spec_t *sp, rt_ir_expr_t **out) {
  const rt_ir_type_t *t = sp->t;
  const rt_dtype_t dt = sp->dt;
  const int which = sp->which;
  const int64_t min_n = sp->min_n, max_n = sp->max_n, max_skip = sp->max_skip;
  const int64_t *counts = sp->counts, *indexes = sp->indexes, *pool = sp->pool;
  const int32_t ncounts = sp->ncounts, nindexes = sp->nindexes, npool = sp->npool;
  const int32_t rank = t->tensor.rank;
  const int64_t c = t->tensor.shape[rank - 1];
  /* Level k (n = k + 1) holds pool items [counts[k], counts[k+1]). */
  int64_t total = 0;
  for (int32_t k = 0; k < ncounts; ++k) {
    const int64_t b = counts[k], e = k + 1 < ncounts ? counts[k + 1] : npool;
    if (b < 0 || e < b || e > npool || (e - b) % (k + 1) != 0) {
      return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT,
                                "ngram_counts[%d] = %lld does not split the pool (%d items) "
                                "into whole %d-grams",
                                k, (long long)b, npool, k + 1);
    }
    total += (e - b) / (k + 1);
  }
  if (nindexes != total) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT,
                              "ngram_indexes has %d entries, the pool holds %lld n-grams", nindexes,
                              (long long)total);
  }
  const Onnx__AttributeProto *wa = rt_onnx_attr(cx, "weights");
  const float *weights = NULL;
  if (wa && wa->n_floats > 0) {
    if ((int64_t)wa->n_floats != total) {
      return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT,
                                "weights has %zu entries, the pool holds %lld n-grams",
                                wa->n_floats, (long long)total);
    }
    weights = wa->floats;
  }
  int64_t nout_slots = 0;
  for (int32_t j = 0; j < nindexes; ++j) {
    if (indexes[j] < 0 || indexes[j] >= (INT64_C(1) << 24)) {
      return rt_onnx_bad(cx, "ngram_indexes must be in [0, 2^24)");
    }
    if (indexes[j] + 1 > nout_slots) nout_slots = indexes[j] + 1;
  }

  rt_status_t st = RT_OK;
  /* parts[] in pool order; sel[q] = pool n-gram index of concat column q. */
  rt_ir_expr_t **parts = rt_mem_alloc((size_t)(ncounts + 1) * sizeof *parts);
  int64_t *sel = rt_mem_alloc((size_t)(total + 1) * sizeof *sel);
  int64_t *inv = rt_mem_alloc((size_t)(nout_slots + 1) * sizeof *inv);
  float *wsel = rt_mem_alloc((size_t)(total + 1) * sizeof *wsel);
  if (!parts || !sel || !inv || !wsel) st = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "TfIdfVectorizer: out of memory");
  int32_t nparts = 0;
  int64_t ncols = 0, first_gram = 0;
  for (int32_t k = 0; !st && k < ncounts; ++k) {
    const int64_t n = k + 1, b = counts[k], e = k + 1 < ncounts ? counts[k + 1] : npool;
    const int64_t pn = (e - b) / n;
    if (n >= min_n && n <= max_n && pn > 0) {
      rt_ir_expr_t *cnt = NULL;
      st = ngram_counts(cx, sp->x, rank, c, dt, pool + b, n, pn, max_skip, &cnt);
      if (!st && cnt) {
        parts[nparts++] = cnt;
        for (int64_t j = 0; j < pn; ++j) sel[ncols++] = first_gram + j;
      }
    }
    first_gram += pn;
  }
  /* A zero column for the slots no counted n-gram maps to. */
  if (!st) {
    rt_tensor_t *z = NULL;
    int64_t zshape[2] = {rank == 2 ? t->tensor.shape[0] : 1, 1};
    st = rt_tensor_create(cx->m->allocator, RT_DTYPE_FLOAT32, rank, rank == 2 ? zshape : zshape + 1,
                          &z);
    if (!st) {
      memset(rt_tensor_data(z), 0, (size_t)zshape[0] * sizeof(float));
      st = rt_onnx_constant(cx, z, &parts[nparts++]);
      rt_tensor_release(z);
    }
  }
  rt_ir_expr_t *all = NULL;
  if (!st && nparts == 1) all = parts[0];
  else if (!st) {
    rt_ir_expr_t *tup = NULL;
    st = rt_onnx_tuple(cx, nparts, parts, &tup);
    if (!st) st = rt_onnx_call(cx, "concatenate", 1, &tup, &all, "axis", rt_onnx_int_text(cx, rank - 1), NULL);
  }
  if (!st && which != 0) {
    /* The zero column's weight is 0 (IDF of a count of 0 must stay 0). */
    for (int64_t q = 0; q < ncols; ++q) wsel[q] = weights ? weights[sel[q]] : 1.0f;
    wsel[ncols] = 0.0f;
    if (which == 1) {
      rt_ir_expr_t *zero = NULL, *nz = NULL;
      st = rt_onnx_scalar(cx, RT_DTYPE_FLOAT32, 0.0, &zero);
      if (!st) st = rt_onnx_call2(cx, "greater", all, zero, &nz);
      if (!st) st = rt_onnx_call(cx, "cast", 1, &nz, &all, "dtype", "\"float32\"", NULL);
    }
    if (!st && (weights || which == 1)) {
      rt_ir_expr_t *w = NULL;
      st = const_vec(cx, RT_DTYPE_FLOAT32, ncols + 1, NULL, wsel, &w);
      if (!st) st = rt_onnx_call2(cx, "multiply", all, w, &all);
    }
  }
  if (!st) {
    for (int64_t o = 0; o < nout_slots; ++o) inv[o] = ncols; /* the zero column */
    for (int64_t q = 0; q < ncols && !st; ++q) {
      const int64_t o = indexes[sel[q]];
      if (inv[o] != ncols) st = rt_onnx_unsupported(cx, "TfIdfVectorizer with repeated ngram_indexes");
      inv[o] = q;
    }
  }
  rt_ir_expr_t *idx = NULL;
  if (!st) st = const_vec(cx, RT_DTYPE_INT64, nout_slots, inv, NULL, &idx);
  if (!st) {
    rt_ir_expr_t *args[2] = {all, idx};
    st = rt_onnx_call(cx, "take", 2, args, &out[0], "axis", rt_onnx_int_text(cx, rank - 1), NULL);
  }
  rt_mem_free(wsel);
  rt_mem_free(inv);
  rt_mem_free(sel);
  rt_mem_free(parts);
  return st;
}

/* StringNormalizer (opset 10, unchanged since). */
static rt_status_t cv_string_normalizer(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                        rt_ir_expr_t **out, int32_t nout) {
  (void)nout;
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const char *action = rt_onnx_attr_string(cx, "case_change_action", "NONE");
  const bool sensitive = rt_onnx_attr_int(cx, "is_case_sensitive", 0) != 0;
  const char *locale = rt_onnx_attr_string(cx, "locale", "");
  const Onnx__AttributeProto *sw = rt_onnx_attr(cx, "stopwords");
  const char *stop_text = "None";
  if (sw && sw->n_strings > 0) {
    RT_RETURN_IF_ERROR(strings_text(cx, sw, "a stopword", &stop_text));
  }
  return rt_onnx_call(cx, "string_normalizer", 1, in, &out[0], "case_change_action",
                      rt_onnx_str_text(cx, action), "is_case_sensitive", sensitive ? "True" : "False",
                      "stopwords", stop_text, "locale", rt_onnx_str_text(cx, locale), NULL);
}

const rt_onnx_op_entry_t rt_onnx_string_ops[] = {
    {"StringNormalizer", cv_string_normalizer},
    {"TfIdfVectorizer", cv_tfidf},
};
const int32_t rt_onnx_string_ops_count = (int32_t)RT_COUNTOF(rt_onnx_string_ops);
