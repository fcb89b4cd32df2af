/* relayrt kernel ABI: the boundary between a compiled kernel (JIT'd or
 * loaded from an exported .so) and the runtime that calls it.
 *
 * This header is deliberately standalone: it includes only <stdint.h>, so a
 * kernel library, a host application or a foreign code generator can use
 * it without the rest of relayrt (after IREE's executable_library.h and
 * TVM's c_backend_api.h; docs/architecture.md, "The kernel ABI").
 *
 * A kernel is
 *
 *   int32_t kernel(const rt_kernel_arg *args, int32_t nargs,
 *                  const rt_kernel_ctx *ctx);
 *
 * - args[0 .. nin) are the inputs and args[nin .. nargs) the outputs, in the
 *   order of the fused function's parameters and then its results (a tuple
 *   result is flattened). Each is a DLTensor-layout descriptor.
 * - The caller allocates the outputs with their final shapes; a kernel
 *   compiled for `?` dims reads every shape from the descriptors, so one
 *   kernel runs at any size. It checks ranks, dtypes, static dims and the
 *   consistency of the dynamic ones, and reports a mismatch as an error.
 * - Version 1 kernels require compact row-major data (strides NULL, or
 *   strides equal to the compact ones) and outputs that overlap no input and
 *   no other output; the caller compacts or copies otherwise.
 * - Return 0 on success. A non-zero return is an error whose message the
 *   kernel passed to ctx->set_error before returning.
 *
 * Runtime services reach a kernel only through ctx (never by symbol lookup),
 * so an exported kernel library needs nothing from the host process beyond
 * libc and libm. ctx and everything it points to are borrowed for the
 * duration of the call. */
#ifndef RT_KERNEL_ABI_H_
#define RT_KERNEL_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change of the structs or the calling
 * convention below. A kernel library records the version it was built
 * for; a runtime refuses a library whose version differs from its own. */
#define RT_KERNEL_ABI_VERSION 1

/* DLPack's DLDataType: type code (DLPack's kDLInt = 0, kDLUInt = 1,
 * kDLFloat = 2, kDLBfloat = 4, kDLBool = 6), bits per lane, lanes. */
typedef struct rt_kernel_dtype {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} rt_kernel_dtype;

/* One tensor argument: the fields of DLPack's DLTensor that a CPU kernel
 * needs, laid out for cheap loads (all offsets fixed, 40 bytes on LP64). */
typedef struct rt_kernel_arg {
  void *data;              /* element 0 (any byte_offset already applied) */
  const int64_t *shape;    /* rank entries */
  const int64_t *strides;  /* element strides, or NULL = compact row-major */
  int32_t rank;
  rt_kernel_dtype dtype;
  int64_t reserved;        /* zero; room for a device id in later versions */
} rt_kernel_arg;

typedef struct rt_kernel_ctx rt_kernel_ctx;

/* A task body: runs task `task` of `n_tasks` (0 <= task < n_tasks) of the
 * work described by `closure`; returns 0, or non-zero after reporting the
 * error with set_error. */
typedef int32_t (*rt_kernel_task_fn)(void *closure, int32_t task,
                                     int32_t n_tasks);

struct rt_kernel_ctx {
  /* RT_KERNEL_ABI_VERSION of the runtime filling this struct. */
  int32_t version;
  /* Threads the runtime offers; kernels never make more tasks than this
   * is useful for. >= 1. */
  int32_t num_threads;
  /* Runs body(closure, i, n_tasks) for every i in [0, n_tasks), possibly in
   * parallel, and returns when all are done: 0 when every task returned 0,
   * else non-zero. NULL means "no pool": the kernel runs its tasks itself,
   * in order, on the calling thread. Planned, then computed: the kernel
   * decides how the work splits by task index. */
  int32_t (*parallel_for)(const rt_kernel_ctx *ctx, rt_kernel_task_fn body,
                          void *closure, int32_t n_tasks);
  /* Scratch memory for the duration of the call, at least 64-byte aligned;
   * NULL when out of memory (the kernel then reports an error). Freed with
   * workspace_free in reverse order. May be NULL (kernels that need
   * workspace then fail with an error). */
  void *(*workspace_alloc)(const rt_kernel_ctx *ctx, uint64_t nbytes);
  void (*workspace_free)(const rt_kernel_ctx *ctx, void *ptr);
  /* Records an error message (copied; the first one of a call wins). Safe
   * to call from any task. Must not be NULL. */
  void (*set_error)(const rt_kernel_ctx *ctx, const char *message);
  /* The runtime's own state, opaque to kernels. */
  void *user;
};

/* The signature of every kernel. */
typedef int32_t (*rt_kernel_fn)(const rt_kernel_arg *args, int32_t nargs,
                                const rt_kernel_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* RT_KERNEL_ABI_H_ */
