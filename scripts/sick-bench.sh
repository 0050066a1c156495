#!/usr/bin/env bash
# How long zkx's on-call commands take when the ensemble itself is sick
# (issue 28): a real 3-member ZooKeeper 3.8 (Debian's) in its default
# configuration — four-letter words: srvr only; each member's AdminServer
# on a port other than 8080; tickTime 2000 — with a Curator
# InterProcessReadWriteLock held by two readers and a writer waiting, a
# Curator LeaderLatch, and a mutex, each contender a JVM of its own
# (testdata/interop/curator/RolePeer). Then the first reader's JVM (which
# also leads the latch and holds the mutex) is frozen with SIGSTOP, as a
# process stuck in GC, and so is one follower (its client port and its
# AdminServer stop answering). Every binary given runs the same commands,
# one after another, and the script prints one table row per command and
# binary: its wall time, its exit status and the first line of its stderr.
#
#   scripts/sick-bench.sh ZKX_BINARY [ZKX_BINARY...]
#   scripts/sick-bench.sh --scene     # the scene alone, frozen, until Enter: try zkx on it by hand
#
# e.g. to compare main with a branch:
#
#   git -C /work/main worktree add /tmp/zkx-main main && (cd /tmp/zkx-main && go build -o /tmp/zkx-before .)
#   go build -o /tmp/zkx-after . && scripts/sick-bench.sh /tmp/zkx-before /tmp/zkx-after
#
# Each binary gets a scene of its own (new peers under /sickN, the same
# ensemble, the follower frozen anew), so that one binary's unlock does not
# change what the next one finds. The frozen reader's session timeout is
# 40 s (the most tickTime 2000 allows): the commands of a slow binary may
# outlast it, which its rows then show (locks --check exits 0 instead of 2).
# The writer asks its server something every 500 ms (a busy, live client):
# the JSON of `locks` should never call it silent.
#
# Needs java, javac, Debian's zookeeper, libcurator-recipes-java and
# libservlet-api-java (for the AdminServers).
# Environment: KEEP=1 leaves the ensemble's directory (logs) behind.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/sick-bench.sh ZKX_BINARY [ZKX_BINARY...] | --scene" >&2; exit 2; }
scene_only=""
bins=()
if [ "$1" = "--scene" ]; then scene_only=yes; bins=(scene); else
  for b in "$@"; do bins+=("$(realpath "$b")"); done
fi
jars=/usr/share/java
for f in zookeeper.jar zookeeper-jute.jar servlet-api.jar curator-recipes.jar slf4j-simple.jar; do
  [ -f "$jars/$f" ] || { echo "sick-bench: needs $jars/$f (apt-get install -y zookeeper libcurator-recipes-java libservlet-api-java)" >&2; exit 1; }
done
command -v javac >/dev/null || { echo "sick-bench: needs javac (apt-get install -y default-jdk-headless)" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -CONT -- "-$p" 2>/dev/null || true; kill -KILL -- "-$p" 2>/dev/null || true; done
  if [ -n "${KEEP:-}" ]; then echo "sick-bench: left $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# Free loopback ports: 3 per member for the quorum, and an AdminServer each.
read -r -a ports <<<"$(python3 -c '
import socket
socks = [socket.socket() for _ in range(12)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))')"
connect=""; admins=""
for i in 1 2 3; do
  client=${ports[$(( (i-1)*4 ))]}; admin=${ports[$(( (i-1)*4+3 ))]}
  connect="$connect${connect:+,}127.0.0.1:$client"
  admins="$admins${admins:+,}http://127.0.0.1:$admin/commands"
done

# srvr ADDR: the member's srvr answer, "" when it does not answer in 2 s.
srvr() {
  timeout 2 bash -c "exec 3<>/dev/tcp/${1%:*}/${1#*:} && printf srvr >&3 && cat <&3" 2>/dev/null || true
}

cp_server="$jars/zookeeper.jar:$jars/servlet-api.jar:$jars/slf4j-simple.jar"
for i in 1 2 3; do
  d="$work/zk$i"; mkdir -p "$d/data"; echo "$i" >"$d/data/myid"
  {
    echo "tickTime=2000"; echo "initLimit=10"; echo "syncLimit=5"
    echo "dataDir=$d/data"
    echo "clientPort=${ports[$(( (i-1)*4 ))]}"; echo "clientPortAddress=127.0.0.1"
    echo "admin.serverAddress=127.0.0.1"; echo "admin.serverPort=${ports[$(( (i-1)*4+3 ))]}"
    echo "reconfigEnabled=false"
    for j in 1 2 3; do echo "server.$j=127.0.0.1:${ports[$(( (j-1)*4+1 ))]}:${ports[$(( (j-1)*4+2 ))]}"; done
  } >"$d/zoo.cfg"
  setsid java -Xmx256m -XX:+UseSerialGC -XX:-UsePerfData -Dorg.slf4j.simpleLogger.showDateTime=true \
    -cp "$cp_server" org.apache.zookeeper.server.quorum.QuorumPeerMain "$d/zoo.cfg" >"$d/zookeeper.log" 2>&1 &
  pids+=($!)
  disown # killed by the cleanup, without bash reporting it
done
members=(${connect//,/ })
leader="" followers=()
wait_quorum() { # until one leader and two followers answer srvr
  local deadline=$((SECONDS + 90))
  while :; do
    leader="" followers=()
    for m in "${members[@]}"; do
      case "$(srvr "$m")" in
        *"Mode: leader"*) leader=$m ;;
        *"Mode: follower"*) followers+=("$m") ;;
      esac
    done
    [ -n "$leader" ] && [ ${#followers[@]} -eq 2 ] && return 0
    [ $SECONDS -lt $deadline ] || { echo "sick-bench: no quorum at $connect after 90 s" >&2; exit 1; }
    sleep 0.2
  done
}
wait_quorum
member_pid() { # the JVM of a member, by its client address
  local k; for k in 0 1 2; do [ "${members[$k]}" = "$1" ] && echo "${pids[$k]}"; done
}

mkdir -p "$work/classes"
cp_curator="$jars/curator-client.jar:$jars/curator-framework.jar:$jars/curator-recipes.jar:$jars/guava.jar:$jars/slf4j-api.jar:$jars/slf4j-simple.jar:$jars/zookeeper.jar:$jars/zookeeper-jute.jar"
javac -d "$work/classes" -cp "$cp_curator" testdata/interop/curator/RolePeer.java

# peer NAME SESSION_MS TOUCH_MS ROLE:PATH...: starts a RolePeer on its own
# fifo for stdin and waits until it has queued every recipe.
peer() {
  local name=$1 session=$2 touch=$3; shift 3
  mkfifo "$work/$name.in"
  setsid java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dorg.slf4j.simpleLogger.log.org.apache.zookeeper.ClientCnxn=error \
    -XX:TieredStopAtLevel=1 -XX:-UsePerfData -Dpeer.sessionTimeoutMs="$session" -Dpeer.touchMs="$touch" \
    -cp "$work/classes:$cp_curator" RolePeer "${connect_peer:-$connect}" "$@" <"$work/$name.in" >"$work/$name.out" 2>&1 &
  pids+=($!)
  eval "peer_$name=$!"
  disown
  exec {fd}>"$work/$name.in" # keeps its stdin open
  local want=$# deadline=$((SECONDS + 60))
  local queued=0
  until [ "$queued" -ge "$want" ]; do
    [ $SECONDS -lt $deadline ] || { echo "sick-bench: peer $name did not queue: $(cat "$work/$name.out")" >&2; exit 1; }
    sleep 0.1
    queued=$(grep -c '^QUEUED' "$work/$name.out" 2>/dev/null || true)
    queued=${queued:-0}
  done
}

[ -n "$scene_only" ] || printf '%-24s %-20s %8s %5s  %s\n' COMMAND BINARY WALL_S EXIT "STDERR (first line)"
run() { # binary label args...
  local bin=$1 label=$2; shift 2
  local start end err
  start=$(date +%s.%N)
  set +e
  ZKX_ADMIN_URL=${admin_env-$admins} timeout -s KILL 120 "$bin" --server "$connect" "$@" >"$work/out" 2>"$work/err"
  local status=$?
  set -e
  end=$(date +%s.%N)
  err=$(grep -v '^\s*$' "$work/err" | head -n 1 | cut -c1-150 || true)
  printf '%-24s %-20s %8.1f %5d  %s\n' "$label" "$(basename "$bin")" "$(echo "$end - $start" | bc)" "$status" "$err"
  cp "$work/out" "$work/$(basename "$bin").$(echo "$label" | tr ' ' '_').out"
  cp "$work/err" "$work/$(basename "$bin").$(echo "$label" | tr ' ' '_').err"
}

n=0
for bin in "${bins[@]}"; do
  n=$((n + 1)); base=/sick$n
  wait_quorum
  # The follower to freeze. The peers talk to the other members (as a
  # client of a frozen member does once its read timeout has passed), so
  # that every binary judges the same scene: the frozen reader's silence
  # is then read from its own, healthy, member.
  frozen_member=${followers[0]}
  healthy="$leader,${followers[1]}"
  connect_peer=$healthy peer "r1_$n" 40000 0 "read:$base/rw" "latch:$base/leader" "mutex:$base/mutex"
  connect_peer=$healthy peer "r2_$n" 10000 0 "read:$base/rw"
  connect_peer=$healthy peer "w3_$n" 10000 500 "write:$base/rw"
  connect_peer=$healthy peer "l4_$n" 10000 0 "latch:$base/leader"
  eval "holder=\$peer_r1_$n"
  echo "# sessions: $(for p in r1 r2 w3 l4; do printf '%s=%s ' "$p" "$(sed -n 's/^SESSION //p' "$work/${p}_$n.out")"; done)(r1 reads, leads and holds the mutex; r2 reads; w3 writes, asking every 500 ms; l4 waits to lead)" >&2
  kill -STOP -- "-$(member_pid "$frozen_member")"
  kill -STOP -- "-$holder"
  echo "# $(basename "$bin"): froze follower $frozen_member and the first reader (pid $holder); load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  if [ -n "$scene_only" ]; then
    echo "# the scene is under $base; try:" >&2
    echo "  ZKX_ADMIN_URL=$admins zkx --server $connect locks $base -l" >&2
    echo "  ZKX_ADMIN_URL=$admins zkx --server $connect --readonly --path $base" >&2
    echo "# Enter ends it" >&2
    read -r _
    break
  fi
  run "$bin" "unlock" unlock "$base/mutex" --yes
  run "$bin" "locks (AdminServers)" locks "$base" -o json
  run "$bin" "elections (AdminServers)" elections "$base" -o json
  run "$bin" "sessions (AdminServers)" sessions -o json
  run "$bin" "locks --check (Admin…)" locks --check "$base"
  admin_env="" run "$bin" "locks (4lw only)" locks "$base" -o json
  # What locks -o json said of each contender's liveness.
  jq -r --arg bin "$(basename "$bin")" '.[] | .path as $p | (.holders + .waiters)[] |
      "# \($bin) locks: \($p) \(.kind) \(.session) last_heard_ms=\(.last_heard_ms // "unknown")\(if .last_heard_at_least then " (at least)" else "" end) silent=\(.silent // false)"' \
    "$work/$(basename "$bin").locks_(AdminServers).out" >&2 || true
  kill -CONT -- "-$(member_pid "$frozen_member")"
  kill -CONT -- "-$holder"
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); outputs in $work (KEEP=1 keeps them)" >&2
