#!/bin/bash
# Drives the real terminal program under tmux: the prompt, tab completion
# of a command, a command's output, stepping between prompts, history
# recall and the history file. Exit 77 (meson's
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
# Stepping at the terminal (the run parks on its worker thread between
# prompts), and the history: Up brings back the last line.
t send-keys ':step' Enter
wait_for 'at %3 = fused_nn_conv2d' || exit 1
t send-keys Up
wait_for 'relayrt> :step$' || exit 1
t send-keys Enter
wait_for 'at %0 = nn.conv2d' || exit 1
t send-keys ':next' Enter ':print %' Tab Tab
sleep 0.3
t send-keys C-u ':print %0' Enter
wait_for '%0: Tensor\[(1, 8, 16, 16), float32\]' || exit 1
t send-keys ':quit' Enter
# The session ends when relayrt exits; only then is the history final.
for _ in $(seq 1 100); do t has-session 2>/dev/null || break; sleep 0.1; done
if ! grep -q ':passes' "$tmp/state/relayrt/history"; then
  echo "FAIL: no ':passes' in the history file $tmp/state/relayrt/history"
  ls -laR "$tmp/state" 2>&1
  cat "$tmp/state/relayrt/history" 2>&1
  t capture-pane -p 2>/dev/null
  exit 1
fi
echo ok
