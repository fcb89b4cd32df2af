/* The JIT session: one ORC LLJIT for the host CPU, and builds that turn a
 * batch of Primitive functions into one optimized LLVM module of kernels.
 *
 * Setup (llvm-orc.md §3, §4.1): the host triple, CPU name and features
 * (LLVMGetHostCPUName/Features: "znver3", "+avx2,+fma,...") make a
 * TargetMachine at CodeGenLevelAggressive with PIC and the default (small)
 * code model, which becomes the LLJIT's JITTargetMachineBuilder, so the
 * JIT's codegen uses the real CPU. The session error reporter is captured
 * (by default ORC prints "JIT session error" to stderr; library code never
 * prints): its messages are attached to the failing build's status.
 *
 * A build (rt_jit_build): a fresh ThreadSafeContext and module; every
 * function lowered into it (jit/lower.c); LLVMVerifyModule; the new pass
 * manager's default<O3> for a per-build TargetMachine of the same CPU
 * (LLJIT does not optimize IR by itself, and a TargetMachine must not be
 * shared between threads); optionally the IR and assembly text (the
 * assembly from a clone: codegen mutates the module it runs on). All of
 * this runs outside the session lock, in parallel across threads. Then,
 * under the lock (two threads adding to / looking up in one LLJIT crash,
 * llvm-orc.md §6): the module is added with its own ResourceTracker and
 * every kernel looked up, which compiles and links the whole module once.
 * Releasing the module removes its tracker (code and symbols freed).
 *
 * Ownership invariants: every LLVMErrorRef is consumed (its message copied
 * into a status with LLVMGetErrorMessage + LLVMDisposeErrorMessage); the
 * TSM is always handed to ORC, which owns it even on failure; the
 * session's LLJIT is disposed with its last reference (modules retain the
 * session). */
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
#include <time.h>

#include "jit/lower.h"
#include "runtime/strbuf.h"

struct rt_jit_session_t {
  _Atomic int32_t refcount;
  rt_allocator_t allocator;
  pthread_mutex_t lock;
  LLVMOrcLLJITRef jit;
  char *triple, *cpu, *features;  /* malloc'd copies */
  _Atomic int32_t next_build;
  rt_strbuf_t session_errors;     /* reporter output, under lock */
};

typedef struct kernel_t {
  rt_kernel_fn fn;
  char *symbol;
  int32_t nin, nout;
} kernel_t;

struct rt_jit_module_t {
  rt_jit_session_t *session;
  LLVMOrcResourceTrackerRef tracker;
  int32_t count;
  kernel_t *kernels;
  char *ll, *asm_text;            /* malloc'd; NULL unless kept */
};

/* ---- helpers ------------------------------------------------------------ */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *r = malloc(n);
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
  *out = LLVMCreateTargetMachine(target, s->triple, s->cpu, s->features,
                                 LLVMCodeGenLevelAggressive, LLVMRelocPIC,
                                 LLVMCodeModelDefault);
  if (!*out) return RT_STATUS(INTERNAL, "%s", "LLVM could not create a TargetMachine");
  return RT_OK;
}

/* ---- session ------------------------------------------------------------ */

rt_status_t rt_jit_session_create(rt_allocator_t allocator, rt_jit_session_t **out_session) {
  *out_session = NULL;
  pthread_once(&g_llvm_once, llvm_init);
  if (g_llvm_init_failed) return RT_STATUS(INTERNAL, "%s", "LLVM has no native target");
  rt_jit_session_t *s;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(allocator, sizeof *s, 16, true, (void **)&s));
  s->allocator = allocator;
  atomic_init(&s->refcount, 1);
  atomic_init(&s->next_build, 0);
  rt_strbuf_initialize(&s->session_errors);
  pthread_mutex_init(&s->lock, NULL);
  rt_status_t status = RT_OK;
  char *t = LLVMGetDefaultTargetTriple(), *c = LLVMGetHostCPUName(), *f = LLVMGetHostCPUFeatures();
  s->triple = dup_str(t);
  s->cpu = dup_str(c);
  s->features = dup_str(f);
  LLVMDisposeMessage(t);
  LLVMDisposeMessage(c);
  LLVMDisposeMessage(f);
  if (!s->triple || !s->cpu || !s->features) status = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
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

void rt_jit_session_retain(rt_jit_session_t *s) { atomic_fetch_add(&s->refcount, 1); }

void rt_jit_session_release(rt_jit_session_t *s) {
  if (!s || atomic_fetch_sub(&s->refcount, 1) != 1) return;
  if (s->jit) {
    LLVMErrorRef e = LLVMOrcDisposeLLJIT(s->jit);
    if (e) LLVMConsumeError(e); /* nothing to report to at this point */
  }
  pthread_mutex_destroy(&s->lock);
  rt_strbuf_deinitialize(&s->session_errors);
  free(s->triple);
  free(s->cpu);
  free(s->features);
  rt_allocator_free(s->allocator, s);
}

const char *rt_jit_session_cpu(const rt_jit_session_t *s) { return s->cpu; }
const char *rt_jit_session_triple(const rt_jit_session_t *s) { return s->triple; }

/* ---- build -------------------------------------------------------------- */

static void module_free(rt_jit_module_t *m) {
  if (!m) return;
  if (m->kernels) {
    for (int32_t i = 0; i < m->count; ++i) free(m->kernels[i].symbol);
  }
  free(m->kernels);
  free(m->ll);
  free(m->asm_text);
  if (m->session) rt_jit_session_release(m->session);
  free(m);
}

static rt_status_t emit_asm(LLVMTargetMachineRef tm, LLVMModuleRef mod, char **out) {
  LLVMModuleRef clone = LLVMCloneModule(mod);
  LLVMMemoryBufferRef buf = NULL;
  char *msg = NULL;
  rt_status_t st = RT_OK;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, clone, LLVMAssemblyFile, &msg, &buf)) {
    st = RT_STATUS(INTERNAL, "emitting assembly: %s", msg ? msg : "");
  } else {
    size_t n = LLVMGetBufferSize(buf);
    *out = malloc(n + 1);
    if (!*out) {
      st = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (assembly text)");
    } else {
      memcpy(*out, LLVMGetBufferStart(buf), n);
      (*out)[n] = 0;
    }
  }
  LLVMDisposeMessage(msg);
  if (buf) LLVMDisposeMemoryBuffer(buf);
  LLVMDisposeModule(clone);
  return st;
}

/* Lowers, verifies and optimizes; fills m->kernels' symbols and counts. */
static rt_status_t build_ir(rt_jit_session_t *s, LLVMModuleRef mod, int32_t count,
                            rt_ir_expr_t *const *fns, const char *const *names, uint32_t flags,
                            rt_jit_module_t *m, rt_jit_build_stats_t *stats) {
  const int32_t build = atomic_fetch_add(&s->next_build, 1);
  double t0 = now_ms();
  for (int32_t i = 0; i < count; ++i) {
    char sym[64];
    snprintf(sym, sizeof sym, "rt_k%d_%d", build, i);
    m->kernels[i].symbol = dup_str(sym);
    if (!m->kernels[i].symbol) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
    rt_status_t st = rt_jit_lower_function(mod, fns[i], sym, &m->kernels[i].nin, &m->kernels[i].nout);
    if (st) {
      return rt_status_annotate(st, "lowering kernel %d (%s)", i,
                                names && names[i] ? names[i] : sym);
    }
  }
  char *msg = NULL;
  if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
    rt_status_t st = RT_STATUS(INTERNAL, "the lowered module does not verify: %s", msg ? msg : "");
    LLVMDisposeMessage(msg);
    return st;
  }
  LLVMDisposeMessage(msg);
  double t1 = now_ms();
  LLVMTargetMachineRef tm;
  RT_RETURN_IF_ERROR(make_tm(s, &tm));
  rt_status_t st = RT_OK;
  if (!(flags & RT_JIT_NO_OPT)) {
    LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(mod, "default<O3>", tm, o);
    LLVMDisposePassBuilderOptions(o);
    if (e) st = llvm_error(e, "running default<O3>");
  }
  double t2 = now_ms();
  if (!st && (flags & RT_JIT_KEEP_LL)) {
    char *text = LLVMPrintModuleToString(mod);
    m->ll = dup_str(text);
    LLVMDisposeMessage(text);
    if (!m->ll) st = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (IR text)");
  }
  if (!st && (flags & RT_JIT_KEEP_ASM)) st = emit_asm(tm, mod, &m->asm_text);
  LLVMDisposeTargetMachine(tm);
  if (stats) {
    stats->lower_ms = t1 - t0;
    stats->opt_ms = t2 - t1;
    stats->asm_ms = now_ms() - t2;
  }
  return st;
}

rt_status_t rt_jit_build(rt_jit_session_t *s, int32_t count, rt_ir_expr_t *const *fns,
                         const char *const *names, uint32_t flags,
                         rt_jit_build_stats_t *out_stats, rt_jit_module_t **out_module) {
  *out_module = NULL;
  rt_jit_build_stats_t stats = {0};
  if (count < 1) return RT_STATUS(INVALID_ARGUMENT, "%s", "rt_jit_build needs at least one function");
  rt_jit_module_t *m = calloc(1, sizeof *m);
  if (!m) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  m->kernels = calloc((size_t)count, sizeof *m->kernels);
  if (!m->kernels) {
    free(m);
    return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  }
  m->count = count;
  rt_jit_session_retain(s);
  m->session = s;

  /* One context per build: builds on other threads never share one. */
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  LLVMContextRef ctx = LLVMOrcThreadSafeContextGetContext(tsc);
  LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("relayrt_kernels", ctx);
  LLVMSetTarget(mod, LLVMOrcLLJITGetTripleString(s->jit));
  LLVMSetDataLayout(mod, LLVMOrcLLJITGetDataLayoutStr(s->jit));
  rt_status_t status = build_ir(s, mod, count, fns, names, flags, m, &stats);
  if (status) {
    LLVMDisposeModule(mod);
    LLVMOrcDisposeThreadSafeContext(tsc);
    module_free(m);
    return status;
  }
  /* The TSM takes the module and shares the context's ownership. */
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc);

  double t0 = now_ms();
  pthread_mutex_lock(&s->lock);
  rt_strbuf_truncate(&s->session_errors, 0);
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(s->jit);
  m->tracker = LLVMOrcJITDylibCreateResourceTracker(jd);
  LLVMErrorRef e = LLVMOrcLLJITAddLLVMIRModuleWithRT(s->jit, m->tracker, tsm); /* takes tsm */
  if (e) status = llvm_error(e, "adding the kernel module to the JIT");
  for (int32_t i = 0; !status && i < count; ++i) {
    LLVMOrcExecutorAddress addr = 0;
    e = LLVMOrcLLJITLookup(s->jit, &addr, m->kernels[i].symbol);
    if (e) {
      status = llvm_error(e, "compiling the kernel module");
      if (s->session_errors.len && s->session_errors.data) {
        status = rt_status_annotate(status, "%s", s->session_errors.data);
      }
    } else {
      m->kernels[i].fn = (rt_kernel_fn)(uintptr_t)addr;
    }
  }
  if (status) {
    e = LLVMOrcResourceTrackerRemove(m->tracker);
    if (e) LLVMConsumeError(e);
    LLVMOrcReleaseResourceTracker(m->tracker);
    m->tracker = NULL;
  }
  pthread_mutex_unlock(&s->lock);
  stats.codegen_ms = now_ms() - t0;
  if (out_stats) *out_stats = stats;
  if (status) {
    module_free(m);
    return status;
  }
  *out_module = m;
  return RT_OK;
}

void rt_jit_module_release(rt_jit_module_t *m) {
  if (!m) return;
  if (m->tracker) {
    rt_jit_session_t *s = m->session;
    pthread_mutex_lock(&s->lock);
    LLVMErrorRef e = LLVMOrcResourceTrackerRemove(m->tracker);
    if (e) LLVMConsumeError(e); /* release cannot fail: the code is dropped regardless */
    LLVMOrcReleaseResourceTracker(m->tracker);
    pthread_mutex_unlock(&s->lock);
  }
  module_free(m);
}

int32_t rt_jit_module_count(const rt_jit_module_t *m) { return m->count; }
rt_kernel_fn rt_jit_module_kernel(const rt_jit_module_t *m, int32_t i) { return m->kernels[i].fn; }
const char *rt_jit_module_symbol(const rt_jit_module_t *m, int32_t i) { return m->kernels[i].symbol; }
int32_t rt_jit_module_num_inputs(const rt_jit_module_t *m, int32_t i) { return m->kernels[i].nin; }
int32_t rt_jit_module_num_outputs(const rt_jit_module_t *m, int32_t i) { return m->kernels[i].nout; }

/* ---- source text -------------------------------------------------------- */

/* True when `name` (up to a delimiter) is `sym` or `sym.<suffix>`. */
static bool names_kernel(const char *name, const char *sym) {
  size_t n = strlen(sym);
  if (strncmp(name, sym, n) != 0) return false;
  char c = name[n];
  return c == '.' || c == '(' || c == ',' || c == ':' || c == '"' || c == '\n' || c == 0;
}

/* Copies the functions of kernel `sym` out of module text: LLVM IR
 * ("define ... @sym..." up to "}") or assembly (".type sym..." up to
 * ".size sym..."). */
static rt_status_t extract(const char *text, const char *sym, bool is_asm, char **out) {
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  const char *p = text;
  bool in = false;
  while (*p) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p + 1) : strlen(p);
    if (!in) {
      const char *at = NULL;
      if (!is_asm && strncmp(p, "define ", 7) == 0) {
        at = memchr(p, '@', len);
        if (at) ++at;
      } else if (is_asm && strncmp(p, "\t.type\t", 7) == 0) {
        at = p + 7;
      }
      if (at && names_kernel(at, sym)) in = true;
    }
    if (in) {
      rt_strbuf_append(&b, p, len);
      if (!is_asm && p[0] == '}') {
        in = false;
        rt_strbuf_putc(&b, '\n');
      }
      if (is_asm && strncmp(p, "\t.size\t", 7) == 0 && names_kernel(p + 7, sym)) {
        in = false;
        rt_strbuf_putc(&b, '\n');
      }
    }
    p += len;
  }
  size_t n;
  return rt_strbuf_finish(&b, out, &n);
}

static rt_status_t source(const rt_jit_module_t *m, int32_t kernel, const char *text,
                          const char *flag, bool is_asm, char **out_text) {
  *out_text = NULL;
  if (!text) return RT_STATUS(FAILED_PRECONDITION, "the build did not keep its text (%s)", flag);
  if (kernel >= m->count) return RT_STATUS(OUT_OF_RANGE, "kernel %d of %d", kernel, m->count);
  if (kernel < 0) {
    *out_text = dup_str(text);
    return *out_text ? RT_OK : RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  }
  return extract(text, m->kernels[kernel].symbol, is_asm, out_text);
}

rt_status_t rt_jit_module_ll(const rt_jit_module_t *m, int32_t kernel, char **out_text) {
  return source(m, kernel, m->ll, "RT_JIT_KEEP_LL", false, out_text);
}

rt_status_t rt_jit_module_asm(const rt_jit_module_t *m, int32_t kernel, char **out_text) {
  return source(m, kernel, m->asm_text, "RT_JIT_KEEP_ASM", true, out_text);
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
