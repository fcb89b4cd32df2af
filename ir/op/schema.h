/* Attribute schemas of the built-in ops, included by ir/op/table.c only.
 *
 * One array per `fields` token of ir/ops.def, named schema_<token>. Fields
 * are in the order of TVM's C++ TVM_DECLARE_ATTRS body (v0.13,
 * include/tvm/relay/attrs/{nn,transform,reduce,image}.h): the printer
 * prints non-default attrs in this order. Defaults are the C++ defaults as
 * Relay text; NULL = required (TVM has no default and the op is
 * meaningless without one). Fields that have no C++ default but are
 * legitimately unset (nn.dense units, transpose axes, strided_slice
 * strides/axes) default to None and are ALWAYS_PRINT, as TVM prints them
 * (`units=None`). NullValue<DataType> defaults are "" (unset).
 *
 * Each array ends with a {NULL} terminator, so an op without attributes
 * (schema_none) needs no zero-length array; counts are RT_COUNTOF - 1. */
#ifndef RT_IR_OP_SCHEMA_H_
#define RT_IR_OP_SCHEMA_H_

#include "ir/attrs.h"

#define NUL RT_ATTR_F_NULLABLE
#define ALW RT_ATTR_F_ALWAYS_PRINT
#define END {NULL, RT_ATTR_K_ANY, NULL, 0}

static const rt_attr_field_t schema_none[] = {END};

/* ---- elementwise ----------------------------------------------------- */
static const rt_attr_field_t schema_leaky_relu[] = {
    {"alpha", RT_ATTR_K_FLOAT, "0.25f", 0}, /* C++ default; Python's is 0.01 */
    END};
static const rt_attr_field_t schema_clip[] = {
    {"a_min", RT_ATTR_K_FLOAT, NULL, 0},
    {"a_max", RT_ATTR_K_FLOAT, NULL, 0},
    END};
static const rt_attr_field_t schema_cast[] = {
    {"dtype", RT_ATTR_K_DTYPE, NULL, 0},
    END};
static const rt_attr_field_t schema_prelu[] = {
    {"axis", RT_ATTR_K_INT, "1", 0},
    END};
static const rt_attr_field_t schema_bias_add[] = {
    {"axis", RT_ATTR_K_INT, "1", 0},
    END};

/* ---- reductions ------------------------------------------------------ */
static const rt_attr_field_t schema_reduce[] = {
    {"axis", RT_ATTR_K_INTS, "None", NUL},
    {"keepdims", RT_ATTR_K_BOOL, "False", 0},
    {"exclude", RT_ATTR_K_BOOL, "False", 0},
    END};
static const rt_attr_field_t schema_argreduce[] = {
    {"axis", RT_ATTR_K_INTS, "None", NUL},
    {"keepdims", RT_ATTR_K_BOOL, "False", 0},
    {"select_last_index", RT_ATTR_K_BOOL, "False", 0},
    {"exclude", RT_ATTR_K_BOOL, "False", 0},
    END};
static const rt_attr_field_t schema_variance[] = {
    {"axis", RT_ATTR_K_INTS, "None", NUL},
    {"keepdims", RT_ATTR_K_BOOL, "False", 0},
    {"exclude", RT_ATTR_K_BOOL, "False", 0},
    {"unbiased", RT_ATTR_K_BOOL, "False", 0},
    END};

/* ---- data movement --------------------------------------------------- */
static const rt_attr_field_t schema_reshape[] = {
    {"newshape", RT_ATTR_K_INTS, NULL, 0},
    {"allowzero", RT_ATTR_K_BOOL, "False", 0},
    END};
static const rt_attr_field_t schema_reshape_like[] = {
    {"lhs_begin", RT_ATTR_K_INT, "0", 0},
    {"lhs_end", RT_ATTR_K_INT, "None", NUL},
    {"rhs_begin", RT_ATTR_K_INT, "0", 0},
    {"rhs_end", RT_ATTR_K_INT, "None", NUL},
    END};
static const rt_attr_field_t schema_squeeze[] = {
    {"axis", RT_ATTR_K_INTS, "None", NUL}, /* C++ default NullValue */
    END};
static const rt_attr_field_t schema_expand_dims[] = {
    {"axis", RT_ATTR_K_INT, NULL, 0},
    {"num_newaxis", RT_ATTR_K_INT, "1", 0},
    END};
static const rt_attr_field_t schema_transpose[] = {
    {"axes", RT_ATTR_K_INTS, "None", NUL | ALW},
    END};
static const rt_attr_field_t schema_concatenate[] = {
    {"axis", RT_ATTR_K_INT, "0", 0},
    END};
static const rt_attr_field_t schema_stack[] = {
    {"axis", RT_ATTR_K_INT, "0", 0},
    END};
static const rt_attr_field_t schema_split[] = {
    {"indices_or_sections", RT_ATTR_K_INT_OR_INTS, NULL, 0},
    {"axis", RT_ATTR_K_INT, "0", 0},
    END};
static const rt_attr_field_t schema_strided_slice[] = {
    {"begin", RT_ATTR_K_INTS, NULL, 0},
    {"end", RT_ATTR_K_INTS, NULL, 0},
    {"strides", RT_ATTR_K_INTS, "None", NUL | ALW},
    {"slice_mode", RT_ATTR_K_STRING, "\"end\"", 0},
    {"axes", RT_ATTR_K_INTS, "None", NUL | ALW},
    END};
static const rt_attr_field_t schema_take[] = {
    {"batch_dims", RT_ATTR_K_INT, "0", 0},
    {"axis", RT_ATTR_K_INT, "None", NUL},
    {"mode", RT_ATTR_K_STRING, "\"clip\"", 0},
    END};
static const rt_attr_field_t schema_gather[] = {
    {"axis", RT_ATTR_K_INT, "None", NUL}, /* C++ default NullValue; required by the relation */
    END};
static const rt_attr_field_t schema_gather_nd[] = {
    {"batch_dims", RT_ATTR_K_INT, "0", 0},
    {"index_rank", RT_ATTR_K_INT, "None", NUL},
    END};
/* InitOpAttrs: zeros, ones, full, broadcast_to. */
static const rt_attr_field_t schema_init[] = {
    {"shape", RT_ATTR_K_INTS, NULL, 0},
    {"dtype", RT_ATTR_K_DTYPE, "\"\"", 0},
    END};
static const rt_attr_field_t schema_tile[] = {
    {"reps", RT_ATTR_K_INTS, NULL, 0},
    END};
static const rt_attr_field_t schema_repeat[] = {
    {"repeats", RT_ATTR_K_INT, NULL, 0},
    {"axis", RT_ATTR_K_INT, "None", NUL}, /* C++ NullValue; the relation needs it */
    END};
static const rt_attr_field_t schema_reverse[] = {
    {"axis", RT_ATTR_K_INT, "None", NUL}, /* C++ NullValue; the relation needs it */
    END};
static const rt_attr_field_t schema_pad[] = {
    {"pad_width", RT_ATTR_K_INTS2, NULL, 0},
    {"pad_mode", RT_ATTR_K_STRING, "\"constant\"", 0},
    END};
static const rt_attr_field_t schema_layout_transform[] = {
    {"src_layout", RT_ATTR_K_STRING, NULL, 0},
    {"dst_layout", RT_ATTR_K_STRING, NULL, 0},
    END};
static const rt_attr_field_t schema_one_hot[] = {
    {"depth", RT_ATTR_K_INT, "1", 0},
    {"axis", RT_ATTR_K_INT, "-1", 0},
    {"dtype", RT_ATTR_K_DTYPE, "\"\"", 0},
    END};
/* SubPixelAttrs: depth_to_space, space_to_depth. */
static const rt_attr_field_t schema_subpixel[] = {
    {"block_size", RT_ATTR_K_INT, "1", 0},
    {"layout", RT_ATTR_K_STRING, "\"NCHW\"", 0},
    {"mode", RT_ATTR_K_STRING, "\"DCR\"", 0},
    END};
/* ArangeAttrs also has Expr fields start/stop/step that duplicate the
 * inputs; they are accepted (any value, ignored by the relation) so text
 * that carries them parses. dtype has no C++ default: it is printed
 * always, and defaults to float32 (the Python default) when omitted. */
static const rt_attr_field_t schema_arange[] = {
    {"start", RT_ATTR_K_ANY, "None", NUL},
    {"stop", RT_ATTR_K_ANY, "None", NUL},
    {"step", RT_ATTR_K_ANY, "None", NUL},
    {"dtype", RT_ATTR_K_DTYPE, "\"float32\"", ALW},
    END};
static const rt_attr_field_t schema_shape_of[] = {
    {"dtype", RT_ATTR_K_DTYPE, "\"\"", 0}, /* "" = int32 */
    END};
static const rt_attr_field_t schema_ndarray_size[] = {
    {"dtype", RT_ATTR_K_DTYPE, "\"\"", 0}, /* "" = int32 */
    END};

/* ---- image ----------------------------------------------------------- */
static const rt_attr_field_t schema_resize2d[] = {
    {"size", RT_ATTR_K_INTS, "None", NUL},
    {"roi", RT_ATTR_K_FLOATS, "None", NUL},
    {"layout", RT_ATTR_K_STRING, "\"NCHW\"", 0},
    {"method", RT_ATTR_K_STRING, "\"linear\"", 0},
    {"coordinate_transformation_mode", RT_ATTR_K_STRING, "\"half_pixel\"", 0},
    {"rounding_method", RT_ATTR_K_STRING, "\"round\"", 0},
    {"cubic_alpha", RT_ATTR_K_FLOAT, "-0.5f", 0},
    {"cubic_exclude", RT_ATTR_K_INT, "0", 0},
    {"extrapolation_value", RT_ATTR_K_FLOAT, "0f", 0},
    {"out_dtype", RT_ATTR_K_DTYPE, "\"\"", 0},
    END};
static const rt_attr_field_t schema_upsampling[] = {
    {"scale_h", RT_ATTR_K_FLOAT, NULL, 0},
    {"scale_w", RT_ATTR_K_FLOAT, NULL, 0},
    {"layout", RT_ATTR_K_STRING, "\"NCHW\"", 0},
    {"method", RT_ATTR_K_STRING, "\"nearest_neighbor\"", 0},
    {"align_corners", RT_ATTR_K_BOOL, "False", 0},
    END};

/* ---- dense / matmul -------------------------------------------------- */
static const rt_attr_field_t schema_dense[] = {
    {"units", RT_ATTR_K_INT, "None", NUL | ALW},
    {"out_dtype", RT_ATTR_K_DTYPE, "\"\"", 0},
    END};
static const rt_attr_field_t schema_matmul[] = {
    {"units", RT_ATTR_K_INT, "None", NUL | ALW},
    {"out_dtype", RT_ATTR_K_DTYPE, "\"\"", 0},
    {"transpose_a", RT_ATTR_K_BOOL, "False", 0},
    {"transpose_b", RT_ATTR_K_BOOL, "False", 0},
    END};
static const rt_attr_field_t schema_batch_matmul[] = {
    {"out_dtype", RT_ATTR_K_DTYPE, "\"\"", 0},
    {"transpose_a", RT_ATTR_K_BOOL, "False", 0},
    {"transpose_b", RT_ATTR_K_BOOL, "False", 0}, /* C++ default; Python's is True */
    END};

/* ---- convolution ----------------------------------------------------- */
static const rt_attr_field_t schema_conv1d[] = {
    {"strides", RT_ATTR_K_INTS, "[1]", 0},
    {"padding", RT_ATTR_K_INTS, "[0, 0]", 0},
    {"dilation", RT_ATTR_K_INTS, "[1]", 0},
    {"groups", RT_ATTR_K_INT, "1", 0},
    {"channels", RT_ATTR_K_INT, "None", NUL},
    {"kernel_size", RT_ATTR_K_INTS, "None", NUL},
    {"data_layout", RT_ATTR_K_STRING, "\"NCW\"", 0},
    {"kernel_layout", RT_ATTR_K_STRING, "\"OIW\"", 0},
    {"out_layout", RT_ATTR_K_STRING, "\"\"", 0},
    {"out_dtype", RT_ATTR_K_DTYPE, "\"\"", 0},
    END};
/* padding's C++ default is [0, 0] (TVM prints the Python-expanded
 * [0, 0, 0, 0] because it differs). */
static const rt_attr_field_t schema_conv2d[] = {
    {"strides", RT_ATTR_K_INTS, "[1, 1]", 0},
    {"padding", RT_ATTR_K_INTS, "[0, 0]", 0},
    {"dilation", RT_ATTR_K_INTS, "[1, 1]", 0},
    {"groups", RT_ATTR_K_INT, "1", 0},
    {"channels", RT_ATTR_K_INT, "None", NUL},
    {"kernel_size", RT_ATTR_K_INTS, "None", NUL},
    {"data_layout", RT_ATTR_K_STRING, "\"NCHW\"", 0},
    {"kernel_layout", RT_ATTR_K_STRING, "\"OIHW\"", 0},
    {"out_layout", RT_ATTR_K_STRING, "\"\"", 0},
    {"out_dtype", RT_ATTR_K_DTYPE, "\"\"", 0},
    END};
static const rt_attr_field_t schema_conv2d_transpose[] = {
    {"channels", RT_ATTR_K_INT, "None", NUL},
    {"kernel_size", RT_ATTR_K_INTS, "None", NUL},
    {"strides", RT_ATTR_K_INTS, "[1, 1]", 0},
    {"output_padding", RT_ATTR_K_INTS, "[0, 0]", 0},
    {"padding", RT_ATTR_K_INTS, "[0, 0]", 0},
    {"dilation", RT_ATTR_K_INTS, "[1, 1]", 0},
    {"groups", RT_ATTR_K_INT, "1", 0},
    {"data_layout", RT_ATTR_K_STRING, "\"NCHW\"", 0},
    {"kernel_layout", RT_ATTR_K_STRING, "\"IOHW\"", 0},
    {"out_layout", RT_ATTR_K_STRING, "\"\"", 0},
    {"out_dtype", RT_ATTR_K_DTYPE, "\"\"", 0},
    END};

/* ---- pooling --------------------------------------------------------- */
static const rt_attr_field_t schema_max_pool2d[] = {
    {"pool_size", RT_ATTR_K_INTS, NULL, 0},
    {"strides", RT_ATTR_K_INTS, "[1, 1]", 0},
    {"dilation", RT_ATTR_K_INTS, "[1, 1]", 0},
    {"padding", RT_ATTR_K_INTS, "[0, 0]", 0},
    {"layout", RT_ATTR_K_STRING, "\"NCHW\"", 0},
    {"out_layout", RT_ATTR_K_STRING, "\"\"", 0},
    {"ceil_mode", RT_ATTR_K_BOOL, "False", 0},
    END};
static const rt_attr_field_t schema_avg_pool2d[] = {
    {"pool_size", RT_ATTR_K_INTS, NULL, 0},
    {"strides", RT_ATTR_K_INTS, "[1, 1]", 0},
    {"dilation", RT_ATTR_K_INTS, "[1, 1]", 0},
    {"padding", RT_ATTR_K_INTS, "[0, 0]", 0},
    {"layout", RT_ATTR_K_STRING, "\"NCHW\"", 0},
    {"out_layout", RT_ATTR_K_STRING, "\"\"", 0},
    {"ceil_mode", RT_ATTR_K_BOOL, "False", 0},
    {"count_include_pad", RT_ATTR_K_BOOL, "False", 0},
    END};
static const rt_attr_field_t schema_max_pool1d[] = {
    {"pool_size", RT_ATTR_K_INTS, NULL, 0},
    {"strides", RT_ATTR_K_INTS, "[1]", 0},
    {"dilation", RT_ATTR_K_INTS, "[1]", 0},
    {"padding", RT_ATTR_K_INTS, "[0]", 0},
    {"layout", RT_ATTR_K_STRING, "\"NCW\"", 0},
    {"out_layout", RT_ATTR_K_STRING, "\"\"", 0},
    {"ceil_mode", RT_ATTR_K_BOOL, "False", 0},
    END};
static const rt_attr_field_t schema_avg_pool1d[] = {
    {"pool_size", RT_ATTR_K_INTS, NULL, 0},
    {"strides", RT_ATTR_K_INTS, "[1]", 0},
    {"dilation", RT_ATTR_K_INTS, "[1]", 0},
    {"padding", RT_ATTR_K_INTS, "[0]", 0},
    {"layout", RT_ATTR_K_STRING, "\"NCW\"", 0},
    {"out_layout", RT_ATTR_K_STRING, "\"\"", 0},
    {"ceil_mode", RT_ATTR_K_BOOL, "False", 0},
    {"count_include_pad", RT_ATTR_K_BOOL, "False", 0},
    END};
static const rt_attr_field_t schema_global_pool2d[] = {
    {"layout", RT_ATTR_K_STRING, "\"NCHW\"", 0},
    {"out_layout", RT_ATTR_K_STRING, "\"\"", 0},
    END};
static const rt_attr_field_t schema_adaptive_pool2d[] = {
    {"output_size", RT_ATTR_K_INTS, "[]", 0}, /* [] = keep the input size */
    {"layout", RT_ATTR_K_STRING, "\"NCHW\"", 0},
    {"out_layout", RT_ATTR_K_STRING, "\"\"", 0},
    END};
static const rt_attr_field_t schema_adaptive_pool1d[] = {
    {"output_size", RT_ATTR_K_INTS, "[]", 0},
    {"layout", RT_ATTR_K_STRING, "\"NCW\"", 0},
    {"out_layout", RT_ATTR_K_STRING, "\"\"", 0},
    END};

/* ---- softmax, normalization ------------------------------------------ */
static const rt_attr_field_t schema_softmax[] = {
    {"axis", RT_ATTR_K_INT, "-1", 0},
    END};
static const rt_attr_field_t schema_batch_norm[] = {
    {"axis", RT_ATTR_K_INT, "1", 0},
    {"epsilon", RT_ATTR_K_FLOAT, "1e-05f", 0},
    {"center", RT_ATTR_K_BOOL, "True", 0},
    {"scale", RT_ATTR_K_BOOL, "True", 0},
    END};
static const rt_attr_field_t schema_layer_norm[] = {
    {"axis", RT_ATTR_K_INT, "-1", 0},
    {"epsilon", RT_ATTR_K_FLOAT, "1e-05f", 0},
    {"center", RT_ATTR_K_BOOL, "True", 0},
    {"scale", RT_ATTR_K_BOOL, "True", 0},
    END};
static const rt_attr_field_t schema_group_norm[] = {
    {"num_groups", RT_ATTR_K_INT, "0", 0},
    {"axis", RT_ATTR_K_INT, "1", 0},
    {"epsilon", RT_ATTR_K_FLOAT, "1e-05f", 0},
    {"center", RT_ATTR_K_BOOL, "True", 0},
    {"scale", RT_ATTR_K_BOOL, "True", 0},
    END};
static const rt_attr_field_t schema_instance_norm[] = {
    {"axis", RT_ATTR_K_INT, "1", 0},
    {"epsilon", RT_ATTR_K_FLOAT, "1e-05f", 0},
    {"center", RT_ATTR_K_BOOL, "True", 0},
    {"scale", RT_ATTR_K_BOOL, "True", 0},
    END};
static const rt_attr_field_t schema_l2_normalize[] = {
    {"eps", RT_ATTR_K_FLOAT, NULL, 0},
    {"axis", RT_ATTR_K_INTS, "None", NUL | ALW},
    END};
static const rt_attr_field_t schema_dropout[] = {
    {"rate", RT_ATTR_K_FLOAT, "0.5f", 0},
    END};
static const rt_attr_field_t schema_lrn[] = {
    {"size", RT_ATTR_K_INT, "5", 0},
    {"axis", RT_ATTR_K_INT, "1", 0},
    {"bias", RT_ATTR_K_FLOAT, "2f", 0},
    {"alpha", RT_ATTR_K_FLOAT, "0.0001f", 0}, /* C++ default; Python's is 1e-05 */
    {"beta", RT_ATTR_K_FLOAT, "0.75f", 0},
    END};

/* ---- algorithm ------------------------------------------------------- */
/* ScanopAttrs (cumsum): every field defaults to NullValue in C++; axis None
 * scans the flattened input, dtype "" keeps the input's, exclusive None is
 * false. */
static const rt_attr_field_t schema_scan[] = {
    {"axis", RT_ATTR_K_INT, "None", NUL},
    {"dtype", RT_ATTR_K_DTYPE, "\"\"", 0},
    {"exclusive", RT_ATTR_K_BOOL, "None", NUL},
    END};
/* TopKAttrs: k < 1 selects the whole axis; dtype (of the indices) has no
 * C++ default: printed always, int32 when omitted (the Python default). */
static const rt_attr_field_t schema_topk[] = {
    {"k", RT_ATTR_K_INT, "1", 0},
    {"axis", RT_ATTR_K_INT, "-1", 0},
    {"ret_type", RT_ATTR_K_STRING, "\"both\"", 0},
    {"is_ascend", RT_ATTR_K_BOOL, "False", 0},
    {"dtype", RT_ATTR_K_DTYPE, "\"int32\"", ALW},
    END};
/* dyn.reshape: ReshapeAttrs less newshape (the second input holds it). */
static const rt_attr_field_t schema_dyn_reshape[] = {
    {"allowzero", RT_ATTR_K_BOOL, "False", 0},
    END};

#undef NUL
#undef ALW
#undef END

#endif /* RT_IR_OP_SCHEMA_H_ */
