#!/usr/bin/env bash
# The scale stage: a class on a cluster, with real components — one
# PostgreSQL and a one-node Slurm with 2 fake GPUs started here for the
# whole stage (always stopped, see the trap), then the tests in
# tests/scale/*.test.mjs, each with its own database, servers, GPU workers
# and HAProxy. TAP output. Where it cannot run (no root, a component
# missing) it says so as one skipped test, with the reason.
# Usage: tests/scale/run.sh BUILD [TEST_FILE...]   (default: every test file)
#
# The files run in GPULAB_SCALE_STREAMS streams (default 2, at most 4),
# one file at a time in each: the tests mostly wait (heartbeats, failovers,
# restarts), so two streams take about half the time. Each stream has a
# PostgreSQL of its own (a test stops and starts it, or reloads its
# pg_hba.conf), and the files that use the Slurm fixture (they name
# SLURM_CONF) all run in the first; the others are taken from one queue,
# largest file first, by whichever stream is free. A file's TAP is printed
# whole when it ends.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(tests/scale/*.test.mjs)
streams=${GPULAB_SCALE_STREAMS:-2}
case "$streams" in [1-4]) ;; *) echo "GPULAB_SCALE_STREAMS must be 1 to 4, not '$streams'" >&2; exit 2 ;; esac
[ ${#files[@]} -lt "$streams" ] && streams=${#files[@]}
source tests/scale/fixtures.sh
why=$(fx_missing)
if [ -n "$why" ]; then
  echo "1..1"
  echo "ok 1 - scale stage # SKIP $why"
  exit 0
fi
dir=$(mktemp -d /tmp/gpulab-scale-XXXXXX)
chmod 755 "$dir" # PostgreSQL (its own user) reaches its folders below
export SLURM_CONF=$dir/cluster/slurm/slurm.conf
touch "$dir/started"
pg_dirs=() pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do pkill -TERM -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
  fx_slurm_stop
  local d
  for d in "${pg_dirs[@]}"; do PGDATA_FX=$d/pg/data fx_pg_stop immediate; done
  # The workers' Slurm logs (sbatch --output=/tmp/%x-%j.log, where a node
  # keeps them): this stage's, written since it started.
  find /tmp -maxdepth 1 -name 'gpulab-worker-*.log' -newer "$dir/started" -delete 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# The fixtures at once: each takes about a second.
fx_slurm_start "$dir/cluster" 2 >"$dir/slurm.log" 2>&1 &
slurm_pid=$!
pg_ports=()
for ((i = 0; i < streams; i++)); do
  pg_dirs+=("$dir/s$i")
  if ! fx_pg_start "$dir/s$i" fast; then
    echo "1..1"; echo "not ok 1 - PostgreSQL fixture did not start"; exit 1
  fi
  pg_ports+=("$PGPORT_FX")
done
if ! wait $slurm_pid; then
  echo "1..1"; echo "not ok 1 - Slurm fixture did not start"; sed 's/^/# /' "$dir/slurm.log"; exit 1
fi

# The queue: every file but the Slurm fixture's, largest first.
first=() rest=()
for f in "${files[@]}"; do
  if grep -q SLURM_CONF "$f"; then first+=("$f"); else rest+=("$f"); fi
done
[ ${#rest[@]} -gt 0 ] && ls -S "${rest[@]}" >"$dir/queue"
touch "$dir/queue"
take() { # prints the queue's next file and removes it (nothing when it is empty)
  flock "$dir/queue.lock" bash -c 'head -1 "$1"; sed -i 1d "$1"' take "$dir/queue"
}
run_file() { # stream file: runs one file on the stream's PostgreSQL; prints its TAP whole when it ends
  local i=$1 f=$2 log rc
  log=$(mktemp "$dir/tap-XXXXXX")
  GPULAB_SCALE_PG_PORT=${pg_ports[$i]} GPULAB_SCALE_DIR=$dir/s$i PGDATA_FX=$dir/s$i/pg/data PGPORT_FX=${pg_ports[$i]} \
    PGBIN_FX=$PGBIN_FX GPULAB_BIN="$build/bin/gpulab" \
    node --test --test-concurrency=1 --test-reporter=tap "$f" >"$log" 2>&1
  rc=$?
  flock "$dir/out.lock" cat "$log"
  return $rc
}
stream() { # stream [file...]: the files given, then the queue's until it is empty; fails if any file failed
  local i=$1 rc=0 f
  shift
  for f in "$@"; do run_file "$i" "$f" || rc=1; done
  while f=$(take) && [ -n "$f" ]; do run_file "$i" "$f" || rc=1; done
  return $rc
}
stream 0 "${first[@]}" &
pids+=($!)
for ((i = 1; i < streams; i++)); do
  stream "$i" &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
exit $rc
