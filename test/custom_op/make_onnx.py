"""Writes custom_gelu.onnx: y = Relu(com.example.Gelu(x, alpha=1.702)) on a
(2, 3) float input. Run with Debian's python3 (onnx 1.12):
    /usr/bin/python3 test/custom_op/make_onnx.py test/custom_op/custom_gelu.onnx
Deterministic: the same bytes every time."""
import sys

import onnx
from onnx import TensorProto, helper

x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
gelu = helper.make_node("Gelu", ["x"], ["g"], name="gelu0", domain="com.example", alpha=1.702)
relu = helper.make_node("Relu", ["g"], ["y"], name="relu0")
graph = helper.make_graph([gelu, relu], "custom_gelu", [x], [y])
model = helper.make_model(graph, producer_name="relayrt-test",
                          opset_imports=[helper.make_opsetid("", 13),
                                         helper.make_opsetid("com.example", 1)])
model.ir_version = 8
onnx.save(model, sys.argv[1])
