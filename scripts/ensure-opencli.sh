#!/usr/bin/env bash
# ensure-opencli.sh: prints a folder holding the real OpenCLI (`opencli`, @jackwener/opencli from
# npm) and the Node 22 it runs on (`node`), for the integration tests of the opencli tools
# (WEBPILOT_TEST_OPENCLI_DIR in `make test`). Both come through npx, whose cache keeps them: the first
# run downloads about 60 MB, later ones take a second. Nothing is installed globally (OpenCLI's
# postinstall only acts on a global install), and CI=1 keeps its update check off.
set -euo pipefail

NODE_PKG=node@22.23.3
OPENCLI_PKG=@jackwener/opencli@1.8.7

command -v npx >/dev/null 2>&1 || {
	echo "ensure-opencli: npx not found: install Node.js with npm (Debian: apt-get install npm)" >&2
	exit 1
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! dir=$(CI=1 PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
	npx -y -p "$NODE_PKG" -p "$OPENCLI_PKG" -- sh -c 'dirname "$(command -v opencli)"' </dev/null 2>"$log"); then
	cat "$log" >&2
	echo "ensure-opencli: npx could not install $OPENCLI_PKG with $NODE_PKG" >&2
	exit 1
fi
dir=$(printf '%s\n' "$dir" | tail -n 1)
[[ -x $dir/opencli && -x $dir/node ]] || {
	echo "ensure-opencli: $dir does not hold both opencli and node" >&2
	exit 1
}
printf '%s\n' "$dir"
