#!/usr/bin/env python3
"""Writes model.onnx, the small CNN test_alter_op_layout.c runs with and
without AlterOpLayout: a 3-channel stem conv + BatchNorm + Relu (stays
NCHW: 3 channels), a residual 3x3 block, a strided depthwise conv with
Clip (ReLU6), a MaxPool, a 1x1 conv, a channel Concat, a per-channel Mul,
GlobalAveragePool, Flatten and Gemm. Weights are seeded (numpy), opset 13.
Input x: (1, 3, 16, 16) float32. Run: python3 gen_model.py (needs onnx and
numpy)."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(18)
inits = []
nodes = []


def const(name, arr):
    inits.append(numpy_helper.from_array(arr.astype(np.float32), name))
    return name


def conv(x, y, cin, cout, k, stride=1, group=1, bias=True):
    w = const(y + "_w", rng.standard_normal((cout, cin // group, k, k)) * (1.0 / np.sqrt(cin // group * k * k)))
    ins = [x, w]
    if bias:
        ins.append(const(y + "_b", rng.standard_normal(cout) * 0.1))
    nodes.append(helper.make_node("Conv", ins, [y], kernel_shape=[k, k], strides=[stride, stride],
                                  pads=[k // 2] * 4, group=group))
    return y


def bn(x, y, c):
    s = const(y + "_s", 1 + 0.1 * rng.standard_normal(c))
    b = const(y + "_b", 0.1 * rng.standard_normal(c))
    m = const(y + "_m", 0.1 * rng.standard_normal(c))
    v = const(y + "_v", 1 + 0.1 * np.abs(rng.standard_normal(c)))
    nodes.append(helper.make_node("BatchNormalization", [x, s, b, m, v], [y], epsilon=1e-5))
    return y


def relu(x, y):
    nodes.append(helper.make_node("Relu", [x], [y]))
    return y


t = relu(bn(conv("x", "c0", 3, 16, 3, bias=False), "bn0", 16), "r0")
u = relu(conv(t, "c1", 16, 16, 3), "r1")
u = conv(u, "c2", 16, 16, 3)
nodes.append(helper.make_node("Add", [u, t], ["res"]))
t = relu("res", "r2")
t = conv(t, "dw", 16, 16, 3, stride=2, group=16)
lo, hi = const("lo", np.array(0.0)), const("hi", np.array(6.0))
nodes.append(helper.make_node("Clip", ["dw", lo, hi], ["r6"]))
nodes.append(helper.make_node("MaxPool", ["r6"], ["mp"], kernel_shape=[2, 2], strides=[2, 2]))
p = conv("mp", "pw", 16, 32, 1)
nodes.append(helper.make_node("Concat", [p, "mp"], ["cat"], axis=1))
sc = const("scale", 1 + 0.1 * rng.standard_normal((1, 48, 1, 1)))
nodes.append(helper.make_node("Mul", ["cat", sc], ["scaled"]))
nodes.append(helper.make_node("GlobalAveragePool", ["scaled"], ["gap"]))
nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], axis=1))
fw = const("fc_w", rng.standard_normal((10, 48)) * 0.2)
fb = const("fc_b", rng.standard_normal(10) * 0.1)
nodes.append(helper.make_node("Gemm", ["flat", fw, fb], ["y"], transB=1))

graph = helper.make_graph(nodes, "alter_op_layout_cnn",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="gen_model.py")
model.ir_version = 7
onnx.checker.check_model(model)
onnx.save(model, os.path.join(os.path.dirname(os.path.abspath(__file__)), "model.onnx"))
