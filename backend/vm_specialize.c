/* The vm's kernels compiled per shape at run time (backend/vm_compile.h):
 * the kernels with `?` dims that rt_vm_compile left without an entry point
 * (the JIT does not lower them with `?` dims, their shapes depend on
 * operand values, or their templates want static shapes) are compiled here
 * for the concrete input shapes they meet, once per distinct shape, and
 * kept for the build's life.
 *
 * A specialization is the kernel's Primitive function with its parameters
 * retyped to the concrete shapes, the inputs its dyn ops read for their
 * values bound as constants (DynamicToStatic then makes those ops static),
 * and type inference run again: a static function, which rt_jit_build
 * compiles (or finds in the session or on disk, keyed by the function, so
 * a shape met in an earlier process costs no compile). The cache here is
 * keyed by (kernel, each input's dtype and dims, the bytes of the value
 * inputs). One mutex guards it: VMs of one build may run on many threads.
 * Entries are never evicted while the build lives, since a VM may be
 * running their code. Ops whose output shape the data decide (argwhere)
 * are no kernels here but host ops (backend/vm_host.c). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "backend/vm_compile.h"
#include "ir/op/dyn.h"
#include "jit/custom.h"
#include "runtime/mem.h"
#include "runtime/uthash_rt.h"

typedef struct spec_entry {
  uint8_t *key;
  size_t key_len;
  rt_jit_module_t *jit;
  rt_kernel_fn fn;
  int32_t num_outputs;
  rt_vm_shape_t *shapes;
  UT_hash_handle hh;
} spec_entry;

struct rt_vm_specializer_t {
  pthread_mutex_t mu;
  rt_jit_session_t *session;
  uint32_t jit_flags;
  uint8_t **value_input; /* per kernel: per input leaf, 1 = read for its values */
  int32_t num_kernels;
  spec_entry *table;
  /* Per kernel, the entry found last: a kernel called at one shape again
   * and again finds it without the lock (entries live as long as this). */
  _Atomic(spec_entry *) *last;
  int64_t made;          /* under mu */
  atomic_llong hits;
};

/* ---- which inputs are read for their values --------------------------------- */

typedef struct {
  const rt_ir_expr_t *fn;
  const int32_t *first_leaf; /* per param */
  uint8_t *mark;             /* per input leaf */
} value_walk;

static rt_status_t mark_values(void *user, rt_ir_expr_t *e) {
  value_walk *w = user;
  if (e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP) return RT_OK;
  const rt_ir_op_t *op = e->call.callee->op.op;
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    if (!rt_ir_op_reads_value(op->id, i)) continue;
    for (int32_t p = 0; p < w->fn->fn.nparams; ++p) {
      if (w->fn->fn.params[p] == e->call.args[i]) w->mark[w->first_leaf[p]] = 1;
    }
  }
  return RT_OK;
}

static rt_status_t find_value_inputs(const rt_vm_build_t *b, int32_t k, uint8_t **out) {
  const rt_ir_expr_t *fn = b->kernel_fns[k];
  const int32_t nin = b->exe.kernels[k].num_inputs;
  *out = rt_mem_calloc((size_t)(nin > 0 ? nin : 1), 1);
  int32_t *first = rt_mem_calloc((size_t)(fn->fn.nparams > 0 ? fn->fn.nparams : 1), sizeof *first);
  rt_status_t st = *out && first ? RT_OK : RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  int32_t n = 0;
  for (int32_t p = 0; !st && p < fn->fn.nparams; ++p) {
    first[p] = n;
    const rt_ir_type_t *leaves[RT_VM_MAX_LEAVES];
    rt_vm_type_leaves(fn->fn.params[p]->checked_type, leaves, &n);
  }
  if (!st && n != nin) st = RT_STATUS(INTERNAL, "kernel %d: %d input leaves, not %d", (int)k, (int)n, (int)nin);
  value_walk w = {fn, first, *out};
  if (!st) st = rt_ir_post_order(rt_mem_current(), fn->fn.body, mark_values, &w);
  rt_mem_free(first);
  return st;
}

rt_status_t rt_vm_specializer_create(rt_vm_build_t *b, rt_jit_session_t *session, uint32_t jit_flags) {
  const int32_t nk = b->exe.num_kernels;
  bool any = false;
  for (int32_t k = 0; k < nk; ++k) any = any || b->per_shape[k];
  if (!any) return RT_OK;
  rt_vm_specializer_t *s = rt_mem_calloc(1, sizeof *s);
  if (!s) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  s->value_input = rt_mem_calloc((size_t)nk, sizeof *s->value_input);
  s->last = rt_mem_calloc((size_t)nk, sizeof *s->last);
  if (!s->value_input || !s->last) {
    rt_mem_free(s->value_input);
    rt_mem_free(s->last);
    rt_mem_free(s);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  }
  pthread_mutex_init(&s->mu, NULL);
  atomic_init(&s->hits, 0);
  for (int32_t k = 0; k < nk; ++k) atomic_init(&s->last[k], NULL);
  s->num_kernels = nk;
  rt_jit_session_retain(session);
  s->session = session;
  /* Kernels of custom ops call into this process: never from disk. */
  s->jit_flags = jit_flags | (rt_jit_custom_in_use(nk, b->kernel_fns) ? RT_JIT_NO_DISK_CACHE : 0u);
  b->spec = s;
  rt_status_t st = RT_OK;
  for (int32_t k = 0; !st && k < nk; ++k) {
    if (b->per_shape[k]) st = find_value_inputs(b, k, &s->value_input[k]);
  }
  return st;
}

void rt_vm_specializer_release(rt_vm_specializer_t *s) {
  if (!s) return;
  spec_entry *e, *tmp;
  HASH_ITER(hh, s->table, e, tmp) {
    HASH_DEL(s->table, e);
    rt_jit_module_release(e->jit);
    rt_mem_free(e->key);
    rt_mem_free(e->shapes);
    rt_mem_free(e);
  }
  for (int32_t k = 0; k < s->num_kernels; ++k) rt_mem_free(s->value_input[k]);
  rt_mem_free(s->value_input);
  rt_mem_free(s->last);
  rt_jit_session_release(s->session);
  pthread_mutex_destroy(&s->mu);
  rt_mem_free(s);
}

void rt_vm_specializer_counts(const rt_vm_build_t *b, int64_t *out_made, int64_t *out_hits) {
  *out_made = 0;
  *out_hits = 0;
  if (!b->spec) return;
  pthread_mutex_lock(&b->spec->mu);
  *out_made = b->spec->made;
  pthread_mutex_unlock(&b->spec->mu);
  *out_hits = atomic_load(&b->spec->hits);
}

/* ---- the key ------------------------------------------------------------------ */

/* Built on the stack (every kernel call makes one); the heap past that. */
typedef struct {
  uint8_t *p;
  size_t n, cap;
  bool failed, heap;
  uint8_t local[1024];
} keybuf;

static void put(keybuf *k, const void *data, size_t n) {
  if (k->failed) return;
  if (k->n + n > k->cap) {
    size_t cap = 2 * k->cap;
    while (cap < k->n + n) cap *= 2;
    uint8_t *p = k->heap ? rt_mem_realloc(k->p, cap) : rt_mem_alloc(cap);
    if (!p) {
      k->failed = true;
      return;
    }
    if (!k->heap) memcpy(p, k->local, k->n);
    k->p = p;
    k->cap = cap;
    k->heap = true;
  }
  memcpy(k->p + k->n, data, n);
  k->n += n;
}

static size_t arg_bytes(const rt_kernel_arg *a) {
  size_t n = (size_t)(a->dtype.bits / 8 ? a->dtype.bits / 8 : 1) * a->dtype.lanes;
  for (int32_t d = 0; d < a->rank; ++d) n *= (size_t)a->shape[d];
  return n;
}

static void key_free(keybuf *k) {
  if (k->heap) rt_mem_free(k->p);
}

static rt_status_t make_key(const rt_vm_specializer_t *s, int32_t kernel, int32_t nin,
                            const rt_kernel_arg *in, keybuf *out) {
  out->p = out->local;
  out->n = 0;
  out->cap = sizeof out->local;
  out->failed = out->heap = false;
  put(out, &kernel, sizeof kernel);
  for (int32_t i = 0; i < nin; ++i) {
    const rt_kernel_arg *a = &in[i];
    put(out, &a->dtype, sizeof a->dtype);
    put(out, &a->rank, sizeof a->rank);
    put(out, a->shape, (size_t)a->rank * sizeof(int64_t));
    if (s->value_input[kernel][i]) {
      if (a->strides) {
        key_free(out);
        return RT_STATUS(UNIMPLEMENTED, "input %d is strided; a value operand must be compact",
                         (int)i);
      }
      put(out, a->data, arg_bytes(a));
    }
  }
  if (out->failed) {
    key_free(out);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  }
  return RT_OK;
}

/* ---- one specialization --------------------------------------------------------- */

/* A constant holding the values of input `a` (of concrete type t). */
static rt_status_t value_constant(rt_module_t *m, const rt_ir_expr_t *param, const rt_kernel_arg *a,
                                  rt_ir_expr_t **out) {
  rt_tensor_t *t = NULL;
  rt_dtype_t dt = {a->dtype.code, a->dtype.bits, a->dtype.lanes};
  RT_RETURN_IF_ERROR(rt_tensor_create(rt_mem_current(), dt, a->rank, a->shape, &t));
  memcpy(rt_tensor_data(t), a->data, rt_tensor_nbytes(t));
  rt_status_t st = rt_ir_constant(m, param->span, t, out);
  rt_tensor_release(t);
  return st;
}

/* The static function of kernel k for these inputs, in the new module m. */
static rt_status_t specialize_fn(const rt_vm_build_t *b, int32_t k, int32_t nin,
                                 const rt_kernel_arg *in, rt_module_t *m, rt_ir_expr_t **out_fn) {
  const rt_ir_expr_t *fn = b->kernel_fns[k];
  const int32_t np = fn->fn.nparams;
  rt_ir_expr_t **params = rt_mem_calloc((size_t)(np ? np : 1), sizeof *params);
  struct {
    int32_t n;
    rt_ir_expr_t **from, **to; /* old parameter -> its retyped var or constant */
  } w = {0, rt_mem_calloc((size_t)(np ? np : 1), sizeof *w.from),
         rt_mem_calloc((size_t)(np ? np : 1), sizeof *w.to)};
  rt_status_t st = params && w.from && w.to ? RT_OK : RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  int32_t next = 0;
  for (int32_t p = 0; !st && p < np; ++p) {
    const rt_ir_expr_t *old = fn->fn.params[p];
    const int32_t first = next;
    rt_ir_type_t *t = NULL;
    st = rt_vm_concrete_type(m, old->checked_type, in, nin, &next, &t);
    rt_ir_expr_t *nv = NULL;
    if (!st) st = rt_ir_var(m, old->span, old->var.name, t, &nv);
    if (st) break;
    params[p] = nv;
    w.from[w.n] = fn->fn.params[p];
    w.to[w.n] = nv;
    /* A value operand: its uses see the values; the parameter stays (the
     * kernel's arguments do not change) but is not read. */
    if (t->kind == RT_IR_TYPE_TENSOR && b->spec->value_input[k][first]) {
      st = value_constant(m, old, &in[first], &w.to[w.n]);
    }
    w.n++;
  }
  rt_ir_expr_t *body = NULL, *nf = NULL;
  if (!st) st = rt_ir_substitute(m, fn->fn.body, w.n, w.from, w.to, &body);
  if (!st) st = rt_ir_function(m, fn->span, np, params, body, NULL, fn->fn.attrs, &nf);
  if (!st) st = rt_ir_module_add(m, "vm_specialized", nf);
  if (!st) st = rt_ir_infer_types(m);
  /* With the operands' types concrete and the values constant, the dyn ops
   * become static ones (DynamicToStatic's rewrite), typed again. */
  rt_ir_expr_t *static_body = NULL;
  if (!st) st = rt_ir_dyn_to_static(m, nf->fn.body, &static_body);
  if (!st && static_body != nf->fn.body) {
    st = rt_ir_function(m, fn->span, np, params, static_body, NULL, fn->fn.attrs, &nf);
    if (!st) st = rt_ir_module_add(m, "vm_specialized", nf);
    if (!st) st = rt_ir_infer_types(m);
  }
  rt_mem_free(params);
  rt_mem_free(w.from);
  rt_mem_free(w.to);
  if (!st) *out_fn = nf;
  return st;
}

/* The output shapes of the static function nf. */
static rt_status_t output_shapes(const rt_vm_build_t *b, int32_t k, const rt_ir_expr_t *nf,
                                 rt_vm_shape_t *shapes) {
  const rt_ir_type_t *ft = rt_ir_type_resolve(nf->checked_type);
  const rt_ir_type_t *leaves[RT_VM_MAX_LEAVES];
  int32_t n = 0;
  rt_vm_type_leaves(ft->func.ret, leaves, &n);
  const rt_vm_kernel_info_t *ki = &b->exe.kernels[k];
  if (n != ki->num_outputs) {
    return RT_STATUS(INTERNAL, "the specialization has %d outputs, not %d", (int)n, (int)ki->num_outputs);
  }
  for (int32_t o = 0; o < n; ++o) {
    const rt_ir_type_t *t = leaves[o];
    if (!t || t->kind != RT_IR_TYPE_TENSOR) {
      return RT_STATUS(INTERNAL, "output %d of the specialization is not a tensor", (int)o);
    }
    shapes[o].rank = t->tensor.rank;
    for (int32_t d = 0; d < t->tensor.rank; ++d) {
      if (t->tensor.shape[d] == RT_DIM_ANY) {
        return RT_STATUS(UNIMPLEMENTED, "output %d keeps a `?` dim (dim %d) on concrete input "
                         "shapes: it depends on values computed inside the kernel", (int)o, (int)d);
      }
      shapes[o].dims[d] = t->tensor.shape[d];
    }
  }
  return RT_OK;
}

static rt_status_t make_entry(const rt_vm_build_t *b, int32_t k, int32_t nin,
                              const rt_kernel_arg *in, spec_entry *e) {
  rt_vm_specializer_t *s = b->spec;
  rt_module_t *m = NULL;
  rt_ir_expr_t *nf = NULL;
  e->num_outputs = b->exe.kernels[k].num_outputs;
  e->shapes = rt_mem_calloc((size_t)(e->num_outputs ? e->num_outputs : 1), sizeof *e->shapes);
  rt_status_t st = e->shapes ? RT_OK : RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  if (!st) st = rt_ir_module_derive(b->module, &m);
  if (!st) st = specialize_fn(b, k, nin, in, m, &nf);
  if (!st) st = output_shapes(b, k, nf, e->shapes);
  const char *name = b->exe.kernels[k].name;
  if (!st) st = rt_jit_build(s->session, 1, &nf, &name, s->jit_flags, NULL, &e->jit);
  if (!st) e->fn = rt_jit_module_kernel(e->jit, 0);
  rt_module_release(m);
  return st;
}

/* The entry of kernel k for these inputs, made if new (under s->mu). */
static rt_status_t lookup(const rt_vm_build_t *b, int32_t k, int32_t nin, const rt_kernel_arg *in,
                          spec_entry **out) {
  rt_vm_specializer_t *s = b->spec;
  if (!s || k < 0 || k >= s->num_kernels || !b->per_shape[k]) {
    return RT_STATUS(INTERNAL, "kernel %d is not compiled per shape", (int)k);
  }
  if (nin != b->exe.kernels[k].num_inputs) {
    return RT_STATUS(INVALID_ARGUMENT, "%d inputs, not %d", (int)nin, (int)b->exe.kernels[k].num_inputs);
  }
  keybuf key;
  RT_RETURN_IF_ERROR(make_key(s, k, nin, in, &key));
  spec_entry *e = atomic_load_explicit(&s->last[k], memory_order_acquire);
  if (e && e->key_len == key.n && memcmp(e->key, key.p, key.n) == 0) {
    atomic_fetch_add_explicit(&s->hits, 1, memory_order_relaxed);
    key_free(&key);
    *out = e;
    return RT_OK;
  }
  uint8_t *owned = NULL;
  pthread_mutex_lock(&s->mu);
  e = NULL;
  HASH_FIND(hh, s->table, key.p, key.n, e);
  rt_status_t st = RT_OK;
  if (e) {
    atomic_fetch_add_explicit(&s->hits, 1, memory_order_relaxed);
  } else {
    e = rt_mem_calloc(1, sizeof *e);
    owned = rt_mem_alloc(key.n ? key.n : 1);
    st = e && owned ? make_entry(b, k, nin, in, e) : RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
    if (!st) {
      memcpy(owned, key.p, key.n);
      e->key = owned;
      owned = NULL;
      e->key_len = key.n;
      HASH_ADD_KEYPTR(hh, s->table, e->key, e->key_len, e);
      s->made++;
    } else {
      if (e) {
        rt_jit_module_release(e->jit);
        rt_mem_free(e->shapes);
        rt_mem_free(e);
      }
      e = NULL;
      st = rt_status_annotate(st, "compiling kernel %s for these input shapes",
                              b->exe.kernels[k].name);
    }
  }
  if (e) atomic_store_explicit(&s->last[k], e, memory_order_release);
  pthread_mutex_unlock(&s->mu);
  rt_mem_free(owned);
  key_free(&key);
  *out = e;
  return st;
}

rt_status_t rt_vm_specialized_shapes(const rt_vm_build_t *b, int32_t kernel, int32_t num_inputs,
                                     const rt_kernel_arg *inputs, int32_t num_outputs,
                                     rt_vm_shape_t *out_shapes) {
  spec_entry *e = NULL;
  RT_RETURN_IF_ERROR(lookup(b, kernel, num_inputs, inputs, &e));
  if (num_outputs != e->num_outputs) {
    return RT_STATUS(INTERNAL, "%d outputs asked, the kernel has %d", (int)num_outputs,
                     (int)e->num_outputs);
  }
  memcpy(out_shapes, e->shapes, (size_t)num_outputs * sizeof *out_shapes);
  return RT_OK;
}

rt_status_t rt_vm_resolve_kernel(void *user, int32_t kernel, int32_t nargs,
                                 const rt_kernel_arg *args, rt_kernel_fn *out_fn) {
  const rt_vm_build_t *b = user;
  if (kernel < 0 || kernel >= b->exe.num_kernels) return RT_STATUS(OUT_OF_RANGE, "no kernel %d", (int)kernel);
  const int32_t nin = b->exe.kernels[kernel].num_inputs;
  spec_entry *e = NULL;
  RT_RETURN_IF_ERROR(lookup(b, kernel, nin, args, &e));
  /* The compiled kernel writes its static output shapes: the VM must have
   * allocated exactly those. */
  if (nargs != nin + e->num_outputs) {
    return RT_STATUS(INTERNAL, "%d arguments, the kernel takes %d", (int)nargs,
                     (int)(nin + e->num_outputs));
  }
  for (int32_t o = 0; o < e->num_outputs; ++o) {
    const rt_kernel_arg *a = &args[nin + o];
    bool same = a->rank == e->shapes[o].rank;
    for (int32_t d = 0; same && d < a->rank; ++d) same = a->shape[d] == e->shapes[o].dims[d];
    if (!same) {
      return RT_STATUS(INTERNAL, "output %d was allocated with another shape than the kernel "
                       "compiled for these inputs computes", (int)o);
    }
  }
  *out_fn = e->fn;
  return RT_OK;
}
