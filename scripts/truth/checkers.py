"""Each language's command-line checker, as the ground truth: the set of
error (file, line) pairs for a project tree.

Why: recall is scored against what the language's own compiler or checker
says, not against any language server; the truth of a case is what appears
after the mutation and was absent before it.
"""

import json
import os
import re
import subprocess
from pathlib import Path

CLANG = "clang-14"


def _rel(root, path):
    p = Path(path)
    if not p.is_absolute():
        p = Path(root) / p
    try:
        return p.resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return None


def _add(out, root, path, line, msg):
    rel = _rel(root, path)
    if rel is not None:
        out.setdefault((rel, int(line)), msg.strip()[:200])


def pyright(root):
    res = subprocess.run(["pyright", "--outputjson"], cwd=root, capture_output=True, text=True)
    out = {}
    try:
        data = json.loads(res.stdout)
    except json.JSONDecodeError as e:
        raise RuntimeError(f"pyright printed no json in {root}: {res.stderr[-400:]}") from e
    for d in data.get("generalDiagnostics", []):
        if d.get("severity") == "error":
            _add(out, root, d["file"], d["range"]["start"]["line"] + 1, d["message"])
    return out


TSC_LINE = re.compile(r"^(.+?)\((\d+),(\d+)\): error (TS\d+: .*)$")


def tsc(root):
    # TRUTH_TSC: another TypeScript's tsc (`--typescript 7`, scripts/truth/variants.py).
    res = subprocess.run([os.environ.get("TRUTH_TSC", "tsc"), "--noEmit", "-p", "tsconfig.json", "--pretty", "false"],
                         cwd=root, capture_output=True, text=True)
    out = {}
    for line in res.stdout.splitlines():
        m = TSC_LINE.match(line)
        if m:
            _add(out, root, m.group(1), m.group(2), m.group(4))
    return out


GO_LINE = re.compile(r"^(?:vet: )?(\.?/?[^\s:]+\.go):(\d+)(?::\d+)?: (.*)$")


def go(root):
    env = dict(os.environ, GOPROXY="off", GOFLAGS="-mod=mod", GO111MODULE="on")
    out = {}
    for cmd in (["go", "build", "-gcflags=-e", "./..."], ["go", "vet", "./..."]):
        res = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=env)
        for line in res.stderr.splitlines():
            m = GO_LINE.match(line.strip())
            if m:
                _add(out, root, m.group(1), m.group(2), m.group(3))
    return out


def cargo(root):
    env = dict(os.environ, CARGO_TARGET_DIR=str(Path(root) / "target-truth"))
    res = subprocess.run(["cargo", "check", "--offline", "--all-targets", "--message-format=json"],
                         cwd=root, capture_output=True, text=True, env=env)
    out = {}
    for line in res.stdout.splitlines():
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        m = msg.get("message") if msg.get("reason") == "compiler-message" else None
        if not m or m.get("level") != "error":
            continue
        for span in m.get("spans", []):
            if span.get("is_primary"):
                _add(out, root, span["file_name"], span["line_start"], m["message"])
    return out


CLANG_LINE = re.compile(r"^(.+?):(\d+):(\d+): (?:fatal )?error: (.*)$")


def clang(root):
    flags = [f for f in (Path(root) / "compile_flags.txt").read_text().splitlines() if f]
    out = {}
    for c in sorted(Path(root).rglob("*.c")):
        res = subprocess.run([CLANG, "-fsyntax-only", "-fno-caret-diagnostics", 
                              *flags, str(c.relative_to(root))], cwd=root, capture_output=True, text=True)
        for line in res.stderr.splitlines():
            m = CLANG_LINE.match(line)
            if m:
                _add(out, root, m.group(1), m.group(2), m.group(4))
    return out


BY_LANG = {"python": pyright, "typescript": tsc, "go": go, "rust": cargo, "c": clang}


def errors(lang, root):
    return BY_LANG[lang](root)
