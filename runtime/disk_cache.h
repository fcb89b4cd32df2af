/* The on-disk cache folder the library's caches share (the JIT's kernel
 * cache, jit/cache.h, and FoldConstant's cache of large folded constants,
 * passes/fold_cache.h): where it is, making it, the build id that keys
 * entries to the library that wrote them, and whole-entry writes that
 * readers never see half done (a temporary file renamed into place).
 * No LLVM and no IR: plain files. */
#ifndef RT_RUNTIME_DISK_CACHE_H_
#define RT_RUNTIME_DISK_CACHE_H_

#include <stddef.h>

#include "rt/status.h"

/* The cache folder: $RELAYRT_CACHE_DIR if set ("" / "off" / "0" disable
 * the disk caches), else $XDG_CACHE_HOME/relayrt, else
 * $HOME/.cache/relayrt. *out_dir is rt_mem_alloc'd, or NULL when the disk
 * caches are off. Read on every call (not cached), so a process may
 * change it. */
RT_MUST_USE_RESULT rt_status_t rt_cache_dir(char **out_dir);

/* mkdir -p, owner-only (0700) for the folders it makes. */
RT_MUST_USE_RESULT rt_status_t rt_cache_make_dirs(const char *dir);

/* The GNU build id of the binary holding this code, as hex (at most 40
 * characters and a NUL), or "unknown": a rebuilt library never reads an
 * entry an older one wrote. */
void rt_cache_build_id(char hex[41]);

/* One piece of an entry to write. */
typedef struct rt_cache_part_t {
  const void *data;
  size_t size;
} rt_cache_part_t;

/* Writes parts[0 .. n) to `path` (its folder made first) through a
 * temporary file in the same folder renamed into place, so a reader sees
 * the old entry, no entry or the whole new one. An entry of 1 MiB or more
 * is written with O_DIRECT (not through the page cache) where the
 * filesystem allows it, else buffered. The parts stay the caller's.
 * IO_ERROR naming the file (RESOURCE_EXHAUSTED with no memory for the
 * path). */
RT_MUST_USE_RESULT rt_status_t rt_cache_write_entry(const char *dir, const char *path,
                                                    const rt_cache_part_t *parts, int32_t n);

#endif /* RT_RUNTIME_DISK_CACHE_H_ */
