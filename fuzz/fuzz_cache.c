/* libFuzzer target for the disk kernel cache's entry reader (jit/cache.c:
 * rt_jit_cache_parse, the checks rt_jit_cache_read makes on a file's
 * bytes). The input is one entry file (jit/cache.h's layout). It is
 * checked twice against a kernel id taken from its own header (key,
 * identity hash and the identity bytes it claims, as far as they lie in
 * the input), so a mutation can get past the id checks:
 *  - as it is (the stored checksum must match: rarely, for a mutation);
 *  - with the checksum at offset 64 recomputed over the payload, so the
 *    length, count and copy code behind the checksum is reached too.
 * And once against a fixed id that no input matches: never found.
 * An entry that is found must be the bytes the header says (object, IR
 * text NUL-terminated). Seeds: fuzz/corpus/cache. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cache.h"
#include "runtime/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEADER 72

static uint64_t le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static uint32_t le32(const uint8_t *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= (uint32_t)p[i] << (8 * i);
  return v;
}

static void check(const uint8_t *data, size_t size, const rt_jit_kernel_id_t *id) {
  rt_jit_cache_entry_t e;
  bool found = true;
  rt_status_t status = rt_jit_cache_parse(data, size, id, &e, &found);
  if (status) {
    rt_status_free(status);
    if (found || e.object || e.ll) abort();
    return;
  }
  if (!found) {
    if (e.object || e.ll) abort();
    return;
  }
  /* Found: the header's lengths add up to the input, and the parts are
   * copies of its bytes. */
  if (size < HEADER) abort();
  uint64_t idn = le64(data + 40), objn = le64(data + 48), lln = le64(data + 56);
  if (HEADER + idn + objn + lln != size || objn != e.object_len || objn == 0) abort();
  if (e.nin != (int32_t)le32(data + 32) || e.nout != (int32_t)le32(data + 36)) abort();
  if (e.nin < 0 || e.nin > 4096 || e.nout < 1 || e.nout > 4096) abort();
  if (memcmp(e.object, data + HEADER + idn, objn) != 0) abort();
  if (lln) {
    if (!e.ll || e.ll_len != lln || e.ll[lln] != '\0' ||
        memcmp(e.ll, data + HEADER + idn + objn, lln) != 0) {
      abort();
    }
  } else if (e.ll || e.ll_len) {
    abort();
  }
  rt_jit_cache_entry_deinitialize(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static uint8_t none = 0;
  /* A fixed id: key and identity hash 0, identity "x". */
  rt_jit_kernel_id_t fixed = {.key = 0, .identity_hash = 0, .identity = (uint8_t *)"x",
                              .identity_len = 1};
  check(data, size, &fixed);

  /* The id the input claims. */
  rt_jit_kernel_id_t id = {.identity = &none, .identity_len = 0};
  if (size >= HEADER) {
    id.key = le64(data + 16);
    id.identity_hash = le64(data + 24);
    uint64_t idn = le64(data + 40);
    if (idn <= size - HEADER) {
      id.identity = (uint8_t *)(data + HEADER);
      id.identity_len = (size_t)idn;
    }
  }
  check(data, size, &id);

  if (size < HEADER) return 0;
  /* The same with a checksum that matches. */
  uint8_t *copy = rt_mem_alloc(size);
  if (!copy) return 0;
  memcpy(copy, data, size);
  uint64_t sum = rt_jit_checksum(copy + HEADER, size - HEADER);
  for (int i = 0; i < 8; ++i) copy[64 + i] = (uint8_t)(sum >> (8 * i));
  if (id.identity != &none) id.identity = copy + HEADER;
  check(copy, size, &id);
  rt_mem_free(copy);
  return 0;
}
