#!/usr/bin/env bash
# Builds every example plugin (Go and Rust) into OUT_DIR/<name>.wasm.
#
#   scripts/build-plugins.sh OUT_DIR
#   scripts/build-plugins.sh internal/demo/plugins   # refresh the demo's embedded plugins
#
# When OUT_DIR is internal/demo/plugins only the plugins the demo embeds are
# kept there.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
demo=$(cd "$here/../internal/demo/plugins" && pwd)
if [ "$out" = "$demo" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  "$here/build-go-plugins.sh" "$tmp"
  NO_TESTS=1 "$here/build-rust-plugins.sh" "$tmp"
  for f in "$demo"/*.wasm; do cp "$tmp/$(basename "$f")" "$f"; done
  ls -l "$demo"
  exit 0
fi
"$here/build-go-plugins.sh" "$out"
"$here/build-rust-plugins.sh" "$out"
