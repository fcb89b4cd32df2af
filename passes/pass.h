/* Internal to passes/ and backend/: what a pass is and the helpers passes
 * share.
 *
 * A pass is a function over a module: it never modifies its input (which
 * other threads may be reading); it returns a new reference, either a
 * derived module (rt_ir_module_derive) holding its rewritten globals, or
 * the input itself (retained) when it changed nothing. New nodes need no
 * types: the manager runs type inference after every pass, and in debug
 * builds rt_ir_verify, which names the broken node. */
#ifndef RT_PASSES_PASS_H_
#define RT_PASSES_PASS_H_

#include "ir/ir.h"
#include "ir/op/plan.h"
#include "rt/pass.h"

#define RT_PASS_MAX_INSTRUMENTS 16
#define RT_PASS_MAX_NAMES 32

typedef enum rt_pass_id_e {
#define RT_PASS(ID, name, level, fn, executor, doc) RT_PASS_##ID,
#include "passes/passes.def"
#undef RT_PASS
  RT_PASS_COUNT
} rt_pass_id_t;

struct rt_pass_context_t {
  int32_t opt_level;
  int32_t num_required, num_disabled;
  const char *required[RT_PASS_MAX_NAMES];  /* static names from passes.def */
  const char *disabled[RT_PASS_MAX_NAMES];
  int64_t fuse_max_depth;
  int64_t jit_keep_ll;    /* keep each kernel's LLVM IR text (get_source "ll") */
  int64_t jit_keep_asm;   /* keep its assembly (an extra codegen; get_source "asm") */
  int64_t jit_disk_cache; /* 1: read/write the on-disk kernel cache (its folder: RELAYRT_CACHE_DIR) */
  int64_t num_threads;    /* each executor's kernel pool, counting the caller; 0 = one per CPU */
  int64_t jit_target;     /* jit.target: an rt_jit_target_kind_t (0 = default) */
  int64_t vm_specialize;  /* vm.specialize: an rt_vm_specialize_t (0 = auto) */
  int64_t graph_max_specializations; /* graph.max_specializations: plans kept per `?`-input graph executor */
  int64_t alter_op_layout_block; /* alter_op_layout.block: AlterOpLayout's x (0 = by jit.target) */
  int32_t num_instruments;
  rt_pass_instrument_t instruments[RT_PASS_MAX_INSTRUMENTS];
  /* Built-in instruments' state (owned, freed with the context). */
  void *owned[RT_PASS_MAX_INSTRUMENTS];
  int32_t num_owned;
};

/* The default context (opt_level 2, fuse.max_depth 256, ...), in place. */
void rt_pass_context_defaults(rt_pass_context_t *out);

/* The float lanes of the kernel templates the JIT compiles for under
 * ctx's jit.target: 16 (AVX-512) or 8 (AVX2, generic), what the passes
 * whose choices were measured per template width read (Conv2dWinograd's
 * tile sizes, AlterOpLayout's block). NULL: the default context's. */
int32_t rt_pass_template_lanes(const rt_pass_context_t *ctx);

/* Whether the pipeline under ctx (NULL: the default context) runs the
 * pass named `name` of passes.def: required, or at most ctx's opt_level
 * and not disabled (an instrument's veto is not known beforehand). What a
 * pass that prepares for a later one asks (AlterOpLayout leaves
 * Conv2dWinograd's convolutions to it). */
bool rt_pass_context_runs(const rt_pass_context_t *ctx, const char *name);

/* Whether Conv2dWinograd rewrites a convolution of this plan (NCHW,
 * float32, a constant weight) for templates of `lanes` lanes: a stride-1
 * 3x3 of groups 1 its measured tile rule takes (passes/conv2d_winograd.c). */
bool rt_pass_winograd_takes(const rt_plan_conv_t *p, int32_t lanes);

/* What a pass sees. */
typedef struct rt_pass_env_t {
  const rt_pass_context_t *ctx;
  rt_allocator_t allocator;
} rt_pass_env_t;

typedef rt_status_t (*rt_pass_fn)(const rt_pass_env_t *env, rt_module_t *in,
                                  rt_module_t **out);

#define RT_PASS(ID, name, level, fn, executor, doc)                                     \
  RT_MUST_USE_RESULT rt_status_t rt_pass_##fn(const rt_pass_env_t *env, rt_module_t *in, \
                                              rt_module_t **out);
#include "passes/passes.def"
#undef RT_PASS

/* Runs the shared pipeline, then the steps of `executor` (NULL: none).
 * When out_shared is non-NULL it receives (a new reference to) the module
 * as the shared pipeline left it, before the executor's steps: the IR that
 * is the same for every executor under one context. */
RT_MUST_USE_RESULT rt_status_t rt_pass_run_pipeline(rt_module_t *module,
                                                    const rt_pass_context_t *ctx,
                                                    const char *executor,
                                                    rt_module_t **out_module,
                                                    rt_module_t **out_shared);

/* ---- helpers for pass authors -------------------------------------------- */

/* A rewrite's state: the first member of the struct its callback gets as
 * `user`. m is the module being built (new nodes are made in it); the
 * callback sets changed when it rewrote anything. */
typedef struct rt_pass_rewrite_t {
  rt_module_t *m;
  bool changed;
} rt_pass_rewrite_t;

/* Applies rt_ir_mutate with `rewrite` (called with `state` as its user
 * pointer) to every global function of `in`, into a module derived from
 * it; *out is that module, or `in` itself (retained) when nothing
 * changed. */
RT_MUST_USE_RESULT rt_status_t rt_pass_rewrite_globals(rt_module_t *in, rt_ir_rewrite_fn rewrite,
                                                       rt_pass_rewrite_t *state, rt_module_t **out);
/* Number of non-atomic nodes (calls, tuples, projections, ifs, lets, fns)
 * over every global: the "bindings" of trace lines. */
int64_t rt_pass_count_bindings(const rt_module_t *m);
/* For every node id of `in` (below in->next_id): how many edges of its
 * globals point at the node (a call's callee and args, a tuple's fields,
 * other nodes' children, a function's body). *out_uses is allocated in
 * `arena` (the caller's; freed with it). RESOURCE_EXHAUSTED when the
 * arena or the walk cannot allocate; `in` is not changed. */
RT_MUST_USE_RESULT rt_status_t rt_pass_count_uses(rt_allocator_t allocator, const rt_module_t *in,
                                                  rt_arena_t *arena, int32_t **out_uses);
/* Is `e` a call of the built-in op `id`? */
bool rt_pass_is_op(const rt_ir_expr_t *e, rt_op_id_t id);
/* Is `e` what FoldConstant turns into a constant: a constant, or op calls
 * over constants (at most 8 calls deep; a var anywhere in it is not)? The
 * layout passes (Conv2dWinograd, DensePack) rewrite only such weights. */
bool rt_pass_is_constant_expr(const rt_ir_expr_t *e);
/* Plans conv2d call `e` on the inputs `in` (data, weight) into *p; true
 * when that succeeds and the data, weight and output are plain NCHW /
 * OIHW / NCHW (what the layout passes rewrite; not OIHW{o}o), else false (the plan's
 * error dropped: such a conv is left as it is). */
bool rt_pass_plan_conv_nchw(const rt_ir_expr_t *e, const rt_plan_input_t *in, rt_plan_conv_t *p);
/* Builds a call of built-in op `id` with text-form attributes
 * ("axis", "1"...; NULL keys for none) in m. */
RT_MUST_USE_RESULT rt_status_t rt_pass_make_call(rt_module_t *m, rt_ir_span_t span, rt_op_id_t id,
                                                 int32_t nargs, rt_ir_expr_t *const *args,
                                                 int32_t nattrs, const char *const *keys,
                                                 const char *const *values, rt_ir_expr_t **out);
/* A call of op `id` on `args` with e's attrs (e a call), the `n` given
 * keys set to the text values (replaced or added), in m, at e's span. */
RT_MUST_USE_RESULT rt_status_t rt_pass_remake_call(rt_module_t *m, const rt_ir_expr_t *e, rt_op_id_t id,
                                                   int32_t nargs, rt_ir_expr_t *const *args, int32_t n,
                                                   const char *const *keys, const char *const *vals,
                                                   rt_ir_expr_t **out);

#endif /* RT_PASSES_PASS_H_ */
