"""Drive `squiggle mcp` over stdio with the official `mcp` Python SDK.

Usage: client.py SQUIGGLE_BINARY WORKSPACE

WORKSPACE is a copy of tests/fixtures/mcp (py/ for pyright, ts/ for
typescript-language-server). Every check prints one line; the first failure
raises with the tool's whole answer.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client

SQUIGGLE, ROOT = sys.argv[1], sys.argv[2]

NAVIGATION = {
    "lsp_goto_definition", "lsp_find_references", "lsp_hover", "lsp_document_symbols",
    "lsp_workspace_symbols", "lsp_diagnostics", "lsp_goto_type_definition",
    "lsp_goto_implementation", "lsp_call_hierarchy", "lsp_signature_help",
    "lsp_code_actions", "lsp_rename", "lsp_file_context", "lsp_status", "lsp_impact",
    "lsp_acknowledge",
}
WRITE = {"edit_file", "write_file", "apply_patch", "lsp_apply_fix", "delete_file"}
# Speculative sessions: only session_commit writes.
SESSION = {
    "session_open", "session_edit", "session_evaluate", "session_chain",
    "session_commit", "session_discard",
}


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


class Checker:
    def __init__(self, session):
        self.session = session

    async def call(self, name, args, error=False):
        result = await self.session.call_tool(name, args)
        text = text_of(result)
        shown = json.dumps(result.structured_content, indent=1) if result.structured_content else ""
        if result.is_error != error:
            raise AssertionError(f"{name}({args}) is_error={result.is_error}:\n{text}\n{shown}")
        print(f"--- {name} {json.dumps(args)}\n{text}", flush=True)
        return result, text

    @staticmethod
    def expect(cond, what, result_text):
        if not cond:
            raise AssertionError(f"expected {what}; got:\n{result_text}")


def locs(result):
    return [f"{l['path']}:{l['line']}:{l['column']}" for l in result.structured_content["locations"]]


async def run(session):
    c = Checker(session)
    listed = await session.list_tools()
    tools = {t.name: t for t in listed.tools}
    assert set(tools) == NAVIGATION | WRITE | SESSION, sorted(tools)
    for name, tool in tools.items():
        assert tool.input_schema.get("type") == "object", name
        assert tool.output_schema and tool.output_schema.get("type") == "object", name
        assert tool.description, name
        read_only = tool.annotations.read_only_hint
        assert read_only == (name not in WRITE | {"session_commit", "lsp_acknowledge"}), (name, read_only)
    print(f"tools/list: {len(tools)} tools with input and output schemas")

    # --- pyright
    r, t = await c.call("lsp_goto_definition", {"path": "py/main.py", "line": 6, "symbol": "total_area"})
    c.expect(locs(r) == ["py/shapes.py:19:5"], "the definition in shapes.py", t)
    c.expect("py/shapes.py:19:5  def total_area(shapes: list[Shape]) -> float:" in t, "the rendered line", t)

    r, t = await c.call("lsp_find_references", {"path": "py/shapes.py", "symbol": "total_area"})
    c.expect(locs(r) == ["py/main.py:1:28", "py/main.py:6:11", "py/shapes.py:19:5"], "three references", t)
    r, t = await c.call("lsp_impact", {"path": "py/shapes.py", "symbol": "total_area"})
    impact = r.structured_content["symbols"][0]
    c.expect((impact["uses"], impact["test_uses"]) == (2, 0), "two uses of total_area, none in tests", t)
    c.expect(impact["files"] == [{"path": "py/main.py", "test": False, "lines": [1, 6]}], "both in main.py", t)
    c.expect(r.structured_content["importers"][0]["path"] == "py/main.py", "main.py imports shapes.py", t)
    r, t = await c.call("lsp_find_references", {"path": "py/shapes.py", "symbol": "total_area", "include_declaration": False})
    c.expect(locs(r) == ["py/main.py:1:28", "py/main.py:6:11"], "references without the declaration", t)

    r, t = await c.call("lsp_hover", {"path": os.path.join(ROOT, "py/shapes.py"), "line": 19, "column": 6})
    c.expect("def total_area(shapes: list[Shape]) -> float" in t and "Sum of the areas" in t, "the signature and docstring", t)

    r, t = await c.call("lsp_document_symbols", {"path": "py/shapes.py"})
    names = [s["name"] for s in r.structured_content["symbols"]]
    c.expect(names == ["Shape", "area", "Square", "__init__", "side", "area", "side", "total_area", "shapes"], "the outline", t)
    c.expect("class Shape  lines 4-8" in t and "\n  method area  lines 7-8" in t, "kinds, indentation and spans", t)

    r, t = await c.call("lsp_workspace_symbols", {"query": "Square", "path": "py/main.py"})
    found = [(s["name"], f"{s['location']['path']}:{s['location']['line']}:{s['location']['column']}") for s in r.structured_content["symbols"]]
    c.expect(("Square", "py/shapes.py:11:7") in found, "Square in shapes.py", t)

    r, t = await c.call("lsp_diagnostics", {"path": "py/main.py"})
    c.expect('<diagnostics file="py/main.py">' in t and "ERROR [7:19]" in t and 'is not assignable to declared type "int"' in t, "the type error", t)
    d = r.structured_content["files"][0]
    c.expect(d["path"] == "py/main.py" and d["diagnostics"][0]["line"] == 7, "structured diagnostics", t)

    r, t = await c.call("lsp_hover", {"path": "py/shapes.py", "symbol": "area"}, error=True)
    c.expect("ambiguous" in t and "7:9" in t and "15:9" in t, "the candidates with lines", t)

    r, t = await c.call("lsp_file_context", {"path": "py/main.py"})
    ext = {e["name"]: e for e in r.structured_content["external"]}
    c.expect("total_area" in ext and ext["total_area"]["definition"]["path"] == "py/shapes.py", "total_area from shapes.py", t)
    c.expect("function main  lines 4-7" in t and "ERROR [7:19]" in t, "outline and diagnostics", t)

    # --- typescript-language-server
    r, t = await c.call("lsp_goto_definition", {"path": "ts/src/app.ts", "line": 3, "symbol": "makeGreeter"})
    c.expect(locs(r) == ["ts/src/greeter.ts:11:17"], "makeGreeter in greeter.ts", t)

    r, t = await c.call("lsp_goto_type_definition", {"path": "ts/src/app.ts", "line": 3, "symbol": "greeter"})
    c.expect(locs(r) == ["ts/src/greeter.ts:1:18"], "the Greeter interface", t)

    r, t = await c.call("lsp_goto_implementation", {"path": "ts/src/greeter.ts", "line": 2, "symbol": "greet"})
    c.expect("ts/src/greeter.ts:6:3" in locs(r), "Polite.greet", t)

    r, t = await c.call("lsp_hover", {"path": "ts/src/app.ts", "line": 4, "symbol": "greet"})
    c.expect("(method) Greeter.greet(name: string): string" in t, "the method signature", t)

    r, t = await c.call("lsp_signature_help", {"path": "ts/src/app.ts", "line": 4, "column": 39})
    sig = r.structured_content["signatures"][0]
    c.expect(sig["label"] == "greet(name: string): string" and sig["parameters"] == ["name: string"], "greet's signature", t)

    r, t = await c.call("lsp_call_hierarchy", {"path": "ts/src/greeter.ts", "symbol": "makeGreeter", "direction": "incoming"})
    c.expect([s["location"]["path"] for s in r.structured_content["calls"]] == ["ts/src/app.ts"], "the caller in app.ts", t)
    r, t = await c.call("lsp_call_hierarchy", {"path": "ts/src/greeter.ts", "symbol": "makeGreeter", "direction": "outgoing"})
    c.expect(any(s["name"] == "Polite" for s in r.structured_content["calls"]), "the Polite constructor", t)

    r, t = await c.call("lsp_code_actions", {"path": "ts/src/app.ts", "line": 1})
    c.expect("not applied" in t or "No code actions" in t, "a listing", t)

    before = open(os.path.join(ROOT, "ts/src/app.ts")).read()
    r, t = await c.call("lsp_rename", {"path": "ts/src/greeter.ts", "symbol": "makeGreeter", "new_name": "createGreeter"})
    c.expect([f["path"] for f in r.structured_content["files"]] == ["ts/src/app.ts", "ts/src/greeter.ts"], "both files", t)
    c.expect("-export function makeGreeter(): Greeter {" in t and "+export function createGreeter(): Greeter {" in t, "the diff", t)
    c.expect(open(os.path.join(ROOT, "ts/src/app.ts")).read() == before, "nothing written", t)

    r, t = await c.call("lsp_diagnostics", {"path": "ts/src/app.ts"})
    c.expect("ERROR [5:7] Type 'string' is not assignable to type 'number'." in t, "the TS error", t)

    r, t = await c.call("lsp_diagnostics", {})
    paths = [f["path"] for f in r.structured_content["files"]]
    c.expect("py/main.py" in paths and "ts/src/app.ts" in paths, "every known file", t)

    before = open(os.path.join(ROOT, "ts/src/app.ts")).read()
    r, t = await c.call("lsp_apply_fix", {"path": "ts/src/app.ts", "line": 1}, error=True)
    c.expect("nothing was written" in t, "a refused fix", t)
    c.expect(open(os.path.join(ROOT, "ts/src/app.ts")).read() == before, "nothing written", t)

    # --- honesty
    r, t = await c.call("lsp_hover", {"path": "notes.xyz", "line": 1, "column": 1}, error=True)
    c.expect("No LSP server configured for .xyz files" in t, "the unsupported file type", t)
    r, t = await c.call("lsp_hover", {"path": "/etc/hostname", "line": 1, "column": 1}, error=True)
    c.expect("outside the workspace" in t, "the refusal", t)

    # --- the write path and navigation share one pyright
    r, t = await c.call("edit_file", {"path": "py/main.py", "old_string": 'broken: int = "not an int"', "new_string": "broken: int = 3"})
    c.expect(t == "Edit applied successfully.", "a clean edit", t)
    c.expect(r.structured_content["message"] == "Edit applied successfully.", "the ToolResult", t)
    r, t = await c.call("lsp_hover", {"path": "py/main.py", "line": 7, "symbol": "broken"})
    c.expect("(variable) broken: " in t, "hover after the edit", t)
    r, t = await c.call("lsp_status", {})
    servers = {s["id"]: s for s in r.structured_content["servers"]}
    c.expect(servers["pyright"]["starts"] == 1 and servers["pyright"]["status"] == "active", "one pyright start", t)
    c.expect(servers["typescript-language-server"]["starts"] == 1, "one typescript start", t)
    print("all checks passed")


async def main():
    params = StdioServerParameters(command=SQUIGGLE, args=["mcp", "--root", ROOT], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await run(session)


asyncio.run(main())
