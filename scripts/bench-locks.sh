#!/usr/bin/env bash
# Lock handoff figures side by side: recipes.Mutex (scripts/lockbench) and
# the anchor programs (Curator InterProcessMutex, Kazoo Lock, go-zookeeper
# zk.Lock), one after another on the same server, repeated ROUNDS times so
# that a noisy machine shows as spread rather than as a verdict; then the
# delete-to-event floor of that server.
#
# Usage: scripts/bench-locks.sh HOST:PORT [N=10] [SECONDS=10] [ROUNDS=3] [ANCHORS=../shared/anchors]
# Needs Go, and for the anchors Java with libcurator-recipes-java and python3-kazoo.
set -euo pipefail
cd "$(dirname "$0")/.."
server=${1:?usage: scripts/bench-locks.sh HOST:PORT [N] [SECONDS] [ROUNDS] [ANCHORS]}
n=${2:-10}; secs=${3:-10}; rounds=${4:-3}; anchors=${5:-../shared/anchors}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/lockbench" ./scripts/lockbench
for r in $(seq 1 "$rounds"); do
  echo "# round $r"
  "$bin/lockbench" "$server" "$n" "$secs" zkx 2>/dev/null
  if [ -x "$anchors/run.sh" ] || [ -f "$anchors/run.sh" ]; then
    bash "$anchors/run.sh" "$server" "$n" "$secs" all
  else
    echo "# anchors not found at $anchors: zkx only" >&2
  fi
done
"$bin/lockbench" "$server" "$n" "$secs" floor
