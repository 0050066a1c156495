#!/usr/bin/env bash
# Builds a snapshot release from this checkout into dist/: the archives for
# every platform of .goreleaser.yaml, the .deb and .rpm packages, checksums.txt
# and the Homebrew cask (dist/homebrew/Casks/zkx.rb). Nothing is published.
# Needs Go and the Go module proxy (the pinned goreleaser is installed on
# first use, see scripts/goreleaser.sh).
# Usage: scripts/release-snapshot.sh [goreleaser release flags...]
#   ZKX_RELEASE_LINUX_AMD64_ONLY=1 scripts/release-snapshot.sh   # linux/amd64 only (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! git ls-remote --get-url >/dev/null 2>&1; then
  # goreleaser reads the remote's URL with the commit; when it cannot, it
  # stamps the snapshot with commit "none" and no date. The URL only matters
  # for publishing, so this checkout's own path stands in for it.
  echo "scripts/release-snapshot.sh: no git remote; using this checkout's path as the remote URL" >&2
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0="$PWD"
fi
exec scripts/goreleaser.sh release --snapshot --clean "$@"
