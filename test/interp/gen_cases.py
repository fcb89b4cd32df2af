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


def transform():
    x = np.arange(36, dtype=F32).reshape(3, 4, 3)
    env = {"x": x}
    ss = [("neg_strides", "begin=[1, -1, 0]; end=[4, -5, 3]; strides=[2, -1, 1]", "x[1:4:2, -1:-5:-1, 0:3:1]"),
          ("neg_end_clamp", "begin=[0, 0, 0]; end=[4, -5, 4]; strides=[1, -1, 2]", "x[0:4:1, 0:-5:-1, 0:4:2]"),
          ("end_out_of_range", "begin=[1, 1, 0]; end=[4, 1000, 3]", "x[1:4, 1:1000, 0:3]"),
          ("all_reversed", "begin=[-1, -1, -1]; end=[-5, -5, -5]; strides=[-1, -1, -1]", "x[-1:-5:-1, -1:-5:-1, -1:-5:-1]"),
          ("axes", "begin=[1]; end=[3]; axes=[1]", "x[:, 1:3, :]"),
          ("size_mode", 'begin=[0, 1]; end=[2, -1]; slice_mode="size"', "x[0:2, 1:]"),
          ("short_begin", "begin=[2]; end=[3]", "x[2:3]")]
    for name, attrs, e in ss:
        case("transform_strided_slice_" + name, "strided_slice", attrs, [x], e, env)
    t = np.arange(12, dtype=F32).reshape(3, 4)
    i = np.array([-1, 2], np.int32)
    env = {"t": t, "i": i}
    case("transform_take_clip_axis0", "take", "axis=0", [t, i], "np.take(t, i, axis=0, mode='clip')", env)
    case("transform_take_wrap_axis0", "take", 'axis=0; mode="wrap"', [t, i], "np.take(t, i, axis=0, mode='wrap')", env)
    j = np.array([-5, 20], np.int32)
    env["j"] = j
    case("transform_take_flat_clip", "take", "", [t, j], "np.take(t, j, mode='clip')", env)
    case("transform_take_flat_wrap", "take", 'mode="wrap"', [t, j], "np.take(t, j, mode='wrap')", env)
    k = np.array([[0, 3], [1, 1]], np.int64)
    env["k"] = k
    case("transform_take_2d_indices_axis1", "take", "axis=1", [t, k], "np.take(t, k, axis=1)", env)
    case("transform_take_negative_axis", "take", "axis=-1", [t, k], "np.take(t, k, axis=-1)", env)
    bt = np.arange(6, dtype=F32).reshape(2, 3)
    bi = np.array([[2, 0], [1, 1]], np.int32)
    env.update(bt=bt, bi=bi)
    case("transform_take_batch_dims", "take", "axis=1; batch_dims=1", [bt, bi], "np.take_along_axis(bt, bi, 1)", env)
    gi = np.array([[0, 2, 1], [3, 0, 0]], np.int32)
    g0 = np.array([[2, 0, 1, 0]], np.int32)
    env.update(gi=gi, g0=g0)
    case("transform_gather_axis1", "gather", "axis=1", [t[:2], gi], "np.take_along_axis(t[:2], gi, 1)", env)
    case("transform_gather_axis0", "gather", "axis=0", [t, g0], "np.take_along_axis(t, g0, 0)", env)
    case("transform_gather_negative_axis", "gather", "axis=-1", [t[:2], gi], "np.take_along_axis(t[:2], gi, -1)", env)
    d = np.arange(24, dtype=F32).reshape(2, 3, 4)
    n1 = np.array([[1, 0], [2, 1]], np.int32)
    n2 = np.array([[1], [0]], np.int32)
    env.update(d=d, n1=n1, n2=n2)
    case("transform_gather_nd_full", "gather_nd", "", [d, np.array([[1, 0], [2, 1], [3, 0]], np.int32)],
         "d[tuple(np.array([[1, 0], [2, 1], [3, 0]]))]", env)
    case("transform_gather_nd_prefix", "gather_nd", "", [d, n1], "d[tuple(n1)]", env)
    case("transform_gather_nd_batch_dims", "gather_nd", "batch_dims=1", [d, np.array([[2, 0]], np.int32)],
         "np.stack([d[b][[2, 0][b]] for b in range(2)])", env)
    v = np.array([[1.0], [2.0]], F32)
    env["v"] = v
    case("transform_broadcast_to_2d", "broadcast_to", "shape=[2, 3]", [v], "np.broadcast_to(v, (2, 3))", env)
    case("transform_broadcast_to_rank_up", "broadcast_to", "shape=[2, 2, 1]", [v], "np.broadcast_to(v, (2, 2, 1))", env)
    case("transform_broadcast_to_scalar", "broadcast_to", "shape=[3]", [np.array(7, np.int32)],
         "np.broadcast_to(np.int32(7), (3,))", env)
    case("transform_tile_2d", "tile", "reps=[2, 1]", [bt], "np.tile(bt, (2, 1))", env)
    case("transform_tile_more_reps", "tile", "reps=[2, 1, 2]", [bt], "np.tile(bt, (2, 1, 2))", env)
    case("transform_tile_fewer_reps", "tile", "reps=[3]", [bt], "np.tile(bt, 3)", env)
    case("transform_repeat_axis0", "repeat", "repeats=2; axis=0", [bt], "np.repeat(bt, 2, 0)", env)
    case("transform_repeat_axis1", "repeat", "repeats=3; axis=1", [bt], "np.repeat(bt, 3, 1)", env)
    case("transform_repeat_negative_axis", "repeat", "repeats=2; axis=-1", [bt.astype(np.int8)],
         "np.repeat(bt.astype(np.int8), 2, -1)", env)
    case("transform_reverse_axis0", "reverse", "axis=0", [bt], "np.flip(bt, 0)", env)
    case("transform_reverse_axis1", "reverse", "axis=1", [d], "np.flip(d, 1)", env)
    case("transform_reverse_negative_axis", "reverse", "axis=-1", [bt], "np.flip(bt, -1)", env)
    p = np.arange(1, 7, dtype=F32).reshape(2, 3)
    env["p"] = p
    case("transform_pad_constant", "nn.pad", "pad_width=[[1, 0], [2, 1]]", [p, np.array(9, F32)],
         "np.pad(p, ((1, 0), (2, 1)), constant_values=9)", env)
    case("transform_pad_edge", "nn.pad", 'pad_width=[[1, 1], [2, 2]]; pad_mode="edge"', [p, np.array(0, F32)],
         "np.pad(p, ((1, 1), (2, 2)), mode='edge')", env)
    case("transform_pad_reflect", "nn.pad", 'pad_width=[[1, 1], [2, 2]]; pad_mode="reflect"', [p, np.array(0, F32)],
         "np.pad(p, ((1, 1), (2, 2)), mode='reflect')", env)
    case("transform_pad_reflect_long", "nn.pad", 'pad_width=[[0, 0], [4, 5]]; pad_mode="reflect"', [p, np.array(0, F32)],
         "np.pad(p, ((0, 0), (4, 5)), mode='reflect')", env)
    case("transform_pad_int_value", "nn.pad", "pad_width=[[0, 1], [1, 0]]", [p.astype(np.int32), np.array(-1, np.int32)],
         "np.pad(p.astype(np.int32), ((0, 1), (1, 0)), constant_values=-1)", env)
    lt = np.arange(48, dtype=F32).reshape(1, 8, 2, 3)
    env["lt"] = lt
    case("transform_layout_transform_to_nchw4c", "layout_transform", 'src_layout="NCHW"; dst_layout="NCHW4c"', [lt],
         "lt.reshape(1, 2, 4, 2, 3).transpose(0, 1, 3, 4, 2)", env)
    l4 = lt.reshape(1, 2, 4, 2, 3).transpose(0, 1, 3, 4, 2).copy()
    env["l4"] = l4
    case("transform_layout_transform_from_nchw4c", "layout_transform", 'src_layout="NCHW4c"; dst_layout="NCHW"', [l4],
         "l4.transpose(0, 1, 4, 2, 3).reshape(1, 8, 2, 3)", env)
    case("transform_layout_transform_to_nhwc", "layout_transform", 'src_layout="NCHW"; dst_layout="NHWC"', [lt],
         "lt.transpose(0, 2, 3, 1)", env)
    case("transform_layout_transform_nhwc_to_nchw", "layout_transform", 'src_layout="NHWC"; dst_layout="NCHW"', [lt],
         "lt.transpose(0, 3, 1, 2)", env)
    l6 = np.arange(12, dtype=F32).reshape(1, 6, 1, 2)
    env["l6"] = l6
    case("transform_layout_transform_pad_split", "layout_transform", 'src_layout="NCHW"; dst_layout="NCHW4c"', [l6],
         "np.pad(l6, ((0, 0), (0, 2), (0, 0), (0, 0))).reshape(1, 2, 4, 1, 2).transpose(0, 1, 3, 4, 2)", env)
    ds = np.arange(32, dtype=F32).reshape(1, 8, 2, 2)
    env["ds"] = ds
    case("transform_depth_to_space_dcr", "nn.depth_to_space", "block_size=2", [ds],
         "ds.reshape(1, 2, 2, 2, 2, 2).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 4)", env)
    case("transform_depth_to_space_crd", "nn.depth_to_space", 'block_size=2; mode="CRD"', [ds],
         "ds.reshape(1, 2, 2, 2, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 4)", env)
    dsh = ds.transpose(0, 2, 3, 1).copy()
    env["dsh"] = dsh
    case("transform_depth_to_space_nhwc", "nn.depth_to_space", 'block_size=2; layout="NHWC"', [dsh],
         "ds.reshape(1, 2, 2, 2, 2, 2).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 4).transpose(0, 2, 3, 1)", env)
    sd = np.arange(32, dtype=F32).reshape(1, 2, 4, 4)
    env["sd"] = sd
    case("transform_space_to_depth_nchw", "nn.space_to_depth", "block_size=2", [sd],
         "sd.reshape(1, 2, 2, 2, 2, 2).transpose(0, 3, 5, 1, 2, 4).reshape(1, 8, 2, 2)", env)
    case("transform_space_to_depth_nhwc", "nn.space_to_depth", 'block_size=2; layout="NHWC"', [sd.transpose(0, 2, 3, 1).copy()],
         "sd.reshape(1, 2, 2, 2, 2, 2).transpose(0, 3, 5, 1, 2, 4).reshape(1, 8, 2, 2).transpose(0, 2, 3, 1)", env)
    case("transform_space_to_depth_block4", "nn.space_to_depth", "block_size=4", [sd],
         "sd.reshape(1, 2, 1, 4, 1, 4).transpose(0, 3, 5, 1, 2, 4).reshape(1, 32, 1, 1)", env)
    a3 = np.arange(24, dtype=F32).reshape(2, 3, 4)
    env["a3"] = a3
    case("transform_transpose_axes", "transpose", "axes=[0, 2, 1]", [a3], "np.transpose(a3, (0, 2, 1))", env)
    case("transform_transpose_default", "transpose", "", [a3], "np.transpose(a3)", env)
    case("transform_transpose_negative_axes", "transpose", "axes=[-1, 0, -2]", [a3], "np.transpose(a3, (2, 0, 1))", env)


def conv2d_ref(x, w, stride=(1, 1), pad=(0, 0, 0, 0), dil=(1, 1), groups=1, out_dtype=None):
    """Direct NCHW/OIHW convolution; pad = (top, left, bottom, right)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.zeros((n, c, h + pad[0] + pad[2], wd + pad[1] + pad[3]), np.float64 if out_dtype is None else np.int64)
    xp[:, :, pad[0]:pad[0] + h, pad[1]:pad[1] + wd] = x
    oh = (h + pad[0] + pad[2] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + pad[1] + pad[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow), xp.dtype)
    og = o // groups
    for b in range(n):
        for oc in range(o):
            g = oc // og
            for y in range(oh):
                for xx in range(ow):
                    acc = 0
                    for ci in range(cg):
                        for i in range(kh):
                            for j in range(kw):
                                acc += xp[b, g * cg + ci, y * stride[0] + i * dil[0], xx * stride[1] + j * dil[1]] * w[oc, ci, i, j]
                    out[b, oc, y, xx] = acc
    return out


def conv2d_transpose_ref(x, w, stride, pad, out_pad, groups=1):
    """Scatter form: out[iy*s - p + k] += x[iy] * w[c, o, k] (IOHW)."""
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    o = og * groups
    cg = c // groups
    oh = (h - 1) * stride[0] - pad[0] - pad[2] + kh + out_pad[0]
    ow = (wd - 1) * stride[1] - pad[1] - pad[3] + kw + out_pad[1]
    out = np.zeros((n, o, oh, ow))
    for b in range(n):
        for ci in range(c):
            g = ci // cg
            for iy in range(h):
                for ix in range(wd):
                    for ol in range(og):
                        for i in range(kh):
                            for j in range(kw):
                                y = iy * stride[0] - pad[0] + i
                                xx = ix * stride[1] - pad[1] + j
                                if 0 <= y < oh and 0 <= xx < ow:
                                    out[b, g * og + ol, y, xx] += x[b, ci, iy, ix] * w[ci, ol, i, j]
    return out


def conv():
    rng = np.random.RandomState(0)
    r = lambda *s: rng.uniform(-1, 1, s).astype(F32)
    x = r(1, 2, 5, 5)
    w = r(3, 2, 3, 3)
    env = {"x": x.astype(F64), "w": w.astype(F64), "conv2d_ref": conv2d_ref, "conv2d_transpose_ref": conv2d_transpose_ref}
    case("conv_conv2d_pad1", "nn.conv2d", "padding=[1, 1]", [x, w],
         "conv2d_ref(x, w, pad=(1, 1, 1, 1)).astype(np.float32)", env)
    case("conv_conv2d_stride2_asym_pad", "nn.conv2d", "strides=[2, 2]; padding=[1, 0, 0, 2]", [x, w],
         "conv2d_ref(x, w, stride=(2, 2), pad=(1, 0, 0, 2)).astype(np.float32)", env)
    case("conv_conv2d_dilation2", "nn.conv2d", "dilation=[2, 2]; padding=[1, 1]", [x, w],
         "conv2d_ref(x, w, pad=(1, 1, 1, 1), dil=(2, 2)).astype(np.float32)", env)
    x4 = r(1, 4, 4, 4)
    w4 = r(4, 2, 3, 3)
    env.update(x4=x4.astype(F64), w4=w4.astype(F64))
    case("conv_conv2d_groups2", "nn.conv2d", "groups=2; padding=[1, 1]", [x4, w4],
         "conv2d_ref(x4, w4, pad=(1, 1, 1, 1), groups=2).astype(np.float32)", env)
    wd = r(8, 1, 3, 3)
    env["wd"] = wd.astype(F64)
    case("conv_conv2d_depthwise_multiplier2", "nn.conv2d", "groups=4; channels=8; kernel_size=[3, 3]", [x4, wd],
         "conv2d_ref(x4, wd, groups=4).astype(np.float32)", env)
    case("conv_conv2d_nhwc_hwio", "nn.conv2d", 'padding=[1, 1]; data_layout="NHWC"; kernel_layout="HWIO"',
         [x.transpose(0, 2, 3, 1).copy(), w.transpose(2, 3, 1, 0).copy()],
         "conv2d_ref(x, w, pad=(1, 1, 1, 1)).transpose(0, 2, 3, 1).astype(np.float32)", env)
    xi = rng.randint(-128, 128, (1, 3, 4, 4)).astype(np.int8)
    wi = rng.randint(-128, 128, (2, 3, 1, 3)).astype(np.int8)
    env.update(xi=xi, wi=wi)
    case("conv_conv2d_int8_int32", "nn.conv2d", 'padding=[0, 1]; out_dtype="int32"', [xi, wi],
         "conv2d_ref(xi.astype(np.int64), wi.astype(np.int64), pad=(0, 1, 0, 1), out_dtype=np.int64).astype(np.int32)", env)
    x1 = r(2, 2, 7)
    w1 = r(4, 1, 3)
    env.update(x1=x1.astype(F64), w1=w1.astype(F64))
    case("conv_conv1d_basic", "nn.conv1d", "", [x1, w1[:2].repeat(2, 1)],
         "conv2d_ref(x1[:, :, None, :], w1[:2].repeat(2, 1)[:, :, None, :])[:, :, 0, :].astype(np.float32)", env)
    case("conv_conv1d_stride_pad", "nn.conv1d", "strides=[2]; padding=[2, 1]", [x1, w1[:2].repeat(2, 1)],
         "conv2d_ref(x1[:, :, None, :], w1[:2].repeat(2, 1)[:, :, None, :], stride=(1, 2), pad=(0, 2, 0, 1))[:, :, 0, :].astype(np.float32)", env)
    case("conv_conv1d_groups_dilation", "nn.conv1d", "groups=2; dilation=[2]", [x1, w1],
         "conv2d_ref(x1[:, :, None, :], w1[:, :, None, :], dil=(1, 2), groups=2)[:, :, 0, :].astype(np.float32)", env)
    case("conv_conv1d_nwc", "nn.conv1d", 'data_layout="NWC"; kernel_layout="WIO"; padding=[1]',
         [x1.transpose(0, 2, 1).copy(), w1[:2].repeat(2, 1).transpose(2, 1, 0).copy()],
         "conv2d_ref(x1[:, :, None, :], w1[:2].repeat(2, 1)[:, :, None, :], pad=(0, 1, 0, 1))[:, :, 0, :].transpose(0, 2, 1).astype(np.float32)", env)
    xt = r(1, 2, 3, 3)
    wt = r(2, 3, 3, 3)
    env.update(xt=xt.astype(F64), wt=wt.astype(F64))
    case("conv_conv2d_transpose_basic", "nn.conv2d_transpose", "", [xt, wt],
         "conv2d_transpose_ref(xt, wt, (1, 1), (0, 0, 0, 0), (0, 0)).astype(np.float32)", env)
    case("conv_conv2d_transpose_stride_pad_outpad", "nn.conv2d_transpose",
         "strides=[2, 2]; padding=[1, 1]; output_padding=[1, 1]", [xt, wt],
         "conv2d_transpose_ref(xt, wt, (2, 2), (1, 1, 1, 1), (1, 1)).astype(np.float32)", env)
    wtg = r(2, 2, 2, 2)
    env["wtg"] = wtg.astype(F64)
    case("conv_conv2d_transpose_groups", "nn.conv2d_transpose", "groups=2; strides=[2, 1]", [xt, wtg],
         "conv2d_transpose_ref(xt, wtg, (2, 1), (0, 0, 0, 0), (0, 0), groups=2).astype(np.float32)", env)


def pool_ref(x, k, s, d, pad, kind, include_pad=False, out_hw=None):
    """Window pool on NCHW; pad = (top, left, bottom, right); out_hw fixes the output size (ceil_mode)."""
    n, c, h, w = x.shape
    oh, ow = out_hw
    out = np.zeros((n, c, oh, ow))
    for y in range(oh):
        for xx in range(ow):
            vals, padded = [], 0
            for i in range(k[0]):
                for j in range(k[1]):
                    sy = y * s[0] - pad[0] + i * d[0]
                    sx = xx * s[1] - pad[1] + j * d[1]
                    if sy < h + pad[2] and sx < w + pad[3]:
                        padded += 1
                    if 0 <= sy < h and 0 <= sx < w:
                        vals.append(x[:, :, sy, sx])
            if kind == "max":
                out[:, :, y, xx] = np.max(vals, axis=0) if vals else -np.inf
            else:
                cnt = padded if include_pad else len(vals)
                out[:, :, y, xx] = np.sum(vals, axis=0) / cnt if cnt else 0
    return out


def pool():
    x = np.arange(1, 26, dtype=F32).reshape(1, 1, 5, 5)
    x[0, 0, 2, 2] = -7
    env = {"x": x.astype(F64), "pool_ref": pool_ref}
    case("pool_max_pool2d_basic", "nn.max_pool2d", "pool_size=[2, 2]; strides=[2, 2]", [x],
         "pool_ref(x, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), 'max', out_hw=(2, 2)).astype(np.float32)", env)
    case("pool_max_pool2d_pad_ceil", "nn.max_pool2d", "pool_size=[3, 3]; strides=[2, 2]; padding=[1, 1]; ceil_mode=True", [-x],
         "pool_ref(-x, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 'max', out_hw=(3, 3)).astype(np.float32)", env)
    case("pool_max_pool2d_dilation", "nn.max_pool2d", "pool_size=[2, 2]; dilation=[2, 2]", [x],
         "pool_ref(x, (2, 2), (1, 1), (2, 2), (0, 0, 0, 0), 'max', out_hw=(3, 3)).astype(np.float32)", env)
    case("pool_avg_pool2d_pad_exclude", "nn.avg_pool2d", "pool_size=[3, 3]; strides=[2, 2]; padding=[1, 1]", [x],
         "pool_ref(x, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 'avg', out_hw=(3, 3)).astype(np.float32)", env)
    case("pool_avg_pool2d_pad_include", "nn.avg_pool2d", "pool_size=[3, 3]; strides=[2, 2]; padding=[1, 1]; count_include_pad=True", [x],
         "pool_ref(x, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 'avg', True, out_hw=(3, 3)).astype(np.float32)", env)
    case("pool_avg_pool2d_ceil_include", "nn.avg_pool2d", "pool_size=[2, 2]; strides=[2, 2]; ceil_mode=True; count_include_pad=True", [x],
         "pool_ref(x, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), 'avg', True, out_hw=(3, 3)).astype(np.float32)", env)
    case("pool_avg_pool2d_ceil_exclude", "nn.avg_pool2d", "pool_size=[2, 2]; strides=[2, 2]; ceil_mode=True", [x],
         "pool_ref(x, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), 'avg', False, out_hw=(3, 3)).astype(np.float32)", env)
    case("pool_avg_pool2d_asym_pad_nhwc", "nn.avg_pool2d", 'pool_size=[2, 2]; padding=[0, 1, 1, 0]; layout="NHWC"',
         [x.transpose(0, 2, 3, 1).copy()],
         "pool_ref(x, (2, 2), (1, 1), (1, 1), (0, 1, 1, 0), 'avg', out_hw=(5, 5)).transpose(0, 2, 3, 1).astype(np.float32)", env)
    x1 = np.array([[[3, 1, 4, 1, 5, 9, 2]]], F32)
    env["x1"] = x1.astype(F64)
    x1r = "x1[:, :, None, :]"
    case("pool_max_pool1d_basic", "nn.max_pool1d", "pool_size=[3]; strides=[2]", [x1],
         "pool_ref(%s, (1, 3), (1, 2), (1, 1), (0, 0, 0, 0), 'max', out_hw=(1, 3))[:, :, 0].astype(np.float32)" % x1r, env)
    case("pool_max_pool1d_pad", "nn.max_pool1d", "pool_size=[2]; padding=[1]", [-x1],
         "pool_ref(-%s, (1, 2), (1, 1), (1, 1), (0, 1, 0, 1), 'max', out_hw=(1, 8))[:, :, 0].astype(np.float32)" % x1r, env)
    case("pool_max_pool1d_nwc_dilation", "nn.max_pool1d", 'pool_size=[2]; dilation=[3]; layout="NWC"', [x1.transpose(0, 2, 1).copy()],
         "pool_ref(%s, (1, 2), (1, 1), (1, 3), (0, 0, 0, 0), 'max', out_hw=(1, 4))[:, :, 0].transpose(0, 2, 1).astype(np.float32)" % x1r, env)
    case("pool_avg_pool1d_basic", "nn.avg_pool1d", "pool_size=[2]; strides=[2]", [x1],
         "pool_ref(%s, (1, 2), (1, 2), (1, 1), (0, 0, 0, 0), 'avg', out_hw=(1, 3))[:, :, 0].astype(np.float32)" % x1r, env)
    case("pool_avg_pool1d_pad_include", "nn.avg_pool1d", "pool_size=[3]; padding=[1, 2]; count_include_pad=True", [x1],
         "pool_ref(%s, (1, 3), (1, 1), (1, 1), (0, 1, 0, 2), 'avg', True, out_hw=(1, 8))[:, :, 0].astype(np.float32)" % x1r, env)
    case("pool_avg_pool1d_pad_exclude", "nn.avg_pool1d", "pool_size=[3]; padding=[1, 2]", [x1],
         "pool_ref(%s, (1, 3), (1, 1), (1, 1), (0, 1, 0, 2), 'avg', False, out_hw=(1, 8))[:, :, 0].astype(np.float32)" % x1r, env)
    g = np.arange(24, dtype=F32).reshape(1, 2, 3, 4)
    env["g"] = g.astype(F64)
    case("pool_global_avg_pool2d_nchw", "nn.global_avg_pool2d", "", [g], "g.mean(axis=(2, 3), keepdims=True).astype(np.float32)", env)
    case("pool_global_avg_pool2d_nhwc", "nn.global_avg_pool2d", 'layout="NHWC"', [g], "g.mean(axis=(1, 2), keepdims=True).astype(np.float32)", env)
    case("pool_global_max_pool2d_nchw", "nn.global_max_pool2d", "", [g], "g.max(axis=(2, 3), keepdims=True).astype(np.float32)", env)
    case("pool_global_max_pool2d_nhwc", "nn.global_max_pool2d", 'layout="NHWC"', [g], "g.max(axis=(1, 2), keepdims=True).astype(np.float32)", env)
    case("pool_global_avg_pool2d_1x1", "nn.global_avg_pool2d", "", [g[:, :, :1, :1]], "g[:, :, :1, :1].astype(np.float32)", env)
    ad = "np.array([[[[{f}(g[0, c, (i * 3) // {oh}:-((-(i + 1) * 3) // {oh}), (j * 4) // {ow}:-((-(j + 1) * 4) // {ow})]) for j in range({ow})] for i in range({oh})] for c in range(2)]]).astype(np.float32)"
    case("pool_adaptive_avg_pool2d_2x3", "nn.adaptive_avg_pool2d", "output_size=[2, 3]", [g], ad.format(f="np.mean", oh=2, ow=3), env)
    case("pool_adaptive_avg_pool2d_1x1", "nn.adaptive_avg_pool2d", "output_size=[1, 1]", [g], ad.format(f="np.mean", oh=1, ow=1), env)
    case("pool_adaptive_avg_pool2d_upsample", "nn.adaptive_avg_pool2d", "output_size=[4, 4]", [g], ad.format(f="np.mean", oh=4, ow=4), env)
    case("pool_adaptive_max_pool2d_2x3", "nn.adaptive_max_pool2d", "output_size=[2, 3]", [g], ad.format(f="np.max", oh=2, ow=3), env)
    case("pool_adaptive_max_pool2d_2x2", "nn.adaptive_max_pool2d", "output_size=[2, 2]", [g], ad.format(f="np.max", oh=2, ow=2), env)
    case("pool_adaptive_max_pool2d_3x4_identity", "nn.adaptive_max_pool2d", "output_size=[3, 4]", [g], ad.format(f="np.max", oh=3, ow=4), env)
    a1 = np.array([[[3, 1, 4, 1, 5, 9, 2]]], F32)
    env["a1"] = a1.astype(F64)
    ad1 = "np.array([[[{f}(a1[0, 0, (i * 7) // {o}:-((-(i + 1) * 7) // {o})]) for i in range({o})]]]).astype(np.float32)"
    case("pool_adaptive_avg_pool1d_3", "nn.adaptive_avg_pool1d", "output_size=[3]", [a1], ad1.format(f="np.mean", o=3), env)
    case("pool_adaptive_avg_pool1d_2", "nn.adaptive_avg_pool1d", "output_size=[2]", [a1], ad1.format(f="np.mean", o=2), env)
    case("pool_adaptive_avg_pool1d_1", "nn.adaptive_avg_pool1d", "output_size=[1]", [a1], ad1.format(f="np.mean", o=1), env)
    case("pool_adaptive_max_pool1d_3", "nn.adaptive_max_pool1d", "output_size=[3]", [a1], ad1.format(f="np.max", o=3), env)
    case("pool_adaptive_max_pool1d_4", "nn.adaptive_max_pool1d", "output_size=[4]", [a1], ad1.format(f="np.max", o=4), env)
    case("pool_adaptive_max_pool1d_1", "nn.adaptive_max_pool1d", "output_size=[1]", [a1], ad1.format(f="np.max", o=1), env)


def softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def lrn_ref(x, size, axis, bias, alpha, beta):
    sq = np.zeros_like(x)
    n = x.shape[axis]
    for c in range(n):
        lo, hi = max(0, c - size // 2), min(n, c - size // 2 + size)
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(lo, hi)
        s = (x[tuple(idx)] ** 2).sum(axis=axis)
        out_idx = [slice(None)] * x.ndim
        out_idx[axis] = c
        sq[tuple(out_idx)] = s
    return x / (bias + alpha * sq / size) ** beta


def nn():
    rng = np.random.RandomState(1)
    r = lambda *s: rng.uniform(-1, 1, s).astype(F32)
    x = r(2, 3)
    w = r(4, 3)
    env = {"x": x.astype(F64), "w": w.astype(F64), "softmax_ref": softmax_ref, "lrn_ref": lrn_ref}
    case("nn_dense_basic", "nn.dense", "", [x, w], "(x @ w.T).astype(np.float32)", env)
    case("nn_dense_units", "nn.dense", "units=4", [x, w], "(x @ w.T).astype(np.float32)", env)
    x3 = r(2, 2, 3)
    env["x3"] = x3.astype(F64)
    case("nn_dense_batched", "nn.dense", "", [x3, w], "(x3 @ w.T).astype(np.float32)", env)
    xi = rng.randint(-128, 128, (2, 4)).astype(np.int8)
    wi = rng.randint(-128, 128, (3, 4)).astype(np.int8)
    env.update(xi=xi, wi=wi)
    case("nn_dense_int8_int32", "nn.dense", 'out_dtype="int32"', [xi, wi],
         "(xi.astype(np.int64) @ wi.astype(np.int64).T).astype(np.int32)", env)
    a = r(2, 3)
    b = r(3, 4)
    env.update(a=a.astype(F64), b=b.astype(F64))
    case("nn_matmul_basic", "nn.matmul", "", [a, b], "(a @ b).astype(np.float32)", env)
    case("nn_matmul_transpose_a", "nn.matmul", "transpose_a=True", [a.T.copy(), b], "(a @ b).astype(np.float32)", env)
    case("nn_matmul_transpose_b", "nn.matmul", "transpose_b=True", [a, b.T.copy()], "(a @ b).astype(np.float32)", env)
    ba = r(2, 2, 3)
    bb = r(2, 3, 2)
    env.update(ba=ba.astype(F64), bb=bb.astype(F64))
    case("nn_batch_matmul_default_no_transpose", "nn.batch_matmul", "", [ba, bb], "(ba @ bb).astype(np.float32)", env)
    case("nn_batch_matmul_transpose_b", "nn.batch_matmul", "transpose_b=True", [ba, bb.transpose(0, 2, 1).copy()],
         "(ba @ bb).astype(np.float32)", env)
    case("nn_batch_matmul_bcast_batch", "nn.batch_matmul", "transpose_a=True", [ba.transpose(0, 2, 1).copy(), bb[:1].copy()],
         "(ba @ bb[:1]).astype(np.float32)", env)
    s = r(2, 3) * 3
    env["s"] = s.astype(F64)
    case("nn_softmax_last", "nn.softmax", "", [s], "softmax_ref(s, -1).astype(np.float32)", env)
    case("nn_softmax_axis0", "nn.softmax", "axis=0", [s], "softmax_ref(s, 0).astype(np.float32)", env)
    big = np.array([1000, 1001, 1002], F32)
    env["big"] = big.astype(F64)
    case("nn_softmax_stable_large", "nn.softmax", "", [big], "softmax_ref(big, -1).astype(np.float32)", env)
    case("nn_log_softmax_last", "nn.log_softmax", "", [s], "np.log(softmax_ref(s, -1)).astype(np.float32)", env)
    case("nn_log_softmax_axis0", "nn.log_softmax", "axis=0", [s], "np.log(softmax_ref(s, 0)).astype(np.float32)", env)
    case("nn_log_softmax_stable_large", "nn.log_softmax", "", [big], "(big - big.max() - np.log(np.exp(big - big.max()).sum())).astype(np.float32)", env)
    d = r(2, 3, 2)
    g, bta, mu, var = r(3), r(3), r(3), np.abs(r(3)) + 0.5
    env.update(d=d.astype(F64), g=g.astype(F64), bta=bta.astype(F64), mu=mu.astype(F64), var=var.astype(F64))
    bn = "((d - mu[:, None]) / np.sqrt(var[:, None] + {eps}) * {G} + {B}).astype(np.float32), mu, var"
    case("nn_batch_norm_axis1", "nn.batch_norm", "", [d, g, bta, mu, var],
         bn.format(eps="1e-5", G="g[:, None]", B="bta[:, None]").replace("mu, var", "mu.astype(np.float32), var.astype(np.float32)"), env)
    case("nn_batch_norm_no_center_scale", "nn.batch_norm", "center=False; scale=False; epsilon=0.01f", [d, g, bta, mu, var],
         bn.format(eps="0.01", G="1", B="0").replace("mu, var", "mu.astype(np.float32), var.astype(np.float32)"), env)
    d2 = d.transpose(0, 2, 1).copy()
    env["d2"] = d2.astype(F64)
    case("nn_batch_norm_last_axis", "nn.batch_norm", "axis=-1", [d2, g, bta, mu, var],
         "((d2 - mu) / np.sqrt(var + 1e-5) * g + bta).astype(np.float32), mu.astype(np.float32), var.astype(np.float32)", env)
    ln = "((Z - Z.mean({ax}, keepdims=True)) / np.sqrt(Z.var({ax}, keepdims=True) + 1e-5) * {G} + {B}).astype(np.float32)"
    env["Z"] = d.astype(F64)
    case("nn_layer_norm_last", "nn.layer_norm", "", [d, g[:2], bta[:2]], ln.format(ax="-1", G="g[:2]", B="bta[:2]"), env)
    case("nn_layer_norm_axis1", "nn.layer_norm", "axis=1", [d, g, bta], ln.format(ax="1", G="g[:, None]", B="bta[:, None]"), env)
    case("nn_layer_norm_no_affine", "nn.layer_norm", "center=False; scale=False", [d, g[:2], bta[:2]], ln.format(ax="-1", G="1", B="0"), env)
    gi = r(2, 4, 3)
    gg, gb = r(4), r(4)
    env.update(gi=gi.astype(F64), gg=gg.astype(F64), gb=gb.astype(F64))
    gn = "(((gi.reshape(2, {G}, -1) - gi.reshape(2, {G}, -1).mean(-1, keepdims=True)) / np.sqrt(gi.reshape(2, {G}, -1).var(-1, keepdims=True) + 1e-5)).reshape(2, 4, 3) * gg[:, None] + gb[:, None]).astype(np.float32)"
    case("nn_group_norm_2_groups", "nn.group_norm", "num_groups=2", [gi, gg, gb], gn.format(G=2), env)
    case("nn_group_norm_1_group", "nn.group_norm", "num_groups=1", [gi, gg, gb], gn.format(G=1), env)
    case("nn_group_norm_4_groups", "nn.group_norm", "num_groups=4", [gi, gg, gb], gn.format(G=4), env)
    inn = "((gi - gi.mean(2, keepdims=True)) / np.sqrt(gi.var(2, keepdims=True) + {eps}) * gg[:, None] + gb[:, None]).astype(np.float32)"
    case("nn_instance_norm_ncw", "nn.instance_norm", "", [gi, gg, gb], inn.format(eps="1e-5"), env)
    case("nn_instance_norm_eps", "nn.instance_norm", "epsilon=0.5f", [gi, gg, gb], inn.format(eps="0.5"), env)
    gi4 = r(1, 2, 2, 2)
    env["gi4"] = gi4.astype(F64)
    case("nn_instance_norm_nhwc_axis", "nn.instance_norm", "axis=-1", [gi4, gg[:2], gb[:2]],
         "((gi4 - gi4.mean((1, 2), keepdims=True)) / np.sqrt(gi4.var((1, 2), keepdims=True) + 1e-5) * gg[:2] + gb[:2]).astype(np.float32)", env)
    case("nn_l2_normalize_axis1", "nn.l2_normalize", "eps=1e-10f; axis=[1]", [d],
         "(Z / np.sqrt(np.maximum((Z * Z).sum(1, keepdims=True), 1e-10))).astype(np.float32)", env)
    case("nn_l2_normalize_all", "nn.l2_normalize", "eps=1e-10f", [d],
         "(Z / np.sqrt(np.maximum((Z * Z).sum(), 1e-10))).astype(np.float32)", env)
    tiny = np.array([1e-3, -2e-3], F32)
    env["tiny"] = tiny.astype(F64)
    case("nn_l2_normalize_eps_floor", "nn.l2_normalize", "eps=1f; axis=[0]", [tiny],
         "(tiny / np.sqrt(np.maximum((tiny * tiny).sum(), 1.0))).astype(np.float32)", env)
    lx = r(1, 5, 2)
    env["lx"] = lx.astype(F64)
    case("nn_lrn_defaults", "nn.lrn", "", [lx], "lrn_ref(lx, 5, 1, 2.0, 1e-4, 0.75).astype(np.float32)", env)
    case("nn_lrn_size3", "nn.lrn", "size=3; bias=1f; alpha=0.5f; beta=0.5f", [lx], "lrn_ref(lx, 3, 1, 1.0, 0.5, 0.5).astype(np.float32)", env)
    case("nn_lrn_even_size_axis2", "nn.lrn", "size=2; axis=2; alpha=1f; beta=1f", [lx], "lrn_ref(lx, 2, 2, 2.0, 1.0, 1.0).astype(np.float32)", env)


def image():
    x = np.arange(1, 7, dtype=F32).reshape(1, 1, 2, 3)
    env = {"x": x}
    # Hand-derivable references (expressions index the input directly).
    case("image_resize2d_nearest_asymmetric", "image.resize2d",
         'size=[4, 6]; method="nearest_neighbor"; coordinate_transformation_mode="asymmetric"; rounding_method=""', [x],
         "x.repeat(2, 2).repeat(2, 3)", env)
    case("image_resize2d_nearest_half_pixel_round", "image.resize2d",
         'size=[4, 6]; method="nearest_neighbor"; rounding_method="round"', [x],
         "x[:, :, [0, 0, 1, 1]][:, :, :, [0, 0, 1, 1, 2, 2]]", env)
    case("image_resize2d_nearest_align_corners", "image.resize2d",
         'size=[3, 5]; method="nearest_neighbor"; coordinate_transformation_mode="align_corners"; rounding_method=""', [x],
         "x[:, :, [0, 0, 1]][:, :, :, [0, 0, 1, 2, 2]]", env)


if __name__ == "__main__":
    globals()[sys.argv[1]]()
