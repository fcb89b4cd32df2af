/* JIT targets (jit/target.h): the host's CPU as LLVM describes it, or a
 * named ISA level pinned to an LLVM CPU model, checked against the host.
 *
 * Named levels use LLVM's CPU models, whose feature sets LLVM derives
 * itself: avx2 = "haswell" (AVX2, FMA, BMI1/2, F16C), avx512 =
 * "skylake-avx512" (AVX-512 F/CD/BW/DQ/VL), generic = "x86-64" (SSE2).
 * The feature string of a named level is empty, so the same name compiles
 * the same code on every host that can run it. */
#include "jit/target.h"

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const rt_jit_target_names[RT_JIT_TARGET_KIND_COUNT + 1] = {
    "default", "host", "avx2", "avx512", "generic", NULL,
};

bool rt_jit_target_parse(const char *name, rt_jit_target_kind_t *out_kind) {
  for (int32_t k = 0; k < RT_JIT_TARGET_KIND_COUNT; ++k) {
    if (strcmp(name, rt_jit_target_names[k]) == 0) {
      *out_kind = (rt_jit_target_kind_t)k;
      return true;
    }
  }
  return false;
}

const char *rt_jit_target_name(const rt_jit_target_t *target) {
  return rt_jit_target_names[target->kind];
}

/* Whether the comma-separated LLVM feature list enables `feature`
 * ("+avx2" as a whole item, not a prefix of "+avx2vnni"). */
static bool has_feature(const char *features, const char *feature) {
  const size_t n = strlen(feature);
  for (const char *p = features; (p = strstr(p, feature)) != NULL; p += n) {
    if ((p == features || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return true;
  }
  return false;
}

static bool has_all(const char *features, const char *const *list) {
  for (; *list; ++list) {
    if (!has_feature(features, *list)) return false;
  }
  return true;
}

static const char *const kAvx2[] = {"+avx", "+avx2", "+fma", "+f16c", "+bmi", "+bmi2", NULL};
static const char *const kAvx512[] = {"+avx512f", "+avx512cd", "+avx512bw", "+avx512dq",
                                      "+avx512vl", NULL};

#define DEFAULT_L2 ((int64_t)256 << 10)

/* The first line of `path` into buf; false if unreadable. */
static bool read_line(const char *path, char *buf, size_t n) {
  FILE *f = fopen(path, "r");
  if (!f) return false;
  const bool ok = fgets(buf, (int)n, f) != NULL;
  fclose(f);
  return ok;
}

static int64_t read_l2(void) {
  for (int32_t i = 0; i < 8; ++i) {
    char path[96], level[16], type[32], size[32];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", (int)i);
    if (!read_line(path, level, sizeof level)) break;
    if (atoi(level) != 2) continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", (int)i);
    if (!read_line(path, type, sizeof type) || strncmp(type, "Instruction", 11) == 0) continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", (int)i);
    if (!read_line(path, size, sizeof size)) continue;
    char *end = NULL;
    const long long v = strtoll(size, &end, 10);
    const int64_t bytes = end && *end == 'M' ? (int64_t)v << 20 : end && *end == 'K' ? (int64_t)v << 10 : (int64_t)v;
    if (bytes >= ((int64_t)64 << 10) && bytes <= ((int64_t)64 << 20)) return bytes;
  }
  return DEFAULT_L2;
}

static pthread_once_t g_l2_once = PTHREAD_ONCE_INIT;
static int64_t g_l2;
static void init_l2(void) { g_l2 = read_l2(); }

int64_t rt_jit_host_l2_bytes(void) {
  pthread_once(&g_l2_once, init_l2);
  return g_l2;
}

/* rt_jit_target_resolve; with `check` false the named ISAs are not
 * checked against this CPU (the kernels are inspected, not run, here:
 * the default L2). */
static rt_status_t resolve(rt_jit_target_kind_t kind, bool check, rt_jit_target_t *out) {
  memset(out, 0, sizeof *out);
  if (kind == RT_JIT_TARGET_DEFAULT) {
    const char *env = getenv("RELAYRT_JIT_TARGET");
    kind = RT_JIT_TARGET_HOST;
    if (env && *env && (!rt_jit_target_parse(env, &kind) || kind == RT_JIT_TARGET_DEFAULT)) {
      return RT_STATUS(INVALID_ARGUMENT,
                       "RELAYRT_JIT_TARGET='%s' names no JIT target (host, avx2, avx512, generic)",
                       env);
    }
  }
  char *hcpu = LLVMGetHostCPUName(), *hfeat = LLVMGetHostCPUFeatures();
  const char *host_cpu = hcpu ? hcpu : "", *host_features = hfeat ? hfeat : "";
  rt_status_t st = RT_OK;
  out->kind = kind;
  out->vector_width = 8;
  out->l2_bytes = check ? rt_jit_host_l2_bytes() : DEFAULT_L2;
  switch (kind) {
    case RT_JIT_TARGET_HOST:
      if (strlen(host_cpu) >= sizeof out->cpu || strlen(host_features) >= sizeof out->features) {
        st = RT_STATUS(INTERNAL, "%s", "the host CPU description is longer than expected");
        break;
      }
      snprintf(out->cpu, sizeof out->cpu, "%s", host_cpu);
      snprintf(out->features, sizeof out->features, "%s", host_features);
      if (has_feature(host_features, "+avx512f")) out->vector_width = 16;
      break;
    case RT_JIT_TARGET_AVX2:
      snprintf(out->cpu, sizeof out->cpu, "%s", "haswell");
      if (check && !has_all(host_features, kAvx2)) {
        st = RT_STATUS(FAILED_PRECONDITION,
                       "JIT target avx2: this CPU (%s) lacks AVX2/FMA; use jit.target=generic",
                       host_cpu);
      }
      break;
    case RT_JIT_TARGET_AVX512:
      snprintf(out->cpu, sizeof out->cpu, "%s", "skylake-avx512");
      out->vector_width = 16;
      if (check && !has_all(host_features, kAvx512)) {
        st = RT_STATUS(FAILED_PRECONDITION,
                       "JIT target avx512: this CPU (%s) lacks AVX-512 F/CD/BW/DQ/VL; use "
                       "jit.target=avx2 or host",
                       host_cpu);
      }
      break;
    case RT_JIT_TARGET_GENERIC:
      snprintf(out->cpu, sizeof out->cpu, "%s", "x86-64");
      break;
    case RT_JIT_TARGET_DEFAULT:
    case RT_JIT_TARGET_KIND_COUNT:
      st = RT_STATUS(INVALID_ARGUMENT, "%s", "no such JIT target");
      break;
  }
  LLVMDisposeMessage(hcpu);
  LLVMDisposeMessage(hfeat);
  return st;
}

rt_status_t rt_jit_target_resolve(rt_jit_target_kind_t kind, rt_jit_target_t *out) {
  return resolve(kind, true, out);
}

rt_status_t rt_jit_target_resolve_unchecked(rt_jit_target_kind_t kind, rt_jit_target_t *out) {
  return resolve(kind, false, out);
}

/* LLVM feature names that runtime/artifact.c can check on a loading CPU
 * (GCC's __builtin_cpu_supports spells them the same way). */
static const char *const kCheckable[] = {
    "sse4.1",  "sse4.2",  "popcnt",   "avx",      "avx2",        "fma",          "bmi",
    "bmi2",    "aes",     "pclmul",   "avx512f",  "avx512vl",    "avx512bw",     "avx512dq",
    "avx512cd", "avx512vnni", "avx512bf16", "avx512vbmi", "avx512ifma", "avx512vbmi2",
    "avx512bitalg", "avx512vpopcntdq", "gfni", "vpclmulqdq", NULL,
};

void rt_jit_target_isa(const rt_jit_target_t *target, char *buf, size_t size) {
  if (size) buf[0] = '\0';
  const char *features = target->features;
  char named[512] = "";
  if (target->kind == RT_JIT_TARGET_AVX2 || target->kind == RT_JIT_TARGET_AVX512) {
    snprintf(named, sizeof named, "%s%s", "+sse4.1,+sse4.2,+popcnt,+avx,+avx2,+fma,+bmi,+bmi2",
             target->kind == RT_JIT_TARGET_AVX512
                 ? ",+avx512f,+avx512vl,+avx512bw,+avx512dq,+avx512cd"
                 : "");
    features = named;
  } else if (target->kind != RT_JIT_TARGET_HOST) {
    return; /* generic: baseline x86-64 */
  }
  size_t used = 0;
  for (const char *const *f = kCheckable; *f; ++f) {
    char plus[32];
    snprintf(plus, sizeof plus, "+%s", *f);
    if (!has_feature(features, plus)) continue;
    int n = snprintf(buf + used, size > used ? size - used : 0, "%s%s", used ? "," : "", *f);
    if (n < 0 || used + (size_t)n >= size) break;
    used += (size_t)n;
  }
}
