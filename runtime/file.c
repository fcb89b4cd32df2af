/* Whole-file I/O (file.h). Reading goes through a growing buffer rather
 * than trusting the size stat reports, so pipes and files that change
 * while read both work; the buffer keeps a NUL after the contents for text
 * parsers. Errors name the path and the OS reason (strerror_r, the XSI
 * version, which is thread-safe); a missing file is NOT_FOUND, every other
 * OS failure IO_ERROR. */
#include "runtime/file.h"
#include "runtime/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rt_status_t os_error(int err, const char *what, const char *path) {
  char reason[128];
  if (strerror_r(err, reason, sizeof reason) != 0) {
    snprintf(reason, sizeof reason, "error %d", err);
  }
  if (err == ENOENT) return RT_STATUS(NOT_FOUND, "cannot %s '%s': %s", what, path, reason);
  return RT_STATUS(IO_ERROR, "cannot %s '%s': %s", what, path, reason);
}

rt_status_t rt_file_read(const char *path, size_t max_size, char **out_data,
                         size_t *out_size) {
  FILE *f = fopen(path, "rb");
  if (!f) return os_error(errno, "open", path);
  rt_status_t status = RT_OK;
  size_t cap = 4096, len = 0;
  char *data = rt_mem_alloc(cap);
  if (!data) {
    status = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory reading '%s'", path);
    goto cleanup;
  }
  for (;;) {
    if (len + 1 >= cap) {
      size_t grown_cap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
      char *grown = rt_mem_realloc(data, grown_cap);
      if (!grown) {
        status = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory reading '%s' (%zu bytes)",
                           path, len);
        goto cleanup;
      }
      data = grown;
      cap = grown_cap;
    }
    size_t got = fread(data + len, 1, cap - 1 - len, f);
    len += got;
    if (len > max_size) {
      status = RT_STATUS(RESOURCE_EXHAUSTED, "'%s' is larger than the %zu-byte limit",
                         path, max_size);
      goto cleanup;
    }
    if (got == 0) {
      if (ferror(f)) status = os_error(errno, "read", path);
      break;
    }
  }
cleanup:
  fclose(f);
  if (status) {
    rt_mem_free(data);
    return status;
  }
  data[len] = '\0';
  *out_data = data;
  *out_size = len;
  return RT_OK;
}

rt_status_t rt_file_write(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return os_error(errno, "create", path);
  rt_status_t status = RT_OK;
  if (size && fwrite(data, 1, size, f) != size) status = os_error(errno, "write", path);
  if (fclose(f) != 0 && !status) status = os_error(errno, "write", path);
  return status;
}
