#!/usr/bin/env bash
# The GPU the lease rehearsal (tests/tools/lease.sh) gives tools/gpu_session.sh
# on a machine without one: copied over a bundle's bin/gpulab, with the real
# binary beside it as bin/gpulab.real. Every command goes to the real gpulab
# with its test-only fake GPU on (server/worker/fake_gpu.h), so the device
# check finds a usable device named "gpulab fake GPU (test)" and calibrate
# runs through the worker; `run ... --backend cuda --json` is the
# simulator's envelope on the fake GPU's profile, h100-sxm, in this process
# (a fresh worker loads cuBLAS for a second or more, and the rehearsal makes
# a hundred runs), answered as a GPU run: backend "cuda", the device's name,
# no profile (sed on cJSON's printed layout, one key a line).
set -o pipefail
real=$(dirname "$(readlink -f "$0")")/gpulab.real
export GPULAB_TEST_HOOKS=1 GPULAB_FAKE_GPU_MS=0
args=() cuda=0
for a in "$@"; do
  case "$a" in
    --backend=cuda) cuda=1; args+=(--backend=simulated --profile=h100-sxm) ;;
    cuda) if [ "${args[-1]:-}" = --backend ]; then cuda=1; args+=(simulated --profile=h100-sxm); else args+=("$a"); fi ;;
    *) args+=("$a") ;;
  esac
done
[ "${1:-}" = run ] && [ $cuda = 1 ] && [[ " $* " == *" --json "* ]] || exec "$real" "$@"
"$real" "${args[@]}" | sed -e 's/^\t"backend":\t"simulated",$/\t"backend":\t"cuda",/' \
  -e '/^\t"device":\t{$/,/^\t},\{0,1\}$/ {
        s/^\t\t"name":\t"[^"]*"\(,\{0,1\}\)$/\t\t"name":\t"gpulab fake GPU (test)"\1/
        s/^\t\t"profile":\t"[^"]*"\(,\{0,1\}\)$/\t\t"profile":\tnull\1/
      }'
