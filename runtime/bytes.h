/* Little-endian byte readers and writers for the binary formats (.npy,
 * NDArray records, param blobs). Internal to runtime/. The formats store
 * payloads little-endian and relayrt copies them raw, so it builds only
 * for little-endian hosts. */
#ifndef RT_RUNTIME_BYTES_H_
#define RT_RUNTIME_BYTES_H_

#include <stdint.h>
#include <string.h>

#include "runtime/strbuf.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "relayrt's file formats assume a little-endian host");

static inline uint16_t rt_le_u16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t rt_le_u32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}

static inline uint64_t rt_le_u64(const uint8_t *p) {
  return (uint64_t)rt_le_u32(p) | ((uint64_t)rt_le_u32(p + 4) << 32);
}

static inline void rt_put_le_u16(rt_strbuf_t *out, uint16_t v) {
  char b[2] = {(char)(v & 0xff), (char)(v >> 8)};
  rt_strbuf_append(out, b, sizeof b);
}

static inline void rt_put_le_u32(rt_strbuf_t *out, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = (char)((v >> (8 * i)) & 0xff);
  rt_strbuf_append(out, b, sizeof b);
}

static inline void rt_put_le_u64(rt_strbuf_t *out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = (char)((v >> (8 * i)) & 0xff);
  rt_strbuf_append(out, b, sizeof b);
}

#endif /* RT_RUNTIME_BYTES_H_ */
