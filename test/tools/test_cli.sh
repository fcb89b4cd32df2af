#!/usr/bin/env bash
# CLI tests for `relayrt`: the built-in example prints its typed IR, that
# output is a fixed point when fed back in, every corpus program round-trips
# through the command, malformed files exit non-zero with a positioned
# diagnostic, and usage errors exit 2.
set -u
relayrt=$1
root=$2
tmp=$(mktemp -d)
PY3=/usr/bin/python3
trap 'rm -rf "$tmp"' EXIT
pass=0
failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL: $*"; }

# 1. The built-in example: typed IR on stdout, exit 0.
if "$relayrt" build > "$tmp/builtin.relay" 2> "$tmp/err"; then
  if grep -q '/\* ty=Tensor\[(1, 10), float32\] \*/' "$tmp/builtin.relay" &&
     head -1 "$tmp/builtin.relay" | grep -q '^#\[version = "0.0.5"\]$'; then ok
  else bad "built-in example output is not the typed program"; fi
else bad "relayrt build (built-in) failed: $(cat "$tmp/err")"; fi

# 2. Fixed point: printing the printed program gives the same bytes.
if "$relayrt" build "$tmp/builtin.relay" --emit=relay --no-opt > "$tmp/again.relay" 2> "$tmp/err" &&
   cmp -s "$tmp/builtin.relay" "$tmp/again.relay"; then ok
else bad "built-in example print is not a fixed point"; fi

# 3. The reference typed example prints byte for byte as itself.
ref=$(dirname "$root")/shared/reference/examples/dense_bias_scale_meta_typed.relay
if [ -f "$ref" ]; then
  cp "$ref" "$tmp/typed.relay"
  if "$relayrt" build "$tmp/typed.relay" --emit=relay --no-opt > "$tmp/typed.out" 2> "$tmp/err" &&
     cmp -s "$tmp/typed.relay" "$tmp/typed.out"; then ok
  else bad "the TVM-printed typed example does not print as itself"; diff "$tmp/typed.relay" "$tmp/typed.out" | head -20; fi
else
  echo "skip: the TVM-printed typed example ($ref) is not next to the source tree"
fi

# 4. Every corpus program: output is a fixed point through the command.
for f in "$root"/test/ir/corpus/*.relay; do
  [ -f "$f" ] || continue
  if "$relayrt" build "$f" --emit=relay > "$tmp/a.relay" 2> "$tmp/err" &&
     "$relayrt" build "$tmp/a.relay" --emit=relay > "$tmp/b.relay" 2>> "$tmp/err" &&
     cmp -s "$tmp/a.relay" "$tmp/b.relay"; then ok
  else bad "corpus $(basename "$f") is not a fixed point: $(head -3 "$tmp/err")"; fi
done

# 5. Malformed input: exit 1 with file:line:col: error: on stderr.
printf '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(1, 3), float32]) {\n  add(%%x, %%y)\n}\n' > "$tmp/undef.relay"
"$relayrt" build "$tmp/undef.relay" > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "^$tmp/undef.relay:3:[0-9]*: error: " "$tmp/err"; then ok
else bad "malformed file: rc=$rc, stderr: $(cat "$tmp/err")"; fi

printf '#[version = "0.0.5"]\ndef @main(%%x: Tensor[(1, 3), float32], %%y: Tensor[(1, 4), float32]) {\n  %%0 = add(%%x, %%y);\n  %%0\n}\n' > "$tmp/shape.relay"
"$relayrt" build "$tmp/shape.relay" > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "^$tmp/shape.relay:3:[0-9]*: error: %0 = add(%x, %y): .*(1, 3).*(1, 4)" "$tmp/err"; then ok
else bad "type error: rc=$rc, stderr: $(cat "$tmp/err")"; fi

# A missing file is an error naming it.
"$relayrt" build "$tmp/nope.relay" > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "nope.relay" "$tmp/err"; then ok; else bad "missing file: rc=$rc"; fi

# 6. The pass pipeline through the command.
"$relayrt" build --list-passes > "$tmp/list" 2>&1
if grep -q '^   0   InferType  *opt 0' "$tmp/list" && grep -q 'FuseOps' "$tmp/list" &&
   grep -q '^  vm   ToANormalForm' "$tmp/list"; then ok; else bad "--list-passes: $(head -3 "$tmp/list")"; fi
"$relayrt" build --opt-level 3 --trace > /dev/null 2> "$tmp/trace"
npasses=$("$relayrt" build --list-passes | grep -c '^   *[0-9][0-9]* ')
# opt 5: AlterOpLayout, which only runs when required (passes.def).
nlines=$(grep -cE '^  [A-Za-z0-9]+ +opt [0-5]  (ran|skipped)' "$tmp/trace")
if [ "$npasses" -gt 0 ] && [ "$npasses" -eq "$nlines" ] &&
   grep -q 'CombineParallelConv2d *opt 4  skipped (opt_level too low)' "$tmp/trace" &&
   grep -q 'AlterOpLayout *opt 5  skipped (opt_level too low)' "$tmp/trace" &&
   grep -q 'FoldConstant *opt 2  ran' "$tmp/trace"; then ok
else bad "--trace lists $nlines of $npasses passes: $(cat "$tmp/trace")"; fi
"$relayrt" build --opt-level 3 --disable FoldConstant --trace > /dev/null 2> "$tmp/trace"
if [ "$(grep -c 'FoldConstant *opt 2  skipped (disabled)' "$tmp/trace")" -eq 2 ]; then ok
else bad "--disable FoldConstant: $(grep FoldConstant "$tmp/trace")"; fi
"$relayrt" build --opt-level 0 --require FoldConstant --trace > /dev/null 2> "$tmp/trace"
if grep -q 'FoldConstant *opt 2  ran (required)' "$tmp/trace"; then ok
else bad "--require FoldConstant at opt 0: $(grep FoldConstant "$tmp/trace")"; fi
printf '#[version = "0.0.5"]\ndef @main(%%x: float32) {\n  %%0 = add(1f, 2f);\n  add(%%x, %%0)\n}\n' > "$tmp/fold.relay"
"$relayrt" build "$tmp/fold.relay" --disable FoldConstant > "$tmp/nofold" 2>&1
if grep -q 'add(1f .*, 2f ' "$tmp/nofold"; then ok; else bad "--disable FoldConstant folded: $(cat "$tmp/nofold")"; fi
"$relayrt" build --dump-after=all > /dev/null 2> "$tmp/dump"
ndumps=$(grep -c '^// IR after ' "$tmp/dump")
if [ "$ndumps" -ge 5 ] && grep -q '^// IR after FuseOps' "$tmp/dump"; then ok; else bad "--dump-after=all printed $ndumps dumps"; fi
"$relayrt" build --dump-after=FuseOps --dump-dir "$tmp/dumps" > /dev/null 2>&1
if ls "$tmp/dumps" | grep -q '_FuseOps.relay$' && [ "$(ls "$tmp/dumps" | wc -l)" -eq 1 ]; then ok
else bad "--dump-dir: $(ls "$tmp/dumps" 2>&1)"; fi
"$relayrt" build --disable NoSuchPass > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] && grep -q "unknown pass 'NoSuchPass' (known: InferType" "$tmp/err" && ok || bad "unknown pass: $(cat "$tmp/err")"
"$relayrt" build --config fuse.max_dpeth=3 > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] && grep -q "unknown config option 'fuse.max_dpeth' (known: fuse.max_depth, jit.keep_ll, jit.keep_asm, jit.disk_cache, runtime.num_threads, jit.target, vm.specialize, graph.max_specializations, alter_op_layout.block)" "$tmp/err" && ok || bad "unknown config: $(cat "$tmp/err")"
"$relayrt" build --config fuse.max_depth=0 > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] && grep -q "expects an integer" "$tmp/err" && ok || bad "bad config value: $(cat "$tmp/err")"

# 7. Seeing the kernels: --emit=kernels|ll|asm|graph-json|dot.
"$relayrt" build --emit=kernels > "$tmp/k" 2>&1
if grep -q '^7 kernels, 7 nodes' "$tmp/k" && grep -q '^fused_nn_softmax: fn (Tensor\[(1, 10), float32\]) -> Tensor\[(1, 10), float32\]' "$tmp/k"; then ok
else bad "--emit=kernels: $(cat "$tmp/k")"; fi
"$relayrt" build --emit=kernels --kernel fused_nn_softmax > "$tmp/k1" 2>&1
[ "$(wc -l < "$tmp/k1")" -eq 2 ] && ok || bad "--kernel filter: $(cat "$tmp/k1")"
"$relayrt" build --emit=ll --kernel fused_nn_softmax > "$tmp/ll" 2>&1
if grep -q '^define .*@rt_k' "$tmp/ll" && ! grep -q 'fused_nn_conv2d' "$tmp/ll"; then ok; else bad "--emit=ll --kernel: $(head -3 "$tmp/ll")"; fi
"$relayrt" build --emit=asm > "$tmp/asm" 2>&1
grep -q 'rt_k' "$tmp/asm" && grep -qE '^\s+(vmov|mov|add|vadd)' "$tmp/asm" && ok || bad "--emit=asm: $(head -3 "$tmp/asm")"
"$relayrt" build --emit=graph-json > "$tmp/gj" 2>&1
$PY3 -c "import json,sys; g=json.load(open(sys.argv[1])); assert len(g['heads'])==1 and len(g['node_row_ptr'])==len(g['nodes'])+1" "$tmp/gj" && ok || bad "--emit=graph-json is not valid graph JSON"
"$relayrt" build --emit=dot > "$tmp/dot" 2>&1
[ "$(grep -c 'subgraph cluster_' "$tmp/dot")" -eq 7 ] && head -1 "$tmp/dot" | grep -q '^digraph' && ok || bad "--emit=dot: $(head -3 "$tmp/dot")"
"$relayrt" build --emit=ll --kernel nope > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] && grep -q "no kernel named 'nope'" "$tmp/err" && ok || bad "--kernel nope: $(cat "$tmp/err")"

# --emit=so: a shared library exporting only the descriptor; -o is required.
"$relayrt" build --emit=so -o "$tmp/cnn.so" > /dev/null 2> "$tmp/err" &&
  nm -D --defined-only "$tmp/cnn.so" | grep -q ' relayrt_artifact$' &&
  [ "$(nm -D --defined-only "$tmp/cnn.so" | wc -l)" -eq 1 ] && ok || bad "--emit=so: $(cat "$tmp/err")"
"$relayrt" build --emit=so > /dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--emit=so without -o should exit 2"

# 8. Usage errors exit 2.
"$relayrt" build --bogus > /dev/null 2>&1
[ $? -eq 2 ] && ok || bad "unknown option should exit 2"
"$relayrt" frobnicate > /dev/null 2>&1
[ $? -eq 2 ] && ok || bad "unknown command should exit 2"
"$relayrt" help > /dev/null 2>&1 && ok || bad "help should exit 0"

# run takes --require / --disable: AlterOpLayout on the small CNN, every
# executor agreeing with debug; an unknown pass is refused.
"$relayrt" run "$root/test/passes/alter_op_layout/model.onnx" --require AlterOpLayout --executor all \
  --repeat 1 --warmup 0 > "$tmp/alter" 2>&1 && grep -q 'agree with debug' "$tmp/alter" && ok ||
  bad "run --require AlterOpLayout: $(cat "$tmp/alter")"
"$relayrt" run "$root/test/passes/alter_op_layout/model.onnx" --disable NoSuchPass > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] && grep -q "unknown pass 'NoSuchPass'" "$tmp/err" && ok || bad "run --disable NoSuchPass: $(cat "$tmp/err")"

echo "$pass passed, $failn failed"
[ $failn -eq 0 ]
