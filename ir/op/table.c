/* The op table: the built-in ops expanded from ir/ops.def, lookup by name,
 * and run-time registration.
 *
 * Built-ins live in one static array indexed by rt_op_id_t. Their defaults
 * are parsed from the schemas' default texts once (pthread_once) into
 * static storage: one flat value array and a process-lifetime arena for
 * array/string payloads. A name index (sorted pointers + bsearch) is built
 * at the same time. Registered ops are rt_mem_alloc'd records in a uthash keyed
 * by name plus an array in registration order, guarded by a mutex; they
 * live until the process exits (never freed: an op may be referenced by
 * any module built after it, and ops are few and small). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* uthash must not exit on out of memory: with HASH_NONFATAL_OOM a failed
 * add leaves the item out of the table and calls uthash_nonfatal_oom. */
static int g_hash_oom;
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) (g_hash_oom = 1)
#include "runtime/uthash_rt.h"

#include "ir/ir.h"
#include "ir/op/op_impl.h"
#include "ir/op/schema.h"
#include "runtime/assert.h"

/* The schema of ops without attributes: just the terminator. */
static const rt_attr_field_t schema_none[] = {{NULL, RT_ATTR_K_ANY, NULL, 0}};

#define NFIELDS(fields) ((int32_t)RT_COUNTOF(schema_##fields) - 1)

static rt_ir_op_t g_builtin[] = {
#define RT_OP(ID, NAME, NIN, PAT, FIELDS, REL, FAMILY, DOC) \
  [RT_OP_##ID] = {                                  \
      .id = RT_OP_##ID,                             \
      .name = NAME,                                 \
      .num_inputs = NIN,                            \
      .pattern = RT_OP_PATTERN_##PAT,               \
      .fields = schema_##FIELDS,                    \
      .num_fields = NFIELDS(FIELDS),                \
      .type_rel = rt_ir_##REL,                      \
      .doc = DOC,                                   \
  },
#include "ir/ops.def"
#undef RT_OP
};
_Static_assert(RT_COUNTOF(g_builtin) == RT_OP_COUNT,
               "g_builtin must have one entry per ops.def line");

enum {
  TOTAL_FIELDS = 0
#define RT_OP(ID, NAME, NIN, PAT, FIELDS, REL, FAMILY, DOC) +NFIELDS(FIELDS)
#include "ir/ops.def"
#undef RT_OP
};

static rt_attr_value_t g_defaults[TOTAL_FIELDS > 0 ? TOTAL_FIELDS : 1];
static rt_arena_t g_default_arena;
static const rt_ir_op_t *g_by_name[RT_OP_COUNT];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static int compare_op_names(const void *a, const void *b) {
  const rt_ir_op_t *x = *(const rt_ir_op_t *const *)a;
  const rt_ir_op_t *y = *(const rt_ir_op_t *const *)b;
  return strcmp(x->name, y->name);
}

/* Parses the defaults of `n` fields into out (NONE for required ones). */
static rt_status_t parse_defaults(rt_arena_t *arena, const rt_ir_op_t *op,
                                  const rt_attr_field_t *fields, int32_t n,
                                  rt_attr_value_t *out) {
  for (int32_t i = 0; i < n; ++i) {
    out[i].kind = RT_ATTR_NONE;
    if (!fields[i].default_text) continue;
    rt_attr_value_t raw;
    RT_RETURN_IF_ERROR_ANNOTATE(
        rt_attr_value_parse(arena, fields[i].default_text, &raw),
        "default of attribute '%s' of %s", fields[i].name, op->name);
    RT_RETURN_IF_ERROR_ANNOTATE(
        rt_attr_value_convert(arena, op->name, &fields[i], &raw, &out[i]),
        "default of attribute '%s'", fields[i].name);
  }
  return RT_OK;
}

static void init_builtins(void) {
  rt_arena_initialize(rt_allocator_system(), &g_default_arena);
  int32_t next = 0;
  for (int32_t id = 0; id < RT_OP_COUNT; ++id) {
    rt_ir_op_t *op = &g_builtin[id];
    op->defaults = &g_defaults[next];
    rt_status_t st = parse_defaults(&g_default_arena, op, op->fields,
                                    op->num_fields, &g_defaults[next]);
    /* Schemas are ours: a bad default is a bug (the table test checks every
     * default parses); out of memory leaves NONE values behind. */
    RT_ASSERT(st == RT_OK || rt_status_code(st) == RT_STATUS_RESOURCE_EXHAUSTED);
    rt_status_free(st);
    next += op->num_fields;
    g_by_name[id] = op;
  }
  qsort(g_by_name, RT_OP_COUNT, sizeof g_by_name[0], compare_op_names);
}

static void ensure_init(void) { pthread_once(&g_once, init_builtins); }

/* ---- registered ops ----------------------------------------------------- */

typedef struct registered_t {
  rt_ir_op_t op;
  rt_arena_t arena; /* names, fields, defaults */
  UT_hash_handle hh;
} registered_t;

static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
static registered_t *g_registered_by_name; /* uthash head */
static registered_t **g_registered;        /* registration order */
static int32_t g_num_registered, g_cap_registered;

static const rt_ir_op_t *find_builtin(const char *name, size_t len) {
  size_t lo = 0, hi = RT_OP_COUNT;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const char *s = g_by_name[mid]->name;
    int c = strncmp(s, name, len);
    if (c == 0 && s[len] != '\0') c = 1; /* s is longer: it sorts after */
    if (c == 0) return g_by_name[mid];
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return NULL;
}

const rt_ir_op_t *rt_ir_op_lookup(const char *name, size_t len) {
  if (!name) return NULL;
  ensure_init();
  const rt_ir_op_t *op = find_builtin(name, len);
  if (op) return op;
  pthread_mutex_lock(&g_mutex);
  registered_t *r = NULL;
  if (len <= (size_t)UINT32_MAX) HASH_FIND(hh, g_registered_by_name, name, len, r);
  pthread_mutex_unlock(&g_mutex);
  return r ? &r->op : NULL;
}

const rt_ir_op_t *rt_ir_op_builtin(rt_op_id_t id) {
  ensure_init();
  if ((int32_t)id < 0 || id >= RT_OP_COUNT) {
    RT_ASSERT(!"built-in op id out of range");
    return NULL;
  }
  return &g_builtin[id];
}

int32_t rt_ir_op_count(void) {
  ensure_init();
  pthread_mutex_lock(&g_mutex);
  int32_t n = RT_OP_COUNT + g_num_registered;
  pthread_mutex_unlock(&g_mutex);
  return n;
}

const rt_ir_op_t *rt_ir_op_at(int32_t index) {
  ensure_init();
  if (index < 0) return NULL;
  if (index < RT_OP_COUNT) return &g_builtin[index];
  const rt_ir_op_t *op = NULL;
  pthread_mutex_lock(&g_mutex);
  if (index - RT_OP_COUNT < g_num_registered) {
    op = &g_registered[index - RT_OP_COUNT]->op;
  }
  pthread_mutex_unlock(&g_mutex);
  return op;
}

static rt_status_t arena_strdup(rt_arena_t *arena, const char *s,
                                const char **out) {
  char *copy = NULL;
  RT_RETURN_IF_ERROR(rt_arena_strndup(arena, s, strlen(s), &copy));
  *out = copy;
  return RT_OK;
}

/* Copies def into r (names, fields, parsed defaults). */
static rt_status_t fill_registered(registered_t *r, const rt_ir_op_t *def) {
  rt_arena_t *arena = &r->arena;
  r->op = *def;
  RT_RETURN_IF_ERROR(arena_strdup(arena, def->name, &r->op.name));
  RT_RETURN_IF_ERROR(arena_strdup(arena, def->doc ? def->doc : "", &r->op.doc));
  r->op.fields = NULL;
  r->op.defaults = NULL;
  const int32_t n = def->num_fields;
  if (n == 0) return RT_OK;
  rt_attr_field_t *fields = NULL;
  rt_attr_value_t *defaults = NULL;
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(arena, (size_t)n, sizeof *fields,
                                          (void **)&fields));
  RT_RETURN_IF_ERROR(rt_arena_alloc_array(arena, (size_t)n, sizeof *defaults,
                                          (void **)&defaults));
  for (int32_t i = 0; i < n; ++i) {
    const rt_attr_field_t *f = &def->fields[i];
    if (!f->name || !*f->name) {
      return RT_STATUS(INVALID_ARGUMENT, "op '%s': attribute %d has no name",
                       def->name, (int)i);
    }
    for (int32_t j = 0; j < i; ++j) {
      if (strcmp(def->fields[j].name, f->name) == 0) {
        return RT_STATUS(INVALID_ARGUMENT, "op '%s': attribute '%s' declared twice",
                         def->name, f->name);
      }
    }
    fields[i] = *f;
    RT_RETURN_IF_ERROR(arena_strdup(arena, f->name, &fields[i].name));
    if (f->default_text) {
      RT_RETURN_IF_ERROR(
          arena_strdup(arena, f->default_text, &fields[i].default_text));
    }
  }
  r->op.fields = fields;
  RT_RETURN_IF_ERROR(parse_defaults(arena, &r->op, fields, n, defaults));
  r->op.defaults = defaults;
  return RT_OK;
}

rt_status_t rt_ir_op_register(const rt_ir_op_t *def, const rt_ir_op_t **out_op) {
  RT_ASSERT(def && out_op);
  *out_op = NULL;
  if (!def->name || !*def->name) {
    return RT_STATUS(INVALID_ARGUMENT, "an op needs a name");
  }
  if (!def->type_rel) {
    return RT_STATUS(INVALID_ARGUMENT, "op '%s' needs a type relation", def->name);
  }
  if (def->num_inputs < 0 || def->num_fields < 0 ||
      (def->num_fields > 0 && !def->fields)) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "op '%s': bad num_inputs (%d) or fields (%d)", def->name,
                     (int)def->num_inputs, (int)def->num_fields);
  }
  ensure_init();
  size_t len = strlen(def->name);
  if (find_builtin(def->name, len)) {
    return RT_STATUS(ALREADY_EXISTS, "op '%s' is a built-in op", def->name);
  }

  registered_t *r = rt_mem_calloc(1, sizeof *r);
  if (!r) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory registering '%s'", def->name);
  rt_arena_initialize(rt_allocator_system(), &r->arena);
  rt_status_t status = fill_registered(r, def);

  if (status == RT_OK) {
    pthread_mutex_lock(&g_mutex);
    registered_t *existing = NULL;
    HASH_FIND(hh, g_registered_by_name, r->op.name, len, existing);
    if (existing) {
      status = RT_STATUS(ALREADY_EXISTS, "op '%s' is already registered", def->name);
    } else if (g_num_registered == g_cap_registered) {
      int32_t cap = g_cap_registered ? g_cap_registered * 2 : 16;
      registered_t **grown = rt_mem_realloc(g_registered, (size_t)cap * sizeof *grown);
      if (!grown) {
        status = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory registering '%s'", def->name);
      } else {
        g_registered = grown;
        g_cap_registered = cap;
      }
    }
    if (status == RT_OK) {
      g_hash_oom = 0;
      HASH_ADD_KEYPTR(hh, g_registered_by_name, r->op.name, len, r);
      if (g_hash_oom) {
        status = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory registering '%s'", def->name);
      } else {
        r->op.id = RT_OP_COUNT + g_num_registered;
        g_registered[g_num_registered++] = r;
        *out_op = &r->op;
      }
    }
    pthread_mutex_unlock(&g_mutex);
  }
  if (status != RT_OK) {
    rt_arena_deinitialize(&r->arena);
    rt_mem_free(r);
  }
  return status;
}
