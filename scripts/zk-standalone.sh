#!/usr/bin/env bash
# Runs Debian's ZooKeeper (package zookeeper, 3.8) as one standalone server
# in the foreground, for the benchmarks and for trying zkx on a real
# server: client port PORT on 127.0.0.1, every four-letter word allowed, no
# limit on connections from one address (the demo's sweeps open hundreds),
# no AdminServer. Its data goes to DATADIR (default: a temporary directory,
# removed when it stops). Ctrl-C stops it.
#
# Usage: scripts/zk-standalone.sh [PORT=2181] [DATADIR]
# Environment: ZK_TICK (tickTime in ms, default 2000), ZK_HEAP (default 2g:
# a million znodes need about 1 GB), ZK_FSYNC (default yes; no turns
# forceSync off, which measures the server without the disk).
set -euo pipefail
cd "$(dirname "$0")/.."
port=${1:-2181}
datadir=${2:-}
jar=/usr/share/java/zookeeper.jar
if [ ! -f "$jar" ] || ! command -v java >/dev/null; then
  echo "zk-standalone: needs java and $jar (apt-get install -y zookeeper)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "$datadir" ] || datadir="$work/data"
mkdir -p "$datadir"
cat >"$work/zoo.cfg" <<CFG
tickTime=${ZK_TICK:-2000}
dataDir=$datadir
clientPort=$port
clientPortAddress=127.0.0.1
maxClientCnxns=0
4lw.commands.whitelist=*
admin.enableServer=false
forceSync=${ZK_FSYNC:-yes}
CFG
classpath=$jar
# Debian's zookeeper.jar names slf4j-api but no binding; slf4j-simple makes
# the server's log readable.
[ -f /usr/share/java/slf4j-simple.jar ] && classpath="$classpath:/usr/share/java/slf4j-simple.jar"
echo "zk-standalone: ZooKeeper on 127.0.0.1:$port, data in $datadir" >&2
java -Xmx"${ZK_HEAP:-2g}" -XX:+UseSerialGC -Dzookeeper.extendedTypesEnabled=true \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -Dorg.slf4j.simpleLogger.log.org.apache.zookeeper.server.NIOServerCnxn=error \
  -Dorg.slf4j.simpleLogger.log.org.apache.zookeeper.server.ZooKeeperServer=error \
  -cp "$classpath" org.apache.zookeeper.server.ZooKeeperServerMain "$work/zoo.cfg" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
wait "$pid"
