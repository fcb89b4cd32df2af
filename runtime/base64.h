/* Base64 (RFC 4648, standard alphabet, '=' padding), as TVM's metadata
 * section uses for its b64ndarrays. */
#ifndef RT_RUNTIME_BASE64_H_
#define RT_RUNTIME_BASE64_H_

#include "rt/status.h"
#include "runtime/strbuf.h"

/* Appends the encoding of `size` bytes to `out`. */
void rt_base64_encode(const void *bytes, size_t size, rt_strbuf_t *out);

/* Decodes `len` chars into a rt_mem_alloc'd buffer (caller frees). Characters
 * outside the alphabet, bad padding or a length not a multiple of 4 are
 * INVALID_ARGUMENT naming the offset. */
RT_MUST_USE_RESULT rt_status_t rt_base64_decode(const char *text, size_t len,
                                                uint8_t **out_bytes,
                                                size_t *out_size);

#endif /* RT_RUNTIME_BASE64_H_ */
