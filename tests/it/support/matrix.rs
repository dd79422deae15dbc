//! Shared by the `matrix` family (and the dependents-cache and disk-change
//! tests that use its fixtures): each runs real servers on a fixture project
//! from `tests/fixtures/<language>/`, copied to a temp dir first so the repo
//! copy is never touched, and asserts on the text an agent would see.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use squiggle::config::{Config, ServerOverride};
use squiggle::engine::Engine;
use squiggle::engine::tools::ToolResult;
use squiggle::engine::tools::{Mode, Replace};

pub mod rust;

pub const EDITED: &str = "Edit applied successfully.";
pub const WRITTEN: &str = "File written successfully.";

/// A copy of `tests/fixtures/<name>` in a fresh temp dir.
pub fn fixture(name: &str) -> tempfile::TempDir {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    crate::support::copy_dir(&source, dir.path());
    dir
}

/// Links the `node_modules` holding `program` (found on PATH in a
/// `node_modules/.bin`) into `root`, the way a project with local
/// dependencies has it, so that ESLint can load its library.
pub fn link_node_modules(root: &Path, program: &Path) {
    if let Some(modules) = program.parent().and_then(Path::parent)
        && modules.ends_with("node_modules")
    {
        crate::support::symlink(modules, root.join("node_modules"))
            .unwrap_or_else(|e| panic!("link node_modules: {e}"));
    }
}

/// An engine on `root` with servers switched on or off by id.
pub fn engine(root: &Path, switches: &[(&str, bool)]) -> Arc<Engine> {
    let mut config = Config {
        first_touch_timeout: Duration::from_secs(60),
        diagnostic_timeout: Duration::from_secs(30),
        ..Config::default()
    };
    // Tests reach only loopback: yaml-language-server would fetch the
    // schemastore.org catalog at start (its default, and squiggle's).
    config.servers.insert(
        "yaml-language-server".to_string(),
        ServerOverride {
            settings: Some(serde_json::json!({ "yaml": { "schemaStore": { "enable": false } } })),
            ..ServerOverride::default()
        },
    );
    for (id, enabled) in switches {
        config.servers.entry(id.to_string()).or_default().enabled = Some(*enabled);
    }
    crate::support::engine(root, config)
}

pub async fn edit(engine: &Arc<Engine>, file: &Path, old: &str, new: &str) -> ToolResult {
    engine
        .edit(file, old, new, Replace::Once, Mode::Apply)
        .await
        .unwrap_or_else(|e| panic!("edit {}: {e}", file.display()))
}

pub async fn write(engine: &Arc<Engine>, file: &Path, content: &str) -> ToolResult {
    engine
        .write(file, content, Mode::Apply)
        .await
        .unwrap_or_else(|e| panic!("write {}: {e}", file.display()))
}

/// The clean check: an edit that changes nothing a server cares about (a
/// trailing blank line) must come back as the plain success message.
pub async fn assert_clean(engine: &Arc<Engine>, file: &Path) {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{e}"));
    let trimmed = text.trim_end();
    let result = edit(engine, file, trimmed, &format!("{trimmed}\n")).await;
    assert_eq!(
        result.text(),
        EDITED,
        "{} should be clean; outcomes: {:#?}",
        file.display(),
        result.outcomes
    );
    // Put the file back as it was.
    let restored = edit(engine, file, &format!("{trimmed}\n"), trimmed).await;
    assert_eq!(restored.text(), EDITED);
}

/// What one diagnostic line in a block must say.
pub struct Expect<'a> {
    /// Workspace-relative path in `<diagnostics file="...">`.
    pub file: &'a str,
    pub line: u32,
    pub column: u32,
    /// `(code)` at the end of the line's first row, when the server gives one.
    pub code: Option<&'a str>,
    /// Words the message must contain.
    pub words: &'a [&'a str],
}

/// The rows of the `<diagnostics file="...">` block for `file` in `section`
/// (the part of `text` after `section`'s heading, up to the next heading).
pub fn block<'t>(text: &'t str, section: &str, file: &str) -> Option<Vec<&'t str>> {
    let start = text.find(section)? + section.len();
    let rest = &text[start..];
    let rest = match rest.find("\n\nLSP ") {
        Some(end) => &rest[..end],
        None => rest,
    };
    let open = format!("<diagnostics file=\"{file}\">\n");
    let body = &rest[rest.find(&open)? + open.len()..];
    let body = &body[..body.find("</diagnostics>")?];
    Some(body.lines().collect())
}

pub const THIS_FILE: &str = "LSP errors detected in this file, please fix:";
pub const OTHER_FILES: &str = "LSP errors detected in other files:";

/// Asserts that `text` has, in `section`, a row for `expect`.
pub fn assert_row(text: &str, section: &str, expect: &Expect) {
    let Some(rows) = block(text, section, expect.file) else {
        panic!("no block for {} under {section:?} in:\n{text}", expect.file);
    };
    let prefix = format!("ERROR [{}:{}] ", expect.line, expect.column);
    let found = rows.iter().any(|row| {
        row.starts_with(&prefix)
            && expect.words.iter().all(|w| row.contains(w))
            && expect
                .code
                .is_none_or(|c| row.ends_with(&format!(" ({c})")))
    });
    assert!(
        found,
        "expected a row {prefix}… with {:?} and code {:?} for {}; got:\n{text}",
        expect.words, expect.code, expect.file
    );
}

/// Asserts the edit's own block has `expect`.
pub fn assert_error(result: &ToolResult, expect: &Expect) {
    let text = result.text();
    assert!(
        text.starts_with(&result.message),
        "message first; got:\n{text}"
    );
    if block(&text, THIS_FILE, expect.file).is_none() {
        panic!(
            "no block for {} under {THIS_FILE:?} in:\n{text}\ndiagnostics: {:#?}\noutcomes: {:#?}",
            expect.file, result.diagnostics, result.outcomes
        );
    }
    assert_row(&text, THIS_FILE, expect);
}

/// Asserts the result is the plain success message and `stale` is gone
/// from every diagnostic.
pub fn assert_fixed(result: &ToolResult, message: &str, stale: &str) {
    assert_eq!(result.text(), message, "outcomes: {:#?}", result.outcomes);
    assert!(
        result
            .diagnostics
            .iter()
            .all(|d| !d.message.contains(stale)),
        "stale {stale:?} still in {:#?}",
        result.diagnostics
    );
}

/// Which servers answered for the edited file (from the outcomes).
pub fn servers_of(result: &ToolResult) -> Vec<String> {
    let mut ids: Vec<String> = result
        .outcomes
        .values()
        .flatten()
        .map(|o| o.server.clone())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

pub fn path(dir: &tempfile::TempDir, rel: &str) -> PathBuf {
    dir.path().join(rel)
}

/// Asserts every server in `ids` reported at least one diagnostic in
/// `result`, and that no wait ran into its deadline.
pub fn assert_merged(result: &ToolResult, ids: &[&str]) {
    for id in ids {
        assert!(
            result.diagnostics.iter().any(|d| d.server == *id),
            "nothing from {id}: {:#?}",
            result.diagnostics
        );
    }
    let late: Vec<_> = result
        .outcomes
        .values()
        .flatten()
        .filter(|o| o.outcome == squiggle::diagnostic::Outcome::TimedOut)
        .collect();
    assert!(late.is_empty(), "timed out: {late:#?}");
}
