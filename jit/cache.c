/* The kernel cache's keys, identities and on-disk entries (jit/cache.h).
 *
 * Identity. rt_ir_print_expr prints a function deterministically from its
 * structure, except for the names of bound variables (`%p06` vs `%p0` for
 * two equal groups of different models). The printed text is therefore
 * canonicalized: every `%name` token outside string literals is replaced by
 * `%<n>`, n counting distinct names in order of first appearance, which is
 * a bijection on each text, so two alpha-equivalent functions give the
 * same text and different ones different texts. Tensor constants print as
 * `meta[relay.Constant][k]` without their data, so the identity appends
 * each constant's dtype, shape and raw bytes in post order (a function of
 * the structure too). The identity starts with the target and compiler
 * lines, so it alone decides a hit; the key only speeds the search.
 *
 * Disk entries are whole files read in one go and validated field by field
 * before any byte is used; see cache.h for the layout. */
#include "jit/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <llvm-c/Core.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "rt/kernel_abi.h"
#include "runtime/disk_cache.h"
#include "runtime/strbuf.h"
#include "runtime/mem.h"

#ifndef RT_VERSION
#define RT_VERSION "unknown"
#endif

#define HEADER_SIZE 72
#define MAX_ENTRY_BYTES ((uint64_t)1 << 30)
static const char kMagic[8] = {'R', 'T', 'K', 'C', 'A', 'C', 'H', 'E'};

uint64_t rt_jit_fnv(uint64_t h, const void *data, size_t size) {
  const uint8_t *p = data;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

/* ---- compiler version ---------------------------------------------------- */

void rt_jit_compiler_version(char *buf, size_t size) {
  char build[41];
  rt_cache_build_id(build);
  unsigned major = 0, minor = 0, patch = 0;
  LLVMGetVersion(&major, &minor, &patch);
  snprintf(buf, size, "relayrt %s (build %s); LLVM %u.%u.%u; kernel ABI %d", RT_VERSION,
           build, major, minor, patch, RT_KERNEL_ABI_VERSION);
}

/* ---- identity ------------------------------------------------------------ */

typedef struct {
  const char *name;
  size_t len;
} name_ref;

/* Appends `text` with every %name outside "..." renamed to %<first-seen
 * index>. */
static void canonicalize(const char *text, rt_strbuf_t *out) {
  name_ref *names = NULL;
  size_t count = 0, cap = 0;
  bool in_string = false;
  for (const char *p = text; *p;) {
    if (in_string) {
      if (*p == '\\' && p[1]) {
        rt_strbuf_append(out, p, 2);
        p += 2;
        continue;
      }
      if (*p == '"') in_string = false;
      rt_strbuf_putc(out, *p++);
      continue;
    }
    if (*p == '"') {
      in_string = true;
      rt_strbuf_putc(out, *p++);
      continue;
    }
    if (*p != '%') {
      rt_strbuf_putc(out, *p++);
      continue;
    }
    const char *start = ++p;
    while (*p == '_' || *p == '.' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
           (*p >= 'A' && *p <= 'Z')) {
      ++p;
    }
    size_t len = (size_t)(p - start);
    size_t k = 0;
    while (k < count && !(names[k].len == len && memcmp(names[k].name, start, len) == 0)) ++k;
    if (k == count) {
      if (count == cap) {
        size_t ncap = cap ? cap * 2 : 32;
        name_ref *nn = rt_mem_realloc(names, ncap * sizeof *nn);
        if (!nn) {
          out->failed = true;
          break;
        }
        names = nn;
        cap = ncap;
      }
      names[count].name = start;
      names[count].len = len;
      ++count;
    }
    rt_strbuf_printf(out, "%%%zu", k);
  }
  rt_mem_free(names);
}

static rt_status_t append_constant(void *user, rt_ir_expr_t *e) {
  if (e->kind != RT_IR_CONSTANT) return RT_OK;
  rt_strbuf_t *out = user;
  const rt_tensor_t *t = e->constant.value;
  char dn[RT_DTYPE_NAME_MAX];
  rt_strbuf_printf(out, "const %s (", rt_dtype_name(rt_tensor_dtype(t), dn));
  for (int32_t d = 0; d < rt_tensor_rank(t); ++d) {
    rt_strbuf_printf(out, "%s%lld", d ? ", " : "", (long long)rt_tensor_shape(t)[d]);
  }
  size_t n = rt_tensor_nbytes(t);
  rt_strbuf_printf(out, ") %zu bytes\n", n);
  if (!rt_tensor_is_compact(t)) {
    return RT_STATUS(UNIMPLEMENTED, "%s", "a strided constant inside a kernel");
  }
  rt_strbuf_append(out, rt_tensor_data(t), n);
  rt_strbuf_putc(out, '\n');
  return RT_OK;
}

rt_status_t rt_jit_kernel_id(const rt_ir_expr_t *fn, const char *target, const char *compiler,
                             const char *opt, rt_jit_kernel_id_t *out) {
  memset(out, 0, sizeof *out);
  rt_strbuf_t text, b;
  rt_strbuf_initialize(&text);
  rt_strbuf_initialize(&b);
  rt_strbuf_printf(&b, "relayrt kernel\ntarget %s\ncompiler %s\nopt %s\nfn\n", target, compiler,
                   opt);
  rt_ir_print_expr(fn, 0, &text);
  rt_status_t st = RT_OK;
  if (text.failed || !text.data) {
    st = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory printing a kernel");
  } else {
    canonicalize(text.data, &b);
    rt_strbuf_puts(&b, "\nconstants\n");
    st = rt_ir_post_order(rt_mem_current(), (rt_ir_expr_t *)fn, append_constant, &b);
  }
  rt_strbuf_deinitialize(&text);
  size_t len = 0;
  char *data = NULL;
  if (!st) st = rt_strbuf_finish(&b, &data, &len);
  rt_strbuf_deinitialize(&b);
  if (st) return rt_status_annotate(st, "%s", "computing a kernel's cache key");
  out->identity = (uint8_t *)data;
  out->identity_len = len;
  out->identity_hash = rt_jit_fnv(RT_JIT_FNV_SEED, data, len);
  uint64_t h = rt_ir_struct_hash(fn);
  uint64_t k = rt_jit_fnv(RT_JIT_FNV_SEED, &h, sizeof h);
  k = rt_jit_fnv(k, target, strlen(target));
  k = rt_jit_fnv(k, "\n", 1);
  k = rt_jit_fnv(k, compiler, strlen(compiler));
  k = rt_jit_fnv(k, "\n", 1);
  out->key = rt_jit_fnv(k, opt, strlen(opt));
  snprintf(out->symbol, sizeof out->symbol, "rt_k%016llx_%016llx", (unsigned long long)out->key,
           (unsigned long long)out->identity_hash);
  return RT_OK;
}

void rt_jit_kernel_id_deinitialize(rt_jit_kernel_id_t *id) {
  rt_mem_free(id->identity);
  memset(id, 0, sizeof *id);
}

/* ---- the folder ---------------------------------------------------------- */

static rt_status_t dup_path(const char *a, const char *b, char **out) {
  size_t n = strlen(a) + strlen(b) + 1;
  *out = rt_mem_alloc(n);
  if (!*out) return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  snprintf(*out, n, "%s%s", a, b);
  return RT_OK;
}

rt_status_t rt_jit_cache_dir(char **out_dir) { return rt_cache_dir(out_dir); }

static rt_status_t entry_path(const char *dir, const rt_jit_kernel_id_t *id, char **out) {
  char name[64];
  snprintf(name, sizeof name, "/%016llx-%016llx.rtk", (unsigned long long)id->key,
           (unsigned long long)id->identity_hash);
  return dup_path(dir, name, out);
}

/* ---- entries ------------------------------------------------------------- */

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get_u32(const uint8_t *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= (uint32_t)p[i] << (8 * i);
  return v;
}
static uint64_t get_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

uint64_t rt_jit_checksum(const void *data, size_t size) { return XXH3_64bits(data, size); }

void rt_jit_cache_entry_deinitialize(rt_jit_cache_entry_t *e) {
  rt_mem_free(e->object);
  rt_mem_free(e->ll);
  memset(e, 0, sizeof *e);
}

/* Reads the whole of `path` if it is a regular file of at most `max`
 * bytes; *out NULL when it cannot be read. */
static void read_file(const char *path, uint64_t max, uint8_t **out, size_t *out_size) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat sb;
  uint8_t *buf = NULL;
  if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= 0 &&
      (uint64_t)sb.st_size <= max) {
    size_t n = (size_t)sb.st_size, got = 0;
    buf = rt_mem_alloc(n ? n : 1);
    while (buf && got < n) {
      ssize_t r = read(fd, buf + got, n - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += (size_t)r;
    }
    if (buf && got != n) {
      rt_mem_free(buf);
      buf = NULL;
    }
    *out_size = n;
  }
  close(fd);
  *out = buf;
}

rt_status_t rt_jit_cache_parse(const uint8_t *f, size_t size, const rt_jit_kernel_id_t *id,
                               rt_jit_cache_entry_t *out, bool *out_found) {
  memset(out, 0, sizeof *out);
  *out_found = false;
  bool ok = size >= HEADER_SIZE && (uint64_t)size <= MAX_ENTRY_BYTES && memcmp(f, kMagic, 8) == 0 &&
            get_u32(f + 8) == RT_JIT_CACHE_FORMAT_VERSION && get_u32(f + 12) == HEADER_SIZE &&
            get_u64(f + 16) == id->key && get_u64(f + 24) == id->identity_hash;
  uint64_t idn = ok ? get_u64(f + 40) : 0, objn = ok ? get_u64(f + 48) : 0,
           lln = ok ? get_u64(f + 56) : 0;
  /* Each length is below 2^30 (the entry is), so the sum cannot wrap. */
  ok = ok && idn <= size && objn <= size && lln <= size &&
       HEADER_SIZE + idn + objn + lln == (uint64_t)size && idn == id->identity_len && objn > 0;
  ok = ok && get_u64(f + 64) == rt_jit_checksum(f + HEADER_SIZE, size - HEADER_SIZE);
  ok = ok && memcmp(f + HEADER_SIZE, id->identity, idn) == 0;
  uint32_t nin = ok ? get_u32(f + 32) : 0, nout = ok ? get_u32(f + 36) : 0;
  ok = ok && nin <= 4096 && nout >= 1 && nout <= 4096;
  rt_status_t st = RT_OK;
  if (ok) {
    out->nin = (int32_t)nin;
    out->nout = (int32_t)nout;
    out->object = rt_mem_alloc((size_t)objn);
    out->object_len = (size_t)objn;
    if (lln) {
      out->ll = rt_mem_alloc((size_t)lln + 1);
      out->ll_len = (size_t)lln;
    }
    if (!out->object || (lln && !out->ll)) {
      st = RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory reading a cached kernel");
    } else {
      memcpy(out->object, f + HEADER_SIZE + idn, (size_t)objn);
      if (lln) {
        memcpy(out->ll, f + HEADER_SIZE + idn + objn, (size_t)lln);
        out->ll[lln] = '\0';
      }
      *out_found = true;
    }
  }
  if (st) rt_jit_cache_entry_deinitialize(out);
  return st;
}

rt_status_t rt_jit_cache_read(const char *dir, const rt_jit_kernel_id_t *id,
                              rt_jit_cache_entry_t *out, bool *out_found) {
  memset(out, 0, sizeof *out);
  *out_found = false;
  char *path = NULL;
  RT_RETURN_IF_ERROR(entry_path(dir, id, &path));
  uint8_t *f = NULL;
  size_t size = 0;
  read_file(path, MAX_ENTRY_BYTES, &f, &size);
  rt_mem_free(path);
  if (!f) return RT_OK;
  rt_status_t st = rt_jit_cache_parse(f, size, id, out, out_found);
  rt_mem_free(f);
  return st;
}

rt_status_t rt_jit_cache_write(const char *dir, const rt_jit_kernel_id_t *id,
                               const rt_jit_cache_entry_t *e) {
  char *path = NULL;
  RT_RETURN_IF_ERROR(entry_path(dir, id, &path));
  uint8_t h[HEADER_SIZE];
  memcpy(h, kMagic, 8);
  put_u32(h + 8, RT_JIT_CACHE_FORMAT_VERSION);
  put_u32(h + 12, HEADER_SIZE);
  put_u64(h + 16, id->key);
  put_u64(h + 24, id->identity_hash);
  put_u32(h + 32, (uint32_t)e->nin);
  put_u32(h + 36, (uint32_t)e->nout);
  put_u64(h + 40, id->identity_len);
  put_u64(h + 48, e->object_len);
  put_u64(h + 56, e->ll ? e->ll_len : 0);
  /* The payload's checksum, streamed over its three parts (equal to
   * rt_jit_checksum of their concatenation, what the reader computes). */
  XXH3_state_t *sum = XXH3_createState();
  if (!sum) {
    rt_mem_free(path);
    return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory (kernel cache checksum)");
  }
  XXH3_64bits_reset(sum);
  XXH3_64bits_update(sum, id->identity, id->identity_len);
  XXH3_64bits_update(sum, e->object, e->object_len);
  if (e->ll) XXH3_64bits_update(sum, e->ll, e->ll_len);
  put_u64(h + 64, XXH3_64bits_digest(sum));
  XXH3_freeState(sum);
  const rt_cache_part_t parts[4] = {{h, sizeof h},
                                    {id->identity, id->identity_len},
                                    {e->object, e->object_len},
                                    {e->ll, e->ll ? e->ll_len : 0}};
  rt_status_t st = rt_cache_write_entry(dir, path, parts, e->ll ? 4 : 3);
  rt_mem_free(path);
  return st;
}
