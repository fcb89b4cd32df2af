#!/bin/bash
# Drives the real terminal program under tmux: the prompt, tab completion
# of a command, a command's output and the history file. Exit 77 (meson's
# "skipped") when tmux is absent.
# usage: test_repl_tmux.sh RELAYRT
set -u
relayrt=$1
command -v tmux >/dev/null || { echo "tmux not installed: skipped"; exit 77; }
tmp=$(mktemp -d)
sock="$tmp/sock"
t() { tmux -S "$sock" "$@"; }
trap 't kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
t new-session -d -x 200 -y 50 "env RELAYRT_CACHE_DIR=off XDG_STATE_HOME=$tmp/state $relayrt repl"
wait_for() {
  for _ in $(seq 1 100); do
    t capture-pane -p | grep -q -- "$1" && return 0
    sleep 0.1
  done
  echo "FAIL: never saw '$1'; screen:"; t capture-pane -p; return 1
}
wait_for 'relayrt>' || exit 1
t send-keys ':pas' Tab
wait_for 'relayrt> :passes' || exit 1
t send-keys Enter
wait_for 'FuseOps' || exit 1
t send-keys ':type %' Tab Tab
sleep 0.3
t send-keys C-u ':type %3' Enter
wait_for '%3: Tensor' || exit 1
t send-keys ':quit' Enter
for _ in $(seq 1 50); do [ -s "$tmp/state/relayrt/history" ] && break; sleep 0.1; done
grep -q ':passes' "$tmp/state/relayrt/history" || { echo "FAIL: no history file"; exit 1; }
echo ok
