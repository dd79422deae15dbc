# shellcheck shell=bash
# Put the language servers and agent CLIs installed by
# scripts/install-servers.sh on PATH.
#
#   source scripts/env.sh
#
# Idempotent: sourcing it twice does not grow PATH.  Works from any cwd; the
# repo root is computed from this file's location.  Exports SQUIGGLE_ROOT and
# SQUIGGLE_TOOLS for convenience.

_squiggle_env_src="${BASH_SOURCE[0]}"
SQUIGGLE_ROOT="$(cd "$(dirname "$_squiggle_env_src")/.." && pwd)"
SQUIGGLE_TOOLS="$SQUIGGLE_ROOT/.tools"
export SQUIGGLE_ROOT SQUIGGLE_TOOLS

_squiggle_path_prepend() {
  case ":$PATH:" in
    *":$1:"*) ;;
    *) PATH="$1${PATH:+:$PATH}" ;;
  esac
}

# Lowest priority first: each prepend goes in front of the previous one.
for _squiggle_dir in /usr/lib/go/bin "$HOME/go/bin" "$HOME/.cargo/bin" \
  "$SQUIGGLE_TOOLS/venv/bin" "$SQUIGGLE_TOOLS/npm/node_modules/.bin" \
  "$SQUIGGLE_TOOLS/agents/node_modules/.bin"; do
  if [ -d "$_squiggle_dir" ]; then _squiggle_path_prepend "$_squiggle_dir"; fi
done
export PATH
unset _squiggle_dir _squiggle_env_src
unset -f _squiggle_path_prepend
