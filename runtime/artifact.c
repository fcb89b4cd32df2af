/* Exported model libraries: the loader (include/rt/artifact.h), which
 * dlopens the library, checks it (its descriptor, checksum, plan and
 * constants, read by runtime/artifact_format.c, the format's half) and
 * makes graph runtimes (runtime/graph_runtime.c) over its kernels.
 *
 * Trust: nothing in the library's data is used before it is checked
 * (runtime/artifact_format.c says how). Before dlopen, the ELF headers
 * are checked against the file size: glibc maps segments by their headers,
 * and a truncated library would otherwise die of SIGBUS on first touch.
 * Executable code cannot be checked, of course: loading a library runs its
 * initializers, so load only libraries you would link against. A library
 * whose kernels use an ISA extension this CPU lacks is refused.
 *
 * A "vm" model (plan bytes starting RT_ARTIFACT_VM_MAGIC) holds @main's
 * signature and a serialized VM executable: the executable is read and
 * validated once (rt_vm_executable_deserialize) and shared by every
 * runtime, each a register machine (runtime/vm.c) of its own over the
 * library's kernels. Its dynamic kernels are sized by their shape recipes
 * (there is no IR here for a host shape function); a kernel without one
 * fails when it runs, naming itself.
 *
 * The parsed plan is kept as the artifact's description (names, shapes);
 * each runtime parses the plan bytes again into a plan of its own (the
 * graph runtime takes ownership of the plan it runs) and shares the
 * constants by reference. A runtime's inputs, their checks, its busy
 * guard and its outputs are the runner's (runtime/runner.h), the same as
 * the executors'. */
#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt/artifact.h"
#include "runtime/artifact_format.h"
#include "runtime/runner.h"
#include "runtime/thread_pool.h"
#include "runtime/vm.h"
#include "runtime/mem.h"

/* ---- the artifact ----------------------------------------------------------- */

struct rt_artifact_t {
  int32_t refcount;              /* atomic ops via __atomic */
  void *handle;                  /* dlopen */
  char *path;
  const rt_artifact_descriptor_t *desc;
  rt_graph_plan_t info;          /* parsed once: names, shapes (no consts) */
  char **input_names, **output_names;
  rt_tensor_info_t *graph_io;    /* inputs, then outputs (borrowing info's names and shapes) */
  int32_t num_consts;
  rt_tensor_t **consts;          /* shared by every runtime */
  /* "vm" models (is_vm): the signature and the executable (shared). */
  bool is_vm;
  rt_artifact_io_list_t vm_inputs, vm_outputs;
  rt_vm_executable_t vm_exe;
  int32_t vm_main;
};

static int32_t num_in(const rt_artifact_t *a) { return a->is_vm ? a->vm_inputs.count : a->info.num_inputs; }
static int32_t num_out(const rt_artifact_t *a) { return a->is_vm ? a->vm_outputs.count : a->info.num_outputs; }
static const rt_tensor_info_t *inputs_of(const rt_artifact_t *a) {
  return a->is_vm ? a->vm_inputs.io : a->graph_io;
}
static const rt_tensor_info_t *outputs_of(const rt_artifact_t *a) {
  return a->is_vm ? a->vm_outputs.io : a->graph_io + a->info.num_inputs;
}

void rt_artifact_retain(rt_artifact_t *a) { __atomic_add_fetch(&a->refcount, 1, __ATOMIC_RELAXED); }

void rt_artifact_release(rt_artifact_t *a) {
  if (!a || __atomic_sub_fetch(&a->refcount, 1, __ATOMIC_ACQ_REL) != 0) return;
  for (int32_t i = 0; a->consts && i < a->num_consts; ++i) rt_tensor_release(a->consts[i]);
  rt_mem_free(a->consts);
  rt_artifact_free_names(a->input_names, a->info.num_inputs);
  rt_artifact_free_names(a->output_names, a->info.num_outputs);
  rt_mem_free(a->graph_io);
  a->info.num_consts = 0; /* the description holds no tensors */
  rt_graph_plan_deinitialize(&a->info);
  rt_artifact_io_list_deinitialize(&a->vm_inputs);
  rt_artifact_io_list_deinitialize(&a->vm_outputs);
  rt_vm_executable_deinitialize(&a->vm_exe);
  if (a->handle) dlclose(a->handle);
  rt_mem_free(a->path);
  rt_mem_free(a);
}

/* Whether this CPU has ISA extension `name` (GCC's names). false for a
 * name it does not know. */
static bool cpu_has(const char *name, size_t len) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  const struct { const char *name; bool have; } kHave[] = {
      {"sse4.1", __builtin_cpu_supports("sse4.1")},
      {"sse4.2", __builtin_cpu_supports("sse4.2")},
      {"popcnt", __builtin_cpu_supports("popcnt")},
      {"avx", __builtin_cpu_supports("avx")},
      {"avx2", __builtin_cpu_supports("avx2")},
      {"fma", __builtin_cpu_supports("fma")},
      {"bmi", __builtin_cpu_supports("bmi")},
      {"bmi2", __builtin_cpu_supports("bmi2")},
      {"aes", __builtin_cpu_supports("aes")},
      {"pclmul", __builtin_cpu_supports("pclmul")},
      {"avx512f", __builtin_cpu_supports("avx512f")},
      {"avx512vl", __builtin_cpu_supports("avx512vl")},
      {"avx512bw", __builtin_cpu_supports("avx512bw")},
      {"avx512dq", __builtin_cpu_supports("avx512dq")},
      {"avx512cd", __builtin_cpu_supports("avx512cd")},
      {"avx512vnni", __builtin_cpu_supports("avx512vnni")},
      {"avx512bf16", __builtin_cpu_supports("avx512bf16")},
      {"avx512vbmi", __builtin_cpu_supports("avx512vbmi")},
      {"avx512ifma", __builtin_cpu_supports("avx512ifma")},
      {"avx512vbmi2", __builtin_cpu_supports("avx512vbmi2")},
      {"avx512bitalg", __builtin_cpu_supports("avx512bitalg")},
      {"avx512vpopcntdq", __builtin_cpu_supports("avx512vpopcntdq")},
      {"gfni", __builtin_cpu_supports("gfni")},
      {"vpclmulqdq", __builtin_cpu_supports("vpclmulqdq")},
  };
  for (size_t i = 0; i < sizeof kHave / sizeof kHave[0]; ++i) {
    if (strlen(kHave[i].name) == len && strncmp(kHave[i].name, name, len) == 0) return kHave[i].have;
  }
#else
  (void)name;
  (void)len;
#endif
  return false;
}

rt_status_t rt_artifact_check_isa(const char *name, const char *target, const char *isa) {
  for (const char *p = isa; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len && !cpu_has(p, len)) {
      return RT_STATUS(FAILED_PRECONDITION,
                       "%s: its kernels were compiled for %s and use %.*s, which this CPU does "
                       "not have; export the model again for this CPU, or for a target it "
                       "has (relayrt build --config jit.target=avx2|generic ...)",
                       name, target, (int)len, p);
    }
    p = end ? end + 1 : p + len;
  }
  return RT_OK;
}

const char *rt_artifact_target(const rt_artifact_t *a) { return a->desc->target; }

/* A "vm" model: the signature, then the executable, checked against the
 * library's kernel table (the same kernels in the same order) and @main's
 * parameter count. */
static rt_status_t load_vm(rt_artifact_t *a) {
  const rt_artifact_descriptor_t *d = a->desc;
  a->is_vm = true;
  const uint8_t *bytes = NULL;
  size_t size = 0;
  RT_RETURN_IF_ERROR(rt_artifact_parse_vm_plan(a->path, d, &a->vm_inputs, &a->vm_outputs, &bytes,
                                               &size));
  RT_RETURN_IF_ERROR(rt_vm_executable_deserialize(rt_allocator_system(), bytes, size, a->path,
                                                  &a->vm_exe));
  const rt_vm_executable_t *exe = &a->vm_exe;
  if ((uint32_t)exe->num_kernels != d->num_kernels) {
    return RT_STATUS(DATA_LOSS, "%s: corrupt model library: the vm executable calls %d kernels, "
                     "the library has %u", a->path, (int)exe->num_kernels, (unsigned)d->num_kernels);
  }
  for (int32_t k = 0; k < exe->num_kernels; ++k) {
    if (strcmp(exe->kernels[k].name, d->kernel_names[k]) != 0) {
      return RT_STATUS(DATA_LOSS, "%s: corrupt model library: kernel %d is %s in the vm "
                       "executable but %s in the library", a->path, (int)k, exe->kernels[k].name,
                       d->kernel_names[k]);
    }
  }
  RT_RETURN_IF_ERROR_ANNOTATE(rt_vm_executable_lookup(exe, "main", &a->vm_main), "%s", a->path);
  if (exe->functions[a->vm_main].num_params != a->vm_inputs.count) {
    return rt_artifact_corrupt(a->path, "@main's parameters do not match the signature");
  }
  return RT_OK;
}

/* The ELF file header, program and section headers of a 64-bit
 * little-endian shared object, checked against the file's size. */
static rt_status_t check_elf(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return RT_STATUS(NOT_FOUND, "%s: cannot open the model library", path);
  rt_status_t st = RT_OK;
  Elf64_Ehdr eh;
  long size = -1;
  if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (size < (long)sizeof eh || fseek(f, 0, SEEK_SET) != 0 || fread(&eh, sizeof eh, 1, f) != 1 ||
      memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type != ET_DYN ||
      eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 256) {
    st = RT_STATUS(DATA_LOSS, "%s: cannot load the model library: not a 64-bit ELF shared object",
                   path);
  }
  uint64_t fsize = (uint64_t)size;
  if (!st && (eh.e_phoff > fsize || (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > fsize - eh.e_phoff ||
              (eh.e_shnum && (eh.e_shoff > fsize ||
                              (uint64_t)eh.e_shnum * eh.e_shentsize > fsize - eh.e_shoff)))) {
    st = RT_STATUS(DATA_LOSS, "%s: cannot load the model library: truncated (headers past the "
                   "end of the file)", path);
  }
  for (int i = 0; !st && i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (fseek(f, (long)(eh.e_phoff + (uint64_t)i * sizeof ph), SEEK_SET) != 0 ||
        fread(&ph, sizeof ph, 1, f) != 1) {
      st = RT_STATUS(DATA_LOSS, "%s: cannot load the model library: unreadable headers", path);
    } else if (ph.p_type == PT_LOAD && (ph.p_offset > fsize || ph.p_filesz > fsize - ph.p_offset)) {
      st = RT_STATUS(DATA_LOSS, "%s: cannot load the model library: truncated (segment %d ends "
                     "past the end of the file)", path, i);
    }
  }
  fclose(f);
  return st;
}

/* Everything rt_artifact_load checks once a->desc is found: the
 * descriptor and checksum, then the plan and constants, or a vm model's
 * signature and executable. */
static rt_status_t load_described(rt_artifact_t *a) {
  RT_RETURN_IF_ERROR(rt_artifact_check_descriptor(a->desc, a->path));
  const rt_artifact_descriptor_t *d = a->desc;
  if (d->plan_size >= 8 && memcmp(d->plan, RT_ARTIFACT_VM_MAGIC, 8) == 0) return load_vm(a);
  RT_RETURN_IF_ERROR(rt_artifact_parse_plan(a->path, d->plan, (size_t)d->plan_size,
                                            (int32_t)d->num_kernels, &a->info, &a->input_names,
                                            &a->output_names));
  const rt_graph_plan_t *p = &a->info;
  a->graph_io = rt_mem_calloc((size_t)(p->num_inputs + p->num_outputs ? p->num_inputs + p->num_outputs : 1),
                              sizeof *a->graph_io);
  if (!a->graph_io) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory loading %s", a->path);
  for (int32_t i = 0; i < p->num_inputs + p->num_outputs; ++i) {
    bool in = i < p->num_inputs;
    const rt_graph_entry_t *e =
        &p->entries[in ? p->input_entries[i] : p->output_entries[i - p->num_inputs]];
    a->graph_io[i] = (rt_tensor_info_t){in ? a->input_names[i] : a->output_names[i - p->num_inputs],
                                        e->dtype, e->rank, e->shape};
  }
  return rt_artifact_read_consts(d, a->path, &a->info, &a->num_consts, &a->consts);
}

rt_status_t rt_artifact_load(const char *path, rt_artifact_t **out_artifact) {
  *out_artifact = NULL;
  if (!path) return RT_STATUS(INVALID_ARGUMENT, "rt_artifact_load: path is NULL");
  struct stat sb;
  if (stat(path, &sb) != 0) return RT_STATUS(NOT_FOUND, "%s: no such model library", path);
  rt_artifact_t *a = rt_mem_calloc(1, sizeof *a);
  if (!a) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory loading %s", path);
  a->refcount = 1;
  size_t n = strlen(path) + 1;
  a->path = rt_mem_alloc(n);
  rt_status_t st = RT_OK;
  if (!a->path) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory loading %s", path);
  if (!st) st = check_elf(path);
  if (!st) {
    memcpy(a->path, path, n);
    /* dlopen searches the library path for names without a slash. */
    char *p = NULL;
    if (!strchr(path, '/')) {
      p = rt_mem_alloc(n + 2);
      if (p) snprintf(p, n + 2, "./%s", path);
    }
    dlerror();
    a->handle = dlopen(p ? p : path, RTLD_NOW | RTLD_LOCAL);
    rt_mem_free(p);
    if (!a->handle) {
      const char *why = dlerror();
      st = RT_STATUS(DATA_LOSS, "%s: cannot load the model library: %s", path, why ? why : "?");
    }
  }
  if (!st) {
    a->desc = dlsym(a->handle, RT_ARTIFACT_SYMBOL);
    if (!a->desc) {
      st = RT_STATUS(DATA_LOSS, "%s: not a relayrt model library (no symbol %s)", path,
                     RT_ARTIFACT_SYMBOL);
    }
  }
  if (!st) st = load_described(a);
  if (st) {
    rt_artifact_release(a);
    return st;
  }
  *out_artifact = a;
  return RT_OK;
}

rt_status_t rt_artifact_load_descriptor(const rt_artifact_descriptor_t *desc, const char *name,
                                        rt_artifact_t **out_artifact) {
  *out_artifact = NULL;
  rt_artifact_t *a = rt_mem_calloc(1, sizeof *a);
  if (!a) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory loading %s", name);
  a->refcount = 1;
  size_t n = strlen(name) + 1;
  a->path = rt_mem_alloc(n);
  rt_status_t st = RT_OK;
  if (!a->path) {
    st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory loading %s", name);
  } else {
    memcpy(a->path, name, n);
    a->desc = desc;
    st = load_described(a);
  }
  if (st) {
    rt_artifact_release(a);
    return st;
  }
  *out_artifact = a;
  return RT_OK;
}

int32_t rt_artifact_num_inputs(const rt_artifact_t *a) { return num_in(a); }
int32_t rt_artifact_num_outputs(const rt_artifact_t *a) { return num_out(a); }

rt_status_t rt_artifact_input_info(const rt_artifact_t *a, int32_t index, rt_tensor_info_t *out) {
  if (index < 0 || index >= num_in(a)) {
    return RT_STATUS(OUT_OF_RANGE, "input %d does not exist (the model has %d)", (int)index,
                     (int)num_in(a));
  }
  *out = inputs_of(a)[index];
  return RT_OK;
}

rt_status_t rt_artifact_output_info(const rt_artifact_t *a, int32_t index, rt_tensor_info_t *out) {
  if (index < 0 || index >= num_out(a)) {
    return RT_STATUS(OUT_OF_RANGE, "output %d does not exist (the model has %d)", (int)index,
                     (int)num_out(a));
  }
  *out = outputs_of(a)[index];
  return RT_OK;
}

static rt_status_t find_name(char *const *names, int32_t n, const char *what, const char *name,
                             int32_t *out_index) {
  for (int32_t i = 0; name && i < n; ++i) {
    if (strcmp(names[i], name) == 0) {
      *out_index = i;
      return RT_OK;
    }
  }
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  for (int32_t i = 0; i < n; ++i) rt_strbuf_printf(&b, "%s%s", i ? ", " : "", names[i]);
  rt_status_t st = RT_STATUS(NOT_FOUND, "no %s named '%s' (%ss: %s)", what, name ? name : "(null)",
                             what, n && b.data ? b.data : "none");
  rt_strbuf_deinitialize(&b);
  return st;
}

rt_status_t rt_artifact_input_index(const rt_artifact_t *a, const char *name, int32_t *out_index) {
  if (a->is_vm) return find_name(a->vm_inputs.names, a->vm_inputs.count, "input", name, out_index);
  return find_name(a->input_names, a->info.num_inputs, "input", name, out_index);
}

rt_status_t rt_artifact_output_index(const rt_artifact_t *a, const char *name, int32_t *out_index) {
  if (a->is_vm) return find_name(a->vm_outputs.names, a->vm_outputs.count, "output", name, out_index);
  return find_name(a->output_names, a->info.num_outputs, "output", name, out_index);
}

/* ---- runtimes --------------------------------------------------------------- */

/* A graph runtime or a VM over the artifact's kernels, under the runner
 * (runtime/runner.h: inputs, their checks, the busy guard, outputs). */
struct rt_artifact_runtime_t {
  rt_artifact_t *artifact;       /* retained */
  rt_thread_pool_t *pool;
  rt_graph_runtime_t *graph;     /* a graph model */
  rt_vm_t *vm;                   /* a vm model */
  rt_runner_t runner;
};

/* A graph runtime of its own: the plan parsed again (the graph runtime
 * takes it), the artifact's constants shared by reference. */
static rt_status_t graph_runtime_create(rt_artifact_runtime_t *r, int32_t num_threads) {
  const rt_artifact_t *a = r->artifact;
  rt_graph_plan_t plan;
  char **in_names = NULL, **out_names = NULL;
  RT_RETURN_IF_ERROR(rt_artifact_parse_plan(a->path, a->desc->plan, (size_t)a->desc->plan_size,
                                            (int32_t)a->desc->num_kernels, &plan, &in_names,
                                            &out_names));
  rt_artifact_free_names(in_names, plan.num_inputs);
  rt_artifact_free_names(out_names, plan.num_outputs);
  int32_t nc = plan.num_consts;
  plan.num_consts = 0; /* counts the references taken */
  plan.consts = rt_mem_calloc((size_t)(nc ? nc : 1), sizeof(rt_tensor_t *));
  rt_status_t st = RT_OK;
  if (!plan.consts) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating a runtime");
  for (int32_t i = 0; !st && i < nc; ++i) {
    rt_tensor_retain(a->consts[i]);
    plan.consts[plan.num_consts++] = a->consts[i];
  }
  if (!st) st = rt_thread_pool_create(num_threads, &r->pool);
  if (!st) {
    st = rt_graph_runtime_create(rt_allocator_system(), &plan, a->desc->kernels,
                                 (int32_t)a->desc->num_kernels, r->pool, &r->graph);
  }
  /* The graph runtime took the plan (and zeroed it) unless it failed
   * before that; freeing the rest is a no-op otherwise. */
  rt_graph_plan_deinitialize(&plan);
  if (!st) rt_runner_use_graph(&r->runner, r->graph);
  return st;
}

static rt_status_t runtime_create(rt_artifact_runtime_t *r, int32_t num_threads) {
  const rt_artifact_t *a = r->artifact;
  RT_RETURN_IF_ERROR(rt_runner_initialize(&r->runner, RT_RUNNER_API_ARTIFACT, a->path, NULL,
                                          num_in(a), inputs_of(a), num_out(a)));
  if (!a->is_vm) return graph_runtime_create(r, num_threads);
  RT_RETURN_IF_ERROR(rt_thread_pool_create(num_threads, &r->pool));
  RT_RETURN_IF_ERROR(rt_vm_create(rt_allocator_system(), &a->vm_exe, a->desc->kernels, r->pool,
                                  NULL, &r->vm));
  rt_runner_use_vm(&r->runner, r->vm, a->vm_main);
  return RT_OK;
}

rt_status_t rt_artifact_runtime_create(rt_artifact_t *a, int32_t num_threads,
                                       rt_artifact_runtime_t **out_runtime) {
  *out_runtime = NULL;
  if (num_threads < 0) return RT_STATUS(INVALID_ARGUMENT, "num_threads is %d", (int)num_threads);
  rt_artifact_runtime_t *r = rt_mem_calloc(1, sizeof *r);
  if (!r) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory creating a runtime");
  rt_artifact_retain(a);
  r->artifact = a;
  rt_status_t st = runtime_create(r, num_threads);
  if (st) {
    rt_artifact_runtime_release(r);
    return st;
  }
  *out_runtime = r;
  return RT_OK;
}

void rt_artifact_runtime_release(rt_artifact_runtime_t *r) {
  if (!r) return;
  rt_runner_deinitialize(&r->runner);
  rt_vm_release(r->vm);
  rt_graph_runtime_release(r->graph);
  rt_thread_pool_release(r->pool);
  rt_artifact_release(r->artifact);
  rt_mem_free(r);
}

rt_status_t rt_artifact_runtime_set_input(rt_artifact_runtime_t *r, int32_t index, rt_tensor_t *t) {
  RT_RETURN_IF_ERROR(rt_runner_enter(&r->runner, "set_input"));
  rt_status_t st = rt_runner_set_input(&r->runner, index, t);
  rt_runner_leave(&r->runner);
  return st;
}

rt_status_t rt_artifact_runtime_set_input_by_name(rt_artifact_runtime_t *r, const char *name,
                                                  rt_tensor_t *t) {
  int32_t index = 0;
  RT_RETURN_IF_ERROR(rt_artifact_input_index(r->artifact, name, &index));
  return rt_artifact_runtime_set_input(r, index, t);
}

rt_status_t rt_artifact_runtime_run(rt_artifact_runtime_t *r) {
  RT_RETURN_IF_ERROR(rt_runner_enter(&r->runner, "run"));
  rt_status_t st = rt_runner_run(&r->runner);
  rt_runner_leave(&r->runner);
  return rt_status_annotate(st, "running %s", r->artifact->path);
}

rt_status_t rt_artifact_runtime_output(const rt_artifact_runtime_t *r, int32_t index,
                                       rt_tensor_t **out_tensor) {
  *out_tensor = NULL;
  return rt_runner_output(&r->runner, index, out_tensor);
}
