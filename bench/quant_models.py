#!/usr/bin/python3
"""Quantized-op models for timing (issue 19), in bench/models' layout:
DIR/NAME.onnx with its input DIR/NAME.x.npy (input `x`, float32), the
quantization parameters and weights as initializers, as a quantized model
exported in ONNX's operator form has them:

  qdq       x (1, 64, 112, 112) -> QuantizeLinear (uint8) -> DequantizeLinear
  qconv     x (1, 64, 56, 56) -> QuantizeLinear (uint8) -> QLinearConv
            (int8 weight 64x64x3x3, pad 1, int32 bias) -> DequantizeLinear
  qmatmul   x (128, 512) -> QuantizeLinear (uint8) -> QLinearMatMul (int8
            weight 512x512) -> DequantizeLinear
  mmint     x (128, 512) -> QuantizeLinear (uint8) -> MatMulInteger (int8
            weight 512x512, zero points) -> int32

    bench/quant_models.py DIR
    bench/models --dir DIR --models qdq,qconv,qmatmul,mmint --targets host

Seeded; uses python3-onnx and numpy. The weights span all of int8 against
uint8 activations: ONNX Runtime's outputs on qconv, qmatmul and mmint then
differ from the exact ones (numpy in int64) in about half the elements (its
AVX2 u8 x s8 kernels saturate pairs of products in int16; with |w| <= 64
they agree); relayrt's equal the exact ones."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper, numpy_helper

out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/relayrt-quant-models"
os.makedirs(out, exist_ok=True)
rs = np.random.RandomState(19)


def save(name, nodes, x, y_type, y_shape, inits):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", T.FLOAT, list(x.shape))],
                          [helper.make_tensor_value_info("y", y_type, y_shape)],
                          initializer=[numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="quant_models")
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, name + ".onnx"))
    np.save(os.path.join(out, name + ".x.npy"), x)


q = {"xs": np.array(0.05, np.float32), "xz": np.array(128, np.uint8)}
quant = helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"])

x = rs.standard_normal((1, 64, 112, 112)).astype(np.float32)
save("qdq", [quant, helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["y"])], x, T.FLOAT,
     list(x.shape), q)

x = rs.standard_normal((1, 64, 56, 56)).astype(np.float32)
inits = dict(q, w=rs.randint(-128, 128, (64, 64, 3, 3)).astype(np.int8),
             ws=np.array(0.004, np.float32), wz=np.array(0, np.int8),
             ys=np.array(0.2, np.float32), yz=np.array(100, np.uint8),
             b=rs.randint(-1000, 1000, 64).astype(np.int32))
save("qconv", [quant,
               helper.make_node("QLinearConv", ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["yq"],
                                pads=[1, 1, 1, 1]),
               helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])],
     x, T.FLOAT, list(x.shape), inits)

x = rs.standard_normal((128, 512)).astype(np.float32)
inits = dict(q, w=rs.randint(-128, 128, (512, 512)).astype(np.int8),
             ws=np.array(0.004, np.float32), wz=np.array(0, np.int8),
             ys=np.array(0.5, np.float32), yz=np.array(120, np.uint8))
save("qmatmul", [quant,
                 helper.make_node("QLinearMatMul", ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["yq"]),
                 helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])],
     x, T.FLOAT, [128, 512], inits)

inits = dict(q, w=rs.randint(-128, 128, (512, 512)).astype(np.int8), wz=np.array(3, np.int8))
save("mmint", [quant, helper.make_node("MatMulInteger", ["xq", "w", "xz", "wz"], ["y"])],
     x, T.INT32, [128, 512], inits)
