/* Tests of the elementwise and broadcast kernels (interp/kernels/elemwise.c).
 *
 * The first block is generated: expected values from numpy, each case with
 * the numpy expression above it, printed by
 *   /usr/bin/python3 test/interp/gen_cases.py elemwise
 * Inputs are float64 in the expression and the result is rounded to the
 * output dtype, so the comparison tolerance (rtol 1e-5 for float32) only
 * absorbs float32 input rounding. The hand-written block after it covers
 * integer semantics (wraparound, division by zero, shifts), NaN rules,
 * casts, fills and the channel ops, with the arithmetic in comments. */
#include "kernel_test_util.h"

KT_MAIN("kernels_elemwise")

/* ---- generated ------------------------------------------------------------ */

/* (np.exp(x)).astype(np.float32) */
TEST(elemwise_exp_f32) {
  CHECK("exp", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] 0.0820849985 0.606530666 1 2.1170001 4.48168898 20.085537"));
}

/* (np.exp(x)).astype(np.float64) */
TEST(elemwise_exp_f64) {
  CHECK("exp", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] 0.28650479686019009 1.1051709180756477 7.3890560989306504"));
}

/* (np.exp(x)).astype(np.float32) */
TEST(elemwise_exp_special) {
  CHECK("exp", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf 0 1"));
}

/* (np.log(x)).astype(np.float32) */
TEST(elemwise_log_f32) {
  CHECK("log", "", IN("f32[6] 0.25 0.5 1 2 10 100"),
        OUT("f32[6] -1.38629436 -0.693147182 0 0.693147182 2.30258512 4.60517025"));
}

/* (np.log(x)).astype(np.float64) */
TEST(elemwise_log_f64) {
  CHECK("log", "", IN("f64[3] 0.10000000000000001 1.5 7"),
        OUT("f64[3] -2.3025850929940455 0.40546510810816438 1.9459101490553132"));
}

/* (np.log(x)).astype(np.float32) */
TEST(elemwise_log_special) {
  CHECK("log", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf nan -inf"));
}

/* (np.log2(x)).astype(np.float32) */
TEST(elemwise_log2_f32) {
  CHECK("log2", "", IN("f32[6] 0.25 0.5 1 2 10 100"),
        OUT("f32[6] -2 -1 0 1 3.32192802 6.64385605"));
}

/* (np.log2(x)).astype(np.float64) */
TEST(elemwise_log2_f64) {
  CHECK("log2", "", IN("f64[3] 0.10000000000000001 1.5 7"),
        OUT("f64[3] -3.3219280948873622 0.58496250072115619 2.8073549220576042"));
}

/* (np.log2(x)).astype(np.float32) */
TEST(elemwise_log2_special) {
  CHECK("log2", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf nan -inf"));
}

/* (np.log10(x)).astype(np.float32) */
TEST(elemwise_log10_f32) {
  CHECK("log10", "", IN("f32[6] 0.25 0.5 1 2 10 100"),
        OUT("f32[6] -0.60206002 -0.30103001 0 0.30103001 1 2"));
}

/* (np.log10(x)).astype(np.float64) */
TEST(elemwise_log10_f64) {
  CHECK("log10", "", IN("f64[3] 0.10000000000000001 1.5 7"),
        OUT("f64[3] -1 0.17609125905568124 0.84509804001425681"));
}

/* (np.log10(x)).astype(np.float32) */
TEST(elemwise_log10_special) {
  CHECK("log10", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf nan -inf"));
}

/* (np.sqrt(x)).astype(np.float32) */
TEST(elemwise_sqrt_f32) {
  CHECK("sqrt", "", IN("f32[6] 0.25 0.5 1 2 10 100"),
        OUT("f32[6] 0.5 0.707106769 1 1.41421354 3.1622777 10"));
}

/* (np.sqrt(x)).astype(np.float64) */
TEST(elemwise_sqrt_f64) {
  CHECK("sqrt", "", IN("f64[3] 0.10000000000000001 1.5 7"),
        OUT("f64[3] 0.31622776601683794 1.2247448713915889 2.6457513110645907"));
}

/* (np.sqrt(x)).astype(np.float32) */
TEST(elemwise_sqrt_special) {
  CHECK("sqrt", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf nan 0"));
}

/* (1 / np.sqrt(x)).astype(np.float32) */
TEST(elemwise_rsqrt_f32) {
  CHECK("rsqrt", "", IN("f32[6] 0.25 0.5 1 2 10 100"),
        OUT("f32[6] 2 1.41421354 1 0.707106769 0.316227764 0.100000001"));
}

/* (1 / np.sqrt(x)).astype(np.float64) */
TEST(elemwise_rsqrt_f64) {
  CHECK("rsqrt", "", IN("f64[3] 0.10000000000000001 1.5 7"),
        OUT("f64[3] 3.1622776601683791 0.81649658092772615 0.3779644730092272"));
}

/* (1 / np.sqrt(x)).astype(np.float32) */
TEST(elemwise_rsqrt_special) {
  CHECK("rsqrt", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan 0 nan inf"));
}

/* (1 / (1 + np.exp(-x))).astype(np.float32) */
TEST(elemwise_sigmoid_f32) {
  CHECK("sigmoid", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] 0.0758581832 0.377540678 0.5 0.679178715 0.817574501 0.952574134"));
}

/* (1 / (1 + np.exp(-x))).astype(np.float64) */
TEST(elemwise_sigmoid_f64) {
  CHECK("sigmoid", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] 0.22270013882530884 0.52497918747894001 0.88079707797788254"));
}

/* (1 / (1 + np.exp(-x))).astype(np.float32) */
TEST(elemwise_sigmoid_special) {
  CHECK("sigmoid", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan 1 0 0.5"));
}

/* (np.tanh(x)).astype(np.float32) */
TEST(elemwise_tanh_f32) {
  CHECK("tanh", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] -0.986614287 -0.462117165 0 0.635148942 0.905148268 0.995054781"));
}

/* (np.tanh(x)).astype(np.float64) */
TEST(elemwise_tanh_f64) {
  CHECK("tanh", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] -0.84828363995751288 0.099667994624955819 0.9640275800758169"));
}

/* (np.tanh(x)).astype(np.float32) */
TEST(elemwise_tanh_special) {
  CHECK("tanh", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan 1 -1 0"));
}

/* (erf(x)).astype(np.float32) */
TEST(elemwise_erf_f32) {
  CHECK("erf", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] -0.999593019 -0.520499885 0 0.711155653 0.966105163 0.999977887"));
}

/* (erf(x)).astype(np.float64) */
TEST(elemwise_erf_f64) {
  CHECK("erf", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] -0.92290012825645817 0.1124629160182849 0.99532226501895271"));
}

/* (erf(x)).astype(np.float32) */
TEST(elemwise_erf_special) {
  CHECK("erf", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan 1 -1 0"));
}

/* (np.sin(x)).astype(np.float32) */
TEST(elemwise_sin_f32) {
  CHECK("sin", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] -0.598472118 -0.47942555 0 0.681638777 0.997494996 0.141120002"));
}

/* (np.sin(x)).astype(np.float64) */
TEST(elemwise_sin_f64) {
  CHECK("sin", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] -0.94898461935558631 0.099833416646828169 0.9092974268256816"));
}

/* (np.sin(x)).astype(np.float32) */
TEST(elemwise_sin_special) {
  CHECK("sin", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan nan nan 0"));
}

/* (np.cos(x)).astype(np.float32) */
TEST(elemwise_cos_f32) {
  CHECK("cos", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] -0.801143587 0.87758255 1 0.731688857 0.070737198 -0.989992499"));
}

/* (np.cos(x)).astype(np.float64) */
TEST(elemwise_cos_f64) {
  CHECK("cos", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] 0.31532236239526873 0.9950041652780256 -0.41614683654714241"));
}

/* (np.cos(x)).astype(np.float32) */
TEST(elemwise_cos_special) {
  CHECK("cos", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan nan nan 1"));
}

/* (np.tan(x)).astype(np.float32) */
TEST(elemwise_tan_f32) {
  CHECK("tan", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] 0.747022271 -0.546302497 0 0.931596458 14.1014204 -0.142546549"));
}

/* (np.tan(x)).astype(np.float64) */
TEST(elemwise_tan_f64) {
  CHECK("tan", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] -3.0095696738628308 0.10033467208545055 -2.1850398632615189"));
}

/* (np.tan(x)).astype(np.float32) */
TEST(elemwise_tan_special) {
  CHECK("tan", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan nan nan 0"));
}

/* (np.arcsin(x)).astype(np.float32) */
TEST(elemwise_asin_f32) {
  CHECK("asin", "", IN("f32[6] -0.899999976 -0.5 0 0.300000012 0.600000024 0.99000001"),
        OUT("f32[6] -1.11976945 -0.52359879 0 0.304692656 0.643501163 1.42925692"));
}

/* (np.arcsin(x)).astype(np.float64) */
TEST(elemwise_asin_f64) {
  CHECK("asin", "", IN("f64[3] -0.25 0.20000000000000001 0.80000000000000004"),
        OUT("f64[3] -0.25268025514207865 0.2013579207903308 0.9272952180016123"));
}

/* (np.arcsin(x)).astype(np.float32) */
TEST(elemwise_asin_special) {
  CHECK("asin", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan nan nan 0"));
}

/* (np.arccos(x)).astype(np.float32) */
TEST(elemwise_acos_f32) {
  CHECK("acos", "", IN("f32[6] -0.899999976 -0.5 0 0.300000012 0.600000024 0.99000001"),
        OUT("f32[6] 2.69056582 2.09439516 1.57079637 1.26610363 0.927295208 0.14153941"));
}

/* (np.arccos(x)).astype(np.float64) */
TEST(elemwise_acos_f64) {
  CHECK("acos", "", IN("f64[3] -0.25 0.20000000000000001 0.80000000000000004"),
        OUT("f64[3] 1.8234765819369751 1.3694384060045657 0.64350110879328426"));
}

/* (np.arccos(x)).astype(np.float32) */
TEST(elemwise_acos_special) {
  CHECK("acos", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan nan nan 1.57079637"));
}

/* (np.arctan(x)).astype(np.float32) */
TEST(elemwise_atan_f32) {
  CHECK("atan", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] -1.19028997 -0.463647604 0 0.643501103 0.982793748 1.24904573"));
}

/* (np.arctan(x)).astype(np.float64) */
TEST(elemwise_atan_f64) {
  CHECK("atan", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] -0.89605538457134393 0.099668652491162038 1.1071487177940904"));
}

/* (np.arctan(x)).astype(np.float32) */
TEST(elemwise_atan_special) {
  CHECK("atan", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan 1.57079637 -1.57079637 0"));
}

/* (np.sinh(x)).astype(np.float32) */
TEST(elemwise_sinh_f32) {
  CHECK("sinh", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] -6.05020428 -0.521095276 0 0.822316706 2.12927938 10.0178747"));
}

/* (np.sinh(x)).astype(np.float64) */
TEST(elemwise_sinh_f64) {
  CHECK("sinh", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] -1.6019190803008254 0.10016675001984404 3.6268604078470186"));
}

/* (np.sinh(x)).astype(np.float32) */
TEST(elemwise_sinh_special) {
  CHECK("sinh", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf -inf 0"));
}

/* (np.cosh(x)).astype(np.float32) */
TEST(elemwise_cosh_f32) {
  CHECK("cosh", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] 6.13228941 1.12762594 1 1.29468334 2.3524096 10.0676622"));
}

/* (np.cosh(x)).astype(np.float64) */
TEST(elemwise_cosh_f64) {
  CHECK("cosh", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] 1.8884238771610156 1.0050041680558035 3.7621956910836314"));
}

/* (np.cosh(x)).astype(np.float32) */
TEST(elemwise_cosh_special) {
  CHECK("cosh", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf inf 1"));
}

/* (np.arcsinh(x)).astype(np.float32) */
TEST(elemwise_asinh_f32) {
  CHECK("asinh", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] -1.6472311 -0.481211811 0 0.693147182 1.19476318 1.81844652"));
}

/* (np.arcsinh(x)).astype(np.float64) */
TEST(elemwise_asinh_f64) {
  CHECK("asinh", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] -1.0475930126492587 0.099834078899207562 1.4436354751788103"));
}

/* (np.arcsinh(x)).astype(np.float32) */
TEST(elemwise_asinh_special) {
  CHECK("asinh", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf -inf 0"));
}

/* (np.arccosh(x)).astype(np.float32) */
TEST(elemwise_acosh_f32) {
  CHECK("acosh", "", IN("f32[4] 1 1.5 2 10"),
        OUT("f32[4] 0 0.962423623 1.31695795 2.99322295"));
}

/* (np.arccosh(x)).astype(np.float64) */
TEST(elemwise_acosh_f64) {
  CHECK("acosh", "", IN("f64[3] 1 3 100"),
        OUT("f64[3] 0 1.7627471740390861 5.298292365610485"));
}

/* (np.arccosh(x)).astype(np.float32) */
TEST(elemwise_acosh_special) {
  CHECK("acosh", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf nan nan"));
}

/* (np.arctanh(x)).astype(np.float32) */
TEST(elemwise_atanh_f32) {
  CHECK("atanh", "", IN("f32[6] -0.899999976 -0.5 0 0.300000012 0.600000024 0.99000001"),
        OUT("f32[6] -1.47221935 -0.549306154 0 0.309519619 0.693147242 2.64665294"));
}

/* (np.arctanh(x)).astype(np.float64) */
TEST(elemwise_atanh_f64) {
  CHECK("atanh", "", IN("f64[3] -0.25 0.20000000000000001 0.80000000000000004"),
        OUT("f64[3] -0.25541281188299536 0.20273255405408219 1.0986122886681098"));
}

/* (np.arctanh(x)).astype(np.float32) */
TEST(elemwise_atanh_special) {
  CHECK("atanh", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan nan nan 0"));
}

/* (np.negative(x)).astype(np.float32) */
TEST(elemwise_negative_f32) {
  CHECK("negative", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] 2.5 0.5 -0 -0.75 -1.5 -3"));
}

/* (np.negative(x)).astype(np.float64) */
TEST(elemwise_negative_f64) {
  CHECK("negative", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] 1.25 -0.10000000000000001 -2"));
}

/* (np.negative(x)).astype(np.float32) */
TEST(elemwise_negative_special) {
  CHECK("negative", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan -inf inf -0"));
}

/* (np.abs(x)).astype(np.float32) */
TEST(elemwise_abs_f32) {
  CHECK("abs", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] 2.5 0.5 0 0.75 1.5 3"));
}

/* (np.abs(x)).astype(np.float64) */
TEST(elemwise_abs_f64) {
  CHECK("abs", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] 1.25 0.10000000000000001 2"));
}

/* (np.abs(x)).astype(np.float32) */
TEST(elemwise_abs_special) {
  CHECK("abs", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf inf 0"));
}

/* (np.sign(x)).astype(np.float32) */
TEST(elemwise_sign_f32) {
  CHECK("sign", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] -1 -1 0 1 1 1"));
}

/* (np.sign(x)).astype(np.float64) */
TEST(elemwise_sign_f64) {
  CHECK("sign", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] -1 1 1"));
}

/* (np.sign(x)).astype(np.float32) */
TEST(elemwise_sign_special) {
  CHECK("sign", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan 1 -1 0"));
}

/* (np.floor(x)).astype(np.float32) */
TEST(elemwise_floor_f32) {
  CHECK("floor", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] -3 -1 0 0 1 3"));
}

/* (np.floor(x)).astype(np.float64) */
TEST(elemwise_floor_f64) {
  CHECK("floor", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] -2 0 2"));
}

/* (np.floor(x)).astype(np.float32) */
TEST(elemwise_floor_special) {
  CHECK("floor", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf -inf 0"));
}

/* (np.ceil(x)).astype(np.float32) */
TEST(elemwise_ceil_f32) {
  CHECK("ceil", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] -2 -0 0 1 2 3"));
}

/* (np.ceil(x)).astype(np.float64) */
TEST(elemwise_ceil_f64) {
  CHECK("ceil", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] -1 1 2"));
}

/* (np.ceil(x)).astype(np.float32) */
TEST(elemwise_ceil_special) {
  CHECK("ceil", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf -inf 0"));
}

/* (np.trunc(x)).astype(np.float32) */
TEST(elemwise_trunc_f32) {
  CHECK("trunc", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] -2 -0 0 0 1 3"));
}

/* (np.trunc(x)).astype(np.float64) */
TEST(elemwise_trunc_f64) {
  CHECK("trunc", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] -1 0 2"));
}

/* (np.trunc(x)).astype(np.float32) */
TEST(elemwise_trunc_special) {
  CHECK("trunc", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf -inf 0"));
}

/* (np.copy(x)).astype(np.float32) */
TEST(elemwise_copy_f32) {
  CHECK("copy", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] -2.5 -0.5 0 0.75 1.5 3"));
}

/* (np.copy(x)).astype(np.float64) */
TEST(elemwise_copy_f64) {
  CHECK("copy", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] -1.25 0.10000000000000001 2"));
}

/* (np.copy(x)).astype(np.float32) */
TEST(elemwise_copy_special) {
  CHECK("copy", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf -inf 0"));
}

/* (np.maximum(x, 0)).astype(np.float32) */
TEST(elemwise_relu_f32) {
  CHECK("nn.relu", "", IN("f32[6] -2.5 -0.5 0 0.75 1.5 3"),
        OUT("f32[6] 0 0 0 0.75 1.5 3"));
}

/* (np.maximum(x, 0)).astype(np.float64) */
TEST(elemwise_relu_f64) {
  CHECK("nn.relu", "", IN("f64[3] -1.25 0.10000000000000001 2"),
        OUT("f64[3] 0 0.10000000000000001 2"));
}

/* (np.maximum(x, 0)).astype(np.float32) */
TEST(elemwise_relu_special) {
  CHECK("nn.relu", "", IN("f32[4] nan inf -inf 0"),
        OUT("f32[4] nan inf 0 0"));
}

/* np.exp(x.astype(np.float32)).astype(np.float16) */
TEST(elemwise_exp_f16) {
  CHECK("exp", "", IN("f16[3] -1 0.5 2"),
        OUT("f16[3] 0.36792 1.6484 7.3906"));
}

/* np.tanh(x.astype(np.float32)).astype(np.float16) */
TEST(elemwise_tanh_f16) {
  CHECK("tanh", "", IN("f16[3] -1 0.5 2"),
        OUT("f16[3] -0.76172 0.46216 0.96387"));
}

/* (a + b).astype(np.float32) */
TEST(elemwise_add_bcast_row) {
  CHECK("add", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[3] 2 -0.5 4"),
        OUT("f32[2,3] 3.5 -2.5 7 2.5 3.5 -2"));
}

/* (a + b).astype(np.float32) */
TEST(elemwise_add_scalar) {
  CHECK("add", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[] 3"),
        OUT("f32[2,3] 4.5 1 6 3.5 7 -3"));
}

/* (a - b).astype(np.float32) */
TEST(elemwise_subtract_bcast_row) {
  CHECK("subtract", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[3] 2 -0.5 4"),
        OUT("f32[2,3] -0.5 -1.5 -1 -1.5 4.5 -10"));
}

/* (a - b).astype(np.float32) */
TEST(elemwise_subtract_scalar) {
  CHECK("subtract", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[] 3"),
        OUT("f32[2,3] -1.5 -5 0 -2.5 1 -9"));
}

/* (a * b).astype(np.float32) */
TEST(elemwise_multiply_bcast_row) {
  CHECK("multiply", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[3] 2 -0.5 4"),
        OUT("f32[2,3] 3 1 12 1 -2 -24"));
}

/* (a * b).astype(np.float32) */
TEST(elemwise_multiply_scalar) {
  CHECK("multiply", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[] 3"),
        OUT("f32[2,3] 4.5 -6 9 1.5 12 -18"));
}

/* (a / b).astype(np.float32) */
TEST(elemwise_divide_bcast_row) {
  CHECK("divide", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[3] 2 -0.5 4"),
        OUT("f32[2,3] 0.75 4 0.75 0.25 -8 -1.5"));
}

/* (a / b).astype(np.float32) */
TEST(elemwise_divide_scalar) {
  CHECK("divide", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[] 3"),
        OUT("f32[2,3] 0.5 -0.666666687 1 0.166666672 1.33333337 -2"));
}

/* (np.maximum(a, b)).astype(np.float32) */
TEST(elemwise_maximum_bcast_row) {
  CHECK("maximum", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[3] 2 -0.5 4"),
        OUT("f32[2,3] 2 -0.5 4 2 4 4"));
}

/* (np.maximum(a, b)).astype(np.float32) */
TEST(elemwise_maximum_scalar) {
  CHECK("maximum", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[] 3"),
        OUT("f32[2,3] 3 3 3 3 4 3"));
}

/* (np.minimum(a, b)).astype(np.float32) */
TEST(elemwise_minimum_bcast_row) {
  CHECK("minimum", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[3] 2 -0.5 4"),
        OUT("f32[2,3] 1.5 -2 3 0.5 -0.5 -6"));
}

/* (np.minimum(a, b)).astype(np.float32) */
TEST(elemwise_minimum_scalar) {
  CHECK("minimum", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[] 3"),
        OUT("f32[2,3] 1.5 -2 3 0.5 3 -6"));
}

/* (np.floor(a / b)).astype(np.float32) */
TEST(elemwise_floor_divide_bcast_row) {
  CHECK("floor_divide", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[3] 2 -0.5 4"),
        OUT("f32[2,3] 0 4 0 0 -8 -2"));
}

/* (np.floor(a / b)).astype(np.float32) */
TEST(elemwise_floor_divide_scalar) {
  CHECK("floor_divide", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[] 3"),
        OUT("f32[2,3] 0 -1 1 0 1 -2"));
}

/* (a - np.floor(a / b) * b).astype(np.float32) */
TEST(elemwise_floor_mod_bcast_row) {
  CHECK("floor_mod", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[3] 2 -0.5 4"),
        OUT("f32[2,3] 1.5 0 3 0.5 0 2"));
}

/* (a - np.floor(a / b) * b).astype(np.float32) */
TEST(elemwise_floor_mod_scalar) {
  CHECK("floor_mod", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[] 3"),
        OUT("f32[2,3] 1.5 1 0 0.5 1 0"));
}

/* (np.fmod(a, b)).astype(np.float32) */
TEST(elemwise_mod_bcast_row) {
  CHECK("mod", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[3] 2 -0.5 4"),
        OUT("f32[2,3] 1.5 -0 3 0.5 0 -2"));
}

/* (np.fmod(a, b)).astype(np.float32) */
TEST(elemwise_mod_scalar) {
  CHECK("mod", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[] 3"),
        OUT("f32[2,3] 1.5 -2 0 0.5 1 -0"));
}

/* (np.fmod(a, b)).astype(np.float32) */
TEST(elemwise_trunc_mod_bcast_row) {
  CHECK("trunc_mod", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[3] 2 -0.5 4"),
        OUT("f32[2,3] 1.5 -0 3 0.5 0 -2"));
}

/* (np.fmod(a, b)).astype(np.float32) */
TEST(elemwise_trunc_mod_scalar) {
  CHECK("trunc_mod", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[] 3"),
        OUT("f32[2,3] 1.5 -2 0 0.5 1 -0"));
}

/* (np.trunc(a / b)).astype(np.float32) */
TEST(elemwise_trunc_divide_bcast_row) {
  CHECK("trunc_divide", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[3] 2 -0.5 4"),
        OUT("f32[2,3] 0 4 0 0 -8 -1"));
}

/* (np.trunc(a / b)).astype(np.float32) */
TEST(elemwise_trunc_divide_scalar) {
  CHECK("trunc_divide", "", IN("f32[2,3] 1.5 -2 3 0.5 4 -6", "f32[] 3"),
        OUT("f32[2,3] 0 -0 1 0 1 -2"));
}

/* np.power(a, b).astype(np.float32) */
TEST(elemwise_power_bcast) {
  CHECK("power", "", IN("f32[2,1] 2 0.5", "f32[4] 0 1 2.5 -1"),
        OUT("f32[2,4] 1 2 5.65685415 0.5 1 0.5 0.176776692 2"));
}

/* np.power(a, b) */
TEST(elemwise_power_f64) {
  CHECK("power", "", IN("f64[3] 4 9 -8", "f64[1] 0.5"),
        OUT("f64[3] 2 3 nan"));
}

/* a == b */
TEST(elemwise_equal_f32_nan) {
  CHECK("equal", "", IN("f32[2,3] 1 2 nan 3 -1 2", "f32[3] 2 2 1"),
        OUT("bool[2,3] 0 1 0 0 0 0"));
}

/* a == b */
TEST(elemwise_equal_i32_bcast) {
  CHECK("equal", "", IN("i32[1,3] -3 0 5", "i32[2,1] 0 5"),
        OUT("bool[2,3] 0 1 0 0 0 1"));
}

/* a != b */
TEST(elemwise_not_equal_f32_nan) {
  CHECK("not_equal", "", IN("f32[2,3] 1 2 nan 3 -1 2", "f32[3] 2 2 1"),
        OUT("bool[2,3] 1 0 1 1 1 1"));
}

/* a != b */
TEST(elemwise_not_equal_i32_bcast) {
  CHECK("not_equal", "", IN("i32[1,3] -3 0 5", "i32[2,1] 0 5"),
        OUT("bool[2,3] 1 0 1 1 1 0"));
}

/* a < b */
TEST(elemwise_less_f32_nan) {
  CHECK("less", "", IN("f32[2,3] 1 2 nan 3 -1 2", "f32[3] 2 2 1"),
        OUT("bool[2,3] 1 0 0 0 1 0"));
}

/* a < b */
TEST(elemwise_less_i32_bcast) {
  CHECK("less", "", IN("i32[1,3] -3 0 5", "i32[2,1] 0 5"),
        OUT("bool[2,3] 1 0 0 1 1 0"));
}

/* a <= b */
TEST(elemwise_less_equal_f32_nan) {
  CHECK("less_equal", "", IN("f32[2,3] 1 2 nan 3 -1 2", "f32[3] 2 2 1"),
        OUT("bool[2,3] 1 1 0 0 1 0"));
}

/* a <= b */
TEST(elemwise_less_equal_i32_bcast) {
  CHECK("less_equal", "", IN("i32[1,3] -3 0 5", "i32[2,1] 0 5"),
        OUT("bool[2,3] 1 1 0 1 1 1"));
}

/* a > b */
TEST(elemwise_greater_f32_nan) {
  CHECK("greater", "", IN("f32[2,3] 1 2 nan 3 -1 2", "f32[3] 2 2 1"),
        OUT("bool[2,3] 0 0 0 1 0 1"));
}

/* a > b */
TEST(elemwise_greater_i32_bcast) {
  CHECK("greater", "", IN("i32[1,3] -3 0 5", "i32[2,1] 0 5"),
        OUT("bool[2,3] 0 0 1 0 0 0"));
}

/* a >= b */
TEST(elemwise_greater_equal_f32_nan) {
  CHECK("greater_equal", "", IN("f32[2,3] 1 2 nan 3 -1 2", "f32[3] 2 2 1"),
        OUT("bool[2,3] 0 1 0 1 0 1"));
}

/* a >= b */
TEST(elemwise_greater_equal_i32_bcast) {
  CHECK("greater_equal", "", IN("i32[1,3] -3 0 5", "i32[2,1] 0 5"),
        OUT("bool[2,3] 0 1 1 0 0 1"));
}

/* ---- hand-written -------------------------------------------------------- */

/* Integer add/subtract/multiply wrap modulo 2^bits:
 * i8 100+100 = 200-256 = -56, 127+1 = -128, -128+(-1) = 127. */
TEST(elemwise_add_i8_wrap) {
  CHECK("add", "", IN("i8[3] 100 127 -128", "i8[3] 100 1 -1"), OUT("i8[3] -56 -128 127"));
}
/* u8 200+100 = 300-256 = 44, 255+1 = 0; i64 max+1 = min. */
TEST(elemwise_add_u8_i64_wrap) {
  CHECK("add", "", IN("u8[2] 200 255", "u8[2] 100 1"), OUT("u8[2] 44 0"));
  CHECK("add", "", IN("i64[1] 9223372036854775807", "i64[] 1"), OUT("i64[1] -9223372036854775808"));
}
/* Rank-0 with rank-0, size-1 dims both ways, and an empty dim. */
TEST(elemwise_add_bcast_shapes) {
  CHECK("add", "", IN("f32[] 2", "f32[] 3"), OUT("f32[] 5"));
  CHECK("add", "", IN("f32[2,1] 1 2", "f32[1,3] 10 20 30"), OUT("f32[2,3] 11 21 31 12 22 32"));
  CHECK("add", "", IN("f32[0,3]", "f32[3] 1 2 3"), OUT("f32[0,3]"));
}
/* float16 storage: 0.5+0.25 = 0.75, 2048+1 = 2049 rounds to even 2048. */
TEST(elemwise_add_f16) {
  CHECK("add", "", IN("f16[2] 0.5 2048", "f16[2] 0.25 1"), OUT("f16[2] 0.75 2048"));
}
/* i32 min-1 = max; u8 0-1 = 255. */
TEST(elemwise_subtract_wrap) {
  CHECK("subtract", "", IN("i32[1] -2147483648", "i32[1] 1"), OUT("i32[1] 2147483647"));
  CHECK("subtract", "", IN("u8[1] 0", "u8[1] 1"), OUT("u8[1] 255"));
}
/* i16 300*300 = 90000-65536 = 24464, 200*200 = 40000-65536 = -25536;
 * i64 2^32*2^32 = 2^64 = 0. */
TEST(elemwise_multiply_wrap) {
  CHECK("multiply", "", IN("i16[2] 300 200", "i16[2] 300 200"), OUT("i16[2] 24464 -25536"));
  CHECK("multiply", "", IN("i64[1] 4294967296", "i64[1] 4294967296"), OUT("i64[1] 0"));
}
/* bfloat16: 1.5*2 = 3, 3*0.5 = 1.5 (exact). */
TEST(elemwise_multiply_bf16) {
  CHECK("multiply", "", IN("bf16[2] 1.5 3", "bf16[2] 2 0.5"), OUT("bf16[2] 3 1.5"));
}
/* Integer divide truncates: 7/2 = 3, -7/2 = -3, 7/-2 = -3, -7/-2 = 3;
 * INT_MIN/-1 wraps to INT_MIN. */
TEST(elemwise_divide_int_trunc) {
  CHECK("divide", "", IN("i32[4] 7 -7 7 -7", "i32[4] 2 2 -2 -2"), OUT("i32[4] 3 -3 -3 3"));
  CHECK("divide", "", IN("i32[1] -2147483648", "i32[1] -1"), OUT("i32[1] -2147483648"));
  CHECK("divide", "", IN("i64[1] -9223372036854775808", "i64[1] -1"), OUT("i64[1] -9223372036854775808"));
}
TEST(elemwise_divide_int_by_zero) {
  CHECK_ERROR("divide", "", IN("i32[2] 1 2", "i32[2] 1 0"), OUT("i32[2] 0 0"), INVALID_ARGUMENT,
              "divide: integer division by zero");
}
/* Float division by zero follows IEEE: 1/0 = inf, -1/0 = -inf, 0/0 = nan. */
TEST(elemwise_divide_float_by_zero) {
  CHECK("divide", "", IN("f32[3] 1 -1 0", "f32[] 0"), OUT("f32[3] inf -inf nan"));
}
/* C/TVM mod truncates: 7%2 = 1, -7%2 = -1, 7%-2 = 1, -7%-2 = -1. */
TEST(elemwise_mod_int) {
  CHECK("mod", "", IN("i32[4] 7 -7 7 -7", "i32[4] 2 2 -2 -2"), OUT("i32[4] 1 -1 1 -1"));
  CHECK_ERROR("mod", "", IN("i8[1] 1", "i8[1] 0"), OUT("i8[1] 0"), INVALID_ARGUMENT,
              "mod: integer division by zero");
}
/* floor: 7//2 = 3, -7//2 = -4, 7//-2 = -4, -7//-2 = 3. */
TEST(elemwise_floor_divide_int) {
  CHECK("floor_divide", "", IN("i32[4] 7 -7 7 -7", "i32[4] 2 2 -2 -2"), OUT("i32[4] 3 -4 -4 3"));
  CHECK_ERROR("floor_divide", "", IN("i32[1] 1", "i32[] 0"), OUT("i32[1] 0"), INVALID_ARGUMENT,
              "integer division by zero");
}
/* The remainder takes the divisor's sign: 7 mod 2 = 1, -7 mod 2 = 1,
 * 7 mod -2 = -1, -7 mod -2 = -1; i8 -128 mod -1 = 0. */
TEST(elemwise_floor_mod_int) {
  CHECK("floor_mod", "", IN("i32[4] 7 -7 7 -7", "i32[4] 2 2 -2 -2"), OUT("i32[4] 1 1 -1 -1"));
  CHECK("floor_mod", "", IN("i8[1] -128", "i8[1] -1"), OUT("i8[1] 0"));
  CHECK_ERROR("floor_mod", "", IN("i64[1] 5", "i64[1] 0"), OUT("i64[1] 0"), INVALID_ARGUMENT,
              "floor_mod: integer division by zero");
}
/* trunc_divide/trunc_mod on ints and uint8: 200/3 = 66 rem 2. */
TEST(elemwise_trunc_divide_int) {
  CHECK("trunc_divide", "", IN("i32[2] -7 7", "i32[2] 2 -2"), OUT("i32[2] -3 -3"));
  CHECK("trunc_divide", "", IN("u8[1] 200", "u8[1] 3"), OUT("u8[1] 66"));
  CHECK_ERROR("trunc_divide", "", IN("u8[1] 1", "u8[1] 0"), OUT("u8[1] 0"), INVALID_ARGUMENT,
              "trunc_divide: integer division by zero");
}
TEST(elemwise_trunc_mod_int) {
  CHECK("trunc_mod", "", IN("i32[2] -7 7", "i32[2] 2 -2"), OUT("i32[2] -1 1"));
  CHECK("trunc_mod", "", IN("u8[1] 200", "u8[1] 3"), OUT("u8[1] 2"));
  CHECK_ERROR("trunc_mod", "", IN("i16[1] 1", "i16[1] 0"), OUT("i16[1] 0"), INVALID_ARGUMENT,
              "trunc_mod: integer division by zero");
}
/* 2^10 = 1024, 3^0 = 1, (-2)^3 = -8, 2^-1 -> 0, 1^-5 = 1, (-1)^-3 = -1;
 * i8 2^7 = 128 wraps to -128; i32 3^21 = 10460353203 - 2*2^32 = 1870418611. */
TEST(elemwise_power_int) {
  CHECK("power", "", IN("i32[6] 2 3 -2 2 1 -1", "i32[6] 10 0 3 -1 -5 -3"), OUT("i32[6] 1024 1 -8 0 1 -1"));
  CHECK("power", "", IN("i8[1] 2", "i8[1] 7"), OUT("i8[1] -128"));
  CHECK("power", "", IN("i32[1] 3", "i32[1] 21"), OUT("i32[1] 1870418611"));
}
/* NaN propagates through maximum/minimum (numpy's maximum). */
TEST(elemwise_maximum_nan) {
  CHECK("maximum", "", IN("f32[3] nan 1 -inf", "f32[3] 0 nan 2"), OUT("f32[3] nan nan 2"));
}
/* uint8 compares unsigned: max(200, 100) = 200; i8 max(-1, 1) = 1. */
TEST(elemwise_maximum_int) {
  CHECK("maximum", "", IN("u8[2] 200 3", "u8[2] 100 4"), OUT("u8[2] 200 4"));
  CHECK("maximum", "", IN("i8[2] -1 -128", "i8[2] 1 127"), OUT("i8[2] 1 127"));
}
TEST(elemwise_minimum_nan) {
  CHECK("minimum", "", IN("f32[3] nan 1 -inf", "f32[3] 0 nan 2"), OUT("f32[3] nan nan -inf"));
}
TEST(elemwise_minimum_int) {
  CHECK("minimum", "", IN("u8[2] 200 3", "u8[2] 100 4"), OUT("u8[2] 100 3"));
  CHECK("minimum", "", IN("i64[1] -9223372036854775808", "i64[] 0"), OUT("i64[1] -9223372036854775808"));
}
/* Truth tables; bool [2,1] x [2] broadcasts to [2,2]. */
TEST(elemwise_logical_and_table) {
  CHECK("logical_and", "", IN("bool[4] 0 0 1 1", "bool[4] 0 1 0 1"), OUT("bool[4] 0 0 0 1"));
}
TEST(elemwise_logical_and_bcast) {
  CHECK("logical_and", "", IN("bool[2,1] 1 0", "bool[2] 1 0"), OUT("bool[2,2] 1 0 0 0"));
}
/* On floats NaN is true (non-zero), results are 0/1 in the dtype. */
TEST(elemwise_logical_and_float) {
  CHECK("logical_and", "", IN("f32[3] 0 2.5 nan", "f32[3] 1 1 1"), OUT("f32[3] 0 1 1"));
}
TEST(elemwise_logical_or_table) {
  CHECK("logical_or", "", IN("bool[4] 0 0 1 1", "bool[4] 0 1 0 1"), OUT("bool[4] 0 1 1 1"));
}
TEST(elemwise_logical_or_bcast) {
  CHECK("logical_or", "", IN("bool[2,1] 1 0", "bool[2] 1 0"), OUT("bool[2,2] 1 1 1 0"));
}
TEST(elemwise_logical_or_int) {
  CHECK("logical_or", "", IN("i32[3] 0 0 -5", "i32[3] 0 7 0"), OUT("i32[3] 0 1 1"));
}
TEST(elemwise_logical_xor_table) {
  CHECK("logical_xor", "", IN("bool[4] 0 0 1 1", "bool[4] 0 1 0 1"), OUT("bool[4] 0 1 1 0"));
}
TEST(elemwise_logical_xor_bcast) {
  CHECK("logical_xor", "", IN("bool[2,1] 1 0", "bool[2] 1 0"), OUT("bool[2,2] 0 1 1 0"));
}
TEST(elemwise_logical_xor_int) {
  CHECK("logical_xor", "", IN("i32[3] 3 0 -5", "i32[3] 4 7 0"), OUT("i32[3] 0 1 1"));
}
/* 12 = 0b1100, 10 = 0b1010: and 8, or 14, xor 6. -1 & 255 = 255,
 * i8 -128 & 127 = 0, -128 | 127 = -1, -1 ^ 1 = -2, u8 0xF0 ^ 0xFF = 15. */
TEST(elemwise_bitwise_and_int) {
  CHECK("bitwise_and", "", IN("i32[2] 12 -1", "i32[2] 10 255"), OUT("i32[2] 8 255"));
  CHECK("bitwise_and", "", IN("i8[1] -128", "i8[1] 127"), OUT("i8[1] 0"));
}
TEST(elemwise_bitwise_and_bool) {
  CHECK("bitwise_and", "", IN("bool[3] 1 1 0", "bool[3] 1 0 0"), OUT("bool[3] 1 0 0"));
}
TEST(elemwise_bitwise_and_float_error) {
  CHECK_ERROR("bitwise_and", "", IN("f32[1] 1", "f32[1] 1"), OUT("f32[1] 0"), INVALID_ARGUMENT,
              "integer");
}
TEST(elemwise_bitwise_or_int) {
  CHECK("bitwise_or", "", IN("i32[1] 12", "i32[1] 10"), OUT("i32[1] 14"));
  CHECK("bitwise_or", "", IN("i8[1] -128", "i8[] 127"), OUT("i8[1] -1"));
  CHECK("bitwise_or", "", IN("u8[2] 1 128", "u8[2] 2 128"), OUT("u8[2] 3 128"));
}
TEST(elemwise_bitwise_xor_int) {
  CHECK("bitwise_xor", "", IN("i32[2] 12 -1", "i32[2] 10 1"), OUT("i32[2] 6 -2"));
  CHECK("bitwise_xor", "", IN("u8[1] 240", "u8[1] 255"), OUT("u8[1] 15"));
  CHECK("bitwise_xor", "", IN("bool[2] 1 1", "bool[2] 0 1"), OUT("bool[2] 1 0"));
}
/* 1<<3 = 8, -1<<4 = -16, 1<<31 = INT_MIN, shifts >= 32 or < 0 give 0;
 * i8 1<<7 = -128, 3<<7 = 384-256 = 128 -> -128, 1<<8 = 0; u8 255<<1 = 254. */
TEST(elemwise_left_shift_i32) {
  CHECK("left_shift", "", IN("i32[5] 1 -1 1 1 5", "i32[5] 3 4 31 32 -1"),
        OUT("i32[5] 8 -16 -2147483648 0 0"));
}
TEST(elemwise_left_shift_i8) {
  CHECK("left_shift", "", IN("i8[3] 1 3 1", "i8[3] 7 7 8"), OUT("i8[3] -128 -128 0"));
}
TEST(elemwise_left_shift_u8) {
  CHECK("left_shift", "", IN("u8[2] 255 1", "u8[] 1"), OUT("u8[2] 254 2"));
}
/* Arithmetic: 16>>2 = 4, -16>>2 = -4, -7>>1 = -4 (floor), -1>>31 = -1,
 * out-of-range amounts give the sign fill: -5>>40 = -1, 5>>40 = 0. */
TEST(elemwise_right_shift_i32) {
  CHECK("right_shift", "", IN("i32[6] 16 -16 -7 -1 -5 5", "i32[6] 2 2 1 31 40 40"),
        OUT("i32[6] 4 -4 -4 -1 -1 0"));
}
/* Unsigned is logical: 255>>4 = 15, 128>>7 = 1, 200>>8 = 0. */
TEST(elemwise_right_shift_u8) {
  CHECK("right_shift", "", IN("u8[3] 255 128 200", "u8[3] 4 7 8"), OUT("u8[3] 15 1 0"));
}
TEST(elemwise_right_shift_i64) {
  CHECK("right_shift", "", IN("i64[2] -9223372036854775808 4611686018427387904", "i64[2] 63 62"),
        OUT("i64[2] -1 1"));
}
/* u8 compares unsigned: (200, 5) vs (100, 5). */
TEST(elemwise_equal_u8) { CHECK("equal", "", IN("u8[2] 200 5", "u8[2] 100 5"), OUT("bool[2] 0 1")); }
TEST(elemwise_not_equal_u8) { CHECK("not_equal", "", IN("u8[2] 200 5", "u8[2] 100 5"), OUT("bool[2] 1 0")); }
TEST(elemwise_less_u8) { CHECK("less", "", IN("u8[2] 200 5", "u8[2] 100 5"), OUT("bool[2] 0 0")); }
TEST(elemwise_less_equal_u8) { CHECK("less_equal", "", IN("u8[2] 200 5", "u8[2] 100 5"), OUT("bool[2] 0 1")); }
TEST(elemwise_greater_u8) { CHECK("greater", "", IN("u8[2] 200 5", "u8[2] 100 5"), OUT("bool[2] 1 0")); }
TEST(elemwise_greater_equal_u8) { CHECK("greater_equal", "", IN("u8[2] 200 5", "u8[2] 100 5"), OUT("bool[2] 1 1")); }

TEST(elemwise_isnan_f32) {
  CHECK("isnan", "", IN("f32[5] nan inf -inf 1 0"), OUT("bool[5] 1 0 0 0 0"));
}
TEST(elemwise_isnan_int) { CHECK("isnan", "", IN("i32[2] 0 -1"), OUT("bool[2] 0 0")); }
TEST(elemwise_isnan_f16) { CHECK("isnan", "", IN("f16[3] nan inf 1"), OUT("bool[3] 1 0 0")); }
TEST(elemwise_isinf_f32) {
  CHECK("isinf", "", IN("f32[5] nan inf -inf 1 0"), OUT("bool[5] 0 1 1 0 0"));
}
TEST(elemwise_isinf_int) { CHECK("isinf", "", IN("i64[1] 9223372036854775807"), OUT("bool[1] 0")); }
TEST(elemwise_isinf_f64) { CHECK("isinf", "", IN("f64[2] 1e308 -inf"), OUT("bool[2] 0 1")); }
TEST(elemwise_isfinite_f32) {
  CHECK("isfinite", "", IN("f32[5] nan inf -inf 1 0"), OUT("bool[5] 0 0 0 1 1"));
}
TEST(elemwise_isfinite_int) { CHECK("isfinite", "", IN("u8[2] 0 255"), OUT("bool[2] 1 1")); }
TEST(elemwise_isfinite_empty) { CHECK("isfinite", "", IN("f32[0]"), OUT("bool[0]")); }

TEST(elemwise_logical_not_bool) { CHECK("logical_not", "", IN("bool[2] 0 1"), OUT("bool[2] 1 0")); }
/* NaN is true, so not NaN = 0. */
TEST(elemwise_logical_not_f32) { CHECK("logical_not", "", IN("f32[3] 0 2 nan"), OUT("f32[3] 1 0 0")); }
TEST(elemwise_logical_not_int) { CHECK("logical_not", "", IN("i32[2] 0 -3"), OUT("i32[2] 1 0")); }
/* ~0 = -1, ~-1 = 0, ~5 = -6; u8 ~15 = 240; ~bool is logical not (numpy). */
TEST(elemwise_bitwise_not_int) {
  CHECK("bitwise_not", "", IN("i32[3] 0 -1 5"), OUT("i32[3] -1 0 -6"));
  CHECK("bitwise_not", "", IN("u8[3] 0 255 15"), OUT("u8[3] 255 0 240"));
}
TEST(elemwise_bitwise_not_bool) { CHECK("bitwise_not", "", IN("bool[2] 0 1"), OUT("bool[2] 1 0")); }
TEST(elemwise_bitwise_not_float_error) {
  CHECK_ERROR("bitwise_not", "", IN("f32[1] 1"), OUT("f32[1] 0"), INVALID_ARGUMENT, "integer");
}
/* Half to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0, -1.5 -> -2. */
TEST(elemwise_round_half_even) {
  CHECK("round", "", IN("f32[7] 0.5 1.5 2.5 -0.5 -1.5 2.4 2.6"), OUT("f32[7] 0 2 2 -0 -2 2 3"));
}
TEST(elemwise_round_f64) {
  CHECK("round", "", IN("f64[4] -2.5 3.5 1e300 4503599627370497"), OUT("f64[4] -2 4 1e300 4503599627370497"));
}
TEST(elemwise_round_special_and_int) {
  CHECK("round", "", IN("f32[3] nan inf -inf"), OUT("f32[3] nan inf -inf"));
  CHECK("round", "", IN("i32[2] 3 -4"), OUT("i32[2] 3 -4"));
}
/* Integer inputs to float math: computed in double, stored saturating:
 * exp(1) = 2.718 -> 2, exp(100) -> INT32_MAX; sqrt(-1) = nan -> 0. */
TEST(elemwise_exp_int_saturates) {
  CHECK("exp", "", IN("i32[3] 0 1 100"), OUT("i32[3] 1 2 2147483647"));
  CHECK("sqrt", "", IN("i32[2] 16 -1"), OUT("i32[2] 4 0"));
}
/* abs/negative of INT_MIN wrap; sign of ints. */
TEST(elemwise_abs_negative_int) {
  CHECK("abs", "", IN("i8[3] -128 -5 7"), OUT("i8[3] -128 5 7"));
  CHECK("negative", "", IN("i8[3] -128 -5 7"), OUT("i8[3] -128 5 -7"));
  CHECK("sign", "", IN("i32[3] -9 0 4"), OUT("i32[3] -1 0 1"));
  CHECK("nn.relu", "", IN("i32[3] -9 0 4"), OUT("i32[3] 0 0 4"));
}
/* leaky_relu with the C++ default alpha 0.25: -4 -> -1. */
TEST(elemwise_leaky_relu_default) {
  CHECK("nn.leaky_relu", "", IN("f32[3] -4 0 2"), OUT("f32[3] -1 0 2"));
}
TEST(elemwise_leaky_relu_alpha) {
  CHECK("nn.leaky_relu", "alpha=0.1f", IN("f32[2] -2 3"), OUT("f32[2] -0.2 3"));
}
TEST(elemwise_leaky_relu_nan_f16) {
  CHECK("nn.leaky_relu", "alpha=0.5f", IN("f16[3] nan -1 1"), OUT("f16[3] nan -0.5 1"));
}
TEST(elemwise_clip_f32_nan) {
  CHECK("clip", "a_min=-1f; a_max=2f", IN("f32[6] -3 -1 0.5 2 5 nan"), OUT("f32[6] -1 -1 0.5 2 2 nan"));
}
TEST(elemwise_clip_int) {
  CHECK("clip", "a_min=0f; a_max=10f", IN("i32[3] -5 3 20"), OUT("i32[3] 0 3 10"));
}
/* In-range int64 values are kept exactly (2^53 + 1 is not a double). */
TEST(elemwise_clip_i64_exact) {
  CHECK("clip", "a_min=-1f; a_max=1e19f", IN("i64[1] 9007199254740993"), OUT("i64[1] 9007199254740993"));
}
/* float->int truncates, saturates, NaN -> 0 (our definition; C leaves
 * these undefined). */
TEST(elemwise_cast_f32_to_i32) {
  CHECK("cast", "dtype=\"int32\"", IN("f32[6] 1.7 -1.7 nan 3e9 -3e9 inf"),
        OUT("i32[6] 1 -1 0 2147483647 -2147483648 2147483647"));
}
/* int->int keeps the low bits: 300 = 256+44 -> 44, -129 -> 127. u8 255 ->
 * i8 -1, 128 -> -128; f32 -> u8 saturates: -5 -> 0, 300 -> 255. */
TEST(elemwise_cast_int_wrap) {
  CHECK("cast", "dtype=\"int8\"", IN("i32[3] 300 -129 127"), OUT("i8[3] 44 127 127"));
  CHECK("cast", "dtype=\"int8\"", IN("u8[2] 255 128"), OUT("i8[2] -1 -128"));
  CHECK("cast", "dtype=\"uint8\"", IN("f32[3] -5 300 2.9"), OUT("u8[3] 0 255 2"));
}
/* To bool: non-zero (NaN included) is true; bool -> float 0/1.
 * f32 -> f16: 65520 rounds to inf, 1e-8 underflows to 0. */
TEST(elemwise_cast_bool_half) {
  CHECK("cast", "dtype=\"bool\"", IN("f32[3] 0 -0.5 nan"), OUT("bool[3] 0 1 1"));
  CHECK("cast", "dtype=\"float32\"", IN("bool[2] 0 1"), OUT("f32[2] 0 1"));
  CHECK("cast", "dtype=\"float16\"", IN("f32[3] 65520 1e-8 0.5"), OUT("f16[3] inf 0 0.5"));
}
TEST(elemwise_cast_like_int_to_float) {
  CHECK("cast_like", "", IN("i32[2] 1 -2", "f32[1] 0"), OUT("f32[2] 1 -2"));
}
TEST(elemwise_cast_like_float_to_int) {
  CHECK("cast_like", "", IN("f32[2] 2.5 -2.5", "i8[] 0"), OUT("i8[2] 2 -2"));
}
TEST(elemwise_cast_like_f64_to_f32) {
  CHECK("cast_like", "", IN("f64[1] 0.1", "f32[3] 0 0 0"), OUT("f32[1] 0.1"));
}
TEST(elemwise_zeros_like_f32) { CHECK("zeros_like", "", IN("f32[2] 5 6"), OUT("f32[2] 0 0")); }
TEST(elemwise_zeros_like_i8) { CHECK("zeros_like", "", IN("i8[2,1] 5 6"), OUT("i8[2,1] 0 0")); }
TEST(elemwise_zeros_like_scalar_bool) { CHECK("zeros_like", "", IN("bool[] 1"), OUT("bool[] 0")); }
TEST(elemwise_ones_like_f32) { CHECK("ones_like", "", IN("f32[2] 5 6"), OUT("f32[2] 1 1")); }
TEST(elemwise_ones_like_u8) { CHECK("ones_like", "", IN("u8[] 7"), OUT("u8[] 1")); }
TEST(elemwise_ones_like_empty) { CHECK("ones_like", "", IN("f32[0,2]"), OUT("f32[0,2]")); }
TEST(elemwise_full_like_f32) {
  CHECK("full_like", "", IN("f32[2,2] iota", "f32[] 3.5"), OUT("f32[2,2] 3.5 3.5 3.5 3.5"));
}
/* The fill converts to the data's dtype: 2.7 -> 2, 5 -> true. */
TEST(elemwise_full_like_convert) {
  CHECK("full_like", "", IN("i32[2] 0 0", "f32[] 2.7"), OUT("i32[2] 2 2"));
  CHECK("full_like", "", IN("bool[1] 0", "i32[] 5"), OUT("bool[1] 1"));
}
TEST(elemwise_full_like_bad_fill) {
  CHECK_ERROR("full_like", "", IN("f32[1] 0", "f32[2] 1 2"), OUT("f32[1] 0"), INVALID_ARGUMENT,
              "one element");
}
/* cond [2,1] with x [3] and scalar y: [[1,2,3],[9,9,9]]. */
TEST(elemwise_where_bcast) {
  CHECK("where", "", IN("bool[2,1] 1 0", "f32[3] 1 2 3", "f32[] 9"), OUT("f32[2,3] 1 2 3 9 9 9"));
}
TEST(elemwise_where_int_cond) {
  CHECK("where", "", IN("i32[3] 0 5 -1", "i32[3] 1 2 3", "i32[3] 7 8 9"), OUT("i32[3] 7 2 3"));
}
TEST(elemwise_where_nan_cond_and_empty) {
  CHECK("where", "", IN("f32[2] nan 0", "f32[2] 1 1", "f32[2] 2 2"), OUT("f32[2] 1 2"));
  CHECK("where", "", IN("bool[0]", "f32[0]", "f32[0]"), OUT("f32[0]"));
}
/* alpha per channel along axis 1: -1*0.5, -3*0.1. */
TEST(elemwise_prelu_axis1) {
  CHECK("nn.prelu", "", IN("f32[1,2,2] -1 2 -3 4", "f32[2] 0.5 0.1"), OUT("f32[1,2,2] -0.5 2 -0.3 4"));
}
TEST(elemwise_prelu_negative_axis) {
  CHECK("nn.prelu", "axis=-1", IN("f32[2,2] -1 -2 3 -4", "f32[2] 0.5 2"), OUT("f32[2,2] -0.5 -4 3 -8"));
}
TEST(elemwise_prelu_nan) {
  CHECK("nn.prelu", "axis=0", IN("f32[2] nan -2", "f32[2] 0.5 0.5"), OUT("f32[2] nan -1"));
}
TEST(elemwise_bias_add_axis1) {
  CHECK("nn.bias_add", "", IN("f32[2,3] 1 2 3 4 5 6", "f32[3] 10 20 30"), OUT("f32[2,3] 11 22 33 14 25 36"));
}
TEST(elemwise_bias_add_axis0) {
  CHECK("nn.bias_add", "axis=0", IN("f32[2,3] 1 2 3 4 5 6", "f32[2] 10 20"), OUT("f32[2,3] 11 12 13 24 25 26"));
}
/* i8 120+10 = 130-256 = -126, -120-10 = -130+256 = 126. */
TEST(elemwise_bias_add_i8_wrap) {
  CHECK("nn.bias_add", "axis=-1", IN("i8[1,2] 120 -120", "i8[2] 10 -10"), OUT("i8[1,2] -126 126"));
}
/* thresholded_relu keeps x only above alpha (1 by default: 1 itself -> 0). */
TEST(elemwise_thresholded_relu) {
  CHECK("nn.thresholded_relu", "", IN("f32[5] -2 0.5 1 1.5 3"), OUT("f32[5] 0 0 0 1.5 3"));
  CHECK("nn.thresholded_relu", "alpha=-1f", IN("f32[4] -2 -1 -0.5 2"), OUT("f32[4] 0 0 -0.5 2"));
  CHECK("nn.thresholded_relu", "", IN("f64[2] nan 2"), OUT("f64[2] 0 2"));
}
/* shrink: lambd 0.5, bias 0 by default. With bias 1.5, lambd 1: -3 + 1.5 =
 * -1.5; -1, 0.5 and 1 are inside [-1, 1] -> 0; 2 - 1.5 = 0.5. Integers are
 * computed in double and stored truncated: -1.5 -> -1, 4 - 1.5 = 2.5 -> 2. */
TEST(elemwise_shrink) {
  CHECK("nn.shrink", "", IN("f32[5] -1 -0.5 0 0.5 2"), OUT("f32[5] -1 0 0 0 2"));
  CHECK("nn.shrink", "bias=1.5f; lambd=1f", IN("f32[5] -3 -1 0.5 1 2"), OUT("f32[5] -1.5 0 0 0 0.5"));
  CHECK("nn.shrink", "bias=1.5f; lambd=1f", IN("i32[3] -3 0 4"), OUT("i32[3] -1 0 2"));
}

/* Row walks with broadcasting in a middle dim and across ranks (the
 * kernel walks output rows with per-input strides):
 *   a[i, 0, k] = 3 i + k (2x1x3), b[j, 0] = 10 (j + 1) (2x1):
 *   out[i, j, k] = 3 i + k + 10 (j + 1). */
TEST(elemwise_add_bcast_middle_dim) {
  CHECK("add", "", IN("f32[2,1,3] iota", "f32[2,1] 10 20"),
        OUT("f32[2,2,3] 10 11 12 20 21 22 13 14 15 23 24 25"));
  /* The same in int16, and with the operands swapped (subtract is not
   * symmetric: 10 (j + 1) - (3 i + k)). */
  CHECK("add", "", IN("i16[2,1,3] iota", "i16[2,1] 10 20"),
        OUT("i16[2,2,3] 10 11 12 20 21 22 13 14 15 23 24 25"));
  CHECK("subtract", "", IN("f32[2,1] 10 20", "f32[2,1,3] iota"),
        OUT("f32[2,2,3] 10 9 8 20 19 18 7 6 5 17 16 15"));
}
/* where with its condition broadcast along the last dim and x along the
 * first: rows [c0: x row, c1: y]. */
TEST(elemwise_where_bcast_rows) {
  CHECK("where", "", IN("bool[2,1] 1 0", "i64[1,3] 1 2 3", "i64[2,3] 4 5 6 7 8 9"),
        OUT("i64[2,3] 1 2 3 7 8 9"));
}
/* bias_add on the last axis of a 3-d tensor and prelu on axis 0: each
 * element takes its channel's value. */
TEST(elemwise_bias_add_last_axis_3d) {
  CHECK("nn.bias_add", "axis=-1", IN("f32[2,2,2] iota", "f32[2] 100 200"),
        OUT("f32[2,2,2] 100 201 102 203 104 205 106 207"));
  CHECK("nn.bias_add", "axis=1", IN("i8[1,2,2] 100 1 2 3", "i8[2] 100 -1"),
        OUT("i8[1,2,2] -56 101 1 2"));
}
