#!/usr/bin/env bash
# Builds the MUI 6 widget bundle of testdata/pages/widgets/mui6 from the pinned
# npm packages: testdata/pages/vendor/mui6/mui6.js (minified, React production
# build) and THIRD_PARTY_LICENSES.txt, the licence of every package in the bundle.
# MUI styles with Emotion at run time, so there is no CSS file.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="$root/testdata/pages/vendor/mui6"
meta="$(mktemp)"
trap 'rm -f "$meta"' EXIT

cd "$here"
npm ci --no-audit --no-fund
mkdir -p "$out"
npx --no-install esbuild src/index.jsx \
  --bundle --minify --format=iife --target=es2020 \
  --jsx=automatic --loader:.js=jsx \
  --define:process.env.NODE_ENV='"production"' \
  --metafile="$meta" \
  --outfile="$out/mui6.js"

# Every package with a file in the bundle, with its licence text.
node - "$meta" "$out/THIRD_PARTY_LICENSES.txt" <<'JS'
const fs = require('fs');
const path = require('path');
const [meta, dest] = process.argv.slice(2);
const inputs = Object.keys(JSON.parse(fs.readFileSync(meta, 'utf8')).inputs);
const dirs = new Set();
for (const file of inputs) {
  const m = file.match(/^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//);
  if (m) dirs.add(m[1]);
}
const names = /^(licen[cs]e|copying)(\.(md|txt|markdown))?$/i;
const parts = [];
for (const dir of [...dirs].sort()) {
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const file = fs.readdirSync(dir).find((f) => names.test(f));
  if (!file) {
    throw new Error(`no licence file in ${dir} (${pkg.name}@${pkg.version}, ${pkg.license})`);
  }
  const text = fs.readFileSync(path.join(dir, file), 'utf8').trim();
  parts.push(`${pkg.name}@${pkg.version} (${pkg.license})\n${'='.repeat(72)}\n${text}\n`);
}
const head = 'Third-party software in mui6.js, built by scripts/widgets/mui6/build.sh.\n' +
  `${parts.length} packages, each with its licence text.\n\n`;
fs.writeFileSync(dest, head + parts.join('\n'));
console.log(`THIRD_PARTY_LICENSES.txt: ${parts.length} packages`);
JS
ls -l "$out"
