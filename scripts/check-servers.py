#!/usr/bin/env python3
"""Handshake check for the language servers installed by scripts/install-servers.sh.

Stdlib only.  For each server: spawn it in a fresh temp project, send a real
LSP `initialize`, report serverInfo, the static `diagnosticProvider` (pull),
the `textDocumentSync` kind and the negotiated `positionEncoding`; then send
`initialized`, open one deliberately broken file, wait (bounded) for the first
`textDocument/publishDiagnostics` (and, for pull servers, ask
`textDocument/diagnostic`), and finally `shutdown` (a request with NO params
member) + `exit`, and wait for the process to go away.

Every server-to-client request is answered (workspace/configuration with one
null per item, the rest with null) and recorded, so quirks show up in the
report.

    source scripts/env.sh && scripts/check-servers.py [--only a,b] [--json out.json]
                                                      [--no-diagnostics]

Exit status is non-zero if a *required* server failed.  Temporary evidence
until squiggle's own `doctor` exists.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

# The LSP framing lives once, beside the truth corpus's careful client.
sys.path.insert(0, str(Path(__file__).resolve().parent / "truth"))
import lsp  # noqa: E402

TIMEOUT = 30.0  # whole life of one server
DIAG_WAIT = 15.0  # how long to wait for the first diagnostics after didOpen

# name, argv, required, files {relpath: text}, file to open, languageId
SERVERS: list[dict[str, Any]] = [
    dict(name="pyright", argv=["pyright-langserver", "--stdio"], required=True,
         files={"main.py": "import os\nx: int = 'not an int'\n"}, open="main.py", lang="python"),
    dict(name="basedpyright", argv=["basedpyright-langserver", "--stdio"], required=False,
         files={"main.py": "import os\nx: int = 'not an int'\n"}, open="main.py", lang="python"),
    dict(name="ruff", argv=["ruff", "server"], required=True,
         files={"main.py": "import os\nx: int = 'not an int'\n"}, open="main.py", lang="python"),
    dict(name="ty", argv=["ty", "server"], required=False,
         files={"main.py": "import os\nx: int = 'not an int'\n"}, open="main.py", lang="python"),
    dict(name="typescript-language-server", argv=["typescript-language-server", "--stdio"], required=True,
         files={"index.ts": "const x: number = 'not a number';\nexport {};\n",
                "tsconfig.json": '{"compilerOptions": {"strict": true}}\n'},
         open="index.ts", lang="typescript"),
    dict(name="tsgo", argv=["tsgo", "--lsp", "--stdio"], required=False,
         files={"index.ts": "const x: number = 'not a number';\nexport {};\n",
                "tsconfig.json": '{"compilerOptions": {"strict": true}}\n'},
         open="index.ts", lang="typescript"),
    dict(name="eslint (vscode-eslint-language-server)", argv=["vscode-eslint-language-server", "--stdio"],
         required=False,
         files={"index.js": "var unused = 1;\n",
                "eslint.config.js": "module.exports = [{ rules: { 'no-unused-vars': 'error' } }];\n"},
         open="index.js", lang="javascript",
         # vscode-eslint-language-server asks workspace/configuration with section "" and
         # crashes on null ("Cannot read properties of null (reading 'workingDirectory')").
         config={"": lambda root_uri: {
             "validate": "on", "packageManager": "npm", "useESLintClass": False,
             "experimental": {}, "useFlatConfig": True,
             "codeAction": {"disableRuleComment": {"enable": True, "location": "separateLine"},
                            "showDocumentation": {"enable": True}},
             "codeActionOnSave": {"enable": False, "mode": "all"}, "format": False, "quiet": False,
             "onIgnoredFiles": "off", "options": {}, "rulesCustomizations": [], "run": "onType",
             "problems": {"shortenToSingleLine": False},
             # Without nodePath it sends eslint/noLibrary: eslint is resolved from the
             # workspace, and the temp project has no node_modules.
             "nodePath": os.path.join(os.environ.get("SQUIGGLE_TOOLS", ".tools"), "npm", "node_modules"),
             "workingDirectory": {"mode": "location"},
             "workspaceFolder": {"uri": root_uri, "name": "check"}}}),
    dict(name="vscode-json-language-server", argv=["vscode-json-language-server", "--stdio"], required=False,
         files={"a.json": '{"a": 1,, }\n'}, open="a.json", lang="json"),
    dict(name="vscode-css-language-server", argv=["vscode-css-language-server", "--stdio"], required=False,
         files={"a.css": "a { colr: red; }\nb { color: #ff; }\n"}, open="a.css", lang="css",
         config={"css": lambda root_uri: {"validate": True, "lint": {}}}),
    dict(name="vscode-html-language-server", argv=["vscode-html-language-server", "--stdio"], required=False,
         files={"a.html": "<p>hi</p>\n"}, open="a.html", lang="html"),
    dict(name="bash-language-server", argv=["bash-language-server", "start"], required=True,
         files={"a.sh": "#!/bin/bash\necho $foo\n"}, open="a.sh", lang="shellscript"),
    dict(name="yaml-language-server", argv=["yaml-language-server", "--stdio"], required=False,
         files={"a.yaml": "a: [1, 2\nb: : :\n"}, open="a.yaml", lang="yaml"),
    dict(name="tombi", argv=["tombi", "lsp"], required=False,
         files={"a.toml": "a = \n"}, open="a.toml", lang="toml"),
    dict(name="clangd", argv=["clangd"], required=True,
         files={"main.c": "int main(void) { return undefined_var; }\n"}, open="main.c", lang="c"),
    dict(name="gopls", argv=["gopls"], required=True,
         files={"go.mod": "module example.com/m\n\ngo 1.19\n",
                "main.go": "package main\n\nfunc main() {\n\tx := 1\n}\n"},
         open="main.go", lang="go"),
    dict(name="rust-analyzer", argv=["rust-analyzer"], required=True,
         files={"Cargo.toml": '[package]\nname = "m"\nversion = "0.1.0"\nedition = "2021"\n',
                "src/main.rs": "fn main() {\n    let x: i32 = \"no\";\n    undefined_fn();\n}\n"},
         open="src/main.rs", lang="rust"),
]

CLIENT_CAPABILITIES = lsp.client_capabilities(dynamic=False, progress=False, related=True, pull=True,
                                               encodings=["utf-8", "utf-16"])


class Conn:
    def __init__(self, argv: list[str], cwd: str):
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True)
        self.q: queue.Queue = queue.Queue()
        self.stderr = bytearray()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stderr
        for chunk in iter(lambda: self.proc.stderr.read1(4096), b""):  # type: ignore[union-attr]
            if len(self.stderr) < 64 * 1024:
                self.stderr += chunk

    def _read(self) -> None:
        assert self.proc.stdout
        try:
            while (msg := lsp.read_message(self.proc.stdout)) is not None:
                self.q.put(msg)
        except Exception as e:  # noqa: BLE001
            self.q.put({"_reader_error": repr(e)})
        self.q.put(None)

    def send(self, msg: dict) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(lsp.encode({"jsonrpc": "2.0", **msg}))
        self.proc.stdin.flush()

    def request(self, method: str, params: Any = None) -> int:
        i = self.next_id
        self.next_id += 1
        msg: dict[str, Any] = {"id": i, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return i

    def notify(self, method: str, params: Any = None) -> None:
        msg: dict[str, Any] = {"method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)


def sync_kind(cap: Any) -> str:
    names = {0: "none", 1: "full", 2: "incremental"}
    if cap is None:
        return "absent"
    if isinstance(cap, int):
        return names.get(cap, str(cap))
    if isinstance(cap, dict):
        k = cap.get("change")
        s = names.get(k, str(k)) if k is not None else "none"
        return s + ("" if cap.get("openClose") else " (no openClose)")
    return repr(cap)


def check(spec: dict, want_diags: bool) -> dict:
    res: dict[str, Any] = {"name": spec["name"], "required": spec["required"], "ok": False,
                           "argv": spec["argv"], "server_requests": [], "notifications": {}, "messages": []}
    exe = shutil.which(spec["argv"][0])
    res["path"] = exe
    if not exe:
        res["error"] = "not on PATH"
        return res
    tmp = tempfile.mkdtemp(prefix="squiggle-check-")
    try:
        root = Path(tmp)
        for rel, text in spec["files"].items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        root_uri = root.resolve().as_uri()
        conn = Conn(spec["argv"], tmp)
        deadline = conn.t0 + TIMEOUT
        refresh = [False]  # set when the server sends workspace/diagnostic/refresh

        def pump(until) -> Any:
            """Process messages until until(msg) returns a non-None value or time runs out."""
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("timed out")
                try:
                    msg = conn.q.get(timeout=min(left, 0.5))
                except queue.Empty:
                    r = until(None)
                    if r is not None:
                        return r
                    continue
                if msg is None:
                    raise EOFError("server closed stdout (exit code %s)" % conn.proc.poll())
                if "_reader_error" in msg:
                    raise RuntimeError(msg["_reader_error"])
                if "method" in msg and "id" in msg:  # server -> client request
                    m = msg["method"]
                    entry: dict[str, Any] = {"method": m, "t": round(time.monotonic() - conn.t0, 3)}
                    result: Any = None
                    if m == "workspace/configuration":
                        items = (msg.get("params") or {}).get("items", [])
                        entry["sections"] = [it.get("section") for it in items]
                        cfg = spec.get("config") or {}
                        result = [cfg[it.get("section") or ""](root_uri)
                                  if (it.get("section") or "") in cfg else None for it in items]
                    elif m == "client/registerCapability":
                        entry["registrations"] = [r.get("method") for r in
                                                  (msg.get("params") or {}).get("registrations", [])]
                    elif m == "workspace/workspaceFolders":
                        result = [{"uri": root_uri, "name": "check"}]
                    elif m == "workspace/diagnostic/refresh":
                        refresh[0] = True
                    res["server_requests"].append(entry)
                    conn.send({"id": msg["id"], "result": result})
                elif "method" in msg:  # notification
                    m = msg["method"]
                    res["notifications"][m] = res["notifications"].get(m, 0) + 1
                    if m in ("window/logMessage", "window/showMessage") and len(res["messages"]) < 30:
                        res["messages"].append(str((msg.get("params") or {}).get("message"))[:300])
                    r = until(msg)
                    if r is not None:
                        return r
                else:  # response
                    r = until(msg)
                    if r is not None:
                        return r

        init_params = {
            "processId": os.getpid(),
            "clientInfo": {"name": "squiggle-check-servers", "version": "0"},
            "rootUri": root_uri,
            "rootPath": str(root),
            "workspaceFolders": [{"uri": root_uri, "name": "check"}],
            "capabilities": CLIENT_CAPABILITIES,
        }
        iid = conn.request("initialize", init_params)
        init = pump(lambda m: m if m and m.get("id") == iid else None)
        res["initialize_s"] = round(time.monotonic() - conn.t0, 3)
        if "error" in init:
            raise RuntimeError("initialize error: %s" % json.dumps(init["error"]))
        result = init.get("result") or {}
        caps = result.get("capabilities") or {}
        info = result.get("serverInfo") or {}
        res["serverInfo"] = info
        res["positionEncoding"] = caps.get("positionEncoding", "(absent: utf-16)")
        res["textDocumentSync"] = sync_kind(caps.get("textDocumentSync"))
        dp = caps.get("diagnosticProvider")
        res["diagnosticProvider"] = dp
        conn.notify("initialized", {})

        if want_diags:
            path = root / spec["open"]
            uri = path.resolve().as_uri()
            t_open = time.monotonic()
            conn.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": spec["lang"], "version": 1, "text": path.read_text()}})
            push: dict[str, Any] = {}
            pull: dict[str, Any] = {}
            pull_id = None
            if dp:
                pull_id = conn.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
            diag_deadline = t_open + DIAG_WAIT

            next_pull_at: float | None = None
            pulls = 0

            def until_diags(m):
                nonlocal pull_id, next_pull_at, pulls
                if m and m.get("method") == "textDocument/publishDiagnostics":
                    p = m.get("params") or {}
                    if p.get("uri") == uri:
                        n = len(p.get("diagnostics") or [])
                        push.setdefault("first_s", round(time.monotonic() - t_open, 3))
                        push.setdefault("first_count", n)
                        push["last_count"] = n
                        push["version"] = p.get("version", "(absent)")
                        push["sources"] = sorted({str(d.get("source")) for d in p.get("diagnostics") or []})
                        if n > 0:
                            push.setdefault("first_nonempty_s", round(time.monotonic() - t_open, 3))
                if m and pull_id is not None and m.get("id") == pull_id:
                    r = m.get("result") or {}
                    pulls += 1
                    pull["s"] = round(time.monotonic() - t_open, 3)
                    pull["pulls"] = pulls
                    if "error" in m:
                        pull["error"] = m["error"]
                    else:
                        pull["kind"] = r.get("kind")
                        pull["count"] = len(r.get("items") or [])
                        pull["sources"] = sorted({str(d.get("source")) for d in r.get("items") or []})
                        if pull["count"] == 0:
                            pull.setdefault("first_empty_s", pull["s"])
                            next_pull_at = time.monotonic() + 1.0  # not ready yet? ask again
                    pull_id = None
                if refresh[0]:
                    refresh[0] = False
                    next_pull_at = time.monotonic()
                if pull_id is None and next_pull_at is not None and time.monotonic() >= next_pull_at:
                    next_pull_at = None
                    pull_id = conn.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
                done_push = "first_nonempty_s" in push
                done_pull = dp and pull.get("count", 0) > 0
                if done_push or done_pull:
                    return True
                if time.monotonic() > diag_deadline:
                    return False
                return None

            try:
                pump(until_diags)
            except TimeoutError:
                pass
            res["push"] = push
            if dp:
                res["pull"] = pull

        t_sd = time.monotonic()
        sid = conn.request("shutdown")  # no params member at all
        sd = pump(lambda m: m if m and m.get("id") == sid else None)
        if "error" in sd:
            res["shutdown_error"] = sd["error"]
        conn.notify("exit")
        try:
            conn.proc.wait(timeout=max(1.0, min(10.0, deadline - time.monotonic())))
            res["exit_code"] = conn.proc.returncode
        except subprocess.TimeoutExpired:
            res["exit_code"] = "did not exit after shutdown+exit; killed"
            conn.proc.kill()
        res["shutdown_s"] = round(time.monotonic() - t_sd, 3)
        res["ok"] = True
    except Exception as e:  # noqa: BLE001
        res["error"] = "%s: %s" % (type(e).__name__, e)
        try:
            conn.proc.kill()  # type: ignore[possibly-undefined]
        except Exception:  # noqa: BLE001
            pass
    finally:
        try:
            res["stderr_tail"] = bytes(conn.stderr[-600:]).decode("utf-8", "replace")  # type: ignore[possibly-undefined]
            conn.proc.wait(timeout=5)  # type: ignore[possibly-undefined]
        except Exception:  # noqa: BLE001
            pass
        shutil.rmtree(tmp, ignore_errors=True)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated server names")
    ap.add_argument("--json", help="write full results as JSON to this file")
    ap.add_argument("--no-diagnostics", action="store_true", help="skip didOpen / diagnostics wait")
    args = ap.parse_args()
    specs = SERVERS
    if args.only:
        names = set(args.only.split(","))
        specs = [s for s in SERVERS if s["name"] in names or s["argv"][0] in names]
    results = []
    failed_required = []
    for spec in specs:
        r = check(spec, not args.no_diagnostics)
        results.append(r)
        if r["ok"]:
            info = r.get("serverInfo") or {}
            push = r.get("push") or {}
            pull = r.get("pull")
            diag = "push first=%ss n=%s" % (push.get("first_nonempty_s", push.get("first_s", "-")),
                                            push.get("last_count", "-"))
            if pull is not None:
                diag += " | pull %ss n=%s (%s pulls)" % (pull.get("s", "-"), pull.get("count", pull.get("error", "-")),
                                                        pull.get("pulls", 0))
            reqs = sorted({q["method"] for q in r["server_requests"]})
            print("OK   %-38s serverInfo=%s %s | init %.2fs | pull=%s | sync=%s | enc=%s | %s | exit=%s%s" % (
                r["name"], info.get("name", "-"), info.get("version", "-"), r["initialize_s"],
                "yes" if r["diagnosticProvider"] else "no", r["textDocumentSync"], r["positionEncoding"],
                diag, r.get("exit_code"), (" | asks: " + ",".join(reqs)) if reqs else ""))
        else:
            tag = "FAIL" if r["required"] else "WARN"
            print("%s %-38s %s" % (tag, r["name"], r.get("error")))
            if r.get("stderr_tail"):
                print("      stderr: " + r["stderr_tail"].strip().replace("\n", "\n      ")[-400:])
            if r["required"]:
                failed_required.append(r["name"])
        sys.stdout.flush()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    if failed_required:
        print("required servers failed: " + ", ".join(failed_required), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
