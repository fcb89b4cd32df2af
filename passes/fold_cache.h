/* FoldConstant's disk cache of large folded constants (passes/fold_cache.c),
 * and its deferred stores (written on a writer thread, below).
 *
 * At opt_level 3 the second FoldConstant computes the Winograd-transformed
 * weights of every 3x3 convolution (resnet18: ~100 MB, most of a warm
 * build's time). A fold whose result is at least
 * RT_FOLD_CACHE_MIN_BYTES is looked up in the cache folder
 * (runtime/disk_cache.h, `fold/` under it) before it is evaluated, and
 * stored after; a hit maps the entry's file read-only (MAP_PRIVATE) and
 * wraps it as the constant's tensor, so pages are read when a kernel first
 * touches them.
 *
 * Key: XXH3-128 (libxxhash) over the library's build id, the op's name,
 * its attributes as printed, and each argument's dtype, shape and content
 * hash. A content hash is XXH3-128 of the bytes, except for a tensor that
 * is itself a cache hit, whose content hash is its key (a chain of folds
 * over a hit, e.g. the transpose after the Winograd transform, hashes no
 * data). XXH3 is fast, not collision-resistant against a crafted input: a
 * model built to collide with another's fold could place its result in
 * that model's build, for the same user (the folder is the user's own,
 * 0700). Turn the disk caches off (jit.disk_cache=0, RELAYRT_CACHE_DIR=off)
 * where models come from someone you do not trust.
 *
 * Entry: a 4096-byte header (magic, format version, key, dtype, rank,
 * shape, data bytes), then the data, page aligned. An entry whose header
 * does not match the key and the expected type and size exactly, or whose
 * file is shorter, is a miss; a write goes through a temporary file
 * renamed into place, so a reader never sees half an entry. */
#ifndef RT_PASSES_FOLD_CACHE_H_
#define RT_PASSES_FOLD_CACHE_H_

#include <stdint.h>

#include "rt/tensor.h"

/* 256 KiB: DenseNet-121's Winograd weights (128 -> 32 channels, 590 KB
 * each) fall below the first threshold, 1 MiB, and were folded again at
 * every start (25 of its 35 ms of passes). Warm executor creation, 3 runs
 * each after one that fills the cache: densenet121 72.6-77.6 -> 42.1-44.7
 * ms with 256 KiB (the XXH3 kernel-cache checksum in both); with that
 * checksum change too, against both before: efficientnet_b0 41-42 ->
 * 29-33, resnet50 31 -> 25, mobilenet_v2 16-17 -> 12. The cache folder
 * grew 3 -> 29 MB for densenet121, 3 -> 10 MB for efficientnet_b0. */
#define RT_FOLD_CACHE_MIN_BYTES (UINT64_C(1) << 18)

typedef struct rt_fold_key_t {
  uint64_t lo, hi;
} rt_fold_key_t;

/* The entry of `key` under dir as a read-only tensor of dtype and shape
 * (a new reference in *out), or *out = NULL on a miss (absent, invalid,
 * unreadable). Errors only for out of memory. */
RT_MUST_USE_RESULT rt_status_t rt_fold_cache_load(const char *dir, rt_fold_key_t key,
                                                  rt_dtype_t dtype, int32_t rank,
                                                  const int64_t *shape, rt_tensor_t **out);

/* Stores compact tensor t as the entry of `key` (IO_ERROR naming the file
 * when it cannot be written; the caller may ignore it). */
RT_MUST_USE_RESULT rt_status_t rt_fold_cache_store(const char *dir, rt_fold_key_t key,
                                                   const rt_tensor_t *t);

/* Deferred stores. Between rt_fold_cache_defer_begin and
 * rt_fold_cache_defer_end on one thread (rt_create_executor brackets its
 * pass pipeline and kernel build with them), rt_fold_cache_store_deferred
 * hands each entry to one writer thread of that scope, which writes the
 * entries in order while the build goes on (resnet18 at opt level 3
 * writes ~120 MB, mostly Winograd weights, which then overlaps the
 * kernels' compile instead of preceding it); _end waits for the writes and drops
 * their references. Outside a scope, or when the calling thread's
 * allocator scope is not the system allocator (runtime/mem.h: an
 * embedder's allocator may not be thread-safe), or the writer thread
 * cannot start, the store happens on the calling thread at once, as
 * rt_fold_cache_store. Scopes nest (the outermost _end waits); not
 * thread-safe across threads: each thread has its own scope. A write that
 * fails is dropped, as a failed rt_fold_cache_store is. */
void rt_fold_cache_defer_begin(void);
void rt_fold_cache_defer_end(void);
/* Stores t as the entry of `key` under dir now or in the current scope's
 * writer (above); the writer holds a reference to t until it is written.
 * Errors (synchronous stores only) as rt_fold_cache_store. */
RT_MUST_USE_RESULT rt_status_t rt_fold_cache_store_deferred(const char *dir, rt_fold_key_t key,
                                                            rt_tensor_t *t);

/* XXH3-128 of n bytes, as a key (content hashes). */
rt_fold_key_t rt_fold_hash_bytes(const void *data, size_t n);

#endif /* RT_PASSES_FOLD_CACHE_H_ */
