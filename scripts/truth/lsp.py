"""JSON-RPC over stdio with LSP framing (Content-Length counts bytes), for
both `squiggle serve` and the careful client's language servers; its
framing (`read_message`, `encode`) and `client_capabilities` also serve
scripts/check-servers.py.

Why its own: the careful client must share no code with squiggle; this
reader thread timestamps every message as it arrives so waits can be
measured against arrival times.
"""

import json
import queue
import subprocess
import threading
import time


def read_message(stream):
    """The next message on `stream` (binary), or None at the end of input.
    Header names match case-insensitively; a header block without
    Content-Length is skipped. A body that is not JSON raises ValueError."""
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            k, _, v = line.decode("ascii", "replace").partition(":")
            if k.strip().lower() == "content-length":
                length = int(v.strip())
        if length is not None:
            return json.loads(stream.read(length))


def encode(msg):
    """`msg` as LSP frames it: the Content-Length header, then the JSON."""
    data = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def client_capabilities(*, dynamic, progress, related, pull, encodings=None):
    """What a plain diagnostics client advertises: `dynamic` registration
    (configuration, sync, pull), work-done `progress`, `related`
    information, `pull` diagnostics, and the position `encodings` if any."""
    caps = {
        "workspace": {"configuration": True, "workspaceFolders": True,
                      "didChangeConfiguration": {"dynamicRegistration": dynamic}},
        "window": {"workDoneProgress": progress},
        "textDocument": {
            "synchronization": {"didSave": True, "dynamicRegistration": dynamic},
            "publishDiagnostics": {"versionSupport": True, "relatedInformation": related},
        },
    }
    if pull:
        caps["textDocument"]["diagnostic"] = {"dynamicRegistration": dynamic, "relatedDocumentSupport": False}
    if encodings:
        caps["general"] = {"positionEncodings": encodings}
    return caps


class Conn:
    def __init__(self, cmd, cwd, env, on_request=None, stderr=None):
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=stderr or subprocess.DEVNULL)
        self.next_id = 0
        self.pending = {}
        self.lock = threading.Lock()
        self.events = queue.Queue()  # (arrival time, message) for notifications
        self.on_request = on_request
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            while (msg := read_message(self.proc.stdout)) is not None:
                self._dispatch(time.monotonic(), msg)
        except (ValueError, OSError):
            pass
        self.closed = True
        self.events.put((time.monotonic(), {"method": "$/closed"}))
        with self.lock:
            for q in self.pending.values():
                q.put((time.monotonic(), {"error": {"message": "connection closed"}}))

    def _dispatch(self, now, msg):
        if "method" in msg and "id" in msg:
            result = self.on_request(msg) if self.on_request else None
            self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            self.events.put((now, msg))
        elif "method" in msg:
            self.events.put((now, msg))
        else:
            with self.lock:
                q = self.pending.pop(msg.get("id"), None)
            if q:
                q.put((now, msg))

    def _send(self, msg):
        try:
            self.proc.stdin.write(encode(msg))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.closed = True

    def request_async(self, method, params):
        q = queue.Queue()
        with self.lock:
            self.next_id += 1
            rid = self.next_id
            self.pending[rid] = q
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return q

    def request(self, method, params, timeout=120):
        q = self.request_async(method, params)
        try:
            _t, msg = q.get(timeout=timeout)
        except queue.Empty as e:
            raise TimeoutError(f"{method}: no answer in {timeout} s") from e
        if "error" in msg:
            raise RuntimeError(f"{method}: {msg['error'].get('message')}")
        return msg.get("result")

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def close(self, timeout=10):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
