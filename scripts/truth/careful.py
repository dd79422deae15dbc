"""A careful LSP client: opens every source file of the project, applies each
edit (disk, didChange, didSave where asked), and waits only on the
server's own signals, plus a measured quiet window where there is none.

Why: the baseline squiggle is compared with. It shares no code with
squiggle. Per server:
- pull (pyright registers it): one textDocument/diagnostic per open file
  after the change; the answers are current by definition.
- versioned push (gopls, clangd): the edited file's publish for the new
  version, then clangd's fileStatus back to idle for every open file, then
  the quiet window.
- unversioned push (typescript-language-server): the first publish of the
  edited file later than the stale window after the change, then the quiet
  window.
- check on save (rust-analyzer): the end of a `rust-analyzer/flycheck`
  progress that began after the save, then the quiet window, then every
  open file pulled again.
- `--typescript 7` (scripts/truth/variants.py): TypeScript 7's own
  `tsc --lsp --stdio`, by pull, like pyright.
- Vue: typescript-language-server with the Vue plugin, as TypeScript;
  Svelte: svelte-language-server by pull; shell: bash-language-server's
  versioned publish; PHP: intelephense's publish after its 1 s debounce.
"""

import os
import queue
import time
from pathlib import Path

import mutate
import variants

import lsp

# quiet: ms of silence (no diagnostics change, no fileStatus, no progress)
# taken as "done" after the server's own signal: the longest gap inside one
# change's answer that `truth.py run --clients careful --quiet 3000` measured
# on the corpus, rounded up to 50 ms (docs/truth.md has the runs).
# stale_ms: a publish this soon after a change is the
# previous round's (typescript-language-server waits >= 300 ms before checking).
SERVERS = {
    "python": {"cmd": ["pyright-langserver", "--stdio"], "lang_id": "python", "mode": "pull", "quiet": 0},
    "typescript": {"cmd": ["typescript-language-server", "--stdio"], "lang_id": "typescript",
                   "mode": "unversioned", "quiet": 350, "stale_ms": 250, "unchanged_ms": 3000},
    "go": {"cmd": ["gopls"], "lang_id": "go", "mode": "versioned", "quiet": 50, "save": True,
           "unchanged_ms": 2500},
    "rust": {"cmd": ["rust-analyzer"], "lang_id": "rust", "mode": "flycheck", "quiet": 650, "save": True,
             "pull": True},
    "c": {"cmd": ["clangd", "--log=error"], "lang_id": "c", "mode": "versioned", "quiet": 450, "save": True,
          "init": {"clangdFileStatus": True}},
    # typescript-language-server with the Vue plugin for TypeScript (its
    # `location` filled in by variants.vue_plugin): tsserver checks the
    # components; the same waits as TypeScript's.
    "vue": {"cmd": ["typescript-language-server", "--stdio"], "lang_id": "vue", "mode": "unversioned",
            "quiet": 350, "stale_ms": 250, "unchanged_ms": 3000, "vue_plugin": True},
    "svelte": {"cmd": ["svelteserver", "--stdio"], "lang_id": "svelte", "mode": "pull", "quiet": 0},
    # bash-language-server: one versioned publish per version (shellcheck's).
    "shell": {"cmd": ["bash-language-server", "start"], "lang_id": "shellscript", "mode": "versioned",
              "quiet": 0, "unchanged_ms": 2500},
    # intelephense: one unversioned publish per change, 1 s after the last
    # change (its debounce); a sooner one is an earlier round's.
    "php": {"cmd": ["intelephense", "--stdio"], "lang_id": "php", "mode": "unversioned",
            "quiet": 150, "stale_ms": 600, "unchanged_ms": 3000},
}
DEADLINE = 30.0


def uri(path):
    return Path(path).resolve().as_uri()


class Careful:
    def __init__(self, project, root, env, quiet_override=None, servers=None):
        self.lang = project["lang"]
        self.spec = dict((servers or SERVERS)[self.lang])
        if self.spec.get("vue_plugin"):
            self.spec["init"] = {"plugins": [variants.vue_plugin()]}
        if quiet_override is not None:
            self.spec["quiet"] = quiet_override
        self.root = Path(root).resolve()
        self.diags = {}  # rel path -> list of LSP diagnostics (pushed)
        self.pulled = {}  # rel path -> list of LSP diagnostics (pull answers)
        self.status = {}  # rel path -> clangd fileStatus state
        self.pull_registered = False
        self.progress = {}  # token -> (begin time, title) while open
        self.progress_ended = []  # (token, title, begin, end)
        self.versions = {}
        self.last_publish = {}  # rel -> (time, version)
        self.conn = lsp.Conn(self.spec["cmd"], str(self.root), env, on_request=self._on_request)
        self._init()

    def _on_request(self, msg):
        m = msg["method"]
        if m == "workspace/configuration":
            settings = self.spec.get("settings") or {}
            return [settings.get(item.get("section") or "", {}) for item in msg["params"].get("items", [])]
        if m == "client/registerCapability":
            for r in msg["params"].get("registrations", []):
                if r.get("method") == "textDocument/diagnostic":
                    self.pull_registered = True
        return None

    def _init(self):
        caps = lsp.client_capabilities(dynamic=True, progress=True, related=False,
                                       pull=self.spec["mode"] == "pull" or self.spec.get("pull"))
        res = self.conn.request("initialize", {
            "processId": os.getpid(), "rootUri": uri(self.root), "capabilities": caps,
            "workspaceFolders": [{"uri": uri(self.root), "name": self.root.name}],
            "initializationOptions": self.spec.get("init")}, timeout=60)
        if res.get("capabilities", {}).get("diagnosticProvider") and (
                self.spec["mode"] == "pull" or self.spec.get("pull")):
            self.pull_registered = True
        self.conn.notify("initialized", {})
        self.conn.notify("workspace/didChangeConfiguration", {"settings": {}})

    def rel(self, u):
        if not u.startswith("file://"):
            return None
        p = Path(u[len("file://"):])
        try:
            return p.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None

    def _absorb(self, t, msg):
        """Apply one notification; return a label when it counts as activity."""
        m = msg.get("method")
        p = msg.get("params") or {}
        if m == "textDocument/publishDiagnostics":
            rel = self.rel(p.get("uri", ""))
            if rel is None:
                return None
            changed = self.diags.get(rel) != p.get("diagnostics", [])
            self.diags[rel] = p.get("diagnostics", [])
            self.last_publish[rel] = (t, p.get("version"))
            return ("publish", rel, p.get("version"), changed)
        if m == "textDocument/clangd.fileStatus":
            rel = self.rel(p.get("uri", ""))
            self.status[rel] = p.get("state", "")
            return ("status", rel, p.get("state"), True)
        if m == "$/progress":
            tok = str(p.get("token"))
            v = p.get("value", {})
            if v.get("kind") == "begin":
                self.progress[tok] = (t, v.get("title", ""))
            elif v.get("kind") == "end":
                b = self.progress.pop(tok, (t, ""))
                self.progress_ended.append((tok, b[1], b[0], t))
            return ("progress", tok, v.get("kind"), True)
        return None

    def drain(self, until):
        """Absorb messages until `until` (monotonic); return [(t, label)]."""
        got = []
        while True:
            left = until - time.monotonic()
            try:
                t, msg = self.conn.events.get(timeout=max(0.0, left))
            except queue.Empty:
                return got
            lab = self._absorb(t, msg)
            if lab:
                got.append((t, lab))
            if time.monotonic() >= until:
                return got

    def open_all(self, files, settle=3.0, limit=120.0):
        """Open every file, then wait until the server is quiet for `settle` s
        with no progress open (the cold start is not measured)."""
        for f in files:
            self.versions[f] = 1
            self.conn.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri(self.root / f), "languageId": self.spec["lang_id"], "version": 1,
                "text": (self.root / f).read_text()}})
        start = time.monotonic()
        last = start
        mode = self.spec["mode"]
        while time.monotonic() - start < limit:
            got = self.drain(time.monotonic() + 0.5)
            if got:
                last = got[-1][0]
            answered = (mode == "pull" or all(f in self.last_publish for f in files)) and (
                mode != "flycheck" or any("flycheck" in tok for tok, *_ in self.progress_ended))
            if answered and not self.progress and time.monotonic() - last >= settle:
                break
        if self.pull_registered:
            self.pull_all()

    def pull_all(self):
        qs = {f: self.conn.request_async("textDocument/diagnostic", {"textDocument": {"uri": uri(self.root / f)}})
              for f in self.versions}
        for f, q in qs.items():
            try:
                _t, msg = q.get(timeout=DEADLINE)
            except queue.Empty:
                continue
            res = msg.get("result") or {}
            if res.get("kind") == "full":
                self.pulled[f] = res.get("items", [])

    def edit(self, rel, text):
        """Apply one edit; return (elapsed s, how the wait ended, calib dict)."""
        (self.root / rel).write_text(text)
        self.versions[rel] = self.versions.get(rel, 1) + 1
        v = self.versions[rel]
        t0 = time.monotonic()
        self.progress_ended.clear()
        self.conn.notify("textDocument/didChange", {"textDocument": {"uri": uri(self.root / rel), "version": v},
                                                    "contentChanges": [{"text": text}]})
        if self.spec.get("save"):
            self.conn.notify("textDocument/didSave", {"textDocument": {"uri": uri(self.root / rel)}})
        if self.spec["mode"] == "pull" and self.pull_registered:
            self.pull_all()
            return time.monotonic() - t0, "pulled", {}
        if self.pull_registered:  # rust-analyzer: native diagnostics by pull, cargo check by push
            self.pull_all()
        secs, how, calib = self._wait_push(rel, v, t0)
        if self.pull_registered:
            # rust-analyzer asks for a re-pull (workspace/diagnostic/refresh)
            # when its check ends, and 1.99 may answer a pull sent with the
            # change for the text before it: pull again once the wait is over.
            self.pull_all()
            secs = time.monotonic() - t0
        return secs, how, calib

    def _primary(self, rel, v, t0, lab, t):
        mode = self.spec["mode"]
        if mode == "versioned":
            return lab[0] == "publish" and lab[1] == rel and lab[2] == v
        if mode == "unversioned":
            return lab[0] == "publish" and (t - t0) * 1000 >= self.spec.get("stale_ms", 0)
        if mode == "flycheck":
            return any("flycheck" in tok or "cargo" in title.lower()
                       for tok, title, b, _e in self.progress_ended if b >= t0)
        return False

    def _wait_push(self, rel, v, t0):
        quiet = self.spec["quiet"] / 1000.0
        primary_at = None
        last_activity = t0
        activity = []
        while True:
            now = time.monotonic()
            if now - t0 > DEADLINE:
                return now - t0, "deadline", {"activity": activity, "primary": primary_at}
            unchanged = self.spec.get("unchanged_ms")
            if primary_at is None and unchanged and now - last_activity >= unchanged / 1000.0:
                return now - t0, "unchanged", {"activity": activity, "primary": None}
            if primary_at is not None and not self.progress and self._clangd_idle() and now - last_activity >= quiet:
                # the wait ends now: the quiet window is part of its cost
                answer = max(primary_at, last_activity) - t0
                return now - t0, "signal+quiet", {"activity": activity, "primary": primary_at - t0,
                                                  "answer": answer}
            wait_to = now + 0.05 if primary_at is None else last_activity + quiet
            for t, lab in self.drain(max(wait_to, now + 0.001)):
                if lab[0] != "publish" or lab[3]:
                    last_activity = max(last_activity, t)
                    activity.append((round(t - t0, 4), lab[0], lab[1]))
                if primary_at is None and self._primary(rel, v, t0, lab, t):
                    primary_at = t
            if primary_at is None and self.spec["mode"] == "flycheck" and self._primary(rel, v, t0, ("x",), 0):
                primary_at = time.monotonic()

    def _clangd_idle(self):
        return all(s == "idle" for s in self.status.values()) if self.lang == "c" else True

    def errors(self):
        """{(rel, line)} of error-severity diagnostics held now."""
        out = set()
        for f, ds in list(self.diags.items()) + list(self.pulled.items()):
            for d in ds:
                if d.get("severity", 1) == 1:
                    out.add((f, d["range"]["start"]["line"] + 1))
        return out

    def close(self):
        try:
            self.conn.request("shutdown", None, timeout=10)
            self.conn.notify("exit", None)
        except (TimeoutError, RuntimeError):
            pass
        self.conn.close()


def open_files(project, root):
    return mutate.source_files(root, project["lang"])
