#!/usr/bin/env bash
# `make bundle` packs what a GPU machine without CivetWeb or cJSON needs: the
# bundle must start from any folder, find its worker and libraries through
# $ORIGIN, and answer the device check (TAP output). Usage: bundle.sh BUILD/bin/lessonc
set -uo pipefail
cd "$(dirname "$0")/../.."
build=$(dirname "$(dirname "${1:-build/bin/lessonc}")")
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
n=0 bad=0
ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=1; fi; }
echo "1..7"
ok "tools/bundle.sh packs the build" 'tools/bundle.sh "$build" "$out/b" >/dev/null'
ok "both binaries and the web root are in it" '[ -x "$out/b/bin/gpulab" ] && [ -x "$out/b/bin/gpulab-worker" ] && [ -f "$out/b/web/index.html" ]'
ok "the GPU suite and the recorder travel with it" '[ -x "$out/b/tests/gpu/run.sh" ] && [ -x "$out/b/tools/record.sh" ]'
ok "CivetWeb and cJSON travel with it" 'ls "$out/b/lib" | grep -q civetweb && ls "$out/b/lib" | grep -q cjson'
mv "$out/b" "$out/moved"
# What a GPU machine lacks must resolve inside the bundle (ldd follows the
# loader's rules, DT_RPATH included): everything but glibc, the C++ runtime and CUDA.
deps=$(ldd "$out/moved/bin/gpulab" "$out/moved/bin/gpulab-worker" 2>/dev/null | awk '/=> \// {print $1, $3}')
outside=$(printf '%s\n' "$deps" | grep . |
  grep -vE '^(libc|libm|libpthread|libdl|librt|libresolv|libstdc\+\+|libgcc_s|libcuda)\.so|^ld-linux| /usr/local/cuda' |
  grep -vE " $out/moved/(bin/\.\./)?lib/" | sort -u)
ok "every library beyond glibc, the C++ runtime and CUDA resolves inside it${outside:+ (outside: $(tr '\n' ' ' <<<"$outside"))}" '[ -n "$deps" ] && [ -z "$outside" ]'

dev=$(cd / && env -i PATH=/usr/bin:/bin "$out/moved/bin/gpulab" device --json)
run=$(cd / && env -i PATH=/usr/bin:/bin "$out/moved/bin/gpulab" run timing --backend simulated --json)
ok "moved elsewhere, it still finds its worker (device check answers)" 'grep -q "\"verdict\"" <<<"$dev"'
ok "moved elsewhere, an experiment runs" 'grep -qE "\"experiment\":[[:space:]]*\"timing\"" <<<"$run"'
exit $bad
