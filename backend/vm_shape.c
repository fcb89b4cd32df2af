/* How the vm sizes the outputs of a kernel with `?` dims, for
 * backend/vm_compile.c: the host shape function (the fused function's type
 * relations run op by op on concrete shapes, rt_vm_shape_function), and
 * the shape recipes derived from it at build time (rt_vm_derive_recipe:
 * affine forms the runtime-only library evaluates without the IR). An op
 * whose output shape the values decide (argwhere) is no kernel but a host
 * op (backend/vm_host.c), which sizes its output itself. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/vm_compile.h"
#include "ir/op/custom.h"
#include "runtime/mem.h"

/* ---- shape recipes ------------------------------------------------------------- *
 * A dynamic kernel's output dims are, for almost every model (a `?` batch or
 * sequence length carried through dense, softmax, concat, reshape), affine
 * in its inputs' `?` dims. The recipe (runtime/vm.h) records that form so
 * the VM sizes outputs without the IR. It is found by probing the host
 * shape function (the type relations) on concrete shapes: first with the
 * variables independent (distinct values; relations that tie two `?` dims,
 * like broadcast, refuse that), else tied to one value. Coefficients come
 * from one step per variable and must be exact integers; the affine form is
 * then checked at two more points. Anything else (strides: floor division;
 * products of two `?` dims; data-dependent shapes) gets no recipe and keeps
 * the host shape function, which the runtime-only library lacks. */

typedef struct {
  rt_vm_build_t *b;
  int32_t k, nin, nout, nv;
  int64_t shapes[RT_VM_MAX_LEAVES][RT_TENSOR_MAX_RANK];
  rt_kernel_arg args[RT_VM_MAX_LEAVES];
  int32_t var_in[RT_VM_MAX_RECIPE_VARS], var_dim[RT_VM_MAX_RECIPE_VARS];
} prober;

static rt_status_t relation_shapes(const rt_vm_build_t *b, int32_t kernel, int32_t num_inputs,
                                   const rt_kernel_arg *inputs, int32_t num_outputs,
                                   rt_vm_shape_t *out_shapes);

/* The shapes for variable values `vals` (by the type relations, never a
 * specialization); false when the relations refuse. */
static bool probe(prober *p, const int64_t *vals, rt_vm_shape_t *out) {
  for (int32_t v = 0; v < p->nv; ++v) p->shapes[p->var_in[v]][p->var_dim[v]] = vals[v];
  rt_status_t st = relation_shapes(p->b, p->k, p->nin, p->args, p->nout, out);
  rt_status_free(st);
  return st == RT_OK;
}

static bool same_ranks(const prober *p, const rt_vm_shape_t *x, const rt_vm_shape_t *y) {
  for (int32_t o = 0; o < p->nout; ++o) {
    if (x[o].rank != y[o].rank) return false;
  }
  return true;
}

/* Fits dims = c0 + sum coef * vars (tied: every variable = one value, the
 * coefficient on variable 0). Fills `w` from word `at`; false if not affine. */
static bool fit(prober *p, bool tied, int64_t *w, int32_t at, int32_t cap, int32_t *out_len) {
  enum { STEP = 11 };
  rt_vm_shape_t *base = rt_mem_calloc((size_t)p->nout * 3, sizeof(rt_vm_shape_t));
  if (!base) return false;
  rt_vm_shape_t *step = base + p->nout, *check = base + 2 * p->nout;
  int64_t vals[RT_VM_MAX_RECIPE_VARS];
  int32_t nfree = tied ? 1 : p->nv;
  bool ok = true;
  for (int32_t v = 0; v < p->nv; ++v) vals[v] = tied ? 37 : 37 + 6 * v;
  ok = probe(p, vals, base);
  /* coef[o][d][v] laid out as the recipe's words: c0, coef[V] per dim. */
  int32_t len = at;
  for (int32_t o = 0; ok && o < p->nout; ++o) {
    if (len + 1 + base[o].rank * (1 + p->nv) > cap) ok = false;
    if (!ok) break;
    w[len++] = base[o].rank;
    for (int32_t d = 0; d < base[o].rank; ++d) {
      w[len] = base[o].dims[d];
      for (int32_t v = 0; v < p->nv; ++v) w[len + 1 + v] = 0;
      len += 1 + p->nv;
    }
  }
  for (int32_t f = 0; ok && f < nfree; ++f) {
    int64_t sv[RT_VM_MAX_RECIPE_VARS];
    memcpy(sv, vals, sizeof sv);
    for (int32_t v = 0; v < p->nv; ++v) {
      if (tied || v == f) sv[v] += STEP;
    }
    ok = probe(p, sv, step) && same_ranks(p, base, step);
    int32_t wi = at;
    for (int32_t o = 0; ok && o < p->nout; ++o) {
      wi++;
      for (int32_t d = 0; ok && d < base[o].rank; ++d, wi += 1 + p->nv) {
        int64_t diff = step[o].dims[d] - base[o].dims[d];
        if (diff % STEP != 0) ok = false;
        w[wi + 1 + f] = diff / STEP;
        w[wi] -= (diff / STEP) * vals[f];
      }
    }
  }
  /* Two more points, away from the ones fitted. */
  for (int32_t t = 0; ok && t < 2; ++t) {
    int64_t cv[RT_VM_MAX_RECIPE_VARS];
    for (int32_t v = 0; v < p->nv; ++v) cv[v] = tied ? (t ? 90 : 61) : (t ? 90 - 5 * v : 53 + 8 * v);
    ok = probe(p, cv, check) && same_ranks(p, base, check);
    int32_t wi = at;
    for (int32_t o = 0; ok && o < p->nout; ++o) {
      wi++;
      for (int32_t d = 0; ok && d < base[o].rank; ++d, wi += 1 + p->nv) {
        int64_t want = w[wi];
        for (int32_t v = 0; v < p->nv; ++v) want += w[wi + 1 + v] * (tied ? cv[0] : cv[v]);
        ok = want == check[o].dims[d];
      }
    }
  }
  rt_mem_free(base);
  *out_len = len;
  return ok;
}

rt_status_t rt_vm_derive_recipe(rt_vm_build_t *b, int32_t k) {
  rt_vm_kernel_info_t *ki = &b->exe.kernels[k];
  const rt_ir_expr_t *fn = b->kernel_fns[k];
  prober *p = rt_mem_calloc(1, sizeof *p);
  if (!p) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  p->b = b;
  p->k = k;
  p->nout = ki->num_outputs;
  const rt_ir_type_t *leaves[RT_VM_MAX_LEAVES];
  for (int32_t i = 0; i < fn->fn.nparams; ++i) rt_vm_type_leaves(fn->fn.params[i]->checked_type, leaves, &p->nin);
  bool usable = p->nin == ki->num_inputs && p->nin <= RT_VM_MAX_LEAVES;
  for (int32_t i = 0; usable && i < p->nin; ++i) {
    const rt_ir_type_t *t = leaves[i];
    if (!t || t->kind != RT_IR_TYPE_TENSOR) {
      usable = false;
      break;
    }
    for (int32_t d = 0; d < t->tensor.rank; ++d) {
      p->shapes[i][d] = t->tensor.shape[d];
      if (t->tensor.shape[d] != RT_DIM_ANY) continue;
      if (p->nv == RT_VM_MAX_RECIPE_VARS) {
        usable = false;
        break;
      }
      p->var_in[p->nv] = i;
      p->var_dim[p->nv++] = d;
    }
    p->args[i] = (rt_kernel_arg){NULL, p->shapes[i], NULL, t->tensor.rank,
                                 {t->tensor.dtype.code, t->tensor.dtype.bits, t->tensor.dtype.lanes}, 0};
  }
  int32_t cap = 2 + 2 * RT_VM_MAX_RECIPE_VARS + p->nout * (1 + RT_TENSOR_MAX_RANK * (1 + RT_VM_MAX_RECIPE_VARS));
  int64_t *w = usable && p->nv > 0 ? rt_mem_alloc((size_t)cap * sizeof(int64_t)) : NULL;
  rt_status_t st = RT_OK;
  if (w) {
    int32_t at = 0;
    w[at++] = p->nv;
    for (int32_t v = 0; v < p->nv; ++v) {
      w[at++] = p->var_in[v];
      w[at++] = p->var_dim[v];
    }
    int32_t len = 0;
    bool tied = false;
    bool ok = fit(p, false, w, at + 1, cap, &len);
    if (!ok && p->nv > 1) {
      tied = true;
      ok = fit(p, true, w, at + 1, cap, &len);
    }
    w[at] = tied ? 1 : 0;
    if (ok) {
      ki->recipe = w;
      ki->recipe_len = len;
      w = NULL;
      st = rt_vm_shape_recipe_check(ki);
    }
  }
  rt_mem_free(w);
  rt_mem_free(p);
  return st;
}

/* ---- the host shape function --------------------------------------------------------- */

typedef struct {
  rt_module_t *scratch;
  const rt_ir_expr_t *fn;
  const rt_kernel_arg *inputs;
  int32_t num_inputs;
  /* node -> concrete type, a small linear map (groups are small) */
  const rt_ir_expr_t **nodes;
  rt_ir_type_t **types;
  int32_t n, cap;
  int32_t next_input;
  const rt_kernel_arg **param_arg; /* per param: its input when a tensor, else NULL */
} shape_env;

static rt_ir_type_t *type_of(const shape_env *s, const rt_ir_expr_t *e) {
  for (int32_t i = s->n - 1; i >= 0; --i) {
    if (s->nodes[i] == e) return s->types[i];
  }
  return NULL;
}

static rt_status_t set_type(shape_env *s, const rt_ir_expr_t *e, rt_ir_type_t *t) {
  if (s->n == s->cap) {
    int32_t ncap = s->cap ? s->cap * 2 : 32;
    const rt_ir_expr_t **nn = rt_mem_realloc(s->nodes, (size_t)ncap * sizeof *nn);
    if (nn) s->nodes = nn;
    rt_ir_type_t **nt = nn ? rt_mem_realloc(s->types, (size_t)ncap * sizeof *nt) : NULL;
    if (nt) s->types = nt;
    if (!nn || !nt) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in a shape function");
    s->cap = ncap;
  }
  s->nodes[s->n] = e;
  s->types[s->n] = t;
  s->n++;
  return RT_OK;
}

rt_status_t rt_vm_concrete_type(rt_module_t *m, const rt_ir_type_t *t, const rt_kernel_arg *inputs,
                                int32_t num_inputs, int32_t *next, rt_ir_type_t **out) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (t && t->kind == RT_IR_TYPE_TUPLE) {
    rt_ir_type_t *fields[RT_VM_MAX_LEAVES];
    if (t->tuple.count > RT_VM_MAX_LEAVES) return RT_STATUS(RESOURCE_EXHAUSTED, "tuple too large");
    for (int32_t i = 0; i < t->tuple.count; ++i) {
      RT_RETURN_IF_ERROR(rt_vm_concrete_type(m, t->tuple.fields[i], inputs, num_inputs, next,
                                             &fields[i]));
    }
    return rt_ir_tuple_type(m, t->tuple.count, fields, out);
  }
  if (*next >= num_inputs) return RT_STATUS(INVALID_ARGUMENT, "too few inputs for the kernel's parameters");
  const rt_kernel_arg *a = &inputs[(*next)++];
  rt_dtype_t dt = {a->dtype.code, a->dtype.bits, a->dtype.lanes};
  return rt_ir_tensor_type(m, dt, a->rank, a->shape, out);
}

/* The value of a one-element tensor as a double: an input of the kernel
 * (a parameter of the group) or a constant; *known false for anything
 * computed inside the group. */
static rt_status_t scalar_value(const shape_env *s, const rt_ir_expr_t *e, double *out, bool *known) {
  *known = false;
  const void *data = NULL;
  rt_kernel_dtype dt = {0, 0, 0};
  int64_t numel = 1;
  if (e->kind == RT_IR_VAR) {
    for (int32_t i = 0; i < s->fn->fn.nparams; ++i) {
      const rt_kernel_arg *a = s->fn->fn.params[i] == e ? s->param_arg[i] : NULL;
      if (!a) continue;
      data = a->data;
      dt = a->dtype;
      for (int32_t d = 0; d < a->rank; ++d) numel *= a->shape[d];
    }
  } else if (e->kind == RT_IR_CONSTANT) {
    const rt_tensor_t *v = e->constant.value;
    rt_dtype_t t = rt_tensor_dtype(v);
    data = rt_tensor_data(v);
    dt = (rt_kernel_dtype){t.code, t.bits, t.lanes};
    for (int32_t d = 0; d < rt_tensor_rank(v); ++d) numel *= rt_tensor_shape(v)[d];
  }
  if (!data) return RT_OK;
  if (numel != 1) return RT_STATUS(INVALID_ARGUMENT, "arange: start, stop and step must be scalars");
  switch (dt.code * 1000 + dt.bits) {
    case kDLInt * 1000 + 8: *out = *(const int8_t *)data; break;
    case kDLInt * 1000 + 16: *out = *(const int16_t *)data; break;
    case kDLInt * 1000 + 32: *out = *(const int32_t *)data; break;
    case kDLInt * 1000 + 64: *out = (double)*(const int64_t *)data; break;
    case kDLUInt * 1000 + 8: *out = *(const uint8_t *)data; break;
    case kDLUInt * 1000 + 16: *out = *(const uint16_t *)data; break;
    case kDLUInt * 1000 + 32: *out = *(const uint32_t *)data; break;
    case kDLUInt * 1000 + 64: *out = (double)*(const uint64_t *)data; break;
    case kDLFloat * 1000 + 32: *out = *(const float *)data; break;
    case kDLFloat * 1000 + 64: *out = *(const double *)data; break;
    default: return RT_OK; /* other dtypes: leave the length unknown */
  }
  *known = true;
  return RT_OK;
}

/* arange's length depends on its values, not only their shapes: with
 * start, stop and step in hand (inputs of the kernel or constants) it is
 * ceil((stop - start) / step), at least 0, as the reference kernel
 * computes it (interp/kernels/transform.c). Otherwise t stays as the
 * relation gave it (`?`, refused by the caller). */
static rt_status_t arange_type(const shape_env *s, const rt_ir_expr_t *e, rt_ir_type_t **t) {
  double v[3];
  for (int32_t k = 0; k < 3; ++k) {
    bool known = false;
    RT_RETURN_IF_ERROR(scalar_value(s, e->call.args[k], &v[k], &known));
    if (!known) return RT_OK;
  }
  if (v[2] == 0) return RT_STATUS(INVALID_ARGUMENT, "arange: step must not be 0");
  double len = ceil((v[1] - v[0]) / v[2]);
  if (!(len > 0)) len = 0;
  if (!isfinite(len) || len > (double)INT64_MAX / 2) {
    return RT_STATUS(INVALID_ARGUMENT, "arange: the length (%g - %g) / %g is too large", v[1], v[0], v[2]);
  }
  const rt_ir_type_t *r = rt_ir_type_resolve(*t);
  if (!r || r->kind != RT_IR_TYPE_TENSOR || r->tensor.rank != 1) return RT_OK;
  const int64_t n = (int64_t)len;
  return rt_ir_tensor_type(s->scratch, r->tensor.dtype, 1, &n, t);
}

static rt_status_t shape_visit(void *user, rt_ir_expr_t *e) {
  shape_env *s = user;
  rt_ir_type_t *t = NULL;
  switch (e->kind) {
    case RT_IR_VAR:
      for (int32_t i = 0; i < s->fn->fn.nparams; ++i) {
        if (s->fn->fn.params[i] == e) t = type_of(s, e);
      }
      if (!t) return RT_STATUS(INTERNAL, "a free variable in a fused function");
      return RT_OK;
    case RT_IR_CONSTANT:
      return set_type(s, e, rt_ir_type_resolve(e->checked_type));
    case RT_IR_OP:
    case RT_IR_FUNCTION:
      return RT_OK;
    case RT_IR_TUPLE: {
      rt_ir_type_t *fields[RT_VM_MAX_LEAVES];
      if (e->tuple.count > RT_VM_MAX_LEAVES) return RT_STATUS(RESOURCE_EXHAUSTED, "tuple too large");
      for (int32_t i = 0; i < e->tuple.count; ++i) fields[i] = type_of(s, e->tuple.fields[i]);
      RT_RETURN_IF_ERROR(rt_ir_tuple_type(s->scratch, e->tuple.count, fields, &t));
      return set_type(s, e, t);
    }
    case RT_IR_TUPLE_GET_ITEM: {
      rt_ir_type_t *tt = rt_ir_type_resolve(type_of(s, e->get_item.tuple));
      if (!tt || tt->kind != RT_IR_TYPE_TUPLE || e->get_item.index >= tt->tuple.count) {
        return RT_STATUS(INTERNAL, "a projection of a non-tuple in a shape function");
      }
      return set_type(s, e, tt->tuple.fields[e->get_item.index]);
    }
    case RT_IR_CALL: {
      if (e->call.callee->kind != RT_IR_OP) return RT_STATUS(INTERNAL, "a non-op call in a fused function");
      const rt_ir_op_t *op = e->call.callee->op.op;
      rt_ir_type_t *args[RT_VM_MAX_LEAVES];
      if (e->call.nargs > RT_VM_MAX_LEAVES) return RT_STATUS(RESOURCE_EXHAUSTED, "too many arguments");
      for (int32_t i = 0; i < e->call.nargs; ++i) {
        args[i] = rt_ir_type_resolve(type_of(s, e->call.args[i]));
        if (!args[i]) return RT_STATUS(INTERNAL, "an argument without a type in a shape function");
      }
      rt_ir_rel_ctx_t rc = {s->scratch, op, e->call.attrs, e->call.nargs, args};
      RT_RETURN_IF_ERROR_ANNOTATE(op->type_rel(&rc, &t), "%s on concrete shapes", op->name);
      if (op->id == RT_OP_ARANGE) RT_RETURN_IF_ERROR(arange_type(s, e, &t));
      return set_type(s, e, t);
    }
    default:
      return RT_STATUS(INTERNAL, "an unexpected node in a fused function");
  }
}

rt_status_t rt_vm_shape_function(void *user, int32_t kernel, int32_t num_inputs,
                                 const rt_kernel_arg *inputs, int32_t num_outputs,
                                 rt_vm_shape_t *out_shapes) {
  const rt_vm_build_t *b = user;
  if (kernel < 0 || kernel >= b->exe.num_kernels) {
    return RT_STATUS(OUT_OF_RANGE, "no kernel %d", (int)kernel);
  }
  /* A kernel compiled per shape: its specialization (made now, or found)
   * knows its output shapes; cheaper than the relations, and the only way
   * for shapes that depend on values. */
  if (b->per_shape && b->per_shape[kernel]) {
    return rt_vm_specialized_shapes(b, kernel, num_inputs, inputs, num_outputs, out_shapes);
  }
  return relation_shapes(b, kernel, num_inputs, inputs, num_outputs, out_shapes);
}

static rt_status_t relation_shapes(const rt_vm_build_t *b, int32_t kernel, int32_t num_inputs,
                                   const rt_kernel_arg *inputs, int32_t num_outputs,
                                   rt_vm_shape_t *out_shapes) {
  const rt_ir_expr_t *fn = b->kernel_fns[kernel];
  shape_env s;
  memset(&s, 0, sizeof s);
  s.fn = fn;
  s.inputs = inputs;
  s.num_inputs = num_inputs;
  rt_status_t st = rt_ir_module_create(rt_mem_current(), &s.scratch);
  s.param_arg = rt_mem_calloc((size_t)(fn->fn.nparams > 0 ? fn->fn.nparams : 1), sizeof *s.param_arg);
  if (!st && !s.param_arg) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory in a shape function");
  for (int32_t i = 0; !st && i < fn->fn.nparams; ++i) {
    rt_ir_type_t *t = NULL;
    const int32_t first = s.next_input;
    st = rt_vm_concrete_type(s.scratch, fn->fn.params[i]->checked_type, inputs, num_inputs,
                             &s.next_input, &t);
    if (!st && t && t->kind == RT_IR_TYPE_TENSOR) s.param_arg[i] = &inputs[first];
    if (!st) st = set_type(&s, fn->fn.params[i], t);
  }
  if (!st) st = rt_ir_post_order(rt_mem_current(), fn->fn.body, shape_visit, &s);
  if (!st) {
    const rt_ir_type_t *leaves[RT_VM_MAX_LEAVES];
    int32_t n = 0;
    rt_vm_type_leaves(type_of(&s, fn->fn.body), leaves, &n);
    if (n != num_outputs) st = RT_STATUS(INTERNAL, "the shape function gave %d outputs, not %d", (int)n, (int)num_outputs);
    for (int32_t o = 0; !st && o < n; ++o) {
      const rt_ir_type_t *t = leaves[o];
      if (!t || t->kind != RT_IR_TYPE_TENSOR) {
        st = RT_STATUS(INTERNAL, "output %d of the shape function is not a tensor", (int)o);
        break;
      }
      out_shapes[o].rank = t->tensor.rank;
      for (int32_t d = 0; d < t->tensor.rank; ++d) {
        if (t->tensor.shape[d] == RT_DIM_ANY) {
          st = RT_STATUS(UNIMPLEMENTED, "output %d of kernel %s has a data-dependent shape (dim %d "
                         "is `?` even on concrete input shapes); the vm has no value-dependent "
                         "shape functions yet", (int)o, b->exe.kernels[kernel].name, (int)d);
          break;
        }
        out_shapes[o].dims[d] = t->tensor.shape[d];
      }
    }
  }
  rt_mem_free(s.nodes);
  rt_mem_free(s.types);
  rt_mem_free(s.param_arg);
  rt_module_release(s.scratch);
  return st;
}
