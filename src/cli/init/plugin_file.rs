//! `squiggle init opencode` / `init kilo`: OpenCode and Kilo CLI (its
//! fork) load every `.js`/`.ts` file in a `plugins/` directory of their
//! config directories; squiggle's plugin (`plugins/opencode/squiggle.js`
//! in the repository, kept equal to [`PLUGIN`] by a test) runs `squiggle
//! hook --file` on the files the edit, write and patch tools changed and
//! appends the block to the tool's output, which is the text the model
//! reads next. The file is squiggle's whole: written when missing,
//! replaced when an older release wrote another text, else left alone.

use std::path::PathBuf;

use super::Args;
use crate::edit::write_atomic;
use crate::platform::paths::join_slashed;
use crate::workspace::Workspace;

/// Where one host loads plugins from.
pub(super) struct PluginHost {
    name: &'static str,
    /// Relative to the project root.
    project_file: &'static str,
    /// Relative to the user's config directory (`$XDG_CONFIG_HOME`, else `~/.config`).
    user_file: &'static str,
}

pub(super) const OPENCODE: PluginHost = PluginHost {
    name: "OpenCode",
    project_file: ".opencode/plugins/squiggle.js",
    user_file: "opencode/plugins/squiggle.js",
};

pub(super) const KILO: PluginHost = PluginHost {
    name: "Kilo CLI",
    project_file: ".kilo/plugins/squiggle.js",
    user_file: "kilo/plugins/squiggle.js",
};

/// The plugin's text.
pub const PLUGIN: &str = r#"// squiggle for OpenCode (and Kilo CLI, its fork): after the edit, write and
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
"#;

pub(super) fn init(host: PluginHost, args: &Args) -> Result<u8, String> {
    if args.print {
        crate::out!("{PLUGIN}");
        return Ok(0);
    }
    let path = plugin_path(&host, args)?;
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    if existing.as_deref() == Some(PLUGIN) {
        crate::outln!(
            "{} is squiggle's current plugin; nothing changed",
            path.display()
        );
        return Ok(0);
    }
    write_atomic(&path, PLUGIN.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let done = if existing.is_some() {
        "updated"
    } else {
        "wrote"
    };
    crate::outln!(
        "{done} {}: {} appends squiggle's block to the output of its edit, write and patch tools (`squiggle hook --file`)",
        path.display(),
        host.name
    );
    Ok(0)
}

fn plugin_path(host: &PluginHost, args: &Args) -> Result<PathBuf, String> {
    if args.user {
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| crate::platform::paths::home_dir().map(|h| h.join(".config")));
        return config.map(|dir| join_slashed(&dir, host.user_file)).ok_or_else(|| {
            "your home directory is unknown (HOME is not set; USERPROFILE on Windows); pass --project or set it".to_string()
        });
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    match Workspace::discover(args.root.as_deref(), &cwd) {
        Ok(ws) => Ok(join_slashed(ws.root(), host.project_file)),
        Err(e) => Err(format!("cannot use the project directory: {e}")),
    }
}
