#!/usr/bin/env bash
# `make record`: runs every experiment on the GPU and saves each result as a
# "recorded" envelope (device, driver, CUDA version, date) in web/recorded/,
# which the offline client replays and labels "recorded on …".
# Usage: tools/record.sh BUILD [OUT]   (needs a usable GPU; OUT defaults to
# web/recorded). In a bundle (make bundle) run it from the bundle's root as
# tools/record.sh . OUT: it needs only the bundled gpulab and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-web/recorded}
bin="$build/bin/gpulab"
dev=$("$bin" device --json)
python3 -c 'import json,sys; sys.exit(0 if json.loads(sys.argv[1])["verdict"]["usable"] else 1)' "$dev" || {
  echo "record: no usable GPU here: $("$bin" device | grep Verdict)" >&2; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for name in $("$bin" experiments --names); do
  "$bin" run "$name" --backend cuda --json >"$tmp/$name.json" || { echo "record: $name failed" >&2; continue; }
  python3 - "$name" "$dev" "$tmp/$name.json" "$out" <<'PY'
import json, sys, datetime
name, dev, path, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], sys.argv[4]
env = json.load(open(path))
env["backend"] = "recorded"
gpu = (dev["runtime"]["devices"] or [{}])[0]
env["recorded"] = {
    "device": gpu.get("name"), "compute_capability": gpu.get("compute_capability"),
    "driver_version": dev["driver"].get("driver_version"), "cuda_runtime": dev["runtime"].get("runtime_version"),
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
}
json.dump(env, open(f"{out}/{name}.json", "w"), indent=1)
print(f"record: {out}/{name}.json ({env['recorded']['device']}, {env['recorded']['date']})")
PY
done
ls "$out"/*.json | python3 -c 'import json,sys,os; json.dump({"recorded":[os.path.basename(l.strip())[:-5] for l in sys.stdin if not l.strip().endswith("index.json")]}, open(sys.argv[1] + "/index.json","w"))' "$out"
