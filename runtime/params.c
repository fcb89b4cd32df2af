/* Parameter sets (include/rt/params.h) and TVM's param blob format.
 *
 * A set is two parallel arrays (names, tensors) in insertion order, grown
 * by doubling through the set's allocator; lookups are linear, which suits
 * the tens-to-hundreds of params a model has. The blob is
 *   u64 0xF7E58D4F05049CB7, u64 reserved,
 *   u64 name count, per name {u64 length, bytes},
 *   u64 array count (= name count), one NDArray record per name.
 * The reader checks each count and length against the bytes left before
 * allocating (a name needs at least its 8-byte length, so a count larger
 * than bytes/8 is rejected at once), rejects names with NUL bytes,
 * duplicate names and trailing bytes, all as DATA_LOSS naming the source
 * and offset. Duplicates are found by sorting name pointers (n log n). */
#include "rt/params.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bytes.h"
#include "runtime/file.h"
#include "runtime/ndarray_blob.h"
#include "runtime/strbuf.h"
#include "runtime/tensor_impl.h"
#include "runtime/mem.h"

struct rt_params_t {
  atomic_int_least32_t refcount;
  rt_allocator_t allocator;
  int32_t count;
  int32_t capacity;
  char **names;          /* allocator-owned, NUL-terminated */
  rt_tensor_t **tensors; /* one reference each */
};

rt_status_t rt_params_create(rt_allocator_t allocator, rt_params_t **out_params) {
  void *mem = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(allocator, sizeof(rt_params_t),
                                         _Alignof(rt_params_t), true, &mem));
  rt_params_t *params = mem;
  atomic_init(&params->refcount, 1);
  params->allocator = allocator;
  *out_params = params;
  return RT_OK;
}

void rt_params_retain(rt_params_t *params) {
  if (params) atomic_fetch_add_explicit(&params->refcount, 1, memory_order_relaxed);
}

void rt_params_release(rt_params_t *params) {
  if (!params) return;
  if (atomic_fetch_sub_explicit(&params->refcount, 1, memory_order_acq_rel) != 1) {
    return;
  }
  for (int32_t i = 0; i < params->count; ++i) {
    rt_allocator_free(params->allocator, params->names[i]);
    rt_tensor_release(params->tensors[i]);
  }
  rt_allocator_free(params->allocator, params->names);
  rt_allocator_free(params->allocator, params->tensors);
  rt_allocator_free(params->allocator, params);
}

/* Makes room for one more entry. */
static rt_status_t grow(rt_params_t *params) {
  if (params->count < params->capacity) return RT_OK;
  if (params->capacity > INT32_MAX / 2) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "too many params (%d)", params->count);
  }
  int32_t capacity = params->capacity ? params->capacity * 2 : 8;
  void *names = NULL, *tensors = NULL;
  rt_status_t status = rt_allocator_malloc(
      params->allocator, (size_t)capacity * sizeof(char *), _Alignof(char *), false,
      &names);
  if (!status) {
    status = rt_allocator_malloc(params->allocator,
                                 (size_t)capacity * sizeof(rt_tensor_t *),
                                 _Alignof(rt_tensor_t *), false, &tensors);
  }
  if (status) {
    rt_allocator_free(params->allocator, names);
    return status;
  }
  if (params->count) {
    memcpy(names, params->names, (size_t)params->count * sizeof(char *));
    memcpy(tensors, params->tensors, (size_t)params->count * sizeof(rt_tensor_t *));
  }
  rt_allocator_free(params->allocator, params->names);
  rt_allocator_free(params->allocator, params->tensors);
  params->names = names;
  params->tensors = tensors;
  params->capacity = capacity;
  return RT_OK;
}

/* Appends an entry taking ownership of `name` and of one tensor reference. */
static rt_status_t append(rt_params_t *params, char *name, rt_tensor_t *tensor) {
  RT_RETURN_IF_ERROR(grow(params));
  params->names[params->count] = name;
  params->tensors[params->count] = tensor;
  params->count++;
  return RT_OK;
}

static rt_status_t copy_name(rt_allocator_t allocator, const char *s, size_t len,
                             char **out_name) {
  void *mem = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(allocator, len + 1, 1, false, &mem));
  char *name = mem;
  memcpy(name, s, len);
  name[len] = '\0';
  *out_name = name;
  return RT_OK;
}

static int32_t find_index(const rt_params_t *params, const char *name) {
  for (int32_t i = 0; i < params->count; ++i) {
    if (strcmp(params->names[i], name) == 0) return i;
  }
  return -1;
}

rt_status_t rt_params_set(rt_params_t *params, const char *name,
                          rt_tensor_t *tensor) {
  if (!name || !tensor) {
    return RT_STATUS(INVALID_ARGUMENT, "rt_params_set needs a name and a tensor");
  }
  int32_t index = find_index(params, name);
  if (index >= 0) {
    rt_tensor_retain(tensor);
    rt_tensor_release(params->tensors[index]);
    params->tensors[index] = tensor;
    return RT_OK;
  }
  char *copy = NULL;
  RT_RETURN_IF_ERROR(copy_name(params->allocator, name, strlen(name), &copy));
  rt_status_t status = append(params, copy, tensor);
  if (status) {
    rt_allocator_free(params->allocator, copy);
    return status;
  }
  rt_tensor_retain(tensor);
  return RT_OK;
}

int32_t rt_params_count(const rt_params_t *params) { return params->count; }

const char *rt_params_name(const rt_params_t *params, int32_t index) {
  return index >= 0 && index < params->count ? params->names[index] : NULL;
}

rt_tensor_t *rt_params_tensor(const rt_params_t *params, int32_t index) {
  return index >= 0 && index < params->count ? params->tensors[index] : NULL;
}

rt_tensor_t *rt_params_find(const rt_params_t *params, const char *name) {
  int32_t index = find_index(params, name);
  return index >= 0 ? params->tensors[index] : NULL;
}

/* ---- the blob ---------------------------------------------------------- */

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DATA_LOSS naming the first name that appears twice, if any. */
static rt_status_t check_duplicates(const rt_params_t *params, const char *src) {
  if (params->count < 2) return RT_OK;
  char **sorted = rt_mem_alloc((size_t)params->count * sizeof(char *));
  if (!sorted) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory checking %d param names",
                     params->count);
  }
  memcpy(sorted, params->names, (size_t)params->count * sizeof(char *));
  qsort(sorted, (size_t)params->count, sizeof(char *), compare_names);
  rt_status_t status = RT_OK;
  for (int32_t i = 1; i < params->count && !status; ++i) {
    if (strcmp(sorted[i - 1], sorted[i]) == 0) {
      status = RT_STATUS(DATA_LOSS, "%s: param name '%.64s' appears twice", src,
                         sorted[i]);
    }
  }
  rt_mem_free(sorted);
  return status;
}

rt_status_t rt_params_read_memory(rt_allocator_t allocator, const void *bytes,
                                  size_t size, const char *source_name,
                                  rt_params_t **out_params) {
  const uint8_t *b = bytes;
  const char *src = source_name ? source_name : "<memory>";
  rt_params_t *params = NULL;
  char **names = NULL; /* names read but not yet paired with a tensor */
  uint64_t name_count = 0, names_read = 0;
  size_t at = 0;
  rt_status_t status = RT_OK;

  if (size < 24) {
    status = RT_STATUS(DATA_LOSS, "%s: truncated param blob (%zu bytes, header needs 24)",
                       src, size);
    goto cleanup;
  }
  if (rt_le_u64(b) != RT_NDARRAY_LIST_MAGIC) {
    status = RT_STATUS(DATA_LOSS, "%s at offset 0: bad param blob magic 0x%016llx "
                       "(want 0x%016llx)", src, (unsigned long long)rt_le_u64(b),
                       (unsigned long long)RT_NDARRAY_LIST_MAGIC);
    goto cleanup;
  }
  name_count = rt_le_u64(b + 16);
  at = 24;
  /* Each name costs at least its 8-byte length, so the names array this
   * allocates is never larger than the blob itself. */
  if (name_count > (size - at) / 8 || name_count > INT32_MAX) {
    status = RT_STATUS(DATA_LOSS, "%s at offset 16: name count %llu cannot fit in "
                       "the %zu bytes left", src, (unsigned long long)name_count,
                       size - at);
    goto cleanup;
  }
  status = rt_params_create(allocator, &params);
  if (status) goto cleanup;
  if (name_count) {
    void *mem = NULL;
    status = rt_allocator_malloc(allocator, (size_t)name_count * sizeof(char *),
                                 _Alignof(char *), true, &mem);
    if (status) goto cleanup;
    names = mem;
  }
  for (names_read = 0; names_read < name_count; ++names_read) {
    if (size - at < 8) {
      status = RT_STATUS(DATA_LOSS, "%s at offset %zu: truncated name length", src, at);
      goto cleanup;
    }
    uint64_t len = rt_le_u64(b + at);
    at += 8;
    if (len > size - at) {
      status = RT_STATUS(DATA_LOSS, "%s at offset %zu: name length %llu runs past the "
                         "end (%zu bytes left)", src, at - 8,
                         (unsigned long long)len, size - at);
      goto cleanup;
    }
    if (memchr(b + at, '\0', (size_t)len)) {
      status = RT_STATUS(DATA_LOSS, "%s at offset %zu: param name contains a NUL byte",
                         src, at);
      goto cleanup;
    }
    status = copy_name(allocator, (const char *)b + at, (size_t)len, &names[names_read]);
    if (status) goto cleanup;
    at += (size_t)len;
  }
  if (size - at < 8) {
    status = RT_STATUS(DATA_LOSS, "%s at offset %zu: truncated array count", src, at);
    goto cleanup;
  }
  uint64_t array_count = rt_le_u64(b + at);
  if (array_count != name_count) {
    status = RT_STATUS(DATA_LOSS, "%s at offset %zu: %llu arrays for %llu names", src,
                       at, (unsigned long long)array_count,
                       (unsigned long long)name_count);
    goto cleanup;
  }
  at += 8;
  for (uint64_t i = 0; i < name_count; ++i) {
    rt_tensor_t *tensor = NULL;
    status = rt_ndarray_blob_read(allocator, b, size, &at, src, &tensor);
    if (status) {
      status = rt_status_annotate(status, "reading param '%.64s'", names[i]);
      goto cleanup;
    }
    status = append(params, names[i], tensor);
    if (status) {
      rt_tensor_release(tensor);
      goto cleanup;
    }
    names[i] = NULL; /* owned by params now */
  }
  if (at != size) {
    status = RT_STATUS(DATA_LOSS, "%s at offset %zu: %zu trailing bytes after the last "
                       "array", src, at, size - at);
    goto cleanup;
  }
  status = check_duplicates(params, src);

cleanup:
  if (names) {
    for (uint64_t i = 0; i < names_read; ++i) rt_allocator_free(allocator, names[i]);
    rt_allocator_free(allocator, names);
  }
  if (status) {
    rt_params_release(params);
    return status;
  }
  *out_params = params;
  return RT_OK;
}

rt_status_t rt_params_read_file(rt_allocator_t allocator, const char *path,
                                rt_params_t **out_params) {
  char *data = NULL;
  size_t size = 0;
  RT_RETURN_IF_ERROR(rt_file_read(path, (size_t)PTRDIFF_MAX, &data, &size));
  rt_status_t status = rt_params_read_memory(allocator, data, size, path, out_params);
  rt_mem_free(data);
  return status;
}

rt_status_t rt_params_write_file(const rt_params_t *params, const char *path) {
  rt_strbuf_t out;
  rt_strbuf_initialize(&out);
  rt_put_le_u64(&out, RT_NDARRAY_LIST_MAGIC);
  rt_put_le_u64(&out, 0);
  rt_put_le_u64(&out, (uint64_t)params->count);
  for (int32_t i = 0; i < params->count; ++i) {
    size_t len = strlen(params->names[i]);
    rt_put_le_u64(&out, (uint64_t)len);
    rt_strbuf_append(&out, params->names[i], len);
  }
  rt_put_le_u64(&out, (uint64_t)params->count);
  for (int32_t i = 0; i < params->count; ++i) {
    rt_ndarray_blob_write(params->tensors[i], &out);
  }
  char *bytes = NULL;
  size_t total = 0;
  rt_status_t status = rt_strbuf_finish(&out, &bytes, &total);
  if (!status) status = rt_file_write(path, bytes, total);
  rt_mem_free(bytes);
  return status;
}
