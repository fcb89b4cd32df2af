#!/usr/bin/env bash
# `relayrt run MODEL.so`: models exported with `relayrt build --emit=so`
# (graph and vm) run through the artifact runtime (include/rt/artifact.h):
# the values of `relayrt run MODEL --executor graph` on the same input, the
# usual inputs, outputs and reports, compile-time options refused, and
# files that are not exported models refused cleanly (exit 1, no crash).
# Values are compared with numpy within a tolerance, never as text.
set -u
relayrt=$1
root=$2
. "$(dirname "$0")/harness.sh"

"$relayrt" build "$root/examples/cnn.relay" --emit=so -o "$tmp/cnn.so" 2> "$tmp/err" || bad "export graph: $(cat "$tmp/err")"
"$relayrt" build "$root/examples/cnn.relay" --executor vm --emit=so -o "$tmp/cnn_vm.so" 2> "$tmp/err" ||
  bad "export vm: $(cat "$tmp/err")"
$py -c "import numpy as np; np.save('$tmp/x.npy', np.random.default_rng(11).standard_normal((1, 3, 16, 16)).astype(np.float32))"

# The same --input gives the values of `run MODEL --executor graph`.
"$relayrt" run "$root/examples/cnn.relay" --executor graph --input data="$tmp/x.npy" --out "$tmp/g" > /dev/null 2> "$tmp/err" ||
  bad "run cnn.relay --executor graph: $(cat "$tmp/err")"
for so in cnn cnn_vm; do
  kind=graph
  [ $so = cnn_vm ] && kind=vm
  if "$relayrt" run "$tmp/$so.so" --input data="$tmp/x.npy" --out "$tmp/o_$so" > "$tmp/out" 2> "$tmp/err" &&
     grep -q "^model: $tmp/$so.so$" "$tmp/out" &&
     grep -q "^executor: $kind (exported model, run by the artifact runtime)$" "$tmp/out" &&
     grep -qE '^load: [0-9.]+ ms$' "$tmp/out" &&
     grep -q '^output_0: Tensor\[(1, 10), float32\]' "$tmp/out" &&
     $py -c "
import numpy as np, sys
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
assert a.shape == b.shape == (1, 10) and a.dtype == b.dtype == np.float32
assert np.allclose(a, b, rtol=1e-5, atol=1e-6), (a, b)
" "$tmp/o_$so/output_0.npy" "$tmp/g/output_0.npy"; then ok
  else bad "run $so.so --input: $(cat "$tmp/out" "$tmp/err")"; fi
  # Missing inputs: the seeded random data `run MODEL` uses.
  if "$relayrt" run "$tmp/$so.so" --out "$tmp/r_$so" > /dev/null 2> "$tmp/err" &&
     "$relayrt" run "$root/examples/cnn.relay" --executor $kind --out "$tmp/rm_$so" > /dev/null 2>> "$tmp/err" &&
     $py -c "
import numpy as np, sys
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
assert a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6), (a, b)
" "$tmp/r_$so/output_0.npy" "$tmp/rm_$so/output_0.npy"; then ok
  else bad "run $so.so with seeded random input: $(cat "$tmp/err")"; fi
  # --report json, --repeat/--warmup, --threads.
  if "$relayrt" run "$tmp/$so.so" --repeat 4 --warmup 1 --threads 2 --report json > "$tmp/j" 2> "$tmp/err" &&
     $py - "$tmp/j" $kind <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert set(r) == {"model", "executor", "load_ms", "latency_ms", "outputs"}, r
assert r["executor"] == sys.argv[2] and r["load_ms"] >= 0, r
assert set(r["latency_ms"]) == {"min", "median", "mean", "max"}, r
assert r["outputs"] == [{"name": "output_0", "shape": [1, 10], "dtype": "float32"}], r
PY
  then ok; else bad "run $so.so --report json: $(cat "$tmp/j" "$tmp/err")"; fi
  for n in 1 2; do
    "$relayrt" run "$tmp/$so.so" --threads $n --out "$tmp/t${n}_$so" > /dev/null 2>&1
  done
  cmp -s "$tmp/t1_$so/output_0.npy" "$tmp/t2_$so/output_0.npy" && ok || bad "--threads changes $so.so's output"
done
expect_rc 2 "--executor vm: $tmp/cnn.so was exported from the graph executor and runs only on it" \
  "$relayrt" run "$tmp/cnn.so" --executor vm
expect_rc 2 "--executor graph: $tmp/cnn_vm.so was exported from the vm executor" \
  "$relayrt" run "$tmp/cnn_vm.so" --executor graph
"$relayrt" run "$tmp/cnn_vm.so" --executor vm > /dev/null 2>&1 && ok || bad "run cnn_vm.so --executor vm"
expect_rc 2 "--executor all compares the executors on a model file" "$relayrt" run "$tmp/cnn.so" --executor all
expect_rc 2 "--opt-level: $tmp/cnn.so is an exported model" "$relayrt" run "$tmp/cnn.so" --opt-level 3
expect_rc 2 "--params: $tmp/cnn.so is an exported model" "$relayrt" run "$tmp/cnn.so" --params "$tmp/x.npy"
expect_rc 2 "--profile times the kernels of --executor graph on a model file" "$relayrt" run "$tmp/cnn.so" --profile
expect_rc 2 "--trace-values steps the debug executor" "$relayrt" run "$tmp/cnn.so" --trace-values
expect_rc 2 "input 'data' of the exported model $tmp/cnn.so is static (Tensor[(1, 3, 16, 16), float32])" \
  "$relayrt" run "$tmp/cnn.so" --shape data=1x3x16x16
expect_rc 1 "no input named 'nope' (inputs: data)" "$relayrt" run "$tmp/cnn.so" --input nope="$tmp/x.npy"
$py -c "import numpy as np; np.save('$tmp/xs.npy', np.zeros((1, 3, 8, 8), np.float32))"
expect_rc 1 "input 'data' expects Tensor[(1, 3, 16, 16), float32], got Tensor[(1, 3, 8, 8), float32]" \
  "$relayrt" run "$tmp/cnn.so" --input data="$tmp/xs.npy"

# A vm export with a `?` dim: --shape sizes its random data.
printf '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(?, 3), float32]) {\n  nn.relu(%%x)\n}\n' > "$tmp/dyn.relay"
"$relayrt" build "$tmp/dyn.relay" --executor vm --emit=so -o "$tmp/dyn.so" 2> "$tmp/err" || bad "export dyn: $(cat "$tmp/err")"
if "$relayrt" run "$tmp/dyn.so" --shape x=5x3 > "$tmp/out" 2> "$tmp/err" &&
   grep -q '^executor: vm ' "$tmp/out" && grep -q '^output_0: Tensor\[(5, 3), float32\]' "$tmp/out"; then ok
else bad "run dyn.so --shape x=5x3: $(cat "$tmp/out" "$tmp/err")"; fi
expect_rc 1 "input 'x' has type Tensor[(?, 3), float32] with dynamic dims: give its shape with --shape x=DIMS" \
  "$relayrt" run "$tmp/dyn.so"

# Not an exported model: a clean error, exit 1, never a crash.
expect_rc 1 "$tmp/nope.so: no such model library" "$relayrt" run "$tmp/nope.so"
printf 'not a library\n' > "$tmp/text.so"
expect_rc 1 "$tmp/text.so: cannot load the model library: not a 64-bit ELF shared object" "$relayrt" run "$tmp/text.so"
head -c 4096 "$tmp/cnn.so" > "$tmp/trunc.so"
expect_rc 1 "$tmp/trunc.so: cannot load the model library: truncated" "$relayrt" run "$tmp/trunc.so"
if printf 'int other(void) { return 1; }\n' | ${CC:-cc} -shared -fPIC -x c - -o "$tmp/other.so" 2> "$tmp/err"; then
  expect_rc 1 "$tmp/other.so: not a relayrt model library (no symbol relayrt_artifact)" "$relayrt" run "$tmp/other.so"
else bad "cannot build a plain shared library: $(cat "$tmp/err")"; fi

harness_end
