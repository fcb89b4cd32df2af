#!/bin/bash
# Transcript tests for `relayrt repl`: each NAME.in is a scripted session
# (run with --batch from a temp dir); its stdout+stderr, with timings masked
# ("12.3 ms" -> "X ms") and the host-chosen register tile of a template
# masked ("gemm.6x64" -> "gemm.RxC": it depends on the CPU's vector width),
# and the element where :compare found its largest difference masked (the
# difference itself depends on the summation order), must equal NAME.out,
# numbers with a fraction within a tolerance (compare_text.py: the JIT's
# last digits depend on the target's vector width). UPDATE=1 rewrites the
# .out files.
# Then checks of output that is the machine's (LLVM IR, assembly, profile
# timings) by shape, and of incremental stepping against `relayrt run`.
# usage: run_transcripts.sh RELAYRT DIR
set -u
relayrt=$1
dir=$2
export RELAYRT_CACHE_DIR=off
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
cp "$dir"/*.relay "$tmp"/ # models the sessions :load by name
for in in "$dir"/*.in; do
  name=$(basename "$in" .in)
  n=$((n + 1))
  (cd "$tmp" && "$relayrt" repl --batch "$in" > "$tmp/$name.raw" 2>&1; echo "exit status: $?" >> "$tmp/$name.raw")
  sed -E 's/ *[0-9]+(\.[0-9]+)? ms/ X ms/g; s/symbol rt_k[0-9a-f_]+/symbol rt_kX/g; s/(template [a-z0-9_.]+)\.[0-9]+x[0-9]+/\1.RxC/g; s/(max \|diff\| = [^ ]+) at element [0-9]+/\1 at element N/g' "$tmp/$name.raw" > "$tmp/$name.got"
  if [ "${UPDATE:-0}" = 1 ]; then cp "$tmp/$name.got" "$dir/$name.out"; fi
  if ! /usr/bin/python3 "$dir/compare_text.py" "$dir/$name.out" "$tmp/$name.got"; then
    echo "FAIL: $name"
    fail=1
  else
    echo "ok: $name"
  fi
done
# :ll and :asm print machine-specific text: check their shape only.
printf ':ll fused_nn_softmax\n:asm fused_nn_softmax\n' > "$tmp/k.in"
(cd "$tmp" && "$relayrt" repl --batch "$tmp/k.in" > "$tmp/k.got" 2>&1) || { echo "FAIL: ll/asm exit status"; fail=1; }
grep -q '^define' "$tmp/k.got" || { echo "FAIL: :ll printed no LLVM function"; fail=1; }
grep -qE '^\s*(ret|vmov|mov|add)' "$tmp/k.got" || { echo "FAIL: :asm printed no instructions"; fail=1; }
n=$((n + 1))
# The walkthrough's last step: the LLVM IR of the fused conv kernel.
printf ':apply FuseOps\n:ll fused_nn_conv2d\n' > "$tmp/w.in"
(cd "$tmp" && "$relayrt" repl --batch "$tmp/w.in" > "$tmp/w.got" 2>&1) || { echo "FAIL: walkthrough :ll exit status"; fail=1; }
grep -q '^define' "$tmp/w.got" || { echo "FAIL: :ll fused_nn_conv2d printed no LLVM function"; fail=1; }
n=$((n + 1))
# :profile prints timings: check that every kernel of :kernels has one row
# and that the shares add up to 100%.
printf ':kernels\n:profile 3\n' > "$tmp/p.in"
(cd "$tmp" && "$relayrt" repl --batch "$tmp/p.in" > "$tmp/p.got" 2>&1) || { echo "FAIL: :profile exit status"; fail=1; }
kernels=$(grep -oE '^fused_[A-Za-z0-9_]+:' "$tmp/p.got" | tr -d : | sort)
rows=$(grep -E '^ +[0-9.]+ us +[0-9.]+ us +[0-9.]+ us +[0-9.]+% +([0-9.]+|-) +([0-9.]+|-) +[0-9]+ +([0-9.]+|-) +fused_' "$tmp/p.got" | awk '{print $12}' | sort)
if [ -z "$kernels" ] || [ "$kernels" != "$rows" ]; then
  echo "FAIL: :profile rows do not match :kernels"; echo "kernels: $kernels"; echo "rows: $rows"; fail=1
fi
grep -E '^ +[0-9.]+ us +[0-9.]+ us +[0-9.]+ us +[0-9.]+% +([0-9.]+|-) +([0-9.]+|-) +[0-9]+ +([0-9.]+|-) +fused_' "$tmp/p.got" | awk '{s += $7} END {exit !(s > 99 && s < 101)}' \
  || { echo "FAIL: :profile shares do not sum to 100%"; cat "$tmp/p.got"; fail=1; }
n=$((n + 1))
# Incremental stepping ends with the outputs of a plain run: fused.in saved
# the stepped run's output_0; `relayrt run` (no stepping) must give the
# same bits, checked by numpy.
(cd "$tmp" && "$relayrt" run --executor debug --out "$tmp/plain" > /dev/null 2>&1) || { echo "FAIL: relayrt run"; fail=1; }
/usr/bin/python3 -c '
import sys, numpy as np
a = np.load(sys.argv[1]); b = np.load(sys.argv[2])
sys.exit(0 if a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b) else 1)
' "$tmp/stepped.npy" "$tmp/plain/output_0.npy" || { echo "FAIL: the stepped run's output differs from relayrt run's"; fail=1; }
n=$((n + 1))
echo "$n transcripts"
exit $fail
