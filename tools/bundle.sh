#!/usr/bin/env bash
# Packs a self-contained gpulab for a GPU machine that has no CivetWeb or
# cJSON: the binary, the shared libraries it needs besides the system's and
# CUDA's (found by ldd), the web root and the GPU tests, with an $ORIGIN rpath
# (set at link time: -Wl,-rpath,'$ORIGIN/../lib'). Usage: tools/bundle.sh BUILD OUT
set -euo pipefail
build=${1:?build dir}; out=${2:?output dir}
rm -rf "$out"; mkdir -p "$out/bin" "$out/lib"
cp "$build/bin/gpulab" "$build/bin/gpulab-worker" "$out/bin/"
# Libraries the GPU machine lacks; libc, libstdc++ and CUDA's own are there.
ldd "$build/bin/gpulab" "$build/bin/gpulab-worker" | awk '/=> \// {print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libcivetweb*|libcjson*|libssl*|libcrypto*|libz.so*|libsqlite3*) cp -L "$lib" "$out/lib/" ;;
  esac
done
[ -d "$build/lib" ] && cp "$build/lib/"*.so "$out/lib/"
cp -r "$build/web" "$out/web"
[ -d "$build/lessons" ] && cp -r "$build/lessons" "$out/lessons"
mkdir -p "$out/tests" "$out/tools"; cp -r tests/gpu "$out/tests/"; cp tools/record.sh "$out/tools/"
for b in gpulab gpulab-worker; do
  readelf -d "$out/bin/$b" | grep -q 'ORIGIN' || { echo "bundle: $b lacks an \$ORIGIN rpath" >&2; exit 1; }
done
"$out/bin/gpulab" device >/dev/null || { echo "bundle: the bundled gpulab does not run" >&2; exit 1; }
echo "bundle: $(du -sh "$out" | cut -f1) in $out (run: $out/bin/gpulab device)"
