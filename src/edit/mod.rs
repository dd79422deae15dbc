//! Text mutations the wrapped tools perform: exact-string replacement, patch
//! parsing (git-style unified diffs and the Codex `*** Begin Patch` format),
//! all-or-nothing patch planning, atomic writes and the text/binary check.
//!
//! Everything here is pure or plain file-system work, with no LSP: the edit is
//! decided and written first, and only then are language servers told. Patch
//! application is split in two steps on purpose — [`plan_patch`] computes every
//! file's new content in memory and fails before anything is written if any
//! hunk does not apply, so a half-applied patch never reaches the disk.

mod atomic;
mod codex;
mod content;
pub mod git_diff_text;
mod hunk;
mod plan;
mod replace;
mod transaction;
mod unified;
mod vet;

use std::fmt;

pub use atomic::{is_write_temp, write_atomic};
pub use content::{ContentKind, DEFAULT_MAX_BYTES, classify_content};
pub use plan::{PlannedChange, plan_patch};
pub use replace::{Replace, Replaced, replace_exact};
pub use transaction::{FileOp, TransactionError, apply_all};
pub use vet::{
    MAX_READ_BYTES, open_regular, read_regular, read_regular_head, read_regular_string,
    special_file, vet_path,
};

/// Why an edit could not be made. Messages are written for the agent that
/// asked for the edit: they say what went wrong and what to do next.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error(
        "old_string is empty; pass the exact text to replace, or use the write tool to create the file"
    )]
    EmptyOld,
    #[error("old_string and new_string are identical; nothing to change")]
    NoChange,
    #[error(
        "old_string not found in the file; read the file again and copy the text exactly, including whitespace and indentation"
    )]
    NotFound,
    #[error(
        "old_string occurs {count} times; add surrounding lines to make it unique or set replace_all"
    )]
    Ambiguous { count: usize },
    #[error("patch line {line}: {message}")]
    Parse { line: usize, message: String },
    #[error("patch contains no file changes; send a unified diff or a `*** Begin Patch` block")]
    EmptyPatch,
    #[error(
        "{path}: hunk {hunk} ({header}) does not apply: its context and removed lines are not in the file; read the file again and regenerate the patch"
    )]
    HunkFailed {
        path: String,
        hunk: usize,
        header: String,
    },
    #[error("{path} does not exist; check the path, or add the file instead of updating it")]
    Missing { path: String },
    #[error(
        "{path} is {kind}, not a regular file; squiggle edits regular files only, and nothing was opened or written"
    )]
    NotRegular { path: String, kind: &'static str },
    #[error(
        "{path} is a symbolic link loop (following it leads back to itself); fix or remove the link; nothing was written"
    )]
    SymlinkLoop { path: String },
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// A parsed patch: one entry per file section, in the order written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub files: Vec<FilePatch>,
}

impl Patch {
    /// Every path the patch touches, move targets included, exactly as
    /// written, in patch order. Callers vet these (absolute paths, `..`)
    /// before planning or writing anything.
    pub fn paths(&self) -> Vec<&str> {
        let mut paths = Vec::new();
        for file in &self.files {
            match file {
                FilePatch::Add { path, .. } | FilePatch::Delete { path } => {
                    paths.push(path.as_str())
                }
                FilePatch::Update { path, move_to, .. } => {
                    paths.push(path.as_str());
                    if let Some(to) = move_to {
                        paths.push(to.as_str());
                    }
                }
            }
        }
        paths
    }
}

/// One file's change. Paths are relative as written in the patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilePatch {
    /// Create the file with this content (an existing file is overwritten).
    Add {
        path: String,
        content: String,
    },
    Delete {
        path: String,
    },
    /// Apply `hunks` in order; with `move_to`, the result lands there and the
    /// original path is removed.
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

/// One hunk of an update, in a shape shared by both patch formats.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    /// How the hunk is named in errors: the `@@` line as written, or for a
    /// bare Codex `@@` its first context or removed line.
    pub header: String,
    /// Unified diffs: the 1-based old-file line the hunk claims to start at
    /// (for an empty old side, the line it inserts after). Codex hunks have
    /// none and are found by searching forward from the previous hunk.
    pub old_start: Option<usize>,
    /// Codex `@@ text` anchors: lines located in order before the hunk's
    /// own lines are searched for.
    pub anchors: Vec<String>,
    pub lines: Vec<HunkLine>,
    /// The old side's last line has no final newline (`\ No newline at end
    /// of file` after it).
    pub old_missing_newline: bool,
    /// The new side's last line has no final newline.
    pub new_missing_newline: bool,
    /// Codex `*** End of File`: the hunk's old lines end the file.
    pub at_eof: bool,
}

impl Hunk {
    /// Lines the hunk expects in the file (context and removed).
    pub fn old_lines(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().filter_map(|line| match line {
            HunkLine::Context(text) | HunkLine::Remove(text) => Some(text.as_str()),
            HunkLine::Add(_) => None,
        })
    }

    /// Lines the hunk leaves in the file (context and added).
    pub fn new_lines(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().filter_map(|line| match line {
            HunkLine::Context(text) | HunkLine::Add(text) => Some(text.as_str()),
            HunkLine::Remove(_) => None,
        })
    }
}

/// One line of a hunk, without its line terminator. An added line keeps a
/// trailing `\r` when the patch wrote it with `\r\n`; that decides its line
/// ending only in a file with no line ending of its own yet (new or empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    Context(String),
    Remove(String),
    Add(String),
}

impl fmt::Display for HunkLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HunkLine::Context(text) => write!(f, " {text}"),
            HunkLine::Remove(text) => write!(f, "-{text}"),
            HunkLine::Add(text) => write!(f, "+{text}"),
        }
    }
}

/// Parses a patch, detecting its format: text with a `*** Begin Patch` line
/// before anything diff-like is a Codex patch, anything else a unified diff
/// (`git diff` or `diff -u` output, possibly several files). Text after
/// `*** End Patch`, and prose around a unified diff, is ignored.
pub fn parse_patch(text: &str) -> Result<Patch, EditError> {
    // A `*** Begin Patch` line before anything diff-like marks a Codex
    // patch, even inside a shell heredoc (`apply_patch <<'EOF'`).
    let is_codex = text
        .lines()
        .map(str::trim)
        .take_while(|line| !["diff ", "--- ", "@@"].iter().any(|p| line.starts_with(p)))
        .any(|line| line == codex::BEGIN);
    let patch = if is_codex {
        codex::parse(text)?
    } else {
        unified::parse(text)?
    };
    if patch.files.is_empty() {
        return Err(EditError::EmptyPatch);
    }
    Ok(patch)
}

/// A file's line ending, judged by its first line: `"\r\n"`, `"\n"`, or
/// `None` when it has no line break yet. Every mutation gives the line
/// breaks it inserts this ending.
pub(crate) fn line_ending(content: &str) -> Option<&'static str> {
    let end = memchr::memchr(b'\n', content.as_bytes())?;
    Some(if content[..end].ends_with('\r') {
        "\r\n"
    } else {
        "\n"
    })
}

/// The byte order mark some editors put before a UTF-8 file's first line.
/// It belongs to the file, not to its first line: patches match with or
/// without it, and it is kept.
pub(crate) const BOM: char = '\u{feff}';

/// Splits patch text into lines, dropping the terminator and a trailing `\r`
/// (patches pasted from CRLF files or terminals). Added (`+`) lines keep their
/// `\r`: it is how a new or empty file learns its line endings from a patch
/// made against a CRLF file. 1-based line numbers are positions + 1.
fn patch_lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n')
        .map(|line| {
            let line = line.strip_suffix('\n').unwrap_or(line);
            if line.starts_with('+') {
                line
            } else {
                line.strip_suffix('\r').unwrap_or(line)
            }
        })
        .collect()
}
