"""One fault of the fault matrix through `squiggle mcp`, driven by the
official `mcp` Python SDK.

Usage: faults.py SQUIGGLE_BINARY WORKSPACE NAME STATE STARTS

WORKSPACE holds `a.fk` ("v0 @error(e)\n") and a `.squiggle.toml` whose
custom server `fake` is the scripted fake server with one fault. Three
`edit_file` calls (v0 -> v1 -> v2 -> v3): each answered without an MCP error
within CALL_BOUND seconds, the file on disk exactly as asked after each.
Then `lsp_status` must show the fake with STATE and STARTS. Last, the session
is closed and the time `squiggle mcp` took to go is printed as
`closed in S` (the SDK kills its process group after 2 s).
"""

import asyncio
import os
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

SQUIGGLE, ROOT, NAME, STATE, STARTS = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
CALL_BOUND = 3.0
FILE = os.path.join(ROOT, "a.fk")


def expect(cond, what, got):
    if not cond:
        raise AssertionError(f"{NAME}: expected {what}; got:\n{got}")


def text(result):
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def run(session):
    for i in range(3):
        started = time.monotonic()
        with anyio.fail_after(CALL_BOUND + 5):
            result = await session.call_tool(
                "edit_file", {"path": "a.fk", "old_string": f"v{i}", "new_string": f"v{i + 1}"}
            )
        elapsed = time.monotonic() - started
        print(f"edit {i}: {elapsed:.3f} s: {text(result)!r}")
        expect(not result.is_error, f"edit {i} to succeed", text(result))
        expect(elapsed < CALL_BOUND, f"edit {i} within {CALL_BOUND} s", f"{elapsed:.3f} s")
        with open(FILE, "rb") as f:
            on_disk = f.read()
        expect(on_disk == f"v{i + 1} @error(e)\n".encode(), f"edit {i} on disk byte for byte", on_disk)
        if STATE == "broken":
            await seen_dead(session)
    with anyio.fail_after(CALL_BOUND):
        result = await session.call_tool("lsp_status", {})
    expect(not result.is_error, "lsp_status to succeed", text(result))
    servers = {s["id"]: s for s in result.structured_content["servers"]}
    fake = servers.get("fake")
    expect(fake is not None, "the fake in lsp_status", result.structured_content)
    expect((fake["status"], fake["starts"]) == (STATE, STARTS), f"{STATE} with {STARTS} starts", fake)
    print(f"lsp_status: {fake['status']}, {fake['starts']} starts")


async def seen_dead(session):
    """A server that dies (or is stopped as unresponsive) must be seen dead
    before the next edit, or the next edit would not be the restart: waits
    until the fake's row has no live process (polled: the server's death is
    another process's event)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        result = await session.call_tool("lsp_status", {})
        fake = {s["id"]: s for s in result.structured_content["servers"]}.get("fake", {})
        if "serverPid" not in fake:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{NAME}: the server still looks alive: {fake}")


async def main():
    params = StdioServerParameters(
        command=SQUIGGLE, args=["mcp", "--root", ROOT, "--trust-workspace"], env=dict(os.environ), cwd=ROOT
    )
    closing = None
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await run(session)
        closing = time.monotonic()
    print(f"closed in {time.monotonic() - closing:.3f} s")
    print("all checks passed")


asyncio.run(main())
