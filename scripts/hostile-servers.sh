#!/usr/bin/env bash
# Runs a zkx binary through the cases of issue 22 and prints one table row
# per case: the command, its exit status, its wall time and what it said
# (the first lines of stderr, or what it did). docs/robustness.md shows the
# table for zkx before and after the fixes.
#
#   1. misbehaving servers: each fake server of internal/testkit/fakezk
#      (served by scripts/fakezk);
#   2. a real-enough server (the binary's own zkx serve) and bad input:
#      walks of a missing root, an unreadable node, bad imports, escape
#      sequences in --server, invisible runes in JSON.
#
# Usage: scripts/hostile-servers.sh ZKX_BINARY [TIMEOUT=5s] [CAP=120] [PARTS=12]
# CAP bounds each run (seconds): a run still going then is killed and shown
# as "killed after CAP s". Each run gets at most 8 GiB of address space.
set -uo pipefail
cd "$(dirname "$0")/.."
zkx=$(realpath "${1:?usage: scripts/hostile-servers.sh ZKX_BINARY [TIMEOUT] [CAP]}")
timeout=${2:-5s}; cap=${3:-120}; parts=${4:-12}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$work/fakezk" ./scripts/fakezk || exit 1

# row CASE SAID ARGS...: runs zkx ARGS, prints the row (SAID, when given,
# replaces stderr in the last column).
status=0 took=0
timed() {
  local start end
  start=$(date +%s.%N)
  # At most 8 GiB of address space: a client that allocates what a hostile
  # length says fails alone instead of pressing the whole machine.
  (ulimit -v 8388608; exec timeout -s KILL "$cap" "$zkx" "$@" >"$work/out" 2>"$work/err") 2>/dev/null
  status=$?
  end=$(date +%s.%N)
  took=$(echo "$end - $start" | bc)
}
said() { grep -v '^\s*$' "$work/err" | head -n 3 | tr '\n' ' ' | LC_ALL=C sed 's/\x1b/<ESC>/g; s/\x07/<BEL>/g' | cut -c1-170; }
row() { # case, note, args...
  local name=$1 note=$2; shift 2
  local text; text=$(said)
  [ "$status" = 137 ] && text="killed after ${cap}s; ${text}"
  [ -n "$note" ] && text="$note; $text"
  printf '| %s | `zkx %s` | %s | %.1f s | %s |\n' "$name" "$(echo "$*" | LC_ALL=C sed 's/\x1b/<ESC>/g; s/\x07/<BEL>/g')" "$status" "$took" "$text"
}

echo "| case | command | exit | wall | what it said / did |"
echo "|---|---|---|---|---|"

fake() { # case, zkx args...
  local name=$1; shift
  local addrfile; addrfile=$(mktemp -p "$work")
  "$work/fakezk" "$name" >"$addrfile" 2>/dev/null &
  local pid=$!
  for _ in $(seq 100); do grep -q listening "$addrfile" && break; sleep 0.05; done
  local addr; addr=$(awk '{print $NF}' "$addrfile")
  timed --server "$addr" "$@"
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  row "$name" "" "$@"
}
if [[ $parts == *1* ]]; then
fake timeout-zero ls --timeout "$timeout" /
fake huge-vector ls --timeout "$timeout" /
fake pings-only ls --timeout "$timeout" /
fake pings-only get --timeout "$timeout" /zookeeper
fake pings-only tree --timeout "$timeout" /
fake pings-only --session-timeout 3s ls --timeout 30s /
fake wrong-xids ls --timeout "$timeout" /
fake notification-flood ls --timeout "$timeout" /
fake silent-after-handshake tree --timeout 30s /
fake random-bytes ls --timeout 30s /
fake huge-frame ls --timeout 30s /
fake http ls --timeout 30s /
fake silent ls --timeout 30s /
fi
[[ $parts == *2* ]] || exit 0

# Part 2: the binary's own embedded server.
"$zkx" serve --listen 127.0.0.1:0 >"$work/serve" 2>&1 &
serve=$!
for _ in $(seq 100); do grep -qs "listening on" "$work/serve" && break; sleep 0.05; done
server=$(grep -o 'listening on [^ ,]*' "$work/serve" | awk '{print $3}')
python3 - "$work" <<'PY'
import json, sys, base64
work = sys.argv[1]
acl = [{"scheme": "world", "id": "anyone", "perms": "cdrwa"}]
def rec(path, data=b"x", a=acl):
    return json.dumps({"path": path, "data": base64.b64encode(data).decode(), "acl": a})
def write(name, root, records, prefix=""):
    with open(f"{work}/{name}", "w") as f:
        f.write(prefix + json.dumps({"zkx_export": 1, "root": root}) + "\n")
        f.write("\n".join(records) + "\n")
nodes = [rec("/src")] + [rec(f"/src/n{i:04d}") for i in range(2500)]
write("setup.jsonl", "/setup", [rec("/setup"), rec("/setup/secret"), rec("/setup/secret/below"), rec("/setup/rtl\u202eevil zero\u200bwidth")])
write("good.jsonl", "/src", nodes[:100])
write("badline.jsonl", "/src", nodes[:1599] + ['{"path":'] + nodes[1599:])  # the bad line is line 1,601
write("dup.jsonl", "/src", nodes[:5] + [rec("/src/n0001")])
write("big.jsonl", "/src", nodes[:3] + [rec("/src/big", b"b" * (1100 << 10))])
write("emptyacl.jsonl", "/src", [rec("/src", a=[])])
write("bom.jsonl", "/src", nodes[:3], prefix="\ufeff")
PY
"$zkx" --server "$server" import "$work/setup.jsonl" >/dev/null
"$zkx" --server "$server" setacl --force /setup/secret "digest:alice:$("$zkx" digest alice:secret | awk -F: '{print $NF}'):cdrwa" >/dev/null
nodes_under() { "$zkx" --server "$server" tree -o json "$1" 2>/dev/null | grep '"path"' | grep -vc '"error"'; }

timed --server "$server" find /does/not/exist; row find-missing-root "" find /does/not/exist
timed --server "$server" tree /does/not/exist; row tree-missing-root "printed $(wc -l <"$work/out") lines" tree /does/not/exist
timed --server "$server" find /setup --name below; row find-unreadable "printed: $(tr '\n' ' ' <"$work/out" | cut -c1-80)" find /setup --name below
timed --server "$server" tree -o json /setup; row tree-unreadable "secret's row: $(grep -o '"path": *"/setup/secret"[^}]*' "$work/out" | cut -c1-90)" tree -o json /setup
timed --server "$server" import "$work/badline.jsonl" --to /bad; row import-bad-line-1601 "$(nodes_under /bad) nodes written" import badline.jsonl --to /bad
timed --server "$server" import "$work/good.jsonl" --to /nowhere/dst --dry-run; row import-dry-missing-parent "report: $(head -c 100 "$work/out")" import good.jsonl --to /nowhere/dst --dry-run
timed --server "$server" import "$work/good.jsonl" --to /nowhere/dst; row import-missing-parent "report: $(head -c 100 "$work/out")" import good.jsonl --to /nowhere/dst
timed --server "$server" import "$work/dup.jsonl" --to /dup --dry-run; row import-dry-duplicate "report: $(head -c 100 "$work/out")" import dup.jsonl --to /dup --dry-run
timed --server "$server" import "$work/big.jsonl" --to /big --dry-run; row import-dry-over-1MiB "report: $(head -c 100 "$work/out")" import big.jsonl --to /big --dry-run
timed --server "$server" import "$work/big.jsonl" --to /big; row import-over-1MiB "report: $(head -c 100 "$work/out")" import big.jsonl --to /big
timed --server "$server" import "$work/emptyacl.jsonl" --to /empty; row import-empty-acl "ACL now: $("$zkx" --server "$server" stat -o json /empty 2>&1 | tr -d ' \n' | grep -o '"acl":\[[^]]*\]' || echo none)" import emptyacl.jsonl --to /empty
timed --server "$server" import "$work/bom.jsonl" --to /bom; row import-bom "$(nodes_under /bom) nodes written" import bom.jsonl --to /bom
evil=$'evil\x1b]0;pwned\x07host:2181'
timed --server "$evil" ls /
raw=no; grep -q $'[\x1b\x07]' "$work/err" && raw=yes
row esc-in-server "raw ESC/BEL on stderr: $raw" --server "$evil" ls /
ZK_SERVERS="$evil" timed ls /
raw=no; grep -q $'[\x1b\x07]' "$work/err" && raw=yes
row esc-in-ZK_SERVERS "raw ESC/BEL on stderr: $raw" ls / "(ZK_SERVERS=$evil)"
timed --server "$server" ls -o json /setup
raw=no; grep -q $'\u202e' "$work/out" && raw=yes
row bidi-in-json "raw U+202E in the JSON: $raw" ls -o json /setup
kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null
