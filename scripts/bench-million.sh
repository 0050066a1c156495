#!/usr/bin/env bash
# Scans of a large tree, side by side on one ZooKeeper: zkx tree / (batched
# with multiRead, and a request per node), zkx locks / (from the servers'
# ephemeral list, and walking), zkx queues / and zkx systems / (walking), and zkCli.sh ls -R
# (with ZKCLI=1: it takes minutes). Each line: the command, seconds, peak RSS.
#
# The tree: scripts/populate (1000 x 1000 under /big, 1,001,001 znodes)
# plus 100 held-and-waited locks and 50 queues spread through it by
# scripts/spreadrecipes, which must be running while this measures:
#
#   go run ./scripts/populate 127.0.0.1:2181 /big 1000 1000
#   go run ./scripts/spreadrecipes 127.0.0.1:2181 /big 100 50 2 &   # READY …
#   ZK_SERVERS=127.0.0.1:2181 scripts/bench-million.sh [RUNS=3]
#
# scripts/zk-standalone.sh runs the ZooKeeper to measure on.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${ZK_SERVERS:?set ZK_SERVERS to the ZooKeeper to measure on, e.g. ZK_SERVERS=127.0.0.1:2181}"
runs=${1:-3}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/zkx" .
measure() { # name, command...
  local name=$1; shift
  for _ in $(seq "$runs"); do
    # -q: no "Command exited with non-zero status" line; %x says it instead.
    /usr/bin/env time -q -f "%e %M %x" -o "$bin/t" "$@" >"$bin/out" 2>"$bin/err" || true
    read -r secs kb status <"$bin/t"
    printf '%-34s %7.2f s %6d MB  %s' "$name" "$secs" "$((kb / 1024))" "$(wc -l <"$bin/out") lines"
    if [ "$status" != 0 ]; then printf '  exit %s: %s' "$status" "$(tail -n 1 "$bin/err")"; fi
    echo
  done
}
echo "# $ZK_SERVERS, $runs runs each"
measure "zkx tree / (multiRead)" "$bin/zkx" --server "$ZK_SERVERS" tree /
measure "zkx tree / --batch=false" "$bin/zkx" --server "$ZK_SERVERS" tree / --batch=false
measure "zkx locks / (ephemeral list)" "$bin/zkx" --server "$ZK_SERVERS" locks / -o json
measure "zkx locks / --walk" "$bin/zkx" --server "$ZK_SERVERS" locks / --walk -o json
measure "zkx locks / --walk --batch=false" "$bin/zkx" --server "$ZK_SERVERS" locks / --walk --batch=false -o json
measure "zkx queues /" "$bin/zkx" --server "$ZK_SERVERS" queues / -o json
measure "zkx systems /" "$bin/zkx" --server "$ZK_SERVERS" systems / -o json
if [ "${ZKCLI:-0}" = 1 ]; then
  zkcli=${ZKCLI_SH:-/usr/share/zookeeper/bin/zkCli.sh}
  runs=1 measure "zkCli.sh ls -R /" "$zkcli" -server "$ZK_SERVERS" ls -R /
fi
