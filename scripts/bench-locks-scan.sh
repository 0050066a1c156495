#!/usr/bin/env bash
# Times `zkx locks BASE -o json` over 1,000 Curator-layout lock directories,
# each with a holder and a waiter on separate sessions (the issue's target:
# at most 2 s on real ZooKeeper). The state is created under a fresh
# /zkt-BenchmarkLocksCommand-… path on $ZK_SERVERS by BenchmarkLocksCommand
# (cmd/recipes_bench_test.go, which uses zktest.LockDirs) and deleted
# afterwards. Each benchmark line is one run of the whole command: connect,
# introspect (cons, dump, wchc, wchp), scan, print. "inprocess" runs it in
# the test binary, "binary" the zkx executable built here (process start
# included). One line per run: RUNS runs of each.
#
# Usage: ZK_SERVERS=HOST:PORT scripts/bench-locks-scan.sh [RUNS=5]
set -euo pipefail
cd "$(dirname "$0")/.."
: "${ZK_SERVERS:?set ZK_SERVERS to the ZooKeeper to measure on, e.g. ZK_SERVERS=127.0.0.1:2181}"
runs=${1:-5}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/zkx" .
echo "# zkx locks BASE -o json over 1000 lock directories on $ZK_SERVERS, $runs runs"
ZK_SERVERS="$ZK_SERVERS" ZKX_BENCH_BIN="$bin/zkx" \
  go test -run '^$' -bench '^BenchmarkLocksCommand$' -benchtime 1x -count "$runs" ./cmd |
  awk '/^BenchmarkLocksCommand/ { printf "%-40s %8.3f s\n", $1, $3 / 1e9; next } { print }'
