#!/usr/bin/env bash
# Installs what gpulab needs on Debian, idempotently, in two sets:
#   tools/deps.sh run   the toolchain and libraries to build and serve (make run)
#   tools/deps.sh test  (default) all of it: run, plus what the tests start or
#                       drive (Check, Chromium, PostgreSQL, Slurm, munge, HAProxy,
#                       clang, wrk, numpy, playwright-core, axe-core, and
#                       prometheus for promtool, which checks deploy/gpulab-alerts.yml)
# Without root or apt it prints the exact list of what is missing and fails.
set -euo pipefail
cd "$(dirname "$0")/.."

set_name=${1:-test}
# To build and serve: compilers, the server's libraries, emscripten (+ acorn)
# for the wasm client, md4c for the lessons, brotli for precompression,
# zlib to gzip the API's answers,
# OpenBLAS for the CPU sgemm, dpkg-dev for the bundle's library lookup,
# python3 to build the measurement kit's notebook (tools/kit_notebook.py).
RUN_PKGS="build-essential pkg-config libcivetweb-dev libcjson-dev emscripten
node-acorn libmd4c-dev libmd4c-html0-dev libsqlite3-dev libssl-dev libpq-dev zlib1g-dev
brotli libopenblas-dev dpkg-dev python3"
# To test and benchmark: the unit-test library, the browser, the load and
# fuzz tools, numpy for the CPU sgemm peer, and the scale stage's services;
# python3-torch (a CPU build) writes real profiler traces for gpulab doctor's tests.
TEST_PKGS="check chromium wrk curl python3-numpy clang libclang-rt-14-dev
postgresql slurm-wlm munge haproxy prometheus python3-torch"
case "$set_name" in
  run) PKGS=$RUN_PKGS; want_npm=0 ;;
  test) PKGS="$RUN_PKGS $TEST_PKGS"; want_npm=1 ;;
  --list-run) echo $RUN_PKGS; exit 0 ;;
  --list-test) echo $TEST_PKGS; exit 0 ;;
  *) echo "usage: tools/deps.sh [run|test]   (run: to build and serve; test: everything, the default)" >&2; exit 2 ;;
esac

missing=()
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

need_src=0
[ -f third_party/cjson/cJSON.c ] || need_src=1

if [ ${#missing[@]} -gt 0 ] || [ $need_src = 1 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "deps ($set_name): cannot install (need root and apt). Missing Debian packages: ${missing[*]:-none}" >&2
    [ $need_src = 1 ] && echo "deps ($set_name): also missing: cJSON source in third_party/cjson (apt-get source cjson)" >&2
    exit 1
  fi
  # A deb-src entry derived from the machine's own apt sources (never a hard-coded mirror).
  if [ $need_src = 1 ] && ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      awk 'BEGIN{RS=""; ORS="\n\n"} /Types:[^\n]*deb/ && !/deb-src/ {sub(/Types:[^\n]*/, "Types: deb-src"); print}' "$f"
    done > /etc/apt/sources.list.d/gpulab-deb-src.sources
    if [ -f /etc/apt/sources.list ]; then
      grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' > /etc/apt/sources.list.d/gpulab-deb-src.list || true
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    echo "deps ($set_name): installing ${missing[*]}"
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
  if [ $need_src = 1 ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get source --download-only -qq cjson)
    mkdir -p third_party/cjson
    tar -xzf "$tmp"/cjson_*.orig.tar.gz -C "$tmp"
    cp "$tmp"/cJSON-*/cJSON.c "$tmp"/cJSON-*/cJSON.h "$tmp"/cJSON-*/LICENSE third_party/cjson/
    rm -rf "$tmp"
  fi
fi

# playwright-core drives the system chromium (never downloads a browser);
# axe-core checks the pages' accessibility in the browser tests.
if [ $want_npm = 1 ] && { [ ! -d tests/e2e/node_modules/playwright-core ] || [ ! -d tests/e2e/node_modules/axe-core ]; }; then
  (cd tests/e2e && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --silent)
fi
# Chromium DevTools' own trace engine reads our trace files in the trace
# consumer test (tests/trace), a reader no one here wrote.
if [ $want_npm = 1 ] && [ ! -d tests/trace/node_modules/@paulirish/trace_engine ]; then
  (cd tests/trace && npm install --no-audit --no-fund --silent)
fi
# Lighthouse for `make bench`'s browser audit (bench/package.json); it
# drives Debian's Chromium through CHROME_PATH and downloads no browser.
if [ $want_npm = 1 ] && [ ! -d bench/node_modules/lighthouse ]; then
  (cd bench && npm install --no-audit --no-fund --silent)
fi
echo "deps ($set_name): all present"
