#!/usr/bin/env python3
"""The truth corpus: pinned real projects, seeded one-line mutations, each
language's CLI checker as ground truth, squiggle and a careful LSP client
scored against it.

    . scripts/env.sh
    python3 scripts/truth/truth.py fetch            # download, verify, prune
    python3 scripts/truth/truth.py gen              # regenerate cases.json (on purpose only)
    python3 scripts/truth/truth.py verify           # recompute the truth of cases.json
    python3 scripts/truth/truth.py run [--smoke]    # drive squiggle + careful client, score
    python3 scripts/truth/truth.py fixes [--smoke]  # issue 26: fix lines, fixes, auto-fix (fixes.py)
    python3 scripts/truth/truth.py budget [--smoke] # latency per language: careful, serve, hook (budget.py)

Why a script: it is a measurement, too slow for every CI run; `--smoke`
(one project per language, 3 cases each) is small enough for one.
"""

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

import fetch
import gen
import variants

SMOKE_PROJECTS = ["py-tomli", "ts-redux", "go-uuid", "rs-semver", "c-cjson"]
SMOKE_KINDS = ["signature_change", "undefined_name", "rename"]


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def load_projects(only):
    projects = json.loads((HERE / "projects.json").read_text())["projects"]
    if only:
        projects = [p for p in projects if p["id"] in only or p["lang"] in only]
    return projects


def load_cases():
    cases = []
    for p in load_projects(None):
        path = HERE / "cases" / f"{p['id']}.json"
        if path.exists():
            cases.extend(json.loads(path.read_text())["cases"])
    return cases


def smoke_cases(cases):
    out = []
    for pid in SMOKE_PROJECTS:
        for kind in SMOKE_KINDS:
            c = next((c for c in cases if c["project"] == pid and c["kind"] == kind), None)
            if c:
                out.append(c)
    return out


def cmd_fetch(args):
    for p in load_projects(args.only):
        fetch.prepare(p, args.cache, log)
        log(f"{p['id']}: ready")


def cmd_gen(args):
    (HERE / "cases").mkdir(exist_ok=True)
    for p in load_projects(args.only):
        fetch.prepare(p, args.cache, log)
        t = time.time()
        cases = gen.generate(p, args.cache, log)
        log(f"{p['id']}: {len(cases)} cases in {time.time() - t:.0f} s")
        (HERE / "cases" / f"{p['id']}.json").write_text(json.dumps({
            "_comment": "Frozen by `truth.py gen` (seeded); expected = checker errors (file, line, message) "
                        "present after the mutation and absent before it.",
            "cases": cases}, indent=1) + "\n")


def cmd_verify(args):
    import os


    variants.environment(os.environ, args)
    cases = load_cases()
    bad = 0
    for p in load_projects(args.only):
        fetch.prepare(p, args.cache, log)
        drift = gen.verify(p, [c for c in cases if c["project"] == p["id"]], args.cache, log)
        bad += len(drift)
    log(f"{bad} cases drifted")
    return 1 if bad else 0


def cmd_run(args):
    import run

    return run.main(args, load_projects(args.only), load_cases(), smoke_cases, log)


def cmd_fixes(args):
    import fixes

    return fixes.main(args, load_projects(args.only), load_cases(), smoke_cases, log)


def cmd_budget(args):
    import budget

    return budget.main(args, load_projects(args.only), load_cases(), smoke_cases, log)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, default=REPO / "target" / "truth")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("fetch", "gen", "verify", "run", "fixes", "budget"):
        sp = sub.add_parser(name)
        sp.add_argument("--only", nargs="*", help="project ids or languages")
        if name in ("verify", "run", "fixes", "budget"):
            sp.add_argument("--typescript", choices=["7"], default=None,
                            help="TypeScript 7 in each TypeScript workspace (scripts/truth/variants.py)")
            sp.add_argument("--rust-toolchain", default=None,
                            help="run rust-analyzer and cargo from this rustup toolchain (e.g. 1.99.1)")
        if name == "fixes":
            sp.add_argument("--python", choices=sorted(variants.PYTHON), default=None,
                            help="the Python type checker squiggle runs (basedpyright offers fixes; pyright none)")
            sp.add_argument("--smoke", action="store_true", help="one project per language, 3 cases each")
            sp.add_argument("--squiggle", type=Path, default=REPO / "target" / "release" / "squiggle")
            sp.add_argument("--out", type=Path, default=None, help="results directory (default CACHE/fixes)")
            sp.add_argument("--cases", nargs="*", help="case ids")
            sp.add_argument("--modes", default="off,on,auto",
                            help="comma list: off (fixLines = 0), on (fix lines; each fix applied), "
                                 "auto (autoFix = [\"quickfix\"])")
            sp.add_argument("--report-of", type=Path, default=None,
                            help="print the report of a saved fixes.json instead of running")
            sp.add_argument("--auto-fix", nargs="*", default=["quickfix"],
                            help="the autoFix entries of the auto mode (default: quickfix)")
        if name == "budget":
            sp.add_argument("--python", choices=sorted(variants.PYTHON), default=None,
                            help="the Python type checker both clients run (scripts/truth/variants.py)")
            sp.add_argument("--smoke", action="store_true", help="one project per language, 3 cases each")
            sp.add_argument("--squiggle", type=Path, default=REPO / "target" / "release" / "squiggle")
            sp.add_argument("--out", type=Path, default=None, help="results directory (default CACHE/budget)")
            sp.add_argument("--cases", nargs="*", help="case ids")
            sp.add_argument("--report-of", type=Path, default=None,
                            help="print the budget table of a saved truth.json (run or budget) instead of running")
        if name == "run":
            sp.add_argument("--python", choices=sorted(variants.PYTHON), default=None,
                            help="the Python type checker both clients run (scripts/truth/variants.py)")
            sp.add_argument("--smoke", action="store_true", help="one project per language, 3 cases each")
            sp.add_argument("--squiggle", type=Path, default=REPO / "target" / "release" / "squiggle")
            sp.add_argument("--clients", default="squiggle,careful",
                            help="comma list: squiggle (serve), careful, hook (Claude Code's hook path), "
                                 "hook-outside (the same, each revert made on disk outside squiggle)")
            sp.add_argument("--out", type=Path, default=None, help="results directory (default CACHE/results)")
            sp.add_argument("--cases", nargs="*", help="case ids")
            sp.add_argument("--quiet", type=int, default=None,
                            help="calibration: override every careful server's quiet window (ms) and record arrivals")
    args = ap.parse_args()
    args.cache = args.cache.resolve()
    commands = {"fetch": cmd_fetch, "gen": cmd_gen, "verify": cmd_verify, "run": cmd_run, "fixes": cmd_fixes,
                "budget": cmd_budget}
    return commands[args.cmd](args) or 0


if __name__ == "__main__":
    sys.exit(main())
