/* Internal to runtime/ and backend/export.c: the layout of an exported
 * model library (include/rt/artifact.h), its writers and its readers
 * (runtime/artifact_format.c; the loader is runtime/artifact.c).
 *
 * The library exports one symbol, RT_ARTIFACT_SYMBOL, an
 * rt_artifact_descriptor_t (defined again, field for field, in the C file
 * the exporter generates; descriptor_size catches a mismatch). It points
 * at the kernel entry points, their names, the serialized plan and the
 * constants (TVM NDArray records, runtime/ndarray_blob.h, one per plan
 * constant), and carries an FNV-1a 64 checksum of plan then constants.
 *
 * Plan bytes, little-endian ("str" = u32 length + bytes, no NUL):
 *   char magic[8] "RTPLAN02"
 *   u32 num_entries;  per entry: u8 kind, u8 dtype code, u8 bits, u8 rank,
 *                     u16 lanes, u16 0, i32 index, i32 storage_id,
 *                     u64 byte_offset, i64 shape[rank]
 *   u32 num_nodes;    per node: i32 kernel (-1: a no-op), u32 nin, u32 nout,
 *                     i32 entries[nin + nout]
 *   u32 num_storage;  u64 bytes[num_storage]
 *   u32 num_inputs;   per input: i32 entry, str name
 *   u32 num_outputs;  per output: i32 entry, i32 source (-1), str name
 *   u32 num_consts
 * Everything is checked on load (indices in range, kinds consistent,
 * storage large enough for every entry placed in it, constants matching
 * their entries), so a corrupt plan is an error, never a stray write.
 *
 * A "vm" model (`relayrt build MODEL --executor vm --emit=so`) has the
 * same descriptor and kernel table; its plan bytes start with
 * RT_ARTIFACT_VM_MAGIC instead and hold @main's signature and the VM
 * executable (runtime/vm.h's file format, constants inside it; the params
 * blob is empty):
 *   char magic[8] "RTVMART1"
 *   u32 num_inputs;   per input: str name, u8 code, u8 bits, u16 lanes,
 *                     u32 rank, i64 shape[rank] (-1 = `?`)
 *   u32 num_outputs;  per output (main's result, tuples flattened): the same
 *   u64 size; the serialized VM executable (size bytes)
 * The executable's kernels must be the descriptor's, in order, by name. */
#ifndef RT_RUNTIME_ARTIFACT_FORMAT_H_
#define RT_RUNTIME_ARTIFACT_FORMAT_H_

#include "rt/artifact.h"
#include "rt/kernel_abi.h"
#include "runtime/graph_runtime.h"
#include "runtime/strbuf.h"

#define RT_ARTIFACT_SYMBOL "relayrt_artifact"
#define RT_ARTIFACT_MAGIC "RTARTIF\0"
#define RT_ARTIFACT_FORMAT_VERSION 3 /* 3: entries' byte offsets, no-op nodes */
#define RT_ARTIFACT_PLAN_MAGIC "RTPLAN02"
#define RT_ARTIFACT_VM_MAGIC "RTVMART1"

typedef struct rt_artifact_descriptor_t {
  char magic[8];                   /* RT_ARTIFACT_MAGIC */
  uint32_t format_version;         /* RT_ARTIFACT_FORMAT_VERSION */
  uint32_t kernel_abi_version;     /* RT_KERNEL_ABI_VERSION */
  uint32_t descriptor_size;        /* sizeof(rt_artifact_descriptor_t) */
  uint32_t num_kernels;
  const rt_kernel_fn *kernels;
  const char *const *kernel_names;
  const uint8_t *plan;
  uint64_t plan_size;
  const uint8_t *params;
  uint64_t params_size;
  uint64_t checksum;               /* FNV-1a 64 of plan, then params */
  /* Format 2: what the kernels were compiled for. `target` is the JIT
   * target's description (for messages and rt_artifact_target); `isa` the
   * comma-separated ISA extensions the kernels may use, in the names of
   * GCC's __builtin_cpu_supports ("avx2,fma,..."; "" for baseline
   * x86-64): a CPU without one of them is refused at load. */
  const char *target;
  const char *isa;
} rt_artifact_descriptor_t;

/* OK when this CPU has every extension of the comma-separated `isa`;
 * FAILED_PRECONDITION naming the first it lacks (or does not know),
 * with `name` and `target` in the message. */
RT_MUST_USE_RESULT rt_status_t rt_artifact_check_isa(const char *name, const char *target,
                                                     const char *isa);

/* FNV-1a 64 continuing from h (start 0xcbf29ce484222325). */
uint64_t rt_artifact_fnv(uint64_t h, const void *data, size_t size);

/* Serializes `plan` (its entries, nodes, storage, inputs and outputs, and
 * the constant count) with the given names. */
void rt_artifact_write_plan(const rt_graph_plan_t *plan, const char *const *input_names,
                            const char *const *output_names, rt_strbuf_t *out);

/* Serializes a "vm" model's plan bytes: the signature (names, dtypes,
 * shapes with -1 for `?`) and the serialized executable `exe`. */
void rt_artifact_write_vm_plan(int32_t num_inputs, const rt_tensor_info_t *inputs,
                               int32_t num_outputs, const rt_tensor_info_t *outputs,
                               const char *exe, size_t exe_size, rt_strbuf_t *out);

/* ---- reading (every function checks what it reads; DATA_LOSS
 * "PATH: corrupt model library: WHAT" for bad bytes) ---- */

/* DATA_LOSS "<path>: corrupt model library: <what>". */
rt_status_t rt_artifact_corrupt(const char *path, const char *what);

/* The descriptor's own checks, in order: magic, format and kernel ABI
 * versions, size, fields, kernel table, target description, the ISA
 * (rt_artifact_check_isa), the checksum. `path` names it in messages. */
RT_MUST_USE_RESULT rt_status_t rt_artifact_check_descriptor(const rt_artifact_descriptor_t *desc,
                                                            const char *path);

/* Parses and checks plan bytes into *out (consts left NULL; num_consts
 * set), with the input / output names (rt_mem_alloc'd; free them with
 * rt_artifact_free_names). Kernel indices must be < num_kernels. */
RT_MUST_USE_RESULT rt_status_t rt_artifact_parse_plan(const char *path, const uint8_t *bytes,
                                                      size_t size, int32_t num_kernels,
                                                      rt_graph_plan_t *out, char ***out_in_names,
                                                      char ***out_out_names);
void rt_artifact_free_names(char **names, int32_t n);   /* NULL is fine */

/* The constants blob of a graph model: info->num_consts NDArray records
 * (runtime/ndarray_blob.h), each matching its entry's dtype and shape.
 * Sets *num_consts and *consts (one reference each) before reading, so
 * that the caller releases what was read when this fails. */
RT_MUST_USE_RESULT rt_status_t rt_artifact_read_consts(const rt_artifact_descriptor_t *desc,
                                                       const char *path,
                                                       const rt_graph_plan_t *info,
                                                       int32_t *num_consts,
                                                       rt_tensor_t ***consts);

/* A "vm" model's signature: names, dtypes and shapes (-1 = `?`). */
typedef struct rt_artifact_io_list_t {
  int32_t count;
  rt_tensor_info_t *io;        /* names and shapes rt_mem_alloc'd */
  char **names;                /* the same names (for name look-ups) */
} rt_artifact_io_list_t;
void rt_artifact_io_list_deinitialize(rt_artifact_io_list_t *list);

/* A "vm" model's plan bytes (desc->plan, starting RT_ARTIFACT_VM_MAGIC):
 * its signature into *out_inputs / *out_outputs (deinitialize them even on
 * failure) and where the serialized executable lies in desc->plan. A vm
 * model has no params blob. */
RT_MUST_USE_RESULT rt_status_t rt_artifact_parse_vm_plan(const char *path,
                                                         const rt_artifact_descriptor_t *desc,
                                                         rt_artifact_io_list_t *out_inputs,
                                                         rt_artifact_io_list_t *out_outputs,
                                                         const uint8_t **out_exe,
                                                         size_t *out_exe_size);

/* rt_artifact_load's checks without the library: makes an artifact of the
 * descriptor `desc` (its plan, constants, kernel table and checksum,
 * checked exactly as a loaded library's; `name` stands for the path in
 * messages). `desc` and everything it points at must outlive the
 * artifact; its runtimes call desc->kernels. For tests and the fuzz
 * target of the plan reader (fuzz/fuzz_artifact.c). */
RT_MUST_USE_RESULT rt_status_t rt_artifact_load_descriptor(const rt_artifact_descriptor_t *desc,
                                                           const char *name,
                                                           rt_artifact_t **out_artifact);

#endif /* RT_RUNTIME_ARTIFACT_FORMAT_H_ */
