#!/usr/bin/env bash
# `relayrt run` end to end: the built-in example, .npy in and out checked
# against numpy (Debian's /usr/bin/python3), JSON reports, and every
# bad-input path exiting non-zero with a clear message.
set -u
relayrt=$1
root=$2
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL: $*"; }

# 1. No arguments: the built-in CNN runs and prints its output summary.
if "$relayrt" run > "$tmp/out" 2> "$tmp/err" &&
   grep -q '^output_0: Tensor\[(1, 10), float32\]' "$tmp/out" &&
   grep -q '^executor: debug$' "$tmp/out"; then ok
else bad "relayrt run (built-in): $(cat "$tmp/out" "$tmp/err")"; fi
# Softmax output: the 10 probabilities sum to 1.
"$relayrt" run --out "$tmp/cnn" > /dev/null 2>&1
if $py -c "import numpy as np,sys; a=np.load(sys.argv[1]); sys.exit(0 if a.shape==(1,10) and abs(a.sum()-1)<1e-5 and (a>0).all() else 1)" "$tmp/cnn/output_0.npy"; then ok
else bad "built-in example's softmax output does not sum to 1"; fi
# Same seed, same data: two runs write identical outputs.
"$relayrt" run --out "$tmp/cnn2" > /dev/null 2>&1
cmp -s "$tmp/cnn/output_0.npy" "$tmp/cnn2/output_0.npy" && ok || bad "random inputs are not deterministic"

# 2. A program with inputs from .npy, outputs compared with numpy.
cat > "$tmp/prog.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%x: Tensor[(4, 8), float32], %w: Tensor[(5, 8), float32], %b: Tensor[(5), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  %3 = exp(%x);
  %4 = sum(%3, axis=[1], keepdims=True);
  %5 = transpose(%2, axes=[1, 0]);
  (%5, %4)
}
RELAY
$py - "$tmp" <<'PY'
import numpy as np, sys
d = sys.argv[1]
rng = np.random.default_rng(7)
np.save(d + "/x.npy", rng.standard_normal((4, 8)).astype(np.float32))
np.save(d + "/w.npy", rng.standard_normal((5, 8)).astype(np.float32))
np.save(d + "/b.npy", rng.standard_normal((5,)).astype(np.float32))
PY
if "$relayrt" run "$tmp/prog.relay" --executor debug --input x="$tmp/x.npy" --input w="$tmp/w.npy" \
     --input b="$tmp/b.npy" --out "$tmp/d" > "$tmp/out" 2> "$tmp/err"; then ok
else bad "run with --input/--out failed: $(cat "$tmp/err")"; fi
if $py - "$tmp" <<'PY'
import numpy as np, sys
d = sys.argv[1]
x, w, b = (np.load(d + "/%s.npy" % n) for n in "xwb")
want0 = np.maximum(x.astype(np.float64) @ w.T.astype(np.float64) + b, 0).T
want1 = np.exp(x.astype(np.float64)).sum(axis=1, keepdims=True)
got0, got1 = np.load(d + "/d/output_0.npy"), np.load(d + "/d/output_1.npy")
ok = got0.shape == (5, 4) and got1.shape == (4, 1) and got0.dtype == np.float32
ok = ok and np.allclose(got0, want0, rtol=1e-5, atol=1e-6) and np.allclose(got1, want1, rtol=1e-5)
sys.exit(0 if ok else 1)
PY
then ok; else bad "outputs do not match numpy"; fi

# 3. --report json is one JSON object with the documented keys.
if "$relayrt" run "$tmp/prog.relay" --repeat 3 --warmup 1 --report json > "$tmp/json" 2> "$tmp/err" &&
   $py -c "
import json,sys
r=json.load(open(sys.argv[1]))
assert set(r)=={'model','executor','compile_ms','latency_ms','outputs','compile'}, r
assert set(r['latency_ms'])=={'min','median','mean','max'}
assert r['outputs'][0]=={'name':'output_0','shape':[5,4],'dtype':'float32'}, r['outputs']
" "$tmp/json"; then ok
else bad "--report json: $(cat "$tmp/json" "$tmp/err")"; fi

# 4. --trace-values prints each step (a fused group is one step) with its
# value summary.
if "$relayrt" run "$tmp/prog.relay" --trace-values > /dev/null 2> "$tmp/trace" &&
   grep -q 'trace .*prog.relay:5: %2 = fused_nn_dense_nn_bias_add_nn_relu(%x, %w, %b): Tensor\[(4, 5), float32\]' "$tmp/trace"; then ok
else bad "--trace-values: $(head -5 "$tmp/trace")"; fi

# 5. Dynamic dims need --shape for random data.
printf '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(?, 3), float32]) {\n  nn.relu(%%x)\n}\n' > "$tmp/dyn.relay"
if "$relayrt" run "$tmp/dyn.relay" --shape x=5x3 > "$tmp/out" 2>&1 &&
   grep -q '^output_0: Tensor\[(5, 3), float32\]' "$tmp/out"; then ok
else bad "--shape for a dynamic input: $(cat "$tmp/out")"; fi
"$relayrt" run "$tmp/dyn.relay" > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] && grep -q "dynamic dims: give its shape with --shape x=DIMS" "$tmp/err" && ok ||
  bad "dynamic input without --shape: $(cat "$tmp/err")"

# 6. Bad input: each exits non-zero with a clear message.
expect_fail() {  # expected-substring, then the command
  local want=$1
  shift
  "$@" > /dev/null 2> "$tmp/err"
  local rc=$?
  if [ $rc -ne 0 ] && grep -qF -- "$want" "$tmp/err"; then ok
  else bad "expected failure containing '$want' from: $* (rc=$rc: $(cat "$tmp/err"))"; fi
}
expect_fail "nope.relay" "$relayrt" run "$tmp/nope.relay"
expect_fail "nope.npy" "$relayrt" run "$tmp/prog.relay" --input x="$tmp/nope.npy"
$py -c "import numpy as np; np.save('$tmp/xi.npy', np.zeros((4, 8), np.int32)); np.save('$tmp/xs.npy', np.zeros((8, 4), np.float32))"
expect_fail "input 'x' expects Tensor[(4, 8), float32], got Tensor[(4, 8), int32]" \
  "$relayrt" run "$tmp/prog.relay" --input x="$tmp/xi.npy"
expect_fail "input 'x' expects Tensor[(4, 8), float32], got Tensor[(8, 4), float32]" \
  "$relayrt" run "$tmp/prog.relay" --input x="$tmp/xs.npy"
expect_fail "no input named 'y' (inputs: x, w, b)" "$relayrt" run "$tmp/prog.relay" --input y="$tmp/xs.npy"
expect_fail "unknown executor 'fast'" "$relayrt" run "$tmp/prog.relay" --executor fast
# The graph executor takes `?` dims (it specializes itself to the inputs
# given), but random data still needs a shape.
expect_fail "dynamic dims: give its shape with --shape x=DIMS or its data with --input x=FILE.npy" \
  "$relayrt" run "$tmp/dyn.relay" --executor graph
# With --input and no --shape, the graph executor binds the `?` to the
# data's shape and gives the interpreter's output.
$py -c "import numpy as np; np.save('$tmp/dx.npy', (np.arange(12, dtype=np.float32).reshape(4, 3) - 6) / 2)"
if "$relayrt" run "$tmp/dyn.relay" --executor graph --input x="$tmp/dx.npy" --out "$tmp/dgi" > "$tmp/out" 2>&1 &&
   "$relayrt" run "$tmp/dyn.relay" --executor debug --input x="$tmp/dx.npy" --out "$tmp/ddi" > /dev/null 2>&1 &&
   grep -q '^output_0: Tensor\[(4, 3), float32\]' "$tmp/out" &&
   cmp -s "$tmp/dgi/output_0.npy" "$tmp/ddi/output_0.npy"; then ok
else bad "graph with --input of a \`?\` dim: $(cat "$tmp/out")"; fi
# --shape binds the `?` dim at load: the graph executor then runs the model
# and gives the interpreter's output on the same seeded input.
if "$relayrt" run "$tmp/dyn.relay" --executor graph --shape x=2x3 --out "$tmp/dg" > "$tmp/out" 2>&1 &&
   "$relayrt" run "$tmp/dyn.relay" --executor debug --shape x=2x3 --out "$tmp/dd" > /dev/null 2>&1 &&
   grep -q '^output_0: Tensor\[(2, 3), float32\]' "$tmp/out" &&
   cmp -s "$tmp/dg/output_0.npy" "$tmp/dd/output_0.npy"; then ok
else bad "graph with --shape x=2x3: $(cat "$tmp/out")"; fi
expect_fail "input 'x' is declared (?, 3); the shape given has 4 for its static dim 1" \
  "$relayrt" run "$tmp/dyn.relay" --executor graph --shape x=2x4
expect_fail "@main has no input named 'y' (inputs: x)" "$relayrt" run "$tmp/dyn.relay" --shape y=2x3
expect_fail "the shape given has rank 1" "$relayrt" run "$tmp/dyn.relay" --shape x=2
# The graph executor gives the interpreter's outputs on the program.
if "$relayrt" run "$tmp/prog.relay" --executor graph --input x="$tmp/x.npy" --input w="$tmp/w.npy" \
     --input b="$tmp/b.npy" --out "$tmp/g" > /dev/null 2> "$tmp/err" &&
   $py -c "
import numpy as np, sys
d = sys.argv[1]
for i in range(2):
    a, b = np.load(d + '/d/output_%d.npy' % i), np.load(d + '/g/output_%d.npy' % i)
    assert a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6), i
" "$tmp"; then ok; else bad "graph vs debug on prog.relay: $(cat "$tmp/err")"; fi
expect_fail "--repeat expects" "$relayrt" run --repeat 0
printf 'garbage' > "$tmp/bad.npy"
expect_fail "bad.npy" "$relayrt" run "$tmp/prog.relay" --input x="$tmp/bad.npy"
expect_fail "nope.params" "$relayrt" run "$tmp/prog.relay" --params "$tmp/nope.params"

# 6b. --threads N sizes each executor's kernel pool: one thread, two threads
# and the default give the same output bytes under graph and vm; an
# out-of-range count is a usage error.
for exe in graph vm; do
  for n in 1 2; do
    "$relayrt" run --executor $exe --threads $n --out "$tmp/thr_${exe}_$n" > /dev/null 2>&1
  done
  "$relayrt" run --executor $exe --out "$tmp/thr_${exe}_0" > /dev/null 2>&1
  if cmp -s "$tmp/thr_${exe}_1/output_0.npy" "$tmp/thr_${exe}_2/output_0.npy" &&
     cmp -s "$tmp/thr_${exe}_1/output_0.npy" "$tmp/thr_${exe}_0/output_0.npy"; then ok
  else bad "--threads changes the $exe executor's output"; fi
done
expect_fail "--threads expects 0..1024" "$relayrt" run --threads 5000

# 6. The graph executor's memory plan in the report. The example's
# intermediates, by hand: conv (1, 8, 16, 16) 8192 B, max_pool (1, 8, 8, 8)
# 2048 B, conv (1, 16, 8, 8) 4096 B, global_avg_pool and batch_flatten 64 B
# each, dense (1, 10) 40 B: 6 values, 14504 B without reuse; the output
# (1, 10) is 40 B; reuse must plan less than 14504.
if "$relayrt" run --executor graph --report json > "$tmp/mem.json" 2> "$tmp/err" &&
   $py - "$tmp/mem.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["memory"]
assert m["intermediates"] == 6 and m["unshared_bytes"] == 14504 and m["output_bytes"] == 40, m
assert 0 < m["planned_bytes"] < 14504 and 1 <= m["planned_blocks"] <= 6, m
PY
then ok
else bad "graph memory report: $(cat "$tmp/mem.json" "$tmp/err")"; fi
"$relayrt" run --executor graph > "$tmp/out" 2>&1
grep -qE '^memory: [0-9]+ bytes planned in [0-9]+ blocks for 6 intermediates \(14504 without reuse\), outputs 40 bytes$' "$tmp/out" && ok ||
  bad "graph memory line: $(cat "$tmp/out")"
"$relayrt" run --executor vm --report json > "$tmp/vm.json" 2>&1
$py -c "import json,sys; sys.exit('memory' in json.load(open(sys.argv[1])))" "$tmp/vm.json" && ok ||
  bad "vm report has a memory plan: $(cat "$tmp/vm.json")"

# 6a. bfloat16 through .npy: uint16 arrays of the bits, in and out. By
# hand: 1.0 = 0x3f80 = 16256, -2.0 = 0xc000 = 49152, 0.5 = 0x3f00 = 16128;
# doubled: 2.0 = 0x4000 = 16384, -4.0 = 0xc080 = 49280, 1.0 = 16256.
printf '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(3), bfloat16]) {\n  add(%%x, %%x)\n}\n' > "$tmp/bf.relay"
$py -c "import numpy as np; np.save('$tmp/bf.npy', np.array([16256, 49152, 16128], np.uint16))"
if "$relayrt" run "$tmp/bf.relay" --input x="$tmp/bf.npy" --out "$tmp/bfo" > /dev/null 2> "$tmp/err" &&
   $py -c "import numpy as np,sys; a=np.load(sys.argv[1]); sys.exit(0 if a.dtype==np.uint16 and a.tolist()==[16384, 49280, 16256] else 1)" "$tmp/bfo/output_0.npy"; then ok
else bad "bfloat16 .npy in and out: $(cat "$tmp/err")"; fi

# 6a2. FLOPs of the blocked convolutions (ir/op/flops.c), by hand from the
# logical convolution: 16 -> 32 channels 3x3 on 6x6 (2*32*36*16*9 =
# 331776), depthwise 16 channels 3x3 on 6x6 (2*16*36*1*9 = 10368).
cat > "$tmp/nchwc.relay" <<'RELAY'
#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 6, 6, 8), float32], %w: Tensor[(4, 2, 3, 3, 8, 8), float32], %d: Tensor[(2, 1, 3, 3, 1, 8), float32]) {
  %0 = nn.contrib_conv2d_NCHWc(%x, %w, padding=[1, 1], channels=32, kernel_size=[3, 3], data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c");
  %1 = nn.contrib_depthwise_conv2d_NCHWc(%x, %d, padding=[1, 1], groups=16, channels=16, kernel_size=[3, 3], data_layout="NCHW8c", kernel_layout="OIHW1i8o", out_layout="NCHW8c");
  (%0, %1)
}
RELAY
if RELAYRT_CACHE_DIR=off "$relayrt" run "$tmp/nchwc.relay" --executor graph --profile --repeat 1 --report json \
     > "$tmp/nchwc.json" 2> "$tmp/err" &&
   $py -c "import json,sys; ks=json.load(open(sys.argv[1]))['profile']['kernels']; sys.exit(0 if sorted(k['flops'] for k in ks if k['flops'] > 0) == [10368, 331776] else 1)" "$tmp/nchwc.json"; then ok
else bad "blocked conv FLOPs: $(cat "$tmp/err" "$tmp/nchwc.json")"; fi

# 6b. --profile: one row per node of the graph executor's plan, slowest
# first, named as `build --emit=kernels` names the kernels; the JSON report
# carries the same; other executors are refused.
if RELAYRT_CACHE_DIR=off "$relayrt" run --executor graph --profile --repeat 5 --report json \
     > "$tmp/prof.json" 2> "$tmp/err" &&
   RELAYRT_CACHE_DIR=off "$relayrt" build - --emit=kernels > "$tmp/kernels" 2>> "$tmp/err" &&
   $py - "$tmp/prof.json" "$tmp/kernels" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
names = sorted(l.split(":")[0] for l in open(sys.argv[2]) if l.startswith("fused_"))
ks = p["kernels"]
means = [k["mean_ms"] for k in ks]
assert p["runs"] == 5, p
assert sorted(k["kernel"] for k in ks) == names, (ks, names)
assert means == sorted(means, reverse=True), means
assert all(0 <= k["min_ms"] <= k["mean_ms"] for k in ks), ks
assert all(k["warm_ms"] > 0 for k in ks), ks  # the second call of each run, timed
assert abs(sum(means) - p["total_ms"]) <= 1e-6 * len(ks), p  # each printed to 1e-6 ms
assert all(k["type"].startswith("fn (Tensor[") for k in ks), ks
# FLOPs by hand: conv 3->8 3x3 on 16x16 (2*8*256*3*9), conv 8->16 3x3 on
# 8x8 (2*16*64*8*9), dense 16->10 (2*10*16); the other kernels have none.
assert sorted(k["flops"] for k in ks if k["flops"] > 0) == [320, 110592, 147456], ks
# Tasks: at least one; the balance of a split kernel in (0, 1], else 1.
assert all(k["tasks"] >= 1 and (0 < k["balance"] <= 1 if k["tasks"] > 1 else k["balance"] == 1)
           for k in ks), ks
# The fraction of peak is each kernel's GFLOP/s over the peak printed
# beside it (0 where a kernel has no FLOPs, or the CPU no FMA loop).
assert p["vector_width"] in (8, 16) and p["threads"] >= 1, p
# Bounds from the printed (rounded) mean and peak: mean_ms to 1e-6 ms,
# the peak to 1e-3, the fraction to 1e-4.
for k in ks:
    g = p["fma_peak_gflops"]
    if g <= 0 or k["flops"] <= 0 or k["mean_ms"] <= 0:
        assert k["peak_fraction"] == 0, k
        continue
    hi = k["flops"] / (max(k["mean_ms"] - 5e-7, 1e-9) * 1e6) / (g - 5e-4)
    lo = k["flops"] / ((k["mean_ms"] + 5e-7) * 1e6) / (g + 5e-4)
    assert lo - 5e-5 <= k["peak_fraction"] <= hi + 5e-5, (k, g, lo, hi)
PY
then ok
else bad "run --profile (json): $(cat "$tmp/prof.json" "$tmp/err")"; fi
if RELAYRT_CACHE_DIR=off "$relayrt" run --executor graph --profile > "$tmp/out" 2> "$tmp/err" &&
   grep -q '^graph executor, 7 kernel calls per run, mean of 1 run, slowest first (warm: ' "$tmp/out" &&
   [ "$(grep -cE '^ *[0-9.]* us *[0-9.]* us *[0-9.]* us *[0-9.]*% +([0-9.]+|-) +([0-9.]+|-) +[0-9]+ +([0-9.]+|-)  fused_' "$tmp/out")" = 7 ] &&
   [ "$(grep -cE '^ *[0-9.]* us *[0-9.]* us *[0-9.]* us *[0-9.]*% +[0-9.]+ +([0-9.]+|-) +[0-9]+ +([0-9.]+|-)  fused_' "$tmp/out")" = 3 ] &&
   grep -qE ' us +100.0% +[0-9.]+ +([0-9.]+|-) +total$' "$tmp/out"; then ok
else bad "run --profile (text): $(cat "$tmp/out" "$tmp/err")"; fi
expect_fail "--profile times the kernels of --executor graph, not 'vm'" \
  "$relayrt" run --executor vm --profile

# 6c. --report json's "compile": where rt_create_executor's time went. A
# cold build (empty cache folder) compiles the example CNN's 7 distinct
# kernels; a second run reads all 7 from the disk cache and compiles none;
# "per_kernel" (graph only) says the same kernel by kernel.
rm -rf "$tmp/ccache"
for i in 1 2; do
  RELAYRT_CACHE_DIR="$tmp/ccache" "$relayrt" run --executor graph --report json > "$tmp/comp$i.json" 2>> "$tmp/err"
done
RELAYRT_CACHE_DIR="$tmp/ccache" "$relayrt" run --executor vm --report json > "$tmp/comp3.json" 2>> "$tmp/err"
"$relayrt" run --executor debug --report json > "$tmp/comp4.json" 2>> "$tmp/err"
if $py - "$tmp/comp1.json" "$tmp/comp2.json" "$tmp/comp3.json" "$tmp/comp4.json" <<'PY'
import json, sys
c1, c2, c3, c4 = (json.load(open(f))["compile"] for f in sys.argv[1:])
stages = ["keys_ms", "lowering_ms", "optimization_ms", "codegen_ms", "cache_ms", "linking_ms"]
for c in (c1, c2, c3):
    assert c["kernels"] == 7 and c["distinct"] == 7, c
    assert c["compiled"] + c["disk_hits"] + c["memory_hits"] == c["distinct"], c
    assert all(c[k] >= 0 for k in stages + ["import_ms", "passes_ms", "jit_wall_ms"]), c
    assert c["jit_wall_ms"] <= c["total_ms"] and c["passes_ms"] <= c["total_ms"], c
    assert c["target"] in ("host", "avx2", "avx512", "generic") and c["vector_width"] in (8, 16), c
assert c1["compiled"] == 7 and c1["disk_hits"] == 0 and c1["optimization_ms"] > 0, c1
assert c2["compiled"] == 0 and c2["disk_hits"] == 7 and c2["optimization_ms"] == 0, c2
assert c3["compiled"] == 0 and c3["disk_hits"] == 7, c3   # the vm's kernels are the graph's
assert c4["kernels"] == 0 and c4["jit_wall_ms"] == 0 and c4["target"] == "", c4
# per_kernel (graph): one entry per kernel; the cold build compiled each
# distinct one (stage times and IR sizes set), the warm one none.
for c, cold in ((c1, True), (c2, False)):
    pk = c["per_kernel"]
    assert len(pk) == c["kernels"], c
    for k in pk:
        assert k["name"].startswith("fused_") and k["template"] and k["pipeline"] in ("O3", "W2 fast-isel", "C2"), k
        assert k["compiled"] == cold, k
        if cold:
            assert k["ir_lowered"] > 0 and k["ir_optimized"] > 0 and k["optimization_ms"] > 0, k
        else:
            assert k["ir_lowered"] == 0 and k["optimization_ms"] == 0 and k["codegen_ms"] == 0, k
assert "per_kernel" not in c3 and "per_kernel" not in c4, (c3, c4)
PY
then ok
else bad "run --report json compile: $(cat "$tmp"/comp*.json "$tmp/err")"; fi

# 7. optest: one op through every executor.
if "$relayrt" optest nn.conv2d --shape data=1x3x8x8 --shape weight=4x3x3x3 --attr padding=1,1 \
     > "$tmp/out" 2> "$tmp/err" &&
   grep -q '^reference output_0: Tensor\[(1, 4, 8, 8), float32\]' "$tmp/out" &&
   grep -q '^graph: max abs error [0-9.e+-]*, max rel error' "$tmp/out" &&
   grep -qE '^vm: (not built yet|max abs error [0-9.e+-]*, max rel error)' "$tmp/out"; then ok
else bad "optest nn.conv2d: $(cat "$tmp/out" "$tmp/err")"; fi
expect_fail "operator \`nn.nope\` not found" "$relayrt" optest nn.nope --shape x=2
expect_fail "optest needs an op name" "$relayrt" optest

# 8. The graph executor with `?` input dims and no --shape: it specializes
# itself to the --input data's shapes, and --report json says how many
# specializations the runs made (one shape: one build, then hits).
if "$relayrt" run "$tmp/dyn.relay" --executor graph --input x="$tmp/dx.npy" --repeat 3 --warmup 1 \
     --report json > "$tmp/json" 2> "$tmp/err" &&
   $py -c "
import json,sys
r=json.load(open(sys.argv[1]))
assert r['specializations']=={'built':1,'hits':3,'evicted':0,'cached':1,'max':8}, r
assert r['memory']['output_bytes']==4*3*4, r
assert r['outputs'][0]=={'name':'output_0','shape':[4,3],'dtype':'float32'}, r['outputs']
" "$tmp/json"; then ok
else bad "graph --report json specializations: $(cat "$tmp/json" "$tmp/err")"; fi
# The vm on a `?`-batch dense: its kernel is compiled per input shape
# (vm.specialize auto: an anchor); one shape, one specialization.
printf '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(?, 3), float32], %%w: Tensor[(4, 3), float32]) {\n  nn.dense(%%x, %%w, units=4)\n}\n' > "$tmp/dyn_dense.relay"
if "$relayrt" run "$tmp/dyn_dense.relay" --executor vm --input x="$tmp/dx.npy" --repeat 3 --warmup 1 \
     --report json > "$tmp/json" 2> "$tmp/err" &&
   $py -c "
import json,sys
r=json.load(open(sys.argv[1]))
k=r['kernel_specializations']
assert k['per_shape_kernels']>=1 and k['built']==k['per_shape_kernels'] and k['hits']>=3, r
assert 'specializations' not in r, r
" "$tmp/json"; then ok
else bad "vm --report json kernel_specializations: $(cat "$tmp/json" "$tmp/err")"; fi
# --config sets the pass context: with vm.specialize=needed the dense
# lowers for any shape (no kernel compiled per shape); an unknown key is refused.
if "$relayrt" run "$tmp/dyn_dense.relay" --executor vm --input x="$tmp/dx.npy" \
     --config vm.specialize=needed --report json > "$tmp/json" 2> "$tmp/err" &&
   ! grep -q kernel_specializations "$tmp/json"; then ok
else bad "run --config vm.specialize=needed: $(cat "$tmp/json" "$tmp/err")"; fi
expect_fail "unknown config option 'vm.nope'" "$relayrt" run "$tmp/dyn_dense.relay" --config vm.nope=1
# A static model's graph executor does not specialize: no such key.
if "$relayrt" run "$tmp/prog.relay" --executor graph --report json > "$tmp/json" 2> "$tmp/err" &&
   ! grep -q specializations "$tmp/json"; then ok
else bad "static graph --report json: $(cat "$tmp/json" "$tmp/err")"; fi
# --executor all: the graph executor runs the `?` model too, and agrees.
if "$relayrt" run "$tmp/dyn.relay" --executor all --input x="$tmp/dx.npy" --report json > "$tmp/json" 2> "$tmp/err" &&
   $py -c "
import json,sys
r=json.load(open(sys.argv[1]))
g=[e for e in r['executors'] if e['executor']=='graph'][0]
assert g['agrees'] and g['specializations']['built']==1, g
" "$tmp/json"; then ok
else bad "--executor all on a \`?\` model: $(cat "$tmp/json" "$tmp/err")"; fi
# An ONNX model with a dim_param, run on graph with --input and no --shape
# (where the onnx package is installed), gives the interpreter's output.
if $py -c "import onnx" 2> /dev/null; then
  $py - "$tmp/dp.onnx" <<'PY'
import sys
from onnx import TensorProto, helper
g = helper.make_graph(
    [helper.make_node("MatMul", ["x", "W"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["z"]),
     helper.make_node("Relu", ["z"], ["y"])], "dp",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
    initializer=[helper.make_tensor("W", TensorProto.FLOAT, [4, 3], [1, 0, -1, 0, 1, -1, 1, 1, 0, 0, 0, -1]),
                 helper.make_tensor("b", TensorProto.FLOAT, [3], [0.5, -1, 1])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 8
open(sys.argv[1], "wb").write(m.SerializeToString())
PY
  $py -c "import numpy as np; np.save('$tmp/dpx.npy', np.arange(20, dtype=np.float32).reshape(5, 4) - 9)"
  if "$relayrt" run "$tmp/dp.onnx" --executor graph --input x="$tmp/dpx.npy" --out "$tmp/dpg" > "$tmp/out" 2>&1 &&
     "$relayrt" run "$tmp/dp.onnx" --executor debug --input x="$tmp/dpx.npy" --out "$tmp/dpd" > /dev/null 2>&1 &&
     grep -q '^output_0: Tensor\[(5, 3), float32\]' "$tmp/out" &&
     cmp -s "$tmp/dpg/output_0.npy" "$tmp/dpd/output_0.npy"; then ok
  else bad "ONNX dim_param on graph with --input: $(cat "$tmp/out")"; fi
else
  echo "skip: the ONNX dim_param case (no onnx package for $py)"
fi

echo "$pass passed, $failn failed"
[ $failn -eq 0 ]
