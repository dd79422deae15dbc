//! `squiggle init aider`: Aider runs a language's `lint-cmd` on each file
//! it edited (`<cmd> <file>`, with `--auto-lint`, on by default) and, when
//! the command fails, sends its output to the model with an offer to fix
//! it. `squiggle check FILE` is such a command: the `<diagnostics>` blocks
//! on stdout, exit 1 on an error. One entry per language squiggle checks,
//! so a language it does not keeps Aider's own linter.
//!
//! `.aider.conf.yml` is YAML that `init` does not parse: the entries are
//! appended when the file sets no `lint-cmd`; a file whose `lint-cmd`
//! already runs `squiggle check` is left alone; any other `lint-cmd` is
//! the user's to merge by hand (the message prints the entries).

use std::path::PathBuf;

use super::Args;
use crate::edit::write_atomic;
use crate::platform::paths::join_slashed;
use crate::workspace::Workspace;

/// Aider's names (its tree-sitter language names) of the languages squiggle checks.
const LANGUAGES: &[&str] = &[
    "python",
    "typescript",
    "tsx",
    "javascript",
    "rust",
    "go",
    "c",
    "cpp",
    "bash",
    "php",
];

/// The command Aider runs, the file's name appended.
const COMMAND: &str = "squiggle check";

/// The `lint-cmd` block `init` adds.
pub fn block() -> String {
    let mut text = String::from(
        "# squiggle: Aider runs these on each file it edits (--auto-lint) and sends\n\
         # a failing command's output (squiggle's <diagnostics> block) to the model.\n\
         lint-cmd:\n",
    );
    for lang in LANGUAGES {
        text.push_str(&format!("  - \"{lang}: {COMMAND}\"\n"));
    }
    text
}

pub(super) fn init(args: &Args) -> Result<u8, String> {
    let path = conf_path(args)?;
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let sets_lint = existing
        .lines()
        .any(|line| line.starts_with("lint-cmd:") || line.starts_with("lint-cmd :"));
    let content = if !sets_lint {
        let sep = match existing.as_str() {
            "" => "",
            text if text.ends_with('\n') => "\n",
            _ => "\n\n",
        };
        Some(format!("{existing}{sep}{}", block()))
    } else if existing.contains(&format!(": {COMMAND}")) {
        None
    } else {
        return Err(format!(
            "{} already sets lint-cmd; add squiggle's entries to it by hand (it was not changed):\n{}",
            path.display(),
            block()
        ));
    };
    if args.print {
        crate::out!("{}", content.as_deref().unwrap_or(&existing));
        return Ok(0);
    }
    let Some(content) = content else {
        crate::outln!(
            "{} already runs `{COMMAND}`; nothing changed",
            path.display()
        );
        return Ok(0);
    };
    write_atomic(&path, content.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    crate::outln!(
        "added lint-cmd `{COMMAND}` for {} languages to {}; Aider sends a failing file's block to the model with --auto-lint (its default)",
        LANGUAGES.len(),
        path.display()
    );
    Ok(0)
}

/// `.aider.conf.yml` in the project root, or in your home (`--user`).
fn conf_path(args: &Args) -> Result<PathBuf, String> {
    if args.user {
        return crate::platform::paths::home_dir()
            .map(|h| join_slashed(&h, ".aider.conf.yml"))
            .ok_or_else(|| "your home directory is unknown (HOME is not set; USERPROFILE on Windows); pass --project or set it".to_string());
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    match Workspace::discover(args.root.as_deref(), &cwd) {
        Ok(ws) => Ok(join_slashed(ws.root(), ".aider.conf.yml")),
        Err(e) => Err(format!("cannot use the project directory: {e}")),
    }
}
