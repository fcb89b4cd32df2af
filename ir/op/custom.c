/* Custom ops (include/rt/op.h), the IR side: the record (ir/op/custom.h)
 * and what needs no more than the IR.
 *
 * rt_ir_custom_create checks a definition and copies it into an
 * rt_ir_custom_t (one rt_mem_alloc'd record and an arena per op, never
 * freed once published: ops live until the process exits), parsing its
 * native signature and its element expression (ir/op/custom_expr.c);
 * rt_ir_custom_publish registers an rt_ir_op_t with the op table
 * (ir/op/table.c), whose mutex makes registration and lookup thread-safe.
 * rt_op_register (jit/custom.c) makes the native entry between the two.
 * The op's type relation is custom_rel, which shows the user's relation
 * public tensor types. The public attribute accessors (rt_op_attr_*),
 * rt_op_exists and rt_op_info are here too. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/op/custom.h"
#include "runtime/assert.h"
#include "runtime/mem.h"

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

bool rt_ir_custom_public_type(const rt_ir_type_t *t, rt_op_type_t *out) {
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
  rt_op_type_t in[RT_IR_CUSTOM_MAX_INPUTS];
  if (ctx->nargs != c->def.num_inputs || ctx->nargs > RT_IR_CUSTOM_MAX_INPUTS) {
    return RT_STATUS(INVALID_ARGUMENT, "%s takes %d inputs, got %d", c->def.name,
                     (int)c->def.num_inputs, (int)ctx->nargs);
  }
  for (int32_t i = 0; i < ctx->nargs; ++i) {
    if (!rt_ir_custom_public_type(ctx->args[i], &in[i])) {
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
                                  rt_ir_sig_type_t *out) {
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
      if (c->nparams == RT_IR_CUSTOM_MAX_PARAMS) return sig_error(c, sig, p, "more than 32 parameters");
      const char *at = p;
      rt_ir_sig_param_t *prm = &c->params[c->nparams];
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
  return RT_OK;
}

/* ---- output guards ------------------------------------------------------- */

bool rt_ir_custom_guard_intact(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != RT_IR_CUSTOM_GUARD_BYTE) return false;
  }
  return true;
}

void rt_ir_custom_shape_text(const rt_kernel_arg *a, char *buf, size_t size) {
  size_t at = 0;
  at += (size_t)snprintf(buf + at, size - at, "(");
  for (int32_t d = 0; d < a->rank && at < size; ++d) {
    at += (size_t)snprintf(buf + at, size - at, "%s%lld", d ? ", " : "", (long long)a->shape[d]);
  }
  if (at < size) snprintf(buf + at, size - at, ")");
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
  if (c->def.elem_expr) RT_RETURN_IF_ERROR(rt_ir_custom_parse_elem(c));
  return RT_OK;
}

rt_status_t rt_ir_custom_create(const rt_op_def_t *def, rt_ir_custom_t **out) {
  *out = NULL;
  if (!def) return RT_STATUS(INVALID_ARGUMENT, "rt_op_register: no definition");
  RT_RETURN_IF_ERROR(check_name(def->name));
  if (def->num_inputs < 1 || def->num_inputs > RT_IR_CUSTOM_MAX_INPUTS) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: num_inputs is %d (a custom op takes 1 to %d tensors)",
                     def->name, (int)def->num_inputs, RT_IR_CUSTOM_MAX_INPUTS);
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
  rt_status_t st = fill(c, def, &c->fields);
  if (st) {
    rt_ir_custom_destroy(c);
    return st;
  }
  *out = c;
  return RT_OK;
}

rt_status_t rt_ir_custom_publish(rt_ir_custom_t *c) {
  rt_ir_op_t op;
  memset(&op, 0, sizeof op);
  op.name = c->def.name;
  op.num_inputs = c->def.num_inputs;
  /* Fusion needs an element expression; without one the op runs alone. */
  op.pattern = c->def.elem_expr ? c->def.pattern : RT_OP_PATTERN_OPAQUE;
  op.fields = c->fields;
  op.num_fields = c->def.num_attrs;
  op.type_rel = custom_rel;
  op.doc = c->def.doc;
  op.custom = c;
  const rt_ir_op_t *registered = NULL;
  RT_RETURN_IF_ERROR(rt_ir_op_register(&op, &registered));
  c->op = registered;
  return RT_OK;
}

void rt_ir_custom_destroy(rt_ir_custom_t *c) {
  if (!c) return;
  rt_arena_deinitialize(&c->arena);
  rt_mem_free(c);
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

/* ---- where custom ops are called ----------------------------------------- */

static rt_status_t called_visit(void *user, rt_ir_expr_t *e) {
  bool *custom = user;
  if (e->kind == RT_IR_CALL && e->call.callee->kind == RT_IR_OP && e->call.callee->op.op->custom) {
    *custom = true;
  }
  return RT_OK;
}

bool rt_ir_custom_called(int32_t count, rt_ir_expr_t *const *fns) {
  for (int32_t i = 0; i < count; ++i) {
    bool custom = false;
    /* Out of memory in the walk: assume called (the safe answer). */
    rt_status_t st = rt_ir_post_order(rt_mem_current(), fns[i], called_visit, &custom);
    if (st) {
      rt_status_free(st);
      return true;
    }
    if (custom) return true;
  }
  return false;
}
