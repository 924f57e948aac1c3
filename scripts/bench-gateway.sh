#!/usr/bin/env bash
# Compares gateways that re-expose a stdio MCP server over HTTP, on this
# machine, in one run: "mcphost serve --http", supergateway (stateful:
# one server process per session; and its default, stateless: one per
# request) and mcp-proxy, each fronting the npm everything server
# (mcp-server-everything, over stdio). For each, the load generator
# (scripts/benchgateway) runs CLIENTS clients, each with its own Streamable
# HTTP session, calling the server's "echo {message}" tool in a loop for
# DURATION after WARMUP, and the script prints a markdown table of calls/s,
# median and 99th percentile latency and errors, then one of the CPU each
# side used during the measured window.
#
# When mcphost does not have at least 3x the throughput and at most half the
# p99 latency of every other gateway (or when PROFILE=1), one more mcphost
# run is profiled: the mcphost binary is built with a net/http/pprof
# listener added through "go build -overlay" (mcphost's code is not changed)
# and the top functions by CPU and by allocated bytes are printed
# (PROFILE=0: never).
#
#   scripts/bench-gateway.sh
#   CLIENTS=16 DURATION=5s scripts/bench-gateway.sh
#
# It is a benchmark, not a test: numbers depend on the machine and on what
# else runs on it. Servers listen on 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
clients=${CLIENTS:-64}
duration=${DURATION:-10s}
warmup=${WARMUP:-2s}
profile=${PROFILE:-auto}

npmbin=$(bash scripts/npm-deps.sh)
# The npm servers' "#!/usr/bin/env node" must find the project's Node.
export PATH="$npmbin:$PATH"
everything="$npmbin/mcp-server-everything"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-gateway.XXXXXX")
started=() # session ids (= pids) of the gateways started with setsid
cleanup() {
  for sid in "${started[@]}"; do
    pkill -KILL -s "$sid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench-gateway: building mcphost and the load generator" >&2
go build -o "$tmp/mcphost" ./cmd/mcphost
go build -o "$tmp/benchgateway" ./scripts/benchgateway

# mcphost reads no user configuration: its own home, and a config that
# fronts the everything server with bare tool names (names.scheme tool), so
# that every gateway offers the same "echo".
mkdir -p "$tmp/home"
cat >"$tmp/mcphost.json" <<EOF
{"servers": {"everything": {"command": "$everything"}}, "names": {"scheme": "tool"}}
EOF
mcphost_env=(env HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_CACHE_HOME="$tmp/home/.cache")

# start NAME CMD...: starts CMD in a new session with its output in
# $tmp/NAME.log; sets $pid.
start() {
  local name=$1
  shift
  setsid "$@" >"$tmp/$name.log" 2>&1 &
  pid=$!
  started+=("$pid")
}

# stop PID: SIGTERM to the gateway's process group, then, after at most
# 10 s, SIGKILL to whatever is left in its session.
stop() {
  local p=$1 i
  kill -TERM -- "-$p" 2>/dev/null || true
  for i in $(seq 100); do
    kill -0 "$p" 2>/dev/null || break
    sleep 0.1
  done
  pkill -KILL -s "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
}

# mcphost_addr: the address "mcphost serve --http 127.0.0.1:0" printed.
mcphost_addr() {
  local log=$1 i addr
  for i in $(seq 600); do
    addr=$(sed -n 's|.*serving http://\([0-9.:]*\)/mcp.*|\1|p' "$log" | head -n1)
    if [ -n "$addr" ]; then
      echo "$addr"
      return
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "bench-gateway: mcphost named no address:" >&2
  cat "$log" >&2
  exit 1
}

rows=()
cpurows=()
# measure NAME TRANSPORT URL [generator flags...]: runs the generator against
# URL (the gateway is $pid) and adds a row; sets $result.
measure() {
  local name=$1 transport=$2 url=$3
  shift 3
  echo "bench-gateway: $name: $clients clients, $warmup warm-up, $duration measured" >&2
  local out
  if ! out=$("$tmp/benchgateway" -url "$url" -clients "$clients" -warmup "$warmup" -duration "$duration" -watch-pid "$pid" "$@"); then
    echo "bench-gateway: $name: the load generator failed; gateway output:" >&2
    tail -n 30 "$tmp/$name.log" >&2
    rows+=("| $name | $transport | $clients | failed | | | |")
    result=""
    return
  fi
  result=$(echo "$out" | grep '^RESULT ' | tail -n1)
  rows+=("| $name | $transport | $(field "$result" connected)/$clients | $(field "$result" calls_per_s) | $(field "$result" p50_ms) ms | $(field "$result" p99_ms) ms | $(field "$result" errors) |")
  cpurows+=("| $name | $(cores "$(field "$result" gateway_cores)") | $(cores "$(field "$result" backend_cores)") | $(cores "$(field "$result" generator_cores)") |")
}

# cores VALUE: VALUE, or n/a when the generator could not measure it (-1).
cores() { if [ "$1" = -1.00 ] || [ -z "$1" ]; then echo n/a; else echo "$1"; fi; }

# field RESULT KEY: the value of KEY in a RESULT line.
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# 1. mcphost serve --http, one everything server shared by all sessions.
start mcphost "${mcphost_env[@]}" "$tmp/mcphost" serve --http 127.0.0.1:0 --config "$tmp/mcphost.json"
addr=$(mcphost_addr "$tmp/mcphost.log")
measure mcphost "Streamable HTTP (stateful sessions)" "http://$addr/mcp"
mcphost_result=$result
stop "$pid"

# 2. supergateway, stateful: one everything server per session.
port=$("$tmp/benchgateway" -free-port)
start supergateway-stateful supergateway --stdio "$everything" --outputTransport streamableHttp \
  --stateful --port "$port" --logLevel none
measure supergateway-stateful "Streamable HTTP (--stateful: a server process per session)" "http://127.0.0.1:$port/mcp"
others=("$result")
stop "$pid"

# 3. supergateway's default, stateless: one everything server per request.
port=$("$tmp/benchgateway" -free-port)
start supergateway supergateway --stdio "$everything" --outputTransport streamableHttp \
  --port "$port" --logLevel none
measure supergateway "Streamable HTTP (default, stateless: a server process per request)" "http://127.0.0.1:$port/mcp"
others+=("$result")
stop "$pid"

# 4. mcp-proxy, one everything server shared by all sessions.
port=$("$tmp/benchgateway" -free-port)
start mcp-proxy mcp-proxy --host 127.0.0.1 --port "$port" --server stream -- "$everything"
measure mcp-proxy "Streamable HTTP (stateful sessions)" "http://127.0.0.1:$port/mcp"
others+=("$result")
stop "$pid"

echo
echo "Machine: $(nproc) cores; load average at the start: $load_before. Tool: echo {message} of @modelcontextprotocol/server-everything (stdio) behind each gateway; every client has its own session (protocol 2025-11-25)."
echo
echo "| gateway | transport | clients | calls/s | p50 | p99 | errors |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
echo
echo "CPU used during the measured window, in cores (CPU seconds per second; the machine has $(nproc)):"
echo
echo "| gateway | gateway process | servers it started | load generator |"
echo "| --- | --- | --- | --- |"
printf '%s\n' "${cpurows[@]}"
echo
echo "Load average now: $(cut -d' ' -f1-3 /proc/loadavg)"

# Is mcphost at least 3x the throughput and at most half the p99 of each?
ahead=yes
if [ -z "$mcphost_result" ]; then
  ahead=no
else
  for r in "${others[@]}"; do
    [ -n "$r" ] || continue
    if ! awk -v mt="$(field "$mcphost_result" calls_per_s)" -v mp="$(field "$mcphost_result" p99_ms)" \
      -v t="$(field "$r" calls_per_s)" -v p="$(field "$r" p99_ms)" \
      'BEGIN { exit !(mt >= 3 * t && mp <= p / 2) }'; then
      ahead=no
    fi
  done
fi
echo
echo "mcphost >= 3x the throughput and <= 1/2 the p99 of every other gateway: $ahead"

if [ "$profile" = 0 ] || { [ "$profile" = auto ] && [ "$ahead" = yes ]; }; then
  exit 0
fi

# Profile mcphost: the same binary plus a pprof listener, added at build
# time through an overlay file (nothing in the tree changes).
echo "bench-gateway: profiling mcphost" >&2
cat >"$tmp/zz_bench_pprof.go" <<'EOF'
package main

import (
	"net/http"
	"net/http/pprof"
	"os"
)

// Added by scripts/bench-gateway.sh at build time (go build -overlay).
func init() {
	addr := os.Getenv("MCPHOST_BENCH_PPROF")
	if addr == "" {
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	go func() { _ = http.ListenAndServe(addr, mux) }()
}
EOF
printf '{"Replace": {"%s": "%s"}}\n' "$root/cmd/mcphost/zz_bench_pprof.go" "$tmp/zz_bench_pprof.go" >"$tmp/overlay.json"
go build -overlay "$tmp/overlay.json" -o "$tmp/mcphost-pprof" ./cmd/mcphost
pport=$("$tmp/benchgateway" -free-port)
start mcphost-pprof "${mcphost_env[@]}" MCPHOST_BENCH_PPROF="127.0.0.1:$pport" \
  "$tmp/mcphost-pprof" serve --http 127.0.0.1:0 --config "$tmp/mcphost.json"
addr=$(mcphost_addr "$tmp/mcphost-pprof.log")
mkdir -p "$tmp/pprof"
measure mcphost-pprof "Streamable HTTP (profiled)" "http://$addr/mcp" \
  -pprof "http://127.0.0.1:$pport/debug/pprof" -pprof-dir "$tmp/pprof"
stop "$pid"
echo
echo "Profiled mcphost run: $(printf '%s\n' "${rows[@]}" | tail -n1)"
if [ -s "$tmp/pprof/cpu.pprof" ]; then
  echo
  echo "mcphost CPU, top functions by cumulative time:"
  echo '```'
  go tool pprof -top -cum -nodecount=45 "$tmp/mcphost-pprof" "$tmp/pprof/cpu.pprof" 2>/dev/null | sed -n '4,$p'
  echo '```'
  echo
  echo "mcphost CPU, top functions by own time:"
  echo '```'
  go tool pprof -top -nodecount=20 "$tmp/mcphost-pprof" "$tmp/pprof/cpu.pprof" 2>/dev/null | sed -n '6,$p'
  echo '```'
fi
if [ -s "$tmp/pprof/allocs.pprof" ]; then
  echo
  echo "mcphost allocated bytes (whole run), top functions:"
  echo '```'
  go tool pprof -sample_index=alloc_space -top -nodecount=20 "$tmp/mcphost-pprof" "$tmp/pprof/allocs.pprof" 2>/dev/null | sed -n '5,$p'
  echo '```'
fi
