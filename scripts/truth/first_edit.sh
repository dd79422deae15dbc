#!/bin/bash
# What a first edit pays so that it blames nothing old (docs/truth.md, "A
# first edit blames nothing old"): in a git repository where lib.py has
# three importers with a committed error, the time of the first harmless
# `squiggle write lib.py` through the daemon and of five warm writes after
# it. Mode A: the importers never taken; B: taken by a check first.
#   scripts/truth/first_edit.sh            # this build, A and B
#   BIN=/path/to/squiggle MODES=A scripts/truth/first_edit.sh
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN=${BIN:-$ROOT/target/debug/squiggle}
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"
TMP=$(mktemp -d)
run() { # $1 = A|B, $2 = round
  d=$(mktemp -d "$TMP/ws.XXXX"); cd "$d" || exit 1
  export XDG_RUNTIME_DIR=$d/run XDG_CONFIG_HOME=$d/cfg HOME=$d/home; mkdir -p run cfg home
  mkdir ws; cd ws || exit 1; git init -q; git config user.email t@e; git config user.name t
  printf 'def greet(name: str) -> str:\n    return name\n' > lib.py
  for i in 1 2 3; do printf 'from lib import greet\n\nbroken: int = "old-error"\nprint(greet("a"))\n' > user$i.py; done
  git add -A; git commit -qm first
  $BIN daemon start --root . >/dev/null 2>&1
  $BIN check lib.py >/dev/null 2>&1   # warm the server on lib.py only
  [ "$1" = B ] && $BIN check user1.py user2.py user3.py >/dev/null 2>&1
  s=$(date +%s%N); out=$(printf 'def greet(name: str) -> str:\n    return name\n# a\n' | $BIN write lib.py); e=$(date +%s%N)
  first=$(( (e-s)/1000000 ))
  warm=""
  for k in 1 2 3 4 5; do
    s=$(date +%s%N); printf 'def greet(name: str) -> str:\n    return name\n# %s\n' $k | $BIN write lib.py >/dev/null; e=$(date +%s%N)
    warm="$warm $(( (e-s)/1000000 ))"
  done
  blamed=$(echo "$out" | grep -c old-error)
  echo "$1 round $2: first ${first} ms (old-error lines: $blamed); warm:$warm"
  $BIN daemon stop --root . >/dev/null 2>&1
  cd / || exit 1; rm -rf "$d"
}
for r in 1 2 3; do for m in ${MODES:-A B}; do run "$m" "$r"; done; done
rm -rf "$TMP"
