//! Which diagnostics a diff-driven check keeps, so a team can adopt
//! `squiggle check` on a codebase that already has errors: the check fails on
//! what a commit adds, not on what it touched by accident.
//!
//! The lines come from `git diff -U0`: with no context lines, each hunk
//! header `@@ -a,b +c,d @@` names exactly the new-side lines `c..c+d` that
//! the change added (a missing `,d` means one line). A hunk with `d = 0` is a
//! pure deletion after new-side line `c`.
//!
//! - `added`: the diagnostic *starts* on an added line.
//! - `changed-lines`: the diagnostic's *range* (start to end line) touches a
//!   changed line: an added line, or one of the two lines a pure deletion
//!   joined (deleting a `}` breaks the line above and the line below). So it
//!   also keeps a multi-line diagnostic that starts on an old line and runs
//!   into new ones.
//! - `file`: every diagnostic of a file the diff names.
//! - `none`: everything.

use std::collections::HashMap;

use crate::diagnostic::Diagnostic;
use crate::edit::git_diff_text;

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterMode {
    Added,
    ChangedLines,
    File,
    None,
}

impl FilterMode {
    /// Whether the mode needs the diff's lines (not only its file names).
    pub fn needs_lines(self) -> bool {
        matches!(self, FilterMode::Added | FilterMode::ChangedLines)
    }

    /// Whether `d` survives; `changes` is its file's entry in the diff (None:
    /// the file is not in the diff).
    pub fn keeps(self, d: &Diagnostic, changes: Option<&FileChanges>) -> bool {
        match (self, changes) {
            (FilterMode::None, _) => true,
            (_, None) => false,
            (FilterMode::File, Some(_)) => true,
            (FilterMode::Added, Some(c)) => c.is_added(d.line),
            (FilterMode::ChangedLines, Some(c)) => c.touches(d.line, d.end_line.max(d.line)),
        }
    }
}

/// One file's changed lines on the new side of a diff (1-based).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileChanges {
    /// Inclusive ranges of added lines.
    pub added: Vec<(u32, u32)>,
    /// New-side lines next to a pure deletion.
    pub joined: Vec<u32>,
}

impl FileChanges {
    fn is_added(&self, line: u32) -> bool {
        self.added.iter().any(|&(a, b)| a <= line && line <= b)
    }

    fn touches(&self, start: u32, end: u32) -> bool {
        self.added.iter().any(|&(a, b)| a <= end && start <= b)
            || self.joined.iter().any(|&l| start <= l && l <= end)
    }
}

/// Parses `git diff -U0` output into each new-side path's changes. Paths are
/// as git prints them after `+++ b/` (unquoted); deleted files are skipped.
pub fn parse_unified(diff: &str) -> HashMap<String, FileChanges> {
    let mut files: HashMap<String, FileChanges> = HashMap::new();
    let mut current: Option<String> = None;
    for line in diff.lines() {
        if line.starts_with("diff --git ") {
            current = None;
        } else if let Some(path) = line.strip_prefix("+++ ") {
            current = new_side_path(path);
            if let Some(path) = &current {
                files.entry(path.clone()).or_default();
            }
        } else if line.starts_with("@@ ")
            && let Some(path) = &current
            && let Some((start, count)) = new_side_range(line)
        {
            let changes = files.entry(path.clone()).or_default();
            if count == 0 {
                changes.joined.extend([start.max(1), start + 1]);
            } else {
                changes.added.push((start, start + count - 1));
            }
        }
    }
    files
}

/// `b/path` or `"b/pa\"th"` → `path`; `/dev/null` → None.
fn new_side_path(raw: &str) -> Option<String> {
    let raw = raw.trim_end_matches('\t');
    let path = if raw.starts_with('"') {
        unquote(raw)?
    } else {
        raw.to_string()
    };
    path.strip_prefix("b/").map(str::to_string)
}

/// The new side of a hunk header line (`@@ -a,b +c,d @@ …`): `(c, d)`.
fn new_side_range(line: &str) -> Option<(u32, u32)> {
    let r = git_diff_text::hunk_ranges(line)?;
    Some((
        u32::try_from(r.new_start).ok()?,
        u32::try_from(r.new_count).ok()?,
    ))
}

/// A path git quoted, read back; `None` when it is not valid UTF-8.
fn unquote(quoted: &str) -> Option<String> {
    String::from_utf8(git_diff_text::unquote(quoted)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    const DIFF: &str = "\
diff --git a/src/a.fk b/src/a.fk
index 1111111..2222222 100644
--- a/src/a.fk
+++ b/src/a.fk
@@ -3 +3 @@ fn main
-old
+new
@@ -10,2 +9,0 @@
-gone
-gone too
@@ -20,0 +19,3 @@
+one
+two
+three
diff --git a/dead.fk b/dead.fk
deleted file mode 100644
--- a/dead.fk
+++ /dev/null
@@ -1 +0,0 @@
-x
diff --git \"a/sp\\303\\251cial\\tname.fk\" \"b/sp\\303\\251cial\\tname.fk\"
new file mode 100644
--- /dev/null
+++ \"b/sp\\303\\251cial\\tname.fk\"
@@ -0,0 +1,2 @@
+a
+b
";

    fn diag(line: u32, end_line: u32) -> Diagnostic {
        Diagnostic {
            file: "src/a.fk".into(),
            line,
            column: 1,
            end_line,
            end_column: 2,
            severity: Severity::Error,
            message: "m".into(),
            code: None,
            source: None,
            server: "fake".into(),
        }
    }

    #[test]
    fn parses_hunk_headers_into_added_ranges_and_deletion_seams() {
        let files = parse_unified(DIFF);
        assert_eq!(
            files.get("src/a.fk"),
            Some(&FileChanges {
                added: vec![(3, 3), (19, 21)],
                joined: vec![9, 10],
            })
        );
        assert!(!files.contains_key("dead.fk"));
        assert_eq!(
            files.get("spécial\tname.fk").map(|c| c.added.clone()),
            Some(vec![(1, 2)])
        );
    }

    #[test]
    fn added_keeps_diagnostics_starting_on_added_lines_only() {
        let files = parse_unified(DIFF);
        let changes = files.get("src/a.fk");
        let keeps = |line, end| FilterMode::Added.keeps(&diag(line, end), changes);
        assert!(keeps(3, 3));
        assert!(keeps(20, 20));
        assert!(!keeps(2, 3), "starts on an old line");
        assert!(!keeps(9, 9), "next to a deletion");
        assert!(!FilterMode::Added.keeps(&diag(3, 3), None));
    }

    #[test]
    fn changed_lines_also_keeps_ranges_into_changes_and_deletion_seams() {
        let files = parse_unified(DIFF);
        let changes = files.get("src/a.fk");
        let keeps = |line, end| FilterMode::ChangedLines.keeps(&diag(line, end), changes);
        assert!(keeps(3, 3));
        assert!(keeps(2, 3), "runs into an added line");
        assert!(keeps(9, 9) && keeps(10, 10), "the lines a deletion joined");
        assert!(!keeps(5, 7));
        assert!(!keeps(11, 12));
    }

    #[test]
    fn file_and_none_ignore_lines() {
        let files = parse_unified(DIFF);
        assert!(FilterMode::File.keeps(&diag(5, 5), files.get("src/a.fk")));
        assert!(!FilterMode::File.keeps(&diag(5, 5), None));
        assert!(FilterMode::None.keeps(&diag(5, 5), None));
    }
}
