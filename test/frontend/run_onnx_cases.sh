#!/usr/bin/env bash
# The meson 'onnx' test: generates ONNX's backend cases (once per build
# folder; ../shared/tools/onnx-node-tests, which needs python3-onnx), then
# runs the curated list through the debug and graph executors; every listed
# case must pass on both.
#   run_onnx_cases.sh RELAYRT SRCDIR DATADIR CASES_TXT
set -euo pipefail
relayrt=$1 src=$2 data=$3 cases=$4
gen=""
for g in "$src/../shared/tools/onnx-node-tests" "$src/shared/tools/onnx-node-tests"; do
  [ -x "$g" ] && { gen=$g; break; }
done
if [ ! -f "$data/index.tsv" ]; then
  if [ -z "$gen" ]; then
    echo "onnx-node-tests generator not found next to the source tree" >&2
    exit 1
  fi
  "$gen" "$data" >/dev/null
fi
exec /usr/bin/python3 "$src/scripts/onnx-conformance" "$relayrt" "$data" \
  --executors debug,graph --cases "$cases" --require-pass --quiet --jobs 2
