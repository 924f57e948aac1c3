#!/usr/bin/env bash
# Runs every test of mcphost on a fresh machine: installs what the tests need
# (the npm MCP servers and conformance suite into testdata/npm, Node and npm
# from Debian when missing), checks formatting and vet, runs the Go tests with
# the race detector (unit, end-to-end against real servers, the shell
# examples of README.md and docs/ (package docs), fuzz seeds,
# examples), a short fuzzing pass, and the official conformance scenarios.
#
#   scripts/test.sh            # everything
#   FUZZ_SCALE=10 scripts/test.sh   # fuzz ten times longer
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v go >/dev/null 2>&1; then
  echo "test: Go is not installed (https://go.dev/dl, 1.26 or later)" >&2
  exit 1
fi

step() { printf '\n=== %s\n' "$*"; }

step "installing test servers (npm, project-local)"
bin=$(scripts/npm-deps.sh)
export MCPHOST_NPM_BIN="$bin"
# End-to-end tests fail instead of skipping when their servers are missing.
export MCPHOST_REQUIRE_E2E=1

step "installing Debian packages the tests need (when missing)"
need=()
command -v wat2wasm >/dev/null 2>&1 || need+=(wabt)          # hostile plugin fixtures (.wat)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light) # gateway replicas behind a proxy
command -v openssl >/dev/null 2>&1 || need+=(openssl)      # the docs' examples make a token with it
command -v jq >/dev/null 2>&1 || need+=(jq)                # the docs' examples filter JSON with it
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
    echo "test: missing ${need[*]}: install them with apt-get" >&2
    exit 1
  fi
  sudo_=$([ "$(id -u)" -eq 0 ] || echo sudo)
  $sudo_ apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${need[@]}"
fi

step "building the example plugins (Go and Rust)"
plugins_dir=$(mktemp -d)
trap 'rm -rf "$plugins_dir"' EXIT
scripts/build-plugins.sh "$plugins_dir"
# The example-plugin conformance tests and the demo's embedded-plugin check
# use these builds.
export MCPHOST_BUILT_PLUGINS="$plugins_dir"

step "gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './testdata/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
go vet ./...

step "conformance (official MCP client scenarios)"
scripts/conformance.sh

step "conformance (official MCP server scenarios, mcphost serve against its backend directly)"
scripts/conformance-server.sh

# A fixed number of inputs per target (not a duration): a duration-bounded
# run can end with a spurious "context deadline exceeded" from Go's fuzz
# coordinator (golang/go#75804). FUZZ_SCALE multiplies the counts.
step "fuzzing"
scale=${FUZZ_SCALE:-1}
fuzz() { # package target inputs
  go test -run='^$' -fuzz="^$2\$" -fuzztime="$(( $3 * scale ))x" "$1"
}
fuzz ./host/config FuzzExpand 20000
fuzz ./host/config FuzzLoad 500
fuzz ./host/config FuzzManaged 300
fuzz ./host/config FuzzRedactURL 20000
fuzz ./host/naming FuzzMap 20000
fuzz ./transports FuzzLineSource 20000
fuzz ./transports FuzzEnvelopeScanner 20000
fuzz ./transports FuzzEventLimitBody 20000
fuzz ./transports FuzzDecodeMessage 20000
fuzz ./internal/elicitform FuzzParse 20000
fuzz ./internal/elicitform FuzzCheck 20000
fuzz ./host/builtin FuzzTruncate 20000
fuzz ./host/builtin FuzzTruncateWithinLimit 20000
fuzz ./host/builtin FuzzScanLen 20000
fuzz ./pdk/internal/wire FuzzDecoders 20000
fuzz ./pdk/internal/wire FuzzEncode 20000
fuzz ./pdk/internal/wire FuzzEncodeString 20000
fuzz ./plugins FuzzDecodeOutput 20000
fuzz ./host/authn FuzzFileStoreRead 20000
fuzz ./host/authn FuzzSecretFileRead 20000
fuzz ./host/authn FuzzTokenResponse 2000
fuzz ./host/authn FuzzCallbackQuery 2000
fuzz ./plugins FuzzCheckKeys 20000
fuzz ./plugins FuzzParseModule 20000
fuzz ./plugins FuzzOpen 5000
fuzz ./plugins/internal/kernel FuzzMemory 20000
fuzz ./plugins FuzzStrictUnmarshal 20000
fuzz ./internal/toolresult FuzzCheck 20000
fuzz ./internal/toolresult FuzzDecode 20000
fuzz ./internal/jsonscan FuzzUniqueKeys 20000
fuzz ./plugins/internal/wasmbin FuzzInstrument 5000
fuzz ./internal/jsonscan FuzzDepth 20000
fuzz ./pdk/glob FuzzMatch 20000
fuzz ./internal/termtext FuzzLine 20000
fuzz ./host/providers FuzzConvert 20000
fuzz ./host/providers FuzzParseCall 20000
fuzz ./host/config FuzzPluginWrite 300
fuzz ./host/config FuzzExpandSecrets 20000
fuzz ./host/config FuzzParseEnvFile 20000
fuzz ./host/clientconf FuzzImport 5000
fuzz ./host/clientconf FuzzEscapeDollars 20000
fuzz ./host/clientconf FuzzInstallJSON 5000
fuzz ./host/clientconf FuzzInstallTOML 5000
fuzz ./internal/argcheck FuzzAssign 20000
fuzz ./internal/argcheck FuzzCheck 20000
fuzz ./internal/suggest FuzzUnknownTool 20000
fuzz ./internal/suggest FuzzDistance 20000
fuzz ./internal/tomlguard FuzzCheck 20000
fuzz ./internal/tomlguard FuzzStringEnd 20000

step "the side-by-side benchmark module (bench/policy-engines: vet, and every engine decides alike)"
(cd bench/policy-engines && go vet ./... && go test -count=1 ./...)

# Last, so that its summary closes the run.
step "go test -race ./..."
go test -race -count=1 -timeout 20m ./...
