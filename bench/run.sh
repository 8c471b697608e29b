#!/usr/bin/env bash
# `make bench`: figures as ratios against a peer measured in the same run.
#  1. API: requests/s of GET /api/device and of a simulated run, each beside
#     a static file served by the same server (the peer), with wrk on loopback.
#  2. Class load (bench/load.sh): 50 learners, throughput, p50/p99, none lost;
#     the class-start surge (bench/class_surge.mjs): 300 learners joining in
#     60 s from one address and from 300; a course on a cluster (bench/cluster.sh): 500 learners on 2 servers
#     behind HAProxy with PostgreSQL and 4 workers, beside one SQLite server.
#  3. Simulator: median wall time of each experiment's simulation over 7 runs
#     of the CLI, beside `gpulab version` (process start-up, the peer); the
#     training planner's time per plan beside the simulated memory
#     experiment's, in the same sim_bench run (budget: under 1 ms a plan).
#  4. CPU sgemm (crossover's CPU side) beside numpy's on the same machine;
#     gpulab doctor beside json.load; a simulated run and /api/health while
#     the readers are busy, beside the same idle (bench/reader_load.mjs).
#     the readers' CPU per MiB (explain, doctor) beside memchr and zlib;
#     the device check beside process start-up and the GPU worker.
#  5. The browser client: first-load bytes on the wire per response, the
#     page's own ready stamp, its long tasks (wall and CPU time) and
#     Lighthouse's mobile score and TBT, each beside a static page of the
#     same lesson (bench/client.mjs); every experiment's
#     simulation in wasm beside native; the SIMD sgemm kernel beside the
#     naive loop, natively and in wasm (bench/gemm_bench.c).
# Usage: bench/run.sh BUILD
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin="$build/bin/gpulab"
dur=${BENCH_SECONDS:-3}
out=$(mktemp); trap 'kill $pid 2>/dev/null || true; rm -f "$out" /tmp/gpulab-bench-post.lua' EXIT
"$bin" serve --host 127.0.0.1 --port 0 >"$out" 2>/dev/null & pid=$!
for _ in $(seq 50); do grep -q listening "$out" && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$out")
rps() { wrk -t2 -c16 -d"${dur}s" "$@" 2>/dev/null | awk '/Requests\/sec/ {print $2}'; }
cat >/tmp/gpulab-bench-post.lua <<'LUA'
wrk.method = "POST"
wrk.body = '{"backend":"simulated","params":{}}'
wrk.headers["Content-Type"] = "application/json"
LUA
echo "gpulab bench — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, wrk -t2 -c16 -d${dur}s on loopback"
static=$(rps "$url/index.html")
device=$(rps "$url/api/device")
sim=$(rps -s /tmp/gpulab-bench-post.lua "$url/api/experiments/device")
printf '  %-38s %10s req/s\n' "GET /index.html (peer)" "$static" "GET /api/device" "$device" \
  "POST /api/experiments/device (sim)" "$sim"
awk -v a="$device" -v b="$sim" -v p="$static" 'BEGIN {printf "  ratio to peer: /api/device %.2f, simulated run %.2f\n", a/p, b/p}'
kill $pid; wait $pid 2>/dev/null || true

# 2. Class mode under load: 50 learners polling their runs and submitting
#    simulated runs, with p50/p99 latency and a check that none was lost.
bench/load.sh "$build" "${LOAD_SECONDS:-10}"
node bench/class_surge.mjs "$build"
bench/cluster.sh "$build"

median_ms() { # command... → median wall ms of 7 runs
  for _ in 1 2 3 4 5 6 7; do
    s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000 ))
  done | sort -n | sed -n 4p | awk '{printf "%.2f", $1/1000}'
}
peer=$(median_ms "$bin" version)
echo "  CLI: median of 7 wall times; peer 'gpulab version' = $peer ms"
for name in $("$bin" experiments --names); do
  t=$(median_ms "$bin" run "$name" --backend simulated --json)
  awk -v n="$name" -v t="$t" -v p="$peer" 'BEGIN {printf "  %-38s %8.2f ms  (%.1fx peer)\n", "run " n " --backend simulated", t, t/p}'
done

# CPU sgemm: what crossover times (lab/sim/cpu_gemm.h) beside numpy's float32
# matmul on the same machine, timed the same way (bench/numpy_peer.py).
# Five rounds, gpulab and numpy alternating, so both see the same load;
# each side's best median per size is compared (a busy machine only ever
# slows a run down). Budget: gpulab at least 0.8x numpy's speed.
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo "CPU sgemm: gpulab's crossover CPU side vs numpy (Debian python3-numpy), best of 5 alternating rounds of medians, same inputs and method"
  runs=()
  for _ in 1 2 3 4 5; do
    runs+=("$("$bin" run crossover --backend simulated --max_size=1024 --samples=7 --json)")
    runs+=("$(/usr/bin/python3 bench/numpy_peer.py 256 512 1024)")
  done
  /usr/bin/python3 - "${runs[@]}" <<'PY'
import json, sys
rounds = [json.loads(a) for a in sys.argv[1:]]
gs, ps = rounds[0::2], rounds[1::2]
cpu = next(s for s in gs[0]["series"] if s["id"] == "cpu")
ms = {}
for g in gs:
    for n, t in next(s for s in g["series"] if s["id"] == "cpu")["points"]:
        ms[int(n)] = min(ms.get(int(n), t), t)
p = {k: min(q[k] for q in ps) for k in ("256", "512", "1024")}
p["blas"] = ps[0]["blas"]
print(f"  gpulab: {cpu['label']}; numpy: {p['blas']}")
worst = None
for n in (256, 512, 1024):
    gf = lambda t: 2 * n ** 3 / (t * 1e6)
    r = p[str(n)] / ms[n]
    worst = r if worst is None else min(worst, r)
    print(f"  N = {n:5d}  gpulab {ms[n]:8.3f} ms ({gf(ms[n]):6.1f} GFLOPS)   numpy {p[str(n)]:8.3f} ms ({gf(p[str(n)]):6.1f} GFLOPS)   gpulab/numpy speed {r:4.2f}x")
print(f"  slowest ratio {worst:.2f}x (budget 0.8x: {'met' if worst >= 0.8 else 'MISSED'})")
PY
else
  echo "  CPU sgemm bench skipped: numpy not installed for /usr/bin/python3 (make deps installs python3-numpy)"
fi

# gpulab doctor reads a large trace in bounded memory; the peer is Python's
# json.load of the same file (bench/doctor_bench.py); then the page's reader
# (#doctor) reads it in headless Chromium (bench/doctor_browser.mjs).
# DOCTOR_BENCH_MB sets the size.
/usr/bin/python3 bench/doctor_bench.py "$bin" "${DOCTOR_BENCH_MB:-500}"

# The readers as runs (server/api/reader_run.h): a simulated run and
# /api/health idle (the peer), during 20 learners' traces and during the
# slow-upload attack of issue 32; p50/p99, the ratio to idle, CPU and RSS.
node bench/reader_load.mjs "$build"

# The readers' CPU per MiB (bench/reader_bench.c): the explainer per
# recogniser on its own messages and on its worst paste, beside memchr
# walking the same bytes by lines; the doctor plain and through the gzip
# path, beside zlib's inflate of the same .gz. Then the device check
# beside the process start-up and the GPU worker asked directly (the old
# path), wall time and peak RSS (bench/readers.py).
python3 bench/readers.py "$build" "${READER_BENCH_MB:-64}"

# On a GPU machine: real runs beside PyTorch's, in the same run.
if "$bin" device --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["verdict"]["usable"] else 1)'; then
  bench/gpu.sh "$build"
else
  echo "  GPU bench skipped: $("$bin" device | sed -n 's/^Verdict: //p')"
fi

# The browser client: first-load bytes, ready time and Lighthouse (Chromium),
# and the simulator in WebAssembly beside the same C compiled natively.
if [ -x /usr/bin/chromium ] && [ -f "$build/web/gpulab.wasm" ]; then
  echo "Client (headless Chromium, loopback)"
  node bench/client.mjs "$build"
  GPULAB_BIN="$bin" node bench/plan_page.mjs
fi
if [ -x "$build/bench/sim_bench" ] && [ -f "$build/bench/sim_bench.js" ]; then
  native=$("$build/bench/sim_bench" 5); wasm=$(node --no-experimental-fetch "$build/bench/sim_bench.js" 5)
  python3 - "$native" "$wasm" <<'PY'
import json, sys
n, w = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("Simulator speed: ms per simulation, median of 5 batches of >= 20 ms (each its median call) after a")
print("warm-up batch, wasm in node vs native; every experiment at its defaults on h100-sxm")
print(f"  {'experiment':12s} {'native ms':>10s} {'wasm ms':>10s} {'wasm/native':>12s}")
plans = ("plan", "plan_answer")
for k in n:
    r = w[k] / n[k]
    print(f"  {k:12s} {n[k]:10.4f} {w[k]:10.4f} {r:11.2f}x{'  (above 1.5x)' if r > 1.5 else ''}")
tot = sum(w[k] for k in n if k not in plans) / sum(n[k] for k in n if k not in plans)
print(f"  all experiments together: wasm/native {tot:.2f}x (budget 2x: {'met' if tot <= 2 else 'MISSED'})")
g = w["graphs"] / n["graphs"]
print(f"  graphs: wasm/native {g:.2f}x (budget 1.5x: {'met' if g <= 1.5 else 'MISSED'})")
p = n["plan"]
print(f"  the training planner natively: one plan {p:.4f} ms (budget 1 ms: {'met' if p < 1 else 'MISSED'}), "
      f"{p / n['memory']:.2f}x the simulated memory experiment; the whole answer (a dozen plans) {n['plan_answer']:.3f} ms")
PY
elif [ -x "$build/bench/sim_bench" ]; then
  python3 - "$("$build/bench/sim_bench" 5)" <<'PY'
import json, sys
n = json.loads(sys.argv[1])
p = n["plan"]
print(f"The training planner natively (no wasm build): one plan {p:.4f} ms (budget 1 ms: {'met' if p < 1 else 'MISSED'}), "
      f"{p / n['memory']:.2f}x the simulated memory experiment; the whole answer {n['plan_answer']:.3f} ms")
PY
fi
# crossover's CPU side where there is no BLAS (the browser): the SIMD
# kernel beside the naive triple loop, natively and in wasm, in one run.
if [ -x "$build/bench/gemm_bench" ] && [ -f "$build/bench/gemm_bench.js" ]; then
  native=$("$build/bench/gemm_bench"); wasm=$(node --no-experimental-fetch "$build/bench/gemm_bench.js")
  python3 - "$native" "$wasm" <<'PY'
import json, sys
n, w = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("CPU sgemm without BLAS: GFLOPS (2*N^3 flop over the median of 5 batches of >= 20 ms), one thread")
print(f"  {'N':>5s} {'naive':>8s} {'SIMD':>8s} {'ratio':>7s}   {'wasm naive':>10s} {'wasm SIMD':>10s} {'ratio':>7s}   {'wasm/native SIMD':>16s}")
for k in n["tuned"]:
    a, b, c, d = n["naive"][k], n["tuned"][k], w["naive"][k], w["tuned"][k]
    print(f"  {k:>5s} {a:8.2f} {b:8.2f} {b / a:6.1f}x   {c:10.2f} {d:10.2f} {d / c:6.1f}x   {d / b:15.2f}x")
PY
fi
