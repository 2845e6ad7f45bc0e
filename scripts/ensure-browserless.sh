#!/usr/bin/env bash
# ensure-browserless.sh: prints a folder holding the real browserless (@browserless.io/browserless
# from npm: the browser farm) and the Node 22 it runs on (`node`), for the tests that run webpilot
# against a real farm (WEBPILOT_TEST_BROWSERLESS_DIR in `make test`). Both come through npx, whose
# cache keeps them: the first run downloads about 250 MB, later ones take a second. No browser is
# downloaded (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD, PUPPETEER_SKIP_DOWNLOAD): the tests point the farm
# at the machine's Chromium (internal/backend/endpoint/farmtest). Nothing is installed globally and
# nothing is started here.
set -euo pipefail

NODE_PKG=node@22.23.3
BROWSERLESS_PKG=@browserless.io/browserless@2.42.0

command -v npx >/dev/null 2>&1 || {
	echo "ensure-browserless: npx not found: install Node.js with npm (Debian: apt-get install npm)" >&2
	exit 1
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! dir=$(CI=1 PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
	npx -y -p "$NODE_PKG" -p "$BROWSERLESS_PKG" -- sh -c 'dirname "$(command -v browserless)"' </dev/null 2>"$log"); then
	cat "$log" >&2
	echo "ensure-browserless: npx could not install $BROWSERLESS_PKG with $NODE_PKG" >&2
	exit 1
fi
dir=$(printf '%s\n' "$dir" | tail -n 1)
[[ -x $dir/browserless && -x $dir/node && -f $dir/../@browserless.io/browserless/build/index.js ]] || {
	echo "ensure-browserless: $dir does not hold browserless and node" >&2
	exit 1
}
printf '%s\n' "$dir"
