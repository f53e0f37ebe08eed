#!/usr/bin/env bash
# Installs Debian's chromium for the console's browser tests (console/browser_test.go) when it is missing;
# a no-op when a chromium or chrome is already on PATH or named by FEEDBRIDGE_TEST_CHROMIUM. Diagnostics go
# to stderr.
set -euo pipefail

if [ -n "${FEEDBRIDGE_TEST_CHROMIUM:-}" ] && [ -x "$FEEDBRIDGE_TEST_CHROMIUM" ]; then
	exit 0
fi
for b in chromium chromium-browser google-chrome google-chrome-stable; do
	if command -v "$b" >/dev/null 2>&1; then
		exit 0
	fi
done
echo "chromium.sh: installing chromium (a few minutes)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends chromium >&2
