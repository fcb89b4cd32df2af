/* The graph executor's specializations per input shape
 * (backend/graph_specialize.h).
 *
 * The cache is a doubly linked list, most recently used first, of at most
 * `max` specializations, each keyed by its signature: every input's dtype,
 * rank and dims. A lookup is a linear scan (max is small: 8 by default,
 * and comparing a few dims costs nothing next to a run); a hit moves the
 * entry to the front, a miss builds one (the whole pipeline, then the
 * plan and kernels: rt_graph_build compiles each distinct group once, and
 * the JIT session shares kernels already compiled for an earlier shape),
 * puts it in front and evicts from the back past `max`.
 *
 * Invariants: only _prepare changes the list, inside the executor's busy
 * guard, so builds never race one another; the mutex is held only around
 * list and counter changes and around the readers (_latest, _stats), never
 * during a build or a run. An evicted specialization is unlinked under the
 * mutex and released after it: the last reference (the cache's, or a
 * reader's from _latest) frees it. Its output tensors are reference-counted
 * and whoever retained them (the runner, a caller) keeps them. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/graph_specialize.h"
#include "ir/op/dyn.h"
#include "runtime/mem.h"
#include "runtime/strbuf.h"

typedef struct {
  rt_dtype_t dtype;
  int32_t rank;
  int64_t dims[RT_TENSOR_MAX_RANK];
  rt_tensor_t *value;            /* a value input's compact copy, else NULL */
} sig_input;

struct rt_graph_spec_t {
  _Atomic int32_t refcount;
  rt_graph_spec_t *prev, *next;  /* the cache's list, most recent first */
  int32_t num_inputs;
  sig_input *sig;                /* per input */
  rt_module_t *module;           /* bound and optimized */
  rt_graph_build_t build;
  rt_graph_runtime_t *graph;
};

struct rt_graph_spec_cache_t {
  rt_allocator_t allocator;
  rt_module_t *source;           /* params bound, `?` input dims not; retained */
  rt_pass_context_t ctx;         /* the executor's, without instruments */
  rt_jit_session_t *jit;         /* borrowed */
  uint32_t jit_flags;
  rt_thread_pool_t *pool;        /* borrowed */
  int32_t num_inputs;
  bool *values;                  /* per input: its values are part of the key */
  int32_t max;
  pthread_mutex_t lock;          /* the list and the counters, against readers */
  rt_graph_spec_t *head, *tail;
  int32_t count;
  int64_t built, hits, evicted;
};

rt_status_t rt_graph_value_inputs(rt_module_t *source, bool *out_values, bool *out_any) {
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(source, "main");
  if (!main_fn) return RT_STATUS(NOT_FOUND, "the module has no @main");
  RT_RETURN_IF_ERROR(rt_ir_value_params(rt_allocator_system(), main_fn, out_values));
  *out_any = false;
  for (int32_t i = 0; i < main_fn->fn.nparams; ++i) {
    /* A value input too large to be a key stays an input; its dyn op is
     * then refused naming the vm, as without specializing. */
    const rt_ir_type_t *t = rt_ir_type_resolve(main_fn->fn.params[i]->checked_type);
    if (out_values[i] && t && t->kind == RT_IR_TYPE_TENSOR) {
      int64_t n = 1;
      for (int32_t d = 0; d < t->tensor.rank && t->tensor.shape[d] != RT_DIM_ANY; ++d) {
        n *= t->tensor.shape[d];
      }
      if (n > RT_GRAPH_MAX_VALUE_ELEMENTS) out_values[i] = false;
    }
    *out_any = *out_any || out_values[i];
  }
  return RT_OK;
}

rt_status_t rt_graph_spec_cache_create(rt_allocator_t allocator, rt_module_t *source,
                                       const rt_pass_context_t *ctx, rt_jit_session_t *session,
                                       uint32_t jit_flags, rt_thread_pool_t *pool,
                                       rt_graph_spec_cache_t **out_cache) {
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(source, "main");
  if (!main_fn) return RT_STATUS(NOT_FOUND, "the module has no @main");
  rt_graph_spec_cache_t *c = rt_mem_calloc(1, sizeof *c);
  if (c) c->values = rt_mem_calloc((size_t)(main_fn->fn.nparams ? main_fn->fn.nparams : 1), 1);
  bool any = false;
  rt_status_t st = c && c->values ? rt_graph_value_inputs(source, c->values, &any)
                                  : RT_STATUS(RESOURCE_EXHAUSTED,
                                              "out of memory creating the graph executor");
  if (st) {
    if (c) rt_mem_free(c->values);
    rt_mem_free(c);
    return st;
  }
  c->allocator = allocator;
  rt_module_retain(source);
  c->source = source;
  c->ctx = *ctx;
  /* Instruments' `user` pointers are borrowed for rt_create_executor's
   * call only (include/rt/pass.h): later builds must not call them. */
  c->ctx.num_instruments = 0;
  c->ctx.num_owned = 0;
  c->jit = session;
  c->jit_flags = jit_flags;
  c->pool = pool;
  c->num_inputs = main_fn->fn.nparams;
  c->max = (int32_t)(ctx->graph_max_specializations > 0 ? ctx->graph_max_specializations : 8);
  pthread_mutex_init(&c->lock, NULL);
  *out_cache = c;
  return RT_OK;
}

void rt_graph_spec_release(rt_graph_spec_t *s) {
  if (!s || atomic_fetch_sub(&s->refcount, 1) != 1) return;
  rt_graph_runtime_release(s->graph);
  rt_graph_build_deinitialize(&s->build);
  rt_module_release(s->module);
  for (int32_t i = 0; s->sig && i < s->num_inputs; ++i) rt_tensor_release(s->sig[i].value);
  rt_mem_free(s->sig);
  rt_mem_free(s);
}

void rt_graph_spec_cache_release(rt_graph_spec_cache_t *c) {
  if (!c) return;
  rt_graph_spec_t *s = c->head;
  while (s) {
    rt_graph_spec_t *next = s->next;
    rt_graph_spec_release(s);
    s = next;
  }
  pthread_mutex_destroy(&c->lock);
  rt_module_release(c->source);
  rt_mem_free(c->values);
  rt_mem_free(c);
}

/* key (compact) and t hold the same bytes; their shapes are equal. */
static bool same_values(const rt_tensor_t *key, const rt_tensor_t *t) {
  if (rt_tensor_is_compact(t)) {
    return memcmp(rt_tensor_data(key), rt_tensor_data(t), rt_tensor_nbytes(key)) == 0;
  }
  rt_tensor_t *copy = NULL;
  if (rt_tensor_clone(rt_allocator_system(), t, &copy)) return false; /* built anew */
  const bool same = memcmp(rt_tensor_data(key), rt_tensor_data(copy), rt_tensor_nbytes(key)) == 0;
  rt_tensor_release(copy);
  return same;
}

static bool sig_matches(const rt_graph_spec_t *s, int32_t nargs, rt_tensor_t *const *args) {
  for (int32_t i = 0; i < nargs; ++i) {
    const sig_input *k = &s->sig[i];
    const rt_tensor_t *t = args[i];
    if (!rt_dtype_equal(k->dtype, rt_tensor_dtype(t)) || k->rank != rt_tensor_rank(t) ||
        memcmp(k->dims, rt_tensor_shape(t), (size_t)k->rank * sizeof(int64_t)) != 0) {
      return false;
    }
    if (k->value && !same_values(k->value, t)) return false;
  }
  return true;
}

/* "x: (2, 3), shape: (2) = [3, 2]": the shapes (and the int values of
 * value inputs) a specialization binds, for messages. */
static void describe_shapes(const rt_ir_expr_t *main_fn, int32_t nargs, rt_tensor_t *const *args,
                            const bool *values, rt_strbuf_t *out) {
  for (int32_t i = 0; i < nargs; ++i) {
    rt_strbuf_printf(out, "%s%s: ", i ? ", " : "", main_fn->fn.params[i]->var.name);
    rt_ir_shape_print(rt_tensor_rank(args[i]), rt_tensor_shape(args[i]), out);
    const rt_dtype_t dt = rt_tensor_dtype(args[i]);
    if (!values || !values[i] || dt.code != kDLInt || !rt_tensor_is_compact(args[i]) ||
        (dt.bits != 32 && dt.bits != 64)) {
      continue;
    }
    const int64_t n = rt_tensor_numel(args[i]);
    rt_strbuf_puts(out, " = [");
    for (int64_t k = 0; k < n && k < 8; ++k) {
      const void *p = rt_tensor_data(args[i]);
      const long long v = dt.bits == 64 ? (long long)((const int64_t *)p)[k]
                                        : (long long)((const int32_t *)p)[k];
      rt_strbuf_printf(out, "%s%lld", k ? ", " : "", v);
    }
    rt_strbuf_puts(out, n > 8 ? ", ...]" : "]");
  }
}

/* The module bound to the args' shapes and the value inputs' values
 * (constants in place of their uses; the parameters stay, unused, so the
 * runtime's inputs keep their positions), built, planned and compiled. */
static rt_status_t build_spec(rt_graph_spec_cache_t *c, rt_tensor_t *const *args,
                              rt_graph_spec_t *s) {
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(c->source, "main");
  const int32_t n = c->num_inputs;
  rt_input_shape_t *shapes = rt_mem_calloc((size_t)(n ? n : 1), sizeof *shapes);
  if (!shapes) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory specializing the graph executor");
  /* Only the inputs with `?` dims: a static one is bound already. */
  int32_t count = 0;
  for (int32_t i = 0; i < n; ++i) {
    const rt_ir_type_t *t = rt_ir_type_resolve(main_fn->fn.params[i]->checked_type);
    bool dynamic = false;
    for (int32_t d = 0; t && t->kind == RT_IR_TYPE_TENSOR && d < t->tensor.rank; ++d) {
      dynamic = dynamic || t->tensor.shape[d] == RT_DIM_ANY;
    }
    if (!dynamic) continue;
    shapes[count++] = (rt_input_shape_t){main_fn->fn.params[i]->var.name, rt_tensor_rank(args[i]),
                                         rt_tensor_shape(args[i])};
  }
  rt_module_t *bound = NULL;
  rt_status_t st = rt_module_bind_input_shapes(c->source, count, shapes, &bound);
  rt_mem_free(shapes);
  rt_params_t *values = NULL;
  bool any = false;
  for (int32_t i = 0; !st && i < n; ++i) {
    if (!s->sig[i].value) continue;
    if (!values) st = rt_params_create(rt_allocator_system(), &values);
    if (!st) st = rt_params_set(values, main_fn->fn.params[i]->var.name, s->sig[i].value);
    any = true;
  }
  if (!st && any) {
    rt_module_t *with_values = NULL;
    st = rt_backend_bind_values(bound, values, &with_values);
    rt_module_release(bound);
    bound = with_values;
  }
  rt_params_release(values);
  if (!st) st = rt_build(bound, &c->ctx, "graph", &s->module, NULL);
  rt_module_release(bound);
  if (!st) st = rt_graph_build(s->module, c->jit, c->jit_flags, &s->build);
  if (!st) {
    st = rt_graph_runtime_create(c->allocator, &s->build.plan, s->build.kernels,
                                 s->build.num_kernels, c->pool, &s->graph);
  }
  return st;
}

/* A new specialization for args (one reference, the caller's). */
static rt_status_t make_spec(rt_graph_spec_cache_t *c, rt_tensor_t *const *args,
                             rt_graph_spec_t **out) {
  rt_graph_spec_t *s = rt_mem_calloc(1, sizeof *s);
  if (s) s->sig = rt_mem_calloc((size_t)(c->num_inputs ? c->num_inputs : 1), sizeof *s->sig);
  if (!s || !s->sig) {
    rt_mem_free(s);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory specializing the graph executor");
  }
  atomic_init(&s->refcount, 1);
  s->num_inputs = c->num_inputs;
  for (int32_t i = 0; i < c->num_inputs; ++i) {
    s->sig[i].dtype = rt_tensor_dtype(args[i]);
    s->sig[i].rank = rt_tensor_rank(args[i]);
    memcpy(s->sig[i].dims, rt_tensor_shape(args[i]), (size_t)s->sig[i].rank * sizeof(int64_t));
  }
  rt_status_t st = RT_OK;
  for (int32_t i = 0; !st && i < c->num_inputs; ++i) {
    if (!c->values[i]) continue;
    if (rt_tensor_numel(args[i]) > RT_GRAPH_MAX_VALUE_ELEMENTS) {
      st = RT_STATUS(UNIMPLEMENTED, "input '%s' has %lld elements; the graph executor specializes "
                     "on the values of inputs of at most %d (ops read its values for shapes): "
                     "use the vm",
                     rt_ir_module_lookup(c->source, "main")->fn.params[i]->var.name,
                     (long long)rt_tensor_numel(args[i]), RT_GRAPH_MAX_VALUE_ELEMENTS);
    }
    if (!st) st = rt_tensor_clone(rt_allocator_system(), args[i], &s->sig[i].value);
  }
  if (!st) st = build_spec(c, args, s);
  if (st) {
    rt_strbuf_t b;
    rt_strbuf_initialize(&b);
    describe_shapes(rt_ir_module_lookup(c->source, "main"), c->num_inputs, args, c->values, &b);
    st = rt_status_annotate(st, "specializing the graph executor to %s", b.data ? b.data : "");
    rt_strbuf_deinitialize(&b);
    rt_graph_spec_release(s);
    return st;
  }
  *out = s;
  return RT_OK;
}

/* List surgery, under the lock. */
static void unlink_spec(rt_graph_spec_cache_t *c, rt_graph_spec_t *s) {
  if (s->prev) s->prev->next = s->next;
  else c->head = s->next;
  if (s->next) s->next->prev = s->prev;
  else c->tail = s->prev;
  s->prev = s->next = NULL;
}

static void push_front(rt_graph_spec_cache_t *c, rt_graph_spec_t *s) {
  s->prev = NULL;
  s->next = c->head;
  if (c->head) c->head->prev = s;
  c->head = s;
  if (!c->tail) c->tail = s;
}

rt_status_t rt_graph_spec_cache_prepare(rt_graph_spec_cache_t *c, int32_t nargs,
                                        rt_tensor_t *const *args, rt_graph_spec_t **out_spec) {
  if (nargs != c->num_inputs) {
    return RT_STATUS(INTERNAL, "the graph executor got %d inputs, @main has %d", (int)nargs,
                     (int)c->num_inputs);
  }
  rt_graph_spec_t *found = NULL;
  for (rt_graph_spec_t *s = c->head; s && !found; s = s->next) {
    if (sig_matches(s, nargs, args)) found = s;
  }
  if (found) {
    pthread_mutex_lock(&c->lock);
    unlink_spec(c, found);
    push_front(c, found);
    c->hits++;
    pthread_mutex_unlock(&c->lock);
  } else {
    RT_RETURN_IF_ERROR(make_spec(c, args, &found));
    rt_graph_spec_t *evicted = NULL;
    pthread_mutex_lock(&c->lock);
    push_front(c, found);
    c->count++;
    c->built++;
    if (c->count > c->max) {
      evicted = c->tail;
      unlink_spec(c, evicted);
      c->count--;
      c->evicted++;
    }
    pthread_mutex_unlock(&c->lock);
    rt_graph_spec_release(evicted);
  }
  for (int32_t i = 0; i < nargs; ++i) {
    RT_RETURN_IF_ERROR(rt_graph_runtime_set_input(found->graph, i, args[i]));
  }
  *out_spec = found;
  return RT_OK;
}

rt_status_t rt_graph_spec_call(void *user, int32_t nargs, rt_tensor_t *const *args,
                               int32_t max_outs, rt_tensor_t **outs, int32_t *out_count) {
  rt_graph_spec_t *s = NULL;
  RT_RETURN_IF_ERROR(rt_graph_spec_cache_prepare(user, nargs, args, &s));
  rt_status_t st = rt_graph_runtime_run(s->graph);
  /* A cached specialization does not pin the inputs of its last run. */
  rt_graph_runtime_clear_inputs(s->graph);
  RT_RETURN_IF_ERROR(st);
  const int32_t n = rt_graph_runtime_plan(s->graph)->num_outputs;
  if (n > max_outs) {
    return RT_STATUS(INTERNAL, "@main returns %d tensors; room was given for %d", (int)n,
                     (int)max_outs);
  }
  for (int32_t o = 0; o < n; ++o) {
    outs[o] = rt_graph_runtime_output(s->graph, o);
    rt_tensor_retain(outs[o]);
  }
  *out_count = n;
  return RT_OK;
}

void rt_graph_spec_cache_latest(rt_graph_spec_cache_t *c, rt_graph_spec_t **out_spec) {
  pthread_mutex_lock(&c->lock);
  rt_graph_spec_t *s = c->head;
  if (s) atomic_fetch_add(&s->refcount, 1);
  pthread_mutex_unlock(&c->lock);
  *out_spec = s;
}

const rt_graph_build_t *rt_graph_spec_build(const rt_graph_spec_t *s) { return &s->build; }

rt_graph_runtime_t *rt_graph_spec_runtime(const rt_graph_spec_t *s) { return s->graph; }

void rt_graph_spec_cache_stats(rt_graph_spec_cache_t *c, rt_graph_spec_stats_t *out) {
  pthread_mutex_lock(&c->lock);
  *out = (rt_graph_spec_stats_t){c->built, c->hits, c->evicted, c->count, c->max};
  pthread_mutex_unlock(&c->lock);
}
