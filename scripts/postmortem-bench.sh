#!/usr/bin/env bash
# zkx's post-mortem readers against ZooKeeper's own tools, side by side in
# one run, on files a real ZooKeeper 3.8 (Debian's zookeeper package) wrote:
# a transaction log of over 1,000,000 transactions and a snapshot of over
# 1,000,000 znodes.
#
#   scripts/postmortem-bench.sh [WORKDIR] [RUNS] [PART]
#
# PART is all (the default), tools (steps 2 to 4) or audit (steps 5 and 6).
#
# 1. The data (once; kept in WORKDIR, default /tmp/zkx-postmortem-bench,
#    and reused): ZooKeeper runs with snapCount=10000000 (every
#    transaction in one log), forceSync=no and its audit log on
#    (audit.enable=true, log4j 1.2 writing Slf4jAuditLogger's events to
#    WORKDIR/audit/zookeeper_audit.log in ZooKeeper's documented layout);
#    scripts/txngen creates 1000 × 1000 znodes and sets 100,000 of them
#    (1,101,002 transactions, as many audit events); ZooKeeper is stopped
#    and started again, and on start takes a snapshot of all it loaded
#    (1,001,002 znodes with the root twice, as it counts).
# 2. hyperfine, RUNS runs each (default 3) after one warm-up: zkx txnlog
#    (table, JSON Lines) against TxnLogToolkit on the log; zkx snapshot
#    against SnapshotFormatter on the snapshot. Output goes to /dev/null.
# 3. Peak memory of each (/usr/bin/time -v, maximum resident set size).
# 4. The explorer's first frame on the past, in tmux at 120×40: from the
#    start of zkx --data-dir to the first screen with the header, at the
#    end of the logs (the 1M-znode snapshot loaded) and at a zxid half way
#    through the log (the first snapshot, then half the log replayed).
#
# 5. The audit log: zkx audit against zkx txnlog on the same transactions,
#    per line; zkx history with and without --audit (the join); zkx txnlog
#    --audit (every transaction joined).
# 6. Putting a subtree back from the past: a second ZooKeeper gets
#    100 × 1000 znodes under /r, then 10,000 setData; a copy of its data
#    directory is the past; the server starts again on its files (the
#    10,000 changes live) and zkx mirror COPY@ZXID:/r /r --dry-run plans
#    the 10,000 sets back from the moment before the first setData; then
#    once for real, and zkx diff says the same.
#
# The machine's load is printed before and after: these figures mean
# something only side by side, on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-/tmp/zkx-postmortem-bench}
runs=${2:-3}
part=${3:-all}
jar=${ZKX_ZOOKEEPER_JAR:-/usr/share/java/zookeeper.jar}
mkdir -p "$work"
bin="$work/bin"
mkdir -p "$bin"
go build -o "$bin/zkx" .
go build -o "$bin/txngen" ./scripts/txngen
data="$work/data"
port=${PORT:-21999}

zk_start() { # log file [data dir [port]]: with its audit log in $work/audit
  local dir=${2:-$data} p=${3:-$port}
  port=$p
  mkdir -p "$work/audit"
  cat >"$work/zoo.cfg" <<CFG
tickTime=2000
dataDir=$dir
clientPort=$p
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=*
snapCount=10000000
forceSync=no
audit.enable=true
CFG
  # Debian's zookeeper.jar names slf4j-api and no binding: log4j 1.2
  # through slf4j-log4j12, the audit logger to its own file.
  cat >"$work/log4j.properties" <<PROPS
log4j.rootLogger=INFO, CONSOLE
log4j.appender.CONSOLE=org.apache.log4j.ConsoleAppender
log4j.appender.CONSOLE.layout=org.apache.log4j.PatternLayout
log4j.appender.CONSOLE.layout.ConversionPattern=%d{ISO8601} - %-5p [%t:%C{1}@%L] - %m%n
log4j.logger.org.apache.zookeeper.audit.Slf4jAuditLogger=INFO, AUDIT
log4j.additivity.org.apache.zookeeper.audit.Slf4jAuditLogger=false
log4j.appender.AUDIT=org.apache.log4j.FileAppender
log4j.appender.AUDIT.File=$work/audit/zookeeper_audit.log
log4j.appender.AUDIT.layout=org.apache.log4j.PatternLayout
log4j.appender.AUDIT.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n
PROPS
  local share
  share=$(dirname "$jar")
  java -Xmx3g -XX:+UseParallelGC -Dlog4j.configuration="file:$work/log4j.properties" \
    -cp "$jar:$share/slf4j-log4j12.jar:$share/log4j-1.2.jar" org.apache.zookeeper.server.quorum.QuorumPeerMain "$work/zoo.cfg" >"$1" 2>&1 &
  zk_pid=$!
  for _ in $(seq 600); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p" && printf srvr >&3 && grep -q "Mode: standalone" <&3) 2>/dev/null; then
      return
    fi
    sleep 0.5
  done
  echo "ZooKeeper did not start; see $1" >&2
  exit 1
}

peak() { # name, command...
  local name=$1; shift
  /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt" || true
  printf '%-22s %8s MB\n' "$name" "$(( $(awk -F': ' '/Maximum resident/ {print $2}' "$work/time.txt") / 1024 ))"
}

# A server left running by a failed step is stopped on the way out.
trap '[ -n "${zk_pid:-}" ] && kill "$zk_pid" 2>/dev/null; true' EXIT

zk_stop() {
  kill "$zk_pid"
  wait "$zk_pid" || true
  zk_pid=
}

if [ ! -e "$work/generated-audit" ]; then
  rm -rf "$data" "$work/audit"
  mkdir -p "$data"
  echo "# generating: 1000 x 1000 creates and 100,000 setData on a real ZooKeeper"
  zk_start "$work/zk-generate.log"
  "$bin/txngen" "127.0.0.1:$port" /bench 1000 1000 100000 64
  zk_stop
  echo "# restarting ZooKeeper: it snapshots what it loads"
  zk_start "$work/zk-snapshot.log"
  # The snapshot is written to a temporary file and renamed: once its
  # name is there, it is whole.
  for _ in $(seq 600); do
    ls "$data"/version-2/snapshot.* | grep -qv 'snapshot\.0$' && break
    sleep 0.5
  done
  zk_stop
  # The audit log of the transactions: the restart's own lines (its start,
  # the sessions it closed) go to a file of their own.
  mv "$work/audit/zookeeper_audit.log" "$work/audit.log"
  rm -rf "$work/audit"
  touch "$work/generated-audit"
fi

v2="$data/version-2"
log=$(ls "$v2"/log.* | head -n 1)
snap=$(ls -S "$v2"/snapshot.* | head -n 1)
echo "# files"
ls -l "$v2"
echo "# load: $(uptime)"
if [ "$part" != audit ]; then
toolkit=(java -cp "$jar" org.apache.zookeeper.server.persistence.TxnLogToolkit "$log")
formatter=(java -cp "$jar" org.apache.zookeeper.server.SnapshotFormatter "$snap")
echo "# $(${toolkit[@]} 2>/dev/null | tail -n 1)"
echo "# zkx snapshot: $("$bin/zkx" snapshot "$snap" | grep -c '^0x') nodes printed"

hyperfine --warmup 1 --runs "$runs" --export-markdown "$work/hyperfine.md" \
  -n "zkx txnlog (table)" "$bin/zkx txnlog $log" \
  -n "zkx txnlog -o json" "$bin/zkx txnlog -o json $log" \
  -n "TxnLogToolkit" "${toolkit[*]}" \
  -n "zkx snapshot" "$bin/zkx snapshot $snap" \
  -n "SnapshotFormatter" "${formatter[*]}"

echo "# peak memory"
peak "zkx txnlog (table)" "$bin/zkx" txnlog "$log"
peak "zkx txnlog -o json" "$bin/zkx" txnlog -o json "$log"
peak "TxnLogToolkit" "${toolkit[@]}"
peak "zkx snapshot" "$bin/zkx" snapshot "$snap"
peak "SnapshotFormatter" "${formatter[@]}"

echo "# the explorer's first frame on the past (tmux 120x40): wall time to the first screen, and"
echo "# the CPU (user+sys) zkx spent until it was asked to quit right after it"
frames=0
first_frame() { # name, zkx arguments...
  local name=$1; shift
  frames=$((frames + 1))
  local sock="zkx-bench-$$-$frames"
  local start end
  rm -f "$work/frame-time.txt"
  start=$(date +%s%N)
  tmux -L "$sock" new-session -d -s bench -x 120 -y 40 \
    "/usr/bin/time -f '%U %S %M' -o $work/frame-time.txt $bin/zkx $* 2>$work/frame-stderr.txt"
  until tmux -L "$sock" capture-pane -p -t bench 2>/dev/null | grep -q "READ-ONLY"; do
    sleep 0.02
    if [ $(( ($(date +%s%N) - start) / 1000000000 )) -gt 120 ]; then echo "$name: no frame in 120 s" >&2; break; fi
  done
  end=$(date +%s%N)
  tmux -L "$sock" capture-pane -p -t bench | head -n 1 >"$work/frame-$name.txt"
  tmux -L "$sock" send-keys -t bench C-c
  for _ in $(seq 100); do [ -s "$work/frame-time.txt" ] && break; sleep 0.1; done
  tmux -L "$sock" kill-server 2>/dev/null || true
  read -r user sys rss <"$work/frame-time.txt"
  printf '%-22s %6.2f s wall  %5.2f s CPU  %5d MB   %s\n' "$name" "$(echo "($end - $start) / 1000000000" | bc -l)" \
    "$(echo "$user + $sys" | bc -l)" "$((rss / 1024))" "$(cut -c1-60 "$work/frame-$name.txt")"
}
last=$("$bin/zkx" txnlog -o json "$log" | tail -n 1 | sed 's/.*"zxid":"\([^"]*\)".*/\1/')
half=$(printf '0x%x' $(( last / 2 )))
for _ in $(seq "$runs"); do
  first_frame end-of-logs --data-dir "$data"
  first_frame "at-$half" --data-dir "$data" --at "$half"
done

echo "# a history over the whole log (replayed from the first snapshot)"
/usr/bin/time -f '%e s wall, %U+%S s CPU, %M KB' "$bin/zkx" history /bench/d0000 --data-dir "$data" 2>&1 >/dev/null | tail -n 1
fi
echo "# load: $(uptime)"

if [ "$part" != tools ]; then
audit="$work/audit.log"
echo "# the audit log: $(wc -l <"$audit") lines, $(du -h "$audit" | cut -f1); the log: $("$bin/zkx" txnlog -o json "$log" | wc -l) transactions"
hyperfine --warmup 1 --runs "$runs" --export-markdown "$work/hyperfine-audit.md" \
  -n "zkx audit (table)" "$bin/zkx audit --zone UTC $audit" \
  -n "zkx audit -o json" "$bin/zkx audit --zone UTC -o json $audit" \
  -n "zkx txnlog (table)" "$bin/zkx txnlog $log" \
  -n "zkx txnlog -o json" "$bin/zkx txnlog -o json $log" \
  -n "zkx history" "$bin/zkx history /bench/d0000 --data-dir $data" \
  -n "zkx history --audit" "$bin/zkx history /bench/d0000 --data-dir $data --audit $audit --audit-zone UTC" \
  -n "zkx txnlog --audit (table)" "$bin/zkx txnlog $log --audit $audit --audit-zone UTC"
echo "# peak memory"
peak "zkx audit (table)" "$bin/zkx" audit --zone UTC "$audit"
peak "zkx history" "$bin/zkx" history /bench/d0000 --data-dir "$data"
peak "zkx history --audit" "$bin/zkx" history /bench/d0000 --data-dir "$data" --audit "$audit" --audit-zone UTC
peak "zkx txnlog --audit" "$bin/zkx" txnlog "$log" --audit "$audit" --audit-zone UTC
# /bench/d0000 holds no recipe: history's join has nothing to tell, and
# costs the reading of the audit log. txnlog's joins every transaction.
echo "# how txnlog --audit matched: $("$bin/zkx" txnlog -o json "$log" --audit "$audit" --audit-zone UTC | grep -o '"match":"[a-z]*"' | sort | uniq -c | tr '\n' ' ')"

# 6. A 100k-node subtree put back from the past.
rdata="$work/restore-data"
rpast="$work/restore-past"
rport=$((port + 1))
if [ ! -e "$work/generated-restore" ]; then
  rm -rf "$rdata" "$rpast"
  mkdir -p "$rdata"
  echo "# generating: 100 x 1000 creates under /r, then 10,000 setData"
  zk_start "$work/zk-restore.log" "$rdata" "$rport"
  "$bin/txngen" "127.0.0.1:$rport" /r 100 1000 10000 64
  zk_stop
  cp -r "$rdata" "$rpast"
  touch "$work/generated-restore"
fi
rm -rf "$work/audit"
# The live state with the 10,000 changes, afresh: the mirror --yes below
# puts /r back in the data directory it serves, which left a later run
# nothing to plan. The past's copy was taken right after the changes.
rm -rf "$rdata"
cp -r "$rpast" "$rdata"
zk_start "$work/zk-restore-live.log" "$rdata" "$rport"
# The moment before the first setData: the subtree as it was.
before=$("$bin/zkx" txnlog -o json --type setData "$rpast" | sed -n '1s/.*"zxid":"\(0x[0-9a-f]*\)".*/\1/p')
before=$(printf '0x%x' $((before - 1)))
echo "# the past: $rpast@$before:/r; the live /r has the 10,000 changes; load: $(uptime)"
hyperfine --warmup 1 --runs "$runs" --export-markdown "$work/hyperfine-mirror.md" \
  -n "zkx mirror --dry-run (past of /r, 100,101 nodes)" "$bin/zkx --server 127.0.0.1:$rport mirror $rpast@$before:/r /r --dry-run"
"$bin/zkx" --server "127.0.0.1:$rport" mirror "$rpast@$before:/r" /r --dry-run | tail -n 1
/usr/bin/time -f 'zkx mirror (writing): %e s wall, %U+%S s CPU, %M KB' "$bin/zkx" --server "127.0.0.1:$rport" mirror "$rpast@$before:/r" /r --yes | tail -n 1
"$bin/zkx" --server "127.0.0.1:$rport" diff "$rpast@$before:/r" /r && echo "# diff after: the same"
zk_stop
port=$((rport - 1))
fi
echo "# load: $(uptime)"
