#!/usr/bin/env bash
# `meson install` into a temporary DESTDIR, then the examples built against
# the installed tree with pkg-config, as a user would:
#   - headers: every include/rt/*.h of the source is installed;
#   - relayrt.pc / relayrt-runtime.pc: examples/embed (full library) and
#     examples/deploy (runtime-only, no LLVM) build with their Makefiles;
#   - embed runs the tiny ONNX model of examples/embed/make_model.py
#     (expected output computed by hand in that file);
#   - deploy runs the CNN exported by the installed relayrt, and its output
#     matches the reference interpreter's (relayrt run, debug executor);
#   - examples/custom_op (when present) builds and runs on every executor.
# usage: test_install.sh MESON BUILD_DIR SOURCE_DIR SANITIZE
set -euo pipefail
meson=$1 build=$2 src=$3 sanitize=${4:-none}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

dest=$tmp/dest
"$meson" install -C "$build" --no-rebuild --destdir "$dest" --quiet >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; fail "meson install"; }

pc=$(find "$dest" -name relayrt.pc | head -n1)
[ -n "$pc" ] || fail "relayrt.pc not installed"
pcdir=$(dirname "$pc")
[ -f "$pcdir/relayrt-runtime.pc" ] || fail "relayrt-runtime.pc not installed"
libdir=$(dirname "$pcdir")
bindir=$(dirname "$(find "$dest" -path '*/bin/relayrt' | head -n1)")
incdir=$(find "$dest" -type d -path '*/include/rt' | head -n1)
[ -n "$incdir" ] || fail "include/rt not installed"
for h in "$src"/include/rt/*.h; do
  [ -f "$incdir/$(basename "$h")" ] || fail "header $(basename "$h") not installed"
done
for l in librelayrt.so librelayrt_runtime.so; do
  [ -e "$libdir/$l" ] || fail "$l not installed in $libdir"
done

# pkg-config finds the installed tree first; the sysroot maps its paths.
export PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$dest
export LD_LIBRARY_PATH=$libdir
export PATH=/usr/bin:$PATH
# (Outputs are captured before grep -q reads them: with pipefail, a grep
# that exits at its first match can fail the pipeline through SIGPIPE.)
pcflags=$(pkg-config --cflags --libs relayrt)
grep -q -- "-I$dest" <<<"$pcflags" || fail "relayrt.pc: $pcflags"
if grep -qi llvm <<<"$(pkg-config --libs relayrt-runtime)"; then
  fail "relayrt-runtime.pc names LLVM: $(pkg-config --libs relayrt-runtime)"
fi
cc=cc
if [ "$sanitize" != none ] && [ -n "$sanitize" ]; then cc="cc -fsanitize=$sanitize"; fi

# examples/embed: the full library, an ONNX model, the graph executor.
mkdir "$tmp/embed"
cp "$src"/examples/embed/{Makefile,embed.c,make_model.py} "$tmp/embed/"
make -s -C "$tmp/embed" CC="$cc" CFLAGS="-O1 -std=c11 -Wall -Wextra -Werror" embed model.onnx
out=$(cd "$tmp/embed" && ./embed model.onnx)
want="output_0: (1, 3) float32: 4.5 4 0"
[ "$out" = "$want" ] || fail "embed printed '$out', expected '$want'"
echo "embed: $out"

# examples/deploy: runtime-only, an exported .so.
mkdir "$tmp/deploy"
cp "$src"/examples/deploy/{Makefile,deploy.c} "$tmp/deploy/"
make -s -C "$tmp/deploy" CC="$cc" CFLAGS="-O1 -std=c11 -Wall -Wextra -Werror" deploy
deps=$(ldd "$tmp/deploy/deploy")
if grep -qi llvm <<<"$deps"; then fail "deploy links LLVM"; fi
grep -q "$libdir/librelayrt_runtime.so" <<<"$deps" || fail "deploy does not use the installed library: $deps"
cd "$tmp/deploy"
CC="$cc" "$bindir/relayrt" build "$src/examples/cnn.relay" --emit=so -o cnn.so >/dev/null
python3 -c "
import numpy as np
np.save('in.npy', np.random.default_rng(7).uniform(-1, 1, (1, 3, 16, 16)).astype(np.float32))"
./deploy cnn.so in.npy out.npy data
"$bindir/relayrt" run "$src/examples/cnn.relay" --executor debug --input data=in.npy --out ref >/dev/null
python3 -c "
import numpy as np, sys
a, b = np.load('out.npy'), np.load('ref/output_0.npy')
if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-5):
    sys.exit('deploy output differs from the reference: max abs diff %g' % np.abs(a - b).max())
print('deploy: matches the reference interpreter, shape', a.shape)"

# examples/custom_op (when present): an op of our own, on all executors.
if [ -f "$src/examples/custom_op/Makefile" ]; then
  mkdir "$tmp/custom_op"
  cp "$src"/examples/custom_op/* "$tmp/custom_op/"
  make -s -C "$tmp/custom_op" CC="$cc" CFLAGS="-O1 -std=c11 -Wall -Wextra -Werror"
  out=$(cd "$tmp/custom_op" && ./custom_op model.relay)
  for e in debug graph vm; do
    grep -q "^$e *: .*max abs difference to debug" <<<"$out" || fail "custom_op printed no $e line: $out"
  done
  echo "custom_op: ran on debug, graph and vm"
fi
echo "install test: ok"
