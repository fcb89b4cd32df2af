/* The `#[metadata]` section of the Relay text format: TVM's node-table JSON
 * (SaveJSON of a Map<String, Array<Object>>) with the constants' NDArray
 * records (runtime/ndarray_blob.h) base64-encoded in "b64ndarrays".
 *
 * Reading follows the node indices exactly: "root" names the Map node, its
 * "relay.Constant" key names an Array node, each element of that names a
 * relay.Constant node whose attrs.data is an index into b64ndarrays. Other
 * keys of the Map are ignored (the parser rejects references to them).
 * Everything is checked; errors point into the JSON text. Tensors are
 * decoded only when a `meta[relay.Constant][i]` reference asks for them.
 *
 * Writing reproduces TVM's layout byte for byte: the null node, the Map,
 * the Array, then per constant its node, the shared VirtualDevice and its
 * memory_scope String after the first one, and, for typed modules, the
 * constant's TensorType with its shape Array and IntImm dims, in the order
 * TVM's reflection visits them; dmlc's JSON writer indentation with ", "
 * separators. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/text/text.h"
#include "runtime/base64.h"
#include "runtime/ndarray_blob.h"
#include "runtime/mem.h"

/* Maps a JSON position (1-based, relative to the JSON text) to the file. */
static rt_ir_span_t json_span(const rt_ir_source_t *source, size_t offset,
                              int32_t line, int32_t col) {
  rt_ir_span_t base = rt_ir_text_span_at(source, offset);
  if (line <= 1) {
    base.col += col - 1;
  } else {
    base.line += line - 1;
    base.col = col;
  }
  base.end_line = base.line;
  base.end_col = base.col + 1;
  return base;
}

/* A diagnostic for a failure `cause` of reading the metadata: the source
 * position is the diagnostic's, but running out of memory stays
 * RESOURCE_EXHAUSTED (the text is not at fault). Frees cause. */
static rt_status_t cause_diag(rt_status_t cause, rt_status_t diag) {
  if (rt_status_code(cause) == RT_STATUS_RESOURCE_EXHAUSTED && diag != RT_OK) {
    rt_status_t oom = RT_STATUS(RESOURCE_EXHAUSTED, "%s", rt_status_message(diag));
    rt_status_free(diag);
    diag = oom;
  }
  rt_status_free(cause);
  return diag;
}

static rt_status_t bad(const rt_ir_source_t *source, size_t offset,
                       const rt_json_t *at, const char *what) {
  int32_t line = at ? at->line : 1, col = at ? at->col : 1;
  return rt_ir_diag(json_span(source, offset, line, col), "bad metadata: %s",
                    what);
}

/* A node index given as a JSON number or a decimal string. */
static bool json_index(const rt_json_t *v, int32_t limit, int32_t *out) {
  long long x;
  if (v && v->kind == RT_JSON_NUMBER) {
    if (!(v->number >= 0 && v->number < (double)limit) ||
        v->number != (double)(long long)v->number) {
      return false;
    }
    x = (long long)v->number;
  } else if (v && v->kind == RT_JSON_STRING) {
    if (v->string.len == 0 || v->string.len > 10) return false;
    x = 0;
    for (size_t i = 0; i < v->string.len; ++i) {
      char c = v->string.data[i];
      if (c < '0' || c > '9') return false;
      x = x * 10 + (c - '0');
    }
    if (x >= limit) return false;
  } else {
    return false;
  }
  *out = (int32_t)x;
  return true;
}

static bool type_key_is(const rt_json_t *node, const char *key) {
  const rt_json_t *tk = rt_json_get(node, "type_key");
  return tk && tk->kind == RT_JSON_STRING && strcmp(tk->string.data, key) == 0;
}

rt_status_t rt_ir_text_meta_load(const rt_ir_source_t *source, size_t offset,
                                 rt_arena_t *arena, rt_ir_text_meta_t *out) {
  memset(out, 0, sizeof(*out));
  out->offset = offset;
  rt_json_t *root = NULL;
  rt_status_t status = rt_json_parse(arena, source->text + offset,
                                     source->size - offset, &root);
  if (status) {
    /* The reader says "line:col: what"; re-anchor it in the file. */
    const char *msg = rt_status_message(status);
    int line = 1, col = 1, used = 0;
    if (sscanf(msg, "%d:%d: %n", &line, &col, &used) < 2) used = 0;
    rt_status_t diag = rt_ir_diag(json_span(source, offset, line, col),
                                  "bad metadata JSON: %s", msg + used);
    return cause_diag(status, diag);
  }
  if (root->kind != RT_JSON_OBJECT) return bad(source, offset, root, "expected a JSON object");
  const rt_json_t *nodes = rt_json_get(root, "nodes");
  if (!nodes || nodes->kind != RT_JSON_ARRAY) {
    return bad(source, offset, nodes ? nodes : root, "missing \"nodes\" array");
  }
  int32_t nn = nodes->array.count;
  const rt_json_t *b64 = rt_json_get(root, "b64ndarrays");
  if (b64 && b64->kind != RT_JSON_ARRAY) {
    return bad(source, offset, b64, "\"b64ndarrays\" is not an array");
  }
  out->b64 = b64;
  out->num_b64 = b64 ? b64->array.count : 0;
  for (int32_t i = 0; i < out->num_b64; ++i) {
    if (b64->array.items[i]->kind != RT_JSON_STRING) {
      return bad(source, offset, b64->array.items[i], "b64ndarrays entry is not a string");
    }
  }
  int32_t ri;
  const rt_json_t *rv = rt_json_get(root, "root");
  if (!json_index(rv, nn, &ri)) {
    return bad(source, offset, rv ? rv : root, "\"root\" is not a node index");
  }
  const rt_json_t *map = nodes->array.items[ri];
  if (map->kind != RT_JSON_OBJECT || !type_key_is(map, "Map")) {
    return bad(source, offset, map, "the root node is not a Map");
  }
  const rt_json_t *keys = rt_json_get(map, "keys");
  const rt_json_t *data = rt_json_get(map, "data");
  int32_t nkeys = keys && keys->kind == RT_JSON_ARRAY ? keys->array.count : 0;
  if ((keys && keys->kind != RT_JSON_ARRAY) ||
      (nkeys > 0 && (!data || data->kind != RT_JSON_ARRAY ||
                     data->array.count != nkeys))) {
    return bad(source, offset, map, "the Map's \"keys\" and \"data\" do not match");
  }
  for (int32_t k = 0; k < nkeys; ++k) {
    const rt_json_t *key = keys->array.items[k];
    if (key->kind != RT_JSON_STRING) {
      return bad(source, offset, key, "a Map key is not a string");
    }
    if (strcmp(key->string.data, "relay.Constant") != 0) continue;
    int32_t ai;
    if (!json_index(data->array.items[k], nn, &ai)) {
      return bad(source, offset, data->array.items[k], "a Map value is not a node index");
    }
    const rt_json_t *arr = nodes->array.items[ai];
    if (arr->kind != RT_JSON_OBJECT || !type_key_is(arr, "Array")) {
      return bad(source, offset, arr, "relay.Constant does not name an Array node");
    }
    const rt_json_t *elems = rt_json_get(arr, "data");
    if (elems && elems->kind != RT_JSON_ARRAY) {
      return bad(source, offset, elems, "the Array's \"data\" is not an array");
    }
    int32_t count = elems ? elems->array.count : 0;
    void *mem = NULL;
    RT_RETURN_IF_ERROR(rt_arena_alloc_array(arena, (size_t)count + 1,
                                            sizeof(int32_t), &mem));
    out->b64_index = mem;
    out->count = count;
    for (int32_t i = 0; i < count; ++i) {
      int32_t ci;
      if (!json_index(elems->array.items[i], nn, &ci)) {
        return bad(source, offset, elems->array.items[i], "an Array element is not a node index");
      }
      const rt_json_t *cn = nodes->array.items[ci];
      if (cn->kind != RT_JSON_OBJECT || !type_key_is(cn, "relay.Constant")) {
        return bad(source, offset, cn, "an Array element is not a relay.Constant node");
      }
      const rt_json_t *attrs = rt_json_get(cn, "attrs");
      const rt_json_t *dv = rt_json_get(attrs, "data");
      if (!json_index(dv, out->num_b64, &out->b64_index[i])) {
        return bad(source, offset, dv ? dv : cn,
                   "relay.Constant \"data\" is not an index into b64ndarrays");
      }
    }
  }
  return RT_OK;
}

rt_status_t rt_ir_text_meta_tensor(const rt_ir_text_meta_t *meta,
                                   const rt_ir_source_t *source,
                                   rt_allocator_t allocator, int32_t index,
                                   rt_ir_span_t span, rt_tensor_t **out) {
  (void)span;
  int32_t bi = meta->b64_index[index];
  const rt_json_t *s = meta->b64->array.items[bi];
  rt_ir_span_t at = json_span(source, meta->offset, s->line, s->col);
  uint8_t *bytes = NULL;
  size_t size = 0;
  rt_status_t status = rt_base64_decode(s->string.data, s->string.len, &bytes, &size);
  if (status) {
    rt_status_t d = rt_ir_diag(at, "bad metadata: b64ndarrays[%d]: %s", (int)bi,
                               rt_status_message(status));
    return cause_diag(status, d);
  }
  size_t off = 0;
  rt_tensor_t *t = NULL;
  status = rt_ndarray_blob_read(allocator, bytes, size, &off, source->name, &t);
  if (status) {
    rt_status_t d = rt_ir_diag(at, "bad metadata: b64ndarrays[%d]: %s", (int)bi,
                               rt_status_message(status));
    rt_mem_free(bytes);
    return cause_diag(status, d);
  }
  rt_mem_free(bytes);
  if (off != size) {
    rt_tensor_release(t);
    return rt_ir_diag(at, "bad metadata: b64ndarrays[%d]: %zu trailing bytes",
                      (int)bi, size - off);
  }
  *out = t;
  return RT_OK;
}

/* ---- writing ------------------------------------------------------------- */

static void open_node(rt_strbuf_t *out, bool *first, const char *type_key) {
  rt_strbuf_puts(out, *first ? "\n    {" : ", \n    {");
  *first = false;
  rt_strbuf_printf(out, "\n      \"type_key\": \"%s\"", type_key);
}

/* Writes `"attrs": {...}` with string values, keys already sorted. */
static void node_attrs(rt_strbuf_t *out, int32_t n, const char *const *keys,
                       const char *const *values) {
  rt_strbuf_puts(out, ", \n      \"attrs\": {");
  for (int32_t i = 0; i < n; ++i) {
    rt_strbuf_printf(out, "%s\n        \"%s\": \"%s\"", i ? ", " : "", keys[i],
                     values[i]);
  }
  rt_strbuf_puts(out, "\n      }");
}

static void close_node(rt_strbuf_t *out) { rt_strbuf_puts(out, "\n    }"); }

static const rt_ir_type_t *const_type(const rt_ir_expr_t *c, bool typed) {
  if (!typed || !c->checked_type) return NULL;
  const rt_ir_type_t *t = rt_ir_type_resolve(c->checked_type);
  return t && t->kind == RT_IR_TYPE_TENSOR ? t : NULL;
}

void rt_ir_text_meta_write(rt_ir_expr_t *const *constants, int32_t count,
                           bool typed, rt_strbuf_t *out) {
  /* Node indices in TVM's visiting order. */
  int64_t next = 3, vd = 0;
  rt_strbuf_puts(out, "#[metadata]\n{\n  \"root\": 1, \n  \"nodes\": [");
  bool first = true;
  open_node(out, &first, "");
  close_node(out);
  open_node(out, &first, "Map");
  rt_strbuf_puts(out, ", \n      \"keys\": [\n        \"relay.Constant\"\n      ], \n      \"data\": [2]");
  close_node(out);
  open_node(out, &first, "Array");
  rt_strbuf_puts(out, ", \n      \"data\": [");
  for (int32_t i = 0; i < count; ++i) {
    rt_strbuf_printf(out, "%s%lld", i ? ", " : "", (long long)next);
    next += 1 + (i == 0 ? 2 : 0);
    const rt_ir_type_t *t = const_type(constants[i], typed);
    if (t) next += 2 + t->tensor.rank;
  }
  rt_strbuf_puts(out, "]");
  close_node(out);
  next = 3;
  for (int32_t i = 0; i < count; ++i) {
    const rt_ir_type_t *t = const_type(constants[i], typed);
    int64_t self = next++;
    if (i == 0) {
      vd = next;
      next += 2;
    }
    char ty[24], data[24], vds[24];
    snprintf(ty, sizeof(ty), "%lld", t ? (long long)next : 0LL);
    snprintf(data, sizeof(data), "%d", (int)i);
    snprintf(vds, sizeof(vds), "%lld", (long long)vd);
    (void)self;
    static const char *const ckeys[] = {"_checked_type_", "data", "span", "virtual_device_"};
    const char *cvals[] = {ty, data, "0", vds};
    open_node(out, &first, "relay.Constant");
    node_attrs(out, 4, ckeys, cvals);
    close_node(out);
    if (i == 0) {
      static const char *const vkeys[] = {"device_type_int", "memory_scope", "target",
                                          "virtual_device_id"};
      char ms[24];
      snprintf(ms, sizeof(ms), "%lld", (long long)(vd + 1));
      const char *vvals[] = {"-1", ms, "0", "-1"};
      open_node(out, &first, "VirtualDevice");
      node_attrs(out, 4, vkeys, vvals);
      close_node(out);
      open_node(out, &first, "runtime.String");
      close_node(out);
    }
    if (t) {
      int64_t tt = next++;
      int64_t arr = next++;
      (void)tt;
      char dt[RT_DTYPE_NAME_MAX], shape[24];
      rt_dtype_name(t->tensor.dtype, dt);
      snprintf(shape, sizeof(shape), "%lld", (long long)arr);
      static const char *const tkeys[] = {"dtype", "shape", "span"};
      const char *tvals[] = {dt, shape, "0"};
      open_node(out, &first, "relay.TensorType");
      node_attrs(out, 3, tkeys, tvals);
      close_node(out);
      open_node(out, &first, "Array");
      if (t->tensor.rank > 0) {
        rt_strbuf_puts(out, ", \n      \"data\": [");
        for (int32_t d = 0; d < t->tensor.rank; ++d) {
          rt_strbuf_printf(out, "%s%lld", d ? ", " : "", (long long)(next + d));
        }
        rt_strbuf_puts(out, "]");
      }
      close_node(out);
      for (int32_t d = 0; d < t->tensor.rank; ++d) {
        int64_t dim = t->tensor.shape[d];
        char v[24];
        snprintf(v, sizeof(v), "%lld", (long long)dim);
        static const char *const ikeys[] = {"dtype", "span", "value"};
        const char *ivals[] = {dim > INT32_MAX || dim < INT32_MIN ? "int64" : "int32", "0", v};
        open_node(out, &first, "IntImm");
        node_attrs(out, 3, ikeys, ivals);
        close_node(out);
      }
      next += t->tensor.rank;
    }
  }
  rt_strbuf_puts(out, "\n  ], \n  \"b64ndarrays\": [");
  for (int32_t i = 0; i < count; ++i) {
    rt_strbuf_t blob;
    rt_strbuf_initialize(&blob);
    rt_ndarray_blob_write(constants[i]->constant.value, &blob);
    rt_strbuf_puts(out, i ? ", \n    \"" : "\n    \"");
    if (blob.failed) out->failed = true;
    rt_base64_encode(blob.data, blob.len, out);
    rt_strbuf_putc(out, '"');
    rt_strbuf_deinitialize(&blob);
  }
  rt_strbuf_puts(out, "\n  ], \n  \"attrs\": {\"tvm_version\": \"0.13.0\"}\n}\n");
}
