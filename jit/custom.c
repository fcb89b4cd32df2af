/* Custom ops and strategies (include/rt/op.h), the JIT's side
 * (jit/custom.h): registration, the native entry, the strategy registry,
 * and which kernel runs a fused group.
 *
 * rt_op_register has the definition checked and copied into its record
 * (ir/op/custom.c), makes its native entry, then publishes it in the op
 * table.
 *
 * The native entry. Every native kernel, whether given with the kernel ABI
 * or as a libffi signature, is called through one entry point with the
 * kernel ABI: a libffi closure (made once per op, at registration) whose
 * handler checks the arguments against the op, guards the output in debug
 * builds, and calls the user's function (directly, or with ffi_call on the
 * cif prepared at registration). The JIT calls that entry from the kernel
 * of a group that is the op alone (jit/lower.c), so the graph and vm
 * executors run it as any other kernel. libffi is linked here, not in ir/.
 *
 * Strategies are kept in one array sorted by decreasing priority (stable),
 * under a mutex; a query copies the op's strategies and calls them
 * without the lock held. */
#include <ffi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/op/custom.h"
#include "jit/custom.h"
#include "runtime/assert.h"
#include "runtime/mem.h"

/* The libffi side of a custom op's native kernel; lives as long as the
 * op (freed only when its registration fails). */
typedef struct native_t {
  const rt_ir_custom_t *c;
  ffi_type *param_types[RT_IR_CUSTOM_MAX_PARAMS];
  ffi_cif cif;             /* the user's function (signature + function) */
  ffi_closure *closure;    /* the native entry */
  ffi_cif entry_cif;
  ffi_type *entry_types[3];
} native_t;

/* ---- libffi types --------------------------------------------------------- */

static ffi_type *ffi_of(const rt_ir_sig_type_t *t) {
  if (t->pointer) return &ffi_type_pointer;
  switch (t->code) {
    case 'v': return &ffi_type_void;
    case 'b': return &ffi_type_uint8;
    case 'f': return t->bits == 32 ? &ffi_type_float : &ffi_type_double;
    case 'i':
      return t->bits == 8 ? &ffi_type_sint8 : t->bits == 16 ? &ffi_type_sint16
           : t->bits == 32 ? &ffi_type_sint32 : &ffi_type_sint64;
    default:
      return t->bits == 8 ? &ffi_type_uint8 : t->bits == 16 ? &ffi_type_uint16
           : t->bits == 32 ? &ffi_type_uint32 : &ffi_type_uint64;
  }
}

/* ---- the native entry ---------------------------------------------------- */

static rt_dtype_t dtype_of_arg(const rt_kernel_arg *a) {
  rt_dtype_t d = {a->dtype.code, a->dtype.bits, a->dtype.lanes};
  return d;
}

static int64_t numel_of(const rt_kernel_arg *a) {
  int64_t n = 1;
  for (int32_t d = 0; d < a->rank; ++d) n *= a->shape[d];
  return n;
}

static bool compact(const rt_kernel_arg *a) {
  if (!a->strides) return true;
  int64_t s = 1;
  for (int32_t d = a->rank - 1; d >= 0; --d) {
    if (a->shape[d] != 1 && a->strides[d] != s) return false;
    s *= a->shape[d];
  }
  return true;
}

static bool sig_matches(const rt_ir_sig_type_t *t, rt_dtype_t d) {
  if (t->code == 'v') return true; /* void* */
  if (d.lanes != 1) return false;
  switch (t->code) {
    case 'b': return rt_dtype_is_bool(d);
    case 'f': return rt_dtype_is_float(d) && d.code == kDLFloat && d.bits == t->bits;
    case 'i': return rt_dtype_is_int(d) && d.bits == t->bits;
    default: return rt_dtype_is_uint(d) && d.bits == t->bits;
  }
}

static void sig_type_name(const rt_ir_sig_type_t *t, char *buf, size_t size) {
  if (t->code == 'v') {
    snprintf(buf, size, "void%s", t->pointer ? "*" : "");
  } else if (t->code == 'b') {
    snprintf(buf, size, "bool%s", t->pointer ? "*" : "");
  } else {
    snprintf(buf, size, "%c%d%s", t->code, (int)t->bits, t->pointer ? "*" : "");
  }
}

static void kernel_error(const rt_kernel_ctx *ctx, const char *format, ...) RT_PRINTF_FORMAT(2, 3);
static void kernel_error(const rt_kernel_ctx *ctx, const char *format, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, format);
  vsnprintf(msg, sizeof msg, format, ap);
  va_end(ap);
  if (ctx && ctx->set_error) ctx->set_error(ctx, msg);
}

/* Calls the user's libffi function on args (inputs then the output). */
static int32_t call_ffi(const native_t *nt, const rt_kernel_arg *args,
                        const rt_kernel_ctx *ctx) {
  const rt_ir_custom_t *c = nt->c;
  union {
    int8_t i8; int16_t i16; int32_t i32; int64_t i64;
    uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
    void *p;
  } vals[RT_IR_CUSTOM_MAX_PARAMS];
  void *avalues[RT_IR_CUSTOM_MAX_PARAMS];
  for (int32_t k = 0; k < c->nparams; ++k) {
    const rt_ir_sig_param_t *prm = &c->params[k];
    const rt_kernel_arg *a = &args[prm->tensor];
    avalues[k] = &vals[k];
    if (prm->type.pointer) {
      if (!sig_matches(&prm->type, dtype_of_arg(a))) {
        char want[16], have[32];
        sig_type_name(&prm->type, want, sizeof want);
        rt_dtype_name(dtype_of_arg(a), have);
        kernel_error(ctx, "%s: parameter %d of the native function is %s, but tensor %d is %s",
                     c->def.name, (int)k + 1, want, (int)prm->tensor + 1, have);
        return 1;
      }
      vals[k].p = a->data;
      continue;
    }
    int64_t n = numel_of(a);
    bool fits = prm->type.bits == 64 ||
                (prm->type.code == 'i' ? n <= (INT64_C(1) << (prm->type.bits - 1)) - 1
                                       : n <= (INT64_C(1) << prm->type.bits) - 1);
    if (!fits) {
      kernel_error(ctx, "%s: the element count %lld does not fit parameter %d (%c%d)",
                   c->def.name, (long long)n, (int)k + 1, prm->type.code, (int)prm->type.bits);
      return 1;
    }
    switch (prm->type.bits) {
      case 8: vals[k].u8 = (uint8_t)n; break;
      case 16: vals[k].u16 = (uint16_t)n; break;
      case 32: vals[k].u32 = (uint32_t)n; break;
      default: vals[k].u64 = (uint64_t)n; break;
    }
  }
  ffi_arg rv = 0;
  ffi_call((ffi_cif *)&nt->cif, (void (*)(void))c->def.function, &rv, avalues);
  if (c->ret.code == 'v') return 0;
  /* Integer results come back widened to ffi_arg; compare the low bits. */
  uint64_t mask = c->ret.bits == 64 ? UINT64_MAX : (UINT64_C(1) << c->ret.bits) - 1;
  uint64_t r = (uint64_t)rv & mask;
  if (r != 0) {
    kernel_error(ctx, "%s: the native kernel failed (returned %lld)", c->def.name,
                 (long long)(c->ret.code == 'i' && c->ret.bits < 64 &&
                                     (r >> (c->ret.bits - 1)) ? (int64_t)(r | ~mask)
                                                              : (int64_t)r));
    return 1;
  }
  return 0;
}

static int32_t native_call(const native_t *nt, const rt_kernel_arg *args, int32_t nargs,
                           const rt_kernel_ctx *ctx) {
  const rt_ir_custom_t *c = nt->c;
  const int32_t nin = c->def.num_inputs;
  if (!args || nargs != nin + 1) {
    kernel_error(ctx, "%s: the native kernel takes %d tensors (inputs, then the output), got %d",
                 c->def.name, (int)nin + 1, (int)nargs);
    return 1;
  }
  for (int32_t i = 0; i < nargs; ++i) {
    if (!compact(&args[i])) {
      kernel_error(ctx, "%s: tensor %d is not compact", c->def.name, (int)i + 1);
      return 1;
    }
  }
  rt_kernel_arg local[RT_IR_CUSTOM_MAX_INPUTS + 1];
  memcpy(local, args, (size_t)nargs * sizeof *args);
  int32_t r = 0;
#ifdef RT_DEBUG
  /* The output goes to a copy followed by a guard zone. */
  const rt_kernel_arg *out = &args[nin];
  size_t bytes = (size_t)numel_of(out) * ((out->dtype.bits * out->dtype.lanes + 7u) / 8u);
  unsigned char *shadow = rt_mem_alloc(bytes + RT_IR_CUSTOM_GUARD_BYTES);
  if (!shadow) {
    kernel_error(ctx, "%s: out of memory", c->def.name);
    return 1;
  }
  if (bytes) memcpy(shadow, out->data, bytes);
  memset(shadow + bytes, RT_IR_CUSTOM_GUARD_BYTE, RT_IR_CUSTOM_GUARD_BYTES);
  local[nin].data = shadow;
#endif
  r = c->def.kernel ? c->def.kernel(local, nargs, ctx) : call_ffi(nt, local, ctx);
#ifdef RT_DEBUG
  if (r == 0 && !rt_ir_custom_guard_intact(shadow + bytes, RT_IR_CUSTOM_GUARD_BYTES)) {
    char shape[128];
    rt_ir_custom_shape_text(out, shape, sizeof shape);
    kernel_error(ctx, "%s: the native kernel wrote past the end of its output (%zu bytes for "
                 "shape %s): it computed another shape than the type relation's", c->def.name,
                 bytes, shape);
    r = 1;
  }
  if (r == 0 && bytes) memcpy(out->data, shadow, bytes);
  rt_mem_free(shadow);
#endif
  if (r != 0 && c->def.kernel) {
    /* An ABI kernel sets its own message; make sure there is one. */
    kernel_error(ctx, "%s: the native kernel failed (returned %d)", c->def.name, (int)r);
  }
  return r != 0 ? 1 : 0;
}

/* The libffi closure handler behind every native entry point. */
static void native_entry(ffi_cif *cif, void *ret, void **args, void *user) {
  (void)cif;
  const native_t *nt = user;
  const rt_kernel_arg *kargs = *(const rt_kernel_arg *const *)args[0];
  int32_t nargs = *(const int32_t *)args[1];
  const rt_kernel_ctx *ctx = *(const rt_kernel_ctx *const *)args[2];
  *(ffi_arg *)ret = (ffi_arg)native_call(nt, kargs, nargs, ctx);
}

static void native_free(native_t *nt) {
  if (!nt) return;
  if (nt->closure) ffi_closure_free(nt->closure);
  rt_mem_free(nt);
}

/* Prepares the libffi call of c's function (when it has a signature) and
 * the native entry: c->native. */
static rt_status_t make_native(rt_ir_custom_t *c, native_t **out) {
  *out = NULL;
  native_t *nt = rt_mem_calloc(1, sizeof *nt);
  if (!nt) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory registering '%s'", c->def.name);
  nt->c = c;
  rt_status_t st = RT_OK;
  if (c->def.signature) {
    for (int32_t k = 0; k < c->nparams; ++k) nt->param_types[k] = ffi_of(&c->params[k].type);
    if (ffi_prep_cif(&nt->cif, FFI_DEFAULT_ABI, (unsigned)c->nparams, ffi_of(&c->ret),
                     nt->param_types) != FFI_OK) {
      st = RT_STATUS(INTERNAL, "%s: libffi cannot prepare the call \"%s\"", c->def.name,
                     c->def.signature);
    }
  }
  void *code = NULL;
  if (!st) {
    nt->closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    if (!nt->closure) {
      st = RT_STATUS(RESOURCE_EXHAUSTED, "%s: libffi cannot allocate a closure", c->def.name);
    }
  }
  if (!st) {
    nt->entry_types[0] = &ffi_type_pointer;
    nt->entry_types[1] = &ffi_type_sint32;
    nt->entry_types[2] = &ffi_type_pointer;
    if (ffi_prep_cif(&nt->entry_cif, FFI_DEFAULT_ABI, 3, &ffi_type_sint32, nt->entry_types) != FFI_OK ||
        ffi_prep_closure_loc(nt->closure, &nt->entry_cif, native_entry, nt, code) != FFI_OK) {
      st = RT_STATUS(INTERNAL, "%s: libffi cannot prepare the kernel entry", c->def.name);
    }
  }
  if (st) {
    native_free(nt);
    return st;
  }
  /* The closure's code address is the function (POSIX: object and
   * function pointers have one representation). */
  _Static_assert(sizeof c->native == sizeof code, "pointer sizes");
  memcpy(&c->native, &code, sizeof code);
  c->native_state = nt;
  *out = nt;
  return RT_OK;
}

/* ---- registration -------------------------------------------------------- */

static rt_status_t op_register(const rt_op_def_t *def);

/* Registries live as long as the process: their records come from the
 * system allocator whatever scope the caller is in (runtime/mem.h). */
rt_status_t rt_op_register(const rt_op_def_t *def) {
  rt_mem_scope_t scope;
  rt_mem_scope_enter(&scope, NULL);
  rt_status_t st = op_register(def);
  rt_mem_scope_leave(&scope);
  return st;
}

/* Checked and copied (ir/op/custom.c), given its native entry, then in the
 * op table. */
static rt_status_t op_register(const rt_op_def_t *def) {
  rt_ir_custom_t *c = NULL;
  RT_RETURN_IF_ERROR(rt_ir_custom_create(def, &c));
  native_t *nt = NULL;
  rt_status_t st = RT_OK;
  if (c->def.kernel || c->def.function) st = make_native(c, &nt);
  if (!st) st = rt_ir_custom_publish(c);
  if (st) {
    native_free(nt);
    rt_ir_custom_destroy(c);
  }
  return st;
}

/* ---- strategies ---------------------------------------------------------- */

typedef struct strategy_t {
  const rt_ir_op_t *op;
  char *name;
  int32_t priority;
  rt_op_strategy_fn select;
  void *user;
} strategy_t;

static pthread_mutex_t g_strategy_mutex = PTHREAD_MUTEX_INITIALIZER;
static strategy_t *g_strategies;
static int32_t g_num_strategies, g_cap_strategies;
static _Atomic int32_t g_any_strategy;

static rt_status_t strategy_register(const rt_op_strategy_t *s);

/* Registries live as long as the process: their records come from the
 * system allocator whatever scope the caller is in (runtime/mem.h). */
rt_status_t rt_op_strategy_register(const rt_op_strategy_t *s) {
  rt_mem_scope_t scope;
  rt_mem_scope_enter(&scope, NULL);
  rt_status_t st = strategy_register(s);
  rt_mem_scope_leave(&scope);
  return st;
}

static rt_status_t strategy_register(const rt_op_strategy_t *s) {
  if (!s || !s->op || !s->name || !*s->name || !s->select) {
    return RT_STATUS(INVALID_ARGUMENT, "a strategy needs an op, a name and a select function");
  }
  const rt_ir_op_t *op = rt_ir_op_lookup(s->op, strlen(s->op));
  if (!op) return RT_STATUS(NOT_FOUND, "strategy '%s': no op '%s'", s->name, s->op);
  char *name = rt_mem_strdup(s->name);
  if (!name) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  rt_status_t st = RT_OK;
  pthread_mutex_lock(&g_strategy_mutex);
  if (g_num_strategies == g_cap_strategies) {
    int32_t cap = g_cap_strategies ? g_cap_strategies * 2 : 8;
    strategy_t *grown = rt_mem_realloc(g_strategies, (size_t)cap * sizeof *grown);
    if (!grown) {
      st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
    } else {
      g_strategies = grown;
      g_cap_strategies = cap;
    }
  }
  if (!st) {
    /* After every strategy of higher or equal priority. */
    int32_t at = 0;
    while (at < g_num_strategies && g_strategies[at].priority >= s->priority) at++;
    memmove(&g_strategies[at + 1], &g_strategies[at],
            (size_t)(g_num_strategies - at) * sizeof *g_strategies);
    g_strategies[at] = (strategy_t){op, name, s->priority, s->select, s->user};
    g_num_strategies++;
    g_any_strategy = 1;
  }
  pthread_mutex_unlock(&g_strategy_mutex);
  if (st) rt_mem_free(name);
  return st;
}

/* Copies op's strategies (in order) into out; returns how many (<= cap). */
static int32_t strategies_of(const rt_ir_op_t *op, strategy_t *out, int32_t cap) {
  if (!g_any_strategy) return 0;
  int32_t n = 0;
  pthread_mutex_lock(&g_strategy_mutex);
  for (int32_t i = 0; i < g_num_strategies && n < cap; ++i) {
    if (g_strategies[i].op == op) out[n++] = g_strategies[i];
  }
  pthread_mutex_unlock(&g_strategy_mutex);
  return n;
}

/* ---- the JIT's questions ------------------------------------------------- */

/* Are all of fn's params tensors (one kernel argument each)? */
static bool tensor_params(const rt_ir_expr_t *fn) {
  rt_op_type_t t;
  for (int32_t p = 0; p < fn->fn.nparams; ++p) {
    if (!rt_ir_custom_public_type(fn->fn.params[p]->checked_type, &t)) return false;
  }
  return true;
}

/* Is fn's body one call of an op whose arguments are all params of fn
 * (any order, repeats allowed: jit/lower.c reorders the descriptors)? */
static const rt_ir_expr_t *single_call(const rt_ir_expr_t *fn) {
  if (!fn || fn->kind != RT_IR_FUNCTION || !tensor_params(fn)) return NULL;
  const rt_ir_expr_t *body = fn->fn.body;
  if (!body || body->kind != RT_IR_CALL || body->call.callee->kind != RT_IR_OP) return NULL;
  if (body->call.nargs > RT_IR_CUSTOM_MAX_INPUTS) return NULL;
  for (int32_t i = 0; i < body->call.nargs; ++i) {
    bool is_param = false;
    for (int32_t p = 0; p < fn->fn.nparams && !is_param; ++p) {
      is_param = body->call.args[i] == fn->fn.params[p];
    }
    if (!is_param) return NULL;
  }
  return body;
}

/* Asks the strategies of call's op (in order) for a kernel; *out_kernel
 * stays NULL when there are none, all decline, or a type is not a
 * tensor. With `static_only`, a `?` dim declines too. */
static rt_status_t ask_strategies(const rt_ir_expr_t *call, const char *target, bool static_only,
                                  rt_kernel_fn *out_kernel, char *what, size_t what_size) {
  *out_kernel = NULL;
  const rt_ir_op_t *op = call->call.callee->op.op;
  strategy_t list[32];
  int32_t n = strategies_of(op, list, (int32_t)RT_COUNTOF(list));
  if (n == 0 || call->call.nargs > RT_IR_CUSTOM_MAX_INPUTS) return RT_OK;
  rt_op_type_t in[RT_IR_CUSTOM_MAX_INPUTS], out;
  bool typed = rt_ir_custom_public_type(call->checked_type, &out);
  for (int32_t i = 0; typed && i < call->call.nargs; ++i) {
    typed = rt_ir_custom_public_type(call->call.args[i]->checked_type, &in[i]);
  }
  for (int32_t d = 0; typed && static_only && d < out.rank; ++d) typed = out.shape[d] >= 0;
  for (int32_t i = 0; typed && i < n; ++i) {
    rt_op_strategy_query_t q = {op->name, (const rt_op_attrs_t *)call->call.attrs,
                                call->call.nargs, in, &out, target ? target : ""};
    rt_kernel_fn k = NULL;
    RT_RETURN_IF_ERROR_ANNOTATE(list[i].select(list[i].user, &q, &k), "strategy '%s' for %s",
                                list[i].name, op->name);
    if (k) {
      snprintf(what, what_size, "strategy '%s' for %s", list[i].name, op->name);
      *out_kernel = k;
      return RT_OK;
    }
  }
  return RT_OK;
}

rt_status_t rt_jit_custom_kernel_for(const rt_ir_expr_t *fn, const char *target,
                                     rt_kernel_fn *out_kernel, char *what, size_t what_size) {
  *out_kernel = NULL;
  const rt_ir_expr_t *call = single_call(fn);
  if (!call) return RT_OK;
  const rt_ir_op_t *op = call->call.callee->op.op;
  RT_RETURN_IF_ERROR(ask_strategies(call, target, false, out_kernel, what, what_size));
  if (*out_kernel) return RT_OK;
  const rt_ir_custom_t *c = op->custom;
  if (!c) return RT_OK;
  if (c->native) {
    snprintf(what, what_size, "native kernel of %s", op->name);
    *out_kernel = c->native;
    return RT_OK;
  }
  if (c->elem) return RT_OK; /* lowered from its element expression */
  return RT_STATUS(UNIMPLEMENTED, "%s has no native kernel (no .kernel, .signature or "
                   ".elem_expr): only the debug executor runs it", op->name);
}

/* ---- strategies inside fused groups -------------------------------------- */

typedef struct anchor_scan_t {
  const rt_ir_expr_t *fn;
  const rt_ir_expr_t *found;
  int32_t count;
} anchor_scan_t;

static rt_status_t anchor_visit(void *user, rt_ir_expr_t *e) {
  anchor_scan_t *s = user;
  if (e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP) return RT_OK;
  strategy_t one;
  if (strategies_of(e->call.callee->op.op, &one, 1) == 0) return RT_OK;
  s->count++;
  s->found = e;
  return RT_OK;
}

rt_status_t rt_jit_custom_anchor_for(const rt_ir_expr_t *fn, const char *target,
                                     rt_kernel_fn *out_kernel, const rt_ir_expr_t **out_anchor,
                                     char *what, size_t what_size) {
  *out_kernel = NULL;
  *out_anchor = NULL;
  if (!g_any_strategy || !fn || fn->kind != RT_IR_FUNCTION || !tensor_params(fn)) return RT_OK;
  anchor_scan_t s = {fn, NULL, 0};
  RT_RETURN_IF_ERROR(rt_ir_post_order(rt_mem_current(), fn->fn.body, anchor_visit, &s));
  if (s.count != 1 || s.found == fn->fn.body) return RT_OK;
  const rt_ir_expr_t *call = s.found;
  for (int32_t i = 0; i < call->call.nargs; ++i) {
    bool is_param = false;
    for (int32_t p = 0; p < fn->fn.nparams && !is_param; ++p) {
      is_param = call->call.args[i] == fn->fn.params[p];
    }
    if (!is_param) return RT_OK; /* a fused prologue: the built-in lowering */
  }
  RT_RETURN_IF_ERROR(ask_strategies(call, target, true, out_kernel, what, what_size));
  if (*out_kernel) *out_anchor = call;
  return RT_OK;
}


/* ---- what kernels may call into this process ----------------------------- */

bool rt_jit_custom_in_use(int32_t count, rt_ir_expr_t *const *fns) {
  if (g_any_strategy) return true;
  return rt_ir_custom_called(count, fns);
}
