#!/usr/bin/env bash
# The explorer under churn (issue 29), side by side: for each ZKX binary,
# scripts/churnbench opens it in tmux at 120×40 on /storm (expanded, its
# History tab showing), measures it idle, runs scripts/churngen against
# /storm (8 goroutines creating and deleting children on one pipelined
# go-zookeeper session, as fast as the server answers) for MINUTES, and
# measures it again: CPU, requests sent and notifications received per
# second (the server's cons), key-to-frame latency, RSS. One server serves
# every run: `zkx serve` (built from this checkout) or Debian's ZooKeeper
# 3.8 (scripts/zk-standalone.sh, every four-letter word allowed).
#
# Usage: scripts/churn-bench.sh serve|zookeeper MINUTES ZKX [ZKX...]
# e.g.   git stash; go build -o /tmp/zkx-main .; git stash pop; go build -o /tmp/zkx-new .
#        scripts/churn-bench.sh serve 1 /tmp/zkx-main /tmp/zkx-new
# Environment: PORT (default 21810), RATE (cap the churn at RATE operations a
# second, e.g. 16000 as in issue 29; default: as fast as the server answers), SCREENS (a directory for the screens
# seen idle, under churn and after it), CHURN_PATH (churn that directory instead: the machine as busy, the explorer's
# node quiet), SAMPLES (key presses timed each way, default 30).
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: scripts/churn-bench.sh serve|zookeeper MINUTES ZKX [ZKX...]}
minutes=${2:?usage: scripts/churn-bench.sh serve|zookeeper MINUTES ZKX [ZKX...]}
shift 2
[ $# -gt 0 ] || { echo "churn-bench: name at least one zkx binary" >&2; exit 2; }
port=${PORT:-21810}
work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT INT TERM
go build -o "$work/churngen" ./scripts/churngen
go build -o "$work/churnbench" ./scripts/churnbench
case "$kind" in
  serve)
    go build -o "$work/zkx-server" .
    # cons is counted: every four-letter word answered, no connection bound.
    "$work/zkx-server" serve --listen "127.0.0.1:$port" --4lw-whitelist "*" --max-client-cnxns 0 &
    server_pid=$! ;;
  zookeeper)
    scripts/zk-standalone.sh "$port" &
    server_pid=$! ;;
  *) echo "churn-bench: serve or zookeeper, not $kind" >&2; exit 2 ;;
esac
for _ in $(seq 1 300); do
  if [ "$( { exec 3<>"/dev/tcp/127.0.0.1/$port" && printf ruok >&3 && head -c 4 <&3; } 2>/dev/null)" = imok ]; then break; fi
  sleep 0.2
done
echo "# $kind on 127.0.0.1:$port, $(nproc) cores, churn for $minutes min" >&2
for zkx in "$@"; do
  "$work/churnbench" -zkx "$zkx" -churngen "$work/churngen" -server "127.0.0.1:$port" -minutes "$minutes" \
    -label "$(basename "$zkx")" -rate "${RATE:-0}" ${SCREENS:+-screens "$SCREENS"} ${CHURN_PATH:+-churn-path "$CHURN_PATH"} -samples "${SAMPLES:-30}"
done
