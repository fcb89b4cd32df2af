#!/usr/bin/python3
"""The ONNX random ops (frontend/onnx/ops_random.c) on every executor:
shapes and dtypes, values in range (uniform in [low, high)), Bernoulli
0/1 with p = 0 and p = 1 exact, a normal sample's mean and spread near the
attributes (a fixed seed: the draw is deterministic, the bounds are wide),
and the same seed giving the same values. The expected properties come
from the ONNX spec, not from the code under test.

Usage: test_onnx_random.py RELAYRT"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

RELAYRT = sys.argv[1]
EXECUTORS = ["debug", "graph", "vm"]
failures = []


def model(node, inputs, out_type, out_shape, opset=15):
    g = helper.make_graph([node], "random", inputs,
                          [helper.make_tensor_value_info("y", out_type, out_shape)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def run(m, feeds, executor):
    with tempfile.TemporaryDirectory(prefix="onnx-random-") as d:
        path = os.path.join(d, "model.onnx")
        onnx.save(m, path)
        cmd = [RELAYRT, "run", path, "--executor", executor, "--out", d]
        for name, arr in feeds.items():
            p = os.path.join(d, name + ".npy")
            np.save(p, arr)
            cmd += ["--input", "%s=%s" % (name, p)]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        if p.returncode != 0:
            return None, p.stderr.strip()
        return np.load(os.path.join(d, "output_0.npy")), ""


def check(name, cond, detail=""):
    if not cond:
        failures.append("%s %s" % (name, detail))


def main():
    for ex in EXECUTORS:
        # RandomUniform: shape, dtype, range.
        m = model(helper.make_node("RandomUniform", [], ["y"], shape=[3, 50], low=-2.0,
                                   high=5.0, seed=3.0), [], TensorProto.FLOAT, [3, 50])
        y, err = run(m, {}, ex)
        check("uniform/" + ex, y is not None, err)
        if y is not None:
            check("uniform shape/" + ex, y.shape == (3, 50) and y.dtype == np.float32)
            check("uniform range/" + ex, (y >= -2.0).all() and (y < 5.0).all())
            check("uniform spread/" + ex, y.max() - y.min() > 3.0)
        # Same seed, same values; the *Like form takes the input's shape.
        x = np.zeros((4, 25), np.float64)
        ml = model(helper.make_node("RandomUniformLike", ["x"], ["y"], seed=3.0),
                   [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [4, 25])],
                   TensorProto.DOUBLE, [4, 25])
        a, err = run(ml, {"x": x}, ex)
        b, _ = run(ml, {"x": x}, ex)
        check("uniform_like/" + ex, a is not None, err)
        if a is not None:
            check("uniform_like shape/" + ex, a.shape == (4, 25) and a.dtype == np.float64)
            check("uniform_like seed/" + ex, b is not None and np.array_equal(a, b))
            check("uniform_like range/" + ex, (a >= 0).all() and (a < 1).all())
        # RandomNormal: 2000 draws, mean 10 and scale 2.
        m = model(helper.make_node("RandomNormal", [], ["y"], shape=[2000], mean=10.0,
                                   scale=2.0, seed=1.0), [], TensorProto.FLOAT, [2000])
        y, err = run(m, {}, ex)
        check("normal/" + ex, y is not None, err)
        if y is not None:
            check("normal stats/" + ex, abs(y.mean() - 10.0) < 0.3 and abs(y.std() - 2.0) < 0.3,
                  "mean %g std %g" % (y.mean(), y.std()))
        # RandomNormalLike with a dtype attribute.
        m = model(helper.make_node("RandomNormalLike", ["x"], ["y"], dtype=TensorProto.FLOAT),
                  [helper.make_tensor_value_info("x", TensorProto.INT64, [2, 3])],
                  TensorProto.FLOAT, [2, 3])
        y, err = run(m, {"x": np.zeros((2, 3), np.int64)}, ex)
        check("normal_like/" + ex, y is not None and y.shape == (2, 3) and y.dtype == np.float32, err)
        # Bernoulli: p = 0 gives 0, p = 1 gives 1, output dtype from `dtype`.
        p = np.array([0.0, 1.0, 0.0, 1.0, 0.5, 0.5], np.float32)
        m = model(helper.make_node("Bernoulli", ["x"], ["y"], dtype=TensorProto.INT32),
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6])],
                  TensorProto.INT32, [6])
        y, err = run(m, {"x": p}, ex)
        check("bernoulli/" + ex, y is not None, err)
        if y is not None:
            check("bernoulli dtype/" + ex, y.dtype == np.int32 and y.shape == (6,))
            check("bernoulli values/" + ex, list(y[:4]) == [0, 1, 0, 1] and set(y[4:]) <= {0, 1},
                  str(y))
    # A `?` dim is refused, naming the op.
    m = model(helper.make_node("RandomUniformLike", ["x"], ["y"]),
              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
              TensorProto.FLOAT, ["n"])
    y, err = run(m, {"x": np.zeros(3, np.float32)}, "debug")
    check("like dynamic refused", y is None and "RandomUniformLike" in err, err)
    for f in failures:
        print("FAIL", f)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


sys.exit(main())
