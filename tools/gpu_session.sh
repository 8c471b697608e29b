#!/usr/bin/env bash
# A GPU session in a few commands, run from a bundle (make bundle) on a
# machine with an NVIDIA GPU, CUDA and (for the peer) PyTorch, and nothing
# else of gpulab's: every phase writes under OUT and prints a short summary.
# Each phase fits one 10-minute device call; `all` runs them in turn.
#
#   suite      tests/gpu/run.sh: every GPU test + compute-sanitizer memcheck
#   runs       every experiment on the GPU (runs/), the same with the built-in
#              profile PROFILE (sim/), gpulab calibrate --out calibrated.json
#   record     tools/record.sh into OUT/recorded (commit it as web/recorded)
#   kit        the measurement kit (kit/measure.py) on this GPU: its file
#              (kit.json, kit.trace.json), gpulab compare on it, PyTorch
#              beside gpulab (compare.txt, compare.json), and the run kept
#              as recordings (OUT/recorded-kit)
#   cold       cold start and footprint: worker vs PyTorch (cold.json)
#   claims     every lesson claim that holds on every profile, run on this GPU
#              (bin/claimcheck --gpu: claims.tap)
#
# Usage: tools/gpu_session.sh PHASE [OUT] [PROFILE]   (OUT defaults to $OUT,
# then ./gpu-session; PROFILE to h100-sxm)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
phase=${1:?phase: suite runs record kit cold claims all}
out=${2:-${OUT:-gpu-session}}
profile=${3:-h100-sxm}
bin=bin/gpulab
mkdir -p "$out"
experiments() { "$bin" experiments --names; }

suite() {
  "$bin" device >"$out/device.txt" 2>&1
  "$bin" device --json >"$out/device.json" 2>/dev/null
  tests/gpu/run.sh . >"$out/suite.log" 2>&1
  local rc=$?
  grep -E '^not ok' "$out/suite.log" | head -20
  echo "suite: $(tail -1 "$out/suite.log") (exit $rc; log $out/suite.log)"
  return $rc
}

runs() {
  mkdir -p "$out/runs" "$out/sim"
  local bad=0
  for name in $(experiments); do
    if ! timeout 300 "$bin" run "$name" --backend cuda --json >"$out/runs/$name.json" 2>"$out/runs/$name.err"; then
      echo "runs: $name failed: $(head -c 300 "$out/runs/$name.json" "$out/runs/$name.err" | tr '\n' ' ')"; bad=1
    fi
    "$bin" run "$name" --backend simulated --profile "$profile" --json >"$out/sim/$name.json" 2>/dev/null
  done
  timeout 300 "$bin" calibrate --out "$out/calibrated.json" >"$out/calibrate.txt" 2>&1 || bad=1
  tail -15 "$out/calibrate.txt"
  echo "runs: $(ls "$out/runs"/*.json | wc -l) experiments in $out/runs; calibrated profile $out/calibrated.json"
  return $bad
}

record() { tools/record.sh . "$out/recorded"; }

# The lessons' claims (build/claims.json, lessons/README.md) on the real GPU:
# those that hold on every profile must hold here too; the others name some
# profiles only and are skipped.
claims() {
  bin/claimcheck --gpu "$bin" claims.json >"$out/claims.tap" 2>&1
  local rc=$?
  grep -E '^not ok' "$out/claims.tap" | head -20
  echo "claims: $(grep -E '^# (pass|fail|todo|skipped) ' "$out/claims.tap" | sed 's/^# //' | paste -sd, -) (exit $rc; log $out/claims.tap)"
  return $rc
}

# The kit checks its own environment first, then runs every experiment the
# GPU supports at gpulab's defaults (about 5 minutes on a T4); its file is
# the learner's format, so gpulab compare reads it as a learner's.
kit() {
  timeout 480 python3 kit/measure.py --out "$out/kit.json" --trace "$out/kit.trace.json" >"$out/kit.log" 2>&1
  local rc=$?
  grep -E '^\[|FAILED|Wrote' "$out/kit.log" | tail -16
  [ -s "$out/kit.json" ] || { echo "kit: no file written (exit $rc; log $out/kit.log)"; return 1; }
  "$bin" compare "$out/kit.json" >"$out/kit_compare.txt" 2>&1
  "$bin" compare "$out/kit.json" --json >"$out/kit_compare.json" 2>/dev/null
  grep -E 'IMPLAUSIBLE|physically impossible|does NOT hold' "$out/kit_compare.txt" | head -20
  python3 tools/record_kit.py "$out/kit.json" "$out/recorded-kit" >/dev/null
  python3 bench/gpu_compare.py "$out" "$profile" | tee "$out/compare.txt"
  return $rc
}

cold() {
  python3 bench/cold_peer.py . >"$out/cold.json" 2>"$out/cold.err"
  python3 - "$out/cold.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k, v in d.items():
    if isinstance(v, dict):
        print(f"  {k:28s} wall {v['wall_ms_median']:8.1f} ms (min {v['wall_ms_min']:.1f}, max {v['wall_ms_max']:.1f}), "
              f"peak RSS {v['max_rss_mib']:7.1f} MiB, exit {v['rc']}")
print("  method:", d["method"])
PY
}

case "$phase" in
  suite | runs | record | kit | cold | claims) "$phase" ;;
  all) rc=0; for p in suite runs record kit cold claims; do "$p" || rc=1; done; exit $rc ;;
  *) echo "gpu_session: unknown phase '$phase' (suite runs record kit cold claims all)" >&2; exit 2 ;;
esac
