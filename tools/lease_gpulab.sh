#!/usr/bin/env bash
# gpulab as the GPU lease's claims step hands it to claimcheck --gpu
# (tools/gpu_session.sh): a run at the experiment's defaults is answered
# with the envelope the lease's runs step got minutes before on the same
# GPU (GPULAB_LEASE_RUNS/NAME.json, the run that becomes the recording),
# so the claims read the figures a learner will replay and the lease does
# not pay a fresh worker for it again; anything else goes to bin/gpulab.
gpulab=$(dirname "$(readlink -f "$0")")/../bin/gpulab
kept=${GPULAB_LEASE_RUNS:-}/${2:-}.json
if [ $# -eq 5 ] && [ "$1 $3 $4 $5" = "run --backend cuda --json" ] && [ -n "${GPULAB_LEASE_RUNS:-}" ] &&
  [[ "$2" =~ ^[a-z0-9_]+$ ]] && grep -qE '^\s*"backend":\s*"cuda",?$' "$kept" 2>/dev/null; then
  exec cat "$kept"
fi
exec "$gpulab" "$@"
