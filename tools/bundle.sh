#!/usr/bin/env bash
# Packs a self-contained gpulab for a GPU machine that has no CivetWeb or
# cJSON: the binary, the shared libraries it needs besides the system's and
# CUDA's (found by ldd), the web root and the GPU tests, with an $ORIGIN rpath
# (set at link time: -Wl,-rpath,'$ORIGIN/../lib'). Usage: tools/bundle.sh BUILD OUT
set -euo pipefail
build=${1:?build dir}; out=${2:?output dir}
rm -rf "$out"; mkdir -p "$out/bin" "$out/lib"
cp "$build/bin/gpulab" "$build/bin/gpulab-worker" "$out/bin/"
# The lesson claims and their runner, for tools/gpu_session.sh claims.
[ -x "$build/bin/claimcheck" ] && cp "$build/bin/claimcheck" "$out/bin/"
[ -f "$build/claims.json" ] && cp "$build/claims.json" "$out/claims.json"
# Every library the binaries need but glibc's, the C++ runtime's and CUDA's
# (a GPU machine has those): CivetWeb, cJSON, SQLite, libpq and all they
# pull in. The binaries carry DT_RPATH (not RUNPATH), so the libraries' own
# dependencies are found in the bundle too.
ldd "$build/bin/gpulab" "$build/bin/gpulab-worker" $([ -x "$build/bin/claimcheck" ] && echo "$build/bin/claimcheck") | awk '/=> \// {print $3}' | sort -u | while read -r lib; do
  case "$lib" in /usr/local/cuda*) continue ;; esac
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|ld-linux*|libstdc++.so*|libgcc_s.so*|libcuda.so*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
[ -d "$build/lib" ] && cp "$build/lib/"*.so "$out/lib/"
cp -r "$build/web" "$out/web"
[ -d "$build/lessons" ] && cp -r "$build/lessons" "$out/lessons"
mkdir -p "$out/tests" "$out/tools" "$out/bench"; cp -r tests/gpu "$out/tests/"
# The GPU lease (tools/gpu_session.sh, docs/gpu-session.md) and what its steps run.
cp tools/record.sh tools/record_runs.py tools/record_kit.py tools/gpu_session.sh tools/lease_gpulab.sh \
  tools/lease_archive.py tools/recorded_index.py tools/lease_traces.py tools/lease_errors.py tools/lease_debug.sh "$out/tools/"
cp bench/gpu_compare.py bench/cold_peer.py "$out/bench/"
# The measurement kit, the PyTorch side of the comparison (tools/gpu_session.sh kit).
mkdir -p "$out/kit"; cp kit/measure.py "$out/kit/"
# The commit it was built from, for the lease's summary.
{ git rev-parse --short=12 HEAD && { git diff --quiet HEAD || echo "with uncommitted changes"; }; } 2>/dev/null |
  paste -sd' ' - >"$out/COMMIT" || true
for b in gpulab gpulab-worker; do
  readelf -d "$out/bin/$b" | grep -q 'ORIGIN' || { echo "bundle: $b lacks an \$ORIGIN rpath" >&2; exit 1; }
done
"$out/bin/gpulab" device >/dev/null || { echo "bundle: the bundled gpulab does not run" >&2; exit 1; }
echo "bundle: $(du -sh "$out" | cut -f1) in $out (run: $out/bin/gpulab device)"
