/* Internal to jit/: the kernel cache's keys and its on-disk store.
 *
 * A kernel is identified by
 *  - its key: a 64-bit hash of the Primitive function's structural hash
 *    (rt_ir_struct_hash: alpha-equivalent functions hash alike), the target
 *    (triple, CPU name, features), the compiler (relayrt version and build
 *    id, LLVM version, RT_KERNEL_ABI_VERSION) and the optimization level;
 *  - its identity: the bytes the key was made from, exactly: the target and
 *    compiler lines, the function printed with its bound variables renamed
 *    canonically, and the raw bytes of every constant inside it. Two
 *    kernels are the same only when their identities are byte-equal, so a
 *    64-bit collision never hands out the wrong code.
 * The LLVM symbol of a kernel is derived from both hashes
 * ("rt_k<key>_<identity hash>"), so equal kernels have equal symbols in
 * every process and an object file can be reused as is.
 *
 * Disk store: one file per kernel, "<dir>/<key>-<idhash>.rtk", written to
 * a temporary name and renamed into place (readers never see a partial
 * file). Layout, little-endian:
 *   0  char magic[8] "RTKCACHE"     8  u32 format version (2)
 *   12 u32 header size (72)         16 u64 key
 *   24 u64 identity hash            32 u32 inputs   36 u32 outputs
 *   40 u64 identity bytes           48 u64 object bytes
 *   56 u64 LLVM IR text bytes (0 = not kept)
 *   64 u64 checksum of the payload (rt_jit_checksum)
 *   72 payload: identity, object file, IR text.
 * A file that is short, long, of another version, whose checksum or
 * identity differs is ignored (and replaced by the next compile). */
#ifndef RT_JIT_CACHE_H_
#define RT_JIT_CACHE_H_

#include "ir/ir.h"

#define RT_JIT_CACHE_FORMAT_VERSION 2

typedef struct rt_jit_kernel_id_t {
  uint64_t key;
  uint64_t identity_hash;
  uint8_t *identity;      /* rt_mem_alloc'd */
  size_t identity_len;
  char symbol[48];        /* "rt_k%016llx_%016llx" */
} rt_jit_kernel_id_t;

/* Computes the key, identity and symbol of fn for `target` ("<triple>
 * <cpu> <features>") and `compiler` (rt_jit_compiler_version) at
 * optimization `opt` ("O3" / "O0"). */
RT_MUST_USE_RESULT rt_status_t rt_jit_kernel_id(const rt_ir_expr_t *fn, const char *target,
                                                const char *compiler, const char *opt,
                                                rt_jit_kernel_id_t *out_id);
void rt_jit_kernel_id_deinitialize(rt_jit_kernel_id_t *id);

/* "relayrt 0.1.0 (build <build-id hex>); LLVM 19.1.7; kernel ABI 1" into
 * buf; the build id is the GNU build id of the binary holding this code,
 * so a rebuilt library never reuses kernels of an older one. */
void rt_jit_compiler_version(char *buf, size_t size);

/* The cache folder (rt_cache_dir, runtime/disk_cache.h). */
RT_MUST_USE_RESULT rt_status_t rt_jit_cache_dir(char **out_dir);

/* One entry as stored. */
typedef struct rt_jit_cache_entry_t {
  int32_t nin, nout;
  uint8_t *object;        /* rt_mem_alloc'd */
  size_t object_len;
  char *ll;               /* rt_mem_alloc'd, NUL-terminated; NULL when not kept */
  size_t ll_len;
} rt_jit_cache_entry_t;

/* Reads id's entry from `dir`. *out_found is false when there is no valid
 * entry (missing, unreadable, corrupt, another version or identity): the
 * cache is never trusted blindly and a bad file is not an error. */
RT_MUST_USE_RESULT rt_status_t rt_jit_cache_read(const char *dir, const rt_jit_kernel_id_t *id,
                                                 rt_jit_cache_entry_t *out_entry,
                                                 bool *out_found);
/* The checks of rt_jit_cache_read on an entry's bytes (the whole file,
 * `size` bytes): *out_found is false when they are not a valid entry of
 * id; otherwise *out_entry holds copies of its parts. Never reads outside
 * the bytes; the fuzz target fuzz/fuzz_cache.c calls it. */
RT_MUST_USE_RESULT rt_status_t rt_jit_cache_parse(const uint8_t *bytes, size_t size,
                                                  const rt_jit_kernel_id_t *id,
                                                  rt_jit_cache_entry_t *out_entry,
                                                  bool *out_found);
/* Writes id's entry atomically (temporary file + rename), creating the
 * folder. IO_ERROR when the OS refuses (callers treat it as a warning:
 * the kernel still works). */
RT_MUST_USE_RESULT rt_status_t rt_jit_cache_write(const char *dir, const rt_jit_kernel_id_t *id,
                                                  const rt_jit_cache_entry_t *entry);
void rt_jit_cache_entry_deinitialize(rt_jit_cache_entry_t *entry);

/* FNV-1a 64 over bytes, continuing from `h` (start: RT_JIT_FNV_SEED). */
#define RT_JIT_FNV_SEED UINT64_C(0xcbf29ce484222325)
uint64_t rt_jit_fnv(uint64_t h, const void *data, size_t size);

/* The disk entries' payload checksum: XXH3-64 (libxxhash, as the fold
 * cache's keys). Format version 1 summed with FNV-1a, one multiply per
 * byte: densenet121's warm start (138 kernels, 14 MB of entries) read its
 * cache in 17.8-19.0 ms with it, 6.3-6.9 with XXH3 (executor creation
 * 84.5-87.9 -> 72.6-77.6 ms, alternated runs). It detects damaged or
 * truncated files; the identity comparison, not the checksum, decides a
 * hit. */
uint64_t rt_jit_checksum(const void *data, size_t size);

#endif /* RT_JIT_CACHE_H_ */
