#!/usr/bin/env bash
# shellcheck disable=SC2317  # install_* functions are called as "install_$group"
# Install the language servers squiggle's tests run, reproducibly.
#
#   scripts/install-servers.sh [--only GROUP[,GROUP...]] [--force]
#
# Groups: npm, venv, apt, rust, agents (server names are accepted too and map
# to their group, e.g. --only pyright,gopls == --only npm,apt; agents are the
# agent CLIs the end-to-end hook tests drive: claude, codex, gemini), hosts
# (the other agent hosts the delivery tests drive: opencode, copilot, qwen,
# cline), aider
# (Aider in a venv of its own), and
# packaging (maturin, ziglang, uv, verdaccio for scripts/package-test; only
# with --only).
#
# Idempotent and non-interactive.  Pinned versions live in:
#   scripts/servers-package.json + scripts/servers-package-lock.json  (npm)
#   scripts/servers-requirements.txt                                  (PyPI)
#   APT_PACKAGES below                                                (Debian)
#   rust-analyzer: the rustup component of the active toolchain, and of
#                  RA_TOOLCHAIN below (today's stable: the real-server matrix
#                  runs both)
#   scripts/agents-package.json + scripts/agents-package-lock.json    (agent CLIs)
#   scripts/hosts-package.json + scripts/hosts-package-lock.json      (other hosts)
#   scripts/aider-requirements.txt                                    (Aider)
#   scripts/packaging-requirements.txt, scripts/packaging-package.json + lock
# A stamp file per group under .tools/ records what was installed; a group
# whose stamp matches is skipped, so a warm re-run takes a second or two.
#
# Exit status: non-zero if any *required* server is missing afterwards.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"
SCRIPTS="$ROOT/scripts"

APT_PACKAGES=(clangd gopls golang-go shellcheck)

# The stable toolchain whose rust-analyzer the matrix tests beside the active
# one's (its own diagnostics by pull, cargo check's by push); rust-src is what
# rust-analyzer reads the standard library from.
RA_TOOLCHAIN=1.99.1

# Servers whose absence fails the script; everything else only warns.
REQUIRED=(pyright typescript-language-server typescript typescript-7 clangd gopls rust-analyzer "rust-analyzer-$RA_TOOLCHAIN" ruff
  basedpyright ty pyrefly bash-language-server shellcheck yaml-language-server vscode-langservers-extracted tombi
  vue-typescript-plugin vue svelte-language-server svelte intelephense dockerfile-language-server-nodejs
  claude codex gemini opencode copilot qwen cline aider)

ONLY=""
FORCE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --only) ONLY="${2:?--only needs a value}"; shift 2 ;;
    --only=*) ONLY="${1#--only=}"; shift ;;
    --force) FORCE=1; shift ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-servers: unknown argument: $1" >&2; exit 2 ;;
  esac
done

export DEBIAN_FRONTEND=noninteractive
export npm_config_loglevel=error npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

log() { printf '[install-servers] %s\n' "$*" >&2; }

group_of() {
  case "$1" in
    npm|pyright|typescript-language-server|typescript|typescript-7|tsgo|native-preview|vscode-langservers-extracted|\
    vscode-*-language-server|bash-language-server|yaml-language-server|eslint|vscode-jsonrpc|\
    vue|vue-typescript-plugin|svelte|svelte-language-server|intelephense|dockerfile-language-server-nodejs|\
    docker-langserver) echo npm ;;
    venv|pip|pypi|ruff|basedpyright|ty|pyrefly|tombi|mcp) echo venv ;;
    apt|clangd|gopls|go|golang-go|shellcheck) echo apt ;;
    rust|rust-analyzer|rust-analyzer-*) echo rust ;;
    agents|claude|claude-code|codex|gemini|gemini-cli) echo agents ;;
    hosts|opencode|opencode-ai|copilot|qwen|cline) echo hosts ;;
    aider|aider-chat) echo aider ;;
    packaging|maturin|ziglang|uv|verdaccio) echo packaging ;;
    *) echo "install-servers: unknown server or group: $1" >&2; exit 2 ;;
  esac
}

declare -A WANT=([npm]=1 [venv]=1 [apt]=1 [rust]=1 [agents]=1 [hosts]=1 [aider]=1 [packaging]=0)
if [ -n "$ONLY" ]; then
  WANT=([npm]=0 [venv]=0 [apt]=0 [rust]=0 [agents]=0 [hosts]=0 [aider]=0 [packaging]=0)
  IFS=',' read -r -a _only <<<"$ONLY"
  for n in "${_only[@]}"; do
    g="$(group_of "$n")"
    WANT[$g]=1
  done
fi

mkdir -p "$TOOLS"

hash_of() { cat "$@" | sha256sum | cut -c1-64; }

stamp_ok() { # stamp_ok NAME EXPECTED
  [ "$FORCE" = 0 ] && [ -f "$TOOLS/.stamp-$1" ] && [ "$(cat "$TOOLS/.stamp-$1")" = "$2" ]
}
write_stamp() { printf '%s\n' "$2" >"$TOOLS/.stamp-$1"; }

FAILED_GROUPS=()

# ---------------------------------------------------------------- npm
# npm_ci GROUP WHAT PREFIX [STAMP_EXTRA [VERB]]: the pinned packages of
# scripts/PREFIX-package.json and its lock, installed into .tools/GROUP by
# `npm ci` (or `npm VERB`) unless GROUP's stamp already matches them (and
# STAMP_EXTRA).
npm_ci() {
  local group="$1" what="$2" json="$SCRIPTS/$3-package.json" lock="$SCRIPTS/$3-package-lock.json"
  local dir="$TOOLS/$1" verb="${5:-ci}" want
  want="$(hash_of "$json" "$lock")${4:-}"
  if stamp_ok "$group" "$want" && [ -d "$dir/node_modules/.bin" ]; then
    log "$group: up to date"
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    log "$group: npm not found on PATH"; return 1
  fi
  log "$group: installing pinned $what into $dir (npm $verb)"
  mkdir -p "$dir"
  cp "$json" "$dir/package.json"
  cp "$lock" "$dir/package-lock.json"
  (cd "$dir" && npm "$verb" --no-audit --no-fund </dev/null) || return 1
  write_stamp "$group" "$want"
}

install_npm() {
  npm_ci npm packages servers " node=$(node --version 2>/dev/null || echo none)"
}

# ---------------------------------------------------------------- agents
# The agent CLIs (Claude Code, Codex CLI, Gemini CLI) at pinned versions, with
# their linux-x64 native packages; the tests run them with the node 22 that
# the npm group installs (their wrappers want node >= 22).
install_agents() {
  npm_ci agents "agent CLIs" agents
}

# The other hosts (OpenCode) in their own group, so pinning one of them
# does not reinstall the three above. `npm install` with the lock (exact
# pins in package.json): the lock holds only the linux-x64 native packages,
# which `npm ci` refuses as out of sync.
install_hosts() {
  npm_ci hosts "agent hosts" hosts "" install
}

# ---------------------------------------------------------------- venv
find_python() {
  local p
  for p in "${SQUIGGLE_PYTHON:-}" python3 python3.12 python3.11 python3.10; do
    [ -n "$p" ] || continue
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sys, venv; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
      command -v "$p"; return 0
    fi
  done
  return 1
}

install_venv() {
  local venv="$TOOLS/venv" py want
  py="$(find_python)" || { log "venv: no python3 >= 3.10 with venv found"; return 1; }
  want="$(hash_of "$SCRIPTS/servers-requirements.txt") py=$("$py" -c 'import sys; print(sys.version.split()[0])')"
  if stamp_ok venv "$want" && [ -x "$venv/bin/python" ]; then
    log "venv: up to date"
    return 0
  fi
  log "venv: installing pinned packages into $venv with $py"
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c '' 2>/dev/null; then
    rm -rf "$venv"
    "$py" -m venv "$venv" || return 1
  fi
  "$venv/bin/python" -m pip install --quiet -r "$SCRIPTS/servers-requirements.txt" </dev/null || return 1
  write_stamp venv "$want"
}

# ---------------------------------------------------------------- aider
# Aider pins ~100 packages of its own, so it gets a venv apart from the
# servers' (.tools/aider/venv), cached by its own stamp.
install_aider() {
  local venv="$TOOLS/aider/venv" py want
  py="$(find_python)" || { log "aider: no python3 >= 3.10 with venv found"; return 1; }
  want="$(hash_of "$SCRIPTS/aider-requirements.txt") py=$("$py" -c 'import sys; print(sys.version.split()[0])')"
  if stamp_ok aider "$want" && [ -x "$venv/bin/aider" ]; then
    log "aider: up to date"
    return 0
  fi
  log "aider: installing pinned Aider into $venv with $py"
  rm -rf "$venv"
  "$py" -m venv "$venv" || return 1
  "$venv/bin/python" -m pip install --quiet -r "$SCRIPTS/aider-requirements.txt" </dev/null || return 1
  write_stamp aider "$want"
}

# ---------------------------------------------------------------- apt
apt_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

install_apt() {
  local missing=() p sudo=""
  for p in "${APT_PACKAGES[@]}"; do
    apt_installed "$p" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "apt: up to date (${APT_PACKAGES[*]})"
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    log "apt: apt-get not available; missing: ${missing[*]}"; return 1
  fi
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
      log "apt: not root and no passwordless sudo; missing: ${missing[*]}"; return 1
    fi
  fi
  log "apt: installing ${missing[*]}"
  # Update the package lists only if the install fails without it (stale or
  # empty lists on a fresh machine).
  if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null >"$TOOLS/apt.log" 2>&1; then
    log "apt: install failed, running apt-get update and retrying"
    $sudo apt-get update -q </dev/null >>"$TOOLS/apt.log" 2>&1 || true
    $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null >>"$TOOLS/apt.log" 2>&1 \
      || { tail -20 "$TOOLS/apt.log" >&2; return 1; }
  fi
}

# ---------------------------------------------------------------- rust
install_rust() {
  export PATH="$HOME/.cargo/bin:$PATH"
  command -v rustup >/dev/null 2>&1 || { log "rust: rustup not found"; return 1; }
  if rust-analyzer --version >/dev/null 2>&1; then
    log "rust: rust-analyzer up to date"
  else
    log "rust: rustup component add rust-analyzer"
    rustup component add rust-analyzer </dev/null >&2 || return 1
    # The rustup proxy exists even when the component is missing; make sure
    # the real binary runs now.
    rust-analyzer --version >/dev/null 2>&1 || { log "rust: rust-analyzer still does not run"; return 1; }
  fi
  if rustup run "$RA_TOOLCHAIN" rust-analyzer --version >/dev/null 2>&1 \
    && [ -d "$(rustup run "$RA_TOOLCHAIN" rustc --print sysroot)/lib/rustlib/src/rust/library" ]; then
    log "rust: toolchain $RA_TOOLCHAIN's rust-analyzer up to date"
    return 0
  fi
  log "rust: rustup toolchain install $RA_TOOLCHAIN (rust-analyzer, rust-src; the default toolchain stays)"
  rustup toolchain install "$RA_TOOLCHAIN" --profile minimal -c rust-analyzer -c rust-src </dev/null >&2 || return 1
  rustup run "$RA_TOOLCHAIN" rust-analyzer --version >/dev/null 2>&1 \
    || { log "rust: toolchain $RA_TOOLCHAIN's rust-analyzer does not run"; return 1; }
}

# ---------------------------------------------------------------- packaging
install_packaging() {
  local dir="$TOOLS/packaging" py want
  py="$(find_python)" || { log "packaging: no python3 >= 3.10 with venv found"; return 1; }
  want="$(hash_of "$SCRIPTS/packaging-requirements.txt" "$SCRIPTS/packaging-package.json" \
    "$SCRIPTS/packaging-package-lock.json") py=$("$py" -c 'import sys; print(sys.version.split()[0])')"
  if stamp_ok packaging "$want" && [ -x "$dir/venv/bin/maturin" ] && [ -d "$dir/npm/node_modules/.bin" ]; then
    log "packaging: up to date"
    return 0
  fi
  log "packaging: installing pinned maturin, ziglang, uv and verdaccio into $dir"
  rm -rf "$dir" && mkdir -p "$dir/npm"
  "$py" -m venv "$dir/venv" || return 1
  "$dir/venv/bin/python" -m pip install --quiet -r "$SCRIPTS/packaging-requirements.txt" </dev/null || return 1
  cp "$SCRIPTS/packaging-package.json" "$dir/npm/package.json"
  cp "$SCRIPTS/packaging-package-lock.json" "$dir/npm/package-lock.json"
  (cd "$dir/npm" && npm ci --no-audit --no-fund </dev/null) || return 1
  write_stamp packaging "$want"
}

for g in npm venv apt rust agents hosts aider packaging; do
  [ "${WANT[$g]}" = 1 ] || continue
  if ! "install_$g"; then
    log "$g: FAILED"
    FAILED_GROUPS+=("$g")
  fi
done

# ---------------------------------------------------------------- summary
# shellcheck source=scripts/env.sh
. "$SCRIPTS/env.sh"

# name | group | command that prints the version | binary
# shellcheck disable=SC2016  # ${Version} is dpkg-query's format, not ours
SERVERS=(
  "pyright|npm|pyright --version|pyright-langserver"
  "typescript-language-server|npm|typescript-language-server --version|typescript-language-server"
  "typescript|npm|tsc --version|tsserver"
  "typescript-7|npm|$TOOLS/npm/node_modules/typescript-7/bin/tsc --version|"
  "tsgo|npm|tsgo --version|tsgo"
  "vscode-langservers-extracted|npm|node -p require('$TOOLS/npm/node_modules/vscode-langservers-extracted/package.json').version|vscode-json-language-server"
  "bash-language-server|npm|bash-language-server --version|bash-language-server"
  "yaml-language-server|npm|node -p require('$TOOLS/npm/node_modules/yaml-language-server/package.json').version|yaml-language-server"
  "eslint|npm|eslint --version|eslint"
  "vue-typescript-plugin|npm|node -p require('$TOOLS/npm/node_modules/@vue/typescript-plugin/package.json').version|"
  "vue|npm|node -p require('$TOOLS/npm/node_modules/vue/package.json').version|"
  "svelte-language-server|npm|node -p require('$TOOLS/npm/node_modules/svelte-language-server/package.json').version|svelteserver"
  "svelte|npm|node -p require('$TOOLS/npm/node_modules/svelte/package.json').version|"
  "intelephense|npm|node -p require('$TOOLS/npm/node_modules/intelephense/package.json').version|intelephense"
  "dockerfile-language-server-nodejs|npm|node -p require('$TOOLS/npm/node_modules/dockerfile-language-server-nodejs/package.json').version|docker-langserver"
  "vscode-jsonrpc|npm|node -p require('$TOOLS/npm/node_modules/vscode-jsonrpc/package.json').version|"
  "ruff|venv|ruff --version|ruff"
  "basedpyright|venv|basedpyright --version|basedpyright-langserver"
  "ty|venv|ty --version|ty"
  "pyrefly|venv|pyrefly --version|pyrefly"
  "tombi|venv|tombi --version|tombi"
  "mcp|venv|$TOOLS/venv/bin/python -c import importlib.metadata as m; print(m.version('mcp'))|"
  "clangd|apt|clangd --version|clangd"
  'gopls|apt|dpkg-query -W -f=${Version} gopls|gopls'
  "go|apt|go version|go"
  "shellcheck|apt|shellcheck --version|shellcheck"
  "rust-analyzer|rust|rust-analyzer --version|rust-analyzer"
  "rust-analyzer-$RA_TOOLCHAIN|rust|rustup run $RA_TOOLCHAIN rust-analyzer --version|"
  "claude|agents|claude --version|claude"
  "codex|agents|codex --version|codex"
  "gemini|agents|gemini --version|gemini"
  "opencode|hosts|$TOOLS/hosts/node_modules/.bin/opencode --version|"
  "copilot|hosts|node -p require('$TOOLS/hosts/node_modules/@github/copilot/package.json').version|"
  "qwen|hosts|node -p require('$TOOLS/hosts/node_modules/@qwen-code/qwen-code/package.json').version|"
  "cline|hosts|node -p require('$TOOLS/hosts/node_modules/cline/package.json').version|"
  "aider|aider|$TOOLS/aider/venv/bin/aider --version|"
)

is_required() { local r; for r in "${REQUIRED[@]}"; do [ "$r" = "$1" ] && return 0; done; return 1; }

missing_required=()
echo "== language servers =="
for row in "${SERVERS[@]}"; do
  IFS='|' read -r name group vcmd bin <<<"$row"
  [ "${WANT[$group]}" = 1 ] || continue
  path="-"
  if [ -n "$bin" ]; then path="$(command -v "$bin" 2>/dev/null || echo -)"; fi
  version=""
  if [ -z "$bin" ] || [ "$path" != "-" ]; then
    # Commands containing python/node snippets are split on the first two words.
    case "$vcmd" in
      "node -p "*) version="$(node -p "${vcmd#node -p }" 2>/dev/null | head -1)" || version="" ;;
      *" -c "*) version="$("${vcmd%% -c *}" -c "${vcmd#* -c }" 2>/dev/null | head -1)" || version="" ;;
      *) version="$($vcmd 2>/dev/null </dev/null | grep -m1 -E '[0-9]+\.[0-9]+' )" || version="" ;;
    esac
  fi
  version="$(printf '%s\n' "$version" | grep -m1 -oE '[0-9]+\.[0-9]+[0-9A-Za-z.+~-]*' || true)"
  if [ -n "$version" ]; then
    status="ok"
  elif is_required "$name"; then
    status="MISSING (required)"; missing_required+=("$name")
  else
    status="missing (optional)"
  fi
  printf '%-30s %-10s %-20s %s\n' "$name" "$status" "${version:-?}" "$path"
done

if [ ${#FAILED_GROUPS[@]} -gt 0 ]; then
  log "groups that failed to install: ${FAILED_GROUPS[*]}"
fi
if [ ${#missing_required[@]} -gt 0 ]; then
  log "required servers missing: ${missing_required[*]}"
  exit 1
fi
exit 0
