//! Speculative sessions: edits shown to the servers and
//! evaluated against the session's baseline without touching the disk;
//! commit all or none; discard; the limits; and the rule that keeps a
//! session's text out of every other query. Real pyright and
//! typescript-language-server on `tests/fixtures/mcp`, the fake for the
//! rules that need timing or faults.

mod edges;
mod owners;
mod owners_http;
mod python;
mod rules;
mod service;
mod typescript;
mod whole;

use std::path::Path;
use std::time::SystemTime;

use squiggle::diagnostic::Diagnostic;
use squiggle::sessions::{Edit, Owner};

/// The one client the in-process tests speak for: every test's engine is
/// its own, so they may share it.
pub fn me() -> Owner {
    static ME: std::sync::OnceLock<Owner> = std::sync::OnceLock::new();
    *ME.get_or_init(Owner::new)
}

/// A file's bytes and modification time: what "nothing touched the disk"
/// compares.
pub fn stamp(path: &Path) -> (Vec<u8>, SystemTime) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| panic!("stat {}: {e}", path.display()));
    (bytes, modified)
}

pub fn replace(path: &str, old: &str, new: &str) -> Edit {
    Edit::Replace {
        path: path.into(),
        old: old.into(),
        new: new.into(),
        all: false,
    }
}

/// The errors of `server` in `file` whose message holds `words`.
pub fn errors<'a>(
    all: &'a [Diagnostic],
    server: &str,
    file: &str,
    words: &str,
) -> Vec<&'a Diagnostic> {
    all.iter()
        .filter(|d| d.server == server && d.file == file && d.message.contains(words))
        .collect()
}

/// Sessions through MCP (`tests/clients/python/sessions.py`, the official
/// Python SDK) against real pyright: edit, chain, commit, discard.
#[test]
fn python_sdk_runs_a_session_through_mcp() {
    use crate::support::mcp;
    let tools = mcp::tools();
    let Some(python) = mcp::require(tools.join("venv/bin/python"), "the Python mcp SDK") else {
        return;
    };
    let bin = tools.join("npm/node_modules/.bin");
    if mcp::require(bin.join("pyright-langserver"), "pyright").is_none() {
        return;
    }
    let fixture = mcp::Fixture::new();
    let mut command = mcp::sdk_script(&python, "sessions.py", &fixture.root, &fixture.config_home);
    command.env("PATH", mcp::path_with_tools());
    mcp::passes(command, "sessions.py");
}
