#!/usr/bin/env node
// webpilot's npm launcher: runs the webpilot binary of this platform's package
// (@webpilot-mcp/<os>-<cpu>, an optional dependency npm installed beside this one) with the same
// arguments, stdin, stdout and stderr, and exits with its code. Nothing is downloaded.
"use strict";
const { spawn } = require("node:child_process");
const path = require("node:path");

const pkg = `@webpilot-mcp/${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "webpilot.exe" : "webpilot";
let bin;
try {
  bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
} catch {
  process.stderr.write(
    `webpilot: no build for ${process.platform}/${process.arch} is installed (the package ${pkg}).\n` +
      "npm installs it with this one unless optional dependencies are off (--omit=optional, --no-optional).\n" +
      "Other ways to install: https://github.com/webpilot-mcp/webpilot#install\n",
  );
  process.exit(1);
}
// WEBPILOT_NPM_LAUNCHER: `webpilot setup` then configures clients with npx, not npx's cache.
const env = { ...process.env, WEBPILOT_NPM_LAUNCHER: "1" };
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true, env });
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (e) => {
  process.stderr.write(`webpilot: cannot run ${bin}: ${e.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
