#!/usr/bin/env bash
# CI's proof that zkx installs like a real tool: builds the linux/amd64
# snapshot release (scripts/release-snapshot.sh), installs its .deb with
# dpkg -i, and checks what the package installed: /usr/bin/zkx and the
# stamped zkx version, the man page at man's standard path (man -w zkx-locks),
# and bash completing a subcommand through bash-completion's loader from
# /usr/share/bash-completion/completions/zkx. Removes the package at the end.
# Needs root (dpkg -i) on Debian or Ubuntu; installs man-db and bash-completion
# when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
phase() { printf -- '--- %s (%ss)\n' "$*" "$((SECONDS - start))"; }
fail() { echo "ci-install-check: FAIL: $*" >&2; exit 1; }

sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
if grep -rqs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/; then
  fail "dpkg is told not to install man pages here (path-exclude in /etc/dpkg/dpkg.cfg.d/): man -w cannot find them"
fi
missing=()
for pkg in man-db bash-completion; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  phase "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
    { $sudo apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
fi

phase "snapshot release, linux/amd64 only"
ZKX_RELEASE_LINUX_AMD64_ONLY=1 scripts/release-snapshot.sh
version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' dist/metadata.json)
[ -n "$version" ] || fail "no version in dist/metadata.json"
debs=(dist/zkx_"$version"_linux_amd64.deb)
[ -f "${debs[0]}" ] || fail "no .deb for $version in dist/: $(ls dist)"
echo "built ${debs[0]} ($(du -k "${debs[0]}" | cut -f1) KB); static binary $(stat -c %s dist/zkx-linux-amd64_linux_amd64_v1/zkx) bytes"

phase "dpkg -i ${debs[0]}"
$sudo dpkg -i "${debs[0]}"
trap '$sudo dpkg -r zkx >/dev/null' EXIT

phase "the installed zkx version"
[ "$(command -v zkx)" = /usr/bin/zkx ] || fail "zkx on PATH is $(command -v zkx), not the package's /usr/bin/zkx"
zkx version
json=$(zkx version -o json)
head=$(git rev-parse HEAD)
grep -q "\"version\": \"v$version\"" <<<"$json" || fail "zkx version is not the snapshot's v$version: $json"
grep -q "\"commit\": \"$head\"" <<<"$json" || fail "zkx version's commit is not HEAD $head: $json"
grep -q '"date": "[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T' <<<"$json" || fail "zkx version has no build date: $json"

phase "man -w zkx-locks"
page=$(man -w zkx-locks) || fail "man -w zkx-locks found no page"
echo "$page"
[ "$page" = /usr/share/man/man1/zkx-locks.1.gz ] || fail "zkx-locks(1) is at $page, not /usr/share/man/man1/zkx-locks.1.gz"
rendered=$(MANWIDTH=80 man zkx-locks 2>/dev/null) || fail "man zkx-locks does not render"
sed -n '1,5p' <<<"$rendered"
# No pipe into grep -q: under pipefail, grep leaving early kills tr with SIGPIPE.
squeezed=$(tr -s ' ' <<<"$rendered")
grep -q 'zkx-locks - List recognised locks' <<<"$squeezed" || fail "man zkx-locks does not render its NAME"

phase "bash completion of 'zkx loc' and 'zkx locks --held' via bash-completion's loader"
# A non-interactive bash does what an interactive one does on TAB: the loader
# finds /usr/share/bash-completion/completions/zkx, the function it registers
# runs zkx __complete, and COMPREPLY holds the candidates.
# shellcheck disable=SC2016
complete_words() {
  bash --norc --noprofile -c '
    source /usr/share/bash-completion/bash_completion
    # compopt only works while readline runs a completion; outside one it
    # would complain, and the options it sets do not change the candidates.
    compopt() { :; }
    _completion_loader zkx
    spec=$(complete -p zkx) || { echo "no completion registered for zkx" >&2; exit 1; }
    fn=${spec#*-F }; fn=${fn%% *}
    COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
    read -r -a COMP_WORDS <<<"$COMP_LINE"
    [ "${COMP_LINE: -1}" = " " ] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COLUMNS=80 "$fn" zkx "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"
  ' complete_words "$1"
}
got=$(complete_words "zkx loc")
echo "$got"
grep -Eq '^locks( |$)' <<<"$got" || fail "bash did not complete 'zkx loc' to locks"
got=$(complete_words "zkx locks --held")
echo "$got"
grep -Eq '^--held-too-long( |=|$)' <<<"$got" || fail "bash did not complete 'zkx locks --held' to --held-too-long"

phase "ok: installed, ran, man page and completion found"
