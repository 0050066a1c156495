#!/usr/bin/env bash
# Runs a zkx binary against each misbehaving fake server of
# internal/testkit/fakezk (served by scripts/fakezk) and prints one table
# row per case: the command, its exit status, its wall time and the first
# line it printed on stderr. docs/robustness.md shows the table before and
# after the validating dial wrapper.
#
# Usage: scripts/hostile-servers.sh ZKX_BINARY [TIMEOUT=5s] [CAP=120]
# CAP bounds each run (seconds): a run still going then is killed and shown
# as "killed after CAP s". Each run gets at most 8 GiB of address space.
set -uo pipefail
cd "$(dirname "$0")/.."
zkx=${1:?usage: scripts/hostile-servers.sh ZKX_BINARY [TIMEOUT] [CAP]}
timeout=${2:-5s}; cap=${3:-120}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$work/fakezk" ./scripts/fakezk || exit 1
run() { # case, zkx args...
  local name=$1; shift
  "$work/fakezk" "$name" >"$work/addr" 2>/dev/null &
  local fake=$!
  for _ in $(seq 100); do grep -q listening "$work/addr" 2>/dev/null && break; sleep 0.05; done
  local addr; addr=$(awk '{print $NF}' "$work/addr")
  local start end status
  start=$(date +%s.%N)
  # At most 8 GiB of address space: a client that allocates what a hostile
  # length says fails alone instead of pressing the whole machine.
  (ulimit -v 8388608; exec timeout -s KILL "$cap" "$zkx" --server "$addr" "$@" >"$work/out" 2>"$work/err")
  status=$?
  end=$(date +%s.%N)
  kill "$fake" 2>/dev/null; wait "$fake" 2>/dev/null
  local said; said=$(grep -v '^\s*$' "$work/err" | head -c 300 | head -n 3 | tr '\n' ' ' | tr -d '\033\007' | cut -c1-160)
  [ "$status" = 137 ] && said="killed after ${cap}s; ${said}"
  printf '| %s | `zkx %s` | %s | %.1f s | %s |\n' "$name" "$*" "$status" "$(echo "$end - $start" | bc)" "$said"
}
echo "| case | command | exit | wall | stderr (first line) |"
echo "|---|---|---|---|---|"
run timeout-zero ls --timeout "$timeout" /
run huge-vector ls --timeout "$timeout" /
run pings-only ls --timeout "$timeout" /
run pings-only get --timeout "$timeout" /zookeeper
run pings-only tree --timeout "$timeout" /
run wrong-xids ls --timeout "$timeout" /
run notification-flood ls --timeout "$timeout" /
run silent-after-handshake tree --timeout 30s /
run random-bytes ls --timeout 30s /
run huge-frame ls --timeout 30s /
run http ls --timeout 30s /
run silent ls --timeout 30s /
