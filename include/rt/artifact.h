/* relayrt artifacts: models exported as shared libraries
 * (`relayrt build MODEL --emit=so -o model.so`, rt_executor_export), loaded
 * and run by librelayrt_runtime alone: no LLVM, no IR, no compiler.
 *
 * An artifact is the loaded library: its kernels, graph plan and constants
 * (checked when loaded). A runtime made from it owns planned storage and
 * output tensors and runs the kernels in order; `run` allocates nothing.
 * Many runtimes may be made from one artifact (one per thread, say).
 *
 * A model exported from the "vm" executor (`relayrt build MODEL --executor
 * vm --emit=so`) loads the same way: the library then holds the VM
 * executable (bytecode + constants) next to the kernels, and a runtime is
 * a VM running @main, so control flow, recursion and `?` dims work without
 * LLVM. Input infos show `?` dims as -1 (any size is accepted there);
 * output infos give the declared shape (-1 where only the run knows it;
 * the output tensor has the real one). Such a runtime allocates per run
 * (from its pool) what was not planned, and a kernel whose output shape
 * has no shape recipe (runtime/vm.h) is a FAILED_PRECONDITION naming it
 * when it runs.
 *
 *   rt_artifact_t *a;         rt_artifact_load("model.so", &a);
 *   rt_artifact_runtime_t *r; rt_artifact_runtime_create(a, 0, &r);
 *   rt_artifact_runtime_set_input_by_name(r, "data", tensor);
 *   rt_artifact_runtime_run(r);
 *   rt_tensor_t *out;         rt_artifact_runtime_output(r, 0, &out);
 *
 * Ownership follows rt.h: load and create return references the caller
 * releases; a runtime keeps its artifact alive; outputs and infos are
 * borrowed. Thread-safety: an artifact is immutable once loaded (any
 * thread); a runtime is used by one thread at a time: set_input or run
 * while another of them is inside the same runtime is refused with
 * FAILED_PRECONDITION ("... is in use by another thread"), changing
 * nothing. */
#ifndef RT_ARTIFACT_H_
#define RT_ARTIFACT_H_

#include "rt/base.h"
#include "rt/status.h"
#include "rt/tensor.h"

RT_EXTERN_C_BEGIN

typedef struct rt_artifact_t rt_artifact_t;
typedef struct rt_artifact_runtime_t rt_artifact_runtime_t;

/* Loads the library at `path` (dlopen, RTLD_NOW | RTLD_LOCAL) and checks
 * it: DATA_LOSS for a file that is not such a library or is truncated or
 * corrupt (bad magic, checksum, plan or constants); FAILED_PRECONDITION for
 * a library of another format or kernel ABI version (the message says
 * which, and that re-exporting with this relayrt fixes it); NOT_FOUND when
 * the file does not exist. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_artifact_load(const char *path,
                                                       rt_artifact_t **out_artifact);
RT_API void rt_artifact_retain(rt_artifact_t *artifact);
/* What the library's kernels were compiled for (the JIT target's
 * description: triple, target name, CPU, features, template width);
 * borrowed. Loading refuses a CPU that lacks an ISA extension they use
 * (FAILED_PRECONDITION, naming it). */
RT_API const char *rt_artifact_target(const rt_artifact_t *artifact);
/* The last reference closes the library. NULL is fine. */
RT_API void rt_artifact_release(rt_artifact_t *artifact);

RT_API int32_t rt_artifact_num_inputs(const rt_artifact_t *artifact);
RT_API int32_t rt_artifact_num_outputs(const rt_artifact_t *artifact);
/* OUT_OF_RANGE for a bad index. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_artifact_input_info(const rt_artifact_t *artifact,
                                                             int32_t index,
                                                             rt_tensor_info_t *out_info);
RT_API RT_MUST_USE_RESULT rt_status_t rt_artifact_output_info(const rt_artifact_t *artifact,
                                                              int32_t index,
                                                              rt_tensor_info_t *out_info);
/* NOT_FOUND (listing the names) when there is no such input / output. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_artifact_input_index(const rt_artifact_t *artifact,
                                                              const char *name,
                                                              int32_t *out_index);
RT_API RT_MUST_USE_RESULT rt_status_t rt_artifact_output_index(const rt_artifact_t *artifact,
                                                               const char *name,
                                                               int32_t *out_index);

/* A runtime with its own storage and a thread pool of `num_threads`
 * (0 = one per core; 1 = the calling thread only). */
RT_API RT_MUST_USE_RESULT rt_status_t rt_artifact_runtime_create(
    rt_artifact_t *artifact, int32_t num_threads, rt_artifact_runtime_t **out_runtime);
RT_API void rt_artifact_runtime_release(rt_artifact_runtime_t *runtime); /* NULL is fine */

/* Retains `tensor` as input `index` (used in place when compact, else
 * copied). INVALID_ARGUMENT when its dtype or shape differs from the
 * input's; OUT_OF_RANGE / NOT_FOUND for a bad index / name. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_artifact_runtime_set_input(
    rt_artifact_runtime_t *runtime, int32_t index, rt_tensor_t *tensor);
RT_API RT_MUST_USE_RESULT rt_status_t rt_artifact_runtime_set_input_by_name(
    rt_artifact_runtime_t *runtime, const char *name, rt_tensor_t *tensor);
/* Runs every kernel. FAILED_PRECONDITION when an input is not set; a
 * kernel's error names the kernel and its message. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_artifact_runtime_run(rt_artifact_runtime_t *runtime);
/* Output `index` of the last run (borrowed: valid until the runtime is
 * released; overwritten by the next run). A vm model's runtime before a
 * successful run: FAILED_PRECONDITION. */
RT_API RT_MUST_USE_RESULT rt_status_t rt_artifact_runtime_output(
    const rt_artifact_runtime_t *runtime, int32_t index, rt_tensor_t **out_tensor);

RT_EXTERN_C_END

#endif /* RT_ARTIFACT_H_ */
