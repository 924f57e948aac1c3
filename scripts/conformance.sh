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
  # Every client scenario of the suite that needs no authorization.
  scenarios=(
    initialize tools_call elicitation-sep1034-client-defaults sse-retry
    request-metadata sep-2322-client-request-state
    http-standard-headers http-custom-headers http-invalid-tool-headers
    json-schema-ref-no-deref json-schema-2020-12-preservation
    sep-2640-client-no-prefetch sep-2640-client-verify-digest
    sep-2640-client-verify-size sep-2640-client-verify-frontmatter
  )
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
