#!/usr/bin/env bash
# Builds every Go example plugin (examples/plugins/*/ with a main.go) with
# standard Go to OUT_DIR/<name>.wasm and prints the sizes. Offline: the
# plugins belong to the main module and need nothing beyond it.
#
#   scripts/build-go-plugins.sh OUT_DIR
#
# -trimpath and -buildvcs=false make the output depend on the source only,
# so that the same source gives the same sha256 (plugins can be pinned).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
mkdir -p "$1"
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."

built=0
for dir in examples/plugins/*/; do
  dir=${dir%/}
  [ -f "$dir/main.go" ] || continue # not a Go plugin (e.g. Rust)
  name=$(basename "$dir")
  GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -buildvcs=false \
    -o "$out/$name.wasm" "./$dir"
  printf '%-24s %9d bytes\n' "$name.wasm" "$(wc -c <"$out/$name.wasm")"
  built=$((built + 1))
done
if [ "$built" -eq 0 ]; then
  echo "build-go-plugins: no Go plugin found under examples/plugins" >&2
  exit 1
fi
