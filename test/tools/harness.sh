# Sourced by the tools suite's shell tests (after setting `relayrt` and
# `root`): a temporary folder removed on exit, the pass/fail counters and
# their helpers, and expect_rc. A test ends with `harness_end`.
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RELAYRT_CACHE_DIR=off
pass=0
failn=0
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL: $*"; }
# expect_rc RC SUBSTRING COMMAND...: exits RC (no crash) with SUBSTRING on stderr.
expect_rc() {
  local want_rc=$1 want=$2
  shift 2
  "$@" > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  if [ $rc -eq "$want_rc" ] && grep -qF -- "$want" "$tmp/err"; then ok
  else bad "expected exit $want_rc and '$want' from: $* (rc=$rc: $(cat "$tmp/err"))"; fi
}
# Prints the counts; the test's exit status is whether nothing failed.
harness_end() {
  echo "$pass passed, $failn failed"
  [ $failn -eq 0 ]
}
