#!/usr/bin/env python3
"""Writes a tiny ONNX model for examples/embed: y = Relu(x @ W + b), x of
shape (1, 4), W (4, 3) and b (3) as initializers. Needs the onnx package
(Debian: python3-onnx).

  python3 make_model.py [model.onnx]

With x = [1, 2, 3, 4] (what `embed` feeds when given no .npy) the output is
relu([4, 5, -7] + [0.5, -1, 1]) = [4.5, 4, 0]."""
import sys

from onnx import TensorProto, checker, helper

W = [1, 0, -1,
     0, 1, -1,
     1, 1, 0,
     0, 0, -1]
B = [0.5, -1, 1]

graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "W"], ["xw"]),
     helper.make_node("Add", ["xw", "b"], ["z"]),
     helper.make_node("Relu", ["z"], ["y"])],
    "embed_example",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])],
    initializer=[helper.make_tensor("W", TensorProto.FLOAT, [4, 3], W),
                 helper.make_tensor("b", TensorProto.FLOAT, [3], B)])
model = helper.make_model(graph, producer_name="relayrt-examples",
                          opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
checker.check_model(model)
with open(sys.argv[1] if len(sys.argv) > 1 else "model.onnx", "wb") as f:
    f.write(model.SerializeToString())
