/* The JIT's target: the machine kernels are compiled for, as one value.
 *
 * A target names the CPU and ISA features LLVM compiles for, the vector
 * width of the kernel templates (8 lanes: AVX2 tiles; 16: AVX-512 tiles).
 * The planners' cache blocking is fixed (jit/templates/dense.c), never read
 * from the host, so a target compiles the same kernels on every CPU that
 * runs it. It is chosen once
 * per JIT session, from the pass context's `jit.target` (host, avx2,
 * avx512, generic) or, when that says `default`, from the environment
 * variable RELAYRT_JIT_TARGET (same names), else the host. Every kernel
 * cache key and every export carries the target's description, so a
 * kernel compiled for one target never serves another.
 *
 * A named target must be runnable here: the kernels are executed in this
 * process, so avx512 on a CPU without AVX-512 (or avx2 without AVX2/FMA)
 * is refused with FAILED_PRECONDITION. This is what lets the test suite
 * run the 8-lane templates on an AVX-512 host (RELAYRT_JIT_TARGET=avx2)
 * exactly as an AVX2-only host runs them.
 *
 * Thread-safety: targets are plain values; resolving one reads the host's
 * CPU description through LLVM (thread-safe) and the environment. */
#ifndef RT_JIT_TARGET_H_
#define RT_JIT_TARGET_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt/status.h"

typedef enum rt_jit_target_kind_t {
  RT_JIT_TARGET_DEFAULT = 0, /* RELAYRT_JIT_TARGET, else host */
  RT_JIT_TARGET_HOST,        /* this CPU, all its features */
  RT_JIT_TARGET_AVX2,        /* x86-64 with AVX2 + FMA (Haswell, Zen): 8-lane templates */
  RT_JIT_TARGET_AVX512,      /* x86-64 with AVX-512 F/BW/DQ/VL (Skylake-SP): 16 lanes */
  RT_JIT_TARGET_GENERIC,     /* baseline x86-64 (SSE2): any x86-64 CPU, 8-lane templates */
  RT_JIT_TARGET_KIND_COUNT
} rt_jit_target_kind_t;

/* The config names, indexed by kind ("default", "host", "avx2", ...). */
extern const char *const rt_jit_target_names[RT_JIT_TARGET_KIND_COUNT + 1];

typedef struct rt_jit_target_t {
  rt_jit_target_kind_t kind; /* never DEFAULT once resolved */
  char cpu[64];              /* LLVM CPU name: "znver3", "haswell", "x86-64" */
  char features[2048];       /* LLVM feature string ("+avx2,+fma,..."), may be "" */
  int32_t vector_width;      /* float lanes of the template tiles: 8 or 16 */
  int64_t l2_bytes;          /* this machine's L2 per core (rt_jit_host_l2_bytes): the templates' cache blocking */
} rt_jit_target_t;

/* The L2 (unified or data) cache of CPU 0 in bytes, from sysfs
 * (/sys/devices/system/cpu/cpu0/cache/index<i>/{level,type,size}); 256 KiB,
 * what the templates' blocking assumed before it read the machine, where
 * that is unknown or out of 64 KiB..64 MiB. Read once per process. */
int64_t rt_jit_host_l2_bytes(void);

/* Resolves `kind` (DEFAULT: RELAYRT_JIT_TARGET, else HOST) for this
 * process. INVALID_ARGUMENT: RELAYRT_JIT_TARGET names no target.
 * FAILED_PRECONDITION: the named ISA is not available on this CPU. */
RT_MUST_USE_RESULT rt_status_t rt_jit_target_resolve(rt_jit_target_kind_t kind,
                                                     rt_jit_target_t *out_target);
/* rt_jit_target_resolve without checking the named ISA against this CPU:
 * for compiling kernels that are inspected, never run, here
 * (rt_jit_session_create_unchecked). */
RT_MUST_USE_RESULT rt_status_t rt_jit_target_resolve_unchecked(rt_jit_target_kind_t kind,
                                                               rt_jit_target_t *out_target);

/* The kind named `name` ("host", "avx2", ...); false if none. */
bool rt_jit_target_parse(const char *name, rt_jit_target_kind_t *out_kind);

/* The target's name ("host", "avx2", ...). */
const char *rt_jit_target_name(const rt_jit_target_t *target);

/* The ISA extensions code compiled for `target` may use, as a
 * comma-separated list of the names GCC's __builtin_cpu_supports knows
 * ("avx2,fma,..."; "" for generic), into buf (truncated to size). An
 * exported model records it so that a loader refuses a CPU without them
 * instead of dying of SIGILL (runtime/artifact.c). */
void rt_jit_target_isa(const rt_jit_target_t *target, char *buf, size_t size);

#endif /* RT_JIT_TARGET_H_ */
