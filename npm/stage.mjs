#!/usr/bin/env node
// Stages the npm packages for publishing: the wrapper `squiggle-lsp` (from
// npm/squiggle-lsp/) and one platform package per built binary, each with the
// version of Cargo.toml.
//
//   node npm/stage.mjs OUT_DIR PLATFORM=BINARY [PLATFORM=BINARY ...]
//
// PLATFORM is one of the keys of PLATFORMS below (`linux-x64`, ...). npm picks
// the platform package to install from its `os`, `cpu` (and `libc`) fields;
// the wrapper lists every platform as an optional dependency and runs the one
// npm installed. Publish the platform packages first, then the wrapper. Every
// package carries the licence files of the repository root (npm packs only
// `LICENSE` and `LICENCE` on its own, so `files` names them).
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PLATFORMS = {
  "linux-x64": { os: "linux", cpu: "x64", libc: "glibc", exe: "squiggle" },
  "linux-arm64": { os: "linux", cpu: "arm64", libc: "glibc", exe: "squiggle" },
  "darwin-x64": { os: "darwin", cpu: "x64", exe: "squiggle" },
  "darwin-arm64": { os: "darwin", cpu: "arm64", exe: "squiggle" },
  "win32-x64": { os: "win32", cpu: "x64", exe: "squiggle.exe" },
};

const here = path.dirname(fileURLToPath(import.meta.url));
const LICENSES = ["LICENSE-MIT", "LICENSE-APACHE"];
const copyLicenses = (dir) => {
  for (const name of LICENSES) copyFileSync(path.join(here, "..", name), path.join(dir, name));
};
const fail = (msg) => {
  console.error(`stage: ${msg}`);
  process.exit(2);
};

const [out, ...pairs] = process.argv.slice(2);
if (!out || pairs.length === 0) fail("usage: node npm/stage.mjs OUT_DIR PLATFORM=BINARY...");

const cargo = readFileSync(path.join(here, "..", "Cargo.toml"), "utf8");
const version = /^version\s*=\s*"([^"]+)"/m.exec(cargo)?.[1] ?? fail("no version in Cargo.toml");

const wrapper = JSON.parse(readFileSync(path.join(here, "squiggle-lsp", "package.json"), "utf8"));
wrapper.version = version;
for (const name of Object.keys(wrapper.optionalDependencies)) wrapper.optionalDependencies[name] = version;

const wdir = path.join(out, wrapper.name);
mkdirSync(path.join(wdir, "bin"), { recursive: true });
writeFileSync(path.join(wdir, "package.json"), JSON.stringify(wrapper, null, 2) + "\n");
copyFileSync(path.join(here, "squiggle-lsp", "bin", "squiggle.js"), path.join(wdir, "bin", "squiggle.js"));
chmodSync(path.join(wdir, "bin", "squiggle.js"), 0o755);
copyLicenses(wdir);
console.log(wdir);

for (const pair of pairs) {
  const eq = pair.indexOf("=");
  const key = pair.slice(0, eq);
  const binary = pair.slice(eq + 1);
  const p = PLATFORMS[key] ?? fail(`unknown platform ${key}; known: ${Object.keys(PLATFORMS).join(", ")}`);
  const name = `${wrapper.name}-${key}`;
  if (!(name in wrapper.optionalDependencies)) fail(`${name} is not an optional dependency of ${wrapper.name}`);
  const manifest = {
    name,
    version,
    description: `The ${key} binary of ${wrapper.name} (installed by it; not meant to be installed alone)`,
    license: wrapper.license,
    os: [p.os],
    cpu: [p.cpu],
    ...(p.libc ? { libc: [p.libc] } : {}),
    files: [`bin/${p.exe}`, ...LICENSES],
    preferUnplugged: true,
  };
  const dir = path.join(out, name);
  mkdirSync(path.join(dir, "bin"), { recursive: true });
  writeFileSync(path.join(dir, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  copyFileSync(binary, path.join(dir, "bin", p.exe));
  chmodSync(path.join(dir, "bin", p.exe), 0o755);
  copyLicenses(dir);
  console.log(dir);
}
