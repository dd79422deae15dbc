//! Parses the Codex `apply_patch` format (`*** Begin Patch` … `*** End
//! Patch`), which OpenAI's models are trained to write.
//!
//! Its hunks carry no line numbers: an update hunk is found by its context
//! and removed lines, searched for forward from the previous hunk, after any
//! `@@ text` anchors. Parsing is a little more forgiving than Codex itself
//! (an empty line inside a hunk is empty context, trailing blank lines are
//! dropped, several `@@` anchors may narrow one hunk), but a patch without
//! its closing `*** End Patch` is rejected, since that usually means the
//! model's output was cut off.

use super::{EditError, FilePatch, Hunk, HunkLine, Patch, patch_lines};

pub(super) const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

fn parse_error(index: usize, message: impl Into<String>) -> EditError {
    EditError::Parse {
        line: index + 1,
        message: message.into(),
    }
}

pub(super) fn parse(text: &str) -> Result<Patch, EditError> {
    let lines = patch_lines(text);
    let begin = lines
        .iter()
        .position(|line| line.trim() == BEGIN)
        .expect("caller found the begin line");
    let mut files = Vec::new();
    let mut i = begin + 1;
    loop {
        let Some(line) = lines.get(i).map(|line| line.trim_end()) else {
            return Err(parse_error(
                i,
                "missing `*** End Patch`; the patch may be cut off, send it whole",
            ));
        };
        if line.trim() == END {
            return Ok(Patch { files });
        }
        if let Some(path) = line.strip_prefix(ADD) {
            let (content, next) = parse_added(&lines, i + 1);
            files.push(FilePatch::Add {
                path: path.trim().to_string(),
                content,
            });
            i = next;
        } else if let Some(path) = line.strip_prefix(DELETE) {
            files.push(FilePatch::Delete {
                path: path.trim().to_string(),
            });
            i += 1;
        } else if let Some(path) = line.strip_prefix(UPDATE) {
            let path = path.trim().to_string();
            i += 1;
            let mut move_to = None;
            if let Some(to) = lines.get(i).and_then(|line| line.strip_prefix(MOVE)) {
                move_to = Some(to.trim().to_string());
                i += 1;
            }
            let (hunks, next) = parse_hunks(&lines, i, &path)?;
            if hunks.is_empty() && move_to.is_none() {
                return Err(parse_error(
                    i - 1,
                    format!("update of {path} has no hunks; add `@@` hunks or drop the section"),
                ));
            }
            files.push(FilePatch::Update {
                path,
                move_to,
                hunks,
            });
            i = next;
        } else if line.is_empty() {
            i += 1;
        } else {
            return Err(parse_error(
                i,
                format!(
                    "expected `*** Add File:`, `*** Update File:`, `*** Delete File:` or `*** End Patch`, found `{line}`"
                ),
            ));
        }
    }
}

fn is_file_boundary(line: &str) -> bool {
    let line = line.trim_end();
    line.trim() == END
        || line.starts_with(ADD)
        || line.starts_with(DELETE)
        || line.starts_with(UPDATE)
}

/// Reads `+` lines up to the next file section; an empty line counts as an
/// empty `+` line unless only blank lines follow it.
fn parse_added(lines: &[&str], start: usize) -> (String, usize) {
    let mut i = start;
    let mut body: Vec<&str> = Vec::new();
    while let Some(&line) = lines.get(i) {
        if is_file_boundary(line) {
            break;
        }
        match line.strip_prefix('+') {
            Some(text) => body.push(text),
            None if line.trim().is_empty() => body.push(""),
            None => break,
        }
        i += 1;
    }
    while i > start && lines[i - 1].trim().is_empty() && body.last() == Some(&"") {
        body.pop();
    }
    let mut content = String::new();
    for line in body {
        content.push_str(line);
        content.push('\n');
    }
    (content, i)
}

fn parse_hunks(lines: &[&str], start: usize, path: &str) -> Result<(Vec<Hunk>, usize), EditError> {
    let mut hunks = Vec::new();
    let mut current = Hunk::default();
    // Where `current`'s trailing bare blank lines begin.
    let mut blank_tail = 0;
    let mut i = start;
    while let Some(&line) = lines.get(i) {
        if is_file_boundary(line) {
            break;
        }
        if line.trim_end() == END_OF_FILE {
            current.at_eof = true;
            finish(&mut hunks, &mut current, blank_tail, i)?;
            blank_tail = 0;
        } else if let Some(anchor) = line.trim_end().strip_prefix("@@") {
            if !current.lines.is_empty() {
                finish(&mut hunks, &mut current, blank_tail, i)?;
                blank_tail = 0;
            }
            let anchor = anchor.trim();
            if !anchor.is_empty() {
                current.anchors.push(anchor.to_string());
                current.header = format!("@@ {anchor}");
            }
        } else {
            let parsed = match line.chars().next() {
                Some(' ') => HunkLine::Context(line[1..].to_string()),
                Some('-') => HunkLine::Remove(line[1..].to_string()),
                Some('+') => HunkLine::Add(line[1..].to_string()),
                _ if line.trim().is_empty() => HunkLine::Context(String::new()),
                _ => {
                    return Err(parse_error(
                        i,
                        format!(
                            "unexpected line in the update of {path}: `{line}`; hunk lines start with ' ', '-' or '+'"
                        ),
                    ));
                }
            };
            if !line.trim().is_empty() || line.starts_with(' ') {
                blank_tail = current.lines.len() + 1;
            }
            current.lines.push(parsed);
        }
        i += 1;
    }
    if !current.lines.is_empty() || !current.anchors.is_empty() {
        finish(&mut hunks, &mut current, blank_tail, i)?;
    }
    Ok((hunks, i))
}

/// Closes `current`: keeps its first `keep` lines (dropping trailing bare
/// blank lines), names it, and pushes it; a hunk of blank lines vanishes.
fn finish(
    hunks: &mut Vec<Hunk>,
    current: &mut Hunk,
    keep: usize,
    index: usize,
) -> Result<(), EditError> {
    let mut hunk = std::mem::take(current);
    hunk.lines.truncate(keep);
    if hunk.lines.is_empty() && hunk.anchors.is_empty() {
        // Only blank lines between sections.
        return Ok(());
    }
    if hunk.lines.is_empty() {
        return Err(parse_error(
            index,
            "hunk has no lines; give it context and `-`/`+` lines",
        ));
    }
    if hunk.header.is_empty() {
        let first = hunk
            .old_lines()
            .find(|line| !line.trim().is_empty())
            .or_else(|| hunk.new_lines().next());
        hunk.header = first.unwrap_or_default().trim().to_string();
    }
    hunks.push(hunk);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(text: &str) -> Vec<Hunk> {
        match parse(text).unwrap().files.remove(0) {
            FilePatch::Update { hunks, .. } => hunks,
            other => panic!("expected an update, got {other:?}"),
        }
    }

    #[test]
    fn hunks_split_on_at_lines_and_drop_trailing_blanks() {
        let hunks = update(
            "*** Begin Patch\n*** Update File: f\n a\n-b\n+c\n\n\n@@ fn g\n\n-d\n*** End Patch\n",
        );
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].header, "a");
        assert_eq!(hunks[0].lines.len(), 3);
        assert_eq!(hunks[1].header, "@@ fn g");
        assert_eq!(hunks[1].anchors, vec!["fn g"]);
        // A blank line inside a hunk is empty context.
        assert_eq!(
            hunks[1].lines,
            vec![
                HunkLine::Context(String::new()),
                HunkLine::Remove("d".into())
            ]
        );
    }

    #[test]
    fn end_of_file_marks_the_hunk() {
        let hunks = update(
            "*** Begin Patch\n*** Update File: f\n@@\n-z\n+y\n*** End of File\n*** End Patch",
        );
        assert!(hunks[0].at_eof);
        assert_eq!(hunks[0].header, "z");
    }

    #[test]
    fn heredoc_wrapper_and_blank_added_lines() {
        let patch = crate::edit::parse_patch(
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: n\n+a\n\n+b\n\n*** End Patch\nEOF\n",
        )
        .unwrap();
        assert_eq!(
            patch.files,
            vec![FilePatch::Add {
                path: "n".into(),
                content: "a\n\nb\n".into()
            }]
        );
    }

    #[test]
    fn update_without_hunks_is_an_error() {
        let err = parse("*** Begin Patch\n*** Update File: f\n*** End Patch\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "patch line 2: update of f has no hunks; add `@@` hunks or drop the section"
        );
    }

    #[test]
    fn anchor_without_lines_is_an_error() {
        let err =
            parse("*** Begin Patch\n*** Update File: f\n@@ fn a\n*** End Patch\n").unwrap_err();
        assert!(err.to_string().contains("hunk has no lines"), "{err}");
    }
}
