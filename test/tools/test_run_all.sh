#!/usr/bin/env bash
# `relayrt run --executor all`: every executor against the reference
# interpreter, what scripts/run-example shows. No float digits are
# compared as text: the same test runs on AVX2 and AVX-512 hosts (8- and
# 16-lane kernels); values are compared with numpy within a tolerance.
set -u
relayrt=$1
root=$2
. "$(dirname "$0")/harness.sh"

# ---- 1. --executor all on the built-in example -------------------------------------

if "$relayrt" run --executor all > "$tmp/all" 2> "$tmp/err"; then ok
else bad "run --executor all exits non-zero: $(cat "$tmp/all" "$tmp/err")"; fi
# One line per executor, in order, then the verdict.
if grep -qE '^model: <built-in example>; 1 input \(seeded random data\), 1 output; latency: median of 10 runs after 1 warm-up$' "$tmp/all" &&
   grep -qE '^  debug +compile +[0-9.]+ (ms|us) +latency +[0-9.]+ (ms|us) +the reference interpreter$' "$tmp/all" &&
   grep -qE '^  graph +compile +[0-9.]+ (ms|us) +latency +[0-9.]+ (ms|us) +agrees: max abs diff [0-9.e+-]+, max rel diff [0-9.e+-]+$' "$tmp/all" &&
   grep -qE '^  vm +compile +[0-9.]+ (ms|us) +latency +[0-9.]+ (ms|us) +agrees: max abs diff [0-9.e+-]+, max rel diff [0-9.e+-]+$' "$tmp/all" &&
   grep -qE '^graph and vm agree with debug within rtol 0.0001, atol 1e-05' "$tmp/all" &&
   [ "$(wc -l < "$tmp/all")" -eq 5 ] && [ ! -s "$tmp/err" ]; then ok
else bad "run --executor all text: $(cat "$tmp/all" "$tmp/err")"; fi

# The JSON report: every executor, its figures, each output's difference.
if "$relayrt" run --executor all --repeat 3 --warmup 0 --report json > "$tmp/all.json" 2> "$tmp/err" &&
   $py - "$tmp/all.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["agree"] is True and r["reference"] == "debug", r
assert r["runs"] == 3 and r["warmup"] == 0 and r["rtol"] == 1e-4 and r["atol"] == 1e-5, r
ex = r["executors"]
assert [e["executor"] for e in ex] == ["debug", "graph", "vm"], ex
for e in ex:
    assert e["compile_ms"] >= 0 and set(e["latency_ms"]) == {"min", "median", "mean", "max"}, e
    assert e["latency_ms"]["min"] <= e["latency_ms"]["median"] <= e["latency_ms"]["max"], e
    o = e["outputs"][0]
    assert o["name"] == "output_0" and o["shape"] == [1, 10] and o["dtype"] == "float32", e
for e in ex[1:]:
    o = e["outputs"][0]
    assert e["agrees"] is True and o["same_type"] is True and o["beyond_tolerance"] == 0, e
    assert 0 <= o["max_abs_diff"] <= 1e-5 and 0 <= o["max_rel_diff"] <= 1e-3, e
PY
then ok; else bad "run --executor all --report json: $(cat "$tmp/all.json" "$tmp/err")"; fi

# --out DIR: one folder per executor, the same values within the tolerance.
if "$relayrt" run --executor all --repeat 1 --out "$tmp/allout" > /dev/null 2> "$tmp/err" &&
   $py - "$tmp/allout" <<'PY'
import numpy as np, sys
d = sys.argv[1]
ref = np.load(d + "/debug/output_0.npy")
for k in ("graph", "vm"):
    got = np.load(d + "/%s/output_0.npy" % k)
    assert got.shape == ref.shape == (1, 10) and np.allclose(got, ref, rtol=1e-4, atol=1e-5), k
PY
then ok; else bad "run --executor all --out: $(cat "$tmp/err")"; fi

# A model the graph executor refuses (recursion: the `if` on the scalar
# input would fold per value, the recursive call cannot): its line says
# so, the others still run and agree, exit 0.
cat > "$tmp/fact.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%n: Tensor[(), int32]) -> Tensor[(), int32] {
  if (less(%n, 1)) {
    1
  } else {
    multiply(%n, @main(subtract(%n, 1)))
  }
}
RELAY
$py -c "import numpy as np; np.save('$tmp/n.npy', np.array(5, np.int32))"
if "$relayrt" run "$tmp/fact.relay" --executor all --input n="$tmp/n.npy" > "$tmp/out" 2> "$tmp/err" &&
   grep -q '^  graph *cannot run this model: the graph executor does not run calls of global functions' "$tmp/out" &&
   grep -qE '^  vm .*agrees: max abs diff 0, max rel diff 0$' "$tmp/out" &&
   grep -q '^model: .*fact.relay; 1 input (from --input), 1 output' "$tmp/out" &&
   grep -q '^vm agrees with debug within rtol 0.0001, atol 1e-05; graph cannot run this model' "$tmp/out"; then ok
else bad "run --executor all with control flow: $(cat "$tmp/out" "$tmp/err")"; fi

# Beyond the tolerance: exit 1 and DIFFERS. With rtol = atol = 0 any
# difference at all counts; the JIT's exp/tanh/sigmoid and sums differ from
# the interpreter's in the last bits on the hosts seen so far, but should a
# host give identical bits, the verdict must then be "agrees" with 0 diffs.
printf '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(64, 64), float32]) {\n  %%0 = exp(%%x);\n  %%1 = tanh(%%0);\n  (sigmoid(%%1), sum(%%0, axis=[1]))\n}\n' > "$tmp/tr.relay"
"$relayrt" run "$tmp/tr.relay" --executor all --rtol 0 --atol 0 --repeat 1 > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -qE '^  graph .*DIFFERS: max abs diff [0-9.e+-]+, max rel diff [0-9.e+-]+, [0-9]+ of 4160 values beyond; output_[01]\[[0-9]+\] = ' "$tmp/out" &&
   grep -q "DIFFER.* from debug beyond rtol 0, atol 0" "$tmp/out" &&
   grep -q "^relayrt: error: the graph executor's outputs differ from the reference (debug) beyond rtol 0, atol 0$" "$tmp/err"; then ok
elif [ $rc -eq 0 ] && [ "$(grep -c 'agrees: max abs diff 0, max rel diff 0$' "$tmp/out")" -eq 2 ]; then ok
else bad "run --executor all --rtol 0 --atol 0: rc=$rc: $(cat "$tmp/out" "$tmp/err")"; fi
# ... and the same model agrees at the default tolerance.
if "$relayrt" run "$tmp/tr.relay" --executor all --repeat 1 > "$tmp/out" 2> "$tmp/err" &&
   grep -q '^graph and vm agree with debug within' "$tmp/out"; then ok
else bad "tr.relay at the default tolerance: $(cat "$tmp/out" "$tmp/err")"; fi

# NaN: a NaN where the reference has one agrees, one where it has none
# does not. A max pool propagates the NaNs of its windows (the template's
# path for planes that hold one), the other planes take the fast maximum.
printf '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(1, 4, 9, 9), float32]) {\n  nn.max_pool2d(%%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])\n}\n' > "$tmp/mp.relay"
$py -c "
import numpy as np
x = np.random.default_rng(3).standard_normal((1, 4, 9, 9)).astype(np.float32)
x[0, 1, 4, 5] = np.nan
np.save('$tmp/mpx.npy', x)"
if "$relayrt" run "$tmp/mp.relay" --input x="$tmp/mpx.npy" --executor all --repeat 1 --out "$tmp/mpout" > "$tmp/out" 2> "$tmp/err" &&
   grep -q '^graph and vm agree with debug within' "$tmp/out" &&
   $py - "$tmp/mpout" "$tmp/mpx.npy" <<'PY'
import numpy as np, sys
x = np.load(sys.argv[2])
for k in ("debug", "graph", "vm"):
    y = np.load(sys.argv[1] + "/%s/output_0.npy" % k)
    # input (4, 5) lies in the windows of outputs rows 2 (rows 3-5) and
    # columns 2-3 (columns 3-5, 5-7) of channel 1, padding 1, stride 2
    nan = np.zeros(y.shape, bool)
    nan[0, 1, 2, 2:4] = True
    assert (np.isnan(y) == nan).all(), (k, np.argwhere(np.isnan(y)))
    want = np.full(y.shape, -np.inf, np.float32)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    for i in range(5):
        for j in range(5):
            want[0, :, i, j] = xp[0, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3].max(axis=(1, 2))
    assert np.array_equal(y[~nan], want[~nan]), k
PY
then ok; else bad "run --executor all with a NaN: $(cat "$tmp/out" "$tmp/err")"; fi

# Usage errors (exit 2).
expect_rc 2 "--profile times the kernels of --executor graph, not 'all'" "$relayrt" run --executor all --profile
expect_rc 2 "--trace-values steps --executor debug, not 'all'" "$relayrt" run --executor all --trace-values
expect_rc 2 "--rtol and --atol compare the executors of --executor all, not 'graph'" \
  "$relayrt" run --executor graph --rtol 1e-3
expect_rc 2 "--atol expects a number >= 0" "$relayrt" run --executor all --atol -1

harness_end
