/* ONNX control flow: If and Loop.
 *
 * If. Both branches are converted in the enclosing scope (they may read
 * any outer value) and become a Relay `if` whose result is the tuple of
 * the branch outputs (or the one output). Relay's `if` has one type: the
 * join of the branches' (rt_ir_type_join: `?` where their dims differ),
 * so their outputs must agree in dtype and rank. Outputs of different
 * ranks (a branch that unsqueezes an input of the "wrong" rank, as
 * exported models do) are a type no value has; an If of the main graph
 * (not of a subgraph, at most 4 on one path) then forks the rest of the
 * graph instead (cx->fork; import.c): the nodes after it are converted once
 * with the then branch's outputs and once with the else branch's, and the
 * graph's result is `if (cond) { rest(then) } else { rest(else) }`, whose
 * two sides must agree in rank (a Flatten or Reshape after the If makes
 * them). The condition is computed once per run, as before; the cost is
 * the nodes after the If, converted (and compiled) twice. A condition that is a constant
 * (or folds to one) selects its branch at import time, so no `if` is left
 * and every executor runs the model. The interpreter and the VM run an
 * `if`; the graph executor refuses it with its own error naming the vm.
 * Branches may return sequences or optionals (List, Option) whose types
 * join; the debug and vm executors run those.
 *
 * Loop. A loop whose trip count M is known at import time (a constant, or
 * a graph input bound with --const-input) and whose condition stays known
 * (absent, constant, or passed through the body unchanged) is unrolled:
 * the body is converted once per iteration with iter_num bound to the
 * iteration's index, so index computations in it fold (Slice(x, i, i+1)
 * becomes a static slice) and the result is plain dataflow that every
 * executor runs. Scan outputs are the iterations' values stacked on a new
 * axis 0. Unrolling stops at RT_ONNX_MAX_UNROLL iterations.
 *
 * Any other loop (a trip count or condition computed at run time, a while
 * loop without M, more iterations than are unrolled) becomes a recursive
 * global function @onnx_loopN over (iteration, condition, carried values,
 * M, the body's outer values), which the interpreter and the VM run and
 * the graph executor refuses. Its scan outputs (their length is known only
 * at run time) are carried as lists (List[T], ir/op/list.c) appended to by
 * each iteration and stacked after the loop, which the debug executor
 * alone runs; where that cannot be built (a carried value whose shape the
 * body changes) the loop is refused (UNIMPLEMENTED) naming the graph input
 * to bind with --const-input when there is one. Carried values and outer
 * values may be sequences or optionals (whose type the body must keep). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/onnx/onnx_impl.h"
#include "runtime/strbuf.h"
#include "runtime/mem.h"

#define RT_ONNX_MAX_UNROLL 4096
#define MAXV 64

static const Onnx__GraphProto *graph_attr(rt_onnx_ctx_t *cx, const char *name) {
  const Onnx__AttributeProto *a = rt_onnx_attr(cx, name);
  return a ? a->g : NULL;
}

/* A constant condition's truth (0-d or 1-element bool/number). */
static bool const_truth(const rt_ir_expr_t *e, bool *out) {
  if (!rt_onnx_is_const(e) || rt_tensor_numel(e->constant.value) != 1) return false;
  *out = rt_tensor_get_f64(e->constant.value, 0) != 0;
  return true;
}

static rt_status_t scalar_cond(rt_onnx_ctx_t *cx, rt_ir_expr_t *c, rt_ir_expr_t **out) {
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, c, 0, &t));
  if (!rt_dtype_is_bool(t->tensor.dtype)) return rt_onnx_bad(cx, "the condition must be a bool tensor");
  if (t->tensor.rank != 0) {
    if (!rt_onnx_static_shape(t)) return rt_onnx_unsupported(cx, "a condition of `?` shape");
    int64_t n = 1;
    for (int32_t d = 0; d < t->tensor.rank; ++d) n *= t->tensor.shape[d];
    if (n != 1) return rt_onnx_bad(cx, "the condition must hold one value");
    return rt_onnx_call(cx, "reshape", 1, &c, out, "newshape", "[]", NULL);
  }
  *out = c;
  return RT_OK;
}

/* M as a 0-d int64. */
static rt_status_t scalar_cond_like(rt_onnx_ctx_t *cx, rt_ir_expr_t *m, rt_ir_expr_t **out) {
  const rt_ir_type_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, m, 0, &t));
  if (!rt_dtype_equal(t->tensor.dtype, RT_DTYPE_INT64)) return rt_onnx_bad(cx, "M must be int64");
  if (t->tensor.rank == 0) {
    *out = m;
    return RT_OK;
  }
  if (!rt_onnx_static_shape(t) || t->tensor.rank != 1 || t->tensor.shape[0] != 1) {
    return rt_onnx_bad(cx, "M must hold one value");
  }
  return rt_onnx_call(cx, "reshape", 1, &m, out, "newshape", "[]", NULL);
}

/* Output k of the branches differs in dtype, or in rank where the rest of
 * the graph cannot be forked (see rt_onnx_cv_if): a Relay `if` has one
 * result type, and a tensor type has one rank. Say so, and how to run it:
 * a condition that is known at load time (computed from constants and
 * graph inputs bound with --const-input) selects its branch when the
 * model is loaded. */
static rt_status_t branches_differ(rt_onnx_ctx_t *cx, int32_t k, const rt_ir_type_t *a,
                                   const rt_ir_type_t *b) {
  rt_strbuf_t sa, sb;
  rt_strbuf_initialize(&sa);
  rt_strbuf_initialize(&sb);
  rt_ir_type_print(a, &sa);
  rt_ir_type_print(b, &sb);
  const bool rank = a->tensor.rank != b->tensor.rank;
  rt_status_t st = rt_onnx_node_error(
      cx, RT_STATUS_UNIMPLEMENTED,
      "output %d of the branches has different %s (then %s, else %s): an If whose branches' "
      "outputs differ in %s is not supported%s unless its condition is known when the model "
      "is loaded (bind the graph inputs it is computed from with --const-input)",
      (int)k, rank ? "ranks" : "dtypes", sa.data ? sa.data : "", sb.data ? sb.data : "",
      rank ? "rank" : "dtype",
      rank ? " inside a subgraph or after 4 such Ifs on one path through the graph" : "");
  rt_strbuf_deinitialize(&sa);
  rt_strbuf_deinitialize(&sb);
  return st;
}

rt_status_t rt_onnx_cv_if(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                          int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  const Onnx__GraphProto *tg = graph_attr(cx, "then_branch");
  const Onnx__GraphProto *eg = graph_attr(cx, "else_branch");
  if (!tg || !eg) return rt_onnx_bad(cx, "then_branch and else_branch are required");
  if (nout > MAXV) return rt_onnx_unsupported(cx, "an If with more than 64 outputs");
  bool truth = false;
  if (const_truth(in[0], &truth)) {
    return rt_onnx_subgraph(cx, truth ? tg : eg, 0, NULL, nout, out);
  }
  rt_ir_expr_t *cond = NULL;
  RT_RETURN_IF_ERROR(scalar_cond(cx, in[0], &cond));
  rt_ir_expr_t *touts[MAXV], *eouts[MAXV];
  RT_RETURN_IF_ERROR(rt_onnx_subgraph(cx, tg, 0, NULL, nout, touts));
  RT_RETURN_IF_ERROR(rt_onnx_subgraph(cx, eg, 0, NULL, nout, eouts));
  int32_t rank_differs = -1;
  for (int32_t k = 0; k < nout; ++k) {
    const rt_ir_type_t *a = rt_onnx_type(touts[k]), *b = rt_onnx_type(eouts[k]);
    if (!a || !b) {
      /* Sequences and optionals (List, Option): their types must join. */
      rt_ir_type_t *ta = touts[k]->checked_type ? rt_ir_type_resolve(touts[k]->checked_type) : NULL;
      rt_ir_type_t *tb = eouts[k]->checked_type ? rt_ir_type_resolve(eouts[k]->checked_type) : NULL;
      rt_ir_type_t *j = NULL;
      if (ta && tb && (ta->kind == RT_IR_TYPE_LIST || ta->kind == RT_IR_TYPE_OPTION)) {
        RT_RETURN_IF_ERROR(rt_ir_type_join(cx->m, ta, tb, &j));
      }
      if (!j) {
        return rt_onnx_unsupported(cx, "an If output that is not a tensor (or a sequence or "
                                       "optional of one element dtype and rank on both branches)");
      }
      continue;
    }
    if (!rt_dtype_equal(a->tensor.dtype, b->tensor.dtype)) return branches_differ(cx, k, a, b);
    if (a->tensor.rank != b->tensor.rank && rank_differs < 0) rank_differs = k;
  }
  if (rank_differs >= 0) {
    if (!cx->can_fork) {
      return branches_differ(cx, rank_differs, rt_onnx_type(touts[rank_differs]),
                             rt_onnx_type(eouts[rank_differs]));
    }
    /* The rest of the graph is converted once per branch (import.c): the
     * outputs are the then branch's until then. */
    void *p = NULL;
    RT_RETURN_IF_ERROR(rt_arena_alloc(&cx->m->arena, sizeof(rt_onnx_fork_t), &p));
    rt_onnx_fork_t *f = p;
    f->cond = cond;
    f->nout = nout;
    f->span = cx->span;
    for (int32_t b = 0; b < 2; ++b) {
      RT_RETURN_IF_ERROR(rt_arena_alloc_array(&cx->m->arena, (size_t)nout, sizeof(rt_ir_expr_t *), &p));
      f->outs[b] = p;
      memcpy(f->outs[b], b ? eouts : touts, (size_t)nout * sizeof(rt_ir_expr_t *));
    }
    cx->fork = f;
    memcpy(out, touts, (size_t)nout * sizeof(rt_ir_expr_t *));
    return RT_OK;
  }
  rt_ir_expr_t *then_b = touts[0], *else_b = eouts[0];
  if (nout > 1) {
    RT_RETURN_IF_ERROR(rt_onnx_tuple(cx, nout, touts, &then_b));
    RT_RETURN_IF_ERROR(rt_onnx_tuple(cx, nout, eouts, &else_b));
  }
  rt_ir_expr_t *e = NULL;
  RT_RETURN_IF_ERROR(rt_ir_if(cx->m, cx->span, cond, then_b, else_b, &e));
  RT_RETURN_IF_ERROR(rt_ir_type_join(cx->m, then_b->checked_type, else_b->checked_type,
                                     &e->checked_type));
  if (!e->checked_type) return rt_onnx_bad(cx, "the branches' outputs do not join");
  if (nout == 1) {
    out[0] = e;
    return RT_OK;
  }
  for (int32_t k = 0; k < nout; ++k) RT_RETURN_IF_ERROR(rt_onnx_get_item(cx, e, k, &out[k]));
  return RT_OK;
}

/* Stacks the per-iteration values vals[0 .. n-1] on a new axis 0. */
static rt_status_t stack(rt_onnx_ctx_t *cx, int32_t n, rt_ir_expr_t **vals, rt_ir_expr_t **out) {
  for (int32_t i = 0; i < n; ++i) {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "expand_dims", 1, &vals[i], &vals[i], "axis", "0", NULL));
  }
  if (n == 1) {
    *out = vals[0];
    return RT_OK;
  }
  rt_ir_expr_t *tup = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_tuple(cx, n, vals, &tup));
  return rt_onnx_call(cx, "concatenate", 1, &tup, out, "axis", "0", NULL);
}

/* ---- Loop ---------------------------------------------------------------- */

typedef struct loop_t {
  const Onnx__GraphProto *body;
  int32_t nv, nscan;
  bool scan_lists; /* the scan outputs stay lists (SequenceMap), not stacked */
} loop_t;

/* Unrolls the loop (see the file comment). *out_dynamic: the body's
 * condition turned out not to be known at load time (nothing is set). */
static rt_status_t unrolled(rt_onnx_ctx_t *cx, const loop_t *lp, int64_t trips, rt_ir_expr_t *cond,
                            bool go, rt_ir_expr_t **in, rt_ir_expr_t **out, bool *out_dynamic) {
  const int32_t nv = lp->nv, nscan = lp->nscan;
  rt_ir_expr_t *vals[MAXV], *bin[MAXV + 2], *bout[2 * MAXV + 1];
  for (int32_t i = 0; i < nv; ++i) vals[i] = in[2 + i];
  rt_ir_expr_t **scans = NULL;
  *out_dynamic = false;
  if (nscan && trips) {
    void *p = NULL;
    size_t cnt = (size_t)nscan * (size_t)trips;
    RT_RETURN_IF_ERROR(rt_arena_alloc_array(&cx->m->arena, cnt, sizeof(rt_ir_expr_t *), &p));
    scans = p;
  }
  int64_t done = 0;
  for (int64_t it = 0; it < trips && go; ++it) {
    RT_RETURN_IF_ERROR(rt_onnx_const_i64(cx, 0, 1, &it, &bin[0]));
    bin[1] = cond;
    for (int32_t i = 0; i < nv; ++i) bin[2 + i] = vals[i];
    RT_RETURN_IF_ERROR(rt_onnx_subgraph(cx, lp->body, nv + 2, bin, nv + nscan + 1, bout));
    double c = 0;
    if (!rt_onnx_is_const(bout[0])) {
      *out_dynamic = true;
      return RT_OK;
    }
    RT_RETURN_IF_ERROR(rt_onnx_const_float(cx, bout[0], "the body's condition", &c));
    go = c != 0;
    cond = bout[0];
    for (int32_t i = 0; i < nv; ++i) {
      const rt_ir_type_t *a = rt_onnx_type(vals[i]), *b = rt_onnx_type(bout[1 + i]);
      if (!a || !b || !rt_dtype_equal(a->tensor.dtype, b->tensor.dtype)) {
        return rt_onnx_bad(cx, "a loop-carried value changes its dtype in the body");
      }
      vals[i] = bout[1 + i];
    }
    for (int32_t k = 0; k < nscan; ++k) scans[(size_t)k * (size_t)trips + (size_t)it] = bout[1 + nv + k];
    done = it + 1;
  }
  for (int32_t i = 0; i < nv; ++i) out[i] = vals[i];
  for (int32_t k = 0; k < nscan; ++k) {
    if (done == 0) {
      return rt_onnx_unsupported(cx, "scan outputs of a Loop that runs no iteration");
    }
    rt_ir_expr_t **col = &scans[(size_t)k * (size_t)trips];
    for (int64_t i = 0; i < done; ++i) {
      const rt_ir_type_t *a = rt_onnx_type(col[0]), *b = rt_onnx_type(col[i]);
      if (!a || !b || !rt_ir_type_equal(a, b)) {
        return rt_onnx_unsupported(cx, "a scan output whose shape changes between iterations");
      }
    }
    RT_RETURN_IF_ERROR(stack(cx, (int32_t)done, col, &out[nv + k]));
  }
  return RT_OK;
}

/* A growable list of names (rt_mem_alloc'd array of borrowed strings). */
typedef struct names_t {
  const char **v;
  int32_t n, cap;
} names_t;

static bool names_has(const names_t *s, const char *name) {
  for (int32_t i = 0; i < s->n; ++i) {
    if (strcmp(s->v[i], name) == 0) return true;
  }
  return false;
}

static rt_status_t names_add(names_t *s, const char *name) {
  if (!name || !*name || names_has(s, name)) return RT_OK;
  if (s->n == s->cap) {
    int32_t cap = s->cap ? 2 * s->cap : 16;
    const char **v = rt_mem_realloc(s->v, (size_t)cap * sizeof *v);
    if (!v) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory (loop names)");
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n++] = name;
  return RT_OK;
}

/* The names g reads from its enclosing scopes, nested subgraphs included. */
static rt_status_t free_names(const Onnx__GraphProto *g, names_t *out) {
  names_t def = {0};
  rt_status_t st = RT_OK;
  for (size_t i = 0; !st && i < g->n_input; ++i) st = names_add(&def, g->input[i]->name);
  for (size_t i = 0; !st && i < g->n_initializer; ++i) st = names_add(&def, g->initializer[i]->name);
  for (size_t i = 0; !st && i < g->n_node; ++i) {
    const Onnx__NodeProto *n = g->node[i];
    for (size_t k = 0; !st && k < n->n_input; ++k) {
      if (n->input[k] && *n->input[k] && !names_has(&def, n->input[k])) st = names_add(out, n->input[k]);
    }
    for (size_t a = 0; !st && a < n->n_attribute; ++a) {
      const Onnx__AttributeProto *at = n->attribute[a];
      for (size_t k = 0; !st && k < at->n_graphs + (at->g ? 1 : 0); ++k) {
        names_t sub = {0};
        st = free_names(k < at->n_graphs ? at->graphs[k] : at->g, &sub);
        for (int32_t j = 0; !st && j < sub.n; ++j) {
          if (!names_has(&def, sub.v[j])) st = names_add(out, sub.v[j]);
        }
        rt_mem_free(sub.v);
      }
    }
    for (size_t k = 0; !st && k < n->n_output; ++k) st = names_add(&def, n->output[k]);
  }
  for (size_t i = 0; !st && i < g->n_output; ++i) {
    const char *o = g->output[i]->name;
    if (o && *o && !names_has(&def, o)) st = names_add(out, o);
  }
  rt_mem_free(def.v);
  return st;
}

static rt_status_t param(rt_onnx_ctx_t *cx, const char *name, rt_ir_type_t *t, rt_ir_expr_t **out) {
  RT_RETURN_IF_ERROR(rt_ir_var(cx->m, cx->span, name, t, out));
  (*out)->checked_type = t;
  return RT_OK;
}

/* The loop as a recursive global function of (iteration, condition,
 * carried values, M, the body's non-constant outer values):
 *   def @onnx_loopN(%i, %cond, %v.., %m, %f..) {
 *     if (%cond && %i < %m) { <body>; @onnx_loopN(%i + 1, cond_out, v_out.., %m, %f..) }
 *     else { (%v..) }
 *   }
 * called with (0, cond, v_initial.., M, outer values..). The interpreter and
 * the VM run it; the graph executor refuses the recursion.
 * Scan outputs (their count known only at run time) are carried too, as
 * lists (List[T], ir/op/list.c) that each iteration appends its value to,
 * starting empty; the Loop's scan output k is list.concat(%s_k, axis=0,
 * new_axis=True). Their element dtype and rank come from the body's
 * declared outputs. The debug and vm executors run lists: with scan
 * outputs the loop runs there (a loop that runs no iteration has no
 * element to size an empty scan output by, and is an error). */
static rt_status_t recursive(rt_onnx_ctx_t *cx, const loop_t *lp, rt_ir_expr_t **in,
                             rt_ir_expr_t **out) {
  const int32_t nv = lp->nv + lp->nscan, nc = lp->nv, ns = lp->nscan;
  if (nv == 0) return rt_onnx_unsupported(cx, "a Loop without loop-carried values or scan outputs");
  if (nv > MAXV) return rt_onnx_unsupported(cx, "a Loop with more than 64 carried values and scan outputs");
  names_t fn_names = {0};
  rt_status_t st = free_names(lp->body, &fn_names);
  /* Outer constants stay constants in the body (they may feed shapes);
   * the other outer values become parameters. */
  const char *bind_names[MAXV];
  rt_ir_expr_t *bind_exprs[MAXV], *outer[MAXV];
  int32_t nbind = 0, nfree = 0;
  for (int32_t i = 0; !st && i < fn_names.n; ++i) {
    rt_ir_expr_t *e = rt_onnx_value(cx, fn_names.v[i]);
    if (!e) continue; /* not defined: converting the body says so */
    if (nbind == MAXV) {
      st = rt_onnx_unsupported(cx, "a Loop body reading more than 64 outer values");
      break;
    }
    bind_names[nbind] = fn_names.v[i];
    if (rt_onnx_is_const(e)) {
      bind_exprs[nbind++] = e;
      continue;
    }
    rt_ir_type_t *t = e->checked_type ? rt_ir_type_resolve(e->checked_type) : NULL;
    if (!t || (t->kind != RT_IR_TYPE_TENSOR && t->kind != RT_IR_TYPE_LIST &&
               t->kind != RT_IR_TYPE_OPTION)) {
      st = rt_onnx_unsupported(cx, "a Loop body reading an outer value that is not a tensor, a "
                                   "sequence or an optional");
      break;
    }
    outer[nfree] = e;
    st = param(cx, fn_names.v[i], t, &bind_exprs[nbind++]);
    nfree++;
  }
  rt_mem_free(fn_names.v);
  RT_RETURN_IF_ERROR(st);
  /* Parameters: %i, %cond, the carried values, %m, the outer values. */
  rt_ir_expr_t *params[3 + 2 * MAXV], *args[3 + 2 * MAXV];
  rt_ir_type_t *i64 = NULL, *b1 = NULL, *vt[MAXV];
  RT_RETURN_IF_ERROR(rt_ir_tensor_type(cx->m, RT_DTYPE_INT64, 0, NULL, &i64));
  RT_RETURN_IF_ERROR(rt_ir_tensor_type(cx->m, RT_DTYPE_BOOL, 0, NULL, &b1));
  int32_t np = 0;
  RT_RETURN_IF_ERROR(param(cx, "iter", i64, &params[np++]));
  RT_RETURN_IF_ERROR(param(cx, "cond", b1, &params[np++]));
  rt_ir_expr_t *init[MAXV];
  for (int32_t k = 0; k < nc; ++k) {
    const rt_ir_type_t *t = in[2 + k]->checked_type ? rt_ir_type_resolve(in[2 + k]->checked_type)
                                                    : NULL;
    /* A carried sequence or optional keeps its type through the body (a
     * SequenceInsert into a list of `?` dims does). */
    if (!t || (t->kind != RT_IR_TYPE_LIST && t->kind != RT_IR_TYPE_OPTION)) {
      RT_RETURN_IF_ERROR(rt_onnx_tensor_type(cx, in[2 + k], 2 + k, &t));
    }
    vt[k] = (rt_ir_type_t *)t;
    init[k] = in[2 + k];
    RT_RETURN_IF_ERROR(param(cx, "v", vt[k], &params[np++]));
  }
  /* The scan lists' parameters are made once the body has given their
   * element types (the body does not read them). */
  for (int32_t k = 0; k < ns; ++k) params[np++] = NULL;
  rt_ir_expr_t *m_param = NULL, *m_arg = NULL;
  if (in[0]) {
    RT_RETURN_IF_ERROR(scalar_cond_like(cx, in[0], &m_arg));
    RT_RETURN_IF_ERROR(param(cx, "m", i64, &m_param));
    params[np++] = m_param;
  }
  for (int32_t j = 0, b = 0; j < nfree; ++b) {
    if (rt_onnx_is_const(bind_exprs[b])) continue;
    params[np++] = bind_exprs[b];
    ++j;
  }
  /* The body, reading its inputs and outer values through the params. */
  rt_ir_expr_t *bin[MAXV + 2], *bout[MAXV + 1];
  for (int32_t k = 0; k < nc + 2; ++k) bin[k] = params[k];
  RT_RETURN_IF_ERROR(rt_onnx_subgraph_bind(cx, lp->body, nc + 2, bin, nbind, bind_names, bind_exprs,
                                           nv + 1, bout));
  rt_ir_expr_t *cond_out = NULL;
  RT_RETURN_IF_ERROR(scalar_cond(cx, bout[0], &cond_out));
  for (int32_t k = 0; k < ns; ++k) { /* append this iteration's scan values */
    const rt_ir_type_t *st_t = rt_onnx_type(bout[1 + nc + k]);
    if (!st_t) return rt_onnx_unsupported(cx, "a scan output that is not a tensor");
    char dtname[RT_DTYPE_NAME_MAX];
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "list.empty", 0, NULL, &init[nc + k], "dtype",
                                    rt_onnx_str_text(cx, rt_dtype_name(st_t->tensor.dtype, dtname)),
                                    "rank", rt_onnx_int_text(cx, st_t->tensor.rank), NULL));
    vt[nc + k] = init[nc + k]->checked_type;
    RT_RETURN_IF_ERROR(param(cx, "s", vt[nc + k], &params[2 + nc + k]));
    rt_ir_expr_t *acc = params[2 + nc + k], *len = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "list.length", acc, &len));
    rt_ir_expr_t *a3[3] = {acc, bout[1 + nc + k], len};
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "list.insert", 3, a3, &bout[1 + nc + k], NULL));
  }
  for (int32_t k = 0; k < nv; ++k) {
    const rt_ir_type_t *t = bout[1 + k]->checked_type ? rt_ir_type_resolve(bout[1 + k]->checked_type)
                                                       : NULL;
    if (!t || !rt_ir_type_equal(t, vt[k])) {
      return rt_onnx_unsupported(cx, "a loop-carried value whose type changes in the body (in a "
                                     "Loop that is not unrolled)");
    }
  }
  rt_ir_type_t *ret = vt[0];
  if (nv > 1) RT_RETURN_IF_ERROR(rt_ir_tuple_type(cx->m, nv, vt, &ret));
  rt_ir_type_t *ptypes[3 + 2 * MAXV], *fnt = NULL;
  for (int32_t k = 0; k < np; ++k) ptypes[k] = params[k]->checked_type;
  RT_RETURN_IF_ERROR(rt_ir_func_type(cx->m, np, ptypes, ret, &fnt));
  char name[64];
  for (int32_t k = 0;; ++k) {
    snprintf(name, sizeof name, "onnx_loop%d", (int)k);
    if (!rt_ir_module_lookup(cx->m, name)) break;
  }
  rt_ir_expr_t *gv = NULL, *rec = NULL, *next = NULL, *one = NULL, *go = params[1];
  RT_RETURN_IF_ERROR(rt_ir_global_var(cx->m, cx->span, name, &gv));
  gv->checked_type = fnt;
  int64_t one_v = 1;
  RT_RETURN_IF_ERROR(rt_onnx_const_i64(cx, 0, 1, &one_v, &one));
  RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "add", params[0], one, &next));
  int32_t na = 0;
  args[na++] = next;
  args[na++] = cond_out;
  for (int32_t k = 0; k < nv; ++k) args[na++] = bout[1 + k];
  for (int32_t k = 2 + nv; k < np; ++k) args[na++] = params[k];
  RT_RETURN_IF_ERROR(rt_ir_call(cx->m, cx->span, gv, na, args, NULL, &rec));
  rec->checked_type = ret;
  if (m_param) {
    rt_ir_expr_t *lt = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "less", params[0], m_param, &lt));
    RT_RETURN_IF_ERROR(rt_onnx_call2(cx, "logical_and", go, lt, &go));
  }
  rt_ir_expr_t *done = params[2];
  if (nv > 1) RT_RETURN_IF_ERROR(rt_onnx_tuple(cx, nv, &params[2], &done));
  rt_ir_expr_t *body = NULL, *fn = NULL;
  RT_RETURN_IF_ERROR(rt_ir_if(cx->m, cx->span, go, rec, done, &body));
  body->checked_type = ret;
  RT_RETURN_IF_ERROR(rt_ir_function(cx->m, cx->span, np, params, body, ret, NULL, &fn));
  fn->checked_type = fnt;
  RT_RETURN_IF_ERROR(rt_ir_module_add(cx->m, name, fn));
  /* The first call. */
  int64_t zero_v = 0;
  rt_ir_expr_t *cond0 = NULL, *call = NULL;
  na = 0;
  RT_RETURN_IF_ERROR(rt_onnx_const_i64(cx, 0, 1, &zero_v, &args[na++]));
  if (in[1]) {
    RT_RETURN_IF_ERROR(scalar_cond(cx, in[1], &cond0));
  } else {
    RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_BOOL, 1.0, &cond0));
  }
  args[na++] = cond0;
  for (int32_t k = 0; k < nv; ++k) args[na++] = init[k];
  if (m_arg) args[na++] = m_arg;
  for (int32_t j = 0; j < nfree; ++j) args[na++] = outer[j];
  RT_RETURN_IF_ERROR(rt_ir_global_var(cx->m, cx->span, name, &gv));
  gv->checked_type = fnt;
  RT_RETURN_IF_ERROR(rt_ir_call(cx->m, cx->span, gv, na, args, NULL, &call));
  call->checked_type = ret;
  if (nv == 1) {
    out[0] = call;
  } else {
    for (int32_t k = 0; k < nv; ++k) RT_RETURN_IF_ERROR(rt_onnx_get_item(cx, call, k, &out[k]));
  }
  for (int32_t k = nc; k < nv && !lp->scan_lists; ++k) {
    RT_RETURN_IF_ERROR(rt_onnx_call(cx, "list.concat", 1, &out[k], &out[k], "axis", "0",
                                    "new_axis", "True", NULL));
  }
  return RT_OK;
}

rt_status_t rt_onnx_cv_loop(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, rt_ir_expr_t **out,
                            int32_t nout) {
  const Onnx__GraphProto *body = graph_attr(cx, "body");
  if (!body) return rt_onnx_bad(cx, "attribute body is required");
  if (nin < 2) return rt_onnx_bad(cx, "expects the inputs M and cond (each may be empty)");
  loop_t lp = {body, nin - 2, (int32_t)body->n_output - 1 - (nin - 2), false};
  if (lp.nv > MAXV || lp.nscan < 0 || lp.nscan > MAXV || nout != lp.nv + lp.nscan) {
    return rt_onnx_bad(cx, "the body's outputs do not match the loop-carried values and outputs");
  }
  for (int32_t i = 0; i < lp.nv; ++i) {
    if (!in[2 + i]) return rt_onnx_bad(cx, "a loop-carried initial value is missing");
  }
  /* Unrolled when the trip count and the condition are known here. Scan
   * outputs need that (their length is the trip count); without them a
   * loop that is not known here becomes a recursive function. */
  const bool m_known = in[0] && rt_onnx_is_const(in[0]);
  const bool c_known = !in[1] || rt_onnx_is_const(in[1]);
  if (lp.nscan && !in[0]) {
    return rt_onnx_unsupported(cx, "scan outputs of a Loop without a trip count M (only loops "
                                   "whose trip count is known at load time have them)");
  }
  if (m_known && c_known) {
    int64_t trips = 0;
    int32_t n = 0;
    RT_RETURN_IF_ERROR(rt_onnx_const_ints(cx, in[0], "the trip count M", 1, &trips, &n));
    if (n != 1) return rt_onnx_bad(cx, "M must hold one value");
    if (trips < 0) trips = 0;
    if (trips > RT_ONNX_MAX_UNROLL && lp.nscan) {
      return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED,
                                "a Loop of %lld iterations with scan outputs is not supported (at "
                                "most %d are unrolled)", (long long)trips, RT_ONNX_MAX_UNROLL);
    }
    if (trips <= RT_ONNX_MAX_UNROLL) {
      bool go = true, dynamic = false;
      rt_ir_expr_t *cond = in[1];
      if (cond) {
        RT_RETURN_IF_ERROR(const_truth(cond, &go) ? RT_OK : rt_onnx_bad(cx, "bad condition"));
      } else {
        RT_RETURN_IF_ERROR(rt_onnx_scalar(cx, RT_DTYPE_BOOL, 1.0, &cond));
      }
      RT_RETURN_IF_ERROR(unrolled(cx, &lp, trips, cond, go, in, out, &dynamic));
      if (!dynamic) return RT_OK;
    }
  }
  /* A trip count or condition known only at run time: the recursive
   * function, its scan outputs gathered in lists (debug executor). When
   * that cannot be built (a carried value whose shape the body changes),
   * a loop with scan outputs is refused naming what, bound as a constant,
   * would unroll it (a graph input: --const-input). */
  if (lp.nscan) {
    int64_t v = 0;
    int32_t n = 0;
    double c = 0;
    rt_status_t hint = RT_OK;
    if (!m_known) {
      hint = rt_onnx_const_ints(cx, in[0], "the trip count M of a Loop with scan outputs", 1, &v,
                                &n);
    }
    if (!hint) hint = rt_onnx_const_float(cx, in[1], "the condition of a Loop with scan outputs", &c);
    rt_status_t st = recursive(cx, &lp, in, out);
    if (!st || !hint) {
      rt_status_free(hint);
      return st;
    }
    rt_status_free(st);
    return hint;
  }
  return recursive(cx, &lp, in, out);
}

rt_status_t rt_onnx_loop_lists(rt_onnx_ctx_t *cx, const Onnx__GraphProto *body, rt_ir_expr_t *m,
                               int32_t nout, rt_ir_expr_t **out) {
  if (nout < 1 || nout > MAXV || body->n_output != (size_t)nout + 1) {
    return rt_onnx_bad(cx, "the body's outputs do not match the node's outputs");
  }
  loop_t lp = {body, 0, nout, true};
  rt_ir_expr_t *in[2] = {m, NULL};
  return recursive(cx, &lp, in, out);
}
