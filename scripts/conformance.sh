#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against
# mcphost's conformance client (internal/cmd/conformance-client, built on the
# host package) and ends with a line "N passed, M failed".
#
#   scripts/conformance.sh                      # the scenarios mcphost must pass
#   scripts/conformance.sh initialize sse-retry # chosen scenarios
#   CONFORMANCE_OUT=dir scripts/conformance.sh  # keep the suite's JSON results
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$("$here/scripts/npm-deps.sh") || exit 1
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
  # Every client scenario of the pinned suite (48 in 0.2.0-alpha.12: 15
  # without authorization, 33 auth/...), as the suite itself lists them.
  mapfile -t scenarios < <(PATH="$bin:$PATH" conformance list --client | sed -n 's/^ *- \([^ ]*\).*/\1/p')
  if [ ${#scenarios[@]} -lt 48 ]; then
    echo "conformance: the suite listed ${#scenarios[@]} client scenarios, expected 48" >&2
    echo "0 passed, 48 failed"
    exit 1
  fi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${CONFORMANCE_OUT:-$work/results}
mkdir -p "$out"
(cd "$here" && go build -o "$work/conformance-client" ./internal/cmd/conformance-client) || { echo "0 passed, ${#scenarios[@]} failed"; exit 1; }

# The suite needs Node >= 22: the one installed with it comes first in PATH.
export PATH="$bin:$PATH"
passed=0 failed=0
for s in "${scenarios[@]}"; do
  # Scenario names may hold a '/' (auth/...): one flat file name each.
  name=${s//\//__}
  log="$out/$name.log"
  if (cd "$work" && timeout 300 conformance client --command "$work/conformance-client" --scenario "$s" -o "$out/$name") >"$log" 2>&1; then
    echo "PASS $s"
    passed=$((passed + 1))
  else
    echo "FAIL $s (log follows)"
    tail -n 40 "$log" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
