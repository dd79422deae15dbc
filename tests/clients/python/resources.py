"""MCP resources of `squiggle mcp`, driven by the official `mcp` Python SDK.

Usage: resources.py SQUIGGLE_BINARY WORKSPACE

WORKSPACE holds `a.fk` (one `@error(first)` marker) and a `.squiggle.toml`
serving `.fk` files with the scripted fake server. Checks the listings, a
read, a subscription that announces the change an `edit_file` call makes
and then a change made on disk, and the new content on each next read.
"""

import asyncio
import os
import sys
import warnings

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client, types

SQUIGGLE, ROOT = sys.argv[1], sys.argv[2]
URI = "squiggle://diagnostics/a.fk"
warnings.simplefilter("ignore")  # resources/subscribe is legacy in the SDK


def text_of(result):
    assert len(result.contents) == 1, result
    content = result.contents[0]
    assert content.mime_type == "text/plain", content
    assert str(content.uri) == URI or str(content.uri).startswith("squiggle://"), content
    return content.text


def expect(cond, what, got):
    if not cond:
        raise AssertionError(f"expected {what}; got:\n{got}")


async def announced(session, updates, when):
    """Waits for URI's update notification, then reads it: its new text."""
    with anyio.fail_after(10):
        while URI not in updates:
            await anyio.sleep(0.05)
    print(f"notifications/resources/updated for {URI} {when}")
    text = text_of(await session.read_resource(URI))
    print(f"--- read {URI}\n{text}")
    return text


async def run(session, updates):
    listed = await session.list_resources()
    uris = [str(r.uri) for r in listed.resources]
    expect(uris == ["squiggle://diagnostics"], "the aggregate resource", listed)
    expect(listed.resources[0].mime_type == "text/plain", "text/plain", listed)
    templates = await session.list_resource_templates()
    expect([t.uri_template for t in templates.resource_templates] == ["squiggle://diagnostics/{path}"], "the file template", templates)
    print("resources/list and resources/templates/list")

    first = text_of(await session.read_resource(URI))
    print(f"--- read {URI}\n{first}")
    expect('<diagnostics file="a.fk">' in first and "first" in first and "ERROR" in first, "the error block", first)
    expect("second" not in first, "no second error yet", first)

    everything = text_of(await session.read_resource("squiggle://diagnostics"))
    print(f"--- read squiggle://diagnostics\n{everything}")
    expect('<diagnostics file="a.fk">' in everything, "a.fk among the known files", everything)

    try:
        await session.read_resource("squiggle://nothing")
        raise AssertionError("an unknown URI was read")
    except Exception as e:  # the SDK raises McpError
        expect("unknown resource" in str(e), "the unknown-resource error", e)

    await session.subscribe_resource(URI)
    print(f"subscribed to {URI}")
    result = await session.call_tool("edit_file", {"path": "a.fk", "old_string": "ok", "new_string": "@error(second)"})
    expect(not result.is_error, "the edit to apply", result)
    second = await announced(session, updates, "after edit_file")
    expect("first" in second and "second" in second, "both errors", second)

    # A change no tool made: the watch sees the disk change and the
    # subscription announces it, with no write tool call to poke it.
    updates.clear()
    with open(os.path.join(ROOT, "a.fk"), "w") as f:
        f.write("line one @error(first)\n@error(third)\n")
    third = await announced(session, updates, "after a change on disk")
    expect("third" in third and "second" not in third, "the disk's errors", third)

    await session.unsubscribe_resource(URI)
    print("all checks passed")


async def main():
    updates = []

    async def on_message(message):
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    params = StdioServerParameters(command=SQUIGGLE, args=["mcp", "--root", ROOT, "--trust-workspace"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            await run(session, updates)


asyncio.run(main())
