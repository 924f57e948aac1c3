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
  # Every client scenario of the suite but the six authorization
  # extensions (client-credentials-jwt/-basic, enterprise-managed-
  # authorization, dpop, dpop-nonce, wif-jwt-bearer), which need work that
  # go-sdk does not do.
  scenarios=(
    initialize tools_call elicitation-sep1034-client-defaults sse-retry
    request-metadata sep-2322-client-request-state
    http-standard-headers http-custom-headers http-invalid-tool-headers
    json-schema-ref-no-deref json-schema-2020-12-preservation
    sep-2640-client-no-prefetch sep-2640-client-verify-digest
    sep-2640-client-verify-size sep-2640-client-verify-frontmatter
    # Authorization (OAuth through go-sdk's handler, host.WithOAuthHandler).
    auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
    auth/basic-cimd auth/scope-from-www-authenticate auth/scope-from-scopes-supported
    auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit
    auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
    auth/pre-registration auth/2025-03-26-oauth-metadata-backcompat
    auth/2025-03-26-oauth-endpoint-fallback auth/resource-mismatch auth/offline-access-scope
    auth/offline-access-not-supported auth/authorization-server-migration auth/iss-supported
    auth/iss-not-advertised auth/iss-supported-missing auth/iss-wrong-issuer auth/iss-unexpected
    auth/iss-normalized auth/metadata-issuer-mismatch
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
