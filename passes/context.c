/* rt_pass_context (include/rt/pass.h): opt level, required and disabled
 * pass names (checked against passes.def), typed config options, and the
 * instruments. A context is a plain value: builds copy it. */
#include <stdlib.h>
#include <string.h>

#include "passes/pass.h"
#include "runtime/mem.h"
#include "runtime/strbuf.h"

static const char *const kPassNames[] = {
#define RT_PASS(ID, name, level, fn, executor, doc) name,
#include "passes/passes.def"
#undef RT_PASS
};

void rt_pass_context_defaults(rt_pass_context_t *out) {
  memset(out, 0, sizeof *out);
  out->opt_level = 2;
  out->fuse_max_depth = 256;
  out->jit_keep_ll = 1;
  out->jit_disk_cache = 1;
  out->graph_max_specializations = 8;
}

rt_status_t rt_pass_context_create(rt_pass_context_t **out_context) {
  rt_pass_context_t *c = rt_mem_calloc(1, sizeof *c);
  if (!c) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating a pass context");
  rt_pass_context_defaults(c);
  *out_context = c;
  return RT_OK;
}

rt_status_t rt_pass_context_copy(const rt_pass_context_t *context, rt_pass_context_t **out_copy) {
  rt_pass_context_t *c = rt_mem_calloc(1, sizeof *c);
  if (!c) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory copying a pass context");
  *c = *context;
  /* Built-in instruments' state stays owned by the original. */
  c->num_owned = 0;
  memset(c->owned, 0, sizeof c->owned);
  *out_copy = c;
  return RT_OK;
}

void rt_pass_context_release(rt_pass_context_t *context) {
  if (!context) return;
  for (int32_t i = 0; i < context->num_owned; ++i) rt_mem_free(context->owned[i]);
  rt_mem_free(context);
}

rt_status_t rt_pass_context_set_opt_level(rt_pass_context_t *context, int32_t opt_level) {
  if (opt_level < 0 || opt_level > 4) {
    return RT_STATUS(INVALID_ARGUMENT, "opt_level must be 0..4, got %d", (int)opt_level);
  }
  context->opt_level = opt_level;
  return RT_OK;
}

int32_t rt_pass_context_opt_level(const rt_pass_context_t *context) {
  return context ? context->opt_level : 2;
}

/* The static copy of a known pass name, or NOT_FOUND listing them all. */
static rt_status_t known_name(const char *name, const char **out) {
  for (size_t i = 0; i < RT_COUNTOF(kPassNames); ++i) {
    if (strcmp(kPassNames[i], name) == 0) {
      *out = kPassNames[i];
      return RT_OK;
    }
  }
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  for (size_t i = 0; i < RT_COUNTOF(kPassNames); ++i) {
    bool dup = false;
    for (size_t k = 0; k < i; ++k) dup = dup || strcmp(kPassNames[k], kPassNames[i]) == 0;
    if (!dup) rt_strbuf_printf(&b, "%s%s", i ? ", " : "", kPassNames[i]);
  }
  rt_status_t st = RT_STATUS(NOT_FOUND, "unknown pass '%s' (known: %s)", name, b.data ? b.data : "");
  rt_strbuf_deinitialize(&b);
  return st;
}

static rt_status_t add_name(const char **list, int32_t *n, const char *name) {
  const char *k = NULL;
  RT_RETURN_IF_ERROR(known_name(name, &k));
  for (int32_t i = 0; i < *n; ++i) {
    if (list[i] == k) return RT_OK;
  }
  if (*n == RT_PASS_MAX_NAMES) return RT_STATUS(RESOURCE_EXHAUSTED, "too many pass names");
  list[(*n)++] = k;
  return RT_OK;
}

rt_status_t rt_pass_context_require(rt_pass_context_t *context, const char *pass_name) {
  return add_name(context->required, &context->num_required, pass_name);
}

rt_status_t rt_pass_context_disable(rt_pass_context_t *context, const char *pass_name) {
  return add_name(context->disabled, &context->num_disabled, pass_name);
}

/* ---- config -------------------------------------------------------------- */

typedef struct {
  const char *key;
  const char *doc;
  int64_t min, max;
  size_t offset; /* of the int64_t field in rt_pass_context_t */
  /* A named option: value i is names[i] (min 0, max the count - 1); the
   * field holds the index. */
  const char *const *names;
} config_option;

/* jit.target's names, in the order of jit/target.h's rt_jit_target_kind_t
 * (backend/ maps the index; test_executor checks the two lists agree). */
static const char *const kJitTargets[] = {"default", "host", "avx2", "avx512", "generic", NULL};
/* The templates' float lanes for ctx's jit.target, as jit/target.c
 * resolves it (default: $RELAYRT_JIT_TARGET, else host; host: 16 when
 * this CPU has AVX-512F), read through the compiler's CPU check instead of
 * LLVM's host description so that passes/ needs no JIT. test_executor
 * (test/backend) checks the two agree for every kind. */
int32_t rt_pass_template_lanes(const rt_pass_context_t *ctx) {
  const int64_t count = (int64_t)(sizeof kJitTargets / sizeof kJitTargets[0]) - 1; /* less the NULL */
  const char *name = kJitTargets[ctx && ctx->jit_target > 0 && ctx->jit_target < count ? ctx->jit_target : 0];
  if (strcmp(name, "default") == 0) {
    const char *env = getenv("RELAYRT_JIT_TARGET");
    name = env && *env ? env : "host";
  }
  if (strcmp(name, "avx512") == 0) return 16;
  if (strcmp(name, "host") != 0) return 8;
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx512f") ? 16 : 8;
#else
  return 8;
#endif
}

/* vm.specialize's names, in the order of backend/vm_compile.h's rt_vm_specialize_t. */
static const char *const kVmSpecialize[] = {"auto", "all", "needed", NULL};

static const config_option kConfig[] = {
    {"fuse.max_depth", "most ops in one fused group (FuseOps)", 1, 1 << 20,
     offsetof(rt_pass_context_t, fuse_max_depth), NULL},
    {"jit.keep_ll", "keep each kernel's LLVM IR for get_source(\"ll\") (0/1)", 0, 1,
     offsetof(rt_pass_context_t, jit_keep_ll), NULL},
    {"jit.keep_asm", "keep each kernel's assembly for get_source(\"asm\") (0/1)", 0, 1,
     offsetof(rt_pass_context_t, jit_keep_asm), NULL},
    {"jit.disk_cache", "use the on-disk kernel cache and FoldConstant's cache of large folds "
                       "(0/1; their folder is $RELAYRT_CACHE_DIR, else $XDG_CACHE_HOME/relayrt "
                       "or ~/.cache/relayrt)", 0, 1,
     offsetof(rt_pass_context_t, jit_disk_cache), NULL},
    {"runtime.num_threads", "threads of each executor's kernel pool, counting the caller "
                            "(0: one per online CPU)", 0, 1024,
     offsetof(rt_pass_context_t, num_threads), NULL},
    {"jit.target", "what kernels are compiled for: default ($RELAYRT_JIT_TARGET, else host), "
                   "host, avx2, avx512 or generic", 0, 4,
     offsetof(rt_pass_context_t, jit_target), kJitTargets},
    {"vm.specialize", "which vm kernels with `?` dims are compiled per input shape at run time: "
                      "auto (those that need it, and those with conv2d/dense/matmul anchors), "
                      "all, or needed (only those that cannot run otherwise)", 0, 2,
     offsetof(rt_pass_context_t, vm_specialize), kVmSpecialize},
    {"graph.max_specializations", "plans a graph executor with `?` inputs keeps, one per input "
                                  "shape seen, the least recently used evicted", 1, 1024,
     offsetof(rt_pass_context_t, graph_max_specializations), NULL},
    {"alter_op_layout.block", "the block x of AlterOpLayout's NCHW{x}c layouts (0: the "
                              "templates' vector lanes under jit.target, 16 or 8)", 0, 64,
     offsetof(rt_pass_context_t, alter_op_layout_block), NULL},
};

static rt_status_t find_option(const char *key, const config_option **out) {
  for (size_t i = 0; i < RT_COUNTOF(kConfig); ++i) {
    if (strcmp(kConfig[i].key, key) == 0) {
      *out = &kConfig[i];
      return RT_OK;
    }
  }
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  for (size_t i = 0; i < RT_COUNTOF(kConfig); ++i) {
    rt_strbuf_printf(&b, "%s%s", i ? ", " : "", kConfig[i].key);
  }
  rt_status_t st = RT_STATUS(NOT_FOUND, "unknown config option '%s' (known: %s)", key,
                             b.data ? b.data : "");
  rt_strbuf_deinitialize(&b);
  return st;
}

rt_status_t rt_pass_context_set_config(rt_pass_context_t *context, const char *key,
                                       const char *value) {
  const config_option *opt = NULL;
  RT_RETURN_IF_ERROR(find_option(key, &opt));
  if (opt->names) {
    rt_strbuf_t b;
    rt_strbuf_initialize(&b);
    for (int64_t i = 0; opt->names[i]; ++i) {
      if (strcmp(opt->names[i], value) == 0) {
        rt_strbuf_deinitialize(&b);
        *(int64_t *)((char *)context + opt->offset) = i;
        return RT_OK;
      }
      rt_strbuf_printf(&b, "%s%s", i ? ", " : "", opt->names[i]);
    }
    rt_status_t st = RT_STATUS(INVALID_ARGUMENT, "config option '%s' expects one of %s, got '%s'",
                               key, b.data ? b.data : "", value);
    rt_strbuf_deinitialize(&b);
    return st;
  }
  char *end = NULL;
  long long v = strtoll(value, &end, 10);
  if (!*value || *end != '\0' || v < opt->min || v > opt->max) {
    return RT_STATUS(INVALID_ARGUMENT, "config option '%s' expects an integer in %lld..%lld, got '%s'",
                     key, (long long)opt->min, (long long)opt->max, value);
  }
  *(int64_t *)((char *)context + opt->offset) = v;
  return RT_OK;
}

rt_status_t rt_pass_context_config_int(const rt_pass_context_t *context, const char *key,
                                       int64_t *out_value) {
  const config_option *opt = NULL;
  RT_RETURN_IF_ERROR(find_option(key, &opt));
  *out_value = *(const int64_t *)((const char *)context + opt->offset);
  return RT_OK;
}

rt_status_t rt_pass_context_add_instrument(rt_pass_context_t *context,
                                           const rt_pass_instrument_t *instrument) {
  if (context->num_instruments == RT_PASS_MAX_INSTRUMENTS) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "at most %d instruments", RT_PASS_MAX_INSTRUMENTS);
  }
  context->instruments[context->num_instruments++] = *instrument;
  return RT_OK;
}
