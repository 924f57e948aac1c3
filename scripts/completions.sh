#!/usr/bin/env bash
# Writes mcphost's shell completion scripts into OUT_DIR (default:
# completions/ at the top of the repository): mcphost.bash, mcphost.zsh,
# mcphost.fish and mcphost.ps1. GoReleaser runs it before a release, and the
# archives and Linux packages ship the files it writes.
#
#   scripts/completions.sh [OUT_DIR]
#
# The scripts come from cobra ("mcphost completion SHELL") of a binary built
# for this machine from this source, so they always match the release's
# commands and flags. OUT_DIR gets a .gitignore of its own: nothing
# generated here is committed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/completions}
mkdir -p "$out"
out=$(cd "$out" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Built for the machine running the release (not a release target), with
# the cgo setting of the release builds.
(cd "$root" && CGO_ENABLED=0 go build -trimpath -o "$tmp/mcphost" ./cmd/mcphost)

"$tmp/mcphost" completion bash >"$out/mcphost.bash"
"$tmp/mcphost" completion zsh >"$out/mcphost.zsh"
"$tmp/mcphost" completion fish >"$out/mcphost.fish"
"$tmp/mcphost" completion powershell >"$out/mcphost.ps1"
printf '*\n' >"$out/.gitignore"

for f in mcphost.bash mcphost.zsh mcphost.fish mcphost.ps1; do
  if [ ! -s "$out/$f" ]; then
    echo "completions: $out/$f is empty" >&2
    exit 1
  fi
done
