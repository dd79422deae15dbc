#!/usr/bin/env node
// The `squiggle` command of the npm package `squiggle-lsp`: runs the native
// binary from the platform package (`squiggle-lsp-<os>-<arch>`) that npm
// installed beside this one as an optional dependency, passing arguments,
// stdio and the exit status through unchanged.
"use strict";

const { spawnSync } = require("node:child_process");
const path = require("node:path");

const key = `${process.platform}-${process.arch}`;
const pkg = `squiggle-lsp-${key}`;
const exe = process.platform === "win32" ? "squiggle.exe" : "squiggle";

let bin;
try {
  bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
} catch {
  console.error(
    `squiggle: no binary for ${key}: npm did not install the optional package ${pkg} ` +
      "(it may not exist for this platform, or optional dependencies were omitted); " +
      "install squiggle another way: see docs/install.md"
  );
  process.exit(1);
}

const run = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  console.error(`squiggle: cannot run ${bin}: ${run.error.message}`);
  process.exit(1);
}
if (run.signal) {
  process.kill(process.pid, run.signal);
}
process.exit(run.status === null ? 1 : run.status);
