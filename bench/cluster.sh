#!/usr/bin/env bash
# A simulated course, twice in one run (a ratio, not a number alone):
#   cluster: PostgreSQL (its default durability), 2 servers behind HAProxy
#            (deploy/haproxy.cfg), 4 `gpulab worker` processes and a fifth
#            with no usable GPU (it must take no run: acknowledged vs done);
#   one:     1 server with SQLite and its 4 in-process GPU slots (--gpus 0,1,2,3);
# both with the test-only fake GPU (every run takes CLUSTER_GPU_MS) and the
# same load (bench/cluster_load.mjs): CLUSTER_LEARNERS learners (500)
# arriving over 5 s from 250 loopback addresses, each running CLUSTER_RUNS
# (2) GPU experiments in turn and polling each once a second. Reports
# runs/s, p50/p99 queue wait, the spread of learners' mean waits, refusals,
# and that every acknowledged run ran exactly once (the fake GPU's log).
# Needs root (the PostgreSQL fixture); otherwise it says it skipped.
# Usage: bench/cluster.sh BUILD
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$build/bin/gpulab
source tests/scale/fixtures.sh
why=$(fx_missing)
if [ -n "$why" ]; then echo "  cluster bench skipped: $why"; exit 0; fi
learners=${CLUSTER_LEARNERS:-500} runs=${CLUSTER_RUNS:-2} ms=${CLUSTER_GPU_MS:-100}
dir=$(mktemp -d /tmp/gpulab-bench-XXXXXX)
pids=()
stop_all() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  pids=()
}
cleanup() { stop_all; fx_pg_stop immediate; rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$dir/web" && echo '<!doctype html><title>bench</title>' >"$dir/web/index.html"
export GPULAB_TEST_HOOKS=1 GPULAB_FAKE_GPU_MS=$ms GPULAB_INSTRUCTOR_TOKEN=bench-instructor-token-0123456789
code=BNCH-CLST

# serve NAME ARGS...: starts a server; sets port_NAME once it prints its join code.
serve() {
  local name=$1; shift
  # The whole course joins within RAMP_S: a join window that holds it (at most 1000, its bound).
  "$bin" serve --host 127.0.0.1 --port 0 --root "$dir/web" --join-code $code --class-size $((learners < 1000 ? learners : 1000)) \
    "$@" >"$dir/$name.out" 2>"$dir/$name.err" &
  pids+=($!)
  fx_wait 20 grep -q 'join code' "$dir/$name.out" || { echo "  $name did not start:"; tail -5 "$dir/$name.err"; exit 1; }
  printf -v "port_$name" '%s' "$(grep -o 'http://127.0.0.1:[0-9]*' "$dir/$name.out" | grep -o '[0-9]*$')"
}
alive() { # PORT N: the server sees N live workers
  curl -s "http://127.0.0.1:$1/api/health" | python3 -c "import json,sys; sys.exit(0 if len(json.load(sys.stdin).get('workers',[]))==$2 else 1)"
}

echo "Cluster (a simulated course on this machine, $(nproc) cores: $learners learners x $runs GPU runs of ${ms} ms on the fake GPU, 4 GPUs)"
# 1. PostgreSQL + 2 servers + HAProxy + 4 workers
fx_pg_start "$dir" >/dev/null || exit 1
psql -h 127.0.0.1 -p "$PGPORT_FX" -U postgres -qc 'CREATE DATABASE bench' || exit 1
uri=postgresql://postgres@127.0.0.1:$PGPORT_FX/bench
serve a --store "$uri" --workers none --trusted-proxy 127.0.0.1
serve b --store "$uri" --workers none --trusted-proxy 127.0.0.1
for i in 1 2 3 4; do
  GPULAB_STORE=$uri GPULAB_FAKE_GPU_LOG=$dir/cluster.ran "$bin" worker >"$dir/w$i.out" 2>"$dir/w$i.err" &
  pids+=($!)
done
# The fifth: no fake GPU and a device CUDA does not know, so no usable GPU on any machine.
env -u GPULAB_FAKE_GPU_MS CUDA_VISIBLE_DEVICES=GPU-no-such-device GPULAB_STORE=$uri "$bin" worker \
  >"$dir/bad.out" 2>"$dir/bad.err" &
pids+=($!)
lb=$(fx_port)
node tests/scale/haproxy_cfg.mjs "$lb" "$port_a" "$port_b" >"$dir/haproxy.cfg"
haproxy -db -f "$dir/haproxy.cfg" >"$dir/haproxy.log" 2>&1 &
pids+=($!)
fx_wait 30 alive "$port_a" 5 && fx_wait 30 alive "$port_b" 5 && fx_wait 10 curl -sf "http://127.0.0.1:$lb/api/health" ||
  { echo "  the cluster did not come up"; exit 1; }
node bench/cluster_load.mjs "http://127.0.0.1:$lb" $code "$learners" "$runs" "$dir/cluster.ran" >"$dir/cluster.json" ||
  { echo "  cluster load failed"; exit 1; }
# What the unusable worker took (it must be nothing), and the GPU runs done.
bad=$(grep -o 'gpulab worker [0-9]*' "$dir/bad.out" | grep -o '[0-9]*$')
psql -h 127.0.0.1 -p "$PGPORT_FX" -U postgres -d bench -At -F ' ' -c \
  "SELECT count(*) FILTER (WHERE status = 'done'), count(*) FILTER (WHERE worker_id = ${bad:-0} OR handed_back_by = ${bad:-0})
   FROM runs WHERE backend = 'cuda'" >"$dir/bad.txt"
stop_all
fx_pg_stop fast

# 2. one server, SQLite, 4 in-process GPU slots
GPULAB_FAKE_GPU_LOG=$dir/one.ran serve one --db "$dir/class.db" --gpus 0,1,2,3
node bench/cluster_load.mjs "http://127.0.0.1:$port_one" $code "$learners" "$runs" "$dir/one.ran" >"$dir/one.json" ||
  { echo "  one-server load failed"; exit 1; }
stop_all

python3 - "$dir/cluster.json" "$dir/one.json" "$dir/bad.txt" <<'PY'
import json, sys
c, o = (json.load(open(p)) for p in sys.argv[1:3])
done, by_bad = (int(x) for x in open(sys.argv[3]).read().split())
def row(name, f, unit=""):
    a, b = f(c), f(o)
    r = f"{a / b:5.2f}x" if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b else "  -  "
    print(f"  {name:44s} {a!s:>10}{unit} {b!s:>10}{unit}   {r}")
print(f"  {'':44s} {'cluster':>10} {'one':>10}   cluster/one")
row("runs per second", lambda d: d["runs_per_s"])
row("runs done / wall time (s)", lambda d: f"{d['runs']}/{d['wall_s']}")
row("queue wait p50 (ms)", lambda d: d["wait_p50_ms"])
row("queue wait p99 (ms)", lambda d: d["wait_p99_ms"])
row("learners' mean wait p10 (ms)", lambda d: d["learner_mean_wait_ms"]["p10"])
row("learners' mean wait p50 (ms)", lambda d: d["learner_mean_wait_ms"]["p50"])
row("learners' mean wait p90 (ms)", lambda d: d["learner_mean_wait_ms"]["p90"])
row("learners' mean wait max (ms)", lambda d: d["learner_mean_wait_ms"]["max"])
for name, d in (("cluster", c), ("one", o)):
    once = d["once"] or {}
    print(f"  {name}: {once.get('acknowledged')} acknowledged, {once.get('ran_exactly_once')} ran exactly once, "
          f"{once.get('ran_not_once')} not, {once.get('unacknowledged_ran')} unacknowledged ran; "
          f"failed {d['problem_count']}; refusals {d['refusals'] or 'none'}")
acked = (c["once"] or {}).get("acknowledged")
print(f"  cluster with one unusable worker: {acked} acknowledged, {done} done, {by_bad} taken by the unusable worker")
ok = all((d["once"] or {}).get("ran_not_once", 1) == 0 and d["problem_count"] == 0 for d in (c, o)) and by_bad == 0 \
    and done == acked
print(f"  every acknowledged run done exactly once: {'yes' if ok else 'NO'}")
sys.exit(0 if ok else 1)
PY
