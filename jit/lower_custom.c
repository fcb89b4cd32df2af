/* The lowering of a kernel whose group involves custom ops
 * (include/rt/op.h; the registry and strategies are jit/custom.c): a group
 * that is one custom op with a native kernel, or an op a strategy claims,
 * becomes a call of that kernel; a fused group whose anchor a strategy
 * claims becomes the strategy's kernel followed by the rest of the group
 * lowered as a plain kernel; custom elementwise ops are expanded into
 * built-in ops through their element expressions first. Everything else is
 * rt_jit_lower_plain (jit/lower.c). rt_jit_lower_function is the entry
 * point for every kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/op/custom.h"
#include "jit/custom.h"
#include "jit/lower.h"
#include "runtime/tensor_impl.h"

/* ---- custom ops and strategies (rt/op.h, jit/custom.h) -------------------- */

/* A kernel that calls `kernel` (a native kernel of a custom op, or a
 * strategy's) on the op's arguments: symbol(args, nargs, ctx) =
 * kernel(args, nargs, ctx) when the call's arguments are the function's
 * params in order, else kernel(a, nin + 1, ctx) with `a` the descriptors
 * of the call's arguments (params reordered or repeated) and the output.
 * The address is a constant: such kernels belong to this process (the
 * backends keep them out of the disk cache and exports). */
static rt_status_t lower_kernel_call(LLVMModuleRef m, const rt_ir_expr_t *fn,
                                     const char *symbol, rt_kernel_fn kernel,
                                     int32_t *out_nin, int32_t *out_nout) {
  const rt_ir_expr_t *call = fn->fn.body;
  const int32_t nparams = fn->fn.nparams, nargs = call->call.nargs;
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(c);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef params[3] = {ptr, i32, ptr};
  LLVMTypeRef ty = LLVMFunctionType(i32, params, 3, 0);
  LLVMValueRef f = LLVMAddFunction(m, symbol, ty);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
  uint64_t address = 0;
  _Static_assert(sizeof kernel <= sizeof address, "a function pointer fits 64 bits");
  memcpy(&address, &kernel, sizeof kernel);
  LLVMValueRef callee = LLVMConstIntToPtr(LLVMConstInt(i64, address, 0), ptr);
  bool in_order = nargs == nparams;
  for (int32_t i = 0; in_order && i < nargs; ++i) in_order = call->call.args[i] == fn->fn.params[i];
  LLVMValueRef args[3] = {LLVMGetParam(f, 0), LLVMGetParam(f, 1), LLVMGetParam(f, 2)};
  if (!in_order) {
    const unsigned size = (unsigned)sizeof(rt_kernel_arg);
    LLVMValueRef local = LLVMBuildArrayAlloca(b, i8, LLVMConstInt(i64, (uint64_t)size * (uint64_t)(nargs + 1), 0),
                                              "args");
    LLVMSetAlignment(local, 8);
    for (int32_t i = 0; i <= nargs; ++i) {
      int32_t from = nparams; /* the output follows the params */
      for (int32_t p = 0; i < nargs && p < nparams; ++p) {
        if (call->call.args[i] == fn->fn.params[p]) {
          from = p;
          break;
        }
      }
      LLVMValueRef src_off = LLVMConstInt(i64, (uint64_t)from * size, 0);
      LLVMValueRef dst_off = LLVMConstInt(i64, (uint64_t)i * size, 0);
      LLVMValueRef src = LLVMBuildGEP2(b, i8, args[0], &src_off, 1, "");
      LLVMValueRef dst = LLVMBuildGEP2(b, i8, local, &dst_off, 1, "");
      LLVMBuildMemCpy(b, dst, 8, src, 8, LLVMConstInt(i64, size, 0));
    }
    args[0] = local;
    args[1] = LLVMConstInt(i32, (uint64_t)(nargs + 1), 0);
  }
  LLVMValueRef r = LLVMBuildCall2(b, ty, callee, args, 3, "custom_kernel");
  LLVMBuildRet(b, r);
  LLVMDisposeBuilder(b);
  *out_nin = nparams;
  *out_nout = 1;
  return RT_OK;
}

/* Byte offsets in rt_kernel_arg and rt_kernel_ctx (kernel_abi.h, LP64). */
enum {
  KARG_SIZE = 40, KARG_DATA = 0, KARG_SHAPE = 8, KARG_STRIDES = 16, KARG_RANK = 24, KARG_CODE = 28,
  KARG_BITS = 29, KARG_LANES = 30, KARG_RESERVED = 32,
  KCTX_WORKSPACE_ALLOC = 16, KCTX_WORKSPACE_FREE = 24, KCTX_SET_ERROR = 32,
};
_Static_assert(sizeof(rt_kernel_arg) == KARG_SIZE, "rt_kernel_arg layout");
_Static_assert(offsetof(rt_kernel_arg, dtype) == KARG_CODE, "rt_kernel_arg layout");
_Static_assert(offsetof(rt_kernel_ctx, workspace_alloc) == KCTX_WORKSPACE_ALLOC, "ctx layout");
_Static_assert(offsetof(rt_kernel_ctx, workspace_free) == KCTX_WORKSPACE_FREE, "ctx layout");
_Static_assert(offsetof(rt_kernel_ctx, set_error) == KCTX_SET_ERROR, "ctx layout");

static LLVMValueRef byte_gep(LLVMBuilderRef b, LLVMTypeRef i8, LLVMTypeRef i64, LLVMValueRef base,
                             uint64_t offset) {
  LLVMValueRef off = LLVMConstInt(i64, offset, 0);
  return LLVMBuildGEP2(b, i8, base, &off, 1, "");
}

/* A group whose anchor a strategy claims: the entry runs the strategy's
 * kernel on the anchor's arguments into a workspace buffer, then the rest
 * of the group (`symbol`.tail, lowered as usual, with the anchor's value as
 * an extra input after the params) into the outputs. */
static rt_status_t lower_split(LLVMModuleRef m, const rt_jit_target_t *target,
                               const rt_ir_expr_t *fn, const rt_ir_expr_t *anchor, const char *symbol, rt_kernel_fn kernel, int32_t *out_nin,
                               int32_t *out_nout) {
  const int32_t nparams = fn->fn.nparams, nanchor = anchor->call.nargs;
  rt_dtype_t dt;
  int32_t rank = 0;
  const int64_t *shape = NULL;
  RT_RETURN_IF_ERROR(rt_jit_tensor_type(anchor, &dt, &rank, &shape));
  uint64_t nbytes = rt_dtype_size(dt);
  for (int32_t d = 0; d < rank; ++d) nbytes *= (uint64_t)shape[d];
  rt_module_t *split = NULL, *scratch = NULL;
  const rt_ir_expr_t *tail = NULL, *expanded = NULL;
  char tail_symbol[200];
  snprintf(tail_symbol, sizeof tail_symbol, "%s.tail", symbol);
  int32_t tnin = 0, tnout = 0;
  rt_status_t st = rt_ir_custom_split(fn, anchor, &split, &tail);
  if (!st) st = rt_ir_custom_expand(tail, &scratch, &expanded);
  if (!st) st = rt_jit_lower_plain(m, target, expanded, tail_symbol, &tnin, &tnout);
  rt_module_release(scratch);
  rt_module_release(split);
  RT_RETURN_IF_ERROR(st);
  if (tnin != nparams + 1) {
    return RT_STATUS(UNIMPLEMENTED, "%s: a strategy inside a group with tuple params", symbol);
  }
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(c), i16 = LLVMInt16TypeInContext(c);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef void_t = LLVMVoidTypeInContext(c);
  LLVMTypeRef kparams[3] = {ptr, i32, ptr};
  LLVMTypeRef kty = LLVMFunctionType(i32, kparams, 3, 0);
  LLVMValueRef tail_fn = LLVMGetNamedFunction(m, tail_symbol);
  LLVMSetLinkage(tail_fn, LLVMInternalLinkage);
  LLVMValueRef f = LLVMAddFunction(m, symbol, kty);
  LLVMValueRef args = LLVMGetParam(f, 0), ctx = LLVMGetParam(f, 2);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, f, "entry");
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(c, f, "no_workspace");
  LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(c, f, "run");
  LLVMBasicBlockRef run_tail = LLVMAppendBasicBlockInContext(c, f, "tail");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, f, "done");
  LLVMPositionBuilderAtEnd(b, entry);
  /* Locals first, in the entry block. */
  LLVMValueRef kargs = LLVMBuildArrayAlloca(b, i8, LLVMConstInt(i64, (uint64_t)KARG_SIZE * (uint64_t)(nanchor + 1), 0), "kargs");
  LLVMSetAlignment(kargs, 8);
  LLVMValueRef targs = LLVMBuildArrayAlloca(b, i8, LLVMConstInt(i64, (uint64_t)KARG_SIZE * (uint64_t)(nparams + 1 + tnout), 0), "targs");
  LLVMSetAlignment(targs, 8);
  /* ws = ctx->workspace_alloc ? ctx->workspace_alloc(ctx, nbytes) : NULL */
  LLVMValueRef alloc_fn = LLVMBuildLoad2(b, ptr, byte_gep(b, i8, i64, ctx, KCTX_WORKSPACE_ALLOC), "");
  LLVMTypeRef aparams[2] = {ptr, i64};
  LLVMTypeRef aty = LLVMFunctionType(ptr, aparams, 2, 0);
  LLVMBasicBlockRef do_alloc = LLVMAppendBasicBlockInContext(c, f, "alloc");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, alloc_fn, ""), fail, do_alloc);
  LLVMPositionBuilderAtEnd(b, do_alloc);
  LLVMValueRef aargs[2] = {ctx, LLVMConstInt(i64, nbytes ? nbytes : 1, 0)};
  LLVMValueRef ws = LLVMBuildCall2(b, aty, alloc_fn, aargs, 2, "ws");
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, ws, ""), fail, run);
  /* fail: set_error(ctx, message); return 1 */
  LLVMPositionBuilderAtEnd(b, fail);
  char message[256];
  snprintf(message, sizeof message, "%s: no workspace memory for the output of %s (%llu bytes)",
           symbol, anchor->call.callee->op.op->name, (unsigned long long)nbytes);
  LLVMValueRef msg = LLVMBuildGlobalStringPtr(b, message, "");
  LLVMValueRef set_error = LLVMBuildLoad2(b, ptr, byte_gep(b, i8, i64, ctx, KCTX_SET_ERROR), "");
  LLVMTypeRef eparams[2] = {ptr, ptr};
  LLVMTypeRef ety = LLVMFunctionType(void_t, eparams, 2, 0);
  LLVMValueRef eargs[2] = {ctx, msg};
  LLVMBuildCall2(b, ety, set_error, eargs, 2, "");
  LLVMBuildRet(b, LLVMConstInt(i32, 1, 0));
  /* run: the strategy's kernel on the anchor's arguments, into ws. */
  LLVMPositionBuilderAtEnd(b, run);
  for (int32_t i = 0; i < nanchor; ++i) {
    int32_t from = 0;
    for (int32_t p = 0; p < nparams; ++p) {
      if (anchor->call.args[i] == fn->fn.params[p]) from = p;
    }
    LLVMBuildMemCpy(b, byte_gep(b, i8, i64, kargs, (uint64_t)i * KARG_SIZE), 8,
                    byte_gep(b, i8, i64, args, (uint64_t)from * KARG_SIZE), 8,
                    LLVMConstInt(i64, KARG_SIZE, 0));
  }
  LLVMValueRef shape_ptr = LLVMConstNull(ptr);
  if (rank > 0) {
    LLVMValueRef dims[RT_TENSOR_MAX_RANK];
    for (int32_t d = 0; d < rank; ++d) dims[d] = LLVMConstInt(i64, (uint64_t)shape[d], 0);
    LLVMTypeRef aty2 = LLVMArrayType2(i64, (uint64_t)rank);
    LLVMValueRef g = LLVMAddGlobal(m, aty2, "");
    LLVMSetInitializer(g, LLVMConstArray2(i64, dims, (uint64_t)rank));
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    shape_ptr = g;
  }
  LLVMValueRef o = byte_gep(b, i8, i64, kargs, (uint64_t)nanchor * KARG_SIZE);
  LLVMBuildStore(b, ws, byte_gep(b, i8, i64, o, KARG_DATA));
  LLVMBuildStore(b, shape_ptr, byte_gep(b, i8, i64, o, KARG_SHAPE));
  LLVMBuildStore(b, LLVMConstNull(ptr), byte_gep(b, i8, i64, o, KARG_STRIDES));
  LLVMBuildStore(b, LLVMConstInt(i32, (uint64_t)rank, 0), byte_gep(b, i8, i64, o, KARG_RANK));
  LLVMBuildStore(b, LLVMConstInt(i8, dt.code, 0), byte_gep(b, i8, i64, o, KARG_CODE));
  LLVMBuildStore(b, LLVMConstInt(i8, dt.bits, 0), byte_gep(b, i8, i64, o, KARG_BITS));
  LLVMBuildStore(b, LLVMConstInt(i16, dt.lanes, 0), byte_gep(b, i8, i64, o, KARG_LANES));
  LLVMBuildStore(b, LLVMConstInt(i64, 0, 0), byte_gep(b, i8, i64, o, KARG_RESERVED));
  uint64_t address = 0;
  memcpy(&address, &kernel, sizeof kernel);
  LLVMValueRef callee = LLVMConstIntToPtr(LLVMConstInt(i64, address, 0), ptr);
  LLVMValueRef kcall[3] = {kargs, LLVMConstInt(i32, (uint64_t)(nanchor + 1), 0), ctx};
  LLVMValueRef r = LLVMBuildCall2(b, kty, callee, kcall, 3, "strategy_kernel");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, r, LLVMConstInt(i32, 0, 0), ""), run_tail, done);
  /* tail: the rest of the group on (params..., anchor, outputs...). */
  LLVMPositionBuilderAtEnd(b, run_tail);
  if (nparams > 0) {
    LLVMBuildMemCpy(b, targs, 8, args, 8, LLVMConstInt(i64, (uint64_t)nparams * KARG_SIZE, 0));
  }
  LLVMBuildMemCpy(b, byte_gep(b, i8, i64, targs, (uint64_t)nparams * KARG_SIZE), 8, o, 8,
                  LLVMConstInt(i64, KARG_SIZE, 0));
  LLVMBuildMemCpy(b, byte_gep(b, i8, i64, targs, (uint64_t)(nparams + 1) * KARG_SIZE), 8,
                  byte_gep(b, i8, i64, args, (uint64_t)nparams * KARG_SIZE), 8,
                  LLVMConstInt(i64, (uint64_t)tnout * KARG_SIZE, 0));
  LLVMValueRef tcall[3] = {targs, LLVMConstInt(i32, (uint64_t)(nparams + 1 + tnout), 0), ctx};
  LLVMValueRef r2 = LLVMBuildCall2(b, kty, tail_fn, tcall, 3, "tail");
  LLVMBuildBr(b, done);
  /* done: free ws, return the first failure. */
  LLVMPositionBuilderAtEnd(b, done);
  LLVMValueRef result = LLVMBuildPhi(b, i32, "result");
  LLVMValueRef in_values[2] = {r, r2};
  LLVMBasicBlockRef in_blocks[2] = {run, run_tail};
  LLVMAddIncoming(result, in_values, in_blocks, 2);
  LLVMValueRef free_fn = LLVMBuildLoad2(b, ptr, byte_gep(b, i8, i64, ctx, KCTX_WORKSPACE_FREE), "");
  LLVMTypeRef fty = LLVMFunctionType(void_t, eparams, 2, 0);
  LLVMValueRef fargs[2] = {ctx, ws};
  LLVMBuildCall2(b, fty, free_fn, fargs, 2, "");
  LLVMBuildRet(b, result);
  LLVMDisposeBuilder(b);
  *out_nin = nparams;
  *out_nout = tnout;
  return RT_OK;
}

rt_status_t rt_jit_lower_function(LLVMModuleRef m, const rt_jit_target_t *target,
                                  const rt_ir_expr_t *fn, const char *symbol, int32_t *out_nin,
                                  int32_t *out_nout) {
  if (fn->kind != RT_IR_FUNCTION) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: not a function", symbol);
  }
  /* A group that is one custom opaque op, or an op a strategy claims: a
   * call of that kernel. */
  const char *triple = LLVMGetTarget(m);
  rt_kernel_fn kernel = NULL;
  char what[160];
  RT_RETURN_IF_ERROR(rt_jit_custom_kernel_for(fn, triple && *triple ? triple : "host", &kernel,
                                              what, sizeof what));
  if (kernel) return lower_kernel_call(m, fn, symbol, kernel, out_nin, out_nout);
  /* A strategy for the anchor of a fused group: its kernel, then the rest. */
  const rt_ir_expr_t *anchor = NULL;
  RT_RETURN_IF_ERROR(rt_jit_custom_anchor_for(fn, triple && *triple ? triple : "host", &kernel,
                                              &anchor, what, sizeof what));
  if (kernel) return lower_split(m, target, fn, anchor, symbol, kernel, out_nin, out_nout);
  /* Custom elementwise ops fuse through their element expressions. */
  rt_module_t *scratch = NULL;
  const rt_ir_expr_t *expanded = fn;
  RT_RETURN_IF_ERROR(rt_ir_custom_expand(fn, &scratch, &expanded));
  rt_status_t status = rt_jit_lower_plain(m, target, expanded, symbol, out_nin, out_nout);
  rt_module_release(scratch);
  return status;
}
