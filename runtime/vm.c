/* The VM interpreter (runtime/vm.h): a register machine dispatched by one
 * switch over the opcodes of runtime/vm_ops.def.
 *
 * State: one register stack shared by all activations (a frame is a window
 * [base, base + num_registers) of it), a call stack of {function, pc, base,
 * caller's destination register, frame instance}, and per function a list
 * of frame instances indexed by how many activations of that function are
 * live (so recursion gets fresh planned storage per depth, and the second
 * run reuses what the first made). Invoke pushes a frame and copies the
 * arguments into its first registers; Ret moves the result into the
 * caller's destination and releases the callee's registers.
 *
 * Invariants: the executable was validated before the VM was made, so the
 * asserts at the top of each handler hold for any input file; what depends
 * on run-time values (register kinds, closure arity, scalar tests, kernel
 * shape checks) is checked with a status. Registers own one reference
 * each; writing a register retains the new value before releasing the old
 * one (so r[A] = r[A].field is safe). Pointers into the register stack are
 * re-read after every push, which may move it.
 *
 * The pooled allocator serves tensors, tuples and closures from power-of-
 * two size classes; a block remembers its class in a 64-byte header, so
 * the payload keeps the tensor alignment. The pool is reference-counted
 * (the VM plus every outstanding block) because results may outlive the
 * VM; its mutex makes a release from another thread safe. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/assert.h"
#include "runtime/tensor_impl.h"
#include "runtime/vm.h"
#include "runtime/kernel_services.h"

/* ---- the opcode table ------------------------------------------------------- */

static const rt_vm_op_info_t kOps[] = {
#define RT_VM_OP(ID, name, format, synopsis) [RT_VM_OP_##ID] = {name, format, synopsis},
#include "runtime/vm_ops.def"
#include "runtime/mem.h"
#undef RT_VM_OP
};
_Static_assert(sizeof kOps / sizeof kOps[0] == RT_VM_OP_COUNT, "one row per opcode");

const rt_vm_op_info_t *rt_vm_op_info(rt_vm_opcode_t op) {
  RT_ASSERT((int)op >= 0 && op < RT_VM_OP_COUNT);
  return &kOps[op];
}

/* ---- values ----------------------------------------------------------------- */

void rt_vm_value_retain(rt_vm_value_t v) {
  if (v.kind == RT_VM_VALUE_TENSOR) {
    rt_tensor_retain(v.tensor);
  } else if (rt_vm_value_is_object(v.kind)) {
    atomic_fetch_add_explicit(&v.object->refcount, 1, memory_order_relaxed);
  }
}

void rt_vm_value_release(rt_vm_value_t v) {
  if (v.kind == RT_VM_VALUE_TENSOR) {
    rt_tensor_release(v.tensor);
    return;
  }
  if (!rt_vm_value_is_object(v.kind)) return;
  /* Fields are released iteratively along the last field, so a long chain
   * of nested tuples does not grow the C stack much. */
  rt_vm_object_t *o = v.object;
  while (o) {
    if (atomic_fetch_sub_explicit(&o->refcount, 1, memory_order_acq_rel) != 1) return;
    rt_vm_object_t *next = NULL;
    for (int32_t i = 0; i < o->count; ++i) {
      rt_vm_value_t f = o->fields[i];
      if (i == o->count - 1 && rt_vm_value_is_object(f.kind)) {
        next = f.object;
      } else {
        rt_vm_value_release(f);
      }
    }
    rt_allocator_free(o->allocator, o);
    o = next;
  }
}

/* ---- the pooled allocator ------------------------------------------------------ */

#define POOL_HEADER 64
#define POOL_MIN_CLASS 6
#define POOL_MAX_CLASS 47
#define POOL_MAX_CACHED (UINT64_C(1) << 30)

typedef struct pool_t {
  pthread_mutex_t mu;
  int64_t refs;                           /* the VM + outstanding blocks */
  bool closing;
  void *free_list[POOL_MAX_CLASS + 1];    /* headers, linked through word 1 */
  uint64_t cached_bytes;
  uint64_t hits, misses;
} pool_t;

typedef struct {
  pool_t *pool;
  void *next;
  uint32_t cls;
} pool_header;
_Static_assert(sizeof(pool_header) <= POOL_HEADER, "pool header fits");

static void pool_destroy(pool_t *p) {
  pthread_mutex_destroy(&p->mu);
  rt_mem_free(p);
}

static void *pool_alloc(void *self, size_t size, size_t alignment) {
  pool_t *p = self;
  if (alignment > POOL_HEADER) return NULL;
  uint32_t cls = POOL_MIN_CLASS;
  while (cls <= POOL_MAX_CLASS && (UINT64_C(1) << cls) < (uint64_t)size) cls++;
  if (cls > POOL_MAX_CLASS) return NULL;
  pthread_mutex_lock(&p->mu);
  pool_header *h = p->free_list[cls];
  if (h) {
    p->free_list[cls] = h->next;
    p->cached_bytes -= UINT64_C(1) << cls;
    p->hits++;
  } else {
    p->misses++;
  }
  p->refs++;
  pthread_mutex_unlock(&p->mu);
  if (!h) {
    void *mem = NULL;
    if (posix_memalign(&mem, POOL_HEADER, POOL_HEADER + ((size_t)1 << cls)) != 0) {
      pthread_mutex_lock(&p->mu);
      p->refs--;
      pthread_mutex_unlock(&p->mu);
      return NULL;
    }
    h = mem;
    h->pool = p;
    h->cls = cls;
  }
  h->next = NULL;
  return (char *)h + POOL_HEADER;
}

static void pool_free(void *self, void *ptr) {
  (void)self;
  if (!ptr) return;
  pool_header *h = (pool_header *)((char *)ptr - POOL_HEADER);
  pool_t *p = h->pool;
  uint64_t bytes = UINT64_C(1) << h->cls;
  pthread_mutex_lock(&p->mu);
  bool keep = !p->closing && p->cached_bytes + bytes <= POOL_MAX_CACHED;
  if (keep) {
    h->next = p->free_list[h->cls];
    p->free_list[h->cls] = h;
    p->cached_bytes += bytes;
  }
  bool last = --p->refs == 0;
  pthread_mutex_unlock(&p->mu);
  if (!keep) free(h); /* posix_memalign'd */
  if (last) pool_destroy(p);
}

static void pool_close(pool_t *p) {
  pthread_mutex_lock(&p->mu);
  p->closing = true;
  for (int32_t c = 0; c <= POOL_MAX_CLASS; ++c) {
    pool_header *h = p->free_list[c];
    while (h) {
      pool_header *next = h->next;
      free(h); /* posix_memalign'd */
      h = next;
    }
    p->free_list[c] = NULL;
  }
  p->cached_bytes = 0;
  bool last = --p->refs == 0;
  pthread_mutex_unlock(&p->mu);
  if (last) pool_destroy(p);
}

/* ---- tensor views ----------------------------------------------------------------- */

/* A view holds a reference on the tensor whose bytes it shows, so it stays
 * valid however long it lives (even past the VM). */
typedef struct {
  DLManagedTensorVersioned managed;
  int64_t shape[RT_TENSOR_MAX_RANK];
} view_block;

static void view_deleter(DLManagedTensorVersioned *self) {
  rt_tensor_release(self->manager_ctx);
  rt_mem_free(self);
}

static rt_status_t make_view(rt_tensor_t *src, uint64_t byte_offset, rt_dtype_t dtype,
                             int32_t rank, const int64_t *shape, rt_tensor_t **out) {
  view_block *b = rt_mem_calloc(1, sizeof *b);
  if (!b) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory making a tensor view");
  b->managed.version.major = DLPACK_MAJOR_VERSION;
  b->managed.manager_ctx = src;
  b->managed.deleter = view_deleter;
  for (int32_t d = 0; d < rank; ++d) b->shape[d] = shape[d];
  DLTensor *dl = &b->managed.dl_tensor;
  dl->data = (char *)rt_tensor_data(src) + byte_offset;
  dl->device.device_type = kDLCPU;
  dl->ndim = rank;
  dl->dtype = dtype;
  dl->shape = b->shape;
  rt_status_t st = rt_tensor_from_dlpack(&b->managed, out);
  if (st) {
    rt_mem_free(b);
    return st;
  }
  rt_tensor_retain(src);
  return RT_OK;
}

/* ---- the machine -------------------------------------------------------------------- */

typedef struct {
  rt_tensor_t *storage;        /* uint8 [frame_bytes] */
  rt_tensor_t **views;         /* per slot; NULL for pooled slots */
} frame_inst;

typedef struct {
  int32_t active;              /* live activations */
  int32_t count, cap;
  frame_inst *inst;
} fn_state;

typedef struct {
  int32_t func;
  int32_t pc;
  int64_t base;
  int32_t ret_reg;             /* in the caller's frame; -1 = the host */
  int32_t inst;
} call_frame;

struct rt_vm_t {
  rt_allocator_t allocator;
  const rt_vm_executable_t *exe;
  const rt_kernel_fn *kernels;
  rt_thread_pool_t *threads;
  rt_vm_options_t opts;
  pool_t *mem;
  rt_allocator_t pooled;
  fn_state *fns;
  rt_vm_value_t *regs;
  int64_t reg_cap, reg_top;
  call_frame *stack;
  int32_t depth, stack_cap;
  rt_kernel_arg *args;         /* scratch for kernel calls */
  rt_vm_shape_t *shapes;       /* scratch for shape functions */
  int32_t max_args;
  bool running;
  uint64_t frames_created;
  int32_t max_depth_seen;
  rt_kernel_services_t services; /* the kernels' ctx */
};


rt_allocator_t rt_vm_allocator(rt_vm_t *vm) { return vm->pooled; }

void rt_vm_stats(const rt_vm_t *vm, rt_vm_stats_t *out) {
  pthread_mutex_lock(&vm->mem->mu);
  out->pool_hits = vm->mem->hits;
  out->pool_misses = vm->mem->misses;
  pthread_mutex_unlock(&vm->mem->mu);
  out->frames_created = vm->frames_created;
  out->max_depth = vm->max_depth_seen;
}

rt_status_t rt_vm_create(rt_allocator_t allocator, const rt_vm_executable_t *exe,
                         const rt_kernel_fn *kernels, rt_thread_pool_t *pool,
                         const rt_vm_options_t *options, rt_vm_t **out_vm) {
  if (!exe || !out_vm || (exe->num_kernels > 0 && !kernels)) {
    return RT_STATUS(INVALID_ARGUMENT, "rt_vm_create: exe, kernels and out_vm are required");
  }
  RT_RETURN_IF_ERROR(rt_vm_executable_validate(exe));
  for (int32_t k = 0; k < exe->num_kernels; ++k) {
    if (!kernels[k] && !(options && options->resolve_fn)) {
      return RT_STATUS(INVALID_ARGUMENT, "kernel %d (%s) has no entry point", (int)k,
                       exe->kernels[k].name);
    }
  }
  rt_vm_t *vm = rt_mem_calloc(1, sizeof *vm);
  if (!vm) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating the VM");
  vm->allocator = allocator;
  vm->exe = exe;
  vm->kernels = kernels;
  vm->threads = pool;
  if (options) vm->opts = *options;
  if (vm->opts.max_call_depth <= 0) vm->opts.max_call_depth = RT_VM_DEFAULT_MAX_CALL_DEPTH;
  if (vm->opts.max_stack_registers <= 0) vm->opts.max_stack_registers = INT64_C(1) << 24;
  rt_kernel_services_initialize(pool, &vm->services);
  rt_status_t st = RT_OK;
  vm->mem = rt_mem_calloc(1, sizeof *vm->mem);
  if (!vm->mem || pthread_mutex_init(&vm->mem->mu, NULL) != 0) {
    rt_mem_free(vm->mem);
    rt_kernel_services_deinitialize(&vm->services);
    rt_mem_free(vm);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating the VM's pool");
  }
  vm->mem->refs = 1;
  vm->pooled = (rt_allocator_t){vm->mem, pool_alloc, pool_free};
  int32_t max_args = 1;
  for (int32_t f = 0; f < exe->num_functions; ++f) {
    const rt_vm_function_t *fn = &exe->functions[f];
    for (int32_t pc = 0; pc < fn->num_instrs; ++pc) {
      const rt_vm_instr_t *in = &fn->instrs[pc];
      if ((in->op == RT_VM_OP_INVOKE_KERNEL || in->op == RT_VM_OP_SHAPE_FUNC) && in->d > max_args) {
        max_args = in->d;
      }
    }
  }
  vm->max_args = max_args;
  vm->fns = rt_mem_calloc((size_t)(exe->num_functions ? exe->num_functions : 1), sizeof(fn_state));
  vm->args = rt_mem_calloc((size_t)max_args, sizeof(rt_kernel_arg));
  vm->shapes = rt_mem_calloc((size_t)max_args, sizeof(rt_vm_shape_t));
  vm->stack_cap = 64;
  vm->stack = rt_mem_calloc((size_t)vm->stack_cap, sizeof(call_frame));
  vm->reg_cap = 256;
  vm->regs = rt_mem_calloc((size_t)vm->reg_cap, sizeof(rt_vm_value_t));
  if (!vm->fns || !vm->args || !vm->shapes || !vm->stack || !vm->regs) {
    st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating the VM");
  }
  if (st) {
    rt_vm_release(vm);
    return st;
  }
  *out_vm = vm;
  return RT_OK;
}

static void release_regs(rt_vm_t *vm, int64_t from, int64_t to) {
  for (int64_t r = from; r < to; ++r) {
    rt_vm_value_release(vm->regs[r]);
    vm->regs[r].kind = RT_VM_VALUE_EMPTY;
  }
}

void rt_vm_release(rt_vm_t *vm) {
  if (!vm) return;
  if (vm->regs) release_regs(vm, 0, vm->reg_top);
  for (int32_t f = 0; vm->fns && f < vm->exe->num_functions; ++f) {
    fn_state *s = &vm->fns[f];
    for (int32_t k = 0; k < s->count; ++k) {
      for (int32_t i = 0; i < vm->exe->functions[f].num_slots; ++i) {
        rt_tensor_release(s->inst[k].views[i]);
      }
      rt_mem_free(s->inst[k].views);
      rt_tensor_release(s->inst[k].storage);
    }
    rt_mem_free(s->inst);
  }
  rt_mem_free(vm->fns);
  rt_mem_free(vm->regs);
  rt_mem_free(vm->stack);
  rt_mem_free(vm->args);
  rt_mem_free(vm->shapes);
  if (vm->mem) pool_close(vm->mem);
  rt_kernel_services_deinitialize(&vm->services);
  rt_mem_free(vm);
}

/* Frame instance `k` of function f, made on first use. */
static rt_status_t frame_instance(rt_vm_t *vm, int32_t f, int32_t k) {
  fn_state *s = &vm->fns[f];
  if (k < s->count) return RT_OK;
  const rt_vm_function_t *fn = &vm->exe->functions[f];
  if (s->count == s->cap) {
    int32_t ncap = s->cap ? s->cap * 2 : 2;
    frame_inst *p = rt_mem_realloc(s->inst, (size_t)ncap * sizeof *p);
    if (!p) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory for a frame of @%s", fn->name);
    s->inst = p;
    s->cap = ncap;
  }
  frame_inst fi = {NULL, NULL};
  fi.views = rt_mem_calloc((size_t)(fn->num_slots ? fn->num_slots : 1), sizeof(rt_tensor_t *));
  if (!fi.views) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory for a frame of @%s", fn->name);
  int64_t bytes = (int64_t)(fn->frame_bytes ? fn->frame_bytes : 1);
  rt_status_t st = rt_tensor_create(vm->allocator, RT_DTYPE_UINT8, 1, &bytes, &fi.storage);
  for (int32_t i = 0; !st && i < fn->num_slots; ++i) {
    const rt_vm_slot_t *sl = &fn->slots[i];
    if (sl->offset < 0) continue;
    st = make_view(fi.storage, (uint64_t)sl->offset, sl->dtype, sl->rank, sl->shape, &fi.views[i]);
  }
  if (st) {
    for (int32_t i = 0; i < fn->num_slots; ++i) rt_tensor_release(fi.views[i]);
    rt_mem_free(fi.views);
    rt_tensor_release(fi.storage);
    return rt_status_annotate(st, "making the frame of @%s (%llu bytes)", fn->name,
                              (unsigned long long)fn->frame_bytes);
  }
  s->inst[s->count++] = fi;
  vm->frames_created++;
  return RT_OK;
}

/* Pushes an activation of f; its registers start EMPTY. */
static rt_status_t push_frame(rt_vm_t *vm, int32_t f, int32_t ret_reg) {
  const rt_vm_function_t *fn = &vm->exe->functions[f];
  if (vm->depth >= vm->opts.max_call_depth) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "call depth limit %d exceeded calling @%s (deep "
                     "recursion?)", (int)vm->opts.max_call_depth, fn->name);
  }
  int64_t need = vm->reg_top + fn->num_registers;
  if (need > vm->opts.max_stack_registers) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "register stack limit %lld exceeded calling @%s at "
                     "depth %d", (long long)vm->opts.max_stack_registers, fn->name,
                     (int)vm->depth);
  }
  if (need > vm->reg_cap) {
    int64_t ncap = vm->reg_cap * 2;
    while (ncap < need) ncap *= 2;
    rt_vm_value_t *p = rt_mem_realloc(vm->regs, (size_t)ncap * sizeof *p);
    if (!p) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory growing the register stack");
    memset(p + vm->reg_cap, 0, (size_t)(ncap - vm->reg_cap) * sizeof *p);
    vm->regs = p;
    vm->reg_cap = ncap;
  }
  if (vm->depth == vm->stack_cap) {
    int32_t ncap = vm->stack_cap * 2;
    call_frame *p = rt_mem_realloc(vm->stack, (size_t)ncap * sizeof *p);
    if (!p) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory growing the call stack");
    vm->stack = p;
    vm->stack_cap = ncap;
  }
  int32_t k = vm->fns[f].active;
  if (fn->frame_bytes > 0 || fn->num_slots > 0) RT_RETURN_IF_ERROR(frame_instance(vm, f, k));
  vm->fns[f].active++;
  vm->stack[vm->depth++] = (call_frame){f, 0, vm->reg_top, ret_reg, k};
  vm->reg_top = need;
  if (vm->depth > vm->max_depth_seen) vm->max_depth_seen = vm->depth;
  return RT_OK;
}

static void pop_frame(rt_vm_t *vm) {
  call_frame *fr = &vm->stack[vm->depth - 1];
  release_regs(vm, fr->base, vm->reg_top);
  vm->reg_top = fr->base;
  vm->fns[fr->func].active--;
  vm->depth--;
}

static void set_reg(rt_vm_value_t *regs, int32_t r, rt_vm_value_t v) {
  rt_vm_value_t old = regs[r];
  regs[r] = v;
  rt_vm_value_release(old);
}

static rt_status_t new_object(rt_allocator_t allocator, int32_t func, int32_t count,
                              rt_vm_object_t **out) {
  void *mem = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(allocator,
                                         sizeof(rt_vm_object_t) + (size_t)count * sizeof(rt_vm_value_t),
                                         16, false, &mem));
  rt_vm_object_t *o = mem;
  atomic_init(&o->refcount, 1);
  o->allocator = allocator;
  o->func = func;
  o->count = count;
  *out = o;
  return RT_OK;
}

rt_status_t rt_vm_value_make(rt_allocator_t allocator, rt_vm_value_kind_t kind, int32_t count,
                             const rt_vm_value_t *fields, rt_vm_value_t *out) {
  if (kind != RT_VM_VALUE_TUPLE && kind != RT_VM_VALUE_LIST && kind != RT_VM_VALUE_OPTION) {
    return RT_STATUS(INVALID_ARGUMENT, "%s", "rt_vm_value_make: a tuple, list or option");
  }
  if (count < 0 || (kind == RT_VM_VALUE_OPTION && count > 1)) {
    return RT_STATUS(INVALID_ARGUMENT, "rt_vm_value_make: %d fields", (int)count);
  }
  rt_vm_object_t *o = NULL;
  RT_RETURN_IF_ERROR(new_object(allocator, -1, count, &o));
  for (int32_t i = 0; i < count; ++i) {
    o->fields[i] = fields[i];
    rt_vm_value_retain(fields[i]);
  }
  out->kind = kind;
  out->object = o;
  return RT_OK;
}

static inline void arg_of(rt_kernel_arg *a, const rt_tensor_t *t) {
  a->data = (char *)t->data + t->byte_offset;
  a->shape = t->shape;
  a->strides = NULL;
  a->rank = t->rank;
  a->dtype.code = t->dtype.code;
  a->dtype.bits = t->dtype.bits;
  a->dtype.lanes = t->dtype.lanes;
  a->reserved = 0;
}

void rt_vm_shape_recipe_eval(const rt_vm_kernel_info_t *ki, const rt_kernel_arg *inputs,
                             int32_t num_inputs, rt_vm_shape_t *out_shapes, bool *out_applies) {
  /* The recipe passed rt_vm_shape_recipe_check (rt_vm_executable_validate). */
  *out_applies = false;
  const int64_t *w = ki->recipe;
  int64_t nv = w[0], at = 1;
  int64_t vars[RT_VM_MAX_RECIPE_VARS];
  for (int64_t v = 0; v < nv; ++v, at += 2) {
    int64_t i = w[at], d = w[at + 1];
    if (i >= num_inputs || d >= inputs[i].rank) return;
    vars[v] = inputs[i].shape[d];
  }
  bool tied = w[at++] != 0;
  for (int64_t v = 1; tied && v < nv; ++v) {
    if (vars[v] != vars[0]) return;
  }
  for (int32_t o = 0; o < ki->num_outputs; ++o) {
    int32_t rank = (int32_t)w[at++];
    out_shapes[o].rank = rank;
    for (int32_t d = 0; d < rank; ++d) {
      int64_t dim = w[at++];
      for (int64_t v = 0; v < nv; ++v, ++at) {
        int64_t term = 0;
        if (__builtin_mul_overflow(w[at], vars[v], &term) ||
            __builtin_add_overflow(dim, term, &dim)) {
          return;
        }
      }
      if (dim < 0) return;
      out_shapes[o].dims[d] = dim;
    }
  }
  *out_applies = true;
}

static rt_status_t int64_vector(rt_vm_t *vm, int32_t n, const int64_t *values, rt_tensor_t **out) {
  int64_t shape[1] = {n};
  RT_RETURN_IF_ERROR(rt_tensor_create(vm->pooled, RT_DTYPE_INT64, 1, shape, out));
  if (n) memcpy((*out)->data, values, (size_t)n * sizeof(int64_t));
  return RT_OK;
}

/* Reads a shape from an int64 vector register value. */
static rt_status_t shape_from(rt_vm_value_t v, int32_t *rank, int64_t *dims) {
  if (v.kind != RT_VM_VALUE_TENSOR) return RT_STATUS(INVALID_ARGUMENT, "a shape register holds no tensor");
  const rt_tensor_t *t = v.tensor;
  if (t->rank != 1 || !rt_dtype_equal(t->dtype, RT_DTYPE_INT64) || t->strides) {
    return RT_STATUS(INVALID_ARGUMENT, "a shape must be a compact int64 vector");
  }
  if (t->shape[0] > RT_TENSOR_MAX_RANK) {
    return RT_STATUS(INVALID_ARGUMENT, "a shape of rank %lld is past the limit %d",
                     (long long)t->shape[0], RT_TENSOR_MAX_RANK);
  }
  *rank = (int32_t)t->shape[0];
  memcpy(dims, rt_tensor_data(t), (size_t)*rank * sizeof(int64_t));
  for (int32_t d = 0; d < *rank; ++d) {
    if (dims[d] < 0) return RT_STATUS(INVALID_ARGUMENT, "dim %d of a shape is negative", (int)d);
  }
  return RT_OK;
}

/* dyn.reshape's target: the values of `codes` (a compact 1-d int tensor),
 * 0 copying src's dim at that position (unless allowzero) and one -1
 * inferred; the element count must be src's. */
static rt_status_t resolve_codes(const rt_tensor_t *src, const rt_tensor_t *codes, bool allowzero,
                                 int32_t *out_rank, int64_t *dims) {
  rt_dtype_t dt = codes->dtype;
  if (codes->rank != 1 || (dt.code != kDLInt && dt.code != kDLUInt) || dt.lanes != 1 ||
      (dt.bits != 32 && dt.bits != 64) || codes->strides) {
    return RT_STATUS(INVALID_ARGUMENT, "dyn.reshape: newshape must be a compact 1-d int32 or "
                     "int64 tensor");
  }
  if (codes->shape[0] > RT_TENSOR_MAX_RANK) {
    return RT_STATUS(INVALID_ARGUMENT, "dyn.reshape: newshape has %lld values, past the rank "
                     "limit %d", (long long)codes->shape[0], RT_TENSOR_MAX_RANK);
  }
  int32_t rank = (int32_t)codes->shape[0], infer = -1;
  const char *p = (const char *)codes->data + codes->byte_offset;
  int64_t known = 1;
  for (int32_t d = 0; d < rank; ++d) {
    int64_t v = 0;
    if (dt.bits == 64) {
      memcpy(&v, p + 8 * d, 8);
    } else {
      int32_t v32 = 0;
      uint32_t u32 = 0;
      memcpy(&v32, p + 4 * d, 4);
      memcpy(&u32, p + 4 * d, 4);
      v = dt.code == kDLInt ? v32 : (int64_t)u32;
    }
    if (v == 0 && !allowzero) {
      if (d >= src->rank) {
        return RT_STATUS(INVALID_ARGUMENT, "dyn.reshape: newshape[%d] = 0 copies input dim %d, "
                         "but the input has rank %d", (int)d, (int)d, (int)src->rank);
      }
      v = src->shape[d];
    }
    if (v == -1) {
      if (infer >= 0) return RT_STATUS(INVALID_ARGUMENT, "dyn.reshape: newshape has more than one -1");
      infer = d;
      v = 1;
    } else if (v < 0) {
      return RT_STATUS(INVALID_ARGUMENT, "dyn.reshape: newshape[%d] = %lld is not a size, 0 or -1",
                       (int)d, (long long)v);
    }
    if (v != 0 && known > INT64_MAX / v) return RT_STATUS(INVALID_ARGUMENT, "dyn.reshape: newshape overflows");
    known *= v;
    dims[d] = v;
  }
  if (infer >= 0) {
    if (known == 0 || src->numel % known != 0) {
      return RT_STATUS(INVALID_ARGUMENT, "dyn.reshape: cannot infer the -1 of newshape (%lld "
                       "elements over %lld)", (long long)src->numel, (long long)known);
    }
    dims[infer] = src->numel / known;
    known = src->numel;
  }
  if (known != src->numel) {
    return RT_STATUS(INVALID_ARGUMENT, "dyn.reshape: cannot view %lld elements with a shape of "
                     "%lld", (long long)src->numel, (long long)known);
  }
  *out_rank = rank;
  return RT_OK;
}

#define FAIL(...)                    \
  do {                               \
    st = RT_STATUS(__VA_ARGS__);     \
    goto fail;                       \
  } while (0)

static rt_status_t need_tensor(const rt_vm_value_t *regs, int32_t r, const char *what) {
  if (regs[r].kind == RT_VM_VALUE_TENSOR) return RT_OK;
  static const char *const kinds[] = {"nothing", "a tensor", "a tuple", "a closure", "a list",
                                      "an option"};
  return RT_STATUS(INVALID_ARGUMENT, "%s: r%d holds %s, not a tensor", what, (int)r,
                   kinds[regs[r].kind]);
}

/* Runs until the frame at depth 1 returns; its result goes to *out. */
static rt_status_t run(rt_vm_t *vm, rt_vm_value_t *out) {
  const rt_vm_executable_t *exe = vm->exe;
  rt_status_t st = RT_OK;
  for (;;) {
    call_frame *fr = &vm->stack[vm->depth - 1];
    const rt_vm_function_t *fn = &exe->functions[fr->func];
    rt_vm_value_t *R = vm->regs + fr->base;
    RT_ASSERT(fr->pc >= 0 && fr->pc < fn->num_instrs);
    const rt_vm_instr_t in = fn->instrs[fr->pc];
    switch ((rt_vm_opcode_t)in.op) {
      case RT_VM_OP_MOVE: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers && in.b >= 0 && in.b < fn->num_registers);
        rt_vm_value_retain(R[in.b]);
        set_reg(R, in.a, R[in.b]);
        fr->pc++;
        break;
      }
      case RT_VM_OP_RET: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers);
        rt_vm_value_t v = R[in.a];
        R[in.a].kind = RT_VM_VALUE_EMPTY; /* moved out, not released */
        int32_t ret_reg = fr->ret_reg;
        pop_frame(vm);
        if (vm->depth == 0) {
          *out = v;
          return RT_OK;
        }
        call_frame *caller = &vm->stack[vm->depth - 1];
        set_reg(vm->regs + caller->base, ret_reg, v);
        break;
      }
      case RT_VM_OP_INVOKE:
      case RT_VM_OP_INVOKE_CLOSURE: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers);
        RT_ASSERT(in.c >= 0 && in.d >= 0 && (int64_t)in.c + in.d <= fn->num_list);
        int32_t callee = in.b;
        rt_vm_object_t *clo = NULL;
        if (in.op == RT_VM_OP_INVOKE) {
          RT_ASSERT(in.b >= 0 && in.b < exe->num_functions);
          RT_ASSERT(exe->functions[in.b].num_params == in.d);
        } else {
          RT_ASSERT(in.b >= 0 && in.b < fn->num_registers);
          if (R[in.b].kind != RT_VM_VALUE_CLOSURE) {
            FAIL(INVALID_ARGUMENT, "InvokeClosure: r%d holds no closure", (int)in.b);
          }
          clo = R[in.b].object;
          callee = clo->func;
          if (exe->functions[callee].num_params != clo->count + in.d) {
            FAIL(INVALID_ARGUMENT, "closure of @%s called with %d arguments after %d captured; "
                 "it takes %d", exe->functions[callee].name, (int)in.d, (int)clo->count,
                 (int)exe->functions[callee].num_params);
          }
          atomic_fetch_add_explicit(&clo->refcount, 1, memory_order_relaxed);
        }
        int64_t caller_base = fr->base;
        fr->pc++;
        st = push_frame(vm, callee, in.a);
        if (st) {
          if (clo) rt_vm_value_release((rt_vm_value_t){.kind = RT_VM_VALUE_CLOSURE, .object = clo});
          fr = &vm->stack[vm->depth - 1];
          fr->pc--;
          goto fail;
        }
        rt_vm_value_t *callee_regs = vm->regs + vm->stack[vm->depth - 1].base;
        const rt_vm_value_t *caller_regs = vm->regs + caller_base;
        int32_t p = 0;
        if (clo) {
          for (int32_t i = 0; i < clo->count; ++i) {
            rt_vm_value_retain(clo->fields[i]);
            callee_regs[p++] = clo->fields[i];
          }
          rt_vm_value_release((rt_vm_value_t){.kind = RT_VM_VALUE_CLOSURE, .object = clo});
        }
        for (int32_t i = 0; i < in.d; ++i) {
          rt_vm_value_t v = caller_regs[fn->list[in.c + i]];
          rt_vm_value_retain(v);
          callee_regs[p++] = v;
        }
        break;
      }
      case RT_VM_OP_INVOKE_KERNEL: {
        RT_ASSERT(in.b >= 0 && in.b < exe->num_kernels);
        RT_ASSERT(in.c >= 0 && (int64_t)in.c + in.d <= fn->num_list && in.d <= vm->max_args);
        RT_ASSERT(in.a == exe->kernels[in.b].num_outputs &&
                  in.d == exe->kernels[in.b].num_inputs + in.a);
        const int32_t *L = fn->list + in.c;
        for (int32_t k = 0; k < in.d; ++k) {
          if (R[L[k]].kind != RT_VM_VALUE_TENSOR) {
            st = need_tensor(R, L[k], exe->kernels[in.b].name);
            goto fail;
          }
          arg_of(&vm->args[k], R[L[k]].tensor);
        }
        rt_kernel_fn kfn = vm->kernels[in.b];
        if (!kfn) {
          st = vm->opts.resolve_fn(vm->opts.resolve_user, in.b, in.d, vm->args, &kfn);
          if (st) {
            st = rt_status_annotate(st, "kernel %s", exe->kernels[in.b].name);
            goto fail;
          }
        }
        rt_kernel_services_clear_error(&vm->services);
        if (kfn(vm->args, in.d, &vm->services.ctx) != 0) {
          FAIL(INVALID_ARGUMENT, "kernel %s failed: %s", exe->kernels[in.b].name,
               rt_kernel_services_error(&vm->services));
        }
        fr->pc++;
        break;
      }
      case RT_VM_OP_INVOKE_HOST: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers && in.b >= 0 && in.b < exe->num_host_ops);
        RT_ASSERT(in.c >= 0 && in.d >= 0 && (int64_t)in.c + in.d <= fn->num_list);
        if (!vm->opts.host_fn) {
          FAIL(FAILED_PRECONDITION, "host op %s: this VM has no host to run it (an executable "
               "with host ops runs only where it was compiled)", exe->host_ops[in.b]);
        }
        rt_vm_value_t small[8];
        rt_vm_value_t *vals = in.d <= 8 ? small : rt_mem_calloc((size_t)in.d, sizeof *vals);
        if (!vals) FAIL(RESOURCE_EXHAUSTED, "%s", "out of memory");
        for (int32_t k = 0; k < in.d; ++k) vals[k] = R[fn->list[in.c + k]];
        rt_vm_value_t v = {.kind = RT_VM_VALUE_EMPTY};
        st = vm->opts.host_fn(vm->opts.host_user, in.b, in.d, vals, vm->pooled, &v);
        if (vals != small) rt_mem_free(vals);
        if (st) {
          st = rt_status_annotate(st, "host op %s", exe->host_ops[in.b]);
          goto fail;
        }
        set_reg(R, in.a, v);
        fr->pc++;
        break;
      }
      case RT_VM_OP_ALLOC_TENSOR: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers && in.b >= 0 && in.b < fn->num_slots);
        const rt_vm_slot_t *sl = &fn->slots[in.b];
        rt_tensor_t *t = NULL;
        if (sl->offset >= 0) {
          t = vm->fns[fr->func].inst[fr->inst].views[in.b];
          rt_tensor_retain(t);
        } else {
          st = rt_tensor_create(vm->pooled, sl->dtype, sl->rank, sl->shape, &t);
          if (st) goto fail;
        }
        set_reg(R, in.a, rt_vm_value_of_tensor(t));
        fr->pc++;
        break;
      }
      case RT_VM_OP_ALLOC_TENSOR_REG: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers && in.b >= 0 && in.b < fn->num_registers);
        int32_t rank = 0;
        int64_t dims[RT_TENSOR_MAX_RANK];
        st = shape_from(R[in.b], &rank, dims);
        rt_dtype_t dt = {(uint8_t)(in.c & 0xff), (uint8_t)((in.c >> 8) & 0xff),
                         (uint16_t)((uint32_t)in.c >> 16)};
        rt_tensor_t *t = NULL;
        /* A kernel's outputs: written whole, so not zeroed first. */
        if (!st) st = rt_tensor_create_for_output(vm->pooled, dt, rank, dims, &t);
        if (st) goto fail;
        set_reg(R, in.a, rt_vm_value_of_tensor(t));
        fr->pc++;
        break;
      }
      case RT_VM_OP_ALLOC_TUPLE:
      case RT_VM_OP_ALLOC_CLOSURE: {
        bool tuple = in.op == RT_VM_OP_ALLOC_TUPLE;
        int32_t start = tuple ? in.b : in.c, count = tuple ? in.c : in.d;
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers);
        RT_ASSERT(start >= 0 && count >= 0 && (int64_t)start + count <= fn->num_list);
        RT_ASSERT(tuple || (in.b >= 0 && in.b < exe->num_functions &&
                            count <= exe->functions[in.b].num_params));
        rt_vm_object_t *o = NULL;
        st = new_object(vm->pooled, tuple ? -1 : in.b, count, &o);
        if (st) goto fail;
        for (int32_t i = 0; i < count; ++i) {
          o->fields[i] = R[fn->list[start + i]];
          rt_vm_value_retain(o->fields[i]);
        }
        rt_vm_value_t v = {.kind = tuple ? RT_VM_VALUE_TUPLE : RT_VM_VALUE_CLOSURE, .object = o};
        set_reg(R, in.a, v);
        fr->pc++;
        break;
      }
      case RT_VM_OP_GET_FIELD: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers && in.b >= 0 && in.b < fn->num_registers);
        RT_ASSERT(in.c >= 0);
        if (R[in.b].kind != RT_VM_VALUE_TUPLE) FAIL(INVALID_ARGUMENT, "GetField: r%d holds no tuple", (int)in.b);
        rt_vm_object_t *o = R[in.b].object;
        if (in.c >= o->count) {
          FAIL(INVALID_ARGUMENT, "GetField: field %d of a tuple of %d", (int)in.c, (int)o->count);
        }
        rt_vm_value_t v = o->fields[in.c];
        rt_vm_value_retain(v);
        set_reg(R, in.a, v);
        fr->pc++;
        break;
      }
      case RT_VM_OP_IF: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers);
        RT_ASSERT(fr->pc + (int64_t)in.c >= 0 && fr->pc + (int64_t)in.c < fn->num_instrs);
        RT_ASSERT(fr->pc + (int64_t)in.d >= 0 && fr->pc + (int64_t)in.d < fn->num_instrs);
        if ((st = need_tensor(R, in.a, "If"))) goto fail;
        const rt_tensor_t *t = R[in.a].tensor;
        if (t->numel != 1) {
          FAIL(INVALID_ARGUMENT, "If: the condition r%d has %lld elements, not 1", (int)in.a,
               (long long)t->numel);
        }
        double v = rt_tensor_get_f64(t, 0);
        fr->pc += v == (double)in.b ? in.c : in.d;
        break;
      }
      case RT_VM_OP_GOTO: {
        RT_ASSERT(fr->pc + (int64_t)in.a >= 0 && fr->pc + (int64_t)in.a < fn->num_instrs);
        fr->pc += in.a;
        break;
      }
      case RT_VM_OP_LOAD_CONST: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers && in.b >= 0 && in.b < exe->num_consts);
        rt_tensor_retain(exe->consts[in.b]);
        set_reg(R, in.a, rt_vm_value_of_tensor(exe->consts[in.b]));
        fr->pc++;
        break;
      }
      case RT_VM_OP_LOAD_CONSTI: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers);
        rt_tensor_t *t = NULL;
        st = rt_tensor_create(vm->pooled, RT_DTYPE_INT64, 0, NULL, &t);
        if (st) goto fail;
        *(int64_t *)t->data = in.b;
        set_reg(R, in.a, rt_vm_value_of_tensor(t));
        fr->pc++;
        break;
      }
      case RT_VM_OP_SHAPE_OF: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers && in.b >= 0 && in.b < fn->num_registers);
        if ((st = need_tensor(R, in.b, "ShapeOf"))) goto fail;
        rt_tensor_t *t = NULL;
        st = int64_vector(vm, R[in.b].tensor->rank, R[in.b].tensor->shape, &t);
        if (st) goto fail;
        set_reg(R, in.a, rt_vm_value_of_tensor(t));
        fr->pc++;
        break;
      }
      case RT_VM_OP_RESHAPE_TENSOR: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers && in.b >= 0 && in.b < fn->num_registers);
        RT_ASSERT(in.c >= 0 && in.c < fn->num_registers);
        if ((st = need_tensor(R, in.b, "ReshapeTensor"))) goto fail;
        int32_t rank = 0;
        int64_t dims[RT_TENSOR_MAX_RANK];
        if ((st = shape_from(R[in.c], &rank, dims))) goto fail;
        rt_tensor_t *src = R[in.b].tensor;
        int64_t numel = 1;
        bool overflow = false;
        for (int32_t d = 0; d < rank; ++d) {
          if (dims[d] != 0 && numel > INT64_MAX / dims[d]) overflow = true;
          numel *= dims[d];
        }
        if (overflow || numel != src->numel || src->strides) {
          FAIL(INVALID_ARGUMENT, "ReshapeTensor: %lld elements (compact) cannot take a shape of "
               "%lld", (long long)src->numel, (long long)numel);
        }
        rt_tensor_t *t = NULL;
        if ((st = make_view(src, 0, src->dtype, rank, dims, &t))) goto fail;
        set_reg(R, in.a, rt_vm_value_of_tensor(t));
        fr->pc++;
        break;
      }
      case RT_VM_OP_RESHAPE_DYN: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers && in.b >= 0 && in.b < fn->num_registers);
        RT_ASSERT(in.c >= 0 && in.c < fn->num_registers);
        if ((st = need_tensor(R, in.b, "dyn.reshape"))) goto fail;
        if ((st = need_tensor(R, in.c, "dyn.reshape"))) goto fail;
        rt_tensor_t *src = R[in.b].tensor;
        int32_t rank = 0;
        int64_t dims[RT_TENSOR_MAX_RANK];
        if ((st = resolve_codes(src, R[in.c].tensor, in.d != 0, &rank, dims))) goto fail;
        rt_tensor_t *t = NULL;
        if (src->strides) FAIL(INVALID_ARGUMENT, "%s", "dyn.reshape of a strided tensor");
        if ((st = make_view(src, 0, src->dtype, rank, dims, &t))) goto fail;
        set_reg(R, in.a, rt_vm_value_of_tensor(t));
        fr->pc++;
        break;
      }
      case RT_VM_OP_KILL_REGISTER: {
        RT_ASSERT(in.a >= 0 && in.a < fn->num_registers);
        set_reg(R, in.a, (rt_vm_value_t){.kind = RT_VM_VALUE_EMPTY});
        fr->pc++;
        break;
      }
      case RT_VM_OP_SHAPE_FUNC: {
        RT_ASSERT(in.b >= 0 && in.b < exe->num_kernels);
        RT_ASSERT(in.c >= 0 && (int64_t)in.c + in.d <= fn->num_list && in.d <= vm->max_args);
        RT_ASSERT(in.a == exe->kernels[in.b].num_outputs &&
                  in.d == exe->kernels[in.b].num_inputs + in.a);
        const rt_vm_kernel_info_t *ki = &exe->kernels[in.b];
        const int32_t *L = fn->list + in.c;
        int32_t nin = in.d - in.a;
        for (int32_t k = 0; k < nin; ++k) {
          if ((st = need_tensor(R, L[k], ki->name))) goto fail;
          arg_of(&vm->args[k], R[L[k]].tensor);
        }
        memset(vm->shapes, 0, (size_t)in.a * sizeof(rt_vm_shape_t));
        /* The executable's own recipe first (no callback, no IR); the host
         * shape function for what the recipe does not describe. */
        bool applies = false;
        if (ki->recipe_len) rt_vm_shape_recipe_eval(ki, vm->args, nin, vm->shapes, &applies);
        if (!applies && !vm->opts.shape_fn) {
          FAIL(FAILED_PRECONDITION, "kernel %s has `?` output dims (%s) and this VM has no host "
               "shape function (rt_vm_options_t.shape_fn; the runtime-only library has none: run "
               "this model with the full library's \"vm\" executor)", ki->name,
               ki->recipe_len ? "its shape recipe does not cover these input shapes"
                              : "not expressible as a shape recipe");
        }
        if (!applies) {
          st = vm->opts.shape_fn(vm->opts.shape_user, in.b, nin, vm->args, in.a, vm->shapes);
          if (st) {
            st = rt_status_annotate(st, "the shape function of kernel %s", ki->name);
            goto fail;
          }
        }
        for (int32_t k = 0; k < in.a; ++k) {
          if (vm->shapes[k].rank < 0 || vm->shapes[k].rank > RT_TENSOR_MAX_RANK) {
            FAIL(INTERNAL, "the shape function of %s gave rank %d", ki->name, (int)vm->shapes[k].rank);
          }
          rt_tensor_t *t = NULL;
          if ((st = int64_vector(vm, vm->shapes[k].rank, vm->shapes[k].dims, &t))) goto fail;
          set_reg(R, L[nin + k], rt_vm_value_of_tensor(t));
        }
        fr->pc++;
        break;
      }
      default:
        FAIL(DATA_LOSS, "bad opcode %d in @%s at pc %d", (int)in.op, fn->name, (int)fr->pc);
    }
  }
fail:
  {
    call_frame *fr = &vm->stack[vm->depth - 1];
    const rt_vm_function_t *fn = &exe->functions[fr->func];
    const rt_vm_instr_t *in = &fn->instrs[fr->pc];
    st = rt_status_annotate(st, "in @%s at pc %d (%s), call depth %d", fn->name, (int)fr->pc,
                            in->op >= 0 && in->op < RT_VM_OP_COUNT ? kOps[in->op].name : "?",
                            (int)vm->depth);
  }
  while (vm->depth > 0) pop_frame(vm);
  return st;
}

rt_status_t rt_vm_invoke(rt_vm_t *vm, int32_t function, int32_t nargs, const rt_vm_value_t *args,
                         rt_vm_value_t *out_value) {
  const rt_vm_executable_t *exe = vm->exe;
  if (vm->running) return RT_STATUS(FAILED_PRECONDITION, "the VM is already running");
  if (function < 0 || function >= exe->num_functions) {
    return RT_STATUS(OUT_OF_RANGE, "function %d does not exist (the executable has %d)",
                     (int)function, (int)exe->num_functions);
  }
  const rt_vm_function_t *fn = &exe->functions[function];
  if (nargs != fn->num_params) {
    return RT_STATUS(INVALID_ARGUMENT, "@%s takes %d arguments, got %d", fn->name,
                     (int)fn->num_params, (int)nargs);
  }
  RT_RETURN_IF_ERROR(push_frame(vm, function, -1));
  rt_status_t st = RT_OK;
  rt_vm_value_t *R = vm->regs + vm->stack[0].base;
  for (int32_t i = 0; i < nargs && !st; ++i) {
    rt_vm_value_t v = args[i];
    if (v.kind == RT_VM_VALUE_TENSOR && v.tensor->strides) {
      /* Kernels take compact data. */
      rt_tensor_t *c = NULL;
      st = rt_tensor_clone(vm->pooled, v.tensor, &c);
      if (!st) R[i] = rt_vm_value_of_tensor(c);
    } else {
      rt_vm_value_retain(v);
      R[i] = v;
    }
  }
  if (st) {
    pop_frame(vm);
    return st;
  }
  vm->running = true;
  rt_vm_value_t result = {.kind = RT_VM_VALUE_EMPTY};
  st = run(vm, &result);
  vm->running = false;
  if (st) return st;
  *out_value = result;
  return RT_OK;
}
