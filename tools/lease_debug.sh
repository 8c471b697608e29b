#!/usr/bin/env bash
# On the GPU machine, when a lease step shows "the GPU worker crashed": runs
# one experiment in the bundle's worker directly (the job on its stdin, no
# supervisor), says how it ended, then again under cuda-gdb for the stack
# where it stopped. Usage (from the bundle or the repository root):
#   tools/lease_debug.sh NAME [PARAMS_JSON] [WORKER]
# Each of its two runs gets GPULAB_DEBUG_S seconds at most (default 60).
set -u
cd "$(dirname "$0")/.."
name=${1:?usage: tools/lease_debug.sh NAME [PARAMS_JSON] [WORKER]}
params=${2:-"{}"}
worker=${3:-bin/gpulab-worker}
limit=${GPULAB_DEBUG_S:-60}
job=$(mktemp)
trap 'rm -f "$job"' EXIT
printf '{"job":"run","experiment":"%s","params":%s}\n' "$name" "$params" >"$job"
echo "debug: $worker on $(cat "$job")"
echo "debug: environment: $(env | grep -E '^(NVTX|CUDA_|LD_PRELOAD|LD_LIBRARY_PATH)' | tr '\n' ' ')"
timeout -k 2 "$limit" "$worker" <"$job" >"$job.out" 2>"$job.err"
rc=$?
echo "debug: exit $rc$([ $rc -gt 128 ] && echo " (signal $((rc - 128)))"); answer: $(head -c 400 "$job.out")"
echo "debug: stderr: $(tail -c 600 "$job.err")"
rm -f "$job.out" "$job.err"
if [ $rc -ne 0 ] && command -v cuda-gdb >/dev/null; then
  timeout -k 2 "$limit" cuda-gdb -q -batch -ex "run <$job >/dev/null" -ex 'bt 25' -ex 'x/4i $pc' --args "$worker" 2>&1 |
    grep -vE '^\[(New|Thread|Detaching|Inferior)|^warning: ' | tail -45
fi
exit 0
