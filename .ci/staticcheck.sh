#!/usr/bin/env bash
# Runs staticcheck (honnef.co/go/tools) over the whole module. The tool is installed from the Go module
# proxy into a temporary GOBIN, so go.mod and go.sum stay untouched and nothing lands in ~/go/bin.
#
#   bash .ci/staticcheck.sh                 # the pinned version
#   STATICCHECK_VERSION=latest bash .ci/staticcheck.sh
#
# v0.8.2 (release 2026.1.x) is the newest on the proxy at the time of writing and builds with Go 1.26.
# Exit status: staticcheck's (non-zero when it reports anything).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
version="${STATICCHECK_VERSION:-v0.8.2}"

gobin=$(mktemp -d /tmp/fb-staticcheck.XXXXXX)
trap 'rm -rf "$gobin"' EXIT

# GOFLAGS=-mod=mod would let `go install` touch go.mod; installing a path@version outside the module
# never does. GOWORK=off keeps a go.work file out of it too.
echo "installing honnef.co/go/tools/cmd/staticcheck@$version"
GOBIN="$gobin" GOWORK=off GOFLAGS= go install "honnef.co/go/tools/cmd/staticcheck@$version"
"$gobin/staticcheck" -version

"$gobin/staticcheck" -checks inherit -f text ./...
echo "staticcheck: clean"
