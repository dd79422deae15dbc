// squiggle for OpenCode (and Kilo CLI, its fork): after the edit, write and
// patch tools, the rendered diagnostics of the files they changed are
// appended to the tool's output, the text the model reads next.
// Written by `squiggle init opencode` / `squiggle init kilo`; it runs
// `squiggle hook --file PATH...`, which asks the project's warm daemon
// (started on first use) and prints nothing when there is nothing to report.
import { execFile } from "node:child_process"
import path from "node:path"

const PATCH_FILE = /^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/

// The files a tool call changed, as its arguments name them.
function editedFiles(tool, args) {
  if (!args || typeof args !== "object") return []
  if (tool === "edit" || tool === "write" || tool === "multiedit") {
    return typeof args.filePath === "string" ? [args.filePath] : []
  }
  if (tool === "apply_patch" || tool === "patch") {
    const text = typeof args.patchText === "string" ? args.patchText : ""
    return text
      .split("\n")
      .map((line) => PATCH_FILE.exec(line.trim()))
      .filter(Boolean)
      .map((m) => (m[1] ?? m[2]).trim())
  }
  return []
}

function squiggle(cwd, files) {
  return new Promise((resolve) => {
    execFile(
      process.env.SQUIGGLE_BIN || "squiggle",
      ["hook", "--file", ...files],
      { cwd, maxBuffer: 4 * 1024 * 1024, timeout: 120000 },
      (error, stdout) => resolve(error ? "" : String(stdout).trim()),
    )
  })
}

export const Squiggle = async ({ directory }) => ({
  "tool.execute.after": async (input, output) => {
    const files = editedFiles(input?.tool, input?.args)
    if (files.length === 0 || !output || typeof output.output !== "string") return
    const cwd = directory || process.cwd()
    const block = await squiggle(cwd, [...new Set(files.map((f) => path.resolve(cwd, f)))])
    if (block) output.output = output.output ? `${output.output}\n\n${block}` : block
  },
})
