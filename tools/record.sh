#!/usr/bin/env bash
# `make record`: runs every experiment on the GPU and saves each result as a
# "recorded" envelope (device, driver, CUDA version, date) in web/recorded/,
# which the offline client replays and labels "recorded on …"
# (tools/record_runs.py labels them). Usage: tools/record.sh BUILD [OUT]
# (needs a usable GPU; OUT defaults to web/recorded). The GPU lease
# (tools/gpu_session.sh) records the runs it already made instead.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-web/recorded}
bin="$build/bin/gpulab"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" device --json >"$tmp/device.json"
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["verdict"]["usable"] else 1)' "$tmp/device.json" || {
  echo "record: no usable GPU here: $("$bin" device | grep Verdict)" >&2; exit 1; }
mkdir -p "$tmp/runs"
for name in $("$bin" experiments --names); do
  "$bin" run "$name" --backend cuda --json >"$tmp/runs/$name.json" || echo "record: $name failed" >&2
done
python3 tools/record_runs.py "$tmp/device.json" "$tmp/runs" "$out"
