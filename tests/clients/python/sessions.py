"""Speculative sessions through `squiggle mcp`, driven by the official
`mcp` Python SDK against real pyright.

Usage: sessions.py SQUIGGLE_BINARY WORKSPACE

WORKSPACE is a copy of tests/fixtures/mcp. A session over py/shapes.py and
py/main.py: renaming `total_area` in shapes.py alone adds an error in
main.py (session_edit's new_errors), nothing on disk changes; a chain that
renames the import and then the call stops after the first step; the
second step applied, nothing new is left; session_commit writes both
files. Then a session is discarded and lsp_diagnostics shows the disk's
errors only.
"""

import asyncio
import os
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client

SQUIGGLE, ROOT = sys.argv[1], sys.argv[2]
SHAPES, MAIN = "py/shapes.py", "py/main.py"


def read(rel):
    with open(os.path.join(ROOT, rel), "rb") as f:
        return f.read()


async def call(session, name, args, error=False):
    result = await session.call_tool(name, args)
    text = "\n".join(getattr(c, "text", "") for c in result.content)
    assert result.is_error == error, (name, args, text)
    print(f"--- {name}\n{text}", flush=True)
    return result.structured_content, text


def new_in(answer, file):
    return [d for d in answer["newErrors"] if d["file"] == file and d["severity"] == "error"]


async def run(session):
    before = (read(SHAPES), read(MAIN))
    opened, _ = await call(session, "session_open", {"paths": [SHAPES, MAIN]})
    sid = opened["session"]
    assert opened["result"]["classification"] == "baseline_error", opened["result"]

    edited, text = await call(session, "session_edit", {
        "session": sid,
        "edits": [{"path": SHAPES, "old_string": "def total_area(", "new_string": "def sum_area("}],
    })
    new = new_in(edited, MAIN)
    assert len(new) == 1 and "total_area" in new[0]["message"], edited["newErrors"]
    assert edited["result"]["dryRun"] is True
    assert (read(SHAPES), read(MAIN)) == before, "the disk was touched"

    chain, text = await call(session, "session_chain", {
        "session": sid,
        "edits": [
            {"path": MAIN, "old_string": "import Square, total_area", "new_string": "import Square, sum_area"},
            {"path": MAIN, "old_string": "print(total_area(", "new_string": "print(sum_area("},
        ],
    })
    assert chain["stoppedAt"] == 1, chain
    fixed, _ = await call(session, "session_edit", {
        "session": sid,
        "edits": [{"path": MAIN, "old_string": "print(total_area(", "new_string": "print(sum_area("}],
    })
    assert fixed["newErrors"] == [], fixed["newErrors"]
    assert (read(SHAPES), read(MAIN)) == before, "the disk was touched"

    committed, text = await call(session, "session_commit", {"session": sid})
    assert "2 file(s) written" in committed["message"], committed
    assert b"def sum_area(" in read(SHAPES) and b"print(sum_area(" in read(MAIN)
    await call(session, "session_evaluate", {"session": sid}, error=True)

    other, _ = await call(session, "session_open", {"paths": [SHAPES]})
    await call(session, "session_edit", {
        "session": other["session"],
        "edits": [{"path": SHAPES, "old_string": "class Square(", "new_string": "class Cube("}],
        "evaluate": False,
    })
    await call(session, "session_discard", {"session": other["session"]})
    diags, text = await call(session, "lsp_diagnostics", {"path": MAIN})
    assert "Square" not in text, text
    assert "not an int" in text or "not assignable" in text, text


async def main():
    params = StdioServerParameters(
        command=SQUIGGLE, args=["mcp", "--root", ROOT], env=dict(os.environ), cwd=ROOT
    )
    async with stdio_client(params) as (read_stream, write_stream):
        async with ClientSession(read_stream, write_stream) as session:
            await session.initialize()
            await run(session)
    print("all checks passed")


asyncio.run(main())
