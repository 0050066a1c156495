#!/usr/bin/env bash
# Writes what the release puts next to the binary, into OUTDIR (goreleaser's
# before-hook; see .goreleaser.yaml):
#   OUTDIR/man/zkx.1, zkx-locks.1, …   one man page per command (zkx man), and each gzipped
#                                      (gzip -9n, as Debian policy wants) for the packages
#   OUTDIR/completions/zkx.bash, _zkx, zkx.fish   bash, zsh and fish completion (zkx completion)
#   OUTDIR/doc/README.md.gz            the README, gzipped for the .deb
# The pages name VERSION and are dated DATE (RFC 3339), as the release binary
# is stamped, so the same commit always gives the same files.
# Usage: scripts/release-docs.sh OUTDIR VERSION COMMIT DATE
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: $0 OUTDIR VERSION COMMIT DATE" >&2
  exit 2
fi
out=$1 version=$2 commit=$3 date=$4
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The release build's flags, so that the packages compiled here are the ones
# goreleaser's linux/amd64 build finds in the build cache.
CGO_ENABLED=0 go build -trimpath \
  -ldflags "-X main.version=$version -X main.commit=$commit -X main.date=$date" \
  -o "$tmp/zkx" .

rm -rf "$out/man" "$out/completions" "$out/doc"
mkdir -p "$out/man" "$out/completions" "$out/doc"
# The help shows the contexts file's path from $XDG_CONFIG_HOME when it is
# set; the pages should show the default, not the builder's.
env -u XDG_CONFIG_HOME -u SOURCE_DATE_EPOCH "$tmp/zkx" man --dir "$out/man"
for page in "$out"/man/*.1; do
  gzip -9n -c "$page" > "$page.gz"
done
"$tmp/zkx" completion bash > "$out/completions/zkx.bash"
"$tmp/zkx" completion zsh > "$out/completions/_zkx"
"$tmp/zkx" completion fish > "$out/completions/zkx.fish"
gzip -9n -c README.md > "$out/doc/README.md.gz"
