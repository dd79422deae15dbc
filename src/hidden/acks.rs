//! Acknowledgements: one diagnostic an agent (or a person) declared a false
//! positive, with a reason. One holds while the line it was on reads the
//! same: it is keyed by the file, the diagnostic's server and code (its
//! message when it has no code) and the text of its line, so it follows
//! the line when lines above it move, and lapses when the line is edited.
//!
//! They are kept per workspace in `.squiggle/acknowledgements.json` at the
//! workspace root (beside `.squiggle.toml`: a team may commit it, or list
//! it in `.gitignore`), read at every check (no cache to fall out of step
//! with `squiggle ack` run from another process), written whole and
//! atomically.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;

/// The store's place, relative to the workspace root.
pub const STORE: &str = ".squiggle/acknowledgements.json";

/// The store format's version: a file of another version is refused.
const VERSION: u32 = 1;

/// At most this many characters of a reason are kept.
pub const MAX_REASON_CHARS: usize = 500;

/// One acknowledged diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Ack {
    /// Workspace-relative, `/`-separated.
    pub file: String,
    /// The 1-based line it was on when acknowledged.
    pub line: u32,
    /// That line's text (without its line ending): while the diagnostic's
    /// line reads so, the acknowledgement holds.
    pub line_text: String,
    /// The diagnostic's code; absent when it had none (then its message
    /// keys it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub message: String,
    /// The server that reported it.
    pub server: String,
    /// Why it is a false positive.
    pub reason: String,
    /// When, RFC 3339 UTC.
    pub time: String,
}

impl Ack {
    /// An acknowledgement of `d`, on a line that reads `line_text`.
    pub fn of(d: &Diagnostic, line_text: &str, reason: &str) -> Ack {
        Ack {
            file: d.file.clone(),
            line: d.line,
            line_text: line_text.trim_end().to_string(),
            code: d.code.clone(),
            message: d.message.clone(),
            server: d.server.clone(),
            reason: reason.trim().chars().take(MAX_REASON_CHARS).collect(),
            time: crate::evidence::clock::now(),
        }
    }

    /// Whether it holds for `d`, whose line now reads `line`.
    pub fn holds_for(&self, d: &Diagnostic, line: &str) -> bool {
        self.file == d.file
            && self.server == d.server
            && match &self.code {
                Some(code) => d.code.as_ref() == Some(code),
                None => d.code.is_none() && self.message == d.message,
            }
            && self.line_text == line.trim_end()
    }

    /// Whether it is about the same diagnostic as `other` (one replaces
    /// the other).
    fn same_as(&self, other: &Ack) -> bool {
        self.file == other.file
            && self.server == other.server
            && self.line_text == other.line_text
            && match &self.code {
                Some(_) => self.code == other.code,
                None => other.code.is_none() && self.message == other.message,
            }
    }
}

/// The text of 1-based `line` of `text`, without its line ending.
pub fn line_text(text: &str, line: u32) -> Option<&str> {
    let index = usize::try_from(line.checked_sub(1)?).ok()?;
    text.split('\n').nth(index).map(without_cr)
}

/// Every line of `text`, without its line ending.
pub fn lines(text: &str) -> Vec<&str> {
    text.split('\n').map(without_cr).collect()
}

fn without_cr(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

#[derive(Serialize, Deserialize)]
struct StoreFile {
    version: u32,
    acknowledgements: Vec<Ack>,
}

/// A workspace's acknowledgements on disk.
#[derive(Debug, Clone)]
pub struct AckStore {
    path: PathBuf,
}

impl AckStore {
    pub fn for_workspace(root: &Path) -> AckStore {
        AckStore {
            path: root.join(STORE),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every acknowledgement; none when the file does not exist.
    pub fn load(&self) -> Result<Vec<Ack>, String> {
        let bytes = match crate::edit::read_regular(&self.path, crate::edit::MAX_READ_BYTES) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("cannot read {}: {e}", self.path.display())),
        };
        let store: StoreFile = serde_json::from_slice(&bytes).map_err(|e| {
            format!(
                "{}: not an acknowledgements file ({e}); fix or remove it",
                self.path.display()
            )
        })?;
        if store.version != VERSION {
            return Err(format!(
                "{}: version {} is not one this squiggle reads ({VERSION})",
                self.path.display(),
                store.version
            ));
        }
        Ok(store.acknowledgements)
    }

    /// Adds `ack`, replacing one about the same diagnostic.
    pub fn add(&self, ack: Ack) -> Result<(), String> {
        let mut all = self.load()?;
        all.retain(|a| !a.same_as(&ack));
        all.push(ack);
        self.save(all)
    }

    /// Removes the acknowledgements `removed` selects; returns them.
    pub fn remove(&self, mut removed: impl FnMut(&Ack) -> bool) -> Result<Vec<Ack>, String> {
        let all = self.load()?;
        let (gone, kept): (Vec<Ack>, Vec<Ack>) = all.into_iter().partition(|a| removed(a));
        if !gone.is_empty() {
            self.save(kept)?;
        }
        Ok(gone)
    }

    fn save(&self, mut acknowledgements: Vec<Ack>) -> Result<(), String> {
        acknowledgements.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        let store = StoreFile {
            version: VERSION,
            acknowledgements,
        };
        let mut text = serde_json::to_string_pretty(&store)
            .map_err(|e| format!("cannot write the acknowledgements: {e}"))?;
        text.push('\n');
        crate::edit::write_atomic(&self.path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    fn diag(line: u32, code: Option<&str>) -> Diagnostic {
        Diagnostic {
            file: "a.py".into(),
            line,
            column: 1,
            end_line: line,
            end_column: 2,
            severity: Severity::Error,
            message: "m".into(),
            code: code.map(Into::into),
            source: None,
            server: "pyright".into(),
        }
    }

    #[test]
    fn holds_while_the_line_reads_the_same_wherever_it_moved() {
        let ack = Ack::of(&diag(2, Some("X")), "x = 1\r", "generated");
        assert_eq!(ack.line_text, "x = 1");
        assert!(ack.holds_for(&diag(5, Some("X")), "x = 1"));
        assert!(!ack.holds_for(&diag(2, Some("X")), "x = 2"));
        assert!(!ack.holds_for(&diag(2, Some("Y")), "x = 1"));
        assert!(!ack.holds_for(&diag(2, None), "x = 1"));
        assert_eq!(line_text("a\r\nb\nc", 2), Some("b"));
        assert_eq!(line_text("a\r\nb", 1), Some("a"));
        assert_eq!(line_text("a", 3), None);
        assert_eq!(line_text("a", 0), None);
    }

    #[test]
    fn the_store_round_trips_and_replaces_the_same_diagnostic() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = AckStore::for_workspace(dir.path());
        assert_eq!(store.load(), Ok(Vec::new()));
        store
            .add(Ack::of(&diag(2, Some("X")), "x = 1", "first"))
            .unwrap_or_else(|e| panic!("{e}"));
        store
            .add(Ack::of(&diag(2, Some("X")), "x = 1", "second"))
            .unwrap_or_else(|e| panic!("{e}"));
        let all = store.load().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].reason, "second");
        let gone = store
            .remove(|a| a.line == 2)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(gone.len(), 1);
        assert_eq!(store.load(), Ok(Vec::new()));
    }
}
