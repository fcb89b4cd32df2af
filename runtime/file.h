/* Whole-file reading and writing with errors that name the path and the
 * OS reason: NOT_FOUND when the file (or a folder on its path) does not
 * exist, IO_ERROR for every other OS failure. */
#ifndef RT_RUNTIME_FILE_H_
#define RT_RUNTIME_FILE_H_

#include "rt/status.h"

/* Reads a whole file into a rt_mem_alloc'd buffer with a NUL byte after the
 * contents (not counted in *out_size). Files larger than max_size are
 * RESOURCE_EXHAUSTED. */
RT_MUST_USE_RESULT rt_status_t rt_file_read(const char *path, size_t max_size,
                                            char **out_data, size_t *out_size);
/* Writes (creates or truncates) a whole file. */
RT_MUST_USE_RESULT rt_status_t rt_file_write(const char *path,
                                             const void *data, size_t size);

#endif /* RT_RUNTIME_FILE_H_ */
