#!/usr/bin/env bash
# Runs the goreleaser this project pins, installing it first when
# $(go env GOPATH)/bin has no goreleaser of that version (through the Go
# module proxy: go install; it takes a few minutes once, then is reused).
# Usage: scripts/goreleaser.sh ARGS...   e.g. scripts/goreleaser.sh check
set -euo pipefail
# v2.16.0: the newest release that builds with Go 1.26 here. v2.18 wants
# Go 1.27; v2.17 needs nfpm's msix module (go.digitalxero.dev), which the
# module proxy refuses.
GORELEASER_VERSION=v2.16.0
bin="$(go env GOPATH)/bin/goreleaser"
if ! grep -qx "GitVersion: *$GORELEASER_VERSION" <<<"$("$bin" --version 2>/dev/null)"; then
  echo "scripts/goreleaser.sh: installing goreleaser $GORELEASER_VERSION into $bin" >&2
  go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
fi
cd "$(dirname "$0")/.."
exec "$bin" "$@"
