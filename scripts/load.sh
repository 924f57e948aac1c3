#!/usr/bin/env bash
# The supervision load test at full size: 64 callers x CALLS calls (default
# 5000) over three servers (two stdio, one Streamable HTTP) while one stdio
# server is killed every second. Prints calls/s, failures by cause and the
# heap before, at peak and after.
#
#   scripts/load.sh            # 64 x 5000 calls
#   CALLS=1000 scripts/load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
MCPHOST_LOAD_CALLS=${CALLS:-5000} go test -count=1 -run '^TestLoadWithKilledServer$' -v -timeout 30m ./host/ |
  grep -v '^=== '
