#!/usr/bin/env bash
# Installs the npm packages the tests use (third-party MCP servers, the
# official conformance suite and a Node 22 for it, the MCP Inspector CLI
# and the gateways scripts/bench-gateway.sh compares against) into testdata/npm/node_modules,
# a project-local, git-ignored folder. Safe to run again: it reinstalls only
# when package-lock.json changed. Prints the absolute path of the .bin folder.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir="$here/testdata/npm"
stamp="$dir/node_modules/.mcphost-lock.sha256"

if ! command -v npm >/dev/null 2>&1; then
  echo "npm-deps: npm is missing; installing Debian's nodejs and npm" >&2
  apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs npm >&2
fi
want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "npm-deps: installing test servers and the conformance suite into testdata/npm" >&2
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "$want" > "$stamp"
fi
for bin in node conformance mcp-server-everything mcp-server-filesystem mcp-server-memory \
  mcp-inspector supergateway mcp-proxy; do
  if [ ! -x "$dir/node_modules/.bin/$bin" ]; then
    echo "npm-deps: $bin is missing from testdata/npm/node_modules/.bin after install" >&2
    exit 1
  fi
done
# oidc-provider is a library (no bin): the OAuth tests import it from
# testdata/oidc/provider.mjs.
if [ ! -f "$dir/node_modules/oidc-provider/package.json" ]; then
  echo "npm-deps: oidc-provider is missing from testdata/npm/node_modules after install" >&2
  exit 1
fi
echo "$dir/node_modules/.bin"
