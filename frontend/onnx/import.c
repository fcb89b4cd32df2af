/* The ONNX importer's core: protobuf unpacking (protobuf-c, generated from
 * onnx.proto), the opset check, graph inputs, initializers and outputs,
 * the node-by-node conversion, and the helpers converters share; tensors
 * from TensorProto are tensor.c.
 *
 * Algorithm: ONNX graphs are topologically sorted, so one pass over the
 * nodes suffices. A hash table maps each ONNX value name to the IR node
 * that computes it; initializers become constants (also when they are
 * listed as graph inputs, as older exporters do), the other inputs become
 * @main's parameters, with `dim_param` and unknown dims as `?`. Every node
 * built is typed at once (its op's type relation), so converters see
 * their inputs' shapes, and small constant calls are folded at once
 * (fold.c, with the evaluator the caller handed in), so shape subgraphs
 * become constants.
 *
 * Diagnostics: the module's source is a synthetic listing with one line
 * per ONNX node ("node 3: Conv 'conv1' -> y"), and each IR node converted
 * from an ONNX node has that line as its span, so later errors (type
 * inference, executors) point at the ONNX node.
 *
 * Invariants: every error path releases what it made; nothing is printed;
 * the protobuf message is freed before returning. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (cx->oom = true)
#include "runtime/uthash_rt.h"

#include "frontend/onnx/fold.h"
#include "frontend/onnx/onnx_impl.h"
#include "runtime/file.h"
#include "runtime/strbuf.h"

typedef struct value_entry {
  const char *name;
  rt_ir_expr_t *expr;
  UT_hash_handle hh;
} value_entry;

/* ---- errors -------------------------------------------------------------- */

rt_status_t rt_onnx_node_error(const rt_onnx_ctx_t *cx, rt_status_code_t code,
                               const char *format, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, format);
  vsnprintf(msg, sizeof msg, format, ap);
  va_end(ap);
  const Onnx__NodeProto *n = cx->node;
  if (!n) return rt_status_create(code, __FILE__, __LINE__, "%s: %s", cx->path, msg);
  return rt_status_create(code, __FILE__, __LINE__,
                          "%s: node %d '%s' (%s, opset %lld): %s", cx->path,
                          (int)cx->node_index, n->name ? n->name : "",
                          n->op_type ? n->op_type : "", (long long)cx->opset, msg);
}

/* ---- attributes ---------------------------------------------------------- */

const Onnx__AttributeProto *rt_onnx_attr(const rt_onnx_ctx_t *cx, const char *name) {
  const Onnx__NodeProto *n = cx->node;
  for (size_t i = 0; n && i < n->n_attribute; ++i) {
    const Onnx__AttributeProto *a = n->attribute[i];
    if (a && a->name && strcmp(a->name, name) == 0) return a;
  }
  return NULL;
}

int64_t rt_onnx_attr_int(const rt_onnx_ctx_t *cx, const char *name, int64_t dflt) {
  const Onnx__AttributeProto *a = rt_onnx_attr(cx, name);
  if (!a) return dflt;
  if (a->has_i) return a->i;
  if (a->has_f) return (int64_t)a->f;
  return dflt;
}

double rt_onnx_attr_float(const rt_onnx_ctx_t *cx, const char *name, double dflt) {
  const Onnx__AttributeProto *a = rt_onnx_attr(cx, name);
  if (!a) return dflt;
  if (a->has_f) return a->f;
  if (a->has_i) return (double)a->i;
  return dflt;
}

const char *rt_onnx_attr_string(const rt_onnx_ctx_t *cx, const char *name,
                                const char *dflt) {
  const Onnx__AttributeProto *a = rt_onnx_attr(cx, name);
  if (!a || !a->has_s) return dflt;
  char *s = NULL;
  if (rt_arena_strndup(&cx->m->arena, (const char *)a->s.data, a->s.len, &s)) return dflt;
  return s;
}

bool rt_onnx_attr_ints(const rt_onnx_ctx_t *cx, const char *name, int32_t *out_n,
                       const int64_t **out_v) {
  const Onnx__AttributeProto *a = rt_onnx_attr(cx, name);
  if (!a || a->n_ints > INT32_MAX) return false;
  if (a->n_ints == 0 && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS) return false;
  *out_n = (int32_t)a->n_ints;
  *out_v = a->ints;
  return true;
}

/* ---- types --------------------------------------------------------------- */

const rt_ir_type_t *rt_onnx_type(const rt_ir_expr_t *e) {
  if (!e || !e->checked_type) return NULL;
  const rt_ir_type_t *t = rt_ir_type_resolve(e->checked_type);
  return t->kind == RT_IR_TYPE_TENSOR ? t : NULL;
}

rt_status_t rt_onnx_tensor_type(const rt_onnx_ctx_t *cx, const rt_ir_expr_t *e,
                                int32_t i, const rt_ir_type_t **out) {
  if (!e) return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT, "input %d is missing", (int)i);
  const rt_ir_type_t *t = rt_onnx_type(e);
  if (!t) return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT, "input %d is not a tensor", (int)i);
  *out = t;
  return RT_OK;
}

bool rt_onnx_static_shape(const rt_ir_type_t *t) {
  for (int32_t d = 0; d < t->tensor.rank; ++d) {
    if (t->tensor.shape[d] < 0) return false;
  }
  return true;
}

bool rt_onnx_dtype(int32_t onnx_type, rt_dtype_t *out) {
  switch (onnx_type) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: *out = RT_DTYPE_FLOAT32; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: *out = RT_DTYPE_UINT8; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: *out = RT_DTYPE_INT8; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16: *out = RT_DTYPE_UINT16; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: *out = RT_DTYPE_INT16; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: *out = RT_DTYPE_INT32; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: *out = RT_DTYPE_INT64; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: *out = RT_DTYPE_BOOL; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16: *out = RT_DTYPE_FLOAT16; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: *out = RT_DTYPE_FLOAT64; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: *out = RT_DTYPE_UINT32; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: *out = RT_DTYPE_UINT64; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16: *out = RT_DTYPE_BFLOAT16; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__STRING: *out = RT_DTYPE_STRING; return true;
    default: return false;
  }
}

const char *rt_onnx_type_name(int32_t t) {
  switch (t) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__STRING: return "string";
    case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64: return "complex64";
    case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128: return "complex128";
    default: return "unknown";
  }
}

/* ---- building ------------------------------------------------------------ */

/* Types a freshly built op call with its relation (its args are typed). */
static rt_status_t type_call(rt_onnx_ctx_t *cx, rt_ir_expr_t *e) {
  const rt_ir_op_t *op = e->call.callee->op.op;
  rt_ir_type_t *argv[64];
  if (e->call.nargs > (int32_t)RT_COUNTOF(argv)) {
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED, "%s: too many arguments", op->name);
  }
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    rt_ir_type_t *t = e->call.args[i]->checked_type;
    if (!t) return rt_onnx_node_error(cx, RT_STATUS_INTERNAL, "%s: untyped argument", op->name);
    argv[i] = rt_ir_type_resolve(t);
  }
  rt_ir_rel_ctx_t rc = {cx->m, op, e->call.attrs, e->call.nargs, argv};
  rt_ir_type_t *out = NULL;
  rt_status_t st = op->type_rel(&rc, &out);
  if (st) {
    rt_status_t err = rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT,
                                         "inconsistent types: %s", rt_status_message(st));
    rt_status_free(st);
    return err;
  }
  e->checked_type = out;
  return RT_OK;
}

rt_status_t rt_onnx_call(rt_onnx_ctx_t *cx, const char *name, int32_t nargs,
                         rt_ir_expr_t *const *args, rt_ir_expr_t **out, ...) {
  const rt_ir_op_t *op = rt_ir_op_lookup(name, strlen(name));
  if (!op) return rt_onnx_node_error(cx, RT_STATUS_INTERNAL, "no op %s", name);
  for (int32_t i = 0; i < nargs; ++i) {
    if (!args[i]) {
      return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT,
                                "a required input of %s is missing", name);
    }
  }
  if (cx->oom) {
    cx->oom = false;
    return rt_onnx_node_error(cx, RT_STATUS_RESOURCE_EXHAUSTED, "out of memory making the "
                              "attributes of %s", name);
  }
  const char *keys[16];
  rt_attr_value_t values[16];
  int32_t count = 0;
  va_list ap;
  va_start(ap, out);
  rt_status_t st = RT_OK;
  for (;;) {
    const char *k = va_arg(ap, const char *);
    if (!k) break;
    const char *v = va_arg(ap, const char *);
    if (count == (int32_t)RT_COUNTOF(keys)) {
      st = rt_onnx_node_error(cx, RT_STATUS_INTERNAL, "too many attributes");
      break;
    }
    keys[count] = k;
    st = rt_attr_value_parse(&cx->m->arena, v, &values[count]);
    if (st) break;
    count++;
  }
  va_end(ap);
  RT_RETURN_IF_ERROR(st);
  rt_ir_attrs_t *attrs = NULL;
  rt_ir_expr_t *ref = NULL, *call = NULL;
  st = rt_ir_op_attrs(cx->m, cx->span, op, count, keys, values, &attrs);
  if (st) {
    rt_status_code_t code = rt_status_code(st) == RT_STATUS_RESOURCE_EXHAUSTED
                                ? RT_STATUS_RESOURCE_EXHAUSTED
                                : RT_STATUS_INVALID_ARGUMENT;
    rt_status_t err = rt_onnx_node_error(cx, code, "%s", rt_status_message(st));
    rt_status_free(st);
    return err;
  }
  RT_RETURN_IF_ERROR(rt_ir_op_ref(cx->m, cx->span, op, &ref));
  RT_RETURN_IF_ERROR(rt_ir_call(cx->m, cx->span, ref, nargs, args, attrs, &call));
  RT_RETURN_IF_ERROR(type_call(cx, call));
  return rt_onnx_fold(cx, call, out);
}

rt_status_t rt_onnx_call1(rt_onnx_ctx_t *cx, const char *name, rt_ir_expr_t *a,
                          rt_ir_expr_t **out) {
  return rt_onnx_call(cx, name, 1, &a, out, NULL);
}

rt_status_t rt_onnx_call2(rt_onnx_ctx_t *cx, const char *name, rt_ir_expr_t *a,
                          rt_ir_expr_t *b, rt_ir_expr_t **out) {
  rt_ir_expr_t *args[2] = {a, b};
  return rt_onnx_call(cx, name, 2, args, out, NULL);
}

rt_status_t rt_onnx_tuple(rt_onnx_ctx_t *cx, int32_t n, rt_ir_expr_t *const *fields,
                          rt_ir_expr_t **out) {
  rt_ir_expr_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_ir_tuple(cx->m, cx->span, n, fields, &t));
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&cx->m->arena, (size_t)(n ? n : 1),
                                          sizeof(rt_ir_type_t *), &p));
  rt_ir_type_t **ft = p;
  for (int32_t i = 0; i < n; ++i) ft[i] = fields[i]->checked_type;
  RT_RETURN_IF_ERROR(rt_ir_tuple_type(cx->m, n, ft, &t->checked_type));
  *out = t;
  return RT_OK;
}

rt_status_t rt_onnx_get_item(rt_onnx_ctx_t *cx, rt_ir_expr_t *t, int32_t index,
                             rt_ir_expr_t **out) {
  rt_ir_type_t *tt = rt_ir_type_resolve(t->checked_type);
  if (tt->kind != RT_IR_TYPE_TUPLE || index >= tt->tuple.count) {
    return rt_onnx_node_error(cx, RT_STATUS_INTERNAL, "bad tuple projection");
  }
  rt_ir_expr_t *g = NULL;
  RT_RETURN_IF_ERROR(rt_ir_get_item(cx->m, cx->span, t, index, &g));
  g->checked_type = tt->tuple.fields[index];
  *out = g;
  return RT_OK;
}

rt_status_t rt_onnx_constant(rt_onnx_ctx_t *cx, rt_tensor_t *t, rt_ir_expr_t **out) {
  rt_ir_expr_t *c = NULL;
  RT_RETURN_IF_ERROR(rt_ir_constant(cx->m, cx->span, t, &c));
  RT_RETURN_IF_ERROR(rt_ir_tensor_type(cx->m, rt_tensor_dtype(t), rt_tensor_rank(t),
                                       rt_tensor_shape(t), &c->checked_type));
  *out = c;
  return RT_OK;
}

rt_status_t rt_onnx_scalar(rt_onnx_ctx_t *cx, rt_dtype_t dtype, double value,
                           rt_ir_expr_t **out) {
  rt_ir_expr_t *c = NULL;
  RT_RETURN_IF_ERROR(rt_ir_scalar(cx->m, cx->span, dtype, value, &c));
  RT_RETURN_IF_ERROR(rt_ir_tensor_type(cx->m, dtype, 0, NULL, &c->checked_type));
  *out = c;
  return RT_OK;
}

rt_status_t rt_onnx_const_i64(rt_onnx_ctx_t *cx, int32_t rank, int64_t n,
                              const int64_t *v, rt_ir_expr_t **out) {
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, RT_DTYPE_INT64, rank, &n, &t));
  if (n) memcpy(rt_tensor_data(t), v, (size_t)n * sizeof(int64_t));
  rt_status_t st = rt_onnx_constant(cx, t, out);
  rt_tensor_release(t);
  return st;
}

static const char *arena_text(rt_onnx_ctx_t *cx, rt_strbuf_t *b) {
  char *s = NULL;
  rt_status_t st = b->failed ? RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory")
                             : rt_arena_strndup(&cx->m->arena, b->data ? b->data : "",
                                                b->data ? b->len : 0, &s);
  if (st) {
    rt_status_free(st);
    s = NULL;
    cx->oom = true; /* rt_onnx_call reports it */
  }
  rt_strbuf_deinitialize(b);
  return s ? s : "None";
}

const char *rt_onnx_ints_text(rt_onnx_ctx_t *cx, int32_t n, const int64_t *v) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_strbuf_putc(&b, '[');
  for (int32_t i = 0; i < n; ++i) rt_strbuf_printf(&b, "%s%lld", i ? ", " : "", (long long)v[i]);
  rt_strbuf_putc(&b, ']');
  return arena_text(cx, &b);
}

const char *rt_onnx_float_text(rt_onnx_ctx_t *cx, double v) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  if (isinf(v)) {
    rt_strbuf_printf(&b, "%s3.4028234663852886e+38f", v < 0 ? "-" : "");
  } else {
    rt_strbuf_printf(&b, "%.17gf", v);
  }
  return arena_text(cx, &b);
}

const char *rt_onnx_int_text(rt_onnx_ctx_t *cx, int64_t v) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_strbuf_printf(&b, "%lld", (long long)v);
  return arena_text(cx, &b);
}

const char *rt_onnx_str_text(rt_onnx_ctx_t *cx, const char *s) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_strbuf_printf(&b, "\"%s\"", s);
  return arena_text(cx, &b);
}

/* ---- constants ----------------------------------------------------------- */

bool rt_onnx_is_const(const rt_ir_expr_t *e) { return e && e->kind == RT_IR_CONSTANT; }

bool rt_onnx_is_runtime(const rt_ir_expr_t *e) { return e && e->kind != RT_IR_CONSTANT; }

static bool declared_rank(const Onnx__ValueInfoProto *vi, const char *name, int32_t *out_rank) {
  if (!vi || !vi->name || strcmp(vi->name, name) != 0) return false;
  const Onnx__TypeProto *tp = vi->type;
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type ||
      !tp->tensor_type->shape || tp->tensor_type->shape->n_dim > RT_TENSOR_MAX_RANK) {
    return false;
  }
  *out_rank = (int32_t)tp->tensor_type->shape->n_dim;
  return true;
}

bool rt_onnx_output_rank(const rt_onnx_ctx_t *cx, int32_t k, int32_t *out_rank) {
  const Onnx__GraphProto *g = cx->graph;
  if (!g || !cx->node || k < 0 || (size_t)k >= cx->node->n_output) return false;
  const char *name = cx->node->output[k];
  if (!name || !*name) return false;
  for (size_t i = 0; i < g->n_output; ++i) {
    if (declared_rank(g->output[i], name, out_rank)) return true;
  }
  for (size_t i = 0; i < g->n_value_info; ++i) {
    if (declared_rank(g->value_info[i], name, out_rank)) return true;
  }
  return false;
}

rt_status_t rt_onnx_const_ints(const rt_onnx_ctx_t *cx, const rt_ir_expr_t *e,
                               const char *what, int32_t cap, int64_t *out_v,
                               int32_t *out_n) {
  if (!rt_onnx_is_const(e)) {
    if (e && e->kind == RT_IR_VAR) {
      return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED,
                                "%s must be a constant (or computable from static "
                                "shapes); a value known only at run time is not supported: it "
                                "is graph input '%s' (bind it as a constant when loading: "
                                "--const-input %s=FILE.npy)",
                                what, e->var.name, e->var.name);
    }
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED,
                              "%s must be a constant (or computable from static "
                              "shapes); a value known only at run time is not supported "
                              "(binding the graph inputs it depends on when loading, "
                              "--const-input NAME=FILE.npy, or their `?` dims, --shape "
                              "NAME=DIMS, may make it constant)",
                              what);
  }
  const rt_tensor_t *t = e->constant.value;
  rt_dtype_t dt = rt_tensor_dtype(t);
  if (rt_tensor_rank(t) > 1 || !(rt_dtype_is_int(dt) || rt_dtype_is_uint(dt))) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT,
                              "%s must be a 0-d or 1-d integer tensor", what);
  }
  int64_t n = rt_tensor_numel(t);
  if (n > cap) {
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED, "%s has %lld values (at most %d)",
                              what, (long long)n, (int)cap);
  }
  for (int64_t i = 0; i < n; ++i) {
    double d = rt_tensor_get_f64(t, i);
    if (rt_dtype_equal(dt, RT_DTYPE_INT64)) {
      out_v[i] = ((const int64_t *)rt_tensor_data(t))[i];
    } else {
      out_v[i] = (int64_t)d;
    }
  }
  *out_n = (int32_t)n;
  return RT_OK;
}

rt_status_t rt_onnx_const_float(const rt_onnx_ctx_t *cx, const rt_ir_expr_t *e,
                                const char *what, double *out) {
  if (e && e->kind == RT_IR_VAR) {
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED,
                              "%s must be a constant with one value (a dynamic %s is "
                              "not supported): it is graph input '%s' (bind it as a "
                              "constant when loading: --const-input %s=FILE.npy)",
                              what, what, e->var.name, e->var.name);
  }
  if (!rt_onnx_is_const(e) || rt_tensor_numel(e->constant.value) != 1) {
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED,
                              "%s must be a constant with one value (a dynamic %s is "
                              "not supported)", what, what);
  }
  *out = rt_tensor_get_f64(e->constant.value, 0);
  return RT_OK;
}

/* ---- the graph ------------------------------------------------------------ */

/* A value binding replaced inside a subgraph, restored when it ends. */
typedef struct undo_entry {
  value_entry *v;
  rt_ir_expr_t *old; /* NULL: the name was not defined before */
} undo_entry;

typedef struct import_state {
  rt_onnx_ctx_t cx; /* first: converters reach the state from their cx */
  bool oom;
  int32_t depth;    /* subgraphs being converted (If branches, Loop bodies) */
  undo_entry *undo; /* rt_mem_alloc'd journal of bindings made inside them */
  int32_t num_undo, cap_undo;
} import_state;

static rt_status_t journal(import_state *is, value_entry *v, rt_ir_expr_t *old) {
  if (is->depth == 0) return RT_OK;
  if (is->num_undo == is->cap_undo) {
    int32_t cap = is->cap_undo ? 2 * is->cap_undo : 64;
    undo_entry *u = rt_mem_realloc(is->undo, (size_t)cap * sizeof *u);
    if (!u) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory (subgraph scope)");
    is->undo = u;
    is->cap_undo = cap;
  }
  is->undo[is->num_undo++] = (undo_entry){v, old};
  return RT_OK;
}

static rt_status_t value_set(import_state *is, const char *name, rt_ir_expr_t *e) {
  rt_onnx_ctx_t *cxp = &is->cx;
  import_state *cx = is; /* for uthash_nonfatal_oom */
  value_entry *v = NULL;
  HASH_FIND_STR(cxp->values, name, v);
  if (v) {
    RT_RETURN_IF_ERROR(journal(is, v, v->expr));
    v->expr = e; /* SSA is required, but a later definition simply wins */
    return RT_OK;
  }
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc(&cxp->m->arena, sizeof(value_entry), &p));
  v = p;
  memset(v, 0, sizeof *v);
  char *copy = NULL;
  RT_RETURN_IF_ERROR(rt_arena_strndup(&cxp->m->arena, name, strlen(name), &copy));
  v->name = copy;
  v->expr = e;
  cx->oom = false;
  HASH_ADD_KEYPTR(hh, cxp->values, v->name, strlen(v->name), v);
  if (cx->oom) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  return journal(is, v, NULL);
}

static rt_ir_expr_t *value_get(import_state *is, const char *name) {
  value_entry *v = NULL;
  HASH_FIND_STR(is->cx.values, name, v);
  return v ? v->expr : NULL;
}

static rt_status_t input_type(import_state *is, const Onnx__ValueInfoProto *vi,
                              rt_ir_type_t **out);

/* A sequence or optional graph input: List[T] / Option[T] of the element's
 * declared type (a tensor, or for an optional, a sequence of tensors); an
 * element tensor declared without a shape is `_`, an element type that
 * type inference may settle from the ops that use it (a SequenceInsert). */
static rt_status_t adt_input_type(import_state *is, const char *name, const Onnx__TypeProto *tp,
                                  int depth, rt_ir_type_t **out) {
  rt_onnx_ctx_t *cx = &is->cx;
  bool seq = tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
  const Onnx__TypeProto *et = seq ? (tp->sequence_type ? tp->sequence_type->elem_type : NULL)
                                  : (tp->optional_type ? tp->optional_type->elem_type : NULL);
  rt_ir_type_t *elem = NULL;
  if (et && et->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && et->tensor_type &&
      !et->tensor_type->shape) {
    rt_dtype_t dt;
    if (!rt_onnx_dtype(et->tensor_type->elem_type, &dt)) {
      return RT_STATUS(UNIMPLEMENTED, "%s: graph input '%s' has unsupported element type %s (%d)",
                       cx->path, name, rt_onnx_type_name(et->tensor_type->elem_type),
                       (int)et->tensor_type->elem_type);
    }
    RT_RETURN_IF_ERROR(rt_ir_incomplete_type(cx->m, &elem));
  } else if (et && et->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
    Onnx__ValueInfoProto inner = ONNX__VALUE_INFO_PROTO__INIT;
    inner.name = (char *)name;
    inner.type = (Onnx__TypeProto *)et;
    RT_RETURN_IF_ERROR(input_type(is, &inner, &elem));
  } else if (et && !seq && depth == 0 && et->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE) {
    RT_RETURN_IF_ERROR(adt_input_type(is, name, et, depth + 1, &elem));
  } else {
    return RT_STATUS(UNIMPLEMENTED,
                     "%s: graph input '%s' is a %s of an element type that is not supported "
                     "(tensors, and sequences of tensors in an optional, are)",
                     cx->path, name, seq ? "sequence" : "optional");
  }
  return rt_ir_adt_type(cx->m, seq ? RT_IR_TYPE_LIST : RT_IR_TYPE_OPTION, elem, out);
}

/* A graph input's declared type: dim_param and missing dims become `?`. */
static rt_status_t input_type(import_state *is, const Onnx__ValueInfoProto *vi,
                              rt_ir_type_t **out) {
  rt_onnx_ctx_t *cx = &is->cx;
  const char *name = vi->name ? vi->name : "";
  const Onnx__TypeProto *tp = vi->type;
  if (tp && (tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ||
             tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE)) {
    return adt_input_type(is, name, tp, 0, out);
  }
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) {
    return RT_STATUS(UNIMPLEMENTED,
                     "%s: graph input '%s' is not a tensor, a sequence or an optional (map "
                     "inputs are not supported)", cx->path, name);
  }
  const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
  rt_dtype_t dt;
  if (!rt_onnx_dtype(tt->elem_type, &dt)) {
    return RT_STATUS(UNIMPLEMENTED, "%s: graph input '%s' has unsupported element type %s (%d)",
                     cx->path, name, rt_onnx_type_name(tt->elem_type), (int)tt->elem_type);
  }
  if (!tt->shape) {
    return RT_STATUS(UNIMPLEMENTED, "%s: graph input '%s' has no shape (its rank is needed)",
                     cx->path, name);
  }
  if (tt->shape->n_dim > RT_TENSOR_MAX_RANK) {
    return RT_STATUS(UNIMPLEMENTED, "%s: graph input '%s' has rank %zu", cx->path, name,
                     tt->shape->n_dim);
  }
  int64_t shape[RT_TENSOR_MAX_RANK];
  for (size_t d = 0; d < tt->shape->n_dim; ++d) {
    const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[d];
    shape[d] = dim && dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                       dim->dim_value >= 0
                   ? dim->dim_value
                   : RT_DIM_ANY;
  }
  RT_RETURN_IF_ERROR(rt_ir_tensor_type(cx->m, dt, (int32_t)tt->shape->n_dim, shape, out));
  /* A shape given at load time (rt_module_load_options_t.input_shapes). */
  for (int32_t k = 0; k < cx->opts->num_input_shapes; ++k) {
    const rt_input_shape_t *g = &cx->opts->input_shapes[k];
    if (!g->name || strcmp(g->name, name) != 0) continue;
    int64_t dims[RT_TENSOR_MAX_RANK];
    RT_RETURN_IF_ERROR(rt_ir_bind_shape(cx->path, *out, g, dims));
    return rt_ir_tensor_type(cx->m, dt, (int32_t)tt->shape->n_dim, dims, out);
  }
  return RT_OK;
}

/* The load-time constant given for graph input `name`, or NULL. */
static rt_tensor_t *constant_input(const rt_onnx_ctx_t *cx, const char *name) {
  const rt_module_load_options_t *o = cx->opts;
  for (int32_t i = 0; i < o->num_constant_inputs; ++i) {
    if (o->constant_input_names[i] && strcmp(o->constant_input_names[i], name) == 0) {
      return o->constant_input_values[i];
    }
  }
  return NULL;
}

/* Checks a load-time constant against the input's declared type. */
static rt_status_t check_constant_input(const rt_onnx_ctx_t *cx, const char *name,
                                        const rt_ir_type_t *declared, const rt_tensor_t *t) {
  const int64_t *shape = rt_tensor_shape(t);
  bool fits = rt_dtype_equal(rt_tensor_dtype(t), declared->tensor.dtype) &&
              rt_tensor_rank(t) == declared->tensor.rank;
  for (int32_t d = 0; fits && d < declared->tensor.rank; ++d) {
    int64_t want = declared->tensor.shape[d];
    fits = want == RT_DIM_ANY || want == shape[d];
  }
  if (!fits) {
    char dn[RT_DTYPE_NAME_MAX];
    rt_dtype_name(rt_tensor_dtype(t), dn);
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: the constant given for graph input '%s' (%s, rank %d) does not "
                     "fit its declared type", cx->path, name, dn, (int)rt_tensor_rank(t));
  }
  return RT_OK;
}

/* The synthetic listing that spans point into: one line per node. */
static rt_status_t make_listing(import_state *is, const Onnx__GraphProto *g) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  for (size_t i = 0; i < g->n_node; ++i) {
    const Onnx__NodeProto *n = g->node[i];
    rt_strbuf_printf(&b, "node %zu: %s '%s' ->", i, n->op_type ? n->op_type : "",
                     n->name ? n->name : "");
    for (size_t k = 0; k < n->n_output; ++k) {
      rt_strbuf_printf(&b, " %s", n->output[k] ? n->output[k] : "");
    }
    rt_strbuf_putc(&b, '\n');
  }
  rt_status_t st = b.failed ? RT_STATUS(RESOURCE_EXHAUSTED, "%s: out of memory listing the "
                                                             "nodes", is->cx.path)
                            : rt_ir_module_set_source(is->cx.m, is->cx.path, b.data ? b.data : "",
                                                      b.data ? b.len : 0, NULL);
  rt_strbuf_deinitialize(&b);
  return st;
}

static rt_status_t convert_custom(import_state *is, const Onnx__NodeProto *n, const char *target);

static rt_status_t convert_node(import_state *is, const Onnx__NodeProto *n) {
  rt_onnx_ctx_t *cx = &is->cx;
  if (!n->op_type) return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT, "no op_type");
  /* Custom domains mapped to custom ops by the load options (rt/op.h). */
  for (int32_t i = 0; n->domain && *n->domain && i < cx->opts->num_custom_ops; ++i) {
    const char *src = cx->opts->custom_op_sources[i];
    size_t dl = strlen(n->domain);
    if (src && strncmp(src, n->domain, dl) == 0 && src[dl] == '.' &&
        strcmp(src + dl + 1, n->op_type) == 0) {
      return convert_custom(is, n, cx->opts->custom_op_targets[i]);
    }
  }
  if (n->domain && *n->domain && strcmp(n->domain, "ai.onnx") != 0) {
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED,
                              "op %s of domain '%s' is not supported (only the default "
                              "domain is)", n->op_type, n->domain);
  }
  if (cx->opset < 7) {
    static const char *const legacy[] = {"broadcast", "consumed_inputs", "is_test", "spatial"};
    for (size_t i = 0; i < RT_COUNTOF(legacy); ++i) {
      if (rt_onnx_attr(cx, legacy[i])) {
        return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED,
                                  "attribute '%s' of opsets before 7 is not supported (7 to "
                                  "18 are)", legacy[i]);
      }
    }
  }
  rt_onnx_convert_fn fn = rt_onnx_find_converter(n->op_type);
  if (!fn) {
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED, "unsupported op %s", n->op_type);
  }
  if (n->n_input > 64 || n->n_output > 64) {
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED, "too many inputs or outputs");
  }
  rt_ir_expr_t *in[64] = {0}, *out[64] = {0};
  for (size_t i = 0; i < n->n_input; ++i) {
    const char *name = n->input[i];
    if (!name || !*name) continue; /* an absent optional input */
    in[i] = value_get(is, name);
    if (!in[i]) {
      return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT,
                                "input '%s' is not defined (no graph input, initializer "
                                "or earlier node produces it)", name);
    }
  }
  RT_RETURN_IF_ERROR(fn(cx, in, (int32_t)n->n_input, out, (int32_t)n->n_output));
  for (size_t k = 0; k < n->n_output; ++k) {
    const char *name = n->output[k];
    if (!name || !*name) continue;
    if (!out[k]) {
      return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED,
                                "output %zu ('%s') is not supported", k, name);
    }
    RT_RETURN_IF_ERROR(value_set(is, name, out[k]));
  }
  return RT_OK;
}

/* A custom-domain node as a call of the custom op `target` on its inputs,
 * with the node's attributes that the op declares (load options). */
static rt_status_t convert_custom(import_state *is, const Onnx__NodeProto *n, const char *target) {
  rt_onnx_ctx_t *cx = &is->cx;
  const rt_ir_op_t *op = target ? rt_ir_op_lookup(target, strlen(target)) : NULL;
  if (!op) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT, "%s.%s maps to op '%s', which "
                              "is not registered (rt_op_register)", n->domain, n->op_type,
                              target ? target : "(null)");
  }
  if (n->n_output != 1 || (int64_t)n->n_input != op->num_inputs || op->num_fields > 16) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT, "%s.%s has %zu inputs and %zu "
                              "outputs; op %s takes %d inputs and gives one", n->domain,
                              n->op_type, n->n_input, n->n_output, op->name, (int)op->num_inputs);
  }
  rt_ir_expr_t *in[64] = {0};
  for (size_t i = 0; i < n->n_input; ++i) {
    in[i] = n->input[i] && *n->input[i] ? value_get(is, n->input[i]) : NULL;
    if (!in[i]) {
      return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT, "input %zu of %s.%s is not "
                                "defined", i, n->domain, n->op_type);
    }
  }
  const char *keys[16];
  rt_attr_value_t values[16];
  int32_t count = 0;
  for (int32_t f = 0; f < op->num_fields; ++f) {
    const Onnx__AttributeProto *a = rt_onnx_attr(cx, op->fields[f].name);
    if (!a) continue;
    rt_attr_value_t v = {.kind = RT_ATTR_NONE};
    if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT) {
      v.kind = RT_ATTR_INT;
      v.i = a->i;
    } else if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT) {
      v.kind = RT_ATTR_FLOAT;
      v.f = a->f;
    } else if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING) {
      char *s = NULL;
      RT_RETURN_IF_ERROR(rt_arena_strndup(&cx->m->arena, (const char *)a->s.data, a->s.len, &s));
      v.kind = RT_ATTR_STRING;
      v.s = s;
    } else {
      return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED, "attribute '%s' of %s.%s: only "
                                "ints, floats and strings map to custom op attributes",
                                op->fields[f].name, n->domain, n->op_type);
    }
    keys[count] = op->fields[f].name;
    values[count++] = v;
  }
  rt_ir_attrs_t *attrs = NULL;
  rt_ir_expr_t *ref = NULL, *call = NULL;
  rt_status_t st = rt_ir_op_attrs(cx->m, cx->span, op, count, keys, values, &attrs);
  if (st) {
    rt_status_code_t code = rt_status_code(st) == RT_STATUS_RESOURCE_EXHAUSTED
                                ? RT_STATUS_RESOURCE_EXHAUSTED
                                : RT_STATUS_INVALID_ARGUMENT;
    rt_status_t err = rt_onnx_node_error(cx, code, "%s", rt_status_message(st));
    rt_status_free(st);
    return err;
  }
  RT_RETURN_IF_ERROR(rt_ir_op_ref(cx->m, cx->span, op, &ref));
  RT_RETURN_IF_ERROR(rt_ir_call(cx->m, cx->span, ref, op->num_inputs, in, attrs, &call));
  RT_RETURN_IF_ERROR(type_call(cx, call));
  if (n->output[0] && *n->output[0]) RT_RETURN_IF_ERROR(value_set(is, n->output[0], call));
  return RT_OK;
}

/* Converts subgraph g (an If branch, a Loop body) in the enclosing scope:
 * its initializers become constants, its inputs are bound to inputs[0 ..
 * nin-1] (NULL: left undefined), and its outputs' values come back in
 * outs[0 .. g->n_output-1]. Names it defines are visible only inside;
 * outer bindings it shadows are restored. */
rt_ir_expr_t *rt_onnx_value(rt_onnx_ctx_t *cx, const char *name) {
  return value_get((import_state *)(void *)cx, name);
}

rt_status_t rt_onnx_subgraph(rt_onnx_ctx_t *cx, const Onnx__GraphProto *g, int32_t nin,
                             rt_ir_expr_t *const *inputs, int32_t nout, rt_ir_expr_t **outs) {
  return rt_onnx_subgraph_bind(cx, g, nin, inputs, 0, NULL, NULL, nout, outs);
}

rt_status_t rt_onnx_subgraph_bind(rt_onnx_ctx_t *cx, const Onnx__GraphProto *g, int32_t nin,
                                  rt_ir_expr_t *const *inputs, int32_t nbind,
                                  const char *const *bind_names, rt_ir_expr_t *const *bind_exprs,
                                  int32_t nout, rt_ir_expr_t **outs) {
  import_state *is = (import_state *)(void *)cx;
  if (!g) return rt_onnx_bad(cx, "a graph attribute is missing");
  if ((size_t)nin != g->n_input) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT,
                              "subgraph '%s' has %zu inputs, %d expected",
                              g->name ? g->name : "", g->n_input, (int)nin);
  }
  if ((size_t)nout != g->n_output) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT,
                              "subgraph '%s' has %zu outputs, %d expected",
                              g->name ? g->name : "", g->n_output, (int)nout);
  }
  if (is->depth >= 16) return rt_onnx_unsupported(cx, "subgraphs nested more than 16 deep");
  const Onnx__NodeProto *node = cx->node;
  const int32_t node_index = cx->node_index;
  const Onnx__GraphProto *outer = cx->graph;
  const int32_t mark = is->num_undo;
  const bool can_fork = cx->can_fork;
  cx->can_fork = false; /* an If inside a subgraph cannot fork the graph's rest */
  cx->graph = g;
  is->depth++;
  rt_status_t st = RT_OK;
  for (int32_t i = 0; !st && i < nbind; ++i) st = value_set(is, bind_names[i], bind_exprs[i]);
  for (size_t i = 0; !st && i < g->n_initializer; ++i) {
    const Onnx__TensorProto *tp = g->initializer[i];
    rt_tensor_t *t = NULL;
    rt_ir_expr_t *c = NULL;
    if (!tp->name || !*tp->name) {
      st = rt_onnx_bad(cx, "a subgraph initializer has no name");
      break;
    }
    st = rt_onnx_tensor_from_proto(cx, tp, &t);
    if (!st) st = rt_onnx_constant(cx, t, &c);
    rt_tensor_release(t);
    if (!st) st = value_set(is, tp->name, c);
  }
  for (int32_t i = 0; !st && i < nin; ++i) {
    const char *name = g->input[i]->name;
    if (name && *name && inputs[i]) st = value_set(is, name, inputs[i]);
  }
  for (size_t i = 0; !st && i < g->n_node; ++i) {
    cx->node = g->node[i];
    cx->node_index = (int32_t)i;
    st = convert_node(is, g->node[i]);
  }
  cx->node = node;
  cx->node_index = node_index;
  cx->graph = outer;
  if (st && node) { /* say which subgraph the node numbers count in */
    rt_status_t in_sub = rt_status_create(
        rt_status_code(st), __FILE__, __LINE__, "%s (in subgraph '%s' of node %d '%s' (%s))",
        rt_status_message(st), g->name ? g->name : "", (int)node_index, node->name ? node->name : "",
        node->op_type ? node->op_type : "");
    rt_status_free(st);
    st = in_sub;
  }
  for (int32_t k = 0; !st && k < nout; ++k) {
    const char *name = g->output[k]->name ? g->output[k]->name : "";
    outs[k] = value_get(is, name);
    if (!outs[k]) {
      st = rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT,
                              "output '%s' of subgraph '%s' is not produced by any node",
                              name, g->name ? g->name : "");
    }
  }
  while (is->num_undo > mark) {
    undo_entry *u = &is->undo[--is->num_undo];
    u->v->expr = u->old;
  }
  is->depth--;
  cx->can_fork = can_fork;
  return st;
}

/* At most this many Ifs with branches of different ranks on one path
 * through the graph: each doubles the nodes converted after it. */
#define MAX_FORKS 4

static rt_status_t convert_rest(import_state *is, const Onnx__GraphProto *g, size_t start,
                                int32_t forks, rt_ir_expr_t **out_body);

/* If node i forked (cx->fork, ops_control.c): converts nodes i+1 .. once
 * with the If's outputs bound to each branch's, in a scope undone after
 * each, and joins the two results under the If's condition. A graph
 * output whose rank still differs between the two cannot be typed. */
static rt_status_t convert_fork(import_state *is, const Onnx__GraphProto *g, size_t i,
                                int32_t forks, rt_ir_expr_t **out_body) {
  rt_onnx_ctx_t *cx = &is->cx;
  rt_onnx_fork_t *f = cx->fork;
  cx->fork = NULL;
  const Onnx__NodeProto *n = g->node[i];
  rt_ir_expr_t *body[2] = {NULL, NULL};
  rt_status_t st = RT_OK;
  for (int32_t b = 0; !st && b < 2; ++b) {
    const int32_t mark = is->num_undo;
    is->depth++;
    for (size_t k = 0; !st && k < n->n_output && k < (size_t)f->nout; ++k) {
      if (n->output[k] && *n->output[k]) st = value_set(is, n->output[k], f->outs[b][k]);
    }
    if (!st) st = convert_rest(is, g, i + 1, forks + 1, &body[b]);
    while (is->num_undo > mark) {
      undo_entry *u = &is->undo[--is->num_undo];
      u->v->expr = u->old;
    }
    is->depth--;
  }
  RT_RETURN_IF_ERROR(st);
  rt_ir_expr_t *e = NULL;
  RT_RETURN_IF_ERROR(rt_ir_if(cx->m, f->span, f->cond, body[0], body[1], &e));
  RT_RETURN_IF_ERROR(rt_ir_type_join(cx->m, body[0]->checked_type, body[1]->checked_type,
                                     &e->checked_type));
  if (!e->checked_type) {
    rt_strbuf_t sa, sb;
    rt_strbuf_initialize(&sa);
    rt_strbuf_initialize(&sb);
    rt_ir_type_print(body[0]->checked_type, &sa);
    rt_ir_type_print(body[1]->checked_type, &sb);
    st = RT_STATUS(UNIMPLEMENTED,
                   "%s: node %d '%s' (If): its branches' outputs differ in rank, and so do the "
                   "graph's outputs (then %s, else %s): a graph output whose rank depends on a "
                   "condition known only at run time is not supported (bind the graph inputs "
                   "the condition is computed from with --const-input)",
                   cx->path, (int)i, n->name ? n->name : "", sa.data ? sa.data : "",
                   sb.data ? sb.data : "");
    rt_strbuf_deinitialize(&sa);
    rt_strbuf_deinitialize(&sb);
    return st;
  }
  *out_body = e;
  return RT_OK;
}

/* Converts the main graph's nodes from `start` on and makes its result
 * (the output, or the tuple of outputs) in *out_body; a top-level If
 * whose branches differ in rank forks the rest (convert_fork). */
static rt_status_t convert_rest(import_state *is, const Onnx__GraphProto *g, size_t start,
                                int32_t forks, rt_ir_expr_t **out_body) {
  rt_onnx_ctx_t *cx = &is->cx;
  rt_module_t *m = cx->m;
  for (size_t i = start; i < g->n_node; ++i) {
    const Onnx__NodeProto *n = g->node[i];
    cx->node = n;
    cx->node_index = (int32_t)i;
    cx->span = (rt_ir_span_t){m->source, (int32_t)i + 1, 1, (int32_t)i + 1, 2};
    cx->can_fork = forks < MAX_FORKS;
    cx->fork = NULL;
    rt_status_t st = convert_node(is, n);
    cx->can_fork = false;
    RT_RETURN_IF_ERROR(st);
    if (cx->fork) return convert_fork(is, g, i, forks, out_body);
  }
  cx->node = NULL;
  cx->span = (rt_ir_span_t){0};
  if (g->n_output == 0) return RT_STATUS(INVALID_ARGUMENT, "%s: the graph has no outputs", cx->path);
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&m->arena, g->n_output, sizeof(rt_ir_expr_t *), &p));
  rt_ir_expr_t **outs = p;
  for (size_t i = 0; i < g->n_output; ++i) {
    const char *name = g->output[i]->name ? g->output[i]->name : "";
    outs[i] = value_get(is, name);
    if (!outs[i]) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: graph output '%s' is not produced by any node",
                       cx->path, name);
    }
    const rt_ir_type_t *ot = outs[i]->checked_type ? rt_ir_type_resolve(outs[i]->checked_type)
                                                   : NULL;
    if (!rt_onnx_type(outs[i]) &&
        !(ot && (ot->kind == RT_IR_TYPE_LIST || ot->kind == RT_IR_TYPE_OPTION))) {
      return RT_STATUS(UNIMPLEMENTED, "%s: graph output '%s' is not a tensor, a sequence or an "
                       "optional", cx->path, name);
    }
  }
  *out_body = outs[0];
  if (g->n_output > 1) {
    RT_RETURN_IF_ERROR(rt_onnx_tuple(cx, (int32_t)g->n_output, outs, out_body));
  }
  return RT_OK;
}

static rt_status_t import_graph(import_state *is, const Onnx__GraphProto *g) {
  rt_onnx_ctx_t *cx = &is->cx;
  rt_module_t *m = cx->m;
  cx->graph = g;
  RT_RETURN_IF_ERROR(make_listing(is, g));
  for (size_t i = 0; i < g->n_initializer; ++i) {
    const Onnx__TensorProto *tp = g->initializer[i];
    if (!tp->name || !*tp->name) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: initializer %zu has no name", cx->path, i);
    }
    rt_tensor_t *t = NULL;
    rt_ir_expr_t *c = NULL;
    RT_RETURN_IF_ERROR(rt_onnx_tensor_from_proto(cx, tp, &t));
    rt_status_t st = rt_onnx_constant(cx, t, &c);
    rt_tensor_release(t);
    RT_RETURN_IF_ERROR(st);
    RT_RETURN_IF_ERROR(value_set(is, tp->name, c));
  }
  if (g->n_sparse_initializer) {
    return RT_STATUS(UNIMPLEMENTED, "%s: sparse initializers are not supported", cx->path);
  }
  for (int32_t k = 0; k < cx->opts->num_constant_inputs; ++k) {
    const char *want = cx->opts->constant_input_names[k];
    bool found = false;
    for (size_t i = 0; !found && want && i < g->n_input; ++i) {
      found = g->input[i]->name && strcmp(g->input[i]->name, want) == 0;
    }
    if (!found || !cx->opts->constant_input_values[k]) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: constant input '%s' is not a graph input%s",
                       cx->path, want ? want : "(null)",
                       found ? " with a value (its tensor is NULL)" : "");
    }
  }
  for (int32_t k = 0; k < cx->opts->num_input_shapes; ++k) {
    const char *want = cx->opts->input_shapes[k].name;
    bool found = false;
    for (size_t i = 0; !found && want && i < g->n_input; ++i) {
      found = g->input[i]->name && strcmp(g->input[i]->name, want) == 0 &&
              (constant_input(cx, want) || !value_get(is, want));
    }
    if (!found) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: a shape is given for '%s', which is not a graph "
                       "input (initializers have their own shapes)", cx->path, want ? want : "(null)");
    }
  }
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(&m->arena, g->n_input + 1, sizeof(rt_ir_expr_t *), &p));
  rt_ir_expr_t **params = p;
  int32_t nparams = 0;
  for (size_t i = 0; i < g->n_input; ++i) {
    const Onnx__ValueInfoProto *vi = g->input[i];
    if (!vi->name || !*vi->name) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: graph input %zu has no name", cx->path, i);
    }
    rt_tensor_t *bound = constant_input(cx, vi->name);
    if (!bound && value_get(is, vi->name)) continue; /* an initializer: a constant */
    rt_ir_type_t *t = NULL;
    rt_ir_expr_t *v = NULL;
    RT_RETURN_IF_ERROR(input_type(is, vi, &t));
    if (bound) { /* bound at load time: a constant, as an initializer is */
      RT_RETURN_IF_ERROR(check_constant_input(cx, vi->name, t, bound));
      RT_RETURN_IF_ERROR(rt_onnx_constant(cx, bound, &v));
      RT_RETURN_IF_ERROR(value_set(is, vi->name, v));
      continue;
    }
    RT_RETURN_IF_ERROR(rt_ir_var(m, (rt_ir_span_t){0}, vi->name, t, &v));
    v->checked_type = t;
    params[nparams++] = v;
    RT_RETURN_IF_ERROR(value_set(is, vi->name, v));
  }
  rt_ir_expr_t *body = NULL;
  RT_RETURN_IF_ERROR(convert_rest(is, g, 0, 0, &body));
  rt_ir_expr_t *fn = NULL;
  RT_RETURN_IF_ERROR(rt_ir_function(m, (rt_ir_span_t){0}, nparams, params, body, NULL, NULL, &fn));
  RT_RETURN_IF_ERROR(rt_ir_module_add(m, "main", fn));
  return rt_ir_infer_types(m);
}

static rt_status_t import_model(import_state *is, const Onnx__ModelProto *model) {
  rt_onnx_ctx_t *cx = &is->cx;
  int64_t opset = -1;
  for (size_t i = 0; i < model->n_opset_import; ++i) {
    const Onnx__OperatorSetIdProto *o = model->opset_import[i];
    if (!o) continue;
    if (!o->domain || !*o->domain || strcmp(o->domain, "ai.onnx") == 0) {
      opset = o->has_version ? o->version : 1;
    }
  }
  if (opset < 0) {
    const char *other = model->n_opset_import && model->opset_import[0] &&
                                model->opset_import[0]->domain
                            ? model->opset_import[0]->domain
                            : NULL;
    if (other) {
      return RT_STATUS(UNIMPLEMENTED,
                       "%s: the model imports only domain '%s', which is not supported "
                       "(the default domain ai.onnx is)", cx->path, other);
    }
    return RT_STATUS(INVALID_ARGUMENT, "%s: the model imports no opset of the default domain",
                     cx->path);
  }
  /* Opsets 1-6 are read with opset-7 semantics, which match theirs except
   * for the legacy attributes refused per node (convert_node). */
  if (opset < 1 || opset > 18) {
    return RT_STATUS(UNIMPLEMENTED,
                     "%s: opset %lld of the default domain is not supported (7 to 18 are)",
                     cx->path, (long long)opset);
  }
  cx->opset = opset;
  if (!model->graph) return RT_STATUS(INVALID_ARGUMENT, "%s: the model has no graph", cx->path);
  return import_graph(is, model->graph);
}

rt_status_t rt_onnx_import_memory(const void *bytes, size_t size, const char *source_name,
                                  const char *model_dir, const rt_module_load_options_t *options,
                                  const rt_ir_evaluator_t *eval, rt_module_t **out_module) {
  static const rt_module_load_options_t no_options;
  if (!options) options = &no_options;
  if (options->num_constant_inputs < 0 ||
      (options->num_constant_inputs > 0 &&
       (!options->constant_input_names || !options->constant_input_values))) {
    return RT_STATUS(INVALID_ARGUMENT, "bad constant inputs in the load options");
  }
  if (options->num_input_shapes < 0 || (options->num_input_shapes > 0 && !options->input_shapes)) {
    return RT_STATUS(INVALID_ARGUMENT, "bad input shapes in the load options");
  }
  const char *name = source_name ? source_name : "<onnx>";
  if (!bytes && size) return RT_STATUS(INVALID_ARGUMENT, "bytes is NULL");
  if (size > RT_ONNX_MAX_MODEL_BYTES) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "%s: %zu bytes is past the 2 GiB protobuf limit",
                     name, size);
  }
  Onnx__ModelProto *model =
      onnx__model_proto__unpack(NULL, size, (const uint8_t *)(bytes ? bytes : ""));
  if (!model) {
    return RT_STATUS(DATA_LOSS, "%s: not a valid ONNX model (malformed or truncated protobuf)",
                     name);
  }
  import_state is;
  memset(&is, 0, sizeof is);
  is.cx.path = name;
  is.cx.dir = model_dir;
  is.cx.opts = options;
  is.cx.eval = eval;
  rt_status_t st = rt_ir_module_create(rt_mem_current(), &is.cx.m);
  if (!st) st = import_model(&is, model);
  HASH_CLEAR(hh, is.cx.values);
  rt_mem_free(is.undo);
  onnx__model_proto__free_unpacked(model, NULL);
  if (st) {
    rt_module_release(is.cx.m);
    return st;
  }
  *out_module = is.cx.m;
  return RT_OK;
}

rt_status_t rt_onnx_import_file(const char *path, const rt_module_load_options_t *options,
                                const rt_ir_evaluator_t *eval, rt_module_t **out_module) {
  char *data = NULL;
  size_t size = 0;
  RT_RETURN_IF_ERROR(rt_file_read(path, RT_ONNX_MAX_MODEL_BYTES, &data, &size));
  const char *slash = strrchr(path, '/');
  char *dir = NULL;
  if (slash) {
    dir = rt_mem_strndup(path, (size_t)(slash - path) + (slash == path ? 1 : 0));
  } else {
    dir = rt_mem_strdup(".");
  }
  rt_status_t st = dir ? rt_onnx_import_memory(data, size, path, dir, options, eval, out_module)
                       : RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  rt_mem_free(dir);
  rt_mem_free(data);
  return st;
}

/* ---- helpers shared by the converters (ops.c, ops_nn.c) ----------------- */

rt_status_t rt_onnx_bad(rt_onnx_ctx_t *cx, const char *what) {
  return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT, "%s", what);
}

rt_status_t rt_onnx_unsupported(rt_onnx_ctx_t *cx, const char *what) {
  return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED, "%s is not supported", what);
}

rt_status_t rt_onnx_need(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin, int32_t k) {
  if (nin < k) {
    return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT, "expects at least %d inputs, got %d",
                              (int)k, (int)nin);
  }
  for (int32_t i = 0; i < k; ++i) {
    if (!in[i]) {
      return rt_onnx_node_error(cx, RT_STATUS_INVALID_ARGUMENT, "required input %d is missing",
                                (int)i);
    }
  }
  return RT_OK;
}
