#!/usr/bin/env bash
# The Makefile's probes, tested: each one must change what `make probe`
# reports when the tool it looks for is absent (TAP output).
set -uo pipefail
cd "$(dirname "$0")/../.."
n=0 bad=0
check() { # name expected-regex make-args...
  local name=$1 want=$2; shift 2
  local out; out=$(env ${PROBE_PATH:+PATH=$PROBE_PATH} make --no-print-directory -s "$@" probe 2>&1)
  n=$((n + 1))
  if tr "\n" " " <<<"$out" | grep -qE -- "$want"; then echo "ok $n - $name"; else echo "not ok $n - $name"; echo "# got: $out"; bad=1; fi
}
echo "1..7"
cuda_home=$(mktemp -d); mkdir -p "$cuda_home/bin"; printf '#!/bin/sh\necho fake nvcc\n' >"$cuda_home/bin/nvcc"
chmod +x "$cuda_home/bin/nvcc"; trap 'rm -rf "$cuda_home"' EXIT
PROBE_PATH=/usr/bin:/bin check "finds nvcc under CUDA_HOME when it is not on PATH" "mode=cuda nvcc=$cuda_home/bin/nvcc" CUDA_HOME="$cuda_home"
check "NO_CUDA=1 selects CPU mode" "mode=cpu nvcc=none" NO_CUDA=1
PROBE_PATH=/usr/bin:/bin check "no nvcc on PATH nor in CUDA_HOME selects CPU mode" "mode=cpu nvcc=none" CUDA_HOME=/nonexistent
check "a missing emcc drops the wasm client" "emcc=none .*will build: server\+CLI \([a-z]+ mode\)( lessons| unit)" EMCC_NAME=emcc-missing
check "SAN=1 builds into build-san" "build=build-san" SAN=1
check "CPU mode still builds the server and CLI" "will build: server\+CLI \(cpu mode\)" NO_CUDA=1
# make unit runs the unit tests (it once exited 0 and ran nothing).
n=$((n + 1)); out=$(make --no-print-directory -s unit 2>&1)
if grep -qE '^100%: Checks: [1-9][0-9]*, Failures: 0, Errors: 0' <<<"$out"; then echo "ok $n - make unit runs the unit tests"
else echo "not ok $n - make unit runs the unit tests"; echo "# got: $(tail -3 <<<"$out")"; bad=1; fi
exit $bad
