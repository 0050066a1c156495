#!/usr/bin/env bash
# Lock handoff figures side by side on one server: recipes.Mutex and
# go-zookeeper's zk.Lock (scripts/lockbench), Curator's InterProcessMutex
# (scripts/lockbench-curator, compiled here against Debian's jars) and
# Kazoo's Lock (scripts/lockbench-kazoo), one after another, repeated ROUNDS
# times so that a noisy machine shows as spread rather than as a verdict;
# then the delete-to-event floor of that server. Every program prints the
# same line (see scripts/lockbench/main.go).
#
# Usage: scripts/bench-locks.sh HOST:PORT [N=10] [SECONDS=10] [ROUNDS=3]
# Needs Go; for Curator javac and libcurator-recipes-java, for Kazoo
# python3-kazoo (Debian's /usr/bin/python3, or $PYTHON). A missing one is
# named and left out.
set -euo pipefail
cd "$(dirname "$0")/.."
server=${1:?usage: scripts/bench-locks.sh HOST:PORT [N] [SECONDS] [ROUNDS]}
n=${2:-10}; secs=${3:-10}; rounds=${4:-3}
py=${PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/lockbench" ./scripts/lockbench

# Curator and what it needs at run time, from Debian's packages.
curator_cp=""
jars=(curator-client curator-framework curator-recipes guava slf4j-api slf4j-simple zookeeper zookeeper-jute)
missing=""
for j in "${jars[@]}"; do
  [ -f "/usr/share/java/$j.jar" ] || missing="$missing $j.jar"
  curator_cp="$curator_cp${curator_cp:+:}/usr/share/java/$j.jar"
done
if [ -n "$missing" ] || ! command -v javac >/dev/null; then
  echo "# Curator left out: needs javac and$missing (apt-get install -y default-jdk-headless libcurator-recipes-java)" >&2
  curator_cp=""
else
  javac -d "$work/classes" -cp "$curator_cp" scripts/lockbench-curator/LockBench.java
fi
kazoo=yes
if ! "$py" -c 'import kazoo.client' 2>/dev/null; then
  echo "# Kazoo left out: $py cannot import kazoo (apt-get install -y python3-kazoo)" >&2
  kazoo=""
fi

for r in $(seq 1 "$rounds"); do
  echo "# round $r"
  "$work/lockbench" "$server" "$n" "$secs" zkx 2>/dev/null
  "$work/lockbench" "$server" "$n" "$secs" gozk
  if [ -n "$curator_cp" ]; then
    java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
      -Dorg.slf4j.simpleLogger.log.org.apache.zookeeper.ClientCnxn=error \
      -cp "$work/classes:$curator_cp" LockBench "$server" "$n" "$secs"
  fi
  if [ -n "$kazoo" ]; then
    "$py" scripts/lockbench-kazoo/lockbench.py "$server" "$n" "$secs"
  fi
done
"$work/lockbench" "$server" "$n" "$secs" floor
