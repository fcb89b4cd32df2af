/* Table-driven type-relation cases for the ir-op tests: a case names an op,
 * its argument types in a compact spec, its attributes as Relay text and
 * the expected result type as rt_ir_type_print prints it (or "error:"
 * followed by a substring of the expected INVALID_ARGUMENT message).
 *
 * Type spec: `float32[1,3,?]` is a tensor (`float32[]` 0-d), `(T; T)` a
 * tuple, `List(T)` and `Option(T)` the built-in ADTs; arguments are separated by `|`. Attributes: `key=value` pairs
 * separated by `;`, each value parsed with rt_attr_value_parse. Every
 * expected string is worked out by hand from TVM's rules. */
#ifndef RT_TEST_IR_OP_OP_CASE_H_
#define RT_TEST_IR_OP_OP_CASE_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "test_util.h"
#include "runtime/mem.h"

typedef struct op_case_t {
  const char *op;
  const char *args;
  const char *attrs;
  const char *expect;
} op_case_t;

static void skip_ws(const char **p) {
  while (**p == ' ') (*p)++;
}

/* type := dtype '[' dims ']' | '(' type (';' type)* ')'
 *       | ('List' | 'Option') '(' type ')' */
static rt_ir_type_t *spec_type(rt_module_t *m, const char **p) {
  skip_ws(p);
  rt_ir_type_t *t = NULL;
  if (strncmp(*p, "List(", 5) == 0 || strncmp(*p, "Option(", 7) == 0) {
    rt_ir_type_kind_t kind = **p == 'L' ? RT_IR_TYPE_LIST : RT_IR_TYPE_OPTION;
    *p += kind == RT_IR_TYPE_LIST ? 5 : 7;
    rt_ir_type_t *elem = spec_type(m, p);
    skip_ws(p);
    assert_true(**p == ')');
    (*p)++;
    assert_ok(rt_ir_adt_type(m, kind, elem, &t));
    return t;
  }
  if (**p == '(') {
    rt_ir_type_t *fields[16];
    int32_t n = 0;
    (*p)++;
    skip_ws(p);
    while (**p != ')') {
      assert_true(n < 16);
      fields[n++] = spec_type(m, p);
      skip_ws(p);
      if (**p == ';') (*p)++;
      skip_ws(p);
    }
    (*p)++;
    assert_ok(rt_ir_tuple_type(m, n, fields, &t));
    return t;
  }
  const char *name = *p;
  while (**p && **p != '[') (*p)++;
  assert_true(**p == '[');
  rt_dtype_t dt;
  assert_ok(rt_dtype_parse(name, (size_t)(*p - name), &dt));
  (*p)++;
  int64_t shape[RT_TENSOR_MAX_RANK];
  int32_t rank = 0;
  skip_ws(p);
  while (**p != ']') {
    if (**p == '?') {
      shape[rank++] = RT_DIM_ANY;
      (*p)++;
    } else {
      char *end = NULL;
      shape[rank++] = strtoll(*p, &end, 10);
      assert_true(end != *p);
      *p = end;
    }
    skip_ws(p);
    if (**p == ',') (*p)++;
    skip_ws(p);
  }
  (*p)++;
  assert_ok(rt_ir_tensor_type(m, dt, rank, shape, &t));
  return t;
}

/* Runs one case; returns an error text (malloc'd) or NULL when it passes. */
static char *run_case(const op_case_t *c) {
  rt_module_t *m = NULL;
  assert_ok(rt_ir_module_create(rt_allocator_system(), &m));
  char *failure = NULL;
  char got[1024] = "";
  const rt_ir_op_t *op = rt_ir_op_lookup(c->op, strlen(c->op));
  if (!op) {
    snprintf(got, sizeof got, "<no such op>");
  } else {
    rt_ir_type_t *args[8];
    int32_t nargs = 0;
    const char *p = c->args;
    skip_ws(&p);
    while (*p) {
      assert_true(nargs < 8);
      args[nargs++] = spec_type(m, &p);
      skip_ws(&p);
      if (*p == '|') p++;
      skip_ws(&p);
    }
    /* Attributes: split a copy at top-level ';'. */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", c->attrs ? c->attrs : "");
    const char *keys[32];
    rt_attr_value_t values[32];
    int32_t nattrs = 0;
    rt_status_t st = RT_OK;
    for (char *item = strtok(buf, ";"); item && !st; item = strtok(NULL, ";")) {
      char *eq = strchr(item, '=');
      assert_non_null(eq);
      *eq = '\0';
      char *key = item;
      while (*key == ' ') key++;
      char *kend = key + strlen(key);
      while (kend > key && kend[-1] == ' ') *--kend = '\0';
      char *key_copy = NULL;
      assert_ok(rt_arena_strndup(&m->arena, key, strlen(key), &key_copy));
      keys[nattrs] = key_copy;
      st = rt_attr_value_parse(&m->arena, eq + 1, &values[nattrs]);
      nattrs++;
    }
    rt_ir_attrs_t *attrs = NULL;
    rt_ir_span_t span = {0};
    if (!st) st = rt_ir_op_attrs(m, span, op, nattrs, keys, values, &attrs);
    rt_ir_type_t *out = NULL;
    if (!st) {
      rt_ir_rel_ctx_t ctx = {m, op, attrs, nargs, args};
      st = op->type_rel(&ctx, &out);
    }
    if (st) {
      snprintf(got, sizeof got, "error:%s", rt_status_message(st));
      rt_status_free(st);
    } else {
      rt_strbuf_t sb;
      rt_strbuf_initialize(&sb);
      rt_ir_type_print(out, &sb);
      snprintf(got, sizeof got, "%s", sb.data ? sb.data : "");
      rt_strbuf_deinitialize(&sb);
    }
  }
  bool ok;
  if (strncmp(c->expect, "error:", 6) == 0) {
    ok = strncmp(got, "error:", 6) == 0 && strstr(got + 6, c->expect + 6) != NULL;
  } else {
    ok = strcmp(got, c->expect) == 0;
  }
  if (!ok) {
    size_t n = strlen(got) + strlen(c->expect) + strlen(c->op) + strlen(c->args) +
               strlen(c->attrs ? c->attrs : "") + 64;
    failure = rt_mem_alloc(n);
    snprintf(failure, n, "%s(%s; %s)\n    expected: %s\n    got:      %s", c->op,
             c->args, c->attrs ? c->attrs : "", c->expect, got);
  }
  rt_module_release(m);
  return failure;
}

static void run_cases(const op_case_t *cases, size_t n) {
  int failures = 0;
  for (size_t i = 0; i < n; ++i) {
    char *f = run_case(&cases[i]);
    if (f) {
      fprintf(stderr, "case %zu: %s\n", i, f);
      rt_mem_free(f);
      failures++;
    }
  }
  if (failures) fail_msg("%d of %zu cases failed", failures, n);
}

#endif /* RT_TEST_IR_OP_OP_CASE_H_ */
