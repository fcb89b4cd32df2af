/* The JIT session: one ORC LLJIT for one target (jit/target.h), the
 * kernel cache, and builds that turn a batch of Primitive functions into
 * native kernels.
 *
 * Setup: the host triple and the target's CPU name and features ("znver3",
 * "+avx2,+fma,..." for the host; "haswell" for avx2) make a
 * TargetMachine at CodeGenLevelAggressive with PIC and the default (small)
 * code model, which becomes the LLJIT's JITTargetMachineBuilder. The
 * session error reporter is captured (by default ORC prints "JIT session
 * error" to stderr; library code never prints): its messages are attached
 * to the failing build's status.
 *
 * Kernels are units: one object file (PIC, small code model) per kernel,
 * added to the LLJIT with its own ResourceTracker and reference-counted by
 * the modules that use it. The session's table of live units is the
 * in-memory cache, keyed by the kernel identity of jit/cache.h: a build
 * whose kernel is already loaded takes a reference and compiles nothing.
 * A unit leaves the table (and its code the JIT) with its last reference.
 *
 * A build (rt_jit_build):
 *  1. every kernel's key, identity and symbol (jit/cache.c);
 *  2. under the lock, hits in the live table;
 *  3. the distinct misses: read from the disk cache when it is on (a valid
 *     entry skips LLVM entirely), else lowered (jit/lower.c), each into
 *     its own LLVM module of one fresh LLVMContext, verified, optimized
 *     with default<O3>, or a lighter pipeline for the kernels that are
 *     explicit vector code (Winograd, and most conv2d.direct / im2colT
 *     kernels: pipeline_of) for a per-build TargetMachine (LLJIT does not
 *     optimize by itself; a TargetMachine is never shared between threads)
 *     and emitted as an object file, plus their IR / assembly text when
 *     asked; compiled objects are written to the disk cache. All of this
 *     runs outside the lock, in parallel across threads;
 *  4. under the lock (two threads adding to / looking up in one LLJIT
 *     crash it): each object becomes a unit (add + lookup: linking only,
 *     ~0.5 ms a kernel; the ResNet block's warm start from the disk cache
 *     in build-rel/bench/bench_kernels is only this), unless another
 *     thread loaded the same kernel meanwhile, whose unit is then shared
 *     and ours dropped.
 * Per-kernel objects cost a little more than one module per build, and buy
 * per-kernel caching and the objects an export links (rt_jit_module_object).
 *
 * Ownership invariants: every LLVMErrorRef is consumed (its message copied
 * into a status with LLVMGetErrorMessage + LLVMDisposeErrorMessage); a
 * MemoryBuffer given to AddObjectFile belongs to ORC even on failure; the
 * session's LLJIT is disposed with its last reference (modules retain the
 * session, units live no longer than their modules). */
#include "jit/jit.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit/cache.h"
#include "jit/lower.h"
#include "jit/templates/templates.h"
#include "runtime/strbuf.h"
#include "runtime/mem.h"
#include "runtime/clock.h"

/* A loaded kernel: its object file's code in the JIT. Fields are fixed
 * once the unit is in the table, except refs and ll (under the lock). */
typedef struct unit_t {
  struct unit_t *next;            /* the session's table */
  int32_t refs;                   /* modules' kernels using it */
  LLVMOrcResourceTrackerRef tracker;
  rt_jit_kernel_id_t id;          /* key, identity, symbol */
  rt_kernel_fn fn;
  int32_t nin, nout;
  uint8_t *object;                /* the object file (export, disk) */
  size_t object_len;
  char *ll;                       /* its optimized IR text, or NULL */
} unit_t;

struct rt_jit_session_t {
  _Atomic int32_t refcount;
  bool shared;                    /* the process-wide session */
  rt_allocator_t allocator;
  pthread_mutex_t lock;
  LLVMOrcLLJITRef jit;
  rt_jit_target_t tgt;            /* what kernels are compiled for */
  char *triple;                   /* rt_mem_alloc'd copy */
  char *target;                   /* "<triple> <target name> <cpu> <features> vw<lanes>" */
  char compiler[256];             /* rt_jit_compiler_version */
  rt_strbuf_t session_errors;     /* reporter output, under lock */
  unit_t *units;                  /* live kernels, under lock */
  rt_jit_cache_counts_t counts;   /* under lock */
};

typedef struct kernel_t {
  unit_t *unit;                   /* one reference */
  const char *template_name;      /* static; NULL: the generic loop nest */
  bool explicit_vector;           /* rt_jit_template_explicit_vector */
  rt_jit_kernel_stats_t stats;
  char *ll, *asm_text;            /* this module's copies, when kept */
} kernel_t;

struct rt_jit_module_t {
  rt_jit_session_t *session;
  int32_t count;
  kernel_t *kernels;
  char *ll, *asm_text;            /* whole-module text; NULL unless kept */
};

/* ---- helpers ------------------------------------------------------------ */

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *r = rt_mem_alloc(n);
  if (r) memcpy(r, s, n);
  return r;
}

/* Consumes e into an INTERNAL status "<what>: <LLVM's message>". */
static rt_status_t llvm_error(LLVMErrorRef e, const char *what) {
  char *m = LLVMGetErrorMessage(e);
  rt_status_t s = RT_STATUS(INTERNAL, "%s: %s", what, m ? m : "(no message)");
  LLVMDisposeErrorMessage(m);
  return s;
}

static pthread_once_t g_llvm_once = PTHREAD_ONCE_INIT;
static int g_llvm_init_failed;

static void llvm_init(void) {
  /* Both are needed: without the asm printer the add succeeds and the
   * lookup fails with "Target does not support MC emission". */
  g_llvm_init_failed = LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter();
}

static void report_session_error(void *ctx, LLVMErrorRef err) {
  rt_jit_session_t *s = ctx;
  char *m = LLVMGetErrorMessage(err);
  /* Called during lookups, which run under s->lock. */
  if (s->session_errors.len) rt_strbuf_puts(&s->session_errors, "; ");
  rt_strbuf_puts(&s->session_errors, m ? m : "(no message)");
  LLVMDisposeErrorMessage(m);
}

static rt_status_t make_tm(const rt_jit_session_t *s, LLVMTargetMachineRef *out) {
  LLVMTargetRef target;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(s->triple, &target, &msg)) {
    rt_status_t st = RT_STATUS(INTERNAL, "no LLVM target for %s: %s", s->triple, msg ? msg : "");
    LLVMDisposeMessage(msg);
    return st;
  }
  LLVMDisposeMessage(msg);
  *out = LLVMCreateTargetMachine(target, s->triple, s->tgt.cpu, s->tgt.features,
                                 LLVMCodeGenLevelAggressive, LLVMRelocPIC,
                                 LLVMCodeModelDefault);
  if (!*out) return RT_STATUS(INTERNAL, "%s", "LLVM could not create a TargetMachine");
  return RT_OK;
}

/* ---- session ------------------------------------------------------------ */

static rt_status_t session_create(rt_allocator_t allocator, const rt_jit_target_t *tgt,
                                  rt_jit_session_t **out_session) {
  *out_session = NULL;
  pthread_once(&g_llvm_once, llvm_init);
  if (g_llvm_init_failed) return RT_STATUS(INTERNAL, "%s", "LLVM has no native target");
  rt_jit_session_t *s;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(allocator, sizeof *s, 16, true, (void **)&s));
  s->allocator = allocator;
  s->tgt = *tgt;
  atomic_init(&s->refcount, 1);
  rt_strbuf_initialize(&s->session_errors);
  pthread_mutex_init(&s->lock, NULL);
  rt_jit_compiler_version(s->compiler, sizeof s->compiler);
  rt_status_t status = RT_OK;
  char *t = LLVMGetDefaultTargetTriple();
  s->triple = dup_str(t);
  LLVMDisposeMessage(t);
  if (s->triple) {
    /* The whole target is in every cache key: a kernel compiled for one
     * CPU model, feature set, template width or L2 size (the templates'
     * blocking) never serves another. */
    size_t n = strlen(s->triple) + strlen(s->tgt.cpu) + strlen(s->tgt.features) + 96;
    s->target = rt_mem_alloc(n);
    if (s->target) {
      snprintf(s->target, n, "%s %s %s %s vw%d l2=%lld", s->triple, rt_jit_target_name(&s->tgt),
               s->tgt.cpu, s->tgt.features, (int)s->tgt.vector_width, (long long)s->tgt.l2_bytes);
    }
  }
  if (!s->target) status = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  LLVMTargetMachineRef tm = NULL;
  if (!status) status = make_tm(s, &tm);
  if (!status) {
    /* Takes and destroys tm; the builder takes the JTMB; CreateLLJIT takes
     * the builder even on error. */
    LLVMOrcJITTargetMachineBuilderRef jtmb = LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm);
    LLVMOrcLLJITBuilderRef b = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(b, jtmb);
    LLVMErrorRef e = LLVMOrcCreateLLJIT(&s->jit, b);
    if (e) {
      s->jit = NULL;
      status = llvm_error(e, "creating the LLJIT");
    }
  }
  if (!status) {
    LLVMOrcExecutionSessionSetErrorReporter(LLVMOrcLLJITGetExecutionSession(s->jit),
                                            report_session_error, s);
    *out_session = s;
    return RT_OK;
  }
  rt_jit_session_release(s);
  return status;
}

rt_status_t rt_jit_session_create_for(rt_allocator_t allocator, rt_jit_target_kind_t kind,
                                      rt_jit_session_t **out_session) {
  *out_session = NULL;
  rt_jit_target_t tgt;
  RT_RETURN_IF_ERROR(rt_jit_target_resolve(kind, &tgt));
  return session_create(allocator, &tgt, out_session);
}

rt_status_t rt_jit_session_create_unchecked(rt_allocator_t allocator, rt_jit_target_kind_t kind,
                                            rt_jit_session_t **out_session) {
  *out_session = NULL;
  rt_jit_target_t tgt;
  RT_RETURN_IF_ERROR(rt_jit_target_resolve_unchecked(kind, &tgt));
  return session_create(allocator, &tgt, out_session);
}

rt_status_t rt_jit_session_create_target(rt_allocator_t allocator, const rt_jit_target_t *target,
                                         rt_jit_session_t **out_session) {
  *out_session = NULL;
  return session_create(allocator, target, out_session);
}

rt_status_t rt_jit_session_create(rt_allocator_t allocator, rt_jit_session_t **out_session) {
  return rt_jit_session_create_for(allocator, RT_JIT_TARGET_DEFAULT, out_session);
}

/* The process-wide sessions, one per resolved target kind: not owned by
 * these pointers (their holders own them); reset to NULL by the release
 * that drops the last reference, under g_shared_lock, so
 * rt_jit_session_shared never revives a dying one. */
static pthread_mutex_t g_shared_lock = PTHREAD_MUTEX_INITIALIZER;
static rt_jit_session_t *g_shared[RT_JIT_TARGET_KIND_COUNT];

rt_status_t rt_jit_session_shared(rt_jit_target_kind_t kind, rt_jit_session_t **out_session) {
  *out_session = NULL;
  rt_jit_target_t tgt;
  RT_RETURN_IF_ERROR(rt_jit_target_resolve(kind, &tgt));
  rt_status_t st = RT_OK;
  pthread_mutex_lock(&g_shared_lock);
  rt_jit_session_t **slot = &g_shared[tgt.kind];
  if (*slot) {
    atomic_fetch_add(&(*slot)->refcount, 1);
  } else {
    st = session_create(rt_allocator_system(), &tgt, slot);
    if (!st) (*slot)->shared = true;
  }
  if (!st) *out_session = *slot;
  pthread_mutex_unlock(&g_shared_lock);
  return st;
}

void rt_jit_session_retain(rt_jit_session_t *s) { atomic_fetch_add(&s->refcount, 1); }

void rt_jit_session_release(rt_jit_session_t *s) {
  if (!s) return;
  if (s->shared) {
    pthread_mutex_lock(&g_shared_lock);
    bool last = atomic_fetch_sub(&s->refcount, 1) == 1;
    if (last) g_shared[s->tgt.kind] = NULL;
    pthread_mutex_unlock(&g_shared_lock);
    if (!last) return;
  } else if (atomic_fetch_sub(&s->refcount, 1) != 1) {
    return;
  }
  /* Every module retains the session, so no unit is left here. */
  if (s->jit) {
    LLVMErrorRef e = LLVMOrcDisposeLLJIT(s->jit);
    if (e) LLVMConsumeError(e); /* nothing to report to at this point */
  }
  pthread_mutex_destroy(&s->lock);
  rt_strbuf_deinitialize(&s->session_errors);
  rt_mem_free(s->triple);
  rt_mem_free(s->target);
  rt_allocator_free(s->allocator, s);
}

const char *rt_jit_session_cpu(const rt_jit_session_t *s) { return s->tgt.cpu; }
const rt_jit_target_t *rt_jit_session_target(const rt_jit_session_t *s) { return &s->tgt; }
const rt_jit_target_t *rt_jit_module_target(const rt_jit_module_t *m) { return &m->session->tgt; }
const char *rt_jit_module_target_text(const rt_jit_module_t *m) { return m->session->target; }
const char *rt_jit_session_triple(const rt_jit_session_t *s) { return s->triple; }
const char *rt_jit_session_compiler(const rt_jit_session_t *s) { return s->compiler; }

void rt_jit_session_counts(rt_jit_session_t *s, rt_jit_cache_counts_t *out_counts) {
  pthread_mutex_lock(&s->lock);
  *out_counts = s->counts;
  pthread_mutex_unlock(&s->lock);
}


/* ---- units (callers hold s->lock) --------------------------------------- */

/* The live unit with id's identity, or NULL. */
static unit_t *find_unit(rt_jit_session_t *s, const rt_jit_kernel_id_t *id) {
  for (unit_t *u = s->units; u; u = u->next) {
    if (u->id.key == id->key && u->id.identity_hash == id->identity_hash &&
        u->id.identity_len == id->identity_len &&
        memcmp(u->id.identity, id->identity, id->identity_len) == 0) {
      return u;
    }
  }
  return NULL;
}

static void unit_free(unit_t *u) {
  if (!u) return;
  rt_jit_kernel_id_deinitialize(&u->id);
  rt_mem_free(u->object);
  rt_mem_free(u->ll);
  rt_mem_free(u);
}

/* Drops one reference; the last removes the code from the JIT. */
static void unit_release_locked(rt_jit_session_t *s, unit_t *u) {
  if (--u->refs > 0) return;
  for (unit_t **p = &s->units; *p; p = &(*p)->next) {
    if (*p == u) {
      *p = u->next;
      break;
    }
  }
  LLVMErrorRef e = LLVMOrcResourceTrackerRemove(u->tracker);
  if (e) LLVMConsumeError(e); /* release cannot fail: the code is dropped regardless */
  LLVMOrcReleaseResourceTracker(u->tracker);
  unit_free(u);
}

/* Adds u's object to the JIT and looks its kernel up; on success u joins
 * the table (refs 0: the caller takes them). */
static rt_status_t unit_load_locked(rt_jit_session_t *s, unit_t *u) {
  rt_strbuf_truncate(&s->session_errors, 0);
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(s->jit);
  u->tracker = LLVMOrcJITDylibCreateResourceTracker(jd);
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      (const char *)u->object, u->object_len, u->id.symbol);
  rt_status_t status = RT_OK;
  LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(s->jit, u->tracker, buf); /* takes buf */
  if (e) status = llvm_error(e, "adding a kernel object to the JIT");
  LLVMOrcExecutorAddress addr = 0;
  if (!status) {
    e = LLVMOrcLLJITLookup(s->jit, &addr, u->id.symbol);
    if (e) {
      status = llvm_error(e, "linking the kernel object");
      if (s->session_errors.len && s->session_errors.data) {
        status = rt_status_annotate(status, "%s", s->session_errors.data);
      }
    }
  }
  if (status) {
    e = LLVMOrcResourceTrackerRemove(u->tracker);
    if (e) LLVMConsumeError(e);
    LLVMOrcReleaseResourceTracker(u->tracker);
    u->tracker = NULL;
    return status;
  }
  u->fn = (rt_kernel_fn)(uintptr_t)addr;
  u->next = s->units;
  s->units = u;
  return RT_OK;
}

/* ---- build -------------------------------------------------------------- */

static void module_free(rt_jit_module_t *m) {
  if (!m) return;
  rt_jit_session_t *s = m->session;
  if (m->kernels) {
    pthread_mutex_lock(&s->lock);
    for (int32_t i = 0; i < m->count; ++i) {
      if (m->kernels[i].unit) unit_release_locked(s, m->kernels[i].unit);
    }
    pthread_mutex_unlock(&s->lock);
    for (int32_t i = 0; i < m->count; ++i) {
      rt_mem_free(m->kernels[i].ll);
      rt_mem_free(m->kernels[i].asm_text);
    }
  }
  rt_mem_free(m->kernels);
  rt_mem_free(m->ll);
  rt_mem_free(m->asm_text);
  rt_jit_session_release(s);
  rt_mem_free(m);
}

static rt_status_t emit(LLVMTargetMachineRef tm, LLVMModuleRef mod, LLVMCodeGenFileType kind,
                        uint8_t **out, size_t *out_len) {
  LLVMMemoryBufferRef buf = NULL;
  char *msg = NULL;
  rt_status_t st = RT_OK;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, kind, &msg, &buf)) {
    st = RT_STATUS(INTERNAL, "emitting %s: %s", kind == LLVMObjectFile ? "an object file" : "assembly",
                   msg ? msg : "");
  } else {
    size_t n = LLVMGetBufferSize(buf);
    *out = rt_mem_alloc(n + 1);
    if (!*out) {
      st = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (kernel code)");
    } else {
      memcpy(*out, LLVMGetBufferStart(buf), n);
      (*out)[n] = 0;
      *out_len = n;
    }
  }
  LLVMDisposeMessage(msg);
  if (buf) LLVMDisposeMemoryBuffer(buf);
  return st;
}

/* The LLVM pipelines a kernel may get (pipeline_of; `key`, which names
 * the pass pipeline and the instruction selector, is part of the
 * kernel's cache key and identity, so a changed pipeline never reuses an
 * object compiled under another; LLVM's version is in the key too):
 *  - "O0": no optimization (RT_JIT_NO_OPT);
 *  - "O3": default<O3> and the SelectionDAG instruction selector, for the
 *    generic loop nests and the templates that leave loops to LLVM's
 *    vectorizers (a fused epilogue the vector epilogue does not take, an
 *    input computed in the kernel, the GEMM's and the pools' element
 *    epilogues: a 1x1 conv 16->96 at 112x112 with a SiLU epilogue ran
 *    21.9 ms under O1 and 1.8 ms under O3 before it had the vector
 *    epilogue). default<O2> for the templates cost EfficientNet-B0 1.3%
 *    (its dense kernel 23%): not taken;
 *  - "W2 fast-isel": the Winograd template (explicit vector code: no
 *    vectorizer takes its epilogue either). Its passes are default<O1>'s
 *    (LLVM 19's, as `opt -passes='default<O1>' -print-pipeline-passes`
 *    prints it) less every pass whose removal left the assembly of the
 *    Winograd kernels unchanged: 16 kernels of ResNet-18, ResNet-50 and
 *    DenseNet-121 compiled for znver3 give the same instructions as
 *    under default<O1> (removed one pass at a time, kept out when all
 *    stayed equal), and less indvars (below). An earlier hand-picked
 *    lighter pipeline ran these kernels 3-4% slower: so the reference is
 *    O1's code. The code is emitted with FastISel: the transforms'
 *    vector adds and multiplies select as well as under the
 *    SelectionDAG and the blocks FastISel cannot take (the FMAs) fall
 *    back to it (resnet18's eight Winograd kernels: 383-392 ms of codegen
 *    thread time against 433-478, the same run time);
 *  - "C2": conv2d.direct, conv2d.im2colT and conv2d.depthwise kernels
 *    whose loops are all explicit vector code
 *    (rt_jit_template_explicit_vector: their tail ops through the vector
 *    epilogue, the phase images copied by vectors or computed by a fused
 *    expand's vector GEMM; the depthwise kernels since their output went
 *    through the vector epilogue: mobilenet_v2's ten took 1148 ms of
 *    optimization and 782 of codegen thread time under O3, 429 and 570
 *    under C2, run time within noise). Found the same way on four of
 *    resnet18's and mobilenet_v2's kernels (their assembly equal to default<O1>'s; other
 *    models' im2colT kernels then differ from O1's in the registers and
 *    spills of their setup code), with O3's unroller
 *    (loop-unroll<O3>: partial and runtime unrolling of the tap and K
 *    loops) instead of O1's, which ran EfficientNet-B0's and ResNet-50's
 *    convolutions as fast as O3 (summed per-kernel minima 0.98-0.99 and
 *    1.00 of O3's) where O1's left them 1-2% slower, at the CPU time of
 *    O1's (resnet18 cold: process CPU 1.93-2.13 s against 2.15-2.35 s with
 *    these kernels under O3), and less indvars.
 * Neither runs indvars (IndVarSimplify), which W1 and C1 kept from O1:
 * on these kernels it was 40-60% of the optimization time (SCEV over the
 * hundreds of addresses of the unrolled transforms and tiles: 75 of 135
 * ms on resnet18's largest Winograd kernel) and the code it changes
 * (exit conditions, the unroll counts of setup loops; the hot loops of
 * most kernels come out the same instruction for instruction) runs as
 * fast: resnet18, 1 thread, summed per-kernel minima of `--profile`
 * over 6 rounds in ABBA order 12068 us with it, 11878 without; medians
 * of resnet18, resnet50, squeezenet1_1, mobilenet_v2 and
 * efficientnet_b0 within noise, on 16 and 8 lanes. resnet18 cold:
 * optimization thread time ~1150 -> ~700 ms, compile 1250 -> 1025 ms
 * (the same minute, 3 pairs). LLVM's loop strength reduction in codegen
 * is the next cost of this kind (42% of a Winograd kernel's codegen) but
 * is needed: with it off (`-disable-lsr`, process-wide) the im2colT
 * kernels ran 5-9% slower. */
typedef struct pipeline_t {
  const char *key;    /* in the cache key */
  const char *passes; /* LLVMRunPasses' text; NULL: none */
  bool fast_isel;
} pipeline_t;

/* default<O1>'s simplifycfg and instcombine variants, as printed. */
#define SCFG_OPTS                                                                                     \
  "bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;keep-"    \
  "loops;no-hoist-common-insts;no-sink-common-insts;speculate-blocks;simplify-cond-branch;"
#define SCFG "simplifycfg<" SCFG_OPTS "no-speculate-unpredictables>"
#define SCFG_SPEC "simplifycfg<" SCFG_OPTS "speculate-unpredictables>"
#define SCFG_FIRST                                                                                     \
  "simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;no-switch-range-to-icmp;no-switch-to-" \
  "lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts;speculate-blocks;simplify-cond-"     \
  "branch;no-speculate-unpredictables>"
#define SCFG_LATE                                                                                      \
  "simplifycfg<bonus-inst-threshold=1;forward-switch-cond;switch-range-to-icmp;switch-to-lookup;"   \
  "no-keep-loops;hoist-common-insts;sink-common-insts;speculate-blocks;simplify-cond-branch;no-"    \
  "speculate-unpredictables>"
#define IC "instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>"
#define WINOGRAD_PASSES                                                                                \
  "function<eager-inv>(early-cse<>),ipsccp,function<eager-inv>(mem2reg),require<globals-aa>,"        \
  "function(invalidate<aa>),require<profile-summary>,cgscc(devirt<4>(inline,function<eager-inv;"     \
  "no-rerun>(early-cse<memssa>," IC "," SCFG ",reassociate,loop-mssa(loop-rotate<header-duplication;" \
  "no-prepare-for-lto>,licm<allowspeculation>)," IC ",sccp," SCFG "," IC "),"                         \
  "function(require<should-not-run-function-passes>))),function<eager-inv>(loop-unroll<O1>," IC     \
  ",loop-mssa(licm<allowspeculation>),div-rem-pairs," SCFG_SPEC "),verify"
#define CONV_PASSES                                                                                    \
  "function<eager-inv>(" SCFG_FIRST ",early-cse<>),ipsccp,function<eager-inv>(mem2reg," IC "),"     \
  "require<globals-aa>,function(invalidate<aa>),require<profile-summary>,cgscc(devirt<4>(inline,"   \
  "function<eager-inv;no-rerun>(early-cse<memssa>," SCFG ",reassociate,loop-mssa(loop-rotate<"       \
  "header-duplication;no-prepare-for-lto>,licm<allowspeculation>)," IC ",loop(loop-idiom,loop-unroll-full),sccp," SCFG \
  "," IC "),function(require<should-not-run-function-passes>))),"                                    \
  "function<eager-inv>(" SCFG_LATE ",loop-unroll<O3>," IC ",loop-mssa(licm<allowspeculation>),"    \
  "tailcallelim),verify"

static const pipeline_t kPipelineO0 = {"O0", NULL, false};
static const pipeline_t kPipelineO3 = {"O3", "default<O3>", false};
static const pipeline_t kPipelineWinograd = {"W2 fast-isel", WINOGRAD_PASSES, true};
static const pipeline_t kPipelineConv = {"C2", CONV_PASSES, false};

static const pipeline_t *pipeline_of(uint32_t flags, const char *template_name, bool explicit_vector) {
  if (flags & RT_JIT_NO_OPT) return &kPipelineO0;
  if (!explicit_vector) return &kPipelineO3;
  if (template_name && strncmp(template_name, "conv2d.winograd", 15) == 0) return &kPipelineWinograd;
  return &kPipelineConv;
}

const char *rt_jit_pipeline_key(uint32_t flags, const char *template_name, bool explicit_vector) {
  return pipeline_of(flags, template_name, explicit_vector)->key;
}

/* A kernel of this build that no live unit had. */
typedef struct pending_t {
  int32_t first;                 /* the first kernel index with this identity */
  const pipeline_t *pipeline;    /* its LLVM pipeline (pipeline_of) */
  rt_jit_cache_entry_t entry;    /* object, IR text, nin, nout */
  char *asm_text;
  bool from_disk;
  unit_t *unit;                  /* once loaded (or found loaded) */
  rt_jit_kernel_stats_t stats;   /* this kernel's compile (compile_one) */
} pending_t;

/* LLVM IR instructions in mod (the per-kernel stats). */
static int32_t ir_count(LLVMModuleRef mod) {
  int32_t n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) n++;
    }
  }
  return n;
}

/* Lowers, verifies, optimizes and emits one kernel in its own module of
 * ctx. Codegen changes the IR it runs on (emitting an object rewrites the
 * module): the IR text is taken before and the assembly from a clone. */
static rt_status_t compile_one(rt_jit_session_t *s, LLVMContextRef ctx, LLVMTargetMachineRef tm,
                               const rt_ir_expr_t *fn, const char *symbol, uint32_t flags,
                               pending_t *p, rt_jit_build_stats_t *stats) {
  double t0 = rt_now_ms();
  LLVMModuleRef mod = LLVMModuleCreateWithNameInContext(symbol, ctx);
  LLVMSetTarget(mod, LLVMOrcLLJITGetTripleString(s->jit));
  LLVMSetDataLayout(mod, LLVMOrcLLJITGetDataLayoutStr(s->jit));
  rt_status_t st = rt_jit_lower_function(mod, &s->tgt, fn, symbol, &p->entry.nin, &p->entry.nout);
  char *msg = NULL;
  if (!st && LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
    st = RT_STATUS(INTERNAL, "the lowered module does not verify: %s", msg ? msg : "");
  }
  LLVMDisposeMessage(msg);
  p->stats.ir_lowered = st ? 0 : ir_count(mod);
  double t1 = rt_now_ms();
  const pipeline_t *pl = p->pipeline;
  if (!st && pl->passes) {
    LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(mod, pl->passes, tm, o);
    LLVMDisposePassBuilderOptions(o);
    if (e) st = llvm_error(e, pl->key);
  }
  double t2 = rt_now_ms();
  p->stats.ir_optimized = st ? 0 : ir_count(mod);
  if (!st && (flags & RT_JIT_KEEP_LL)) {
    char *text = LLVMPrintModuleToString(mod);
    p->entry.ll = dup_str(text);
    LLVMDisposeMessage(text);
    if (!p->entry.ll) st = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (IR text)");
    if (!st) p->entry.ll_len = strlen(p->entry.ll);
  }
  double t3 = rt_now_ms();
  /* The worker's TargetMachine serves kernels of either selector. */
  LLVMSetTargetMachineFastISel(tm, pl->fast_isel);
  if (!st && (flags & RT_JIT_KEEP_ASM)) {
    LLVMModuleRef clone = LLVMCloneModule(mod);
    size_t n = 0;
    st = emit(tm, clone, LLVMAssemblyFile, (uint8_t **)&p->asm_text, &n);
    LLVMDisposeModule(clone);
  }
  double t4 = rt_now_ms();
  if (!st) st = emit(tm, mod, LLVMObjectFile, &p->entry.object, &p->entry.object_len);
  LLVMDisposeModule(mod);
  const double t5 = rt_now_ms();
  p->stats.pipeline = pl->key;
  p->stats.compiled = !st;
  p->stats.lower_ms = t1 - t0;
  p->stats.opt_ms = t2 - t1;
  p->stats.codegen_ms = t5 - t3;
  stats->lower_ms += t1 - t0;
  stats->opt_ms += t2 - t1;
  stats->asm_ms += t4 - t3;
  stats->emit_ms += t5 - t4;
  return st;
}

rt_status_t rt_jit_check_lowers(rt_jit_session_t *s, const rt_ir_expr_t *fn) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("rt_check", ctx);
  int32_t nin = 0, nout = 0;
  rt_status_t st = rt_jit_lower_function(mod, &s->tgt, fn, "rt_check", &nin, &nout);
  LLVMDisposeModule(mod);
  LLVMContextDispose(ctx);
  return st;
}

/* ---- compiling the pending kernels, in parallel ------------------------------ *
 * Each kernel is lowered, optimized and emitted in a module of its own, so
 * kernels compile independently: workers (one per online CPU, at most
 * MAX_COMPILE_THREADS and the number of kernels) take the next kernel from
 * a shared counter, each with its own LLVM context and target machine
 * (LLVM allows one thread per context). The calling thread is one of them.
 * The first kernel that fails, in index order, gives the error, so the
 * message does not depend on scheduling. Allocations follow the caller's
 * allocator scope; an embedder's own allocator may not be thread-safe, so
 * under one the kernels compile on the calling thread alone. Times in the
 * stats are summed over the workers (CPU time, not wall time). */
#define MAX_COMPILE_THREADS 8

typedef struct compile_job_t {
  rt_jit_session_t *s;
  rt_ir_expr_t *const *fns;
  const rt_jit_kernel_id_t *ids;
  uint32_t flags;
  pending_t *pend;
  int32_t npend;
  rt_status_t *errors;          /* per pending kernel */
  atomic_int next;
  pthread_mutex_t stats_mu;
  rt_jit_build_stats_t *stats;
} compile_job_t;

static void *compile_worker(void *arg) {
  compile_job_t *j = arg;
  LLVMContextRef ctx = NULL;
  LLVMTargetMachineRef tm = NULL;
  rt_jit_build_stats_t mine = {0};
  for (;;) {
    const int32_t p = atomic_fetch_add(&j->next, 1);
    if (p >= j->npend) break;
    if (j->pend[p].from_disk) continue;
    if (!ctx) {
      ctx = LLVMContextCreate();
      rt_status_t st = make_tm(j->s, &tm);
      if (st) {
        j->errors[p] = st;
        break;
      }
    }
    const int32_t i = j->pend[p].first;
    j->errors[p] = compile_one(j->s, ctx, tm, j->fns[i], j->ids[i].symbol, j->flags, &j->pend[p], &mine);
    if (!j->errors[p]) mine.compiled++;
  }
  if (tm) LLVMDisposeTargetMachine(tm);
  if (ctx) LLVMContextDispose(ctx);
  pthread_mutex_lock(&j->stats_mu);
  j->stats->lower_ms += mine.lower_ms;
  j->stats->opt_ms += mine.opt_ms;
  j->stats->asm_ms += mine.asm_ms;
  j->stats->emit_ms += mine.emit_ms;
  j->stats->compiled += mine.compiled;
  pthread_mutex_unlock(&j->stats_mu);
  return NULL;
}

typedef struct scoped_worker_t {
  compile_job_t *job;
  rt_allocator_t allocator;
} scoped_worker_t;

static void *scoped_worker(void *arg) {
  scoped_worker_t *w = arg;
  rt_mem_scope_t scope;
  rt_mem_scope_enter(&scope, &w->allocator);
  void *r = compile_worker(w->job);
  rt_mem_scope_leave(&scope);
  return r;
}

static rt_status_t compile_pending(rt_jit_session_t *s, rt_ir_expr_t *const *fns,
                                   const char *const *names, const rt_jit_kernel_id_t *ids,
                                   uint32_t flags, pending_t *pend, int32_t npend,
                                   rt_jit_build_stats_t *stats) {
  int32_t todo = 0;
  for (int32_t p = 0; p < npend; ++p) todo += !pend[p].from_disk;
  if (todo == 0) return RT_OK;
  compile_job_t j = {.s = s, .fns = fns, .ids = ids, .flags = flags, .pend = pend,
                     .npend = npend, .stats = stats};
  j.errors = rt_mem_calloc((size_t)npend, sizeof *j.errors);
  if (!j.errors) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  atomic_init(&j.next, 0);
  pthread_mutex_init(&j.stats_mu, NULL);
  const rt_allocator_t current = rt_mem_current(), sys = rt_allocator_system();
  const bool system_heap = current.alloc == sys.alloc && current.free == sys.free &&
                           current.self == sys.self;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int32_t nthreads = cpus > 1 ? (int32_t)(cpus < MAX_COMPILE_THREADS ? cpus : MAX_COMPILE_THREADS) : 1;
  if (nthreads > todo) nthreads = todo;
  if (!system_heap) nthreads = 1;
  pthread_t tid[MAX_COMPILE_THREADS];
  scoped_worker_t w = {&j, current};
  int32_t started = 0;
  for (int32_t t = 1; t < nthreads; ++t) {
    if (pthread_create(&tid[started], NULL, scoped_worker, &w) != 0) break; /* fewer workers */
    started++;
  }
  compile_worker(&j);
  for (int32_t t = 0; t < started; ++t) pthread_join(tid[t], NULL);
  pthread_mutex_destroy(&j.stats_mu);
  rt_status_t status = RT_OK;
  for (int32_t p = 0; p < npend; ++p) {
    if (!j.errors[p]) continue;
    if (status) {
      rt_status_free(j.errors[p]);
      continue;
    }
    const int32_t i = pend[p].first;
    status = rt_status_annotate(j.errors[p], "compiling kernel %d (%s)", (int)i,
                                names && names[i] ? names[i] : ids[i].symbol);
  }
  rt_mem_free(j.errors);
  return status;
}

/* Joins the kernels' texts into the module's (NULL when a kernel lacks
 * it). */
static rt_status_t join_text(rt_jit_module_t *m, bool is_asm, char **out) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  for (int32_t i = 0; i < m->count; ++i) {
    const char *t = is_asm ? m->kernels[i].asm_text : m->kernels[i].ll;
    if (!t) {
      rt_strbuf_deinitialize(&b);
      return RT_OK;
    }
    bool repeat = false;
    for (int32_t j = 0; j < i; ++j) repeat = repeat || m->kernels[j].unit == m->kernels[i].unit;
    if (repeat) continue;
    rt_strbuf_printf(&b, "%s kernel %s\n", is_asm ? "#" : ";", m->kernels[i].unit->id.symbol);
    rt_strbuf_puts(&b, t);
    rt_strbuf_putc(&b, '\n');
  }
  size_t n = 0;
  return rt_strbuf_finish(&b, out, &n);
}

rt_status_t rt_jit_build(rt_jit_session_t *s, int32_t count, rt_ir_expr_t *const *fns,
                         const char *const *names, uint32_t flags,
                         rt_jit_build_stats_t *out_stats, rt_jit_module_t **out_module) {
  *out_module = NULL;
  rt_jit_build_stats_t stats = {0};
  if (out_stats) *out_stats = stats;
  if (count < 1) return RT_STATUS(INVALID_ARGUMENT, "%s", "rt_jit_build needs at least one function");
  rt_jit_module_t *m = rt_mem_calloc(1, sizeof *m);
  if (!m) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  rt_jit_session_retain(s);
  m->session = s;
  rt_jit_kernel_id_t *ids = rt_mem_calloc((size_t)count, sizeof *ids);
  int32_t *slot = rt_mem_calloc((size_t)count, sizeof *slot);     /* pending index or -1 */
  pending_t *pend = rt_mem_calloc((size_t)count, sizeof *pend);
  m->kernels = rt_mem_calloc((size_t)count, sizeof *m->kernels);
  rt_status_t status = RT_OK;
  if (!ids || !slot || !pend || !m->kernels) status = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  if (!status) m->count = count;
  const bool keep_ll = flags & RT_JIT_KEEP_LL, keep_asm = flags & RT_JIT_KEEP_ASM;

  const double t_start = rt_now_ms();
  double t0 = t_start;
  stats.kernels = count;
  for (int32_t i = 0; !status && i < count; ++i) {
    if (fns[i] && fns[i]->kind == RT_IR_FUNCTION) {
      m->kernels[i].template_name = rt_jit_template_name(fns[i], &s->tgt);
      m->kernels[i].explicit_vector = rt_jit_template_explicit_vector(fns[i], &s->tgt);
    }
    if (!fns[i] || fns[i]->kind != RT_IR_FUNCTION) {
      status = RT_STATUS(INVALID_ARGUMENT, "kernel %d (%s): not a function", (int)i,
                         names && names[i] ? names[i] : "?");
      break;
    }
    status = rt_jit_kernel_id(fns[i], s->target, s->compiler,
                              pipeline_of(flags, m->kernels[i].template_name, m->kernels[i].explicit_vector)->key, &ids[i]);
  }
  stats.key_ms += rt_now_ms() - t0;

  /* 2. Live units. A build keeping assembly compiles everything (units
   * keep no assembly); one keeping IR needs units that kept theirs. */
  int32_t npend = 0;
  if (!status) {
    pthread_mutex_lock(&s->lock);
    for (int32_t i = 0; i < count; ++i) {
      slot[i] = -1;
      unit_t *u = keep_asm ? NULL : find_unit(s, &ids[i]);
      if (u && (!keep_ll || u->ll)) {
        u->refs++;
        m->kernels[i].unit = u;
        m->kernels[i].stats.pipeline = rt_jit_pipeline_key(flags, m->kernels[i].template_name,
                                                           m->kernels[i].explicit_vector);
        stats.memory_hits++;
        s->counts.memory_hits++;
        if (keep_ll) m->kernels[i].ll = dup_str(u->ll);
        if (keep_ll && !m->kernels[i].ll) status = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
        continue;
      }
      for (int32_t j = 0; j < i && slot[i] < 0; ++j) {
        if (slot[j] >= 0 && ids[j].identity_hash == ids[i].identity_hash &&
            ids[j].identity_len == ids[i].identity_len &&
            memcmp(ids[j].identity, ids[i].identity, ids[i].identity_len) == 0) {
          slot[i] = slot[j];
        }
      }
      if (slot[i] < 0) {
        slot[i] = npend;
        pend[npend].pipeline = pipeline_of(flags, m->kernels[i].template_name, m->kernels[i].explicit_vector);
        pend[npend].stats.pipeline = pend[npend].pipeline->key;
        pend[npend++].first = i;
      }
    }
    pthread_mutex_unlock(&s->lock);
  }
  stats.distinct = npend;
  for (int32_t i = 0; !status && i < count; ++i) {
    bool seen = false;
    for (int32_t j = 0; j < i && !seen && m->kernels[i].unit; ++j) seen = m->kernels[j].unit == m->kernels[i].unit;
    stats.distinct += m->kernels[i].unit && !seen;
  }

  /* 3. Disk, then LLVM, for what is still missing. */
  double tc = rt_now_ms();
  char *dir = NULL;
  if (!status && npend && !keep_asm && !(flags & RT_JIT_NO_DISK_CACHE)) status = rt_jit_cache_dir(&dir);
  for (int32_t p = 0; !status && dir && p < npend; ++p) {
    bool found = false;
    status = rt_jit_cache_read(dir, &ids[pend[p].first], &pend[p].entry, &found);
    if (found && keep_ll && !pend[p].entry.ll) {
      rt_jit_cache_entry_deinitialize(&pend[p].entry);
      found = false;
    }
    pend[p].from_disk = found;
    if (found) stats.disk_hits++;
  }
  stats.cache_ms += rt_now_ms() - tc;
  if (!status) status = compile_pending(s, fns, names, ids, flags, pend, npend, &stats);
  tc = rt_now_ms();
  for (int32_t p = 0; !status && dir && p < npend; ++p) {
    if (pend[p].from_disk) continue;
    /* A cache that cannot be written costs speed, not correctness. */
    rt_status_t ws = rt_jit_cache_write(dir, &ids[pend[p].first], &pend[p].entry);
    if (ws) {
      rt_status_free(ws);
    } else {
      stats.disk_writes++;
    }
  }
  rt_mem_free(dir);
  stats.cache_ms += rt_now_ms() - tc;

  /* 4. Load, under the lock; a kernel another build loaded meanwhile is
   * shared instead. */
  double t1 = rt_now_ms();
  if (!status && npend) {
    pthread_mutex_lock(&s->lock);
    for (int32_t p = 0; !status && p < npend; ++p) {
      rt_jit_kernel_id_t *id = &ids[pend[p].first];
      unit_t *u = find_unit(s, id);
      if (!u) {
        u = rt_mem_calloc(1, sizeof *u);
        if (!u) {
          status = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
          break;
        }
        u->id = *id;  /* moves the identity */
        memset(id, 0, sizeof *id);
        u->nin = pend[p].entry.nin;
        u->nout = pend[p].entry.nout;
        u->object = pend[p].entry.object;
        u->object_len = pend[p].entry.object_len;
        pend[p].entry.object = NULL;
        if (pend[p].entry.ll) u->ll = dup_str(pend[p].entry.ll);
        status = unit_load_locked(s, u);
        if (status) {
          status = rt_status_annotate(status, "loading kernel %s", u->id.symbol);
          unit_free(u);
          break;
        }
      } else if (!u->ll && pend[p].entry.ll) {
        u->ll = dup_str(pend[p].entry.ll);
      }
      pend[p].unit = u;
      /* Every kernel of this slot takes its reference now, so the unit
       * cannot be dropped before the build ends. */
      for (int32_t i = 0; i < count; ++i) {
        if (m->kernels[i].unit || slot[i] != p) continue;
        u->refs++;
        m->kernels[i].unit = u;
        m->kernels[i].stats = pend[p].stats;
        m->kernels[i].stats.compiled = pend[p].stats.compiled && i == pend[p].first;
        if (keep_ll && pend[p].entry.ll) m->kernels[i].ll = dup_str(pend[p].entry.ll);
        if (keep_asm && pend[p].asm_text) m->kernels[i].asm_text = dup_str(pend[p].asm_text);
      }
    }
    s->counts.compiled += stats.compiled;
    s->counts.disk_hits += stats.disk_hits;
    s->counts.disk_writes += stats.disk_writes;
    pthread_mutex_unlock(&s->lock);
  }
  stats.link_ms += rt_now_ms() - t1;
  for (int32_t i = 0; !status && i < count; ++i) {
    if ((keep_ll && !m->kernels[i].ll) || (keep_asm && !m->kernels[i].asm_text)) {
      status = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (kernel text)");
    }
  }
  if (!status && keep_ll) status = join_text(m, false, &m->ll);
  if (!status && keep_asm) status = join_text(m, true, &m->asm_text);

  for (int32_t i = 0; ids && i < count; ++i) rt_jit_kernel_id_deinitialize(&ids[i]);
  for (int32_t p = 0; pend && p < npend; ++p) {
    rt_jit_cache_entry_deinitialize(&pend[p].entry);
    rt_mem_free(pend[p].asm_text);
  }
  rt_mem_free(ids);
  rt_mem_free(slot);
  rt_mem_free(pend);
  stats.wall_ms = rt_now_ms() - t_start;
  if (out_stats) *out_stats = stats;
  if (status) {
    module_free(m);
    return status;
  }
  *out_module = m;
  return RT_OK;
}

void rt_jit_module_release(rt_jit_module_t *m) { module_free(m); }

int32_t rt_jit_module_count(const rt_jit_module_t *m) { return m->count; }
rt_kernel_fn rt_jit_module_kernel(const rt_jit_module_t *m, int32_t i) { return m->kernels[i].unit->fn; }
const char *rt_jit_module_symbol(const rt_jit_module_t *m, int32_t i) { return m->kernels[i].unit->id.symbol; }
int32_t rt_jit_module_num_inputs(const rt_jit_module_t *m, int32_t i) { return m->kernels[i].unit->nin; }
int32_t rt_jit_module_num_outputs(const rt_jit_module_t *m, int32_t i) { return m->kernels[i].unit->nout; }
const char *rt_jit_module_template(const rt_jit_module_t *m, int32_t i) {
  return m->kernels[i].template_name ? m->kernels[i].template_name : "loops";
}

void rt_jit_module_kernel_stats(const rt_jit_module_t *m, int32_t i, rt_jit_kernel_stats_t *out) {
  *out = m->kernels[i].stats;
}

void rt_jit_module_object(const rt_jit_module_t *m, int32_t i, const uint8_t **out_data,
                          size_t *out_size) {
  *out_data = m->kernels[i].unit->object;
  *out_size = m->kernels[i].unit->object_len;
}

/* ---- source text -------------------------------------------------------- */

static rt_status_t source(const rt_jit_module_t *m, int32_t kernel, bool is_asm, char **out_text) {
  *out_text = NULL;
  const char *text = is_asm ? m->asm_text : m->ll;
  if (!text) {
    return RT_STATUS(FAILED_PRECONDITION, "the build did not keep its text (%s)",
                     is_asm ? "RT_JIT_KEEP_ASM" : "RT_JIT_KEEP_LL");
  }
  if (kernel >= m->count) return RT_STATUS(OUT_OF_RANGE, "kernel %d of %d", kernel, m->count);
  if (kernel >= 0) text = is_asm ? m->kernels[kernel].asm_text : m->kernels[kernel].ll;
  *out_text = dup_str(text);
  return *out_text ? RT_OK : RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
}

rt_status_t rt_jit_module_ll(const rt_jit_module_t *m, int32_t kernel, char **out_text) {
  return source(m, kernel, false, out_text);
}

rt_status_t rt_jit_module_asm(const rt_jit_module_t *m, int32_t kernel, char **out_text) {
  return source(m, kernel, true, out_text);
}

/* ---- simple context and arguments --------------------------------------- */

static void simple_set_error(const rt_kernel_ctx *ctx, const char *message) {
  rt_jit_simple_ctx_t *s = ctx->user;
  if (s->error[0]) return;
  snprintf(s->error, sizeof s->error, "%s", message);
}

static void *simple_alloc(const rt_kernel_ctx *ctx, uint64_t nbytes) {
  void *p = NULL;
  if (posix_memalign(&p, 64, nbytes ? (size_t)nbytes : 64) != 0) return NULL;
  return p;
}

static void simple_free(const rt_kernel_ctx *ctx, void *ptr) { free(ptr); }

void rt_jit_simple_ctx_initialize(rt_jit_simple_ctx_t *out) {
  memset(out, 0, sizeof *out);
  out->ctx.version = RT_KERNEL_ABI_VERSION;
  out->ctx.num_threads = 1;
  out->ctx.parallel_for = NULL;
  out->ctx.workspace_alloc = simple_alloc;
  out->ctx.workspace_free = simple_free;
  out->ctx.set_error = simple_set_error;
  out->ctx.user = out;
}

void rt_jit_arg_from_tensor(const rt_tensor_t *t, rt_kernel_arg *out) {
  rt_dtype_t d = rt_tensor_dtype(t);
  out->data = rt_tensor_data(t);
  out->shape = rt_tensor_shape(t);
  out->strides = rt_tensor_strides(t);
  out->rank = rt_tensor_rank(t);
  out->dtype.code = d.code;
  out->dtype.bits = d.bits;
  out->dtype.lanes = d.lanes;
  out->reserved = 0;
}
