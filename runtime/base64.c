/* Base64 (RFC 4648 §4: standard alphabet, '=' padding), as TVM encodes
 * b64ndarrays. The decoder is strict: the length must be a multiple of 4,
 * '=' may only end the last quantum (one or two of them), and any other
 * character outside the alphabet -- whitespace included -- is an error
 * naming its offset. Unused low bits of a padded quantum are ignored, as
 * most decoders (and Python's) do. */
#include "runtime/base64.h"
#include "runtime/mem.h"

#include <stdlib.h>

static const char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void rt_base64_encode(const void *bytes, size_t size, rt_strbuf_t *out) {
  const uint8_t *b = bytes;
  size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    uint32_t v = ((uint32_t)b[i] << 16) | ((uint32_t)b[i + 1] << 8) | b[i + 2];
    char q[4] = {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63],
                 kAlphabet[(v >> 6) & 63], kAlphabet[v & 63]};
    rt_strbuf_append(out, q, 4);
  }
  if (size - i == 1) {
    uint32_t v = (uint32_t)b[i] << 16;
    char q[4] = {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], '=', '='};
    rt_strbuf_append(out, q, 4);
  } else if (size - i == 2) {
    uint32_t v = ((uint32_t)b[i] << 16) | ((uint32_t)b[i + 1] << 8);
    char q[4] = {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63],
                 kAlphabet[(v >> 6) & 63], '='};
    rt_strbuf_append(out, q, 4);
  }
}

static int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

rt_status_t rt_base64_decode(const char *text, size_t len, uint8_t **out_bytes,
                             size_t *out_size) {
  if (len % 4 != 0) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "base64 length %zu is not a multiple of 4 (at offset %zu)", len,
                     len - len % 4);
  }
  size_t pad = 0;
  if (len >= 4 && text[len - 1] == '=') pad = text[len - 2] == '=' ? 2 : 1;
  size_t size = len / 4 * 3 - pad;
  uint8_t *out = rt_mem_alloc(size ? size : 1);
  if (!out) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory decoding %zu base64 bytes", len);
  }
  size_t o = 0;
  for (size_t i = 0; i < len; i += 4) {
    bool last = i + 4 == len;
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = text[i + k];
      int s = sextet(c);
      if (s < 0 && c == '=' && last && k >= 4 - pad) s = 0;
      if (s < 0) {
        rt_mem_free(out);
        return RT_STATUS(INVALID_ARGUMENT, "%s in base64 at offset %zu",
                         c == '=' ? "misplaced '='" : "invalid character", i + k);
      }
      v = (v << 6) | (uint32_t)s;
    }
    size_t n = last ? 3 - pad : 3;
    for (size_t k = 0; k < n; ++k) out[o++] = (uint8_t)(v >> (16 - 8 * k));
  }
  *out_bytes = out;
  *out_size = size;
  return RT_OK;
}
