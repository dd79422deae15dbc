"""Each language's command-line checker, as the ground truth: the set of
error (file, line) pairs for a project tree.

Why: recall is scored against what the language's own compiler or checker
says, not against any language server; the truth of a case is what appears
after the mutation and was absent before it.
"""

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

CLANG = "clang-14"
# vue-tsc and svelte-check: the `.bin` of the pinned npm install
# (scripts/truth/npm/checkers), set by fetch.ensure_checker.
NPM_BIN = None


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


def _npm_tool(name):
    if NPM_BIN is None:
        raise RuntimeError(f"{name}: the pinned checkers are not installed (fetch.ensure_checker)")
    return str(NPM_BIN / name)


def vue_tsc(root):
    """vue-tsc: tsc over the project with its `.vue` components."""
    res = subprocess.run([_npm_tool("vue-tsc"), "--noEmit", "-p", "tsconfig.json", "--pretty", "false"],
                         cwd=root, capture_output=True, text=True)
    out = {}
    for line in res.stdout.splitlines():
        m = TSC_LINE.match(line)
        if m:
            _add(out, root, m.group(1), m.group(2), m.group(4))
    return out


SVELTE_LINE = re.compile(r'^\d+ ERROR "(.+?)" (\d+):(\d+) "(.*)"$')


def svelte_check(root):
    """svelte-check's machine output: `<time> ERROR "file" line:col "message"`."""
    res = subprocess.run([_npm_tool("svelte-check"), "--output", "machine", "--tsconfig", "./tsconfig.json"],
                         cwd=root, capture_output=True, text=True)
    out = {}
    for line in res.stdout.splitlines():
        m = SVELTE_LINE.match(line)
        if m:
            _add(out, root, m.group(1), m.group(2), m.group(4))
    return out


SHELL_EXT = (".sh", ".bash")


def shellcheck(root):
    """shellcheck's error-level findings (bash-language-server shows them as
    errors; warnings, infos and style as lower severities), following
    sourced files as the server does (`--external-sources`)."""
    files = sorted(p.relative_to(root).as_posix() for p in Path(root).rglob("*")
                   if p.suffix in SHELL_EXT and p.is_file())
    res = subprocess.run(["shellcheck", "--external-sources", "--format=json1", *files],
                         cwd=root, capture_output=True, text=True)
    try:
        data = json.loads(res.stdout)
    except json.JSONDecodeError as e:
        raise RuntimeError(f"shellcheck printed no json in {root}: {res.stderr[-400:]}") from e
    out = {}
    for c in data.get("comments", []):
        if c.get("level") == "error":
            _add(out, root, c["file"], c["line"], f"SC{c['code']}: {c['message']}")
    return out


PHP_LINE = re.compile(r"^(?:PHP )?(?:Parse|Fatal) error:\s+(.*) in (.+) on line (\d+)$")
_php_cache = {}  # sha256 of a file's bytes -> [(line, message)]


def php_lint(root):
    """`php -l` on every `.php` file: syntax (and compile-time) errors only,
    at most one per file. Answers are kept by content, since a file's lint
    depends on its bytes alone."""
    out = {}
    for f in sorted(Path(root).rglob("*.php")):
        key = hashlib.sha256(f.read_bytes()).hexdigest()
        if key not in _php_cache:
            res = subprocess.run(["php", "-n", "-d", "display_errors=stdout", "-l", f.name],
                                 cwd=f.parent, capture_output=True, text=True)
            found = []
            for line in res.stdout.splitlines():
                m = PHP_LINE.match(line.strip())
                if m:
                    found.append((int(m.group(3)), m.group(1)))
            _php_cache[key] = found
        for line, msg in _php_cache[key]:
            _add(out, root, f, line, msg)
    return out


BY_LANG = {"python": pyright, "typescript": tsc, "go": go, "rust": cargo, "c": clang,
           "vue": vue_tsc, "svelte": svelte_check, "shell": shellcheck, "php": php_lint}


def errors(lang, root):
    return BY_LANG[lang](root)
