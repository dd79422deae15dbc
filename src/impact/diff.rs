//! The lines a diff changes, on the new side: for `squiggle impact
//! --staged` and `lsp_impact`'s `diff`. The diff is read by the same parser
//! `apply_patch` uses (unified diffs and Codex patches); a hunk's place in
//! the new text comes from its `@@ -a,b +c,d @@` header, or, without one
//! (a Codex hunk), from finding its new lines in the file as it is now.

use std::path::Path;

use crate::edit::{EditError, FilePatch, HunkLine, parse_patch};

/// One file a diff touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFile {
    /// As the diff names it (the new path of a move).
    pub path: String,
    /// The 1-based lines of the new text that were added or next to a
    /// removal, ascending; `None` when the diff deletes the file.
    pub lines: Option<Vec<u32>>,
}

/// The files `diff` changes and, for each, the changed lines of its new
/// text (read from disk under `root` only for hunks without a line number).
pub fn changed_lines(diff: &str, root: &Path) -> Result<Vec<ChangedFile>, EditError> {
    let patch = parse_patch(diff)?;
    let mut files = Vec::new();
    for file in patch.files {
        match file {
            FilePatch::Add { path, content } => {
                let count = content.lines().count().max(1) as u32;
                files.push(ChangedFile {
                    path,
                    lines: Some((1..=count).collect()),
                });
            }
            FilePatch::Delete { path } => files.push(ChangedFile { path, lines: None }),
            FilePatch::Update {
                path,
                move_to,
                hunks,
            } => {
                let path = move_to.unwrap_or(path);
                let text = crate::edit::read_regular_string(
                    &root.join(&path),
                    crate::edit::MAX_READ_BYTES,
                )
                .unwrap_or_default();
                let now: Vec<&str> = text.lines().collect();
                let mut lines = Vec::new();
                for hunk in &hunks {
                    let new: Vec<&str> = hunk.new_lines().collect();
                    let start = new_start(&hunk.header)
                        .or_else(|| find(&now, &new))
                        .unwrap_or(1);
                    let mut at = start;
                    for line in &hunk.lines {
                        match line {
                            HunkLine::Context(_) => at += 1,
                            HunkLine::Add(_) => {
                                lines.push(at);
                                at += 1;
                            }
                            HunkLine::Remove(_) => lines.push(at.max(1)),
                        }
                    }
                }
                lines.sort_unstable();
                lines.dedup();
                files.push(ChangedFile {
                    path,
                    lines: Some(lines),
                });
            }
        }
    }
    Ok(files)
}

/// `c` of a `@@ -a,b +c,d @@` header (0 for an empty new side: its lines
/// then start after line 0).
fn new_start(header: &str) -> Option<u32> {
    let start = crate::edit::git_diff_text::hunk_ranges(header)?.new_start;
    Some(u32::try_from(start).ok()?.max(1))
}

/// Where `needle` starts in `lines` (1-based).
fn find(lines: &[&str], needle: &[&str]) -> Option<u32> {
    if needle.is_empty() {
        return None;
    }
    lines
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i as u32 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_a_git_diff() {
        let diff = "diff --git a/g.py b/g.py\n--- a/g.py\n+++ b/g.py\n@@ -8,2 +8,3 @@ def area\n def perimeter(w, h):\n-    return 2 * (w + h)\n+    total = w + h\n+    return 2 * total\n@@ -20 +21,0 @@\n-gone = 1\n";
        let files = changed_lines(diff, Path::new("/nonexistent")).unwrap_or_default();
        assert_eq!(
            files,
            [ChangedFile {
                path: "g.py".into(),
                lines: Some(vec![9, 10, 21]),
            }]
        );
    }

    #[test]
    fn added_and_deleted_files() {
        let diff = "diff --git a/n.py b/n.py\nnew file mode 100644\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\ndiff --git a/o.py b/o.py\ndeleted file mode 100644\n--- a/o.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n";
        let files = changed_lines(diff, Path::new("/nonexistent")).unwrap_or_default();
        assert_eq!(files.len(), 2, "{files:?}");
        assert_eq!(files[0].lines, Some(vec![1, 2]));
        assert_eq!(
            files[1],
            ChangedFile {
                path: "o.py".into(),
                lines: None
            }
        );
    }
}
