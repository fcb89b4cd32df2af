#!/bin/sh
# librelayrt_runtime (and a host linked with it) must not need LLVM, and the
# library must hold nothing of ir/, passes/, jit/ or backend/.
lib="$1"; exe="$2"
fail=0
if ldd "$lib" | grep -qi llvm; then echo "FAIL: $lib links LLVM:"; ldd "$lib"; fail=1; fi
if ldd "$exe" | grep -qi llvm; then echo "FAIL: $exe links LLVM:"; ldd "$exe"; fail=1; fi
bad=$(nm -D --defined-only "$lib" | grep -Ei ' (LLVM|rt_ir_|rt_pass_|rt_jit_|rt_interp_|rt_module_|rt_create_executor)' | head)
if [ -n "$bad" ]; then echo "FAIL: $lib defines symbols of other layers:"; echo "$bad"; fail=1; fi
undef=$(nm -D --undefined-only "$lib" | grep -i llvm | head)
if [ -n "$undef" ]; then echo "FAIL: $lib needs LLVM symbols:"; echo "$undef"; fail=1; fi
nm -D --defined-only "$lib" | grep -q ' rt_artifact_load$' || { echo "FAIL: no rt_artifact_load in $lib"; fail=1; }
[ $fail -eq 0 ] && echo "ok: $lib is runtime-only"
exit $fail
