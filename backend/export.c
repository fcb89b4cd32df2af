/* Export of a built graph executor as a shared library that
 * librelayrt_runtime loads without LLVM (runtime/artifact_format.h).
 *
 * In a fresh temporary folder: one object file per distinct kernel (the
 * JIT's own objects: PIC, small code model, so the code that ran in the
 * JIT is the code that ships), plan.bin (rt_artifact_write_plan),
 * params.bin (the constants as NDArray records), and a generated data.c
 * holding the descriptor, the kernel table and names, with the two blobs
 * pulled in by `.incbin` (a C initializer of megabytes of weights would
 * take the compiler minutes). A "vm" build is linked the same way, its
 * plan being @main's signature and the serialized VM executable (with
 * the constants inside; params.bin is then empty). Then `$CC -shared` (default `cc`) links it
 * all, with a version script that exports the descriptor alone. The
 * compiler runs through posix_spawnp (no shell: paths are never
 * reinterpreted) with its output captured into the error message; the
 * temporary folder is removed on every path. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/export.h"
#include "jit/custom.h"
#include "runtime/artifact_format.h"
#include "runtime/file.h"
#include "runtime/ndarray_blob.h"
#include "runtime/mem.h"

extern char **environ;

#define MAX_FILES 4096

typedef struct {
  char dir[512];
  char *files[MAX_FILES];  /* made inside dir, removed at the end */
  int32_t num_files;
} workdir;

static rt_status_t add_file(workdir *w, const char *name, const void *data, size_t size,
                            char **out_path) {
  if (w->num_files == MAX_FILES) return RT_STATUS(RESOURCE_EXHAUSTED, "too many kernels to export");
  size_t n = strlen(w->dir) + strlen(name) + 2;
  char *p = rt_mem_alloc(n);
  if (!p) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  snprintf(p, n, "%s/%s", w->dir, name);
  w->files[w->num_files++] = p;
  if (out_path) *out_path = p;
  return data ? rt_file_write(p, data, size) : RT_OK;
}

static void workdir_remove(workdir *w) {
  for (int32_t i = 0; i < w->num_files; ++i) {
    unlink(w->files[i]);
    rt_mem_free(w->files[i]);
  }
  if (w->dir[0]) rmdir(w->dir);
}

/* A C string literal (octal escapes for anything but [A-Za-z0-9_.]). */
static void c_string(rt_strbuf_t *b, const char *s) {
  rt_strbuf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        *p == '_' || *p == '.') {
      rt_strbuf_putc(b, (char)*p);
    } else {
      rt_strbuf_printf(b, "\\%03o", *p);
    }
  }
  rt_strbuf_putc(b, '"');
}

/* An assembler string inside a C string literal: the path, escaped twice. */
static void asm_path(rt_strbuf_t *b, const char *s) {
  rt_strbuf_puts(b, "\\\"");
  for (const char *p = s; *p; ++p) {
    if (*p == '"' || *p == '\\') rt_strbuf_puts(b, "\\\\\\");
    if (*p == '\n') {
      rt_strbuf_puts(b, "?");
      continue;
    }
    rt_strbuf_putc(b, *p);
  }
  rt_strbuf_puts(b, "\\\"");
}

static void blob_asm(rt_strbuf_t *b, const char *sym, const char *path) {
  rt_strbuf_printf(b,
                   "__asm__(\".section .rodata\\n.balign 64\\n.globl %s\\n.hidden %s\\n"
                   ".type %s, @object\\n%s:\\n.incbin ",
                   sym, sym, sym, sym);
  asm_path(b, path);
  rt_strbuf_printf(b, "\\n.byte 0\\n.previous\\n\");\nextern const unsigned char %s[];\n", sym);
}

/* Runs argv, its stdout and stderr into `log`; IO_ERROR with the log's
 * head when it cannot start or exits non-zero. */
static rt_status_t run_tool(char *const *argv, const char *log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    return RT_STATUS(IO_ERROR, "cannot run the C compiler '%s' to link the model library: %s "
                     "(set CC to a C compiler)", argv[0], strerror(rc));
  }
  int wst = 0;
  while (waitpid(pid, &wst, 0) < 0) {
    if (errno != EINTR) return RT_STATUS(IO_ERROR, "waiting for %s: %s", argv[0], strerror(errno));
  }
  if (WIFEXITED(wst) && WEXITSTATUS(wst) == 0) return RT_OK;
  char *text = NULL;
  size_t n = 0;
  rt_status_t rs = rt_file_read(log, 1 << 20, &text, &n);
  rt_status_free(rs);
  if (text && n > 2000) text[2000] = '\0';
  rt_status_t st = RT_STATUS(IO_ERROR, "linking the model library with '%s' failed (%s %d): %s",
                             argv[0], WIFEXITED(wst) ? "exit status" : "signal",
                             WIFEXITED(wst) ? WEXITSTATUS(wst) : WTERMSIG(wst), text ? text : "");
  rt_mem_free(text);
  return st;
}

/* The kernels to link: a JIT module and each kernel's display name. */
typedef struct {
  const rt_jit_module_t *jit;
  int32_t num_kernels;
  const char *const *names;
} kernel_set;

/* The generated data.c. */
static void data_source(const kernel_set *ks, const int32_t *first_of,
                        const char *plan_path, size_t plan_size, const char *params_path,
                        size_t params_size, uint64_t checksum, rt_strbuf_t *b) {
  rt_strbuf_puts(b,
                 "/* Generated by relayrt (rt_executor_export): the model's descriptor.\n"
                 " * Layout: runtime/artifact_format.h, rt_artifact_descriptor_t. */\n"
                 "#include <stdint.h>\n"
                 "struct rt_kernel_arg;\nstruct rt_kernel_ctx;\n"
                 "typedef int32_t (*kernel_fn)(const struct rt_kernel_arg *, int32_t,\n"
                 "                             const struct rt_kernel_ctx *);\n");
  int32_t nk = ks->num_kernels;
  for (int32_t k = 0; k < nk; ++k) {
    if (first_of[k] != k) continue;
    rt_strbuf_printf(b, "extern int32_t %s(const struct rt_kernel_arg *, int32_t, "
                        "const struct rt_kernel_ctx *);\n", rt_jit_module_symbol(ks->jit, k));
  }
  blob_asm(b, "relayrt_plan_bytes", plan_path);
  blob_asm(b, "relayrt_params_bytes", params_path);
  rt_strbuf_printf(b, "static const kernel_fn kernels[%d] = {\n", (int)(nk ? nk : 1));
  for (int32_t k = 0; k < nk; ++k) rt_strbuf_printf(b, "  %s,\n", rt_jit_module_symbol(ks->jit, k));
  rt_strbuf_printf(b, "};\nstatic const char *const kernel_names[%d] = {\n", (int)(nk ? nk : 1));
  for (int32_t k = 0; k < nk; ++k) {
    rt_strbuf_puts(b, "  ");
    c_string(b, ks->names[k]);
    rt_strbuf_puts(b, ",\n");
  }
  rt_strbuf_printf(b,
                   "};\n"
                   "struct descriptor {\n"
                   "  char magic[8];\n"
                   "  uint32_t format_version, kernel_abi_version, descriptor_size, num_kernels;\n"
                   "  const kernel_fn *kernels;\n"
                   "  const char *const *kernel_names;\n"
                   "  const unsigned char *plan;\n"
                   "  uint64_t plan_size;\n"
                   "  const unsigned char *params;\n"
                   "  uint64_t params_size, checksum;\n"
                   "  const char *target, *isa;\n"
                   "};\n"
                   "__attribute__((visibility(\"default\"))) const struct descriptor %s = {\n"
                   "  {'R', 'T', 'A', 'R', 'T', 'I', 'F', 0}, %d, %d, sizeof(struct descriptor), %d,\n"
                   "  kernels, kernel_names, relayrt_plan_bytes, %zuu, relayrt_params_bytes, %zuu,\n"
                   "  UINT64_C(0x%016llx), ",
                   RT_ARTIFACT_SYMBOL, RT_ARTIFACT_FORMAT_VERSION, RT_KERNEL_ABI_VERSION, (int)nk,
                   plan_size, params_size, (unsigned long long)checksum);
  /* A model without kernels runs anywhere. */
  char isa[512] = "";
  if (ks->jit) rt_jit_target_isa(rt_jit_module_target(ks->jit), isa, sizeof isa);
  c_string(b, ks->jit ? rt_jit_module_target_text(ks->jit) : "none");
  rt_strbuf_puts(b, ", ");
  c_string(b, isa);
  rt_strbuf_puts(b, "};\n");
}

/* Links the kernels of `ks`, the plan bytes and the params bytes into a
 * shared library at `path` (see the top of the file). */
static rt_status_t link_library(const kernel_set *ks, const rt_strbuf_t *planb,
                                const rt_strbuf_t *paramsb, const char *path) {
  _Static_assert(sizeof(rt_artifact_descriptor_t) == 96, "the generated descriptor is 96 bytes");
  if (ks->num_kernels > 0 && !ks->jit) return RT_STATUS(INTERNAL, "the build has no kernels");
  workdir w = {{0}, {0}, 0};
  const char *tmp = getenv("TMPDIR");
  snprintf(w.dir, sizeof w.dir, "%s/relayrt-export-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
  if (!mkdtemp(w.dir)) {
    rt_status_t st = RT_STATUS(IO_ERROR, "creating a temporary folder %s: %s", w.dir, strerror(errno));
    return st;
  }
  rt_status_t st = RT_OK;
  int32_t nk = ks->num_kernels;
  int32_t *first_of = rt_mem_calloc((size_t)(nk ? nk : 1), sizeof(int32_t));
  char **argv = rt_mem_calloc((size_t)nk + 64, sizeof(char *));
  char *cc = NULL;
  if (!first_of || !argv) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory exporting");
  int32_t argc = 0;
  /* $CC may carry flags ("gcc -m64"): split on spaces. */
  const char *cc_env = getenv("CC");
  if (!st) {
    size_t n = strlen(cc_env && *cc_env ? cc_env : "cc") + 1;
    cc = rt_mem_alloc(n);
    if (!cc) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory exporting");
    if (cc) memcpy(cc, cc_env && *cc_env ? cc_env : "cc", n);
    for (char *tok = cc ? strtok(cc, " ") : NULL; tok && argc < 16; tok = strtok(NULL, " ")) {
      argv[argc++] = tok;
    }
    if (!st && argc == 0) st = RT_STATUS(INVALID_ARGUMENT, "%s", "CC is blank");
  }
  char *vs_path = NULL, *data_path = NULL, *plan_path = NULL,
       *params_path = NULL, *log_path = NULL;
  /* One object per distinct symbol. */
  for (int32_t k = 0; !st && k < nk; ++k) {
    first_of[k] = k;
    for (int32_t j = 0; j < k; ++j) {
      if (strcmp(rt_jit_module_symbol(ks->jit, j), rt_jit_module_symbol(ks->jit, k)) == 0) {
        first_of[k] = j;
        break;
      }
    }
    if (first_of[k] != k) continue;
    const uint8_t *data = NULL;
    size_t size = 0;
    rt_jit_module_object(ks->jit, k, &data, &size);
    char name[32];
    snprintf(name, sizeof name, "k%d.o", (int)k);
    st = add_file(&w, name, data, size, NULL);
  }
  rt_strbuf_t src;
  rt_strbuf_initialize(&src);
  if (!st) st = add_file(&w, "plan.bin", planb->data ? planb->data : "", planb->len, &plan_path);
  if (!st) st = add_file(&w, "params.bin", paramsb->data ? paramsb->data : "", paramsb->len, &params_path);
  if (!st) {
    uint64_t sum = rt_artifact_fnv(UINT64_C(0xcbf29ce484222325), planb->data ? planb->data : "", planb->len);
    sum = rt_artifact_fnv(sum, paramsb->data ? paramsb->data : "", paramsb->len);
    data_source(ks, first_of, plan_path, planb->len, params_path, paramsb->len, sum, &src);
    if (src.failed) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory exporting");
  }
  if (!st) st = add_file(&w, "data.c", src.data, src.len, &data_path);
  static const char kScript[] = "{ global: " RT_ARTIFACT_SYMBOL "; local: *; };\n";
  if (!st) st = add_file(&w, "exports.map", kScript, sizeof kScript - 1, &vs_path);
  if (!st) st = add_file(&w, "link.log", NULL, 0, &log_path);
  char *vs_arg = NULL;
  if (!st) {
    size_t n = strlen(vs_path) + 32;
    vs_arg = rt_mem_alloc(n);
    if (!vs_arg) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory exporting");
    if (vs_arg) snprintf(vs_arg, n, "-Wl,--version-script=%s", vs_path);
  }
  if (!st) {
    argv[argc++] = "-shared";
    argv[argc++] = "-fPIC";
    argv[argc++] = "-O1";
    argv[argc++] = "-o";
    argv[argc++] = (char *)path;
    argv[argc++] = vs_arg;
    argv[argc++] = "-Wl,-z,noexecstack";
    argv[argc++] = data_path;
    for (int32_t f = 0; f < w.num_files; ++f) {
      const char *fp = w.files[f];
      size_t n = strlen(fp);
      if (n > 2 && strcmp(fp + n - 2, ".o") == 0) argv[argc++] = w.files[f];
    }
    argv[argc++] = "-lm";
    argv[argc] = NULL;
    st = run_tool(argv, log_path);
  }
  if (st) st = rt_status_annotate(st, "exporting the model to %s", path);
  rt_strbuf_deinitialize(&src);
  rt_mem_free(vs_arg);
  rt_mem_free(cc);
  rt_mem_free(argv);
  rt_mem_free(first_of);
  workdir_remove(&w);
  return st;
}

rt_status_t rt_backend_export(const rt_graph_build_t *build, const rt_graph_plan_t *plan,
                              const char *const *input_names, const char *path) {
  if (build->process_local) {
    return RT_STATUS(FAILED_PRECONDITION, "cannot export %s: its kernels call custom ops or "
                     "strategies registered in this process (rt/op.h), or run ops that have "
                     "no compiled kernel on the host; not yet supported", path);
  }
  rt_status_t st = RT_OK;
  rt_strbuf_t planb, paramsb;
  rt_strbuf_initialize(&planb);
  rt_strbuf_initialize(&paramsb);
  const char **out_names = rt_mem_calloc((size_t)(plan->num_outputs ? plan->num_outputs : 1), sizeof(char *));
  char (*buf)[24] = rt_mem_calloc((size_t)(plan->num_outputs ? plan->num_outputs : 1), sizeof *buf);
  if (!out_names || !buf) {
    st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory exporting");
  } else {
    for (int32_t o = 0; o < plan->num_outputs; ++o) {
      snprintf(buf[o], sizeof buf[o], "output_%d", (int)o);
      out_names[o] = buf[o];
    }
    rt_artifact_write_plan(plan, input_names, out_names, &planb);
  }
  rt_mem_free(out_names);
  rt_mem_free(buf);
  for (int32_t c = 0; !st && c < plan->num_consts; ++c) rt_ndarray_blob_write(plan->consts[c], &paramsb);
  if (!st && (planb.failed || paramsb.failed)) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory exporting");
  kernel_set ks = {build->jit, build->num_kernels, (const char *const *)build->kernel_names};
  if (!st) st = link_library(&ks, &planb, &paramsb, path);
  rt_strbuf_deinitialize(&planb);
  rt_strbuf_deinitialize(&paramsb);
  return st;
}

rt_status_t rt_backend_export_vm(const rt_vm_build_t *build, int32_t num_inputs,
                                 const rt_tensor_info_t *inputs, int32_t num_outputs,
                                 const rt_tensor_info_t *outputs, const char *path) {
  const rt_vm_executable_t *exe = &build->exe;
  if (rt_jit_custom_in_use(exe->num_kernels, build->kernel_fns)) {
    return RT_STATUS(FAILED_PRECONDITION, "cannot export %s: its kernels call custom ops or "
                     "strategies registered in this process (rt/op.h), or run ops that have "
                     "no compiled kernel on the host; not yet supported", path);
  }
  for (int32_t k = 0; k < exe->num_kernels; ++k) {
    if (build->per_shape && build->per_shape[k]) {
      return RT_STATUS(FAILED_PRECONDITION, "cannot export %s: kernel %s is compiled per input "
                       "shape at run time (it has `?` dims the JIT compiles only for concrete "
                       "shapes, or shapes that depend on values); give the inputs' shapes "
                       "(--shape NAME=DIMS) to export it", path, exe->kernels[k].name);
    }
  }
  char *bytes = NULL;
  size_t size = 0;
  rt_status_t st = rt_vm_executable_serialize(exe, &bytes, &size);
  rt_strbuf_t planb, paramsb;
  rt_strbuf_initialize(&planb);
  rt_strbuf_initialize(&paramsb);
  if (!st) rt_artifact_write_vm_plan(num_inputs, inputs, num_outputs, outputs, bytes, size, &planb);
  if (!st && planb.failed) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory exporting");
  const char **names = rt_mem_calloc((size_t)(exe->num_kernels ? exe->num_kernels : 1), sizeof(char *));
  if (!st && !names) st = RT_STATUS(RESOURCE_EXHAUSTED, "out of memory exporting");
  for (int32_t k = 0; !st && k < exe->num_kernels; ++k) names[k] = exe->kernels[k].name;
  kernel_set ks = {build->jit, exe->num_kernels, names};
  if (!st) st = link_library(&ks, &planb, &paramsb, path);
  rt_mem_free(names);
  rt_mem_free(bytes);
  rt_strbuf_deinitialize(&planb);
  rt_strbuf_deinitialize(&paramsb);
  return st;
}
