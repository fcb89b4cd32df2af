#!/usr/bin/python3
"""Bad quantized-op models (issue 19) refused with a message naming the op
and the reason, never a crash: each model is built here (python3-onnx) in
a temporary folder and run with `relayrt run`; the test fails unless
relayrt exits with status 1 and its last line holds the expected text.

    test/frontend/run_quant_bad.py RELAYRT"""
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto as T
from onnx import helper

RELAYRT = sys.argv[1]
F, U8, I8, I32 = T.FLOAT, T.UINT8, T.INT8, T.INT32


def model(node, ins, outs, opset):
    g = helper.make_graph([node], "bad", [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    return m


QL, DQ = "QuantizeLinear", "DequantizeLinear"
CASES = [
    ("zero point int16",
     model(helper.make_node(QL, ["x", "s", "zp"], ["y"]),
           [("x", F, [4]), ("s", F, []), ("zp", T.INT16, [])], [("y", T.INT16, [4])], 13),
     "(QuantizeLinear, opset 13): y_zero_point of type int16 is not supported (int8, uint8 only)"),
    ("axis out of range",
     model(helper.make_node(QL, ["x", "s", "zp"], ["y"], axis=5),
           [("x", F, [2, 3]), ("s", F, [3]), ("zp", U8, [3])], [("y", U8, [2, 3])], 13),
     "(QuantizeLinear, opset 13): y_scale: axis 5 is out of range for rank 2"),
    ("scale length is not the axis' extent",
     model(helper.make_node(QL, ["x", "s", "zp"], ["y"], axis=0),
           [("x", F, [2, 3]), ("s", F, [3]), ("zp", U8, [3])], [("y", U8, [2, 3])], 13),
     "(QuantizeLinear, opset 13): inconsistent types"),
    ("float64 scale",
     model(helper.make_node(DQ, ["x", "s"], ["y"]),
           [("x", U8, [4]), ("s", T.DOUBLE, [])], [("y", T.DOUBLE, [4])], 13),
     "(DequantizeLinear, opset 13): x_scale of type float64 is not supported (float32 only)"),
    ("zero point type differs from x",
     model(helper.make_node(DQ, ["x", "s", "zp"], ["y"]),
           [("x", U8, [4]), ("s", F, []), ("zp", I8, [])], [("y", F, [4])], 13),
     "(DequantizeLinear, opset 13): x_zero_point's type differs from x's"),
    ("float operand",
     model(helper.make_node("MatMulInteger", ["a", "b"], ["y"]),
           [("a", F, [2, 3]), ("b", U8, [3, 2])], [("y", I32, [2, 2])], 10),
     "(MatMulInteger, opset 10): A of type float32 is not supported (int8, uint8 only)"),
    ("x zero point per channel",
     model(helper.make_node("ConvInteger", ["x", "w", "xz"], ["y"]),
           [("x", U8, [1, 2, 3, 3]), ("w", U8, [1, 2, 1, 1]), ("xz", U8, [2])],
           [("y", I32, [1, 1, 3, 3])], 10),
     "(ConvInteger, opset 10): an x_zero_point other than per tensor is not supported"),
    ("float bias",
     model(helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"]),
           [("x", U8, [1, 1, 3, 3]), ("xs", F, []), ("xz", U8, []), ("w", U8, [1, 1, 1, 1]),
            ("ws", F, []), ("wz", U8, []), ("ys", F, []), ("yz", U8, []), ("b", F, [1])],
           [("y", U8, [1, 1, 3, 3])], 10),
     "(QLinearConv, opset 10): B must be int32"),
    ("missing inputs",
     model(helper.make_node("QLinearMatMul", ["a", "as", "az", "b"], ["y"]),
           [("a", U8, [2, 3]), ("as", F, []), ("az", U8, []), ("b", U8, [3, 2])],
           [("y", U8, [2, 2])], 10),
     "(QLinearMatMul, opset 10): expects at least 8 inputs, got 4"),
]

failed = 0
with tempfile.TemporaryDirectory(prefix="quant-bad-") as tmp:
    for i, (what, m, want) in enumerate(CASES):
        path = os.path.join(tmp, "m%d.onnx" % i)
        onnx.save(m, path)
        r = subprocess.run([RELAYRT, "run", path, "--executor", "debug"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        if r.returncode != 1 or want not in last:
            failed += 1
            print("FAIL %s: status %d, %r (want %r)" % (what, r.returncode, last, want))
        else:
            print("ok   %s" % what)
sys.exit(1 if failed else 0)
