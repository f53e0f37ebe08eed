#!/usr/bin/env bash
# Fetches axe-core, the accessibility audit the console's browser tests run in each page, from the npm
# registry at a pinned version into a cache folder (never into the repository), checks the tarball against
# the registry's integrity hash, and prints `export FEEDBRIDGE_TEST_AXE=<path of axe.min.js>` for eval.
# Without it the audit skips with a message. Diagnostics go to stderr.
set -euo pipefail

version="${AXE_VERSION:-4.14.1}"
cache="${FEEDBRIDGE_AXE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/feedbridge/axe-core-$version}"
script="$cache/package/axe.min.js"

if [ ! -s "$script" ]; then
	command -v npm >/dev/null 2>&1 || { echo "axe.sh: npm is not installed; the accessibility audit will skip" >&2; exit 0; }
	mkdir -p "$cache"
	echo "axe.sh: fetching axe-core@$version" >&2
	tarball=$(cd "$cache" && npm pack --silent "axe-core@$version" 2>/dev/null | tail -n1)
	want=$(npm view "axe-core@$version" dist.integrity 2>/dev/null)
	got="sha512-$(openssl dgst -sha512 -binary "$cache/$tarball" | base64 -w0)"
	if [ -z "$want" ] || [ "$want" != "$got" ]; then
		echo "axe.sh: the axe-core tarball does not match the registry's integrity hash" >&2
		rm -f "$cache/$tarball"
		exit 1
	fi
	tar -xzf "$cache/$tarball" -C "$cache" package/axe.min.js package/LICENSE
	rm -f "$cache/$tarball"
fi
echo "export FEEDBRIDGE_TEST_AXE=$script"
