/* ONNX converters: the general Einsum (any number of operands, repeated
 * letters, an ellipsis, an implicit output), as a decomposition into
 * existing Relay ops. The two-operand matmul forms stay in ops_nn.c
 * (cv_einsum), which hands every other equation to rt_onnx_einsum_general.
 *
 * Each operand's letters (the ellipsis expanded into labels of its own,
 * right-aligned across operands as numpy broadcasts them) are reduced to
 * distinct labels first: a repeated label is a diagonal, taken by moving
 * the two axes last, flattening them to n*n and slicing with stride n+1.
 * Labels that occur in one operand only and not in the output are summed
 * there. Then every operand is transposed to one global label order (the
 * output's labels, then the contracted ones), reshaped with 1 for the
 * labels it lacks, the operands are multiplied (broadcasting), and the
 * contracted labels summed. Static shapes only. */
#include <stdio.h>
#include <string.h>

#include "frontend/onnx/onnx_impl.h"

#define MAXR RT_TENSOR_MAX_RANK
#define NLETTER 52 /* a-z, A-Z; ellipsis dims are labels NLETTER + j */
#define NLABEL (NLETTER + MAXR)
#define MAXOPS 16

typedef struct {
  int32_t n;                /* labels, one per axis */
  int32_t lab[MAXR];        /* label of each axis */
  int64_t dim[MAXR];        /* size of each axis */
  bool ellipsis;
} term_t;

static int32_t letter_label(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

/* Parses one term (letters and at most one "...") into t->lab, with the
 * ellipsis marked as label -1 at its place; *end is where it stopped. */
static rt_status_t parse_term(rt_onnx_ctx_t *cx, const char *p, term_t *t, const char **end) {
  t->n = 0;
  t->ellipsis = false;
  for (; *p && *p != ',' && *p != '-'; ++p) {
    if (*p == ' ') continue;
    if (*p == '.') {
      if (t->ellipsis || strncmp(p, "...", 3) != 0) return rt_onnx_bad(cx, "malformed Einsum ellipsis");
      t->ellipsis = true;
      p += 2;
      if (t->n >= MAXR) return rt_onnx_unsupported(cx, "an Einsum term of this rank");
      t->lab[t->n++] = -1;
      continue;
    }
    int32_t l = letter_label(*p);
    if (l < 0) return rt_onnx_bad(cx, "an Einsum equation must use letters a-z, A-Z");
    if (t->n >= MAXR) return rt_onnx_unsupported(cx, "an Einsum term of this rank");
    t->lab[t->n++] = l;
  }
  *end = p;
  return RT_OK;
}

/* Replaces the ellipsis marker of t by e labels (the last e of ne), or
 * checks that a term without one has `rank` letters. */
static rt_status_t expand_ellipsis(rt_onnx_ctx_t *cx, term_t *t, int32_t e, int32_t ne) {
  int32_t lab[MAXR], n = 0;
  for (int32_t i = 0; i < t->n; ++i) {
    if (t->lab[i] != -1) {
      lab[n++] = t->lab[i];
      continue;
    }
    if (n + e + (t->n - i - 1) > MAXR) return rt_onnx_unsupported(cx, "an Einsum term of this rank");
    for (int32_t j = 0; j < e; ++j) lab[n++] = NLETTER + (ne - e) + j;
  }
  memcpy(t->lab, lab, sizeof lab);
  t->n = n;
  return RT_OK;
}

static bool identity_perm(int32_t n, const int64_t *perm) {
  for (int32_t i = 0; i < n; ++i) {
    if (perm[i] != i) return false;
  }
  return true;
}

static rt_status_t transpose(rt_onnx_ctx_t *cx, rt_ir_expr_t **x, int32_t n, const int64_t *perm) {
  if (identity_perm(n, perm)) return RT_OK;
  return rt_onnx_call(cx, "transpose", 1, x, x, "axes", rt_onnx_ints_text(cx, n, perm), NULL);
}

/* Takes the diagonal of the first label repeated in t (axes i < j): the
 * two axes go last, are flattened to n*n and sliced with stride n+1; the
 * label stays once, at the end. Returns false in *did when none repeats. */
static rt_status_t take_diagonal(rt_onnx_ctx_t *cx, rt_ir_expr_t **x, term_t *t, bool *did) {
  *did = false;
  for (int32_t i = 0; i < t->n; ++i) {
    for (int32_t j = i + 1; j < t->n; ++j) {
      if (t->lab[i] != t->lab[j]) continue;
      if (t->dim[i] != t->dim[j]) return rt_onnx_bad(cx, "Einsum: a repeated letter has two sizes");
      int64_t perm[MAXR], shape[MAXR];
      term_t r = {.n = 0, .ellipsis = false};
      for (int32_t k = 0; k < t->n; ++k) {
        if (k == i || k == j) continue;
        perm[r.n] = k;
        r.lab[r.n] = t->lab[k];
        r.dim[r.n] = t->dim[k];
        shape[r.n] = t->dim[k];
        ++r.n;
      }
      perm[r.n] = i;
      perm[r.n + 1] = j;
      RT_RETURN_IF_ERROR(transpose(cx, x, t->n, perm));
      int64_t n = t->dim[i];
      shape[r.n] = n * n;
      RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, x, x, "newshape",
                                      rt_onnx_ints_text(cx, r.n + 1, shape), NULL));
      int64_t begin = 0, end = n * n, stride = n + 1, axis = r.n;
      RT_RETURN_IF_ERROR(rt_onnx_call(cx, "strided_slice", 1, x, x, "begin",
                                      rt_onnx_ints_text(cx, 1, &begin), "end",
                                      rt_onnx_ints_text(cx, 1, &end), "strides",
                                      rt_onnx_ints_text(cx, 1, &stride), "axes",
                                      rt_onnx_ints_text(cx, 1, &axis), NULL));
      r.lab[r.n] = t->lab[i];
      r.dim[r.n] = n;
      ++r.n;
      *t = r;
      *did = true;
      return RT_OK;
    }
  }
  return RT_OK;
}

rt_status_t rt_onnx_einsum_general(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                   rt_ir_expr_t **out) {
  const char *eq = rt_onnx_attr_string(cx, "equation", "");
  if (nin < 1) return rt_onnx_bad(cx, "Einsum needs at least one input");
  if (nin > MAXOPS) return rt_onnx_unsupported(cx, "Einsum with more than 16 operands");
  term_t term[MAXOPS], outt;
  const char *p = eq;
  int32_t nt = 0;
  for (;;) {
    if (nt >= MAXOPS) return rt_onnx_bad(cx, "the Einsum equation has more terms than inputs");
    RT_RETURN_IF_ERROR(parse_term(cx, p, &term[nt++], &p));
    if (*p == ',') {
      ++p;
      continue;
    }
    break;
  }
  bool explicit_out = false;
  if (*p == '-') {
    if (p[1] != '>') return rt_onnx_bad(cx, "malformed Einsum equation");
    RT_RETURN_IF_ERROR(parse_term(cx, p + 2, &outt, &p));
    if (*p) return rt_onnx_bad(cx, "malformed Einsum equation");
    explicit_out = true;
  }
  if (nt != nin) return rt_onnx_bad(cx, "the Einsum equation's terms do not match the inputs");

  /* Ranks, the ellipsis width, static sizes. */
  int32_t ne = 0;
  const rt_ir_type_t *ty[MAXOPS];
  for (int32_t k = 0; k < nin; ++k) {
    RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[k], k, &ty[k]));
    if (!rt_onnx_static_shape(ty[k])) return rt_onnx_unsupported(cx, "Einsum over `?` dims");
    int32_t letters = term[k].n - (term[k].ellipsis ? 1 : 0);
    int32_t r = ty[k]->tensor.rank;
    if (term[k].ellipsis ? r < letters : r != letters) {
      return rt_onnx_bad(cx, "an Einsum term does not match its input's rank");
    }
    if (term[k].ellipsis && r - letters > ne) ne = r - letters;
    if (k > 0 && !rt_dtype_equal(ty[k]->tensor.dtype, ty[0]->tensor.dtype)) {
      return rt_onnx_bad(cx, "Einsum inputs must have one element type");
    }
  }
  int64_t size[NLABEL];
  int32_t count[NLABEL]; /* occurrences over all inputs' terms */
  for (int32_t l = 0; l < NLABEL; ++l) {
    size[l] = 1;
    count[l] = 0;
  }
  for (int32_t k = 0; k < nin; ++k) {
    int32_t letters = term[k].n - (term[k].ellipsis ? 1 : 0);
    RT_RETURN_IF_ERROR(expand_ellipsis(cx, &term[k], ty[k]->tensor.rank - letters, ne));
    for (int32_t a = 0; a < term[k].n; ++a) {
      int32_t l = term[k].lab[a];
      int64_t d = ty[k]->tensor.shape[a];
      term[k].dim[a] = d;
      ++count[l];
      /* Letters must agree; ellipsis dims broadcast (1 against n). */
      if (size[l] == 1) {
        size[l] = d;
      } else if (d != size[l] && !(l >= NLETTER && d == 1)) {
        return rt_onnx_bad(cx, "Einsum: a letter has two sizes");
      }
    }
  }
  /* The output's labels: as written, or (implicit) the ellipsis dims and
   * then the letters that occur once, alphabetically. */
  if (explicit_out) {
    if (outt.ellipsis) RT_RETURN_IF_ERROR(expand_ellipsis(cx, &outt, ne, ne));
    for (int32_t a = 0; a < outt.n; ++a) {
      int32_t l = outt.lab[a];
      if (count[l] == 0) return rt_onnx_bad(cx, "an Einsum output letter is in no input");
      for (int32_t b = 0; b < a; ++b) {
        if (outt.lab[b] == l) return rt_onnx_bad(cx, "an Einsum output letter repeats");
      }
    }
  } else {
    outt.n = 0;
    outt.ellipsis = false;
    for (int32_t j = 0; j < ne; ++j) outt.lab[outt.n++] = NLETTER + j;
    /* numpy's order: a-z sorts after A-Z. */
    for (int32_t pass = 0; pass < 2; ++pass) {
      for (int32_t l = pass == 0 ? 26 : 0; l < (pass == 0 ? 52 : 26); ++l) {
        if (count[l] != 1) continue;
        if (outt.n >= MAXR) return rt_onnx_unsupported(cx, "an Einsum output of this rank");
        outt.lab[outt.n++] = l;
      }
    }
  }
  bool in_out[NLABEL] = {false};
  for (int32_t a = 0; a < outt.n; ++a) in_out[outt.lab[a]] = true;

  /* The global order: output labels, then the contracted ones. */
  int32_t order[NLABEL], norder = 0, pos[NLABEL];
  for (int32_t a = 0; a < outt.n; ++a) order[norder++] = outt.lab[a];
  for (int32_t l = 0; l < NLABEL; ++l) {
    if (count[l] > 0 && !in_out[l]) order[norder++] = l;
  }
  if (norder > MAXR) return rt_onnx_unsupported(cx, "Einsum with this many distinct letters");
  for (int32_t i = 0; i < norder; ++i) pos[order[i]] = i;

  rt_ir_expr_t *acc = NULL;
  for (int32_t k = 0; k < nin; ++k) {
    rt_ir_expr_t *x = in[k];
    term_t *t = &term[k];
    for (bool did = true; did;) RT_RETURN_IF_ERROR(take_diagonal(cx, &x, t, &did));
    /* Sum the labels no other operand and not the output has. */
    int64_t axes[MAXR];
    int32_t nax = 0;
    term_t r = {.n = 0, .ellipsis = false};
    for (int32_t a = 0; a < t->n; ++a) {
      int32_t l = t->lab[a];
      int32_t elsewhere = 0;
      for (int32_t o = 0; o < nin; ++o) {
        if (o == k) continue;
        for (int32_t b = 0; b < term[o].n; ++b) elsewhere += term[o].lab[b] == l;
      }
      if (!in_out[l] && elsewhere == 0) {
        axes[nax++] = a;
      } else {
        r.lab[r.n] = l;
        r.dim[r.n] = t->dim[a];
        ++r.n;
      }
    }
    if (nax > 0) {
      RT_RETURN_IF_ERROR(rt_onnx_call(cx, "sum", 1, &x, &x, "axis", rt_onnx_ints_text(cx, nax, axes),
                                      "keepdims", "False", NULL));
      *t = r;
    }
    /* Transpose into the global order, then reshape to all labels. */
    int64_t perm[MAXR];
    int32_t np = 0;
    for (int32_t g = 0; g < norder; ++g) {
      for (int32_t a = 0; a < t->n; ++a) {
        if (t->lab[a] == order[g]) perm[np++] = a;
      }
    }
    RT_RETURN_IF_ERROR(transpose(cx, &x, t->n, perm));
    if (nin > 1 && t->n != norder) {
      int64_t shape[MAXR];
      for (int32_t g = 0; g < norder; ++g) shape[g] = 1;
      for (int32_t a = 0; a < t->n; ++a) shape[pos[t->lab[a]]] = t->dim[a];
      RT_RETURN_IF_ERROR(rt_onnx_call(cx, "reshape", 1, &x, &x, "newshape",
                                      rt_onnx_ints_text(cx, norder, shape), NULL));
    }
    if (acc == NULL) {
      acc = x;
    } else {
      RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "multiply", acc, x, &acc));
    }
  }
  /* Sum the contracted labels (the axes after the output's). With one
   * operand, contracted labels were summed above and acc has outt.n axes. */
  if (nin > 1 && norder > outt.n) {
    int64_t axes[MAXR];
    for (int32_t g = outt.n; g < norder; ++g) axes[g - outt.n] = g;
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "sum", 1, &acc, &acc, "axis",
                                    rt_onnx_ints_text(cx, norder - outt.n, axes), "keepdims",
                                    "False", NULL));
  }
  out[0] = acc;
  return RT_OK;
}
