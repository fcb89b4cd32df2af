#!/usr/bin/python3
"""Small hand-built ONNX models for what ONNX's node suite leaves out:
If with a run-time condition (both branches, one and two outputs), Loop
unrolled (scan outputs, early exit through the condition, outer values in
the body) and as a recursive function (a condition computed from the data,
no trip count, a trip count given at run time), RNN/LSTM/GRU in reverse and bidirectional form, with layout 1,
initial states and Y_c, Scan (axes, directions, opset 8's batch); plus models that must be refused with a clear
message; Det of 1x1 and batched 3x3 matrices (and a 4x4 one refused);
a 1-d ConvTranspose with strides, dilations, pads, output_padding and a bias.

    gen_onnx_cases.py OUT_DIR

writes OUT_DIR/extra/CASE/model.onnx with test_data_set_N/input_K.npy and
output_K.npy (the layout of ../shared/tools/onnx-node-tests, so
scripts/onnx-conformance runs them with --suite extra), OUT_DIR/index.tsv,
and OUT_DIR/bad/CASE.onnx with OUT_DIR/bad/CASE.expect holding a piece of
the error message relayrt must print.

Expected values come from numpy code written here from the ONNX operator
specification (the recurrences below), never from relayrt."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
rows = []


def f32(*shape, seed):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def save(case, model, data_sets, ops):
    d = os.path.join(OUT, "extra", case)
    os.makedirs(d, exist_ok=True)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for k, (ins, outs) in enumerate(data_sets):
        ds = os.path.join(d, "test_data_set_%d" % k)
        os.makedirs(ds, exist_ok=True)
        for i, a in enumerate(ins):
            np.save(os.path.join(ds, "input_%d.npy" % i), a)
            # onnx's from_array takes strings as an object array.
            open(os.path.join(ds, "input_%d.pb" % i), "wb").write(
                numpy_helper.from_array(a.astype(object) if a.dtype.kind == "U" else a)
                .SerializeToString())
        for i, a in enumerate(outs):
            np.save(os.path.join(ds, "output_%d.npy" % i), a)
            open(os.path.join(ds, "output_%d.pb" % i), "wb").write(
                numpy_helper.from_array(a).SerializeToString())
    g = model.graph
    rows.append("extra/%s\t%s\t%d\t%s\t%s" % (
        case, " ".join(ops), model.opset_import[0].version,
        ",".join(i.name for i in g.input), ",".join(o.name for o in g.output)))


def bad(case, model, expect):
    d = os.path.join(OUT, "bad")
    os.makedirs(d, exist_ok=True)
    onnx.save(model, os.path.join(d, case + ".onnx"))
    open(os.path.join(d, case + ".expect"), "w").write(expect + "\n")


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, inits=(), opset=13, name="g"):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def const(name, a):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(a, name))


# ---- If ----------------------------------------------------------------------

x = f32(3, seed=1)
then_g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["t"])], "then", [],
                           [vi("t", TensorProto.FLOAT, [3])])
else_g = helper.make_graph([helper.make_node("Mul", ["x", "x"], ["e"])], "else", [],
                           [vi("e", TensorProto.FLOAT, [3])])
m = model([helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
          [vi("c", TensorProto.BOOL, []), vi("x", TensorProto.FLOAT, [3])],
          [vi("y", TensorProto.FLOAT, [3])])
save("if_runtime_cond", m, [([np.array(True), x], [x + x]), ([np.array(False), x], [x * x])],
     ["If", "Add", "Mul"])

# Two outputs, a branch-local constant, a 1-element condition.
w = np.array([2.0, -1.0, 0.5], np.float32)
then_g = helper.make_graph(
    [const("k", w), helper.make_node("Mul", ["x", "k"], ["t0"]),
     helper.make_node("Neg", ["x"], ["t1"])], "then", [],
    [vi("t0", TensorProto.FLOAT, [3]), vi("t1", TensorProto.FLOAT, [3])])
else_g = helper.make_graph(
    [helper.make_node("Sub", ["x", "x"], ["e0"]), helper.make_node("Abs", ["x"], ["e1"])],
    "else", [], [vi("e0", TensorProto.FLOAT, [3]), vi("e1", TensorProto.FLOAT, [3])])
m = model([helper.make_node("Greater", ["s", "z"], ["c"]),
           helper.make_node("If", ["c"], ["y0", "y1"], then_branch=then_g, else_branch=else_g)],
          [vi("s", TensorProto.FLOAT, [1]), vi("x", TensorProto.FLOAT, [3])],
          [vi("y0", TensorProto.FLOAT, [3]), vi("y1", TensorProto.FLOAT, [3])],
          inits=[numpy_helper.from_array(np.zeros(1, np.float32), "z")])
save("if_two_outputs", m,
     [([np.array([1.5], np.float32), x], [x * w, -x]),
      ([np.array([-1.0], np.float32), x], [x - x, np.abs(x)])], ["If", "Greater", "Mul", "Neg", "Sub", "Abs"])

# A constant condition: the branch is chosen at load time (graph runs it).
neg_g = helper.make_graph([helper.make_node("Neg", ["x"], ["t"])], "then", [],
                         [vi("t", TensorProto.FLOAT, [3])])
exp_g = helper.make_graph([helper.make_node("Exp", ["x"], ["e"])], "else", [],
                         [vi("e", TensorProto.FLOAT, [3])])
m = model([const("c", np.array(False)),
           helper.make_node("If", ["c"], ["y"], then_branch=neg_g, else_branch=exp_g)],
          [vi("x", TensorProto.FLOAT, [3])], [vi("y", TensorProto.FLOAT, [3])])
save("if_const_cond", m, [([x], [np.exp(x)])], ["If", "Constant", "Neg", "Exp"])

# ---- Loop --------------------------------------------------------------------

# y <- y * 2 + i (i the iteration, cast to float), scan out y + a (an outer value).
a = f32(2, seed=2)
body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
     helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
     helper.make_node("Mul", ["y_in", "two"], ["y2"]),
     helper.make_node("Add", ["y2", "fi"], ["y_out"]),
     helper.make_node("Add", ["y_out", "a"], ["scan"])],
    "body",
    [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
     vi("y_in", TensorProto.FLOAT, [2])],
    [vi("cond_out", TensorProto.BOOL, []), vi("y_out", TensorProto.FLOAT, [2]),
     vi("scan", TensorProto.FLOAT, [2])])
m = model([helper.make_node("Loop", ["M", "", "y0"], ["y", "ys"], body=body)],
          [vi("y0", TensorProto.FLOAT, [2]), vi("a", TensorProto.FLOAT, [2])],
          [vi("y", TensorProto.FLOAT, [2]), vi("ys", TensorProto.FLOAT, [4, 2])],
          inits=[numpy_helper.from_array(np.array(4, np.int64), "M"),
                 numpy_helper.from_array(np.array(2.0, np.float32), "two")])
y0 = f32(2, seed=3)
y, ys = y0.copy(), []
for i in range(4):
    y = y * 2 + np.float32(i)
    ys.append(y + a)
save("loop_scan_outer_value", m, [([y0, a], [y, np.stack(ys)])],
     ["Loop", "Identity", "Cast", "Mul", "Add"])

# The condition computed from the iteration stops the loop early:
# cond_out = i < 2 runs iterations 0, 1, 2 of M = 10.
body = helper.make_graph(
    [helper.make_node("Less", ["i", "two"], ["cond_out"]),
     helper.make_node("Add", ["s_in", "x"], ["s_out"]),
     helper.make_node("Identity", ["s_out"], ["scan"])],
    "body",
    [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
     vi("s_in", TensorProto.FLOAT, [3])],
    [vi("cond_out", TensorProto.BOOL, []), vi("s_out", TensorProto.FLOAT, [3]),
     vi("scan", TensorProto.FLOAT, [3])])
m = model([helper.make_node("Loop", ["M", "c0", "s0"], ["s", "ss"], body=body)],
          [vi("s0", TensorProto.FLOAT, [3]), vi("x", TensorProto.FLOAT, [3])],
          [vi("s", TensorProto.FLOAT, [3]), vi("ss", TensorProto.FLOAT, [3, 3])],
          inits=[numpy_helper.from_array(np.array(10, np.int64), "M"),
                 numpy_helper.from_array(np.array(True), "c0"),
                 numpy_helper.from_array(np.array(2, np.int64), "two")])
s0 = f32(3, seed=4)
save("loop_early_exit", m, [([s0, x], [s0 + 3 * x, np.stack([s0 + x, s0 + 2 * x, s0 + 3 * x])])],
     ["Loop", "Less", "Add", "Identity"])

# A condition that depends on the data cannot be unrolled: refused.
body = helper.make_graph(
    [helper.make_node("ReduceSum", ["s_in"], ["t"], keepdims=0),
     helper.make_node("Less", ["t", "lim"], ["cond_out"]),
     helper.make_node("Add", ["s_in", "s_in"], ["s_out"])],
    "body",
    [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
     vi("s_in", TensorProto.FLOAT, [3])],
    [vi("cond_out", TensorProto.BOOL, []), vi("s_out", TensorProto.FLOAT, [3])])
m = model([helper.make_node("Loop", ["M", "", "s0"], ["s"], body=body)],
          [vi("s0", TensorProto.FLOAT, [3])], [vi("s", TensorProto.FLOAT, [3])],
          inits=[numpy_helper.from_array(np.array(10, np.int64), "M"),
                 numpy_helper.from_array(np.array(100.0, np.float32), "lim")])


def doubling(s0, trips):
    s, c, i = s0.copy(), True, 0
    while i < trips and c:
        c = s.sum() < 100
        s = s + s
        i += 1
    return s


s0 = np.array([1, 2, 3], np.float32)
s1 = np.array([30, 40, 50], np.float32)
save("loop_while_data_cond", m, [([s0], [doubling(s0, 10)]), ([s1], [doubling(s1, 10)])],
     ["Loop", "ReduceSum", "Less", "Add"])

m = model([helper.make_node("Loop", ["", "", "s0"], ["s"], body=body)],
          [vi("s0", TensorProto.FLOAT, [3])], [vi("s", TensorProto.FLOAT, [3])],
          inits=[numpy_helper.from_array(np.array(100.0, np.float32), "lim")])
save("loop_while_no_trip_count", m, [([s0], [doubling(s0, 1 << 30)])],
     ["Loop", "ReduceSum", "Less", "Add"])

# The trip count as a graph input, the body reading an outer input: a
# recursive function too (M known only at run time).
body2 = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
     helper.make_node("Mul", ["s_in", "k"], ["s_out"])],
    "body",
    [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
     vi("s_in", TensorProto.FLOAT, [3])],
    [vi("cond_out", TensorProto.BOOL, []), vi("s_out", TensorProto.FLOAT, [3])])
m = model([helper.make_node("Loop", ["M", "", "s0"], ["s"], body=body2)],
          [vi("M", TensorProto.INT64, []), vi("s0", TensorProto.FLOAT, [3]),
           vi("k", TensorProto.FLOAT, [3])], [vi("s", TensorProto.FLOAT, [3])])
kk = np.array([0.5, -2, 1.5], np.float32)
save("loop_while_runtime_trips", m,
     [([np.array(3, np.int64), s0, kk], [s0 * kk ** 3]), ([np.array(0, np.int64), s0, kk], [s0])],
     ["Loop", "Identity", "Mul"])

# Scan outputs of a loop whose condition depends on the data: gathered in
# lists while it runs (the debug executor alone; the vm refuses lists).
body3 = helper.make_graph(
    list(body.node) + [helper.make_node("Identity", ["s_out"], ["scan"])], "body",
    list(body.input), list(body.output) + [vi("scan", TensorProto.FLOAT, [3])])
m = model([helper.make_node("Loop", ["M", "", "s0"], ["s", "ss"], body=body3)],
          [vi("s0", TensorProto.FLOAT, [3])],
          [vi("s", TensorProto.FLOAT, [3]), vi("ss", TensorProto.FLOAT, [None, 3])],
          inits=[numpy_helper.from_array(np.array(10, np.int64), "M"),
                 numpy_helper.from_array(np.array(100.0, np.float32), "lim")])


def doubling_scan(s0, trips):
    s, c, i, scans = s0.copy(), True, 0, []
    while i < trips and c:
        c = s.sum() < 100
        s = s + s
        scans.append(s)
        i += 1
    return [s, np.stack(scans)]


save("loop_scan_data_cond", m, [([s0], doubling_scan(s0, 10)), ([s1], doubling_scan(s1, 10))],
     ["Loop", "ReduceSum", "Less", "Add", "Identity"])

# ---- RNN, LSTM, GRU: numpy references from the ONNX operator spec ---------------


def sig(v):
    return 1 / (1 + np.exp(-v))


def rnn_ref(kind, X, W, R, B, h0, c0=None, P=None, direction="forward", lbr=0):
    S, Bn, _ = X.shape
    D = W.shape[0]
    H = R.shape[2]
    G = {"RNN": 1, "LSTM": 4, "GRU": 3}[kind]
    Y = np.zeros((S, D, Bn, H), np.float64)
    Yh = np.zeros((D, Bn, H), np.float64)
    Yc = np.zeros((D, Bn, H), np.float64)
    for d in range(D):
        rev = direction == "reverse" or d == 1
        Wd, Rd = W[d].astype(np.float64), R[d].astype(np.float64)
        Wb = B[d, :G * H] if B is not None else np.zeros(G * H)
        Rb = B[d, G * H:] if B is not None else np.zeros(G * H)
        h = h0[d].astype(np.float64) if h0 is not None else np.zeros((Bn, H))
        c = c0[d].astype(np.float64) if c0 is not None else np.zeros((Bn, H))
        p = P[d] if P is not None else np.zeros(3 * H)
        for s in range(S):
            t = S - 1 - s if rev else s
            xw = X[t] @ Wd.T + Wb
            if kind == "RNN":
                h = np.tanh(xw + h @ Rd.T + Rb)
            elif kind == "LSTM":
                g = xw + h @ Rd.T + Rb
                i, o, f, cc = np.split(g, 4, axis=1)
                i = sig(i + p[:H] * c)
                f = sig(f + p[2 * H:] * c)
                c = f * c + i * np.tanh(cc)
                o = sig(o + p[H:2 * H] * c)
                h = o * np.tanh(c)
            else:
                xz, xr, xh = np.split(xw, 3, axis=1)
                Rz, Rr, Rh = np.split(Rd, 3, axis=0)
                bz, br, bh = np.split(Rb, 3)
                z = sig(xz + h @ Rz.T + bz)
                r = sig(xr + h @ Rr.T + br)
                if lbr:
                    n = np.tanh(xh + r * (h @ Rh.T + bh))
                else:
                    n = np.tanh(xh + (r * h) @ Rh.T + bh)
                h = (1 - z) * n + z * h
            Y[t, d] = h
        Yh[d], Yc[d] = h, c
    return Y.astype(np.float32), Yh.astype(np.float32), Yc.astype(np.float32)


def recurrent_case(case, kind, S, Bn, I, H, direction, layout=0, with_b=True, with_h0=True,
                   with_c0=False, lbr=0, seed=10):
    D = 2 if direction == "bidirectional" else 1
    G = {"RNN": 1, "LSTM": 4, "GRU": 3}[kind]
    X = f32(S, Bn, I, seed=seed)
    W = f32(D, G * H, I, seed=seed + 1)
    R = f32(D, G * H, H, seed=seed + 2)
    B = f32(D, 2 * G * H, seed=seed + 3)
    h0 = f32(D, Bn, H, seed=seed + 4)
    c0 = f32(D, Bn, H, seed=seed + 5)
    Y, Yh, Yc = rnn_ref(kind, X, W, R, B if with_b else None, h0 if with_h0 else None,
                        c0 if with_c0 else None, None, direction, lbr)
    ins = [X, W, R]
    names = ["X", "W", "R"]
    if with_b or with_h0 or with_c0:
        ins.append(B if with_b else None)
        names.append("B" if with_b else "")
    if with_h0 or with_c0:
        names += ["", "initial_h" if with_h0 else ""]
        ins += [None, h0 if with_h0 else None]
    if with_c0:
        names.append("initial_c")
        ins.append(c0)
    if layout == 1:
        X = X.transpose(1, 0, 2)
        h0 = h0.transpose(1, 0, 2)
        c0 = c0.transpose(1, 0, 2)
        ins = [X if n == "X" else h0 if n == "initial_h" else c0 if n == "initial_c" else v
               for n, v in zip(names, ins)]
        Y = Y.transpose(2, 0, 1, 3)
        Yh = Yh.transpose(1, 0, 2)
        Yc = Yc.transpose(1, 0, 2)
    outs = ["Y", "Y_h"] + (["Y_c"] if kind == "LSTM" else [])
    attrs = dict(hidden_size=H, direction=direction)
    if layout:
        attrs["layout"] = 1
    if kind == "GRU" and lbr:
        attrs["linear_before_reset"] = 1
    node = helper.make_node(kind, names, outs, **attrs)
    graph_ins = [vi(n, TensorProto.FLOAT, list(v.shape)) for n, v in zip(names, ins) if n]
    want = [Y, Yh] + ([Yc] if kind == "LSTM" else [])
    graph_outs = [vi(n, TensorProto.FLOAT, list(v.shape)) for n, v in zip(outs, want)]
    m = model([node], graph_ins, graph_outs, opset=14)
    save(case, m, [([v for n, v in zip(names, ins) if n], want)], [kind])


recurrent_case("rnn_reverse", "RNN", 4, 2, 3, 5, "reverse")
recurrent_case("rnn_bidirectional_no_bias", "RNN", 3, 2, 3, 4, "bidirectional", with_b=False,
               with_h0=False)
recurrent_case("lstm_bidirectional_yc", "LSTM", 3, 2, 4, 3, "bidirectional", with_c0=True)
recurrent_case("lstm_reverse_layout1", "LSTM", 4, 3, 2, 3, "reverse", layout=1, with_c0=True)
recurrent_case("gru_bidirectional_lbr", "GRU", 3, 2, 3, 4, "bidirectional", lbr=1)
recurrent_case("gru_reverse_layout1", "GRU", 5, 1, 2, 3, "reverse", layout=1)

# Shorter sequences (masking) are refused.
X = vi("X", TensorProto.FLOAT, [3, 2, 2])
m = model([helper.make_node("RNN", ["X", "W", "R", "", "L"], ["", "Y_h"], hidden_size=2)],
          [X], [vi("Y_h", TensorProto.FLOAT, [1, 2, 2])],
          inits=[numpy_helper.from_array(f32(1, 2, 2, seed=1), "W"),
                 numpy_helper.from_array(f32(1, 2, 2, seed=2), "R"),
                 numpy_helper.from_array(np.array([3, 1], np.int32), "L")], opset=14)
bad("rnn_short_sequence", m, "sequence_lens shorter than the sequence")

# ---- Scan ----------------------------------------------------------------------
# Body: state s <- s * a + x1 - x2 (x1, x2 slices of two scan inputs), scan
# outputs s and x1 * 2. Reference: the loop written from the Scan spec.


def scan_body():
    return helper.make_graph(
        [helper.make_node("Mul", ["s_in", "a"], ["sa"]),
         helper.make_node("Add", ["sa", "x1"], ["t"]),
         helper.make_node("Sub", ["t", "x2"], ["s_out"]),
         helper.make_node("Identity", ["s_out"], ["o1"]),
         helper.make_node("Add", ["x1", "x1"], ["o2"])],
        "body", [vi("s_in", TensorProto.FLOAT, [3]), vi("x1", TensorProto.FLOAT, [3]),
                 vi("x2", TensorProto.FLOAT, [3])],
        [vi("s_out", TensorProto.FLOAT, [3]), vi("o1", TensorProto.FLOAT, [3]),
         vi("o2", TensorProto.FLOAT, [3])])


def scan_ref(s, x1s, x2s, a, in_rev, out_rev, out_axes):
    n = len(x1s)
    o1, o2 = [None] * n, [None] * n
    for it in range(n):
        i1 = n - 1 - it if in_rev[0] else it
        i2 = n - 1 - it if in_rev[1] else it
        s = s * a + x1s[i1] - x2s[i2]
        o1[n - 1 - it if out_rev[0] else it] = s
        o2[n - 1 - it if out_rev[1] else it] = x1s[i1] * 2
    return s, np.stack(o1, axis=out_axes[0]), np.stack(o2, axis=out_axes[1])


a = f32(3, seed=20)
s0 = f32(3, seed=21)
x1 = f32(4, 3, seed=22)          # scanned along axis 0
x2 = f32(3, 4, seed=23)          # scanned along axis 1 (given as axis -1)
m = model([helper.make_node("Scan", ["s0", "x1", "x2"], ["s", "y1", "y2"], body=scan_body(),
                            num_scan_inputs=2, scan_input_axes=[0, -1],
                            scan_input_directions=[0, 1], scan_output_axes=[1, 0],
                            scan_output_directions=[1, 0])],
          [vi("s0", TensorProto.FLOAT, [3]), vi("x1", TensorProto.FLOAT, [4, 3]),
           vi("x2", TensorProto.FLOAT, [3, 4])],
          [vi("s", TensorProto.FLOAT, [3]), vi("y1", TensorProto.FLOAT, [3, 4]),
           vi("y2", TensorProto.FLOAT, [4, 3])],
          inits=[numpy_helper.from_array(a, "a")], opset=16)
r = scan_ref(s0, list(x1), list(x2.T), a, [0, 1], [1, 0], [1, 0])
save("scan_axes_directions", m, [([s0, x1, x2], list(r))], ["Scan", "Mul", "Add", "Sub", "Identity"])

# Opset 8: a batch axis 0, scan axis 1, `directions`, no sequence_lens.
sb, x1b, x2b = f32(2, 3, seed=24), f32(2, 4, 3, seed=25), f32(2, 4, 3, seed=26)
m = model([helper.make_node("Scan", ["", "s0", "x1", "x2"], ["s", "y1", "y2"], body=scan_body(),
                            num_scan_inputs=2, directions=[1, 0])],
          [vi("s0", TensorProto.FLOAT, [2, 3]), vi("x1", TensorProto.FLOAT, [2, 4, 3]),
           vi("x2", TensorProto.FLOAT, [2, 4, 3])],
          [vi("s", TensorProto.FLOAT, [2, 3]), vi("y1", TensorProto.FLOAT, [2, 4, 3]),
           vi("y2", TensorProto.FLOAT, [2, 4, 3])],
          inits=[numpy_helper.from_array(a, "a")], opset=8)
per = [scan_ref(sb[b], list(x1b[b]), list(x2b[b]), a, [1, 0], [0, 0], [0, 0]) for b in range(2)]
save("scan_opset8_batch", m, [([sb, x1b, x2b], [np.stack([p[k] for p in per]) for k in range(3)])],
     ["Scan", "Mul", "Add", "Sub", "Identity"])

# A scan input whose scan axis is a dim_param cannot be unrolled.
m = model([helper.make_node("Scan", ["s0", "x1", "x1"], ["s", "y1", "y2"], body=scan_body(),
                            num_scan_inputs=2)],
          [vi("s0", TensorProto.FLOAT, [3]), vi("x1", TensorProto.FLOAT, ["T", 3])],
          [vi("s", TensorProto.FLOAT, [3]), vi("y1", TensorProto.FLOAT, ["T", 3]),
           vi("y2", TensorProto.FLOAT, ["T", 3])],
          inits=[numpy_helper.from_array(a, "a")], opset=16)
bad("scan_dynamic_length", m, "(Scan, opset 16): a Scan whose scan inputs have a `?` dim")

# ---- Reshape to a shape computed from a `?` dim --------------------------------
# x: (N, 6) with N a dim_param; the target (N, 2, 3) comes from Shape(x), so
# it is known only at run time: dyn.reshape under debug and vm, at two N.
x = vi("x", TensorProto.FLOAT, ["N", 6])
m = model([helper.make_node("Shape", ["x"], ["s"]),
           helper.make_node("Slice", ["s", "st", "en"], ["n"]),
           helper.make_node("Concat", ["n", "c23"], ["ns"], axis=0),
           helper.make_node("Reshape", ["x", "ns"], ["r"]),
           helper.make_node("Relu", ["r"], ["y"])],
          [x], [vi("y", TensorProto.FLOAT, ["N", 2, 3])],
          inits=[numpy_helper.from_array(np.array([2, 3], np.int64), "c23"),
                 numpy_helper.from_array(np.array([0], np.int64), "st"),
                 numpy_helper.from_array(np.array([1], np.int64), "en")])
x4, x1 = f32(4, 6, seed=7), f32(1, 6, seed=8)
save("reshape_computed_shape", m,
     [([x4], [np.maximum(x4.reshape(4, 2, 3), 0)]), ([x1], [np.maximum(x1.reshape(1, 2, 3), 0)])],
     ["Shape", "Slice", "Concat", "Reshape", "Relu"])

# ---- Det beyond the node suite's 2x2 (h3, issue 19) ---------------------------
# Batched 3x3 and 1x1 matrices against numpy.linalg.det; 4x4 is refused (not
# yet).
a = f32(2, 3, 3, 3, seed=31)
m = model([helper.make_node("Det", ["x"], ["y"])], [vi("x", TensorProto.FLOAT, [2, 3, 3, 3])],
          [vi("y", TensorProto.FLOAT, [2, 3])], opset=11)
save("det_3x3_batched", m, [([a], [np.linalg.det(a.astype(np.float64)).astype(np.float32)])], ["Det"])
a = f32(4, 1, 1, seed=32)
m = model([helper.make_node("Det", ["x"], ["y"])], [vi("x", TensorProto.FLOAT, [4, 1, 1])],
          [vi("y", TensorProto.FLOAT, [4])], opset=11)
save("det_1x1", m, [([a], [a.reshape(4)])], ["Det"])
m = model([helper.make_node("Det", ["x"], ["y"])], [vi("x", TensorProto.FLOAT, [4, 4])],
          [vi("y", TensorProto.FLOAT, [])], opset=11)
bad("det_4x4", m, "Det of matrices other than 1x1, 2x2, 3x3 (not yet)")

# ---- ConvTranspose 1-d with strides, pads, dilations, output_padding and B
# (h3, issue 19): y[n, o, i*s + k*d - pb] += x[n, c, i] w[c, o, k], cropped
# to (L - 1) s + (K - 1) d + 1 + op - pb - pe, plus B[o].
def conv_transpose1d(x, w, b, s, d, pb, pe, op):
    N, C, L = x.shape
    O, K = w.shape[1], w.shape[2]
    full = np.zeros((N, O, (L - 1) * s + (K - 1) * d + 1 + op + pe), np.float64)
    for i in range(L):
        for k in range(K):
            full[:, :, i * s + k * d] += x[:, :, i].astype(np.float64) @ w[:, :, k].astype(np.float64)
    n_out = (L - 1) * s + (K - 1) * d + 1 + op - pb - pe
    return (full[:, :, pb:pb + n_out] + b.reshape(1, O, 1)).astype(np.float32)


x, w, b = f32(2, 3, 5, seed=41), f32(3, 4, 3, seed=42), f32(4, seed=43)
m = model([helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], strides=[2], dilations=[2],
                            pads=[1, 2], output_padding=[1])],
          [vi("x", TensorProto.FLOAT, [2, 3, 5]), vi("w", TensorProto.FLOAT, [3, 4, 3]),
           vi("b", TensorProto.FLOAT, [4])], [vi("y", TensorProto.FLOAT, [2, 4, 11])], opset=11)
save("convtranspose_1d_strided", m, [([x, w, b], [conv_transpose1d(x, w, b, 2, 2, 1, 2, 1)])],
     ["ConvTranspose"])

# ---- TfIdfVectorizer: modes IDF and TFIDF with weights, 3-grams, sparse and
# permuted ngram_indexes, min_gram_length > 1 (issue 19, strings; ONNX's
# node cases cover TF only). Expected values: the specification's counting
# (an n-gram x[i], x[i+d], ..., x[i+(n-1)d] for each distance d = 1 ..
# max_skip_count + 1, unigrams once), written here in plain Python.
def tfidf_ref(X, mode, min_n, max_n, max_skip, counts, indexes, pool, weights):
    rows = X.reshape(-1, X.shape[-1]).tolist()
    grams = []  # (tuple, ngram number) in pool order
    for k, b in enumerate(counts):
        e = counts[k + 1] if k + 1 < len(counts) else len(pool)
        for j in range(b, e, k + 1):
            grams.append(tuple(pool[j:j + k + 1]))
    nout = max(indexes) + 1
    out = np.zeros((len(rows), nout), np.float32)
    for r, row in enumerate(rows):
        for g, gram in enumerate(grams):
            n = len(gram)
            if n < min_n or n > max_n:
                continue
            cnt = 0
            for d in ([1] if n == 1 else range(1, max_skip + 2)):
                for i in range(len(row) - (n - 1) * d):
                    if tuple(row[i + t * d] for t in range(n)) == gram:
                        cnt += 1
            w = weights[g] if weights is not None else 1.0
            v = {"TF": cnt, "IDF": (1.0 if cnt > 0 else 0.0) * w, "TFIDF": cnt * w}[mode]
            out[r, indexes[g]] = v
    return out.reshape(X.shape[:-1] + (nout,))


def tfidf_case(case, X, mode, min_n, max_n, max_skip, counts, indexes, pool, weights=None):
    strings = X.dtype.kind == "U"
    kw = dict(mode=mode, min_gram_length=min_n, max_gram_length=max_n, max_skip_count=max_skip,
              ngram_counts=counts, ngram_indexes=indexes)
    kw["pool_strings" if strings else "pool_int64s"] = pool
    if weights is not None:
        kw["weights"] = weights
    Y = tfidf_ref(X, mode, min_n, max_n, max_skip, counts, indexes, pool, weights)
    xt = (TensorProto.STRING if strings else
          TensorProto.INT32 if X.dtype == np.int32 else TensorProto.INT64)
    m = model([helper.make_node("TfIdfVectorizer", ["X"], ["Y"], **kw)],
              [vi("X", xt, list(X.shape))], [vi("Y", TensorProto.FLOAT, list(Y.shape))], opset=9)
    save(case, m, [([X], [Y])], ["TfIdfVectorizer"])


tX = np.array([[1, 2, 3, 1, 2, 3, 4, 2], [3, 3, 1, 4, 2, 1, 2, 3]], np.int32)
# pool: unigrams 2 3 4, bigrams (1,2) (3,1) (2,3), trigrams (1,2,3) (3,4,2)
tpool = [2, 3, 4, 1, 2, 3, 1, 2, 3, 1, 2, 3, 3, 4, 2]
tcounts = [0, 3, 9]
tidx = [7, 0, 3, 1, 5, 2, 8, 4]
tw = [0.5, 1.5, 2.0, 0.25, 3.0, 1.0, 4.0, 0.125]
tfidf_case("tfidf_idf_weights_batch", tX, "IDF", 1, 3, 1, tcounts, tidx, tpool, tw)
tfidf_case("tfidf_tfidf_weights_batch", tX, "TFIDF", 1, 3, 2, tcounts, tidx, tpool, tw)
tfidf_case("tfidf_idf_no_weights", tX[1].astype(np.int64), "IDF", 1, 2, 0, tcounts, tidx, tpool)
tfidf_case("tfidf_tf_min2_trigrams_skip3", tX.astype(np.int64), "TF", 2, 3, 3, tcounts, tidx, tpool)
# On strings (debug executor only: the str_ prefix keeps it off graph and
# vm in run_onnx_cases.sh): the same counts with words for the numbers,
# "" and a word outside the pool among them.
words = {1: "one", 2: "two", 3: "three", 4: "four"}
sX = np.array([[words[v] for v in row] for row in tX.tolist()])
sX[1, 0] = "five"
sX[0, 7] = ""
tfidf_case("str_tfidf_tfidf_weights_batch", sX, "TFIDF", 1, 3, 2, tcounts, tidx,
           [words[v] for v in tpool], tw)

# TfIdfVectorizer on a pool that does not split into whole n-grams.
m = model([helper.make_node("TfIdfVectorizer", ["X"], ["Y"], mode="TF", min_gram_length=1,
                            max_gram_length=2, max_skip_count=0, ngram_counts=[0, 2],
                            ngram_indexes=[0, 1, 2], pool_int64s=[1, 2, 3, 4, 5])],
          [vi("X", TensorProto.INT64, [4])], [vi("Y", TensorProto.FLOAT, [3])], opset=9)
bad("tfidf_ragged_pool", m, "does not split the pool (5 items) into whole 2-grams")

with open(os.path.join(OUT, "index.tsv"), "w") as f:
    f.write("case\tops\topset\tinputs\toutputs\n")
    for r in rows:
        f.write(r + "\n")
print("%d cases in %s" % (len(rows), OUT))
