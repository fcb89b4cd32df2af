/* Internal to jit/: kernel templates for the anchors, made to run them near
 * the machine's FMA peak.
 *
 * A template replaces the generic per-element loop nest of one kernel
 * output (jit/lower.c emit_output) when the output is an anchor (dense,
 * matmul, batch_matmul, conv2d, softmax, 2-d pools) followed by a chain of
 * elementwise / broadcast ops of the same shape (the fused epilogue: bias
 * add, relu, multiply by a folded batch-norm scale...), every shape is
 * static and the anchor computes in float32.
 *
 * The anchor's values come from a register-blocked micro-kernel (an
 * MR x (VW*NV) tile of <VW x float> accumulators updated with llvm.fma
 * from a broadcast of A and vector loads of a packed B panel); VW, the
 * vector width, comes from the session's target (jit/target.h): 16 lanes
 * (zmm, llvm.fma.v16f32) for AVX-512, else 8 (ymm, AVX2); the tile is
 * stored to a workspace block, and the epilogue then walks the block: for
 * each element it records the anchor's value in the lowering's element memo
 * (rt_jit_memo_set) and asks the element expression of the output, so the
 * tail ops are lowered by the same machinery as everywhere else and read
 * the anchor from the block instead of recomputing it. If an index ever
 * misses the memo, the generic per-element anchor lowering runs instead:
 * the result is still right, only slower (invariant: templates change
 * speed, never values beyond float32 reassociation). The 1x1 conv2d paths
 * run simple tail ops (bias, relu, clip, residual add, SiLU...) as vectors
 * on the tile instead where they can (epilogue.c, rt_jit_tpl_vepi), with
 * the same operations per lane.
 *
 * rt_jit_template_name is a pure function of the Primitive function, so the
 * session (and a kernel cache that skips lowering) can tell which template a
 * kernel uses without lowering it. */
#ifndef RT_JIT_TEMPLATES_TEMPLATES_H_
#define RT_JIT_TEMPLATES_TEMPLATES_H_

#include "jit/lower.h"

/* The template kernel `fn` (a Primitive function) uses for its output, as
 * a static string ("gemm.6x16", "conv2d.direct", ...), or NULL when its
 * output is lowered by the generic loop nest. A pure function of fn and
 * the target (its vector width). */
const char *rt_jit_template_name(const rt_ir_expr_t *fn, const rt_jit_target_t *target);

/* Whether fn's kernel is a template whose loops that matter for speed are
 * all emitted as explicit vector code, so LLVM's loop and SLP vectorizers
 * (default<O2>/<O3>) have nothing to add and the session compiles it with
 * its light pipeline (jit/session.c pipeline_of): conv2d.winograd, and
 * conv2d.direct (not depthwise) and conv2d.im2colT whose input and weight
 * are params or constants in memory and whose fused tail ops the vector
 * epilogue takes (epilogue.c). A pure function of fn and the target, like
 * rt_jit_template_name; false for the generic loop nest. */
bool rt_jit_template_explicit_vector(const rt_ir_expr_t *fn, const rt_jit_target_t *target);

/* Emits output `out` (a tensor node of the function) with a template when
 * one applies: *out_done is then true. Otherwise emits nothing and sets
 * *out_done false (the caller emits its generic loop nest). `data` is the
 * output's data pointer, task/ntasks (i32) the task of S.body. */
RT_MUST_USE_RESULT rt_status_t rt_jit_template_emit(rt_jit_lower_t *L,
                                                    const rt_ir_expr_t *out,
                                                    LLVMValueRef data,
                                                    LLVMValueRef task,
                                                    LLVMValueRef ntasks,
                                                    bool *out_done);

/* ---- shared by the template files (templates.c) -------------------------- */

typedef enum rt_jit_tpl_kind_e {
  RT_JIT_TPL_NONE,
  RT_JIT_TPL_GEMM,        /* dense, matmul, batch_matmul */
  RT_JIT_TPL_CONV_DIRECT, /* conv2d stride 1: flat padded-row direct conv */
  RT_JIT_TPL_CONV_DW,     /* depthwise conv2d, any stride (conv2d.c) */
  RT_JIT_TPL_CONV_IM2COL, /* other conv2d: im2col panels + the GEMM core */
  RT_JIT_TPL_CONV_IM2COL_T, /* 1x1 conv2d as C^T = X^T W^T: output pixels are
                             * the GEMM's rows, output channels its columns */
  RT_JIT_TPL_SOFTMAX,     /* softmax / log_softmax, once per row */
  RT_JIT_TPL_WINOGRAD,    /* nn.contrib_conv2d_winograd_without_weight_transform */
  RT_JIT_TPL_POOL,        /* max/avg_pool2d, global pools: (image, channel) planes (pool.c) */
  RT_JIT_TPL_DW_NCHWC,    /* nn.contrib_depthwise_conv2d_NCHWc, block = vw (blocked.c) */
  RT_JIT_TPL_CONV_NCHWC,  /* nn.contrib_conv2d_NCHWc, groups 1, blocks = vw (blocked.c) */
} rt_jit_tpl_kind_t;

/* The anchor of `out` (the output itself, or reached from it through
 * elementwise / broadcast ops whose results have out's shape), its
 * template kind and the tile shape chosen for it. */
typedef struct rt_jit_tpl_plan_t {
  rt_jit_tpl_kind_t kind;
  const rt_ir_expr_t *anchor;
  int32_t mr, nv;         /* tile: mr rows x vw*nv columns */
  int32_t vw;             /* vector lanes: 8 (AVX2) or 16 (AVX-512F) */
  const char *name;
  const struct template_t *tpl; /* the registry's entry (templates.c) */
} rt_jit_tpl_plan_t;
bool rt_jit_tpl_plan(const rt_ir_expr_t *out, const rt_jit_target_t *target,
                     rt_jit_tpl_plan_t *out_plan);

/* Rows of a register tile at most (arow arrays). */
#define RT_JIT_TPL_MAX_MR 16
/* Float lanes of a template vector at most (AVX-512). */
#define RT_JIT_TPL_MAX_VW 16

/* Vector helpers: the <vw x float> type, a splat, a load/store of vw
 * floats at p + off (element offset, i64; align 4). */
LLVMTypeRef rt_jit_tpl_vec(rt_jit_lower_t *L, int32_t vw);
LLVMValueRef rt_jit_tpl_splat(rt_jit_lower_t *L, LLVMValueRef scalar, int32_t vw);
LLVMValueRef rt_jit_tpl_gep(rt_jit_lower_t *L, LLVMValueRef p, LLVMValueRef off);
LLVMValueRef rt_jit_tpl_loadv(rt_jit_lower_t *L, LLVMValueRef p, LLVMValueRef off, int32_t vw);
void rt_jit_tpl_storev(rt_jit_lower_t *L, LLVMValueRef v, LLVMValueRef p, LLVMValueRef off);
LLVMValueRef rt_jit_tpl_loadf(rt_jit_lower_t *L, LLVMValueRef p, LLVMValueRef off);
void rt_jit_tpl_storef(rt_jit_lower_t *L, LLVMValueRef v, LLVMValueRef p, LLVMValueRef off);

/* The register tile C[mr][vw*nv] += A[mr][K] * B[K][vw*nv]: arow[r] points
 * at A(r, 0) (k contiguous); B row k starts at bbase + boff(k) (element
 * offsets; `btab`, when not NULL, is a constant i32 table of boff(k),
 * else boff(k) = k * bstride). The tile is stored (not added) at
 * c + r*ldc (vw*nv floats per row). mr*nv <= 12 with vw 8 (16 ymm),
 * <= 24 with vw 16 (32 zmm); with vw 16 the function gets
 * "min-legal-vector-width"="512" (else x86 splits 512-bit vectors on
 * CPUs tuned to prefer 256-bit ones). */
void rt_jit_tpl_micro(rt_jit_lower_t *L, int32_t mr, int32_t nv, int32_t vw, int64_t K,
                      const LLVMValueRef *arow, LLVMValueRef bbase, LLVMValueRef btab,
                      int64_t bstride, LLVMValueRef c, int64_t ldc);

/* A panel's prefetch spread over the steps of the row tiles that read the
 * panel before it (into L2): its `nlines` lines shared evenly over
 * `ntile` tiles of `steps` steps (i64 values), tile `tr` taking its share
 * in order, at most one line a step; rt_jit_tpl_pf_spread_step emits
 * step k's prefetch of tile tr: line min((tr * steps + k) * nlines /
 * (ntile * steps), nlines - 1) of the panel at p. */
typedef struct rt_jit_tpl_pf_spread_t {
  LLVMValueRef p, base, rate, last; /* base = tr * steps; rate in 1/65536 lines a step */
} rt_jit_tpl_pf_spread_t;
rt_jit_tpl_pf_spread_t rt_jit_tpl_pf_spread(rt_jit_lower_t *L, LLVMValueRef p, LLVMValueRef tr, LLVMValueRef ntile,
                                             LLVMValueRef steps, LLVMValueRef nlines);
void rt_jit_tpl_pf_spread_step(rt_jit_lower_t *L, const rt_jit_tpl_pf_spread_t *sp, LLVMValueRef k);

/* rt_jit_tpl_micro (no table: B row k at k * bstride) that also
 * prefetches (into L2) the next panel of a stream at pf while this one
 * computes: its `nlines` lines spread evenly over the micro-kernel steps
 * of the `ntile` row tiles that read this panel, row tile `tr` (i64
 * values) taking its share in order, at most one line a step (line
 * ((tr * K + k) * nlines / (ntile * K)) at step k). */
void rt_jit_tpl_micro_pf(rt_jit_lower_t *L, int32_t mr, int32_t nv, int32_t vw, int64_t K,
                         const LLVMValueRef *arow, LLVMValueRef bbase, int64_t bstride, LLVMValueRef c,
                         int64_t ldc, LLVMValueRef pf, LLVMValueRef tr, LLVMValueRef ntile, LLVMValueRef nlines);

/* rt_jit_tpl_micro for one K block of several: where the i1 `add` is true
 * the tile is added to the one stored at c (the accumulators start from
 * it), else (or with add NULL) stored as above. */
void rt_jit_tpl_micro_acc(rt_jit_lower_t *L, int32_t mr, int32_t nv, int32_t vw, int64_t K,
                          const LLVMValueRef *arow, LLVMValueRef bbase, LLVMValueRef btab,
                          int64_t bstride, LLVMValueRef c, int64_t ldc, LLVMValueRef add);

/* rt_jit_tpl_micro_acc without the store: the tile's mr*nv accumulators
 * (row r, vector v at out_acc[r*nv + v]) after the k loop, started from
 * the tile at c where `add` is true (c is only read then). */
void rt_jit_tpl_micro_regs(rt_jit_lower_t *L, int32_t mr, int32_t nv, int32_t vw, int64_t K,
                           const LLVMValueRef *arow, LLVMValueRef bbase, LLVMValueRef btab,
                           int64_t bstride, LLVMValueRef c, int64_t ldc, LLVMValueRef add,
                           LLVMValueRef *out_acc);

/* Gives the function being built "min-legal-vector-width"="512" and
 * "prefer-vector-width"="512" when vw is 16 (else x86 splits 512-bit
 * vectors on CPUs tuned to prefer 256-bit ones); nothing for vw 8. */
void rt_jit_tpl_wide(rt_jit_lower_t *L, int32_t vw);

/* Loop metadata on the loop whose latch (the block ending with the back
 * edge, as rt_jit_loop_end leaves it) is `latch`: no vectorization
 * (strided stores would become scatters, slower than scalar code and
 * costly to compile), no unrolling (outer loops of constant trip count
 * that O3 would otherwise copy whole). */
void rt_jit_tpl_loop_hints(rt_jit_lower_t *L, LLVMBasicBlockRef latch, bool no_vectorize,
                           bool no_unroll);
/* rt_jit_loop_end for a loop LLVM must not unroll (the epilogues' loops
 * over channels, whose unrolled copies cost compile time, not run time). */
void rt_jit_tpl_loop_end_rolled(rt_jit_lower_t *L, rt_jit_loop_t *loop);

/* llvm.prefetch of the cache line at p into all cache levels (for a write
 * when `write`). */
void rt_jit_tpl_prefetch(rt_jit_lower_t *L, LLVMValueRef p, bool write);
/* A read prefetch into L2 only (prefetcht1), for the lines of a stream
 * from memory that the tile being computed does not read (the next
 * weight panel or rows: Winograd's, the in-place GEMM panels, the direct
 * template's next weight rows). Into L1 as well they evicted the tile's
 * own operands: on an AVX-512 Xeon (1 thread, --profile minima summed
 * over 3 alternated rounds) resnet50's kernels 0.968 of their time (its
 * 512@7 Winograd layers 3037 -> 2602 us, 256@14 4164 -> 3897), resnet18
 * 0.959, on 8 lanes 0.985 and 0.948, resnet50 at 2 threads 0.981;
 * densenet121, squeezenet1_1, mobilenet_v2, efficientnet_b0 and the
 * encoder within noise. */
void rt_jit_tpl_prefetch_stream(rt_jit_lower_t *L, LLVMValueRef p);

/* llvm.masked.load of the vw floats at p + off (element offset, i64): the
 * lanes where the <vw x i1> mask is set are read, the others are
 * `passthru`'s and not read; llvm.masked.store writes only the set lanes. */
LLVMValueRef rt_jit_tpl_masked_load(rt_jit_lower_t *L, LLVMValueRef p, LLVMValueRef off, LLVMValueRef mask,
                                    LLVMValueRef passthru, int32_t vw);
void rt_jit_tpl_masked_store(rt_jit_lower_t *L, LLVMValueRef v, LLVMValueRef p, LLVMValueRef off, LLVMValueRef mask,
                             int32_t vw);
/* Stores lanes [0, k) of the <vw x float> v at p + off (element
 * offset) as plain stores of power-of-two pieces (k = 12: 8 + 4), for a
 * count known at compile time: AVX2's masked stores (vmaskmovps) made a
 * depthwise kernel 20-30% slower on Zen 5 where these are not. */
void rt_jit_tpl_store_first(rt_jit_lower_t *L, LLVMValueRef v, LLVMValueRef p, LLVMValueRef off, int32_t k,
                            int32_t vw);

/* The constant <vw x i1> mask of lanes [0, k). */
LLVMValueRef rt_jit_tpl_lanes_mask(rt_jit_lower_t *L, int64_t k, int32_t vw);
/* The <vw x i1> mask of the lanes below `k`, an i64 value. */
LLVMValueRef rt_jit_tpl_lanes_below(rt_jit_lower_t *L, LLVMValueRef k, int32_t vw);

/* The even (odd = false) or odd lanes of the 2*vw floats lo ++ hi, as one
 * <vw x float>: a stride-2 row split into its two phases. */
LLVMValueRef rt_jit_tpl_deinterleave(rt_jit_lower_t *L, LLVMValueRef lo, LLVMValueRef hi, int32_t vw, bool odd);

/* Transposes the vw x vw floats in rows[0..vw) in place: rows[i][j]
 * becomes the old rows[j][i] (log2(vw) rounds of shuffles). */
void rt_jit_tpl_transpose(rt_jit_lower_t *L, int32_t vw, LLVMValueRef *rows);

/* Workspace: ctx->workspace_alloc(nbytes) / workspace_free; _v takes the
 * size as an i64 value (at least 64 bytes are asked for). The ABI makes
 * every workspace block 64-byte aligned. */
LLVMValueRef rt_jit_tpl_ws_alloc(rt_jit_lower_t *L, int64_t nbytes);
LLVMValueRef rt_jit_tpl_ws_alloc_v(rt_jit_lower_t *L, LLVMValueRef nbytes);
void rt_jit_tpl_ws_free(rt_jit_lower_t *L, LLVMValueRef p);

/* The part [lo, hi) of [0, n) that task `task` of `ntasks` (i64) owns. */
void rt_jit_tpl_split(rt_jit_lower_t *L, int64_t n, LLVMValueRef task, LLVMValueRef ntasks,
                      LLVMValueRef *out_lo, LLVMValueRef *out_hi);

/* The epilogue of one element: records `value` as the anchor's element
 * idx (out's rank; dims of size 1 get index constant 0), evaluates out's
 * element expression and stores it (float32) at its row-major place in
 * `data`. */
RT_MUST_USE_RESULT rt_status_t rt_jit_tpl_epilogue(rt_jit_lower_t *L, const rt_ir_expr_t *anchor,
                                                   const rt_ir_expr_t *out, LLVMValueRef data,
                                                   LLVMValueRef *idx, LLVMValueRef value);

/* The vector epilogue (epilogue.c; issue 18, h3): out's element
 * expression for vw consecutive positions of the output dims [d0, d1)
 * flattened (lane 0 at idx, every other dim fixed, the caller keeps the
 * lanes inside those dims' extent), with `value` (<vw x float>) as the
 * anchor's elements, stored to `data` (one vector store where the lanes
 * are contiguous in the output, else vw scalar stores).
 * rt_jit_tpl_vepi_ok says whether out's tail ops and operands are ones it
 * takes (else use rt_jit_tpl_epilogue per element); a pure function of
 * the nodes and their types. */
bool rt_jit_tpl_vepi_ok(rt_jit_lower_t *L, const rt_ir_expr_t *anchor, const rt_ir_expr_t *out, int32_t d0,
                        int32_t d1);
/* rt_jit_tpl_vepi_ok before lowering, from the nodes alone (a param or a
 * multi-element constant counts as in memory): what the session asks to
 * choose a kernel's pipeline (rt_jit_template_explicit_vector). */
bool rt_jit_tpl_vepi_takes(const rt_ir_expr_t *anchor, const rt_ir_expr_t *out, int32_t d0, int32_t d1);
RT_MUST_USE_RESULT rt_status_t rt_jit_tpl_vepi(rt_jit_lower_t *L, const rt_ir_expr_t *anchor,
                                               const rt_ir_expr_t *out, LLVMValueRef data, int32_t d0,
                                               int32_t d1, const LLVMValueRef *idx, LLVMValueRef value);

/* Prefetches, for reading, the lines that rt_jit_tpl_vepi would read
 * for n consecutive positions of dims [d0, d1) from idx on, from each
 * operand contiguous over them (a residual); emits nothing for the
 * others. Prefetches never fault, so the positions may lie past the
 * output's end. */
void rt_jit_tpl_vepi_prefetch(rt_jit_lower_t *L, const rt_ir_expr_t *anchor, const rt_ir_expr_t *out, int32_t d0,
                              int32_t d1, const LLVMValueRef *idx, int64_t n);

/* The vector epilogue for lanes that need not be contiguous positions
 * of the output (conv2d.direct's k x k tiles, whose vectors may run past
 * the end of an output row): _ok when out's tail ops are ones
 * rt_jit_tpl_vepi takes and every operand is constant over the lanes of
 * dims [d0, d1) (a bias along another dim, a one-element constant);
 * rt_jit_tpl_vepi_uniform then gives out's vector for the anchor's
 * `value` (idx: any position of the lanes' dims, the others fixed)
 * without storing it, in *out_value; it fails (INTERNAL) only for an out
 * that _ok rejects. _ok with L NULL decides from the nodes alone, before
 * lowering (as rt_jit_tpl_vepi_takes). */
bool rt_jit_tpl_vepi_uniform_ok(rt_jit_lower_t *L, const rt_ir_expr_t *anchor, const rt_ir_expr_t *out,
                                int32_t d0, int32_t d1);
RT_MUST_USE_RESULT rt_status_t rt_jit_tpl_vepi_uniform(rt_jit_lower_t *L, const rt_ir_expr_t *anchor,
                                                       const rt_ir_expr_t *out, int32_t d0, int32_t d1,
                                                       const LLVMValueRef *idx, LLVMValueRef value,
                                                       LLVMValueRef *out_value);

/* True when e is a param or a multi-element constant: its data is raw
 * row-major memory at rt_jit_node(L, e)->data. */
bool rt_jit_tpl_raw(rt_jit_lower_t *L, const rt_ir_expr_t *e);

/* The GEMM core (dense.c): C[b][M][N] = A[b][M][K] * B[b][K][N] for
 * batches b in [0, nb), split over tasks by batches, N panels or M tiles
 * (split_rows).
 * Per task: A is packed k-major by row tile (from memory when a_base is
 * set, else through a_elem), B one L2-sized block of vw*nv-column panels
 * at a time (B[k][n] as b_elem gives it, or transposed from memory when
 * b_base is set), the micro-kernel fills workspace C tiles, and the
 * epilogue writes the task's C region through out_idx (dense.c has the
 * loop nest). */
typedef struct rt_jit_gemm_core_t {
  const rt_ir_expr_t *anchor, *out;
  LLVMValueRef data;
  int64_t nb, m, n, k;
  int32_t mr, nv, vw;
  bool k_inner;  /* b_elem is cheapest walking k (pack column by column) */
  bool a_m_inner; /* a_elem is cheapest walking i (A stored k-major) */
  /* A(b, 0, 0) in memory, or NULL to copy A through a_elem: A(i, k) at
   * i * K + k, or with a_m_inner stored k-major at k * M + i (then whole
   * row tiles are copied as vectors), or with a_rows as well at k * a_ld
   * + a_rows[i] (a_rows: a constant table of M i32 offsets, e.g. the
   * input pixel each output pixel of a strided 1x1 convolution reads). */
  LLVMValueRef (*a_base)(rt_jit_lower_t *L, const struct rt_jit_gemm_core_t *g, LLVMValueRef b);
  LLVMValueRef (*a_rows)(rt_jit_lower_t *L, const struct rt_jit_gemm_core_t *g);
  int64_t a_ld;
  /* With a_rows, 1 or 2 where the rows of every whole row tile (mr rows
   * from a multiple of mr) are that many elements apart (a_rows[i0 + r]
   * = a_rows[i0] + r * a_row_step: output pixels of one output row at a
   * column stride), so a tile's step k is one strided run; else 0. */
  int64_t a_row_step;
  /* Optional with a_rows: step k at a_koff[k] instead of k * a_ld (a
   * constant table of K i32 offsets: conv2d.im2colT of a k x k kernel,
   * tap (c, kh, kw) of its zero-padded input). */
  LLVMValueRef (*a_koff)(rt_jit_lower_t *L, const struct rt_jit_gemm_core_t *g);
  rt_status_t (*a_elem)(rt_jit_lower_t *L, const struct rt_jit_gemm_core_t *g, LLVMValueRef b,
                        LLVMValueRef i, LLVMValueRef k, LLVMValueRef *out_value);
  rt_status_t (*b_elem)(rt_jit_lower_t *L, const struct rt_jit_gemm_core_t *g, LLVMValueRef b,
                        LLVMValueRef k, LLVMValueRef n, LLVMValueRef *out_value);
  /* With k_inner: B(b, 0, 0) in memory, B(k, n) at n * K + k (a weight
   * stored (N, K)), or NULL; lets the packing transpose whole vectors. */
  LLVMValueRef (*b_base)(rt_jit_lower_t *L, const struct rt_jit_gemm_core_t *g, LLVMValueRef b);
  /* Or B already in the packed panel layout in memory (nn.contrib_dense_pack's
   * weight, packed at build time): panel p's step k at p * K * vw*nv + k *
   * vw*nv, zero past N; read in place, nothing packed at run time. */
  LLVMValueRef (*b_panels)(rt_jit_lower_t *L, const struct rt_jit_gemm_core_t *g, LLVMValueRef b);
  void (*out_idx)(rt_jit_lower_t *L, const struct rt_jit_gemm_core_t *g, LLVMValueRef b,
                  LLVMValueRef i, LLVMValueRef j, LLVMValueRef *out_idx);
  /* Optional: output element (b, i, 0)'s float offset, output row i
   * contiguous along j; with no fused tail ops (out == anchor) a tile's
   * full-width rows are then copied as whole vectors. */
  LLVMValueRef (*out_row)(rt_jit_lower_t *L, const struct rt_jit_gemm_core_t *g, LLVMValueRef b,
                          LLVMValueRef i);
  /* Optional (vec_d1 > 0): column j steps the output's dims [vec_d0,
   * vec_d1) flattened by one position (conv2d.im2colT: the channel dim),
   * so a full-width tile's rows can go through the vector epilogue
   * (rt_jit_tpl_vepi) where it takes out's tail ops. */
  int32_t vec_d0, vec_d1;
  /* Optional (vec_t_d1 > 0): row i steps the output's dims [vec_t_d0,
   * vec_t_d1) flattened by one position (conv2d.im2colT: the pixels), so
   * a full tile (mr x vw*nv, mr <= vw, vw a power of 2) is transposed in
   * registers and each of its columns goes through the vector epilogue
   * with the rows in the lanes, stored contiguously; preferred to vec_d*
   * where the vector epilogue takes out's tail ops this way. */
  int32_t vec_t_d0, vec_t_d1;
  /* Split over tasks by M tiles even where N has panels enough: each task
   * then packs only its rows of A and reads all of B, where split by
   * panels every task packs all of A (conv2d.im2colT sets it for large
   * outputs, dense.c's split rule has the figures). */
  bool split_rows;
  const void *user;
} rt_jit_gemm_core_t;
RT_MUST_USE_RESULT rt_status_t rt_jit_tpl_gemm_core(rt_jit_lower_t *L, const rt_jit_gemm_core_t *g,
                                                    LLVMValueRef task, LLVMValueRef ntasks);

/* The template bodies (dense.c, conv2d.c, winograd.c, softmax.c, pool.c,
 * blocked.c). */
RT_MUST_USE_RESULT rt_status_t rt_jit_tpl_gemm(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p,
                                               const rt_ir_expr_t *out, LLVMValueRef data,
                                               LLVMValueRef task, LLVMValueRef ntasks);
RT_MUST_USE_RESULT rt_status_t rt_jit_tpl_conv2d(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p,
                                                 const rt_ir_expr_t *out, LLVMValueRef data,
                                                 LLVMValueRef task, LLVMValueRef ntasks);
RT_MUST_USE_RESULT rt_status_t rt_jit_tpl_winograd(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p,
                                                   const rt_ir_expr_t *out, LLVMValueRef data,
                                                   LLVMValueRef task, LLVMValueRef ntasks);
RT_MUST_USE_RESULT rt_status_t rt_jit_tpl_softmax(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p,
                                                  const rt_ir_expr_t *out, LLVMValueRef data,
                                                  LLVMValueRef task, LLVMValueRef ntasks);
RT_MUST_USE_RESULT rt_status_t rt_jit_tpl_pool(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p,
                                               const rt_ir_expr_t *out, LLVMValueRef data,
                                               LLVMValueRef task, LLVMValueRef ntasks);

RT_MUST_USE_RESULT rt_status_t rt_jit_tpl_blocked_dw(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p,
                                                     const rt_ir_expr_t *out, LLVMValueRef data,
                                                     LLVMValueRef task, LLVMValueRef ntasks);
RT_MUST_USE_RESULT rt_status_t rt_jit_tpl_blocked_conv(rt_jit_lower_t *L, const rt_jit_tpl_plan_t *p,
                                                       const rt_ir_expr_t *out, LLVMValueRef data,
                                                       LLVMValueRef task, LLVMValueRef ntasks);

/* nn.conv2d's plan (rt_ir_plan_conv) in NCHW terms, read once (conv2d.c;
 * used by the planner). */
typedef struct rt_jit_conv2d_t {
  int64_t n, c, h, w;       /* data NCHW */
  int64_t o, kh, kw;        /* weight O, I/G, KH, KW */
  int64_t g, cg, og;        /* groups, in / out channels per group */
  int64_t sh, sw, dh, dw;   /* strides, dilation */
  int64_t pt, pl, pb, pr;   /* padding */
  int64_t oh, ow;           /* output */
  int64_t wpack;            /* weight in panels of wpack output channels
                             * (kernel_layout OIHW{wpack}o: (O/wpack, I, KH, KW,
                             * wpack), conv2d.im2colT only), or 0: OIHW */
} rt_jit_conv2d_t;
bool rt_jit_tpl_conv2d_attrs(const rt_ir_expr_t *call, rt_jit_conv2d_t *out);

/* Whether conv2d.depthwise lowers out (anchored at the depthwise conv
 * `anchor`) in explicit vector code only (rt_jit_template_explicit_vector):
 * at most 64 taps, its weight in memory, column stride 1 or 2, its input
 * in memory or a fused expand of an input and weight in memory whose
 * tail ops the vector epilogue takes (FuseExpandDepthwise), and tail ops
 * the vector epilogue takes over the output's pixels. */
bool rt_jit_tpl_conv2d_dw_explicit(const rt_ir_expr_t *anchor, const rt_ir_expr_t *out);

/* The Winograd convolution's plan on the anchor's types (winograd.c); false
 * unless it is one with static sizes. */
bool rt_jit_tpl_winograd_attrs(const rt_ir_expr_t *call, rt_plan_winograd_t *out);

/* The pool's plan on the anchor's types (pool.c); false unless a pool
 * template takes it: NCHW float32, static; max/avg_pool2d with unit
 * dilation, column stride 1 or 2, at most 64 taps (averages: every window
 * of kh*kw counted positions); a global pool of an input in memory. */
bool rt_jit_tpl_pool_attrs(const rt_ir_expr_t *call, rt_plan_pool_t *out);

/* Whether conv2d_NCHWc.depthwise (blocked.c) takes the call with vw
 * lanes: nn.contrib_depthwise_conv2d_NCHWc, float32 static, data, kernel
 * and output blocks all vw, one output channel per input channel, data and
 * weight params or constants, at most 64 taps of at most 11 columns. */
bool rt_jit_tpl_blocked_dw_attrs(const rt_ir_expr_t *call, int32_t vw);
/* Whether conv2d_NCHWc.direct (blocked.c) takes the call with vw lanes:
 * nn.contrib_conv2d_NCHWc of groups 1, float32 static, data, kernel (in
 * and out) and output blocks all vw, data and weight params or constants,
 * at most 64 taps of at most 11 columns. */
bool rt_jit_tpl_blocked_conv_attrs(const rt_ir_expr_t *call, int32_t vw);

#endif /* RT_JIT_TEMPLATES_TEMPLATES_H_ */
