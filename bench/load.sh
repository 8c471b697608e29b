#!/usr/bin/env bash
# Load test on loopback: a class server (its own temporary database), 50
# learners joined, then wrk with 50 connections for a bounded time, each
# request from the next learner: 4 in 5 poll GET /api/runs/ID (their own
# run), 1 in 5 submits a simulated run (answered at once and stored).
# Reports throughput, p50/p99 latency and that no request was lost
# (non-2xx answers and socket errors must both be 0; exit 1 otherwise).
# Usage: bench/load.sh BUILD [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
dur=${2:-${LOAD_SECONDS:-10}}
bin="$build/bin/gpulab"
learners=50
command -v wrk >/dev/null || { echo "  load test skipped: wrk is not installed (apt install wrk)"; exit 0; }
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
mkdir "$tmp/web" && echo '<!doctype html><title>load</title>' >"$tmp/web/index.html"
# The learners' own limits are raised to their bounds and the one client
# address may hold every connection: this measures the server's
# throughput, not its refusals (each learner sends several simulated runs
# a second here, past the default 30 a minute).
"$bin" serve --host 127.0.0.1 --port 0 --root "$tmp/web" --db "$tmp/class.db" --join-code BNCH-TEST \
  --max-connections 64 --max-connections-per-address 64 --sim-runs-per-minute 6000 --sim-cpu-seconds 3600 >"$tmp/out" 2>"$tmp/err" & pid=$!
for _ in $(seq 100); do grep -q 'join code' "$tmp/out" && break; sleep 0.05; done
url=$(grep -o 'http://[^ ]*' "$tmp/out" || true)
[ -n "$url" ] || { echo "  load test: the class server did not start:"; sed 's/^/    /' "$tmp/err"; exit 1; }
# Each learner: join (cookie), one simulated run, and that run's id.
{
  echo "learners = {"
  for i in $(seq $learners); do
    cookie=$(curl -s -D - -o /dev/null -H 'Content-Type: application/json' \
      -d "{\"code\":\"BNCH-TEST\",\"name\":\"learner $i\"}" "$url/api/class/join" |
      sed -n 's/^[Ss]et-[Cc]ookie: \(gpulab_session=[0-9a-f]*\).*/\1/p')
    curl -s -o /dev/null -H "Cookie: $cookie" -H 'Content-Type: application/json' \
      -d '{"backend":"simulated"}' "$url/api/experiments/device"
    run=$(curl -s -H "Cookie: $cookie" "$url/api/session" | python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["id"])')
    echo "  {cookie = \"$cookie\", run = $run},"
  done
  echo "}"
  cat <<'LUA'
local n = 0
request = function()
  n = n + 1
  local l = learners[(n % #learners) + 1]
  if n % 5 == 0 then
    return wrk.format("POST", "/api/experiments/device",
      {["Cookie"] = l.cookie, ["Content-Type"] = "application/json"}, '{"backend":"simulated"}')
  end
  return wrk.format("GET", "/api/runs/" .. l.run, {["Cookie"] = l.cookie})
end
LUA
} >"$tmp/load.lua"
rss_before=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
wrk -t2 -c50 -d"${dur}s" --latency -s "$tmp/load.lua" "$url" >"$tmp/wrk" 2>&1
rss_after=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
rps=$(awk '/Requests\/sec/ {print $2}' "$tmp/wrk")
total=$(awk '/requests in/ {print $1}' "$tmp/wrk")
p50=$(awk '$1 == "50%" {print $2}' "$tmp/wrk")
p99=$(awk '$1 == "99%" {print $2}' "$tmp/wrk")
non2xx=$(awk '/Non-2xx/ {print $NF}' "$tmp/wrk"); non2xx=${non2xx:-0}
sockerr=$(awk -F'[ ,]+' '/Socket errors/ {print $4 + $6 + $8 + $10}' "$tmp/wrk"); sockerr=${sockerr:-0}
echo "Class load (wrk -t2 -c50 -d${dur}s, $learners learners on loopback: 80% GET /api/runs/ID, 20% simulated runs stored)"
printf '  %-38s %10s req/s (%s requests)\n' "throughput" "$rps" "$total"
printf '  %-38s %10s / %s\n' "latency p50 / p99" "$p50" "$p99"
printf '  %-38s %10s non-2xx, %s socket errors\n' "lost requests" "$non2xx" "$sockerr"
printf '  %-38s %10s KiB -> %s KiB\n' "server RSS before / after" "$rss_before" "$rss_after"
if [ "$non2xx" != 0 ] || [ "$sockerr" != 0 ]; then
  echo "  LOST REQUESTS: see wrk's output:"; sed 's/^/    /' "$tmp/wrk"; exit 1
fi
