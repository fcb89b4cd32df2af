/* ONNX converters for sequences and optionals (SequenceEmpty,
 * SequenceConstruct, SequenceAt, SequenceInsert, SequenceErase,
 * SequenceLength, SequenceMap, ConcatFromSequence, SplitToSequence, Optional,
 * OptionalHasElement, OptionalGetElement) into the list.* and option.*
 * ops on the built-in ADTs List[T] and Option[T] (ir/op/list.c).
 *
 * ONNX defaults become explicit operands: SequenceInsert without a
 * position appends (position = the list's length), SequenceErase without
 * one erases the last (-1), SplitToSequence without `split` passes an
 * empty (0,) split, which list.split reads as pieces of 1. ONNX does not
 * say the rank of SequenceEmpty's elements, and a List's element type has
 * one: it comes from the model's declared type of the output, else from
 * the first SequenceInsert into it in the same graph, or the declared type
 * of the body input of a Loop that carries it. */
#include <stdio.h>
#include <string.h>

#include "frontend/onnx/onnx_impl.h"

/* The rank a sequence type declares for its tensor elements, or -1. */
static int32_t seq_elem_rank(const Onnx__TypeProto *tp) {
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE || !tp->sequence_type) {
    return -1;
  }
  const Onnx__TypeProto *et = tp->sequence_type->elem_type;
  if (!et || et->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !et->tensor_type ||
      !et->tensor_type->shape) {
    return -1;
  }
  return (int32_t)et->tensor_type->shape->n_dim;
}

static int32_t declared_rank(const Onnx__GraphProto *g, const char *name) {
  if (!g || !name) return -1;
  for (size_t i = 0; i < g->n_value_info; ++i) {
    if (g->value_info[i]->name && strcmp(g->value_info[i]->name, name) == 0) {
      return seq_elem_rank(g->value_info[i]->type);
    }
  }
  for (size_t i = 0; i < g->n_output; ++i) {
    if (g->output[i]->name && strcmp(g->output[i]->name, name) == 0) {
      return seq_elem_rank(g->output[i]->type);
    }
  }
  return -1;
}

/* The rank of what the first SequenceInsert of this graph puts into
 * `name` (when that value is known here), or what the body of the first
 * Loop carrying `name` declares for it, or -1. */
static int32_t inserted_rank(rt_onnx_ctx_t *cx, const char *name) {
  const Onnx__GraphProto *g = cx->graph;
  for (size_t i = 0; g && i < g->n_node; ++i) {
    const Onnx__NodeProto *n = g->node[i];
    if (n->op_type && strcmp(n->op_type, "Loop") == 0) {
      for (size_t j = 2; j < n->n_input; ++j) {
        if (strcmp(n->input[j], name) != 0) continue;
        for (size_t a = 0; a < n->n_attribute; ++a) {
          const Onnx__AttributeProto *at = n->attribute[a];
          if (at->name && strcmp(at->name, "body") == 0 && at->g && j < at->g->n_input) {
            int32_t r = seq_elem_rank(at->g->input[j]->type);
            if (r >= 0) return r;
          }
        }
      }
    }
    if (!n->op_type || strcmp(n->op_type, "SequenceInsert") != 0 || n->n_input < 2) continue;
    if (strcmp(n->input[0], name) != 0) continue;
    rt_ir_expr_t *v = rt_onnx_value(cx, n->input[1]);
    const rt_ir_type_t *t = v ? rt_onnx_type(v) : NULL;
    return t ? t->tensor.rank : -1;
  }
  return -1;
}

static rt_status_t cv_sequence_empty(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                     rt_ir_expr_t **out, int32_t nout) {
  rt_dtype_t dt = {kDLFloat, 32, 1};
  int64_t code = rt_onnx_attr_int(cx, "dtype", 1);
  if (!rt_onnx_dtype((int32_t)code, &dt)) {
    return rt_onnx_unsupported(cx, "this dtype of SequenceEmpty");
  }
  const char *name = cx->node->n_output > 0 ? cx->node->output[0] : NULL;
  int32_t rank = declared_rank(cx->graph, name);
  if (rank < 0 && name) rank = inserted_rank(cx, name);
  if (rank < 0) {
    return rt_onnx_node_error(cx, RT_STATUS_UNIMPLEMENTED,
                              "SequenceEmpty whose elements' rank is not known is not "
                              "supported (the model declares no type for '%s' and no "
                              "SequenceInsert of this graph puts a tensor of known rank into it)",
                              name ? name : "");
  }
  char dtname[RT_DTYPE_NAME_MAX];
  return rt_onnx_call(cx, "list.empty", 0, NULL, &out[0], "dtype",
                      rt_onnx_str_text(cx, rt_dtype_name(dt, dtname)), "rank",
                      rt_onnx_int_text(cx, rank), NULL);
}

static rt_status_t cv_sequence_construct(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                         rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  rt_ir_expr_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, nin));
  RT_RETURN_IF_ERROR(rt_onnx_tuple(cx, nin, in, &t));
  return rt_onnx_call1(cx, "list.construct", t, &out[0]);
}

static rt_status_t cv_sequence_at(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                  rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  return rt_onnx_call2(cx, "list.at", in[0], in[1], &out[0]);
}

static rt_status_t cv_sequence_length(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                      rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  return rt_onnx_call1(cx, "list.length", in[0], &out[0]);
}

static rt_status_t cv_sequence_insert(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                      rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 2));
  rt_ir_expr_t *pos = nin > 2 ? in[2] : NULL;
  if (!pos) RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "list.length", in[0], &pos)); /* append */
  rt_ir_expr_t *args[3] = {in[0], in[1], pos};
  return rt_onnx_call(cx, "list.insert", 3, args, &out[0], NULL);
}

static rt_status_t cv_sequence_erase(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                     rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  rt_ir_expr_t *pos = nin > 1 ? in[1] : NULL;
  if (!pos) {
    const int64_t last = -1;
    RT_RETURN_IF_ERROR(rt_onnx_const_i64(cx, 0, 1, &last, &pos));
  }
  return rt_onnx_call2(cx, "list.erase", in[0], pos, &out[0]);
}

static rt_status_t cv_concat_from_sequence(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                           rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  if (!rt_onnx_attr(cx, "axis")) return rt_onnx_bad(cx, "ConcatFromSequence needs `axis`");
  int64_t axis = rt_onnx_attr_int(cx, "axis", 0);
  int64_t new_axis = rt_onnx_attr_int(cx, "new_axis", 0);
  return rt_onnx_call(cx, "list.concat", 1, in, &out[0], "axis", rt_onnx_int_text(cx, axis),
                      "new_axis", new_axis ? "True" : "False", NULL);
}

static rt_status_t cv_split_to_sequence(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                        rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  rt_ir_expr_t *split = nin > 1 ? in[1] : NULL;
  if (!split) RT_RETURN_IF_ERROR(rt_onnx_const_i64(cx, 1, 0, NULL, &split)); /* pieces of 1 */
  int64_t axis = rt_onnx_attr_int(cx, "axis", 0);
  int64_t keepdims = rt_onnx_attr_int(cx, "keepdims", 1);
  rt_ir_expr_t *args[2] = {in[0], split};
  return rt_onnx_call(cx, "list.split", 2, args, &out[0], "axis", rt_onnx_int_text(cx, axis),
                      "keepdims", keepdims ? "True" : "False", NULL);
}

/* The kind of a typed value (TENSOR when untyped). */
static rt_ir_type_kind_t kind_of(const rt_ir_expr_t *e) {
  const rt_ir_type_t *t = e && e->checked_type ? rt_ir_type_resolve(e->checked_type) : NULL;
  return t ? t->kind : RT_IR_TYPE_TENSOR;
}

static rt_status_t cv_optional(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                               rt_ir_expr_t **out, int32_t nout) {
  if (nin > 0 && in[0]) return rt_onnx_call1(cx, "option.some", in[0], &out[0]);
  const Onnx__AttributeProto *a = rt_onnx_attr(cx, "type");
  const Onnx__TypeProto *tp = a ? a->tp : NULL;
  bool list = false;
  if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE && tp->sequence_type) {
    list = true;
    tp = tp->sequence_type->elem_type;
  }
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type ||
      !tp->tensor_type->shape) {
    return rt_onnx_unsupported(cx, "Optional without an input needs a `type` of a tensor (or a "
                                   "sequence of tensors) with a shape; this one");
  }
  rt_dtype_t dt;
  if (!rt_onnx_dtype(tp->tensor_type->elem_type, &dt)) {
    return rt_onnx_unsupported(cx, "the element type of this Optional");
  }
  char dtname[RT_DTYPE_NAME_MAX];
  return rt_onnx_call(cx, "option.none", 0, NULL, &out[0], "dtype",
                      rt_onnx_str_text(cx, rt_dtype_name(dt, dtname)), "rank",
                      rt_onnx_int_text(cx, (int64_t)tp->tensor_type->shape->n_dim), "list",
                      list ? "True" : "False", NULL);
}

static rt_status_t cv_optional_has_element(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                           rt_ir_expr_t **out, int32_t nout) {
  /* Opset 18: an absent input is an empty optional; a tensor or a
   * sequence (not an optional) has its element. */
  if (nin < 1 || !in[0] || kind_of(in[0]) != RT_IR_TYPE_OPTION) {
    return rt_onnx_scalar(cx, (rt_dtype_t){kDLBool, 8, 1}, nin >= 1 && in[0] ? 1.0 : 0.0,
                          &out[0]);
  }
  return rt_onnx_call1(cx, "option.is_some", in[0], &out[0]);
}

static rt_status_t cv_optional_get_element(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                           rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  if (kind_of(in[0]) != RT_IR_TYPE_OPTION) { /* opset 18: a tensor or sequence is itself */
    out[0] = in[0];
    return RT_OK;
  }
  return rt_onnx_call1(cx, "option.get", in[0], &out[0]);
}

/* "__sequence_map<node>_<what>" in the module arena: a name the
 * synthesized loop body defines. */
static rt_status_t name_in(rt_onnx_ctx_t *cx, const char *what, char **out) {
  char buf[96];
  int n = snprintf(buf, sizeof buf, "__sequence_map%d_%s", (int)cx->node_index, what);
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc(&cx->m->arena, (size_t)n + 1, &p));
  memcpy(p, buf, (size_t)n + 1);
  *out = p;
  return RT_OK;
}

/* SequenceMap(seq, extra...) with body(elem, extra_elem...) -> (y...):
 * the loop ONNX's own function expansion writes, as a recursive function
 * of length(seq) iterations whose outputs are gathered in lists
 * (rt_onnx_loop_lists). Its body is made here: SequenceAt(input, iter)
 * (or Identity(input) for a tensor input) naming each of the body's
 * inputs, then the body's nodes; the condition passes through. */
static rt_status_t cv_sequence_map(rt_onnx_ctx_t *cx, rt_ir_expr_t **in, int32_t nin,
                                   rt_ir_expr_t **out, int32_t nout) {
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, 1));
  RT_RETURN_IF_ERROR(rt_onnx_need(cx, in, nin, nin));
  const Onnx__AttributeProto *a = rt_onnx_attr(cx, "body");
  const Onnx__GraphProto *g = a ? a->g : NULL;
  if (!g) return rt_onnx_bad(cx, "attribute body is required");
  if (g->n_input != (size_t)nin || g->n_output != (size_t)nout || nout < 1) {
    return rt_onnx_bad(cx, "the body's inputs and outputs do not match the node's");
  }
  if (kind_of(in[0]) != RT_IR_TYPE_LIST) return rt_onnx_bad(cx, "input 0 must be a sequence");
  rt_arena_t *ar = &cx->m->arena;
  const size_t nn = (size_t)nin + 1 + g->n_node;
  void *p = NULL;
  Onnx__NodeProto *mine = NULL;
  Onnx__NodeProto **nodes = NULL;
  Onnx__ValueInfoProto *vis = NULL, **vin = NULL, **vout = NULL;
  char **strs = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(ar, (size_t)nin + 1, sizeof *mine, &p));
  mine = p;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(ar, nn, sizeof *nodes, &p));
  nodes = p;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(ar, 3 + (size_t)nout, sizeof *vis, &p));
  vis = p;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(ar, 2, sizeof *vin, &p));
  vin = p;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(ar, 1 + (size_t)nout, sizeof *vout, &p));
  vout = p;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(ar, 4 * ((size_t)nin + 1) + 3, sizeof *strs, &p));
  strs = p;
  char *iter = NULL, *cond_in = NULL, *cond_out = NULL;
  RT_RETURN_IF_ERROR(name_in(cx, "iter", &iter));
  RT_RETURN_IF_ERROR(name_in(cx, "cond_in", &cond_in));
  RT_RETURN_IF_ERROR(name_in(cx, "cond_out", &cond_out));
  size_t k = 0, ks = 0;
  for (int32_t i = 0; i < nin; ++i) {
    Onnx__NodeProto *n = &mine[i];
    onnx__node_proto__init(n);
    bool seq = kind_of(in[i]) == RT_IR_TYPE_LIST;
    n->op_type = seq ? (char *)"SequenceAt" : (char *)"Identity";
    n->input = &strs[ks];
    strs[ks++] = cx->node->input[i];
    if (seq) strs[ks++] = iter;
    n->n_input = seq ? 2 : 1;
    n->output = &strs[ks];
    strs[ks++] = g->input[i]->name;
    n->n_output = 1;
    nodes[k++] = n;
  }
  Onnx__NodeProto *c = &mine[nin];
  onnx__node_proto__init(c);
  c->op_type = (char *)"Identity";
  c->input = &strs[ks];
  strs[ks++] = cond_in;
  c->n_input = 1;
  c->output = &strs[ks];
  strs[ks++] = cond_out;
  c->n_output = 1;
  nodes[k++] = c;
  for (size_t i = 0; i < g->n_node; ++i) nodes[k++] = g->node[i];
  onnx__value_info_proto__init(&vis[0]);
  vis[0].name = iter;
  onnx__value_info_proto__init(&vis[1]);
  vis[1].name = cond_in;
  onnx__value_info_proto__init(&vis[2]);
  vis[2].name = cond_out;
  vin[0] = &vis[0];
  vin[1] = &vis[1];
  vout[0] = &vis[2];
  for (int32_t i = 0; i < nout; ++i) vout[1 + i] = g->output[i];
  Onnx__GraphProto body;
  onnx__graph_proto__init(&body);
  body.name = g->name;
  body.n_node = k;
  body.node = nodes;
  body.n_input = 2;
  body.input = vin;
  body.n_output = 1 + (size_t)nout;
  body.output = vout;
  body.n_initializer = g->n_initializer;
  body.initializer = g->initializer;
  rt_ir_expr_t *len = NULL;
  RT_RETURN_IF_ERROR(rt_onnx_call1(cx, "list.length", in[0], &len));
  return rt_onnx_loop_lists(cx, &body, len, nout, out);
}

const rt_onnx_op_entry_t rt_onnx_seq_ops[] = {
    {"ConcatFromSequence", cv_concat_from_sequence},
    {"Optional", cv_optional},
    {"OptionalGetElement", cv_optional_get_element},
    {"OptionalHasElement", cv_optional_has_element},
    {"SequenceAt", cv_sequence_at},
    {"SequenceConstruct", cv_sequence_construct},
    {"SequenceEmpty", cv_sequence_empty},
    {"SequenceErase", cv_sequence_erase},
    {"SequenceInsert", cv_sequence_insert},
    {"SequenceLength", cv_sequence_length},
    {"SequenceMap", cv_sequence_map},
    {"SplitToSequence", cv_split_to_sequence},
};
const int32_t rt_onnx_seq_ops_count = (int32_t)RT_COUNTOF(rt_onnx_seq_ops);
