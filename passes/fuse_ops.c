/* FuseOps: groups the op calls of every function into Primitive functions,
 * one per future kernel (TVM's FuseOps, src/relay/transforms/fuse_ops.cc
 * and src/relay/analysis/graph_partitioner.cc).
 *
 * Algorithm, per global function (skipping those already Primitive or
 * carrying a Compiler attr):
 *  1. Post order of every node (rt_ir_post_order: children first, args left
 *     to right, into branches and fn bodies) — TVM's post-DFS order.
 *  2. Scopes: the function body is scope 0; each If branch and each
 *     non-Primitive fn literal body opens a new scope. Scopes are filled
 *     outermost first (BFS), and a node belongs to the first scope that
 *     reaches it without crossing a branch or a body, so a node shared with
 *     an enclosing scope stays there. Primitive fn literals are leaves.
 *  3. Forward graph: op calls (their TOpPattern), non-op calls (OPAQUE),
 *     tuples (TUPLE) and projections (INJECTIVE; OPAQUE when the tuple has
 *     a non-tensor field) of a scope are its nodes. An edge carries the
 *     consumer's pattern, except that a BROADCAST op whose argument has the
 *     output's exact shape gives an ELEMWISE edge; tuple fields get
 *     INJECTIVE edges. Vars, non-scalar constants, globals, fn literals,
 *     lets and ifs are boundaries: a node used by one of them, by a node of
 *     another scope, or as a scope's result is "extern" and ends a group.
 *     0-d int32/int64/float32/float64/bool constants are not nodes: they
 *     are copied into every group that uses them (TVM prints them inside
 *     the primitive function).
 *  4. Post-dominator tree in reverse post order: a node's parent is the LCA
 *     of its consumers; its pattern the max of the edge and tree patterns on
 *     the way (TVM's DominatorTree::PostDom).
 *  5. At opt_level >= 1, TVM's three phases over the post order, each node
 *     trying to join its post-dominator's group (union-find, the root being
 *     the group's sink-most node), never past max_depth nodes (counted as
 *     TVM's CountFusedNodesWithNewChild does, each op call, tuple and
 *     projection weighing 1, inlined scalars 0):
 *     phase 0: an OUT_ELEMWISE_FUSABLE group joins when the dominator edge
 *       pattern is ELEMWISE and every node on every path is <= BROADCAST;
 *     phases 0-1: a <= BROADCAST group joins when the dominator pattern is
 *       <= INJECTIVE or COMM_REDUCE, path nodes <= INJECTIVE, the sink
 *       anything up to OUT_ELEMWISE_FUSABLE;
 *     phase 1: INJECTIVE and TUPLE groups join through <= INJECTIVE paths;
 *     phase 2: <= INJECTIVE groups join an intermediate tuple already fused
 *       into an injective consumer (the concatenate case).
 *     Nothing joins a TUPLE post-dominator in phases 0-1.
 *     Two additions for reductions, beyond TVM (whose reduce groups never
 *     grow downward): a COMM_REDUCE group takes an elementwise epilogue by
 *     the phase-0 anchor rule, and in phase 1 an INJECTIVE group may join a
 *     reduce op that is its sink (transpose or reshape feeding sum). A
 *     reduce is therefore an anchor like conv2d: a group holds at most one
 *     node above BROADCAST, which the path conditions guarantee.
 *     At opt_level 0 every op call is its own group (TVM's interpreter
 *     pipeline).
 *  6. Rebuild (rt_ir_mutate, bottom-up): each group whose root is an op
 *     call or a projection, and that holds an op call, becomes
 *     `fn (%p0: T0, ..., Primitive=1) -> R { body }` called with the
 *     group's inputs. Params are allocated in TVM's order (the order a
 *     depth-first walk from the root, args left to right, first meets each
 *     input). Tuple roots and groups without an op call stay as they are.
 *
 * Invariants: the input module is never modified; a group has one output,
 * its root (every other member is used only inside the group: members are
 * on paths to a post-dominator, and extern nodes have none); no group spans
 * two scopes; running the pass on its own output changes nothing (no op
 * call is left outside a Primitive function, and those are skipped); every
 * walk is iterative, with explicit stacks, so deep programs are fine. */
#include <stdio.h>
#include <string.h>

#include "passes/fuse_ops.h"
#include "passes/pass.h"
#include "runtime/assert.h"

#define DEFAULT_MAX_DEPTH 256

typedef struct {
  int32_t from, to;
  int32_t pattern;
} use_t;

typedef struct {
  int32_t to;
  int32_t pattern;
} edge_t;

typedef struct {
  rt_ir_expr_t *expr;
  int32_t scope;         /* -1: in no scope (inside a Primitive fn, the global fn node) */
  int32_t pattern;       /* the node's own pattern */
  bool graph;            /* a node of the forward graph */
  bool extern_ref;       /* used outside the graph: ends a group */
  bool anchor;           /* its group holds a node above BROADCAST */
  bool has_call;         /* (roots) the group holds an op call */
  int32_t out_begin, out_count;
  /* post-dominator tree */
  int32_t dom_parent, dom_depth, dom_pattern;
  /* group: union-find parent; pattern and size are meaningful at roots
   * (and, stale, at merged nodes, as TVM reads them) */
  int32_t group, gpattern;
  int64_t gnodes;
  uint32_t mark;         /* walk generation */
  /* rebuild */
  rt_ir_expr_t *mapped;  /* the node after the rewrite */
  uint32_t build_mark;   /* the group being built when inner/param are set */
  rt_ir_expr_t *inner;   /* its copy in the group's body */
  int32_t param;         /* its param index in that group, -1 none */
} fnode_t;

typedef struct {
  int32_t node;
  int32_t next_child;
} frame_t;

typedef struct {
  rt_allocator_t alloc;
  rt_module_t *m;        /* the output module */
  int32_t opt_level;
  int64_t max_depth;
  rt_ir_attrs_t *primitive_attrs;
  int32_t *index_of;     /* node id -> index in nodes, -1 */
  uint32_t id_cap;
  fnode_t *nodes;
  int32_t num_nodes, cap_nodes;
  use_t *uses;
  int32_t num_uses, cap_uses;
  edge_t *edges;
  int32_t cap_edges;
  int32_t *stack;
  int32_t cap_stack;
  int32_t *roots;        /* scope roots (node indices), one per scope */
  int32_t num_roots, cap_roots;
  uint32_t gen;
  uint32_t build_gen;
  frame_t *frames;
  int32_t cap_frames;
  int32_t *inputs;       /* the group's inputs, in param order */
  rt_ir_expr_t **params;
  int32_t num_params, cap_inputs, cap_params;
  rt_ir_expr_t **args;
  int32_t cap_args;
} fuse_t;

/* ---- small helpers ------------------------------------------------------- */

static rt_status_t grow_buf(rt_allocator_t a, void **p, int32_t *cap, int64_t need, size_t elem) {
  if (need <= *cap) return RT_OK;
  int64_t ncap = *cap ? *cap : 64;
  while (ncap < need) ncap *= 2;
  if (ncap > INT32_MAX) return RT_STATUS(RESOURCE_EXHAUSTED, "FuseOps: program too large");
  void *q = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(a, (size_t)ncap * elem, 16, false, &q));
  if (*p) memcpy(q, *p, (size_t)*cap * elem);
  rt_allocator_free(a, *p);
  *p = q;
  *cap = (int32_t)ncap;
  return RT_OK;
}

#define GROW(f, arr, cap, need)                                                       \
  do {                                                                                \
    if ((int64_t)(need) > (int64_t)(cap)) {                                           \
      void *p_ = (arr);                                                               \
      RT_RETURN_IF_ERROR(grow_buf((f)->alloc, &p_, &(cap), (need), sizeof *(arr)));   \
      (arr) = p_;                                                                     \
    }                                                                                 \
  } while (0)

static int32_t max_pattern(int32_t a, int32_t b) { return a > b ? a : b; }


static bool has_attr(const rt_ir_attrs_t *attrs, const char *key) {
  for (int32_t i = 0; attrs && i < attrs->count; ++i) {
    if (strcmp(attrs->keys[i], key) == 0) return true;
  }
  return false;
}


/* Functions FuseOps leaves alone: fused groups and external codegen. */
static bool skip_fn(const rt_ir_expr_t *fn) {
  return rt_ir_is_primitive(fn) || has_attr(fn->fn.attrs, "Compiler");
}

static bool is_op_call(const rt_ir_expr_t *e) {
  return e->kind == RT_IR_CALL && e->call.callee->kind == RT_IR_OP;
}

/* A 0-d constant TVM's code generator takes inline (IndexedForwardGraph's
 * is_simple_const). */
static bool is_inline_scalar(const rt_ir_expr_t *e) {
  if (e->kind != RT_IR_CONSTANT || rt_tensor_rank(e->constant.value) != 0) return false;
  rt_dtype_t d = rt_tensor_dtype(e->constant.value);
  if (d.lanes != 1) return false;
  return (d.code == kDLInt && (d.bits == 32 || d.bits == 64)) ||
         (d.code == kDLFloat && (d.bits == 32 || d.bits == 64)) || d.code == kDLBool;
}

static rt_ir_type_t *type_of(const rt_ir_expr_t *e) {
  return e->checked_type ? rt_ir_type_resolve(e->checked_type) : NULL;
}

static bool is_tensor_type(const rt_ir_type_t *t) { return t && t->kind == RT_IR_TYPE_TENSOR; }

/* Same static shape (a `?` dim is never known equal). */
static bool same_shape(const rt_ir_type_t *a, const rt_ir_type_t *b) {
  if (!is_tensor_type(a) || !is_tensor_type(b) || a->tensor.rank != b->tensor.rank) return false;
  for (int32_t i = 0; i < a->tensor.rank; ++i) {
    if (a->tensor.shape[i] < 0 || a->tensor.shape[i] != b->tensor.shape[i]) return false;
  }
  return true;
}

static int32_t idx(const fuse_t *f, const rt_ir_expr_t *e) {
  RT_ASSERT(e->id < f->id_cap);
  return f->index_of[e->id];
}

static int32_t find(fuse_t *f, int32_t i) {
  int32_t r = i;
  while (f->nodes[r].group != r) r = f->nodes[r].group;
  while (f->nodes[i].group != r) {
    int32_t next = f->nodes[i].group;
    f->nodes[i].group = r;
    i = next;
  }
  return r;
}

static rt_status_t push(fuse_t *f, int32_t *sp, int32_t v) {
  GROW(f, f->stack, f->cap_stack, *sp + 1);
  f->stack[(*sp)++] = v;
  return RT_OK;
}

/* ---- 1-2: nodes and scopes ---------------------------------------------- */

static rt_status_t collect(void *user, rt_ir_expr_t *e) {
  fuse_t *f = user;
  if (e->id >= f->id_cap) {
    return RT_STATUS(INTERNAL, "FuseOps: node id %u is not from the input module", e->id);
  }
  GROW(f, f->nodes, f->cap_nodes, f->num_nodes + 1);
  fnode_t *n = &f->nodes[f->num_nodes];
  memset(n, 0, sizeof *n);
  n->expr = e;
  n->scope = -1;
  n->dom_parent = -1;
  n->group = f->num_nodes;
  n->param = -1;
  f->index_of[e->id] = f->num_nodes++;
  return RT_OK;
}

static rt_status_t add_root(fuse_t *f, const rt_ir_expr_t *e) {
  GROW(f, f->roots, f->cap_roots, f->num_roots + 1);
  f->roots[f->num_roots++] = idx(f, e);
  return RT_OK;
}

static rt_status_t assign_scopes(fuse_t *f, const rt_ir_expr_t *fn) {
  f->num_roots = 0;
  RT_RETURN_IF_ERROR(add_root(f, fn->fn.body));
  for (int32_t s = 0; s < f->num_roots; ++s) {
    int32_t sp = 0;
    RT_RETURN_IF_ERROR(push(f, &sp, f->roots[s]));
    while (sp > 0) {
      fnode_t *n = &f->nodes[f->stack[--sp]];
      if (n->scope >= 0) continue;
      n->scope = s;
      rt_ir_expr_t *e = n->expr;
      switch (e->kind) {
        case RT_IR_CALL:
          RT_RETURN_IF_ERROR(push(f, &sp, idx(f, e->call.callee)));
          for (int32_t i = e->call.nargs - 1; i >= 0; --i) {
            RT_RETURN_IF_ERROR(push(f, &sp, idx(f, e->call.args[i])));
          }
          break;
        case RT_IR_TUPLE:
          for (int32_t i = e->tuple.count - 1; i >= 0; --i) {
            RT_RETURN_IF_ERROR(push(f, &sp, idx(f, e->tuple.fields[i])));
          }
          break;
        case RT_IR_TUPLE_GET_ITEM:
          RT_RETURN_IF_ERROR(push(f, &sp, idx(f, e->get_item.tuple)));
          break;
        case RT_IR_LET:
          RT_RETURN_IF_ERROR(push(f, &sp, idx(f, e->let.body)));
          RT_RETURN_IF_ERROR(push(f, &sp, idx(f, e->let.var)));
          RT_RETURN_IF_ERROR(push(f, &sp, idx(f, e->let.value)));
          break;
        case RT_IR_IF:
          RT_RETURN_IF_ERROR(push(f, &sp, idx(f, e->if_.cond)));
          RT_RETURN_IF_ERROR(add_root(f, e->if_.then_branch));
          RT_RETURN_IF_ERROR(add_root(f, e->if_.else_branch));
          break;
        case RT_IR_FUNCTION:
          if (skip_fn(e)) break;
          for (int32_t i = 0; i < e->fn.nparams; ++i) {
            RT_RETURN_IF_ERROR(push(f, &sp, idx(f, e->fn.params[i])));
          }
          RT_RETURN_IF_ERROR(add_root(f, e->fn.body));
          break;
        default:
          break;
      }
    }
  }
  return RT_OK;
}

/* ---- 3: the forward graph ------------------------------------------------ */

static rt_status_t need_type(const rt_ir_expr_t *e, rt_ir_type_t **out) {
  *out = type_of(e);
  if (!*out) {
    return RT_STATUS(FAILED_PRECONDITION,
                     "FuseOps needs a type-checked module (node %u has no type; run InferType)",
                     e->id);
  }
  return RT_OK;
}

static rt_status_t set_patterns(fuse_t *f) {
  for (int32_t i = 0; i < f->num_nodes; ++i) {
    fnode_t *n = &f->nodes[i];
    rt_ir_expr_t *e = n->expr;
    if (n->scope < 0) continue;
    rt_ir_type_t *t = NULL;
    switch (e->kind) {
      case RT_IR_CALL:
        RT_RETURN_IF_ERROR(need_type(e, &t));
        n->graph = true;
        n->pattern = is_op_call(e) ? (int32_t)e->call.callee->op.op->pattern : RT_OP_PATTERN_OPAQUE;
        break;
      case RT_IR_TUPLE:
        n->graph = true;
        n->pattern = RT_OP_PATTERN_TUPLE;
        break;
      case RT_IR_TUPLE_GET_ITEM: {
        RT_RETURN_IF_ERROR(need_type(e->get_item.tuple, &t));
        bool all_tensors = t->kind == RT_IR_TYPE_TUPLE;
        for (int32_t k = 0; all_tensors && k < t->tuple.count; ++k) {
          all_tensors = is_tensor_type(rt_ir_type_resolve(t->tuple.fields[k]));
        }
        n->graph = true;
        n->pattern = all_tensors ? RT_OP_PATTERN_INJECTIVE : RT_OP_PATTERN_OPAQUE;
        break;
      }
      default:
        break;
    }
    n->gpattern = n->pattern;
    n->gnodes = 1;
    n->anchor = n->pattern == RT_OP_PATTERN_OUT_ELEMWISE_FUSABLE ||
                n->pattern == RT_OP_PATTERN_COMM_REDUCE;
  }
  return RT_OK;
}

/* Records that `consumer` uses `producer` with edge `pattern` (-1: a use
 * from outside the graph, which makes the producer extern). */
static rt_status_t add_use(fuse_t *f, const rt_ir_expr_t *producer, int32_t consumer,
                           int32_t pattern) {
  int32_t p = idx(f, producer);
  fnode_t *pn = &f->nodes[p];
  if (!pn->graph) return RT_OK;
  const fnode_t *cn = &f->nodes[consumer];
  if (pattern < 0 || !cn->graph || cn->scope != pn->scope) {
    pn->extern_ref = true;
    return RT_OK;
  }
  GROW(f, f->uses, f->cap_uses, f->num_uses + 1);
  f->uses[f->num_uses++] = (use_t){p, consumer, pattern};
  return RT_OK;
}

static rt_status_t build_edges(fuse_t *f) {
  f->num_uses = 0;
  for (int32_t i = 0; i < f->num_nodes; ++i) {
    rt_ir_expr_t *e = f->nodes[i].expr;
    bool graph = f->nodes[i].graph;
    switch (e->kind) {
      case RT_IR_CALL:
        if (is_op_call(e)) {
          int32_t pat = f->nodes[i].pattern;
          rt_ir_type_t *out_t = type_of(e);
          for (int32_t k = 0; k < e->call.nargs; ++k) {
            int32_t ep = pat;
            if (graph && pat == RT_OP_PATTERN_BROADCAST &&
                same_shape(type_of(e->call.args[k]), out_t)) {
              ep = RT_OP_PATTERN_ELEMWISE;
            }
            RT_RETURN_IF_ERROR(add_use(f, e->call.args[k], i, ep));
          }
        } else {
          RT_RETURN_IF_ERROR(add_use(f, e->call.callee, i, -1));
          for (int32_t k = 0; k < e->call.nargs; ++k) {
            RT_RETURN_IF_ERROR(add_use(f, e->call.args[k], i, RT_OP_PATTERN_OPAQUE));
          }
        }
        break;
      case RT_IR_TUPLE:
        for (int32_t k = 0; k < e->tuple.count; ++k) {
          rt_ir_expr_t *fld = e->tuple.fields[k];
          bool tensor = is_tensor_type(type_of(fld));
          RT_RETURN_IF_ERROR(add_use(f, fld, i, tensor ? RT_OP_PATTERN_INJECTIVE : -1));
        }
        break;
      case RT_IR_TUPLE_GET_ITEM:
        RT_RETURN_IF_ERROR(add_use(f, e->get_item.tuple, i,
                                   f->nodes[i].pattern == RT_OP_PATTERN_INJECTIVE
                                       ? RT_OP_PATTERN_INJECTIVE
                                       : -1));
        break;
      default: {
        rt_ir_expr_t *kids[3];
        int32_t nk = rt_ir_children(e, kids, 3);
        if (nk <= 3) {
          for (int32_t k = 0; k < nk; ++k) RT_RETURN_IF_ERROR(add_use(f, kids[k], i, -1));
        } else {
          /* A function: its params are vars (never graph nodes); its
           * body is a scope root, made extern below. */
          RT_RETURN_IF_ERROR(add_use(f, e->fn.body, i, -1));
        }
        break;
      }
    }
  }
  for (int32_t s = 0; s < f->num_roots; ++s) f->nodes[f->roots[s]].extern_ref = true;
  /* Uses -> per-producer edge lists (counting sort keeps consumer order). */
  GROW(f, f->edges, f->cap_edges, f->num_uses);
  for (int32_t k = 0; k < f->num_uses; ++k) f->nodes[f->uses[k].from].out_count++;
  int32_t at = 0;
  for (int32_t i = 0; i < f->num_nodes; ++i) {
    f->nodes[i].out_begin = at;
    at += f->nodes[i].out_count;
    f->nodes[i].out_count = 0;
  }
  for (int32_t k = 0; k < f->num_uses; ++k) {
    fnode_t *p = &f->nodes[f->uses[k].from];
    f->edges[p->out_begin + p->out_count++] = (edge_t){f->uses[k].to, f->uses[k].pattern};
  }
  return RT_OK;
}

/* ---- 4: post-dominator tree ---------------------------------------------- */

static int32_t lca(const fuse_t *f, int32_t a, int32_t b, int32_t *pattern) {
  while (a != b) {
    if (a < 0 || b < 0) return -1;
    const fnode_t *x = &f->nodes[a], *y = &f->nodes[b];
    if (x->dom_depth < y->dom_depth) {
      *pattern = max_pattern(*pattern, y->dom_pattern);
      b = y->dom_parent;
    } else if (y->dom_depth < x->dom_depth) {
      *pattern = max_pattern(*pattern, x->dom_pattern);
      a = x->dom_parent;
    } else {
      *pattern = max_pattern(*pattern, max_pattern(x->dom_pattern, y->dom_pattern));
      a = x->dom_parent;
      b = y->dom_parent;
    }
  }
  return a;
}

static void post_dominators(fuse_t *f) {
  for (int32_t i = f->num_nodes - 1; i >= 0; --i) {
    fnode_t *n = &f->nodes[i];
    if (!n->graph) continue;
    if (n->extern_ref || n->out_count == 0) {
      n->dom_parent = -1;
      n->dom_depth = 1;
      n->dom_pattern = n->extern_ref ? RT_OP_PATTERN_OPAQUE : RT_OP_PATTERN_ELEMWISE;
      continue;
    }
    const edge_t *out = &f->edges[n->out_begin];
    int32_t pattern = max_pattern(RT_OP_PATTERN_ELEMWISE, out[0].pattern);
    int32_t parent = out[0].to;
    for (int32_t k = 1; k < n->out_count; ++k) {
      parent = lca(f, parent, out[k].to, &pattern);
      pattern = max_pattern(pattern, out[k].pattern);
    }
    n->dom_parent = parent;
    n->dom_depth = parent >= 0 ? f->nodes[parent].dom_depth + 1 : 1;
    n->dom_pattern = pattern;
  }
}

/* ---- 5: the phases ------------------------------------------------------- */

typedef enum {
  COND_LE_BROADCAST,   /* OUT_ELEMWISE_FUSABLE / reduce epilogue */
  COND_INTO_SINK,      /* <= BROADCAST into an injective, reduce or anchor sink */
  COND_LE_INJECTIVE,   /* injective chains, tuples */
  COND_INJ_INTO_REDUCE /* injective chains, or into a reduce op */
} path_cond_t;

static bool cond_ok(path_cond_t c, int32_t kind, bool is_sink, int32_t own_pattern) {
  switch (c) {
    case COND_LE_BROADCAST:
      return kind <= RT_OP_PATTERN_BROADCAST;
    case COND_INTO_SINK:
      if (!is_sink) return kind <= RT_OP_PATTERN_INJECTIVE;
      return kind <= RT_OP_PATTERN_INJECTIVE || kind == RT_OP_PATTERN_COMM_REDUCE ||
             kind == RT_OP_PATTERN_OUT_ELEMWISE_FUSABLE;
    case COND_LE_INJECTIVE:
      return kind <= RT_OP_PATTERN_INJECTIVE;
    case COND_INJ_INTO_REDUCE:
      if (kind <= RT_OP_PATTERN_INJECTIVE) return true;
      return is_sink && kind == RT_OP_PATTERN_COMM_REDUCE &&
             own_pattern == RT_OP_PATTERN_COMM_REDUCE;
  }
  return false;
}

/* Every node on every path from src (exclusive) to sink (inclusive)
 * satisfies `c` (on its group's pattern). TVM's CheckPath. */
static rt_status_t check_path(fuse_t *f, int32_t src, int32_t sink, path_cond_t c, bool *out) {
  uint32_t gen = ++f->gen;
  int32_t sp = 0;
  const fnode_t *s = &f->nodes[src];
  for (int32_t k = 0; k < s->out_count; ++k) {
    RT_RETURN_IF_ERROR(push(f, &sp, f->edges[s->out_begin + k].to));
  }
  *out = true;
  while (sp > 0) {
    int32_t i = f->stack[--sp];
    fnode_t *n = &f->nodes[i];
    if (n->mark == gen) continue;
    n->mark = gen;
    if (!cond_ok(c, f->nodes[find(f, i)].gpattern, i == sink, n->pattern)) {
      *out = false;
      return RT_OK;
    }
    if (i == sink) continue;
    for (int32_t k = 0; k < n->out_count; ++k) {
      RT_RETURN_IF_ERROR(push(f, &sp, f->edges[n->out_begin + k].to));
    }
  }
  return RT_OK;
}

static void merge(fuse_t *f, int32_t child, int32_t parent) {
  int32_t c = find(f, child), p = find(f, parent);
  if (c == p) return;
  fnode_t *cn = &f->nodes[c], *pn = &f->nodes[p];
  pn->gnodes += cn->gnodes;
  cn->group = p;
  if (cn->anchor) {
    RT_ASSERT(!pn->anchor); /* the path conditions keep one anchor per group */
    pn->anchor = true;
    pn->gpattern = max_pattern(cn->gpattern, pn->gpattern);
  }
}

/* Merges src and every node on its paths to sink into sink's group. */
static rt_status_t commit(fuse_t *f, int32_t src, int32_t sink) {
  uint32_t gen = ++f->gen;
  int32_t sp = 0;
  RT_RETURN_IF_ERROR(push(f, &sp, src));
  while (sp > 0) {
    int32_t i = f->stack[--sp];
    fnode_t *n = &f->nodes[i];
    if (i == sink || n->mark == gen) continue;
    n->mark = gen;
    merge(f, i, sink);
    for (int32_t k = 0; k < n->out_count; ++k) {
      RT_RETURN_IF_ERROR(push(f, &sp, f->edges[n->out_begin + k].to));
    }
  }
  return RT_OK;
}

/* The size of dom's group if child joined it: TVM's
 * CountFusedNodesWithNewChild (nodes on the paths read their own group's
 * count, which over-counts what is already in dom's group: a bound, as in
 * TVM). */
static rt_status_t count_with_child(fuse_t *f, int32_t child, int32_t dom, int64_t *out) {
  int64_t total = f->nodes[find(f, dom)].gnodes;
  uint32_t gen = ++f->gen;
  int32_t sp = 0;
  RT_RETURN_IF_ERROR(push(f, &sp, child));
  while (sp > 0) {
    int32_t i = f->stack[--sp];
    fnode_t *n = &f->nodes[i];
    if (i == dom || n->mark == gen) continue;
    n->mark = gen;
    total += n->gnodes;
    for (int32_t k = 0; k < n->out_count; ++k) {
      RT_RETURN_IF_ERROR(push(f, &sp, f->edges[n->out_begin + k].to));
    }
  }
  *out = total;
  return RT_OK;
}

static rt_status_t try_path(fuse_t *f, int32_t src, int32_t sink, path_cond_t c) {
  bool ok = false;
  RT_RETURN_IF_ERROR(check_path(f, src, sink, c, &ok));
  if (ok) RT_RETURN_IF_ERROR(commit(f, src, sink));
  return RT_OK;
}

static rt_status_t run_phase(fuse_t *f, int phase) {
  for (int32_t i = 0; i < f->num_nodes; ++i) {
    fnode_t *n = &f->nodes[i];
    if (!n->graph) continue;
    int32_t gp = n->gpattern; /* the node's own group record, as TVM */
    if (gp == RT_OP_PATTERN_OPAQUE) continue;
    int32_t dom = n->dom_parent;
    if (dom < 0) continue;
    RT_ASSERT(!n->extern_ref);
    int64_t size = 0;
    RT_RETURN_IF_ERROR(count_with_child(f, i, dom, &size));
    if (size > f->max_depth) continue;
    if (phase == 2) {
      if (gp > RT_OP_PATTERN_INJECTIVE) continue;
      int32_t dom_root = find(f, dom);
      if (f->nodes[dom_root].gpattern == RT_OP_PATTERN_TUPLE) continue;
      if (f->nodes[dom].gpattern == RT_OP_PATTERN_TUPLE &&
          f->nodes[dom_root].gpattern <= RT_OP_PATTERN_INJECTIVE) {
        RT_RETURN_IF_ERROR(try_path(f, i, dom, COND_LE_INJECTIVE));
      }
      continue;
    }
    if (find(f, i) == find(f, dom)) continue;
    if (f->nodes[dom].gpattern == RT_OP_PATTERN_TUPLE) continue;
    if (gp == RT_OP_PATTERN_OUT_ELEMWISE_FUSABLE || gp == RT_OP_PATTERN_COMM_REDUCE) {
      /* An anchor takes its elementwise tail; for COMM_REDUCE this is
       * the epilogue addition (see the file comment). */
      if (phase != 0) continue;
      if (n->dom_pattern == RT_OP_PATTERN_ELEMWISE) {
        RT_RETURN_IF_ERROR(try_path(f, i, dom, COND_LE_BROADCAST));
      }
    } else if (gp <= RT_OP_PATTERN_BROADCAST) {
      if (n->dom_pattern <= RT_OP_PATTERN_INJECTIVE ||
          n->dom_pattern == RT_OP_PATTERN_COMM_REDUCE) {
        RT_RETURN_IF_ERROR(try_path(f, i, dom, COND_INTO_SINK));
      }
    } else if (gp == RT_OP_PATTERN_INJECTIVE || gp == RT_OP_PATTERN_TUPLE) {
      /* Deferred to phase 1 so anchors finish their tails first. */
      if (phase != 1) continue;
      RT_RETURN_IF_ERROR(try_path(f, i, dom, gp == RT_OP_PATTERN_INJECTIVE
                                                 ? COND_INJ_INTO_REDUCE
                                                 : COND_LE_INJECTIVE));
    }
  }
  return RT_OK;
}

/* ---- 6: rebuild ---------------------------------------------------------- */

static bool is_member(fuse_t *f, const rt_ir_expr_t *e, int32_t root) {
  int32_t i = idx(f, e);
  return i >= 0 && f->nodes[i].graph && find(f, i) == root;
}

/* Operands of a group member in order (op calls: args only). */
static int32_t member_operands(const rt_ir_expr_t *e, rt_ir_expr_t *const **out) {
  switch (e->kind) {
    case RT_IR_CALL:
      *out = e->call.args;
      return e->call.nargs;
    case RT_IR_TUPLE:
      *out = e->tuple.fields;
      return e->tuple.count;
    case RT_IR_TUPLE_GET_ITEM:
      *out = (rt_ir_expr_t *const *)&e->get_item.tuple;
      return 1;
    default:
      *out = NULL;
      return 0;
  }
}

/* The param of input `e` in the group being built, allocated on first
 * sight (TVM's GetOrAllocParam). */
static rt_status_t param_for(fuse_t *f, rt_ir_expr_t *e, rt_ir_expr_t **out) {
  fnode_t *n = &f->nodes[idx(f, e)];
  if (n->build_mark == f->build_gen && n->param >= 0) {
    *out = f->params[n->param];
    return RT_OK;
  }
  if (n->build_mark != f->build_gen) {
    n->build_mark = f->build_gen;
    n->inner = NULL;
  }
  char name[24];
  snprintf(name, sizeof name, "p%d", (int)f->num_params);
  rt_ir_expr_t *var = NULL;
  RT_RETURN_IF_ERROR(rt_ir_var(f->m, (rt_ir_span_t){0}, name, type_of(e), &var));
  GROW(f, f->params, f->cap_params, f->num_params + 1);
  GROW(f, f->inputs, f->cap_inputs, f->num_params + 1);
  f->params[f->num_params] = var;
  f->inputs[f->num_params] = idx(f, e);
  n->param = f->num_params++;
  *out = var;
  return RT_OK;
}

static bool built(const fuse_t *f, const fnode_t *n) {
  return n->build_mark == f->build_gen && n->inner != NULL;
}

/* The body of operand `e` of a member: its copy in the group, itself for
 * an inlined scalar, else its param. */
static rt_status_t operand(fuse_t *f, rt_ir_expr_t *e, int32_t root, rt_ir_expr_t **out) {
  if (is_member(f, e, root)) {
    *out = f->nodes[idx(f, e)].inner;
    RT_ASSERT(*out != NULL);
    return RT_OK;
  }
  if (is_inline_scalar(e)) {
    *out = e;
    return RT_OK;
  }
  return param_for(f, e, out);
}

static rt_status_t build_member(fuse_t *f, int32_t i, int32_t root) {
  fnode_t *n = &f->nodes[i];
  rt_ir_expr_t *e = n->expr;
  rt_ir_expr_t *const *ops = NULL;
  int32_t nops = member_operands(e, &ops);
  GROW(f, f->args, f->cap_args, nops + 1);
  for (int32_t k = 0; k < nops; ++k) RT_RETURN_IF_ERROR(operand(f, ops[k], root, &f->args[k]));
  rt_ir_expr_t *copy = NULL;
  switch (e->kind) {
    case RT_IR_CALL:
      RT_RETURN_IF_ERROR(
          rt_ir_call(f->m, e->span, e->call.callee, nops, f->args, e->call.attrs, &copy));
      break;
    case RT_IR_TUPLE:
      RT_RETURN_IF_ERROR(rt_ir_tuple(f->m, e->span, nops, f->args, &copy));
      break;
    case RT_IR_TUPLE_GET_ITEM:
      RT_RETURN_IF_ERROR(rt_ir_get_item(f->m, e->span, f->args[0], e->get_item.index, &copy));
      break;
    default:
      return RT_STATUS(INTERNAL, "FuseOps: node %u cannot be in a group", e->id);
  }
  copy->binding = e->binding;
  n = &f->nodes[i];
  if (n->build_mark != f->build_gen) {
    n->build_mark = f->build_gen;
    n->param = -1;
  }
  n->inner = copy;
  return RT_OK;
}

/* Builds `%fn = fn (%p0, ..., Primitive=1) -> R { ... }; %fn(inputs)` for
 * the group rooted at node `root`. */
static rt_status_t build_group(fuse_t *f, int32_t root, rt_ir_expr_t **out) {
  f->build_gen++;
  f->num_params = 0;
  int32_t depth = 0;
  GROW(f, f->frames, f->cap_frames, 1);
  f->frames[depth++] = (frame_t){root, 0};
  while (depth > 0) {
    frame_t *fr = &f->frames[depth - 1];
    rt_ir_expr_t *e = f->nodes[fr->node].expr;
    rt_ir_expr_t *const *ops = NULL;
    int32_t nops = member_operands(e, &ops);
    if (fr->next_child < nops) {
      rt_ir_expr_t *c = ops[fr->next_child++];
      if (is_member(f, c, root)) {
        int32_t ci = idx(f, c);
        if (!built(f, &f->nodes[ci])) {
          GROW(f, f->frames, f->cap_frames, depth + 1);
          f->frames[depth++] = (frame_t){ci, 0};
        }
      } else if (!is_inline_scalar(c)) {
        rt_ir_expr_t *unused = NULL;
        RT_RETURN_IF_ERROR(param_for(f, c, &unused));
      }
      continue;
    }
    int32_t node = fr->node;
    --depth;
    if (!built(f, &f->nodes[node])) RT_RETURN_IF_ERROR(build_member(f, node, root));
  }
  const rt_ir_expr_t *re = f->nodes[root].expr;
  rt_ir_expr_t *fn = NULL;
  RT_RETURN_IF_ERROR(rt_ir_function(f->m, (rt_ir_span_t){0}, f->num_params, f->params,
                                    f->nodes[root].inner, type_of(re), f->primitive_attrs, &fn));
  GROW(f, f->args, f->cap_args, f->num_params + 1);
  for (int32_t k = 0; k < f->num_params; ++k) {
    f->args[k] = f->nodes[f->inputs[k]].mapped;
    RT_ASSERT(f->args[k] != NULL);
  }
  rt_ir_expr_t *call = NULL;
  RT_RETURN_IF_ERROR(rt_ir_call(f->m, re->span, fn, f->num_params, f->args, NULL, &call));
  call->binding = re->binding;
  *out = call;
  return RT_OK;
}

/* Marks the groups that become Primitive functions. */
static void choose_groups(fuse_t *f) {
  for (int32_t i = 0; i < f->num_nodes; ++i) {
    if (f->nodes[i].graph && is_op_call(f->nodes[i].expr)) f->nodes[find(f, i)].has_call = true;
  }
}

static bool materialized(fuse_t *f, int32_t i) {
  const fnode_t *n = &f->nodes[i];
  if (!n->graph || find(f, i) != i || !n->has_call) return false;
  return is_op_call(n->expr) || n->expr->kind == RT_IR_TUPLE_GET_ITEM;
}

static rt_status_t rewrite(void *user, rt_ir_expr_t *original, rt_ir_expr_t *rebuilt,
                           rt_ir_expr_t **out) {
  fuse_t *f = user;
  int32_t i = idx(f, original);
  RT_ASSERT(i >= 0);
  *out = rebuilt;
  if (materialized(f, i)) RT_RETURN_IF_ERROR(build_group(f, i, out));
  f->nodes[i].mapped = *out;
  return RT_OK;
}

/* ---- driver -------------------------------------------------------------- */

static rt_status_t fuse_function(fuse_t *f, rt_ir_expr_t *fn, rt_ir_expr_t **out_fn) {
  f->num_nodes = 0;
  rt_status_t st = rt_ir_post_order(f->alloc, fn, collect, f);
  if (!st) st = assign_scopes(f, fn);
  if (!st) st = set_patterns(f);
  if (!st) st = build_edges(f);
  if (!st) {
    post_dominators(f);
    for (int phase = 0; phase < 3 && !st && f->opt_level >= 1; ++phase) st = run_phase(f, phase);
  }
  if (!st) {
    choose_groups(f);
    st = rt_ir_mutate(f->m, fn, rewrite, f, out_fn);
  }
  for (int32_t i = 0; i < f->num_nodes; ++i) f->index_of[f->nodes[i].expr->id] = -1;
  return st;
}

static void fuse_deinitialize(fuse_t *f) {
  rt_allocator_t a = f->alloc;
  rt_allocator_free(a, f->index_of);
  rt_allocator_free(a, f->nodes);
  rt_allocator_free(a, f->uses);
  rt_allocator_free(a, f->edges);
  rt_allocator_free(a, f->stack);
  rt_allocator_free(a, f->roots);
  rt_allocator_free(a, f->frames);
  rt_allocator_free(a, f->inputs);
  rt_allocator_free(a, f->params);
  rt_allocator_free(a, f->args);
}

rt_status_t rt_pass_fuse_ops(const rt_pass_env_t *env, rt_module_t *in, rt_module_t **out) {
  fuse_t f;
  memset(&f, 0, sizeof f);
  f.alloc = env->allocator;
  f.opt_level = env->ctx ? env->ctx->opt_level : 2;
  f.max_depth = env->ctx && env->ctx->fuse_max_depth > 0 ? env->ctx->fuse_max_depth
                                                           : DEFAULT_MAX_DEPTH;
  f.id_cap = in->next_id;
  rt_module_t *m = NULL;
  bool changed = false;
  rt_status_t st = rt_ir_module_derive(in, &m);
  f.m = m;
  if (!st) {
    void *p = NULL;
    st = rt_allocator_malloc(f.alloc, (size_t)f.id_cap * sizeof(int32_t) + 1, 16, false, &p);
    f.index_of = p;
    if (!st) memset(f.index_of, 0xff, (size_t)f.id_cap * sizeof(int32_t));
  }
  if (!st) {
    const char *key = "Primitive";
    rt_attr_value_t one = {.kind = RT_ATTR_INT, .i = 1};
    st = rt_ir_generic_attrs(m, 1, &key, &one, &f.primitive_attrs);
  }
  for (int32_t g = 0; g < in->num_globals && !st; ++g) {
    rt_ir_expr_t *fn = in->globals[g].fn;
    if (skip_fn(fn)) continue;
    rt_ir_expr_t *new_fn = NULL;
    st = fuse_function(&f, fn, &new_fn);
    if (!st && new_fn != fn) {
      changed = true;
      st = rt_ir_module_add(m, in->globals[g].name, new_fn);
    }
  }
  fuse_deinitialize(&f);
  if (st) {
    rt_module_release(m);
    return rt_status_annotate(st, "in FuseOps");
  }
  if (!changed) {
    rt_module_release(m);
    rt_module_retain(in);
    *out = in;
    return RT_OK;
  }
  *out = m;
  return RT_OK;
}

/* ---- kernel names -------------------------------------------------------- */


