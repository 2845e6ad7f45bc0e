// Prints the licence text of every npm package that esbuild put in the
// bundle, read from the metafile's inputs: node licenses.mjs meta.json
import fs from "node:fs";
import path from "node:path";

const meta = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
// Only the inputs that put bytes in an output: a module that was tree-shaken
// away entirely is not in the bundle.
const dirs = new Set();
const used = Object.values(meta.outputs).flatMap((o) => Object.entries(o.inputs).filter(([, v]) => v.bytesInOutput > 0).map(([k]) => k));
for (const input of used) {
  const m = input.match(/^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//);
  if (m) dirs.add(m[1]);
}
if (dirs.size === 0) throw new Error("no package in the metafile's inputs");

const names = /^(licen[cs]e|copying)(\.(md|txt|markdown))?$/i;
const entries = [...dirs].map((dir) => {
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  const file = fs.readdirSync(dir).find((f) => names.test(f));
  let text;
  if (file) {
    text = fs.readFileSync(path.join(dir, file), "utf8").trim();
  } else if (pkg.license === "MIT") {
    text = declaredMIT(pkg);
  } else {
    throw new Error(`${pkg.name}: no licence file in ${dir} and licence ${pkg.license}`);
  }
  return { name: pkg.name, version: pkg.version, license: pkg.license, text };
});
entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

// declaredMIT is the MIT licence text for a package that declares MIT in
// its package.json but ships no licence file.
function declaredMIT(pkg) {
  const author = typeof pkg.author === "string" ? pkg.author : pkg.author?.name;
  const repo = typeof pkg.repository === "string" ? pkg.repository : pkg.repository?.url;
  const holder = author || `the authors of ${pkg.name}` + (repo ? ` (${repo.replace(/^git\+/, "")})` : "");
  return `(The package ships no licence file; its package.json declares "MIT". The MIT licence follows.)

MIT License

Copyright (c) ${holder}

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.`;
}

let s = "Third-party software in antd5.js: the licence of every npm package bundled.\n";
s += entries.map((e) => `  ${e.name}@${e.version} (${e.license})`).join("\n") + "\n";
for (const e of entries) {
  s += `\n${"=".repeat(78)}\n${e.name}@${e.version} (${e.license})\n${"=".repeat(78)}\n\n${e.text}\n`;
}
process.stdout.write(s);
