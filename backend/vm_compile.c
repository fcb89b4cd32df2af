/* The VM compiler: an optimized module in A-normal form with lifted
 * closures -> bytecode (runtime/vm_ops.def) + JIT kernels.
 *
 * 1. Every global becomes VM function i (the module's global order). A
 *    lifted closure global `def @l(%f1..%fk) { fn (%p.., Closure=1) {B} }`
 *    compiles to a function of params (f1..fk, p..) with body B; a call
 *    `@l(captures)` becomes AllocClosure, and a call of the value
 *    InvokeClosure (captures first). A global used as a value is a closure
 *    with nothing captured.
 * 2. Expressions compile to a fresh register each: a let chain is a loop
 *    (long chains do not grow the C stack); `if` is If + the then code +
 *    Move into a merge register + Goto, then the else code + Move (as
 *    TVM's VM compiler does); a call of a Primitive function flattens its
 *    tuple arguments with GetField, allocates its outputs (AllocTensor for a
 *    static type; ShapeFunc + AllocTensorReg when the type has `?` dims),
 *    runs InvokeKernel, and rebuilds a tuple result with AllocTuple; a call
 *    of a global is Invoke. A group that is a lone dyn.reshape is no
 *    kernel: ReshapeDyn views its input with the shape its values give.
 * 3. Memory: a static output register that only kernels, If, ShapeOf and
 *    ShapeFunc read is "plannable"; its live interval [AllocTensor pc,
 *    last use pc] over the linear code is conservative because jumps only
 *    go forward and ANF binds a value in the scope that dominates its uses.
 *    The intervals get blocks like backend/graph.c (smallest free block of
 *    size in [bytes, 16 * bytes + 64], else a new one), laid out 64-byte
 *    aligned in the function's frame. Other values are pooled and get a
 *    KillRegister after their last use (not after If, Goto or Ret); the
 *    kills are inserted in a final pass that relocates the jumps (a jump to
 *    pc lands on pc itself, after the kills that follow pc - 1).
 * 4. Distinct Primitive functions (struct hash + equality) form the kernel
 *    table, compiled in one rt_jit_build; a kernel with `?` dims gets its
 *    shape recipe or the host shape function (backend/vm_shape.c). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/host_kernel.h"
#include "backend/vm_compile.h"
#include "interp/interp.h"
#include "ir/op/dyn.h"
#include "ir/op/op_attrs.h"
#include "jit/custom.h"
#include "passes/pass.h"
#include "runtime/size.h"
#include "runtime/mem.h"


typedef struct {
  rt_ir_expr_t *fn;
  uint64_t hash;
  bool dynamic;
} group_t;

typedef struct {
  uint32_t var_id;
  int32_t reg;
} var_reg;

typedef struct {
  int32_t slot;        /* AllocTensor slot that defines it, else -1 */
  bool plannable;
  int32_t last_use;    /* pc */
  bool killable;
} reg_info;

typedef struct {
  rt_module_t *m;
  /* the executable under construction */
  group_t *groups;
  int32_t num_groups, cap_groups;
  group_t *hosts;              /* host ops (vm_host.c) */
  int32_t num_hosts, cap_hosts;
  rt_tensor_t **consts;
  int32_t num_consts, cap_consts;
  int32_t *closure_captures;   /* per global: k for a lifted closure, else -1 */
  /* the function under construction */
  rt_vm_instr_t *code;
  int32_t ncode, cap_code;
  int32_t *list;
  int32_t nlist, cap_list;
  rt_vm_slot_t *slots;
  int32_t nslots, cap_slots;
  int32_t nregs;
  var_reg *vars;
  int32_t nvars, cap_vars;
  const char *fn_name;
} cc_t;

#define GROW(arr, n, cap, type)                                                      \
  do {                                                                               \
    if ((n) == (cap)) {                                                              \
      int32_t ncap_ = (cap) ? (cap) * 2 : 16;                                        \
      type *p_ = rt_mem_realloc((arr), (size_t)ncap_ * sizeof(type));                       \
      if (!p_) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory compiling for the vm"); \
      (arr) = p_;                                                                    \
      (cap) = ncap_;                                                                 \
    }                                                                                \
  } while (0)

static rt_status_t refuse(const cc_t *c, const rt_ir_expr_t *e, const char *what) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_ir_describe_binding(e, &b);
  rt_status_t st;
  if (e->span.source) {
    st = RT_STATUS(INVALID_ARGUMENT, "the vm executor does not run %s (%s in @%s at %s:%d:%d); "
                   "use the \"debug\" executor", what, b.data ? b.data : "", c->fn_name,
                   e->span.source->name, (int)e->span.line, (int)e->span.col);
  } else {
    st = RT_STATUS(INVALID_ARGUMENT, "the vm executor does not run %s (%s in @%s); use the "
                   "\"debug\" executor", what, b.data ? b.data : "", c->fn_name);
  }
  rt_strbuf_deinitialize(&b);
  return st;
}

static rt_status_t emit(cc_t *c, int32_t op, int32_t a, int32_t b, int32_t cc, int32_t d) {
  GROW(c->code, c->ncode, c->cap_code, rt_vm_instr_t);
  if (c->ncode >= RT_VM_MAX_INSTRS) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "@%s needs more than %d instructions", c->fn_name,
                     RT_VM_MAX_INSTRS);
  }
  c->code[c->ncode++] = (rt_vm_instr_t){op, a, b, cc, d};
  return RT_OK;
}

static rt_status_t new_reg(cc_t *c, int32_t *out) {
  if (c->nregs >= RT_VM_MAX_REGISTERS) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "@%s needs more than %d registers (the register file "
                     "limit)", c->fn_name, RT_VM_MAX_REGISTERS);
  }
  *out = c->nregs++;
  return RT_OK;
}

static rt_status_t push_list(cc_t *c, int32_t n, const int32_t *regs, int32_t *out_start) {
  *out_start = c->nlist;
  for (int32_t i = 0; i < n; ++i) {
    GROW(c->list, c->nlist, c->cap_list, int32_t);
    c->list[c->nlist++] = regs[i];
  }
  return RT_OK;
}

static rt_status_t bind_var(cc_t *c, const rt_ir_expr_t *var, int32_t reg) {
  GROW(c->vars, c->nvars, c->cap_vars, var_reg);
  c->vars[c->nvars++] = (var_reg){var->id, reg};
  return RT_OK;
}

static int32_t find_var(const cc_t *c, const rt_ir_expr_t *var) {
  for (int32_t i = c->nvars - 1; i >= 0; --i) {
    if (c->vars[i].var_id == var->id) return c->vars[i].reg;
  }
  return -1;
}

static int32_t global_index(const cc_t *c, const char *name) {
  for (int32_t g = 0; g < c->m->num_globals; ++g) {
    if (strcmp(c->m->globals[g].name, name) == 0) return g;
  }
  return -1;
}

static bool has_attr(const rt_ir_attrs_t *attrs, const char *key) {
  if (!attrs) return false;
  for (int32_t i = 0; i < attrs->count; ++i) {
    const rt_attr_value_t *v = &attrs->values[i];
    if (strcmp(attrs->keys[i], key) == 0 &&
        ((v->kind == RT_ATTR_INT && v->i != 0) || (v->kind == RT_ATTR_BOOL && v->b))) {
      return true;
    }
  }
  return false;
}

/* The lifted-closure form: a body that is a non-primitive fn with Closure. */
static rt_ir_expr_t *closure_body(rt_ir_expr_t *fn) {
  rt_ir_expr_t *b = fn->fn.body;
  if (b->kind == RT_IR_FUNCTION && !rt_ir_is_primitive(b) && has_attr(b->fn.attrs, "Closure")) {
    return b;
  }
  return NULL;
}

void rt_vm_type_leaves(const rt_ir_type_t *t, const rt_ir_type_t **out, int32_t *n) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (t && t->kind == RT_IR_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->tuple.count; ++i) rt_vm_type_leaves(t->tuple.fields[i], out, n);
    return;
  }
  if (*n < RT_VM_MAX_LEAVES) out[*n] = t;
  (*n)++;
}

static bool type_is_dynamic(const rt_ir_type_t *t) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (!t) return false;
  if (t->kind == RT_IR_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->tuple.count; ++i) {
      if (type_is_dynamic(t->tuple.fields[i])) return true;
    }
    return false;
  }
  if (t->kind != RT_IR_TYPE_TENSOR) return false;
  for (int32_t d = 0; d < t->tensor.rank; ++d) {
    if (t->tensor.shape[d] == RT_DIM_ANY) return true;
  }
  return false;
}

static rt_status_t kernel_of(cc_t *c, rt_ir_expr_t *fn, int32_t *out) {
  uint64_t h = rt_ir_struct_hash(fn);
  for (int32_t i = 0; i < c->num_groups; ++i) {
    if (c->groups[i].hash == h && rt_ir_struct_equal(c->groups[i].fn, fn)) {
      *out = i;
      return RT_OK;
    }
  }
  GROW(c->groups, c->num_groups, c->cap_groups, group_t);
  rt_ir_type_t *ft = rt_ir_type_resolve(fn->checked_type);
  c->groups[c->num_groups] = (group_t){fn, h, ft && type_is_dynamic(ft->func.ret)};
  *out = c->num_groups++;
  return RT_OK;
}

static rt_status_t const_of(cc_t *c, rt_tensor_t *t, int32_t *out) {
  for (int32_t i = 0; i < c->num_consts; ++i) {
    if (c->consts[i] == t) {
      *out = i;
      return RT_OK;
    }
  }
  GROW(c->consts, c->num_consts, c->cap_consts, rt_tensor_t *);
  rt_tensor_retain(t);
  c->consts[c->num_consts] = t;
  *out = c->num_consts++;
  return RT_OK;
}

static int32_t pack_dtype(rt_dtype_t dt) {
  return (int32_t)((uint32_t)dt.code | ((uint32_t)dt.bits << 8) | ((uint32_t)dt.lanes << 16));
}

/* Flattens the value in `reg` of type t into tensor registers (GetField). */
static rt_status_t flatten(cc_t *c, int32_t reg, const rt_ir_type_t *t, int32_t *regs, int32_t *n) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (t && t->kind == RT_IR_TYPE_TUPLE) {
    for (int32_t i = 0; i < t->tuple.count; ++i) {
      int32_t f = 0;
      RT_RETURN_IF_ERROR(new_reg(c, &f));
      RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_GET_FIELD, f, reg, i, 0));
      RT_RETURN_IF_ERROR(flatten(c, f, t->tuple.fields[i], regs, n));
    }
    return RT_OK;
  }
  if (*n >= RT_VM_MAX_LEAVES) return RT_STATUS(RESOURCE_EXHAUSTED, "a kernel with more than %d tensors", RT_VM_MAX_LEAVES);
  regs[(*n)++] = reg;
  return RT_OK;
}

/* Rebuilds a value of type t from leaf registers (AllocTuple). */
static rt_status_t rebuild(cc_t *c, const rt_ir_type_t *t, const int32_t *leaves, int32_t *i,
                           int32_t *out) {
  t = rt_ir_type_resolve((rt_ir_type_t *)t);
  if (t && t->kind == RT_IR_TYPE_TUPLE) {
    int32_t fields[RT_VM_MAX_LEAVES];
    if (t->tuple.count > RT_VM_MAX_LEAVES) return RT_STATUS(RESOURCE_EXHAUSTED, "a tuple too large");
    for (int32_t k = 0; k < t->tuple.count; ++k) {
      RT_RETURN_IF_ERROR(rebuild(c, t->tuple.fields[k], leaves, i, &fields[k]));
    }
    int32_t start = 0, r = 0;
    RT_RETURN_IF_ERROR(push_list(c, t->tuple.count, fields, &start));
    RT_RETURN_IF_ERROR(new_reg(c, &r));
    RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_ALLOC_TUPLE, r, start, t->tuple.count, 0));
    *out = r;
    return RT_OK;
  }
  *out = leaves[(*i)++];
  return RT_OK;
}

static rt_status_t expr(cc_t *c, rt_ir_expr_t *e, int32_t *out);

static rt_status_t compile_args(cc_t *c, int32_t nargs, rt_ir_expr_t *const *args, int32_t *regs) {
  for (int32_t i = 0; i < nargs; ++i) RT_RETURN_IF_ERROR(expr(c, args[i], &regs[i]));
  return RT_OK;
}

static rt_status_t kernel_call(cc_t *c, rt_ir_expr_t *e, int32_t *out) {
  rt_ir_expr_t *fn = e->call.callee;
  int32_t k = 0;
  RT_RETURN_IF_ERROR(kernel_of(c, fn, &k));
  int32_t regs[RT_VM_MAX_LEAVES * 2];
  int32_t nin = 0;
  if (e->call.nargs > RT_VM_MAX_LEAVES) return refuse(c, e, "kernels with more than 256 arguments");
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    int32_t r = 0;
    RT_RETURN_IF_ERROR(expr(c, e->call.args[i], &r));
    RT_RETURN_IF_ERROR(flatten(c, r, e->call.args[i]->checked_type, regs, &nin));
  }
  const rt_ir_type_t *leaves[RT_VM_MAX_LEAVES];
  int32_t nout = 0;
  rt_vm_type_leaves(e->checked_type, leaves, &nout);
  if (nout > RT_VM_MAX_LEAVES || nin + nout > RT_VM_MAX_LEAVES) return refuse(c, e, "kernels with more than 256 tensors");
  for (int32_t o = 0; o < nout; ++o) {
    if (!leaves[o] || leaves[o]->kind != RT_IR_TYPE_TENSOR) return refuse(c, e, "kernels returning non-tensors");
  }
  if (c->groups[k].dynamic) {
    /* Output shapes from the host shape function, then pooled outputs. */
    int32_t sregs[RT_VM_MAX_LEAVES * 2];
    memcpy(sregs, regs, (size_t)nin * sizeof(int32_t));
    for (int32_t o = 0; o < nout; ++o) RT_RETURN_IF_ERROR(new_reg(c, &sregs[nin + o]));
    int32_t start = 0;
    RT_RETURN_IF_ERROR(push_list(c, nin + nout, sregs, &start));
    RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_SHAPE_FUNC, nout, k, start, nin + nout));
    for (int32_t o = 0; o < nout; ++o) {
      RT_RETURN_IF_ERROR(new_reg(c, &regs[nin + o]));
      RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_ALLOC_TENSOR_REG, regs[nin + o], sregs[nin + o],
                              pack_dtype(leaves[o]->tensor.dtype), 0));
    }
  } else {
    for (int32_t o = 0; o < nout; ++o) {
      GROW(c->slots, c->nslots, c->cap_slots, rt_vm_slot_t);
      rt_vm_slot_t *s = &c->slots[c->nslots];
      memset(s, 0, sizeof *s);
      s->dtype = leaves[o]->tensor.dtype;
      s->rank = leaves[o]->tensor.rank;
      for (int32_t d = 0; d < s->rank; ++d) s->shape[d] = leaves[o]->tensor.shape[d];
      s->offset = RT_VM_SLOT_POOLED;
      RT_RETURN_IF_ERROR(new_reg(c, &regs[nin + o]));
      RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_ALLOC_TENSOR, regs[nin + o], c->nslots, 0, 0));
      c->nslots++;
    }
  }
  int32_t start = 0;
  RT_RETURN_IF_ERROR(push_list(c, nin + nout, regs, &start));
  RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_INVOKE_KERNEL, nout, k, start, nin + nout));
  int32_t i = 0;
  return rebuild(c, e->checked_type, regs + nin, &i, out);
}

/* The dyn.reshape call a fused group is made of alone (it is OPAQUE, so
 * FuseOps never merges it), else NULL. */
static const rt_ir_expr_t *lone_dyn_reshape(const rt_ir_expr_t *fn) {
  const rt_ir_expr_t *b = fn->fn.body;
  if (b->kind != RT_IR_CALL || b->call.callee->kind != RT_IR_OP ||
      b->call.callee->op.op->id != RT_OP_DYN_RESHAPE || b->call.nargs != 2) {
    return NULL;
  }
  return b;
}

/* dyn.reshape runs as ReshapeDyn, a view of its input: no kernel, and the
 * shape comes from the values at run time (no shape function needed). Its
 * operands are the group's parameters or constants FuseOps pulled in. */
static rt_status_t dyn_reshape_call(cc_t *c, rt_ir_expr_t *e, const rt_ir_expr_t *body, int32_t *out) {
  const rt_ir_expr_t *fn = e->call.callee;
  int32_t regs[2];
  for (int32_t i = 0; i < 2; ++i) {
    const rt_ir_expr_t *a = body->call.args[i];
    int32_t p = -1;
    for (int32_t k = 0; k < fn->fn.nparams; ++k) {
      if (fn->fn.params[k] == a) p = k;
    }
    if (p >= 0 && p < e->call.nargs) {
      RT_RETURN_IF_ERROR(expr(c, e->call.args[p], &regs[i]));
    } else if (a->kind == RT_IR_CONSTANT) {
      int32_t k = 0;
      RT_RETURN_IF_ERROR(const_of(c, a->constant.value, &k));
      RT_RETURN_IF_ERROR(new_reg(c, &regs[i]));
      RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_LOAD_CONST, regs[i], k, 0, 0));
    } else {
      return refuse(c, e, "a dyn.reshape fused with other ops");
    }
  }
  int32_t r = 0;
  RT_RETURN_IF_ERROR(new_reg(c, &r));
  RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_RESHAPE_DYN, r, regs[0], regs[1],
                          rt_ir_attrs_dyn_reshape(body->call.attrs).allowzero ? 1 : 0));
  *out = r;
  return RT_OK;
}

/* A group the JIT does not compile (vm_host.c): InvokeHost with its
 * argument values as they are (tuples, lists and options not flattened). */
static rt_status_t host_call(cc_t *c, rt_ir_expr_t *e, int32_t *out) {
  rt_ir_expr_t *fn = e->call.callee;
  if (e->call.nargs > RT_VM_MAX_LEAVES) return refuse(c, e, "host ops with more than 256 arguments");
  uint64_t h = rt_ir_struct_hash(fn);
  int32_t k = -1;
  for (int32_t i = 0; i < c->num_hosts && k < 0; ++i) {
    if (c->hosts[i].hash == h && rt_ir_struct_equal(c->hosts[i].fn, fn)) k = i;
  }
  if (k < 0) {
    GROW(c->hosts, c->num_hosts, c->cap_hosts, group_t);
    c->hosts[c->num_hosts] = (group_t){fn, h, false};
    k = c->num_hosts++;
  }
  int32_t args[RT_VM_MAX_LEAVES];
  RT_RETURN_IF_ERROR(compile_args(c, e->call.nargs, e->call.args, args));
  int32_t start = 0, r = 0;
  RT_RETURN_IF_ERROR(push_list(c, e->call.nargs, args, &start));
  RT_RETURN_IF_ERROR(new_reg(c, &r));
  RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_INVOKE_HOST, r, k, start, e->call.nargs));
  *out = r;
  return RT_OK;
}

static rt_status_t call(cc_t *c, rt_ir_expr_t *e, int32_t *out) {
  rt_ir_expr_t *callee = e->call.callee;
  if (callee->kind == RT_IR_FUNCTION && rt_ir_is_primitive(callee)) {
    const rt_ir_expr_t *dr = lone_dyn_reshape(callee);
    if (dr) return dyn_reshape_call(c, e, dr, out);
    bool host = false;
    RT_RETURN_IF_ERROR(rt_backend_is_host_group(callee, &host));
    return host ? host_call(c, e, out) : kernel_call(c, e, out);
  }
  if (callee->kind == RT_IR_OP) {
    return refuse(c, e, "op calls outside fused groups (FuseOps did not run)");
  }
  if (e->call.nargs > RT_VM_MAX_LEAVES) return refuse(c, e, "calls with more than 256 arguments");
  int32_t args[RT_VM_MAX_LEAVES];
  RT_RETURN_IF_ERROR(compile_args(c, e->call.nargs, e->call.args, args));
  int32_t start = 0, r = 0;
  RT_RETURN_IF_ERROR(push_list(c, e->call.nargs, args, &start));
  if (callee->kind == RT_IR_GLOBAL_VAR) {
    int32_t g = global_index(c, callee->global.name);
    if (g < 0) return refuse(c, e, "calls of undefined globals");
    int32_t caps = c->closure_captures[g];
    RT_RETURN_IF_ERROR(new_reg(c, &r));
    if (caps >= 0) {
      if (caps != e->call.nargs) return refuse(c, e, "partial captures of a lifted closure");
      RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_ALLOC_CLOSURE, r, g, start, e->call.nargs));
    } else {
      int32_t np = c->m->globals[g].fn->fn.nparams;
      if (np != e->call.nargs) return refuse(c, e, "calls with the wrong number of arguments");
      RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_INVOKE, r, g, start, e->call.nargs));
    }
    *out = r;
    return RT_OK;
  }
  if (callee->kind == RT_IR_FUNCTION) {
    return refuse(c, e, "fn literals LambdaLift left in place (recursive closures)");
  }
  int32_t f = 0;
  RT_RETURN_IF_ERROR(expr(c, callee, &f));
  RT_RETURN_IF_ERROR(new_reg(c, &r));
  RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_INVOKE_CLOSURE, r, f, start, e->call.nargs));
  *out = r;
  return RT_OK;
}

static rt_status_t if_expr(cc_t *c, rt_ir_expr_t *e, int32_t *out) {
  int32_t cond = 0, merge = 0, then_r = 0, else_r = 0;
  RT_RETURN_IF_ERROR(expr(c, e->if_.cond, &cond));
  RT_RETURN_IF_ERROR(new_reg(c, &merge));
  int32_t if_pc = c->ncode;
  RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_IF, cond, 1, 1, 0));
  RT_RETURN_IF_ERROR(expr(c, e->if_.then_branch, &then_r));
  RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_MOVE, merge, then_r, 0, 0));
  int32_t goto_pc = c->ncode;
  RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_GOTO, 0, 0, 0, 0));
  c->code[if_pc].d = c->ncode - if_pc;
  RT_RETURN_IF_ERROR(expr(c, e->if_.else_branch, &else_r));
  RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_MOVE, merge, else_r, 0, 0));
  c->code[goto_pc].a = c->ncode - goto_pc;
  *out = merge;
  return RT_OK;
}

static rt_status_t expr(cc_t *c, rt_ir_expr_t *e, int32_t *out) {
  while (e->kind == RT_IR_LET) {
    int32_t r = 0;
    RT_RETURN_IF_ERROR(expr(c, e->let.value, &r));
    RT_RETURN_IF_ERROR(bind_var(c, e->let.var, r));
    e = e->let.body;
  }
  int32_t r = 0;
  switch (e->kind) {
    case RT_IR_VAR:
      r = find_var(c, e);
      if (r < 0) return refuse(c, e, "free variables");
      *out = r;
      return RT_OK;
    case RT_IR_CONSTANT: {
      int32_t k = 0;
      RT_RETURN_IF_ERROR(const_of(c, e->constant.value, &k));
      RT_RETURN_IF_ERROR(new_reg(c, &r));
      RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_LOAD_CONST, r, k, 0, 0));
      *out = r;
      return RT_OK;
    }
    case RT_IR_GLOBAL_VAR: {
      int32_t g = global_index(c, e->global.name);
      if (g < 0) return refuse(c, e, "references to undefined globals");
      if (c->closure_captures[g] > 0) return refuse(c, e, "a lifted closure used without its captures");
      RT_RETURN_IF_ERROR(new_reg(c, &r));
      RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_ALLOC_CLOSURE, r, g, 0, 0));
      *out = r;
      return RT_OK;
    }
    case RT_IR_CALL: return call(c, e, out);
    case RT_IR_TUPLE: {
      if (e->tuple.count > RT_VM_MAX_LEAVES) return refuse(c, e, "tuples of more than 256 fields");
      int32_t fields[RT_VM_MAX_LEAVES];
      RT_RETURN_IF_ERROR(compile_args(c, e->tuple.count, e->tuple.fields, fields));
      int32_t start = 0;
      RT_RETURN_IF_ERROR(push_list(c, e->tuple.count, fields, &start));
      RT_RETURN_IF_ERROR(new_reg(c, &r));
      RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_ALLOC_TUPLE, r, start, e->tuple.count, 0));
      *out = r;
      return RT_OK;
    }
    case RT_IR_TUPLE_GET_ITEM: {
      int32_t t = 0;
      RT_RETURN_IF_ERROR(expr(c, e->get_item.tuple, &t));
      RT_RETURN_IF_ERROR(new_reg(c, &r));
      RT_RETURN_IF_ERROR(emit(c, RT_VM_OP_GET_FIELD, r, t, e->get_item.index, 0));
      *out = r;
      return RT_OK;
    }
    case RT_IR_IF: return if_expr(c, e, out);
    case RT_IR_FUNCTION:
      return refuse(c, e, rt_ir_is_primitive(e) ? "fused functions used as values"
                                                : "fn literals LambdaLift left in place (recursive closures)");
    case RT_IR_OP: return refuse(c, e, "ops used as values");
    case RT_IR_LET: break;
  }
  return RT_STATUS(INTERNAL, "unknown node kind %d", (int)e->kind);
}

/* ---- liveness, planning, kills ----------------------------------------------- */

/* Calls use(reg, how) for each register instruction pc reads; how: 0 = a
 * kernel input or output, If/ShapeOf/ShapeFunc read (planning-safe), 1 = a
 * use through which the value may escape. */
static void reads(const cc_t *c, const rt_vm_instr_t *in, reg_info *ri, int32_t pc) {
  const rt_vm_op_info_t *info = rt_vm_op_info((rt_vm_opcode_t)in->op);
  const int32_t ops[4] = {in->a, in->b, in->c, in->d};
  bool safe = in->op == RT_VM_OP_INVOKE_KERNEL || in->op == RT_VM_OP_IF ||
              in->op == RT_VM_OP_SHAPE_OF || in->op == RT_VM_OP_SHAPE_FUNC;
  for (int32_t k = 0; k < 4; ++k) {
    if (info->format[k] == 'l') {
      for (int32_t i = 0; i < ops[k + 1]; ++i) {
        int32_t r = c->list[ops[k] + i];
        ri[r].last_use = pc;
        if (!safe) ri[r].plannable = false;
      }
    } else if (info->format[k] == 'r' && k > 0) {
      int32_t r = ops[k];
      ri[r].last_use = pc;
      if (!safe) ri[r].plannable = false;
      if (in->op == RT_VM_OP_RET) ri[r].killable = false;
    } else if (info->format[k] == 'r' && k == 0 &&
               (in->op == RT_VM_OP_RET || in->op == RT_VM_OP_IF || in->op == RT_VM_OP_KILL_REGISTER)) {
      int32_t r = ops[k];
      ri[r].last_use = pc;
      if (in->op == RT_VM_OP_RET) {
        ri[r].plannable = false;
        ri[r].killable = false;
      }
    } else if (info->format[k] == 'r' && k == 0) {
      /* A write: the register's life starts (or, for a merge, continues). */
      int32_t r = ops[k];
      if (ri[r].last_use < pc) ri[r].last_use = pc;
      if (in->op != RT_VM_OP_ALLOC_TENSOR) ri[r].plannable = false;
    }
  }
}

static rt_status_t plan_and_finish(cc_t *c, rt_vm_function_t *fn) {
  rt_status_t st = RT_OK;
  reg_info *ri = rt_mem_calloc((size_t)(c->nregs ? c->nregs : 1), sizeof *ri);
  int32_t *nkills = rt_mem_calloc((size_t)c->ncode + 1, sizeof(int32_t));
  uint64_t *bsize = NULL;
  int32_t *bfree_after = NULL; /* per block: the pc after which it is free */
  int32_t nblocks = 0, cap_blocks = 0;
  int32_t *reg_block = NULL;
  if (!ri || !nkills) {
    st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning @%s", c->fn_name);
    goto done;
  }
  for (int32_t r = 0; r < c->nregs; ++r) ri[r] = (reg_info){-1, false, -1, true};
  for (int32_t pc = 0; pc < c->ncode; ++pc) {
    const rt_vm_instr_t *in = &c->code[pc];
    if (in->op == RT_VM_OP_ALLOC_TENSOR) {
      ri[in->a].slot = in->b;
      ri[in->a].plannable = ri[in->a].last_use < 0; /* written once */
    }
    reads(c, in, ri, pc);
  }
  /* Params are never planned (they come from the caller). */
  for (int32_t r = 0; r < fn->num_params && r < c->nregs; ++r) ri[r].plannable = false;
  /* Blocks for plannable registers, in pc order. */
  reg_block = rt_mem_alloc((size_t)(c->nregs ? c->nregs : 1) * sizeof(int32_t));
  if (!reg_block) {
    st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning @%s", c->fn_name);
    goto done;
  }
  for (int32_t r = 0; r < c->nregs; ++r) reg_block[r] = -1;
  for (int32_t pc = 0; pc < c->ncode && !st; ++pc) {
    const rt_vm_instr_t *in = &c->code[pc];
    if (in->op != RT_VM_OP_ALLOC_TENSOR || !ri[in->a].plannable) continue;
    rt_vm_slot_t *s = &c->slots[in->b];
    size_t bytes = 0;
    st = rt_size_of_shape(s->rank, s->shape, rt_dtype_size(s->dtype), &bytes);
    if (st) break;
    int32_t best = -1;
    for (int32_t b = 0; b < nblocks; ++b) {
      if (bfree_after[b] >= pc || bsize[b] < bytes || bsize[b] > 16 * (uint64_t)bytes + 64) continue;
      if (best < 0 || bsize[b] < bsize[best]) best = b;
    }
    if (best < 0) {
      if (nblocks == cap_blocks) {
        int32_t ncap = cap_blocks ? cap_blocks * 2 : 16;
        uint64_t *ns = rt_mem_realloc(bsize, (size_t)ncap * sizeof *ns);
        if (ns) bsize = ns;
        int32_t *nf = ns ? rt_mem_realloc(bfree_after, (size_t)ncap * sizeof *nf) : NULL;
        if (nf) bfree_after = nf;
        if (!ns || !nf) {
          st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning @%s", c->fn_name);
          break;
        }
        cap_blocks = ncap;
      }
      best = nblocks++;
      bsize[best] = bytes;
    }
    bfree_after[best] = ri[in->a].last_use;
    reg_block[in->a] = best;
  }
  if (st) goto done;
  /* Lay the blocks out, 64-byte aligned. */
  uint64_t total = 0;
  uint64_t *boff = rt_mem_calloc((size_t)(nblocks ? nblocks : 1), sizeof *boff);
  if (!boff) {
    st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning @%s", c->fn_name);
    goto done;
  }
  for (int32_t b = 0; b < nblocks; ++b) {
    boff[b] = total;
    total += (bsize[b] + 63) & ~(uint64_t)63;
  }
  for (int32_t r = 0; r < c->nregs; ++r) {
    if (reg_block[r] >= 0) c->slots[ri[r].slot].offset = (int64_t)boff[reg_block[r]];
  }
  rt_mem_free(boff);
  fn->frame_bytes = total;
  /* Kills: after the last use of every pooled value, except after control. */
  int32_t total_kills = 0;
  for (int32_t r = 0; r < c->nregs; ++r) {
    if (reg_block[r] >= 0 || !ri[r].killable || ri[r].last_use < 0) continue;
    const rt_vm_instr_t *at = &c->code[ri[r].last_use];
    if (at->op == RT_VM_OP_IF || at->op == RT_VM_OP_GOTO || at->op == RT_VM_OP_RET) continue;
    ri[r].killable = true;
    nkills[ri[r].last_use]++;
    total_kills++;
  }
  int32_t n = c->ncode + total_kills;
  rt_vm_instr_t *code = rt_mem_alloc((size_t)n * sizeof *code);
  int32_t *newpc = rt_mem_alloc(((size_t)c->ncode + 1) * sizeof(int32_t));
  if (!code || !newpc) {
    rt_mem_free(code);
    rt_mem_free(newpc);
    st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning @%s", c->fn_name);
    goto done;
  }
  int32_t p = 0;
  for (int32_t pc = 0; pc < c->ncode; ++pc) {
    newpc[pc] = p;
    p += 1 + nkills[pc];
  }
  newpc[c->ncode] = p;
  /* Kill slots per pc, filled in register order. */
  int32_t *fill = rt_mem_calloc((size_t)c->ncode + 1, sizeof(int32_t));
  if (!fill) {
    rt_mem_free(code);
    rt_mem_free(newpc);
    st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory planning @%s", c->fn_name);
    goto done;
  }
  for (int32_t pc = 0; pc < c->ncode; ++pc) {
    rt_vm_instr_t in = c->code[pc];
    if (in.op == RT_VM_OP_IF) {
      in.c = newpc[pc + in.c] - newpc[pc];
      in.d = newpc[pc + in.d] - newpc[pc];
    } else if (in.op == RT_VM_OP_GOTO) {
      in.a = newpc[pc + in.a] - newpc[pc];
    }
    code[newpc[pc]] = in;
  }
  for (int32_t r = 0; r < c->nregs; ++r) {
    if (reg_block[r] >= 0 || !ri[r].killable || ri[r].last_use < 0) continue;
    int32_t at = ri[r].last_use;
    const rt_vm_instr_t *ai = &c->code[at];
    if (ai->op == RT_VM_OP_IF || ai->op == RT_VM_OP_GOTO || ai->op == RT_VM_OP_RET) continue;
    code[newpc[at] + 1 + fill[at]++] = (rt_vm_instr_t){RT_VM_OP_KILL_REGISTER, r, 0, 0, 0};
  }
  rt_mem_free(fill);
  rt_mem_free(newpc);
  rt_mem_free(c->code);
  c->code = code;
  c->ncode = n;
  c->cap_code = n;
done:
  rt_mem_free(ri);
  rt_mem_free(nkills);
  rt_mem_free(bsize);
  rt_mem_free(bfree_after);
  rt_mem_free(reg_block);
  return st;
}

static rt_status_t compile_function(cc_t *c, int32_t g, rt_vm_function_t *out) {
  rt_ir_expr_t *fn = c->m->globals[g].fn;
  c->fn_name = c->m->globals[g].name;
  c->ncode = c->nlist = c->nslots = c->nregs = c->nvars = 0;
  c->code = NULL;
  c->list = NULL;
  c->slots = NULL;
  c->cap_code = c->cap_list = c->cap_slots = 0;
  out->name = rt_mem_strdup(c->fn_name);
  if (!out->name) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  rt_ir_expr_t *inner = closure_body(fn);
  rt_ir_expr_t *body = inner ? inner->fn.body : fn->fn.body;
  rt_status_t st = RT_OK;
  for (int32_t i = 0; i < fn->fn.nparams && !st; ++i) {
    int32_t r = 0;
    st = new_reg(c, &r);
    if (!st) st = bind_var(c, fn->fn.params[i], r);
  }
  for (int32_t i = 0; inner && i < inner->fn.nparams && !st; ++i) {
    int32_t r = 0;
    st = new_reg(c, &r);
    if (!st) st = bind_var(c, inner->fn.params[i], r);
  }
  out->num_params = c->nregs;
  int32_t result = 0;
  if (!st) st = expr(c, body, &result);
  if (!st) st = emit(c, RT_VM_OP_RET, result, 0, 0, 0);
  if (!st) st = plan_and_finish(c, out);
  out->num_registers = c->nregs;
  out->instrs = c->code;
  out->num_instrs = c->ncode;
  out->list = c->list;
  out->num_list = c->nlist;
  out->slots = c->slots;
  out->num_slots = c->nslots;
  if (st) return rt_status_annotate(st, "compiling @%s for the vm", c->fn_name);
  return RT_OK;
}

/* ---- the build ------------------------------------------------------------------ */

rt_status_t rt_vm_prepare_module(rt_module_t *module, const rt_pass_context_t *ctx,
                                 rt_module_t **out_module) {
  rt_pass_context_t defaults;
  if (!ctx) {
    rt_pass_context_defaults(&defaults);
    ctx = &defaults;
  }
  static const char *const names[2] = {"ToANormalForm", "LambdaLift"};
  rt_pass_fn fns[2] = {rt_pass_to_a_normal_form, rt_pass_lambda_lift};
  rt_module_t *m = module;
  rt_module_retain(m);
  for (int32_t i = 0; i < 2; ++i) {
    bool skipped = ctx->opt_level < 1;
    for (int32_t k = 0; k < ctx->num_disabled; ++k) {
      if (strcmp(ctx->disabled[k], names[i]) == 0) skipped = true;
    }
    for (int32_t k = 0; k < ctx->num_required; ++k) {
      if (strcmp(ctx->required[k], names[i]) == 0) skipped = false;
    }
    if (!skipped) continue;
    rt_pass_env_t env = {ctx, m->allocator};
    rt_module_t *next = NULL;
    rt_status_t st = fns[i](&env, m, &next);
    if (!st) st = rt_ir_infer_types(next);
    rt_module_release(m);
    if (st) {
      rt_module_release(next);
      return rt_status_annotate(st, "running %s for the vm (it is lowering, not optional)", names[i]);
    }
    m = next;
  }
  *out_module = m;
  return RT_OK;
}

/* ---- which kernels are compiled per shape ---------------------------------- */

typedef struct {
  bool anchor;        /* an op whose template wants static shapes */
  bool reads_values;  /* an op whose shapes depend on an operand's values */
} group_facts;

static rt_status_t note_op(void *user, rt_ir_expr_t *e) {
  group_facts *g = user;
  if (e->kind != RT_IR_CALL || e->call.callee->kind != RT_IR_OP) return RT_OK;
  const rt_ir_op_t *op = e->call.callee->op.op;
  if (op->pattern == RT_OP_PATTERN_OUT_ELEMWISE_FUSABLE) g->anchor = true;
  for (int32_t i = 0; i < e->call.nargs; ++i) {
    if (rt_ir_op_reads_value(op->id, i)) g->reads_values = true;
  }
  return RT_OK;
}

static bool fn_is_dynamic(const rt_ir_expr_t *fn) {
  const rt_ir_type_t *ft = rt_ir_type_resolve(fn->checked_type);
  if (!ft || ft->kind != RT_IR_TYPE_FUNC) return false;
  for (int32_t i = 0; i < ft->func.count; ++i) {
    if (type_is_dynamic(ft->func.params[i])) return true;
  }
  return type_is_dynamic(ft->func.ret);
}

/* Whether the kernel of `fn` is compiled per shape at run time. */
static rt_status_t choose_per_shape(rt_jit_session_t *session, rt_vm_specialize_t mode,
                                    rt_ir_expr_t *fn, uint8_t *out_per_shape,
                                    uint8_t *out_reads_values) {
  *out_per_shape = 0;
  *out_reads_values = 0;
  group_facts g = {false, false};
  RT_RETURN_IF_ERROR(rt_ir_post_order(rt_mem_current(), fn->fn.body, note_op, &g));
  *out_reads_values = g.reads_values;
  /* A dyn op is compiled for its values even where its types are static
   * (dyn.cumsum's axis). */
  if (g.reads_values) {
    *out_per_shape = 1;
    return RT_OK;
  }
  if (!fn_is_dynamic(fn)) return RT_OK;
  if (mode == RT_VM_SPECIALIZE_ALL ||
      (mode == RT_VM_SPECIALIZE_AUTO && g.anchor)) {
    *out_per_shape = 1;
    return RT_OK;
  }
  rt_status_t st = rt_jit_check_lowers(session, fn);
  if (st && rt_status_code(st) == RT_STATUS_UNIMPLEMENTED) {
    rt_status_free(st);
    *out_per_shape = 1;
    return RT_OK;
  }
  return st;
}

/* The executable's host ops (names), their functions and the interpreter
 * that runs them. */
static rt_status_t host_table(cc_t *c, rt_module_t *module, rt_vm_build_t *out) {
  int32_t n = c->num_hosts;
  if (n == 0) return RT_OK;
  out->exe.host_ops = rt_mem_calloc((size_t)n, sizeof(char *));
  out->host_fns = rt_mem_calloc((size_t)n, sizeof(rt_ir_expr_t *));
  if (!out->exe.host_ops || !out->host_fns) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  out->exe.num_host_ops = n;
  for (int32_t k = 0; k < n; ++k) {
    out->host_fns[k] = c->hosts[k].fn;
    rt_strbuf_t b;
    rt_strbuf_initialize(&b);
    rt_status_t st = rt_ir_primitive_name(c->hosts[k].fn, &b);
    size_t len = 0;
    if (!st) st = rt_strbuf_finish(&b, &out->exe.host_ops[k], &len);
    rt_strbuf_deinitialize(&b);
    RT_RETURN_IF_ERROR(st);
  }
  return rt_interp_create(module->allocator, module, NULL, &out->interp);
}

rt_status_t rt_vm_compile(rt_module_t *module, rt_jit_session_t *session, uint32_t jit_flags,
                          rt_vm_specialize_t specialize, rt_vm_build_t *out) {
  memset(out, 0, sizeof *out);
  cc_t c;
  memset(&c, 0, sizeof c);
  c.m = module;
  rt_status_t st = RT_OK;
  rt_vm_executable_t *exe = &out->exe;
  int32_t ng = module->num_globals;
  c.closure_captures = rt_mem_alloc((size_t)(ng ? ng : 1) * sizeof(int32_t));
  exe->functions = rt_mem_calloc((size_t)(ng ? ng : 1), sizeof(rt_vm_function_t));
  if (!c.closure_captures || !exe->functions) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t g = 0; !st && g < ng; ++g) {
    c.closure_captures[g] = closure_body(module->globals[g].fn) ? module->globals[g].fn->fn.nparams : -1;
  }
  for (int32_t g = 0; !st && g < ng; ++g) {
    exe->num_functions = g + 1;
    st = compile_function(&c, g, &exe->functions[g]);
  }
  rt_mem_free(c.vars);
  rt_mem_free(c.closure_captures);
  exe->consts = c.consts;
  exe->num_consts = c.num_consts;
  /* Kernels: one JIT module for every distinct group. */
  int32_t nk = c.num_groups;
  exe->kernels = rt_mem_calloc((size_t)(nk ? nk : 1), sizeof(rt_vm_kernel_info_t));
  out->kernels = rt_mem_calloc((size_t)(nk ? nk : 1), sizeof(rt_kernel_fn));
  out->kernel_fns = rt_mem_calloc((size_t)(nk ? nk : 1), sizeof(rt_ir_expr_t *));
  if (!st && (!exe->kernels || !out->kernels || !out->kernel_fns)) {
    st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  }
  if (exe->kernels) exe->num_kernels = nk;
  for (int32_t k = 0; !st && k < nk; ++k) {
    rt_ir_expr_t *fn = c.groups[k].fn;
    out->kernel_fns[k] = fn;
    rt_strbuf_t b;
    rt_strbuf_initialize(&b);
    st = rt_ir_primitive_name(fn, &b);
    int32_t repeats = 0;
    for (int32_t j = 0; !st && j < k; ++j) {
      if (strncmp(exe->kernels[j].name, b.data, b.len) == 0 &&
          (exe->kernels[j].name[b.len] == '\0' || exe->kernels[j].name[b.len] == '_')) {
        repeats++;
      }
    }
    if (!st && repeats) rt_strbuf_printf(&b, "_%d", (int)repeats);
    size_t len = 0;
    if (!st) st = rt_strbuf_finish(&b, &exe->kernels[k].name, &len);
    rt_strbuf_deinitialize(&b);
    int32_t nin = 0, nout = 0;
    for (int32_t i = 0; i < fn->fn.nparams; ++i) {
      const rt_ir_type_t *leaves[RT_VM_MAX_LEAVES];
      rt_vm_type_leaves(fn->fn.params[i]->checked_type, leaves, &nin);
    }
    rt_ir_type_t *ft = rt_ir_type_resolve(fn->checked_type);
    const rt_ir_type_t *leaves[RT_VM_MAX_LEAVES];
    rt_vm_type_leaves(ft->func.ret, leaves, &nout);
    exe->kernels[k].num_inputs = nin;
    exe->kernels[k].num_outputs = nout;
    exe->kernels[k].dynamic = c.groups[k].dynamic;
  }
  out->per_shape = rt_mem_calloc((size_t)(nk ? nk : 1), 1);
  out->reads_values = rt_mem_calloc((size_t)(nk ? nk : 1), 1);
  if (!st && (!out->per_shape || !out->reads_values)) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t k = 0; !st && k < nk; ++k) {
    st = choose_per_shape(session, specialize, out->kernel_fns[k], &out->per_shape[k],
                          &out->reads_values[k]);
    if (st) st = rt_status_annotate(st, "kernel %s", exe->kernels[k].name);
  }
  int32_t nbuilt = 0;
  for (int32_t k = 0; k < nk; ++k) nbuilt += out->per_shape && !out->per_shape[k];
  if (!st && nbuilt > 0) {
    char **names = rt_mem_calloc((size_t)nbuilt, sizeof(char *));
    rt_ir_expr_t **fns = rt_mem_calloc((size_t)nbuilt, sizeof(rt_ir_expr_t *));
    if (!names || !fns) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
    for (int32_t k = 0, j = 0; !st && k < nk; ++k) {
      if (out->per_shape[k]) continue;
      names[j] = exe->kernels[k].name;
      fns[j++] = out->kernel_fns[k];
    }
    /* Kernels of custom ops and strategies call into this process. */
    if (rt_jit_custom_in_use(nk, out->kernel_fns)) jit_flags |= RT_JIT_NO_DISK_CACHE;
    if (!st) {
      st = rt_jit_build(session, nbuilt, fns, (const char *const *)names, jit_flags,
                        &out->jit_stats, &out->jit);
      if (st) st = rt_status_annotate(st, "compiling the vm's %d kernels", (int)nbuilt);
    }
    rt_mem_free(names);
    rt_mem_free(fns);
    for (int32_t k = 0, j = 0; !st && k < nk; ++k) {
      if (!out->per_shape[k]) out->kernels[k] = rt_jit_module_kernel(out->jit, j++);
    }
  }
  rt_mem_free(c.groups);
  if (!st) st = host_table(&c, module, out);
  rt_mem_free(c.hosts);
  for (int32_t k = 0; !st && k < nk; ++k) {
    if (exe->kernels[k].dynamic && !out->reads_values[k]) st = rt_vm_derive_recipe(out, k);
  }
  if (!st) st = rt_vm_specializer_create(out, session, jit_flags);
  if (!st) st = rt_vm_executable_validate(exe);
  if (st) {
    rt_vm_build_deinitialize(out);
    return st;
  }
  rt_module_retain(module);
  out->module = module;
  return RT_OK;
}

void rt_vm_build_deinitialize(rt_vm_build_t *b) {
  rt_vm_specializer_release(b->spec);
  rt_interp_release(b->interp);
  rt_mem_free(b->host_fns);
  rt_mem_free(b->per_shape);
  rt_mem_free(b->reads_values);
  rt_vm_executable_deinitialize(&b->exe);
  rt_jit_module_release(b->jit);
  rt_mem_free(b->kernels);
  rt_mem_free(b->kernel_fns);
  rt_module_release(b->module);
  memset(b, 0, sizeof *b);
}
