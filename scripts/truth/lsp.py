"""JSON-RPC over stdio with LSP framing (Content-Length counts bytes), for
both `squiggle serve` and the careful client's language servers.

Why its own: the careful client must share no code with squiggle; this
reader thread timestamps every message as it arrives so waits can be
measured against arrival times.
"""

import json
import queue
import subprocess
import threading
import time


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
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        raise EOFError
                    line = line.strip()
                    if not line:
                        break
                    k, _, v = line.decode("ascii", "replace").partition(":")
                    if k.lower() == "content-length":
                        length = int(v.strip())
                body = out.read(length)
                now = time.monotonic()
                msg = json.loads(body)
                self._dispatch(now, msg)
        except (EOFError, ValueError, OSError):
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
        data = json.dumps(msg).encode()
        try:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
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
