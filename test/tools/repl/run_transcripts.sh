#!/bin/bash
# Transcript tests for `relayrt repl`: each NAME.in is a scripted session
# (run with --batch from a temp dir); its stdout+stderr, with timings masked
# ("12.3 ms" -> "X ms"), must equal NAME.out. UPDATE=1 rewrites the .out files.
# usage: run_transcripts.sh RELAYRT DIR
set -u
relayrt=$1
dir=$2
export RELAYRT_CACHE_DIR=off
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
for in in "$dir"/*.in; do
  name=$(basename "$in" .in)
  n=$((n + 1))
  (cd "$tmp" && "$relayrt" repl --batch "$in" > "$tmp/$name.raw" 2>&1; echo "exit status: $?" >> "$tmp/$name.raw")
  sed -E 's/[0-9]+(\.[0-9]+)? ms/X ms/g; s/symbol rt_k[0-9a-f_]+/symbol rt_kX/g' "$tmp/$name.raw" > "$tmp/$name.got"
  if [ "${UPDATE:-0}" = 1 ]; then cp "$tmp/$name.got" "$dir/$name.out"; fi
  if ! diff -u "$dir/$name.out" "$tmp/$name.got"; then
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
echo "$n transcripts"
exit $fail
