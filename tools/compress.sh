#!/usr/bin/env bash
# Precompresses the web root for `gpulab serve` (server/http/precompressed.c):
# FILE.gz (gzip -9) and, when Debian's brotli is installed, FILE.br (-q 11)
# beside every text or wasm file that shrinks. Files are rewritten only when
# older than their source, so `make` stays quick. Usage: tools/compress.sh WEB
set -euo pipefail
web=${1:?usage: tools/compress.sh WEB}
have_br=0
command -v brotli >/dev/null && have_br=1
n=0
while IFS= read -r -d '' f; do
  if [ ! -e "$f.gz" ] || [ "$f" -nt "$f.gz" ]; then gzip -9 -n -c "$f" >"$f.gz"; touch -r "$f" "$f.gz"; n=$((n + 1)); fi
  if [ $have_br = 1 ] && { [ ! -e "$f.br" ] || [ "$f" -nt "$f.br" ]; }; then
    brotli -q 11 -f -o "$f.br" "$f"; touch -r "$f" "$f.br"
  fi
done < <(find "$web" -type f \( -name '*.html' -o -name '*.js' -o -name '*.css' -o -name '*.wasm' -o -name '*.json' \
  -o -name '*.svg' -o -name '*.md' -o -name '*.webmanifest' -o -name '*.py' -o -name '*.ipynb' \) -print0)
echo "compress: $web: $n file(s) gzipped$([ $have_br = 1 ] && echo ', brotli too' || echo '; brotli not installed (make deps)')"
