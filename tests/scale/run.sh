#!/usr/bin/env bash
# The scale stage: a class on a cluster, with real components — one
# PostgreSQL and a one-node Slurm with 2 fake GPUs started here for the
# whole stage (always stopped, see the trap), then the tests in
# tests/scale/*.test.mjs, each with its own database, servers, GPU workers
# and HAProxy. TAP output. Where it cannot run (no root, a component
# missing) it says so as one skipped test, with the reason.
# Usage: tests/scale/run.sh BUILD [TEST_FILE...]   (default: every test file)
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(tests/scale/)
source tests/scale/fixtures.sh
why=$(fx_missing)
if [ -n "$why" ]; then
  echo "1..1"
  echo "ok 1 - scale stage # SKIP $why"
  exit 0
fi
dir=$(mktemp -d /tmp/gpulab-scale-XXXXXX)
export SLURM_CONF=$dir/cluster/slurm/slurm.conf
touch "$dir/started"
cleanup() {
  fx_slurm_stop
  fx_pg_stop immediate
  # The workers' Slurm logs (sbatch --output=/tmp/%x-%j.log, where a node
  # keeps them): this stage's, written since it started.
  find /tmp -maxdepth 1 -name 'gpulab-worker-*.log' -newer "$dir/started" -delete 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Both fixtures at once: each takes about a second.
fx_slurm_start "$dir/cluster" 2 >"$dir/slurm.log" 2>&1 &
slurm_pid=$!
if ! fx_pg_start "$dir" fast; then
  echo "1..1"; echo "not ok 1 - PostgreSQL fixture did not start"; exit 1
fi
if ! wait $slurm_pid; then
  echo "1..1"; echo "not ok 1 - Slurm fixture did not start"; sed 's/^/# /' "$dir/slurm.log"; exit 1
fi
export GPULAB_SCALE_PG_PORT=$PGPORT_FX GPULAB_SCALE_DIR=$dir PGDATA_FX PGBIN_FX PGPORT_FX
GPULAB_BIN="$build/bin/gpulab" node --test --test-concurrency=1 --test-reporter=tap "${files[@]}"
