/* jit/: compiles fused groups (Primitive functions of a typed module) into
 * native kernels with the ABI of include/rt/kernel_abi.h, through one LLVM
 * ORC LLJIT per session, with a kernel cache in memory and on disk.
 *
 * A session owns the LLJIT, the host target description (CPU name and
 * features), the table of loaded kernels and a mutex. A build takes a batch
 * of Primitive functions; each kernel is found in the session (a kernel
 * loaded by any live module of the session: shared, nothing compiled), or
 * in the disk cache (its object file: linked only, no LLVM optimization or
 * codegen), or lowered, optimized with the new pass manager at O3 for the
 * host TargetMachine and emitted as a PIC object file, which goes to the
 * disk cache and into the JIT. The result is an rt_jit_module_t: the kernel
 * entry points, their object files (for export), and optionally the
 * optimized LLVM IR and assembly text (for --emit=ll/asm). Kernel identity,
 * keys and the disk format: jit/cache.h.
 *
 * Ownership: rt_jit_session_create and rt_jit_build return objects the
 * caller owns. A module retains its session, so the two may be released in
 * any order; a module's kernels stay callable until the module is
 * released. Strings returned by accessors are borrowed from the module.
 *
 * Thread-safety: a session may be used from many threads at once. Lowering
 * and IR optimization run in parallel (each build has its own LLVM context
 * and TargetMachine); adding to and looking up in the LLJIT, which crashes
 * when two threads do it at once, is serialized by the session's mutex.
 * Kernels may be called from any number of threads. A module may be
 * released from any thread, but not while one of its kernels runs. */
#ifndef RT_JIT_JIT_H_
#define RT_JIT_JIT_H_

#include "ir/ir.h"
#include "jit/target.h"
#include "rt/kernel_abi.h"
#include "runtime/mem.h"

typedef struct rt_jit_session_t rt_jit_session_t;
typedef struct rt_jit_module_t rt_jit_module_t;

/* Creates a session compiling for target `kind` (jit/target.h; DEFAULT:
 * $RELAYRT_JIT_TARGET, else the host). `allocator` serves the session's
 * and its modules' bookkeeping (LLVM keeps its own heap). INTERNAL when
 * LLVM cannot set up the target (its message included); the statuses of
 * rt_jit_target_resolve. */
RT_MUST_USE_RESULT rt_status_t rt_jit_session_create_for(
    rt_allocator_t allocator, rt_jit_target_kind_t kind, rt_jit_session_t **out_session);
/* rt_jit_session_create_for whatever ISA this CPU has: the session
 * compiles (lowering, LLVM optimization, code generation, linking) and
 * keeps LLVM IR / assembly for inspection, but its kernels must not be
 * called on a CPU without the target's ISA (the tests build the 16-lane
 * AVX-512 templates this way on AVX2 hosts). Ownership and statuses as
 * rt_jit_session_create_for's, except that no FAILED_PRECONDITION comes
 * for a missing ISA. */
RT_MUST_USE_RESULT rt_status_t rt_jit_session_create_unchecked(
    rt_allocator_t allocator, rt_jit_target_kind_t kind, rt_jit_session_t **out_session);
/* A session for a resolved target (rt_jit_target_resolve), possibly with
 * fields changed: the tests build the templates' blocking for another
 * machine's L2 (rt_jit_target_t.l2_bytes) this way. The caller answers
 * for the ISA being this CPU's where the kernels are called. */
RT_MUST_USE_RESULT rt_status_t rt_jit_session_create_target(
    rt_allocator_t allocator, const rt_jit_target_t *target, rt_jit_session_t **out_session);
/* rt_jit_session_create_for with RT_JIT_TARGET_DEFAULT. */
RT_MUST_USE_RESULT rt_status_t rt_jit_session_create(
    rt_allocator_t allocator, rt_jit_session_t **out_session);
void rt_jit_session_retain(rt_jit_session_t *session);
/* Drops a reference; the last one disposes the LLJIT. NULL is fine. */
void rt_jit_session_release(rt_jit_session_t *session);

/* A new reference to the process-wide session of target `kind` (one per
 * target, created on first use, and again after its last reference was
 * released). Executors share it, so kernels equal across executors alive
 * at once compile and load once. */
RT_MUST_USE_RESULT rt_status_t rt_jit_session_shared(rt_jit_target_kind_t kind,
                                                     rt_jit_session_t **out_session);

/* The host target as the session compiles for it ("znver3", its features
 * and the triple), and the compiler version that is part of every cache
 * key (relayrt version and build id, LLVM version, kernel ABI); borrowed. */
const char *rt_jit_session_cpu(const rt_jit_session_t *session);
/* The session's target (borrowed, fixed for its lifetime). */
const rt_jit_target_t *rt_jit_session_target(const rt_jit_session_t *session);
const char *rt_jit_session_triple(const rt_jit_session_t *session);
const char *rt_jit_session_compiler(const rt_jit_session_t *session);

/* Totals over the session's builds. */
typedef struct rt_jit_cache_counts_t {
  int64_t compiled;     /* kernels that went through LLVM */
  int64_t memory_hits;  /* kernels shared with a loaded one */
  int64_t disk_hits;    /* kernels loaded from the disk cache */
  int64_t disk_writes;  /* entries written to the disk cache */
} rt_jit_cache_counts_t;
void rt_jit_session_counts(rt_jit_session_t *session, rt_jit_cache_counts_t *out_counts);

enum {
  /* Keep the optimized LLVM IR text of the module (rt_jit_module_ll). */
  RT_JIT_KEEP_LL = 1u << 0,
  /* Keep the assembly text (an extra codegen of a clone of the module). */
  RT_JIT_KEEP_ASM = 1u << 1,
  /* Skip the optimization pipeline (tests of the unoptimized lowering). */
  RT_JIT_NO_OPT = 1u << 2,
  /* Neither read nor write the disk cache (the in-memory sharing stays). */
  RT_JIT_NO_DISK_CACHE = 1u << 3,
};

/* The LLVM pipeline a kernel of template `template_name`
 * (rt_jit_template_name; NULL for the generic loop nest) gets under
 * `flags`, as it enters the kernel's cache key; `explicit_vector` is
 * rt_jit_template_explicit_vector of its function: "O0" (RT_JIT_NO_OPT),
 * "O3", "W2 fast-isel" for the Winograd template, "C2" for the other
 * explicit-vector kernels (jit/session.c pipeline_of says which and why).
 * A static string. */
const char *rt_jit_pipeline_key(uint32_t flags, const char *template_name, bool explicit_vector);

/* What one build did: times in milliseconds (summed over the threads that
 * compile the kernels in parallel: CPU time), and where its kernels came
 * from (compiled + memory_hits + disk_hits = the build's count; equal
 * functions within one build count once). */
typedef struct rt_jit_build_stats_t {
  /* Thread time summed over the kernels compiled (they compile in
   * parallel, so these can add up to more than wall_ms). */
  double key_ms;     /* cache keys and identities of every kernel */
  double lower_ms;   /* IR building + verification */
  double opt_ms;     /* the LLVM optimization pipeline (rt_jit_pipeline_key) */
  double emit_ms;    /* machine-code emission into object files */
  double asm_ms;     /* RT_JIT_KEEP_ASM's extra codegen */
  double cache_ms;   /* disk-cache reads and writes */
  double link_ms;    /* adding objects to the JIT + symbol lookup, under the lock */
  double wall_ms;    /* the whole rt_jit_build, wall clock */
  int32_t kernels;      /* functions asked for */
  int32_t distinct;     /* distinct kernels among them (equal ones are built once) */
  int32_t compiled;     /* kernels that went through LLVM */
  int32_t memory_hits;  /* kernels already loaded in the session */
  int32_t disk_hits;    /* kernels read from the disk cache */
  int32_t disk_writes;  /* entries written to the disk cache */
} rt_jit_build_stats_t;

/* Makes the kernels of `count` Primitive functions. fns[i] must be
 * a type-checked RT_IR_FUNCTION (attr Primitive=1 is not required); its
 * tensor params are the kernel's inputs and its result (a tensor, or a
 * tuple of tensors, flattened) its outputs. `names` may be NULL; names[i]
 * is the display name of kernel i, used in errors (its LLVM symbol,
 * "rt_k<key>_<identity hash>", is a function of the kernel: equal kernels
 * have equal symbols). Kernels to compile are compiled in parallel, one
 * thread per online CPU (at most 8), each in its own LLVM context, unless
 * the calling thread's allocator scope (runtime/mem.h) is not the system
 * allocator: then on the calling thread alone. The disk cache is the folder of rt_jit_cache_dir
 * (jit/cache.h: $RELAYRT_CACHE_DIR, $XDG_CACHE_HOME/relayrt or
 * ~/.cache/relayrt) unless RT_JIT_NO_DISK_CACHE; a cache that cannot be
 * read or written is skipped, never an error. RT_JIT_KEEP_ASM compiles
 * every kernel (units keep no assembly). UNIMPLEMENTED names the kernel and the op (or construct)
 * that does not lower yet; INVALID_ARGUMENT for a function that is not a
 * typed tensor function; INTERNAL with LLVM's message if LLVM fails. On
 * error nothing is added to the JIT. `out_stats` may be NULL. */
RT_MUST_USE_RESULT rt_status_t rt_jit_build(rt_jit_session_t *session,
                                            int32_t count,
                                            rt_ir_expr_t *const *fns,
                                            const char *const *names,
                                            uint32_t flags,
                                            rt_jit_build_stats_t *out_stats,
                                            rt_jit_module_t **out_module);
/* Whether `fn` (as rt_jit_build takes it) lowers for the session's target
 * as it is, `?` dims included: the lowering alone, into a module that is
 * thrown away (no optimization, no code). RT_OK, or the status
 * rt_jit_build would return (UNIMPLEMENTED naming the op). The vm asks
 * this of kernels with `?` dims to decide which it compiles per shape. */
RT_MUST_USE_RESULT rt_status_t rt_jit_check_lowers(rt_jit_session_t *session,
                                                   const rt_ir_expr_t *fn);
/* Frees the module's code and symbols. NULL is fine. */
void rt_jit_module_release(rt_jit_module_t *module);

int32_t rt_jit_module_count(const rt_jit_module_t *module);
/* Kernel i's entry point (0 <= i < count). */
rt_kernel_fn rt_jit_module_kernel(const rt_jit_module_t *module, int32_t i);
/* Kernel i's LLVM symbol ("rt_k<16 hex>_<16 hex>"). */
const char *rt_jit_module_symbol(const rt_jit_module_t *module, int32_t i);
/* The target the module's kernels were compiled for (its session's). */
const rt_jit_target_t *rt_jit_module_target(const rt_jit_module_t *module);
/* The session's whole target description, as in every cache key. */
const char *rt_jit_module_target_text(const rt_jit_module_t *module);
/* Kernel i's relocatable object file (ELF, PIC, small code model) defining
 * its symbol; borrowed from the module. For export. */
void rt_jit_module_object(const rt_jit_module_t *module, int32_t i,
                          const uint8_t **out_data, size_t *out_size);
/* Number of inputs and outputs of kernel i (nargs = inputs + outputs). */
int32_t rt_jit_module_num_inputs(const rt_jit_module_t *module, int32_t i);
int32_t rt_jit_module_num_outputs(const rt_jit_module_t *module, int32_t i);
/* The kernel template kernel i uses (a static string, jit/templates/):
 * "gemm.6x16", "conv2d.direct.4x24", "conv2d.depthwise.1x32",
 * "conv2d.im2col.6x16", "softmax.rows"..., or "loops" for the generic loop
 * nest. A pure function of the kernel's Primitive function (the same on a
 * kernel cache hit). */
const char *rt_jit_module_template(const rt_jit_module_t *module, int32_t i);

/* How kernel i of a build was made: its pipeline (rt_jit_pipeline_key,
 * static), whether this build compiled it (false: shared with a loaded
 * kernel, read from the disk cache, or equal to an earlier kernel of the
 * build, which carries the times), and then the thread time of each
 * stage and the LLVM IR instruction count after lowering and after the
 * pipeline (0 otherwise). */
typedef struct rt_jit_kernel_stats_t {
  const char *pipeline;
  bool compiled;
  double lower_ms, opt_ms, codegen_ms;
  int32_t ir_lowered, ir_optimized;
} rt_jit_kernel_stats_t;
void rt_jit_module_kernel_stats(const rt_jit_module_t *module, int32_t i, rt_jit_kernel_stats_t *out);

/* The optimized LLVM IR / assembly of the whole module (each kernel's in
 * turn), or of kernel i alone with `kernel` >= 0 (a complete module: its
 * entry point, helper functions and constants).
 * FAILED_PRECONDITION when the build did not keep that text
 * (RT_JIT_KEEP_LL / RT_JIT_KEEP_ASM). *out_text is from the library heap; the caller
 * frees it with rt_mem_free(). */
RT_MUST_USE_RESULT rt_status_t rt_jit_module_ll(const rt_jit_module_t *module,
                                                int32_t kernel,
                                                char **out_text);
RT_MUST_USE_RESULT rt_status_t rt_jit_module_asm(const rt_jit_module_t *module,
                                                 int32_t kernel,
                                                 char **out_text);

/* A kernel context for callers without a thread pool: serial
 * parallel_for (NULL), malloc'd workspace, and set_error copying the first
 * message into `error` (truncated to its size). For tests and tools. */
typedef struct rt_jit_simple_ctx_t {
  rt_kernel_ctx ctx;   /* pass &simple.ctx to kernels */
  char error[512];
} rt_jit_simple_ctx_t;
void rt_jit_simple_ctx_initialize(rt_jit_simple_ctx_t *out_ctx);

/* Fills a kernel argument viewing tensor t (borrowed: valid while t is). */
void rt_jit_arg_from_tensor(const rt_tensor_t *t, rt_kernel_arg *out_arg);

#endif /* RT_JIT_JIT_H_ */
