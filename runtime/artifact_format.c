/* The exported model library's format (runtime/artifact_format.h): the
 * plan and "vm" signature bytes written by backend/export.c (through
 * rt_artifact_write_plan / rt_artifact_write_vm_plan) and read back here,
 * the descriptor's checks and the constants blob. runtime/artifact.c is
 * the loader and the runtimes built on what this file parses.
 *
 * Trust: nothing in the library's data is used before it is checked. The
 * plan parser is a bounds-checked cursor; every index is range-checked;
 * each temporary entry must fit its storage block and each constant must
 * have its entry's dtype and shape, because kernels trust the argument
 * descriptors they are handed for sizes. */
#include <stdlib.h>
#include <string.h>

#include "runtime/artifact_format.h"
#include "runtime/ndarray_blob.h"
#include "runtime/mem.h"

uint64_t rt_artifact_fnv(uint64_t h, const void *data, size_t size) {
  const uint8_t *p = data;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

/* ---- writing -------------------------------------------------------------- */

static void put_u32(rt_strbuf_t *b, uint32_t v) {
  char c[4];
  for (int i = 0; i < 4; ++i) c[i] = (char)(uint8_t)(v >> (8 * i));
  rt_strbuf_append(b, c, 4);
}

static void put_u64(rt_strbuf_t *b, uint64_t v) {
  put_u32(b, (uint32_t)v);
  put_u32(b, (uint32_t)(v >> 32));
}

static void put_str(rt_strbuf_t *b, const char *s) {
  put_u32(b, (uint32_t)strlen(s));
  rt_strbuf_puts(b, s);
}

void rt_artifact_write_plan(const rt_graph_plan_t *p, const char *const *input_names,
                            const char *const *output_names, rt_strbuf_t *b) {
  rt_strbuf_append(b, RT_ARTIFACT_PLAN_MAGIC, 8);
  put_u32(b, (uint32_t)p->num_entries);
  for (int32_t i = 0; i < p->num_entries; ++i) {
    const rt_graph_entry_t *e = &p->entries[i];
    char h[6] = {(char)e->kind, (char)e->dtype.code, (char)e->dtype.bits, (char)e->rank,
                 (char)(e->dtype.lanes & 0xff), (char)(e->dtype.lanes >> 8)};
    rt_strbuf_append(b, h, 6);
    rt_strbuf_append(b, "\0\0", 2);
    put_u32(b, (uint32_t)e->index);
    put_u32(b, (uint32_t)e->storage_id);
    put_u64(b, e->byte_offset);
    for (int32_t d = 0; d < e->rank; ++d) put_u64(b, (uint64_t)e->shape[d]);
  }
  put_u32(b, (uint32_t)p->num_nodes);
  for (int32_t n = 0; n < p->num_nodes; ++n) {
    const rt_graph_node_t *node = &p->nodes[n];
    put_u32(b, (uint32_t)node->kernel);
    put_u32(b, (uint32_t)node->num_inputs);
    put_u32(b, (uint32_t)node->num_outputs);
    for (int32_t k = 0; k < node->num_inputs + node->num_outputs; ++k) {
      put_u32(b, (uint32_t)node->entries[k]);
    }
  }
  put_u32(b, (uint32_t)p->num_storage);
  for (int32_t s = 0; s < p->num_storage; ++s) put_u64(b, p->storage_bytes[s]);
  put_u32(b, (uint32_t)p->num_inputs);
  for (int32_t i = 0; i < p->num_inputs; ++i) {
    put_u32(b, (uint32_t)p->input_entries[i]);
    put_str(b, input_names[i]);
  }
  put_u32(b, (uint32_t)p->num_outputs);
  for (int32_t o = 0; o < p->num_outputs; ++o) {
    put_u32(b, (uint32_t)p->output_entries[o]);
    put_u32(b, (uint32_t)p->output_sources[o]);
    put_str(b, output_names[o]);
  }
  put_u32(b, (uint32_t)p->num_consts);
}

static void put_io(rt_strbuf_t *b, const rt_tensor_info_t *io) {
  put_str(b, io->name);
  rt_strbuf_putc(b, (char)io->dtype.code);
  rt_strbuf_putc(b, (char)io->dtype.bits);
  char l[2] = {(char)(uint8_t)io->dtype.lanes, (char)(uint8_t)(io->dtype.lanes >> 8)};
  rt_strbuf_append(b, l, 2);
  put_u32(b, (uint32_t)io->rank);
  for (int32_t d = 0; d < io->rank; ++d) put_u64(b, (uint64_t)io->shape[d]);
}

void rt_artifact_write_vm_plan(int32_t num_inputs, const rt_tensor_info_t *inputs,
                               int32_t num_outputs, const rt_tensor_info_t *outputs,
                               const char *exe, size_t exe_size, rt_strbuf_t *b) {
  rt_strbuf_append(b, RT_ARTIFACT_VM_MAGIC, 8);
  put_u32(b, (uint32_t)num_inputs);
  for (int32_t i = 0; i < num_inputs; ++i) put_io(b, &inputs[i]);
  put_u32(b, (uint32_t)num_outputs);
  for (int32_t o = 0; o < num_outputs; ++o) put_io(b, &outputs[o]);
  put_u64(b, (uint64_t)exe_size);
  rt_strbuf_append(b, exe, exe_size);
}

/* ---- reading -------------------------------------------------------------- */

typedef struct {
  const uint8_t *p;
  size_t size, at;
  bool bad;
} cursor;

static const uint8_t *take(cursor *c, size_t n) {
  if (c->bad || n > c->size - c->at) {
    c->bad = true;
    return NULL;
  }
  const uint8_t *r = c->p + c->at;
  c->at += n;
  return r;
}

static uint32_t get_u32(cursor *c) {
  const uint8_t *q = take(c, 4);
  if (!q) return 0;
  return (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
}

static uint64_t get_u64(cursor *c) {
  uint64_t lo = get_u32(c);
  return lo | (uint64_t)get_u32(c) << 32;
}

/* A count that the remaining bytes can hold (each item >= min_bytes). */
static int32_t get_count(cursor *c, size_t min_bytes) {
  uint32_t n = get_u32(c);
  if (c->bad || n > (1u << 24) || (size_t)n * min_bytes > c->size - c->at) {
    c->bad = true;
    return 0;
  }
  return (int32_t)n;
}

static char *get_str(cursor *c) {
  uint32_t n = get_u32(c);
  const uint8_t *q = n <= 4096 ? take(c, n) : NULL;
  if (!q) {
    c->bad = true;
    return NULL;
  }
  char *s = rt_mem_alloc((size_t)n + 1);
  if (!s) {
    c->bad = true;
    return NULL;
  }
  memcpy(s, q, n);
  s[n] = '\0';
  if (strlen(s) != n) {
    rt_mem_free(s);
    c->bad = true;
    return NULL;
  }
  return s;
}

void rt_artifact_free_names(char **names, int32_t n) {
  for (int32_t i = 0; names && i < n; ++i) rt_mem_free(names[i]);
  rt_mem_free(names);
}

/* Bytes of an entry (overflow-checked); false when too large. */
static bool entry_bytes(const rt_graph_entry_t *e, uint64_t *out) {
  uint64_t n = rt_dtype_size(e->dtype);
  for (int32_t d = 0; d < e->rank; ++d) {
    uint64_t dim = (uint64_t)e->shape[d];
    if (dim && n > UINT64_MAX / dim) return false;
    n *= dim;
  }
  *out = n;
  return n < ((uint64_t)1 << 48);
}

rt_status_t rt_artifact_corrupt(const char *path, const char *what) {
  return RT_STATUS(DATA_LOSS, "%s: corrupt model library: %s", path, what);
}

/* Parses and checks plan bytes into *out (consts left NULL; num_consts
 * set), with the input / output names. */
rt_status_t rt_artifact_parse_plan(const char *path, const uint8_t *bytes, size_t size,
                                   int32_t num_kernels, rt_graph_plan_t *out, char ***out_in_names,
                                   char ***out_out_names) {
  memset(out, 0, sizeof *out);
  *out_in_names = *out_out_names = NULL;
  cursor c = {bytes, size, 0, false};
  const uint8_t *magic = take(&c, 8);
  if (!magic || memcmp(magic, RT_ARTIFACT_PLAN_MAGIC, 8) != 0) return rt_artifact_corrupt(path, "bad plan magic");
  rt_graph_plan_t *p = out;
  const char *why = NULL;
  p->num_entries = get_count(&c, 24);
  p->entries = rt_mem_calloc((size_t)(p->num_entries ? p->num_entries : 1), sizeof *p->entries);
  if (!p->entries) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory loading %s", path);
  for (int32_t i = 0; !c.bad && i < p->num_entries; ++i) {
    rt_graph_entry_t *e = &p->entries[i];
    const uint8_t *h = take(&c, 8);
    if (!h) break;
    e->kind = (rt_graph_entry_kind_t)h[0];
    e->dtype.code = h[1];
    e->dtype.bits = h[2];
    e->rank = h[3];
    e->dtype.lanes = (uint16_t)(h[4] | h[5] << 8);
    e->index = (int32_t)get_u32(&c);
    e->storage_id = (int32_t)get_u32(&c);
    e->byte_offset = get_u64(&c);
    if (e->rank > RT_TENSOR_MAX_RANK || h[0] > RT_GRAPH_ENTRY_OUTPUT || !rt_dtype_is_valid(e->dtype)) {
      why = "bad entry";
      break;
    }
    for (int32_t d = 0; d < e->rank; ++d) {
      e->shape[d] = (int64_t)get_u64(&c);
      if (e->shape[d] < 0) why = "negative dimension";
    }
    uint64_t nb = 0;
    if (!why && !entry_bytes(e, &nb)) why = "entry too large";
    if (why) break;
  }
  if (!why && !c.bad) {
    p->num_nodes = get_count(&c, 12);
    p->nodes = rt_mem_calloc((size_t)(p->num_nodes ? p->num_nodes : 1), sizeof *p->nodes);
    if (!p->nodes) why = "out of memory";
  }
  for (int32_t n = 0; !why && !c.bad && n < p->num_nodes; ++n) {
    rt_graph_node_t *node = &p->nodes[n];
    node->kernel = (int32_t)get_u32(&c);
    uint32_t nin = get_u32(&c), nout = get_u32(&c);
    if (c.bad || node->kernel < RT_GRAPH_NOP || node->kernel >= num_kernels || nin > 4096 || nout > 4096 ||
        nout == 0 || (size_t)(nin + nout) * 4 > c.size - c.at) {
      why = "bad node";
      break;
    }
    node->num_inputs = (int32_t)nin;
    node->num_outputs = (int32_t)nout;
    node->entries = rt_mem_alloc((size_t)(nin + nout) * sizeof(int32_t));
    if (!node->entries) {
      why = "out of memory";
      break;
    }
    for (uint32_t k = 0; k < nin + nout; ++k) {
      node->entries[k] = (int32_t)get_u32(&c);
      if (node->entries[k] < 0 || node->entries[k] >= p->num_entries) why = "bad node entry";
      /* A kernel writes only temporaries and outputs. */
      if (!why && k >= nin && p->entries[node->entries[k]].kind != RT_GRAPH_ENTRY_TEMP &&
          p->entries[node->entries[k]].kind != RT_GRAPH_ENTRY_OUTPUT) {
        why = "a node writes an input or a constant";
      }
    }
  }
  if (!why && !c.bad) {
    p->num_storage = get_count(&c, 8);
    p->storage_bytes = rt_mem_calloc((size_t)(p->num_storage ? p->num_storage : 1), sizeof(uint64_t));
    if (!p->storage_bytes) why = "out of memory";
    for (int32_t s = 0; !why && s < p->num_storage; ++s) {
      p->storage_bytes[s] = get_u64(&c);
      if (p->storage_bytes[s] >= ((uint64_t)1 << 48)) why = "storage too large";
    }
  }
  char **in_names = NULL, **out_names = NULL;
  if (!why && !c.bad) {
    p->num_inputs = get_count(&c, 8);
    p->input_entries = rt_mem_calloc((size_t)(p->num_inputs ? p->num_inputs : 1), sizeof(int32_t));
    in_names = rt_mem_calloc((size_t)(p->num_inputs ? p->num_inputs : 1), sizeof(char *));
    if (!p->input_entries || !in_names) why = "out of memory";
    for (int32_t i = 0; !why && !c.bad && i < p->num_inputs; ++i) {
      p->input_entries[i] = (int32_t)get_u32(&c);
      in_names[i] = get_str(&c);
      int32_t en = p->input_entries[i];
      if (en < 0 || en >= p->num_entries || p->entries[en].kind != RT_GRAPH_ENTRY_INPUT ||
          p->entries[en].index != i) {
        why = "bad input";
      }
    }
  }
  if (!why && !c.bad) {
    p->num_outputs = get_count(&c, 12);
    p->output_entries = rt_mem_calloc((size_t)(p->num_outputs ? p->num_outputs : 1), sizeof(int32_t));
    p->output_sources = rt_mem_calloc((size_t)(p->num_outputs ? p->num_outputs : 1), sizeof(int32_t));
    out_names = rt_mem_calloc((size_t)(p->num_outputs ? p->num_outputs : 1), sizeof(char *));
    if (!p->output_entries || !p->output_sources || !out_names) why = "out of memory";
    for (int32_t o = 0; !why && !c.bad && o < p->num_outputs; ++o) {
      p->output_entries[o] = (int32_t)get_u32(&c);
      p->output_sources[o] = (int32_t)get_u32(&c);
      out_names[o] = get_str(&c);
      int32_t en = p->output_entries[o], src = p->output_sources[o];
      if (en < 0 || en >= p->num_entries || p->entries[en].kind != RT_GRAPH_ENTRY_OUTPUT ||
          p->entries[en].index != o || src < -1 || src >= p->num_entries) {
        why = "bad output";
      }
      uint64_t a = 0, b = 0;
      if (!why && src >= 0 && (!entry_bytes(&p->entries[src], &a) ||
                               !entry_bytes(&p->entries[en], &b) || a != b)) {
        why = "bad output source";
      }
    }
  }
  if (!why && !c.bad) {
    p->num_consts = get_count(&c, 0);
    if (c.at != c.size) why = "trailing bytes after the plan";
  }
  for (int32_t i = 0; !why && !c.bad && i < p->num_entries; ++i) {
    const rt_graph_entry_t *e = &p->entries[i];
    uint64_t nb = 0;
    entry_bytes(e, &nb);
    if (e->kind == RT_GRAPH_ENTRY_TEMP &&
        (e->storage_id < 0 || e->storage_id >= p->num_storage || e->byte_offset % RT_TENSOR_ALIGNMENT ||
         e->byte_offset > p->storage_bytes[e->storage_id] ||
         p->storage_bytes[e->storage_id] - e->byte_offset < nb)) {
      why = "a temporary does not fit its storage";
    }
    if (e->kind == RT_GRAPH_ENTRY_CONST && (e->index < 0 || e->index >= p->num_consts)) why = "bad constant";
    if (e->kind == RT_GRAPH_ENTRY_INPUT && (e->index < 0 || e->index >= p->num_inputs)) why = "bad input";
    if (e->kind == RT_GRAPH_ENTRY_OUTPUT && (e->index < 0 || e->index >= p->num_outputs ||
                                             p->output_entries[e->index] != i)) {
      why = "bad output";
    }
  }
  if (c.bad && !why) why = "truncated plan";
  if (why) {
    rt_status_t st = strcmp(why, "out of memory") == 0
                         ? RT_STATUS(RESOURCE_EXHAUSTED, "out of memory loading %s", path)
                         : rt_artifact_corrupt(path, why);
    rt_artifact_free_names(in_names, p->num_inputs);
    rt_artifact_free_names(out_names, p->num_outputs);
    p->num_consts = 0; /* no tensors yet */
    rt_graph_plan_deinitialize(p);
    return st;
  }
  *out_in_names = in_names;
  *out_out_names = out_names;
  return RT_OK;
}

void rt_artifact_io_list_deinitialize(rt_artifact_io_list_t *l) {
  for (int32_t i = 0; l->io && i < l->count; ++i) {
    rt_mem_free((char *)l->io[i].name);
    rt_mem_free((int64_t *)l->io[i].shape);
  }
  rt_mem_free(l->io);
  rt_mem_free(l->names);
  memset(l, 0, sizeof *l);
}

static bool get_io_list(cursor *c, rt_artifact_io_list_t *out) {
  out->count = get_count(c, 12);
  out->io = rt_mem_calloc((size_t)(out->count ? out->count : 1), sizeof *out->io);
  out->names = rt_mem_calloc((size_t)(out->count ? out->count : 1), sizeof *out->names);
  if (!out->io || !out->names) {
    out->count = 0;
    return false;
  }
  for (int32_t i = 0; !c->bad && i < out->count; ++i) {
    rt_tensor_info_t *io = &out->io[i];
    char *name = get_str(c);
    io->name = out->names[i] = name;
    const uint8_t *h = take(c, 4);
    uint32_t rank = get_u32(c);
    if (c->bad || !name) break;
    io->dtype = (rt_dtype_t){h[0], h[1], (uint16_t)(h[2] | h[3] << 8)};
    if (!rt_dtype_is_valid(io->dtype) || rank > RT_TENSOR_MAX_RANK) {
      c->bad = true;
      break;
    }
    io->rank = (int32_t)rank;
    int64_t *shape = rt_mem_calloc(rank ? rank : 1, sizeof(int64_t));
    io->shape = shape;
    if (!shape) {
      c->bad = true;
      break;
    }
    for (uint32_t d = 0; d < rank; ++d) {
      shape[d] = (int64_t)get_u64(c);
      if (shape[d] < -1) c->bad = true;
    }
  }
  return !c->bad;
}

rt_status_t rt_artifact_parse_vm_plan(const char *path, const rt_artifact_descriptor_t *d,
                                      rt_artifact_io_list_t *out_inputs,
                                      rt_artifact_io_list_t *out_outputs, const uint8_t **out_exe,
                                      size_t *out_exe_size) {
  cursor c = {d->plan, (size_t)d->plan_size, 8, false};
  bool ok = get_io_list(&c, out_inputs);
  ok = ok && get_io_list(&c, out_outputs);
  uint64_t size = ok ? get_u64(&c) : 0;
  if (!ok || c.bad || size != c.size - c.at) return rt_artifact_corrupt(path, "truncated vm signature");
  if (d->params_size != 0) return rt_artifact_corrupt(path, "a vm model with a params blob");
  *out_exe = c.p + c.at;
  *out_exe_size = (size_t)size;
  return RT_OK;
}

rt_status_t rt_artifact_check_descriptor(const rt_artifact_descriptor_t *d, const char *path) {
  if (memcmp(d->magic, RT_ARTIFACT_MAGIC, 8) != 0) {
    return RT_STATUS(DATA_LOSS, "%s: not a relayrt model library (bad magic in %s)", path,
                     RT_ARTIFACT_SYMBOL);
  }
  if (d->format_version != RT_ARTIFACT_FORMAT_VERSION || d->kernel_abi_version != RT_KERNEL_ABI_VERSION) {
    return RT_STATUS(FAILED_PRECONDITION, "%s: model library format %u with kernel ABI %u; this "
                     "runtime reads format %d, kernel ABI %d (export the model again with this "
                     "relayrt)", path, (unsigned)d->format_version, (unsigned)d->kernel_abi_version,
                     RT_ARTIFACT_FORMAT_VERSION, RT_KERNEL_ABI_VERSION);
  }
  if (d->descriptor_size != sizeof *d) return rt_artifact_corrupt(path, "descriptor size");
  if (d->num_kernels > (1u << 20) || (d->num_kernels && (!d->kernels || !d->kernel_names)) ||
      !d->plan || d->plan_size > ((uint64_t)1 << 32) || (d->params_size && !d->params) ||
      d->params_size > ((uint64_t)1 << 48)) {
    return rt_artifact_corrupt(path, "descriptor fields");
  }
  for (uint32_t k = 0; k < d->num_kernels; ++k) {
    if (!d->kernels[k] || !d->kernel_names[k]) return rt_artifact_corrupt(path, "kernel table");
  }
  if (!d->target || !d->isa || strnlen(d->target, 4096) == 4096 || strnlen(d->isa, 1024) == 1024) {
    return rt_artifact_corrupt(path, "target description");
  }
  RT_RETURN_IF_ERROR(rt_artifact_check_isa(path, d->target, d->isa));
  uint64_t sum = rt_artifact_fnv(UINT64_C(0xcbf29ce484222325), d->plan, (size_t)d->plan_size);
  sum = rt_artifact_fnv(sum, d->params, (size_t)d->params_size);
  if (sum != d->checksum) return rt_artifact_corrupt(path, "checksum mismatch");
  return RT_OK;
}

rt_status_t rt_artifact_read_consts(const rt_artifact_descriptor_t *d, const char *path,
                                   const rt_graph_plan_t *info, int32_t *num_consts,
                                   rt_tensor_t ***consts) {
  *num_consts = info->num_consts;
  *consts = rt_mem_calloc((size_t)(*num_consts ? *num_consts : 1), sizeof(rt_tensor_t *));
  if (!*consts) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory loading %s", path);
  rt_tensor_t **c = *consts;
  size_t off = 0;
  for (int32_t i = 0; i < *num_consts; ++i) {
    RT_RETURN_IF_ERROR_ANNOTATE(rt_ndarray_blob_read(rt_allocator_system(), d->params, (size_t)d->params_size,
                                                     &off, path, &c[i]),
                                "reading constant %d", (int)i);
  }
  if (off != d->params_size) return rt_artifact_corrupt(path, "trailing bytes after the constants");
  for (int32_t i = 0; i < info->num_entries; ++i) {
    const rt_graph_entry_t *e = &info->entries[i];
    if (e->kind != RT_GRAPH_ENTRY_CONST) continue;
    const rt_tensor_t *t = c[e->index];
    bool ok = rt_dtype_equal(rt_tensor_dtype(t), e->dtype) && rt_tensor_rank(t) == e->rank;
    for (int32_t k = 0; ok && k < e->rank; ++k) ok = rt_tensor_shape(t)[k] == e->shape[k];
    if (!ok) return rt_artifact_corrupt(path, "a constant does not match its entry");
  }
  return RT_OK;
}
