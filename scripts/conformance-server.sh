#!/usr/bin/env bash
# Runs the official MCP conformance suite's server scenarios against two
# targets in the same run, and compares them:
#
#   direct   go-sdk's conformance everything-server, serving Streamable HTTP
#            itself (the reference: what the backend can do);
#   gateway  `mcphost serve --http` fronting that same everything-server,
#            started by mcphost over stdio (without -http it serves stdio;
#            config: one server `everything`, names.scheme tool, so its tool
#            names are unprefixed).
#
# It prints PASS/FAIL per scenario for each target, then
# "direct: N passed, M failed" and "gateway: N passed, M failed", and exits 0
# only when the gateway passes every scenario the direct server passes; the
# scenarios where they differ are printed with the gateway's failing checks
# and the tail of the gateway's log while the scenario ran.
#
#   scripts/conformance-server.sh                      # the active suite (31 scenarios)
#   scripts/conformance-server.sh --suite draft        # another suite (below)
#   CONFORMANCE_SUITE=tasks scripts/conformance-server.sh
#   scripts/conformance-server.sh ping tools-list      # chosen scenarios (with --suite
#                                                      # 2026-07-28: at that wire)
#   CONFORMANCE_OUT=dir scripts/conformance-server.sh  # keep the logs and the suite's JSON results
#
# Suites (--suite NAME or CONFORMANCE_SUITE):
#   active, all, draft, pending  the suite's own sets, as `conformance server
#                                --suite NAME` runs them (draft: the scenarios
#                                introduced by the 2026-07-28 revision; pending:
#                                those its reference server cannot pass yet)
#   2025-11-25, 2026-07-28       the server scenarios that revision requires
#                                (`conformance list --requirements`), run at its wire
#   tasks                        the tasks extension's scenarios (tasks-*)
#   extension                    every extension scenario (tasks, skills)
#
# Each scenario runs at the protocol version the suite picks for it (a
# requirement set's revision; otherwise 2026-07-28 for scenarios introduced by
# it and for extensions, 2025-11-25 for the rest). Both targets are stateful
# for dated versions and stateless for 2026-07-28, as the suite's own go-sdk
# setup starts the everything-server (-stateless=false only for the dated
# suites); CONFORMANCE_STATELESS=0 or 1 forces one mode for every scenario.
# CONFORMANCE_TIMEOUT bounds each scenario (seconds, default 120);
# CONFORMANCE_GATEWAY_LOG_LEVEL is mcphost's --log-level (default debug);
# CONFORMANCE_BACKEND_PROTOCOL pins the backend entry's protocol_version
# (default: none, as an operator would write it). The gateway runs with its
# default flags (and --stateless for the 2026-07-28 wire).
#
# GATEWAY_KNOWN_GAPS lists scenarios the gateway does not pass yet, each for a
# reason recorded below; they are reported, and do not fail the run. Set it
# empty to fail on them. Default: none (every suite's gateway result must
# match the direct server's, or the run fails).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

self="$here/scripts/$(basename "$0")"
usage() { sed -n '2,/^set -uo/p' "$self" | sed '$d; s/^# \{0,1\}//'; }
suite=${CONFORMANCE_SUITE:-active}
scenarios=()
while [ $# -gt 0 ]; do
  case $1 in
    --suite) [ $# -ge 2 ] || { usage >&2; exit 2; }; suite=$2; shift 2 ;;
    --suite=*) suite=${1#--suite=}; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "conformance-server: unknown flag $1" >&2; usage >&2; exit 2 ;;
    *) scenarios+=("$1"); shift ;;
  esac
done
per_timeout=${CONFORMANCE_TIMEOUT:-120}
force_stateless=${CONFORMANCE_STATELESS:-}
gw_log_level=${CONFORMANCE_GATEWAY_LOG_LEVEL:-debug}
backend_protocol=${CONFORMANCE_BACKEND_PROTOCOL-}
known_gaps=${GATEWAY_KNOWN_GAPS-}

bin=$("$here/scripts/npm-deps.sh") || exit 1
# The suite needs Node >= 22: the one installed with it comes first in PATH.
export PATH="$bin:$PATH"

work=$(mktemp -d)
out=${CONFORMANCE_OUT:-$(mktemp -d)}
mkdir -p "$out/direct" "$out/gateway"
keep_out=${CONFORMANCE_OUT:+1}
pids=()
suite_pid=""
cleanup() {
  local pid i
  [ -n "$suite_pid" ] && kill -TERM "$suite_pid" 2>/dev/null
  for pid in "${pids[@]}"; do
    # Every server runs in its own process group (setsid): the gateway's
    # stdio everything-server goes with it.
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
  done
  for pid in "${pids[@]}"; do
    for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
  done
  rm -rf "$work"
  [ -n "$keep_out" ] || rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cd "$work" || exit 1 # the suite and the servers run here, away from the repository's files

fail_all() { # reason: nothing could run
  echo "conformance-server: $*" >&2
  echo "direct: 0 passed, ${#scenarios[@]} failed"
  echo "gateway: 0 passed, ${#scenarios[@]} failed"
  exit 1
}

# name -> the versions `conformance list --server` tags it with.
declare -A tags=()
while read -r name tag; do
  tags[$name]=$tag
done < <(conformance list --server | sed -n 's/^ *- \([^ ]*\) \(\[[^]]*\]\).*/\1 \2/p')
[ ${#tags[@]} -gt 0 ] || fail_all "conformance list --server listed no scenarios"

spec=""  # --spec-version for every scenario (requirement sets only)
case $suite in
  active|core|all|draft|pending|tasks|extension|extensions) ;;
  2025-11-25|2026-07-28) spec=$suite ;;
  *) echo "conformance-server: unknown suite $suite" >&2; usage >&2; exit 2 ;;
esac
if [ ${#scenarios[@]} -eq 0 ]; then
  case $suite in
    active|core|all|draft|pending)
      # The suite does not list its suites: run it once against a closed
      # port (every scenario fails at once) and read the names it runs.
      mapfile -t scenarios < <(timeout 120 conformance server --url http://127.0.0.1:0/mcp --suite "$suite" --timeout 1000 2>/dev/null |
        sed -n 's/^=== Running scenario: \(.*\) ===$/\1/p')
      if [ "$suite" = active ] && [ ${#scenarios[@]} -ne 31 ]; then
        fail_all "the suite listed ${#scenarios[@]} active server scenarios, expected 31 (0.2.0-alpha.12)"
      fi ;;
    2025-11-25|2026-07-28)
      mapfile -t scenarios < <(conformance list --server --requirements "$suite" |
        sed -n '/^Server scenarios/,/^$/s/^ *- \([^ ]*\).*/\1/p') ;;
    tasks)
      for s in "${!tags[@]}"; do [ "${tags[$s]}" = "[extension]" ] && [[ $s == tasks-* ]] && scenarios+=("$s"); done ;;
    extension|extensions)
      for s in "${!tags[@]}"; do [ "${tags[$s]}" = "[extension]" ] && scenarios+=("$s"); done ;;
  esac
  if [[ $suite == tasks || $suite == extension* ]]; then
    # In the order the suite lists them.
    mapfile -t scenarios < <(conformance list --server | sed -n 's/^ *- \([^ ]*\) .*/\1/p' |
      grep -Fx -f <(printf '%s\n' "${scenarios[@]}"))
  fi
  [ ${#scenarios[@]} -gt 0 ] || fail_all "suite $suite has no server scenarios"
fi
for s in "${scenarios[@]}"; do
  [ -n "${tags[$s]+x}" ] || fail_all "unknown server scenario $s"
done

# stateless_for SCENARIO: 1 when it runs at the 2026-07-28 wire.
stateless_for() {
  case $force_stateless in 1|true|yes) echo 1; return ;; 0|false|no) echo 0; return ;; esac
  local wire=2025-11-25
  if [ -n "$spec" ]; then
    wire=$spec
  else
    case ${tags[$1]} in "[2026-07-28]"|"[extension]") wire=2026-07-28 ;; esac
  fi
  [ "$wire" = 2026-07-28 ] && echo 1 || echo 0
}

echo "conformance-server: building mcphost and go-sdk's everything-server" >&2
(cd "$here" && go build -o "$work/mcphost" ./cmd/mcphost) || fail_all "go build ./cmd/mcphost failed"
(cd "$here" && go build -o "$work/everything-server" github.com/modelcontextprotocol/go-sdk/conformance/everything-server) ||
  fail_all "go build of go-sdk's conformance everything-server failed"

can_connect() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

declare -A url=() logf=()
# start_direct MODE (stateful|stateless): go-sdk's server on a free port.
start_direct() {
  local mode=$1 flag=false port try pid i
  [ "$mode" = stateless ] && flag=true
  logf[direct-$mode]="$out/direct-$mode.server.log"
  for try in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 30000))
    can_connect "$port" && continue
    setsid "$work/everything-server" -http "127.0.0.1:$port" -stateless="$flag" >>"${logf[direct-$mode]}" 2>&1 &
    pid=$!
    pids+=("$pid")
    for i in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break # could not listen: another port
      if can_connect "$port"; then
        url[direct-$mode]="http://127.0.0.1:$port/mcp"
        return 0
      fi
      sleep 0.1
    done
  done
  return 1
}

# start_gateway MODE: mcphost serve --http on port 0, fronting the
# everything-server over stdio, with its own HOME and config dir.
start_gateway() {
  local mode=$1 dir="$work/gateway-$mode" pid i addr v
  local -a extra=()
  [ "$mode" = stateless ] && extra+=(--stateless)
  mkdir -p "$dir/home" "$dir/config/mcphost"
  cat >"$dir/config/mcphost/config.yaml" <<EOF
servers:
  everything:
    command: $work/everything-server
    args: []${backend_protocol:+
    protocol_version: \"$backend_protocol\"}
names: {scheme: tool}
EOF
  logf[gateway-$mode]="$out/gateway-$mode.log"
  (
    cd "$dir" || exit 1 # no project config files here
    for v in $(compgen -e | grep '^MCPHOST_'); do unset "$v"; done
    export HOME="$dir/home" XDG_CONFIG_HOME="$dir/config" XDG_CACHE_HOME="$dir/cache" \
      XDG_STATE_HOME="$dir/state" XDG_DATA_HOME="$dir/data"
    exec setsid "$work/mcphost" --log-level "$gw_log_level" serve --http 127.0.0.1:0 --grace 2s "${extra[@]}"
  ) >"${logf[gateway-$mode]}" 2>&1 &
  pid=$!
  pids+=("$pid")
  for i in $(seq 600); do
    addr=$(sed -n 's/^mcphost gateway: serving \(http:[^ ]*\/mcp\) .*/\1/p' "${logf[gateway-$mode]}" | head -n 1)
    if [ -n "$addr" ]; then
      url[gateway-$mode]=$addr
      if grep -q 'not ready' "${logf[gateway-$mode]}"; then
        echo "conformance-server: warning: $(grep -m1 'not ready' "${logf[gateway-$mode]}")" >&2
      fi
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  return 1
}

# ensure TARGET MODE: the URL of that server, started on first use.
ensure() {
  local key=$1-$2
  if [ -z "${url[$key]+x}" ]; then
    url[$key]=""
    if ! "start_$1" "$2"; then
      echo "conformance-server: the $1 server ($2) did not start; its log:" >&2
      tail -n 30 "${logf[$key]:-/dev/null}" | sed 's/^/    /' >&2
    fi
  fi
  [ -n "${url[$key]}" ]
}

# failing_checks CHECKS_JSON: the checks that did not succeed, one a line.
failing_checks() {
  node -e '
    const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    for (const c of checks) {
      if (c.status === "SUCCESS" || c.status === "INFO" || c.status === "SKIPPED") continue;
      console.log(`${c.status} ${c.id}: ${c.description || c.name}`);
      if (c.errorMessage) console.log(`    ${String(c.errorMessage).split("\n").slice(0, 6).join("\n    ")}`);
    }' "$1" 2>/dev/null
}

mode_of() { [ "$(stateless_for "$1")" = 1 ] && echo stateless || echo stateful; }

# run TARGET SCENARIO: sets res to PASS or FAIL (TIMEOUT, NOSERVER); logs
# under $out/TARGET. Not in a subshell: the servers it starts are kept.
run() {
  local target=$1 s=$2 mode name off rc
  mode=$(mode_of "$s")
  name=${s//\//__}
  if ! ensure "$target" "$mode"; then
    res=NOSERVER
    return
  fi
  off=$(stat -c %s "${logf[$target-$mode]}" 2>/dev/null || echo 0)
  local -a args=(--url "${url[$target-$mode]}" --scenario "$s" -o "$out/$target/$name")
  [ -n "$spec" ] && args+=(--spec-version "$spec" --force)
  # In the background so that a signal to this script is handled at once
  # (cleanup stops it too).
  timeout "$per_timeout" conformance server "${args[@]}" >"$out/$target/$name.log" 2>&1 &
  suite_pid=$!
  wait "$suite_pid"
  rc=$?
  suite_pid=""
  # What the server logged while the scenario ran.
  tail -c +$((off + 1)) "${logf[$target-$mode]}" >"$out/$target/$name.server.log" 2>/dev/null
  if [ $rc -eq 0 ]; then res=PASS
  elif [ $rc -eq 124 ]; then res=TIMEOUT
  else res=FAIL
  fi
}

echo "conformance-server: suite $suite, ${#scenarios[@]} scenarios; logs in $out" >&2
printf '%-8s %-8s %s\n' direct gateway scenario
declare -A res_d=() res_g=()
dp=0 df=0 gp=0 gf=0
for s in "${scenarios[@]}"; do
  run direct "$s"
  d=$res
  run gateway "$s"
  g=$res
  res_d[$s]=$d res_g[$s]=$g
  [ "$d" = PASS ] && dp=$((dp + 1)) || df=$((df + 1))
  [ "$g" = PASS ] && gp=$((gp + 1)) || gf=$((gf + 1))
  printf '%-8s %-8s %s\n' "$d" "$g" "$s"
done
differ=()
for s in "${scenarios[@]}"; do
  [ "${res_d[$s]}" = PASS ] && [ "${res_g[$s]}" != PASS ] && differ+=("$s")
done
if [ ${#differ[@]} -gt 0 ]; then
  echo
  echo "Scenarios the direct server passes and the gateway fails:"
  for s in "${differ[@]}"; do
    name=${s//\//__}
    echo
    echo "--- $s: direct PASS, gateway ${res_g[$s]}"
    checks=$(ls -d "$out/gateway/$name"/*/checks.json 2>/dev/null | tail -n 1)
    if [ -n "$checks" ] && [ -n "$(failing_checks "$checks")" ]; then
      echo "  checks that did not pass through the gateway:"
      failing_checks "$checks" | sed 's/^/    /'
    else
      echo "  suite output (tail):"
      sed 's/\x1b\[[0-9;]*m//g' "$out/gateway/$name.log" | tail -n 20 | sed 's/^/    /'
    fi
    if [ -s "$out/gateway/$name.server.log" ]; then
      echo "  gateway log while it ran (tail):"
      tail -n 20 "$out/gateway/$name.server.log" | sed 's/^/    /'
    else
      echo "  gateway log: nothing while it ran"
    fi
  done
  for mode in stateful stateless; do
    [ -n "${logf[gateway-$mode]:-}" ] || continue
    echo
    echo "--- gateway log ($mode, tail):"
    tail -n 12 "${logf[gateway-$mode]}" | sed 's/^/    /'
  done
fi
better=()
for s in "${scenarios[@]}"; do
  [ "${res_d[$s]}" != PASS ] && [ "${res_g[$s]}" = PASS ] && better+=("$s")
done
[ ${#better[@]} -gt 0 ] && echo && echo "Passed only through the gateway: ${better[*]}"

echo
echo "direct: $dp passed, $df failed"
echo "gateway: $gp passed, $gf failed"
status=0
if [ ${#differ[@]} -gt 0 ]; then
  echo "gateway fails ${#differ[@]} scenario(s) the direct server passes: ${differ[*]}"
  unknown=()
  for s in "${differ[@]}"; do
    case " $known_gaps " in
      *" $s "*) ;;
      *) unknown+=("$s") ;;
    esac
  done
  if [ ${#unknown[@]} -gt 0 ]; then
    status=1
  else
    echo "all of them are known gaps (GATEWAY_KNOWN_GAPS): reported, not failed"
  fi
fi
for s in "${scenarios[@]}"; do
  if [ "${res_d[$s]}" = NOSERVER ] || [ "${res_g[$s]}" = NOSERVER ]; then
    echo "a server did not start: not every scenario ran"
    status=1
    break
  fi
done
if [ $status -ne 0 ] && [ -z "$keep_out" ]; then keep_out=1; echo "logs kept in $out"; fi
exit $status
