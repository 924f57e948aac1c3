#!/usr/bin/env bash
# Compares ways of deciding a tool call on this machine, side by side: the
# rule of the example plugin read-only written natively in Go, in CEL
# (cel-go), in Cedar (cedar-go), in Rego (OPA), as a shell command hook, and
# run as mcphost's own Wasm plugins (Rust read-only, Go deny-destructive)
# through the host API; and the transform_result plugin redact-secrets
# against Go's regexp package on text results of 1 KiB to 16 MiB. The
# benchmarks live in bench/policy-engines, a module of its own, so that the
# product module never depends on the policy engines (see its README.md).
#
#   scripts/bench-policy-engines.sh
#   BENCHTIME=2s COUNT=10 scripts/bench-policy-engines.sh
#   MCPHOST_BUILT_PLUGINS=DIR scripts/bench-policy-engines.sh   # plugins already built
#
# The plugins are built into a temporary directory with
# scripts/build-plugins.sh unless MCPHOST_BUILT_PLUGINS names a directory
# that has them. The correctness tests run first (every engine must decide
# alike). Raw benchmark output goes to stderr; stdout gets the machine's
# description and two Markdown tables of medians over the COUNT runs. It is
# a benchmark, not a test: numbers depend on the machine and on what else
# runs on it.
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${BENCHTIME:-1s}
count=${COUNT:-5}

say() { printf 'bench-policy-engines: %s\n' "$*" >&2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-policy-engines.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ -z "${MCPHOST_BUILT_PLUGINS:-}" ]; then
  say "building the example plugins"
  # Build only: the plugins' own tests are not what this script measures.
  NO_TESTS=${NO_TESTS:-1} scripts/build-plugins.sh "$tmp/plugins" >&2
  MCPHOST_BUILT_PLUGINS=$tmp/plugins
fi
MCPHOST_BUILT_PLUGINS=$(cd "$MCPHOST_BUILT_PLUGINS" && pwd)
for name in read-only deny-destructive redact-secrets; do
  if [ ! -f "$MCPHOST_BUILT_PLUGINS/$name.wasm" ]; then
    say "$MCPHOST_BUILT_PLUGINS has no $name.wasm (build with scripts/build-plugins.sh DIR)"
    exit 1
  fi
done
export MCPHOST_BUILT_PLUGINS
# One compilation cache for every run: each module is compiled once.
export MCPHOST_BENCH_CACHE_DIR=$tmp/cache

ncpu=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
cpus=1,2
if [ "$ncpu" -ge 4 ]; then
  cpus=1,2,4
fi

cd bench/policy-engines
go build -o "$tmp/table" ./cmd/table

say "checking that every engine decides alike"
go test -count=1 ./... >&2

# Serial decisions and transforms at the machine's GOMAXPROCS; the parallel
# decisions at each -cpu.
say "serial decisions and transforms (-benchtime $benchtime -count $count)"
go test -run '^$' -bench '^Benchmark(Decide|Transform)$' -benchtime "$benchtime" -count "$count" -timeout 0 . |
  tee "$tmp/serial.txt" >&2
say "parallel decisions (-cpu $cpus)"
go test -run '^$' -bench '^BenchmarkDecideParallel$' -cpu "$cpus" -benchtime "$benchtime" -count "$count" -timeout 0 . |
  tee "$tmp/parallel.txt" >&2

model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
if [ -z "$model" ]; then
  model=$(sysctl -n machdep.cpu.brand_string 2>/dev/null || echo unknown)
fi
load=$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)
echo "Machine: $model, $ncpu CPUs (nproc), $(go version | cut -d ' ' -f 3-)."
echo "Medians of $count runs of -benchtime $benchtime; parallel at -cpu $cpus; load average after the runs: $load."
echo
"$tmp/table" "$tmp/serial.txt" "$tmp/parallel.txt"
