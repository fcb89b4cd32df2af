/* The "vm" executor's runtime half: a register machine over bytecode
 * (runtime/vm_ops.def) that calls compiled kernels (include/rt/kernel_abi.h).
 * No IR, no LLVM: this is the deployable part (docs/architecture.md, "Layers").
 *
 * An executable (rt_vm_executable_t) is plain data: functions (bytecode,
 * an operand-list pool, tensor slots), a kernel table (names and arities;
 * the entry points come separately, from the JIT or an exported library)
 * and constants. It is validated as a whole (rt_vm_executable_validate)
 * before a VM runs it: every operand of every instruction is checked
 * against the format of its opcode, so bytecode from a file can never make
 * the VM index out of range. What can only be known at run time (a
 * register holding a tuple where a tensor is expected, a closure called
 * with the wrong number of arguments, a kernel rejecting a shape) is an
 * error status, never a crash.
 *
 * Values in registers are tensors (rt_tensor_t, reference-counted), tuples,
 * closures, lists and options (rt_vm_object_t, reference-counted). Lists
 * and options (sequences and optionals) are made and read only by host
 * ops: InvokeHost hands the argument values to the host's callback
 * (rt_vm_options_t.host_fn; backend/vm_host.c runs the op's reference
 * kernel), which returns the result value. Memory:
 *   - A tensor slot with an offset >= 0 lives in its function's frame
 *     storage, planned at compile time (intervals over the bytecode, as the
 *     graph executor plans). Each activation depth of a function gets its
 *     own frame instance (storage + pre-made tensor views), created at the
 *     first activation at that depth and kept, so a static model (and a
 *     warmed-up recursion) allocates nothing per run.
 *   - Every other tensor, tuple and closure comes from the VM's pooled
 *     allocator (power-of-two size classes with free lists), returned to it
 *     when the last reference goes (KillRegister, a register overwritten,
 *     Ret releasing the frame). Pooled blocks may outlive the VM (a result
 *     kept by the host); the pool is freed when the last one is.
 *
 * Dynamic shapes: the runtime cannot evaluate type relations (they are IR).
 * A dynamic kernel's output shapes come from its shape recipe, stored in
 * the executable (below: affine in the input `?` dims, derived by the
 * compiler), else from a host callback, rt_vm_shape_fn, given the kernel
 * index and the input descriptors. backend/vm_compile.c provides one that
 * runs the fused function's type relations on the concrete shapes. A
 * runtime-only host (include/rt/artifact.h) has recipes only; a kernel
 * without one (and no callback) makes ShapeFunc FAILED_PRECONDITION naming
 * the kernel. dyn.reshape needs neither: ReshapeDyn reads the shape from
 * the values.
 *
 * Ownership: rt_vm_create borrows the executable, the kernel table and the
 * thread pool (they must outlive the VM). Values returned by rt_vm_invoke
 * are new references. Thread-safety: one VM is used by one thread at a
 * time; many VMs may share one executable. */
#ifndef RT_RUNTIME_VM_H_
#define RT_RUNTIME_VM_H_

#include <stdatomic.h>

#include "rt/kernel_abi.h"
#include "rt/tensor.h"
#include "runtime/strbuf.h"
#include "runtime/thread_pool.h"

/* ---- opcodes --------------------------------------------------------------- */

typedef enum rt_vm_opcode_e {
#define RT_VM_OP(ID, name, format, synopsis) RT_VM_OP_##ID,
#include "runtime/vm_ops.def"
#undef RT_VM_OP
  RT_VM_OP_COUNT
} rt_vm_opcode_t;

typedef struct rt_vm_op_info_t {
  const char *name;      /* "InvokeKernel" */
  const char *format;    /* four operand kinds, see vm_ops.def */
  const char *synopsis;  /* "K[B](L[C..C+D)): ..." */
} rt_vm_op_info_t;

/* The row of vm_ops.def for opcode `op` (0 <= op < RT_VM_OP_COUNT). */
const rt_vm_op_info_t *rt_vm_op_info(rt_vm_opcode_t op);

typedef struct rt_vm_instr_t {
  int32_t op;            /* rt_vm_opcode_t */
  int32_t a, b, c, d;
} rt_vm_instr_t;

/* ---- the executable ------------------------------------------------------ */

#define RT_VM_MAX_REGISTERS (1 << 20)   /* per function */
#define RT_VM_MAX_INSTRS (1 << 24)      /* per function */
#define RT_VM_DEFAULT_MAX_CALL_DEPTH 4096
#define RT_VM_SLOT_POOLED INT64_C(-1)

/* A tensor of static type: in frame storage at byte `offset`, or (offset
 * RT_VM_SLOT_POOLED) allocated from the pool each time. */
typedef struct rt_vm_slot_t {
  rt_dtype_t dtype;
  int32_t rank;
  int64_t shape[RT_TENSOR_MAX_RANK];
  int64_t offset;
} rt_vm_slot_t;

typedef struct rt_vm_function_t {
  char *name;                  /* rt_mem_alloc'd, without '@' */
  int32_t num_params;          /* the arguments arrive in r[0 .. num_params) */
  int32_t num_registers;
  int32_t num_instrs;
  rt_vm_instr_t *instrs;
  int32_t num_list;
  int32_t *list;               /* operand lists (registers) */
  int32_t num_slots;
  rt_vm_slot_t *slots;
  uint64_t frame_bytes;        /* planned storage per activation */
} rt_vm_function_t;

/* A shape recipe: a dynamic kernel's output shapes as affine functions of
 * its inputs' `?` dims, so a VM without the IR (a runtime-only host) can
 * size the outputs. backend/vm_compile.c derives it from the type relations
 * (runtime/vm.h's rt_vm_shape_recipe_eval says how it is read). The int64
 * words:
 *   V                      the number of variables (input `?` dims)
 *   (input, dim) x V       where each variable is read
 *   E                      1: every variable must have the same value
 *                          (the relations tied them: broadcast, concat)
 *   per output: rank, then per dim: c0, coef[V]   dim = c0 + sum coef*var
 * A kernel whose shapes are not of this form has no recipe (length 0); it
 * needs the host shape function (rt_vm_options_t.shape_fn). */
#define RT_VM_MAX_RECIPE_VARS 8

typedef struct rt_vm_kernel_info_t {
  char *name;                  /* rt_mem_alloc'd; the exported symbol's display name */
  int32_t num_inputs, num_outputs;
  bool dynamic;                /* has `?` output dims: needs a shape function */
  int32_t recipe_len;          /* int64 words; 0 = no recipe */
  int64_t *recipe;             /* rt_mem_alloc'd, or NULL */
} rt_vm_kernel_info_t;

typedef struct rt_vm_executable_t {
  int32_t num_functions;
  rt_vm_function_t *functions;
  int32_t num_kernels;
  rt_vm_kernel_info_t *kernels;
  int32_t num_host_ops;
  char **host_ops;             /* rt_mem_alloc'd names (the op a host op runs) */
  int32_t num_consts;
  rt_tensor_t **consts;        /* one reference each */
} rt_vm_executable_t;

struct rt_vm_shape_t;

/* Checks the recipe of kernel `ki` (word counts, variable indices against
 * its input count, ranks); DATA_LOSS naming the kernel. */
RT_MUST_USE_RESULT rt_status_t rt_vm_shape_recipe_check(const rt_vm_kernel_info_t *ki);

/* Evaluates the (checked) recipe of `ki` for these inputs into
 * out_shapes[0 .. num_outputs). *out_applies is false (and nothing is
 * filled) when the inputs fall outside what the recipe describes: a
 * variable's dim beyond an input's rank, tied variables with different
 * values, a negative or overflowing dim. */
void rt_vm_shape_recipe_eval(const rt_vm_kernel_info_t *ki, const rt_kernel_arg *inputs,
                             int32_t num_inputs, struct rt_vm_shape_t *out_shapes,
                             bool *out_applies);

/* Frees everything the executable holds (and zeroes it). */
void rt_vm_executable_deinitialize(rt_vm_executable_t *exe);

/* Checks every function, instruction operand, list entry, slot (dtype,
 * shape, offset + size inside the frame) and kernel arity, and that control
 * cannot run off the end of a function. DATA_LOSS naming the function, the
 * pc and the operand when something is out of range. */
RT_MUST_USE_RESULT rt_status_t rt_vm_executable_validate(const rt_vm_executable_t *exe);

/* The index of function `name`; NOT_FOUND otherwise. */
RT_MUST_USE_RESULT rt_status_t rt_vm_executable_lookup(const rt_vm_executable_t *exe,
                                                       const char *name, int32_t *out_index);

/* Appends the disassembly: per function its name, parameters, registers,
 * frame size and slots, then each instruction with its operands and its
 * synopsis from vm_ops.def (operand lists expanded). */
void rt_vm_executable_disassemble(const rt_vm_executable_t *exe, rt_strbuf_t *out);

/* ---- the file format (runtime/vm_serialize.c) ----------------------------
 * Little-endian:
 *   u64 magic RT_VM_MAGIC ("RTVMEXE\0"), u32 version RT_VM_FORMAT_VERSION,
 *   u32 RT_KERNEL_ABI_VERSION,
 *   u32 #constants, each an NDArray record (runtime/ndarray_blob.h),
 *   u32 #kernels, each {str name, u32 inputs, u32 outputs, u32 dynamic,
 *     u32 recipe words, i64 recipe[words]} (the shape recipe, above),
 *   u32 #functions, each {str name, u32 params, u32 registers, u64 frame
 *     bytes, u32 #slots, each {u8 code, u8 bits, u16 lanes, u32 rank,
 *     i64 offset, i64 shape[rank]}, u32 #list, i32 list[], u32 #instrs,
 *     each {u32 op, i32 a, i32 b, i32 c, i32 d}},
 *   u64 end marker RT_VM_END_MAGIC.
 * str = u32 length + bytes (no NUL). */
#define RT_VM_MAGIC UINT64_C(0x004558454D565452)     /* "RTVMEXE\0" */
#define RT_VM_END_MAGIC UINT64_C(0x444E454D56545200) /* "\0RTVMEND" */
#define RT_VM_FORMAT_VERSION 2   /* 2: shape recipes */

/* Serializes (the bytes are from the library heap: rt_mem_free). */
RT_MUST_USE_RESULT rt_status_t rt_vm_executable_serialize(const rt_vm_executable_t *exe,
                                                          char **out_bytes, size_t *out_size);
/* Parses and validates. Bad magic, another format or kernel ABI version,
 * truncation, trailing bytes and every check of rt_vm_executable_validate
 * are DATA_LOSS (naming `source_name` and what was wrong); nothing is
 * returned then. */
RT_MUST_USE_RESULT rt_status_t rt_vm_executable_deserialize(rt_allocator_t allocator,
                                                            const uint8_t *bytes, size_t size,
                                                            const char *source_name,
                                                            rt_vm_executable_t *out_exe);

/* ---- values ---------------------------------------------------------------- */

typedef enum rt_vm_value_kind_e {
  RT_VM_VALUE_EMPTY = 0,
  RT_VM_VALUE_TENSOR,
  RT_VM_VALUE_TUPLE,
  RT_VM_VALUE_CLOSURE,
  RT_VM_VALUE_LIST,            /* fields: the elements */
  RT_VM_VALUE_OPTION,          /* fields: none or the one value */
} rt_vm_value_kind_t;

typedef struct rt_vm_object_t rt_vm_object_t;

typedef struct rt_vm_value_t {
  rt_vm_value_kind_t kind;
  union {
    rt_tensor_t *tensor;       /* TENSOR */
    rt_vm_object_t *object;    /* TUPLE, CLOSURE, LIST, OPTION */
  };
} rt_vm_value_t;

/* A tuple, list or option (fields) or a closure (its function and
 * captured values). */
struct rt_vm_object_t {
  atomic_int refcount;
  rt_allocator_t allocator;    /* owns this block */
  int32_t func;                /* CLOSURE: function index */
  int32_t count;
  rt_vm_value_t fields[];
};

void rt_vm_value_retain(rt_vm_value_t value);
void rt_vm_value_release(rt_vm_value_t value);   /* EMPTY is fine */
static inline bool rt_vm_value_is_object(rt_vm_value_kind_t kind) {
  return kind == RT_VM_VALUE_TUPLE || kind == RT_VM_VALUE_CLOSURE || kind == RT_VM_VALUE_LIST ||
         kind == RT_VM_VALUE_OPTION;
}
/* A new tuple, list or option (kind) of `count` fields, each retained,
 * from `allocator` (a host op's result: rt_vm_allocator of the VM). */
RT_MUST_USE_RESULT rt_status_t rt_vm_value_make(rt_allocator_t allocator, rt_vm_value_kind_t kind,
                                                int32_t count, const rt_vm_value_t *fields,
                                                rt_vm_value_t *out);
static inline rt_vm_value_t rt_vm_value_of_tensor(rt_tensor_t *t) {
  rt_vm_value_t v;
  v.kind = RT_VM_VALUE_TENSOR;
  v.tensor = t;
  return v;
}

/* ---- the machine ------------------------------------------------------------ */

/* One output shape filled by a shape function. */
typedef struct rt_vm_shape_t {
  int32_t rank;
  int64_t dims[RT_TENSOR_MAX_RANK];
} rt_vm_shape_t;

/* Fills out_shapes[0 .. num_outputs) with the output shapes kernel `kernel`
 * produces for these inputs (descriptors borrowed for the call). Errors are
 * returned as they are, annotated by the VM with the kernel's name. */
typedef rt_status_t (*rt_vm_shape_fn)(void *user, int32_t kernel, int32_t num_inputs,
                                      const rt_kernel_arg *inputs, int32_t num_outputs,
                                      rt_vm_shape_t *out_shapes);

/* The entry point of kernel `kernel` for these arguments (inputs, then
 * outputs; descriptors borrowed for the call), for a kernel whose table
 * entry is NULL: a host that compiles such kernels for the shapes (and
 * operand values) they meet, backend/vm_specialize.c. The entry returned
 * must stay valid while the VM lives. */
typedef rt_status_t (*rt_vm_resolve_fn)(void *user, int32_t kernel, int32_t nargs,
                                        const rt_kernel_arg *args, rt_kernel_fn *out_fn);

/* Runs host op `op` (InvokeHost) on `nargs` values (borrowed) and returns
 * its result (a new reference; objects from `allocator`). Errors are
 * returned as they are, annotated by the VM with the op's name. */
typedef rt_status_t (*rt_vm_host_fn)(void *user, int32_t op, int32_t nargs,
                                     const rt_vm_value_t *args, rt_allocator_t allocator,
                                     rt_vm_value_t *out);

typedef struct rt_vm_options_t {
  int32_t max_call_depth;      /* 0 = RT_VM_DEFAULT_MAX_CALL_DEPTH */
  int64_t max_stack_registers; /* all frames together; 0 = 1 << 24 */
  rt_vm_shape_fn shape_fn;     /* may be NULL: dynamic kernels then fail */
  void *shape_user;
  rt_vm_resolve_fn resolve_fn; /* may be NULL: every kernel needs its entry */
  void *resolve_user;
  rt_vm_host_fn host_fn;       /* may be NULL: InvokeHost then fails */
  void *host_user;
} rt_vm_options_t;

typedef struct rt_vm_stats_t {
  uint64_t pool_hits;          /* blocks served from a free list */
  uint64_t pool_misses;        /* blocks taken from the system allocator */
  uint64_t frames_created;     /* frame instances made (first activations) */
  int32_t max_depth;           /* deepest call stack seen */
} rt_vm_stats_t;

typedef struct rt_vm_t rt_vm_t;

/* Validates `exe` and makes a VM for it. `kernels` has exe->num_kernels
 * entries (none NULL, unless options->resolve_fn is set: a NULL entry is
 * then resolved per call). `pool` may be NULL (kernels then run their tasks on
 * the calling thread). `options` may be NULL (defaults). */
RT_MUST_USE_RESULT rt_status_t rt_vm_create(rt_allocator_t allocator,
                                            const rt_vm_executable_t *exe,
                                            const rt_kernel_fn *kernels,
                                            rt_thread_pool_t *pool,
                                            const rt_vm_options_t *options,
                                            rt_vm_t **out_vm);
void rt_vm_release(rt_vm_t *vm);   /* NULL is fine */

/* Calls function `function` with `nargs` values (borrowed) and returns its
 * result (a new reference). INVALID_ARGUMENT for a wrong argument count;
 * RESOURCE_EXHAUSTED when the call depth or the register stack passes its
 * limit (deep recursion is an error, not a crash); any kernel's error,
 * naming the kernel, the function and the pc. Tensor views (frame slots,
 * ReshapeTensor) hold a reference on the bytes they show, so any result
 * stays valid after the VM is released. */
RT_MUST_USE_RESULT rt_status_t rt_vm_invoke(rt_vm_t *vm, int32_t function, int32_t nargs,
                                            const rt_vm_value_t *args,
                                            rt_vm_value_t *out_value);

void rt_vm_stats(const rt_vm_t *vm, rt_vm_stats_t *out_stats);
/* The pooled allocator (for tensors the host makes to pass in). */
rt_allocator_t rt_vm_allocator(rt_vm_t *vm);

#endif /* RT_RUNTIME_VM_H_ */
