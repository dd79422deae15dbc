"""The workflow prompts of `squiggle mcp`, through the official `mcp`
Python SDK.

Usage: prompts.py SQUIGGLE_BINARY WORKSPACE

Lists the prompts and the tools; gets every prompt with its required
arguments filled in and checks that each tool its text names (a backquoted
word shaped like a tool name) is one the session lists; a missing required
argument and an unknown prompt are errors naming the problem. Then a
session without write tools lists only the prompts its tools allow.
"""

import asyncio
import os
import re
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

SQUIGGLE, ROOT = sys.argv[1], sys.argv[2]
EXPECTED = {"safe-multi-file-change", "rename-with-impact", "verify-before-finishing"}
TOOL_SHAPE = re.compile(r"^[a-z]+(_[a-z]+)+$")


def named_tools(text):
    return {w for w in text.split("`")[1::2] if TOOL_SHAPE.match(w)}


async def session_with(args, check):
    params = StdioServerParameters(
        command=SQUIGGLE, args=["mcp", "--root", ROOT, *args], env=dict(os.environ), cwd=ROOT
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.capabilities.prompts is not None, init.capabilities
            await check(session)


async def full(session):
    tools = {t.name for t in (await session.list_tools()).tools}
    prompts = {p.name: p for p in (await session.list_prompts()).prompts}
    assert set(prompts) == EXPECTED, sorted(prompts)
    for name, prompt in prompts.items():
        assert prompt.description and prompt.title, prompt
        args = {a.name: f"<{a.name}>" for a in prompt.arguments or [] if a.required}
        got = await session.get_prompt(name, args)
        text = "\n".join(m.content.text for m in got.messages)
        named = named_tools(text)
        assert len(named) >= 2, (name, text)
        missing = named - tools
        assert not missing, f"{name} names tools the session does not list: {missing}"
        for value in args.values():
            assert value in text, (name, value, text)
        print(f"{name}: {len(text)} chars, tools {sorted(named)}")
    try:
        await session.get_prompt("rename-with-impact", {"path": "a.py"})
        raise AssertionError("a missing required argument was accepted")
    except MCPError as e:
        assert "needs the argument symbol" in str(e), e
    try:
        await session.get_prompt("no-such-prompt", {})
        raise AssertionError("an unknown prompt was accepted")
    except MCPError as e:
        assert "unknown prompt no-such-prompt" in str(e), e


async def read_only(session):
    tools = {t.name for t in (await session.list_tools()).tools}
    prompts = (await session.list_prompts()).prompts
    assert [p.name for p in prompts] == ["verify-before-finishing"], prompts
    for p in prompts:
        got = await session.get_prompt(p.name, {})
        text = "\n".join(m.content.text for m in got.messages)
        assert named_tools(text) <= tools, (named_tools(text), tools)
    print("without write tools: verify-before-finishing only")


async def main():
    await session_with([], full)
    await session_with(["--write-tools", "false"], read_only)
    print("all checks passed")


asyncio.run(main())
