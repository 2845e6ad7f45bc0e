#!/bin/sh
# Builds testdata/pages/vendor/antd5 from the pinned npm packages:
# antd5.js (one minified bundle, React 18 production build inside) and
# THIRD_PARTY_LICENSES.txt (the licence of every package in the bundle).
# Ant Design 5 styles itself with CSS-in-JS: there is no CSS file.
set -eu
cd "$(dirname "$0")"
out=../../../testdata/pages/vendor/antd5
mkdir -p "$out"
npm ci --no-audit --no-fund
./node_modules/.bin/esbuild src/index.jsx \
	--bundle --minify --format=iife --target=chrome100 \
	--jsx=automatic --legal-comments=none \
	--define:process.env.NODE_ENV='"production"' \
	--metafile=meta.json \
	--outfile="$out/antd5.js"
node licenses.mjs meta.json > "$out/THIRD_PARTY_LICENSES.txt"
ls -l "$out"
