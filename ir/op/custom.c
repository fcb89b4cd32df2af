/* Custom ops and strategies (include/rt/op.h).
 *
 * rt_op_register checks and copies the definition into an rt_ir_custom_t
 * (one rt_mem_alloc'd record and an arena per op, never freed: ops live until
 * the process exits), prepares the native entry point and registers an
 * rt_ir_op_t with the op table (ir/op/table.c), whose mutex makes
 * registration and lookup thread-safe. The op's type relation is
 * custom_rel, which shows the user's relation public tensor types.
 *
 * The native entry. Every native kernel, whether given with the kernel ABI
 * or as a libffi signature, is called through one entry point with the
 * kernel ABI: a libffi closure (made once per op) whose handler checks the
 * arguments against the op, guards the output in debug builds, and calls
 * the user's function (directly, or with ffi_call on the cif prepared at
 * registration). The JIT calls that entry from the kernel of a group that
 * is the op alone (jit/lower.c), so the graph and vm executors run it as
 * any other kernel.
 *
 * The element expression is parsed at registration into a small array of
 * nodes (inputs, scalars, calls of built-in ops); rt_ir_custom_expand
 * rebuilds it as IR over the call's arguments for the JIT.
 *
 * Strategies are kept in one array sorted by decreasing priority (stable),
 * under a mutex; a query copies the op's strategies and calls them
 * without the lock held. */
#include <ctype.h>
#include <stdarg.h>
#include <ffi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/op/custom.h"
#include "runtime/assert.h"
#include "runtime/mem.h"

#define MAX_INPUTS 16
#define MAX_PARAMS 32
#define MAX_ELEM_NODES 64
#define MAX_ELEM_ARGS 8
#define GUARD_BYTES 64
#define GUARD_BYTE 0xA5

/* ---- the record ---------------------------------------------------------- */

typedef enum elem_kind_e { ELEM_INPUT, ELEM_NUMBER, ELEM_ATTR, ELEM_CALL } elem_kind_t;

typedef struct elem_node_t {
  elem_kind_t kind;
  int32_t input;                 /* ELEM_INPUT */
  double number;                 /* ELEM_NUMBER */
  int32_t attr;                  /* ELEM_ATTR: index in the schema */
  const rt_ir_op_t *op;          /* ELEM_CALL */
  int32_t nargs;
  int32_t args[MAX_ELEM_ARGS];   /* node indices */
} elem_node_t;

typedef struct sig_type_t {
  char code;      /* 'v' void, 'i' signed, 'u' unsigned, 'f' float, 'b' bool */
  uint8_t bits;
  bool pointer;
} sig_type_t;

typedef struct sig_param_t {
  sig_type_t type;
  int32_t tensor; /* pointers: the tensor; ints: whose element count */
} sig_param_t;

struct rt_ir_custom_t {
  rt_op_def_t def;               /* strings point into the arena */
  const rt_ir_op_t *op;
  rt_arena_t arena;
  /* libffi function */
  sig_type_t ret;
  sig_param_t params[MAX_PARAMS];
  int32_t nparams;
  ffi_type *param_types[MAX_PARAMS];
  ffi_cif cif;
  /* the native entry (kernel ABI) */
  ffi_closure *closure;
  ffi_cif entry_cif;
  ffi_type *entry_types[3];
  rt_kernel_fn native;
  /* element expression; root = elem[num_elem - 1] */
  elem_node_t *elem;
  int32_t num_elem;
};

/* ---- names --------------------------------------------------------------- */

static const char *const k_reserved_ns[] = {
    "nn", "image", "vision", "qnn", "dyn", "annotation", "memory", "vm", "device",
    "random", "contrib", "relay", "tvm"};

static rt_status_t check_name(const char *name) {
  if (!name || !*name) return RT_STATUS(INVALID_ARGUMENT, "a custom op needs a name");
  const char *dot = strchr(name, '.');
  if (!dot) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "custom op name '%s' has no namespace: write it as '<namespace>.%s' "
                     "(e.g. 'my.%s'); un-namespaced names are the built-in ops'",
                     name, name, name);
  }
  /* Components: [A-Za-z_][A-Za-z0-9_]*, separated by single dots. */
  const char *p = name;
  while (*p) {
    if (!(isalpha((unsigned char)*p) || *p == '_')) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "custom op name '%s': character %d ('%c') is not allowed (names are "
                       "dot-separated identifiers)", name, (int)(p - name) + 1, *p);
    }
    while (isalnum((unsigned char)*p) || *p == '_') p++;
    if (*p == '.') {
      p++;
      if (!*p) return RT_STATUS(INVALID_ARGUMENT, "custom op name '%s' ends with a dot", name);
    } else if (*p) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "custom op name '%s': character %d ('%c') is not allowed (names are "
                       "dot-separated identifiers)", name, (int)(p - name) + 1, *p);
    }
  }
  size_t ns_len = (size_t)(dot - name);
  for (size_t i = 0; i < RT_COUNTOF(k_reserved_ns); ++i) {
    if (strlen(k_reserved_ns[i]) == ns_len && strncmp(name, k_reserved_ns[i], ns_len) == 0) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "custom op name '%s': the namespace '%s' belongs to the built-in ops",
                       name, k_reserved_ns[i]);
    }
  }
  return RT_OK;
}

/* ---- public types -------------------------------------------------------- */

static bool to_public(const rt_ir_type_t *t, rt_op_type_t *out) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (!t || t->kind != RT_IR_TYPE_TENSOR || t->tensor.rank > RT_TENSOR_MAX_RANK) return false;
  memset(out, 0, sizeof *out);
  out->dtype = t->tensor.dtype;
  out->rank = t->tensor.rank;
  for (int32_t d = 0; d < t->tensor.rank; ++d) out->shape[d] = t->tensor.shape[d];
  return true;
}

static rt_status_t custom_rel(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_custom_t *c = ctx->op->custom;
  RT_ASSERT(c);
  rt_op_type_t in[MAX_INPUTS];
  if (ctx->nargs != c->def.num_inputs || ctx->nargs > MAX_INPUTS) {
    return RT_STATUS(INVALID_ARGUMENT, "%s takes %d inputs, got %d", c->def.name,
                     (int)c->def.num_inputs, (int)ctx->nargs);
  }
  for (int32_t i = 0; i < ctx->nargs; ++i) {
    if (!to_public(ctx->args[i], &in[i])) {
      return RT_STATUS(INVALID_ARGUMENT, "input %d of %s is not a tensor", (int)i + 1,
                       c->def.name);
    }
  }
  rt_op_type_t res;
  memset(&res, 0, sizeof res);
  if (c->def.type_rel) {
    rt_status_t st = c->def.type_rel(c->def.user, (const rt_op_attrs_t *)ctx->attrs, ctx->nargs,
                                     in, &res);
    if (st) return st;
  } else {
    res = in[0];
  }
  if (!rt_dtype_is_valid(res.dtype)) {
    return RT_STATUS(INVALID_ARGUMENT, "the type relation of %s gave no valid dtype",
                     c->def.name);
  }
  if (res.rank < 0 || res.rank > RT_TENSOR_MAX_RANK) {
    return RT_STATUS(INVALID_ARGUMENT, "the type relation of %s gave rank %d", c->def.name,
                     (int)res.rank);
  }
  for (int32_t d = 0; d < res.rank; ++d) {
    if (res.shape[d] < 0 && res.shape[d] != RT_DIM_ANY) {
      return RT_STATUS(INVALID_ARGUMENT, "the type relation of %s gave dim %d = %lld",
                       c->def.name, (int)d, (long long)res.shape[d]);
    }
  }
  return rt_ir_tensor_type(ctx->module, res.dtype, res.rank, res.shape, out_type);
}

/* ---- attributes ---------------------------------------------------------- */

static const rt_attr_value_t *find_attr(const rt_op_attrs_t *attrs, const char *name) {
  const rt_ir_attrs_t *a = (const rt_ir_attrs_t *)attrs;
  if (!a || !name) return NULL;
  for (int32_t i = 0; i < a->count; ++i) {
    if (strcmp(a->keys[i], name) == 0) return &a->values[i];
  }
  return NULL;
}

rt_status_t rt_op_attr_int(const rt_op_attrs_t *attrs, const char *name, int64_t *out_value) {
  const rt_attr_value_t *v = find_attr(attrs, name);
  if (!v) return RT_STATUS(NOT_FOUND, "no attribute '%s'", name ? name : "(null)");
  if (v->kind == RT_ATTR_INT) {
    *out_value = v->i;
  } else if (v->kind == RT_ATTR_BOOL) {
    *out_value = v->b;
  } else {
    return RT_STATUS(INVALID_ARGUMENT, "attribute '%s' is not an int", name);
  }
  return RT_OK;
}

rt_status_t rt_op_attr_float(const rt_op_attrs_t *attrs, const char *name, double *out_value) {
  const rt_attr_value_t *v = find_attr(attrs, name);
  if (!v) return RT_STATUS(NOT_FOUND, "no attribute '%s'", name ? name : "(null)");
  if (v->kind == RT_ATTR_FLOAT) {
    *out_value = v->f;
  } else if (v->kind == RT_ATTR_INT) {
    *out_value = (double)v->i;
  } else {
    return RT_STATUS(INVALID_ARGUMENT, "attribute '%s' is not a float", name);
  }
  return RT_OK;
}

rt_status_t rt_op_attr_bool(const rt_op_attrs_t *attrs, const char *name, bool *out_value) {
  const rt_attr_value_t *v = find_attr(attrs, name);
  if (!v) return RT_STATUS(NOT_FOUND, "no attribute '%s'", name ? name : "(null)");
  if (v->kind == RT_ATTR_BOOL) {
    *out_value = v->b;
  } else if (v->kind == RT_ATTR_INT && (v->i == 0 || v->i == 1)) {
    *out_value = v->i != 0;
  } else {
    return RT_STATUS(INVALID_ARGUMENT, "attribute '%s' is not a bool", name);
  }
  return RT_OK;
}

rt_status_t rt_op_attr_string(const rt_op_attrs_t *attrs, const char *name,
                              const char **out_value) {
  const rt_attr_value_t *v = find_attr(attrs, name);
  if (!v) return RT_STATUS(NOT_FOUND, "no attribute '%s'", name ? name : "(null)");
  if (v->kind != RT_ATTR_STRING) {
    return RT_STATUS(INVALID_ARGUMENT, "attribute '%s' is not a string", name);
  }
  *out_value = v->s;
  return RT_OK;
}

/* ---- signatures ---------------------------------------------------------- */

static void skip_space(const char **p) {
  while (isspace((unsigned char)**p)) (*p)++;
}

static rt_status_t sig_error(const rt_ir_custom_t *c, const char *sig, const char *at,
                             const char *what) {
  return RT_STATUS(INVALID_ARGUMENT, "%s: bad signature \"%s\" at column %d: %s", c->def.name,
                   sig, (int)(at - sig) + 1, what);
}

/* One type at *p: void, bool, i8..i64, u8..u64, f32, f64, then '*'s. */
static rt_status_t parse_sig_type(const rt_ir_custom_t *c, const char *sig, const char **p,
                                  sig_type_t *out) {
  skip_space(p);
  const char *start = *p;
  char word[16];
  size_t n = 0;
  while (isalnum((unsigned char)**p) && n + 1 < sizeof word) word[n++] = *(*p)++;
  word[n] = '\0';
  memset(out, 0, sizeof *out);
  if (strcmp(word, "void") == 0) {
    out->code = 'v';
  } else if (strcmp(word, "bool") == 0) {
    out->code = 'b';
    out->bits = 8;
  } else if ((word[0] == 'i' || word[0] == 'u' || word[0] == 'f') && n >= 2) {
    char *end = NULL;
    long bits = strtol(word + 1, &end, 10);
    bool ok = end && *end == '\0' &&
              (word[0] == 'f' ? (bits == 32 || bits == 64)
                              : (bits == 8 || bits == 16 || bits == 32 || bits == 64));
    if (!ok) return sig_error(c, sig, start, "unknown type (use i8..i64, u8..u64, f32, f64, bool, void)");
    out->code = word[0];
    out->bits = (uint8_t)bits;
  } else {
    return sig_error(c, sig, start, "expected a type (i8..i64, u8..u64, f32, f64, bool, void)");
  }
  skip_space(p);
  if (**p == '*') {
    out->pointer = true;
    (*p)++;
    skip_space(p);
    if (**p == '*') return sig_error(c, sig, *p, "pointers to pointers are not supported");
  }
  if (out->code == 'v' && !out->pointer && n == 0) {
    return sig_error(c, sig, start, "expected a type");
  }
  /* An optional parameter name, for readability. */
  if (isalpha((unsigned char)**p) || **p == '_') {
    while (isalnum((unsigned char)**p) || **p == '_') (*p)++;
  }
  return RT_OK;
}

static ffi_type *ffi_of(const sig_type_t *t) {
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

static rt_status_t parse_signature(rt_ir_custom_t *c) {
  const char *sig = c->def.signature;
  const char *p = sig;
  RT_RETURN_IF_ERROR(parse_sig_type(c, sig, &p, &c->ret));
  if (c->ret.pointer || c->ret.code == 'f') {
    return sig_error(c, sig, sig, "the result must be void or an integer (non-zero = failure)");
  }
  skip_space(&p);
  if (*p != '(') return sig_error(c, sig, p, "expected '(' after the result type");
  p++;
  skip_space(&p);
  const int32_t ntensors = c->def.num_inputs + 1;
  int32_t npointers = 0, last_pointer = -1;
  if (*p == ')') {
    p++;
  } else {
    for (;;) {
      if (c->nparams == MAX_PARAMS) return sig_error(c, sig, p, "more than 32 parameters");
      const char *at = p;
      sig_param_t *prm = &c->params[c->nparams];
      RT_RETURN_IF_ERROR(parse_sig_type(c, sig, &p, &prm->type));
      if (prm->type.pointer) {
        if (npointers == ntensors) {
          char msg[160];
          snprintf(msg, sizeof msg, "more pointer parameters than the op's %d tensors "
                   "(%d inputs, then the output)", (int)ntensors, (int)c->def.num_inputs);
          return sig_error(c, sig, at, msg);
        }
        prm->tensor = npointers++;
        last_pointer = prm->tensor;
      } else if (prm->type.code == 'v') {
        return sig_error(c, sig, at, "a parameter cannot be void");
      } else if (prm->type.code == 'f') {
        return sig_error(c, sig, at, "floating-point scalar parameters are not supported "
                         "(integers receive element counts; pass scalars in tensors)");
      } else {
        prm->tensor = last_pointer >= 0 ? last_pointer : ntensors - 1;
      }
      c->param_types[c->nparams] = ffi_of(&prm->type);
      c->nparams++;
      skip_space(&p);
      if (*p == ',') {
        p++;
        continue;
      }
      if (*p == ')') {
        p++;
        break;
      }
      return sig_error(c, sig, p, "expected ',' or ')'");
    }
  }
  skip_space(&p);
  if (*p) return sig_error(c, sig, p, "unexpected text after ')'");
  if (npointers != ntensors) {
    char msg[160];
    snprintf(msg, sizeof msg, "%d pointer parameters, but the op has %d tensors (%d inputs, "
             "then the output)", (int)npointers, (int)ntensors, (int)c->def.num_inputs);
    return sig_error(c, sig, p, msg);
  }
  if (ffi_prep_cif(&c->cif, FFI_DEFAULT_ABI, (unsigned)c->nparams, ffi_of(&c->ret),
                   c->param_types) != FFI_OK) {
    return RT_STATUS(INTERNAL, "%s: libffi cannot prepare the call \"%s\"", c->def.name, sig);
  }
  return RT_OK;
}

/* ---- element expressions ------------------------------------------------- */

typedef struct elem_parser_t {
  rt_ir_custom_t *c;
  const char *text, *p;
  elem_node_t nodes[MAX_ELEM_NODES];
  int32_t n;
  int32_t depth;
} elem_parser_t;

static rt_status_t elem_error(elem_parser_t *ep, const char *at, const char *what) {
  return RT_STATUS(INVALID_ARGUMENT, "%s: bad element expression \"%s\" at column %d: %s",
                   ep->c->def.name, ep->text, (int)(at - ep->text) + 1, what);
}

static rt_status_t elem_new(elem_parser_t *ep, const char *at, int32_t *out) {
  if (ep->n == MAX_ELEM_NODES) return elem_error(ep, at, "more than 64 nodes");
  memset(&ep->nodes[ep->n], 0, sizeof ep->nodes[ep->n]);
  *out = ep->n++;
  return RT_OK;
}

static rt_status_t elem_parse(elem_parser_t *ep, int32_t *out) {
  skip_space(&ep->p);
  const char *at = ep->p;
  if (++ep->depth > 32) return elem_error(ep, at, "nested more than 32 deep");
  if (*ep->p == '%') {
    ep->p++;
    if (!isdigit((unsigned char)*ep->p)) return elem_error(ep, ep->p, "expected an input number after '%'");
    long k = strtol(ep->p, (char **)&ep->p, 10);
    if (k < 0 || k >= ep->c->def.num_inputs) {
      char msg[96];
      snprintf(msg, sizeof msg, "input %%%ld does not exist (the op has %d inputs, %%0..%%%d)", k,
               (int)ep->c->def.num_inputs, (int)ep->c->def.num_inputs - 1);
      return elem_error(ep, at, msg);
    }
    RT_RETURN_IF_ERROR(elem_new(ep, at, out));
    ep->nodes[*out].kind = ELEM_INPUT;
    ep->nodes[*out].input = (int32_t)k;
  } else if (*ep->p == '@') {
    const char *s = ++ep->p;
    while (isalnum((unsigned char)*ep->p) || *ep->p == '_') ep->p++;
    size_t len = (size_t)(ep->p - s);
    int32_t found = -1;
    for (int32_t a = 0; a < ep->c->def.num_attrs && found < 0; ++a) {
      const rt_op_attr_def_t *ad = &ep->c->def.attrs[a];
      if (strlen(ad->name) == len && strncmp(ad->name, s, len) == 0) found = a;
    }
    if (found < 0) return elem_error(ep, at, "no attribute of that name");
    rt_op_attr_kind_t k = ep->c->def.attrs[found].kind;
    if (k != RT_OP_ATTR_INT && k != RT_OP_ATTR_FLOAT && k != RT_OP_ATTR_BOOL) {
      return elem_error(ep, at, "only int, float and bool attributes can be used");
    }
    RT_RETURN_IF_ERROR(elem_new(ep, at, out));
    ep->nodes[*out].kind = ELEM_ATTR;
    ep->nodes[*out].attr = found;
  } else if (isdigit((unsigned char)*ep->p) || *ep->p == '-' || *ep->p == '.') {
    char *end = NULL;
    double v = strtod(ep->p, &end);
    if (end == ep->p) return elem_error(ep, at, "expected a number");
    ep->p = end;
    if (*ep->p == 'f') ep->p++;
    RT_RETURN_IF_ERROR(elem_new(ep, at, out));
    ep->nodes[*out].kind = ELEM_NUMBER;
    ep->nodes[*out].number = v;
  } else if (isalpha((unsigned char)*ep->p) || *ep->p == '_') {
    const char *s = ep->p;
    while (isalnum((unsigned char)*ep->p) || *ep->p == '_' || *ep->p == '.') ep->p++;
    size_t len = (size_t)(ep->p - s);
    const rt_ir_op_t *op = rt_ir_op_lookup(s, len);
    char name[96];
    snprintf(name, sizeof name, "%.*s", (int)(len < 80 ? len : 80), s);
    char msg[200];
    if (!op || op->id >= RT_OP_COUNT) {
      snprintf(msg, sizeof msg, "'%s' is not a built-in op", name);
      return elem_error(ep, s, msg);
    }
    if (op->pattern != RT_OP_PATTERN_ELEMWISE && op->pattern != RT_OP_PATTERN_BROADCAST) {
      snprintf(msg, sizeof msg, "'%s' is not elementwise or broadcast", name);
      return elem_error(ep, s, msg);
    }
    for (int32_t f = 0; f < op->num_fields; ++f) {
      if (!op->fields[f].default_text) {
        snprintf(msg, sizeof msg, "'%s' has a required attribute '%s' (only ops whose "
                 "attributes all have defaults can be used)", name, op->fields[f].name);
        return elem_error(ep, s, msg);
      }
    }
    skip_space(&ep->p);
    if (*ep->p != '(') return elem_error(ep, ep->p, "expected '(' after the op name");
    ep->p++;
    int32_t args[MAX_ELEM_ARGS];
    int32_t nargs = 0;
    skip_space(&ep->p);
    if (*ep->p != ')') {
      for (;;) {
        if (nargs == MAX_ELEM_ARGS) return elem_error(ep, ep->p, "too many arguments");
        RT_RETURN_IF_ERROR(elem_parse(ep, &args[nargs]));
        nargs++;
        skip_space(&ep->p);
        if (*ep->p == ',') {
          ep->p++;
          continue;
        }
        break;
      }
    }
    if (*ep->p != ')') return elem_error(ep, ep->p, "expected ',' or ')'");
    ep->p++;
    if (nargs != op->num_inputs) {
      snprintf(msg, sizeof msg, "'%s' takes %d arguments, got %d", name, (int)op->num_inputs,
               (int)nargs);
      return elem_error(ep, s, msg);
    }
    RT_RETURN_IF_ERROR(elem_new(ep, at, out));
    elem_node_t *n = &ep->nodes[*out];
    n->kind = ELEM_CALL;
    n->op = op;
    n->nargs = nargs;
    memcpy(n->args, args, (size_t)nargs * sizeof args[0]);
  } else {
    return elem_error(ep, at, *at ? "expected an op call, %K, @attribute or a number"
                                  : "unexpected end");
  }
  ep->depth--;
  return RT_OK;
}

static rt_status_t parse_elem_expr(rt_ir_custom_t *c) {
  elem_parser_t *ep = rt_mem_calloc(1, sizeof *ep);
  if (!ep) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  ep->c = c;
  ep->text = ep->p = c->def.elem_expr;
  int32_t root = 0;
  rt_status_t st = elem_parse(ep, &root);
  if (!st) {
    skip_space(&ep->p);
    if (*ep->p) st = elem_error(ep, ep->p, "unexpected text after the expression");
  }
  if (!st && ep->nodes[root].kind != ELEM_CALL) {
    st = elem_error(ep, ep->text, "the expression must be an op call");
  }
  if (!st) st = rt_arena_alloc_array(&c->arena, (size_t)ep->n, sizeof *c->elem, (void **)&c->elem);
  if (!st) {
    /* Children come before parents, and the root (parsed last) is last. */
    RT_ASSERT(root == ep->n - 1);
    memcpy(c->elem, ep->nodes, (size_t)ep->n * sizeof *c->elem);
    c->num_elem = ep->n;
  }
  rt_mem_free(ep);
  return st;
}

/* ---- kernels ------------------------------------------------------------- */

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

static bool sig_matches(const sig_type_t *t, rt_dtype_t d) {
  if (t->code == 'v') return true; /* void* */
  if (d.lanes != 1) return false;
  switch (t->code) {
    case 'b': return rt_dtype_is_bool(d);
    case 'f': return rt_dtype_is_float(d) && d.code == kDLFloat && d.bits == t->bits;
    case 'i': return rt_dtype_is_int(d) && d.bits == t->bits;
    default: return rt_dtype_is_uint(d) && d.bits == t->bits;
  }
}

static void sig_type_name(const sig_type_t *t, char *buf, size_t size) {
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
static int32_t call_ffi(const rt_ir_custom_t *c, const rt_kernel_arg *args,
                        const rt_kernel_ctx *ctx) {
  union {
    int8_t i8; int16_t i16; int32_t i32; int64_t i64;
    uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
    void *p;
  } vals[MAX_PARAMS];
  void *avalues[MAX_PARAMS];
  for (int32_t k = 0; k < c->nparams; ++k) {
    const sig_param_t *prm = &c->params[k];
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
  ffi_call((ffi_cif *)&c->cif, (void (*)(void))c->def.function, &rv, avalues);
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

#ifdef RT_DEBUG
static bool guard_intact(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != GUARD_BYTE) return false;
  }
  return true;
}

static void shape_text(const rt_kernel_arg *a, char *buf, size_t size) {
  size_t at = 0;
  at += (size_t)snprintf(buf + at, size - at, "(");
  for (int32_t d = 0; d < a->rank && at < size; ++d) {
    at += (size_t)snprintf(buf + at, size - at, "%s%lld", d ? ", " : "", (long long)a->shape[d]);
  }
  if (at < size) snprintf(buf + at, size - at, ")");
}
#endif

static int32_t native_call(const rt_ir_custom_t *c, const rt_kernel_arg *args, int32_t nargs,
                           const rt_kernel_ctx *ctx) {
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
  rt_kernel_arg local[MAX_INPUTS + 1];
  memcpy(local, args, (size_t)nargs * sizeof *args);
  int32_t r = 0;
#ifdef RT_DEBUG
  /* The output goes to a copy followed by a guard zone. */
  const rt_kernel_arg *out = &args[nin];
  size_t bytes = (size_t)numel_of(out) * ((out->dtype.bits * out->dtype.lanes + 7u) / 8u);
  unsigned char *shadow = rt_mem_alloc(bytes + GUARD_BYTES);
  if (!shadow) {
    kernel_error(ctx, "%s: out of memory", c->def.name);
    return 1;
  }
  if (bytes) memcpy(shadow, out->data, bytes);
  memset(shadow + bytes, GUARD_BYTE, GUARD_BYTES);
  local[nin].data = shadow;
#endif
  r = c->def.kernel ? c->def.kernel(local, nargs, ctx) : call_ffi(c, local, ctx);
#ifdef RT_DEBUG
  if (r == 0 && !guard_intact(shadow + bytes, GUARD_BYTES)) {
    char shape[128];
    shape_text(out, shape, sizeof shape);
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
  const rt_ir_custom_t *c = user;
  const rt_kernel_arg *kargs = *(const rt_kernel_arg *const *)args[0];
  int32_t nargs = *(const int32_t *)args[1];
  const rt_kernel_ctx *ctx = *(const rt_kernel_ctx *const *)args[2];
  *(ffi_arg *)ret = (ffi_arg)native_call(c, kargs, nargs, ctx);
}

static rt_status_t make_native(rt_ir_custom_t *c) {
  void *code = NULL;
  c->closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
  if (!c->closure) return RT_STATUS(RESOURCE_EXHAUSTED, "%s: libffi cannot allocate a closure", c->def.name);
  c->entry_types[0] = &ffi_type_pointer;
  c->entry_types[1] = &ffi_type_sint32;
  c->entry_types[2] = &ffi_type_pointer;
  if (ffi_prep_cif(&c->entry_cif, FFI_DEFAULT_ABI, 3, &ffi_type_sint32, c->entry_types) != FFI_OK ||
      ffi_prep_closure_loc(c->closure, &c->entry_cif, native_entry, c, code) != FFI_OK) {
    return RT_STATUS(INTERNAL, "%s: libffi cannot prepare the kernel entry", c->def.name);
  }
  /* The closure's code address is the function (POSIX: object and
   * function pointers have one representation). */
  _Static_assert(sizeof c->native == sizeof code, "pointer sizes");
  memcpy(&c->native, &code, sizeof code);
  return RT_OK;
}

rt_kernel_fn rt_ir_custom_native(const rt_ir_op_t *op) {
  return op && op->custom ? op->custom->native : NULL;
}

static void arg_of(const rt_tensor_t *t, rt_kernel_arg *out) {
  rt_dtype_t d = rt_tensor_dtype(t);
  memset(out, 0, sizeof *out);
  out->data = rt_tensor_data(t);
  out->shape = rt_tensor_shape(t);
  out->strides = NULL;
  out->rank = rt_tensor_rank(t);
  out->dtype.code = d.code;
  out->dtype.bits = d.bits;
  out->dtype.lanes = d.lanes;
}

rt_status_t rt_ir_custom_reference(const rt_ir_op_t *op, const rt_ir_attrs_t *attrs,
                                   int32_t num_inputs, rt_tensor_t *const *inputs,
                                   int32_t num_outputs, rt_tensor_t *const *outputs) {
  const rt_ir_custom_t *c = op->custom;
  RT_ASSERT(c);
  if (num_inputs != c->def.num_inputs || num_outputs != 1) {
    return RT_STATUS(INVALID_ARGUMENT, "%s takes %d tensors and gives one, got %d and %d",
                     op->name, (int)c->def.num_inputs, (int)num_inputs, (int)num_outputs);
  }
  rt_kernel_arg in[MAX_INPUTS], out;
  for (int32_t i = 0; i < num_inputs; ++i) {
    if (!rt_tensor_is_compact(inputs[i])) {
      return RT_STATUS(INTERNAL, "%s: input %d is not compact", op->name, (int)i + 1);
    }
    arg_of(inputs[i], &in[i]);
  }
  arg_of(outputs[0], &out);
  size_t bytes = rt_tensor_nbytes(outputs[0]);
  unsigned char *shadow = NULL;
#ifdef RT_DEBUG
  shadow = rt_mem_alloc(bytes + GUARD_BYTES);
  if (!shadow) return RT_STATUS(RESOURCE_EXHAUSTED, "%s: out of memory", op->name);
  memset(shadow, 0, bytes);
  memset(shadow + bytes, GUARD_BYTE, GUARD_BYTES);
  out.data = shadow;
#endif
  rt_op_call_t call = {c->def.user, op->name, (const rt_op_attrs_t *)attrs, num_inputs, in, &out};
  rt_status_t st = c->def.reference(&call);
  if (st) {
    st = rt_status_annotate(st, "in the reference kernel of %s", op->name);
  }
#ifdef RT_DEBUG
  if (!st && !guard_intact(shadow + bytes, GUARD_BYTES)) {
    char shape[128];
    shape_text(&out, shape, sizeof shape);
    st = RT_STATUS(INTERNAL, "%s: the reference kernel wrote past the end of its output (%zu "
                   "bytes for shape %s): it computed another shape than the type relation's",
                   op->name, bytes, shape);
  }
  if (!st && bytes) memcpy(rt_tensor_data(outputs[0]), shadow, bytes);
  rt_mem_free(shadow);
#else
  (void)shadow;
  (void)bytes;
#endif
  return st;
}

/* ---- registration -------------------------------------------------------- */

static rt_status_t dup_string(rt_arena_t *arena, const char *s, const char **out) {
  if (!s) {
    *out = NULL;
    return RT_OK;
  }
  char *copy = NULL;
  RT_RETURN_IF_ERROR(rt_arena_strndup(arena, s, strlen(s), &copy));
  *out = copy;
  return RT_OK;
}

static rt_attr_kind_t attr_kind(rt_op_attr_kind_t k) {
  switch (k) {
    case RT_OP_ATTR_INT: return RT_ATTR_K_INT;
    case RT_OP_ATTR_FLOAT: return RT_ATTR_K_FLOAT;
    case RT_OP_ATTR_BOOL: return RT_ATTR_K_BOOL;
    case RT_OP_ATTR_STRING: return RT_ATTR_K_STRING;
    case RT_OP_ATTR_INTS: return RT_ATTR_K_INTS;
    default: return RT_ATTR_K_FLOATS;
  }
}

static rt_status_t fill(rt_ir_custom_t *c, const rt_op_def_t *def, rt_attr_field_t **out_fields) {
  rt_arena_t *a = &c->arena;
  c->def = *def;
  RT_RETURN_IF_ERROR(dup_string(a, def->name, &c->def.name));
  RT_RETURN_IF_ERROR(dup_string(a, def->doc ? def->doc : "custom op", &c->def.doc));
  RT_RETURN_IF_ERROR(dup_string(a, def->signature, &c->def.signature));
  RT_RETURN_IF_ERROR(dup_string(a, def->elem_expr, &c->def.elem_expr));
  c->def.attrs = NULL;
  *out_fields = NULL;
  if (def->num_attrs > 0) {
    rt_attr_field_t *fields = NULL;
    rt_op_attr_def_t *adefs = NULL;
    RT_RETURN_IF_ERROR(rt_arena_alloc_array(a, (size_t)def->num_attrs, sizeof *fields, (void **)&fields));
    RT_RETURN_IF_ERROR(rt_arena_alloc_array(a, (size_t)def->num_attrs, sizeof *adefs, (void **)&adefs));
    for (int32_t i = 0; i < def->num_attrs; ++i) {
      const rt_op_attr_def_t *ad = &def->attrs[i];
      if ((unsigned)ad->kind > (unsigned)RT_OP_ATTR_FLOATS) {
        return RT_STATUS(INVALID_ARGUMENT, "%s: attribute %d has an unknown kind %d", def->name,
                         (int)i + 1, (int)ad->kind);
      }
      adefs[i] = *ad;
      RT_RETURN_IF_ERROR(dup_string(a, ad->name ? ad->name : "", &adefs[i].name));
      RT_RETURN_IF_ERROR(dup_string(a, ad->default_text, &adefs[i].default_text));
      memset(&fields[i], 0, sizeof fields[i]);
      fields[i].name = adefs[i].name;
      fields[i].kind = attr_kind(ad->kind);
      fields[i].default_text = adefs[i].default_text;
      fields[i].flags = 0;
    }
    c->def.attrs = adefs;
    *out_fields = fields;
  }
  if (c->def.signature) RT_RETURN_IF_ERROR(parse_signature(c));
  if (c->def.elem_expr) RT_RETURN_IF_ERROR(parse_elem_expr(c));
  if (c->def.kernel || c->def.function) RT_RETURN_IF_ERROR(make_native(c));
  return RT_OK;
}

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

static rt_status_t op_register(const rt_op_def_t *def) {
  if (!def) return RT_STATUS(INVALID_ARGUMENT, "rt_op_register: no definition");
  RT_RETURN_IF_ERROR(check_name(def->name));
  if (def->num_inputs < 1 || def->num_inputs > MAX_INPUTS) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: num_inputs is %d (a custom op takes 1 to %d tensors)",
                     def->name, (int)def->num_inputs, MAX_INPUTS);
  }
  switch (def->pattern) {
    case RT_OP_PATTERN_ELEMWISE:
    case RT_OP_PATTERN_BROADCAST:
    case RT_OP_PATTERN_INJECTIVE:
    case RT_OP_PATTERN_COMM_REDUCE:
    case RT_OP_PATTERN_OUT_ELEMWISE_FUSABLE:
    case RT_OP_PATTERN_OPAQUE:
      break;
    default:
      return RT_STATUS(INVALID_ARGUMENT, "%s: pattern %d is not one a custom op can have",
                       def->name, (int)def->pattern);
  }
  if (!def->reference) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: a custom op needs a reference kernel (the debug "
                     "executor runs it, and optest checks native kernels against it)", def->name);
  }
  if (def->kernel && (def->signature || def->function)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: give either .kernel or .signature + .function, "
                     "not both", def->name);
  }
  if (!def->signature != !def->function) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: .signature and .function go together", def->name);
  }
  if (def->elem_expr && def->pattern != RT_OP_PATTERN_ELEMWISE &&
      def->pattern != RT_OP_PATTERN_BROADCAST) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: an element expression needs the ELEMWISE or "
                     "BROADCAST pattern", def->name);
  }
  if (def->num_attrs < 0 || (def->num_attrs > 0 && !def->attrs)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: bad attribute schema (num_attrs %d)", def->name,
                     (int)def->num_attrs);
  }
  if (rt_ir_op_lookup(def->name, strlen(def->name))) {
    return RT_STATUS(ALREADY_EXISTS, "op '%s' is already registered", def->name);
  }
  rt_ir_custom_t *c = rt_mem_calloc(1, sizeof *c);
  if (!c) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory registering '%s'", def->name);
  rt_arena_initialize(rt_allocator_system(), &c->arena);
  rt_attr_field_t *fields = NULL;
  rt_status_t st = fill(c, def, &fields);
  if (!st) {
    rt_ir_op_t op;
    memset(&op, 0, sizeof op);
    op.name = c->def.name;
    op.num_inputs = def->num_inputs;
    /* Fusion needs an element expression; without one the op runs alone. */
    op.pattern = c->def.elem_expr ? def->pattern : RT_OP_PATTERN_OPAQUE;
    op.fields = fields;
    op.num_fields = def->num_attrs;
    op.type_rel = custom_rel;
    op.doc = c->def.doc;
    op.custom = c;
    const rt_ir_op_t *registered = NULL;
    st = rt_ir_op_register(&op, &registered);
    if (!st) c->op = registered;
  }
  if (st) {
    if (c->closure) ffi_closure_free(c->closure);
    rt_arena_deinitialize(&c->arena);
    rt_mem_free(c);
  }
  return st;
}

bool rt_op_exists(const char *name) {
  return name && rt_ir_op_lookup(name, strlen(name)) != NULL;
}

rt_status_t rt_op_info(const char *name, rt_op_info_t *out_info) {
  const rt_ir_op_t *op = name ? rt_ir_op_lookup(name, strlen(name)) : NULL;
  if (!op) return RT_STATUS(NOT_FOUND, "no op '%s'", name ? name : "(null)");
  memset(out_info, 0, sizeof *out_info);
  out_info->name = op->name;
  out_info->doc = op->doc;
  out_info->num_inputs = op->num_inputs;
  out_info->pattern = op->custom ? op->custom->def.pattern : op->pattern;
  out_info->custom = op->custom != NULL;
  out_info->has_native = op->custom && op->custom->native;
  out_info->has_elem_expr = op->custom && op->custom->elem;
  return RT_OK;
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
    if (!to_public(fn->fn.params[p]->checked_type, &t)) return false;
  }
  return true;
}

/* Is fn's body one call of an op whose arguments are all params of fn
 * (any order, repeats allowed: jit/lower.c reorders the descriptors)? */
static const rt_ir_expr_t *single_call(const rt_ir_expr_t *fn) {
  if (!fn || fn->kind != RT_IR_FUNCTION || !tensor_params(fn)) return NULL;
  const rt_ir_expr_t *body = fn->fn.body;
  if (!body || body->kind != RT_IR_CALL || body->call.callee->kind != RT_IR_OP) return NULL;
  if (body->call.nargs > MAX_INPUTS) return NULL;
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
  if (n == 0 || call->call.nargs > MAX_INPUTS) return RT_OK;
  rt_op_type_t in[MAX_INPUTS], out;
  bool typed = to_public(call->checked_type, &out);
  for (int32_t i = 0; typed && i < call->call.nargs; ++i) {
    typed = to_public(call->call.args[i]->checked_type, &in[i]);
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

rt_status_t rt_ir_custom_kernel_for(const rt_ir_expr_t *fn, const char *target,
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

rt_status_t rt_ir_custom_anchor_for(const rt_ir_expr_t *fn, const char *target,
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

/* The largest node id under root (new nodes get ids after it: type
 * inference and the JIT key memos by id). */
static rt_status_t max_id_visit(void *user, rt_ir_expr_t *e) {
  uint32_t *max = user;
  if (e->id > *max) *max = e->id;
  return RT_OK;
}

typedef struct split_t {
  const rt_ir_expr_t *anchor;
  rt_ir_expr_t *var;
} split_t;

static rt_status_t split_rewrite(void *user, rt_ir_expr_t *original, rt_ir_expr_t *rebuilt,
                                 rt_ir_expr_t **out) {
  (void)rebuilt;
  split_t *s = user;
  if (original == s->anchor) *out = s->var;
  return RT_OK;
}

rt_status_t rt_ir_custom_split(const rt_ir_expr_t *fn, const rt_ir_expr_t *anchor,
                               rt_module_t **out_scratch, const rt_ir_expr_t **out_fn) {
  *out_scratch = NULL;
  *out_fn = NULL;
  uint32_t max_id = fn->id;
  RT_RETURN_IF_ERROR(rt_ir_post_order(rt_mem_current(), (rt_ir_expr_t *)fn, max_id_visit, &max_id));
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_create(rt_mem_current(), &m));
  m->next_id = max_id + 1;
  rt_ir_expr_t **params = NULL;
  split_t s = {anchor, NULL};
  rt_ir_expr_t *body = NULL, *out = NULL;
  rt_status_t st = rt_ir_var(m, anchor->span, "anchor", anchor->checked_type, &s.var);
  if (!st) s.var->checked_type = anchor->checked_type;
  if (!st) st = rt_ir_mutate(m, fn->fn.body, split_rewrite, &s, &body);
  if (!st) {
    st = rt_arena_alloc_array(&m->arena, (size_t)fn->fn.nparams + 1, sizeof *params,
                              (void **)&params);
  }
  if (!st) {
    for (int32_t i = 0; i < fn->fn.nparams; ++i) params[i] = fn->fn.params[i];
    params[fn->fn.nparams] = s.var;
    st = rt_ir_function(m, fn->span, fn->fn.nparams + 1, params, body, NULL, fn->fn.attrs, &out);
  }
  if (!st) st = rt_ir_module_add(m, "main", out);
  if (!st) st = rt_ir_infer_types(m);
  if (st) {
    rt_module_release(m);
    return rt_status_annotate(st, "splitting a fused group at its strategy kernel");
  }
  *out_scratch = m;
  *out_fn = out;
  return RT_OK;
}

typedef struct scan_t {
  bool custom, elem;
  uint32_t max_id;
} scan_t;

static rt_status_t scan_visit(void *user, rt_ir_expr_t *e) {
  scan_t *s = user;
  if (e->id > s->max_id) s->max_id = e->id;
  if (e->kind == RT_IR_CALL && e->call.callee->kind == RT_IR_OP && e->call.callee->op.op->custom) {
    s->custom = true;
    if (e->call.callee->op.op->custom->elem) s->elem = true;
  }
  return RT_OK;
}

bool rt_ir_custom_in_use(int32_t count, rt_ir_expr_t *const *fns) {
  if (g_any_strategy) return true;
  for (int32_t i = 0; i < count; ++i) {
    scan_t s = {false, false, 0};
    /* Out of memory in the walk: assume in use (the safe answer). */
    rt_status_t st = rt_ir_post_order(rt_mem_current(), fns[i], scan_visit, &s);
    if (st) {
      rt_status_free(st);
      return true;
    }
    if (s.custom) return true;
  }
  return false;
}

typedef struct expand_t {
  rt_module_t *m;
} expand_t;

static rt_status_t expand_rewrite(void *user, rt_ir_expr_t *original, rt_ir_expr_t *rebuilt,
                                  rt_ir_expr_t **out) {
  expand_t *x = user;
  if (rebuilt->kind != RT_IR_CALL || rebuilt->call.callee->kind != RT_IR_OP) return RT_OK;
  const rt_ir_custom_t *c = rebuilt->call.callee->op.op->custom;
  if (!c || !c->elem) return RT_OK;
  rt_ir_type_t *t0 = rt_ir_type_resolve(original->call.args[0]->checked_type);
  if (!t0 || t0->kind != RT_IR_TYPE_TENSOR) {
    return RT_STATUS(INTERNAL, "%s: input 1 is not a typed tensor", c->def.name);
  }
  rt_ir_expr_t *built[MAX_ELEM_NODES];
  rt_ir_span_t span = rebuilt->span;
  for (int32_t i = 0; i < c->num_elem; ++i) {
    const elem_node_t *n = &c->elem[i];
    switch (n->kind) {
      case ELEM_INPUT:
        built[i] = rebuilt->call.args[n->input];
        break;
      case ELEM_NUMBER:
        RT_RETURN_IF_ERROR(rt_ir_scalar(x->m, span, t0->tensor.dtype, n->number, &built[i]));
        break;
      case ELEM_ATTR: {
        const rt_ir_attrs_t *attrs = rebuilt->call.attrs;
        const rt_attr_value_t *v = attrs && n->attr < attrs->count ? &attrs->values[n->attr] : NULL;
        double value = 0;
        if (v && v->kind == RT_ATTR_FLOAT) {
          value = v->f;
        } else if (v && v->kind == RT_ATTR_INT) {
          value = (double)v->i;
        } else if (v && v->kind == RT_ATTR_BOOL) {
          value = v->b ? 1.0 : 0.0;
        } else {
          return RT_STATUS(INVALID_ARGUMENT, "%s: attribute '%s' has no numeric value",
                           c->def.name, c->def.attrs[n->attr].name);
        }
        RT_RETURN_IF_ERROR(rt_ir_scalar(x->m, span, t0->tensor.dtype, value, &built[i]));
        break;
      }
      case ELEM_CALL: {
        rt_ir_expr_t *ref = NULL, *args[MAX_ELEM_ARGS];
        for (int32_t a = 0; a < n->nargs; ++a) args[a] = built[n->args[a]];
        RT_RETURN_IF_ERROR(rt_ir_op_ref(x->m, span, n->op, &ref));
        RT_RETURN_IF_ERROR(rt_ir_call(x->m, span, ref, n->nargs, args, NULL, &built[i]));
        break;
      }
    }
  }
  *out = built[c->num_elem - 1];
  return RT_OK;
}

rt_status_t rt_ir_custom_expand(const rt_ir_expr_t *fn, rt_module_t **out_scratch,
                                const rt_ir_expr_t **out_fn) {
  *out_scratch = NULL;
  *out_fn = fn;
  scan_t s = {false, false, fn->id};
  RT_RETURN_IF_ERROR(rt_ir_post_order(rt_mem_current(), (rt_ir_expr_t *)fn, scan_visit, &s));
  if (!s.elem) return RT_OK;
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_create(rt_mem_current(), &m));
  /* Ids after the function's own: type inference and the JIT key memos
   * (and constant names) by id. */
  m->next_id = s.max_id + 1;
  expand_t x = {m};
  rt_ir_expr_t *root = NULL;
  rt_status_t st = rt_ir_mutate(m, (rt_ir_expr_t *)fn, expand_rewrite, &x, &root);
  if (!st) st = rt_ir_module_add(m, "main", root);
  if (!st) st = rt_ir_infer_types(m);
  if (st) {
    rt_module_release(m);
    return rt_status_annotate(st, "expanding the element expressions of custom ops");
  }
  *out_scratch = m;
  *out_fn = root;
  return RT_OK;
}
