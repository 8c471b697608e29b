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
echo "1..12"
cuda_home=$(mktemp -d); mkdir -p "$cuda_home/bin"; printf '#!/bin/sh\necho fake nvcc\n' >"$cuda_home/bin/nvcc"
chmod +x "$cuda_home/bin/nvcc"; trap 'rm -rf "$cuda_home"' EXIT
PROBE_PATH=/usr/bin:/bin check "finds nvcc under CUDA_HOME when it is not on PATH" "mode=cuda nvcc=$cuda_home/bin/nvcc" CUDA_HOME="$cuda_home"
check "NO_CUDA=1 selects CPU mode" "mode=cpu nvcc=none" NO_CUDA=1
PROBE_PATH=/usr/bin:/bin check "no nvcc on PATH nor in CUDA_HOME selects CPU mode" "mode=cpu nvcc=none" CUDA_HOME=/nonexistent
check "a missing emcc drops the wasm client" "emcc=none .*will build: server\+CLI \([a-z]+ mode\)( lessons| unit)" EMCC_NAME=emcc-missing
check "SAN=1 builds into build-san" "build=build-san" SAN=1
check "CPU mode still builds the server and CLI" "will build: server\+CLI \(cpu mode\)" NO_CUDA=1
# make unit runs the unit tests (it once exited 0 and ran nothing). One
# suite (CK_RUN_SUITE) shows the runner ran and counted its checks; every
# suite is the unit stage's, which would otherwise run twice in make test.
n=$((n + 1)); out=$(CK_RUN_SUITE=json make --no-print-directory -s unit 2>&1)
if grep -qE '^100%: Checks: [1-9][0-9]*, Failures: 0, Errors: 0' <<<"$out"; then echo "ok $n - make unit runs the unit tests"
else echo "not ok $n - make unit runs the unit tests"; echo "# got: $(tail -3 <<<"$out")"; bad=1; fi
# Every stack frame stays small: the program's flags refuse a 20 KB frame.
n=$((n + 1)); big=$(mktemp --suffix=.c); trap 'rm -rf "$cuda_home" "$big"' EXIT
printf 'void big_frame(void);\nvoid big_frame(void) { volatile char b[20000]; b[0] = 1; }\n' >"$big"
if ${CC:-cc} $(make --no-print-directory -s print-CFLAGS) -c "$big" -o /dev/null 2>/dev/null; then
  echo "not ok $n - the build refuses stack frames over 16 KiB"; bad=1
else echo "ok $n - the build refuses stack frames over 16 KiB"; fi
# make run installs the run set only; make test and make bench all of it.
n=$((n + 1)); got=$(for t in run test bench; do printf '%s:%s ' "$t" "$(make -n --no-print-directory "$t" 2>/dev/null | grep -o 'tools/deps.sh [a-z]*' | head -1)"; done)
if [ "$got" = "run:tools/deps.sh run test:tools/deps.sh test bench:tools/deps.sh test " ]; then echo "ok $n - make run installs the run set, make test and make bench everything"
else echo "not ok $n - make run installs the run set, make test and make bench everything"; echo "# got: $got"; bad=1; fi
# Without root, deps.sh names exactly what is missing from the set asked for
# (a stand-in dpkg-query reports chromium, a test-only package, missing).
fake=$(mktemp -d); trap 'rm -rf "$cuda_home" "$big" "$fake"' EXIT
printf '#!/bin/sh\n[ "$3" = chromium ] && exit 1\necho "install ok installed"\n' >"$fake/dpkg-query"
printf '#!/bin/sh\necho 1000\n' >"$fake/id"; chmod +x "$fake/dpkg-query" "$fake/id"
n=$((n + 1)); out=$(PATH="$fake:$PATH" tools/deps.sh test 2>&1); rc=$?
if [ $rc != 0 ] && grep -q "cannot install .*Missing Debian packages: chromium$" <<<"$out"; then echo "ok $n - deps.sh test without root names the missing package and fails"
else echo "not ok $n - deps.sh test without root names the missing package and fails"; echo "# rc=$rc got: $out"; bad=1; fi
n=$((n + 1)); out=$(PATH="$fake:$PATH" tools/deps.sh run 2>&1)
if ! grep -q chromium <<<"$out"; then echo "ok $n - deps.sh run does not ask for the browser"
else echo "not ok $n - deps.sh run does not ask for the browser"; echo "# got: $out"; bad=1; fi
# The worker's kernels are built for Turing, Ampere and Hopper, plus PTX: the
# nvcc command lines say so, and so does the object (its embedded ptxas
# options; cuobjdump --list-elf where the toolkit ships it).
n=$((n + 1))
if [ "$(make --no-print-directory -s print-MODE)" != cuda ]; then
  echo "ok $n - kernels for sm_75, sm_80, sm_90 # SKIP no nvcc: CPU mode"
else
  want="arch=compute_75,code=sm_75 arch=compute_80,code=sm_80 arch=compute_90,code=compute_90 arch=compute_90,code=sm_90"
  got=$(make --no-print-directory -s print-CUDA_ARCH | grep -o "arch=compute_[0-9]*,code=[a-z_0-9]*" | sort -u | tr '\n' ' ')
  build=$(make --no-print-directory -s print-BUILD); obj="$build/obj/kernels/timing.o"
  elf=""
  if command -v cuobjdump >/dev/null && [ -f "$build/bin/gpulab-worker" ]; then
    elf=$(cuobjdump --list-elf "$build/bin/gpulab-worker" | grep -o "sm_[0-9]*" | sort -u | tr '\n' ' ')
  elif [ -f "$obj" ]; then
    elf=$(strings -a "$obj" | grep -o -- "-arch sm_[0-9]*" | sed 's/-arch //' | sort -u | tr '\n' ' ')
  fi
  if [ "${got% }" = "$want" ] && { [ -z "$elf" ] || [ "${elf% }" = "sm_75 sm_80 sm_90" ]; }; then
    echo "ok $n - kernels for sm_75, sm_80, sm_90 (+ compute_90 PTX)${elf:+: $elf}"
  else echo "not ok $n - kernels for sm_75, sm_80, sm_90"; echo "# gencode: $got; in the object: $elf"; bad=1; fi
fi
exit $bad
