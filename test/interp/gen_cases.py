#!/usr/bin/python3
"""Prints kernel test cases whose expected values numpy computes.

Used once to write literals into test/interp/test_<family>.c (the tests
never run python). Each printed case carries, in a comment, the numpy
expression that produced its expected output:

    /usr/bin/python3 test/interp/gen_cases.py elemwise > /tmp/cases.c

Debian's numpy 1.24; math.erf for erf (numpy has none).
"""
import math
import sys

import numpy as np

SHORT = {np.float16: "f16", np.float32: "f32", np.float64: "f64", np.int8: "i8",
         np.int16: "i16", np.int32: "i32", np.int64: "i64", np.uint8: "u8",
         np.bool_: "bool"}


def fmt_val(v, dt):
    if dt == np.bool_:
        return "1" if v else "0"
    if np.issubdtype(dt, np.integer):
        return str(int(v))
    f = float(v)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    digits = {np.float16: 5, np.float32: 9, np.float64: 17}[dt]
    s = "%.*g" % (digits, f)
    return s


def fmt(a):
    a = np.asarray(a)
    dt = a.dtype.type
    shape = ",".join(str(d) for d in a.shape)
    vals = " ".join(fmt_val(v, dt) for v in a.reshape(-1))
    return '"%s[%s] %s"' % (SHORT[dt], shape, vals) if vals else '"%s[%s]"' % (SHORT[dt], shape)


def case(name, op, attrs, ins, expr, env):
    with np.errstate(all="ignore"):
        out = eval(expr, {"np": np, "math": math, **env})
    if not isinstance(out, tuple):
        out = (out,)
    print("/* %s */" % expr.replace("*/", "* /"))
    print("TEST(%s) {" % name)
    print('  CHECK("%s", "%s", IN(%s),' % (op, attrs.replace('"', '\\"'),
                                            ", ".join(fmt(x) for x in ins)))
    print("        OUT(%s));" % ", ".join(fmt(o) for o in out))
    print("}")
    print()


F32, F64, F16 = np.float32, np.float64, np.float16
erf = np.vectorize(math.erf)


def elemwise():
    x32 = np.array([-2.5, -0.5, 0.0, 0.75, 1.5, 3.0], F32)
    pos32 = np.array([0.25, 0.5, 1.0, 2.0, 10.0, 100.0], F32)
    unit32 = np.array([-0.9, -0.5, 0.0, 0.3, 0.6, 0.99], F32)
    x64 = np.array([-1.25, 0.1, 2.0], F64)
    pos64 = np.array([0.1, 1.5, 7.0], F64)
    unit64 = np.array([-0.25, 0.2, 0.8], F64)
    special = np.array([np.nan, np.inf, -np.inf, 0.0], F32)
    ge1_32 = np.array([1.0, 1.5, 2.0, 10.0], F32)
    ge1_64 = np.array([1.0, 3.0, 100.0], F64)
    table = [
        # op, numpy expression of x, f32 input, f64 input
        ("exp", "np.exp(x)", x32, x64), ("log", "np.log(x)", pos32, pos64),
        ("log2", "np.log2(x)", pos32, pos64), ("log10", "np.log10(x)", pos32, pos64),
        ("sqrt", "np.sqrt(x)", pos32, pos64), ("rsqrt", "1 / np.sqrt(x)", pos32, pos64),
        ("sigmoid", "1 / (1 + np.exp(-x))", x32, x64), ("tanh", "np.tanh(x)", x32, x64),
        ("erf", "erf(x)", x32, x64), ("sin", "np.sin(x)", x32, x64),
        ("cos", "np.cos(x)", x32, x64), ("tan", "np.tan(x)", x32, x64),
        ("asin", "np.arcsin(x)", unit32, unit64), ("acos", "np.arccos(x)", unit32, unit64),
        ("atan", "np.arctan(x)", x32, x64), ("sinh", "np.sinh(x)", x32, x64),
        ("cosh", "np.cosh(x)", x32, x64), ("asinh", "np.arcsinh(x)", x32, x64),
        ("acosh", "np.arccosh(x)", ge1_32, ge1_64), ("atanh", "np.arctanh(x)", unit32, unit64),
        ("negative", "np.negative(x)", x32, x64), ("abs", "np.abs(x)", x32, x64),
        ("sign", "np.sign(x)", x32, x64), ("floor", "np.floor(x)", x32, x64),
        ("ceil", "np.ceil(x)", x32, x64), ("trunc", "np.trunc(x)", x32, x64),
        ("copy", "np.copy(x)", x32, x64), ("nn.relu", "np.maximum(x, 0)", x32, x64),
    ]
    for op, e, a32, a64 in table:
        name = op.replace("nn.", "")
        cast = lambda t: "(%s).astype(np.%s)" % (e, t)
        case("elemwise_%s_f32" % name, op, "", [a32], cast("float32"), {"x": a32.astype(F64), "erf": erf})
        case("elemwise_%s_f64" % name, op, "", [a64], cast("float64"), {"x": a64, "erf": erf})
        case("elemwise_%s_special" % name, op, "", [special], cast("float32"),
             {"x": special.astype(F64), "erf": erf})
    # float16 storage, float32 compute
    h = np.array([-1.0, 0.5, 2.0], F16)
    case("elemwise_exp_f16", "exp", "", [h], "np.exp(x.astype(np.float32)).astype(np.float16)", {"x": h})
    case("elemwise_tanh_f16", "tanh", "", [h], "np.tanh(x.astype(np.float32)).astype(np.float16)", {"x": h})

    # binary, with broadcasting
    a = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -6.0]], F32)
    b = np.array([2.0, -0.5, 4.0], F32)
    s = np.array(3.0, F32)
    bins = [("add", "a + b"), ("subtract", "a - b"), ("multiply", "a * b"), ("divide", "a / b"),
            ("maximum", "np.maximum(a, b)"), ("minimum", "np.minimum(a, b)"),
            ("floor_divide", "np.floor(a / b)"), ("floor_mod", "a - np.floor(a / b) * b"),
            ("mod", "np.fmod(a, b)"), ("trunc_mod", "np.fmod(a, b)"),
            ("trunc_divide", "np.trunc(a / b)")]
    for op, e in bins:
        case("elemwise_%s_bcast_row" % op, op, "", [a, b], "(%s).astype(np.float32)" % e,
             {"a": a.astype(F64), "b": b.astype(F64)})
        case("elemwise_%s_scalar" % op, op, "", [a, s], "(%s).astype(np.float32)" % e,
             {"a": a.astype(F64), "b": s.astype(F64)})
    pa = np.array([[2.0], [0.5]], F32)
    pb = np.array([0.0, 1.0, 2.5, -1.0], F32)
    case("elemwise_power_bcast", "power", "", [pa, pb], "np.power(a, b).astype(np.float32)",
         {"a": pa.astype(F64), "b": pb.astype(F64)})
    pa2 = np.array([4.0, 9.0, -8.0], F64)
    pb2 = np.array([0.5], F64)
    case("elemwise_power_f64", "power", "", [pa2, pb2], "np.power(a, b)", {"a": pa2, "b": pb2})
    # comparisons
    ca = np.array([[1.0, 2.0, np.nan], [3.0, -1.0, 2.0]], F32)
    cb = np.array([2.0, 2.0, 1.0], F32)
    for op, e in [("equal", "a == b"), ("not_equal", "a != b"), ("less", "a < b"),
                  ("less_equal", "a <= b"), ("greater", "a > b"), ("greater_equal", "a >= b")]:
        case("elemwise_%s_f32_nan" % op, op, "", [ca, cb], e, {"a": ca, "b": cb})
        ia = np.array([[-3, 0, 5]], np.int32)
        ib = np.array([[0], [5]], np.int32)
        case("elemwise_%s_i32_bcast" % op, op, "", [ia, ib], e, {"a": ia, "b": ib})


if __name__ == "__main__":
    globals()[sys.argv[1]]()
