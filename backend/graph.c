/* Graph codegen: an optimized module's @main -> a flat plan of kernel calls
 * with planned memory, plus the JIT-compiled kernels.
 *
 * 1. Walk @main's body in post order (an explicit stack; the bodies of
 *    Primitive functions are not entered). Each node maps to the list of
 *    entries (tensors) it denotes: a param is an input entry, a constant a
 *    const entry, a call of a Primitive function a new node with one entry
 *    per result tensor, a tuple the concatenation of its fields' lists, a
 *    projection one field's list. Anything else (if, let, closures, calls of
 *    globals or of ops outside a group) is refused with a message naming
 *    the vm and debug executors.
 * 2. Structurally equal groups share one kernel (struct hash + equality),
 *    and every distinct group is compiled in ONE jit module.
 * 3. Main's result entries become output entries (own tensors, never
 *    reused); an output that is an input, a constant or a repeat is copied
 *    at the end of a run.
 * 4. Memory plan (after TVM's token allocator, graph_plan_memory.cc): walking
 *    the nodes in order, each temporary output takes the smallest free
 *    block whose size is in [size, 16 * size], or a new block; a block is
 *    freed after the last node that reads it. A node's outputs are
 *    allocated before its inputs are freed, so they never alias them,
 *    except an output planned over an input that dies there and that the
 *    kernel reads only through element-wise tail ops ("outputs over a
 *    dying input" below).
 *    A tensor sits in the middle of its block (its offset (block - size)
 *    / 2, rounded down to 64 bytes), so that on two threads, where most
 *    kernels split their output by channels into a first and a second
 *    half, every tensor the block holds has its halves' boundary at the
 *    same byte and each byte is written by the same core from tensor to
 *    tensor: a write to a line that the other core wrote or read last is
 *    the costly case of bench/cross_core. Two threads on the project's
 *    VM in that case, alternated: mobilenet_v2 3.75-3.91 -> 3.52-3.67 ms,
 *    squeezenet1_1 2.74-2.88 -> 2.66-2.74, efficientnet_b0 4.96-5.07 ->
 *    4.75-4.97; resnet50 and densenet121 within noise; one thread within
 *    noise.
 *    Before it, a concatenate whose inputs can be written into its
 *    output's slabs becomes a no-op (elide_concats, "concatenations in
 *    place" below).
 *
 * rt_graph_check runs step 1 alone with `?` dims allowed: the refusals that
 * do not depend on shapes, for a graph executor that specializes its plan
 * per input shape (backend/graph_specialize.c). With every input static, a
 * value that still has a `?` dim depends on the input values (a
 * dyn.reshape to a shape held by an input): that refusal names the vm
 * alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (oom = true)
#include "runtime/uthash_rt.h"

#include "backend/graph.h"
#include "backend/host_kernel.h"
#include "ir/op/dyn.h"
#include "ir/op/plan.h"
#include "jit/custom.h"
#include "runtime/size.h"

typedef struct {
  uint32_t id;            /* IR node id */
  int32_t count;
  int32_t *entries;
  UT_hash_handle hh;
} value_map;

typedef struct {
  rt_ir_expr_t *fn;
  int32_t kernel;
  uint64_t hash;
} group_entry;

typedef struct {
  rt_module_t *m;
  rt_ir_expr_t *main_fn;
  value_map *values;
  /* growing arrays */
  rt_graph_entry_t *entries;
  int32_t num_entries, cap_entries;
  rt_graph_node_t *nodes;
  int32_t num_nodes, cap_nodes;
  rt_tensor_t **consts;
  int32_t num_consts, cap_consts;
  group_entry *groups;      /* distinct kernels */
  int32_t num_groups, cap_groups;
  bool allow_any;           /* rt_graph_check: `?` dims are fine (nothing is planned) */
  /* rt_graph_check: per @main parameter, whether the executor specializes
   * on its value (rt_ir_value_params), so an `if` on it folds; else NULL. */
  const bool *value_params;
} gb;

#define GROW(arr, n, cap, type)                                          \
  do {                                                                   \
    if ((n) == (cap)) {                                                  \
      int32_t ncap_ = (cap) ? (cap) * 2 : 16;                            \
      type *p_ = rt_mem_realloc((arr), (size_t)ncap_ * sizeof(type));           \
      if (!p_) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph"); \
      (arr) = p_;                                                        \
      (cap) = ncap_;                                                     \
    }                                                                    \
  } while (0)

static value_map *lookup(gb *g, const rt_ir_expr_t *e) {
  value_map *v = NULL;
  HASH_FIND(hh, g->values, &e->id, sizeof(uint32_t), v);
  return v;
}

static rt_status_t bind_value(gb *g, const rt_ir_expr_t *e, int32_t count, const int32_t *entries) {
  bool oom = false;
  value_map *v = rt_mem_calloc(1, sizeof *v);
  if (!v) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
  v->id = e->id;
  v->count = count;
  v->entries = rt_mem_alloc((size_t)(count ? count : 1) * sizeof(int32_t));
  if (!v->entries) {
    rt_mem_free(v);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
  }
  if (count) memcpy(v->entries, entries, (size_t)count * sizeof(int32_t));
  HASH_ADD(hh, g->values, id, sizeof(uint32_t), v);
  if (oom) {
    rt_mem_free(v->entries);
    rt_mem_free(v);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
  }
  return RT_OK;
}

static rt_status_t refuse(const rt_ir_expr_t *e, const char *what) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_ir_describe_binding(e, &b);
  rt_status_t st;
  if (e->span.source) {
    st = RT_STATUS(INVALID_ARGUMENT,
                   "the graph executor does not run %s (%s at %s:%d:%d); use the \"vm\" or "
                   "\"debug\" executor",
                   what, b.data ? b.data : "", e->span.source->name, (int)e->span.line,
                   (int)e->span.col);
  } else {
    st = RT_STATUS(INVALID_ARGUMENT,
                   "the graph executor does not run %s (%s); use the \"vm\" or \"debug\" executor",
                   what, b.data ? b.data : "");
  }
  rt_strbuf_deinitialize(&b);
  return st;
}

/* A List or Option value (ONNX sequences and optionals): the vm and the
 * debug executor run them. */
static rt_status_t refuse_adt(const rt_ir_expr_t *e) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_ir_describe_binding(e, &b);
  rt_status_t st = RT_STATUS(INVALID_ARGUMENT, "the graph executor does not run list and option "
                             "values (%s); use the \"vm\" or \"debug\" executor",
                             b.data ? b.data : "");
  rt_strbuf_deinitialize(&b);
  return st;
}

/* A value with a `?` dim when every input of @main is static: no binding
 * of input shapes makes it static (a dyn.reshape to a shape held by an
 * input; until a DynamicToStatic pass exists, also one computed from
 * shapes alone), so no plan can be made before the values are known. */
static rt_status_t refuse_value_dependent(const rt_ir_expr_t *e, const rt_ir_type_t *t) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_ir_describe_binding(e, &b);
  if (e->span.source) {
    rt_strbuf_printf(&b, " at %s:%d:%d", e->span.source->name, (int)e->span.line, (int)e->span.col);
  }
  rt_strbuf_puts(&b, ": its type ");
  rt_ir_type_print(t, &b);
  rt_status_t st = RT_STATUS(INVALID_ARGUMENT, "the graph executor does not run %s has `?` dims "
                             "with every input shape known: its shape depends on the input "
                             "values; run it with the vm executor", b.data ? b.data : "");
  rt_strbuf_deinitialize(&b);
  return st;
}

/* A new entry of static tensor type t. */
static rt_status_t new_entry(gb *g, const rt_ir_expr_t *at, const rt_ir_type_t *t,
                             rt_graph_entry_kind_t kind, int32_t index, int32_t *out) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (t && (t->kind == RT_IR_TYPE_LIST || t->kind == RT_IR_TYPE_OPTION)) return refuse_adt(at);
  if (!t || t->kind != RT_IR_TYPE_TENSOR) return refuse(at, "values that are not tensors");
  for (int32_t d = 0; d < t->tensor.rank && !g->allow_any; ++d) {
    if (t->tensor.shape[d] != RT_DIM_ANY) continue;
    if (kind == RT_GRAPH_ENTRY_INPUT) {
      return refuse(at, "dynamic shapes (`?` dims; bind them with --shape, or use the vm)");
    }
    bool inputs_static = true;
    for (int32_t i = 0; i < g->main_fn->fn.nparams; ++i) {
      const rt_ir_type_t *pt = rt_ir_type_resolve(g->main_fn->fn.params[i]->checked_type);
      for (int32_t k = 0; pt && pt->kind == RT_IR_TYPE_TENSOR && k < pt->tensor.rank; ++k) {
        inputs_static = inputs_static && pt->tensor.shape[k] != RT_DIM_ANY;
      }
    }
    if (inputs_static) return refuse_value_dependent(at, t);
    return refuse(at, "dynamic shapes (`?` dims; bind them with --shape, or use the vm)");
  }
  GROW(g->entries, g->num_entries, g->cap_entries, rt_graph_entry_t);
  rt_graph_entry_t *e = &g->entries[g->num_entries];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->index = index;
  e->storage_id = -1;
  e->dtype = t->tensor.dtype;
  e->rank = t->tensor.rank;
  for (int32_t d = 0; d < t->tensor.rank; ++d) e->shape[d] = t->tensor.shape[d];
  *out = g->num_entries++;
  return RT_OK;
}

static void collect_leaves(const rt_ir_type_t *t, const rt_ir_type_t **out, int32_t *n, int32_t cap) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (t && t->kind == RT_IR_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->tuple.count; ++i) collect_leaves(t->tuple.fields[i], out, n, cap);
    return;
  }
  if (*n < cap) out[*n] = t;
  (*n)++;
}

/* The kernel index of Primitive function fn: an equal group reuses one. */
static rt_status_t kernel_of(gb *g, rt_ir_expr_t *fn, int32_t *out) {
  uint64_t h = rt_ir_struct_hash(fn);
  for (int32_t i = 0; i < g->num_groups; ++i) {
    if (g->groups[i].hash == h && rt_ir_struct_equal(g->groups[i].fn, fn)) {
      *out = g->groups[i].kernel;
      return RT_OK;
    }
  }
  GROW(g->groups, g->num_groups, g->cap_groups, group_entry);
  g->groups[g->num_groups] = (group_entry){fn, g->num_groups, h};
  *out = g->num_groups++;
  return RT_OK;
}

#define MAX_LEAVES 256

/* Whether every variable `cond` reads is a parameter of @main the
 * executor specializes on (rt_graph_check only). */
typedef struct {
  const gb *g;
  bool ok;
} cond_scan;

static rt_status_t cond_var(void *user, rt_ir_expr_t *e) {
  cond_scan *c = user;
  if (e->kind != RT_IR_VAR) return RT_OK;
  bool param = false;
  for (int32_t k = 0; k < c->g->main_fn->fn.nparams; ++k) {
    if (c->g->main_fn->fn.params[k] == e) param = c->g->value_params[k];
  }
  c->ok = c->ok && param;
  return RT_OK;
}

static rt_status_t cond_folds(const gb *g, rt_ir_expr_t *cond, bool *out) {
  *out = false;
  if (!g->value_params) return RT_OK;
  cond_scan c = {g, true};
  RT_RETURN_IF_ERROR(rt_ir_post_order(rt_mem_current(), cond, cond_var, &c));
  *out = c.ok;
  return RT_OK;
}

static rt_status_t visit_node(gb *g, rt_ir_expr_t *e) {
  int32_t ids[MAX_LEAVES];
  int32_t n = 0;
  switch (e->kind) {
    case RT_IR_VAR: {
      int32_t index = -1;
      for (int32_t i = 0; i < g->main_fn->fn.nparams; ++i) {
        if (g->main_fn->fn.params[i] == e) index = i;
      }
      if (index < 0) return refuse(e, "free variables");
      RT_RETURN_IF_ERROR(new_entry(g, e, e->checked_type, RT_GRAPH_ENTRY_INPUT, index, &ids[0]));
      return bind_value(g, e, 1, ids);
    }
    case RT_IR_CONSTANT: {
      GROW(g->consts, g->num_consts, g->cap_consts, rt_tensor_t *);
      RT_RETURN_IF_ERROR(new_entry(g, e, e->checked_type, RT_GRAPH_ENTRY_CONST, g->num_consts, &ids[0]));
      rt_tensor_retain(e->constant.value);
      g->consts[g->num_consts++] = e->constant.value;
      return bind_value(g, e, 1, ids);
    }
    case RT_IR_TUPLE:
      for (int32_t i = 0; i < e->tuple.count; ++i) {
        value_map *v = lookup(g, e->tuple.fields[i]);
        for (int32_t k = 0; k < v->count; ++k) {
          if (n == MAX_LEAVES) return refuse(e, "tuples of more than 256 tensors");
          ids[n++] = v->entries[k];
        }
      }
      return bind_value(g, e, n, ids);
    case RT_IR_TUPLE_GET_ITEM: {
      /* Fields of the tuple value, by the tuple type's leaf counts. */
      rt_ir_type_t *tt = rt_ir_type_resolve(e->get_item.tuple->checked_type);
      value_map *v = lookup(g, e->get_item.tuple);
      int32_t start = 0;
      for (int32_t i = 0; i < e->get_item.index; ++i) {
        const rt_ir_type_t *leaves[MAX_LEAVES];
        int32_t c = 0;
        collect_leaves(tt->tuple.fields[i], leaves, &c, MAX_LEAVES);
        start += c;
      }
      const rt_ir_type_t *leaves[MAX_LEAVES];
      int32_t c = 0;
      collect_leaves(tt->tuple.fields[e->get_item.index], leaves, &c, MAX_LEAVES);
      if (start + c > v->count) return RT_STATUS(INTERNAL, "projection past a tuple's entries");
      return bind_value(g, e, c, v->entries + start);
    }
    case RT_IR_CALL: {
      rt_ir_expr_t *callee = e->call.callee;
      if (callee->kind == RT_IR_OP) return refuse(e, "op calls outside fused groups (FuseOps was disabled)");
      if (!rt_ir_is_primitive(callee)) {
        if (callee->kind == RT_IR_GLOBAL_VAR) return refuse(e, "calls of global functions");
        return refuse(e, "calls of closures");
      }
      int32_t kernel = 0;
      RT_RETURN_IF_ERROR(kernel_of(g, callee, &kernel));
      int32_t nin = 0;
      for (int32_t i = 0; i < e->call.nargs; ++i) {
        value_map *v = lookup(g, e->call.args[i]);
        for (int32_t k = 0; k < v->count; ++k) {
          if (nin == MAX_LEAVES) return refuse(e, "kernels with more than 256 tensors");
          ids[nin++] = v->entries[k];
        }
      }
      const rt_ir_type_t *leaves[MAX_LEAVES];
      int32_t nout = 0;
      collect_leaves(e->checked_type, leaves, &nout, MAX_LEAVES);
      if (nin + nout > MAX_LEAVES) return refuse(e, "kernels with more than 256 tensors");
      for (int32_t k = 0; k < nout; ++k) {
        RT_RETURN_IF_ERROR(new_entry(g, e, leaves[k], RT_GRAPH_ENTRY_TEMP, -1, &ids[nin + k]));
      }
      GROW(g->nodes, g->num_nodes, g->cap_nodes, rt_graph_node_t);
      rt_graph_node_t *node = &g->nodes[g->num_nodes];
      memset(node, 0, sizeof *node);
      node->kernel = kernel;
      node->num_inputs = nin;
      node->num_outputs = nout;
      node->entries = rt_mem_alloc((size_t)(nin + nout) * sizeof(int32_t));
      if (!node->entries) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
      memcpy(node->entries, ids, (size_t)(nin + nout) * sizeof(int32_t));
      g->num_nodes++;
      return bind_value(g, e, nout, ids + nin);
    }
    case RT_IR_IF: {
      /* rt_graph_check: a condition computed from inputs the executor
       * specializes on folds away in each specialization (FoldConstant);
       * both branches were checked. */
      bool folds = false;
      RT_RETURN_IF_ERROR(cond_folds(g, e->if_.cond, &folds));
      if (!folds) return refuse(e, "if (control flow)");
      const value_map *v = lookup(g, e->if_.then_branch);
      return bind_value(g, e, v->count, v->entries);
    }
    case RT_IR_LET: return refuse(e, "let bindings");
    case RT_IR_FUNCTION: return refuse(e, "closures");
    case RT_IR_GLOBAL_VAR: return refuse(e, "references to global functions");
    case RT_IR_OP: return refuse(e, "ops used as values");
  }
  return RT_STATUS(INTERNAL, "unknown node kind");
}

typedef struct {
  rt_ir_expr_t *e;
  int32_t next;
} frame_t;

static int32_t graph_child(const gb *g, rt_ir_expr_t *e, int32_t i, rt_ir_expr_t **out) {
  switch (e->kind) {
    case RT_IR_IF:
      if (!g->value_params) return 0;
      *out = i == 0 ? e->if_.cond : i == 1 ? e->if_.then_branch : e->if_.else_branch;
      return 3;
    case RT_IR_CALL:
      if (i < e->call.nargs) *out = e->call.args[i];
      return e->call.nargs;
    case RT_IR_TUPLE:
      if (i < e->tuple.count) *out = e->tuple.fields[i];
      return e->tuple.count;
    case RT_IR_TUPLE_GET_ITEM:
      if (i < 1) *out = e->get_item.tuple;
      return 1;
    default:
      return 0;
  }
}

static rt_status_t walk(gb *g, rt_ir_expr_t *root) {
  rt_status_t st = RT_OK;
  frame_t *stack = NULL;
  int32_t depth = 0, cap = 0;
  if (depth == cap) {
    cap = 64;
    stack = rt_mem_alloc((size_t)cap * sizeof(frame_t));
    if (!stack) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
  }
  stack[depth++] = (frame_t){root, 0};
  while (depth > 0 && !st) {
    frame_t *f = &stack[depth - 1];
    rt_ir_expr_t *child = NULL;
    int32_t total = graph_child(g, f->e, f->next, &child);
    if (f->next < total) {
      f->next++;
      if (lookup(g, child)) continue;
      if (depth == cap) {
        frame_t *p = rt_mem_realloc(stack, (size_t)cap * 2 * sizeof(frame_t));
        if (!p) {
          st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
          break;
        }
        stack = p;
        cap *= 2;
      }
      stack[depth++] = (frame_t){child, 0};
      continue;
    }
    rt_ir_expr_t *e = f->e;
    --depth;
    if (!lookup(g, e)) st = visit_node(g, e);
  }
  rt_mem_free(stack);
  return st;
}

/* ---- concatenations in place ----------------------------------------------
 *
 * A kernel that only concatenates its inputs, along an axis whose outer
 * dims are all 1 (the channels of a batch-1 NCHW or NCHW[x]c tensor),
 * copies each input to one contiguous slab of its output. When every input
 * is an intermediate this node alone reads, and every slab starts on an
 * RT_TENSOR_ALIGNMENT boundary, the producers write straight into the
 * slabs instead: each input entry aliases its slab (alias_to, alias_off)
 * and the node becomes RT_GRAPH_NOP. (squeezenet's fire modules: the copy
 * cost 4-5% of a run on one thread, more on two, where half of what it
 * read came from the other core's cache.) A concatenate whose output is
 * itself a slab of another chains: offsets add up to the last one. */

/* Whether Primitive function fn is concatenate((%p0, %p1, ...)) of its
 * own parameters in order (or concatenate(%p) of a tuple parameter), with
 * a static output whose dims before the axis are all 1. */
static bool is_slab_concat(const rt_ir_expr_t *fn) {
  const rt_ir_expr_t *body = fn->fn.body;
  if (body->kind != RT_IR_CALL || body->call.callee->kind != RT_IR_OP ||
      body->call.callee->op.op->id != RT_OP_CONCATENATE || body->call.nargs != 1) {
    return false;
  }
  const rt_ir_expr_t *tup = body->call.args[0];
  if (tup->kind == RT_IR_TUPLE) {
    if (tup->tuple.count != fn->fn.nparams) return false;
    for (int32_t i = 0; i < tup->tuple.count; ++i) {
      if (tup->tuple.fields[i] != fn->fn.params[i]) return false;
    }
  } else {
    /* concatenate(%p) of one tuple parameter of tensors (FuseOps with
     * fuse.max_depth 1 makes these). */
    const rt_ir_type_t *pt = rt_ir_type_resolve(tup->checked_type);
    if (fn->fn.nparams != 1 || tup != fn->fn.params[0] || !pt || pt->kind != RT_IR_TYPE_TUPLE) return false;
    for (int32_t i = 0; i < pt->tuple.count; ++i) {
      const rt_ir_type_t *ft = rt_ir_type_resolve(pt->tuple.fields[i]);
      if (!ft || ft->kind != RT_IR_TYPE_TENSOR) return false;
    }
  }
  const rt_ir_type_t *t = rt_ir_type_resolve(body->checked_type);
  if (!t || t->kind != RT_IR_TYPE_TENSOR) return false;
  int64_t axis = rt_attrs_int(body->call.attrs, "axis");
  if (axis < 0) axis += t->tensor.rank;
  if (axis < 0 || axis >= t->tensor.rank) return false;
  for (int32_t d = 0; d < axis; ++d) {
    if (t->tensor.shape[d] != 1) return false;
  }
  return true;
}

/* Marks the concatenations that can run in place (above): alias_to[e] is
 * the entry whose storage entry e lives in (-1: its own), at byte
 * alias_off[e]; such nodes become RT_GRAPH_NOP. */
static rt_status_t elide_concats(const gb *g, rt_graph_plan_t *p, int32_t *alias_to, uint64_t *alias_off) {
  const int32_t ne = p->num_entries;
  int32_t *readers = rt_mem_calloc((size_t)(ne ? ne : 1), sizeof(int32_t));
  if (!readers) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
  for (int32_t n = 0; n < p->num_nodes; ++n) {
    for (int32_t k = 0; k < p->nodes[n].num_inputs; ++k) readers[p->nodes[n].entries[k]]++;
  }
  for (int32_t n = 0; n < p->num_nodes; ++n) {
    rt_graph_node_t *node = &p->nodes[n];
    if (node->num_outputs != 1 || !is_slab_concat(g->groups[node->kernel].fn)) continue;
    const int32_t out = node->entries[node->num_inputs];
    bool ok = p->entries[out].kind == RT_GRAPH_ENTRY_TEMP && node->num_inputs <= MAX_LEAVES;
    uint64_t offs[MAX_LEAVES], off = 0;
    for (int32_t k = 0; ok && k < node->num_inputs; ++k) {
      const rt_graph_entry_t *e = &p->entries[node->entries[k]];
      size_t bytes = 0;
      ok = e->kind == RT_GRAPH_ENTRY_TEMP && readers[node->entries[k]] == 1 &&
           off % RT_TENSOR_ALIGNMENT == 0 &&
           rt_size_of_shape(e->rank, e->shape, rt_dtype_size(e->dtype), &bytes) == RT_OK;
      offs[k] = off;
      off += bytes;
    }
    if (!ok) continue;
    for (int32_t k = 0; k < node->num_inputs; ++k) {
      alias_to[node->entries[k]] = out;
      alias_off[node->entries[k]] = offs[k];
    }
    node->kernel = RT_GRAPH_NOP;
  }
  rt_mem_free(readers);
  return RT_OK;
}

/* Drops the groups no node runs any longer (a concatenate made a no-op),
 * so they are not compiled; renumbers the nodes' kernels. */
static rt_status_t drop_unused_groups(gb *g, rt_graph_plan_t *p) {
  int32_t *remap = rt_mem_alloc((size_t)(g->num_groups ? g->num_groups : 1) * sizeof(int32_t));
  if (!remap) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
  for (int32_t k = 0; k < g->num_groups; ++k) remap[k] = -1;
  for (int32_t n = 0; n < p->num_nodes; ++n) {
    if (p->nodes[n].kernel != RT_GRAPH_NOP) remap[p->nodes[n].kernel] = 0;
  }
  int32_t kept = 0;
  for (int32_t k = 0; k < g->num_groups; ++k) {
    if (remap[k] < 0) continue;
    remap[k] = kept;
    g->groups[kept] = g->groups[k];
    g->groups[kept].kernel = kept;
    kept++;
  }
  g->num_groups = kept;
  for (int32_t n = 0; n < p->num_nodes; ++n) {
    if (p->nodes[n].kernel != RT_GRAPH_NOP) p->nodes[n].kernel = remap[p->nodes[n].kernel];
  }
  rt_mem_free(remap);
  return RT_OK;
}

/* ---- outputs over a dying input ----------------------------------------------
 *
 * A kernel whose one output has exactly the type of an input that its body
 * reads only as an operand of elementwise or broadcast tail ops (each of the
 * output's type, on the way to the output: conv2d(x, w) + b + r, the
 * residual r) computes output element i from input element i alone, and
 * reads it before it writes element i (every template's epilogue and the
 * loop nests load the operands of an element, or of a vector of them, then
 * store it). Where that input is a temporary the node is the last to read,
 * the output takes its storage: the epilogue then writes the lines it has
 * just read, where a fresh output's lines were misses (write-allocations
 * from L3 or memory) beside the input's. ResNet-50's 16 residual kernels,
 * 1 thread, --profile summed, alternated: 9.6-10.5 -> 9.2-9.8 ms; whole
 * models within noise (docs/executors.md). The profile's warm second call
 * of such a node writes a scratch output first (graph_runtime.c). */

typedef struct {
  const rt_ir_expr_t *param;
  const rt_ir_type_t *type; /* the output's */
  int32_t budget;           /* nodes left to visit (a DAG walked as a tree) */
} tail_walk_t;

static bool same_tensor_type(const rt_ir_type_t *a, const rt_ir_type_t *b) {
  a = rt_ir_type_resolve((rt_ir_type_t *)a);
  b = rt_ir_type_resolve((rt_ir_type_t *)b);
  if (!a || !b || a->kind != RT_IR_TYPE_TENSOR || b->kind != RT_IR_TYPE_TENSOR) return false;
  if (!rt_dtype_equal(a->tensor.dtype, b->tensor.dtype) || a->tensor.rank != b->tensor.rank) return false;
  for (int32_t d = 0; d < a->tensor.rank; ++d) {
    if (a->tensor.shape[d] != b->tensor.shape[d] || a->tensor.shape[d] < 0) return false;
  }
  return true;
}

/* Whether every use of w->param under e is an operand of an elementwise or
 * broadcast call on the tail (`tail`: e's value reaches the output through
 * such calls of the output's type alone). */
static bool tail_only_uses(tail_walk_t *w, const rt_ir_expr_t *e, bool tail) {
  if (--w->budget < 0) return false;
  if (e == w->param) return false; /* reached other than as a tail call's operand */
  if (e->kind != RT_IR_CALL) {
    if (e->kind == RT_IR_TUPLE) {
      for (int32_t i = 0; i < e->tuple.count; ++i) {
        if (!tail_only_uses(w, e->tuple.fields[i], false)) return false;
      }
      return true;
    }
    if (e->kind == RT_IR_TUPLE_GET_ITEM) return tail_only_uses(w, e->get_item.tuple, false);
    return e->kind == RT_IR_VAR || e->kind == RT_IR_CONSTANT;
  }
  if (e->call.callee->kind != RT_IR_OP) return false;
  const rt_op_pattern_t pat = e->call.callee->op.op->pattern;
  const bool ew = pat == RT_OP_PATTERN_ELEMWISE || pat == RT_OP_PATTERN_BROADCAST;
  /* Besides the tail, an anchor (a convolution, a dense, a pool: computed
   * into registers or workspace and stored through the epilogue) and
   * element-wise producers; nothing whose lowering might pass through
   * the output's memory before the tail reads the input. */
  if (!ew && pat != RT_OP_PATTERN_OUT_ELEMWISE_FUSABLE) return false;
  const bool on_tail = tail && ew && same_tensor_type(e->checked_type, w->type);
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    const rt_ir_expr_t *a = e->call.args[i];
    if (a == w->param) {
      if (!on_tail) return false;
      continue;
    }
    if (!tail_only_uses(w, a, on_tail)) return false;
  }
  return true;
}

/* The input slot of node n whose storage its output may take (above), or
 * -1. Checks the kernel's body; plan_memory checks the entries (a
 * temporary the node alone reads last, once, in no alias chain). */
static int32_t reuse_slot(const gb *g, const rt_graph_plan_t *p, int32_t n) {
  const rt_graph_node_t *node = &p->nodes[n];
  if (node->kernel == RT_GRAPH_NOP || node->num_outputs != 1) return -1;
  const rt_ir_expr_t *fn = g->groups[node->kernel].fn;
  bool host = true;
  rt_status_t st = rt_backend_is_host_group(fn, &host);
  if (st) rt_status_free(st);
  if (st || host || fn->fn.nparams != node->num_inputs) return -1;
  const rt_ir_type_t *t = rt_ir_type_resolve(fn->fn.body->checked_type);
  if (!t || t->kind != RT_IR_TYPE_TENSOR) return -1;
  for (int32_t k = 0; k < node->num_inputs; ++k) {
    if (!same_tensor_type(fn->fn.params[k]->checked_type, t)) continue;
    tail_walk_t w = {.param = fn->fn.params[k], .type = t, .budget = 4096};
    if (tail_only_uses(&w, fn->fn.body, true)) return k;
  }
  return -1;
}

/* ---- memory planning ----------------------------------------------------- */

typedef struct {
  uint64_t *sizes;
  bool *busy;
  int32_t count, cap;
} blocks_t;

/* The smallest free block whose size is in [bytes, 16 * bytes + 64], or a
 * new one; marked busy. */
static rt_status_t take_block(blocks_t *b, uint64_t bytes, int32_t *out) {
  int32_t best = -1;
  for (int32_t s = 0; s < b->count; ++s) {
    if (b->busy[s] || b->sizes[s] < bytes || b->sizes[s] > 16 * bytes + 64) continue;
    if (best < 0 || b->sizes[s] < b->sizes[best]) best = s;
  }
  if (best < 0) {
    if (b->count == b->cap) {
      int32_t ncap = b->cap ? b->cap * 2 : 16;
      uint64_t *ns = rt_mem_realloc(b->sizes, (size_t)ncap * sizeof *ns);
      if (!ns) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
      b->sizes = ns;
      bool *nb = rt_mem_realloc(b->busy, (size_t)ncap * sizeof *nb);
      if (!nb) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
      b->busy = nb;
      b->cap = ncap;
    }
    best = b->count++;
    b->sizes[best] = bytes;
  }
  b->busy[best] = true;
  *out = best;
  return RT_OK;
}

/* Whether entry x is exactly one of node's inputs. */
static bool inputs_once(const rt_graph_node_t *node, int32_t x) {
  int32_t c = 0;
  for (int32_t k = 0; k < node->num_inputs; ++k) c += node->entries[k] == x;
  return c == 1;
}

/* Storage for every temporary (the allocator described at the top). An
 * entry with alias_to[e] >= 0 lives in the storage of the entry at the end
 * of its alias chain, taken when the first entry of the chain is written
 * and kept until the last read of that entry. */
static rt_status_t plan_memory(rt_graph_plan_t *p, const int32_t *alias_to, const uint64_t *alias_off,
                               const int32_t *reuse) {
  int32_t ne = p->num_entries;
  int32_t *last_use = rt_mem_alloc((size_t)(ne ? ne : 1) * sizeof(int32_t));
  /* Per entry: others alias to it (a concatenation's output), or its
   * storage passed on to an output planned over it. */
  bool *aliased = rt_mem_calloc((size_t)(ne ? ne : 1), sizeof(bool));
  bool *passed = rt_mem_calloc((size_t)(ne ? ne : 1), sizeof(bool));
  blocks_t b = {0};
  rt_status_t st = RT_OK;
  if (!last_use || !aliased || !passed) {
    rt_mem_free(last_use);
    rt_mem_free(aliased);
    rt_mem_free(passed);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
  }
  for (int32_t i = 0; i < ne; ++i) last_use[i] = -1;
  for (int32_t n = 0; n < p->num_nodes; ++n) {
    for (int32_t k = 0; k < p->nodes[n].num_inputs; ++k) last_use[p->nodes[n].entries[k]] = n;
  }
  for (int32_t i = 0; i < ne; ++i) {
    if (alias_to[i] >= 0) aliased[alias_to[i]] = true;
  }
  for (int32_t n = 0; n < p->num_nodes && !st; ++n) {
    rt_graph_node_t *node = &p->nodes[n];
    for (int32_t k = 0; k < node->num_outputs && !st; ++k) {
      const int32_t id = node->entries[node->num_inputs + k];
      rt_graph_entry_t *e = &p->entries[id];
      if (e->kind != RT_GRAPH_ENTRY_TEMP) continue;
      /* An output nobody reads is free again right after its node. */
      if (last_use[id] < 0) last_use[id] = n;
      int32_t root = id;
      uint64_t off = 0;
      while (alias_to[root] >= 0) {
        off += alias_off[root];
        root = alias_to[root];
      }
      rt_graph_entry_t *r = &p->entries[root];
      const int32_t x = reuse[n] >= 0 ? node->entries[reuse[n]] : -1;
      if (k == 0 && x >= 0 && root == id && !aliased[id] && p->entries[x].kind == RT_GRAPH_ENTRY_TEMP &&
          alias_to[x] < 0 && !aliased[x] && !passed[x] && last_use[x] == n && p->entries[x].storage_id >= 0 &&
          inputs_once(node, x)) {
        /* The output over its dying input (above); the block is now the
         * output's, freed after its last read. */
        r->storage_id = p->entries[x].storage_id;
        r->byte_offset = p->entries[x].byte_offset;
        passed[x] = true;
      }
      if (r->storage_id < 0) {
        size_t bytes = 0;
        st = rt_size_of_shape(r->rank, r->shape, rt_dtype_size(r->dtype), &bytes);
        if (!st) st = take_block(&b, bytes, &r->storage_id);
        r->byte_offset = 0;
        /* Centered in its block (64-byte aligned): see the top, step 4. */
        if (!st) r->byte_offset = ((b.sizes[r->storage_id] - bytes) / 2) & ~(uint64_t)63;
      }
      e->storage_id = r->storage_id;
      e->byte_offset = r->byte_offset + off;
    }
    /* Free what this node was the last to read (and its unread outputs);
     * an alias's storage is its root's. */
    int32_t nargs = node->num_inputs + node->num_outputs;
    for (int32_t k = 0; k < nargs; ++k) {
      const int32_t id = node->entries[k];
      rt_graph_entry_t *e = &p->entries[id];
      if (e->kind == RT_GRAPH_ENTRY_TEMP && alias_to[id] < 0 && last_use[id] == n && e->storage_id >= 0 &&
          !(passed[id] && k < node->num_inputs)) {
        b.busy[e->storage_id] = false;
      }
    }
  }
  rt_mem_free(last_use);
  rt_mem_free(aliased);
  rt_mem_free(passed);
  rt_mem_free(b.busy);
  if (st) {
    rt_mem_free(b.sizes);
    return st;
  }
  p->num_storage = b.count;
  p->storage_bytes = b.sizes;
  return RT_OK;
}

/* ---- the build ----------------------------------------------------------- */

static void free_values(gb *g) {
  value_map *v, *tmp;
  HASH_ITER(hh, g->values, v, tmp) {
    HASH_DEL(g->values, v);
    rt_mem_free(v->entries);
    rt_mem_free(v);
  }
}

static rt_status_t type_text(rt_ir_expr_t *fn, char **out) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_ir_type_print(fn->checked_type, &b);
  size_t len = 0;
  return rt_strbuf_finish(&b, out, &len);
}

rt_status_t rt_graph_build(rt_module_t *module, rt_jit_session_t *session, uint32_t jit_flags,
                           rt_graph_build_t *out) {
  memset(out, 0, sizeof *out);
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(module, "main");
  if (!main_fn) return RT_STATUS(NOT_FOUND, "the module has no @main");
  gb g = {0};
  g.m = module;
  g.main_fn = main_fn;
  rt_status_t st = walk(&g, main_fn->fn.body);
  rt_graph_plan_t *p = &out->plan;
  /* Hand what was built to the plan, so one cleanup path frees it all. */
  p->entries = g.entries;
  p->num_entries = g.num_entries;
  p->nodes = g.nodes;
  p->num_nodes = g.num_nodes;
  p->consts = g.consts;
  p->num_consts = g.num_consts;
  if (!st) {
    p->num_inputs = main_fn->fn.nparams;
    p->input_entries = rt_mem_alloc((size_t)(p->num_inputs ? p->num_inputs : 1) * sizeof(int32_t));
    if (!p->input_entries) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
    for (int32_t i = 0; !st && i < p->num_inputs; ++i) {
      value_map *v = lookup(&g, main_fn->fn.params[i]);
      if (v) {
        p->input_entries[i] = v->entries[0];
      } else {
        /* An unused input still gets an entry, so set_input works. */
        int32_t id = 0;
        st = new_entry(&g, main_fn->fn.params[i], main_fn->fn.params[i]->checked_type,
                       RT_GRAPH_ENTRY_INPUT, i, &id);
        p->entries = g.entries;
        p->num_entries = g.num_entries;
        if (!st) p->input_entries[i] = id;
      }
    }
  }
  if (!st) {
    value_map *res = lookup(&g, main_fn->fn.body);
    p->num_outputs = res->count;
    p->output_entries = rt_mem_alloc((size_t)(res->count ? res->count : 1) * sizeof(int32_t));
    p->output_sources = rt_mem_alloc((size_t)(res->count ? res->count : 1) * sizeof(int32_t));
    if (!p->output_entries || !p->output_sources) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
    for (int32_t o = 0; !st && o < res->count; ++o) {
      int32_t src = res->entries[o];
      rt_graph_entry_t *e = &g.entries[src];
      if (e->kind == RT_GRAPH_ENTRY_TEMP) {
        e->kind = RT_GRAPH_ENTRY_OUTPUT;
        e->index = o;
        p->output_entries[o] = src;
        p->output_sources[o] = -1;
      } else {
        /* An input, a constant, or an output already taken: copy. */
        if (g.num_entries == g.cap_entries) {
          int32_t ncap = g.cap_entries ? g.cap_entries * 2 : 16;
          rt_graph_entry_t *ne = rt_mem_realloc(g.entries, (size_t)ncap * sizeof *ne);
          if (!ne) {
            st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
            break;
          }
          g.entries = ne;
          g.cap_entries = ncap;
        }
        p->entries = g.entries;
        int32_t id = g.num_entries++;
        p->num_entries = g.num_entries;
        g.entries[id] = g.entries[src];
        g.entries[id].kind = RT_GRAPH_ENTRY_OUTPUT;
        g.entries[id].index = o;
        p->output_entries[o] = id;
        p->output_sources[o] = src;
      }
    }
  }
  /* Concatenations in place, then storage. */
  int32_t *alias_to = st ? NULL : rt_mem_alloc((size_t)(p->num_entries ? p->num_entries : 1) * sizeof(int32_t));
  uint64_t *alias_off = st ? NULL : rt_mem_calloc((size_t)(p->num_entries ? p->num_entries : 1), sizeof(uint64_t));
  if (!st && (!alias_to || !alias_off)) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
  for (int32_t i = 0; !st && i < p->num_entries; ++i) alias_to[i] = -1;
  if (!st) st = elide_concats(&g, p, alias_to, alias_off);
  int32_t *reuse = st ? NULL : rt_mem_alloc((size_t)(p->num_nodes ? p->num_nodes : 1) * sizeof(int32_t));
  if (!st && !reuse) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning the graph");
  for (int32_t n = 0; !st && n < p->num_nodes; ++n) reuse[n] = reuse_slot(&g, p, n);
  if (!st) st = plan_memory(p, alias_to, alias_off, reuse);
  rt_mem_free(reuse);
  rt_mem_free(alias_to);
  rt_mem_free(alias_off);
  if (!st) st = drop_unused_groups(&g, p);
  /* Compile every distinct group in one module. */
  if (!st) {
    out->num_kernels = g.num_groups;
    int32_t nk = g.num_groups ? g.num_groups : 1;
    rt_ir_expr_t **fns = rt_mem_calloc((size_t)nk, sizeof *fns);
    out->kernel_names = rt_mem_calloc((size_t)nk, sizeof(char *));
    out->kernel_types = rt_mem_calloc((size_t)nk, sizeof(char *));
    out->kernel_flops = rt_mem_calloc((size_t)nk, sizeof(double));
    out->kernels = rt_mem_calloc((size_t)nk, sizeof(rt_kernel_fn));
    if (!fns || !out->kernel_names || !out->kernel_types || !out->kernel_flops || !out->kernels) {
      st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
    }
    for (int32_t k = 0; !st && k < g.num_groups; ++k) {
      fns[k] = g.groups[k].fn;
      rt_strbuf_t b;
      rt_strbuf_initialize(&b);
      st = rt_ir_primitive_name(fns[k], &b);
      /* Repeated names (different shapes) get _1, _2 ... */
      int32_t repeats = 0;
      for (int32_t j = 0; !st && j < k; ++j) {
        if (strncmp(out->kernel_names[j], b.data, b.len) == 0 &&
            (out->kernel_names[j][b.len] == '\0' || out->kernel_names[j][b.len] == '_')) {
          repeats++;
        }
      }
      if (!st && repeats) rt_strbuf_printf(&b, "_%d", (int)repeats);
      size_t len = 0;
      if (!st) st = rt_strbuf_finish(&b, &out->kernel_names[k], &len);
      rt_strbuf_deinitialize(&b);
      if (!st) st = type_text(fns[k], &out->kernel_types[k]);
      if (!st) out->kernel_flops[k] = rt_ir_flops(fns[k]);
    }
    for (int32_t n = 0; !st && n < p->num_nodes; ++n) {
      snprintf(p->nodes[n].name, sizeof p->nodes[n].name, "%s",
               p->nodes[n].kernel == RT_GRAPH_NOP ? "__nop" : out->kernel_names[p->nodes[n].kernel]);
    }
    /* Groups the JIT does not compile run on the host; the rest are
     * compiled in one module. */
    int32_t njit = 0;
    rt_ir_expr_t **jfns = rt_mem_calloc((size_t)nk, sizeof *jfns);
    char **jnames = rt_mem_calloc((size_t)nk, sizeof *jnames);
    if (!st && (!jfns || !jnames)) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
    bool any_host = false;
    for (int32_t k = 0; !st && k < g.num_groups; ++k) {
      bool host = false;
      st = rt_backend_is_host_group(fns[k], &host);
      if (!st && host) {
        if (!out->host_kernels) {
          out->host_kernels = rt_mem_calloc((size_t)nk, sizeof *out->host_kernels);
          if (!out->host_kernels) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
        }
        if (!st) {
          st = rt_host_kernel_create(module, fns[k], out->kernel_names[k], &out->host_kernels[k],
                                     &out->kernels[k]);
        }
        any_host = true;
      } else if (!st) {
        jfns[njit] = fns[k];
        jnames[njit++] = out->kernel_names[k];
      }
    }
    /* Kernels of custom ops and strategies call into this process, and so
     * do host kernels: no disk cache, no export (jit/custom.h). */
    out->process_local = !st && (any_host || rt_jit_custom_in_use(njit, jfns));
    if (!st && rt_jit_custom_in_use(njit, jfns)) jit_flags |= RT_JIT_NO_DISK_CACHE;
    if (!st && njit > 0) {
      st = rt_jit_build(session, njit, jfns, (const char *const *)jnames, jit_flags,
                        &out->jit_stats, &out->jit);
    }
    out->jit_index = st ? NULL : rt_mem_calloc((size_t)nk, sizeof *out->jit_index);
    if (!st && !out->jit_index) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
    for (int32_t k = 0, j = 0; !st && k < g.num_groups; ++k) {
      out->jit_index[k] = -1;
      if (out->host_kernels && out->host_kernels[k]) continue;
      out->jit_index[k] = j;
      out->kernels[k] = rt_jit_module_kernel(out->jit, j++);
    }
    rt_mem_free(jfns);
    rt_mem_free(jnames);
    rt_mem_free(fns);
  }
  rt_mem_free(g.groups);
  free_values(&g);
  if (st) {
    rt_graph_build_deinitialize(out);
    return st;
  }
  return RT_OK;
}

rt_status_t rt_graph_check(rt_module_t *module) {
  rt_ir_expr_t *main_fn = rt_ir_module_lookup(module, "main");
  if (!main_fn) return RT_STATUS(NOT_FOUND, "the module has no @main");
  gb g = {0};
  g.m = module;
  g.main_fn = main_fn;
  g.allow_any = true;
  const int32_t np = main_fn->fn.nparams;
  bool *values = rt_mem_calloc((size_t)(np ? np : 1), sizeof *values);
  if (!values) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory checking the graph");
  rt_status_t st = rt_ir_value_params(rt_mem_current(), main_fn, values);
  g.value_params = values;
  if (!st) st = walk(&g, main_fn->fn.body);
  rt_mem_free(values);
  /* What the walk made goes to a plan only to be freed by its one path. */
  rt_graph_plan_t p = {0};
  p.entries = g.entries;
  p.num_entries = g.num_entries;
  p.nodes = g.nodes;
  p.num_nodes = g.num_nodes;
  p.consts = g.consts;
  p.num_consts = g.num_consts;
  rt_graph_plan_deinitialize(&p);
  rt_mem_free(g.groups);
  free_values(&g);
  return st;
}

void rt_graph_build_deinitialize(rt_graph_build_t *b) {
  rt_graph_plan_deinitialize(&b->plan);
  for (int32_t k = 0; k < b->num_kernels; ++k) {
    if (b->kernel_names) rt_mem_free(b->kernel_names[k]);
    if (b->kernel_types) rt_mem_free(b->kernel_types[k]);
  }
  rt_mem_free(b->kernel_names);
  rt_mem_free(b->kernel_types);
  rt_mem_free(b->kernel_flops);
  for (int32_t k = 0; b->host_kernels && k < b->num_kernels; ++k) {
    rt_host_kernel_release(b->host_kernels[k]);
  }
  rt_mem_free(b->host_kernels);
  rt_mem_free(b->jit_index);
  rt_mem_free(b->kernels);
  rt_jit_module_release(b->jit);
  memset(b, 0, sizeof *b);
}

/* ---- graph JSON ---------------------------------------------------------- */

void rt_graph_plan_to_json(const rt_graph_plan_t *p, char *const *kernel_names,
                           char *const *input_names, rt_strbuf_t *out) {
  /* Node list: one "null" node per input and constant, one "tvm_op" per
   * kernel node; entry ids map to (node, output index). */
  int32_t ne = p->num_entries;
  int32_t *node_of = rt_mem_calloc((size_t)(ne ? ne : 1), sizeof(int32_t));
  int32_t *index_of = rt_mem_calloc((size_t)(ne ? ne : 1), sizeof(int32_t));
  if (!node_of || !index_of) {
    rt_mem_free(node_of);
    rt_mem_free(index_of);
    out->failed = true;
    return;
  }
  int32_t nid = 0;
  rt_strbuf_puts(out, "{\n  \"nodes\": [\n");
  bool first = true;
  for (int32_t i = 0; i < ne; ++i) {
    const rt_graph_entry_t *e = &p->entries[i];
    if (e->kind != RT_GRAPH_ENTRY_INPUT && e->kind != RT_GRAPH_ENTRY_CONST) continue;
    node_of[i] = nid++;
    index_of[i] = 0;
    rt_strbuf_printf(out, "%s    {\"op\": \"null\", \"name\": \"", first ? "" : ",\n");
    if (e->kind == RT_GRAPH_ENTRY_INPUT) {
      rt_strbuf_puts(out, input_names ? input_names[e->index] : "input");
    } else {
      rt_strbuf_printf(out, "p%d", (int)e->index);
    }
    rt_strbuf_puts(out, "\", \"inputs\": []}");
    first = false;
  }
  int32_t num_arg_nodes = nid;
  for (int32_t n = 0; n < p->num_nodes; ++n) {
    const rt_graph_node_t *node = &p->nodes[n];
    const char *name = node->kernel == RT_GRAPH_NOP ? "__nop"
                       : kernel_names                 ? kernel_names[node->kernel]
                                                      : node->name;
    rt_strbuf_printf(out, "%s    {\"op\": \"tvm_op\", \"name\": \"%s\", \"attrs\": {\"func_name\": "
                          "\"%s\", \"flatten_data\": \"0\", \"num_inputs\": \"%d\", "
                          "\"num_outputs\": \"%d\"}, \"inputs\": [",
                     first ? "" : ",\n", name, name, (int)node->num_inputs, (int)node->num_outputs);
    first = false;
    for (int32_t k = 0; k < node->num_inputs; ++k) {
      int32_t en = node->entries[k];
      rt_strbuf_printf(out, "%s[%d, %d, 0]", k ? ", " : "", (int)node_of[en], (int)index_of[en]);
    }
    rt_strbuf_puts(out, "]}");
    for (int32_t k = 0; k < node->num_outputs; ++k) {
      node_of[node->entries[node->num_inputs + k]] = nid;
      index_of[node->entries[node->num_inputs + k]] = k;
    }
    nid++;
  }
  rt_strbuf_puts(out, "\n  ],\n  \"arg_nodes\": [");
  for (int32_t i = 0; i < num_arg_nodes; ++i) rt_strbuf_printf(out, "%s%d", i ? ", " : "", (int)i);
  rt_strbuf_puts(out, "],\n  \"heads\": [");
  for (int32_t o = 0; o < p->num_outputs; ++o) {
    int32_t en = p->output_sources[o] >= 0 ? p->output_sources[o] : p->output_entries[o];
    rt_strbuf_printf(out, "%s[%d, %d, 0]", o ? ", " : "", (int)node_of[en], (int)index_of[en]);
  }
  /* Per output entry, in node order: shape, dtype, storage id. */
  rt_strbuf_puts(out, "],\n  \"attrs\": {\n    \"shape\": [\"list_shape\", [");
  int32_t count = 0;
  /* Entries in node order: arg nodes first, then each node's outputs. */
  int32_t *order = rt_mem_calloc((size_t)(ne ? ne : 1), sizeof(int32_t));
  if (!order) {
    out->failed = true;
    rt_mem_free(node_of);
    rt_mem_free(index_of);
    return;
  }
  for (int32_t i = 0; i < ne; ++i) {
    const rt_graph_entry_t *e = &p->entries[i];
    if (e->kind == RT_GRAPH_ENTRY_INPUT || e->kind == RT_GRAPH_ENTRY_CONST) order[count++] = i;
  }
  for (int32_t n = 0; n < p->num_nodes; ++n) {
    for (int32_t k = 0; k < p->nodes[n].num_outputs; ++k) {
      order[count++] = p->nodes[n].entries[p->nodes[n].num_inputs + k];
    }
  }
  for (int32_t i = 0; i < count; ++i) {
    const rt_graph_entry_t *e = &p->entries[order[i]];
    rt_strbuf_printf(out, "%s[", i ? ", " : "");
    for (int32_t d = 0; d < e->rank; ++d) rt_strbuf_printf(out, "%s%lld", d ? ", " : "", (long long)e->shape[d]);
    rt_strbuf_putc(out, ']');
  }
  rt_strbuf_puts(out, "]],\n    \"dltype\": [\"list_str\", [");
  for (int32_t i = 0; i < count; ++i) {
    char dn[RT_DTYPE_NAME_MAX];
    rt_strbuf_printf(out, "%s\"%s\"", i ? ", " : "", rt_dtype_name(p->entries[order[i]].dtype, dn));
  }
  /* Storage ids: temps share planned ids; inputs, constants and outputs
   * each get their own id after the planned ones. */
  rt_strbuf_puts(out, "]],\n    \"storage_id\": [\"list_int\", [");
  int32_t next_id = p->num_storage;
  for (int32_t i = 0; i < count; ++i) {
    const rt_graph_entry_t *e = &p->entries[order[i]];
    int32_t sid = e->kind == RT_GRAPH_ENTRY_TEMP ? e->storage_id : next_id++;
    rt_strbuf_printf(out, "%s%d", i ? ", " : "", (int)sid);
  }
  /* Byte offsets in the storage (not in TVM's format): the inputs of a
   * concatenate made a "__nop" share its output's storage id. */
  rt_strbuf_puts(out, "]],\n    \"storage_offset\": [\"list_int\", [");
  for (int32_t i = 0; i < count; ++i) {
    const rt_graph_entry_t *e = &p->entries[order[i]];
    rt_strbuf_printf(out, "%s%llu", i ? ", " : "",
                     (unsigned long long)(e->kind == RT_GRAPH_ENTRY_TEMP ? e->byte_offset : 0));
  }
  rt_strbuf_puts(out, "]]\n  },\n  \"node_row_ptr\": [0");
  int32_t row = 0;
  for (int32_t i = 0; i < num_arg_nodes; ++i) rt_strbuf_printf(out, ", %d", (int)++row);
  for (int32_t n = 0; n < p->num_nodes; ++n) {
    row += p->nodes[n].num_outputs;
    rt_strbuf_printf(out, ", %d", (int)row);
  }
  rt_strbuf_puts(out, "]\n}\n");
  rt_mem_free(order);
  rt_mem_free(node_of);
  rt_mem_free(index_of);
}
