//! The docs' examples, run (`init` once said it added one
//! event while it added three, and `docs/protocol.md`'s refusal text was
//! not the binary's). A doc cannot drift from the binary again:
//!
//! - `examples`: every fenced ```` ```console NAME ```` block of README.md
//!   and `docs/*.md` — `$ command` lines, each followed by exactly what it
//!   prints — runs in a scratch workspace set up for NAME, and its output
//!   must match. A console block without a setup here fails, and so does a
//!   setup whose block is gone.
//! - `transcripts`: each refusal in `docs/protocol.md` (a `→` request
//!   answered `←` with an error) is sent to `squiggle serve`, and the
//!   answer must be the one shown.
//!
//! Blocks that show measured output (timings, a server's own version) stay
//! ```` ```text ```` and are not run.

mod answers;
mod examples;
mod transcripts;

use std::path::{Path, PathBuf};

/// Every markdown file whose examples run: README.md and `docs/*.md`.
pub fn markdown_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let docs = std::fs::read_dir(root.join("docs")).unwrap_or_else(|e| panic!("docs/: {e}"));
    let mut more: Vec<PathBuf> = docs
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    more.sort();
    files.extend(more);
    files
}

/// A fenced block: the file, the line of its opening fence, its info
/// string, and its lines.
pub struct Block {
    pub file: PathBuf,
    pub line: usize,
    pub info: String,
    pub lines: Vec<String>,
}

/// Every fenced block of `file`.
pub fn blocks(file: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    file: file.to_path_buf(),
                    line: i + 1,
                    info: info.trim().to_string(),
                    lines: Vec::new(),
                })
            }
            (Some(_), Some(_)) => out.extend(open.take()),
            (Some(block), None) => block.lines.push(line.to_string()),
            (None, None) => {}
        }
    }
    out
}
