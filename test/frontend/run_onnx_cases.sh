#!/usr/bin/env bash
# The meson 'onnx' test. Generates ONNX's backend cases (once per build
# folder; ../shared/tools/onnx-node-tests, which needs python3-onnx) and the
# hand-built cases of gen_onnx_cases.py (If, Loop, reverse/bidirectional
# RNN/LSTM/GRU, and models that must be refused), then requires:
#   - every case of onnx_cases.txt to pass on debug, graph and vm with
#     every input passed plainly (--input);
#   - every case of onnx_cases_const.txt to pass on debug, graph and vm,
#     with the --const-input retries that bind the inputs relayrt needs as
#     constants (scripts/onnx-conformance --allow-const-input);
#   - every case of onnx_cases_vm.txt (control flow, sequences and
#     optionals, string tensors, data-dependent sizes: what the graph
#     executor refuses) to pass on debug and vm;
#   - the hand-built cases to pass (If with a run-time condition, Loop
#     as a recursive function, a Loop's scan outputs gathered in lists,
#     string models and Reshape to a computed shape on debug and vm, and
#     the graph executor to refuse them clearly, or, for the reshape, to
#     run it once its `?` dim is bound; the rest on all three);
#   - every model under bad/ to be refused with its .expect message.
#   run_onnx_cases.sh RELAYRT SRCDIR DATADIR CASES_TXT
set -euo pipefail
relayrt=$1 src=$2 data=$3 cases=$4
here=$(dirname "$cases")
gen=""
for g in "$src/../shared/tools/onnx-node-tests" "$src/shared/tools/onnx-node-tests"; do
  [ -x "$g" ] && { gen=$g; break; }
done
# A clone without ../shared has no generator: ONNX's own cases are then
# skipped (said on stdout), and the hand-built cases and refusals still run.
node_cases=1
if [ ! -f "$data/index.tsv" ]; then
  if [ -z "$gen" ]; then
    echo "skip: ONNX's node cases (onnx_cases.txt, onnx_cases_vm.txt): the onnx-node-tests generator is not next to the source tree (../shared/tools/onnx-node-tests)"
    node_cases=0
  else
    "$gen" "$data" >/dev/null
  fi
fi
extra="$data-extra"
if [ ! -f "$extra/index.tsv" ] || [ "$here/gen_onnx_cases.py" -nt "$extra/index.tsv" ]; then
  rm -rf "$extra"
  /usr/bin/python3 "$here/gen_onnx_cases.py" "$extra" >/dev/null
fi
conf=(/usr/bin/python3 "$src/scripts/onnx-conformance" "$relayrt")
rc=0
if [ "$node_cases" = 1 ]; then
  "${conf[@]}" "$data" --executors debug,graph,vm --cases "$cases" --require-pass --quiet --jobs 2 || rc=1
  "${conf[@]}" "$data" --suite all --executors debug,vm --cases "$here/onnx_cases_vm.txt" \
    --require-pass --quiet --jobs 2 || rc=1
  "${conf[@]}" "$data" --executors debug,graph,vm --cases "$here/onnx_cases_const.txt" --require-pass \
    --allow-const-input --quiet --jobs 2 || rc=1
fi
dyn='^extra/(if_two_outputs|loop_while_.*|reshape_computed_shape)$'
"${conf[@]}" "$extra" --suite extra --executors debug,graph,vm --filter '^extra/(?!(if_two_outputs|loop_while_.*|loop_scan_data_cond|reshape_computed_shape)$|str_)' \
  --require-pass --quiet --jobs 2 || rc=1
# Scan outputs of a loop run as a recursive function: lists (debug and vm).
"${conf[@]}" "$extra" --suite extra --executors debug,vm --filter '^extra/loop_scan_data_cond$' \
  --require-pass --quiet --jobs 2 || rc=1
# String models (str_*) run on the debug executor and the vm (host ops).
"${conf[@]}" "$extra" --suite extra --executors debug,vm --filter '^extra/str_' --require-pass --quiet \
  --jobs 2 || rc=1
"${conf[@]}" "$extra" --suite extra --executors debug,vm --filter "$dyn" --require-pass --quiet \
  --jobs 2 || rc=1
# Refusals: each must be an error (exit 1, not a crash) naming the problem.
check_refusal() { # MODEL EXECUTOR EXPECTED
  local out status=0
  out=$("$relayrt" run "$1" --executor "$2" 2>&1 >/dev/null) || status=$?
  if [ "$status" -ne 1 ] || [[ "$out" != *"$3"* ]]; then
    echo "NOT REFUSED AS EXPECTED: $1 ($2): exit $status, wanted '$3', got: $out" >&2
    rc=1
  fi
}
for m in "$extra"/bad/*.onnx; do
  check_refusal "$m" debug "$(cat "${m%.onnx}.expect")"
done
# (if_runtime_cond's condition is a scalar input: the graph executor
# specializes on it and runs it, with the rest above.)
for c in if_two_outputs loop_while_data_cond; do
  check_refusal "$extra/extra/$c/model.onnx" graph 'the graph executor does not run if'
done
check_refusal "$extra/extra/loop_scan_data_cond/model.onnx" graph \
  'the graph executor does not run if (control flow)'
# The graph executor takes the `?` dim (it specializes itself to the
# inputs' shapes at run time), but random data needs a shape.
check_refusal "$extra/extra/reshape_computed_shape/model.onnx" graph 'give its shape with --shape x=DIMS'
# ... and with the `?` dim bound at load, the computed shape folds and the
# graph executor runs it, with the expected output.
d="$extra/extra/reshape_computed_shape/test_data_set_0"
out=$(mktemp -d)
if "$relayrt" run "$extra/extra/reshape_computed_shape/model.onnx" --executor graph --shape x=4x6 \
     --input x="$d/input_0.npy" --out "$out" >/dev/null 2>&1 &&
   /usr/bin/python3 -c "import numpy as np,sys; sys.exit(0 if np.array_equal(np.load(sys.argv[1]), np.load(sys.argv[2])) else 1)" \
     "$out/output_0.npy" "$d/output_0.npy"; then :
else
  echo "FAIL: reshape_computed_shape under graph with --shape x=4x6" >&2
  rc=1
fi
rm -rf "$out"
exit $rc
