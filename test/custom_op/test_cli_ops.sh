#!/bin/sh
# The relayrt command with custom ops: --ops loads examples/custom_op's
# library (my.gelu, my.normalize); build --emit=kernels shows the conv2d and
# my.gelu fused into one kernel; run on graph and vm; optest checks the
# native kernels and the element expression against the reference kernels;
# --onnx-op maps a custom ONNX domain; misuse is an error, not a crash.
# usage: test_cli_ops.sh RELAYRT LIBMY_OPS.so SRCDIR
set -u
RELAYRT=$1
LIB=$2
SRC=$3
MODEL=$SRC/examples/custom_op/model.relay
ONNX=$SRC/test/custom_op/custom_gelu.onnx
TMP=${TMPDIR:-/tmp}/relayrt-cli-ops.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
fails=0
check() { # NAME EXPECTED_STATUS PATTERN -- command...
  name=$1; want=$2; pattern=$3; shift 4
  "$@" >"$TMP/out" 2>&1
  got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL $name: exit $got, want $want"; cat "$TMP/out"; fails=$((fails + 1)); return
  fi
  if [ -n "$pattern" ] && ! grep -q -- "$pattern" "$TMP/out"; then
    echo "FAIL $name: output lacks '$pattern'"; cat "$TMP/out"; fails=$((fails + 1)); return
  fi
  echo "ok   $name"
}

check kernels 0 "fused_nn_conv2d_my_gelu" -- "$RELAYRT" --ops "$LIB" build "$MODEL" --emit=kernels
# Exactly two kernels: the fused conv2d+gelu and my.normalize's call.
"$RELAYRT" --ops "$LIB" build "$MODEL" --emit=kernels >"$TMP/k" 2>&1
n=$(grep -c '^fused_' "$TMP/k")
if [ "$n" -ne 2 ] || ! grep -q '^fused_my_normalize' "$TMP/k"; then
  echo "FAIL kernel count: $n kernels"; cat "$TMP/k"; fails=$((fails + 1))
else
  echo "ok   kernel count"
fi
check run-graph 0 "" -- "$RELAYRT" --ops "$LIB" run "$MODEL" --executor graph
check run-vm 0 "" -- "$RELAYRT" run "$MODEL" --executor vm --ops "$LIB"
check optest-gelu 0 "fused, element expression" -- "$RELAYRT" --ops "$LIB" optest my.gelu --shape x=3x5
check optest-gelu-native 0 "graph (native kernel): max abs error" -- "$RELAYRT" --ops "$LIB" optest my.gelu --shape x=3x5
check optest-normalize 0 "vm (native kernel): max abs error" -- "$RELAYRT" --ops "$LIB" optest my.normalize --shape x=4x4
check onnx-op 0 "" -- "$RELAYRT" --ops "$LIB" run "$ONNX" --onnx-op com.example.Gelu=my.gelu --executor graph
check onnx-unmapped 1 "com.example" -- "$RELAYRT" --ops "$LIB" run "$ONNX"
check onnx-bad-flag 2 "DOMAIN.OPTYPE=OP" -- "$RELAYRT" run "$ONNX" --onnx-op Gelu
check ops-missing 1 "--ops" -- "$RELAYRT" --ops "$TMP/nonexistent.so" build "$MODEL"
check no-ops 1 "my.gelu" -- "$RELAYRT" build "$MODEL" --emit=kernels
check export-refused 1 "not yet supported" -- "$RELAYRT" --ops "$LIB" build "$MODEL" --emit=so -o "$TMP/m.so"
# Kernels calling into this process never reach the disk cache.
mkdir -p "$TMP/cache"
RELAYRT_CACHE_DIR="$TMP/cache" "$RELAYRT" --ops "$LIB" run "$MODEL" --executor graph >/dev/null 2>&1
if [ -n "$(find "$TMP/cache" -type f)" ]; then
  echo "FAIL disk cache: custom-op kernels were written"; find "$TMP/cache" -type f; fails=$((fails + 1))
else
  echo "ok   disk cache"
fi
exit $fails
