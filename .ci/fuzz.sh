#!/usr/bin/env bash
# Runs every Fuzz target of the module for a short time (default 10s each): the committed seed corpora
# always run as part of go test; this explores beyond them.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${1:-10s}"
count=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  grep -lq '^func Fuzz' "$dir"/*_test.go 2>/dev/null || continue
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" >/tmp/fuzz.$$.log 2>&1 || { cat /tmp/fuzz.$$.log; exit 1; }
    count=$((count + 1))
  done
done
echo "fuzzed $count targets for $fuzztime each"
