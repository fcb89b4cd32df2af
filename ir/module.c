/* Modules: the arena that owns a program's nodes, the sorted table of global
 * functions, the constants' references, and the public module API
 * (rt_module_parse/print/release; rt_module_load is in backend/load.c,
 * below ir/, because it also reads ONNX, folding with the interpreter). A module is reference-counted
 * and immutable once loaded, so sharing it between threads needs no locks. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "runtime/assert.h"
#include "runtime/mem.h"

rt_status_t rt_ir_module_create(rt_allocator_t allocator, rt_module_t **out_module) {
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_allocator_malloc(allocator, sizeof(rt_module_t), 16, true, &p));
  rt_module_t *m = p;
  atomic_init(&m->refcount, 1);
  m->allocator = allocator;
  rt_arena_initialize(allocator, &m->arena);
  m->next_id = 1;
  *out_module = m;
  return RT_OK;
}

void rt_module_retain(rt_module_t *module) {
  if (module) atomic_fetch_add(&module->refcount, 1);
}

void rt_module_release(rt_module_t *module) {
  if (!module) return;
  if (atomic_fetch_sub(&module->refcount, 1) != 1) return;
  for (int32_t i = 0; i < module->num_constants; ++i) {
    rt_tensor_release(module->constants[i]);
  }
  rt_allocator_t a = module->allocator;
  rt_allocator_free(a, module->constants);
  rt_allocator_free(a, module->globals);
  rt_arena_deinitialize(&module->arena);
  rt_module_t *base = module->base;
  rt_allocator_free(a, module);
  rt_module_release(base);
}

rt_status_t rt_ir_module_derive(rt_module_t *base, rt_module_t **out_module) {
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_create(rt_mem_current(), &m));
  rt_status_t st = RT_OK;
  for (int32_t i = 0; i < base->num_globals && !st; ++i) {
    st = rt_ir_module_add(m, base->globals[i].name, base->globals[i].fn);
  }
  if (st) {
    rt_module_release(m);
    return st;
  }
  m->next_id = base->next_id;
  m->source = base->source;
  m->typed = base->typed;
  rt_module_retain(base);
  m->base = base;
  *out_module = m;
  return RT_OK;
}

/* Index of the first global whose name is >= name. */
static int32_t lower_bound(const rt_module_t *m, const char *name) {
  int32_t lo = 0, hi = m->num_globals;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (strcmp(m->globals[mid].name, name) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

rt_ir_expr_t *rt_ir_module_lookup(const rt_module_t *m, const char *name) {
  int32_t i = lower_bound(m, name);
  if (i < m->num_globals && strcmp(m->globals[i].name, name) == 0) {
    return m->globals[i].fn;
  }
  return NULL;
}

rt_status_t rt_ir_module_add(rt_module_t *m, const char *name, rt_ir_expr_t *fn) {
  RT_ASSERT(fn && fn->kind == RT_IR_FUNCTION);
  int32_t i = lower_bound(m, name);
  if (i < m->num_globals && strcmp(m->globals[i].name, name) == 0) {
    m->globals[i].fn = fn;
    return RT_OK;
  }
  if (m->num_globals == m->cap_globals) {
    int32_t cap = m->cap_globals ? m->cap_globals * 2 : 8;
    void *p = NULL;
    RT_RETURN_IF_ERROR(rt_allocator_malloc(
        m->allocator, (size_t)cap * sizeof(rt_ir_global_t), 8, false, &p));
    if (m->globals) {
      memcpy(p, m->globals, (size_t)m->num_globals * sizeof(rt_ir_global_t));
    }
    rt_allocator_free(m->allocator, m->globals);
    m->globals = p;
    m->cap_globals = cap;
  }
  char *copy = NULL;
  RT_RETURN_IF_ERROR(rt_arena_strndup(&m->arena, name, strlen(name), &copy));
  memmove(&m->globals[i + 1], &m->globals[i],
          (size_t)(m->num_globals - i) * sizeof(rt_ir_global_t));
  m->globals[i].name = copy;
  m->globals[i].fn = fn;
  m->num_globals++;
  return RT_OK;
}

rt_status_t rt_ir_module_set_source(rt_module_t *m, const char *name,
                                    const char *text, size_t size,
                                    const rt_ir_source_t **out_source) {
  void *p = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc(&m->arena, sizeof(rt_ir_source_t), &p));
  rt_ir_source_t *src = p;
  char *name_copy = NULL, *text_copy = NULL;
  RT_RETURN_IF_ERROR(rt_arena_strndup(&m->arena, name, strlen(name), &name_copy));
  RT_RETURN_IF_ERROR(rt_arena_strndup(&m->arena, text, size, &text_copy));
  src->name = name_copy;
  src->text = text_copy;
  src->size = size;
  m->source = src;
  if (out_source) *out_source = src;
  return RT_OK;
}

/* ---- public API ---------------------------------------------------------- */

rt_status_t rt_module_parse(const char *text, size_t size, const char *source_name,
                            rt_module_t **out_module) {
  if (!text && size) return RT_STATUS(INVALID_ARGUMENT, "text is NULL");
  if (size > RT_IR_MAX_SOURCE_BYTES) {
    return RT_STATUS(RESOURCE_EXHAUSTED, "%s: %zu bytes is past the %u-byte limit",
                     source_name ? source_name : "<text>", size,
                     (unsigned)RT_IR_MAX_SOURCE_BYTES);
  }
  rt_module_t *m = NULL;
  RT_RETURN_IF_ERROR(rt_ir_module_create(rt_mem_current(), &m));
  rt_status_t st = rt_ir_parse_module(m, source_name ? source_name : "<text>",
                                      text ? text : "", size);
  if (!st) st = rt_ir_infer_types(m);
  if (st) {
    rt_module_release(m);
    return st;
  }
  *out_module = m;
  return RT_OK;
}

rt_status_t rt_module_parse_with_options(const char *text, size_t size, const char *source_name,
                                         const rt_module_load_options_t *options,
                                         rt_module_t **out_module) {
  rt_mem_scope_t scope;
  rt_mem_scope_enter(&scope, options ? options->allocator : NULL);
  rt_module_t *m = NULL;
  rt_status_t st = rt_module_parse(text, size, source_name, &m);
  if (!st && options && options->num_input_shapes != 0) {
    rt_module_t *bound = NULL;
    st = rt_module_bind_input_shapes(m, options->num_input_shapes, options->input_shapes, &bound);
    rt_module_release(m);
    m = bound;
  }
  if (!st) *out_module = m;
  rt_mem_scope_leave(&scope);
  return st;
}

rt_status_t rt_module_print(const rt_module_t *module, uint32_t flags,
                            char **out_text) {
  size_t len = 0;
  char *text = NULL;
  rt_status_t st = rt_ir_print_module(module, flags, &text, &len);
  return rt_mem_export_text(st, text, out_text);
}

int32_t rt_module_num_functions(const rt_module_t *module) {
  return module->num_globals;
}

const char *rt_module_function_name(const rt_module_t *module, int32_t index) {
  if (index < 0 || index >= module->num_globals) return NULL;
  return module->globals[index].name;
}
