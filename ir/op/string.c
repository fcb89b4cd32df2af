/* Type relations of the string ops (issue 19): string_lookup (int64
 * position of each string in a vocab list, the shape kept) and
 * string_normalizer, relayrt's op for ONNX StringNormalizer. Its input is a string tensor [C] or [1, C];
 * the output keeps the rank, and its last dim is C when there are no
 * stopwords, `?` otherwise (how many words are dropped depends on the
 * values; when every word is dropped the result is one empty string, as
 * ONNX says). The reference kernel is interp/kernels/string.c; the family
 * does not lower (string tensors run on the debug executor only). */
#include <string.h>

#include "ir/op/op_impl.h"

rt_status_t rt_ir_rel_string_normalizer(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  if (!rt_dtype_is_string(x->tensor.dtype)) {
    char name[RT_DTYPE_NAME_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "the input must be a string tensor, got %s",
                     rt_dtype_name(x->tensor.dtype, name));
  }
  const int32_t rank = x->tensor.rank;
  if (rank != 1 && !(rank == 2 && (x->tensor.shape[0] == 1 || x->tensor.shape[0] == RT_DIM_ANY))) {
    char buf[RT_IR_OP_MSG_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "the input must be [C] or [1, C], got %s",
                     rt_ir_op_shape_text(rank, x->tensor.shape, buf, sizeof buf));
  }
  const rt_attrs_string_normalizer_t a = rt_ir_attrs_string_normalizer(ctx->attrs);
  if (strcmp(a.case_change_action, "NONE") != 0 && strcmp(a.case_change_action, "LOWER") != 0 &&
      strcmp(a.case_change_action, "UPPER") != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "case_change_action must be NONE, LOWER or UPPER, got \"%s\"",
                     a.case_change_action);
  }
  int32_t nstop = 0;
  if (!a.stopwords_is_none) {
    if (a.stopwords->kind != RT_ATTR_ARRAY) {
      return RT_STATUS(INVALID_ARGUMENT, "%s", "stopwords must be a list of strings");
    }
    for (int32_t i = 0; i < a.stopwords->array.count; ++i) {
      if (a.stopwords->array.items[i].kind != RT_ATTR_STRING) {
        return RT_STATUS(INVALID_ARGUMENT, "%s", "stopwords must be a list of strings");
      }
    }
    nstop = a.stopwords->array.count;
  }
  int64_t shape[2] = {1, 0};
  if (rank == 2) shape[0] = x->tensor.shape[0];
  shape[rank - 1] = nstop ? RT_DIM_ANY : x->tensor.shape[rank - 1];
  return rt_ir_op_make_tensor(ctx, RT_DTYPE_STRING, rank, shape, out_type);
}

rt_status_t rt_ir_rel_string_lookup(const rt_ir_rel_ctx_t *ctx, rt_ir_type_t **out_type) {
  const rt_ir_type_t *x;
  RT_RETURN_IF_ERROR(rt_ir_op_tensor_arg(ctx, 0, &x));
  if (!rt_dtype_is_string(x->tensor.dtype)) {
    char name[RT_DTYPE_NAME_MAX];
    return RT_STATUS(INVALID_ARGUMENT, "the input must be a string tensor, got %s",
                     rt_dtype_name(x->tensor.dtype, name));
  }
  const rt_attrs_string_lookup_t a = rt_ir_attrs_string_lookup(ctx->attrs);
  bool ok = a.vocab->kind == RT_ATTR_ARRAY;
  for (int32_t i = 0; ok && i < a.vocab->array.count; ++i) ok = a.vocab->array.items[i].kind == RT_ATTR_STRING;
  if (!ok) return RT_STATUS(INVALID_ARGUMENT, "%s", "vocab must be a list of strings");
  return rt_ir_op_retype(ctx, x, RT_DTYPE_INT64, out_type);
}
