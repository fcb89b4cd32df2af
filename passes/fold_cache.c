/* FoldConstant's disk cache of large folded constants
 * (passes/fold_cache.h): entries, their keys, and the deferred stores (a
 * per-thread scope whose one writer thread takes entries from a FIFO
 * under a mutex and condition variable). */
#include "passes/fold_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "runtime/disk_cache.h"
#include "runtime/mem.h"

#define HEADER 4096
#define FORMAT 1
static const char kMagic[8] = {'R', 'T', 'F', 'O', 'L', 'D', '0', '1'};

rt_fold_key_t rt_fold_hash_bytes(const void *data, size_t n) {
  XXH128_hash_t h = XXH3_128bits(data, n);
  return (rt_fold_key_t){h.low64, h.high64};
}

static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

/* The header for (key, dtype, shape, bytes): 0..7 magic, 8 format, 16 key
 * lo, 24 key hi, 32 dtype code/bits/lanes, 40 rank, 48 data bytes, 56..
 * the dims; the rest zero. */
static void make_header(uint8_t *h, rt_fold_key_t key, rt_dtype_t dt, int32_t rank,
                        const int64_t *shape, uint64_t bytes) {
  memset(h, 0, HEADER);
  memcpy(h, kMagic, 8);
  put_u64(h + 8, FORMAT);
  put_u64(h + 16, key.lo);
  put_u64(h + 24, key.hi);
  put_u64(h + 32, (uint64_t)dt.code | (uint64_t)dt.bits << 8 | (uint64_t)dt.lanes << 16);
  put_u64(h + 40, (uint64_t)rank);
  put_u64(h + 48, bytes);
  for (int32_t d = 0; d < rank; ++d) put_u64(h + 56 + 8 * d, (uint64_t)shape[d]);
}

static rt_status_t entry_path(const char *dir, rt_fold_key_t key, char **out_dir, char **out) {
  const size_t n = strlen(dir) + 64;
  *out_dir = rt_mem_alloc(n);
  *out = rt_mem_alloc(n);
  if (!*out_dir || !*out) {
    rt_mem_free(*out_dir);
    rt_mem_free(*out);
    return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  }
  snprintf(*out_dir, n, "%s/fold", dir);
  snprintf(*out, n, "%s/fold/%016llx%016llx.rtf", dir, (unsigned long long)key.hi,
           (unsigned long long)key.lo);
  return RT_OK;
}

/* The mapping a tensor over an entry owns. */
typedef struct {
  DLManagedTensorVersioned managed;
  void *map;
  size_t map_size;
  int64_t shape[RT_TENSOR_MAX_RANK];
} mapped_entry;

static void unmap_entry(DLManagedTensorVersioned *m) {
  mapped_entry *e = m->manager_ctx;
  munmap(e->map, e->map_size);
  rt_mem_free(e);
}

rt_status_t rt_fold_cache_load(const char *dir, rt_fold_key_t key, rt_dtype_t dt, int32_t rank,
                               const int64_t *shape, rt_tensor_t **out) {
  *out = NULL;
  if (rank < 0 || rank > RT_TENSOR_MAX_RANK) return RT_OK;
  uint64_t bytes = rt_dtype_size(dt);
  for (int32_t d = 0; d < rank; ++d) bytes *= (uint64_t)shape[d];
  char *folder = NULL, *path = NULL;
  RT_RETURN_IF_ERROR(entry_path(dir, key, &folder, &path));
  rt_mem_free(folder);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  rt_mem_free(path);
  if (fd < 0) return RT_OK;
  struct stat sb;
  uint8_t want[HEADER], got[HEADER];
  make_header(want, key, dt, rank, shape, bytes);
  const bool ok = fstat(fd, &sb) == 0 && (uint64_t)sb.st_size == HEADER + bytes &&
                  pread(fd, got, HEADER, 0) == HEADER && memcmp(want, got, HEADER) == 0;
  void *map = ok ? mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (map == MAP_FAILED) return RT_OK;
  mapped_entry *e = rt_mem_calloc(1, sizeof *e);
  if (!e) {
    munmap(map, (size_t)sb.st_size);
    return RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory mapping a folded constant");
  }
  e->map = map;
  e->map_size = (size_t)sb.st_size;
  memcpy(e->shape, shape, (size_t)rank * sizeof *shape);
  DLManagedTensorVersioned *m = &e->managed;
  m->version.major = DLPACK_MAJOR_VERSION;
  m->version.minor = DLPACK_MINOR_VERSION;
  m->manager_ctx = e;
  m->deleter = unmap_entry;
  m->flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  m->dl_tensor.data = (uint8_t *)map + HEADER;
  m->dl_tensor.device = (DLDevice){kDLCPU, 0};
  m->dl_tensor.ndim = rank;
  m->dl_tensor.dtype = (DLDataType){dt.code, dt.bits, dt.lanes};
  m->dl_tensor.shape = e->shape;
  m->dl_tensor.strides = NULL;
  m->dl_tensor.byte_offset = 0;
  rt_status_t st = rt_tensor_from_dlpack(m, out);
  if (st) unmap_entry(m);
  return st;
}

rt_status_t rt_fold_cache_store(const char *dir, rt_fold_key_t key, const rt_tensor_t *t) {
  if (!rt_tensor_is_compact(t)) return RT_OK;
  char *folder = NULL, *path = NULL;
  RT_RETURN_IF_ERROR(entry_path(dir, key, &folder, &path));
  uint8_t *h = rt_mem_alloc(HEADER);
  rt_status_t st = h ? RT_OK : RT_STATUS(RESOURCE_EXHAUSTED, "%s", "out of memory");
  if (!st) {
    make_header(h, key, rt_tensor_dtype(t), rt_tensor_rank(t), rt_tensor_shape(t),
                rt_tensor_nbytes(t));
    const rt_cache_part_t parts[2] = {{h, HEADER}, {rt_tensor_data(t), rt_tensor_nbytes(t)}};
    st = rt_cache_write_entry(folder, path, parts, 2);
  }
  rt_mem_free(h);
  rt_mem_free(folder);
  rt_mem_free(path);
  return st;
}

/* ---- deferred stores ------------------------------------------------------ */

typedef struct pending_t {
  struct pending_t *next;
  char *dir;
  rt_fold_key_t key;
  rt_tensor_t *tensor; /* a reference */
} pending_t;

typedef struct defer_t {
  int32_t depth;        /* nested _begin calls */
  bool started, failed; /* writer thread running / could not start */
  bool closing;         /* _end: the writer exits once the queue is empty */
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pending_t *head, *tail;
} defer_t;

static _Thread_local defer_t *tl_defer;

static void pending_free(pending_t *p) {
  rt_tensor_release(p->tensor);
  rt_mem_free(p->dir);
  rt_mem_free(p);
}

static void *writer(void *arg) {
  defer_t *d = arg;
  pthread_mutex_lock(&d->mu);
  for (;;) {
    while (!d->head && !d->closing) pthread_cond_wait(&d->cv, &d->mu);
    pending_t *p = d->head;
    if (!p) break;
    d->head = p->next;
    if (!d->head) d->tail = NULL;
    pthread_mutex_unlock(&d->mu);
    /* A cache that cannot be written is no error (as in FoldConstant). */
    rt_status_free(rt_fold_cache_store(p->dir, p->key, p->tensor));
    pending_free(p);
    pthread_mutex_lock(&d->mu);
  }
  pthread_mutex_unlock(&d->mu);
  return NULL;
}

/* Whether the calling thread allocates from the system heap (another
 * allocator may not be thread-safe: then nothing is deferred). */
static bool system_heap(void) {
  const rt_allocator_t current = rt_mem_current(), sys = rt_allocator_system();
  return current.alloc == sys.alloc && current.free == sys.free && current.self == sys.self;
}

void rt_fold_cache_defer_begin(void) {
  if (tl_defer) {
    tl_defer->depth++;
    return;
  }
  /* Under another allocator, or out of memory: no scope, so stores stay
   * synchronous (and the scope costs that allocator nothing). */
  if (!system_heap()) return;
  defer_t *d = rt_mem_calloc(1, sizeof *d);
  if (!d) return;
  d->depth = 1;
  pthread_mutex_init(&d->mu, NULL);
  pthread_cond_init(&d->cv, NULL);
  tl_defer = d;
}

void rt_fold_cache_defer_end(void) {
  defer_t *d = tl_defer;
  if (!d || --d->depth > 0) return;
  tl_defer = NULL;
  if (d->started) {
    pthread_mutex_lock(&d->mu);
    d->closing = true;
    pthread_cond_signal(&d->cv);
    pthread_mutex_unlock(&d->mu);
    pthread_join(d->thread, NULL);
  }
  pthread_cond_destroy(&d->cv);
  pthread_mutex_destroy(&d->mu);
  rt_mem_free(d);
}

rt_status_t rt_fold_cache_store_deferred(const char *dir, rt_fold_key_t key, rt_tensor_t *t) {
  defer_t *d = tl_defer;
  if (!d || d->failed || !system_heap() || !rt_tensor_is_compact(t)) {
    return rt_fold_cache_store(dir, key, t);
  }
  pending_t *p = rt_mem_calloc(1, sizeof *p);
  size_t n = strlen(dir) + 1;
  char *dup = rt_mem_alloc(n);
  if (!p || !dup) {
    rt_mem_free(p);
    rt_mem_free(dup);
    return rt_fold_cache_store(dir, key, t);
  }
  memcpy(dup, dir, n);
  p->dir = dup;
  p->key = key;
  p->tensor = t;
  rt_tensor_retain(t);
  if (!d->started) {
    if (pthread_create(&d->thread, NULL, writer, d) != 0) {
      d->failed = true;
      pending_free(p);
      return rt_fold_cache_store(dir, key, t);
    }
    d->started = true;
  }
  pthread_mutex_lock(&d->mu);
  if (d->tail) {
    d->tail->next = p;
  } else {
    d->head = p;
  }
  d->tail = p;
  pthread_cond_signal(&d->cv);
  pthread_mutex_unlock(&d->mu);
  return RT_OK;
}
